//! Test harness: a hand dealt from chosen cards, acting through the public API.
#![allow(dead_code)]

use poker_rules::{
    Action, Card, CardSource, Chips, DealStep, Event, Game, Hand, HandConfig, LegalActions, Phase,
    SeatConfig, Stakes, Structure,
};

/// One pot award: (pot index, amount, winners and their parts).
pub type Award = (usize, Chips, Vec<(usize, Chips)>);

/// One seat: (stack, ante, blind).
pub type Seat = (Chips, Chips, Chips);

pub fn config(game: Game, structure: Structure, stakes: Stakes, seats: &[Seat]) -> HandConfig {
    HandConfig::new(
        game,
        structure,
        stakes,
        seats
            .iter()
            .map(|&(stack, ante, blind)| SeatConfig {
                stack,
                ante,
                blind,
                ..SeatConfig::default()
            })
            .collect(),
    )
}

pub fn no_limit(min_bet: Chips, seats: &[Seat]) -> HandConfig {
    config(
        Game::Holdem,
        Structure::NoLimit,
        Stakes {
            min_bet,
            ..Stakes::default()
        },
        seats,
    )
}

pub fn cards(s: &str) -> Vec<Card> {
    Card::parse_many(s).expect("valid cards")
}

/// A hand whose cards come from the test: hole cards per player and a board in order.
pub struct Table {
    pub hand: Hand,
    pub events: Vec<Event>,
    holes: Vec<Vec<Card>>,
    board: Vec<Card>,
    total: Chips,
}

impl Table {
    /// `holes[i]` holds every card player `i` will receive, in dealing order.
    pub fn new(config: HandConfig, holes: &[&str], board: &str) -> Table {
        let total = config.seats.iter().map(|s| s.stack).sum();
        let (hand, events) = Hand::new(config, CardSource::Manual).expect("valid config");
        let mut table = Table {
            hand,
            events,
            holes: holes.iter().map(|h| cards(h)).collect(),
            board: cards(board),
            total,
        };
        table.deal();
        table
    }

    fn deal(&mut self) {
        while let Some(step) = self.hand.pending_deal() {
            let events = match step {
                DealStep::Hole { player, count, .. } => {
                    let dealt: Vec<Card> = self.holes[player].drain(..count as usize).collect();
                    self.hand.deal(Some(player), &dealt)
                }
                DealStep::Board { count } | DealStep::SecondBoard { count } => {
                    let dealt: Vec<Card> = self.board.drain(..count as usize).collect();
                    self.hand.deal(None, &dealt)
                }
            };
            self.events.extend(events.expect("the deal fits"));
        }
    }

    /// Applies an action that must be legal, then deals whatever comes next.
    pub fn act(&mut self, player: usize, action: Action) -> Vec<Event> {
        let events = self
            .hand
            .apply(player, action)
            .unwrap_or_else(|e| panic!("player {player} {action:?}: {e}"));
        self.events.extend(events.clone());
        self.deal();
        self.check_chips();
        events
    }

    pub fn try_act(
        &mut self,
        player: usize,
        action: Action,
    ) -> Result<Vec<Event>, poker_rules::ActionError> {
        let before = self.hand.clone();
        let result = self.hand.apply(player, action);
        if result.is_err() {
            assert_eq!(
                self.hand, before,
                "a refused action must leave the hand untouched"
            );
        } else {
            self.deal();
        }
        result
    }

    pub fn legal(&self) -> LegalActions {
        self.hand.legal_actions().expect("a betting decision")
    }

    pub fn check_chips(&self) {
        assert_eq!(self.hand.total_chips(), self.total, "chips are conserved");
    }

    pub fn stacks(&self) -> Vec<Chips> {
        self.hand.players().iter().map(|p| p.stack).collect()
    }

    pub fn is_showdown(&self) -> bool {
        self.hand.phase() == Phase::Showdown
    }

    /// Everyone still asked shows, in the order the hand asks.
    pub fn show_all(&mut self) -> Vec<usize> {
        let mut order = Vec::new();
        while self.is_showdown() {
            let p = self.hand.to_act().expect("someone shows");
            order.push(p);
            self.act(p, Action::Show { cards: None });
        }
        order
    }

    pub fn awards(&self) -> Vec<Award> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::PotAwarded {
                    pot,
                    amount,
                    winners,
                    ..
                } => Some((*pot, *amount, winners.clone())),
                _ => None,
            })
            .collect()
    }
}

pub fn bet(to: Chips) -> Action {
    Action::BetOrRaiseTo { to }
}
