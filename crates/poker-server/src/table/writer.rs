//! The table's background writer: every write that moves no money leaves the actor here,
//! so a slow database never holds up play.
//!
//! What it writes: the table's between-hands state (button, blinds owed, dead seats), who
//! sits out, and the blinds each player owes. The actor awaits only money (buy-ins,
//! cash-outs, finished hands through the persister) and the start of each hand, which must
//! be on disk before anyone sees a card so that a crash leaves the hand on record (voided
//! on restart, its number never reused).
//!
//! Writes land in the order the actor sent them (each gathering is handed to the persister,
//! which writes it in one transaction with other tables' writes, and awaited before the
//! next); of several table states waiting at once only the newest is written, so an older
//! state can never land after a newer one. Each
//! write has a generation; [`Writer::flush`] waits until everything sent so far is written
//! (a draining table answers only then, since the database closes right after).

use poker_store::{PersisterHandle, PlayerId, TableId, TableWrite};
use tokio::sync::{mpsc, watch};
use tracing::Instrument;

/// One write that moves no money.
#[derive(Debug)]
pub(super) enum Write {
    /// The table's state between hands (JSON).
    TableState(String),
    /// A player sits out (or comes back).
    SittingOut { player: PlayerId, out: bool },
    /// The blinds a player owes.
    MissedBlinds {
        player: PlayerId,
        small: bool,
        big: bool,
    },
}

/// The actor's end of its writer.
pub(super) struct Writer {
    queue: mpsc::UnboundedSender<(u64, Write)>,
    sent: u64,
    written: watch::Receiver<u64>,
    /// The table changed since its state was last handed to the writer.
    dirty: bool,
}

impl Writer {
    /// Starts the writer task of one table; it ends when the actor drops its end. Its
    /// writes go through the persister, in one transaction with other tables' writes.
    pub(super) fn spawn(
        persister: PersisterHandle,
        table_id: TableId,
        span: tracing::Span,
    ) -> Writer {
        let (queue, mut rx) = mpsc::unbounded_channel::<(u64, Write)>();
        let (written_tx, written) = watch::channel(0u64);
        tokio::spawn(
            async move {
                while let Some(first) = rx.recv().await {
                    let mut batch = vec![first];
                    while let Ok(next) = rx.try_recv() {
                        batch.push(next);
                    }
                    let newest_state = batch
                        .iter()
                        .rposition(|(_, w)| matches!(w, Write::TableState(_)));
                    let last = batch.last().map_or(0, |(g, _)| *g);
                    let writes: Vec<TableWrite> = batch
                        .into_iter()
                        .enumerate()
                        .filter(|(i, (_, w))| {
                            !matches!(w, Write::TableState(_)) || Some(*i) == newest_state
                        })
                        .map(|(_, (_, write))| write.into_store(table_id))
                        .collect();
                    if let Err(e) = persister.save(writes).await {
                        tracing::error!(
                            "cannot save the table's state, who sits out or the blinds owed: {e}"
                        );
                    }
                    let _ = written_tx.send(last);
                }
            }
            .instrument(span),
        );
        Writer {
            queue,
            sent: 0,
            written,
            dirty: false,
        }
    }

    /// The table changed: its state is to be written again between hands.
    pub(super) fn table_changed(&mut self) {
        self.dirty = true;
    }

    /// Whether the table changed since its state was last handed over.
    pub(super) fn table_dirty(&self) -> bool {
        self.dirty
    }

    /// The table's state as it is now was handed to the writer.
    pub(super) fn table_saved(&mut self) {
        self.dirty = false;
    }

    /// Queues a write; never waits.
    pub(super) fn send(&mut self, write: Write) {
        self.sent += 1;
        if self.queue.send((self.sent, write)).is_err() {
            tracing::error!("the table's writer has stopped");
        }
    }

    /// Waits until every write sent so far is written (or failed and was logged).
    pub(super) async fn flush(&mut self) {
        let sent = self.sent;
        let _ = self.written.wait_for(|&g| g >= sent).await;
    }
}

impl Write {
    /// The store's form of the write.
    fn into_store(self, table: TableId) -> TableWrite {
        match self {
            Write::TableState(state) => TableWrite::State { table, state },
            Write::SittingOut { player, out } => TableWrite::SittingOut { table, player, out },
            Write::MissedBlinds { player, small, big } => TableWrite::MissedBlinds {
                table,
                player,
                small,
                big,
            },
        }
    }
}
