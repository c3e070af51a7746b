//! A deck anyone can verify, without revealing a mucked card.
//!
//! Before a hand, the server draws a deck order and a 16-byte salt per card from the
//! operating system's generator, builds a Merkle tree over the leaves (committed position,
//! card, salt) and publishes a commitment to the root and the hand's id
//! ([`deck::CommittedDeck`], [`deck::Commitment`]). Every seated player then sends a random
//! seed. The dealt order is the committed deck permuted by Fisher-Yates driven by a
//! SHA-256 stream keyed by the commitment and every seed used ([`shuffle`]); a draw game's
//! reshuffle permutes the discards' committed positions the same way. After the hand each
//! player gets the openings (card, salt, Merkle path) of exactly the cards they saw, with
//! the place each came from in the dealt order ([`proof::prove`]), and anyone can check
//! them against the commitment ([`proof::verify`]). Mucked and undealt cards stay hidden
//! behind their salts.
//!
//! Pure: no I/O, no clock, no randomness of its own; every byte layout is in
//! `docs/fairness.md`, with test vectors an independent verifier can reproduce.

pub mod bytes;
pub mod deck;
pub mod merkle;
pub mod phh;
pub mod proof;
pub mod shuffle;
#[doc(hidden)]
pub mod vectors;

pub use bytes::{Bytes, Digest, Salt, Seed};
pub use deck::{Commitment, CommittedDeck, Dealing, DeckError, DeckRecord};
pub use proof::{
    prove, prove_deck, verify, CardProof, HandProof, Record, Verified, VerifyError, Viewer,
};
pub use shuffle::SeatSeed;
