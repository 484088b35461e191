#!/usr/bin/env bash
# Measures what viewers of a partition's detail cost `koff serve`: a
# 600k-record offsets topic (the debezium workload, 7000 keys) whose first
# connector, debezium-00, commits every partition each second, as its
# worker's flush does; 0, 1 and 4 SSH sessions (the real ssh client under
# tmux) each on the detail of one of its partitions, the same one, whose
# history the detail follows. Prints koff serve's CPU (user + system, from
# /proc) over a fixed window for a koff built from --before (each viewer
# re-reads the topic) and for this tree, side by side, each run on the
# same broker one after the other; and, for this tree, with the viewers on
# the connector's partitions screen instead, which reads no history: the
# sessions' own screens' share.
#
#   bench/serve_viewers.sh                        # before: ec18500, 600k records, 30 s windows
#   bench/serve_viewers.sh --before REV --records 600000 --window 30 --viewers "0 1 4"
#   KOFF_BEFORE=/tmp/koff-old bench/serve_viewers.sh   # a build to compare instead of --before
#
# Needs ssh, ssh-keygen and tmux. The machine's other load is in both
# columns: compare them, not the absolute figures across machines.
set -euo pipefail
cd "$(dirname "$0")/.."

before=ec18500
records=600000
keys=7000
window=30
warmup=12
viewers="0 1 4"
while [ $# -gt 0 ]; do
  case "$1" in
    --before) before=$2; shift 2 ;;
    --records) records=$2; shift 2 ;;
    --keys) keys=$2; shift 2 ;;
    --window) window=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --viewers) viewers=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "serve_viewers.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
for tool in ssh ssh-keygen tmux; do
  command -v "$tool" >/dev/null || { echo "serve_viewers.sh: $tool is missing" >&2; exit 1; }
done

work=$(mktemp -d /tmp/koff-viewers.XXXXXX)
pids=()
sessions=()
cleanup() {
  for s in "${sessions[@]}"; do tmux kill-session -t "$s" 2>/dev/null || true; done
  exec 9>&- 2>/dev/null || true
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/load" ./bench/load
go build -o "$work/koff-after" .
if [ -n "${KOFF_BEFORE:-}" ]; then
  cp "$KOFF_BEFORE" "$work/koff-before"
  before=$KOFF_BEFORE
else
  mkdir "$work/src"
  git archive "$before" | tar -x -C "$work/src"
  (cd "$work/src" && go build -o "$work/koff-before" .)
fi

ssh-keygen -q -t ed25519 -N "" -C bench -f "$work/op"
cp "$work/op.pub" "$work/ops"

mkfifo "$work/load.hold"
"$work/load" -serve 127.0.0.1:0 -records "$records" -keys "$keys" -flush 1s \
  <"$work/load.hold" >"$work/load.ready" 2>"$work/load.log" &
pids+=($!)
exec 9>"$work/load.hold" # keeps the broker up until closed
for _ in $(seq 600); do grep -q ready "$work/load.ready" 2>/dev/null && break; sleep 0.5; done
addr=$(awk '/^ready/ { print $2 }' "$work/load.ready")
[ -n "$addr" ] || { echo "serve_viewers.sh: the broker did not start: $(cat "$work/load.log")" >&2; exit 1; }
cat "$work/load.log" >&2

tick=$(getconf CLK_TCK)
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + RANDOM % 20000))
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# measure_end ends what measure started: it runs in $(…), so the script's
# own cleanup does not know of it.
measure_end() {
  local i
  for i in $(seq "$1"); do tmux kill-session -t "koffviewers-$$-$i" 2>/dev/null || true; done
  kill "$2" 2>/dev/null || true
  wait "$2" 2>/dev/null || true
}

# measure BIN N [list] prints koff serve's CPU % over the window with N
# viewers on debezium-00's first partition's detail, or (list) on its
# partitions screen, which reads no history: what a session's screen
# costs besides.
measure() {
  local bin=$1 n=$2 mode=${3:-detail} port out spid i s t0 t1 want=retained
  port=$(free_port)
  out="$work/serve.$port"
  XDG_STATE_HOME="$work/state" "$bin" serve -b "$addr" --ssh-listen "127.0.0.1:$port" \
    --authorized-keys "$work/ops" --host-key "$work/host" >"$out" 2>&1 &
  spid=$!
  pids+=("$spid")
  for _ in $(seq 200); do grep -q "listening on" "$out" 2>/dev/null && break; sleep 0.1; done
  grep -q "listening on" "$out" || { echo "serve_viewers.sh: koff serve did not start: $(cat "$out")" >&2; measure_end 0 "$spid"; exit 1; }
  for i in $(seq "$n"); do
    s="koffviewers-$$-$i"
    sessions+=("$s")
    # 60 rows: the detail's history ("retained") starts below its resume
    # check, past a 35-row pane's end.
    tmux new -d -s "$s" -x 120 -y 60 "ssh -tt -p $port -i $work/op -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o IdentitiesOnly=yes -o LogLevel=ERROR 127.0.0.1"
  done
  for i in $(seq "$n"); do
    s="koffviewers-$$-$i"
    for _ in $(seq 100); do tmux capture-pane -p -t "$s" | grep -q "debezium-00" && break; sleep 0.2; done
    tmux send-keys -t "$s" Enter
    sleep 1
    if [ "$mode" = detail ]; then tmux send-keys -t "$s" Enter; else want="source partitions · sort"; fi
  done
  for i in $(seq "$n"); do
    s="koffviewers-$$-$i"
    for _ in $(seq 150); do tmux capture-pane -p -t "$s" | grep -q "$want" && break; sleep 0.2; done
    tmux capture-pane -p -t "$s" | grep -q "$want" ||
      { echo "serve_viewers.sh: viewer $i is not on the $mode screen:" >&2; tmux capture-pane -p -t "$s" >&2; measure_end "$n" "$spid"; exit 1; }
  done
  sleep "$warmup"
  t0=$(cpu_ticks "$spid")
  sleep "$window"
  t1=$(cpu_ticks "$spid")
  measure_end "$n" "$spid"
  awk -v d=$((t1 - t0)) -v hz="$tick" -v w="$window" 'BEGIN { printf "%.1f", 100 * d / hz / w }'
}

echo "koff serve's CPU with viewers on one partition's detail ($records records, $keys keys, debezium-00 flushing every second; ${window}s windows)"
printf '%-8s %12s %12s %22s\n' viewers before after "after, on the list"
for n in $viewers; do
  b=$(measure "$work/koff-before" "$n")
  a=$(measure "$work/koff-after" "$n")
  l=$(measure "$work/koff-after" "$n" list)
  printf '%-8s %11s%% %11s%% %21s%%\n' "$n" "$b" "$a" "$l"
done
echo "before: $before; after: this tree; on the list: the same viewers on debezium-00's partitions screen, which reads no history"
