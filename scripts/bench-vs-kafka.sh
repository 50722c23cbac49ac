#!/usr/bin/env bash
# Skiff against Apache Kafka 4.x on this machine, same clients, same load,
# alternating brokers over rounds (scripts/bench_vs_kafka.py does the work;
# this builds Skiff and the load drivers and fetches Kafka's jars first).
# Not a test: bounded in time, loopback only.
#
#   scripts/bench-vs-kafka.sh            # 3 rounds, the full loads (~15 min)
#   scripts/bench-vs-kafka.sh --smoke    # 1 round, tiny loads (CI runs this)
#   scripts/bench-vs-kafka.sh --help     # every option
#   scripts/bench-vs-kafka.sh --requests [--smoke|--rounds N|--brokers skiff,kafka,ceiling|--no-saturation]
#       the cost of a request: e2e latency at 10k one-record requests/s over
#       five consecutive runs, context switches per request, saturation with
#       1 and 8 connections, driven by librdkafka and by the lean
#       skiff_produce_load (--clients; scripts/bench_request_cost.py);
#       "ceiling" is skiff_null_responder, a server that answers at once and
#       does nothing else: what the client and this machine allow
#   scripts/bench-vs-kafka.sh --txn [--smoke|--rounds N|--records N|--brokers kafka]
#       transactional produce (1,000 x 100 B per transaction) against
#       idempotent produce, EndTxn p50/p99: scripts/bench_vs_kafka_txn.py,
#       with the franz-go driver of the compatibility suite (not in CI yet)
#   scripts/bench-vs-kafka.sh --groups [--smoke|--rounds N|--brokers skiff]
#       consumer groups with the Java client, consumer and classic protocol:
#       first heartbeat to first record; ten members, one leaves, stable
#       again (scripts/bench_groups.py)
# env: BUILD_DIR (default build-bench), KAFKA_VERSION (default 4.4.0)
# Results: a Markdown table on stdout, JSON + Markdown in BUILD_DIR/results/.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-bench}
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DSKIFF_TEST_AREAS=bench >/dev/null
fi
if [[ "${1:-}" == "--txn" ]]; then
  shift
  cmake --build "$BUILD_DIR" -j"${JOBS:-$(nproc)}" --target skiff >/dev/null
  scripts/fetch_kafka_jars.sh >/dev/null
  COMPAT=$(scripts/install-test-clients.sh franz_go | tail -1)
  exec python3 scripts/bench_vs_kafka_txn.py --skiff "$BUILD_DIR/skiff" \
    --driver "$COMPAT/go/franz-go-driver" --out "$BUILD_DIR/results" "$@"
fi
if [[ "${1:-}" == "--groups" ]]; then
  shift
  cmake --build "$BUILD_DIR" -j"${JOBS:-$(nproc)}" --target skiff >/dev/null
  JARS=$(scripts/fetch_kafka_jars.sh | tail -1)
  exec python3 scripts/bench_groups.py --skiff "$BUILD_DIR/skiff" --jars "$JARS" --out "$BUILD_DIR/results" "$@"
fi
cmake --build "$BUILD_DIR" -j"${JOBS:-$(nproc)}" --target skiff skiff_rdkafka_bench skiff_first_produce skiff_produce_load \
  skiff_null_responder >/dev/null
JARS=$(scripts/fetch_kafka_jars.sh | tail -1)
SCRIPT=scripts/bench_vs_kafka.py
if [[ "${1:-}" == "--requests" ]]; then
  shift
  SCRIPT=scripts/bench_request_cost.py
fi
exec python3 "$SCRIPT" --skiff "$BUILD_DIR/skiff" \
  --rdkafka-bench "$BUILD_DIR/tests/bench/skiff_rdkafka_bench" \
  --first-produce "$BUILD_DIR/tests/bench/skiff_first_produce" \
  --jars "$JARS" --out "$BUILD_DIR/results" "$@"
