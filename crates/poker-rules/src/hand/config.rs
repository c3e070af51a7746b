//! The configuration of a hand: stakes, seats with their forced bets, house options
//! (straddles, rake, pot-limit preflop, caps, units...), and its validation.

use crate::card::Card;
use crate::game::{Game, Opening, Structure};
use serde::{Deserialize, Serialize};

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
    /// A bomb pot (H1, docs/house-games.md): every seat's `ante` is its bomb, nobody
    /// posts a blind, and there is no first betting round: the flop comes at once.
    /// Board games with a button only.
    pub bomb_pot: bool,
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
        // Every amount, and all the chips of the hand together, fit MAX_CHIPS, so no sum
        // the hand makes (a pot, a raise over the current bet, a PHH float) can overflow,
        // whatever a history or a caller asks for.
        let stakes = [
            self.stakes.min_bet,
            self.stakes.small_bet,
            self.stakes.big_bet,
            self.stakes.bring_in,
        ];
        let seats = self.seats.iter().flat_map(|s| [s.stack, s.ante, s.blind]);
        let options = o
            .spread
            .iter()
            .flat_map(|&(lo, hi)| [lo, hi])
            .chain(o.cap)
            .chain(o.rake.map(|r| r.cap))
            .chain([o.unit]);
        let total = self
            .seats
            .iter()
            .try_fold(0 as Chips, |sum, s| sum.checked_add(s.stack));
        if stakes
            .into_iter()
            .chain(seats)
            .chain(options)
            .any(|a| a > MAX_CHIPS)
            || total.is_none_or(|t| t > MAX_CHIPS)
        {
            return bad(format!(
                "amounts are at most {MAX_CHIPS} chips, and so are all the stacks together"
            ));
        }
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
        if o.bomb_pot {
            if stud || !self.game.has_board() {
                return bad("a bomb pot is for board games with a button".into());
            }
            if self.seats.iter().any(|s| s.blind > 0) {
                return bad("a bomb pot has no blinds: each player's bomb is an ante".into());
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
