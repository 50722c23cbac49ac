#!/usr/bin/env python3
"""Skiff against Apache Kafka on this machine, side by side, with the same
clients and the same load. Run by scripts/bench-vs-kafka.sh (which builds
what it needs first); not a test.

Each round starts each broker fresh (alternating Skiff, Kafka, Skiff, ...),
measures exec -> first acknowledged produce and idle RSS, then runs every
load test against it and stops it. Per test it records the client's result
and the broker's CPU seconds (utime+stime of the whole process, JVM threads
included) and peak RSS (VmHWM, reset before each test through
/proc/PID/clear_refs). The summary gives, per metric, the median over rounds,
min-max, and the Skiff/Kafka ratio of the medians.
"""
import argparse
import json
import os
import platform
import resource
import shutil
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from free_port import free_port  # also what bench_sasl, bench_tls and bench_metrics use

ROOT = Path(__file__).resolve().parent.parent
TICK = os.sysconf("SC_CLK_TCK")
JAVA_TOOL_OPTS = ["-Xmx512M", "-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
                  "-XX:InitiatingHeapOccupancyPercent=35", "-Djava.awt.headless=true",
                  "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"]


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# --- broker processes -------------------------------------------------------

class Broker:
    name = "?"

    def __init__(self, args, work):
        self.args = args
        self.dir = Path(tempfile.mkdtemp(prefix=f"{self.name}-", dir=work))
        self.port = free_port()
        self.proc = None

    @property
    def bootstrap(self):
        return f"127.0.0.1:{self.port}"

    def prepare(self):
        pass

    def command(self):
        raise NotImplementedError

    def start(self):
        out = open(self.dir / "broker.out", "wb")
        self.proc = subprocess.Popen(self.command(), stdout=out, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        out.close()

    def stop(self):
        if not self.proc or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    # /proc readings of the broker process (the JVM itself for Kafka: the
    # launcher script execs java).
    def cpu_seconds(self):
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK

    def status_kb(self, key):
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
        return 0

    def reset_peak_rss(self):
        try:
            Path(f"/proc/{self.proc.pid}/clear_refs").write_text("5")
            return True
        except OSError:
            return False


class Skiff(Broker):
    name = "skiff"

    def command(self):
        extra = [a for kv in getattr(self.args, "skiff_override", None) or [] for a in ("--override", kv)]
        return [str(self.args.skiff), "--override", f"listeners=PLAINTEXT://127.0.0.1:{self.port}",
                "--override", f"log.dirs={self.dir / 'data'}", *extra]


class Kafka(Broker):
    name = "kafka"

    def prepare(self):
        # Config and storage format happen before the clock starts.
        subprocess.run([str(ROOT / "scripts/kafka-broker.sh"), "prepare", str(self.dir), str(self.port)],
                       check=True, stdout=subprocess.DEVNULL)

    def command(self):
        return [str(ROOT / "scripts/kafka-broker.sh"), "exec", str(self.dir)]


# --- clients ----------------------------------------------------------------

def log_broker_output(broker, lines=30):
    """The last lines a broker printed, logged (after a failed run)."""
    out = broker.dir / "broker.out"
    if out.exists():
        log(f"{broker.name} output (last lines):\n" + "\n".join(out.read_text(errors="replace").splitlines()[-lines:]))


def run_client(cmd, timeout, stderr_lines=None):
    """Runs a client to completion and returns its stdout (measure() times it);
    its stderr's last lines go into `stderr_lines` when given (a client's own
    log: librdkafka's request timeouts, disconnections)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise RuntimeError(f"timed out after {timeout}s: {' '.join(cmd)}\n{err[-2000:]}")
    # communicate() reaped the child: measure() reads its CPU from RUSAGE_CHILDREN.
    if stderr_lines is not None:
        stderr_lines.extend(err.splitlines()[-20:])
    if proc.returncode != 0:
        raise RuntimeError(f"exit {proc.returncode}: {' '.join(cmd)}\n{out[-2000:]}\n{err[-2000:]}")
    return out


def java(args, *argv):
    return ["java", *JAVA_TOOL_OPTS, "-cp", f"{args.jars}/*", *argv]


def java_produce(args, broker, topic, records, size, acks):
    out = run_client(java(args, "org.apache.kafka.tools.ProducerPerformance", "--topic", topic,
                             "--num-records", str(records), "--record-size", str(size), "--throughput", "-1",
                             "--producer-props", f"bootstrap.servers={broker.bootstrap}", f"acks={acks}"),
                        args.client_timeout)
    # "N records sent, X records/sec (Y MB/sec), A ms avg latency, M ms max latency, P50 ms 50th, ..."
    last = [l for l in out.splitlines() if "records sent" in l][-1]
    parts = [p.strip() for p in last.split(",")]
    rps = float(parts[1].split()[0])
    mbs = float(parts[1].split("(")[1].split()[0])
    p99 = float(parts[6].split()[0])
    return {"records_per_s": rps, "mb_per_s": mbs, "client_p99_ms": p99}


def java_consume(args, broker, topic, records):
    out = run_client(java(args, "org.apache.kafka.tools.ConsumerPerformance", "--bootstrap-server",
                             broker.bootstrap, "--topic", topic, "--messages", str(records), "--timeout", "60000",
                             "--hide-header"), args.client_timeout)
    # start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec,
    # rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
    cols = [c.strip() for c in out.strip().splitlines()[-1].split(",")]
    if int(cols[4]) < records:
        raise RuntimeError(f"consumed {cols[4]} of {records}")
    # The fetch-phase rate: the group join (Kafka delays the first rebalance)
    # is left out, which favours neither broker's fetch path.
    return {"records_per_s": float(cols[9]), "mb_per_s": float(cols[8])}


def rdkafka(args, mode, broker, topic, *extra):
    out = run_client([str(args.rdkafka_bench), mode, "--bootstrap", broker.bootstrap, "--topic", topic, *extra],
                        args.client_timeout)
    return json.loads(out.strip().splitlines()[-1])


def rd_produce(args, broker, topic, records, size, acks):
    r = rdkafka(args, "produce", broker, topic, "--records", str(records), "--size", str(size), "--acks", acks)
    if r["records"] != records:
        raise RuntimeError(f"produced {r['records']} of {records}")
    return {"records_per_s": r["records_per_s"], "mb_per_s": r["mb_per_s"]}


def rd_consume(args, broker, topic, records):
    r = rdkafka(args, "consume", broker, topic, "--records", str(records))
    return {"records_per_s": r["records_per_s"], "mb_per_s": r["mb_per_s"], "client_startup_s": r["startup_s"]}


def rd_e2e(args, broker, topic):
    r = rdkafka(args, "e2e", broker, topic, "--rate", str(args.e2e_rate), "--seconds", str(args.e2e_seconds))
    return {k: r[k] for k in ("p50_ms", "p99_ms", "p999_ms", "max_ms")} | {"records": r["records"]}


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


# --- one broker run: startup, then every test -------------------------------

def first_produce(args, broker):
    prober = subprocess.Popen([str(args.first_produce), "127.0.0.1", str(broker.port), "first", "180"],
                              stdout=subprocess.PIPE, text=True)
    assert json.loads(prober.stdout.readline())["ready"]
    t0 = time.time_ns()
    broker.start()
    line = prober.stdout.readline()
    prober.wait()
    result = json.loads(line)
    if not result["acked"]:
        raise RuntimeError(f"{broker.name}: no produce acknowledged within 180 s")
    return (result["ack_unix_ns"] - t0) / 1e6


def measure(broker, fn, records):
    peak_reset = broker.reset_peak_rss()
    cpu0 = broker.cpu_seconds()
    t0 = time.monotonic()
    usage0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = fn()
    usage1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.monotonic() - t0
    cpu = broker.cpu_seconds() - cpu0
    client_cpu = (usage1.ru_utime + usage1.ru_stime) - (usage0.ru_utime + usage0.ru_stime)
    result.update({
        "wall_s": round(wall, 3),
        "broker_cpu_s": round(cpu, 3),
        "broker_cores": round(cpu / wall, 2),
        "client_cores": round(client_cpu / wall, 2),
        "broker_peak_rss_mb": round(broker.status_kb("VmHWM" if peak_reset else "VmRSS") / 1024, 1),
    })
    if records:
        result["broker_cpu_s_per_M"] = round(cpu / records * 1e6, 3)
    return result


def run_broker(args, cls, round_no):
    broker = cls(args, args.work)
    log(f"round {round_no}: {broker.name} on {broker.bootstrap}")
    broker.prepare()
    results = {}
    try:
        results["first_produce_ms"] = round(first_produce(args, broker), 2)
        time.sleep(args.settle)
        results["idle_rss_mb"] = round(broker.status_kb("VmRSS") / 1024, 1)
        # Topics exist before the clock runs (one 100-byte record each), so
        # no test counts a topic's creation.
        for topic in ("j100", "j1k", "r100", "r1k", "e2e", "r100idle"):
            run_client([str(args.first_produce), "127.0.0.1", str(broker.port), topic, "60"], 90)
        n1, n2 = args.records_100b, args.records_1kib
        tests = [
            ("produce 100B acks=1 / java", n1, lambda: java_produce(args, broker, "j100", n1, 100, "1")),
            ("produce 1KiB acks=all / java", n2, lambda: java_produce(args, broker, "j1k", n2, 1024, "all")),
            ("produce 100B acks=1 / rdkafka", n1, lambda: rd_produce(args, broker, "r100", n1, 100, "1")),
            ("produce 1KiB acks=all / rdkafka", n2, lambda: rd_produce(args, broker, "r1k", n2, 1024, "all")),
            ("consume 100B / java", n1, lambda: java_consume(args, broker, "j100", n1)),
            ("consume 1KiB / java", n2, lambda: java_consume(args, broker, "j1k", n2)),
            ("consume 100B / rdkafka", n1, lambda: rd_consume(args, broker, "r100", n1)),
            ("consume 1KiB / rdkafka", n2, lambda: rd_consume(args, broker, "r1k", n2)),
            ("e2e latency 10k/s / rdkafka", int(args.e2e_rate * args.e2e_seconds), lambda: rd_e2e(args, broker, "e2e")),
        ]
        for name, records, fn in tests:
            if args.only_tests and not any(t in name for t in args.only_tests):
                continue
            results[name] = measure(broker, fn, records)
            log(f"  {name}: {results[name]}")
        if not args.only_tests or any("idle" in t for t in args.only_tests):
            # The same load right before and while the idle connections are
            # open, twice the records so the pair is long enough to compare.
            n = 2 * n1
            name = f"produce 100B acks=1 x{n} / rdkafka"
            results[name] = measure(broker, lambda: rd_produce(args, broker, "r100idle", n, 100, "1"), n)
            log(f"  {name}: {results[name]}")
            conns = open_idle_connections(broker, args.idle_connections)
            try:
                name = f"produce 100B acks=1 x{n} + {args.idle_connections} idle conns / rdkafka"
                results[name] = measure(broker, lambda: rd_produce(args, broker, "r100idle", n, 100, "1"), n)
                log(f"  {name}: {results[name]}")
            finally:
                for s in conns:
                    s.close()
        if not broker.alive():
            raise RuntimeError(f"{broker.name} exited during the run")
    except Exception:
        log_broker_output(broker)
        raise
    finally:
        broker.stop()
        if not args.keep:
            shutil.rmtree(broker.dir, ignore_errors=True)
    return results


# --- summary ----------------------------------------------------------------

def stats(values):
    return statistics.median(values), min(values), max(values)


def fmt(v):
    if v >= 1000:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.3g}"


def summarize(runs):
    """The compact Markdown tables (medians, min-max, Skiff/Kafka ratios)."""
    by = {b: [r for (name, r) in runs if name == b] for b in ("skiff", "kafka")}
    keys = list(runs[0][1].keys())

    def values(b, key, metric=None):
        vals = [r[key] if metric is None else r[key].get(metric) for r in by[b] if key in r]
        return [v for v in vals if v is not None]

    def cell(vals):
        if not vals:
            return "–", None
        med, lo, hi = stats(vals)
        return (f"{fmt(med)} ({fmt(lo)}–{fmt(hi)})" if len(vals) > 1 else fmt(med)), med

    def ratio(a, b):
        if a is None or not b:
            return "–"
        r = a / b
        return f"{r:.2f}" if r >= 0.1 or r == 0 else f"1/{1 / r:.0f}"

    out = ["| | Skiff | Kafka | Skiff/Kafka |", "|---|---|---|---|"]
    for key, label in (("first_produce_ms", "exec → first acknowledged produce, ms"), ("idle_rss_mb", "idle RSS, MB")):
        (cs, ms), (ck, mk) = cell(values("skiff", key)), cell(values("kafka", key))
        out.append(f"| {label} | {cs} | {ck} | {ratio(ms, mk)} |")

    out += ["", "| test | records/s Skiff | records/s Kafka | × | broker CPU-s per M records Skiff / Kafka (ratio) "
            "| cores used, broker + client: Skiff / Kafka | broker peak RSS MB Skiff / Kafka |",
            "|---|---|---|---|---|---|---|"]
    for key in keys:
        if not isinstance(runs[0][1][key], dict) or "latency" in key:
            continue
        (cs, ms), (ck, mk) = cell(values("skiff", key, "records_per_s")), cell(values("kafka", key, "records_per_s"))
        cpu = [stats(values(b, key, "broker_cpu_s_per_M") or [0])[0] for b in ("skiff", "kafka")]
        cores = [f"{fmt(stats(values(b, key, 'broker_cores') or [0])[0])} + "
                 f"{fmt(stats(values(b, key, 'client_cores') or [0])[0])}" for b in ("skiff", "kafka")]
        rss = [fmt(stats(values(b, key, "broker_peak_rss_mb") or [0])[0]) for b in ("skiff", "kafka")]
        out.append(f"| {key} | {cs} | {ck} | {ratio(ms, mk)} | {fmt(cpu[0])} / {fmt(cpu[1])} ({ratio(*cpu)}) "
                   f"| {cores[0]} / {cores[1]} | {rss[0]} / {rss[1]} |")

    for key in (k for k in keys if "latency" in k):
        out += ["", f"| {key} | Skiff | Kafka | Skiff/Kafka |", "|---|---|---|---|"]
        for metric, label in (("p50_ms", "p50 ms"), ("p99_ms", "p99 ms"), ("p999_ms", "p99.9 ms"),
                              ("broker_cpu_s_per_M", "broker CPU-s per M records")):
            (cs, ms), (ck, mk) = cell(values("skiff", key, metric)), cell(values("kafka", key, metric))
            out.append(f"| {label} | {cs} | {ck} | {ratio(ms, mk)} |")

    idle = [k for k in keys if "idle conns" in k]
    if idle:
        base_key = idle[0].split(" + ")[0] + " / rdkafka"
        costs = []
        for b in ("skiff", "kafka"):
            base, loaded = values(b, base_key, "records_per_s"), values(b, idle[0], "records_per_s")
            costs.append(f"{(1 - statistics.median(loaded) / statistics.median(base)) * 100:.1f}%"
                         if base and loaded else "–")
        out += ["", f"Throughput lost with the idle connections open: Skiff {costs[0]}, Kafka {costs[1]} "
                    "(medians of the two runs above)."]
    return "\n".join(out)


def environment(args):
    def cmd(*c):
        try:
            r = subprocess.run(c, capture_output=True, text=True, timeout=30)
            return r.stdout.strip() or r.stderr.strip()  # java -version writes to stderr
        except OSError:
            return "?"
    cpu = next((l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines()
                if l.startswith("model name")), "?")
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{os.cpu_count()} cores, {cpu}, {round(os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30)} GiB, "
                   f"Linux {platform.release()}",
        "skiff": cmd("git", "-C", str(ROOT), "describe", "--always", "--dirty"),
        "kafka": args.kafka_version,
        "java": cmd("java", "-version").splitlines()[0],
        "librdkafka": cmd(str(args.rdkafka_bench), "version"),
    }


def add_tool_args(p):
    """What bench-vs-kafka.sh passes every driver script: the binaries and jars."""
    p.add_argument("--skiff", type=Path, required=True)
    p.add_argument("--rdkafka-bench", type=Path, required=True)
    p.add_argument("--first-produce", type=Path, required=True)
    p.add_argument("--jars", type=Path, required=True)
    p.add_argument("--kafka-version", default=os.environ.get("KAFKA_VERSION", "4.4.0"))
    p.add_argument("--skiff-override", action="append", metavar="KEY=VALUE",
                   help="a broker setting for Skiff (repeatable), e.g. skiff.network.coalesce.us=250")


def run_rounds(args, classes, run_broker):
    """Every broker of --brokers in turn, each round (A B A B ...): [(name, results)].
    args.work (the brokers' scratch space) is removed afterwards."""
    runs = []
    try:
        for r in range(1, args.rounds + 1):
            for name in args.brokers.split(","):
                runs.append((name, run_broker(args, classes[name], r)))
    finally:
        shutil.rmtree(args.work, ignore_errors=True)
    return runs


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--smoke", action="store_true", help="one round, tiny loads: checks the script works")
    p.add_argument("--records-100b", type=int, default=1_000_000)
    p.add_argument("--records-1kib", type=int, default=200_000)
    p.add_argument("--e2e-rate", type=int, default=10_000)
    p.add_argument("--e2e-seconds", type=float, default=30)
    p.add_argument("--idle-connections", type=int, default=1000)
    p.add_argument("--settle", type=float, default=2.0, help="seconds after the first produce before idle RSS")
    p.add_argument("--brokers", default="skiff,kafka", help="order within a round (alternates A B A B)")
    p.add_argument("--only-tests", nargs="*", help="substrings of test names to run")
    p.add_argument("--client-timeout", type=float, default=600)
    p.add_argument("--out", type=Path, default=ROOT / "build-bench" / "results")
    p.add_argument("--keep", action="store_true", help="keep the brokers' data dirs")
    add_tool_args(p)
    args = p.parse_args()
    if args.smoke:
        args.rounds, args.records_100b, args.records_1kib = 1, 20_000, 5_000
        args.e2e_seconds, args.idle_connections, args.settle = 1, 100, 0.5
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < args.idle_connections + 200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, args.idle_connections + 1000), hard))
    args.out.mkdir(parents=True, exist_ok=True)
    args.work = Path(tempfile.mkdtemp(prefix="bench-vs-kafka-"))
    env = environment(args)
    log(f"environment: {env}")
    runs = run_rounds(args, {"skiff": Skiff, "kafka": Kafka}, run_broker)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    table = summarize(runs)
    (args.out / f"{stamp}.json").write_text(json.dumps({"environment": env, "args": {
        k: str(v) for k, v in vars(args).items()}, "runs": runs}, indent=1))
    report = "\n".join(f"- {k}: {v}" for k, v in env.items()) + "\n\n" + table + "\n"
    (args.out / f"{stamp}.md").write_text(report)
    print(report)
    log(f"results: {args.out / stamp}.json and .md")


if __name__ == "__main__":
    main()
