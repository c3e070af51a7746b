# Shared by the measuring scripts (capacity.sh, room-opening.sh): a throwaway PostgreSQL
# cluster, pokerd started and stopped with the settings a load run needs, and the small
# helpers that read poker-load's JSON line. Sourced, not run; the caller sets WORK (a
# scratch directory it removes), PORT, BIN and TOKEN, and EXTERNAL_PG to a postgres URL to
# use that server instead of a throwaway cluster.

PG_DATA="" PG_CTL=() PG_URL_BASE="" PG_MAIN_PID=${PG_PID:-}
SERVER_PID=""

# Stops pokerd and the throwaway cluster and removes WORK; the caller's EXIT trap.
cleanup() {
    if [[ -n $SERVER_PID ]]; then kill -KILL "$SERVER_PID" 2>/dev/null || true; fi
    if [[ -n $PG_DATA ]]; then "${PG_CTL[@]}" -D "$PG_DATA" -m fast -w stop >/dev/null 2>&1 || true; fi
    rm -rf "$WORK"
}

# A throwaway PostgreSQL cluster in $WORK on PORT + 1 (as the postgres user when run as
# root, fsync on), unless EXTERNAL_PG names a server; sets PG_URL_BASE (a URL without
# the database) and PG_MAIN_PID (the postmaster, for --db-pid).
start_postgres() {
    if [[ ${EXTERNAL_PG:-} == postgres* ]]; then
        PG_URL_BASE=${EXTERNAL_PG%/*}
        return
    fi
    [[ -n $PG_DATA ]] && return
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

# Starts pokerd on database URL $1 with DIR $2 as its working directory (its log is
# DIR/pokerd.log), real money, every bot allowed at one table from one address, and rate
# limits a load generator does not trip; sets SERVER_PID once /healthz answers.
# The per-address connection cap is off (0): 127.0.0.1 is never capped, but bots spread over
# other loopback addresses (room-opening.sh SOURCES) would be held to 64 each.
start_pokerd_at() {
    local url=$1 dir=$2
    mkdir -p "$dir"
    (
        cd "$dir"
        DATABASE_URL=$url POKER__SERVER__ADDR=127.0.0.1:$PORT POKER__ADMIN__TOKEN=$TOKEN \
            POKER__ROOM__MONEY=real POKER__ROOM__SAME_ADDRESS_SEATING=allow \
            POKER__SERVER__RATE_LIMIT_PER_SEC=1000 POKER__SERVER__RATE_LIMIT_BURST=1000 \
            POKER__SERVER__API_RATE_PER_SEC=100000 POKER__SERVER__API_RATE_BURST=100000 \
            POKER__SERVER__API_ADDRESS_RATE_PER_SEC=100000 \
            POKER__SERVER__API_ADDRESS_RATE_BURST=100000 \
            POKER__SERVER__SHUTDOWN_GRACE_MS=1000 POKER__LOG__LEVEL=warn \
            POKER__SERVER__CONNECTIONS_PER_ADDRESS=0 \
            exec "$BIN/pokerd" >"$dir/pokerd.log" 2>&1
    ) &
    SERVER_PID=$!
    for _ in $(seq 300); do
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
