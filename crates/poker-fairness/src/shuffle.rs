//! The public permutation: a key from the commitment, the closed list of seed
//! commitments and every seed revealed, a stream of SHA-256 blocks in counter mode, and
//! Fisher-Yates with rejection sampling (no modulo bias). Round 0 orders the deal's
//! slots; round `r` orders the slots of the `r`-th reshuffle of a draw game.

use crate::bytes::{Bytes, Digest};
use crate::seeds::SeatSeed;
use sha2::{Digest as _, Sha256};

/// The label hashed first into the shuffle key.
pub const KEY_LABEL: &[u8] = b"pokerd shuffle key v2";
/// The label hashed first into each block of the stream.
pub const STREAM_LABEL: &[u8] = b"pokerd shuffle stream v2";

/// The shuffle key: SHA-256 of [`KEY_LABEL`], the deck's commitment, the digest of the
/// closed list of seed commitments ([`crate::seeds::list_digest`]), the count of seeds
/// used (one byte), then each seed as its seat (one byte) and its 32 bytes, by ascending
/// seat. The caller sorts the seeds; [`crate::proof::verify`] refuses an unsorted list.
pub fn shuffle_key(commitment: &Digest, list: &Digest, seeds: &[SeatSeed]) -> Digest {
    let mut h = Sha256::new();
    h.update(KEY_LABEL);
    h.update(commitment.as_bytes());
    h.update(list.as_bytes());
    h.update([seeds.len() as u8]);
    for s in seeds {
        h.update([s.seat]);
        h.update(s.seed.as_bytes());
    }
    Bytes(h.finalize().into())
}

/// The random stream of one round: block `i` is SHA-256 of the label, the key, the round
/// (one byte) and `i` (four bytes, big-endian), from `i = 0`; each block gives eight
/// 32-bit big-endian words, read in order.
pub struct Stream {
    label: &'static [u8],
    key: Digest,
    round: u8,
    counter: u32,
    block: [u8; 32],
    used: usize,
}

impl Stream {
    /// The stream of `round` under `key`, with [`STREAM_LABEL`].
    pub fn new(key: &Digest, round: u8) -> Stream {
        Stream::with_label(STREAM_LABEL, key, round)
    }

    /// The stream of `round` under `key` with another label (version 1's).
    pub fn with_label(label: &'static [u8], key: &Digest, round: u8) -> Stream {
        Stream {
            label,
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
            h.update(self.label);
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

/// Fisher-Yates over `items` with round `round`'s stream under `label`: for `i` from the
/// last index down to 1, swap `items[i]` with `items[j]`, `j` uniform in `0..=i`.
pub fn permute_with<T>(label: &'static [u8], items: &mut [T], key: &Digest, round: u8) {
    let mut stream = Stream::with_label(label, key, round);
    for i in (1..items.len()).rev() {
        let j = stream.below(i as u32 + 1) as usize;
        items.swap(i, j);
    }
}

/// [`permute_with`] [`STREAM_LABEL`].
pub fn permute<T>(items: &mut [T], key: &Digest, round: u8) {
    permute_with(STREAM_LABEL, items, key, round)
}

/// The order of a round: `order[slot]` is the index in the round's sorted list of tags of
/// the card at that slot, the indexes `0..size` permuted by the round's stream.
pub fn round_order(key: &Digest, round: u8, size: usize) -> Vec<u8> {
    let mut order: Vec<u8> = (0..size as u8).collect();
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
    fn a_rounds_order_is_a_permutation_fixed_by_the_key_and_the_round() {
        let a = round_order(&key(1), 0, 52);
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..52).collect::<Vec<u8>>());
        assert_eq!(
            a,
            round_order(&key(1), 0, 52),
            "the same key, the same order"
        );
        assert_ne!(a, round_order(&key(2), 0, 52), "another key, another order");
        assert_ne!(
            a,
            round_order(&key(1), 1, 52),
            "another round, another order"
        );
    }

    #[test]
    fn every_seed_changes_the_key_and_so_do_its_seat_and_the_list() {
        let c = key(9);
        let l = key(7);
        let s = |seat, b| SeatSeed {
            seat,
            seed: Bytes([b; 32]),
        };
        let base = shuffle_key(&c, &l, &[s(0, 1), s(3, 2)]);
        assert_ne!(base, shuffle_key(&c, &l, &[s(0, 1)]));
        assert_ne!(base, shuffle_key(&c, &l, &[s(0, 1), s(3, 3)]));
        assert_ne!(base, shuffle_key(&c, &l, &[s(0, 1), s(4, 2)]));
        assert_ne!(base, shuffle_key(&key(8), &l, &[s(0, 1), s(3, 2)]));
        assert_ne!(base, shuffle_key(&c, &key(6), &[s(0, 1), s(3, 2)]));
        assert_ne!(shuffle_key(&c, &l, &[]), base);
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
    fn slots_are_spread_evenly_over_many_keys() {
        // 52,000 deals: each index lands first about 1,000 times (a loose bound; the
        // construction, not luck, is what the other tests pin down).
        let mut first = [0u32; 52];
        for k in 0..52_000u32 {
            let mut b = [0u8; 32];
            b[..4].copy_from_slice(&k.to_be_bytes());
            first[round_order(&Bytes(b), 0, 52)[0] as usize] += 1;
        }
        assert!(first.iter().all(|&c| (800..1200).contains(&c)), "{first:?}");
    }
}
