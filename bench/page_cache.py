"""Where a segment write's time goes: the ways a log could put bytes in a file,
each writing the same amount in the same chunk size, timed for wall clock and
CPU (issue 22's page-cache question; the decision is in log/README.md).
Not a test: bounded (a few GiB of writes), local files only.

  append      a new file, written sequentially: what Skiff's segments do
              (every 4 KiB page is a page-cache page allocated, zeroed where
              partial, and copied into).
  fallocate   the same after posix_fallocate of the whole file (the blocks
              exist; the page-cache pages do not).
  overwrite   the file was written once before (untimed), so every page is
              in the page cache already: the most "reusing pages" can give.
  pretouch    the untimed first pass of overwrite, timed: what preparing
              the pages ahead costs, wherever it is done.
  direct      O_DIRECT writes from an aligned buffer: no page cache at all
              (the tail would then be read from a cache of our own, as
              Redpanda's batch cache).

  python3 -m bench.page_cache [--smoke] [--dir D] [--gib 2] [--chunk-kib 64] [--rounds 3]
"""
import mmap
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.brokers import ROOT, add_build_args, log
from bench.results import Report, add_out_arg, parser, table


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def write_file(path, total, chunk, flags=0, buf=None):
    """Writes `total` bytes in `chunk`s; returns (wall s, cpu s)."""
    buf = buf if buf is not None else memoryview(b"\x5a" * chunk)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | flags, 0o600)
    try:
        t0, c0 = time.monotonic(), cpu_seconds()
        done = 0
        while done < total:
            done += os.write(fd, buf)
        return time.monotonic() - t0, cpu_seconds() - c0
    finally:
        os.close(fd)


def drop(path):
    """Removes the file and waits for its dirty pages to be gone from the count."""
    if path.exists():
        fd = os.open(path, os.O_RDONLY)
        os.fdatasync(fd)
        os.close(fd)
        path.unlink()


def one_round(d, total, chunk):
    f = d / "segment"
    out = {}
    out["append"] = write_file(f, total, chunk)
    drop(f)

    fd = os.open(f, os.O_WRONLY | os.O_CREAT, 0o600)
    os.posix_fallocate(fd, 0, total)
    os.close(fd)
    out["fallocate"] = write_file(f, total, chunk)
    drop(f)

    out["pretouch"] = write_file(f, total, chunk, buf=memoryview(bytes(chunk)))
    out["overwrite"] = write_file(f, total, chunk)
    drop(f)

    aligned = mmap.mmap(-1, chunk)  # page-aligned, as O_DIRECT needs
    aligned.write(b"\x5a" * chunk)
    try:
        out["direct"] = write_file(f, total, chunk, os.O_DIRECT, memoryview(aligned))
    except OSError as e:  # a filesystem without O_DIRECT (tmpfs)
        out["direct"] = None
        log(f"direct: {e}")
    drop(f)
    return out


def main():
    p = parser(__doc__)
    p.add_argument("--dir", type=Path, default=None, help="where to write (default: a temp dir under the repo)")
    p.add_argument("--gib", type=float, default=2)
    p.add_argument("--chunk-kib", type=int, default=64)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--smoke", action="store_true", help="64 MiB, one round: checks the benchmark works")
    add_build_args(p, binaries=False)  # BUILD_DIR/results is where the results go
    add_out_arg(p)
    args = p.parse_args()
    if args.smoke:
        args.gib, args.rounds = 1 / 16, 1
    base = args.dir or ROOT
    total, chunk = int(args.gib * (1 << 30)), args.chunk_kib * 1024
    report = Report("page_cache", args)
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-page-cache-", dir=base) as d:
        for r in range(args.rounds):
            for name, v in one_round(Path(d), total, chunk).items():
                if v:
                    results.setdefault(name, []).append(v)
            log(f"round {r + 1} done")
    rows = []
    for name, runs in results.items():
        report.run(name, {"wall_s": [w for w, _ in runs], "cpu_s": [c for _, c in runs]})
        rates = [total / w / 1e6 for w, _ in runs]
        cpu = statistics.median(c for _, c in runs) / args.gib
        rows.append([name, f"{statistics.median(rates):.0f}", f"{cpu:.2f}", f"{min(rates):.0f}–{max(rates):.0f}"])
    report.add(f"{args.gib} GiB in {args.chunk_kib} KiB writes, medians of {args.rounds}, on {base}")
    report.add(table(["way", "MB/s", "CPU s per GiB", "MB/s range"], rows))
    report.finish()


if __name__ == "__main__":
    sys.exit(main())
