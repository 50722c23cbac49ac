"""The broker under test: the real skiff binary on a free port with a fresh
data dir, or an already running broker (SKIFF_COMPAT_EXTERNAL_BROKER)."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

# The one free-port picker (scripts/free_port.py): never the same port twice.
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))
from free_port import free_port  # noqa: E402

STARTED = re.compile(r"started in [0-9.]+ ms .*?advertised as (\S+?):(\d+)")
BOUND = re.compile(r"(\w+) on 127\.0\.0\.1:(\d+) advertised as")
HTTP_ON = re.compile(r"HTTP on (\S+?):(\d+)")
REGISTRY_ON = re.compile(r"schema registry on (https://)?(\S+?):(\d+)")
REST_PROXY_ON = re.compile(r"REST proxy on (https://)?(\S+?):(\d+)")


class BrokerError(AssertionError):
    pass


class SkiffBroker:
    """One skiff process at a time on `data_dir`; start() again after stop()
    or kill9() restarts it on the same data (on a new free port)."""

    def __init__(self, binary: str, data_dir: Path, log_dir: Path, overrides: dict[str, str]):
        self.binary = binary
        self.data_dir = Path(data_dir)
        self.log_dir = Path(log_dir)
        self.overrides = dict(overrides)
        self.proc: subprocess.Popen | None = None
        self.log_path: Path | None = None
        self.bootstrap: str | None = None
        self.starts = 0
        self.log_dirs = [self.data_dir]
        self.external = False
        # On a free port, so tests never depend on 8095; None: the default
        # http.listeners (an override in `overrides` wins either way).
        self.http_listeners: str | None = "http://127.0.0.1:0"
        # Off unless a test asks for it (a free port: "http://127.0.0.1:0"),
        # so that no test depends on 8081 nor sees a `_schemas` it did not make.
        self.schema_registry_listeners: str = ""
        # The REST proxy likewise (8082 by default): off unless a test asks.
        self.rest_proxy_listeners: str = ""

    def args(self) -> list[str]:
        args = [self.binary,
                "--override", "listeners=PLAINTEXT://127.0.0.1:0",
                "--override", f"log.dirs={self.data_dir}"]
        if self.http_listeners is not None:
            args += ["--override", f"http.listeners={self.http_listeners}"]
        args += ["--override", f"schema.registry.listeners={self.schema_registry_listeners}"]
        args += ["--override", f"rest.proxy.listeners={self.rest_proxy_listeners}"]
        for k, v in self.overrides.items():
            args += ["--override", f"{k}={v}"]
        return args

    def schema_registry_url(self) -> str | None:
        """The Schema Registry's base URL, from the broker's "schema registry
        on HOST:PORT" startup line ("on https://HOST:PORT" for an https://
        endpoint: the URL is https:// then); None when it is off."""
        m = REGISTRY_ON.search(self.log_path.read_text(errors="replace")) if self.log_path else None
        return f"{m.group(1) or 'http://'}{m.group(2)}:{m.group(3)}" if m else None

    def rest_proxy_url(self) -> str | None:
        """The REST proxy's base URL, from the broker's "REST proxy on
        HOST:PORT" startup line; None when it is off."""
        m = REST_PROXY_ON.search(self.log_path.read_text(errors="replace")) if self.log_path else None
        return f"{m.group(1) or 'http://'}{m.group(2)}:{m.group(3)}" if m else None

    def http_port(self) -> int | None:
        """The HTTP listener's port, from the broker's "HTTP on HOST:PORT"
        startup line; None when HTTP is off."""
        m = HTTP_ON.search(self.log_path.read_text(errors="replace")) if self.log_path else None
        return int(m.group(2)) if m else None

    def log_tail(self, n: int = 40) -> str:
        if not self.log_path or not self.log_path.exists():
            return "(no broker output)"
        lines = self.log_path.read_text(errors="replace").splitlines()
        return f"--- last {min(n, len(lines))} lines of {self.log_path} ---\n" + "\n".join(lines[-n:])

    def listener_ports(self) -> dict[str, int]:
        """The port each listener bound, by listener name, from the startup line."""
        return {name: int(port) for name, port in BOUND.findall(self.log_path.read_text(errors="replace"))}

    def log_wait(self, pattern: str, timeout: float = 10.0) -> str:
        """The first match of the regular expression `pattern` in this run's
        log, waiting up to `timeout` seconds for it to appear."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = re.search(pattern, self.log_path.read_text(errors="replace"))
            if m:
                return m.group(0)
            time.sleep(0.05)
        raise AssertionError(f"no log line matching {pattern!r}\n{self.log_tail()}")

    def start(self, timeout: float = 20.0) -> str:
        assert self.proc is None, "broker already running"
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.starts += 1
        self.log_path = self.log_dir / f"skiff-{self.starts}.log"
        # Output goes to a file, never a pipe nobody reads.
        # skiff reads SKIFF_<KEY> variables as configuration (and rejects
        # unknown ones, like our SKIFF_BINARY): the overrides are the config.
        env = {k: v for k, v in os.environ.items() if not k.startswith("SKIFF_")}
        with open(self.log_path, "wb") as out:
            self.proc = subprocess.Popen(self.args(), stdout=out, stderr=subprocess.STDOUT, env=env,
                                         stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = STARTED.search(self.log_path.read_text(errors="replace"))
            if m:
                self.bootstrap = f"{m.group(1)}:{m.group(2)}"
                return self.bootstrap
            if self.proc.poll() is not None:
                rc = self.proc.returncode
                self.proc = None
                raise BrokerError(f"skiff exited with {rc} during startup\n{self.log_tail()}")
            time.sleep(0.02)
        self.kill9()
        raise BrokerError(f"skiff did not print its startup line within {timeout}s\n{self.log_tail()}")

    def stop(self, timeout: float = 20.0) -> int:
        """SIGTERM; the broker must exit 0 within `timeout`."""
        if self.proc is None:
            return 0
        proc, self.proc = self.proc, None
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
            raise BrokerError(f"skiff did not exit within {timeout}s of SIGTERM (killed)\n{self.log_tail()}")
        if rc != 0:
            raise BrokerError(f"skiff exited with {rc} after SIGTERM, expected 0\n{self.log_tail()}")
        return rc

    def kill9(self) -> None:
        if self.proc is None:
            return
        proc, self.proc = self.proc, None
        proc.kill()
        proc.wait(10)

    def restart(self) -> str:
        self.stop()
        return self.start()


class ExternalBroker:
    """A broker someone else runs: no restarts, maybe a known log dir."""

    external = True

    def __init__(self, bootstrap: str, log_dirs: list[Path]):
        self.bootstrap = bootstrap
        self.log_dirs = log_dirs
        self.log_path = None

    def log_tail(self, n: int = 40) -> str:
        return f"(external broker at {self.bootstrap})"

    def stop(self, timeout: float = 20.0) -> int:
        return 0


def external_from_env() -> ExternalBroker | None:
    ext = os.environ.get("SKIFF_COMPAT_EXTERNAL_BROKER")
    if not ext:
        return None
    dirs = [Path(d) for d in os.environ.get("SKIFF_COMPAT_EXTERNAL_LOG_DIRS", "").split(",") if d]
    return ExternalBroker(ext, dirs)


class KafkaScriptBroker:
    """Apache Kafka itself via scripts/kafka-broker.sh, as the restartable
    broker of the restart scenarios (SKIFF_COMPAT_OWN_BROKER=kafka): proves
    those scenarios against the real thing. Kafka's own exit code after
    SIGTERM is not checked (the JVM exits 143)."""

    external = False

    def __init__(self, script: Path, dir: Path, overrides: dict[str, str]):
        self.script = str(script)
        self.dir = Path(dir)
        self.overrides = overrides
        self.log_dirs = [self.dir / "data"]
        self.log_path = self.dir / "kafka.log"
        self.bootstrap = None
        self.running = False

    def log_tail(self, n: int = 40) -> str:
        if not self.log_path.exists():
            return "(no Kafka output)"
        lines = self.log_path.read_text(errors="replace").splitlines()
        return f"--- last {min(n, len(lines))} lines of {self.log_path} ---\n" + "\n".join(lines[-n:])

    def start(self, timeout: float = 120.0) -> str:
        port = free_port()
        args = [self.script, "start", str(self.dir), str(port)] + [f"{k}={v}" for k, v in self.overrides.items()]
        p = subprocess.run(args, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
        if p.returncode != 0:
            raise BrokerError(f"kafka-broker.sh start failed: {p.stderr.decode(errors='replace')}")
        self.bootstrap = p.stdout.decode().strip().splitlines()[-1]
        self.running = True
        return self.bootstrap

    def stop(self, timeout: float = 90.0) -> int:
        if self.running:
            subprocess.run([self.script, "stop", str(self.dir)], timeout=timeout, stdin=subprocess.DEVNULL)
            self.running = False
        return 0

    def kill9(self) -> None:
        pidfile = self.dir / "kafka.pid"
        if self.running and pidfile.exists():
            pid = int(pidfile.read_text())
            os.kill(pid, signal.SIGKILL)
            for _ in range(100):
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
            pidfile.unlink(missing_ok=True)
        self.running = False
