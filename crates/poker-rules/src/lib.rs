//! Pure poker rules: cards, hand evaluation, one hand's state machine for every betting
//! structure and variant, pots and showdown; hand histories are
//! written from it by the `poker-history` crate.
//!
//! Nothing here does I/O, reads a clock or draws random numbers: the deck comes in from
//! the caller (shuffled with a cryptographic RNG by the server, or spelled out by a hand
//! history), so every hand is reproducible from its inputs.

pub mod card;
pub mod eval;

pub use card::{Card, Cards, DeckKind, Rank, Suit};
pub mod game;
pub mod hand;
pub mod table;

pub use game::{Game, Structure, Variant};
pub use hand::{
    Action, ActionError, BlindKind, CardSource, Chips, ConfigError, DealStep, Decision, Event,
    Hand, HandConfig, HandOptions, LegalActions, Phase, Pot, PotLimitPreflop, PotShare, Rake,
    RakeRounding, SeatConfig, Stakes, StraddleRule, MAX_CHIPS,
};
