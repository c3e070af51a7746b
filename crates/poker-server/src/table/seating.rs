//! Seating: sitting down with a buy-in, sitting out and in, top-ups and leaving (at once
//! between hands, at the hand's end during one), and saving seat states for a restart.
//! The sits under way (`super::sitting`) are run here, step by step, off the actor's loop.

use super::actor::*;
use super::book::{Saved, SeatInfo};
use super::clock::default_action;
use super::current::Next;
use super::sitting::{Sit, Step};
use super::writer::Write;
use super::*;
use crate::fairplay::SameAddressSeating;
use poker_protocol::{BuyInRange, RatholeNote, ServerMsg};
use poker_rules::table::Rathole;
use poker_rules::table::{Entry, SitOut};
use poker_rules::{Chips, Decision};
use poker_store::{BuyIn, PlayerId, StoreError, TableWrite};
use tokio::sync::{mpsc, oneshot};
use tracing::Instrument;

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
        if self.life.is_closing() {
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
        sit: &Sit,
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
        let info = SeatInfo::new(sit.name.clone(), self.clock.rules(), sit.address.clone());
        self.book.seat(player, info);
        Ok(Outcome {
            amount: sit.buy_in,
            pending: false,
        })
    }

    /// What `player` may buy in for here at `now` (room seconds): the table's range, or
    /// the rathole rule's (R26) when they left this table within its window with more
    /// than its minimum; with the rathole record the rules' table checks the sit against.
    pub(super) fn range_for(
        &self,
        player: PlayerId,
        now: u64,
    ) -> (BuyInRange, Option<poker_rules::table::Rathole<PlayerId>>) {
        let rathole = self
            .departures
            .of(player)
            .map(|r| poker_rules::table::Rathole {
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
            .book
            .seated_from(address, player)
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
        let flagged = self.book.flag(player, same);
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
            if let Some(outcome) = self.sitting.leave(player) {
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
                // Told `done` again when the hand ends.
                self.book.sat_out(player, pending);
                done(0, pending)
            }
            SeatRequest::SitIn { post_now } => {
                let entry = if post_now {
                    Entry::PostNow
                } else {
                    Entry::WaitForBigBlind
                };
                self.table.sit_in(seat, entry).map_err(table_error)?;
                self.book.sat_in(player);
                done(0, false)
            }
            SeatRequest::TopUp { amount } => {
                let max = self.table.rules().max_buy_in;
                let stack = self.table.seats()[seat].as_ref().expect("seated").stack;
                let pending = self.book.pending_top_up(player);
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
                    self.book.add_top_up(player, amount);
                    return done(amount, true);
                }
                self.top_up_now(player, seat, amount).await?;
                done(amount, false)
            }
            SeatRequest::AutoMuck { on } => {
                self.book.set_auto_muck(player, on);
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
                    self.book.set_leaving(player);
                    let stack = self.table.seats()[seat].as_ref().expect("seated").stack;
                    // The hand is dead: if the player is being asked now, the answer is
                    // given for them at once (a fold where folding is allowed).
                    let asked = self.current.as_ref().map(|cur| cur.next());
                    if let Some(Next::Decide(p, decision)) = asked {
                        let to_act = self.current.as_ref().map(|cur| cur.players()[p]);
                        if to_act == Some(player)
                            && !matches!(decision, Decision::Showdown { can_muck: false })
                        {
                            self.clock.stop();
                            self.auto(p, default_action(&decision, true));
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
        let at = self.ctx.clock.now_ms();
        let amount = match self
            .ctx
            .store
            .cash_out(self.table_id, player, at, self.ctx.fence)
            .await
        {
            Ok(amount) => {
                self.departures.left(player, amount, at);
                amount
            }
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
        self.book.remove(player);
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
        if self.life.is_closed() {
            return;
        }
        let now: Vec<(PlayerId, Saved)> = self
            .table
            .seats()
            .iter()
            .flatten()
            .map(|o| {
                let saved = Saved {
                    sitting_out: o.sitting_out || o.sit_out_next_hand,
                    missed_small: o.missed_small,
                    missed_big: o.missed_big,
                };
                (o.player, saved)
            })
            .collect();
        for write in self.book.changes(now) {
            self.writer.send(write);
        }
    }

    /// Hands the table's state to the background writer if it changed. Only states
    /// between hands are saved: planning a hand moves the button, and a hand cut off by a
    /// restart never happened.
    pub(super) fn save_table(&mut self) {
        // A drained table wrote its state for the next start; the database may be
        // closing now.
        if !self.writer.table_dirty()
            || !self.life.keeps_state()
            || self.table.current_hand().is_some()
        {
            return;
        }
        self.writer.table_saved();
        match serde_json::to_string(&self.table) {
            Ok(json) => self.writer.send(Write::TableState(json)),
            Err(e) => tracing::warn!("state: {e}"),
        }
    }

    /// Sit-outs, top-ups and departures asked during the hand that just ended, each
    /// answered again (a late answer: one that fell behind gets it after its resync).
    pub(super) async fn apply_pending(&mut self) {
        let sat_out = self.book.take_sit_outs();
        for player in sat_out {
            self.audience.answer_to(
                player,
                ServerMsg::Done {
                    table_id: self.table_id,
                    request: "sit_out".into(),
                    amount: 0,
                    pending: false,
                },
            );
        }
        let pending = self.book.waiting_moves();
        for (player, top_up, leaving) in pending {
            if self.life.is_closed() {
                // Another node owns the table now (a write was fenced): it moves the
                // rest of the money.
                return;
            }
            self.book.clear_top_up(player);
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
                    self.audience.answer_to(player, top_up_done(0));
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
                self.audience.answer_to(player, msg);
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
            self.audience.answer_to(player, msg);
        }
    }
}

impl Actor {
    /// Starts a sit: refused at once if the seat, the player or the address rule forbid
    /// it; otherwise the seat is held and the store work starts, and the answer comes
    /// when it ends (`None` here).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn start_sit(
        &mut self,
        player: PlayerId,
        name: String,
        seat: u32,
        buy_in: Chips,
        entry: Entry,
        address: Option<std::net::IpAddr>,
        queue: Option<mpsc::Sender<Batch>>,
        respond_to: oneshot::Sender<Answer>,
    ) -> Option<(oneshot::Sender<Answer>, Answer)> {
        let checked = self
            .waitlist
            .allows(player, seat)
            .and_then(|()| self.check_sit(player, seat, address));
        let (address, same) = match checked {
            Ok(checked) => checked,
            Err(refusal) => return Some((respond_to, Err(refusal))),
        };
        let sit = Sit {
            player,
            name,
            seat,
            buy_in,
            entry,
            address,
            same,
            flagged: Vec::new(),
            now: self.ctx.clock.now_secs(),
            queue,
            respond_to,
            leave: false,
        };
        self.sitting.hold(sit);
        self.pay_for_seat(player);
        None
    }

    /// Checks a held sit's buy-in against the player's range (the rathole rule's from the
    /// table's departures) and, in range, moves its money in a task of its own; refused
    /// otherwise.
    fn pay_for_seat(&mut self, player: PlayerId) {
        let Some(sit) = self.sitting.get(player) else {
            return;
        };
        let (seat, amount, same) = (sit.seat, sit.buy_in, sit.same.clone());
        let (address, now) = (sit.address.clone(), sit.now);
        let (range, rathole) = self.range_for(player, now);
        if amount < range.min || amount > range.max {
            let refusal = Refusal::Seat(out_of_range(&range));
            self.sit_answered(player, Err(refusal));
            return;
        }
        let flagged = self.flag_pairs(player, &same);
        self.sitting.flagged(player, flagged.clone());
        let buy_in = BuyIn {
            table: self.table_id,
            seat_no: seat,
            player,
            amount,
            fence: self.ctx.fence,
        };
        let (persister, table, tx) = (
            self.ctx.persister.clone(),
            self.table_id,
            self.sitting.steps(),
        );
        // The money moves first, with its ledger rows, through the persister: in one
        // transaction with the other tables' buy-ins waiting (a room whose tables all fill
        // at once pays one disk flush per batch, not per sit), answered once durable. The
        // address is recorded next (a restart, or the node that takes the table over,
        // compares the next newcomers with it), through the persister too, with the other
        // writes that move no money; the seat stands if it cannot be written: that is
        // logged.
        let work = async move {
            let bought = persister.buy_in(buy_in).await;
            if let (Ok(()), Some(address)) = (&bought, address) {
                let recorded = persister
                    .save(vec![TableWrite::SitAddress {
                        table,
                        player,
                        address,
                        at: poker_store::now_ms(),
                        flagged_with: flagged,
                    }])
                    .await;
                if let Err(e) = recorded {
                    tracing::error!("cannot record the address of a sit: {e}");
                }
            }
            let _ = tx.send((player, Step::Bought(bought, rathole)));
        };
        tokio::spawn(work.instrument(self.span.clone()));
    }

    /// Goes on with a sit after a step of its store work.
    pub(super) async fn on_sit_step(&mut self, player: PlayerId, step: Step) {
        let Step::Bought(bought, rathole) = step;
        let refusal = match bought {
            Ok(()) => return self.take_seat(player, rathole).await,
            Err(StoreError::InsufficientFunds { balance }) => {
                Refusal::Funds(format!("the balance is {balance}"))
            }
            Err(e) if self.lost_table(&e) => Refusal::Moving,
            Err(e) => Refusal::Seat(e.to_string()),
        };
        if let Some(sit) = self.sitting.get(player) {
            // A refused buy-in flags no pair: its player never sat down.
            self.book.unflag(player, &sit.flagged);
        }
        self.sit_answered(player, Err(refusal));
    }

    /// The buy-in is durable: the player takes the seat held for them, is answered,
    /// subscribed and shown; and cashed out at once if they asked to leave meanwhile.
    async fn take_seat(&mut self, player: PlayerId, rathole: Option<Rathole<PlayerId>>) {
        let Some(sit) = self.sitting.take(player) else {
            return;
        };
        let result = self.seat_bought(&sit, rathole.as_ref());
        if result.is_ok() {
            self.waitlist_seated(player);
            // Subscribed only once seated: a refused sit leaves the connection as it was.
            if let Some(queue) = sit.queue {
                let snapshot = self.snapshot(Some(player));
                self.audience.add(Some(player), queue, snapshot);
            }
        }
        self.seats_changed();
        let seated = result.is_ok();
        let _ = sit.respond_to.send(result.map(Reply::Done));
        if sit.leave && seated {
            match self.leave_now(player, sit.seat as usize).await {
                Ok(_) => self.seats_changed(),
                Err(refusal) => tracing::warn!(%player, "leaving once seated: {refusal}"),
            }
        }
    }

    /// Answers a sit that ends without a seat, letting the seat held for it go.
    fn sit_answered(&mut self, player: PlayerId, answer: Result<Outcome, Refusal>) {
        if let Some(sit) = self.sitting.take(player) {
            let _ = sit.respond_to.send(answer.map(Reply::Done));
            // The held seat is free again: the waiting list may be offered it.
            self.seats_changed();
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
