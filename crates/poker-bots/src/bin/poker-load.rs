//! `poker-load`: a load generator for any running pokerd, through its public APIs only.
//!
//! It creates the tables (six-max NL hold'em, with rake) and the players it needs with the
//! admin API, seats six bots at each over real WebSockets, and plays for `--secs` seconds,
//! at full speed or at a human pace (1 to 3 s of thought per action). A few bots drop
//! their connection now and then and come back (the server resends the table). It reports
//! hands per second, the action round trip (a bot sends its action until it receives the
//! event applying it) as percentiles, and with `--server-pid` the server's CPU time per
//! hand and its resident memory, read from /proc; the last line is JSON with the keys
//! `hands_per_sec`, `p50_ms`, `p99_ms`, `server_cpu_ms_per_hand`, `server_rss_kb`. With
//! `--db-pid` (a PostgreSQL postmaster on this machine) the database's CPU time per hand
//! is reported apart (`db_cpu_ms_per_hand`): the postmaster's, its live children's and
//! that of the children it has reaped, over the same window. Of the server's own CPU time,
//! that of its SQLite threads (sqlx runs each SQLite connection on a thread of its own) is
//! reported too (`sqlite_threads_cpu_ms_per_hand`; null on PostgreSQL).
//!
//! With `--state FILE` the tables and players made are written to FILE, and a later run
//! with the same FILE plays at them again instead of making new ones (creating thousands
//! of accounts costs one Argon2 hash each, and a login another).
//!
//! `--make-only` makes the tables and players (and writes `--state`) and stops before
//! anyone sits: a copy of that database then replays a room opening all its tables at
//! once, buy-ins and all, without paying for the accounts again.
//!
//! Each bot's first action (the round trip of the first action it sends after sitting,
//! whenever that comes: the room opening its tables, buy-ins and all) is reported apart as
//! the first actions (`first_p50_ms`, `first_p99_ms`, `first_count`); the window of
//! `p50_ms`/`p99_ms` starts after a warm-up of a few seconds.
//!
//! `--pace idle` measures memory at rest: it makes the tables (no one seated) and reads
//! the server's resident memory, then opens six connections per table, authenticated and
//! idle, and reads it again; it reports kB per idle table and per idle connection (JSON
//! keys `idle_table_kb`, `idle_connection_kb`).
//!
//! Every bot connects from this process's address, so the server must seat several players
//! from one address at a table: start it with `POKER__ROOM__SAME_ADDRESS_SEATING=allow`.
//! With `--sources N` (2 to 250) and a server on 127.0.0.1, the bots connect from N
//! loopback addresses in turn (127.0.0.2 on) instead: thousands of connections from one
//! address to one port make the kernel search the ports in use for each new one, which a
//! room opening then measures instead of the server (docs/scaling.md).
//!
//! ```sh
//! poker-load --url http://127.0.0.1:8080 --admin-token TOKEN --tables 20 --secs 15 \
//!            --pace full --server-pid $(pgrep -n pokerd)
//! ```

use futures_util::{SinkExt, StreamExt};
use poker_bots::cpu::{proc_usage, threads_cpu, tree_cpu, SQLITE_THREAD};
use poker_protocol::{ClientMsg, ServerMsg, TableId};
use poker_rules::{Action, Event};
use rand::{Rng, SeedableRng};
use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

struct Args {
    url: String,
    admin_token: String,
    tables: usize,
    secs: u64,
    human: bool,
    idle: bool,
    server_pid: Option<u32>,
    db_pid: Option<u32>,
    state: Option<String>,
    make_only: bool,
    sources: u8,
}

/// A table made by an earlier run, with its six players' sessions.
#[derive(serde::Serialize, serde::Deserialize, Clone)]
struct Made {
    table_id: TableId,
    tokens: Vec<String>,
}

fn usage() -> ! {
    eprintln!(
        "usage: poker-load --url http://HOST:PORT --admin-token TOKEN [--tables N] [--secs S] \
         [--pace full|human|idle] [--server-pid PID] [--db-pid PID] [--state FILE] [--make-only] \
         [--sources N]"
    );
    std::process::exit(2)
}

fn parse_args() -> Args {
    let mut args = Args {
        url: String::new(),
        admin_token: String::new(),
        tables: 20,
        secs: 15,
        human: false,
        idle: false,
        server_pid: None,
        db_pid: None,
        state: None,
        make_only: false,
        sources: 1,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| usage());
        match flag.as_str() {
            "--url" => args.url = value().trim_end_matches('/').to_string(),
            "--admin-token" => args.admin_token = value(),
            "--tables" => args.tables = value().parse().unwrap_or_else(|_| usage()),
            "--secs" => args.secs = value().parse().unwrap_or_else(|_| usage()),
            "--pace" => match value().as_str() {
                "human" => args.human = true,
                "full" => args.human = false,
                "idle" => args.idle = true,
                _ => usage(),
            },
            "--state" => args.state = Some(value()),
            "--make-only" => args.make_only = true,
            "--sources" => {
                args.sources = value()
                    .parse()
                    .ok()
                    .filter(|n| (1..=250).contains(n))
                    .unwrap_or_else(|| usage())
            }
            "--server-pid" => args.server_pid = Some(value().parse().unwrap_or_else(|_| usage())),
            "--db-pid" => args.db_pid = Some(value().parse().unwrap_or_else(|_| usage())),
            _ => usage(),
        }
    }
    if args.url.is_empty() || args.admin_token.is_empty() || args.tables == 0 {
        usage();
    }
    args
}

/// What every bot adds to.
struct Totals {
    hands: AtomicU64,
    actions: AtomicU64,
    reconnects: AtomicU64,
    counting: AtomicBool,
    latencies: Mutex<Vec<Duration>>,
    /// Each bot's first action's round trip.
    first: Mutex<Vec<Duration>>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = parse_args();
    let http = reqwest::Client::new();
    let ws_url = format!("{}/ws", args.url.replacen("http", "ws", 1));
    let run = format!("{:06x}", rand::random::<u32>() & 0xff_ffff);
    let rules = json!({
        "game": "holdem", "structure": "no_limit", "stakes": { "min_bet": 2 },
        "max_raises": null, "uncapped_heads_up": false, "seat_count": 6,
        "small_blind": 1, "big_blind": 2, "ante": { "kind": "none" }, "button": "dead",
        "missed_blinds": "dead_small_live_big", "min_buy_in": 40, "max_buy_in": 200,
        "rathole_secs": 0, "max_missed_big_blinds": 0, "kill": null, "rock": false,
        "options": { "rake": { "basis_points": 500, "cap": 3 } }
    });
    let clock = json!({ "action_ms": 30000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    let totals = Arc::new(Totals {
        hands: AtomicU64::new(0),
        actions: AtomicU64::new(0),
        reconnects: AtomicU64::new(0),
        counting: AtomicBool::new(false),
        latencies: Mutex::new(Vec::new()),
        first: Mutex::new(Vec::new()),
    });
    if args.idle {
        return idle(&args, &http, &ws_url, &run, &rules, &clock).await;
    }
    let mut made: Vec<Made> = args
        .state
        .as_ref()
        .and_then(|f| std::fs::read_to_string(f).ok())
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    let reused = made.len().min(args.tables);
    made.truncate(args.tables);
    eprintln!(
        "poker-load: {reused} tables from {}, creating {} tables and {} players",
        args.state.as_deref().unwrap_or("no state file"),
        args.tables - reused,
        (args.tables - reused) * 6
    );
    // Four tables' players at a time: the server hashes passwords on one core anyway.
    let fresh: Vec<Made> = futures_util::stream::iter(reused..args.tables)
        .map(|t| make_table(&http, &args, &run, t, &rules, &clock))
        .buffer_unordered(4)
        .collect::<Vec<anyhow::Result<Made>>>()
        .await
        .into_iter()
        .collect::<anyhow::Result<_>>()?;
    made.extend(fresh);
    if let Some(file) = &args.state {
        std::fs::write(file, serde_json::to_string(&made)?)?;
    }
    if args.make_only {
        println!("{} tables and {} players made", made.len(), made.len() * 6);
        return Ok(());
    }
    let mut bots = Vec::new();
    for table in &made {
        for (seat, token) in table.tokens.iter().enumerate() {
            let source = source_address(&ws_url, args.sources, bots.len());
            bots.push(tokio::spawn(bot(
                (ws_url.clone(), source),
                token.clone(),
                table.table_id,
                seat as u32,
                args.human,
                totals.clone(),
            )));
        }
    }
    eprintln!("poker-load: {} bots seated, warming up", bots.len());
    tokio::time::sleep(Duration::from_secs(if args.human { 5 } else { 2 })).await;
    let before = args.server_pid.and_then(proc_usage);
    let db_before = args.db_pid.and_then(tree_cpu);
    let sqlite_before = args.server_pid.and_then(|p| threads_cpu(p, SQLITE_THREAD));
    totals.counting.store(true, Ordering::Relaxed);
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs(args.secs)).await;
    totals.counting.store(false, Ordering::Relaxed);
    let elapsed = started.elapsed().as_secs_f64();
    let after = args.server_pid.and_then(proc_usage);
    let db_after = args.db_pid.and_then(tree_cpu);
    let sqlite_after = args.server_pid.and_then(|p| threads_cpu(p, SQLITE_THREAD));
    for b in &bots {
        b.abort();
    }
    let hands = totals.hands.load(Ordering::Relaxed);
    let mut lat = totals.latencies.lock().unwrap().clone();
    lat.sort();
    let mut first = totals.first.lock().unwrap().clone();
    first.sort();
    let of = |lat: &[Duration], p: f64| {
        lat.get(((lat.len() as f64 * p) as usize).min(lat.len().saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    let pct = |p: f64| of(&lat, p);
    let (cpu_per_hand, rss) = match (before, after) {
        (Some((c0, _)), Some((c1, rss))) if hands > 0 => (
            Some((c1 - c0).as_secs_f64() * 1000.0 / hands as f64),
            Some(rss),
        ),
        _ => (None, None),
    };
    let db_per_hand = match (db_before, db_after) {
        (Some(d0), Some(d1)) if hands > 0 => {
            Some(d1.saturating_sub(d0).as_secs_f64() * 1000.0 / hands as f64)
        }
        _ => None,
    };
    let sqlite_per_hand = match (sqlite_before, sqlite_after) {
        (Some(s0), Some(s1)) if hands > 0 && s1 > Duration::ZERO => {
            Some(s1.saturating_sub(s0).as_secs_f64() * 1000.0 / hands as f64)
        }
        _ => None,
    };
    println!(
        "{} tables, {} pace, {:.0} s: {:.1} hands/s, {:.0} actions/s; round trip p50 {:.2} ms, p99 {:.2} ms; {} reconnects; server {}",
        args.tables,
        if args.human { "human" } else { "full" },
        elapsed,
        hands as f64 / elapsed,
        totals.actions.load(Ordering::Relaxed) as f64 / elapsed,
        pct(0.5),
        pct(0.99),
        totals.reconnects.load(Ordering::Relaxed),
        match (cpu_per_hand, rss) {
            (Some(c), Some(r)) => format!("{c:.3} ms CPU per hand, {r} kB resident"),
            _ => "not measured (--server-pid)".into(),
        }
    );
    if let Some(db) = db_per_hand {
        println!("database processes: {db:.3} ms CPU per hand");
    }
    if let Some(sqlite) = sqlite_per_hand {
        println!("of the server's, SQLite's threads: {sqlite:.3} ms CPU per hand");
    }
    println!(
        "first actions (each bot's first): {} of {} bots, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        first.len(),
        bots.len(),
        of(&first, 0.5),
        of(&first, 0.99),
        of(&first, 1.0)
    );
    println!(
        "{}",
        json!({
            "tables": args.tables, "pace": if args.human { "human" } else { "full" },
            "hands_per_sec": hands as f64 / elapsed, "p50_ms": pct(0.5), "p99_ms": pct(0.99),
            "first_p50_ms": of(&first, 0.5), "first_p99_ms": of(&first, 0.99),
            "first_count": first.len(),
            "server_cpu_ms_per_hand": cpu_per_hand, "server_rss_kb": rss,
            "server_cpu_share": match (before, after) {
                (Some((c0, _)), Some((c1, _))) => Some((c1 - c0).as_secs_f64() / elapsed),
                _ => None,
            },
            "db_cpu_ms_per_hand": db_per_hand,
            "sqlite_threads_cpu_ms_per_hand": sqlite_per_hand,
        })
    );
    Ok(())
}

/// Makes one table and its six players (each funded and logged in).
async fn make_table(
    http: &reqwest::Client,
    args: &Args,
    run: &str,
    t: usize,
    rules: &serde_json::Value,
    clock: &serde_json::Value,
) -> anyhow::Result<Made> {
    let admin = |req: reqwest::RequestBuilder| req.bearer_auth(&args.admin_token);
    let table_id = create_table(http, args, &format!("Load {run} #{t}"), rules, clock).await?;
    let mut tokens = Vec::new();
    for seat in 0..6u32 {
        let name = format!("load{run}t{t}s{seat}");
        let password = format!("pw-{run}-{t}-{seat}");
        let player = post_json(
            admin(http.post(format!("{}/admin/players", args.url))),
            json!({ "name": name, "password": password }),
        )
        .await?;
        let id = player["player_id"].as_str().unwrap_or_default();
        admin(http.post(format!("{}/admin/players/{id}/deposit", args.url)))
            .json(&json!({ "amount": 1_000_000, "idempotency_key": format!("load-{run}-{t}-{seat}") }))
            .send()
            .await?
            .error_for_status()?;
        tokens.push(login(http, args, &name, &password).await?);
    }
    Ok(Made { table_id, tokens })
}

async fn create_table(
    http: &reqwest::Client,
    args: &Args,
    name: &str,
    rules: &serde_json::Value,
    clock: &serde_json::Value,
) -> anyhow::Result<TableId> {
    let table = post_json(
        http.post(format!("{}/admin/tables", args.url))
            .bearer_auth(&args.admin_token),
        json!({ "name": name, "rules": rules, "clock": clock }),
    )
    .await?;
    table["table_id"]
        .as_str()
        .ok_or_else(|| anyhow::anyhow!("no table id: {table}"))?
        .parse()
        .map_err(|_| anyhow::anyhow!("a table id"))
}

async fn login(
    http: &reqwest::Client,
    args: &Args,
    name: &str,
    password: &str,
) -> anyhow::Result<String> {
    let login = post_json(
        http.post(format!("{}/login", args.url)),
        json!({ "name": name, "password": password }),
    )
    .await?;
    Ok(login["token"].as_str().unwrap_or_default().to_string())
}

/// Posts a JSON body and reads the JSON answer; an error status is an error.
async fn post_json(
    request: reqwest::RequestBuilder,
    body: serde_json::Value,
) -> anyhow::Result<serde_json::Value> {
    Ok(request
        .json(&body)
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?)
}

/// Memory at rest: idle tables, then six idle connections per table.
async fn idle(
    args: &Args,
    http: &reqwest::Client,
    ws_url: &str,
    run: &str,
    rules: &serde_json::Value,
    clock: &serde_json::Value,
) -> anyhow::Result<()> {
    let pid = args
        .server_pid
        .ok_or_else(|| anyhow::anyhow!("--pace idle needs --server-pid"))?;
    let rss = || proc_usage(pid).map(|(_, rss)| rss).unwrap_or(0);
    let settle = || tokio::time::sleep(Duration::from_secs(2));
    settle().await;
    let before = rss();
    futures_util::stream::iter(0..args.tables)
        .map(|t| async move {
            create_table(http, args, &format!("Idle {run} #{t}"), rules, clock).await
        })
        .buffer_unordered(8)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<anyhow::Result<Vec<_>>>()?;
    settle().await;
    let with_tables = rss();
    // One account for every connection: idle connections cost the same whoever they are.
    let name = format!("idle{run}");
    let password = format!("pw-{run}");
    post_json(
        http.post(format!("{}/admin/players", args.url))
            .bearer_auth(&args.admin_token),
        json!({ "name": name, "password": password }),
    )
    .await?;
    let token = login(http, args, &name, &password).await?;
    let connections = args.tables * 6;
    let mut sockets = Vec::new();
    for _ in 0..connections {
        let (mut ws, _) = tokio_tungstenite::connect_async(ws_url).await?;
        let auth = ClientMsg::Auth {
            token: token.clone(),
        };
        ws.send(Message::Text(serde_json::to_string(&auth)?.into()))
            .await?;
        // The welcome: the server has taken the connection in.
        ws.next().await;
        sockets.push(ws);
    }
    settle().await;
    let with_connections = rss();
    let per_table = with_tables.saturating_sub(before) as f64 / args.tables as f64;
    let per_connection = with_connections.saturating_sub(with_tables) as f64 / connections as f64;
    println!(
        "{} idle tables: {per_table:.1} kB each; {connections} idle connections: {per_connection:.1} kB each; server {with_connections} kB resident ({before} kB before)",
        args.tables
    );
    println!(
        "{}",
        json!({
            "tables": args.tables, "pace": "idle", "connections": connections,
            "idle_table_kb": per_table, "idle_connection_kb": per_connection,
            "server_rss_kb": with_connections,
        })
    );
    drop(sockets);
    Ok(())
}

/// The loopback address bot `n` connects from when `sources` (above 1) are spread over
/// and the server listens on 127.0.0.1; `None`: the system's choice.
fn source_address(ws_url: &str, sources: u8, n: usize) -> Option<std::net::Ipv4Addr> {
    let server: std::net::SocketAddr = ws_url
        .strip_prefix("ws://")?
        .split('/')
        .next()?
        .parse()
        .ok()?;
    (sources > 1 && server.ip() == std::net::Ipv4Addr::LOCALHOST)
        .then(|| std::net::Ipv4Addr::new(127, 0, 0, 2 + (n % usize::from(sources)) as u8))
}

/// A bot's WebSocket, from `source` if given (bound before connecting), without Nagle's
/// delay either way.
async fn connect_from(
    url: &str,
    source: Option<std::net::Ipv4Addr>,
    config: tokio_tungstenite::tungstenite::protocol::WebSocketConfig,
) -> anyhow::Result<
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
> {
    let Some(source) = source else {
        let (ws, _) = tokio_tungstenite::connect_async_with_config(url, Some(config), true).await?;
        return Ok(ws);
    };
    let server: std::net::SocketAddr = url
        .strip_prefix("ws://")
        .and_then(|rest| rest.split('/').next())
        .and_then(|host| host.parse().ok())
        .ok_or_else(|| anyhow::anyhow!("not a ws:// URL with an address: {url}"))?;
    let socket = tokio::net::TcpSocket::new_v4()?;
    socket.bind(std::net::SocketAddr::new(source.into(), 0))?;
    let stream = socket.connect(server).await?;
    stream.set_nodelay(true)?;
    let (ws, _) = tokio_tungstenite::client_async_with_config(
        url,
        tokio_tungstenite::MaybeTlsStream::Plain(stream),
        Some(config),
    )
    .await?;
    Ok(ws)
}

/// One bot: sits (or resumes its seat after a reconnect), answers every decision (mostly
/// calls and checks, some raises and folds), timing each action until the event that
/// applies it comes back; now and then drops its connection and comes back.
async fn bot(
    (url, source): (String, Option<std::net::Ipv4Addr>),
    token: String,
    table_id: TableId,
    seat: u32,
    human: bool,
    totals: Arc<Totals>,
) -> anyhow::Result<()> {
    let mut rng = rand::rngs::StdRng::from_entropy();
    let mut first = true;
    // The seed committed for the next hand (its hand and the seed), until revealed; kept
    // across a dropped connection.
    let mut seeded: Option<(poker_protocol::HandId, poker_protocol::Seed)> = None;
    // Until the first action this bot sends has come back applied.
    let mut first_action = true;
    loop {
        // A small read buffer: the default 128 KiB one is zero-filled on every read.
        let config = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
            .read_buffer_size(4096);
        let mut ws = connect_from(&url, source, config).await?;
        let send = |m: &ClientMsg| Message::Text(serde_json::to_string(m).unwrap().into());
        ws.send(send(&ClientMsg::Auth {
            token: token.clone(),
        }))
        .await?;
        // Watched first: the snapshot names the next deck, and the `sit` carries the
        // commitment to a seed for it, as the page's does (docs/fairness.md).
        ws.send(send(&ClientMsg::Watch { table_id })).await?;
        // At a human pace, one bot in twenty drops its connection after a while.
        let drop_at = (human && rng.gen_bool(0.05))
            .then(|| Instant::now() + Duration::from_secs(rng.gen_range(5..30)));
        let mut sent: Option<Instant> = None;
        while let Some(frame) = ws.next().await {
            if drop_at.is_some_and(|t| Instant::now() > t) {
                totals.reconnects.fetch_add(1, Ordering::Relaxed);
                break;
            }
            let Message::Text(text) = frame? else {
                continue;
            };
            let msg = serde_json::from_str::<ServerMsg>(&text)?;
            if let ServerMsg::Snapshot {
                next_deck: Some(deck),
                seeds_closed,
                ..
            } = &msg
            {
                let fresh = seeded.is_none_or(|(h, _)| h != deck.hand_id);
                if fresh {
                    let seed = poker_protocol::Seed::from_bytes(rng.gen());
                    seeded = Some((deck.hand_id, seed));
                }
                let (hand_id, seed) = seeded.expect("just set");
                let commit = poker_protocol::SitSeed {
                    hand_id,
                    commitment: poker_protocol::seed_commitment(&deck.commitment, &seed),
                };
                if first {
                    first = false;
                    ws.send(send(&ClientMsg::Sit {
                        table_id,
                        seat,
                        buy_in: 200,
                        post_now: true,
                        seed_commit: Some(commit),
                    }))
                    .await?;
                } else if fresh {
                    ws.send(send(&ClientMsg::SeedCommit {
                        table_id,
                        hand_id,
                        commitment: commit.commitment,
                    }))
                    .await?;
                }
                if let Some(list) = seeds_closed {
                    if list.iter().any(|e| e.commitment == commit.commitment) {
                        ws.send(send(&ClientMsg::Seed {
                            table_id,
                            hand_id,
                            seed,
                        }))
                        .await?;
                    }
                }
            }
            let (decision, legal) = match msg {
                ServerMsg::Decide {
                    decision_id, legal, ..
                } => (decision_id, legal),
                ServerMsg::Snapshot {
                    decide: Some(d), ..
                } => match *d {
                    ServerMsg::Decide {
                        decision_id, legal, ..
                    } => (decision_id, legal),
                    _ => continue,
                },
                ServerMsg::Event { event, seats, .. } => {
                    let mine = |p: &usize| seats.get(*p) == Some(&seat);
                    let applied = match &event {
                        Event::Folded { player }
                        | Event::Checked { player }
                        | Event::Called { player, .. }
                        | Event::BetTo { player, .. } => mine(player),
                        _ => false,
                    };
                    if applied {
                        if let Some(t) = sent.take() {
                            if first_action {
                                totals.first.lock().unwrap().push(t.elapsed());
                                first_action = false;
                            }
                            if totals.counting.load(Ordering::Relaxed) {
                                totals.latencies.lock().unwrap().push(t.elapsed());
                                totals.actions.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    }
                    if matches!(event, Event::HandEnded { .. })
                        && seats.iter().min() == Some(&seat)
                        && totals.counting.load(Ordering::Relaxed)
                    {
                        totals.hands.fetch_add(1, Ordering::Relaxed);
                    }
                    continue;
                }
                // Every seated client commits to a seed for the next hand's deck, and
                // reveals it once the table closes the list (docs/fairness.md).
                ServerMsg::DeckCommitted { commitment, .. } => {
                    let seed = poker_protocol::Seed::from_bytes(rng.gen());
                    seeded = Some((commitment.hand_id, seed));
                    ws.send(send(&ClientMsg::SeedCommit {
                        table_id,
                        hand_id: commitment.hand_id,
                        commitment: poker_protocol::seed_commitment(&commitment.commitment, &seed),
                    }))
                    .await?;
                    continue;
                }
                ServerMsg::SeedsClosed { hand_id, .. } => {
                    if let Some((h, seed)) = seeded.take().filter(|(h, _)| *h == hand_id) {
                        ws.send(send(&ClientMsg::Seed {
                            table_id,
                            hand_id: h,
                            seed,
                        }))
                        .await?;
                    }
                    continue;
                }
                // Busted: buy back in.
                ServerMsg::Seats { table }
                    if table
                        .seats
                        .iter()
                        .any(|s| s.seat == seat && s.stack == 0 && s.pending_top_up == 0) =>
                {
                    ws.send(send(&ClientMsg::TopUp {
                        table_id,
                        amount: 200,
                    }))
                    .await?;
                    continue;
                }
                _ => continue,
            };
            if human {
                tokio::time::sleep(Duration::from_millis(rng.gen_range(1000..3000))).await;
            }
            let roll: f64 = rng.gen();
            let action = match legal.bet_or_raise {
                Some((min, _)) if roll < 0.1 => Action::BetOrRaiseTo { to: min },
                _ if roll < 0.2 && legal.call.is_some() => Action::Fold,
                _ if legal.call.is_some() => Action::Call,
                _ => Action::Check,
            };
            sent = Some(Instant::now());
            ws.send(send(&ClientMsg::Act {
                table_id,
                decision_id: decision,
                action,
            }))
            .await?;
        }
        let _ = ws.close(None).await;
    }
}
