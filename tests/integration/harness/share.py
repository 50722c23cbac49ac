"""Share groups (KIP-932) for test_share_groups.py: the broker the scenarios
share, the three share-consumer drivers as background processes, and Kafka's
share-group tools.

The broker: Skiff by default (skipped, with the reason, while its ApiVersions
lacks ShareGroupHeartbeat), or Apache Kafka 4.4 through
scripts/kafka-broker.sh when SKIFF_SHARE_BROKER=kafka, both with
SHARE_OVERRIDES (short member timeouts, a 1 s floor for the per-group lock
duration). SKIFF_COMPAT_EXTERNAL_BROKER still means "use that running broker"
(it must carry the same overrides; the restart scenario is then skipped).

The drivers (drivers/java/ShareDriver.java, drivers/python/share_consumer.py,
drivers/go/share.go) share one contract: key=value arguments, one JSON line
per event on stdout (`rec` with t/p/o/dc/v/ack, `ack_result`, `commit`,
`holding`, `late_commit`, `closed`), bounded by timeout_ms. A Consumer runs
one in the background with its output in a file, so a test reads what it
got while it runs, after it exits and after a SIGKILL."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from .broker import KafkaScriptBroker, SkiffBroker, external_from_env
from .clients import CACHE, java_classpath
from .wire import api_versions

REPO = Path(__file__).resolve().parents[3]
IT = REPO / "tests" / "integration"
SHARE_GROUP_HEARTBEAT = 76
SHARE_CLIENTS = ("java", "confluent_kafka", "franz_go")
# Both brokers get these. Kafka's group-level share.record.lock.duration.ms
# must lie in [group.share.min.record.lock.duration.ms (15000 by default),
# group.share.max.record.lock.duration.ms]: the floor is lowered to 1000 (its
# own minimum) so a scenario can set a 2-3 s lock on its group. Members of a
# killed consumer go after 10 s (the session floor lowered from 45 s).
SHARE_OVERRIDES = {
    "num.partitions": "3",
    "message.max.bytes": "3145728",
    "group.share.min.record.lock.duration.ms": "1000",
    "group.share.min.session.timeout.ms": "6000",
    "group.share.session.timeout.ms": "10000",
    "group.share.min.heartbeat.interval.ms": "1000",
    "group.share.heartbeat.interval.ms": "1000",
}
# Skiff is started without the share keys first, so an older Skiff that does
# not know them still reaches the ApiVersions check (and is skipped there).
BASE_OVERRIDES = {"num.partitions": "3", "message.max.bytes": "3145728"}


def want_kafka() -> bool:
    return os.environ.get("SKIFF_SHARE_BROKER", "").lower() == "kafka"


def skiff_binary() -> str:
    b = os.environ.get("SKIFF_BINARY") or str(REPO / "build" / "skiff")
    if not os.access(b, os.X_OK):
        pytest.fail(f"skiff binary not found at {b} (set SKIFF_BINARY)")
    return b


def require_share_groups(bootstrap: str, what: str) -> None:
    """Skips the test unless the broker advertises ShareGroupHeartbeat (76)."""
    if SHARE_GROUP_HEARTBEAT not in api_versions(bootstrap):
        pytest.skip(f"{what} does not advertise ShareGroupHeartbeat (API key 76) in ApiVersions: "
                    f"share groups (KIP-932, issue 50) not served yet")


def start_broker(tmp: Path, kind: str | None = None):
    """A broker of the caller's own (stop() it): Kafka 4.4 or Skiff with
    SHARE_OVERRIDES. Skiff without share groups: pytest.skip."""
    if (kind or ("kafka" if want_kafka() else "skiff")) == "kafka":
        b = KafkaScriptBroker(REPO / "scripts" / "kafka-broker.sh", tmp / "kafka", SHARE_OVERRIDES)
        b.start()
        return b
    probe = SkiffBroker(skiff_binary(), tmp / "data", tmp, BASE_OVERRIDES)
    probe.start()
    try:
        require_share_groups(probe.bootstrap, "skiff")
    finally:
        probe.stop()
    b = SkiffBroker(skiff_binary(), tmp / "data", tmp, SHARE_OVERRIDES)
    b.start()
    return b


def gid(prefix: str = "sg") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


# ------------------------------------------------------------------ drivers
def java_cmd(*args: str) -> list[str]:
    jsa = CACHE / "java" / "app.jsa"
    cds = [f"-XX:SharedArchiveFile={jsa}", "-Xlog:disable", "-Xlog:all=error:stderr"] if jsa.exists() else []
    return ["java", *cds, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto", "-Xmx256m",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", java_classpath(), "ShareDriver", *args]


def consumer_cmd(client: str, args: list[str]) -> list[str]:
    if client == "java":
        return java_cmd("consume", *args)
    if client == "confluent_kafka":
        return [sys.executable, str(IT / "drivers" / "python" / "share_consumer.py"), *args]
    if client == "franz_go":
        return [str(CACHE / "go" / "franz-go-driver"), "share", *args]
    raise ValueError(f"no share consumer driver for {client}")


def parse_lines(text: str) -> list[dict]:
    out = []
    for ln in text.splitlines():
        ln = ln.strip()
        if ln.startswith("{"):
            try:
                out.append(json.loads(ln))
            except json.JSONDecodeError:
                pass  # a line cut by SIGKILL
    return out


def java_op(op: str, timeout: float = 60, **kw) -> dict:
    """One ShareDriver admin/producer step (create-topic, group-config,
    produce, txn): its last JSON event; raises on a driver error."""
    args = [f"{k}={v}" for k, v in kw.items()] + [f"timeout_ms={int(timeout * 1000)}"]
    p = subprocess.run(java_cmd(op, *args), capture_output=True, text=True, timeout=timeout + 30,
                       stdin=subprocess.DEVNULL)
    evs = parse_lines(p.stdout)
    if p.returncode != 0 or not evs or evs[-1].get("ev") == "error":
        raise AssertionError(f"ShareDriver {op} {args} exited {p.returncode}: {p.stdout[-2000:]}\n{p.stderr[-3000:]}")
    return evs[-1]


def setup_topic(bootstrap: str, topic: str, partitions: int, group: str | None = None, **configs) -> None:
    """Creates the topic and sets the group's configs: share.auto.offset.reset
    earliest (Kafka's default, latest, would skip what is produced before the
    first member joins) plus `configs` (dots as underscores)."""
    java_op("create-topic", bootstrap=bootstrap, topic=topic, partitions=partitions)
    if group:
        set_group_configs(bootstrap, group, **{"share.auto.offset.reset": "earliest"}, **configs)


def set_group_configs(bootstrap: str, group: str, **configs) -> dict:
    kv = ";".join(f"{k.replace('_', '.') if '.' not in k else k}={v}" for k, v in configs.items())
    return java_op("group-config", bootstrap=bootstrap, group=group, set=kv)


def produce(bootstrap: str, topic: str, count: int, partitions: int = 1, first: int = 0, prefix: str = "v") -> list:
    ev = java_op("produce", bootstrap=bootstrap, topic=topic, count=count, partitions=partitions, first=first,
                 prefix=prefix)
    assert ev.get("n") == count, ev
    return ev["records"]


class Consumer:
    """A share-consumer driver in the background; always killed at exit of
    the `with` block or by kill9()."""

    def __init__(self, client: str, bootstrap: str, group: str, topics: str, log: Path, timeout: float = 90,
                 **kw):
        self.client = client
        self.log = Path(log)
        args = [f"bootstrap={bootstrap}", f"group={group}", f"topics={topics}",
                f"timeout_ms={int(timeout * 1000)}"] + [f"{k}={v}" for k, v in kw.items()]
        self.cmd = consumer_cmd(client, args)
        self.err = open(self.log.with_suffix(".err"), "wb")
        self.out = open(self.log, "wb")
        self.proc = subprocess.Popen(self.cmd, stdout=self.out, stderr=self.err, stdin=subprocess.DEVNULL,
                                     start_new_session=True)

    def events(self) -> list[dict]:
        return parse_lines(self.log.read_text(errors="replace"))

    def recs(self) -> list[dict]:
        return [e for e in self.events() if e.get("ev") == "rec"]

    def of(self, ev: str) -> list[dict]:
        return [e for e in self.events() if e.get("ev") == ev]

    def tail(self, n: int = 30) -> str:
        err = self.log.with_suffix(".err").read_text(errors="replace").splitlines()
        return (f"--- {self.client} stdout ---\n" + "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])
                + f"\n--- stderr ---\n" + "\n".join(err[-n:]))

    def wait_for(self, pred, timeout: float, what: str):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            evs = self.events()
            if pred(evs):
                return evs
            if self.proc.poll() is not None:
                evs = self.events()
                if pred(evs):
                    return evs
                raise AssertionError(f"{what}: the {self.client} consumer exited {self.proc.returncode} first\n"
                                     f"{self.tail()}")
            time.sleep(0.1)
        raise AssertionError(f"{what}: not within {timeout}s\n{self.tail()}")

    def wait_exit(self, timeout: float) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill9()
            raise AssertionError(f"the {self.client} consumer did not finish within {timeout}s\n{self.tail()}")

    def kill9(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        self.out.close()
        self.err.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill9()


def quiet_for(consumers: list[Consumer], seconds: float) -> None:
    """Waits until none of `consumers` has received a record for `seconds`."""
    last = sum(len(c.recs()) for c in consumers)
    since = time.monotonic()
    while time.monotonic() - since < seconds:
        time.sleep(0.2)
        n = sum(len(c.recs()) for c in consumers)
        if n != last:
            last, since = n, time.monotonic()


# -------------------------------------------------------------------- tools
SHARE_GROUPS = "org.apache.kafka.tools.consumer.group.ShareGroupCommand"
CONSOLE_SHARE = "org.apache.kafka.tools.consumer.ConsoleShareConsumer"
VERIFIABLE_SHARE = "org.apache.kafka.tools.VerifiableShareConsumer"
SHARE_PERF = "org.apache.kafka.tools.ShareConsumerPerformance"


def kafka_jars() -> Path:
    d = os.environ.get("SKIFF_KAFKA_JARS")
    if d:
        return Path(d)
    out = subprocess.run([str(REPO / "scripts" / "fetch_kafka_jars.sh")], capture_output=True, text=True,
                         timeout=600)
    if out.returncode != 0:
        pytest.skip(f"Kafka's jars are not available: {out.stderr.strip()[-300:]}")
    return Path(out.stdout.strip().splitlines()[-1])


def tool(cls: str, *args: str, timeout: float = 90, check: bool = True) -> tuple[int, str, str]:
    """Runs one of Kafka 4.4's tools: (exit code, stdout without the
    client's log lines, stderr)."""
    cmd = ["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-Xmx256m", "-cp", f"{kafka_jars()}/*",
           "-Dlog4j2.level=warn", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", cls, *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    out = "\n".join(ln for ln in p.stdout.splitlines()
                    if not ln.startswith(("\t", "[")) and " INFO " not in ln and " WARN " not in ln)
    if check and p.returncode != 0:
        raise AssertionError(f"{cls} {' '.join(args)} exited {p.returncode}\nstdout: {out[-2000:]}\n"
                             f"stderr: {p.stderr[-2000:]}")
    return p.returncode, out, p.stderr


def finalized_feature(bootstrap: str, name: str) -> int:
    """The broker's finalized level of feature `name` (kafka-features
    describe); 0 when it is not finalized."""
    _, out, _ = tool("org.apache.kafka.tools.FeatureCommand", "--bootstrap-server", bootstrap, "describe")
    m = re.search(rf"Feature:\s*{re.escape(name)}\s.*?FinalizedVersionLevel:\s*(\d+)", out)
    return int(m.group(1)) if m else 0


def table(out: str, first: str = "GROUP") -> list[dict[str, str]]:
    """kafka-share-groups' space-aligned table(s) as dicts; a header line
    starts with `first`. Several tables (one per group) concatenate."""
    rows, head = [], None
    for ln in out.splitlines():
        cells = ln.split()
        if not cells:
            continue
        if cells[0] == first:
            head = cells
            continue
        if head:
            rows.append(dict(zip(head, cells)))
    return rows
