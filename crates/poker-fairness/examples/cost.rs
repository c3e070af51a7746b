//! What the verifiable deck costs per hand, measured: committing a deck (a secret from
//! the operating system's generator, each round's nonces, tree and tags, the commitment),
//! dealing it from six seeds, every player's proofs after a six-handed hold'em hand and a 2-7 triple draw hand
//! (reshuffles included), checking one player's record, and the bytes each adds.
//! `cargo run --release -p poker-fairness --example cost`.

use poker_fairness::proof::testing::{play, record_for};
use poker_fairness::{
    prove_deck, seed_commitment, verify, Bytes, CommittedDeck, MySeed, SeatSeed, SeedCommit, Viewer,
};
use poker_ids::HandId;
use poker_rules::{DeckKind, Game};
use rand::rngs::OsRng;
use rand::RngCore;
use std::time::Instant;

fn micros(f: impl Fn(), rounds: u32) -> f64 {
    f();
    let t = Instant::now();
    for _ in 0..rounds {
        f();
    }
    t.elapsed().as_secs_f64() * 1e6 / f64::from(rounds)
}

fn main() {
    let rounds = 2000;
    let commit = |game_rounds: u8| {
        micros(
            || {
                // As the server draws it: one read of the generator.
                let mut secret = [0u8; 32];
                OsRng.fill_bytes(&mut secret);
                let deck = CommittedDeck::new(
                    HandId::new(),
                    DeckKind::Standard,
                    game_rounds,
                    Bytes(secret),
                )
                .unwrap();
                std::hint::black_box(deck.commitment());
            },
            rounds,
        )
    };
    let commit_holdem = commit(1);
    let commit_triple_draw = commit(4);
    let deck = CommittedDeck::new(HandId::new(), DeckKind::Standard, 1, Bytes([7; 32])).unwrap();
    let seeds: Vec<SeatSeed> = (0..6u8)
        .map(|seat| SeatSeed {
            seat,
            seed: Bytes([seat; 32]),
        })
        .collect();
    let list: Vec<SeedCommit> = seeds
        .iter()
        .map(|s| SeedCommit {
            seat: s.seat,
            commitment: seed_commitment(&deck.commitment().commitment, &s.seed),
            house: false,
        })
        .collect();
    let deal = micros(
        || {
            let dealing = deck.dealing(list.clone(), seeds.clone());
            std::hint::black_box(deck.dealt_cards(&dealing));
        },
        rounds,
    );
    let mut lines = Vec::new();
    for game in [Game::Holdem, Game::DeuceToSevenTripleDraw] {
        let (record, events) = (0..)
            .map(|s| play(game, 6, s))
            .find(|(r, _)| game == Game::Holdem || !r.reshuffles.is_empty())
            .unwrap();
        let d = record.deck().unwrap();
        let dealing = record.dealing(&d);
        let proofs = micros(
            || {
                for p in 0..6 {
                    std::hint::black_box(
                        prove_deck(&d, &dealing, &events, Viewer::Player(p)).unwrap(),
                    );
                }
            },
            rounds / 10,
        );
        let doc = record_for(&record, &events, Viewer::Player(0), 6);
        let check = micros(
            || {
                std::hint::black_box(verify(&doc, MySeed::Unknown).unwrap());
            },
            rounds / 10,
        );
        let message: usize = (0..6)
            .map(|p| {
                let proof = prove_deck(&d, &dealing, &events, Viewer::Player(p)).unwrap();
                serde_json::to_string(&proof).unwrap().len()
            })
            .sum();
        lines.push(serde_json::json!({
            "game": format!("{game:?}"),
            "proofs_for_6_players_us": (proofs * 10.0).round() / 10.0,
            "verify_one_record_us": (check * 10.0).round() / 10.0,
            "stored_deck_record_bytes": serde_json::to_string(&record).unwrap().len(),
            "proof_messages_bytes_6_players": message,
            "reshuffles": record.reshuffles.len(),
        }));
    }
    let committed = serde_json::to_string(&deck.commitment()).unwrap().len();
    println!(
        "{}",
        serde_json::json!({
            "commit_deck_holdem_us": (commit_holdem * 10.0).round() / 10.0,
            "commit_deck_triple_draw_us": (commit_triple_draw * 10.0).round() / 10.0,
            "deal_from_6_seeds_us": (deal * 10.0).round() / 10.0,
            "commitment_bytes": committed,
            "hands": lines,
        })
    );
}
