//! Records forged the way an auditor would (and a dishonest server could: with the
//! deck's secret, every opening it needs), each with the error every verifier must give.
//! The crate's tests check them here; `docs/fairness/vectors.json` carries them for the
//! other verifiers (`verify.py --vectors`, the page's tests).

use super::testing::{my_seed, play, record_for, seen_by};
use super::*;
use crate::deck::tag_hash;
use crate::shuffle::round_order;
use poker_rules::Game;

/// One forged record.
pub struct Attack {
    /// A short name.
    pub name: &'static str,
    /// What it tries.
    pub what: &'static str,
    /// The record as the viewer would download it.
    pub record: Record,
    /// What the viewer knows of their own seed.
    pub mine: MySeed,
    /// The error's code ([`VerifyError::code`]).
    pub error: &'static str,
}

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

/// The cards reshuffled and dealt again in the hand, with who got them.
fn redealt(record: &DeckRecord, events: &[Event]) -> Vec<(usize, Card)> {
    let Ok(walk) = walk(events, record.size as usize, &record.reshuffles, None) else {
        return Vec::new();
    };
    walk.taken
        .iter()
        .filter(|t| t.round > 0)
        .filter_map(|t| match t.kind {
            Kind::Hole { player, .. } => Some((player, t.card)),
            _ => None,
        })
        .collect()
}

/// Opponent `p` "kept" `card`, which they threw away (and which was dealt again), and
/// "threw away" instead a card of their hand shown that they held then: the events so
/// changed, and every proof made honestly from the server's secret for them. `None`
/// when no card of the hand shown was held then.
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

/// A triple-draw hand with a reshuffle and a viewer for which `fits` gives something.
fn find<T>(
    fits: impl Fn(&DeckRecord, &[Event], usize) -> Option<T>,
) -> (DeckRecord, Vec<Event>, usize, T) {
    for seed in 0..2000 {
        let (record, events) = play(Game::DeuceToSevenTripleDraw, 6, seed);
        if record.reshuffles.is_empty() {
            continue;
        }
        for me in 0..6 {
            if let Some(t) = fits(&record, &events, me) {
                return (record, events, me, t);
            }
        }
    }
    panic!("no such hand in 2000");
}

/// The shown-card forgery: an opponent who showed "keeps" a card they threw away that
/// the reshuffle dealt again, to the viewer or to someone else.
fn shown_discard(to_viewer: bool) -> Attack {
    let (record, _, me, (forged, proof)) = find(|record, events, me| {
        redealt(record, events)
            .into_iter()
            .filter(|&(got, _)| (got == me) == to_viewer)
            .find_map(|(got, card)| {
                (0..6)
                    .filter(|&p| p != me && p != got && discards_of(events, p).contains(&card))
                    .find_map(|p| forge_show(record, events, me, p, card))
            })
    });
    Attack {
        name: if to_viewer {
            "shown_discard_dealt_to_viewer"
        } else {
            "shown_discard_dealt_to_another"
        },
        what: if to_viewer {
            "an opponent shows a card they threw away, which the reshuffle dealt to the viewer"
        } else {
            "an opponent shows a card they threw away, which the reshuffle dealt to another player"
        },
        record: Record {
            hand_id: record.hand_id,
            seats: (0..6).collect(),
            me: Some(me),
            events: seen_by(&forged, me),
            fairness: proof,
        },
        mine: MySeed::Unknown,
        error: "reshuffle_took_kept",
    }
}

/// The slot of `card` in `round`, as the server (holding every nonce) knows it.
fn slot_of(record: &DeckRecord, round: u8, card: Card) -> u8 {
    let deck = record.deck().expect("a deck");
    let key = record.dealing(&deck).key;
    let (nonce, _) = deck.opening(round, card).expect("a card of the deck");
    let tag = tag_hash(round, card, &nonce);
    let index = deck.tags(round).binary_search(&tag).expect("a tag") as u8;
    let order = round_order(&key, round, deck.size());
    order
        .iter()
        .position(|&x| x == index)
        .expect("a permutation") as u8
}

/// A hold'em hand with a house seat that revealed, a player (1) who committed and
/// revealed, one (2) who sent nothing, and a showdown.
fn holdem() -> (DeckRecord, Vec<Event>) {
    (0..)
        .map(|s| play(Game::Holdem, 6, s))
        .find(|(r, e)| {
            r.seeds.iter().any(|s| s.seat == 5)
                && r.seeds.iter().any(|s| s.seat == 1)
                && !r.seed_list.iter().any(|s| s.seat == 2)
                && e.iter().any(|e| matches!(e, Event::Shown { .. }))
        })
        .expect("such a hand")
}

/// Every forged record.
pub fn attacks() -> Vec<Attack> {
    let mut out = vec![shown_discard(false), shown_discard(true)];

    // The show alone names a card its player threw away.
    let (record, events, me, (p, card)) = find(|_, events, me| {
        (0..6).filter(|&p| p != me).find_map(|p| {
            let thrown = discards_of(events, p);
            let shown = shown_of(events, p)?;
            let card = thrown.into_iter().find(|c| !shown.contains(c))?;
            Some((p, card))
        })
    });
    let mut doc = record_for(&record, &events, Viewer::Player(me), 6);
    for ev in doc.events.iter_mut() {
        if let Event::Shown { player, cards } = ev {
            if *player == p {
                cards.as_mut_slice()[0] = card;
            }
        }
    }
    out.push(Attack {
        name: "shown_card_thrown_away",
        what: "an opponent's hand shown names a card they threw away",
        record: doc,
        mine: MySeed::Unknown,
        error: "shown_not_held",
    });

    // A reshuffle takes a card the viewer holds instead of another player's discard;
    // the viewer got nothing from it, so only the accounting can tell.
    let (record, events, me, held) = find(|record, events, me| {
        let proof = prove(record, events, Viewer::Player(me)).ok()?;
        if proof.cards.iter().any(|c| c.round > 0) {
            return None;
        }
        proof.kept.iter().find(|k| k.round == 1).map(|k| k.card)
    });
    let honest = record_for(&record, &events, Viewer::Player(me), 6);
    let mut doc = honest.clone();
    let list = &mut doc.fairness.reshuffles[0];
    list.pop();
    list.push(slot_of(&record, 1, held));
    list.sort_unstable();
    out.push(Attack {
        name: "reshuffle_takes_held_card",
        what:
            "a reshuffle takes a card the viewer still holds in place of another player's discard",
        record: doc.clone(),
        mine: MySeed::Unknown,
        error: "reshuffle_took_kept",
    });
    doc.fairness
        .kept
        .retain(|k| !(k.round == 1 && k.card == held));
    out.push(Attack {
        name: "reshuffle_takes_held_card_opening_left_out",
        what: "the same, with the viewer's opening of that card in the reshuffle's round left out",
        record: doc,
        mine: MySeed::Unknown,
        error: "kept_missing",
    });
    let mut doc = honest.clone();
    doc.fairness.reshuffles[0].pop();
    out.push(Attack {
        name: "reshuffle_one_card_short",
        what: "a reshuffle takes one card fewer than were thrown away",
        record: doc,
        mine: MySeed::Unknown,
        error: "reshuffle_count",
    });

    // A discard of the viewer's named by other numbers than the cards they threw.
    let (record, events, me, index) = find(|_, events, me| {
        events
            .iter()
            .filter(|e| matches!(e, Event::Discarded { .. }))
            .position(|e| matches!(e, Event::Discarded { player, cards } if *player == me && !cards.is_empty() && cards.len() < 5))
    });
    let mut doc = record_for(&record, &events, Viewer::Player(me), 6);
    let numbers = &mut doc.fairness.discards[index];
    let held_then: Vec<u8> = (0..20).filter(|n| !numbers.contains(n)).collect();
    numbers[0] = held_then[0];
    numbers.sort_unstable();
    out.push(Attack {
        name: "discard_renamed",
        what: "the viewer's discard is named by numbers of other cards than they threw",
        record: doc,
        mine: MySeed::Unknown,
        error: "discard_cards",
    });

    // Seeds: the house's chosen after the players' were seen, swapped, withheld; a
    // seed in the name of a player who sent none; a player's seed dropped.
    let (record, events) = holdem();
    let doc = record_for(&record, &events, Viewer::Player(1), 6);
    let sent = my_seed(&record, 1);
    let house = doc
        .fairness
        .seed_list
        .iter()
        .find(|s| s.house)
        .map(|s| s.seat)
        .expect("a house seat");
    let chosen = crate::Bytes([0x99; 32]);
    let mut forged = doc.clone();
    for e in forged
        .fairness
        .seed_list
        .iter_mut()
        .filter(|s| s.seat == house)
    {
        e.commitment = seed_commitment(&doc.fairness.commitment, &chosen);
    }
    for s in forged.fairness.seeds.iter_mut().filter(|s| s.seat == house) {
        s.seed = chosen;
    }
    out.push(Attack {
        name: "house_seed_chosen_after",
        what: "the house's seed made after the players' were seen (its commitment replaced): the list is not the one the viewer was sent before revealing",
        record: forged,
        mine: sent,
        error: "list_changed",
    });
    let mut forged = doc.clone();
    for s in forged.fairness.seeds.iter_mut().filter(|s| s.seat == house) {
        s.seed = chosen;
    }
    out.push(Attack {
        name: "house_seed_swapped",
        what: "the house's seed swapped, its commitment kept",
        record: forged,
        mine: MySeed::Unknown,
        error: "seed_open",
    });
    let mut forged = doc.clone();
    forged.fairness.seeds.retain(|s| s.seat != house);
    out.push(Attack {
        name: "house_seed_withheld",
        what: "the house committed and did not reveal (choosing between two orders)",
        record: forged,
        mine: MySeed::Unknown,
        error: "house_withheld",
    });
    let mut forged = doc.clone();
    forged.fairness.seeds.retain(|s| s.seat != 1);
    out.push(Attack {
        name: "own_seed_dropped",
        what: "the viewer's seed left out",
        record: forged,
        mine: sent,
        error: "own_seed",
    });
    let mut forged = record_for(&record, &events, Viewer::Player(2), 6);
    let fake = crate::Bytes([0x42; 32]);
    forged.fairness.seed_list.push(SeedCommit {
        seat: 2,
        commitment: seed_commitment(&forged.fairness.commitment, &fake),
        house: false,
    });
    forged.fairness.seed_list.sort_by_key(|s| s.seat);
    forged.fairness.seeds.push(SeatSeed {
        seat: 2,
        seed: fake,
    });
    forged.fairness.seeds.sort_by_key(|s| s.seat);
    out.push(Attack {
        name: "seed_in_my_name",
        what: "a seed used in the name of the viewer, who sent none",
        record: forged,
        mine: MySeed::None,
        error: "seed_in_my_name",
    });

    // Tampering with the openings and the commitment.
    let mut d = doc.clone();
    d.fairness.cards[0].nonce.0[0] ^= 1;
    out.push(Attack {
        name: "nonce_changed",
        what: "a card's nonce changed",
        record: d,
        mine: MySeed::Unknown,
        error: "path",
    });
    let mut d = doc.clone();
    d.fairness.cards.pop();
    out.push(Attack {
        name: "card_unproved",
        what: "a card the record shows left without its opening",
        record: d,
        mine: MySeed::Unknown,
        error: "unproved",
    });
    let operator = record_for(&record, &events, Viewer::Operator, 6);
    let unseen = operator
        .fairness
        .cards
        .iter()
        .find(|c| !doc.fairness.cards.iter().any(|d| d.card == c.card))
        .cloned()
        .expect("a card the viewer did not see");
    let mut d = doc.clone();
    d.fairness.cards.push(unseen);
    d.fairness.cards.sort_by_key(|c| (c.round, c.slot));
    out.push(Attack {
        name: "unseen_card_opened",
        what: "an opening of another player's card the viewer never saw",
        record: d,
        mine: MySeed::Unknown,
        error: "not_shown",
    });
    // The viewer's own cards written unknown and left unproved (a record that shows less
    // than the viewer saw proves less).
    let mut d = doc.clone();
    for ev in d.events.iter_mut() {
        if let Event::HoleDealt {
            player: 1, cards, ..
        } = ev
        {
            for c in cards.as_mut_slice() {
                *c = Card::UNKNOWN;
            }
        }
    }
    let own: Vec<Card> = record_for(&record, &events, Viewer::Player(1), 6)
        .events
        .iter()
        .filter_map(|e| match e {
            Event::HoleDealt {
                player: 1, cards, ..
            } => Some(cards.to_vec()),
            _ => None,
        })
        .flatten()
        .collect();
    d.fairness.cards.retain(|c| !own.contains(&c.card));
    d.fairness.kept.retain(|k| !own.contains(&k.card));
    out.push(Attack {
        name: "own_cards_hidden",
        what: "the viewer's own cards written unknown (??) and left unproved",
        record: d,
        mine: MySeed::Unknown,
        error: "format",
    });
    let mut d = doc.clone();
    d.fairness.commitment.0[0] ^= 1;
    out.push(Attack {
        name: "commitment_changed",
        what: "the commitment is not the hash of its parts",
        record: d,
        mine: MySeed::Unknown,
        error: "commitment",
    });
    let mut d = doc;
    d.fairness.tags[0].swap(3, 4);
    out.push(Attack {
        name: "tags_out_of_order",
        what: "round 0's tags not in ascending order",
        record: d,
        mine: MySeed::Unknown,
        error: "tags",
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_forged_record_is_refused_with_its_error_and_every_honest_one_checks() {
        for a in attacks() {
            let e = verify(&a.record, a.mine).expect_err(a.name);
            assert_eq!(e.code(), a.error, "{}: {e}", a.name);
        }
    }
}
