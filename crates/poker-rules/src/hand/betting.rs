//! Betting: the sizes each structure allows (fixed, spread, pot, no limit, cap), the
//! legal range of a bet or raise, and applying each action (R1-R8, R20-R25, R29, R30).

use super::*;
use crate::card::{Card, Cards};
use crate::game::Structure;

impl Hand {
    /// The fixed-limit bet size of the current street.
    pub(super) fn bet_size(&self) -> Chips {
        let stakes = &self.config.stakes;
        match self.config.structure {
            Structure::SpreadLimit => self.spread_range().0,
            Structure::FixedLimit => {
                if self.config.game.streets()[self.street].big_bet {
                    stakes.big_bet
                } else {
                    stakes.small_bet
                }
            }
            _ => stakes.min_bet,
        }
    }

    /// The spread-limit range of the current street.
    pub(super) fn spread_range(&self) -> (Chips, Chips) {
        let spread = &self.config.options.spread;
        spread[self.street.min(spread.len() - 1)]
    }

    /// The fixed-limit total a raise goes to now.
    pub(super) fn limit_target(&self) -> Chips {
        let size = self.bet_size();
        if self.config.options.half_bet_rule && self.current_bet > self.full_level {
            // Completing an incomplete bet or raise (R30).
            self.full_level + size
        } else if self.current_bet < size {
            size
        } else {
            self.current_bet + size
        }
    }

    /// Whether the raise cap stops further raises (R20).
    pub(super) fn capped(&self) -> bool {
        let Some(cap) = self.config.max_raises else {
            return false;
        };
        let heads_up = if self.config.options.heads_up_at_round_start {
            self.round_contenders == 2
        } else {
            self.contenders() == 2
        };
        self.raises > cap && !(self.config.uncapped_heads_up && heads_up)
    }

    pub(super) fn contenders(&self) -> usize {
        self.players.iter().filter(|p| !p.folded).count()
    }

    /// The legal totals for a bet or raise by `p`: every total from `min` (a full raise,
    /// or going all in for less) to `max`, and below that only a raise to exactly what
    /// the biggest opposing stack can put in (`cover_only`). `None` when no bet or raise
    /// is allowed, which includes when no opponent could put in more than the current
    /// bet (everyone else all in, R31).
    pub(super) fn raise_limits(&self, p: usize) -> Option<RaiseLimits> {
        let pl = &self.players[p];
        let all_in_to = pl.bet + self.behind(pl);
        if all_in_to <= self.current_bet {
            return None;
        }
        // Someone else must be able to call more than the current bet; `cover` is the
        // most anyone else can put in.
        let cover = self
            .players
            .iter()
            .enumerate()
            .filter(|&(i, o)| i != p && !o.folded)
            .map(|(_, o)| o.bet + self.behind(o))
            .max()
            .unwrap_or(0);
        if cover <= self.current_bet {
            return None;
        }
        if !self.bring_in_pending {
            let reopened = !pl.acted || self.current_bet.saturating_sub(pl.faced) >= self.min_raise;
            if !reopened {
                return None;
            }
        }
        let (min_to, max_to) = match self.config.structure {
            Structure::FixedLimit => {
                if self.capped() {
                    return None;
                }
                let to = self.limit_target();
                (to, to)
            }
            Structure::SpreadLimit => {
                if self.capped() {
                    return None;
                }
                let (lo, hi) = self.spread_range();
                (
                    self.current_bet + self.min_raise.max(lo).min(hi),
                    self.current_bet + hi,
                )
            }
            Structure::NoLimit => (self.current_bet + self.min_raise, all_in_to),
            Structure::PotLimit => {
                let mut pot: Chips = self.players.iter().map(|o| o.committed).sum();
                if self.street == 0
                    && !self.big_blind_acted
                    && self.config.options.pot_limit_preflop == PotLimitPreflop::AssumedCall
                {
                    pot += self.assumed_call();
                }
                let max = self.current_bet + pot + self.current_bet.saturating_sub(pl.bet);
                (
                    self.current_bet + self.min_raise,
                    max.max(self.current_bet + self.min_raise),
                )
            }
        };
        let mut max_to = max_to.min(all_in_to);
        let full = min_to;
        let mut min_to = min_to.min(all_in_to);
        // A raise that puts the biggest opposing stack all in is allowed even when it is
        // smaller than a full raise: nobody could call more. Only that exact total.
        let cover_only = (cover < min_to).then_some(cover);
        let unit = self.config.options.unit;
        if unit > 1 {
            if min_to != all_in_to && min_to % unit != 0 {
                min_to = (min_to / unit + 1) * unit;
            }
            if max_to != all_in_to && max_to % unit != 0 {
                max_to -= max_to % unit;
            }
            if min_to > max_to {
                // No multiple of the unit fits: only going all in remains, if it fits.
                let fits = all_in_to <= max_to + unit && all_in_to >= min_to.saturating_sub(unit);
                return fits.then_some(RaiseLimits {
                    min: all_in_to,
                    max: all_in_to,
                    full,
                    cover_only,
                });
            }
        }
        Some(RaiseLimits {
            min: min_to,
            max: max_to,
            full,
            cover_only,
        })
    }

    /// Pot-limit assumed call: what the small blinds lack of a full blind (R22).
    pub(super) fn assumed_call(&self) -> Chips {
        let big = self.config.big_blind();
        self.config
            .seats
            .iter()
            .zip(&self.players)
            .filter(|(s, _)| s.kind == BlindKind::Blind && s.blind > 0 && s.blind < big)
            .map(|(s, p)| {
                let put_in = if p.folded {
                    s.blind
                } else {
                    p.bet.max(s.blind)
                };
                big.saturating_sub(put_in)
            })
            .sum()
    }

    pub(super) fn can_muck(&self, p: usize) -> bool {
        // Muck only if every pot this player could win has another live contender.
        let live = self.live_mask() & !(1 << p);
        self.showdown_pots
            .iter()
            .all(|&(_, eligible)| eligible >> p & 1 == 0 || eligible & live != 0)
    }

    /// Players still in the hand who have not mucked.
    pub(super) fn live_mask(&self) -> u32 {
        self.players
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.folded && p.shown != Some(false))
            .fold(0, |m, (i, _)| m | 1 << i)
    }

    // ----- actions -----

    /// Applies one player's action; see [`Hand::apply_into`].
    pub fn apply(&mut self, player: usize, action: Action) -> Result<Vec<Event>, ActionError> {
        let mut events = Vec::new();
        self.apply_into(player, action, &mut events)?;
        Ok(events)
    }

    /// Applies one player's action, appending what happened to `events` (which lets a
    /// hot loop reuse one buffer). On error nothing changes.
    pub fn apply_into(
        &mut self,
        player: usize,
        action: Action,
        events: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        if self.phase == Phase::Complete {
            return Err(ActionError::HandOver);
        }
        if player >= self.players.len() {
            return Err(ActionError::NoSuchPlayer { player });
        }
        if self.actor != Some(player) {
            return Err(ActionError::NotYourTurn {
                player,
                expected: self.actor,
            });
        }
        match (self.phase, action) {
            (
                Phase::Betting,
                Action::Fold
                | Action::Check
                | Action::Call
                | Action::BringIn
                | Action::BetOrRaiseTo { .. },
            ) => self.bet_action(player, action, events),
            (Phase::Drawing, Action::Draw { discards }) => self.draw(player, discards, events),
            (Phase::Showdown, Action::Show { cards }) => self.show(player, cards, events),
            (Phase::RunItTwice, Action::RunItTwice { agree }) => {
                self.answer_run_twice(player, agree, events);
                Ok(())
            }
            (Phase::Showdown, Action::Muck) => {
                if !self.can_muck(player) {
                    return Err(ActionError::CannotMuck);
                }
                self.players[player].shown = Some(false);
                events.push(Event::Mucked { player });
                self.next_shower(events);
                Ok(())
            }
            _ => Err(ActionError::WrongPhase {
                action: action_name(&action),
            }),
        }
    }

    pub(super) fn bet_action(
        &mut self,
        p: usize,
        action: Action,
        events: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        let to_call = self.current_bet.saturating_sub(self.players[p].bet);
        if self.bring_in_pending && !matches!(action, Action::BringIn | Action::BetOrRaiseTo { .. })
        {
            return Err(ActionError::BringInPending);
        }
        let behind = self.behind(&self.players[p]);
        match action {
            Action::Fold => {
                let pl = &mut self.players[p];
                pl.folded = true;
                pl.acted = true;
                events.push(Event::Folded { player: p });
            }
            Action::Check => {
                if to_call > 0 {
                    return Err(ActionError::CannotCheck { to_call });
                }
                let pl = &mut self.players[p];
                pl.acted = true;
                pl.faced = self.current_bet;
                events.push(Event::Checked { player: p });
            }
            Action::Call => {
                if to_call == 0 {
                    return Err(ActionError::NothingToCall);
                }
                let current = self.current_bet;
                let amount = to_call.min(behind);
                let pl = &mut self.players[p];
                pl.stack -= amount;
                pl.bet += amount;
                pl.committed += amount;
                pl.acted = true;
                pl.faced = current;
                events.push(Event::Called {
                    player: p,
                    amount,
                    all_in: amount == behind,
                });
            }
            Action::BringIn => {
                if !self.bring_in_pending {
                    return Err(ActionError::WrongPhase { action: "bring-in" });
                }
                let bring_in = self.config.stakes.bring_in;
                let amount = bring_in.min(behind);
                let pl = &mut self.players[p];
                pl.stack -= amount;
                pl.bet += amount;
                pl.committed += amount;
                pl.acted = true;
                self.bring_in_pending = false;
                self.current_bet = self.current_bet.max(bring_in);
                if bring_in >= self.bet_size() {
                    self.raises = 1;
                    self.full_level = bring_in;
                }
                self.players[p].faced = self.current_bet;
                events.push(Event::BringInPosted { player: p, amount });
            }
            Action::BetOrRaiseTo { to } => {
                let limits = self.raise_limits(p).ok_or(ActionError::RaiseNotAllowed)?;
                let (min, max) = (limits.min, limits.max);
                match limits.cover_only {
                    Some(covers) if to == covers => {}
                    Some(covers) if to < min => {
                        return Err(ActionError::ShortRaise {
                            full: limits.full,
                            covers,
                            got: to,
                        })
                    }
                    _ if to < min || to > max => {
                        return Err(ActionError::BetOutOfRange { min, max, got: to });
                    }
                    _ => {}
                }
                let all_in_to = self.players[p].bet + behind;
                let unit = self.config.options.unit;
                // Going all in, or putting the biggest opposing stack all in, may be off
                // the unit.
                if unit > 1 && to % unit != 0 && to != all_in_to && Some(to) != limits.cover_only {
                    return Err(ActionError::OffUnit { unit });
                }
                let increment = to - self.current_bet;
                let half_bet = self.config.options.half_bet_rule;
                let full = match self.config.structure {
                    Structure::FixedLimit => {
                        let size = self.bet_size();
                        to >= self.limit_target()
                            || to >= self.full_level + size
                            || (half_bet && 2 * increment >= size)
                    }
                    Structure::SpreadLimit => {
                        let needed = self.min_raise.max(self.spread_range().0);
                        increment >= needed || (half_bet && 2 * increment >= needed)
                    }
                    _ => increment >= self.min_raise,
                };
                let amount = to - self.players[p].bet;
                let pl = &mut self.players[p];
                pl.stack -= amount;
                pl.bet = to;
                pl.committed += amount;
                pl.acted = true;
                pl.faced = to;
                let all_in = to == all_in_to;
                self.bring_in_pending = false;
                if full {
                    if !matches!(self.config.structure, Structure::FixedLimit) {
                        self.min_raise = self.min_raise.max(increment);
                    }
                    self.full_level = to;
                    self.raises += 1;
                    for (i, o) in self.players.iter_mut().enumerate() {
                        if i != p {
                            o.acted = false;
                        }
                    }
                }
                self.current_bet = to;
                self.aggressor = Some(p);
                events.push(Event::BetTo {
                    player: p,
                    to,
                    amount,
                    all_in,
                    full,
                });
            }
            Action::Draw { .. }
            | Action::Show { .. }
            | Action::Muck
            | Action::RunItTwice { .. } => {
                return Err(ActionError::WrongPhase {
                    action: action_name(&action),
                })
            }
        }
        if self.street == 0
            && !self.big_blind_acted
            && self.config.options.pot_limit_preflop == PotLimitPreflop::AssumedCall
            && Some(p) == self.big_blind_seat()
        {
            self.big_blind_acted = true;
        }
        self.after_bet_action(p, events);
        Ok(())
    }

    /// The seat of the biggest ordinary blind (pot-limit assumed call).
    pub(super) fn big_blind_seat(&self) -> Option<usize> {
        (0..self.players.len())
            .filter(|&i| {
                let s = &self.config.seats[i];
                s.kind == BlindKind::Blind && s.blind > 0
            })
            .max_by_key(|&i| (self.config.seats[i].blind, i))
    }

    pub(super) fn answer_run_twice(&mut self, p: usize, agree: bool, events: &mut Vec<Event>) {
        events.push(Event::RunItTwiceAnswered { player: p, agree });
        if !agree {
            self.actor = None;
        } else {
            let next = (p + 1..self.players.len()).find(|&i| !self.players[i].folded);
            self.actor = next;
            if next.is_none() {
                self.runs = 2;
                self.split_at = self.board.len() as u8;
                events.push(Event::RunningTwice);
            }
        }
        if self.actor.is_none() {
            self.advance(events);
        }
    }

    pub(super) fn draw(
        &mut self,
        p: usize,
        discards: Cards,
        events: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        let mut hole = self.players[p].hole;
        for &card in discards.iter() {
            match hole.iter().position(|&c| c == card) {
                Some(i) => {
                    hole.remove(i);
                }
                None => return Err(ActionError::InvalidDiscard),
            }
        }
        let pl = &mut self.players[p];
        pl.hole = hole;
        pl.up = 0;
        self.muck
            .extend(discards.iter().copied().filter(|c| c.is_known()));
        events.push(Event::Discarded {
            player: p,
            cards: discards,
        });
        if !discards.is_empty() {
            self.deals.push_back(DealStep::Hole {
                player: p,
                count: discards.len() as u8,
                up: 0,
            });
        }
        // Next drawer: the next player still in, in order.
        self.actor = (p + 1..self.players.len()).find(|&i| !self.players[i].folded);
        if self.actor.is_none() {
            self.phase = Phase::Dealing;
            self.advance(events);
        }
        Ok(())
    }

    pub(super) fn show(
        &mut self,
        p: usize,
        cards: Option<Cards>,
        events: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        let hole = self.players[p].hole;
        let shown = match cards {
            None => hole,
            Some(shown) => {
                if shown.len() != hole.len() {
                    return Err(ActionError::InvalidShow);
                }
                // Every known card held must be among those shown; unknown ones are revealed.
                let mut rest = shown;
                for &c in hole.iter().filter(|c| c.is_known()) {
                    match rest.iter().position(|&s| s == c) {
                        Some(i) => {
                            rest.remove(i);
                        }
                        None => return Err(ActionError::InvalidShow),
                    }
                }
                for &c in rest.iter() {
                    if c.is_known() && seen(self, c) {
                        return Err(ActionError::CardNotAvailable(c));
                    }
                }
                shown
            }
        };
        if shown.iter().any(|c| !c.is_known()) {
            return Err(ActionError::UnknownCards);
        }
        let pl = &mut self.players[p];
        pl.hole = shown;
        pl.shown = Some(true);
        events.push(Event::Shown {
            player: p,
            cards: shown,
        });
        self.next_shower(events);
        Ok(())
    }

    /// Deals cards by hand (manual source): hole cards to `player`, or the board when
    /// `player` is `None`. The cards must be what [`Hand::pending_deal`] asks for.
    pub fn deal(
        &mut self,
        player: Option<usize>,
        cards: &[Card],
    ) -> Result<Vec<Event>, ActionError> {
        let step = self.pending_deal().ok_or(ActionError::UnexpectedDeal)?;
        if self.deck.is_some() {
            return Err(ActionError::UnexpectedDeal);
        }
        let fits = match step {
            DealStep::Hole {
                player: q, count, ..
            } => player == Some(q) && cards.len() == count as usize,
            DealStep::Board { count } | DealStep::SecondBoard { count } => {
                player.is_none() && cards.len() == count as usize
            }
        };
        if !fits {
            return Err(ActionError::UnexpectedDeal);
        }
        for (i, &c) in cards.iter().enumerate() {
            if c.is_known()
                && (!self.config.game.deck().contains(c)
                    || seen(self, c)
                    || cards[..i].contains(&c))
            {
                return Err(ActionError::CardNotAvailable(c));
            }
        }
        let mut events = Vec::new();
        self.deals.pop_front();
        self.put_cards(step, cards, &mut events);
        self.advance(&mut events);
        Ok(events)
    }

    /// Hands back the shuffled discards when [`Hand::needs_reshuffle`] asked for them;
    /// they go under the remaining stub.
    pub fn reshuffle(&mut self, shuffled: Vec<Card>) -> Result<Vec<Event>, ActionError> {
        if self.needs_reshuffle().is_none() {
            return Err(ActionError::UnexpectedDeal);
        }
        let mut a = shuffled.clone();
        let mut b = self.muck.clone();
        a.sort_unstable();
        b.sort_unstable();
        if a != b {
            return Err(ActionError::UnexpectedDeal);
        }
        self.muck.clear();
        let deck = self.deck.as_mut().expect("checked by needs_reshuffle");
        let mut fresh: Vec<Card> = shuffled.into_iter().rev().collect();
        fresh.append(deck);
        *deck = fresh;
        let mut events = Vec::new();
        self.advance(&mut events);
        Ok(events)
    }
}
