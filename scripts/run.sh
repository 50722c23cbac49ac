#!/usr/bin/env bash
# Builds Skiff and starts the broker on localhost:9092 with its data in
# ./data (created on first start). Extra arguments go to skiff, e.g.
#   scripts/run.sh --override num.partitions=3
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja >/dev/null
cmake --build build -j"$(nproc)" --target skiff
exec build/skiff --override listeners=PLAINTEXT://localhost:9092 --override log.dirs="$PWD/data" "$@"
