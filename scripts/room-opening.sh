#!/usr/bin/env bash
# A room opening all its tables at once (docs/scaling.md, "Buy-ins"): TABLES six-max
# tables, PLAYERS funded players each (six unless set), every player sitting down and
# buying in at the same moment, then playing at a human pace. It reports each bot's first
# action's round trip (from sending it to receiving the event that applies it), the round
# trips of the SECS that follow, pokerd's own measure of the same
# (poker_action_broadcast_seconds: from an action reaching its table to its events
# queued), and pokerd's resident memory and share of a core.
#
# Making PLAYERS x TABLES accounts through the API costs an Argon2 hash each, so the
# script makes one table and six players through the API (poker-load --make-only), copies
# their rows (the table's config, a password hash) into a template database of TABLES
# tables and PLAYERS x TABLES players with a wallet, its deposit in the ledger, and a
# session each, then runs every round on a fresh copy of that template.
#
# Build first: cargo build --release -p poker-server -p poker-bots --bins
#
# Settings (environment): TABLES (2000), PLAYERS (6; fewer players a table let more
# tables fit under the open-file limit), SECS (60), ROUNDS (1), DATABASES ("sqlite
# postgres"), PORT (18095), BIN (the release folder), DATABASE_URL (a postgres URL: use
# that server instead of a throwaway cluster), METRICS_OUT (a path: pokerd's /metrics at
# each round's end are kept in PATH.DATABASE.ROUND), STATEMENTS (1, with DATABASE_URL
# naming a server started with shared_preload_libraries=pg_stat_statements: the statements
# PostgreSQL ran in each round and their execution time, the fixtures left out), SOURCES
# (1; 2 to 250: the bots connect from that many loopback addresses, so the kernel's search
# for a free port of one address does not slow the opening's connects: poker-load --sources).
#
#   scripts/room-opening.sh
#   TABLES=500 SECS=20 DATABASES=sqlite scripts/room-opening.sh

set -euo pipefail

TABLES=${TABLES:-2000}
PLAYERS=${PLAYERS:-6}
SECS=${SECS:-60}
ROUNDS=${ROUNDS:-1}
DATABASES=${DATABASES:-sqlite postgres}
PORT=${PORT:-18095}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release}
TOKEN=room-opening-admin-token-0123456789abcdef
WORK=$(mktemp -d /tmp/poker-opening.XXXXXX)
EXTERNAL_PG=${DATABASE_URL:-}
unset DATABASE_URL

for exe in pokerd poker-load; do
    [[ -x $BIN/$exe ]] || {
        echo "missing $BIN/$exe: cargo build --release -p poker-server -p poker-bots --bins" >&2
        exit 1
    }
done
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
need=$((TABLES * PLAYERS + 1000))
if (($(ulimit -n) < need)); then
    echo "open files: $(ulimit -n) per process, $TABLES tables need $need" >&2
    exit 1
fi

# shellcheck source=scripts/common.sh
source "$ROOT/scripts/common.sh"
trap cleanup EXIT

# Runs SQL from stdin (or the file $2) on database URL $1.
sql() {
    local url=$1
    if [[ $url == sqlite://* ]]; then
        python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript(open(sys.argv[2]).read() if len(sys.argv) > 2 else sys.stdin.read())
db.close()' "${url#sqlite://}" "${@:2}"
    else
        psql -q -v ON_ERROR_STOP=1 "$url" ${2:+-f "$2"} >/dev/null
    fi
}

# Prints one column of the first row of a query on database URL $1.
value() {
    local url=$1 query=$2
    if [[ $url == sqlite://* ]]; then
        python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "${url#sqlite://}" "$query"
    else
        psql -At "$url" -c "$query"
    fi
}

# The template database for $1 (sqlite or postgres); prints its URL.
make_template() {
    local db=$1 dir=$WORK/$1-template url
    mkdir -p "$dir"
    if [[ $db == sqlite ]]; then
        url=sqlite://$dir/poker.db
    else
        psql -q "$PG_URL_BASE/postgres" -c "create database opening_template_$$" >/dev/null
        url=$PG_URL_BASE/opening_template_$$
    fi
    start_pokerd_at "$url" "$dir" >&2
    "$BIN/poker-load" --url "http://127.0.0.1:$PORT" --admin-token "$TOKEN" --tables 1 \
        --make-only --state "$dir/one.json" >/dev/null 2>"$dir/make.err"
    stop_pokerd
    local hash config
    hash=$(value "$url" "select password_hash from player order by created_at limit 1")
    config=$(value "$url" "select config from poker_table order by created_at limit 1")
    python3 - "$TABLES" "$PLAYERS" "$hash" "$config" "$dir/fixture.sql" "$dir/state.json" <<'EOF'
import hashlib, json, secrets, sys, time, uuid
tables, players, (password_hash, config, out_sql, out_state) = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
now = int(time.time() * 1000)
q = lambda s: "'" + s.replace("'", "''") + "'"
state = []
with open(out_sql, "w") as f:
    f.write("begin;\n")
    for t in range(tables):
        table_id = str(uuid.uuid4())
        f.write("insert into poker_table (poker_table_id, name, config, status, created_at) "
                f"values ({q(table_id)}, {q('Opening #%d' % t)}, {q(config)}, 'open', {now});\n")
        tokens = []
        for s in range(players):
            player_id, movement, name = str(uuid.uuid4()), str(uuid.uuid4()), f"opening{t}s{s}"
            token = secrets.token_urlsafe(32)
            tokens.append(token)
            f.write("insert into player (player_id, name, password_hash, created_at, name_key) "
                    f"values ({q(player_id)}, {q(name)}, {q(password_hash)}, {now}, {q(name)});\n")
            f.write("insert into wallet (player_id, balance, created_at) "
                    f"values ({q(player_id)}, 1000000, {now});\n")
            f.write("insert into ledger_entry (movement_id, account, player_id, kind, amount, "
                    f"reference, created_at) values ({q(movement)}, 'external', {q(player_id)}, "
                    f"'deposit', -1000000, null, {now}), ({q(movement)}, "
                    f"{q('wallet:' + player_id)}, {q(player_id)}, 'deposit', 1000000, null, {now});\n")
            token_hash = hashlib.sha256(token.encode()).hexdigest()
            f.write("insert into session (token_hash, player_id, expires_at, created_at) "
                    f"values ({q(token_hash)}, {q(player_id)}, {now + 7 * 24 * 3600 * 1000}, {now});\n")
        state.append({"table_id": table_id, "tokens": tokens})
    f.write("commit;\n")
json.dump(state, open(out_state, "w"))
EOF
    sql "$url" "$dir/fixture.sql"
    echo "$url"
}

# A fresh copy of template $2 for round $3 of database $1; prints its URL.
copy_template() {
    local db=$1 template=$2 round=$3 dir=$WORK/$1-$3
    mkdir -p "$dir"
    if [[ $db == sqlite ]]; then
        local file=${template#sqlite://}
        cp "$file" "$dir/poker.db"
        echo "sqlite://$dir/poker.db"
    else
        psql -q "$PG_URL_BASE/postgres" \
            -c "create database opening_${$}_$round template ${template##*/}" >/dev/null
        echo "$PG_URL_BASE/opening_${$}_$round"
    fi
}

# The smallest bucket bound of histogram $1 in pokerd's /metrics holding 99% of its count.
server_p99_ms() {
    curl -sf "http://127.0.0.1:$PORT/metrics" | awk -v name="$1" '
        index($0, name "_bucket{le=\"") == 1 {
            split($0, parts, "\""); le[++n] = parts[2]; count[n] = $2
        }
        END {
            if (n == 0 || count[n] == 0) { print "none"; exit }
            for (i = 1; i <= n; i++) if (count[i] >= 0.99 * count[n]) {
                if (le[i] == "+Inf") print "over " le[i-1] * 1000; else print le[i] * 1000
                exit
            }
        }'
}

echo "room opening: $TABLES six-max tables, $((TABLES * PLAYERS)) buy-ins ($PLAYERS a table) at once, then ${SECS} s at a human pace, $ROUNDS round(s)"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ)"
for db in $DATABASES; do
    [[ $db == postgres ]] && start_postgres
    template=$(make_template "$db")
    for round in $(seq "$ROUNDS"); do
        url=$(copy_template "$db" "$template" "$round")
        dir=$WORK/$db-$round
        cp "$WORK/$db-template/state.json" "$dir/state.json"
        count_statements=
        if [[ $db == postgres && ${STATEMENTS:-} == 1 && -n $EXTERNAL_PG ]]; then
            count_statements=1
            psql "$EXTERNAL_PG" -qAtc "create extension if not exists pg_stat_statements" >/dev/null
            psql "$EXTERNAL_PG" -qAtc "select pg_stat_statements_reset()" >/dev/null
        fi
        start_pokerd_at "$url" "$dir"
        out=$("$BIN/poker-load" --url "http://127.0.0.1:$PORT" --admin-token "$TOKEN" \
            --tables "$TABLES" --secs "$SECS" --pace human --state "$dir/state.json" \
            --server-pid "$SERVER_PID" --sources "${SOURCES:-1}" 2>"$dir/load.err")
        server=$(server_p99_ms poker_action_broadcast_seconds)
        # METRICS_OUT=FILE keeps pokerd's /metrics as the round ended (FILE.ROUND).
        [[ -n ${METRICS_OUT:-} ]] && curl -sf "http://127.0.0.1:$PORT/metrics" >"$METRICS_OUT.$db.$round"
        stop_pokerd
        load=$(tail -1 <<<"$out")
        printf "%-8s round %d (load %s): first actions %s of %s, p50 %.2f ms, p99 %.2f ms; then %.1f hands/s, round trip p50 %.2f ms, p99 %.2f ms; pokerd's action to broadcast p99 <= %s ms; pokerd %s MB resident, %s of a core\n" \
            "$db" "$round" "$(cut -d' ' -f1 /proc/loadavg)" "$(json "$load" first_count)" \
            "$((TABLES * PLAYERS))" "$(json "$load" first_p50_ms)" "$(json "$load" first_p99_ms)" \
            "$(json "$load" hands_per_sec)" "$(json "$load" p50_ms)" "$(json "$load" p99_ms)" \
            "$server" "$(($(json "$load" server_rss_kb) / 1024))" \
            "$(awk -v c="$(json "$load" server_cpu_share)" 'BEGIN { printf "%.2f", c }')"
        if [[ -n $count_statements ]]; then
            psql "$EXTERNAL_PG" -qAt -F' ' -c "select 'statements ' || sum(calls) || ', ' \
                || round(sum(total_exec_time)) || ' ms of execution; BEGIN ' \
                || coalesce(sum(calls) filter (where query ilike 'begin%'), 0) from pg_stat_statements"
        fi
    done
done
