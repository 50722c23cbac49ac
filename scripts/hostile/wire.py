"""A minimal Kafka wire client (Python 3 stdlib only) for the hostile-input
script: framing, the request header, and just enough of ApiVersions, Metadata,
CreateTopics, Produce and Fetch (old, non-flexible versions) to drive the
broker and read error codes that kcat hides (KAFKA_STORAGE_ERROR = 56).
"""
import socket
import struct
import time

KAFKA_STORAGE_ERROR = 56


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC_TABLE = _crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _CRC_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def varint(n):
    z = (n << 1) ^ (n >> 63)  # zigzag
    out = bytearray()
    while True:
        b = z & 0x7F
        z >>= 7
        if z:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def string(s):
    if s is None:
        return struct.pack(">h", -1)
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def record_batch(values, timestamp_ms=None):
    """A magic-2 batch of uncompressed records with the given byte values."""
    ts = int(time.time() * 1000) if timestamp_ms is None else timestamp_ms
    recs = bytearray()
    for i, v in enumerate(values):
        body = b"\x00" + varint(0) + varint(i) + varint(-1) + varint(len(v)) + v + varint(0)
        recs += varint(len(body)) + body
    after_crc = struct.pack(">hiqqqhii", 0, len(values) - 1, ts, ts, -1, -1, -1, len(values)) + bytes(recs)
    crc = crc32c(after_crc)
    tail = struct.pack(">ibI", -1, 2, crc) + after_crc  # leader epoch, magic, crc
    return struct.pack(">qi", 0, len(tail)) + tail


def request(api_key, version, correlation_id, body, client_id="hostile"):
    payload = struct.pack(">hhi", api_key, version, correlation_id) + string(client_id) + body
    return struct.pack(">i", len(payload)) + payload


def api_versions_v0(cid=1):
    return request(18, 0, cid, b"")


def metadata_v1(topics, cid=1):
    body = struct.pack(">i", len(topics)) + b"".join(string(t) for t in topics)
    return request(3, 1, cid, body)


def create_topics_v0(topic, partitions=1, cid=1):
    body = struct.pack(">i", 1) + string(topic) + struct.pack(">ihii", partitions, 1, 0, 0)
    return request(19, 0, cid, body + struct.pack(">i", 10000))


def produce_v3(topic, partition, batch, acks=1, cid=1):
    body = string(None) + struct.pack(">hii", acks, 10000, 1) + string(topic)
    body += struct.pack(">iii", 1, partition, len(batch)) + batch
    return request(0, 3, cid, body)


def fetch_v4(topic, partition, offset, cid=1):
    body = struct.pack(">iiiib", -1, 100, 1, 1 << 20, 0) + struct.pack(">i", 1) + string(topic)
    body += struct.pack(">iiqi", 1, partition, offset, 1 << 20)
    return request(1, 4, cid, body)


class Conn:
    def __init__(self, port, timeout=10.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)

    def close(self):
        self.sock.close()

    def _exact(self, n):
        out = bytearray()
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise ConnectionError("connection closed by the broker")
            out += chunk
        return bytes(out)

    def call(self, frame):
        """Sends a request frame; returns the response body after the correlation id."""
        self.sock.sendall(frame)
        size = struct.unpack(">i", self._exact(4))[0]
        return self._exact(size)[4:]


def produce_error(port, topic, partition, values):
    """The error code Produce v3 answers for one batch."""
    c = Conn(port)
    try:
        r = c.call(produce_v3(topic, partition, record_batch(values)))
    finally:
        c.close()
    # responses: [name, [partition, error_code, base_offset, log_append_time]], throttle
    name_len = struct.unpack(">h", r[4:6])[0]
    pos = 6 + name_len + 4 + 4
    return struct.unpack(">h", r[pos:pos + 2])[0]


def fetch_record_count(port, topic, partition, offset=0):
    """(error code, number of records) of one Fetch v4 from `offset`."""
    c = Conn(port)
    try:
        r = c.call(fetch_v4(topic, partition, offset))
    finally:
        c.close()
    name_len = struct.unpack(">h", r[8:10])[0]
    pos = 10 + name_len + 4 + 4  # partitions count, partition index
    err = struct.unpack(">h", r[pos:pos + 2])[0]
    pos += 2 + 8 + 8  # high watermark, last stable offset
    aborted = struct.unpack(">i", r[pos:pos + 4])[0]
    pos += 4 + max(aborted, 0) * 16
    size = struct.unpack(">i", r[pos:pos + 4])[0]
    records, n = r[pos + 4:pos + 4 + max(size, 0)], 0
    while len(records) >= 61:
        batch_len = struct.unpack(">i", records[8:12])[0]
        if len(records) < 12 + batch_len:
            break
        n += struct.unpack(">i", records[57:61])[0]
        records = records[12 + batch_len:]
    return err, n


def metadata_topic_error(port, topic):
    """The topic error code Metadata v1 answers (0: known)."""
    c = Conn(port)
    try:
        r = c.call(metadata_v1([topic]))
    finally:
        c.close()
    pos, brokers = 4, struct.unpack(">i", r[0:4])[0]
    for _ in range(brokers):
        pos += 4
        pos += 2 + struct.unpack(">h", r[pos:pos + 2])[0] + 4
        rack = struct.unpack(">h", r[pos:pos + 2])[0]
        pos += 2 + max(rack, 0)
    pos += 4 + 4  # controller id, topic count
    return struct.unpack(">h", r[pos:pos + 2])[0]
