#!/usr/bin/env bash
# Produce and consume load against Skiff with Apache Kafka's own perf tools
# (kafka-producer-perf-test / kafka-consumer-perf-test, i.e.
# org.apache.kafka.tools.ProducerPerformance / ConsumerPerformance from the
# kafka-tools jar): records/s, MB/s and latency percentiles for 100-byte and
# 1 KiB records with acks=1 and acks=-1. Not a test; bounded, loopback only.
#   scripts/bench-clients.sh [records_100B=1000000] [records_1KiB=200000]
set -euo pipefail
cd "$(dirname "$0")/.."
N_SMALL=${1:-1000000}
N_LARGE=${2:-200000}

cmake -S . -B build -G Ninja >/dev/null
cmake --build build --target skiff >/dev/null
JARS=$(scripts/fetch_kafka_jars.sh | tail -1)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
DATA=$(mktemp -d)
build/skiff --override listeners=PLAINTEXT://127.0.0.1:$PORT --override log.dirs="$DATA" >"$DATA.out" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true; rm -rf "$DATA" "$DATA.out"' EXIT
until (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null; do sleep 0.01; done

java_tool() {  # class args...
  timeout 600 java -Xmx1g -cp "$JARS/*" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn "$@"
}
broker_cpu() { awk '{print $14 + $15}' /proc/$PID/stat; }
TICK=$(getconf CLK_TCK)

printf '%-26s %12s %9s %9s %9s %9s %14s\n' test records/s MB/s p50_ms p99_ms max_ms "broker_cpu_s"
for spec in "100 $N_SMALL 1" "100 $N_SMALL -1" "1024 $N_LARGE 1" "1024 $N_LARGE -1"; do
  read -r size n acks <<<"$spec"
  topic="perf-${size}-acks${acks#-}"
  c0=$(broker_cpu)
  out=$(java_tool org.apache.kafka.tools.ProducerPerformance --topic "$topic" --num-records "$n" \
    --record-size "$size" --throughput -1 \
    --producer-props bootstrap.servers=127.0.0.1:$PORT acks=$acks enable.idempotence=false linger.ms=5 \
    batch.size=65536 2>&1 | tail -1)
  c1=$(broker_cpu)
  # "N records sent, X records/sec (Y MB/sec), A ms avg latency, M ms max latency, p50 ms 50th, p95, p99, p999"
  rps=$(sed -E 's/.* ([0-9.]+) records\/sec.*/\1/' <<<"$out")
  mbs=$(sed -E 's/.*\(([0-9.]+) MB\/sec\).*/\1/' <<<"$out")
  max=$(sed -E 's/.* ([0-9.]+) ms max latency.*/\1/' <<<"$out")
  p50=$(sed -E 's/.* ([0-9]+) ms 50th.*/\1/' <<<"$out")
  p99=$(sed -E 's/.* ([0-9]+) ms 99th,.*/\1/' <<<"$out")
  printf '%-26s %12s %9s %9s %9s %9s %14s\n' "produce ${size}B acks=$acks" "$rps" "$mbs" "$p50" "$p99" "$max" \
    "$(awk -v a=$c0 -v b=$c1 -v t=$TICK 'BEGIN{printf "%.2f", (b-a)/t}')"
done

for spec in "100 $N_SMALL 1" "1024 $N_LARGE 1"; do
  read -r size n acks <<<"$spec"
  topic="perf-${size}-acks${acks#-}"
  c0=$(broker_cpu)
  # start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, ...
  out=$(java_tool org.apache.kafka.tools.ConsumerPerformance --bootstrap-server 127.0.0.1:$PORT --topic "$topic" \
    --messages "$n" --timeout 60000 --hide-header \
    --consumer.config <(printf 'group.id=perf-%s\nauto.offset.reset=earliest\n' "$RANDOM") 2>&1 | tail -1)
  c1=$(broker_cpu)
  nmsg_sec=$(awk -F', ' '{print $6}' <<<"$out")
  mb_sec=$(awk -F', ' '{print $4}' <<<"$out")
  printf '%-26s %12s %9s %9s %9s %9s %14s\n' "consume ${size}B" "${nmsg_sec:-?}" "${mb_sec:-?}" - - - \
    "$(awk -v a=$c0 -v b=$c1 -v t=$TICK 'BEGIN{printf "%.2f", (b-a)/t}')"
done
echo "broker peak RSS: $(awk '/VmHWM/ {print $2, $3}' /proc/$PID/status)"
