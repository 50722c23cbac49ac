"""The group coordinator's internal topic __consumer_offsets, as Kafka 4.4
shows it: a real client (the Java driver's group consumer) commits offsets,
then Kafka's own console consumer reads __consumer_offsets with Kafka's
OffsetsMessageFormatter and finds the group's offsets, and kafka-dump-log
--offsets-decoder its group record (so the records are Kafka's formats, key
and value versions included); kafka-topics --list shows the topic and
--exclude-internal hides it (is_internal=true); producing to it is refused
and so is DeleteRecords on it (INVALID_TOPIC_EXCEPTION), as in Kafka 4.4
(which does allow DeleteTopics and CreatePartitions on it). Runs once, in the
java run."""
from __future__ import annotations

import json
import re

import pytest

from harness.data import Rec
from test_admin import name, only_for, tool
from test_kafka_tools import is_skiff

CONSOLE = "org.apache.kafka.tools.consumer.ConsoleConsumer"
TOPICS = "org.apache.kafka.tools.TopicCommand"
DUMP = "org.apache.kafka.tools.DumpLogSegments"
OFFSETS_FORMATTER = "org.apache.kafka.tools.consumer.OffsetsMessageFormatter"
GROUP_FORMATTER = "org.apache.kafka.tools.consumer.GroupMetadataMessageFormatter"
pytestmark = pytest.mark.timeout(240)


def read_offsets_topic(bootstrap: str, formatter: str) -> list[dict]:
    """Every record of __consumer_offsets that `formatter` prints, as JSON."""
    out = tool(CONSOLE, "--bootstrap-server", bootstrap, "--topic", "__consumer_offsets", "--from-beginning",
               "--formatter", formatter, "--timeout-ms", "8000", check=False, timeout=120)
    # Kafka's coordinator formatters write one JSON object per record with no
    # separator; stderr follows stdout.
    rows, decoder = [], json.JSONDecoder()
    for line in out.splitlines():
        i = 0
        while line.startswith("{", i):
            obj, i = decoder.raw_decode(line, i)
            rows.append(obj)
    return rows


def test_consumer_offsets_decoded_by_kafka_formatters(client, broker, tmp_path):
    only_for(client, "java")
    b = broker.bootstrap
    t, g = name("offs"), name("grp")
    tool(TOPICS, "--bootstrap-server", b, "--create", "--topic", t, "--partitions", "2")
    res = client.produce(b, t, [Rec(p=i % 2, k=f"k{i}".encode(), v=f"v{i}".encode()) for i in range(6)],
                         timeout=30)
    assert not [r for r in res if "error" in r], res
    got = client.group_consume(b, t, g, 6, timeout=60)
    assert len(got) == 6, got

    rows = read_offsets_topic(b, OFFSETS_FORMATTER)
    mine = [r for r in rows if r.get("key", {}).get("data", {}).get("group") == g]
    assert mine, rows[-10:]
    last = {}
    for r in mine:
        assert r["key"]["type"] == 1, r  # OffsetCommitKey
        # as Kafka 4.4 writes it: OffsetCommitValue v4 with the topic's id
        assert r["value"]["version"] == 4 and r["value"]["data"].get("topicId"), r
        last[(r["key"]["data"]["topic"], r["key"]["data"]["partition"])] = r["value"]["data"]["offset"]
    assert last == {(t, 0): 3, (t, 1): 3}, mine

    # The group formatter (Kafka 4.4's prints nothing for Kafka's own classic
    # group records either), then kafka-dump-log --offsets-decoder, which does.
    rows = read_offsets_topic(b, GROUP_FORMATTER)
    assert all(r["key"]["type"] == 2 for r in rows if r.get("key", {}).get("data", {}).get("group") == g), rows
    if is_skiff(broker):
        files = sorted(str(f) for d in broker.log_dirs for f in d.glob("__consumer_offsets-*/*.log"))
        out = tool(DUMP, "--offsets-decoder", "--files", ",".join(files), timeout=120)
        groups = [json.loads(m.group(2)) for m in re.finditer(r'key: (\{"type":"2","data":\{"group":"' + g +
                                                              r'"\}\}) payload: (\{.*\})$', out, re.M)]
        assert groups, out[-3000:]
        assert groups[-1]["version"] == "3" and groups[-1]["data"]["protocolType"] == "consumer", groups

    listed = tool(TOPICS, "--bootstrap-server", b, "--list").split()
    assert "__consumer_offsets" in listed, listed
    assert "__consumer_offsets" not in tool(TOPICS, "--bootstrap-server", b, "--list", "--exclude-internal").split()

    res = client.produce(b, "__consumer_offsets", [Rec(p=0, k=b"k", v=b"v")], timeout=30)
    assert res and all("error" in r for r in res), res
    assert "InvalidTopicException" in res[0]["error"], res

    # DeleteRecords on an internal topic: INVALID_TOPIC_EXCEPTION, as Kafka 4.4.
    spec = tmp_path / "delete-records.json"
    spec.write_text(json.dumps({"partitions": [{"topic": "__consumer_offsets", "partition": 0, "offset": 1}],
                                "version": 1}))
    out = tool("org.apache.kafka.tools.DeleteRecordsCommand", "--bootstrap-server", b, "--offset-json-file",
               str(spec), check=False)
    assert "InvalidTopicException" in out, out
