//! The players' seeds, committed before any is revealed: each seated client sends the
//! hash of its seed bound to the deck's commitment ([`seed_commitment`]); the table closes
//! the list of commitments and sends it to every seated player ([`list_digest`] names
//! it); only then does each client reveal its seed, which counts if it opens its
//! commitment. So nobody, the server's own seats included, can choose a seed after
//! seeing another: every seed is fixed before the first is revealed.

use crate::bytes::{Bytes, Digest, Seed};
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

/// The label hashed first into a seed's commitment.
pub const COMMIT_LABEL: &[u8] = b"pokerd seed commitment v2";
/// The label hashed first into the digest of the closed list.
pub const LIST_LABEL: &[u8] = b"pokerd seed list v2";

/// One player's seed, by the seat it was sent from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatSeed {
    /// The seat (0-based) of the player who sent it.
    pub seat: u8,
    /// The seed.
    pub seed: Seed,
}

/// One entry of the closed list: a seat's commitment to its seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeedCommit {
    /// The seat (0-based).
    pub seat: u8,
    /// [`seed_commitment`] of the deck's commitment and the seed.
    pub commitment: Digest,
    /// Whether the seat is the house's own (a house bot): its seed must be revealed.
    pub house: bool,
}

/// A seed's commitment: SHA-256 of [`COMMIT_LABEL`], the deck's commitment (32 bytes)
/// and the seed (32 bytes). Bound to the deck, it cannot serve another deck.
pub fn seed_commitment(deck: &Digest, seed: &Seed) -> Digest {
    let mut h = Sha256::new();
    h.update(COMMIT_LABEL);
    h.update(deck.as_bytes());
    h.update(seed.as_bytes());
    Bytes(h.finalize().into())
}

/// The closed list's digest: SHA-256 of [`LIST_LABEL`], the deck's commitment, the
/// count of entries (one byte), then each entry by ascending seat as its seat (one
/// byte), its house flag (one byte, 1 for the house) and its commitment (32 bytes).
pub fn list_digest(deck: &Digest, list: &[SeedCommit]) -> Digest {
    let mut h = Sha256::new();
    h.update(LIST_LABEL);
    h.update(deck.as_bytes());
    h.update([list.len() as u8]);
    for e in list {
        h.update([e.seat, u8::from(e.house)]);
        h.update(e.commitment.as_bytes());
    }
    Bytes(h.finalize().into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seeds_commitment_binds_the_deck_and_the_list_binds_every_entry() {
        let deck = Bytes([1; 32]);
        let seed = Bytes([2; 32]);
        let c = seed_commitment(&deck, &seed);
        assert_ne!(c, seed_commitment(&Bytes([3; 32]), &seed), "another deck");
        assert_ne!(c, seed_commitment(&deck, &Bytes([4; 32])), "another seed");
        let entry = |seat, house| SeedCommit {
            seat,
            commitment: c,
            house,
        };
        let list = [entry(0, false), entry(2, true)];
        let d = list_digest(&deck, &list);
        assert_ne!(d, list_digest(&deck, &[entry(0, false), entry(2, false)]));
        assert_ne!(d, list_digest(&deck, &[entry(0, false), entry(3, true)]));
        assert_ne!(d, list_digest(&deck, &list[..1]));
        assert_ne!(d, list_digest(&Bytes([9; 32]), &list));
    }
}
