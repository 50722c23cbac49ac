#!/usr/bin/env bash
# Regenerates tests/schema/avro/oracle_vectors.txt with Apache Avro Java
# 1.12.2 (the oracle for Skiff's Avro schema model): Maven resolves the jar
# and its dependencies from Maven Central into ~/.m2, javac builds the one
# source file, java writes the vectors. Needs a JDK (17+) and Maven.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mvn -q -f "$here/pom.xml" dependency:build-classpath -Dmdep.outputFile="$work/cp.txt" >/dev/null
cp="$(cat "$work/cp.txt")"
javac -nowarn -d "$work/classes" -cp "$cp" "$here/src/AvroOracle.java"
java -cp "$cp:$work/classes" -Dorg.slf4j.simpleLogger.defaultLogLevel=off AvroOracle \
  "$root/tests/schema/avro/oracle_vectors.txt" 2> >(grep -v '^SLF4J' >&2 || true)
echo "wrote $root/tests/schema/avro/oracle_vectors.txt"
