#!/usr/bin/env bash
# Downloads Apache Kafka's jars (kafka_2.13, kafka-server, kafka-tools,
# kafka-clients, kafka-storage, the coordinators and all their runtime
# dependencies) from Maven Central into a cache directory, so tests and
# benchmarks can run Kafka itself and its own tools (e.g.
# org.apache.kafka.tools.DumpLogSegments) against our files.
#
# Usage: scripts/fetch_kafka_jars.sh [version] [set]
#   set: broker (default: the jars above, into kafka-VERSION), streams
#   (kafka-streams VERSION and its runtime dependencies, with kafka-clients
#   and rocksdbjni, into kafka-streams-VERSION: what the exactly-once Streams
#   application of tests/integration runs on) or connect (connect-runtime,
#   whose org.apache.kafka.connect.cli.ConnectDistributed runs a distributed
#   worker, with its runtime dependencies (connect-api, connect-json, Jetty,
#   Jersey), into kafka-connect-VERSION: what tests/integration/test_connect.py
#   runs; the registry we reach serves neither connect-file nor
#   connect-mirror 4.4.0, so that test compiles a connector of its own).
#   Each set is its own directory,
#   so adding one never rewrites a directory a running broker loads from.
#   env KAFKA_VERSION (default 4.4.0), SKIFF_CACHE_DIR (default ~/.cache/skiff)
# Prints the directory holding the jars on stdout (last line).
# Java classpath:  java -cp "<dir>/*" org.apache.kafka.tools.DumpLogSegments ...
#
# Safe to run concurrently (ctest -j runs several tests that need the jars):
# - Maven's local repository is $CACHE_ROOT/m2, not ~/.m2: everything this
#   script writes lives under $CACHE_ROOT, so one lock covers it all (two
#   caches sharing ~/.m2 let two Mavens write the same jar at once, and one
#   copied a half-written kafka-tools jar);
# - the download runs under an exclusive flock on $CACHE_ROOT/maven.lock, so
#   only one Maven writes that repository at a time, and a second caller
#   waits for the first and then finds the work done;
# - each run downloads into its own mktemp directory beside the destination
#   and publishes it with one rename; the .complete marker is written inside
#   it before the rename, so a reader never sees a partial directory.
set -euo pipefail

VERSION="${1:-${KAFKA_VERSION:-4.4.0}}"
SET="${2:-broker}"
CACHE_ROOT="${SKIFF_CACHE_DIR:-${HOME}/.cache/skiff}"
case "${SET}" in
  broker) DEST="${CACHE_ROOT}/kafka-${VERSION}"
          ARTIFACTS="kafka_2.13 kafka-server kafka-storage kafka-tools kafka-clients kafka-group-coordinator kafka-transaction-coordinator" ;;
  streams) DEST="${CACHE_ROOT}/kafka-streams-${VERSION}"
           ARTIFACTS="kafka-streams kafka-clients" ;;
  connect) DEST="${CACHE_ROOT}/kafka-connect-${VERSION}"
           ARTIFACTS="connect-runtime kafka-clients" ;;
  *) echo "fetch_kafka_jars: unknown set '${SET}' (broker, streams, connect)" >&2; exit 2 ;;
esac

if [[ -f "${DEST}/.complete" ]]; then
  echo "${DEST}"
  exit 0
fi

command -v mvn >/dev/null 2>&1 || { echo "fetch_kafka_jars: mvn not found" >&2; exit 2; }
command -v flock >/dev/null 2>&1 || { echo "fetch_kafka_jars: flock not found (util-linux)" >&2; exit 2; }

mkdir -p "${CACHE_ROOT}"
exec 9>"${CACHE_ROOT}/maven.lock"
flock 9
# Another run may have finished while we waited for the lock.
if [[ -f "${DEST}/.complete" ]]; then
  echo "${DEST}"
  exit 0
fi

WORK="$(mktemp -d "${CACHE_ROOT}/.kafka-${SET}-${VERSION}.XXXXXX")"
trap 'rm -rf "${WORK}"' EXIT

cat > "${WORK}/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>skiff</groupId>
  <artifactId>kafka-jars</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
$(for a in ${ARTIFACTS}; do
    echo "    <dependency><groupId>org.apache.kafka</groupId><artifactId>${a}</artifactId><version>${VERSION}</version></dependency>"
  done)
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-simple</artifactId><version>1.7.36</version></dependency>
  </dependencies>
</project>
POM

JARS="${WORK}/jars"
mkdir -p "${JARS}"
# -q: quiet; -B: batch mode (no progress bars). Runtime scope is what java needs.
# One retry: a busy registry times out now and then.
fetch() {
  mvn -q -B -f "${WORK}/pom.xml" -Dmaven.repo.local="${CACHE_ROOT}/m2" \
    org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="${JARS}" >&2
}
if ! fetch && ! { echo "fetch_kafka_jars: retrying" >&2; sleep 3; fetch; }; then
  echo "fetch_kafka_jars: maven download of Kafka ${VERSION} failed" >&2
  exit 1
fi
touch "${JARS}/.complete"
rm -rf "${DEST}"
mv "${JARS}" "${DEST}"
echo "${DEST}"
