package main

// The admin_ops operation: test_admin.py's admin sequence through franz-go's
// kadm (the same steps as the kafkajs driver's admin_ops, plus re-creating the
// deleted name). Returns what each step saw; the test checks it.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

func adminOps(ctx context.Context, req *request) (map[string]any, error) {
	// kadm answers metadata (topics, partitions, and the partitions that
	// ListOffsets asks for) from the client's cache while it is younger than
	// MetadataMinAge: keep that at kgo's minimum, and let the steps that change
	// metadata wait until it shows the change (waitFor), as a kadm user must.
	cl, err := kgo.NewClient(append(baseOpts(req), kgo.MetadataMinAge(10*time.Millisecond))...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	t := req.Topic
	seen := map[string]any{}
	// Calls get until done(value) or for at most 10 s; returns the last value.
	waitFor := func(get func() (any, error), done func(any) bool) (any, error) {
		deadline := time.Now().Add(10 * time.Second)
		for {
			v, err := get()
			if err != nil || done(v) || time.Now().After(deadline) || ctx.Err() != nil {
				return v, err
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	partitions := func() (any, error) {
		ds, err := adm.ListTopics(ctx, t)
		if err != nil {
			return 0, err
		}
		d, ok := ds[t]
		if !ok || errors.Is(d.Err, kerr.UnknownTopicOrPartition) {
			return 0, nil // not (yet) there: waitFor asks again
		}
		if d.Err != nil {
			return 0, fmt.Errorf("metadata %s: %w", t, d.Err)
		}
		return len(d.Partitions), nil
	}
	listed := func() (any, error) {
		ds, err := adm.ListTopics(ctx)
		if err != nil {
			return false, err
		}
		return ds.Has(t), nil
	}
	describe := func() (map[string]any, error) {
		rcs, err := adm.DescribeTopicConfigs(ctx, t)
		if err != nil {
			return nil, err
		}
		rc, err := rcs.On(t, nil)
		if err != nil {
			return nil, err
		}
		if rc.Err != nil {
			return nil, fmt.Errorf("describe configs %s: %w %s", t, rc.Err, rc.ErrMessage)
		}
		out := map[string]any{}
		for _, c := range rc.Configs {
			if c.Value == nil {
				out[c.Key] = nil
			} else {
				out[c.Key] = *c.Value
			}
		}
		return out, nil
	}

	// Create with 2 partitions and a topic config.
	cr, err := adm.CreateTopic(ctx, 2, 1, map[string]*string{"retention.ms": kadm.StringPtr("333333")}, t)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w %s", t, err, cr.ErrMessage)
	}
	seen["created"] = cr.Topic == t
	seen["created_partitions"] = cr.NumPartitions
	if seen["listed"], err = listed(); err != nil {
		return nil, err
	}
	if seen["configs"], err = describe(); err != nil {
		return nil, err
	}

	// IncrementalAlterConfigs: set one config, the other must stay.
	ars, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{
		{Op: kadm.SetConfig, Name: "retention.ms", Value: kadm.StringPtr("444444")},
		{Op: kadm.SetConfig, Name: "segment.ms", Value: kadm.StringPtr("600000")},
	}, t)
	if err != nil {
		return nil, fmt.Errorf("alter configs: %w", err)
	}
	for _, r := range ars {
		if r.Err != nil {
			return nil, fmt.Errorf("alter configs %s: %w %s", r.Name, r.Err, r.ErrMessage)
		}
	}
	cfg, err := describe()
	if err != nil {
		return nil, err
	}
	seen["altered"] = map[string]any{"retention.ms": cfg["retention.ms"], "segment.ms": cfg["segment.ms"]}

	// CreatePartitions: 2 -> 3.
	prs, err := adm.UpdatePartitions(ctx, 3, t)
	if err != nil {
		return nil, fmt.Errorf("create partitions: %w", err)
	}
	if err := prs.Error(); err != nil {
		return nil, fmt.Errorf("create partitions: %w", err)
	}
	if seen["partitions"], err = waitFor(partitions, func(v any) bool { return v == 3 }); err != nil {
		return nil, err
	}

	// Five records to partition 0, then DeleteRecords before offset 3.
	pcl, err := kgo.NewClient(append(baseOpts(req),
		kgo.DisableIdempotentWrite(),
		kgo.MaxProduceRequestsInflightPerBroker(1),
		kgo.RecordRetries(20),
		kgo.RecordPartitioner(mixedPartitioner{kgo.StickyKeyPartitioner(nil)}))...)
	if err != nil {
		return nil, err
	}
	var recs []record
	for i := 0; i < 5; i++ {
		p := int32(0)
		recs = append(recs, record{P: &p, V: []byte(fmt.Sprintf("v%d", i))})
	}
	res := produce(ctx, req, pcl, t, recs)
	pcl.Close()
	for i, r := range res {
		if r["error"] != nil {
			return nil, fmt.Errorf("produce record %d: %v", i, r["error"])
		}
	}
	var del kadm.Offsets
	del.AddOffset(t, 0, 3, -1)
	drs, err := adm.DeleteRecords(ctx, del)
	if err != nil {
		return nil, fmt.Errorf("delete records: %w", err)
	}
	dr, ok := drs.Lookup(t, 0)
	if !ok {
		return nil, fmt.Errorf("delete records: no response for %s[0]", t)
	}
	if dr.Err != nil {
		return nil, fmt.Errorf("delete records: %w", dr.Err)
	}
	seen["low_watermark"] = dr.LowWatermark

	// ListOffsets: earliest and latest of every partition.
	offsets := func() (map[string]any, map[string]any, error) {
		starts, err := adm.ListStartOffsets(ctx, t)
		if err != nil {
			return nil, nil, fmt.Errorf("list start offsets: %w", err)
		}
		if err := starts.Error(); err != nil {
			return nil, nil, fmt.Errorf("list start offsets: %w", err)
		}
		ends, err := adm.ListEndOffsets(ctx, t)
		if err != nil {
			return nil, nil, fmt.Errorf("list end offsets: %w", err)
		}
		if err := ends.Error(); err != nil {
			return nil, nil, fmt.Errorf("list end offsets: %w", err)
		}
		low, high := map[string]any{}, map[string]any{}
		starts.Each(func(o kadm.ListedOffset) { low[fmt.Sprint(o.Partition)] = o.Offset })
		ends.Each(func(o kadm.ListedOffset) { high[fmt.Sprint(o.Partition)] = o.Offset })
		return low, high, nil
	}
	if seen["low"], seen["high"], err = offsets(); err != nil {
		return nil, err
	}

	// DeleteTopics, then the same name again at once.
	if _, err := adm.DeleteTopic(ctx, t); err != nil {
		return nil, fmt.Errorf("delete topic: %w", err)
	}
	l, err := waitFor(listed, func(v any) bool { return v == false })
	if err != nil {
		return nil, err
	}
	seen["deleted"] = l == false
	cr, err = adm.CreateTopic(ctx, 1, 1, nil, t)
	if err != nil {
		return nil, fmt.Errorf("re-create %s: %w %s", t, err, cr.ErrMessage)
	}
	if seen["recreated_partitions"], err = waitFor(partitions, func(v any) bool { return v == 1 }); err != nil {
		return nil, err
	}
	if seen["recreated_low"], seen["recreated_high"], err = offsets(); err != nil {
		return nil, err
	}
	if seen["recreated_configs"], err = describe(); err != nil {
		return nil, err
	}
	return seen, nil
}
