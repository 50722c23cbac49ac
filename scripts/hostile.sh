#!/usr/bin/env bash
# Hostile-input script: runs the real skiff binary through fuzzed frames,
# oversized frames, slowloris connections, descriptor exhaustion and a full
# disk (a tmpfs mount; skipped without root), and checks after each that the
# broker is alive and kcat still produces and consumes.
#
#   scripts/hostile.sh [--skiff BIN] [--long] [--only a,b] [--skip a,b] [--seed N]
#
# Short mode (default, well under 2 minutes) runs in CI as the ctest tests
# hostile_short and disk_full_startup; --long is for humans. Needs python3
# (stdlib only) and kcat. BIN defaults to $SKIFF_BINARY, then build/skiff.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [[ -z "${SKIFF_BINARY:-}" && -x "$here/../build/skiff" ]]; then
  export SKIFF_BINARY="$here/../build/skiff"
fi
command -v kcat >/dev/null || { echo "hostile.sh: kcat is required (scripts/install-deps.sh)" >&2; exit 2; }
exec python3 "$here/hostile/hostile.py" "$@"
