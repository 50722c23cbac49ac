#!/usr/bin/env bash
# Runs Apache Kafka itself as a single-node KRaft broker (broker+controller in
# one JVM), from the jars scripts/fetch_kafka_jars.sh downloads. Used to check
# the compatibility suite and other tests against the real thing
# (tests/integration/harness/broker.py, txn_kill9.py, test_compaction.py,
# tools/record_kafka_apiversions.sh) and by the side-by-side benchmarks.
#
# Usage: scripts/kafka-broker.sh start   DIR PORT [key=value ...]
#        scripts/kafka-broker.sh stop    DIR
#        scripts/kafka-broker.sh status  DIR
#        scripts/kafka-broker.sh prepare DIR PORT [key=value ...]
#        scripts/kafka-broker.sh exec    DIR
#
#   DIR   its own directory: server.properties, data/, kafka.log, kafka.pid
#         (created if missing; a DIR already formatted is reused, so a stop
#         and start keeps the data).
#   PORT  the PLAINTEXT port on 127.0.0.1 clients use. The controller
#         listener gets a free port, remembered in DIR/controller.port.
#   key=value  extra broker properties appended to Kafka 4.4's shipped
#         config/server.properties defaults (e.g. num.partitions=3).
# env: KAFKA_VERSION (default 4.4.0), KAFKA_HEAP_OPTS (default -Xmx1G -Xms1G,
#      as kafka-server-start.sh), KAFKA_START_TIMEOUT seconds (default 90),
#      KAFKA_STOP_TIMEOUT seconds (default 60, then SIGKILL), KAFKA_ADD_SCRAM
#      (a SCRAM credential made at format time, kafka-storage's --add-scram form).
# start prints "127.0.0.1:PORT" when the broker answers; exit 1 (with the
# log's tail) if it does not come up in time. stop is a no-op when stopped.
# status prints "running PID 127.0.0.1:PORT" (exit 0) or "stopped" (exit 3).
# prepare writes the config and formats the storage without starting; exec
# then replaces itself with the broker's JVM in the foreground (for callers
# that time the start from exec, as bench/vs_kafka.py does).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VERSION="${KAFKA_VERSION:-4.4.0}"

usage() { sed -n '2,/^set -euo pipefail$/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
[[ $# -ge 2 ]] || usage
CMD=$1
DIR=$2
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"
PIDFILE="$DIR/kafka.pid"
LOG="$DIR/kafka.log"

alive() { [[ -f "$PIDFILE" ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() { python3 "$ROOT/scripts/free_port.py" "$@"; }  # free_port [EXCLUDED...]

do_stop() {
  if ! alive; then rm -f "$PIDFILE"; return 0; fi
  local pid; pid=$(cat "$PIDFILE")
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + ${KAFKA_STOP_TIMEOUT:-60}))
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      echo "kafka-broker: pid $pid still running after ${KAFKA_STOP_TIMEOUT:-60}s, sending SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.2
  done
  rm -f "$PIDFILE"
}

# Sets CP (the jars) and JAVA_OPTS (kafka-server-start.sh's defaults).
launch_settings() {
  JARS=$("$ROOT/scripts/fetch_kafka_jars.sh" "$VERSION" | tail -n1)
  CP="$JARS/*"
  JAVA_OPTS=(${KAFKA_HEAP_OPTS:--Xmx1G -Xms1G} -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20
             -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent
             -XX:MaxInlineLevel=15 -Djava.awt.headless=true)
}

# prepare PORT [key=value ...]: writes DIR/server.properties, formats the
# storage on first use, and sets CP and JAVA_OPTS for the launch.
prepare() {
  local PORT=$1 CPORT CLUSTER_ID kv
  shift
  launch_settings
  if [[ -f "$DIR/controller.port" ]]; then CPORT=$(cat "$DIR/controller.port"); else CPORT=$(free_port "$PORT"); echo "$CPORT" >"$DIR/controller.port"; fi
  # Kafka 4.4's config/server.properties (KRaft, combined mode) with our
  # listeners and log dir.
  cat >"$DIR/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:${CPORT}
listeners=PLAINTEXT://127.0.0.1:${PORT},CONTROLLER://127.0.0.1:${CPORT}
inter.broker.listener.name=PLAINTEXT
advertised.listeners=PLAINTEXT://127.0.0.1:${PORT},CONTROLLER://127.0.0.1:${CPORT}
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL
num.network.threads=3
num.io.threads=8
socket.send.buffer.bytes=102400
socket.receive.buffer.bytes=102400
socket.request.max.bytes=104857600
log.dirs=${DIR}/data
num.partitions=1
num.recovery.threads.per.data.dir=1
offsets.topic.replication.factor=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
log.retention.hours=168
log.segment.bytes=1073741824
log.retention.check.interval.ms=300000
PROPS
  for kv in "$@"; do
    [[ "$kv" == *=* ]] || { echo "kafka-broker: expected key=value, got '$kv'" >&2; exit 2; }
    echo "$kv" >>"$DIR/server.properties"
  done
  if [[ ! -f "$DIR/data/meta.properties" ]]; then
    CLUSTER_ID=$(java -cp "$CP" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n1)
    # KAFKA_ADD_SCRAM: a SCRAM credential made at format time, in
    # kafka-storage's --add-scram form (bench/sasl.py).
    local scram=()
    [[ -n "${KAFKA_ADD_SCRAM:-}" ]] && scram=(--add-scram "$KAFKA_ADD_SCRAM")
    if ! java -cp "$CP" kafka.tools.StorageTool format -t "$CLUSTER_ID" -c "$DIR/server.properties" \
           --standalone "${scram[@]}" >"$DIR/format.log" 2>&1; then
      echo "kafka-broker: storage format failed:" >&2
      tail -n 20 "$DIR/format.log" >&2
      exit 1
    fi
  fi
}

case "$CMD" in
  start)
    [[ $# -ge 3 ]] || usage
    PORT=$3
    shift 3
    if alive; then
      echo "kafka-broker: already running (pid $(cat "$PIDFILE")) in $DIR" >&2
      exit 1
    fi
    if port_open "$PORT"; then
      echo "kafka-broker: port $PORT is already in use" >&2
      exit 1
    fi
    prepare "$PORT" "$@"
    : >"$LOG"
    # A session of its own, so the caller's process group and terminal do not
    # take it down; the pid written is the JVM's (bash execs java).
    setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$PIDFILE" \
      java "${JAVA_OPTS[@]}" -cp "$CP" kafka.Kafka "$DIR/server.properties" \
      </dev/null >>"$LOG" 2>&1 &
    deadline=$((SECONDS + ${KAFKA_START_TIMEOUT:-90}))
    while :; do
      if [[ -f "$PIDFILE" ]] && ! alive; then
        echo "kafka-broker: Kafka exited during startup; last lines of $LOG:" >&2
        tail -n 30 "$LOG" >&2
        rm -f "$PIDFILE"
        exit 1
      fi
      if grep -q "Kafka Server started" "$LOG" 2>/dev/null && port_open "$PORT"; then break; fi
      if ((SECONDS >= deadline)); then
        echo "kafka-broker: not up after ${KAFKA_START_TIMEOUT:-90}s; stopping it. Last lines of $LOG:" >&2
        tail -n 30 "$LOG" >&2
        do_stop
        exit 1
      fi
      sleep 0.2
    done
    echo "127.0.0.1:$PORT"
    ;;
  prepare)
    [[ $# -ge 3 ]] || usage
    PORT=$3
    shift 3
    prepare "$PORT" "$@"
    ;;
  exec)
    [[ -f "$DIR/server.properties" ]] || { echo "kafka-broker: $DIR is not prepared" >&2; exit 2; }
    launch_settings
    exec java "${JAVA_OPTS[@]}" -cp "$CP" kafka.Kafka "$DIR/server.properties"
    ;;
  stop)
    do_stop
    ;;
  status)
    if alive; then
      echo "running $(cat "$PIDFILE") 127.0.0.1:$(sed -n 's/^listeners=PLAINTEXT:\/\/127.0.0.1:\([0-9]*\),.*/\1/p' "$DIR/server.properties")"
    else
      echo "stopped"
      exit 3
    fi
    ;;
  *) usage ;;
esac
