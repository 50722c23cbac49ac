"""Log compaction (issue 16) with the real broker and real clients.

- test_keyless_record_invalid: a record without a key to a compacted topic
  fails with INVALID_RECORD (confluent-kafka; the Java producer also gets
  Kafka's per-record message), and nothing of its batch is stored.
- test_last_value_per_key: N updates over K keys plus deletes; with small
  cleaner settings a consumer from the beginning ends up seeing exactly the
  last value of every live key and no deleted key, not even its tombstone
  (an exact model).
- test_tombstones_expire: the same once the clean part of the log is one
  merged segment: tombstones go delete.retention.ms after the pass that first
  cleaned them (the delete horizon stamped in their batch, KIP-534).
- test_policy_change_at_runtime: cleanup.policy delete -> compact with
  IncrementalAlterConfigs takes effect without a restart.
- test_kill9_during_cleaning: kill -9 while the cleaner rewrites, many
  rounds of updates and deletes: the latest value of each key survives, no
  deleted key comes back, nothing duplicated, no .cleaned/.swap file left
  after a restart; at the end the tombstones expire too.

The broker: a skiff of the module's own (SKIFF_BINARY), or Apache Kafka 4.4
with SKIFF_COMPACTION_BROKER=kafka (scripts/kafka-broker.sh), the same
cleaner settings; SKIFF_COMPACTION_DUMP=FILE writes the surviving key->value
map of test_last_value_per_key (bench/compaction_vs_kafka.py diffs both).
Every wait is bounded. Only the confluent_kafka run (and java for the
keyless case) executes these: the other clients skip."""
from __future__ import annotations

import json
import os
import random
import time
import uuid
from pathlib import Path

import pytest

from conftest import REPO, skiff_binary
from harness.broker import KafkaScriptBroker, SkiffBroker
from harness.data import Rec

CLEANER = {"log.cleaner.backoff.ms": "200", "num.partitions": "1"}
WAIT_S = 150  # Kafka's cleaner needs several passes; skiff needs a few seconds


@pytest.fixture(scope="module")
def cbroker(tmp_path_factory):
    d = tmp_path_factory.mktemp("compaction-broker")
    if os.environ.get("SKIFF_COMPACTION_BROKER") == "kafka":
        b = KafkaScriptBroker(REPO / "scripts" / "kafka-broker.sh", d / "kafka", CLEANER)
    else:
        b = SkiffBroker(skiff_binary(), d / "data", d, CLEANER)
    b.start()
    yield b
    b.stop()


def need(client, *names):
    if client.name not in names:
        pytest.skip(f"compaction scenarios run with {', '.join(names)}")


def create_topic(bootstrap, name, configs):
    from confluent_kafka.admin import AdminClient, NewTopic
    a = AdminClient({"bootstrap.servers": bootstrap})
    f = a.create_topics([NewTopic(name, 1, 1, config=configs)], operation_timeout=30)
    f[name].result(30)


# Small enough that skiff and Kafka clean within seconds: segments roll
# every 300 ms (on the next append), any dirty data is cleanable, tombstones
# go on the pass after the one that first cleans them.
SMALL = {"cleanup.policy": "compact", "segment.ms": "300", "min.cleanable.dirty.ratio": "0.01",
         "max.compaction.lag.ms": "1000", "delete.retention.ms": "100", "min.compaction.lag.ms": "0"}


def produce(bootstrap, topic, items):
    """items: (key, value|None); synchronous enough: flush, every delivery checked."""
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "enable.idempotence": True})
    errs = []
    for k, v in items:
        while True:
            try:
                p.produce(topic, key=k, value=v, partition=0,
                          on_delivery=lambda e, m: errs.append(str(e)) if e else None)
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)
    assert p.flush(60) == 0
    assert not errs, errs[:3]


def read_all(bootstrap, topic, timeout=20):
    """Every record from offset 0 to the current end: [(offset, key, value)]."""
    from confluent_kafka import Consumer, TopicPartition
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused-" + uuid.uuid4().hex[:8],
                  "enable.auto.commit": False, "auto.offset.reset": "earliest", "fetch.wait.max.ms": 100})
    try:
        _, high = c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
        c.assign([TopicPartition(topic, 0, 0)])
        out, deadline = [], time.monotonic() + timeout
        while time.monotonic() < deadline:
            if out and out[-1][0] >= high - 1:
                break
            m = c.poll(0.5)
            if m is None:
                if high == 0:
                    break
                continue
            assert not m.error(), m.error()
            out.append((m.offset(), m.key(), m.value()))
        return out, high
    finally:
        c.close()


def compacted_view(bootstrap, topic, filler):
    recs, _ = read_all(bootstrap, topic)
    return [(k, v) for _, k, v in recs if k != filler]


def wait_compacted(bootstrap, topic, expect: dict, filler=b"~filler", wait_s=WAIT_S):
    """Produces a filler record now and then (rolls the segment, makes the
    log dirty: as in Kafka, a pass runs only when there is dirty data) until
    the log minus fillers is exactly `expect`, each key once and no
    tombstone left."""
    order = lambda kv: (kv[0] or b"", kv[1] is None, kv[1] or b"")  # noqa: E731 (tombstones: None)
    want = sorted(expect.items(), key=order)
    seen = []
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        produce(bootstrap, topic, [(filler, b"f")])
        view = compacted_view(bootstrap, topic, filler)
        seen = view
        keys = [k for k, _ in view]
        if len(keys) == len(set(keys)) and sorted(view, key=order) == want:
            return view
        time.sleep(1.0)
    missing = [kv for kv in want if kv not in seen]
    extra = [kv for kv in seen if kv not in expect.items()]
    pytest.fail(f"not compacted within {wait_s}s: {len(seen)} records, want {len(want)}; "
                f"missing {missing[:5]}, extra {extra[:5]}")


def workload(seed, n, k):
    """(items, model): n updates over k keys, ~10% deletes; model = live key -> last value."""
    rng = random.Random(seed)
    items, model = [], {}
    for i in range(n):
        key = f"key-{rng.randrange(k)}".encode()
        if rng.random() < 0.1:
            items.append((key, None))
            model.pop(key, None)
        else:
            v = f"v{i}-{rng.randrange(1 << 30)}".encode()
            items.append((key, v))
            model[key] = v
    return items, model


def test_keyless_record_invalid(client, cbroker):
    need(client, "confluent_kafka", "java")
    topic = "compact-keyless-" + uuid.uuid4().hex[:6]
    create_topic(cbroker.bootstrap, topic, {"cleanup.policy": "compact"})
    recs = [Rec(k=b"a", v=b"1", p=0), Rec(k=None, v=b"no key", p=0), Rec(k=b"b", v=b"2", p=0)]
    res = client.produce(cbroker.bootstrap, topic, recs, timeout=40)
    assert "error" in res[1], res
    err = res[1]["error"]
    assert "INVALID_RECORD" in err or "InvalidRecordException" in err, err
    if client.name == "java":  # Kafka's per-record message reaches the Java producer
        assert f"Compacted topic cannot accept message without key in topic partition {topic}-0" in err, err
    stored, high = read_all(cbroker.bootstrap, topic)
    ok = [r for r, x in zip(recs, res) if "error" not in x]
    assert high == len(ok), (res, stored)
    assert [(k, v) for _, k, v in stored] == [(r.k, r.v) for r in ok]
    assert all(k is not None for _, k, _v in stored)


def test_last_value_per_key(client, cbroker):
    need(client, "confluent_kafka")
    topic = "compact-model-" + uuid.uuid4().hex[:6]
    create_topic(cbroker.bootstrap, topic, SMALL)
    items, model = workload(seed=16, n=6000, k=300)
    for i in range(0, len(items), 1000):  # several segments
        produce(cbroker.bootstrap, topic, items[i:i + 1000])
        time.sleep(0.4)
    view = wait_compacted(cbroker.bootstrap, topic, model)
    dump = os.environ.get("SKIFF_COMPACTION_DUMP")
    if dump:
        Path(dump).write_text(json.dumps(sorted((k.decode(), v.decode()) for k, v in view)))


def test_tombstones_expire(client, cbroker):
    need(client, "confluent_kafka")
    topic = "compact-tomb-" + uuid.uuid4().hex[:6]
    create_topic(cbroker.bootstrap, topic, SMALL)
    items, model = workload(seed=17, n=1500, k=100)
    produce(cbroker.bootstrap, topic, items)
    wait_compacted(cbroker.bootstrap, topic, model, wait_s=60)


def test_policy_change_at_runtime(client, cbroker):
    need(client, "confluent_kafka")
    from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource
    topic = "compact-later-" + uuid.uuid4().hex[:6]
    cfg = dict(SMALL, **{"cleanup.policy": "delete"})
    create_topic(cbroker.bootstrap, topic, cfg)
    items, model = workload(seed=3, n=800, k=20)
    produce(cbroker.bootstrap, topic, items)
    time.sleep(0.5)
    produce(cbroker.bootstrap, topic, [(b"~filler", b"f")])
    time.sleep(3)
    recs, _ = read_all(cbroker.bootstrap, topic)
    assert len(recs) == 801  # policy delete: nothing compacted
    a = AdminClient({"bootstrap.servers": cbroker.bootstrap})
    res = ConfigResource(ConfigResource.Type.TOPIC, topic, incremental_configs=[
        ConfigEntry("cleanup.policy", "compact", incremental_operation=AlterConfigOpType.SET)])
    for f in a.incremental_alter_configs([res]).values():
        f.result(30)
    wait_compacted(cbroker.bootstrap, topic, model)


def cleaner_files(data):
    """The cleaner's .cleaned and .swap files under `data`, with their inodes."""
    return {f: f.stat().st_ino for f in data.rglob("*") if f.name.endswith((".cleaned", ".swap"))}


def test_kill9_during_cleaning(client, tmp_path):
    need(client, "confluent_kafka")
    if os.environ.get("SKIFF_COMPACTION_BROKER") == "kafka":
        pytest.skip("skiff's crash safety")
    b = SkiffBroker(skiff_binary(), tmp_path / "data", tmp_path, dict(CLEANER, **{"log.cleaner.backoff.ms": "50"}))
    b.start()
    topic = "compact-kill-" + uuid.uuid4().hex[:6]
    try:
        create_topic(b.bootstrap, topic, SMALL)
        rng = random.Random(9)
        model = {}
        for rnd in range(12):
            items, _ = workload(seed=100 + rnd, n=3000, k=400)
            produce(b.bootstrap, topic, items)  # acknowledged: must survive
            for k, v in items:
                if v is None:
                    model.pop(k, None)
                else:
                    model[k] = v
            produce(b.bootstrap, topic, [(b"~filler", b"f")])  # roll: the cleaner has work
            time.sleep(rng.uniform(0.2, 1.5))  # somewhere inside a cleaning pass, or not
            b.kill9()
            left = cleaner_files(tmp_path / "data")  # what the crash left of a swap
            b.start()
            # The load finished or rolled back every one of them. The cleaner
            # runs again at once (50 ms backoff): a file of the same name may
            # be a new pass's, with another inode.
            for f, inode in left.items():
                assert not (f.exists() and f.stat().st_ino == inode), f
            recs, _ = read_all(b.bootstrap, topic)
            offsets = [o for o, _, _ in recs]
            assert offsets == sorted(set(offsets))  # no duplicate, in order
            last = {}
            for _, k, v in recs:
                last[k] = v
            last.pop(b"~filler", None)
            assert {k: v for k, v in last.items() if v is not None} == model, f"round {rnd}"
        wait_compacted(b.bootstrap, topic, model)
    finally:
        b.stop()
