#!/usr/bin/env bash
# Server CPU per six-max hand, pokerd against io_floor (docs/scaling.md).
#
# Runs pokerd under poker-load at full speed, then the io_floor example (the sockets alone),
# then io_floor --durable (the complete floor: the sockets, each hand's record made durable
# the cheapest way with pokerd's durability, batched as a group commit, on the same
# database, and each audience's JSON serialized once), then io_floor --durable --deck (the
# complete floor with the verifiable deck's work every hand pokerd deals carries: the
# seeds' two round trips, the deck committed, each player's proofs), in that order,
# ROUNDS times, on SQLite (a fresh file per round) and on PostgreSQL (a fresh database per
# round: in the server DATABASE_URL names if it is a postgres URL, otherwise in a
# throwaway cluster this script starts with initdb/pg_ctl, as the postgres user when run
# as root, fsync on). The CPU time is the pokerd process's alone (utime + stime from
# /proc, over poker-load's measuring window); the database's processes are counted apart
# (the postmaster's tree, when the cluster is this script's or PG_PID names its
# postmaster). It prints every round and, per database, the ratios pokerd / io_floor,
# pokerd / complete floor and pokerd / complete floor with the deck of each round with
# their min / median / max. On SQLite, which runs inside pokerd, it also
# prints the part of pokerd's CPU spent on SQLite's own threads and the ratio of the rest
# to the floor (the figure comparable to PostgreSQL's, whose processes are apart).
#
# Build first: cargo build --release -p poker-server -p poker-bots --examples --bins
#
# Settings (environment): ROUNDS (3), TABLES (20), SECS (15, poker-load's window),
# FLOOR_SECS (10, io_floor's), DATABASES ("sqlite postgres"), PORT (18090), BIN (the
# release folder, default target/release or $CARGO_TARGET_DIR/release).
#
#   scripts/capacity.sh
#   ROUNDS=5 DATABASES=postgres DATABASE_URL=postgres://me@db/poker scripts/capacity.sh

set -euo pipefail

ROUNDS=${ROUNDS:-3}
TABLES=${TABLES:-20}
SECS=${SECS:-15}
FLOOR_SECS=${FLOOR_SECS:-10}
DATABASES=${DATABASES:-sqlite postgres}
PORT=${PORT:-18090}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release}
TOKEN=capacity-admin-token-0123456789abcdef0123
WORK=$(mktemp -d /tmp/poker-capacity.XXXXXX)
EXTERNAL_PG=${DATABASE_URL:-}
unset DATABASE_URL

for exe in pokerd poker-load examples/io_floor; do
    [[ -x $BIN/$exe ]] || {
        echo "missing $BIN/$exe: cargo build --release -p poker-server -p poker-bots --examples --bins" >&2
        exit 1
    }
done
# Six sockets per table on each side, and pokerd's own files.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# shellcheck source=scripts/common.sh
source "$ROOT/scripts/common.sh"
trap cleanup EXIT

# Starts pokerd on a fresh database for round $2 of database $1; sets SERVER_PID.
start_pokerd() {
    local db=$1 round=$2 dir=$WORK/$1-$2 url
    if [[ $db == sqlite ]]; then
        mkdir -p "$dir/data"
        url=sqlite://$dir/data/poker.db
    else
        local name=capacity_$$_$round
        psql -q "$PG_URL_BASE/postgres" -c "create database $name" >/dev/null
        url=$PG_URL_BASE/$name
    fi
    start_pokerd_at "$url" "$dir"
}

echo "pokerd vs io_floor: $TABLES six-max tables at full speed, $ROUNDS rounds, poker-load ${SECS} s, io_floor ${FLOOR_SECS} s"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ)"
for db in $DATABASES; do
    [[ $db == postgres ]] && start_postgres
    ratios=() servers=() floors=() dbs=() engines=() rests=() completes=() cratios=() cdbs=()
    decks=() dratios=()
    for round in $(seq "$ROUNDS"); do
        start_pokerd "$db" "$round"
        dbflag=()
        [[ $db == postgres && -n $PG_MAIN_PID ]] && dbflag=(--db-pid "$PG_MAIN_PID")
        load=$("$BIN/poker-load" --url "http://127.0.0.1:$PORT" --admin-token "$TOKEN" \
            --tables "$TABLES" --secs "$SECS" --pace full --server-pid "$SERVER_PID" \
            "${dbflag[@]}" 2>"$WORK/load.err" | tail -1)
        stop_pokerd
        server=$(json "$load" server_cpu_ms_per_hand)
        hands=$(json "$load" hands_per_sec)
        dbcpu=$(json "$load" db_cpu_ms_per_hand)
        sqlite=$(json "$load" sqlite_threads_cpu_ms_per_hand)
        floor_line=$("$BIN/examples/io_floor" --tables "$TABLES" --secs "$FLOOR_SECS" --coalesce-ms 10)
        floor=$(sed -n 's/.*server \([0-9.]*\) ms CPU per hand.*/\1/p' <<<"$floor_line")
        # The complete floor's records go to a file beside the round's SQLite database, or
        # to a fresh PostgreSQL database of the same cluster.
        # complete FLAGS...: io_floor --durable on a fresh target and its line.
        complete() {
            local target
            if [[ $db == sqlite ]]; then
                target=$(mktemp "$WORK/$db-$round/floor-records.XXXX")
            else
                psql -q "$PG_URL_BASE/postgres" -c "create database capacity_floor_$$_$round" >/dev/null
                target=$PG_URL_BASE/capacity_floor_$$_$round
            fi
            "$BIN/examples/io_floor" --tables "$TABLES" --secs "$FLOOR_SECS" --coalesce-ms 10 \
                --durable "$target" "${dbflag[@]}" "$@"
            if [[ $db == postgres ]]; then
                psql -q "$PG_URL_BASE/postgres" -c "drop database capacity_floor_$$_$round" >/dev/null
            else
                rm -f "$target"
            fi
        }
        complete_line=$(complete)
        deck_line=$(complete --deck)
        complete=$(sed -n 's/.*server \([0-9.]*\) ms CPU per hand.*/\1/p' <<<"$complete_line")
        complete_db=$(sed -n 's/.*database processes \([0-9.]*\) ms.*/\1/p' <<<"$complete_line")
        deck=$(sed -n 's/.*server \([0-9.]*\) ms CPU per hand.*/\1/p' <<<"$deck_line")
        if [[ -z $server || $server == null || -z $floor || -z $complete || -z $deck ]]; then
            echo "round $round: no figure (poker-load: $load; $(tail -3 "$WORK/load.err"); io_floor: $floor_line; complete: $complete_line; with the deck: $deck_line)" >&2
            exit 1
        fi
        ratio=$(awk -v a="$server" -v b="$floor" 'BEGIN { printf "%.2f", a / b }')
        cratio=$(awk -v a="$server" -v b="$complete" 'BEGIN { printf "%.2f", a / b }')
        dratio=$(awk -v a="$server" -v b="$deck" 'BEGIN { printf "%.2f", a / b }')
        ratios+=("$ratio") servers+=("$server") floors+=("$floor") completes+=("$complete") cratios+=("$cratio")
        decks+=("$deck") dratios+=("$dratio")
        [[ -n $complete_db ]] && cdbs+=("$complete_db")
        extra=""
        if [[ -n $dbcpu && $dbcpu != null ]]; then
            dbs+=("$dbcpu")
            extra=$(printf "; database processes %.3f ms" "$dbcpu")
        fi
        if [[ -n $sqlite && $sqlite != null ]]; then
            # SQLite runs inside pokerd, on threads of its own: its part, and the ratio
            # of the rest (what PostgreSQL's figure leaves out) to the floor.
            rest=$(awk -v a="$server" -v b="$sqlite" -v f="$floor" 'BEGIN { printf "%.2f", (a - b) / f }')
            engines+=("$sqlite") rests+=("$rest")
            extra=$(printf "; of which SQLite's threads %.3f ms (the rest %.2fx the floor)" "$sqlite" "$rest")
        fi
        printf "%-8s round %d: pokerd %.3f ms CPU per hand (%.0f hands/s)%s; io_floor %.3f ms, ratio %.2f; complete floor %.3f ms%s, ratio %.2f; with the deck %.3f ms, ratio %.2f\n" \
            "$db" "$round" "$server" "$hands" "$extra" "$floor" "$ratio" "$complete" \
            "${complete_db:+ (database processes $complete_db ms)}" "$cratio" "$deck" "$dratio"
        echo "         complete floor: $complete_line"
        echo "         with the deck: $deck_line"
    done
    printf "%-8s min / median / max: pokerd %s ms, io_floor %s ms, ratio %s; complete floor %s ms, ratio %s; with the deck %s ms, ratio %s" \
        "$db" "$(spread "${servers[@]}")" "$(spread "${floors[@]}")" "$(spread "${ratios[@]}")" \
        "$(spread "${completes[@]}")" "$(spread "${cratios[@]}")" "$(spread "${decks[@]}")" "$(spread "${dratios[@]}")"
    if ((${#dbs[@]})); then printf "; database processes %s ms" "$(spread "${dbs[@]}")"; fi
    if ((${#cdbs[@]})); then printf " (the complete floor's %s ms)" "$(spread "${cdbs[@]}")"; fi
    if ((${#engines[@]})); then
        printf "; SQLite's threads %s ms, the rest against the floor %s" \
            "$(spread "${engines[@]}")" "$(spread "${rests[@]}")"
    fi
    echo
done
