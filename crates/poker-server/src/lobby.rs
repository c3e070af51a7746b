//! The lobby: every table's summary, kept up to date by the table actors, and a broadcast
//! of changes for connections that asked for the lobby.

use poker_protocol::TableSummary;
use poker_store::TableId;
use std::collections::BTreeMap;
use std::sync::Mutex;
use tokio::sync::broadcast;

/// The tables as the lobby shows them.
pub struct Lobby {
    tables: Mutex<BTreeMap<TableId, TableSummary>>,
    updates: broadcast::Sender<TableSummary>,
}

impl Default for Lobby {
    fn default() -> Lobby {
        Lobby {
            tables: Mutex::new(BTreeMap::new()),
            updates: broadcast::channel(1024).0,
        }
    }
}

impl Lobby {
    /// Records a table's summary and tells the listeners if it changed.
    pub fn publish(&self, table: TableId, summary: TableSummary) {
        let mut tables = self.tables.lock().expect("lobby lock");
        if tables.get(&table) == Some(&summary) {
            return;
        }
        if summary.status == "closed" {
            tables.remove(&table);
        } else {
            tables.insert(table, summary.clone());
        }
        drop(tables);
        let _ = self.updates.send(summary);
    }

    /// Every table not closed.
    pub fn list(&self) -> Vec<TableSummary> {
        self.tables
            .lock()
            .expect("lobby lock")
            .values()
            .cloned()
            .collect()
    }

    /// Changes from now on (a listener too slow to keep up misses some and should list
    /// again).
    pub fn subscribe(&self) -> broadcast::Receiver<TableSummary> {
        self.updates.subscribe()
    }
}
