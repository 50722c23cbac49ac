"""ListConfigResources (API 74, KIP-1142) with the Java Admin client, on a
broker of the test's own (so the lists are exact): every topic (internal
ones too), the broker and its logger by id, only the groups that have a
dynamic config (not a group that merely has offsets), no client-metrics
subscriptions, and UNSUPPORTED_VERSION for a type outside those five — the
answers Apache Kafka 4.4 gives (SKIFF_COMPAT_OWN_BROKER=kafka runs the same
test against it). kafka-configs lists groups with configs through it.
Runs in the java run; bounded in time."""
from __future__ import annotations

from pathlib import Path

import pytest

from harness.java_check import run_java_check
from test_admin import only_for, tool

pytestmark = pytest.mark.timeout(120)

CHECK = Path(__file__).with_name("ListConfigResourcesCheck.java")


def test_java_list_config_resources(client, own_broker):
    only_for(client, "java")
    res = run_java_check(CHECK, own_broker.bootstrap, "lcr-topic", "lcr-group", timeout=100).result
    topics = "TOPIC:__consumer_offsets,TOPIC:lcr-topic"
    assert res["all"] == f"BROKER:1,BROKER_LOGGER:1,GROUP:lcr-group,{topics}", res
    assert res["TOPIC"] == topics, res
    assert res["GROUP"] == "GROUP:lcr-group", res  # lcr-group-plain has offsets, no config
    assert res["BROKER"] == "BROKER:1" and res["BROKER_LOGGER"] == "BROKER_LOGGER:1", res
    assert res["CLIENT_METRICS"] == "", res
    assert res["UNKNOWN"] == "error:UnsupportedVersionException", res

    # Without API 74 the tool would list only the groups ListGroups knows.
    described = tool("org.apache.kafka.tools.ConfigCommand", "--bootstrap-server", own_broker.bootstrap,
                     "--describe", "--entity-type", "groups")
    assert "consumer.session.timeout.ms=50000" in described and "lcr-group " in described, described
