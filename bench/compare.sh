#!/usr/bin/env bash
# Loads Connect offsets topics written as a Java worker writes them and
# times `koff get -o json > /dev/null` against kcat's dump of the same topic,
# alternately on the same broker, and prints the medians, the ratio
# koff/kcat and the peak RSS of each (from /usr/bin/time -v), and koff's
# slowest run against kcat's fastest.
#
#   bench/compare.sh                          # embedded kfake broker, the three workloads below, 5 runs each
#   bench/compare.sh --broker kafka           # a real Apache Kafka 4.1.1 KRaft broker started from the jars in
#                                             # $KAFKA_LIB (default interop/lib, which interop/fetch.sh fills)
#   bench/compare.sh --bootstrap HOST:PORT    # a broker already running (loads topics bench-KIND-RECORDS-KEYS)
#   bench/compare.sh -n 3 debezium:1000000:7000 mm2:3000000:7000
#   bench/compare.sh --warmup 2               # unmeasured reads of each before the runs (default 1; 3 for
#                                             # --broker kafka, whose JVM compiles its fetch path meanwhile)
#   KOFF_BIN=/tmp/koff-old bench/compare.sh   # time another koff build instead of this tree's
#
# A workload is KIND:RECORDS:KEYS, KIND debezium (big LSN offsets) or mm2
# (MirrorMaker partitions), or history: debezium's records all of one
# connector, debezium-00, timing `koff history debezium-00 -o json` and
# `koff set debezium-00 --to-datetime (an hour ago) --dry-run` (the rewind
# line) against the same kcat dump:
#
#   bench/compare.sh -n 3 history:1000000:7000
#
# Needs kcat and /usr/bin/time; java for --broker kafka.
# The broker, whichever it is, serves both readers: its serve rate is in
# both figures.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=5
broker=kfake
workloads=()
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --broker) broker=$2; shift 2 ;;
    --bootstrap) broker=external; addr=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) workloads+=("$1"); shift ;;
  esac
done
[ ${#workloads[@]} -gt 0 ] || workloads=(debezium:1000000:7000 mm2:300000:100000 mm2:1000000:1000000)
if [ -z "${KAFKA_LIB:-}" ]; then
  KAFKA_LIB=interop/lib
  [ -e interop/lib/kafka_2.13-4.1.1.jar ] || KAFKA_LIB=/tmp/mvntest/lib
fi
case "$broker" in kfake|kafka|external) ;; *) echo "compare.sh: --broker is kfake or kafka" >&2; exit 2 ;; esac

for tool in kcat /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "compare.sh: $tool is missing" >&2; exit 1; }
done

work=$(mktemp -d /tmp/koff-bench.XXXXXX)
pids=()
cleanup() {
  exec 8>&- 9>&-
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/load" ./bench/load
if [ -n "${KOFF_BIN:-}" ]; then cp "$KOFF_BIN" "$work/koff"; else go build -o "$work/koff" .; fi

# start_kafka starts a real broker (bench/kafka.sh) and sets addr.
start_kafka() {
  mkfifo "$work/kafka.hold"
  bench/kafka.sh <"$work/kafka.hold" >"$work/kafka.ready" 2>"$work/kafka.log" &
  pids+=($!)
  exec 8>"$work/kafka.hold" # keeps the broker up until closed
  for _ in $(seq 300); do grep -q ready "$work/kafka.ready" 2>/dev/null && break; sleep 0.5; done
  addr=$(awk '/^ready/ { print $2 }' "$work/kafka.ready")
  [ -n "$addr" ] || { echo "compare.sh: Kafka did not start: $(cat "$work/kafka.log")" >&2; exit 1; }
}

# measure CMD... runs CMD under /usr/bin/time -v and prints "SECONDS RSS_KB CPU_SECONDS"
# (CPU: user + system, which a loaded machine stretches less than wall time).
# A rewind that leaves partitions alone (every one of them, an hour before
# the load) exits 5 by design: that is a run, not a failure.
measure() {
  local code=0
  /usr/bin/time -v -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || code=$?
  if [ "$code" -ne 0 ] && ! { [ "$code" -eq 5 ] && [ "$2" = set ]; }; then
    echo "compare.sh: failed: $* ($(tail -1 "$work/stderr" | cut -c1-300))" >&2
    exit 1
  fi
  awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i] }
              /Maximum resident set size/ { r = $2 }
              /User time \(seconds\)|System time \(seconds\)/ { c += $2 }
              END { printf "%.3f %d %.2f\n", s, r, c }' "$work/time"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '%-24s %-6s %10s %10s %7s %10s %10s %9s %9s %9s   (%s runs each, alternating, broker %s)\n' \
  workload '' koff-s kcat-s ratio koff-MB kcat-MB koff-cpu kcat-cpu cpu-ratio "$runs" "$broker"
for wl in "${workloads[@]}"; do
  IFS=: read -r kind records keys <<<"$wl"
  topic=connect-offsets
  # history: one connector's commits, all of them its history.
  lkind=$kind lconns=70
  [ "$kind" = history ] && lkind=debezium lconns=1
  if [ "$broker" != kfake ]; then
    [ -n "${addr:-}" ] || start_kafka
    topic=bench-$kind-$records-$keys
    if [ "$broker" = external ] && kcat -b "$addr" -L 2>/dev/null | grep -q "topic \"$topic\" "; then
      echo "compare.sh: $topic is there already: reading it as it is" >&2
    else
      "$work/load" -b "$addr" -topic "$topic" -workload "$lkind" -connectors "$lconns" -records "$records" -keys "$keys" 2>"$work/load.log"
    fi
  else
    mkfifo "$work/hold.$kind.$records.$keys"
    "$work/load" -serve 127.0.0.1:0 -workload "$lkind" -connectors "$lconns" -records "$records" -keys "$keys" \
      <"$work/hold.$kind.$records.$keys" >"$work/ready" 2>"$work/load.log" &
    lp=$!
    pids+=($lp)
    exec 9>"$work/hold.$kind.$records.$keys" # keeps the broker serving until closed
    for _ in $(seq 600); do grep -q ready "$work/ready" 2>/dev/null && break; sleep 0.5; done
    addr=$(awk '/^ready/ { print $2 }' "$work/ready")
    [ -n "$addr" ] || { echo "compare.sh: loader failed: $(cat "$work/load.log")" >&2; exit 1; }
  fi
  # Unmeasured reads each: the broker's first serve of a topic warms its
  # caches, and a JVM just started compiles its fetch path while it serves
  # the first few (taking a core from the reader measured next).
  koffcmd=("$work/koff" get -b "$addr" --offsets-topic "$topic" -o json --timeout 10m)
  rewindcmd=()
  if [ "$kind" = history ]; then
    koffcmd=("$work/koff" history debezium-00 -b "$addr" --offsets-topic "$topic" --config-topic "" -o json)
    rewindcmd=("$work/koff" set debezium-00 -b "$addr" --offsets-topic "$topic" --config-topic "" --dry-run
      --to-datetime "$(date -u -d '1 hour ago' +%Y-%m-%dT%H:%M:%SZ)")
  fi
  for _ in $(seq "${warmup:-$([ "$broker" = kafka ] && echo 3 || echo 1)}"); do
    "${koffcmd[@]}" >/dev/null
    kcat -b "$addr" -C -t "$topic" -e -q -f '%k %s\n' >/dev/null
  done
  : >"$work/koff.txt"; : >"$work/kcat.txt"; : >"$work/rewind.txt"
  for _ in $(seq "$runs"); do
    measure "${koffcmd[@]}" >>"$work/koff.txt"
    measure kcat -b "$addr" -C -t "$topic" -e -q -f '%k %s\n' >>"$work/kcat.txt"
    [ ${#rewindcmd[@]} -eq 0 ] || measure "${rewindcmd[@]}" >>"$work/rewind.txt"
  done
  ks=$(awk '{print $1}' "$work/koff.txt" | median); cs=$(awk '{print $1}' "$work/kcat.txt" | median)
  kr=$(awk '{print $2}' "$work/koff.txt" | median); cr=$(awk '{print $2}' "$work/kcat.txt" | median)
  kc=$(awk '{print $3}' "$work/koff.txt" | median); cc=$(awk '{print $3}' "$work/kcat.txt" | median)
  printf '%-24s %-6s %10.2f %10.2f %7.2f %10.0f %10.0f %9.2f %9.2f %9.2f\n' "$wl" median "$ks" "$cs" "$(awk -v a="$ks" -v b="$cs" 'BEGIN { print a / b }')" \
    "$(awk -v r="$kr" 'BEGIN { print r / 1024 }')" "$(awk -v r="$cr" 'BEGIN { print r / 1024 }')" \
    "$kc" "$cc" "$(awk -v a="$kc" -v b="$cc" 'BEGIN { print a / b }')"
  if [ -s "$work/rewind.txt" ]; then
    rs=$(awk '{print $1}' "$work/rewind.txt" | median); rr=$(awk '{print $2}' "$work/rewind.txt" | median)
    rc=$(awk '{print $3}' "$work/rewind.txt" | median)
    printf '%-24s %-6s %10.2f %10.2f %7.2f %10.0f %10.0f %9.2f %9.2f %9.2f\n' '' rewind "$rs" "$cs" "$(awk -v a="$rs" -v b="$cs" 'BEGIN { print a / b }')" \
      "$(awk -v r="$rr" 'BEGIN { print r / 1024 }')" "$(awk -v r="$cr" 'BEGIN { print r / 1024 }')" \
      "$rc" "$cc" "$(awk -v a="$rc" -v b="$cc" 'BEGIN { print a / b }')"
  fi
  printf '%-24s %-6s %s | %s\n' '' runs "$(awk '{printf "%s/%dMB ", $1, $2/1024}' "$work/koff.txt")" "$(awk '{printf "%s/%dMB ", $1, $2/1024}' "$work/kcat.txt")"
  # kcat's wall spreads widely for the same CPU (it waits on its fetches):
  # koff's slowest run against kcat's fastest says whether a ratio rests on that.
  kw=$(awk '{print $1}' "$work/koff.txt" | sort -g | tail -1); cb=$(awk '{print $1}' "$work/kcat.txt" | sort -g | head -1)
  printf '%-24s %-6s %10.2f %10.2f %7.2f   (koff slowest / kcat fastest)\n' '' worst "$kw" "$cb" "$(awk -v a="$kw" -v b="$cb" 'BEGIN { print a / b }')"
  if [ "$broker" = kfake ]; then
    exec 9>&-
    wait "$lp" 2>/dev/null || true
    rm -f "$work/hold.$kind.$records.$keys"
    addr=
  fi
done
