#!/usr/bin/env bash
# A big sink: one sink connector whose consumer group (connect-bench-sink)
# has committed offsets on every partition of a topic of 100,000 partitions,
# on an embedded kfake broker. Prints, for each koff build given (this
# tree's by default), alternating between them:
#
#   idle     `koff metrics` with no scrape, over --seconds after 10 s of
#            start-up: its share of a core and its RSS, from /proc;
#   status   `koff status bench-sink` (the group's committed offsets, log
#            ends and lag), beside kafka-consumer-groups.sh --describe
#            of the group (interop's Kafka jars, when java is there) and
#            kcat -L of the topic (its partitions' metadata only: kcat
#            cannot list a group's offsets).
#
#   bench/sink.sh                             # this tree's build, 3 runs, 60 s each
#   bench/sink.sh -n 5 --seconds 30 /tmp/koff-old /tmp/koff-new
#   bench/sink.sh --partitions 1000000
#
# Medians of the runs, with the load average at the start of each.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=3 secs=60 parts=100000 bins=()
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs=$2; shift 2 ;;
    --seconds) secs=$2; shift 2 ;;
    --partitions) parts=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) bins+=("$1"); shift ;;
  esac
done
KAFKA_LIB=${KAFKA_LIB:-interop/lib}
for tool in kcat /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "sink.sh: $tool is missing" >&2; exit 1; }
done

work=$(mktemp -d /tmp/koff-sink.XXXXXX)
lp=
cleanup() {
  exec 9>&- 2>/dev/null || true
  [ -z "$lp" ] || kill "$lp" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/load" ./bench/load
if [ ${#bins[@]} -eq 0 ]; then go build -o "$work/koff" .; bins=("$work/koff"); fi

mkfifo "$work/hold"
"$work/load" -serve 127.0.0.1:0 -workload mm2 -records 1000 -keys 1000 -sink-partitions "$parts" \
  <"$work/hold" >"$work/ready" 2>"$work/load.log" &
lp=$!
exec 9>"$work/hold"
for _ in $(seq 600); do grep -q ready "$work/ready" 2>/dev/null && break; sleep 0.5; done
addr=$(awk '/^ready/ { print $2 }' "$work/ready")
[ -n "$addr" ] || { echo "sink.sh: loader failed: $(cat "$work/load.log")" >&2; exit 1; }

tck=$(getconf CLK_TCK)
# idle BIN prints "CPU_PERCENT RSS_MB PEAK_MB" of koff metrics over $secs.
idle() {
  "$1" metrics -b "$addr" --listen 127.0.0.1:0 --config-topic "" >/dev/null 2>"$work/metrics.err" &
  local p=$! u0 s0 u1 s1 t0 t1
  sleep 10
  read -r u0 s0 < <(awk '{ print $14, $15 }' "/proc/$p/stat")
  t0=$(date +%s.%N)
  sleep "$secs"
  read -r u1 s1 < <(awk '{ print $14, $15 }' "/proc/$p/stat")
  t1=$(date +%s.%N)
  awk -v c=$((u1 - u0 + s1 - s0)) -v t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') -v tck="$tck" \
    '/VmRSS/ { r = $2 } /VmHWM/ { h = $2 } END { printf "%.1f %d %d\n", 100 * c / tck / t, r / 1024, h / 1024 }' "/proc/$p/status"
  kill "$p"; wait "$p" 2>/dev/null || true
}

# timed CMD... prints "SECONDS CPU_SECONDS RSS_MB" (exit status 4, a
# warning koff status gives for stalled sources, counts as done).
timed() {
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || [ $? -eq 4 ] ||
    { echo "sink.sh: failed: $* ($(tail -1 "$work/stderr"))" >&2; exit 1; }
  awk '{ printf "%.2f %.2f %d\n", $1, $2 + $3, $4 / 1024 }' "$work/time"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
kcg=()
if command -v java >/dev/null && [ -e "$KAFKA_LIB/kafka-tools-4.1.1.jar" ]; then
  kcg=(java -cp "$KAFKA_LIB/*" org.apache.kafka.tools.consumer.group.ConsumerGroupCommand
    --bootstrap-server "$addr" --describe --group connect-bench-sink)
fi

for r in $(seq "$runs"); do
  for i in "${!bins[@]}"; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    echo "$(idle "${bins[$i]}") $load" >>"$work/idle.$i"
    timed "${bins[$i]}" status bench-sink -b "$addr" --config-topic "" >>"$work/status.$i"
  done
  timed kcat -b "$addr" -L -t bench-sink-topic >>"$work/kcat"
  [ ${#kcg[@]} -eq 0 ] || timed "${kcg[@]}" >>"$work/kcg"
done

printf '%s partitions, %s runs, %s s idle each; medians\n' "$parts" "$runs" "$secs"
printf '%-28s %9s %8s %8s %10s %10s %9s %s\n' build idle-cpu% rss-MB peak-MB status-s status-cpu status-MB load
for i in "${!bins[@]}"; do
  printf '%-28s %9s %8s %8s %10s %10s %9s %s\n' "$(basename "${bins[$i]}")" \
    "$(awk '{print $1}' "$work/idle.$i" | median)" "$(awk '{print $2}' "$work/idle.$i" | median)" \
    "$(awk '{print $3}' "$work/idle.$i" | median)" "$(awk '{print $1}' "$work/status.$i" | median)" \
    "$(awk '{print $2}' "$work/status.$i" | median)" "$(awk '{print $3}' "$work/status.$i" | median)" \
    "$(awk '{printf "%s ", $4}' "$work/idle.$i")"
done
printf '%-28s %9s %8s %8s %10s %10s %9s\n' "kcat -L (metadata only)" - - - \
  "$(awk '{print $1}' "$work/kcat" | median)" "$(awk '{print $2}' "$work/kcat" | median)" "$(awk '{print $3}' "$work/kcat" | median)"
if [ -s "$work/kcg" ]; then
  printf '%-28s %9s %8s %8s %10s %10s %9s\n' "kafka-consumer-groups" - - - \
    "$(awk '{print $1}' "$work/kcg" | median)" "$(awk '{print $2}' "$work/kcg" | median)" "$(awk '{print $3}' "$work/kcg" | median)"
fi
