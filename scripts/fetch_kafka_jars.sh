#!/usr/bin/env bash
# Downloads Apache Kafka's jars (kafka_2.13, kafka-server, kafka-tools,
# kafka-clients, kafka-storage and all their runtime dependencies) from Maven
# Central into a cache directory, so tests and benchmarks can run Kafka's own
# tools (e.g. kafka.tools.DumpLogSegments) against our files.
#
# Usage: scripts/fetch_kafka_jars.sh [version]
#   env KAFKA_VERSION (default 4.0.0), SKIFF_CACHE_DIR (default ~/.cache/skiff)
# Prints the directory holding the jars on stdout (last line). Idempotent: a
# completed download is marked with a .complete file and reused.
# Java classpath:  java -cp "<dir>/*" kafka.tools.DumpLogSegments ...
set -euo pipefail

VERSION="${1:-${KAFKA_VERSION:-4.0.0}}"
CACHE_ROOT="${SKIFF_CACHE_DIR:-${HOME}/.cache/skiff}"
DEST="${CACHE_ROOT}/kafka-${VERSION}"

if [[ -f "${DEST}/.complete" ]]; then
  echo "${DEST}"
  exit 0
fi

command -v mvn >/dev/null 2>&1 || { echo "fetch_kafka_jars: mvn not found" >&2; exit 2; }

WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT

cat > "${WORK}/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>skiff</groupId>
  <artifactId>kafka-jars</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>${VERSION}</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-server</artifactId><version>${VERSION}</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-storage</artifactId><version>${VERSION}</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>${VERSION}</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-clients</artifactId><version>${VERSION}</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-simple</artifactId><version>1.7.36</version></dependency>
  </dependencies>
</project>
POM

mkdir -p "${DEST}.tmp"
# -q: quiet; -B: batch mode (no progress bars). Runtime scope is what java needs.
if ! mvn -q -B -f "${WORK}/pom.xml" \
      org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="${DEST}.tmp" >&2; then
  echo "fetch_kafka_jars: maven download failed" >&2
  rm -rf "${DEST}.tmp"
  exit 1
fi
rm -rf "${DEST}"
mv "${DEST}.tmp" "${DEST}"
touch "${DEST}/.complete"
echo "${DEST}"
