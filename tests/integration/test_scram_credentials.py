"""SCRAM credentials (KIP-554) through Kafka 4.4's own kafka-configs: a user's
SCRAM-SHA-512 credential added, described (iterations only), kept across a
clean restart and a kill -9 right after the change, and deleted; and the
scram.bootstrap.users key creating the first admin user at startup without
overwriting a password changed later. Authentication over SASL/SCRAM itself is
tested with the SASL listeners. Runs once, in the java run."""
from __future__ import annotations

import pytest

from conftest import BROKER_OVERRIDES, skiff_binary
from harness.broker import SkiffBroker, external_from_env
from test_admin import name, only_for, tool

CONFIGS = "org.apache.kafka.tools.ConfigCommand"


def configs(broker, *args: str, check: bool = True) -> str:
    return tool(CONFIGS, "--bootstrap-server", broker.bootstrap, "--entity-type", "users", *args, check=check)


def scram_lines(broker) -> list[str]:
    out = configs(broker, "--describe")
    return sorted(line for line in out.splitlines() if line.startswith("SCRAM credential configs"))


def test_kafka_configs_scram_users(client, own_broker):
    only_for(client, "java")
    user = name("alice")
    out = configs(own_broker, "--alter", "--add-config", "SCRAM-SHA-512=[password=secret]", "--entity-name", user)
    assert f"Completed updating config for user {user}." in out, out
    line = f"SCRAM credential configs for user-principal '{user}' are SCRAM-SHA-512=iterations=4096"
    assert scram_lines(own_broker) == [line], configs(own_broker, "--describe")
    configs(own_broker, "--alter", "--add-config", "SCRAM-SHA-256=[iterations=8192,password=other]",
            "--entity-name", user)
    out = configs(own_broker, "--describe", "--entity-name", user)
    assert f"SCRAM credential configs for user-principal '{user}' are " in out, out
    assert "SCRAM-SHA-512=iterations=4096" in out and "SCRAM-SHA-256=iterations=8192" in out, out
    # Kafka's own check: too few iterations is refused by the tool or the broker.
    out = configs(own_broker, "--alter", "--add-config", "SCRAM-SHA-512=[iterations=100,password=x]",
                  "--entity-name", user, check=False)
    assert "Iterations 100 is less than the minimum 4096" in out, out

    if not isinstance(own_broker, SkiffBroker):
        return
    own_broker.restart()
    assert len(scram_lines(own_broker)) == 1 and "SCRAM-SHA-256=iterations=8192" in scram_lines(own_broker)[0]
    out = configs(own_broker, "--alter", "--delete-config", "SCRAM-SHA-512", "--entity-name", user)
    assert f"Completed updating config for user {user}." in out, out
    own_broker.kill9()  # acknowledged means on disk
    own_broker.start()
    assert scram_lines(own_broker) == [
        f"SCRAM credential configs for user-principal '{user}' are SCRAM-SHA-256=iterations=8192"]
    configs(own_broker, "--alter", "--delete-config", "SCRAM-SHA-256", "--entity-name", user)
    assert scram_lines(own_broker) == []
    # Deleting what is not there: Kafka's RESOURCE_NOT_FOUND.
    out = configs(own_broker, "--alter", "--delete-config", "SCRAM-SHA-256", "--entity-name", user, check=False)
    assert "Attempt to delete a user credential that does not exist" in out, out


def test_scram_bootstrap_users(client, tmp_path):
    only_for(client, "java")
    if external_from_env():
        pytest.skip("needs a broker the suite starts itself")
    overrides = dict(BROKER_OVERRIDES)
    overrides["scram.bootstrap.users"] = "SCRAM-SHA-512=[name=admin,password=admin-secret]"
    b = SkiffBroker(skiff_binary(), tmp_path / "data", tmp_path, overrides)
    b.start()
    try:
        log = b.log_path.read_text(errors="replace")
        assert "created the SCRAM-SHA-512 credential of user admin" in log, b.log_tail()
        assert "admin-secret" not in log, b.log_tail()
        assert scram_lines(b) == ["SCRAM credential configs for user-principal 'admin' are "
                                  "SCRAM-SHA-512=iterations=4096"]
        # A password changed through the API (here: more iterations) survives the next start.
        configs(b, "--alter", "--add-config", "SCRAM-SHA-512=[iterations=8192,password=changed]",
                "--entity-name", "admin")
        b.restart()
        assert "created the SCRAM-SHA-512 credential" not in b.log_path.read_text(errors="replace")
        assert scram_lines(b) == ["SCRAM credential configs for user-principal 'admin' are "
                                  "SCRAM-SHA-512=iterations=8192"]
    finally:
        b.stop()
    # Bad syntax: the broker refuses to start, naming the key and not the password.
    overrides["scram.bootstrap.users"] = "SCRAM-SHA-512=[name=admin,pasword=hunter2]"
    bad = SkiffBroker(skiff_binary(), tmp_path / "data2", tmp_path / "bad", overrides)
    with pytest.raises(Exception) as e:
        bad.start()
    assert "scram.bootstrap.users" in str(e.value) and "hunter2" not in str(e.value), str(e.value)
