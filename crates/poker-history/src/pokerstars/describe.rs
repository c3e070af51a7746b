//! What a shown hand is, in PokerStars' words: `two pair, Tens and Threes`, `a flush,
//! Ace high`, `Lo: 8,6,4,3,A`, and for split games `HI: …; LO: …`.
//!
//! The best five cards are found here by trying every allowed combination with the
//! engine's evaluators (any five of hole and board in hold'em and stud, exactly two hole
//! and three board cards in Omaha), then named from their ranks; fewer than five (a
//! hand shown by a winner without a showdown before the flop) are named by their pairs
//! or their top card.

use poker_rules::eval::{self, high, Category};
use poker_rules::{Card, Game};

const NAMES: [&str; 13] = [
    "Deuce", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Jack", "Queen",
    "King", "Ace",
];
const PLURALS: [&str; 13] = [
    "Deuces", "Threes", "Fours", "Fives", "Sixes", "Sevens", "Eights", "Nines", "Tens", "Jacks",
    "Queens", "Kings", "Aces",
];

fn name(rank: u8) -> &'static str {
    NAMES[rank as usize]
}

fn plural(rank: u8) -> &'static str {
    PLURALS[rank as usize]
}

/// A shown hand's description for its game, or `None` when the cards are not all known
/// or too few to make a hand.
pub fn describe(game: Game, hole: &[Card], board: &[Card]) -> Option<String> {
    if hole.iter().chain(board).any(|c| !c.is_known()) {
        return None;
    }
    let all: Vec<Card> = hole.iter().chain(board).copied().collect();
    Some(match game {
        // Fewer than five cards (a hand shown by a winner without a showdown before the
        // flop, or before stud's fifth street) are named by their pairs, or their top
        // card, as PokerStars names them (`a pair of Tens`, `high card Four`).
        Game::Holdem | Game::ShortDeckHoldem | Game::Stud if all.len() < 5 => {
            short_high_description(&all)?
        }
        Game::StudHiLo if all.len() < 5 => format!("HI: {}", short_high_description(&all)?),
        Game::Holdem | Game::Stud => high_description(&best_high(&fives(&all), false)?, false),
        Game::ShortDeckHoldem => high_description(&best_high(&fives(&all), true)?, true),
        Game::Omaha => high_description(&best_high(&omaha_fives(hole, board), false)?, false),
        Game::OmahaHiLo => split(
            &best_high(&omaha_fives(hole, board), false)?,
            best_low(&omaha_fives(hole, board), true),
        ),
        Game::StudHiLo => split(
            &best_high(&fives(&all), false)?,
            best_low(&fives(&all), true),
        ),
        // Fewer than five razz cards (a hand shown before the fifth street) read as
        // their ranks in the order shown, as PokerStars writes them.
        Game::Razz if all.len() < 5 => {
            let ranks: Vec<u8> = all.iter().map(|c| c.rank().0).collect();
            format!("Lo: {}", rank_list(&ranks))
        }
        Game::Razz => low_description(&best_low(&fives(&all), false)?),
        Game::DeuceToSevenSingleDraw | Game::DeuceToSevenTripleDraw => deuce_to_seven(&all)?,
        Game::Badugi => badugi(&all)?,
    })
}

/// The best high five of a shown hand in a game with a high hand (the high half of a
/// split game).
fn high_five(game: Game, hole: &[Card], board: &[Card]) -> Option<[Card; 5]> {
    if hole.iter().chain(board).any(|c| !c.is_known()) {
        return None;
    }
    let all: Vec<Card> = hole.iter().chain(board).copied().collect();
    match game {
        Game::Holdem | Game::Stud | Game::StudHiLo => best_high(&fives(&all), false),
        Game::ShortDeckHoldem => best_high(&fives(&all), true),
        Game::Omaha | Game::OmahaHiLo => best_high(&omaha_fives(hole, board), false),
        _ => None,
    }
}

/// A flush's five ranks, highest first, when the shown hand's best high five is a flush
/// (PokerStars names only its top card, `a flush, Queen high`). `None` otherwise.
pub(super) fn flush_ranks(game: Game, hole: &[Card], board: &[Card]) -> Option<Vec<u8>> {
    let five = high_five(game, hole, board)?;
    if high::category(high::evaluate(&five)) != Category::Flush {
        return None;
    }
    let mut ranks: Vec<u8> = five.iter().map(|c| c.rank().0).collect();
    ranks.sort_unstable_by(|a, b| b.cmp(a));
    Some(ranks)
}

/// The kickers of a shown high hand that pairs (a pair, two pair, trips, quads; the high
/// half of a split game's hand): the ranks of its best five beside the ones its
/// description names, highest first. `None` for other hands and games.
pub(super) fn kickers(game: Game, hole: &[Card], board: &[Card]) -> Option<Vec<u8>> {
    let five = high_five(game, hole, board)?;
    let paired = matches!(
        high::category(high::evaluate(&five)),
        Category::OnePair | Category::TwoPair | Category::ThreeOfAKind | Category::FourOfAKind
    );
    if !paired {
        return None;
    }
    let mut counts = [0u8; 13];
    for c in &five {
        counts[c.rank().0 as usize] += 1;
    }
    let mut k: Vec<u8> = five
        .iter()
        .map(|c| c.rank().0)
        .filter(|&r| counts[r as usize] == 1)
        .collect();
    k.sort_unstable_by(|a, b| b.cmp(a));
    Some(k)
}

/// How PokerStars tells a hand from one described alike shown before it: its kickers
/// down to the first that beats the other's (` - Ace+Queen+Jack kicker`), or ` - lower
/// kicker`; `None` when the kickers are the same.
pub(super) fn kicker_suffix(mine: &[u8], theirs: &[u8]) -> Option<String> {
    let k = mine.iter().zip(theirs).position(|(a, b)| a != b)?;
    if mine[k] > theirs[k] {
        let list: Vec<&str> = mine[..=k].iter().map(|&r| name(r)).collect();
        Some(format!(" - {} kicker", list.join("+")))
    } else {
        Some(" - lower kicker".to_string())
    }
}

/// Whether a split game's shown hand makes a low (eight or better): PokerStars says `No
/// low hand qualified` when nobody does.
pub(super) fn has_low(game: Game, hole: &[Card], board: &[Card]) -> bool {
    let all: Vec<Card> = hole.iter().chain(board).copied().collect();
    match game {
        Game::OmahaHiLo => best_low(&omaha_fives(hole, board), true).is_some(),
        Game::StudHiLo => best_low(&fives(&all), true).is_some(),
        _ => false,
    }
}

fn split(high: &[Card; 5], low: Option<[Card; 5]>) -> String {
    match low {
        Some(low) => format!(
            "HI: {}; LO: {}",
            high_description(high, false),
            low_list(&low)
        ),
        None => format!("HI: {}", high_description(high, false)),
    }
}

/// Every five cards of `cards` (all of them when there are five or fewer).
fn fives(cards: &[Card]) -> Vec<[Card; 5]> {
    let mut out = Vec::new();
    let n = cards.len();
    if n < 5 {
        return out;
    }
    for a in 0..n {
        for b in a + 1..n {
            for c in b + 1..n {
                for d in c + 1..n {
                    for e in d + 1..n {
                        out.push([cards[a], cards[b], cards[c], cards[d], cards[e]]);
                    }
                }
            }
        }
    }
    out
}

/// Every five of exactly two hole cards and three board cards.
fn omaha_fives(hole: &[Card], board: &[Card]) -> Vec<[Card; 5]> {
    let mut out = Vec::new();
    for a in 0..hole.len() {
        for b in a + 1..hole.len() {
            for x in 0..board.len() {
                for y in x + 1..board.len() {
                    for z in y + 1..board.len() {
                        out.push([hole[a], hole[b], board[x], board[y], board[z]]);
                    }
                }
            }
        }
    }
    out
}

fn best_high(candidates: &[[Card; 5]], short_deck: bool) -> Option<[Card; 5]> {
    let rank = |five: &[Card; 5]| {
        if short_deck {
            high::evaluate_short_deck(five)
        } else {
            high::evaluate(five)
        }
    };
    candidates.iter().max_by_key(|f| rank(f)).copied()
}

fn best_low(candidates: &[[Card; 5]], eight_or_better: bool) -> Option<[Card; 5]> {
    candidates
        .iter()
        .filter_map(|f| Some((eval::ace_to_five_low(f, eight_or_better)?, *f)))
        .max_by_key(|(v, _)| *v)
        .map(|(_, f)| f)
}

/// Ranks by how many times each appears, then by rank, highest first: `[(3, K), (2, 7)]`.
fn groups(five: &[Card]) -> Vec<(usize, u8)> {
    let mut counts = [0usize; 13];
    for c in five {
        counts[c.rank().0 as usize] += 1;
    }
    let mut g: Vec<(usize, u8)> = (0..13u8)
        .filter(|&r| counts[r as usize] > 0)
        .map(|r| (counts[r as usize], r))
        .collect();
    g.sort_unstable_by(|a, b| b.cmp(a));
    g
}

/// The low and high ends of a straight (the ace plays low in the wheel, and below the
/// six in short deck's A-6-7-8-9).
fn straight_ends(five: &[Card], short_deck: bool) -> (u8, u8) {
    let mut ranks: Vec<u8> = five.iter().map(|c| c.rank().0).collect();
    ranks.sort_unstable();
    let ace = 12;
    if ranks[4] == ace && ranks[3] == if short_deck { 7 } else { 3 } {
        (ace, ranks[3])
    } else {
        (ranks[0], ranks[4])
    }
}

fn high_description(five: &[Card; 5], short_deck: bool) -> String {
    let rank = if short_deck {
        high::short_deck_category(high::evaluate_short_deck(five))
    } else {
        high::category(high::evaluate(five))
    };
    let g = groups(five);
    match rank {
        Category::HighCard => format!("high card {}", name(g[0].1)),
        Category::OnePair => format!("a pair of {}", plural(g[0].1)),
        Category::TwoPair => format!("two pair, {} and {}", plural(g[0].1), plural(g[1].1)),
        Category::ThreeOfAKind => format!("three of a kind, {}", plural(g[0].1)),
        Category::Straight => {
            let (low, high) = straight_ends(five, short_deck);
            format!("a straight, {} to {}", name(low), name(high))
        }
        Category::Flush => {
            let top = five.iter().map(|c| c.rank().0).max().unwrap_or(0);
            format!("a flush, {} high", name(top))
        }
        Category::FullHouse => {
            format!(
                "a full house, {} full of {}",
                plural(g[0].1),
                plural(g[1].1)
            )
        }
        Category::FourOfAKind => format!("four of a kind, {}", plural(g[0].1)),
        Category::StraightFlush => {
            let (low, high) = straight_ends(five, short_deck);
            if low == 8 {
                "a Royal Flush".to_string()
            } else {
                format!("a straight flush, {} to {}", name(low), name(high))
            }
        }
    }
}

/// A high hand of fewer than five cards, named by how many of a rank it holds (four or
/// three of a kind, two pair, a pair), else by its top card; `None` without cards.
fn short_high_description(cards: &[Card]) -> Option<String> {
    let g = groups(cards);
    Some(match g.as_slice() {
        [] => return None,
        [(4, r), ..] => format!("four of a kind, {}", plural(*r)),
        [(3, r), ..] => format!("three of a kind, {}", plural(*r)),
        [(2, a), (2, b), ..] => format!("two pair, {} and {}", plural(*a), plural(*b)),
        [(2, r), ..] => format!("a pair of {}", plural(*r)),
        [(_, r), ..] => format!("high card {}", name(*r)),
    })
}

/// `Lo: 8,6,4,3,A`: highest first, the ace low.
fn low_description(five: &[Card; 5]) -> String {
    format!("Lo: {}", low_list(five))
}

/// `8,6,4,3,A`.
fn low_list(five: &[Card; 5]) -> String {
    let mut ranks: Vec<u8> = five.iter().map(|c| (c.rank().0 + 1) % 13).collect();
    ranks.sort_unstable_by(|a, b| b.cmp(a));
    ace_low_list(&ranks)
}

/// Ranks counted ace-low (0 = ace) as `8,6,4,3,A`.
fn ace_low_list(ranks: &[u8]) -> String {
    let high: Vec<u8> = ranks.iter().map(|&r| (r + 12) % 13).collect();
    rank_list(&high)
}

/// Deuce-to-seven: a hand that makes nothing reads as its cards, highest first
/// (`Lo: 9,7,5,3,2`); a pair, straight or flush counts against it and is named, still
/// as a low (`Lo: a pair of Eights`), as PokerStars writes it.
fn deuce_to_seven(cards: &[Card]) -> Option<String> {
    let five: [Card; 5] = cards.get(..5)?.try_into().ok()?;
    let category = high::category(high::evaluate(&five));
    let mut ranks: Vec<u8> = five.iter().map(|c| c.rank().0).collect();
    ranks.sort_unstable_by(|a, b| b.cmp(a));
    // The ace is high only: A-5-4-3-2 is no straight here.
    let wheel = ranks == [12, 3, 2, 1, 0];
    Some(match category {
        Category::HighCard => format!("Lo: {}", rank_list(&ranks)),
        Category::Straight if wheel => format!("Lo: {}", rank_list(&ranks)),
        Category::StraightFlush if wheel => format!("Lo: a flush, {} high", name(12)),
        _ => format!("Lo: {}", high_description(&five, false)),
    })
}

/// Ranks (0 = two, 12 = ace) as `K,9,7,5,2`.
fn rank_list(ranks: &[u8]) -> String {
    ranks
        .iter()
        .map(|&r| poker_rules::Rank(r).to_char().to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// Badugi: the cards of different ranks and suits that count, highest first, ace low
/// (`Badugi: 7,5,3,A`), or `3-card: 8,4,2` when no four make a badugi, in PokerStars'
/// words.
fn badugi(cards: &[Card]) -> Option<String> {
    let n = cards.len();
    if n == 0 {
        return None;
    }
    let mut best: Option<(eval::HandValue, Vec<Card>)> = None;
    for subset in 1u32..(1 << n) {
        let chosen: Vec<Card> = (0..n)
            .filter(|i| subset >> i & 1 == 1)
            .map(|i| cards[i])
            .collect();
        let distinct = chosen.iter().enumerate().all(|(i, a)| {
            chosen[i + 1..]
                .iter()
                .all(|b| a.rank() != b.rank() && a.suit() != b.suit())
        });
        if !distinct {
            continue;
        }
        // Padding with the other cards keeps the value of exactly these (they can only
        // add pairs or suits already used), so compare the subsets themselves.
        let value = eval::badugi(&chosen);
        if best
            .as_ref()
            .is_none_or(|(v, c)| value > *v || (value == *v && chosen.len() > c.len()))
        {
            best = Some((value, chosen));
        }
    }
    let (_, counted) = best?;
    let mut ranks: Vec<u8> = counted.iter().map(|c| (c.rank().0 + 1) % 13).collect();
    ranks.sort_unstable_by(|a, b| b.cmp(a));
    Some(if counted.len() == 4 {
        format!("Badugi: {}", ace_low_list(&ranks))
    } else {
        format!("{}-card: {}", counted.len(), ace_low_list(&ranks))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(game: Game, hole: &str, board: &str) -> String {
        let hole = Card::parse_many(hole).unwrap();
        let board = Card::parse_many(board).unwrap();
        describe(game, &hole, &board).unwrap()
    }

    fn parse(cards: &str) -> Vec<Card> {
        Card::parse_many(cards).unwrap()
    }

    #[test]
    fn high_hands_are_named_as_pokerstars_names_them() {
        use Game::Holdem as H;
        assert_eq!(d(H, "AdQd", "Th6d6c2h7s"), "a pair of Sixes");
        assert_eq!(d(H, "Td2d", "Th3c3s9hKd"), "two pair, Tens and Threes");
        assert_eq!(d(H, "4s2c", "Jd4h7c4cQd"), "three of a kind, Fours");
        assert_eq!(d(H, "5h6h", "7c8d9sKhKd"), "a straight, Five to Nine");
        assert_eq!(d(H, "Ah2c", "3d4s5c9h9d"), "a straight, Ace to Five");
        assert_eq!(d(H, "5hAh", "Th6d6cKh7h"), "a flush, Ace high");
        assert_eq!(
            d(H, "KhKd", "Ks7c7d2h3s"),
            "a full house, Kings full of Sevens"
        );
        assert_eq!(d(H, "AsAd", "AhAc7d2h3s"), "four of a kind, Aces");
        assert_eq!(d(H, "9h8h", "7h6h5h2c2d"), "a straight flush, Five to Nine");
        assert_eq!(d(H, "AhKh", "QhJhTh2c2d"), "a Royal Flush");
        assert_eq!(d(H, "Ah9c", "Kd7s5h3c2d"), "high card Ace");
    }

    #[test]
    fn omaha_uses_exactly_two_hole_cards_and_split_games_name_both_halves() {
        // Four hearts in the hand and one on the board make no flush in Omaha.
        assert_eq!(d(Game::Omaha, "AhKhQhJh", "2h7c9d3s8s"), "high card Ace");
        assert_eq!(
            d(Game::OmahaHiLo, "As2dKcKd", "3h5c8sJh9d"),
            "HI: a pair of Kings; LO: 8,5,3,2,A"
        );
        assert_eq!(
            d(Game::OmahaHiLo, "AsKdKcQd", "3h5c9sJh9d"),
            "HI: two pair, Kings and Nines"
        );
        let hole = Card::parse_many("AsKdKcQd").unwrap();
        let board = Card::parse_many("3h5c9sJh9d").unwrap();
        assert!(!has_low(Game::OmahaHiLo, &hole, &board));
    }

    #[test]
    fn stud_razz_and_draw_hands_are_named_for_their_games() {
        assert_eq!(
            d(Game::Stud, "5d4cAh4hJs4sQs", ""),
            "three of a kind, Fours"
        );
        assert_eq!(d(Game::Razz, "Kh7c5d3s2hAcKs", ""), "Lo: 7,5,3,2,A");
        assert_eq!(
            d(Game::StudHiLo, "Ah2h3h8dKh6c9h", ""),
            "HI: a flush, Ace high; LO: 8,6,3,2,A"
        );
        assert_eq!(
            d(Game::StudHiLo, "Ah2h3h8dKhQc9h", ""),
            "HI: a flush, Ace high"
        );
        assert_eq!(
            d(Game::DeuceToSevenTripleDraw, "7h5d4c3s2h", ""),
            "Lo: 7,5,4,3,2"
        );
        assert_eq!(
            d(Game::DeuceToSevenTripleDraw, "As5d4c3s2h", ""),
            "Lo: A,5,4,3,2"
        );
        assert_eq!(
            d(Game::DeuceToSevenSingleDraw, "7h7d4c3s2h", ""),
            "Lo: a pair of Sevens"
        );
        assert_eq!(d(Game::Badugi, "Ah3c5d7s", ""), "Badugi: 7,5,3,A");
        // A pair of Sixes on 6c6dQs4h2c: A-Q-J beats A-Q-9 at the Jack, as PokerStars
        // writes it; the other way round is the lower kicker.
        let mine = kickers(Game::Holdem, &parse("AhJh"), &parse("6c6dQs4h2c")).unwrap();
        let theirs = kickers(Game::Holdem, &parse("As9d"), &parse("6c6dQs4h2c")).unwrap();
        assert_eq!(
            kicker_suffix(&mine, &theirs).as_deref(),
            Some(" - Ace+Queen+Jack kicker")
        );
        assert_eq!(
            kicker_suffix(&theirs, &mine).as_deref(),
            Some(" - lower kicker")
        );
        assert_eq!(kicker_suffix(&mine, &mine), None);
        assert_eq!(d(Game::Badugi, "Ah3h5d7s", ""), "3-card: 7,5,A");
        assert_eq!(d(Game::Razz, "3d3s5h4h", ""), "Lo: 3,3,5,4");
    }

    #[test]
    fn fewer_than_five_cards_are_named_by_their_pairs_or_top_card_as_pokerstars_names_them() {
        // Hold'em hands shown before the flop by a winner without a showdown, as in real
        // PokerStars hands (the fpdb project's regression-test-files/tour/Stars/Flop/
        // NLHE-USD-STT-20-201006.DONturbo.txt, `Player4: shows [Th Td] (a pair of Tens)`;
        // NLHE-9max-Freeroll-MTT-201209.concatenated.partial.txt, `Player5: shows [4d 2c]
        // (high card Four)`).
        assert_eq!(d(Game::Holdem, "ThTd", ""), "a pair of Tens");
        assert_eq!(d(Game::Holdem, "4d2c", ""), "high card Four");
        assert_eq!(d(Game::ShortDeckHoldem, "AsKd", ""), "high card Ace");
        // Stud before the fifth street.
        assert_eq!(d(Game::Stud, "KhKd9s", ""), "a pair of Kings");
        assert_eq!(d(Game::Stud, "KhKd9s9c", ""), "two pair, Kings and Nines");
        assert_eq!(d(Game::Stud, "9h9d9s4c", ""), "three of a kind, Nines");
        assert_eq!(d(Game::Stud, "9h9d9s9c", ""), "four of a kind, Nines");
        assert_eq!(d(Game::StudHiLo, "Ah2d3c", ""), "HI: high card Ace");
        // Omaha's hand needs three board cards: none is named before the flop.
        let hole = parse("AsAdKcQd");
        assert_eq!(describe(Game::Omaha, &hole, &[]), None);
    }
}
