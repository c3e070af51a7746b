//! The worked examples of the rule texts (../shared/rules/), one test each, named after
//! the rule id, played through the public API.

mod common;

use common::*;
use poker_rules::{Action, ActionError, Event, Game, Phase, PotShare, Stakes, Structure};

#[path = "rules/showdown.rs"]
mod showdown;

const HOLES6: [&str; 6] = ["AsAh", "KsKh", "QsQh", "JsJh", "TsTh", "9s9h"];

#[test]
fn r4_minimum_bet_and_raise_follow_the_no_limit_walkthrough() {
    // Seat 1 posts 200, seat 2 posts 400; indices 0..5 are seats 1..6.
    let mut t = Table::new(
        no_limit(
            400,
            &[
                (10_000, 0, 200),
                (10_000, 0, 400),
                (10_000, 0, 0),
                (10_000, 0, 0),
                (10_000, 0, 0),
                (10_000, 0, 0),
            ],
        ),
        &HOLES6,
        "2c7d8hKc3d",
    );
    let l = t.legal();
    assert_eq!(
        (l.player, l.call, l.bet_or_raise.map(|r| r.0)),
        (2, Some(400), Some(800))
    );
    t.act(2, bet(1000));
    assert_eq!(t.legal().bet_or_raise.map(|r| r.0), Some(1600));
    t.act(3, Action::Call);
    t.act(4, Action::Fold);
    t.act(5, Action::Fold);
    let l = t.legal();
    assert_eq!(
        (l.player, l.call, l.bet_or_raise.map(|r| r.0)),
        (0, Some(800), Some(1600))
    );
    t.act(0, Action::Call);
    let l = t.legal();
    assert_eq!(
        (l.player, l.call, l.bet_or_raise.map(|r| r.0)),
        (1, Some(600), Some(1600))
    );
    t.act(1, Action::Call);
    // Flop: at least 400 (the big blind) to bet.
    let l = t.legal();
    assert_eq!(
        (l.player, l.check, l.bet_or_raise.map(|r| r.0)),
        (0, true, Some(400))
    );
    t.act(0, Action::Check);
    assert_eq!(
        t.try_act(1, bet(399)),
        Err(ActionError::BetOutOfRange {
            min: 400,
            max: 9000,
            got: 399
        })
    );
    t.act(1, bet(500));
    assert_eq!(t.legal().bet_or_raise.map(|r| r.0), Some(1000));
    t.act(2, bet(1200));
    assert_eq!(t.legal().bet_or_raise.map(|r| r.0), Some(1900));
    t.act(3, Action::Fold);
    t.act(0, Action::Fold);
    let l = t.legal();
    assert_eq!(
        (l.player, l.call, l.bet_or_raise.map(|r| r.0)),
        (1, Some(700), Some(1900))
    );
}

#[test]
fn r6_the_big_blind_may_check_or_raise_when_nobody_raised() {
    let seats = [(100, 0, 1), (100, 0, 2), (100, 0, 0)];
    let mut t = Table::new(no_limit(2, &seats), &["AsAh", "KsKh", "QsQh"], "2c7d8hKc3d");
    t.act(2, Action::Call);
    t.act(0, Action::Call);
    let l = t.legal();
    assert_eq!(l.player, 1);
    assert!(l.check, "the big blind checks his option");
    assert_eq!(l.bet_or_raise.map(|r| r.0), Some(4));
    t.act(1, Action::Check);
    assert_eq!(t.hand.street(), 1, "checking the option ends the round");

    let mut t = Table::new(no_limit(2, &seats), &["AsAh", "KsKh", "QsQh"], "2c7d8hKc3d");
    t.act(2, Action::Call);
    t.act(0, Action::Call);
    t.act(1, bet(8));
    assert_eq!(
        t.hand.to_act(),
        Some(2),
        "a raise on the option reopens the betting"
    );
    assert_eq!(t.legal().call, Some(6));
}

#[test]
fn r11_a_sub_minimum_blind_may_be_called_or_completed_and_the_next_raise_is_a_full_bet() {
    // A $5/$10 limit game with $1 and $2 blinds.
    let stakes = Stakes {
        small_bet: 5,
        big_bet: 10,
        ..Stakes::default()
    };
    let seats = [(100, 0, 1), (100, 0, 2), (100, 0, 0), (100, 0, 0)];
    let mut t = Table::new(
        config(Game::Holdem, Structure::FixedLimit, stakes, &seats),
        &["AsAh", "KsKh", "QsQh", "JsJh"],
        "2c7d8hKc3d",
    );
    let l = t.legal();
    assert_eq!(
        (l.player, l.call, l.bet_or_raise),
        (2, Some(2), Some((5, 5)))
    );
    t.act(2, bet(5));
    let l = t.legal();
    assert_eq!((l.call, l.bet_or_raise), (Some(5), Some((10, 10))));

    // The stud bring-in: $2 bring-in, $5 bet: call 2 or complete to 5, then raise to 10.
    let stakes = Stakes {
        small_bet: 5,
        big_bet: 10,
        bring_in: 2,
        ..Stakes::default()
    };
    let seats = [(100, 1, 0), (100, 1, 0), (100, 1, 0)];
    let mut t = Table::new(
        config(Game::Stud, Structure::FixedLimit, stakes, &seats),
        &["AsAh2c", "KsKh9d", "QsQhTd"],
        "",
    );
    let l = t.legal();
    assert_eq!(
        (l.player, l.bring_in, l.bet_or_raise),
        (0, Some(2), Some((5, 5)))
    );
    t.act(0, Action::BringIn);
    let l = t.legal();
    assert_eq!(
        (l.player, l.call, l.bet_or_raise),
        (1, Some(2), Some((5, 5)))
    );
    t.act(1, bet(5));
    assert_eq!(t.legal().bet_or_raise, Some((10, 10)));
}

#[test]
fn r12_the_lowest_up_card_brings_in_with_suits_breaking_ties() {
    let stakes = Stakes {
        small_bet: 10,
        big_bet: 20,
        bring_in: 3,
        ..Stakes::default()
    };
    let seats = [(500, 1, 0), (500, 1, 0), (500, 1, 0), (500, 1, 0)];
    // Up cards (third card): Kd, 2s, 2c, 9h. The deuce of clubs is lowest by suit.
    let mut t = Table::new(
        config(Game::Stud, Structure::FixedLimit, stakes, &seats),
        &["AsAhKd", "3c4c2s", "5d6d2c", "7h8h9h"],
        "",
    );
    let l = t.legal();
    assert_eq!(l.player, 2);
    assert!(
        !l.fold && !l.check,
        "the bring-in must be posted or completed"
    );
    assert_eq!(t.try_act(2, Action::Fold), Err(ActionError::BringInPending));
    assert_eq!(
        t.try_act(1, Action::BringIn).unwrap_err(),
        ActionError::NotYourTurn {
            player: 1,
            expected: Some(2)
        }
    );
    t.act(2, Action::BringIn);
    assert_eq!(
        t.hand.to_act(),
        Some(3),
        "action continues to the bring-in's left"
    );

    // Razz: the highest card brings in (kings; the king of spades by suit), ace low.
    let seats = [(500, 1, 0), (500, 1, 0), (500, 1, 0)];
    let t = Table::new(
        config(Game::Razz, Structure::FixedLimit, stakes, &seats),
        &["2s3sKh", "4s5sKs", "6d7dAc"],
        "",
    );
    assert_eq!(t.legal().player, 1);
    // The bring-in player may open for a full bet instead.
    let mut t = t;
    t.act(1, bet(10));
    assert_eq!(t.legal().bet_or_raise, Some((20, 20)));
}

#[test]
fn r12_after_third_street_the_best_showing_hand_opens() {
    let stakes = Stakes {
        small_bet: 10,
        big_bet: 20,
        bring_in: 3,
        ..Stakes::default()
    };
    let seats = [(500, 1, 0), (500, 1, 0), (500, 1, 0)];
    // Up cards: 2c+9s, 5d+5h (a pair), Kc+Qs.
    let mut t = Table::new(
        config(Game::Stud, Structure::FixedLimit, stakes, &seats),
        &["AsAh2c9s", "3d4d5d5h", "7c8cKcQs"],
        "",
    );
    t.act(0, Action::BringIn);
    t.act(1, Action::Call);
    t.act(2, Action::Call);
    assert_eq!(t.hand.street(), 1);
    assert_eq!(t.hand.to_act(), Some(1), "the open pair acts first");
}

#[test]
fn r20_fixed_limit_bets_are_fixed_and_capped_unless_heads_up() {
    let stakes = Stakes {
        small_bet: 5,
        big_bet: 10,
        ..Stakes::default()
    };
    let seats = [(500, 0, 2), (500, 0, 5), (500, 0, 0), (500, 0, 0)];
    let mut cfg = config(Game::Holdem, Structure::FixedLimit, stakes, &seats);
    cfg.max_raises = Some(3);
    // Three-raise rule: the blind is the opening bet; 5 -> 10 -> 15 -> 20 caps it.
    let mut t = Table::new(cfg.clone(), &["AsAh", "KsKh", "QsQh", "JsJh"], "2c7d8hKc3d");
    assert_eq!(t.legal().bet_or_raise, Some((10, 10)));
    assert_eq!(
        t.try_act(2, bet(12)),
        Err(ActionError::BetOutOfRange {
            min: 10,
            max: 10,
            got: 12
        })
    );
    t.act(2, bet(10));
    t.act(3, bet(15));
    t.act(0, bet(20));
    let l = t.legal();
    assert_eq!(
        (l.player, l.call, l.bet_or_raise),
        (1, Some(15), None),
        "capped"
    );
    t.act(1, Action::Call);
    t.act(2, Action::Call);
    t.act(3, Action::Call);
    // Flop: small bets; turn: big bets.
    assert_eq!(t.legal().bet_or_raise, Some((5, 5)));
    for p in [0, 1, 2, 3] {
        t.act(p, Action::Check);
    }
    assert_eq!(t.legal().bet_or_raise, Some((10, 10)));

    // Heads-up exception: with two players the raising goes on.
    let mut cfg = config(
        Game::Holdem,
        Structure::FixedLimit,
        stakes,
        &[(500, 0, 5), (500, 0, 2)],
    );
    cfg.max_raises = Some(3);
    cfg.uncapped_heads_up = true;
    let mut t = Table::new(cfg, &["AsAh", "KsKh"], "2c7d8hKc3d");
    let mut to = 5;
    let mut p = t.hand.to_act().unwrap();
    for _ in 0..6 {
        to += 5;
        t.act(p, bet(to));
        p = 1 - p;
    }
    assert_eq!(t.legal().bet_or_raise, Some((to + 5, to + 5)));
}

#[test]
fn r22_pot_limit_follows_table_1() {
    // Four players put $5 each preflop: $20 starting pot.
    let stakes = Stakes {
        min_bet: 5,
        ..Stakes::default()
    };
    let seats = [(1000, 0, 2), (1000, 0, 5), (1000, 0, 0), (1000, 0, 0)];
    let mut t = Table::new(
        config(Game::Holdem, Structure::PotLimit, stakes, &seats),
        &["AsAh", "KsKh", "QsQh", "JsJh"],
        "2c7d8hKc3d",
    );
    t.act(2, Action::Call);
    t.act(3, Action::Call);
    t.act(0, Action::Call);
    t.act(1, Action::Check);
    assert_eq!(t.hand.street(), 1);
    // A bets $5; B may raise the pot to $35; C calls; D may raise to $165.
    t.act(0, bet(5));
    assert_eq!(t.legal().bet_or_raise, Some((10, 35)));
    t.act(1, bet(35));
    t.act(2, Action::Call);
    assert_eq!(t.legal().bet_or_raise, Some((65, 165)));
    t.act(3, bet(165));
    t.act(0, Action::Fold);
    t.act(1, Action::Call);
    t.act(2, Action::Call);
    let pot: u64 = t.hand.pots().iter().map(|p| p.amount).sum();
    assert_eq!(pot, 520, "TABLE 1's new pot total");
}

#[test]
fn r22_pot_limit_ten_dollar_pot_goes_ten_forty_one_forty() {
    let stakes = Stakes {
        min_bet: 2,
        ..Stakes::default()
    };
    let seats = [
        (1000, 0, 1),
        (1000, 0, 2),
        (1000, 0, 0),
        (1000, 0, 0),
        (1000, 0, 0),
    ];
    let mut t = Table::new(
        config(Game::Holdem, Structure::PotLimit, stakes, &seats),
        &["AsAh", "KsKh", "QsQh", "JsJh", "TsTh"],
        "2c7d8hKc3d",
    );
    for p in [2, 3, 4, 0] {
        t.act(p, Action::Call);
    }
    t.act(1, Action::Check);
    assert_eq!(
        t.legal().bet_or_raise,
        Some((2, 10)),
        "open for up to the $10 pot"
    );
    t.act(0, bet(10));
    assert_eq!(t.legal().bet_or_raise.map(|r| r.1), Some(40));
    t.act(1, bet(40));
    assert_eq!(t.legal().bet_or_raise.map(|r| r.1), Some(140));
}

#[test]
fn r27_all_in_for_less_makes_a_main_pot_of_30_and_a_side_pot_of_40() {
    // A (big stack) opens for $20; B calls all in for $10; C re-raises all in to $30;
    // A calls $10 more. B has the best hand, A the second best.
    let seats = [(1000, 0, 0), (10, 0, 0), (30, 0, 0)];
    let mut t = Table::new(
        no_limit(20, &seats),
        &["KsKh", "AsAh", "7c2d"],
        "3c4d9hJsQd",
    );
    t.act(0, bet(20));
    t.act(1, Action::Call);
    t.act(2, bet(30));
    let l = t.legal();
    assert_eq!(
        (l.player, l.call, l.bet_or_raise),
        (0, Some(10), None),
        "C's short all in does not reopen"
    );
    t.act(0, Action::Call);
    let pots: Vec<(u64, Vec<usize>)> = t
        .hand
        .pots()
        .into_iter()
        .map(|p| (p.amount, p.eligible))
        .collect();
    assert_eq!(pots, vec![(30, vec![0, 1, 2]), (40, vec![0, 2])]);
    t.show_all();
    assert_eq!(
        t.awards(),
        vec![(1, 40, vec![(0, 40)]), (0, 30, vec![(1, 30)])]
    );
    assert_eq!(t.stacks(), vec![1010, 30, 0]);
}

#[test]
fn r28_alice_all_in_on_the_big_blind_makes_a_35_main_pot() {
    // Ten players, $1 ante, $4/$8 blinds. Alice (index 1) has only $8.
    let mut seats = vec![(100, 1, 4), (8, 1, 8)];
    seats.extend([(100, 1, 0); 8]);
    let holes = [
        "2c3d", "AsAh", "7h2h", "KsKh", "4c5c", "6c7c", "8c9c", "TcJc", "QcKc", "4d5d",
    ];
    let mut t = Table::new(no_limit(8, &seats), &holes, "3s8dJhQs2s");
    let posted: Vec<&Event> = t
        .events
        .iter()
        .filter(|e| {
            matches!(
                e,
                Event::AntePosted { player: 1, .. } | Event::BlindPosted { player: 1, .. }
            )
        })
        .collect();
    assert_eq!(
        posted,
        vec![
            &Event::AntePosted {
                player: 1,
                amount: 1
            },
            &Event::BlindPosted {
                player: 1,
                amount: 7
            }
        ]
    );
    // Bob must call the full big blind.
    assert_eq!((t.legal().player, t.legal().call), (2, Some(8)));
    t.act(2, Action::Call);
    t.act(3, bet(16));
    for p in 4..10 {
        t.act(p, Action::Fold);
    }
    t.act(0, Action::Fold);
    t.act(2, Action::Fold);
    // Carol's unmatched raise comes back; the side pot (Bob's and Carol's excess over
    // Alice's $7) is Carol's: the text's "$10 side pot paid to Carol" in total.
    assert!(t.events.contains(&Event::UncalledReturned {
        player: 3,
        amount: 8
    }));
    let pots: Vec<(u64, Vec<usize>)> = t
        .hand
        .pots()
        .into_iter()
        .map(|p| (p.amount, p.eligible))
        .collect();
    assert_eq!(pots, vec![(35, vec![1, 3]), (2, vec![3])]);
    t.show_all();
    assert_eq!(
        t.awards(),
        vec![(1, 2, vec![(3, 2)]), (0, 35, vec![(1, 35)])]
    );
    assert_eq!(t.stacks()[1], 35);
    assert_eq!(t.stacks()[3], 100 - 9 + 2);
}

#[test]
fn r28_antes_are_dead_money_in_the_main_pot_even_when_not_matched() {
    // Big-blind ante: the big blind's ante is not "called" by anyone, yet the player who
    // covers the big blind's all in wins it.
    let seats = [(1000, 0, 50), (400, 100, 100), (1000, 0, 0)];
    let mut t = Table::new(
        no_limit(100, &seats),
        &["2c3d", "7h2h", "AsAh"],
        "3s8dJhQs4s",
    );
    t.act(2, bet(300));
    t.act(0, Action::Fold);
    t.act(1, Action::Call);
    t.show_all();
    assert_eq!(t.stacks(), vec![950, 0, 1450]);
}

#[test]
fn r28_a_player_all_in_for_part_of_the_ante_wins_equal_shares_of_the_antes() {
    // Antes of 10; player 0 has only 4. The main pot holds 4 from each ante; the rest of
    // the antes and all bets are a side pot.
    let seats = [(4, 10, 0), (100, 10, 0), (100, 10, 0)];
    let mut t = Table::new(
        no_limit(10, &seats),
        &["AsAh", "7h2h", "8c3d"],
        "3s8dJhQs4s",
    );
    t.act(1, bet(20));
    t.act(2, Action::Call);
    let pots: Vec<(u64, Vec<usize>)> = t
        .hand
        .pots()
        .into_iter()
        .map(|p| (p.amount, p.eligible))
        .collect();
    assert_eq!(pots, vec![(12, vec![0, 1, 2]), (52, vec![1, 2])]);
}

#[test]
fn r29_an_all_in_raise_below_a_full_raise_does_not_reopen_the_betting() {
    // A bets 100, B raises to 200, C goes all in for 250: B may not raise again; A may.
    let seats = [(1000, 0, 0), (1000, 0, 0), (250, 0, 0)];
    let mut t = Table::new(
        no_limit(100, &seats),
        &["AsAh", "KsKh", "QsQh"],
        "2c7d8hKc3d",
    );
    t.act(0, bet(100));
    t.act(1, bet(200));
    t.act(2, bet(250));
    let l = t.legal();
    assert_eq!((l.player, l.call), (0, Some(150)));
    assert_eq!(
        l.bet_or_raise.map(|r| r.0),
        Some(350),
        "A was fully raised by B"
    );
    t.act(0, Action::Call);
    let l = t.legal();
    assert_eq!((l.player, l.call, l.bet_or_raise), (1, Some(50), None));
    assert_eq!(t.try_act(1, bet(400)), Err(ActionError::RaiseNotAllowed));
}

#[test]
fn r29_short_all_ins_that_add_up_to_a_full_raise_reopen_the_betting() {
    // A bets 100, B calls, C all in for 150, D all in for 220: B faces 120 more, a full
    // raise in total, so B may raise.
    let seats = [(1000, 0, 0), (1000, 0, 0), (150, 0, 0), (220, 0, 0)];
    let mut t = Table::new(
        no_limit(100, &seats),
        &["AsAh", "KsKh", "QsQh", "JsJh"],
        "2c7d8hKc3d",
    );
    t.act(0, bet(100));
    t.act(1, Action::Call);
    t.act(2, bet(150));
    t.act(3, bet(220));
    t.act(0, Action::Call);
    let l = t.legal();
    assert_eq!(l.player, 1);
    assert!(l.bet_or_raise.is_some());
}

#[test]
fn r1_actions_are_check_bet_call_raise_fold_and_all_in_is_any_of_them() {
    let seats = [(1000, 0, 0), (1000, 0, 0), (1000, 0, 0), (120, 0, 0)];
    let mut t = Table::new(
        no_limit(10, &seats),
        &["AsAh", "KsKh", "QsQh", "JsJh"],
        "2c7d8hKc3d",
    );
    t.act(0, Action::Check);
    t.act(1, bet(20)); // bet
    t.act(2, Action::Call); // call
    let events = t.act(3, bet(120)); // raise, all in
    assert!(matches!(
        events[0],
        Event::BetTo {
            to: 120,
            all_in: true,
            ..
        }
    ));
    t.act(0, Action::Fold); // fold
    let events = t.act(1, Action::Call);
    assert!(matches!(
        events[0],
        Event::Called {
            amount: 100,
            all_in: false,
            ..
        }
    ));
}

#[test]
fn r2_out_of_turn_actions_are_rejected_and_change_nothing() {
    let seats = [(1000, 0, 5), (1000, 0, 10), (1000, 0, 0)];
    let mut t = Table::new(
        no_limit(10, &seats),
        &["AsAh", "KsKh", "QsQh"],
        "2c7d8hKc3d",
    );
    for p in [0, 1] {
        assert_eq!(
            t.try_act(p, Action::Fold),
            Err(ActionError::NotYourTurn {
                player: p,
                expected: Some(2)
            })
        );
    }
    assert_eq!(
        t.try_act(9, Action::Fold),
        Err(ActionError::NoSuchPlayer { player: 9 })
    );
}

#[test]
fn r3_facing_a_bet_a_player_calls_folds_or_goes_all_in_for_less() {
    let seats = [(1000, 0, 0), (60, 0, 0)];
    let mut t = Table::new(no_limit(10, &seats), &["AsAh", "KsKh"], "2c7d8hKc3d");
    t.act(0, bet(100));
    let l = t.legal();
    assert_eq!(
        (l.fold, l.check, l.call, l.bet_or_raise),
        (true, false, Some(60), None)
    );
    assert_eq!(
        t.try_act(1, Action::Check),
        Err(ActionError::CannotCheck { to_call: 100 })
    );
    let events = t.act(1, Action::Call);
    assert!(matches!(
        events[0],
        Event::Called {
            amount: 60,
            all_in: true,
            ..
        }
    ));
    assert!(t.events.contains(&Event::UncalledReturned {
        player: 0,
        amount: 40
    }));
}

#[test]
fn r5_the_last_raiser_may_not_raise_again_unless_reopened() {
    // A raises; B calls; C goes all in for a small raise: A may only call.
    let seats = [(1000, 0, 0), (1000, 0, 0), (130, 0, 0)];
    let mut t = Table::new(
        no_limit(10, &seats),
        &["AsAh", "KsKh", "QsQh"],
        "2c7d8hKc3d",
    );
    t.act(0, bet(100));
    t.act(1, Action::Call);
    t.act(2, bet(130));
    let l = t.legal();
    assert_eq!((l.player, l.call, l.bet_or_raise), (0, Some(30), None));
    // Reopened by a full raise, the first bettor may raise again.
    let mut t = Table::new(
        no_limit(10, &[(1000, 0, 0), (1000, 0, 0)]),
        &["AsAh", "KsKh"],
        "2c7d8hKc3d",
    );
    t.act(0, bet(100));
    t.act(1, bet(200));
    assert_eq!(t.legal().bet_or_raise.map(|r| r.0), Some(300));
}

#[test]
fn r7_a_player_may_fold_without_a_bet_and_never_reenters() {
    let seats = [(1000, 0, 0), (1000, 0, 0), (1000, 0, 0)];
    let mut t = Table::new(
        no_limit(10, &seats),
        &["AsAh", "KsKh", "QsQh"],
        "2c7d8hKc3d",
    );
    assert!(t.legal().check && t.legal().fold);
    t.act(0, Action::Fold);
    t.act(1, bet(50));
    t.act(2, Action::Call);
    // The round comes back around without the folded player.
    assert_eq!(t.hand.street(), 1);
    assert_eq!(t.hand.to_act(), Some(1));
    assert!(t.hand.players()[0].folded);
}

#[test]
fn r8_the_round_ends_when_all_have_matched_and_an_uncalled_bet_wins() {
    let seats = [(1000, 0, 0), (1000, 0, 0), (1000, 0, 0)];
    let mut t = Table::new(
        no_limit(10, &seats),
        &["AsAh", "KsKh", "QsQh"],
        "2c7d8hKc3d",
    );
    t.act(0, bet(30));
    t.act(1, Action::Call);
    assert_eq!(t.hand.street(), 0, "player 2 has not matched yet");
    t.act(2, Action::Call);
    assert_eq!(t.hand.street(), 1, "everyone matched: the round is over");
    t.act(0, Action::Check);
    t.act(1, bet(100));
    t.act(2, Action::Fold);
    t.act(0, Action::Fold);
    assert!(t.events.contains(&Event::UncalledReturned {
        player: 1,
        amount: 100
    }));
    assert_eq!(t.stacks(), vec![970, 1060, 970]);
}

#[test]
fn r23_no_limit_allows_any_amount_up_to_the_stack_and_unlimited_raises() {
    let seats = [(5000, 0, 0), (5000, 0, 0)];
    let mut t = Table::new(no_limit(10, &seats), &["AsAh", "KsKh"], "2c7d8hKc3d");
    assert_eq!(t.legal().bet_or_raise, Some((10, 5000)));
    let mut to = 10;
    for k in 0..12 {
        t.act(k % 2, bet(to));
        to *= 2;
        if to > 5000 {
            break;
        }
    }
    assert!(t.legal().bet_or_raise.is_some(), "no cap on raises");
}
