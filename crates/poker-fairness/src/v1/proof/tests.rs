//! The proofs of every game family, checked by every viewer, and forged ones refused.

use super::testing::*;
use super::*;
use poker_rules::Game;

const GAMES: [(Game, usize); 5] = [
    (Game::Holdem, 6),
    (Game::ShortDeckHoldem, 4),
    (Game::Stud, 7),
    (Game::DeuceToSevenTripleDraw, 6),
    (Game::Badugi, 6),
];

#[test]
fn every_viewer_of_every_game_family_verifies_their_proofs() {
    let mut reshuffles = 0;
    for (game, n) in GAMES {
        for seed in 0..20 {
            let (record, events) = play(game, n, seed);
            reshuffles += record.reshuffles.len();
            for viewer in (0..n).map(Viewer::Player).chain([Viewer::Operator]) {
                let doc = record_for(&record, &events, viewer, n);
                let own = match viewer {
                    Viewer::Player(i) => record.seeds.iter().find(|s| s.seat as usize == i),
                    Viewer::Operator => None,
                };
                verify(&doc, own.map(|s| &s.seed))
                    .unwrap_or_else(|e| panic!("{game:?} seed {seed} {viewer:?}: {e}"));
            }
        }
    }
    assert!(reshuffles > 0, "triple draw with six players reshuffles");
}

#[test]
fn a_player_is_proved_exactly_the_cards_they_saw() {
    for (game, n) in GAMES {
        for seed in 0..10 {
            let (record, events) = play(game, n, seed);
            let all = prove(&record, &events, Viewer::Operator).unwrap();
            for me in 0..n {
                let doc = record_for(&record, &events, Viewer::Player(me), n);
                // Every card the viewer's events show (own, board, face up) or a hand
                // shown...
                let mut visible: Vec<Card> = Vec::new();
                for e in &doc.events {
                    match e {
                        Event::HoleDealt { cards, .. }
                        | Event::BoardDealt { cards }
                        | Event::SecondBoardDealt { cards }
                        | Event::Shown { cards, .. } => {
                            visible.extend(cards.iter().filter(|c| c.is_known()))
                        }
                        _ => {}
                    }
                }
                // ...and no other: each proof opens a visible card, at a place the
                // operator's proofs agree on.
                for p in &doc.fairness.cards {
                    assert!(visible.contains(&p.card), "{game:?}: {} not seen", p.card);
                    assert!(all.cards.contains(p));
                }
                let unseen: Vec<&CardProof> = all
                    .cards
                    .iter()
                    .filter(|p| !visible.contains(&p.card))
                    .collect();
                for p in unseen {
                    assert!(doc.fairness.cards.iter().all(|q| q.salt != p.salt));
                }
            }
        }
    }
}

/// A viewer's record of a hand of each family, and the operator's, for tampering.
fn docs() -> Vec<(String, Record)> {
    let mut out = Vec::new();
    for (game, n) in GAMES {
        // A seed whose hand shows a hand and, in triple draw, reshuffles.
        let (record, events) = (0..200)
            .map(|s| play(game, n, s))
            .find(|(r, e)| {
                e.iter().any(|e| matches!(e, Event::Shown { .. }))
                    && (game != Game::DeuceToSevenTripleDraw || !r.reshuffles.is_empty())
            })
            .expect("a showdown");
        out.push((
            format!("{game:?} p0"),
            record_for(&record, &events, Viewer::Player(0), n),
        ));
        out.push((
            format!("{game:?} operator"),
            record_for(&record, &events, Viewer::Operator, n),
        ));
    }
    out
}

fn refused(doc: &Record, what: &str) -> VerifyError {
    match verify(doc, None) {
        Ok(v) => panic!("{what}: a tampered record verified: {v:?}"),
        Err(e) => e,
    }
}

#[test]
fn a_tampered_card_salt_path_position_or_place_is_caught() {
    for (name, doc) in docs() {
        verify(&doc, None).unwrap();
        let n = doc.fairness.cards.len();
        assert!(n > 0, "{name}");
        for k in [0, n / 2, n - 1] {
            let mut d = doc.clone();
            let c = &mut d.fairness.cards[k];
            c.card = poker_rules::Card::from_index(((c.card.index() + 1) % 52) as u8).unwrap();
            refused(&d, &format!("{name}: card"));

            let mut d = doc.clone();
            d.fairness.cards[k].salt.0[3] ^= 0x40;
            assert!(
                matches!(refused(&d, &name), VerifyError::Path { .. }),
                "{name}: salt"
            );

            let mut d = doc.clone();
            d.fairness.cards[k].path[0].0[0] ^= 1;
            assert!(
                matches!(refused(&d, &name), VerifyError::Path { .. }),
                "{name}: path"
            );

            let mut d = doc.clone();
            d.fairness.cards[k].path.pop();
            refused(&d, &format!("{name}: short path"));

            let mut d = doc.clone();
            let c = &mut d.fairness.cards[k];
            c.position = (c.position + 1) % d.fairness.size;
            assert!(
                matches!(refused(&d, &name), VerifyError::Position { .. }),
                "{name}: position"
            );

            // The card said to come from another place: the permutation disagrees,
            // or the place is another card's.
            let mut d = doc.clone();
            let last = d.fairness.cards.last().unwrap().place;
            d.fairness.cards[k].place = last + 1;
            d.fairness.cards.sort_by_key(|c| c.place);
            refused(&d, &format!("{name}: place"));

            let mut d = doc.clone();
            d.fairness.cards.remove(k);
            refused(&d, &format!("{name}: a proof left out"));
        }
    }
}

#[test]
fn a_tampered_seed_list_commitment_or_reshuffle_is_caught() {
    for (name, doc) in docs() {
        let mut d = doc.clone();
        d.fairness.seeds[0].seed.0[0] ^= 1;
        refused(&d, &format!("{name}: a seed changed"));

        let mut d = doc.clone();
        d.fairness.seeds.remove(0);
        refused(&d, &format!("{name}: a seed left out"));

        let mut d = doc.clone();
        let free = (0..10u8).find(|s| {
            d.fairness.seeds.iter().all(|x| x.seat != *s) && d.seats.contains(&u32::from(*s))
        });
        if let Some(seat) = free {
            d.fairness.seeds.push(SeatSeed {
                seat,
                seed: crate::Bytes([9; 32]),
            });
            d.fairness.seeds.sort_by_key(|s| s.seat);
            refused(&d, &format!("{name}: a seed added"));
        }

        let mut d = doc.clone();
        d.fairness.seeds.reverse();
        if d.fairness.seeds.len() > 1 {
            assert_eq!(refused(&d, &name), VerifyError::SeedOrder);
        }

        let mut d = doc.clone();
        d.fairness.root.0[5] ^= 1;
        assert_eq!(refused(&d, &name), VerifyError::Commitment, "{name}: root");

        let mut d = doc.clone();
        d.fairness.commitment.0[5] ^= 1;
        assert_eq!(
            refused(&d, &name),
            VerifyError::Commitment,
            "{name}: commitment"
        );

        let mut d = doc.clone();
        d.fairness.hand_id = HandId::new();
        refused(&d, &format!("{name}: hand id"));

        let mut d = doc.clone();
        d.hand_id = d.fairness.hand_id;
        d.fairness.version = 2;
        assert_eq!(refused(&d, &name), VerifyError::Version(2));

        if !doc.fairness.reshuffles.is_empty() {
            // One of the viewer's own discards swapped for another card: the viewer
            // sees theirs left out (another player's discard swapped is theirs to see).
            let mut d = doc.clone();
            let proved: Vec<u8> = d.fairness.cards.iter().map(|c| c.position).collect();
            let list = &mut d.fairness.reshuffles[0];
            if let Some(k) = list.iter().position(|p| proved.contains(p)) {
                let other = (0..d.fairness.size).find(|p| !list.contains(p)).unwrap();
                list[k] = other;
                list.sort_unstable();
                refused(&d, &format!("{name}: a reshuffle changed"));
            }

            let mut d = doc.clone();
            d.fairness.reshuffles.pop();
            refused(&d, &format!("{name}: a reshuffle left out"));

            let mut d = doc.clone();
            d.fairness.reshuffles[0].reverse();
            refused(&d, &format!("{name}: a reshuffle out of order"));
        }
        let mut d = doc.clone();
        d.fairness.reshuffles.push(vec![0]);
        refused(&d, &format!("{name}: a reshuffle added"));
    }
}

#[test]
fn records_made_from_the_phh_history_verify_for_every_viewer_run_twice_included() {
    // As the server exports them: the viewer's events replayed from their PHH (others'
    // cards unknown, no burn cards), the proofs made from the full history's replay.
    use poker_history::phh;
    let mut hands = Vec::new();
    for seed in 0..40 {
        // Heads-up with short stacks: all in often, the board run twice sometimes.
        let mut c = config(Game::Holdem, 2);
        c.seats[0].stack = 9;
        c.seats[1].stack = 7;
        let (record, events) = play_config(c.clone(), seed);
        hands.push((c, record, events));
    }
    for (game, n) in GAMES {
        for seed in 0..5 {
            let (record, events) = play(game, n, seed);
            hands.push((config(game, n), record, events));
        }
    }
    let twice = hands
        .iter()
        .filter(|(_, _, e)| {
            e.iter()
                .any(|e| matches!(e, Event::SecondBoardDealt { .. }))
        })
        .count();
    assert!(twice > 0, "a board was run twice");
    for (config, record, events) in hands {
        let n = config.seats.len();
        let stacks = match events.last() {
            Some(Event::HandEnded { stacks }) => stacks.clone(),
            other => panic!("the hand ends: {other:?}"),
        };
        let full = phh::write(&config, &events, Some(&stacks)).expect("a history");
        let replayed = phh::replay(&full).expect("it replays").events;
        for v in 0..n {
            let own = phh::for_viewer(&full, v).expect("the viewer's history");
            let doc = Record {
                hand_id: record.hand_id,
                seats: (0..n as u32).collect(),
                me: Some(v),
                events: phh::replay(&own).expect("it replays").events,
                fairness: prove(&record, &replayed, Viewer::Player(v)).expect("proofs"),
            };
            verify(&doc, None).unwrap_or_else(|e| panic!("{:?} viewer {v}: {e}", config.game));
        }
    }
}

#[test]
fn a_seed_that_was_not_counted_is_caught_by_its_owner() {
    let (record, events) = play(Game::Holdem, 3, 7);
    let doc = record_for(&record, &events, Viewer::Player(0), 3);
    let mine = crate::Bytes([0x5a; 32]);
    assert_eq!(
        verify(&doc, Some(&mine)),
        Err(VerifyError::OwnSeed { seat: 0 })
    );
}

#[test]
fn a_proof_of_a_card_the_player_did_not_see_is_refused() {
    let (record, events) = (0..50)
        .map(|s| play(Game::Holdem, 4, s))
        .find(|(_, e)| {
            !e.iter()
                .any(|e| matches!(e, Event::Shown { player: 1, .. }))
        })
        .unwrap();
    let mut doc = record_for(&record, &events, Viewer::Player(0), 4);
    let all = prove(&record, &events, Viewer::Operator).unwrap();
    // Player 1's first hole card, never shown.
    let theirs = all
        .cards
        .iter()
        .find(|p| {
            matches!(events.iter().find(|e| matches!(e, Event::HoleDealt { player: 1, .. })),
                Some(Event::HoleDealt { cards, .. }) if cards.contains(&p.card))
        })
        .unwrap()
        .clone();
    doc.fairness.cards.push(theirs);
    doc.fairness.cards.sort_by_key(|c| c.place);
    assert!(matches!(
        verify(&doc, None),
        Err(VerifyError::NotShown { .. })
    ));
}
