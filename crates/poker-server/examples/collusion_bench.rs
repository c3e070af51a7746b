//! What the console's collusion report costs: `cargo run --release -p poker-server --example
//! collusion_bench`.
//!
//! Plays random six-max no-limit hold'em hands through the rules engine at 20 tables whose
//! 60 players overlap (each pair meets at a few tables), commits them with their PHH and
//! record as the server does (the record carrying its folds, as the table works them out),
//! then builds the report as `GET /admin/fair-play/pairs` does: reads the window's hands
//! from the store (`SqlStore::fair_play_hands`) and adds them up (`fairplay::report::Report`).
//! Then the same for records written before the folds were kept, which are replayed from
//! their PHH (`replay_hands_per_sec`, over at most 5,000 of them). On SQLite (a file), then
//! PostgreSQL (a throwaway cluster, or `DATABASE_URL`). `BENCH_HANDS` (default 20,000)
//! hands in all. One JSON line per backend: `{"backend":..,"hands":..,"read_ms":..,
//! "analyze_ms":..,"hands_per_sec":..,"replay_hands_per_sec":..,"fold_facts_us_per_hand":..}`
//! (hands_per_sec: the read and the analysis together; fold_facts_us_per_hand: what
//! working out a hand's folds costs the table as the hand ends).

use poker_history::phh;
use poker_rules::{
    Action, CardSource, Decision, DeckKind, Game, Hand, HandConfig, SeatConfig, Stakes, Structure,
};
use poker_server::fairplay::report::{self, Report};
use poker_store::testing::{TestPostgres, TestSqlite};
use poker_store::{
    CompletedHand, FairPlayHand, FoldFact, HandFacts, HandId, HandPlayer, HandRecord, PlayerId,
    SqlStore, TableId,
};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::time::Instant;

thread_local! {
    /// Time spent working out the folds a table records with each hand (its cost on the
    /// hand's path).
    static FOLD_FACTS_NS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

const TABLES: usize = 20;
const PLAYERS: usize = 60;
const STACK: u64 = 1_000_000;

/// One random hand of these six players (in dealing order, the last on the button): its
/// PHH, the finishing stacks and the folds the table would record.
fn play(rng: &mut SmallRng, stacks: &[u64]) -> (String, Vec<u64>, Vec<FoldFact>) {
    let config = HandConfig::new(
        Game::Holdem,
        Structure::NoLimit,
        Stakes {
            min_bet: 2,
            ..Stakes::default()
        },
        stacks
            .iter()
            .enumerate()
            .map(|(i, &stack)| SeatConfig {
                stack,
                blind: [1, 2, 0, 0, 0, 0][i],
                ..SeatConfig::default()
            })
            .collect(),
    );
    let mut deck = DeckKind::Standard.cards();
    deck.shuffle(rng);
    let (mut hand, mut events) = Hand::new(config.clone(), CardSource::Deck(deck)).expect("valid");
    while let Some(p) = hand.to_act() {
        let action = match hand.decision().expect("a decision") {
            Decision::Bet(l) => match (l.bet_or_raise, l.call, rng.gen_range(0..10)) {
                (Some((min, _)), _, 0) => Action::BetOrRaiseTo { to: min },
                (_, Some(_), 1..=4) => Action::Fold,
                (_, Some(_), _) => Action::Call,
                _ => Action::Check,
            },
            _ => Action::Show { cards: None },
        };
        events.extend(hand.apply(p, action).expect("legal"));
    }
    let end = hand.final_stacks().expect("complete");
    let text = phh::write(&config, &events, Some(&end))
        .expect("NT has a PHH code")
        .to_toml();
    let start = Instant::now();
    let folds = report::fold_facts(Game::Holdem, stacks.len(), &events);
    FOLD_FACTS_NS.with(|t| t.set(t.get() + start.elapsed().as_nanos() as u64));
    (text, end, folds)
}

async fn run(backend: &str, url: &str, hands: usize) -> anyhow::Result<()> {
    let store = SqlStore::connect(url).await?;
    let mut players = Vec::new();
    for i in 0..PLAYERS {
        let p = store
            .create_player(&format!("{backend}-{i}"), "not-a-real-hash")
            .await?;
        store.deposit(p, STACK, None).await?;
        players.push(p);
    }
    // Table t seats players 3t..3t+5 (mod 60): neighbours meet at two tables.
    let mut tables: Vec<(TableId, Vec<PlayerId>, Vec<u64>)> = Vec::new();
    for t in 0..TABLES {
        let table = store.create_table(&format!("bench-{t}"), "{}").await?;
        let seated: Vec<PlayerId> = (0..6).map(|k| players[(3 * t + k) % PLAYERS]).collect();
        for (s, &p) in seated.iter().enumerate() {
            store
                .buy_in(table, s as u32, p, STACK / 2, None, None)
                .await?;
        }
        tables.push((table, seated, vec![STACK / 2; 6]));
    }
    let mut rng = SmallRng::seed_from_u64(7);
    let mut batch = Vec::new();
    // The first hands as the report would read them had their records no folds.
    let mut older: Vec<FairPlayHand> = Vec::new();
    for n in 0..hands {
        let t = n % TABLES;
        let number = (n / TABLES) as u64 + 1;
        let (table, seated, stacks) = &mut tables[t];
        // The button moves: dealing order rotates by one seat a hand.
        let order: Vec<usize> = (0..6).map(|k| (k + number as usize) % 6).collect();
        let before: Vec<u64> = order.iter().map(|&s| stacks[s]).collect();
        let (text, after, folds) = play(&mut rng, &before);
        for (k, &s) in order.iter().enumerate() {
            stacks[s] = after[k];
        }
        batch.push(CompletedHand {
            hand_id: HandId::new(),
            table_id: *table,
            number,
            players: order
                .iter()
                .enumerate()
                .map(|(k, &s)| HandPlayer {
                    player_id: seated[s],
                    seat_no: s as u32,
                    starting_stack: before[k],
                    finishing_stack: after[k],
                })
                .collect(),
            rake: 0,
            phh: text,
            record: HandRecord {
                button: order[5],
                seats: order.clone(),
                seat_players: order.iter().map(|&s| seated[s]).collect(),
                seat_count: 6,
                starting_stacks: before,
                finishing_stacks: after,
                folds: Some(folds),
                ..HandRecord::default()
            },
            started_at: 1_000_000 + n as i64,
            ended_at: 1_000_000 + n as i64,
            fence: None,
        });
        if older.len() < 5_000 {
            let h = batch.last().expect("just pushed");
            older.push(FairPlayHand {
                hand_id: h.hand_id,
                started_at: h.started_at,
                facts: Some(HandFacts {
                    folds: None,
                    ..HandFacts::from(&h.record)
                }),
                phh: Some(h.phh.clone()),
            });
        }
        if batch.len() == TABLES {
            store.commit_hands(&batch).await?;
            batch.clear();
        }
    }
    store.commit_hands(&batch).await?;
    anyhow::ensure!(store.audit().await?.holds(), "the books balance");
    let start = Instant::now();
    let rows = store.fair_play_hands(0, i64::MAX, hands as u32).await?;
    let read = start.elapsed();
    let report = Report::of(&rows);
    let total = start.elapsed();
    anyhow::ensure!(report.hands as usize == hands && report.unreadable == 0);
    let busiest = report.pairs.values().map(|p| p.hands).max().unwrap_or(0);
    eprintln!(
        "{backend}: {} pairs, the busiest played {busiest} hands together",
        report.pairs.len()
    );
    anyhow::ensure!(
        rows.iter().all(|r| r.phh.is_none()),
        "no history read for records with their folds"
    );
    // Records from before the folds were kept: replayed from their history.
    let start = Instant::now();
    let replayed = Report::of(&older);
    let replay = start.elapsed();
    anyhow::ensure!(replayed.unreadable == 0);
    println!(
        "{{\"backend\":\"{backend}\",\"hands\":{hands},\"read_ms\":{:.0},\"analyze_ms\":{:.0},\"hands_per_sec\":{:.0},\"replay_hands_per_sec\":{:.0},\"fold_facts_us_per_hand\":{:.1}}}",
        read.as_secs_f64() * 1e3,
        (total - read).as_secs_f64() * 1e3,
        hands as f64 / total.as_secs_f64(),
        older.len() as f64 / replay.as_secs_f64(),
        FOLD_FACTS_NS.with(|t| t.replace(0)) as f64 / 1e3 / hands as f64
    );
    store.close().await;
    Ok(())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let hands: usize = std::env::var("BENCH_HANDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let sqlite = TestSqlite::new();
    run("sqlite", &sqlite.url, hands).await?;
    let pg = TestPostgres::start(true).await?;
    run("postgres", &pg.url, hands).await?;
    Ok(())
}
