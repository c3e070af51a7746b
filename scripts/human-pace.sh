#!/usr/bin/env bash
# Many tables at a human pace on one pokerd (docs/scaling.md, "Human pace").
#
# Starts pokerd on an SQLite database in DIR (kept: its accounts, tables and buy-ins serve
# later runs, as poker-load's --state file in DIR does), with the open-file limit raised
# to its hard limit, then runs poker-load at a human pace (bots think 1 to 3 s) twice: the
# first run makes whatever tables and players DIR does not have yet, the second plays at
# them again. Each run prints hands and actions per second, the round trip from action to
# broadcast (p50, p99), and pokerd's CPU (per hand and as a share of a core) and resident
# memory.
#
#   scripts/human-pace.sh TABLES [DIR] [SECS]
#   scripts/human-pace.sh 3000 /tmp/human-3000 60
#
# Six connections per table on each side: pokerd and poker-load each need 6 x TABLES
# open files and more, which `ulimit -Hn` must allow (pokerd refuses connections past
# its limit less server.reserved_files).

set -euo pipefail

TABLES=${1:?usage: scripts/human-pace.sh TABLES [DIR] [SECS]}
DIR=${2:-/tmp/poker-human-$TABLES}
SECS=${3:-60}
PORT=${PORT:-18080}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release}
TOKEN=human-pace-admin-token-0123456789abcdef01

ulimit -n "$(ulimit -Hn)"
echo "open files: $(ulimit -n) per process; $TABLES tables need $((TABLES * 6)) connections"
mkdir -p "$DIR/data"
cd "$DIR"
DATABASE_URL=sqlite://$DIR/data/poker.db POKER__SERVER__ADDR=127.0.0.1:$PORT \
    POKER__ADMIN__TOKEN=$TOKEN POKER__ROOM__MONEY=real POKER__ROOM__SAME_ADDRESS_SEATING=allow \
    POKER__SERVER__RATE_LIMIT_PER_SEC=1000 POKER__SERVER__RATE_LIMIT_BURST=1000 \
    POKER__SERVER__API_RATE_PER_SEC=100000 POKER__SERVER__API_RATE_BURST=100000 \
    POKER__SERVER__API_ADDRESS_RATE_PER_SEC=100000 POKER__SERVER__API_ADDRESS_RATE_BURST=100000 \
    POKER__SERVER__SHUTDOWN_GRACE_MS=1000 POKER__LOG__LEVEL=warn \
    "$BIN/pokerd" >"$DIR/pokerd.log" 2>&1 &
SERVER_PID=$!
trap 'kill -TERM $SERVER_PID 2>/dev/null; wait $SERVER_PID 2>/dev/null' EXIT
for _ in $(seq 300); do
    curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
    sleep 0.2
done
echo "pokerd $SERVER_PID: $(grep VmRSS /proc/$SERVER_PID/status)"
for run in 1 2; do
    "$BIN/poker-load" --url "http://127.0.0.1:$PORT" --admin-token "$TOKEN" \
        --tables "$TABLES" --secs "$SECS" --pace human --state "$DIR/state.json" \
        --server-pid "$SERVER_PID" 2>"$DIR/load-$run.err" | tee "$DIR/load-$run.out"
done
