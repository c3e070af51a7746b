//! One hand of poker as a state machine, for every game and betting structure: forced
//! bets, dealing, betting rounds, draws, showdown and the awarding of every pot.
//!
//! Players are indexed in dealing order: index 0 sits left of the button (the small
//! blind in blind games) and the last index holds the button. The caller supplies the
//! cards: a shuffled deck ([`CardSource::Deck`]), from which the hand deals itself, or
//! nothing ([`CardSource::Manual`]), in which case the hand waits for [`Hand::deal`]
//! calls (replaying a history). Every action is validated first and either applied
//! whole, returning its events, or rejected with an [`ActionError`] that leaves the
//! state untouched.

use crate::card::{Card, Cards};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

mod betting;
mod config;
mod flow;
mod showdown;
mod vocabulary;

pub use config::*;
use showdown::{Levels, PotMasks};
use vocabulary::RaiseLimits;
pub use vocabulary::*;

/// One player's state in the hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// Chips behind (not yet bet).
    pub stack: Chips,
    /// Chips bet in the current round.
    pub bet: Chips,
    /// Chips put in during the whole hand (antes and bets, the current round included).
    pub committed: Chips,
    /// The dead ante part of `committed`.
    pub ante: Chips,
    /// Whether the player folded.
    pub folded: bool,
    /// Hole cards in the order dealt.
    pub hole: Cards,
    /// Face-up mask of `hole`.
    pub up: u8,
    /// Whether the player acted since the betting was last (re)opened.
    acted: bool,
    /// The bet level the player last acted on (for reopening by short all-ins).
    faced: Chips,
    /// Showdown decision.
    pub shown: Option<bool>,
    /// Chips won at the end (already added to the stack once the hand is complete).
    pub won: Chips,
}

impl Player {
    /// Whether the player has no chips behind.
    pub fn all_in(&self) -> bool {
        self.stack == 0
    }
}

/// Where the hand is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Waiting for cards (manual dealing, or a reshuffle for a draw).
    Dealing,
    /// A betting round.
    Betting,
    /// Players discard in turn.
    Drawing,
    /// Players show or muck in turn.
    Showdown,
    /// Everyone left is all in: each says whether to run the board twice.
    RunItTwice,
    /// Every pot has been awarded.
    Complete,
}

/// A pot and who may win it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pot {
    /// Chips in the pot.
    pub amount: Chips,
    /// Players (not folded) who contributed enough to win it.
    pub eligible: Vec<usize>,
}

/// One hand in progress. Serializable, so a table can checkpoint it mid-hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hand {
    config: HandConfig,
    players: Vec<Player>,
    board: Cards,
    /// Remaining deck, next card last; `None` when dealing is manual.
    deck: Option<Vec<Card>>,
    /// Discarded cards, for a reshuffle when a draw exhausts the deck.
    muck: Vec<Card>,
    street: usize,
    phase: Phase,
    deals: VecDeque<DealStep>,
    actor: Option<usize>,
    current_bet: Chips,
    min_raise: Chips,
    raises: u32,
    bring_in_pending: bool,
    aggressor: Option<usize>,
    round_opener: usize,
    showdown_order: Vec<usize>,
    /// The pots (amount, eligible mask) as they stood when the showdown began.
    showdown_pots: Vec<(Chips, u32)>,
    /// The bet level set by the last full bet or raise of the round (limit games).
    full_level: Chips,
    /// Players in the hand when the round started (heads-up judged then, R20).
    round_contenders: u8,
    /// The kill blind's seat, acting last in the first round (R17).
    kill_seat: Option<usize>,
    /// Whether the biggest blind has acted in the first round (pot-limit assumed call).
    big_blind_acted: bool,
    /// Run it twice (R32): whether the players were asked, how many runs, where the
    /// boards part, the second board, and whether it is still to be dealt.
    run_twice_asked: bool,
    runs: u8,
    split_at: u8,
    board2: Cards,
    second_board_pending: bool,
    /// Whether all-in hands were turned up (R31).
    exposed: bool,
    /// Rake taken (R36).
    rake: Chips,
}

/// Whether a card is in someone's hand or on the board (discards may come back after a
/// reshuffle, so they do not count).
fn seen(hand: &Hand, card: Card) -> bool {
    hand.board.contains(&card)
        || hand.board2.contains(&card)
        || hand.players.iter().any(|p| p.hole.contains(&card))
}

impl Hand {
    /// Starts a hand: checks the configuration, posts antes and blinds, and deals as far
    /// as the cards allow. Returns the hand and the events so far.
    pub fn new(config: HandConfig, source: CardSource) -> Result<(Hand, Vec<Event>), ConfigError> {
        let mut events = Vec::new();
        let hand = Hand::start(config, source, &mut events)?;
        Ok((hand, events))
    }

    /// Like [`Hand::new`], appending the first events to a buffer the caller reuses.
    pub fn start(
        config: HandConfig,
        source: CardSource,
        events: &mut Vec<Event>,
    ) -> Result<Hand, ConfigError> {
        let n = config.seats.len();
        let max = match source {
            CardSource::Deck(_) => config.game.max_players(),
            CardSource::Manual => 23,
        };
        if !(2..=max).contains(&n) {
            return Err(ConfigError::PlayerCount { max, got: n });
        }
        config.validate()?;
        let deck = match source {
            CardSource::Deck(mut cards) => {
                let kind = config.game.deck();
                let mut seen = 0u64;
                for &c in &cards {
                    if !kind.contains(c) || seen >> c.index() & 1 == 1 {
                        return Err(ConfigError::BadDeck);
                    }
                    seen |= 1 << c.index();
                }
                if cards.len() != kind.size() {
                    return Err(ConfigError::BadDeck);
                }
                cards.reverse();
                Some(cards)
            }
            CardSource::Manual => None,
        };
        let players = config
            .seats
            .iter()
            .map(|s| Player {
                stack: s.stack,
                bet: 0,
                committed: 0,
                ante: 0,
                folded: false,
                hole: Cards::new(),
                up: 0,
                acted: false,
                faced: 0,
                shown: None,
                won: 0,
            })
            .collect();
        let mut hand = Hand {
            config,
            players,
            board: Cards::new(),
            deck,
            muck: Vec::new(),
            street: 0,
            phase: Phase::Dealing,
            deals: VecDeque::new(),
            actor: None,
            current_bet: 0,
            min_raise: 0,
            raises: 0,
            bring_in_pending: false,
            aggressor: None,
            round_opener: 0,
            showdown_order: Vec::new(),
            showdown_pots: Vec::new(),
            full_level: 0,
            round_contenders: 0,
            kill_seat: None,
            big_blind_acted: false,
            run_twice_asked: false,
            runs: 1,
            split_at: 0,
            board2: Cards::new(),
            second_board_pending: false,
            exposed: false,
            rake: 0,
        };
        hand.post_forced_bets(events);
        hand.start_street(events);
        hand.advance(events);
        Ok(hand)
    }

    // ----- queries -----

    /// The configuration the hand was built from.
    pub fn config(&self) -> &HandConfig {
        &self.config
    }

    /// Every player's state, in dealing order.
    pub fn players(&self) -> &[Player] {
        &self.players
    }

    /// The community cards.
    pub fn board(&self) -> &[Card] {
        &self.board
    }

    /// Where the hand is.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The current street (0 = first betting round).
    pub fn street(&self) -> usize {
        self.street
    }

    /// Whether every pot has been awarded.
    pub fn is_complete(&self) -> bool {
        self.phase == Phase::Complete
    }

    /// The player whose decision the hand waits for, if any.
    pub fn to_act(&self) -> Option<usize> {
        self.actor
    }

    /// What the dealer must deal next, when dealing is manual (or a reshuffle is due).
    pub fn pending_deal(&self) -> Option<DealStep> {
        if self.phase == Phase::Dealing {
            self.deals.front().copied()
        } else {
            None
        }
    }

    /// When a draw needs more cards than the deck has left: the discards, which the
    /// caller shuffles and hands back through [`Hand::reshuffle`].
    pub fn needs_reshuffle(&self) -> Option<&[Card]> {
        match (&self.deck, self.pending_deal()) {
            (Some(deck), Some(step)) if (step_count(step) as usize) > deck.len() => {
                Some(&self.muck)
            }
            _ => None,
        }
    }

    /// The chips of every player: stacks plus what they have put in so far. Constant
    /// through the hand (nothing is created or lost); equal to the stacks once complete.
    pub fn total_chips(&self) -> Chips {
        self.players
            .iter()
            .map(|p| p.stack + p.committed)
            .sum::<Chips>()
            + self.rake
    }

    /// Rake taken from this hand (R36); part of [`Hand::total_chips`].
    pub fn rake(&self) -> Chips {
        self.rake
    }

    /// The rabbit hunt: once a hand that dealt itself is complete with its board
    /// unfinished (everyone else folded), the cards the remaining streets would have
    /// dealt, burn cards skipped as in dealing. Empty otherwise. They change nothing: the
    /// hand is over; a table may show them for curiosity.
    pub fn rabbit(&self) -> Vec<Card> {
        let Some(deck) = self.deck.as_ref() else {
            return Vec::new();
        };
        if !self.is_complete() || !self.board2.is_empty() {
            return Vec::new();
        }
        let mut deck = deck.clone();
        let mut dealt = 0usize;
        let mut out = Vec::new();
        for def in self.config.game.streets() {
            let count = def.board as usize;
            if count == 0 {
                continue;
            }
            dealt += count;
            if dealt <= self.board.len() {
                continue;
            }
            if count < deck.len() {
                deck.pop(); // burn
            }
            for _ in 0..count {
                match deck.pop() {
                    Some(c) => out.push(c),
                    None => return out,
                }
            }
        }
        out
    }

    /// The second run's board when the board was run twice (R32).
    pub fn second_board(&self) -> Option<&[Card]> {
        (self.runs == 2 && !self.board2.is_empty()).then_some(self.board2.as_slice())
    }

    /// Chips a player can still put in: the stack, limited by the cap (R24).
    #[inline]
    fn behind(&self, p: &Player) -> Chips {
        match self.config.options.cap {
            Some(cap) => p.stack.min(cap.saturating_sub(p.committed - p.ante)),
            None => p.stack,
        }
    }

    /// The current bet level to call in this round.
    pub fn current_bet(&self) -> Chips {
        self.current_bet
    }

    /// The pots as they stand (main pot first), from what everyone has put in.
    ///
    /// Antes are dead money in the main pot (R9): only a player all in for the ante
    /// itself is limited to an equal share of every other ante, the rest of the antes
    /// going to the next pot. Live money (blinds, bring-in, bets) makes one pot per
    /// all-in level (R27), each contested by those who put in at least that level.
    pub fn pots(&self) -> Vec<Pot> {
        let mut masks = PotMasks::new();
        self.pot_masks(&mut masks);
        masks
            .as_slice()
            .iter()
            .map(|&(amount, mask)| Pot {
                amount,
                eligible: (0..self.players.len())
                    .filter(|&i| mask >> i & 1 == 1)
                    .collect(),
            })
            .collect()
    }

    /// The pots as (amount, bitmask of eligible players), main pot first.
    fn pot_masks(&self, pots: &mut PotMasks) {
        let live = |p: &Player| p.committed - p.ante;
        let mut contenders = 0u32;
        let mut ante_levels = Levels::new();
        let mut live_levels = Levels::new();
        for (i, p) in self.players.iter().enumerate() {
            if p.folded {
                continue;
            }
            contenders |= 1 << i;
            if live(p) == 0 && p.stack == 0 && p.ante > 0 {
                ante_levels.insert(p.ante);
            }
            if live(p) > 0 {
                live_levels.insert(live(p));
            }
        }
        let mut prev = 0;
        for &level in ante_levels.as_slice() {
            let mut amount = 0;
            let mut eligible = 0u32;
            for (i, p) in self.players.iter().enumerate() {
                amount += p.ante.min(level) - p.ante.min(prev);
                if contenders >> i & 1 == 1 && (live(p) > 0 || p.ante >= level) {
                    eligible |= 1 << i;
                }
            }
            pots.push((amount, eligible));
            prev = level;
        }
        let mut rest: Chips = self.players.iter().map(|p| p.ante - p.ante.min(prev)).sum();
        // Those who paid more than every all-in ante: the antes above go to them alone.
        let ante_top = prev;
        let mut prev = 0;
        let levels = live_levels.as_slice();
        for (k, &level) in levels.iter().enumerate() {
            let top = if k + 1 == levels.len() {
                Chips::MAX
            } else {
                level
            };
            let mut amount = std::mem::take(&mut rest);
            let mut eligible = 0u32;
            for (i, p) in self.players.iter().enumerate() {
                amount += live(p).min(top) - live(p).min(prev);
                if contenders >> i & 1 == 1 && live(p) >= level {
                    eligible |= 1 << i;
                }
            }
            pots.push((amount, eligible));
            prev = level;
        }
        if levels.is_empty() {
            let leftover = rest + self.players.iter().map(live).sum::<Chips>();
            // No live money yet (a bomb pot, H1): the antes above an all-in player's
            // share make a side pot of those who paid them (R9's equal shares).
            let above = (0..self.players.len())
                .filter(|&i| contenders >> i & 1 == 1 && self.players[i].ante > ante_top)
                .fold(0u32, |m, i| m | 1 << i);
            if ante_top > 0 && above != 0 && leftover > 0 {
                pots.push((leftover, above));
                return;
            }
            match pots.last_mut() {
                Some(last) => last.0 += leftover,
                None if leftover > 0 => pots.push((leftover, contenders)),
                None => {}
            }
        }
    }

    /// What the player to act must decide, if a player is to act.
    pub fn decision(&self) -> Option<Decision> {
        let p = self.actor?;
        Some(match self.phase {
            Phase::Betting => Decision::Bet(self.legal_actions()?),
            Phase::Drawing => Decision::Draw,
            Phase::Showdown => Decision::Showdown {
                can_muck: self.can_muck(p),
            },
            Phase::RunItTwice => Decision::RunItTwice,
            _ => return None,
        })
    }

    /// Whether player `p`, asked to show at showdown, can win nothing: in every pot they
    /// are in, a hand already shown beats theirs in the high and in the low half (ties do
    /// not count as beaten). A beaten hand may be mucked without giving up a chip (R33).
    /// False when `p` may not muck, when the board is run twice, or before the showdown.
    pub fn is_beaten(&self, p: usize) -> bool {
        if self.phase != Phase::Showdown || self.runs > 1 || !self.can_muck(p) {
            return false;
        }
        let board = self.board;
        let mine = self.values(p, &board);
        let shown: Vec<usize> = (0..self.players.len())
            .filter(|&i| i != p && !self.players[i].folded && self.players[i].shown == Some(true))
            .collect();
        self.showdown_pots
            .iter()
            .filter(|&&(_, eligible)| eligible >> p & 1 == 1)
            .all(|&(_, eligible)| {
                let rivals: Vec<_> = shown
                    .iter()
                    .filter(|&&i| eligible >> i & 1 == 1)
                    .map(|&i| self.values(i, &board))
                    .collect();
                let high_beaten = rivals.iter().any(|r| r.0 > mine.0);
                let low_beaten = match mine.1 {
                    None => true,
                    Some(low) => rivals.iter().any(|r| r.1.is_some_and(|x| x > low)),
                };
                !rivals.is_empty() && high_beaten && low_beaten
            })
    }

    /// Exactly what the player to act may do in the current betting round.
    pub fn legal_actions(&self) -> Option<LegalActions> {
        if self.phase != Phase::Betting {
            return None;
        }
        let p = self.actor?;
        let pl = &self.players[p];
        let limits = self.raise_limits(p);
        if self.bring_in_pending {
            return Some(LegalActions {
                player: p,
                fold: false,
                check: false,
                call: None,
                bring_in: Some(self.config.stakes.bring_in.min(self.behind(pl))),
                bet_or_raise: limits.map(|l| (l.min, l.max)),
                cover_raise: limits.and_then(|l| l.cover_only),
                unit: self.config.options.unit.max(1),
            });
        }
        let to_call = self.current_bet.saturating_sub(pl.bet).min(self.behind(pl));
        Some(LegalActions {
            player: p,
            fold: true,
            check: to_call == 0,
            call: (to_call > 0).then_some(to_call),
            bring_in: None,
            bet_or_raise: limits.map(|l| (l.min, l.max)),
            cover_raise: limits.and_then(|l| l.cover_only),
            unit: self.config.options.unit.max(1),
        })
    }
}

fn step_count(step: DealStep) -> u8 {
    match step {
        DealStep::Hole { count, .. }
        | DealStep::Board { count }
        | DealStep::SecondBoard { count } => count,
    }
}

fn action_name(action: &Action) -> &'static str {
    match action {
        Action::Fold => "fold",
        Action::Check => "check",
        Action::Call => "call",
        Action::BringIn => "bring-in",
        Action::BetOrRaiseTo { .. } => "bet or raise",
        Action::Draw { .. } => "draw",
        Action::Show { .. } => "show",
        Action::Muck => "muck",
        Action::RunItTwice { .. } => "run it twice",
    }
}

/// The strength of up cards for choosing who opens a stud street: quads, trips, two
/// pair, pair, high cards (no straights or flushes); `ace_low` for razz.
pub(crate) fn showing_value(up: &[Card], ace_low: bool) -> (u8, Vec<u8>) {
    let mut counts = [0u8; 13];
    // An unknown card (a replayed history that hides it) shows nothing to compare.
    for c in up.iter().filter(|&&c| c != Card::UNKNOWN) {
        let r = if ace_low {
            (c.rank().0 + 1) % 13
        } else {
            c.rank().0
        };
        counts[r as usize] += 1;
    }
    let mut groups: Vec<(u8, u8)> = (0..13u8)
        .filter(|&r| counts[r as usize] > 0)
        .map(|r| (counts[r as usize], r))
        .collect();
    groups.sort_unstable_by(|a, b| b.cmp(a));
    let category = match groups.iter().map(|g| g.0).collect::<Vec<_>>().as_slice() {
        [4, ..] => 4,
        [3, ..] => 3,
        [2, 2, ..] => 2,
        [2, ..] => 1,
        _ => 0,
    };
    (category, groups.iter().map(|g| g.1).collect())
}
