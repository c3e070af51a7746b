//! Several `pokerd` nodes sharing one PostgreSQL, talking through NATS.
//!
//! Each table is owned by one node through a lease row (`table_lease`: node, fencing
//! token, expiry). The owner renews its leases every heartbeat; a node that stops (killed,
//! cut off) stops renewing, and once a lease has expired another node takes the table: it
//! voids the hand that was cut (stacks as it began), reseats everyone from the store and
//! tells every node that the table moved, so connections that had joined it subscribe
//! again and get a snapshot. Every finished hand carries its lease's token and the store
//! refuses it once the lease has passed on, so a stale owner never commits a hand. A node
//! renews only while NATS reaches it (else nobody could reach its tables), and a node over
//! its fair share hands a table over between two hands (drained, then released).
//!
//! Any node accepts any player. Commands for a table another node owns go to it as NATS
//! requests on `pokerd.table.<id>`; the owner answers each, and sends the table's messages
//! for a connection to that connection's inbox subject, one NATS message per batch. When
//! the connection ends its node says so on `<inbox>.gone` and the owner stops sending.
//! Lobby changes go to every node on `pokerd.lobby`. Sessions that ended (a logout, a
//! staff action) go to every node on `pokerd.session.ended`, and each answers once its
//! connections of them have stopped.
//!
//! Without `cluster.nats_url` none of this runs: one process owns every table.

use crate::sessions::{SessionEnd, ACK_WAIT};
use crate::table::{Batch, Command, Out, Outcome, Refusal, SeatRequest, TableHandle};
use crate::AppState;
use axum::extract::ws::Utf8Bytes;
use bytes::{BufMut, Bytes, BytesMut};
use futures_util::StreamExt;
use poker_protocol::{ServerMsg, TableSummary};
use poker_rules::table::Entry;
use poker_rules::{Action, Chips};
use poker_store::{PlayerId, Store, TableId, TableStatus};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::mpsc;

/// A command to a table on another node.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum RemoteCmd {
    Sit {
        player: PlayerId,
        name: String,
        seat: u32,
        buy_in: Chips,
        entry: Entry,
        inbox: Option<String>,
        /// The client's address bucket (fair play); absent from an older node's request.
        #[serde(default)]
        address: Option<std::net::IpAddr>,
    },
    Act {
        player: PlayerId,
        decision_id: u64,
        action: Action,
    },
    Seat {
        player: PlayerId,
        request: SeatRequest,
    },
    Chat {
        player: PlayerId,
        text: String,
    },
    Waitlist {
        player: PlayerId,
        join: bool,
    },
    SwitchChat {
        enabled: bool,
    },
    Subscribe {
        player: Option<PlayerId>,
        only_if_seated: bool,
        inbox: String,
    },
    Unsubscribe {
        inbox: String,
    },
    Inspect,
    Close,
}

/// The owner's answer.
#[derive(Debug, Serialize, Deserialize)]
enum RemoteReply {
    /// Any command refused before it reached the actor (the table is not here).
    Refused(Refusal),
    Outcome(Result<Outcome, Refusal>),
    Unit(Result<(), Refusal>),
    Value(Option<serde_json::Value>),
    Chips(Option<Chips>),
}

/// Where nodes tell each other that sessions ended; each node answers the request once its
/// connections of them have stopped writing for their player.
const SESSION_ENDED: &str = "pokerd.session.ended";

/// What goes on [`SESSION_ENDED`].
#[derive(Debug, Serialize, Deserialize)]
struct SessionEnded {
    /// The node that ended them (it ends its own connections itself).
    node: String,
    /// Which sessions, and why.
    end: SessionEnd,
}

/// This node's part of the cluster.
pub struct Cluster {
    /// The node's name.
    pub node: String,
    nats: async_nats::Client,
    lease_ms: u64,
    heartbeat: Duration,
    /// The tables this node owns: their lease token and the task answering commands.
    owned: Mutex<HashMap<TableId, (u64, tokio::task::AbortHandle)>>,
    /// The inbox of each connection queue subscribed to a table on another node.
    inboxes: Mutex<Vec<Inbox>>,
    /// Held while a table is being opened here, so a table is never opened twice.
    opening: tokio::sync::Mutex<()>,
    /// Until when each table's actor may act (by this process's clock): a little less
    /// than the lease's lifetime after its last renewal began. An actor past it waits for
    /// the next renewal, or stops when the table is let go (the sender dropped), so a node
    /// that was frozen past its lease wakes up without acting on a timer first.
    valid: Mutex<HashMap<TableId, tokio::sync::watch::Sender<tokio::time::Instant>>>,
    /// The other nodes heard on `pokerd.node`, and when: a node that holds no lease yet
    /// (it just started) counts in the fair share as soon as it is heard.
    peers: Mutex<HashMap<String, tokio::time::Instant>>,
    /// The tables this node is handing over (over its fair share): draining, then let go.
    shedding: Mutex<HashSet<TableId>>,
}

/// A connection queue's inbox: where the owners of the tables it joined on other nodes
/// send their batches.
struct Inbox {
    queue: mpsc::Sender<Batch>,
    subject: String,
    /// The tables subscribed through it, each with its player and whether to subscribe
    /// again only if that player is seated (after an unsubscription, which the owner
    /// refuses while the player is seated): what a resync subscribes again.
    joined: HashMap<TableId, (Option<PlayerId>, bool)>,
}

/// A table another node owns, reached through NATS.
#[derive(Clone)]
pub struct RemoteTable {
    pub(crate) table_id: TableId,
    cluster: Arc<Cluster>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn table_subject(table: TableId) -> String {
    format!("pokerd.table.{table}")
}

impl Cluster {
    /// Connects to NATS as this node.
    pub async fn connect(config: &crate::config::ClusterConfig) -> anyhow::Result<Arc<Cluster>> {
        let node = if config.node.is_empty() {
            let host = std::fs::read_to_string("/etc/hostname")
                .map(|h| h.trim().to_string())
                .unwrap_or_else(|_| "node".into());
            format!("{host}-{}", std::process::id())
        } else {
            config.node.clone()
        };
        let nats = async_nats::ConnectOptions::new()
            .name(format!("pokerd {node}"))
            .request_timeout(Some(Duration::from_secs(5)))
            .connect(config.nats_url.as_str())
            .await
            .map_err(|e| {
                anyhow::anyhow!(
                    "cannot reach NATS at {}: {e}",
                    crate::config::redact_url(&config.nats_url)
                )
            })?;
        Ok(Arc::new(Cluster {
            node,
            nats,
            lease_ms: config.lease_ms.max(1),
            heartbeat: Duration::from_millis(config.heartbeat_ms.max(1)),
            owned: Mutex::new(HashMap::new()),
            inboxes: Mutex::new(Vec::new()),
            opening: tokio::sync::Mutex::new(()),
            valid: Mutex::new(HashMap::new()),
            peers: Mutex::new(HashMap::new()),
            shedding: Mutex::new(HashSet::new()),
        }))
    }

    /// A handle to a table another node owns.
    pub fn remote(self: &Arc<Cluster>, table_id: TableId) -> TableHandle {
        TableHandle::remote(RemoteTable {
            table_id,
            cluster: self.clone(),
        })
    }

    /// The lease token of a table this node owns.
    pub fn token(&self, table: TableId) -> Option<u64> {
        lock(&self.owned).get(&table).map(|(t, _)| *t)
    }

    /// Opens a table here if its lease can be had (nothing if it is open here already or
    /// another node holds it). Taking over a table another node left, the hand it cut is
    /// void first (stacks as it began).
    pub async fn open(
        self: &Arc<Cluster>,
        state: &Arc<AppState>,
        table: TableId,
        name: &str,
        config: &str,
        takeover: bool,
    ) -> anyhow::Result<()> {
        let _opening = self.opening.lock().await;
        if state.tables.lock().await.contains_key(&table) {
            return Ok(());
        }
        let asked = tokio::time::Instant::now();
        let Some(token) = state
            .store
            .acquire_lease(table, &self.node, self.lease_ms as i64)
            .await?
        else {
            tracing::info!("table {table} is open on another node");
            return Ok(());
        };
        if takeover {
            let void = state.store.void_hands(table).await?;
            tracing::info!(
                "table {table}: taken over with lease token {token}; {} cut hand(s) void",
                void.len()
            );
        }
        let (valid, lease) = tokio::sync::watch::channel(asked + self.hold());
        lock(&self.valid).insert(table, valid);
        state
            .start_table(table, name, config, Some((token, lease)))
            .await
    }

    /// How long after a renewal began the actor may act on it: the lease's lifetime less
    /// one heartbeat, for the clocks' drift and the renewal's own time.
    fn hold(&self) -> Duration {
        let lease = Duration::from_millis(self.lease_ms);
        lease.saturating_sub(self.heartbeat).max(lease / 2)
    }

    /// Starts answering a table's commands (its actor runs here, under this token).
    pub async fn serve(
        self: &Arc<Cluster>,
        state: &Arc<AppState>,
        table: TableId,
        token: u64,
    ) -> anyhow::Result<()> {
        let subscriber = self.nats.subscribe(table_subject(table)).await?;
        let task = tokio::spawn(serve_table(
            Arc::downgrade(state),
            self.clone(),
            table,
            subscriber,
        ));
        if let Some((_, old)) = lock(&self.owned).insert(table, (token, task.abort_handle())) {
            old.abort();
        }
        // Whoever had joined the table subscribes again, here.
        let moved = serde_json::to_vec(&(&self.node, table)).expect("ids serialize");
        let _ = self.nats.publish("pokerd.moved", moved.into()).await;
        Ok(())
    }

    /// Stops owning a table: its actor stops without writing anything (`abandon`) or
    /// has closed; its lease is released when `release`.
    pub async fn forget(&self, state: &AppState, table: TableId, release: bool) {
        let owned = lock(&self.owned).remove(&table);
        // An actor waiting for a renewal stops now.
        lock(&self.valid).remove(&table);
        let handle = state.tables.lock().await.remove(&table);
        if let Some((token, task)) = owned {
            task.abort();
            if release {
                if let Some(handle) = handle {
                    stop(&handle).await;
                }
                if let Err(e) = state.store.release_lease(table, &self.node, token).await {
                    tracing::warn!("table {table}: cannot release its lease: {e}");
                }
            } else if let Some(handle) = handle {
                let _ = handle.command(Command::Abandon).await;
                // Connections here that had joined it follow it to its new owner.
                let _ = state.moved.send(table);
            }
        }
    }

    /// The inbox of a connection's queue, made (with the task forwarding what arrives
    /// in it) on first use.
    async fn inbox(self: &Arc<Cluster>, queue: mpsc::Sender<Batch>) -> anyhow::Result<String> {
        if let Some(inbox) = lock(&self.inboxes)
            .iter()
            .find(|i| i.queue.same_channel(&queue))
        {
            return Ok(inbox.subject.clone());
        }
        let subject = format!("pokerd.inbox.{}.{}", self.node, TableId::new());
        let mut subscriber = self.nats.subscribe(subject.clone()).await?;
        lock(&self.inboxes).push(Inbox {
            queue: queue.clone(),
            subject: subject.clone(),
            joined: HashMap::new(),
        });
        let cluster = self.clone();
        let inbox = subject.clone();
        tokio::spawn(async move {
            // Like a table's own subscribers, a connection whose queue is full never
            // stalls this reader (nor piles batches up in the NATS client): what it cannot
            // take is dropped, and once it has room again every table it joined is
            // subscribed to again, whose owner sends a fresh snapshot. Until a table's
            // snapshot comes, what else comes of it is dropped too.
            let mut stale = false;
            let mut behind: HashSet<TableId> = HashSet::new();
            let (failed_tx, mut failed) = mpsc::unbounded_channel::<Vec<TableId>>();
            loop {
                tokio::select! {
                    message = subscriber.next() => {
                        let Some(message) = message else { break };
                        let Some(mut batch) = decode(message.payload) else {
                            tracing::error!("an unreadable batch on {inbox}");
                            continue;
                        };
                        if !behind.is_empty() {
                            batch.retain(|frame| admit(frame, &mut behind));
                            if batch.is_empty() {
                                continue;
                            }
                        }
                        match queue.try_send(batch) {
                            Ok(()) => {}
                            Err(mpsc::error::TrySendError::Full(_)) => {
                                if !stale {
                                    stale = true;
                                    behind = cluster.joined(&inbox).keys().copied().collect();
                                }
                            }
                            Err(mpsc::error::TrySendError::Closed(_)) => break,
                        }
                    }
                    room = queue.reserve(), if stale => {
                        let Ok(room) = room else { break };
                        drop(room);
                        stale = false;
                        let joined: Vec<_> = cluster
                            .joined(&inbox)
                            .into_iter()
                            .filter(|(table, _)| behind.contains(table))
                            .collect();
                        tokio::spawn(resubscribe(cluster.clone(), inbox.clone(), joined, failed_tx.clone()));
                    }
                    Some(tables) = failed.recv() => {
                        // No snapshot is coming for these: what comes of them passes again.
                        for table in tables {
                            behind.remove(&table);
                        }
                    }
                    _ = queue.closed() => break,
                }
            }
            lock(&cluster.inboxes).retain(|i| i.subject != inbox);
            let _ = subscriber.unsubscribe().await;
            let _ = cluster
                .nats
                .publish(format!("{inbox}.gone"), Bytes::new())
                .await;
        });
        Ok(subject)
    }

    /// The tables subscribed through an inbox, with their players.
    fn joined(&self, inbox: &str) -> HashMap<TableId, (Option<PlayerId>, bool)> {
        lock(&self.inboxes)
            .iter()
            .find(|i| i.subject == inbox)
            .map(|i| i.joined.clone())
            .unwrap_or_default()
    }

    /// Notes what a command that succeeded did to an inbox's subscriptions.
    fn note(&self, table: TableId, cmd: &RemoteCmd) {
        let (subject, player, subscribed) = match cmd {
            RemoteCmd::Sit {
                player,
                inbox: Some(inbox),
                ..
            } => (inbox, Some(*player), true),
            RemoteCmd::Subscribe { player, inbox, .. } => (inbox, *player, true),
            RemoteCmd::Unsubscribe { inbox } => (inbox, None, false),
            _ => return,
        };
        let mut inboxes = lock(&self.inboxes);
        let Some(inbox) = inboxes.iter_mut().find(|i| i.subject == *subject) else {
            return;
        };
        if subscribed {
            inbox.joined.insert(table, (player, false));
        } else if let Some((Some(_), only_if_seated)) = inbox.joined.get_mut(&table) {
            // Still subscribed if its player is seated there.
            *only_if_seated = true;
        } else {
            inbox.joined.remove(&table);
        }
    }

    /// Renews this node's leases (a table whose lease was lost stops here at once) and
    /// takes free tables up to a fair share, every heartbeat, until the process ends.
    pub async fn run(self: Arc<Cluster>, state: Weak<AppState>) {
        let mut tick = tokio::time::interval(self.heartbeat);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
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
        if !self.nats_up().await {
            tracing::warn!("NATS is unreachable: no lease renewed or taken until it is back");
            return Ok(());
        }
        self.announce(true).await;
        let owned: Vec<(TableId, u64)> = lock(&self.owned)
            .iter()
            .map(|(t, (token, _))| (*t, *token))
            .collect();
        if !owned.is_empty() {
            // One statement renews them all.
            let asked = tokio::time::Instant::now();
            match state
                .store
                .renew_leases(&self.node, &owned, self.lease_ms as i64)
                .await
            {
                Ok(kept) => {
                    for (table, token) in owned {
                        if kept.binary_search(&table).is_ok() {
                            if let Some(valid) = lock(&self.valid).get(&table) {
                                let _ = valid.send(asked + self.hold());
                            }
                        } else if self.token(table) == Some(token) {
                            // (Not one let go, or opened again, meanwhile.)
                            tracing::warn!(
                                "table {table}: lease lost to another node; stopping it here"
                            );
                            self.forget(state, table, false).await;
                        }
                    }
                }
                // Nothing renewed this time: the actors wait past their hold, and the
                // fence guards the rest.
                Err(e) => tracing::warn!("cannot renew this node's leases: {e}"),
            }
        }
        // A fair share: the open tables over the live nodes, this one included: those
        // holding live leases (by the database's clock: the nodes' clocks may disagree)
        // and those heard on NATS lately (a node that just started holds none yet). So
        // the survivors of a dead node split its tables, and a node that joins gets its
        // share handed over.
        let candidates = state.store.lease_candidates(&self.node).await?;
        let leases = state.store.leases().await?;
        let nodes = self.live_nodes(&leases);
        let live = leases.iter().filter(|l| l.live).count();
        let share = fair_share(live + candidates.len(), nodes.len());
        // Tables being handed over still count as this node's: it takes none in their
        // place, nor takes back what it has just let go.
        let mine = lock(&self.owned).len();
        self.shed(state, mine, share);
        if candidates.is_empty() {
            return Ok(());
        }
        let mut candidates = candidates;
        use rand::seq::SliceRandom;
        candidates.shuffle(&mut rand::thread_rng());
        for table in candidates.into_iter().take(share.saturating_sub(mine)) {
            let row = match state.store.table(table).await {
                Ok(row) if row.status == TableStatus::Open => row,
                Ok(_) => continue,
                Err(e) => {
                    tracing::warn!("table {table}: cannot read it: {e}");
                    continue;
                }
            };
            if let Err(e) = self.open(state, table, &row.name, &row.config, true).await {
                tracing::warn!("table {table}: cannot take it over: {e:#}");
            }
        }
        Ok(())
    }

    /// Whether NATS reaches this node now: the client is connected and a request to this
    /// node itself is answered within a heartbeat (a connection that broke without a word
    /// is noticed by the client only after missed pings, minutes later).
    async fn nats_up(&self) -> bool {
        if self.nats.connection_state() != async_nats::connection::State::Connected {
            return false;
        }
        let ping = async_nats::Request::new()
            .payload(Bytes::new())
            .timeout(Some(self.heartbeat));
        self.nats
            .send_request(format!("pokerd.alive.{}", self.node), ping)
            .await
            .is_ok()
    }

    /// The live nodes, by name: those holding a live lease, those heard within a lease's
    /// lifetime, and this one.
    fn live_nodes(&self, leases: &[poker_store::Lease]) -> Vec<String> {
        let lifetime = Duration::from_millis(self.lease_ms);
        let mut peers = lock(&self.peers);
        peers.retain(|_, heard| heard.elapsed() <= lifetime);
        let mut nodes: Vec<String> = leases
            .iter()
            .filter(|l| l.live)
            .map(|l| l.node.clone())
            .chain(peers.keys().cloned())
            .chain([self.node.clone()])
            .collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes
    }

    /// Over its fair share (strictly: a share is rounded up, so shares that add up to
    /// more than the tables never make nodes trade tables back and forth), this node
    /// hands one more table over, at most one per heartbeat.
    fn shed(self: &Arc<Cluster>, state: &Arc<AppState>, mine: usize, share: usize) {
        let (table, token) = {
            let owned = lock(&self.owned);
            let mut shedding = lock(&self.shedding);
            shedding.retain(|t| owned.contains_key(t));
            if mine.saturating_sub(shedding.len()) <= share {
                return;
            }
            use rand::seq::IteratorRandom;
            let Some((table, (token, _))) = owned
                .iter()
                .filter(|(t, _)| !shedding.contains(t))
                .choose(&mut rand::thread_rng())
            else {
                return;
            };
            shedding.insert(*table);
            (*table, *token)
        };
        tracing::info!(
            "table {table}: {mine} tables here, over a fair share of {share}; handing it over"
        );
        tokio::spawn(self.clone().hand_over(state.clone(), table, token));
    }

    /// Hands a table over to the node that claims it next, as on shutdown: its hand in
    /// progress finishes and no new one is dealt (`drain`), its actor stops, then its
    /// lease is released. The claimer finds no hand to void, starts the table from the
    /// store and says it moved, so every connection that joined it subscribes there.
    async fn hand_over(self: Arc<Cluster>, state: Arc<AppState>, table: TableId, token: u64) {
        let began = tokio::time::Instant::now();
        let handle = state.tables.lock().await.get(&table).cloned();
        if let Some(handle) = handle {
            // The lease is renewed meanwhile, however long the hand takes.
            handle.drain().await;
        }
        // (Unless it was lost meanwhile, or let go: it has stopped already.)
        if self.token(table) == Some(token) {
            if let Some((_, task)) = lock(&self.owned).remove(&table) {
                task.abort();
            }
            lock(&self.valid).remove(&table);
            let handle = state.tables.lock().await.remove(&table);
            if let Some(handle) = handle {
                stop(&handle).await;
            }
            match state.store.release_lease(table, &self.node, token).await {
                Ok(()) => tracing::info!(
                    "table {table}: handed over after {} ms draining",
                    began.elapsed().as_millis()
                ),
                Err(e) => tracing::warn!("table {table}: cannot release its lease: {e}"),
            }
        }
        lock(&self.shedding).remove(&table);
    }

    /// Tells the other nodes this one is up (every heartbeat), or leaving.
    async fn announce(&self, up: bool) {
        let payload = serde_json::to_vec(&(&self.node, up)).expect("names serialize");
        let _ = self.nats.publish("pokerd.node", payload.into()).await;
    }

    /// Lets go of every table on shutdown (after their hands finished), so the other
    /// nodes take them at once.
    pub async fn release_all(&self, state: &AppState) {
        self.announce(false).await;
        let tables: Vec<TableId> = lock(&self.owned).keys().copied().collect();
        for table in tables {
            self.forget(state, table, true).await;
        }
    }

    /// Sends this node's lobby changes to the others and applies theirs; tells the
    /// connections here about tables that moved.
    pub async fn start_gossip(
        self: &Arc<Cluster>,
        state: &Arc<AppState>,
        mut changes: mpsc::UnboundedReceiver<TableSummary>,
    ) -> anyhow::Result<()> {
        let mut lobby = self.nats.subscribe("pokerd.lobby").await?;
        let mut hello = self.nats.subscribe("pokerd.lobby.hello").await?;
        let mut moved = self.nats.subscribe("pokerd.moved").await?;
        let mut nodes = self.nats.subscribe("pokerd.node").await?;
        let mut alive = self
            .nats
            .subscribe(format!("pokerd.alive.{}", self.node))
            .await?;
        // Answered on its own, never behind the lobby: the heartbeat's own check of NATS
        // waits for it.
        let nats = self.nats.clone();
        tokio::spawn(async move {
            while let Some(message) = alive.next().await {
                if let Some(reply) = message.reply {
                    let _ = nats.publish(reply, Bytes::new()).await;
                }
            }
        });
        let weak = Arc::downgrade(state);
        let cluster = self.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    change = changes.recv() => {
                        let Some(summary) = change else { return };
                        cluster.tell_lobby(&summary).await;
                    }
                    Some(message) = lobby.next() => {
                        let Some(state) = weak.upgrade() else { return };
                        if let Ok((node, summary)) =
                            serde_json::from_slice::<(String, TableSummary)>(&message.payload)
                        {
                            if node != cluster.node {
                                state.lobby.apply(summary.table_id, summary);
                            }
                        }
                    }
                    Some(_) = hello.next() => {
                        let Some(state) = weak.upgrade() else { return };
                        for summary in state.lobby.list() {
                            if cluster.token(summary.table_id).is_some() {
                                cluster.tell_lobby(&summary).await;
                            }
                        }
                    }
                    Some(message) = moved.next() => {
                        let Some(state) = weak.upgrade() else { return };
                        let Ok((node, table)) =
                            serde_json::from_slice::<(String, TableId)>(&message.payload)
                        else {
                            continue;
                        };
                        if node != cluster.node && cluster.token(table).is_some() {
                            // Another node took a table this one still runs: its lease
                            // was lost (the fence would refuse its next hand anyway).
                            tracing::warn!("table {table}: now owned by {node}; stopping it here");
                            cluster.forget(&state, table, false).await;
                        }
                        let _ = state.moved.send(table);
                    }
                    Some(message) = nodes.next() => {
                        let Ok((node, up)) =
                            serde_json::from_slice::<(String, bool)>(&message.payload)
                        else {
                            continue;
                        };
                        let mut peers = lock(&cluster.peers);
                        if up && node != cluster.node {
                            peers.insert(node, tokio::time::Instant::now());
                        } else {
                            peers.remove(&node);
                        }
                    }
                    else => return,
                }
            }
        });
        self.answer_session_ends(state).await?;
        // The others' tables, for this node's lobby.
        self.nats
            .publish("pokerd.lobby.hello", Bytes::new())
            .await?;
        Ok(())
    }

    /// Ends, here, the sessions other nodes say ended, answering each once done.
    async fn answer_session_ends(self: &Arc<Cluster>, state: &Arc<AppState>) -> anyhow::Result<()> {
        let mut ended = self.nats.subscribe(SESSION_ENDED).await?;
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
                        let _ = nats.publish(reply, Bytes::new()).await;
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
        let payload = serde_json::to_vec(&told).expect("session ends serialize");
        if let Err(e) = self
            .nats
            .publish_with_reply(SESSION_ENDED, inbox, payload.into())
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

    async fn tell_lobby(&self, summary: &TableSummary) {
        let payload = serde_json::to_vec(&(&self.node, summary)).expect("summaries serialize");
        let _ = self.nats.publish("pokerd.lobby", payload.into()).await;
    }
}

impl RemoteTable {
    /// The inbox of a connection's queue.
    pub(crate) async fn inbox(&self, queue: Option<mpsc::Sender<Batch>>) -> Option<String> {
        match self.cluster.inbox(queue?).await {
            Ok(inbox) => Some(inbox),
            Err(e) => {
                tracing::error!("cannot make an inbox: {e}");
                None
            }
        }
    }

    async fn call(&self, cmd: RemoteCmd) -> Result<RemoteReply, Refusal> {
        // Closing waits for the hand in progress to end; the rest is answered at once
        // (money moves included: they wait only for the database).
        let timeout = match cmd {
            RemoteCmd::Close => Duration::from_secs(600),
            _ => Duration::from_secs(30),
        };
        let payload = serde_json::to_vec(&cmd).expect("commands serialize");
        let request = async_nats::Request::new()
            .payload(payload.into())
            .timeout(Some(timeout));
        match self
            .cluster
            .nats
            .send_request(table_subject(self.table_id), request)
            .await
        {
            Ok(message) => match serde_json::from_slice(&message.payload) {
                Ok(RemoteReply::Refused(refusal)) => Err(refusal),
                Ok(reply) => {
                    if matches!(
                        reply,
                        RemoteReply::Unit(Ok(())) | RemoteReply::Outcome(Ok(_))
                    ) {
                        self.cluster.note(self.table_id, &cmd);
                    }
                    Ok(reply)
                }
                Err(e) => Err(Refusal::Internal(format!("an unreadable answer: {e}"))),
            },
            // Nobody owns it right now (its node stopped and the lease has not expired
            // yet), or its node does not answer.
            Err(e) => {
                tracing::warn!("table {}: {e}", self.table_id);
                Err(Refusal::Moving)
            }
        }
    }

    pub(crate) async fn outcome(&self, cmd: RemoteCmd) -> Result<Outcome, Refusal> {
        match self.call(cmd).await? {
            RemoteReply::Outcome(r) => r,
            other => Err(unexpected(other)),
        }
    }

    pub(crate) async fn unit(&self, cmd: RemoteCmd) -> Result<(), Refusal> {
        match self.call(cmd).await? {
            RemoteReply::Unit(r) => r,
            other => Err(unexpected(other)),
        }
    }

    pub(crate) async fn value(&self, cmd: RemoteCmd) -> Option<serde_json::Value> {
        match self.call(cmd).await {
            Ok(RemoteReply::Value(v)) => v,
            _ => None,
        }
    }

    pub(crate) async fn chips(&self, cmd: RemoteCmd) -> Option<Chips> {
        match self.call(cmd).await {
            Ok(RemoteReply::Chips(c)) => c,
            _ => None,
        }
    }
}

/// Subscribes an inbox again to the tables it joined (its connection fell behind), so
/// their owners send a snapshot; reports those where it could not.
async fn resubscribe(
    cluster: Arc<Cluster>,
    inbox: String,
    joined: Vec<(TableId, (Option<PlayerId>, bool))>,
    failed: mpsc::UnboundedSender<Vec<TableId>>,
) {
    let mut refused = Vec::new();
    for (table_id, (player, only_if_seated)) in joined {
        let remote = RemoteTable {
            table_id,
            cluster: cluster.clone(),
        };
        let cmd = RemoteCmd::Subscribe {
            player,
            only_if_seated,
            inbox: inbox.clone(),
        };
        if let Err(e) = remote.unit(cmd).await {
            tracing::info!("table {table_id}: {inbox} not subscribed again: {e}");
            refused.push(table_id);
        }
    }
    if !refused.is_empty() {
        let _ = failed.send(refused);
    }
}

/// Whether a frame goes to a connection that fell behind: not while its table's snapshot
/// has not come (`behind`), which it takes off the list.
fn admit(frame: &Out, behind: &mut HashSet<TableId>) -> bool {
    /// The fields that say which table a message is about.
    #[derive(Deserialize)]
    struct Peek {
        #[serde(rename = "type")]
        kind: String,
        table_id: Option<TableId>,
        table: Option<PeekTable>,
    }
    #[derive(Deserialize)]
    struct PeekTable {
        table_id: TableId,
    }
    let (table, snapshot) = match frame {
        Out::Own(msg) => match &**msg {
            ServerMsg::Snapshot { table, .. } => (Some(table.table_id), true),
            other => {
                let value = serde_json::to_value(other).unwrap_or_default();
                let table = value
                    .get("table_id")
                    .or_else(|| value.get("table").and_then(|t| t.get("table_id")))
                    .and_then(|t| serde_json::from_value(t.clone()).ok());
                (table, false)
            }
        },
        Out::Shared(text) => match serde_json::from_str::<Peek>(text.as_str()) {
            Ok(peek) => (
                peek.table_id.or(peek.table.map(|t| t.table_id)),
                peek.kind == "snapshot",
            ),
            Err(_) => (None, false),
        },
    };
    match table {
        Some(table) if behind.contains(&table) => {
            if snapshot {
                behind.remove(&table);
            }
            snapshot
        }
        _ => true,
    }
}

/// A node's fair share of `tables` among `nodes` live nodes (rounded up).
fn fair_share(tables: usize, nodes: usize) -> usize {
    tables.div_ceil(nodes.max(1))
}

fn unexpected(reply: RemoteReply) -> Refusal {
    Refusal::Internal(format!("an unexpected answer: {reply:?}"))
}

/// Answers the commands of one table this node owns, each in its own task (the actor
/// orders them).
async fn serve_table(
    state: Weak<AppState>,
    cluster: Arc<Cluster>,
    table: TableId,
    mut commands: async_nats::Subscriber,
) {
    // The queue made for each remote inbox, so a connection subscribing again replaces
    // its subscription instead of adding one (weak: the actor holds the queue).
    let queues: Queues = Arc::default();
    while let Some(message) = commands.next().await {
        let Some(reply) = message.reply.clone() else {
            continue;
        };
        let Some(state) = state.upgrade() else { return };
        let cluster = cluster.clone();
        let queues = queues.clone();
        tokio::spawn(async move {
            let answer = match serde_json::from_slice::<RemoteCmd>(&message.payload) {
                Ok(cmd) => answer(&state, &cluster, table, &queues, cmd).await,
                Err(e) => {
                    RemoteReply::Refused(Refusal::Internal(format!("an unreadable command: {e}")))
                }
            };
            let payload = serde_json::to_vec(&answer).expect("answers serialize");
            let _ = cluster.nats.publish(reply, payload.into()).await;
        });
    }
}

async fn answer(
    state: &Arc<AppState>,
    cluster: &Arc<Cluster>,
    table: TableId,
    queues: &Queues,
    cmd: RemoteCmd,
) -> RemoteReply {
    let Some(handle) = state.tables.lock().await.get(&table).cloned() else {
        return RemoteReply::Refused(Refusal::Moving);
    };
    match cmd {
        RemoteCmd::Sit {
            player,
            name,
            seat,
            buy_in,
            entry,
            inbox,
            address,
        } => {
            let queue = match inbox {
                Some(inbox) => Some(forwarder(cluster, queues, inbox).await),
                None => None,
            };
            RemoteReply::Outcome(
                handle
                    .sit_with(player, name, seat, buy_in, entry, queue, address)
                    .await,
            )
        }
        RemoteCmd::Act {
            player,
            decision_id,
            action,
        } => RemoteReply::Unit(handle.act(player, decision_id, action).await),
        RemoteCmd::Seat { player, request } => {
            RemoteReply::Outcome(handle.seat(player, request).await)
        }
        RemoteCmd::Chat { player, text } => RemoteReply::Unit(handle.chat(player, text).await),
        RemoteCmd::Waitlist { player, join } => {
            RemoteReply::Unit(handle.waitlist(player, join).await)
        }
        RemoteCmd::SwitchChat { enabled } => {
            RemoteReply::Unit(if handle.switch_chat(enabled).await {
                Ok(())
            } else {
                Err(Refusal::TableGone)
            })
        }
        RemoteCmd::Subscribe {
            player,
            only_if_seated,
            inbox,
        } => {
            let queue = forwarder(cluster, queues, inbox).await;
            RemoteReply::Unit(
                if handle.subscribe_with(player, queue, only_if_seated).await {
                    Ok(())
                } else {
                    Err(Refusal::NotYourTurn("not seated at this table".into()))
                },
            )
        }
        RemoteCmd::Unsubscribe { inbox } => {
            let queue = lock(queues).get(&inbox).and_then(|q| q.upgrade());
            if let Some(queue) = queue {
                handle.unsubscribe(queue).await;
            }
            RemoteReply::Unit(Ok(()))
        }
        RemoteCmd::Inspect => RemoteReply::Value(handle.inspect().await),
        RemoteCmd::Close => {
            let chips = handle.close().await;
            if chips.is_some() {
                cluster.forget(state, table, true).await;
            }
            RemoteReply::Chips(chips)
        }
    }
}

/// The queues made for remote inboxes, by inbox.
type Queues = Arc<Mutex<HashMap<String, mpsc::WeakSender<Batch>>>>;

/// How often a forwarder checks that its inbox's node is still there.
const ALIVE_EVERY: Duration = Duration::from_secs(20);

/// The queue whose batches go to a remote inbox (made with its forwarding task on first
/// use). The task ends when the actor drops the queue (a refused subscription, a table
/// that stopped), when the connection is gone (`<inbox>.gone`), or when the inbox's node
/// no longer answers (killed: nobody said gone).
async fn forwarder(cluster: &Arc<Cluster>, queues: &Queues, inbox: String) -> mpsc::Sender<Batch> {
    if let Some(queue) = lock(queues).get(&inbox).and_then(|q| q.upgrade()) {
        return queue;
    }
    let (queue, mut rx) = mpsc::channel::<Batch>(1024);
    lock(queues).insert(inbox.clone(), queue.downgrade());
    let gone = cluster.nats.subscribe(format!("{inbox}.gone")).await.ok();
    let nats = cluster.nats.clone();
    let queues = queues.clone();
    let node = inbox
        .strip_prefix("pokerd.inbox.")
        .and_then(|rest| rest.rsplit_once('.'))
        .map(|(node, _)| node.to_string())
        .unwrap_or_default();
    tokio::spawn(async move {
        let gone = async {
            match gone {
                Some(mut gone) => {
                    gone.next().await;
                }
                None => std::future::pending().await,
            }
        };
        tokio::pin!(gone);
        let mut alive = tokio::time::interval(ALIVE_EVERY);
        alive.tick().await;
        loop {
            tokio::select! {
                batch = rx.recv() => {
                    let Some(batch) = batch else { break };
                    if nats.publish(inbox.clone(), encode(batch)).await.is_err() {
                        break;
                    }
                }
                _ = &mut gone => break,
                _ = alive.tick() => {
                    let ping = async_nats::Request::new()
                        .payload(Bytes::new())
                        .timeout(Some(Duration::from_secs(5)));
                    let answer = nats.send_request(format!("pokerd.alive.{node}"), ping).await;
                    if matches!(&answer, Err(e) if e.kind() == async_nats::client::RequestErrorKind::NoResponders) {
                        break;
                    }
                }
            }
        }
        // Ours is closed now; a newer queue for the same inbox stays.
        drop(rx);
        let mut queues = lock(&queues);
        if queues.get(&inbox).is_some_and(|q| q.upgrade().is_none()) {
            queues.remove(&inbox);
        }
    });
    queue
}

/// A batch as one NATS message: per frame, 1 if it is the subscriber's own, its length
/// (4 bytes, little-endian) and its JSON text.
fn encode(batch: Batch) -> Bytes {
    let mut out = BytesMut::new();
    for frame in batch {
        let (own, text): (u8, Bytes) = match frame {
            Out::Own(msg) => (
                1,
                serde_json::to_vec(&*msg)
                    .expect("messages serialize")
                    .into(),
            ),
            Out::Shared(text) => (0, text.into()),
        };
        out.put_u8(own);
        out.put_u32_le(text.len() as u32);
        out.put_slice(&text);
    }
    out.freeze()
}

/// The batch again; shared frames stay shared (no copy).
fn decode(mut payload: Bytes) -> Option<Batch> {
    let mut batch = Vec::new();
    while !payload.is_empty() {
        if payload.len() < 5 {
            return None;
        }
        let own = payload[0] == 1;
        let len = u32::from_le_bytes(payload[1..5].try_into().ok()?) as usize;
        if payload.len() < 5 + len {
            return None;
        }
        let text = payload.slice(5..5 + len);
        payload = payload.slice(5 + len..);
        batch.push(if own {
            Out::own(serde_json::from_slice::<ServerMsg>(&text).ok()?)
        } else {
            Out::Shared(Utf8Bytes::try_from(text).ok()?)
        });
    }
    Some(batch)
}

/// Stops a table's actor and waits until it has (at most 10 s), before its lease is let go:
/// nothing it does can then land after another node has read the table from the store.
/// Nobody answers the second command: it returns once the actor has stopped.
async fn stop(handle: &crate::table::TableHandle) {
    let _ = handle.command(Command::Abandon).await;
    let _ = tokio::time::timeout(Duration::from_secs(10), handle.inspect()).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_crosses_nats_unchanged() {
        let batch = vec![
            Out::own(ServerMsg::Pong),
            Out::Shared(Utf8Bytes::from(
                serde_json::to_string(&ServerMsg::Pong).unwrap(),
            )),
        ];
        let back = decode(encode(batch)).unwrap();
        assert_eq!(back.len(), 2);
        assert!(matches!(&back[0], Out::Own(m) if **m == ServerMsg::Pong));
        assert!(matches!(&back[1], Out::Shared(t) if t.as_str() == r#"{"type":"pong"}"#));
        assert!(decode(Bytes::from_static(&[1, 9, 0, 0, 0, b'{'])).is_none());
    }

    #[test]
    fn a_table_moving_to_another_node_is_refused_with_its_own_retryable_code() {
        assert_eq!(
            Refusal::Moving.code(),
            poker_protocol::ErrorCode::TableMoving
        );
        let wire = serde_json::to_value(ServerMsg::from(Refusal::Moving)).unwrap();
        assert_eq!(wire["type"], "error");
        assert_eq!(wire["code"], "table_moving");
        assert!(wire["message"]
            .as_str()
            .unwrap()
            .contains("try again in a few seconds"));
    }
}
