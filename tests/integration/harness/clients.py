"""The six clients behind one small interface. Python clients run in this
process; the others through a driver program (Node, Java, Go: one JSON
request per run, see drivers/README.md) or the kcat command line. Every call
is bounded in time."""
from __future__ import annotations

import base64
import copy
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path

from .data import Caps, Rec

CACHE = Path(os.environ.get("SKIFF_COMPAT_CACHE")
             or Path(os.environ.get("SKIFF_CACHE_DIR", Path.home() / ".cache" / "skiff")) / "compat")
CLIENTS = ["kcat", "confluent_kafka", "kafka_python", "kafkajs", "java", "franz_go"]


def java_classpath() -> str:
    """The Java client's classpath, as install-test-clients.sh wrote it."""
    return (CACHE / "java" / "classpath").read_text().strip()


class DriverError(AssertionError):
    pass


class DriverAuthError(DriverError):
    """The driver reported that the broker refused its credentials ("auth": true)."""


def _b64(b):
    return None if b is None else base64.b64encode(b).decode()


def _unb64(s):
    return None if s is None else base64.b64decode(s)


def _rec_json(r: Rec) -> dict:
    return {"p": r.p, "k": _b64(r.k), "v": _b64(r.v), "h": [[n, _b64(v)] for n, v in r.h], "ts": r.ts}


def _rec_from_json(d: dict) -> Rec:
    return Rec(p=d["p"], o=d.get("o"), k=_unb64(d["k"]), v=_unb64(d["v"]),
               h=[(n, _unb64(v)) for n, v in d.get("h") or []], ts=d.get("ts"))


class Client:
    name = "?"
    caps = Caps()

    def produce(self, bootstrap, topic, recs, *, compression="none", acks=-1,
                max_request_size=None, timeout=60, defaults=False) -> list[dict]:
        raise NotImplementedError

    def consume(self, bootstrap, topic, start, counts, timeout=60) -> tuple[list[Rec], bool]:
        raise NotImplementedError

    def consume_reset(self, bootstrap, topic, partition, offset, reset, expect,
                      timeout=40, settle_ms=2000) -> list[Rec]:
        raise NotImplementedError

    def list_offsets(self, bootstrap, topic, partitions, spec, timestamp=None, timeout=30) -> dict[int, int]:
        raise NotImplementedError

    def metadata(self, bootstrap, topics=None, timeout=30) -> dict:
        raise NotImplementedError


class InProcessClient(Client):
    """The Python clients: subclasses give _consumer, _poll_into and _assign_at."""

    def consume_reset(self, bootstrap, topic, partition, offset, reset, expect, timeout=40, settle_ms=2000):
        """Consumes from `offset` (possibly out of range, so auto.offset.reset
        applies); for reset=latest, produces a marker after `settle_ms` for the
        consumer to find."""
        c = self._consumer(bootstrap, reset)
        out, got = [], {}
        deadline = time.monotonic() + timeout
        settle = time.monotonic() + settle_ms / 1000
        produced = reset != "latest"
        try:
            self._assign_at(c, topic, partition, offset)
            while len(out) < expect and time.monotonic() < deadline:
                self._poll_into(c, out, {}, got, deadline)
                if not produced and time.monotonic() > settle:
                    r = self.produce(bootstrap, topic, [Rec(p=partition, k=None, v=b"marker")], timeout=15)
                    if "error" in r[0]:
                        raise DriverError(f"marker: {r[0]['error']}")
                    produced = True
        finally:
            c.close()
        return out


# --------------------------------------------------------------- JSON drivers
def _threads_of(pid: int) -> str:
    """Each thread of `pid`: name, state and the kernel function it waits
    in; and, where gdb is installed, their native stacks."""
    lines = []
    for task in sorted(Path(f"/proc/{pid}/task").glob("*")):
        try:
            name = (task / "comm").read_text().strip()
            state = next((ln.split(":", 1)[1].strip() for ln in (task / "status").read_text().splitlines()
                          if ln.startswith("State:")), "?")
            wchan = (task / "wchan").read_text().strip() or "-"
        except OSError:
            continue
        lines.append(f"  {task.name} {name}: {state}, waiting in {wchan}")
    text = "--- threads ---\n" + "\n".join(lines) + "\n" if lines else ""
    if lines and shutil.which("gdb"):  # native stacks too, where gdb is installed
        try:
            bt = subprocess.run(["gdb", "-p", str(pid), "-batch", "-nx", "-ex", "thread apply all bt 12"],
                                capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL).stdout
            text += "--- native stacks (gdb) ---\n" + "\n".join(
                ln[:160] for ln in bt.splitlines() if ln.startswith(("#", "Thread")))[:10000] + "\n"
        except (OSError, subprocess.TimeoutExpired):
            pass
    return text


class JsonDriver(Client):
    """franz-go, Java and kafkajs: `CMD request.json` prints one JSON response."""

    startup_slack = 20  # seconds on top of the request's own timeout
    security: dict | None = None  # the request's "security" object (drivers/README.md); None: PLAINTEXT

    def command(self) -> list[str]:
        raise NotImplementedError

    def secured(self, security: dict | None) -> "JsonDriver":
        """A copy of this driver whose every request carries `security`."""
        c = copy.copy(self)
        c.security = security
        return c

    # Sent to a driver that overruns its time, before it is killed: the
    # signal on which it prints where each of its threads is (None: none).
    stacks_signal: int | None = None

    def stacks(self, out: Path, err: Path) -> str:
        """What the driver printed on stacks_signal (its stderr is shown anyway)."""
        return ""

    def call(self, req: dict, timeout: float) -> dict:
        req = dict(req, timeout_ms=int(timeout * 1000))
        if self.security:
            req["security"] = self.security
        with tempfile.TemporaryDirectory(prefix=f"compat-{self.name}-") as d:
            rq, out, err = Path(d, "req.json"), Path(d, "out.json"), Path(d, "err.txt")
            rq.write_text(json.dumps(req))
            with open(out, "wb") as o, open(err, "wb") as e:
                proc = subprocess.Popen(self.command() + [str(rq)], stdout=o, stderr=e,
                                        stdin=subprocess.DEVNULL)
                try:
                    proc.wait(timeout + self.startup_slack)
                except subprocess.TimeoutExpired:
                    stacks = self.hung(proc, out, err)
                    raise DriverError(f"{self.name} driver ({req['op']}) did not finish within "
                                      f"{timeout + self.startup_slack}s\n{stacks}"
                                      f"{err.read_text(errors='replace')[-3000:]}") from None
            text = out.read_text(errors="replace").strip()
            if proc.returncode != 0 or not text:
                raise DriverError(f"{self.name} driver ({req['op']}) exited {proc.returncode}\n"
                                  f"{err.read_text(errors='replace')[-3000:]}")
            res = json.loads(text.splitlines()[-1])
            if "error" in res:
                raise (DriverAuthError if res.get("auth") else DriverError)(f"{self.name} {req['op']}: {res['error']}\n"
                                  f"{err.read_text(errors='replace')[-2000:]}")
            return res

    def hung(self, proc: subprocess.Popen, out: Path, err: Path) -> str:
        """Asks a driver that overran for its stacks, then kills it: what
        it had printed, its threads' states, and stacks_signal's answer."""
        stacks = _threads_of(proc.pid)
        printed = out.read_text(errors="replace").strip()
        if printed:
            stacks += f"--- it had printed (then did not exit) ---\n{printed[-2000:]}\n"
        if self.stacks_signal is not None:
            proc.send_signal(self.stacks_signal)
            try:
                proc.wait(3)
            except subprocess.TimeoutExpired:
                pass
            stacks += self.stacks(out, err)
        proc.kill()
        proc.wait()
        return stacks

    def produce(self, bootstrap, topic, recs, *, compression="none", acks=-1,
                max_request_size=None, timeout=60, defaults=False):
        req = {"op": "produce", "bootstrap": bootstrap, "topic": topic, "compression": compression,
               "acks": acks, "records": [_rec_json(r) for r in recs], "defaults": defaults}
        if max_request_size:
            req["max_request_size"] = max_request_size
        return self.call(req, timeout)["results"]

    def consume(self, bootstrap, topic, start, counts, timeout=60):
        res = self.call({"op": "consume", "bootstrap": bootstrap, "topic": topic,
                         "start": {str(p): o for p, o in start.items()},
                         "counts": {str(p): n for p, n in counts.items()}}, timeout)
        return [_rec_from_json(d) for d in res["records"]], res["complete"]

    def consume_reset(self, bootstrap, topic, partition, offset, reset, expect, timeout=40, settle_ms=2000):
        res = self.call({"op": "consume_reset", "bootstrap": bootstrap, "topic": topic,
                         "partition": partition, "offset": offset, "reset": reset,
                         "expect": expect, "settle_ms": settle_ms}, timeout)
        return [_rec_from_json(d) for d in res["records"]]

    def group_consume(self, bootstrap, topic, group, n, timeout=25.0, settle=1.0,
                      assignor=None, protocol=None) -> list[tuple[int, int, bytes]]:
        """Java and franz-go: joins `group` (subscribe), consumes until `n`
        records (then `settle` s more), commits and closes. Returns
        (partition, offset, value). `assignor` (Java): range or cooperative-sticky.
        `protocol` (franz-go): "consumer" joins with KIP-848's heartbeat."""
        req = {"op": "group_consume", "bootstrap": bootstrap, "topic": topic, "group": group,
               "expect": n, "settle_ms": int(settle * 1000)}
        if assignor:
            req["assignor"] = assignor
        if protocol:
            req["protocol"] = protocol
        res = self.call(req, timeout)
        return [(d["p"], d["o"], _unb64(d["v"])) for d in res["records"]]

    def list_offsets(self, bootstrap, topic, partitions, spec, timestamp=None, timeout=30):
        res = self.call({"op": "list_offsets", "bootstrap": bootstrap, "topic": topic,
                         "partitions": partitions, "spec": spec, "timestamp": timestamp or 0}, timeout)
        return {int(p): o for p, o in res["offsets"].items()}

    def metadata(self, bootstrap, topics=None, timeout=30):
        res = self.call({"op": "metadata", "bootstrap": bootstrap, "topics": topics}, timeout)
        return {"brokers": sorted((b["id"], b["host"], b["port"]) for b in res["brokers"]),
                "topics": {n: t["partitions"] for n, t in res["topics"].items()}}


class FranzGo(JsonDriver):
    name = "franz_go"
    caps = Caps()

    stacks_signal = signal.SIGQUIT  # Go prints every goroutine's stack to stderr, and exits

    def stacks(self, out, err):
        text = err.read_text(errors="replace")
        at = text.find("\ngoroutine 1 ")  # the main goroutine first (the stderr tail follows anyway)
        return f"--- goroutines ---\n{text[at:][:6000]}\n" if at >= 0 else ""

    def command(self):
        return [str(CACHE / "go" / "franz-go-driver")]

    def admin_ops(self, bootstrap, topic, timeout=60) -> dict:
        """test_admin's sequence through kadm (drivers/go/admin.go): what each step saw."""
        return self.call({"op": "admin_ops", "bootstrap": bootstrap, "topic": topic}, timeout)


class Java(JsonDriver):
    name = "java"
    caps = Caps()

    stacks_signal = signal.SIGQUIT  # the JVM prints a thread dump to stdout, and goes on

    def stacks(self, out, err):
        text = out.read_text(errors="replace")
        at = text.find("Full thread dump")
        return f"--- thread dump ---\n{text[at:][:12000]}\n" if at >= 0 else ""

    def command(self):
        cp = java_classpath()
        jsa = CACHE / "java" / "app.jsa"
        cds = [f"-XX:SharedArchiveFile={jsa}", "-Xlog:disable", "-Xlog:all=error:stderr"] if jsa.exists() else []
        # A short-lived client: fast JVM start matters more than peak speed.
        return ["java", *cds, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto", "-Xmx512m",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", cp, "CompatDriver"]


class KafkaJS(JsonDriver):
    name = "kafkajs"
    caps = Caps(null_header_value=False, grouped_headers=True, consume_needs_group=True)

    # No stacks_signal: Node answers signals only on its event loop; the
    # threads' states and gdb's stacks (_threads_of) show where it hangs.

    def command(self):
        # --single-threaded: no V8 background tasks. Node 20 can deadlock in
        # process.exit (nodejs/node#54918): the main thread joins the
        # platform's threads while a concurrent compile job on one of them
        # waits for a garbage collection only the main thread can run. It
        # hung here about once in 100 SASL_SSL round trips, after the
        # driver had printed its answer.
        return ["node", "--single-threaded", str(CACHE / "node" / "driver.js")]


# ----------------------------------------------------------------------- kcat
class Kcat(Client):
    """kcat 1.7 (librdkafka from Debian). Messages are split on \\x1e and keys
    on \\x1f, so data is text; headers are per invocation (-H); the producer
    cannot set timestamps or report offsets."""
    name = "kcat"
    # kcat skips empty input messages, so nothing keyless and empty/null.
    caps = Caps(binary=False, set_timestamp=False, per_record_headers=False, produce_offsets=False,
                null_key_and_value=False, keyless_empty=False)
    D, K = b"\x1e", b"\x1f"

    def run(self, args, timeout, input=None):
        try:
            p = subprocess.run(["kcat", *args], input=input, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            raise DriverError(f"kcat {' '.join(args)} did not finish within {timeout}s: {e.stderr!r:.2000}")
        return p

    def produce(self, bootstrap, topic, recs, *, compression="none", acks=-1,
                max_request_size=None, timeout=60, defaults=False):
        # One kcat run per group of records with the same partition, headers
        # and null-ness of key/value (-Z turns empty into null, -K adds keys);
        # order within a partition is kept.
        groups: dict[tuple, list[int]] = {}
        for i, r in enumerate(recs):
            groups.setdefault((r.p, tuple(r.h), r.k is None, r.v is None), []).append(i)
        results: list = [None] * len(recs)
        deadline = time.monotonic() + timeout
        for (p, headers, null_key, null_value), idx in groups.items():
            run = [recs[i] for i in idx]
            if null_value and any(r.k == b"" for r in run):
                raise DriverError("kcat cannot send an empty key with a null value (-Z nulls both)")
            args = ["-P", "-b", bootstrap, "-t", topic, "-D", r"\x1e", "-m", "10",
                    "-X", f"message.timeout.ms={int(timeout * 1000)}",
                    "-X", f"acks={'all' if acks == -1 else acks}", "-X", "max.in.flight=1"]
            if p is not None:
                args += ["-p", str(p)]
            if compression != "none":
                args += ["-z", compression]
            if max_request_size:
                args += ["-X", f"message.max.bytes={max_request_size}"]
            for n, v in headers:
                args += ["-H", n if v is None else f"{n}={v.decode()}"]
            if null_value:
                args.append("-Z")  # empty value -> NULL
            if not null_key:
                args += ["-K", r"\x1f"]
            payload = [(r.v or b"") if null_key else r.k + self.K + (r.v or b"") for r in run]
            proc = self.run(args, max(5, deadline - time.monotonic()), input=self.D.join(payload) + self.D)
            if proc.returncode != 0:
                err = proc.stderr.decode(errors="replace").strip()
                res = {"error": err or f"kcat exited {proc.returncode}"}
            else:
                res = {"p": p, "o": None}
            for i in idx:
                results[i] = dict(res)
        return results

    def consume(self, bootstrap, topic, start, counts, timeout=60):
        out, complete = [], True
        deadline = time.monotonic() + timeout
        for p, o in start.items():
            n = counts[p]
            if n == 0:
                continue
            args = ["-C", "-b", bootstrap, "-t", topic, "-p", str(p), "-o", str(o), "-c", str(n),
                    "-e", "-J", "-q", "-m", "10", "-X", "fetch.wait.max.ms=200"]
            proc = self.run(args, max(5, deadline - time.monotonic()))
            if proc.returncode != 0:
                raise DriverError(f"kcat consume exited {proc.returncode}: {proc.stderr.decode(errors='replace')}")
            got = [self._rec(json.loads(line)) for line in proc.stdout.decode().splitlines() if line.startswith("{")]
            complete &= len(got) >= n
            out += got
        return out, complete

    @staticmethod
    def _rec(d) -> Rec:
        hs = d.get("headers") or []
        enc = lambda s: None if s is None else s.encode()  # noqa: E731
        return Rec(p=d["partition"], o=d["offset"], k=enc(d.get("key")), v=enc(d.get("payload")),
                   h=[(hs[i], enc(hs[i + 1])) for i in range(0, len(hs), 2)], ts=d["ts"])

    def consume_reset(self, bootstrap, topic, partition, offset, reset, expect, timeout=40, settle_ms=2000):
        args = ["-C", "-b", bootstrap, "-t", topic, "-p", str(partition), "-o", str(offset),
                "-c", str(expect), "-J", "-q", "-m", "10", "-X", f"auto.offset.reset={reset}",
                "-X", "fetch.wait.max.ms=200"]
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            proc = subprocess.Popen(["kcat", *args], stdout=out, stderr=err, stdin=subprocess.DEVNULL)
            try:
                if reset == "latest":
                    time.sleep(settle_ms / 1000)
                    r = self.produce(bootstrap, topic, [Rec(p=partition, k=None, v=b"marker")], timeout=15)
                    if "error" in r[0]:
                        raise DriverError(f"marker: {r[0]['error']}")
                try:
                    proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    pass
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait(5)
            out.seek(0)
            return [self._rec(json.loads(l)) for l in out.read().decode().splitlines() if l.startswith("{")]

    def list_offsets(self, bootstrap, topic, partitions, spec, timestamp=None, timeout=30):
        ts = {"earliest": -2, "latest": -1}.get(spec, timestamp)
        out = {}
        for p in partitions:  # one query each: kcat keeps one timestamp per partition
            proc = self.run(["-Q", "-b", bootstrap, "-t", f"{topic}:{p}:{ts}", "-m", "10"], timeout)
            if proc.returncode != 0:
                raise DriverError(f"kcat -Q: {proc.stderr.decode(errors='replace')}")
            for line in proc.stdout.decode().splitlines():
                # "topic [p] offset N"
                parts = line.split()
                if len(parts) == 4 and parts[2] == "offset":
                    out[int(parts[1].strip("[]"))] = int(parts[3])
        return out

    def metadata(self, bootstrap, topics=None, timeout=30):
        args = ["-L", "-J", "-b", bootstrap, "-m", "10"]
        for t in topics or []:
            args += ["-t", t]
        proc = self.run(args, timeout)
        if proc.returncode != 0:
            raise DriverError(f"kcat -L: {proc.stderr.decode(errors='replace')}")
        md = json.loads(proc.stdout.decode())
        brokers = [(b["id"], *b["name"].rsplit(":", 1)) for b in md["brokers"]]
        return {"brokers": sorted((i, h, int(p)) for i, h, p in brokers),
                "topics": {t["topic"]: len(t["partitions"]) for t in md["topics"] if not t.get("error")}}


# ------------------------------------------------------------ confluent-kafka
class ConfluentKafka(InProcessClient):
    name = "confluent_kafka"
    caps = Caps()

    def _consumer(self, bootstrap, reset="error", timeout=30):
        from confluent_kafka import Consumer
        # confluent-kafka insists on a group.id; it is never joined (assign only).
        return Consumer({"bootstrap.servers": bootstrap, "group.id": f"unused-{uuid.uuid4().hex[:8]}",
                         "enable.auto.commit": False, "enable.auto.offset.store": False,
                         "auto.offset.reset": reset, "fetch.wait.max.ms": 200,
                         "socket.timeout.ms": 10000, "enable.partition.eof": False})

    def produce(self, bootstrap, topic, recs, *, compression="none", acks=-1,
                max_request_size=None, timeout=60, defaults=False):
        from confluent_kafka import Producer
        conf = {"bootstrap.servers": bootstrap, "message.timeout.ms": int(timeout * 1000) - 2000,
                "socket.timeout.ms": 10000}
        if not defaults:
            # One request in flight: without idempotence a retry could reorder.
            conf.update({"acks": "all" if acks == -1 else str(acks), "compression.type": compression,
                         "linger.ms": 5, "max.in.flight": 1})
            if max_request_size:
                conf["message.max.bytes"] = max_request_size
        prod = Producer(conf)
        results: list = [None] * len(recs)

        def cb(i):
            def done(err, msg):
                results[i] = {"error": str(err)} if err else {"p": msg.partition(), "o": msg.offset()}
            return done

        deadline = time.monotonic() + timeout
        for i, r in enumerate(recs):
            kw = {"key": r.k, "value": r.v, "headers": list(r.h), "on_delivery": cb(i)}
            if r.p is not None:
                kw["partition"] = r.p
            if r.ts is not None:
                kw["timestamp"] = r.ts
            while True:
                try:
                    prod.produce(topic, **kw)
                    break
                except BufferError:
                    prod.poll(0.05)
                    if time.monotonic() > deadline:
                        raise DriverError("confluent-kafka: local queue stayed full")
                except Exception as e:  # e.g. KafkaException for an unknown partition
                    results[i] = {"error": str(e)}
                    break
            prod.poll(0)
        left = prod.flush(max(1, deadline - time.monotonic()))
        if left:
            raise DriverError(f"confluent-kafka: {left} messages not delivered within {timeout}s")
        return results

    def _poll_into(self, c, out, want, got, deadline):
        msg = c.poll(max(0.01, min(0.5, deadline - time.monotonic())))
        if msg is None:
            return
        if msg.error():
            raise DriverError(f"confluent-kafka consume: {msg.error()}")
        p = msg.partition()
        if got.get(p, 0) < want.get(p, 1 << 62):
            got[p] = got.get(p, 0) + 1
            ts = msg.timestamp()[1]
            out.append(Rec(p=p, o=msg.offset(), k=msg.key(), v=msg.value(),
                           h=list(msg.headers() or []), ts=ts))

    def consume(self, bootstrap, topic, start, counts, timeout=60):
        from confluent_kafka import TopicPartition
        c = self._consumer(bootstrap)
        out, got = [], {}
        total = sum(counts.values())
        deadline = time.monotonic() + timeout
        try:
            c.assign([TopicPartition(topic, p, o) for p, o in start.items()])
            while len(out) < total and time.monotonic() < deadline:
                self._poll_into(c, out, counts, got, deadline)
        finally:
            c.close()
        return out, len(out) >= total

    def _assign_at(self, c, topic, partition, offset):
        from confluent_kafka import TopicPartition
        c.assign([TopicPartition(topic, partition, offset)])

    def list_offsets(self, bootstrap, topic, partitions, spec, timestamp=None, timeout=30):
        from confluent_kafka import TopicPartition
        c = self._consumer(bootstrap)
        try:
            if spec in ("earliest", "latest"):
                out = {}
                for p in partitions:
                    lo, hi = c.get_watermark_offsets(TopicPartition(topic, p), timeout=timeout, cached=False)
                    out[p] = lo if spec == "earliest" else hi
                return out
            res = c.offsets_for_times([TopicPartition(topic, p, timestamp) for p in partitions], timeout=timeout)
            return {tp.partition: tp.offset for tp in res}
        finally:
            c.close()

    def metadata(self, bootstrap, topics=None, timeout=30):
        from confluent_kafka.admin import AdminClient
        a = AdminClient({"bootstrap.servers": bootstrap})
        out = {"brokers": [], "topics": {}}
        for t in topics or [None]:
            md = a.list_topics(topic=t, timeout=timeout)
            out["brokers"] = sorted((b.id, b.host, b.port) for b in md.brokers.values())
            for name, tm in md.topics.items():
                if tm.error is None:
                    out["topics"][name] = len(tm.partitions)
        return out


# --------------------------------------------------------------- kafka-python
class KafkaPython(InProcessClient):
    name = "kafka_python"
    # send() asserts header values are bytes and that key or value is set.
    caps = Caps(null_header_value=False, null_key_and_value=False)

    def _consumer(self, bootstrap, reset="earliest", timeout=30):
        from kafka import KafkaConsumer
        return KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False,
                             auto_offset_reset=reset, fetch_max_wait_ms=200,
                             request_timeout_ms=min(30000, int(timeout * 1000)) + 1000,
                             api_version_auto_timeout_ms=10000)

    def produce(self, bootstrap, topic, recs, *, compression="none", acks=-1,
                max_request_size=None, timeout=60, defaults=False):
        from kafka import KafkaProducer
        conf = {"bootstrap_servers": bootstrap, "max_block_ms": 10000, "request_timeout_ms": 10000,
                "api_version_auto_timeout_ms": 10000}
        if not defaults:
            conf.update({"acks": "all" if acks == -1 else acks, "linger_ms": 5,
                         "max_in_flight_requests_per_connection": 1,
                         "compression_type": None if compression == "none" else compression})
            if max_request_size:
                conf["max_request_size"] = max_request_size
        prod = KafkaProducer(**conf)
        futures = []
        try:
            for r in recs:
                try:
                    futures.append(prod.send(topic, key=r.k, value=r.v, headers=list(r.h),
                                             partition=r.p, timestamp_ms=r.ts))
                except Exception as e:
                    futures.append(e)
            prod.flush(timeout)
            results = []
            for f in futures:
                if isinstance(f, Exception):
                    results.append({"error": repr(f)})
                    continue
                try:
                    md = f.get(timeout=1)
                    results.append({"p": md.partition, "o": md.offset})
                except Exception as e:
                    results.append({"error": repr(e)})
            return results
        finally:
            prod.close(timeout=5)

    def _poll_into(self, c, out, want, got, deadline):
        batches = c.poll(timeout_ms=int(max(10, min(500, (deadline - time.monotonic()) * 1000))))
        for tp, msgs in batches.items():
            for m in msgs:
                if got.get(tp.partition, 0) < want.get(tp.partition, 1 << 62):
                    got[tp.partition] = got.get(tp.partition, 0) + 1
                    out.append(Rec(p=tp.partition, o=m.offset, k=m.key, v=m.value,
                                   h=list(m.headers or []), ts=m.timestamp))

    def consume(self, bootstrap, topic, start, counts, timeout=60):
        from kafka import TopicPartition
        c = self._consumer(bootstrap)
        out, got = [], {}
        total = sum(counts.values())
        deadline = time.monotonic() + timeout
        try:
            tps = {p: TopicPartition(topic, p) for p in start}
            c.assign(list(tps.values()))
            for p, o in start.items():
                c.seek(tps[p], o)
            while len(out) < total and time.monotonic() < deadline:
                self._poll_into(c, out, counts, got, deadline)
        finally:
            c.close()
        return out, len(out) >= total

    def _assign_at(self, c, topic, partition, offset):
        from kafka import TopicPartition
        tp = TopicPartition(topic, partition)
        c.assign([tp])
        c.seek(tp, offset)

    def list_offsets(self, bootstrap, topic, partitions, spec, timestamp=None, timeout=30):
        from kafka import TopicPartition
        c = self._consumer(bootstrap)
        try:
            tps = [TopicPartition(topic, p) for p in partitions]
            if spec == "earliest":
                res = c.beginning_offsets(tps)
            elif spec == "latest":
                res = c.end_offsets(tps)
            else:
                res = {tp: (-1 if v is None else v.offset)
                       for tp, v in c.offsets_for_times({tp: timestamp for tp in tps}).items()}
            return {tp.partition: o for tp, o in res.items()}
        finally:
            c.close()

    def metadata(self, bootstrap, topics=None, timeout=30):
        from kafka import KafkaAdminClient
        a = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=int(timeout * 1000),
                             api_version_auto_timeout_ms=10000)
        try:
            cluster = a.describe_cluster()
            brokers = sorted((b["node_id"], b["host"], b["port"]) for b in cluster["brokers"])
            ts = a.describe_topics(topics) if topics else a.describe_topics()
            return {"brokers": brokers,
                    "topics": {t["topic"]: len(t["partitions"]) for t in ts if t["error_code"] == 0}}
        finally:
            a.close()


ADAPTERS = {c.name: c for c in (Kcat, ConfluentKafka, KafkaPython, KafkaJS, Java, FranzGo)}


def make(name: str) -> Client:
    if name not in ADAPTERS:
        raise ValueError(f"unknown client {name!r}; known: {', '.join(CLIENTS)}")
    return ADAPTERS[name]()
