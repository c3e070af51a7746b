//! Private games: what a host's commands, a private table's view and the HTTP calls that
//! make one and read its invite link carry (docs/protocol.md, "Private games").

use crate::{Game, PlayerId, Structure, TableId};
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
    /// Changes a seated player's stack between hands, as a home game's host does for a
    /// friend who buys more off the app or for a correction: chips added (a positive
    /// amount) or taken off (negative), never zero. Play-money rooms only: the chips come
    /// from the house's play money and go back to it, through the ledger.
    AdjustStack {
        /// Whose stack.
        player_id: PlayerId,
        /// Chips added (positive) or taken off (negative).
        amount: i64,
    },
    /// The next hand that can be one is a bomb pot (docs/house-games.md, H1, H2): games
    /// with a flop.
    BombPot {
        /// The bomb in big blinds; the table's scheduled size (2 without one) when absent.
        #[serde(default)]
        big_blinds: Option<u32>,
    },
}

/// Bomb pots at a table, as everyone sees them (H1, H2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BombPotView {
    /// A bomb pot every this many hands (0: only when the host calls one).
    pub every: u32,
    /// The scheduled bomb, in big blinds (0 without a schedule).
    pub big_blinds: u32,
    /// Whether the hand in progress is a bomb pot.
    pub now: bool,
    /// A bomb pot the host called for the next hand that can be one: its size in big
    /// blinds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub called: Option<u32>,
    /// The number of the next scheduled bomb pot hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_hand: Option<u64>,
}

/// One game of a dealer's choice rotation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RotationGameView {
    /// The game, typed.
    pub game_kind: Game,
    /// Its betting structure.
    pub structure: Structure,
    /// As players read it: `PL Omaha` (a label for people).
    pub game: String,
    /// Its stakes as the lobby shows them: `1/2`, `2/4`.
    pub stakes: String,
}

/// A dealer's choice rotation as everyone sees it (H3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealersChoiceView {
    /// The games, in turn.
    pub games: Vec<RotationGameView>,
    /// The game now (the hand in progress's, or the next hand's): an index in `games`.
    pub now: usize,
    /// The game after it: an index in `games`.
    pub next: usize,
    /// Hands of the game now still to be dealt after the one in progress (between
    /// hands: from the next); absent until its orbit's first hand counted the players.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hands_left: Option<u32>,
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
    /// A bomb pot every this many hands (H2; games with a flop); never when absent or 0.
    #[serde(default)]
    pub bomb_pot_every: Option<u32>,
    /// The bomb, in big blinds (H1); 2 when absent.
    #[serde(default)]
    pub bomb_pot_big_blinds: Option<u32>,
    /// Dealer's choice (H3): presets' keys played in turn, an orbit each, at the stakes
    /// asked (`preset` is then the first, or absent from the list: put first). Games with
    /// a button only: `nlhe`, `plo`, `flhe`, `triple_draw`.
    #[serde(default)]
    pub games: Option<Vec<String>>,
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
    /// Dealer's choice: the games played in turn, as players read them (empty: one
    /// game, `game`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub games: Vec<String>,
    /// Bomb pots every this many hands (0: none on a schedule).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub bomb_pot_every: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}
