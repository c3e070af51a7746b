//! Admin API request bodies: `POST /admin/tables` through `parse_new_table` and
//! deposit/withdraw bodies through `parse_money`; neither may panic. A table spec the API
//! accepts must then work the way the table actor uses it: the table is built, 2-3
//! players sit with the maximum buy-in, and up to three planned hands are dealt from a
//! deck and played to the end with legal actions chosen by the input, every legal action
//! being accepted, chips conserved, and `finish_hand` taking the result.
//!
//! Input layout: the body is everything before the first NUL byte; the bytes after it
//! choose seats, the deck order and the actions (defaults once they run out).
//!
//! `ADMIN_BODIES_STRICT=1` also fails when an accepted spec cannot deal a hand
//! (`Hand::new` refusing the plan's config): off by default, the server only logs that.
//!
//! The check is this file's [`check`]: the libFuzzer target (`admin_bodies.rs`) calls it,
//! and the server's test suite replays the corpus and the regressions through it
//! (crates/poker-server/tests/server/admin_bodies.rs), so CI checks them without building
//! poker-server instrumented.

use poker_rules::table::{Entry, Table};
use poker_rules::{Action, Card, CardSource, Cards, Decision, Hand};
use poker_server::http::admin::{parse_money, parse_new_table};

/// The choice bytes, with a default once they are used up.
struct Choices<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Choices<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    fn u64(&mut self) -> u64 {
        (0..8).fold(0u64, |acc, _| acc << 8 | u64::from(self.byte()))
    }
}

/// A Fisher-Yates shuffle with a small deterministic generator (splitmix64).
fn shuffle(cards: &mut [Card], seed: u64) {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for i in (1..cards.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        cards.swap(i, j);
    }
}

fn env_flag(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| v == "1")
}

fn strict() -> bool {
    static STRICT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *STRICT.get_or_init(|| env_flag("ADMIN_BODIES_STRICT"))
}

/// `ADMIN_BODIES_DEBUG=1`: say what happened to each input (for checking seeds).
fn debug() -> bool {
    static DEBUG: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DEBUG.get_or_init(|| env_flag("ADMIN_BODIES_DEBUG"))
}

/// A betting action among the legal ones.
fn bet_action(legal: &poker_rules::LegalActions, c: &mut Choices) -> Action {
    let mut options: Vec<Action> = Vec::new();
    if legal.check {
        options.push(Action::Check);
    }
    if legal.call.is_some() {
        options.push(Action::Call);
    }
    if legal.bring_in.is_some() {
        options.push(Action::BringIn);
    }
    if let Some((min, max)) = legal.bet_or_raise {
        options.push(Action::BetOrRaiseTo { to: min });
        options.push(Action::BetOrRaiseTo { to: max });
        // Something in between, on the betting unit.
        let unit = legal.unit.max(1);
        let span = (max - min) / unit;
        if span > 1 {
            let k = c.u64() % (span + 1);
            options.push(Action::BetOrRaiseTo { to: min + k * unit });
        }
    }
    if legal.fold {
        options.push(Action::Fold);
    }
    options[usize::from(c.byte()) % options.len()]
}

fn play(hand: &mut Hand, c: &mut Choices, deck_seed: u64) {
    let mut steps = 0u32;
    while !hand.is_complete() {
        steps += 1;
        assert!(steps < 5_000, "the hand does not end: {:?}", hand.phase());
        if let Some(muck) = hand.needs_reshuffle() {
            let mut cards = muck.to_vec();
            shuffle(&mut cards, deck_seed ^ u64::from(steps));
            hand.reshuffle(cards).expect("a reshuffle of the discards");
            continue;
        }
        let p = hand
            .to_act()
            .unwrap_or_else(|| panic!("an unfinished hand waits for nobody: {:?}", hand.phase()));
        let decision = hand.decision().expect("a player to act has a decision");
        match decision {
            Decision::Bet(legal) => {
                assert_eq!(legal.player, p, "the decision is for the player to act");
                let action = bet_action(&legal, c);
                if let Err(e) = hand.apply(p, action) {
                    panic!("legal {action:?} refused: {e} (legal: {legal:?})");
                }
            }
            Decision::Draw => {
                let mask = c.byte();
                let hole = hand.players()[p].hole;
                let discards: Vec<Card> = hole
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| mask >> (i % 8) & 1 == 1)
                    .map(|(_, &card)| card)
                    .collect();
                let discards = Cards::from_slice(&discards).expect("at most seven");
                if hand.apply(p, Action::Draw { discards }).is_err() {
                    // Too many discards for the game: standing pat is always allowed.
                    hand.apply(
                        p,
                        Action::Draw {
                            discards: Cards::new(),
                        },
                    )
                    .expect("standing pat is allowed");
                }
            }
            Decision::Showdown { can_muck } => {
                let action = if can_muck && (hand.is_beaten(p) || c.byte() & 1 == 1) {
                    Action::Muck
                } else {
                    Action::Show { cards: None }
                };
                hand.apply(p, action).expect("show or muck at showdown");
            }
            Decision::RunItTwice => {
                let agree = c.byte() & 1 == 1;
                hand.apply(p, Action::RunItTwice { agree })
                    .expect("answering run it twice");
            }
        }
    }
}

/// Parses one input as both bodies and plays what an accepted table deals; panics on any
/// broken promise.
pub fn check(data: &[u8]) {
    let split = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let (body, rest) = (&data[..split], data.get(split + 1..).unwrap_or(&[]));
    let money = parse_money(body);
    let (name, spec) = match parse_new_table(body) {
        Ok(x) => x,
        Err(e) => {
            if debug() {
                eprintln!("table refused: {e:?}; money: {money:?}");
            }
            return;
        }
    };
    if debug() {
        eprintln!("table accepted: {name:?}");
    }
    let rules = spec.rules.clone();
    let Ok(mut table) = Table::<u32>::new(rules.clone()) else {
        return;
    };
    let mut c = Choices { bytes: rest, at: 0 };
    let players = 2 + usize::from(c.byte() % 2).min(rules.seat_count - 2);
    let mut seated = 0u32;
    let mut seat = usize::from(c.byte()) % rules.seat_count;
    while seated < players as u32 {
        let player = seated + 1;
        let result = if c.byte() & 1 == 0 {
            table.sit_down(seat, player, rules.max_buy_in, Entry::PostNow, None, 0)
        } else {
            table.restore_seat(seat, player, rules.max_buy_in)
        };
        result.unwrap_or_else(|e| panic!("seating player {player} at seat {seat}: {e}"));
        seated += 1;
        if seated < players as u32 {
            // The next free seat, sometimes leaving one empty between.
            seat = (seat + 1 + usize::from(c.byte() % 2)) % rules.seat_count;
            while table.seats()[seat].is_some() {
                seat = (seat + 1) % rules.seat_count;
            }
        }
    }
    let hands = 1 + c.byte() % 3;
    for number in 0..hands {
        let (plan, _stood_up) = table.next_hand();
        let Some(plan) = plan else {
            if debug() {
                eprintln!("  no hand {number}");
            }
            return;
        };
        let mut deck = plan.config.game.deck().cards();
        let deck_seed = c.u64();
        shuffle(&mut deck, deck_seed);
        let start: u128 = plan.config.seats.iter().map(|s| u128::from(s.stack)).sum();
        let mut hand = match Hand::new(plan.config.clone(), CardSource::Deck(deck)) {
            Ok((hand, _events)) => hand,
            Err(e) => {
                if debug() {
                    eprintln!("  cannot deal: {e}");
                }
                if strict() {
                    panic!("an accepted table cannot deal: {e}\nplan: {plan:?}");
                }
                return;
            }
        };
        play(&mut hand, &mut c, deck_seed);
        if debug() {
            eprintln!("  hand {number} played: {:?}", hand.final_stacks());
        }
        let end: u128 = hand
            .final_stacks()
            .expect("complete")
            .iter()
            .map(|&s| u128::from(s))
            .sum::<u128>()
            + u128::from(hand.rake());
        assert_eq!(start, end, "chips were created or lost");
        table
            .finish_hand(&hand)
            .unwrap_or_else(|e| panic!("finish_hand refused the played hand: {e}"));
    }
}
