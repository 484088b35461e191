#!/usr/bin/env bash
# Starts a single-node Apache Kafka 4.1.1 KRaft broker (PLAINTEXT on
# loopback, log cleaner off so that a loaded topic keeps every record, no
# topics created by asking for their metadata) from
# the jars in $KAFKA_LIB (default interop/lib, which interop/fetch.sh
# fills), prints "ready HOST:PORT" and serves until stdin closes or
# SIGINT/SIGTERM, then stops the broker and removes its data.
#
#   bench/kafka.sh < /dev/tty                       # by hand: Ctrl-D or Ctrl-C stops it
#   bench/compare.sh --broker kafka                 # compare.sh starts it itself
#   (bench/kafka.sh <fifo >ready &) ; bench/compare.sh --bootstrap "$(awk '/^ready/{print $2}' ready)"
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${KAFKA_LIB:-}" ]; then
  KAFKA_LIB=interop/lib
  [ -e interop/lib/kafka_2.13-4.1.1.jar ] || KAFKA_LIB=/tmp/mvntest/lib
fi
[ -e "$KAFKA_LIB/kafka_2.13-4.1.1.jar" ] || { echo "kafka.sh: no Kafka 4.1.1 jars in $KAFKA_LIB: run interop/fetch.sh" >&2; exit 1; }
for tool in java kcat python3; do
  command -v "$tool" >/dev/null || { echo "kafka.sh: $tool is missing" >&2; exit 1; }
done

dir=$(mktemp -d /tmp/koff-kafka.XXXXXX)
pid=
stop() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap stop EXIT
trap 'exit 0' INT TERM

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(freeport); cport=$(freeport)
cat >"$dir/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/data
num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
log.cleaner.enable=false
auto.create.topics.enable=false
EOF
cat >"$dir/log4j2.properties" <<EOF
rootLogger.level=WARN
rootLogger.appenderRef.f.ref=F
appender.f.type=File
appender.f.name=F
appender.f.fileName=$dir/server.log
appender.f.layout.type=PatternLayout
appender.f.layout.pattern=%d %p %c: %m%n
EOF
cp="$KAFKA_LIB/*"
jopts=(-Xmx1g -Dlog4j2.configurationFile="$dir/log4j2.properties")
java "${jopts[@]}" -cp "$cp" kafka.tools.StorageTool format -t "$(java "${jopts[@]}" -cp "$cp" kafka.tools.StorageTool random-uuid)" \
  -c "$dir/server.properties" >"$dir/format.log" 2>&1
java "${jopts[@]}" -cp "$cp" kafka.Kafka "$dir/server.properties" >"$dir/stdout.log" 2>&1 &
pid=$!
addr=127.0.0.1:$port
for _ in $(seq 240); do
  if kcat -b "$addr" -L -m 2 >/dev/null 2>&1; then
    echo "ready $addr"
    cat >/dev/null || true # until stdin closes
    exit 0
  fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.5
done
echo "kafka.sh: Kafka did not start: $(tail -5 "$dir/server.log" "$dir/stdout.log" 2>/dev/null)" >&2
exit 1
