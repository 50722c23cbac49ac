"""A raw Kafka-protocol probe for scripts/test-image-compat.sh: what a
listener answers to ApiVersions v0, and whether it answers Metadata v1 or
closes the connection (a KRaft controller listener closes it, as Kafka's).
    python3 kafka_probe.py HOST:PORT  ->  prints "apis=<keys> metadata=<answered|closed>"
"""

import socket
import struct
import sys


def request(sock, api_key, version, correlation, body=b""):
    client = b"skiff-probe"
    header = struct.pack(">hhih", api_key, version, correlation, len(client)) + client
    frame = header + body
    sock.sendall(struct.pack(">i", len(frame)) + frame)
    size = sock.recv(4, socket.MSG_WAITALL)
    if len(size) < 4:
        return None
    (n,) = struct.unpack(">i", size)
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def main():
    host, port = sys.argv[1].rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as s:
        resp = request(s, 18, 0, 1)
        _, error, count = struct.unpack(">ihi", resp[:10])
        keys = sorted(struct.unpack(">hhh", resp[10 + 6 * i : 16 + 6 * i])[0] for i in range(count))
        try:
            answered = request(s, 3, 1, 2, struct.pack(">i", -1)) is not None
        except OSError:
            answered = False
    print(f"error={error} apis={','.join(map(str, keys))} metadata={'answered' if answered else 'closed'}")


if __name__ == "__main__":
    main()
