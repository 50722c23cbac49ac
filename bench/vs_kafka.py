"""Skiff against Apache Kafka on this machine, side by side, with the same
clients and the same load: startup, idle memory, produce and consume
throughput, end-to-end latency, idle connections. Not a test.

  python3 -m bench.vs_kafka              # 3 rounds, the full loads (~15 min)
  python3 -m bench.vs_kafka --smoke      # 1 round, tiny loads (scripts/test.sh runs this)

Each round starts each broker fresh (alternating Skiff, Kafka, Skiff, ...),
measures exec -> first acknowledged produce and idle RSS, then runs every
load test against it and stops it. Per test it records the client's result
and the broker's CPU seconds (utime+stime of the whole process, JVM threads
included) and peak RSS (VmHWM, reset before each test through
/proc/PID/clear_refs). The summary gives, per metric, the median over rounds,
min-max, and the Skiff/Kafka ratio of the medians. Clients: Kafka's own
ProducerPerformance / ConsumerPerformance (the Java client, its defaults
apart from acks) and skiff_rdkafka_bench (librdkafka).
"""
import resource
import socket
import statistics
import struct
import subprocess
import sys
import time

from bench import brokers, clients
from bench.brokers import log, measure
from bench.results import Report, add_out_arg, environment, fmt, java_version, parser, ratio, spread, stats, table

TARGETS = ("skiff", "skiff_rdkafka_bench", "skiff_first_produce")


def open_idle_connections(broker, n):
    """n connections that each completed an ApiVersions exchange, then stay idle."""
    request = struct.pack(">hhih", 18, 0, 1, 5) + b"idle1"  # ApiVersions v0, client id "idle1"
    frame = struct.pack(">i", len(request)) + request
    conns = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", broker.port), timeout=30)
        s.sendall(frame)
        conns.append(s)
    for s in conns:  # read each answer: the broker has really taken the connection
        size = struct.unpack(">i", recv_exact(s, 4))[0]
        recv_exact(s, size)
    return conns


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise RuntimeError("broker closed an idle connection")
        buf += chunk
    return buf


def tests(args, broker):
    """[(name, records, fn)]: every load test of a round."""
    jars, rd, t = args.jars, args.rdkafka_bench, args.client_timeout
    n1, n2 = args.records_100b, args.records_1kib

    def java_produce(topic, records, size, acks):
        return clients.java_produce(jars, topic, records, size, ["--producer-props",
                                    f"bootstrap.servers={broker.bootstrap}", f"acks={acks}"], t)

    def rd_produce(topic, records, size, acks):
        r = clients.rd_produce(rd, broker.bootstrap, topic, records, size, acks, t)
        return {"records_per_s": r["records_per_s"], "mb_per_s": r["mb_per_s"]}

    def rd_consume(topic, records):
        r = clients.rdkafka(rd, "consume", broker.bootstrap, topic, t, "--records", str(records))
        return {"records_per_s": r["records_per_s"], "mb_per_s": r["mb_per_s"], "client_startup_s": r["startup_s"]}

    def rd_e2e():
        r = clients.rdkafka(rd, "e2e", broker.bootstrap, "e2e", t, "--rate", str(args.e2e_rate), "--seconds",
                            str(args.e2e_seconds))
        return {k: r[k] for k in ("p50_ms", "p99_ms", "p999_ms", "max_ms")} | {"records": r["records"]}

    return [
        ("produce 100B acks=1 / java", n1, lambda: java_produce("j100", n1, 100, "1")),
        ("produce 1KiB acks=all / java", n2, lambda: java_produce("j1k", n2, 1024, "all")),
        ("produce 100B acks=1 / rdkafka", n1, lambda: rd_produce("r100", n1, 100, "1")),
        ("produce 1KiB acks=all / rdkafka", n2, lambda: rd_produce("r1k", n2, 1024, "all")),
        ("consume 100B / java", n1, lambda: clients.java_consume(jars, broker.bootstrap, "j100", n1, t)),
        ("consume 1KiB / java", n2, lambda: clients.java_consume(jars, broker.bootstrap, "j1k", n2, t)),
        ("consume 100B / rdkafka", n1, lambda: rd_consume("r100", n1)),
        ("consume 1KiB / rdkafka", n2, lambda: rd_consume("r1k", n2)),
        ("e2e latency 10k/s / rdkafka", int(args.e2e_rate * args.e2e_seconds), rd_e2e),
    ], rd_produce


def run_broker(args, name, round_no):
    broker = brokers.new(args, name, args.work)
    log(f"round {round_no}: {broker.name} on {broker.bootstrap}")
    broker.prepare()
    results = {}
    with brokers.guarded(broker, keep=args.keep):
        results["first_produce_ms"] = round(clients.first_produce(args.first_produce, broker), 2)
        time.sleep(args.settle)
        results["idle_rss_mb"] = broker.rss_mb()
        # Topics exist before the clock runs (one 100-byte record each), so
        # no test counts a topic's creation.
        clients.make_topics(args.first_produce, broker, "j100", "j1k", "r100", "r1k", "e2e", "r100idle")
        load_tests, rd_produce = tests(args, broker)
        for test, records, fn in load_tests:
            if args.only_tests and not any(t in test for t in args.only_tests):
                continue
            results[test] = measure(broker, fn, records)
            log(f"  {test}: {results[test]}")
        if not args.only_tests or any("idle" in t for t in args.only_tests):
            # The same load right before and while the idle connections are
            # open, twice the records so the pair is long enough to compare.
            n = 2 * args.records_100b
            test = f"produce 100B acks=1 x{n} / rdkafka"
            results[test] = measure(broker, lambda: rd_produce("r100idle", n, 100, "1"), n)
            log(f"  {test}: {results[test]}")
            conns = open_idle_connections(broker, args.idle_connections)
            try:
                test = f"produce 100B acks=1 x{n} + {args.idle_connections} idle conns / rdkafka"
                results[test] = measure(broker, lambda: rd_produce("r100idle", n, 100, "1"), n)
                log(f"  {test}: {results[test]}")
            finally:
                for s in conns:
                    s.close()
    return results


def summarize(report):
    """The compact tables (medians, min-max, Skiff/Kafka ratios)."""
    keys = list(report.runs[0]["results"].keys())

    def values(b, key, metric=None):
        vals = [r[key] if metric is None else r[key].get(metric) for r in report.by_broker(b) if key in r]
        return [v for v in vals if v is not None]

    def med(b, key, metric):
        return stats(values(b, key, metric) or [0])[0]

    rows = []
    for key, label in (("first_produce_ms", "exec → first acknowledged produce, ms"), ("idle_rss_mb", "idle RSS, MB")):
        (cs, ms), (ck, mk) = spread(values("skiff", key)), spread(values("kafka", key))
        rows.append([label, cs, ck, ratio(ms, mk)])
    parts = [table(["", "Skiff", "Kafka", "Skiff/Kafka"], rows)]

    rows = []
    for key in keys:
        if not isinstance(report.runs[0]["results"][key], dict) or "latency" in key:
            continue
        (cs, ms), (ck, mk) = (spread(values(b, key, "records_per_s")) for b in ("skiff", "kafka"))
        cpu = [med(b, key, "broker_cpu_s_per_M") for b in ("skiff", "kafka")]
        cores = [f"{fmt(med(b, key, 'broker_cores'))} + {fmt(med(b, key, 'client_cores'))}" for b in ("skiff", "kafka")]
        rss = [fmt(med(b, key, "broker_peak_rss_mb")) for b in ("skiff", "kafka")]
        rows.append([key, cs, ck, ratio(ms, mk), f"{fmt(cpu[0])} / {fmt(cpu[1])} ({ratio(*cpu)})",
                     f"{cores[0]} / {cores[1]}", f"{rss[0]} / {rss[1]}"])
    if rows:
        parts.append(table(["test", "records/s Skiff", "records/s Kafka", "×", "broker CPU-s per M records Skiff / "
                            "Kafka (ratio)", "cores used, broker + client: Skiff / Kafka",
                            "broker peak RSS MB Skiff / Kafka"], rows))

    for key in (k for k in keys if "latency" in k):
        rows = []
        for metric, label in (("p50_ms", "p50 ms"), ("p99_ms", "p99 ms"), ("p999_ms", "p99.9 ms"),
                              ("broker_cpu_s_per_M", "broker CPU-s per M records")):
            (cs, ms), (ck, mk) = spread(values("skiff", key, metric)), spread(values("kafka", key, metric))
            rows.append([label, cs, ck, ratio(ms, mk)])
        parts.append(table([key, "Skiff", "Kafka", "Skiff/Kafka"], rows))

    idle = [k for k in keys if "idle conns" in k]
    if idle:
        base_key = idle[0].split(" + ")[0] + " / rdkafka"
        costs = []
        for b in ("skiff", "kafka"):
            base, loaded = values(b, base_key, "records_per_s"), values(b, idle[0], "records_per_s")
            costs.append(f"{(1 - statistics.median(loaded) / statistics.median(base)) * 100:.1f}%"
                         if base and loaded else "–")
        parts.append(f"Throughput lost with the idle connections open: Skiff {costs[0]}, Kafka {costs[1]} "
                     "(medians of the two runs above).")
    return parts


def add_tool_args(p):
    """The binaries and jars every side-by-side benchmark runs, and the broker settings."""
    brokers.add_build_args(p)
    add_out_arg(p)
    p.add_argument("--rdkafka-bench", help="skiff_rdkafka_bench (default: in BUILD_DIR/tests/bench)")
    p.add_argument("--first-produce", help="skiff_first_produce (default: in BUILD_DIR/tests/bench)")
    p.add_argument("--jars", help="Kafka's jars (default: scripts/fetch_kafka_jars.sh's cache)")
    p.add_argument("--skiff-override", action="append", metavar="KEY=VALUE",
                   help="a broker setting for Skiff (repeatable), e.g. skiff.network.coalesce.us=250")


def resolve_tools(args, *targets):
    """Builds `targets` (unless --no-build) and fills in the tool paths and jars."""
    brokers.need(args, *targets)
    args.rdkafka_bench = args.rdkafka_bench or brokers.tool(args, "skiff_rdkafka_bench")
    args.first_produce = args.first_produce or brokers.tool(args, "skiff_first_produce")
    args.jars = args.jars or brokers.kafka_jars(args.kafka_version)


def tool_environment(args):
    return environment(kafka=args.kafka_version, java=java_version,
                       librdkafka=lambda: subprocess.run([str(args.rdkafka_bench), "version"], capture_output=True,
                                                         text=True, timeout=30).stdout.strip())


def main():
    p = parser(__doc__)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--smoke", action="store_true", help="one round, tiny loads: checks the benchmark works")
    p.add_argument("--records-100b", type=int, default=1_000_000)
    p.add_argument("--records-1kib", type=int, default=200_000)
    p.add_argument("--e2e-rate", type=int, default=10_000)
    p.add_argument("--e2e-seconds", type=float, default=30)
    p.add_argument("--idle-connections", type=int, default=1000)
    p.add_argument("--settle", type=float, default=2.0, help="seconds after the first produce before idle RSS")
    p.add_argument("--brokers", default="skiff,kafka", help="order within a round (alternates A B A B)")
    p.add_argument("--only-tests", nargs="*", help="substrings of test names to run")
    p.add_argument("--client-timeout", type=float, default=600)
    p.add_argument("--keep", action="store_true", help="keep the brokers' data dirs")
    add_tool_args(p)
    args = p.parse_args()
    if args.smoke:
        args.rounds, args.records_100b, args.records_1kib = 1, 20_000, 5_000
        args.e2e_seconds, args.idle_connections, args.settle = 1, 100, 0.5
    brokers.stop_on_sigterm()
    resolve_tools(args, *TARGETS)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < args.idle_connections + 200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, args.idle_connections + 1000), hard))
    report = Report("vs_kafka", args, tool_environment(args))
    log(f"environment: {report.env}")
    with brokers.work_dir(args, "bench-vs-kafka-"):
        report.rounds(lambda name, r: run_broker(args, name, r))
    for part in summarize(report):
        report.add(part)
    report.finish()


if __name__ == "__main__":
    sys.exit(main())
