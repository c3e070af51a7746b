//! Throughput benchmark: `cargo run --release -p poker-rules --example bench`.
//!
//! Plays random legal 6-max no-limit hold'em hands from shuffle to showdown on one
//! thread, then times random seven-card evaluations. The last line printed is JSON:
//! `{"hands_per_sec":..., "evals_per_sec":...}`.

use poker_rules::eval::high;
use poker_rules::{
    Action, Card, CardSource, Decision, DeckKind, Event, Game, Hand, HandConfig, SeatConfig,
    Stakes, Structure,
};
use rand::rngs::SmallRng;
use rand::{Rng, RngCore, SeedableRng};
use std::hint::black_box;
use std::time::Instant;

thread_local! {
    static ACTIONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

fn play_hand(
    rng: &mut SmallRng,
    config: &HandConfig,
    deck: &mut [Card],
    events: &mut Vec<Event>,
) -> u64 {
    // Fisher-Yates shuffle; each index from 32 random bits by multiply-shift (the bias,
    // below 2^-26, is irrelevant to a benchmark; the server shuffles with a CSPRNG).
    let mut bits = 0u64;
    for i in (1..deck.len()).rev() {
        if i % 2 == 1 {
            bits = rng.next_u64();
        }
        let j = ((bits as u32 as u64 * (i as u64 + 1)) >> 32) as usize;
        bits >>= 32;
        deck.swap(i, j);
    }
    events.clear();
    let mut hand =
        Hand::start(config.clone(), CardSource::Deck(deck.to_vec()), events).expect("valid config");
    while let Some(p) = hand.to_act() {
        let action = match hand.decision().expect("a decision") {
            Decision::Bet(legal) => {
                let roll = rng.gen_range(0..100);
                match (legal.bet_or_raise, legal.call) {
                    (Some((min, max)), _) if roll < 15 => Action::BetOrRaiseTo {
                        to: if roll < 3 {
                            max
                        } else {
                            rng.gen_range(min..=max)
                        },
                    },
                    (_, Some(_)) if roll < 40 => Action::Fold,
                    (_, Some(_)) => Action::Call,
                    _ => Action::Check,
                }
            }
            Decision::Showdown { .. } => Action::Show { cards: None },
            Decision::Draw | Decision::RunItTwice => unreachable!("not offered in this game"),
        };
        events.clear();
        hand.apply_into(p, action, events).expect("legal action");
        ACTIONS.with(|c| c.set(c.get() + 1));
    }
    hand.players()[0].stack
}

fn main() {
    let config = HandConfig::new(
        Game::Holdem,
        Structure::NoLimit,
        Stakes {
            min_bet: 2,
            ..Stakes::default()
        },
        (0..6)
            .map(|i| SeatConfig {
                stack: 200 + 37 * i,
                blind: [1, 2, 0, 0, 0, 0][i as usize],
                ..SeatConfig::default()
            })
            .collect(),
    );
    let mut rng = SmallRng::seed_from_u64(42);
    let mut deck = DeckKind::Standard.cards();
    let mut events = Vec::with_capacity(64);
    high::warm_up();

    // Hands.
    let hands: u64 = std::env::var("BENCH_HANDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000_000);
    let mut sink = 0u64;
    let start = Instant::now();
    for _ in 0..hands {
        sink = sink.wrapping_add(play_hand(&mut rng, &config, &mut deck, &mut events));
    }
    let hands_per_sec = hands as f64 / start.elapsed().as_secs_f64();
    black_box(sink);

    // Random seven-card evaluations over a pre-dealt pool of hands.
    let pool: Vec<[Card; 7]> = (0..1 << 20)
        .map(|_| {
            for i in 0..7 {
                let j = rng.gen_range(i..52);
                deck.swap(i, j);
            }
            deck[..7].try_into().expect("seven cards")
        })
        .collect();
    let rounds = 100;
    let mut acc = 0u64;
    let start = Instant::now();
    for _ in 0..rounds {
        for h in &pool {
            acc = acc.wrapping_add(high::evaluate7(h).0 as u64);
        }
    }
    let evals_per_sec = (rounds * pool.len()) as f64 / start.elapsed().as_secs_f64();
    black_box(acc);

    let actions = ACTIONS.with(|c| c.get());
    println!(
        "{:.1} decisions per hand; Event is {} bytes",
        actions as f64 / hands as f64,
        std::mem::size_of::<Event>()
    );
    println!(
        "hands: {hands} in one thread; evaluations: {} over {} random hands",
        rounds * pool.len(),
        pool.len()
    );
    println!("{{\"hands_per_sec\":{hands_per_sec:.0},\"evals_per_sec\":{evals_per_sec:.0}}}");
}
