//! What reading a PokerStars hand makes: the hand read ([`ImportedHand`]), why one could
//! not be read ([`ReadError`]), and what the text says before the engine plays it
//! ([`Parsed`]); shared by the reader (`read`, `read_header`) and the engine's replay
//! (`engine`), which depend on these and not on each other's.

use super::money::Money;
use crate::phh::PhhHand;
use poker_rules::table::Post;
use poker_rules::{Action, BlindKind, Card, Chips};
use std::collections::{BTreeMap, VecDeque};

/// One hand read from PokerStars text: the engine's record (PHH) and what the PokerStars
/// writer needs besides it to write the hand again.
#[derive(Clone, Debug)]
pub struct ImportedHand {
    /// The hand's number (`PokerStars Hand #N`).
    pub hand_number: u64,
    /// The game as the header names it (`Hold'em No Limit`).
    pub game_name: String,
    /// The table's name.
    pub table_name: String,
    /// A home game's club, which its header names (`{chipchipchip}`).
    pub club: Option<String>,
    /// The header's date text, as written.
    pub date_text: String,
    /// The hand's start (unix ms) from the header's Eastern time, if it has one.
    pub started_at_ms: Option<i64>,
    /// Player names in hand order (first left of the button; stud: by seat).
    pub players: Vec<String>,
    /// Seat numbers (1-based) in hand order.
    pub seats: Vec<u32>,
    /// Seats at the table (`6-max`).
    pub seat_count: u32,
    /// The button's seat, for games with a button.
    pub button_seat: Option<u32>,
    /// The player whose hole cards the text shows (`Dealt to`), hand index.
    pub viewer: Option<usize>,
    /// Real money (amounts in cents of `Money`) or play chips.
    pub money: Money,
    /// Whether the table line says `(Play Money)`.
    pub play_money: bool,
    /// The table's forced bets by table seat (0-based), for the writer's post names.
    pub posts: Vec<Post>,
    /// The engine's record of the hand.
    pub phh: PhhHand,
    /// The rake the text states, in the hand's units.
    pub rake: Chips,
    /// The hand's text as read.
    pub text: String,
}

/// Why a hand could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// A tournament hand: only cash games are read.
    #[error("tournament hands are not read (cash games only)")]
    Tournament,
    /// Not a PokerStars hand.
    #[error("not a PokerStars hand: {0:?}")]
    NotPokerStars(String),
    /// A game the engine does not play (5 card draw, Courchevel, 5-card Omaha...).
    #[error("game not played by the engine: {0}")]
    UnsupportedGame(String),
    /// A line that could not be understood.
    #[error("line {line}: cannot read {text:?}")]
    Line {
        /// 1-based line number within the hand.
        line: usize,
        /// The line.
        text: String,
    },
    /// The engine refused the hand as written.
    #[error("line {line}: the engine refuses {text:?}: {reason}")]
    Refused {
        /// 1-based line number within the hand (0: at the end).
        line: usize,
        /// The line.
        text: String,
        /// The engine's reason.
        reason: String,
    },
    /// The hand ends before the engine's hand does (cancelled, or cut off).
    #[error("the hand is unfinished: {0}")]
    Unfinished(String),
    /// The engine's outcome differs from the text's.
    #[error("the engine disagrees: {0}")]
    Disagrees(String),
}

/// A player's action as the text writes it.
#[derive(Clone, Debug)]
pub(super) enum Act {
    Play(Action),
    Show(Vec<Card>),
    Muck,
}

pub(super) struct Seat {
    pub(super) number: u32,
    pub(super) name: String,
    pub(super) stack: Chips,
    pub(super) dealt: bool,
}

/// Everything the text says, before the engine plays it.
#[derive(Default)]
pub(super) struct Parsed {
    pub(super) seats: Vec<Seat>,
    pub(super) button: Option<u32>,
    pub(super) seat_count: u32,
    pub(super) table: String,
    pub(super) play_money: bool,
    /// (line number, seat index, action).
    pub(super) acts: Vec<(usize, usize, Act)>,
    pub(super) antes: BTreeMap<usize, Chips>,
    pub(super) blinds: BTreeMap<usize, (Chips, BlindKind)>,
    /// What each seat's post lines put in, antes and dead blinds included: no more than
    /// its stack.
    pub(super) posted: BTreeMap<usize, Chips>,
    pub(super) posts: Vec<Post>,
    pub(super) holes: BTreeMap<usize, VecDeque<Card>>,
    pub(super) viewer: Option<usize>,
    pub(super) board: VecDeque<Card>,
    pub(super) board2: VecDeque<Card>,
    pub(super) run_twice: bool,
    pub(super) collected: BTreeMap<usize, Chips>,
    pub(super) total: Option<Chips>,
    /// The pots the summary names, after the rake (`Main pot 30. Side pot-1 7.`): the
    /// main pot, then each side pot; empty when there is one pot.
    pub(super) pots: Vec<Chips>,
    pub(super) rake: Chips,
    pub(super) bring_in: Option<Chips>,
    /// Winners who said they do not show (`doesn't show hand`), by seat index.
    pub(super) no_show: Vec<usize>,
    /// Hands the summary names as mucked (`mucked [Ah Kh]`), by seat index.
    pub(super) mucked: BTreeMap<usize, Vec<Card>>,
}
