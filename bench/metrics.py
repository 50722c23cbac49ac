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

  python3 -m bench.metrics [--rounds 3] [--smoke]
"""
import http.client
import shutil
import statistics
import sys
import time

from bench import brokers, clients
from bench.brokers import Skiff, log
from bench.results import Report, add_out_arg, parser, table

TARGETS = ("skiff", "skiff_rdkafka_bench", "skiff_metrics_bench")


def produce_runs(args, broker):
    t = f"p{time.monotonic_ns()}"
    big = clients.rd_produce(args.rdkafka_bench, broker.bootstrap, t, args.records, 100, "1", args.client_timeout)
    cpu0 = broker.cpu_seconds()
    r = clients.rdkafka(args.rdkafka_bench, "produce", broker.bootstrap, t + "s", args.client_timeout, "--records",
                        str(args.small_records), "--size", "100", "--acks", "1", "--set", "batch.num.messages=1",
                        "--set", "linger.ms=0")
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


def skiff(args, work, **props):
    return brokers.running(Skiff(work, args.skiff, props=props))


def scrape_run(args, work, per_partition):
    with skiff(args, work, **{"num.partitions": args.partitions,
                              "skiff.metrics.partition.series.enable": str(per_partition).lower()}) as b:
        brokers.wait_listening(b.http_port, b.proc)
        # auto-created with --partitions partitions
        clients.rd_produce(args.rdkafka_bench, b.bootstrap, "wide", 1000, 100, "1", args.client_timeout)
        times, size = [], 0
        for _ in range(args.scrapes):
            ms, size = scrape_once(b.http_port)
            times.append(ms)
        return {"p50_ms": statistics.median(times), "max_ms": max(times), "bytes": size}


def main():
    p = parser(__doc__)
    p.add_argument("--rdkafka-bench", help="skiff_rdkafka_bench (default: in BUILD_DIR/tests/bench)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--records", type=int, default=2_000_000)
    p.add_argument("--small-records", type=int, default=100_000)
    p.add_argument("--partitions", type=int, default=10_000)
    p.add_argument("--scrapes", type=int, default=20)
    p.add_argument("--client-timeout", type=float, default=300)
    p.add_argument("--smoke", action="store_true", help="tiny loads: checks the benchmark works")
    brokers.add_build_args(p)
    add_out_arg(p)
    args = p.parse_args()
    if args.smoke:
        args.rounds, args.records, args.small_records, args.partitions, args.scrapes = 1, 20_000, 2_000, 100, 3
    brokers.stop_on_sigterm()
    brokers.need(args, *TARGETS)
    args.rdkafka_bench = args.rdkafka_bench or brokers.tool(args, "skiff_rdkafka_bench")
    report = Report("metrics", args)
    work = brokers.scratch("bench-metrics-")
    try:
        for r in range(args.rounds):
            for mode in (("on", "off") if r % 2 == 0 else ("off", "on")):
                with skiff(args, work, **{"skiff.metrics.requests.enable": str(mode == "on").lower()}) as b:
                    report.run(f"skiff, metrics {mode}", produce_runs(args, b), r + 1)
                log(f"round {r + 1} metrics {mode}: {report.runs[-1]['results']}")
        rows = []
        for key in ("mb_per_s", "requests_per_s", "broker_cpu_us_per_request"):
            on = statistics.median(x[key] for x in report.by_broker("skiff, metrics on"))
            off = statistics.median(x[key] for x in report.by_broker("skiff, metrics off"))
            rows.append([key, f"{on:.1f}", f"{off:.1f}", f"{on / off:.3f}"])
        report.add(table(["medians over rounds", "metrics on", "off", "on/off"], rows))
        micro = clients.run_client([brokers.tool(args, "skiff_metrics_bench")], args.client_timeout).strip()
        report.run("skiff_metrics_bench", {"output": micro})
        report.add(f"metrics calls per request (skiff_metrics_bench): {micro}")
        rows = []
        for per_partition in (True, False):
            s = report.run(f"skiff, per-partition series {'on' if per_partition else 'off'}",
                           scrape_run(args, work, per_partition))
            rows.append(["on" if per_partition else "off", f"{s['p50_ms']:.1f}", f"{s['max_ms']:.1f}", s["bytes"]])
        report.add(table([f"/metrics, {args.partitions} partitions: per-partition series", "p50 ms", "max ms",
                          "bytes"], rows))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    sys.exit(main())
