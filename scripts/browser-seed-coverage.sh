#!/usr/bin/env bash
# How many hands are dealt with the seed of a person playing in the browser at a human
# pace (docs/fairness.md): pokerd started from nothing in a scratch folder (a play-money
# room: house bots join the person), e2e/seed_coverage.mjs playing HANDS hands in Debian's
# Chromium (1 to 3 s before each action, one reload halfway), then pokerd's counts from
# /metrics. The house's bots are not counted: every hand dealt with the person's seed is
# a hand dealt with every player's.
#
# Build first: cargo build --release -p poker-server --bins; and (cd e2e && npm ci).
#
#   scripts/browser-seed-coverage.sh [HANDS]

set -euo pipefail

HANDS=${1:-30}
PORT=${PORT:-18098}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release}
WORK=$(mktemp -d /tmp/poker-browser-seeds.XXXXXX)
trap 'kill -TERM $SERVER_PID 2>/dev/null; wait $SERVER_PID 2>/dev/null; rm -rf "$WORK"' EXIT
cd "$WORK"
POKER__SERVER__ADDR=127.0.0.1:$PORT POKER__LOG__LEVEL=warn "$BIN/pokerd" >"$WORK/pokerd.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 300); do
    curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
    sleep 0.2
done
BASE=http://127.0.0.1:$PORT HANDS=$HANDS node "$ROOT/e2e/seed_coverage.mjs"
