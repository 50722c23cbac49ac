// txn_epoch_probe (see ../README.md): what the broker answers, request by
// request, once a transaction version 2 abort has bumped a producer's epoch
// under its feet, as raw kmsg requests so that no client logic hides an
// error code. The order is that of a GroupTransactSession whose partitions
// were revoked: its transaction is aborted (EndTxn v5 bumps the epoch) while
// a produce or an offset commit of the old epoch is still on its way.
// Answers {"steps": [{"step": name, "error": code}, ...]}; the test compares
// them with what Apache Kafka 4.4 answers.
package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// One transactional record batch of one record, Kafka's v2 format.
func txnBatch(pid int64, epoch int16, seq int32, value string) []byte {
	rec := []byte{0}                  // attributes
	rec = binary.AppendVarint(rec, 0) // timestamp delta
	rec = binary.AppendVarint(rec, 0) // offset delta
	rec = binary.AppendVarint(rec, -1)
	rec = binary.AppendVarint(rec, int64(len(value)))
	rec = append(rec, value...)
	rec = binary.AppendVarint(rec, 0) // headers
	records := binary.AppendVarint(nil, int64(len(rec)))
	records = append(records, rec...)
	now := time.Now().UnixMilli()
	b := kmsg.RecordBatch{Magic: 2, Attributes: 0x10, FirstTimestamp: now, MaxTimestamp: now,
		ProducerID: pid, ProducerEpoch: epoch, FirstSequence: seq, NumRecords: 1, Records: records}
	raw := b.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[8:12], uint32(len(raw)-12))
	crc := crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli))
	binary.BigEndian.PutUint32(raw[17:21], crc)
	return raw
}

type probe struct {
	ctx   context.Context
	br    *kgo.Broker
	steps []map[string]any
	txnID string
	pid   int64
}

func (p *probe) record(step string, code int16, extra map[string]any) {
	s := map[string]any{"step": step, "error": code}
	for k, v := range extra {
		s[k] = v
	}
	p.steps = append(p.steps, s)
}

func (p *probe) produce(step, topic string, partition int32, epoch int16, seq int32) error {
	req := kmsg.NewPtrProduceRequest()
	req.TransactionID = &p.txnID
	req.Acks = -1
	req.TimeoutMillis = 5000
	t := kmsg.NewProduceRequestTopic()
	t.Topic = topic
	pp := kmsg.NewProduceRequestTopicPartition()
	pp.Partition = partition
	pp.Records = txnBatch(p.pid, epoch, seq, step)
	t.Partitions = append(t.Partitions, pp)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(p.ctx, p.br)
	if err != nil {
		return fmt.Errorf("%s: %w", step, err)
	}
	p.record(step, resp.Topics[0].Partitions[0].ErrorCode, nil)
	return nil
}

func (p *probe) txnOffsetCommit(step, group, topic string, epoch int16, memberID string, memberEpoch int32) error {
	req := kmsg.NewPtrTxnOffsetCommitRequest()
	req.TransactionalID = p.txnID
	req.Group = group
	req.ProducerID = p.pid
	req.ProducerEpoch = epoch
	req.MemberID = memberID
	req.Generation = memberEpoch
	t := kmsg.NewTxnOffsetCommitRequestTopic()
	t.Topic = topic
	pp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
	pp.Partition = 0
	pp.Offset = 1
	t.Partitions = append(t.Partitions, pp)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(p.ctx, p.br)
	if err != nil {
		return fmt.Errorf("%s: %w", step, err)
	}
	p.record(step, resp.Topics[0].Partitions[0].ErrorCode, nil)
	return nil
}

func (p *probe) endTxn(step string, epoch int16, commit bool) (int16, error) {
	req := kmsg.NewPtrEndTxnRequest()
	req.TransactionalID = p.txnID
	req.ProducerID = p.pid
	req.ProducerEpoch = epoch
	req.Commit = commit
	resp, err := req.RequestWith(p.ctx, p.br)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", step, err)
	}
	p.record(step, resp.ErrorCode, map[string]any{"epoch_delta": int(resp.ProducerEpoch) - int(epoch)})
	return resp.ProducerEpoch, nil
}

// retryConcurrent repeats fn while it answers CONCURRENT_TRANSACTIONS (the
// markers of the previous end are still being written), at most 5 s.
func (p *probe) retryConcurrent(fn func() error) error {
	tries := 0
	for deadline := time.Now().Add(5 * time.Second); ; tries++ {
		n := len(p.steps)
		if err := fn(); err != nil {
			return err
		}
		if p.steps[n]["error"] != int16(51) || time.Now().After(deadline) {
			p.steps[n]["concurrent_retries"] = tries
			return nil
		}
		p.steps = p.steps[:n]
		time.Sleep(50 * time.Millisecond)
	}
}

// waitCoordinator: FindCoordinator until the broker is the coordinator of key.
func (p *probe) waitCoordinator(key string, typ int8) error {
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.CoordinatorKey = key
		req.CoordinatorType = typ
		req.CoordinatorKeys = []string{key}
		resp, err := req.RequestWith(p.ctx, p.br)
		code := int16(-1)
		if err == nil && len(resp.Coordinators) > 0 {
			code = resp.Coordinators[0].ErrorCode
		} else if err == nil {
			code = resp.ErrorCode
		}
		if code == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("FindCoordinator %q: %v (error %d)", key, err, code)
		}
	}
}

func txnEpochProbe(ctx context.Context, req *request) (any, error) {
	vs := kversion.Stable()
	vs.SetMaxKeyVersion(int16(kmsg.Produce), 12)        // topic names, transaction version 2
	vs.SetMaxKeyVersion(int16(kmsg.TxnOffsetCommit), 5) // topic names, implicit add
	vs.SetMaxKeyVersion(int16(kmsg.EndTxn), 5)
	cl, err := kgo.NewClient(append(baseOpts(req), kgo.MaxVersions(vs))...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	meta, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	p := &probe{ctx: ctx, br: cl.Broker(int(meta.Brokers[0].NodeID)), txnID: req.Group + "-probe"}
	// The coordinators first (Kafka creates their topics on the first
	// FindCoordinator), then two InitProducerIds: epoch 1, so that an end
	// at an epoch older than the aborted one can be tried.
	for _, key := range []struct {
		key string
		typ int8
	}{{p.txnID, 1}, {req.Group, 0}} {
		if err := p.waitCoordinator(key.key, key.typ); err != nil {
			return nil, err
		}
	}
	var e int16
	for i := 0; i < 2; i++ {
		init := kmsg.NewPtrInitProducerIDRequest()
		init.TransactionalID = &p.txnID
		init.TransactionTimeoutMillis = 30000
		iresp, err := init.RequestWith(ctx, p.br)
		for end := time.Now().Add(20 * time.Second); err == nil && iresp.ErrorCode != 0 && time.Now().Before(end); {
			time.Sleep(200 * time.Millisecond) // the coordinator loading (14), or not yet elected
			iresp, err = init.RequestWith(ctx, p.br)
		}
		if err != nil || iresp.ErrorCode != 0 {
			return nil, fmt.Errorf("InitProducerId: %v %v", err, iresp)
		}
		p.pid, e = iresp.ProducerID, iresp.ProducerEpoch
	}
	t, g := req.Topic, req.Group
	// A transaction at epoch e: a record on partition 0, the group's offset.
	if err := p.produce("produce", t, 0, e, 0); err != nil {
		return nil, err
	}
	if err := p.txnOffsetCommit("txn_offset_commit", g, t, e, "", -1); err != nil {
		return nil, err
	}
	// The abort (EndTxn v5) bumps the epoch to e+1.
	e1, err := p.endTxn("abort", e, false)
	if err != nil {
		return nil, err
	}
	// What the old epoch gets now, on a partition of the aborted
	// transaction, on a new one, and on the group's offsets.
	if err := p.produce("produce_old_epoch_same_partition", t, 0, e, 1); err != nil {
		return nil, err
	}
	if err := p.produce("produce_old_epoch_new_partition", t, 1, e, 0); err != nil {
		return nil, err
	}
	if err := p.retryConcurrent(func() error {
		return p.txnOffsetCommit("txn_offset_commit_old_epoch", g, t, e, "", -1)
	}); err != nil {
		return nil, err
	}
	// A retry of the abort (the epoch one below) and an end at an older
	// epoch still; CONCURRENT_TRANSACTIONS while the abort's markers are
	// written, on Kafka as here.
	end := func(step string, epoch int16, commit bool) error {
		return p.retryConcurrent(func() error {
			_, err := p.endTxn(step, epoch, commit)
			return err
		})
	}
	if err := end("abort_retry", e, false); err != nil {
		return nil, err
	}
	if err := end("commit_old_epoch", e, true); err != nil {
		return nil, err
	}
	if err := end("abort_older_epoch", e-1, false); err != nil {
		return nil, err
	}
	// The next transaction at e+1 goes on.
	if err := p.retryConcurrent(func() error { return p.produce("produce_new_epoch", t, 0, e1, 0) }); err != nil {
		return nil, err
	}
	if err := p.retryConcurrent(func() error {
		return p.txnOffsetCommit("txn_offset_commit_new_epoch", g, t, e1, "", -1)
	}); err != nil {
		return nil, err
	}
	if err := p.produce("produce_old_epoch_after_new", t, 0, e, 2); err != nil {
		return nil, err
	}
	if err := p.txnOffsetCommit("txn_offset_commit_old_epoch_after_new", g, t, e, "", -1); err != nil {
		return nil, err
	}
	if _, err := p.endTxn("commit_new_epoch", e1, true); err != nil {
		return nil, err
	}
	return map[string]any{"steps": p.steps}, nil
}
