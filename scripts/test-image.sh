#!/usr/bin/env bash
# Builds the container image from docker/Dockerfile with podman and tests it
# for real: starts it with a data volume (a host directory), waits for the
# HEALTHCHECK to pass, asks the HTTP listener for /healthz and /readyz,
# produces and consumes with kcat from the host, checks
# that `podman stop` ends it within 10 s with exit code 0, starts it again on
# the same volume and checks that the data is still there. Then runs the same
# image again configured for SASL_SSL (PLAIN) entirely from the environment:
# certificates made with openssl and mounted read-only, the authorizer with
# admin as super user; waits for the HEALTHCHECK (over TLS), produces and
# consumes with kcat as admin, checks that a wrong password is refused.
# Then scripts/test-image-compat.sh tests it as a drop-in for apache/kafka
# (KAFKA_* variables, the entry point, Testcontainers through podman's
# socket). Reports the image size (at most 50 MB, or it fails) and the time
# from start to healthy.
#
# Installs podman, runc and debootstrap if missing (apt). There is no registry
# here: the base image docker.io/library/debian:bookworm-slim is made with
# debootstrap (and trimmed as Docker's slim images are) unless podman already
# has it; it is kept for the next run. Everything else it makes (container,
# image, data dir) is removed on exit. Loopback and --network=host only.
#   scripts/test-image.sh
#   JOBS=2 scripts/test-image.sh          # compile jobs inside the build
#   SKIFF_IMAGE_KEEP=1 scripts/test-image.sh   # keep the image (localhost/skiff:test)
#   SKIFF_IMAGE_BINARY=build/skiff scripts/test-image.sh  # package a skiff built
#       on this (Debian bookworm) machine instead of compiling one in the build
#   SKIFF_IMAGE_COMPAT=0 scripts/test-image.sh  # without test-image-compat.sh
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
  # scripts/test.sh runs this beside the test clients' installer: both take
  # its apt lock (scripts/install-test-clients.sh), and apt waits for dpkg's.
  (
    flock -w 900 9 || { log "apt: waited 900 s for ${TMPDIR:-/tmp}/skiff-apt.lock"; exit 2; }
    apt=($SUDO env DEBIAN_FRONTEND=noninteractive apt-get -qq -o DPkg::Lock::Timeout=600)
    "${apt[@]}" update
    "${apt[@]}" install -y --no-install-recommends "${need[@]}" >/dev/null
  ) 9>"${TMPDIR:-/tmp}/skiff-apt.lock"
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

# --- disk ---------------------------------------------------------------
# The build stage, the base image and the layers take about 3 GB in podman's
# storage (and /tmp for the base rootfs). With less free, the build would die
# half way with "No space left on device", which says nothing about Skiff:
# the test says it cannot run instead, with the numbers.
MIN_FREE_KB=$((4 * 1024 * 1024))
graphroot=$(podman info --format '{{.Store.GraphRoot}}' 2>/dev/null | quiet || true)
for dir in "${graphroot:-/var/lib/containers}" /tmp; do
  probe=$dir
  while [[ ! -e $probe ]]; do probe=$(dirname "$probe"); done
  free_kb=$(df -Pk "$probe" | awk 'NR == 2 { print $4 }')
  if ((free_kb < MIN_FREE_KB)); then
    log "SKIPPED: $((free_kb / 1024)) MB free under $dir, the image test needs $((MIN_FREE_KB / 1024)) MB"
    trap - EXIT
    $SUDO rm -rf "$WORK"
    exit 0
  fi
done

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
binary_args=()
if [[ -n ${SKIFF_IMAGE_BINARY:-} ]]; then
  log "packaging $SKIFF_IMAGE_BINARY instead of compiling"
  mkdir -p docker/prebuilt
  cp "$SKIFF_IMAGE_BINARY" docker/prebuilt/skiff
  binary_args=(--build-arg SKIFF_BINARY=docker/prebuilt/skiff)
fi
timeout 2400 podman build --format docker --network=host --pull=never --layers=false \
  --build-arg JOBS="$JOBS" "${binary_args[@]}" -f docker/Dockerfile -t "$TAG" . >"$WORK/build.log" 2>&1 ||
  { tail -40 "$WORK/build.log"; exit 1; }
BUILD_SECONDS=$(since "$t")
IMAGE_BYTES=$(podman image inspect "$TAG" --format '{{.Size}}')
log "built in $BUILD_SECONDS s, $IMAGE_BYTES bytes"
# The goal of issue 56: apache/kafka-native's size (47 MB) or less.
((IMAGE_BYTES <= 50000000)) || { log "the image is $IMAGE_BYTES bytes, more than 50 MB"; exit 1; }

# --- the image's own defaults, without starting a broker --------------------
config=$(podman run --rm --network=host "$TAG" --print-config 2>&1)
for want in '^listeners +=  *PLAINTEXT://0\.0\.0\.0:9092 ' '^http\.listeners +=  *http://0\.0\.0\.0:8095 ' \
  '^log\.dirs +=  */var/lib/skiff '; do
  grep -qE "$want" <<<"$config" || { echo "$config"; log "--print-config does not match '$want'"; exit 1; }
done
[[ $(podman image inspect "$TAG" --format '{{.Config.User}}') == 1000:1000 ]] || { log "image user is not 1000:1000"; exit 1; }

# --- start on a free loopback port, with a host directory as the volume ----
# python3 rather than curl: a fresh machine may not have curl.
http_get() { python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode().strip())' "$1"; }
free_port() { python3 "$ROOT/scripts/free_port.py" "$@"; }  # free_port [EXCLUDED...]
PORT=$(free_port)
BROKER=127.0.0.1:$PORT
# --network=host: the image's HTTP port, 8095, may be taken on this machine.
HTTP=127.0.0.1:$(free_port "$PORT")
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
  -e SKIFF_HTTP_LISTENERS="http://$HTTP" \
  "$TAG" 2>&1 | quiet >/dev/null
HEALTHY_SECONDS=$(wait_healthy "$t")
log "healthy $HEALTHY_SECONDS s after podman run"
for probe in healthz:ok readyz:ready; do
  got=$(http_get "http://$HTTP/${probe%%:*}") || { log "GET http://$HTTP/${probe%%:*} failed"; exit 1; }
  [[ $got == "${probe##*:}" ]] || { log "/${probe%%:*} answered '$got', not '${probe##*:}'"; exit 1; }
done
log "HTTP on $HTTP: /healthz ok, /readyz ready"
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
podman rm -f -t 0 "$NAME" >/dev/null 2>&1

# --- the same image again: SASL_SSL, configured entirely from the environment --
# Certificates made now with the openssl command line (the commands of
# tests/integration/harness/certs.py): a CA, and the broker's key + chain in
# a directory mounted read-only. Only the key file is the skiff user's (uid
# 1000); the CA stays with kcat on the host.
sasl_start=$(now)
SASL_PORT=$(free_port)
BROKER=127.0.0.1:$SASL_PORT
CA=$WORK/ca
CERTS=$WORK/certs
mkdir -p "$CA" "$CERTS"
ossl() { openssl "$@" >>"$WORK/openssl.log" 2>&1 || { cat "$WORK/openssl.log"; log "openssl $1 failed"; exit 1; }; }
ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
  -keyout "$CA/ca.key" -out "$CA/ca.pem" -subj "/CN=Skiff test-image CA"
ossl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$CA/server.key" \
  -out "$CA/server.csr" -subj "/CN=localhost"
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$CA/server.ext"
ossl x509 -req -in "$CA/server.csr" -CA "$CA/ca.pem" -CAkey "$CA/ca.key" -CAcreateserial -days 2 \
  -out "$CA/server.crt" -extfile "$CA/server.ext"
cat "$CA/server.key" "$CA/server.crt" >"$CERTS/server.pem"
chmod 0400 "$CERTS/server.pem"
$SUDO chown -R 1000:1000 "$CERTS"

# SCRAM-SHA-512 with its first user, admin, created at startup from the
# environment (SKIFF_SCRAM_BOOTSTRAP_USERS), as a secured container is set
# up; and PLAIN, users from the JAAS entry, for the host's kcat: Debian's
# librdkafka 2.0.2 sends a malformed SCRAM final message that Kafka 4.4
# refuses too. SCRAM is checked with bench/sasl.py's client.
sasl_env=(-e SKIFF_SASL_ENABLED_MECHANISMS=SCRAM-SHA-512,PLAIN
          -e SKIFF_SCRAM_BOOTSTRAP_USERS='SCRAM-SHA-512=[name=admin,password=admin-secret]'
          -e SKIFF_LISTENER_NAME_SASL_SSL_PLAIN_SASL_JAAS_CONFIG='org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="admin-secret";')
kcat_sasl() {  # kcat over SASL_SSL/PLAIN as admin with the password $1, then kcat's arguments
  local password=$1
  shift
  timeout 30 kcat -b "$BROKER" -X security.protocol=SASL_SSL -X ssl.ca.location="$CA/ca.pem" \
    -X sasl.mechanisms=PLAIN -X sasl.username=admin -X sasl.password="$password" "$@"
}
scram_login() {  # one SASL_SSL/SCRAM-SHA-512 login as admin/admin-secret and a Metadata request
  timeout 30 python3 - "$SASL_PORT" "$CA/ca.pem" <<'PY'
import ssl, sys
sys.path.insert(0, ".")
from bench.sasl import ScramClient, one_connection
ctx = ssl.create_default_context(cafile=sys.argv[2])
print(f"{one_connection(int(sys.argv[1]), ctx, 'SCRAM-SHA-512', ScramClient()):.1f} ms")
PY
}

log "starting $NAME again, SASL_SSL (SCRAM-SHA-512, PLAIN) on 0.0.0.0:$SASL_PORT, certificates from $CERTS (read-only)"
t=$(now)
podman run -d --name "$NAME" --network=host -v "$CERTS:/etc/skiff/certs:ro" \
  -e SKIFF_LISTENERS="SASL_SSL://0.0.0.0:$SASL_PORT" -e SKIFF_ADVERTISED_LISTENERS="SASL_SSL://$BROKER" \
  -e SKIFF_LISTENER_SECURITY_PROTOCOL_MAP=SASL_SSL:SASL_SSL \
  -e SKIFF_SSL_KEYSTORE_LOCATION=/etc/skiff/certs/server.pem \
  "${sasl_env[@]}" \
  -e SKIFF_AUTHORIZER_CLASS_NAME=org.apache.kafka.metadata.authorizer.StandardAuthorizer \
  -e SKIFF_SUPER_USERS=User:admin \
  -e SKIFF_HTTP_LISTENERS="http://127.0.0.1:$(free_port "$SASL_PORT")" \
  "$TAG" 2>&1 | quiet >/dev/null
SASL_HEALTHY_SECONDS=$(wait_healthy "$t")
probe=$(podman exec "$NAME" skiff --healthcheck 2>&1)
grep -q "SASL_SSL://127.0.0.1:$SASL_PORT answered ApiVersions" <<<"$probe" || { log "health check: $probe"; exit 1; }
log "healthy $SASL_HEALTHY_SECONDS s after podman run (over TLS: $probe)"

expected=$(printf 'secured-%d\n' $(seq 1 100))
kcat_sasl admin-secret -P -t "$TOPIC" <<<"$expected"
got=$(kcat_sasl admin-secret -C -t "$TOPIC" -o beginning -e -q)
[[ $got == "$expected" ]] || { log "over SASL_SSL: consumed $(wc -l <<<"$got") lines, not the 100 produced"; exit 1; }
log "produced and consumed 100 messages with kcat over SASL_SSL as admin"
took=$(scram_login) || { log "SCRAM-SHA-512 login as the bootstrap admin failed"; exit 1; }
log "SCRAM-SHA-512 login as admin, created from SKIFF_SCRAM_BOOTSTRAP_USERS, in $took"
if kcat_sasl wrong-password -P -t "$TOPIC" <<<"refused" >"$WORK/refused.log" 2>&1; then
  log "a wrong password was accepted"
  exit 1
fi
logs=$(podman logs "$NAME" 2>&1)
grep -q "failed authentication with 127.0.0.1 on listener SASL_SSL (PLAIN)" <<<"$logs" ||
  { cat "$WORK/refused.log"; log "no failed authentication in the broker's log"; exit 1; }
log "a wrong password is refused"
stop_checked
SASL_SECONDS=$(since "$sasl_start")

mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
log "REPORT image size $(mb "$IMAGE_BYTES") (FROM scratch: skiff, its libraries, bash, busybox)"
log "REPORT start to healthy: $HEALTHY_SECONDS s (podman run to first passing HEALTHCHECK); after restart $RESTART_HEALTHY_SECONDS s; broker: $STARTED_MS"
log "REPORT podman stop: $FIRST_STOP; after restart $STOP_SECONDS s, exit code $STOP_CODE"
log "REPORT SASL_SSL run: start to healthy $SASL_HEALTHY_SECONDS s; the whole scenario (certificates, run, kcat, stop) $SASL_SECONDS s"
log "REPORT image build $BUILD_SECONDS s; whole script $(since "$SCRIPT_START") s"

if [[ ${SKIFF_IMAGE_COMPAT:-1} != 0 ]]; then
  CONTAINERS_CONF=$CONTAINERS_CONF scripts/test-image-compat.sh "$TAG"
fi
log "passed"
