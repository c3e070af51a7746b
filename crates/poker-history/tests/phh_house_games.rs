//! House games in histories (docs/house-games.md): a bomb pot (H1) is written with every
//! player's bomb as an ante, no blinds, and `bomb_pot` in the `_options` user-defined
//! field, so the engine replays it (no pre-flop round) to the same stacks; a dealer's
//! choice hand is an ordinary hand of its own game.

use poker_history::phh::{self, PhhHand};
use poker_rules::{
    Action, BlindKind, CardSource, Decision, DeckKind, Game, Hand, HandConfig, SeatConfig, Stakes,
    Structure,
};

/// A bomb pot of 20 at 5/10, played from an unshuffled deck: the first player bets the
/// pot on the flop, the rest call (or go all in), and it is checked down.
fn bomb_pot(stacks: &[u64], structure: Structure) -> (HandConfig, Hand, Vec<poker_rules::Event>) {
    let seats = stacks
        .iter()
        .map(|&stack| SeatConfig {
            stack,
            ante: 20,
            blind: 0,
            kind: BlindKind::Blind,
        })
        .collect();
    let mut config = HandConfig::new(
        Game::Omaha,
        structure,
        Stakes {
            min_bet: 10,
            ..Stakes::default()
        },
        seats,
    );
    config.options.bomb_pot = true;
    let (mut hand, mut events) =
        Hand::new(config.clone(), CardSource::Deck(DeckKind::Standard.cards())).unwrap();
    let mut bet = false;
    while let Some(p) = hand.to_act() {
        let action = match hand.decision() {
            Some(Decision::Bet(l)) if !bet && l.bet_or_raise.is_some() => {
                bet = true;
                Action::BetOrRaiseTo {
                    to: l.bet_or_raise.unwrap().1,
                }
            }
            Some(Decision::Bet(l)) if l.check => Action::Check,
            Some(Decision::Bet(_)) => Action::Call,
            _ => Action::Show { cards: None },
        };
        events.extend(hand.apply(p, action).unwrap());
    }
    (config, hand, events)
}

#[test]
fn h1_a_bomb_pot_written_as_phh_replays_through_the_engine_to_the_same_stacks() {
    for (stacks, structure) in [
        (vec![1000, 12, 1000, 600], Structure::PotLimit),
        (vec![500, 800], Structure::NoLimit),
    ] {
        let (config, hand, events) = bomb_pot(&stacks, structure);
        let stacks_after = hand.final_stacks().unwrap();
        assert_eq!(
            stacks_after.iter().sum::<u64>(),
            stacks.iter().sum::<u64>(),
            "chips conserved"
        );
        let written = phh::write(&config, &events, Some(&stacks_after)).unwrap();
        let text = written.to_toml();
        assert!(text.contains("bomb_pot"), "{text}");
        assert!(
            !text.contains("\"p1 cc\", \"p2 cc\""),
            "no pre-flop round: {text}"
        );
        let replayed = phh::replay(&PhhHand::parse(&text).unwrap()).unwrap();
        assert_eq!(
            replayed.hand.final_stacks().unwrap(),
            stacks_after,
            "{text}"
        );
        assert_eq!(replayed.hand.config(), &config);
    }
}
