"""Admin APIs and the idempotent producer against the real binary:
Apache Kafka's own CLI tools (kafka-topics, kafka-configs,
kafka-delete-records, kafka-get-offsets, kafka-log-dirs from the 4.4 jars of
scripts/fetch_kafka_jars.sh), confluent-kafka's AdminClient, kafkajs's admin,
franz-go's kadm, and idempotent
producers (confluent-kafka with enable.idempotence=true; the Java and franz-go
default producers are covered by test_compat.test_produce_with_client_defaults).

Each scenario belongs to one client run (the CLI to `java`, the AdminClient
and librdkafka idempotence to `confluent_kafka`, the kafkajs admin to
`kafkajs`, kadm to `franz_go`) and is skipped, with that
reason, in the others so that nothing runs twice."""
from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from harness.data import Rec

REPO = Path(__file__).resolve().parents[2]


def only_for(client, name):
    if client.name != name:
        pytest.skip(f"runs once, in the {name} run")


def kafka_jars() -> Path:
    d = os.environ.get("SKIFF_KAFKA_JARS")
    if d:
        return Path(d)
    out = subprocess.run([str(REPO / "scripts" / "fetch_kafka_jars.sh")], capture_output=True, text=True,
                         timeout=600)
    if out.returncode != 0:
        pytest.skip(f"Kafka's jars are not available: {out.stderr.strip()[-300:]}")
    return Path(out.stdout.strip().splitlines()[-1])


def tool(cls: str, *args: str, timeout: float = 90, check: bool = True) -> str:
    cmd = ["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", f"{kafka_jars()}/*",
           "-Dlog4j2.level=warn", cls, *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise AssertionError(f"{cls} {' '.join(args)} exited {p.returncode}\nstdout: {p.stdout[-2000:]}\n"
                             f"stderr: {p.stderr[-2000:]}")
    return p.stdout + p.stderr


def name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


# ----------------------------------------------------------- Kafka's own CLI
def test_kafka_cli_tools(client, broker, tmp_path):
    only_for(client, "java")
    b = broker.bootstrap
    t = name("cli")
    topics = "org.apache.kafka.tools.TopicCommand"
    tool(topics, "--bootstrap-server", b, "--create", "--topic", t, "--partitions", "2",
         "--replication-factor", "1", "--config", "retention.ms=123456")
    assert t in tool(topics, "--bootstrap-server", b, "--list").split()
    d = tool(topics, "--bootstrap-server", b, "--describe", "--topic", t)
    assert "PartitionCount: 2" in d and "retention.ms=123456" in d, d
    tool(topics, "--bootstrap-server", b, "--alter", "--topic", t, "--partitions", "3")
    assert "PartitionCount: 3" in tool(topics, "--bootstrap-server", b, "--describe", "--topic", t)

    configs = "org.apache.kafka.tools.ConfigCommand"
    out = tool(configs, "--bootstrap-server", b, "--describe", "--entity-type", "topics", "--entity-name", t)
    assert "retention.ms=123456" in out, out
    tool(configs, "--bootstrap-server", b, "--alter", "--entity-type", "topics", "--entity-name", t,
         "--add-config", "retention.ms=654321,max.message.bytes=2000000")
    out = tool(configs, "--bootstrap-server", b, "--describe", "--all", "--entity-type", "topics",
               "--entity-name", t)
    assert "retention.ms=654321" in out and "max.message.bytes=2000000" in out and "segment.bytes=" in out, out
    assert "max.decompressed.message.bytes=" in out and "remote.copy.lag.ms=" in out, out  # Kafka 4.4 keys
    out = tool(configs, "--bootstrap-server", b, "--alter", "--entity-type", "topics", "--entity-name", t,
               "--add-config", "message.downconversion.enable=true", check=False)  # removed in Kafka 4
    assert "InvalidConfigurationException: Unknown topic config name: message.downconversion.enable" in out, out
    tool(configs, "--bootstrap-server", b, "--alter", "--entity-type", "topics", "--entity-name", t,
         "--delete-config", "max.message.bytes")
    out = tool(configs, "--bootstrap-server", b, "--describe", "--entity-type", "topics", "--entity-name", t)
    assert "max.message.bytes" not in out, out
    out = tool(configs, "--bootstrap-server", b, "--describe", "--all", "--entity-type", "brokers",
               "--entity-name", "1")
    assert "node.id=1" in out, out

    res = client.produce(b, t, [Rec(p=0, k=b"k", v=b"v%d" % i) for i in range(10)], timeout=30)
    assert all("error" not in r for r in res), res[:3]
    offsets = "org.apache.kafka.tools.GetOffsetShell"
    out = tool(offsets, "--bootstrap-server", b, "--topic", t)
    assert f"{t}:0:10" in out.split() and f"{t}:1:0" in out.split(), out

    spec = tmp_path / "delete.json"
    spec.write_text(json.dumps({"version": 1, "partitions": [{"topic": t, "partition": 0, "offset": 4}]}))
    out = tool("org.apache.kafka.tools.DeleteRecordsCommand", "--bootstrap-server", b,
               "--offset-json-file", str(spec))
    assert "low_watermark: 4" in out, out
    out = tool(offsets, "--bootstrap-server", b, "--topic", t, "--time", "-2")
    assert f"{t}:0:4" in out.split(), out

    out = tool("org.apache.kafka.tools.LogDirsCommand", "--bootstrap-server", b, "--describe",
               "--topic-list", t)
    blob = out[out.index("{"):]
    dirs = json.loads(blob.strip().splitlines()[0])
    parts = [p for d in dirs["brokers"][0]["logDirs"] for p in d["partitions"]]
    assert {p["partition"] for p in parts} == {f"{t}-0", f"{t}-1", f"{t}-2"}, parts

    tool(topics, "--bootstrap-server", b, "--delete", "--topic", t)
    deadline = time.monotonic() + 20
    while t in tool(topics, "--bootstrap-server", b, "--list").split():
        assert time.monotonic() < deadline, "topic still listed after delete"
        time.sleep(0.5)
    # The name is reusable at once, and the new topic is empty.
    tool(topics, "--bootstrap-server", b, "--create", "--topic", t, "--partitions", "1")
    assert f"{t}:0:0" in tool(offsets, "--bootstrap-server", b, "--topic", t).split()


def test_kafka_cli_replication_factor_refused(client, broker):
    only_for(client, "java")
    out = tool("org.apache.kafka.tools.TopicCommand", "--bootstrap-server", broker.bootstrap, "--create",
               "--topic", name("rf3"), "--partitions", "1", "--replication-factor", "3", check=False)
    assert "InvalidReplicationFactorException" in out or "replication factor" in out.lower(), out


# ------------------------------------------------------ confluent-kafka admin
def test_confluent_admin(client, broker):
    only_for(client, "confluent_kafka")
    from confluent_kafka import TopicPartition
    from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource,
                                       NewPartitions, NewTopic)
    b = broker.bootstrap
    a = AdminClient({"bootstrap.servers": b})
    t = name("cadmin")
    for f in a.create_topics([NewTopic(t, 2, 1, config={"retention.ms": "222222"})]).values():
        f.result(30)
    assert t in a.list_topics(timeout=30).topics
    res = ConfigResource(ConfigResource.Type.TOPIC, t)
    cfg = a.describe_configs([res])[res].result(30)
    assert cfg["retention.ms"].value == "222222"
    assert cfg["cleanup.policy"].value == "delete"
    assert len(cfg) >= 30
    entry = ConfigEntry("segment.ms", "600000", incremental_operation=AlterConfigOpType.SET)
    a.incremental_alter_configs([ConfigResource(ConfigResource.Type.TOPIC, t, incremental_configs=[entry])])[
        ConfigResource(ConfigResource.Type.TOPIC, t)].result(30)
    cfg = a.describe_configs([res])[res].result(30)
    assert cfg["segment.ms"].value == "600000" and cfg["retention.ms"].value == "222222"
    for f in a.create_partitions([NewPartitions(t, 4)]).values():
        f.result(30)
    assert len(a.list_topics(t, timeout=30).topics[t].partitions) == 4
    brokers = ConfigResource(ConfigResource.Type.BROKER, "1")
    assert a.describe_configs([brokers])[brokers].result(30)["node.id"].value == "1"

    res_p = client.produce(b, t, [Rec(p=0, k=b"k", v=b"v%d" % i) for i in range(6)], timeout=30)
    assert all("error" not in r for r in res_p), res_p[:3]
    if hasattr(a, "delete_records"):
        done = a.delete_records([TopicPartition(t, 0, 2)])
        for f in done.values():
            f.result(30)
        assert client.list_offsets(b, t, [0], "earliest") == {0: 2}
    for f in a.delete_topics([t]).values():
        f.result(30)
    deadline = time.monotonic() + 20
    while t in a.list_topics(timeout=30).topics:
        assert time.monotonic() < deadline
        time.sleep(0.3)
    for f in a.create_topics([NewTopic(t, 1, 1)]).values():  # name reusable at once
        f.result(30)


def test_confluent_admin_kerberos_broker_config(client, own_broker):
    """librdkafka's AlterConfigs and IncrementalAlterConfigs on the BROKER
    resource with sasl.kerberos.min.time.before.relogin, a GSSAPI key Skiff
    stores without effect: Kafka 4.4 accepts it per broker and describes it
    back (DYNAMIC_BROKER_CONFIG); for "abc" it answers INVALID_REQUEST
    "Invalid value abc for configuration
    sasl.kerberos.min.time.before.relogin: Not a number of type LONG". Passes
    against Kafka 4.4 too (SKIFF_COMPAT_OWN_BROKER=kafka), which applies the
    change once its metadata log has it: hence the polling."""
    only_for(client, "confluent_kafka")
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, ConfigSource
    key = "sasl.kerberos.min.time.before.relogin"
    a = AdminClient({"bootstrap.servers": own_broker.bootstrap})
    node = ConfigResource(ConfigResource.Type.BROKER, "1")

    def described(expect: str | None = None) -> ConfigEntry:
        deadline = time.monotonic() + 15  # Kafka applies a change once its metadata log has it
        while True:
            entry = a.describe_configs([node])[node].result(30)[key]
            if expect is None or entry.value == expect or time.monotonic() > deadline:
                return entry
            time.sleep(0.2)

    assert described().value == "60000"
    res = ConfigResource(ConfigResource.Type.BROKER, "1", set_config={key: "70000"})
    a.alter_configs([res])[res].result(30)  # deprecated AlterConfigs: replaces the broker's values
    got = described("70000")
    assert got.value == "70000" and got.source == ConfigSource.DYNAMIC_BROKER_CONFIG.value, got
    res = ConfigResource(ConfigResource.Type.BROKER, "1", incremental_configs=[
        ConfigEntry(key, "80000", incremental_operation=AlterConfigOpType.SET)])
    a.incremental_alter_configs([res])[res].result(30)
    assert described("80000").value == "80000"
    # (confluent_kafka refuses the cluster default "" itself: the api tests cover it.)
    res = ConfigResource(ConfigResource.Type.BROKER, "1", incremental_configs=[
        ConfigEntry(key, "abc", incremental_operation=AlterConfigOpType.SET)])
    with pytest.raises(KafkaException) as e:
        a.incremental_alter_configs([res])[res].result(30)
    assert f"Invalid value abc for configuration {key}: Not a number of type LONG" in str(e.value), e.value
    assert described().value == "80000"
    own_broker.stop()
    a = AdminClient({"bootstrap.servers": own_broker.start()})
    assert described("80000").value == "80000"  # stored durably


def test_confluent_idempotent_producer(client, broker):
    only_for(client, "confluent_kafka")
    from confluent_kafka import Producer
    t = name("idem")
    p = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True, "linger.ms": 5})
    errors, offsets = [], []

    def done(err, msg):
        if err:
            errors.append(str(err))
        else:
            offsets.append(msg.offset())

    for i in range(500):
        p.produce(t, key=b"k", value=b"idem-%d" % i, partition=0, on_delivery=done)
        p.poll(0)
    assert p.flush(30) == 0
    assert not errors, errors[:3]
    assert sorted(offsets) == list(range(500))
    assert client.list_offsets(broker.bootstrap, t, [0], "latest") == {0: 500}


# ------------------------------------------------------------ kafkajs admin
def test_kafkajs_admin(client, broker):
    only_for(client, "kafkajs")
    seen = client.call({"op": "admin_ops", "bootstrap": broker.bootstrap, "topic": name("jsadmin"),
                        "compression": "none", "acks": -1}, timeout=60)
    assert seen["created"] is True and seen["listed"] is True, seen
    assert seen["configs"]["retention.ms"] == "333333" and seen["configs"]["cleanup.policy"] == "delete", seen
    assert seen["altered"] == "444444", seen
    assert seen["partitions"] == 3, seen
    assert seen["low"] == 3, seen
    assert seen["deleted"] is True, seen


# ------------------------------------------------------------ franz-go kadm
def test_franz_go_admin(client, broker):
    only_for(client, "franz_go")
    seen = client.admin_ops(broker.bootstrap, name("kadm"), timeout=60)
    assert seen["created"] is True and seen["created_partitions"] == 2 and seen["listed"] is True, seen
    assert seen["configs"]["retention.ms"] == "333333" and seen["configs"]["cleanup.policy"] == "delete", seen
    assert len(seen["configs"]) >= 30, seen
    assert seen["altered"] == {"retention.ms": "444444", "segment.ms": "600000"}, seen
    assert seen["partitions"] == 3, seen
    assert seen["low_watermark"] == 3, seen
    assert seen["low"] == {"0": 3, "1": 0, "2": 0} and seen["high"] == {"0": 5, "1": 0, "2": 0}, seen
    assert seen["deleted"] is True, seen
    # The name is reusable at once, as a new topic: its own partition count,
    # empty, and none of the old topic's configs.
    assert seen["recreated_partitions"] == 1, seen
    assert seen["recreated_low"] == {"0": 0} and seen["recreated_high"] == {"0": 0}, seen
    assert seen["recreated_configs"]["retention.ms"] not in ("333333", "444444"), seen
    assert seen["recreated_configs"]["segment.ms"] != "600000", seen


# ------------------------------------------------- dynamic broker configs
def test_kafka_cli_dynamic_broker_configs(client, own_broker):
    """kafka-configs --entity-type brokers: the cluster default and this
    broker's own values, as Kafka 4.4 describes them; a lowered
    message.max.bytes refuses a larger produce at once and after a restart."""
    only_for(client, "java")
    configs = "org.apache.kafka.tools.ConfigCommand"

    def alter(*args, check=True):
        return tool(configs, "--bootstrap-server", own_broker.bootstrap, "--alter", "--entity-type", "brokers", *args, check=check)

    def describe(*args):
        return tool(configs, "--bootstrap-server", own_broker.bootstrap, "--describe", "--entity-type", "brokers", *args)

    alter("--entity-default", "--add-config", "log.retention.ms=86400000")
    alter("--entity-name", "1", "--add-config", "message.max.bytes=2000")
    out = alter("--entity-name", "1", "--add-config", "node.id=3", check=False)
    assert "InvalidRequestException: Cannot update these configs dynamically: [node.id]" in out, out
    out = alter("--entity-default", "--add-config", "log.segment.bytes=5", check=False)
    assert "InvalidRequestException: Invalid value 5 for configuration log.segment.bytes" in out, out
    # Kafka 4.4's scope rules for the keys it allows dynamically (Kafka printed these).
    out = alter("--entity-default", "--add-config", "sasl.kerberos.min.time.before.relogin=70000", check=False)
    assert ("InvalidRequestException: Cannot update these configs at default cluster level, broker id must be "
            "specified: [sasl.kerberos.min.time.before.relogin]") in out, out
    out = alter("--entity-name", "1", "--add-config", "ssl.keystore.location=/x", check=False)
    assert ("InvalidRequestException: These security configs can be dynamically updated only per-listener using "
            "the listener prefix: [ssl.keystore.location]") in out, out
    alter("--entity-name", "1", "--add-config", "listener.name.plaintext.sasl.kerberos.min.time.before.relogin=1234")
    assert ("listener.name.plaintext.sasl.kerberos.min.time.before.relogin=1234 sensitive=false "
            "synonyms={DYNAMIC_BROKER_CONFIG:listener.name.plaintext.sasl.kerberos.min.time.before.relogin=1234, "
            "DEFAULT_CONFIG:sasl.kerberos.min.time.before.relogin=60000}") in describe("--entity-name", "1")
    alter("--entity-name", "1", "--delete-config", "listener.name.plaintext.sasl.kerberos.min.time.before.relogin")
    alter("--entity-name", "1", "--add-config", "foo.bar.baz=1")  # a key Kafka does not define: a plugin's
    assert ("foo.bar.baz=null sensitive=true synonyms={DYNAMIC_BROKER_CONFIG:foo.bar.baz=null}"
            in describe("--entity-name", "1"))
    alter("--entity-name", "1", "--delete-config", "foo.bar.baz")

    t = name("dyn")
    tool("org.apache.kafka.tools.TopicCommand", "--bootstrap-server", own_broker.bootstrap, "--create", "--topic", t,
         "--partitions", "1")

    def check_state():
        out = describe("--entity-default")
        assert ("Default configs for brokers in the cluster are:\n  log.retention.ms=86400000 sensitive=false "
                "synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=86400000}") in out, out
        out = describe("--entity-name", "1")
        assert ("Dynamic configs for broker 1 are:\n  message.max.bytes=2000 sensitive=false "
                "synonyms={DYNAMIC_BROKER_CONFIG:message.max.bytes=2000, STATIC_BROKER_CONFIG:message.max.bytes="
                "3145728, DEFAULT_CONFIG:message.max.bytes=1048588}") in out, out
        out = tool(configs, "--bootstrap-server", own_broker.bootstrap, "--describe", "--all", "--entity-type", "topics",
                   "--entity-name", t)
        # The topic inherits both, with the broker synonyms in Kafka's order.
        assert "  retention.ms=86400000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=" \
               "86400000" in out, out
        assert "  max.message.bytes=2000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:message.max.bytes=2000, " \
               "STATIC_BROKER_CONFIG:message.max.bytes=3145728, DEFAULT_CONFIG:message.max.bytes=1048588}" in out, out
        small = client.produce(own_broker.bootstrap, t, [Rec(p=0, k=b"k", v=b"x" * 100)], timeout=30)
        assert all("error" not in r for r in small), small
        large = client.produce(own_broker.bootstrap, t, [Rec(p=0, k=b"k", v=b"x" * 3000)], timeout=30)
        assert all("error" in r for r in large), large

    check_state()
    own_broker.restart()
    check_state()
    # Acknowledged means on disk: a change survives kill -9 right after it.
    alter("--entity-name", "1", "--add-config", "message.max.bytes=2500")
    own_broker.kill9()
    own_broker.start()
    assert "message.max.bytes=2500 sensitive=false" in describe("--entity-name", "1")
    alter("--entity-name", "1", "--delete-config", "message.max.bytes")
    large = client.produce(own_broker.bootstrap, t, [Rec(p=0, k=b"k", v=b"x" * 3000)], timeout=30)
    assert all("error" not in r for r in large), large


def test_kafka_cli_broker_loggers(client, broker):
    """kafka-configs --entity-type broker-loggers: levels listed, changed live,
    refused with Kafka 4.4's messages."""
    only_for(client, "java")
    configs = "org.apache.kafka.tools.ConfigCommand"
    base = ["--bootstrap-server", broker.bootstrap, "--entity-type", "broker-loggers", "--entity-name", "1"]
    out = tool(configs, "--describe", *base)
    assert "Dynamic configs for broker-logger 1 are:\n  api=INFO sensitive=false synonyms={}\n" in out, out
    assert "  root=INFO sensitive=false synonyms={}\n  server=INFO" in out, out
    assert "Completed updating config for broker-logger 1." in tool(configs, "--alter", *base, "--add-config",
                                                                     "storage=DEBUG")
    assert "  storage=DEBUG sensitive=false synonyms={}" in tool(configs, "--describe", *base)
    out = tool(configs, "--alter", *base, "--add-config", "root=LOUD", check=False)
    assert "InvalidConfigurationException: Cannot set the log level of root to LOUD as it is not a supported " \
           "log level. Valid log levels are DEBUG, ERROR, FATAL, INFO, TRACE, WARN" in out, out
    out = tool(configs, "--alter", *base, "--delete-config", "root", check=False)
    assert "InvalidRequestException: Removing the log level of the root logger is not allowed" in out, out
    tool(configs, "--alter", *base, "--delete-config", "storage")
    assert "  storage=INFO sensitive=false synonyms={}" in tool(configs, "--describe", *base)
