#!/usr/bin/env bash
# SQLite calls per six-max hand in pokerd (docs/scaling.md, "Third round").
#
# Runs pokerd on a fresh SQLite file under poker-load at full speed and counts, with perf
# uprobes on the release binary (root only), the calls into SQLite over poker-load's
# window: `sqlite3_step` (one per statement run, plus one per row it returns),
# `sqlite3_reset` (about one per statement run: the statements per hand),
# `sqlite3_prepare_v3` (statements compiled: those the connections' caches missed) and
# `sqlite3_exec` (the `begin`s and `commit`s), and pokerd's context switches (each call
# to sqlx's SQLite worker thread costs two). Each count is divided by the hands played.
#
# Build first: cargo build --release -p poker-server -p poker-bots --bins
# Settings (environment): TABLES (20), SECS (10), PORT (18095), BIN (the release folder).

set -euo pipefail

TABLES=${TABLES:-20}
SECS=${SECS:-10}
PORT=${PORT:-18095}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(realpath "${BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release}")
TOKEN=sqlite-calls-admin-token-0123456789abcdef
WORK=$(mktemp -d /tmp/poker-sqlite-calls.XXXXXX)
CALLS=(sqlite3_step sqlite3_reset sqlite3_prepare_v3 sqlite3_exec)
unset DATABASE_URL
EXTERNAL_PG=""

# shellcheck source=scripts/common.sh
source "$ROOT/scripts/common.sh"
# common.sh's cleanup, and the probes removed.
finish() {
    perf probe -q -d 'probe_pokerd:*' 2>/dev/null || true
    if [[ -n ${KEEP:-} ]]; then
        echo "kept $WORK" >&2
        WORK=/nonexistent
    fi
    cleanup
}
trap finish EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

perf probe -q -d 'probe_pokerd:*' 2>/dev/null || true
events=()
for call in "${CALLS[@]}"; do
    perf probe -q -x "$BIN/pokerd" "$call" >/dev/null
    events+=(-e "probe_pokerd:$call")
done

mkdir -p "$WORK/data"
start_pokerd_at "sqlite://$WORK/data/poker.db" "$WORK"

# poker-load seats its bots first; the counting starts with its window (the line it
# prints when play begins is not relied on: the seating's calls are few next to SECS of
# play and are counted apart by starting perf after a pause).
"$BIN/poker-load" --url "http://127.0.0.1:$PORT" --admin-token "$TOKEN" --tables "$TABLES" \
    --secs "$((SECS + 3))" --pace full --server-pid "$SERVER_PID" >"$WORK/load.out" 2>"$WORK/load.err" &
LOAD_PID=$!
sleep 3
before=$(curl -sf -H "authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/metrics" 2>/dev/null |
    sed -n 's/^poker_hands_total \([0-9]*\).*/\1/p' || true)
perf stat -x, -o "$WORK/stat" "${events[@]}" -e context-switches -p "$SERVER_PID" -- sleep "$SECS"
after=$(curl -sf -H "authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/metrics" 2>/dev/null |
    sed -n 's/^poker_hands_total \([0-9]*\).*/\1/p' || true)
wait "$LOAD_PID" || true
hands=$(( ${after:-0} - ${before:-0} ))
if (( hands <= 0 )); then
    # No hand counter from the server: poker-load's rate over the counted window.
    rate=$(sed -n 's/.*"hands_per_sec":\([0-9.]*\).*/\1/p' "$WORK/load.out" | tail -1)
    hands=$(awk -v r="$rate" -v s="$SECS" 'BEGIN { printf "%d", r * s }')
fi
echo "SQLite calls per hand: $TABLES tables at full speed, ${SECS} s, $hands hands; load $(cut -d' ' -f1-3 /proc/loadavg)"
for call in "${CALLS[@]}" context-switches; do
    n=$(grep ",\(probe_pokerd:\)\?$call," "$WORK/stat" | cut -d, -f1)
    awk -v c="$call" -v n="$n" -v h="$hands" 'BEGIN { printf "  %-20s %10d  %.2f per hand\n", c, n, n / h }'
done
