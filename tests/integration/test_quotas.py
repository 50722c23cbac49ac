"""Client quotas enforced as Kafka enforces them, set with Kafka 4.4's own
kafka-configs: a producer above its producer_byte_rate and a consumer above
its consumer_byte_rate are held to within 10 % of it (librdkafka clients,
which honour throttle_time_ms as KIP-219 asks, on a connection the broker
mutes for the throttle); a tiny request_percentage throttles every request
of its client and nobody else's; an IP over its connection_creation_rate
has its new connections held, then closed unanswered. What was throttled
shows on /metrics. Runs once, in the confluent_kafka run."""
from __future__ import annotations

import socket
import struct
import time

import pytest

from harness.broker import SkiffBroker
from test_admin import name, only_for, tool
from test_metrics import scrape, value

CONFIGS = "org.apache.kafka.tools.ConfigCommand"


@pytest.fixture
def b(own_broker):
    """The test's own broker: Skiff, or Kafka 4.4 itself with
    SKIFF_COMPAT_OWN_BROKER=kafka (the same limits hold there; /metrics is Skiff's)."""
    return own_broker


def metrics_of(broker):
    return scrape(broker)[0] if isinstance(broker, SkiffBroker) else None


def set_quota(broker, entity: list[str], config: str) -> None:
    out = tool(CONFIGS, "--bootstrap-server", broker.bootstrap, "--alter", "--add-config", config, *entity)
    assert "Completed updating config" in out, out


def per_second(events: list[tuple[float, int]]) -> list[int]:
    """Bytes of (time, bytes) events in each whole second from 0."""
    per = [0] * (int(max(t for t, _ in events)) + 1)
    for t, n in events:
        per[int(t)] += n
    return per


def whole_cycles_rate(events: list[tuple[float, int]]) -> float:
    """Bytes per second of (time, bytes) events over whole quota cycles.

    Kafka measures a client's rate over 11 one-second samples, at least 10 s
    of them: a client with more to send than its quota spends 10 s worth at
    once, is throttled until the sample holding that burst expires ~11 s
    later, then bursts again (Kafka's brokers behave alike). Its throughput
    is the quota over whole cycles: from the start of one burst to the start
    of a later one. A burst is found as a second with traffic (at least 5 %
    of the busiest second's) after three quiet ones: on a loaded machine a
    client may take several seconds to take in its 10 s worth, with a quiet
    second inside (a sample expiring mid-burst lets a last fetch through),
    so a burst is not always one busy second, nor traffic after one quiet
    second a new burst; between bursts it is throttled for ~8 s. It starts
    at its first event in that second: a cycle measured in whole seconds
    would be off by up to a second in two cycles (±5 %)."""
    per = per_second(events)
    seconds = len(per)
    low = max(per) / 20
    bursts = [i for i in range(seconds) if per[i] >= low and all(per[j] < low for j in range(max(0, i - 3), i))]
    assert len(bursts) >= 3, f"expected bursts every ~11 s: {per}"
    start = min(t for t, _ in events if int(t) == bursts[1])
    end = min(t for t, _ in events if int(t) == bursts[-1])
    return sum(n for t, n in events if start <= t < end) / (end - start)


def test_producer_held_to_its_byte_rate(client, b):
    only_for(client, "confluent_kafka")
    from confluent_kafka import Producer
    topic, client_id, quota = name("quota-p"), name("slow-producer"), 400_000
    set_quota(b, ["--entity-type", "clients", "--entity-name", client_id], f"producer_byte_rate={quota}")
    p = Producer({"bootstrap.servers": b.bootstrap, "client.id": client_id, "acks": 1, "linger.ms": 5,
                  "batch.size": 100_000, "queue.buffering.max.kbytes": 4096})
    acked: list[tuple[float, int]] = []
    value_ = b"x" * 20_000
    t0 = time.monotonic()

    def done(err, msg):
        assert err is None, err
        acked.append((time.monotonic() - t0, len(msg.value())))

    while time.monotonic() - t0 < 40:
        try:
            p.produce(topic, value_, on_delivery=done)
        except BufferError:
            p.poll(0.05)
        p.poll(0)
    p.flush(30)
    rate = whole_cycles_rate(acked)
    assert quota * 0.9 <= rate <= quota * 1.1, f"{rate:.0f} B/s against a quota of {quota}: {per_second(acked)}"
    families = metrics_of(b)
    if families is None:
        return
    assert value(families, "skiff_quota_throttled_total", type="Produce", user="", client_id=client_id) > 0
    assert value(families, "kafka_server_produce_throttle_time", user="", client_id=client_id) > 0
    assert value(families, "kafka_server_produce_byte_rate", user="", client_id=client_id) > quota * 0.5


def test_consumer_held_to_its_byte_rate(client, b):
    only_for(client, "confluent_kafka")
    from confluent_kafka import Consumer, Producer
    topic, client_id, quota = name("quota-c"), name("slow-consumer"), 1_000_000
    p = Producer({"bootstrap.servers": b.bootstrap, "linger.ms": 20})
    for _ in range(3000):  # 60 MB: more than the consumer can take in the test at its quota
        while True:
            try:
                p.produce(topic, b"y" * 20_000)
                break
            except BufferError:
                p.poll(0.1)
    assert p.flush(60) == 0
    set_quota(b, ["--entity-type", "clients", "--entity-name", client_id], f"consumer_byte_rate={quota}")
    # Fetches of at most 100 KB, a tenth of a second of the quota each (as
    # Kafka's own quota tests keep a fetch small against the quota).
    c = Consumer({"bootstrap.servers": b.bootstrap, "client.id": client_id, "group.id": name("g"),
                  "auto.offset.reset": "earliest", "enable.auto.commit": False, "fetch.max.bytes": 100_000,
                  "message.max.bytes": 100_000, "max.partition.fetch.bytes": 100_000,
                  "queued.max.messages.kbytes": 1024})
    c.subscribe([topic])
    got: list[tuple[float, int]] = []
    t0 = time.monotonic()
    try:
        while time.monotonic() - t0 < 40:
            m = c.poll(0.2)
            if m is not None and m.error() is None:
                got.append((time.monotonic() - t0, len(m.value())))
    finally:
        c.close()
    assert got, "nothing consumed"
    rate = whole_cycles_rate(got)
    assert quota * 0.9 <= rate <= quota * 1.1, f"{rate:.0f} B/s against a quota of {quota}: {per_second(got)}"
    families = metrics_of(b)
    if families is not None:
        assert value(families, "skiff_quota_throttled_total", type="Fetch", user="", client_id=client_id) > 0


def test_request_percentage_throttles_only_its_client(client, b):
    only_for(client, "confluent_kafka")
    from confluent_kafka import Producer
    topic, slow = name("quota-r"), name("cpu-bound")
    # 0.01 % of a thread: any few requests exceed it.
    set_quota(b, ["--entity-type", "clients", "--entity-name", slow], "request_percentage=0.01")
    throttles: dict[str, list[float]] = {slow: [], "free": []}

    def producer(client_id: str):
        # librdkafka reports each response's throttle_time_ms through throttle_cb.
        return Producer({"bootstrap.servers": b.bootstrap, "client.id": client_id, "linger.ms": 0,
                         "throttle_cb": lambda ev: throttles[client_id].append(ev.throttle_time)})

    # One request at a time: ~20 of them spend 0.01 % of a thread over 10 s.
    p = producer(slow)
    for i in range(300):
        p.produce(topic, f"{i}".encode())
        p.flush(30)
        if any(throttles[slow]):
            break
    assert any(throttles[slow]), f"{slow} was never throttled"
    p = producer("free")
    for i in range(100):
        p.produce(topic, f"{i}".encode())
        p.flush(30)
    p.poll(0.5)
    assert not any(throttles["free"]), throttles
    families = metrics_of(b)
    if families is not None:
        assert value(families, "skiff_quota_throttled_total", type="Request", user="", client_id=slow) > 0


def api_versions_answered(port: int, timeout: float) -> bool:
    """Opens a connection and asks ApiVersions v0: answered, or closed unanswered."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        header = struct.pack(">hhih", 18, 0, 1, 1) + b"q"
        s.sendall(struct.pack(">i", len(header)) + header)
        try:
            return len(s.recv(4)) == 4
        except (ConnectionResetError, socket.timeout):
            return False


def test_connection_creation_rate_per_ip(client, b):
    only_for(client, "confluent_kafka")
    set_quota(b, ["--entity-type", "ips", "--entity-name", "127.0.0.1"], "connection_creation_rate=2")
    port = int(b.bootstrap.rsplit(":", 1)[1])
    outcomes: list[tuple[bool, float]] = []
    while sum(1 for ok, _ in outcomes if not ok) < 6:
        t = time.monotonic()
        outcomes.append((api_versions_answered(port, timeout=15), time.monotonic() - t))
        assert len(outcomes) < 40, outcomes
    # 2 per second, measured over at least 10 s: 20 connections go through at
    # once, the next are held for the throttle (~0.5-1 s), then closed unanswered.
    first_refused = next(i for i, (ok, _) in enumerate(outcomes) if not ok)
    assert 20 <= first_refused <= 21, outcomes
    assert all(held >= 0.3 for ok, held in outcomes if not ok), outcomes
    assert sum(1 for ok, _ in outcomes[first_refused:] if ok) <= 2, outcomes
    families = metrics_of(b)
    if families is not None:
        assert value(families, "skiff_connection_rate_throttled_total") == 6
