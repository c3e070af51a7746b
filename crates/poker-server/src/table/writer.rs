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
                    save(&persister, writes).await;
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

/// Saves one gathering of writes in one transaction; if that is refused, each write alone,
/// in order, so that one write the store refuses costs only itself. A player's sit-out
/// flag may reach the store after their cash-out took the seat away (the money path does
/// not wait for this queue): that write is refused (`NotSeated`) and, gathered with the
/// table's state, took the state with it.
async fn save(persister: &PersisterHandle, writes: Vec<TableWrite>) {
    if writes.len() > 1 {
        if persister.save(writes.clone()).await.is_ok() {
            return;
        }
        for write in writes {
            save_one(persister, write).await;
        }
    } else if let Some(write) = writes.into_iter().next() {
        save_one(persister, write).await;
    }
}

/// Saves one write; a refusal is logged (a seat gone since is only a warning).
async fn save_one(persister: &PersisterHandle, write: TableWrite) {
    match persister.save(vec![write]).await {
        Ok(()) => {}
        Err(poker_store::StoreError::NotSeated) => tracing::warn!(
            "a seat's sit-out or blinds owed not saved: the player is no longer seated here"
        ),
        Err(e) => {
            tracing::error!("cannot save the table's state, who sits out or the blinds owed: {e}")
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use poker_store::testing::TestSqlite;
    use poker_store::{Persister, SqlStore};
    use std::sync::Arc;

    /// A sit-out flag for a player whose seat is gone, gathered with the table's state and
    /// another player's blinds owed: the others are saved all the same.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_write_for_a_seat_gone_costs_only_itself_not_the_tables_state() {
        let db = TestSqlite::new();
        let store = Arc::new(SqlStore::connect(&db.url).await.unwrap());
        let table = store.create_table("t", "{}").await.unwrap();
        let (seated, gone) = (
            store.create_player("seated", "x").await.unwrap(),
            store.create_player("gone", "x").await.unwrap(),
        );
        store.deposit(seated, 100, None).await.unwrap();
        store
            .buy_in(table, 0, seated, 100, None, None)
            .await
            .unwrap();
        let persister = Persister::spawn(store.clone(), 64);
        let mut writer = Writer::spawn(persister, table, tracing::Span::none());
        writer.send(Write::TableState(r#"{"button":3}"#.into()));
        writer.send(Write::SittingOut {
            player: gone,
            out: true,
        });
        writer.send(Write::MissedBlinds {
            player: seated,
            small: true,
            big: false,
        });
        writer.flush().await;
        assert_eq!(
            store.table_state(table).await.unwrap().as_deref(),
            Some(r#"{"button":3}"#)
        );
        assert_eq!(
            store.missed_blinds(table, seated).await.unwrap(),
            (true, false)
        );
    }
}
