#!/usr/bin/env bash
# Power-cut rounds (issue 57): skiff with log.dirs on powerfs, a FUSE file
# system that keeps what was not synced in a volatile layer and drops it at
# the cut (tests/powercut/powerfs.cc), real clients (confluent-kafka), a cut
# at a random moment, a restart, checks (tests/powercut/powercut_loop.py says
# which). docs/durability.md has what each kind of state keeps.
#
#   scripts/powercut.sh --selftest                # powerfs's own rules (pytest)
#   scripts/powercut.sh --short                   # ctest's powercut_short: 4 cuts flushed, 4 default, 4 torn, < 2 min
#   scripts/powercut.sh --full                    # 100 cuts with flush on every ack, 50 default, 50 torn
#   scripts/powercut.sh [loop args...]            # one loop: --flush, --tear, --cuts N, --seed N, --existing-dir
# BINs: $SKIFF_BINARY (default build/skiff), $POWERFS_BINARY (default
# build/tests/powercut/skiff_powerfs; built with libfuse3-dev). Needs the
# compat venv (scripts/install-test-clients.sh confluent_kafka), /dev/fuse
# and fusermount3 (Debian's fuse3); as root, or with user_allow_other.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
py="${SKIFF_CACHE_DIR:-$HOME/.cache/skiff}/compat/venv/bin/python"
[[ -x "$py" ]] || { echo "powercut.sh: no venv at $py: run scripts/install-test-clients.sh confluent_kafka" >&2; exit 2; }
skiff="${SKIFF_BINARY:-$root/build/skiff}"
powerfs="${POWERFS_BINARY:-$root/build/tests/powercut/skiff_powerfs}"
export POWERFS_BINARY="$powerfs"
# Cannot run here: a skip (exit 77, ctest's SKIP_RETURN_CODE), with the reason.
skip() { echo "powercut.sh: skipped: $*" >&2; exit 77; }
[[ -r /dev/fuse && -w /dev/fuse ]] || skip "/dev/fuse is not usable here"
command -v fusermount3 >/dev/null || skip "no fusermount3 (Debian package fuse3)"
[[ -x "$powerfs" ]] || skip "no powerfs binary at $powerfs (build target skiff_powerfs; needs libfuse3-dev)"
loop() { timeout "$1" "$py" "$root/tests/powercut/powercut_loop.py" --skiff "$skiff" --powerfs "$powerfs" "${@:2}"; }

case "${1:-}" in
  --selftest)
    cd "$root/tests/powercut"
    exec timeout 300 "$py" -m pytest -q -p no:cacheprovider test_powerfs.py ;;
  --short)
    loop 120 --flush --cuts 4
    loop 100 --cuts 4
    loop 100 --tear --cuts 4 ;;
  --full)
    loop 3000 --flush --cuts 100
    loop 1800 --cuts 50
    loop 1800 --tear --cuts 50 ;;
  *)
    loop 3600 "$@" ;;
esac
