"""Checks shared by the transaction scenarios (test_transactions_clients.py)
and the broker kill -9 rounds (txn_kill9.py): topics created up front, plain
produce, and reading a whole topic back at an isolation level with
confluent-kafka, in this process. Every call is bounded in time; none of
them uses a transaction, so they work against any broker."""
from __future__ import annotations

import time

READ_COMMITTED = "read_committed"
READ_UNCOMMITTED = "read_uncommitted"


def create_topic(bootstrap: str, topic: str, partitions: int, timeout: float = 15) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic
    a = AdminClient({"bootstrap.servers": bootstrap})
    for f in a.create_topics([NewTopic(topic, partitions, 1)], request_timeout=timeout).values():
        f.result(timeout)


def produce_plain(bootstrap: str, topic: str, recs: list[tuple[int, bytes]], timeout: float = 30) -> None:
    """(partition, value) records, acks=all, not transactional; raises unless all are acknowledged."""
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": False,
                  "message.timeout.ms": int(timeout * 1000), "linger.ms": 5})
    errors = []
    for part, v in recs:
        p.produce(topic, value=v, partition=part,
                  on_delivery=lambda err, msg: errors.append(err) if err else None)
        p.poll(0)
    left = p.flush(timeout)
    assert left == 0 and not errors, f"plain produce: {left} unacknowledged, errors {errors[:3]}"


def end_offsets(bootstrap: str, topic: str, partitions: int, timeout: float = 10) -> dict[int, int]:
    """High watermarks (ListOffsets latest, read_uncommitted)."""
    from confluent_kafka import Consumer, TopicPartition
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "skiff-txn-check-unused"})
    try:
        return {p: c.get_watermark_offsets(TopicPartition(topic, p), timeout=timeout)[1]
                for p in range(partitions)}
    finally:
        c.close()


def read_all(bootstrap: str, topic: str, partitions: int, isolation: str,
             timeout: float = 30, linger: float = 0.0) -> list[tuple[int, int, bytes]]:
    """Every record of `topic` from offset 0 that a consumer at `isolation`
    gets until it reaches the end of each partition (read_committed: the last
    stable offset), then `linger` seconds more. (partition, offset, value),
    in each partition's order. Raises on a fetch error or a timeout."""
    from confluent_kafka import Consumer, KafkaError, TopicPartition
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "skiff-txn-check-unused",
                  "isolation.level": isolation, "enable.partition.eof": True,
                  "enable.auto.commit": False, "fetch.wait.max.ms": 100})
    out: list[tuple[int, int, bytes]] = []
    eof: set[int] = set()
    deadline = time.monotonic() + timeout
    try:
        c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        stop_at = None
        while stop_at is None or time.monotonic() < stop_at:
            if time.monotonic() > deadline:
                raise AssertionError(f"{isolation} read of {topic}: end of partitions {sorted(eof)} "
                                     f"of {partitions} within {timeout}s ({len(out)} records)")
            m = c.poll(0.2)
            if m is None:
                continue
            if m.error():
                if m.error().code() == KafkaError._PARTITION_EOF:
                    eof.add(m.partition())
                    if len(eof) == partitions and stop_at is None:
                        stop_at = time.monotonic() + linger
                    continue
                raise AssertionError(f"{isolation} read of {topic}: {m.error()}")
            eof.discard(m.partition())
            out.append((m.partition(), m.offset(), m.value()))
    finally:
        c.close()
    return out


def values(recs) -> list[bytes]:
    return [v for _, _, v in recs]


def in_partition_order(recs) -> bool:
    """Offsets strictly increase within each partition."""
    last: dict[int, int] = {}
    for p, o, _ in recs:
        if o <= last.get(p, -1):
            return False
        last[p] = o
    return True
