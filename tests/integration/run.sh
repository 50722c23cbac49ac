#!/usr/bin/env bash
# Runs the compatibility scenarios with one client (what each ctest compat_*
# test does). Usage: tests/integration/run.sh CLIENT [pytest args...]
#   env SKIFF_BINARY (default build/skiff), SKIFF_COMPAT_EXTERNAL_BROKER=host:port
#   (use a running broker instead; restart scenarios are skipped),
#   SKIFF_COMPAT_EXTERNAL_LOG_DIRS (its data dirs, to check stored codecs).
# The clients must be installed: scripts/install-test-clients.sh CLIENT.
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
[[ $# -ge 1 ]] || { sed -n '2,8p' "$0" >&2; exit 2; }
CACHE="${SKIFF_COMPAT_CACHE:-${SKIFF_CACHE_DIR:-$HOME/.cache/skiff}/compat}"
PY="$CACHE/venv/bin/python"
if [[ ! -x "$PY" ]]; then
  echo "compat: no venv at $CACHE/venv: run scripts/install-test-clients.sh $1" >&2
  exit 1
fi
client=$1
shift
cd "$HERE"
"$PY" -m pytest --client "$client" "$@"
rc=$?
if [[ $rc -eq 5 ]]; then
  echo "compat: no test ran for $client: failing" >&2
  exit 1
fi
exit $rc
