"""Transactional produce, Skiff against Apache Kafka side by side. Not a test.

  python3 -m bench.txn [--smoke|--rounds N|--records N|--brokers kafka]

Per round and broker (fresh, alternating as bench.vs_kafka does), with the
franz-go driver of the compatibility suite (tests/integration/drivers/go,
op txn_bench; compiled, so the client is not the bottleneck; built by
scripts/install-test-clients.sh franz_go):
  - idempotent produce (acks=all, no transaction) of N records of 100 B;
  - transactional produce of the same N records, 1,000 per transaction,
    each transaction flushed and then committed with a timed EndTxn: once on
    the client's default path (franz-go takes KIP-890 transaction version 2
    where the broker finalizes it, as Kafka 4.4 does), once forced onto the
    version 1 path (explicit AddPartitionsToTxn; what librdkafka, kafkajs and
    sarama do);
  - concurrent transactions: PRODUCERS producers (8) at once, each its own
    transactional id, 10 records per transaction: what the coordinator's
    state writes cost when transactions overlap (their fsyncs are shared
    on Skiff, coordinator/runtime/flush_queue.h).
Reported: records/s of both, their ratio (the cost of transactions on that
broker, same run), the EndTxn (commit) latency p50/p99, the broker's CPU per
million records; for the concurrent test, transactions/s of all producers
and the median of their EndTxn p50/p99. Topics and the transaction coordinator are warmed up
(topic auto-created, one transaction committed) before the clock runs. A
broker that fails a test is reported with its error and the run goes on with
the other broker; the exit status is then 1.
"""
import json
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor

from bench import brokers
from bench.brokers import log, measure
from bench.clients import last_json, run_client
from bench.results import Report, add_out_arg, environment, fmt, parser, table

SIZE, PER_TXN = 100, 1000
IDEM = "produce 100B idempotent / franz-go"
TXN = f"produce 100B transactional {PER_TXN}/txn / franz-go"
TXN_TV1 = f"produce 100B transactional {PER_TXN}/txn, version 1 path / franz-go"
PRODUCERS, SMALL_TXN = 8, 10
CONCURRENT = f"{PRODUCERS} producers, {SMALL_TXN} records/txn / franz-go"


def driver(args, broker, mode, topic, records, tid, timeout=None, per_txn=PER_TXN):
    timeout = timeout or args.client_timeout
    req = {"op": "txn_bench", "bootstrap": broker.bootstrap, "timeout_ms": int(timeout * 1000),
           "mode": mode.removesuffix("-tv1"), "tv1": mode.endswith("-tv1"), "topic": topic,
           "count": records, "size": SIZE, "per_txn": per_txn, "txn_id": tid}
    path = args.work / f"req-{broker.name}-{tid}.json"
    path.write_text(json.dumps(req))
    res = last_json(run_client([args.driver, path], timeout + 30))
    if "error" in res:
        raise RuntimeError(res["error"])
    return res


def concurrent(args, broker, round_no):
    """PRODUCERS transactional producers at once, SMALL_TXN records per
    transaction, one topic per producer pair."""
    each = max(SMALL_TXN, args.records // 30 // PRODUCERS // SMALL_TXN * SMALL_TXN)

    def one(i, records, tag):
        return driver(args, broker, "txn", f"bench-concurrent-{i % 4}", records,
                      f"bench-concurrent-{i}-{tag}-{broker.name}-{round_no}", per_txn=SMALL_TXN)

    with ThreadPoolExecutor(PRODUCERS) as pool:
        list(pool.map(lambda i: one(i, SMALL_TXN, "warm"), range(PRODUCERS)))  # topics, coordinator

        def run():
            outs = list(pool.map(lambda i: one(i, each, "run"), range(PRODUCERS)))
            # The producers' own clocks (process start and InitProducerId left out).
            return {"transactions": sum(o["transactions"] for o in outs),
                    "txn_per_s": round(sum(o["transactions"] for o in outs) / max(o["seconds"] for o in outs), 1),
                    "endtxn_p50_ms": statistics.median(o["endtxn_p50_ms"] for o in outs),
                    "endtxn_p99_ms": statistics.median(o["endtxn_p99_ms"] for o in outs)}

        return measure(broker, run, each * PRODUCERS)


def run_broker(args, name, round_no):
    results = {}
    with brokers.running(brokers.new(args, name, args.work)) as broker:
        log(f"round {round_no}: {broker.name} on {broker.bootstrap}")
        n = args.records
        for mode, test in (("idempotent", IDEM), ("txn", TXN), ("txn-tv1", TXN_TV1)):
            topic, tid = f"bench-{mode}", f"bench-{mode}-{broker.name}-{round_no}"
            try:
                driver(args, broker, mode, topic, PER_TXN, tid, timeout=30)  # warm-up: topic, coordinator
                results[test] = measure(broker, lambda: driver(args, broker, mode, topic, n, tid), n)
            except Exception as e:  # noqa: BLE001 - recorded, the other broker still runs
                results[test] = {"error": str(e).splitlines()[0][:300]}
            log(f"  {test}: {results[test]}")
        try:
            results[CONCURRENT] = concurrent(args, broker, round_no)
        except Exception as e:  # noqa: BLE001 - recorded, the other broker still runs
            results[CONCURRENT] = {"error": str(e).splitlines()[0][:300]}
        log(f"  {CONCURRENT}: {results[CONCURRENT]}")
    return results


def summarize(report):

    def med(b, key, metric):
        vals = [r[key][metric] for r in report.by_broker(b) if metric in r.get(key, {})]
        return statistics.median(vals) if vals else None

    def err(b, key):
        es = [r[key]["error"] for r in report.by_broker(b) if "error" in r.get(key, {})]
        return es[0] if es else None

    def cell(v, b, key):
        return fmt(v) if v is not None else (f"failed: {err(b, key)}" if err(b, key) else "–")

    def ratio(a, b):
        return f"{a / b:.2f}" if a is not None and b else "–"

    rows = []
    lines = [("idempotent produce, records/s", IDEM, "records_per_s"),
             ("broker CPU-s per M records, idempotent", IDEM, "broker_cpu_s_per_M")]
    for tag, key in (("client's default path", TXN), ("version 1 path", TXN_TV1)):
        lines += [(f"transactional ({PER_TXN}/txn, {tag}), records/s", key, "records_per_s"),
                  (f"EndTxn (commit) p50, ms ({tag})", key, "endtxn_p50_ms"),
                  (f"EndTxn (commit) p99, ms ({tag})", key, "endtxn_p99_ms"),
                  (f"broker CPU-s per M records ({tag})", key, "broker_cpu_s_per_M")]
    lines += [(f"concurrent transactions ({CONCURRENT}), transactions/s", CONCURRENT, "txn_per_s"),
              ("EndTxn (commit) p50, ms (concurrent, median of producers)", CONCURRENT, "endtxn_p50_ms"),
              ("EndTxn (commit) p99, ms (concurrent, median of producers)", CONCURRENT, "endtxn_p99_ms")]
    for label, key, metric in lines:
        s, k = med("skiff", key, metric), med("kafka", key, metric)
        rows.append([label, cell(s, "skiff", key), cell(k, "kafka", key), ratio(s, k)])
    for tag, key in (("client's default path", TXN), ("version 1 path", TXN_TV1)):
        tr = [ratio(med(b, key, "records_per_s"), med(b, IDEM, "records_per_s")) for b in ("skiff", "kafka")]
        rows.append([f"**transactional / idempotent throughput ({tag}, same run)**", tr[0], tr[1], ""])
    return table(["100 B records, medians over rounds", "Skiff", "Kafka", "Skiff/Kafka"], rows)


def main():
    p = parser(__doc__)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--smoke", action="store_true", help="one round, 20,000 records: checks the benchmark works")
    p.add_argument("--records", type=int, default=300_000)
    p.add_argument("--brokers", default="skiff,kafka", help="order within a round")
    p.add_argument("--client-timeout", type=float, default=300)
    p.add_argument("--driver", help="the franz-go driver (default: scripts/install-test-clients.sh franz_go)")
    brokers.add_build_args(p)
    add_out_arg(p)
    args = p.parse_args()
    if args.smoke:
        args.rounds, args.records, args.client_timeout = 1, 20_000, 60
    brokers.stop_on_sigterm()
    brokers.need(args, "skiff")
    if "kafka" in args.brokers.split(","):
        brokers.kafka_jars(args.kafka_version)
    args.driver = args.driver or brokers.franz_go_driver()
    report = Report("txn", args, environment(kafka=args.kafka_version, client=(
        "franz-go (tests/integration/drivers/go txn_bench), acks=all"),
        records=f"{args.records} x {SIZE} B per test, {args.rounds} round(s)"))
    with brokers.work_dir(args, "bench-txn-"):
        report.rounds(lambda name, r: run_broker(args, name, r))
    report.add(summarize(report))
    report.finish()
    failed = [(r["broker"], k) for r in report.runs for k, v in r["results"].items() if "error" in v]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
