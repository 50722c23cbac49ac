"""The Java side of the transaction scenarios (java_txn/): the TxnDriver
program (drivers/java/TxnDriver.java, one JSON request per run, like the
other drivers), long-lived Java processes the tests SIGKILL (a producer that
dies mid-transaction, the exactly-once Streams word count), and the parsing
of kafka-transactions' tables. Every wait is bounded."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from .clients import CACHE, DriverError, Java


class TxnDriver(Java):
    """CompatDriver's JVM settings and classpath, main class TxnDriver."""

    def command(self):
        cmd = super().command()
        assert cmd[-1] == "CompatDriver"
        return cmd[:-1] + ["TxnDriver"]


def driver() -> TxnDriver:
    return TxnDriver()


class JavaProcess:
    """A Java program in the background, its stdout+stderr in a file; wait_for
    polls that file for a line. Always killed (SIGKILL) by kill() or on exit
    of the `with` block."""

    def __init__(self, cmd: list[str], log: Path):
        self.log = Path(log)
        self.out = open(self.log, "wb")
        self.proc = subprocess.Popen(cmd, stdout=self.out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     start_new_session=True)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def tail(self, n: int = 40) -> str:
        return "\n".join(self.text().splitlines()[-n:])

    def wait_for(self, pred, timeout: float, what: str) -> str:
        """Waits until pred(output) is true; fails when the process exits or time is up."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            t = self.text()
            if pred(t):
                return t
            if self.proc.poll() is not None:
                raise DriverError(f"{what}: the process exited {self.proc.returncode} first\n{self.tail()}")
            time.sleep(0.05)
        raise DriverError(f"{what}: not within {timeout}s\n{self.tail()}")

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        self.out.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()


def hung_producer(bootstrap: str, topic: str, txn_id: str, log: Path, timeout: float = 60) -> JavaProcess:
    """TxnDriver's `hang` op: returns once the transaction is open (the
    caller SIGKILLs it; it gives up by itself after `timeout`)."""
    req = Path(tempfile.mkstemp(prefix="txn-hang-", suffix=".json")[1])
    req.write_text(json.dumps({"op": "hang", "bootstrap": bootstrap, "topic": topic, "txn_id": txn_id,
                               "transaction_timeout_ms": 300000, "timeout_ms": int(timeout * 1000)}))
    p = JavaProcess(driver().command() + [str(req)], log)
    try:
        p.wait_for(lambda t: '{"open":true}' in t, timeout + 20, "the hanging transaction")
    except BaseException:
        p.kill()
        raise
    finally:
        req.unlink()  # read at the JVM's start
    return p


def streams_app(bootstrap: str, app_id: str, inp: str, out: str, state: Path, log: Path,
                sleep_ms: int = 0) -> JavaProcess:
    cp = (CACHE / "java-streams" / "classpath").read_text().strip()
    cmd = ["java", "-Xmx512m", "-XX:+UseSerialGC", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
           "-cp", cp, "WordCountEos", bootstrap, app_id, inp, out, str(state), str(sleep_ms)]
    return JavaProcess(cmd, log)


def table(out: str) -> list[dict[str, str]]:
    """kafka-transactions' tab-separated table (header row first) as dicts."""
    lines = [ln for ln in out.splitlines() if "\t" in ln]
    if not lines:
        return []
    head = [h.strip() for h in lines[0].split("\t")]
    return [dict(zip(head, (c.strip() for c in ln.split("\t")))) for ln in lines[1:]]


def streams_groups_app(bootstrap: str, log: Path, **kw) -> JavaProcess:
    """drivers/java/streams/StreamsGroupsApp.java's `run` (java_streams/,
    bench/streams_groups.py): the word count with a repartition and the
    store "counts"; kw are its key=value arguments (app_id, input, output,
    state_dir, protocol, guarantee, standbys, app_server, ...). Prints one
    JSON line per event; events() parses them."""
    cp = (CACHE / "java-streams" / "classpath").read_text().strip()
    cmd = ["java", "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
           "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", cp, "StreamsGroupsApp", "run",
           f"bootstrap={bootstrap}"] + [f"{k}={v}" for k, v in kw.items()]
    return JavaProcess(cmd, log)


def streams_describe(bootstrap: str, group: str, timeout: float = 60) -> dict:
    """StreamsGroupsApp's `describe`: Admin.describeStreamsGroups as a dict."""
    cp = (CACHE / "java-streams" / "classpath").read_text().strip()
    cmd = ["java", "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=error", "-cp", cp,
           "StreamsGroupsApp", "describe", f"bootstrap={bootstrap}", f"group={group}"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise DriverError(f"StreamsGroupsApp describe: no answer (exit {p.returncode})\n{p.stderr[-2000:]}")
    return json.loads(lines[-1])


def events(text: str, ev: str | None = None) -> list[dict]:
    """The JSON event lines of a StreamsGroupsApp log (of kind ev if given)."""
    out = []
    for ln in text.splitlines():
        if ln.startswith('{"t":'):
            try:
                e = json.loads(ln)
            except ValueError:
                continue  # a line cut by a SIGKILL
            if ev is None or e.get("ev") == ev:
                out.append(e)
    return out
