//! The table's kill blinds (R17) and straddles (R15, R16), between hands and in the next.

use super::*;

#[test]
fn r17_a_pot_over_the_threshold_makes_its_winner_post_the_kill_blind() {
    let mut r = rules(ButtonRule::Dead);
    r.structure = Structure::FixedLimit;
    r.stakes = Stakes {
        small_bet: 10,
        big_bet: 20,
        ..Stakes::default()
    };
    r.kill = Some(KillRule {
        trigger: KillTrigger::PotOver(9),
        percent: 200,
    });
    let mut t = table(r, &["Alice", "Bob", "Carol"]);
    // Folds to the big blind win a pot of 10 (the uncalled 5 goes back) > 9.
    let plan = play(&mut t);
    let bb = plan
        .posts
        .iter()
        .find(|p| p.kind == PostKind::BigBlind)
        .unwrap()
        .seat;
    assert_eq!(t.kill_seat(), Some(bb));
    let (plan, _) = t.next_hand();
    let plan = plan.unwrap();
    assert!(plan.kill);
    let kill = plan
        .posts
        .iter()
        .find(|p| p.kind == PostKind::Kill)
        .unwrap();
    assert_eq!((kill.seat, kill.amount, kill.live), (bb, 20, true));
    assert_eq!(
        (plan.config.stakes.small_bet, plan.config.stakes.big_bet),
        (20, 40),
        "limits doubled"
    );
}

#[test]
fn r17_two_pots_in_a_row_trigger_a_half_kill() {
    let mut r = rules(ButtonRule::Dead);
    r.structure = Structure::FixedLimit;
    r.stakes = Stakes {
        small_bet: 4,
        big_bet: 8,
        ..Stakes::default()
    };
    r.small_blind = 2;
    r.big_blind = 4;
    r.kill = Some(KillRule {
        trigger: KillTrigger::ConsecutiveWins(2),
        percent: 150,
    });
    let mut t = table(r, &["Alice", "Bob"]);
    // Heads-up folds: the big blind alternates, so each wins one pot; no kill.
    play(&mut t);
    play(&mut t);
    assert_eq!(t.kill_seat(), None);
    // Alice wins twice in a row by betting and making the other fold.
    for _ in 0..2 {
        let (plan, _) = t.next_hand();
        let plan = plan.unwrap();
        let (mut hand, _) = Hand::new(
            plan.config.clone(),
            CardSource::Deck(DeckKind::Standard.cards()),
        )
        .unwrap();
        while let Some(p) = hand.to_act() {
            let a = if plan.seats[p] == 0 {
                match hand.legal_actions().unwrap().bet_or_raise {
                    Some((min, _)) => Action::BetOrRaiseTo { to: min },
                    None => Action::Call,
                }
            } else {
                Action::Fold
            };
            hand.apply(p, a).unwrap();
        }
        t.finish_hand(&hand).unwrap();
    }
    assert_eq!(t.kill_seat(), Some(0));
    let (plan, _) = t.next_hand();
    let plan = plan.unwrap();
    assert_eq!(
        (plan.config.stakes.small_bet, plan.config.stakes.big_bet),
        (6, 12),
        "a $4/$8 half kill plays $6/$12"
    );
}

#[test]
fn r16_the_rock_straddles_under_the_gun_and_passes_to_the_winner() {
    let mut r = rules(ButtonRule::Dead);
    r.rock = true;
    let mut t = table(r, &NAMES);
    let (plan, _) = t.next_hand();
    let plan = plan.unwrap();
    let rock = plan
        .posts
        .iter()
        .find(|p| p.kind == PostKind::Rock)
        .expect("a rock straddle");
    assert_eq!(rock.amount, 20, "twice the big blind");
    assert_eq!(Some(rock.seat), t.rock_seat());
    // Everyone folds to the straddler, who wins and keeps the rock... let the big blind
    // win instead: all fold, then the straddle (last to act) folds? It cannot fold to no
    // bet; so the straddler wins. Check the winner takes the rock.
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
    let winner = (0..plan.seats.len())
        .find(|&i| hand.players()[i].won > 0)
        .unwrap();
    t.finish_hand(&hand).unwrap();
    assert_eq!(t.rock_seat(), Some(plan.seats[winner]));
}

#[test]
fn r15_a_player_who_chooses_to_straddle_posts_twice_the_big_blind_under_the_gun_and_acts_last() {
    let mut r = rules(ButtonRule::Dead);
    assert_eq!(
        Table::<String>::new(r.clone())
            .map(|mut t| {
                t.sit_down(0, "Alice".into(), 1000, Entry::PostNow, None, 0)
                    .unwrap();
                t.set_straddle(0, true)
            })
            .unwrap(),
        Err(TableError::NoStraddle),
        "a table without straddles refuses the wish"
    );
    r.straddle = true;
    let mut t = table(r, &NAMES);
    for seat in 0..NAMES.len() {
        t.set_straddle(seat, true).unwrap();
    }
    // Each hand, whoever is under the gun straddles; the blinds do not.
    for _ in 0..NAMES.len() {
        let (plan, _) = t.next_hand();
        let plan = plan.unwrap();
        let straddles: Vec<_> = plan
            .posts
            .iter()
            .filter(|p| p.kind == PostKind::Straddle)
            .collect();
        assert_eq!(straddles.len(), 1, "one straddle: {:?}", plan.posts);
        let s = straddles[0];
        assert_eq!((s.amount, s.live), (20, true), "twice the big blind, live");
        let big = plan
            .posts
            .iter()
            .find(|p| p.kind == PostKind::BigBlind)
            .unwrap()
            .seat;
        let order = |seat: usize| plan.seats.iter().position(|&x| x == seat).unwrap();
        assert_eq!(
            order(s.seat),
            order(big) + 1,
            "under the gun, left of the big blind"
        );
        // Action starts left of the straddle; everyone calls 20, and the straddler acts
        // last with the option (R15).
        let (mut hand, _) = Hand::new(
            plan.config.clone(),
            CardSource::Deck(DeckKind::Standard.cards()),
        )
        .unwrap();
        let first = hand.to_act().unwrap();
        assert_eq!(first, (order(s.seat) + 1) % plan.seats.len());
        let mut last = None;
        while hand.street() == 0 {
            let Some(p) = hand.to_act() else { break };
            last = Some(p);
            let legal = hand.legal_actions().unwrap();
            if p == order(s.seat) {
                assert!(legal.check, "the straddler has the option");
                hand.apply(p, Action::Check).unwrap();
            } else {
                hand.apply(p, Action::Call).unwrap();
            }
        }
        assert_eq!(last, Some(order(s.seat)), "the straddler closes the round");
        while let Some(p) = hand.to_act() {
            let a = match hand.legal_actions() {
                None => Action::Show { cards: None }, // the showdown
                Some(l) if l.check => Action::Check,
                Some(_) => Action::Fold,
            };
            hand.apply(p, a).unwrap();
        }
        t.finish_hand(&hand).unwrap();
    }
    // A player who takes the wish back posts nothing more.
    for seat in 0..NAMES.len() {
        t.set_straddle(seat, false).unwrap();
    }
    let (plan, _) = t.next_hand();
    assert!(!plan
        .unwrap()
        .posts
        .iter()
        .any(|p| p.kind == PostKind::Straddle));
    // Not with the rock, and not in stud.
    let mut both = rules(ButtonRule::Dead);
    both.straddle = true;
    both.rock = true;
    assert!(matches!(
        Table::<String>::new(both),
        Err(TableError::InvalidRules(_))
    ));
}
