//! How many players one deck deals, at the table: seven-card stud deals seven, draw games
//! eight. A table with more seats would stall once full (no hand could be dealt), so a new
//! one is refused; one an older version stored is reopened, seats no more than the game
//! deals, and deals at most that many if more were seated.

use super::*;
use poker_rules::Decision;

/// Fixed-limit stud (or razz...) with `seats` seats, 1 ante, 1 bring-in, 2/4.
fn stud(game: Game, seats: usize) -> TableRules {
    TableRules {
        game,
        structure: Structure::FixedLimit,
        stakes: Stakes {
            small_bet: 2,
            big_bet: 4,
            bring_in: 1,
            ..Stakes::default()
        },
        max_raises: Some(4),
        seat_count: seats,
        small_blind: 0,
        big_blind: 0,
        ante: AnteRule::Each(1),
        ..rules(ButtonRule::Dead)
    }
}

/// Fixed-limit 2-7 triple draw with `seats` seats, blinds 5/10.
fn triple_draw(seats: usize) -> TableRules {
    TableRules {
        game: Game::DeuceToSevenTripleDraw,
        structure: Structure::FixedLimit,
        stakes: Stakes {
            small_bet: 10,
            big_bet: 20,
            ..Stakes::default()
        },
        max_raises: Some(4),
        seat_count: seats,
        ..rules(ButtonRule::Dead)
    }
}

/// Deals the next hand from a real deck and plays it out (bring-in, then folds to the
/// bet); returns the plan. Panics if no hand can be dealt: the table would stall.
fn deal_and_play(t: &mut Table<String>) -> HandPlan {
    let (plan, _) = t.next_hand();
    let plan = plan.expect("a hand is planned");
    let deck = plan.config.game.deck().cards();
    let (mut hand, _) =
        Hand::new(plan.config.clone(), CardSource::Deck(deck)).expect("the hand is dealt");
    while let Some(p) = hand.to_act() {
        let action = match hand.decision() {
            Some(Decision::Bet(l)) if l.bring_in.is_some() => Action::BringIn,
            Some(Decision::Bet(l)) if l.call.is_some() => Action::Fold,
            Some(Decision::Bet(_)) => Action::Check,
            Some(Decision::Draw) => Action::Draw {
                discards: Default::default(),
            },
            _ => Action::Show { cards: None },
        };
        hand.apply(p, action).expect("legal");
    }
    t.finish_hand(&hand).expect("the planned hand");
    plan
}

#[test]
fn a_stud_table_of_eight_seats_is_refused_at_creation_with_why() {
    let refused = Table::<String>::new(stud(Game::Stud, 8)).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "invalid table rules: seven-card stud deals at most 7 players from one deck: a table \
         of 8 seats would stall"
    );
    for game in [Game::StudHiLo, Game::Razz] {
        for seats in 8..=10 {
            assert!(
                Table::<String>::new(stud(game, seats)).is_err(),
                "{game:?} {seats}"
            );
        }
        assert!(Table::<String>::new(stud(game, 7)).is_ok(), "{game:?}");
    }
    assert!(Table::<String>::new(stud(Game::Stud, 7)).is_ok());
}

#[test]
fn a_draw_table_of_nine_seats_is_refused_and_hold_em_takes_ten() {
    let refused = Table::<String>::new(triple_draw(9)).unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("2-7 triple draw deals at most 8 players from one deck"),
        "{refused}"
    );
    assert!(Table::<String>::new(triple_draw(8)).is_ok());
    assert!(Table::<String>::new(TableRules {
        seat_count: 10,
        ..rules(ButtonRule::Dead)
    })
    .is_ok());
}

#[test]
fn changing_the_rules_of_a_table_goes_through_the_same_check() {
    let mut t: Table<String> = Table::new(stud(Game::Stud, 7)).unwrap();
    // The seats stay as they are; a game that deals fewer players is refused.
    assert!(t.set_rules(stud(Game::Stud, 8)).is_err());
    let mut draw: Table<String> = Table::new(triple_draw(8)).unwrap();
    assert!(draw.set_rules(stud(Game::Razz, 8)).is_err());
    assert_eq!(draw.rules().game, Game::DeuceToSevenTripleDraw);
    assert!(t.set_rules(stud(Game::Razz, 7)).is_ok());
}

#[test]
fn a_stud_table_stored_with_eight_seats_seats_seven_and_refuses_the_eighth_with_why() {
    let mut t: Table<String> = Table::reopen(stud(Game::Stud, 8)).expect("reopened");
    assert_eq!(t.max_players(), 7);
    for seat in 0..7 {
        t.sit_down(seat, format!("p{seat}"), 200, Entry::PostNow, None, 0)
            .expect("seated");
    }
    let refused = t
        .sit_down(7, "p7".into(), 200, Entry::PostNow, None, 0)
        .unwrap_err();
    assert_eq!(
        refused,
        TableError::GameFull {
            game: Game::Stud,
            max: 7
        }
    );
    assert_eq!(
        refused.to_string(),
        "seven-card stud deals at most 7 players from one deck: the table is full"
    );
    assert!(t.seats()[7].is_none());
    // Sits under way count: with six seated and one sitting down, there is room for none.
    t.leave(0, 0).unwrap();
    assert!(t.room_for(1).is_ok());
    assert!(t.room_for(2).is_err());
    // Everything else is checked as for a new table.
    assert!(Table::<String>::reopen(stud(Game::Stud, 11)).is_err());
}

#[test]
fn a_stud_table_restored_with_eight_players_deals_seven_a_hand_in_turn_and_never_stalls() {
    // As an older version left it: eight seated at an 8-seat stud table.
    let mut t: Table<String> = Table::reopen(stud(Game::Stud, 8)).unwrap();
    for seat in 0..8 {
        t.restore_seat(seat, format!("p{seat}"), 100).unwrap();
    }
    let mut sat_out = Vec::new();
    for _ in 0..16 {
        let plan = deal_and_play(&mut t);
        assert_eq!(plan.seats.len(), 7, "{plan:?}");
        assert_eq!(plan.config.seats.len(), 7);
        // Every post is a dealt player's.
        assert!(plan.posts.iter().all(|p| plan.seats.contains(&p.seat)));
        let out = (0..8).find(|s| !plan.seats.contains(s)).unwrap();
        sat_out.push(out);
    }
    // Who sits a hand out moves round with the button: everyone, in turn.
    let mut who: Vec<usize> = sat_out.clone();
    who.sort();
    who.dedup();
    assert_eq!(who, (0..8).collect::<Vec<_>>(), "{sat_out:?}");
}

#[test]
fn a_draw_table_restored_with_nine_players_deals_eight_with_the_blinds_and_never_stalls() {
    let mut t: Table<String> = Table::reopen(triple_draw(9)).unwrap();
    for seat in 0..9 {
        t.restore_seat(seat, format!("p{seat}"), 1000).unwrap();
    }
    let mut sat_out = Vec::new();
    for _ in 0..18 {
        let plan = deal_and_play(&mut t);
        assert_eq!(plan.seats.len(), 8, "{plan:?}");
        for kind in [PostKind::SmallBlind, PostKind::BigBlind] {
            let post = plan.posts.iter().find(|p| p.kind == kind);
            assert!(
                post.is_some_and(|p| plan.seats.contains(&p.seat)),
                "{plan:?}"
            );
        }
        assert!(plan.posts.iter().all(|p| plan.seats.contains(&p.seat)));
        sat_out.push((0..9).find(|s| !plan.seats.contains(s)).unwrap());
    }
    sat_out.sort();
    sat_out.dedup();
    assert_eq!(sat_out, (0..9).collect::<Vec<_>>());
}

#[test]
fn a_hand_planned_and_never_dealt_is_abandoned_and_the_next_is_planned_afresh() {
    // The server plans a hand, then cannot record its start: the table forgets the plan
    // (it would otherwise refuse to plan again, "finish the current hand first"), and the
    // next plan has a new number and deals as usual.
    let mut t: Table<String> = Table::new(triple_draw(6)).unwrap();
    for s in 0..3 {
        t.sit_down(s, format!("p{s}"), 200, Entry::PostNow, None, 0)
            .unwrap();
    }
    let (first, _) = t.next_hand();
    let first = first.expect("a hand is planned");
    assert!(t.current_hand().is_some());
    t.abandon_hand();
    assert!(t.current_hand().is_none());
    let played = deal_and_play(&mut t);
    assert!(
        played.number > first.number,
        "a planned number is never given again"
    );
}
