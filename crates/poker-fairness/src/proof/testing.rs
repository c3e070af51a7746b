//! Hands played by the engine with a committed deck, for the tests here and in the
//! server's: one hand of `game` for `players`, deterministic from `seed`.

use super::*;
use crate::bytes::Bytes;
use crate::deck::{rounds_for, CommittedDeck};
use poker_rules::{
    Action, CardSource, Cards, Decision, Game, Hand, HandConfig, HandOptions, SeatConfig, Stakes,
    Structure,
};

/// A small deterministic generator (splitmix64), so tests need no RNG crate.
pub struct Mix(pub u64);

impl Mix {
    /// The next number.
    pub fn word(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.word() % n
    }

    /// `N` bytes.
    pub fn bytes<const N: usize>(&mut self) -> Bytes<N> {
        let mut b = [0u8; N];
        for x in b.iter_mut() {
            *x = self.word() as u8;
        }
        Bytes(b)
    }
}

/// A configuration: fixed limit for stud and draw games, no limit otherwise; stacks of
/// 200, blinds 1/2 (antes and a bring-in in stud).
pub fn config(game: Game, players: usize) -> HandConfig {
    let stud = game.opening() != poker_rules::game::Opening::Position;
    let structure = if stud || game.is_draw() {
        Structure::FixedLimit
    } else {
        Structure::NoLimit
    };
    let seats = (0..players)
        .map(|i| SeatConfig {
            stack: 200,
            ante: u64::from(stud),
            blind: match (stud, i) {
                (true, _) => 0,
                (false, 0) => 1,
                (false, 1) => 2,
                _ => 0,
            },
            ..SeatConfig::default()
        })
        .collect();
    let mut config = HandConfig::new(
        game,
        structure,
        Stakes {
            min_bet: 2,
            small_bet: 2,
            big_bet: 4,
            bring_in: u64::from(stud),
        },
        seats,
    );
    config.max_raises = (structure == Structure::FixedLimit).then_some(4);
    config.options = HandOptions {
        run_it_twice: game.has_board(),
        ..HandOptions::default()
    };
    config
}

/// The seed player (seat) `seat` sends in the tests: the byte `seat + 1`, 32 times.
pub fn test_seed(seat: u8) -> Seed {
    Bytes([seat + 1; 32])
}

/// Plays one hand: the deck committed, seeds committed and revealed (most players send
/// one, some commit and never reveal, some send nothing; seat 5, when dealt in, is the
/// house's and always reveals), random legal decisions, reshuffles through the committed
/// deck. Returns the server's record of the deck and every event (all cards known).
pub fn play(game: Game, players: usize, seed: u64) -> (DeckRecord, Vec<Event>) {
    play_config(config(game, players), seed)
}

/// A hand id from the generator.
fn hand_id(mix: &mut Mix) -> HandId {
    let id: Bytes<16> = mix.bytes();
    let t = id.to_string();
    format!(
        "{}-{}-4{}-8{}-{}",
        &t[..8],
        &t[8..12],
        &t[13..16],
        &t[17..20],
        &t[20..32]
    )
    .parse()
    .expect("a UUID")
}

/// [`play`] with this configuration.
pub fn play_config(config: HandConfig, seed: u64) -> (DeckRecord, Vec<Event>) {
    let game = config.game;
    let players = config.seats.len();
    let mut mix = Mix(seed);
    let deck = CommittedDeck::new(
        hand_id(&mut mix),
        game.deck(),
        rounds_for(game),
        mix.bytes(),
    )
    .expect("a deck");
    let commitment = deck.commitment().commitment;
    let mut seed_list = Vec::new();
    let mut seeds = Vec::new();
    for seat in 0..players as u8 {
        let house = seat == 5;
        let roll = if house { 3 } else { mix.below(6) };
        // 0: no seed; 1: committed, not revealed; else committed and revealed.
        if roll > 0 {
            seed_list.push(SeedCommit {
                seat,
                commitment: seed_commitment(&commitment, &test_seed(seat)),
                house,
            });
        }
        if roll > 1 {
            seeds.push(SeatSeed {
                seat,
                seed: test_seed(seat),
            });
        }
    }
    let mut dealing = deck.dealing(seed_list, seeds);
    let (mut hand, mut events) =
        Hand::new(config, CardSource::Deck(deck.dealt_cards(&dealing))).expect("a hand");
    for _ in 0..10_000 {
        if let Some(muck) = hand.needs_reshuffle() {
            let cards = deck.reshuffle(&mut dealing, muck).expect("discards");
            events.extend(hand.reshuffle(cards).expect("a reshuffle"));
            continue;
        }
        let Some(p) = hand.to_act() else { break };
        let action = match hand.decision().expect("a decision") {
            Decision::Bet(legal) => match mix.below(10) {
                0 if legal.fold && legal.call.is_some() => Action::Fold,
                1 | 2 if legal.bet_or_raise.is_some() => Action::BetOrRaiseTo {
                    to: legal.bet_or_raise.expect("checked").0,
                },
                _ if legal.bring_in.is_some() => Action::BringIn,
                _ if legal.call.is_some() => Action::Call,
                _ => Action::Check,
            },
            Decision::Draw => {
                let hole = hand.players()[p].hole;
                let mut discards = Cards::new();
                for &c in hole.iter() {
                    if mix.below(2) == 0 {
                        discards.push(c);
                    }
                }
                Action::Draw { discards }
            }
            Decision::Showdown { can_muck } if can_muck && mix.below(2) == 0 => Action::Muck,
            Decision::Showdown { .. } => Action::Show { cards: None },
            Decision::RunItTwice => Action::RunItTwice {
                agree: mix.below(2) == 0,
            },
        };
        events.extend(hand.apply(p, action).expect("a legal action"));
    }
    assert!(hand.is_complete(), "the hand ends");
    (deck.record(&dealing), events)
}

/// The events as player `viewer` saw them: others' down cards and discards unknown.
pub fn seen_by(events: &[Event], viewer: usize) -> Vec<Event> {
    let hide = |cards: &Cards, up: u8| {
        let mut out = Cards::new();
        for (k, &c) in cards.iter().enumerate() {
            out.push(if up >> k & 1 == 1 { c } else { Card::UNKNOWN });
        }
        out
    };
    events
        .iter()
        .map(|e| match e {
            Event::HoleDealt { player, cards, up } if *player != viewer => Event::HoleDealt {
                player: *player,
                cards: hide(cards, *up),
                up: *up,
            },
            Event::Discarded { player, cards } if *player != viewer => Event::Discarded {
                player: *player,
                cards: hide(cards, 0),
            },
            other => other.clone(),
        })
        .collect()
}

/// The record a viewer downloads (seat `i` for player `i`).
pub fn record_for(record: &DeckRecord, events: &[Event], viewer: Viewer, players: usize) -> Record {
    let (me, seen) = match viewer {
        Viewer::Player(i) => (Some(i), seen_by(events, i)),
        Viewer::Operator => (None, events.to_vec()),
    };
    Record {
        hand_id: record.hand_id,
        seats: (0..players as u32).collect(),
        me,
        events: seen,
        fairness: prove(record, events, viewer).expect("proofs"),
    }
}

/// What player `i` knows of their own seed in [`play`]'s hands.
pub fn my_seed(record: &DeckRecord, i: usize) -> MySeed {
    let seat = i as u8;
    let revealed = record.seeds.iter().any(|s| s.seat == seat);
    let committed = record.seed_list.iter().any(|s| s.seat == seat);
    match (committed, revealed) {
        (_, true) => MySeed::Sent {
            seed: test_seed(seat),
            list: Some(crate::seeds::list_digest(
                &record.deck().expect("a deck").commitment().commitment,
                &record.seed_list,
            )),
        },
        (false, false) => MySeed::None,
        (true, false) => MySeed::Unknown,
    }
}
