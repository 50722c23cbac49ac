#!/usr/bin/env bash
# Records the ApiVersions answer of a real Apache Kafka broker as the
# reference Skiff compares itself with (tests/api/api_versions_gap_test.cc,
# `skiff --list-apis`, the table of docs/served-apis.md).
#
# Usage: tools/record_kafka_apiversions.sh [HOST:PORT]
#   Without HOST:PORT it starts Kafka 4.4 with scripts/kafka-broker.sh in a
#   temporary directory, asks it, and stops it again (about a minute).
# Writes api/reference/kafka_api_versions.inc: one {key, "Name", min, max}
# line per API, names from the kafka-clients jar's message schemas. Bounded:
# the broker start times out (KAFKA_START_TIMEOUT) and the request 30 s.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VERSION="${KAFKA_VERSION:-4.4.0}"
OUT="$ROOT/api/reference/kafka_api_versions.inc"
JARS="$("$ROOT/scripts/fetch_kafka_jars.sh" | tail -1)"
CLIENTS_JAR="$JARS/kafka-clients-$VERSION.jar"

ADDR="${1:-}"
if [[ -z "$ADDR" ]]; then
  DIR="$(mktemp -d /tmp/skiff-record-kafka-XXXXXX)"
  trap '"$ROOT/scripts/kafka-broker.sh" stop "$DIR" >/dev/null; rm -rf "$DIR"' EXIT
  PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  ADDR="$("$ROOT/scripts/kafka-broker.sh" start "$DIR/kafka" "$PORT" | tail -1)"
fi

python3 - "$ADDR" "$CLIENTS_JAR" "$VERSION" "$OUT" <<'PY'
import json, re, socket, struct, sys, zipfile

addr, jar, version, out = sys.argv[1:]
host, port = addr.rsplit(":", 1)

def uvarint(b, i):
    shift = value = 0
    while True:
        c = b[i]; i += 1
        value |= (c & 0x7F) << shift
        if not c & 0x80: return value, i
        shift += 7

def compact_string(s):
    return bytes([len(s) + 1]) + s.encode()

# ApiVersions v3 request, header v2 (client id "skiff-recorder", no tags).
client = b"skiff-recorder"
body = struct.pack(">hhih", 18, 3, 1, len(client)) + client + b"\x00"
body += compact_string("skiff-recorder") + compact_string("1.0") + b"\x00"
with socket.create_connection((host, int(port)), timeout=30) as s:
    s.sendall(struct.pack(">i", len(body)) + body)
    def read(n):
        buf = b""
        while len(buf) < n:
            chunk = s.recv(n - len(buf))
            if not chunk: sys.exit("connection closed")
            buf += chunk
        return buf
    (size,) = struct.unpack(">i", read(4))
    resp = read(size)

(corr, err) = struct.unpack(">ih", resp[:6])  # response header v0, then the body
if corr != 1 or err != 0: sys.exit(f"bad answer: correlation {corr}, error {err}")
n, i = uvarint(resp, 6)
apis = []
for _ in range(n - 1):
    key, lo, hi = struct.unpack(">hhh", resp[i:i + 6]); i += 6
    tags, i = uvarint(resp, i)
    if tags: sys.exit("unexpected tagged fields in ApiVersion")
    apis.append((key, lo, hi))

names = {}
with zipfile.ZipFile(jar) as z:
    for f in z.namelist():
        m = re.fullmatch(r"common/message/(\w+)Request\.json", f)
        if not m: continue
        text = "\n".join(l for l in z.read(f).decode().splitlines() if not l.lstrip().startswith("//"))
        names[json.loads(text)["apiKey"]] = m.group(1)

with open(out, "w") as f:
    f.write(f"// Apache Kafka {version}'s ApiVersions answer (v3, a single-node KRaft broker),\n")
    f.write("// recorded by tools/record_kafka_apiversions.sh. Do not edit: re-record.\n")
    f.write("// {api_key, name, min_version, max_version}\n")
    for key, lo, hi in sorted(apis):
        f.write(f'{{{key}, "{names.get(key, "Unknown" + str(key))}", {lo}, {hi}}},\n')
print(f"{out}: {len(apis)} APIs from Kafka {version} at {addr}")
PY
