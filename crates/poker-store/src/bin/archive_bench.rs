//! The hand archive measured (issue 38, "An archive that stays fast"): fills a fresh
//! PostgreSQL database or SQLite file with a synthetic room (tables, players, hands with their PHH and
//! record, the players of each hand, the ledger rows a hand writes) by set-based SQL, then
//! times every page's query through `SqlStore`'s own methods with random players, tables
//! and dates, and prints each query's latencies and the bytes each table and index takes;
//! last, the audit's, over the whole ledger and from its checkpoint.
//!
//! ```text
//! cargo run --release -p poker-store --bin archive_bench -- \
//!     --url postgres://postgres@127.0.0.1:55438/archive --hands 1000000
//! cargo run --release -p poker-store --bin archive_bench -- \
//!     --url sqlite:///var/tmp/archive.db --hands 1000000
//! ```
//!
//! The database named in the URL (or the SQLite file) is dropped and made again unless
//! `--keep` is given (then the hands it holds are measured as they are). The ids are
//! `md5` uuids on PostgreSQL and numbered uuids on SQLite (which has no `md5`), the same
//! rows otherwise. See docs/persistence.md, The hand archive.

use poker_store::{HandId, PlayerId, SqlStore, TableId};
use std::time::{Duration, Instant};

/// A real hand the store wrote (a table's PHH), grown to six players: the history every
/// synthetic hand carries.
const PHH: &str = r#"variant = 'NT'
antes = [0, 0, 0, 0, 0, 0]
blinds_or_straddles = [1, 2, 0, 0, 0, 0]
min_bet = 2
starting_stacks = [200, 117, 123, 240, 188, 305]
actions = ["d dh p1 8d5s", "d dh p2 6dKh", "d dh p3 AdKs", "d dh p4 Qh2c", "d dh p5 Jc9c", "d dh p6 7h7s", "p3 cbr 6", "p4 f", "p5 cc", "p6 cbr 18", "p1 f", "p2 f", "p3 cc", "p5 cc", "d db Ah5c9d", "p3 cbr 24", "p5 f", "p6 cc", "d db 2d", "p3 cc", "p6 cbr 40", "p3 cc", "d db Kc", "p3 cc", "p6 cc", "p3 sm AdKs", "p6 sm 7h7s"]
finishing_stacks = [199, 115, 210, 240, 170, 219]
seat_count = 9
seats = [1, 2, 4, 5, 7, 8]
table = 'Table 17'
hand = 4812
_time_zone = 'UTC'
_max_raises = 0
_uncapped_heads_up = false
"#;

/// A real hand's record (its deck's commitments, seeds and secret, the folds), grown to
/// six players; `P0`..`P5` and `HID` are replaced by each hand's players and id.
const RECORD: &str = r#"{"board":"Ah5c9d2dKc","button":2,"seats":[1,2,4,5,7,8],"seat_players":["P0","P1","P2","P3","P4","P5"],"seat_count":9,"posts":[{"seat":1,"kind":"small_blind","amount":1,"live":true},{"seat":2,"kind":"big_blind","amount":2,"live":true}],"starting_stacks":[200,117,123,240,188,305],"finishing_stacks":[199,115,210,240,170,219],"deck":{"version":2,"hand_id":"HID","size":52,"rounds":1,"secret":"fb2e24b32e5739da1be80257d26c40e01bb216dc9512f1c27de589a333597314","seed_list":[{"seat":0,"commitment":"1691040867be25c2f539ca53cb9878ac6dc9e1f7cdcaac6486a6e8a92006f29a","house":false},{"seat":1,"commitment":"2c2c675c9851e16f91813b4dc2818d4d5c02bb5dd3deb6a94d98ce30fc85dde3","house":true},{"seat":2,"commitment":"93f3231f86fc8721c87690c6df19b1a2f7c05adc12bef7e080529814c0a52d52","house":true},{"seat":3,"commitment":"5e2c0b7a9f8d3c1e4b6a7d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c","house":false},{"seat":4,"commitment":"a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90","house":false},{"seat":5,"commitment":"0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0","house":true}],"seeds":[{"seat":0,"seed":"4bf4eed9d99bea0ddae650350166c8bb84d7e46d1157601e22cbc312c477792c"},{"seat":1,"seed":"9337fc8fc7215dcb5f2e5fd39ca2951b0c16b85125236ee0020381a3f3f4ca77"},{"seat":2,"seed":"c8534ad5fd9e2b7320416b7b086887a796deaba7476e30b30eeb275b86196e73"},{"seat":3,"seed":"7d3f9a1c5e2b8d4f6a0c1e3b5d7f9a2c4e6b8d0f1a3c5e7b9d2f4a6c8e0b1d3f"},{"seat":4,"seed":"e4c2a0f8d6b4927058e3c1a9f7d5b3e1c0a8f6d4b2e09172c5a3e1f9d7b5c3a1"},{"seat":5,"seed":"3b7e1f5a9d2c6e0b4f8a2d6c0e4b8f2a6d0c4e8b2f6a0d4c8e2b6f0a4d8c2e6b"}],"reshuffles":[]},"folds":[{"folder":3,"bettor":2,"ahead":false},{"folder":0,"bettor":5,"ahead":true},{"folder":1,"bettor":5,"ahead":false},{"folder":4,"bettor":2,"ahead":true}]}"#;

/// One year in milliseconds: the hands are spread over it.
const YEAR_MS: i64 = 365 * 86_400_000;
/// The first hand's time (2025-12-01 UTC).
const T0: i64 = 1_764_547_200_000;

/// What to do, from the command line.
struct Args {
    /// The database to fill and measure (dropped and made again unless `keep`).
    url: String,
    /// Hands in the room.
    hands: i64,
    /// Tables in the room.
    tables: i64,
    /// Players in the room.
    players: i64,
    /// Whether hands carry their PHH and record (else both are empty).
    phh: bool,
    /// Whether the hands' ledger rows are written.
    ledger: bool,
    /// Measure the database as it is: no fill.
    keep: bool,
    /// The players' rows are written as the previous release wrote them (no deal time or
    /// big blind), then filled by the background filler, timed, before the queries.
    unfilled: bool,
    /// Only fill the players' rows left unfilled in the database as it is (`--unfilled`
    /// with `--keep`, and no queries measured): also on SQLite (`--url sqlite://FILE`).
    fill_only: bool,
    /// Calls per query.
    calls: usize,
}

impl Args {
    /// The arguments given, or why they are refused.
    fn parse() -> anyhow::Result<Args> {
        let mut a = Args {
            url: String::new(),
            hands: 10_000_000,
            tables: 2_000,
            players: 50_000,
            phh: true,
            ledger: true,
            keep: false,
            unfilled: false,
            fill_only: false,
            calls: 200,
        };
        let mut it = std::env::args().skip(1);
        while let Some(flag) = it.next() {
            let mut value = || {
                it.next()
                    .ok_or_else(|| anyhow::anyhow!("{flag} needs a value"))
            };
            match flag.as_str() {
                "--url" => a.url = value()?,
                "--hands" => a.hands = value()?.parse()?,
                "--tables" => a.tables = value()?.parse()?,
                "--players" => a.players = value()?.parse()?,
                // The first call is timed apart (the cold one): two at least.
                "--calls" => a.calls = value()?.parse::<usize>()?.max(2),
                "--no-phh" => a.phh = false,
                "--no-ledger" => a.ledger = false,
                "--keep" => a.keep = true,
                "--unfilled" => a.unfilled = true,
                "--fill-only" => a.fill_only = true,
                other => anyhow::bail!(
                    "unknown {other}: --url URL [--hands N] [--tables N] [--players N] \
                     [--calls N] [--no-phh] [--no-ledger] [--keep] [--unfilled] [--fill-only]"
                ),
            }
        }
        anyhow::ensure!(
            a.url.starts_with("postgres") || a.url.starts_with("sqlite://"),
            "--url postgres://... or sqlite://FILE is needed"
        );
        Ok(a)
    }

    /// Whether the room is on PostgreSQL (else SQLite).
    fn pg(&self) -> bool {
        self.url.starts_with("postgres")
    }

    /// The SQL expression of the id (a uuid's text) of the `kind` (`p`, `t`, `h`, `m`...)
    /// numbered by the SQL expression `n`: `md5` on PostgreSQL, on SQLite a uuid spelling
    /// a number of the kind and `n`.
    fn id(&self, kind: &str, n: &str) -> String {
        if self.pg() {
            format!("md5('{kind}' || ({n}))::uuid::text")
        } else {
            // FNV-1a of the kind: one number per kind.
            let code = kind.bytes().fold(0x811c_9dc5u32, |h, b| {
                (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
            });
            format!("printf('%08x-0000-4000-8000-%012x', {code}, {n})")
        }
    }

    /// A `from` item of the rows `name` = `lo` to `hi` - 1 (a column `name`).
    fn series(&self, name: &str, lo: i64, hi: i64) -> String {
        if self.pg() {
            format!("generate_series({lo}::bigint, {hi} - 1) {name}")
        } else {
            format!(
                "(with recursive g(v) as (select {lo} union all select v + 1 from g \
                 where v < {hi} - 1) select v as {name} from g) {name}_rows"
            )
        }
    }
}

/// A small deterministic random source (xorshift64*), so runs pick the same players.
struct Rng(u64);

impl Rng {
    /// A number from 0 to `n` - 1.
    fn below(&mut self, n: i64) -> i64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n as u64) as i64
    }
}

/// The SQL expression of the player (a number) at seat `s` of hand `i`: six different
/// players per table for 100 hands at a time.
fn seat_player(a: &Args) -> String {
    let per_session = a.tables * 100;
    format!(
        "(((i % {t}) * 7919 + (i / {per_session}) * 104729 + s * ({p} / 6)) % {p})",
        t = a.tables,
        p = a.players
    )
}

/// The SQL expression of the time hand `i` was dealt.
fn started(a: &Args) -> String {
    format!("({T0} + i * {})", YEAR_MS / a.hands.max(1))
}

/// Runs one statement.
async fn exec(pool: &sqlx::AnyPool, sql: &str) -> anyhow::Result<()> {
    sqlx::query(sql).execute(pool).await?;
    Ok(())
}

/// Drops and makes the database again, migrates it and fills it.
async fn fill(a: &Args) -> anyhow::Result<()> {
    if a.pg() {
        let (server, name) = a
            .url
            .rsplit_once('/')
            .ok_or_else(|| anyhow::anyhow!("a URL names its database"))?;
        let admin = SqlStore::connect_admin(&format!("{server}/postgres")).await?;
        exec(&admin, &format!("drop database if exists {name}")).await?;
        exec(&admin, &format!("create database {name}")).await?;
    } else {
        let file = a.url.trim_start_matches("sqlite://");
        for end in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{file}{end}"));
        }
    }
    drop(SqlStore::connect(&a.url).await?);
    let pool = SqlStore::connect_admin(&a.url).await?;
    let clock = Instant::now();
    exec(
        &pool,
        &format!(
            "insert into player (player_id, name, name_key, password_hash, created_at) \
             select {}, 'p' || n, 'p' || n, 'x', {T0} from {}",
            a.id("p", "n"),
            a.series("n", 0, a.players)
        ),
    )
    .await?;
    exec(
        &pool,
        &format!(
            "insert into wallet (player_id, balance, created_at) \
             select {}, 0, {T0} from {}",
            a.id("p", "n"),
            a.series("n", 0, a.players)
        ),
    )
    .await?;
    exec(
        &pool,
        &format!(
            "insert into poker_table (poker_table_id, name, config, status, created_at) \
             select {}, 'Table ' || n, '{{}}', 'open', {T0} from {}",
            a.id("t", "n"),
            a.series("n", 0, a.tables)
        ),
    )
    .await?;
    // The archive's indexes are made once the rows are in: far faster than keeping them
    // up row by row. The same definitions the migrations made (on SQLite the keys'
    // own indexes stay: the numbered ids come in order).
    let indexes: Vec<(String, String)> = sqlx::query_as(if a.pg() {
        "select indexname::text, indexdef::text from pg_indexes \
         where tablename in ('hand', 'hand_player', 'ledger_entry') and indexname not like '%pkey'"
    } else {
        "select name, sql from sqlite_master where type = 'index' and sql is not null \
         and tbl_name in ('hand', 'hand_player', 'ledger_entry')"
    })
    .fetch_all(&pool)
    .await?;
    for (index, _) in &indexes {
        exec(&pool, &format!("drop index {index}")).await?;
    }
    if a.pg() {
        exec(&pool, "alter table hand drop constraint hand_pkey").await?;
        for t in ["hand", "hand_player", "ledger_entry"] {
            exec(
                &pool,
                &format!("alter table {t} set (autovacuum_enabled = off)"),
            )
            .await?;
        }
    }
    let (phh, record) = if a.phh {
        let players: String = (0..6).fold("'".to_string() + RECORD + "'", |r, s| {
            format!("replace({r}, 'P{s}', {})", a.id("p", &seat(a, s)))
        });
        (
            format!("'{}'", PHH.replace('\'', "''")),
            format!("replace({players}, 'HID', {})", a.id("h", "i")),
        )
    } else {
        ("null".to_string(), "null".to_string())
    };
    let chunk = 500_000;
    let mut lo = 0;
    while lo < a.hands {
        let hi = (lo + chunk).min(a.hands);
        let at = started(a);
        exec(
            &pool,
            &format!(
                "insert into hand (hand_id, poker_table_id, number, status, phh, record, rake, \
                 started_at, ended_at, created_at) \
                 select {hid}, {tid}, \
                 i / {t} + 1, 'complete', {phh}, {record}, 1 + i % 3, {at}, {at} + 60000, {at} \
                 from {rows}",
                t = a.tables,
                hid = a.id("h", "i"),
                tid = a.id("t", &format!("i % {}", a.tables)),
                rows = a.series("i", lo, hi),
            ),
        )
        .await?;
        exec(
            &pool,
            &format!(
                "insert into hand_player (hand_id, player_id, seat_no, starting_stack, \
                 finishing_stack, created_at, started_at, big_blind) \
                 select {hid}, {pid}, s, 200, \
                 200 + case s when 0 then 40 - (1 + i % 3) when 1 then -20 when 2 then -20 else 0 end, \
                 {at} + 60000, {filled} \
                 from {rows} cross join {seats}",
                hid = a.id("h", "i"),
                pid = a.id("p", &seat_player(a)),
                rows = a.series("i", lo, hi),
                seats = a.series("s", 0, 6),
                filled = if a.unfilled { "null, null" } else { "{at}, 2" }.replace("{at}", &at),
            ),
        )
        .await?;
        if a.ledger {
            // One movement per hand: the winner's, two losers' seats and the rake.
            exec(
                &pool,
                &format!(
                    "insert into ledger_entry (movement_id, account, poker_table_id, kind, \
                     amount, reference, created_at) \
                     select {mid}, \
                     case when s = 3 then 'house:rake' else 'seat:' || {tid} || ':' || {pid} end, \
                     {tid}, 'hand', \
                     case s when 0 then 40 - (1 + i % 3) when 3 then 1 + i % 3 else -20 end, \
                     {hid}, {at} + 60000 \
                     from {rows} cross join {seats}",
                    mid = a.id("m", "i"),
                    tid = a.id("t", &format!("i % {}", a.tables)),
                    pid = a.id("p", &seat_player(a)),
                    hid = a.id("h", "i"),
                    rows = a.series("i", lo, hi),
                    seats = a.series("s", 0, 4),
                ),
            )
            .await?;
        }
        lo = hi;
        eprintln!("{hi} hands ({:.0} s)", clock.elapsed().as_secs_f64());
    }
    // Each table's hands and rake per day, as the commits keep them.
    exec(
        &pool,
        "insert into table_day (day, poker_table_id, hands, rake) \
         select ended_at / 86400000, poker_table_id, count(*), sum(rake) from hand \
         group by ended_at / 86400000, poker_table_id",
    )
    .await?;
    if a.pg() {
        exec(&pool, "alter table hand add primary key (hand_id)").await?;
    }
    for (index, def) in &indexes {
        exec(&pool, def).await?;
        eprintln!("{index} ({:.0} s)", clock.elapsed().as_secs_f64());
    }
    if a.pg() {
        for t in ["hand", "hand_player", "ledger_entry"] {
            exec(
                &pool,
                &format!("alter table {t} reset (autovacuum_enabled)"),
            )
            .await?;
            exec(&pool, &format!("vacuum analyze {t}")).await?;
        }
    } else {
        exec(&pool, "analyze").await?;
    }
    eprintln!("filled in {:.0} s", clock.elapsed().as_secs_f64());
    Ok(())
}

/// Fills the players' rows left without their deal time and big blind, as a node does in
/// the background (`poker_server::backfill`: batches of 1,200 rows, a pause of three
/// times each batch between them, left out here), and prints the batches' times.
async fn backfill(a: &Args) -> anyhow::Result<()> {
    let store = SqlStore::connect(&a.url).await?;
    let clock = Instant::now();
    let mut batches = Vec::new();
    let mut rows = 0u64;
    let mut after = String::new();
    loop {
        let started = Instant::now();
        let batch = store
            .fill_hand_players(
                std::env::var("FILL_ROWS")
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(1_200),
                &after,
            )
            .await?;
        let Some(next) = batch.next else {
            break;
        };
        after = next;
        batches.push(started.elapsed());
        rows += batch.rows;
        if batches.len() % 500 == 0 {
            eprintln!(
                "{rows} rows filled ({:.0} s)",
                clock.elapsed().as_secs_f64()
            );
        }
    }
    let busy = clock.elapsed();
    batches.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let at = |q: f64| batches[((batches.len().max(1) - 1) as f64 * q).round() as usize];
    if batches.is_empty() {
        println!("background filling: nothing to fill");
    } else {
        println!(
            "background filling: {rows} rows in {} batches, {:.1} s busy ({:.0} rows/s; \
             with its pauses {:.1} s); a batch p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            batches.len(),
            busy.as_secs_f64(),
            rows as f64 / busy.as_secs_f64(),
            busy.as_secs_f64() * 4.0,
            ms(at(0.5)),
            ms(at(0.99)),
            ms(*batches.last().expect("a batch")),
        );
    }
    store.close().await;
    Ok(())
}

/// [`seat_player`] for a fixed seat.
fn seat(a: &Args, s: i64) -> String {
    seat_player(a).replace("s *", &format!("{s} *"))
}

/// One query's figures.
struct Line {
    /// The query and the page it serves.
    name: &'static str,
    /// The first call's time (the cold one).
    first: Duration,
    /// Every other call's time.
    times: Vec<Duration>,
    /// The rows each of those calls returned.
    rows: Vec<usize>,
}

impl Line {
    /// Prints the query's line: first call, p50, p99, max, median rows, calls.
    fn print(&mut self) {
        self.times.sort();
        self.rows.sort();
        let at = |q: f64| self.times[((self.times.len() - 1) as f64 * q).round() as usize];
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "| {:<44} | {:>8.2} | {:>8.2} | {:>8.2} | {:>8.2} | {:>6} | {:>6} |",
            self.name,
            ms(self.first),
            ms(at(0.5)),
            ms(at(0.99)),
            ms(*self.times.last().expect("a call")),
            self.rows[self.rows.len() / 2],
            self.times.len(),
        );
    }
}

/// The head of the latencies' table.
fn header() {
    println!(
        "| {:<44} | {:>8} | {:>8} | {:>8} | {:>8} | {:>6} | {:>6} |",
        "query (SqlStore method, page)", "first ms", "p50 ms", "p99 ms", "max ms", "rows", "calls"
    );
    println!(
        "|{:-<46}|{:->10}|{:->10}|{:->10}|{:->10}|{:->8}|{:->8}|",
        "", "", "", "", "", "", ""
    );
}

/// Times `calls` calls of `f` (the first one apart, as the cold call).
async fn time(
    name: &'static str,
    calls: usize,
    mut f: impl AsyncFnMut(usize) -> anyhow::Result<usize>,
) -> anyhow::Result<()> {
    let start = Instant::now();
    f(0).await?;
    let first = start.elapsed();
    let mut line = Line {
        name,
        first,
        times: Vec::new(),
        rows: Vec::new(),
    };
    for call in 1..=calls {
        let start = Instant::now();
        let rows = f(call).await?;
        line.times.push(start.elapsed());
        line.rows.push(rows);
    }
    line.print();
    Ok(())
}

/// Times every page's query.
async fn measure(a: &Args) -> anyhow::Result<()> {
    let store = SqlStore::connect(&a.url).await?;
    let pool = SqlStore::connect_admin(&a.url).await?;
    let hands: i64 = sqlx::query_scalar("select count(*) from hand")
        .fetch_one(&pool)
        .await?;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    // Enough for the queries timed `few` times too (at least five calls).
    let n = a.calls.max(5) + 1;
    let ids = async |prefix: &str, count: i64, rng: &mut Rng| -> anyhow::Result<Vec<String>> {
        let mut out = Vec::new();
        for _ in 0..n {
            let k = rng.below(count);
            let id: String =
                sqlx::query_scalar(&format!("select {}", a.id(prefix, &k.to_string())))
                    .fetch_one(&pool)
                    .await?;
            out.push(id);
        }
        Ok(out)
    };
    let players: Vec<PlayerId> = ids("p", a.players, &mut rng)
        .await?
        .iter()
        .map(|s| s.parse())
        .collect::<Result<_, _>>()?;
    let tables: Vec<TableId> = ids("t", a.tables, &mut rng)
        .await?
        .iter()
        .map(|s| s.parse())
        .collect::<Result<_, _>>()?;
    let hand_ids: Vec<HandId> = ids("h", hands, &mut rng)
        .await?
        .iter()
        .map(|s| s.parse())
        .collect::<Result<_, _>>()?;
    let months: Vec<i64> = (0..n).map(|_| T0 + rng.below(12) * YEAR_MS / 12).collect();
    let days: Vec<i64> = (0..n).map(|_| T0 + rng.below(365) * 86_400_000).collect();
    // Pairs who played together: two seats of one hand.
    let mut pairs = Vec::new();
    for _ in 0..n {
        let i = rng.below(hands);
        let (x, y): (String, String) = sqlx::query_as(&format!(
            "select {}, {} from (select {i}{} as i) h",
            a.id("p", &seat(a, 0)),
            a.id("p", &seat(a, 1)),
            if a.pg() { "::bigint" } else { "" },
        ))
        .fetch_one(&pool)
        .await?;
        let t: String = sqlx::query_scalar(&format!(
            "select {}",
            a.id("t", &format!("{i} % {}", a.tables))
        ))
        .fetch_one(&pool)
        .await?;
        pairs.push((
            x.parse::<PlayerId>()?,
            y.parse::<PlayerId>()?,
            t.parse::<TableId>()?,
            T0 + i * (YEAR_MS / hands.max(1)),
        ));
    }
    let month = YEAR_MS / 12;
    let c = a.calls;
    let few = (a.calls / 10).max(5);
    println!("{hands} hands, {} tables, {} players", a.tables, a.players);
    header();
    let s = &store;
    time("player_hands 20 (/api/me/hands)", c, async |k| {
        Ok(s.player_hands(players[k], 20, 0).await?.len())
    })
    .await?;
    time("player_hands 20 offset 200 (page 11)", c, async |k| {
        Ok(s.player_hands(players[k], 20, 200).await?.len())
    })
    .await?;
    time(
        "player_hands 50 (/admin/players/{id}/hands)",
        c,
        async |k| Ok(s.player_hands(players[k], 50, 0).await?.len()),
    )
    .await?;
    time("player_hands 500 (admin export, a page)", few, async |k| {
        Ok(s.player_hands(players[k], 500, 0).await?.len())
    })
    .await?;
    time("player_hands_between month (download)", c, async |k| {
        Ok(
            s.player_hands_between(players[k], months[k], months[k] + month, 10_001)
                .await?
                .len(),
        )
    })
    .await?;
    time("player_hands_between all (the old stats)", few, async |k| {
        Ok(s.player_hands_between(players[k], 0, i64::MAX, 10_001)
            .await?
            .len())
    })
    .await?;
    time("player_results_between all (/api/me/stats)", c, async |k| {
        Ok(s.player_results_between(players[k], 0, i64::MAX, 10_001)
            .await?
            .len())
    })
    .await?;
    time("player_results_between month (stats)", c, async |k| {
        Ok(
            s.player_results_between(players[k], months[k], months[k] + month, 10_001)
                .await?
                .len(),
        )
    })
    .await?;
    time(
        "hand (/api/me/hands/{id}, /admin/hands/{id})",
        c,
        async |k| {
            s.hand(hand_ids[k]).await?;
            Ok(1)
        },
    )
    .await?;
    time("table_hands 50 (/admin/tables/{id}/hands)", c, async |k| {
        Ok(s.table_hands(tables[k], 50, 0).await?.len())
    })
    .await?;
    time("table_hands 50 offset 1000", c, async |k| {
        Ok(s.table_hands(tables[k], 50, 1000).await?.len())
    })
    .await?;
    time("table_hands 1 (a table's start)", c, async |k| {
        Ok(s.table_hands(tables[k], 1, 0).await?.len())
    })
    .await?;
    time("hands_together table (fair-play flags)", c, async |k| {
        let (x, y, t, at) = pairs[k];
        Ok(
            s.hands_together(x, y, Some(t), at - 86_400_000, i64::MAX, 20)
                .await?
                .len(),
        )
    })
    .await?;
    time("hands_together (pair's hands)", c, async |k| {
        let (x, y, _, at) = pairs[k];
        Ok(
            s.hands_together(x, y, None, at - 30 * 86_400_000, at + 86_400_000, 50)
                .await?
                .len(),
        )
    })
    .await?;
    time(
        "fair_play_hands day 2000 (collusion report)",
        few,
        async |k| {
            Ok(s.fair_play_hands(days[k], days[k] + 86_400_000, 2_000)
                .await?
                .len())
        },
    )
    .await?;
    time("fair_play_hands 20000 (report default)", 5, async |k| {
        Ok(
            s.fair_play_hands(days[k], days[k] + 30 * 86_400_000, 20_000)
                .await?
                .len(),
        )
    })
    .await?;
    time("ledger 200 (/admin/players/{id}/ledger)", c, async |k| {
        Ok(s.ledger(players[k], 200).await?.len())
    })
    .await?;
    time("table_ledger (a private game's settle-up)", c, async |k| {
        Ok(s.table_ledger(tables[k]).await?.lines.len())
    })
    .await?;
    time("void_hands (a table fails)", c, async |k| {
        Ok(s.void_hands(tables[k]).await?.len())
    })
    .await?;
    time("rake_by_day 30 days (/admin/rake)", 5, async |k| {
        // The page's default: the last 30 days.
        let _ = k;
        Ok(s.rake_by_day(T0 + YEAR_MS - 30 * 86_400_000).await?.len())
    })
    .await?;
    time("recover (start-up)", 5, async |_| {
        Ok(s.recover().await?.len())
    })
    .await?;
    // The audits last, after the sizes: they add ledger rows (see `audits`).
    sizes(&pool, hands, a.pg()).await?;
    println!();
    header();
    audits(s, &pool, a).await
}

/// Hands written after the checkpoint before each call of the last audit line.
const HANDS_AFTER: i64 = 10_000;

/// Times the audit: over the whole ledger (`/admin/audit?full=true`; each call holds and
/// makes the checkpoint again, every account's sum written), then from its checkpoint
/// with nothing after it, then with [`HANDS_AFTER`] hands' movements (4 rows each) after
/// it. The synthetic hands move chips between seat accounts that have no seat row, so the
/// books would not balance and no audit would place a checkpoint: each seat account's
/// ledger is first settled to zero against the rake (one movement of two rows an account,
/// once; the later hands' movements leave every account's sum as it was).
async fn audits(s: &SqlStore, pool: &sqlx::AnyPool, a: &Args) -> anyhow::Result<()> {
    exec(
        pool,
        "with x as (select account, sum(amount) as total from ledger_entry \
                    where account like 'seat:%' group by account having sum(amount) <> 0) \
         insert into ledger_entry (movement_id, account, kind, amount, created_at) \
         select 'settle:' || x.account, case v.side when 0 then x.account else 'house:rake' end, \
         'hand', case v.side when 0 then -x.total else x.total end, 0 \
         from x cross join (select 0 as side union all select 1) v",
    )
    .await?;
    let holds = |audit: poker_store::Audit| -> anyhow::Result<usize> {
        anyhow::ensure!(audit.holds(), "the books balance: {audit:?}");
        Ok(audit.mismatched_accounts.len())
    };
    time("audit_full (/admin/audit?full=true)", 3, async |_| {
        holds(s.audit_full().await?)
    })
    .await?;
    time("audit from checkpoint, nothing after", 5, async |_| {
        holds(s.audit().await?)
    })
    .await?;
    let mut line = Line {
        name: "audit from checkpoint, 10,000 hands after",
        first: Duration::ZERO,
        times: Vec::new(),
        rows: Vec::new(),
    };
    let (p0, p1) = (seat(a, 0), seat(a, 1));
    for call in 0..=5 {
        // Each hand: two seats win and lose 5 chips, twice over.
        exec(
            pool,
            &format!(
                "insert into ledger_entry (movement_id, account, poker_table_id, kind, amount, \
                 reference, created_at) \
                 select {mid}, 'seat:' || {tid} || ':' || {pid}, {tid}, 'hand', \
                 case s when 0 then 5 when 1 then -5 when 2 then -5 else 5 end, {mid}, {T0} \
                 from {rows} cross join {seats}",
                mid = a.id(&format!("after{call}:"), "i"),
                tid = a.id("t", &format!("i % {}", a.tables)),
                pid = a.id("p", &format!("case when s % 2 = 0 then {p0} else {p1} end")),
                rows = a.series("i", 0, HANDS_AFTER),
                seats = a.series("s", 0, 4),
            ),
        )
        .await?;
        let start = Instant::now();
        let rows = holds(s.audit().await?)?;
        if call == 0 {
            line.first = start.elapsed();
        } else {
            line.times.push(start.elapsed());
            line.rows.push(rows);
        }
    }
    line.print();
    Ok(())
}

/// The bytes each table (with its TOAST) and index takes, and per hand.
async fn sizes(pool: &sqlx::AnyPool, hands: i64, pg: bool) -> anyhow::Result<()> {
    let rows: Vec<(String, String, i64)> = sqlx::query_as(if pg {
        "select c.relname::text, case c.relkind when 'i' then 'index' else 'table' end, \
         case c.relkind when 'i' then pg_relation_size(c.oid) else pg_table_size(c.oid) end \
         from pg_class c join pg_namespace n on n.oid = c.relnamespace \
         where n.nspname = 'public' and c.relkind in ('r', 'i') \
         and (c.relname in ('hand', 'hand_player', 'ledger_entry') \
              or exists (select 1 from pg_index x join pg_class t on t.oid = x.indrelid \
                         where x.indexrelid = c.oid and t.relname in ('hand', 'hand_player', 'ledger_entry'))) \
         order by 3 desc"
    } else {
        // SQLite's pages of each table and index (`dbstat`, which the bundled SQLite has).
        "select d.name, case m.type when 'index' then 'index' else 'table' end, sum(d.pgsize) \
         from dbstat d join sqlite_master m on m.name = d.name \
         where m.tbl_name in ('hand', 'hand_player', 'ledger_entry') \
         group by d.name, m.type order by 3 desc"
    })
    .fetch_all(pool)
    .await?;
    println!();
    println!(
        "| {:<36} | {:>5} | {:>10} | {:>10} | {:>12} |",
        "relation", "kind", "MB", "bytes/hand", "GB/1M hands"
    );
    println!(
        "|{:-<38}|{:->7}|{:->12}|{:->12}|{:->14}|",
        "", "", "", "", ""
    );
    let mut total = 0;
    for (name, kind, bytes) in &rows {
        total += bytes;
        line(name, kind, *bytes, hands);
    }
    line("total", "", total, hands);
    Ok(())
}

/// One relation's line of the sizes' table.
fn line(name: &str, kind: &str, bytes: i64, hands: i64) {
    let per = bytes as f64 / hands.max(1) as f64;
    println!(
        "| {name:<36} | {kind:>5} | {:>10.0} | {per:>10.0} | {:>12.2} |",
        bytes as f64 / 1e6,
        per * 1e6 / 1e9
    );
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let a = Args::parse()?;
    if a.fill_only {
        return backfill(&a).await;
    }
    if !a.keep {
        fill(&a).await?;
    }
    if a.unfilled {
        backfill(&a).await?;
    }
    measure(&a).await
}
