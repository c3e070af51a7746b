//! The showdown's worked examples (R33-R35): who shows first, who may muck, how side
//! pots and odd chips are awarded.

use super::*;

#[test]
fn r33_the_last_aggressor_shows_first_then_clockwise() {
    let seats = [(1000, 0, 5), (1000, 0, 10), (1000, 0, 0)];
    let mut t = Table::new(
        no_limit(10, &seats),
        &["AsAh", "KsKh", "QsQh"],
        "2c7d8h9c3d",
    );
    t.act(2, Action::Call);
    t.act(0, Action::Call);
    t.act(1, Action::Check);
    for _ in 0..2 {
        for p in [0, 1, 2] {
            t.act(p, Action::Check);
        }
    }
    // River: 0 checks, 1 bets, 2 calls, 0 calls.
    t.act(0, Action::Check);
    t.act(1, bet(50));
    t.act(2, Action::Call);
    t.act(0, Action::Call);
    assert!(t.is_showdown());
    assert_eq!(t.show_all(), vec![1, 2, 0]);
}

#[test]
fn r33_with_no_river_bet_the_first_to_act_shows_first_and_losers_may_muck() {
    let seats = [(1000, 0, 5), (1000, 0, 10), (1000, 0, 0)];
    let mut t = Table::new(
        no_limit(10, &seats),
        &["AsAh", "6c2d", "KsKh"],
        "2c7d8h9c3d",
    );
    t.act(2, Action::Call);
    t.act(0, Action::Call);
    t.act(1, Action::Check);
    for _ in 0..3 {
        for p in [0, 1, 2] {
            t.act(p, Action::Check);
        }
    }
    assert_eq!(t.hand.to_act(), Some(0));
    t.act(0, Action::Show { cards: None });
    t.act(1, Action::Muck);
    // A loser may muck while another player is still live.
    t.act(2, Action::Muck);
    assert_eq!(t.hand.phase(), Phase::Complete);
    assert_eq!(t.stacks(), vec![1020, 990, 990]);
}

#[test]
fn r33_a_hand_beaten_by_one_already_shown_may_be_mucked_but_not_a_tie() {
    let seats = [(1000, 0, 5), (1000, 0, 10), (1000, 0, 0)];
    let mut t = Table::new(
        no_limit(10, &seats),
        &["AsAh", "6c2d", "AdAc"],
        "2c7d8h9c3d",
    );
    t.act(2, Action::Call);
    t.act(0, Action::Call);
    t.act(1, Action::Check);
    for _ in 0..3 {
        for p in [0, 1, 2] {
            t.act(p, Action::Check);
        }
    }
    assert_eq!(t.hand.to_act(), Some(0));
    assert!(!t.hand.is_beaten(0), "nothing is shown yet");
    t.act(0, Action::Show { cards: None });
    assert!(t.hand.is_beaten(1), "a pair of twos against aces");
    t.act(1, Action::Muck);
    assert!(!t.hand.is_beaten(2), "aces against aces split the pot");
}

#[test]
fn r33_a_player_in_the_side_pot_is_beaten_only_if_beaten_in_every_pot() {
    let seats = [(50, 0, 0), (1000, 0, 0), (1000, 0, 0)];
    let mut t = Table::new(
        no_limit(10, &seats),
        &["AsAh", "KsKh", "QsQh"],
        "2c7d8h9c3d",
    );
    t.act(0, bet(50));
    t.act(1, bet(200));
    t.act(2, Action::Call);
    for _ in 0..3 {
        t.act(1, Action::Check);
        t.act(2, Action::Check);
    }
    // Side pot players show first: kings, then queens (beaten in both pots), then aces.
    assert_eq!(t.hand.to_act(), Some(1));
    t.act(1, Action::Show { cards: None });
    assert!(t.hand.is_beaten(2));
    t.act(2, Action::Muck);
    assert!(!t.hand.is_beaten(0), "the aces win the main pot");
}

#[test]
fn r33_side_pot_players_show_before_the_main_pot_all_in() {
    let seats = [(50, 0, 0), (1000, 0, 0), (1000, 0, 0)];
    let mut t = Table::new(
        no_limit(10, &seats),
        &["AsAh", "KsKh", "QsQh"],
        "2c7d8h9c3d",
    );
    t.act(0, bet(50));
    t.act(1, bet(200));
    t.act(2, Action::Call);
    for _ in 0..3 {
        t.act(1, Action::Check);
        t.act(2, Action::Check);
    }
    assert_eq!(t.show_all(), vec![1, 2, 0]);
}

#[test]
fn r33_the_last_live_contender_of_a_side_pot_cannot_muck_it_away() {
    let seats = [(50, 0, 0), (1000, 0, 0), (1000, 0, 0)];
    let mut t = Table::new(
        no_limit(10, &seats),
        &["AsAh", "KsKh", "QsQh"],
        "2c7d8h9c3d",
    );
    t.act(0, bet(50));
    t.act(1, bet(200));
    t.act(2, Action::Call);
    for _ in 0..3 {
        t.act(1, Action::Check);
        t.act(2, Action::Check);
    }
    t.act(1, Action::Muck);
    assert_eq!(t.try_act(2, Action::Muck), Err(ActionError::CannotMuck));
    t.act(2, Action::Show { cards: None });
    t.act(0, Action::Show { cards: None });
    assert_eq!(t.stacks(), vec![150, 800, 1100]);
}

#[test]
fn r33_when_the_first_shower_mucks_heads_up_the_other_wins_unseen() {
    // Heads-up: the button (last index) posts the small blind and acts first preflop.
    let seats = [(1000, 0, 10), (1000, 0, 5)];
    let mut t = Table::new(no_limit(10, &seats), &["AsAh", "KsKh"], "2c7d8h9c3d");
    t.act(1, Action::Call);
    t.act(0, Action::Check);
    for _ in 0..3 {
        t.act(0, Action::Check);
        t.act(1, Action::Check);
    }
    let first = t.hand.to_act().unwrap();
    t.act(first, Action::Muck);
    assert_eq!(
        t.hand.phase(),
        Phase::Complete,
        "the other player wins without showing"
    );
}

#[test]
fn r34_side_pots_are_awarded_first_and_each_pot_is_split_separately() {
    // 0 is all in for 50 with the same straight as 1 (main pot split); 1 and 2 contest
    // a side pot that 1 wins alone.
    let seats = [(50, 0, 0), (1000, 0, 0), (1000, 0, 0)];
    let mut t = Table::new(
        no_limit(10, &seats),
        &["Ts2h", "Td3h", "4s4h"],
        "6c7d8h9cKd",
    );
    t.act(0, bet(50));
    t.act(1, bet(200));
    t.act(2, Action::Call);
    for _ in 0..3 {
        t.act(1, Action::Check);
        t.act(2, Action::Check);
    }
    t.show_all();
    assert_eq!(
        t.awards(),
        vec![(1, 300, vec![(1, 300)]), (0, 150, vec![(0, 75), (1, 75)])]
    );
    assert_eq!(t.stacks(), vec![75, 1175, 800]);
}

#[test]
fn r35_the_odd_chip_goes_to_the_first_winner_left_of_the_button() {
    // Antes of 1 from three players and a dead 2 from a fold make an odd pot.
    let seats = [(100, 1, 0), (100, 1, 0), (100, 1, 0)];
    let mut t = Table::new(no_limit(2, &seats), &["Ts2h", "4s4h", "Td3h"], "6c7d8h9cKd");
    t.act(0, bet(2));
    t.act(1, Action::Call);
    t.act(2, Action::Call);
    t.act(0, Action::Check);
    t.act(1, Action::Fold);
    t.act(2, Action::Check);
    for _ in 0..2 {
        t.act(0, Action::Check);
        t.act(2, Action::Check);
    }
    t.show_all();
    // Pot 9 split between 0 and 2: 0, first left of the button, gets the odd chip.
    assert_eq!(t.awards(), vec![(0, 9, vec![(0, 5), (2, 4)])]);
}

#[test]
fn r35_in_hi_lo_the_odd_chip_of_a_split_goes_to_the_high_half() {
    let stakes = Stakes {
        small_bet: 2,
        big_bet: 4,
        ..Stakes::default()
    };
    let seats = [(100, 1, 1), (100, 1, 2), (100, 1, 0)];
    let mut t = Table::new(
        config(Game::OmahaHiLo, Structure::FixedLimit, stakes, &seats),
        &["KsKhQd9c", "As2sJdJc", "TcTd5h5s"],
        "3c4d8hKdQs",
    );
    t.act(2, Action::Fold);
    t.act(0, Action::Call);
    t.act(1, Action::Check);
    for _ in 0..3 {
        t.act(0, Action::Check);
        t.act(1, Action::Check);
    }
    t.show_all();
    let shares: Vec<(PotShare, u64)> = t
        .events
        .iter()
        .filter_map(|e| match e {
            Event::PotAwarded { share, amount, .. } => Some((*share, *amount)),
            _ => None,
        })
        .collect();
    assert_eq!(shares, vec![(PotShare::High, 4), (PotShare::Low, 3)]);
}
