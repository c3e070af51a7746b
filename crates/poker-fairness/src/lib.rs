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

/// A hand's deck as its record keeps it: this version's, or version 1's (hands recorded
/// before version 2), told apart by their fields.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum StoredDeck {
    /// Version 2.
    V2(DeckRecord),
    /// Version 1.
    V1(v1::DeckRecord),
}

/// A hand's proofs as an export carries them, in the version its deck was recorded in.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum AnyProof {
    /// Version 2.
    V2(HandProof),
    /// Version 1.
    V1(v1::HandProof),
}

impl StoredDeck {
    /// The proofs of what `viewer` saw, from the hand's events (every card known).
    pub fn prove(&self, events: &[poker_rules::Event], viewer: Viewer) -> Result<AnyProof, String> {
        match self {
            StoredDeck::V2(d) => prove(d, events, viewer)
                .map(AnyProof::V2)
                .map_err(|e| e.to_string()),
            StoredDeck::V1(d) => {
                let viewer = match viewer {
                    Viewer::Player(i) => v1::proof::Viewer::Player(i),
                    Viewer::Operator => v1::proof::Viewer::Operator,
                };
                v1::prove(d, events, viewer)
                    .map(AnyProof::V1)
                    .map_err(|e| e.to_string())
            }
        }
    }
}
