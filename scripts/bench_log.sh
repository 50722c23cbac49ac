#!/usr/bin/env bash
# Storage benchmarks for log/ (not a test). Builds skiff_log_bench (Release)
# in build-log/bench (or BUILD_DIR) and runs, on the filesystem of BENCH_DIR
# (default /var/tmp):
#   1. append throughput, 16 KiB batches, vs dd of the same bytes
#   2. flush.messages=1 with 8 concurrent writers (group commit), vs dd oflag=dsync
#   3. sequential read throughput (Fetch-style reads of 1 MiB)
#   4. recovery time for a 1 GiB unflushed segment
# Env: BENCH_DIR, BENCH_MB (default 1024), SYNC_MB (default 64), JOBS (default 2).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${BUILD_DIR:-${ROOT}/build-log/bench}"
BENCH_DIR="${BENCH_DIR:-/var/tmp}"
MB="${BENCH_MB:-1024}"
SYNC_MB="${SYNC_MB:-64}"
JOBS="${JOBS:-2}"

if [[ ! -f "${BUILD}/CMakeCache.txt" ]]; then
  cmake -S "${ROOT}" -B "${BUILD}" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "${BUILD}" --target skiff_log_bench -j"${JOBS}" >/dev/null
BENCH="$(find "${BUILD}" -name skiff_log_bench -type f -perm -u+x | head -1)"

WORK="$(mktemp -d "${BENCH_DIR}/skiff-bench-XXXXXX")"
trap 'rm -rf "${WORK}"' EXIT
# Dropping the page cache needs root outside a container; where it is refused
# the "cold" runs below are warm too (the script says so).
drop_caches() {
  sync
  if ! (echo 3 > /proc/sys/vm/drop_caches) 2>/dev/null; then echo "   (drop_caches not permitted: page cache stays warm)"; fi
}

echo "== filesystem: $(df -hT "${WORK}" | tail -1 | awk '{print $1, $2}')"
COUNT=$((MB * 1024 / 16))

echo "== 1. append, 16 KiB batches, ${MB} MiB, flush left to the OS"
drop_caches
"${BENCH}" append "${WORK}/a-0" "${MB}" 16384 1 9223372036854775807 1024
echo "   dd (same bytes, bs=16k, no sync):"
drop_caches
dd if=/dev/zero of="${WORK}/dd.bin" bs=16k count="${COUNT}" 2>&1 | tail -1
rm -f "${WORK}/dd.bin"

echo "== 2. flush.messages=1, ${SYNC_MB} MiB (after sync: no writeback of step 1 in the way)"
rm -rf "${WORK}/s1-0" "${WORK}/s8-0"
sync
"${BENCH}" append "${WORK}/s1-0" "${SYNC_MB}" 16384 1 1 1024
"${BENCH}" append "${WORK}/s8-0" "${SYNC_MB}" 16384 8 1 1024
sync
echo "   dd (bs=16k, oflag=dsync: one sync per write):"
dd if=/dev/zero of="${WORK}/dd.bin" bs=16k count=$((SYNC_MB * 64)) oflag=dsync 2>&1 | tail -1
rm -f "${WORK}/dd.bin"

echo "== 3. recovery of a ${MB} MiB unflushed segment (unclean open, page cache warm)"
"${BENCH}" recover "${WORK}/a-0"
echo "== 3b. same, page cache dropped (if permitted)"
# make it unclean again: re-append nothing, just remove trimmed state by a fresh unclean open
drop_caches
"${BENCH}" recover "${WORK}/a-0"

echo "== 4. sequential read, 1 MiB reads"
"${BENCH}" read "${WORK}/a-0" 1048576
drop_caches
echo "   cold cache:"
"${BENCH}" read "${WORK}/a-0" 1048576
