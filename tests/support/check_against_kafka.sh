#!/usr/bin/env bash
# Runs a small Java program against Kafka 4.4's own jars and diffs what it
# prints with a committed file that our unit tests read, so the committed
# expectations stay Kafka's. Usage: check_against_kafka.sh PROGRAM.java EXPECTED
# (paths relative to the repository root). Exit 77 (skipped) without javac or
# the jars; bounded by ctest's timeout.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
[[ $# -eq 2 ]] || { echo "usage: $0 PROGRAM.java EXPECTED" >&2; exit 2; }
PROGRAM="$ROOT/$1" EXPECTED="$ROOT/$2"
command -v javac >/dev/null || { echo "skipped: no javac"; exit 77; }
JARS="$("$ROOT/scripts/fetch_kafka_jars.sh" | tail -n 1)" || { echo "skipped: no Kafka jars"; exit 77; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
javac -d "$tmp" -cp "$JARS/*" "$PROGRAM"
java -cp "$JARS/*:$tmp" "$(basename "$PROGRAM" .java)" 2>/dev/null | diff -u "$EXPECTED" -
echo "Kafka's output matches $2"
