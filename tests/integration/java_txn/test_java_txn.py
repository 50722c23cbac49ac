"""Transactions through the Java client (kafka-clients 4.4, KafkaProducer on
the transaction-version-2 path, KafkaConsumer at read_committed), each
scenario one run of drivers/java/TxnDriver.java that reports what its clients
saw. Runs in the java run of the suite (ctest compat_java_txn). Offsets are
checked exactly: every transaction marker takes one offset, as in Kafka."""
from __future__ import annotations

import pytest

from harness.java_txn import driver
from test_admin import name, only_for

pytestmark = pytest.mark.timeout(150)


def call(op: str, broker, timeout: float = 60, **req) -> dict:
    return driver().call({"op": op, "bootstrap": broker.bootstrap, **req}, timeout)


def ov(recs, p=None):
    """(offset, value) of the records of partition p (all when None)."""
    return [(r["o"], r["v"]) for r in recs if p is None or r["p"] == p]


def test_txn_commit_and_abort(client, broker):
    """commit 5, abort 4, commit 3 per partition: read_committed gets the
    committed ones in order; read_uncommitted gets all; markers take an offset."""
    only_for(client, "java")
    res = call("commit_abort", broker, topic=name("txn-commit-abort"), txn_id=name("tid"))
    # The broker offers TV2 and the producer took that path (Produce v12,
    # EndTxn v5, no AddPartitionsToTxn from the client).
    assert res["finalized_transaction_version"] >= 2, res
    assert res["tv2"] is True, res
    for p in (0, 1):
        c1 = [(i, f"c1-{p}-{i}") for i in range(5)]        # offsets 0-4, commit marker 5
        a2 = [(6 + i, f"a2-{p}-{i}") for i in range(4)]    # 6-9, abort marker 10
        c3 = [(11 + i, f"c3-{p}-{i}") for i in range(3)]   # 11-13, commit marker 14
        assert ov(res["committed"]["records"], p) == c1 + c3, res["committed"]
        assert ov(res["uncommitted"]["records"], p) == c1 + a2 + c3, res["uncommitted"]
        for iso in ("committed", "uncommitted"):
            assert res[iso]["end"][str(p)] == 15, res[iso]
            assert res[iso]["position"][str(p)] == 15, res[iso]


def test_txn_second_producer_fences_first(client, broker):
    """A second producer with the same transactional.id fences the first
    (ProducerFencedException) and aborts its open transaction."""
    only_for(client, "java")
    res = call("fence", broker, topic=name("txn-fence"), txn_id=name("tid"))
    # The zombie's commit (EndTxn with its old epoch) is fenced, and so is
    # anything it tries after that.
    assert (res["a_commit_error"] or "").startswith("ProducerFencedException"), res
    assert "ProducerFencedException" in (res["a_send_error"] or ""), res
    assert [v for _, v in ov(res["committed"]["records"])] == [f"B-0-{i}" for i in range(3)], res


def test_txn_read_committed_stops_at_lso(client, broker):
    """A live read_committed consumer: while a transaction is open it gets
    only what precedes it (position = LSO = its first offset), not the
    committed records written after it; they all come once it commits, in
    offset order; an aborted transaction's records never come."""
    only_for(client, "java")
    res = call("lso", broker, timeout=90, topic=name("txn-lso"), txn_id=name("tid"), open_ms=3000)
    before = [(i, f"before-0-{i}") for i in range(3)]          # 0-2
    opened = [(3 + i, f"open-0-{i}") for i in range(3)]        # 3-5 (the transaction)
    after = [(6 + i, f"after-0-{i}") for i in range(3)]        # 6-8, commit marker 9
    w = res["while_open"]
    assert (ov(w["records"]), w["position"], w["lso"]) == (before, 3, 3), w
    assert ov(res["while_open_uncommitted"]["records"]) == before + opened + after, res["while_open_uncommitted"]
    a = res["after_commit"]
    assert (ov(a["records"]), a["position"], a["lso"]) == (opened + after, 10, 10), a
    w2 = res["while_open2"]                                     # doomed 10-11, after2 12-13
    assert (ov(w2["records"]), w2["position"], w2["lso"]) == ([], 10, 10), w2
    a2 = res["after_abort"]                                     # abort marker 14
    assert (ov(a2["records"]), a2["position"], a2["lso"]) == (
        [(12, "after2-0-0"), (13, "after2-0-1")], 15, 15), a2


def test_txn_consume_transform_produce(client, broker):
    """sendOffsetsToTransaction with the consumer's group metadata: the
    group's offsets are committed with the transaction and not with an
    aborted one; a new member resumes right after the committed input."""
    only_for(client, "java")
    src, dst = name("txn-ctp-in"), name("txn-ctp-out")
    res = call("offsets", broker, timeout=120, topic=src, out_topic=dst, group=name("txn-ctp"),
               txn_id=name("tid"), n=30)
    in1 = {f"in1-{p}-{i}" for p in range(3) for i in range(10)}
    in2 = {f"in2-{p}-{i}" for p in range(3) for i in range(10)}
    assert {r["v"] for r in res["batch1"]} == in1 and len(res["batch1"]) == 30, res["batch1"]
    assert {r["v"] for r in res["batch2"]} == in2 and len(res["batch2"]) == 30, res["batch2"]
    assert res["committed_after_commit"] == {"0": 10, "1": 10, "2": 10}, res
    assert res["committed_after_abort"] == {"0": 10, "1": 10, "2": 10}, res
    resumed = [r["v"] for r in res["resumed"]]
    assert sorted(resumed) == sorted(in2), resumed  # the aborted input again, exactly once each
    out = res["output_committed"]
    for p in range(3):
        assert [v for _, v in ov(out["records"], p)] == [f"out-in1-{p}-{i}" for i in range(10)], out
        # 10 records and a commit marker, then 10 aborted records and an abort marker
        assert out["end"][str(p)] == 22 and out["position"][str(p)] == 22, out
    unc = {v for _, v in ov(res["output_uncommitted"]["records"])}
    assert unc == {"out-" + v for v in in1 | in2}, res["output_uncommitted"]
