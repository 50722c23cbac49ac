package main

// The Schema Registry with franz-go's pkg/sr (test_schema_registry.py, the
// franz_go run): `franz-go-driver sr BOOTSTRAP REGISTRY_URL` registers a
// JSON Schema, produces three values through a pkg/sr Serde (Confluent's wire
// format), consumes and decodes them, checks a compatible change, and tries
// an incompatible registration. Prints one JSON object:
// {id, version, byID, got, compatible, incompatibleStatus}; exit 1 on error.
// Bounded: every call has a 30 s context.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
)

type srOrder struct {
	ID   int    `json:"id"`
	Item string `json:"item"`
}

const srSchema = `{"type":"object","properties":{"id":{"type":"integer"},"item":{"type":"string"}},"required":["id"]}`

// A closed model that adds a required property: not BACKWARD compatible.
const srIncompatible = `{"type":"object","properties":{"id":{"type":"integer"},"owner":{"type":"string"}},` +
	`"required":["id","owner"],"additionalProperties":false}`

// A property removed from an open model (the new reader still accepts it):
// BACKWARD compatible, where adding one would not be (Confluent's rules).
const srCompatible = `{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`

func srMain(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: franz-go-driver sr BOOTSTRAP REGISTRY_URL")
		return 2
	}
	out, err := srRun(args[0], args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
	return 0
}

func srRun(bootstrap, url string) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rcl, err := sr.NewClient(sr.URLs(url))
	if err != nil {
		return nil, err
	}
	const subject = "go-orders-value"
	ss, err := rcl.CreateSchema(ctx, subject, sr.Schema{Schema: srSchema, Type: sr.TypeJSON})
	if err != nil {
		return nil, fmt.Errorf("create: %w", err)
	}
	byID, err := rcl.SchemaByID(ctx, ss.ID)
	if err != nil {
		return nil, fmt.Errorf("by id: %w", err)
	}
	var serde sr.Serde
	serde.Register(ss.ID, srOrder{}, sr.EncodeFn(json.Marshal), sr.DecodeFn(json.Unmarshal))
	got, err := srRoundTrip(ctx, bootstrap, &serde)
	if err != nil {
		return nil, err
	}
	compat, err := rcl.CheckCompatibility(ctx, subject, -1, sr.Schema{Schema: srCompatible, Type: sr.TypeJSON})
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	status := 0
	_, err = rcl.CreateSchema(ctx, subject, sr.Schema{Schema: srIncompatible, Type: sr.TypeJSON})
	var re *sr.ResponseError
	if errors.As(err, &re) {
		status = re.StatusCode
	}
	return map[string]any{"id": ss.ID, "version": ss.Version, "byID": byID.Type.String(), "got": got,
		"compatible": compat.Is, "incompatibleStatus": status}, nil
}

func srRoundTrip(ctx context.Context, bootstrap string, serde *sr.Serde) ([]srOrder, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.ConsumeTopics("go-orders"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.AllowAutoTopicCreation())
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	for i := 1; i <= 3; i++ {
		v, err := serde.Encode(srOrder{ID: i, Item: fmt.Sprintf("thing-%d", i)})
		if err != nil {
			return nil, err
		}
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "go-orders", Value: v}).FirstErr(); err != nil {
			return nil, fmt.Errorf("produce: %w", err)
		}
	}
	var got []srOrder
	for len(got) < 3 {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("consume: %w", err)
		}
		for _, r := range fs.Records() {
			var o srOrder
			if err := serde.Decode(r.Value, &o); err != nil {
				return nil, fmt.Errorf("decode: %w", err)
			}
			got = append(got, o)
		}
	}
	sort.Slice(got, func(i, j int) bool { return got[i].ID < got[j].ID })
	return got, nil
}
