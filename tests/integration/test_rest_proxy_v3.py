"""The built-in REST proxy's v3 API (issue 53) against the real binary:
clusters, brokers, topic and config CRUD compared with what Kafka's own
kafka-topics and kafka-configs show; records produced over HTTP (one, and
20,000 in one chunked stream, results in order with the right offsets) read
back by kcat and by Kafka's Java console consumer with the same keys,
values, headers and partitions; per-record errors that do not stop the
stream; Confluent's error bodies for bad bodies, sizes and content types
(and another open connection undisturbed); HTTP Basic against the SASL
users with ACLs (Confluent's 401 and 403); an https:// endpoint; the
request metrics; a busy explicitly set port failing startup.

Runs once, in the confluent_kafka run (its venv has httpx2); every broker is
the test's own with the proxy on a free port."""
from __future__ import annotations

import base64
import json
import re
import shutil
import socket
import subprocess
import time
import urllib.request
import uuid

import pytest

from conftest import BROKER_OVERRIDES, skiff_binary
from harness.broker import BrokerError, SkiffBroker
from harness.certs import SERVER_EXT, make_ca, make_cert
from test_admin import only_for, tool

httpx = pytest.importorskip("httpx2")
pytestmark = pytest.mark.timeout(300)

CONSOLE = "org.apache.kafka.tools.consumer.ConsoleConsumer"
TOPICS = "org.apache.kafka.tools.TopicCommand"
CONFIGS = "org.apache.kafka.tools.ConfigCommand"
JSON = "application/json"


def proxy_broker(tmp_path, **overrides) -> SkiffBroker:
    b = SkiffBroker(skiff_binary(), tmp_path / "data", tmp_path, {**BROKER_OVERRIDES, **overrides})
    b.rest_proxy_listeners = "http://127.0.0.1:0"
    return b


@pytest.fixture
def proxy(client, tmp_path):
    only_for(client, "confluent_kafka")
    b = proxy_broker(tmp_path, **{"rest.proxy.max.request.bytes": "1048576"})
    b.start()
    yield b
    b.stop()


def http(b: SkiffBroker, **kw) -> httpx.Client:
    url = b.rest_proxy_url()
    assert url, b.log_tail()
    return httpx.Client(base_url=url, timeout=60, **kw)


def cluster_id(c: httpx.Client) -> str:
    r = c.get("/v3/clusters")
    assert r.status_code == 200, r.text
    return r.json()["data"][0]["cluster_id"]


def b64(s: str) -> str:
    return base64.b64encode(s.encode()).decode()


def name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def results(text: str) -> list[dict]:
    """The stream of JSON objects a produce answers (\\r\\n between them)."""
    out, dec, i = [], json.JSONDecoder(), 0
    while i < len(text):
        while i < len(text) and text[i] in " \r\n\t":
            i += 1
        if i == len(text):
            break
        obj, i = dec.raw_decode(text, i)
        out.append(obj)
    return out


def test_clusters_brokers_and_topic_crud_match_kafkas_tools(proxy):
    c = http(proxy)
    cid = cluster_id(c)
    base = proxy.rest_proxy_url()
    r = c.get(f"/v3/clusters/{cid}").json()
    assert r["kind"] == "KafkaCluster" and r["metadata"]["self"] == f"{base}/v3/clusters/{cid}"
    assert r["metadata"]["resource_name"] == f"crn:///kafka={cid}"
    assert r["topics"]["related"] == f"{base}/v3/clusters/{cid}/topics"
    brokers = c.get(f"/v3/clusters/{cid}/brokers").json()
    assert brokers["kind"] == "KafkaBrokerList" and [x["broker_id"] for x in brokers["data"]] == [1]
    assert c.get(f"/v3/clusters/{cid}/brokers/1/configs/num.io.threads").json()["value"] == "8"
    assert c.get("/v3/clusters/not-this-one/topics").status_code == 404

    t = name("crud")
    r = c.post(f"/v3/clusters/{cid}/topics", json={
        "topic_name": t, "partitions_count": 4, "replication_factor": 1,
        "configs": [{"name": "cleanup.policy", "value": "compact"}]})
    assert r.status_code == 201, r.text
    assert r.json()["partitions_count"] == 4 and r.json()["topic_name"] == t
    described = tool(TOPICS, "--bootstrap-server", proxy.bootstrap, "--describe", "--topic", t)
    assert "PartitionCount: 4" in described and "cleanup.policy=compact" in described
    got = c.get(f"/v3/clusters/{cid}/topics/{t}").json()
    assert (got["kind"], got["partitions_count"], got["replication_factor"]) == ("KafkaTopic", 4, 1)
    assert t in [x["topic_name"] for x in c.get(f"/v3/clusters/{cid}/topics").json()["data"]]
    parts = c.get(f"/v3/clusters/{cid}/topics/{t}/partitions").json()["data"]
    assert [p["partition_id"] for p in parts] == [0, 1, 2, 3]
    assert parts[0]["leader"]["related"].endswith(f"/topics/{t}/partitions/0/replicas/1")
    dup = c.post(f"/v3/clusters/{cid}/topics", json={"topic_name": t, "partitions_count": 1})
    assert dup.status_code == 400 and dup.json()["error_code"] == 40002

    # configs: one, a batch, a reset; each seen by kafka-configs
    assert c.put(f"/v3/clusters/{cid}/topics/{t}/configs/retention.ms", json={"value": "123456"}).status_code == 204
    assert c.post(f"/v3/clusters/{cid}/topics/{t}/configs:alter", json={"data": [
        {"name": "segment.ms", "value": "3600000"}, {"name": "cleanup.policy", "operation": "DELETE"}]}).status_code == 204
    shown = tool(CONFIGS, "--bootstrap-server", proxy.bootstrap, "--describe", "--entity-type", "topics",
                 "--entity-name", t)
    assert "retention.ms=123456" in shown and "segment.ms=3600000" in shown and "cleanup.policy" not in shown
    cfg = c.get(f"/v3/clusters/{cid}/topics/{t}/configs/retention.ms").json()
    assert (cfg["kind"], cfg["value"], cfg["is_default"], cfg["source"]) == (
        "KafkaTopicConfig", "123456", False, "DYNAMIC_TOPIC_CONFIG")
    listed = {x["name"]: x for x in c.get(f"/v3/clusters/{cid}/topics/{t}/configs").json()["data"]}
    assert listed["segment.ms"]["value"] == "3600000" and listed["cleanup.policy"]["value"] == "delete"
    assert c.delete(f"/v3/clusters/{cid}/topics/{t}/configs/retention.ms").status_code == 204
    assert "retention.ms" not in tool(CONFIGS, "--bootstrap-server", proxy.bootstrap, "--describe", "--entity-type",
                                      "topics", "--entity-name", t)
    bad = c.put(f"/v3/clusters/{cid}/topics/{t}/configs/retention.ms", json={"value": "soon"})
    assert bad.status_code == 400 and bad.json()["error_code"] == 40002

    assert c.delete(f"/v3/clusters/{cid}/topics/{t}").status_code == 204
    gone = c.get(f"/v3/clusters/{cid}/topics/{t}")
    assert gone.status_code == 404 and gone.json()["error_code"] == 40403
    assert t not in tool(TOPICS, "--bootstrap-server", proxy.bootstrap, "--list")


def kcat_records(bootstrap: str, topic: str, count: int) -> list[tuple[int, int, str, str, str]]:
    """(partition, offset, key, value, headers) as kcat reads them."""
    if not shutil.which("kcat"):
        pytest.skip("kcat is not installed")
    out = subprocess.run(["kcat", "-b", bootstrap, "-C", "-t", topic, "-e", "-q", "-c", str(count),
                          "-f", "%p\t%o\t%k\t%s\t%h\n"], capture_output=True, text=True, timeout=120, check=True)
    rows = []
    for line in out.stdout.splitlines():
        p, o, k, v, h = line.split("\t")
        rows.append((int(p), int(o), k, v, h))
    return sorted(rows)


def java_records(bootstrap: str, topic: str, count: int) -> list[tuple[int, int, str, str, str]]:
    out = tool(CONSOLE, "--bootstrap-server", bootstrap, "--topic", topic, "--from-beginning", "--max-messages",
               str(count), "--timeout-ms", "30000", "--property", "print.partition=true", "--property",
               "print.offset=true", "--property", "print.headers=true", "--property", "print.key=true",
               check=False, timeout=180)
    rows = []
    for line in out.splitlines():
        m = re.match(r"Partition:(\d+)\tOffset:(\d+)\t(.*?)\t(.*?)\t(.*)$", line)
        if m:
            rows.append((int(m[1]), int(m[2]), m[4], m[5], m[3]))
    return sorted(rows)


def test_records_one_by_one_read_back_by_kcat_and_the_java_consumer(proxy):
    c = http(proxy)
    cid = cluster_id(c)
    t = name("one")
    assert c.post(f"/v3/clusters/{cid}/topics", json={"topic_name": t, "partitions_count": 3}).status_code == 201
    sent = [
        {"partition_id": 1, "key": {"type": "BINARY", "data": b64("k-bin")},
         "value": {"type": "JSON", "data": {"n": 1, "s": "x"}}, "headers": [{"name": "h1", "value": b64("v1")}]},
        {"partition_id": 2, "key": {"type": "STRING", "data": "k-str"}, "value": {"type": "STRING", "data": "plain"},
         "timestamp": "2024-05-01T10:00:00.250Z"},
        {"partition_id": 1, "key": {"type": "JSON", "data": "k-json"}, "value": {"type": "BINARY", "data": b64("bytes")}},
    ]
    answers = []
    for rec in sent:
        r = c.post(f"/v3/clusters/{cid}/topics/{t}/records", json=rec)
        assert r.status_code == 200, r.text
        answers.append(results(r.text)[0])
    assert [(a["error_code"], a["partition_id"], a["offset"]) for a in answers] == [(200, 1, 0), (200, 2, 0), (200, 1, 1)]
    assert answers[0]["key"] == {"type": "BINARY", "size": 5} and answers[0]["value"]["type"] == "JSON"
    assert answers[1]["timestamp"] == "2024-05-01T10:00:00.250Z"
    assert answers[0]["topic_name"] == t and answers[0]["cluster_id"] == cid
    expected = [(1, 0, "k-bin", '{"n":1,"s":"x"}', "h1=v1"), (1, 1, '"k-json"', "bytes", ""),
                (2, 0, "k-str", "plain", "")]
    assert kcat_records(proxy.bootstrap, t, 3) == expected
    java = java_records(proxy.bootstrap, t, 3)
    assert [(p, o, k, v) for p, o, k, v, _ in java] == [(p, o, k, v) for p, o, k, v, _ in expected]
    assert java[0][4] == "h1:v1" and java[1][4] == "NO_HEADERS"

    unknown = c.post(f"/v3/clusters/{cid}/topics/{name('nope')}/records", json=sent[0])
    assert unknown.status_code == 404 and unknown.json()["error_code"] == 40401
    empty = c.post(f"/v3/clusters/{cid}/topics/{t}/records", content=b"", headers={"Content-Type": JSON})
    assert empty.status_code == 422 and empty.json()["error_code"] == 42206


def test_streamed_produce_20000_records_in_order_and_read_back(proxy):
    c = http(proxy)
    cid = cluster_id(c)
    t = name("stream")
    assert c.post(f"/v3/clusters/{cid}/topics", json={"topic_name": t, "partitions_count": 4}).status_code == 201
    n = 20000

    def body():
        for i in range(n):
            rec = {"key": {"type": "STRING", "data": f"key-{i}"}, "value": {"type": "STRING", "data": f"value-{i}"},
                   "headers": [{"name": "seq", "value": b64(str(i))}]}
            if i == 777:
                rec["key"] = {"type": "BINARY", "data": "%%% not base64"}
            yield (json.dumps(rec) + "\n").encode()

    started = time.monotonic()
    r = c.post(f"/v3/clusters/{cid}/topics/{t}/records", content=body(), headers={"Content-Type": JSON})
    elapsed = time.monotonic() - started
    assert r.status_code == 200 and r.headers.get("transfer-encoding") == "chunked"
    got = results(r.text)
    assert len(got) == n
    assert got[777]["error_code"] == 400 and "base64" in got[777]["message"]
    next_offset: dict[int, int] = {}
    expected = []
    for i, a in enumerate(got):
        if i == 777:
            continue
        assert a["error_code"] == 200, a
        p = a["partition_id"]
        assert a["offset"] == next_offset.get(p, 0), (i, a)  # in order: each partition's offsets count up
        next_offset[p] = a["offset"] + 1
        expected.append((p, a["offset"], f"key-{i}", f"value-{i}", f"seq={i}"))
    assert len(next_offset) == 4  # keyed records spread by the key's hash
    print(f"streamed {n} records in {elapsed:.2f} s ({n / elapsed:.0f} records/s)")
    assert kcat_records(proxy.bootstrap, t, n - 1) == sorted(expected)
    java = java_records(proxy.bootstrap, t, n - 1)
    assert [(p, o, k, v) for p, o, k, v, _ in java] == [(p, o, k, v) for p, o, k, v, _ in sorted(expected)]


def test_bad_requests_get_confluents_errors_and_spare_other_connections(proxy):
    c = http(proxy)
    cid = cluster_id(c)
    other = http(proxy)  # kept open throughout
    assert other.get("/v3/clusters").status_code == 200
    r = c.post(f"/v3/clusters/{cid}/topics", content=b"{not json", headers={"Content-Type": JSON})
    assert r.status_code == 400 and r.json()["error_code"] == 400
    r = c.post(f"/v3/clusters/{cid}/topics", content=b"<topic/>", headers={"Content-Type": "text/xml"})
    assert r.status_code == 415 and r.json() == {"error_code": 415, "message": "HTTP 415 Unsupported Media Type"}
    r = c.get("/v3/clusters", headers={"Accept": "text/html"})
    assert r.status_code == 406 and r.json()["error_code"] == 406
    r = c.get("/no/such/path")
    assert r.status_code == 404 and r.json() == {"error_code": 404, "message": "HTTP 404 Not Found"}
    assert r.headers["content-type"] == "application/vnd.kafka.v2+json"
    r = c.delete("/v3/clusters")
    assert r.status_code == 405
    huge = b'{"topic_name": "' + b"x" * (2 << 20) + b'"}'
    r = c.post(f"/v3/clusters/{cid}/topics", content=huge, headers={"Content-Type": JSON})
    assert r.status_code == 413 and r.json()["error_code"] == 413
    # a streamed record over the limit ends that stream with an error object
    t = name("big")
    assert c.post(f"/v3/clusters/{cid}/topics", json={"topic_name": t, "partitions_count": 1}).status_code == 201
    ok = json.dumps({"value": {"type": "STRING", "data": "small"}}).encode()
    big = json.dumps({"value": {"type": "STRING", "data": "y" * (2 << 20)}}).encode()
    r = http(proxy).post(f"/v3/clusters/{cid}/topics/{t}/records", content=iter([ok, big]),
                         headers={"Content-Type": JSON})
    got = results(r.text)
    assert got[0]["error_code"] == 200 and got[-1]["error_code"] == 413
    r = http(proxy).post(f"/v3/clusters/{cid}/topics/{t}/records", content=iter([ok, b" garbage "]),
                         headers={"Content-Type": JSON})
    got = results(r.text)
    assert [g["error_code"] for g in got] == [200, 400]
    assert other.get(f"/v3/clusters/{cid}/topics/{t}").json()["topic_name"] == t
    metrics = urllib.request.urlopen(f"http://127.0.0.1:{proxy.http_port()}/metrics", timeout=10).read().decode()
    assert re.search(r'skiff_rest_proxy_requests_total\{endpoint="v3.clusters.list",status="200"\} [1-9]', metrics)
    assert re.search(r'skiff_rest_proxy_requests_total\{endpoint="v3.topics.create",status="415"\} 1', metrics)


SASL_USERS = ('org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="admin-secret" '
              'user_alice="alice-secret";')


def test_basic_auth_maps_to_sasl_users_and_acls_answer_403(client, tmp_path):
    only_for(client, "confluent_kafka")
    b = proxy_broker(tmp_path, **{
        "listeners": "SASL_PLAINTEXT://127.0.0.1:0", "listener.security.protocol.map": "SASL_PLAINTEXT:SASL_PLAINTEXT",
        "sasl.enabled.mechanisms": "PLAIN", "listener.name.sasl_plaintext.plain.sasl.jaas.config": SASL_USERS,
        "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users": "User:admin"})
    b.start()
    try:
        anonymous = http(b)
        r = anonymous.get("/v3/clusters")
        assert r.status_code == 401 and r.json()["error_code"] == 401
        assert http(b, auth=("alice", "wrong")).get("/v3/clusters").status_code == 401
        admin = http(b, auth=("admin", "admin-secret"))
        alice = http(b, auth=("alice", "alice-secret"))
        cid = cluster_id(admin)
        t = name("acl")
        assert admin.post(f"/v3/clusters/{cid}/topics", json={"topic_name": t, "partitions_count": 1}).status_code == 201
        denied = alice.post(f"/v3/clusters/{cid}/topics", json={"topic_name": name("no"), "partitions_count": 1})
        assert denied.status_code == 403 and denied.json()["error_code"] == 40301, denied.text
        assert t not in [x["topic_name"] for x in alice.get(f"/v3/clusters/{cid}/topics").json()["data"]]
        rec = {"value": {"type": "STRING", "data": "v"}}
        r = alice.post(f"/v3/clusters/{cid}/topics/{t}/records", json=rec)
        assert r.status_code == 403 and r.json()["error_code"] == 40301, r.text
        r = admin.post(f"/v3/clusters/{cid}/topics/{t}/records", json=rec)
        assert r.status_code == 200 and results(r.text)[0]["offset"] == 0
    finally:
        b.stop()


def test_https_endpoint_and_a_busy_explicit_port(client, tmp_path):
    only_for(client, "confluent_kafka")
    certs = tmp_path / "certs"
    certs.mkdir()
    make_ca(certs, "ca")
    make_cert(certs, "ca", "server", "/CN=localhost", SERVER_EXT)
    b = proxy_broker(tmp_path, **{"listener.name.rest_proxy.ssl.keystore.location": str(certs / "server.pem")})
    b.rest_proxy_listeners = "https://127.0.0.1:0"
    b.start()
    try:
        url = b.rest_proxy_url()
        assert url and url.startswith("https://"), b.log_tail()
        c = httpx.Client(base_url=url, verify=str(certs / "ca.pem"), timeout=30)
        cid = cluster_id(c)
        assert c.get(f"/v3/clusters/{cid}").json()["metadata"]["self"].startswith("https://")
    finally:
        b.stop()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        b = proxy_broker(tmp_path / "busy")
        b.rest_proxy_listeners = f"http://127.0.0.1:{port}"
        with pytest.raises(BrokerError, match="exited with 2") as e:
            b.start()
        assert "rest.proxy.listeners" in str(e.value)
