//! The ids of the room: players, tables and hands.
//!
//! Each is a random (version 4) UUID, written as text on the wire and in both databases.
//! They live in their own crate so the protocol, the store and the server share one type
//! for each: a table id that does not parse is refused where the message is read, and a
//! player id can never be passed where a table id is expected.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_text_on_the_wire_and_reads_back() {
        let id = TableId::new();
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, format!("\"{id}\""));
        assert_eq!(serde_json::from_str::<TableId>(&json).unwrap(), id);
        assert_eq!(id.to_string().parse::<TableId>().unwrap(), id);
    }

    #[test]
    fn text_that_is_not_a_uuid_is_refused() {
        assert!("not-a-uuid".parse::<PlayerId>().is_err());
        assert!(serde_json::from_str::<HandId>("\"not-a-uuid\"").is_err());
        assert!(serde_json::from_str::<HandId>("7").is_err());
    }

    #[test]
    fn fresh_ids_differ() {
        assert_ne!(HandId::new(), HandId::new());
    }
}
