#!/usr/bin/env python3
"""Transactional produce, Skiff against Apache Kafka side by side: run by
`scripts/bench-vs-kafka.sh --txn` (which builds skiff and the franz-go driver
first); not a test.

Per round and broker (fresh, alternating as bench_vs_kafka.py does), with the
franz-go driver of the compatibility suite (tests/integration/drivers/go,
op txn_bench; compiled, so the client is not the bottleneck):
  - idempotent produce (acks=all, no transaction) of N records of 100 B;
  - transactional produce of the same N records, 1,000 per transaction,
    each transaction flushed and then committed with a timed EndTxn: once on
    the client's default path (franz-go takes KIP-890 transaction version 2
    where the broker finalizes it, as Kafka 4.4 does), once forced onto the
    version 1 path (explicit AddPartitionsToTxn; what librdkafka, kafkajs and
    sarama do).
Reported: records/s of both, their ratio (the cost of transactions on that
broker, same run), the EndTxn (commit) latency p50/p99, the broker's CPU per
million records. Topics and the transaction coordinator are warmed up
(topic auto-created, one transaction committed) before the clock runs. A
broker that fails a test (skiff before transactions) is reported with its
error and the run goes on with the other broker.
"""
import argparse
import contextlib
import json
import shutil
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_vs_kafka import (ROOT, Kafka, Skiff, fmt, log, log_broker_output, measure, run_client,  # noqa: E402
                             run_rounds)

SIZE, PER_TXN = 100, 1000
IDEM = "produce 100B idempotent / franz-go"
TXN = f"produce 100B transactional {PER_TXN}/txn / franz-go"
TXN_TV1 = f"produce 100B transactional {PER_TXN}/txn, version 1 path / franz-go"


def driver(args, broker, mode, topic, records, tid, timeout=None):
    timeout = timeout or args.client_timeout
    req = {"op": "txn_bench", "bootstrap": broker.bootstrap, "timeout_ms": int(timeout * 1000),
           "mode": mode.removesuffix("-tv1"), "tv1": mode.endswith("-tv1"), "topic": topic,
           "count": records, "size": SIZE, "per_txn": PER_TXN, "txn_id": tid}
    path = args.work / f"req-{broker.name}-{mode}-{topic}.json"
    path.write_text(json.dumps(req))
    res = json.loads(run_client([str(args.driver), str(path)], timeout + 30).strip().splitlines()[-1])
    if "error" in res:
        raise RuntimeError(res["error"])
    return res


def wait_listening(broker, timeout=180):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not broker.alive():
            raise RuntimeError(f"{broker.name} exited during startup")
        try:
            socket.create_connection(("127.0.0.1", broker.port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{broker.name} not listening within {timeout}s")


@contextlib.contextmanager
def listening_broker(args, cls, round_no):
    """A fresh broker of `cls`, started and listening; on the way out its last
    output lines are logged if the body failed, and it is stopped and removed."""
    broker = cls(args, args.work)
    log(f"round {round_no}: {broker.name} on {broker.bootstrap}")
    broker.prepare()
    try:
        broker.start()
        wait_listening(broker)
        yield broker
    except Exception:
        log_broker_output(broker)
        raise
    finally:
        broker.stop()
        shutil.rmtree(broker.dir, ignore_errors=True)


def run_broker(args, cls, round_no):
    results = {}
    with listening_broker(args, cls, round_no) as broker:
        n = args.records
        tests = [("idempotent", IDEM), ("txn", TXN), ("txn-tv1", TXN_TV1)]
        for mode, name in tests:
            topic, tid = f"bench-{mode}", f"bench-{mode}-{broker.name}-{round_no}"
            try:
                driver(args, broker, mode, topic, PER_TXN, tid, timeout=30)  # warm-up: topic, coordinator
                results[name] = measure(broker, lambda: driver(args, broker, mode, topic, n, tid), n)
            except Exception as e:  # noqa: BLE001 - recorded, the other broker still runs
                results[name] = {"error": str(e).splitlines()[0][:300]}
            log(f"  {name}: {results[name]}")
    return results


def summarize(runs):

    def med(b, key, metric):
        vals = [r[key][metric] for name, r in runs if name == b and metric in r.get(key, {})]
        return statistics.median(vals) if vals else None

    def err(b, key):
        es = [r[key]["error"] for name, r in runs if name == b and "error" in r.get(key, {})]
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
    for label, key, metric in lines:
        s, k = med("skiff", key, metric), med("kafka", key, metric)
        rows.append(f"| {label} | {cell(s, 'skiff', key)} | {cell(k, 'kafka', key)} | {ratio(s, k)} |")
    for tag, key in (("client's default path", TXN), ("version 1 path", TXN_TV1)):
        tr = [ratio(med(b, key, "records_per_s"), med(b, IDEM, "records_per_s")) for b in ("skiff", "kafka")]
        rows.append(f"| **transactional / idempotent throughput ({tag}, same run)** | {tr[0]} | {tr[1]} | |")
    return "\n".join(["| 100 B records, medians over rounds | Skiff | Kafka | Skiff/Kafka |",
                      "|---|---|---|---|", *rows])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--smoke", action="store_true", help="one round, 20,000 records: checks the script works")
    p.add_argument("--records", type=int, default=300_000)
    p.add_argument("--brokers", default="skiff,kafka", help="order within a round")
    p.add_argument("--client-timeout", type=float, default=300)
    p.add_argument("--out", type=Path, default=ROOT / "build-bench" / "results")
    p.add_argument("--skiff", type=Path, required=True)
    p.add_argument("--driver", type=Path, required=True, help="the franz-go driver (install-test-clients.sh franz_go)")
    p.add_argument("--kafka-version", default="4.4.0")
    args = p.parse_args()
    if args.smoke:
        args.rounds, args.records, args.client_timeout = 1, 20_000, 60
    args.out.mkdir(parents=True, exist_ok=True)
    args.work = Path(tempfile.mkdtemp(prefix="bench-txn-"))
    runs = run_rounds(args, {"skiff": Skiff, "kafka": Kafka}, run_broker)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    table = summarize(runs)
    head = (f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n- kafka: {args.kafka_version}\n"
            f"- client: franz-go (tests/integration/drivers/go txn_bench), acks=all\n"
            f"- records: {args.records} x {SIZE} B per test, {args.rounds} round(s)\n")
    (args.out / f"txn-{stamp}.json").write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()},
                                                             "runs": runs}, indent=1))
    report = head + "\n" + table + "\n"
    (args.out / f"txn-{stamp}.md").write_text(report)
    print(report)
    log(f"results: {args.out}/txn-{stamp}.json and .md")
    failed = [(b, k) for b, r in runs for k, v in r.items() if "error" in v]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
