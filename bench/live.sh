#!/usr/bin/env bash
# Times the dashboard from its start until it is live on a loaded offsets
# topic, against kcat's dump of the same topic, alternately on one embedded
# kfake broker (bench/load). The dashboard is the real binary (`koff -b
# ADDR`) in a tmux pane, read every ~20 ms with capture-pane: it is live
# when its header says `● live` with every partition counted (`N
# partitions`, N the workload's keys; below 100 columns, where the header
# has no room for it, the records), which is what a user waits for.
# Prints, for each koff build given (this tree's by default), the median
# time to live, the first frame, and koff's CPU (user + system) and RSS at
# the moment it went live (from /proc), and how long a key (↓, moving the
# selection) took to show while it was catching up; and kcat's dump
# (`kcat -C -e -q -f '%k %s\n' >/dev/null`): its wall, CPU and peak RSS.
#
#   bench/live.sh                                   # this tree's build, mm2:1000000:1000000, 5 rounds
#   bench/live.sh -n 7 /tmp/koff-old /tmp/koff-new  # two builds, alternating within each round
#   bench/live.sh --size 80x24 --workload debezium:1000000:7000
#   bench/live.sh --bootstrap HOST:PORT --workload mm2:1000000:1000000   # a broker already loaded (connect-offsets)
#   bench/live.sh --bootstrap HOST:PORT --partitions 7000   # its partitions, if not the workload's keys
#   bench/live.sh --keep                            # print the pane as it went live, for each build
#
# A workload is KIND:RECORDS:KEYS as bench/compare.sh takes it. Needs tmux,
# kcat and /usr/bin/time. The machine's other load is in every column:
# compare the columns of one run.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=5 size=120x35 workload=mm2:1000000:1000000 addr= parts= keep= bins=()
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --workload) workload=$2; shift 2 ;;
    --bootstrap) addr=$2; shift 2 ;;
    --partitions) parts=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    -*) echo "live.sh: unknown option $1" >&2; exit 2 ;;
    *) bins+=("$1"); shift ;;
  esac
done
for tool in tmux kcat /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "live.sh: $tool is missing" >&2; exit 1; }
done
IFS=: read -r kind records keys <<<"$workload"
[ -n "$parts" ] || parts=$keys
cols=${size%x*} rows=${size#*x}

work=$(mktemp -d /tmp/koff-live.XXXXXX)
lp= session=
cleanup() {
  [ -z "$session" ] || tmux kill-session -t "$session" 2>/dev/null || true
  exec 9>&- 2>/dev/null || true
  [ -z "$lp" ] || kill "$lp" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

if [ ${#bins[@]} -eq 0 ]; then go build -o "$work/koff" .; bins=("$work/koff"); fi
if [ -z "$addr" ]; then
  go build -o "$work/load" ./bench/load
  mkfifo "$work/hold"
  "$work/load" -serve 127.0.0.1:0 -workload "$kind" -records "$records" -keys "$keys" \
    <"$work/hold" >"$work/ready" 2>"$work/load.log" &
  lp=$!
  exec 9>"$work/hold" # keeps the broker serving until closed
  for _ in $(seq 600); do grep -q ready "$work/ready" 2>/dev/null && break; sleep 0.5; done
  addr=$(awk '/^ready/ { print $2 }' "$work/ready")
  [ -n "$addr" ] || { echo "live.sh: loader failed: $(cat "$work/load.log")" >&2; exit 1; }
fi
# The header counts partitions with thousands separators; below 100
# columns it has no room for them, and the records read are the count.
thousands() { sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1"; }
want="$(thousands "$parts") partitions"
[ "$cols" -ge 100 ] || want="$(thousands "$records") records"

tck=$(getconf CLK_TCK)
mkdir -p "$work/home"

# live BIN [LABEL] prints "SECONDS FIRST_FRAME_SECONDS CPU_SECONDS RSS_MB": the
# dashboard started in a fresh pane, timed from its exec until the pane
# shows it live with every partition. The pane's shell writes the start
# time and its pid, which exec keeps for koff.
live() {
  local bin=$1 t0= pid= first= t now screen
  session="koff-live-$$-$RANDOM"
  rm -f "$work/start"
  tmux new-session -d -s "$session" -x "$cols" -y "$rows" \
    "echo \$\$ \$EPOCHREALTIME >'$work/start.tmp'; mv '$work/start.tmp' '$work/start'; \
     HOME='$work/home' XDG_CONFIG_HOME='$work/home/.config' XDG_STATE_HOME='$work/home/.state' exec '$bin' -b '$addr'"
  for _ in $(seq 500); do [ -s "$work/start" ] && break; sleep 0.01; done
  read -r pid t0 <"$work/start"
  key= sent= at= answered=
  while :; do
    screen=$(tmux capture-pane -p -t "$session" 2>/dev/null) || { echo "live.sh: $bin exited" >&2; exit 1; }
    now=$EPOCHREALTIME
    if [ -z "$first" ] && grep -q '[^[:space:]]' <<<"$screen"; then first=$now; fi
    # A key while it catches up: ↓ moves the selection (▶) a row down.
    at=$(grep -n '^▶' <<<"$screen" | cut -d: -f1 | head -1) || true
    if [ -z "$sent" ] && [ -n "$at" ] && grep -q 'catching up' <<<"$screen" &&
      sed -n "$((at + 1))p" <<<"$screen" | grep -q '^  [^ ]'; then
      key=$at sent=$EPOCHREALTIME
      tmux send-keys -t "$session" Down
    elif [ -n "$sent" ] && [ -z "$answered" ] && [ -n "$at" ] && [ "$at" != "$key" ]; then
      answered=$now
    fi
    if grep -q '● live' <<<"$screen" && grep -qF "$want" <<<"$screen"; then
      # koff's CPU and memory at that moment, before anything else runs.
      read -r ut st < <(awk '{ print $14, $15 }' "/proc/$pid/stat")
      rss=$(awk '/VmRSS/ { print $2 }' "/proc/$pid/status")
      break
    fi
    t=$(awk -v a="$t0" -v b="$now" 'BEGIN { print b - a }')
    if awk -v t="$t" 'BEGIN { exit !(t > 300) }'; then
      echo "live.sh: $bin not live after 300 s:" >&2; tmux capture-pane -p -t "$session" >&2; exit 1
    fi
    sleep 0.02
  done
  if [ -n "$keep" ]; then
    echo "--- $(basename "$bin") live:" >&2; printf '%s\n' "$screen" >&2
  fi
  tmux kill-session -t "$session" 2>/dev/null || true
  session=
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  awk -v a="$t0" -v b="$now" -v f="$first" -v c=$((ut + st)) -v hz="$tck" -v r="$rss" -v s="$sent" -v k="$answered" \
    'BEGIN { printf "%.3f %.3f %.2f %d %s\n", b - a, f - a, c / hz, r / 1024, (s == "" || k == "") ? "-" : sprintf("%.3f", k - s) }'
}

# dump prints "SECONDS CPU_SECONDS RSS_MB" of kcat's dump of the topic.
dump() {
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" kcat -b "$addr" -C -t connect-offsets -e -q -f '%k %s\n' >/dev/null
  awk '{ printf "%.3f %.2f %d\n", $1, $2 + $3, $4 / 1024 }' "$work/time"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# One unmeasured round: the broker's first serve of the topic warms it.
dump >/dev/null
for r in $(seq "$runs"); do
  echo "$(cut -d' ' -f1 /proc/loadavg)" >>"$work/load"
  for i in "${!bins[@]}"; do
    live "${bins[$i]}" >>"$work/live.$i"
    dump >>"$work/kcat"
  done
  keep= # the panes of the first round only
done

printf '%s on %s, %s, %s rounds alternating; medians (ranges); load average %s\n' \
  "$workload" "$addr" "$size" "$runs" "$(paste -sd' ' "$work/load")"
printf '%-24s %18s %18s %16s %14s %18s\n' '' 'to live, s' 'first frame, s' 'CPU, s' 'RSS, MB' 'key answered, s'
col() {
  local f=$2 v
  v=$(awk -v f="$f" '$f != "-" { print $f }' "$1")
  [ -n "$v" ] || { echo -; return; }
  echo "$(median <<<"$v") ($(sort -g <<<"$v" | sed -n '1p;$p' | paste -sd-))"
}
for i in "${!bins[@]}"; do
  printf '%-24s %18s %18s %16s %14s %18s\n' "$(basename "${bins[$i]}")" "$(col "$work/live.$i" 1)" \
    "$(col "$work/live.$i" 2)" "$(col "$work/live.$i" 3)" "$(col "$work/live.$i" 4)" "$(col "$work/live.$i" 5)"
done
printf '%-24s %18s %18s %16s %14s\n' "kcat's dump" "$(col "$work/kcat" 1)" - "$(col "$work/kcat" 2)" "$(col "$work/kcat" 3)"
