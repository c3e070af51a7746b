//! One hand of poker as a state machine, for every game and betting structure: forced
//! bets, dealing, betting rounds, draws, showdown and the awarding of every pot.
//!
//! Players are indexed in dealing order: index 0 sits left of the button (the small
//! blind in blind games) and the last index holds the button. The caller supplies the
//! cards: a shuffled deck ([`CardSource::Deck`]), from which the hand deals itself, or
//! nothing ([`CardSource::Manual`]), in which case the hand waits for [`Hand::deal`]
//! calls (replaying a history). Every action is validated first and either applied
//! whole, returning its events, or rejected with an [`ActionError`] that leaves the
//! state untouched.

use crate::card::{Card, Cards};
use crate::eval::{self, high, HandValue};
use crate::game::{Game, Opening, Showdown, Structure};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// An amount of chips. Chips are whole numbers; there are no fractions of a chip.
pub type Chips = u64;

/// The most chips any amount may be: a buy-in, a blind, a stake, a deposit, all the
/// money at a table (max buy-in times the seats), and all the money in a room. 2^53, so
/// every sum the engine, the store and a PHH history (whose amounts are floats) form is
/// exact and fits.
pub const MAX_CHIPS: Chips = 1 << 53;

/// The amounts that size bets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stakes {
    /// No-limit and pot-limit: the minimum opening bet and raise (usually the big blind).
    #[serde(default)]
    pub min_bet: Chips,
    /// Fixed limit: the bet and raise size of the early streets.
    #[serde(default)]
    pub small_bet: Chips,
    /// Fixed limit: the bet and raise size of the later streets.
    #[serde(default)]
    pub big_bet: Chips,
    /// Stud: the forced bet of the lowest (razz: highest) up card on third street.
    #[serde(default)]
    pub bring_in: Chips,
}

/// What a seat's live forced bet is (R10, R13-R15, R17).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlindKind {
    /// A live blind (small, big or button blind); the biggest gets the option (R6, R10).
    #[default]
    Blind,
    /// A live straddle (under the gun, Mississippi from any seat, or a re-straddle): it
    /// sets the bet to call, buys last action and the option; play starts on its left (R15).
    Straddle,
    /// A sleeper: a blind raise that sets the bet to call but has no option (R15).
    Sleeper,
    /// The kill blind: sets the bet to call and acts last in the first round (R17).
    Kill,
    /// A live post by a new or returning player: it counts toward the poster's own bet but
    /// does not raise what others must call (R13, R14).
    Post,
}

/// One player's stack and forced bets for this hand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatConfig {
    /// Chips in front of the player when the hand starts.
    pub stack: Chips,
    /// Dead money this player posts: antes (button ante, big-blind ante: only that seat's
    /// entry) and dead blinds (a missed small blind made up, R14).
    #[serde(default)]
    pub ante: Chips,
    /// Live blind, straddle, kill blind or post this player makes.
    #[serde(default)]
    pub blind: Chips,
    /// What the live amount is.
    #[serde(default)]
    pub kind: BlindKind,
}

/// How the pot is sized for the first pot-limit round (R22).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PotLimitPreflop {
    /// The true pot: the blinds as posted ($5/$10: open to at most $35).
    #[default]
    TruePot,
    /// "Assumed call": the small blind counts as a full blind until the big blind has
    /// acted, even if it folded ($5/$10: open to at most $40, four big blinds).
    AssumedCall,
    /// The small blind is dead money: its poster must put in the whole bet to call.
    DeadSmallBlind,
}

/// Where a straddle may be posted (R15).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StraddleRule {
    /// From any seat: under the gun, or a Mississippi straddle anywhere.
    #[default]
    AnySeat,
    /// Under the gun (and re-straddles after it), or a Mississippi straddle on the button.
    ButtonOnly,
    /// Only under the gun and the re-straddles after it.
    UnderTheGun,
}

/// How rake is rounded to whole chips.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RakeRounding {
    /// Down to the chip below (the player's favour).
    #[default]
    Down,
    /// To the nearest chip, halves up.
    Nearest,
    /// Up to the chip above.
    Up,
}

/// The house's cut (R36).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rake {
    /// Percentage of each pot, in basis points (500 = 5%).
    pub basis_points: u32,
    /// Most taken from one hand.
    pub cap: Chips,
    /// No rake when the hand ends before the flop (before the second street in games
    /// without a board).
    #[serde(default = "yes")]
    pub no_flop_no_drop: bool,
    /// Rounding to whole chips.
    #[serde(default)]
    pub rounding: RakeRounding,
}

fn yes() -> bool {
    true
}

/// House options beyond the game and structure, each a choice the rule texts allow.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HandOptions {
    /// Spread limit (R21): the smallest and largest bet or raise of each street, in order;
    /// the last range also serves later streets ("1 to 5, 10 on the end": `[(1,5),(1,5),
    /// (1,5),(1,10)]`). Required by [`Structure::SpreadLimit`], refused otherwise.
    pub spread: Vec<(Chips, Chips)>,
    /// Cap limit (R24): the most any player may put in live during the hand (blinds and
    /// bets, not antes); a player who reaches it is all in.
    pub cap: Option<Chips>,
    /// Betting unit (R25): bets and raises must be multiples of it (an all in excepted);
    /// 0 or 1 means any amount.
    pub unit: Chips,
    /// Pot limit: how the first round's pot is sized (R22).
    pub pot_limit_preflop: PotLimitPreflop,
    /// Limit games (fixed or spread): the half bet rule instead of the full bet rule
    /// (R30): an all-in raise of at least half a bet reopens the betting, and a later
    /// player may complete an incomplete bet or raise.
    pub half_bet_rule: bool,
    /// With `uncapped_heads_up`: heads-up is judged when the round starts (two players
    /// then) instead of whenever only two remain (R20).
    pub heads_up_at_round_start: bool,
    /// Run it twice (R32): when everyone left is all in and all agree, the rest of the
    /// board is dealt twice and each pot is split between the runs (board games only).
    pub run_it_twice: bool,
    /// Rake (R36).
    pub rake: Option<Rake>,
    /// Expose all-in hands (R31): when no more betting is possible the hands still in are
    /// turned face up before the rest is dealt. A tournament rule: off for cash games.
    pub expose_all_in: bool,
    /// Where straddles may be posted (R15).
    pub straddles: StraddleRule,
}

/// Everything a hand needs to know before the first card.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandConfig {
    /// The game dealt.
    pub game: Game,
    /// The betting structure.
    pub structure: Structure,
    /// Bet sizes.
    pub stakes: Stakes,
    /// Fixed limit: raises allowed after the opening bet of a round (`None`: no cap). The
    /// big blind counts as the opening bet; a bring-in does not, its completion does.
    #[serde(default)]
    pub max_raises: Option<u32>,
    /// Fixed limit: whether the cap is lifted while only two players contest the pot (R20).
    #[serde(default)]
    pub uncapped_heads_up: bool,
    /// The players in dealing order; the last one holds the button.
    pub seats: Vec<SeatConfig>,
    /// House options.
    #[serde(default)]
    pub options: HandOptions,
}

impl HandConfig {
    /// The biggest ordinary blind (straddles, sleepers, kills and posts aside), 0 if none.
    pub fn big_blind(&self) -> Chips {
        self.seats
            .iter()
            .filter(|s| s.kind == BlindKind::Blind)
            .map(|s| s.blind)
            .max()
            .unwrap_or(0)
    }

    /// A configuration with these basics and the default options.
    pub fn new(
        game: Game,
        structure: Structure,
        stakes: Stakes,
        seats: Vec<SeatConfig>,
    ) -> HandConfig {
        HandConfig {
            game,
            structure,
            stakes,
            max_raises: None,
            uncapped_heads_up: false,
            seats,
            options: HandOptions::default(),
        }
    }

    /// Checks the configuration is complete and consistent, saying what is wrong.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |s: String| Err(ConfigError::Invalid(s));
        if let Some(i) = self.seats.iter().position(|s| s.stack == 0) {
            return Err(ConfigError::EmptyStack(i));
        }
        let o = &self.options;
        let stud = self.game.opening() != Opening::Position;
        match self.structure {
            Structure::FixedLimit => {
                if self.stakes.small_bet == 0 {
                    return Err(ConfigError::MissingStake("small_bet"));
                }
                if self.stakes.big_bet == 0 {
                    return Err(ConfigError::MissingStake("big_bet"));
                }
            }
            Structure::NoLimit | Structure::PotLimit => {
                if self.stakes.min_bet == 0 {
                    return Err(ConfigError::MissingStake("min_bet"));
                }
            }
            Structure::SpreadLimit => {
                if o.spread.is_empty() {
                    return bad("spread limit needs a (min, max) range per street".into());
                }
                for (street, &(min, max)) in o.spread.iter().enumerate() {
                    if min == 0 || min > max {
                        return Err(ConfigError::SpreadRange { street, min, max });
                    }
                }
            }
        }
        if self.structure != Structure::SpreadLimit && !o.spread.is_empty() {
            return bad("spread ranges are only for spread limit".into());
        }
        let largest_blind = self.seats.iter().map(|s| s.blind).max().unwrap_or(0);
        if let Some(cap) = o.cap {
            if cap < largest_blind.max(1) {
                return Err(ConfigError::CapBelowBlind {
                    cap,
                    blind: largest_blind,
                });
            }
        }
        if o.unit > 1 {
            let amounts = [
                ("min_bet", self.stakes.min_bet),
                ("small_bet", self.stakes.small_bet),
                ("big_bet", self.stakes.big_bet),
            ];
            for (name, amount) in amounts {
                if amount % o.unit != 0 {
                    return bad(format!(
                        "{name} {amount} is not a multiple of the betting unit {}",
                        o.unit
                    ));
                }
            }
        }
        if o.pot_limit_preflop != PotLimitPreflop::TruePot && self.structure != Structure::PotLimit
        {
            return bad("pot-limit preflop options need pot limit".into());
        }
        if o.half_bet_rule
            && !matches!(
                self.structure,
                Structure::FixedLimit | Structure::SpreadLimit
            )
        {
            return bad(
                "the half bet rule is for limit games; no and pot limit use the full bet rule"
                    .into(),
            );
        }
        if o.run_it_twice && !self.game.has_board() {
            return bad("run it twice needs a game with a board".into());
        }
        if let Some(rake) = o.rake {
            if rake.basis_points > 10_000 {
                return bad("rake cannot exceed 100% of a pot".into());
            }
        }
        if stud && self.seats.iter().any(|s| s.blind > 0) {
            return bad("stud games have a bring-in, not blinds".into());
        }
        if self
            .seats
            .iter()
            .filter(|s| s.kind == BlindKind::Kill && s.blind > 0)
            .count()
            > 1
        {
            return bad("at most one kill blind".into());
        }
        // Straddles (R15): each at least double the blind or straddle before it, posted
        // where the house allows.
        let n = self.seats.len();
        let big = (0..n)
            .filter(|&i| self.seats[i].kind == BlindKind::Blind && self.seats[i].blind > 0)
            .max_by_key(|&i| (self.seats[i].blind, i));
        let mut level = big.map_or(0, |i| self.seats[i].blind);
        let mut expected = big.map_or(0, |i| (i + 1) % n);
        for k in 1..n {
            let i = big.map_or(k, |b| (b + k) % n);
            let seat = &self.seats[i];
            if seat.kind != BlindKind::Straddle || seat.blind == 0 {
                continue;
            }
            if seat.blind < 2 * level {
                return bad(format!(
                    "a straddle of {} must be at least double the {} before it",
                    seat.blind, level
                ));
            }
            let in_line = i == expected;
            let allowed = match o.straddles {
                StraddleRule::AnySeat => true,
                StraddleRule::ButtonOnly => in_line || i == n - 1,
                StraddleRule::UnderTheGun => in_line,
            };
            if !allowed {
                return bad(format!("no straddle allowed from seat {i} by house rule"));
            }
            level = seat.blind;
            expected = (i + 1) % n;
        }
        Ok(())
    }
}

/// Where the cards come from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CardSource {
    /// A shuffled deck, top card first; the hand deals itself.
    Deck(Vec<Card>),
    /// The caller deals every card with [`Hand::deal`] (replays).
    Manual,
}

/// A problem with a [`HandConfig`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// Fewer than two or too many players.
    #[error("a hand needs 2 to {max} players, got {got}")]
    PlayerCount {
        /// The most allowed.
        max: usize,
        /// How many were given.
        got: usize,
    },
    /// A player with no chips cannot be dealt in.
    #[error("player {0} has no chips")]
    EmptyStack(usize),
    /// The structure needs a bet size that is zero.
    #[error("{0} must be positive for this game and structure")]
    MissingStake(&'static str),
    /// The deck does not match the game.
    #[error("the deck must hold each card of the game's deck once")]
    BadDeck,
    /// A spread-limit range that is empty or backwards.
    #[error("spread-limit range of street {street} is {min} to {max}: min must be positive and at most max")]
    SpreadRange {
        /// The street.
        street: usize,
        /// Its minimum.
        min: Chips,
        /// Its maximum.
        max: Chips,
    },
    /// A cap smaller than the blinds it must cover.
    #[error("a cap of {cap} is below the big blind of {blind}")]
    CapBelowBlind {
        /// The cap.
        cap: Chips,
        /// The largest blind.
        blind: Chips,
    },
    /// Another inconsistent or nonsensical setting, explained.
    #[error("{0}")]
    Invalid(String),
}

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

fn is_zero(x: &u8) -> bool {
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
struct RaiseLimits {
    /// The smallest legal total.
    min: Chips,
    /// The largest legal total.
    max: Chips,
    /// The smallest full raise (or bet).
    full: Chips,
    /// The one total below `min` also allowed: what the biggest opposing stack can put in.
    cover_only: Option<Chips>,
}

/// One player's state in the hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// Chips behind (not yet bet).
    pub stack: Chips,
    /// Chips bet in the current round.
    pub bet: Chips,
    /// Chips put in during the whole hand (antes and bets, the current round included).
    pub committed: Chips,
    /// The dead ante part of `committed`.
    pub ante: Chips,
    /// Whether the player folded.
    pub folded: bool,
    /// Hole cards in the order dealt.
    pub hole: Cards,
    /// Face-up mask of `hole`.
    pub up: u8,
    /// Whether the player acted since the betting was last (re)opened.
    acted: bool,
    /// The bet level the player last acted on (for reopening by short all-ins).
    faced: Chips,
    /// Showdown decision.
    pub shown: Option<bool>,
    /// Chips won at the end (already added to the stack once the hand is complete).
    pub won: Chips,
}

impl Player {
    /// Whether the player has no chips behind.
    pub fn all_in(&self) -> bool {
        self.stack == 0
    }
}

/// Where the hand is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Waiting for cards (manual dealing, or a reshuffle for a draw).
    Dealing,
    /// A betting round.
    Betting,
    /// Players discard in turn.
    Drawing,
    /// Players show or muck in turn.
    Showdown,
    /// Everyone left is all in: each says whether to run the board twice.
    RunItTwice,
    /// Every pot has been awarded.
    Complete,
}

/// A pot and who may win it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pot {
    /// Chips in the pot.
    pub amount: Chips,
    /// Players (not folded) who contributed enough to win it.
    pub eligible: Vec<usize>,
}

/// One hand in progress. Serializable, so a table can checkpoint it mid-hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hand {
    config: HandConfig,
    players: Vec<Player>,
    board: Cards,
    /// Remaining deck, next card last; `None` when dealing is manual.
    deck: Option<Vec<Card>>,
    /// Discarded cards, for a reshuffle when a draw exhausts the deck.
    muck: Vec<Card>,
    street: usize,
    phase: Phase,
    deals: VecDeque<DealStep>,
    actor: Option<usize>,
    current_bet: Chips,
    min_raise: Chips,
    raises: u32,
    bring_in_pending: bool,
    aggressor: Option<usize>,
    round_opener: usize,
    showdown_order: Vec<usize>,
    /// The pots (amount, eligible mask) as they stood when the showdown began.
    showdown_pots: Vec<(Chips, u32)>,
    /// The bet level set by the last full bet or raise of the round (limit games).
    full_level: Chips,
    /// Players in the hand when the round started (heads-up judged then, R20).
    round_contenders: u8,
    /// The kill blind's seat, acting last in the first round (R17).
    kill_seat: Option<usize>,
    /// Whether the biggest blind has acted in the first round (pot-limit assumed call).
    big_blind_acted: bool,
    /// Run it twice (R32): whether the players were asked, how many runs, where the
    /// boards part, the second board, and whether it is still to be dealt.
    run_twice_asked: bool,
    runs: u8,
    split_at: u8,
    board2: Cards,
    second_board_pending: bool,
    /// Whether all-in hands were turned up (R31).
    exposed: bool,
    /// Rake taken (R36).
    rake: Chips,
}

/// Whether a card is in someone's hand or on the board (discards may come back after a
/// reshuffle, so they do not count).
fn seen(hand: &Hand, card: Card) -> bool {
    hand.board.contains(&card)
        || hand.board2.contains(&card)
        || hand.players.iter().any(|p| p.hole.contains(&card))
}

impl Hand {
    /// Starts a hand: checks the configuration, posts antes and blinds, and deals as far
    /// as the cards allow. Returns the hand and the events so far.
    pub fn new(config: HandConfig, source: CardSource) -> Result<(Hand, Vec<Event>), ConfigError> {
        let mut events = Vec::new();
        let hand = Hand::start(config, source, &mut events)?;
        Ok((hand, events))
    }

    /// Like [`Hand::new`], appending the first events to a buffer the caller reuses.
    pub fn start(
        config: HandConfig,
        source: CardSource,
        events: &mut Vec<Event>,
    ) -> Result<Hand, ConfigError> {
        let n = config.seats.len();
        let max = match source {
            CardSource::Deck(_) => config.game.max_players(),
            CardSource::Manual => 23,
        };
        if !(2..=max).contains(&n) {
            return Err(ConfigError::PlayerCount { max, got: n });
        }
        config.validate()?;
        let deck = match source {
            CardSource::Deck(mut cards) => {
                let kind = config.game.deck();
                let mut seen = 0u64;
                for &c in &cards {
                    if !kind.contains(c) || seen >> c.index() & 1 == 1 {
                        return Err(ConfigError::BadDeck);
                    }
                    seen |= 1 << c.index();
                }
                if cards.len() != kind.size() {
                    return Err(ConfigError::BadDeck);
                }
                cards.reverse();
                Some(cards)
            }
            CardSource::Manual => None,
        };
        let players = config
            .seats
            .iter()
            .map(|s| Player {
                stack: s.stack,
                bet: 0,
                committed: 0,
                ante: 0,
                folded: false,
                hole: Cards::new(),
                up: 0,
                acted: false,
                faced: 0,
                shown: None,
                won: 0,
            })
            .collect();
        let mut hand = Hand {
            config,
            players,
            board: Cards::new(),
            deck,
            muck: Vec::new(),
            street: 0,
            phase: Phase::Dealing,
            deals: VecDeque::new(),
            actor: None,
            current_bet: 0,
            min_raise: 0,
            raises: 0,
            bring_in_pending: false,
            aggressor: None,
            round_opener: 0,
            showdown_order: Vec::new(),
            showdown_pots: Vec::new(),
            full_level: 0,
            round_contenders: 0,
            kill_seat: None,
            big_blind_acted: false,
            run_twice_asked: false,
            runs: 1,
            split_at: 0,
            board2: Cards::new(),
            second_board_pending: false,
            exposed: false,
            rake: 0,
        };
        hand.post_forced_bets(events);
        hand.start_street(events);
        hand.advance(events);
        Ok(hand)
    }

    // ----- queries -----

    /// The configuration the hand was built from.
    pub fn config(&self) -> &HandConfig {
        &self.config
    }

    /// Every player's state, in dealing order.
    pub fn players(&self) -> &[Player] {
        &self.players
    }

    /// The community cards.
    pub fn board(&self) -> &[Card] {
        &self.board
    }

    /// Where the hand is.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The current street (0 = first betting round).
    pub fn street(&self) -> usize {
        self.street
    }

    /// Whether every pot has been awarded.
    pub fn is_complete(&self) -> bool {
        self.phase == Phase::Complete
    }

    /// The player whose decision the hand waits for, if any.
    pub fn to_act(&self) -> Option<usize> {
        self.actor
    }

    /// What the dealer must deal next, when dealing is manual (or a reshuffle is due).
    pub fn pending_deal(&self) -> Option<DealStep> {
        if self.phase == Phase::Dealing {
            self.deals.front().copied()
        } else {
            None
        }
    }

    /// When a draw needs more cards than the deck has left: the discards, which the
    /// caller shuffles and hands back through [`Hand::reshuffle`].
    pub fn needs_reshuffle(&self) -> Option<&[Card]> {
        match (&self.deck, self.pending_deal()) {
            (Some(deck), Some(step)) if (step_count(step) as usize) > deck.len() => {
                Some(&self.muck)
            }
            _ => None,
        }
    }

    /// The chips of every player: stacks plus what they have put in so far. Constant
    /// through the hand (nothing is created or lost); equal to the stacks once complete.
    pub fn total_chips(&self) -> Chips {
        self.players
            .iter()
            .map(|p| p.stack + p.committed)
            .sum::<Chips>()
            + self.rake
    }

    /// Rake taken from this hand (R36); part of [`Hand::total_chips`].
    pub fn rake(&self) -> Chips {
        self.rake
    }

    /// The second run's board when the board was run twice (R32).
    pub fn second_board(&self) -> Option<&[Card]> {
        (self.runs == 2 && !self.board2.is_empty()).then_some(self.board2.as_slice())
    }

    /// Chips a player can still put in: the stack, limited by the cap (R24).
    #[inline]
    fn behind(&self, p: &Player) -> Chips {
        match self.config.options.cap {
            Some(cap) => p.stack.min(cap.saturating_sub(p.committed - p.ante)),
            None => p.stack,
        }
    }

    /// The current bet level to call in this round.
    pub fn current_bet(&self) -> Chips {
        self.current_bet
    }

    /// The pots as they stand (main pot first), from what everyone has put in.
    ///
    /// Antes are dead money in the main pot (R9): only a player all in for the ante
    /// itself is limited to an equal share of every other ante, the rest of the antes
    /// going to the next pot. Live money (blinds, bring-in, bets) makes one pot per
    /// all-in level (R27), each contested by those who put in at least that level.
    pub fn pots(&self) -> Vec<Pot> {
        let mut masks = PotMasks::new();
        self.pot_masks(&mut masks);
        masks
            .as_slice()
            .iter()
            .map(|&(amount, mask)| Pot {
                amount,
                eligible: (0..self.players.len())
                    .filter(|&i| mask >> i & 1 == 1)
                    .collect(),
            })
            .collect()
    }

    /// The pots as (amount, bitmask of eligible players), main pot first.
    fn pot_masks(&self, pots: &mut PotMasks) {
        let live = |p: &Player| p.committed - p.ante;
        let mut contenders = 0u32;
        let mut ante_levels = Levels::new();
        let mut live_levels = Levels::new();
        for (i, p) in self.players.iter().enumerate() {
            if p.folded {
                continue;
            }
            contenders |= 1 << i;
            if live(p) == 0 && p.stack == 0 && p.ante > 0 {
                ante_levels.insert(p.ante);
            }
            if live(p) > 0 {
                live_levels.insert(live(p));
            }
        }
        let mut prev = 0;
        for &level in ante_levels.as_slice() {
            let mut amount = 0;
            let mut eligible = 0u32;
            for (i, p) in self.players.iter().enumerate() {
                amount += p.ante.min(level) - p.ante.min(prev);
                if contenders >> i & 1 == 1 && (live(p) > 0 || p.ante >= level) {
                    eligible |= 1 << i;
                }
            }
            pots.push((amount, eligible));
            prev = level;
        }
        let mut rest: Chips = self.players.iter().map(|p| p.ante - p.ante.min(prev)).sum();
        let mut prev = 0;
        let levels = live_levels.as_slice();
        for (k, &level) in levels.iter().enumerate() {
            let top = if k + 1 == levels.len() {
                Chips::MAX
            } else {
                level
            };
            let mut amount = std::mem::take(&mut rest);
            let mut eligible = 0u32;
            for (i, p) in self.players.iter().enumerate() {
                amount += live(p).min(top) - live(p).min(prev);
                if contenders >> i & 1 == 1 && live(p) >= level {
                    eligible |= 1 << i;
                }
            }
            pots.push((amount, eligible));
            prev = level;
        }
        if levels.is_empty() {
            let leftover = rest + self.players.iter().map(live).sum::<Chips>();
            match pots.last_mut() {
                Some(last) => last.0 += leftover,
                None if leftover > 0 => pots.push((leftover, contenders)),
                None => {}
            }
        }
    }

    /// What the player to act must decide, if a player is to act.
    pub fn decision(&self) -> Option<Decision> {
        let p = self.actor?;
        Some(match self.phase {
            Phase::Betting => Decision::Bet(self.legal_actions()?),
            Phase::Drawing => Decision::Draw,
            Phase::Showdown => Decision::Showdown {
                can_muck: self.can_muck(p),
            },
            Phase::RunItTwice => Decision::RunItTwice,
            _ => return None,
        })
    }

    /// Whether player `p`, asked to show at showdown, can win nothing: in every pot they
    /// are in, a hand already shown beats theirs in the high and in the low half (ties do
    /// not count as beaten). A beaten hand may be mucked without giving up a chip (R33).
    /// False when `p` may not muck, when the board is run twice, or before the showdown.
    pub fn is_beaten(&self, p: usize) -> bool {
        if self.phase != Phase::Showdown || self.runs > 1 || !self.can_muck(p) {
            return false;
        }
        let board = self.board;
        let mine = self.values(p, &board);
        let shown: Vec<usize> = (0..self.players.len())
            .filter(|&i| i != p && !self.players[i].folded && self.players[i].shown == Some(true))
            .collect();
        self.showdown_pots
            .iter()
            .filter(|&&(_, eligible)| eligible >> p & 1 == 1)
            .all(|&(_, eligible)| {
                let rivals: Vec<_> = shown
                    .iter()
                    .filter(|&&i| eligible >> i & 1 == 1)
                    .map(|&i| self.values(i, &board))
                    .collect();
                let high_beaten = rivals.iter().any(|r| r.0 > mine.0);
                let low_beaten = match mine.1 {
                    None => true,
                    Some(low) => rivals.iter().any(|r| r.1.is_some_and(|x| x > low)),
                };
                !rivals.is_empty() && high_beaten && low_beaten
            })
    }

    /// Exactly what the player to act may do in the current betting round.
    pub fn legal_actions(&self) -> Option<LegalActions> {
        if self.phase != Phase::Betting {
            return None;
        }
        let p = self.actor?;
        let pl = &self.players[p];
        let limits = self.raise_limits(p);
        if self.bring_in_pending {
            return Some(LegalActions {
                player: p,
                fold: false,
                check: false,
                call: None,
                bring_in: Some(self.config.stakes.bring_in.min(self.behind(pl))),
                bet_or_raise: limits.map(|l| (l.min, l.max)),
                cover_raise: limits.and_then(|l| l.cover_only),
                unit: self.config.options.unit.max(1),
            });
        }
        let to_call = self.current_bet.saturating_sub(pl.bet).min(self.behind(pl));
        Some(LegalActions {
            player: p,
            fold: true,
            check: to_call == 0,
            call: (to_call > 0).then_some(to_call),
            bring_in: None,
            bet_or_raise: limits.map(|l| (l.min, l.max)),
            cover_raise: limits.and_then(|l| l.cover_only),
            unit: self.config.options.unit.max(1),
        })
    }

    /// The fixed-limit bet size of the current street.
    fn bet_size(&self) -> Chips {
        let stakes = &self.config.stakes;
        match self.config.structure {
            Structure::SpreadLimit => self.spread_range().0,
            Structure::FixedLimit => {
                if self.config.game.streets()[self.street].big_bet {
                    stakes.big_bet
                } else {
                    stakes.small_bet
                }
            }
            _ => stakes.min_bet,
        }
    }

    /// The spread-limit range of the current street.
    fn spread_range(&self) -> (Chips, Chips) {
        let spread = &self.config.options.spread;
        spread[self.street.min(spread.len() - 1)]
    }

    /// The fixed-limit total a raise goes to now.
    fn limit_target(&self) -> Chips {
        let size = self.bet_size();
        if self.config.options.half_bet_rule && self.current_bet > self.full_level {
            // Completing an incomplete bet or raise (R30).
            self.full_level + size
        } else if self.current_bet < size {
            size
        } else {
            self.current_bet + size
        }
    }

    /// Whether the raise cap stops further raises (R20).
    fn capped(&self) -> bool {
        let Some(cap) = self.config.max_raises else {
            return false;
        };
        let heads_up = if self.config.options.heads_up_at_round_start {
            self.round_contenders == 2
        } else {
            self.contenders() == 2
        };
        self.raises > cap && !(self.config.uncapped_heads_up && heads_up)
    }

    fn contenders(&self) -> usize {
        self.players.iter().filter(|p| !p.folded).count()
    }

    /// The legal totals for a bet or raise by `p`: every total from `min` (a full raise,
    /// or going all in for less) to `max`, and below that only a raise to exactly what
    /// the biggest opposing stack can put in (`cover_only`). `None` when no bet or raise
    /// is allowed, which includes when no opponent could put in more than the current
    /// bet (everyone else all in, R31).
    fn raise_limits(&self, p: usize) -> Option<RaiseLimits> {
        let pl = &self.players[p];
        let all_in_to = pl.bet + self.behind(pl);
        if all_in_to <= self.current_bet {
            return None;
        }
        // Someone else must be able to call more than the current bet; `cover` is the
        // most anyone else can put in.
        let cover = self
            .players
            .iter()
            .enumerate()
            .filter(|&(i, o)| i != p && !o.folded)
            .map(|(_, o)| o.bet + self.behind(o))
            .max()
            .unwrap_or(0);
        if cover <= self.current_bet {
            return None;
        }
        if !self.bring_in_pending {
            let reopened = !pl.acted || self.current_bet.saturating_sub(pl.faced) >= self.min_raise;
            if !reopened {
                return None;
            }
        }
        let (min_to, max_to) = match self.config.structure {
            Structure::FixedLimit => {
                if self.capped() {
                    return None;
                }
                let to = self.limit_target();
                (to, to)
            }
            Structure::SpreadLimit => {
                if self.capped() {
                    return None;
                }
                let (lo, hi) = self.spread_range();
                (
                    self.current_bet + self.min_raise.max(lo).min(hi),
                    self.current_bet + hi,
                )
            }
            Structure::NoLimit => (self.current_bet + self.min_raise, all_in_to),
            Structure::PotLimit => {
                let mut pot: Chips = self.players.iter().map(|o| o.committed).sum();
                if self.street == 0
                    && !self.big_blind_acted
                    && self.config.options.pot_limit_preflop == PotLimitPreflop::AssumedCall
                {
                    pot += self.assumed_call();
                }
                let max = self.current_bet + pot + (self.current_bet - pl.bet);
                (
                    self.current_bet + self.min_raise,
                    max.max(self.current_bet + self.min_raise),
                )
            }
        };
        let mut max_to = max_to.min(all_in_to);
        let full = min_to;
        let mut min_to = min_to.min(all_in_to);
        // A raise that puts the biggest opposing stack all in is allowed even when it is
        // smaller than a full raise: nobody could call more. Only that exact total.
        let cover_only = (cover < min_to).then_some(cover);
        let unit = self.config.options.unit;
        if unit > 1 {
            if min_to != all_in_to && min_to % unit != 0 {
                min_to = (min_to / unit + 1) * unit;
            }
            if max_to != all_in_to && max_to % unit != 0 {
                max_to -= max_to % unit;
            }
            if min_to > max_to {
                // No multiple of the unit fits: only going all in remains, if it fits.
                let fits = all_in_to <= max_to + unit && all_in_to >= min_to.saturating_sub(unit);
                return fits.then_some(RaiseLimits {
                    min: all_in_to,
                    max: all_in_to,
                    full,
                    cover_only,
                });
            }
        }
        Some(RaiseLimits {
            min: min_to,
            max: max_to,
            full,
            cover_only,
        })
    }

    /// Pot-limit assumed call: what the small blinds lack of a full blind (R22).
    fn assumed_call(&self) -> Chips {
        let big = self.config.big_blind();
        self.config
            .seats
            .iter()
            .zip(&self.players)
            .filter(|(s, _)| s.kind == BlindKind::Blind && s.blind > 0 && s.blind < big)
            .map(|(s, p)| {
                let put_in = if p.folded {
                    s.blind
                } else {
                    p.bet.max(s.blind)
                };
                big.saturating_sub(put_in)
            })
            .sum()
    }

    fn can_muck(&self, p: usize) -> bool {
        // Muck only if every pot this player could win has another live contender.
        let live = self.live_mask() & !(1 << p);
        self.showdown_pots
            .iter()
            .all(|&(_, eligible)| eligible >> p & 1 == 0 || eligible & live != 0)
    }

    /// Players still in the hand who have not mucked.
    fn live_mask(&self) -> u32 {
        self.players
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.folded && p.shown != Some(false))
            .fold(0, |m, (i, _)| m | 1 << i)
    }

    // ----- actions -----

    /// Applies one player's action; see [`Hand::apply_into`].
    pub fn apply(&mut self, player: usize, action: Action) -> Result<Vec<Event>, ActionError> {
        let mut events = Vec::new();
        self.apply_into(player, action, &mut events)?;
        Ok(events)
    }

    /// Applies one player's action, appending what happened to `events` (which lets a
    /// hot loop reuse one buffer). On error nothing changes.
    pub fn apply_into(
        &mut self,
        player: usize,
        action: Action,
        events: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        if self.phase == Phase::Complete {
            return Err(ActionError::HandOver);
        }
        if player >= self.players.len() {
            return Err(ActionError::NoSuchPlayer { player });
        }
        if self.actor != Some(player) {
            return Err(ActionError::NotYourTurn {
                player,
                expected: self.actor,
            });
        }
        match (self.phase, action) {
            (
                Phase::Betting,
                Action::Fold
                | Action::Check
                | Action::Call
                | Action::BringIn
                | Action::BetOrRaiseTo { .. },
            ) => self.bet_action(player, action, events),
            (Phase::Drawing, Action::Draw { discards }) => self.draw(player, discards, events),
            (Phase::Showdown, Action::Show { cards }) => self.show(player, cards, events),
            (Phase::RunItTwice, Action::RunItTwice { agree }) => {
                self.answer_run_twice(player, agree, events);
                Ok(())
            }
            (Phase::Showdown, Action::Muck) => {
                if !self.can_muck(player) {
                    return Err(ActionError::CannotMuck);
                }
                self.players[player].shown = Some(false);
                events.push(Event::Mucked { player });
                self.next_shower(events);
                Ok(())
            }
            _ => Err(ActionError::WrongPhase {
                action: action_name(&action),
            }),
        }
    }

    fn bet_action(
        &mut self,
        p: usize,
        action: Action,
        events: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        let to_call = self.current_bet.saturating_sub(self.players[p].bet);
        if self.bring_in_pending && !matches!(action, Action::BringIn | Action::BetOrRaiseTo { .. })
        {
            return Err(ActionError::BringInPending);
        }
        let behind = self.behind(&self.players[p]);
        match action {
            Action::Fold => {
                let pl = &mut self.players[p];
                pl.folded = true;
                pl.acted = true;
                events.push(Event::Folded { player: p });
            }
            Action::Check => {
                if to_call > 0 {
                    return Err(ActionError::CannotCheck { to_call });
                }
                let pl = &mut self.players[p];
                pl.acted = true;
                pl.faced = self.current_bet;
                events.push(Event::Checked { player: p });
            }
            Action::Call => {
                if to_call == 0 {
                    return Err(ActionError::NothingToCall);
                }
                let current = self.current_bet;
                let amount = to_call.min(behind);
                let pl = &mut self.players[p];
                pl.stack -= amount;
                pl.bet += amount;
                pl.committed += amount;
                pl.acted = true;
                pl.faced = current;
                events.push(Event::Called {
                    player: p,
                    amount,
                    all_in: amount == behind,
                });
            }
            Action::BringIn => {
                if !self.bring_in_pending {
                    return Err(ActionError::WrongPhase { action: "bring-in" });
                }
                let bring_in = self.config.stakes.bring_in;
                let amount = bring_in.min(behind);
                let pl = &mut self.players[p];
                pl.stack -= amount;
                pl.bet += amount;
                pl.committed += amount;
                pl.acted = true;
                self.bring_in_pending = false;
                self.current_bet = self.current_bet.max(bring_in);
                if bring_in >= self.bet_size() {
                    self.raises = 1;
                    self.full_level = bring_in;
                }
                self.players[p].faced = self.current_bet;
                events.push(Event::BringInPosted { player: p, amount });
            }
            Action::BetOrRaiseTo { to } => {
                let limits = self.raise_limits(p).ok_or(ActionError::RaiseNotAllowed)?;
                let (min, max) = (limits.min, limits.max);
                match limits.cover_only {
                    Some(covers) if to == covers => {}
                    Some(covers) if to < min => {
                        return Err(ActionError::ShortRaise {
                            full: limits.full,
                            covers,
                            got: to,
                        })
                    }
                    _ if to < min || to > max => {
                        return Err(ActionError::BetOutOfRange { min, max, got: to });
                    }
                    _ => {}
                }
                let all_in_to = self.players[p].bet + behind;
                let unit = self.config.options.unit;
                // Going all in, or putting the biggest opposing stack all in, may be off
                // the unit.
                if unit > 1 && to % unit != 0 && to != all_in_to && Some(to) != limits.cover_only {
                    return Err(ActionError::OffUnit { unit });
                }
                let increment = to - self.current_bet;
                let half_bet = self.config.options.half_bet_rule;
                let full = match self.config.structure {
                    Structure::FixedLimit => {
                        let size = self.bet_size();
                        to >= self.limit_target()
                            || to >= self.full_level + size
                            || (half_bet && 2 * increment >= size)
                    }
                    Structure::SpreadLimit => {
                        let needed = self.min_raise.max(self.spread_range().0);
                        increment >= needed || (half_bet && 2 * increment >= needed)
                    }
                    _ => increment >= self.min_raise,
                };
                let amount = to - self.players[p].bet;
                let pl = &mut self.players[p];
                pl.stack -= amount;
                pl.bet = to;
                pl.committed += amount;
                pl.acted = true;
                pl.faced = to;
                let all_in = to == all_in_to;
                self.bring_in_pending = false;
                if full {
                    if !matches!(self.config.structure, Structure::FixedLimit) {
                        self.min_raise = self.min_raise.max(increment);
                    }
                    self.full_level = to;
                    self.raises += 1;
                    for (i, o) in self.players.iter_mut().enumerate() {
                        if i != p {
                            o.acted = false;
                        }
                    }
                }
                self.current_bet = to;
                self.aggressor = Some(p);
                events.push(Event::BetTo {
                    player: p,
                    to,
                    amount,
                    all_in,
                    full,
                });
            }
            Action::Draw { .. }
            | Action::Show { .. }
            | Action::Muck
            | Action::RunItTwice { .. } => {
                return Err(ActionError::WrongPhase {
                    action: action_name(&action),
                })
            }
        }
        if self.street == 0
            && !self.big_blind_acted
            && self.config.options.pot_limit_preflop == PotLimitPreflop::AssumedCall
            && Some(p) == self.big_blind_seat()
        {
            self.big_blind_acted = true;
        }
        self.after_bet_action(p, events);
        Ok(())
    }

    /// The seat of the biggest ordinary blind (pot-limit assumed call).
    fn big_blind_seat(&self) -> Option<usize> {
        (0..self.players.len())
            .filter(|&i| {
                let s = &self.config.seats[i];
                s.kind == BlindKind::Blind && s.blind > 0
            })
            .max_by_key(|&i| (self.config.seats[i].blind, i))
    }

    fn answer_run_twice(&mut self, p: usize, agree: bool, events: &mut Vec<Event>) {
        events.push(Event::RunItTwiceAnswered { player: p, agree });
        if !agree {
            self.actor = None;
        } else {
            let next = (p + 1..self.players.len()).find(|&i| !self.players[i].folded);
            self.actor = next;
            if next.is_none() {
                self.runs = 2;
                self.split_at = self.board.len() as u8;
                events.push(Event::RunningTwice);
            }
        }
        if self.actor.is_none() {
            self.advance(events);
        }
    }

    fn draw(
        &mut self,
        p: usize,
        discards: Cards,
        events: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        let mut hole = self.players[p].hole;
        for &card in discards.iter() {
            match hole.iter().position(|&c| c == card) {
                Some(i) => {
                    hole.remove(i);
                }
                None => return Err(ActionError::InvalidDiscard),
            }
        }
        let pl = &mut self.players[p];
        pl.hole = hole;
        pl.up = 0;
        self.muck
            .extend(discards.iter().copied().filter(|c| c.is_known()));
        events.push(Event::Discarded {
            player: p,
            cards: discards,
        });
        if !discards.is_empty() {
            self.deals.push_back(DealStep::Hole {
                player: p,
                count: discards.len() as u8,
                up: 0,
            });
        }
        // Next drawer: the next player still in, in order.
        self.actor = (p + 1..self.players.len()).find(|&i| !self.players[i].folded);
        if self.actor.is_none() {
            self.phase = Phase::Dealing;
            self.advance(events);
        }
        Ok(())
    }

    fn show(
        &mut self,
        p: usize,
        cards: Option<Cards>,
        events: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        let hole = self.players[p].hole;
        let shown = match cards {
            None => hole,
            Some(shown) => {
                if shown.len() != hole.len() {
                    return Err(ActionError::InvalidShow);
                }
                // Every known card held must be among those shown; unknown ones are revealed.
                let mut rest = shown;
                for &c in hole.iter().filter(|c| c.is_known()) {
                    match rest.iter().position(|&s| s == c) {
                        Some(i) => {
                            rest.remove(i);
                        }
                        None => return Err(ActionError::InvalidShow),
                    }
                }
                for &c in rest.iter() {
                    if c.is_known() && seen(self, c) {
                        return Err(ActionError::CardNotAvailable(c));
                    }
                }
                shown
            }
        };
        if shown.iter().any(|c| !c.is_known()) {
            return Err(ActionError::UnknownCards);
        }
        let pl = &mut self.players[p];
        pl.hole = shown;
        pl.shown = Some(true);
        events.push(Event::Shown {
            player: p,
            cards: shown,
        });
        self.next_shower(events);
        Ok(())
    }

    /// Deals cards by hand (manual source): hole cards to `player`, or the board when
    /// `player` is `None`. The cards must be what [`Hand::pending_deal`] asks for.
    pub fn deal(
        &mut self,
        player: Option<usize>,
        cards: &[Card],
    ) -> Result<Vec<Event>, ActionError> {
        let step = self.pending_deal().ok_or(ActionError::UnexpectedDeal)?;
        if self.deck.is_some() {
            return Err(ActionError::UnexpectedDeal);
        }
        let fits = match step {
            DealStep::Hole {
                player: q, count, ..
            } => player == Some(q) && cards.len() == count as usize,
            DealStep::Board { count } | DealStep::SecondBoard { count } => {
                player.is_none() && cards.len() == count as usize
            }
        };
        if !fits {
            return Err(ActionError::UnexpectedDeal);
        }
        for (i, &c) in cards.iter().enumerate() {
            if c.is_known()
                && (!self.config.game.deck().contains(c)
                    || seen(self, c)
                    || cards[..i].contains(&c))
            {
                return Err(ActionError::CardNotAvailable(c));
            }
        }
        let mut events = Vec::new();
        self.deals.pop_front();
        self.put_cards(step, cards, &mut events);
        self.advance(&mut events);
        Ok(events)
    }

    /// Hands back the shuffled discards when [`Hand::needs_reshuffle`] asked for them;
    /// they go under the remaining stub.
    pub fn reshuffle(&mut self, shuffled: Vec<Card>) -> Result<Vec<Event>, ActionError> {
        if self.needs_reshuffle().is_none() {
            return Err(ActionError::UnexpectedDeal);
        }
        let mut a = shuffled.clone();
        let mut b = self.muck.clone();
        a.sort_unstable();
        b.sort_unstable();
        if a != b {
            return Err(ActionError::UnexpectedDeal);
        }
        self.muck.clear();
        let deck = self.deck.as_mut().expect("checked by needs_reshuffle");
        let mut fresh: Vec<Card> = shuffled.into_iter().rev().collect();
        fresh.append(deck);
        *deck = fresh;
        let mut events = Vec::new();
        self.advance(&mut events);
        Ok(events)
    }

    // ----- internals -----

    fn post_forced_bets(&mut self, events: &mut Vec<Event>) {
        // A pot-limit small blind played as dead money goes in with the antes (R22).
        let dead_small = self.config.structure == Structure::PotLimit
            && self.config.options.pot_limit_preflop == PotLimitPreflop::DeadSmallBlind;
        let big = self.config.big_blind();
        for i in 0..self.players.len() {
            let seat = self.config.seats[i];
            let dead = seat.ante
                + if dead_small && seat.kind == BlindKind::Blind && seat.blind < big {
                    seat.blind
                } else {
                    0
                };
            if dead > 0 {
                let pl = &mut self.players[i];
                let amount = dead.min(pl.stack);
                pl.stack -= amount;
                pl.committed += amount;
                pl.ante = amount;
                events.push(Event::AntePosted { player: i, amount });
            }
        }
        for i in 0..self.players.len() {
            let seat = self.config.seats[i];
            let dead_blind = dead_small && seat.kind == BlindKind::Blind && seat.blind < big;
            if seat.blind > 0 && self.players[i].stack > 0 && !dead_blind {
                let pl = &mut self.players[i];
                let amount = seat.blind.min(pl.stack);
                pl.stack -= amount;
                pl.bet += amount;
                pl.committed += amount;
                events.push(Event::BlindPosted { player: i, amount });
            }
        }
        // Callers owe the full blind even when its poster is all in for less (R28); a
        // live post counts for its poster only (R13, R14).
        self.current_bet = self
            .config
            .seats
            .iter()
            .filter(|s| s.kind != BlindKind::Post)
            .map(|s| s.blind)
            .max()
            .unwrap_or(0);
        // A sleeper has no option (R15).
        for i in 0..self.players.len() {
            if self.config.seats[i].kind == BlindKind::Sleeper && self.config.seats[i].blind > 0 {
                self.players[i].acted = true;
                self.players[i].faced = self.current_bet;
            }
        }
        self.kill_seat = (0..self.players.len()).find(|&i| {
            self.config.seats[i].kind == BlindKind::Kill && self.config.seats[i].blind > 0
        });
    }

    fn start_street(&mut self, events: &mut Vec<Event>) {
        let def = self.config.game.streets()[self.street];
        if def.draw {
            self.phase = Phase::Drawing;
            self.actor = (0..self.players.len()).find(|&i| !self.players[i].folded);
            return;
        }
        self.phase = Phase::Dealing;
        if !def.hole.is_empty() {
            let up = def
                .hole
                .iter()
                .enumerate()
                .fold(0u8, |m, (i, &u)| if u { m | 1 << i } else { m });
            for i in 0..self.players.len() {
                if !self.players[i].folded {
                    self.deals.push_back(DealStep::Hole {
                        player: i,
                        count: def.hole.len() as u8,
                        up,
                    });
                }
            }
        }
        if def.board > 0 {
            self.deals.push_back(DealStep::Board { count: def.board });
        }
        let _ = events;
    }

    fn put_cards(&mut self, step: DealStep, cards: &[Card], events: &mut Vec<Event>) {
        match step {
            DealStep::Hole { player, up, .. } => {
                let pl = &mut self.players[player];
                let base = pl.hole.len();
                for &c in cards {
                    pl.hole.push(c);
                }
                pl.up |= up << base;
                events.push(Event::HoleDealt {
                    player,
                    cards: Cards::from_slice(cards).expect("at most seven"),
                    up,
                });
            }
            DealStep::Board { .. } => {
                for &c in cards {
                    self.board.push(c);
                }
                events.push(Event::BoardDealt {
                    cards: Cards::from_slice(cards).expect("at most five"),
                });
            }
            DealStep::SecondBoard { .. } => {
                for &c in cards {
                    self.board2.push(c);
                }
                events.push(Event::SecondBoardDealt {
                    cards: Cards::from_slice(cards).expect("at most five"),
                });
            }
        }
    }

    /// Runs the dealer's part until a player (or a manual deal) is needed.
    fn advance(&mut self, events: &mut Vec<Event>) {
        loop {
            match self.phase {
                Phase::Dealing => {
                    if let Some(step) = self.deals.front().copied() {
                        let Some(deck) = self.deck.as_mut() else {
                            return;
                        };
                        let count = step_count(step) as usize;
                        if count > deck.len() {
                            return; // a reshuffle is due
                        }
                        if matches!(step, DealStep::Board { .. } | DealStep::SecondBoard { .. })
                            && !deck.is_empty()
                            && count < deck.len()
                        {
                            deck.pop(); // burn
                        }
                        let mut buf = [Card::UNKNOWN; 7];
                        for slot in buf.iter_mut().take(count) {
                            *slot = deck.pop().expect("checked");
                        }
                        self.deals.pop_front();
                        self.put_cards(step, &buf[..count], events);
                        continue;
                    }
                    if self.second_board_pending {
                        self.second_board_pending = false;
                        self.start_showdown(events);
                        continue;
                    }
                    self.begin_betting(events);
                    if self.phase == Phase::Betting && self.actor.is_some() {
                        return;
                    }
                }
                Phase::Betting => {
                    if self.actor.is_some() {
                        return;
                    }
                    if self.end_round(events) {
                        continue;
                    }
                }
                Phase::Drawing => {
                    if self.actor.is_some() {
                        return;
                    }
                    self.phase = Phase::Dealing;
                }
                Phase::RunItTwice => {
                    if self.actor.is_some() {
                        return;
                    }
                    self.next_street(events);
                }
                Phase::Showdown => {
                    if self.actor.is_some() {
                        return;
                    }
                    self.award(events);
                }
                Phase::Complete => return,
            }
        }
    }

    /// Whether `i` still has to act in this round, given how many players still in the
    /// hand have chips they can still bet.
    fn needs_action(&self, i: usize, with_chips: usize) -> bool {
        let pl = &self.players[i];
        if pl.folded || self.behind(pl) == 0 {
            return false;
        }
        if pl.acted && pl.bet >= self.current_bet {
            return false;
        }
        if with_chips > 1 {
            return true;
        }
        // Everyone else is all in: only a player who has not matched them acts.
        let others_max = self
            .players
            .iter()
            .enumerate()
            .filter(|&(j, o)| j != i && !o.folded)
            .map(|(_, o)| o.bet)
            .max()
            .unwrap_or(0);
        pl.bet < others_max
    }

    fn with_chips(&self) -> usize {
        self.players
            .iter()
            .filter(|p| !p.folded && self.behind(p) > 0)
            .count()
    }

    /// The first player from `start` (inclusive, clockwise) who has to act.
    fn next_actor_from(&self, start: usize) -> Option<usize> {
        let n = self.players.len();
        let with_chips = self.with_chips();
        (0..n)
            .map(|k| {
                let i = start + k;
                if i >= n {
                    i - n
                } else {
                    i
                }
            })
            .find(|&i| self.needs_action(i, with_chips))
    }

    /// The first round's order when a kill blind acts last (R17): from the opener
    /// clockwise without the kill seat, then the kill seat.
    fn kill_order(&self, kill: usize) -> impl Iterator<Item = usize> + '_ {
        let n = self.players.len();
        (0..n)
            .map(move |k| (self.round_opener + k) % n)
            .filter(move |&i| i != kill)
            .chain(std::iter::once(kill))
    }

    fn first_actor(&self) -> Option<usize> {
        match (self.street, self.kill_seat) {
            (0, Some(kill)) => {
                let with_chips = self.with_chips();
                self.kill_order(kill)
                    .find(|&i| self.needs_action(i, with_chips))
            }
            _ => self.next_actor_from(self.round_opener),
        }
    }

    fn next_actor_after(&self, p: usize) -> Option<usize> {
        match (self.street, self.kill_seat) {
            (0, Some(kill)) => {
                let with_chips = self.with_chips();
                let order: Vec<usize> = self.kill_order(kill).collect();
                let at = order.iter().position(|&i| i == p).unwrap_or(0);
                (1..=order.len())
                    .map(|k| order[(at + k) % order.len()])
                    .find(|&i| self.needs_action(i, with_chips))
            }
            _ => self.next_actor_from(p + 1),
        }
    }

    fn begin_betting(&mut self, events: &mut Vec<Event>) {
        self.phase = Phase::Betting;
        events.push(Event::RoundStarted {
            street: self.street,
        });
        let opener = self.opener();
        self.round_opener = opener;
        self.aggressor = None;
        self.round_contenders = self.contenders() as u8;
        if self.street == 0 {
            let size = self.bet_size();
            let level = self.current_bet;
            self.min_raise = match self.config.structure {
                Structure::FixedLimit => size,
                _ => size.max(level),
            };
            self.raises = u32::from(level >= size && level > 0);
            self.full_level = if level >= size { level } else { 0 };
            self.bring_in_pending = self.config.stakes.bring_in > 0
                && self.config.game.opening() != Opening::Position
                && self.behind(&self.players[opener]) > 0;
            if self.bring_in_pending {
                self.actor = Some(opener);
                return;
            }
        } else {
            self.current_bet = 0;
            self.min_raise = self.bet_size();
            self.raises = 0;
            self.full_level = 0;
            for pl in &mut self.players {
                pl.acted = false;
                pl.faced = 0;
            }
        }
        if self.contenders() < 2 {
            self.actor = None;
            return;
        }
        self.actor = self.first_actor();
    }

    fn after_bet_action(&mut self, p: usize, events: &mut Vec<Event>) {
        self.actor = if self.contenders() < 2 {
            None
        } else {
            self.next_actor_after(p)
        };
        if self.actor.is_none() {
            self.advance(events);
        }
    }

    /// Closes the betting round. Returns true to keep advancing.
    fn end_round(&mut self, events: &mut Vec<Event>) -> bool {
        // Return the part of the top bet that nobody matched (R8).
        let (mut top, mut top_i, mut second) = (0, 0, 0);
        for (i, p) in self.players.iter().enumerate() {
            if p.bet > top {
                second = top;
                top = p.bet;
                top_i = i;
            } else if p.bet > second {
                second = p.bet;
            }
        }
        if top > second {
            let excess = top - second;
            let pl = &mut self.players[top_i];
            pl.bet -= excess;
            pl.committed -= excess;
            pl.stack += excess;
            events.push(Event::UncalledReturned {
                player: top_i,
                amount: excess,
            });
        }
        for p in &mut self.players {
            p.bet = 0;
        }
        events.push(Event::BetsCollected {
            pot: self.players.iter().map(|p| p.committed).sum(),
        });
        if self.contenders() < 2 {
            self.award(events);
            return true;
        }
        let last = self.street + 1 == self.config.game.streets().len();
        let options = &self.config.options;
        if !last && (options.expose_all_in || options.run_it_twice) && self.with_chips() <= 1 {
            // Nobody can bet any more: expose the hands (R31) or offer to run twice (R32).
            if self.config.options.expose_all_in && !self.exposed {
                self.exposed = true;
                for i in 0..self.players.len() {
                    let pl = &self.players[i];
                    if !pl.folded && pl.shown.is_none() && pl.hole.iter().all(|c| c.is_known()) {
                        let cards = pl.hole;
                        self.players[i].shown = Some(true);
                        events.push(Event::Shown { player: i, cards });
                    }
                }
            }
            if self.config.options.run_it_twice && !self.run_twice_asked && self.board.len() < 5 {
                self.run_twice_asked = true;
                self.phase = Phase::RunItTwice;
                self.actor = (0..self.players.len()).find(|&i| !self.players[i].folded);
                return true;
            }
        }
        self.next_street(events);
        true
    }

    /// Moves on to the next street, or the showdown after the last.
    fn next_street(&mut self, events: &mut Vec<Event>) {
        if self.street + 1 == self.config.game.streets().len() {
            self.start_showdown(events);
        } else {
            self.street += 1;
            self.start_street(events);
        }
    }

    /// The player who opens the current round.
    fn opener(&self) -> usize {
        let n = self.players.len();
        match self.config.game.opening() {
            Opening::Position => {
                if self.street == 0 {
                    // Left of the biggest blind or straddle (sleepers, kill blinds and
                    // posts do not buy last action).
                    let biggest = (0..n)
                        .filter(|&i| {
                            matches!(
                                self.config.seats[i].kind,
                                BlindKind::Blind | BlindKind::Straddle
                            )
                        })
                        .max_by_key(|&i| (self.config.seats[i].blind, i))
                        .unwrap_or(n - 1);
                    (biggest + 1) % n
                } else {
                    0
                }
            }
            Opening::StudHigh | Opening::StudLow => {
                let low_game = self.config.game.opening() == Opening::StudLow;
                let live: Vec<usize> = (0..n).filter(|&i| !self.players[i].folded).collect();
                if self.street == 0 {
                    // Bring-in: lowest up card (razz: highest, ace low); suits break ties.
                    let key = |i: usize| {
                        let c = self.up_cards(i).first().copied().unwrap_or(Card::UNKNOWN);
                        let rank = if low_game {
                            (c.rank().0 + 1) % 13
                        } else {
                            c.rank().0
                        };
                        (rank, c.suit().0)
                    };
                    if low_game {
                        *live
                            .iter()
                            .rev()
                            .max_by_key(|&&i| key(i))
                            .expect("live players")
                    } else {
                        *live.iter().min_by_key(|&&i| key(i)).expect("live players")
                    }
                } else {
                    let value = |i: usize| showing_value(&self.up_cards(i), low_game);
                    if low_game {
                        *live
                            .iter()
                            .min_by_key(|&&i| value(i))
                            .expect("live players")
                    } else {
                        *live
                            .iter()
                            .rev()
                            .max_by_key(|&&i| value(i))
                            .expect("live players")
                    }
                }
            }
        }
    }

    fn up_cards(&self, i: usize) -> Vec<Card> {
        let pl = &self.players[i];
        pl.hole
            .iter()
            .enumerate()
            .filter(|(k, _)| pl.up >> k & 1 == 1)
            .map(|(_, &c)| c)
            .collect()
    }

    fn start_showdown(&mut self, events: &mut Vec<Event>) {
        if self.runs == 2 && self.board2.is_empty() && !self.second_board_pending {
            // Deal the second run before anyone shows (R32).
            self.board2 = Cards::from_slice(&self.board[..self.split_at as usize]).expect("fits");
            self.second_board_pending = true;
            self.deals.push_back(DealStep::SecondBoard {
                count: 5 - self.split_at,
            });
            self.phase = Phase::Dealing;
            self.actor = None;
            return;
        }
        let _ = events;
        self.phase = Phase::Showdown;
        let n = self.players.len();
        // R33: the last aggressor of the final round shows first, else the first to act;
        // players in side pots show before those all in for the main pot only.
        let first = self.aggressor.unwrap_or(self.round_opener);
        let mut order: Vec<usize> = (0..n)
            .map(|k| (first + k) % n)
            .filter(|&i| !self.players[i].folded)
            .collect();
        let mut pots = PotMasks::new();
        self.pot_masks(&mut pots);
        let depth = |i: usize| pots.as_slice().iter().filter(|p| p.1 >> i & 1 == 1).count();
        order.sort_by_key(|&i| std::cmp::Reverse(depth(i)));
        self.showdown_order = order;
        self.showdown_pots = pots.as_slice().to_vec();
        self.actor = None;
        self.pick_shower();
    }

    fn pick_shower(&mut self) {
        let live = self
            .players
            .iter()
            .filter(|p| !p.folded && p.shown != Some(false))
            .count();
        self.actor = if live < 2 {
            None
        } else {
            self.showdown_order
                .iter()
                .copied()
                .find(|&i| self.players[i].shown.is_none())
        };
    }

    fn next_shower(&mut self, events: &mut Vec<Event>) {
        self.pick_shower();
        if self.actor.is_none() {
            self.advance(events);
        }
    }

    /// Hand values (main half, low half) of a live player at showdown.
    fn values(&self, i: usize, board: &[Card]) -> (HandValue, Option<HandValue>) {
        let hole = self.players[i].hole.as_slice();
        let mut all = [Card::UNKNOWN; 12];
        all[..hole.len()].copy_from_slice(hole);
        all[hole.len()..hole.len() + board.len()].copy_from_slice(board);
        let all = &all[..hole.len() + board.len()];
        match self.config.game.showdown() {
            Showdown::High => {
                let rank = match <&[Card; 7]>::try_from(all) {
                    Ok(seven) => high::evaluate7(seven),
                    Err(_) => high::evaluate(all),
                };
                (HandValue(rank.0 as u32), None)
            }
            Showdown::ShortDeckHigh => (HandValue(high::evaluate_short_deck(all).0 as u32), None),
            Showdown::OmahaHigh => (eval::omaha_high(hole, board), None),
            Showdown::OmahaHiLo => (eval::omaha_high(hole, board), eval::omaha_low(hole, board)),
            Showdown::StudHigh => (HandValue(high::evaluate(hole).0 as u32), None),
            Showdown::StudHiLo => (
                HandValue(high::evaluate(hole).0 as u32),
                eval::ace_to_five_low(hole, true),
            ),
            Showdown::Razz => (
                eval::ace_to_five_low(hole, false).expect("five or more cards"),
                None,
            ),
            Showdown::DeuceToSeven => (eval::deuce_to_seven_low(hole), None),
            Showdown::Badugi => (eval::badugi(hole), None),
        }
    }

    /// Rake on one pot, rounded as configured.
    fn rake_of(rake: &Rake, amount: Chips) -> Chips {
        let x = amount as u128 * rake.basis_points as u128;
        let r = match rake.rounding {
            RakeRounding::Down => x / 10_000,
            RakeRounding::Nearest => (x + 5_000) / 10_000,
            RakeRounding::Up => x.div_ceil(10_000),
        };
        r as Chips
    }

    fn award(&mut self, events: &mut Vec<Event>) {
        let mut pots = PotMasks::new();
        self.pot_masks(&mut pots);
        // The house's cut, pot by pot from the main pot, up to the cap (R36); no flop, no
        // drop: nothing when the hand ends on its first street.
        if let Some(rake) = self.config.options.rake {
            let dropped = !(rake.no_flop_no_drop && self.street == 0 && self.board.is_empty());
            if dropped {
                let mut left = rake.cap;
                for pot in pots.pots[..pots.len].iter_mut() {
                    let r = Self::rake_of(&rake, pot.0).min(left).min(pot.0);
                    pot.0 -= r;
                    left -= r;
                    self.rake += r;
                }
                if self.rake > 0 {
                    events.push(Event::Raked { amount: self.rake });
                }
            }
        }
        let n = self.players.len();
        let live = self.live_mask();
        let runs = if live.count_ones() > 1 {
            self.runs.max(1)
        } else {
            1
        };
        let mut won = [0 as Chips; 32];
        for run in 0..runs {
            let board = if run == 0 { self.board } else { self.board2 };
            let mut values = [(HandValue(0), None); 32];
            if live.count_ones() > 1 {
                for (i, v) in values.iter_mut().enumerate().take(n) {
                    if live >> i & 1 == 1 {
                        *v = self.values(i, &board);
                    }
                }
            }
            // Side pots first, then the main pot (R34).
            for (k, &(total, eligible)) in pots.as_slice().iter().enumerate().rev() {
                // Two runs: each wins half of every pot, the odd chip to the first run.
                let amount = match (runs, run) {
                    (1, _) => total,
                    (_, 0) => total - total / 2,
                    _ => total / 2,
                };
                let mut contenders = eligible & live;
                if contenders == 0 {
                    // Everyone eligible mucked (apply never allows it); the pot still goes
                    // to them, so no chip is ever lost.
                    contenders = if eligible != 0 { eligible } else { live };
                }
                if contenders.count_ones() == 1 || live.count_ones() < 2 {
                    let single = 1u32 << contenders.trailing_zeros();
                    self.award_share(k, run, PotShare::All, amount, single, &mut won, events);
                    continue;
                }
                let members = || (0..n).filter(move |&i| contenders >> i & 1 == 1);
                let best_high = members().map(|i| values[i].0).max().expect("contenders");
                let high = members()
                    .filter(|&i| values[i].0 == best_high)
                    .fold(0u32, |m, i| m | 1 << i);
                match members().filter_map(|i| values[i].1).max() {
                    Some(best_low) => {
                        let low = members()
                            .filter(|&i| values[i].1 == Some(best_low))
                            .fold(0u32, |m, i| m | 1 << i);
                        let low_amount = amount / 2;
                        let high_amount = amount - low_amount;
                        self.award_share(
                            k,
                            run,
                            PotShare::High,
                            high_amount,
                            high,
                            &mut won,
                            events,
                        );
                        self.award_share(k, run, PotShare::Low, low_amount, low, &mut won, events);
                    }
                    None => self.award_share(k, run, PotShare::All, amount, high, &mut won, events),
                }
            }
        }
        for (i, p) in self.players.iter_mut().enumerate() {
            p.won = won[i];
            p.stack += won[i];
            p.committed = 0;
        }
        self.phase = Phase::Complete;
        self.actor = None;
        events.push(Event::HandEnded {
            stacks: self.players.iter().map(|p| p.stack).collect(),
        });
    }

    /// Splits `amount` among the `winners` mask: the odd chips go one each to the first
    /// winners clockwise from the button (R35).
    #[allow(clippy::too_many_arguments)]
    fn award_share(
        &self,
        pot: usize,
        run: u8,
        share: PotShare,
        amount: Chips,
        winners: u32,
        won: &mut [Chips; 32],
        events: &mut Vec<Event>,
    ) {
        let k = Chips::from(winners.count_ones());
        let (each, odd) = (amount / k, amount % k);
        let list: Vec<(usize, Chips)> = (0..self.players.len())
            .filter(|&i| winners >> i & 1 == 1)
            .enumerate()
            .map(|(j, i)| (i, each + Chips::from((j as Chips) < odd)))
            .collect();
        for &(i, a) in &list {
            won[i] += a;
        }
        events.push(Event::PotAwarded {
            pot,
            run,
            share,
            amount,
            winners: list,
        });
    }

    /// Final stacks, once the hand is complete.
    pub fn final_stacks(&self) -> Option<Vec<Chips>> {
        self.is_complete()
            .then(|| self.players.iter().map(|p| p.stack).collect())
    }
}

/// Up to 24 (amount, eligible-mask) pots without allocating: each player still in the
/// hand opens at most one level (an ante level if all in for the ante, else a live one).
struct PotMasks {
    len: usize,
    pots: [(Chips, u32); 24],
}

impl PotMasks {
    fn new() -> PotMasks {
        PotMasks {
            len: 0,
            pots: [(0, 0); 24],
        }
    }

    fn push(&mut self, pot: (Chips, u32)) {
        self.pots[self.len] = pot;
        self.len += 1;
    }

    fn last_mut(&mut self) -> Option<&mut (Chips, u32)> {
        self.len.checked_sub(1).map(|i| &mut self.pots[i])
    }

    fn as_slice(&self) -> &[(Chips, u32)] {
        &self.pots[..self.len]
    }
}

/// A small sorted set of distinct chip levels (at most one per player).
struct Levels {
    len: usize,
    levels: [Chips; 24],
}

impl Levels {
    fn new() -> Levels {
        Levels {
            len: 0,
            levels: [0; 24],
        }
    }

    fn insert(&mut self, level: Chips) {
        let slice = &self.levels[..self.len];
        if let Err(at) = slice.binary_search(&level) {
            self.levels.copy_within(at..self.len, at + 1);
            self.levels[at] = level;
            self.len += 1;
        }
    }

    fn as_slice(&self) -> &[Chips] {
        &self.levels[..self.len]
    }
}

fn step_count(step: DealStep) -> u8 {
    match step {
        DealStep::Hole { count, .. }
        | DealStep::Board { count }
        | DealStep::SecondBoard { count } => count,
    }
}

fn action_name(action: &Action) -> &'static str {
    match action {
        Action::Fold => "fold",
        Action::Check => "check",
        Action::Call => "call",
        Action::BringIn => "bring-in",
        Action::BetOrRaiseTo { .. } => "bet or raise",
        Action::Draw { .. } => "draw",
        Action::Show { .. } => "show",
        Action::Muck => "muck",
        Action::RunItTwice { .. } => "run it twice",
    }
}

/// The strength of up cards for choosing who opens a stud street: quads, trips, two
/// pair, pair, high cards (no straights or flushes); `ace_low` for razz.
fn showing_value(up: &[Card], ace_low: bool) -> (u8, Vec<u8>) {
    let mut counts = [0u8; 13];
    for c in up {
        let r = if ace_low {
            (c.rank().0 + 1) % 13
        } else {
            c.rank().0
        };
        counts[r as usize] += 1;
    }
    let mut groups: Vec<(u8, u8)> = (0..13u8)
        .filter(|&r| counts[r as usize] > 0)
        .map(|r| (counts[r as usize], r))
        .collect();
    groups.sort_unstable_by(|a, b| b.cmp(a));
    let category = match groups.iter().map(|g| g.0).collect::<Vec<_>>().as_slice() {
        [4, ..] => 4,
        [3, ..] => 3,
        [2, 2, ..] => 2,
        [2, ..] => 1,
        _ => 0,
    };
    (category, groups.iter().map(|g| g.1).collect())
}
