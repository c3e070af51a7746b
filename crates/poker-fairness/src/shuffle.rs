//! The public permutation: a key from the commitment and every seed used, a stream of
//! SHA-256 blocks in counter mode, and Fisher-Yates with rejection sampling (no modulo
//! bias). Round 0 orders the deal; round `r` orders the `r`-th reshuffle of a draw game.

use crate::bytes::{Bytes, Digest, Seed};
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

/// The label hashed first into the shuffle key.
pub const KEY_LABEL: &[u8] = b"pokerd shuffle key v1";
/// The label hashed first into each block of the stream.
pub const STREAM_LABEL: &[u8] = b"pokerd shuffle stream v1";

/// One player's seed, by the seat it was sent from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatSeed {
    /// The seat (0-based) of the player who sent it.
    pub seat: u8,
    /// The seed.
    pub seed: Seed,
}

/// The shuffle key: SHA-256 of [`KEY_LABEL`], the commitment, the count of seeds (one
/// byte), then each seed as its seat (one byte) and its 32 bytes, by ascending seat.
/// The caller sorts the seeds; [`crate::proof::verify`] refuses an unsorted list.
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

/// The random stream of one round: block `i` is SHA-256 of [`STREAM_LABEL`], the key, the
/// round (one byte) and `i` (four bytes, big-endian), from `i = 0`; each block gives eight
/// 32-bit big-endian words, read in order.
pub struct Stream {
    key: Digest,
    round: u8,
    counter: u32,
    block: [u8; 32],
    used: usize,
}

impl Stream {
    /// The stream of `round` under `key`.
    pub fn new(key: &Digest, round: u8) -> Stream {
        Stream {
            key: *key,
            round,
            counter: 0,
            block: [0; 32],
            used: 32,
        }
    }

    /// The next word.
    pub fn next_u32(&mut self) -> u32 {
        if self.used == 32 {
            let mut h = Sha256::new();
            h.update(STREAM_LABEL);
            h.update(self.key.as_bytes());
            h.update([self.round]);
            h.update(self.counter.to_be_bytes());
            self.block = h.finalize().into();
            self.counter += 1;
            self.used = 0;
        }
        let w = &self.block[self.used..self.used + 4];
        self.used += 4;
        u32::from_be_bytes([w[0], w[1], w[2], w[3]])
    }

    /// A uniform number below `bound` (at least 1): words at or above the largest multiple
    /// of `bound` that fits in 2^32 are thrown away, so no value is favoured.
    pub fn below(&mut self, bound: u32) -> u32 {
        let limit = (1u64 << 32) - (1u64 << 32) % u64::from(bound);
        loop {
            let x = u64::from(self.next_u32());
            if x < limit {
                return (x % u64::from(bound)) as u32;
            }
        }
    }
}

/// Fisher-Yates over `items` with round `round`'s stream: for `i` from the last index down
/// to 1, swap `items[i]` with `items[j]`, `j` uniform in `0..=i`.
pub fn permute<T>(items: &mut [T], key: &Digest, round: u8) {
    let mut stream = Stream::new(key, round);
    for i in (1..items.len()).rev() {
        let j = stream.below(i as u32 + 1) as usize;
        items.swap(i, j);
    }
}

/// The order of the deal: `order[place]` is the committed position of the card dealt
/// `place`-th (burn cards included), the positions `0..size` permuted by round 0.
pub fn deal_order(key: &Digest, size: usize) -> Vec<u8> {
    let mut order: Vec<u8> = (0..size as u8).collect();
    permute(&mut order, key, 0);
    order
}

/// The order of the `round`-th reshuffle (from 1): the discards' committed positions,
/// sorted, permuted by that round. The first is dealt first.
pub fn reshuffle_order(key: &Digest, round: u8, positions: &[u8]) -> Vec<u8> {
    let mut order = positions.to_vec();
    order.sort_unstable();
    permute(&mut order, key, round);
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(b: u8) -> Digest {
        Bytes([b; 32])
    }

    #[test]
    fn the_deal_order_is_a_permutation_fixed_by_the_key() {
        let a = deal_order(&key(1), 52);
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..52).collect::<Vec<u8>>());
        assert_eq!(a, deal_order(&key(1), 52), "the same key, the same order");
        assert_ne!(a, deal_order(&key(2), 52), "another key, another order");
    }

    #[test]
    fn every_seed_changes_the_key_and_so_does_its_seat() {
        let c = key(9);
        let s = |seat, b| SeatSeed {
            seat,
            seed: Bytes([b; 32]),
        };
        let base = shuffle_key(&c, &[s(0, 1), s(3, 2)]);
        assert_ne!(base, shuffle_key(&c, &[s(0, 1)]));
        assert_ne!(base, shuffle_key(&c, &[s(0, 1), s(3, 3)]));
        assert_ne!(base, shuffle_key(&c, &[s(0, 1), s(4, 2)]));
        assert_ne!(base, shuffle_key(&key(8), &[s(0, 1), s(3, 2)]));
        assert_ne!(shuffle_key(&c, &[]), base);
    }

    #[test]
    fn rejection_sampling_throws_away_the_words_that_would_bias() {
        // With bound 3, 2^32 mod 3 = 1: only the word 0xffffffff is thrown away.
        let mut stream = Stream::new(&key(5), 0);
        let mut words = Stream::new(&key(5), 0);
        for _ in 0..1000 {
            let mut w = words.next_u32();
            while w == u32::MAX {
                w = words.next_u32();
            }
            assert_eq!(stream.below(3), w % 3);
        }
        // A bound of 2^31 + 1 throws away almost half of the words: still uniform and
        // always below the bound.
        let mut stream = Stream::new(&key(6), 0);
        for _ in 0..1000 {
            assert!(stream.below((1 << 31) + 1) <= 1 << 31);
        }
    }

    #[test]
    fn positions_are_spread_evenly_over_many_keys() {
        // 52,000 deals: each card lands first about 1,000 times (a loose bound; the
        // construction, not luck, is what the other tests pin down).
        let mut first = [0u32; 52];
        for k in 0..52_000u32 {
            let mut b = [0u8; 32];
            b[..4].copy_from_slice(&k.to_be_bytes());
            first[deal_order(&Bytes(b), 52)[0] as usize] += 1;
        }
        assert!(first.iter().all(|&c| (800..1200).contains(&c)), "{first:?}");
    }

    #[test]
    fn a_reshuffle_sorts_the_positions_before_permuting_so_their_order_given_does_not_matter() {
        let k = key(3);
        let given = [40, 3, 17, 22, 9, 31, 5, 12, 48, 27];
        let mut sorted = given.to_vec();
        sorted.sort_unstable();
        let a = reshuffle_order(&k, 1, &given);
        assert_eq!(a, reshuffle_order(&k, 1, &sorted));
        assert_ne!(a, reshuffle_order(&k, 2, &sorted), "rounds differ");
        let mut back = a.clone();
        back.sort_unstable();
        assert_eq!(back, sorted);
    }
}
