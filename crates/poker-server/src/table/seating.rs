//! Seating: sitting down with a buy-in, sitting out and in, top-ups and leaving (at once
//! between hands, at the hand's end during one), and saving seat states for a restart.

use super::actor::*;
use super::clock::default_action;
use super::writer::*;
use super::*;
use crate::fairplay::SameAddressSeating;
use poker_protocol::{BuyInRange, RatholeNote, ServerMsg};
use poker_rules::table::{Entry, SitOut};
use poker_rules::{Chips, Decision};
use poker_store::{PlayerId, StoreError};

impl Actor {
    /// Checks a sit that needs no store (the seat free and not held for a pending sit,
    /// the player not seated or sitting down here already, the same-address rule): what
    /// passes goes on in [`super::sitting`], off the actor's loop. Returns the address's
    /// bucket label and the players seated from it.
    pub(super) fn check_sit(
        &self,
        player: PlayerId,
        seat: u32,
        address: Option<std::net::IpAddr>,
    ) -> Result<(Option<String>, Vec<PlayerId>), Refusal> {
        if !self.closing.is_empty() {
            return Err(Refusal::Seat("the table is closing".into()));
        }
        match self.table.seats().get(seat as usize) {
            None => return Err(Refusal::Seat("no such seat".into())),
            Some(Some(_)) => return Err(Refusal::Seat("the seat is taken".into())),
            Some(None) if self.sitting.holds(seat) => {
                return Err(Refusal::Seat("the seat is taken".into()))
            }
            Some(None) => {}
        }
        if self.seat_of(player).is_some() || self.sitting.is_sitting(player) {
            return Err(Refusal::Seat("already seated here".into()));
        }
        // Refused before any money moves: a table an older version stored with more
        // seats than the game deals (an 8-seat stud table) seats no more than that,
        // counting the sits under way.
        self.table
            .room_for(self.sitting.count() + 1)
            .map_err(|e| Refusal::Seat(e.to_string()))?;
        // Same address, same table: refused before any money moves.
        let address = address.map(crate::fairplay::address_label);
        let same = self.seated_from(address.as_deref(), player);
        if !same.is_empty() && self.ctx.same_address == SameAddressSeating::Refuse {
            tracing::info!(%player, "a sit from the address of a seated player is refused");
            return Err(Refusal::SameAddress(
                "a player at this table connects from your address: this room seats one player \
                 per address at a table"
                    .into(),
            ));
        }
        Ok((address, same))
    }

    /// The money of a sit moved (its buy-in durable, with its ledger rows): the player
    /// takes the seat held for them, with the rathole record the range was checked with.
    pub(super) fn seat_bought(
        &mut self,
        sit: &super::sitting::Sit,
        rathole: Option<&poker_rules::table::Rathole<PlayerId>>,
    ) -> Result<Outcome, Refusal> {
        let player = sit.player;
        self.table
            .sit_down(
                sit.seat as usize,
                player,
                sit.buy_in,
                sit.entry,
                rathole,
                sit.now,
            )
            .map_err(|e| Refusal::Seat(e.to_string()))?;
        let mut info = SeatInfo::new(sit.name.clone(), &self.clock_rules);
        info.address = sit.address.clone();
        self.info.insert(player, info);
        Ok(Outcome {
            amount: sit.buy_in,
            pending: false,
        })
    }

    /// What `player` may buy in for here at `now` (room seconds): the table's range, or
    /// the rathole rule's (R26) when they left this table within its window with more
    /// than its minimum; with the store's rathole record the rules' table checks the sit
    /// against.
    pub(super) async fn range_for(
        &self,
        player: PlayerId,
        now: u64,
    ) -> (BuyInRange, Option<poker_rules::table::Rathole<PlayerId>>) {
        let row = self.ctx.store.rathole(self.table_id, player).await;
        self.range_with(player, row.ok().flatten(), now)
    }

    /// [`Actor::range_for`] with the store's rathole record already read.
    pub(super) fn range_with(
        &self,
        player: PlayerId,
        row: Option<poker_store::RatholeRow>,
        now: u64,
    ) -> (BuyInRange, Option<poker_rules::table::Rathole<PlayerId>>) {
        let rathole = row.map(|r| poker_rules::table::Rathole {
            player,
            stack: r.stack,
            left_at: (r.left_at / 1000).max(0) as u64,
        });
        let (min, max) = self.table.buy_in_range(rathole.as_ref(), now);
        let rules = self.table.rules();
        // The rules raised the minimum: the rathole rule applies.
        let note = rathole
            .as_ref()
            .filter(|_| min > rules.min_buy_in)
            .map(|r| RatholeNote {
                stack: r.stack,
                left_secs_ago: now.saturating_sub(r.left_at),
                window_secs: rules.rathole_secs,
            });
        let range = BuyInRange {
            min,
            max,
            rathole: note,
        };
        (range, rathole)
    }

    /// The seated players (other than `player`) who sat down from `address`.
    fn seated_from(&self, address: Option<&str>, player: PlayerId) -> Vec<PlayerId> {
        let Some(address) = address else {
            return Vec::new();
        };
        let mut same: Vec<PlayerId> = self
            .info
            .iter()
            .filter(|(p, i)| **p != player && i.address.as_deref() == Some(address))
            .map(|(p, _)| *p)
            .chain(self.sitting.sitting_from(address, player))
            .collect();
        same.sort();
        same
    }

    /// The pairs a player sitting down from the address of `same` makes with them, to be
    /// flagged under "flag" (a pair once while the table runs, however often its players
    /// sit down again); recorded with the address once the buy-in is durable
    /// ([`super::sitting`]).
    pub(super) fn flag_pairs(&mut self, player: PlayerId, same: &[PlayerId]) -> Vec<PlayerId> {
        if self.ctx.same_address != SameAddressSeating::Flag {
            return Vec::new();
        }
        let flagged: Vec<PlayerId> = same
            .iter()
            .copied()
            .filter(|&other| self.flagged.insert((player.min(other), player.max(other))))
            .collect();
        if !flagged.is_empty() {
            tracing::info!(%player, "seated from the address of {} seated player(s): flagged", flagged.len());
        }
        flagged
    }

    pub(super) async fn seat_request(
        &mut self,
        player: PlayerId,
        request: SeatRequest,
    ) -> Result<Outcome, Refusal> {
        if let SeatRequest::Seed(step) = request {
            // Refused with its own code when the player is not seated.
            return self.take_seed(player, step);
        }
        if matches!(request, SeatRequest::Leave) {
            if let Some(outcome) = self.leave_while_sitting(player) {
                return Ok(outcome);
            }
        }
        let seat = self
            .seat_of(player)
            .ok_or_else(|| Refusal::NotYourTurn("you are not seated at this table".into()))?;
        let done = |amount, pending| Ok(Outcome { amount, pending });
        let table_error = |e: poker_rules::table::TableError| Refusal::Seat(e.to_string());
        match request {
            SeatRequest::SitOut { next_big_blind } => {
                let when = if next_big_blind {
                    SitOut::NextBigBlind
                } else {
                    SitOut::NextHand
                };
                self.table.sit_out(seat, when).map_err(table_error)?;
                let pending = self.in_hand(player);
                if let Some(info) = self.info.get_mut(&player) {
                    // Told `done` again when the hand ends.
                    info.pending_sit_out = pending;
                }
                done(0, pending)
            }
            SeatRequest::SitIn { post_now } => {
                let entry = if post_now {
                    Entry::PostNow
                } else {
                    Entry::WaitForBigBlind
                };
                self.table.sit_in(seat, entry).map_err(table_error)?;
                if let Some(info) = self.info.get_mut(&player) {
                    info.timeouts = 0;
                    info.pending_sit_out = false;
                }
                done(0, false)
            }
            SeatRequest::TopUp { amount } => {
                let max = self.table.rules().max_buy_in;
                let stack = self.table.seats()[seat].as_ref().expect("seated").stack;
                let pending = self.info.get(&player).map_or(0, |i| i.pending_top_up);
                // The client's amount is added only once the sum is known to fit: u64::MAX
                // would wrap past the maximum (or panic in a debug build).
                let now = stack.saturating_add(pending);
                let after = now.checked_add(amount).filter(|&a| a <= max);
                if amount == 0 || after.is_none() {
                    return Err(Refusal::Seat(format!(
                        "a top-up may bring the stack to at most {max} (now {now})"
                    )));
                }
                if self.in_hand(player) {
                    // Chips are added only between hands (R26); the money moves then.
                    // `pending + amount` is at most `after`, so it fits.
                    let balance = self.ctx.store.balance(player).await.unwrap_or(0);
                    if balance < pending + amount {
                        return Err(Refusal::Funds(format!("the balance is {balance}")));
                    }
                    if let Some(info) = self.info.get_mut(&player) {
                        info.pending_top_up += amount;
                    }
                    return done(amount, true);
                }
                self.top_up_now(player, seat, amount).await?;
                done(amount, false)
            }
            SeatRequest::AutoMuck { on } => {
                if let Some(info) = self.info.get_mut(&player) {
                    info.auto_muck = on;
                }
                done(0, false)
            }
            SeatRequest::Straddle { on } => {
                self.table.set_straddle(seat, on).map_err(table_error)?;
                done(0, false)
            }
            SeatRequest::Seed(step) => self.take_seed(player, step),
            SeatRequest::ShowHand => self.show_uncontested(player).await,
            SeatRequest::Leave => {
                if self.in_hand(player) {
                    self.info.get_mut(&player).expect("seated").leaving = true;
                    let stack = self.table.seats()[seat].as_ref().expect("seated").stack;
                    // The hand is dead: if the player is being asked now, the answer is
                    // given for them at once (a fold where folding is allowed).
                    let cur = self.current.as_ref().expect("in a hand");
                    if let Some(p) = cur.hand.to_act() {
                        if cur.players[p] == player {
                            if let Some(decision) = cur.hand.decision() {
                                if !matches!(decision, Decision::Showdown { can_muck: false }) {
                                    self.clock = None;
                                    self.auto(p, default_action(&decision, true));
                                }
                            }
                        }
                    }
                    return done(stack, true);
                }
                let amount = self.leave_now(player, seat).await?;
                done(amount, false)
            }
        }
    }

    pub(super) async fn top_up_now(
        &mut self,
        player: PlayerId,
        seat: usize,
        amount: Chips,
    ) -> Result<(), Refusal> {
        let topped = self
            .ctx
            .store
            .top_up(self.table_id, player, amount, None, self.ctx.fence)
            .await;
        match topped {
            Ok(_) => {}
            Err(StoreError::InsufficientFunds { balance }) => {
                return Err(Refusal::Funds(format!("the balance is {balance}")))
            }
            Err(e) if self.lost_table(&e) => return Err(Refusal::Moving),
            Err(e) => {
                tracing::error!("top-up failed: {e}");
                return Err(Refusal::Internal("the top-up failed".into()));
            }
        }
        let busted = self.table.seats()[seat]
            .as_ref()
            .is_some_and(|o| o.stack == 0);
        self.table
            .top_up(seat, amount)
            .map_err(|e| Refusal::Seat(e.to_string()))?;
        if busted {
            // A player who lost every chip was sat out by the table; buying more chips
            // brings them back in, posting what they owe.
            let _ = self.table.sit_in(seat, Entry::PostNow);
        }
        Ok(())
    }

    pub(super) async fn leave_now(
        &mut self,
        player: PlayerId,
        seat: usize,
    ) -> Result<Chips, Refusal> {
        let amount = match self
            .ctx
            .store
            .cash_out(
                self.table_id,
                player,
                self.ctx.clock.now_ms(),
                self.ctx.fence,
            )
            .await
        {
            Ok(amount) => amount,
            Err(e) if self.lost_table(&e) => return Err(Refusal::Moving),
            Err(e) => {
                tracing::error!("cash-out failed: {e}");
                return Err(Refusal::Internal("the cash-out failed".into()));
            }
        };
        let now = self.ctx.clock.now_secs();
        self.table
            .leave(seat, now)
            .map_err(|e| Refusal::Seat(e.to_string()))?;
        self.info.remove(&player);
        Ok(amount)
    }

    /// Whether a store write was refused because the table's lease passed to another
    /// node (the write carried a stale fencing token); if so, stops here at once without
    /// writing anything more ([`Actor::abandon`]): the new owner has the seats now.
    pub(super) fn lost_table(&mut self, e: &StoreError) -> bool {
        if !matches!(e, StoreError::Fenced { .. }) {
            return false;
        }
        tracing::warn!("{e}: another node owns the table now, stopping here");
        self.abandon();
        true
    }

    /// Writes who sits out and the blinds they owe, where changed, so that a restart
    /// keeps them.
    pub(super) fn save_seat_states(&mut self) {
        if self.closed {
            return;
        }
        let now: Vec<(PlayerId, (bool, bool, bool))> = self
            .table
            .seats()
            .iter()
            .flatten()
            .map(|o| {
                let out = o.sitting_out || o.sit_out_next_hand;
                (o.player, (out, o.missed_small, o.missed_big))
            })
            .collect();
        self.saved.retain(|p, _| now.iter().any(|(q, _)| q == p));
        for (player, state) in now {
            let before = self.saved.insert(player, state);
            if before.map(|b| b.0) != Some(state.0) {
                self.writer.send(Write::SittingOut {
                    player,
                    out: state.0,
                });
            }
            if before.map(|b| (b.1, b.2)) != Some((state.1, state.2)) {
                self.writer.send(Write::MissedBlinds {
                    player,
                    small: state.1,
                    big: state.2,
                });
            }
        }
    }

    /// Hands the table's state to the background writer if it changed. Only states
    /// between hands are saved: planning a hand moves the button, and a hand cut off by a
    /// restart never happened.
    pub(super) fn save_table(&mut self) {
        // A drained table wrote its state for the next start; the database may be
        // closing now.
        if !self.state_dirty || self.closed || self.drain || self.table.current_hand().is_some() {
            return;
        }
        self.state_dirty = false;
        match serde_json::to_string(&self.table) {
            Ok(json) => self.writer.send(Write::TableState(json)),
            Err(e) => tracing::warn!("state: {e}"),
        }
    }

    /// Top-ups and departures asked during the hand that just ended.
    pub(super) async fn apply_pending(&mut self) {
        let sat_out: Vec<PlayerId> = self
            .info
            .iter_mut()
            .filter(|(_, i)| i.pending_sit_out)
            .map(|(&p, i)| {
                i.pending_sit_out = false;
                p
            })
            .collect();
        for player in sat_out {
            self.send_to(
                player,
                ServerMsg::Done {
                    table_id: self.table_id,
                    request: "sit_out".into(),
                    amount: 0,
                    pending: false,
                },
            );
        }
        let pending: Vec<(PlayerId, Chips, bool)> = self
            .info
            .iter()
            .filter(|(_, i)| i.leaving || i.pending_top_up > 0)
            .map(|(&p, i)| (p, i.pending_top_up, i.leaving))
            .collect();
        for (player, top_up, leaving) in pending {
            if self.closed {
                // Another node owns the table now (a write was fenced): it moves the
                // rest of the money.
                return;
            }
            if let Some(info) = self.info.get_mut(&player) {
                info.pending_top_up = 0;
            }
            let Some(seat) = self.seat_of(player) else {
                continue;
            };
            let table_id = self.table_id;
            // Every request answered `pending` is answered again now: a top-up adds what
            // still fits under the maximum (nothing when the player leaves or is there).
            let top_up_done = |amount| ServerMsg::Done {
                table_id,
                request: "top_up".into(),
                amount,
                pending: false,
            };
            if leaving {
                if top_up > 0 {
                    self.send_to(player, top_up_done(0));
                }
                let msg = match self.leave_now(player, seat).await {
                    Ok(amount) => ServerMsg::Done {
                        table_id,
                        request: "leave".into(),
                        amount,
                        pending: false,
                    },
                    Err(refusal) => refusal.into(),
                };
                self.send_to(player, msg);
                continue;
            }
            let stack = self.table.seats()[seat].as_ref().expect("seated").stack;
            let amount = top_up.min(self.table.rules().max_buy_in.saturating_sub(stack));
            let msg = if amount == 0 {
                top_up_done(0)
            } else {
                match self.top_up_now(player, seat, amount).await {
                    Ok(()) => top_up_done(amount),
                    Err(refusal) => refusal.into(),
                }
            };
            self.send_to(player, msg);
        }
    }
}

/// Why a buy-in outside `range` is refused, in the words of the rules: the rathole rule
/// (R26: "a player may not take a portion of their stake off the table, unless they opt
/// to leave the game and remove their entire stake from play", betting-encyclopedia.txt)
/// names what the player left with and when, else the table's range.
pub(crate) fn out_of_range(range: &BuyInRange) -> String {
    match &range.rathole {
        Some(r) => {
            let ago = minutes(r.left_secs_ago);
            let window = minutes(r.window_secs);
            let most = if range.max > range.min {
                format!(" (at most {})", range.max)
            } else {
                String::new()
            };
            format!(
                "you left this table {ago} ago with {}: coming back within {window} of \
                 leaving, you bring back at least what you left with, {}{most} (no \
                 ratholing: R26, no part of a stack may be taken off the table)",
                r.stack, range.min
            )
        }
        None => format!("buy in between {} and {}", range.min, range.max),
    }
}

/// A duration in whole minutes for people ("1 minute", "12 minutes"; under a minute
/// is "less than a minute").
fn minutes(secs: u64) -> String {
    match secs / 60 {
        0 => "less than a minute".into(),
        1 => "1 minute".into(),
        n => format!("{n} minutes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r26_a_refused_return_names_the_stack_left_with_and_the_window() {
        let range = BuyInRange {
            min: 400,
            max: 400,
            rathole: Some(RatholeNote {
                stack: 400,
                left_secs_ago: 12 * 60 + 5,
                window_secs: 3600,
            }),
        };
        assert_eq!(
            out_of_range(&range),
            "you left this table 12 minutes ago with 400: coming back within 60 minutes of \
             leaving, you bring back at least what you left with, 400 (no ratholing: R26, \
             no part of a stack may be taken off the table)"
        );
        let plain = BuyInRange {
            min: 40,
            max: 200,
            rathole: None,
        };
        assert_eq!(out_of_range(&plain), "buy in between 40 and 200");
        assert_eq!(minutes(30), "less than a minute");
        assert_eq!(minutes(61), "1 minute");
    }
}
