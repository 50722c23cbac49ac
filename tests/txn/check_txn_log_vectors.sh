#!/usr/bin/env bash
# Serializes __transaction_state records with Kafka 4.4's own classes
# (tests/txn/TxnLogVectors.java) and diffs them with the committed
# tests/txn/transaction_log_vectors.txt that txn_tests decode and re-encode
# byte for byte. Exit 77 (skipped) without javac or the jars; bounded by
# ctest's timeout.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
command -v javac >/dev/null || { echo "skipped: no javac"; exit 77; }
JARS="$("$ROOT/scripts/fetch_kafka_jars.sh" | tail -n 1)" || { echo "skipped: no Kafka jars"; exit 77; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
javac -d "$tmp" -cp "$JARS/*" "$ROOT/tests/txn/TxnLogVectors.java"
java -cp "$JARS/*:$tmp" TxnLogVectors 2>/dev/null | diff -u "$ROOT/tests/txn/transaction_log_vectors.txt" -
echo "Kafka's TransactionLogKey/Value bytes match tests/txn/transaction_log_vectors.txt"
