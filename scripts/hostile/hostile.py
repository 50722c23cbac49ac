"""Hostile-input script: attacks the real skiff binary and checks after each
attack that the broker process is alive and a normal client (kcat) still
produces and consumes. See scripts/hostile.sh for usage.

Attacks: fuzz (random bytes, mutated valid requests), oversized (frame sizes
out of range, many max-size frames), slowloris (frames dribbled a byte at a
time: the broker keeps serving others and drops them after
connections.max.idle.ms), descriptors (accept at a lowered RLIMIT_NOFILE),
diskfull (a broker on a full tmpfs; needs root: skipped without, failed
under CI=true). Exit status: 1 when an attack failed, else 77 when one was
skipped, else 0.
"""
import argparse
import os
import shutil
import sys
import tempfile
import time

import attacks
import diskfull
from broker import Broker

NETWORK_ATTACKS = ["fuzz", "oversized", "slowloris", "descriptors"]
ALL = NETWORK_ATTACKS + ["diskfull"]
MAX_FRAME = 1 << 20


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--skiff", default=os.environ.get("SKIFF_BINARY"), help="the skiff binary")
    p.add_argument("--long", action="store_true", help="more cases and longer attacks (for humans)")
    p.add_argument("--only", default="", help="comma-separated attacks to run (default: all)")
    p.add_argument("--skip", default="", help="comma-separated attacks to leave out")
    p.add_argument("--seed", type=int, default=int(time.time()), help="fuzz seed (printed, to replay)")
    opts = p.parse_args()
    if not opts.skiff:
        p.error("--skiff or SKIFF_BINARY is required")
    chosen = [a for a in (opts.only.split(",") if opts.only else ALL) if a]
    unknown = [a for a in chosen + opts.skip.split(",") if a and a not in ALL]
    if unknown:
        p.error("unknown attack(s): %s (known: %s)" % (", ".join(unknown), ", ".join(ALL)))
    opts.attacks = [a for a in chosen if a not in opts.skip.split(",")]
    opts.max_frame = MAX_FRAME
    return opts


def run_network_attack(name, opts, workdir):
    overrides = ["socket.request.max.bytes=%d" % MAX_FRAME, "queued.max.request.bytes=%d" % (4 * MAX_FRAME),
                 "connections.max.idle.ms=2000"]
    broker = Broker(opts.skiff, os.path.join(workdir, name), overrides)
    try:
        failures = getattr(attacks, name)(broker, opts)
        if not broker.alive():
            return failures + ["broker process died (exit %s)" % broker.proc.returncode]
        err = broker.check_clients()
        if err:
            failures.append("after the attack: " + err)
        return failures
    finally:
        code = broker.stop()
        if code != 0:
            print("  (broker exit code %s on SIGTERM)" % code)


def main():
    opts = parse_args()
    print("hostile: %s mode, attacks %s, seed %d" % ("long" if opts.long else "short", ",".join(opts.attacks),
                                                     opts.seed))
    workdir = tempfile.mkdtemp(prefix="skiff-hostile-")
    failed = skipped = 0
    try:
        for name in opts.attacks:
            started = time.time()
            if name == "diskfull":
                failures = diskfull.diskfull(opts.skiff, workdir, opts)
                if failures is None:
                    print("%-12s SKIPPED" % name)
                    skipped += 1
                    continue
            else:
                failures = run_network_attack(name, opts, workdir)
            status = "FAILED" if failures else "ok"
            print("%-12s %s (%.1f s)" % (name, status, time.time() - started))
            for f in failures:
                print("  - " + f)
            failed += bool(failures)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print("hostile: %d of %d attacks failed, %d skipped" % (failed, len(opts.attacks), skipped))
    return 1 if failed else 77 if skipped else 0  # 77: ctest's SKIP_RETURN_CODE


if __name__ == "__main__":
    sys.exit(main())
