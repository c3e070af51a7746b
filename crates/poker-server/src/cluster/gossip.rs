//! What the nodes tell each other besides requests: lobby changes, which nodes are up or
//! leaving, which tables were let go and which moved, NATS coming back, and sessions that
//! ended.

use super::subjects::{self, LobbyChange, Moved, NodeHeard, Released, SessionEnded};
use super::{lock, Cluster};
use crate::sessions::{SessionEnd, ACK_WAIT};
use crate::{AppState, Resubscribe};
use bytes::Bytes;
use futures_util::StreamExt;
use poker_protocol::TableSummary;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

impl Cluster {
    /// Sends this node's lobby changes to the others and applies theirs; tells the
    /// connections here about tables that moved, and to subscribe again to every table
    /// they follow when NATS comes back (what was sent meanwhile is lost).
    pub async fn start_gossip(
        self: &Arc<Cluster>,
        state: &Arc<AppState>,
        mut changes: mpsc::UnboundedReceiver<TableSummary>,
    ) -> anyhow::Result<()> {
        let mut lobby = self.nats.subscribe(subjects::LOBBY).await?;
        let mut hello = self.nats.subscribe(subjects::LOBBY_HELLO).await?;
        let mut moved = self.nats.subscribe(subjects::MOVED).await?;
        let mut nodes = self.nats.subscribe(subjects::NODE).await?;
        let mut released = self.nats.subscribe(subjects::RELEASED).await?;
        let mut alive = self.nats.subscribe(subjects::alive(&self.node)).await?;
        // Answered on its own, never behind the lobby: the heartbeat's own check of NATS
        // waits for it.
        let nats = self.nats.clone();
        tokio::spawn(async move {
            while let Some(message) = alive.next().await {
                if let Some(reply) = message.reply {
                    let _ = super::wire::publish(&nats, reply, Bytes::new()).await;
                }
            }
        });
        let weak = Arc::downgrade(state);
        let cluster = self.clone();
        let mut connected = self.connected.clone();
        connected.borrow_and_update();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    change = changes.recv() => {
                        let Some(summary) = change else { return };
                        cluster.tell_lobby(&summary).await;
                    }
                    Ok(()) = connected.changed() => {
                        let Some(state) = weak.upgrade() else { return };
                        // Back: the others' batches and moves sent meanwhile are lost, and
                        // this node's forwarders may have stopped.
                        tracing::info!("NATS is back: every connection here subscribes again");
                        cluster.unsettle();
                        let _ = state.moved.send(Resubscribe::All);
                        // Sessions ended meanwhile were told to no one here: ask the store,
                        // once a round trip through NATS has shown this node's
                        // subscriptions back (the client resubscribes after saying it is
                        // connected), so that an end told after the store's answer reaches
                        // it.
                        let (checking, through) = (state.clone(), cluster.clone());
                        tokio::spawn(async move {
                            through.nats_up().await;
                            checking.recheck_sessions("this node was cut off from NATS").await
                        });
                        let _ = super::wire::publish(&cluster.nats, subjects::LOBBY_HELLO, Bytes::new()).await;
                    }
                    Some(message) = lobby.next() => {
                        let Some(state) = weak.upgrade() else { return };
                        if let Ok(change) = serde_json::from_slice::<LobbyChange>(&message.payload) {
                            if change.node != cluster.node {
                                state.lobby.apply(change.summary.table_id, change.summary);
                            }
                        }
                    }
                    Some(_) = hello.next() => {
                        let Some(state) = weak.upgrade() else { return };
                        // A node that is back (or new) may have told ends while cut off
                        // that never reached this one (sent into a connection that had
                        // died without a word): ask the store.
                        let checking = state.clone();
                        tokio::spawn(async move {
                            checking
                                .recheck_sessions("another node is back on NATS, or new")
                                .await
                        });
                        for summary in state.lobby.list() {
                            if state.tables.token(summary.table_id).is_some() {
                                cluster.tell_lobby(&summary).await;
                            }
                        }
                    }
                    Some(message) = moved.next() => {
                        let Some(state) = weak.upgrade() else { return };
                        let Ok(Moved { node, table }) = serde_json::from_slice(&message.payload) else {
                            continue;
                        };
                        if node != cluster.node && state.tables.token(table).is_some() {
                            // Another node took a table this one still runs: its lease
                            // was lost (the fence would refuse its next hand anyway).
                            tracing::warn!("table {table}: now owned by {node}; stopping it here");
                            state.tables.lost(table).await;
                        }
                        let _ = state.moved.send(Resubscribe::Table(table));
                    }
                    Some(message) = nodes.next() => {
                        let Ok(NodeHeard { node, up, wire }) = serde_json::from_slice(&message.payload) else {
                            continue;
                        };
                        if node == cluster.node {
                            continue;
                        }
                        cluster.heard_wire(&node, up, wire);
                        let mut peers = lock(&cluster.peers);
                        let mut departing = lock(&cluster.departing);
                        if up {
                            departing.remove(&node);
                            peers.insert(node, tokio::time::Instant::now());
                        } else {
                            peers.remove(&node);
                            departing.insert(node);
                        }
                    }
                    Some(message) = released.next() => {
                        let Ok(Released { node, table }) = serde_json::from_slice(&message.payload) else {
                            continue;
                        };
                        if node != cluster.node {
                            tracing::info!("table {table}: let go by {node}; taking a share now");
                            cluster.nudge.notify_one();
                        }
                    }
                    else => return,
                }
            }
        });
        self.answer_session_ends(state).await?;
        // The others' tables, for this node's lobby.
        super::wire::publish(&self.nats, subjects::LOBBY_HELLO, Bytes::new()).await?;
        Ok(())
    }

    /// Ends, here, the sessions other nodes say ended, answering each once done.
    async fn answer_session_ends(self: &Arc<Cluster>, state: &Arc<AppState>) -> anyhow::Result<()> {
        let mut ended = self.nats.subscribe(subjects::SESSION_ENDED).await?;
        let weak = Arc::downgrade(state);
        let cluster = self.clone();
        tokio::spawn(async move {
            while let Some(message) = ended.next().await {
                let Some(state) = weak.upgrade() else { return };
                let told = match serde_json::from_slice::<SessionEnded>(&message.payload) {
                    Ok(told) => told,
                    Err(e) => {
                        tracing::error!("an unreadable session end: {e}");
                        continue;
                    }
                };
                if told.node == cluster.node {
                    continue;
                }
                let nats = cluster.nats.clone();
                tokio::spawn(async move {
                    state.sessions.end_here(&told.end).await;
                    if let Some(reply) = message.reply {
                        let _ = super::wire::publish(&nats, reply, Bytes::new()).await;
                    }
                });
            }
        });
        Ok(())
    }

    /// Tells every other node that sessions ended, and waits (at most [`ACK_WAIT`]) until
    /// each live one (heard within a lease's lifetime) answers that its connections of them
    /// have stopped.
    pub(crate) async fn end_sessions(&self, end: &SessionEnd) {
        let lifetime = Duration::from_millis(self.lease_ms);
        let others = lock(&self.peers)
            .values()
            .filter(|heard| heard.elapsed() <= lifetime)
            .count();
        let inbox = self.nats.new_inbox();
        let mut answers = match self.nats.subscribe(inbox.clone()).await {
            Ok(answers) => Some(answers),
            Err(e) => {
                tracing::warn!("cannot wait for the nodes to end sessions: {e}");
                None
            }
        };
        let told = SessionEnded {
            node: self.node.clone(),
            end: end.clone(),
        };
        if let Err(e) = self
            .nats
            .publish_with_reply_and_headers(
                subjects::SESSION_ENDED,
                inbox,
                super::wire::headers(),
                subjects::json(&told),
            )
            .await
        {
            tracing::warn!("cannot tell the other nodes that sessions ended: {e}");
            return;
        }
        if let Some(answers) = &mut answers {
            let all = async {
                for _ in 0..others {
                    if answers.next().await.is_none() {
                        break;
                    }
                }
            };
            if tokio::time::timeout(ACK_WAIT, all).await.is_err() {
                tracing::warn!("a node did not say in time that it ended sessions");
            }
        }
    }

    /// Notes the format version a node speaks (its heartbeat says it): a node of another
    /// release is logged when first heard, and counted on `/metrics` while it is up, so an
    /// operator sees a rolling upgrade's progress.
    fn heard_wire(&self, node: &str, up: bool, wire: u32) {
        if node == self.node {
            return;
        }
        {
            let mut wires = lock(&self.peer_wires);
            let before = wires.get(node).map(|(w, _)| *w);
            if up {
                wires.insert(node.to_string(), (wire, tokio::time::Instant::now()));
            } else {
                wires.remove(node);
            }
            if up && before != Some(wire) && wire != super::wire::WIRE_VERSION {
                tracing::info!(
                    "node {node} speaks the node-to-node format {wire}, this one {}: nodes of \
                     two releases run side by side (a rolling upgrade)",
                    super::wire::WIRE_VERSION
                );
            }
        }
        self.count_other_releases();
    }

    /// Counts, on `/metrics`, the nodes of another release heard within a lease's
    /// lifetime: one that stopped without saying so (killed, or a release that says it
    /// leaves once) is no longer counted once that long has passed. Run on every heartbeat
    /// heard and on this node's own.
    pub(super) fn count_other_releases(&self) {
        let lifetime = Duration::from_millis(self.lease_ms);
        let mut wires = lock(&self.peer_wires);
        wires.retain(|_, (_, heard)| heard.elapsed() <= lifetime);
        let other = wires
            .values()
            .filter(|(w, _)| *w != super::wire::WIRE_VERSION)
            .count();
        self.metrics
            .nodes_of_another_release
            .store(other as i64, std::sync::atomic::Ordering::Relaxed);
    }

    async fn tell_lobby(&self, summary: &TableSummary) {
        let change = LobbyChange {
            node: self.node.clone(),
            summary: summary.clone(),
        };
        let _ = super::wire::publish(&self.nats, subjects::LOBBY, subjects::json(&change)).await;
    }
}
