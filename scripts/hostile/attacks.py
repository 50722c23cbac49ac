"""The attacks of the hostile-input script. Each takes the broker (and the
run's options), attacks it, and returns a list of failures (empty: passed).
The caller checks afterwards that the broker is alive and kcat still works.
"""
import os
import random
import resource
import select
import socket
import struct
import threading
import time

import wire

SEEDS = [
    wire.api_versions_v0(),
    wire.metadata_v1(["fuzz"]),
    wire.produce_v3("fuzz", 0, wire.record_batch([b"seed-record"])),
    wire.fetch_v4("fuzz", 0, 0),
]


def _mutate(rng, frame):
    b = bytearray(frame)
    kind = rng.randrange(4)
    if kind == 0:  # flip bytes after the size and the API key
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(6, len(b))
            b[i] = rng.randrange(256)
    elif kind == 1:  # cut short
        b = b[:rng.randrange(6, len(b))]
    elif kind == 2:  # splice random bytes in
        i = rng.randrange(6, len(b))
        b[i:i] = os.urandom(rng.randint(1, 64))
    else:  # extreme integers where lengths and counts live
        i = rng.randrange(6, max(7, len(b) - 4))
        b[i:i + 4] = struct.pack(">i", rng.choice([-1, -2, 0x7FFFFFFF, 0x10000, 0]))
    if rng.random() < 0.8:  # usually a consistent size prefix, so the body is parsed
        b[0:4] = struct.pack(">i", len(b) - 4)
    return bytes(b)


def _fuzz_case(rng):
    if rng.random() < 0.3:
        return os.urandom(rng.randint(1, 2000))
    return _mutate(rng, rng.choice(SEEDS))


def _exchange_batch(port, frames, wait=0.5):
    """Sends each frame on its own connection, waits for answers or closes."""
    socks = []
    for f in frames:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            s.setblocking(False)
            s.send(f)
            socks.append(s)
        except OSError:
            pass
    deadline = time.time() + wait
    while socks and time.time() < deadline:
        ready, _, _ = select.select(socks, [], [], max(0.0, deadline - time.time()))
        for s in ready:
            try:
                s.recv(65536)
            except OSError:
                pass
            socks.remove(s)
            s.close()
    for s in socks:
        s.close()


def fuzz(broker, opts):
    rng = random.Random(opts.seed)
    cases = 3000 if opts.long else 400
    for start in range(0, cases, 50):
        _exchange_batch(broker.port, [_fuzz_case(rng) for _ in range(50)])
        if not broker.alive():
            return ["broker died during fuzz batch starting at case %d (seed %d)" % (start, opts.seed)]
    return []


def _closed_within(sock, seconds):
    sock.settimeout(seconds)
    try:
        while True:
            if not sock.recv(65536):
                return True
    except socket.timeout:
        return False
    except OSError:
        return True


def oversized(broker, opts):
    failures = []
    for size in (0x7FFFFFFF, -1, -0x80000000, opts.max_frame + 1):
        s = socket.create_connection(("127.0.0.1", broker.port), timeout=2)
        s.sendall(struct.pack(">i", size) + b"\0" * 64)
        if not _closed_within(s, 3):
            failures.append("frame size %d: connection not closed" % size)
        s.close()
    # Max-size frames (an ApiVersions request padded with zeros) are answered.
    head = wire.api_versions_v0()[4:]
    frame = struct.pack(">i", opts.max_frame) + head + b"\0" * (opts.max_frame - len(head))
    count = 40 if opts.long else 12
    conns = [wire.Conn(broker.port, timeout=30) for _ in range(count)]
    for c in conns:
        c.sock.sendall(frame)
    for i, c in enumerate(conns):
        try:
            size = struct.unpack(">i", c._exact(4))[0]
            c._exact(size)
        except OSError as e:
            failures.append("max-size frame %d not answered: %s" % (i, e))
        c.close()
    return failures


def slowloris(broker, opts):
    """Dribblers must be dropped (connections.max.idle.ms) while others are served."""
    n, duration = (200, 20.0) if opts.long else (50, 6.0)
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", broker.port), timeout=2)
        s.sendall(struct.pack(">i", 1000))
        socks.append(s)
    failures, closed = [], set()
    result = {}
    checker = threading.Thread(target=lambda: result.update(err=broker.check_clients()))
    start = time.time()
    checker_started = False
    while time.time() - start < duration and len(closed) < n:
        if not checker_started and time.time() - start > 1.0:
            checker.start()
            checker_started = True
        for i, s in enumerate(socks):
            if i in closed:
                continue
            try:
                s.send(b"x")
            except OSError:
                closed.add(i)
        time.sleep(0.2)
    if checker_started:
        checker.join()
    for s in socks:
        s.close()
    if result.get("err"):
        failures.append("during slowloris: " + result["err"])
    if len(closed) < n:
        failures.append("%d of %d dribbling connections still open after %.0f s" % (n - len(closed), n, duration))
    return failures


def descriptors(broker, opts):
    """Accept at the descriptor limit: no spin, bounded log, recovery."""
    soft, hard = resource.prlimit(broker.pid, resource.RLIMIT_NOFILE)
    resource.prlimit(broker.pid, resource.RLIMIT_NOFILE, (broker.open_fds() + 16, hard))
    failures = []
    flood = [socket.create_connection(("127.0.0.1", broker.port), timeout=2) for _ in range(64)]
    time.sleep(0.3)
    cpu0 = broker.cpu_seconds()
    time.sleep(4.0 if opts.long else 2.0)
    cpu = broker.cpu_seconds() - cpu0
    lines = sum(1 for l in broker.output().splitlines() if "accept on listener" in l)
    if cpu > 0.5:
        failures.append("broker used %.2f s of CPU at the descriptor limit (spinning?)" % cpu)
    if lines > 5:
        failures.append("%d accept failure log lines (unbounded)" % lines)
    for s in flood:
        s.close()
    time.sleep(1.5)
    err = broker.check_clients()  # still under the lowered limit: accepting resumed by itself
    if err:
        failures.append("after the flood closed: " + err)
    resource.prlimit(broker.pid, resource.RLIMIT_NOFILE, (soft, hard))
    print("  descriptors: CPU %.2f s over the window, %d accept log line(s)" % (cpu, lines))
    return failures
