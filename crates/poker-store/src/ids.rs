//! The ids the store hands out: players, tables, hands (random UUIDs, written as text).

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// A player's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PlayerId(pub Uuid);

/// A table's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TableId(pub Uuid);

/// A hand's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct HandId(pub Uuid);

macro_rules! id_impls {
    ($($t:ident),*) => {$(
        impl $t {
            /// A fresh random id.
            pub fn new() -> $t {
                $t(Uuid::new_v4())
            }
        }
        impl Default for $t {
            fn default() -> $t {
                $t::new()
            }
        }
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
        impl std::str::FromStr for $t {
            type Err = uuid::Error;
            fn from_str(s: &str) -> Result<$t, uuid::Error> {
                Ok($t(s.parse()?))
            }
        }
    )*};
}
id_impls!(PlayerId, TableId, HandId);

/// Which database a store talks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    /// PostgreSQL.
    Postgres,
    /// An embedded SQLite file.
    Sqlite,
}
