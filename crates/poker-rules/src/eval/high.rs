//! High-hand evaluation: the best five cards of five to seven, for the 52-card deck and
//! for the short deck (where a flush beats a full house and A-6-7-8-9 is the lowest
//! straight).
//!
//! The result is a [`HighRank`], 1 (7-5-4-3-2 offsuit) to 7462 (royal flush) for the
//! standard deck: equal hands get equal ranks and better hands higher ones. Evaluation
//! is two table look-ups: each card adds `5^rank` to a key (unique per rank multiset,
//! as no rank appears more than four times) and one to its suit's counter; a suit
//! counter of five or more means a flush, looked up by the suit's 13-bit rank mask;
//! otherwise the rank key goes through a perfect hash (one displacement per bucket)
//! built once per process.

use super::{five_card_raw, raw_category, Category};
use crate::card::Card;
use std::sync::OnceLock;

/// The strength of a high hand: higher is better; 0 is never a real hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HighRank(pub u16);

const RANK_KEYS: [u32; 13] = {
    let mut keys = [0u32; 13];
    let mut i = 0;
    let mut k = 1u32;
    while i < 13 {
        keys[i] = k;
        k *= 5;
        i += 1;
    }
    keys
};

/// Per card: its rank key in the low 32 bits and one in its suit's counter nibble.
const CARD_KEYS: [u64; 52] = {
    let mut keys = [0u64; 52];
    let mut i = 0;
    while i < 52 {
        keys[i] = RANK_KEYS[i / 4] as u64 | (1u64 << (32 + 4 * (i % 4)));
        i += 1;
    }
    keys
};

/// Suit counters start at 3, so bit 3 of a nibble is set once a suit has five cards.
const SUIT_OFFSET: u64 = 0x3333 << 32;
const FLUSH_BITS: u64 = 0x8888 << 32;

const SLOT_BITS: u32 = 17;
const BUCKET_BITS: u32 = 15;

#[inline(always)]
fn hash(key: u32, multiplier: u64) -> (usize, u32) {
    let x = (key as u64).wrapping_mul(multiplier);
    ((x >> (64 - BUCKET_BITS)) as usize, (x >> 20) as u32)
}

/// The look-up tables of one deck.
struct Tables {
    multiplier: u64,
    flush: Vec<u16>,
    displacement: Vec<u32>,
    slots: Vec<u16>,
    /// Raw values of every distinct hand, sorted, so a rank maps back to a category.
    raw_by_rank: Vec<u32>,
}

impl Tables {
    fn build(short_deck: bool) -> Tables {
        let lowest = if short_deck { 4 } else { 0 };
        // Every rank multiset of 5..=7 cards (counts <= 4) from the deck's ranks.
        let mut multisets: Vec<([u8; 13], u32)> = Vec::new();
        let mut counts = [0u8; 13];
        fn rec(
            rank: usize,
            lowest: usize,
            total: u8,
            counts: &mut [u8; 13],
            out: &mut Vec<([u8; 13], u32)>,
        ) {
            if rank == 13 {
                if total >= 5 {
                    let key = (0..13).map(|r| counts[r] as u32 * RANK_KEYS[r]).sum();
                    out.push((*counts, key));
                }
                return;
            }
            if rank < lowest {
                return rec(rank + 1, lowest, total, counts, out);
            }
            for c in 0..=4u8.min(7 - total) {
                counts[rank] = c;
                rec(rank + 1, lowest, total + c, counts, out);
            }
            counts[rank] = 0;
        }
        rec(0, lowest, 0, &mut counts, &mut multisets);

        let raw_nonflush: Vec<u32> = multisets
            .iter()
            .map(|(c, _)| five_card_raw(c, false, short_deck))
            .collect();
        let mut raw_flush = vec![0u32; 8192];
        for (mask, raw) in raw_flush.iter_mut().enumerate() {
            if mask.count_ones() >= 5 && mask.trailing_zeros() >= lowest as u32 {
                let mut c = [0u8; 13];
                for (r, slot) in c.iter_mut().enumerate() {
                    *slot = ((mask >> r) & 1) as u8;
                }
                *raw = five_card_raw(&c, true, short_deck);
            }
        }
        // Distinct values of five-card hands, in order, define the ranks.
        let mut raw_by_rank: Vec<u32> = raw_nonflush
            .iter()
            .zip(&multisets)
            .filter(|(_, (c, _))| c.iter().map(|&x| x as u32).sum::<u32>() == 5)
            .map(|(&r, _)| r)
            .chain(
                raw_flush
                    .iter()
                    .enumerate()
                    .filter(|(m, r)| m.count_ones() == 5 && **r != 0)
                    .map(|(_, &r)| r),
            )
            .collect();
        raw_by_rank.sort_unstable();
        raw_by_rank.dedup();
        raw_by_rank.insert(0, 0);
        let rank_of = |raw: u32| -> u16 {
            raw_by_rank
                .binary_search(&raw)
                .expect("every best hand is a five-card hand") as u16
        };
        let flush: Vec<u16> = raw_flush
            .iter()
            .map(|&r| if r == 0 { 0 } else { rank_of(r) })
            .collect();

        // Perfect hash: place the biggest buckets first, each with the smallest
        // displacement that lands all its keys in free slots; a multiplier under which
        // two keys of one bucket share a slot is replaced by the next.
        let entries: Vec<(u32, u16)> = multisets
            .iter()
            .zip(&raw_nonflush)
            .map(|((_, key), &raw)| (*key, rank_of(raw)))
            .collect();
        let (multiplier, displacement, slots) = [
            0x9E37_79B9_7F4A_7C15u64,
            0xC2B2_AE3D_27D4_EB4F,
            0x1656_67B1_9E37_79F9,
            0xD6E8_FEB8_6659_FD93,
        ]
        .into_iter()
        .find_map(|m| place(&entries, m).map(|(d, s)| (m, d, s)))
        .expect("one of the multipliers gives a perfect hash");
        Tables {
            multiplier,
            flush,
            displacement,
            slots,
            raw_by_rank,
        }
    }

    #[inline(always)]
    fn lookup(&self, key: u64, cards: &[Card]) -> HighRank {
        let flush = key & FLUSH_BITS;
        if flush != 0 {
            let suit = ((flush.trailing_zeros() - 35) / 4) as u8;
            let mut mask = 0usize;
            for c in cards {
                if c.suit().0 == suit {
                    mask |= 1 << c.rank().0;
                }
            }
            return HighRank(self.flush[mask]);
        }
        let (b, h) = hash(key as u32, self.multiplier);
        let s = h.wrapping_add(self.displacement[b]) & ((1 << SLOT_BITS) - 1);
        HighRank(self.slots[s as usize])
    }
}

/// Displacements and slots of a perfect hash of `entries` (key, rank), if `multiplier`
/// gives one.
fn place(entries: &[(u32, u16)], multiplier: u64) -> Option<(Vec<u32>, Vec<u16>)> {
    let slot_mask = (1u32 << SLOT_BITS) - 1;
    let mut buckets: Vec<Vec<(u32, u16)>> = vec![Vec::new(); 1 << BUCKET_BITS];
    for &(key, rank) in entries {
        let (b, h) = hash(key, multiplier);
        buckets[b].push((h, rank));
    }
    let mut order: Vec<usize> = (0..buckets.len()).collect();
    order.sort_by_key(|&b| std::cmp::Reverse(buckets[b].len()));
    let mut slots = vec![0u16; 1 << SLOT_BITS];
    let mut used = vec![false; 1 << SLOT_BITS];
    let mut displacement = vec![0u32; 1 << BUCKET_BITS];
    let mut positions = Vec::new();
    for b in order {
        if buckets[b].is_empty() {
            break;
        }
        let d = (0..=slot_mask).find(|&d| {
            positions.clear();
            buckets[b].iter().all(|&(h, _)| {
                let s = h.wrapping_add(d) & slot_mask;
                let fresh = !used[s as usize] && !positions.contains(&s);
                positions.push(s);
                fresh
            })
        })?;
        displacement[b] = d;
        for &(h, rank) in &buckets[b] {
            let s = (h.wrapping_add(d) & slot_mask) as usize;
            used[s] = true;
            slots[s] = rank;
        }
    }
    Some((displacement, slots))
}

fn standard() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| Tables::build(false))
}

fn short() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| Tables::build(true))
}

#[inline(always)]
fn key_of(cards: &[Card]) -> u64 {
    cards
        .iter()
        .fold(SUIT_OFFSET, |k, c| k + CARD_KEYS[c.index()])
}

/// Builds the tables now, so the first evaluation in a hot loop does not pay for it.
pub fn warm_up() {
    standard();
}

/// The best high hand of 5 to 7 known, distinct cards of the 52-card deck.
///
/// # Panics
/// Panics in debug builds when given fewer than 5 or more than 7 cards or an unknown card.
#[inline]
pub fn evaluate(cards: &[Card]) -> HighRank {
    debug_assert!((5..=7).contains(&cards.len()));
    debug_assert!(cards.iter().all(|c| c.is_known()));
    standard().lookup(key_of(cards), cards)
}

/// The best high hand of exactly seven cards: the hold'em showdown hot path.
#[inline]
pub fn evaluate7(cards: &[Card; 7]) -> HighRank {
    let t = standard();
    let key = SUIT_OFFSET
        + CARD_KEYS[cards[0].index()]
        + CARD_KEYS[cards[1].index()]
        + CARD_KEYS[cards[2].index()]
        + CARD_KEYS[cards[3].index()]
        + CARD_KEYS[cards[4].index()]
        + CARD_KEYS[cards[5].index()]
        + CARD_KEYS[cards[6].index()];
    t.lookup(key, cards)
}

/// The best short-deck hand of 5 to 7 cards: flush beats full house, A-6-7-8-9 is a straight.
pub fn evaluate_short_deck(cards: &[Card]) -> HighRank {
    debug_assert!((5..=7).contains(&cards.len()));
    short().lookup(key_of(cards), cards)
}

/// The category (pair, flush, ...) of a standard-deck rank.
pub fn category(rank: HighRank) -> Category {
    raw_category(standard().raw_by_rank[rank.0 as usize])
}

/// The category of a short-deck rank.
pub fn short_deck_category(rank: HighRank) -> Category {
    raw_category(short().raw_by_rank[rank.0 as usize])
}

/// How many distinct hand values the standard deck has (7,462).
pub fn distinct_ranks() -> usize {
    standard().raw_by_rank.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(s: &str) -> Vec<Card> {
        Card::parse_many(s).unwrap()
    }

    #[test]
    fn known_hands_compare_as_poker_players_expect() {
        let order = [
            "7c5d4h3s2c",
            "AcKdQhJs9c",
            "2c2d3h4s5c",
            "AcAdKhKs2c",
            "5c5d5hAsKc",
            "Ac2d3h4s5c",
            "6c2d3h4s5c",
            "AcKdQhJsTc",
            "2c3c4c5c7c",
            "2c2d2h3s3c",
            "AcAdAhAsKc",
            "Ac2c3c4c5c",
            "AcKcQcJcTc",
        ];
        let ranks: Vec<HighRank> = order.iter().map(|h| evaluate(&cards(h))).collect();
        for w in ranks.windows(2) {
            assert!(w[0] < w[1], "{ranks:?}");
        }
        assert_eq!(ranks[0], HighRank(1));
        assert_eq!(ranks[12].0 as usize, distinct_ranks());
        assert_eq!(category(ranks[11]), Category::StraightFlush);
        assert_eq!(category(ranks[3]), Category::TwoPair);
    }

    #[test]
    fn seven_cards_take_the_best_five() {
        let seven: [Card; 7] = cards("AsKs2d2c7h8h9h").try_into().unwrap();
        assert_eq!(evaluate7(&seven), evaluate(&cards("2d2cAsKs9h")));
        let flush: [Card; 7] = cards("AhKs2h3h7h8h9h").try_into().unwrap();
        assert_eq!(evaluate7(&flush), evaluate(&cards("Ah9h8h7h3h")));
    }

    #[test]
    fn short_deck_flush_beats_full_house_and_a6789_is_a_straight() {
        let flush = evaluate_short_deck(&cards("Ah9hJh7hKh"));
        let full = evaluate_short_deck(&cards("AcAdAs6s6h"));
        assert!(flush > full);
        assert_eq!(short_deck_category(full), Category::FullHouse);
        let wheel = evaluate_short_deck(&cards("Ac6d7h8s9c"));
        assert_eq!(short_deck_category(wheel), Category::Straight);
        assert!(wheel < evaluate_short_deck(&cards("6c7d8h9sTc")));
        assert!(wheel > evaluate_short_deck(&cards("AcAdAh8s9c")));
    }
}
