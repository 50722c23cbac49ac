#!/usr/bin/env bash
# Many-partitions benchmark (not a test): for each partition count, under
# `ulimit -n` NOFILE (default 20000), a fresh broker
#   1. creates the partitions (topics of 1,000 partitions, one CreateTopics
#      request each) and produces one record to every partition;
#   2. is stopped cleanly and started again: startup time (exec to the
#      "started in" line) and RSS after startup;
#   3. takes PRODUCES single-record acks=1 Produce requests, one at a time,
#      each to a random partition: latency p50/p99/max; RSS after.
# Prints one table row per count. Each count runs in its own temp dir under
# BENCH_DIR (default /var/tmp), removed afterwards. On a disk, creating
# partitions is fsync-bound (about 11 ms each on the development VM: 100,000
# would take ~20 minutes); BENCH_DIR=/dev/shm measures the broker itself and
# runs 10k + 100k in about a minute.
#
#   scripts/bench_partitions.sh [COUNT...]        (default: 10000 100000)
# Env: BUILD_DIR (default build; needs targets skiff and skiff_partitions_bench,
#      built here if missing), SKIFF_BIN (another skiff binary, e.g. an older
#      build, to compare), NOFILE, PRODUCES (default 5000), BENCH_DIR.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${BUILD_DIR:-${ROOT}/build}"
NOFILE="${NOFILE:-20000}"
PRODUCES="${PRODUCES:-5000}"
BENCH_DIR="${BENCH_DIR:-/var/tmp}"
PER_TOPIC=1000
COUNTS=("$@")
[[ ${#COUNTS[@]} -gt 0 ]] || COUNTS=(10000 100000)

DRIVER="${BUILD}/tests/bench/skiff_partitions_bench"
SKIFF="${SKIFF_BIN:-${BUILD}/skiff}"
if [[ ! -x "${DRIVER}" || ! -x "${SKIFF}" ]]; then
  cmake --build "${BUILD}" --target skiff skiff_partitions_bench -j2 >/dev/null
fi

PID=""
WORK=""
cleanup() {
  [[ -n "${PID}" ]] && kill -9 "${PID}" 2>/dev/null || true
  [[ -n "${WORK}" ]] && rm -rf "${WORK}" "${WORK}".out* || true
}
trap cleanup EXIT

now_ms() { date +%s%3N; }
rss_mb() { awk '/VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }

# start_broker DIR OUT: starts skiff under the descriptor limit; sets PID,
# PORT, START_MS (exec to "started"); fails after 600 s.
start_broker() {
  local t0
  t0=$(now_ms)
  ( ulimit -n "${NOFILE}"; exec "${SKIFF}" --override listeners=PLAINTEXT://127.0.0.1:0 \
      --override "log.dirs=$1" --override auto.create.topics.enable=false ) >"$2" 2>&1 &
  PID=$!
  for _ in $(seq 1 60000); do
    if grep -q "started in" "$2"; then
      START_MS=$(( $(now_ms) - t0 ))
      PORT=$(grep -o "advertised as [^ ]*" "$2" | head -1 | sed 's/.*://')
      return 0
    fi
    kill -0 "${PID}" 2>/dev/null || { echo "skiff exited:"; tail -5 "$2"; PID=""; return 1; }
    sleep 0.01
  done
  echo "skiff did not start"; return 1
}

stop_broker() {
  kill -TERM "${PID}"
  for _ in $(seq 1 6000); do kill -0 "${PID}" 2>/dev/null || break; sleep 0.01; done
  kill -9 "${PID}" 2>/dev/null || true
  wait "${PID}" 2>/dev/null || true
  PID=""
}

json() { grep -o "\"$1\":[0-9.]*" <<<"$2" | cut -d: -f2; }

echo "skiff: ${SKIFF}; ulimit -n ${NOFILE}; ${PRODUCES} produce requests"
printf "| partitions | create+fill s | startup ms | RSS after start MB | produce p50 us | p99 us | max us | RSS after produce MB | notes |\n"
printf "|---|---|---|---|---|---|---|---|---|\n"
for n in "${COUNTS[@]}"; do
  WORK="$(mktemp -d "${BENCH_DIR}/skiff-partitions-XXXXXX")"
  topics=$(( (n + PER_TOPIC - 1) / PER_TOPIC ))
  start_broker "${WORK}/data" "${WORK}.out1"
  budget=$(grep -o "descriptor budget: [0-9]*" "${WORK}.out1" | grep -o "[0-9]*$" || echo "-")
  if ! created=$("${DRIVER}" 127.0.0.1 "${PORT}" create "${topics}" "${PER_TOPIC}"); then
    err=$(grep -m1 -io "too many open files\|error.*" "${WORK}.out1" | head -c 120 || true)
    printf "| %d | failed | | | | | | | %s %s |\n" "$n" "${created}" "${err}"
    stop_broker; rm -rf "${WORK}" "${WORK}".out*; WORK=""; continue
  fi
  stop_broker
  start_broker "${WORK}/data" "${WORK}.out2"
  rss1=$(rss_mb "${PID}")
  prod=$("${DRIVER}" 127.0.0.1 "${PORT}" produce "${topics}" "${PER_TOPIC}" "${PRODUCES}")
  rss2=$(rss_mb "${PID}")
  printf "| %d | %s | %d | %s | %s | %s | %s | %s | budget %s, failed %s |\n" "$n" \
    "$(awk "BEGIN {print $(json create_s "${created}") + $(json fill_s "${created}")}")" "${START_MS}" "${rss1}" \
    "$(json p50_us "${prod}")" "$(json p99_us "${prod}")" "$(json max_us "${prod}")" "${rss2}" "${budget}" \
    "$(json failed "${prod}")"
  stop_broker
  rm -rf "${WORK}" "${WORK}".out*
  WORK=""
done
