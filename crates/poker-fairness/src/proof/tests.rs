//! The proofs of every game family, checked by every viewer; what each proof reveals;
//! and records forged the way an auditor would, each refused.

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

/// A triple-draw hand with a reshuffle, found by seed, and the first (`seed`, viewer)
/// for which `fits` holds.
fn find(fits: impl Fn(&DeckRecord, &[Event], usize) -> bool) -> (DeckRecord, Vec<Event>, usize) {
    for seed in 0..2000 {
        let (record, events) = play(Game::DeuceToSevenTripleDraw, 6, seed);
        if record.reshuffles.is_empty() {
            continue;
        }
        for me in 0..6 {
            if fits(&record, &events, me) {
                return (record, events, me);
            }
        }
    }
    panic!("no such hand in 2000");
}

/// The index of the first event that reshuffles: the first hole deal after which the
/// walk has made a reshuffle (the hole deal that needed it).
fn shown_of(events: &[Event], p: usize) -> Option<Vec<Card>> {
    events.iter().find_map(|e| match e {
        Event::Shown { player, cards } if *player == p => Some(cards.to_vec()),
        _ => None,
    })
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

/// The cards reshuffled and dealt again in the hand, by who got them.
fn redealt(record: &DeckRecord, events: &[Event]) -> Vec<(usize, Card)> {
    let proof = prove(record, events, Viewer::Operator).unwrap();
    let walk = walk(events, 52, &record.reshuffles, None).unwrap();
    walk.taken
        .iter()
        .filter(|t| t.round > 0)
        .filter_map(|t| match t.kind {
            Kind::Hole { player, .. } => Some((player, t.card)),
            _ => None,
        })
        .filter(|_| !proof.cards.is_empty())
        .collect()
}

/// The auditor's forgery of a shown hand: opponent `p` "kept" `card`, which they threw
/// away (and which was dealt again), and "threw away" instead a card of their hand shown
/// that they held then. The events so changed, and every proof made honestly from the
/// server's secret for them; `None` when no card of the hand shown was held then.
fn forge_show(
    record: &DeckRecord,
    events: &[Event],
    me: usize,
    p: usize,
    card: Card,
) -> Option<(Vec<Event>, HandProof)> {
    let shown = shown_of(events, p)?;
    shown.iter().find_map(|&kept_card| {
        let forged: Vec<Event> = events
            .iter()
            .map(|e| match e {
                Event::Discarded { player, cards } if *player == p && cards.contains(&card) => {
                    let mut c = *cards;
                    let i = c.iter().position(|&x| x == card).expect("there");
                    c.as_mut_slice()[i] = kept_card;
                    Event::Discarded {
                        player: p,
                        cards: c,
                    }
                }
                Event::Shown { player, cards } if *player == p => {
                    let mut c = *cards;
                    let i = c.iter().position(|&x| x == kept_card).expect("there");
                    c.as_mut_slice()[i] = card;
                    Event::Shown {
                        player: p,
                        cards: c,
                    }
                }
                other => other.clone(),
            })
            .collect();
        let proof = prove(record, &forged, Viewer::Player(me)).ok()?;
        Some((forged, proof))
    })
}

/// An opponent who showed, a card they threw away that the reshuffle dealt again (to
/// the viewer or to someone else), and the forgery.
fn show_attack(
    record: &DeckRecord,
    events: &[Event],
    me: usize,
    to_viewer: bool,
) -> Option<(usize, Card, Vec<Event>, HandProof)> {
    redealt(record, events)
        .into_iter()
        .filter(|&(got, _)| (got == me) == to_viewer)
        .find_map(|(got, card)| {
            (0..6)
                .filter(|&p| p != me && p != got && discards_of(events, p).contains(&card))
                .find_map(|p| {
                    forge_show(record, events, me, p, card).map(|(f, proof)| (p, card, f, proof))
                })
        })
}

#[test]
fn a_shown_card_its_owner_had_discarded_and_that_was_reshuffled_is_refused() {
    // The auditor's record: an opponent "shows" a card they threw away, which the
    // reshuffle dealt to someone else, or to the viewer.
    for to_viewer in [false, true] {
        let (record, events, me) =
            find(|record, events, me| show_attack(record, events, me, to_viewer).is_some());
        let (p, card, forged, proof) = show_attack(&record, &events, me, to_viewer).unwrap();
        let honest = record_for(&record, &events, Viewer::Player(me), 6);
        verify(&honest, MySeed::Unknown).unwrap();
        let doc = Record {
            hand_id: record.hand_id,
            seats: (0..6).collect(),
            me: Some(me),
            events: seen_by(&forged, me),
            fairness: proof,
        };
        let e = verify(&doc, MySeed::Unknown).unwrap_err();
        assert!(
            matches!(e, VerifyError::ReshuffleTookKept { card: c, .. } if c == card),
            "to the viewer {to_viewer}: {e}"
        );
        // Without changing the discards, the show alone names a card thrown away.
        let mut doc = honest.clone();
        for ev in doc.events.iter_mut() {
            if let Event::Shown { player, cards } = ev {
                if *player == p {
                    cards.as_mut_slice()[0] = card;
                }
            }
        }
        let e = verify(&doc, MySeed::Unknown).unwrap_err();
        assert!(matches!(e, VerifyError::ShownNotHeld { .. }), "{e}");
    }
}

#[test]
fn a_reshuffle_that_takes_a_card_the_viewer_holds_is_refused() {
    // The auditor's record: the reshuffle takes a card the viewer still holds in place of
    // another player's discard. The viewer got nothing from that reshuffle, so only the
    // accounting can tell.
    let (record, events, me) = find(|record, events, me| {
        let proof = prove(record, events, Viewer::Player(me)).unwrap();
        !proof.cards.iter().any(|c| c.round > 0) && proof.kept.iter().any(|k| k.round == 1)
    });
    let honest = record_for(&record, &events, Viewer::Player(me), 6);
    verify(&honest, MySeed::Unknown).unwrap();
    let deck = record.deck().unwrap();
    let dealing = record.dealing(&deck);
    let order = crate::shuffle::round_order(&dealing.key, 1, 52);
    let held = honest.fairness.kept.iter().find(|k| k.round == 1).unwrap();
    let tag = crate::deck::tag_hash(1, held.card, &held.nonce);
    let index = deck.tags(1).binary_search(&tag).unwrap() as u8;
    let slot = order.iter().position(|&x| x == index).unwrap() as u8;
    let mut forged = honest.clone();
    let list = &mut forged.fairness.reshuffles[0];
    assert!(!list.contains(&slot));
    list.pop();
    list.push(slot);
    list.sort_unstable();
    let e = verify(&forged, MySeed::Unknown).unwrap_err();
    assert!(
        matches!(e, VerifyError::ReshuffleTookKept { round: 1, card } if card == held.card),
        "{e}"
    );
    // Leaving the opening out does not help.
    forged.fairness.kept.retain(|k| k != held);
    assert!(matches!(
        verify(&forged, MySeed::Unknown).unwrap_err(),
        VerifyError::KeptMissing { .. }
    ));
    // Nor taking one card too many or too few.
    let mut forged = honest.clone();
    forged.fairness.reshuffles[0].pop();
    assert!(matches!(
        verify(&forged, MySeed::Unknown).unwrap_err(),
        VerifyError::ReshuffleCount { .. } | VerifyError::DeckExhausted
    ));
}

#[test]
fn a_discard_named_for_the_viewer_that_is_not_what_they_threw_is_refused() {
    let (record, events, me) = find(|_, events, me| discards_of(events, me).len() >= 2);
    let mut doc = record_for(&record, &events, Viewer::Player(me), 6);
    let own = doc
        .events
        .iter()
        .filter(|e| matches!(e, Event::Discarded { .. }))
        .position(|e| matches!(e, Event::Discarded { player, cards } if *player == me && !cards.is_empty()))
        .unwrap();
    let numbers = &mut doc.fairness.discards[own];
    let all: Vec<u8> = (0..5).collect();
    let other = all.iter().find(|n| !numbers.contains(n)).copied().unwrap();
    numbers[0] = other;
    numbers.sort_unstable();
    let e = verify(&doc, MySeed::Unknown).unwrap_err();
    assert!(
        matches!(
            e,
            VerifyError::DiscardCards { .. } | VerifyError::Discard { .. }
        ),
        "{e}"
    );
}

fn holdem() -> (DeckRecord, Vec<Event>) {
    (0..)
        .map(|s| play(Game::Holdem, 6, s))
        .find(|(r, e)| {
            r.seeds.iter().any(|s| s.seat == 5)
                && r.seed_list.iter().any(|s| s.seat == 1)
                && r.seeds.iter().any(|s| s.seat == 1)
                && !r.seed_list.iter().any(|s| s.seat == 2)
                && e.iter().any(|e| matches!(e, Event::Shown { .. }))
        })
        .unwrap()
}

#[test]
fn a_house_seed_chosen_after_the_others_is_refused() {
    // The server sees the players' seeds, then picks the house's: it must change the
    // house's commitment (the seed must open it), which changes the closed list the
    // players were sent before revealing.
    let (record, events) = holdem();
    let doc = record_for(&record, &events, Viewer::Player(1), 6);
    let sent = my_seed(&record, 1);
    verify(&doc, sent).unwrap();
    let mut forged = doc.clone();
    let house = forged
        .fairness
        .seed_list
        .iter_mut()
        .find(|s| s.house)
        .unwrap();
    let chosen = crate::Bytes([0x99; 32]);
    house.commitment = seed_commitment(&forged.fairness.commitment, &chosen);
    let seat = house.seat;
    forged
        .fairness
        .seeds
        .iter_mut()
        .find(|s| s.seat == seat)
        .unwrap()
        .seed = chosen;
    assert_eq!(verify(&forged, sent).unwrap_err(), VerifyError::ListChanged);
    // Keeping the commitment and swapping the seed: the seed does not open it.
    let mut forged = doc.clone();
    forged
        .fairness
        .seeds
        .iter_mut()
        .find(|s| s.seat == seat)
        .unwrap()
        .seed = chosen;
    assert_eq!(
        verify(&forged, MySeed::Unknown).unwrap_err(),
        VerifyError::SeedOpen(seat)
    );
    // Withholding the house's seed (to pick between two orders) is refused too.
    let mut forged = doc.clone();
    forged.fairness.seeds.retain(|s| s.seat != seat);
    assert_eq!(
        verify(&forged, MySeed::Unknown).unwrap_err(),
        VerifyError::HouseWithheld(seat)
    );
}

#[test]
fn a_seed_in_the_name_of_a_player_who_sent_none_is_refused() {
    let (record, events) = holdem();
    let doc = record_for(&record, &events, Viewer::Player(2), 6);
    verify(&doc, MySeed::None).unwrap();
    let mut forged = doc.clone();
    let seed = crate::Bytes([0x42; 32]);
    forged.fairness.seed_list.insert(
        2,
        SeedCommit {
            seat: 2,
            commitment: seed_commitment(&forged.fairness.commitment, &seed),
            house: false,
        },
    );
    forged.fairness.seed_list.sort_by_key(|s| s.seat);
    assert_eq!(
        verify(&forged, MySeed::None).unwrap_err(),
        VerifyError::SeedInMyName { seat: 2 }
    );
    // A player whose seed was left out sees it.
    let doc = record_for(&record, &events, Viewer::Player(1), 6);
    let mut forged = doc.clone();
    forged.fairness.seeds.retain(|s| s.seat != 1);
    assert_eq!(
        verify(&forged, my_seed(&record, 1)).unwrap_err(),
        VerifyError::OwnSeed { seat: 1 }
    );
}

#[test]
fn tampered_proofs_are_refused() {
    let (record, events) = holdem();
    let doc = record_for(&record, &events, Viewer::Player(1), 6);
    verify(&doc, MySeed::Unknown).unwrap();
    let check = |f: &dyn Fn(&mut Record), what: &str| {
        let mut d = doc.clone();
        f(&mut d);
        assert!(verify(&d, MySeed::Unknown).is_err(), "{what} passed");
    };
    check(&|d| d.fairness.cards[0].nonce.0[0] ^= 1, "a changed nonce");
    check(&|d| d.fairness.cards[0].path[0].0[0] ^= 1, "a changed path");
    check(&|d| d.fairness.cards.swap(0, 1), "proofs out of order");
    check(
        &|d| {
            d.fairness.cards.pop();
        },
        "a card left unproved",
    );
    check(&|d| d.fairness.tags[0].swap(0, 1), "tags out of order");
    check(&|d| d.fairness.rounds[0].root.0[0] ^= 1, "another root");
    check(&|d| d.fairness.commitment.0[0] ^= 1, "another commitment");
    check(&|d| d.fairness.version = 1, "another version");
    check(&|d| d.hand_id = HandId::new(), "another hand");
    check(&|d| d.fairness.seeds.reverse(), "seeds out of order");
    check(
        &|d| {
            // Another card at a slot: whatever the card, its tag is not the one there.
            let c = &mut d.fairness.cards[0];
            c.card = Card::from_index((c.card.index() as u8 + 1) % 52).unwrap();
        },
        "another card",
    );
    // A proof of a card the viewer did not see: another player's folded hand.
    let operator = record_for(&record, &events, Viewer::Operator, 6);
    let extra = operator
        .fairness
        .cards
        .iter()
        .find(|c| !doc.fairness.cards.iter().any(|d| d.card == c.card))
        .cloned();
    if let Some(extra) = extra {
        let mut d = doc.clone();
        d.fairness.cards.push(extra);
        d.fairness.cards.sort_by_key(|c| (c.round, c.slot));
        assert!(verify(&d, MySeed::Unknown).is_err());
    }
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
