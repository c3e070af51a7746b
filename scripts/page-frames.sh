#!/usr/bin/env bash
# How the player's page keeps up with a table streaming about 50 messages a second
# (docs/web-client.md, "Drawing"): pokerd started from nothing in a scratch folder (a
# play-money room whose house bots fill a table and think THINK_MS), serving the page from
# WEB (this checkout's web/ unless given: give another checkout's web/ to measure its
# page with the same server), and e2e/frames.mjs in Debian's Chromium: the player seated
# at that table, SECS seconds on the table's view, then SECS in the lobby. One JSON line a
# view: messages and frames per second, the longest gap between frames, the long tasks
# (the longest, how many, their total), the time spent on messages, drawings per second,
# and the share of frames a focused lobby row kept the focus.
#
# Build first: cargo build --release -p poker-server --bin pokerd; and (cd e2e && npm ci).
#
#   scripts/page-frames.sh [WEB]

set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WEB=$(cd "${1:-$ROOT/web}" && pwd)
SECS=${SECS:-20}
THINK_MS=${THINK_MS:-60}
PORT=${PORT:-18097}
BIN=${BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release}
TOKEN=page-frames-admin-token-5f0c2a9e17d84b36
WORK=$(mktemp -d /tmp/poker-page-frames.XXXXXX)
trap 'kill -TERM $SERVER_PID 2>/dev/null; wait $SERVER_PID 2>/dev/null; rm -rf "$WORK"' EXIT
cd "$WORK"
POKER__SERVER__ADDR=127.0.0.1:$PORT POKER__ADMIN__TOKEN=$TOKEN POKER__SERVER__WEB_ROOT=$WEB \
    POKER__BOTS__FILL_TO=6 POKER__BOTS__THINK_MS=$THINK_MS POKER__LOG__LEVEL=warn \
    "$BIN/pokerd" >"$WORK/pokerd.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 300); do
    curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
    sleep 0.2
done
echo "page: $WEB; bots think ${THINK_MS} ms; ${SECS} s a view"
BASE=http://127.0.0.1:$PORT ADMIN_TOKEN=$TOKEN SECS=$SECS node "$ROOT/e2e/frames.mjs"
