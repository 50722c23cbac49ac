#!/usr/bin/env python3
"""What Skiff's metrics cost: the same broker binary with request and topic
metrics on and off (skiff.metrics.requests.enable), alternating over rounds,
and how long /metrics takes to scrape with many partitions. Not a test;
loopback only; every step bounded (--client-timeout).

  produce      --records 100 B records, acks=1, librdkafka's batching: MB/s
  one-record   --small-records one-record requests (batch.num.messages=1,
               linger.ms=0): requests/s and the broker's CPU per request
  scrape       one topic of --partitions partitions, per-partition series on
               and off: /metrics size and p50/max time over --scrapes scrapes
  per request  skiff_metrics_bench: the metrics calls one produce makes, in ns,
               on one thread and on two at once (the whole-broker rows above
               vary more from run to run than the metrics can cost)

Kafka has no built-in Prometheus endpoint (it needs the JMX exporter agent),
so there is no Kafka column here.

  scripts/bench_metrics.py [--rounds 3] [--smoke]

Needs build/skiff, build/tests/bench/skiff_rdkafka_bench and
skiff_metrics_bench (cmake --build build --target skiff skiff_rdkafka_bench
skiff_metrics_bench)."""
import argparse
import http.client
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_vs_kafka as bvk  # noqa: E402  (the broker processes and client runner)
from bench_tls import wait_port  # noqa: E402


class Skiff(bvk.Skiff):
    overrides: dict = {}

    def command(self):
        extra = [a for k, v in self.overrides.items() for a in ("--override", f"{k}={v}")]
        return super().command() + ["--override", f"http.listeners=http://127.0.0.1:{self.http}"] + extra


def started(args, work, **overrides):
    b = Skiff(args, work)
    b.http = bvk.free_port()
    b.overrides = overrides
    b.start()
    wait_port(b.port, b.proc)
    wait_port(b.http, b.proc)
    return b


def produce_runs(args, broker):
    t = f"p{time.monotonic_ns()}"
    big = bvk.rd_produce(args, broker, t, args.records, 100, "1")
    cpu0 = broker.cpu_seconds()
    r = bvk.rdkafka(args, "produce", broker, t + "s", "--records", str(args.small_records), "--size", "100",
                    "--acks", "1", "--set", "batch.num.messages=1", "--set", "linger.ms=0")
    cpu = broker.cpu_seconds() - cpu0
    return {"mb_per_s": big["mb_per_s"], "requests_per_s": r["records_per_s"],
            "broker_cpu_us_per_request": cpu / max(1, r["records"]) * 1e6}


def scrape_once(port):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    t0 = time.monotonic()
    conn.request("GET", "/metrics")
    r = conn.getresponse()
    body = r.read()
    elapsed = time.monotonic() - t0
    conn.close()
    if r.status != 200:
        raise RuntimeError(f"/metrics answered {r.status}")
    return elapsed * 1000, len(body)


def scrape_run(args, work, per_partition):
    b = started(args, work, **{"num.partitions": args.partitions,
                               "skiff.metrics.partition.series.enable": str(per_partition).lower()})
    try:
        bvk.rd_produce(args, b, "wide", 1000, 100, "1")  # auto-created with --partitions partitions
        times, size = [], 0
        for _ in range(args.scrapes):
            ms, size = scrape_once(b.http)
            times.append(ms)
        return {"p50_ms": statistics.median(times), "max_ms": max(times), "bytes": size}
    finally:
        b.stop()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--skiff", type=Path, default=bvk.ROOT / "build" / "skiff")
    p.add_argument("--rdkafka-bench", type=Path, default=bvk.ROOT / "build" / "tests" / "bench" / "skiff_rdkafka_bench")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--records", type=int, default=2_000_000)
    p.add_argument("--small-records", type=int, default=100_000)
    p.add_argument("--partitions", type=int, default=10_000)
    p.add_argument("--scrapes", type=int, default=20)
    p.add_argument("--client-timeout", type=float, default=300)
    p.add_argument("--smoke", action="store_true", help="tiny loads: checks the script works")
    args = p.parse_args()
    if args.smoke:
        args.rounds, args.records, args.small_records, args.partitions, args.scrapes = 1, 20_000, 2_000, 100, 3
    work = Path(tempfile.mkdtemp(prefix="bench-metrics-"))
    runs = {"on": [], "off": []}
    for r in range(args.rounds):
        for mode in (("on", "off") if r % 2 == 0 else ("off", "on")):
            b = started(args, work, **{"skiff.metrics.requests.enable": str(mode == "on").lower()})
            try:
                runs[mode].append(produce_runs(args, b))
            finally:
                b.stop()
            bvk.log(f"round {r + 1} metrics {mode}: {runs[mode][-1]}")
    for key in ("mb_per_s", "requests_per_s", "broker_cpu_us_per_request"):
        on = statistics.median(x[key] for x in runs["on"])
        off = statistics.median(x[key] for x in runs["off"])
        print(f"{key:28s} on {on:10.1f}  off {off:10.1f}  on/off {on / off:.3f}")
    micro = bvk.run_client([str(args.rdkafka_bench.parent / "skiff_metrics_bench")], args.client_timeout)
    print(f"metrics calls per request: {micro.strip()}")
    for per_partition in (True, False):
        s = scrape_run(args, work, per_partition)
        print(f"/metrics, {args.partitions} partitions, per-partition series {'on ' if per_partition else 'off'}: "
              f"p50 {s['p50_ms']:.1f} ms, max {s['max_ms']:.1f} ms, {s['bytes']} bytes")


if __name__ == "__main__":
    main()
