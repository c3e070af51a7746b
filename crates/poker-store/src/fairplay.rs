//! What the store keeps for fair play: the client address each player sat down from (by
//! table, and every one a player has used), and the pairs of players a table seated from
//! one address under `room.same_address_seating = "flag"`.

use serde::{Deserialize, Serialize};

use crate::*;

/// Two players seated at one table from one client address: `player_id` sat down while
/// `other_id` was seated there. Kept for the floor (the console lists them with the hands
/// the two played together).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddressFlag {
    /// The flag's id (a UUID).
    pub flag_id: String,
    /// The table.
    pub table_id: TableId,
    /// Who sat down.
    pub player_id: PlayerId,
    /// Who was seated there already, from the same address.
    pub other_id: PlayerId,
    /// The address both came from: an IPv4 address, or an IPv6 /64 (`2001:db8:1:2::/64`).
    pub address: String,
    /// When (unix milliseconds).
    pub at: i64,
}

/// An address a player has sat down from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerAddress {
    /// Who.
    pub player_id: PlayerId,
    /// The address (IPv4, or an IPv6 /64).
    pub address: String,
    /// The first sit from it (unix milliseconds).
    pub first_at: i64,
    /// The last sit from it.
    pub last_at: i64,
    /// How many times they sat down from it.
    pub sits: u64,
}

/// The longest address the store keeps (an IPv6 /64 with its suffix is at most 23).
pub const MAX_ADDRESS_LEN: usize = 64;
