"""The built-in Schema Registry (issue 52) with real clients: confluent-kafka
2.16's SchemaRegistryClient and its Avro, JSON Schema and Protobuf
serializers over a real topic, Confluent's REST answers and error bodies,
ids kept across a restart and a kill -9, Confluent's `_schemas` records
written by another registry read and served, a `_schemas` topic that
Confluent would refuse refused at startup, and the registry on an https://
endpoint (test certificates made with the openssl command line).

Runs in the confluent_kafka run (its Python client is the driver), the
@kafkajs/confluent-schema-registry scenario in the kafkajs run and franz-go's
pkg/sr one in the franz_go run; every broker is the test's own, with the
registry on a free port."""
from __future__ import annotations

import http.client
import json
import subprocess
import urllib.error
import urllib.request

import pytest

from conftest import BROKER_OVERRIDES, skiff_binary
from harness.broker import BrokerError, SkiffBroker
from harness.certs import SERVER_EXT, make_ca, make_cert
from harness.clients import CACHE
from test_admin import only_for

schema_registry = pytest.importorskip("confluent_kafka.schema_registry")
from confluent_kafka import Consumer, Producer  # noqa: E402
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient  # noqa: E402
from confluent_kafka.schema_registry.error import SchemaRegistryError  # noqa: E402
from confluent_kafka.serialization import MessageField, SerializationContext  # noqa: E402

CONTENT = "application/vnd.schemaregistry.v1+json"


def registry_broker(tmp_path, **overrides) -> SkiffBroker:
    b = SkiffBroker(skiff_binary(), tmp_path / "data", tmp_path, {**BROKER_OVERRIDES, **overrides})
    b.schema_registry_listeners = "http://127.0.0.1:0"
    return b


def rest(url: str, method: str, path: str, body: dict | None = None) -> tuple[int, object]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url + path, data=data, method=method, headers={"Content-Type": CONTENT})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            assert r.headers["Content-Type"] == CONTENT
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


@pytest.fixture
def registry(client, tmp_path):
    only_for(client, "confluent_kafka")
    b = registry_broker(tmp_path)
    b.start()
    yield b
    b.stop()


def test_rest_answers_and_error_codes(registry):
    url = registry.schema_registry_url()
    assert url, registry.log_tail()
    assert rest(url, "GET", "/subjects") == (200, [])
    assert rest(url, "GET", "/config") == (200, {"compatibilityLevel": "BACKWARD"})
    assert rest(url, "GET", "/schemas/types") == (200, ["AVRO", "JSON", "PROTOBUF"])
    assert rest(url, "POST", "/subjects/s/versions", {"schema": '"string"'}) == (200, {"id": 1})
    assert rest(url, "GET", "/subjects/s/versions/latest")[1]["schema"] == '"string"'
    assert rest(url, "GET", "/subjects/x/versions/1") == (404, {"error_code": 40401,
                                                                "message": "Subject 'x' not found."})
    assert rest(url, "GET", "/subjects/s/versions/9")[1]["error_code"] == 40402
    assert rest(url, "GET", "/schemas/ids/99")[1]["error_code"] == 40403
    assert rest(url, "POST", "/subjects/s/versions", {"schema": "{not avro"})[1]["error_code"] == 42201
    assert rest(url, "PUT", "/config", {"compatibility": "SIDEWAYS"})[1]["error_code"] == 42203
    assert rest(url, "PUT", "/mode", {"mode": "SIDEWAYS"})[1]["error_code"] == 42204
    assert rest(url, "POST", "/subjects/s/versions", {"schema": '"int"'})[0] == 409  # string -> int: BACKWARD fails
    assert rest(url, "DELETE", "/subjects/s?permanent=true")[1]["error_code"] == 40405  # soft first
    assert rest(url, "DELETE", "/subjects/s") == (200, [1])
    assert rest(url, "GET", "/subjects/s/versions")[1]["error_code"] == 40401
    assert rest(url, "GET", "/nowhere") == (404, {"error_code": 404, "message": "HTTP 404 Not Found"})
    assert rest(url, "POST", "/subjects/t/versions", {"schema": '"bytes"'}) == (200, {"id": 2})
    with urllib.request.urlopen(f"http://127.0.0.1:{registry.http_port()}/metrics", timeout=30) as r:
        metrics = r.read().decode()
    assert "skiff_schema_registry_subjects 1\n" in metrics, metrics
    assert "skiff_schema_registry_schemas 2\n" in metrics, metrics
    assert 'skiff_schema_registry_requests_total{endpoint="GET /subjects/{}/versions/{}",status="404"} 2' in metrics
    # A schema whose `_schemas` record would pass message.max.bytes (3 MiB here):
    # Confluent's 42209, nothing written; the next registration still works.
    huge = json.dumps({"type": "record", "name": "Big", "doc": "x" * 3_300_000, "fields": []})
    assert rest(url, "POST", "/subjects/big/versions", {"schema": huge}) == (
        422, {"error_code": 42209, "message": "Register operation failed because schema is too large"})
    assert rest(url, "GET", "/subjects/big/versions")[1]["error_code"] == 40401
    assert rest(url, "POST", "/subjects/small/versions", {"schema": '"long"'})[0] == 200


AVRO = json.dumps({"type": "record", "name": "Order", "namespace": "shop",
                   "fields": [{"name": "id", "type": "long"}, {"name": "item", "type": "string"}]})
AVRO_V2 = json.dumps({"type": "record", "name": "Order", "namespace": "shop",
                      "fields": [{"name": "id", "type": "long"}, {"name": "item", "type": "string"},
                                 {"name": "qty", "type": "int", "default": 1}]})


def round_trip(broker, topic, serializer, deserializer, values):
    p = Producer({"bootstrap.servers": broker.bootstrap})
    for v in values:
        p.produce(topic, value=serializer(v, SerializationContext(topic, MessageField.VALUE)))
    assert p.flush(30) == 0
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": topic + "-g", "auto.offset.reset": "earliest"})
    c.subscribe([topic])
    got = []
    try:
        for _ in range(60):
            m = c.poll(1.0)
            if m is None or m.error():
                continue
            got.append(deserializer(m.value(), SerializationContext(topic, MessageField.VALUE)))
            if len(got) == len(values):
                break
    finally:
        c.close()
    return got


def test_avro_serializer_round_trip_and_evolution(registry):
    from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
    sr = SchemaRegistryClient({"url": registry.schema_registry_url()})
    ser = AvroSerializer(sr, AVRO)
    values = [{"id": i, "item": f"thing-{i}"} for i in range(5)]
    got = round_trip(registry, "orders", ser, AvroDeserializer(sr), values)
    assert sorted(got, key=lambda v: v["id"]) == values
    assert sr.get_latest_version("orders-value").version == 1
    # A compatible change (a field with a default) registers as version 2.
    v2 = sr.register_schema("orders-value", Schema(AVRO_V2, "AVRO"))
    assert sr.get_version("orders-value", 2).schema_id == v2 != sr.get_version("orders-value", 1).schema_id
    assert sr.get_versions("orders-value") == [1, 2]
    assert sr.test_compatibility("orders-value", Schema(AVRO_V2, "AVRO"))
    # An incompatible one (a field without a default) is refused with 409.
    bad = json.dumps({"type": "record", "name": "Order", "namespace": "shop",
                      "fields": [{"name": "id", "type": "long"}, {"name": "owner", "type": "string"}]})
    with pytest.raises(SchemaRegistryError) as e:
        sr.register_schema("orders-value", Schema(bad, "AVRO"))
    assert e.value.http_status_code == 409


def test_json_schema_serializer_round_trip(registry):
    from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
    sr = SchemaRegistryClient({"url": registry.schema_registry_url()})
    schema = json.dumps({"$schema": "http://json-schema.org/draft-07/schema#", "title": "Order",
                         "type": "object", "properties": {"id": {"type": "integer"}, "item": {"type": "string"}},
                         "required": ["id"]})
    values = [{"id": i, "item": f"thing-{i}"} for i in range(3)]
    got = round_trip(registry, "json-orders", JSONSerializer(schema, sr), JSONDeserializer(schema), values)
    assert sorted(got, key=lambda v: v["id"]) == values
    assert sr.get_latest_version("json-orders-value").schema.schema_type == "JSON"


def test_protobuf_serializer_with_an_import(registry):
    from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    from google.protobuf import timestamp_pb2  # noqa: F401 (in the default pool, for the import)
    pool = descriptor_pool.Default()
    f = descriptor_pb2.FileDescriptorProto(name="shop/order.proto", package="shop", syntax="proto3",
                                           dependency=["google/protobuf/timestamp.proto"])
    m = f.message_type.add(name="Order")
    m.field.add(name="id", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_INT64,
                label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    m.field.add(name="at", number=2, type=descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE,
                type_name=".google.protobuf.Timestamp", label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    pool.Add(f)
    Order = message_factory.GetMessageClass(pool.FindMessageTypeByName("shop.Order"))
    sr = SchemaRegistryClient({"url": registry.schema_registry_url()})
    ser = ProtobufSerializer(Order, sr, {"use.deprecated.format": False})
    values = [Order(id=i) for i in range(3)]
    for v in values:
        v.at.seconds = 1700000000 + v.id
    got = round_trip(registry, "pb-orders", ser, ProtobufDeserializer(Order, {"use.deprecated.format": False}),
                     values)
    assert sorted((g.id, g.at.seconds) for g in got) == [(v.id, v.at.seconds) for v in values]
    latest = sr.get_latest_version("pb-orders-value")
    assert latest.schema.schema_type == "PROTOBUF"
    # Confluent's ?format=serialized: the FileDescriptorProto, base64.
    import base64
    status, body = rest(registry.schema_registry_url(), "GET", f"/schemas/ids/{latest.schema_id}?format=serialized")
    assert status == 200, body
    fd = descriptor_pb2.FileDescriptorProto.FromString(base64.b64decode(body["schema"]))
    assert [m.name for m in fd.message_type] == ["Order"] and "google/protobuf/timestamp.proto" in fd.dependency


def test_https_endpoint_serves_confluents_client_and_refuses_plain_http(client, tmp_path):
    """schema.registry.listeners=https://...: its key material from
    listener.name.schema_registry.ssl.* over the ssl.* keys; confluent-kafka's
    SchemaRegistryClient trusts the test CA and registers and reads a schema;
    a plain http:// request to that port gets no answer and costs only its
    own connection."""
    only_for(client, "confluent_kafka")
    certs = tmp_path / "certs"
    certs.mkdir()
    make_ca(certs, "ca")
    make_cert(certs, "ca", "server", "/CN=localhost", SERVER_EXT)
    b = registry_broker(tmp_path, **{"listener.name.schema_registry.ssl.keystore.location": str(certs / "server.pem")})
    b.schema_registry_listeners = "https://127.0.0.1:0"
    b.start()
    try:
        url = b.schema_registry_url()
        assert url and url.startswith("https://127.0.0.1:"), b.log_tail()
        sr = SchemaRegistryClient({"url": url, "ssl.ca.location": str(certs / "ca.pem")})
        sid = sr.register_schema("secure-value", Schema(AVRO, "AVRO"))
        assert json.loads(sr.get_schema(sid).schema_str)["name"] == "Order"
        assert sr.get_latest_version("secure-value").schema_id == sid
        with pytest.raises((OSError, http.client.HTTPException)):
            urllib.request.urlopen(url.replace("https://", "http://") + "/subjects", timeout=10).read()
        b.log_wait(r"HTTPS listener schema_registry: 1 TLS handshake\(s\) failed, their connections closed; the latest from 127\.0\.0\.1")
        assert SchemaRegistryClient({"url": url, "ssl.ca.location": str(certs / "ca.pem")}).get_subjects() == [
            "secure-value"]
    finally:
        b.stop()
    # Without key material an https:// endpoint is a configuration error (exit code 2) naming the key.
    b = registry_broker(tmp_path / "nokey")
    b.schema_registry_listeners = "https://127.0.0.1:0"
    with pytest.raises(BrokerError, match="exited with 2") as e:
        b.start()
    assert "no key material: set ssl.keystore.location" in str(e.value)
    assert "listener.name.schema_registry.ssl" in str(e.value)
    # A keystore that does not load is one too, found before the logs load.
    b = registry_broker(tmp_path / "badkey", **{"ssl.keystore.location": str(certs / "missing.pem")})
    b.schema_registry_listeners = "https://127.0.0.1:0"
    with pytest.raises(BrokerError, match="exited with 2") as e:
        b.start()
    assert "schema.registry.listeners: listener schema_registry: ssl.keystore.location" in str(e.value)


def test_ids_survive_restart_and_kill9(client, tmp_path):
    only_for(client, "confluent_kafka")
    b = registry_broker(tmp_path)
    b.start()
    try:
        url = b.schema_registry_url()
        ids = [rest(url, "POST", f"/subjects/s{i}/versions", {"schema": json.dumps(
            {"type": "enum", "name": f"E{i}", "symbols": ["A", "B"]})})[1]["id"] for i in range(5)]
        assert ids == [1, 2, 3, 4, 5]
        b.kill9()
        b.start()
        url = b.schema_registry_url()
        for i, sid in enumerate(ids):
            assert rest(url, "GET", f"/subjects/s{i}/versions/1")[1]["id"] == sid
        # A new schema after the crash takes the next id: none is reused.
        assert rest(url, "POST", "/subjects/new/versions", {"schema": '"long"'})[1]["id"] == 6
        b.restart()
        url = b.schema_registry_url()
        assert rest(url, "GET", "/schemas/ids/6")[1]["schema"] == '"long"'
    finally:
        b.stop()


def test_confluent_records_written_directly_are_served(client, tmp_path):
    """Records as Confluent's registry writes them to `_schemas` (its
    documented key and value JSON), produced by a plain producer before the
    registry starts, are replayed and served."""
    only_for(client, "confluent_kafka")
    b = registry_broker(tmp_path)
    b.schema_registry_listeners = ""
    b.start()
    try:
        from confluent_kafka.admin import AdminClient, NewTopic
        admin = AdminClient({"bootstrap.servers": b.bootstrap})
        admin.create_topics([NewTopic("_schemas", 1, 1, config={"cleanup.policy": "compact"})])["_schemas"].result(30)
        p = Producer({"bootstrap.servers": b.bootstrap})
        p.produce("_schemas", key='{"keytype":"NOOP","magic":0}', value=None)
        p.produce("_schemas", key='{"keytype":"SCHEMA","subject":"legacy-value","version":1,"magic":1}',
                  value='{"subject":"legacy-value","version":1,"id":21,"schema":"\\"string\\"","deleted":false}')
        p.produce("_schemas", key='{"keytype":"CONFIG","subject":"legacy-value","magic":0}',
                  value='{"compatibilityLevel":"FULL"}')
        assert p.flush(30) == 0
        b.stop()
        b.schema_registry_listeners = "http://127.0.0.1:0"
        b.start()
        url = b.schema_registry_url()
        assert rest(url, "GET", "/schemas/ids/21") == (200, {"schema": '"string"'})
        assert rest(url, "GET", "/config/legacy-value") == (200, {"compatibilityLevel": "FULL"})
        assert rest(url, "POST", "/subjects/next/versions", {"schema": '"bytes"'})[1]["id"] == 22
    finally:
        b.stop()


def test_a_schemas_topic_confluent_would_refuse_stops_the_broker(client, tmp_path):
    only_for(client, "confluent_kafka")
    b = registry_broker(tmp_path)
    b.schema_registry_listeners = ""
    b.start()
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    admin.create_topics([NewTopic("_schemas", 2, 1)])["_schemas"].result(30)
    b.stop()
    b.schema_registry_listeners = "http://127.0.0.1:0"
    with pytest.raises(BrokerError):
        b.start(timeout=10)
    log = b.log_path.read_text(errors="replace")
    assert "The schema topic _schemas should have only 1 partition but has 2" in log, log[-2000:]


def test_kafkajs_confluent_schema_registry(client, tmp_path):
    """@kafkajs/confluent-schema-registry 4.1 with kafkajs: register, encode,
    produce, consume, decode, and a 409 for an incompatible change."""
    only_for(client, "kafkajs")
    script = CACHE / "node" / "schema_registry.js"
    if not script.exists():
        pytest.skip(f"{script} missing (scripts/install-test-clients.sh kafkajs)")
    b = registry_broker(tmp_path)
    b.start()
    try:
        r = subprocess.run(["node", "--single-threaded", str(script), b.bootstrap, b.schema_registry_url()],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr[-3000:]
        out = json.loads(r.stdout.strip().splitlines()[-1])
        assert out["id"] == out["latestId"] == 1, out
        assert out["got"] == [{"id": i, "item": f"thing-{i}"} for i in (1, 2, 3)], out
        assert out["incompatible"] and "409" in out["incompatible"], out
    finally:
        b.stop()


def test_franz_go_sr(client, tmp_path):
    """franz-go's pkg/sr: a JSON Schema registered, values through its Serde
    over a real topic, a compatibility check, a 409 for an incompatible
    change (a closed model adding a required property)."""
    only_for(client, "franz_go")
    driver = CACHE / "go" / "franz-go-driver"
    if not driver.exists():
        pytest.skip(f"{driver} missing (scripts/install-test-clients.sh franz_go)")
    b = registry_broker(tmp_path)
    b.start()
    try:
        r = subprocess.run([str(driver), "sr", b.bootstrap, b.schema_registry_url()],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr[-3000:]
        out = json.loads(r.stdout.strip().splitlines()[-1])
        assert (out["id"], out["version"], out["byID"]) == (1, 1, "JSON"), out
        assert out["got"] == [{"id": i, "item": f"thing-{i}"} for i in (1, 2, 3)], out
        assert out["compatible"] is True and out["incompatibleStatus"] == 409, out
    finally:
        b.stop()
