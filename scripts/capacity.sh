#!/usr/bin/env bash
# Server CPU per six-max hand, pokerd against io_floor (docs/scaling.md).
#
# Runs pokerd under poker-load at full speed and the io_floor example alternately, ROUNDS
# times each, on SQLite (a fresh file per round) and on PostgreSQL (a fresh database per
# round: in the server DATABASE_URL names if it is a postgres URL, otherwise in a
# throwaway cluster this script starts with initdb/pg_ctl, as the postgres user when run
# as root, fsync on). The CPU time is the pokerd process's alone (utime + stime from
# /proc, over poker-load's measuring window); the database's processes are counted apart
# (the postmaster's tree, when the cluster is this script's or PG_PID names its
# postmaster). It prints every round and, per database, the ratio pokerd / io_floor of
# each round with its min / median / max.
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

PG_DATA="" PG_CTL=() PG_URL_BASE="" PG_MAIN_PID=${PG_PID:-}
SERVER_PID=""

cleanup() {
    if [[ -n $SERVER_PID ]]; then kill -KILL "$SERVER_PID" 2>/dev/null || true; fi
    if [[ -n $PG_DATA ]]; then "${PG_CTL[@]}" -D "$PG_DATA" -m fast -w stop >/dev/null 2>&1 || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# A throwaway PostgreSQL cluster in $WORK (unless DATABASE_URL names one).
start_postgres() {
    if [[ $EXTERNAL_PG == postgres* ]]; then
        PG_URL_BASE=${EXTERNAL_PG%/*}
        return
    fi
    local runner=()
    if [[ $(id -u) == 0 ]]; then
        runner=(runuser -u postgres --)
        chown postgres:postgres "$WORK"
    fi
    local pgport=$((PORT + 1))
    PG_DATA=$WORK/pg
    PG_CTL=("${runner[@]}" pg_ctl)
    "${runner[@]}" initdb -D "$PG_DATA" -A trust -U postgres --locale=C --encoding=UTF8 >/dev/null
    "${PG_CTL[@]}" -D "$PG_DATA" -l "$WORK/pg.log" -w \
        -o "-p $pgport -k $WORK -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null
    PG_MAIN_PID=$(head -1 "$PG_DATA/postmaster.pid")
    PG_URL_BASE=postgres://postgres@127.0.0.1:$pgport
}

# Starts pokerd on a fresh database for round $2 of database $1; sets SERVER_PID.
start_pokerd() {
    local db=$1 round=$2 dir=$WORK/$1-$2 url
    mkdir -p "$dir/data"
    if [[ $db == sqlite ]]; then
        url=sqlite://$dir/data/poker.db
    else
        local name=capacity_$$_$round
        psql -q "$PG_URL_BASE/postgres" -c "create database $name" >/dev/null
        url=$PG_URL_BASE/$name
    fi
    (
        cd "$dir"
        DATABASE_URL=$url POKER__SERVER__ADDR=127.0.0.1:$PORT POKER__ADMIN__TOKEN=$TOKEN \
            POKER__ROOM__MONEY=real POKER__ROOM__SAME_ADDRESS_SEATING=allow \
            POKER__SERVER__RATE_LIMIT_PER_SEC=1000 POKER__SERVER__RATE_LIMIT_BURST=1000 \
            POKER__SERVER__API_RATE_PER_SEC=100000 POKER__SERVER__API_RATE_BURST=100000 \
            POKER__SERVER__API_ADDRESS_RATE_PER_SEC=100000 \
            POKER__SERVER__API_ADDRESS_RATE_BURST=100000 \
            POKER__SERVER__SHUTDOWN_GRACE_MS=1000 POKER__LOG__LEVEL=warn \
            exec "$BIN/pokerd" >"$dir/pokerd.log" 2>&1
    ) &
    SERVER_PID=$!
    for _ in $(seq 100); do
        curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && return
        sleep 0.2
    done
    echo "pokerd did not start: $(tail -5 "$dir/pokerd.log")" >&2
    exit 1
}

stop_pokerd() {
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 50); do
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.2
    done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}

# The value of key $2 in the JSON line $1 (numbers and null only).
json() { sed -n "s/.*\"$2\":\([^,}]*\).*/\1/p" <<<"$1"; }

# min / median / max of the numbers given.
spread() {
    printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {
        m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2
        printf "%.2f / %.2f / %.2f", v[1], m, v[NR] }'
}

echo "pokerd vs io_floor: $TABLES six-max tables at full speed, $ROUNDS rounds, poker-load ${SECS} s, io_floor ${FLOOR_SECS} s"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ)"
for db in $DATABASES; do
    [[ $db == postgres ]] && start_postgres
    ratios=() servers=() floors=() dbs=()
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
        floor_line=$("$BIN/examples/io_floor" --tables "$TABLES" --secs "$FLOOR_SECS" --coalesce-ms 10)
        floor=$(sed -n 's/.*server \([0-9.]*\) ms CPU per hand.*/\1/p' <<<"$floor_line")
        if [[ -z $server || $server == null || -z $floor ]]; then
            echo "round $round: no figure (poker-load: $load; $(tail -3 "$WORK/load.err"); io_floor: $floor_line)" >&2
            exit 1
        fi
        ratio=$(awk -v a="$server" -v b="$floor" 'BEGIN { printf "%.2f", a / b }')
        ratios+=("$ratio") servers+=("$server") floors+=("$floor")
        extra=""
        if [[ -n $dbcpu && $dbcpu != null ]]; then
            dbs+=("$dbcpu")
            extra=$(printf "; database processes %.3f ms" "$dbcpu")
        fi
        printf "%-8s round %d: pokerd %.3f ms CPU per hand (%.0f hands/s)%s; io_floor %.3f ms; ratio %.2f\n" \
            "$db" "$round" "$server" "$hands" "$extra" "$floor" "$ratio"
    done
    printf "%-8s min / median / max: pokerd %s ms, io_floor %s ms, ratio %s" \
        "$db" "$(spread "${servers[@]}")" "$(spread "${floors[@]}")" "$(spread "${ratios[@]}")"
    if ((${#dbs[@]})); then printf "; database processes %s ms" "$(spread "${dbs[@]}")"; fi
    echo
done
