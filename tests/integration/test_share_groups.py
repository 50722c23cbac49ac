"""Share groups (KIP-932, issue 50) with real clients: Kafka 4.4's Java
KafkaShareConsumer, confluent-kafka 2.16's ShareConsumer and franz-go 1.22's
share consumer, plus Kafka 4.4's share-group tools. Same scenarios against
Skiff and against Apache Kafka 4.4 (harness/share.py has the drivers and the
broker). Against Skiff they SKIP while its ApiVersions lacks
ShareGroupHeartbeat (76), and run by themselves once it serves share groups.

    # against Apache Kafka 4.4 (starts a private single-node Kafka):
    SKIFF_SHARE_BROKER=kafka tests/integration/run.sh java,confluent_kafka,franz_go test_share_groups.py
    # against build/skiff:
    tests/integration/run.sh java,confluent_kafka,franz_go test_share_groups.py

Every wait is bounded (consumers carry timeout_ms, the harness kills
what overruns; pytest-timeout 240 s per test). The full file against Kafka
4.4 (all three clients): 47 passed, 10 skipped (the Java-only scenarios in
the other two runs) in about 16 minutes.

OBSERVED ON APACHE KAFKA 4.4.0 (single node, harness/share.py's
SHARE_OVERRIDES; the integrator compares Skiff with these):

Group configs (IncrementalAlterConfigs, resource type GROUP)
- share.record.lock.duration.ms=500 is refused: InvalidConfigurationException
  "Invalid value 500 for configuration share.record.lock.duration.ms: Value
  must be at least 1000" (the ConfigDef floor; a value under the broker's
  group.share.min.record.lock.duration.ms, 15000 by default, is refused too,
  which is why SHARE_OVERRIDES lowers that floor to 1000).
- A value inside the ConfigDef range but outside the broker's bounds is
  refused by GroupConfig.validateIntRange with "<key> must be in the range
  <min> to <max> inclusive." (not exercised here; from the 4.4 classes).
- errors.deadletterqueue.topic.name=__dlq is refused: "errors.deadletterqueue.
  topic.name: DLQ topic name must not start with '__'".
- share.auto.offset.reset defaults to latest: a fresh group sees nothing
  produced before it first joined (kafka-console-share-consumer on such a
  group: "Processed a total of 0 messages" after --timeout-ms, with an ERROR
  TimeoutException line). Every scenario sets earliest on its group first.

Delivery (same for the Java, confluent-kafka and franz-go clients unless noted)
- 3 members on 1 partition, 600 records in 6 rounds: each record to exactly
  one member, once, delivery count 1; the split is uneven and varies per
  run (Java [0, 100, 500], confluent [199, 201, 200], franz-go [193, 300,
  107]). On 6 partitions: [200, 200, 200] (2 partitions per member).
- RELEASE at delivery 1: redelivered at once to the same member with delivery
  count 2; the acknowledgement callback reports no error; ACCEPT at 2 ends it.
- REJECT: never redelivered (to no member).
- share.delivery.count.limit=3 with RELEASE every time: counts 1, 2, 3, then
  archived; a new member gets nothing.
- Lock 2 s, A holds: B gets the records with delivery count 2 (franz-go: 3,
  because franz-go keeps fetching in the background while the application
  holds records, re-acquires them at count 2 and lets that lock expire too).
  A's late ACCEPT after B has ACCEPTED them: success on every client. On the
  wire (Java): ShareAcknowledge ACCEPT 0-4 answered errorCode 0 for the
  partition, since the batch lies below the share-partition's start offset
  and Kafka skips it ("already archived") without error.
- Lock 3 s, B holds the expired records (count 2) when A sends its late
  ACCEPT: the partition's errorCode 121 INVALID_RECORD_STATE with
  errorMessage 'Member is not the owner of batch record' (response
  currentLeader leaderId=0, leaderEpoch=0; top-level errorCode 0). Java
  reports InvalidRecordStateException "The record state is invalid. The
  acknowledgement of delivery could not be completed." (the default text,
  not the broker's), confluent-kafka KafkaError{code=INVALID_RECORD_STATE,
  val=121,str="Broker: The record state is invalid"}, franz-go
  "INVALID_RECORD_STATE: The record state is invalid. The acknowledgement of
  delivery could not be completed." in its ack callback (FlushAcks: nil).
- Explicit mode, close with nothing acknowledged: the next member gets the
  records within 0.2-0.9 s (no lock wait) with delivery count 2: close
  releases what the member holds.
- A member holding 10 records (lock 3 s) SIGKILLed: another member gets them
  back with delivery count 2 in 1.2-2.1 s, before the lock would expire: the
  broker releases a share session's records when its connection closes.
- read_committed (commit 5, abort 5, commit 5 on one partition): offsets 0-4
  and 12-16 (markers at 5, 11, 17), values c*; read_uncommitted: all 15
  data offsets (0-4, 6-10, 12-16), aborted ones included, never a marker.
- share.acquire.mode=record_limit, max.poll.records=3 (Java): no poll
  returns more than 3 records.
- Broker kill -9 with 0-9 ACCEPTED and 10-19 acquired (in flight), then a
  restart: a new member gets exactly 10-19, with delivery count 1 (Kafka
  persists acknowledgements, not acquisitions, so the count is not raised;
  issue 50 asks for a raised count, the test accepts 1 or 2); 0-9 never.

- Broker kill -9 loop (1 partition, 300 records, member REJECTs 0 mod 3,
  RELEASEs 1 mod 3 at delivery 1, ACCEPTs the rest, 3 kills): Java and
  confluent-kafka commit after each poll, so a kill before the commit makes
  the whole poll come back with delivery count 1 (rounds: 300, 300, 400,
  100 records); no finish the client saw confirmed is ever redelivered,
  and a final member gets nothing. franz-go acknowledges in the background
  as well; its FlushAcks returns nil while its ack callback reports
  INVALID_SHARE_SESSION_EPOCH / "unable to dial" / EOF around a kill.
- Dead-letter queue (share.version 2): REJECTed records with
  errors.deadletterqueue.copy.record.enable=true are written to the DLQ
  topic (created with errors.deadletterqueue.group.enable=true) with their
  key and value and the headers __dlq.errors.topic, __dlq.errors.partition,
  __dlq.errors.offset, __dlq.errors.group, __dlq.errors.delivery.count ("1")
  and __dlq.errors.message "Offset rejected by client."; at the delivery
  limit (2, copy off) a record with null key and value, delivery.count "2",
  message "Offset delivery count exceeded the threshold.". A DLQ topic
  without errors.deadletterqueue.group.enable gets nothing; the broker logs
  "Failed to write to DLQ, proceeding to ARCHIVED regardless." with
  ConfigException "DLQ is not enabled on configured DLQ topic for share
  group: G, topic: T." and the records are archived.

kafka-share-groups (ShareGroupCommand), stdout
- --list: one group id per line. --list --state: "GROUP  STATE" table.
- --describe --state: "GROUP  COORDINATOR (ID)  STATE  #MEMBERS", e.g.
  "tool-29d5720d   127.0.0.1:47321  (1)      Stable          2".
- --describe --members: "GROUP  CONSUMER-ID  HOST  CLIENT-ID  #PARTITIONS
  ASSIGNMENT", HOST "/127.0.0.1", ASSIGNMENT "topic:1"; with no members:
  "Share group 'G' has no active members."
- --describe (offsets, the default): "GROUP  TOPIC  PARTITION  START-OFFSET
  LAG"; --verbose adds LEADER-EPOCH (0) after PARTITION; a partition without
  share state shows "-" for LEADER-EPOCH, START-OFFSET and LAG. LAG is exact
  (0 once everything is acknowledged) but START-OFFSET is the persisted
  start offset and trails: 0 after all 20 records were accepted (a 2000
  record group showed 1160 with lag 0, a 5 record one 4).
- --reset-offsets while members are active: exit 1, stdout "Share group 'G'
  is not empty."; on an Empty group --to-earliest --execute prints
  "GROUP  TOPIC  PARTITION  NEW-OFFSET" rows; then START-OFFSET 0 and LAG =
  the end offset; --to-latest: START-OFFSET = end, LAG 0; --from-file with
  "topic,partition,offset" lines (3 and 7 of 10): START-OFFSET 3/7, LAG 7/3,
  and a member then gets exactly offsets 3-9 and 7-9. --dry-run --export
  prints the CSV lines "topic,partition,offset".
- --delete-offsets --topic T: "TOPIC  STATUS" / "T  Successful"; --describe
  then: "Share group 'G' has no offset information."
- --delete: "Deletion of requested share groups ('G') was successful."; the
  group leaves --list; --describe of it exits 0 (sic) printing "Error:
  Executing share group command failed due to
  org.apache.kafka.common.errors.GroupIdNotFoundException: Group G not
  found." (stack trace on stderr).

Other tools
- kafka-console-share-consumer: the values one per line on stdout,
  "Processed a total of 5 messages" on stderr; with --reject a later run on
  the group gets nothing.
- kafka-verifiable-share-consumer --acknowledgement-mode sync
  --offset-reset-strategy earliest --max-messages 20: JSON events
  startup_complete, offset_reset_strategy_set {"offsetResetStrategy":
  "earliest"}, records_consumed {count 20, partitions [{topic, partition,
  count, offsets [0..19]}]}, offsets_acknowledged {count 20, offsets in
  reverse order, "success": true}, shutdown_complete, shutdown_requested;
  exit 0.
- kafka-share-consumer-perf-test --num-records 2000: a header "start.time,
  end.time, data.consumed.in.MB, MB.sec, nMsg.sec, data.consumed.in.nMsg,
  fetch.time.ms" and one row (data.consumed.in.nMsg 2000).
"""
from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest

from harness.broker import external_from_env
from harness.share import (CONSOLE_SHARE, SHARE_CLIENTS, SHARE_GROUPS, SHARE_PERF, VERIFIABLE_SHARE, Consumer,
                           finalized_feature, gid, java_op, parse_lines, produce, quiet_for, require_share_groups,
                           set_group_configs, setup_topic, start_broker, table, tool)


@pytest.fixture(scope="module")
def sbroker(tmp_path_factory):
    """The broker the scenarios share (the restart scenario starts its own)."""
    ext = external_from_env()
    if ext:
        require_share_groups(ext.bootstrap, f"the external broker {ext.bootstrap}")
        yield ext
        return
    b = start_broker(tmp_path_factory.mktemp("share-broker"))
    yield b
    b.stop()


@pytest.fixture
def share_client(client):
    if client.name not in SHARE_CLIENTS:
        pytest.skip(f"{client.name} has no share consumer (share scenarios: {', '.join(SHARE_CLIENTS)})")
    return client.name


def only_java(client_name: str):
    if client_name != "java":
        pytest.skip("runs once, in the java run (Kafka's own tools)")


def tname(prefix: str, client: str) -> str:
    return f"{prefix}-{client.replace('_', '-')}-{gid('t')[2:]}"


def keyed(recs: list[dict]) -> list[tuple[int, int]]:
    return [(r["p"], r["o"]) for r in recs]


# ------------------------------------------------- several consumers, exactly once
@pytest.mark.parametrize("partitions", [1, 6])
def test_share_consumers_split_records(share_client, sbroker, tmp_path, partitions):
    """Three members of one share group on 1 partition and on 6: every
    record delivered to exactly one of them, once (delivery count 1), all
    consumed; implicit acknowledgement."""
    b, t, g, n = sbroker.bootstrap, tname("split", share_client), gid(), 600
    setup_topic(b, t, partitions, g)
    stop = tmp_path / "stop"
    cs = [Consumer(share_client, b, g, t, tmp_path / f"c{i}.jsonl", name=f"c{i}", stop_file=stop)
          for i in range(3)]
    try:
        for c in cs:
            c.wait_for(lambda evs: any(e["ev"] == "ready" for e in evs), 60, "subscribed")
        for k in range(6):  # in rounds, so each member has a chance to fetch
            produce(b, t, n // 6, partitions=partitions, first=k * (n // 6))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len({x for c in cs for x in keyed(c.recs())}) < n:
            time.sleep(0.2)
        quiet_for(cs, 2)
        stop.touch()
        for c in cs:
            c.wait_exit(40)
        per = [c.recs() for c in cs]
        got = Counter(x for rs in per for x in keyed(rs))
        assert len(got) == n, f"{len(got)} of {n} records consumed\n" + "\n".join(c.tail(5) for c in cs)
        dup = {k: v for k, v in got.items() if v > 1}
        assert not dup, f"records delivered more than once: {sorted(dup)[:20]}"
        assert all(r["dc"] == 1 for rs in per for r in rs), "a record with delivery count > 1"
        print(f"\n{share_client}, {partitions} partition(s): records per member {[len(rs) for rs in per]}")
    finally:
        for c in cs:
            c.kill9()


def test_auto_offset_reset_latest_by_default(share_client, sbroker, tmp_path):
    """No share.auto.offset.reset on the group (Kafka's default: latest):
    the 5 records produced before the first member joined are never
    delivered, the 5 produced after it are."""
    b, t, g = sbroker.bootstrap, tname("latest", share_client), gid()
    setup_topic(b, t, 1)
    produce(b, t, 5, prefix="before-")
    stop = tmp_path / "stop"
    with Consumer(share_client, b, g, t, tmp_path / "a.jsonl", stop_file=stop) as c:
        c.wait_for(lambda evs: any(e["ev"] == "ready" for e in evs), 60, "subscribed")
        time.sleep(5)  # joined, assigned and the share-partition initialized at the end
        produce(b, t, 5, first=5, prefix="after-")
        c.wait_for(lambda evs: len([e for e in evs if e["ev"] == "rec"]) >= 5, 30, "the 5 later records")
        quiet_for([c], 2)
        stop.touch()
        c.wait_exit(40)
        assert sorted((r["o"], r["v"]) for r in c.recs()) == [(o, f"after-{o}") for o in range(5, 10)], c.tail()


# ------------------------------------------------------------ acknowledgements
def test_release_redelivers_with_count_2(share_client, sbroker, tmp_path):
    """Explicit acknowledgement: RELEASE at delivery 1, ACCEPT at 2. Each
    record comes back once, to the same member, with delivery count 2;
    then never again."""
    b, t, g = sbroker.bootstrap, tname("release", share_client), gid()
    setup_topic(b, t, 1, g)
    produce(b, t, 10)
    with Consumer(share_client, b, g, t, tmp_path / "a.jsonl", ack="release_until:2", max_records=20) as c:
        c.wait_exit(60)
        recs = c.recs()
        assert sorted((r["o"], r["dc"], r["ack"]) for r in recs) == sorted(
            [(o, 1, "release") for o in range(10)] + [(o, 2, "accept") for o in range(10)]), c.tail()
        assert all(e["error"] is None for e in c.of("ack_result")), c.tail()
    with Consumer(share_client, b, g, t, tmp_path / "b.jsonl", timeout=8) as c2:
        c2.wait_exit(40)
        assert c2.recs() == [], f"accepted records redelivered: {c2.recs()}"


def test_reject_never_redelivered(share_client, sbroker, tmp_path):
    """REJECT (even offsets) and ACCEPT (odd): nothing comes back, neither
    to the member nor to a new one."""
    b, t, g = sbroker.bootstrap, tname("reject", share_client), gid()
    setup_topic(b, t, 1, g)
    produce(b, t, 10)
    with Consumer(share_client, b, g, t, tmp_path / "a.jsonl", ack="reject_even", timeout=10) as c:
        c.wait_exit(40)
        recs = c.recs()
        assert sorted((r["o"], r["dc"], r["ack"]) for r in recs) == [
            (o, 1, "reject" if o % 2 == 0 else "accept") for o in range(10)], c.tail()
    with Consumer(share_client, b, g, t, tmp_path / "b.jsonl", timeout=8) as c2:
        c2.wait_exit(40)
        assert c2.recs() == [], f"rejected/accepted records redelivered: {c2.recs()}"


def test_share_metrics_on_skiff(share_client, sbroker, tmp_path):
    """Skiff's /metrics after a member ACCEPTs the odd offsets and REJECTs
    the even ones: Kafka's RecordAcknowledgementsPerSec by ackType (as a
    total), the share-fetch and acknowledgement totals, the share-group
    count, and the share partition's gauges with lag 0 once all is done."""
    if not hasattr(sbroker, "http_port") or sbroker.http_port() is None:
        pytest.skip("not a Skiff broker with an HTTP listener")
    from test_metrics import scrape, value
    b, t, g = sbroker.bootstrap, tname("metrics", share_client), gid()
    setup_topic(b, t, 1, g)
    produce(b, t, 10)
    before, _ = scrape(sbroker)
    acc0 = value(before, "kafka_server_sharegroupmetrics_recordacknowledgements_total", ack_type="Accept")
    rej0 = value(before, "kafka_server_sharegroupmetrics_recordacknowledgements_total", ack_type="Reject")
    labels = {"group": g, "topic": t, "partition": "0"}

    def settled(fams) -> bool:  # every acknowledgement applied, the member still in its session
        try:
            return (value(fams, "kafka_server_sharegroupmetrics_recordacknowledgements_total", ack_type="Reject")
                    - rej0 == 5 and value(fams, "skiff_sharegroup_start_offset", **labels) == 10)
        except AssertionError:
            return False

    # The share partition lives while a member has a session: scrape then.
    with Consumer(share_client, b, g, t, tmp_path / "a.jsonl", ack="reject_even", timeout=20) as c:
        c.wait_for(lambda evs: len([e for e in evs if e.get("ev") == "rec"]) == 10, 40, "10 records")
        deadline = time.monotonic() + 15
        fams, _ = scrape(sbroker)
        while not settled(fams) and time.monotonic() < deadline:
            time.sleep(0.2)
            fams, _ = scrape(sbroker)
    assert value(fams, "kafka_server_sharegroupmetrics_recordacknowledgements_total", ack_type="Accept") - acc0 == 5
    assert value(fams, "kafka_server_sharegroupmetrics_recordacknowledgements_total", ack_type="Reject") - rej0 == 5
    assert value(fams, "kafka_server_brokertopicmetrics_totalsharefetchrequests_total") >= 1
    assert value(fams, "kafka_server_brokertopicmetrics_totalshareacknowledgementrequests_total") >= 1
    assert value(fams, "kafka_server_group_coordinator_metrics_group_count", protocol="share") >= 1
    assert value(fams, "kafka_server_sharesessioncache_sharesessionscount") >= 1
    assert value(fams, "kafka_server_sharepartitionmetrics_inflightmessagecount", **labels) == 0
    assert value(fams, "skiff_sharegroup_start_offset", **labels) == 10
    assert value(fams, "skiff_sharegroup_lag", **labels) == 0


def test_delivery_limit_archives(share_client, sbroker, tmp_path):
    """share.delivery.count.limit=3 and RELEASE every time: delivered with
    counts 1, 2, 3, then archived (never a 4th delivery, nothing for a new
    member)."""
    b, t, g = sbroker.bootstrap, tname("limit", share_client), gid()
    setup_topic(b, t, 1, g, **{"share.delivery.count.limit": "3"})
    produce(b, t, 5)
    with Consumer(share_client, b, g, t, tmp_path / "a.jsonl", ack="release", timeout=12) as c:
        c.wait_exit(40)
        got = sorted((r["o"], r["dc"]) for r in c.recs())
        assert got == [(o, d) for o in range(5) for d in (1, 2, 3)], c.tail()
    with Consumer(share_client, b, g, t, tmp_path / "b.jsonl", timeout=8) as c2:
        c2.wait_exit(40)
        assert c2.recs() == [], f"archived records redelivered: {c2.recs()}"


def test_dead_letter_queue(share_client, sbroker, tmp_path):
    """share.version 2's DLQ (KIP-1191): the group's
    errors.deadletterqueue.topic.name names a topic created with
    errors.deadletterqueue.group.enable=true. REJECTed records (with
    errors.deadletterqueue.copy.record.enable=true) land there with key,
    value and __dlq.errors.* headers; records archived at the delivery limit
    (copy off) as header-only records. A DLQ topic without the enable flag
    gets nothing (the records are archived anyway)."""
    b, t, g = sbroker.bootstrap, tname("dlqsrc", share_client), gid()
    if finalized_feature(b, "share.version") < 2:
        pytest.skip("the broker finalizes share.version below 2: no dead-letter queue (KIP-1191)")
    dlq, dlq2, plain = f"dlq.{t}", f"dlq.{t}-limit", f"dlq.{t}-plain"
    setup_topic(b, t, 1, g, **{"errors.deadletterqueue.topic.name": dlq,
                               "errors.deadletterqueue.copy.record.enable": "true"})
    for name in (dlq, dlq2):
        java_op("create-topic", bootstrap=b, topic=name, partitions=1,
                configs="errors.deadletterqueue.group.enable=true")
    java_op("create-topic", bootstrap=b, topic=plain, partitions=1)
    produce(b, t, 6)
    with Consumer(share_client, b, g, t, tmp_path / "a.jsonl", ack="reject_even", max_records=6) as c:
        c.wait_exit(60)
    got = java_op("read", bootstrap=b, topic=dlq, count=3, timeout=20)["records"]
    assert [(r["k"], r["v"]) for r in got] == [("0", "v0"), ("2", "v2"), ("4", "v4")], got
    assert got[0]["h"] == {"__dlq.errors.topic": t, "__dlq.errors.partition": "0", "__dlq.errors.offset": "0",
                           "__dlq.errors.group": g, "__dlq.errors.delivery.count": "1",
                           "__dlq.errors.message": "Offset rejected by client."}, got[0]
    g2 = gid()
    set_group_configs(b, g2, **{"share.auto.offset.reset": "earliest", "share.delivery.count.limit": "2",
                                "errors.deadletterqueue.topic.name": dlq2})
    with Consumer(share_client, b, g2, t, tmp_path / "b.jsonl", ack="release", max_records=12) as c:
        c.wait_exit(60)
        assert sorted((r["o"], r["dc"]) for r in c.recs()) == [(o, d) for o in range(6) for d in (1, 2)], c.tail()
    got = java_op("read", bootstrap=b, topic=dlq2, count=6, timeout=20)["records"]
    assert sorted(int(r["h"]["__dlq.errors.offset"]) for r in got) == list(range(6)), got
    assert all(r["k"] is None and r["v"] is None and r["h"]["__dlq.errors.delivery.count"] == "2"
               and r["h"]["__dlq.errors.message"] == "Offset delivery count exceeded the threshold." for r in got), got
    g3 = gid()
    set_group_configs(b, g3, **{"share.auto.offset.reset": "earliest", "errors.deadletterqueue.topic.name": plain})
    with Consumer(share_client, b, g3, t, tmp_path / "c.jsonl", ack="reject", max_records=6) as c:
        c.wait_exit(60)
    assert java_op("read", bootstrap=b, topic=plain, count=1, timeout=6)["records"] == []
    with Consumer(share_client, b, g3, t, tmp_path / "d.jsonl", timeout=6) as c:
        c.wait_exit(40)
        assert c.recs() == [], "rejected records redelivered"
    bad = set_group_configs_raw(b, gid(), "errors.deadletterqueue.topic.name=__dlq")
    assert not bad["ok"] and "DLQ topic name must not start with '__'" in bad["error"], bad


def set_group_configs_raw(bootstrap: str, group: str, kv: str) -> dict:
    return java_op("group-config", bootstrap=bootstrap, group=group, set=kv)


def test_lock_expiry_redelivers(share_client, sbroker, tmp_path):
    """share.record.lock.duration.ms=2000: member A acquires and holds
    without acknowledging; member B gets the same records with delivery
    count 2 once the lock runs out; A's late ACCEPT fails."""
    b, t, g = sbroker.bootstrap, tname("lock", share_client), gid()
    setup_topic(b, t, 1, g, **{"share.record.lock.duration.ms": "2000"})
    produce(b, t, 5)
    stop = tmp_path / "stop"
    with Consumer(share_client, b, g, t, tmp_path / "a.jsonl", ack="none", hold_ms=60000, late_ack="accept",
                  stop_file=stop) as a:
        a.wait_for(lambda evs: any(e["ev"] == "holding" for e in evs), 60, "A holds its records")
        held = sorted(r["o"] for r in a.recs())
        assert held == list(range(5)) and all(r["dc"] == 1 for r in a.recs()), a.tail()
        with Consumer(share_client, b, g, t, tmp_path / "b.jsonl", ack="accept", max_records=5, timeout=40) as bb:
            bb.wait_exit(60)
            got = sorted((r["o"], r["dc"]) for r in bb.recs())
            assert [o for o, _ in got] == list(range(5)), bb.tail()
            # franz-go's A keeps fetching in the background while its
            # application holds the records: it re-acquires them after the
            # first expiry (delivery 2) and lets that lock expire too, so B
            # sees 3 (observed on Kafka); the other clients do not prefetch.
            want = {3} if share_client == "franz_go" else {2}
            assert {d for _, d in got} <= want | {2}, f"delivery counts {got}\n{bb.tail()}"
        stop.touch()
        a.wait_exit(40)
        late = a.of("late_commit") + a.of("ack_result")
        # Recorded, not asserted: what each client reports for the late
        # ACCEPT differs (see the module docstring); it changes nothing.
        print(f"\n{share_client} late accept after lock expiry: {late}")
        assert a.of("late_commit"), a.tail()
    with Consumer(share_client, b, g, t, tmp_path / "c.jsonl", timeout=8) as c:
        c.wait_exit(40)
        assert c.recs() == [], f"redelivered after B accepted them: {c.recs()}"


def test_late_ack_by_previous_owner_fails(share_client, sbroker, tmp_path):
    """Lock 3 s: A's records expire and B acquires them (delivery count 2)
    and holds them; A's late ACCEPT now fails (Kafka: INVALID_RECORD_STATE
    "Member is not the owner of batch record" on the broker's side; the
    clients show error 121 with its default message)."""
    b, t, g = sbroker.bootstrap, tname("owner", share_client), gid()
    setup_topic(b, t, 1, g, **{"share.record.lock.duration.ms": "3000"})
    produce(b, t, 5)
    stop_a, stop_b = tmp_path / "stop-a", tmp_path / "stop-b"
    with Consumer(share_client, b, g, t, tmp_path / "a.jsonl", ack="none", hold_ms=60000, late_ack="accept",
                  stop_file=stop_a) as a:
        a.wait_for(lambda evs: any(e["ev"] == "holding" for e in evs), 60, "A holds its records")
        with Consumer(share_client, b, g, t, tmp_path / "b.jsonl", ack="none", hold_ms=60000,
                      stop_file=stop_b) as bb:
            bb.wait_for(lambda evs: any(e["ev"] == "holding" for e in evs), 30, "B holds the expired records")
            stop_a.touch()
            a.wait_exit(40)
            stop_b.touch()
            late = a.of("late_commit") + a.of("ack_result")
            print(f"\n{share_client} late ACCEPT of records B holds: {late}; B got "
                  f"{sorted((r['o'], r['dc']) for r in bb.recs())}")
            assert sorted(r["o"] for r in bb.recs()) == list(range(5)), bb.tail()
            # franz-go's A re-acquires in the background (count 2) first: B 3
            assert all(r["dc"] == (3 if share_client == "franz_go" else 2) for r in bb.recs()), bb.tail()
            errors = [e.get("error") for e in late] + [v for e in late for v in (e.get("partitions") or {}).values()]
            assert any(errors), f"A's late ACCEPT of records B holds did not fail\n{a.tail()}"


def test_close_with_unacknowledged_records(share_client, sbroker, tmp_path):
    """Explicit mode: a member polls, acknowledges nothing and closes. The
    records go to the next member (delivery count observed and recorded)."""
    b, t, g = sbroker.bootstrap, tname("close", share_client), gid()
    setup_topic(b, t, 1, g)
    produce(b, t, 5)
    with Consumer(share_client, b, g, t, tmp_path / "a.jsonl", ack="none", hold_ms=0) as a:
        a.wait_exit(60)
        assert sorted(r["o"] for r in a.recs()) == list(range(5)), a.tail()
    start = time.monotonic()
    with Consumer(share_client, b, g, t, tmp_path / "b.jsonl", ack="accept", max_records=5, timeout=45) as c:
        c.wait_exit(60)
        got = sorted((r["o"], r["dc"]) for r in c.recs())
        print(f"\n{share_client} after close with unacked: {got} in {time.monotonic() - start:.1f}s")
        assert [o for o, _ in got] == list(range(5)), c.tail()
        assert all(d == 2 for _, d in got), f"expected delivery count 2: {got}"


def test_record_limit_acquire_mode(share_client, sbroker, tmp_path):
    """Java only (share.acquire.mode=record_limit with max.poll.records=3):
    no poll returns more than 3 records; all 20 consumed once."""
    if share_client != "java":
        pytest.skip("share.acquire.mode is the Java client's (KIP-1206)")
    b, t, g = sbroker.bootstrap, tname("reclimit", share_client), gid()
    setup_topic(b, t, 1, g)
    produce(b, t, 20)
    with Consumer(share_client, b, g, t, tmp_path / "a.jsonl", ack="accept", acquire="record_limit",
                  max_poll_records=3, max_records=20, poll_sizes=1) as c:
        c.wait_exit(60)
        sizes = [e["n"] for e in c.of("poll")]
        assert sorted(r["o"] for r in c.recs()) == list(range(20)), c.tail()
        assert sizes and max(sizes) <= 3, f"poll sizes {sizes}"


# ------------------------------------------------------------- transactions
def test_read_committed_skips_aborted(share_client, sbroker, tmp_path):
    """share.isolation.level=read_committed: of commit 5, abort 5, commit 5
    only the 10 committed records; a read_uncommitted group gets all 15."""
    b, t = sbroker.bootstrap, tname("txn", share_client)
    g, g2 = gid(), gid()
    setup_topic(b, t, 1, g, **{"share.isolation.level": "read_committed"})
    set_group_configs(b, g2, **{"share.auto.offset.reset": "earliest"})
    steps = java_op("txn", bootstrap=b, topic=t, plan="commit:5,abort:5,commit:5")["steps"]
    committed = steps[0]["offsets"] + steps[2]["offsets"]
    with Consumer(share_client, b, g, t, tmp_path / "rc.jsonl", timeout=10) as c:
        c.wait_exit(40)
        got = sorted(r["o"] for r in c.recs())
        assert got == sorted(committed), f"read_committed got {got}, committed {committed}\n{c.tail()}"
        assert all(r["v"].startswith("c") for r in c.recs())
    with Consumer(share_client, b, g2, t, tmp_path / "ru.jsonl", timeout=10) as c:
        c.wait_exit(40)
        got = sorted(r["o"] for r in c.recs())
        assert got == sorted(steps[0]["offsets"] + steps[1]["offsets"] + steps[2]["offsets"]), c.tail()


# ------------------------------------------------------------------- kill -9
def test_consumer_killed_records_redelivered(share_client, sbroker, tmp_path):
    """Member A acquires records and is SIGKILLed; member B gets them with
    delivery count 2 (after the 3 s lock), and every record is consumed."""
    b, t, g = sbroker.bootstrap, tname("kill", share_client), gid()
    setup_topic(b, t, 1, g, **{"share.record.lock.duration.ms": "3000"})
    produce(b, t, 10)
    with Consumer(share_client, b, g, t, tmp_path / "a.jsonl", ack="none", hold_ms=120000) as a:
        a.wait_for(lambda evs: any(e["ev"] == "holding" for e in evs), 60, "A holds its records")
        held = sorted(r["o"] for r in a.recs())
        a.kill9()
    start = time.monotonic()
    with Consumer(share_client, b, g, t, tmp_path / "b.jsonl", ack="accept", max_records=10, timeout=60) as c:
        c.wait_exit(80)
        got = {r["o"]: r["dc"] for r in c.recs()}
        print(f"\n{share_client}: killed member's {len(held)} records back in {time.monotonic() - start:.1f}s")
        assert sorted(got) == list(range(10)), c.tail()
        assert all(got[o] == 2 for o in held), f"held {held}, redelivered {got}"


def test_broker_kill9_accepted_stay_inflight_return(share_client, tmp_path):
    """Offsets 0-9 accepted; 10-19 acquired (in flight) when the broker is
    SIGKILLed. After the restart a new member gets exactly 10-19 (the
    delivery count observed is recorded), never 0-9."""
    if external_from_env():
        pytest.skip("needs a broker the test starts itself (SKIFF_COMPAT_EXTERNAL_BROKER is set)")
    br = start_broker(tmp_path / "broker")
    try:
        b, t, g = br.bootstrap, tname("crash", share_client), gid()
        setup_topic(b, t, 1, g)
        produce(b, t, 10)
        with Consumer(share_client, b, g, t, tmp_path / "a.jsonl", ack="accept", max_records=10) as a:
            a.wait_exit(60)
            assert sorted(r["o"] for r in a.recs()) == list(range(10)), a.tail()
        produce(b, t, 10, first=10)
        with Consumer(share_client, b, g, t, tmp_path / "h.jsonl", ack="none", hold_ms=120000) as holder:
            holder.wait_for(lambda evs: any(e["ev"] == "holding" for e in evs), 60, "records in flight")
            assert sorted(r["o"] for r in holder.recs()) == list(range(10, 20)), holder.tail()
            br.kill9()
            holder.kill9()
        b = br.start()
        with Consumer(share_client, b, g, t, tmp_path / "c.jsonl", ack="accept", max_records=10, timeout=60) as c:
            c.wait_exit(90)
            got = sorted((r["o"], r["dc"]) for r in c.recs())
            print(f"\n{share_client} after broker kill -9: {got}")
            assert [o for o, _ in got] == list(range(10, 20)), c.tail()
            # Kafka 4.4 does not persist acquisitions: the in-flight records
            # come back with delivery count 1 (observed). Issue 50 asks for
            # a raised count; either passes here.
            assert {d for _, d in got} <= {1, 2}, got
        with Consumer(share_client, b, g, t, tmp_path / "d.jsonl", timeout=8) as d:
            d.wait_exit(40)
            assert d.recs() == [], f"redelivered after all were accepted: {d.recs()}"
    finally:
        br.stop()


def confirmed_acks(evs: list[dict]) -> list[tuple[int, str]]:
    """(offset, ack) of the records whose acknowledgement the broker
    confirmed: those of a poll followed by a commit without error and no
    failed ack_result in between (franz-go's FlushAcks returns nil even when
    its ack callback reports errors, e.g. INVALID_SHARE_SESSION_EPOCH)."""
    out, pending, failed = [], [], False
    for e in evs:
        if e["ev"] == "rec":
            pending.append((e["o"], e["ack"]))
        elif e["ev"] == "ack_result" and e.get("error"):
            failed = True
        elif e["ev"] == "commit":
            errs = [e.get("error")] + list((e.get("partitions") or {}).values())
            if not any(errs) and not failed:
                out += pending
            pending, failed = [], False
    return out


def test_broker_kill9_loop(share_client, tmp_path):
    """3 rounds: a member REJECTs offsets = 0 mod 3, RELEASEs 1 mod 3 at
    delivery 1 and ACCEPTs the rest, 5 ms per record (lock 15 s), while the broker is
    SIGKILLed at a random point and restarted. Every ACCEPT or REJECT the
    broker confirmed is never delivered again; nothing is lost: in the end
    all 1 and 2 mod 3 offsets are accepted and a new member gets nothing."""
    if external_from_env():
        pytest.skip("needs a broker the test starts itself (SKIFF_COMPAT_EXTERNAL_BROKER is set)")
    import random
    rnd = random.Random(932)
    n = 300
    br = start_broker(tmp_path / "broker")
    try:
        b, t, g = br.bootstrap, tname("loop", share_client), gid()
        setup_topic(b, t, 1, g, **{"share.delivery.count.limit": "10", "share.record.lock.duration.ms": "15000"})
        produce(b, t, n)
        done: dict[int, str] = {}  # offset -> confirmed ack (accept/reject)
        rounds = []
        for r in range(4):
            last = r == 3
            stop = tmp_path / f"stop{r}"
            c = Consumer(share_client, b, g, t, tmp_path / f"r{r}.jsonl", ack="mixed", sleep_ms=5, stop_file=stop,
                         timeout=120)
            try:
                c.wait_for(lambda evs: any(e["ev"] == "ready" for e in evs), 60, f"round {r} subscribed")
                deadline = time.monotonic() + 10  # (nothing may be left to deliver)
                while time.monotonic() < deadline and not c.recs():
                    time.sleep(0.1)
                if last:  # no kill: consume to the end
                    quiet_for([c], 6)
                    stop.touch()
                    c.wait_exit(40)
                else:
                    time.sleep(rnd.uniform(0.3, 2.0))
                    br.kill9()
                    c.kill9()
            finally:
                c.kill9()
            evs = c.events()
            recs = [e for e in evs if e["ev"] == "rec"]
            again = sorted({e["o"] for e in recs if e["o"] in done})
            assert not again, f"round {r}: confirmed ACCEPT/REJECT delivered again: {again[:20]}"
            for o, ack in confirmed_acks(evs):
                if ack in ("accept", "reject"):
                    done[o] = ack
            rounds.append((len(recs), sorted({e["dc"] for e in recs})))
            if not last:
                b = br.start()
        print(f"\n{share_client} kill -9 loop: per round (records, delivery counts) {rounds}; "
              f"{len(done)} of {n} finishes confirmed to the client")
        assert all(ack == ("reject" if o % 3 == 0 else "accept") for o, ack in done.items())
        seen = {e["o"] for r in range(4) for e in parse_lines((tmp_path / f"r{r}.jsonl").read_text())
                if e["ev"] == "rec"}
        assert seen == set(range(n)), f"never delivered: {sorted(set(range(n)) - seen)[:30]}"
        # A 1 mod 3 record is finished only by an ACCEPT, which the rule
        # gives at delivery 2 or later: each must have been seen so.
        late = {e["o"] for r in range(4) for e in parse_lines((tmp_path / f"r{r}.jsonl").read_text())
                if e["ev"] == "rec" and e["dc"] >= 2}
        assert not [o for o in range(1, n, 3) if o not in late], "a released record finished without an ACCEPT"
        # (franz-go also acknowledges in the background, so the client's
        # confirmations undercount: the final member getting nothing is
        # what proves every record finished.)
        with Consumer(share_client, b, g, t, tmp_path / "final.jsonl", timeout=8) as c:
            c.wait_exit(40)
            assert c.recs() == [], f"delivered after all were finished: {c.recs()[:10]}"
    finally:
        br.stop()


# ---------------------------------------------------------- Kafka's tools
def test_kafka_share_groups_tool(share_client, sbroker, tmp_path):
    """kafka-share-groups: list, describe (offsets, --members, --state),
    reset-offsets (--to-earliest, --to-latest, --from-file; refused while
    members are active), delete-offsets, delete."""
    only_java(share_client)
    b, t, g = sbroker.bootstrap, tname("tool", share_client), gid("tool")
    setup_topic(b, t, 2, g)
    produce(b, t, 20, partitions=2)
    stop = tmp_path / "stop"
    cs = [Consumer("java", b, g, t, tmp_path / f"m{i}.jsonl", name=f"m{i}", stop_file=stop) for i in range(2)]
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len({x for c in cs for x in keyed(c.recs())}) < 20:
            time.sleep(0.2)
        time.sleep(3)  # both members in and the acknowledgements done
        S = SHARE_GROUPS
        _, out, _ = tool(S, "--bootstrap-server", b, "--list")
        assert g in out.split(), out
        _, state, _ = tool(S, "--bootstrap-server", b, "--describe", "--group", g, "--state")
        st = table(state)
        assert st and st[0]["STATE"] == "Stable" and st[0]["#MEMBERS"] == "2", state
        _, members, _ = tool(S, "--bootstrap-server", b, "--describe", "--group", g, "--members")
        print(f"\n--describe --state:\n{state}\n--describe --members:\n{members}")
        mrows = table(members)
        assert len(mrows) == 2 and {r["CLIENT-ID"] for r in mrows} == {"m0", "m1"}, members
        _, offs, _ = tool(S, "--bootstrap-server", b, "--describe", "--group", g)
        print(f"--describe:\n{offs}")
        rows = table(offs)
        # LAG is exact; START-OFFSET is the persisted start offset, which on
        # Kafka trails the acknowledgements (observed 0 here, see above).
        assert sorted((r["TOPIC"], r["PARTITION"], r["LAG"]) for r in rows) == [(t, "0", "0"), (t, "1", "0")], offs
        assert all(0 <= int(r["START-OFFSET"]) <= 10 for r in rows), offs
        rc, busy, err = tool(S, "--bootstrap-server", b, "--reset-offsets", "--group", g, "--topic", t,
                             "--to-earliest", "--execute", check=False)
        print(f"reset while active (exit {rc}):\n{busy}\n{err[-600:]}")
        assert rc != 0 or "not empty" in (busy + err).lower() or "inactive" in (busy + err).lower(), busy
        stop.touch()
        for c in cs:
            c.wait_exit(40)
        time.sleep(1)
        _, state, _ = tool(S, "--bootstrap-server", b, "--describe", "--group", g, "--state")
        assert table(state)[0]["STATE"] == "Empty", state
        _, out, _ = tool(S, "--bootstrap-server", b, "--reset-offsets", "--group", g, "--topic", t,
                         "--to-earliest", "--execute")
        print(f"--reset-offsets --to-earliest --execute:\n{out}")
        _, offs, _ = tool(S, "--bootstrap-server", b, "--describe", "--group", g)
        assert sorted((r["PARTITION"], r["START-OFFSET"], r["LAG"]) for r in table(offs)) == [
            ("0", "0", "10"), ("1", "0", "10")], offs
        _, out, _ = tool(S, "--bootstrap-server", b, "--reset-offsets", "--group", g, "--topic", t,
                         "--to-latest", "--execute")
        _, offs, _ = tool(S, "--bootstrap-server", b, "--describe", "--group", g)
        assert sorted((r["PARTITION"], r["START-OFFSET"], r["LAG"]) for r in table(offs)) == [
            ("0", "10", "0"), ("1", "10", "0")], offs
        csv = tmp_path / "offsets.csv"
        csv.write_text(f"{t},0,3\n{t},1,7\n")
        _, out, _ = tool(S, "--bootstrap-server", b, "--reset-offsets", "--group", g, "--from-file", str(csv),
                         "--execute")
        _, offs, _ = tool(S, "--bootstrap-server", b, "--describe", "--group", g)
        print(f"after --from-file:\n{offs}")
        assert sorted((r["PARTITION"], r["START-OFFSET"], r["LAG"]) for r in table(offs)) == [
            ("0", "3", "7"), ("1", "7", "3")], offs
        _, dry, _ = tool(S, "--bootstrap-server", b, "--reset-offsets", "--group", g, "--topic", t,
                         "--to-earliest", "--dry-run", "--export")
        print(f"--dry-run --export:\n{dry}")
        # a member now gets exactly the records from the reset start offsets
        with Consumer("java", b, g, t, tmp_path / "after.jsonl", timeout=10) as c:
            c.wait_exit(40)
            assert sorted(keyed(c.recs())) == [(0, o) for o in range(3, 10)] + [(1, o) for o in range(7, 10)], \
                c.tail()
        _, out, _ = tool(S, "--bootstrap-server", b, "--delete-offsets", "--group", g, "--topic", t)
        print(f"--delete-offsets:\n{out}")
        _, offs, _ = tool(S, "--bootstrap-server", b, "--describe", "--group", g)
        print(f"--describe after --delete-offsets:\n{offs}")
        _, out, _ = tool(S, "--bootstrap-server", b, "--delete", "--group", g)
        print(f"--delete:\n{out}")
        assert "deleted" in out.lower() or "success" in out.lower(), out
        _, out, _ = tool(S, "--bootstrap-server", b, "--list")
        assert g not in out.split(), out
        rc, out, err = tool(S, "--bootstrap-server", b, "--describe", "--group", g, check=False)
        print(f"--describe of the deleted group (exit {rc}):\n{out}\n{err[-500:]}")
    finally:
        for c in cs:
            c.kill9()


def test_console_share_consumer(share_client, sbroker, tmp_path):
    """kafka-console-share-consumer prints the values; --reject then leaves
    nothing for the group."""
    only_java(share_client)
    b, t, g = sbroker.bootstrap, tname("console", share_client), gid("console")
    setup_topic(b, t, 1, g)
    produce(b, t, 5, prefix="hello-")
    _, out, err = tool(CONSOLE_SHARE, "--bootstrap-server", b, "--topic", t, "--group", g, "--max-messages", "5",
                       "--timeout-ms", "20000", timeout=60)
    assert out.split() == [f"hello-{i}" for i in range(5)], f"{out}\n{err[-1000:]}"
    assert "Processed a total of 5 messages" in err, err[-1000:]
    g2 = gid("console-rej")
    set_group_configs(b, g2, **{"share.auto.offset.reset": "earliest"})
    _, out, err = tool(CONSOLE_SHARE, "--bootstrap-server", b, "--topic", t, "--group", g2, "--max-messages", "5",
                       "--timeout-ms", "20000", "--reject", timeout=60)
    assert len(out.split()) == 5, out
    rc, out, err = tool(CONSOLE_SHARE, "--bootstrap-server", b, "--topic", t, "--group", g2, "--timeout-ms", "5000",
                        timeout=60, check=False)
    assert out.split() == [] and "Processed a total of 0 messages" in err, f"{out}\n{err[-1000:]}"


def test_verifiable_share_consumer(share_client, sbroker, tmp_path):
    """kafka-verifiable-share-consumer --acknowledgement-mode sync: its JSON
    events (startup_complete, offset_reset_strategy_set, records_consumed,
    offsets_acknowledged, shutdown_complete) for 20 records."""
    only_java(share_client)
    b, t, g = sbroker.bootstrap, tname("verifiable", share_client), gid("verif")
    setup_topic(b, t, 1)
    produce(b, t, 20)
    rc, out, err = tool(VERIFIABLE_SHARE, "--bootstrap-server", b, "--topic", t, "--group-id", g,
                        "--max-messages", "20", "--acknowledgement-mode", "sync",
                        "--offset-reset-strategy", "earliest", timeout=90, check=False)
    evs = parse_lines(out)
    names = [e.get("name") for e in evs]
    print(f"\nverifiable-share-consumer (exit {rc}) events: {Counter(names)}\nfirst: {evs[:3]}\nlast: {evs[-3:]}")
    assert "startup_complete" in names and "shutdown_complete" in names, f"{out[-2000:]}\n{err[-2000:]}"
    consumed = sum(e.get("count", 0) for e in evs if e.get("name") == "records_consumed")
    acked = sum(e.get("count", 0) for e in evs if e.get("name") == "offsets_acknowledged")
    assert consumed == 20 and acked == 20, f"consumed {consumed}, acknowledged {acked}: {evs[-5:]}"


def test_share_consumer_perf_test(share_client, sbroker, tmp_path):
    """kafka-share-consumer-perf-test reads 2000 records and prints its CSV
    line (start.time, end.time, data.consumed.in.MB, MB.sec, ...)."""
    only_java(share_client)
    b, t, g = sbroker.bootstrap, tname("perf", share_client), gid("perf")
    setup_topic(b, t, 1, g)
    produce(b, t, 2000)
    _, out, err = tool(SHARE_PERF, "--bootstrap-server", b, "--topic", t, "--group", g, "--num-records", "2000",
                       "--timeout", "60000", timeout=120)
    print(f"\nshare-consumer-perf-test:\n{out}")
    lines = [ln for ln in out.splitlines() if ln.strip()]
    head = [h.strip() for h in lines[0].split(",")]
    row = [c.strip() for c in lines[1].split(",")]
    assert "nMsg.sec" in head and "data.consumed.in.nMsg" in head, out
    assert int(row[head.index("data.consumed.in.nMsg")]) == 2000, out
