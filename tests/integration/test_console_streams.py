"""A streams group (KIP-1071) in the web console, in a real browser against
the real binary (Debian's chromium driven by Playwright, as test_console.py).

The group is driven over the wire as a Kafka Streams member drives it: a
small raw client below sends StreamsGroupHeartbeat (API 88) with a word
count's topology (subtopology 0 reads the input topic and writes a
repartition topic, subtopology 1 reads it and keeps a store with its
changelog), keeps heartbeating with the tasks it was given, commits an
offset with its member epoch (OffsetCommit v9) and, once it has tasks,
sends the application's topology description (API 93, KIP-1331). The page
lists the group as a streams group with its member and lag; its view shows
the epochs, the member with its process, endpoint and tasks, the
subtopologies' topics, the note that the description is missing before
API 93, and the graph's nodes and arrows after it; the reset is disabled
with the kafka-streams-groups hint while the member runs.

Every wait is bounded. Screenshots go to $SKIFF_TEST_ARTIFACTS (a directory
per test) when set, else under the test's pytest tmp path. Runs once, in
the confluent_kafka run."""
from __future__ import annotations

import socket
import struct
import threading
import time
import uuid

import pytest

from harness.wire import api_versions
from test_admin import only_for
from test_console import api, artifacts, browser, open_page, produce_bulk, start_broker  # noqa: F401 (fixtures)

# ---- a tiny flexible-versions Kafka codec, just what these requests need ----


def uvarint(n: int) -> bytes:
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def cstr(s: str | None) -> bytes:
    if s is None:
        return uvarint(0)
    raw = s.encode()
    return uvarint(len(raw) + 1) + raw


def carr(items, enc) -> bytes:
    if items is None:
        return uvarint(0)
    return uvarint(len(items) + 1) + b"".join(enc(x) for x in items)


def i8(n): return struct.pack(">b", n)
def i16(n): return struct.pack(">h", n)
def i32(n): return struct.pack(">i", n)
def i64(n): return struct.pack(">q", n)


TAGS = uvarint(0)


def nullable(value, enc) -> bytes:
    return i8(-1) if value is None else i8(1) + enc(value)


class Reader:
    def __init__(self, data: bytes):
        self.d, self.p = data, 0

    def take(self, fmt: str):
        (v,) = struct.unpack_from(fmt, self.d, self.p)
        self.p += struct.calcsize(fmt)
        return v

    def uvarint(self) -> int:
        shift = n = 0
        while True:
            b = self.d[self.p]
            self.p += 1
            n |= (b & 0x7F) << shift
            if not b & 0x80:
                return n
            shift += 7

    def cstr(self) -> str | None:
        n = self.uvarint()
        if n == 0:
            return None
        s = self.d[self.p:self.p + n - 1].decode()
        self.p += n - 1
        return s

    def carr(self, dec) -> list | None:
        n = self.uvarint()
        return None if n == 0 else [dec(self) for _ in range(n - 1)]

    def skip_tags(self) -> None:
        for _ in range(self.uvarint()):
            self.uvarint()
            self.p += self.uvarint()


class Connection:
    """One socket; request header v2, response header v1 (flexible APIs)."""

    def __init__(self, bootstrap: str):
        host, port = bootstrap.rsplit(":", 1)
        self.s = socket.create_connection((host, int(port)), timeout=10)
        self.corr = 0

    def call(self, api_key: int, version: int, body: bytes) -> Reader:
        self.corr += 1
        client = b"console-streams-test"
        frame = i16(api_key) + i16(version) + i32(self.corr) + i16(len(client)) + client + TAGS + body
        self.s.sendall(i32(len(frame)) + frame)
        (size,) = struct.unpack(">i", self._exact(4))
        r = Reader(self._exact(size))
        assert r.take(">i") == self.corr
        r.skip_tags()
        return r

    def _exact(self, n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            chunk = self.s.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("broker closed the connection")
            buf += chunk
        return buf

    def close(self) -> None:
        self.s.close()


# ---- the application --------------------------------------------------------


def topic_info(name: str) -> bytes:
    return cstr(name) + i32(0) + i16(0) + carr([], None) + TAGS  # 0: derived by the broker


def task_ids(t: tuple[str, list[int]]) -> bytes:
    return cstr(t[0]) + carr(t[1], i32) + TAGS


def word_count_topology(inp: str, app: str) -> bytes:
    def sub(s: dict) -> bytes:
        return (cstr(s["id"]) + carr(s.get("sources", []), cstr) + carr([], cstr) +
                carr(s.get("changelogs", []), topic_info) + carr(s.get("sinks", []), cstr) +
                carr(s.get("rsources", []), topic_info) + carr([], None) + TAGS)
    subs = [{"id": "0", "sources": [inp], "sinks": [f"{app}-repartition"]},
            {"id": "1", "rsources": [f"{app}-repartition"], "changelogs": [f"{app}-counts-changelog"]}]
    return i32(1) + carr(subs, sub) + TAGS


def node(name: str, kind: int, sources=(), sink=None, stores=(), successors=()) -> bytes:
    return (cstr(name) + i8(kind) + carr(list(sources), cstr) + cstr(sink) + carr(list(stores), cstr) +
            carr(list(successors), cstr) + TAGS)


def word_count_description(inp: str, app: str) -> bytes:
    """The nodes Kafka Streams names for groupBy(...).count(): a source, a
    key selector, a repartition sink; a repartition source and the count."""
    s0 = cstr("0") + carr([
        node("KSTREAM-SOURCE-0000000000", 1, sources=[inp], successors=["KSTREAM-FLATMAPVALUES-0000000001"]),
        node("KSTREAM-FLATMAPVALUES-0000000001", 2, successors=["KSTREAM-KEY-SELECT-0000000002"]),
        node("KSTREAM-KEY-SELECT-0000000002", 2, successors=["counts-repartition-filter"]),
        node("counts-repartition-filter", 2, successors=["counts-repartition-sink"]),
        node("counts-repartition-sink", 3, sink=f"{app}-repartition"),
    ], lambda b: b) + TAGS
    s1 = cstr("1") + carr([
        node("counts-repartition-source", 1, sources=[f"{app}-repartition"],
             successors=["KSTREAM-AGGREGATE-0000000003"]),
        node("KSTREAM-AGGREGATE-0000000003", 2, stores=["counts"]),
    ], lambda b: b) + TAGS
    return carr([s0, s1], lambda b: b) + carr([], None) + TAGS


class StreamsMember(threading.Thread):
    """One member of streams group `group`: heartbeats every 0.5 s with the
    tasks it owns, until stop(); `active` is what it was given."""

    def __init__(self, bootstrap: str, group: str, inp: str):
        super().__init__(daemon=True)
        self.conn = Connection(bootstrap)
        self.group, self.inp = group, inp
        self.member_id = str(uuid.uuid4())
        self.epoch = 0
        self.active: list[tuple[str, list[int]]] = []
        self.errors: list[str] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()

    def heartbeat(self, leave: bool = False) -> None:
        epoch = -1 if leave else self.epoch
        body = (cstr(self.group) + cstr(self.member_id) + i32(epoch) + i32(0) + cstr(None) + cstr(None) +
                i32(30000 if self.epoch == 0 else -1) +
                (nullable(word_count_topology(self.inp, self.group), lambda b: b) if self.epoch == 0 else i8(-1)) +
                carr(self.active, task_ids) + carr([], task_ids) + carr([], task_ids) +
                cstr("process-1") + nullable(cstr("app.example") + struct.pack(">H", 8080) + TAGS, lambda b: b) +
                carr([], None) + carr(None, None) + carr(None, None) + i8(0) + TAGS)
        with self.lock:
            r = self.conn.call(88, 0, body)
        r.take(">i")
        err = r.take(">h")
        msg = r.cstr()
        if err:
            raise AssertionError(f"StreamsGroupHeartbeat: error {err} {msg}")
        r.cstr()  # member id
        self.epoch = r.take(">i")
        r.take(">i"), r.take(">i"), r.take(">i")  # heartbeat interval, recovery lag, task offset interval
        r.carr(lambda x: (x.take(">b"), x.cstr(), x.skip_tags()))  # statuses
        active = r.carr(lambda x: (x.cstr(), x.carr(lambda y: y.take(">i")), x.skip_tags())[:2])
        if active is not None:
            self.active = sorted(active)

    def describe_topology(self) -> None:
        body = (cstr(self.group) + cstr(self.member_id) + i32(1) +
                word_count_description(self.inp, self.group) + TAGS)
        with self.lock:
            r = self.conn.call(93, 0, body)
        r.take(">i")
        err = r.take(">h")
        assert err == 0, f"StreamsGroupTopologyDescriptionUpdate: error {err} {r.cstr()}"

    def commit(self, topic: str, partition: int, offset: int) -> None:
        part = i32(partition) + i64(offset) + i32(-1) + cstr(None) + TAGS
        body = (cstr(self.group) + i32(self.epoch) + cstr(self.member_id) + cstr(None) +
                carr([cstr(topic) + carr([part], lambda b: b) + TAGS], lambda b: b) + TAGS)
        with self.lock:
            r = self.conn.call(8, 9, body)
        r.take(">i")
        topics = r.carr(lambda x: (x.cstr(), x.carr(lambda y: (y.take(">i"), y.take(">h"), y.skip_tags())),
                                   x.skip_tags()))
        assert topics[0][1][0][1] == 0, f"OffsetCommit: {topics}"

    def run(self) -> None:
        while not self.stopping.wait(0.5):
            try:
                self.heartbeat()
            except Exception as e:  # reported by the test
                self.errors.append(repr(e))
                return

    def stop(self) -> None:
        self.stopping.set()
        self.join(5)
        try:
            self.heartbeat(leave=True)
        finally:
            self.conn.close()


def test_console_streams_group(client, tmp_path, browser, artifacts):  # noqa: F811 (fixtures)
    only_for(client, "confluent_kafka")
    from playwright.sync_api import expect
    b = start_broker(tmp_path, "streams")
    port = b.http_port()
    app = f"wordcount-{uuid.uuid4().hex[:6]}"
    inp = f"{app}-input"
    try:
        if not {88, 89, 93} <= set(api_versions(b.bootstrap)):
            pytest.skip("this broker does not serve StreamsGroupHeartbeat, StreamsGroupDescribe and "
                        "StreamsGroupTopologyDescriptionUpdate (APIs 88, 89, 93)")
        assert api(port, "POST", "/api/topics/create", {"name": inp, "partitions": 2})[0] == 201
        produce_bulk(b.bootstrap, inp, 10)
        m = StreamsMember(b.bootstrap, app, inp)
        # Join; the broker creates the internal topics; the tasks follow
        # (after group.streams.initial.rebalance.delay.ms).
        deadline = time.monotonic() + 30
        while not m.active:
            m.heartbeat()
            assert time.monotonic() < deadline, "no tasks within 30 s"
            time.sleep(0.3)
        m.commit(inp, 0, 1)
        m.start()
        status, g = api(port, "GET", f"/api/group?id={app}")
        assert status == 200, g
        assert g["group_type"] == "streams" and g["topology_description_status"] == "NOT_STORED", g
        tasks = [f"{s}_{p}" for s, ps in m.active for p in ps]
        assert sorted(g["members"][0]["active_tasks"]) == sorted(tasks), g
        lag = sum(o["lag"] for o in g["offsets"])

        page, errors = open_page(browser, port)
        page.goto(f"http://127.0.0.1:{port}/#/groups")
        row = page.locator(f'[data-testid=group-row][data-group="{app}"]')
        expect(row).to_have_count(1)
        expect(row).to_contain_text("streams")
        expect(row.get_by_test_id("group-lag")).to_have_text(str(lag))
        page.screenshot(path=artifacts / "01-groups-streams.png", full_page=True)

        page.goto(f"http://127.0.0.1:{port}/#/group/{app}")
        expect(page.get_by_test_id("group-state")).to_have_text("Stable")
        expect(page.get_by_test_id("group-epoch")).to_have_text(str(g["group_epoch"]))
        member = page.get_by_test_id("member-row")
        expect(member).to_have_count(1)
        expect(member).to_contain_text("process-1")
        expect(member).to_contain_text("app.example:8080")
        expect(member.get_by_test_id("member-active-tasks")).to_contain_text("0_0")
        expect(member.get_by_test_id("member-active-tasks")).to_contain_text("1_1")
        sub0 = page.locator('[data-testid=subtopology-row][data-subtopology="0"]')
        expect(sub0.get_by_test_id("subtopology-sources")).to_have_text(inp)
        sub1 = page.locator('[data-testid=subtopology-row][data-subtopology="1"]')
        expect(sub1.get_by_test_id("subtopology-changelogs")).to_have_text(f"{app}-counts-changelog")
        expect(page.get_by_test_id("topology-missing")).to_contain_text("has not sent")
        expect(page.locator(f'[data-testid=offset-row][data-topic="{inp}"][data-partition="0"]')
               .get_by_test_id("offset-committed")).to_have_text("1")
        expect(page.get_by_test_id("reset-submit")).to_be_disabled()
        expect(page.get_by_test_id("reset-hint")).to_contain_text("kafka-streams-groups --reset-offsets")
        page.screenshot(path=artifacts / "02-streams-group-no-description.png", full_page=True)

        m.describe_topology()
        graph = page.get_by_test_id("topology-graph")
        expect(graph).to_be_visible(timeout=10_000)
        expect(page.get_by_test_id("graph-subtopology")).to_have_count(2)
        expect(page.get_by_test_id("graph-node")).to_have_count(7)
        src = page.locator('[data-testid=graph-node][data-name="KSTREAM-SOURCE-0000000000"]')
        expect(src).to_have_attribute("data-type", "SOURCE")
        expect(src).to_contain_text(inp)
        agg = page.locator('[data-testid=graph-node][data-name="KSTREAM-AGGREGATE-0000000003"]')
        expect(agg).to_contain_text("counts")
        expect(page.locator('[data-testid=graph-node][data-name="counts-repartition-sink"]')).to_have_attribute(
            "data-type", "SINK")
        expect(page.get_by_test_id("graph-edge")).to_have_count(5)
        expect(page.locator('[data-testid=graph-edge][data-from="KSTREAM-SOURCE-0000000000"]'
                            '[data-to="KSTREAM-FLATMAPVALUES-0000000001"]')).to_have_count(1)
        # Left to right: a successor is drawn right of its predecessor.
        boxes = [page.locator(f'[data-testid=graph-node][data-name="{n}"] rect').bounding_box()
                 for n in ("KSTREAM-SOURCE-0000000000", "KSTREAM-FLATMAPVALUES-0000000001",
                           "counts-repartition-sink")]
        assert boxes[0]["x"] < boxes[1]["x"] < boxes[2]["x"], boxes
        page.screenshot(path=artifacts / "03-streams-group-graph.png", full_page=True)
        assert m.errors == [], m.errors
        assert errors == [], errors
        m.stop()
    finally:
        b.stop()
