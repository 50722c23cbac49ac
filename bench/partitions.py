"""Many partitions (not a test): for each partition count, under an
RLIMIT_NOFILE of --nofile (default 20000), a fresh broker
  1. creates the partitions (topics of 1,000 partitions, one CreateTopics
     request each) and produces one record to every partition;
  2. is stopped cleanly and started again: startup time (exec to the
     "started in" line) and RSS after startup;
  3. takes --produces single-record acks=1 Produce requests, one at a time,
     each to a random partition: latency p50/p99/max; RSS after.
One table row per count. Each count runs in its own temp dir under
--bench-dir (default /var/tmp), removed afterwards. On a disk, creating
partitions is fsync-bound (about 11 ms each on the development VM: 100,000
would take ~20 minutes); --bench-dir /dev/shm measures the broker itself and
runs 10k + 100k in about a minute. Driver: skiff_partitions_bench.

  python3 -m bench.partitions [--smoke] [COUNT...]        (default: 10000 100000)
  (--skiff BIN: another skiff binary, e.g. an older build, to compare)
"""
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from bench import brokers
from bench.brokers import Skiff, log
from bench.clients import run_client
from bench.results import Report, add_out_arg, parser, table

PER_TOPIC = 1000


def timed_start(b):
    t0 = time.monotonic()
    b.start()
    b.wait_started(600)
    return round((time.monotonic() - t0) * 1000)


def one_count(args, n):
    topics = (n + PER_TOPIC - 1) // PER_TOPIC
    driver = brokers.tool(args, "skiff_partitions_bench")
    work = Path(tempfile.mkdtemp(prefix="skiff-partitions-", dir=args.bench_dir))
    b = Skiff(work, args.skiff, props={"auto.create.topics.enable": "false"}, nofile=args.nofile)
    try:
        timed_start(b)
        budget = next((line.split("descriptor budget:")[1].split()[0].strip(",;)") for line in
                       b.output_text().splitlines() if "descriptor budget:" in line), "-")
        try:
            created = json.loads(run_client([driver, "127.0.0.1", b.port, "create", topics, PER_TOPIC], 3600))
        except RuntimeError as e:
            err = next((line for line in b.output_text().splitlines()
                        if "too many open files" in line.lower() or "error" in line.lower()), "")[:120]
            return {"partitions": n, "failed": f"{str(e).splitlines()[0][:200]} {err}"}
        b.stop()
        start_ms = timed_start(b)
        rss1 = b.rss_mb()
        prod = json.loads(run_client([driver, "127.0.0.1", b.port, "produce", topics, PER_TOPIC, args.produces],
                                     3600))
        return {"partitions": n, "create_fill_s": round(created["create_s"] + created["fill_s"], 2),
                "startup_ms": start_ms, "rss_after_start_mb": rss1, "produce": prod,
                "rss_after_produce_mb": b.rss_mb(), "descriptor_budget": budget}
    finally:
        b.stop()
        shutil.rmtree(work, ignore_errors=True)


def main():
    p = parser(__doc__)
    p.add_argument("counts", nargs="*", type=int, default=[10000, 100000])
    p.add_argument("--nofile", type=int, default=int(os.environ.get("NOFILE", 20000)))
    p.add_argument("--produces", type=int, default=int(os.environ.get("PRODUCES", 5000)))
    p.add_argument("--bench-dir", default=os.environ.get("BENCH_DIR", "/var/tmp"))
    p.add_argument("--smoke", action="store_true", help="2,000 partitions, 500 produces: checks the benchmark works")
    brokers.add_build_args(p)
    add_out_arg(p)
    args = p.parse_args()
    if args.smoke:
        args.counts, args.produces = [2000], 500
    brokers.stop_on_sigterm()
    brokers.need(args, "skiff", "skiff_partitions_bench")
    report = Report("partitions", args)
    report.add(f"skiff: {args.skiff}; RLIMIT_NOFILE {args.nofile}; {args.produces} produce requests")
    rows = []
    for n in args.counts:
        r = report.run("skiff", one_count(args, n))
        log(f"{n} partitions: {r}")
        if "failed" in r:
            rows.append([str(n), "failed", "", "", "", "", "", "", r["failed"]])
            continue
        prod = r["produce"]
        rows.append([str(n), str(r["create_fill_s"]), str(r["startup_ms"]), str(r["rss_after_start_mb"]),
                     str(prod["p50_us"]), str(prod["p99_us"]), str(prod["max_us"]), str(r["rss_after_produce_mb"]),
                     f"budget {r['descriptor_budget']}, failed {prod['failed']}"])
    report.add(table(["partitions", "create+fill s", "startup ms", "RSS after start MB", "produce p50 us", "p99 us",
                      "max us", "RSS after produce MB", "notes"], rows))
    report.finish()
    return 1 if any("failed" in r["results"] for r in report.runs) else 0


if __name__ == "__main__":
    sys.exit(main())
