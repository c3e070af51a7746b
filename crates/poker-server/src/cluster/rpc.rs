//! Requests for tables another node owns: sent on the table's subject and answered by its
//! owner, within about a heartbeat. A request nobody receives (the table is between two
//! owners) is sent again for a moment; one not answered in time is `table_moving` for the
//! client, whose connection follows the table to its next owner.

use super::subjects::{self, Envelope};
use super::Cluster;
use crate::table::{Answer, Batch, Refusal, RemoteRoute, Request};
use crate::AppState;
use futures_util::future::BoxFuture;
use futures_util::StreamExt;
use poker_store::TableId;
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::sync::mpsc;

/// How often a request that reached nobody is sent again before the client is told the
/// table is moving.
const UNHEARD_RETRIES: u32 = 3;

/// The route of remote table handles: this node's NATS client.
pub(super) struct Rpc {
    cluster: Weak<Cluster>,
}

impl Rpc {
    pub(super) fn new(cluster: &Arc<Cluster>) -> Rpc {
        Rpc {
            cluster: Arc::downgrade(cluster),
        }
    }
}

impl RemoteRoute for Rpc {
    fn request(
        &self,
        table: TableId,
        request: Request,
        queue: Option<mpsc::Sender<Batch>>,
    ) -> BoxFuture<'_, Answer> {
        Box::pin(async move {
            let Some(cluster) = self.cluster.upgrade() else {
                return Err(Refusal::Moving);
            };
            let inbox = match (request.takes_queue(), queue) {
                (true, Some(queue)) => match cluster.inbox(queue).await {
                    Ok(inbox) => Some(inbox),
                    Err(e) => {
                        tracing::error!("cannot make an inbox: {e}");
                        return Err(Refusal::Internal("try again".into()));
                    }
                },
                // An action: its connection's inbox, if it has one (none is made for it),
                // so that the owner answers only once it has published the action's
                // events there.
                (false, Some(queue)) => cluster.inbox_of(&queue),
                _ => None,
            };
            cluster.call(table, request, inbox).await
        })
    }
}

impl Cluster {
    /// Asks a table's owner, the connection's queue standing as `inbox`.
    pub(super) async fn call(
        &self,
        table: TableId,
        request: Request,
        inbox: Option<String>,
    ) -> Answer {
        let patience = request.patience(self.heartbeat);
        let envelope = Envelope { request, inbox };
        let payload = subjects::json(&envelope);
        let mut unheard = 0;
        loop {
            let ask = async_nats::Request::new()
                .headers(super::wire::headers())
                .payload(payload.clone())
                .timeout(Some(patience));
            let sent = tokio::time::Instant::now();
            // The patience holds from the start: with NATS down, the client's queue of
            // commands fills up, and a request waits for room there until NATS is back.
            let asked = tokio::time::timeout(
                patience,
                self.nats.send_request(subjects::table(table), ask),
            );
            let Ok(asked) = asked.await else {
                tracing::info!("table {table}: no answer within {patience:?}");
                return Err(Refusal::Moving);
            };
            match asked {
                Ok(message) => {
                    self.metrics.nats_round_trip.observe(sent.elapsed());
                    let answer =
                        serde_json::from_slice::<Answer>(&message.payload).unwrap_or_else(|e| {
                            Err(Refusal::Internal(format!("an unreadable answer: {e}")))
                        });
                    self.note(table, &envelope, &answer);
                    return answer;
                }
                // Nobody serves it this moment (its new owner is starting): once more,
                // shortly. Nothing was delivered, so nothing can be done twice.
                Err(e)
                    if e.kind() == async_nats::client::RequestErrorKind::NoResponders
                        && unheard < UNHEARD_RETRIES =>
                {
                    unheard += 1;
                    tokio::time::sleep(Duration::from_millis(100) * unheard).await;
                }
                // Nobody owns it right now (its node stopped and the lease has not expired
                // yet), or its node does not answer in time.
                Err(e) => {
                    tracing::info!("table {table}: {e}");
                    return Err(Refusal::Moving);
                }
            }
        }
    }

    /// Starts answering a table's requests (its actor runs here, under this token), and
    /// tells every node it moved here, so connections that joined it subscribe here.
    pub(crate) async fn serve(
        self: &Arc<Cluster>,
        state: &Arc<AppState>,
        table: TableId,
        token: u64,
    ) -> anyhow::Result<()> {
        let subscriber = self.nats.subscribe(subjects::table(table)).await?;
        let task = tokio::spawn(serve_table(
            Arc::downgrade(state),
            self.clone(),
            table,
            subscriber,
        ));
        if !state.tables.serving(table, token, task.abort_handle()) {
            return Ok(());
        }
        let moved = subjects::Moved {
            node: self.node.clone(),
            table,
        };
        let _ = super::wire::publish(&self.nats, subjects::MOVED, subjects::json(&moved)).await;
        Ok(())
    }
}

/// Answers the requests of one table this node owns, each in its own task (the actor
/// orders them).
async fn serve_table(
    state: Weak<AppState>,
    cluster: Arc<Cluster>,
    table: TableId,
    mut requests: async_nats::Subscriber,
) {
    // The queue made for each remote inbox, so a connection subscribing again replaces
    // its subscription instead of adding one (weak: the actor holds the queue).
    let queues: super::inbox::Queues = Arc::default();
    while let Some(message) = requests.next().await {
        let Some(reply) = message.reply.clone() else {
            continue;
        };
        let Some(state) = state.upgrade() else { return };
        let cluster = cluster.clone();
        let queues = queues.clone();
        tokio::spawn(async move {
            let answer = match serde_json::from_slice::<Envelope>(&message.payload) {
                Ok(envelope) => answer(&state, &cluster, table, &queues, envelope).await,
                Err(e) => Err(unreadable(
                    super::wire::version_of(message.headers.as_ref()),
                    &e,
                )),
            };
            let _ = super::wire::publish(&cluster.nats, reply, subjects::json(&answer)).await;
        });
    }
}

/// The refusal of a request this node cannot read: from a node of a later release (a
/// request this release does not know: the client is told to try again once the upgrade
/// is done), or broken.
fn unreadable(wire: u32, e: &serde_json::Error) -> Refusal {
    if wire > super::wire::WIRE_VERSION {
        tracing::info!(
            "a request of the node-to-node format {wire} that this node cannot read: {e}"
        );
        Refusal::Internal(format!(
            "this table's server runs an older release (format {}, the request's {wire}) \
             that cannot do this: try again once the upgrade is done",
            super::wire::WIRE_VERSION
        ))
    } else {
        tracing::error!("an unreadable request (format {wire}): {e}");
        Refusal::Internal(format!("an unreadable request: {e}"))
    }
}

/// Asks the table here, the inbox standing for the remote connection's queue.
async fn answer(
    state: &Arc<AppState>,
    cluster: &Arc<Cluster>,
    table: TableId,
    queues: &super::inbox::Queues,
    envelope: Envelope,
) -> Answer {
    let Some(handle) = state.tables.get(table) else {
        return Err(Refusal::Moving);
    };
    let Envelope { request, inbox } = envelope;
    // Half the asking node's patience for the forwarder: the answer still reaches it.
    let patience = request.patience(cluster.heartbeat) / 2;
    let mut forward = None;
    let queue = match (inbox, &request) {
        // A connection of this node (it asked while the table was between owners, and
        // the answer came from here): its own queue, which the actor knows as such, so
        // that subscribing it again here never adds a second subscriber.
        (Some(inbox), _) if cluster.local_queue(&inbox).is_some() => cluster.local_queue(&inbox),
        // Only a queue made already can be unsubscribed.
        (Some(inbox), Request::Unsubscribe) => cluster.forwarding(queues, &inbox).map(|f| f.queue),
        // An action: the queue its events go to, so that its answer follows them; never
        // made for it (it subscribes nothing).
        (Some(inbox), request) if !request.takes_queue() => {
            forward = cluster.forwarding(queues, &inbox);
            forward.as_ref().map(|f| f.queue.clone())
        }
        (Some(inbox), _) => {
            let made = cluster.forwarder(queues, inbox).await;
            let queue = made.queue.clone();
            forward = Some(made);
            Some(queue)
        }
        (None, _) => None,
    };
    if matches!(request, Request::Unsubscribe) && queue.is_none() {
        return Ok(crate::table::Reply::Ok);
    }
    if matches!(request, Request::Close) {
        return state
            .tables
            .close(state, &handle)
            .await
            .map(crate::table::Reply::Closed);
    }
    let answer = handle.request(request, queue).await;
    // What the request made for the inbox (an action's event: the table queued it before
    // answering) is published before the answer, never after it.
    if let Some(forward) = forward {
        forward.published(patience).await;
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_this_node_cannot_read_is_refused_naming_both_formats_when_it_is_of_a_later_release(
    ) {
        let later = br#"{"request":{"AReleaseLaterRequest":{"player":"x"}},"inbox":null}"#;
        let e = serde_json::from_slice::<Envelope>(later).unwrap_err();
        let later_text = unreadable(super::super::wire::WIRE_VERSION + 1, &e).to_string();
        assert!(later_text.contains("older release"), "{later_text}");
        assert!(later_text.contains(&format!("format {}", super::super::wire::WIRE_VERSION)));
        assert!(later_text.contains("try again once the upgrade is done"));
        let broken = unreadable(super::super::wire::WIRE_VERSION, &e).to_string();
        assert!(broken.starts_with("an unreadable request"), "{broken}");
        assert!(!broken.contains("older release"));
    }
}
