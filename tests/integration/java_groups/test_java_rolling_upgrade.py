"""KIP-848's online upgrade with the real Java client: a group of two
KafkaConsumers with group.protocol=classic, consuming while a producer
writes, is rolled one member at a time to group.protocol=consumer
(RollingUpgradeCheck.java, launched from source). At each step at least one
member consumes; no partition is ever owned by two members (from their own
rebalance callbacks); every acknowledged record is consumed; the group is
then a consumer-protocol group of two members. Then rolled back the same way
(online downgrade: a classic member joins the consumer group, the last
consumer-protocol member leaves), ending as a classic group of two. Runs in
the java run of the suite (ctest compat_java_1of2 and _2of2); bounded in time."""
from __future__ import annotations

from pathlib import Path

import pytest

from harness.java_check import run_java_check
from test_admin import name, only_for

pytestmark = pytest.mark.timeout(150)

CHECK = Path(__file__).with_name("RollingUpgradeCheck.java")


def test_java_classic_group_rolled_to_consumer_protocol_and_back(client, broker):
    only_for(client, "java")
    run = run_java_check(CHECK, broker.bootstrap, name("roll"), name("roll-group"), "100000", timeout=135)
    res = run.result
    print(res)
    assert res["classic_shared"] is True, res
    assert res["type_before"] == "Classic", res
    assert res["mixed_shared"] is True, res
    assert res["type_mixed"] == "Consumer", res
    assert res["members_mixed"] == 2, res
    assert res["consumer_shared"] is True, res
    assert res["all_consumed"] is True, res
    assert res["type_after"] == "Consumer", res
    assert res["members_after"] == 2, res
    assert res["back_mixed_shared"] is True, res
    assert res["back_classic_shared"] is True, res
    assert res["type_end"] == "Classic", res
    assert res["members_end"] == 2, res
    assert res["problems"] == "[]", res
    assert run.returncode == 0, res
