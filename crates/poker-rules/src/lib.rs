//! Pure poker rules: cards, hand evaluation, one hand's state machine for every betting
//! structure and variant, pots and showdown, and PHH hand histories.
//!
//! Nothing here does I/O, reads a clock or draws random numbers: the deck comes in from
//! the caller (shuffled with a cryptographic RNG by the server, or spelled out by a hand
//! history), so every hand is reproducible from its inputs.

pub mod card;
pub mod eval;

pub use card::{Card, DeckKind, Rank, Suit};
