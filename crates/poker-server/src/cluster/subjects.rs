//! The NATS subjects the nodes talk on and what goes on each: one place for their names and
//! payloads, so no subject is a string literal elsewhere and no payload an anonymous tuple.

use crate::sessions::SessionEnd;
use crate::table::Request;
use poker_protocol::TableSummary;
use poker_store::TableId;
use serde::{Deserialize, Serialize};

/// Requests for a table, answered by its owner ([`Envelope`] in, [`crate::table::Answer`]
/// out).
pub(super) fn table(table: TableId) -> String {
    format!("pokerd.table.{table}")
}

/// Answered by a node at once, to show NATS reaches it (empty payloads).
pub(super) fn alive(node: &str) -> String {
    format!("pokerd.alive.{node}")
}

/// A new inbox of a connection queue on `node`: where owners send the batches of the
/// tables it joined.
pub(super) fn new_inbox(node: &str) -> String {
    format!("pokerd.inbox.{node}.{}", TableId::new())
}

/// The node an inbox is on.
pub(super) fn inbox_node(inbox: &str) -> Option<&str> {
    inbox
        .strip_prefix("pokerd.inbox.")
        .and_then(|rest| rest.rsplit_once('.'))
        .map(|(node, _)| node)
}

/// Where a connection's node says the connection is gone (empty payload).
pub(super) fn gone(inbox: &str) -> String {
    format!("{inbox}.gone")
}

/// Lobby changes of each node's tables ([`LobbyChange`]).
pub(super) const LOBBY: &str = "pokerd.lobby";
/// A node that starts asks the others for their tables' summaries (empty payload).
pub(super) const LOBBY_HELLO: &str = "pokerd.lobby.hello";
/// A node started serving a table ([`Moved`]): connections that joined it subscribe there.
pub(super) const MOVED: &str = "pokerd.moved";
/// Each node says it is up every heartbeat, and that it leaves ([`NodeHeard`]).
pub(super) const NODE: &str = "pokerd.node";
/// A node let a table go between hands ([`Released`]): the others take it at once.
pub(super) const RELEASED: &str = "pokerd.released";
/// Sessions that ended ([`SessionEnded`]); each node answers once its connections of
/// them have stopped.
pub(super) const SESSION_ENDED: &str = "pokerd.session.ended";

/// A request for a table on another node.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Envelope {
    /// What is asked.
    pub(super) request: Request,
    /// The connection queue's inbox, for requests that take a queue.
    pub(super) inbox: Option<String>,
}

/// What goes on [`LOBBY`].
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct LobbyChange {
    /// The node whose table it is.
    pub(super) node: String,
    /// The table as the lobby shows it.
    pub(super) summary: TableSummary,
}

/// What goes on [`MOVED`].
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Moved {
    /// The table's new owner.
    pub(super) node: String,
    /// The table.
    pub(super) table: TableId,
}

/// What goes on [`NODE`].
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct NodeHeard {
    /// The node.
    pub(super) node: String,
    /// Up (every heartbeat) or leaving.
    pub(super) up: bool,
    /// The node's format version ([`super::wire`]; absent from the release before: 1).
    #[serde(default = "super::wire::previous")]
    pub(super) wire: u32,
}

/// What goes on [`RELEASED`].
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Released {
    /// The node that let it go.
    pub(super) node: String,
    /// The table.
    pub(super) table: TableId,
}

/// What goes on [`SESSION_ENDED`].
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct SessionEnded {
    /// The node that ended them (it ends its own connections itself).
    pub(super) node: String,
    /// Which sessions, and why.
    pub(super) end: SessionEnd,
}

/// A payload as JSON (every payload here serializes).
pub(super) fn json<T: Serialize>(payload: &T) -> bytes::Bytes {
    serde_json::to_vec(payload)
        .expect("payloads serialize")
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inbox_names_its_node() {
        let inbox = new_inbox("n-2.a");
        assert_eq!(inbox_node(&inbox), Some("n-2.a"));
        assert_eq!(gone(&inbox), format!("{inbox}.gone"));
        assert_eq!(inbox_node("pokerd.table.x"), None);
    }
}
