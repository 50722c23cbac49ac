#!/usr/bin/env bash
# Installs the real Kafka clients the compatibility suite (tests/integration)
# drives, at pinned versions, into a cache (idempotent: a finished step is
# stamped with a hash of its inputs and skipped next time, so a repeated run
# takes well under a second).
#
# Usage: scripts/install-test-clients.sh [CLIENT...]
#   CLIENT: kcat confluent_kafka kafka_python kafkajs java franz_go (default: all).
#   The Python venv (pytest + pinned Python clients) is always installed: it
#   runs the harness.
#   env SKIFF_CACHE_DIR (default ~/.cache/skiff); everything goes under
#   $SKIFF_CACHE_DIR/compat (or SKIFF_COMPAT_CACHE). Prints that directory on
#   its last line.
#
# Pinned versions live next to the drivers, in tests/integration:
#   requirements.txt (PyPI), drivers/node/package.json + package-lock.json
#   (npm), drivers/go/go.mod + go.sum (Go module proxy), and KAFKA_CLIENTS_VERSION
#   below (Maven Central, through scripts/fetch_kafka_jars.sh: kafka-clients for
#   the Java drivers, kafka-streams for java_txn's Streams application,
#   connect-runtime for test_connect.py's Connect worker). kcat and librdkafka
#   come from Debian.
set -euo pipefail
SELF="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$0")/.."
ROOT=$PWD
IT="$ROOT/tests/integration"
CACHE_ROOT="${SKIFF_CACHE_DIR:-${HOME}/.cache/skiff}"
# SKIFF_COMPAT_CACHE (as run.sh and the harness read it): a private client
# directory, e.g. for a branch whose drivers differ from the shared cache's.
COMPAT="${SKIFF_COMPAT_CACHE:-$CACHE_ROOT/compat}"
KAFKA_CLIENTS_VERSION=4.4.0
mkdir -p "$COMPAT"
# One installer at a time per cache (two ctest runs, or a test and a
# developer): each step removes and rebuilds its directory.
exec 8>"$COMPAT/.install.lock"
flock 8

ALL=(kcat confluent_kafka kafka_python kafkajs java franz_go)
if [[ $# -eq 0 ]]; then set -- "${ALL[@]}"; fi
# Accept CMake-style lists ("a;b") too.
CLIENTS=()
for a in "$@"; do IFS=';, ' read -r -a parts <<<"$a"; CLIENTS+=("${parts[@]}"); done

log() { printf 'install-test-clients: %s\n' "$*" >&2; }
hash_of() { cat "$@" | sha256sum | cut -c1-16; }
# Runs a command, retrying once: registries on a busy CI machine time out now and then.
retry() { "$@" || { log "retrying: $*"; sleep 3; "$@"; }; }

# Python venv: pytest + the two Python clients (always installed: it runs the harness).
install_venv() {
  local want; want=$(hash_of "$IT/requirements.txt" <(python3 --version))
  local venv="$COMPAT/venv"
  if [[ -f "$venv/.stamp" && "$(cat "$venv/.stamp")" == "$want" ]]; then return; fi
  log "python venv -> $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  retry "$venv/bin/pip" install -q --disable-pip-version-check --only-binary=:all: -r "$IT/requirements.txt"
  echo "$want" >"$venv/.stamp"
}

install_kcat() {
  if command -v kcat >/dev/null 2>&1; then return; fi
  log "kcat (Debian)"
  if [[ $(id -u) -eq 0 ]]; then SUDO=; else SUDO=sudo; fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q kcat >/dev/null 2>&1 || {
    $SUDO apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q kcat >/dev/null; }
}

install_kafkajs() {
  local src="$IT/drivers/node"
  local want; want=$(hash_of "$src/package.json" "$src/package-lock.json" "$src/driver.js" <(node --version))
  local dst="$COMPAT/node"
  if [[ -f "$dst/.stamp" && "$(cat "$dst/.stamp")" == "$want" ]]; then return; fi
  command -v npm >/dev/null || { log "npm not found"; exit 2; }
  log "kafkajs (npm) -> $dst"
  rm -rf "$dst"; mkdir -p "$dst"
  cp "$src/package.json" "$src/package-lock.json" "$src/driver.js" "$dst/"
  (cd "$dst" && retry npm ci --no-audit --no-fund --loglevel=error --ignore-scripts >&2)
  echo "$want" >"$dst/.stamp"
}

install_java() {
  local jars; jars=$(scripts/fetch_kafka_jars.sh "$KAFKA_CLIENTS_VERSION" | tail -n1)
  # CompatDriver.java, TxnDriver.java, TxnScenarios.java: one jar.
  local src=("$IT"/drivers/java/*.java)
  local want; want=$(hash_of "${src[@]}" "$SELF" <(echo "$jars") <(javac -version 2>&1))
  local dst="$COMPAT/java"
  if [[ -f "$dst/.stamp" && "$(cat "$dst/.stamp")" == "$want" ]]; then return; fi
  log "java driver (kafka-clients $KAFKA_CLIENTS_VERSION) -> $dst"
  rm -rf "$dst"; mkdir -p "$dst/classes"
  # Only what the client needs at run time: faster JVM start than all of Kafka.
  local cp=""
  for j in kafka-clients-"$KAFKA_CLIENTS_VERSION" lz4-java snappy-java zstd-jni slf4j-api slf4j-simple jackson-databind jackson-core jackson-annotations; do
    for f in "$jars"/"$j"*.jar; do cp+="${cp:+:}$f"; done
  done
  javac -nowarn -d "$dst/classes" -cp "$cp" "${src[@]}" >&2
  # A jar, not a directory: class-data sharing refuses directories on the path.
  jar cf "$dst/driver.jar" -C "$dst/classes" .
  echo "$dst/driver.jar:$cp" >"$dst/classpath"
  # A class-data-sharing archive of the client's classes: each run is a new
  # JVM, and this cuts its start-up. Optional: without it the JVM just starts slower.
  java -XX:ArchiveClassesAtExit="$dst/app.jsa" -Xlog:disable -Dorg.slf4j.simpleLogger.defaultLogLevel=off \
    -cp "$dst/driver.jar:$cp" CompatDriver --warmup >/dev/null 2>&1 || rm -f "$dst/app.jsa"
  echo "$want" >"$dst/.stamp"
}

# The exactly-once Kafka Streams word count of tests/integration/java_txn
# (kafka-streams $KAFKA_CLIENTS_VERSION and its dependencies, RocksDB
# included, through scripts/fetch_kafka_jars.sh's streams set).
install_java_streams() {
  local jars; jars=$(scripts/fetch_kafka_jars.sh "$KAFKA_CLIENTS_VERSION" streams | tail -n1)
  local src="$IT/drivers/java/streams/WordCountEos.java"
  local want; want=$(hash_of "$src" "$SELF" <(echo "$jars") <(javac -version 2>&1))
  local dst="$COMPAT/java-streams"
  if [[ -f "$dst/.stamp" && "$(cat "$dst/.stamp")" == "$want" ]]; then return; fi
  log "java streams app (kafka-streams $KAFKA_CLIENTS_VERSION) -> $dst"
  rm -rf "$dst"; mkdir -p "$dst/classes"
  javac -nowarn -d "$dst/classes" -cp "$jars/*" "$src" >&2
  jar cf "$dst/wordcount.jar" -C "$dst/classes" .
  echo "$dst/wordcount.jar:$jars/*" >"$dst/classpath"
  echo "$want" >"$dst/.stamp"
}

# test_connect.py's Kafka Connect distributed worker: connect-runtime
# $KAFKA_CLIENTS_VERSION and its dependencies (fetch_kafka_jars.sh's connect
# set), plus drivers/java/connect's connector, found by Connect through its
# META-INF/services entry.
install_java_connect() {
  local jars; jars=$(scripts/fetch_kafka_jars.sh "$KAFKA_CLIENTS_VERSION" connect | tail -n1)
  local src="$IT/drivers/java/connect/IdleSourceConnector.java"
  local want; want=$(hash_of "$src" "$SELF" <(echo "$jars") <(javac -version 2>&1))
  local dst="$COMPAT/java-connect"
  if [[ -f "$dst/.stamp" && "$(cat "$dst/.stamp")" == "$want" ]]; then return; fi
  log "java connect worker (connect-runtime $KAFKA_CLIENTS_VERSION) -> $dst"
  rm -rf "$dst"; mkdir -p "$dst/classes/META-INF/services"
  javac -nowarn -d "$dst/classes" -cp "$jars/*" "$src" >&2
  echo IdleSourceConnector >"$dst/classes/META-INF/services/org.apache.kafka.connect.source.SourceConnector"
  jar cf "$dst/connector.jar" -C "$dst/classes" .
  echo "$dst/connector.jar:$jars/*" >"$dst/classpath"
  echo "$want" >"$dst/.stamp"
}

install_franz_go() {
  local src="$IT/drivers/go"
  # Every .go file of the package (main.go, admin.go, ...): a change to any rebuilds.
  local want; want=$(hash_of "$src/go.mod" "$src/go.sum" "$src"/*.go <(go version))
  local dst="$COMPAT/go"
  if [[ -f "$dst/.stamp" && "$(cat "$dst/.stamp")" == "$want" ]]; then return; fi
  command -v go >/dev/null || { log "go not found"; exit 2; }
  log "franz-go driver -> $dst"
  rm -rf "$dst"; mkdir -p "$dst"
  (cd "$src" && retry go mod download && GOFLAGS=-buildvcs=false go build -o "$dst/franz-go-driver" . >&2)
  echo "$want" >"$dst/.stamp"
}

install_venv
for c in "${CLIENTS[@]}"; do
  case "$c" in
    kcat) install_kcat ;;
    confluent_kafka|kafka_python) ;;  # in the venv
    kafkajs) install_kafkajs ;;
    java) install_java; install_java_streams; install_java_connect ;;
    franz_go) install_franz_go ;;
    "") ;;
    *) log "unknown client '$c' (known: ${ALL[*]})"; exit 2 ;;
  esac
done
echo "$COMPAT"
