//! The vocabulary of a hand: the actions players take, the errors that refuse them,
//! the deal steps, the events a hand emits, decisions and legal actions.

use super::*;
use crate::card::{Card, Cards};
use serde::{Deserialize, Serialize};

/// What a player does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// Give up the hand.
    Fold,
    /// Pass without betting (nothing to call).
    Check,
    /// Match the current bet, or go all in for less.
    Call,
    /// Post the stud bring-in instead of completing.
    BringIn,
    /// Bet, raise or complete so that this player's bet this round totals `to`.
    BetOrRaiseTo {
        /// The player's total bet this round after the action.
        to: Chips,
    },
    /// Discard these cards and draw as many (none: stand pat).
    Draw {
        /// The cards thrown away.
        discards: Cards,
    },
    /// Show the hand at showdown; a replay may name cards that were unknown until now.
    Show {
        /// The cards shown, when the history reveals them only now.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cards: Option<Cards>,
    },
    /// Throw the hand away at showdown without showing.
    Muck,
    /// Agree (or not) to run the rest of the board twice (R32).
    RunItTwice {
        /// Whether this player agrees.
        agree: bool,
    },
}

/// Why an action or deal was refused. The hand is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "error", rename_all = "snake_case")]
pub enum ActionError {
    /// The hand is over.
    #[error("the hand is over")]
    HandOver,
    /// No such player in this hand.
    #[error("no player {player} in this hand")]
    NoSuchPlayer {
        /// The index given.
        player: usize,
    },
    /// Someone else is to act (or the dealer is).
    #[error("it is not player {player}'s turn")]
    NotYourTurn {
        /// Who tried to act.
        player: usize,
        /// Who is to act, if a player is.
        expected: Option<usize>,
    },
    /// This kind of action does not fit this moment (a draw during betting...).
    #[error("{action} is not possible now")]
    WrongPhase {
        /// What was tried.
        action: &'static str,
    },
    /// There is a bet to call, so checking is not possible.
    #[error("cannot check: {to_call} to call")]
    CannotCheck {
        /// The amount to call.
        to_call: Chips,
    },
    /// Nothing to call: check instead.
    #[error("nothing to call")]
    NothingToCall,
    /// The stud bring-in must be posted or completed first.
    #[error("the bring-in must be posted or completed")]
    BringInPending,
    /// This player may not bet or raise now (cap reached, betting not reopened...).
    #[error("raising is not allowed now")]
    RaiseNotAllowed,
    /// The amount is outside the legal range.
    #[error("bet must be between {min} and {max}, got {got}")]
    BetOutOfRange {
        /// Smallest legal total.
        min: Chips,
        /// Largest legal total.
        max: Chips,
        /// The total asked for.
        got: Chips,
    },
    /// A raise smaller than a full raise that is neither all in nor exactly what the
    /// biggest opposing stack can put in (R4, R29).
    #[error("a raise to less than {full} must be all in or to exactly {covers}, what the biggest opposing stack can put in; got {got}")]
    ShortRaise {
        /// The smallest full raise.
        full: Chips,
        /// The one smaller total allowed besides going all in.
        covers: Chips,
        /// The total asked for.
        got: Chips,
    },
    /// Discards must be cards the player holds.
    #[error("discards are not cards in the player's hand")]
    InvalidDiscard,
    /// Shown cards must be the player's cards.
    #[error("shown cards do not match the player's hand")]
    InvalidShow,
    /// A hand with unknown cards cannot be shown.
    #[error("a hand with unknown cards cannot be shown")]
    UnknownCards,
    /// The last player contesting a pot cannot muck it away.
    #[error("the last player contesting a pot cannot muck")]
    CannotMuck,
    /// The hand is not waiting for this deal.
    #[error("the hand is not waiting for this deal")]
    UnexpectedDeal,
    /// A card dealt is already in play or not in the deck.
    #[error("card {0} is not available to deal")]
    CardNotAvailable(Card),
    /// Bets must be multiples of the betting unit (R25).
    #[error("bets must be multiples of {unit}")]
    OffUnit {
        /// The unit.
        unit: Chips,
    },
}

/// What the dealer must deal next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "to", rename_all = "snake_case")]
pub enum DealStep {
    /// Cards to one player; bit `i` of `up` set means the `i`th card is dealt face up.
    Hole {
        /// The player.
        player: usize,
        /// How many cards.
        count: u8,
        /// Face-up mask.
        up: u8,
    },
    /// Community cards.
    Board {
        /// How many cards.
        count: u8,
    },
    /// The second run's community cards (R32).
    SecondBoard {
        /// How many cards.
        count: u8,
    },
}

/// Something that happened, in order: the raw material of hand histories and of what
/// players see (hole cards must be redacted for everyone but their owner).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A dead ante went into the pot.
    AntePosted {
        /// Who.
        player: usize,
        /// How much (less than the ante when all in for it).
        amount: Chips,
    },
    /// A live blind or straddle was posted.
    BlindPosted {
        /// Who.
        player: usize,
        /// How much (less than the blind when all in for it).
        amount: Chips,
    },
    /// Cards were dealt to a player.
    HoleDealt {
        /// Who.
        player: usize,
        /// The cards (secret unless face up).
        cards: Cards,
        /// Face-up mask.
        up: u8,
    },
    /// Community cards were dealt.
    BoardDealt {
        /// The new cards.
        cards: Cards,
    },
    /// A betting round began.
    RoundStarted {
        /// Street index (0 = the first betting round).
        street: usize,
    },
    /// The stud bring-in was posted.
    BringInPosted {
        /// Who.
        player: usize,
        /// How much.
        amount: Chips,
    },
    /// A player folded.
    Folded {
        /// Who.
        player: usize,
    },
    /// A player checked.
    Checked {
        /// Who.
        player: usize,
    },
    /// A player called.
    Called {
        /// Who.
        player: usize,
        /// Chips added.
        amount: Chips,
        /// Whether the call put the player all in.
        all_in: bool,
    },
    /// A player bet, raised or completed to a total.
    BetTo {
        /// Who.
        player: usize,
        /// The player's total bet this round.
        to: Chips,
        /// Chips added.
        amount: Chips,
        /// Whether it put the player all in.
        all_in: bool,
        /// Whether it was a full bet or raise (reopening the betting).
        full: bool,
    },
    /// A player discarded and will draw.
    Discarded {
        /// Who.
        player: usize,
        /// The cards thrown away (secret).
        cards: Cards,
    },
    /// An uncalled bet went back to its owner (R8).
    UncalledReturned {
        /// Who.
        player: usize,
        /// How much.
        amount: Chips,
    },
    /// The round's bets were gathered into the pot.
    BetsCollected {
        /// Total in the pot now.
        pot: Chips,
    },
    /// A hand was shown.
    Shown {
        /// Who.
        player: usize,
        /// The cards.
        cards: Cards,
    },
    /// A hand was mucked unseen.
    Mucked {
        /// Who.
        player: usize,
    },
    /// A player answered the run-it-twice question.
    RunItTwiceAnswered {
        /// Who.
        player: usize,
        /// The answer.
        agree: bool,
    },
    /// The rest of the board will be dealt twice.
    RunningTwice,
    /// The second run's board cards.
    SecondBoardDealt {
        /// The new cards (the board before them is shared).
        cards: Cards,
    },
    /// The house took its rake (R36).
    Raked {
        /// Chips taken.
        amount: Chips,
    },
    /// A pot (or half of one) was awarded.
    PotAwarded {
        /// 0 is the main pot, then side pots in order.
        pot: usize,
        /// Which run of the board (0, or 1 for the second run when running twice).
        #[serde(default, skip_serializing_if = "is_zero")]
        run: u8,
        /// `"high"`, `"low"` or `"all"`.
        share: PotShare,
        /// Chips awarded.
        amount: Chips,
        /// Each winner and their part.
        winners: Vec<(usize, Chips)>,
    },
    /// The hand is over.
    HandEnded {
        /// Every player's stack now.
        stacks: Vec<Chips>,
    },
}

pub(super) fn is_zero(x: &u8) -> bool {
    *x == 0
}

/// Which part of a pot an award is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PotShare {
    /// The whole pot.
    All,
    /// The high half of a split pot.
    High,
    /// The low half of a split pot.
    Low,
}

/// What a player is asked to decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Decision {
    /// A betting decision, with exactly what is allowed.
    Bet(LegalActions),
    /// Which cards to discard.
    Draw,
    /// Show or muck.
    Showdown {
        /// Whether mucking is allowed.
        can_muck: bool,
    },
    /// Whether to run the rest of the board twice.
    RunItTwice,
}

/// Exactly what the player to act may do in a betting round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegalActions {
    /// The player to act.
    pub player: usize,
    /// Folding is always allowed (R7), though clients should offer a check instead.
    pub fold: bool,
    /// Whether checking is possible.
    pub check: bool,
    /// Chips a call adds (all in when it is the whole stack), if there is a bet to call.
    pub call: Option<Chips>,
    /// The bring-in amount, while the bring-in is due.
    pub bring_in: Option<Chips>,
    /// Smallest and largest total for a bet or raise, if one is allowed.
    pub bet_or_raise: Option<(Chips, Chips)>,
    /// One more legal total below `bet_or_raise`'s smallest: a raise to exactly what the
    /// biggest opposing stack can put in, allowed though short of a full raise (nobody
    /// could call more). Amounts between it and the range are refused (R4, R29).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cover_raise: Option<Chips>,
    /// Bets and raises must be multiples of this (R25), except going all in; 1 when any
    /// amount goes.
    pub unit: Chips,
}

/// What a bet or raise may total (see `Hand::raise_limits`).
#[derive(Clone, Copy, Debug)]
pub(super) struct RaiseLimits {
    /// The smallest legal total.
    pub(super) min: Chips,
    /// The largest legal total.
    pub(super) max: Chips,
    /// The smallest full raise (or bet).
    pub(super) full: Chips,
    /// The one total below `min` also allowed: what the biggest opposing stack can put in.
    pub(super) cover_only: Option<Chips>,
}
