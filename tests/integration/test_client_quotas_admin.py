"""Client quotas (KIP-546: DescribeClientQuotas, AlterClientQuotas) through
Kafka 4.4's own kafka-configs: quotas of a client-id, the default user, a
user+client-id pair and an IP set, described, refused with Kafka's message
for a bad value, kept across a clean restart and a kill -9 right after an
acknowledged change, and deleted. Only the configs: enforcement is the
throttling's own test. Runs once, in the java run."""
from __future__ import annotations

import re

from harness.broker import SkiffBroker
from test_admin import name, only_for, tool

CONFIGS = "org.apache.kafka.tools.ConfigCommand"


def configs(broker, *args: str, check: bool = True) -> str:
    return tool(CONFIGS, "--bootstrap-server", broker.bootstrap, *args, check=check)


def quotas(broker, *entity: str) -> dict[str, dict[str, float]]:
    """kafka-configs --describe: "Quota configs for <entity> are k=v, k=v" lines as {entity: {k: v}}."""
    out = configs(broker, "--describe", *entity)
    found = {}
    for line in out.splitlines():
        m = re.match(r"Quota configs for (.*) are (.*)$", line)
        if m:
            found[m.group(1)] = {k: float(v) for k, v in (kv.split("=") for kv in m.group(2).split(", "))}
    return found


def test_kafka_configs_client_quotas(client, own_broker):
    only_for(client, "java")
    c1, u, c = name("c1"), name("u"), name("c")
    out = configs(own_broker, "--alter", "--add-config", "producer_byte_rate=1024,consumer_byte_rate=2048",
                  "--entity-type", "clients", "--entity-name", c1)
    assert f"Completed updating config for client {c1}." in out, out
    out = configs(own_broker, "--alter", "--add-config", "request_percentage=12.5", "--entity-type", "users",
                  "--entity-default")
    assert "Completed updating default config for users in the cluster." in out, out
    configs(own_broker, "--alter", "--add-config", "producer_byte_rate=4096", "--entity-type", "users",
            "--entity-name", u, "--entity-type", "clients", "--entity-name", c)
    configs(own_broker, "--alter", "--add-config", "connection_creation_rate=10", "--entity-type", "ips",
            "--entity-name", "127.0.0.1")

    client_quota = {f"client-id '{c1}'": {"producer_byte_rate": 1024.0, "consumer_byte_rate": 2048.0}}
    user_default = {"the default user-principal": {"request_percentage": 12.5}}
    pair = {f"user-principal '{u}', client-id '{c}'": {"producer_byte_rate": 4096.0}}
    ip = {"ip '127.0.0.1'": {"connection_creation_rate": 10.0}}
    assert quotas(own_broker, "--entity-type", "clients", "--entity-name", c1) == client_quota
    assert quotas(own_broker, "--entity-type", "clients") == client_quota  # strict: no user+client pairs
    assert quotas(own_broker, "--entity-type", "users", "--entity-default") == user_default
    assert quotas(own_broker, "--entity-type", "users", "--entity-type", "clients") == pair
    assert quotas(own_broker, "--entity-type", "ips") == ip

    # Kafka's checks, answered by the broker with Kafka's messages.
    out = configs(own_broker, "--alter", "--add-config", "producer_byte_rate=1.5", "--entity-type", "clients",
                  "--entity-name", c1, check=False)
    assert "producer_byte_rate cannot be a fractional value." in out, out
    out = configs(own_broker, "--alter", "--add-config", "connection_creation_rate=0", "--entity-type", "ips",
                  "--entity-name", "127.0.0.1", check=False)
    assert "Quota connection_creation_rate must be greater than 0" in out, out
    # (A bad IP never reaches the broker: kafka-configs refuses it first.)
    assert quotas(own_broker, "--entity-type", "clients", "--entity-name", c1) == client_quota

    if not isinstance(own_broker, SkiffBroker):
        return
    own_broker.restart()
    assert quotas(own_broker, "--entity-type", "clients") == client_quota
    assert quotas(own_broker, "--entity-type", "users", "--entity-type", "clients") == pair
    assert quotas(own_broker, "--entity-type", "ips") == ip

    # Acknowledged means on disk: a delete, then kill -9.
    out = configs(own_broker, "--alter", "--delete-config", "consumer_byte_rate", "--entity-type", "clients",
                  "--entity-name", c1)
    assert f"Completed updating config for client {c1}." in out, out
    own_broker.kill9()
    own_broker.start()
    assert quotas(own_broker, "--entity-type", "clients") == {f"client-id '{c1}'": {"producer_byte_rate": 1024.0}}
    assert quotas(own_broker, "--entity-type", "users") == user_default

    # The last key gone, the entity is gone.
    configs(own_broker, "--alter", "--delete-config", "producer_byte_rate", "--entity-type", "clients",
            "--entity-name", c1)
    configs(own_broker, "--alter", "--delete-config", "request_percentage", "--entity-type", "users",
            "--entity-default")
    assert quotas(own_broker, "--entity-type", "clients") == {}
    assert quotas(own_broker, "--entity-type", "users") == {}
    assert quotas(own_broker, "--entity-type", "users", "--entity-type", "clients") == pair
    # Deleting what is not there: the tool's own check, from the describe answer.
    out = configs(own_broker, "--alter", "--delete-config", "producer_byte_rate", "--entity-type", "clients",
                  "--entity-name", c1, check=False)
    assert "Invalid config(s): producer_byte_rate" in out, out
