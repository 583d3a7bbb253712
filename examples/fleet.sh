#!/bin/sh
# A worker fleet on one machine: Redis, two workers, and a dispatcher that sends a turn to them
# (docs/scaling-out.md, "A worker fleet on BullMQ"). On many machines, start the workers where the
# tools should run and give every process the same Redis URL.
#
#   sh examples/fleet.sh        (needs redis-server: apt-get install redis-server)
set -e
cd "$(dirname "$0")/.."
PORT=${PORT:-6390}
URL="redis://127.0.0.1:$PORT"
AGENTTOOL="node --import tsx cli/main.ts"   # where the package is installed: npx agenttool
redis-server --port "$PORT" --save '' --appendonly no --daemonize yes \
  --pidfile "/tmp/agenttool-fleet-$PORT.pid" --logfile /dev/null
trap 'kill $W1 $W2 2>/dev/null; kill "$(cat /tmp/agenttool-fleet-$PORT.pid)" 2>/dev/null' EXIT
$AGENTTOOL worker --redis "$URL" --concurrency 2 </dev/null 2>/dev/null & W1=$!
$AGENTTOOL worker --redis "$URL" --concurrency 2 </dev/null 2>/dev/null & W2=$!
sleep 3
# The dispatcher: each call goes to the queue; the output items are those of a local run.
printf '%s\n' \
  '{"type":"function_call","call_id":"count","name":"slow_count","arguments":"{\"to\":5,\"step_ms\":200}"}' \
  '{"type":"function_call","call_id":"read","name":"read_file","arguments":"{\"path\":\"package.json\",\"max_bytes\":60}"}' \
  '{"type":"function_call","call_id":"shell","name":"bash","arguments":"{\"command\":\"hostname\"}"}' |
  $AGENTTOOL run - --redis "$URL"
