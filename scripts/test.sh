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
# optimised build; the unit and network tests under ASan+UBSan and under TSan
# (an -O1 build, so optimised code is still what TSan checks). -g1 (line
# tables and function names: what perf, backtraces and sanitizer reports use)
# compiles about 30 % faster than -g. Every build is a unity build (CMake's
# CMAKE_UNITY_BUILD, 16 sources per batch: see CMakeLists.txt): in a fresh CI
# run the normal build went from 9.2 to 4.8 min, ASan from 21 to 11.6, TSan
# from 15 to 8.2, and the image (whose Dockerfile builds the same way) from
# 10.3 to 4.6, with 8 per batch. clang-tidy still sees one entry per source
# (scripts/per_source_compile_db.py). SKIFF_TEST_QUICK=1 has no sanitizer
# builds, so its normal build builds and runs every test.
NORMAL_LABELS="integration"
[[ -n "${SKIFF_TEST_QUICK:-}" ]] && NORMAL_LABELS=""
SANITIZER_LABELS="unit;network"

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
  build build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" -DSKIFF_SANITIZE=address \
    -DSKIFF_TEST_LABELS="$SANITIZER_LABELS" -DCMAKE_UNITY_BUILD=ON
  build build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DSKIFF_SANITIZE=thread -DSKIFF_TEST_LABELS="$SANITIZER_LABELS" -DCMAKE_UNITY_BUILD=ON
}
SANITIZER_PID=""
if [[ -z "${SKIFF_TEST_QUICK:-}" ]]; then
  set -m
  (set -e; sanitizer_builds) >build/sanitizer-builds.log 2>&1 &
  SANITIZER_PID=$!
  set +m
  trap '[[ -n "$SANITIZER_PID" ]] && kill -- "-$SANITIZER_PID" 2>/dev/null; true' EXIT
fi

step "style: clang-tidy over the changed files"
SKIFF_TIDY_JOBS="$JOBS" scripts/check-style.sh --build build --no-format --no-lizard
# One test per core. The integration tests wait more than half of their
# time (45 % CPU use at -j2 on 2 cores), but twice as many at once starved
# a throughput test (a consumer held to a 1 MB/s quota reached 0.68 MB/s
# in a fresh CI run). The longest client runs are split in shards
# (tests/integration/harness/shards.py) so that they are not the tail.
(cd build && ctest --output-on-failure --timeout 900 -j"$JOBS")

# Not a test (nothing is timed against a threshold): keeps the side-by-side
# benchmark against Apache Kafka working, with tiny loads (bench/README.md).
# Its results go to build/results; on timeout's SIGTERM it stops both brokers.
step "benchmark smoke run: Skiff and Apache Kafka, one round, tiny loads"
BUILD_DIR=build timeout 900 python3 -m bench.vs_kafka --smoke >/dev/null

if [[ -z "${SKIFF_TEST_QUICK:-}" ]]; then
  step "sanitizer builds (ASan+UBSan, TSan): awaited"
  status=0
  wait "$SANITIZER_PID" || status=$?
  SANITIZER_PID=""
  cat build/sanitizer-builds.log
  if [[ $status -ne 0 ]]; then
    echo "test.sh: the sanitizer builds failed (build/sanitizer-builds.log, above)" >&2
    exit 1
  fi

  step "ASan+UBSan: unit and network tests"
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --output-on-failure --timeout 900 -L 'unit|network' -j"$JOBS")

  step "TSan: unit and network tests"
  (cd build-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    ctest --output-on-failure --timeout 900 -L 'unit|network' -j"$JOBS")

  if [[ -x scripts/fuzz.sh ]]; then
    step "fuzz pass over request decoding (${SKIFF_FUZZ_SECONDS:-60} s)"
    scripts/fuzz.sh "${SKIFF_FUZZ_SECONDS:-60}"
  fi

  # Under CI the checkout is thrown away: the sanitizer and fuzz trees (several
  # GB, done with) go before the image build needs its own space (its build
  # stage and layers: about 3 GB in podman's storage). Kept elsewhere, so
  # that the next local run rebuilds only what changed.
  if [[ "${CI:-}" == true ]]; then
    rm -rf build-asan build-tsan "${SKIFF_FUZZ_BUILD_DIR:-build-fuzz}"
  fi
fi

# The container image, built and tested with podman (scripts/test-image.sh,
# then scripts/test-image-compat.sh: KAFKA_* variables, the entry point,
# Testcontainers Java, Python and Go through podman's socket),
# where podman is installed or installable (Debian, root or sudo).
# SKIFF_TEST_IMAGE=0 skips it. The image packages build/skiff, the binary the
# integration tests above ran, instead of compiling the broker a fifth time
# inside the build stage (which still configures the project: see
# docker/Dockerfile); SKIFF_IMAGE_BINARY= (empty) compiles it there.
if [[ -z "${SKIFF_TEST_QUICK:-}" && "${SKIFF_TEST_IMAGE:-1}" != 0 ]]; then
  can_install() { { [[ $(id -u) -eq 0 ]] || sudo -n true 2>/dev/null; } && apt-cache show podman >/dev/null 2>&1; }
  if command -v podman >/dev/null 2>&1 || can_install; then
    step "container image: build, run, produce/consume, restart, stop; apache/kafka drop-in and Testcontainers"
    SKIFF_IMAGE_BINARY="${SKIFF_IMAGE_BINARY-build/skiff}" scripts/test-image.sh
  else
    step "container image: skipped (podman cannot be installed here)"
  fi
fi
step "all tests passed"
