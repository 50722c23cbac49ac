"""KIP-848 with librdkafka (confluent-kafka, group.protocol=consumer) and
Kafka's own kafka-consumer-groups tool: three members share six partitions,
no partition is ever owned by two of them at once (checked from their own
on_assign/on_revoke callbacks), every record is consumed once, the tool
describes the group (its partitions with their member, its members, its
state), and when one member leaves the other two take its partitions over.
Runs in the confluent_kafka run; bounded in time. franz-go's KIP-848 mode
(two members, server-side assignment) runs in the franz_go run; the GROUP
config resource through librdkafka's admin API in the confluent_kafka run."""
from __future__ import annotations

import time

import pytest

from test_admin import name, only_for, tool
from test_regex_subscription import _create, _produce

pytestmark = pytest.mark.timeout(180)

GROUPS_TOOL = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"


class Ownership:
    """Who owns each partition, from the members' callbacks; any overlap is a problem."""

    def __init__(self):
        self.owner: dict[int, str] = {}
        self.problems: list[str] = []

    def callbacks(self, member: str):
        def on_assign(_consumer, partitions):
            for p in partitions:
                prev = self.owner.setdefault(p.partition, member)
                if prev != member:
                    self.problems.append(f"partition {p.partition} given to {member} while {prev} owns it")

        def on_revoke(_consumer, partitions):
            for p in partitions:
                if self.owner.get(p.partition) == member:
                    del self.owner[p.partition]

        return {"on_assign": on_assign, "on_revoke": on_revoke, "on_lost": on_revoke}

    def of(self, member: str) -> set[int]:
        return {p for p, m in self.owner.items() if m == member}


def _poll_all(consumers, seen, cond, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not cond():
        for member, c in consumers.items():
            m = c.poll(0.05)
            if m is None:
                continue
            if m.error():
                raise AssertionError(f"{member}: {m.error()}")
            seen.append((m.partition(), m.offset()))
    return cond()


def test_confluent_kafka_three_members_share_and_hand_over(client, broker):
    only_for(client, "confluent_kafka")
    from confluent_kafka import Consumer
    from confluent_kafka.admin import AdminClient

    topic, group = name("kip848-cfk"), name("kip848-cfk-group")
    _create(AdminClient({"bootstrap.servers": broker.bootstrap}), [(topic, 6)])
    _produce(broker.bootstrap, topic, 6, 10)
    own = Ownership()
    consumers = {}
    for member in ("a", "b", "c"):
        c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group, "group.protocol": "consumer",
                      "auto.offset.reset": "earliest", "client.id": f"member-{member}",
                      "auto.commit.interval.ms": 200})
        c.subscribe([topic], **own.callbacks(member))
        consumers[member] = c
    seen: list[tuple[int, int]] = []
    try:
        shared = lambda: all(len(own.of(m)) == 2 for m in consumers) and len(seen) >= 60  # noqa: E731
        assert _poll_all(consumers, seen, shared, 60), (own.owner, len(seen))
        assert sorted(seen) == sorted(set(seen)) and len(seen) == 60, "a record consumed twice"
        _poll_all(consumers, seen, lambda: False, 1.5)  # auto-commit (every 200 ms) catches up
        assert len(seen) == 60, "a record consumed twice"

        partitions = tool(GROUPS_TOOL, "--bootstrap-server", broker.bootstrap, "--describe", "--group", group)
        rows = [line.split() for line in partitions.splitlines() if line.startswith(group)]
        assert len(rows) == 6 and all(r[1] == topic for r in rows), partitions
        assert {r[3] for r in rows} == {"10"}, partitions  # CURRENT-OFFSET: everything committed
        members = tool(GROUPS_TOOL, "--bootstrap-server", broker.bootstrap, "--describe", "--group", group,
                       "--members")
        assert sum(1 for line in members.splitlines() if line.startswith(group)) == 3, members
        state = tool(GROUPS_TOOL, "--bootstrap-server", broker.bootstrap, "--describe", "--group", group, "--state")
        assert "Stable" in state and "uniform" in state, state

        consumers.pop("c").close()  # leaves the group (epoch -1): its partitions move at once
        took_over = lambda: len(own.of("a")) + len(own.of("b")) == 6  # noqa: E731
        assert _poll_all(consumers, seen, took_over, 30), own.owner
        assert not own.problems, own.problems
    finally:
        for c in consumers.values():
            c.close()


def _describe(admin, group):
    return admin.describe_consumer_groups([group])[group].result(10)


def test_franz_go_members_share_with_server_side_assignment(client, broker):
    """franz-go's KIP-848 mode (ServerSideBalancer): two members join with
    ConsumerGroupHeartbeat, the broker splits six partitions three and three,
    records produced while both are in are each consumed once, and the
    offsets both commit on leaving add up to everything produced."""
    only_for(client, "franz_go")
    import threading

    from confluent_kafka import ConsumerGroupType
    from confluent_kafka.admin import AdminClient

    topic, group = name("kip848-franz"), name("kip848-franz-group")
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    _create(admin, [(topic, 6)])
    got: dict[str, list] = {}

    def member(tag):  # runs until its timeout (never reaches `n`), then commits and leaves
        got[tag] = client.group_consume(broker.bootstrap, topic, group, 10**6, timeout=20, settle=0,
                                        protocol="consumer")

    threads = [threading.Thread(target=member, args=(t,)) for t in ("a", "b")]
    for t in threads:
        t.start()
    deadline, desc = time.monotonic() + 15, None
    while time.monotonic() < deadline:
        try:
            desc = _describe(admin, group)
        except Exception:  # noqa: BLE001 - the group does not exist before the first heartbeat
            desc = None
        if desc and sorted(len(m.assignment.topic_partitions) for m in desc.members) == [3, 3]:
            break
        time.sleep(0.3)
    assert desc is not None and desc.type == ConsumerGroupType.CONSUMER, desc
    assert sorted(len(m.assignment.topic_partitions) for m in desc.members) == [3, 3], desc.members
    _produce(broker.bootstrap, topic, 6, 10)
    for t in threads:
        t.join(40)
    assert set(got) == {"a", "b"}, "a franz-go member failed"
    seen = [(p, o) for recs in got.values() for p, o, _ in recs]
    assert len(seen) == 60 and len(set(seen)) == 60, sorted(seen)
    assert got["a"] and got["b"], "one member consumed nothing"
    offsets = admin.list_consumer_group_offsets(
        [_group_request(group, topic)])[group].result(10).topic_partitions
    assert sum(tp.offset for tp in offsets) == 60, offsets


def _group_request(group, topic):
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
    return ConsumerGroupTopicPartitions(group, [TopicPartition(topic, p) for p in range(6)])


def test_confluent_kafka_group_configs(client, broker):
    """librdkafka's admin path for the GROUP config resource (its 0081-admin
    test's DescribeConfigs / IncrementalAlterConfigs on groups), through
    confluent-kafka: a group config is set, described with its source, and an
    unknown key and a value outside the broker's bounds are refused."""
    only_for(client, "confluent_kafka")
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, ConfigSource,
                                       ResourceType)

    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    group = name("kip848-cfg")

    def alter(key, value):
        res = ConfigResource(ResourceType.GROUP, group, incremental_configs=[
            ConfigEntry(key, value, incremental_operation=AlterConfigOpType.SET)])
        return admin.incremental_alter_configs([res])[res]

    alter("consumer.session.timeout.ms", "50000").result(10)
    res = ConfigResource(ResourceType.GROUP, group)
    configs = admin.describe_configs([res])[res].result(10)
    entry = configs["consumer.session.timeout.ms"]
    assert entry.value == "50000" and entry.source == ConfigSource.GROUP_CONFIG.value, entry
    assert configs["consumer.heartbeat.interval.ms"].source != ConfigSource.GROUP_CONFIG.value, configs
    for key, value in (("no.such.group.key", "1"), ("consumer.session.timeout.ms", "1")):
        with pytest.raises(KafkaException) as err:
            alter(key, value).result(10)
        assert "INVALID_CONFIG" in str(err.value) or "InvalidConfig" in str(err.value), err.value
