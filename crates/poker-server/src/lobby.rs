//! The lobby: every table's summary, kept up to date by the table actors, and a broadcast
//! of changes for connections that asked for the lobby. Private tables are kept here too
//! (the server closes them when empty) but never listed nor told to the lobby's listeners.

use poker_protocol::{TableStatus, TableSummary};
use poker_store::TableId;
use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::{broadcast, mpsc};

/// Changes of the averages alone (average pot, hands per hour) are told at most this
/// often per table; seats and status changes at once.
const AVERAGES_EVERY: Duration = Duration::from_secs(5);

/// The tables as the lobby shows them.
pub struct Lobby {
    tables: Mutex<BTreeMap<TableId, (TableSummary, Instant)>>,
    updates: broadcast::Sender<TableSummary>,
    /// Where this node's changes go to the other nodes (several nodes only).
    sink: OnceLock<mpsc::UnboundedSender<TableSummary>>,
}

impl Default for Lobby {
    fn default() -> Lobby {
        Lobby {
            tables: Mutex::new(BTreeMap::new()),
            updates: broadcast::channel(1024).0,
            sink: OnceLock::new(),
        }
    }
}

impl Lobby {
    /// Sends the changes of this node's tables on to the other nodes from now on.
    pub fn forward(&self) -> mpsc::UnboundedReceiver<TableSummary> {
        let (tx, rx) = mpsc::unbounded_channel();
        let _ = self.sink.set(tx);
        rx
    }

    /// Records a summary of one of this node's tables and tells the listeners (and the
    /// other nodes) if it changed; changes of the averages alone at most every few
    /// seconds.
    pub fn publish(&self, table: TableId, summary: TableSummary) {
        if self.apply(table, summary.clone()) {
            if let Some(sink) = self.sink.get() {
                let _ = sink.send(summary);
            }
        }
    }

    /// Records a table's summary (from this node or another) and tells the listeners if
    /// it changed; true if they were told.
    pub fn apply(&self, table: TableId, summary: TableSummary) -> bool {
        let mut tables = self.tables.lock().expect("lobby lock");
        let now = Instant::now();
        let tell = match tables.get(&table) {
            None => true,
            Some((old, _)) if *old == summary => return false,
            Some((old, told)) => {
                old.players != summary.players
                    || old.status != summary.status
                    || old.waiting != summary.waiting
                    || now.duration_since(*told) >= AVERAGES_EVERY
            }
        };
        if summary.status == TableStatus::Closed {
            tables.remove(&table);
        } else {
            let told = if tell {
                now
            } else {
                tables.get(&table).map_or(now, |(_, t)| *t)
            };
            tables.insert(table, (summary.clone(), told));
        }
        drop(tables);
        if tell && !summary.private {
            let _ = self.updates.send(summary);
        }
        tell
    }

    /// One table's summary, if it is not closed.
    pub fn get(&self, table: TableId) -> Option<TableSummary> {
        self.tables
            .lock()
            .expect("lobby lock")
            .get(&table)
            .map(|(s, _)| s.clone())
    }

    /// Every table not closed.
    pub fn list(&self) -> Vec<TableSummary> {
        let mut list: Vec<TableSummary> = self
            .tables
            .lock()
            .expect("lobby lock")
            .values()
            .filter(|(s, _)| !s.private)
            .map(|(s, _)| s.clone())
            .collect();
        // In the order players look for them: by name.
        list.sort_by(|a, b| a.name.cmp(&b.name).then(a.table_id.cmp(&b.table_id)));
        list
    }

    /// The private tables not closed, with how many players are seated at each.
    pub fn private_tables(&self) -> Vec<(TableId, u32)> {
        self.tables
            .lock()
            .expect("lobby lock")
            .iter()
            .filter(|(_, (s, _))| s.private)
            .map(|(id, (s, _))| (*id, s.players))
            .collect()
    }

    /// Changes from now on (a listener too slow to keep up misses some and should list
    /// again).
    pub fn subscribe(&self) -> broadcast::Receiver<TableSummary> {
        self.updates.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(players: u32, avg_pot: u64) -> TableSummary {
        TableSummary {
            table_id: TableId::new(),
            name: "T".into(),
            game: "NL Hold'em".into(),
            game_kind: poker_protocol::Game::Holdem,
            structure: poker_protocol::Structure::NoLimit,
            stakes: "1/2".into(),
            players,
            seats: 6,
            min_buy_in: 40,
            max_buy_in: 200,
            avg_pot,
            hands_per_hour: 0,
            status: TableStatus::Open,
            waiting: 0,
            private: false,
        }
    }

    #[test]
    fn seat_changes_are_told_at_once_and_averages_at_most_every_few_seconds() {
        let lobby = Lobby::default();
        let mut rx = lobby.subscribe();
        let id = TableId::new();
        lobby.publish(id, summary(1, 0));
        assert_eq!(rx.try_recv().unwrap().players, 1);
        lobby.publish(id, summary(1, 0));
        assert!(rx.try_recv().is_err(), "nothing changed");
        lobby.publish(id, summary(1, 30));
        assert!(rx.try_recv().is_err(), "an average alone waits");
        assert_eq!(lobby.list()[0].avg_pot, 30, "but the listing is current");
        lobby.publish(id, summary(2, 30));
        assert_eq!(rx.try_recv().unwrap().players, 2, "seats are told at once");
        let mut closed = summary(0, 30);
        closed.status = TableStatus::Closed;
        lobby.publish(id, closed);
        assert_eq!(rx.try_recv().unwrap().status, TableStatus::Closed);
        assert!(lobby.list().is_empty());
    }

    #[test]
    fn private_tables_are_neither_listed_nor_told() {
        let lobby = Lobby::default();
        let mut rx = lobby.subscribe();
        let id = TableId::new();
        let mut private = summary(1, 0);
        private.private = true;
        lobby.publish(id, private.clone());
        assert!(rx.try_recv().is_err(), "not told to the lobby's listeners");
        assert!(lobby.list().is_empty(), "not listed");
        assert_eq!(lobby.private_tables(), vec![(id, 1)]);
        assert_eq!(lobby.get(id).map(|s| s.players), Some(1), "but known");
        private.status = poker_protocol::TableStatus::Closed;
        lobby.publish(id, private);
        assert!(rx.try_recv().is_err());
        assert!(lobby.private_tables().is_empty());
    }
}
