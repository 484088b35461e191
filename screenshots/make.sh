#!/usr/bin/env bash
# Makes the README's screenshots from the real UI: koff --demo under tmux,
# captured with `tmux capture-pane -e` and rendered by freeze
# (go install github.com/charmbracelet/freeze@v0.2.2); ImageMagick's convert,
# when present, scales them down.
set -euo pipefail
cd "$(dirname "$0")/.."
out=screenshots
bin=$(mktemp -d)/koff
go build -o "$bin" .
freeze=${FREEZE:-$(command -v freeze || echo "$HOME/go/bin/freeze")}
tm() { tmux -L koff-shots "$@"; }
session=koff-shots
audit=$(mktemp)

start() { # width height
  tm kill-session -t $session 2>/dev/null || true
  tm new-session -d -s $session -x "$1" -y "$2" "$bin --demo --audit-log $audit"
}
keys() { tm send-keys -t $session "$@"; sleep 0.6; }
typ() { tm send-keys -t $session -l "$1"; sleep 0.6; }
filter() { keys / ; typ "$1" ; keys Enter; }
shot() { # name
  tm capture-pane -ep -t $session | "$freeze" -c full -o "$out/$1.png" >/dev/null
  if command -v convert >/dev/null && convert -version 2>/dev/null | grep -q ImageMagick; then
    convert "$out/$1.png" -resize 1400x "$out/$1.png"
  fi
  echo "$out/$1.png"
}

start 120 32
sleep 75 # a minute of flushes: jdbc-legacy stalls, es-search falls behind
shot connectors
filter jdbc-shop ; keys Enter
shot partitions
filter '"shop.public.orders"'
keys S ; keys Enter ; sleep 3 # S asks first
keys e
for _ in 1 2 3 4 5; do keys Down; done
keys End
for _ in $(seq 1 40); do tm send-keys -t $session BSpace; done
typ '{"incrementing":1000}' ; keys C-s ; sleep 1
shot confirm
keys Escape ; keys R ; keys Enter ; sleep 2
keys Enter ; sleep 2 ; keys ']' # orders' history: a commit every few seconds
shot history
keys Escape ; keys Escape ; keys Escape ; keys Escape
filter es-search ; keys Enter ; sleep 1
shot sink
keys e ; keys Down ; keys Down ; keys Down ; keys Tab
for _ in 1 2 3 4 5; do tm send-keys -t $session BSpace; done
typ "$(date -u -d '-10 min' +%Y-%m-%dT%H:%M:%SZ)" ; sleep 1
shot sink-form
keys Enter ; sleep 2
shot sink-confirm
keys Escape ; keys Escape ; keys Escape ; keys Escape
filter file-logs ; keys Enter
filter 'app-1'
keys Enter
shot detail
keys Escape ; keys Down ; keys Enter
tm resize-window -t $session -x 120 -y 40 ; sleep 1 # room for why the task skips it
shot detail-defect
tm resize-window -t $session -x 120 -y 32 ; sleep 1
keys U
shot unparseable

start 80 24
sleep 20
shot connectors-80x24
tm kill-session -t $session
