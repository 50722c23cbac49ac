"""Kafka Streams groups (KIP-1071), Skiff against Apache Kafka side by side. Not a test.

  python3 -m bench.streams_groups [--smoke|--rounds N|--brokers skiff,kafka]

Per round and broker (fresh, alternating as bench.vs_kafka does), with Kafka
Streams 4.4 (tests/integration/drivers/java/streams/StreamsGroupsApp.java:
a word count with a repartition topic and a state store, at_least_once),
for group.protocol=classic and =streams:
  - first record: from the application's start (before KafkaStreams is
    built) to its first processed record, the input topic holding records
    (internal topics created by the client with classic, by the broker with
    streams); median of 3 fresh applications;
  - one leaves: three instances share the six tasks; one closes (SIGTERM:
    KafkaStreams.close, leaving the group); the time until the other two run
    all six tasks again and their assignments stay unchanged for 3 s (their
    last assignment change, from their own reports); median of 2.
A broker that does not advertise StreamsGroupHeartbeat (API 88), or whose
answer the application fails on with UnsupportedVersionException, gets
"unsupported" in its streams cells. Both brokers run with their defaults
(Kafka: group.initial.rebalance.delay.ms and
group.streams.initial.rebalance.delay.ms 3 s, streams heartbeat 5 s), apart
from num.partitions=3. Needs `scripts/install-test-clients.sh java` (the
Streams application and the Java client driver) and Kafka's jars.
"""
import os
import statistics
import subprocess
import sys
import time

from bench import brokers
from bench.brokers import ROOT, log
from bench.results import Report, add_out_arg, environment, parser, table

TESTS = [("first", "classic"), ("first", "streams"), ("leave", "classic"), ("leave", "streams")]
TASKS = {f"{s}_{p}" for s in (0, 1) for p in range(3)}
UNSUPPORTED = "unsupported"


class Unsupported(Exception):
    pass


def harness():
    """tests/integration/harness, on the client cache install-test-clients.sh fills."""
    out = subprocess.run([str(ROOT / "scripts" / "install-test-clients.sh"), "java"], check=True, text=True,
                         stdout=subprocess.PIPE, timeout=1800).stdout
    os.environ.setdefault("SKIFF_COMPAT_CACHE", out.strip().splitlines()[-1])
    sys.path.insert(0, str(ROOT / "tests" / "integration"))
    from harness import clients, java_txn, wire  # noqa: PLC0415 - after the cache is known
    return clients, java_txn, wire


def topics(args, broker, *names):
    for t in names:
        subprocess.run(["java", "-cp", f"{args.jars}/*", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                        "org.apache.kafka.tools.TopicCommand", "--bootstrap-server", broker.bootstrap, "--create",
                        "--topic", t, "--partitions", "3", "--replication-factor", "1"],
                       check=True, capture_output=True, timeout=120)


def fill(args, broker, topic, n=60):
    from harness.data import Rec  # noqa: PLC0415
    recs = [Rec(p=i % 3, k=None, v=f"w{i % 7} w{i % 5} w{i % 3}".encode()) for i in range(n)]
    res = args.h_clients.make("java").produce(broker.bootstrap, topic, recs, timeout=60)
    if any("error" in r for r in res):
        raise RuntimeError(f"produce failed: {res[:3]}")


def check_unsupported(args, app):
    for e in args.h_java.events(app.text(), "error"):
        if "UnsupportedVersion" in e["error"]:
            raise Unsupported(e["error"])


def wait(args, apps, pred, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for a in apps:
            check_unsupported(args, a)
            if a.proc.poll() is not None:
                raise RuntimeError(f"{what}: an instance exited\n{a.tail()}")
        if pred():
            return
        time.sleep(0.1)
    raise RuntimeError(f"{what}: not within {timeout}s\n" + "\n".join(a.tail(8) for a in apps))


def app(args, broker, protocol, inp, app_id, who):
    d = args.work / app_id
    d.mkdir(parents=True, exist_ok=True)
    return args.h_java.streams_groups_app(broker.bootstrap, d / f"{who}.log", app_id=app_id, input=inp,
                                          output=inp + "-out", state_dir=d / f"state-{who}", protocol=protocol,
                                          report_ms=50)


def first_record(args, broker, protocol, i):
    inp = f"sgb-first-{protocol}-{i}"
    topics(args, broker, inp, inp + "-out")
    fill(args, broker, inp)
    with app(args, broker, protocol, inp, f"sgb-first-{protocol}-{i}", "a") as a:
        wait(args, [a], lambda: args.h_java.events(a.text(), "first"), args.client_timeout, "the first record")
        return args.h_java.events(a.text(), "first")[0]["ms"]


def last(args, a, ev):
    es = args.h_java.events(a.text(), ev)
    return es[-1] if es else None


def balanced(args, apps):
    lasts = [last(args, a, "assignment") for a in apps]
    states = [last(args, a, "state") for a in apps]
    if not all(lasts) or any((s or {}).get("state") != "RUNNING" for s in states):
        return False
    active = [t for x in lasts for t in x["active"]]
    return sorted(active) == sorted(TASKS) and all(x["active"] for x in lasts)


def one_leaves(args, broker, protocol, i):
    inp = f"sgb-leave-{protocol}-{i}"
    topics(args, broker, inp, inp + "-out")
    fill(args, broker, inp)
    apps = [app(args, broker, protocol, inp, f"sgb-leave-{protocol}-{i}", w) for w in "abc"]
    try:
        wait(args, apps, lambda: balanced(args, apps), args.client_timeout, "three instances sharing the tasks")
        t0 = time.time() * 1000
        apps[2].proc.terminate()
        rest = apps[:2]
        stable_since = [None]

        def settled():
            if not balanced(args, rest):
                stable_since[0] = None
                return False
            change = max(last(args, a, "assignment")["t"] for a in rest)
            if stable_since[0] != change:
                stable_since[0] = change
            return time.time() * 1000 - change >= 3000
        wait(args, rest, settled, args.client_timeout, "two instances running the six tasks")
        return round(stable_since[0] - t0)
    finally:
        for a in apps:
            a.kill()


def run_broker(args, name, round_no):
    results = {}
    reps = {"first": 1 if args.smoke else 3, "leave": 1 if args.smoke else 2}
    with brokers.running(brokers.new(args, name, args.work, props={"num.partitions": "3"})) as broker:
        log(f"round {round_no}: {broker.name} on {broker.bootstrap}")
        streams_ok = 88 in args.h_wire.api_versions(broker.bootstrap)
        for mode, protocol in TESTS:
            key = f"{mode}/{protocol}"
            fn = first_record if mode == "first" else one_leaves
            try:
                if protocol == "streams" and not streams_ok:
                    raise Unsupported("StreamsGroupHeartbeat (88) not in ApiVersions")
                vals = [fn(args, broker, protocol, f"{round_no}-{i}") for i in range(reps[mode])]
                results[key] = {"ms": vals, "median_ms": statistics.median(vals)}
                log(f"  {broker.name} {key}: {vals} ms")
            except Unsupported as e:
                results[key] = {UNSUPPORTED: str(e)[-300:]}
                log(f"  {broker.name} {key}: unsupported: {e}")
            except Exception as e:  # noqa: BLE001 - report and go on with the next test
                results[key] = {"error": str(e)[-500:]}
                log(f"  {broker.name} {key}: failed: {e}")
    return results


def summarize(report):
    def cell(b, key):
        rs = [r.get(key, {}) for r in report.by_broker(b)]
        vals = [r["median_ms"] for r in rs if "median_ms" in r]
        if vals:
            return statistics.median(vals)
        return UNSUPPORTED if any(UNSUPPORTED in r for r in rs) else "failed"

    labels = {"first": "start to first processed record, ms", "leave": "3 instances, one leaves: stable again, ms"}
    rows = []
    for mode, protocol in TESTS:
        s, k = cell("skiff", f"{mode}/{protocol}"), cell("kafka", f"{mode}/{protocol}")
        num = [isinstance(v, (int, float)) for v in (s, k)]
        ratio = f"{s / k:.2f}" if all(num) and k else "–"
        rows.append([f"{labels[mode]} ({protocol} protocol)",
                     *(f"{v:.0f}" if n else v for v, n in zip((s, k), num)), ratio])
    return table(["Kafka Streams 4.4, medians over rounds", "Skiff", "Kafka", "Skiff/Kafka"], rows)


def main():
    p = parser(__doc__)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--smoke", action="store_true", help="one round, one repetition each: checks the benchmark works")
    p.add_argument("--brokers", default="skiff,kafka", help="order within a round")
    p.add_argument("--client-timeout", type=float, default=120)
    p.add_argument("--jars", help="Kafka's jars (default: scripts/fetch_kafka_jars.sh's cache)")
    brokers.add_build_args(p)
    add_out_arg(p)
    args = p.parse_args()
    if args.smoke:
        args.rounds = 1
    brokers.stop_on_sigterm()
    if "skiff" in args.brokers.split(","):
        brokers.need(args, "skiff")
    else:
        brokers.need(args)
    args.jars = args.jars or brokers.kafka_jars(args.kafka_version)
    args.h_clients, args.h_java, args.h_wire = harness()
    report = Report("streams_groups", args, environment(kafka=args.kafka_version, client=(
        f"kafka-streams {args.kafka_version} (StreamsGroupsApp), {args.rounds} round(s)")))
    with brokers.work_dir(args, "bench-streams-groups-"):
        report.rounds(lambda name, r: run_broker(args, name, r))
    report.add(summarize(report))
    report.finish()
    return 1 if any("error" in v for r in report.runs for v in r["results"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
