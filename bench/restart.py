"""Restart after kill -9, and what flushing every acknowledgement costs (not
a test). Skiff against Apache Kafka 4.4, one broker at a time.

  1. restart: for each size in --sizes (GB): a fresh broker, topic `restart`
     of --partitions partitions filled with SIZE GB of 16 KiB records by
     librdkafka (acks=1, no compression), then SIGKILL and a start on the same
     data: ms from exec to the first acknowledged produce (skiff_first_produce,
     retrying every ms) and to the first Fetch of partition 0 answered
     without error (a raw Fetch v4 from the first offset). The broker and its
     data are removed before the next size. A size that would leave less than
     --spare-gb free where the data goes is skipped, and the report says so.
  2. flush: 1 KiB records, acks=all, --flush-records of them, on a broker
     with its defaults and on one with log.flush.interval.messages=1 (a
     flush before every acknowledgement): records/s and MB/s.
  3. partitions (Skiff only; --partition-counts, default 100 and 100000, on
     --partitions-dir, default /dev/shm): start after a clean stop, RSS and
     one-record produce p50/p99 through bench.partitions.

  python3 -m bench.restart [--sizes 1,10] [--brokers skiff,kafka] [--smoke]
"""
import json
import os
import shutil
import socket
import struct
import sys
import time
from pathlib import Path

from bench import brokers, clients
from bench.brokers import log
from bench.results import Report, add_out_arg, parser, table

RECORD = 16384
FETCH_VERSION = 4


def fetch_request(topic, partition, correlation):
    """Fetch v4 (not flexible) of one partition from offset 0, max 1 MB."""
    client = b"restart-bench"
    body = struct.pack(">iiiib", -1, 0, 1, 1 << 20, 0)  # replica, max wait, min bytes, max bytes, isolation
    t = topic.encode()
    body += struct.pack(">ih", 1, len(t)) + t + struct.pack(">iiqi", 1, partition, 0, 1 << 20)
    head = struct.pack(">hhih", 1, FETCH_VERSION, correlation, len(client)) + client
    return struct.pack(">i", len(head) + len(body)) + head + body


def fetch_ok(port, topic, partition=0):
    """One Fetch; True if partition 0 answered with error 0 and records."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(fetch_request(topic, partition, 7))
        size = struct.unpack(">i", recv_exact(s, 4))[0]
        resp = recv_exact(s, size)
    # correlation, throttle, [topics]: name, [partitions]: index, error, hw, lso, aborted(array), records
    pos = 4 + 4 + 4
    name_len = struct.unpack_from(">h", resp, pos)[0]
    pos += 2 + name_len + 4
    _, error, hw = struct.unpack_from(">ihq", resp, pos)
    return error == 0 and hw > 0


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise RuntimeError("connection closed")
        buf += chunk
    return buf


def until_fetch(port, topic, timeout=300):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if fetch_ok(port, topic):
                return time.time_ns()
        except (OSError, RuntimeError, struct.error):
            pass
        time.sleep(0.001)
    raise RuntimeError(f"no fetch answered within {timeout} s")


def free_gb(path):
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize / 1e9


def recovery_lines(b):
    keys = ("recover", "truncat", "loaded", "started in")
    return [line[:200] for line in b.output_text().splitlines() if any(k in line.lower() for k in keys)][-6:]


def restart_one(args, name, gb):
    b = brokers.new(args, name, args.work)
    try:
        b.started()
        clients.make_topics(args.first_produce, b, "warm")
        admin_create(args, b)
        records = int(gb * 1e9 / RECORD)
        t0 = time.monotonic()
        clients.rd_produce(args.rdkafka, b.bootstrap, "restart", records, RECORD, "1", 3600,
                           "--set", "linger.ms=5", "--set", "batch.size=1048576")
        fill_s = time.monotonic() - t0
        data_gb = sum(f.stat().st_size for f in b.dir.rglob("*.log")) / 1e9
        b.proc.kill()
        b.proc.wait()
        ack_ms = clients.first_produce(args.first_produce, b, timeout=600)
        start_ns = time.time_ns()
        fetch_ns = until_fetch(b.port, "restart")
        out = {"broker": name, "gb": gb, "data_gb": round(data_gb, 2), "fill_s": round(fill_s, 1),
               "first_produce_ms": round(ack_ms, 1), "then_fetch_ms": round((fetch_ns - start_ns) / 1e6, 1),
               "rss_mb": b.rss_mb(), "log": recovery_lines(b)}
        log(f"  {name} {gb} GB: {out}")
        return out
    finally:
        b.stop()
        b.remove()


def admin_create(args, b):
    """Topic `restart` with --partitions partitions (auto-creation makes 1),
    through Kafka's own kafka-topics for both brokers."""
    jars = brokers.kafka_jars(args.kafka_version)
    clients.run_client(clients.java(jars, "org.apache.kafka.tools.TopicCommand", "--bootstrap-server", b.bootstrap,
                                    "--create", "--topic", "restart", "--partitions", str(args.partitions)), 180)


def flush_one(args, name, flush_each):
    props = {"log.flush.interval.messages": "1"} if flush_each else {}
    b = brokers.new(args, name, args.work, props=props)
    try:
        b.started()
        clients.make_topics(args.first_produce, b, "flush")
        r = clients.rd_produce(args.rdkafka, b.bootstrap, "flush", args.flush_records, 1024, "all", 1800)
        out = {"broker": name, "flush_each": flush_each, "records_s": r.get("records_per_s"), "mb_s": r.get("mb_per_s"),
               "raw": r}
        log(f"  {name} flush={flush_each}: {out}")
        return out
    finally:
        b.stop()
        b.remove()


def main():
    p = parser(__doc__)
    p.add_argument("--sizes", default="1,10", help="GB per restart measurement, comma separated")
    p.add_argument("--partitions", type=int, default=4)
    p.add_argument("--spare-gb", type=float, default=15.0)
    p.add_argument("--brokers", default="skiff,kafka")
    p.add_argument("--flush-records", type=int, default=200000)
    p.add_argument("--partition-counts", default="100,100000")
    p.add_argument("--partitions-dir", default="/dev/shm")
    p.add_argument("--only", default="restart,flush,partitions")
    p.add_argument("--smoke", action="store_true", help="0.05 GB, 5,000 flush records, 100 and 2,000 partitions")
    brokers.add_build_args(p)
    add_out_arg(p)
    args = p.parse_args()
    if args.smoke:
        args.sizes, args.flush_records, args.partition_counts = "0.05", 5000, "100,2000"
    brokers.stop_on_sigterm()
    brokers.need(args, "skiff", "skiff_rdkafka_bench", "skiff_first_produce", "skiff_partitions_bench")
    args.rdkafka = brokers.tool(args, "skiff_rdkafka_bench")
    args.first_produce = brokers.tool(args, "skiff_first_produce")
    names = args.brokers.split(",")
    report = Report("restart", args)
    with brokers.work_dir(args, "skiff-restart-"):
        if "restart" in args.only:
            restart_table(args, report, names)
        if "flush" in args.only:
            rows = []
            for name in names:
                for each in (False, True):
                    r = report.run(name, flush_one(args, name, each))
                    rows.append([name, "every ack" if each else "default", str(r["records_s"]), str(r["mb_s"])])
            report.add(table(["broker", "flush", "records/s (1 KiB, acks=all)", "MB/s"], rows))
    if "partitions" in args.only:
        partitions_table(args, report)
    report.finish()
    return 0


def restart_table(args, report, names):
    rows = []
    for gb in (float(s) for s in args.sizes.split(",")):
        room = free_gb(args.work)
        if room - gb * 1.1 < args.spare_gb:
            report.add(f"- {gb} GB skipped: {room:.0f} GB free, {args.spare_gb:.0f} GB must stay free")
            continue
        for name in names:
            r = report.run(name, restart_one(args, name, gb))
            rows.append([name, str(r["data_gb"]), str(r["fill_s"]), str(r["first_produce_ms"]),
                         str(r["then_fetch_ms"]), str(r["rss_mb"])])
    report.add(table(["broker", "data GB", "fill s", "kill -9 → first produce ack ms", "then first fetch ms",
                      "RSS MB"], rows))


def partitions_table(args, report):
    from bench import partitions
    args.bench_dir, args.nofile, args.produces = args.partitions_dir, 20000, 5000
    rows = []
    for n in (int(s) for s in args.partition_counts.split(",")):
        r = report.run("skiff", partitions.one_count(args, n))
        log(f"  {n} partitions: {r}")
        if "failed" in r:
            rows.append([str(n), "failed", "", "", "", r["failed"]])
            continue
        rows.append([str(n), str(r["startup_ms"]), str(r["rss_after_start_mb"]), str(r["produce"]["p50_us"]),
                     str(r["produce"]["p99_us"]), str(r["rss_after_produce_mb"])])
    report.add(table(["partitions", "start after clean stop ms", "RSS after start MB", "produce p50 us", "p99 us",
                      "RSS after produce MB"], rows))


if __name__ == "__main__":
    sys.exit(main())
