//! Version 1 of the construction, for hands recorded before version 2: a salted Merkle
//! tree over the deck in the server's order, proofs by committed position. Its proofs
//! are made and checked as they were; docs/fairness.md says what version 2 changed and
//! why (a card received after a reshuffle named whose discard it was; a reshuffle could
//! take a card someone held; a hand shown could name a card its player had thrown away).

pub mod deck;
pub mod proof;
pub mod shuffle;

pub use crate::bytes::Salt;
pub use deck::DeckRecord;
pub use proof::{prove, verify, HandProof, Record};
