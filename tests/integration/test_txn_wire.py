"""The transaction coordinator in the real binary, driven by confluent-kafka
(librdkafka: the TV1 path, explicit AddPartitionsToTxn): commit and abort
with a read_committed consumer that sees only committed records, a second
producer with the same transactional.id fencing the first, and the
coordinator's state surviving kill -9 (replayed from __transaction_state).
Runs in the confluent_kafka run of the compatibility suite only.

Transactional Produce is another branch's (txn-produce); until it is merged
the scenarios that need transactional records skip with that reason."""
from __future__ import annotations

import time
import uuid

import pytest

pytestmark = pytest.mark.timeout(90)
# Skiff has no authorizer: this code on a Produce only ever means that
# transactional Produce is not served (the txn-produce branch serves it).
NOT_YET = 53  # TRANSACTIONAL_ID_AUTHORIZATION_FAILED


@pytest.fixture(autouse=True)
def only_confluent(client):
    if client.name != "confluent_kafka":
        pytest.skip("transaction coordinator scenarios run with confluent_kafka only")


def create_topic(bootstrap, name, partitions=2):
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": bootstrap})  # kept alive until the futures are done
    for f in admin.create_topics([NewTopic(name, partitions, 1)]).values():
        f.result(timeout=20)


def txn_producer(bootstrap, txn_id):
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": txn_id, "transaction.timeout.ms": 30000})
    p.init_transactions(20)
    return p


def run_txn(p, topic, values, commit):
    from confluent_kafka import KafkaException
    p.begin_transaction()
    for i, v in enumerate(values):
        p.produce(topic, v.encode(), partition=i % 2)
    try:
        if commit:
            p.commit_transaction(20)
        else:
            p.flush(20)  # written before the abort (librdkafka purges unsent records on abort)
            p.abort_transaction(20)
    except KafkaException as e:
        if e.args[0].code() == NOT_YET:
            pytest.skip("transactional Produce is not served on this branch (txn-produce)")
        raise


def consume_all(bootstrap, topic, isolation, expect, timeout=20.0):
    from confluent_kafka import Consumer
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"g-{uuid.uuid4().hex[:8]}",
                  "isolation.level": isolation, "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.subscribe([topic])
    got, deadline = [], time.monotonic() + timeout
    try:
        while time.monotonic() < deadline and len(got) < expect:
            m = c.poll(0.2)
            if m is not None and not m.error():
                got.append(m.value().decode())
        end = time.monotonic() + 1.0  # nothing more arrives
        while time.monotonic() < end:
            m = c.poll(0.2)
            if m is not None and not m.error():
                got.append(m.value().decode())
    finally:
        c.close()
    return sorted(got)


def wait_for_log(broker, text, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if text in broker.log_path.read_text(errors="replace"):
            return True
        time.sleep(0.05)
    return False


def test_commit_and_abort_read_committed(client, own_broker):
    bs = own_broker.bootstrap
    topic = f"txn-{uuid.uuid4().hex[:8]}"
    create_topic(bs, topic)
    p = txn_producer(bs, f"tx-{uuid.uuid4().hex[:8]}")
    run_txn(p, topic, ["c1", "c2"], commit=True)
    run_txn(p, topic, ["a1", "a2"], commit=False)
    run_txn(p, topic, ["c3"], commit=True)
    assert consume_all(bs, topic, "read_committed", 3) == ["c1", "c2", "c3"]
    assert consume_all(bs, topic, "read_uncommitted", 5) == ["a1", "a2", "c1", "c2", "c3"]


def test_zombie_is_fenced(client, own_broker):
    from confluent_kafka import KafkaException
    bs = own_broker.bootstrap
    txn_id = f"tx-{uuid.uuid4().hex[:8]}"
    topic = f"txn-{uuid.uuid4().hex[:8]}"
    create_topic(bs, topic)
    first = txn_producer(bs, txn_id)
    second = txn_producer(bs, txn_id)  # bumps the epoch: the first is a zombie
    run_txn(second, topic, ["live"], commit=True)
    first.begin_transaction()
    first.produce(topic, b"zombie", partition=0)
    with pytest.raises(KafkaException) as fenced:
        first.commit_transaction(20)
    assert fenced.value.args[0].fatal(), str(fenced.value)
    assert consume_all(bs, topic, "read_committed", 1) == ["live"]


def test_coordinator_state_survives_kill9(client, own_broker):
    bs = own_broker.bootstrap
    txn_id = f"tx-{uuid.uuid4().hex[:8]}"
    topic = f"txn-{uuid.uuid4().hex[:8]}"
    create_topic(bs, topic)
    txn_producer(bs, txn_id)
    txn_producer(bs, txn_id)
    own_broker.kill9()
    own_broker.start()
    assert wait_for_log(own_broker, "transaction coordinator loaded 1 transactional ids")
    third = txn_producer(own_broker.bootstrap, txn_id)  # the replayed id: init bumps, no error
    assert wait_for_log(own_broker, "initialized producer id 0 epoch 2")
    run_txn(third, topic, ["after"], commit=True)
    own_broker.kill9()
    own_broker.start()
    assert consume_all(own_broker.bootstrap, topic, "read_committed", 1) == ["after"]
