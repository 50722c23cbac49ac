#!/usr/bin/env python3
"""Power-cut rounds (issue 57): skiff with log.dirs on powerfs (powerfs.cc),
real clients (confluent-kafka), the power cut at a random moment, a restart,
then checks. scripts/powercut.sh runs this with the compat venv's Python.

Each round, for a random 1-4 s, four workloads run side by side:
  - an idempotent acks=all producer to `pc` (3 partitions), every record's
    acknowledged (partition, offset, value) noted;
  - the same producer's keyed records to `pcc` (compacted, small segments,
    so the cleaner swaps segments), the highest acknowledged value per key;
  - a consumer of `pc` in group `pcg`, committing synchronously every few
    records, the highest acknowledged commit per partition noted;
  - a transactional producer on `pctx`, committing ~70 % and aborting the
    rest, each decision noted once its call returned;
  - an admin raising `pc`'s retention.ms, each acknowledged value noted.
Then skiff gets SIGKILL, the clients are closed, powerfs is unmounted (the
cut: what was not synced is gone; --tear also keeps random prefixes of it,
torn), remounted, skiff restarted on the same log.dirs, and:
  every mode: skiff starts by itself with the same cluster id; every batch of
    `pc`, `pcc`, `pctx` reads back CRC-valid (check.crcs) with contiguous
    offsets in `pc`; the group's committed offsets never pass the
    partition's end; every committed transaction is visible whole or not at
    all (whole, with --flush), nothing aborted or undecided is visible.
  --flush (log.flush.interval.messages=1): every acknowledged record is at
    its offset, every acknowledged commit is kept (or passed), every key's
    acknowledged value (or a later one) is there, every committed
    transaction is there, the acknowledged config is kept.
  at the end, after a clean stop: Kafka's DumpLogSegments (--deep-iteration,
    --index-sanity-check) reads every segment and index of the test topics
    without an error, when java and Kafka's jars are there.

  powercut_loop.py --skiff BIN --powerfs BIN [--flush] [--tear] [--cuts N] [--seed N] [--work DIR]
Exit 0 when every round checks out, 1 with the reasons otherwise."""
from __future__ import annotations

import argparse
import collections
import json
import os
import signal
import subprocess
import random
import re
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "integration"))
from harness.broker import SkiffBroker  # noqa: E402
from powerfs import PowerFs  # noqa: E402

PARTS = 3
CLUSTER = re.compile(r"cluster[ ._-]?id[ =:]+(\S+)", re.I)


class NoMkdirPath(type(Path())):
    """log.dirs as the broker sees it: the harness must not create it (the
    broker has to, durably)."""

    def mkdir(self, *a, **k):  # noqa: ARG002
        return None


class Journal:
    """What the clients were told, across rounds."""

    def __init__(self):
        self.acked = {}  # (partition, offset) -> value, topic pc
        self.commits = collections.defaultdict(int)  # partition -> highest acknowledged commit
        self.keys = {}  # key -> highest acknowledged value, topic pcc
        self.txns = {}  # txn id -> (n, "committed" | "aborted" | "open")
        self.retention = 0

    def apply(self, ev: dict) -> None:
        """One event the workload printed (it happened before the cut)."""
        e = ev["e"]
        if e == "ack":
            self.acked[(ev["p"], ev["o"])] = ev["v"]
        elif e == "commit":
            self.commits[ev["p"]] = max(self.commits[ev["p"]], ev["o"])
        elif e == "key":
            self.keys[ev["k"]] = max(self.keys.get(ev["k"], -1), ev["v"])
        elif e == "txn":
            self.txns[ev["t"]] = (ev["n"], ev["s"])
        elif e == "ret":
            self.retention = max(self.retention, ev["v"])


_say_lock = threading.Lock()


def say(**ev):
    with _say_lock:
        print(json.dumps(ev), flush=True)


def producer_work(bs, rnd: int, stop: threading.Event):
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": bs, "acks": "all", "enable.idempotence": True, "linger.ms": 1,
                  "message.timeout.ms": 3000})
    seq = 0

    def on_pc(err, msg):
        if err is None:
            say(e="ack", p=msg.partition(), o=msg.offset(), v=msg.value().decode())

    def on_pcc(err, msg):
        if err is None:
            say(e="key", k=msg.key().decode(), v=int(msg.value()))

    while not stop.is_set():
        seq += 1
        try:
            p.produce("pc", value=f"r{rnd}-{seq}".encode(), partition=seq % PARTS, on_delivery=on_pc)
            p.produce("pcc", key=f"k{seq % 20}".encode(), value=str(rnd * 10**7 + seq).encode(), on_delivery=on_pcc)
        except BufferError:
            pass
        p.poll(0.002)
    p.purge()
    p.flush(1)


def consumer_work(bs, stop: threading.Event):
    from confluent_kafka import Consumer, KafkaException
    c = Consumer({"bootstrap.servers": bs, "group.id": "pcg", "enable.auto.commit": False,
                  "auto.offset.reset": "earliest", "session.timeout.ms": 6000, "check.crcs": True})
    c.subscribe(["pc"])
    n = 0
    while not stop.is_set():
        m = c.poll(0.1)
        if m is None or m.error():
            continue
        n += 1
        if n % 7:
            continue
        try:
            done = c.commit(asynchronous=False)
        except KafkaException:
            continue
        for tp in done or []:
            if tp.error is None and tp.offset >= 0:
                say(e="commit", p=tp.partition, o=tp.offset)
    c.close()


def txn_work(bs, rnd: int, stop: threading.Event, rng: random.Random):
    from confluent_kafka import KafkaException, Producer
    p = Producer({"bootstrap.servers": bs, "transactional.id": "pc-tx", "transaction.timeout.ms": 10000,
                  "message.timeout.ms": 3000, "linger.ms": 1})
    try:
        p.init_transactions(20)
        t = 0
        while not stop.is_set():
            t += 1
            tid, n = f"r{rnd}t{t}", rng.randint(1, 12)
            say(e="txn", t=tid, n=n, s="open")
            p.begin_transaction()
            for i in range(n):
                p.produce("pctx", value=f"{tid}-{i}".encode(), partition=i % PARTS)
            if rng.random() < 0.7:
                p.commit_transaction(5)
                outcome = "committed"
            else:
                if p.flush(5):
                    return
                p.abort_transaction(5)
                outcome = "aborted"
            say(e="txn", t=tid, n=n, s=outcome)
    except KafkaException:
        return


def admin_work(bs, rnd: int, stop: threading.Event):
    from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource)
    a = AdminClient({"bootstrap.servers": bs})
    k = 0
    while not stop.is_set():
        k += 1
        v = 10**9 + rnd * 1000 + k
        res = ConfigResource("topic", "pc", incremental_configs=[
            ConfigEntry("retention.ms", str(v), incremental_operation=AlterConfigOpType.SET)])
        try:
            list(a.incremental_alter_configs([res]).values())[0].result(3)
        except Exception:  # noqa: BLE001 - the broker died
            return
        say(e="ret", v=v)
        stop.wait(0.3)


def create_topics(bs):
    from confluent_kafka.admin import AdminClient, NewTopic
    a = AdminClient({"bootstrap.servers": bs})
    topics = [NewTopic("pc", PARTS, 1, config={"segment.ms": "700"}), NewTopic("pctx", PARTS, 1),
              NewTopic("pcc", 1, 1, config={"cleanup.policy": "compact", "segment.ms": "300",
                                              "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": "0"})]
    for f in a.create_topics(topics).values():
        f.result(20)


def read_all(bs, topic, committed: bool, timeout: float = 30.0):
    """Every record of `topic`, [(partition, offset, key, value)], read to the end."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
    c = Consumer({"bootstrap.servers": bs, "group.id": f"check-{time.monotonic_ns()}", "enable.auto.commit": False,
                  "check.crcs": True, "isolation.level": "read_committed" if committed else "read_uncommitted"})
    md = c.list_topics(topic, timeout=10).topics[topic]
    if md.error is not None or not md.partitions:
        c.close()
        raise AssertionError(f"{topic}: not there after the cut ({md.error})")
    tps = [TopicPartition(topic, p, OFFSET_BEGINNING) for p in md.partitions]
    ends = {tp.partition: c.get_watermark_offsets(tp, timeout=10)[1] for tp in tps}
    c.assign(tps)
    out, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        pos = {tp.partition: tp.offset for tp in c.position(tps)}
        if all(ends[p] == 0 or pos[p] >= ends[p] for p in ends):
            break
        m = c.poll(0.2)
        if m is None:
            continue
        if m.error():
            raise AssertionError(f"{topic}: read error {m.error()}")
        out.append((m.partition(), m.offset(), m.key(), m.value()))
    else:
        raise AssertionError(f"{topic}: not read to its end {ends} in {timeout}s")
    c.close()
    return out, ends


def committed_offsets(bs):
    from confluent_kafka import Consumer, TopicPartition
    c = Consumer({"bootstrap.servers": bs, "group.id": "pcg", "enable.auto.commit": False})
    got = c.committed([TopicPartition("pc", p) for p in range(PARTS)], timeout=15)
    c.close()
    return {tp.partition: tp.offset for tp in got}


def resume_txn(bs):
    """A new producer with the transactional id: aborts what was open."""
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": bs, "transactional.id": "pc-tx", "transaction.timeout.ms": 10000})
    p.init_transactions(30)
    p.flush(1)


def retention_now(bs):
    from confluent_kafka.admin import AdminClient, ConfigResource
    a = AdminClient({"bootstrap.servers": bs})
    d = list(a.describe_configs([ConfigResource("topic", "pc")]).values())[0].result(10)
    return int(d["retention.ms"].value)


def check_pc(bs, j: Journal, strict: bool, bad: list):
    recs, ends = read_all(bs, "pc", False)
    by_p = collections.defaultdict(list)
    for p, off, _, v in recs:
        by_p[p].append((off, v))
    seen = {}
    for p, lst in sorted(by_p.items()):
        offs = [o for o, _ in lst]
        if offs != list(range(offs[0], offs[0] + len(offs))) or offs[-1] + 1 != ends[p]:
            bad.append(f"pc[{p}]: offsets not contiguous up to the end {ends[p]}")
        seen.update({(p, o): v.decode() for o, v in lst})
    if strict:
        lost = [(k, v) for k, v in j.acked.items() if seen.get(k) != v]
        if lost:
            bad.append(f"pc: {len(lost)} acknowledged records lost or changed, e.g. {lost[:3]}")
    committed = committed_offsets(bs)
    for p in range(PARTS):
        c = committed.get(p, -1001)
        if c > ends.get(p, 0):
            bad.append(f"group pcg: committed offset {c} of pc[{p}] past its end {ends.get(p, 0)}")
        if strict and j.commits.get(p, -1) > c:
            bad.append(f"group pcg: acknowledged commit {j.commits[p]} of pc[{p}] lost (now {c})")
    return len(recs)


def check_pcc(bs, j: Journal, strict: bool, bad: list):
    recs, _ = read_all(bs, "pcc", False)
    last = {}
    for _, _, k, v in recs:
        last[k.decode()] = int(v) if v is not None else -1
    if strict:
        for k, v in j.keys.items():
            if last.get(k, -1) < v:
                bad.append(f"pcc: key {k!r} acknowledged at {v}, now {last.get(k)}")


def check_pctx(bs, j: Journal, strict: bool, bad: list):
    resume_txn(bs)
    recs, _ = read_all(bs, "pctx", True)
    count = collections.Counter(v.decode().rsplit("-", 1)[0] for _, _, _, v in recs)
    for tid, (n, outcome) in j.txns.items():
        got = count.get(tid, 0)
        if outcome == "aborted" and got:
            bad.append(f"pctx: aborted transaction {tid} visible ({got} records)")
        elif outcome == "committed" and strict and got != n:
            bad.append(f"pctx: committed transaction {tid} has {got} of {n} records")
        elif outcome != "committed" and got not in (0, n):
            # Default settings: each partition loses its unflushed tail on its
            # own, so a committed transaction may keep some partitions' part.
            bad.append(f"pctx: transaction {tid} ({outcome}) partly visible: {got} of {n}")
    unknown = set(count) - set(j.txns)
    if unknown:
        bad.append(f"pctx: records of unknown transactions {sorted(unknown)[:3]}")
    for tid, (n, outcome) in list(j.txns.items()):
        if outcome == "open":  # settled now: aborted by the resume, or committed
            j.txns[tid] = (n, "committed" if count.get(tid, 0) else "aborted")


def check_config(bs, j: Journal, strict: bool, bad: list):
    r = retention_now(bs)
    if strict and r < j.retention:
        bad.append(f"pc: acknowledged retention.ms {j.retention} lost (now {r})")


def new_boot(data: Path):
    """A real power cut is followed by a new boot, with a new kernel boot id.
    This cut is not: the boot id stays, and a torn cut may even keep the
    unsynced `.skiff_boot` (log/boot_marker.h) whole, which would make skiff
    take the cut for a process crash and look only at each log's last
    segment. Removing it is what the new boot id does."""
    try:
        (data / ".skiff_boot").unlink()
    except FileNotFoundError:
        pass


def check(bs, j: Journal, strict: bool) -> list[str]:
    bad: list[str] = []
    for f in (check_pc, check_pcc, check_pctx, check_config):
        try:
            f(bs, j, strict, bad)
        except Exception as e:  # noqa: BLE001 - a failed check, not a crash of the loop
            bad.append(f"{f.__name__}: {type(e).__name__}: {e}")
    return bad


def workload(bs: str, rnd: int, seed: int) -> int:
    """The clients of one round (a process of its own, killed at the cut):
    each acknowledgement is printed as a JSON line the moment it arrives."""
    stop = threading.Event()
    threads = [threading.Thread(target=producer_work, args=(bs, rnd, stop), daemon=True),
               threading.Thread(target=consumer_work, args=(bs, stop), daemon=True),
               threading.Thread(target=txn_work, args=(bs, rnd, stop, random.Random(seed)), daemon=True),
               threading.Thread(target=admin_work, args=(bs, rnd, stop), daemon=True)]
    for t in threads:
        t.start()
    time.sleep(3600)
    return 0


def start_workload(bs: str, rnd: int, seed: int, j: Journal):
    proc = subprocess.Popen([sys.executable, __file__, "--workload", bs, str(rnd), str(seed)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def read():
        for line in proc.stdout:
            try:
                j.apply(json.loads(line))
            except (ValueError, KeyError):
                pass

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return proc, reader


def cluster_id(broker) -> str | None:
    meta = Path(str(broker.data_dir)) / "meta.properties"
    for line in meta.read_text().splitlines() if meta.exists() else []:
        if line.startswith("cluster.id="):
            return line.split("=", 1)[1]
    return None


def kafka_dump_check(data_dir: Path) -> list[str] | None:
    """Kafka 4.4's own DumpLogSegments over the test topics' segments
    (--deep-iteration) and indexes (--index-sanity-check); None when java or
    Kafka's jars (scripts/fetch_kafka_jars.sh) are not there."""
    jars = Path(os.environ.get("SKIFF_CACHE_DIR", Path.home() / ".cache/skiff")) / "kafka-4.4.0"
    if not shutil.which("java") or not any(jars.glob("kafka-tools-*.jar")):
        return None
    found = {ext: sorted(str(p) for t in ("pc", "pcc", "pctx") for p in data_dir.glob(f"{t}-*/*{ext}"))
             for ext in (".log", ".index", ".timeindex")}
    bad = []
    for flag, files in (("--deep-iteration", found[".log"]),
                        ("--index-sanity-check", found[".index"] + found[".timeindex"])):
        out = subprocess.run(["java", "-cp", f"{jars}/*", "org.apache.kafka.tools.DumpLogSegments", flag,
                              "--files", ",".join(files)], capture_output=True, text=True, timeout=600)
        text = out.stdout + out.stderr
        hits = [w for w in ("Exception", "invalid bytes", "Mismatches", "corrupt", "ERROR") if w in text]
        if out.returncode != 0 or hits:
            bad.append(f"DumpLogSegments {flag}: exit {out.returncode}, {hits}: {text[-600:]}")
    return bad


def main() -> int:
    if len(sys.argv) == 5 and sys.argv[1] == "--workload":
        return workload(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    ap = argparse.ArgumentParser()
    ap.add_argument("--skiff", required=True)
    ap.add_argument("--powerfs", required=True)
    ap.add_argument("--flush", action="store_true", help="log.flush.interval.messages=1: nothing acked is lost")
    ap.add_argument("--tear", action="store_true", help="cuts also keep torn prefixes of unsynced data")
    ap.add_argument("--existing-dir", action="store_true",
                    help="log.dirs made (durably) before the first start; by default skiff creates it")
    ap.add_argument("--cuts", type=int, default=5)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--work")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    work = Path(args.work or tempfile.mkdtemp(prefix="powercut-"))
    print(f"powercut: seed {args.seed} work {work} flush={args.flush} tear={args.tear}", flush=True)
    fs = PowerFs(args.powerfs, work / "fs")
    fs.mount(tear=args.tear, seed=rng.randrange(1 << 30))
    overrides = {"num.partitions": str(PARTS), "log.cleaner.backoff.ms": "200", "auto.create.topics.enable": "false",
                 "transaction.abort.timed.out.transaction.cleanup.interval.ms": "1000"}
    if args.flush:
        overrides["log.flush.interval.messages"] = "1"
    if args.existing_dir:
        (fs.mnt / "data").mkdir()
        fd = os.open(fs.mnt, os.O_RDONLY | os.O_DIRECTORY)
        os.fsync(fd)
        os.close(fd)
    broker = SkiffBroker(args.skiff, fs.mnt / "data", work / "logs", overrides)
    broker.data_dir = NoMkdirPath(fs.mnt / "data")  # SkiffBroker.start would mkdir it
    j, failures, cid = Journal(), 0, None
    try:
        bs = broker.start(timeout=30)
        cid = cluster_id(broker)
        create_topics(bs)
        for rnd in range(1, args.cuts + 1):
            proc, reader = start_workload(bs, rnd, rng.randrange(1 << 30), j)
            time.sleep(rng.uniform(1.0, 4.0))
            broker.kill9()  # the power fails: the process dies with the page cache
            proc.send_signal(signal.SIGKILL)  # and its clients: no acknowledgement comes later
            proc.wait(10)
            reader.join(10)
            account = fs.cut()
            fs.mount(tear=args.tear, seed=rng.randrange(1 << 30))
            new_boot(fs.mnt / "data")
            t0 = time.monotonic()
            bs = broker.start(timeout=60)
            started = time.monotonic() - t0
            bad = check(bs, j, args.flush)
            if cluster_id(broker) != cid:
                bad.append(f"cluster id changed: {cid} -> {cluster_id(broker)}")
            print(f"cut {rnd}: restart {started:.2f}s, acked {len(j.acked)} txns {len(j.txns)} "
                  f"commits {dict(j.commits)} [{account}] {'OK' if not bad else 'FAIL'}", flush=True)
            for b in bad:
                print(f"  {b}", flush=True)
            failures += bool(bad)
            if bad:
                print(broker.log_tail(15), flush=True)
        broker.stop()  # a clean stop, then Kafka's own tool reads what is on disk
        dump = kafka_dump_check(Path(str(broker.data_dir)))
        print("DumpLogSegments: " + ("skipped (no java or Kafka jars)" if dump is None else
                                     "; ".join(dump) if dump else "every segment and index valid"), flush=True)
        failures += bool(dump)
    finally:
        broker.kill9()
        fs.close()
    print(f"powercut: {args.cuts} cuts, {failures} failed (seed {args.seed})", flush=True)
    if not failures and not args.work:
        shutil.rmtree(work, ignore_errors=True)  # kept when something failed, to look at
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
