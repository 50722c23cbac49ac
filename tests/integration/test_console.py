"""The web console (docs/console-api.md) in a real browser against the real
binary: Debian's chromium driven by Playwright (sync API, its own browser
download never used). In the page: create a topic, produce a message, find it
by key; a real consumer group (confluent-kafka) commits offsets behind the
end and its lag, as the page shows it, falls while it runs; once it stopped,
the page resets its offsets to earliest and shows the lag back at the topic's
message count. A share group's view shows its member, assignment, start
offset, records in flight and lag while a ShareConsumer holds records. With
the Schema Registry on, the Schemas page lists subjects, shows a subject's
versions and their diff, and the message browser decodes Avro, Protobuf
and JSON Schema values. A read-only console (http.console.write.enabled=false) shows
no write control, and a POST gets 403.

Every wait is bounded. Screenshots of each step go to $SKIFF_TEST_ARTIFACTS
(a directory per test) when set, else under the test's pytest tmp path; the
directory is printed in the run's output. Runs once, in the confluent_kafka
run (scripts/install-test-clients.sh confluent_kafka installs chromium and
playwright)."""
from __future__ import annotations

import http.client
import json
import os
import re
import threading
import time
import uuid
from pathlib import Path

import pytest

from conftest import BROKER_OVERRIDES, skiff_binary
from harness.broker import SkiffBroker
from test_admin import only_for

CHROMIUM = "/usr/bin/chromium"
UI_TIMEOUT_MS = 15_000  # any one page action or expectation
# Every element that changes the broker (apps/console/assets/app.js).
WRITE_CONTROLS = ["create-topic-form", "create-topic-submit", "delete-topic", "produce-form", "produce-submit",
                  "config-set-form", "config-save", "config-delete", "reset-form", "reset-submit", "delete-group"]


def api(port: int, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, json.dumps(body) if body is not None else None, headers)
        r = conn.getresponse()
        text = r.read().decode()
        return r.status, json.loads(text) if text else {}
    finally:
        conn.close()


@pytest.fixture
def artifacts(request, tmp_path) -> Path:
    base = os.environ.get("SKIFF_TEST_ARTIFACTS")
    d = (Path(base) / request.node.name) if base else tmp_path / "screenshots"
    d.mkdir(parents=True, exist_ok=True)
    yield d
    # Past pytest's output capture, so that it shows for a passing test too.
    with request.config.pluginmanager.getplugin("capturemanager").global_and_fixture_disabled():
        print(f"\nconsole screenshots of {request.node.name}: {d}", flush=True)


@pytest.fixture
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("playwright is not in the venv: run scripts/install-test-clients.sh confluent_kafka")
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"no {CHROMIUM}: run scripts/install-test-clients.sh confluent_kafka")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, timeout=60_000)
        try:
            yield b
        finally:
            b.close()


def start_broker(tmp_path: Path, name: str, **overrides) -> SkiffBroker:
    b = SkiffBroker(skiff_binary(), tmp_path / name / "data", tmp_path / name,
                    {**BROKER_OVERRIDES, **overrides})
    b.start()
    assert b.http_port(), b.log_tail()
    return b


def open_page(browser, port: int):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(UI_TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"http://127.0.0.1:{port}/#/overview")
    page.wait_for_selector("body[data-ready=true]")
    return page, errors


def produce_bulk(bootstrap: str, topic: str, n: int) -> None:
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "message.timeout.ms": 30000})
    for i in range(n):
        while True:
            try:
                p.produce(topic, key=f"bulk-{i}".encode(), value=json.dumps({"i": i}).encode())
                break
            except BufferError:
                p.poll(0.05)
    assert p.flush(30) == 0, "bulk records not delivered within 30 s"


def commit_offsets(bootstrap: str, group: str, offsets: list[tuple[str, int, int]]) -> None:
    """Commits (topic, partition, offset)s for `group` without joining it:
    the group exists, Empty, with those offsets."""
    from confluent_kafka import Consumer, TopicPartition
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    try:
        c.commit(offsets=[TopicPartition(t, p, o) for t, p, o in offsets], asynchronous=False)
    finally:
        c.close()


class SlowConsumer(threading.Thread):
    """A consumer group member that reads `total` records in steps of
    `step`, committing synchronously after each and pausing `pause` s, so
    its committed offsets stay behind the end for a while."""

    def __init__(self, bootstrap: str, topic: str, group: str, total: int, step: int, pause: float):
        super().__init__(daemon=True)
        self.conf = {"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False,
                     "auto.offset.reset": "earliest", "session.timeout.ms": 10000,
                     "fetch.wait.max.ms": 100, "max.poll.interval.ms": 60000}
        self.topic, self.total, self.step, self.pause = topic, total, step, pause
        self.consumed = 0
        self.error: BaseException | None = None
        self.stop_event = threading.Event()

    def run(self) -> None:
        from confluent_kafka import Consumer
        c = Consumer(self.conf)
        try:
            c.subscribe([self.topic])
            deadline = time.monotonic() + 90
            while self.consumed < self.total and not self.stop_event.is_set():
                assert time.monotonic() < deadline, f"consumed only {self.consumed} of {self.total} in 90 s"
                msgs = c.consume(num_messages=min(self.step, self.total - self.consumed), timeout=1.0)
                for m in msgs:
                    assert not m.error(), m.error()
                if msgs:
                    self.consumed += len(msgs)
                    c.commit(asynchronous=False)
                    self.stop_event.wait(self.pause)
        except BaseException as e:  # noqa: BLE001 - reported by the test thread
            self.error = e
        finally:
            c.close()  # leaves the group: it becomes Empty


def visible_write_controls(page) -> list[str]:
    return [t for t in WRITE_CONTROLS if page.locator(f'[data-testid="{t}"]').count()]


def test_console_topic_messages_and_group_lag(client, tmp_path, browser, artifacts):
    only_for(client, "confluent_kafka")
    from playwright.sync_api import expect
    b = start_broker(tmp_path, "rw")
    port = b.http_port()
    topic = f"console-{uuid.uuid4().hex[:8]}"
    group = f"console-group-{uuid.uuid4().hex[:8]}"
    bulk = 3000
    try:
        page, errors = open_page(browser, port)
        expect(page.get_by_test_id("mode")).to_have_text("read-write")
        expect(page.get_by_test_id("broker-version")).not_to_be_empty()
        page.screenshot(path=artifacts / "01-overview.png", full_page=True)

        # Create the topic in the page; a second create shows the API's error.
        page.get_by_test_id("nav-topics").click()
        page.get_by_test_id("create-topic-name").fill(topic)
        page.get_by_test_id("create-topic-partitions").fill("2")
        page.get_by_test_id("create-topic-configs").fill("retention.ms=86400000")
        page.get_by_test_id("create-topic-submit").click()
        expect(page.locator(f'[data-testid=topic-row][data-topic="{topic}"]')).to_have_count(1)
        page.get_by_test_id("create-topic-name").fill(topic)
        page.get_by_test_id("create-topic-submit").click()
        expect(page.get_by_test_id("error")).to_contain_text("TOPIC_ALREADY_EXISTS")
        page.screenshot(path=artifacts / "02-topics.png", full_page=True)
        status, t = api(port, "GET", f"/api/topic?name={topic}")
        assert status == 200 and len(t["partitions"]) == 2, t
        assert {"name": "retention.ms", "value": "86400000"}.items() <= \
            next(c for c in t["configs"] if c["name"] == "retention.ms").items(), t["configs"]

        # Edit the topic's configs in the page: set one, then back to its default.
        page.get_by_test_id("topic-link").filter(has_text=topic).click()
        expect(page.get_by_test_id("partition-row")).to_have_count(2)
        page.get_by_test_id("config-new-name").fill("cleanup.policy")
        page.get_by_test_id("config-new-value").fill("compact")
        page.get_by_test_id("config-set-submit").click()
        policy = page.locator('[data-testid=topic-config-row][data-name="cleanup.policy"]')
        expect(policy.get_by_test_id("config-source")).to_have_text("DYNAMIC_TOPIC_CONFIG")
        expect(policy.get_by_test_id("config-value-input")).to_have_value("compact")
        page.screenshot(path=artifacts / "02b-topic-configs.png", full_page=True)
        policy.get_by_test_id("config-delete").click()
        expect(policy.get_by_test_id("config-source")).not_to_have_text("DYNAMIC_TOPIC_CONFIG")
        expect(policy.get_by_test_id("config-value-input")).to_have_value("delete")

        # Produce a message by hand, then find it by key among the bulk.
        page.goto(f"http://127.0.0.1:{port}/#/messages/{topic}")
        page.get_by_test_id("produce-key").fill("needle")
        page.get_by_test_id("produce-value").fill('{"found": true}')
        page.get_by_test_id("produce-headers").fill("origin: console")
        page.get_by_test_id("produce-submit").click()
        expect(page.get_by_test_id("produce-result")).to_contain_text("produced to partition")
        produce_bulk(b.bootstrap, topic, bulk)
        total = bulk + 1
        page.get_by_test_id("msg-key").fill("needle")
        page.get_by_test_id("msg-load").click()
        rows = page.get_by_test_id("msg-row")
        expect(rows).to_have_count(1)
        expect(rows.get_by_test_id("msg-value-cell")).to_contain_text('{"found": true}')
        expect(rows.get_by_test_id("msg-headers-cell")).to_contain_text("console")
        page.get_by_test_id("msg-format-json").click()
        expect(rows.get_by_test_id("msg-value-cell")).to_contain_text('"found": true')
        page.get_by_test_id("msg-format-hex").click()
        expect(rows.get_by_test_id("msg-key-cell")).to_have_text("6e 65 65 64 6c 65")  # "needle"
        page.screenshot(path=artifacts / "03-messages-by-key.png", full_page=True)

        # Browse one partition: oldest first from the produced offset, then
        # oldest first from a timestamp (0: the start), newest first from the end.
        m = re.search(r"partition (\d+) at offset (\d+)", page.get_by_test_id("produce-result").inner_text())
        assert m, page.get_by_test_id("produce-result").inner_text()
        page.get_by_test_id("msg-format-text").click()
        page.get_by_test_id("msg-key").fill("")
        page.get_by_test_id("msg-partition").select_option(m.group(1))
        page.get_by_test_id("msg-order").select_option("oldest")
        page.get_by_test_id("msg-from").select_option("offset")
        page.get_by_test_id("msg-from-value").fill(m.group(2))
        page.get_by_test_id("msg-limit").fill("3")
        page.get_by_test_id("msg-load").click()
        expect(rows).to_have_count(3)
        expect(rows.first.get_by_test_id("msg-offset")).to_have_text(m.group(2))
        expect(rows.first.get_by_test_id("msg-key-cell")).to_have_text("needle")
        page.get_by_test_id("msg-from").select_option("timestamp")
        page.get_by_test_id("msg-from-value").fill("0")
        page.get_by_test_id("msg-load").click()
        expect(rows.first.get_by_test_id("msg-offset")).to_have_text("0")
        page.get_by_test_id("msg-order").select_option("newest")
        page.get_by_test_id("msg-from").select_option("")
        page.get_by_test_id("msg-load").click()
        expect(rows).to_have_count(3)
        end = next(p["high_watermark"] for p in api(port, "GET", f"/api/topic?name={topic}")[1]["partitions"]
                   if p["partition"] == int(m.group(1)))
        expect(rows.first.get_by_test_id("msg-offset")).to_have_text(str(end - 1))

        # A real consumer group: the lag the page shows falls while it runs.
        # It starts from offsets 0 committed on every partition: the lag
        # counts committed partitions only, so a partition's first commit
        # would otherwise make the total go up.
        commit_offsets(b.bootstrap, group, [(topic, 0, 0), (topic, 1, 0)])
        consumer = SlowConsumer(b.bootstrap, topic, group, total, step=200, pause=1.0)
        consumer.start()
        try:
            page.goto(f"http://127.0.0.1:{port}/#/groups")
            row = page.locator(f'[data-testid=group-row][data-group="{group}"]')
            seen: list[int] = []
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline and not (seen and seen[-1] == 0):
                text = row.get_by_test_id("group-lag").text_content(timeout=UI_TIMEOUT_MS) \
                    if row.count() else "—"
                if text and text != "—":
                    lag = int(text.replace(",", ""))
                    if not seen or seen[-1] != lag:
                        seen.append(lag)
                        if len(seen) == 2:
                            page.screenshot(path=artifacts / "04-groups-lag-falling.png", full_page=True)
                time.sleep(0.2)
            assert consumer.error is None, consumer.error
            assert seen and seen[-1] == 0, f"lag seen in the page: {seen}"
            assert len(seen) >= 3, f"expected the lag to fall in steps, saw {seen}"
            assert seen == sorted(seen, reverse=True), f"lag went up: {seen}"
            assert seen[0] <= total, seen
        finally:
            consumer.stop_event.set()
            consumer.join(30)
        assert not consumer.is_alive(), "consumer did not stop within 30 s"

        # Stopped: the group is Empty; reset it to earliest in the page.
        page.goto(f"http://127.0.0.1:{port}/#/group/{group}")
        expect(page.get_by_test_id("group-state")).to_have_text("Empty", timeout=30_000)
        expect(page.get_by_test_id("group-total-lag")).to_have_text("0")
        page.get_by_test_id("reset-to").select_option("earliest")
        expect(page.get_by_test_id("reset-submit")).to_be_enabled()
        page.get_by_test_id("reset-submit").click()
        expect(page.get_by_test_id("reset-result")).to_contain_text("reset")
        expect(page.get_by_test_id("group-total-lag")).to_have_text(f"{total:,}")
        page.screenshot(path=artifacts / "05-group-reset.png", full_page=True)
        status, g = api(port, "GET", f"/api/group?id={group}")
        assert status == 200 and sum(o["lag"] for o in g["offsets"]) == total, g
        assert all(o["committed"] == 0 for o in g["offsets"]), g

        # Delete the group, then the topic, each through its confirmation step.
        page.get_by_test_id("delete-group").click()
        page.get_by_test_id("delete-group-confirm-yes").click()
        expect(page.get_by_test_id("nav-groups")).to_have_class("active")
        expect(page.locator(f'[data-testid=group-row][data-group="{group}"]')).to_have_count(0)
        page.get_by_test_id("nav-topics").click()
        row = page.locator(f'[data-testid=topic-row][data-topic="{topic}"]')
        row.get_by_test_id("delete-topic").click()
        page.get_by_test_id("delete-topic-confirm-no").click()
        expect(row).to_have_count(1)
        row.get_by_test_id("delete-topic").click()
        page.get_by_test_id("delete-topic-confirm-yes").click()
        expect(row).to_have_count(0)
        assert api(port, "GET", f"/api/topic?name={topic}")[0] == 404

        # The live charts, after that traffic: two /api/stats polls (2 s apart) drawn.
        page.get_by_test_id("nav-overview").click()
        expect(page.get_by_test_id("chart-bytes-now")).to_contain_text("/s", timeout=10_000)
        page.screenshot(path=artifacts / "06-overview-live.png", full_page=False)
        assert errors == [], errors
    finally:
        b.stop()


def test_console_share_group(client, tmp_path, browser, artifacts):
    """A share group (KIP-932) in the groups view: one confluent-kafka
    ShareConsumer ACCEPTs 5 records and leaves, a second holds the next 10
    without acknowledging them; the page lists the group as a share group
    with its lag, and its view shows the member, its assignment, the share
    partition's start offset, the records in flight and the lag, as the API
    reports them (checked for consistency first)."""
    only_for(client, "confluent_kafka")
    from playwright.sync_api import expect
    from harness.share import SHARE_OVERRIDES, Consumer
    b = start_broker(tmp_path, "share", **SHARE_OVERRIDES)
    port = b.http_port()
    topic = f"console-share-{uuid.uuid4().hex[:8]}"
    group = f"console-sg-{uuid.uuid4().hex[:8]}"
    n = 10
    try:
        assert api(port, "POST", "/api/topics/create", {"name": topic, "partitions": 1})[0] == 201
        # Kafka's default share.auto.offset.reset is latest: a first member
        # loads the share partition (start offset 0, in_flight known), then
        # ACCEPTs 5 records, which moves the start offset, and leaves.
        with Consumer("confluent_kafka", b.bootstrap, group, topic, tmp_path / "a.jsonl", ack="accept",
                      max_records=5, timeout=60) as a:
            deadline = time.monotonic() + 30
            while True:
                status, g = api(port, "GET", f"/api/group?id={group}")
                if status == 200 and any(o.get("in_flight") is not None for o in g.get("offsets", [])):
                    break
                assert time.monotonic() < deadline, f"share partition not loaded within 30 s: {status} {g}\n{a.tail()}"
                time.sleep(0.2)
            produce_bulk(b.bootstrap, topic, 5)
            assert a.wait_exit(60) == 0, a.tail()
        produce_bulk(b.bootstrap, topic, n)
        # A second member holds what it gets without acknowledging: the
        # broker's acquisition covers the batch, all n in flight.
        with Consumer("confluent_kafka", b.bootstrap, group, topic, tmp_path / "b.jsonl", ack="none",
                      hold_ms=60_000, timeout=90) as c:
            c.wait_for(lambda evs: any(e.get("ev") == "holding" for e in evs), 30, "records held")
            # The API's view while B holds (what A's close committed is the
            # client's business): a start offset, B's n records in flight and
            # in the lag at least.
            status, g = api(port, "GET", f"/api/group?id={group}")
            assert status == 200 and len(g["offsets"]) == 1, g
            o = g["offsets"][0]
            assert o["start_offset"] is not None and 0 <= o["start_offset"] <= 5, g
            assert o["in_flight"] is not None and o["in_flight"] >= n, g
            assert o["lag"] is not None and n <= o["lag"] <= 5 + n - o["start_offset"], g
            page, errors = open_page(browser, port)
            page.goto(f"http://127.0.0.1:{port}/#/groups")
            row = page.locator(f'[data-testid=group-row][data-group="{group}"]')
            expect(row).to_have_count(1)
            expect(row).to_contain_text("share")
            expect(row.get_by_test_id("group-lag")).to_have_text(str(o["lag"]), timeout=10_000)
            page.screenshot(path=artifacts / "01-groups-share.png", full_page=True)

            page.goto(f"http://127.0.0.1:{port}/#/group/{group}")
            expect(page.get_by_test_id("group-state")).to_have_text("Stable")
            expect(page.get_by_test_id("member-row")).to_have_count(1)
            expect(page.get_by_test_id("member-row")).to_contain_text(f"{topic}-0")
            srow = page.locator(f'[data-testid=share-offset-row][data-topic="{topic}"][data-partition="0"]')
            expect(srow.get_by_test_id("share-start-offset")).to_have_text(str(o["start_offset"]))
            expect(srow.get_by_test_id("share-in-flight")).to_have_text(str(o["in_flight"]))
            expect(srow.get_by_test_id("share-lag")).to_have_text(str(o["lag"]))
            expect(page.get_by_test_id("group-total-lag")).to_have_text(str(o["lag"]))
            expect(page.get_by_test_id("reset-hint")).to_contain_text("share group")
            page.screenshot(path=artifacts / "02-share-group.png", full_page=True)
            assert errors == [], errors
    finally:
        b.stop()


def produce_framed(bootstrap: str, topic: str, values: list[bytes]) -> None:
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": bootstrap})
    for v in values:
        p.produce(topic, value=v)
    assert p.flush(30) == 0, f"records to {topic} not delivered within 30 s"


READING_V1 = {"type": "record", "name": "Reading", "namespace": "console",
              "fields": [{"name": "id", "type": "long"}, {"name": "place", "type": "string"}]}
READING_V2 = {**READING_V1, "fields": READING_V1["fields"] + [{"name": "unit", "type": "string", "default": "C"}]}


def protobuf_classes():
    """Two messages of one file: confluent-kafka frames the second with the
    message indexes [1]."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    pool = descriptor_pool.DescriptorPool()
    f = descriptor_pb2.FileDescriptorProto(name="console/meter.proto", package="console", syntax="proto3")
    for name in ("Header", "Meter"):
        m = f.message_type.add(name=name)
        m.field.add(name="serial", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
                    label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
        m.field.add(name="watts", number=2, type=descriptor_pb2.FieldDescriptorProto.TYPE_INT64,
                    label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("console.Meter"))


def test_console_schemas(client, tmp_path, browser, artifacts):
    """The Schemas page and the message browser's decoding, with the
    built-in Schema Registry on: confluent-kafka's Avro (two versions of a
    subject), Protobuf (the second message of a file) and JSON Schema
    serializers write framed values; the API lists the subjects with their
    types, versions and compatibility level and decodes each value into the
    JSON the client wrote; the page shows the subjects, a subject's schema
    and the diff between its versions (the added field), and the decoded
    values with their schema id. A value framed with an id the registry does
    not know is left as bytes."""
    only_for(client, "confluent_kafka")
    from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
    from confluent_kafka.schema_registry.avro import AvroSerializer
    from confluent_kafka.schema_registry.json_schema import JSONSerializer
    from confluent_kafka.schema_registry.protobuf import ProtobufSerializer
    from confluent_kafka.serialization import MessageField, SerializationContext
    from playwright.sync_api import expect
    b = SkiffBroker(skiff_binary(), tmp_path / "sr" / "data", tmp_path / "sr", dict(BROKER_OVERRIDES))
    b.schema_registry_listeners = "http://127.0.0.1:0"
    b.start()
    port = b.http_port()
    try:
        sr = SchemaRegistryClient({"url": b.schema_registry_url()})
        ctx = lambda t: SerializationContext(t, MessageField.VALUE)  # noqa: E731
        avro1 = AvroSerializer(sr, json.dumps(READING_V1))
        readings = [{"id": 1, "place": "attic"}, {"id": 2, "place": "cellar"}]
        produce_framed(b.bootstrap, "readings", [avro1(v, ctx("readings")) for v in readings])
        avro2 = AvroSerializer(sr, json.dumps(READING_V2))
        produce_framed(b.bootstrap, "readings", [avro2({"id": 3, "place": "roof", "unit": "F"}, ctx("readings"))])
        Meter = protobuf_classes()
        pb = ProtobufSerializer(Meter, sr, {"use.deprecated.format": False})
        produce_framed(b.bootstrap, "meters", [pb(Meter(serial="m-1", watts=1500), ctx("meters"))])
        order_schema = json.dumps({"type": "object", "properties": {"n": {"type": "integer"}}})
        js = JSONSerializer(order_schema, sr)
        produce_framed(b.bootstrap, "orders", [js({"n": 42}, ctx("orders"))])
        produce_framed(b.bootstrap, "orders", [b"\x00\x00\x00\x03\xe7not framed by us"])

        status, r = api(port, "GET", "/api/schemas")
        assert status == 200, r
        by = {s["subject"]: s for s in r["subjects"]}
        assert r["total"] == 3 and set(by) == {"readings-value", "meters-value", "orders-value"}, r
        assert (by["readings-value"]["type"], by["readings-value"]["versions"]) == ("AVRO", 2), r
        assert by["meters-value"]["type"] == "PROTOBUF" and by["orders-value"]["type"] == "JSON", r
        assert all(s["compatibility"] == "BACKWARD" for s in r["subjects"]), r
        status, s = api(port, "GET", "/api/schema?subject=readings-value")
        assert status == 200 and [v["version"] for v in s["versions"]] == [1, 2], s
        assert json.loads(s["versions"][1]["schema"])["fields"][2]["name"] == "unit", s
        assert api(port, "GET", "/api/schema?subject=nope")[0] == 404

        def decoded(topic):
            status, m = api(port, "GET", f"/api/messages?topic={topic}&order=oldest")
            assert status == 200, m
            return [x.get("value_schema") for x in m["messages"]]
        got = sorted(decoded("readings"), key=lambda g: g["json"]["id"])  # null keys: any partition
        assert [g["json"] for g in got] == readings + [{"id": 3, "place": "roof", "unit": "F"}], got
        assert got[0]["type"] == "AVRO" and got[0]["type_name"] == "console.Reading", got
        assert got[2]["id"] == by["readings-value"]["latest_id"] != got[0]["id"], got
        got = decoded("meters")
        assert got[0]["json"] == {"serial": "m-1", "watts": "1500"} and got[0]["type_name"] == "console.Meter", got
        got = decoded("orders")
        assert got[0]["json"] == {"n": 42} and got[0]["type"] == "JSON" and got[1] is None, got

        page, errors = open_page(browser, port)
        page.goto(f"http://127.0.0.1:{port}/#/schemas")
        expect(page.get_by_test_id("schema-row")).to_have_count(3)
        row = page.locator('[data-testid=schema-row][data-subject="meters-value"]')
        expect(row.get_by_test_id("schema-type")).to_have_text("PROTOBUF")
        page.screenshot(path=artifacts / "01-schemas.png", full_page=True)
        page.locator('[data-testid=schema-row][data-subject="readings-value"]').get_by_test_id("schema-link").click()
        expect(page.get_by_test_id("subject-compatibility")).to_contain_text("BACKWARD")
        expect(page.get_by_test_id("subject-versions")).to_have_text("2")
        expect(page.get_by_test_id("schema-text")).to_contain_text('"unit"')
        expect(page.get_by_test_id("diff-add")).not_to_have_count(0)
        expect(page.get_by_test_id("schema-diff")).to_contain_text("+       \"name\": \"unit\"")
        page.get_by_test_id("schema-version").select_option("1")
        expect(page.get_by_test_id("schema-text")).not_to_contain_text('"unit"')
        page.screenshot(path=artifacts / "02-subject.png", full_page=True)
        page.goto(f"http://127.0.0.1:{port}/#/messages/readings")
        expect(page.get_by_test_id("msg-row")).to_have_count(3)
        expect(page.get_by_test_id("msg-decoded")).to_have_count(3)
        expect(page.get_by_test_id("msg-value-cell").first).to_contain_text('"place":"roof"')
        expect(page.get_by_test_id("msg-schema").first).to_contain_text("AVRO · id")
        page.screenshot(path=artifacts / "03-decoded.png", full_page=True)
        page.goto(f"http://127.0.0.1:{port}/#/messages/orders")
        expect(page.get_by_test_id("msg-row")).to_have_count(2)
        expect(page.get_by_test_id("msg-decoded")).to_have_count(1)
        assert errors == [], errors
    finally:
        b.stop()


def test_console_read_only(client, tmp_path, browser, artifacts):
    only_for(client, "confluent_kafka")
    from confluent_kafka.admin import AdminClient, NewTopic
    from playwright.sync_api import expect
    b = start_broker(tmp_path, "ro", **{"http.console.write.enabled": "false"})
    port = b.http_port()
    topic = f"console-ro-{uuid.uuid4().hex[:8]}"
    group = f"console-ro-group-{uuid.uuid4().hex[:8]}"
    try:
        admin = AdminClient({"bootstrap.servers": b.bootstrap})
        admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
        produce_bulk(b.bootstrap, topic, 5)
        # An Empty group with a committed offset: the state in which a
        # writable console would offer reset and delete.
        commit_offsets(b.bootstrap, group, [(topic, 0, 2)])

        page, errors = open_page(browser, port)
        expect(page.get_by_test_id("mode")).to_have_text("read-only")
        for n, view in enumerate(["#/topics", f"#/topic/{topic}", f"#/messages/{topic}", "#/groups",
                                  f"#/group/{group}"]):
            page.goto(f"http://127.0.0.1:{port}/{view}")
            page.wait_for_selector("body[data-ready=true]")
            if view == "#/topics":
                expect(page.locator(f'[data-testid=topic-row][data-topic="{topic}"]')).to_have_count(1)
            elif view.startswith("#/topic/"):
                expect(page.get_by_test_id("partition-row")).to_have_count(1)
            elif view.startswith("#/messages/"):
                expect(page.get_by_test_id("msg-row")).to_have_count(5)
            elif view == "#/groups":
                expect(page.locator(f'[data-testid=group-row][data-group="{group}"]')).to_have_count(1)
            else:
                expect(page.get_by_test_id("group-state")).to_have_text("Empty")
                expect(page.get_by_test_id("group-total-lag")).to_have_text("3")
            assert visible_write_controls(page) == [], view
            page.screenshot(path=artifacts / f"ro-{n}.png", full_page=True)
        assert errors == [], errors

        status, body = api(port, "POST", "/api/topics/create", {"name": "nope", "partitions": 1})
        assert status == 403 and body["error"] == "CONSOLE_READ_ONLY", (status, body)
        status, body = api(port, "POST", "/api/messages/produce", {"topic": topic, "key": "k", "value": "v"})
        assert status == 403 and body["error"] == "CONSOLE_READ_ONLY", (status, body)
        status, overview = api(port, "GET", "/api/overview")
        assert status == 200 and overview["write_enabled"] is False, overview
        status, body = api(port, "GET", "/api/schemas")  # the registry is off
        assert status == 404 and "schema registry is off" in body["message"], (status, body)
    finally:
        b.stop()
