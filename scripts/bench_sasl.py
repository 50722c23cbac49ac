#!/usr/bin/env python3
"""Connection setup cost of SASL, Skiff beside Apache Kafka 4.4 configured
alike (one SASL_SSL listener, PEM key material, SCRAM-SHA-512 and PLAIN, the
SCRAM user created at startup: Skiff's scram.bootstrap.users, Kafka's
kafka-storage format --add-scram). A client opens connections one after
another and times each from connect() until its first Metadata answer:
TLS handshake, SaslHandshake, the SASL exchange, Metadata. The client caches
the salted password (as a client that keeps its connection factory would),
so the times are the broker's, not PBKDF2 in Python. Not a test; loopback
only; every step bounded.

  scripts/bench_sasl.py [--connections 300] [--brokers skiff,kafka]

Needs build/skiff and the Kafka jars (scripts/fetch_kafka_jars.sh)."""
import argparse
import base64
import hashlib
import hmac
import os
import shutil
import socket
import ssl
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_tls  # noqa: E402
from bench_tls import make_certs, wait_port  # noqa: E402
from bench_vs_kafka import free_port, log  # noqa: E402

USER, PASSWORD = "admin", "admin-secret"
PLAIN_JAAS = f'org.apache.kafka.common.security.plain.PlainLoginModule required user_{USER}="{PASSWORD}";'
SCRAM_JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
SCRAM_USER = f"SCRAM-SHA-512=[name={USER},password={PASSWORD}]"


def frame(api, version, body, corr=1):
    head = struct.pack(">hhih", api, version, corr, 5) + b"bench"
    return struct.pack(">i", len(head) + len(body)) + head + body


def recv_frame(s):
    def exact(n):
        buf = b""
        while len(buf) < n:
            chunk = s.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("closed by the broker")
            buf += chunk
        return buf
    return exact(struct.unpack(">i", exact(4))[0])


def authenticate(s, token):
    """SaslAuthenticate v1: the server's bytes; raises on an error code."""
    s.sendall(frame(36, 1, struct.pack(">i", len(token)) + token))
    r = recv_frame(s)
    err, ln = struct.unpack(">hh", r[4:8])
    at = 8 + max(ln, 0)
    if err:
        raise RuntimeError(f"SaslAuthenticate error {err}: {r[8:at].decode(errors='replace')}")
    (blen,) = struct.unpack(">i", r[at:at + 4])
    return r[at + 4:at + 4 + blen]


class ScramClient:
    """SCRAM-SHA-512 (RFC 5802), the salted password cached per salt."""

    def __init__(self):
        self.salted = {}

    def login(self, s):
        nonce = base64.b64encode(os.urandom(18)).decode()
        first_bare = f"n={USER},r={nonce}"
        server_first = authenticate(s, ("n,," + first_bare).encode()).decode()
        attrs = dict(kv.split("=", 1) for kv in server_first.split(","))
        key = (attrs["s"], int(attrs["i"]))
        if key not in self.salted:
            self.salted[key] = hashlib.pbkdf2_hmac("sha512", PASSWORD.encode(), base64.b64decode(key[0]), key[1])
        client_key = hmac.digest(self.salted[key], b"Client Key", "sha512")
        stored = hashlib.sha512(client_key).digest()
        without_proof = f"c=biws,r={attrs['r']}"
        signature = hmac.digest(stored, f"{first_bare},{server_first},{without_proof}".encode(), "sha512")
        proof = base64.b64encode(bytes(a ^ b for a, b in zip(client_key, signature))).decode()
        final = authenticate(s, f"{without_proof},p={proof}".encode())
        if not final.startswith(b"v="):
            raise RuntimeError(f"unexpected server-final {final!r}")


def one_connection(port, ctx, mechanism, scram):
    started = time.perf_counter()
    raw = socket.create_connection(("127.0.0.1", port), timeout=10)
    with ctx.wrap_socket(raw, server_hostname="localhost") as s:
        m = mechanism.encode()
        s.sendall(frame(17, 1, struct.pack(">h", len(m)) + m))
        if struct.unpack(">h", recv_frame(s)[4:6])[0]:
            raise RuntimeError(f"SaslHandshake refused {mechanism}")
        if mechanism == "PLAIN":
            authenticate(s, f"\0{USER}\0{PASSWORD}".encode())
        else:
            scram.login(s)
        s.sendall(frame(3, 1, struct.pack(">i", -1)))
        recv_frame(s)
    return (time.perf_counter() - started) * 1000


def broker_props(work, port):
    return {"sasl.enabled.mechanisms": "SCRAM-SHA-512,PLAIN", "ssl.keystore.location": str(work / "server.pem"),
            "listener.name.sasl_ssl.plain.sasl.jaas.config": PLAIN_JAAS,
            "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config": SCRAM_JAAS}


class Skiff:
    name = "skiff"

    def start(self, work, plain, port):
        d = work / "skiff"
        d.mkdir()
        props = {**broker_props(work, port), "listeners": f"PLAINTEXT://127.0.0.1:{plain},SASL_SSL://127.0.0.1:{port}",
                 "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL",
                 "scram.bootstrap.users": SCRAM_USER, "log.dirs": str(d / "data")}
        args = [str(ROOT / "build" / "skiff")]
        for k, v in props.items():
            args += ["--override", f"{k}={v}"]
        self.out = open(d / "skiff.log", "wb")
        self.proc = subprocess.Popen(args, stdout=self.out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env={k: v for k, v in os.environ.items() if not k.startswith("SKIFF_")})
        wait_port(port, self.proc)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(30)
        self.out.close()


class Kafka(bench_tls.Kafka):
    def start(self, work, plain, port):
        self.start_with(work, plain, ("SASL_SSL", port), broker_props(work, port), {"KAFKA_ADD_SCRAM": SCRAM_USER})


def bench(args, broker, work):
    plain, port = free_port(), free_port()
    log(f"{broker.name}: starting")
    broker.start(work, plain, port)
    ctx = ssl.create_default_context(cafile=str(work / "ca.pem"))
    res = {}
    try:
        for mechanism in ("SCRAM-SHA-512", "PLAIN"):
            scram = ScramClient()
            for _ in range(20):  # warm-up: JIT, caches, the salted password
                one_connection(port, ctx, mechanism, scram)
            times = sorted(one_connection(port, ctx, mechanism, scram) for _ in range(args.connections))
            res[mechanism] = (statistics.median(times), times[int(len(times) * 0.99) - 1])
            log(f"{broker.name} {mechanism}: median {res[mechanism][0]:.2f} ms, p99 {res[mechanism][1]:.2f} ms")
    finally:
        broker.stop()
    return res


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--connections", type=int, default=300)
    p.add_argument("--brokers", default="skiff,kafka")
    args = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="skiff-bench-sasl-"))
    try:
        make_certs(work)
        results = {}
        for name in args.brokers.split(","):
            broker = {"skiff": Skiff, "kafka": Kafka}[name]()
            bwork = work / name
            bwork.mkdir()
            for f in ("server.pem", "ca.pem"):
                shutil.copy(work / f, bwork / f)
            results[broker.name] = bench(args, broker, bwork)
        print(f"\n{args.connections} sequential SASL_SSL connections: connect, TLS, SASL, first Metadata (ms)")
        print(f"{'broker':<10} {'SCRAM-512 p50':>14} {'p99':>8} {'PLAIN p50':>10} {'p99':>8}")
        for name, r in results.items():
            print(f"{name:<10} {r['SCRAM-SHA-512'][0]:>14.2f} {r['SCRAM-SHA-512'][1]:>8.2f} "
                  f"{r['PLAIN'][0]:>10.2f} {r['PLAIN'][1]:>8.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
