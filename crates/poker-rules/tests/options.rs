//! The house options of the texts (R9, R10, R13-R17, R20-R22, R24, R25, R30-R32, R36),
//! each with its worked example where the texts give one, through the public API.

mod common;

use common::*;
use poker_rules::StraddleRule;
use poker_rules::{
    Action, ActionError, BlindKind, ConfigError, Event, Game, HandConfig, Phase, PotLimitPreflop,
    Rake, RakeRounding, SeatConfig, Stakes, Structure,
};

#[path = "options/posts.rs"]
mod posts;

fn seats(list: &[(u64, u64, u64, BlindKind)]) -> Vec<SeatConfig> {
    list.iter()
        .map(|&(stack, ante, blind, kind)| SeatConfig {
            stack,
            ante,
            blind,
            kind,
        })
        .collect()
}

fn holdem(structure: Structure, stakes: Stakes, seats: Vec<SeatConfig>) -> HandConfig {
    HandConfig::new(Game::Holdem, structure, stakes, seats)
}

const NL: Stakes = Stakes {
    min_bet: 2,
    small_bet: 0,
    big_bet: 0,
    bring_in: 0,
};

const B: BlindKind = BlindKind::Blind;
const HOLES: [&str; 5] = ["AsAh", "KsKh", "QsQh", "JsJh", "TsTh"];
const BOARD: &str = "2c7d8h3cKd4s9d";

fn table(config: HandConfig) -> Table {
    let n = config.seats.len();
    Table::new(config, &HOLES[..n], BOARD)
}

#[test]
fn r21_spread_limit_one_to_five_ten_on_the_end() {
    let mut cfg = holdem(
        Structure::SpreadLimit,
        Stakes::default(),
        seats(&[(100, 1, 0, B), (100, 1, 0, B), (100, 1, 0, B)]),
    );
    cfg.options.spread = vec![(1, 5), (1, 5), (1, 5), (1, 10)];
    let mut t = table(cfg);
    assert_eq!(t.legal().bet_or_raise, Some((1, 5)));
    t.act(0, bet(3));
    // A raise is at least the previous bet, at most the spread.
    assert_eq!(t.legal().bet_or_raise, Some((6, 8)));
    assert_eq!(
        t.try_act(1, bet(9)),
        Err(ActionError::BetOutOfRange {
            min: 6,
            max: 8,
            got: 9
        })
    );
    t.act(1, Action::Call);
    t.act(2, Action::Call);
    for _ in 0..2 {
        for p in 0..3 {
            t.act(p, Action::Check);
        }
    }
    assert_eq!(t.legal().bet_or_raise, Some((1, 10)), "ten on the end");
}

#[test]
fn r21_california_spread_ranges_per_street() {
    let mut cfg = holdem(
        Structure::SpreadLimit,
        Stakes::default(),
        seats(&[(100, 0, 1, B), (100, 0, 2, B), (100, 0, 0, B)]),
    );
    cfg.options.spread = vec![(2, 4), (2, 4), (2, 8)];
    let mut t = table(cfg);
    assert_eq!(
        t.legal().bet_or_raise,
        Some((4, 6)),
        "a raise of 2 to 4 over the $2 blind"
    );
    t.act(2, Action::Call);
    t.act(0, Action::Call);
    t.act(1, Action::Check);
    assert_eq!(t.legal().bet_or_raise, Some((2, 4)));
    for p in 0..3 {
        t.act(p, Action::Check);
    }
    assert_eq!(
        t.legal().bet_or_raise,
        Some((2, 8)),
        "the last range serves later streets"
    );
}

#[test]
fn r24_cap_limit_one_two_no_limit_with_a_sixty_cap() {
    let mut cfg = holdem(
        Structure::NoLimit,
        NL,
        seats(&[(500, 0, 0, B), (500, 0, 0, B), (500, 0, 0, B)]),
    );
    cfg.options.cap = Some(60);
    let mut t = Table::new(cfg, &["7c2d", "8c3d", "AsAh"], "KdQc5h4s9d");
    t.act(0, bet(2));
    t.act(1, bet(10));
    assert_eq!(
        t.legal().bet_or_raise.map(|r| r.1),
        Some(60),
        "C may raise to at most $60"
    );
    t.act(2, bet(60));
    assert_eq!(t.legal().call, Some(58));
    t.act(0, Action::Call);
    assert_eq!(t.legal().call, Some(50));
    t.act(1, Action::Call);
    // Everyone is capped: no more wagering, the board is dealt out.
    assert_eq!(t.hand.phase(), Phase::Showdown);
    t.show_all();
    assert_eq!(t.stacks(), vec![440, 440, 620], "the winner collects $180");
}

#[test]
fn r25_bets_are_multiples_of_the_betting_unit() {
    let mut cfg = holdem(
        Structure::NoLimit,
        Stakes {
            min_bet: 10,
            ..Stakes::default()
        },
        seats(&[(1000, 0, 5, B), (1000, 0, 10, B), (333, 0, 0, B)]),
    );
    cfg.options.unit = 5;
    let mut t = table(cfg);
    let l = t.legal();
    assert_eq!((l.unit, l.bet_or_raise), (5, Some((20, 333))));
    assert_eq!(t.try_act(2, bet(23)), Err(ActionError::OffUnit { unit: 5 }));
    t.act(2, bet(333)); // all in is allowed off the unit
    assert_eq!(
        t.legal().bet_or_raise,
        Some((660, 1000)),
        "the minimum rounded up to the unit"
    );
    assert_eq!(
        t.try_act(0, bet(661)),
        Err(ActionError::OffUnit { unit: 5 })
    );
    t.act(0, bet(665));
    t.act(1, Action::Fold);
    assert_eq!(t.stacks()[1], 990);
}

#[test]
fn r22_pot_limit_preflop_assumed_call_opens_for_four_big_blinds() {
    let four = seats(&[
        (1000, 0, 5, B),
        (1000, 0, 10, B),
        (1000, 0, 0, B),
        (1000, 0, 0, B),
    ]);
    let stakes = Stakes {
        min_bet: 10,
        ..Stakes::default()
    };
    let mut cfg = holdem(Structure::PotLimit, stakes, four.clone());
    cfg.options.pot_limit_preflop = PotLimitPreflop::AssumedCall;
    let t = table(cfg.clone());
    assert_eq!(
        t.legal().bet_or_raise,
        Some((20, 40)),
        "$5/$10: open to $40"
    );
    // Subsequent players still count the small blind as $10 until the big blind acts.
    let mut t = table(cfg);
    t.act(2, Action::Call);
    assert_eq!(t.legal().bet_or_raise.map(|r| r.1), Some(50));
    // The true pot: $35.
    let t = table(holdem(Structure::PotLimit, stakes, four));
    assert_eq!(t.legal().bet_or_raise, Some((20, 35)));
}

#[test]
fn r22_when_folded_to_the_small_blind_the_two_treatments_differ() {
    let stakes = Stakes {
        min_bet: 10,
        ..Stakes::default()
    };
    let three = seats(&[(1000, 0, 5, B), (1000, 0, 10, B), (1000, 0, 0, B)]);
    // The big blind as a raise of the small blind: call 5, raise 20, total 30.
    let mut t = table(holdem(Structure::PotLimit, stakes, three.clone()));
    t.act(2, Action::Fold);
    let l = t.legal();
    assert_eq!((l.call, l.bet_or_raise.map(|r| r.1)), (Some(5), Some(30)));
    // Blinds as dead money: the small blind must put in the whole bet to call, and may
    // make the same raise as anyone: three big blinds plus the small blind.
    let mut cfg = holdem(Structure::PotLimit, stakes, three);
    cfg.options.pot_limit_preflop = PotLimitPreflop::DeadSmallBlind;
    let mut t = table(cfg);
    t.act(2, Action::Fold);
    let l = t.legal();
    assert_eq!((l.call, l.bet_or_raise.map(|r| r.1)), (Some(10), Some(35)));
}

/// Alice, Bob, Carol, David; $20 bets on the flop; Carol has `carol` left for it.
fn half_bet_table(half_bet_rule: bool, carol: u64) -> Table {
    let stakes = Stakes {
        small_bet: 20,
        big_bet: 40,
        ..Stakes::default()
    };
    let mut cfg = holdem(
        Structure::FixedLimit,
        stakes,
        seats(&[
            (500, 0, 10, B),
            (500, 0, 20, B),
            (20 + carol, 0, 0, B),
            (500, 0, 0, B),
        ]),
    );
    cfg.options.half_bet_rule = half_bet_rule;
    let mut t = Table::new(cfg, &HOLES[..4], BOARD);
    t.act(2, Action::Call);
    t.act(3, Action::Call);
    t.act(0, Action::Call);
    t.act(1, Action::Check);
    t.act(0, Action::Check); // Alice
    t.act(1, Action::Check); // Bob
    t.act(2, bet(carol)); // Carol all in
    t
}

#[test]
fn r30_half_bet_rule_a_later_player_may_complete_an_incomplete_bet() {
    // David may fold, call $5, or complete the bet to $20.
    let mut calls = half_bet_table(true, 5);
    let l = calls.legal();
    assert_eq!(
        (l.player, l.call, l.bet_or_raise),
        (3, Some(5), Some((20, 20)))
    );
    calls.act(3, Action::Call);
    let l = calls.legal();
    assert_eq!(
        (l.player, l.call, l.bet_or_raise),
        (0, Some(5), None),
        "Alice may only call or fold"
    );
    let mut completes = half_bet_table(true, 5);
    completes.act(3, bet(20));
    let l = completes.legal();
    assert_eq!(
        (l.player, l.call, l.bet_or_raise),
        (0, Some(20), Some((40, 40))),
        "completing reopens"
    );
}

#[test]
fn r30_an_all_in_of_half_a_bet_reopens_under_the_half_bet_rule_only() {
    for (rule, reopened) in [(true, true), (false, false)] {
        let mut t = half_bet_table(rule, 12);
        t.act(3, Action::Call);
        let l = t.legal();
        assert_eq!((l.player, l.call), (0, Some(12)));
        assert_eq!(l.bet_or_raise.is_some(), reopened, "half bet rule {rule}");
    }
}

#[test]
fn r20_heads_up_may_be_judged_at_the_start_of_the_round_or_whenever_two_remain() {
    for (at_start, capped) in [(true, true), (false, false)] {
        let stakes = Stakes {
            small_bet: 2,
            big_bet: 4,
            ..Stakes::default()
        };
        let mut cfg = holdem(
            Structure::FixedLimit,
            stakes,
            seats(&[(500, 0, 1, B), (500, 0, 2, B), (500, 0, 0, B)]),
        );
        cfg.max_raises = Some(2);
        cfg.uncapped_heads_up = true;
        cfg.options.heads_up_at_round_start = at_start;
        let mut t = table(cfg);
        t.act(2, bet(4));
        t.act(0, Action::Fold); // two remain, but the round began three-handed
        t.act(1, bet(6));
        let l = t.legal();
        assert_eq!(l.player, 2);
        assert_eq!(
            l.bet_or_raise.is_none(),
            capped,
            "judged at round start: {at_start}"
        );
    }
}

fn all_in_heads_up(run_twice: bool) -> Table {
    let mut cfg = holdem(
        Structure::NoLimit,
        NL,
        seats(&[(100, 0, 2, B), (100, 0, 1, B)]),
    );
    cfg.options.run_it_twice = run_twice;
    // Run 1 (2c7d8h3c4s): the aces win; run 2 (KcQc5d6d9h): the kings make trips.
    let mut t = Table::new(cfg, &["AsAd", "KsKd"], "2c7d8h3c4sKcQc5d6d9h");
    t.act(1, bet(100));
    t.act(0, Action::Call);
    t
}

#[test]
fn r32_run_it_twice_deals_the_rest_twice_and_splits_each_pot() {
    let mut t = all_in_heads_up(true);
    assert_eq!(t.hand.phase(), Phase::RunItTwice);
    t.act(0, Action::RunItTwice { agree: true });
    t.act(1, Action::RunItTwice { agree: true });
    assert!(t.events.contains(&Event::RunningTwice));
    assert_eq!(t.hand.board(), cards_of("2c7d8h3c4s").as_slice());
    assert_eq!(
        t.hand.second_board(),
        Some(cards_of("KcQc5d6d9h").as_slice())
    );
    t.show_all();
    type RunAward = (u8, u64, Vec<(usize, u64)>);
    let awards: Vec<RunAward> = t
        .events
        .iter()
        .filter_map(|e| match e {
            Event::PotAwarded {
                run,
                amount,
                winners,
                ..
            } => Some((*run, *amount, winners.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        awards,
        vec![(0, 100, vec![(0, 100)]), (1, 100, vec![(1, 100)])]
    );
    assert_eq!(t.stacks(), vec![100, 100]);
}

/// R32 when the other hand is mucked: each run still wins half of the pot, both halves
/// going to the hand left (two awards, one per run, as PokerStars writes them).
#[test]
fn r32_a_mucked_hand_still_leaves_two_runs_of_the_pot() {
    let mut t = all_in_heads_up(true);
    t.act(0, Action::RunItTwice { agree: true });
    t.act(1, Action::RunItTwice { agree: true });
    let first = t.hand.to_act().expect("someone shows first");
    t.act(first, Action::Show { cards: None });
    let other = t.hand.to_act().expect("the other decides");
    t.act(other, Action::Muck);
    type RunAward = (u8, u64, Vec<(usize, u64)>);
    let runs: Vec<RunAward> = t
        .events
        .iter()
        .filter_map(|e| match e {
            Event::PotAwarded {
                run,
                amount,
                winners,
                ..
            } => Some((*run, *amount, winners.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        runs,
        vec![(0, 100, vec![(first, 100)]), (1, 100, vec![(first, 100)])]
    );
    let mut stacks = vec![0, 0];
    stacks[first] = 200;
    assert_eq!(t.stacks(), stacks, "chips conserved");
}

#[test]
fn r32_one_refusal_means_one_run() {
    let mut t = all_in_heads_up(true);
    t.act(0, Action::RunItTwice { agree: false });
    assert!(!t.events.contains(&Event::RunningTwice));
    assert_ne!(t.hand.phase(), Phase::RunItTwice);
    // Without the option nobody is asked.
    let t = all_in_heads_up(false);
    assert_ne!(t.hand.phase(), Phase::RunItTwice);
}

fn cards_of(s: &str) -> Vec<poker_rules::Card> {
    cards(s)
}

fn raked(rake: Rake, folds_preflop: bool) -> (u64, Vec<u64>) {
    let mut cfg = holdem(
        Structure::NoLimit,
        Stakes {
            min_bet: 10,
            ..Stakes::default()
        },
        seats(&[(1000, 0, 5, B), (1000, 0, 10, B), (1000, 0, 0, B)]),
    );
    cfg.options.rake = Some(rake);
    let mut t = table(cfg);
    if folds_preflop {
        t.act(2, bet(30));
        t.act(0, Action::Fold);
        t.act(1, Action::Fold);
    } else {
        t.act(2, bet(100));
        t.act(0, Action::Fold);
        t.act(1, Action::Call);
        for _ in 0..3 {
            t.act(1, Action::Check);
            t.act(2, Action::Check);
        }
        t.show_all();
    }
    (t.hand.rake(), t.stacks())
}

#[test]
fn r36_rake_is_a_percentage_with_a_cap_and_no_flop_no_drop() {
    let five = |cap, rounding| Rake {
        basis_points: 500,
        cap,
        no_flop_no_drop: true,
        rounding,
    };
    // Pot 205: 5% is 10.25.
    assert_eq!(raked(five(100, RakeRounding::Down), false).0, 10);
    assert_eq!(raked(five(100, RakeRounding::Up), false).0, 11);
    assert_eq!(raked(five(100, RakeRounding::Nearest), false).0, 10);
    assert_eq!(raked(five(3, RakeRounding::Down), false).0, 3, "capped");
    assert_eq!(
        raked(five(100, RakeRounding::Down), true).0,
        0,
        "no flop, no drop"
    );
    let mut always = five(100, RakeRounding::Down);
    always.no_flop_no_drop = false;
    let (rake, stacks) = raked(always, true);
    assert_eq!(
        rake, 1,
        "a pot of 25 (the raise's uncalled 20 went back) at 5%"
    );
    assert_eq!(stacks.iter().sum::<u64>() + rake, 3000);
    let (rake, stacks) = raked(five(100, RakeRounding::Down), false);
    assert_eq!(
        stacks.iter().sum::<u64>() + rake,
        3000,
        "chips conserved with the rake"
    );
}

/// R36 with side pots: the rake is the percentage of all the pots, rounded once, taken
/// from the main pot first, then from each side pot what it adds to the rake of the pots
/// before it, up to the cap (PokerStars' split: a side pot is not rounded on its own).
#[test]
fn r36_rake_of_side_pots_is_rounded_once_over_the_pots() {
    let played = |cap| {
        let mut cfg = holdem(
            Structure::NoLimit,
            Stakes {
                min_bet: 10,
                ..Stakes::default()
            },
            seats(&[(33, 0, 5, B), (1000, 0, 10, B), (1000, 0, 0, B)]),
        );
        cfg.options.rake = Some(Rake {
            basis_points: 500,
            cap,
            no_flop_no_drop: true,
            rounding: RakeRounding::Down,
        });
        let mut t = table(cfg);
        t.act(2, bet(50));
        t.act(0, Action::Call);
        t.act(1, Action::Call);
        for _ in 0..3 {
            t.act(1, Action::Check);
            t.act(2, Action::Check);
        }
        t.show_all();
        let pots: Vec<(usize, u64)> = t
            .events
            .iter()
            .filter_map(|e| match e {
                Event::PotAwarded { pot, amount, .. } => Some((*pot, *amount)),
                _ => None,
            })
            .collect();
        assert_eq!(
            t.stacks().iter().sum::<u64>() + t.hand.rake(),
            2033,
            "chips conserved with the rake"
        );
        (t.hand.rake(), pots)
    };
    // Main pot 99, side pot 34: 5% of 99 is 4.95, of all 133 is 6.65. Rounded pot by
    // pot the rake would be 4 + 1; rounded once it is 6, the side pot giving 2.
    assert_eq!(played(100), (6, vec![(1, 32), (0, 95)]));
    // A cap of 5: the main pot gives its 4, the side pot what is left under the cap.
    assert_eq!(played(5), (5, vec![(1, 33), (0, 95)]));
    // A cap the main pot reaches alone: the side pot gives nothing.
    assert_eq!(played(3), (3, vec![(1, 34), (0, 96)]));
}

#[test]
fn r31_all_in_hands_are_exposed_only_when_the_table_says_so() {
    for expose in [false, true] {
        let mut cfg = holdem(
            Structure::NoLimit,
            NL,
            seats(&[(100, 0, 2, B), (100, 0, 1, B)]),
        );
        cfg.options.expose_all_in = expose;
        let mut t = Table::new(cfg, &["AsAd", "KsKd"], "2c7d8h3c4s");
        t.act(1, bet(100));
        t.act(0, Action::Call);
        let first_board = t
            .events
            .iter()
            .position(|e| matches!(e, Event::BoardDealt { .. }))
            .unwrap();
        let first_show = t
            .events
            .iter()
            .position(|e| matches!(e, Event::Shown { .. }));
        assert_eq!(first_show.is_some_and(|s| s < first_board), expose);
    }
}

#[test]
fn contradictory_options_are_refused_with_a_clear_error() {
    let three = || seats(&[(100, 0, 1, B), (100, 0, 2, B), (100, 0, 0, B)]);
    let mut spread = holdem(Structure::SpreadLimit, Stakes::default(), three());
    spread.options.spread = vec![(1, 5), (6, 3)];
    assert_eq!(
        spread.validate(),
        Err(ConfigError::SpreadRange {
            street: 1,
            min: 6,
            max: 3
        })
    );
    let mut cap = holdem(Structure::NoLimit, NL, three());
    cap.options.cap = Some(1);
    assert_eq!(
        cap.validate(),
        Err(ConfigError::CapBelowBlind { cap: 1, blind: 2 })
    );
    let mut half = holdem(Structure::NoLimit, NL, three());
    half.options.half_bet_rule = true;
    assert!(matches!(half.validate(), Err(ConfigError::Invalid(m)) if m.contains("half bet rule")));
    let mut twice = HandConfig::new(
        Game::Stud,
        Structure::FixedLimit,
        Stakes {
            small_bet: 2,
            big_bet: 4,
            bring_in: 1,
            ..Stakes::default()
        },
        seats(&[(100, 1, 0, B), (100, 1, 0, B)]),
    );
    twice.options.run_it_twice = true;
    assert!(matches!(twice.validate(), Err(ConfigError::Invalid(m)) if m.contains("board")));
    let mut unit = holdem(
        Structure::NoLimit,
        Stakes {
            min_bet: 7,
            ..Stakes::default()
        },
        three(),
    );
    unit.options.unit = 5;
    assert!(matches!(unit.validate(), Err(ConfigError::Invalid(m)) if m.contains("unit")));
    let mut rake = holdem(Structure::NoLimit, NL, three());
    rake.options.rake = Some(Rake {
        basis_points: 20_000,
        cap: 1,
        no_flop_no_drop: true,
        rounding: RakeRounding::Down,
    });
    assert!(rake.validate().is_err());
    assert!(holdem(Structure::NoLimit, NL, three()).validate().is_ok());
}

/// R4, R29: below a full raise, a player who is not all in may raise only to exactly what
/// the biggest opposing stack can put in (nobody could call more); any other short amount
/// is refused. Blinds 1/2; the big blind (150) re-raises to 100 over a raise to 10, so a
/// full raise is to 190 and the most anyone can put in is the big blind's 150.
#[test]
fn r4_a_short_raise_is_allowed_only_to_exactly_what_the_biggest_opposing_stack_can_put_in() {
    let cfg = holdem(
        Structure::NoLimit,
        NL,
        seats(&[(25, 0, 1, B), (150, 0, 2, B), (1000, 0, 0, B)]),
    );
    let mut t = table(cfg);
    t.act(2, bet(10));
    t.act(0, Action::Call);
    t.act(1, bet(100));
    let l = t.legal();
    assert_eq!(l.player, 2);
    assert_eq!(
        (l.bet_or_raise, l.cover_raise),
        (Some((190, 1000)), Some(150))
    );
    assert_eq!(
        t.try_act(2, bet(170)),
        Err(ActionError::ShortRaise {
            full: 190,
            covers: 150,
            got: 170
        })
    );
    assert_eq!(
        t.try_act(2, bet(149)),
        Err(ActionError::ShortRaise {
            full: 190,
            covers: 150,
            got: 149
        })
    );
    t.act(2, bet(150));
    t.check_chips();
}

/// R31 (with R8): when no opponent could put in more than the current bet (everyone else
/// all in, or all in for less), no bet or raise is offered: only call or fold. The button
/// shoves 60; the big blind has 50 in all; the small blind may not raise.
#[test]
fn r31_no_raise_is_offered_when_no_opponent_can_put_in_more_than_the_bet() {
    let cfg = holdem(
        Structure::NoLimit,
        NL,
        seats(&[(1000, 0, 1, B), (50, 0, 2, B), (60, 0, 0, B)]),
    );
    let mut t = table(cfg);
    t.act(2, bet(60));
    let l = t.legal();
    assert_eq!(l.player, 0);
    assert_eq!(
        (l.call, l.bet_or_raise, l.cover_raise),
        (Some(59), None, None)
    );
    assert_eq!(t.try_act(0, bet(100)), Err(ActionError::RaiseNotAllowed));
    t.act(0, Action::Call);
    t.act(1, Action::Call);
    t.check_chips();
}

/// Plays a three-handed no-limit hold'em hand from the standard deck in order: each
/// player folds when `fold(street, player)` says so and can, else checks or calls.
fn play_from_deck(fold: impl Fn(usize, usize) -> bool) -> poker_rules::Hand {
    use poker_rules::{CardSource, DeckKind, Hand};
    let config = holdem(
        Structure::NoLimit,
        NL,
        seats(&[(100, 0, 1, B), (100, 0, 2, B), (100, 0, 0, B)]),
    );
    let (mut hand, _) = Hand::new(config, CardSource::Deck(DeckKind::Standard.cards())).unwrap();
    while let Some(p) = hand.to_act() {
        let Some(legal) = hand.legal_actions() else {
            hand.apply(p, Action::Show { cards: None }).unwrap(); // the showdown
            continue;
        };
        let action = if fold(hand.street(), p) && !legal.check {
            Action::Fold
        } else if fold(hand.street(), p) && hand.street() > 0 && p == 0 {
            // Bet so the others can fold.
            Action::BetOrRaiseTo { to: 2 }
        } else if legal.check {
            Action::Check
        } else {
            Action::Call
        };
        hand.apply(p, action).unwrap();
    }
    assert!(hand.is_complete());
    hand
}

#[test]
fn the_rabbit_is_the_board_the_hand_would_have_dealt_and_nothing_once_the_board_is_out() {
    let showdown = play_from_deck(|_, _| false);
    assert_eq!(showdown.board().len(), 5);
    assert!(
        showdown.rabbit().is_empty(),
        "a finished board leaves no rabbit"
    );
    // Everyone folds to the big blind before the flop: the whole board, burns skipped.
    let preflop = play_from_deck(|street, p| street == 0 && p != 1);
    assert!(preflop.board().is_empty());
    assert_eq!(preflop.rabbit(), showdown.board());
    // A bet on the flop takes it: the turn and the river.
    let flop = play_from_deck(|street, _| street == 1);
    assert_eq!(flop.board(), &showdown.board()[..3]);
    assert_eq!(flop.rabbit(), &showdown.board()[3..]);
    // A hand dealt by hand (a replay) has no deck to hunt in.
    let replay = poker_rules::Hand::new(
        holdem(
            Structure::NoLimit,
            NL,
            seats(&[(100, 0, 1, B), (100, 0, 2, B)]),
        ),
        poker_rules::CardSource::Manual,
    )
    .unwrap()
    .0;
    assert!(replay.rabbit().is_empty());
}
