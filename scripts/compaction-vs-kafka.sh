#!/usr/bin/env bash
# Runs test_compaction.py::test_last_value_per_key against skiff (build/skiff)
# and against Apache Kafka 4.4 (scripts/kafka-broker.sh), and diffs the two
# surviving key -> value sets (both must also match the test's exact model).
# Needs: scripts/install-test-clients.sh confluent_kafka; scripts/fetch_kafka_jars.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$(mktemp -d /tmp/compaction-vs-kafka.XXXXXX)"
trap 'rm -rf "$OUT"' EXIT
for b in skiff kafka; do
  env SKIFF_COMPACTION_BROKER="$( [[ $b == kafka ]] && echo kafka || echo skiff)" \
      SKIFF_COMPACTION_DUMP="$OUT/$b.json" \
      timeout 900 "$ROOT/tests/integration/run.sh" confluent_kafka test_compaction.py -k test_last_value_per_key -x -q
done
if cmp -s "$OUT/skiff.json" "$OUT/kafka.json"; then
  echo "compaction-vs-kafka: same $(python3 -c "import json,sys;print(len(json.load(open(sys.argv[1]))))" "$OUT/skiff.json") surviving key->value pairs"
else
  echo "compaction-vs-kafka: DIFFERENT surviving sets" >&2
  diff <(python3 -m json.tool "$OUT/skiff.json") <(python3 -m json.tool "$OUT/kafka.json") | head -20 >&2
  exit 1
fi
