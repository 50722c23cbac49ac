// franz-go driver for Skiff's compatibility suite. Reads one JSON request
// (see tests/integration/drivers/README.md) from the file named by its
// argument and prints one JSON response on stdout. Every operation is bounded
// by the request's timeout_ms.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

type header struct {
	Key   string
	Value []byte // nil: null
}

func (h header) MarshalJSON() ([]byte, error) { return json.Marshal([]any{h.Key, h.Value}) }
func (h *header) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || len(raw) != 2 {
		return fmt.Errorf("header must be [name, base64|null]")
	}
	if err := json.Unmarshal(raw[0], &h.Key); err != nil {
		return err
	}
	return json.Unmarshal(raw[1], &h.Value) // null -> nil, base64 -> bytes
}

type record struct {
	P  *int32   `json:"p"`
	O  int64    `json:"o"`
	K  []byte   `json:"k"`
	V  []byte   `json:"v"`
	H  []header `json:"h"`
	TS *int64   `json:"ts"`
}

type request struct {
	Op             string           `json:"op"`
	Defaults       bool             `json:"defaults"`
	Bootstrap      string           `json:"bootstrap"`
	TimeoutMs      int              `json:"timeout_ms"`
	Topic          string           `json:"topic"`
	Topics         []string         `json:"topics"`
	Compression    string           `json:"compression"`
	Acks           int              `json:"acks"`
	MaxRequestSize int32            `json:"max_request_size"`
	Records        []record         `json:"records"`
	Start          map[string]int64 `json:"start"`
	Counts         map[string]int   `json:"counts"`
	Partitions     []int32          `json:"partitions"`
	Spec           string           `json:"spec"`
	Timestamp      int64            `json:"timestamp"`
	Partition      int32            `json:"partition"`
	Offset         int64            `json:"offset"`
	Reset          string           `json:"reset"`
	Expect         int              `json:"expect"`
	SettleMs       int              `json:"settle_ms"`
	Group          string           `json:"group"`
	Protocol       string           `json:"protocol"` // group_consume: "consumer" for KIP-848
	Security       *security        `json:"security"` // null: PLAINTEXT

	secOpts []kgo.Opt // from Security, for every client (baseOpts)
}

type manualKey struct{}

// Records with an explicit partition go there (out-of-range ones fail in the
// client); the others use franz-go's default sticky key partitioner.
type mixedPartitioner struct{ def kgo.Partitioner }
type mixedTopicPartitioner struct{ def kgo.TopicPartitioner }

func (m mixedPartitioner) ForTopic(t string) kgo.TopicPartitioner {
	return mixedTopicPartitioner{m.def.ForTopic(t)}
}
func (m mixedTopicPartitioner) RequiresConsistency(*kgo.Record) bool { return true }
func (m mixedTopicPartitioner) Partition(r *kgo.Record, n int) int {
	if r.Context != nil && r.Context.Value(manualKey{}) != nil {
		return int(r.Partition)
	}
	return m.def.Partition(r, n)
}

func codec(name string) (kgo.CompressionCodec, error) {
	switch name {
	case "", "none":
		return kgo.NoCompression(), nil
	case "gzip":
		return kgo.GzipCompression(), nil
	case "snappy":
		return kgo.SnappyCompression(), nil
	case "lz4":
		return kgo.Lz4Compression(), nil
	case "zstd":
		return kgo.ZstdCompression(), nil
	}
	return kgo.NoCompression(), fmt.Errorf("unknown codec %q", name)
}

// SKIFF_DRIVER_DEBUG=1 in the environment logs franz-go's own debug lines to
// stderr (the suite shows the driver's stderr when a call fails).
func baseOpts(req *request) []kgo.Opt {
	opts := []kgo.Opt{
		kgo.SeedBrokers(req.Bootstrap),
		kgo.DialTimeout(5 * time.Second),
		kgo.RetryTimeout(time.Duration(req.TimeoutMs) * time.Millisecond),
		kgo.MetadataMinAge(100 * time.Millisecond),
	}
	opts = append(opts, req.secOpts...)
	if os.Getenv("SKIFF_DRIVER_DEBUG") != "" {
		opts = append(opts, kgo.WithLogger(kgo.BasicLogger(os.Stderr, kgo.LogLevelDebug, nil)))
	}
	return opts
}

func toRecord(r *kgo.Record) record {
	p := r.Partition
	ts := r.Timestamp.UnixMilli()
	out := record{P: &p, O: r.Offset, K: r.Key, V: r.Value, TS: &ts, H: []header{}}
	for _, h := range r.Headers {
		out.H = append(out.H, header{h.Key, h.Value})
	}
	return out
}

func produce(ctx context.Context, req *request, cl *kgo.Client, topic string, recs []record) []map[string]any {
	results := make([]map[string]any, len(recs))
	done := make(chan struct{}, len(recs))
	for i := range recs {
		in := recs[i]
		r := &kgo.Record{Topic: topic, Key: in.K, Value: in.V, Context: context.Background()}
		if in.P != nil {
			r.Partition = *in.P
			r.Context = context.WithValue(r.Context, manualKey{}, true)
		}
		if in.TS != nil {
			r.Timestamp = time.UnixMilli(*in.TS)
		}
		for _, h := range in.H {
			r.Headers = append(r.Headers, kgo.RecordHeader{Key: h.Key, Value: h.Value})
		}
		i := i
		cl.Produce(ctx, r, func(r *kgo.Record, err error) {
			if err != nil {
				results[i] = map[string]any{"error": err.Error()}
				if authFailed(err) {
					results[i]["auth"] = true
				}
			} else {
				results[i] = map[string]any{"p": r.Partition, "o": r.Offset}
			}
			done <- struct{}{}
		})
	}
	for range recs {
		<-done
	}
	return results
}

func run(req *request) (any, error) {
	timeout := time.Duration(req.TimeoutMs) * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	switch req.Op {
	case "metadata":
		cl, err := kgo.NewClient(baseOpts(req)...)
		if err != nil {
			return nil, err
		}
		defer cl.Close()
		mr := kmsg.NewPtrMetadataRequest()
		for _, t := range req.Topics {
			t := t
			mt := kmsg.NewMetadataRequestTopic()
			mt.Topic = &t
			mr.Topics = append(mr.Topics, mt)
		}
		if req.Topics == nil {
			mr.Topics = nil // all topics
		}
		resp, err := mr.RequestWith(ctx, cl)
		if err != nil {
			return nil, err
		}
		brokers := []map[string]any{}
		for _, b := range resp.Brokers {
			brokers = append(brokers, map[string]any{"id": b.NodeID, "host": b.Host, "port": b.Port})
		}
		topics := map[string]any{}
		for _, t := range resp.Topics {
			var e any
			if err := kerrOf(t.ErrorCode); err != nil {
				e = err.Error()
			}
			topics[*t.Topic] = map[string]any{"partitions": len(t.Partitions), "error": e}
		}
		return map[string]any{"brokers": brokers, "topics": topics}, nil

	case "produce":
		c, err := codec(req.Compression)
		if err != nil {
			return nil, err
		}
		acks := kgo.AllISRAcks()
		opts := baseOpts(req)
		if req.Acks == 1 {
			acks = kgo.LeaderAck()
		}
		if !req.Defaults {
			// The scenarios test the data path; idempotence (InitProducerId)
			// is the default-settings scenario's. One request in flight: a
			// retried batch must not overtake the next.
			opts = append(opts, kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(1))
		}
		maxBytes := req.MaxRequestSize
		if maxBytes == 0 {
			maxBytes = 1000012
		}
		opts = append(opts,
			kgo.RequiredAcks(acks),
			kgo.ProducerBatchCompression(c),
			kgo.ProducerBatchMaxBytes(maxBytes),
			// No RecordDeliveryTimeout: franz-go measures it from the record's
			// own timestamp, which the tests set in the past. ctx bounds it.
			kgo.RecordRetries(20),
			kgo.AllowAutoTopicCreation(),
			kgo.RecordPartitioner(mixedPartitioner{kgo.StickyKeyPartitioner(nil)}),
		)
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			return nil, err
		}
		defer cl.Close()
		return map[string]any{"results": produce(ctx, req, cl, req.Topic, req.Records)}, nil

	case "consume":
		offsets := map[int32]kgo.Offset{}
		want := map[int32]int{}
		total := 0
		for ps, o := range req.Start {
			p, _ := strconv.Atoi(ps)
			offsets[int32(p)] = kgo.NewOffset().At(o)
			want[int32(p)] = req.Counts[ps]
			total += req.Counts[ps]
		}
		opts := append(baseOpts(req),
			kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{req.Topic: offsets}),
			kgo.FetchMaxWait(500*time.Millisecond))
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			return nil, err
		}
		defer cl.Close()
		out := []record{}
		got := map[int32]int{}
		n := 0
		for n < total && ctx.Err() == nil {
			fs := cl.PollFetches(ctx)
			var ferr error
			fs.EachError(func(t string, p int32, err error) {
				if !errors.Is(err, context.DeadlineExceeded) {
					ferr = fmt.Errorf("fetch %s[%d]: %w", t, p, err)
				}
			})
			if ferr != nil {
				return nil, ferr
			}
			fs.EachRecord(func(r *kgo.Record) {
				if got[r.Partition] < want[r.Partition] {
					got[r.Partition]++
					n++
					out = append(out, toRecord(r))
				}
			})
		}
		return map[string]any{"records": out, "complete": n >= total}, nil

	case "consume_reset":
		reset := kgo.NewOffset().AtStart()
		if req.Reset == "latest" {
			reset = kgo.NewOffset().AtEnd()
		}
		opts := append(baseOpts(req),
			kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{req.Topic: {req.Partition: kgo.NewOffset().At(req.Offset)}}),
			kgo.ConsumeResetOffset(reset),
			kgo.FetchMaxWait(200*time.Millisecond))
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			return nil, err
		}
		defer cl.Close()
		out := []record{}
		settle := time.Now().Add(time.Duration(req.SettleMs) * time.Millisecond)
		produced := req.Reset != "latest"
		for ctx.Err() == nil && len(out) < req.Expect {
			pctx, pcancel := context.WithTimeout(ctx, 300*time.Millisecond)
			fs := cl.PollFetches(pctx)
			pcancel()
			fs.EachRecord(func(r *kgo.Record) { out = append(out, toRecord(r)) })
			if !produced && time.Now().After(settle) {
				// The consumer has reset to the end: a new record must arrive.
				p := req.Partition
				res := producePlain(ctx, req, []record{{P: &p, V: []byte("marker")}})
				if res[0]["error"] != nil {
					return nil, fmt.Errorf("marker: %v", res[0]["error"])
				}
				produced = true
			}
		}
		return map[string]any{"records": out}, nil

	case "list_offsets":
		cl, err := kgo.NewClient(baseOpts(req)...)
		if err != nil {
			return nil, err
		}
		defer cl.Close()
		lr := kmsg.NewPtrListOffsetsRequest()
		lr.ReplicaID = -1
		lt := kmsg.NewListOffsetsRequestTopic()
		lt.Topic = req.Topic
		ts := req.Timestamp
		switch req.Spec {
		case "earliest":
			ts = -2
		case "latest":
			ts = -1
		}
		for _, p := range req.Partitions {
			lp := kmsg.NewListOffsetsRequestTopicPartition()
			lp.Partition = p
			lp.Timestamp = ts
			lp.CurrentLeaderEpoch = -1
			lt.Partitions = append(lt.Partitions, lp)
		}
		lr.Topics = append(lr.Topics, lt)
		resp, err := lr.RequestWith(ctx, cl)
		if err != nil {
			return nil, err
		}
		offsets := map[string]int64{}
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				if err := kerrOf(p.ErrorCode); err != nil {
					return nil, fmt.Errorf("partition %d: %w", p.Partition, err)
				}
				offsets[strconv.Itoa(int(p.Partition))] = p.Offset
			}
		}
		return map[string]any{"offsets": offsets}, nil

	case "group_consume":
		// ConsumeTopics as a member of req.Group, poll until req.Expect records
		// (then settle_ms more, to catch extras), commit, leave.
		opts := append(baseOpts(req),
			kgo.ConsumerGroup(req.Group),
			kgo.ConsumeTopics(req.Topic),
			kgo.DisableAutoCommit(),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.SessionTimeout(10*time.Second),
			kgo.HeartbeatInterval(time.Second),
			kgo.FetchMaxWait(200*time.Millisecond))
		if req.Protocol == "consumer" {
			// KIP-848: the broker assigns; franz-go sends ServerAssignor "uniform"
			// for its sticky balancer.
			opts = append(opts, kgo.ServerSideBalancer(), kgo.Balancers(kgo.CooperativeStickyBalancer()))
		}
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			return nil, err
		}
		defer cl.Close()
		out := []record{}
		settle := time.Duration(req.SettleMs) * time.Millisecond
		var extra time.Time
		for ctx.Err() == nil && (extra.IsZero() || time.Now().Before(extra)) {
			pctx, pcancel := context.WithTimeout(ctx, 200*time.Millisecond)
			fs := cl.PollFetches(pctx)
			pcancel()
			var ferr error
			fs.EachError(func(t string, p int32, err error) {
				if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
					ferr = fmt.Errorf("fetch %s[%d]: %w", t, p, err)
				}
			})
			if ferr != nil {
				return nil, ferr
			}
			fs.EachRecord(func(r *kgo.Record) { out = append(out, toRecord(r)) })
			if len(out) >= req.Expect && extra.IsZero() {
				extra = time.Now().Add(settle)
			}
		}
		if len(out) > 0 {
			cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := cl.CommitUncommittedOffsets(cctx)
			ccancel()
			if err != nil {
				return nil, fmt.Errorf("commit: %w", err)
			}
		}
		lctx, lcancel := context.WithTimeout(context.Background(), 5*time.Second)
		cl.LeaveGroupContext(lctx)
		lcancel()
		return map[string]any{"records": out, "complete": len(out) >= req.Expect}, nil

	case "admin_ops":
		return adminOps(ctx, req)
	}
	if op, ok := extraOps[req.Op]; ok { // txn.go
		return op(ctx, req)
	}
	return nil, fmt.Errorf("unknown op %q", req.Op)
}

func producePlain(ctx context.Context, req *request, recs []record) []map[string]any {
	cl, err := kgo.NewClient(append(baseOpts(req),
		kgo.RecordPartitioner(mixedPartitioner{kgo.StickyKeyPartitioner(nil)}),
		kgo.RecordDeliveryTimeout(10*time.Second))...)
	if err != nil {
		return []map[string]any{{"error": err.Error()}}
	}
	defer cl.Close()
	return produce(ctx, req, cl, req.Topic, recs)
}

func kerrOf(code int16) error {
	if code == 0 {
		return nil
	}
	return fmt.Errorf("kafka error code %d", code)
}

func main() {
	if len(os.Args) >= 2 && os.Args[1] == "share" { // share.go: key=value arguments, JSON lines
		os.Exit(shareMain(os.Args[2:]))
	}
	if len(os.Args) >= 2 && os.Args[1] == "sr" { // sr.go: the Schema Registry with pkg/sr
		os.Exit(srMain(os.Args[2:]))
	}
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: franz-go-driver REQUEST.json")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var req request
	if err := json.Unmarshal(data, &req); err != nil {
		fmt.Fprintln(os.Stderr, "bad request:", err)
		os.Exit(2)
	}
	if req.TimeoutMs == 0 {
		req.TimeoutMs = 30000
	}
	var res any
	if req.secOpts, err = securityOpts(req.Security); err == nil {
		if err = refusedLogin(&req); err == nil {
			res, err = run(&req)
		}
	}
	if err != nil {
		e := map[string]any{"error": err.Error()}
		if authFailed(err) {
			e["auth"] = true
		}
		res = e
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(res); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
