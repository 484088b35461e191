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
session=koff-shots
audit=$(mktemp)

start() { # width height
  tmux kill-session -t $session 2>/dev/null || true
  tmux new-session -d -s $session -x "$1" -y "$2" "$bin --demo --flush-interval 2s --audit-log $audit"
}
keys() { tmux send-keys -t $session "$@"; sleep 0.6; }
typ() { tmux send-keys -t $session -l "$1"; sleep 0.6; }
shot() { # name
  tmux capture-pane -ep -t $session | "$freeze" -c full -o "$out/$1.png" >/dev/null
  if command -v convert >/dev/null && convert -version 2>/dev/null | grep -q ImageMagick; then
    convert "$out/$1.png" -resize 1400x "$out/$1.png"
  fi
  echo "$out/$1.png"
}

start 120 32
sleep 20 # a few flushes, so ages, rates and sparklines have data
shot connectors
keys / ; typ jdbc-shop ; keys Enter ; keys Enter
shot partitions
keys S ; sleep 2
keys Down ; keys Down ; keys e
for _ in 1 2 3 4 5; do keys Down; done
keys End
for _ in $(seq 1 40); do tmux send-keys -t $session BSpace; done
typ '{"incrementing":1000}' ; keys C-s ; sleep 1
shot confirm
keys Escape ; keys R
keys Escape ; keys Escape ; keys Escape
keys / ; typ file-logs ; keys Enter ; keys Enter
keys / ; typ '": "' ; keys Enter
keys Enter
shot detail
keys U
shot unparseable

start 80 24
sleep 8
shot connectors-80x24
tmux kill-session -t $session
