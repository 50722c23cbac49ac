// Transactional operations of the franz-go driver (see ../README.md):
//
//	txn_member  one consume-transform-produce member of a group through
//	            kgo.GroupTransactSession, run until SIGTERM or timeout_ms;
//	            prints one {"ev": ...} JSON line per transaction on stdout
//	            (the suite SIGKILLs members mid-run); "protocol":
//	            "consumer" joins with KIP-848's ConsumerGroupHeartbeat.
//	txn_bench   transactional produce (per_txn records per transaction, the
//	            EndTxn latency of each) or idempotent produce, for
//	            bench/txn.py.
//
// They read their own fields from the request file (txnRequest), so main.go
// only dispatches. "tv1": true caps Produce at v11, EndTxn and
// TxnOffsetCommit at v4, which makes franz-go take the KIP-890 version 1 path
// (explicit AddPartitionsToTxn / AddOffsetsToTxn) even against a broker that
// finalizes transaction.version=2.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

type txnRequest struct {
	Group     string `json:"group"`
	Topic     string `json:"topic"`
	OutTopic  string `json:"out_topic"`
	TxnID     string `json:"txn_id"`
	TV1       bool   `json:"tv1"`
	Batch     int    `json:"batch"`    // txn_member: records per transaction at most
	DelayMs   int    `json:"delay_ms"` // txn_member: pause inside each transaction
	TxnTimeMs int    `json:"txn_timeout_ms"`
	Mode      string `json:"mode"`    // txn_bench: "txn" or "idempotent"
	Records   int    `json:"count"`   // txn_bench
	Size      int    `json:"size"`    // txn_bench
	PerTxn    int    `json:"per_txn"` // txn_bench
}

var extraOps = map[string]func(ctx context.Context, req *request) (any, error){
	"txn_member":      txnMember,
	"txn_bench":       txnBench,
	"txn_epoch_probe": txnEpochProbe, // txn_probe.go
}

func readTxnRequest() (*txnRequest, error) {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		return nil, err
	}
	var t txnRequest
	return &t, json.Unmarshal(data, &t)
}

func txnOpts(req *request, t *txnRequest) []kgo.Opt {
	opts := baseOpts(req)
	if t.TV1 {
		vs := kversion.Stable()
		vs.SetMaxKeyVersion(int16(kmsg.Produce), 11)
		vs.SetMaxKeyVersion(int16(kmsg.EndTxn), 4)
		vs.SetMaxKeyVersion(int16(kmsg.TxnOffsetCommit), 4)
		opts = append(opts, kgo.MaxVersions(vs))
	}
	timeout := 10 * time.Second
	if t.TxnTimeMs > 0 {
		timeout = time.Duration(t.TxnTimeMs) * time.Millisecond
	}
	return append(opts, kgo.TransactionalID(t.TxnID), kgo.TransactionTimeout(timeout))
}

func event(ev map[string]any) {
	ev["t"] = float64(time.Now().UnixMilli()) / 1000
	b, _ := json.Marshal(ev)
	fmt.Println(string(b))
}

// txnMember: poll at most Batch input records, produce "out:"+value for each
// into OutTopic in one transaction (with the input offsets), pause DelayMs,
// commit; until SIGTERM or the request's timeout. SIGTERM is a graceful
// leave: the transaction under way ends first, then the member leaves.
func txnMember(ctx context.Context, req *request) (any, error) {
	t, err := readTxnRequest()
	if err != nil {
		return nil, err
	}
	term, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	opts := append(txnOpts(req, t),
		kgo.ConsumerGroup(t.Group),
		kgo.ConsumeTopics(t.Topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.RequireStableFetchOffsets(),
		kgo.SessionTimeout(6*time.Second),
		kgo.HeartbeatInterval(500*time.Millisecond),
		kgo.FetchMaxWait(200*time.Millisecond))
	if req.Protocol == "consumer" {
		// KIP-848: the broker assigns, partitions move between members by
		// revocation while their transactions run.
		opts = append(opts, kgo.ServerSideBalancer(), kgo.Balancers(kgo.CooperativeStickyBalancer()))
	}
	s, err := kgo.NewGroupTransactSession(opts...)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	committed, aborted, records := 0, 0, 0
	for term.Err() == nil {
		pctx, pcancel := context.WithTimeout(term, 300*time.Millisecond)
		fs := s.PollRecords(pctx, t.Batch)
		pcancel()
		if fs.IsClientClosed() || term.Err() != nil {
			break
		}
		in := fs.Records()
		if len(in) == 0 {
			continue
		}
		ok, err := txnMemberOne(ctx, s, t, in)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return nil, err
		}
		if ok {
			committed++
			records += len(in)
		} else {
			aborted++
		}
	}
	return map[string]any{"committed": committed, "aborted": aborted, "records": records}, nil
}

// txnMemberOne: one transaction of txnMember over the polled records `in`;
// whether it committed.
func txnMemberOne(ctx context.Context, s *kgo.GroupTransactSession, t *txnRequest, in []*kgo.Record) (bool, error) {
	if err := s.Begin(); err != nil {
		return false, fmt.Errorf("begin: %w", err)
	}
	var perr atomic.Value
	for _, r := range in {
		out := &kgo.Record{Topic: t.OutTopic, Key: r.Key, Value: append([]byte("out:"), r.Value...)}
		s.Produce(ctx, out, func(_ *kgo.Record, err error) {
			if err != nil {
				perr.Store(err)
			}
		})
	}
	// "produced" once the records are in the broker's log (still
	// uncommitted), so that a member killed after it always leaves an
	// open transaction behind for the test to check.
	if err := s.Client().Flush(ctx); err != nil {
		return false, fmt.Errorf("flush: %w", err)
	}
	event(map[string]any{"ev": "produced", "n": len(in)})
	time.Sleep(time.Duration(t.DelayMs) * time.Millisecond)
	commit := kgo.TryCommit
	if perr.Load() != nil {
		commit = kgo.TryAbort
	}
	ok, err := s.End(ctx, commit)
	if err != nil {
		return false, fmt.Errorf("end transaction: %w (produce error: %v)", err, perr.Load())
	}
	if ok {
		event(map[string]any{"ev": "committed", "n": len(in)})
	} else {
		event(map[string]any{"ev": "aborted", "n": len(in), "produce_error": fmt.Sprint(perr.Load())})
	}
	return ok, nil
}

// txnBench: Records records of Size bytes. "txn": PerTxn per transaction,
// each ended by a timed EndTransaction(commit) (Flush before it is not
// counted in the latency). "idempotent": the same records, no transaction.
func txnBench(ctx context.Context, req *request) (any, error) {
	t, err := readTxnRequest()
	if err != nil {
		return nil, err
	}
	opts := baseOpts(req)
	if t.Mode == "txn" {
		opts = txnOpts(req, t)
	}
	opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()), kgo.MaxBufferedRecords(1<<20),
		kgo.AllowAutoTopicCreation())
	if os.Getenv("TXN_BENCH_DEBUG") != "" {
		opts = append(opts, kgo.WithLogger(kgo.BasicLogger(os.Stderr, kgo.LogLevelDebug, nil)))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	value := make([]byte, t.Size)
	for i := range value {
		value[i] = byte('a' + i%26)
	}
	var failed atomic.Value
	cb := func(_ *kgo.Record, err error) {
		if err != nil {
			failed.Store(err)
		}
	}
	per := t.PerTxn
	if t.Mode != "txn" {
		per = t.Records
	}
	var lat []float64
	start := time.Now()
	for done := 0; done < t.Records; done += per {
		n := min(per, t.Records-done)
		if t.Mode == "txn" {
			if err := cl.BeginTransaction(); err != nil {
				return nil, fmt.Errorf("begin: %w", err)
			}
		}
		for i := 0; i < n; i++ {
			cl.Produce(ctx, &kgo.Record{Topic: t.Topic, Value: value}, cb)
		}
		if err := cl.Flush(ctx); err != nil {
			return nil, fmt.Errorf("flush: %w", err)
		}
		if e := failed.Load(); e != nil {
			return nil, fmt.Errorf("produce: %v", e)
		}
		if t.Mode == "txn" {
			t0 := time.Now()
			if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
				return nil, fmt.Errorf("commit: %w", err)
			}
			lat = append(lat, float64(time.Since(t0).Microseconds())/1000)
		}
	}
	secs := time.Since(start).Seconds()
	res := map[string]any{"records": t.Records, "seconds": secs,
		"records_per_s": float64(t.Records) / secs,
		"mb_per_s":      float64(t.Records*t.Size) / secs / 1e6}
	if len(lat) > 0 {
		sort.Float64s(lat)
		pick := func(q float64) float64 { return lat[min(len(lat)-1, int(q*float64(len(lat))))] }
		res["transactions"] = len(lat)
		res["endtxn_p50_ms"], res["endtxn_p99_ms"], res["endtxn_max_ms"] = pick(0.5), pick(0.99), lat[len(lat)-1]
	}
	return res, nil
}
