"""Share groups (KIP-932), Skiff against Apache Kafka side by side. Not a test.

  python3 -m bench.share [--smoke|--records N|--rounds N|--brokers skiff]

Per round and broker (fresh, alternating as bench.vs_kafka does), both with
the share-group settings of tests/integration/harness/share.py (1 s
heartbeats, shorter session floors; Kafka's share coordinator topic has
replication factor 1, as scripts/kafka-broker.sh sets it), two topics of
--records records of --size bytes each, one of 1 partition and one of 8,
filled before anything is timed; every measurement reads a whole topic
with a fresh share group (share.auto.offset.reset=earliest):
  - perf tool: Kafka's own kafka-share-consumer-perf-test
    (org.apache.kafka.tools.ShareConsumerPerformance, implicit
    acknowledgement, the acknowledgements ride on the next ShareFetch):
    records/s as it reports it (its clock includes joining the group), with
    1 consumer on 1 partition and 4 on 8 partitions;
  - driver: tests/bench/ShareBench.java (launched from source on Kafka's
    jars) with 1, 4 and 16 KafkaShareConsumers (a thread each) on 1 and on 8
    partitions, explicit acknowledgement: each poll's records ACCEPTed, then
    commitSync (ShareAcknowledge); records/s from the first record to the
    last acknowledgement, and the acknowledgement round trip (poll() return
    to commitSync() return) p50/p99 over all polls.
Each measurement also gives the broker's CPU seconds per million records
(its /proc counters over the client's run, JVM start and group join
included). A failed measurement is reported and the run goes on; the exit
status is then 1. Every client run has a timeout (--client-timeout); both
brokers are always stopped.
"""
import contextlib
import signal
import statistics
import subprocess
import sys
from pathlib import Path

from bench import brokers
from bench.brokers import ROOT, log, measure
from bench.clients import java, last_json, run_client
from bench.results import Report, add_out_arg, environment, fmt, parser, ratio, table

BENCH = ROOT / "tests" / "bench" / "ShareBench.java"
PERF = "org.apache.kafka.tools.ShareConsumerPerformance"
# tests/integration/harness/share.py's SHARE_OVERRIDES, less its topic
# defaults (the topics here are created with their partition counts).
SHARE_PROPS = {
    "group.share.min.record.lock.duration.ms": "1000",
    "group.share.min.session.timeout.ms": "6000",
    "group.share.session.timeout.ms": "10000",
    "group.share.min.heartbeat.interval.ms": "1000",
    "group.share.heartbeat.interval.ms": "1000",
}
PARTITIONS = (1, 8)
PERF_TESTS = [(1, 1), (4, 8)]  # (consumers, partitions)
DRIVER_TESTS = [(c, p) for p in PARTITIONS for c in (1, 4, 16)]


def topic(p):
    return f"share-bench-p{p}"


def group(kind, consumers, partitions, round_no):
    return f"sb-{kind}-c{consumers}-p{partitions}-r{round_no}"


def all_groups(round_no):
    return ([group("perf", c, p, round_no) for c, p in PERF_TESTS]
            + [group("drv", c, p, round_no) for c, p in DRIVER_TESTS])


def share_bench(args, *argv):
    cmd = ["java", "-Xmx512m", "-XX:+UseG1GC", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp",
           f"{args.jars}/*", str(BENCH), *map(str, argv), str(int(args.client_timeout * 1000))]
    return last_json(run_client(cmd, args.client_timeout + 60))


def perf_tool(args, broker, consumers, partitions, grp):
    out = run_client(java(args.jars, PERF, "--bootstrap-server", broker.bootstrap, "--topic", topic(partitions),
                          "--group", grp, "--num-records", str(args.records), "--threads", str(consumers),
                          "--timeout", "30000", "--hide-header"), args.client_timeout)
    if "WARNING: Exiting before" in out:
        raise RuntimeError(f"perf tool stopped early: {out[-500:]}")
    # start.time, end.time, data.consumed.in.MB, MB.sec, nMsg.sec, data.consumed.in.nMsg, fetch.time.ms
    cols = [c.strip() for c in out.strip().splitlines()[-1].split(",")]
    if int(cols[5]) < args.records:
        raise RuntimeError(f"perf tool read {cols[5]} of {args.records}")
    return {"records_per_s": float(cols[4]), "mb_per_s": float(cols[3]), "records": int(cols[5])}


def attempt(results, key, broker, fn):
    try:
        results[key] = measure(broker, fn, None)
        results[key]["broker_cpu_s_per_M"] = round(results[key]["broker_cpu_s"] / results[key]["records"] * 1e6, 3)
        log(f"  {broker.name} {key}: {results[key]['records_per_s']:,.0f} records/s, "
            f"{results[key]['broker_cpu_s_per_M']} broker CPU s/M"
            + (f", ack p50 {results[key]['ack_p50_ms']} p99 {results[key]['ack_p99_ms']} ms"
               if "ack_p50_ms" in results[key] else ""))
    except Exception as e:  # noqa: BLE001 - report and go on with the next measurement
        results[key] = {"error": str(e)[-600:]}
        log(f"  {broker.name} {key}: failed: {e}")


def run_broker(args, name, round_no):
    results = {}
    with brokers.running(brokers.new(args, name, args.work, props=dict(SHARE_PROPS))) as broker:
        log(f"round {round_no}: {broker.name} on {broker.bootstrap}")
        for p in PARTITIONS:
            share_bench(args, "setup", broker.bootstrap, topic(p), p, args.records, args.size,
                        ",".join(all_groups(round_no)))
        log(f"  {broker.name}: two topics of {args.records} records filled")
        with profiled(args, broker, round_no):
            measure_all(args, broker, round_no, results)
    return results


@contextlib.contextmanager
def profiled(args, broker, round_no):
    """With --perf-record DIR, `perf record -g` of the Skiff process over the
    body (DIR/skiff-rROUND.data; perf report --no-children -i ...). Its
    sampling adds to the broker CPU the run reports."""
    if not args.perf_record or broker.name != "skiff":
        yield
        return
    args.perf_record.mkdir(parents=True, exist_ok=True)
    out = args.perf_record / f"skiff-r{round_no}.data"
    perf = subprocess.Popen(["perf", "record", "-F", "499", "-g", "-p", str(broker.proc.pid), "-o", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield
    finally:
        perf.send_signal(signal.SIGINT)
        try:
            perf.wait(60)
        except subprocess.TimeoutExpired:
            perf.kill()
            perf.wait()
        log(f"  perf profile of skiff: {out}")


def measure_all(args, broker, round_no, results):
    for c, p in PERF_TESTS:
        attempt(results, f"perf/c{c}/p{p}", broker,
                lambda: perf_tool(args, broker, c, p, group("perf", c, p, round_no)))
    for c, p in DRIVER_TESTS:
        attempt(results, f"driver/c{c}/p{p}", broker,
                lambda: share_bench(args, "consume", broker.bootstrap, topic(p), group("drv", c, p, round_no),
                                    c, args.records))


def summarize(report):
    def med(b, key, field):
        vals = [r[key][field] for r in report.by_broker(b) if field in r.get(key, {})]
        return statistics.median(vals) if vals else None

    rows = []
    for c, p in PERF_TESTS:
        key = f"perf/c{c}/p{p}"
        s, k = med("skiff", key, "records_per_s"), med("kafka", key, "records_per_s")
        sc, kc = med("skiff", key, "broker_cpu_s_per_M"), med("kafka", key, "broker_cpu_s_per_M")
        rows.append([f"perf tool, {c} consumer(s), {p} partition(s)", s, k, ratio(s, k), sc, kc, "–", "–"])
    for c, p in DRIVER_TESTS:
        key = f"driver/c{c}/p{p}"
        s, k = med("skiff", key, "records_per_s"), med("kafka", key, "records_per_s")
        sc, kc = med("skiff", key, "broker_cpu_s_per_M"), med("kafka", key, "broker_cpu_s_per_M")
        ack = [f"{fmt(med(b, key, 'ack_p50_ms'))} / {fmt(med(b, key, 'ack_p99_ms'))}" for b in ("skiff", "kafka")]
        rows.append([f"driver, {c} consumer(s), {p} partition(s)", s, k, ratio(s, k), sc, kc, *ack])
    return table(["medians over rounds", "Skiff records/s", "Kafka records/s", "Skiff/Kafka",
                  "Skiff broker CPU s/M records", "Kafka broker CPU s/M records",
                  "Skiff ack p50 / p99 ms", "Kafka ack p50 / p99 ms"], rows)


def main():
    p = parser(__doc__)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--records", type=int, default=200_000, help="records per topic (default 200000)")
    p.add_argument("--size", type=int, default=100, help="record value size in bytes (default 100)")
    p.add_argument("--smoke", action="store_true", help="one round, 2,000 records: checks the benchmark works")
    p.add_argument("--brokers", default="skiff,kafka", help="order within a round")
    p.add_argument("--client-timeout", type=float, default=180, help="seconds, per client run (default 180)")
    p.add_argument("--perf-record", type=Path, metavar="DIR", help="perf record -g the Skiff process (not Kafka) "
                   "during the measurements into DIR/skiff-rN.data")
    p.add_argument("--skiff-override", action="append", metavar="KEY=VALUE", help="more Skiff settings")
    p.add_argument("--jars", help="Kafka's jars (default: scripts/fetch_kafka_jars.sh's cache)")
    brokers.add_build_args(p)
    add_out_arg(p)
    args = p.parse_args()
    if args.smoke:
        args.rounds, args.records, args.client_timeout = 1, 2000, min(args.client_timeout, 90)
    brokers.stop_on_sigterm()
    brokers.need(args, "skiff")
    args.jars = args.jars or brokers.kafka_jars(args.kafka_version)
    report = Report("share", args, environment(kafka=args.kafka_version, client=(
        f"kafka-clients {args.kafka_version}: ShareConsumerPerformance and tests/bench/ShareBench.java; "
        f"{args.records} records of {args.size} B per topic, {args.rounds} round(s)")))
    with brokers.work_dir(args, "bench-share-"):
        report.rounds(lambda name, r: run_broker(args, name, r))
    report.add(summarize(report))
    report.finish()
    return 1 if any("error" in v for r in report.runs for v in r["results"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
