#!/usr/bin/env bash
# Regenerates the encode vectors of ParsedSchema::encode from their cases:
#   tests/schema/avro/encode_cases.txt -> encode_vectors.txt   (Avro Java 1.12.2)
#   tests/schema/json/encode_cases.txt -> encode_vectors.txt   (everit 1.14.6, Jackson)
#   tests/schema/protobuf/encode_cases.txt -> encode_vectors.txt (confluent-kafka's
#     ProtobufSerializer and protobuf's json_format, in Python; protoc)
# Java libraries come from Maven Central through mvn; the Python ones from
# the venv in $SKIFF_ORACLE_PYTHON (default ~/.cache/skiff/compat/venv).
#   tools/encode_oracle/gen.sh
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "${HERE}/../.." && pwd)"
PY="${SKIFF_ORACLE_PYTHON:-$HOME/.cache/skiff/compat/venv/bin/python}"
cd "${HERE}"
mvn -q -B compile dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
CP="target/classes:$(cat target/classpath.txt)"
java -cp "$CP" -Dorg.slf4j.simpleLogger.defaultLogLevel=off skiff.encode.AvroEncodeOracle \
  "${ROOT}/tests/schema/avro/encode_cases.txt" "${ROOT}/tests/schema/avro/encode_vectors.txt" 2> >(grep -v '^SLF4J' >&2 || true)
if [ -f "${ROOT}/tests/schema/json/encode_cases.txt" ]; then
  java -cp "$CP" skiff.encode.JsonSchemaEncodeOracle \
    "${ROOT}/tests/schema/json/encode_cases.txt" "${ROOT}/tests/schema/json/encode_vectors.txt"
fi
if [ -f "${ROOT}/tests/schema/protobuf/encode_cases.txt" ]; then
  "$PY" "${HERE}/protobuf_oracle.py" \
    "${ROOT}/tests/schema/protobuf/encode_cases.txt" "${ROOT}/tests/schema/protobuf/encode_vectors.txt"
fi
echo "wrote tests/schema/{avro,json,protobuf}/encode_vectors.txt"
