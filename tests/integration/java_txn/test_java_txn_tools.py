"""Kafka 4.4's kafka-transactions tool (org.apache.kafka.tools.TransactionsCommand,
from the kafka-tools jar) on a transaction whose producer was SIGKILLed
mid-transaction: list, describe, describe-producers, find-hanging, abort
(ListTransactions, DescribeTransactions, DescribeProducers, WriteTxnMarkers
through Admin.abortTransaction), and read_committed moving past the aborted
transaction. Runs in the java run of the suite (ctest compat_java_txn)."""
from __future__ import annotations

import subprocess

import pytest

from harness.java_txn import driver, hung_producer, table
from test_admin import kafka_jars, name, only_for

pytestmark = pytest.mark.timeout(200)
TXN = "org.apache.kafka.tools.TransactionsCommand"


def kt(b: str, *args: str, check: bool = True) -> str:
    """kafka-transactions --bootstrap-server b ARGS: its stdout (the tables;
    stderr carries the client's log and the error messages)."""
    cmd = ["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", f"{kafka_jars()}/*", "-Dlog4j2.level=warn",
           TXN, "--bootstrap-server", b, *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)
    if check and p.returncode != 0:
        raise AssertionError(f"kafka-transactions {' '.join(args)} exited {p.returncode}\n"
                             f"stdout: {p.stdout[-2000:]}\nstderr: {p.stderr[-2000:]}")
    return p.stdout if check else p.stdout + p.stderr


def read_p0(broker, topic, to_end: bool) -> dict:
    return driver().call({"op": "read", "bootstrap": broker.bootstrap, "topic": topic, "partitions": 1,
                          "isolation": "read_committed", "read_ms": 10000 if to_end else 3000,
                          "to_end": to_end}, 40)["read"]


def producers(b, topic) -> dict[str, dict]:
    out = kt(b, "describe-producers", "--topic", topic, "--partition", "0")
    return {r["ProducerId"]: r for r in table(out)}


def test_kafka_transactions_tool(client, broker, tmp_path):
    only_for(client, "java")
    b, topic, tid = broker.bootstrap, name("txn-tool"), name("hung")
    # Partition 0: before-0-0/1 (plain, offsets 0-1), the transaction hang-0-0..2
    # (2-4), after-0-0/1 (plain, 5-6); then the producer dies (SIGKILL).
    hung_producer(b, topic, tid, tmp_path / "hang.log").kill()

    rows = [r for r in table(kt(b, "list")) if r.get("TransactionalId") == tid]
    assert len(rows) == 1 and rows[0]["TransactionState"] == "Ongoing", rows
    pid = rows[0]["ProducerId"]

    d = table(kt(b, "describe", "--transactional-id", tid))
    assert len(d) == 1, d
    assert (d[0]["ProducerId"], d[0]["TransactionState"], d[0]["TransactionTimeoutMs"]) == (pid, "Ongoing", "300000"), d
    assert d[0]["TopicPartitions"] == f"{topic}-0", d
    assert d[0]["CurrentTransactionStartTimeMs"] != "None", d

    prods = producers(b, topic)
    assert prods[pid]["CurrentTransactionStartOffset"] == "2", prods
    assert prods[pid]["LastSequence"] == "2", prods
    plain = [r for p, r in prods.items() if p != pid]
    assert len(plain) == 1 and plain[0]["CurrentTransactionStartOffset"] == "None", prods

    # read_committed stops at the open transaction.
    r = read_p0(broker, topic, to_end=False)
    assert [(x["o"], x["v"]) for x in r["records"]] == [(0, "before-0-0"), (1, "before-0-1")], r
    assert (r["position"]["0"], r["end"]["0"]) == (2, 2), r

    # The coordinator still knows the transaction (it has the partition): not hanging.
    out = kt(b, "find-hanging", "--broker-id", "1", "--max-transaction-timeout", "0")
    assert "Topic" in out and table(out) == [], out

    # No open transaction starts at offset 3: refused, nothing written.
    out = kt(b, "abort", "--topic", topic, "--partition", "0", "--start-offset", "3",
               check=False)
    assert "Could not find any open transactions starting at offset 3" in out, out
    kt(b, "abort", "--topic", topic, "--partition", "0", "--start-offset", "2")

    prods = producers(b, topic)
    assert prods[pid]["CurrentTransactionStartOffset"] == "None", prods
    # The abort marker (offset 7) ends the transaction: read_committed goes on.
    r = read_p0(broker, topic, to_end=True)
    assert [(x["o"], x["v"]) for x in r["records"]] == [
        (0, "before-0-0"), (1, "before-0-1"), (5, "after-0-0"), (6, "after-0-1")], r
    assert (r["position"]["0"], r["end"]["0"]) == (8, 8), r
    out = kt(b, "find-hanging", "--broker-id", "1", "--max-transaction-timeout", "0")
    assert table(out) == [], out
