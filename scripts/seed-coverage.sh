#!/usr/bin/env bash
# How many hands are dealt with the seed of every player dealt in (docs/fairness.md: the
# house's seats aside), first hands included: pokerd on a fresh SQLite database, and
# poker-load's players (which commit to a seed in their `sit`, then for every deck shown,
# and reveal it once the table closes the list, as the page does) at TABLES tables for
# SECS, once at a human pace (each bot thinks 1 to 3 s, one in twenty drops its
# connection for a while) and once at full speed; then pokerd's own counts from
# /metrics: poker_hands_dealt_total, poker_hands_all_seeds_total (every player dealt in
# had their seed used) and poker_hands_no_player_seed_total.
#
# Build first: cargo build --release -p poker-server -p poker-bots --bins
#
#   scripts/seed-coverage.sh [TABLES] [SECS]
#   scripts/seed-coverage.sh 20 60

set -euo pipefail

TABLES=${1:-20}
SECS=${2:-60}
PORT=${PORT:-18097}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release}
TOKEN=seed-coverage-admin-token-0123456789abcdef
WORK=$(mktemp -d /tmp/poker-seeds.XXXXXX)
# shellcheck source=scripts/common.sh
source "$ROOT/scripts/common.sh"
trap cleanup EXIT

metric() { curl -sf "http://127.0.0.1:$PORT/metrics" | sed -n "s/^$1 //p"; }

for pace in human full; do
    rm -rf "$WORK/$pace"
    start_pokerd_at "sqlite://$WORK/$pace/poker.db" "$WORK/$pace"
    "$BIN/poker-load" --url "http://127.0.0.1:$PORT" --admin-token "$TOKEN" \
        --tables "$TABLES" --secs "$SECS" --pace "$pace" --state "$WORK/$pace/state.json" \
        >"$WORK/$pace/load.out" 2>"$WORK/$pace/load.err"
    dealt=$(metric poker_hands_dealt_total)
    all=$(metric poker_hands_all_seeds_total)
    none=$(metric poker_hands_no_player_seed_total)
    awk -v p="$pace" -v t="$TABLES" -v s="$SECS" -v d="$dealt" -v a="$all" -v n="$none" 'BEGIN {
        printf "%s pace, %d tables, %d s: %d hands dealt, %d (%.2f%%) with every player'"'"'s seed, %d with none\n",
            p, t, s, d, a, (d ? 100 * a / d : 0), n }'
    stop_pokerd
done
