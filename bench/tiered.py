"""Tiered storage (issue 54, KIP-405) on this machine against versitygw (its
POSIX backend on the run's scratch disk): upload throughput, consume
throughput and first-byte latency from remote storage against the local
tail, Apache Kafka's local consume as the baseline, S3 requests and bytes
per GB moved, and the local disk a partition holds under a constant produce
rate with local.retention.bytes set.

1. upload: --mb MB of --size B records (skiff_rdkafka_bench, acks=1) into a
   topic with remote.storage.enable, segment.bytes --segment-mb and
   local.retention.bytes --local-mb; timed from the first send until every
   closed segment is remote (/metrics: RemoteCopyLagBytes no more than the
   active segment). MB/s of segment bytes copied (RemoteCopyBytes).
2. consume: the same client (skiff_rdkafka_bench consume) from offset 0 up
   to the local log start (every record from remote storage), then the local
   tail (from the local start to the end); MB/s from the first record to the
   last, first-byte latency = client start to first record (connections,
   metadata and offset lookup included, the same for both). Kafka 4.4 gets
   the same number of records as Skiff's local tail and the same consume:
   its local baseline. Kafka has no S3 plugin on Maven Central (Aiven's
   plugin is not published there), so Kafka's remote read is not measured.
3. requests: the broker's S3 client counters on /metrics
   (skiff_remote_s3_requests_total{operation}, every attempt, and its body
   bytes each way), per GB copied and per GB read from remote; versitygw's
   own access log counted by operation as the cross-check (and the only
   count for a broker without those counters).
   A read the broker does not serve (OFFSET_MOVED_TO_TIERED_STORAGE from a
   broker without remote reads) is reported as "not yet" with the client's
   error, never as a number.
4. steady state: --steady-mb-s MB/s for --steady-seconds (skiff_rdkafka_bench
   rate, one record per request) into a topic like (1); the partition
   directory's du (allocated blocks) every 0.25 s: max and mean over the
   last two thirds of the run, against the bound local.retention.bytes + one
   segment (the active one).

Loopback only; every wait bounded (--client-timeout); brokers and versitygw
stop at the end (SIGTERM included). versitygw comes from
`scripts/install-test-clients.sh s3`.

  python3 -m bench.tiered [--smoke] [--mb 1024] [--segment-mb 16] [--local-mb 256] [--no-kafka]
"""
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from bench import brokers, clients
from bench.brokers import ROOT, log
from bench.results import Report, add_out_arg, environment, fmt, java_version, parser, ratio, table

sys.path.insert(0, str(ROOT / "tests" / "integration"))
from harness import s3 as s3h  # noqa: E402  (versitygw, as the integration tests start it)

MIB = 1 << 20
BUCKET = "skiff-bench"


class Versity(s3h.S3Server):
    """versitygw as the tests run it, plus its S3 access log (one line per request)."""

    def __init__(self, work):
        super().__init__("versitygw", work)
        self.access_log = self.work / "access.log"

    def _args(self, exe):
        args = super()._args(exe)
        i = args.index("posix")
        return [*args[:i], "--access-log", str(self.access_log), "--quiet", *args[i:]]

    def operations(self):
        """Requests by operation so far, from the access log: {"PutObject": n, ...}."""
        counts = {}
        if self.access_log.exists():
            for m in re.finditer(r"\] \S+ \S+ \S+ s3_(\w+) ", self.access_log.read_text(errors="replace")):
                counts[m.group(1)] = counts.get(m.group(1), 0) + 1
        return counts


def tiered_props(server, prefix):
    """The integration tests' tiered broker (harness/s3.py), with a longer S3 attempt timeout under load."""
    return s3h.tiered_broker_overrides(server, BUCKET, prefix, attempt_timeout_ms=20000)


def create_topic(args, broker, topic, configs):
    cmd = ["org.apache.kafka.tools.TopicCommand", "--bootstrap-server", broker.bootstrap, "--create", "--topic",
           topic, "--partitions", "1", "--replication-factor", "1"]
    for k, v in configs.items():
        cmd += ["--config", f"{k}={v}"]
    clients.run_client(clients.java(args.jars, *cmd), 120)


def topic_configs(args, segment_mb, local_mb):
    return {"remote.storage.enable": "true", "segment.bytes": str(segment_mb * MIB),
            "local.retention.bytes": str(local_mb * MIB)}


# --- readings ----------------------------------------------------------------

def scrape(broker):
    return urllib.request.urlopen(f"http://127.0.0.1:{broker.http_port}/metrics", timeout=10).read().decode()


def metric(text, name, labels=""):
    m = re.search(rf"^{re.escape(name)}{re.escape(labels)} (\S+)$", text, re.M)
    return float(m.group(1)) if m else None


def s3_counts(text):
    """{operation: {"requests", "errors", "sent", "received"}} from skiff_remote_s3_* (empty when absent)."""
    out = {}
    for key, name in (("requests", "skiff_remote_s3_requests_total"),
                      ("errors", "skiff_remote_s3_request_errors_total"), ("sent", "skiff_remote_s3_sent_bytes_total"),
                      ("received", "skiff_remote_s3_received_bytes_total")):
        for op, v in re.findall(rf'^{name}{{operation="(\w+)"}} (\S+)$', text, re.M):
            out.setdefault(op, {})[key] = float(v)
    return out


def delta(after, before):
    return {op: {k: v - before.get(op, {}).get(k, 0) for k, v in d.items()} for op, d in after.items()}


def partition_dir(broker, topic):
    return broker.dir / "data" / f"{topic}-0"


def segments_in(d):
    """[(base offset, apparent bytes)] of the .log files in `d`, sorted."""
    out = []
    for f in Path(d).glob("*.log"):
        try:
            out.append((int(f.stem), f.stat().st_size))
        except (OSError, ValueError):
            pass  # deleted meanwhile
    return sorted(out)


def segments(broker, topic):
    return segments_in(partition_dir(broker, topic))


def du_bytes(path):
    """Allocated bytes under `path` (as du): st_blocks * 512."""
    total = 0
    for f in Path(path).rglob("*"):
        try:
            total += f.stat().st_blocks * 512
        except OSError:
            pass  # deleted meanwhile
    return total


def wait_all_remote(broker, topic, timeout):
    """Until every closed segment is remote: the copy lag is no more than the
    active segment. Returns the time it was seen (monotonic)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lag = metric(scrape(broker), "kafka_server_brokertopicmetrics_remotecopylagbytes", f'{{topic="{topic}"}}')
        segs = segments(broker, topic)
        if lag is not None and segs and lag <= segs[-1][1]:
            return time.monotonic()
        time.sleep(0.1)
    raise RuntimeError(f"closed segments of {topic} still local after {timeout} s")


# --- the phases --------------------------------------------------------------

def upload(args, broker, server):
    """(1): produce --mb MB, time until every closed segment is remote."""
    topic = "tiered-upload"
    create_topic(args, broker, topic, topic_configs(args, args.segment_mb, args.local_mb))
    records = args.mb * MIB // args.size
    before, ops0 = scrape(broker), server.operations()
    copied0 = metric(before, "kafka_server_brokertopicmetrics_remotecopybytes_total") or 0
    t0 = time.monotonic()
    produced = clients.rd_produce(args.rdkafka, broker.bootstrap, topic, records, args.size, "1", args.client_timeout)
    t_produced = time.monotonic()
    t_done = wait_all_remote(broker, topic, args.client_timeout)
    after = scrape(broker)
    copied = (metric(after, "kafka_server_brokertopicmetrics_remotecopybytes_total") or 0) - copied0
    ops = server.operations()
    res = {"records": records, "produce_mb_per_s": produced["mb_per_s"], "produce_s": round(t_produced - t0, 2),
           "until_remote_s": round(t_done - t0, 2), "drain_after_produce_s": round(t_done - t_produced, 2),
           "copied_bytes": copied, "upload_mb_per_s": round(copied / MIB / (t_done - t0), 1),
           "copy_errors": metric(after, "kafka_server_brokertopicmetrics_remotecopyerrors_total"),
           "s3": delta(s3_counts(after), s3_counts(before)),
           "versitygw_ops": {k: v - ops0.get(k, 0) for k, v in ops.items() if v - ops0.get(k, 0)},
           "local_segments": segments(broker, topic)}
    log(f"upload: {copied / MIB:.0f} MiB copied in {t_done - t0:.1f} s ({res['upload_mb_per_s']} MB/s), "
        f"produce {produced['mb_per_s']:.0f} MB/s")
    return topic, res


def consume(args, broker, topic, offset, records, server=None):
    """skiff_rdkafka_bench consume from `offset`, `records` records; with
    `server`, the S3 requests it caused. A failure is returned as {"error"}."""
    before = scrape(broker) if server else None
    ops0 = server.operations() if server else None
    err = []
    try:
        r = clients.last_json(clients.run_client(
            [args.rdkafka, "consume", "--bootstrap", broker.bootstrap, "--topic", topic, "--records", records,
             "--offset", offset, "--timeout-s", args.consume_timeout - 10], args.consume_timeout, err))
    except RuntimeError as e:
        # The client's own words (a fetch error, repeated) say more than its exit status.
        said = [line.replace("rdkafka_bench: ", "") for line in err if "error" in line.lower()]
        reason = (said[-1] if said else str(e).splitlines()[0]).replace(
            "Err-109?", "OFFSET_MOVED_TO_TIERED_STORAGE (109: not served from remote storage)")
        got = re.search(r'"records":(\d+)', str(e))
        reason = f"{got.group(1) if got else '?'} of {records} records in {args.consume_timeout - 10:.0f} s; {reason}"
        log(f"consume from {offset} on {broker.name}: {reason}")
        return {"error": reason[:300], "offset": offset, "records": records}
    res = {"offset": offset, "records": r["records"], "mb_per_s": r["mb_per_s"],
           "first_record_ms": round(r["startup_s"] * 1000, 1), "seconds": r["seconds"]}
    if server:
        res["s3"] = delta(s3_counts(scrape(broker)), s3_counts(before))
        ops = server.operations()
        res["versitygw_ops"] = {k: v - ops0.get(k, 0) for k, v in ops.items() if v - ops0.get(k, 0)}
    log(f"consume {broker.name} from {offset}: {records} records, {res['mb_per_s']} MB/s, "
        f"first record {res['first_record_ms']} ms")
    return res


def steady(args, broker):
    """(4): a constant produce rate; the partition's du sampled."""
    topic = "tiered-steady"
    create_topic(args, broker, topic, topic_configs(args, args.steady_segment_mb, args.steady_local_mb))
    rate = args.steady_mb_s * MIB / args.steady_size
    samples, stop = [], threading.Event()
    d = partition_dir(broker, topic)

    def sample():
        t0 = time.monotonic()
        while not stop.is_set():
            samples.append((time.monotonic() - t0, du_bytes(d), sum(b for _, b in segments_in(d))))
            stop.wait(0.25)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        r = clients.rdkafka(args.rdkafka, "rate", broker.bootstrap, topic, args.steady_seconds + args.client_timeout,
                            "--rate", f"{rate:.1f}", "--seconds", str(args.steady_seconds), "--producers", "1",
                            "--size", str(args.steady_size))
    finally:
        stop.set()
        sampler.join()
    settled = [x for x in samples if x[0] >= args.steady_seconds / 3] or samples
    bound = (args.steady_local_mb + args.steady_segment_mb) * MIB
    res = {"rate_mb_per_s_asked": args.steady_mb_s,
           "rate_mb_per_s_sent": round(r["records"] * args.steady_size / MIB / args.steady_seconds, 2),
           "local_retention_bytes": args.steady_local_mb * MIB, "bound_bytes": bound,
           "du_max_bytes": max(x[1] for x in settled),
           "du_mean_bytes": round(sum(x[1] for x in settled) / len(settled)),
           "log_max_bytes": max(x[2] for x in settled), "du_max_whole_run_bytes": max(x[1] for x in samples),
           "samples": len(samples),
           "produced_mb": round(r["records"] * args.steady_size / MIB, 1)}
    log(f"steady: du max {res['du_max_bytes'] / MIB:.1f} MiB, mean {res['du_mean_bytes'] / MIB:.1f} MiB, "
        f"bound {bound / MIB:.0f} MiB")
    return res


def skiff_run(args, work, report):
    server = Versity(work / "s3")
    server.start()
    try:
        s3h.run_json_cli([args.build_dir / "tools" / "s3_cli" / "s3_cli", "--endpoint", server.endpoint, "--bucket",
                          BUCKET, "--path-style", "--region", s3h.REGION, "--access-key", s3h.ACCESS_KEY,
                          "--secret-key", s3h.SECRET_KEY, "create-bucket"])
        broker = brokers.new(args, "skiff", work, props=tiered_props(server, "bench/"))
        log("skiff: starting")
        with brokers.running(broker):
            topic, up = upload(args, broker, server)
            report.run("skiff", {"upload": up})
            total = up["records"]
            local_start = segments(broker, topic)[0][0]
            remote = consume(args, broker, topic, 0, local_start, server) if local_start else {
                "error": "nothing below the local start"}
            local = consume(args, broker, topic, local_start, total - local_start)
            report.run("skiff", {"consume_remote": remote, "consume_local": local, "local_start": local_start})
            report.run("skiff", {"steady": steady(args, broker)})
            return up, remote, local, total - local_start
    finally:
        server.stop()


def kafka_run(args, work, records):
    """Kafka's local consume of `records` records, written as Skiff's were."""
    broker = brokers.new(args, "kafka", work)
    log("kafka: starting")
    with brokers.running(broker):
        topic = "tiered-local"
        create_topic(args, broker, topic, {"segment.bytes": str(args.segment_mb * MIB)})
        clients.rd_produce(args.rdkafka, broker.bootstrap, topic, records, args.size, "1", args.client_timeout)
        return consume(args, broker, topic, 0, records)


# --- the report --------------------------------------------------------------

def mib(b):
    return None if b is None else b / MIB


def consume_row(name, r, size, base=None):
    if "error" in r:
        return [name, fmt(r["records"]), "not yet", "–", "–", r["error"]]
    return [name, fmt(r["records"]), f"{r['records'] * size / MIB:.0f}", fmt(r["mb_per_s"]), fmt(r["first_record_ms"]),
            ratio(r["mb_per_s"], base["mb_per_s"]) if base and "error" not in base else "–"]


def s3_rows(phase, counts, ops, gib):
    """One row per operation the phase used: requests, per GiB moved, bytes each way, versitygw's count."""
    rows = []
    names = sorted({op for op, c in counts.items() if c.get("requests")} | set(ops))
    for op in names:
        c = counts.get(op, {})
        n = c.get("requests")
        per = n if n is not None else ops.get(op)  # versitygw's count where the broker has no counters
        rows.append([phase, op, f"{n:,.0f}" if n is not None else "not counted",
                     fmt(per / gib) if per and gib else "–",
                     fmt(mib(c.get("sent"))) if c else "–", fmt(mib(c.get("received"))) if c else "–",
                     f"{ops.get(op, 0):,}"])
    return rows


def write_report(args, report, up, remote, local, kafka):
    report.add(f"{args.mb} MiB of {args.size} B records (skiff_rdkafka_bench, acks=1), one partition, "
               f"segment.bytes {args.segment_mb} MiB, local.retention.bytes {args.local_mb} MiB, versitygw "
               f"(POSIX backend, same disk) on loopback. Kafka {args.kafka_version} has no S3 remote storage "
               "plugin on Maven Central: its row is the local baseline only.")
    report.add("Upload (produce start → every closed segment remote)\n\n" + table(
        ["MiB produced", "produce MB/s", "produce s", "until remote s", "drain after produce s", "MiB copied",
         "upload MB/s", "copy errors"],
        [[args.mb, up["produce_mb_per_s"], up["produce_s"], up["until_remote_s"], up["drain_after_produce_s"],
          up["copied_bytes"] / MIB, up["upload_mb_per_s"], up["copy_errors"]]]))
    rows = [consume_row("Skiff, remote (offset 0 → local start)", remote, args.size, local),
            consume_row("Skiff, local tail", local, args.size, local)]
    if kafka is not None:
        rows.append(consume_row("Kafka, local (same records)", kafka, args.size, local))
    report.add("Consume, skiff_rdkafka_bench (first record: client start → first record)\n\n" + table(
        ["read", "records", "MiB", "MB/s", "first record ms", "MB/s vs Skiff local"], rows))
    ok = [r for r in (remote, local, kafka) if r is not None and "error" not in r]
    if len(ok) >= 2:
        lines = []
        if "error" not in remote and "error" not in local:
            lines.append(f"- remote / local MB/s: {ratio(remote['mb_per_s'], local['mb_per_s'])}; first record "
                         f"remote / local: {ratio(remote['first_record_ms'], local['first_record_ms'])}")
        if kafka is not None and "error" not in kafka and "error" not in local:
            lines.append(f"- Skiff local / Kafka local MB/s: {ratio(local['mb_per_s'], kafka['mb_per_s'])}; first "
                         f"record: {ratio(local['first_record_ms'], kafka['first_record_ms'])}")
        report.add("\n".join(lines))
    up_gib = up["copied_bytes"] / (1 << 30)
    rows = s3_rows("upload", up["s3"], up["versitygw_ops"], up_gib)
    if "error" not in remote:
        rows += s3_rows("remote consume", remote.get("s3", {}), remote.get("versitygw_ops", {}),
                        remote["records"] * args.size / (1 << 30))
    report.add("S3 requests (the broker's counters, every attempt; per GiB of segment bytes copied, of record "
               "bytes read from remote, from versitygw's count where the broker has no counters; versitygw's "
               "access log as the cross-check)\n\n" + table(
                   ["phase", "operation", "requests", "per GiB", "MiB sent", "MiB received", "versitygw log"], rows))
    st = report.by_broker("skiff")[-1]["steady"]
    report.add(f"Local disk at steady state: {args.steady_mb_s} MB/s of {args.steady_size} B records for "
               f"{args.steady_seconds} s, segment.bytes {args.steady_segment_mb} MiB, du of the partition "
               "directory every 0.25 s, over the last two thirds of the run\n\n" + table(
                   ["MB/s sent", "local.retention.bytes MiB", "bound MiB (retention + active segment)",
                    "du max MiB", "du mean MiB", "max / bound", ".log bytes max MiB", "du max whole run MiB"],
                   [[st["rate_mb_per_s_sent"], mib(st["local_retention_bytes"]), mib(st["bound_bytes"]),
                     mib(st["du_max_bytes"]), mib(st["du_mean_bytes"]), ratio(st["du_max_bytes"], st["bound_bytes"]),
                     mib(st["log_max_bytes"]), mib(st["du_max_whole_run_bytes"])]]))


def main():
    p = parser(__doc__)
    p.add_argument("--mb", type=int, default=1024, help="MiB produced for (1) and (2)")
    p.add_argument("--size", type=int, default=1024, help="record bytes for (1) and (2)")
    p.add_argument("--segment-mb", type=int, default=16)
    p.add_argument("--local-mb", type=int, default=256,
                   help="local.retention.bytes in MiB for (1) and (2): the local tail read in (2)")
    p.add_argument("--steady-mb-s", type=float, default=10)
    p.add_argument("--steady-seconds", type=int, default=60)
    p.add_argument("--steady-size", type=int, default=16384)
    p.add_argument("--steady-segment-mb", type=int, default=8)
    p.add_argument("--steady-local-mb", type=int, default=32)
    p.add_argument("--client-timeout", type=float, default=300)
    p.add_argument("--consume-timeout", type=float, help="one consume's bound in s (default 180, smoke 60)")
    p.add_argument("--no-kafka", action="store_true", help="leave out Kafka's local baseline")
    p.add_argument("--smoke", action="store_true", help="64 MiB, 10 s steady state: checks the benchmark works")
    p.add_argument("--jars", help="Kafka's jars (default: scripts/fetch_kafka_jars.sh's cache)")
    brokers.add_build_args(p)
    add_out_arg(p)
    args = p.parse_args()
    if args.smoke:
        args.mb, args.segment_mb, args.local_mb = 64, 4, 8
        args.steady_mb_s, args.steady_seconds, args.steady_segment_mb, args.steady_local_mb = 4, 10, 2, 4
    args.consume_timeout = args.consume_timeout or (60 if args.smoke else 180)
    brokers.stop_on_sigterm()
    if s3h.binary("versitygw") is None:
        sys.exit("versitygw is not installed: scripts/install-test-clients.sh s3")
    brokers.need(args, "skiff", "skiff_rdkafka_bench", "s3_cli")
    args.rdkafka = brokers.tool(args, "skiff_rdkafka_bench")
    args.jars = args.jars or brokers.kafka_jars(args.kafka_version)
    report = Report("tiered", args, environment(kafka=args.kafka_version, java=java_version, versitygw=lambda: (
        subprocess.run([s3h.binary("versitygw"), "--version"], capture_output=True, text=True, timeout=30)
        .stdout.strip().splitlines() or ["?"])[0]))
    work = brokers.scratch("bench-tiered-")
    try:
        up, remote, local, tail = skiff_run(args, work, report)
        kafka = None if args.no_kafka else report.run("kafka", {"consume_local": kafka_run(args, work, tail)})[
            "consume_local"]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    write_report(args, report, up, remote, local, kafka)
    report.finish()


if __name__ == "__main__":
    sys.exit(main())
