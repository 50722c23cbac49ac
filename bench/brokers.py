"""The one broker launcher of the benchmarks: Skiff, Apache Kafka (4.4 by
default, from Maven Central's jars) and the ceiling (skiff_null_responder),
each in a fresh directory of its own under the run's scratch space, on free
loopback ports, with a readiness wait and a bounded stop; and the readings a
benchmark takes of the broker process (CPU seconds, RSS, peak RSS, context
switches by thread kind).

Where things come from: the build directory is --build-dir, else BUILD_DIR,
else build-bench (configured with -DSKIFF_TEST_AREAS=bench when missing);
`need()` builds the targets a benchmark runs (cmake --build, a no-op when up
to date) unless --no-build. Kafka's jars come from scripts/fetch_kafka_jars.sh
(cached under ~/.cache/skiff, downloaded under a lock so concurrent runs are
safe), Kafka itself is started through scripts/kafka-broker.sh (prepare, then
exec: the process timed and sampled is the JVM), the franz-go driver from
scripts/install-test-clients.sh. Ports come from scripts/free_port.py, the
picker the tests use.

The pytest harness (tests/integration/harness/broker.py) keeps its own
launcher: it restarts a broker on the same data, reads the ports a broker
bound to port 0 from its startup line and asserts exit 0 after SIGTERM,
none of which a benchmark wants; both use free_port.py and kafka-broker.sh.
"""
import collections
import contextlib
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from free_port import free_port  # noqa: E402  (the one picker, shared with the tests)

TICK = os.sysconf("SC_CLK_TCK")
KAFKA_VERSION = os.environ.get("KAFKA_VERSION", "4.4.0")


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# --- what a benchmark needs: the build, Kafka's jars, the Go driver --------

def add_build_args(p, binaries=True, default="build-bench"):
    """--build-dir, --no-build, --kafka-version (and --skiff with `binaries`)."""
    p.add_argument("--build-dir", type=Path, default=Path(os.environ.get("BUILD_DIR", default)),
                   help=f"where skiff and the load drivers are built (default: $BUILD_DIR, else {default})")
    p.add_argument("--no-build", action="store_true", help="run the binaries of --build-dir as they are")
    p.add_argument("--kafka-version", default=KAFKA_VERSION,
                   help="Apache Kafka's version (default $KAFKA_VERSION, else 4.4.0)")
    if binaries:
        p.add_argument("--skiff", type=Path, help="another skiff binary (default: BUILD_DIR/skiff)")


def need(args, *targets, cmake_args=("-DSKIFF_TEST_AREAS=bench",)):
    """Builds `targets` in args.build_dir (configured with `cmake_args` when it
    has no CMakeCache.txt) unless --no-build; sets args.skiff when unset."""
    build = args.build_dir if args.build_dir.is_absolute() else ROOT / args.build_dir
    args.build_dir = build
    if targets and not args.no_build:
        if not (build / "CMakeCache.txt").exists():
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-G", "Ninja", *cmake_args], check=True,
                           stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", str(build), f"-j{os.environ.get('JOBS', os.cpu_count())}", "--target",
                        *targets], check=True, stdout=subprocess.DEVNULL)
    if hasattr(args, "skiff") and args.skiff is None:
        args.skiff = build / "skiff"


def tool(args, name):
    """A load driver of tests/bench in the build directory."""
    return args.build_dir / "tests" / "bench" / name


def kafka_jars(version=KAFKA_VERSION):
    """The directory of Kafka's jars (downloaded once, under fetch_kafka_jars.sh's lock)."""
    out = subprocess.run([str(ROOT / "scripts" / "fetch_kafka_jars.sh"), version], check=True, text=True,
                         stdout=subprocess.PIPE, timeout=1800).stdout
    return Path(out.strip().splitlines()[-1])


def franz_go_driver():
    """The compatibility suite's franz-go driver, built by install-test-clients.sh."""
    out = subprocess.run([str(ROOT / "scripts" / "install-test-clients.sh"), "franz_go"], check=True, text=True,
                         stdout=subprocess.PIPE, timeout=1800).stdout
    return Path(out.strip().splitlines()[-1]) / "go" / "franz-go-driver"


def wait_listening(port, proc=None, timeout=180, interval=0.05):
    """Until something accepts on 127.0.0.1:port (tried every `interval` s);
    raises if `proc` exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"broker exited with {proc.returncode} during startup")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(interval)
    raise RuntimeError(f"nothing listens on {port} after {timeout}s")


# --- the brokers -----------------------------------------------------------

class Broker:
    """One broker process in a fresh directory under `work` (its data, its
    output in broker.out), on a free PLAINTEXT port, plus `listeners`
    ({name: port}, e.g. {"SSL": p}) and `props` (broker settings). start()
    may follow stop() on the same directory (a restart keeps the data)."""
    name = "?"

    def __init__(self, work, listeners=None, props=None):
        self.dir = Path(tempfile.mkdtemp(prefix=f"{self.name}-", dir=work))
        self.port = free_port()
        self.listeners = dict(listeners or {})
        self.props = dict(props or {})
        self.proc = None
        self.output = self.dir / "broker.out"
        self.output_from = 0

    @property
    def bootstrap(self):
        return f"127.0.0.1:{self.port}"

    def prepare(self):
        """Work done before the clock of a timed start runs (Kafka's storage format)."""

    def command(self):
        raise NotImplementedError

    def env(self):
        return dict(os.environ)

    def preexec(self):
        """Run in the child before exec (a resource limit)."""

    def start(self):
        """Starts the process and returns at once (see wait_ready, started)."""
        self.output_from = self.output.stat().st_size if self.output.exists() else 0
        with open(self.output, "ab") as out:
            self.proc = subprocess.Popen(self.command(), stdout=out, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, env=self.env(), start_new_session=True,
                                         preexec_fn=self.preexec)

    def ports(self):
        return [self.port, *self.listeners.values()]

    def wait_ready(self, timeout=180):
        for port in self.ports():
            wait_listening(port, self.proc, timeout)

    def started(self, timeout=180):
        self.prepare()
        self.start()
        self.wait_ready(timeout)
        return self

    def stop(self, timeout=60):
        """SIGTERM, then SIGKILL after `timeout` s; the exit status (None if not running)."""
        if not self.proc or self.proc.poll() is not None:
            return None if not self.proc else self.proc.returncode
        self.proc.terminate()
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            log(f"{self.name}: still running {timeout}s after SIGTERM, killed")
            self.proc.kill()
            return self.proc.wait()

    def remove(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def output_text(self):
        """What this start of the broker has printed so far."""
        with open(self.output, "rb") as f:
            f.seek(self.output_from)
            return f.read().decode(errors="replace")

    def log_tail(self, lines=30):
        if not self.output.exists():
            return f"{self.name}: no output"
        return f"{self.name} output (last lines):\n" + "\n".join(self.output_text().splitlines()[-lines:])

    # /proc readings of the broker process (the JVM itself for Kafka:
    # kafka-broker.sh execs java).
    def cpu_seconds(self):
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK

    def status_kb(self, key):
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
        return 0

    def rss_mb(self):
        return round(self.status_kb("VmRSS") / 1024, 1)

    def reset_peak_rss(self):
        try:
            Path(f"/proc/{self.proc.pid}/clear_refs").write_text("5")
            return True
        except OSError:
            return False

    def context_switches(self):
        """Voluntary and involuntary switches of the process's threads, by
        thread kind (the thread's name without its trailing number: skiff-io,
        skiff-net): Counter {(kind, "vol"|"invol"): n}."""
        by_kind = collections.Counter()
        for task in Path(f"/proc/{self.proc.pid}/task").iterdir():
            try:
                kind = re.sub(r"[-_\d]+$", "", (task / "comm").read_text().strip()) or "?"
                for line in (task / "status").read_text().splitlines():
                    if line.startswith("voluntary_ctxt_switches"):
                        by_kind[(kind, "vol")] += int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches"):
                        by_kind[(kind, "invol")] += int(line.split()[1])
            except OSError:
                pass  # the thread ended meanwhile
        return by_kind


class Skiff(Broker):
    """build/skiff with its defaults apart from the listeners and log.dirs (and
    `props`); an HTTP listener on a free port (http_port: /metrics, the
    console), never the default 8095, so runs side by side do not collide.
    SKIFF_* variables of the caller's environment are not passed on (skiff
    reads them as configuration). `nofile`: RLIMIT_NOFILE of the process."""
    name = "skiff"

    def __init__(self, work, binary, listeners=None, props=None, nofile=None):
        super().__init__(work, listeners, props)
        self.binary = Path(binary)
        self.http_port = free_port()
        self.nofile = nofile

    def command(self):
        listeners = ",".join([f"PLAINTEXT://127.0.0.1:{self.port}",
                              *(f"{n}://127.0.0.1:{p}" for n, p in self.listeners.items())])
        props = {"listeners": listeners, "log.dirs": str(self.dir / "data"),
                 "http.listeners": f"http://127.0.0.1:{self.http_port}",
                 "schema.registry.listeners": "",  # a benchmark that wants it sets it
                 "rest.proxy.listeners": ""}  # likewise
        if self.listeners:
            props["listener.security.protocol.map"] = ",".join(f"{n}:{n}" for n in ("PLAINTEXT", *self.listeners))
        props.update(self.props)
        return [str(self.binary), *(a for k, v in props.items() for a in ("--override", f"{k}={v}"))]

    def env(self):
        return {k: v for k, v in os.environ.items() if not k.startswith("SKIFF_")}

    def preexec(self):
        if self.nofile:
            resource.setrlimit(resource.RLIMIT_NOFILE, (self.nofile, self.nofile))

    def wait_started(self, timeout=600):
        """Until this start's "started in" line (after recovery and every
        listener): raises if the process exits first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if "started in" in self.output_text():
                return
            if self.proc.poll() is not None:
                raise RuntimeError(f"skiff exited with {self.proc.returncode}\n{self.log_tail(5)}")
            time.sleep(0.01)
        raise RuntimeError(f"skiff did not start within {timeout}s")


class Kafka(Broker):
    """Apache Kafka as scripts/kafka-broker.sh runs it: single-node KRaft,
    broker and controller in one JVM, Kafka's shipped server.properties apart
    from listeners and log dirs (and `props`), -Xmx1G -Xms1G.
    `env`: more environment for kafka-broker.sh (KAFKA_ADD_SCRAM)."""
    name = "kafka"

    def __init__(self, work, version=KAFKA_VERSION, listeners=None, props=None, env=None):
        super().__init__(work, listeners, props)
        self.version = version
        self.extra_env = dict(env or {})

    def env(self):
        return {**os.environ, "KAFKA_VERSION": self.version, **self.extra_env}

    def prepare(self):
        # Config and storage format happen before the clock of a timed start runs.
        props = dict(self.props)
        if self.listeners:
            cport = free_port()
            (self.dir / "controller.port").write_text(f"{cport}\n")
            mine = [f"PLAINTEXT://127.0.0.1:{self.port}", *(f"{n}://127.0.0.1:{p}" for n, p in self.listeners.items())]
            props = {"listeners": ",".join([*mine, f"CONTROLLER://127.0.0.1:{cport}"]),
                     "advertised.listeners": ",".join(mine), **props}
        subprocess.run([str(ROOT / "scripts" / "kafka-broker.sh"), "prepare", str(self.dir), str(self.port),
                        *(f"{k}={v}" for k, v in props.items())], check=True, stdout=subprocess.DEVNULL,
                       env=self.env(), timeout=600)

    def command(self):
        return [str(ROOT / "scripts" / "kafka-broker.sh"), "exec", str(self.dir)]

    def cleaner_log(self):
        """Everything Kafka logged (its log-cleaner.log files if it wrote any)."""
        text = "".join(f.read_text(errors="replace") for f in self.dir.rglob("log-cleaner.log*"))
        return text + self.output_text()


class Ceiling(Broker):
    """skiff_null_responder: every produce answered at once, nothing else."""
    name = "ceiling"

    def __init__(self, work, binary):
        super().__init__(work)
        self.binary = binary

    def command(self):
        return [str(self.binary), "--port", str(self.port), "--seconds", "7200"]


@contextlib.contextmanager
def guarded(broker, keep=False):
    """`broker` (which the body starts); on the way out its last output lines
    are logged if the body failed or the broker died, and it is stopped and
    (unless `keep`) removed."""
    try:
        yield broker
        if not broker.alive():
            raise RuntimeError(f"{broker.name} exited during the run")
    except BaseException:
        log(broker.log_tail())
        raise
    finally:
        broker.stop()
        if not keep:
            broker.remove()


@contextlib.contextmanager
def running(broker, keep=False):
    """`broker` started and listening, guarded()."""
    with guarded(broker, keep):
        broker.started()
        yield broker


def measure(broker, fn, records=None):
    """fn() and what it cost: wall time, the broker's CPU seconds (and per
    million records), cores used by the broker and by the clients (reaped
    children), and the broker's peak RSS during fn (VmHWM, reset first
    through clear_refs where permitted, else the RSS after)."""
    peak_reset = broker.reset_peak_rss()
    cpu0 = broker.cpu_seconds()
    t0 = time.monotonic()
    usage0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = fn()
    usage1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.monotonic() - t0
    cpu = broker.cpu_seconds() - cpu0
    client_cpu = (usage1.ru_utime + usage1.ru_stime) - (usage0.ru_utime + usage0.ru_stime)
    result.update({
        "wall_s": round(wall, 3),
        "broker_cpu_s": round(cpu, 3),
        "broker_cores": round(cpu / wall, 2),
        "client_cores": round(client_cpu / wall, 2),
        "broker_peak_rss_mb": round(broker.status_kb("VmHWM" if peak_reset else "VmRSS") / 1024, 1),
    })
    if records:
        result["broker_cpu_s_per_M"] = round(cpu / records * 1e6, 3)
    return result


def scratch(prefix):
    """A scratch directory for a run's brokers (the caller removes it)."""
    return Path(tempfile.mkdtemp(prefix=prefix))


@contextlib.contextmanager
def work_dir(args, prefix):
    """args.work: a scratch directory for the body's brokers, removed after."""
    args.work = scratch(prefix)
    try:
        yield args.work
    finally:
        shutil.rmtree(args.work, ignore_errors=True)


def _interrupted(signum, _frame):
    raise KeyboardInterrupt(f"signal {signum}")


def stop_on_sigterm():
    """SIGTERM (`timeout`, CI) ends the run as Ctrl-C does, so the `finally`
    blocks stop the brokers: they run in sessions of their own and would
    outlive the benchmark otherwise."""
    signal.signal(signal.SIGTERM, _interrupted)


def new(args, name, work, **kw):
    """A Broker of `name` ("skiff", "kafka") as args say (args.skiff, args.kafka_version,
    args.skiff_override: KEY=VALUE settings for Skiff)."""
    if name == "skiff":
        props = dict(kv.split("=", 1) for kv in getattr(args, "skiff_override", None) or [])
        kw["props"] = {**props, **kw.get("props", {})}
        return Skiff(work, args.skiff, **kw)
    if name == "kafka":
        return Kafka(work, args.kafka_version, **kw)
    raise ValueError(f"unknown broker {name!r} (skiff, kafka)")


def make_certs(work):
    """A CA (ca.pem) and a server key and certificate for localhost and
    127.0.0.1 in one PEM file (server.pem, what both brokers' keystores
    take), made with the openssl CLI, valid for a day."""
    def openssl(*args):
        subprocess.run(["openssl", *args], cwd=work, check=True, capture_output=True, timeout=60)
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=bench CA")
    (work / "server.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "server.key",
            "-out", "server.csr", "-subj", "/CN=localhost")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "1",
            "-out", "server.crt", "-extfile", "server.ext")
    (work / "server.pem").write_text((work / "server.key").read_text() + (work / "server.crt").read_text())


def tls_props(name, work):
    """The broker settings of a TLS listener with make_certs's key material."""
    if name == "kafka":
        return {"ssl.keystore.type": "PEM", "ssl.keystore.location": str(work / "server.pem")}
    return {"ssl.keystore.location": str(work / "server.pem")}
