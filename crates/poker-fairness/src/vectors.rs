//! The test vectors of docs/fairness.md (`docs/fairness/vectors.json`): every step of the
//! construction on fixed inputs, and complete hand records as a player (and the operator)
//! downloads them, so a verifier written in another language can be checked against this
//! one. `cargo run -p poker-fairness --example vectors > docs/fairness/vectors.json`
//! writes them; a test checks the file matches.

use crate::bytes::Bytes;
use crate::deck::{leaf_hash, nonce, tag_hash, CommittedDeck};
use crate::proof::testing::{play, record_for};
use crate::proof::{MySeed, Viewer};
use crate::seeds::{list_digest, seed_commitment, SeatSeed, SeedCommit};
use crate::shuffle::{round_order, Stream};
use poker_ids::HandId;
use poker_rules::{Card, DeckKind, Event, Game};
use serde_json::{json, Value};

/// The vectors.
pub fn vectors() -> Value {
    let hand_id: HandId = "6f9619ff-8b86-4011-b42d-00c04fc964ff"
        .parse()
        .expect("a UUID");
    // The secret is the bytes 0, 1, ..., 31: easy to type, not how the server draws it.
    let secret = Bytes(std::array::from_fn(|i| i as u8));
    let deck = CommittedDeck::new(hand_id, DeckKind::Standard, 2, secret).expect("a deck");
    let commitment = deck.commitment();
    let c = commitment.commitment;
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
    let seed_list: Vec<SeedCommit> = seeds
        .iter()
        .map(|s| SeedCommit {
            seat: s.seat,
            commitment: seed_commitment(&c, &s.seed),
            house: s.seat == 3,
        })
        .collect();
    let mut dealing = deck.dealing(seed_list.clone(), seeds.clone());
    let mut stream = Stream::new(&dealing.key, 0);
    let words: Vec<u32> = (0..16).map(|_| stream.next_u32()).collect();
    let dealt = deck.dealt_cards(&dealing);
    let discards: Vec<Card> = ["2c", "7h", "As", "Td", "9s"]
        .iter()
        .map(|c| c.parse().expect("a card"))
        .collect();
    let reshuffled = deck
        .reshuffle(&mut dealing, &discards)
        .expect("a reshuffle");
    let first: Card = "2c".parse().expect("a card");
    let ace: Card = "As".parse().expect("a card");
    let (ace_nonce, ace_path) = deck.opening(0, ace).expect("a card of the deck");
    let round0: Vec<Value> = DeckKind::Standard
        .cards()
        .into_iter()
        .map(|card| {
            let n = nonce(&secret, 0, card);
            json!({
                "card": card,
                "nonce": n,
                "leaf": leaf_hash(0, card, &n),
                "tag": tag_hash(0, card, &n),
            })
        })
        .collect();
    let records: Vec<Value> = [
        (Game::Holdem, 6, 11u64, Viewer::Player(1)),
        (Game::DeuceToSevenTripleDraw, 6, 0, Viewer::Player(2)),
        (Game::DeuceToSevenTripleDraw, 6, 0, Viewer::Operator),
    ]
    .into_iter()
    .map(|(game, n, seed, viewer)| {
        let (record, events) = (seed..)
            .map(|s| play(game, n, s))
            .find(|(r, e)| {
                e.iter().any(|e| matches!(e, Event::Shown { .. }))
                    && (game != Game::DeuceToSevenTripleDraw || !r.reshuffles.is_empty())
            })
            .expect("a showdown");
        let doc = record_for(&record, &events, viewer, n);
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
        "secret": secret,
        "rounds": 2,
        "round_0": round0,
        "round_commitments": deck.round_commitments(),
        "tags_round_0": deck.tags(0),
        "commitment": c,
        "seeds": seeds,
        "seed_list": seed_list,
        "seed_list_digest": list_digest(&c, &seed_list),
        "key": dealing.key,
        "stream_round_0_words": words,
        "round_0_order": round_order(&dealing.key, 0, 52),
        "dealt_cards": dealt,
        "reshuffle": {
            "round": 1,
            "discards": discards,
            "round_1_order": round_order(&dealing.key, 1, 52),
            "slots": dealing.reshuffles[0],
            "cards": reshuffled,
        },
        "opening_of_as_in_round_0": {
            "card": ace,
            "nonce": ace_nonce,
            "path": ace_path,
        },
        "leaf_of_2c_in_round_0": leaf_hash(0, first, &nonce(&secret, 0, first)),
        "records": records,
        "attacks": crate::proof::attacks::attacks().into_iter().map(|a| {
            let mine = match a.mine {
                MySeed::Unknown => Value::Null,
                MySeed::None => json!("none"),
                MySeed::Sent { seed, list } => json!({ "seed": seed, "list": list }),
            };
            json!({
                "name": a.name,
                "what": a.what,
                "record": a.record,
                "mine": mine,
                "error": a.error,
            })
        }).collect::<Vec<_>>(),
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
            crate::verify(&record, crate::MySeed::Unknown).unwrap();
        }
    }
}
