"""/metrics on the broker's HTTP listener, read the way Prometheus reads it
(prometheus-client's text parser): every family well-formed and of its
declared type, values cross-checked against what a real client did (the
records kcat produced are the partition's end offset; the log holds their
bytes), counters monotonic across a produce, and the per-partition series
switched off for brokers with many partitions. Runs once, in the kcat run."""
from __future__ import annotations

import http.client
import subprocess

import pytest
from prometheus_client.parser import text_string_to_metric_families

from conftest import skiff_binary
from harness.broker import SkiffBroker
from test_admin import only_for


def scrape(b: SkiffBroker) -> tuple[dict, str]:
    conn = http.client.HTTPConnection("127.0.0.1", b.http_port(), timeout=10)
    try:
        conn.request("GET", "/metrics")
        r = conn.getresponse()
        body = r.read().decode()
        assert r.status == 200, body
        content_type = r.getheader("Content-Type")
    finally:
        conn.close()
    families = {f.name: f for f in text_string_to_metric_families(body)}
    return families, content_type


def value(families, name, **labels) -> float:
    for family in families.values():
        for s in family.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                return s.value
    raise AssertionError(f"no sample {name}{labels}")


def produce(b: SkiffBroker, topic: str, n: int) -> None:
    data = "".join(f"record-{i}\n" for i in range(n))
    p = subprocess.run(["kcat", "-b", b.bootstrap, "-P", "-t", topic, "-p", "0"], input=data, text=True,
                       capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr[-2000:]


@pytest.fixture
def own(tmp_path):
    brokers = []

    def start(**overrides) -> SkiffBroker:
        b = SkiffBroker(skiff_binary(), tmp_path / f"data{len(brokers)}", tmp_path, {"num.partitions": "2",
                                                                                      **overrides})
        b.start()
        brokers.append(b)
        return b
    yield start
    for b in brokers:
        b.stop()


def test_metrics_parse_and_match_what_a_client_did(client, own):
    only_for(client, "kcat")
    b = own()
    before, content_type = scrape(b)
    assert content_type == "text/plain; version=0.0.4; charset=utf-8"
    assert before["process_open_fds"].type == "gauge" and value(before, "process_open_fds") > 3
    assert value(before, "process_resident_memory_bytes") > 1 << 20
    assert value(before, "process_max_fds") >= value(before, "process_open_fds")
    assert value(before, "process_threads") >= 4
    assert before["process_cpu_seconds"].type == "counter"
    (build,) = before["skiff_build_info"].samples
    assert build.value == 1 and build.labels["version"]
    produce(b, "metered", 250)
    after, _ = scrape(b)
    assert value(after, "kafka_log_log_logendoffset", topic="metered", partition="0") == 250
    assert value(after, "kafka_log_log_logstartoffset", topic="metered", partition="0") == 0
    assert value(after, "kafka_log_log_logendoffset", topic="metered", partition="1") == 0
    assert value(after, "kafka_log_log_size", topic="metered", partition="0") > 250 * len("record-000")
    assert value(after, "process_cpu_seconds_total") >= value(before, "process_cpu_seconds_total")
    for family in after.values():  # every sample finite where a gauge or counter
        for s in family.samples:
            assert s.value == s.value, f"NaN in {s.name}"


def test_per_partition_series_can_be_switched_off(client, own):
    only_for(client, "kcat")
    b = own(**{"skiff.metrics.partition.series.enable": "false"})
    produce(b, "many", 10)
    families, _ = scrape(b)
    assert "kafka_log_log_logendoffset" not in families
    sizes = families["kafka_log_log_size"].samples
    assert {tuple(sorted(s.labels)) for s in sizes} == {("topic",)}
    assert value(families, "kafka_log_log_size", topic="many") > 0
