//! Long random sessions at a table: players join, leave, sit out, return, bust and top
//! up under every button rule, and hands are played with random legal actions.
//!
//! Checked throughout: chips are conserved (stacks + cash-outs = buy-ins), the big
//! blind is posted every hand dealt, nobody is dealt in without posting what they owe,
//! nobody posts the rotating big or small blind two hands running at a table of three or
//! more, and the table never stalls while two players can play.

use poker_rules::table::{
    AnteRule, ButtonRule, Entry, KillRule, KillTrigger, MissedBlindRule, PostKind, SitOut, Table,
    TableError, TableRules,
};
use poker_rules::{Action, CardSource, Chips, Decision, Game, Hand, Stakes, Structure};
use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

fn random_rules(rng: &mut SmallRng) -> TableRules {
    let fixed = rng.gen_bool(0.3);
    let rock = !fixed && rng.gen_bool(0.3);
    TableRules {
        game: Game::Holdem,
        structure: if fixed {
            Structure::FixedLimit
        } else {
            Structure::NoLimit
        },
        stakes: Stakes {
            min_bet: 10,
            small_bet: 10,
            big_bet: 20,
            bring_in: 0,
        },
        max_raises: Some(3),
        uncapped_heads_up: true,
        seat_count: rng.gen_range(2..=10),
        small_blind: 5,
        big_blind: 10,
        ante: [
            AnteRule::None,
            AnteRule::Each(1),
            AnteRule::BigBlind(10),
            AnteRule::Button(5),
        ][rng.gen_range(0..4)],
        button: [
            ButtonRule::Dead,
            ButtonRule::Moving,
            ButtonRule::SimplifiedMoving,
        ][rng.gen_range(0..3)],
        missed_blinds: if rng.gen_bool(0.5) {
            MissedBlindRule::DeadSmallLiveBig
        } else {
            MissedBlindRule::OnePerHand
        },
        min_buy_in: 100,
        max_buy_in: 500,
        rathole_secs: 100,
        max_missed_big_blinds: rng.gen_range(0..4),
        kill: if fixed && rng.gen_bool(0.5) {
            Some(KillRule {
                trigger: if rng.gen_bool(0.5) {
                    KillTrigger::PotOver(60)
                } else {
                    KillTrigger::ConsecutiveWins(2)
                },
                percent: if rng.gen_bool(0.5) { 200 } else { 150 },
            })
        } else {
            None
        },
        rock,
        straddle: !rock && rng.gen_bool(0.5),
        options: Default::default(),
        bomb_pot: None,
        dealers_choice: Vec::new(),
    }
}

fn play_hand(rng: &mut SmallRng, config: poker_rules::HandConfig) -> Hand {
    let mut deck = config.game.deck().cards();
    deck.shuffle(rng);
    let (mut hand, _) =
        Hand::new(config, CardSource::Deck(deck)).expect("the plan is a valid hand");
    while let Some(p) = hand.to_act() {
        let action = match hand.decision().expect("decision") {
            Decision::Bet(l) => {
                let roll = rng.gen_range(0..10);
                match (l.bet_or_raise, l.call) {
                    (Some((min, max)), _) if roll < 2 => Action::BetOrRaiseTo {
                        to: rng.gen_range(min..=max),
                    },
                    (_, Some(_)) if roll < 5 => Action::Fold,
                    (_, Some(_)) => Action::Call,
                    _ => Action::Check,
                }
            }
            Decision::Showdown { .. } => Action::Show { cards: None },
            Decision::Draw | Decision::RunItTwice => unreachable!("not offered here"),
        };
        hand.apply(p, action).expect("legal");
    }
    hand
}

fn session(seed: u64) -> Result<usize, TestCaseError> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let rules = random_rules(&mut rng);
    let seat_count = rules.seat_count;
    let mut table: Table<u32> = Table::new(rules.clone()).expect("valid rules");
    let (mut bought, mut cashed): (Chips, Chips) = (0, 0);
    let mut next_player = 0u32;
    let mut now = 0u64;
    let mut last_big: Vec<usize> = Vec::new();
    let mut last_small: Vec<usize> = Vec::new();
    let mut last_dealt = 0usize;
    let mut hands = 0;
    for _ in 0..80 {
        now += 7;
        // Comings and goings between hands.
        for _ in 0..rng.gen_range(0..3) {
            let seat = rng.gen_range(0..seat_count);
            match (table.seats()[seat].clone(), rng.gen_range(0..7)) {
                (None, _) => {
                    let buy_in = rng.gen_range(100..=500);
                    let entry = if rng.gen_bool(0.5) {
                        Entry::PostNow
                    } else {
                        Entry::WaitForBigBlind
                    };
                    if table
                        .sit_down(seat, next_player, buy_in, entry, None, now)
                        .is_ok()
                    {
                        bought += buy_in;
                        next_player += 1;
                    }
                }
                (Some(_), 0) => {
                    let (_, stack, _) = table.leave(seat, now).expect("between hands");
                    cashed += stack;
                }
                (Some(_), 1) => table.sit_out(seat, SitOut::NextHand).expect("seated"),
                (Some(_), 2) => table.sit_out(seat, SitOut::NextBigBlind).expect("seated"),
                (Some(o), 3) => {
                    let room = 500u64.saturating_sub(o.stack);
                    if room > 0 {
                        let amount = rng.gen_range(1..=room);
                        table.top_up(seat, amount).expect("within the maximum");
                        bought += amount;
                    }
                }
                (Some(o), 4) => {
                    let wanted = rules.straddle && !o.straddle;
                    table
                        .set_straddle(seat, wanted)
                        .expect("seated, and allowed when on");
                    if !rules.straddle {
                        prop_assert_eq!(
                            table.set_straddle(seat, true),
                            Err(TableError::NoStraddle)
                        );
                    }
                }
                (Some(_), _) => {
                    let entry = if rng.gen_bool(0.5) {
                        Entry::PostNow
                    } else {
                        Entry::WaitForBigBlind
                    };
                    table.sit_in(seat, entry).expect("seated");
                }
            }
        }
        let before = table.clone();
        let (plan, stood_up) = table.next_hand();
        cashed += stood_up.iter().map(|s| s.stack).sum::<Chips>();
        let can_play = table
            .seats()
            .iter()
            .flatten()
            .filter(|o| !o.sitting_out && o.stack > 0)
            .count();
        let Some(plan) = plan else {
            prop_assert!(
                can_play < 2,
                "the table stalled with {can_play} players able to play"
            );
            last_big.clear();
            last_small.clear();
            continue;
        };
        hands += 1;
        // The big blind (or a kill blind in its place) is posted every hand.
        prop_assert!(plan
            .posts
            .iter()
            .any(|p| matches!(p.kind, PostKind::BigBlind | PostKind::Kill)));
        // Nobody is dealt in owing a post they did not make.
        for &s in plan.seats.iter().filter(|_| !plan.restart) {
            let o = before.seats()[s]
                .as_ref()
                .expect("dealt seats are occupied");
            let posted = |kinds: &[PostKind]| {
                plan.posts
                    .iter()
                    .any(|p| p.seat == s && kinds.contains(&p.kind))
            };
            let big = [
                PostKind::BigBlind,
                PostKind::NewPlayer,
                PostKind::MissedBig,
                PostKind::Kill,
                PostKind::Rock,
                PostKind::Straddle,
            ];
            if o.new || o.missed_big {
                prop_assert!(
                    posted(&big),
                    "seat {s} dealt in owing a big blind: {:?}",
                    plan.posts
                );
            } else if o.missed_small {
                prop_assert!(
                    posted(&[PostKind::MissedSmall, PostKind::SmallBlind]) || posted(&big)
                );
            }
        }
        // No rotating blind twice running at three or more players.
        let big: Vec<usize> = plan
            .posts
            .iter()
            .filter(|p| p.kind == PostKind::BigBlind)
            .map(|p| p.seat)
            .collect();
        let small: Vec<usize> = plan
            .posts
            .iter()
            .filter(|p| p.kind == PostKind::SmallBlind && p.live)
            .map(|p| p.seat)
            .collect();
        // The moving button's own irregularities (several big blinds after a skip) are
        // allowed by its rule; from a regular state it never repeats a blind either.
        let regular = rules.button != ButtonRule::Moving || last_big.len() == 1;
        if plan.seats.len() >= 3 && last_dealt >= 3 && !plan.restart && regular {
            prop_assert!(
                big.iter().all(|s| !last_big.contains(s)),
                "big blind twice: {big:?} after {last_big:?}"
            );
            prop_assert!(
                small.iter().all(|s| !last_small.contains(s)),
                "small blind twice: {small:?} after {last_small:?} ({:?}, plan {:?}, before {:?})",
                rules.button,
                plan.posts,
                before
            );
        }
        last_big = big;
        last_small = small;
        last_dealt = plan.seats.len();
        let hand = play_hand(&mut rng, plan.config.clone());
        table.finish_hand(&hand).expect("the planned hand");
        let on_table: Chips = table.seats().iter().flatten().map(|o| o.stack).sum();
        prop_assert_eq!(on_table + cashed, bought, "chips conserved");
        // The table state round-trips through serde between hands.
        let json = serde_json::to_string(&table).expect("serializable");
        let back: Table<u32> = serde_json::from_str(&json).expect("deserializable");
        prop_assert_eq!(&back, &table);
    }
    Ok(hands)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_sessions_keep_every_table_invariant(seed in any::<u64>()) {
        session(seed)?;
    }
}

#[test]
fn random_sessions_do_play_hands() {
    let hands: usize = (0..50)
        .map(|seed| session(seed).expect("invariants hold"))
        .sum();
    assert!(hands > 1000, "only {hands} hands were dealt");
}
