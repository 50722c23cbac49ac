"""Storage benchmarks for log/ (not a test), with skiff_log_bench (a
Release build, by default in build-log/bench) on the filesystem of
--bench-dir (default /var/tmp):
  1. append throughput, 16 KiB batches, vs dd of the same bytes
  2. flush.messages=1 with 1 and 8 concurrent writers (group commit), vs dd
     oflag=dsync
  3. recovery time of an unflushed segment (unclean open), page cache warm
     and dropped
  4. sequential read throughput (Fetch-style reads of 1 MiB), warm and cold
Dropping the page cache needs root outside a container; where it is refused
the "cold" runs are warm too (the report says so).

  python3 -m bench.log [--smoke] [--mb 1024] [--sync-mb 64] [--bench-dir /var/tmp]
"""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench import brokers
from bench.brokers import log
from bench.results import Report, add_out_arg, parser


def main():
    p = parser(__doc__)
    p.add_argument("--mb", type=int, default=int(os.environ.get("BENCH_MB", 1024)))
    p.add_argument("--sync-mb", type=int, default=int(os.environ.get("SYNC_MB", 64)))
    p.add_argument("--bench-dir", default=os.environ.get("BENCH_DIR", "/var/tmp"))
    p.add_argument("--smoke", action="store_true", help="64 MiB, 4 MiB synced: checks the benchmark works")
    brokers.add_build_args(p, binaries=False, default="build-log/bench")
    add_out_arg(p)
    args = p.parse_args()
    if args.smoke:
        args.mb, args.sync_mb = 64, 4
    brokers.stop_on_sigterm()
    brokers.need(args, "skiff_log_bench", cmake_args=("-DCMAKE_BUILD_TYPE=Release",))
    bench = args.build_dir / "log" / "skiff_log_bench"
    report = Report("log", args)
    work = Path(tempfile.mkdtemp(prefix="skiff-bench-", dir=args.bench_dir))
    lines = []

    def say(text):
        log(text)
        lines.append(text)

    def run(name, cmd):
        out = subprocess.run([str(c) for c in cmd], check=True, capture_output=True, text=True, timeout=3600)
        text = (out.stdout + out.stderr).strip().splitlines()[-1] if cmd[0] == "dd" else out.stdout.strip()
        report.run(name, {"output": text})
        say(f"   {text}")

    def drop_caches():
        os.sync()
        try:
            Path("/proc/sys/vm/drop_caches").write_text("3")
        except OSError:
            say("   (drop_caches not permitted: page cache stays warm)")

    try:
        fs = subprocess.run(["df", "-hT", str(work)], capture_output=True, text=True).stdout.splitlines()[-1].split()
        say(f"== filesystem: {fs[0]} {fs[1]}")
        say(f"== 1. append, 16 KiB batches, {args.mb} MiB, flush left to the OS")
        drop_caches()
        run("append", [bench, "append", work / "a-0", args.mb, 16384, 1, 9223372036854775807, 1024])
        say("   dd (same bytes, bs=16k, no sync):")
        drop_caches()
        run("append dd", ["dd", "if=/dev/zero", f"of={work / 'dd.bin'}", "bs=16k", f"count={args.mb * 64}"])
        (work / "dd.bin").unlink()

        say(f"== 2. flush.messages=1, {args.sync_mb} MiB (after sync: no writeback of step 1 in the way)")
        os.sync()
        run("flush 1 writer", [bench, "append", work / "s1-0", args.sync_mb, 16384, 1, 1, 1024])
        run("flush 8 writers", [bench, "append", work / "s8-0", args.sync_mb, 16384, 8, 1, 1024])
        os.sync()
        say("   dd (bs=16k, oflag=dsync: one sync per write):")
        run("flush dd", ["dd", "if=/dev/zero", f"of={work / 'dd.bin'}", "bs=16k", f"count={args.sync_mb * 64}",
                         "oflag=dsync"])
        (work / "dd.bin").unlink()

        say(f"== 3. recovery of a {args.mb} MiB unflushed segment (unclean open, page cache warm)")
        run("recover warm", [bench, "recover", work / "a-0"])
        say("== 3b. same, page cache dropped (if permitted)")
        drop_caches()
        run("recover cold", [bench, "recover", work / "a-0"])

        say("== 4. sequential read, 1 MiB reads")
        run("read warm", [bench, "read", work / "a-0", 1048576])
        drop_caches()
        say("   cold cache:")
        run("read cold", [bench, "read", work / "a-0", 1048576])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.add("```\n" + "\n".join(lines) + "\n```")
    report.finish()


if __name__ == "__main__":
    sys.exit(main())
