"""KIP-848 with real Java consumers as separate processes (GroupMember.java):
three members share six partitions while a producer writes; the static one
restarts (static leave, a new process with the same group.instance.id) and
gets its own partitions back while the others keep theirs; one leaves and the
other two take its partitions; one is killed with SIGKILL and, after the
group's session timeout, the survivor owns all six. From the members' own
callbacks no partition is ever owned by two processes at once (a killed
process owns nothing after its death), and every acknowledged record is
consumed and committed. A broker of its own with a 10 s session timeout, so
the kill is noticed quickly, yet a restarted static member (compiled once,
so its JVM starts in about a second) comes back within it. Runs in the java run; bounded in time."""
from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import skiff_binary
from harness.broker import SkiffBroker
from harness.clients import java_classpath
from test_admin import name, only_for

pytestmark = pytest.mark.timeout(200)

MEMBER = Path(__file__).with_name("GroupMember.java")
PARTITIONS = 6
SESSION_MS = 10000
GROUP_TIMERS = {"group.consumer.min.session.timeout.ms": "5000", "group.consumer.session.timeout.ms": str(SESSION_MS),
                "group.consumer.min.heartbeat.interval.ms": "500", "group.consumer.heartbeat.interval.ms": "1000"}


def _compile(out: Path) -> Path:
    """javac once, so that a restarted member is up well within its session."""
    out.mkdir()
    subprocess.run(["javac", "-cp", java_classpath(), "-d", str(out), str(MEMBER)], check=True, timeout=120)
    return out


class Member:
    """One GroupMember.java process and the events it printed."""

    def __init__(self, classes: Path, bootstrap, topic, group, client_id, instance="-"):
        cp = f"{classes}:{java_classpath()}"
        self.name, self.events, self.end_ms = client_id, [], None
        self.proc = subprocess.Popen(
            ["java", "-Xmx256m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", cp, "GroupMember",
             bootstrap, topic, group, client_id, instance, "150000"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            if line.startswith("{"):
                self.events.append(json.loads(line))

    def owned(self) -> set[int]:
        own: set[int] = set()
        for e in list(self.events):
            if e["ev"] == "assigned":
                own |= set(e["ps"])
            elif e["ev"] in ("revoked", "lost"):
                own -= set(e["ps"])
        return own

    def close(self):
        self.proc.stdin.write("close\n")
        self.proc.stdin.flush()
        assert self.proc.wait(30) == 0, f"{self.name} did not close cleanly"
        self.reader.join(5)
        self.end_ms = next(e["t"] for e in self.events if e["ev"] == "closed")

    def kill9(self):
        self.proc.kill()
        self.proc.wait(10)
        self.end_ms = int(time.time() * 1000)  # it owns nothing after this


def _wait(cond, timeout, what, members=()):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.1)
    owned = {m.name: sorted(m.owned()) for m in members}
    raise AssertionError(f"timed out waiting for {what}; members own {owned}")


def _intervals(member: Member):
    """(partition, start_ms, end_ms) for each stretch of ownership."""
    open_at: dict[int, int] = {}
    out = []
    for e in member.events:
        if e["ev"] == "assigned":
            for p in e["ps"]:
                open_at.setdefault(p, e["t"])
        elif e["ev"] in ("revoked", "lost"):
            for p in e["ps"]:
                if p in open_at:
                    out.append((p, open_at.pop(p), e["t"]))
    end = member.end_ms or int(time.time() * 1000)
    out += [(p, t, end) for p, t in open_at.items()]
    return out


def _overlaps(members):
    spans = [(m.name, *iv) for m in members for iv in _intervals(m)]
    return [(a, b) for i, a in enumerate(spans) for b in spans[i + 1:]
            if a[0] != b[0] and a[1] == b[1] and a[2] < b[3] and b[2] < a[3]]


class Producer:
    """Writes one record every 10 ms, round robin over the partitions, until stopped."""

    def __init__(self, bootstrap, topic):
        from confluent_kafka import Producer as P
        self.p, self.topic, self.acked, self.stop_flag = P({"bootstrap.servers": bootstrap}), topic, [], False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        i = 0
        while not self.stop_flag:
            self.p.produce(self.topic, value=str(i).encode(), partition=i % PARTITIONS,
                           on_delivery=lambda err, m: err or self.acked.append((m.partition(), m.offset())))
            self.p.poll(0)
            i += 1
            time.sleep(0.01)
        assert self.p.flush(30) == 0

    def stop(self):
        self.stop_flag = True
        self.thread.join(40)


def test_java_members_leave_die_and_restart_static(client, tmp_path):
    only_for(client, "java")
    from confluent_kafka.admin import AdminClient, NewTopic

    classes = _compile(tmp_path / "classes")
    broker = SkiffBroker(skiff_binary(), tmp_path / "data", tmp_path, GROUP_TIMERS)
    bootstrap = broker.start()
    topic, group = name("lifecycle"), name("lifecycle-group")
    members: list[Member] = []
    try:
        admin = AdminClient({"bootstrap.servers": bootstrap})
        admin.create_topics([NewTopic(topic, PARTITIONS, 1)])[topic].result(30)
        producer = Producer(bootstrap, topic)
        a, b = Member(classes, bootstrap, topic, group, "a"), Member(classes, bootstrap, topic, group, "b")
        c = Member(classes, bootstrap, topic, group, "c", instance="c-static")
        members += [a, b, c]
        _wait(lambda: [len(m.owned()) for m in (a, b, c)] == [2, 2, 2], 60, "three members with two each", members)

        before = {m.name: m.owned() for m in (a, b, c)}
        c.close()  # static leave: its partitions wait for it
        c2 = Member(classes, bootstrap, topic, group, "c2", instance="c-static")
        members.append(c2)
        _wait(lambda: c2.owned() == before["c"], 40, "the restarted static member to get its partitions back", members)
        assert a.owned() == before["a"] and b.owned() == before["b"], "the static restart moved partitions"

        a.close()  # leaves (epoch -1): its partitions move at once
        _wait(lambda: sorted(len(m.owned()) for m in (b, c2)) == [3, 3], 30, "b and c2 with three each", members)
        b.kill9()
        _wait(lambda: len(c2.owned()) == PARTITIONS, SESSION_MS / 1000 + 30, "c2 to own all six after b's session", members)

        producer.stop()
        acked = set(producer.acked)
        consumed = lambda: {(e["p"], e["o"]) for m in members for e in list(m.events) if e["ev"] == "consumed"}  # noqa: E731
        try:
            _wait(lambda: acked <= consumed(), 40, "every acknowledged record consumed", members)
        except AssertionError as e:
            missing = sorted(acked - consumed())
            raise AssertionError(f"{e}: {len(missing)} of {len(acked)} missing, e.g. {missing[:10]}, "
                                 f"c2's last events {c2.events[-5:]}") from None
        c2.close()
        assert not _overlaps(members), _overlaps(members)
        offsets = admin.list_consumer_group_offsets([_request(group, topic)])[group].result(10).topic_partitions
        assert sum(tp.offset for tp in offsets) == len(acked), (offsets, len(acked))
    finally:
        for m in members:
            if m.proc.poll() is None:
                m.proc.kill()
        broker.stop()


def _request(group, topic):
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
    return ConsumerGroupTopicPartitions(group, [TopicPartition(topic, p) for p in range(PARTITIONS)])
