//! Fair play: who may sit at one table with whom (`room.same_address_seating`), and the
//! collusion report the floor reads in the console ([`report`]).
//!
//! A connection's client address is known at the WebSocket upgrade (the peer, or behind a
//! trusted proxy the address `server.client_address_header` names), bucketed as the login
//! guards count it: an IPv4 address, an IPv6 address by its /64. A sit carries it to the
//! table's actor (through the cluster's request when another node owns the table), which
//! refuses, flags or allows a second player from that address; house bots, the room's
//! own accounts, sit without one.

pub mod report;

use serde::{Deserialize, Serialize};
use std::net::IpAddr;

/// What a table does when a player sits down from the client address of a player seated
/// there already.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SameAddressSeating {
    /// The sit is refused (`same_address`) and nothing moves.
    Refuse,
    /// The player sits, and the pair is recorded for the floor.
    Flag,
    /// Nothing is checked.
    Allow,
}

impl SameAddressSeating {
    /// The setting's value: `refuse`, `flag` or `allow` (`auto` is resolved by the
    /// configuration).
    pub fn parse(value: &str) -> Option<SameAddressSeating> {
        match value {
            "refuse" => Some(SameAddressSeating::Refuse),
            "flag" => Some(SameAddressSeating::Flag),
            "allow" => Some(SameAddressSeating::Allow),
            _ => None,
        }
    }
}

/// An address bucket as the store keeps and the console shows it: `203.0.113.7`, or
/// `2001:db8:1:2::/64` for an IPv6 client (the bucket is its /64).
pub fn address_label(bucket: IpAddr) -> String {
    match bucket {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => format!("{v6}/64"),
    }
}

/// The address a sit carries to the table: the connection's, or none for a house bot
/// (the room's own account, exempt from the rule; all of them connect from 127.0.0.1).
pub fn sit_address(bot: bool, connection: IpAddr) -> Option<IpAddr> {
    (!bot).then_some(connection)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sit_from_an_older_node_without_an_address_still_reads() {
        // Nodes are upgraded one at a time: a Sit request without the address field is
        // read as one without an address (not checked), not refused.
        let player = poker_store::PlayerId::new();
        let older = serde_json::json!({"Sit": {
            "player": player, "name": "ann", "seat": 1, "buy_in": 100,
            "entry": "post_now"
        }});
        let request: crate::table::Request = serde_json::from_value(older).unwrap();
        assert!(matches!(
            request,
            crate::table::Request::Sit { address: None, .. }
        ));
    }

    #[test]
    fn addresses_are_labelled_as_their_buckets() {
        assert_eq!(address_label("203.0.113.7".parse().unwrap()), "203.0.113.7");
        assert_eq!(
            address_label("2001:db8:1:2::".parse().unwrap()),
            "2001:db8:1:2::/64"
        );
        assert_eq!(
            SameAddressSeating::parse("flag"),
            Some(SameAddressSeating::Flag)
        );
        assert_eq!(SameAddressSeating::parse("auto"), None);
    }
}
