"""A data dir written before the metadata store (the legacy state files of
tests/metadata/fixtures, made by that version's writers) started by today's
binary: each file is migrated once into <data>/skiff-metadata/ and removed,
with one log line each, and clients see the same ACLs and dynamic broker
configs as before; a second start migrates nothing. Runs once, in the
confluent_kafka run (its AdminClient reads the state back)."""
from __future__ import annotations

import shutil
from pathlib import Path

from confluent_kafka.admin import (AclBindingFilter, AclOperation, AclPermissionType, AdminClient, ConfigResource,
                                   ResourcePatternType, ResourceType)

from conftest import skiff_binary
from harness.broker import SkiffBroker
from test_admin import only_for

FIXTURES = Path(__file__).resolve().parents[1] / "metadata" / "fixtures"
LEGACY = ["skiff-acls", "skiff-scram-credentials", "skiff-client-quotas", "skiff-client-metrics",
          "skiff-group-configs", "skiff-dynamic-broker-config", "skiff-producer-ids"]
TIMEOUT = 20


def test_legacy_state_files_are_migrated_once(client, tmp_path):
    only_for(client, "confluent_kafka")
    data = tmp_path / "data"
    data.mkdir()
    for f in LEGACY:
        shutil.copy(FIXTURES / f, data / f)
    b = SkiffBroker(skiff_binary(), data, tmp_path, {
        "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users": "User:ANONYMOUS"})
    b.start()
    try:
        log = b.log_path.read_text(errors="replace")
        for f in LEGACY:
            assert f"migrated {data / f} to {data / 'skiff-metadata'}" in log, log[-3000:]
            assert not (data / f).exists()
        a = AdminClient({"bootstrap.servers": b.bootstrap})
        every = AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, None, None, AclOperation.ANY,
                                 AclPermissionType.ANY)
        acls = a.describe_acls(every, request_timeout=TIMEOUT).result()
        assert sorted((x.name, x.principal, x.host) for x in acls) == [
            ("kafka-cluster", "User:admin", "*"), ("orders", "User:alice", "*"), ("team-", "User:bob", "10.0.0.7")]
        broker = ConfigResource(ConfigResource.Type.BROKER, "1")
        cfg = a.describe_configs([broker])[broker].result(TIMEOUT)
        assert cfg["log.retention.ms"].value == "3600000"
        assert cfg["max.connections"].value == "500"
        assert cfg["log.segment.bytes"].value == "2097152"  # the cluster default
        b.kill9()
        b.start()  # nothing left to migrate; the state is the store's
        assert "migrated" not in b.log_path.read_text(errors="replace")
        a = AdminClient({"bootstrap.servers": b.bootstrap})
        assert len(a.describe_acls(every, request_timeout=TIMEOUT).result()) == 3
    finally:
        b.kill9()
