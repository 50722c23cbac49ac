"""Restart after kill -9 with a torn tail (issue 57): the broker is killed,
the end of a partition's last segment is torn (a batch cut short, then
bytes that are no batch at all, as a write interrupted by the kill leaves
them), and it starts again. On the same boot recovery reads only the tail
after the segment's last index entry that checks out: the torn bytes are
cut, every acknowledged record is served, appends go on from the right
offset, and a second kill -9 with another torn tail recovers the same way.
Runs once, in the confluent_kafka run (the client only writes and reads)."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from harness.data import by_partition, check_same, dataset
from test_admin import only_for
from test_compat import consume_all, need_consumer, produce_ok

TORN = b"\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x40\x00" + os.urandom(200)


def last_segment(data_dir: Path, topic: str, partition: int) -> Path:
    logs = sorted((data_dir / f"{topic}-{partition}").glob("*.log"))
    assert logs, f"no segment of {topic}-{partition} in {data_dir}"
    return logs[-1]


def tear(seg: Path, cut: int) -> int:
    """Cuts `cut` bytes off the end (inside the last batch) and appends junk."""
    size = seg.stat().st_size
    with open(seg, "r+b") as f:
        f.truncate(size - cut)
        f.seek(0, os.SEEK_END)
        f.write(TORN)
    return size


def truncated_bytes(broker) -> int:
    text = broker.log_path.read_text(errors="replace")
    return sum(int(n) for n in re.findall(r"truncated (\d+) invalid bytes", text))


def test_kill9_torn_tail_recovers(client, own_broker, apis, topic):
    only_for(client, "confluent_kafka")
    need_consumer(client, apis)
    if not hasattr(own_broker, "data_dir"):
        pytest.skip("needs a Skiff broker whose files the test can tear")
    first = dataset(3000, 1, client.caps, seed=57)
    for i in range(0, len(first), 300):  # ten produce calls: batches enough to index and to lose one
        produce_ok(client, own_broker.bootstrap, topic, first[i:i + 300], acks=-1)
    own_broker.kill9()
    seg = last_segment(own_broker.data_dir, topic, 0)
    tear(seg, 40)  # the last record batch loses its end
    own_broker.start()
    assert truncated_bytes(own_broker) > 0, own_broker.log_tail()
    b = own_broker.bootstrap
    kept = client.list_offsets(b, topic, [0], "latest")[0]
    assert 0 < kept < len(first), f"{kept} of {len(first)} records after the torn tail"
    got = consume_all(client, b, topic, {0: kept})
    check_same(by_partition(first)[0][:kept], got.get(0, []), client.caps)

    second = dataset(500, 1, client.caps, seed=58)
    produce_ok(client, b, topic, second, acks=-1)
    assert client.list_offsets(b, topic, [0], "latest")[0] == kept + len(second)
    own_broker.kill9()
    tear(last_segment(own_broker.data_dir, topic, 0), 1)
    own_broker.start()
    b = own_broker.bootstrap
    end = client.list_offsets(b, topic, [0], "latest")[0]
    assert kept <= end < kept + len(second)  # the torn batch goes (it may hold all of them)
    got = consume_all(client, b, topic, {0: end})
    expect = by_partition(first)[0][:kept] + by_partition(second)[0][:end - kept]
    check_same(expect, got.get(0, []), client.caps)
