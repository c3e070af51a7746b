//! A private table as the actor runs it (the game's state is `super::private`'s): who may
//! watch and sit, the host's commands (removing a player is their leaving, decided by the
//! host), a stack the host adjusts (play money: through the ledger, between hands), an
//! invite presented, and the host's pause and blinds before each deal.

use super::actor::Actor;
use super::private::{with_blinds, Commanded, PrivateAsk};
use super::*;
use poker_protocol::{HostCommand, PrivateView};

/// A host may adjust a stack up to this many of the table's maximum buy-ins: room enough
/// for a home game's rebuys, not for a number no game needs.
const MAX_ADJUSTED_BUY_INS: Chips = 100;

impl Actor {
    /// The view of the private table's state, for everyone at it.
    pub(super) fn private_view(&self) -> Option<PrivateView> {
        Some(self.private.as_ref()?.view())
    }

    /// Refuses what a private table lets only some do: watching (the invite's holders,
    /// the host and the seated), sitting down (the host and whom the host approved),
    /// joining the waiting list and reading the ledger (as watching). Anything goes at
    /// other tables.
    pub(super) fn private_guard(&self, request: &Request) -> Result<(), Refusal> {
        match &self.private {
            Some(p) => p.guard(request, |player| self.seat_of(player).is_some()),
            None => Ok(()),
        }
    }

    /// A private game's ledger as its players are shown it: what each bought in, cashed
    /// out and holds, from the room's ledger (never a second bookkeeping). A public
    /// table has none to show (`private_refused`); at a private one, the guard let only
    /// those who may watch ask.
    pub(super) async fn ledger(&self) -> Result<ServerMsg, Refusal> {
        if self.private.is_none() {
            return Err(Refusal::Private(
                "only a private game shows its ledger".into(),
            ));
        }
        let ledger = self
            .ctx
            .store
            .table_ledger(self.table_id)
            .await
            .map_err(|e| {
                tracing::error!("cannot read the table's ledger: {e}");
                Refusal::Internal("the ledger cannot be read now: try again".into())
            })?;
        // The seat accounts never hold less than nothing, nor a buy-in or cash-out.
        let chips = |amount: i64| Chips::try_from(amount).unwrap_or(0);
        let lines = ledger
            .lines
            .iter()
            .map(|l| poker_protocol::LedgerLine {
                player_id: l.player_id,
                name: l.name.clone(),
                bought_in: chips(l.bought_in),
                cashed_out: chips(l.cashed_out),
                adjusted: l.adjusted,
                stack: chips(l.stack),
                net: l.net(),
            })
            .collect();
        Ok(ServerMsg::Ledger {
            table_id: self.table_id,
            lines,
            rake: chips(ledger.rake),
        })
    }

    /// Refused unless `player` is the table's host (`not_host`), or the table is not
    /// private (`private_refused`).
    pub(super) fn host_only(&self, player: PlayerId) -> Result<(), Refusal> {
        match &self.private {
            None => Err(Refusal::Private("this table is not a private game".into())),
            Some(p) if p.is_host(player) => Ok(()),
            Some(_) => Err(Refusal::NotHost(
                "only the host of this game may do that".into(),
            )),
        }
    }

    /// Answers a private table's request: an invite presented, or a host command. Ending
    /// the game is only authorized here: the gateway then closes the table as an operator
    /// does (`Request::Close`), without holding the host's connection until the hand in
    /// progress ends.
    pub(super) async fn private_request(
        &mut self,
        player: PlayerId,
        name: String,
        ask: PrivateAsk,
        queue: Option<mpsc::Sender<Batch>>,
    ) -> Answer {
        let command: HostCommand = match ask {
            PrivateAsk::Join { invite } => return self.join_private(player, name, &invite, queue),
            PrivateAsk::Host(command) => command,
        };
        self.host_only(player)?;
        let Some(p) = self.private.as_mut() else {
            return Err(Refusal::Private("this table is not private".into()));
        };
        match p.command(command, self.table.rules())? {
            Commanded::Changed => {}
            Commanded::Removed(player_id) => {
                // Told why first: what follows (their hand folded, the cash-out) is the
                // host's doing, not theirs.
                let host_name = self.private_view().map(|p| p.host_name).unwrap_or_default();
                self.audience.send_to(
                    player_id,
                    ServerMsg::Removed {
                        table_id: self.table_id,
                        host_name,
                    },
                );
                self.leave_waitlist(player_id);
                if self.seat_of(player_id).is_some() {
                    // As if they left: a hand they are in is dead (folded when asked),
                    // and they are cashed out when it ends.
                    let outcome = self.seat_request(player_id, SeatRequest::Leave).await?;
                    if !outcome.pending {
                        self.audience.answer_to(
                            player_id,
                            ServerMsg::Done {
                                table_id: self.table_id,
                                request: "leave".into(),
                                amount: outcome.amount,
                                pending: false,
                            },
                        );
                    }
                }
                tracing::info!(player_id = %player_id, "removed by the host of a private table");
            }
            Commanded::End => return Ok(Reply::Ok),
            Commanded::Adjust { player_id, amount } => {
                self.adjust_stack(player_id, amount).await?;
            }
            Commanded::BombPot(big_blinds) => {
                self.table
                    .call_bomb_pot(big_blinds)
                    .map_err(|e| Refusal::Illegal(e.to_string()))?;
                tracing::info!(big_blinds, "the host called a bomb pot");
            }
        }
        self.seats_changed();
        Ok(Reply::Ok)
    }

    /// The host adjusts a seated player's stack by `amount` chips (never zero): in a
    /// play-money room only (`play_money_only`: real money never comes from nothing), not
    /// while the table closes, only a seated player's, not during a hand they are in
    /// (`in_hand`, R37), and to a stack from 0 to a hundred maximum buy-ins (and
    /// `MAX_CHIPS`). The chips move first in the store, in one transaction with their
    /// ledger rows (minted from the house's play money or returned to it), then in the
    /// table; everyone at the table is told, and shown the new stack.
    async fn adjust_stack(&mut self, player_id: PlayerId, amount: i64) -> Result<(), Refusal> {
        if !self.ctx.play_money {
            return Err(Refusal::PlayMoneyOnly(
                "only a play-money room lets a host change a stack".into(),
            ));
        }
        if self.life.is_closing() || self.life.is_closed() {
            return Err(Refusal::TableGone);
        }
        let Some(seat) = self.seat_of(player_id) else {
            return Err(Refusal::Seat("that player is not seated here".into()));
        };
        if self.in_hand(player_id) {
            return Err(Refusal::InHand(
                "that player is in the hand being played: adjust the stack once it ends".into(),
            ));
        }
        let stack = self.table.seats()[seat].as_ref().expect("seated").stack;
        let bound = self
            .table
            .rules()
            .max_buy_in
            .saturating_mul(MAX_ADJUSTED_BUY_INS)
            .min(poker_rules::MAX_CHIPS);
        let after = i128::from(stack) + i128::from(amount);
        if after < 0 {
            return Err(Refusal::Illegal(format!(
                "the stack is {stack}: at most {stack} chips can be taken off"
            )));
        }
        if after > i128::from(bound) {
            return Err(Refusal::Illegal(format!(
                "a stack may be adjusted to at most {bound} chips (now {stack})"
            )));
        }
        // The table first (it refuses a seat in a hand being dealt), then the money; the
        // table is put back if the store refuses.
        let after = after as Chips;
        self.table.set_stack(seat, after).map_err(|e| match e {
            poker_rules::table::TableError::InHand => Refusal::InHand(
                "that player is in the hand being played: adjust the stack once it ends".into(),
            ),
            e => Refusal::Illegal(e.to_string()),
        })?;
        let host = self.private.as_ref().map(|p| p.spec().host);
        let reference = format!("host:{}", host.map(|h| h.to_string()).unwrap_or_default());
        let adjusted = self
            .ctx
            .store
            .adjust_stack(self.table_id, player_id, amount, &reference, self.ctx.fence)
            .await;
        let refused = match adjusted {
            Ok(now) if now == after => None,
            Ok(now) => {
                // The store is the truth of a stack: the table follows it.
                tracing::error!("a stack adjusted to {now} in the store, {after} at the table");
                let _ = self.table.set_stack(seat, now);
                None
            }
            Err(e) if self.lost_table(&e) => Some(Refusal::Moving),
            Err(poker_store::StoreError::RoomFull { .. }) => Some(Refusal::Illegal(
                "the room holds as many chips as it may: give fewer".into(),
            )),
            Err(e) => {
                tracing::error!("cannot adjust a stack: {e}");
                Some(Refusal::Internal("the stack could not be changed".into()))
            }
        };
        if let Some(refusal) = refused {
            let _ = self.table.set_stack(seat, stack);
            return Err(refusal);
        }
        let now = self.table.seats()[seat].as_ref().map_or(after, |o| o.stack);
        if stack == 0 && now > 0 {
            // A player who lost every chip was sat out by the table; chips from the host
            // bring them back in, posting what they owe (as a top-up does).
            let _ = self.table.sit_in(seat, Entry::PostNow);
        }
        let name = self
            .book
            .get(player_id)
            .map(|i| i.name().to_string())
            .unwrap_or_default();
        let host_name = self.private_view().map(|p| p.host_name).unwrap_or_default();
        self.audience.send_all(&ServerMsg::StackAdjusted {
            table_id: self.table_id,
            player_id,
            name,
            host_name,
            amount,
            stack: now,
        });
        tracing::info!(player_id = %player_id, amount, stack = now, "stack adjusted by the host");
        Ok(())
    }

    /// A player presents the invite: admitted to watch (subscribed with a snapshot), and
    /// asking for a seat unless the host, already let in or seated.
    fn join_private(
        &mut self,
        player: PlayerId,
        name: String,
        invite: &str,
        queue: Option<mpsc::Sender<Batch>>,
    ) -> Answer {
        let seated = self.seat_of(player).is_some();
        let p = self
            .private
            .as_mut()
            .ok_or_else(|| Refusal::Private("this table is not a private game".into()))?;
        let asks = p.join(player, name, invite, seated)?;
        if let Some(queue) = queue {
            let snapshot = self.snapshot(Some(player));
            self.audience.add(Some(player), queue, snapshot);
        }
        if asks {
            self.seats_changed();
        }
        Ok(Reply::Ok)
    }

    /// Before a hand is dealt: false while the host has paused the game (no timer runs
    /// meanwhile; resuming deals at once); otherwise the blinds the host set apply now,
    /// saved with the table's configuration.
    pub(super) async fn private_before_deal(&mut self) -> bool {
        let Some(p) = self.private.as_mut() else {
            return true;
        };
        if p.paused() {
            // Until the host resumes (a command, which wakes the table).
            self.no_deal_times();
            return false;
        }
        let Some((small, big)) = p.take_blinds() else {
            return true;
        };
        let spec = p.spec().clone();
        let Some(rules) = with_blinds(self.table.rules(), small, big) else {
            tracing::warn!("the host's blinds {small}/{big} cannot apply: too large");
            return true;
        };
        if let Err(e) = self.table.set_rules(rules.clone()) {
            tracing::warn!("the host's blinds {small}/{big} cannot apply: {e}");
            return true;
        }
        let saved = TableSpec {
            rules,
            clock: *self.clock.rules(),
            chat: self.chat.rules(),
            rabbit_hunt: self.rabbit_hunt,
            private: Some(spec),
        };
        let config = serde_json::to_string(&saved).expect("rules serialize");
        if let Err(e) = self
            .ctx
            .store
            .set_table_config(self.table_id, &config)
            .await
        {
            tracing::error!("cannot save the new blinds: {e}");
        }
        tracing::info!("blinds {small}/{big} from this hand (the host's change)");
        self.seats_changed();
        true
    }
}
