"""Log cleaner benchmark (issue 16; a measurement, not a test).

  ~/.cache/skiff/compat/venv/bin/python -m bench.compaction [--broker skiff|kafka] [--mb 200] [--keys 50000]
                                                           [--value 1000] [--smoke]

Starts the broker on loopback (bench.brokers: skiff or Apache Kafka), with its
default dedupe buffer (128 MiB) and log.cleaner.backoff.ms=1000, then:
  1. produce latency with the cleaner idle: 3000 one-at-a-time produces (acks=all,
     200-byte values) to topic `lat`: p50/p99;
  2. writes --mb MB of updates over --keys keys to topic `cmp` (cleanup.policy
     delete, 8 MiB segments), then switches it to compact with
     IncrementalAlterConfigs: the cleaner starts on the whole dirty log;
  3. the same produce latency measure while the cleaner runs;
  4. cleaner throughput: MB of dirty log per second, from the broker's own log
     line (skiff: "cleaner: ... MB dirty in S s (X MB/s)"; Kafka: log-cleaner.log
     "MB of log processed in ... (X MB/sec)").
Reports the JSON record of the run and a table. Bounded: every wait has a
deadline. Run with the compat venv's python, which has confluent-kafka
(scripts/install-test-clients.sh confluent_kafka).
"""
from __future__ import annotations

import json
import random
import re
import shutil
import sys
import time

from bench import brokers
from bench.results import Report, add_out_arg, parser, table


def cleanings(broker):
    """[(seconds, MB/s)] of each cleaning the broker logged: skiff's
    "cleaner: ... MB dirty in S s (X MB/s)", Kafka's "MB of log processed in
    S seconds (X MB/sec)"."""
    if isinstance(broker, brokers.Kafka):
        return [(float(m.group(1).replace(",", "")), float(m.group(2).replace(",", ""))) for m in
                re.finditer(r"processed in ([\d.,]+) seconds \(([\d.,]+) MB/sec\)", broker.cleaner_log())]
    return [(float(m.group(1)), float(m.group(2))) for m in
            re.finditer(r"in ([\d.]+) s \(([\d.]+) MB/s\)", broker.output_text())]


_PRODUCER = None


def timed_produces(bootstrap, n):
    """[(end time, latency ms)] of n one-at-a-time produces."""
    global _PRODUCER
    from confluent_kafka import Producer
    if _PRODUCER is None:
        _PRODUCER = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 0})
    p, out, val = _PRODUCER, [], b"x" * 200
    for _ in range(n):
        done = []
        t = time.perf_counter()
        p.produce("lat", value=val, on_delivery=lambda e, m: done.append(e))
        while not done:
            p.poll(0.001)
        assert done[0] is None, done[0]
        end = time.perf_counter()
        out.append((end, (end - t) * 1000))
    return out


def summary(samples):
    out = sorted(l for _, l in samples)
    if not out:
        return {"n": 0}
    return {"n": len(out), "p50_ms": round(out[len(out) // 2], 3), "p99_ms": round(out[int(len(out) * 0.99)], 3)}


def latencies(bootstrap, n=3000):
    return summary(timed_produces(bootstrap, n))


def fill(bootstrap, mb, keys, value):
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.size": 1 << 20, "acks": "1",
                  "queue.buffering.max.kbytes": 1 << 20})
    rng = random.Random(1)
    v = bytes(rng.randrange(97, 123) for _ in range(value))
    n = mb * (1 << 20) // (value + 20)
    for i in range(n):
        while True:
            try:
                p.produce("cmp", key=f"key-{rng.randrange(keys)}".encode(), value=v, partition=0)
                break
            except BufferError:
                p.poll(0.01)
    assert p.flush(300) == 0
    return n


def create_topics(admin):
    from confluent_kafka.admin import NewTopic
    deadline = time.monotonic() + 60
    while True:
        try:
            cmp_config = {"cleanup.policy": "delete", "segment.bytes": str(8 << 20)}
            fs = admin.create_topics([NewTopic("lat", 1, 1), NewTopic("cmp", 1, 1, config=cmp_config)])
            for f in fs.values():
                f.result(30)
            return
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def run(a, b):
    from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource
    bootstrap = b.bootstrap
    admin = AdminClient({"bootstrap.servers": bootstrap})
    create_topics(admin)
    latencies(bootstrap, a.warmup)  # warm-up
    idle = latencies(bootstrap, a.produces)
    n = fill(bootstrap, a.mb, a.keys, a.value)
    before = len(cleanings(b))
    res = ConfigResource(ConfigResource.Type.TOPIC, "cmp", incremental_configs=[
        ConfigEntry("cleanup.policy", "compact", incremental_operation=AlterConfigOpType.SET)])
    for f in admin.incremental_alter_configs([res]).values():
        f.result(30)
    # Produce until the cleaner reports; the samples of its last `secs`
    # seconds are the ones taken while it cleaned.
    samples, deadline = [], time.monotonic() + 600
    while len(cleanings(b)) <= before and time.monotonic() < deadline:
        samples += timed_produces(bootstrap, 50)
    end = time.perf_counter()
    lines = cleanings(b)[before:]
    secs = lines[0][0] if lines else 0
    busy = summary([x for x in samples if x[0] >= end - secs])
    return {"broker": a.broker, "records": n, "mb": a.mb, "keys": a.keys, "idle": idle, "while_cleaning": busy,
            "p99_ratio": round(busy["p99_ms"] / idle["p99_ms"], 2) if busy.get("n") else None,
            "cleanings_s_mb_per_s": lines}


def main():
    ap = parser(__doc__)
    ap.add_argument("--broker", default="skiff", choices=["skiff", "kafka"])
    ap.add_argument("--mb", type=int, default=200)
    ap.add_argument("--keys", type=int, default=50000)
    ap.add_argument("--value", type=int, default=1000)
    ap.add_argument("--smoke", action="store_true", help="10 MB, 300 produces: checks the benchmark works")
    brokers.add_build_args(ap)
    add_out_arg(ap)
    a = ap.parse_args()
    a.warmup, a.produces = 300, 3000
    if a.smoke:
        a.mb, a.warmup, a.produces = 10, 30, 300
    brokers.stop_on_sigterm()
    brokers.need(a, "skiff")
    report = Report("compaction", a)
    work = brokers.scratch("bench-compaction-")
    try:
        with brokers.running(brokers.new(a, a.broker, work, props={"log.cleaner.backoff.ms": "1000"})) as b:
            r = report.run(a.broker, run(a, b))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.add("```json\n" + json.dumps(r) + "\n```")
    cleaned = ", ".join(f"{s:.1f} s at {mbs:.1f} MB/s" for s, mbs in r["cleanings_s_mb_per_s"]) or "none seen"
    report.add(table(["produce latency, acks=all, one at a time", "p50 ms", "p99 ms", "samples"],
                     [[label, str(x.get("p50_ms", "–")), str(x.get("p99_ms", "–")), str(x["n"])]
                      for label, x in (("cleaner idle", r["idle"]), ("while cleaning", r["while_cleaning"]))]))
    report.add(f"{a.broker}: {r['records']} records, {a.mb} MB over {a.keys} keys; cleanings: {cleaned}")
    report.finish()


if __name__ == "__main__":
    sys.exit(main())
