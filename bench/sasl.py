"""Connection setup cost of SASL, Skiff beside Apache Kafka 4.4 configured
alike (one SASL_SSL listener, PEM key material, SCRAM-SHA-512 and PLAIN, the
SCRAM user created at startup: Skiff's scram.bootstrap.users, Kafka's
kafka-storage format --add-scram). A client opens connections one after
another and times each from connect() until its first Metadata answer:
TLS handshake, SaslHandshake, the SASL exchange, Metadata. The client caches
the salted password (as a client that keeps its connection factory would),
so the times are the broker's, not PBKDF2 in Python. Not a test; loopback
only; every step bounded.

  python3 -m bench.sasl [--smoke] [--connections 300] [--brokers skiff,kafka]

ScramClient and one_connection are also scripts/test-image.sh's SCRAM login.
"""
import base64
import hashlib
import hmac
import os
import shutil
import socket
import ssl
import statistics
import struct
import sys
import time

from bench import brokers
from bench.brokers import log
from bench.results import Report, add_out_arg, environment, parser, table

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


def start(args, name, work):
    """`name` with a SASL_SSL listener (SCRAM-SHA-512 and PLAIN, the SCRAM
    user made at startup) beside PLAINTEXT; its SASL_SSL port."""
    port = brokers.free_port()
    props = {"sasl.enabled.mechanisms": "SCRAM-SHA-512,PLAIN", **brokers.tls_props(name, work),
             "listener.name.sasl_ssl.plain.sasl.jaas.config": PLAIN_JAAS,
             "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config": SCRAM_JAAS}
    if name == "skiff":
        broker = brokers.new(args, name, work, listeners={"SASL_SSL": port},
                             props={**props, "scram.bootstrap.users": SCRAM_USER})
    else:
        broker = brokers.new(args, name, work, listeners={"SASL_SSL": port}, props=props,
                             env={"KAFKA_ADD_SCRAM": SCRAM_USER})
    return broker, port


def bench(args, name, work):
    broker, port = start(args, name, work)
    log(f"{broker.name}: starting")
    ctx = ssl.create_default_context(cafile=str(work / "ca.pem"))
    res = {}
    with brokers.running(broker):
        for mechanism in ("SCRAM-SHA-512", "PLAIN"):
            scram = ScramClient()
            for _ in range(20):  # warm-up: JIT, caches, the salted password
                one_connection(port, ctx, mechanism, scram)
            times = sorted(one_connection(port, ctx, mechanism, scram) for _ in range(args.connections))
            res[mechanism] = {"p50_ms": statistics.median(times), "p99_ms": times[int(len(times) * 0.99) - 1]}
            log(f"{broker.name} {mechanism}: median {res[mechanism]['p50_ms']:.2f} ms, "
                f"p99 {res[mechanism]['p99_ms']:.2f} ms")
    return res


def main():
    p = parser(__doc__)
    p.add_argument("--connections", type=int, default=300)
    p.add_argument("--brokers", default="skiff,kafka")
    p.add_argument("--smoke", action="store_true", help="20 connections: checks the benchmark works")
    brokers.add_build_args(p)
    add_out_arg(p)
    args = p.parse_args()
    if args.smoke:
        args.connections = 20
    brokers.stop_on_sigterm()
    brokers.need(args, "skiff")
    if "kafka" in args.brokers.split(","):
        brokers.kafka_jars(args.kafka_version)
    report = Report("sasl", args, environment(kafka=args.kafka_version))
    work = brokers.scratch("bench-sasl-")
    try:
        brokers.make_certs(work)
        for name in args.brokers.split(","):
            report.run(name, bench(args, name, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rows = [[run["broker"], *(f"{run['results'][m][q]:.2f}" for m in ("SCRAM-SHA-512", "PLAIN")
                              for q in ("p50_ms", "p99_ms"))] for run in report.runs]
    report.add(f"{args.connections} sequential SASL_SSL connections: connect, TLS, SASL, first Metadata (ms)")
    report.add(table(["broker", "SCRAM-SHA-512 p50", "p99", "PLAIN p50", "p99"], rows))
    report.finish()


if __name__ == "__main__":
    sys.exit(main())
