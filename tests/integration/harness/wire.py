"""Tiny Kafka wire helpers the harness uses on its own: which APIs the
broker advertises (ApiVersions v0) and the codec of stored record batches
(read from the partition's segment files, Kafka's on-disk format)."""
from __future__ import annotations

import socket
import struct
from pathlib import Path

API_KEYS = {"Produce": 0, "Fetch": 1, "ListOffsets": 2, "Metadata": 3, "OffsetCommit": 8,
            "OffsetFetch": 9, "FindCoordinator": 10, "JoinGroup": 11, "Heartbeat": 12,
            "LeaveGroup": 13, "SyncGroup": 14, "InitProducerId": 22, "CreateTopics": 19}
GROUP_APIS = ["FindCoordinator", "JoinGroup", "Heartbeat", "LeaveGroup", "SyncGroup",
              "OffsetCommit", "OffsetFetch"]
CODECS = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}


def recv_exact(s: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("broker closed the connection")
        buf += chunk
    return buf


def api_versions(bootstrap: str, timeout: float = 5.0) -> dict[int, tuple[int, int]]:
    """ApiVersions v0: {api_key: (min, max)}."""
    host, port = bootstrap.rsplit(":", 1)
    client_id = b"skiff-compat-probe"
    body = struct.pack(">hhih", 18, 0, 1, len(client_id)) + client_id
    with socket.create_connection((host, int(port)), timeout=timeout) as s:
        s.settimeout(timeout)
        s.sendall(struct.pack(">i", len(body)) + body)
        (size,) = struct.unpack(">i", recv_exact(s, 4))
        resp = recv_exact(s, size)
    corr, err, n = struct.unpack(">ihi", resp[:10])
    if err != 0:
        raise RuntimeError(f"ApiVersions error {err}")
    out, pos = {}, 10
    for _ in range(n):
        k, lo, hi = struct.unpack(">hhh", resp[pos:pos + 6])
        out[k] = (lo, hi)
        pos += 6
    return out


def stored_codecs(log_dirs: list[Path], topic: str, partition: int) -> list[str]:
    """Codec of every record batch stored for topic-partition, in order;
    [] when no log dir holds it."""
    for d in log_dirs:
        pdir = Path(d) / f"{topic}-{partition}"
        if not pdir.is_dir():
            continue
        out = []
        for seg in sorted(pdir.glob("*.log")):
            data = seg.read_bytes()
            pos = 0
            while pos + 23 <= len(data):
                base, length = struct.unpack(">qi", data[pos:pos + 12])
                if length <= 0:
                    break  # preallocated tail
                magic = data[pos + 16]
                if magic >= 2:
                    (attrs,) = struct.unpack(">h", data[pos + 21:pos + 23])
                else:
                    attrs = data[pos + 21]
                out.append(CODECS.get(attrs & 0x7, f"codec{attrs & 0x7}"))
                pos += 12 + length
        return out
    return []
