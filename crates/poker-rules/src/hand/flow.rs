//! The flow of a hand: forced bets, streets, dealing, turn order, the end of each
//! betting round and the move to the next street or the showdown.

use super::*;
use crate::card::{Card, Cards};
use crate::game::{Opening, Structure};

impl Hand {
    pub(super) fn post_forced_bets(&mut self, events: &mut Vec<Event>) {
        // A pot-limit small blind played as dead money goes in with the antes (R22).
        let dead_small = self.config.structure == Structure::PotLimit
            && self.config.options.pot_limit_preflop == PotLimitPreflop::DeadSmallBlind;
        let big = self.config.big_blind();
        for i in 0..self.players.len() {
            let seat = self.config.seats[i];
            let dead = seat.ante
                + if dead_small && seat.kind == BlindKind::Blind && seat.blind < big {
                    seat.blind
                } else {
                    0
                };
            if dead > 0 {
                let pl = &mut self.players[i];
                let amount = dead.min(pl.stack);
                pl.stack -= amount;
                pl.committed += amount;
                pl.ante = amount;
                events.push(Event::AntePosted { player: i, amount });
            }
        }
        for i in 0..self.players.len() {
            let seat = self.config.seats[i];
            let dead_blind = dead_small && seat.kind == BlindKind::Blind && seat.blind < big;
            if seat.blind > 0 && self.players[i].stack > 0 && !dead_blind {
                let pl = &mut self.players[i];
                let amount = seat.blind.min(pl.stack);
                pl.stack -= amount;
                pl.bet += amount;
                pl.committed += amount;
                events.push(Event::BlindPosted { player: i, amount });
            }
        }
        // Callers owe the full blind even when its poster is all in for less (R28); a
        // live post counts for its poster only (R13, R14).
        self.current_bet = self
            .config
            .seats
            .iter()
            .filter(|s| s.kind != BlindKind::Post)
            .map(|s| s.blind)
            .max()
            .unwrap_or(0);
        // A sleeper has no option (R15).
        for i in 0..self.players.len() {
            if self.config.seats[i].kind == BlindKind::Sleeper && self.config.seats[i].blind > 0 {
                self.players[i].acted = true;
                self.players[i].faced = self.current_bet;
            }
        }
        self.kill_seat = (0..self.players.len()).find(|&i| {
            self.config.seats[i].kind == BlindKind::Kill && self.config.seats[i].blind > 0
        });
    }

    pub(super) fn start_street(&mut self, events: &mut Vec<Event>) {
        let def = self.config.game.streets()[self.street];
        if def.draw {
            self.phase = Phase::Drawing;
            self.actor = (0..self.players.len()).find(|&i| !self.players[i].folded);
            return;
        }
        self.phase = Phase::Dealing;
        if !def.hole.is_empty() {
            let up = def
                .hole
                .iter()
                .enumerate()
                .fold(0u8, |m, (i, &u)| if u { m | 1 << i } else { m });
            for i in 0..self.players.len() {
                if !self.players[i].folded {
                    self.deals.push_back(DealStep::Hole {
                        player: i,
                        count: def.hole.len() as u8,
                        up,
                    });
                }
            }
        }
        if def.board > 0 {
            self.deals.push_back(DealStep::Board { count: def.board });
        }
        let _ = events;
    }

    pub(super) fn put_cards(&mut self, step: DealStep, cards: &[Card], events: &mut Vec<Event>) {
        match step {
            DealStep::Hole { player, up, .. } => {
                let pl = &mut self.players[player];
                let base = pl.hole.len();
                for &c in cards {
                    pl.hole.push(c);
                }
                pl.up |= up << base;
                events.push(Event::HoleDealt {
                    player,
                    cards: Cards::from_slice(cards).expect("at most seven"),
                    up,
                });
            }
            DealStep::Board { .. } => {
                for &c in cards {
                    self.board.push(c);
                }
                events.push(Event::BoardDealt {
                    cards: Cards::from_slice(cards).expect("at most five"),
                });
            }
            DealStep::SecondBoard { .. } => {
                for &c in cards {
                    self.board2.push(c);
                }
                events.push(Event::SecondBoardDealt {
                    cards: Cards::from_slice(cards).expect("at most five"),
                });
            }
        }
    }

    /// Runs the dealer's part until a player (or a manual deal) is needed.
    pub(super) fn advance(&mut self, events: &mut Vec<Event>) {
        loop {
            match self.phase {
                Phase::Dealing => {
                    if let Some(step) = self.deals.front().copied() {
                        let Some(deck) = self.deck.as_mut() else {
                            return;
                        };
                        let count = step_count(step) as usize;
                        if count > deck.len() {
                            return; // a reshuffle is due
                        }
                        if matches!(step, DealStep::Board { .. } | DealStep::SecondBoard { .. })
                            && !deck.is_empty()
                            && count < deck.len()
                        {
                            deck.pop(); // burn
                        }
                        let mut buf = [Card::UNKNOWN; 7];
                        for slot in buf.iter_mut().take(count) {
                            *slot = deck.pop().expect("checked");
                        }
                        self.deals.pop_front();
                        self.put_cards(step, &buf[..count], events);
                        continue;
                    }
                    if self.second_board_pending {
                        self.second_board_pending = false;
                        self.start_showdown(events);
                        continue;
                    }
                    if self.street == 0 && self.config.options.bomb_pot {
                        // A bomb pot has no first betting round: the bombs are collected
                        // and the flop comes at once (H1).
                        events.push(Event::BetsCollected {
                            pot: self.players.iter().map(|p| p.committed).sum(),
                        });
                        self.next_street(events);
                        continue;
                    }
                    self.begin_betting(events);
                    if self.phase == Phase::Betting && self.actor.is_some() {
                        return;
                    }
                }
                Phase::Betting => {
                    if self.actor.is_some() {
                        return;
                    }
                    if self.end_round(events) {
                        continue;
                    }
                }
                Phase::Drawing => {
                    if self.actor.is_some() {
                        return;
                    }
                    self.phase = Phase::Dealing;
                }
                Phase::RunItTwice => {
                    if self.actor.is_some() {
                        return;
                    }
                    self.next_street(events);
                }
                Phase::Showdown => {
                    if self.actor.is_some() {
                        return;
                    }
                    self.award(events);
                }
                Phase::Complete => return,
            }
        }
    }

    /// Whether `i` still has to act in this round, given how many players still in the
    /// hand have chips they can still bet.
    pub(super) fn needs_action(&self, i: usize, with_chips: usize) -> bool {
        let pl = &self.players[i];
        if pl.folded || self.behind(pl) == 0 {
            return false;
        }
        if pl.acted && pl.bet >= self.current_bet {
            return false;
        }
        if with_chips > 1 {
            return true;
        }
        // Everyone else is all in: only a player who has not matched them acts.
        let others_max = self
            .players
            .iter()
            .enumerate()
            .filter(|&(j, o)| j != i && !o.folded)
            .map(|(_, o)| o.bet)
            .max()
            .unwrap_or(0);
        pl.bet < others_max
    }

    pub(super) fn with_chips(&self) -> usize {
        self.players
            .iter()
            .filter(|p| !p.folded && self.behind(p) > 0)
            .count()
    }

    /// The first player from `start` (inclusive, clockwise) who has to act.
    pub(super) fn next_actor_from(&self, start: usize) -> Option<usize> {
        let n = self.players.len();
        let with_chips = self.with_chips();
        (0..n)
            .map(|k| {
                let i = start + k;
                if i >= n {
                    i - n
                } else {
                    i
                }
            })
            .find(|&i| self.needs_action(i, with_chips))
    }

    /// The first round's order when a kill blind acts last (R17): from the opener
    /// clockwise without the kill seat, then the kill seat.
    pub(super) fn kill_order(&self, kill: usize) -> impl Iterator<Item = usize> + '_ {
        let n = self.players.len();
        (0..n)
            .map(move |k| (self.round_opener + k) % n)
            .filter(move |&i| i != kill)
            .chain(std::iter::once(kill))
    }

    pub(super) fn first_actor(&self) -> Option<usize> {
        match (self.street, self.kill_seat) {
            (0, Some(kill)) => {
                let with_chips = self.with_chips();
                self.kill_order(kill)
                    .find(|&i| self.needs_action(i, with_chips))
            }
            _ => self.next_actor_from(self.round_opener),
        }
    }

    pub(super) fn next_actor_after(&self, p: usize) -> Option<usize> {
        match (self.street, self.kill_seat) {
            (0, Some(kill)) => {
                let with_chips = self.with_chips();
                let order: Vec<usize> = self.kill_order(kill).collect();
                let at = order.iter().position(|&i| i == p).unwrap_or(0);
                (1..=order.len())
                    .map(|k| order[(at + k) % order.len()])
                    .find(|&i| self.needs_action(i, with_chips))
            }
            _ => self.next_actor_from(p + 1),
        }
    }

    pub(super) fn begin_betting(&mut self, events: &mut Vec<Event>) {
        self.phase = Phase::Betting;
        events.push(Event::RoundStarted {
            street: self.street,
        });
        let opener = self.opener();
        self.round_opener = opener;
        self.aggressor = None;
        self.round_contenders = self.contenders() as u8;
        if self.street == 0 {
            let size = self.bet_size();
            let level = self.current_bet;
            self.min_raise = match self.config.structure {
                Structure::FixedLimit => size,
                _ => size.max(level),
            };
            self.raises = u32::from(level >= size && level > 0);
            self.full_level = if level >= size { level } else { 0 };
            self.bring_in_pending = self.config.stakes.bring_in > 0
                && self.config.game.opening() != Opening::Position
                && self.behind(&self.players[opener]) > 0;
            if self.bring_in_pending {
                self.actor = Some(opener);
                return;
            }
        } else {
            self.current_bet = 0;
            self.min_raise = self.bet_size();
            self.raises = 0;
            self.full_level = 0;
            for pl in &mut self.players {
                pl.acted = false;
                pl.faced = 0;
            }
        }
        if self.contenders() < 2 {
            self.actor = None;
            return;
        }
        self.actor = self.first_actor();
    }

    pub(super) fn after_bet_action(&mut self, p: usize, events: &mut Vec<Event>) {
        self.actor = if self.contenders() < 2 {
            None
        } else {
            self.next_actor_after(p)
        };
        if self.actor.is_none() {
            self.advance(events);
        }
    }

    /// Closes the betting round. Returns true to keep advancing.
    pub(super) fn end_round(&mut self, events: &mut Vec<Event>) -> bool {
        // Return the part of the top bet that nobody matched (R8).
        let (mut top, mut top_i, mut second) = (0, 0, 0);
        for (i, p) in self.players.iter().enumerate() {
            if p.bet > top {
                second = top;
                top = p.bet;
                top_i = i;
            } else if p.bet > second {
                second = p.bet;
            }
        }
        if top > second {
            let excess = top - second;
            let pl = &mut self.players[top_i];
            pl.bet -= excess;
            pl.committed -= excess;
            pl.stack += excess;
            events.push(Event::UncalledReturned {
                player: top_i,
                amount: excess,
            });
        }
        for p in &mut self.players {
            p.bet = 0;
        }
        events.push(Event::BetsCollected {
            pot: self.players.iter().map(|p| p.committed).sum(),
        });
        if self.contenders() < 2 {
            self.award(events);
            return true;
        }
        let last = self.street + 1 == self.config.game.streets().len();
        let options = &self.config.options;
        if !last && (options.expose_all_in || options.run_it_twice) && self.with_chips() <= 1 {
            // Nobody can bet any more: expose the hands (R31) or offer to run twice (R32).
            if self.config.options.expose_all_in && !self.exposed {
                self.exposed = true;
                for i in 0..self.players.len() {
                    let pl = &self.players[i];
                    if !pl.folded && pl.shown.is_none() && pl.hole.iter().all(|c| c.is_known()) {
                        let cards = pl.hole;
                        self.players[i].shown = Some(true);
                        events.push(Event::Shown { player: i, cards });
                    }
                }
            }
            if self.config.options.run_it_twice && !self.run_twice_asked && self.board.len() < 5 {
                self.run_twice_asked = true;
                self.phase = Phase::RunItTwice;
                self.actor = (0..self.players.len()).find(|&i| !self.players[i].folded);
                return true;
            }
        }
        self.next_street(events);
        true
    }

    /// Moves on to the next street, or the showdown after the last.
    pub(super) fn next_street(&mut self, events: &mut Vec<Event>) {
        if self.street + 1 == self.config.game.streets().len() {
            self.start_showdown(events);
        } else {
            self.street += 1;
            self.start_street(events);
        }
    }

    /// The player who opens the current round.
    pub(super) fn opener(&self) -> usize {
        let n = self.players.len();
        match self.config.game.opening() {
            Opening::Position => {
                if self.street == 0 {
                    // Left of the biggest blind or straddle (sleepers, kill blinds and
                    // posts do not buy last action).
                    let biggest = (0..n)
                        .filter(|&i| {
                            matches!(
                                self.config.seats[i].kind,
                                BlindKind::Blind | BlindKind::Straddle
                            )
                        })
                        .max_by_key(|&i| (self.config.seats[i].blind, i))
                        .unwrap_or(n - 1);
                    (biggest + 1) % n
                } else {
                    0
                }
            }
            Opening::StudHigh | Opening::StudLow => {
                let low_game = self.config.game.opening() == Opening::StudLow;
                let live: Vec<usize> = (0..n).filter(|&i| !self.players[i].folded).collect();
                if self.street == 0 {
                    // Bring-in: lowest up card (razz: highest, ace low); suits break ties.
                    let key = |i: usize| {
                        let c = self.up_cards(i).first().copied().unwrap_or(Card::UNKNOWN);
                        let rank = if low_game {
                            (c.rank().0 + 1) % 13
                        } else {
                            c.rank().0
                        };
                        (rank, c.suit().0)
                    };
                    if low_game {
                        *live
                            .iter()
                            .rev()
                            .max_by_key(|&&i| key(i))
                            .expect("live players")
                    } else {
                        *live.iter().min_by_key(|&&i| key(i)).expect("live players")
                    }
                } else {
                    let value = |i: usize| showing_value(&self.up_cards(i), low_game);
                    if low_game {
                        *live
                            .iter()
                            .min_by_key(|&&i| value(i))
                            .expect("live players")
                    } else {
                        *live
                            .iter()
                            .rev()
                            .max_by_key(|&&i| value(i))
                            .expect("live players")
                    }
                }
            }
        }
    }

    pub(super) fn up_cards(&self, i: usize) -> Vec<Card> {
        let pl = &self.players[i];
        pl.hole
            .iter()
            .enumerate()
            .filter(|(k, _)| pl.up >> k & 1 == 1)
            .map(|(_, &c)| c)
            .collect()
    }
}
