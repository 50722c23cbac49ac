#!/usr/bin/env bash
# Measures the broker's foundation: time from exec to listening, idle RSS,
# and requests/s through the whole request path with 100 connections.
# Not a test; bounded in time, loopback only. Usage:
#   scripts/bench-network.sh [seconds=5] [connections=100]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_RUN=${1:-5}
CONNS=${2:-100}
cmake -S . -B build -G Ninja >/dev/null
cmake --build build --target skiff skiff_request_bench >/dev/null

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
DATA=$(mktemp -d)
trap 'kill $PID 2>/dev/null || true; rm -rf "$DATA"' EXIT

start_ns=$(date +%s%N)
build/skiff --override listeners=PLAINTEXT://127.0.0.1:$PORT --override log.dirs="$DATA" >"$DATA.out" 2>&1 &
PID=$!
until (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null; do sleep 0.0005; done
ready_ns=$(date +%s%N)
echo "exec to listening: $(( (ready_ns - start_ns) / 1000 )) us (includes this script's polling)"
grep -o 'started in [0-9.]* ms' "$DATA.out" | sed 's/^/broker reports: /'
sleep 1
echo "idle RSS: $(awk '/VmRSS/ {print $2, $3}' /proc/$PID/status)"
cpu_before=$(awk '{print $14 + $15}' /proc/$PID/stat)
build/tests/bench/skiff_request_bench 127.0.0.1 "$PORT" "$CONNS" "$SECONDS_RUN" 2
cpu_after=$(awk '{print $14 + $15}' /proc/$PID/stat)
echo "broker CPU during the run: $(( (cpu_after - cpu_before) )) ticks ($(getconf CLK_TCK)/s)"
echo "RSS after load: $(awk '/VmRSS/ {print $2, $3}' /proc/$PID/status)"
kill -TERM $PID
wait $PID && echo "broker exited 0 on SIGTERM"
rm -f "$DATA.out"
