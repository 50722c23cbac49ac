#!/usr/bin/env bash
# Prints Kafka 4.4's topic configs from its jar (tests/log/KafkaTopicConfigs.java)
# and diffs them with the committed tests/log/kafka_4_4_topic_configs.txt that
# the topic config table's unit test reads. Exit 77 (skipped) without javac or
# the jars; bounded by ctest's timeout.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
command -v javac >/dev/null || { echo "skipped: no javac"; exit 77; }
JARS="$("$ROOT/scripts/fetch_kafka_jars.sh" | tail -n 1)" || { echo "skipped: no Kafka jars"; exit 77; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
javac -d "$tmp" -cp "$JARS/*" "$ROOT/tests/log/KafkaTopicConfigs.java"
java -cp "$JARS/*:$tmp" KafkaTopicConfigs 2>/dev/null | diff -u "$ROOT/tests/log/kafka_4_4_topic_configs.txt" -
echo "Kafka's topic configs match tests/log/kafka_4_4_topic_configs.txt"
