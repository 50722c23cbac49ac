"""The built-in Schema Registry (issue 52): what its users wait for.

  ~/.cache/skiff/compat/venv/bin/python -m bench.schema_registry [--smoke]
      [--register N] [--lookups N] [--rate R] [--seconds S] [--replay N,N]

Run it with the test venv's Python (confluent-kafka, for writing `_schemas`
records directly). Starts skiff on loopback (free ports, a fresh data dir
removed afterwards) with the registry on, then measures:

- register: `--register` Avro record schemas (default 2,000), each under its
  own subject, POST /subjects/{s}/versions from 4 keep-alive clients: the
  registrations/s and p50/p99 latency. Each is answered once its record is
  flushed (fdatasync), one write in flight at a time, as Confluent's.
- lookup: POST /subjects/{s} of registered schemas from 4 clients:
  lookups/s, p50/p99.
- get by id: GET /schemas/ids/{id} paced at `--rate` requests/s (default
  10,000) for `--seconds` (default 10) from 4 processes with keep-alive
  connections: the rate reached and p50/p99/max latency.
- restart: for each count of `--replay` (default 10,000 and 100,000), a
  fresh broker whose `_schemas` holds that many SCHEMA records in
  Confluent's format (produced directly, as another registry would have
  written them), restarted: the replay time the broker logs ("replayed N
  record(s) of _schemas in X ms"), the time to its "started in" line and
  its RSS after the start.

No other registry can be installed here: the figures are Skiff's alone.
Everything is bounded: each phase by its own count or time, each wait by
its own timeout.
"""
from __future__ import annotations

import http.client
import json
import multiprocessing
import re
import shutil
import statistics
import sys
import threading
import time

from bench import brokers
from bench.brokers import free_port, log
from bench.results import Report, add_out_arg, parser, table

CONTENT = "application/vnd.schemaregistry.v1+json"
REPLAYED = re.compile(r"replayed (\d+) record\(s\) of _schemas in ([\d.]+) ms")


def avro(i: int) -> str:
    return json.dumps({"type": "record", "name": f"R{i}", "namespace": "bench",
                       "fields": [{"name": "id", "type": "long"}, {"name": f"f{i}", "type": "string"}]})


class Client:
    """One keep-alive connection to the registry."""

    def __init__(self, port: int):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
        data = json.dumps(body) if body is not None else None
        self.conn.request(method, path, body=data, headers={"Content-Type": CONTENT})
        r = self.conn.getresponse()
        return r.status, r.read()


def timed_calls(port: int, calls: list, clients: int = 4) -> tuple[float, list[float]]:
    """`calls` (method, path, body) spread over `clients` threads: (seconds, latencies ms)."""
    lat: list[float] = []
    lock = threading.Lock()
    errors: list[str] = []

    def worker(part):
        c, mine = Client(port), []
        for method, path, body in part:
            t0 = time.perf_counter()
            status, out = c.call(method, path, body)
            mine.append((time.perf_counter() - t0) * 1000)
            if status != 200:
                errors.append(f"{method} {path}: {status} {out[:200]!r}")
                return
        with lock:
            lat.extend(mine)

    threads = [threading.Thread(target=worker, args=(calls[i::clients],)) for i in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        sys.exit(f"bench.schema_registry: {errors[0]}")
    return time.perf_counter() - t0, lat


def paced_gets(args_tuple):
    """One process: GET /schemas/ids/{id} at `rate` requests/s for `seconds`."""
    port, ids, rate, seconds = args_tuple
    c, lat = Client(port), []
    interval, start = 1.0 / rate, time.perf_counter()
    n = 0
    while True:
        due = start + n * interval
        now = time.perf_counter()
        if now - start >= seconds:
            break
        if due > now:
            time.sleep(due - now)
        t0 = time.perf_counter()
        status, _ = c.call("GET", f"/schemas/ids/{ids[n % len(ids)]}")
        lat.append((time.perf_counter() - t0) * 1000)
        if status != 200:
            return lat, n, f"status {status}"
        n += 1
    return lat, n, None


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def rss_mb(pid: int) -> float:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def registry_props(port: int) -> dict:
    return {"schema.registry.listeners": f"http://127.0.0.1:{port}", "num.partitions": "1"}


def measure_service(a, report: Report) -> list[list[str]]:
    work = brokers.scratch("skiff-bench-sr-")
    port = free_port()
    rows = []
    try:
        with brokers.running(brokers.Skiff(work, a.skiff, props=registry_props(port))) as b:
            brokers.wait_listening(port, b.proc)
            calls = [("POST", f"/subjects/s{i}/versions", {"schema": avro(i)}) for i in range(a.register)]
            secs, lat = timed_calls(port, calls)
            rows.append(["register (POST /subjects/{s}/versions)", f"{a.register / secs:,.0f}",
                         f"{statistics.median(lat):.2f}", f"{pct(lat, 0.99):.2f}"])
            report.run("skiff", {"phase": "register", "n": a.register, "seconds": secs, "p50_ms": statistics.median(lat),
                                 "p99_ms": pct(lat, 0.99)})
            calls = [("POST", f"/subjects/s{i % a.register}", {"schema": avro(i % a.register)}) for i in range(a.lookups)]
            secs, lat = timed_calls(port, calls)
            rows.append(["lookup (POST /subjects/{s})", f"{a.lookups / secs:,.0f}",
                         f"{statistics.median(lat):.2f}", f"{pct(lat, 0.99):.2f}"])
            report.run("skiff", {"phase": "lookup", "n": a.lookups, "seconds": secs, "p50_ms": statistics.median(lat),
                                 "p99_ms": pct(lat, 0.99)})
            ids = list(range(1, a.register + 1))
            procs = 4
            with multiprocessing.Pool(procs) as pool:
                parts = pool.map(paced_gets, [(port, ids, a.rate / procs, a.seconds)] * procs)
            failed = [p[2] for p in parts if p[2]]
            if failed:
                sys.exit(f"bench.schema_registry: GET /schemas/ids: {failed[0]}")
            lat = [x for p in parts for x in p[0]]
            done = sum(p[1] for p in parts)
            rows.append([f"get by id (GET /schemas/ids/{{id}}), paced at {a.rate:,}/s", f"{done / a.seconds:,.0f}",
                         f"{statistics.median(lat):.2f}", f"{pct(lat, 0.99):.2f} (max {max(lat):.1f})"])
            report.run("skiff", {"phase": "get_by_id", "target_rate": a.rate, "done": done, "seconds": a.seconds,
                                 "p50_ms": statistics.median(lat), "p99_ms": pct(lat, 0.99), "max_ms": max(lat)})
            rows.append(["broker RSS after these", f"{rss_mb(b.proc.pid)} MB", "", ""])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return rows


def write_schemas(bootstrap: str, n: int) -> None:
    """`n` SCHEMA records in Confluent's format, straight into `_schemas`."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": bootstrap})  # kept alive until the result
    admin.create_topics([NewTopic("_schemas", 1, 1, config={"cleanup.policy": "compact"})])["_schemas"].result(30)
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "queue.buffering.max.messages": 200000})
    for i in range(n):
        key = json.dumps({"keytype": "SCHEMA", "subject": f"s{i}", "version": 1, "magic": 1}, separators=(",", ":"))
        value = json.dumps({"subject": f"s{i}", "version": 1, "id": i + 1, "schemaType": "AVRO",
                            "schema": avro(i), "deleted": False}, separators=(",", ":"))
        while True:
            try:
                p.produce("_schemas", key=key, value=value)
                break
            except BufferError:
                p.poll(0.1)
    if p.flush(120) != 0:
        sys.exit("bench.schema_registry: _schemas records not all acknowledged")


def measure_replay(a, n: int, report: Report) -> list[str]:
    work = brokers.scratch("skiff-bench-sr-replay-")
    try:
        b = brokers.Skiff(work, a.skiff, props={"schema.registry.listeners": ""})
        with brokers.guarded(b):
            b.started()
            write_schemas(b.bootstrap, n)
            b.stop()
            port = free_port()
            b.props.update(registry_props(port))
            t0 = time.perf_counter()
            b.start()
            b.wait_started()
            started_ms = (time.perf_counter() - t0) * 1000
            time.sleep(1)
            rss = rss_mb(b.proc.pid)
            m = REPLAYED.search(b.output_text())
            if not m or int(m.group(1)) != n:
                sys.exit(f"bench.schema_registry: no replay line for {n} records\n{b.log_tail(5)}")
            status, body = Client(port).call("GET", f"/schemas/ids/{n}")
            if status != 200:
                sys.exit(f"bench.schema_registry: GET /schemas/ids/{n} after replay: {status} {body[:200]!r}")
        replay_ms = float(m.group(2))
        report.run("skiff", {"phase": "replay", "schemas": n, "replay_ms": replay_ms, "start_ms": started_ms,
                             "rss_mb": rss})
        return [f"{n:,}", f"{replay_ms:,.0f}", f"{started_ms:,.0f}", f"{rss}"]
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--register", type=int, default=2000)
    ap.add_argument("--lookups", type=int, default=20000)
    ap.add_argument("--rate", type=int, default=10000)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--replay", default="10000,100000")
    ap.add_argument("--smoke", action="store_true", help="small counts: checks the benchmark works")
    brokers.add_build_args(ap)
    add_out_arg(ap)
    a = ap.parse_args()
    if a.smoke:
        a.register, a.lookups, a.rate, a.seconds, a.replay = 100, 500, 1000, 2.0, "1000"
    brokers.stop_on_sigterm()
    brokers.need(a, "skiff")
    report = Report("schema_registry", a)
    rows = measure_service(a, report)
    report.add(table(["Skiff's Schema Registry", "per second", "p50 ms", "p99 ms"], rows))
    replay_rows = [measure_replay(a, int(n), report) for n in a.replay.split(",") if n]
    report.add(table(["schemas in _schemas", "replay ms (broker's log)", "start to 'started in' ms",
                      "RSS after start MB"], replay_rows))
    report.finish()


if __name__ == "__main__":
    main()
