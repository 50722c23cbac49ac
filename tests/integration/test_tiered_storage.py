"""Tiered storage in the broker (issue 54): skiff started with Aiven's keys
against two real S3-compatible servers, versitygw and SeaweedFS
(harness/s3.py), produces past local retention with confluent_kafka and
checks the bucket through tools/s3_cli:

- closed segments are copied (a .log, .indexes and .rsm-manifest per
  segment), the local start moves up, the log start stays at 0, /metrics
  counts the copies;
- a restart recovers the highest remote offset: nothing is copied again;
- kill -9 during uploads, a few times: afterwards no data object without its
  manifest, no segment twice, and every acknowledged offset is remote
  (segments parsed from the bucket, contiguous from 0) or local;
- retention.bytes and retention.ms delete remote segments; deleting the topic
  empties its objects;
- the store stopped while producing: produce goes on, the copy failure is
  logged, copies resume when the store is back;
- wrong credentials or bucket: a clear startup error (exit 2); an
  unreachable store: the broker starts and says so; without
  skiff.tiered.storage.preview the broker refuses to start.

Every wait is bounded. Run: scripts/install-test-clients.sh s3 &&
tests/integration/run.sh s3 test_tiered_storage.py (env SKIFF_BINARY, S3_CLI)."""
from __future__ import annotations

import os
import re
import struct
import subprocess
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from harness import s3 as s3h
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


def s3(server: s3h.S3Server, *args, ok=True) -> dict:
    return s3h.run_json_cli([cli_path(), "--endpoint", server.endpoint, "--bucket", BUCKET, "--path-style",
                             "--region", s3h.REGION, "--access-key", s3h.ACCESS_KEY, "--secret-key", s3h.SECRET_KEY,
                             "--max-attempts", "8", "--connect-timeout-ms", "2000", "--io-timeout-ms", "20000",
                             *[str(a) for a in args]], ok=ok)


@pytest.fixture(scope="module", params=s3h.SERVERS)
def server(request, tmp_path_factory):
    if s3h.binary(request.param) is None:
        pytest.skip(f"{request.param} not installed: scripts/install-test-clients.sh s3")
    if not Path(cli_path()).is_file():
        pytest.skip(f"no s3_cli at {cli_path()}: build the s3_cli target")
    srv = s3h.S3Server(request.param, tmp_path_factory.mktemp(request.param)).start()
    try:
        s3(srv, "create-bucket")
        yield srv
    finally:
        srv.stop()


def tiered_overrides(server: s3h.S3Server, prefix: str, **extra) -> dict:
    o = {
        "num.partitions": "1",
        "remote.log.storage.system.enable": "true",
        "skiff.tiered.storage.preview": "true",
        "remote.log.storage.manager.class.name": "io.aiven.kafka.tieredstorage.RemoteStorageManager",
        "rsm.config.storage.backend.class": "io.aiven.kafka.tieredstorage.storage.s3.S3Storage",
        "rsm.config.storage.s3.endpoint.url": server.endpoint,
        "rsm.config.storage.s3.bucket.name": BUCKET,
        "rsm.config.storage.s3.region": s3h.REGION,
        "rsm.config.storage.s3.path.style.access.enabled": "true",
        "rsm.config.storage.aws.access.key.id": s3h.ACCESS_KEY,
        "rsm.config.storage.aws.secret.access.key": s3h.SECRET_KEY,
        "rsm.config.storage.s3.api.call.attempt.timeout": "5000",
        "rsm.config.key.prefix": prefix,
        "rlmm.config.remote.log.metadata.topic.replication.factor": "1",
        "rlmm.config.remote.log.metadata.topic.num.partitions": "3",
        "remote.log.manager.task.interval.ms": "200",
        "remote.log.manager.task.retry.backoff.ms": "200",
        "remote.log.manager.task.retry.backoff.max.ms": "1000",
        "log.retention.check.interval.ms": "200",
    }
    o.update(extra)
    return o


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
    # Records below the local start are not read locally (remote reads come later).
    local_start = tiered.local_bases("orders")[0]
    c = ck.Consumer({"bootstrap.servers": tiered.broker.bootstrap, "group.id": "g", "enable.auto.commit": False})
    c.assign([ck.TopicPartition("orders", 0, 0)])
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        m = c.poll(0.5)
        if m is not None and m.error() is None:
            assert m.offset() >= local_start
    c.close()


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


def test_refused_without_the_preview_key(server, tmp_path):
    overrides = tiered_overrides(server, "p/")
    del overrides["skiff.tiered.storage.preview"]
    rc, out = exit_code_of(tmp_path, overrides)
    assert rc == 2 and "skiff.tiered.storage.preview=true" in out, out
