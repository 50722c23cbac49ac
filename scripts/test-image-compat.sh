#!/usr/bin/env bash
# Tests a built Skiff image as a drop-in for the apache/kafka image, with
# podman (scripts/test-image.sh builds the image and calls this; it can also
# run alone on an image podman has):
#   1. a Compose-style run configured only with KAFKA_* variables, those of
#      apache/kafka's documented single-node example
#      (docker/examples/docker-compose-files/single-node/plaintext), on the
#      bridge network with its port published: the readiness line, produce
#      and consume with kcat through the published port, and the CONTROLLER
#      listener answering as Kafka's controller listener (ApiVersions with
#      the controller's APIs, Metadata closes the connection);
#   2. the entry point: `run NAME=VALUE` exports, a server.properties mounted
#      in /mnt/shared/config (the file-input example), and bad input (KRaft
#      keys of more than one node, a malformed value, a malformed CLUSTER_ID)
#      refused with exit code 2 and the reason;
#   3. TLS from /etc/kafka/secrets: KAFKA_SSL_KEYSTORE_FILENAME and
#      KAFKA_SSL_KEY_CREDENTIALS (an encrypted key), listeners derived from
#      KAFKA_ADVERTISED_LISTENERS, produce and consume over SSL;
#   4. Testcontainers through podman's Docker-compatible socket (`podman
#      system service`, Ryuk disabled, nothing pulled): Java 2.0.5's
#      KafkaContainer with asCompatibleSubstituteFor("apache/kafka"): admin,
#      produce/consume and a transaction through the mapped port
#      (tests/image/testcontainers-java); Python 4.15's Kafka module with the
#      image name as its one change (tests/image/testcontainers_python_check.py);
#      Go 0.40's Kafka module with the image tagged
#      confluentinc/confluent-local:7.6.0 (tests/image/testcontainers-go).
# Step 4 fetches Testcontainers from Maven Central, PyPI (both cached under
# SKIFF_CACHE_DIR, ~/.cache/skiff) and the Go module proxy (Go's module
# cache); where that or the socket cannot work it prints SKIP with the
# reason, never a pass.
#   scripts/test-image-compat.sh IMAGE
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
IMAGE=${1:?usage: $0 IMAGE}
CACHE_ROOT="${SKIFF_CACHE_DIR:-${HOME}/.cache/skiff}"
CLUSTER_ID=4L6g3nShT-eMCtK--X86sw
SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO="sudo"
log() { printf '[test-image-compat %s] %s\n' "$(date +%T)" "$*" >&2; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
free_port() { python3 "$ROOT/scripts/free_port.py" "$@"; }
WORK=$(mktemp -d /tmp/skiff-test-image-compat.XXXXXX)
if [[ -z ${CONTAINERS_CONF:-} ]]; then
  export CONTAINERS_CONF=$WORK/containers.conf
  printf '[containers]\ndefault_ulimits = []\n[engine]\ncgroup_manager = "cgroupfs"\nruntime = "runc"\n' >"$CONTAINERS_CONF"
fi
podman() { $SUDO env CONTAINERS_CONF="$CONTAINERS_CONF" podman "$@"; }
quiet() { grep -v 'unable to get systemd connection' || true; }
LABEL=skiff-test-image-compat=$$
SERVICE_PID=""
SKIPPED=()

cleanup() {
  local rc=$?
  if ((rc != 0)) && [[ -n ${CURRENT:-} ]]; then
    log "FAILED; the log of $CURRENT:"
    podman logs "$CURRENT" 2>&1 | quiet | tail -30 || true
  fi
  for c in $(podman ps -aq --filter "label=$LABEL" 2>/dev/null); do podman rm -f -t 0 "$c" >/dev/null 2>&1 || true; done
  [[ -n $SERVICE_PID ]] && kill "$SERVICE_PID" 2>/dev/null && wait "$SERVICE_PID" 2>/dev/null
  $SUDO rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT

run_d() { podman run -d --label "$LABEL" "$@" 2>&1 | quiet | tail -1; }

wait_ready() {  # NAME FROM: prints seconds from FROM to the readiness line
  local name=$1 from=$2 deadline=$((SECONDS + 60)) logs
  while :; do
    logs=$(podman logs "$name" 2>&1)
    grep -q 'Transitioning from RECOVERY to RUNNING' <<<"$logs" && break
    [[ $(podman inspect "$name" --format '{{.State.Running}}') == true ]] || { log "$name exited"; return 1; }
    ((SECONDS < deadline)) || { log "$name: no readiness line after 60 s"; return 1; }
    sleep 0.05
  done
  since "$from"
}

round_trip() {  # kcat arguments...: 20 messages produced and consumed back
  local topic=compat-$RANDOM expected got
  expected=$(printf 'm-%d\n' $(seq 1 20))
  timeout 30 kcat "$@" -P -t "$topic" <<<"$expected"
  got=$(timeout 30 kcat "$@" -C -t "$topic" -o beginning -e -q)
  [[ $got == "$expected" ]] || { log "consumed $(wc -l <<<"$got") lines, not the 20 produced"; return 1; }
}

# --- 1. Compose-style: apache/kafka's single-node example, KAFKA_* only ------
compose_example() {
  local host_port ctrl_port t ready probe
  host_port=$(free_port)
  ctrl_port=$(free_port "$host_port")
  CURRENT=skiff-compat-compose-$$
  log "compose-style run: apache/kafka's single-node plaintext example, -p $host_port:9092"
  t=$(now)
  run_d --name "$CURRENT" --hostname broker -p "$host_port:9092" -p "$ctrl_port:29093" \
    -e KAFKA_NODE_ID=1 \
    -e KAFKA_LISTENER_SECURITY_PROTOCOL_MAP='CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,PLAINTEXT_HOST:PLAINTEXT' \
    -e KAFKA_ADVERTISED_LISTENERS="PLAINTEXT_HOST://localhost:$host_port,PLAINTEXT://broker:19092" \
    -e KAFKA_PROCESS_ROLES='broker,controller' \
    -e KAFKA_CONTROLLER_QUORUM_VOTERS='1@broker:29093' \
    -e KAFKA_LISTENERS='CONTROLLER://:29093,PLAINTEXT_HOST://:9092,PLAINTEXT://:19092' \
    -e KAFKA_INTER_BROKER_LISTENER_NAME='PLAINTEXT' \
    -e KAFKA_CONTROLLER_LISTENER_NAMES='CONTROLLER' \
    -e CLUSTER_ID="$CLUSTER_ID" \
    -e KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR=1 \
    -e KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS=0 \
    -e KAFKA_TRANSACTION_STATE_LOG_MIN_ISR=1 \
    -e KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR=1 \
    -e KAFKA_LOG_DIRS='/tmp/kraft-combined-logs' \
    "$IMAGE" >/dev/null
  ready=$(wait_ready "$CURRENT" "$t")
  log "readiness line $ready s after podman run"
  round_trip -b "localhost:$host_port"
  log "produced and consumed 20 messages through the published port"
  [[ $(timeout 30 kcat -b "localhost:$host_port" -L 2>&1) == *"cluster id: $CLUSTER_ID"* ]] ||
    [[ $(timeout 30 kcat -b "localhost:$host_port" -L -J 2>/dev/null) == *'"controllerid"'* ]] ||
    { log "kcat -L failed"; return 1; }
  probe=$(timeout 30 python3 tests/image/kafka_probe.py "localhost:$ctrl_port")
  log "CONTROLLER listener: $probe"
  [[ $probe == "error=0 apis="* && $probe == *"metadata=closed" ]] || { log "the controller listener answered as a broker"; return 1; }
  grep -qE 'apis=([0-9]+,)*19(,|$| )' <<<"$probe" || { log "CreateTopics is not on the controller listener"; return 1; }
  grep -qE 'apis=([0-9]+,)*(0|1|3),' <<<"$probe" && { log "Produce/Fetch/Metadata advertised on the controller listener"; return 1; }
  podman stop -t 10 "$CURRENT" 2>&1 | quiet >/dev/null
  [[ $(podman inspect "$CURRENT" --format '{{.State.ExitCode}}') == 0 ]] || { log "exit code not 0 after stop"; return 1; }
  podman rm -f "$CURRENT" >/dev/null 2>&1
  CURRENT=""
}

# --- 2. the entry point: run's arguments, a mounted server.properties, bad input
entry_point() {
  local out cfg
  out=$(podman run --rm "$IMAGE" /etc/kafka/docker/run KAFKA_NUM_PARTITIONS=3 --print-config 2>&1)
  grep -qE '^num\.partitions +=  *3 +\(environment\)' <<<"$out" || { echo "$out"; log "run NAME=VALUE was not exported"; return 1; }
  cfg=$WORK/file-input
  mkdir -p "$cfg"
  # apache/kafka's docker/examples/fixtures/file-input/server.properties, the TLS lines aside.
  cat >"$cfg/server.properties" <<'EOF'
advertised.listeners=PLAINTEXT_HOST://localhost:9092,PLAINTEXT://broker:19092
controller.listener.names=CONTROLLER
group.initial.rebalance.delay.ms=0
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,PLAINTEXT_HOST:PLAINTEXT
log.dirs=/tmp/kraft-combined-logs
offsets.topic.replication.factor=1
process.roles=broker
transaction.state.log.min.isr=1
transaction.state.log.replication.factor=1
EOF
  chmod -R a+rX "$cfg"
  out=$(podman run --rm -v "$cfg:/mnt/shared/config:ro" -e CLUSTER_ID="$CLUSTER_ID" -e KAFKA_NODE_ID=1 \
    -e KAFKA_CONTROLLER_QUORUM_VOTERS='1@broker:29093' \
    -e KAFKA_LISTENERS='PLAINTEXT_HOST://:9092,CONTROLLER://:29093,PLAINTEXT://:19092' \
    -e KAFKA_PROCESS_ROLES='broker,controller' "$IMAGE" --print-config 2>&1)
  grep -qE '^log\.dirs +=  */tmp/kraft-combined-logs +\(file\)' <<<"$out" &&
    grep -qE '^process\.roles +=  *broker,controller +\(environment\)' <<<"$out" ||
    { echo "$out"; log "the mounted server.properties was not read, or the environment did not win"; return 1; }
  log "entry point: run NAME=VALUE exported; /mnt/shared/config/server.properties read, KAFKA_* over it"
  refused() {  # expected message, then podman run arguments
    local want=$1 rc=0
    shift
    out=$(podman run --rm "$@" "$IMAGE" 2>&1) || rc=$?
    [[ $rc == 2 && $out == *"$want"* ]] || { echo "$out"; log "expected exit 2 with '$want', got $rc"; return 1; }
  }
  refused "controller.quorum.voters names 2 voters" -e KAFKA_PROCESS_ROLES=broker,controller \
    -e KAFKA_CONTROLLER_LISTENER_NAMES=CONTROLLER -e KAFKA_LISTENERS=PLAINTEXT://:9092,CONTROLLER://:9093 \
    -e KAFKA_LISTENER_SECURITY_PROTOCOL_MAP=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT \
    -e KAFKA_CONTROLLER_QUORUM_VOTERS=1@a:9093,2@b:9093
  refused "num.partitions" -e KAFKA_NUM_PARTITIONS=lots
  refused "CLUSTER_ID='nope'" -e CLUSTER_ID=nope
  log "bad input refused with exit code 2: two voters, a malformed value, a malformed CLUSTER_ID"
}

# --- 3. TLS material from /etc/kafka/secrets ---------------------------------
tls_from_secrets() {
  local port secrets ca t
  port=$(free_port)
  secrets=$WORK/secrets
  ca=$WORK/ca
  mkdir -p "$secrets" "$ca"
  ossl() { openssl "$@" >>"$WORK/openssl.log" 2>&1 || { cat "$WORK/openssl.log"; log "openssl $1 failed"; return 1; }; }
  ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -keyout "$ca/ca.key" \
    -out "$ca/ca.pem" -subj "/CN=Skiff compat CA"
  ossl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$ca/server.key" -out "$ca/server.csr" \
    -subj "/CN=localhost"
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$ca/server.ext"
  ossl x509 -req -in "$ca/server.csr" -CA "$ca/ca.pem" -CAkey "$ca/ca.key" -CAcreateserial -days 2 \
    -out "$ca/server.crt" -extfile "$ca/server.ext"
  ossl pkcs8 -topk8 -v2 aes256 -in "$ca/server.key" -out "$ca/server.enc.key" -passout pass:key-secret
  cat "$ca/server.enc.key" "$ca/server.crt" >"$secrets/broker.pem"
  echo key-secret >"$secrets/key_creds"
  echo unused >"$secrets/store_creds"
  $SUDO chown -R 1000:1000 "$secrets"
  CURRENT=skiff-compat-tls-$$
  log "TLS from /etc/kafka/secrets: encrypted key, KAFKA_SSL_KEY_CREDENTIALS, listeners derived, -p $port:$port"
  t=$(now)
  run_d --name "$CURRENT" -p "$port:$port" -v "$secrets:/etc/kafka/secrets:ro" \
    -e KAFKA_ADVERTISED_LISTENERS="SSL://localhost:$port" -e KAFKA_LISTENER_SECURITY_PROTOCOL_MAP=SSL:SSL \
    -e KAFKA_SSL_KEYSTORE_FILENAME=broker.pem -e KAFKA_SSL_KEY_CREDENTIALS=key_creds \
    -e KAFKA_SSL_KEYSTORE_CREDENTIALS=store_creds "$IMAGE" >/dev/null
  wait_ready "$CURRENT" "$t" >/dev/null
  podman healthcheck run "$CURRENT" 2>&1 | quiet >/dev/null || { log "HEALTHCHECK failed over TLS"; return 1; }
  round_trip -b "localhost:$port" -X security.protocol=SSL -X ssl.ca.location="$ca/ca.pem"
  grep -q 'KAFKA_SSL_KEYSTORE_CREDENTIALS ignored' <<<"$(podman logs "$CURRENT" 2>&1)" ||
    { log "no warning about the store password"; return 1; }
  log "TLS: healthy, 20 messages over SSL with the encrypted key from the secrets directory"
  podman rm -f -t 0 "$CURRENT" >/dev/null 2>&1
  CURRENT=""
}

# --- 4. Testcontainers through podman's Docker API socket ---------------------
start_socket() {
  local sock=$WORK/podman.sock
  $SUDO env CONTAINERS_CONF="$CONTAINERS_CONF" podman system service --time=0 "unix://$sock" \
    >"$WORK/service.log" 2>&1 &
  SERVICE_PID=$!
  for _ in $(seq 1 100); do
    [[ -S $sock ]] && curl -sf --unix-socket "$sock" http://d/_ping >/dev/null 2>&1 && break
    sleep 0.1
  done
  curl -sf --unix-socket "$sock" http://d/_ping >/dev/null 2>&1 || { cat "$WORK/service.log"; return 1; }
  export DOCKER_HOST=unix://$sock TESTCONTAINERS_RYUK_DISABLED=true TESTCONTAINERS_CHECKS_DISABLE=true
  log "podman system service on $DOCKER_HOST (Ryuk disabled)"
}

testcontainers_java() {
  local dir=tests/image/testcontainers-java deps=$WORK/tc-java-deps
  command -v mvn >/dev/null && command -v java >/dev/null || { SKIPPED+=("Testcontainers Java: no mvn/java"); return 0; }
  if ! (cd "$dir" && timeout 600 mvn -B -q -Dmaven.repo.local="$CACHE_ROOT/m2" -DoutputDirectory="$deps" \
    package dependency:copy-dependencies >"$WORK/mvn.log" 2>&1); then
    tail -20 "$WORK/mvn.log"
    SKIPPED+=("Testcontainers Java: Maven could not fetch or build it (log above)")
    return 0
  fi
  log "Testcontainers Java 2.0.5: KafkaContainer(asCompatibleSubstituteFor(\"apache/kafka\")) on $IMAGE"
  CURRENT=""
  timeout 300 java -cp "$dir/target/*:$deps/*" skiff.KafkaContainerCheck "$IMAGE" 2>"$WORK/tc-java.err" |
    tee "$WORK/tc-java.out" >&2 || { tail -40 "$WORK/tc-java.err"; return 1; }
  grep -q '^passed$' "$WORK/tc-java.out" || { tail -40 "$WORK/tc-java.err"; return 1; }
}

testcontainers_python() {
  local venv=$CACHE_ROOT/image-compat-venv
  if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c 'import testcontainers.community.kafka, kafka' 2>/dev/null; then
    python3 -m venv "$venv" && timeout 600 "$venv/bin/pip" install -q "testcontainers[kafka]==4.15.0" \
      "kafka-python==3.0.12" "packaging" >"$WORK/pip.log" 2>&1 ||
      { tail -5 "$WORK/pip.log"; SKIPPED+=("Testcontainers Python: pip could not install it"); return 0; }
  fi
  log "Testcontainers Python 4.15: KafkaContainer(\"$IMAGE\")"
  # Where /.dockerenv exists (CI sandboxes, this machine) the module thinks
  # it runs inside a container and asks for the container network's gateway,
  # which podman's API answers without Docker's HostConfig: told that the
  # Docker host is where the mapped ports are, it uses them.
  TESTCONTAINERS_CONNECTION_MODE=docker_host timeout 300 "$venv/bin/python" tests/image/testcontainers_python_check.py \
    "$IMAGE" >&2
}

# Go's module accepts only confluentinc/confluent-local (7.4.0 or later): the
# image gets that name locally, as docs/operations/container.md says to.
testcontainers_go() {
  local dir=tests/image/testcontainers-go alias=docker.io/confluentinc/confluent-local:7.6.0
  command -v go >/dev/null || { SKIPPED+=("Testcontainers Go: no go"); return 0; }
  if ! (cd "$dir" && timeout 900 go build -o "$WORK/tc-go" . >"$WORK/go.log" 2>&1); then
    tail -20 "$WORK/go.log"
    SKIPPED+=("Testcontainers Go: the module proxy or the build failed (log above)")
    return 0
  fi
  if podman image exists "$alias"; then
    SKIPPED+=("Testcontainers Go: $alias is already an image here; not replaced")
    return 0
  fi
  podman tag "$IMAGE" "$alias"
  log "Testcontainers Go 0.40: kafka.Run(\"confluentinc/confluent-local:7.6.0\"), the image tagged so"
  local rc=0
  timeout 300 "$WORK/tc-go" confluentinc/confluent-local:7.6.0 >&2 || rc=$?
  podman untag "$IMAGE" "$alias" >/dev/null 2>&1 || true  # that name only (without it: every name)
  return "$rc"
}

compose_example
entry_point
tls_from_secrets
if command -v curl >/dev/null && start_socket; then
  testcontainers_java
  testcontainers_python
  testcontainers_go
else
  SKIPPED+=("Testcontainers: podman system service did not answer on its socket (log above)")
fi
for s in "${SKIPPED[@]}"; do log "SKIP $s"; done
log "passed"
