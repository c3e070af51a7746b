//! Private games: what a host's commands, a private table's view and the HTTP calls that
//! make one and read its invite link carry (docs/protocol.md, "Private games").

use crate::{PlayerId, TableId};
use poker_rules::Chips;
use serde::{Deserialize, Serialize};

/// What a private table's host may do (`{"type": "host", "command": {"do": "pause"}}`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "snake_case")]
pub enum HostCommand {
    /// Lets a player who asked for a seat sit down.
    Approve {
        /// Who asked.
        player_id: PlayerId,
    },
    /// Refuses a player's request for a seat.
    Deny {
        /// Who asked.
        player_id: PlayerId,
    },
    /// Deals no new hand after the one in progress (which plays to its end).
    Pause,
    /// Deals again.
    Resume,
    /// Changes the blinds from the next hand (blind games; the buy-in range follows the
    /// big blind in proportion).
    Blinds {
        /// The new small blind.
        small: Chips,
        /// The new big blind.
        big: Chips,
    },
    /// Removes a player: out of the hand in progress as one who leaves (their hand is
    /// dead), cashed out to their wallet, and not let back in.
    Remove {
        /// Who.
        player_id: PlayerId,
    },
    /// Ends the game: the hand in progress finishes, everyone is cashed out, the table
    /// closes (its invite link says so from then on).
    End,
}

/// A player asking a private table's host for a seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatAsk {
    /// Who asks.
    pub player_id: PlayerId,
    /// Their name.
    pub name: String,
}

/// What everyone at a private table sees of it besides the seats.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrivateView {
    /// The host, who approves seats and controls the game.
    pub host: PlayerId,
    /// The host's name.
    pub host_name: String,
    /// No new hand is dealt until the host resumes.
    pub paused: bool,
    /// Blinds the host set for the next hand (small, big), until it is dealt.
    pub next_blinds: Option<(Chips, Chips)>,
    /// Players waiting for the host's answer, in the order they asked.
    pub requests: Vec<SeatAsk>,
    /// Players the host let in (they sit down with an ordinary `sit`).
    pub approved: Vec<PlayerId>,
}

/// `POST /api/private`: a private table from a preset.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewPrivateTable {
    /// The preset's key: `nlhe`, `plo`, `flhe`, `stud`, `razz`, `triple_draw`.
    pub preset: String,
    /// The big blind (blind games; the small blind is half of it, the buy-in range
    /// scales with it); the preset's when absent.
    #[serde(default)]
    pub big_blind: Option<Chips>,
    /// Seats, 2 to 10; the preset's when absent.
    #[serde(default)]
    pub seats: Option<u32>,
    /// The table's name; "NAME's game" when absent.
    #[serde(default)]
    pub name: Option<String>,
    /// Seconds to act on each decision; the preset's when absent.
    #[serde(default)]
    pub action_secs: Option<u64>,
    /// Whether the table's chat is on (it is when absent).
    #[serde(default)]
    pub chat: Option<bool>,
    /// The least a player buys in for, in chips (R26); the preset's, scaled to the
    /// stakes, when absent.
    #[serde(default)]
    pub min_buy_in: Option<Chips>,
    /// The most a player buys in for, in chips (R26); the preset's, scaled to the stakes,
    /// when absent.
    #[serde(default)]
    pub max_buy_in: Option<Chips>,
    /// Run it twice when everyone left is all in and all agree (R32; games with a board).
    #[serde(default)]
    pub run_it_twice: Option<bool>,
    /// Straddles allowed (R15; blind games); the preset's when absent.
    #[serde(default)]
    pub straddle: Option<bool>,
    /// After a hand that ended before its board was out, everyone is shown the cards it
    /// would have dealt (games with a board).
    #[serde(default)]
    pub rabbit_hunt: Option<bool>,
    /// The pause to read a showdown, per pot shown down (`clock.showdown_ms`); the
    /// preset's when absent.
    #[serde(default)]
    pub showdown_ms: Option<u64>,
}

/// The answer to `POST /api/private`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrivateCreated {
    /// The new table.
    pub table_id: TableId,
    /// Its name.
    pub name: String,
    /// The invite's secret: only its hash is kept, so this answer is the one place it
    /// appears.
    pub invite: String,
    /// The link to share, relative to the server (`/#join/TABLE/INVITE`).
    pub link: String,
}

/// `GET /api/private/{table}?invite=...`: what an invite link leads to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrivateInvite {
    /// The table.
    pub table_id: TableId,
    /// Its name.
    pub name: String,
    /// The game, as players read it.
    pub game: String,
    /// The stakes.
    pub stakes: String,
    /// The host's name.
    pub host_name: String,
    /// Seats taken.
    pub players: u32,
    /// Seats in all.
    pub seats: u32,
    /// `open`, or `closed` once the game has ended.
    pub status: String,
    /// Whether the room makes an account on the spot for a newcomer (play money).
    pub play_money: bool,
}
