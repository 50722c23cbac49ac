"""Consumer groups (FindCoordinator, JoinGroup, SyncGroup, Heartbeat,
LeaveGroup, OffsetCommit, OffsetFetch, DescribeGroups, ListGroups,
DeleteGroups) with real clients: committed offsets are resumed by a new
member, survive a broker restart (SIGTERM and kill -9), partitions move when
a member leaves or dies, a static member gets its partitions back, and
Apache Kafka's kafka-consumer-groups tool (java run).

Group consumption is expressed here with each client's own API: kcat `-G`
(auto-commit on close), confluent-kafka and kafka-python `subscribe` +
commit, the Java and franz-go drivers' `group_consume` op (subscribe, poll,
commitSync / CommitUncommittedOffsets, close; Java with both the range and
the cooperative-sticky assignor). The kafkajs driver has no group-with-commit
operation (it uses a throwaway group and seeks), so those scenarios are
skipped in its run with that reason."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid

import pytest

from harness.clients import DriverError
from harness.data import Rec

GROUP_CLIENTS = ("kcat", "confluent_kafka", "kafka_python", "kafkajs", "java", "franz_go")
ASSIGNORS = ["range", "cooperative-sticky"]  # Java's partition.assignment.strategy
pytestmark = pytest.mark.timeout(60)


def gid(prefix="g"):
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def need_group_client(client):
    if client.name not in GROUP_CLIENTS:
        pytest.skip(f"the {client.name} driver has no consume-with-group.id-and-commit operation "
                    f"(adding one means rebuilding the driver)")


def only_for(client, name):
    if client.name != name:
        pytest.skip(f"runs once, in the {name} run")


def recs(prefix: str, n: int) -> list[Rec]:
    return [Rec(p=i % 3, k=f"k{i}".encode(), v=f"{prefix}-{i}".encode()) for i in range(n)]


def produce_ok(client, bootstrap, topic, rs):
    res = client.produce(bootstrap, topic, rs, timeout=30)
    errors = [r for r in res if "error" in r]
    assert not errors, f"{len(errors)} of {len(rs)} records failed: {errors[:3]}"


# ------------------------------------------------- group consume per client
def group_consume(client, bootstrap, topic, group, n, timeout=25.0, settle=1.0,
                  assignor=None) -> list[tuple[int, int, bytes]]:
    """Joins `group`, consumes until `n` records (then `settle` s more to catch
    extras), commits and closes. Returns (partition, offset, value).
    `assignor`: the Java driver's partition.assignment.strategy."""
    deadline = time.monotonic() + timeout
    if client.name in ("java", "franz_go", "kafkajs"):
        return client.group_consume(bootstrap, topic, group, n, timeout=timeout, settle=settle,
                                    assignor=assignor if client.name == "java" else None)
    if client.name == "confluent_kafka":
        from confluent_kafka import Consumer
        c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False,
                      "auto.offset.reset": "earliest", "fetch.wait.max.ms": 200,
                      "session.timeout.ms": 10000, "heartbeat.interval.ms": 1000})
        out = []
        try:
            c.subscribe([topic])
            extra = None
            while time.monotonic() < deadline and (extra is None or time.monotonic() < extra):
                m = c.poll(0.2)
                if m is None:
                    if len(out) >= n and extra is None:
                        extra = time.monotonic() + settle
                    continue
                if m.error():
                    raise DriverError(f"confluent-kafka: {m.error()}")
                out.append((m.partition(), m.offset(), m.value()))
                if len(out) >= n and extra is None:
                    extra = time.monotonic() + settle
            if out:
                c.commit(asynchronous=False)
        finally:
            c.close()
        return out
    if client.name == "kafka_python":
        from kafka import KafkaConsumer
        c = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False,
                          auto_offset_reset="earliest", fetch_max_wait_ms=200, session_timeout_ms=10000,
                          heartbeat_interval_ms=1000, api_version_auto_timeout_ms=10000)
        out = []
        try:
            extra = None
            while time.monotonic() < deadline and (extra is None or time.monotonic() < extra):
                for tp, msgs in c.poll(timeout_ms=200).items():
                    out += [(tp.partition, m.offset, m.value) for m in msgs]
                if len(out) >= n and extra is None:
                    extra = time.monotonic() + settle
            if out:
                c.commit()
        finally:
            c.close(autocommit=False)
        return out
    if client.name == "kcat":
        # Balanced consumer; -c N exits after N messages and the close commits
        # the offsets (enable.auto.commit, librdkafka's default).
        args = ["kcat", "-b", bootstrap, "-G", group, "-c", str(n), "-J", "-q", "-m", "10",
                "-X", "auto.offset.reset=earliest", "-X", "fetch.wait.max.ms=200",
                "-X", "session.timeout.ms=10000", "-X", "heartbeat.interval.ms=1000", topic]
        try:
            p = subprocess.run(args, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            got = [l for l in (e.stdout or b"").decode().splitlines() if l.startswith("{")]
            raise DriverError(f"kcat -G got {len(got)} of {n} within {timeout}s: {(e.stderr or b'')[-1500:]!r}")
        assert p.returncode == 0, f"kcat -G exited {p.returncode}: {p.stderr[-1500:]!r}"
        out = []
        for l in p.stdout.decode().splitlines():
            if l.startswith("{"):
                d = json.loads(l)
                out.append((d["partition"], d["offset"], (d.get("payload") or "").encode()))
        return out
    raise AssertionError(client.name)


def check_resume(client, b, topic, group, n=30, m=12, assignor=None):
    first = recs("a", n)
    produce_ok(client, b, topic, first)
    got = group_consume(client, b, topic, group, n, assignor=assignor)
    assert sorted(v for _, _, v in got) == sorted(r.v for r in first), \
        f"first member got {len(got)} records, expected the {n} produced"
    return first


def check_resumed(client, b, topic, group, m=12, assignor=None):
    second = recs("b", m)
    produce_ok(client, b, topic, second)
    got = group_consume(client, b, topic, group, m, assignor=assignor)
    vals = [v for _, _, v in got]
    old = [v for v in vals if v.startswith(b"a-")]
    assert not old, f"new member re-read {len(old)} committed records (e.g. {old[:3]}): did not resume"
    assert sorted(vals) == sorted(r.v for r in second), \
        f"new member got {len(vals)} records, expected exactly the {m} new ones"


# ----------------------------------------------------------------- scenarios
def need_assignor(client, assignor):
    """The assignor parameter is the Java client's: the other clients run once."""
    if client.name == "java":
        return assignor
    if assignor != ASSIGNORS[0]:
        pytest.skip(f"assignor choice is the java run's ({client.name} uses its own default)")
    return None


@pytest.mark.parametrize("assignor", ASSIGNORS)
def test_group_commit_resume(client, broker, topic, assignor):
    need_group_client(client)
    a = need_assignor(client, assignor)
    g = gid()
    check_resume(client, broker.bootstrap, topic, g, assignor=a)
    check_resumed(client, broker.bootstrap, topic, g, assignor=a)


@pytest.mark.parametrize("assignor", ASSIGNORS)
@pytest.mark.parametrize("how", ["sigterm", "kill9"])
def test_group_offsets_survive_restart(client, own_broker, topic, how, assignor):
    need_group_client(client)
    a = need_assignor(client, assignor)
    g = gid()
    check_resume(client, own_broker.bootstrap, topic, g, assignor=a)
    if how == "sigterm":
        own_broker.stop()
    else:
        time.sleep(0.5)
        own_broker.kill9()
    own_broker.start()
    check_resumed(client, own_broker.bootstrap, topic, g, assignor=a)


class _ConfluentMember:
    name = "confluent_kafka"


def test_group_resume_of_client_records(client, broker, topic):
    """For the clients whose driver has no group consumer: the records this
    client produces, consumed by a confluent-kafka group member that commits;
    a new member resumes at the commit. (Group clients do this themselves in
    test_group_commit_resume.)"""
    if client.name in GROUP_CLIENTS:
        pytest.skip(f"{client.name} consumes with its own group in test_group_commit_resume")
    pytest.importorskip("confluent_kafka")
    b, g, ref = broker.bootstrap, gid(), _ConfluentMember()
    first = recs("a", 30)
    produce_ok(client, b, topic, first)
    got = group_consume(ref, b, topic, g, 30)
    assert sorted(v for _, _, v in got) == sorted(r.v for r in first)
    second = recs("b", 12)
    produce_ok(client, b, topic, second)
    got = group_consume(ref, b, topic, g, 12)
    assert sorted(v for _, _, v in got) == sorted(r.v for r in second), \
        f"new member got {sorted(v for _, _, v in got)[:5]}..., expected exactly the 12 new ones"


def test_kafkajs_group_consume(client, broker, topic):
    """kafkajs consumes only as a group member (JoinGroup, SyncGroup,
    Heartbeat, then seeks): a fresh group gets all three partitions and reads
    from the given offsets."""
    only_for(client, "kafkajs")
    b = broker.bootstrap
    produce_ok(client, b, topic, recs("a", 30))
    got, complete = client.consume(b, topic, {0: 4, 1: 4, 2: 4}, {0: 6, 1: 6, 2: 6}, timeout=30)
    assert complete, f"kafkajs group consumer got {len(got)} of 18"
    for p in range(3):
        offs = sorted(r.o for r in got if r.p == p)
        assert offs == list(range(4, 10)), f"partition {p}: offsets {offs}"


# ------------------------------------------- multi-member (confluent-kafka)
MEMBER = r'''
import json, signal, sys, time
from confluent_kafka import Consumer
bootstrap, topic, group, instance = sys.argv[1:5]
conf = {"bootstrap.servers": bootstrap, "group.id": group, "session.timeout.ms": 6000,
        "heartbeat.interval.ms": 500, "auto.offset.reset": "earliest", "enable.auto.commit": False,
        "partition.assignment.strategy": "range"}
if instance != "-":
    conf["group.instance.id"] = instance
c = Consumer(conf)
def say(ev, parts):
    print(json.dumps({"ev": ev, "parts": sorted(p.partition for p in parts), "t": time.time()}), flush=True)
stop = []
signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
c.subscribe([topic], on_assign=lambda c, ps: say("assign", ps), on_revoke=lambda c, ps: say("revoke", ps))
while not stop:
    c.poll(0.1)
c.close()
say("closed", [])
'''


class Member:
    def __init__(self, path, bootstrap, topic, group, instance="-"):
        self.events: list[dict] = []
        self.proc = subprocess.Popen([sys.executable, str(path), bootstrap, topic, group, instance],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self):
        for line in self.proc.stdout:
            try:
                self.events.append(json.loads(line))
            except ValueError:
                pass

    @property
    def parts(self) -> list[int]:
        for e in reversed(self.events):
            if e["ev"] == "assign":
                return e["parts"]
            return []
        return []

    def close(self, timeout=15):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)


def wait_for(cond, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.1)
    raise AssertionError(f"{what} not reached within {timeout}s")


def balanced(members, nparts, sizes):
    ps = [m.parts for m in members]
    return (sorted(len(p) for p in ps) == sorted(sizes)
            and sorted(x for p in ps for x in p) == list(range(nparts)))


def create_topic(b, topic, n):
    from confluent_kafka.admin import AdminClient, NewTopic
    a = AdminClient({"bootstrap.servers": b})
    for f in a.create_topics([NewTopic(topic, n, 1)]).values():
        f.result(15)


@pytest.fixture
def member_script(tmp_path):
    p = tmp_path / "member.py"
    p.write_text(MEMBER)
    return p


def test_group_rebalance_leave_and_kill(client, broker, topic, member_script):
    only_for(client, "confluent_kafka")
    b = broker.bootstrap
    create_topic(b, topic, 6)
    g = gid()
    ms = [Member(member_script, b, topic, g) for _ in range(3)]
    try:
        desc = lambda: [m.parts for m in ms]  # noqa: E731
        wait_for(lambda: balanced(ms, 6, [2, 2, 2]), 25, "3 members x 2 partitions")
        ms[0].close()
        rest = ms[1:]
        wait_for(lambda: balanced(rest, 6, [3, 3]), 15, f"leave: 2 members x 3 partitions ({desc()})")
        ms[1].kill()  # no LeaveGroup: its partitions move after session.timeout.ms (6 s)
        t0 = time.monotonic()
        wait_for(lambda: balanced(ms[2:], 6, [6]), 20, f"kill: 1 member x 6 partitions ({desc()})")
        assert time.monotonic() - t0 > 2, "partitions moved before the killed member's session timed out"
    finally:
        for m in ms:
            m.kill()


def test_group_static_member_rejoin(client, broker, topic, member_script):
    only_for(client, "confluent_kafka")
    b = broker.bootstrap
    create_topic(b, topic, 6)
    g = gid()
    a = Member(member_script, b, topic, g, "static-a")
    o = Member(member_script, b, topic, g, "static-b")
    a2 = None
    try:
        wait_for(lambda: balanced([a, o], 6, [3, 3]), 25, "2 members x 3 partitions")
        time.sleep(1)
        before_a, before_o, n_o = a.parts, o.parts, len(o.events)
        a.kill()  # a static member restarted within its session timeout
        a2 = Member(member_script, b, topic, g, "static-a")
        wait_for(lambda: a2.parts, 15, "restarted static member assigned")
        time.sleep(2)
        assert a2.parts == before_a, f"static member got {a2.parts}, had {before_a}"
        later = o.events[n_o:]
        assert not later and o.parts == before_o, f"the other member was rebalanced: {later}"
    finally:
        for m in (a, o, a2):
            if m:
                m.kill()


# ------------------------------------------------- kafka-consumer-groups tool
def test_kafka_consumer_groups_cli(client, broker, topic):
    only_for(client, "java")
    from test_admin import tool
    cls = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
    b = broker.bootstrap
    g = gid("cli")
    # A group with committed offsets, written with the Java client's own
    # produce; the commit comes from the Kafka CLI's reset (no member needed).
    produce_ok(client, b, topic, recs("a", 30))
    out = tool(cls, "--bootstrap-server", b, "--group", g, "--topic", topic,
               "--reset-offsets", "--to-latest", "--execute", timeout=50)
    assert topic in out, out
    out = tool(cls, "--bootstrap-server", b, "--list", timeout=30)
    assert g in out.split(), f"--list lacks {g}: {out}"
    out = tool(cls, "--bootstrap-server", b, "--describe", "--group", g, timeout=30)
    for col in ("GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID"):
        assert col in out, f"--describe lacks {col}: {out}"
    rows = [l.split() for l in out.splitlines() if l.startswith(g)]
    assert len(rows) == 3 and all(r[4] == r[3] for r in rows), f"expected 3 partitions at the end: {out}"
    out = tool(cls, "--bootstrap-server", b, "--group", g, "--topic", topic,
               "--reset-offsets", "--to-earliest", "--execute", timeout=30)
    out = tool(cls, "--bootstrap-server", b, "--describe", "--group", g, timeout=30)
    rows = [l.split() for l in out.splitlines() if l.startswith(g)]
    assert len(rows) == 3 and all(r[3] == "0" and int(r[5]) == int(r[4]) for r in rows), \
        f"expected offsets 0 and lag = end after --to-earliest: {out}"
    out = tool(cls, "--bootstrap-server", b, "--delete", "--group", g, timeout=30)
    assert "success" in out.lower() or "deleted" in out.lower(), out
    out = tool(cls, "--bootstrap-server", b, "--list", timeout=30)
    assert g not in out.split(), f"{g} still listed after --delete: {out}"
