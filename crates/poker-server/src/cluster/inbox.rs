//! The inboxes of this node's connections that joined tables on other nodes, and the
//! forwarders on an owner that send a table's batches to them: one NATS message per batch,
//! dropped (never queued) for a connection that falls behind, which is then subscribed
//! again for a snapshot.

use super::subjects::{self, Envelope};
use super::{lock, Cluster};
use crate::table::{Answer, Batch, Out, Request};
use axum::extract::ws::Utf8Bytes;
use bytes::{BufMut, Bytes, BytesMut};
use futures_util::StreamExt;
use poker_protocol::ServerMsg;
use poker_store::{PlayerId, TableId};
use serde::Deserialize;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// A connection queue's inbox: where the owners of the tables it joined on other nodes
/// send their batches.
pub(super) struct Inbox {
    queue: mpsc::Sender<Batch>,
    subject: String,
    /// The tables subscribed through it, each with its player and whether to subscribe
    /// again only if that player is seated (after an unsubscription, which the owner
    /// refuses while the player is seated): what a resync subscribes again.
    joined: HashMap<TableId, (Option<PlayerId>, bool)>,
}

impl Cluster {
    /// The inbox of a connection's queue, made (with the task forwarding what arrives
    /// in it) on first use.
    pub(super) async fn inbox(
        self: &Arc<Cluster>,
        queue: mpsc::Sender<Batch>,
    ) -> anyhow::Result<String> {
        if let Some(inbox) = lock(&self.inboxes)
            .iter()
            .find(|i| i.queue.same_channel(&queue))
        {
            return Ok(inbox.subject.clone());
        }
        let subject = subjects::new_inbox(&self.node);
        let mut subscriber = self.nats.subscribe(subject.clone()).await?;
        // Another request of the same connection may have made one while this one was
        // subscribing: the connection keeps that one (an owner looks an action's inbox up
        // by its queue, so a queue has one), and this subscription goes.
        let made = {
            let mut inboxes = lock(&self.inboxes);
            let made = inboxes
                .iter()
                .find(|i| i.queue.same_channel(&queue))
                .map(|i| i.subject.clone());
            if made.is_none() {
                inboxes.push(Inbox {
                    queue: queue.clone(),
                    subject: subject.clone(),
                    joined: HashMap::new(),
                });
            }
            made
        };
        if let Some(made) = made {
            let _ = subscriber.unsubscribe().await;
            return Ok(made);
        }
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
            let _ = super::wire::publish(&cluster.nats, subjects::gone(&inbox), Bytes::new()).await;
        });
        Ok(subject)
    }

    /// The inbox of a connection's queue, if it has one (it joined a table on another
    /// node); none is made.
    pub(super) fn inbox_of(&self, queue: &mpsc::Sender<Batch>) -> Option<String> {
        lock(&self.inboxes)
            .iter()
            .find(|i| i.queue.same_channel(queue))
            .map(|i| i.subject.clone())
    }

    /// The queue of a connection of this node whose inbox this is.
    pub(super) fn local_queue(&self, inbox: &str) -> Option<mpsc::Sender<Batch>> {
        lock(&self.inboxes)
            .iter()
            .find(|i| i.subject == inbox)
            .map(|i| i.queue.clone())
    }

    /// The tables subscribed through an inbox, with their players.
    fn joined(&self, inbox: &str) -> HashMap<TableId, (Option<PlayerId>, bool)> {
        lock(&self.inboxes)
            .iter()
            .find(|i| i.subject == inbox)
            .map(|i| i.joined.clone())
            .unwrap_or_default()
    }

    /// Notes what a request answered so did to an inbox's subscriptions.
    pub(super) fn note(&self, table: TableId, envelope: &Envelope, answer: &Answer) {
        let Some(subject) = &envelope.inbox else {
            return;
        };
        let (player, subscribed) = match (&envelope.request, answer) {
            (Request::Unsubscribe, Ok(_)) => (None, false),
            (request, answer) => match request.subscribes(answer) {
                Some(player) => (player, true),
                None => return,
            },
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
        let request = Request::Subscribe {
            player,
            only_if_seated,
        };
        let answer = cluster.call(table_id, request, Some(inbox.clone())).await;
        if let Err(e) = answer {
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

/// The queues made for remote inboxes, by inbox, each with its forwarder's marks.
pub(super) type Queues = Arc<Mutex<HashMap<String, (mpsc::WeakSender<Batch>, Marks)>>>;

/// The requests waiting for a forwarder to publish what was queued before them, in the
/// order their marks (empty batches, which a table never sends) are in its queue.
type Marks = Arc<Mutex<VecDeque<oneshot::Sender<()>>>>;

/// A remote inbox's queue, as a request to the table gets it.
pub(super) struct Forward {
    pub(super) queue: mpsc::Sender<Batch>,
    marks: Marks,
}

impl Forward {
    /// Waits until the forwarder has handed NATS every batch the table queued before now,
    /// so that the answer published next comes after them: a connection's node that has
    /// the answer to an action has its event too, even if this node dies right after
    /// (docs/server.md says what NATS itself does not promise).
    ///
    /// Waits at most `patience`: past it the answer goes anyway, while the asking node
    /// still waits for it (an action taken must not be told `table_moving`).
    pub(super) async fn published(&self, patience: Duration) {
        let _ = tokio::time::timeout(patience, async {
            // Room for the mark first: a full queue is a forwarder that NATS holds up,
            // whose batches must still go before the answer. A closed one sends nothing
            // more.
            let Ok(room) = self.queue.reserve().await else {
                return;
            };
            let (tx, rx) = oneshot::channel();
            {
                // The mark is queued and noted under one lock, so marks and their waiters
                // stay in one order; the forwarder closes its queue under it too, so a
                // mark is never noted after its last look.
                let mut marks = lock(&self.marks);
                if self.queue.is_closed() {
                    return;
                }
                room.send(Vec::new());
                marks.push_back(tx);
            }
            let _ = rx.await;
        })
        .await;
    }
}

/// How often a forwarder checks that its inbox's node is still there.
const ALIVE_EVERY: Duration = Duration::from_secs(20);

/// The queue whose batches go to a remote inbox (made with its forwarding task on first
/// use). The task ends when the actor drops the queue (a refused subscription, a table
/// that stopped), when the connection is gone (`<inbox>.gone`), or when the inbox's node
/// no longer answers (killed: nobody said gone).
impl Cluster {
    /// The queue a remote inbox's batches go to, if one was made and still runs.
    pub(super) fn forwarding(&self, queues: &Queues, inbox: &str) -> Option<Forward> {
        let made = lock(queues);
        let (queue, marks) = made.get(inbox)?;
        let queue = queue.upgrade().filter(|q| !q.is_closed())?;
        Some(Forward {
            queue,
            marks: marks.clone(),
        })
    }

    pub(super) async fn forwarder(self: &Arc<Cluster>, queues: &Queues, inbox: String) -> Forward {
        let cluster = self;
        // Looked up and made under one lock: two requests of one connection answered at
        // once (a sit and a resubscription) must find one queue, or the actor would hold
        // two subscribers sending the connection everything twice.
        let (queue, mut rx, marks) = {
            let mut made = lock(queues);
            if let Some((queue, marks)) = made.get(&inbox) {
                // (One whose forwarder has ended, its node not answering a ping for a
                // moment, is made again: the actor may still hold the dead queue.)
                if let Some(queue) = queue.upgrade().filter(|q| !q.is_closed()) {
                    let marks = marks.clone();
                    return Forward { queue, marks };
                }
            }
            let (queue, rx) = mpsc::channel::<Batch>(1024);
            let marks = Marks::default();
            made.insert(inbox.clone(), (queue.downgrade(), marks.clone()));
            (queue, rx, marks)
        };
        let forward = Forward {
            queue,
            marks: marks.clone(),
        };
        let gone = cluster.nats.subscribe(subjects::gone(&inbox)).await.ok();
        let nats = cluster.nats.clone();
        let queues = queues.clone();
        let node = subjects::inbox_node(&inbox).unwrap_or_default().to_string();
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
            // The liveness ping under way: asked beside the loop, which goes on publishing
            // (and firing marks) while it waits for the answer.
            let mut ping: Option<tokio::task::JoinHandle<bool>> = None;
            loop {
                tokio::select! {
                    batch = rx.recv() => {
                        let Some(batch) = batch else { break };
                        if batch.is_empty() {
                            // A request's mark: what was queued before it is published.
                            if let Some(mark) = lock(&marks).pop_front() {
                                let _ = mark.send(());
                            }
                            continue;
                        }
                        if super::wire::publish(&nats, inbox.clone(), encode(batch)).await.is_err() {
                            break;
                        }
                    }
                    _ = &mut gone => break,
                    _ = alive.tick(), if ping.is_none() => {
                        let nats = nats.clone();
                        let subject = subjects::alive(&node);
                        ping = Some(tokio::spawn(async move {
                            let ping = async_nats::Request::new()
                                .headers(super::wire::headers())
                                .payload(Bytes::new())
                                .timeout(Some(Duration::from_secs(5)));
                            let answer = nats.send_request(subject, ping).await;
                            // Nobody there: the inbox's node is gone.
                            matches!(&answer, Err(e) if e.kind() == async_nats::client::RequestErrorKind::NoResponders)
                        }));
                    }
                    nobody = async { ping.as_mut().expect("a ping under way").await }, if ping.is_some() => {
                        ping = None;
                        if nobody.unwrap_or(false) {
                            break;
                        }
                    }
                }
            }
            if let Some(ping) = ping {
                ping.abort();
            }
            // Ours is closed now (no mark can be queued: its waiters go on); a newer
            // queue for the same inbox stays.
            {
                let mut marks = lock(&marks);
                drop(rx);
                marks.clear();
            }
            let mut queues = lock(&queues);
            if queues
                .get(&inbox)
                .is_some_and(|(q, _)| q.upgrade().is_none())
            {
                queues.remove(&inbox);
            }
        });
        forward
    }
}

/// A batch as one NATS message: per frame, 1 if it is the subscriber's own, its length
/// (4 bytes, little-endian) and its JSON text.
pub(super) fn encode(batch: Batch) -> Bytes {
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

/// Whether a frame this release cannot read is a message all the same: a JSON object with
/// a `type` (what every server message is), which a later release may have added to or
/// changed.
fn later_release_frame(text: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(text)
        .is_ok_and(|m| m.get("type").is_some_and(|t| t.is_string()))
}

/// The batch again; shared frames stay shared (no copy).
pub(super) fn decode(mut payload: Bytes) -> Option<Batch> {
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
        batch.push(match own {
            true => match serde_json::from_slice::<ServerMsg>(&text) {
                Ok(msg) => Out::own(msg),
                // A message of a later release this one cannot read (the owner runs the
                // newer release during a rolling upgrade): made for this connection
                // already, it goes to the client as it came.
                Err(_) if later_release_frame(&text) => {
                    Out::Shared(Utf8Bytes::try_from(text).ok()?)
                }
                Err(_) => return None,
            },
            false => Out::Shared(Utf8Bytes::try_from(text).ok()?),
        });
    }
    Some(batch)
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
    fn a_frame_of_a_later_release_goes_to_the_client_as_it_came_and_a_broken_one_drops_the_batch() {
        let later = br#"{"type":"a_later_release_message","table_id":"x","seats":[1]}"#;
        let mut payload = vec![1u8];
        payload.extend_from_slice(&(later.len() as u32).to_le_bytes());
        payload.extend_from_slice(later);
        let back = decode(Bytes::from(payload)).unwrap();
        assert!(matches!(&back[..], [Out::Shared(t)] if t.as_str().as_bytes() == later));
        let broken = br#"["not", "a message"]"#;
        let mut payload = vec![1u8];
        payload.extend_from_slice(&(broken.len() as u32).to_le_bytes());
        payload.extend_from_slice(broken);
        assert!(decode(Bytes::from(payload)).is_none());
    }

    #[test]
    fn a_table_moving_to_another_node_is_refused_with_its_own_retryable_code() {
        use crate::table::Refusal;
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

    /// Starts Debian's `nats-server` on a free loopback port (killed when dropped).
    struct Nats(std::process::Child, String);
    impl Drop for Nats {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    fn nats() -> Nats {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let path = std::env::var_os("PATH").unwrap_or_default();
        let binary = std::env::split_paths(&path)
            .chain(["/usr/sbin", "/usr/bin", "/usr/local/bin"].map(std::path::PathBuf::from))
            .map(|dir| dir.join("nats-server"))
            .find(|p| p.is_file())
            .expect("nats-server is not installed (Debian's package; .ci/setup installs it)");
        let child = std::process::Command::new(binary)
            .args(["-a", "127.0.0.1", "-p", &port.to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Held from here, so that it is killed however the test ends.
        let server = Nats(child, format!("nats://127.0.0.1:{port}"));
        for _ in 0..200 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return server;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("nats-server did not start on {port}");
    }

    /// Two requests of one connection to tables of another node may each find it without
    /// an inbox and make one at the same moment (the NATS subscription is awaited between
    /// the look and the note): the connection must still have one inbox, else the owner of
    /// one table would look up the other's and order its answers after nothing.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_connection_asking_for_an_inbox_many_times_at_once_gets_one() {
        let server = nats();
        let config = crate::config::ClusterConfig {
            nats_url: server.1.clone(),
            node: "n1".into(),
            lease_ms: 3000,
            heartbeat_ms: 300,
        };
        let cluster = Cluster::connect(&config, Arc::new(crate::metrics::Metrics::default()))
            .await
            .unwrap();
        for round in 0..50 {
            let (queue, _rx) = mpsc::channel::<Batch>(8);
            let start = Arc::new(tokio::sync::Barrier::new(8));
            let asks: Vec<_> = (0..8)
                .map(|_| {
                    let (cluster, queue, start) = (cluster.clone(), queue.clone(), start.clone());
                    tokio::spawn(async move {
                        start.wait().await;
                        cluster.inbox(queue).await.unwrap()
                    })
                })
                .collect();
            let mut subjects = HashSet::new();
            for ask in asks {
                subjects.insert(ask.await.unwrap());
            }
            let made = lock(&cluster.inboxes)
                .iter()
                .filter(|i| i.queue.same_channel(&queue))
                .count();
            assert_eq!(
                (subjects.len(), made),
                (1, 1),
                "round {round}: one connection got inboxes {subjects:?}, {made} noted"
            );
            assert_eq!(cluster.inbox_of(&queue), subjects.into_iter().next());
        }
    }
}
