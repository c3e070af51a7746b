//! House games (docs/house-games.md): bomb pots (H1, H2) in the hand and between hands,
//! and the dealer's choice rotation (H3, H4), with the worked examples' amounts.

use super::*;
use poker_rules::table::{BombPotRule, RotationGame};
use poker_rules::{
    BlindKind, Cards, ConfigError, Decision, Event, HandConfig, HandOptions, SeatConfig,
};

/// A bomb pot hand of no-limit hold'em at 5/10: `stacks`, each paying a bomb of `bomb`.
fn bomb_hand(stacks: &[u64], bomb: u64, structure: Structure) -> (Hand, Vec<Event>) {
    let seats = stacks
        .iter()
        .map(|&stack| SeatConfig {
            stack,
            ante: bomb,
            blind: 0,
            kind: BlindKind::Blind,
        })
        .collect();
    let mut config = HandConfig::new(
        Game::Holdem,
        structure,
        Stakes {
            min_bet: 10,
            ..Stakes::default()
        },
        seats,
    );
    config.options.bomb_pot = true;
    Hand::new(config, CardSource::Deck(DeckKind::Standard.cards())).expect("valid")
}

/// Plays the hand out: checks when free, calls otherwise, draws nothing, shows.
fn check_down(hand: &mut Hand) {
    while let Some(p) = hand.to_act() {
        let action = match hand.decision() {
            Some(Decision::Bet(l)) if l.check => Action::Check,
            Some(Decision::Bet(_)) => Action::Call,
            Some(Decision::Draw) => Action::Draw {
                discards: Cards::new(),
            },
            Some(Decision::RunItTwice) => Action::RunItTwice { agree: false },
            _ => Action::Show { cards: None },
        };
        hand.apply(p, action).expect("legal");
    }
}

#[test]
fn h1_everyone_pays_the_bomb_nobody_posts_a_blind_and_the_flop_comes_at_once() {
    let stacks = [1000; 4];
    let (hand, events) = bomb_hand(&stacks, 20, Structure::NoLimit);
    let antes: Vec<u64> = events
        .iter()
        .filter_map(|e| match e {
            Event::AntePosted { amount, .. } => Some(*amount),
            _ => None,
        })
        .collect();
    assert_eq!(antes, [20, 20, 20, 20], "four bombs of 20");
    assert!(!events
        .iter()
        .any(|e| matches!(e, Event::BlindPosted { .. })));
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::RoundStarted { street: 0 })),
        "no first betting round"
    );
    assert_eq!(hand.board().len(), 3, "the flop is out before anyone acts");
    assert_eq!(hand.street(), 1);
    assert_eq!(hand.pots()[0].amount, 80);
    // Alice, left of the button, opens the flop with the ordinary minimum bet (R4).
    assert_eq!(hand.to_act(), Some(0));
    let legal = hand.legal_actions().unwrap();
    assert!(legal.check);
    assert_eq!(legal.bet_or_raise, Some((10, 980)));
}

#[test]
fn h1_the_worked_example_bob_bets_40_alice_calls_160_at_the_turn() {
    let (mut hand, _) = bomb_hand(&[1000; 4], 20, Structure::NoLimit);
    hand.apply(0, Action::Check).unwrap();
    hand.apply(1, Action::BetOrRaiseTo { to: 40 }).unwrap();
    hand.apply(2, Action::Fold).unwrap();
    hand.apply(3, Action::Fold).unwrap();
    hand.apply(0, Action::Call).unwrap();
    assert_eq!(hand.board().len(), 4);
    assert_eq!(hand.pots().iter().map(|p| p.amount).sum::<u64>(), 160);
    let total = hand.total_chips();
    check_down(&mut hand);
    assert_eq!(hand.final_stacks().unwrap().iter().sum::<u64>(), total);
}

#[test]
fn h1_all_in_for_part_of_the_bomb_wins_an_equal_share_of_each_bomb() {
    // Bob has 12 of a bomb of 20: main pot 4 x 12 = 48, side pot 3 x 8 = 24 (R9, R27).
    let (mut hand, _) = bomb_hand(&[1000, 12, 1000, 1000], 20, Structure::NoLimit);
    let pots = hand.pots();
    assert_eq!(pots[0].amount, 48);
    assert_eq!(pots[0].eligible, [0, 1, 2, 3]);
    assert_eq!(pots[1].amount, 24);
    assert_eq!(pots[1].eligible, [0, 2, 3]);
    // Nobody owes a call for Bob: there is no live bet; Alice opens the flop.
    assert_eq!(hand.to_act(), Some(0));
    assert!(hand.legal_actions().unwrap().check);
    check_down(&mut hand);
    let stacks = hand.final_stacks().unwrap();
    assert_eq!(stacks.iter().sum::<u64>(), 3012, "chips conserved");
    assert!(stacks[1] <= 48, "Bob wins at most the main pot: {stacks:?}");
}

#[test]
fn h1_pot_limit_counts_the_bombs_and_heads_up_the_player_without_the_button_acts_first() {
    let (hand, _) = bomb_hand(&[1000; 4], 20, Structure::PotLimit);
    assert_eq!(hand.legal_actions().unwrap().bet_or_raise, Some((10, 80)));
    let (hand, _) = bomb_hand(&[1000, 1000], 20, Structure::NoLimit);
    assert_eq!(hand.to_act(), Some(0), "index 1 holds the button");
}

#[test]
fn h1_a_bomb_pot_has_no_blinds_and_needs_a_flop() {
    let (hand, _) = bomb_hand(&[1000; 3], 20, Structure::NoLimit);
    let mut with_blind = hand.config().clone();
    with_blind.seats[1].blind = 10;
    assert!(matches!(
        Hand::new(with_blind, CardSource::Manual),
        Err(ConfigError::Invalid(_))
    ));
    let mut draw = hand.config().clone();
    draw.game = Game::DeuceToSevenTripleDraw;
    draw.structure = Structure::FixedLimit;
    draw.stakes = Stakes {
        small_bet: 10,
        big_bet: 20,
        ..Stakes::default()
    };
    assert!(matches!(
        Hand::new(draw, CardSource::Manual),
        Err(ConfigError::Invalid(_))
    ));
    // Stored options without the field read as no bomb pot.
    let old: HandOptions = serde_json::from_str(r#"{"run_it_twice":true}"#).unwrap();
    assert!(!old.bomb_pot);
}

fn bomb_rules(button: ButtonRule, every: u32) -> TableRules {
    TableRules {
        bomb_pot: Some(BombPotRule {
            every,
            big_blinds: 2,
        }),
        ..rules(button)
    }
}

/// Who posted what, by seat (to compare two tables' plans).
fn shape(plan: &HandPlan) -> (usize, Vec<usize>, Vec<(usize, PostKind, u64)>) {
    let mut posts: Vec<_> = plan
        .posts
        .iter()
        .map(|p| (p.seat, p.kind, p.amount))
        .collect();
    posts.sort_by_key(|p| (p.0, p.1 as u8));
    (plan.button, plan.seats.clone(), posts)
}

#[test]
fn h2_every_fourth_hand_is_a_bomb_pot_dealt_from_the_last_button_and_no_blind_moves() {
    for button in [
        ButtonRule::Dead,
        ButtonRule::Moving,
        ButtonRule::SimplifiedMoving,
    ] {
        let mut bombs = table(bomb_rules(button, 4), &NAMES);
        let mut plain = table(rules(button), &NAMES);
        let mut last_button = None;
        for number in 1..=13u64 {
            let plan = play(&mut bombs);
            assert_eq!(plan.number, number);
            if number % 4 == 0 {
                // H2: the button stays, nobody posts a blind, everyone pays 20 (H1).
                assert!(plan.bomb_pot && plan.config.options.bomb_pot, "{button:?}");
                assert_eq!(Some(plan.button), last_button, "{button:?} hand {number}");
                assert_eq!(plan.seats.len(), 5);
                assert!(plan
                    .posts
                    .iter()
                    .all(|p| p.kind == PostKind::Bomb && p.amount == 20 && !p.live));
                assert!(plan
                    .config
                    .seats
                    .iter()
                    .all(|s| s.ante == 20 && s.blind == 0));
                continue;
            }
            // Every other hand is the hand the table would deal without bomb pots.
            assert!(!plan.bomb_pot);
            let same = play(&mut plain);
            assert_eq!(shape(&plan), shape(&same), "{button:?} hand {number}");
            last_button = Some(plan.button);
        }
    }
}

#[test]
fn h2_the_host_calls_one_bomb_pot_never_on_the_first_hand_of_a_game() {
    let mut t = table(rules(ButtonRule::Dead), &NAMES[..3]);
    t.call_bomb_pot(3).unwrap();
    assert_eq!(t.bomb_called(), Some(3));
    // The first hand places the button: the call waits for the next.
    assert!(!play(&mut t).bomb_pot);
    let plan = play(&mut t);
    assert!(plan.bomb_pot);
    assert!(plan.posts.iter().all(|p| p.amount == 30), "3 big blinds");
    assert_eq!(t.bomb_called(), None, "one call, one bomb pot");
    assert!(!play(&mut t).bomb_pot);
    assert_eq!(
        t.call_bomb_pot(0),
        Err(TableError::NoBombPot(
            "the bomb is at least one big blind".into()
        ))
    );
}

#[test]
fn h2_a_player_owing_a_post_sits_the_bomb_pot_out_and_owes_the_same_after() {
    let mut t = table(bomb_rules(ButtonRule::Dead, 3), &NAMES[..3]);
    play(&mut t);
    t.sit_down(3, "David".into(), 1000, Entry::PostNow, None, 0)
        .unwrap();
    // Hand 2: David posts his live big blind as a new player (R13) or waits; hand 3 is
    // the bomb pot.
    let second = play(&mut t);
    let david_posted = second.seats.contains(&3);
    let third = play(&mut t);
    assert!(third.bomb_pot);
    if !david_posted {
        assert!(
            !third.seats.contains(&3),
            "owing a post: not in the bomb pot"
        );
        assert!(t.seats()[3].as_ref().unwrap().new, "and still owes it");
        let fourth = play(&mut t);
        assert!(!fourth.bomb_pot);
        assert!(
            posters(&t, &fourth, PostKind::NewPlayer) == ["David"]
                || posters(&t, &fourth, PostKind::BigBlind) == ["David"]
                || !fourth.seats.contains(&3)
        );
    } else {
        assert!(third.seats.contains(&3), "posted: dealt in like everyone");
    }
}

#[test]
fn h2_a_player_sitting_out_misses_no_blind_in_a_bomb_pot() {
    let mut bombs = table(bomb_rules(ButtonRule::Dead, 2), &NAMES);
    let mut plain = table(rules(ButtonRule::Dead), &NAMES);
    for t in [&mut bombs, &mut plain] {
        play(t);
        t.sit_out(4, SitOut::NextHand).unwrap();
    }
    let bomb = play(&mut bombs);
    assert!(bomb.bomb_pot && !bomb.seats.contains(&4));
    let owed = |t: &Table<String>| {
        let o = t.seats()[4].as_ref().unwrap();
        (o.missed_small, o.missed_big, o.missed_big_blinds)
    };
    assert_eq!(
        owed(&bombs),
        (false, false, 0),
        "nothing missed in a bomb pot"
    );
    // From then on the two tables deal the same hands and Ellen owes the same.
    for _ in 0..8 {
        let a = play(&mut bombs);
        if a.bomb_pot {
            continue;
        }
        let b = play(&mut plain);
        assert_eq!(shape(&a), shape(&b));
        assert_eq!(owed(&bombs), owed(&plain));
    }
}

#[test]
fn h2_bomb_pots_need_a_flop_and_refuse_a_kill_the_rock_and_every_hand() {
    let refused = |r: TableRules| Table::<String>::new(r).is_err();
    assert!(refused(bomb_rules(ButtonRule::Dead, 1)));
    assert!(refused(TableRules {
        rock: true,
        ..bomb_rules(ButtonRule::Dead, 5)
    }));
    assert!(refused(TableRules {
        kill: Some(KillRule {
            trigger: KillTrigger::PotOver(100),
            percent: 200
        }),
        ..bomb_rules(ButtonRule::Dead, 5)
    }));
    let draw = TableRules {
        game: Game::DeuceToSevenTripleDraw,
        structure: Structure::FixedLimit,
        stakes: Stakes {
            small_bet: 10,
            big_bet: 20,
            ..Stakes::default()
        },
        ..rules(ButtonRule::Dead)
    };
    assert!(refused(TableRules {
        bomb_pot: bomb_rules(ButtonRule::Dead, 5).bomb_pot,
        ..draw.clone()
    }));
    let mut t = Table::<String>::new(draw).unwrap();
    assert!(matches!(t.call_bomb_pot(2), Err(TableError::NoBombPot(_))));
}

fn holdem() -> RotationGame {
    RotationGame {
        game: Game::Holdem,
        structure: Structure::NoLimit,
        stakes: Stakes {
            min_bet: 10,
            ..Stakes::default()
        },
        max_raises: None,
        uncapped_heads_up: false,
    }
}

fn omaha() -> RotationGame {
    RotationGame {
        game: Game::Omaha,
        structure: Structure::PotLimit,
        ..holdem()
    }
}

fn triple_draw() -> RotationGame {
    RotationGame {
        game: Game::DeuceToSevenTripleDraw,
        structure: Structure::FixedLimit,
        stakes: Stakes {
            small_bet: 10,
            big_bet: 20,
            ..Stakes::default()
        },
        max_raises: Some(4),
        uncapped_heads_up: true,
    }
}

fn rotation(games: Vec<RotationGame>) -> TableRules {
    TableRules {
        dealers_choice: games,
        ..rules(ButtonRule::Dead)
    }
}

/// Plays the planned hand out (checking and calling down, drawing nothing).
fn play_out(t: &mut Table<String>) -> HandPlan {
    let (plan, _) = t.next_hand();
    let plan = plan.expect("a hand is dealt");
    let deck = plan.config.game.deck().cards();
    let (mut hand, _) = Hand::new(plan.config.clone(), CardSource::Deck(deck)).expect("valid");
    let before: u64 = plan.config.seats.iter().map(|s| s.stack).sum();
    check_down(&mut hand);
    assert_eq!(hand.final_stacks().unwrap().iter().sum::<u64>(), before);
    t.finish_hand(&hand).expect("the planned hand");
    plan
}

#[test]
fn h3_each_game_is_played_for_an_orbit_of_the_players_dealt_into_its_first_hand() {
    let mut t = table(
        rotation(vec![holdem(), omaha(), triple_draw()]),
        &NAMES[..4],
    );
    let view = t.rotation_view().unwrap();
    assert_eq!((view.now, view.next, view.hands_left), (0, 1, None));
    let mut games = Vec::new();
    for _ in 0..13 {
        let plan = play_out(&mut t);
        games.push(plan.config.game);
        if plan.number == 2 {
            let v = t.rotation_view().unwrap();
            assert_eq!((v.now, v.hands_left), (0, Some(2)), "hold'em, two more");
        }
        if plan.number == 4 {
            let v = t.rotation_view().unwrap();
            assert_eq!((v.now, v.next, v.hands_left), (1, 2, None), "Omaha next");
        }
    }
    let g = |game: Game, k: usize| std::iter::repeat_n(game, k);
    let expected: Vec<Game> = g(Game::Holdem, 4)
        .chain(g(Game::Omaha, 4))
        .chain(g(Game::DeuceToSevenTripleDraw, 4))
        .chain(g(Game::Holdem, 1))
        .collect();
    assert_eq!(games, expected);
}

#[test]
fn h3_players_joining_or_leaving_mid_orbit_do_not_change_its_length() {
    let mut t = table(rotation(vec![holdem(), omaha()]), &NAMES[..4]);
    let mut games = Vec::new();
    games.push(play_out(&mut t).config.game);
    // Ellen sits down after hand 1 and posts at once (R13); Bob leaves after hand 2.
    t.sit_down(4, "Ellen".into(), 1000, Entry::PostNow, None, 0)
        .unwrap();
    games.push(play_out(&mut t).config.game);
    t.leave(1, 0).unwrap();
    games.push(play_out(&mut t).config.game);
    games.push(play_out(&mut t).config.game);
    // Hold'em's orbit counted four; Omaha's first hand deals four (Bob gone, Ellen in).
    let first_omaha = play_out(&mut t);
    assert_eq!(first_omaha.config.game, Game::Omaha);
    assert_eq!(first_omaha.seats.len(), 4);
    for _ in 0..3 {
        games.push(play_out(&mut t).config.game);
    }
    assert_eq!(
        games,
        [Game::Holdem; 4]
            .into_iter()
            .chain([Game::Omaha; 3])
            .collect::<Vec<_>>()
    );
    assert_eq!(play_out(&mut t).config.game, Game::Holdem);
}

#[test]
fn h3_a_bomb_pot_is_played_in_the_game_but_not_counted_and_never_in_a_draw_game() {
    let rules = TableRules {
        bomb_pot: Some(BombPotRule {
            every: 2,
            big_blinds: 2,
        }),
        ..rotation(vec![holdem(), triple_draw()])
    };
    let mut t = table(rules, &NAMES[..3]);
    let played: Vec<(Game, bool)> = (0..8)
        .map(|_| {
            let p = play_out(&mut t);
            (p.config.game, p.bomb_pot)
        })
        .collect();
    use Game::{DeuceToSevenTripleDraw as Draw, Holdem};
    assert_eq!(
        played,
        [
            (Holdem, false),
            (Holdem, true),
            (Holdem, false),
            (Holdem, true),
            (Holdem, false),
            (Draw, false),
            (Draw, false),
            (Draw, false),
        ]
    );
    assert_eq!(play_out(&mut t).config.game, Holdem);
}

#[test]
fn h4_each_hand_has_its_games_stakes_and_only_the_options_it_can_have() {
    let mut r = rotation(vec![holdem(), triple_draw()]);
    r.options.run_it_twice = true;
    let mut t = table(r, &NAMES[..2]);
    let first = play_out(&mut t);
    assert_eq!(first.config.stakes.min_bet, 10);
    assert!(first.config.options.run_it_twice);
    play_out(&mut t);
    let draw = play_out(&mut t);
    assert_eq!(draw.config.game, Game::DeuceToSevenTripleDraw);
    assert_eq!(
        (draw.config.stakes.small_bet, draw.config.stakes.big_bet),
        (10, 20)
    );
    assert_eq!(draw.config.max_raises, Some(4));
    assert!(!draw.config.options.run_it_twice, "no board to run twice");
    // The blinds are the table's in every game.
    assert_eq!(draw.config.seats.iter().map(|s| s.blind).max(), Some(10));
}

#[test]
fn h3_a_rotation_is_checked_and_its_place_survives_a_save() {
    let refused = |games: Vec<RotationGame>| Table::<String>::new(rotation(games)).is_err();
    assert!(refused(vec![holdem()]), "two games at least");
    let stud = RotationGame {
        game: Game::Stud,
        ..triple_draw()
    };
    assert!(refused(vec![holdem(), stud]), "no stud: it has no button");
    let short = RotationGame {
        game: Game::ShortDeckHoldem,
        ..holdem()
    };
    assert!(refused(vec![holdem(), short]), "one deck for every game");
    assert!(
        Table::<String>::new(TableRules {
            seat_count: 9,
            ..rotation(vec![holdem(), triple_draw()])
        })
        .is_err(),
        "a draw game deals eight at most"
    );
    let mut t = table(rotation(vec![holdem(), omaha()]), &NAMES[..3]);
    play_out(&mut t);
    let saved = serde_json::to_string(&t).unwrap();
    let back: Table<String> = serde_json::from_str(&saved).unwrap();
    assert_eq!(back, t);
    assert_eq!(back.rotation().played, 1);
    // A table saved before rotations existed reads with none.
    let mut old: serde_json::Value =
        serde_json::to_value(table(rules(ButtonRule::Dead), &NAMES)).unwrap();
    old.as_object_mut().unwrap().remove("rotation");
    old.as_object_mut().unwrap().remove("bomb_called");
    let old: Table<String> = serde_json::from_value(old).unwrap();
    assert!(old.rotation_view().is_none());
}

#[test]
fn h3_a_rotation_seats_no_more_than_its_most_restrictive_game_deals_and_says_which() {
    // Hold'em deals ten; triple draw, in the rotation, eight: nine seats are refused,
    // naming triple draw (not the table's first game).
    let mut rules = rotation(vec![holdem(), triple_draw()]);
    rules.seat_count = 9;
    let refused = Table::<String>::new(rules.clone()).unwrap_err().to_string();
    assert!(
        refused.contains("2-7 triple draw deals at most 8 players"),
        "{refused}"
    );
    rules.seat_count = 8;
    assert!(Table::<String>::new(rules).is_ok());
}
