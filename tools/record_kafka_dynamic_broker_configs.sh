#!/usr/bin/env bash
# Records the broker configs Apache Kafka allows to be updated dynamically
# (AlterConfigs / IncrementalAlterConfigs on the BROKER resource), straight
# from its jars: org.apache.kafka.server.config.DynamicConfig.Broker (every
# key of DynamicBrokerConfig.ALL_DYNAMIC_CONFIGS that KafkaConfig defines, and
# the broker quota keys), with the scope Kafka allows each at
# (DynamicBrokerConfig.dynamicConfigUpdateModes: per-broker or cluster-wide)
# and whether it is dynamic only with a listener prefix
# (DYNAMIC_SECURITY_CONFIGS). The config tests compare Skiff's dynamic keys
# with it (tests/config/dynamic_broker_config_test.cc).
#
# Usage: tools/record_kafka_dynamic_broker_configs.sh
# Writes tests/config/kafka-4.4-dynamic-broker-configs.tsv: a comment line,
# then one "key<TAB>TYPE<TAB>per-broker|cluster-wide<TAB>listener-only|-" line
# per key, sorted. Needs jshell (JDK 17+); runs in about 20 s.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VERSION="${KAFKA_VERSION:-4.4.0}"
OUT="$ROOT/tests/config/kafka-${VERSION%.*}-dynamic-broker-configs.tsv"
JARS="$("$ROOT/scripts/fetch_kafka_jars.sh" "$VERSION" | tail -1)"
SCRIPT="$(mktemp /tmp/skiff-dynamic-configs-XXXXXX.jsh)"
trap 'rm -f "$SCRIPT"' EXIT
cat >"$SCRIPT" <<'JSH'
import org.apache.kafka.server.config.DynamicBrokerConfig;
import org.apache.kafka.server.config.DynamicConfig;
var modes = DynamicBrokerConfig.dynamicConfigUpdateModes();
var keys = DynamicConfig.Broker.configKeys();
for (var k : new java.util.TreeSet<String>(DynamicConfig.Broker.names()))
  System.out.println(k + "\t" + keys.get(k).type + "\t" + modes.getOrDefault(k, "cluster-wide") + "\t"
                     + (DynamicBrokerConfig.DYNAMIC_SECURITY_CONFIGS.contains(k) ? "listener-only" : "-"));
/exit
JSH
BODY="$(timeout 180 jshell --class-path "$JARS/*" -q "$SCRIPT")"
[[ $(grep -c $'\t' <<<"$BODY") -gt 50 ]] || { echo "record: unexpected jshell output:" >&2; echo "$BODY" >&2; exit 1; }
{
  echo "# Kafka $VERSION's dynamic broker configs (tools/record_kafka_dynamic_broker_configs.sh): key, type, scope, listener prefix"
  grep $'\t' <<<"$BODY"
} >"$OUT"
echo "wrote $OUT ($(grep -vc '^#' "$OUT") keys)"
