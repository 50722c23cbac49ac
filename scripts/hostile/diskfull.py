"""The full-disk attack: a broker whose log dir is on a small tmpfs that is
filled up must still start, say plainly that the disk is full, serve Metadata
and Fetch, answer Produce with KAFKA_STORAGE_ERROR, and accept produce again
once space returns. Needs mount(8) rights (root); when the mount is refused,
diskfull() returns None (skipped, with a message), or a failure under CI=true.
"""
import os
import signal
import subprocess
import time

import wire
from broker import Broker, kcat, produce_and_consume

TOPIC = "diskfull"


def _mount(mnt):
    os.makedirs(mnt, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mnt], capture_output=True)
    return r.returncode == 0, r.stderr.decode(errors="replace").strip()


def _fill(mnt):
    with open(os.path.join(mnt, "ballast"), "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError:
            pass


def _out(mnt):
    """The broker's output goes next to the mount, not onto the full disk."""
    return mnt.rstrip("/") + ".out"


def _seed(binary, data, stop_signal):
    b = Broker(binary, data, out_path=_out(os.path.dirname(data)))
    try:
        lines = "".join("record-%d\n" % i for i in range(5)).encode()
        p = kcat(b.port, ["-P", "-t", TOPIC, "-p", "0"], lines)
        if p.returncode != 0:
            return "seeding failed: " + p.stderr.decode(errors="replace")
    finally:
        b.stop(stop_signal)
    return None


def _eventually(fn, want, seconds=10.0):
    deadline, got = time.time() + seconds, None
    while time.time() < deadline:
        got = fn()
        if got == want:
            return got
        time.sleep(0.2)
    return got


def _full_disk_round(binary, mnt, stop_signal):
    data = os.path.join(mnt, "data")
    err = _seed(binary, data, stop_signal)
    if err:
        return [err]
    _fill(mnt)
    try:
        b = Broker(binary, data, out_path=_out(mnt))
    except RuntimeError as e:
        return ["broker did not start on a full disk: " + str(e)[-1500:]]
    failures = []
    try:
        if "disk full (no space left on device)" not in b.output():
            failures.append("no plain 'disk full' line naming the log dir in the broker's output")
        if os.path.exists(os.path.join(data, ".skiff-write-test")):
            failures.append(".skiff-write-test left behind")
        if wire.metadata_topic_error(b.port, TOPIC) != 0:
            failures.append("Metadata does not serve the topic")
        if wire.fetch_record_count(b.port, TOPIC, 0) != (0, 5):
            failures.append("Fetch: %s, wanted (0, 5)" % (wire.fetch_record_count(b.port, TOPIC, 0),))
        code = wire.produce_error(b.port, TOPIC, 0, [b"x" * 8000] * 64)
        if code != wire.KAFKA_STORAGE_ERROR:
            failures.append("Produce on a full disk answered %d, wanted KAFKA_STORAGE_ERROR (56)" % code)
        os.remove(os.path.join(mnt, "ballast"))
        code = _eventually(lambda: wire.produce_error(b.port, TOPIC, 0, [b"after"]), 0)
        if code != 0:
            failures.append("Produce after space returned answered %d" % code)
        err = produce_and_consume(b.port)
        if err:
            failures.append("after space returned: " + err)
        if not b.alive():
            failures.append("broker died")
    finally:
        b.stop()
    return failures


def _fresh_dir_round(binary, mnt):
    """A log dir never used before, on a disk already full: start, then work once space returns."""
    _fill(mnt)
    try:
        b = Broker(binary, os.path.join(mnt, "fresh"), out_path=_out(mnt))
    except RuntimeError as e:
        return ["broker did not start with a fresh log dir on a full disk: " + str(e)[-1500:]]
    try:
        failures = [] if "disk full" in b.output() else ["no 'disk full' line for a fresh log dir"]
        os.remove(os.path.join(mnt, "ballast"))
        err = produce_and_consume(b.port)
        return failures + (["fresh dir, after space returned: " + err] if err else [])
    finally:
        b.stop()


def _read_only_round(binary, mnt):
    """Not writable is not full: a read-only log dir still exits 1, saying why."""
    os.makedirs(os.path.join(mnt, "ro"), exist_ok=True)
    if subprocess.run(["mount", "-o", "remount,ro", mnt], capture_output=True).returncode != 0:
        print("  (read-only round skipped: cannot remount read-only)")
        return []
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SKIFF_")}
        r = subprocess.run([binary, "--override", "listeners=PLAINTEXT://127.0.0.1:0", "--override",
                            "log.dirs=" + os.path.join(mnt, "ro")], capture_output=True, timeout=20, env=env)
        out = (r.stdout + r.stderr).decode(errors="replace")
        if r.returncode != 1 or "not writable" not in out or "Read-only" not in out:
            return ["read-only log dir: exit %d, wanted 1 with 'not writable: Read-only ...': %s"
                    % (r.returncode, out[-500:])]
        return []
    finally:
        subprocess.run(["mount", "-o", "remount,rw", mnt], capture_output=True)


def diskfull(binary, workdir, opts):
    mnt = os.path.join(workdir, "tmpfs")
    ok, why = _mount(mnt)
    if not ok:
        if os.environ.get("CI") == "true":
            return ["cannot mount a tmpfs (%s): CI=true runs as root, so this is a failure, not a skip" % why]
        print("  SKIPPED full disk: cannot mount a tmpfs (%s); needs root" % why)
        return None
    failures = []
    try:
        rounds = [signal.SIGTERM, signal.SIGKILL] if opts.long else [signal.SIGKILL]
        for sig in rounds:
            for f in _full_disk_round(binary, mnt, sig):
                failures.append("after %s: %s" % (signal.Signals(sig).name, f))
            subprocess.run(["rm", "-rf", os.path.join(mnt, "data"), os.path.join(mnt, "ballast")])
        failures += _fresh_dir_round(binary, mnt)
        failures += _read_only_round(binary, mnt)
    finally:
        subprocess.run(["umount", "-l", mnt], capture_output=True)
    return failures
