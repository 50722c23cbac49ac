"""Real S3-compatible servers for the S3 client's tests (issue 54), on free
loopback ports with known credentials, each on a temp dir of its own:

  versitygw  its POSIX backend (the main one; starts in well under a second)
  seaweedfs  `weed mini` (master, volume, filer and S3 gateway in one process),
             the second dialect

Installed by `scripts/install-test-clients.sh s3` into the compat cache
(s3/versitygw and s3/weed-venv/bin/weed). S3Server.start() waits until the server
answers S3 (an unsigned request gets an S3 error answer), stop() ends it,
start() again restarts it on the same data and port."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))
from free_port import free_port  # noqa: E402

ACCESS_KEY = "skifftestkey"
SECRET_KEY = "skiff/test+secret=key"
REGION = "us-east-1"
SERVERS = ("versitygw", "seaweedfs")


def compat_cache() -> Path:
    root = os.environ.get("SKIFF_CACHE_DIR", str(Path.home() / ".cache" / "skiff"))
    return Path(os.environ.get("SKIFF_COMPAT_CACHE", str(Path(root) / "compat")))


def binary(kind: str) -> str | None:
    """The server's binary, or None when it is not installed."""
    cache = compat_cache()
    path = cache / "s3" / "versitygw" if kind == "versitygw" else cache / "s3" / "weed-venv" / "bin" / "weed"
    if path.is_file() and os.access(path, os.X_OK):
        return str(path)
    return shutil.which("versitygw" if kind == "versitygw" else "weed")


class S3Server:
    def __init__(self, kind: str, work: Path, tls: tuple[Path, Path] | None = None,
                 virtual_domain: str | None = None):
        """tls: (certificate chain, key) PEM files: serve HTTPS (versitygw only).
        virtual_domain: also serve virtual-hosted-style requests, bucket.DOMAIN (versitygw only)."""
        if kind not in SERVERS or ((tls or virtual_domain) and kind != "versitygw"):
            raise ValueError(kind)
        self.kind = kind
        self.work = Path(work)
        self.data = self.work / "data"
        self.data.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.extra_ports = [free_port() for _ in range(9)] if kind == "seaweedfs" else []
        self.tls = tls
        self.virtual_domain = virtual_domain
        self.proc: subprocess.Popen | None = None
        self.log_path = self.work / f"{kind}.log"
        self.start_timeout = 20.0 if kind == "versitygw" else 60.0

    @property
    def endpoint(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    def _args(self, exe: str) -> list[str]:
        if self.kind == "versitygw":
            # --keep-alive: versitygw answers every request with "Connection:
            # close" unless told otherwise (SeaweedFS keeps connections open).
            return [exe, "--port", f"127.0.0.1:{self.port}", "--access", ACCESS_KEY, "--secret", SECRET_KEY,
                    "--region", REGION, "--keep-alive",
                    *(["--cert", str(self.tls[0]), "--key", str(self.tls[1])] if self.tls else []),
                    *(["--virtual-domain", self.virtual_domain] if self.virtual_domain else []),
                    "posix", str(self.data)]
        config = self.work / "s3.json"
        config.write_text(json.dumps({"identities": [{
            "name": "skiff", "credentials": [{"accessKey": ACCESS_KEY, "secretKey": SECRET_KEY}],
            "actions": ["Admin", "Read", "List", "Tagging", "Write"]}]}))
        p = self.extra_ports
        return [exe, "mini", f"-dir={self.data}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                f"-s3.port={self.port}", f"-s3.port.grpc={p[0]}", f"-s3.config={config}",
                f"-master.port={p[1]}", f"-master.port.grpc={p[2]}",
                f"-volume.port={p[3]}", f"-volume.port.grpc={p[4]}",
                f"-filer.port={p[5]}", f"-filer.port.grpc={p[6]}",
                f"-admin.port={p[7]}", f"-admin.port.grpc={p[8]}", "-admin.ui=false", "-webdav=false",
                # Its Iceberg catalog and Lance namespace servers listen on fixed
                # ports (8181, 9101) unless turned off: two servers at once (two
                # ctest runs) clashed there.
                "-s3.port.iceberg=0", "-s3.port.lance=0",
                "-master.volumeSizeLimitMB=64"]

    def start(self) -> "S3Server":
        exe = binary(self.kind)
        if exe is None:
            raise FileNotFoundError(f"{self.kind} is not installed: scripts/install-test-clients.sh s3")
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(self._args(exe), stdout=log, stderr=subprocess.STDOUT, cwd=self.work,
                                     start_new_session=True)
        log.close()
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.kind} exited with {self.proc.returncode}: {self.tail()}")
            if self._answers():
                return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"{self.kind} did not answer on {self.endpoint} in {self.start_timeout} s: {self.tail()}")

    def _answers(self) -> bool:
        """An unsigned ListBuckets gets an S3 answer (403 with an XML error) once the gateway is up."""
        if self.tls:  # the handshake is what the tests check: here only that it listens
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return True
            except OSError:
                return False
        try:
            urllib.request.urlopen(self.endpoint + "/", timeout=1).read()
            return True
        except urllib.error.HTTPError as e:
            return e.code in (400, 403)
        except OSError:
            return False

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self.proc = None

    def tail(self, n: int = 2000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-n:]
        except OSError:
            return ""


def run_json_cli(cmd: list, ok: bool = True, timeout: float = 120) -> dict:
    """Runs one of the JSON-lines tools (tools/s3_cli, tools/rsm_cli) and
    returns its answer: the last line, with every line under "lines" when
    there are several. ok: exit 0 without "error"; else exit 3 with one."""
    name = Path(str(cmd[0])).name
    p = subprocess.run([str(a) for a in cmd], capture_output=True, text=True, timeout=timeout)
    lines = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]
    assert lines, f"{name} {cmd[1:]}: no output (rc {p.returncode}): {p.stderr}"
    out = lines[-1] if len(lines) == 1 else {"lines": lines, **lines[-1]}
    if ok:
        assert p.returncode == 0 and "error" not in out, f"{name} {cmd[1:]}: {out} {p.stderr}"
    else:
        assert p.returncode == 3 and "error" in out, f"{name} {cmd[1:]} should fail: {out}"
    return out


def serving(kind: str, work: Path, tool: str, make_bucket):
    """A test module's server fixture body (a generator): skips when the
    server or the tool (a built target) is missing, starts the server on
    `work`, makes the bucket with make_bucket(server), yields the server and
    stops it."""
    import pytest  # noqa: PLC0415 - the harness imports pytest only where fixtures need it
    if binary(kind) is None:
        pytest.skip(f"{kind} not installed: scripts/install-test-clients.sh s3")
    if not Path(tool).is_file():
        pytest.skip(f"no {Path(tool).name} at {tool}: build the {Path(tool).name} target")
    srv = S3Server(kind, work).start()
    try:
        make_bucket(srv)
        yield srv
    finally:
        srv.stop()


def tiered_broker_overrides(server: S3Server, bucket: str, prefix: str, attempt_timeout_ms: int = 5000,
                            **extra: str) -> dict:
    """A Skiff broker with tiered storage on `server` (Aiven's rsm.config.
    keys, as a Kafka user writes them), fast ticks for tests and benchmarks:
    one partition per topic, 200 ms copy/expiry and retention checks."""
    o = {
        "num.partitions": "1",
        "remote.log.storage.system.enable": "true",
        "remote.log.storage.manager.class.name": "io.aiven.kafka.tieredstorage.RemoteStorageManager",
        "rsm.config.storage.backend.class": "io.aiven.kafka.tieredstorage.storage.s3.S3Storage",
        "rsm.config.storage.s3.endpoint.url": server.endpoint,
        "rsm.config.storage.s3.bucket.name": bucket,
        "rsm.config.storage.s3.region": REGION,
        "rsm.config.storage.s3.path.style.access.enabled": "true",
        "rsm.config.storage.aws.access.key.id": ACCESS_KEY,
        "rsm.config.storage.aws.secret.access.key": SECRET_KEY,
        "rsm.config.storage.s3.api.call.attempt.timeout": str(attempt_timeout_ms),
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
