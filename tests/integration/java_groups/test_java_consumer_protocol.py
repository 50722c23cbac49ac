"""KIP-848 with the real Java client: KafkaConsumer 4.4 with
group.protocol=consumer (ConsumerGroupHeartbeat) against skiff. One run of
ConsumerProtocolCheck.java (launched from source): a consumer joins alone and
consumes everything, a second joins and they split the partitions (no
partition owned by both, from their own rebalance callbacks), both consume
and commit, the first leaves and the second takes over; the committed offsets
and Admin.describeConsumerGroups (ConsumerGroupDescribe) are checked. Runs in
the java run of the suite (ctest compat_java_1of2 and _2of2); bounded in time."""
from __future__ import annotations

from pathlib import Path

import pytest

from harness.java_check import run_java_check
from test_admin import name, only_for

pytestmark = pytest.mark.timeout(150)

CHECK = Path(__file__).with_name("ConsumerProtocolCheck.java")


def test_java_consumer_protocol_shares_and_hands_over(client, broker):
    only_for(client, "java")
    run = run_java_check(CHECK, broker.bootstrap, name("kip848"), name("kip848-group"), "90000", timeout=130)
    res = run.result
    assert res["a_alone_consumed_all"] is True, res
    assert res["split"] is True, res
    assert res["consumed_after_split"] == 80, res
    assert res["b_took_over"] is True, res
    assert res["consumed_total"] == 100, res
    assert res["committed_sum"] == 100, res
    assert res["described_type"] == "Consumer", res
    assert res["described_members"] == 1, res
    assert res["problems"] == "[]", res
    assert run.returncode == 0, res
