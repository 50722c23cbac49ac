"""Consumer groups, Skiff against Apache Kafka side by side. Not a test.

  python3 -m bench.groups [--smoke|--rounds N|--brokers skiff]

Per round and broker (fresh, alternating as bench.vs_kafka does), with the
Java client (tests/bench/GroupRebalanceBench.java, launched from source on
Kafka's jars), for the consumer protocol (KIP-848, group.protocol=consumer)
and the classic one:
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
as Kafka's own quickstart config sets it). A failed test is reported and
the run goes on; the exit status is then 1.
"""
import statistics
import sys

from bench import brokers
from bench.brokers import ROOT, log
from bench.clients import last_json, run_client
from bench.results import Report, add_out_arg, environment, parser, table

BENCH = ROOT / "tests" / "bench" / "GroupRebalanceBench.java"
TESTS = [("first", "consumer"), ("first", "classic"), ("leave", "consumer"), ("leave", "classic")]


def java_bench(args, broker, mode, protocol):
    reps = 1 if args.smoke else (5 if mode == "first" else 3)
    cmd = ["java", "-Xmx512m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", f"{args.jars}/*",
           str(BENCH), broker.bootstrap, protocol, mode, str(reps), str(int(args.client_timeout * 1000))]
    return last_json(run_client(cmd, args.client_timeout + 60))


def run_broker(args, name, round_no):
    results = {}
    with brokers.running(brokers.new(args, name, args.work)) as broker:
        log(f"round {round_no}: {broker.name} on {broker.bootstrap}")
        for mode, protocol in TESTS:
            key = f"{mode}/{protocol}"
            try:
                results[key] = java_bench(args, broker, mode, protocol)
                log(f"  {broker.name} {key}: {results[key]['ms']} ms")
            except Exception as e:  # noqa: BLE001 - report and go on with the next test
                results[key] = {"error": str(e)[-300:]}
                log(f"  {broker.name} {key}: failed: {e}")
    return results


def summarize(report):
    def med(b, key):
        vals = [r[key]["median_ms"] for r in report.by_broker(b) if "median_ms" in r.get(key, {})]
        return statistics.median(vals) if vals else None

    labels = {"first": "first heartbeat to first record, ms", "leave": "10 members, one leaves: stable again, ms"}
    rows = []
    for mode, protocol in TESTS:
        key = f"{mode}/{protocol}"
        s, k = med("skiff", key), med("kafka", key)
        cells = [f"{v:.0f}" if v is not None else "failed" for v in (s, k)]
        ratio = f"{s / k:.2f}" if s is not None and k else "–"
        rows.append([f"{labels[mode]} ({protocol} protocol)", cells[0], cells[1], ratio])
    return table(["Java client, medians over rounds", "Skiff", "Kafka", "Skiff/Kafka"], rows)


def main():
    p = parser(__doc__)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--smoke", action="store_true", help="one round, one repetition each: checks the benchmark works")
    p.add_argument("--brokers", default="skiff,kafka", help="order within a round")
    p.add_argument("--client-timeout", type=float, default=240)
    p.add_argument("--jars", help="Kafka's jars (default: scripts/fetch_kafka_jars.sh's cache)")
    brokers.add_build_args(p)
    add_out_arg(p)
    args = p.parse_args()
    if args.smoke:
        args.rounds = 1
    brokers.stop_on_sigterm()
    brokers.need(args, "skiff")
    args.jars = args.jars or brokers.kafka_jars(args.kafka_version)
    report = Report("groups", args, environment(kafka=args.kafka_version, client=(
        f"kafka-clients {args.kafka_version} (tests/bench/GroupRebalanceBench.java), {args.rounds} round(s)")))
    with brokers.work_dir(args, "bench-groups-"):
        report.rounds(lambda name, r: run_broker(args, name, r))
    report.add(summarize(report))
    report.finish()
    return 1 if any("error" in v for r in report.runs for v in r["results"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
