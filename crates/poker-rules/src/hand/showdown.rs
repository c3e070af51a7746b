//! The showdown and the pots: who shows and in what order (R33), hand values, side pots
//! (R27, R28), splits and odd chips (R34, R35), rake (R36) and the final stacks.

use super::*;
use crate::card::{Card, Cards};
use crate::eval::{self, high, HandValue};
use crate::game::Showdown;

impl Hand {
    pub(super) fn start_showdown(&mut self, events: &mut Vec<Event>) {
        if self.runs == 2 && self.board2.is_empty() && !self.second_board_pending {
            // Deal the second run before anyone shows (R32).
            self.board2 = Cards::from_slice(&self.board[..self.split_at as usize]).expect("fits");
            self.second_board_pending = true;
            self.deals.push_back(DealStep::SecondBoard {
                count: 5 - self.split_at,
            });
            self.phase = Phase::Dealing;
            self.actor = None;
            return;
        }
        let _ = events;
        self.phase = Phase::Showdown;
        let n = self.players.len();
        // R33: the last aggressor of the final round shows first, else the first to act;
        // players in side pots show before those all in for the main pot only.
        let first = self.aggressor.unwrap_or(self.round_opener);
        let mut order: Vec<usize> = (0..n)
            .map(|k| (first + k) % n)
            .filter(|&i| !self.players[i].folded)
            .collect();
        let mut pots = PotMasks::new();
        self.pot_masks(&mut pots);
        let depth = |i: usize| pots.as_slice().iter().filter(|p| p.1 >> i & 1 == 1).count();
        order.sort_by_key(|&i| std::cmp::Reverse(depth(i)));
        self.showdown_order = order;
        self.showdown_pots = pots.as_slice().to_vec();
        self.actor = None;
        self.pick_shower();
    }

    pub(super) fn pick_shower(&mut self) {
        let live = self
            .players
            .iter()
            .filter(|p| !p.folded && p.shown != Some(false))
            .count();
        self.actor = if live < 2 {
            None
        } else {
            self.showdown_order
                .iter()
                .copied()
                .find(|&i| self.players[i].shown.is_none())
        };
    }

    pub(super) fn next_shower(&mut self, events: &mut Vec<Event>) {
        self.pick_shower();
        if self.actor.is_none() {
            self.advance(events);
        }
    }

    /// Hand values (main half, low half) of a live player at showdown.
    pub(super) fn values(&self, i: usize, board: &[Card]) -> (HandValue, Option<HandValue>) {
        let hole = self.players[i].hole.as_slice();
        let mut all = [Card::UNKNOWN; 12];
        all[..hole.len()].copy_from_slice(hole);
        all[hole.len()..hole.len() + board.len()].copy_from_slice(board);
        let all = &all[..hole.len() + board.len()];
        match self.config.game.showdown() {
            Showdown::High => {
                let rank = match <&[Card; 7]>::try_from(all) {
                    Ok(seven) => high::evaluate7(seven),
                    Err(_) => high::evaluate(all),
                };
                (HandValue(rank.0 as u32), None)
            }
            Showdown::ShortDeckHigh => (HandValue(high::evaluate_short_deck(all).0 as u32), None),
            Showdown::OmahaHigh => (eval::omaha_high(hole, board), None),
            Showdown::OmahaHiLo => (eval::omaha_high(hole, board), eval::omaha_low(hole, board)),
            Showdown::StudHigh => (HandValue(high::evaluate(hole).0 as u32), None),
            Showdown::StudHiLo => (
                HandValue(high::evaluate(hole).0 as u32),
                eval::ace_to_five_low(hole, true),
            ),
            Showdown::Razz => (
                eval::ace_to_five_low(hole, false).expect("five or more cards"),
                None,
            ),
            Showdown::DeuceToSeven => (eval::deuce_to_seven_low(hole), None),
            Showdown::Badugi => (eval::badugi(hole), None),
        }
    }

    /// Rake on one pot, rounded as configured.
    pub(super) fn rake_of(rake: &Rake, amount: Chips) -> Chips {
        let x = amount as u128 * rake.basis_points as u128;
        let r = match rake.rounding {
            RakeRounding::Down => x / 10_000,
            RakeRounding::Nearest => (x + 5_000) / 10_000,
            RakeRounding::Up => x.div_ceil(10_000),
        };
        r as Chips
    }

    pub(super) fn award(&mut self, events: &mut Vec<Event>) {
        let mut pots = PotMasks::new();
        self.pot_masks(&mut pots);
        // The house's cut, a percentage of each pot up to the cap (R36), taken from the
        // main pot, then each side pot in turn. The percentage is rounded once, over the
        // pots taken so far, so that a hand's split into pots neither gains nor loses a
        // chip to rounding: each pot gives what it adds to the rake of all the pots up
        // to it (PokerStars' split, seen in its histories). No flop, no drop: nothing
        // when the hand ends on its first street.
        if let Some(rake) = self.config.options.rake {
            let dropped = !(rake.no_flop_no_drop && self.street == 0 && self.board.is_empty());
            if dropped {
                let mut pooled: Chips = 0;
                for pot in pots.pots[..pots.len].iter_mut() {
                    pooled += pot.0;
                    let due = Self::rake_of(&rake, pooled).min(rake.cap);
                    let r = due.saturating_sub(self.rake).min(pot.0);
                    pot.0 -= r;
                    self.rake += r;
                }
                if self.rake > 0 {
                    events.push(Event::Raked { amount: self.rake });
                }
            }
        }
        let n = self.players.len();
        let live = self.live_mask();
        // A board run twice splits every pot between the runs (R32), even when the
        // others mucked and one player wins both halves.
        let runs = self.runs.max(1);
        let mut won = [0 as Chips; 32];
        for run in 0..runs {
            let board = if run == 0 { self.board } else { self.board2 };
            let mut values = [(HandValue(0), None); 32];
            if live.count_ones() > 1 {
                for (i, v) in values.iter_mut().enumerate().take(n) {
                    if live >> i & 1 == 1 {
                        *v = self.values(i, &board);
                    }
                }
            }
            // Side pots first, then the main pot (R34).
            for (k, &(total, eligible)) in pots.as_slice().iter().enumerate().rev() {
                // Two runs: each wins half of every pot, the odd chip to the first run.
                let amount = match (runs, run) {
                    (1, _) => total,
                    (_, 0) => total - total / 2,
                    _ => total / 2,
                };
                let mut contenders = eligible & live;
                if contenders == 0 {
                    // Everyone eligible mucked (apply never allows it); the pot still goes
                    // to them, so no chip is ever lost.
                    contenders = if eligible != 0 { eligible } else { live };
                }
                if contenders.count_ones() == 1 || live.count_ones() < 2 {
                    let single = 1u32 << contenders.trailing_zeros();
                    self.award_share(k, run, PotShare::All, amount, single, &mut won, events);
                    continue;
                }
                let members = || (0..n).filter(move |&i| contenders >> i & 1 == 1);
                let best_high = members().map(|i| values[i].0).max().expect("contenders");
                let high = members()
                    .filter(|&i| values[i].0 == best_high)
                    .fold(0u32, |m, i| m | 1 << i);
                match members().filter_map(|i| values[i].1).max() {
                    Some(best_low) => {
                        let low = members()
                            .filter(|&i| values[i].1 == Some(best_low))
                            .fold(0u32, |m, i| m | 1 << i);
                        let low_amount = amount / 2;
                        let high_amount = amount - low_amount;
                        self.award_share(
                            k,
                            run,
                            PotShare::High,
                            high_amount,
                            high,
                            &mut won,
                            events,
                        );
                        self.award_share(k, run, PotShare::Low, low_amount, low, &mut won, events);
                    }
                    None => self.award_share(k, run, PotShare::All, amount, high, &mut won, events),
                }
            }
        }
        for (i, p) in self.players.iter_mut().enumerate() {
            p.won = won[i];
            p.stack += won[i];
            p.committed = 0;
        }
        self.phase = Phase::Complete;
        self.actor = None;
        events.push(Event::HandEnded {
            stacks: self.players.iter().map(|p| p.stack).collect(),
        });
    }

    /// Splits `amount` among the `winners` mask: the odd chips go one each to the first
    /// winners clockwise from the button (R35).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn award_share(
        &self,
        pot: usize,
        run: u8,
        share: PotShare,
        amount: Chips,
        winners: u32,
        won: &mut [Chips; 32],
        events: &mut Vec<Event>,
    ) {
        let k = Chips::from(winners.count_ones());
        let (each, odd) = (amount / k, amount % k);
        let list: Vec<(usize, Chips)> = (0..self.players.len())
            .filter(|&i| winners >> i & 1 == 1)
            .enumerate()
            .map(|(j, i)| (i, each + Chips::from((j as Chips) < odd)))
            .collect();
        for &(i, a) in &list {
            won[i] += a;
        }
        events.push(Event::PotAwarded {
            pot,
            run,
            share,
            amount,
            winners: list,
        });
    }

    /// Final stacks, once the hand is complete.
    pub fn final_stacks(&self) -> Option<Vec<Chips>> {
        self.is_complete()
            .then(|| self.players.iter().map(|p| p.stack).collect())
    }
}

/// Up to 24 (amount, eligible-mask) pots without allocating: each player still in the
/// hand opens at most one level (an ante level if all in for the ante, else a live one).
pub(super) struct PotMasks {
    pub(super) len: usize,
    pub(super) pots: [(Chips, u32); 24],
}

impl PotMasks {
    pub(super) fn new() -> PotMasks {
        PotMasks {
            len: 0,
            pots: [(0, 0); 24],
        }
    }

    pub(super) fn push(&mut self, pot: (Chips, u32)) {
        self.pots[self.len] = pot;
        self.len += 1;
    }

    pub(super) fn last_mut(&mut self) -> Option<&mut (Chips, u32)> {
        self.len.checked_sub(1).map(|i| &mut self.pots[i])
    }

    pub(super) fn as_slice(&self) -> &[(Chips, u32)] {
        &self.pots[..self.len]
    }
}

/// A small sorted set of distinct chip levels (at most one per player).
pub(super) struct Levels {
    pub(super) len: usize,
    pub(super) levels: [Chips; 24],
}

impl Levels {
    pub(super) fn new() -> Levels {
        Levels {
            len: 0,
            levels: [0; 24],
        }
    }

    pub(super) fn insert(&mut self, level: Chips) {
        let slice = &self.levels[..self.len];
        if let Err(at) = slice.binary_search(&level) {
            self.levels.copy_within(at..self.len, at + 1);
            self.levels[at] = level;
            self.len += 1;
        }
    }

    pub(super) fn as_slice(&self) -> &[Chips] {
        &self.levels[..self.len]
    }
}
