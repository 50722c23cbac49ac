"""Consumer-group metrics on /metrics (kafka-exporter's names), cross-checked
against what real clients did: N records produced, a group that consumed and
committed K of them has current_offset K and lag N - K, its member and state
while the consumer is in the group and after it leaves, a KIP-848 group's
state and protocol, label values a client chose (a group id with quotes and a
backslash) read back intact by Prometheus's parser, and only the per-topic
sums when the per-partition series are off. Runs once, in the kcat run
(confluent-kafka drives the groups whose membership is checked live)."""
from __future__ import annotations

import json
import subprocess
import time
import uuid

import pytest

from test_admin import only_for
from test_metrics import own, produce, scrape, value  # noqa: F401 (own: a fixture)

pytestmark = pytest.mark.timeout(120)

N, K = 50, 20


def samples(families, name: str, **labels) -> list:
    return [s for f in families.values() for s in f.samples
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())]


def wait_for(b, check, what: str, timeout: float = 15.0):
    """Scrapes until check(families) is true; the last families."""
    deadline = time.monotonic() + timeout
    while True:
        families, _ = scrape(b)
        if check(families):
            return families
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not seen within {timeout}s: "
                                 f"{[s for f in families.values() if 'consumergroup' in f.name for s in f.samples]}")
        time.sleep(0.2)


def consume_and_commit(c, topic: str, k: int, timeout: float = 30.0) -> None:
    """Polls until `k` records of partition 0 arrived, then commits offset k
    there (and 0 on partition 1) synchronously."""
    from confluent_kafka import TopicPartition
    got, deadline = 0, time.monotonic() + timeout
    while got < k:
        assert time.monotonic() < deadline, f"consumed {got} of {k} records within {timeout}s"
        m = c.poll(0.5)
        if m is not None and not m.error() and m.partition() == 0:
            got += 1
    c.commit(offsets=[TopicPartition(topic, 0, k), TopicPartition(topic, 1, 0)], asynchronous=False)


def consumer(b, group: str, **extra):
    from confluent_kafka import Consumer
    return Consumer({"bootstrap.servers": b.bootstrap, "group.id": group, "enable.auto.commit": False,
                     "auto.offset.reset": "earliest", "fetch.wait.max.ms": 200, **extra})


def test_classic_group_offsets_lag_members_and_state(client, own):
    only_for(client, "kcat")
    b = own()
    topic, group = "lagged", f'metrics "lag" \\ {uuid.uuid4().hex[:6]}'
    produce(b, topic, N)
    c = consumer(b, group, **{"session.timeout.ms": 10000, "heartbeat.interval.ms": 1000})
    try:
        c.subscribe([topic])
        consume_and_commit(c, topic, K)
        live = wait_for(b, lambda f: samples(f, "skiff_consumergroup_state", consumergroup=group, state="Stable"),
                        "the group Stable")
        assert value(live, "kafka_consumergroup_members", consumergroup=group) == 1
        (state,) = samples(live, "skiff_consumergroup_state", consumergroup=group)
        assert state.labels["protocol"] == "classic" and state.value == 1
        assert value(live, "kafka_server_group_coordinator_metrics_classic_group_count", state="Stable") == 1
    finally:
        c.close()
    families = wait_for(b, lambda f: samples(f, "skiff_consumergroup_state", consumergroup=group, state="Empty"),
                        "the group Empty after its consumer left")
    assert value(families, "kafka_consumergroup_members", consumergroup=group) == 0
    at = dict(consumergroup=group, topic=topic)
    assert value(families, "kafka_consumergroup_current_offset", partition="0", **at) == K
    assert value(families, "kafka_consumergroup_lag", partition="0", **at) == N - K
    assert value(families, "kafka_consumergroup_current_offset", partition="1", **at) == 0
    assert value(families, "kafka_consumergroup_lag", partition="1", **at) == 0
    assert value(families, "kafka_consumergroup_current_offset_sum", **at) == K
    assert value(families, "kafka_consumergroup_lag_sum", **at) == N - K
    assert value(families, "kafka_server_group_coordinator_metrics_group_count", protocol="classic") == 1
    assert value(families, "kafka_server_group_coordinator_metrics_group_count", protocol="consumer") == 0
    assert value(families, "kafka_server_group_coordinator_metrics_classic_group_count", state="Empty") == 1
    assert value(families, "kafka_server_group_coordinator_metrics_classic_group_count", state="Stable") == 0
    assert value(families, "kafka_server_group_coordinator_metrics_offset_count") == 2
    produce(b, topic, 5)  # the lag follows the log end offset
    after, _ = scrape(b)
    assert value(after, "kafka_consumergroup_lag", partition="0", **at) == N + 5 - K
    assert value(after, "kafka_consumergroup_lag_sum", **at) == N + 5 - K


def test_consumer_protocol_group_state_and_members(client, own):
    only_for(client, "kcat")
    b = own()
    topic, group = "kip848", f"metrics-848-{uuid.uuid4().hex[:6]}"
    produce(b, topic, N)
    c = consumer(b, group, **{"group.protocol": "consumer"})
    try:
        c.subscribe([topic])
        consume_and_commit(c, topic, K)
        live = wait_for(b, lambda f: samples(f, "skiff_consumergroup_state", consumergroup=group, state="Stable"),
                        "the consumer group Stable")
        (state,) = samples(live, "skiff_consumergroup_state", consumergroup=group)
        assert state.labels["protocol"] == "consumer"
        assert value(live, "kafka_consumergroup_members", consumergroup=group) == 1
        assert value(live, "kafka_server_group_coordinator_metrics_group_count", protocol="consumer") == 1
        assert value(live, "kafka_server_group_coordinator_metrics_consumer_group_count", state="Stable") == 1
        assert value(live, "kafka_consumergroup_lag", consumergroup=group, topic=topic, partition="0") == N - K
    finally:
        c.close()
    wait_for(b, lambda f: samples(f, "skiff_consumergroup_state", consumergroup=group, state="Empty")
             and value(f, "kafka_consumergroup_members", consumergroup=group) == 0,
             "the consumer group Empty after its member left")


def test_only_sums_without_per_partition_series(client, own):
    only_for(client, "kcat")
    b = own(**{"skiff.metrics.partition.series.enable": "false"})
    topic, group = "summed", f"metrics-sum-{uuid.uuid4().hex[:6]}"
    produce(b, topic, N)
    # kcat's balanced consumer: -c K exits after K records; its close commits them.
    p = subprocess.run(["kcat", "-b", b.bootstrap, "-G", group, "-c", str(K), "-J", "-q",
                        "-X", "auto.offset.reset=earliest", "-X", "fetch.wait.max.ms=200", topic],
                       capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr[-2000:]
    assert len([json.loads(l) for l in p.stdout.decode().splitlines() if l.startswith("{")]) == K
    families, _ = scrape(b)
    assert "kafka_consumergroup_current_offset" not in families
    assert "kafka_consumergroup_lag" not in families
    for name in ("kafka_consumergroup_current_offset_sum", "kafka_consumergroup_lag_sum"):
        assert {tuple(sorted(s.labels)) for s in samples(families, name)} == {("consumergroup", "topic")}
    assert value(families, "kafka_consumergroup_current_offset_sum", consumergroup=group, topic=topic) == K
    assert value(families, "kafka_consumergroup_lag_sum", consumergroup=group, topic=topic) == N - K
    assert value(families, "kafka_consumergroup_members", consumergroup=group) == 0
    assert samples(families, "skiff_consumergroup_state", consumergroup=group, state="Empty", protocol="classic")
