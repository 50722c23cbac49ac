"""Exactly-once with KIP-848 members joining and leaving (issue 55), with the
Java client: KafkaConsumer with group.protocol=consumer and a transactional
KafkaProducer with sendOffsetsToTransaction (TxnDriver's `member` op), the
scenario test_transactions_clients.py runs with franz-go's
GroupTransactSession."""
from __future__ import annotations

import pytest

from test_admin import only_for
from test_transactions_clients import members_churn

pytestmark = pytest.mark.timeout(180)


def test_java_transact_members_churn_consumer_protocol(client, broker, topic):
    only_for(client, "java")
    members_churn(client, broker, topic, "consumer")
