// testcontainers-go's Kafka module (written for confluentinc/confluent-local)
// starting the Skiff image, tagged with a name the module accepts: its start
// script drives /etc/confluent/docker/{bash-config,configure,launch} and it
// waits for "Transitioning from RECOVERY to RUNNING". Then kcat produces and
// consumes 20 messages through the mapped port. Exits 0 only if all passed;
// scripts/test-image-compat.sh runs it.
//
//	go run . confluentinc/confluent-local:7.6.0
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/testcontainers/testcontainers-go/modules/kafka"
)

func fail(format string, a ...any) {
	fmt.Printf("FAILED: "+format+"\n", a...)
	os.Exit(1)
}

func main() {
	ctx := context.Background()
	c, err := kafka.Run(ctx, os.Args[1])
	if err != nil {
		fail("kafka.Run: %v", err)
	}
	defer func() { _ = c.Terminate(ctx) }()
	brokers, err := c.Brokers(ctx)
	if err != nil || len(brokers) == 0 {
		fail("Brokers: %v", err)
	}
	fmt.Println("ok: kafka.Run started", os.Args[1], "brokers", brokers)
	var want []string
	for i := 0; i < 20; i++ {
		want = append(want, fmt.Sprintf("go-%d", i))
	}
	produce := exec.Command("kcat", "-b", brokers[0], "-P", "-t", "tc-go")
	produce.Stdin = strings.NewReader(strings.Join(want, "\n") + "\n")
	if out, err := produce.CombinedOutput(); err != nil {
		fail("kcat -P: %v %s", err, out)
	}
	got, err := exec.Command("kcat", "-b", brokers[0], "-C", "-t", "tc-go", "-o", "beginning", "-e", "-q").Output()
	if err != nil || strings.TrimSpace(string(got)) != strings.Join(want, "\n") {
		fail("kcat -C: %v, got %q", err, got)
	}
	fmt.Println("ok: produced and consumed 20 messages")
	fmt.Println("passed")
}
