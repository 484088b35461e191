#!/bin/sh
# Opens koff's dashboard on a real Apache Kafka broker and Kafka Connect
# worker (the interop tests' stack) with a few live connectors: three
# FileStreamSource connectors, a FileStreamSink and the test connector.
# Quit koff (q) to stop the stack.
set -eu
cd "$(dirname "$0")/.."
[ -d interop/lib ] || interop/fetch.sh
tmp=$(mktemp -d)
trap 'kill "$stack" 2>/dev/null; wait "$stack" 2>/dev/null; rm -rf "$tmp"' EXIT
go build -o "$tmp/koff" .
go build -o "$tmp/realstack" ./interop/realstack
"$tmp/realstack" -ready "$tmp/ready" &
stack=$!
while [ ! -s "$tmp/ready" ]; do
	kill -0 "$stack" 2>/dev/null || { echo "interop/dashboard.sh: the stack did not start" >&2; exit 1; }
	sleep 1
done
# shellcheck disable=SC2046
"$tmp/koff" $(cat "$tmp/ready")
