//! The table between hands: the worked examples of the texts (R13, R14, R16-R19, R26,
//! R37) as tests, through the public API.

use poker_rules::table::{
    AnteRule, ButtonRule, Entry, HandPlan, KillRule, KillTrigger, MissedBlindRule, PostKind,
    Rathole, SitOut, Table, TableError, TableRules,
};
use poker_rules::{Action, CardSource, DeckKind, Game, Hand, Stakes, Structure};

#[path = "table/house_games.rs"]
mod house_games;
#[path = "table/kill_and_straddle.rs"]
mod kill_and_straddle;
#[path = "table/players_per_deck.rs"]
mod players_per_deck;

const NAMES: [&str; 5] = ["Alice", "Bob", "Carol", "David", "Ellen"];

fn rules(button: ButtonRule) -> TableRules {
    TableRules {
        game: Game::Holdem,
        structure: Structure::NoLimit,
        stakes: Stakes {
            min_bet: 10,
            ..Stakes::default()
        },
        max_raises: None,
        uncapped_heads_up: false,
        seat_count: 5,
        small_blind: 5,
        big_blind: 10,
        ante: AnteRule::None,
        button,
        missed_blinds: MissedBlindRule::DeadSmallLiveBig,
        min_buy_in: 200,
        max_buy_in: 1000,
        rathole_secs: 3600,
        max_missed_big_blinds: 0,
        kill: None,
        rock: false,
        straddle: false,
        options: Default::default(),
        bomb_pot: None,
        dealers_choice: Vec::new(),
    }
}

fn table(rules: TableRules, names: &[&str]) -> Table<String> {
    let mut t = Table::new(rules).expect("valid rules");
    for (seat, name) in names.iter().enumerate() {
        t.sit_down(seat, name.to_string(), 1000, Entry::PostNow, None, 0)
            .expect("seat");
    }
    t
}

fn name(t: &Table<String>, seat: usize) -> String {
    t.seats()[seat]
        .as_ref()
        .map_or("(empty)".to_string(), |o| o.player.clone())
}

/// Who posts what in a plan, by name.
fn posters(t: &Table<String>, plan: &HandPlan, kind: PostKind) -> Vec<String> {
    plan.posts
        .iter()
        .filter(|p| p.kind == kind)
        .map(|p| name(t, p.seat))
        .collect()
}

/// Plays the planned hand: everyone folds to the big blind (or checks it down when the
/// given player should win a showdown). Returns the plan.
fn play(t: &mut Table<String>) -> HandPlan {
    let (plan, stood) = t.next_hand();
    assert!(stood.is_empty());
    let plan = plan.expect("a hand is dealt");
    let (mut hand, _) = Hand::new(
        plan.config.clone(),
        CardSource::Deck(DeckKind::Standard.cards()),
    )
    .expect("valid");
    while let Some(p) = hand.to_act() {
        let action = match hand.decision() {
            Some(poker_rules::Decision::Bet(l)) if l.call.is_some() => Action::Fold,
            Some(poker_rules::Decision::Bet(_)) => Action::Check,
            _ => Action::Show { cards: None },
        };
        hand.apply(p, action).expect("legal");
    }
    t.finish_hand(&hand).expect("the planned hand");
    plan
}

/// Plays hands until `seat` posted the big blind in the last one.
fn until_big_blind(t: &mut Table<String>, seat: usize) {
    for _ in 0..20 {
        let plan = play(t);
        if plan
            .posts
            .iter()
            .any(|p| p.kind == PostKind::BigBlind && p.seat == seat)
        {
            return;
        }
    }
    panic!("seat {seat} never got the big blind");
}

fn bust(t: &mut Table<String>, seat: usize) {
    t.leave(seat, 0).expect("leaves");
}

#[test]
fn r18_dead_button_one_player_eliminated_before_the_small_blind() {
    // Carol is due the big blind (Bob had it, Alice the small blind, Ellen the button).
    let mut t = table(rules(ButtonRule::Dead), &NAMES);
    until_big_blind(&mut t, 1);
    bust(&mut t, 0);
    let (plan, _) = t.next_hand();
    let plan = plan.expect("hand");
    assert_eq!(posters(&t, &plan, PostKind::BigBlind), ["Carol"]);
    assert_eq!(posters(&t, &plan, PostKind::SmallBlind), ["Bob"]);
    assert_eq!(plan.button, 0, "the button is on Alice's vacant seat");
    assert_eq!(
        name(&t, *plan.seats.last().unwrap()),
        "Ellen",
        "the cutoff acts last"
    );
}

#[test]
fn r18_dead_button_the_small_blind_eliminated_means_no_small_blind() {
    let mut t = table(rules(ButtonRule::Dead), &NAMES);
    until_big_blind(&mut t, 1);
    bust(&mut t, 1);
    let plan = play(&mut t);
    assert_eq!(posters(&t, &plan, PostKind::BigBlind), ["Carol"]);
    assert!(
        posters(&t, &plan, PostKind::SmallBlind).is_empty(),
        "no small blind"
    );
    assert_eq!(name(&t, plan.button), "Alice");
    let plan = play(&mut t);
    assert_eq!(posters(&t, &plan, PostKind::BigBlind), ["David"]);
    assert_eq!(posters(&t, &plan, PostKind::SmallBlind), ["Carol"]);
    assert_eq!(plan.button, 1, "the button is on Bob's vacant seat");
}

#[test]
fn r18_dead_button_two_players_eliminated() {
    let mut t = table(rules(ButtonRule::Dead), &NAMES);
    until_big_blind(&mut t, 1);
    bust(&mut t, 0);
    bust(&mut t, 1);
    let plan = play(&mut t);
    assert_eq!(posters(&t, &plan, PostKind::BigBlind), ["Carol"]);
    assert!(posters(&t, &plan, PostKind::SmallBlind).is_empty());
    assert_eq!(plan.button, 0, "the button is on Alice's vacant seat");
    let plan = play(&mut t);
    assert_eq!(posters(&t, &plan, PostKind::BigBlind), ["David"]);
    assert_eq!(posters(&t, &plan, PostKind::SmallBlind), ["Carol"]);
    assert_eq!(plan.button, 1, "the button is on Bob's vacant seat");
}

#[test]
fn r18_dead_button_three_players_eliminated() {
    // Five players is not enough for two to remain after three leave and still show the
    // rule; seat a sixth (Frank) after Ellen.
    let mut r = rules(ButtonRule::Dead);
    r.seat_count = 6;
    let mut t = table(r, &["Alice", "Bob", "Carol", "David", "Ellen", "Frank"]);
    until_big_blind(&mut t, 1);
    for seat in [0, 1, 2] {
        bust(&mut t, seat);
    }
    let plan = play(&mut t);
    assert_eq!(posters(&t, &plan, PostKind::BigBlind), ["David"]);
    assert!(posters(&t, &plan, PostKind::SmallBlind).is_empty());
    assert_eq!(plan.button, 1, "the button skips to Bob's vacant seat");
    let plan = play(&mut t);
    assert_eq!(posters(&t, &plan, PostKind::BigBlind), ["Ellen"]);
    assert_eq!(posters(&t, &plan, PostKind::SmallBlind), ["David"]);
    assert_eq!(plan.button, 2, "the button is on Carol's vacant seat");
}

#[test]
fn r18_moving_button_the_player_due_the_button_eliminated() {
    // Alice is due the button: Ellen had it, Alice the small blind, Bob the big blind.
    let mut t = table(rules(ButtonRule::Moving), &NAMES);
    until_big_blind(&mut t, 1);
    bust(&mut t, 0);
    let plan = play(&mut t);
    assert_eq!(
        name(&t, plan.button),
        "Bob",
        "the button skips past Alice's seat"
    );
    assert_eq!(
        posters(&t, &plan, PostKind::SmallBlind),
        ["Bob"],
        "on top of the button"
    );
    assert_eq!(posters(&t, &plan, PostKind::BigBlind), ["Carol", "David"]);
    let plan = play(&mut t);
    assert_eq!(name(&t, plan.button), "Carol");
    assert_eq!(posters(&t, &plan, PostKind::SmallBlind), ["Carol", "David"]);
    assert_eq!(posters(&t, &plan, PostKind::BigBlind), ["Ellen"]);
}

#[test]
fn r18_moving_button_the_big_blind_eliminated() {
    let mut t = table(rules(ButtonRule::Moving), &NAMES);
    until_big_blind(&mut t, 1);
    bust(&mut t, 1);
    let plan = play(&mut t);
    assert_eq!(name(&t, plan.button), "Alice");
    assert_eq!(posters(&t, &plan, PostKind::BigBlind), ["Carol", "David"]);
    assert!(posters(&t, &plan, PostKind::SmallBlind).is_empty());
    let plan = play(&mut t);
    assert_eq!(name(&t, plan.button), "Carol");
    assert_eq!(posters(&t, &plan, PostKind::SmallBlind), ["Carol", "David"]);
    assert_eq!(posters(&t, &plan, PostKind::BigBlind), ["Ellen"]);
}

#[test]
fn r18_moving_button_both_blinds_eliminated() {
    let mut r = rules(ButtonRule::Moving);
    r.seat_count = 6;
    let mut t = table(r, &["Alice", "Bob", "Carol", "David", "Ellen", "Frank"]);
    until_big_blind(&mut t, 1);
    bust(&mut t, 0);
    bust(&mut t, 1);
    let plan = play(&mut t);
    assert_eq!(name(&t, plan.button), "Carol");
    assert_eq!(
        posters(&t, &plan, PostKind::BigBlind),
        ["Carol", "David", "Ellen"]
    );
    let plan = play(&mut t);
    assert_eq!(name(&t, plan.button), "David");
    assert_eq!(
        posters(&t, &plan, PostKind::SmallBlind),
        ["Carol", "David", "Ellen"]
    );
    assert_eq!(
        posters(&t, &plan, PostKind::BigBlind),
        ["Frank"],
        "the player after Ellen"
    );
}

#[test]
fn r18_simplified_moving_button_moves_one_player_and_the_next_two_post() {
    let mut t = table(rules(ButtonRule::SimplifiedMoving), &NAMES);
    let plan = play(&mut t);
    assert_eq!(
        (
            name(&t, plan.button),
            posters(&t, &plan, PostKind::SmallBlind),
            posters(&t, &plan, PostKind::BigBlind)
        ),
        (
            "Alice".into(),
            vec!["Bob".to_string()],
            vec!["Carol".to_string()]
        )
    );
    bust(&mut t, 1);
    bust(&mut t, 2);
    let plan = play(&mut t);
    assert_eq!(
        (
            name(&t, plan.button),
            posters(&t, &plan, PostKind::SmallBlind),
            posters(&t, &plan, PostKind::BigBlind)
        ),
        (
            "David".into(),
            vec!["Ellen".to_string()],
            vec!["Alice".to_string()]
        )
    );
}

#[test]
fn r19_heads_up_the_button_posts_the_small_blind_and_acts_first() {
    let mut t = table(rules(ButtonRule::Dead), &["Alice", "Bob"]);
    let plan = play(&mut t);
    let sb = plan
        .posts
        .iter()
        .find(|p| p.kind == PostKind::SmallBlind)
        .unwrap()
        .seat;
    assert_eq!(sb, plan.button);
    // In the hand's order the button is last and, with the small blind, acts first.
    assert_eq!(*plan.seats.last().unwrap(), plan.button);
    let (hand, _) = Hand::new(
        plan.config.clone(),
        CardSource::Deck(DeckKind::Standard.cards()),
    )
    .unwrap();
    assert_eq!(hand.to_act(), Some(1));
}

#[test]
fn r19_moving_to_heads_up_the_big_blind_keeps_moving() {
    for rule in [
        ButtonRule::Dead,
        ButtonRule::Moving,
        ButtonRule::SimplifiedMoving,
    ] {
        // Alice has the button, Bob the small blind, Carol the big blind.
        let mut t = table(rules(rule), &["Alice", "Bob", "Carol"]);
        let plan = play(&mut t);
        assert_eq!(name(&t, plan.button), "Alice");
        // Alice busts: Bob is the big blind, the button skips past him to Carol.
        let mut a = t.clone();
        bust(&mut a, 0);
        let plan = play(&mut a);
        assert_eq!(posters(&a, &plan, PostKind::BigBlind), ["Bob"], "{rule:?}");
        assert_eq!(name(&a, plan.button), "Carol");
        assert_eq!(posters(&a, &plan, PostKind::SmallBlind), ["Carol"]);
        // Carol busts: Alice is the big blind, Bob gets the button and the small blind again.
        let mut c = t.clone();
        bust(&mut c, 2);
        let plan = play(&mut c);
        assert_eq!(
            posters(&c, &plan, PostKind::BigBlind),
            ["Alice"],
            "{rule:?}"
        );
        assert_eq!(name(&c, plan.button), "Bob");
        assert_eq!(posters(&c, &plan, PostKind::SmallBlind), ["Bob"]);
    }
}

#[test]
fn r13_a_new_player_posts_a_live_big_blind_or_waits_and_is_never_dealt_in_free() {
    let mut t = table(rules(ButtonRule::Dead), &["Alice", "Bob", "Carol"]);
    play(&mut t);
    // A player entering in the big blind posts nothing more.
    let mut entering = t.clone();
    entering
        .sit_down(3, "David".into(), 500, Entry::PostNow, None, 0)
        .unwrap();
    let plan = play(&mut entering);
    let posts: Vec<PostKind> = plan
        .posts
        .iter()
        .filter(|p| p.seat == 3)
        .map(|p| p.kind)
        .collect();
    assert_eq!(posts, [PostKind::BigBlind]);
    // Elsewhere a new player posts a live big blind, or waits.
    play(&mut t);
    t.sit_down(3, "David".into(), 500, Entry::PostNow, None, 0)
        .unwrap();
    t.sit_down(4, "Ellen".into(), 500, Entry::WaitForBigBlind, None, 0)
        .unwrap();
    let plan = play(&mut t);
    let david = plan
        .posts
        .iter()
        .find(|p| p.seat == 3)
        .expect("David posts");
    assert_eq!(
        (david.kind, david.amount, david.live),
        (PostKind::NewPlayer, 10, true)
    );
    assert!(!plan.seats.contains(&4), "Ellen waits for the big blind");
    // When the big blind reaches Ellen she plays with no extra post.
    for _ in 0..5 {
        let plan = play(&mut t);
        if plan.seats.contains(&4) {
            let posts: Vec<PostKind> = plan
                .posts
                .iter()
                .filter(|p| p.seat == 4)
                .map(|p| p.kind)
                .collect();
            assert_eq!(posts, [PostKind::BigBlind]);
            return;
        }
    }
    panic!("Ellen was never dealt in");
}

#[test]
fn r14_a_returning_player_posts_the_big_blind_live_and_the_small_blind_dead() {
    let mut t = table(rules(ButtonRule::Dead), &NAMES);
    play(&mut t);
    t.sit_out(3, SitOut::NextHand).unwrap();
    // Sit out long enough for both blinds to pass David's seat, twice.
    for _ in 0..8 {
        let plan = play(&mut t);
        assert!(!plan.seats.contains(&3));
    }
    let david = t.seats()[3].as_ref().unwrap();
    assert!(
        david.missed_big && david.missed_small,
        "one set of missed blinds"
    );
    t.sit_in(3, Entry::PostNow).unwrap();
    let plan = play(&mut t);
    let posts: Vec<(PostKind, u64, bool)> = plan
        .posts
        .iter()
        .filter(|p| p.seat == 3)
        .map(|p| (p.kind, p.amount, p.live))
        .collect();
    if posts == [(PostKind::BigBlind, 10, true)] {
        return; // returned in the big blind: nothing more owed
    }
    assert_eq!(
        posts,
        [
            (PostKind::MissedBig, 10, true),
            (PostKind::MissedSmall, 5, false)
        ]
    );
    let i = plan.seats.iter().position(|&s| s == 3).unwrap();
    assert_eq!(
        (plan.config.seats[i].blind, plan.config.seats[i].ante),
        (10, 5),
        "small blind dead, big blind live"
    );
    let david = t.seats()[3].as_ref().unwrap();
    assert!(!david.missed_big && !david.missed_small, "paid up");
}

#[test]
fn r14_by_house_rule_missed_blinds_are_posted_one_per_hand_largest_first_all_live() {
    let mut r = rules(ButtonRule::Dead);
    r.missed_blinds = MissedBlindRule::OnePerHand;
    let mut t = table(r, &NAMES);
    play(&mut t);
    t.sit_out(3, SitOut::NextHand).unwrap();
    for _ in 0..6 {
        play(&mut t);
    }
    t.sit_in(3, Entry::PostNow).unwrap();
    // Hands in which David is dealt in, with what he posted.
    let mut dealt: Vec<Vec<(PostKind, bool)>> = Vec::new();
    for _ in 0..10 {
        let plan = play(&mut t);
        if plan.seats.contains(&3) {
            dealt.push(
                plan.posts
                    .iter()
                    .filter(|p| p.seat == 3)
                    .map(|p| (p.kind, p.live))
                    .collect(),
            );
        }
        if dealt.len() == 2 {
            break;
        }
    }
    if dealt[0] == [(PostKind::BigBlind, true)] {
        return; // came back in the big blind: nothing more owed
    }
    assert_eq!(
        dealt[0],
        [(PostKind::MissedBig, true)],
        "the big blind first, live"
    );
    let second = &dealt[1];
    assert!(
        second == &[(PostKind::MissedSmall, true)] || second.contains(&(PostKind::BigBlind, true)),
        "then the small blind, live (or the big blind clears it): {second:?}"
    );
    let david = t.seats()[3].as_ref().unwrap();
    assert!(!david.missed_big && !david.missed_small);
}

#[test]
fn r14_a_player_returning_in_the_big_blind_owes_nothing_more() {
    let mut t = table(rules(ButtonRule::Dead), &NAMES);
    play(&mut t);
    t.sit_out(3, SitOut::NextHand).unwrap();
    for _ in 0..5 {
        play(&mut t);
    }
    t.sit_in(3, Entry::WaitForBigBlind).unwrap();
    for _ in 0..6 {
        let plan = play(&mut t);
        if plan.seats.contains(&3) {
            let mine: Vec<PostKind> = plan
                .posts
                .iter()
                .filter(|p| p.seat == 3)
                .map(|p| p.kind)
                .collect();
            assert_eq!(mine, [PostKind::BigBlind]);
            let david = t.seats()[3].as_ref().unwrap();
            assert!(
                !david.missed_big && !david.missed_small,
                "the big blind clears what was missed"
            );
            return;
        }
    }
    panic!("David never came back in");
}

#[test]
fn sitting_out_too_long_stands_the_player_up() {
    let mut r = rules(ButtonRule::Dead);
    r.max_missed_big_blinds = 2;
    let mut t = table(r, &NAMES);
    play(&mut t);
    t.sit_out(4, SitOut::NextHand).unwrap();
    let mut stood = Vec::new();
    for _ in 0..15 {
        let (plan, up) = t.next_hand();
        stood.extend(up);
        let plan = plan.unwrap();
        let (mut hand, _) = Hand::new(
            plan.config.clone(),
            CardSource::Deck(DeckKind::Standard.cards()),
        )
        .unwrap();
        while let Some(p) = hand.to_act() {
            let a = if hand.legal_actions().is_some_and(|l| l.check) {
                Action::Check
            } else {
                Action::Fold
            };
            hand.apply(p, a).unwrap();
        }
        t.finish_hand(&hand).unwrap();
    }
    assert_eq!(stood.len(), 1);
    assert_eq!(
        (stood[0].seat, stood[0].player.as_str(), stood[0].stack),
        (4, "Ellen", 1000)
    );
    assert!(t.seats()[4].is_none());
}

#[test]
fn sit_out_next_big_blind_takes_effect_when_the_big_blind_arrives() {
    let mut t = table(rules(ButtonRule::Dead), &NAMES);
    play(&mut t);
    t.sit_out(3, SitOut::NextBigBlind).unwrap();
    for _ in 0..6 {
        let plan = play(&mut t);
        assert!(!plan
            .posts
            .iter()
            .any(|p| p.seat == 3 && p.kind == PostKind::BigBlind));
    }
    assert!(t.seats()[3].as_ref().unwrap().sitting_out);
}

#[test]
fn r26_buy_ins_are_bounded_and_a_top_up_only_reaches_the_maximum() {
    let mut t = table(rules(ButtonRule::Dead), &["Alice", "Bob"]);
    assert_eq!(
        t.sit_down(2, "Carol".into(), 150, Entry::PostNow, None, 0),
        Err(TableError::BuyInOutOfRange {
            min: 200,
            max: 1000
        })
    );
    assert_eq!(
        t.sit_down(2, "Alice".into(), 500, Entry::PostNow, None, 0),
        Err(TableError::AlreadySeated)
    );
    assert_eq!(
        t.sit_down(0, "Carol".into(), 500, Entry::PostNow, None, 0),
        Err(TableError::SeatTaken(0))
    );
    t.sit_down(2, "Carol".into(), 400, Entry::PostNow, None, 0)
        .unwrap();
    assert_eq!(
        t.top_up(2, 700),
        Err(TableError::TopUpTooLarge { max: 1000 })
    );
    t.top_up(2, 600).unwrap();
    assert_eq!(t.seats()[2].as_ref().unwrap().stack, 1000);
}

#[test]
fn r26_a_top_up_of_the_largest_amounts_is_refused_not_wrapped_past_the_maximum() {
    let mut t = table(rules(ButtonRule::Dead), &["Alice", "Bob"]);
    t.leave(0, 0).unwrap();
    t.sit_down(0, "Alice".into(), 200, Entry::PostNow, None, 0)
        .unwrap();
    // 200 + (2^64 - 1) wraps to 199 in a release build: it must not pass the maximum.
    for amount in [
        u64::MAX,
        u64::MAX - 199,
        1 << 63,
        i64::MAX as u64,
        i64::MAX as u64 + 1,
        801,
    ] {
        assert_eq!(
            t.top_up(0, amount),
            Err(TableError::TopUpTooLarge { max: 1000 }),
            "{amount}"
        );
        assert_eq!(t.seats()[0].as_ref().unwrap().stack, 200);
    }
    assert_eq!(t.top_up(0, 800), Ok(()));
    assert_eq!(t.seats()[0].as_ref().unwrap().stack, 1000);
}

#[test]
fn r37_chips_move_only_between_hands() {
    let mut t = table(rules(ButtonRule::Dead), &["Alice", "Bob", "Carol"]);
    let (plan, _) = t.next_hand();
    let plan = plan.unwrap();
    let seat = plan.seats[0];
    assert_eq!(t.top_up(seat, 1), Err(TableError::InHand));
    assert_eq!(t.set_stack(seat, 1), Err(TableError::InHand));
    assert_eq!(t.leave(seat, 0).map(|_| ()), Err(TableError::InHand));
}

#[test]
fn r26_a_player_returning_within_the_window_must_bring_back_their_stack() {
    let mut t = table(rules(ButtonRule::Dead), &["Alice", "Bob"]);
    t.top_up(0, 0).unwrap_err();
    let (_, stack, record) = t.leave(0, 1_000).unwrap();
    assert_eq!(stack, 1000);
    let record: Rathole<String> = record;
    assert_eq!(t.buy_in_range(Some(&record), 2_000), (1000, 1000));
    assert_eq!(
        t.sit_down(0, "Alice".into(), 500, Entry::PostNow, Some(&record), 2_000),
        Err(TableError::BuyInOutOfRange {
            min: 1000,
            max: 1000
        })
    );
    // After the window, the table's minimum applies again.
    t.sit_down(
        0,
        "Alice".into(),
        500,
        Entry::PostNow,
        Some(&record),
        1_000 + 3_600,
    )
    .unwrap();
}

#[test]
fn a_busted_player_sits_out_until_topping_up() {
    let mut t = table(rules(ButtonRule::Dead), &["Alice", "Bob", "Carol"]);
    let (plan, _) = t.next_hand();
    let plan = plan.unwrap();
    // Alice (first in order) shoves, everyone calls; someone busts.
    let (mut hand, _) = Hand::new(
        plan.config.clone(),
        CardSource::Deck(DeckKind::Standard.cards()),
    )
    .unwrap();
    while let Some(p) = hand.to_act() {
        let a = match hand.decision().unwrap() {
            poker_rules::Decision::Bet(l) => match (l.bet_or_raise, l.call) {
                (Some((_, max)), _) => Action::BetOrRaiseTo { to: max },
                (None, Some(_)) => Action::Call,
                _ => Action::Check,
            },
            _ => Action::Show { cards: None },
        };
        hand.apply(p, a).unwrap();
    }
    t.finish_hand(&hand).unwrap();
    let busted: Vec<usize> = (0..3)
        .filter(|&s| t.seats()[s].as_ref().unwrap().stack == 0)
        .collect();
    assert!(!busted.is_empty());
    let total: u64 = t.seats().iter().flatten().map(|o| o.stack).sum();
    assert_eq!(total, 3000, "chips conserved");
    for &s in &busted {
        assert!(t.seats()[s].as_ref().unwrap().sitting_out);
    }
    if busted.len() == 2 {
        assert!(t.next_hand().0.is_none(), "one player cannot play alone");
        t.top_up(busted[0], 300).unwrap();
        t.sit_in(busted[0], Entry::PostNow).unwrap();
    }
    let (plan, _) = t.next_hand();
    assert!(plan.is_some());
}

#[test]
fn r18_a_saved_table_reconciled_with_the_stored_seats_deals_on_from_where_it_was() {
    // Three players; two hands, then the table is saved and reloaded as after a restart.
    let mut t = table(rules(ButtonRule::Dead), &["Alice", "Bob", "Carol"]);
    play(&mut t);
    let last = play(&mut t);
    let saved = serde_json::to_string(&t).unwrap();
    let next_button = {
        let mut same: Table<String> = serde_json::from_str(&saved).unwrap();
        same.next_hand().0.unwrap().button
    };
    // Reloaded with the seats the store has: identical, the next hand is the same one.
    let mut back: Table<String> = serde_json::from_str(&saved).unwrap();
    let stored: Vec<(usize, String, u64)> = (0..3)
        .map(|s| (s, name(&t, s), t.seats()[s].as_ref().unwrap().stack))
        .collect();
    back.reconcile(&stored).unwrap();
    let plan = back.next_hand().0.unwrap();
    assert_eq!(plan.button, next_button);
    assert_ne!(plan.button, last.button, "the button moved on");
    assert_eq!(plan.number, last.number + 1, "numbering goes on");
    // Reloaded after Carol left and Bob topped up while it was down.
    let mut changed: Table<String> = serde_json::from_str(&saved).unwrap();
    changed
        .reconcile(&[(0, "Alice".into(), stored[0].2), (1, "Bob".into(), 1500)])
        .unwrap();
    assert!(changed.seats()[2].is_none());
    assert_eq!(changed.seats()[1].as_ref().unwrap().stack, 1500);
    let plan = changed.next_hand().0.expect("two can still play");
    assert_eq!(plan.seats.len(), 2);
}

#[test]
fn new_rules_between_hands_apply_from_the_next_hand_and_never_during_one() {
    let mut t = table(rules(ButtonRule::Dead), &NAMES[..3]);
    play(&mut t);
    let mut higher = rules(ButtonRule::Dead);
    higher.small_blind = 25;
    higher.big_blind = 50;
    higher.stakes.min_bet = 50;
    // During a hand: refused, nothing changes.
    let (plan, _) = t.next_hand();
    assert!(plan.is_some());
    assert_eq!(t.set_rules(higher.clone()), Err(TableError::InHand));
    assert_eq!(t.rules().big_blind, 10);
    let mut t = table(rules(ButtonRule::Dead), &NAMES[..3]);
    play(&mut t);
    // Other seats, or rules a table would refuse: refused too.
    let mut fewer = higher.clone();
    fewer.seat_count = 4;
    assert!(matches!(
        t.set_rules(fewer),
        Err(TableError::InvalidRules(_))
    ));
    let mut inverted = higher.clone();
    inverted.small_blind = 100;
    assert!(matches!(
        t.set_rules(inverted),
        Err(TableError::InvalidRules(_))
    ));
    assert_eq!(t.rules().big_blind, 10);
    // Between hands: the next hand posts the new blinds, the seats and stacks are kept.
    t.set_rules(higher).unwrap();
    let plan = play(&mut t);
    let mut blinds: Vec<u64> = plan
        .posts
        .iter()
        .filter(|p| matches!(p.kind, PostKind::SmallBlind | PostKind::BigBlind))
        .map(|p| p.amount)
        .collect();
    blinds.sort();
    assert_eq!(blinds, vec![25, 50]);
    assert_eq!(t.seats().iter().flatten().count(), 3);
}

#[test]
fn a_hosts_stack_is_set_between_hands_past_the_buy_in_but_not_past_the_largest_amount() {
    let mut t = table(rules(ButtonRule::Dead), &["Alice", "Bob"]);
    t.set_stack(0, 5000).unwrap();
    assert_eq!(t.seats()[0].as_ref().unwrap().stack, 5000);
    t.set_stack(0, 0).unwrap();
    assert_eq!(t.seats()[0].as_ref().unwrap().stack, 0);
    assert_eq!(
        t.set_stack(0, poker_rules::MAX_CHIPS + 1),
        Err(TableError::TopUpTooLarge {
            max: poker_rules::MAX_CHIPS
        })
    );
    assert!(t.set_stack(5, 10).is_err(), "no one sits there");
}
