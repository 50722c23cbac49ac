package main

// franz-go's share consumer (kgo.ShareGroup, franz-go v1.22: ShareFetch v2)
// under the share drivers' common contract (drivers/README.md, "Share
// consumers"): `franz-go-driver share key=value...` prints JSON lines on
// stdout, one per event; bounded by timeout_ms. In franz-go every record of
// a poll not acked explicitly is accepted by the next poll (or on close), so
// ack=implicit simply never calls Ack.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

var emitMu sync.Mutex

func emit(ev string, kv map[string]any) {
	if kv == nil {
		kv = map[string]any{}
	}
	kv["ev"] = ev
	b, _ := json.Marshal(kv)
	emitMu.Lock()
	os.Stdout.Write(append(b, '\n'))
	emitMu.Unlock()
}

func shareDecide(rule string, off int64, dc int32) (string, error) {
	switch {
	case rule == "accept" || rule == "release" || rule == "reject":
		return rule, nil
	case strings.HasPrefix(rule, "release_until:"):
		n, err := strconv.Atoi(strings.TrimPrefix(rule, "release_until:"))
		if err != nil {
			return "", err
		}
		if int(dc) < n {
			return "release", nil
		}
		return "accept", nil
	case rule == "reject_even":
		if off%2 == 0 {
			return "reject", nil
		}
		return "accept", nil
	case rule == "mixed": // offset % 3: 0 reject, 1 release at delivery 1 then accept, 2 accept
		switch {
		case off%3 == 0:
			return "reject", nil
		case off%3 == 1 && dc == 1:
			return "release", nil
		}
		return "accept", nil
	case rule == "release_even":
		if off%2 == 0 && dc == 1 {
			return "release", nil
		}
		return "accept", nil
	}
	return "", fmt.Errorf("unknown ack rule %q", rule)
}

var ackStatus = map[string]kgo.AckStatus{"accept": kgo.AckAccept, "release": kgo.AckRelease, "reject": kgo.AckReject}

func shareMain(argv []string) int {
	a := map[string]string{}
	for _, kv := range argv {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			fmt.Fprintln(os.Stderr, "expected key=value, got", kv)
			return 2
		}
		a[k] = v
	}
	timeout, _ := strconv.Atoi(a["timeout_ms"])
	if timeout == 0 {
		timeout = 60000
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(timeout)*time.Millisecond)
	defer cancel()
	ack := a["ack"]
	if ack == "" {
		ack = "implicit"
	}
	maxRecords := 1 << 30
	if v, ok := a["max_records"]; ok {
		maxRecords, _ = strconv.Atoi(v)
	}
	stopped := func() bool {
		if f := a["stop_file"]; f != "" {
			_, err := os.Stat(f)
			return err == nil
		}
		return false
	}
	name := a["name"]
	if name == "" {
		name = "franz-go-share"
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(a["bootstrap"]), kgo.ClientID(name),
		kgo.ShareGroup(a["group"]), kgo.ConsumeTopics(strings.Split(a["topics"], ",")...),
		kgo.ShareAckCallback(func(_ *kgo.Client, rs kgo.ShareAckResults) {
			for _, r := range rs {
				var e any
				if r.Err != nil {
					e = r.Err.Error()
				}
				emit("ack_result", map[string]any{"t": r.Topic, "p": r.Partition, "error": e})
			}
		}),
	}
	if v, ok := a["max_poll_records"]; ok {
		n, _ := strconv.Atoi(v)
		opts = append(opts, kgo.ShareMaxRecords(int32(n)), kgo.ShareMaxRecordsStrict())
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		emit("error", map[string]any{"error": err.Error()})
		return 1
	}
	emit("ready", nil)
	received, holding := 0, false
	var errText any
	for ctx.Err() == nil && !stopped() && received < maxRecords {
		pctx, pcancel := context.WithTimeout(ctx, 500*time.Millisecond)
		fs := cl.PollFetches(pctx)
		pcancel()
		for _, fe := range fs.Errors() {
			if fe.Err != context.DeadlineExceeded && fe.Err != context.Canceled {
				emit("poll_error", map[string]any{"t": fe.Topic, "p": fe.Partition, "error": fe.Err.Error()})
			}
		}
		recs := fs.Records()
		for _, r := range recs {
			received++
			what := "implicit"
			if ack == "none" {
				what = "none"
			} else if ack != "implicit" {
				if what, err = shareDecide(ack, r.Offset, r.DeliveryCount()); err != nil {
					emit("error", map[string]any{"error": err.Error()})
					return 1
				}
				r.Ack(ackStatus[what])
			}
			emit("rec", map[string]any{"t": r.Topic, "p": r.Partition, "o": r.Offset, "dc": r.DeliveryCount(),
				"k": string(r.Key), "v": string(r.Value), "ack": what})
			if ms, err := strconv.Atoi(a["sleep_ms"]); err == nil && ms > 0 { // processing time
				time.Sleep(time.Duration(ms) * time.Millisecond)
			}
		}
		if len(recs) > 0 && ack != "implicit" && ack != "none" {
			fctx, fcancel := context.WithTimeout(ctx, 20*time.Second)
			err := cl.FlushAcks(fctx)
			fcancel()
			var e any
			if err != nil {
				e = err.Error()
			}
			emit("commit", map[string]any{"error": e})
		}
		if len(recs) > 0 && ack == "none" {
			holding = true
			emit("holding", map[string]any{"n": len(recs)})
			hold, _ := strconv.Atoi(a["hold_ms"])
			until := time.Now().Add(time.Duration(hold) * time.Millisecond)
			for time.Now().Before(until) && ctx.Err() == nil && !stopped() {
				time.Sleep(50 * time.Millisecond)
			}
			if la, ok := a["late_ack"]; ok {
				for _, r := range recs {
					r.Ack(ackStatus[la])
				}
				fctx, fcancel := context.WithTimeout(ctx, 20*time.Second)
				err := cl.FlushAcks(fctx)
				fcancel()
				var e any
				if err != nil {
					e = err.Error()
				}
				emit("late_commit", map[string]any{"error": e})
			}
			break
		}
	}
	emit("closing", map[string]any{"received": received, "holding": holding})
	cl.Close()
	emit("closed", map[string]any{"received": received, "error": errText})
	return 0
}
