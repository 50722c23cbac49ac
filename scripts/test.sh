#!/usr/bin/env bash
# Builds Skiff and runs every test: the integration tests in the normal
# build, a smoke run of the side-by-side benchmark (python3 -m bench.vs_kafka),
# the unit and network tests under ASan+UBSan and under TSan, a short fuzz
# pass and the container image test. It leaves build/ configured with
# SKIFF_TEST_LABELS=integration (unit test executables not built there):
# reconfigure with -DSKIFF_TEST_LABELS= for the whole suite in build/.
# Installs what it needs first (idempotent). Usage:
#   scripts/test.sh            # everything
#   SKIFF_TEST_QUICK=1 scripts/test.sh   # normal build only
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
JOBS=${JOBS:-$(nproc)}

# Each step's header names the time and the disk left where the trees are
# built (a CI run once failed with "No space left on device" in its last step).
step() { printf '\n=== %s (%s, %s free)\n' "$*" "$(date +%T)" "$(df -h --output=avail . | tail -1 | tr -d ' ')"; }

scripts/install-deps.sh

build() {  # build DIR [cmake args...]
  local dir=$1
  shift
  cmake -S "$ROOT" -B "$dir" -G Ninja "$@" >/dev/null
  cmake --build "$dir" -j"$JOBS"
}

# The declared style (scripts/check-style.sh): formatting over every tracked
# C++ source and function size (lizard) first, in seconds; clang-tidy once
# the build has made the compilation database and the generated headers,
# over the .cc files changed since the merge base (HEAD~1 on main: see
# check-style.sh), so its cost follows the size of the change.
step "style: clang-format, function size"
scripts/check-style.sh --no-tidy

# What each build compiles and runs. Every test runs once per build that
# matters for it: the integration tests (the real binary, real clients) in the
# optimised build (gcc, -O2: the binary that ships); the unit and network
# tests under ASan+UBSan and under TSan, both built with clang at -O0. The
# sanitizer builds are most of the CPU a run needs: on the 2-core VM, a unity
# batch of network/ took gcc 202 s under ASan and clang 100 s; under TSan gcc
# 126 s at -O1, clang 69 s at -O0 (TSan at -O0 runs the tests slower, by
# far less than it saves). The ASan build also builds the libFuzzer target
# (SKIFF_FUZZ=ON: the protocol library gets coverage instrumentation, which
# the unit tests ignore), so the fuzz pass needs no build of its own. -g1
# (line tables and function names: what perf, backtraces and sanitizer
# reports use) compiles about 30 % faster than -g. Every build is a unity
# build (CMake's CMAKE_UNITY_BUILD, 16 sources per batch: see
# CMakeLists.txt); clang-tidy still sees one entry per source
# (scripts/per_source_compile_db.py). SKIFF_TEST_QUICK=1 has no sanitizer
# builds, so its normal build builds and runs every test.
NORMAL_LABELS="integration"
[[ -n "${SKIFF_TEST_QUICK:-}" ]] && NORMAL_LABELS=""
SANITIZER_LABELS="unit;network"
ASAN_DIR=build-asan
CLANG=(-DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_C_COMPILER=clang-14)

# The integration tests' clients and S3 servers (downloads, a few Go and
# Java builds) install while the broker compiles: their first test
# (compat_setup, s3_setup) then finds them installed, or waits on the
# installer's lock and redoes what failed, with its output in the test log.
mkdir -p build
scripts/install-test-clients.sh kcat confluent_kafka kafka_python kafkajs java franz_go s3 \
  >build/install-test-clients.log 2>&1 &
CLIENTS_PID=$!

step "normal build (RelWithDebInfo, -g1), ${NORMAL_LABELS:-every} test"
build build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DSKIFF_TEST_LABELS="$NORMAL_LABELS" -DCMAKE_UNITY_BUILD=ON

# The sanitizer builds start now and run behind the integration tests, at
# idle priority (SCHED_IDLE and nice 19, inherited by the compilers): those
# tests wait on timeouts, throttles and JVM starts for more than half of
# their time (45 % CPU use at -j2 on 2 cores), and an idle-priority build
# gets only the CPU they leave, so the tests keep their pace. The builds'
# output goes to build/sanitizer-builds.log, shown when they are awaited.
# They run in their own process group (set -m), which an early exit kills.
sanitizer_builds() {
  chrt --idle -p 0 "$BASHPID" 2>/dev/null || true
  renice -n 19 -p "$BASHPID" >/dev/null
  build "$ASAN_DIR" "${CLANG[@]}" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" \
    -DSKIFF_SANITIZE=address -DSKIFF_FUZZ=ON -DSKIFF_TEST_LABELS="$SANITIZER_LABELS" -DCMAKE_UNITY_BUILD=ON
  build build-tsan "${CLANG[@]}" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" \
    -DSKIFF_SANITIZE=thread -DSKIFF_TEST_LABELS="$SANITIZER_LABELS" -DCMAKE_UNITY_BUILD=ON
}
SANITIZER_PID=""
if [[ -z "${SKIFF_TEST_QUICK:-}" ]]; then
  set -m
  (set -e; sanitizer_builds) >build/sanitizer-builds.log 2>&1 &
  SANITIZER_PID=$!
  set +m
fi

# The container image, built and tested with podman (scripts/test-image.sh,
# then scripts/test-image-compat.sh: KAFKA_* variables, the entry point,
# Testcontainers Java, Python and Go through podman's socket), where podman
# is installed or installable (Debian, root or sudo); SKIFF_TEST_IMAGE=0
# skips it. It packages build/skiff, the binary the integration tests run
# (the image's build stage then only configures the project: see
# docker/Dockerfile; SKIFF_IMAGE_BINARY= (empty) compiles it there). Most of
# it waits on downloads (the base image's packages, the build stage's
# toolchain, Testcontainers) and container starts, so it runs beside the
# integration tests, at nice 10 so that they keep the CPU they need; its
# output goes to build/image-test.log, shown when it is awaited at the end.
IMAGE_PID=""
if [[ -z "${SKIFF_TEST_QUICK:-}" && "${SKIFF_TEST_IMAGE:-1}" != 0 ]]; then
  can_install() { { [[ $(id -u) -eq 0 ]] || sudo -n true 2>/dev/null; } && apt-cache show podman >/dev/null 2>&1; }
  if command -v podman >/dev/null 2>&1 || can_install; then
    step "container image: build, run, produce/consume, restart, stop; apache/kafka drop-in and Testcontainers (started, in the background)"
    set -m
    (renice -n 10 -p "$BASHPID" >/dev/null
     SKIFF_IMAGE_BINARY="${SKIFF_IMAGE_BINARY-build/skiff}" exec scripts/test-image.sh) >build/image-test.log 2>&1 &
    IMAGE_PID=$!
    set +m
  else
    step "container image: skipped (podman cannot be installed here)"
  fi
fi
kill_background() {
  [[ -n "$SANITIZER_PID" ]] && kill -- "-$SANITIZER_PID" 2>/dev/null
  [[ -n "$IMAGE_PID" ]] && kill -- "-$IMAGE_PID" 2>/dev/null
  [[ -n "$CLIENTS_PID" ]] && kill "$CLIENTS_PID" 2>/dev/null
  true
}
trap kill_background EXIT
# await_background PID LOG WHAT: waits for a background part, shows its log,
# and fails the run if it failed.
await_background() {
  local status=0
  wait "$1" || status=$?
  cat "$2"
  if [[ $status -ne 0 ]]; then
    echo "test.sh: $3 failed ($2, above)" >&2
    exit 1
  fi
}

step "style: clang-tidy over the changed files"
SKIFF_TIDY_JOBS="$JOBS" scripts/check-style.sh --build build --no-format --no-lizard
# One test per core. The integration tests wait more than half of their
# time (45 % CPU use at -j2 on 2 cores), but twice as many at once starved
# a throughput test (a consumer held to a 1 MB/s quota reached 0.68 MB/s
# in a fresh CI run). The longest client runs are split in shards
# (tests/integration/harness/shards.py) so that they are not the tail.
(cd build && ctest --output-on-failure --timeout 900 -j"$JOBS")
wait "$CLIENTS_PID" 2>/dev/null || true  # long done: its tests waited for it
CLIENTS_PID=""

# Not a test (nothing is timed against a threshold): keeps the side-by-side
# benchmark against Apache Kafka working, with tiny loads (bench/README.md).
# Its results go to build/results; on timeout's SIGTERM it stops both brokers.
step "benchmark smoke run: Skiff and Apache Kafka, one round, tiny loads"
BUILD_DIR=build timeout 900 python3 -m bench.vs_kafka --smoke >/dev/null

if [[ -z "${SKIFF_TEST_QUICK:-}" ]]; then
  step "sanitizer builds (ASan+UBSan, TSan): awaited"
  await_background "$SANITIZER_PID" build/sanitizer-builds.log "the sanitizer builds"
  SANITIZER_PID=""

  step "ASan+UBSan: unit and network tests"
  (cd "$ASAN_DIR" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --output-on-failure --timeout 900 -L 'unit|network' -j"$JOBS")

  step "TSan: unit and network tests"
  (cd build-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    ctest --output-on-failure --timeout 900 -L 'unit|network' -j"$JOBS")

  if [[ -x scripts/fuzz.sh ]]; then
    step "fuzz pass over request decoding (${SKIFF_FUZZ_SECONDS:-60} s)"
    SKIFF_FUZZ_BUILD_DIR="$ASAN_DIR" scripts/fuzz.sh "${SKIFF_FUZZ_SECONDS:-60}"
  fi

  # Under CI the checkout is thrown away: the sanitizer trees (GBs, done
  # with) go now, while the image test may still be using disk. Kept
  # elsewhere, so that the next local run rebuilds only what changed.
  if [[ "${CI:-}" == true ]]; then
    rm -rf "$ASAN_DIR" build-tsan
  fi
fi

if [[ -n "$IMAGE_PID" ]]; then
  step "container image (run beside the tests above): awaited"
  await_background "$IMAGE_PID" build/image-test.log "the container image test"
  IMAGE_PID=""
fi
step "all tests passed"
