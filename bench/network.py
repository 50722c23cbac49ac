"""The broker's foundation: time from exec to listening, idle RSS, and
requests/s through the whole request path (ApiVersions, the cheapest API)
with --connections connections, one request outstanding each
(skiff_request_bench, two client threads). Not a test; bounded in time,
loopback only.

  python3 -m bench.network [--smoke] [--seconds 5] [--connections 100]
"""
import re
import shutil
import sys
import time

from bench import brokers
from bench.brokers import Skiff, log
from bench.clients import run_client
from bench.results import Report, add_out_arg, parser, table


def main():
    p = parser(__doc__)
    p.add_argument("--seconds", type=float, default=5)
    p.add_argument("--connections", type=int, default=100)
    p.add_argument("--smoke", action="store_true", help="1 s, 10 connections: checks the benchmark works")
    brokers.add_build_args(p)
    add_out_arg(p)
    args = p.parse_args()
    if args.smoke:
        args.seconds, args.connections = 1, 10
    brokers.stop_on_sigterm()
    brokers.need(args, "skiff", "skiff_request_bench")
    report = Report("network", args)
    work = brokers.scratch("bench-network-")
    try:
        b = Skiff(work, args.skiff)
        t0 = time.monotonic()
        b.start()
        try:
            brokers.wait_listening(b.port, b.proc, timeout=60, interval=0.0005)  # the figure includes the polling
            listening_us = (time.monotonic() - t0) * 1e6
            b.wait_started(60)
            reported = re.search(r"started in ([0-9.]+) ms", b.output_text())
            time.sleep(1)
            idle_rss = b.rss_mb()
            cpu0 = b.cpu_seconds()
            out = run_client([brokers.tool(args, "skiff_request_bench"), "127.0.0.1", b.port, args.connections,
                              args.seconds, 2], args.seconds + 120).strip()
            log(out)
            cpu = b.cpu_seconds() - cpu0
            rps = float(re.search(r"= ([0-9.]+) requests/s", out).group(1))
            r = report.run("skiff", {"exec_to_listening_us": round(listening_us),
                                     "broker_reported_start_ms": float(reported.group(1)) if reported else None,
                                     "idle_rss_mb": idle_rss, "requests_per_s": rps, "request_bench": out,
                                     "broker_cpu_s": round(cpu, 2), "rss_after_load_mb": b.rss_mb()})
        finally:
            rc = b.stop()
        r["exit_on_sigterm"] = rc
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.add(table(["exec to listening µs (with polling)", "broker reports ms", "idle RSS MB",
                      f"requests/s, {args.connections} connections", "broker CPU s", "RSS after load MB",
                      "exit on SIGTERM"],
                     [[str(r["exec_to_listening_us"]), str(r["broker_reported_start_ms"]), str(r["idle_rss_mb"]),
                       f"{r['requests_per_s']:,.0f}", str(r["broker_cpu_s"]), str(r["rss_after_load_mb"]),
                       str(rc)]]))
    report.finish()
    return 0 if rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
