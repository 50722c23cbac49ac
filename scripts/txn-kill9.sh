#!/usr/bin/env bash
# Broker kill -9 rounds under a transactional workload (confluent-kafka):
# every committed transaction stays there exactly once, nothing aborted or
# undecided becomes visible to read_committed, the coordinator resumes with
# the same transactional.id. tests/integration/txn_kill9.py does the work and
# documents the checks; ctest runs 3 rounds as txn_kill9_short.
#
#   scripts/txn-kill9.sh [--rounds N] [--seed N] [--skiff BIN]   # skiff (default 10 rounds, < 3 min)
#   scripts/txn-kill9.sh --broker kafka --rounds 2                # Apache Kafka 4.4 (scripts/kafka-broker.sh)
# Needs the compat venv: scripts/install-test-clients.sh confluent_kafka.
# BIN defaults to $SKIFF_BINARY, then build/skiff. env SKIFF_CACHE_DIR as there.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
py="${SKIFF_CACHE_DIR:-$HOME/.cache/skiff}/compat/venv/bin/python"
[[ -x "$py" ]] || { echo "txn-kill9.sh: no venv at $py: run scripts/install-test-clients.sh confluent_kafka" >&2; exit 2; }
exec timeout 600 "$py" "$here/../tests/integration/txn_kill9.py" "$@"
