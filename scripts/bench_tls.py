#!/usr/bin/env python3
"""TLS cost, Skiff beside Apache Kafka 4.4: produce and consume throughput
over an SSL listener as a ratio to PLAINTEXT on the same broker in the same
run, for both brokers configured alike (PEM key material, server-auth TLS,
one partition). Clients: Kafka's own ProducerPerformance and
ConsumerPerformance (Java, from the cached jars), the same for every run.
Certificates are made at run time with the openssl CLI in a temp dir.
Not a test; loopback only; every step bounded (--client-timeout).

  scripts/bench_tls.py [--records 200000] [--size 1024] [--brokers skiff,kafka]

Needs build/skiff (cmake --build build --target skiff) and the Kafka jars
(scripts/fetch_kafka_jars.sh)."""
import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JARS = Path(os.environ.get("SKIFF_CACHE_DIR", Path.home() / ".cache" / "skiff")) / "kafka-4.4.0"
JAVA = ["java", "-Xmx512M", "-XX:+UseG1GC", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", f"{JARS}/*"]

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_vs_kafka import free_port, log  # noqa: E402


def openssl(work, *args):
    subprocess.run(["openssl", *args], cwd=work, check=True, capture_output=True, timeout=60)


def make_certs(work):
    openssl(work, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days",
            "1", "-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=bench CA")
    (work / "server.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    openssl(work, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
            "server.key", "-out", "server.csr", "-subj", "/CN=localhost")
    openssl(work, "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-days", "1", "-out", "server.crt", "-extfile", "server.ext")
    (work / "server.pem").write_text((work / "server.key").read_text() + (work / "server.crt").read_text())
    (work / "ssl.properties").write_text(
        f"security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location={work / 'ca.pem'}\n")
    (work / "plain.properties").write_text("security.protocol=PLAINTEXT\n")


def wait_port(port, proc=None, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc and proc.poll() is not None:
            raise RuntimeError(f"broker exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {port} after {timeout}s")


class Skiff:
    name = "skiff"

    def start(self, work, plain, tls):
        d = work / "skiff"
        d.mkdir()
        self.out = open(d / "skiff.log", "wb")
        self.proc = subprocess.Popen(
            [str(ROOT / "build" / "skiff"), "--override",
             f"listeners=PLAINTEXT://127.0.0.1:{plain},SSL://127.0.0.1:{tls}", "--override",
             "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL", "--override",
             f"ssl.keystore.location={work / 'server.pem'}", "--override", f"log.dirs={d / 'data'}"],
            stdout=self.out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env={k: v for k, v in os.environ.items() if not k.startswith("SKIFF_")})
        wait_port(tls, self.proc)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(30)
        self.out.close()


class Kafka:
    name = "kafka 4.4"

    def start(self, work, plain, tls):
        self.start_with(work, plain, ("SSL", tls), {})

    def start_with(self, work, plain, listener, props, env=None):
        """Kafka with a PLAINTEXT listener and `listener` (NAME, port), PEM key material, `props` on top."""
        self.dir = work / "kafka"
        self.dir.mkdir()
        cport = free_port()
        (self.dir / "controller.port").write_text(f"{cport}\n")
        name, port = listener
        props = {"listeners": f"PLAINTEXT://127.0.0.1:{plain},{name}://127.0.0.1:{port},CONTROLLER://127.0.0.1:{cport}",
                 "advertised.listeners": f"PLAINTEXT://127.0.0.1:{plain},{name}://127.0.0.1:{port}",
                 "ssl.keystore.type": "PEM", "ssl.keystore.location": str(work / "server.pem"), **props}
        subprocess.run([str(ROOT / "scripts" / "kafka-broker.sh"), "start", str(self.dir), str(plain),
                        *[f"{k}={v}" for k, v in props.items()]], check=True, capture_output=True, timeout=180,
                       env={**os.environ, **(env or {})})
        wait_port(port)

    def stop(self):
        subprocess.run([str(ROOT / "scripts" / "kafka-broker.sh"), "stop", str(self.dir)], timeout=120,
                       capture_output=True)


def run(cmd, timeout):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"exit {p.returncode}: {' '.join(cmd)}\n{p.stdout[-1500:]}\n{p.stderr[-1500:]}")
    return p.stdout


def produce(args, port, config, topic):
    out = run(JAVA + ["org.apache.kafka.tools.ProducerPerformance", "--topic", topic, "--num-records",
                      str(args.records), "--record-size", str(args.size), "--throughput", "-1",
                      "--command-config", str(config), "--command-property",
                      f"bootstrap.servers=localhost:{port}", "acks=1", "linger.ms=5", "batch.size=65536"],
              args.client_timeout)
    last = [line for line in out.splitlines() if "records sent" in line][-1]
    return float(last.split(",")[1].split("(")[1].split()[0])  # MB/s


def consume(args, port, config, topic):
    out = run(JAVA + ["org.apache.kafka.tools.ConsumerPerformance", "--bootstrap-server", f"localhost:{port}",
                      "--topic", topic, "--messages", str(args.records), "--timeout", "60000", "--hide-header",
                      "--command-config", str(config)], args.client_timeout)
    cols = [c.strip() for c in out.strip().splitlines()[-1].split(",")]
    if int(cols[4]) < args.records:
        raise RuntimeError(f"consumed {cols[4]} of {args.records}")
    return float(cols[8])  # fetch-phase MB/s, the group join left out


def bench(args, broker, work):
    plain, tls = free_port(), free_port()
    log(f"{broker.name}: starting")
    broker.start(work, plain, tls)
    res = {}
    try:
        for proto, port, config in (("PLAINTEXT", plain, work / "plain.properties"),
                                    ("SSL", tls, work / "ssl.properties")):
            topic = f"bench-{proto.lower()}"
            res[proto] = (produce(args, port, config, topic), consume(args, port, config, topic))
            log(f"{broker.name} {proto}: produce {res[proto][0]:.1f} MB/s, consume {res[proto][1]:.1f} MB/s")
    finally:
        broker.stop()
    return res


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--records", type=int, default=200000)
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--brokers", default="skiff,kafka")
    p.add_argument("--client-timeout", type=float, default=180)
    args = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="skiff-bench-tls-"))
    try:
        make_certs(work)
        results = {}
        for name in args.brokers.split(","):
            broker = {"skiff": Skiff, "kafka": Kafka}[name]()
            bwork = work / name
            bwork.mkdir()
            for f in ("server.pem", "ca.pem", "ssl.properties", "plain.properties"):
                shutil.copy(work / f, bwork / f)
            results[broker.name] = bench(args, broker, bwork)
        print(f"\n{args.records} records of {args.size} B, acks=1, one partition, Java perf tools, MB/s")
        print(f"{'broker':<10} {'produce PLAIN':>14} {'produce SSL':>12} {'ratio':>6} "
              f"{'consume PLAIN':>14} {'consume SSL':>12} {'ratio':>6}")
        for name, r in results.items():
            (pp, pc), (sp, sc) = r["PLAINTEXT"], r["SSL"]
            print(f"{name:<10} {pp:>14.1f} {sp:>12.1f} {sp / pp:>6.2f} {pc:>14.1f} {sc:>12.1f} {sc / pc:>6.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
