"""KIP-848's regular-expression subscriptions resolved on the broker
(ConsumerGroupHeartbeat v1 SubscribedTopicRegex): a consumer with
group.protocol=consumer subscribes with a pattern, consumes the matching
topic, and a matching topic created afterwards is assigned and consumed
without the client doing anything (Kafka re-resolves within about 10 s);
a topic that does not match is never consumed.
- java: KafkaConsumer.subscribe(new SubscriptionPattern(...))
  (java_groups/RegexSubscriptionCheck.java, launched from source);
- confluent_kafka: librdkafka 2.10+ with a `^regex` subscription.
Bounded in time; prints the seconds from the later topic's creation to its
first record."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from harness.java_check import run_java_check
from test_admin import name, only_for

pytestmark = pytest.mark.timeout(150)

CHECK = Path(__file__).parent / "java_groups" / "RegexSubscriptionCheck.java"


def test_java_pattern_subscription_picks_up_a_later_topic(client, broker):
    only_for(client, "java")
    run = run_java_check(CHECK, broker.bootstrap, name("rx"), name("rx-group"), "90000", timeout=130)
    res = run.result
    print("java regex subscription:", res)
    if not res.get("ok"):
        print(run.stderr_tail)
    assert res["first_consumed"] == 10, res
    assert res["later_consumed"] == 12, res
    assert res["other_consumed"] == 0, res
    assert 0 <= res["later_seconds"] <= 15, res
    assert res["ok"] is True, res
    assert run.returncode == 0, res


def _create(admin, topics):
    from confluent_kafka.admin import NewTopic
    for f in admin.create_topics([NewTopic(t, n, 1) for t, n in topics]).values():
        f.result(30)


def _produce(bootstrap, topic, partitions, per_partition):
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": bootstrap})
    for part in range(partitions):
        for i in range(per_partition):
            p.produce(topic, value=f"{topic}-{part}-{i}".encode(), partition=part)
    assert p.flush(30) == 0


def _poll_until(c, counts, cond, timeout, on_record=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not cond():
        m = c.poll(0.2)
        if m is None:
            continue
        if m.error():
            raise AssertionError(f"confluent-kafka: {m.error()}")
        counts[m.topic()] = counts.get(m.topic(), 0) + 1
        if on_record:
            on_record(m)
    return cond()


def test_confluent_kafka_regex_subscription_picks_up_a_later_topic(client, broker):
    only_for(client, "confluent_kafka")
    from confluent_kafka import Consumer
    from confluent_kafka.admin import AdminClient
    prefix = name("rx")
    first, later, other = f"{prefix}-first", f"{prefix}-later", f"other-{prefix}"
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    _create(admin, [(first, 2), (other, 1)])
    _produce(broker.bootstrap, first, 2, 5)
    _produce(broker.bootstrap, other, 1, 5)
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": name("rx-group"),
                  "group.protocol": "consumer", "auto.offset.reset": "earliest"})
    try:
        c.subscribe([f"^{prefix}-.*"])
        counts: dict[str, int] = {}
        assert _poll_until(c, counts, lambda: counts.get(first, 0) == 10, 60), counts
        created = time.monotonic()
        _create(admin, [(later, 3)])
        _produce(broker.bootstrap, later, 3, 4)
        seen_later: list[float] = []
        _poll_until(c, counts, lambda: counts.get(later, 0) == 12, 60,
                    lambda m: m.topic() == later and not seen_later and seen_later.append(time.monotonic()))
        print(f"confluent-kafka regex subscription: later topic's first record after "
              f"{seen_later[0] - created:.2f} s" if seen_later else "later topic never consumed", counts)
        assert counts.get(later, 0) == 12, counts
        assert counts.get(other, 0) == 0, counts
        assert seen_later[0] - created <= 15
    finally:
        c.close()
