//! Measures a player's own hand export (`GET /api/me/hands/{id}`, PokerStars text) in a
//! room of many accounts: exports per second one after another and 8 at a time, and
//! `/api/me`'s time for another player meanwhile. Before, an export read every account
//! to name its players (333 ms with 100,000); now it reads its hand's players only.
//!
//! ```sh
//! cargo run --release -p poker-server --example exports            # 100,000 accounts
//! ACCOUNTS=10000 SECS=5 cargo run --release -p poker-server --example exports
//! ```
//!
//! SQLite in a temporary folder (or `DATABASE_URL`, an empty PostgreSQL database).

use poker_store::SqlStore;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

const TOKEN: &str = "example-admin-token-0123456789abcdef";

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let accounts = env_or("ACCOUNTS", 100_000);
    let secs = env_or("SECS", 10);
    let dir = tempfile::tempdir()?;
    let url = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| format!("sqlite://{}", dir.path().join("poker.db").display()));

    // The accounts, in one transaction (the hash is a stand-in: nobody logs in to them).
    let store = SqlStore::connect(&url).await?;
    let raw = sqlx::AnyPool::connect(&url).await?;
    let mark = |sql: &str| {
        if url.starts_with("sqlite") {
            sql.replace('$', "?")
        } else {
            sql.to_string()
        }
    };
    let started = Instant::now();
    let mut tx = raw.begin().await?;
    for i in 0..accounts {
        let name = format!("account{i}");
        sqlx::query(&mark(
            "insert into player (player_id, name, name_key, password_hash, created_at) \
             values ($1, $2, $3, 'x', 0)",
        ))
        .bind(poker_store::PlayerId::new().to_string())
        .bind(&name)
        .bind(poker_store::names::name_key(&name))
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    raw.close().await;
    println!(
        "{accounts} accounts made in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let all = store.players().await?.len();
    println!(
        "reading every account (what an export did before): {all} in {:.0} ms",
        t.elapsed().as_secs_f64() * 1000.0
    );

    // The server, two players and a hand they played.
    let env: Vec<(String, String)> = [
        ("DATABASE_URL", url.as_str()),
        ("POKER__ADMIN__TOKEN", TOKEN),
        ("POKER__ROOM__MONEY", "real"),
        ("POKER__LOG__LEVEL", "warn"),
        ("POKER__SERVER__API_RATE_PER_SEC", "1000000"),
        ("POKER__SERVER__API_RATE_BURST", "1000000"),
        ("POKER__SERVER__API_ADDRESS_RATE_PER_SEC", "1000000"),
        ("POKER__SERVER__API_ADDRESS_RATE_BURST", "1000000"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let config = poker_server::Config::from_layers(None, &env)?;
    poker_server::logging::init(&config.log)?;
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
    let http = reqwest::Client::new();
    loop {
        if http.get(format!("{base}/healthz")).send().await.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let admin = |path: &str, body: Value| {
        http.post(format!("{base}{path}"))
            .bearer_auth(TOKEN)
            .json(&body)
            .send()
    };
    let table: Value = admin(
        "/admin/tables",
        json!({ "name": "Export", "rules": {
            "game": "holdem", "structure": "no_limit", "stakes": { "min_bet": 2 },
            "max_raises": null, "uncapped_heads_up": false, "seat_count": 6,
            "small_blind": 1, "big_blind": 2, "ante": { "kind": "none" }, "button": "dead",
            "missed_blinds": "dead_small_live_big", "min_buy_in": 40, "max_buy_in": 200,
            "rathole_secs": 3600, "max_missed_big_blinds": 10, "kill": null, "rock": false },
          "clock": { "action_ms": 10000, "warning_ms": 0, "time_bank_ms": 0,
            "max_timeouts": 0, "between_hands_ms": 0 } }),
    )
    .await?
    .json()
    .await?;
    let table_id: poker_protocol::TableId = table["table_id"]
        .as_str()
        .ok_or_else(|| anyhow::anyhow!("no table: {table}"))?
        .parse()?;
    let mut tokens = Vec::new();
    for name in ["exporter", "opponent", "bystander"] {
        let p: Value = admin(
            "/admin/players",
            json!({ "name": name, "password": "password1" }),
        )
        .await?
        .json()
        .await?;
        let id = p["player_id"].as_str().unwrap_or_default().to_string();
        admin(
            &format!("/admin/players/{id}/deposit"),
            json!({ "amount": 1000 }),
        )
        .await?;
        let login: Value = http
            .post(format!("{base}/login"))
            .json(&json!({ "name": name, "password": "password1" }))
            .send()
            .await?
            .json()
            .await?;
        tokens.push(login["token"].as_str().unwrap_or_default().to_string());
    }
    let (leave, left) = tokio::sync::watch::channel(false);
    let mut bots = Vec::new();
    for (seat, token) in tokens.iter().take(2).enumerate() {
        let plan = poker_bots::client::BotPlan {
            url: format!("ws://{addr}/ws"),
            token: token.clone(),
            table_id,
            sit: Some((seat as u32, 200)),
            think: Duration::from_millis(1),
            seed: seat as u64,
        };
        bots.push(tokio::spawn(poker_bots::client::run(plan, left.clone())));
    }
    let hand = loop {
        let hands: Value = http
            .get(format!("{base}/api/me/hands?limit=1"))
            .bearer_auth(&tokens[0])
            .send()
            .await?
            .json()
            .await?;
        if let Some(id) = hands[0]["hand_id"].as_str() {
            break id.to_string();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let _ = leave.send(true);
    for bot in bots {
        let _ = bot.await;
    }

    // Exports, one after another.
    let export = format!("{base}/api/me/hands/{hand}");
    let client = Arc::new(reqwest::Client::new());
    let t = Instant::now();
    let mut n = 0u64;
    while t.elapsed() < Duration::from_secs(secs) {
        let r = client.get(&export).bearer_auth(&tokens[0]).send().await?;
        anyhow::ensure!(r.status() == 200, "export: {}", r.status());
        r.bytes().await?;
        n += 1;
    }
    let serial = n as f64 / t.elapsed().as_secs_f64();
    println!("exports one at a time: {serial:.0}/s ({n} in {secs} s)");

    // Eight at a time, while another player asks for /api/me.
    let t = Instant::now();
    let mut workers = Vec::new();
    for _ in 0..8 {
        let client = client.clone();
        let export = export.clone();
        let token = tokens[0].clone();
        workers.push(tokio::spawn(async move {
            let mut n = 0u64;
            while t.elapsed() < Duration::from_secs(secs) {
                let r = client.get(&export).bearer_auth(&token).send().await;
                if let Ok(r) = r {
                    let _ = r.bytes().await;
                    n += 1;
                }
            }
            n
        }));
    }
    let mut me_ms = Vec::new();
    while t.elapsed() < Duration::from_secs(secs) {
        let s = Instant::now();
        client
            .get(format!("{base}/api/me"))
            .bearer_auth(&tokens[2])
            .send()
            .await?
            .bytes()
            .await?;
        me_ms.push(s.elapsed().as_secs_f64() * 1000.0);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut total = 0;
    for w in workers {
        total += w.await?;
    }
    me_ms.sort_by(f64::total_cmp);
    let p = |q: f64| me_ms[((me_ms.len() - 1) as f64 * q) as usize];
    println!(
        "exports 8 at a time: {:.0}/s; another player's /api/me meanwhile: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        total as f64 / t.elapsed().as_secs_f64(),
        p(0.5),
        p(0.99),
        p(1.0)
    );
    let _ = stop.send(());
    server.await??;
    store.close().await;
    Ok(())
}
