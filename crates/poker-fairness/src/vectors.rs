//! The test vectors of docs/fairness.md (`docs/fairness/vectors.json`): every step of the
//! construction on fixed inputs, and two complete hand records as a player downloads
//! them, so a verifier written in another language can be checked against this one.
//! `cargo run -p poker-fairness --example vectors > docs/fairness/vectors.json` writes
//! them; a test checks the file matches.

use crate::bytes::{Bytes, Salt};
use crate::deck::CommittedDeck;
use crate::merkle::leaf_hash;
use crate::proof::testing::{play, record_for};
use crate::proof::Viewer;
use crate::shuffle::{deal_order, reshuffle_order, SeatSeed, Stream};
use poker_ids::HandId;
use poker_rules::{DeckKind, Game};
use serde_json::{json, Value};

/// The vectors.
pub fn vectors() -> Value {
    let hand_id: HandId = "6f9619ff-8b86-4011-b42d-00c04fc964ff"
        .parse()
        .expect("a UUID");
    let cards = DeckKind::Standard.cards();
    // Salt i is the byte i sixteen times: easy to type, not how the server draws them.
    let salts: Vec<Salt> = (0..52u8).map(|i| Bytes([i; 16])).collect();
    let deck = CommittedDeck::new(hand_id, cards.clone(), salts.clone()).expect("a deck");
    let commitment = deck.commitment();
    let seeds = vec![
        SeatSeed {
            seat: 0,
            seed: Bytes([0x11; 32]),
        },
        SeatSeed {
            seat: 3,
            seed: Bytes([0x33; 32]),
        },
    ];
    let dealing = deck.dealing(seeds.clone());
    let mut stream = Stream::new(&dealing.key, 0);
    let words: Vec<u32> = (0..16).map(|_| stream.next_u32()).collect();
    let discards = [30u8, 5, 41, 17, 9];
    let (_, salt17, path17) = deck.opening(17);
    let records: Vec<Value> = [
        (Game::Holdem, 6, 11u64, 1usize),
        (Game::DeuceToSevenTripleDraw, 6, 0, 2),
    ]
    .into_iter()
    .map(|(game, n, seed, viewer)| {
        let (record, events) = (seed..)
            .map(|s| play(game, n, s))
            .find(|(r, e)| {
                e.iter()
                    .any(|e| matches!(e, poker_rules::Event::Shown { .. }))
                    && (game != Game::DeuceToSevenTripleDraw || !r.reshuffles.is_empty())
            })
            .expect("a showdown");
        let doc = record_for(&record, &events, Viewer::Player(viewer), n);
        json!({
            "hand_id": doc.hand_id,
            "seats": doc.seats,
            "me": doc.me,
            "events": doc.events,
            "fairness": doc.fairness,
        })
    })
    .collect();
    json!({
        "hand_id": hand_id,
        "cards": cards,
        "salts": salts,
        "leaves": cards.iter().zip(&salts).enumerate()
            .map(|(i, (&c, s))| leaf_hash(i as u8, c, s)).collect::<Vec<_>>(),
        "root": commitment.root,
        "commitment": commitment.commitment,
        "seeds": seeds,
        "key": dealing.key,
        "stream_round_0_words": words,
        "deal_order": deal_order(&dealing.key, 52),
        "dealt_cards": deck.dealt_cards(&dealing),
        "reshuffle": {
            "round": 1,
            "positions": discards,
            "order": reshuffle_order(&dealing.key, 1, &discards),
        },
        "proof_of_position_17": {
            "card": cards[17],
            "salt": salt17,
            "path": path17,
        },
        "records": records,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_published_test_vectors_are_what_this_crate_computes() {
        let published: serde_json::Value =
            serde_json::from_str(include_str!("../../../docs/fairness/vectors.json"))
                .expect("docs/fairness/vectors.json is JSON");
        assert!(
            published == super::vectors(),
            "docs/fairness/vectors.json is stale: cargo run -p poker-fairness --example vectors > docs/fairness/vectors.json"
        );
        for record in published["records"].as_array().unwrap() {
            let record: crate::Record = serde_json::from_value(record.clone()).unwrap();
            crate::verify(&record, None).unwrap();
        }
    }
}
