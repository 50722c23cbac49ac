#!/usr/bin/env python3
"""Broker kill -9 rounds under a transactional workload (scripts/txn-kill9.sh
runs this with the compat venv's Python; ctest runs a short version as
txn_kill9_short).

One broker on one data dir, one transactional.id throughout. Each round:
  1. a producer process (confluent-kafka, `--producer` mode below) runs
     transactions of 1-40 known records over 3 partitions, committing ~70%
     and aborting the rest (only once all its records are acknowledged),
     journaling each step on stdout before doing it;
  2. at a random moment the broker gets SIGKILL, the producer soon after;
  3. the broker restarts on the same data; a new producer with the same
     transactional.id must get through init_transactions (the coordinator
     resumes, the open transaction is aborted) and commit a small marker
     transaction;
  4. a read_committed consumer reads the whole topic, and for every
     transaction of every round so far: a committed one (commit returned)
     is there completely, exactly once; one aborted or never asked to commit
     has no record visible; one whose commit was in flight at the kill is
     all there or not at all. No record appears twice or is unknown.

  txn_kill9.py [--broker skiff|kafka] [--skiff BIN] [--rounds N] [--seed N] [--work DIR]
Exit 0 when every round checks out, 1 with the reason otherwise. Bounded:
every wait has a timeout (a round against skiff takes ~10 s)."""
from __future__ import annotations

import argparse
import collections
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
TOPIC, PARTS = "txn-kill9", 3
INIT_TIMEOUT = 30  # seconds for init_transactions after a restart


def say(**ev):
    print(json.dumps(ev), flush=True)


def run_producer(bootstrap, tid, rnd, seed):
    """The workload: transactions until an error (the broker is killed)."""
    from confluent_kafka import KafkaException, Producer
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": tid, "transaction.timeout.ms": 10000,
                  "message.timeout.ms": 5000, "linger.ms": 2, "reconnect.backoff.max.ms": 500})
    t = 0
    try:
        p.init_transactions(INIT_TIMEOUT)
        say(ev="ready")
        rng = random.Random(seed)
        while True:
            n, commit = rng.randint(1, 40), rng.random() < 0.7
            say(ev="begin", t=t, n=n)
            p.begin_transaction()
            acked = []
            for i in range(n):
                p.produce(TOPIC, value=f"R{rnd}-T{t}-I{i}-N{n}".encode(), partition=i % PARTS,
                          on_delivery=lambda err, msg: acked.append(err is None))
            if commit:
                say(ev="commit_start", t=t)
                p.commit_transaction(5)
                say(ev="commit_ok", t=t)
            else:
                # Abort only once every record is acknowledged: a produce
                # still in flight when EndTxn(abort) is answered could land
                # after the markers (the version 1 path's known hazard, which
                # KIP-890 closes); stopping here instead leaves it to the
                # next producer's epoch bump, which fences such a produce.
                pending = p.flush(5)
                if pending or not all(acked):
                    say(ev="error", t=t, msg=f"{pending} records unacknowledged before the abort: stopping")
                    return
                say(ev="abort_start", t=t)
                p.abort_transaction(5)
                say(ev="abort_ok", t=t)
            t += 1
    except KafkaException as e:
        say(ev="error", t=t, msg=str(e))


class Journal:
    """What the producers said, per (round, txn): n and the last step."""

    def __init__(self):
        self.txns: dict[tuple[int, int], dict] = {}

    def add(self, rnd, ev):
        if "t" in ev and ev["ev"] != "error":
            tx = self.txns.setdefault((rnd, ev["t"]), {"n": ev.get("n"), "steps": []})
            tx["steps"].append(ev["ev"])

    def expect(self, key) -> str:
        steps = self.txns[key]["steps"]
        if "commit_ok" in steps:
            return "all"
        if "commit_start" in steps:
            return "all-or-nothing"
        return "none"  # aborted, or never asked to commit


def check(journal: Journal, visible: list[tuple[int, int, bytes]], resumes: list[int]) -> list[str]:
    problems = []
    counts = collections.Counter(v for _, _, v in visible)
    dup = [v for v, c in counts.items() if c > 1]
    if dup:
        problems.append(f"{len(dup)} records visible more than once, e.g. {dup[:3]}")
    seen: dict[tuple[int, int], set[int]] = collections.defaultdict(set)
    where = {v: (p, o) for p, o, v in visible}
    for v in counts:
        r, t, i, n = v.decode().split("-")
        if t == "resume":
            continue
        key = (int(r[1:]), int(t[1:]))
        if key not in journal.txns:
            problems.append(f"record {v!r} of a transaction no producer began")
            continue
        seen[key].add(int(i[1:]))
    for key, tx in journal.txns.items():
        want, got, n = journal.expect(key), len(seen.get(key, ())), tx["n"]
        ok = {"all": got == n, "none": got == 0, "all-or-nothing": got in (0, n)}[want]
        if not ok:
            at = sorted(where[f"R{key[0]}-T{key[1]}-I{i}-N{n}".encode()] for i in seen.get(key, ()))
            problems.append(f"round {key[0]} txn {key[1]} (steps {tx['steps']}): {got} of {n} records "
                            f"visible to read_committed, expected {want}; at (partition, offset) {at[:6]}...")
    for r in resumes:
        if sum(1 for v in counts if v.startswith(f"R{r}-resume-".encode())) != 2:
            problems.append(f"round {r}: the marker transaction committed after the restart is not there")
    return problems


def resume(bootstrap, tid, rnd):
    """A new producer with the same transactional.id after the restart."""
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": tid, "transaction.timeout.ms": 10000,
                  "message.timeout.ms": 10000})
    t0 = time.monotonic()
    p.init_transactions(INIT_TIMEOUT)
    p.begin_transaction()
    for i in range(2):
        p.produce(TOPIC, value=f"R{rnd}-resume-I{i}-N2".encode(), partition=i)
    p.commit_transaction(15)
    return time.monotonic() - t0


def make_broker(args, work: Path):
    from harness.broker import KafkaScriptBroker, SkiffBroker
    overrides = {"num.partitions": str(PARTS)}
    if args.broker == "kafka":
        return KafkaScriptBroker(HERE.parents[1] / "scripts" / "kafka-broker.sh", work / "kafka", overrides)
    return SkiffBroker(args.skiff, work / "data", work, overrides)


def round_(args, broker, journal, rnd, rng, tid, log):
    ready = threading.Event()
    events: list[dict] = []
    cmd = [sys.executable, __file__, "--producer", broker.bootstrap, tid, str(rnd), str(rng.randrange(1 << 30))]
    prod = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)

    def read():
        for line in prod.stdout:
            ev = json.loads(line)
            events.append(ev)
            journal.add(rnd, ev)
            if ev["ev"] == "ready":
                ready.set()
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        if not ready.wait(INIT_TIMEOUT + 10):
            errs = [e.get("msg") for e in events if e["ev"] == "error"]
            raise AssertionError(f"round {rnd}: the producer's init_transactions did not succeed "
                                 f"within {INIT_TIMEOUT}s: {errs or 'no answer'}")
        time.sleep(rng.uniform(0.05, 2.0))
        broker.kill9()
        time.sleep(rng.uniform(0.0, 1.0))
    finally:
        prod.kill()
        prod.wait(10)
        reader.join(5)
    steps = collections.Counter(e["ev"] for e in events)
    log(f"round {rnd}: killed after {steps['begin']} transactions begun, {steps['commit_ok']} committed, "
        f"{steps['abort_ok']} aborted, last step {events[-1]['ev'] if events else '-'}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--broker", choices=["skiff", "kafka"], default="skiff")
    ap.add_argument("--skiff", default=os.environ.get("SKIFF_BINARY") or str(HERE.parents[1] / "build" / "skiff"))
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--work", type=Path, default=None, help="kept after the run (default: a temp dir, removed)")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    log = lambda m: print(f"[{time.strftime('%H:%M:%S')}] txn-kill9: {m}", file=sys.stderr, flush=True)  # noqa: E731
    tmp = None if args.work else tempfile.TemporaryDirectory(prefix="txn-kill9-")
    work = args.work or Path(tmp.name)
    log(f"{args.broker}, {args.rounds} rounds, seed {seed}, work dir {work}")
    from harness.txn import READ_COMMITTED, create_topic, read_all
    broker = make_broker(args, work)
    journal, resumes, tid = Journal(), [], f"txn-kill9-{seed}"
    t_start = time.monotonic()
    try:
        broker.start()
        create_topic(broker.bootstrap, TOPIC, PARTS)
        for rnd in range(1, args.rounds + 1):
            round_(args, broker, journal, rnd, rng, tid, log)
            broker.start()
            took = resume(broker.bootstrap, tid, rnd)
            resumes.append(rnd)
            visible = read_all(broker.bootstrap, TOPIC, PARTS, READ_COMMITTED, timeout=30)
            problems = check(journal, visible, resumes)
            log(f"round {rnd}: restarted, coordinator resumed in {took:.1f}s, {len(visible)} records "
                f"visible, {len(journal.txns)} transactions checked")
            if problems:
                raise AssertionError(f"round {rnd}:\n  " + "\n  ".join(problems))
        log(f"PASS: {args.rounds} rounds in {time.monotonic() - t_start:.0f}s (seed {seed})")
        return 0
    except Exception as e:  # noqa: BLE001 - report any failure with the broker's output
        log(f"FAIL (seed {seed}): {e}")
        tail = getattr(broker, "log_tail", None)
        if tail:
            print(tail(40), file=sys.stderr)
        return 1
    finally:
        broker.kill9() if args.broker == "skiff" else broker.stop()
        if tmp:
            tmp.cleanup()


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--producer":
        run_producer(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        sys.exit(main())
