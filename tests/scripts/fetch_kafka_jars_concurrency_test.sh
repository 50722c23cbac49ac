#!/usr/bin/env bash
# scripts/fetch_kafka_jars.sh run three times at once into an empty cache
# directory (what ctest -j does on a fresh machine): every run must succeed,
# print the same directory, and leave a complete jar set and no temporary
# directory behind. The old script shared one temporary directory between
# runs and failed this way (ClassNotFoundException in DumpLogSegments). The
# cache is empty, Maven's repository included (it lives in the cache), so this
# is a fresh-machine download every time.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
CACHE="$(mktemp -d)"
trap 'rm -rf "$CACHE"' EXIT
export SKIFF_CACHE_DIR="$CACHE"

pids=()
for i in 1 2 3; do
  timeout 900 bash "$ROOT/scripts/fetch_kafka_jars.sh" >"$CACHE/out.$i" 2>"$CACHE/err.$i" &
  pids+=($!)
done
fail=0
for i in 1 2 3; do
  if ! wait "${pids[$((i - 1))]}"; then
    echo "run $i failed:"; cat "$CACHE/err.$i"; fail=1
  fi
done
((fail == 0)) || exit 1

dir=$(tail -n1 "$CACHE/out.1")
for i in 2 3; do
  [[ "$(tail -n1 "$CACHE/out.$i")" == "$dir" ]] || { echo "run $i printed another directory"; exit 1; }
done
[[ -f "$dir/.complete" ]] || { echo "no .complete in $dir"; exit 1; }
for jar in kafka_2.13 kafka-tools kafka-clients kafka-storage kafka-transaction-coordinator kafka-group-coordinator; do
  ls "$dir"/"$jar"-[0-9]*.jar >/dev/null 2>&1 || { echo "missing $jar in $dir"; exit 1; }
done
leftover=$(find "$CACHE" -maxdepth 1 -name '.kafka-*' | wc -l)
[[ $leftover -eq 0 ]] || { echo "temporary directories left behind"; ls -la "$CACHE"; exit 1; }
# The jars are usable: Kafka's tool class loads.
java -cp "$dir/*" org.apache.kafka.tools.DumpLogSegments --version 2>&1 | grep -q "^4\." ||
  { echo "DumpLogSegments does not load from $dir"; exit 1; }
echo "1 passed, 0 failed"
