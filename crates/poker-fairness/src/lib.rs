//! A deck anyone can verify, without revealing a card nobody was shown.
//!
//! Before a hand, the server draws a 32-byte secret and commits, for each round of the
//! hand (the deal, then each reshuffle a draw game may need), to a Merkle tree with one
//! leaf per card and to the sorted list of the cards' tags; the commitment fixes them all
//! ([`deck::CommittedDeck`], [`deck::Commitment`]). Every seated player then commits to a
//! random seed, the table closes the list of commitments, and the players reveal their
//! seeds ([`seeds`]). Each round's order is Fisher-Yates driven by a SHA-256 stream keyed
//! by the commitment, the closed list and every seed revealed ([`shuffle`]): the deal
//! takes round 0's slots in order, and a reshuffle takes the slots of its round that hold
//! the discards. After the hand each player gets the openings (card, nonce, Merkle path)
//! of exactly the cards they saw, where each came from, and the openings that show no
//! reshuffle took a card they held ([`proof::prove`]); anyone can check them against the
//! commitment ([`proof::verify`]).
//!
//! Pure: no I/O, no clock, no randomness of its own; every byte layout is in
//! `docs/fairness.md`, with test vectors an independent verifier can reproduce. Hands
//! recorded before this construction (version 1) are proved and checked by [`v1`].

pub mod bytes;
pub mod deck;
pub mod merkle;
pub mod phh;
pub mod proof;
pub mod seeds;
pub mod shuffle;
pub mod v1;
#[doc(hidden)]
pub mod vectors;

pub use bytes::{Bytes, Digest, Seed};
pub use deck::{Commitment, CommittedDeck, Dealing, DeckError, DeckRecord, Nonce, Secret};
pub use proof::{
    prove, prove_deck, verify, CardProof, HandProof, KeptProof, MySeed, Record, Verified,
    VerifyError, Viewer,
};
pub use seeds::{seed_commitment, SeatSeed, SeedCommit};
