//! The Open Hand History document (spec 1.4.6, <https://hh-specs.handhistory.org/>) as
//! Rust types: what [`super::write`] fills in and serializes. Field names are the spec's;
//! optional fields are left out when empty, as the spec allows.

use serde::Serialize;

/// The spec version these types follow.
pub const SPEC_VERSION: &str = "1.4.6";

/// The spec's currency for play money: a currency with no monetary value.
pub const PLAY_MONEY: &str = "XPM";

/// One hand as a `.ohh` file holds it: the hand history under the key `ohh`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Document {
    /// The hand history.
    pub ohh: HandHistory,
}

/// The standardized hand history object.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HandHistory {
    /// The version of the spec the history follows.
    pub spec_version: String,
    /// The poker site (the server's name for itself).
    pub site_name: String,
    /// The network the site belongs to.
    pub network_name: String,
    /// The writer's own version.
    pub internal_version: String,
    /// Always false: the server plays cash games.
    pub tournament: bool,
    /// The hand's number, unique to the hand.
    pub game_number: String,
    /// When the hand started, UTC, ISO 8601.
    pub start_date_utc: String,
    /// The table's name.
    pub table_name: String,
    /// `Holdem`, `Omaha` or `OmahaHiLo` (the games the writer can express).
    pub game_type: &'static str,
    /// The betting structure.
    pub bet_limit: BetLimit,
    /// Seats at the table.
    pub table_size: u32,
    /// ISO currency, or [`PLAY_MONEY`].
    pub currency: String,
    /// The button's seat number (1-based).
    pub dealer_seat: u32,
    /// The small blind of the game.
    pub small_blind_amount: u64,
    /// The big blind of the game.
    pub big_blind_amount: u64,
    /// The ante of the game (0 without antes).
    pub ante_amount: u64,
    /// The player whose history it is; absent in the operator's view.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hero_player_id: Option<u32>,
    /// `Observed` (the operator's view), `Run_It_Twice`, `Cap`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<&'static str>,
    /// The players dealt in, in seat order.
    pub players: Vec<Player>,
    /// The rounds, in order, the showdown last.
    pub rounds: Vec<Round>,
    /// The pots, the main pot first.
    pub pots: Vec<Pot>,
}

/// The betting structure.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BetLimit {
    /// `NL`, `PL` or `FL`.
    pub bet_type: &'static str,
    /// The most one player may put in, in a capped game; 0 when uncapped.
    pub bet_cap: u64,
}

/// One player dealt in.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Player {
    /// The player's id within this history (the hand's player index).
    pub id: u32,
    /// The seat number (1-based).
    pub seat: u32,
    /// The player's name.
    pub name: String,
    /// Chips in front of the player as the hand began.
    pub starting_stack: u64,
}

/// One round: the deal and betting of a street, or the showdown.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Round {
    /// Incrementing from 0 (the preflop round).
    pub id: u32,
    /// `Preflop`, `Flop`, `Turn`, `River` or `Showdown`.
    pub street: &'static str,
    /// The cards this round added to the board.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cards: Vec<String>,
    /// What happened in the round, in order.
    pub actions: Vec<Action>,
}

/// One action.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Action {
    /// Incrementing through the hand from 1.
    pub action_number: u32,
    /// Who acted.
    pub player_id: u32,
    /// The spec's name of the action (`Post SB`, `Raise`, `Shows Cards`, ...).
    pub action: &'static str,
    /// Chips the action put in (a raise: what this action added, not its total).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount: Option<u64>,
    /// Whether the action put the player all in.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_allin: bool,
    /// The cards dealt, shown or mucked, when this history may show them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cards: Option<Vec<String>>,
}

/// One pot and who won it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Pot {
    /// 0 for the main pot, then the side pots in order.
    pub number: u32,
    /// Every chip in the pot, the rake included.
    pub amount: u64,
    /// The house's rake from this pot.
    pub rake: u64,
    /// Always 0: the server takes no jackpot.
    pub jackpot: u64,
    /// Who won what from this pot.
    pub player_wins: Vec<PlayerWin>,
}

/// What one player won from one pot.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerWin {
    /// The winner.
    pub player_id: u32,
    /// Chips won (the pot less its rake, shared among its winners).
    pub win_amount: u64,
    /// The part of the pot's rake taken from this winner's share, in proportion to it.
    pub contributed_rake: u64,
}
