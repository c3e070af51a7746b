//! Exhaustive checks of the high-hand evaluator against the known counts of poker
//! hands: every five-card hand and every seven-card hand of the 52-card deck.
#![allow(clippy::needless_range_loop)]

use poker_rules::eval::{high, Category};
use poker_rules::{Card, DeckKind};
use std::collections::HashSet;

fn category_index(c: Category) -> usize {
    c as usize
}

#[test]
fn every_five_card_hand_gives_the_known_category_counts_and_7462_ranks() {
    let deck = DeckKind::Standard.cards();
    let mut counts = [0u64; 9];
    let mut ranks = HashSet::new();
    for a in 0..52 {
        for b in a + 1..52 {
            for c in b + 1..52 {
                for d in c + 1..52 {
                    for e in d + 1..52 {
                        let hand = [deck[a], deck[b], deck[c], deck[d], deck[e]];
                        let rank = high::evaluate(&hand);
                        counts[category_index(high::category(rank))] += 1;
                        ranks.insert(rank);
                    }
                }
            }
        }
    }
    assert_eq!(
        counts,
        [1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 40]
    );
    assert_eq!(counts.iter().sum::<u64>(), 2_598_960);
    assert_eq!(ranks.len(), 7462);
    assert_eq!(high::distinct_ranks(), 7462);
}

#[test]
fn every_seven_card_hand_gives_the_known_category_counts() {
    let deck: Vec<Card> = DeckKind::Standard.cards();
    let mut counts = [0u64; 9];
    let mut hand = [deck[0]; 7];
    for a in 0..52 {
        hand[0] = deck[a];
        for b in a + 1..52 {
            hand[1] = deck[b];
            for c in b + 1..52 {
                hand[2] = deck[c];
                for d in c + 1..52 {
                    hand[3] = deck[d];
                    for e in d + 1..52 {
                        hand[4] = deck[e];
                        for f in e + 1..52 {
                            hand[5] = deck[f];
                            for g in f + 1..52 {
                                hand[6] = deck[g];
                                let rank = high::evaluate7(&hand);
                                counts[category_index(high::category(rank))] += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    assert_eq!(
        counts,
        [
            23_294_460, 58_627_800, 31_433_400, 6_461_620, 6_180_020, 4_047_644, 3_473_184,
            224_848, 41_584
        ]
    );
    assert_eq!(counts.iter().sum::<u64>(), 133_784_560);
}
