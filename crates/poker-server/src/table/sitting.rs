//! Sitting down off the actor's loop. A sit's store work (reading the player's rathole
//! record, then the buy-in through the persister, group-committed with the other tables'
//! sits) runs in a task of its own while the table goes on answering its players; the seat
//! is held meanwhile (nobody else may take it, and the player is not dealt in), and the
//! player takes it when the buy-in is durable, as a finished hand's result is shown only
//! once its commit is. A room opening thousands of tables at once so never has a table
//! wait for the whole room's buy-ins before answering an action.
//!
//! Money moves only in the buy-in's transaction, with its ledger rows. A table that is
//! asked to close or drain waits for its pending sits to be answered first, so that a
//! buy-in made durable is always seated and then cashed out like any other seat; one that
//! loses its lease to another node leaves the durable seat in the store, where the new
//! owner finds it.

use super::actor::*;
use super::*;
use poker_rules::table::{Entry, Rathole};
use poker_rules::Chips;
use poker_store::{BuyIn, PlayerId, RatholeRow, StoreError};
use std::collections::HashMap;
use tokio::sync::{mpsc, oneshot};
use tracing::Instrument;

/// A sit under way: what was asked, and what answers it.
pub(super) struct Sit {
    pub(super) player: PlayerId,
    pub(super) name: String,
    pub(super) seat: u32,
    pub(super) buy_in: Chips,
    pub(super) entry: Entry,
    /// The bucket label of the address the player sits down from.
    pub(super) address: Option<String>,
    /// The players seated (or sitting down) from the same address when it was asked.
    pub(super) same: Vec<PlayerId>,
    /// The pairs this sit flagged under "flag" (let go again if the buy-in is refused).
    flagged: Vec<PlayerId>,
    /// The room's clock when it was asked: one moment for the range and the rules' check.
    pub(super) now: u64,
    /// The connection to subscribe once the player is seated.
    queue: Option<mpsc::Sender<Batch>>,
    respond_to: oneshot::Sender<Answer>,
    /// The player asked to leave before being seated: cashed out as soon as seated.
    leave: bool,
}

/// A step of a sit's store work, sent back to the actor.
pub(super) enum Step {
    /// The player's rathole record here (`None`: none), or why it could not be read.
    Rathole(Result<Option<RatholeRow>, StoreError>),
    /// The buy-in's outcome, with the rathole record its range was checked with.
    Bought(Result<(), StoreError>, Option<Rathole<PlayerId>>),
}

/// The table's sits under way, one per player at most.
pub(super) struct Sitting {
    pending: HashMap<PlayerId, Sit>,
    tx: mpsc::UnboundedSender<(PlayerId, Step)>,
    rx: mpsc::UnboundedReceiver<(PlayerId, Step)>,
}

impl Default for Sitting {
    fn default() -> Sitting {
        let (tx, rx) = mpsc::unbounded_channel();
        Sitting {
            pending: HashMap::new(),
            tx,
            rx,
        }
    }
}

impl Sitting {
    /// Whether any sit is under way (its step is then awaited by the actor's loop).
    pub(super) fn busy(&self) -> bool {
        !self.pending.is_empty()
    }

    /// How many sits are under way (each holds a seat).
    pub(super) fn count(&self) -> usize {
        self.pending.len()
    }

    /// Whether `seat` is held for a sit under way.
    pub(super) fn holds(&self, seat: u32) -> bool {
        self.pending.values().any(|s| s.seat == seat)
    }

    /// The seat held for `player`'s sit under way.
    pub(super) fn seat_of(&self, player: PlayerId) -> Option<u32> {
        self.pending.get(&player).map(|s| s.seat)
    }

    /// Whether `player` is sitting down here.
    pub(super) fn is_sitting(&self, player: PlayerId) -> bool {
        self.pending.contains_key(&player)
    }

    /// The players other than `player` sitting down from `address`.
    pub(super) fn sitting_from<'a>(
        &'a self,
        address: &'a str,
        player: PlayerId,
    ) -> impl Iterator<Item = PlayerId> + 'a {
        self.pending
            .values()
            .filter(move |s| s.player != player && s.address.as_deref() == Some(address))
            .map(|s| s.player)
    }

    /// The next step of a sit under way.
    pub(super) async fn next(&mut self) -> Option<(PlayerId, Step)> {
        self.rx.recv().await
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
            .waitlist_allows(player, seat)
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
        self.sitting.pending.insert(player, sit);
        let (store, table, tx) = (
            self.ctx.store.clone(),
            self.table_id,
            self.sitting.tx.clone(),
        );
        let read = async move {
            let row = store.rathole(table, player).await;
            let _ = tx.send((player, Step::Rathole(row)));
        };
        tokio::spawn(read.instrument(self.span.clone()));
        None
    }

    /// A player sitting down here asks to leave: they are cashed out as soon as seated
    /// (told `pending`, as a leave during a hand is). `None` if they are not sitting down.
    pub(super) fn leave_while_sitting(&mut self, player: PlayerId) -> Option<Outcome> {
        let sit = self.sitting.pending.get_mut(&player)?;
        sit.leave = true;
        Some(Outcome {
            amount: sit.buy_in,
            pending: true,
        })
    }

    /// Goes on with a sit after a step of its store work.
    pub(super) async fn on_sit_step(&mut self, player: PlayerId, step: Step) {
        match step {
            Step::Rathole(row) => {
                let Some(sit) = self.sitting.pending.get(&player) else {
                    return;
                };
                // A record that cannot be read is not taken for none: the rathole rule
                // would not hold. The sit is refused and may be asked again.
                let row = match row {
                    Ok(row) => row,
                    Err(e) => {
                        tracing::error!(%player, "cannot read a rathole record: {e}");
                        let refusal = Refusal::Seat(
                            "the buy-in range cannot be checked now; try again".into(),
                        );
                        self.sit_answered(player, Err(refusal));
                        return;
                    }
                };
                let (seat, amount, same) = (sit.seat, sit.buy_in, sit.same.clone());
                let address = sit.address.clone();
                let (range, rathole) = self.range_with(player, row, sit.now);
                if amount < range.min || amount > range.max {
                    let refusal = Refusal::Seat(super::seating::out_of_range(&range));
                    self.sit_answered(player, Err(refusal));
                    return;
                }
                let flagged = self.flag_pairs(player, &same);
                if let Some(sit) = self.sitting.pending.get_mut(&player) {
                    sit.flagged = flagged.clone();
                }
                let buy_in = BuyIn {
                    table: self.table_id,
                    seat_no: seat,
                    player,
                    amount,
                    fence: self.ctx.fence,
                };
                let (persister, store, table, tx) = (
                    self.ctx.persister.clone(),
                    self.ctx.store.clone(),
                    self.table_id,
                    self.sitting.tx.clone(),
                );
                // The money moves first, with its ledger rows, through the persister: in
                // one transaction with the other tables' buy-ins waiting (a room whose
                // tables all fill at once pays one disk flush per batch, not per sit),
                // answered once durable. The address is recorded next (a restart, or the
                // node that takes the table over, compares the next newcomers with it);
                // the seat stands if it cannot be written: that is logged.
                let work = async move {
                    let bought = persister.buy_in(buy_in).await;
                    if let (Ok(()), Some(address)) = (&bought, address) {
                        let now = poker_store::now_ms();
                        let recorded = store
                            .record_sit_address(table, player, &address, now, &flagged)
                            .await;
                        if let Err(e) = recorded {
                            tracing::error!("cannot record the address of a sit: {e}");
                        }
                    }
                    let _ = tx.send((player, Step::Bought(bought, rathole)));
                };
                tokio::spawn(work.instrument(self.span.clone()));
            }
            Step::Bought(bought, rathole) => {
                let refusal = match bought {
                    Ok(()) => return self.take_seat(player, rathole).await,
                    Err(StoreError::InsufficientFunds { balance }) => {
                        Refusal::Funds(format!("the balance is {balance}"))
                    }
                    Err(e) if self.lost_table(&e) => Refusal::Moving,
                    Err(e) => Refusal::Seat(e.to_string()),
                };
                if let Some(sit) = self.sitting.pending.get(&player) {
                    // A refused buy-in flags no pair: its player never sat down.
                    for other in sit.flagged.clone() {
                        self.flagged.remove(&(player.min(other), player.max(other)));
                    }
                }
                self.sit_answered(player, Err(refusal));
            }
        }
    }

    /// The buy-in is durable: the player takes the seat held for them, is answered,
    /// subscribed and shown; and cashed out at once if they asked to leave meanwhile.
    async fn take_seat(&mut self, player: PlayerId, rathole: Option<Rathole<PlayerId>>) {
        let Some(sit) = self.sitting.pending.remove(&player) else {
            return;
        };
        let result = self.seat_bought(&sit, rathole.as_ref());
        if result.is_ok() {
            self.waitlist_seated(player);
            // Subscribed only once seated: a refused sit leaves the connection as it was.
            if let Some(queue) = sit.queue {
                let snapshot = self.snapshot(Some(player));
                self.add_subscriber(Some(player), queue, snapshot);
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
        if let Some(sit) = self.sitting.pending.remove(&player) {
            let _ = sit.respond_to.send(answer.map(Reply::Done));
            // The held seat is free again: the waiting list may be offered it.
            self.seats_changed();
        }
    }
}
