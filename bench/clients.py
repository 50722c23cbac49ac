"""The load clients the benchmarks run, each to completion and bounded:
Kafka's own ProducerPerformance / ConsumerPerformance (the Java client, from
the cached jars), skiff_rdkafka_bench (librdkafka) and skiff_first_produce
(a raw client: exec -> first acknowledged produce, topic creation).
"""
import json
import subprocess
import time

# kafka-run-class.sh's JVM defaults for the tools, quieter.
JAVA_TOOL_OPTS = ["-Xmx512M", "-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
                  "-XX:InitiatingHeapOccupancyPercent=35", "-Djava.awt.headless=true",
                  "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"]


def run_client(cmd, timeout, stderr_lines=None):
    """Runs a client to completion and returns its stdout (measure() times
    it); its stderr's last lines go into `stderr_lines` when given (a
    client's own log: librdkafka's request timeouts, disconnections)."""
    proc = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise RuntimeError(f"timed out after {timeout}s: {' '.join(map(str, cmd))}\n{err[-2000:]}")
    # communicate() reaped the child: measure() reads its CPU from RUSAGE_CHILDREN.
    if stderr_lines is not None:
        stderr_lines.extend(err.splitlines()[-20:])
    if proc.returncode != 0:
        raise RuntimeError(f"exit {proc.returncode}: {' '.join(map(str, cmd))}\n{out[-2000:]}\n{err[-2000:]}")
    return out


def last_json(out):
    return json.loads(out.strip().splitlines()[-1])


def java(jars, *argv):
    return ["java", *JAVA_TOOL_OPTS, "-cp", f"{jars}/*", *argv]


def java_produce(jars, topic, records, size, connect, timeout):
    """ProducerPerformance at full speed; `connect`: how it reaches the broker
    and its settings (["--producer-props", "bootstrap.servers=...", "acks=1"],
    or a --command-config file and --command-property settings)."""
    out = run_client(java(jars, "org.apache.kafka.tools.ProducerPerformance", "--topic", topic, "--num-records",
                          str(records), "--record-size", str(size), "--throughput", "-1", *connect), timeout)
    # "N records sent, X records/sec (Y MB/sec), A ms avg latency, M ms max latency, P50 ms 50th, ..."
    last = [line for line in out.splitlines() if "records sent" in line][-1]
    parts = [p.strip() for p in last.split(",")]
    return {"records_per_s": float(parts[1].split()[0]), "mb_per_s": float(parts[1].split("(")[1].split()[0]),
            "client_p99_ms": float(parts[6].split()[0])}


def java_consume(jars, bootstrap, topic, records, timeout, *extra):
    """ConsumerPerformance until `records` are read: the fetch-phase rate (the
    group join, which Kafka delays, left out: it favours neither broker's
    fetch path)."""
    out = run_client(java(jars, "org.apache.kafka.tools.ConsumerPerformance", "--bootstrap-server", bootstrap,
                          "--topic", topic, "--messages", str(records), "--timeout", "60000", "--hide-header",
                          *extra), timeout)
    # start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec,
    # rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
    cols = [c.strip() for c in out.strip().splitlines()[-1].split(",")]
    if int(cols[4]) < records:
        raise RuntimeError(f"consumed {cols[4]} of {records}")
    return {"records_per_s": float(cols[9]), "mb_per_s": float(cols[8])}


def rdkafka(binary, mode, bootstrap, topic, timeout, *extra):
    """skiff_rdkafka_bench MODE: its JSON result line."""
    return last_json(run_client([binary, mode, "--bootstrap", bootstrap, "--topic", topic, *extra], timeout))


def rd_produce(binary, bootstrap, topic, records, size, acks, timeout, *extra):
    r = rdkafka(binary, "produce", bootstrap, topic, timeout, "--records", str(records), "--size", str(size),
                "--acks", acks, *extra)
    if r["records"] != records:
        raise RuntimeError(f"produced {r['records']} of {records}")
    return r


def first_produce(binary, broker, timeout=180):
    """Starts `broker` and returns ms from its exec to the first produce it
    acknowledged: a raw client retrying every millisecond (Metadata, then
    Produce) is ready before the exec."""
    prober = subprocess.Popen([str(binary), "127.0.0.1", str(broker.port), "first", str(timeout)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert json.loads(prober.stdout.readline())["ready"]
        t0 = time.time_ns()
        broker.start()
        line = prober.stdout.readline()
        prober.wait(timeout + 30)
    finally:
        if prober.poll() is None:
            prober.kill()
            prober.wait()
    result = json.loads(line)
    if not result["acked"]:
        raise RuntimeError(f"{broker.name}: no produce acknowledged within {timeout} s")
    return (result["ack_unix_ns"] - t0) / 1e6


def make_topics(binary, broker, *topics):
    """Each topic auto-created with one 100-byte record (skiff_first_produce),
    so that no timed test counts a topic's creation."""
    for topic in topics:
        run_client([binary, "127.0.0.1", broker.port, topic, "60"], 90)
