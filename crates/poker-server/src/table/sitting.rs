//! Sitting down off the actor's loop. A sit's store work (the buy-in through the
//! persister, group-committed with the other tables' sits; its range is checked first,
//! against the table's departures kept in memory) runs in a task of its own while the
//! table goes on answering its players; the seat is held meanwhile (nobody else may take
//! it, and the player is not dealt in), and the player takes it when the buy-in is
//! durable, as a finished hand's result is shown only once its commit is. A room opening
//! thousands of tables at once so never has a table wait for the whole room's buy-ins
//! before answering an action.
//!
//! Money moves only in the buy-in's transaction, with its ledger rows. A table that is
//! asked to close or drain waits for its pending sits to be answered first, so that a
//! buy-in made durable is always seated and then cashed out like any other seat; one that
//! loses its lease to another node leaves the durable seat in the store, where the new
//! owner finds it.

use super::*;
use poker_rules::table::{Entry, Rathole};
use poker_rules::Chips;
use poker_store::{PlayerId, StoreError};
use std::collections::HashMap;
use tokio::sync::{mpsc, oneshot};

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
    pub(super) flagged: Vec<PlayerId>,
    /// The room's clock when it was asked: one moment for the range and the rules' check.
    pub(super) now: u64,
    /// The connection to subscribe once the player is seated.
    pub(super) queue: Option<mpsc::Sender<Batch>>,
    pub(super) respond_to: oneshot::Sender<Answer>,
    /// The player asked to leave before being seated: cashed out as soon as seated.
    pub(super) leave: bool,
}

/// A step of a sit's store work, sent back to the actor.
pub(super) enum Step {
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

    /// Holds the seat of a sit whose store work starts now.
    pub(super) fn hold(&mut self, sit: Sit) {
        self.pending.insert(sit.player, sit);
    }

    /// Where a sit's store work sends its steps.
    pub(super) fn steps(&self) -> mpsc::UnboundedSender<(PlayerId, Step)> {
        self.tx.clone()
    }

    /// `player`'s sit under way.
    pub(super) fn get(&self, player: PlayerId) -> Option<&Sit> {
        self.pending.get(&player)
    }

    /// The pairs `player`'s sit flagged (let go again if its buy-in is refused).
    pub(super) fn flagged(&mut self, player: PlayerId, flagged: Vec<PlayerId>) {
        if let Some(sit) = self.pending.get_mut(&player) {
            sit.flagged = flagged;
        }
    }

    /// `player`'s sit ends (seated or not): the seat held for it is let go.
    pub(super) fn take(&mut self, player: PlayerId) -> Option<Sit> {
        self.pending.remove(&player)
    }

    /// A player sitting down here asks to leave: they are cashed out as soon as seated
    /// (told `pending`, as a leave during a hand is). `None` if they are not sitting down.
    pub(super) fn leave(&mut self, player: PlayerId) -> Option<Outcome> {
        let sit = self.pending.get_mut(&player)?;
        sit.leave = true;
        Some(Outcome {
            amount: sit.buy_in,
            pending: true,
        })
    }
}
