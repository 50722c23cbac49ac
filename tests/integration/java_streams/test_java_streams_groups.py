"""Kafka Streams 4.4 applications with the streams rebalance protocol
(group.protocol=streams, KIP-1071: StreamsGroupHeartbeat, StreamsGroupDescribe)
and, beside it, the classic protocol: the word count of
drivers/java/streams/StreamsGroupsApp.java (lines -> words -> groupBy word,
a repartition topic -> count in the store "counts", a changelog -> output).

Exact results at at_least_once and exactly_once_v2; two and three instances
sharing the six tasks while one is SIGKILLed and one restarts; standby
replicas; interactive-query metadata (application.server) the same on every
instance; a missing source topic (MISSING_SOURCE_TOPICS), then created;
kafka-streams-groups (list, describe, reset-offsets, delete) and
Admin.describeStreamsGroups. Runs in the java run of its own (ctest
compat_java_streams: `run.sh java java_streams`); against Apache Kafka 4.4
with SKIFF_COMPAT_EXTERNAL_BROKER (README.md). A broker without streams
groups fails the `streams` cases; the `classic` ones must pass anywhere."""
from __future__ import annotations

import collections
import random
import re
import subprocess
import time

import pytest

from harness.clients import DriverError
from harness.data import Rec
from harness.java_txn import JavaProcess, driver, events, streams_describe, streams_groups_app
from test_admin import kafka_jars, name, only_for, tool

pytestmark = pytest.mark.timeout(300)
PROTOCOLS = ["classic", "streams"]
TOPICS = "org.apache.kafka.tools.TopicCommand"
CONFIGS = "org.apache.kafka.tools.ConfigCommand"
GROUPS_TOOL = "org.apache.kafka.tools.streams.StreamsGroupCommand"
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
PARTITIONS = 3
# Subtopology 0 reads the input, subtopology 1 the repartition topic: 2 x 3 tasks.
ALL_TASKS = {f"{s}_{p}" for s in (0, 1) for p in range(PARTITIONS)}


def lines(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5))) for _ in range(n)]


def create_topic(broker, topic: str) -> None:
    tool(TOPICS, "--bootstrap-server", broker.bootstrap, "--create", "--topic", topic,
         "--partitions", str(PARTITIONS), "--replication-factor", "1")


def produce(client, broker, topic, text: list[str]) -> None:
    res = client.produce(broker.bootstrap, topic,
                         [Rec(p=i % PARTITIONS, k=None, v=t.encode()) for i, t in enumerate(text)], timeout=60)
    assert all("error" not in r for r in res), [r for r in res if "error" in r][:3]


def output(broker, topic: str, isolation: str) -> dict[str, list[int]]:
    """word -> the counts in the output, in offset order (a word has one partition)."""
    res = driver().call({"op": "read", "bootstrap": broker.bootstrap, "topic": topic, "partitions": PARTITIONS,
                         "isolation": isolation, "read_ms": 3000, "to_end": True}, 45)["read"]
    seen: dict[str, list[int]] = collections.defaultdict(list)
    for r in sorted(res["records"], key=lambda r: (r["p"], r["o"])):
        seen[r["k"]].append(int(r["v"]))
    return dict(seen)


def no_fatal(app: JavaProcess) -> None:
    """Fails at once when the broker refused the protocol (a broker without
    streams groups: UnsupportedVersionException on every replaced thread)."""
    for e in events(app.text(), "error"):
        if "UnsupportedVersionException" in e["error"]:
            raise AssertionError(f"the broker refused: {e['error']}")


def wait_first(app: JavaProcess, timeout: float) -> None:
    """Until the application's first count update."""
    deadline = time.monotonic() + timeout
    while '"ev":"first"' not in app.text():
        no_fatal(app)
        if time.monotonic() > deadline:
            raise AssertionError(f"no record processed in {timeout}s\n{app.tail()}")
        app.wait_for(lambda t: True, 0.2, "the application alive")
        time.sleep(0.2)


def wait_counts(broker, topic, want: collections.Counter, isolation: str, apps, timeout: float):
    """Reads the output until every word's last count is want's; returns it."""
    deadline = time.monotonic() + timeout
    seen: dict[str, list[int]] = {}
    while time.monotonic() < deadline:
        seen = output(broker, topic, isolation)
        if {w: c[-1] for w, c in seen.items()} == dict(want):
            return seen
        for a in apps:
            no_fatal(a)
            a.wait_for(lambda t: True, 0.5, "the application alive")
    raise AssertionError(f"counts not reached in {timeout}s: {({w: c[-1] for w, c in seen.items()}, dict(want))}\n"
                         + "\n".join(a.tail(15) for a in apps))


class Group:
    """The word count's instances, one JavaProcess each (SIGKILLed at the end)."""

    def __init__(self, broker, tmp_path, protocol: str, guarantee: str = "at_least_once", standbys: int = 0,
                 endpoint: bool = True):
        self.broker, self.tmp = broker, tmp_path
        self.app, self.inp, self.out = name("sg-app"), name("sg-in"), name("sg-out")
        self.kw = {"protocol": protocol, "guarantee": guarantee, "standbys": standbys}
        self.endpoint = endpoint
        self.apps: dict[str, JavaProcess] = {}
        self.runs = collections.Counter()
        if protocol == "streams" and standbys:
            # With the streams protocol the client's num.standby.replicas is
            # ignored (Kafka Streams warns so): it is the group's config
            # streams.num.standby.replicas, on the broker.
            tool(CONFIGS, "--bootstrap-server", broker.bootstrap, "--alter", "--entity-type", "groups",
                 "--entity-name", self.app, "--add-config", f"streams.num.standby.replicas={standbys}")

    def start(self, who: str) -> JavaProcess:
        self.runs[who] += 1
        port = 7000 + ord(who[0])
        kw = dict(self.kw, app_server=f"{who}.local:{port}") if self.endpoint else self.kw
        p = streams_groups_app(self.broker.bootstrap, self.tmp / f"{who}-{self.runs[who]}.log", app_id=self.app,
                               input=self.inp, output=self.out, state_dir=self.tmp / f"state-{who}", **kw)
        self.apps[who] = p
        return p

    def kill(self, who: str) -> None:
        self.apps.pop(who).kill()

    def close(self) -> None:
        for p in self.apps.values():
            p.kill()

    def last(self, who: str, ev: str) -> dict | None:
        es = events(self.apps[who].text(), ev)
        return es[-1] if es else None

    def running(self) -> bool:
        return all((self.last(w, "state") or {}).get("state") == "RUNNING" for w in self.apps)

    def assignments(self) -> dict[str, dict]:
        return {w: self.last(w, "assignment") or {"active": [], "standby": []} for w in self.apps}

    def balanced(self, standby: bool = False) -> bool:
        """Every task active on exactly one instance, each instance with one
        at least (and, with standby, a standby on each instance)."""
        if not self.running():
            return False
        a = self.assignments()
        actives = [t for x in a.values() for t in x["active"]]
        if sorted(actives) != sorted(ALL_TASKS) or any(not x["active"] for x in a.values()):
            return False
        return not standby or all(x["standby"] for x in a.values())

    def wait(self, pred, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if pred():
                return
            for p in self.apps.values():
                no_fatal(p)
                if p.proc.poll() is not None:
                    raise DriverError(f"{what}: an instance exited\n{p.tail()}")
            time.sleep(0.25)
        raise AssertionError(f"{what}: not within {timeout}s: {self.assignments()}\n"
                             + "\n".join(f"--- {w}\n{p.tail(12)}" for w, p in self.apps.items()))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@pytest.mark.parametrize("guarantee", ["at_least_once", "exactly_once_v2"])
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_word_count_exact(client, broker, tmp_path, protocol, guarantee):
    """One instance: every word's final count exact; with exactly_once_v2
    (read_committed) every count 1..n exactly once, in order."""
    only_for(client, "java")
    with Group(broker, tmp_path, protocol, guarantee) as g:
        create_topic(broker, g.inp)
        create_topic(broker, g.out)
        text = lines(300, 1)
        want = collections.Counter(w for t in text for w in t.split())
        produce(client, broker, g.inp, text[:150])
        a = g.start("a")
        wait_first(a, 90)
        produce(client, broker, g.inp, text[150:])
        iso = "read_committed" if guarantee == "exactly_once_v2" else "read_uncommitted"
        seen = wait_counts(broker, g.out, want, iso, [a], 90)
        assert events(a.text(), "error") == []
        if guarantee == "exactly_once_v2":
            for w, n in want.items():
                assert seen[w] == list(range(1, n + 1)), f"{w}: {seen[w]}"
        assert g.last("a", "assignment")["active"] == sorted(ALL_TASKS)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_instances_share_tasks_kill_and_restart(client, broker, tmp_path, protocol):
    """Three instances (exactly_once_v2): every task active on exactly one;
    one SIGKILLed: the two left take its tasks (after its session timeout:
    6 s classic, the group's streams.session.timeout.ms with streams, 45 s by
    default); it restarts on its state directory and gets tasks again; the
    counts stay exact (each 1..n once)."""
    only_for(client, "java")
    with Group(broker, tmp_path, protocol, "exactly_once_v2") as g:
        create_topic(broker, g.inp)
        create_topic(broker, g.out)
        text = lines(600, 2)
        want = collections.Counter(w for t in text for w in t.split())
        produce(client, broker, g.inp, text[:200])
        for w in "abc":
            g.start(w)
        g.wait(g.balanced, 120, "three instances sharing the six tasks")
        g.kill("b")
        produce(client, broker, g.inp, text[200:400])
        g.wait(g.balanced, 120, "two instances taking the killed one's tasks")
        g.start("b")
        g.wait(lambda: g.balanced() and g.assignments()["b"]["active"], 120, "the restarted instance given tasks")
        produce(client, broker, g.inp, text[400:])
        seen = wait_counts(broker, g.out, want, "read_committed", list(g.apps.values()), 120)
        for w, n in want.items():
            assert seen[w] == list(range(1, n + 1)), f"{w}: {seen[w]}"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_standby_replicas(client, broker, tmp_path, protocol):
    """num.standby.replicas=1, two instances: each holds a standby, of a
    stateful task (subtopology 1, the count) the other runs active."""
    only_for(client, "java")
    with Group(broker, tmp_path, protocol, standbys=1) as g:
        create_topic(broker, g.inp)
        create_topic(broker, g.out)
        produce(client, broker, g.inp, lines(100, 3))
        g.start("a")
        g.start("b")
        g.wait(lambda: g.balanced(standby=True), 120, "two instances, each with a standby")
        a = g.assignments()
        for me, other in (("a", "b"), ("b", "a")):
            assert set(a[me]["standby"]) <= set(a[other]["active"]), a
            assert all(t.startswith("1_") for t in a[me]["standby"]), a  # only the count has state
        assert sorted(a["a"]["standby"] + a["b"]["standby"]) == ["1_0", "1_1", "1_2"], a


def task_partitions(tasks: list[str], inp: str, app: str) -> set[str]:
    topic = {"0": inp, "1": f"{app}-words-repartition"}
    return {f"{topic[t.split('_')[0]]}-{t.split('_')[1]}" for t in tasks}


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_interactive_query_metadata(client, broker, tmp_path, protocol):
    """application.server on two instances: both report the same
    host -> partitions map (metadataForAllStreamsClients), covering every
    source partition once, matching each instance's own active tasks, and the
    store "counts" on the hosts running its tasks."""
    only_for(client, "java")
    with Group(broker, tmp_path, protocol) as g:
        create_topic(broker, g.inp)
        create_topic(broker, g.out)
        produce(client, broker, g.inp, lines(100, 4))
        g.start("a")
        g.start("b")
        hosts = {"a": "a.local:7097", "b": "b.local:7098"}

        def agreed() -> bool:
            if not g.balanced():
                return False
            metas = [g.last(w, "metadata") for w in "ab"]
            if not all(metas) or metas[0]["hosts"] != metas[1]["hosts"]:
                return False
            a = g.assignments()
            return all(metas[0]["hosts"].get(hosts[w], {}).get("active") ==
                       sorted(task_partitions(a[w]["active"], g.inp, g.app)) for w in "ab")

        g.wait(agreed, 120, "both instances reporting the same, current metadata")
        meta = g.last("a", "metadata")
        assert set(meta["hosts"]) == set(hosts.values()), meta
        every = [tp for h in meta["hosts"].values() for tp in h["active"]]
        assert sorted(every) == sorted(task_partitions(sorted(ALL_TASKS), g.inp, g.app)), meta
        store_hosts = [hosts[w] for w, x in g.assignments().items() if any(t.startswith("1_") for t in x["active"])]
        assert meta["store"] == sorted(store_hosts), meta
        assert g.last("b", "metadata")["store"] == meta["store"]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_missing_source_topic_then_created(client, broker, tmp_path, protocol):
    """The input topic does not exist: nothing is processed (streams: the
    heartbeat answers the status MISSING_SOURCE_TOPICS; both protocols: the
    stream thread fails with MissingSourceTopicException and is replaced);
    once the topic is created and written, the counts arrive, exact.
    Without application.server: Kafka 4.4 answers that heartbeat with
    UNKNOWN_SERVER_ERROR when the member has an endpoint (its
    EndpointToPartitionsManager fails on the unconfigured topology:
    NoSuchElementException), a Kafka bug Skiff need not copy."""
    only_for(client, "java")
    with Group(broker, tmp_path, protocol, endpoint=False) as g:
        create_topic(broker, g.out)
        a = g.start("a")
        g.wait(lambda: "MissingSourceTopicException" in a.text(), 90, "MissingSourceTopicException")
        t = a.text()
        if protocol == "streams":
            # Kafka's StreamsGroupHeartbeatRequestManager logs the statuses as
            # "(code) detail": MISSING_SOURCE_TOPICS is 1.
            m = re.search(r"Membership is in the following statuses: .*\(1\) ([^,\n]*)", t)
            assert m and g.inp in m.group(1), a.tail()
        assert '"ev":"first"' not in t
        create_topic(broker, g.inp)
        text = lines(100, 5)
        produce(client, broker, g.inp, text)
        want = collections.Counter(w for t in text for w in t.split())
        wait_counts(broker, g.out, want, "read_uncommitted", [a], 120)


def groups_tool(broker, *args: str, timeout: float = 90) -> str:
    """kafka-streams-groups' stdout (its client's log lines go to stderr)."""
    cmd = ["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", f"{kafka_jars()}/*",
           "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", GROUPS_TOOL, "--bootstrap-server", broker.bootstrap,
           *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        raise AssertionError(f"kafka-streams-groups {' '.join(args)} exited {p.returncode}\nstdout: "
                             f"{p.stdout[-2000:]}\nstderr: {p.stderr[-2000:]}")
    return p.stdout


def table_rows(out: str, first: str) -> list[list[str]]:
    """The rows of the table whose header starts with `first` (whitespace-separated)."""
    rows, on = [], False
    for ln in out.splitlines():
        cells = ln.split()
        if cells and cells[0] == first:
            on = True
            rows.append(cells)
        elif on and cells and not ln.startswith("\t"):
            rows.append(cells)
        elif on and not cells:
            on = False
    return rows


def test_kafka_streams_groups_tool(client, broker, tmp_path):
    """kafka-streams-groups on a live streams group of two instances:
    --list (and --state), --describe with --state/--members/--offsets (lag 0
    once caught up), Admin.describeStreamsGroups; after both leave: state
    Empty, --reset-offsets --to-earliest (dry run, then execute), --delete."""
    only_for(client, "java")
    with Group(broker, tmp_path, "streams") as g:
        create_topic(broker, g.inp)
        create_topic(broker, g.out)
        text = lines(120, 6)
        produce(client, broker, g.inp, text)
        g.start("a")
        g.start("b")
        g.wait(g.balanced, 120, "two instances sharing the tasks")
        want = collections.Counter(w for t in text for w in t.split())
        wait_counts(broker, g.out, want, "read_uncommitted", list(g.apps.values()), 90)

        assert g.app in groups_tool(broker, "--list").split()
        rows = table_rows(groups_tool(broker, "--list", "--state"), "GROUP")
        assert [g.app, "Stable"] in rows, rows
        rows = table_rows(groups_tool(broker, "--describe", "--group", g.app, "--state"), "GROUP")
        assert rows[1][0] == g.app and "Stable" in rows[1] and rows[1][-1] == "2", rows

        out = groups_tool(broker, "--describe", "--group", g.app, "--members")
        rows = table_rows(out, "GROUP")
        assert len(rows) == 3 and all(r[0] == g.app for r in rows[1:]), out
        # ASSIGNMENTS: "ACTIVE: 0:[0,2]; 1:[1]; " per member: together every task once.
        tasks = [f"{s}_{p}" for ln in out.splitlines() if ln.startswith(g.app)
                 for s, ps in re.findall(r"(\d+):\[([\d,]*)\]", ln.split("ACTIVE:", 1)[1]) for p in ps.split(",") if p]
        assert sorted(tasks) == sorted(ALL_TASKS), out

        # Offsets (--verbose: CURRENT-OFFSET LEADER-EPOCH LOG-END-OFFSET
        # OFFSET-LAG): every input line committed, lag 0 on each partition.
        def offsets_caught_up() -> bool:
            out = groups_tool(broker, "--describe", "--group", g.app, "--offsets", "--verbose")
            rs = [r for r in table_rows(out, "GROUP")[1:] if len(r) == 7 and r[1] == g.inp]
            return (len(rs) == PARTITIONS and all(r[-1] == "0" and r[3] == r[5] for r in rs)
                    and sum(int(r[3]) for r in rs if r[3].isdigit()) == len(text))
        g.wait(offsets_caught_up, 60, "kafka-streams-groups --describe --offsets: the input committed, lag 0")

        d = streams_describe(broker.bootstrap, g.app)
        assert d.get("state") == "Stable", d  # GroupState.toString()
        assert sorted(t for m in d["members"] for t in m["active"]) == sorted(ALL_TASKS), d
        assert {m["endpoint"] for m in d["members"]} == {"a.local:7097", "b.local:7098"}, d
        assert sorted(d["subtopologies"]) == ["0", "1"], d

        # Both leave (SIGTERM: close, leaving the group).
        for w in "ab":
            g.apps[w].proc.terminate()
        for w in "ab":
            g.apps[w].wait_for(lambda t: '"ev":"closed"' in t, 40, "closed")
        rows = table_rows(groups_tool(broker, "--describe", "--group", g.app, "--state"), "GROUP")
        assert "Empty" in rows[1] and rows[1][-1] == "0", rows

        out = groups_tool(broker, "--reset-offsets", "--group", g.app, "--input-topic", g.inp, "--to-earliest",
                          "--dry-run")
        rows = [r for r in table_rows(out, "GROUP")[1:] if len(r) >= 4 and r[1] == g.inp]
        assert len(rows) == PARTITIONS and all(r[-1] == "0" for r in rows), out
        out = groups_tool(broker, "--reset-offsets", "--group", g.app, "--input-topic", g.inp, "--to-earliest",
                          "--execute")
        rows = [r for r in table_rows(out, "GROUP")[1:] if len(r) >= 4 and r[1] == g.inp]
        assert len(rows) == PARTITIONS and all(r[-1] == "0" for r in rows), out

        out = groups_tool(broker, "--delete", "--group", g.app)
        assert f"Deletion of requested streams groups ('{g.app}') was successful." in out, out
        assert g.app not in groups_tool(broker, "--list").split()


@pytest.mark.timeout(420)
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_broker_kill9_mid_stream_exactly_once(client, own_broker, tmp_path, protocol):
    """The broker SIGKILLed while an exactly_once_v2 word count is mid-stream
    (1 ms of work per count update, so commits are in flight), restarted on
    the same data: the application carries on by itself and, read_committed,
    every word's counts are exactly 1..n once each, in order (an update lost
    or applied twice would show). The group (its members, epochs and tasks)
    and the transactions come back from __consumer_offsets and
    __transaction_state."""
    only_for(client, "java")
    b = own_broker
    with Group(b, tmp_path, protocol, "exactly_once_v2") as g:
        g.kw["sleep_ms"] = 1
        create_topic(b, g.inp)
        create_topic(b, g.out)
        text = lines(1500, 7)
        want = collections.Counter(w for t in text for w in t.split())
        produce(client, b, g.inp, text[:1000])
        a = g.start("a")
        wait_first(a, 90)
        a.wait_for(lambda t: '"updates":800' in t, 120, "800 count updates before the kill")
        if hasattr(b, "overrides"):  # the same port after the restart, as a real broker's
            b.overrides["listeners"] = f"PLAINTEXT://{b.bootstrap}"
        b.kill9()
        time.sleep(1)
        b.restart()
        produce(client, b, g.inp, text[1000:])
        seen = wait_counts(b, g.out, want, "read_committed", [a], 240)
        for w, n in want.items():
            assert seen[w] == list(range(1, n + 1)), f"{w}: {seen[w][:20]}..."
