"""REST proxy benchmark (issue 53): v3 streamed produce against a Kafka
client producing to the same broker, and v2 consume (a consumer instance's
GET .../records) against a Kafka client consuming the same records.

For each record size (100 B and 1 KiB): N records in ONE chunked
POST /v3/clusters/{c}/topics/{t}/records (a sender thread writes them, the
main thread reads the per-record results as they stream back), then the
same N records through confluent-kafka's Producer (acks=all). Reported per
path: records/s, p50 and p99 latency per record (HTTP: from the record's
chunk being written to its result arriving; Kafka: from produce() to its
delivery report) and the broker's CPU per record (utime+stime of the skiff
process from /proc, over the run).

Consume: the N records the Kafka client produced, read once through a v2
consumer instance (binary format, assigned the topic's partitions from the
beginning; GET /consumers/{g}/instances/{i}/records with max_bytes 1 MiB)
and once through confluent-kafka's Consumer (consume(500) calls). Latency is
per response (one GET, one consume() call that returned records), records/s
over the whole read.

    python3 bench/rest_proxy.py [--records 50000] [--binary build/skiff]

Loopback only; the broker is the script's own, in a temporary directory."""
from __future__ import annotations

import argparse
import base64
import json
import os
import re
import socket
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def start_broker(binary: str, tmp: Path) -> tuple[subprocess.Popen, str, str]:
    log = tmp / "skiff.log"
    proc = subprocess.Popen([binary, "--override", "listeners=PLAINTEXT://127.0.0.1:0",
                             "--override", f"log.dirs={tmp / 'data'}", "--override", "http.listeners=",
                             "--override", "schema.registry.listeners=",
                             "--override", "rest.proxy.listeners=http://127.0.0.1:0"],
                            stdout=open(log, "wb"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    deadline = time.time() + 30
    while time.time() < deadline:
        text = log.read_text(errors="replace")
        rest = re.search(r"REST proxy on (\S+?):(\d+)", text)
        kafka = re.search(r"PLAINTEXT on (\S+?):(\d+)", text)
        if rest and kafka:
            return proc, f"{rest[1]}:{rest[2]}", f"{kafka[1]}:{kafka[2]}"
        time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"skiff did not start:\n{log.read_text()[-2000:]}")


def rest(addr: str, method: str, path: str, body: dict | None = None) -> dict:
    req = urllib.request.Request(f"http://{addr}{path}", method=method, data=json.dumps(body).encode() if body else None,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read() or b"{}")


def http_stream(addr: str, cluster: str, topic: str, n: int, size: int) -> tuple[float, list[float]]:
    host, port = addr.rsplit(":", 1)
    s = socket.create_connection((host, int(port)))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    value = base64.b64encode(b"x" * size).decode()
    sent = [0.0] * n
    s.sendall(f"POST /v3/clusters/{cluster}/topics/{topic}/records HTTP/1.1\r\nHost: {addr}\r\n"
              "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".encode())

    def sender():
        per_chunk = 100
        for first in range(0, n, per_chunk):
            body = "".join(json.dumps({"key": {"type": "STRING", "data": f"k{i}"},
                                       "value": {"type": "BINARY", "data": value}}) + "\n"
                           for i in range(first, min(n, first + per_chunk))).encode()
            now = time.perf_counter()
            for i in range(first, min(n, first + per_chunk)):
                sent[i] = now
            s.sendall(f"{len(body):x}\r\n".encode() + body + b"\r\n")
        s.sendall(b"0\r\n\r\n")

    start = time.perf_counter()
    t = threading.Thread(target=sender)
    t.start()
    latencies, buf, got = [], b"", 0
    while got < n:
        data = s.recv(1 << 20)
        if not data:
            break
        buf += data
        now = time.perf_counter()
        got_before = got
        got += buf.count(b'"error_code":200')
        buf = buf[buf.rfind(b"\n") + 1:] if b"\n" in buf else buf
        latencies += [now - sent[i] for i in range(got_before, min(got, n))]
    elapsed = time.perf_counter() - start
    t.join()
    s.close()
    if got < n:
        raise SystemExit(f"only {got} of {n} results")
    return elapsed, latencies


def kafka_produce(bootstrap: str, topic: str, n: int, size: int) -> tuple[float, list[float]] | None:
    try:
        from confluent_kafka import Producer
    except ImportError:
        return None
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5})
    value = b"x" * size
    latencies = []
    start = time.perf_counter()
    for i in range(n):
        t0 = time.perf_counter()
        while True:
            try:
                p.produce(topic, value, key=f"k{i}".encode(),
                          on_delivery=lambda err, msg, t0=t0: latencies.append(time.perf_counter() - t0))
                break
            except BufferError:
                p.poll(0.01)
        p.poll(0)
    p.flush(60)
    return time.perf_counter() - start, latencies


def http_consume(addr: str, topic: str, n: int) -> tuple[float, list[float]]:
    import http.client
    v2 = "application/vnd.kafka.v2+json"
    group = f"bench-{topic}"
    conn = http.client.HTTPConnection(*addr.rsplit(":", 1), timeout=60)

    def call(method, path, body=None, accept=v2):
        conn.request(method, path, body=json.dumps(body) if body is not None else None,
                     headers={"Content-Type": v2, "Accept": accept})
        r = conn.getresponse()
        data = r.read()
        if r.status >= 300:
            raise SystemExit(f"{method} {path}: {r.status} {data[:300]!r}")
        return json.loads(data) if data else None

    inst = call("POST", f"/consumers/{group}", {"name": "i1", "format": "binary", "auto.offset.reset": "earliest"})
    base = f"/consumers/{group}/instances/i1"
    parts = call("GET", f"/topics/{topic}/partitions")
    call("POST", f"{base}/assignments", {"partitions": [{"topic": topic, "partition": p["partition"]} for p in parts]})
    call("POST", f"{base}/positions/beginning", {"partitions": [{"topic": topic, "partition": p["partition"]}
                                                                 for p in parts]})
    latencies, got = [], 0
    start = time.perf_counter()
    while got < n:
        t0 = time.perf_counter()
        records = call("GET", f"{base}/records?timeout=1000&max_bytes=1048576",
                       accept="application/vnd.kafka.binary.v2+json")
        if records:
            latencies.append(time.perf_counter() - t0)
            got += len(records)
        elif time.perf_counter() - start > 120:
            raise SystemExit(f"v2 consume: only {got} of {n} records")
    elapsed = time.perf_counter() - start
    call("DELETE", base)
    conn.close()
    assert inst["instance_id"] == "i1"
    return elapsed, latencies


def kafka_consume(bootstrap: str, topic: str, n: int) -> tuple[float, list[float]] | None:
    try:
        from confluent_kafka import Consumer
    except ImportError:
        return None
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"bench-k-{topic}", "auto.offset.reset": "earliest",
                  "enable.auto.commit": False})
    c.subscribe([topic])
    latencies, got = [], 0
    start = time.perf_counter()
    while got < n:
        t0 = time.perf_counter()
        msgs = [m for m in c.consume(500, 1.0) if not m.error()]
        if msgs:
            latencies.append(time.perf_counter() - t0)
            got += len(msgs)
        elif time.perf_counter() - start > 120:
            raise SystemExit(f"Kafka consume: only {got} of {n} records")
    elapsed = time.perf_counter() - start
    c.close()
    return elapsed, latencies


def summary(name: str, n: int, elapsed: float, lat: list[float], cpu: float) -> str:
    q = statistics.quantiles(lat, n=100)
    return (f"| {name} | {n / elapsed:,.0f} | {q[49] * 1000:.2f} | {q[98] * 1000:.2f} | "
            f"{cpu / n * 1e6:.1f} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=50000)
    ap.add_argument("--binary", default="build/skiff")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        proc, addr, bootstrap = start_broker(args.binary, Path(d))
        try:
            cluster = rest(addr, "GET", "/v3/clusters")["data"][0]["cluster_id"]
            rows = ["| path | records/s | p50 ms | p99 ms (produce: per record; consume: per response) | "
                    "broker CPU µs/record |", "|---|---|---|---|---|"]
            for size in (100, 1024):
                for kind in ("rest", "kafka"):
                    topic = f"bench-{kind}-{size}"
                    rest(addr, "POST", f"/v3/clusters/{cluster}/topics", {"topic_name": topic, "partitions_count": 3})
                    cpu0 = cpu_seconds(proc.pid)
                    result = (http_stream(addr, cluster, topic, args.records, size) if kind == "rest"
                              else kafka_produce(bootstrap, topic, args.records, size))
                    if result is None:
                        rows.append(f"| Kafka client {size} B | (confluent-kafka not installed) | | | |")
                        continue
                    cpu = cpu_seconds(proc.pid) - cpu0
                    label = f"v3 streamed produce {size} B" if kind == "rest" else f"Kafka client (librdkafka) {size} B"
                    rows.append(summary(label, args.records, result[0], result[1], cpu))
                for kind in ("rest", "kafka"):  # both read what the Kafka client wrote
                    topic = f"bench-kafka-{size}"
                    cpu0 = cpu_seconds(proc.pid)
                    result = (http_consume(addr, topic, args.records) if kind == "rest"
                              else kafka_consume(bootstrap, topic, args.records))
                    if result is None:
                        continue
                    cpu = cpu_seconds(proc.pid) - cpu0
                    label = f"v2 consume {size} B" if kind == "rest" else f"Kafka consumer (librdkafka) {size} B"
                    rows.append(summary(label, args.records, result[0], result[1], cpu))
            print("\n".join(rows))
        finally:
            proc.terminate()
            proc.wait(30)


if __name__ == "__main__":
    main()
