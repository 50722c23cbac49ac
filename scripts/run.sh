#!/usr/bin/env bash
# Builds Skiff and starts the broker on localhost:9092 with its data in
# ./data (created on first start). Extra arguments go to skiff, e.g.
#   scripts/run.sh --override num.partitions=3
# Installs the Debian packages building it needs first (scripts/install-deps.sh
# --build-only: not the test tools), so it works on a fresh machine. It builds
# only the broker (no tests) in build/, configured as scripts/test.sh's normal
# build (a unity build, RelWithDebInfo with -O2 -g1), so either script reuses
# what the other compiled; the first build takes a few minutes on 2 cores
# (JOBS=N: N compilers, default nproc).
# Once the broker is up it prints where the Kafka listener, the web console
# and /metrics are. Ctrl-C stops the broker gracefully.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n=== %s (%s)\n' "$*" "$(date +%T)"; }

step "dependencies (scripts/install-deps.sh --build-only)"
scripts/install-deps.sh --build-only

step "configure build/ (unity build, RelWithDebInfo -O2 -g1)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_UNITY_BUILD=ON >/dev/null

step "build the broker (build/skiff; Ninja's [done/total] shows the progress)"
started=$SECONDS
cmake --build build -j"${JOBS:-$(nproc)}" --target skiff
echo "built in $((SECONDS - started)) s"

# Passes the broker's output through and, after its "started in" line,
# prints where it listens: the Kafka listener from that line, the console
# and /metrics from the "HTTP on HOST:PORT" line before it (http.listeners,
# default http://127.0.0.1:8095; "HTTP off" when the port is taken). It
# ignores Ctrl-C and reads to the end, so the broker's shutdown lines are
# still shown and never hit a closed pipe.
announce() {
  trap '' INT TERM
  local line http="" dirs
  while IFS= read -r line; do
    printf '%s\n' "$line"
    case "$line" in
      *"HTTP on "*) http=${line#*HTTP on } && http=${http%%,*} ;;
      *" started in "*)
        dirs=${line#*log.dirs=} && dirs=${dirs%%): *}
        where "${line#*): }" "$http" "$dirs"
        ;;
    esac
  done
}

where() {  # where LISTENERS_SUMMARY HTTP_HOST_PORT LOG_DIRS
  local bootstrap=${1#*advertised as }
  printf '\nSkiff is up (data in %s; Ctrl-C stops it):\n' "$3"
  printf '  broker (Kafka):  %s   (%s)\n' "${bootstrap%%;*}" "$1"
  if [[ -n "$2" ]]; then
    local base=$2  # "HOST:PORT", or "https://HOST:PORT" for an https:// listener
    [[ $base == https://* ]] || base="http://$base"
    printf '  web console:     %s/\n' "$base"
    printf '  metrics:         %s/metrics\n\n' "$base"
  else
    printf '  web console and /metrics: off (no HTTP listener: see http.listeners)\n\n'
  fi
}

step "start the broker"
# exec: this script's process becomes the broker (signals reach it, its exit
# status is the script's); its output goes through announce.
exec build/skiff --override listeners=PLAINTEXT://localhost:9092 --override log.dirs="$PWD/data" "$@" \
  > >(announce) 2>&1
