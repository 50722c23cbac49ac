"""The built-in REST proxy's v2 API (issue 53) against the real binary:
records produced over HTTP (binary, json, avro, jsonschema, protobuf) read
by kcat and by confluent-kafka's consumer and Schema Registry deserializers
with the same keys, values and partitions (Kafka's murmur2 partitioner);
records produced by a Kafka client read through v2 consumer instances, by
subscription (a real group member: kafka-consumer-groups --describe sees
it and its committed offsets) and by assignment with seeks; two instances
of one group sharing the partitions; an instance that expires and leaves its
group; topics/partitions/brokers metadata; Confluent's 4xx for bad bodies,
unknown topics, partitions and instances.

Runs once, in the confluent_kafka run (its Python client is the driver);
each test's broker is its own, with the proxy and the registry on free
ports."""
from __future__ import annotations

import base64
import json
import re
import struct
import subprocess
import threading
import time
import urllib.error
import urllib.request

import pytest

from conftest import BROKER_OVERRIDES, skiff_binary
from harness.broker import SkiffBroker
from test_admin import only_for

pytest.importorskip("confluent_kafka")
from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

V2 = "application/vnd.kafka.v2+json"
BINARY = "application/vnd.kafka.binary.v2+json"
JSONF = "application/vnd.kafka.json.v2+json"
AVROF = "application/vnd.kafka.avro.v2+json"
JSONSCHEMAF = "application/vnd.kafka.jsonschema.v2+json"
PROTOBUFF = "application/vnd.kafka.protobuf.v2+json"
PROXY_ON = re.compile(r"REST proxy on (https?://)?([\d.]+):(\d+)")


class Proxy:
    def __init__(self, broker: SkiffBroker):
        self.broker = broker
        m = PROXY_ON.search(broker.log_path.read_text(errors="replace"))
        assert m, broker.log_tail()
        self.url = f"http://{m.group(2)}:{m.group(3)}"

    def call(self, method: str, path: str, body=None, content_type: str = V2, timeout: float = 40):
        data = (body if isinstance(body, bytes) else json.dumps(body).encode()) if body is not None else None
        headers = {"Content-Type": content_type, "Accept": "application/vnd.kafka.v2+json, */*"}
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                raw = r.read()
                return r.status, (json.loads(raw) if raw else None)
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                return e.code, json.loads(raw)
            except ValueError:
                return e.code, raw.decode(errors="replace")


def start_proxy(tmp_path, **overrides) -> SkiffBroker:
    b = SkiffBroker(skiff_binary(), tmp_path / "data", tmp_path,
                    {**BROKER_OVERRIDES, "rest.proxy.listeners": "http://127.0.0.1:0", **overrides})
    b.schema_registry_listeners = "http://127.0.0.1:0"
    b.start()
    return b


@pytest.fixture
def proxy(client, tmp_path):
    only_for(client, "confluent_kafka")
    b = start_proxy(tmp_path)
    try:
        yield Proxy(b)
    finally:
        b.stop()


def make_topic(broker: SkiffBroker, name: str, partitions: int = 3) -> str:
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(name, partitions, 1)])[name].result(30)
    return name


def kafka_produce(broker: SkiffBroker, topic: str, records: list[tuple[bytes, bytes]]) -> list[tuple]:
    """(partition, offset, key, value) of each record, produced by librdkafka
    with the Java client's partitioner."""
    p = Producer({"bootstrap.servers": broker.bootstrap, "partitioner": "murmur2_random"})
    out = []
    for k, v in records:
        p.produce(topic, key=k, value=v,
                  on_delivery=lambda err, m: out.append((m.partition(), m.offset(), m.key(), m.value())))
    assert p.flush(30) == 0
    return out


def kafka_read(broker: SkiffBroker, topic: str, count: int, timeout: float = 30) -> list:
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": f"reader-{topic}",
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.subscribe([topic])
    got = []
    deadline = time.monotonic() + timeout
    try:
        while len(got) < count and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is not None and not m.error():
                got.append(m)
    finally:
        c.close()
    return got


def kcat_read(broker: SkiffBroker, topic: str) -> set[tuple]:
    p = subprocess.run(["kcat", "-b", broker.bootstrap, "-C", "-t", topic, "-e", "-q", "-f", "%p\x1f%o\x1f%k\x1f%s\x1e"],
                       capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr
    rows = [r.split(b"\x1f") for r in p.stdout.split(b"\x1e") if r]
    return {(int(r[0]), int(r[1]), r[2], r[3]) for r in rows}


def b64(b: bytes) -> str:
    return base64.b64encode(b).decode()


def skip_without_encode(status, body):
    if status == 422 and "not supported" in json.dumps(body):
        pytest.skip(f"ParsedSchema::encode of this format is not merged yet: {body}")


# ----------------------------------------------------------------- produce
def test_binary_produce_read_by_kcat_and_confluent_kafka(proxy):
    b = proxy.broker
    topic = make_topic(b, "v2-binary")
    twin = make_topic(b, "v2-binary-twin")
    keys = [f"key-{i}".encode() for i in range(12)]
    records = [{"key": b64(k), "value": b64(b"value \x00\xff " + k)} for k in keys]
    status, body = proxy.call("POST", f"/topics/{topic}", {"records": records}, BINARY)
    assert status == 200, body
    assert body["key_schema_id"] is None and body["value_schema_id"] is None
    offsets = body["offsets"]
    assert len(offsets) == 12 and all(o["error_code"] is None and o["error"] is None for o in offsets)
    # The partitions of the Java client's partitioner for the same keys.
    expected = {k: p for p, _, k, _ in kafka_produce(b, twin, [(k, b"x") for k in keys])}
    assert [o["partition"] for o in offsets] == [expected[k] for k in keys]
    want = {(o["partition"], o["offset"], k, b"value \x00\xff " + k) for o, k in zip(offsets, keys)}
    assert {(m.partition(), m.offset(), m.key(), m.value()) for m in kafka_read(b, topic, 12)} == want
    # kcat prints text: compare the printable part.
    got = kcat_read(b, topic)
    assert {(p, o, k) for p, o, k, _ in got} == {(p, o, k) for p, o, k, _ in want}

    # To a partition; null keys and values; a record's own partition.
    status, body = proxy.call("POST", f"/topics/{topic}/partitions/2",
                              {"records": [{"value": b64(b"a")}, {"key": None, "value": None}]}, BINARY)
    assert status == 200 and [o["partition"] for o in body["offsets"]] == [2, 2], body
    assert body["offsets"][1]["offset"] == body["offsets"][0]["offset"] + 1
    status, body = proxy.call("POST", f"/topics/{topic}", {"records": [{"value": b64(b"p1"), "partition": 1}]},
                              BINARY)
    assert status == 200 and body["offsets"][0]["partition"] == 1, body


def test_json_produce_is_the_compact_text(proxy):
    b = proxy.broker
    topic = make_topic(b, "v2-json")
    values = [{"id": 1, "tags": ["a", "b"], "price": 2.5}, "text", 7, None]
    status, body = proxy.call("POST", f"/topics/{topic}",
                              {"records": [{"key": {"k": i}, "value": v} for i, v in enumerate(values)]}, JSONF)
    assert status == 200, body
    got = {(m.key(), m.value()) for m in kafka_read(b, topic, 4)}
    assert got == {(json.dumps({"k": i}, separators=(",", ":")).encode(),
                    None if v is None else json.dumps(v, separators=(",", ":")).encode())
                   for i, v in enumerate(values)}


ORDER_AVRO = json.dumps({"type": "record", "name": "Order", "namespace": "shop",
                         "fields": [{"name": "id", "type": "long"}, {"name": "item", "type": "string"}]})


def test_avro_produce_read_by_confluent_deserializer(proxy):
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.avro import AvroDeserializer
    from confluent_kafka.serialization import MessageField, SerializationContext
    b = proxy.broker
    topic = make_topic(b, "v2-avro")
    values = [{"id": i, "item": f"thing-{i}"} for i in range(4)]
    status, body = proxy.call("POST", f"/topics/{topic}",
                              {"key_schema": '"string"', "value_schema": ORDER_AVRO,
                               "records": [{"key": f"k{v['id']}", "value": v} for v in values]}, AVROF)
    skip_without_encode(status, body)
    assert status == 200, body
    sr = SchemaRegistryClient({"url": b.schema_registry_url()})
    assert sr.get_latest_version(f"{topic}-value").schema_id == body["value_schema_id"]
    assert sr.get_latest_version(f"{topic}-key").schema_id == body["key_schema_id"]
    # By id this time: the same ids answered.
    status, again = proxy.call("POST", f"/topics/{topic}",
                               {"value_schema_id": body["value_schema_id"], "records": [{"value": values[0]}]}, AVROF)
    assert status == 200 and again["value_schema_id"] == body["value_schema_id"], again
    de = AvroDeserializer(sr)
    got = [(de(m.key(), SerializationContext(topic, MessageField.KEY)) if m.key() else None,
            de(m.value(), SerializationContext(topic, MessageField.VALUE))) for m in kafka_read(b, topic, 5)]
    assert sorted(got, key=lambda kv: (kv[0] or "", kv[1]["id"])) == \
        sorted([(None, values[0])] + [(f"k{v['id']}", v) for v in values], key=lambda kv: (kv[0] or "", kv[1]["id"]))


def test_jsonschema_produce_read_by_confluent_deserializer(proxy):
    from confluent_kafka.schema_registry.json_schema import JSONDeserializer
    from confluent_kafka.serialization import MessageField, SerializationContext
    b = proxy.broker
    topic = make_topic(b, "v2-jsonschema")
    schema = json.dumps({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]})
    status, body = proxy.call("POST", f"/topics/{topic}",
                              {"value_schema": schema, "records": [{"value": {"id": i}} for i in range(3)]},
                              JSONSCHEMAF)
    skip_without_encode(status, body)
    assert status == 200, body
    de = JSONDeserializer(schema)
    got = [de(m.value(), SerializationContext(topic, MessageField.VALUE)) for m in kafka_read(b, topic, 3)]
    assert sorted(v["id"] for v in got) == [0, 1, 2]
    status, bad = proxy.call("POST", f"/topics/{topic}",
                             {"value_schema_id": body["value_schema_id"], "records": [{"value": {"id": "x"}}]},
                             JSONSCHEMAF)
    assert status == 422 and bad["error_code"] == 42207, bad


def test_protobuf_produce_framed_as_confluent_serializer(proxy):
    b = proxy.broker
    topic = make_topic(b, "v2-protobuf")
    proto = 'syntax = "proto3";\npackage shop;\nmessage Order {\n  int64 id = 1;\n  string item = 2;\n}\n'
    status, body = proxy.call("POST", f"/topics/{topic}",
                              {"value_schema": proto, "records": [{"value": {"id": 5, "item": "hat"}}]}, PROTOBUFF)
    skip_without_encode(status, body)
    assert status == 200, body
    (m,) = kafka_read(b, topic, 1)
    v = m.value()
    assert v[0] == 0 and struct.unpack(">i", v[1:5])[0] == body["value_schema_id"]
    # Message index [0] (one zero byte), then field 1 = 5, field 2 = "hat".
    assert v[5:] == b"\x00" + b"\x08\x05" + b"\x12\x03hat"


# ---------------------------------------------------------------- metadata
def test_metadata_topics_partitions_brokers(proxy):
    b = proxy.broker
    topic = make_topic(b, "v2-meta")
    status, topics = proxy.call("GET", "/topics")
    assert status == 200 and topic in topics, topics
    status, t = proxy.call("GET", f"/topics/{topic}")
    assert status == 200 and t["name"] == topic and len(t["partitions"]) == 3, t
    assert "cleanup.policy" in t["configs"]
    status, parts = proxy.call("GET", f"/topics/{topic}/partitions")
    assert [p["partition"] for p in parts] == [0, 1, 2]
    leader = parts[0]["leader"]
    assert parts[0]["replicas"] == [{"broker": leader, "leader": True, "in_sync": True}]
    assert proxy.call("GET", f"/topics/{topic}/partitions/1")[1]["partition"] == 1
    status, brokers = proxy.call("GET", "/brokers")
    assert status == 200 and brokers == {"brokers": [leader]}


# -------------------------------------------------------------- consumers
def create_instance(proxy, group, name, **config):
    status, body = proxy.call("POST", f"/consumers/{group}", {"name": name, **config})
    assert status == 200, body
    assert body["instance_id"] == name
    assert body["base_uri"] == f"{proxy.url}/consumers/{group}/instances/{name}"
    return f"/consumers/{group}/instances/{name}"


def poll_until(proxy, base, count, fmt=BINARY, timeout=40):
    got = []
    deadline = time.monotonic() + timeout
    while len(got) < count and time.monotonic() < deadline:
        status, recs = proxy.call("GET", f"{base}/records?timeout=1000", content_type=fmt)
        assert status == 200, recs
        got += recs
    return got


def consumer_groups_describe(broker, group) -> list[list[str]]:
    from test_admin import tool
    out = tool("org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", "--bootstrap-server",
               broker.bootstrap, "--describe", "--group", group, timeout=60)
    return [line.split() for line in out.splitlines() if line.startswith(group + " ")]


def test_subscribed_instance_reads_kafka_records_and_commits(proxy):
    b = proxy.broker
    topic = make_topic(b, "v2-sub")
    produced = kafka_produce(b, topic, [(f"k{i}".encode(), f"v{i}".encode()) for i in range(30)])
    base = create_instance(proxy, "g-sub", "one", format="binary", **{"auto.offset.reset": "earliest",
                                                                      "auto.commit.enable": "false"})
    assert proxy.call("POST", f"{base}/subscription", {"topics": [topic]})[0] == 204
    assert proxy.call("GET", f"{base}/subscription") == (200, {"topics": [topic]})
    got = poll_until(proxy, base, 30)
    assert {(r["partition"], r["offset"], base64.b64decode(r["key"]), base64.b64decode(r["value"]))
            for r in got} == set(produced)
    assert all(r["topic"] == topic for r in got)
    status, assigned = proxy.call("GET", f"{base}/assignments")
    assert sorted(p["partition"] for p in assigned["partitions"]) == [0, 1, 2]
    assert proxy.call("POST", f"{base}/offsets") == (200, [])
    ends = {p: max(o for pp, o, _, _ in produced if pp == p) + 1 for p, _, _, _ in produced}
    status, committed = proxy.call("GET", f"{base}/offsets",
                                   {"partitions": [{"topic": topic, "partition": p} for p in range(3)]})
    assert status == 200
    assert {o["partition"]: o["offset"] for o in committed["offsets"]} == ends
    # Kafka's own tool sees the member and its offsets (no lag).
    rows = consumer_groups_describe(b, "g-sub")
    assert len(rows) == 3, rows
    assert all(r[3] == r[4] and r[5] == "0" and r[6] != "-" for r in rows), rows
    assert proxy.call("DELETE", base)[0] == 204
    assert proxy.call("GET", f"{base}/subscription")[1]["error_code"] == 40403


def test_assigned_instance_seeks_and_commits_with_generation_minus_one(proxy):
    b = proxy.broker
    topic = make_topic(b, "v2-assign", partitions=1)
    kafka_produce(b, topic, [(None, f"v{i}".encode()) for i in range(6)])
    base = create_instance(proxy, "g-assign", "m", format="binary")
    assert proxy.call("POST", f"{base}/assignments", {"partitions": [{"topic": topic, "partition": 0}]})[0] == 204
    assert proxy.call("POST", f"{base}/positions/beginning", {"partitions": [{"topic": topic, "partition": 0}]})[0] \
        == 204
    got = poll_until(proxy, base, 6)
    assert [r["offset"] for r in got] == list(range(6))
    assert proxy.call("POST", f"{base}/positions",
                      {"offsets": [{"topic": topic, "partition": 0, "offset": 4}]})[0] == 204
    assert [r["offset"] for r in poll_until(proxy, base, 2)] == [4, 5]
    assert proxy.call("POST", f"{base}/positions/end", {"partitions": [{"topic": topic, "partition": 0}]})[0] == 204
    status, none = proxy.call("GET", f"{base}/records?timeout=300", content_type=BINARY)
    assert (status, none) == (200, [])
    # Confluent commits the offset after the one named.
    assert proxy.call("POST", f"{base}/offsets", {"offsets": [{"topic": topic, "partition": 0, "offset": 2}]}) \
        == (200, [])
    c = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "g-assign"})
    try:
        (tp,) = c.committed([TopicPartition(topic, 0)], timeout=20)
        assert tp.offset == 3
    finally:
        c.close()


def test_seek_to_timestamps_as_offsets_for_times(proxy):
    b = proxy.broker
    topic = make_topic(b, "v2-seek-ts", partitions=2)
    p = Producer({"bootstrap.servers": b.bootstrap})
    base_ms = 1_700_000_000_000  # 2023-11-14T22:13:20Z
    for i in range(6):
        p.produce(topic, value=f"v{i}".encode(), partition=0, timestamp=base_ms + i * 1000)
    p.produce(topic, value=b"old", partition=1, timestamp=base_ms)
    assert p.flush(30) == 0
    base = create_instance(proxy, "g-seek-ts", "m", format="binary")
    parts = [{"topic": topic, "partition": 0}, {"topic": topic, "partition": 1}]
    assert proxy.call("POST", f"{base}/assignments", {"partitions": parts})[0] == 204
    # 3.5 s after the first record: offset 4 (the first at or after it);
    # partition 1 has none that late, so it goes to its end.
    assert proxy.call("POST", f"{base}/positions", {"timestamps": [
        {"topic": topic, "partition": 0, "timestamp": "2023-11-14T22:13:23.500Z"},
        {"topic": topic, "partition": 1, "timestamp": "2023-11-14T22:13:23.500Z"}]})[0] == 204
    got = poll_until(proxy, base, 2)
    assert [(r["partition"], r["offset"]) for r in got] == [(0, 4), (0, 5)]
    status, body = proxy.call("POST", f"{base}/positions", {"timestamps": [
        {"topic": topic, "partition": 0, "timestamp": "yesterday"}]})
    assert (status, body["error_code"]) == (422, 422), body
    assert proxy.call("DELETE", base)[0] == 204


def test_two_instances_of_one_group_share_the_partitions(proxy):
    b = proxy.broker
    topic = make_topic(b, "v2-share", partitions=4)
    produced = kafka_produce(b, topic, [(f"k{i}".encode(), b"v") for i in range(40)])
    bases = [create_instance(proxy, "g-share", n, **{"auto.offset.reset": "earliest"}) for n in ("a", "b")]
    for base in bases:
        assert proxy.call("POST", f"{base}/subscription", {"topics": [topic]})[0] == 204
    seen = {base: set() for base in bases}
    mine = {base: set() for base in bases}
    stop = time.monotonic() + 60

    def poll(base):
        while time.monotonic() < stop:
            status, recs = proxy.call("GET", f"{base}/records?timeout=500", content_type=BINARY)
            assert status == 200, recs
            seen[base] |= {(r["partition"], r["offset"]) for r in recs}
            # Only its own instance: a call on the other waits while that one
            # joins, and a member that does not poll in time is dropped.
            mine[base] = {p["partition"] for p in proxy.call("GET", f"{base}/assignments")[1]["partitions"]}
            parts = list(mine.values())
            shared = all(parts) and not (parts[0] & parts[1]) and parts[0] | parts[1] == {0, 1, 2, 3}
            if shared and len(seen[bases[0]] | seen[bases[1]]) == 40:
                return  # both keep polling until then (a member that stops polling is dropped)

    threads = [threading.Thread(target=poll, args=(base,)) for base in bases]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    parts = [{p["partition"] for p in proxy.call("GET", f"{x}/assignments")[1]["partitions"]} for x in bases]
    assert parts[0] and parts[1] and not (parts[0] & parts[1]) and parts[0] | parts[1] == {0, 1, 2, 3}, parts
    assert seen[bases[0]] | seen[bases[1]] == {(p, o) for p, o, _, _ in produced}
    rows = consumer_groups_describe(b, "g-share")
    assert len({r[6] for r in rows}) == 2, rows  # two consumer ids


def test_an_idle_instance_expires_and_leaves_its_group(client, tmp_path):
    only_for(client, "confluent_kafka")
    b = start_proxy(tmp_path, **{"rest.proxy.consumer.instance.timeout.ms": "2000"})
    try:
        proxy = Proxy(b)
        topic = make_topic(b, "v2-expire")
        base = create_instance(proxy, "g-expire", "idle")
        assert proxy.call("POST", f"{base}/subscription", {"topics": [topic]})[0] == 204
        assert proxy.call("GET", f"{base}/records?timeout=200", content_type=BINARY)[0] == 200
        admin = AdminClient({"bootstrap.servers": b.bootstrap})
        group = admin.describe_consumer_groups(["g-expire"])["g-expire"].result(20)
        assert len(group.members) == 1
        time.sleep(4)
        status, body = proxy.call("GET", f"{base}/subscription")
        assert status == 404 and body["error_code"] == 40403, body
        group = admin.describe_consumer_groups(["g-expire"])["g-expire"].result(20)
        assert group.members == []
        assert "expired" in b.log_path.read_text(errors="replace")
    finally:
        b.stop()


# ------------------------------------------------------------------- errors
def test_bad_bodies_and_unknown_names_get_confluents_4xx(proxy):
    b = proxy.broker
    topic = make_topic(b, "v2-errors")
    assert proxy.call("POST", "/topics/nope", {"records": [{"value": b64(b"x")}]}, BINARY) == \
        (404, {"error_code": 40401, "message": "Topic not found."})
    assert proxy.call("GET", "/topics/nope")[1]["error_code"] == 40401
    assert proxy.call("GET", f"/topics/{topic}/partitions/9")[1]["error_code"] == 40402
    status, body = proxy.call("POST", f"/topics/{topic}/partitions/9", {"records": []}, BINARY)
    assert (status, body["error_code"]) == (404, 40402)
    assert proxy.call("POST", f"/topics/{topic}", b"{not json", BINARY)[0] == 400
    assert proxy.call("POST", f"/topics/{topic}", {"records": [{"value": 5}]}, BINARY)[1]["error_code"] == 42203
    assert proxy.call("POST", f"/topics/{topic}", {"records": [{"value": {"a": 1}}]}, AVROF)[1]["error_code"] == 42202
    assert proxy.call("POST", f"/topics/{topic}", {"records": [{"key": 1}]}, AVROF)[1]["error_code"] == 42201
    assert proxy.call("POST", f"/topics/{topic}", {"value_schema": "{not avro", "records": [{"value": 1}]},
                      AVROF)[1]["error_code"] == 42205
    assert proxy.call("POST", f"/topics/{topic}", {"value_schema_id": 999, "records": [{"value": 1}]},
                      AVROF)[1]["error_code"] == 42207
    assert proxy.call("GET", "/consumers/g/instances/none/records", content_type=BINARY)[1]["error_code"] == 40403
    create_instance(proxy, "g-err", "dup")
    assert proxy.call("POST", "/consumers/g-err", {"name": "dup"}) == \
        (409, {"error_code": 40902,
               "message": "Consumer with specified consumer ID already exists in the specified consumer group."})
    assert proxy.call("POST", "/consumers/g-err", {"name": "x", "format": "xml"})[1]["error_code"] == 42204
    assert proxy.call("POST", "/consumers/g-err/instances/dup/subscription", {"topics": "t"})[0] == 422
    # The broker is still fine.
    assert proxy.call("POST", f"/topics/{topic}", {"records": [{"value": b64(b"ok")}]}, BINARY)[0] == 200
