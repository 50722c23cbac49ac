"""A partition moved between two log dirs while a producer and a consumer run
(issue 20): Kafka 4.4's own kafka-reassign-partitions --execute with a JSON
that names `log_dirs` (it calls AlterReplicaLogDirs), --verify, and
kafka-log-dirs --describe before and after. Kafka's VerifiableProducer
(idempotent, acks=all) writes the values 0..N-1 and a console consumer reads
from the beginning during the move: every acknowledged value must be read
exactly once. Runs once, in the java run, on a broker of its own with two
log dirs."""
from __future__ import annotations

import json
import subprocess
import time

import pytest

from conftest import BROKER_OVERRIDES, skiff_binary
from harness.broker import SkiffBroker
from test_admin import kafka_jars, name, only_for, tool

REASSIGN = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand"
TOPICS = "org.apache.kafka.tools.TopicCommand"
LOG_DIRS = "org.apache.kafka.tools.LogDirsCommand"
PRODUCER = "org.apache.kafka.tools.VerifiableProducer"
CONSUMER = "org.apache.kafka.tools.consumer.ConsoleConsumer"
# At 1,000 records/s: 25 s of load, room for the throttled move to swap on a
# loaded machine (15 s was not enough once: the producer ended first).
MESSAGES = 25000


class TwoDirBroker(SkiffBroker):
    def args(self) -> list[str]:
        args = super().args()
        args[args.index(f"log.dirs={self.data_dir}")] = "log.dirs=" + ",".join(str(d) for d in self.log_dirs)
        return args


@pytest.fixture
def two_dir_broker(tmp_path):
    b = TwoDirBroker(skiff_binary(), tmp_path / "d0", tmp_path, BROKER_OVERRIDES)
    b.log_dirs = [tmp_path / "d0", tmp_path / "d1"]
    b.start()
    yield b
    b.stop()


def java(cls: str, *args: str) -> list[str]:
    return ["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", f"{kafka_jars()}/*", "-Dlog4j2.level=warn",
            cls, *args]


def log_dirs(b: str, topic: str) -> list[dict]:
    out = tool(LOG_DIRS, "--bootstrap-server", b, "--describe", "--topic-list", topic)
    blob = out[out.index('{"brokers"'):]
    return json.loads(blob.strip().splitlines()[0])["brokers"][0]["logDirs"]


def where(dirs: list[dict], partition: str) -> list[tuple[str, bool]]:
    return [(d["logDir"], p["isFuture"]) for d in dirs for p in d["partitions"] if p["partition"] == partition]


def test_move_partition_between_log_dirs_under_load(client, two_dir_broker, tmp_path):
    only_for(client, "java")
    b = two_dir_broker.bootstrap
    t = name("move")
    tool(TOPICS, "--bootstrap-server", b, "--create", "--topic", t, "--partitions", "1",
         "--config", "segment.bytes=1048576")
    dirs = log_dirs(b, t)
    assert sorted(d["logDir"] for d in dirs) == sorted(str(d) for d in two_dir_broker.log_dirs), dirs
    assert all(d["error"] is None for d in dirs), dirs
    (src, future), = where(dirs, f"{t}-0")
    assert not future
    dest = next(d["logDir"] for d in dirs if d["logDir"] != src)

    props = tmp_path / "producer.properties"
    props.write_text("enable.idempotence=true\nacks=all\nretries=2147483647\nlinger.ms=5\n")
    produced_out = open(tmp_path / "produced.jsonl", "w")
    consumed_out = open(tmp_path / "consumed.txt", "w")
    producer = subprocess.Popen(java(PRODUCER, "--bootstrap-server", b, "--topic", t, "--max-messages",
                                     str(MESSAGES), "--throughput", "1000", "--command-config", str(props)),
                                stdout=produced_out, stderr=subprocess.STDOUT)
    consumer = subprocess.Popen(java(CONSUMER, "--bootstrap-server", b, "--topic", t, "--from-beginning",
                                     "--max-messages", str(MESSAGES), "--timeout-ms", "30000"),
                                stdout=consumed_out, stderr=subprocess.DEVNULL)
    try:
        time.sleep(4)  # both running, a few thousand records in
        plan = tmp_path / "move.json"
        plan.write_text(json.dumps({"version": 1, "partitions": [
            {"topic": t, "partition": 0, "replicas": [1], "log_dirs": [dest]}]}))
        # Throttled (replica.alter.log.dirs.io.max.bytes.per.second, set by the tool) so that the
        # move lasts a few seconds and its future replica can be seen.
        out = tool(REASSIGN, "--bootstrap-server", b, "--execute", "--reassignment-json-file", str(plan),
                   "--replica-alter-log-dirs-throttle", "20000")
        assert f"Successfully started partition reassignment for {t}-0" in out, out
        assert f"Successfully started moving log directory to {dest} for replica {t}-0 with broker 1" in out, out
        assert "The replica-alter-dir throttle limit was set to 20000 B/s" in out, out
        seen = []
        deadline = time.monotonic() + 60
        while seen[-1:] != [[(dest, False)]]:
            assert time.monotonic() < deadline, log_dirs(b, t)
            seen.append(where(log_dirs(b, t), f"{t}-0"))
        assert producer.poll() is None and consumer.poll() is None, "the swap must happen under load"
        # While it moved: in its old dir, and as the future replica in the new one.
        assert any(set(w) == {(src, False), (dest, True)} for w in seen), seen
        out = tool(REASSIGN, "--bootstrap-server", b, "--verify", "--reassignment-json-file", str(plan))
        assert f"Reassignment of partition {t}-0 is completed." in out, out
        assert f"Reassignment of replica {t}-0-1 completed successfully." in out, out
        assert "Clearing broker-level throttles on broker 1" in out, out
        assert producer.wait(120) == 0
        consumer.wait(120)
    finally:
        for p in (producer, consumer):
            if p.poll() is None:
                p.kill()
                p.wait(10)
        produced_out.close()
        consumed_out.close()

    acked = []
    for line in (tmp_path / "produced.jsonl").read_text().splitlines():
        if line.startswith("{"):
            ev = json.loads(line)
            if ev.get("name") == "producer_send_success":
                acked.append(int(ev["value"]))
    assert sorted(acked) == list(range(MESSAGES)), f"{len(acked)} acknowledged"
    consumed = [int(v) for v in (tmp_path / "consumed.txt").read_text().split()]
    assert len(consumed) == len(set(consumed)), "duplicates read"
    assert sorted(consumed) == sorted(acked), f"read {len(consumed)} of {len(acked)}"
    assert consumed == sorted(consumed), "read out of order"

    # After the move: in the destination only, with its size, each dir's space reported.
    dirs = log_dirs(b, t)
    assert where(dirs, f"{t}-0") == [(dest, False)], dirs
    part = next(p for d in dirs for p in d["partitions"])
    assert part["size"] > 0 and part["offsetLag"] == 0, dirs
    for d in dirs:
        if "totalBytes" in d:
            assert d["totalBytes"] > 0 and 0 <= d["usableBytes"] <= d["totalBytes"], d

    # An unknown dir: Kafka's LOG_DIR_NOT_FOUND, through the tool.
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": t, "partition": 0, "replicas": [1], "log_dirs": [str(tmp_path / "nowhere")]}]}))
    out = tool(REASSIGN, "--bootstrap-server", b, "--execute", "--reassignment-json-file", str(bad), check=False)
    assert "LogDirNotFoundException" in out, out
