"""What a test suite waits for when it starts a broker: the Skiff image
under podman, started as Testcontainers starts apache/kafka (its KAFKA_*
variables, a published port), against Skiff's binary and Apache Kafka 4.4
from its jars (scripts/kafka-broker.sh, single-node KRaft, -Xmx1G), both
without a container, on the same machine.

Per start: the time from the start command (podman run, or the exec) to the
readiness line Testcontainers waits for ("Transitioning from RECOVERY to
RUNNING"), and to the first produce acknowledged (skiff_first_produce, a raw
client retrying every millisecond from before the start: Metadata, then
Produce of one record to an auto-created topic); the broker's RSS one second
after that produce; and the image's size (podman's) or, for Kafka, the size
of its jars (the apache/kafka image cannot be pulled here).

    python3 -m bench.container --image localhost/skiff:test [--rounds 3]
    python3 -m bench.container --smoke     # one round

The image must exist in podman (scripts/test-image.sh with
SKIFF_IMAGE_KEEP=1 leaves localhost/skiff:test). Brokers: --brokers,
default image,skiff,kafka.
"""
import json
import os
import subprocess
import threading
import time
from pathlib import Path

from bench import brokers, results
from bench.brokers import log

TARGETS = ("skiff", "skiff_first_produce")
READY = "Transitioning from RECOVERY to RUNNING"
CONTAINERS_CONF = ("[containers]\ndefault_ulimits = []\n"
                   "[engine]\ncgroup_manager = \"cgroupfs\"\nruntime = \"runc\"\n")


def podman(args, *argv, **kw):
    env = {**os.environ, "CONTAINERS_CONF": str(args.containers_conf)}
    return subprocess.run(["podman", *argv], env=env, text=True, capture_output=True, **kw)


def rss_mb_of(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return None


class LineWatch:
    """Reads a process's output as it comes and notes when `READY` first
    appears (time.time_ns())."""

    def __init__(self, stream):
        self.ready_ns = None
        self.lines = []
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream):
        for line in stream:
            self.lines.append(line)
            if self.ready_ns is None and READY in line:
                self.ready_ns = time.time_ns()


def first_produce_prober(args, port, timeout=120):
    prober = subprocess.Popen([str(args.first_produce), "127.0.0.1", str(port), "first", str(timeout)],
                              stdout=subprocess.PIPE, text=True)
    line = prober.stdout.readline()
    if '"ready"' not in line:
        raise RuntimeError(f"skiff_first_produce did not start: {line}")
    return prober


def acked_ns(prober, name, timeout=150):
    result = json.loads(prober.stdout.readline())
    prober.wait(timeout)
    if not result["acked"]:
        raise RuntimeError(f"{name}: no produce acknowledged")
    return result["ack_unix_ns"]


def wait_ready(watch, what, timeout=120):
    deadline = time.monotonic() + timeout
    while watch.ready_ns is None:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: no readiness line in {timeout} s\n{''.join(watch.lines[-20:])}")
        time.sleep(0.005)


def run_image(args):
    port = brokers.free_port()
    name = f"skiff-bench-{os.getpid()}-{port}"
    env = {"CLUSTER_ID": "4L6g3nShT-eMCtK--X86sw", "KAFKA_NODE_ID": "1",
           "KAFKA_LISTENERS": "PLAINTEXT://0.0.0.0:9092,BROKER://0.0.0.0:9093,CONTROLLER://0.0.0.0:9094",
           "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP": "BROKER:PLAINTEXT,PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
           "KAFKA_INTER_BROKER_LISTENER_NAME": "BROKER", "KAFKA_PROCESS_ROLES": "broker,controller",
           "KAFKA_CONTROLLER_LISTENER_NAMES": "CONTROLLER", "KAFKA_CONTROLLER_QUORUM_VOTERS": "1@localhost:9094",
           "KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR": "1", "KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR": "1",
           "KAFKA_TRANSACTION_STATE_LOG_MIN_ISR": "1", "KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS": "0",
           "KAFKA_ADVERTISED_LISTENERS": f"PLAINTEXT://127.0.0.1:{port},BROKER://{name}:9093"}
    cmd = ["podman", "run", "--rm", "--name", name, "--hostname", name, "-p", f"{port}:9092",
           *(a for k, v in env.items() for a in ("-e", f"{k}={v}")), args.image]
    prober = first_produce_prober(args, port)
    t0 = time.time_ns()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "CONTAINERS_CONF": str(args.containers_conf)})
    try:
        watch = LineWatch(proc.stdout)
        ack = acked_ns(prober, "image")
        wait_ready(watch, "image")
        time.sleep(1)
        pid = podman(args, "inspect", name, "--format", "{{.State.Pid}}").stdout.strip()
        rss = rss_mb_of(int(pid))
    finally:
        podman(args, "rm", "-f", "-t", "5", name)
        proc.wait(30)
    return {"ready_ms": round((watch.ready_ns - t0) / 1e6, 1), "first_produce_ms": round((ack - t0) / 1e6, 1),
            "rss_mb": rss}


def watch_output(broker, box, timeout=120):
    """Polls the broker's output file every 5 ms for READY; stamps box["ns"]."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and broker.alive():
        if READY in broker.output_text():
            box["ns"] = time.time_ns()
            return
        time.sleep(0.005)


def run_process(args, name):
    broker = brokers.new(args, name, args.work)
    broker.prepare()  # Kafka's storage format: before the clock, as a container's would be in its image
    prober = first_produce_prober(args, broker.port)
    box = {"ns": None}
    t0 = time.time_ns()
    broker.start()
    watcher = threading.Thread(target=watch_output, args=(broker, box), daemon=True)
    watcher.start()
    try:
        ack = acked_ns(prober, name)
        watcher.join(120)
        if box["ns"] is None:
            raise RuntimeError(f"{name}: no readiness line\n{broker.log_tail()}")
        time.sleep(1)
        rss = broker.rss_mb()
    finally:
        broker.stop()
        broker.remove()
    return {"ready_ms": round((box["ns"] - t0) / 1e6, 1), "first_produce_ms": round((ack - t0) / 1e6, 1),
            "rss_mb": rss}


def sizes(args):
    out = {}
    if "image" in args.brokers:
        size = podman(args, "image", "inspect", args.image, "--format", "{{.Size}}").stdout.strip()
        out["image"] = f"{int(size) / 1e6:.1f} MB (image)"
    if "skiff" in args.brokers:
        out["skiff"] = f"{args.skiff.stat().st_size / 1e6:.1f} MB (binary, unstripped)"
    if "kafka" in args.brokers:
        jars = brokers.kafka_jars(args.kafka_version)
        total = sum(f.stat().st_size for f in jars.rglob("*") if f.is_file())
        out["kafka"] = f"{total / 1e6:.1f} MB (jars, without a JVM)"
    return out


def report(args, rep):
    size = sizes(args)
    rows = []
    for name, label in (("image", f"Skiff image ({args.image}, podman)"), ("skiff", "Skiff binary (no container)"),
                        ("kafka", f"Apache Kafka {args.kafka_version}, jars (no container)")):
        runs = rep.by_broker(name)
        if not runs:
            continue
        rows.append([label, results.spread([r["ready_ms"] for r in runs])[0], results.spread([r["first_produce_ms"] for r in runs])[0],
                     results.spread([r["rss_mb"] for r in runs])[0], size.get(name, "–")])
    rep.add(results.table(["broker", "start → readiness line, ms", "start → first produce acked, ms",
                           "RSS 1 s after, MB", "size"], rows))
    rep.add("Medians (min–max) over the rounds. Start: `podman run` for the image (container creation, "
            "network and port publishing included), the exec for the others (Kafka's storage format done "
            "before). The processes' readiness lines are read from their output file every 5 ms.")


def parse():
    p = results.parser(__doc__)
    brokers.add_build_args(p, default="build")
    results.add_out_arg(p)
    p.add_argument("--image", default="localhost/skiff:test", help="the Skiff image in podman")
    p.add_argument("--brokers", default="image,skiff,kafka", help="of image, skiff, kafka")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--smoke", action="store_true", help="one round")
    p.add_argument("--first-produce", help="skiff_first_produce (default: in BUILD_DIR/tests/bench)")
    args = p.parse_args()
    if args.smoke:
        args.rounds = 1
    brokers.need(args, *TARGETS)
    args.first_produce = args.first_produce or brokers.tool(args, "skiff_first_produce")
    return args


def main():
    args = parse()
    brokers.stop_on_sigterm()
    rep = results.Report("container", args, results.environment(image=args.image))
    with brokers.work_dir(args, "skiff-bench-container-") as work:
        args.containers_conf = work / "containers.conf"
        args.containers_conf.write_text(os.environ.get("SKIFF_BENCH_CONTAINERS_CONF_TEXT", CONTAINERS_CONF))
        rep.rounds(lambda name, r: run_image(args) if name == "image" else run_process(args, name))
        report(args, rep)
    rep.finish()


if __name__ == "__main__":
    main()
