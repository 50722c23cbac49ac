#!/usr/bin/env python3
"""Consumer groups, Skiff against Apache Kafka side by side: run by
`scripts/bench-vs-kafka.sh --groups` (which builds skiff and fetches Kafka's
jars first); not a test.

Per round and broker (fresh, alternating as bench_vs_kafka.py does), with the
Java client (tests/bench/GroupRebalanceBench.java, launched from source), for
the consumer protocol (KIP-848, group.protocol=consumer) and the classic one:
  - first record: from subscribe() to the first record of a topic that holds
    records (the first heartbeat, or JoinGroup/SyncGroup, then OffsetFetch,
    ListOffsets and Fetch); median of 5 fresh groups;
  - one leaves: ten members share twenty partitions; one closes; the time
    until the other nine own all twenty again (from their callbacks); median
    of 3 fresh groups.
Both brokers run with their defaults: the consumer protocol's heartbeat
interval is the broker's group.consumer.heartbeat.interval.ms (5 s), the
classic one the client's heartbeat.interval.ms (3 s); Kafka's
group.initial.rebalance.delay.ms is 3 s, Skiff's 0 (a dev broker's choice,
as Kafka's own quickstart config sets it).
"""
import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_vs_kafka import ROOT, Kafka, Skiff, log, run_client, run_rounds  # noqa: E402
from bench_vs_kafka_txn import listening_broker  # noqa: E402

BENCH = ROOT / "tests" / "bench" / "GroupRebalanceBench.java"
TESTS = [("first", "consumer"), ("first", "classic"), ("leave", "consumer"), ("leave", "classic")]


def java_bench(args, broker, mode, protocol):
    reps = 1 if args.smoke else (5 if mode == "first" else 3)
    cmd = ["java", "-Xmx512m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", f"{args.jars}/*",
           str(BENCH), broker.bootstrap, protocol, mode, str(reps), str(int(args.client_timeout * 1000))]
    return json.loads(run_client(cmd, args.client_timeout + 60).strip().splitlines()[-1])


def run_broker(args, cls, round_no):
    results = {}
    with listening_broker(args, cls, round_no) as broker:
        for mode, protocol in TESTS:
            key = f"{mode}/{protocol}"
            try:
                results[key] = java_bench(args, broker, mode, protocol)
                log(f"  {broker.name} {key}: {results[key]['ms']} ms")
            except Exception as e:  # noqa: BLE001 - report and go on with the next test
                results[key] = {"error": str(e)[-300:]}
                log(f"  {broker.name} {key}: failed: {e}")
    return results


def summarize(runs):
    def med(b, key):
        vals = [r[key]["median_ms"] for name, r in runs if name == b and "median_ms" in r.get(key, {})]
        return statistics.median(vals) if vals else None

    labels = {"first": "first heartbeat to first record, ms", "leave": "10 members, one leaves: stable again, ms"}
    rows = []
    for mode, protocol in TESTS:
        key = f"{mode}/{protocol}"
        s, k = med("skiff", key), med("kafka", key)
        cells = [f"{v:.0f}" if v is not None else "failed" for v in (s, k)]
        ratio = f"{s / k:.2f}" if s is not None and k else "–"
        rows.append(f"| {labels[mode]} ({protocol} protocol) | {cells[0]} | {cells[1]} | {ratio} |")
    return "\n".join(["| Java client, medians over rounds | Skiff | Kafka | Skiff/Kafka |", "|---|---|---|---|", *rows])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--smoke", action="store_true", help="one round, one repetition each: checks the script works")
    p.add_argument("--brokers", default="skiff,kafka", help="order within a round")
    p.add_argument("--client-timeout", type=float, default=240)
    p.add_argument("--out", type=Path, default=ROOT / "build-bench" / "results")
    p.add_argument("--skiff", type=Path, required=True)
    p.add_argument("--jars", type=Path, required=True)
    p.add_argument("--kafka-version", default="4.4.0")
    args = p.parse_args()
    if args.smoke:
        args.rounds = 1
    args.out.mkdir(parents=True, exist_ok=True)
    args.work = Path(tempfile.mkdtemp(prefix="bench-groups-"))
    runs = run_rounds(args, {"skiff": Skiff, "kafka": Kafka}, run_broker)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    report = (f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n- kafka: {args.kafka_version}\n"
              f"- client: kafka-clients {args.kafka_version} (tests/bench/GroupRebalanceBench.java), "
              f"{args.rounds} round(s)\n\n{summarize(runs)}\n")
    (args.out / f"groups-{stamp}.json").write_text(json.dumps({"runs": runs}, indent=1))
    (args.out / f"groups-{stamp}.md").write_text(report)
    print(report)
    log(f"results: {args.out}/groups-{stamp}.json and .md")
    return 1 if any("error" in v for _, r in runs for v in r.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
