//! The wire protocol: what a player's client and the server say to each other over a
//! WebSocket, one JSON object per text frame, tagged by `type`.
//!
//! Shared by the server, bots and tests, so both ends parse exactly the same messages.
//! Every decision the server asks for carries an id; an action must name it, so a retried
//! or late action is refused instead of being applied twice. Hole cards appear only in
//! their owner's messages until shown at showdown.

use poker_rules::{Action, Card, Chips, Event, LegalActions};
use serde::{Deserialize, Serialize};

/// What a client sends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMsg {
    /// Authenticates the connection with a session token from the login endpoint.
    Auth {
        /// The session token.
        token: String,
    },
    /// Asks for the lobby: every open table.
    ListTables,
    /// Takes a seat and buys in.
    Sit {
        /// The table.
        table_id: String,
        /// The seat number.
        seat: u32,
        /// Chips to bring from the wallet.
        buy_in: Chips,
        /// Post a live big blind at once (true) or wait for the big blind (false).
        #[serde(default = "yes")]
        post_now: bool,
    },
    /// Watches a table without playing.
    Watch {
        /// The table.
        table_id: String,
    },
    /// Acts in the current hand.
    Act {
        /// The table.
        table_id: String,
        /// The id of the decision being answered.
        decision_id: u64,
        /// The action.
        action: Action,
    },
    /// Keeps the connection alive.
    Ping,
}

fn yes() -> bool {
    true
}

/// A typed error, answered to a bad message; the connection stays open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The frame is not JSON or not a known message.
    BadMessage,
    /// The frame is larger than allowed.
    FrameTooLarge,
    /// Authenticate first, or the token is bad or expired.
    Unauthenticated,
    /// No such table.
    UnknownTable,
    /// Not your turn, or not your seat.
    NotYourTurn,
    /// The decision id is not the one being asked (late or retried action).
    StaleDecision,
    /// The action breaks a rule (amount out of range, off the betting unit...).
    IllegalAction,
    /// Buying in outside the limits, seat taken, already seated...
    SeatRefused,
    /// Not enough money in the wallet.
    InsufficientFunds,
    /// Too many messages: slow down.
    RateLimited,
    /// Something failed on the server (details are logged, not shown).
    Internal,
}

/// A seat as everyone sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatView {
    /// Seat number.
    pub seat: u32,
    /// Player name.
    pub name: String,
    /// Chips on the table.
    pub stack: Chips,
    /// Sitting out.
    pub sitting_out: bool,
}

/// One table in the lobby.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSummary {
    /// Id.
    pub table_id: String,
    /// Name.
    pub name: String,
    /// Game and structure, e.g. "NT" or "PO".
    pub game: String,
    /// Blinds or stakes, e.g. "1/2".
    pub stakes: String,
    /// Seats taken.
    pub players: u32,
    /// Seats in all.
    pub seats: u32,
}

/// What the server sends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// The connection is authenticated.
    Welcome {
        /// The player's id.
        player_id: String,
        /// The player's name.
        name: String,
    },
    /// A refused message, with why.
    Error {
        /// What kind of error.
        code: ErrorCode,
        /// A human-readable explanation.
        message: String,
    },
    /// The lobby.
    Tables {
        /// Every open table.
        tables: Vec<TableSummary>,
    },
    /// The full state of a table as this client may see it (after joining, watching or
    /// reconnecting).
    Snapshot {
        /// The table.
        table_id: String,
        /// The seats.
        seats: Vec<SeatView>,
        /// The hand in progress, if any.
        hand_number: Option<u64>,
        /// This client's hole cards in that hand.
        hole_cards: Vec<Card>,
        /// The board.
        board: Vec<Card>,
    },
    /// Something happened in a hand (hole cards redacted for everyone but their owner).
    Event {
        /// The table.
        table_id: String,
        /// The hand's number at the table.
        hand_number: u64,
        /// Player index in the hand to seat number.
        seats: Vec<u32>,
        /// The event.
        event: Event,
    },
    /// The server asks this client to act.
    Decide {
        /// The table.
        table_id: String,
        /// Name it in the answer.
        decision_id: u64,
        /// Exactly what is allowed.
        legal: LegalActions,
    },
    /// Answer to a ping.
    Pong,
}

impl ServerMsg {
    /// A typed error message.
    pub fn error(code: ErrorCode, message: impl Into<String>) -> ServerMsg {
        ServerMsg::Error {
            code,
            message: message.into(),
        }
    }
}

/// Parses a client frame, with a typed error for anything malformed.
pub fn parse_client(text: &str) -> Result<ClientMsg, ServerMsg> {
    serde_json::from_str(text).map_err(|e| {
        ServerMsg::error(
            ErrorCode::BadMessage,
            format!("cannot read the message: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_messages_round_trip_through_json() {
        let msgs = vec![
            ClientMsg::Auth { token: "t".into() },
            ClientMsg::ListTables,
            ClientMsg::Sit {
                table_id: "x".into(),
                seat: 2,
                buy_in: 200,
                post_now: false,
            },
            ClientMsg::Act {
                table_id: "x".into(),
                decision_id: 7,
                action: Action::BetOrRaiseTo { to: 40 },
            },
            ClientMsg::Ping,
        ];
        for m in msgs {
            let text = serde_json::to_string(&m).unwrap();
            assert_eq!(parse_client(&text).unwrap(), m);
        }
        let act: ClientMsg = serde_json::from_str(
            r#"{"type":"act","table_id":"x","decision_id":3,"action":{"type":"call"}}"#,
        )
        .unwrap();
        assert!(matches!(
            act,
            ClientMsg::Act {
                action: Action::Call,
                ..
            }
        ));
    }

    #[test]
    fn malformed_frames_get_a_typed_error() {
        for bad in [
            "",
            "{",
            "[]",
            r#"{"type":"fly"}"#,
            r#"{"type":"sit","table_id":1}"#,
        ] {
            match parse_client(bad) {
                Err(ServerMsg::Error { code, .. }) => assert_eq!(code, ErrorCode::BadMessage),
                other => panic!("{bad:?} gave {other:?}"),
            }
        }
    }
}
