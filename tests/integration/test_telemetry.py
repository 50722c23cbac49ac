"""KIP-714 client telemetry end to end: a subscription made with Kafka's own
kafka-client-metrics tool (ClientMetricsCommand), then a Java producer (Kafka's
ProducerPerformance: enable.metrics.push is on by default) and a
confluent-kafka producer (librdkafka, enable.metrics.push) push their metrics,
which appear on /metrics labelled with their client instance ids. Without a
subscription nothing is pushed. Runs once, in the java run."""
from __future__ import annotations

import time

import pytest

from test_admin import only_for, tool
from test_metrics import own, scrape, value  # noqa: F401  (own is a fixture)

SUB_TOOL = "org.apache.kafka.tools.ClientMetricsCommand"


def client_series(families, client_id: str) -> list:
    out = []
    for family in families.values():
        if not family.name.startswith("kafka_client_"):
            continue
        out += [s for s in family.samples if s.labels.get("client_id") == client_id]
    return out


def java_produce(bootstrap: str, topic: str, client_id: str, seconds: int = 6) -> None:
    tool("org.apache.kafka.tools.ProducerPerformance", "--topic", topic, "--num-records", str(10 * seconds),
         "--throughput", "10", "--record-size", "16", "--producer-props", f"bootstrap.servers={bootstrap}",
         f"client.id={client_id}", timeout=120)


def rdkafka_produce(bootstrap: str, topic: str, client_id: str, seconds: float = 6) -> None:
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": bootstrap, "client.id": client_id, "enable.metrics.push": True})
    end = time.time() + seconds
    while time.time() < end:
        p.produce(topic, b"telemetry")
        p.poll(0.2)
    p.flush(10)


def wait_for_series(b, client_id: str, timeout: float = 30):
    deadline = time.time() + timeout
    while True:
        families, _ = scrape(b)
        series = client_series(families, client_id)
        if series or time.time() > deadline:
            return families, series
        time.sleep(0.5)


def test_no_subscription_no_push(client, own):
    only_for(client, "java")
    b = own()
    java_produce(b.bootstrap, "telemetry-off", "tel-off", seconds=4)
    families, _ = scrape(b)
    assert client_series(families, "tel-off") == []
    with pytest.raises(AssertionError):
        value(families, "skiff_client_telemetry_pushes_total", result="accepted")
    assert "sub1" not in tool(SUB_TOOL, "--bootstrap-server", b.bootstrap, "--list")


def test_java_and_librdkafka_push_to_metrics(client, own):
    only_for(client, "java")
    pytest.importorskip("confluent_kafka")
    b = own()
    tool(SUB_TOOL, "--bootstrap-server", b.bootstrap, "--alter", "--name", "sub1", "--metrics",
         "org.apache.kafka.", "--interval", "1000")
    listed = tool(SUB_TOOL, "--bootstrap-server", b.bootstrap, "--list")
    assert "sub1" in listed, listed
    described = tool(SUB_TOOL, "--bootstrap-server", b.bootstrap, "--describe", "--name", "sub1")
    assert "org.apache.kafka." in described and "1000" in described, described

    java_produce(b.bootstrap, "telemetry-java", "tel-java")
    families, series = wait_for_series(b, "tel-java")
    assert series, "no series from the Java producer"
    assert all(s.labels["client_software_name"] == "apache-kafka-java" for s in series)
    java_ids = {s.labels["client_instance_id"] for s in series}
    assert len(java_ids) == 1 and len(next(iter(java_ids))) == 22

    rdkafka_produce(b.bootstrap, "telemetry-rdkafka", "tel-rdkafka")
    families, series = wait_for_series(b, "tel-rdkafka")
    assert series, "no series from librdkafka"
    rd_ids = {s.labels["client_instance_id"] for s in series}
    assert len(rd_ids) == 1 and rd_ids.isdisjoint(java_ids)
    assert value(families, "skiff_client_telemetry_pushes_total", result="accepted") >= 2

    # Deleting the subscription: listed no more, survives a restart as gone.
    tool(SUB_TOOL, "--bootstrap-server", b.bootstrap, "--alter", "--name", "sub1", "--metrics", "",
         "--interval", "", "--match", "")
    b.restart()
    assert "sub1" not in tool(SUB_TOOL, "--bootstrap-server", b.bootstrap, "--list")
