#!/usr/bin/env bash
# Builds the container image from docker/Dockerfile with podman and tests it
# for real: starts it with a data volume (a host directory), waits for the
# HEALTHCHECK to pass, produces and consumes with kcat from the host, checks
# that `podman stop` ends it within 10 s with exit code 0, starts it again on
# the same volume and checks that the data is still there. Reports the image
# size and the time from start to healthy.
#
# Installs podman, runc and debootstrap if missing (apt). There is no registry
# here: the base image docker.io/library/debian:bookworm-slim is made with
# debootstrap (and trimmed as Docker's slim images are) unless podman already
# has it; it is kept for the next run. Everything else it makes (container,
# image, data dir) is removed on exit. Loopback and --network=host only.
#   scripts/test-image.sh
#   JOBS=2 scripts/test-image.sh          # compile jobs inside the build
#   SKIFF_IMAGE_KEEP=1 scripts/test-image.sh   # keep the image (localhost/skiff:test)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
JOBS=${JOBS:-$(nproc)}
BASE=docker.io/library/debian:bookworm-slim
TAG=localhost/skiff:test
NAME=skiff-test-$$
TOPIC=image-test
SCRIPT_START=$(date +%s.%N)

SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO="sudo"
log() { printf '[test-image %s] %s\n' "$(date +%T)" "$*" >&2; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# --- podman, configured for this kind of machine (see containers.md) -----
need=()
for tool in podman:podman runc:runc debootstrap:debootstrap; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || [[ -x /usr/sbin/${tool%%:*} ]] || need+=("${tool##*:}")
done
if ((${#need[@]})); then
  log "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
WORK=$(mktemp -d /tmp/skiff-test-image.XXXXXX)
# No rlimit defaults, cgroupfs and runc: without these containers do not
# start here (no systemd). A private containers.conf leaves the machine's alone.
export CONTAINERS_CONF=$WORK/containers.conf
printf '[containers]\ndefault_ulimits = []\n[engine]\ncgroup_manager = "cgroupfs"\nruntime = "runc"\n' >"$CONTAINERS_CONF"
podman() { $SUDO env CONTAINERS_CONF="$CONTAINERS_CONF" podman "$@"; }
# Without systemd, podman says it cannot schedule the periodic health checks;
# this script runs them itself.
quiet() { grep -v 'unable to get systemd connection' || true; }

cleanup() {
  local rc=$?
  if ((rc != 0)); then
    log "FAILED; the broker's log:"
    podman logs "$NAME" 2>&1 | quiet | tail -40 || true
  fi
  podman rm -f -t 0 "$NAME" >/dev/null 2>&1 || true
  [[ -n ${SKIFF_IMAGE_KEEP:-} ]] || podman rmi -f "$TAG" >/dev/null 2>&1 || true
  $SUDO rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT

# --- the base image -------------------------------------------------------
if podman image exists "$BASE"; then
  log "base image $BASE present"
else
  log "making the base image $BASE with debootstrap"
  t=$(now)
  rootfs=$WORK/rootfs
  $SUDO timeout 900 debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >"$WORK/debootstrap.log" 2>&1 ||
    { tail -20 "$WORK/debootstrap.log"; exit 1; }
  # What Docker's debian:*-slim adds to a minbase: the sources (with security
  # updates), no docs/man pages/locales now or later, no apt caches.
  $SUDO bash -euo pipefail -c '
    cd "$1"
    rm -f etc/apt/sources.list
    cat > etc/apt/sources.list.d/debian.sources <<EOF
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    cat > etc/dpkg/dpkg.cfg.d/docker <<EOF
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
    printf "Acquire::Languages \"none\";\n" > etc/apt/apt.conf.d/docker-no-languages
    printf "Apt::AutoRemove::SuggestsImportant \"false\";\n" > etc/apt/apt.conf.d/docker-autoremove-suggests
    find usr/share/doc -mindepth 1 -not -name copyright -not -type d -delete
    find usr/share/doc -mindepth 1 -type d -empty -delete
    rm -rf usr/share/man/* usr/share/groff/* usr/share/info/* usr/share/lintian/* usr/share/linda/*
    find usr/share/locale -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
    rm -rf var/cache/apt/archives/*.deb var/cache/apt/*.bin var/lib/apt/lists/* var/log/* tmp/*
  ' _ "$rootfs"
  $SUDO tar -C "$rootfs" -c . | podman import -q - "$BASE" >/dev/null
  log "base image made in $(since "$t") s"
fi

# --- build ------------------------------------------------------------------
log "building $TAG from docker/Dockerfile (JOBS=$JOBS)"
t=$(now)
# --layers=false: no intermediate images are kept (the build stage is ~1 GB).
timeout 2400 podman build --format docker --network=host --pull=never --layers=false \
  --build-arg JOBS="$JOBS" -f docker/Dockerfile -t "$TAG" . >"$WORK/build.log" 2>&1 ||
  { tail -40 "$WORK/build.log"; exit 1; }
BUILD_SECONDS=$(since "$t")
grep -E '^runtime packages:' "$WORK/build.log" || true
IMAGE_BYTES=$(podman image inspect "$TAG" --format '{{.Size}}')
BASE_BYTES=$(podman image inspect "$BASE" --format '{{.Size}}')
log "built in $BUILD_SECONDS s"

# --- the image's own defaults, without starting a broker --------------------
config=$(podman run --rm --network=host "$TAG" --print-config 2>&1)
for want in '^listeners +=  *PLAINTEXT://0\.0\.0\.0:9092 ' '^log\.dirs +=  */var/lib/skiff '; do
  grep -qE "$want" <<<"$config" || { echo "$config"; log "--print-config does not match '$want'"; exit 1; }
done
[[ $(podman image inspect "$TAG" --format '{{.Config.User}}') == 1000:1000 ]] || { log "image user is not 1000:1000"; exit 1; }

# --- start on a free loopback port, with a host directory as the volume ----
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BROKER=127.0.0.1:$PORT
DATA=$WORK/data
mkdir -p "$DATA"
$SUDO chown 1000:1000 "$DATA"  # the image's skiff user

wait_healthy() {  # prints seconds from $1 to the first passing health check
  local from=$1 deadline=$((SECONDS + 60))
  until podman healthcheck run "$NAME" >/dev/null 2>&1; do
    [[ $(podman inspect "$NAME" --format '{{.State.Running}}') == true ]] || { log "the container exited"; return 1; }
    ((SECONDS < deadline)) || { log "not healthy after 60 s"; return 1; }
    sleep 0.05
  done
  since "$from"
}

stop_checked() {  # podman stop: within 10 s, exit code 0, graceful
  local t
  t=$(now)
  podman stop -t 10 "$NAME" 2>&1 | quiet >/dev/null
  STOP_SECONDS=$(since "$t")
  STOP_CODE=$(podman inspect "$NAME" --format '{{.State.ExitCode}}')
  log "podman stop took $STOP_SECONDS s, exit code $STOP_CODE"
  awk -v s="$STOP_SECONDS" 'BEGIN { exit !(s < 10) }' || { log "stop took 10 s or more"; return 1; }
  [[ $STOP_CODE == 0 ]] || { log "exit code $STOP_CODE, not 0"; return 1; }
  # Read whole, then searched: `podman logs | grep -q` fails under pipefail
  # when grep stops reading early and podman gets SIGPIPE (a longer log after
  # a restart made that happen).
  local logs
  logs=$(podman logs "$NAME" 2>&1)
  grep -q 'shutdown complete' <<<"$logs" || { log "no 'shutdown complete' in the log"; return 1; }
}

consume() { timeout 30 kcat -C -b "$BROKER" -t "$TOPIC" -o beginning -e -q; }

log "starting $NAME on $BROKER, data in $DATA"
t=$(now)
podman run -d --name "$NAME" --network=host -v "$DATA:/var/lib/skiff" \
  -e SKIFF_LISTENERS="PLAINTEXT://$BROKER" -e SKIFF_ADVERTISED_LISTENERS="PLAINTEXT://$BROKER" \
  "$TAG" 2>&1 | quiet >/dev/null
HEALTHY_SECONDS=$(wait_healthy "$t")
log "healthy $HEALTHY_SECONDS s after podman run"
[[ $(podman exec "$NAME" cat /proc/1/comm) == skiff ]] || { log "skiff is not PID 1"; exit 1; }
[[ $(podman exec "$NAME" id -u) == 1000 ]] || { log "skiff does not run as uid 1000"; exit 1; }

# --- produce and consume from the host ----------------------------------------
expected=$(printf 'message-%d\n' $(seq 1 100))
timeout 30 kcat -P -b "$BROKER" -t "$TOPIC" <<<"$expected"
got=$(consume)
[[ $got == "$expected" ]] || { log "consumed $(wc -l <<<"$got") lines, not the 100 produced"; exit 1; }
log "produced and consumed 100 messages with kcat"

# --- stop, start again on the same volume, the data is still there ------------
stop_checked
FIRST_STOP="$STOP_SECONDS s, exit code $STOP_CODE"
$SUDO test -d "$DATA/$TOPIC-0" || { log "no $TOPIC-0 in the data volume"; exit 1; }
t=$(now)
podman start "$NAME" 2>&1 | quiet >/dev/null
RESTART_HEALTHY_SECONDS=$(wait_healthy "$t")
log "healthy again $RESTART_HEALTHY_SECONDS s after podman start"
got=$(consume)
[[ $got == "$expected" ]] || { log "after the restart: $(wc -l <<<"$got") lines, not the 100 produced"; exit 1; }
log "the 100 messages are still there after the restart"
stop_checked

STARTED_MS=$(podman logs "$NAME" 2>&1 | grep -o 'started in [0-9.]* ms' | tail -1)
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
log "REPORT image size $(mb "$IMAGE_BYTES") (base $(mb "$BASE_BYTES"), Skiff's layers $(mb $((IMAGE_BYTES - BASE_BYTES))))"
log "REPORT start to healthy: $HEALTHY_SECONDS s (podman run to first passing HEALTHCHECK); after restart $RESTART_HEALTHY_SECONDS s; broker: $STARTED_MS"
log "REPORT podman stop: $FIRST_STOP; after restart $STOP_SECONDS s, exit code $STOP_CODE"
log "REPORT image build $BUILD_SECONDS s; whole script $(since "$SCRIPT_START") s"
log "passed"
