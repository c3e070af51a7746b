//! The proofs of every game family, checked by every viewer, and what each proof reveals
//! (records forged the way an auditor would are in `attacks`).

use super::testing::*;
use super::*;
use crate::deck::{card_number, rounds_for};
use poker_rules::Game;

const GAMES: [(Game, usize); 6] = [
    (Game::Holdem, 6),
    (Game::ShortDeckHoldem, 4),
    (Game::Omaha, 6),
    (Game::Stud, 7),
    (Game::DeuceToSevenTripleDraw, 6),
    (Game::Badugi, 6),
];

fn viewers(n: usize) -> impl Iterator<Item = Viewer> {
    (0..n).map(Viewer::Player).chain([Viewer::Operator])
}

fn mine(record: &DeckRecord, viewer: Viewer) -> MySeed {
    match viewer {
        Viewer::Player(i) => my_seed(record, i),
        Viewer::Operator => MySeed::Unknown,
    }
}

#[test]
fn every_viewer_of_every_game_family_verifies_their_proofs() {
    let mut reshuffles = 0;
    let mut kept = 0;
    for (game, n) in GAMES {
        for seed in 0..20 {
            let (record, events) = play(game, n, seed);
            reshuffles += record.reshuffles.len();
            for viewer in viewers(n) {
                let doc = record_for(&record, &events, viewer, n);
                let done = verify(&doc, mine(&record, viewer))
                    .unwrap_or_else(|e| panic!("{game:?} seed {seed} {viewer:?}: {e}"));
                kept += done.kept;
                assert_eq!(done.reshuffles, record.reshuffles.len());
            }
        }
    }
    assert!(reshuffles > 10, "draw games reshuffled {reshuffles} times");
    assert!(
        kept > 50,
        "{kept} openings showed reshuffles left cards alone"
    );
}

/// The cards a viewer saw, as the table knows them: (card, how many times dealt to them
/// or shown to them).
fn known_to(events: &[Event], me: usize) -> Vec<Card> {
    let mut out = Vec::new();
    for e in events {
        match e {
            Event::HoleDealt { player, cards, up } => {
                for (k, &c) in cards.iter().enumerate() {
                    if *player == me || up >> k & 1 == 1 {
                        out.push(c);
                    }
                }
            }
            Event::BoardDealt { cards } | Event::SecondBoardDealt { cards } => {
                out.extend(cards.iter())
            }
            Event::Shown { cards, .. } => out.extend(cards.iter()),
            _ => {}
        }
    }
    out
}

#[test]
fn a_players_proofs_open_only_cards_they_saw_and_never_a_discard_where_it_went() {
    let mut discards_reshuffled = 0;
    for (game, n) in GAMES {
        for seed in 0..20 {
            let (record, events) = play(game, n, seed);
            let deck = record.deck().unwrap();
            let key = record.dealing(&deck).key;
            // The slot of a card in a round, as only the server (holding every nonce) knows.
            let slot_of = |round: u8, card: Card| {
                let (nonce, _) = deck.opening(round, card).unwrap();
                let tag = crate::deck::tag_hash(round, card, &nonce);
                let index = deck.tags(round).binary_search(&tag).unwrap();
                let order = crate::shuffle::round_order(&key, round, deck.size());
                order.iter().position(|&x| x as usize == index).unwrap() as u8
            };
            for me in 0..n {
                let proof = prove(&record, &events, Viewer::Player(me)).unwrap();
                let known = known_to(&events, me);
                let opened = proof
                    .cards
                    .iter()
                    .map(|c| (c.round, c.card))
                    .chain(proof.kept.iter().map(|k| (k.round, k.card)));
                for (round, card) in opened.clone() {
                    assert!(known.contains(&card), "{game:?} {seed}: {card} unseen");
                    // An opening in a reshuffle's round of a card that reshuffle took is
                    // a card the viewer was dealt from it, nothing else.
                    if round > 0
                        && proof.reshuffles[round as usize - 1].contains(&slot_of(round, card))
                    {
                        assert!(proof
                            .cards
                            .iter()
                            .any(|c| c.round == round && c.card == card));
                    }
                }
                // The viewer's own discards that went into a reshuffle: never opened in its
                // round (the slot would say who got them), unless dealt back to the viewer.
                for card in discards_of(&events, me) {
                    for (r, slots) in proof.reshuffles.iter().enumerate() {
                        let round = r as u8 + 1;
                        if !slots.contains(&slot_of(round, card)) {
                            continue;
                        }
                        discards_reshuffled += 1;
                        let back = proof
                            .cards
                            .iter()
                            .any(|c| c.round == round && c.card == card);
                        let opened_there = opened.clone().any(|o| o == (round, card));
                        assert_eq!(
                            opened_there, back,
                            "{game:?} {seed}: {card} in round {round}"
                        );
                    }
                }
            }
        }
    }
    assert!(discards_reshuffled > 10, "{discards_reshuffled}");
}

fn discards_of(events: &[Event], p: usize) -> Vec<Card> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Discarded { player, cards } if *player == p => Some(cards.to_vec()),
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
fn every_committed_round_is_one_distinct_tag_per_card_in_every_game() {
    for (game, _) in GAMES {
        let (record, _) = play(game, 2, 1);
        let deck = record.deck().unwrap();
        assert_eq!(deck.rounds(), rounds_for(game));
        for r in 0..deck.rounds() {
            assert_eq!(deck.tags(r).len(), deck.size());
            for card in game.deck().cards() {
                assert!(card_number(deck.size(), card).is_some());
            }
        }
    }
}
