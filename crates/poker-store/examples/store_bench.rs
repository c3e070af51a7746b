//! Store benchmark: `cargo run --release -p poker-store --example store_bench`.
//!
//! Many tables commit realistic 6-max hand records (real PHH text of hands played by the
//! rules engine, a JSON record, six stack changes, rake) through the batching persister,
//! each table waiting for its hand to be durable before the next, as the server does. On
//! SQLite (a file) and on PostgreSQL (a throwaway cluster with fsync and synchronous
//! commit on, or `DATABASE_URL`). One JSON line per backend; the last is Postgres:
//! `{"backend":"postgres","hands_per_sec":...}`.

use poker_history::phh;
use poker_rules::{
    Action, CardSource, Decision, DeckKind, Game, Hand, HandConfig, SeatConfig, Stakes, Structure,
};
use poker_store::testing::{TestPostgres, TestSqlite};
use poker_store::{CompletedHand, HandId, HandPlayer, Persister, PlayerId, SqlStore, TableId};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::sync::Arc;
use std::time::Instant;

/// Real PHH texts of random 6-max no-limit hands.
fn phh_pool(n: usize) -> Vec<String> {
    let mut rng = SmallRng::seed_from_u64(1);
    let config = HandConfig::new(
        Game::Holdem,
        Structure::NoLimit,
        Stakes {
            min_bet: 2,
            ..Stakes::default()
        },
        (0..6)
            .map(|i| SeatConfig {
                stack: 200,
                blind: [1, 2, 0, 0, 0, 0][i],
                ..SeatConfig::default()
            })
            .collect(),
    );
    (0..n)
        .map(|_| {
            let mut deck = DeckKind::Standard.cards();
            deck.shuffle(&mut rng);
            let (mut hand, mut events) =
                Hand::new(config.clone(), CardSource::Deck(deck)).expect("valid");
            while let Some(p) = hand.to_act() {
                let action = match hand.decision().expect("decision") {
                    Decision::Bet(l) => match (l.bet_or_raise, l.call, rng.gen_range(0..10)) {
                        (Some((min, _)), _, 0) => Action::BetOrRaiseTo { to: min },
                        (_, Some(_), 1..=3) => Action::Fold,
                        (_, Some(_), _) => Action::Call,
                        _ => Action::Check,
                    },
                    _ => Action::Show { cards: None },
                };
                events.extend(hand.apply(p, action).expect("legal"));
            }
            let stacks = hand.final_stacks().expect("complete");
            phh::write(&config, &events, Some(&stacks))
                .expect("NT has a PHH code")
                .to_toml()
        })
        .collect()
}

async fn run(
    backend: &str,
    url: &str,
    tables: usize,
    hands_per_table: usize,
) -> anyhow::Result<f64> {
    let store = Arc::new(SqlStore::connect(url).await?);
    let pool = Arc::new(phh_pool(500));
    // Seat six players at every table.
    let mut setup = Vec::new();
    for t in 0..tables {
        let table = store.create_table(&format!("bench-{t}"), "{}").await?;
        let mut players = Vec::new();
        for s in 0..6u32 {
            let p = store
                .create_player(&format!("{backend}-{t}-{s}"), "not-a-real-hash")
                .await?;
            store.deposit(p, 10_000, None).await?;
            store.buy_in(table, s, p, 10_000, None, None).await?;
            players.push(p);
        }
        setup.push((table, players));
    }
    let persister = Persister::spawn(store.clone(), 1024);
    let start = Instant::now();
    let mut tasks = Vec::new();
    for (i, (table, players)) in setup.into_iter().enumerate() {
        let persister = persister.clone();
        let pool = pool.clone();
        tasks.push(tokio::spawn(async move {
            let mut rng = SmallRng::seed_from_u64(i as u64);
            let mut stacks = [10_000u64; 6];
            for n in 1..=hands_per_table as u64 {
                let hand = realistic_hand(&mut rng, table, &players, &mut stacks, n, &pool);
                persister.commit(hand).await.expect("durable");
            }
        }));
    }
    for t in tasks {
        t.await?;
    }
    let rate = (tables * hands_per_table) as f64 / start.elapsed().as_secs_f64();
    let audit = store.audit().await?;
    anyhow::ensure!(audit.holds(), "the ledger invariant broke: {audit:?}");
    store.close().await;
    Ok(rate)
}

fn realistic_hand(
    rng: &mut SmallRng,
    table: TableId,
    players: &[PlayerId],
    stacks: &mut [u64; 6],
    number: u64,
    pool: &[String],
) -> CompletedHand {
    let before = *stacks;
    // A pot from a few players to one winner, 5% rake up to 3.
    let winner = rng.gen_range(0..6);
    let mut pot = 0;
    for (i, s) in stacks.iter_mut().enumerate() {
        if i != winner && rng.gen_bool(0.5) {
            let put = rng.gen_range(0..=(*s).min(50));
            *s -= put;
            pot += put;
        }
    }
    let rake = (pot / 20).min(3);
    stacks[winner] += pot - rake;
    CompletedHand {
        hand_id: HandId::new(),
        table_id: table,
        number,
        players: (0..6)
            .map(|i| HandPlayer {
                player_id: players[i],
                seat_no: i as u32,
                starting_stack: before[i],
                finishing_stack: stacks[i],
            })
            .collect(),
        rake,
        phh: pool[rng.gen_range(0..pool.len())].clone(),
        record: poker_store::HandRecord {
            board: "Ah7d2c9sKh".into(),
            button: 5,
            seats: (0..6).collect(),
            seat_players: players.to_vec(),
            seat_count: 6,
            posts: Vec::new(),
            starting_stacks: before.to_vec(),
            finishing_stacks: stacks.to_vec(),
            deck: None,
            folds: Some(Vec::new()),
        },
        started_at: poker_store::now_ms(),
        ended_at: poker_store::now_ms(),
        fence: None,
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let tables: usize = std::env::var("BENCH_TABLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let hands: usize = std::env::var("BENCH_HANDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let only_pg = std::env::var("BENCH_BACKEND").is_ok_and(|b| b == "postgres");
    let sqlite = TestSqlite::new();
    let rate = if only_pg {
        0.0
    } else {
        run("sqlite", &sqlite.url, tables, hands).await?
    };
    println!(
        "{{\"backend\":\"sqlite\",\"hands_per_sec\":{rate:.0},\"tables\":{tables},\"hands\":{}}}",
        tables * hands
    );
    let pg = TestPostgres::start(true).await?;
    let rate = run("postgres", &pg.url, tables, hands).await?;
    println!(
        "{{\"backend\":\"postgres\",\"hands_per_sec\":{rate:.0},\"tables\":{tables},\"hands\":{}}}",
        tables * hands
    );
    Ok(())
}
