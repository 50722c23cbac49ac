#!/usr/bin/env bash
# Regenerates tests/schema/json/oracle_vectors.txt from
# tests/schema/json/oracle_cases.txt with the libraries Confluent's registry
# uses for JSON Schema (Jackson for the stored text, everit-json-schema
# 1.14.6 for loading drafts 4-7), fetched from Maven Central by mvn.
#   tools/json_schema_oracle/gen.sh
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "${HERE}/../.." && pwd)"
cd "${HERE}"
mvn -q -B compile dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
java -cp "target/classes:$(cat target/classpath.txt)" skiff.oracle.Oracle \
  "${ROOT}/tests/schema/json/oracle_cases.txt" "${ROOT}/tests/schema/json/oracle_vectors.txt"
echo "wrote tests/schema/json/oracle_vectors.txt"
