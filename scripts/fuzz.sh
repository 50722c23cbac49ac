#!/usr/bin/env bash
# Fuzzes request-frame decoding (tests/fuzz) under ASan+UBSan with clang.
#
#   scripts/fuzz.sh [seconds]     default 60
#
# Configures a separate build dir (build-fuzz, or $SKIFF_FUZZ_BUILD_DIR,
# used as it is if already configured with SKIFF_FUZZ=ON), builds only the
# fuzz target, and runs it for the given time starting from
# the committed seed corpus (tests/fuzz/corpus, read-only here: new inputs
# go to the build dir). Exits non-zero if the fuzzer finds a crash, leak or
# sanitizer report; the reproducer is left in <build dir>/artifacts/.
# SKIFF_FUZZ_MERGE=1 afterwards minimises the seed corpus plus what was
# found back into tests/fuzz/corpus.
set -euo pipefail

seconds="${1:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SKIFF_FUZZ_BUILD_DIR:-$root/build-fuzz}"
jobs="${SKIFF_FUZZ_BUILD_JOBS:-2}"
target=fuzz_request_frame

# A build dir already configured for fuzzing (scripts/test.sh's clang
# ASan+UBSan build, SKIFF_FUZZ=ON) is used as it is. Otherwise: -O1 -g1 and a
# unity build; the generated protocol code is most of what this compiles.
if ! grep -qs '^SKIFF_FUZZ:BOOL=ON$' "$build/CMakeCache.txt"; then
  cmake -S "$root" -B "$build" \
    -DCMAKE_CXX_COMPILER=clang++-14 \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DCMAKE_UNITY_BUILD=ON \
    -DSKIFF_SANITIZE=address \
    -DSKIFF_FUZZ=ON >/dev/null
fi
cmake --build "$build" --target "$target" -j "$jobs"

bin="$build/tests/fuzz/$target"
work="$build/fuzz-corpus"
mkdir -p "$work" "$build/artifacts"

# -rss_limit_mb / -malloc_limit_mb: an allocation driven by a forged length
# is a finding, not an out-of-memory kill of the machine.
status=0
"$bin" "$work" "$root/tests/fuzz/corpus" \
  -max_total_time="$seconds" \
  -max_len=65536 \
  -rss_limit_mb=2048 \
  -malloc_limit_mb=512 \
  -timeout=10 \
  -print_final_stats=1 \
  -artifact_prefix="$build/artifacts/" || status=$?

if [[ $status -eq 0 && "${SKIFF_FUZZ_MERGE:-0}" == "1" ]]; then
  merged="$build/merged-corpus"
  rm -rf "$merged" && mkdir -p "$merged"
  # -max_len keeps the committed corpus small (< 1 MB).
  "$bin" -merge=1 -max_len=4096 "$merged" "$root/tests/fuzz/corpus" "$work"
  rm -f "$root"/tests/fuzz/corpus/*
  cp "$merged"/* "$root/tests/fuzz/corpus/"
fi
exit $status
