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

/// What the collusion report reads of a complete hand ([`SqlStore::fair_play_hands`]):
/// who was dealt in, their stacks and their folds to each other's bets, not the deck, the
/// posts or the history a hand's row also keeps (most of its bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FairPlayHand {
    /// The hand.
    pub hand_id: HandId,
    /// When it was dealt (unix milliseconds).
    pub started_at: i64,
    /// The record's players, stacks and folds; `None` for a hand stored without a record.
    pub facts: Option<HandFacts>,
    /// The hand's history, read only when its record lacks the folds (a record written
    /// before the table kept them): the report replays it for them.
    pub phh: Option<String>,
}

/// The fields of a [`HandRecord`] the collusion report needs, read alone from its JSON.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct HandFacts {
    /// Each player's id, in the hand's order.
    pub seat_players: Vec<PlayerId>,
    /// Each player's stack as the hand began.
    pub starting_stacks: Vec<Chips>,
    /// Each player's stack as it ended.
    pub finishing_stacks: Vec<Chips>,
    /// The folds made facing another player's bet (`HandRecord::folds`).
    #[serde(default)]
    pub folds: Option<Vec<FoldFact>>,
}

impl From<&HandRecord> for HandFacts {
    /// The report's fields of a record.
    fn from(r: &HandRecord) -> HandFacts {
        HandFacts {
            seat_players: r.seat_players.clone(),
            starting_stacks: r.starting_stacks.clone(),
            finishing_stacks: r.finishing_stacks.clone(),
            folds: r.folds.clone(),
        }
    }
}

impl From<&HandRow> for FairPlayHand {
    /// What [`SqlStore::fair_play_hands`] reads of this hand.
    fn from(row: &HandRow) -> FairPlayHand {
        let facts = row.record.as_ref().map(HandFacts::from);
        let replayed = facts.as_ref().is_some_and(|f| f.folds.is_none());
        FairPlayHand {
            hand_id: row.hand_id,
            started_at: row.started_at,
            facts,
            phh: row.phh.clone().filter(|_| replayed),
        }
    }
}
