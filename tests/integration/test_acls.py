"""ACL authorization against the real broker (authorizer.class.name set to
Kafka's StandardAuthorizer): Kafka's own kafka-acls tool adds, lists and
removes ACLs; ACLs acknowledged survive kill -9; and an authorization matrix
drives each API class as denied and then as allowed for User:alice (a SASL
PLAIN login; User:admin is the super user who lets her alter ACLs), checking
Kafka's error code for each, while User:bob stays denied throughout.
Runs once, in the confluent_kafka run (the matrix uses its AdminClient,
Producer and Consumer)."""
from __future__ import annotations

import time
import uuid

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import (AclBinding, AclBindingFilter, AclOperation, AclPermissionType, AdminClient,
                                   AlterConfigOpType, ConfigEntry, ConfigResource, NewPartitions, NewTopic,
                                   ResourcePatternType, ResourceType)

from conftest import skiff_binary
from harness.broker import SkiffBroker
from test_admin import only_for, tool

AUTHORIZER = {"authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
              "num.partitions": "1"}
ME = "User:ANONYMOUS"
ACLS_TOOL = "org.apache.kafka.tools.AclCommand"
TIMEOUT = 20


def new_broker(tmp_path, **extra) -> SkiffBroker:
    b = SkiffBroker(skiff_binary(), tmp_path / "data", tmp_path, {**AUTHORIZER, **extra})
    b.start()
    return b


def admin(b) -> AdminClient:
    return AdminClient({"bootstrap.servers": b.bootstrap})


def binding(rtype, name, op, pattern=ResourcePatternType.LITERAL, principal=ME, perm=AclPermissionType.ALLOW):
    return AclBinding(rtype, name, pattern, principal, "*", op, perm)


def every_acl() -> AclBindingFilter:
    return AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, None, None, AclOperation.ANY,
                            AclPermissionType.ANY)


def allow(a: AdminClient, *bindings):
    for f in a.create_acls(list(bindings), request_timeout=TIMEOUT).values():
        f.result()


def revoke(a: AdminClient, *bindings):
    filters = [AclBindingFilter(x.restype, x.name, x.resource_pattern_type, x.principal, x.host, x.operation,
                                x.permission_type) for x in bindings]
    for f in a.delete_acls(filters, request_timeout=TIMEOUT).values():
        f.result()


def error_code(fn) -> int:
    """Runs fn; the Kafka error code it raised, 0 if none."""
    try:
        fn()
    except KafkaException as e:
        return e.args[0].code()
    return 0


def acl_set(a: AdminClient) -> set:
    return {str(x) for x in a.describe_acls(every_acl(), request_timeout=TIMEOUT).result()}


# ------------------------------------------------------------ Kafka's kafka-acls
def test_kafka_acls_tool(client, tmp_path):
    only_for(client, "confluent_kafka")
    b = new_broker(tmp_path, **{"super.users": ME})
    try:
        bs = ["--bootstrap-server", b.bootstrap]
        tool(ACLS_TOOL, *bs, "--add", "--allow-principal", "User:alice", "--operation", "Read",
             "--operation", "Describe", "--topic", "orders", "--group", "billing")
        tool(ACLS_TOOL, *bs, "--add", "--deny-principal", "User:mallory", "--deny-host", "10.0.0.9",
             "--operation", "All", "--topic", "pay-", "--resource-pattern-type", "prefixed")
        tool(ACLS_TOOL, *bs, "--add", "--allow-principal", "User:bob", "--producer", "--topic", "events",
             "--transactional-id", "tx-1")
        out = tool(ACLS_TOOL, *bs, "--list")
        assert "ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)" in out, out
        assert "(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)" in out, out
        assert "ResourcePattern(resourceType=GROUP, name=billing, patternType=LITERAL)" in out, out
        assert "ResourcePattern(resourceType=TOPIC, name=pay-, patternType=PREFIXED)" in out, out
        assert "(principal=User:mallory, host=10.0.0.9, operation=ALL, permissionType=DENY)" in out, out
        assert "ResourcePattern(resourceType=TRANSACTIONAL_ID, name=tx-1, patternType=LITERAL)" in out, out
        # --producer: WRITE, DESCRIBE, CREATE on the topic, WRITE and DESCRIBE on the transactional id.
        assert "(principal=User:bob, host=*, operation=CREATE, permissionType=ALLOW)" in out, out
        # Listing one topic's ACLs (a MATCH filter would include the prefixed ones too).
        one = tool(ACLS_TOOL, *bs, "--list", "--topic", "orders")
        assert "name=orders" in one and "name=pay-" not in one and "name=events" not in one, one
        # Kept across a restart.
        b.restart()
        bs = ["--bootstrap-server", b.bootstrap]
        assert tool(ACLS_TOOL, *bs, "--list").count("ResourcePattern(") == 5, out
        tool(ACLS_TOOL, *bs, "--remove", "--force", "--topic", "orders")
        tool(ACLS_TOOL, *bs, "--remove", "--force", "--allow-principal", "User:bob", "--producer", "--topic",
             "events", "--transactional-id", "tx-1")
        out = tool(ACLS_TOOL, *bs, "--list")
        assert "name=orders" not in out and "name=events" not in out and "name=tx-1" not in out, out
        assert "name=billing" in out and "name=pay-" in out, out
    finally:
        b.stop()


def test_kafka_acls_tool_without_authorizer(client, tmp_path):
    """As Kafka without an authorizer: SECURITY_DISABLED, the tool says so."""
    only_for(client, "confluent_kafka")
    b = SkiffBroker(skiff_binary(), tmp_path / "data", tmp_path, {})
    b.start()
    try:
        out = tool(ACLS_TOOL, "--bootstrap-server", b.bootstrap, "--list", check=False)
        assert "SecurityDisabledException: No Authorizer is configured on the broker" in out, out
    finally:
        b.stop()


# ------------------------------------------------------------ durability
def test_acls_survive_kill9(client, tmp_path):
    only_for(client, "confluent_kafka")
    b = new_broker(tmp_path, **{"super.users": ME})
    expected = set()
    try:
        for i in range(6):
            a = admin(b)
            x = binding(ResourceType.TOPIC, f"t-{i}", AclOperation.READ, principal=f"User:u{i}")
            allow(a, x)  # acknowledged: must survive
            expected.add(str(x))
            if i % 2 == 1:  # and a deletion, acknowledged too
                gone = binding(ResourceType.TOPIC, f"t-{i - 1}", AclOperation.READ, principal=f"User:u{i - 1}")
                revoke(a, gone)
                expected.discard(str(gone))
            b.kill9()
            b.start()
            assert acl_set(admin(b)) == expected, b.log_tail()
    finally:
        b.kill9()


def test_corrupt_acl_file_refuses_to_start(client, tmp_path):
    only_for(client, "confluent_kafka")
    b = new_broker(tmp_path, **{"super.users": ME})
    allow(admin(b), binding(ResourceType.TOPIC, "t", AclOperation.READ))
    b.stop()
    f = tmp_path / "data" / "skiff-metadata" / "acls"
    raw = bytearray(f.read_bytes())
    raw[12] ^= 0xFF
    f.write_bytes(bytes(raw))
    with pytest.raises(Exception):
        b.start(timeout=10)
    b.kill9()
    log = b.log_path.read_text(errors="replace")
    assert "skiff-metadata/acls is corrupt: CRC mismatch" in log, log[-2000:]


# ------------------------------------------------------------ the matrix
SASL_USERS = ('org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="admin-secret" '
              'user_alice="alice-secret" user_bob="bob-secret";')


def sasl_broker(tmp_path) -> SkiffBroker:
    return new_broker(tmp_path, **{
        "listeners": "SASL_PLAINTEXT://127.0.0.1:0", "listener.security.protocol.map": "SASL_PLAINTEXT:SASL_PLAINTEXT",
        "sasl.enabled.mechanisms": "PLAIN", "listener.name.sasl_plaintext.plain.sasl.jaas.config": SASL_USERS,
        "super.users": "User:admin"})


def login(b, user: str) -> dict:
    """A client configuration that logs in as `user` (SASL/PLAIN)."""
    return {"bootstrap.servers": b.bootstrap, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
            "sasl.username": user, "sasl.password": f"{user}-secret"}


def produce_error(who: dict, topic: str, **conf) -> int:
    p = Producer({**who, "message.timeout.ms": 8000, **conf})
    got = []
    p.produce(topic, b"v", on_delivery=lambda err, msg: got.append(err))
    p.flush(15)
    assert got, "no delivery report"
    return got[0].code() if got[0] else 0


def consume_outcome(who: dict, topic: str, group: str) -> int:
    """The first error a consumer of `group` sees, or 0 once it receives a record."""
    c = Consumer({**who, "group.id": group, "auto.offset.reset": "earliest", "enable.auto.commit": False})
    try:
        c.subscribe([topic])
        deadline = time.time() + 20
        while time.time() < deadline:
            m = c.poll(0.5)
            if m is None:
                continue
            if m.error():
                if m.error().code() in (KafkaError._PARTITION_EOF, KafkaError.UNKNOWN_TOPIC_OR_PART):
                    continue
                return m.error().code()
            c.commit(m, asynchronous=False)
            return 0
        return -1
    finally:
        c.close()


def test_authorization_matrix(client, tmp_path):
    only_for(client, "confluent_kafka")
    T = ResourceType
    Op = AclOperation
    b = sasl_broker(tmp_path)
    alice, bob = login(b, "alice"), login(b, "bob")
    ME = "User:alice"  # noqa: N806 (the principal the matrix grants to, shadowing ANONYMOUS)

    def binding(rtype, name, op, pattern=ResourcePatternType.LITERAL, perm=AclPermissionType.ALLOW):
        return AclBinding(rtype, name, pattern, ME, "*", op, perm)

    # The super user lets alice change ACLs and describe the cluster.
    allow(AdminClient(login(b, "admin")), binding(T.BROKER, "kafka-cluster", Op.ALTER),
          binding(T.BROKER, "kafka-cluster", Op.DESCRIBE))
    try:
        a = AdminClient(alice)
        t = f"m-{uuid.uuid4().hex[:6]}"
        g = f"g-{uuid.uuid4().hex[:6]}"

        # CreateTopics: CREATE on the cluster or the topic.
        create = lambda: a.create_topics([NewTopic(t, 1, 1)], request_timeout=TIMEOUT)[t].result()  # noqa: E731
        assert error_code(create) == KafkaError.TOPIC_AUTHORIZATION_FAILED
        allow(a, binding(T.TOPIC, "m-", Op.CREATE, ResourcePatternType.PREFIXED))
        assert error_code(create) == 0

        # Metadata hides what may not be described.
        assert t not in a.list_topics(timeout=TIMEOUT).topics
        allow(a, binding(T.TOPIC, t, Op.DESCRIBE))
        assert t in a.list_topics(timeout=TIMEOUT).topics

        # Produce: WRITE on the topic.
        assert produce_error(alice, t) == KafkaError.TOPIC_AUTHORIZATION_FAILED
        allow(a, binding(T.TOPIC, t, Op.WRITE))
        assert produce_error(alice, t) == 0
        assert produce_error(alice, t, **{"enable.idempotence": True}) == 0  # WRITE on a topic: no IDEMPOTENT_WRITE
        assert produce_error(bob, t) == KafkaError.TOPIC_AUTHORIZATION_FAILED  # alice's ACLs are hers alone

        # Consume: READ on the group, then READ on the topic.
        assert consume_outcome(alice, t, g) == KafkaError.GROUP_AUTHORIZATION_FAILED
        allow(a, binding(T.GROUP, g, Op.READ))
        assert consume_outcome(alice, t, g) == KafkaError.TOPIC_AUTHORIZATION_FAILED
        allow(a, binding(T.TOPIC, t, Op.READ))
        assert consume_outcome(alice, t, g) == 0
        assert consume_outcome(bob, t, g) == KafkaError.GROUP_AUTHORIZATION_FAILED

        # Groups: DESCRIBE to see one, DELETE to delete it.
        assert g in {x.group_id for x in a.list_consumer_groups(request_timeout=TIMEOUT).result().valid}
        other = f"g-other-{uuid.uuid4().hex[:6]}"
        desc = lambda: a.describe_consumer_groups([other], request_timeout=TIMEOUT)[other].result()  # noqa: E731
        assert error_code(desc) == KafkaError.GROUP_AUTHORIZATION_FAILED
        delete_group = lambda: a.delete_consumer_groups([g], request_timeout=TIMEOUT)[g].result()  # noqa: E731
        assert error_code(delete_group) == KafkaError.GROUP_AUTHORIZATION_FAILED
        allow(a, binding(T.GROUP, g, Op.DELETE))
        assert error_code(delete_group) == 0

        # Configs: DESCRIBE_CONFIGS, ALTER_CONFIGS.
        res = ConfigResource(ConfigResource.Type.TOPIC, t)
        describe = lambda: a.describe_configs([res], request_timeout=TIMEOUT)[res].result()  # noqa: E731
        assert error_code(describe) == KafkaError.TOPIC_AUTHORIZATION_FAILED
        allow(a, binding(T.TOPIC, t, Op.DESCRIBE_CONFIGS))
        assert error_code(describe) == 0
        change = ConfigResource(ConfigResource.Type.TOPIC, t, incremental_configs=[
            ConfigEntry("retention.ms", "3600000", incremental_operation=AlterConfigOpType.SET)])
        alter = lambda: a.incremental_alter_configs([change], request_timeout=TIMEOUT)[change].result()  # noqa: E731
        assert error_code(alter) == KafkaError.TOPIC_AUTHORIZATION_FAILED
        allow(a, binding(T.TOPIC, t, Op.ALTER_CONFIGS))
        assert error_code(alter) == 0

        # CreatePartitions: ALTER. DeleteRecords: DELETE.
        grow = lambda: a.create_partitions([NewPartitions(t, 2)], request_timeout=TIMEOUT)[t].result()  # noqa: E731
        assert error_code(grow) == KafkaError.TOPIC_AUTHORIZATION_FAILED
        allow(a, binding(T.TOPIC, t, Op.ALTER))
        assert error_code(grow) == 0
        tp = TopicPartition(t, 0, 1)
        trim = lambda: a.delete_records([tp], request_timeout=TIMEOUT)[tp].result()  # noqa: E731
        assert error_code(trim) == KafkaError.TOPIC_AUTHORIZATION_FAILED

        # Transactions: WRITE on the transactional id.
        tx = Producer({**alice, "transactional.id": "tx-m"})
        assert error_code(lambda: tx.init_transactions(15)) == KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
        allow(a, binding(T.TRANSACTIONAL_ID, "tx-m", Op.WRITE))
        tx = Producer({**alice, "transactional.id": "tx-m"})
        tx.init_transactions(15)
        tx.begin_transaction()
        tx.produce(t, b"in-txn")
        tx.commit_transaction(15)

        # DescribeCluster's authorized operations: what the ACLs give.
        cl = a.describe_cluster(include_authorized_operations=True, request_timeout=TIMEOUT).result()
        assert {o.name for o in cl.authorized_operations} == {"ALTER", "DESCRIBE"}

        # DeleteTopics: DELETE.
        drop = lambda: a.delete_topics([t], request_timeout=TIMEOUT)[t].result()  # noqa: E731
        assert error_code(drop) == KafkaError.TOPIC_AUTHORIZATION_FAILED
        allow(a, binding(T.TOPIC, "m-", Op.DELETE, ResourcePatternType.PREFIXED))
        assert error_code(trim) == 0
        assert error_code(drop) == 0

        # A DENY wins: no more ACL changes once ALTER on the cluster is denied.
        allow(a, binding(T.BROKER, "kafka-cluster", Op.ALTER, perm=AclPermissionType.DENY))
        assert error_code(lambda: allow(a, binding(T.TOPIC, "x", Op.READ))) == \
            KafkaError.CLUSTER_AUTHORIZATION_FAILED
        assert error_code(lambda: allow(AdminClient(bob), binding(T.TOPIC, "x", Op.READ))) == \
            KafkaError.CLUSTER_AUTHORIZATION_FAILED
    finally:
        b.stop()
