//! A load test of the whole server: `pokerd` in-process on port 0, and bots playing over
//! real WebSockets, six to a table, every hand committed to the database.
//!
//! `cargo run --release -p poker-server --example load`
//!
//! Settings (environment): `LOAD_TABLES` (default 40), `LOAD_SECS` (default 15),
//! `LOAD_DB` = `sqlite` (default, a temporary file) or `postgres` (`DATABASE_URL`, else a
//! throwaway cluster). It prints hands and actions per second, and the latency from a
//! bot sending its action to the bot receiving the event that applies it (a full round
//! trip through the gateway, the table actor and back), as percentiles; the last line is
//! JSON.

use futures_util::{SinkExt, StreamExt};
use poker_protocol::{ClientMsg, ServerMsg};
use poker_rules::{Action, Event};
use poker_store::testing::{TestPostgres, TestSqlite};
use poker_store::{SqlStore, Store};
use rand::{Rng, SeedableRng};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

struct Totals {
    hands: AtomicU64,
    actions: AtomicU64,
    counting: AtomicBool,
    latencies: Mutex<Vec<Duration>>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let tables = env("LOAD_TABLES", 40) as usize;
    let secs = env("LOAD_SECS", 15);
    let backend = std::env::var("LOAD_DB").unwrap_or_else(|_| "sqlite".into());
    let (_sqlite, _postgres, url) = match backend.as_str() {
        "postgres" => match std::env::var("DATABASE_URL") {
            Ok(url) => (None, None, url),
            Err(_) => {
                let pg = TestPostgres::start(true).await?;
                let url = pg.url.clone();
                (None, Some(pg), url)
            }
        },
        _ => {
            let db = TestSqlite::new();
            let url = db.url.clone();
            (Some(db), None, url)
        }
    };
    let config = poker_server::Config::from_layers(
        None,
        &[
            ("DATABASE_URL".into(), url.clone()),
            ("POKER__ADMIN__TOKEN".into(), "load".into()),
            ("POKER__SERVER__RATE_LIMIT_PER_SEC".into(), "1000".into()),
            ("POKER__SERVER__RATE_LIMIT_BURST".into(), "1000".into()),
            ("POKER__SERVER__SHUTDOWN_GRACE_MS".into(), "2000".into()),
        ],
    )?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(poker_server::run(
        listener,
        async {
            let _ = stopped.await;
        },
        config,
    ));
    let base = format!("http://{addr}");
    while reqwest::get(format!("{base}/healthz")).await.is_err() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Players and sessions straight into the store (no password hashing to wait for).
    let store = SqlStore::connect(&url).await?;
    let http = reqwest::Client::new();
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
        counting: AtomicBool::new(false),
        latencies: Mutex::new(Vec::new()),
    });
    let mut bots = Vec::new();
    for t in 0..tables {
        let table: serde_json::Value = http
            .post(format!("{base}/admin/tables"))
            .bearer_auth("load")
            .json(&json!({ "name": format!("T{t}"), "rules": rules, "clock": clock }))
            .send()
            .await?
            .json()
            .await?;
        let table_id = table["table_id"]
            .as_str()
            .unwrap()
            .parse::<poker_protocol::TableId>()
            .unwrap();
        for seat in 0..6u32 {
            let player = store.create_player(&format!("bot{t}_{seat}"), "-").await?;
            store.deposit(player, 1_000_000, None).await?;
            let token = format!("token-{t}-{seat}");
            let hash = format!("{:x}", Sha256::digest(token.as_bytes()));
            store
                .create_session(&hash, player, poker_store::now_ms() + 3_600_000)
                .await?;
            bots.push(tokio::spawn(bot(
                addr,
                token,
                table_id,
                seat,
                totals.clone(),
            )));
        }
    }
    eprintln!("load: {tables} tables, {} bots, warming up", tables * 6);
    tokio::time::sleep(Duration::from_secs(2)).await;
    totals.counting.store(true, Ordering::Relaxed);
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs(secs)).await;
    totals.counting.store(false, Ordering::Relaxed);
    let elapsed = started.elapsed().as_secs_f64();
    let hands = totals.hands.load(Ordering::Relaxed) as f64 / elapsed;
    let actions = totals.actions.load(Ordering::Relaxed) as f64 / elapsed;
    let mut lat = totals.latencies.lock().unwrap().clone();
    lat.sort();
    let pct = |p: f64| {
        lat.get(((lat.len() as f64 * p) as usize).min(lat.len().saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    let metrics = http
        .get(format!("{base}/metrics"))
        .send()
        .await?
        .text()
        .await?;
    for bot in &bots {
        bot.abort();
    }
    let _ = stop.send(());
    let _ = server.await;
    let audit = store.audit().await?;
    assert!(audit.holds(), "the books balance: {audit:?}");
    store.close().await;
    let persist = metrics
        .lines()
        .filter(|l| {
            l.starts_with("poker_persist_lag_seconds_sum")
                || l.starts_with("poker_persist_lag_seconds_count")
        })
        .map(|l| l.split_whitespace().last().unwrap().parse::<f64>().unwrap())
        .collect::<Vec<_>>();
    let persist_ms = if persist.len() == 2 && persist[1] > 0.0 {
        persist[0] / persist[1] * 1000.0
    } else {
        0.0
    };
    println!(
        "{tables} tables on {backend}: {hands:.0} hands/s, {actions:.0} actions/s; action round trip p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; mean persist lag {persist_ms:.2} ms",
        pct(0.5),
        pct(0.99),
        pct(1.0)
    );
    println!(
        "{}",
        json!({
            "backend": backend, "tables": tables, "hands_per_sec": hands.round(),
            "actions_per_sec": actions.round(), "p50_ms": pct(0.5), "p99_ms": pct(0.99),
            "persist_lag_ms": persist_ms,
        })
    );
    Ok(())
}

/// One bot: sits, then answers every decision (mostly calls and checks, some raises and
/// folds), timing each action until the event that applies it comes back.
async fn bot(
    addr: std::net::SocketAddr,
    token: String,
    table_id: poker_protocol::TableId,
    seat: u32,
    totals: Arc<Totals>,
) -> anyhow::Result<()> {
    // A small read buffer: the default 128 KiB one is zero-filled on every read.
    let config =
        tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default().read_buffer_size(4096);
    let (mut ws, _) =
        tokio_tungstenite::connect_async_with_config(format!("ws://{addr}/ws"), Some(config), true)
            .await?;
    let send = |m: &ClientMsg| Message::Text(serde_json::to_string(m).unwrap().into());
    ws.send(send(&ClientMsg::Auth { token })).await?;
    ws.send(send(&ClientMsg::Sit {
        table_id,
        seat,
        buy_in: 200,
        post_now: true,
    }))
    .await?;
    let mut sent: Option<Instant> = None;
    let mut rng = rand::rngs::StdRng::from_entropy();
    while let Some(frame) = ws.next().await {
        let Message::Text(text) = frame? else {
            continue;
        };
        match serde_json::from_str::<ServerMsg>(&text)? {
            ServerMsg::Decide {
                decision_id, legal, ..
            } => {
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
                    decision_id,
                    action,
                }))
                .await?;
            }
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
                        if totals.counting.load(Ordering::Relaxed) {
                            totals.latencies.lock().unwrap().push(t.elapsed());
                            totals.actions.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                if let Event::HandEnded { stacks } = &event {
                    if seats.iter().min() == Some(&seat) && totals.counting.load(Ordering::Relaxed)
                    {
                        totals.hands.fetch_add(1, Ordering::Relaxed);
                    }
                    let _ = stacks;
                }
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
            }
            _ => {}
        }
    }
    Ok(())
}
