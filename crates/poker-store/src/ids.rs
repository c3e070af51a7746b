//! The store's ids come from `poker-ids` (shared with the protocol and the server); the
//! backend is the store's own.

use serde::{Deserialize, Serialize};

pub use poker_ids::{HandId, PlayerId, TableId};

/// Which database a store talks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    /// PostgreSQL.
    Postgres,
    /// An embedded SQLite file.
    Sqlite,
}
