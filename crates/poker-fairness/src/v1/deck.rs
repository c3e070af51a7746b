//! The committed deck: the cards in the server's order with a salt each, the Merkle tree
//! over them, the commitment published before any seed is taken, the dealing that follows
//! from the seeds (the deal and each reshuffle), and the record the server keeps.

use crate::bytes::{decode_hex, encode_hex, Bytes, Digest, Salt};
use crate::merkle::Tree;
use crate::seeds::SeatSeed;
use crate::v1::shuffle::{deal_order, reshuffle_order, shuffle_key};
use poker_ids::HandId;
use poker_rules::Card;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};
use std::fmt;

/// The hash of the leaf at committed position `position` (version 1): SHA-256 of the byte
/// `0x00`, the position (one byte), the card as two ASCII characters and its 16-byte salt.
pub fn leaf_hash(position: u8, card: Card, salt: &Salt) -> Digest {
    let text = card.to_string();
    let mut h = Sha256::new();
    h.update([0x00, position]);
    h.update(text.as_bytes());
    h.update(salt.as_bytes());
    Bytes(h.finalize().into())
}

/// The label hashed first into a commitment.
pub const COMMIT_LABEL: &[u8] = b"pokerd deck commitment v1";

/// The commitment: SHA-256 of [`COMMIT_LABEL`], the hand's id as its 36 characters of
/// text (lowercase, with dashes), the deck's size (one byte) and the Merkle root. It
/// fixes everything the server brings to the order of the deal: the deck and the hand.
pub fn commitment_digest(hand_id: &HandId, size: u8, root: &Digest) -> Digest {
    let mut h = Sha256::new();
    h.update(COMMIT_LABEL);
    h.update(hand_id.to_string().as_bytes());
    h.update([size]);
    h.update(root.as_bytes());
    Bytes(h.finalize().into())
}

/// What the server publishes for a hand before it takes any seed for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commitment {
    /// The hand it is for (the id it will be recorded under).
    pub hand_id: HandId,
    /// How many cards the deck holds (52, or 36 for the short deck).
    pub size: u8,
    /// The Merkle root over the salted deck.
    pub root: Digest,
    /// [`commitment_digest`] of the three: what the seeds are mixed with.
    pub commitment: Digest,
}

/// Why a deck or a dealing is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeckError {
    /// Not as many salts as cards, or no card, or more than 255.
    #[error("a deck needs 1 to 255 cards and a salt for each")]
    Size,
    /// A card twice, or the unknown card.
    #[error("card {0} is not a distinct known card")]
    Card(Card),
    /// A discard handed to a reshuffle that is not in the deck.
    #[error("{0} is not in the committed deck")]
    NotInDeck(Card),
    /// More reshuffles than fit in a byte.
    #[error("too many reshuffles")]
    TooManyReshuffles,
}

/// A deck the server committed to: the cards in its order, a salt per card and the tree.
/// Secret until the hand ends (its `Debug` shows only the root).
#[derive(Clone)]
pub struct CommittedDeck {
    hand_id: HandId,
    cards: Vec<Card>,
    salts: Vec<Salt>,
    tree: Tree,
}

impl fmt::Debug for CommittedDeck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CommittedDeck")
            .field("hand_id", &self.hand_id)
            .field("root", &self.tree.root())
            .finish_non_exhaustive()
    }
}

/// The dealing of one hand, from its seeds: the key, and the reshuffles made so far (each
/// the sorted committed positions of the discards it took).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dealing {
    /// The seeds used, by ascending seat.
    pub seeds: Vec<SeatSeed>,
    /// [`shuffle_key`] of the commitment and the seeds.
    pub key: Digest,
    /// Each reshuffle's discards, as sorted committed positions.
    pub reshuffles: Vec<Vec<u8>>,
}

impl CommittedDeck {
    /// Commits to `cards` in this order with these salts, for hand `hand_id`. The server
    /// draws both from the operating system's generator; nothing here is random.
    pub fn new(hand_id: HandId, cards: Vec<Card>, salts: Vec<Salt>) -> Result<Self, DeckError> {
        if cards.is_empty() || cards.len() > 255 || cards.len() != salts.len() {
            return Err(DeckError::Size);
        }
        let mut seen = 0u64;
        for &c in &cards {
            if !c.is_known() || seen >> c.index() & 1 == 1 {
                return Err(DeckError::Card(c));
            }
            seen |= 1 << c.index();
        }
        let leaves = cards
            .iter()
            .zip(&salts)
            .enumerate()
            .map(|(i, (&c, s))| leaf_hash(i as u8, c, s))
            .collect();
        Ok(CommittedDeck {
            hand_id,
            cards,
            salts,
            tree: Tree::new(leaves),
        })
    }

    /// The hand it is for.
    pub fn hand_id(&self) -> HandId {
        self.hand_id
    }

    /// How many cards.
    pub fn size(&self) -> usize {
        self.cards.len()
    }

    /// What is published before seeds are taken.
    pub fn commitment(&self) -> Commitment {
        let size = self.cards.len() as u8;
        let root = self.tree.root();
        Commitment {
            hand_id: self.hand_id,
            size,
            root,
            commitment: commitment_digest(&self.hand_id, size, &root),
        }
    }

    /// The card at a committed position.
    pub fn card(&self, position: u8) -> Card {
        self.cards[position as usize]
    }

    /// The committed position of a card.
    pub fn position_of(&self, card: Card) -> Option<u8> {
        self.cards.iter().position(|&c| c == card).map(|i| i as u8)
    }

    /// The card at a position, its salt and its inclusion proof.
    pub fn opening(&self, position: u8) -> (Card, Salt, Vec<Digest>) {
        let i = position as usize;
        (self.cards[i], self.salts[i], self.tree.path(i))
    }

    /// The dealing with these seeds (sorted here by seat; one per seat).
    pub fn dealing(&self, mut seeds: Vec<SeatSeed>) -> Dealing {
        seeds.sort_by_key(|s| s.seat);
        seeds.dedup_by_key(|s| s.seat);
        let key = shuffle_key(&self.commitment().commitment, &seeds);
        Dealing {
            seeds,
            key,
            reshuffles: Vec::new(),
        }
    }

    /// The cards in the order they are dealt (burn cards included): the committed deck
    /// permuted by the dealing's round 0.
    pub fn dealt_cards(&self, dealing: &Dealing) -> Vec<Card> {
        deal_order(&dealing.key, self.size())
            .into_iter()
            .map(|p| self.card(p))
            .collect()
    }

    /// A draw game's reshuffle of these discards: their committed positions, sorted,
    /// permuted by the next round; returns the cards in the order they will be dealt and
    /// notes the reshuffle in the dealing.
    pub fn reshuffle(
        &self,
        dealing: &mut Dealing,
        discards: &[Card],
    ) -> Result<Vec<Card>, DeckError> {
        let round =
            u8::try_from(dealing.reshuffles.len() + 1).map_err(|_| DeckError::TooManyReshuffles)?;
        let mut positions = discards
            .iter()
            .map(|&c| self.position_of(c).ok_or(DeckError::NotInDeck(c)))
            .collect::<Result<Vec<u8>, _>>()?;
        positions.sort_unstable();
        let order = reshuffle_order(&dealing.key, round, &positions);
        dealing.reshuffles.push(positions);
        Ok(order.into_iter().map(|p| self.card(p)).collect())
    }

    /// What the server keeps of the hand's deck once it is dealt.
    pub fn record(&self, dealing: &Dealing) -> DeckRecord {
        DeckRecord {
            hand_id: self.hand_id,
            cards: self.cards.clone(),
            salts: self.salts.clone(),
            seeds: dealing.seeds.clone(),
            reshuffles: dealing.reshuffles.clone(),
        }
    }
}

/// What the server keeps of a hand's deck, in the hand's record (the operator's; never
/// sent to a player whole): the committed deck with its salts, the seeds used and the
/// reshuffles. Every proof is made again from it. Its `Debug` shows no card or salt.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeckRecord {
    /// The hand.
    pub hand_id: HandId,
    /// The committed deck in order, as one card string (`AsKd...`).
    #[serde(with = "card_string")]
    pub cards: Vec<Card>,
    /// The salts in the same order, as one hex string (32 digits each).
    #[serde(with = "salt_string")]
    pub salts: Vec<Salt>,
    /// The seeds used, by ascending seat.
    pub seeds: Vec<SeatSeed>,
    /// Each reshuffle's discards as sorted committed positions.
    #[serde(default)]
    pub reshuffles: Vec<Vec<u8>>,
}

impl fmt::Debug for DeckRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeckRecord")
            .field("hand_id", &self.hand_id)
            .field("size", &self.cards.len())
            .field("seeds", &self.seeds.len())
            .field("reshuffles", &self.reshuffles.len())
            .finish_non_exhaustive()
    }
}

impl DeckRecord {
    /// The committed deck again.
    pub fn deck(&self) -> Result<CommittedDeck, DeckError> {
        CommittedDeck::new(self.hand_id, self.cards.clone(), self.salts.clone())
    }

    /// The dealing again (the key from the commitment and the seeds).
    pub fn dealing(&self, deck: &CommittedDeck) -> Dealing {
        let mut dealing = deck.dealing(self.seeds.clone());
        dealing.reshuffles = self.reshuffles.clone();
        dealing
    }
}

mod card_string {
    use poker_rules::Card;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(cards: &[Card], s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&Card::format_many(cards))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Card>, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Card::parse_many(&s).map_err(serde::de::Error::custom)
    }
}

mod salt_string {
    use super::*;
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(salts: &[Salt], s: S) -> Result<S::Ok, S::Error> {
        let bytes: Vec<u8> = salts.iter().flat_map(|s| s.0).collect();
        s.serialize_str(&encode_hex(&bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Salt>, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        let bytes = decode_hex(&s).ok_or_else(|| serde::de::Error::custom("salts are hex"))?;
        if bytes.len() % 16 != 0 {
            return Err(serde::de::Error::custom("salts are 16 bytes each"));
        }
        Ok(bytes
            .chunks(16)
            .map(|c| Bytes(c.try_into().expect("16 bytes")))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use poker_rules::DeckKind;

    fn deck() -> CommittedDeck {
        let cards = DeckKind::Standard.cards();
        let salts = (0..52).map(|i| Bytes([i as u8; 16])).collect();
        CommittedDeck::new(HandId::new(), cards, salts).unwrap()
    }

    #[test]
    fn a_deck_with_a_card_twice_or_a_missing_salt_is_refused() {
        let mut cards = DeckKind::Standard.cards();
        let salts: Vec<Salt> = (0..52).map(|i| Bytes([i as u8; 16])).collect();
        assert_eq!(
            CommittedDeck::new(HandId::new(), cards.clone(), salts[..51].to_vec()).unwrap_err(),
            DeckError::Size
        );
        cards[1] = cards[0];
        assert!(matches!(
            CommittedDeck::new(HandId::new(), cards, salts).unwrap_err(),
            DeckError::Card(_)
        ));
    }

    #[test]
    fn the_commitment_binds_the_hand_and_the_deck() {
        let d = deck();
        let c = d.commitment();
        assert_eq!(c.commitment, commitment_digest(&d.hand_id(), 52, &c.root));
        assert_ne!(c.commitment, commitment_digest(&HandId::new(), 52, &c.root));
        let mut other = d.cards.clone();
        other.swap(0, 1);
        let swapped = CommittedDeck::new(d.hand_id(), other, d.salts.clone()).unwrap();
        assert_ne!(
            swapped.commitment().root,
            c.root,
            "two cards swapped: another root"
        );
    }

    #[test]
    fn the_record_reads_back_and_hides_the_cards_from_debug() {
        let d = deck();
        let mut dealing = d.dealing(Vec::new());
        d.reshuffle(&mut dealing, &[d.card(4), d.card(2)]).unwrap();
        let record = d.record(&dealing);
        let json = serde_json::to_string(&record).unwrap();
        let back: DeckRecord = serde_json::from_str(&json).unwrap();
        assert_eq!(back, record);
        assert_eq!(back.reshuffles, vec![vec![2, 4]]);
        assert_eq!(back.dealing(&back.deck().unwrap()), dealing);
        let debug = format!("{record:?} {d:?}");
        assert!(!debug.contains(&record.salts[0].to_string()), "{debug}");
        assert!(
            !debug.contains(&Card::format_many(&record.cards[..2])),
            "{debug}"
        );
    }

    #[test]
    fn dealt_cards_are_the_deck_in_the_order_of_the_seeds() {
        let d = deck();
        let seed = |seat, b| SeatSeed {
            seat,
            seed: Bytes([b; 32]),
        };
        let a = d.dealt_cards(&d.dealing(vec![seed(1, 1), seed(0, 2)]));
        // Seeds are sorted by seat: the order they are given in does not matter.
        assert_eq!(a, d.dealt_cards(&d.dealing(vec![seed(0, 2), seed(1, 1)])));
        assert_ne!(a, d.dealt_cards(&d.dealing(vec![seed(0, 2), seed(1, 2)])));
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, DeckKind::Standard.cards());
    }
}
