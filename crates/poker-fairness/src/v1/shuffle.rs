//! Version 1's public permutation (hands recorded before version 2): the key from the
//! commitment and the seeds, the deal's order of the committed positions, and a
//! reshuffle's order of the discards' positions, with version 1's labels.

use crate::bytes::{Bytes, Digest};
pub use crate::seeds::SeatSeed;
use crate::shuffle::permute_with;
use sha2::{Digest as _, Sha256};

/// The label hashed first into the shuffle key.
pub const KEY_LABEL: &[u8] = b"pokerd shuffle key v1";
/// The label hashed first into each block of the stream.
pub const STREAM_LABEL: &[u8] = b"pokerd shuffle stream v1";

/// The shuffle key: SHA-256 of [`KEY_LABEL`], the commitment, the count of seeds (one
/// byte), then each seed as its seat (one byte) and its 32 bytes, by ascending seat.
/// The caller sorts the seeds; [`crate::v1::proof::verify`] refuses an unsorted list.
pub fn shuffle_key(commitment: &Digest, seeds: &[SeatSeed]) -> Digest {
    let mut h = Sha256::new();
    h.update(KEY_LABEL);
    h.update(commitment.as_bytes());
    h.update([seeds.len() as u8]);
    for s in seeds {
        h.update([s.seat]);
        h.update(s.seed.as_bytes());
    }
    Bytes(h.finalize().into())
}

/// The order of the deal: `order[place]` is the committed position of the card dealt
/// `place`-th (burn cards included), the positions `0..size` permuted by round 0.
pub fn deal_order(key: &Digest, size: usize) -> Vec<u8> {
    let mut order: Vec<u8> = (0..size as u8).collect();
    permute_with(STREAM_LABEL, &mut order, key, 0);
    order
}

/// The order of the `round`-th reshuffle (from 1): the discards' committed positions,
/// sorted, permuted by that round. The first is dealt first.
pub fn reshuffle_order(key: &Digest, round: u8, positions: &[u8]) -> Vec<u8> {
    let mut order = positions.to_vec();
    order.sort_unstable();
    permute_with(STREAM_LABEL, &mut order, key, round);
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reshuffle_sorts_the_positions_before_permuting_so_their_order_given_does_not_matter() {
        let k = Bytes([3; 32]);
        let given = [40, 3, 17, 22, 9, 31, 5, 12, 48, 27];
        let mut sorted = given.to_vec();
        sorted.sort_unstable();
        let a = reshuffle_order(&k, 1, &given);
        assert_eq!(a, reshuffle_order(&k, 1, &sorted));
        assert_ne!(a, reshuffle_order(&k, 2, &sorted), "rounds differ");
        let mut back = a.clone();
        back.sort_unstable();
        assert_eq!(back, sorted);
        let order = deal_order(&k, 52);
        let mut all = order.clone();
        all.sort_unstable();
        assert_eq!(all, (0..52).collect::<Vec<u8>>());
    }
}
