"""Tiered storage in the broker (issue 54): skiff started with Aiven's keys
against two real S3-compatible servers, versitygw and SeaweedFS
(harness/s3.py), produces past local retention with confluent_kafka and
checks the bucket through tools/s3_cli:

- closed segments are copied (a .log, .indexes and .rsm-manifest per
  segment), the local start moves up, the log start stays at 0, /metrics
  counts the copies; everything is consumed from offset 0, in order, the
  older part read back from the store;
- ListOffsets -2/-4/-5/-6 and timestamps below the local start (the remote
  time indexes); read_committed from remote storage skips aborted
  transactions; the store stopped while consuming: nothing below the local
  start meanwhile, then everything, without a restart;
- compacted topics are refused for remote storage, as Kafka refuses them;
- the console (Debian's chromium through Playwright) shows a tiered
  partition's log start, local start and how far remote storage reaches;
- a restart recovers the highest remote offset: nothing is copied again;
- kill -9 during uploads, a few times: afterwards no data object without its
  manifest, no segment twice, and every acknowledged offset is remote
  (segments parsed from the bucket, contiguous from 0) or local;
- retention.bytes and retention.ms delete remote segments; deleting the topic
  empties its objects;
- the store stopped while producing: produce goes on, the copy failure is
  logged, copies resume when the store is back;
- kill -9 during remote deletions: they resume, each segment whole or gone,
  nothing below the log start, everything above it readable;
- wrong credentials or bucket: a clear startup error (exit 2); an
  unreachable store: the broker starts and says so.

Every wait is bounded. Run: scripts/install-test-clients.sh s3 &&
tests/integration/run.sh s3 test_tiered_storage.py (env SKIFF_BINARY, S3_CLI)."""
from __future__ import annotations

import os
import re
import socket
import struct
import subprocess
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from harness import s3 as s3h
from harness.wire import recv_exact
from test_console import browser, open_page  # noqa: F401 - the console test's browser fixture
from harness.broker import SkiffBroker
from free_port import free_port

REPO = Path(__file__).resolve().parents[2]
BUCKET = "skiff-tiered"
MIB = 1 << 20
MANIFEST = re.compile(r"/(\d+)/(\d{20})-([A-Za-z0-9_-]+)\.rsm-manifest$")
LOG_OBJECT = re.compile(r"/(\d+)/(\d{20})-([A-Za-z0-9_-]+)\.log$")

ck = pytest.importorskip("confluent_kafka")
from confluent_kafka.admin import AdminClient, NewTopic, ConfigResource  # noqa: E402


def cli_path() -> str:
    return os.environ.get("S3_CLI") or str(REPO / "build" / "tools" / "s3_cli" / "s3_cli")


def binary() -> str:
    b = os.environ.get("SKIFF_BINARY") or str(REPO / "build" / "skiff")
    if not os.access(b, os.X_OK):
        pytest.skip(f"no skiff binary at {b}")
    return b


def s3(server: s3h.S3Server, *args, ok=True, attempts=8) -> dict:
    return s3h.run_json_cli([cli_path(), "--endpoint", server.endpoint, "--bucket", BUCKET, "--path-style",
                             "--region", s3h.REGION, "--access-key", s3h.ACCESS_KEY, "--secret-key", s3h.SECRET_KEY,
                             "--max-attempts", str(attempts), "--connect-timeout-ms", "2000", "--io-timeout-ms",
                             "20000", *[str(a) for a in args]], ok=ok)


@pytest.fixture(scope="module", params=s3h.SERVERS)
def server(request, tmp_path_factory):
    # Retries in case a server answers before its storage is ready.
    yield from s3h.serving(request.param, tmp_path_factory.mktemp(request.param), cli_path(),
                           lambda srv: s3(srv, "create-bucket", attempts=12))


def tiered_overrides(server: s3h.S3Server, prefix: str, **extra) -> dict:
    return s3h.tiered_broker_overrides(server, BUCKET, prefix, **extra)


class Tiered:
    """One broker of the test's own on one key prefix of the bucket."""

    def __init__(self, server: s3h.S3Server, tmp: Path, **extra):
        self.server = server
        self.prefix = f"t-{uuid.uuid4().hex[:8]}/"
        self.broker = SkiffBroker(binary(), tmp / "data", tmp, tiered_overrides(server, self.prefix, **extra))
        self.tmp = tmp

    def start(self):
        return self.broker.start(timeout=60)

    def admin(self) -> AdminClient:
        # Kept: a client destroyed before its futures resolve fails them (_DESTROY).
        self._admin = AdminClient({"bootstrap.servers": self.broker.bootstrap})
        return self._admin

    def create_topic(self, name: str, **configs):
        cfg = {"remote.storage.enable": "true", "segment.bytes": str(MIB), "local.retention.bytes": "1"}
        cfg.update({k.replace("_", "."): str(v) for k, v in configs.items()})
        fut = self.admin().create_topics([NewTopic(name, 1, 1, config=cfg)], operation_timeout=30)[name]
        fut.result(timeout=30)

    def produce(self, topic: str, mib: int, value_bytes: int = 10_000) -> list[int]:
        """Acknowledged offsets."""
        p = ck.Producer({"bootstrap.servers": self.broker.bootstrap, "acks": "all", "linger.ms": 5,
                         "enable.idempotence": True})
        acked: list[int] = []
        value = os.urandom(value_bytes)

        def done(err, msg):
            if err is None:
                acked.append(msg.offset())

        for i in range(mib * MIB // value_bytes):
            while True:
                try:
                    p.produce(topic, value=value, key=str(i).encode(), on_delivery=done)
                    break
                except BufferError:
                    p.poll(0.1)
            p.poll(0)
        assert p.flush(60) == 0
        return acked

    def objects(self) -> list[tuple[str, int]]:
        got = s3(self.server, "list", "--prefix", self.prefix)
        return list(zip(got["keys"], got["sizes"]))

    def manifests(self) -> list[int]:
        """The start offsets of the segments with a manifest (sorted)."""
        return sorted(int(m.group(2)) for k, _ in self.objects() if (m := MANIFEST.search(k)))

    def local_bases(self, topic: str) -> list[int]:
        d = self.broker.data_dir / f"{topic}-0"
        return sorted(int(f.stem) for f in d.glob("*.log"))

    def watermarks(self, topic: str) -> tuple[int, int]:
        c = ck.Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "wm-" + uuid.uuid4().hex})
        try:
            return c.get_watermark_offsets(ck.TopicPartition(topic, 0), timeout=10)
        finally:
            c.close()

    def metrics(self) -> str:
        port = self.broker.http_port()
        return urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()

    def stop(self):
        self.broker.stop()


def wait_for(what: str, check, timeout: float = 60.0, interval: float = 0.3):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what} (last: {last!r})")


def settle(t: Tiered, quiet: float = 1.5, timeout: float = 60.0) -> list:
    """The bucket's listing once it stayed the same for `quiet` seconds."""
    deadline = time.monotonic() + timeout
    last, since = t.objects(), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.3)
        now = t.objects()
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return now
    raise AssertionError(f"the bucket kept changing for {timeout} s")


def metric(text: str, name: str, topic: str | None = None) -> float:
    label = "" if topic is None else f'{{topic="{topic}"}}'
    m = re.search(rf"^{re.escape(name + label)} (\S+)$", text, re.M)
    return float(m.group(1)) if m else -1.0


@pytest.fixture
def tiered(server, tmp_path):
    t = Tiered(server, tmp_path)
    t.start()
    yield t
    t.broker.kill9()


def offsets_in_log_object(path: Path) -> tuple[int, int]:
    """The first and last offsets of a segment file (Kafka's batch headers)."""
    data = path.read_bytes()
    pos, first, last = 0, None, None
    while pos + 61 <= len(data):
        base, length = struct.unpack_from(">qi", data, pos)
        last_delta = struct.unpack_from(">i", data, pos + 23)[0]
        first = base if first is None else first
        last = base + last_delta
        pos += 12 + length
    assert first is not None and pos == len(data), (path, pos, len(data))
    return first, last


def test_segments_are_copied_and_local_start_moves(tiered):
    tiered.create_topic("orders")
    acked = tiered.produce("orders", 6)
    assert len(acked) == 6 * MIB // 10_000
    wait_for("3 segments in the bucket", lambda: len(tiered.manifests()) >= 3)
    kinds = {k.rsplit(".", 1)[1] for k, _ in tiered.objects()}
    assert kinds == {"log", "indexes", "rsm-manifest"}
    assert all("/orders-" in k for k, _ in tiered.objects())
    # Local retention (local.retention.bytes=1) deleted what is remote: the
    # local start moved up, the log start (ListOffsets -2) stays 0.
    wait_for("the local start above 0", lambda: tiered.local_bases("orders")[0] > 0)
    low, high = tiered.watermarks("orders")
    assert low == 0 and high == len(acked)
    assert tiered.manifests()[0] == 0
    text = tiered.metrics()
    assert metric(text, "kafka_server_brokertopicmetrics_remotecopybytes_total") > 3 * MIB * 0.9
    assert metric(text, "kafka_server_brokertopicmetrics_remotecopyrequests_total") >= 3
    assert metric(text, "kafka_server_brokertopicmetrics_remotecopyerrors_total") == 0
    assert metric(text, "kafka_server_brokertopicmetrics_remotelogsizebytes", "orders") > 3 * MIB * 0.9
    # Everything from offset 0 comes back, in order, byte for byte: below the
    # local start from the object store, above it from the local segments.
    got = consume_all(tiered.broker.bootstrap, "orders", len(acked))
    assert [k for k, _ in got] == [str(i).encode() for i in range(len(acked))]
    assert len({v for _, v in got}) == 1 and len(got[0][1]) == 10_000
    text = tiered.metrics()
    assert metric(text, "kafka_server_brokertopicmetrics_remotefetchrequests_total") > 0
    assert metric(text, "kafka_server_brokertopicmetrics_remotefetcherrors_total") == 0
    assert metric(text, "kafka_server_brokertopicmetrics_remotefetchbytes_total") > 3 * MIB * 0.9


def consume_all(bootstrap: str, topic: str, count: int, isolation: str = "read_uncommitted",
                timeout: float = 90.0) -> list[tuple[bytes, bytes]]:
    """(key, value) of the first `count` records from offset 0, or fewer at the timeout."""
    c = ck.Consumer({"bootstrap.servers": bootstrap, "group.id": "g-" + uuid.uuid4().hex,
                     "enable.auto.commit": False, "isolation.level": isolation, "auto.offset.reset": "earliest",
                     "fetch.max.bytes": 4 * MIB, "max.partition.fetch.bytes": MIB})
    c.assign([ck.TopicPartition(topic, 0, 0)])
    got: list[tuple[bytes, bytes]] = []
    deadline = time.monotonic() + timeout
    try:
        while len(got) < count and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is not None and m.error() is None:
                got.append((m.key(), m.value()))
    finally:
        c.close()
    return got


def test_restart_recovers_and_copies_nothing_again(tiered):
    tiered.create_topic("orders")
    tiered.produce("orders", 5)
    wait_for("3 segments in the bucket", lambda: len(tiered.manifests()) >= 3)
    before = settle(tiered)
    tiered.broker.restart()
    time.sleep(2)  # ten ticks
    assert tiered.objects() == before  # nothing copied twice
    tiered.produce("orders", 2)
    wait_for("new segments copied", lambda: len(tiered.manifests()) > len([k for k, _ in before
                                                                           if k.endswith(".rsm-manifest")]))
    starts = tiered.manifests()
    assert len(starts) == len(set(starts))  # one segment per start offset: no re-upload


def test_kill9_during_uploads_leaves_no_orphans_and_loses_nothing(server, tmp_path):
    t = Tiered(server, tmp_path)
    t.start()
    t.create_topic("k9", segment_bytes=4 * MIB)
    acked_high = 0
    try:
        for round_ in range(3):
            acked = t.produce("k9", 9)
            acked_high = max(acked_high, max(acked) + 1)
            time.sleep(0.15 * (round_ + 1))  # somewhere in the copies of those segments
            t.broker.kill9()
            t.start()
        # Segments closed before a kill lie above the recovery point until the
        # next roll flushes them (copies take only flushed segments): roll twice.
        t.produce("k9", 9)
        # Settled: every closed segment copied, cut attempts cleaned up.
        time.sleep(3)

        def settled():
            objs = t.objects()
            logs = {m.group(3) for k, _ in objs if (m := LOG_OBJECT.search(k))}
            manifests = {m.group(3) for k, _ in objs if (m := MANIFEST.search(k))}
            return logs == manifests and len(logs) >= 5 and objs

        try:
            objs = wait_for("data objects each with its manifest", settled, timeout=90)
        except AssertionError:
            raise AssertionError(f"objects: {t.objects()}\n{t.broker.log_tail(60)}")
        # The remote segments, parsed from the bucket, are contiguous from 0.
        segments = []
        for key, _ in objs:
            if LOG_OBJECT.search(key):
                out = tmp_path / "seg.log"
                s3(server, "get", key, "--file", out)
                segments.append(offsets_in_log_object(out))
        segments.sort()
        assert segments[0][0] == 0
        for (_, end), (start, _) in zip(segments, segments[1:]):
            assert start == end + 1, segments
        local = t.local_bases("k9")
        assert local[0] <= segments[-1][1] + 1, (local, segments[-1])  # no gap between remote and local
        low, high = t.watermarks("k9")
        assert low == 0 and high >= acked_high
    finally:
        t.broker.kill9()


def test_remote_retention_bytes_and_ms(tiered):
    tiered.create_topic("bybytes", retention_bytes=3 * MIB)
    tiered.produce("bybytes", 8)
    wait_for("the log start moved by remote retention.bytes", lambda: tiered.watermarks("bybytes")[0] > 0)
    wait_for("at most 3 remote segments", lambda: len(tiered.manifests()) <= 3, timeout=30)
    assert metric(tiered.metrics(), "kafka_server_brokertopicmetrics_remotedeleterequests_total") > 0

    tiered.create_topic("bytime")
    tiered.produce("bytime", 4)
    wait_for("segments copied", lambda: any("/bytime-" in k for k, _ in tiered.objects()))
    res = ConfigResource("topic", "bytime", set_config={
        "remote.storage.enable": "true", "segment.bytes": str(MIB), "local.retention.bytes": "1",
        "retention.ms": "1000"})
    tiered.admin().alter_configs([res])[res].result(timeout=30)
    wait_for("bytime's remote segments deleted by retention.ms",
             lambda: not any("/bytime-" in k for k, _ in tiered.objects()), timeout=60)


def test_deleting_the_topic_empties_its_objects(tiered):
    tiered.create_topic("gone")
    tiered.produce("gone", 4)
    wait_for("segments copied", lambda: len(tiered.manifests()) >= 2)
    tiered.admin().delete_topics(["gone"], operation_timeout=30)["gone"].result(timeout=30)
    wait_for("the topic's objects deleted", lambda: tiered.objects() == [] or None, timeout=60)


def test_store_stopped_while_producing(server, tiered):
    tiered.create_topic("s")
    tiered.produce("s", 2)
    wait_for("a segment copied", lambda: len(tiered.manifests()) >= 1)
    server.stop()
    try:
        acked = tiered.produce("s", 3)  # produce goes on
        assert len(acked) == 3 * MIB // 10_000
        tiered.broker.log_wait(r"remote copy of s-0 offsets \d+\.\.\d+ failed \(retriable\)", timeout=30)
    finally:
        server.start()
    wait_for("copies resumed", lambda: len(tiered.manifests()) >= 4, timeout=90)


def exit_code_of(tmp: Path, overrides: dict, timeout: float = 60) -> tuple[int, str]:
    args = SkiffBroker(binary(), tmp / "data", tmp, overrides).args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKIFF_")}
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout + p.stderr


def test_wrong_credentials_or_bucket_stop_the_start(server, tmp_path):
    base = tiered_overrides(server, "bad/")
    rc, out = exit_code_of(tmp_path / "secret", {**base, "rsm.config.storage.aws.secret.access.key": "wrong"})
    assert rc == 2 and "configuration error: tiered storage: bucket skiff-tiered" in out, out
    rc, out = exit_code_of(tmp_path / "bucket", {**base, "rsm.config.storage.s3.bucket.name": "skiff-no-such"})
    assert rc == 2 and "skiff-no-such" in out and "does not exist" in out, out


def test_unreachable_store_starts_and_says_so(server, tmp_path):
    nobody = f"http://127.0.0.1:{free_port()}"
    b = SkiffBroker(binary(), tmp_path / "data", tmp_path,
                    tiered_overrides(server, "x/", **{"rsm.config.storage.s3.endpoint.url": nobody}))
    b.start(timeout=60)
    try:
        assert "the object store is not reachable now" in b.log_path.read_text(errors="replace")
    finally:
        b.stop()


def list_offsets(bootstrap: str, topic: str, timestamp: int, isolation: int = 0) -> tuple[int, int, int, int]:
    """ListOffsets v11 for partition 0 over a raw socket: (error, offset, timestamp, leader epoch).
    No client here asks -4/-5/-6 (Kafka's GetOffsetShell does, through a JVM)."""
    def uvarint(n: int) -> bytes:
        out = b""
        while n >= 0x80:
            out += bytes([n & 0x7F | 0x80])
            n >>= 7
        return out + bytes([n])

    name = topic.encode()
    body = struct.pack(">ib", -1, isolation) + uvarint(2) + uvarint(len(name) + 1) + name + uvarint(2)
    body += struct.pack(">iiq", 0, -1, timestamp) + b"\0" + b"\0" + struct.pack(">i", 30000) + b"\0"
    head = struct.pack(">hhih", 2, 11, 7, 4) + b"test" + b"\0"
    host, port = bootstrap.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=40) as sock:
        frame = head + body
        sock.sendall(struct.pack(">i", len(frame)) + frame)
        size = struct.unpack(">i", recv_exact(sock, 4))[0]
        resp = recv_exact(sock, size)
    # correlation id, header tags, throttle, 1 topic, its name, 1 partition
    pos = 4 + 1 + 4 + 1
    pos += 1 + len(name) + 1
    _, error, ts, offset, epoch = struct.unpack_from(">ihqqi", resp, pos)
    return error, offset, ts, epoch


def settled_tiers(t: Tiered, topic: str) -> tuple[int, int]:
    """(local start, highest remote offset) once copies and local retention
    are done and the two meet: the numbers stop moving under a test."""
    wait_for("the local start above 0", lambda: t.local_bases(topic)[0] > 0)
    settle(t)
    wait_for("local retention caught up with the copies",
             lambda: list_offsets(t.broker.bootstrap, topic, -5)[1] + 1 == t.local_bases(topic)[0])
    return t.local_bases(topic)[0], list_offsets(t.broker.bootstrap, topic, -5)[1]


def produce_timed(bootstrap: str, topic: str, count: int, first_ts: int, value_bytes: int = 10_000) -> None:
    """`count` records with CreateTime first_ts, first_ts + 1, ... (key: the index)."""
    p = ck.Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5, "enable.idempotence": True})
    value = os.urandom(value_bytes)
    for i in range(count):
        while True:
            try:
                p.produce(topic, value=value, key=str(i).encode(), timestamp=first_ts + i)
                break
            except BufferError:
                p.poll(0.1)
    assert p.flush(60) == 0


def test_list_offsets_specials_and_timestamps_below_the_local_start(tiered):
    tiered.create_topic("lo")
    base = int(time.time() * 1000) - 3_600_000  # an hour ago: within retention.ms
    produce_timed(tiered.broker.bootstrap, "lo", 500, base)  # ~5 MiB: 4 closed segments
    local_start, remote_end = settled_tiers(tiered, "lo")
    boot = tiered.broker.bootstrap
    assert list_offsets(boot, "lo", -2)[:2] == (0, 0)             # EARLIEST: the log start
    assert list_offsets(boot, "lo", -4)[:2] == (0, local_start)   # EARLIEST_LOCAL
    assert list_offsets(boot, "lo", -5)[:2] == (0, remote_end)    # LATEST_TIERED
    assert remote_end < 500
    assert list_offsets(boot, "lo", -6)[:2] == (0, remote_end + 1)  # EARLIEST_PENDING_UPLOAD
    assert list_offsets(boot, "lo", -1)[:2] == (0, 500)
    # A timestamp below the local start: found in the remote time indexes.
    error, offset, ts, _ = list_offsets(boot, "lo", base + 7)
    assert (error, offset, ts) == (0, 7, base + 7)
    # One above it: the local segments'.
    error, offset, ts, _ = list_offsets(boot, "lo", base + 499)
    assert (error, offset, ts) == (0, 499, base + 499)
    assert list_offsets(boot, "lo", base + 10_000)[1] == -1  # newer than everything
    assert metric(tiered.metrics(), "skiff_remote_reader_timestamp_lookups_total") >= 1


def test_read_committed_from_remote_skips_aborted_transactions(tiered):
    tiered.create_topic("tx")
    boot = tiered.broker.bootstrap
    p = ck.Producer({"bootstrap.servers": boot, "transactional.id": "tx-" + uuid.uuid4().hex, "linger.ms": 5})
    p.init_transactions(30)
    value = os.urandom(10_000)
    committed: list[bytes] = []
    for n in range(6):  # ~0.5 MiB each: the transactions span segments
        p.begin_transaction()
        keys = [f"{n}-{i}".encode() for i in range(50)]
        for k in keys:
            p.produce("tx", value=value, key=k)
        if n % 2:
            p.abort_transaction(30)
        else:
            p.commit_transaction(30)
            committed += keys
    tiered.produce("tx", 3)  # rolls past them: every transaction's segments go remote
    wait_for("the transactions below the local start", lambda: tiered.local_bases("tx")[0] > 300, timeout=90)
    got = consume_all(boot, "tx", len(committed), isolation="read_committed")
    assert [k for k, _ in got] == committed
    everything = consume_all(boot, "tx", 300, isolation="read_uncommitted")
    assert len(everything) == 300  # the aborted ones too


def test_store_stopped_while_consuming_recovers_by_itself(server, tiered):
    tiered.create_topic("sc")
    acked = tiered.produce("sc", 5)
    wait_for("the local start above 0", lambda: tiered.local_bases("sc")[0] > 0)
    local_start = tiered.local_bases("sc")[0]
    server.stop()
    try:
        # Nothing below the local start while the store is away, and no crash.
        early = consume_all(tiered.broker.bootstrap, "sc", 1, timeout=4)
        assert early == []
        assert tiered.broker.proc.poll() is None
    finally:
        server.start()
    # The consumer retries (KAFKA_STORAGE_ERROR is retriable) and gets everything.
    got = consume_all(tiered.broker.bootstrap, "sc", len(acked))
    assert [k for k, _ in got] == [str(i).encode() for i in range(len(acked))]
    assert local_start > 0
    assert metric(tiered.metrics(), "kafka_server_brokertopicmetrics_remotefetcherrors_total") > 0


def test_compacted_topics_are_refused_for_remote_storage(tiered):
    fut = tiered.admin().create_topics([NewTopic("compacted", 1, 1, config={
        "remote.storage.enable": "true", "cleanup.policy": "compact"})], operation_timeout=30)["compacted"]
    with pytest.raises(ck.KafkaException) as e:
        fut.result(timeout=30)
    err = e.value.args[0]
    assert err.code() == ck.KafkaError.INVALID_CONFIG
    assert "Remote log storage only supports topics with cleanup.policy=delete" in err.str()  # Kafka 4.4's words


def test_kill9_during_remote_deletion_resumes_and_leaves_no_orphans(server, tmp_path):
    t = Tiered(server, tmp_path)
    t.start()
    t.create_topic("rd", segment_bytes=MIB)
    try:
        acked = t.produce("rd", 8)
        wait_for("segments copied", lambda: len(t.manifests()) >= 6, timeout=90)
        res = ConfigResource("topic", "rd", set_config={
            "remote.storage.enable": "true", "segment.bytes": str(MIB), "local.retention.bytes": "1",
            "retention.bytes": str(2 * MIB)})
        t.admin().alter_configs([res])[res].result(timeout=30)
        wait_for("a remote deletion started", lambda: metric(
            t.metrics(), "kafka_server_brokertopicmetrics_remotedeleterequests_total") > 0, timeout=30, interval=0.05)
        t.broker.kill9()  # somewhere in the deletions
        t.start()

        def settled():
            objs = t.objects()
            logs = {m.group(3) for k, _ in objs if (m := LOG_OBJECT.search(k))}
            manifests = {m.group(3) for k, _ in objs if (m := MANIFEST.search(k))}
            return logs == manifests and len(manifests) <= 3 and objs

        # (One full run on a loaded machine once needed more than 90 s here.)
        wait_for("deletions finished, each segment whole or gone", settled, timeout=240)
        low, high = t.watermarks("rd")
        assert low > 0 and high == len(acked)
        assert min(t.manifests()) <= low  # the log start is in remote storage, nothing below it
        got = consume_all(t.broker.bootstrap, "rd", high - low)
        assert [k for k, _ in got] == [str(i).encode() for i in range(low, high)]
    finally:
        t.broker.kill9()


def test_console_shows_what_is_local_and_what_is_remote(tiered, browser):
    tiered.create_topic("cv")
    acked = tiered.produce("cv", 4)
    local_start, remote_end = settled_tiers(tiered, "cv")
    page, errors = open_page(browser, tiered.broker.http_port())
    page.goto(f"http://127.0.0.1:{tiered.broker.http_port()}/#/topic/cv")
    row = page.locator("[data-testid=partition-row]").first
    row.wait_for()
    headers = [h.lower() for h in page.locator("[data-testid=partitions-table] th").all_inner_texts()]
    assert "local start" in headers and "remote up to" in headers and "local size" in headers, headers
    assert row.locator("[data-testid=log-start-offset]").inner_text() == "0"
    assert row.locator("[data-testid=local-start-offset]").inner_text() == f"{local_start:,}"
    assert row.locator("[data-testid=remote-end-offset]").inner_text() == f"{remote_end:,}"
    assert row.locator("[data-testid=high-watermark]").inner_text() == f"{len(acked):,}"
    assert errors == []
