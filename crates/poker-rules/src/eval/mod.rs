//! Hand evaluation for every game: high hands (standard and short deck), Omaha's two
//! plus three, ace-to-five low with or without the eight-or-better qualifier,
//! deuce-to-seven low, and badugi.
//!
//! Every evaluator returns a [`HandValue`] where a higher value is a better hand for that
//! half of the pot, so the showdown code compares hands the same way in every game.

pub mod high;
pub mod standing;

use crate::card::Card;
use serde::{Deserialize, Serialize};

pub use high::HighRank;
pub use standing::ahead;

/// The kind of a five-card high hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// No pair.
    HighCard,
    /// One pair.
    OnePair,
    /// Two pairs.
    TwoPair,
    /// Three of a kind.
    ThreeOfAKind,
    /// Five ranks in sequence.
    Straight,
    /// Five cards of one suit.
    Flush,
    /// Three of a kind and a pair.
    FullHouse,
    /// Four of a kind.
    FourOfAKind,
    /// A straight in one suit.
    StraightFlush,
}

/// A comparable hand strength for one half of a pot: higher is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct HandValue(pub u32);

/// Which five-card sequences count as straights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Straights {
    /// A-2-3-4-5 up to T-J-Q-K-A.
    Standard,
    /// Short deck: A-6-7-8-9 up to T-J-Q-K-A.
    Short,
    /// Deuce-to-seven: the ace is only high, so A-2-3-4-5 is no straight.
    AceHighOnly,
}

const CODE_HIGH: u32 = 0;
const CODE_PAIR: u32 = 1;
const CODE_TWO_PAIR: u32 = 2;
const CODE_TRIPS: u32 = 3;
const CODE_STRAIGHT: u32 = 4;
const CODE_FLUSH: u32 = 5;
const CODE_FULL_HOUSE: u32 = 6;
const CODE_SHORT_FLUSH: u32 = 7;
const CODE_QUADS: u32 = 8;
const CODE_STRAIGHT_FLUSH: u32 = 9;

pub(crate) fn raw_category(raw: u32) -> Category {
    match raw >> 20 {
        CODE_HIGH => Category::HighCard,
        CODE_PAIR => Category::OnePair,
        CODE_TWO_PAIR => Category::TwoPair,
        CODE_TRIPS => Category::ThreeOfAKind,
        CODE_STRAIGHT => Category::Straight,
        CODE_FLUSH | CODE_SHORT_FLUSH => Category::Flush,
        CODE_FULL_HOUSE => Category::FullHouse,
        CODE_QUADS => Category::FourOfAKind,
        _ => Category::StraightFlush,
    }
}

fn pack(code: u32, ranks: &[u8]) -> u32 {
    let mut raw = code << 20;
    for (i, &r) in ranks.iter().take(5).enumerate() {
        raw |= (r as u32) << (16 - 4 * i);
    }
    raw
}

fn straight_top(present: u16, straights: Straights) -> Option<u8> {
    for top in (4..=12u8).rev() {
        let run = 0x1f << (top - 4);
        if present & run == run {
            return Some(top);
        }
    }
    match straights {
        Straights::Standard if present & 0x100f == 0x100f => Some(3),
        Straights::Short if present & 0x10f0 == 0x10f0 => Some(7),
        _ => None,
    }
}

/// The raw value (category code << 20 | ranks) of the best five cards of a rank
/// multiset of five to seven cards; `flush` says the ranks are of one suit.
pub(crate) fn five_card_raw(counts: &[u8; 13], flush: bool, short_deck: bool) -> u32 {
    let straights = if short_deck {
        Straights::Short
    } else {
        Straights::Standard
    };
    raw_with(counts, flush, straights, short_deck)
}

fn raw_with(counts: &[u8; 13], flush: bool, straights: Straights, flush_over_full: bool) -> u32 {
    let present: u16 = (0..13)
        .filter(|&r| counts[r] > 0)
        .fold(0, |m, r| m | 1 << r);
    let top = straight_top(present, straights);
    let desc = |min: u8, skip: &[u8]| -> Vec<u8> {
        (0..13u8)
            .rev()
            .filter(|&r| counts[r as usize] >= min && !skip.contains(&r))
            .collect()
    };
    if flush {
        if let Some(t) = top {
            return pack(CODE_STRAIGHT_FLUSH, &[t]);
        }
        let code = if flush_over_full {
            CODE_SHORT_FLUSH
        } else {
            CODE_FLUSH
        };
        return pack(code, &desc(1, &[]));
    }
    if let Some(&q) = desc(4, &[]).first() {
        let k = desc(1, &[q]);
        return pack(CODE_QUADS, &[q, k[0]]);
    }
    let trips = desc(3, &[]);
    if let Some(&t) = trips.first() {
        if let Some(&p) = desc(2, &[t]).first() {
            return pack(CODE_FULL_HOUSE, &[t, p]);
        }
    }
    if let Some(t) = top {
        return pack(CODE_STRAIGHT, &[t]);
    }
    if let Some(&t) = trips.first() {
        let k = desc(1, &[t]);
        return pack(CODE_TRIPS, &[t, k[0], k[1]]);
    }
    let pairs = desc(2, &[]);
    if pairs.len() >= 2 {
        let k = desc(1, &[pairs[0], pairs[1]]);
        return pack(CODE_TWO_PAIR, &[pairs[0], pairs[1], k[0]]);
    }
    if let Some(&p) = pairs.first() {
        let k = desc(1, &[p]);
        return pack(CODE_PAIR, &[p, k[0], k[1], k[2]]);
    }
    pack(CODE_HIGH, &desc(1, &[]))
}

fn counts_of(cards: &[Card], rank_of: impl Fn(Card) -> u8) -> [u8; 13] {
    let mut counts = [0u8; 13];
    for &c in cards {
        counts[rank_of(c) as usize] += 1;
    }
    counts
}

/// Calls `f` with every `k`-card combination of `cards` (k <= 5).
fn for_each_combination(cards: &[Card], k: usize, f: &mut impl FnMut(&[Card])) {
    fn rec(
        cards: &[Card],
        k: usize,
        start: usize,
        buf: &mut [Card; 5],
        n: usize,
        f: &mut impl FnMut(&[Card]),
    ) {
        if n == k {
            f(&buf[..k]);
            return;
        }
        for i in start..cards.len() {
            buf[n] = cards[i];
            rec(cards, k, i + 1, buf, n + 1, f);
        }
    }
    let mut buf = [Card::UNKNOWN; 5];
    rec(cards, k, 0, &mut buf, 0, f);
}

/// Ace-to-five "cost" of exactly five cards: lower is a better low. Straights and flushes
/// do not count; pairs do. The ace is the lowest card.
fn a5_cost(cards: &[Card]) -> u32 {
    let counts = counts_of(cards, |c| (c.rank().0 + 1) % 13);
    let mut by_count: Vec<(u8, u8)> = (0..13u8)
        .filter(|&r| counts[r as usize] > 0)
        .map(|r| (counts[r as usize], r))
        .collect();
    by_count.sort_unstable_by(|a, b| b.cmp(a));
    let code = match by_count.iter().map(|x| x.0).collect::<Vec<_>>().as_slice() {
        [1, 1, 1, 1, 1] => 0,
        [2, 1, 1, 1] => 1,
        [2, 2, 1] => 2,
        [3, 1, 1] => 3,
        [3, 2] => 4,
        _ => 5,
    };
    let ranks: Vec<u8> = by_count.iter().map(|x| x.1).collect();
    pack(code, &ranks)
}

/// The best ace-to-five low among five or more cards (razz, and the low half of
/// split games when `eight_or_better`); `None` when the qualifier is not met.
pub fn ace_to_five_low(cards: &[Card], eight_or_better: bool) -> Option<HandValue> {
    let mut best = u32::MAX;
    for_each_combination(cards, 5, &mut |five| best = best.min(a5_cost(five)));
    qualify_low(best, eight_or_better)
}

fn qualify_low(cost: u32, eight_or_better: bool) -> Option<HandValue> {
    if cost == u32::MAX {
        return None;
    }
    // No pair, and the highest card (first nibble, ace = 0) an eight (7) or lower.
    if eight_or_better && (cost >> 20 != 0 || (cost >> 16) & 0xf > 7) {
        return None;
    }
    Some(HandValue(u32::MAX - cost))
}

/// The deuce-to-seven low of five cards: the worst high hand wins; the ace is high only.
pub fn deuce_to_seven_low(cards: &[Card]) -> HandValue {
    let mut best = u32::MAX;
    for_each_combination(cards, 5, &mut |five| {
        let counts = counts_of(five, |c| c.rank().0);
        let flush = five.iter().all(|c| c.suit() == five[0].suit());
        best = best.min(raw_with(&counts, flush, Straights::AceHighOnly, false));
    });
    HandValue(u32::MAX - best)
}

/// The badugi value of four cards: more cards of distinct ranks and suits is better,
/// then the lower highest card (ace low).
pub fn badugi(cards: &[Card]) -> HandValue {
    let mut best = u32::MAX;
    let n = cards.len();
    for subset in 1u32..(1 << n) {
        let chosen: Vec<Card> = (0..n)
            .filter(|i| subset >> i & 1 == 1)
            .map(|i| cards[i])
            .collect();
        let mut ranks: Vec<u8> = chosen.iter().map(|c| (c.rank().0 + 1) % 13).collect();
        let mut suits: Vec<u8> = chosen.iter().map(|c| c.suit().0).collect();
        ranks.sort_unstable_by(|a, b| b.cmp(a));
        suits.sort_unstable();
        let distinct =
            ranks.windows(2).all(|w| w[0] != w[1]) && suits.windows(2).all(|w| w[0] != w[1]);
        if distinct {
            best = best.min(pack(4 - chosen.len() as u32, &ranks));
        }
    }
    HandValue(u32::MAX - best)
}

/// Omaha high: the best hand of exactly two hole cards and three board cards.
pub fn omaha_high(hole: &[Card], board: &[Card]) -> HandValue {
    let mut best = 0u16;
    for_each_combination(hole, 2, &mut |two| {
        for_each_combination(board, 3, &mut |three| {
            let five = [two[0], two[1], three[0], three[1], three[2]];
            best = best.max(high::evaluate(&five).0);
        })
    });
    HandValue(best as u32)
}

/// Omaha eight-or-better low: exactly two hole cards and three board cards.
pub fn omaha_low(hole: &[Card], board: &[Card]) -> Option<HandValue> {
    let mut best = u32::MAX;
    for_each_combination(hole, 2, &mut |two| {
        for_each_combination(board, 3, &mut |three| {
            let five = [two[0], two[1], three[0], three[1], three[2]];
            best = best.min(a5_cost(&five));
        })
    });
    qualify_low(best, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(s: &str) -> Vec<Card> {
        Card::parse_many(s).unwrap()
    }

    #[test]
    fn ace_to_five_prefers_the_wheel_and_ignores_straights_and_flushes() {
        let wheel = ace_to_five_low(&cards("Ac2c3c4c5c"), true).unwrap();
        let six = ace_to_five_low(&cards("Ac2d3h4s6c"), true).unwrap();
        assert!(wheel > six);
        assert!(ace_to_five_low(&cards("Ac2d3h4s9cKd9h"), true).is_none());
        let razz_pair = ace_to_five_low(&cards("AcAd3h4s5c"), false).unwrap();
        let king_low = ace_to_five_low(&cards("Kc2d3h4s5c"), false).unwrap();
        assert!(king_low > razz_pair);
        assert!(ace_to_five_low(&cards("8c7d6h5s4c"), true).is_some());
        assert!(ace_to_five_low(&cards("8c8d6h5s4c"), true).is_none());
    }

    #[test]
    fn deuce_to_seven_counts_straights_flushes_and_a_high_ace() {
        let best = deuce_to_seven_low(&cards("7c5d4h3s2c"));
        let straight = deuce_to_seven_low(&cards("6c5d4h3s2c"));
        let ace_high = deuce_to_seven_low(&cards("Ac5d4h3s2c"));
        let eight = deuce_to_seven_low(&cards("8c5d4h3s2c"));
        let flush = deuce_to_seven_low(&cards("7c5c4c3c2c"));
        assert!(best > eight && eight > ace_high && best > straight && best > flush);
        assert!(ace_high > deuce_to_seven_low(&cards("2c2d4h5s7c")));
    }

    #[test]
    fn badugi_prefers_four_cards_then_the_lowest() {
        let four = badugi(&cards("As2d3h4c"));
        let four_high = badugi(&cards("Ks2d3h4c"));
        let three = badugi(&cards("As2s3h4c"));
        assert!(four > four_high && four_high > three);
        assert_eq!(badugi(&cards("As2d3h4c")), badugi(&cards("Ac2h3s4d")));
    }

    #[test]
    fn omaha_uses_exactly_two_hole_cards() {
        // Four spades on board and one spade in hand is no flush in Omaha, and three
        // aces in hand are only a pair.
        let board = cards("2s5s9sKsQd");
        let one_spade = omaha_high(&cards("AsAcAdTh"), &board);
        assert_eq!(
            high::category(HighRank(one_spade.0 as u16)),
            Category::OnePair
        );
        assert!(omaha_low(&cards("AsKcQdJh"), &cards("2c3d4h9s9c")).is_none());
        assert!(omaha_low(&cards("As2cQdJh"), &cards("3c4d8h9s9c")).is_some());
    }
}
