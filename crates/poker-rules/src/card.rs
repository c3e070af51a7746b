//! Cards, ranks, suits and the two decks (52 cards and the 36-card short deck).
//!
//! A card is one byte (`rank * 4 + suit`) so hands and decks are cheap to copy and
//! compare. An unknown card (`??` in PHH) is a distinct value: it can be dealt and
//! discarded during a replay, but it can never be evaluated.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// A card rank, deuce (0) to ace (12).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rank(pub u8);

impl Rank {
    /// The deuce, the lowest rank in high games.
    pub const TWO: Rank = Rank(0);
    /// The six, the lowest rank of the short deck.
    pub const SIX: Rank = Rank(4);
    /// The ace, highest in high games and lowest in ace-to-five low.
    pub const ACE: Rank = Rank(12);

    /// The rank's character in card notation (`2`..`9`, `T`, `J`, `Q`, `K`, `A`).
    pub fn to_char(self) -> char {
        b"23456789TJQKA"[self.0 as usize] as char
    }

    /// Parses a rank character.
    pub fn from_char(c: char) -> Option<Rank> {
        "23456789TJQKA"
            .find(c.to_ascii_uppercase())
            .map(|i| Rank(i as u8))
    }
}

/// A card suit; the order clubs < diamonds < hearts < spades breaks bring-in ties (R12).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Suit(pub u8);

impl Suit {
    /// The suit's character in card notation (`c`, `d`, `h`, `s`).
    pub fn to_char(self) -> char {
        b"cdhs"[self.0 as usize] as char
    }

    /// Parses a suit character.
    pub fn from_char(c: char) -> Option<Suit> {
        "cdhs".find(c.to_ascii_lowercase()).map(|i| Suit(i as u8))
    }
}

/// One playing card, or the unknown card of a replayed history.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card(u8);

impl Card {
    /// A card whose face is not known (`??`), as in histories that hide folded hands.
    pub const UNKNOWN: Card = Card(255);

    /// Builds a card from its rank and suit.
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card(rank.0 * 4 + suit.0)
    }

    /// Builds a card from its index 0..52 (`rank * 4 + suit`).
    pub fn from_index(index: u8) -> Option<Card> {
        (index < 52).then_some(Card(index))
    }

    /// The card's index 0..52; meaningless for [`Card::UNKNOWN`].
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The card's rank.
    pub const fn rank(self) -> Rank {
        Rank(self.0 / 4)
    }

    /// The card's suit.
    pub const fn suit(self) -> Suit {
        Suit(self.0 % 4)
    }

    /// Whether the card's face is known.
    pub const fn is_known(self) -> bool {
        self.0 < 52
    }

    /// Parses a run of concatenated cards such as `AsKd` or `????Ah`.
    pub fn parse_many(text: &str) -> Result<Vec<Card>, CardParseError> {
        let text = text.trim();
        if !text.len().is_multiple_of(2) || !text.is_ascii() {
            return Err(CardParseError(text.to_string()));
        }
        (0..text.len())
            .step_by(2)
            .map(|i| text[i..i + 2].parse())
            .collect()
    }

    /// Writes cards as one concatenated string (`AsKd`).
    pub fn format_many(cards: &[Card]) -> String {
        cards.iter().map(|c| c.to_string()).collect()
    }
}

/// A card string that is not valid card notation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid card notation {0:?}")]
pub struct CardParseError(pub String);

impl FromStr for Card {
    type Err = CardParseError;

    fn from_str(s: &str) -> Result<Card, CardParseError> {
        let mut chars = s.chars();
        match (chars.next(), chars.next(), chars.next()) {
            (Some('?'), Some('?'), None) => Ok(Card::UNKNOWN),
            (Some(r), Some(u), None) => match (Rank::from_char(r), Suit::from_char(u)) {
                (Some(r), Some(u)) => Ok(Card::new(r, u)),
                _ => Err(CardParseError(s.to_string())),
            },
            _ => Err(CardParseError(s.to_string())),
        }
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_known() {
            write!(f, "{}{}", self.rank().to_char(), self.suit().to_char())
        } else {
            f.write_str("??")
        }
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Card, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Up to seven cards held inline (a hand, a board, a deal), so the hot path never
/// allocates. Serialized as one card string (`AsKd`).
#[derive(Clone, Copy)]
pub struct Cards {
    len: u8,
    cards: [Card; 7],
}

impl Cards {
    /// The most cards one list holds (seven-card stud).
    pub const CAPACITY: usize = 7;

    /// An empty list.
    pub const fn new() -> Cards {
        Cards {
            len: 0,
            cards: [Card::UNKNOWN; 7],
        }
    }

    /// Copies a slice; `None` if it has more than seven cards.
    pub fn from_slice(cards: &[Card]) -> Option<Cards> {
        if cards.len() > Self::CAPACITY {
            return None;
        }
        let mut out = Cards::new();
        out.cards[..cards.len()].copy_from_slice(cards);
        out.len = cards.len() as u8;
        Some(out)
    }

    /// Appends a card.
    ///
    /// # Panics
    /// Panics when full: the games never hold more than seven cards.
    pub fn push(&mut self, card: Card) {
        self.cards[self.len as usize] = card;
        self.len += 1;
    }

    /// Removes the card at `index`, keeping the order of the rest.
    pub fn remove(&mut self, index: usize) -> Card {
        let card = self.cards[index];
        self.cards.copy_within(index + 1..self.len as usize, index);
        self.len -= 1;
        self.cards[self.len as usize] = Card::UNKNOWN;
        card
    }

    /// The cards as a slice.
    pub fn as_slice(&self) -> &[Card] {
        &self.cards[..self.len as usize]
    }

    /// The cards as a mutable slice.
    pub fn as_mut_slice(&mut self) -> &mut [Card] {
        &mut self.cards[..self.len as usize]
    }

    /// How many cards.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether there are no cards.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl PartialEq for Cards {
    fn eq(&self, other: &Cards) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Cards {}

impl std::hash::Hash for Cards {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

impl Default for Cards {
    fn default() -> Cards {
        Cards::new()
    }
}

impl std::ops::Deref for Cards {
    type Target = [Card];
    fn deref(&self) -> &[Card] {
        self.as_slice()
    }
}

impl fmt::Debug for Cards {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&Card::format_many(self))
    }
}

impl fmt::Display for Cards {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&Card::format_many(self))
    }
}

impl Serialize for Cards {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Cards {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Cards, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        let cards = Card::parse_many(&s).map_err(serde::de::Error::custom)?;
        Cards::from_slice(&cards).ok_or_else(|| serde::de::Error::custom("more than seven cards"))
    }
}

/// Which deck a game is dealt from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeckKind {
    /// The 52-card deck.
    Standard,
    /// The 36-card short deck (sixes to aces), for short-deck hold'em.
    Short,
}

impl DeckKind {
    /// Every card of this deck in index order; the caller shuffles it.
    pub fn cards(self) -> Vec<Card> {
        let lowest = match self {
            DeckKind::Standard => 0,
            DeckKind::Short => Rank::SIX.0 * 4,
        };
        (lowest..52).map(Card).collect()
    }

    /// How many cards the deck has.
    pub fn size(self) -> usize {
        match self {
            DeckKind::Standard => 52,
            DeckKind::Short => 36,
        }
    }

    /// Whether a known card belongs to this deck.
    pub fn contains(self, card: Card) -> bool {
        card.is_known() && (self == DeckKind::Standard || card.rank() >= Rank::SIX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_round_trip_through_notation() {
        for card in DeckKind::Standard.cards() {
            assert_eq!(card.to_string().parse::<Card>().unwrap(), card);
        }
        assert_eq!(Card::parse_many("As??Td").unwrap().len(), 3);
        assert!(Card::parse_many("Ax").is_err());
        assert!(Card::parse_many("A").is_err());
    }

    #[test]
    fn short_deck_has_thirty_six_cards_from_six_up() {
        let deck = DeckKind::Short.cards();
        assert_eq!(deck.len(), 36);
        assert!(deck.iter().all(|c| c.rank() >= Rank::SIX));
        assert!(!DeckKind::Short.contains("5s".parse().unwrap()));
    }
}
