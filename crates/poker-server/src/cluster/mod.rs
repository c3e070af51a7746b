//! Several `pokerd` nodes sharing one PostgreSQL, talking through NATS: the transport
//! between the nodes' registries ([`crate::registry`]), in files by job.
//!
//! - `subjects`: the subjects and their payloads, typed.
//! - `leases`: each table is owned by one node through a lease row (`table_lease`: node,
//!   fencing token, expiry). The owner renews its leases every heartbeat; a node that stops
//!   (killed, cut off) stops renewing, and once a lease has expired another node takes the
//!   table by fair share: it voids the hand that was cut (stacks as it began), reseats
//!   everyone from the store and says the table moved. An owner whose lease lapsed while
//!   the database or NATS was out, and nobody took it, renews it and plays on: an outage
//!   shorter than the lease changes no owner and voids nothing. Every finished hand carries
//!   its lease's token and the store refuses it once the lease has passed on, so a stale
//!   owner never commits a hand. A node over its fair share hands a table over between two
//!   hands (drained, then released), and a node shutting down hands over every table so,
//!   each as soon as its own hand ends; the others hear a table released and take it at
//!   once.
//! - `rpc`: any node accepts any player; a request for a table another node owns goes to it
//!   on `pokerd.table.<id>` and is answered there, within about a heartbeat (else the
//!   client hears `table_moving`).
//! - `inbox`: the owner sends the table's messages for a connection of another node to that
//!   connection's inbox subject, one NATS message per batch; when the connection ends its
//!   node says so on `<inbox>.gone` and the owner stops sending.
//! - `gossip`: lobby changes, nodes heard, tables moved, and sessions that ended (a logout,
//!   a staff action), which each node answers once its connections of them have stopped.
//! - `wire`: the format's version every message carries, so that two releases run side by
//!   side while a new one is rolled across the cluster; `compat` (tests) reads the previous
//!   release's payloads.
//!
//! Without `cluster.nats_url` none of this runs: one process owns every table.

use crate::table::TableHandle;
use poker_store::TableId;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{watch, Notify};

#[cfg(test)]
mod compat;
mod gossip;
mod inbox;
mod leases;
mod rpc;
mod subjects;
pub(crate) mod wire;

/// This node's part of the cluster.
pub struct Cluster {
    /// The node's name.
    pub node: String,
    nats: async_nats::Client,
    lease_ms: u64,
    heartbeat: Duration,
    /// The inbox of each connection queue subscribed to a table on another node.
    inboxes: Mutex<Vec<inbox::Inbox>>,
    /// The other nodes heard on `pokerd.node`, and when: a node that holds no lease yet
    /// (it just started) counts in the fair share as soon as it is heard.
    peers: Mutex<HashMap<String, tokio::time::Instant>>,
    /// The format version each node up speaks ([`wire`]), and when it was last heard.
    peer_wires: Mutex<HashMap<String, (u32, tokio::time::Instant)>>,
    /// The other nodes heard leaving (shutting down): not counted in the fair share, though
    /// they still hold the tables whose hands are ending, so the others take those as they
    /// come free. A node heard up again (started anew under its name) counts again.
    departing: Mutex<HashSet<String>>,
    /// This node is leaving (shutting down): it takes nothing, says so every heartbeat,
    /// and renews only the leases of the tables it has yet to hand over.
    leaving: AtomicBool,
    /// Keeps this node's announcements in the order they are made (a heartbeat's "up"
    /// never follows the "leaving" of a shutdown).
    announcing: tokio::sync::Mutex<()>,
    /// Runs the next heartbeat at once: another node let a table go.
    nudge: Notify,
    /// The lapsed leases of live nodes, and since when this node has seen each lapsed:
    /// their owner gets a lease's lifetime to renew them before another node takes them.
    lapsed: Mutex<HashMap<TableId, tokio::time::Instant>>,
    /// Until when this node takes no table: just started, or NATS just came back, it first
    /// hears which nodes are up (and their owners renew what lapsed meanwhile).
    settling: Mutex<tokio::time::Instant>,
    /// Counts the NATS client's (re)connections: each one, every connection here
    /// subscribes again to the tables it follows.
    connected: watch::Receiver<u64>,
    /// The RPC route of remote table handles.
    route: Mutex<Option<Arc<rpc::Rpc>>>,
    /// The node's counters (`/metrics`): NATS round trips and connection, lease moves.
    metrics: Arc<crate::metrics::Metrics>,
}

/// How a node proves itself to NATS: the user information of `cluster.nats_url`
/// (`nats://TOKEN@host:4222`, or `nats://USER:PASSWORD@host:4222`, percent-encoded as in
/// any URL). The NATS client reads no credentials from the URL itself, and whoever can
/// publish on the cluster's subjects can speak for any node, so a deployment beyond one
/// machine runs nats-server with `--auth` (docker-compose.yml does).
#[derive(Debug, PartialEq, Eq)]
enum NatsAuth {
    Token(String),
    User(String, String),
}

/// The server list without user information, and the credentials of the first server
/// that has some (one cluster, one set of credentials).
fn nats_credentials(urls: &str) -> (String, Option<NatsAuth>) {
    let mut auth = None;
    let servers: Vec<String> = urls
        .split(',')
        .map(|url| {
            let url = url.trim();
            let Some(scheme) = url.find("://") else {
                return url.to_string();
            };
            let rest = &url[scheme + 3..];
            let authority_end = rest.find('/').unwrap_or(rest.len());
            // The user information ends at the last `@` of the authority.
            let Some(at) = rest[..authority_end].rfind('@') else {
                return url.to_string();
            };
            if auth.is_none() {
                auth = Some(match rest[..at].split_once(':') {
                    Some((user, password)) => {
                        NatsAuth::User(percent_decoded(user), percent_decoded(password))
                    }
                    None => NatsAuth::Token(percent_decoded(&rest[..at])),
                });
            }
            format!("{}{}", &url[..scheme + 3], &rest[at + 1..])
        })
        .collect();
    (servers.join(","), auth)
}

/// `%XX` escapes decoded (anything else, including a malformed escape, kept as is).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Cluster {
    /// Connects to NATS as this node, counting in `metrics` what the cluster does.
    pub async fn connect(
        config: &crate::config::ClusterConfig,
        metrics: Arc<crate::metrics::Metrics>,
    ) -> anyhow::Result<Arc<Cluster>> {
        let node = if config.node.is_empty() {
            let host = std::fs::read_to_string("/etc/hostname")
                .map(|h| h.trim().to_string())
                .unwrap_or_else(|_| "node".into());
            format!("{host}-{}", std::process::id())
        } else {
            config.node.clone()
        };
        let heartbeat = Duration::from_millis(config.heartbeat_ms.max(1));
        let (connections, connected) = watch::channel(0u64);
        let (servers, auth) = nats_credentials(&config.nats_url);
        let seen = metrics.clone();
        let options = match auth {
            Some(NatsAuth::Token(token)) => async_nats::ConnectOptions::with_token(token),
            Some(NatsAuth::User(user, password)) => {
                async_nats::ConnectOptions::with_user_and_password(user, password)
            }
            None => async_nats::ConnectOptions::new(),
        };
        let nats = options
            .name(format!("pokerd {node}"))
            .request_timeout(Some(Duration::from_secs(5)))
            // Back within a heartbeat of the server's return, not after the client's
            // default backoff (seconds): an outage shorter than the lease must stay so.
            .reconnect_delay_callback(move |attempts| {
                (Duration::from_millis(50) * attempts as u32).min(heartbeat / 2)
            })
            .event_callback(move |event| {
                let connections = connections.clone();
                let seen = seen.clone();
                async move {
                    match event {
                        async_nats::Event::Connected => {
                            connections.send_modify(|n| *n += 1);
                            seen.nats_connected.store(1, Ordering::Relaxed);
                            tracing::info!("NATS connected");
                        }
                        async_nats::Event::Disconnected => {
                            seen.nats_connected.store(0, Ordering::Relaxed);
                            tracing::warn!("NATS disconnected")
                        }
                        other => tracing::info!("NATS: {other}"),
                    }
                }
            })
            .connect(servers.as_str())
            .await
            .map_err(|e| {
                anyhow::anyhow!(
                    "cannot reach NATS at {}: {e}",
                    crate::config::redact_url(&config.nats_url)
                )
            })?;
        let cluster = Arc::new(Cluster {
            node,
            nats,
            lease_ms: config.lease_ms.max(1),
            heartbeat,
            inboxes: Mutex::new(Vec::new()),
            peers: Mutex::new(HashMap::new()),
            peer_wires: Mutex::new(HashMap::new()),
            departing: Mutex::new(HashSet::new()),
            leaving: AtomicBool::new(false),
            announcing: tokio::sync::Mutex::new(()),
            nudge: Notify::new(),
            lapsed: Mutex::new(HashMap::new()),
            settling: Mutex::new(tokio::time::Instant::now()),
            connected,
            route: Mutex::new(None),
            metrics,
        });
        cluster.unsettle();
        *lock(&cluster.route) = Some(Arc::new(rpc::Rpc::new(&cluster)));
        Ok(cluster)
    }

    /// A handle to a table another node owns.
    pub fn remote(self: &Arc<Cluster>, table_id: TableId) -> TableHandle {
        let route = lock(&self.route)
            .clone()
            .unwrap_or_else(|| Arc::new(rpc::Rpc::new(self)));
        TableHandle::remote(route, table_id)
    }

    /// How long after a renewal began the actor may act on it: the lease's lifetime less
    /// one heartbeat, for the clocks' drift and the renewal's own time.
    fn hold(&self) -> Duration {
        let lease = Duration::from_millis(self.lease_ms);
        lease.saturating_sub(self.heartbeat).max(lease / 2)
    }

    /// Takes no table for the next two heartbeats (every live node announces itself
    /// meanwhile).
    fn unsettle(&self) {
        *lock(&self.settling) = tokio::time::Instant::now() + self.heartbeat * 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nats_urls_credentials_are_taken_out_and_given_to_the_client() {
        assert_eq!(
            nats_credentials("nats://127.0.0.1:4222"),
            ("nats://127.0.0.1:4222".to_string(), None)
        );
        assert_eq!(
            nats_credentials("nats://s3cr%40t@nats:4222"),
            (
                "nats://nats:4222".to_string(),
                Some(NatsAuth::Token("s3cr@t".into()))
            )
        );
        assert_eq!(
            nats_credentials("nats://pokerd:p%3Ass@a:4222, nats://pokerd:p%3Ass@b:4222"),
            (
                "nats://a:4222,nats://b:4222".to_string(),
                Some(NatsAuth::User("pokerd".into(), "p:ss".into()))
            )
        );
        // A malformed escape is kept as written, not dropped.
        assert_eq!(percent_decoded("a%zz%4"), "a%zz%4");
    }
}
