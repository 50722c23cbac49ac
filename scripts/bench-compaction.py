#!/usr/bin/env python3
"""Log cleaner benchmark (issue 16; a measurement, not a test).

  scripts/bench-compaction.py [--broker skiff|kafka] [--mb 200] [--keys 50000] [--value 1000]

Starts the broker on loopback (skiff: build/skiff; kafka: scripts/kafka-broker.sh),
with its default dedupe buffer (128 MiB) and log.cleaner.backoff.ms=1000, then:
  1. produce latency with the cleaner idle: 3000 one-at-a-time produces (acks=all,
     200-byte values) to topic `lat`: p50/p99;
  2. writes --mb MB of updates over --keys keys to topic `cmp` (cleanup.policy
     delete, 8 MiB segments), then switches it to compact with
     IncrementalAlterConfigs: the cleaner starts on the whole dirty log;
  3. the same produce latency measure while the cleaner runs;
  4. cleaner throughput: MB of dirty log per second, from the broker's own log
     line (skiff: "cleaner: ... MB dirty in S s (X MB/s)"; Kafka: log-cleaner.log
     "MB of log processed in ... (X MB/sec)").
Prints one JSON line. Bounded: every wait has a deadline. Run with the compat
venv's python (scripts/install-test-clients.sh confluent_kafka):
  ~/.cache/skiff/compat/venv/bin/python scripts/bench-compaction.py
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
from free_port import free_port  # noqa: E402


class Skiff:
    def __init__(self, d):
        self.d, self.log = d, d / "skiff.log"

    def start(self):
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("SKIFF_")}
        self.out = open(self.log, "wb")
        self.p = subprocess.Popen([str(REPO / "build" / "skiff"), "--override", f"listeners=PLAINTEXT://127.0.0.1:{port}",
                                   "--override", f"log.dirs={self.d / 'data'}", "--override", "log.cleaner.backoff.ms=1000"],
                                  stdout=self.out, stderr=subprocess.STDOUT, env=env, stdin=subprocess.DEVNULL)
        return f"127.0.0.1:{port}"

    def cleaner_lines(self):
        """[(seconds, MB/s)] of each cleaning the broker logged."""
        return [(float(m.group(1)), float(m.group(2))) for m in
                re.finditer(r"in ([\d.]+) s \(([\d.]+) MB/s\)", self.log.read_text(errors="replace"))]

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        self.p.wait(60)


class Kafka:
    def __init__(self, d):
        self.d = d

    def start(self):
        out = subprocess.run([str(REPO / "scripts" / "kafka-broker.sh"), "start", str(self.d / "kafka"), str(free_port()),
                              "log.cleaner.backoff.ms=1000"], capture_output=True, timeout=180, check=True)
        return out.stdout.decode().strip().splitlines()[-1]

    def cleaner_lines(self):
        text = ""
        for f in (self.d / "kafka").rglob("log-cleaner.log*"):
            text += f.read_text(errors="replace")
        if not text:
            for f in (self.d / "kafka").rglob("*.log"):
                if f.is_file() and f.stat().st_size < 50 << 20 and "data" not in f.parts:
                    text += f.read_text(errors="replace")
        return [(float(m.group(1).replace(",", "")), float(m.group(2).replace(",", ""))) for m in
                re.finditer(r"processed in ([\d.,]+) seconds \(([\d.,]+) MB/sec\)", text)]

    def stop(self):
        subprocess.run([str(REPO / "scripts" / "kafka-broker.sh"), "stop", str(self.d / "kafka")], timeout=120)


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--broker", default="skiff", choices=["skiff", "kafka"])
    ap.add_argument("--mb", type=int, default=200)
    ap.add_argument("--keys", type=int, default=50000)
    ap.add_argument("--value", type=int, default=1000)
    a = ap.parse_args()
    from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic
    d = Path(tempfile.mkdtemp(prefix="bench-compaction-"))
    b = Skiff(d) if a.broker == "skiff" else Kafka(d)
    bootstrap = b.start()
    try:
        admin = AdminClient({"bootstrap.servers": bootstrap})
        deadline = time.monotonic() + 60
        while True:
            try:
                fs = admin.create_topics([NewTopic("lat", 1, 1),
                                          NewTopic("cmp", 1, 1, config={"cleanup.policy": "delete",
                                                                         "segment.bytes": str(8 << 20)})])
                for f in fs.values():
                    f.result(30)
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        latencies(bootstrap, 300)  # warm-up
        idle = latencies(bootstrap)
        n = fill(bootstrap, a.mb, a.keys, a.value)
        before = len(b.cleaner_lines())
        res = ConfigResource(ConfigResource.Type.TOPIC, "cmp", incremental_configs=[
            ConfigEntry("cleanup.policy", "compact", incremental_operation=AlterConfigOpType.SET)])
        for f in admin.incremental_alter_configs([res]).values():
            f.result(30)
        # Produce until the cleaner reports; the samples of its last `secs`
        # seconds are the ones taken while it cleaned.
        samples, deadline = [], time.monotonic() + 600
        while len(b.cleaner_lines()) <= before and time.monotonic() < deadline:
            samples += timed_produces(bootstrap, 50)
        end = time.perf_counter()
        lines = b.cleaner_lines()[before:]
        secs = lines[0][0] if lines else 0
        busy = summary([x for x in samples if x[0] >= end - secs])
        print(json.dumps({"broker": a.broker, "records": n, "mb": a.mb, "keys": a.keys, "idle": idle,
                          "while_cleaning": busy,
                          "p99_ratio": round(busy["p99_ms"] / idle["p99_ms"], 2) if busy.get("n") else None,
                          "cleanings_s_mb_per_s": lines}))
    finally:
        b.stop()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
