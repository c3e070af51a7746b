//! Who is ahead in the middle of a hand: two players' hands compared with the cards dealt
//! so far, by the same evaluators as the showdown. The collusion report of the operators'
//! console asks it when one player folds to another's bet ("folded when ahead").
//!
//! The rule, game by game (the cards are what each player holds when the question is
//! asked: in draw games after their last draw; in stud, down and up cards alike):
//!
//! - **Flop games** (hold'em, short deck, Omaha): from the flop on, the best hand of each
//!   player's hole cards and the board so far, as the showdown judges it (Omaha: exactly
//!   two hole cards and three from the board). Before the flop (no board), the hole cards
//!   ranked as a stud hand showing: quads, trips, two pair, pair, then high cards, no
//!   straights or flushes (Omaha: the best two of the four, so a pair or two high cards).
//! - **Stud** (stud, stud high/low, razz): with five cards or more (fifth street on), the
//!   best five of them as the showdown judges it; with three or four, ranked as a hand
//!   showing, as above (razz: ace low, and the lower is the better).
//! - **Draw** (deuce-to-seven, badugi): the cards held, as the showdown judges them.
//! - **High/low split games**: ahead means taking more than half of a pot between the two
//!   (scooping, or winning one half and tying the other), the low half going to the high
//!   hand when neither qualifies. Before five cards only the high half is judged.

use super::{ace_to_five_low, badugi, deuce_to_seven_low, high, omaha_high, omaha_low, HandValue};
use crate::card::Card;
use crate::game::{Game, Showdown};
use std::cmp::Ordering;

/// How `a`'s hand stands against `b`'s with the cards dealt so far in `game`: `Greater`
/// when `a` is ahead, `Less` when behind, `Equal` when they would split. `a` and `b` are
/// each player's own cards (hole and up cards), `board` the community cards dealt so far
/// (empty in stud and draw games). `None` when a hand cannot be judged: an unknown card, or
/// too few cards (fewer than two in a flop game, three in stud, a draw hand not full).
pub fn ahead(game: Game, a: &[Card], b: &[Card], board: &[Card]) -> Option<Ordering> {
    let known = |cards: &[Card]| cards.iter().all(|c| c.is_known());
    if !known(a) || !known(b) || !known(board) {
        return None;
    }
    let showdown = game.showdown();
    match showdown {
        Showdown::High | Showdown::ShortDeckHigh => {
            if a.len() < 2 || b.len() < 2 {
                return None;
            }
            if board.len() < 3 {
                return Some(partial(a, board, false).cmp(&partial(b, board, false)));
            }
            let value = |hole: &[Card]| {
                let all: Vec<Card> = hole.iter().chain(board).copied().collect();
                if showdown == Showdown::High {
                    high::evaluate(&all).0
                } else {
                    high::evaluate_short_deck(&all).0
                }
            };
            Some(value(a).cmp(&value(b)))
        }
        Showdown::OmahaHigh | Showdown::OmahaHiLo => {
            if a.len() < 2 || b.len() < 2 {
                return None;
            }
            if board.len() < 3 {
                return Some(best_two(a).cmp(&best_two(b)));
            }
            let high = omaha_high(a, board).cmp(&omaha_high(b, board));
            if showdown == Showdown::OmahaHigh {
                return Some(high);
            }
            Some(split(high, omaha_low(a, board), omaha_low(b, board)))
        }
        Showdown::StudHigh | Showdown::StudHiLo | Showdown::Razz => {
            if a.len() < 3 || b.len() < 3 {
                return None;
            }
            let low = showdown == Showdown::Razz;
            if a.len() < 5 || b.len() < 5 {
                // Lower is better in razz.
                let order = partial(a, &[], low).cmp(&partial(b, &[], low));
                return Some(if low { order.reverse() } else { order });
            }
            match showdown {
                Showdown::Razz => Some(ace_to_five_low(a, false).cmp(&ace_to_five_low(b, false))),
                Showdown::StudHigh => Some(high::evaluate(a).cmp(&high::evaluate(b))),
                _ => {
                    let high = high::evaluate(a).cmp(&high::evaluate(b));
                    Some(split(
                        high,
                        ace_to_five_low(a, true),
                        ace_to_five_low(b, true),
                    ))
                }
            }
        }
        Showdown::DeuceToSeven => {
            if a.len() != 5 || b.len() != 5 {
                return None;
            }
            Some(deuce_to_seven_low(a).cmp(&deuce_to_seven_low(b)))
        }
        Showdown::Badugi => {
            if a.len() != 4 || b.len() != 4 {
                return None;
            }
            Some(badugi(a).cmp(&badugi(b)))
        }
    }
}

/// A hand of fewer than five cards ranked as a stud hand showing (with `ace_low`, razz's
/// order: compare the results the other way round, lower is better).
fn partial(hole: &[Card], board: &[Card], ace_low: bool) -> (u8, Vec<u8>) {
    let all: Vec<Card> = hole.iter().chain(board).copied().collect();
    crate::hand::showing_value(&all, ace_low)
}

/// Omaha before the flop: the best two of the hole cards, ranked as a hand showing.
fn best_two(hole: &[Card]) -> (u8, Vec<u8>) {
    let mut best = (0, Vec::new());
    for i in 0..hole.len() {
        for j in i + 1..hole.len() {
            best = best.max(partial(&[hole[i], hole[j]], &[], false));
        }
    }
    best
}

/// A split pot between two: ahead when taking more than half of it. Each half counts two
/// points to its winner, one to each on a tie; with no qualifying low the high hand takes
/// both halves.
fn split(high: Ordering, a_low: Option<HandValue>, b_low: Option<HandValue>) -> Ordering {
    let points = |o: Ordering| match o {
        Ordering::Greater => 2,
        Ordering::Equal => 1,
        Ordering::Less => 0,
    };
    let high = points(high);
    let total = match (a_low, b_low) {
        (None, None) => 2 * high,
        // `None` is below every `Some`: a qualifying low beats none.
        (a, b) => high + points(a.cmp(&b)),
    };
    total.cmp(&2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(s: &str) -> Vec<Card> {
        Card::parse_many(s).unwrap()
    }

    fn judge(game: Game, a: &str, b: &str, board: &str) -> Option<Ordering> {
        ahead(game, &cards(a), &cards(b), &cards(board))
    }

    #[test]
    fn holdem_compares_the_best_hands_with_the_board_so_far_and_pairs_before_the_flop() {
        use Ordering::*;
        // Before the flop: a pair beats two high cards, the higher pair the lower.
        assert_eq!(judge(Game::Holdem, "2c2d", "AhKh", ""), Some(Greater));
        assert_eq!(judge(Game::Holdem, "AhKh", "AcQd", ""), Some(Greater));
        assert_eq!(judge(Game::Holdem, "AhKh", "AcKd", ""), Some(Equal));
        // On the flop, the straight draw is behind the pair it would beat later.
        assert_eq!(judge(Game::Holdem, "9c8c", "AhAd", "7s6d2h"), Some(Less));
        // On the turn it has come.
        assert_eq!(
            judge(Game::Holdem, "9c8c", "AhAd", "7s6d2hTc"),
            Some(Greater)
        );
        // The board plays for both: a split.
        assert_eq!(
            judge(Game::Holdem, "2c3d", "2h3s", "AsKsQsJsTs"),
            Some(Equal)
        );
        assert_eq!(judge(Game::Holdem, "2c", "AhAd", ""), None);
        assert_eq!(judge(Game::Holdem, "??Ac", "AhAd", ""), None);
    }

    #[test]
    fn omaha_uses_two_hole_cards_even_before_the_flop() {
        use Ordering::*;
        // Three aces are one pair of aces before the flop, and after it.
        assert_eq!(
            judge(Game::Omaha, "AsAcAdKh", "KsKc2d3h", ""),
            Some(Greater)
        );
        // On the flop: one ace in hand and two on the board are trips, beaten by the
        // full house of two kings in hand.
        assert_eq!(
            judge(Game::Omaha, "As2c3d4h", "KhKd5c6c", "AdAhKs"),
            Some(Less)
        );
        // Hi/lo: the nut low with a worse high ties the pot at best.
        assert_eq!(
            judge(Game::OmahaHiLo, "As2c9d9h", "KsKcQdJh", "3h4d8cKd"),
            Some(Equal)
        );
        // Neither has a low: the high hand takes all.
        assert_eq!(
            judge(Game::OmahaHiLo, "KsKcQdJh", "QsQcJd9h", "Kd7h2c"),
            Some(Greater)
        );
        // Better high and the only low: a scoop.
        assert_eq!(
            judge(Game::OmahaHiLo, "As2c3d9h", "KsQcJdTh", "4h5d8c9s"),
            Some(Greater)
        );
    }

    #[test]
    fn stud_ranks_three_or_four_cards_as_showing_and_five_or_more_as_a_hand() {
        use Ordering::*;
        assert_eq!(judge(Game::Stud, "2c2d9h", "AcKdQh", ""), Some(Greater));
        assert_eq!(judge(Game::Stud, "2c3d4h5s", "AcKdQhJs", ""), Some(Less));
        // Fifth street: the straight counts now.
        assert_eq!(
            judge(Game::Stud, "2c3d4h5s6c", "AcAdQhJs9c", ""),
            Some(Greater)
        );
        // Razz: lower is better, the ace is low, pairs are bad.
        assert_eq!(judge(Game::Razz, "Ac2d3h", "Kc2h3s", ""), Some(Greater));
        assert_eq!(judge(Game::Razz, "AcAd3h", "Kc2h3s", ""), Some(Less));
        assert_eq!(
            judge(Game::Razz, "Ac2d3h4s6c", "Ac2h3s4d5c", ""),
            Some(Less)
        );
        // Stud hi/lo: a low and the better high scoop.
        assert_eq!(
            judge(Game::StudHiLo, "Ac2d3h4s5c", "KcKdQhJs9c", ""),
            Some(Greater)
        );
        assert_eq!(judge(Game::Stud, "2c2d", "AcKdQh", ""), None);
    }

    #[test]
    fn draw_games_compare_the_cards_held() {
        use Ordering::*;
        assert_eq!(
            judge(Game::DeuceToSevenTripleDraw, "7c5d4h3s2c", "8c5d4h3s2d", ""),
            Some(Greater)
        );
        assert_eq!(
            judge(Game::Badugi, "As2d3h4c", "As2s3h4c", ""),
            Some(Greater)
        );
        assert_eq!(
            judge(Game::DeuceToSevenSingleDraw, "7c5d4h3s", "8c5d4h3s2d", ""),
            None
        );
    }
}
