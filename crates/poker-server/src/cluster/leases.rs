//! Leases and placement: every heartbeat a node renews its leases (a table whose lease
//! passed on stops here at once), hands a table over when it holds more than its fair share,
//! and takes free tables up to its share. A table let go between hands (handed over, or by a
//! node leaving on shutdown) is said on `pokerd.released`, and the others take it at once
//! instead of at their next heartbeat; a node leaving no longer counts in their shares.
//!
//! An outage shorter than the lease changes no owner. A node cut off from NATS renews
//! nothing (nobody could reach its tables, so they must be free to move), and the database
//! refuses every renewal while it is down; either way the leases lapse by the database's
//! clock, but nobody took them, so their owner renews them (same token: the store allows
//! it) as soon as both are back, and its tables play on without a void. Meanwhile the others
//! leave them alone: a node takes nothing for two heartbeats after it starts or NATS comes
//! back (it first hears who is up), and a lapsed lease of a node still heard on NATS only
//! once that node has had a lease's lifetime to renew it.

use super::subjects::{self, NodeHeard, Released};
use super::{lock, Cluster};
use crate::registry::HandedOver;
use crate::AppState;
use bytes::Bytes;
use poker_store::{Lease, TableId};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::time::Instant;

/// A node's fair share of `tables` among `nodes` live nodes (rounded up).
pub(super) fn fair_share(tables: usize, nodes: usize) -> usize {
    tables.div_ceil(nodes.max(1))
}

impl Cluster {
    /// Renews this node's leases and takes free tables up to a fair share, every
    /// heartbeat, until the process ends.
    pub async fn run(self: Arc<Cluster>, state: Weak<AppState>) {
        let mut tick = tokio::time::interval(self.heartbeat);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            // Every heartbeat, and at once when another node let a table go.
            tokio::select! {
                _ = tick.tick() => {}
                () = self.nudge.notified() => {}
            }
            let Some(state) = state.upgrade() else { return };
            if *state.shutting_down.borrow() {
                return;
            }
            if let Err(e) = self.heartbeat(&state).await {
                tracing::warn!("lease heartbeat: {e:#}");
            }
        }
    }

    async fn heartbeat(self: &Arc<Cluster>, state: &Arc<AppState>) -> anyhow::Result<()> {
        // Cut off from NATS, a node renews nothing (nor takes anything): nobody can reach
        // its tables, so its leases must lapse for another node to take them.
        let up = self.nats_up().await;
        self.metrics
            .nats_connected
            .store(i64::from(up), Ordering::Relaxed);
        if !up {
            tracing::warn!("NATS is unreachable: no lease renewed or taken until it is back");
            self.unsettle();
            return Ok(());
        }
        self.announce().await;
        self.count_other_releases();
        // Each question to the database waits a heartbeat at most: while it is out, the
        // heartbeat goes on announcing this node (or the others would think it dead and
        // take its tables the moment the database is back), and a renewal that went
        // through unseen only lengthens this node's own lease.
        let patience = self.heartbeat;
        if tokio::time::timeout(patience, self.renew(state))
            .await
            .is_err()
        {
            tracing::warn!("cannot renew this node's leases: the database does not answer");
            return Ok(());
        }
        // Leaving, this node only renews what it still holds, until all of it is handed over.
        if self.leaving.load(Ordering::SeqCst) {
            return Ok(());
        }
        // A fair share: the open tables over the live nodes, this one included: those
        // holding live leases (by the database's clock: the nodes' clocks may disagree)
        // and those heard on NATS lately (a node that just started holds none yet). So
        // the survivors of a dead node split its tables, and a node that joins gets its
        // share handed over.
        let asked = async {
            let candidates = state.store.lease_candidates(&self.node).await?;
            let leases = state.store.leases().await?;
            anyhow::Ok((candidates, leases))
        };
        let Ok(read) = tokio::time::timeout(patience, asked).await else {
            anyhow::bail!("the database does not answer");
        };
        let (candidates, leases) = read?;
        let (nodes, silent) = self.live_nodes(&leases);
        if !silent.is_empty() {
            // A node gone silent without saying it leaves may have died between ending a
            // session in the store and telling the others: ask the store.
            let checking = state.clone();
            let why = format!("{} went silent without leaving", silent.join(", "));
            tokio::spawn(async move { checking.recheck_sessions(&why).await });
        }
        let live = leases.iter().filter(|l| l.live).count();
        let share = fair_share(live + candidates.len(), nodes.len());
        // Tables being handed over still count as this node's: it takes none in their
        // place, nor takes back what it has just let go.
        let (mine, shedding) = state.tables.counts();
        if mine.saturating_sub(shedding) > share {
            self.shed(state, mine, share);
        }
        let takeable = self.takeable(&candidates, &leases, &nodes);
        if takeable.is_empty() || Instant::now() < *lock(&self.settling) {
            return Ok(());
        }
        let mut takeable = takeable;
        use rand::seq::SliceRandom;
        takeable.shuffle(&mut rand::thread_rng());
        for table in takeable.into_iter().take(share.saturating_sub(mine)) {
            // Held by another node that did not let it go: the lease moves.
            let held_elsewhere = leases
                .iter()
                .any(|l| l.table_id == table && l.node != self.node && l.expires_at != 0);
            match self.take(state, table, true).await {
                Ok(true) if held_elsewhere => {
                    self.metrics.lease_takeovers.fetch_add(1, Ordering::Relaxed);
                }
                Ok(_) => {}
                Err(e) => tracing::warn!("table {table}: cannot take it over: {e:#}"),
            }
        }
        Ok(())
    }

    /// Renews every lease held here in one statement; a table whose lease passed on stops
    /// here at once (connections here follow it to its new owner).
    async fn renew(&self, state: &Arc<AppState>) {
        let held = state.tables.leases();
        if held.is_empty() {
            return;
        }
        let asked = Instant::now();
        match state
            .store
            .renew_leases(&self.node, &held, self.lease_ms as i64)
            .await
        {
            Ok(kept) => {
                for (table, token) in held {
                    if kept.binary_search(&table).is_ok() {
                        state.tables.renewed(table, token, asked + self.hold());
                    } else if state.tables.token(table) == Some(token) {
                        // (Not one let go, or opened again, meanwhile.)
                        tracing::warn!(
                            "table {table}: lease lost to another node; stopping it here"
                        );
                        state.tables.lost(table).await;
                        let _ = state.moved.send(crate::Resubscribe::Table(table));
                    }
                }
            }
            // Nothing renewed this time: the actors wait past their hold, and the fence
            // guards the rest.
            Err(e) => tracing::warn!("cannot renew this node's leases: {e}"),
        }
    }

    /// The candidates this node may take now: free and released tables at once; lapsed
    /// leases of nodes no longer heard at once; lapsed leases of live nodes only once this
    /// node has seen them lapsed for a lease's lifetime (their owner renews them after a
    /// short outage).
    fn takeable(&self, candidates: &[TableId], leases: &[Lease], nodes: &[String]) -> Vec<TableId> {
        let lifetime = Duration::from_millis(self.lease_ms);
        let now = Instant::now();
        let mut lapsed = lock(&self.lapsed);
        let candidate_set: HashSet<TableId> = candidates.iter().copied().collect();
        lapsed.retain(|t, _| candidate_set.contains(t));
        let leases: HashMap<TableId, &Lease> = leases.iter().map(|l| (l.table_id, l)).collect();
        candidates
            .iter()
            .copied()
            .filter(|table| {
                let Some(lease) = leases.get(table) else {
                    return true;
                };
                let released = lease.expires_at == 0;
                let owner_live = lease.node != self.node && nodes.contains(&lease.node);
                if released || !owner_live {
                    return true;
                }
                let seen = *lapsed.entry(*table).or_insert(now);
                now.duration_since(seen) >= lifetime
            })
            .collect()
    }

    /// Takes a table's lease and runs it here, answering the other nodes for it: whether
    /// it was had (not if another node holds it or it is open here already).
    pub(super) async fn take(
        self: &Arc<Cluster>,
        state: &Arc<AppState>,
        table: TableId,
        takeover: bool,
    ) -> anyhow::Result<bool> {
        // Leaving, this node takes nothing: the others will.
        if self.leaving.load(Ordering::SeqCst) {
            return Ok(false);
        }
        let Some(token) = state
            .tables
            .take_over(
                state,
                table,
                &self.node,
                self.lease_ms,
                self.hold(),
                takeover,
            )
            .await?
        else {
            return Ok(false);
        };
        if let Err(e) = self.serve(state, table, token).await {
            // Not reachable from the other nodes: stopped, and its lease let go.
            state.tables.lost_under(table, Some(token)).await;
            let _ = state.store.release_lease(table, &self.node, token).await;
            return Err(e);
        }
        Ok(true)
    }

    /// Opens a table an operator created (through this node): here if its lease can be
    /// had.
    pub async fn open(
        self: &Arc<Cluster>,
        state: &Arc<AppState>,
        table: TableId,
    ) -> anyhow::Result<()> {
        self.take(state, table, false).await.map(drop)
    }

    /// Whether NATS reaches this node now: the client is connected and a request to this
    /// node itself is answered within a heartbeat (a connection that broke without a word
    /// is noticed by the client only after missed pings, minutes later).
    pub(super) async fn nats_up(&self) -> bool {
        if self.nats.connection_state() != async_nats::connection::State::Connected {
            return false;
        }
        let ping = async_nats::Request::new()
            .headers(super::wire::headers())
            .payload(Bytes::new())
            .timeout(Some(self.heartbeat));
        self.nats
            .send_request(subjects::alive(&self.node), ping)
            .await
            .is_ok()
    }

    /// The live nodes, by name: those holding a live lease, those heard within a lease's
    /// lifetime, and this one; not those heard leaving (their tables are the others' to
    /// take as they come free). With them, the nodes heard before that went silent since
    /// the last call (dead, frozen, or cut off from NATS; a node leaving says so instead).
    fn live_nodes(&self, leases: &[Lease]) -> (Vec<String>, Vec<String>) {
        let lifetime = Duration::from_millis(self.lease_ms);
        let mut peers = lock(&self.peers);
        let mut silent = Vec::new();
        peers.retain(|node, heard| {
            let live = heard.elapsed() <= lifetime;
            if !live {
                silent.push(node.clone());
            }
            live
        });
        let mut nodes: Vec<String> = leases
            .iter()
            .filter(|l| l.live)
            .map(|l| l.node.clone())
            .chain(peers.keys().cloned())
            .chain([self.node.clone()])
            .collect();
        nodes.sort_unstable();
        nodes.dedup();
        // A node leaving is forgotten once it holds nothing: it is then counted nowhere.
        let mut departing = lock(&self.departing);
        departing.retain(|node| leases.iter().any(|l| l.live && l.node == *node));
        nodes.retain(|node| !departing.contains(node));
        (nodes, silent)
    }

    /// Over its fair share (strictly: a share is rounded up, so shares that add up to
    /// more than the tables never make nodes trade tables back and forth), this node
    /// hands one more table over, at most one per heartbeat.
    fn shed(self: &Arc<Cluster>, state: &Arc<AppState>, mine: usize, share: usize) {
        let Some((table, token)) = state.tables.pick_to_shed() else {
            return;
        };
        tracing::info!(
            "table {table}: {mine} tables here, over a fair share of {share}; handing it over"
        );
        let state = state.clone();
        let cluster = self.clone();
        tokio::spawn(async move {
            let handed = state
                .tables
                .hand_over(&state, table, &cluster.node, token, None)
                .await;
            if handed.is_some() {
                cluster.released(table).await;
            }
        });
    }

    /// Tells the other nodes whether this one is up (every heartbeat) or leaving (from
    /// the moment its shutdown begins); in order, whatever task says it.
    pub(super) async fn announce(&self) {
        let _in_order = self.announcing.lock().await;
        let heard = NodeHeard {
            node: self.node.clone(),
            up: !self.leaving.load(Ordering::SeqCst),
            wire: super::wire::WIRE_VERSION,
        };
        let _ = super::wire::publish(&self.nats, subjects::NODE, subjects::json(&heard)).await;
    }

    /// Tells the other nodes this one let a table go: they take it now.
    async fn released(&self, table: TableId) {
        let released = Released {
            node: self.node.clone(),
            table,
        };
        let _ =
            super::wire::publish(&self.nats, subjects::RELEASED, subjects::json(&released)).await;
    }

    /// Leaves the cluster on shutdown: says so (the others stop counting this node in
    /// their fair shares), takes nothing more, and hands each table over as soon as its
    /// own hand has ended, all at once: released, the others take it at once. A hand still
    /// running after `grace` is cut (the next owner voids it). Returns how many were cut.
    pub async fn leave(self: &Arc<Cluster>, state: &AppState, grace: Duration) -> usize {
        self.leaving.store(true, Ordering::SeqCst);
        self.announce().await;
        let deadline = Instant::now() + grace;
        let mut cut = 0;
        // Again while any is left: a table taken here just before the leaving began.
        loop {
            let held = state.tables.leases();
            if held.is_empty() {
                return cut;
            }
            let handed = held.into_iter().map(|(table, token)| async move {
                let how = state
                    .tables
                    .hand_over(state, table, &self.node, token, Some(deadline))
                    .await;
                if how.is_some() {
                    self.released(table).await;
                }
                how
            });
            cut += futures_util::future::join_all(handed)
                .await
                .into_iter()
                .filter(|how| *how == Some(HandedOver::Cut))
                .count();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fair_share_is_rounded_up_and_never_divides_by_zero() {
        assert_eq!(fair_share(12, 3), 4);
        assert_eq!(fair_share(13, 3), 5);
        assert_eq!(fair_share(5, 0), 5);
        assert_eq!(fair_share(0, 2), 0);
    }
}
