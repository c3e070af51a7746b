//! How long after a hand's last action its result reaches a subscriber: a table's actor
//! on a real store (a SQLite file, or a throwaway PostgreSQL with fsync on), two players
//! and a spectator; each hand ends on the first decision (a fold), and the time from
//! sending that fold to the spectator's receiving `hand_ended` is measured. Since issue 25
//! a hand's result waits for its commit, so this is the commit's latency (group commit,
//! synchronous) plus the actor's own step; before, the result went out with the action.
//!
//! ```sh
//! cargo run --release -p poker-server --example result_latency -- [HANDS] [--postgres]
//! ```

use poker_protocol::ServerMsg;
use poker_rules::table::{AnteRule, ButtonRule, Entry, MissedBlindRule, TableRules};
use poker_rules::{Action, Event, Game, Stakes, Structure};
use poker_server::lobby::Lobby;
use poker_server::metrics::Metrics;
use poker_server::table::{self as table_actor, ClockRules, TableContext, TableSpec};
use poker_store::testing::{TestPostgres, TestSqlite};
use poker_store::{Persister, SqlStore};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn rules() -> TableRules {
    TableRules {
        game: Game::Holdem,
        structure: Structure::NoLimit,
        stakes: Stakes {
            min_bet: 2,
            ..Stakes::default()
        },
        max_raises: None,
        uncapped_heads_up: false,
        seat_count: 6,
        small_blind: 1,
        big_blind: 2,
        ante: AnteRule::None,
        button: ButtonRule::Dead,
        missed_blinds: MissedBlindRule::DeadSmallLiveBig,
        min_buy_in: 40,
        max_buy_in: 200,
        rathole_secs: 3600,
        max_missed_big_blinds: 10,
        kill: None,
        rock: false,
        straddle: false,
        options: Default::default(),
        bomb_pot: None,
        dealers_choice: Vec::new(),
    }
}

/// The `q` quantile of sorted milliseconds.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let postgres = args.iter().any(|a| a == "--postgres");
    let hands: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(200);
    // Kept alive to the end: dropping them removes the database.
    let (_pg, _sqlite, url) = if postgres {
        let pg = TestPostgres::start(true).await?;
        let url = pg.url.clone();
        (Some(pg), None, url)
    } else {
        let sqlite = TestSqlite::new();
        let url = sqlite.url.clone();
        (None, Some(sqlite), url)
    };
    let store = Arc::new(SqlStore::connect(&url).await?);
    let (a, b) = (
        store.create_player("ann", "x").await?,
        store.create_player("ben", "x").await?,
    );
    for p in [a, b] {
        store.deposit(p, 100_000, None).await?;
    }
    let table_id = store.create_table("NL 1/2", "{}").await?;
    let spec = TableSpec {
        rules: rules(),
        clock: ClockRules {
            between_hands_ms: 0,
            ..ClockRules::default()
        },
        chat: Default::default(),
        rabbit_hunt: false,
        private: None,
    };
    let context = TableContext {
        store: store.clone(),
        persister: Persister::spawn(store.clone(), 64),
        lobby: Arc::new(Lobby::default()),
        metrics: Arc::new(Metrics::default()),
        fence: None,
        lease: None,
        coalesce: Duration::ZERO,
        same_address: poker_server::fairplay::SameAddressSeating::Allow,
        clock: poker_server::room_clock::RoomClock::default(),
        play_money: false,
    };
    let table = table_actor::spawn(table_id, "NL 1/2".into(), spec, context).await?;
    let mut rx_a = table.subscribe(Some(a), 4096).await;
    let mut rx_b = table.subscribe(Some(b), 4096).await;
    let mut spectator = table.subscribe(None, 4096).await;
    for (seat, p) in [a, b].into_iter().enumerate() {
        table
            .sit(p, format!("p{seat}"), seat as u32, 200, Entry::PostNow)
            .await
            .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    }
    let mut ms = Vec::with_capacity(hands);
    while ms.len() < hands {
        // The first decision of the hand, whoever is asked.
        let (me, decision_id) = loop {
            let (msg, me) = tokio::select! {
                m = rx_a.recv() => (m, a),
                m = rx_b.recv() => (m, b),
            };
            match msg {
                Some(ServerMsg::Decide { decision_id, .. }) => break (me, decision_id),
                Some(_) => continue,
                None => anyhow::bail!("the table stopped"),
            }
        };
        let sent = Instant::now();
        table
            .act(me, decision_id, Action::Fold)
            .await
            .map_err(|e| anyhow::anyhow!("{e:?}"))?;
        loop {
            match spectator.recv().await {
                Some(ServerMsg::Event {
                    event: Event::HandEnded { .. },
                    ..
                }) => break,
                Some(_) => continue,
                None => anyhow::bail!("the table stopped"),
            }
        }
        ms.push(sent.elapsed().as_secs_f64() * 1000.0);
    }
    ms.sort_by(f64::total_cmp);
    let mean = ms.iter().sum::<f64>() / ms.len() as f64;
    println!(
        "{} hands on {}: last action to result at a spectator, ms: mean {mean:.2}, p50 {:.2}, \
         p90 {:.2}, p99 {:.2}, max {:.2}",
        ms.len(),
        if postgres {
            "PostgreSQL (fsync on)"
        } else {
            "SQLite (synchronous = full)"
        },
        quantile(&ms, 0.5),
        quantile(&ms, 0.9),
        quantile(&ms, 0.99),
        ms[ms.len() - 1],
    );
    let audit = store.audit().await?;
    anyhow::ensure!(audit.holds(), "the books do not balance: {audit:?}");
    anyhow::ensure!(
        audit.wallets + audit.stacks + audit.rake == 200_000,
        "chips were not conserved: {audit:?}"
    );
    Ok(())
}
