"""Kafka Connect 4.4 in distributed mode (org.apache.kafka.connect.cli.ConnectDistributed
from Maven Central: scripts/fetch_kafka_jars.sh connect) on the real skiff
binary (issue 16): Connect creates its compacted config, offset and status
topics itself; one connector's config is updated many times through the REST
API, and another connector is created and deleted. With small cleaner
settings (the `config.storage.*` topic settings Connect passes to
CreateTopics, and log.cleaner.backoff.ms on the broker) the config topic
stays bounded: what a reader from offset 0 sees is a small fraction of what
was written, and the deleted connector's tombstone is gone too (its delete
horizon, KIP-534). A new worker started against the same broker then serves
the latest config of every live connector and nothing of the deleted one.

The connector (drivers/java/connect/IdleSourceConnector.java) is built against
connect-api by scripts/install-test-clients.sh java, with the classpath of the
worker (~/.cache/skiff/compat/java-connect): the registry we reach serves
neither connect-file nor connect-mirror 4.4.0. Runs as ctest compat_connect
(run.sh java test_connect.py); skipped only where java is absent. Every wait
is bounded."""
from __future__ import annotations

import json
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from conftest import skiff_binary
from harness.broker import SkiffBroker, free_port
from harness.clients import CACHE
from test_compaction import read_all

pytestmark = pytest.mark.timeout(300)

UPDATES = 300
# Small enough that skiff cleans within seconds: segments roll every 300 ms
# (on the next append), any dirty data is cleanable, tombstones expire 100 ms
# after the pass that first cleans them.
TOPIC_SETTINGS = {"segment.ms": "300", "min.cleanable.dirty.ratio": "0.01", "min.compaction.lag.ms": "0",
                  "max.compaction.lag.ms": "1000", "delete.retention.ms": "100"}


@pytest.fixture(scope="module")
def connect_classpath() -> str:
    if shutil.which("java") is None:
        pytest.skip("java is absent")
    f = CACHE / "java-connect" / "classpath"
    if not f.exists():
        pytest.fail(f"no {f}: run scripts/install-test-clients.sh java (ctest's compat_setup does)")
    return f.read_text().strip()


class Worker:
    """One ConnectDistributed JVM; its output in a file. stop(): SIGTERM (a
    clean shutdown leaves the group), SIGKILL after 30 s."""

    def __init__(self, classpath: str, props: Path, log: Path, port: int):
        self.url = f"http://127.0.0.1:{port}"
        self.log = log
        self.out = open(log, "wb")
        self.proc = subprocess.Popen(
            ["java", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
             "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", classpath,
             "org.apache.kafka.connect.cli.ConnectDistributed", str(props)],
            stdout=self.out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)

    def tail(self, n=40) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])

    def request(self, method: str, path: str, body=None, timeout=30.0):
        """(status, decoded JSON or text)."""
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                raw, status = r.read(), r.status
        except urllib.error.HTTPError as e:
            raw, status = e.read(), e.code
        try:
            return status, json.loads(raw) if raw else None
        except ValueError:
            return status, raw.decode(errors="replace")

    def call(self, method: str, path: str, body=None, ok=(200, 201, 204), wait_s=60.0):
        """Retries what Connect answers while it (re)joins its group or reads
        its config topic (409 rebalance, 404 not yet known, connection refused)."""
        deadline = time.monotonic() + wait_s
        last = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"the Connect worker exited with {self.proc.returncode}\n{self.tail()}")
            try:
                status, res = self.request(method, path, body)
                if status in ok:
                    return res
                last = (status, res)
            except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
                last = e
            time.sleep(0.2)
        pytest.fail(f"{method} {path}: no success within {wait_s}s, last {last}\n{self.tail()}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.out.close()


def worker_props(path: Path, bootstrap: str, port: int, suffix: str) -> Path:
    props = {
        "bootstrap.servers": bootstrap, "group.id": f"connect-{suffix}",
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "config.storage.topic": f"connect-configs-{suffix}", "offset.storage.topic": f"connect-offsets-{suffix}",
        "status.storage.topic": f"connect-status-{suffix}",
        "config.storage.replication.factor": "1", "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1", "offset.storage.partitions": "1", "status.storage.partitions": "1",
        "listeners": f"http://127.0.0.1:{port}", "rest.advertised.host.name": "127.0.0.1",
        "offset.flush.interval.ms": "1000", "scheduled.rebalance.max.delay.ms": "0",
    }
    for k, v in TOPIC_SETTINGS.items():  # passed by Connect to CreateTopics for its config topic
        props[f"config.storage.{k}"] = v
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    return path


def connector_config(i: int, nudge: int = 0) -> dict:
    return {"connector.class": "IdleSourceConnector", "tasks.max": "1", "revision": str(i),
            "nudge": str(nudge), "padding": "p" * 200}


def config_topic_records(bootstrap: str, topic: str):
    recs, high = read_all(bootstrap, topic, timeout=20)
    return [(k, v) for _, k, v in recs], high


def log_bytes(partition_dir: Path) -> int:
    """Bytes in the partition's .log files; the cleaner may delete a
    replaced segment between the listing and its stat."""
    total = 0
    for f in partition_dir.glob("*.log"):
        try:
            total += f.stat().st_size
        except FileNotFoundError:
            pass
    return total


def test_connect_config_topic_stays_bounded(connect_classpath, tmp_path):
    broker = SkiffBroker(skiff_binary(), tmp_path / "data", tmp_path, {"log.cleaner.backoff.ms": "200"})
    broker.start()
    suffix = uuid.uuid4().hex[:6]
    topic = f"connect-configs-{suffix}"
    worker = None
    try:
        port = free_port()
        props = worker_props(tmp_path / "worker.properties", broker.bootstrap, port, suffix)
        worker = Worker(connect_classpath, props, tmp_path / "connect-1.log", port)
        worker.call("GET", "/connectors", wait_s=90)
        # A connector created and deleted: its config ends as a tombstone.
        worker.call("PUT", "/connectors/gone/config", connector_config(0))
        worker.call("DELETE", "/connectors/gone")
        t0 = time.monotonic()
        for i in range(1, UPDATES + 1):
            worker.call("PUT", "/connectors/busy/config", connector_config(i))
        elapsed = time.monotonic() - t0
        last = connector_config(UPDATES)
        assert worker.call("GET", "/connectors/busy/config") == dict(last, name="busy")

        # Bounded: what a reader from offset 0 sees is a small fraction of
        # what was written (every update writes the connector's config, its
        # task's config and a commit record); none of it is the deleted one's.
        deadline, recs, high, nudge = time.monotonic() + 60, [], 0, 0
        while time.monotonic() < deadline:
            recs, high = config_topic_records(broker.bootstrap, topic)
            if len(recs) <= 60 and not any(k == b"connector-gone" for k, _ in recs):
                break
            # As in Kafka, a cleaning pass runs when there is dirty data: one more update.
            nudge += 1
            last = connector_config(UPDATES, nudge)
            worker.call("PUT", "/connectors/busy/config", last)
            time.sleep(1)
        keys = sorted({k for k, _ in recs})
        assert high >= 2 * UPDATES, f"only {high} records written for {UPDATES} updates"
        assert len(recs) <= 60, f"config topic not bounded: {len(recs)} of {high} records readable, keys {keys}"
        assert b"connector-gone" not in keys, f"the deleted connector's tombstone never expired: {keys}"
        sizes = log_bytes(tmp_path / "data" / f"{topic}-0")
        print(f"{UPDATES} updates in {elapsed:.1f}s; {high} records written, {len(recs)} readable, "
              f"{sizes} bytes of .log")

        # A new worker against the same broker reads the latest configs back.
        worker.stop()
        worker = Worker(connect_classpath, props, tmp_path / "connect-2.log", port)
        assert worker.call("GET", "/connectors/busy/config", wait_s=90) == dict(last, name="busy")
        assert worker.call("GET", "/connectors") == ["busy"]
        worker.call("GET", "/connectors/gone/config", ok=(404,))
    finally:
        if worker:
            worker.stop()
        broker.stop()
