"""/metrics on the broker's HTTP listener, read the way Prometheus reads it
(prometheus-client's text parser): every family well-formed and of its
declared type, values cross-checked against what a real client did (the
records kcat produced are the partition's end offset; the log holds their
bytes), counters monotonic across a produce, and the per-partition series
switched off for brokers with many partitions. Runs once, in the kcat run."""
from __future__ import annotations

import http.client
import os
import socket
import struct
import subprocess
import time

import pytest
from prometheus_client.parser import text_string_to_metric_families

from conftest import skiff_binary
from harness.broker import SkiffBroker
from harness.wire import recv_exact
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


def consume(b: SkiffBroker, topic: str, n: int, partition: int = 0) -> None:
    count = ["-c", str(n)] if n else []
    p = subprocess.run(["kcat", "-b", b.bootstrap, "-C", "-t", topic, "-p", str(partition), "-o", "beginning",
                        *count, "-e", "-q"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.count("\n") == n


def metadata_without_auto_create(b: SkiffBroker, topic: str) -> None:
    """Metadata v4 for one topic, allow_auto_topic_creation false."""
    name = topic.encode()
    body = struct.pack(">ih", 1, len(name)) + name + b"\x00"
    header = struct.pack(">hhih", 3, 4, 7, 1) + b"m"
    with socket.create_connection(("127.0.0.1", int(b.bootstrap.rsplit(":", 1)[1])), timeout=10) as s:
        s.sendall(struct.pack(">i", len(header) + len(body)) + header + body)
        size = struct.unpack(">i", recv_exact(s, 4))[0]
        recv_exact(s, size)


def value_or_zero(families, name, **labels) -> float:
    found = samples(families, name, **labels)
    return found[0].value if found else 0.0


def samples(families, name, **labels) -> list:
    return [s for f in families.values() for s in f.samples
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())]


def test_topic_traffic_matches_what_clients_did(client, own):
    only_for(client, "kcat")
    b = own()
    produce(b, "traffic", 300)
    consume(b, "traffic", 300)
    m, _ = scrape(b)
    assert m["kafka_server_brokertopicmetrics_messagesin"].type == "counter"
    assert value(m, "kafka_server_brokertopicmetrics_messagesin_total", topic="traffic") == 300
    bytes_in = value(m, "kafka_server_brokertopicmetrics_bytesin_total", topic="traffic")
    # every appended batch is on disk, and was read back whole by the consumer
    assert bytes_in == value(m, "kafka_log_log_size", topic="traffic", partition="0")
    assert value(m, "kafka_server_brokertopicmetrics_bytesout_total", topic="traffic") >= bytes_in
    assert value(m, "kafka_server_brokertopicmetrics_failedproducerequests_total", topic="traffic") == 0
    # Errors per API: kcat's produce requests each answered one partition, NONE.
    produces = sum(s.value for s in samples(m, "kafka_network_requestmetrics_requests_total", request="Produce"))
    assert value(m, "kafka_network_requestmetrics_errors_total", request="Produce", error="NONE") == produces
    metadata_without_auto_create(b, "no-such-topic-here")
    m, _ = scrape(b)
    assert value(m, "kafka_network_requestmetrics_errors_total", request="Metadata",
                 error="UNKNOWN_TOPIC_OR_PARTITION") >= 1, [s for s in samples(m, "kafka_network_requestmetrics_errors_total")]
    produce(b, "traffic", 5)
    again, _ = scrape(b)  # counters only grow
    assert value(again, "kafka_server_brokertopicmetrics_messagesin_total", topic="traffic") == 305
    assert value(again, "kafka_server_brokertopicmetrics_bytesin_total", topic="traffic") > bytes_in


def check_request_histograms(m) -> None:
    produced = sum(s.value for s in samples(m, "kafka_network_requestmetrics_requests_total", request="Produce"))
    assert produced >= 1
    assert samples(m, "kafka_network_requestmetrics_requests_total", request="FetchConsumer")
    assert samples(m, "kafka_network_requestmetrics_requests_total", request="ApiVersions")
    for request in ("Produce", "FetchConsumer", "Metadata"):
        requests = sum(s.value for s in samples(m, "kafka_network_requestmetrics_requests_total", request=request))
        parts = 0.0
        for part in ("requestqueue", "local", "remote", "responsesend", "total"):
            name = f"kafka_network_requestmetrics_{part}timems"
            assert m[name].type == "histogram"
            buckets = [s for s in samples(m, name + "_bucket", request=request)]
            counts = [s.value for s in sorted(buckets, key=lambda s: float(s.labels["le"]))]
            assert counts == sorted(counts), f"{name} buckets are not cumulative"
            assert buckets and max(counts) == value(m, name + "_count", request=request) == requests
            if part != "total":
                parts += value(m, name + "_sum", request=request)
        total = value(m, "kafka_network_requestmetrics_totaltimems_sum", request=request)
        assert abs(parts - total) <= 1e-6 * max(total, 1), (request, parts, total)  # the parts make the whole


def test_request_histograms_are_consistent(client, own):
    only_for(client, "kcat")
    b = own()
    produce(b, "timed", 50)
    consume(b, "timed", 50)
    consume(b, "timed", 0, partition=1)  # empty: its fetch waits fetch.wait.max.ms (500) in the broker
    for attempt in range(3):  # a response is counted just after its last byte left: kcat may be quicker
        m, _ = scrape(b)
        try:
            check_request_histograms(m)
            break
        except AssertionError:
            if attempt == 2:
                raise
            time.sleep(0.5)
    # the wait for data that never came is RemoteTimeMs, not the handler's own time
    assert value(m, "kafka_network_requestmetrics_remotetimems_sum", request="FetchConsumer") >= 400
    assert value(m, "kafka_network_requestmetrics_localtimems_sum", request="FetchConsumer") < 400


def test_network_gauges(client, own):
    only_for(client, "kcat")
    b = own()
    before, _ = scrape(b)
    produce(b, "net", 1)
    m, _ = scrape(b)
    assert value(m, "kafka_network_requestchannel_requestqueuesize") == 0
    cpus = len(os.sched_getaffinity(0))  # the broker's defaults follow the CPUs (config_def.cc)
    assert value(m, "skiff_request_handler_threads") == min(max(2 * cpus, 2), 8)  # num.io.threads' default
    assert value(m, "skiff_request_handler_idle_seconds_total") > value(before, "skiff_request_handler_idle_seconds_total")
    # every Processor is listed; together they spent CPU reading the produce, and far less than the wall time
    processors = min(max(cpus // 2, 1), 3)
    assert value(m, "skiff_network_processor_threads") == processors  # num.network.threads' default
    busy = samples(m, "skiff_network_processor_busy_seconds_total")
    assert sorted(s.labels["processor"] for s in busy) == [str(i) for i in range(processors)]
    busy_before = sum(s.value for s in samples(before, "skiff_network_processor_busy_seconds_total"))
    assert busy_before < sum(s.value for s in busy) < value(m, "process_cpu_seconds_total")
    accepted = value(m, "kafka_server_socket_server_metrics_connection_creation_total", listener="PLAINTEXT")
    assert accepted >= 1 + value_or_zero(before, "kafka_server_socket_server_metrics_connection_creation_total",
                                         listener="PLAINTEXT")
    assert 0 <= value(m, "kafka_server_socket_server_metrics_connection_count", listener="PLAINTEXT") <= accepted
    # a consumer that stays connected shows up with its client software (KIP-511), then goes
    tail = subprocess.Popen(["kcat", "-b", b.bootstrap, "-C", "-t", "net", "-q"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not samples(m, "kafka_server_socket_server_metrics_connections", client_software_name="librdkafka"):
            assert time.monotonic() < deadline, "kcat's connections never showed up"
            time.sleep(0.2)
            m, _ = scrape(b)
        (s,) = samples(m, "kafka_server_socket_server_metrics_connections", client_software_name="librdkafka")
        assert s.labels["listener"] == "PLAINTEXT" and s.labels["client_software_version"] and s.value >= 1
        assert value(m, "kafka_server_socket_server_metrics_connection_count", listener="PLAINTEXT") >= s.value
    finally:
        tail.kill()
        tail.wait(timeout=10)
    deadline = time.monotonic() + 30
    while samples(m, "kafka_server_socket_server_metrics_connections", client_software_name="librdkafka"):
        assert time.monotonic() < deadline, "kcat's connections outlived kcat on /metrics"
        time.sleep(0.2)
        m, _ = scrape(b)


def test_request_metrics_can_be_switched_off(client, own):
    only_for(client, "kcat")
    b = own(**{"skiff.metrics.requests.enable": "false"})
    produce(b, "quiet", 10)
    m, _ = scrape(b)
    assert not [n for n in m if n.startswith(("kafka_network_requestmetrics", "kafka_server_brokertopicmetrics"))]
    assert value(m, "kafka_log_log_logendoffset", topic="quiet", partition="0") == 10
