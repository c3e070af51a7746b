//! Which tables run here: the one owner of each table's life on this node.
//!
//! An entry is a table whose actor runs in this process, with, among several nodes, the
//! lease it runs under (its fencing token, the watch that tells the actor until when it may
//! act, the task answering other nodes' requests for it) and whether it is being handed
//! over. A table without an entry runs elsewhere (another node owns it, or nobody does for
//! a moment: then it is moving). Opening, taking over, handing over, closing and letting go
//! are this type's methods, and nothing else touches the entries; the cluster (leases, RPC)
//! calls them, never the reverse.

use crate::table::{self, Command, Refusal, TableContext, TableHandle, TableSpec};
use crate::AppState;
use poker_rules::Chips;
use poker_store::TableId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::AbortHandle;
use tokio::time::Instant;

/// The tables whose actors run on this node.
pub struct Registry {
    entries: Mutex<HashMap<TableId, Entry>>,
    /// Held while a table is being opened here, so a table is never opened twice.
    opening: tokio::sync::Mutex<()>,
    /// Among several nodes (a stopped actor means the table is moving, not gone).
    among_nodes: bool,
}

/// A table running here.
struct Entry {
    handle: TableHandle,
    lease: Option<Held>,
}

/// The lease a table runs under, among several nodes.
struct Held {
    token: u64,
    /// Until when the actor may act (by this process's clock): a little less than the
    /// lease's lifetime after its last renewal began. Dropped when the table is let go,
    /// which stops an actor waiting for a renewal.
    valid: watch::Sender<Instant>,
    /// The task answering the other nodes' requests for the table.
    serving: Option<AbortHandle>,
    /// Being handed over (over this node's fair share): draining, then let go.
    shedding: bool,
}

/// How a table was handed over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandedOver {
    /// Between two hands: its hand in progress finished and committed first.
    Drained,
    /// Its hand was still running at the deadline: cut, for the next owner to void.
    Cut,
}

/// What letting a table go hands back: its actor's handle and its lease token.
pub struct LetGo {
    /// The actor (still running: the caller stops it as the case needs).
    pub handle: TableHandle,
    /// The lease's token, among several nodes.
    pub token: Option<u64>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Registry {
    /// An empty registry; `among_nodes` when this node is one of several.
    pub fn new(among_nodes: bool) -> Registry {
        Registry {
            entries: Mutex::new(HashMap::new()),
            opening: tokio::sync::Mutex::new(()),
            among_nodes,
        }
    }

    /// The handle of a table running here (`None`: another node owns it, or it is
    /// moving between nodes).
    pub fn get(&self, table: TableId) -> Option<TableHandle> {
        lock(&self.entries).get(&table).map(|e| e.handle.clone())
    }

    /// Every table running here, with its handle.
    pub fn handles(&self) -> Vec<(TableId, TableHandle)> {
        lock(&self.entries)
            .iter()
            .map(|(id, e)| (*id, e.handle.clone()))
            .collect()
    }

    /// The lease token of a table this node owns among several.
    pub fn token(&self, table: TableId) -> Option<u64> {
        lock(&self.entries)
            .get(&table)
            .and_then(|e| e.lease.as_ref())
            .map(|l| l.token)
    }

    /// The leases this node holds: each table with its token.
    pub fn leases(&self) -> Vec<(TableId, u64)> {
        lock(&self.entries)
            .iter()
            .filter_map(|(id, e)| e.lease.as_ref().map(|l| (*id, l.token)))
            .collect()
    }

    /// The lease of `table` (under `token`) holds until `until`: its actor may act until
    /// then.
    pub fn renewed(&self, table: TableId, token: u64, until: Instant) {
        if let Some(lease) = lock(&self.entries)
            .get(&table)
            .and_then(|e| e.lease.as_ref())
            .filter(|l| l.token == token)
        {
            let _ = lease.valid.send(until);
        }
    }

    /// How many tables this node holds, and how many of them it is handing over.
    pub fn counts(&self) -> (usize, usize) {
        let entries = lock(&self.entries);
        let shedding = entries
            .values()
            .filter(|e| e.lease.as_ref().is_some_and(|l| l.shedding))
            .count();
        (entries.len(), shedding)
    }

    /// Picks a table to hand over (one not being handed over already) and marks it so.
    pub fn pick_to_shed(&self) -> Option<(TableId, u64)> {
        use rand::seq::IteratorRandom;
        let mut entries = lock(&self.entries);
        let (table, entry) = entries
            .iter_mut()
            .filter(|(_, e)| e.lease.as_ref().is_some_and(|l| !l.shedding))
            .choose(&mut rand::thread_rng())?;
        let lease = entry.lease.as_mut()?;
        lease.shedding = true;
        Some((*table, lease.token))
    }

    /// Opens a table from its stored configuration, with no lease (one process owns every
    /// table).
    pub async fn open(
        &self,
        state: &Arc<AppState>,
        table: TableId,
        name: &str,
        config: &str,
    ) -> anyhow::Result<()> {
        let _opening = self.opening.lock().await;
        if lock(&self.entries).contains_key(&table) {
            return Ok(());
        }
        self.start(state, table, name, config, None).await
    }

    /// Takes a table's lease for `node` and opens it here under it, if the lease can be
    /// had: `None` if it is open here already or another node holds it. Taking over a
    /// table another node left, the hand it cut is void first (stacks as it began).
    /// `hold` is how long after a renewal began the actor may act on it.
    pub async fn take_over(
        &self,
        state: &Arc<AppState>,
        table: TableId,
        node: &str,
        lease_ms: u64,
        hold: Duration,
        void_cut_hand: bool,
    ) -> anyhow::Result<Option<u64>> {
        let _opening = self.opening.lock().await;
        if lock(&self.entries).contains_key(&table) {
            return Ok(None);
        }
        let row = state.store.table(table).await?;
        if row.status != poker_store::TableStatus::Open {
            return Ok(None);
        }
        let asked = Instant::now();
        let Some(token) = state
            .store
            .acquire_lease(table, node, lease_ms as i64)
            .await?
        else {
            tracing::info!("table {table} is open on another node");
            return Ok(None);
        };
        if void_cut_hand {
            let void = state.store.void_hands(table).await?;
            state
                .metrics
                .hands_voided
                .fetch_add(void.len() as u64, std::sync::atomic::Ordering::Relaxed);
            tracing::info!(
                "table {table}: taken over with lease token {token}; {} cut hand(s) void",
                void.len()
            );
        }
        let valid = watch::channel(asked + hold).0;
        if let Err(e) = self
            .start(state, table, &row.name, &row.config, Some((token, valid)))
            .await
        {
            let _ = state.store.release_lease(table, node, token).await;
            return Err(e);
        }
        Ok(Some(token))
    }

    /// Starts a table's actor and enters it.
    async fn start(
        &self,
        state: &Arc<AppState>,
        table: TableId,
        name: &str,
        config: &str,
        lease: Option<(u64, watch::Sender<Instant>)>,
    ) -> anyhow::Result<()> {
        let spec: TableSpec = serde_json::from_str(config)?;
        let context = TableContext {
            store: state.store.clone(),
            persister: state.persister.clone(),
            lobby: state.lobby.clone(),
            metrics: state.metrics.clone(),
            fence: lease.as_ref().map(|(token, _)| *token),
            lease: lease.as_ref().map(|(_, valid)| valid.subscribe()),
            coalesce: Duration::from_millis(state.config.server.coalesce_ms),
            same_address: state.config.same_address_seating(),
            clock: state.clock,
            play_money: state.config.play_money(),
        };
        let mut handle = table::spawn(table, name.to_string(), spec, context).await?;
        if self.among_nodes {
            handle = handle.among_nodes();
        }
        let lease = lease.map(|(token, valid)| Held {
            token,
            valid,
            serving: None,
            shedding: false,
        });
        lock(&self.entries).insert(table, Entry { handle, lease });
        Ok(())
    }

    /// Notes the task answering other nodes' requests for a table held under `token`;
    /// false (and the task is stopped) if the table is no longer held so.
    pub fn serving(&self, table: TableId, token: u64, task: AbortHandle) -> bool {
        let mut entries = lock(&self.entries);
        match entries
            .get_mut(&table)
            .and_then(|e| e.lease.as_mut())
            .filter(|l| l.token == token)
        {
            Some(lease) => {
                if let Some(old) = lease.serving.replace(task) {
                    old.abort();
                }
                true
            }
            None => {
                task.abort();
                false
            }
        }
    }

    /// Removes a table from this node (under `token`, if given: not if it was opened
    /// again meanwhile): no request reaches it here any more and an actor waiting for a
    /// renewal stops. Its actor is handed back to be stopped as the case needs.
    pub fn let_go(&self, table: TableId, token: Option<u64>) -> Option<LetGo> {
        let mut entries = lock(&self.entries);
        let entry = entries.get(&table)?;
        if token.is_some() && entry.lease.as_ref().map(|l| l.token) != token {
            return None;
        }
        let entry = entries.remove(&table)?;
        let token = entry.lease.map(|lease| {
            if let Some(serving) = lease.serving {
                serving.abort();
            }
            lease.token
        });
        Some(LetGo {
            handle: entry.handle,
            token,
        })
    }

    /// Stops owning a table whose lease passed on (or that another node says it took):
    /// its actor stops at once, writing nothing.
    pub async fn lost(&self, table: TableId) -> bool {
        self.lost_under(table, None).await
    }

    /// [`Registry::lost`], only if the table is still held under `token` (not opened again
    /// meanwhile).
    pub async fn lost_under(&self, table: TableId, token: Option<u64>) -> bool {
        let Some(gone) = self.let_go(table, token) else {
            return false;
        };
        let _ = gone.handle.command(Command::Abandon).await;
        true
    }

    /// Closes a table: the hand in progress finishes, everyone is cashed out and the actor
    /// stops; a table of this node is then forgotten here and its lease let go (one closed
    /// through another node is forgotten by its owner, which this same call runs on when
    /// the request arrives there). The one way a table is closed: the admin API, a private
    /// game's host or janitor, and another node's request all come here. Returns the chips
    /// cashed out.
    pub async fn close(&self, state: &AppState, handle: &TableHandle) -> Result<Chips, Refusal> {
        let cashed_out = handle.try_close().await?;
        if handle.is_local() {
            let node = state.cluster.as_ref().map(|c| c.node.as_str());
            self.closed(state, handle.table_id, node).await;
        }
        Ok(cashed_out)
    }

    /// Hands a table over, as on shutdown or over a fair share: the hand in progress
    /// finishes and no new one is dealt (drain), the actor stops, then its lease is
    /// released, so the next owner finds no hand to void. A hand still running at
    /// `deadline` (a shutdown's grace period) is cut instead: the actor stops writing
    /// nothing and the lease is released all the same, so the next owner takes the table
    /// at once and voids that hand (stacks as it began). `None` if the table was let go
    /// meanwhile (or `token` is no longer its lease).
    pub async fn hand_over(
        &self,
        state: &AppState,
        table: TableId,
        node: &str,
        token: u64,
        deadline: Option<Instant>,
    ) -> Option<HandedOver> {
        let began = Instant::now();
        let handle = self.get(table)?;
        // The lease is renewed meanwhile, however long the hand takes.
        let how = match deadline {
            None => {
                handle.drain().await;
                HandedOver::Drained
            }
            Some(deadline) => match tokio::time::timeout_at(deadline, handle.drain()).await {
                Ok(()) => HandedOver::Drained,
                Err(_) => HandedOver::Cut,
            },
        };
        let gone = self.let_go(table, Some(token))?;
        stop(&gone.handle).await;
        match state.store.release_lease(table, node, token).await {
            Ok(()) => tracing::info!(
                "table {table}: handed over after {} ms draining{}",
                began.elapsed().as_millis(),
                match how {
                    HandedOver::Drained => "",
                    HandedOver::Cut => "; its hand still running is cut (the next owner voids it)",
                }
            ),
            Err(e) => tracing::warn!("table {table}: cannot release its lease: {e}"),
        }
        Some(how)
    }

    /// Forgets a table closed here (its actor has cashed everyone out and stopped),
    /// releasing its lease among several nodes.
    pub async fn closed(&self, state: &AppState, table: TableId, node: Option<&str>) {
        let Some(gone) = self.let_go(table, None) else {
            return;
        };
        if let (Some(node), Some(token)) = (node, gone.token) {
            if let Err(e) = state.store.release_lease(table, node, token).await {
                tracing::warn!("table {table}: cannot release its lease: {e}");
            }
        }
    }
}

/// Stops a table's actor and waits until it has (at most 10 s), before its lease is let go:
/// nothing it does can then land after another node has read the table from the store.
/// Nobody answers the second request: it returns once the actor has stopped.
async fn stop(handle: &TableHandle) {
    let _ = handle.command(Command::Abandon).await;
    let _ = tokio::time::timeout(Duration::from_secs(10), handle.inspect()).await;
}
