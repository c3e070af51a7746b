//! Property tests: random hands of every game and betting structure with random stacks
//! (short ones included), played to the end by random legal decisions.
//!
//! After every step: chips are conserved, pots add up to what was put in, every legal
//! action the hand offers is accepted, illegal ones are refused without changing the
//! state, the serialized state round-trips, and every hand ends. Finished hands are
//! written as PHH and replayed to the same result.

use poker_history::phh;
use poker_rules::{
    Action, ActionError, BlindKind, Card, CardSource, Cards, Chips, Decision, DeckKind, Event,
    Game, Hand, HandConfig, HandOptions, Phase, PotLimitPreflop, Rake, RakeRounding, SeatConfig,
    Stakes, Structure,
};
use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

const GAMES: [Game; 10] = [
    Game::Holdem,
    Game::ShortDeckHoldem,
    Game::Omaha,
    Game::OmahaHiLo,
    Game::Stud,
    Game::StudHiLo,
    Game::Razz,
    Game::DeuceToSevenSingleDraw,
    Game::DeuceToSevenTripleDraw,
    Game::Badugi,
];
const STRUCTURES: [Structure; 4] = [
    Structure::NoLimit,
    Structure::PotLimit,
    Structure::FixedLimit,
    Structure::SpreadLimit,
];

fn random_config(rng: &mut SmallRng) -> HandConfig {
    let game = GAMES[rng.gen_range(0..GAMES.len())];
    let structure = STRUCTURES[rng.gen_range(0..STRUCTURES.len())];
    let n = rng.gen_range(2..=game.max_players().min(8));
    let stud = matches!(game, Game::Stud | Game::StudHiLo | Game::Razz);
    let ante = if stud || rng.gen_bool(0.3) {
        rng.gen_range(1..=3)
    } else {
        0
    };
    let mut seats: Vec<SeatConfig> = (0..n)
        .map(|i| {
            let stack = if rng.gen_bool(0.2) {
                rng.gen_range(1..=6)
            } else {
                rng.gen_range(7..=400)
            };
            let blind = match (stud, n, i) {
                (true, ..) => 0,
                (false, 2, 0) => 4,
                (false, 2, _) => 2,
                (false, _, 0) => 2,
                (false, _, 1) => 4,
                _ => 0,
            };
            SeatConfig {
                stack,
                ante,
                blind,
                ..SeatConfig::default()
            }
        })
        .collect();
    // Straddles (under the gun or Mississippi), sleepers, kill blinds and live posts.
    if !stud && n >= 3 {
        let seat = rng.gen_range(2..n);
        let kind = [
            BlindKind::Straddle,
            BlindKind::Sleeper,
            BlindKind::Kill,
            BlindKind::Post,
            BlindKind::Blind,
        ][rng.gen_range(0..5)];
        seats[seat].blind = if kind == BlindKind::Post { 4 } else { 8 };
        seats[seat].kind = kind;
        if rng.gen_bool(0.2) {
            // A button blind (three blinds, R10).
            seats[n - 1].blind = seats[n - 1].blind.max(2);
        }
    }
    let largest_blind = seats.iter().map(|s| s.blind).max().unwrap_or(0);
    let mut options = HandOptions::default();
    if structure == Structure::SpreadLimit {
        options.spread = (0..rng.gen_range(1..=3))
            .map(|_| {
                let lo = rng.gen_range(1..=4);
                (lo, lo + rng.gen_range(0..=8))
            })
            .collect();
    }
    if rng.gen_bool(0.2) {
        options.cap = Some(largest_blind.max(1) + rng.gen_range(0..=60));
    }
    if rng.gen_bool(0.2) {
        options.unit = 2;
    }
    if structure == Structure::PotLimit {
        options.pot_limit_preflop = [
            PotLimitPreflop::TruePot,
            PotLimitPreflop::AssumedCall,
            PotLimitPreflop::DeadSmallBlind,
        ][rng.gen_range(0..3)];
    }
    if matches!(structure, Structure::FixedLimit | Structure::SpreadLimit) {
        options.half_bet_rule = rng.gen_bool(0.5);
    }
    options.heads_up_at_round_start = rng.gen_bool(0.5);
    options.run_it_twice = game.has_board() && rng.gen_bool(0.4);
    options.expose_all_in = rng.gen_bool(0.3);
    if rng.gen_bool(0.4) {
        options.rake = Some(Rake {
            basis_points: rng.gen_range(0..=1000),
            cap: rng.gen_range(0..=20),
            no_flop_no_drop: rng.gen_bool(0.5),
            rounding: [RakeRounding::Down, RakeRounding::Nearest, RakeRounding::Up]
                [rng.gen_range(0..3)],
        });
    }
    let mut config = HandConfig::new(
        game,
        structure,
        Stakes {
            min_bet: 4,
            small_bet: 4,
            big_bet: 8,
            bring_in: if stud { 2 } else { 0 },
        },
        seats,
    );
    config.max_raises = if rng.gen_bool(0.5) {
        Some(rng.gen_range(2..=4))
    } else {
        None
    };
    config.uncapped_heads_up = rng.gen_bool(0.5);
    config.options = options;
    config
}

/// Every action the decision allows, a few amounts for bets.
fn legal_candidates(hand: &Hand, rng: &mut SmallRng) -> Vec<Action> {
    let p = hand.to_act().expect("someone acts");
    match hand.decision().expect("a decision") {
        Decision::Bet(l) => {
            let mut out = Vec::new();
            if l.fold {
                out.push(Action::Fold);
            }
            if l.check {
                out.push(Action::Check);
            }
            if l.call.is_some() {
                out.push(Action::Call);
            }
            if l.bring_in.is_some() {
                out.push(Action::BringIn);
            }
            if let Some((min, max)) = l.bet_or_raise {
                out.push(Action::BetOrRaiseTo { to: min });
                out.push(Action::BetOrRaiseTo { to: max });
                let mid = rng.gen_range(min..=max);
                let on_unit = (mid - mid % l.unit).max(min);
                out.push(Action::BetOrRaiseTo { to: on_unit });
            }
            if let Some(to) = l.cover_raise {
                out.push(Action::BetOrRaiseTo { to });
            }
            out
        }
        Decision::Draw => {
            let hole = hand.players()[p].hole;
            let mut subset: Vec<Card> =
                hole.iter().copied().filter(|_| rng.gen_bool(0.4)).collect();
            subset.shuffle(rng);
            vec![
                Action::Draw {
                    discards: Cards::new(),
                },
                Action::Draw {
                    discards: Cards::from_slice(&subset).expect("fits"),
                },
            ]
        }
        Decision::Showdown { can_muck } => {
            let mut out = vec![Action::Show { cards: None }];
            if can_muck {
                out.push(Action::Muck);
            }
            out
        }
        Decision::RunItTwice => vec![
            Action::RunItTwice { agree: true },
            Action::RunItTwice { agree: true },
            Action::RunItTwice { agree: false },
        ],
    }
}

/// Actions that must be refused now.
fn illegal_candidates(hand: &Hand) -> Vec<(usize, Action)> {
    let p = hand.to_act().expect("someone acts");
    let n = hand.players().len();
    let mut out = vec![((p + 1) % n, Action::Fold), (n + 3, Action::Check)];
    // Every kind of action that does not answer this kind of decision is refused (a
    // client may send any of them at any time).
    let decision = hand.decision().expect("a decision");
    for action in [
        Action::Fold,
        Action::Check,
        Action::Call,
        Action::BringIn,
        Action::BetOrRaiseTo { to: 1 },
        Action::Draw {
            discards: Cards::new(),
        },
        Action::Show { cards: None },
        Action::Muck,
        Action::RunItTwice { agree: true },
        Action::RunItTwice { agree: false },
    ] {
        let answers = matches!(
            (&decision, &action),
            (
                Decision::Bet(_),
                Action::Fold
                    | Action::Check
                    | Action::Call
                    | Action::BringIn
                    | Action::BetOrRaiseTo { .. },
            ) | (Decision::Draw, Action::Draw { .. })
                | (
                    Decision::Showdown { .. },
                    Action::Show { .. } | Action::Muck
                )
                | (Decision::RunItTwice, Action::RunItTwice { .. })
        );
        if !answers {
            out.push((p, action));
        }
    }
    match decision {
        Decision::Bet(l) => {
            out.push((p, Action::Muck));
            out.push((
                p,
                Action::Draw {
                    discards: Cards::new(),
                },
            ));
            if !l.check {
                out.push((p, Action::Check));
            }
            if l.call.is_none() && l.bring_in.is_none() {
                out.push((p, Action::Call));
            }
            match l.bet_or_raise {
                Some((min, max)) => {
                    if min > 1 && l.cover_raise != Some(min - 1) {
                        out.push((p, Action::BetOrRaiseTo { to: min - 1 }));
                    }
                    // Between the covering raise and the range nothing is legal.
                    if let Some(cover) = l.cover_raise.filter(|c| c + 1 < min) {
                        out.push((p, Action::BetOrRaiseTo { to: cover + 1 }));
                    }
                    out.push((p, Action::BetOrRaiseTo { to: max + 1 }));
                }
                None => out.push((p, Action::BetOrRaiseTo { to: u64::MAX / 2 })),
            }
        }
        Decision::Draw => {
            out.push((p, Action::Call));
            let foreign = DeckKind::Standard
                .cards()
                .into_iter()
                .find(|c| !hand.players()[p].hole.contains(c))
                .expect("a card not held");
            out.push((
                p,
                Action::Draw {
                    discards: Cards::from_slice(&[foreign]).expect("one"),
                },
            ));
        }
        Decision::Showdown { can_muck } => {
            out.push((p, Action::Call));
            if !can_muck {
                out.push((p, Action::Muck));
            }
        }
        Decision::RunItTwice => {
            out.push((p, Action::Check));
            out.push((p, Action::Show { cards: None }));
        }
    }
    out
}

fn committed(hand: &Hand) -> Chips {
    hand.players().iter().map(|p| p.committed).sum()
}

/// What one random hand went through, for coverage checks.
#[derive(Debug, Default)]
struct Played {
    game: Option<Game>,
    structure: Option<Structure>,
    reshuffled: bool,
    showdown: bool,
    side_pots: bool,
    raked: bool,
    ran_twice: bool,
    exposed: bool,
    /// Showdown decisions where the hand was beaten (and mucking was checked).
    beaten: usize,
}

fn play(seed: u64) -> Result<Played, TestCaseError> {
    let mut played = Played::default();
    let mut rng = SmallRng::seed_from_u64(seed);
    let config = random_config(&mut rng);
    let total: Chips = config.seats.iter().map(|s| s.stack).sum();
    let mut deck = config.game.deck().cards();
    deck.shuffle(&mut rng);
    let (mut hand, mut events) =
        Hand::new(config.clone(), CardSource::Deck(deck)).expect("valid config");
    let mut steps = 0;
    while !hand.is_complete() {
        steps += 1;
        prop_assert!(steps < 1000, "the hand must end");
        if let Some(muck) = hand.needs_reshuffle() {
            let mut cards = muck.to_vec();
            cards.shuffle(&mut rng);
            events.extend(hand.reshuffle(cards).expect("a reshuffle of the discards"));
            played.reshuffled = true;
            continue;
        }
        prop_assert!(
            hand.to_act().is_some(),
            "an unfinished hand waits for a player: {:?}",
            hand.phase()
        );
        // Illegal actions are refused and change nothing.
        for (p, action) in illegal_candidates(&hand) {
            let before = hand.clone();
            prop_assert!(
                hand.apply(p, action).is_err(),
                "{action:?} by {p} should be refused"
            );
            prop_assert_eq!(&hand, &before, "{:?} by {} changed the hand", action, p);
        }
        // Every legal action is accepted.
        let candidates = legal_candidates(&hand, &mut rng);
        let p = hand.to_act().expect("someone acts");
        for &action in &candidates {
            let mut probe = hand.clone();
            if let Err(e) = probe.apply(p, action) {
                return Err(TestCaseError::fail(format!(
                    "legal {action:?} by {p} refused: {e}"
                )));
            }
        }
        // A hand the engine calls beaten wins nothing: mucking it instead of showing
        // changes nobody's result (R33).
        if hand.phase() == Phase::Showdown && hand.is_beaten(p) {
            let (mut mucked, mut shown) = (hand.clone(), hand.clone());
            mucked
                .apply(p, Action::Muck)
                .expect("a beaten hand may muck");
            shown.apply(p, Action::Show { cards: None }).expect("show");
            for h in [&mut mucked, &mut shown] {
                while let (Some(q), Some(Decision::Showdown { .. })) = (h.to_act(), h.decision()) {
                    h.apply(q, Action::Show { cards: None }).expect("show");
                }
            }
            prop_assert_eq!(
                mucked.final_stacks(),
                shown.final_stacks(),
                "mucking a beaten hand changed the result"
            );
            played.beaten += 1;
        }
        let action = candidates[rng.gen_range(0..candidates.len())];
        if hand.phase() == Phase::Showdown {
            played.showdown = true;
            played.side_pots |= hand.pots().len() > 1;
        }
        events.extend(hand.apply(p, action).expect("legal"));
        // Invariants.
        prop_assert_eq!(hand.total_chips(), total);
        if !hand.is_complete() {
            let pots: Chips = hand.pots().iter().map(|p| p.amount).sum();
            prop_assert_eq!(pots, committed(&hand));
        }
        // The state round-trips through serde mid-hand.
        let json = serde_json::to_string(&hand).expect("serializable");
        let back: Hand = serde_json::from_str(&json).expect("deserializable");
        prop_assert_eq!(&back, &hand);
    }
    let stacks = hand.final_stacks().expect("complete");
    prop_assert_eq!(
        stacks.iter().sum::<Chips>() + hand.rake(),
        total,
        "chips conserved, rake included"
    );
    played.raked = hand.rake() > 0;
    played.ran_twice = events.contains(&Event::RunningTwice);
    played.exposed = config.options.expose_all_in
        && events.iter().any(|e| matches!(e, Event::Shown { .. }))
        && hand.second_board().is_none()
        && events.iter().position(|e| matches!(e, Event::Shown { .. }))
            < events
                .iter()
                .rposition(|e| matches!(e, Event::BoardDealt { .. }));
    // Every hand, of every game and structure, is written as PHH and replays to the
    // same stacks.
    {
        let history = phh::write(&config, &events, Some(&stacks)).ok_or_else(|| {
            TestCaseError::fail(format!(
                "no PHH for {:?} {:?}",
                config.game, config.structure
            ))
        })?;
        let text = history.to_toml();
        let parsed = phh::PhhHand::parse(&text).expect("written PHH parses");
        match phh::replay(&parsed) {
            Ok(replayed) => prop_assert_eq!(replayed.hand.final_stacks(), Some(stacks)),
            Err(e) => {
                return Err(TestCaseError::fail(format!(
                    "replay of written PHH failed: {e}\n{text}"
                )))
            }
        }
    }
    played.game = Some(config.game);
    played.structure = Some(config.structure);
    Ok(played)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn random_hands_of_every_game_keep_every_invariant(seed in any::<u64>()) {
        play(seed)?;
    }
}

#[test]
fn random_hands_reach_showdowns_side_pots_and_reshuffles_in_every_game() {
    let mut seen = std::collections::HashSet::new();
    let (mut reshuffles, mut side_pots, mut raked, mut twice, mut exposed) = (0, 0, 0, 0, 0);
    let mut beaten = std::collections::HashSet::new();
    for seed in 0..4000 {
        let played = play(seed).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        if played.showdown {
            seen.insert((
                format!("{:?}", played.game),
                format!("{:?}", played.structure),
            ));
        }
        reshuffles += usize::from(played.reshuffled);
        side_pots += usize::from(played.side_pots);
        raked += usize::from(played.raked);
        twice += usize::from(played.ran_twice);
        exposed += usize::from(played.exposed);
        if played.beaten > 0 {
            beaten.insert(format!("{:?}", played.game));
        }
    }
    assert!(
        beaten.len() >= 8,
        "beaten hands were checked in most games: {beaten:?}"
    );
    assert!(
        raked > 0 && twice > 0 && exposed > 0,
        "rake {raked}, run twice {twice}, exposed {exposed}"
    );
    assert_eq!(
        seen.len(),
        GAMES.len() * STRUCTURES.len(),
        "showdowns in every game and structure"
    );
    assert!(
        reshuffles > 0,
        "some draws exhaust the deck and reshuffle the discards"
    );
    assert!(side_pots > 0, "some showdowns have side pots");
}

#[test]
fn a_refused_action_reports_whose_turn_it_is() {
    let mut rng = SmallRng::seed_from_u64(7);
    let mut deck = DeckKind::Standard.cards();
    deck.shuffle(&mut rng);
    let seat = |stack, blind| SeatConfig {
        stack,
        blind,
        ..SeatConfig::default()
    };
    let config = HandConfig::new(
        Game::Holdem,
        Structure::NoLimit,
        Stakes {
            min_bet: 2,
            ..Stakes::default()
        },
        vec![seat(100, 1), seat(100, 2), seat(100, 0)],
    );
    let (mut hand, _) = Hand::new(config, CardSource::Deck(deck)).expect("valid");
    assert_eq!(hand.phase(), Phase::Betting);
    assert_eq!(
        hand.apply(0, Action::Call),
        Err(ActionError::NotYourTurn {
            player: 0,
            expected: Some(2)
        })
    );
}
