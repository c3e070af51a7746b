//! The committed deck (version 2): for each round of a hand (the deal, then each reshuffle
//! a draw game may need), every card of the deck gets a fresh secret nonce, which makes
//! its leaf (in a Merkle tree with one leaf per card, in the deck's canonical order) and
//! its tag (the card's name in that round, public but opaque). The commitment fixes every
//! round's tree and sorted list of tags before any seed is taken; the seeds then order each
//! round's tags, and so its cards. Everything the server brings comes from one 32-byte
//! secret drawn from the operating system's generator; nothing here is random.

use crate::bytes::{Bytes, Digest};
use crate::merkle::Tree;
use crate::seeds::{list_digest, SeatSeed, SeedCommit};
use crate::shuffle::{round_order, shuffle_key};
use poker_ids::HandId;
use poker_rules::{Card, DeckKind, Game};
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};
use std::fmt;

/// The version of the construction: what a record's `version` says and a proof checks.
pub const VERSION: u8 = 2;

/// The label hashed first into a nonce.
pub const NONCE_LABEL: &[u8] = b"pokerd deck nonce v2";
/// The label hashed first into a round's tags digest.
pub const TAGS_LABEL: &[u8] = b"pokerd deck tags v2";
/// The label hashed first into a commitment.
pub const COMMIT_LABEL: &[u8] = b"pokerd deck commitment v2";
/// The byte a leaf's input starts with (RFC 6962's leaf prefix).
pub const LEAF_PREFIX: u8 = 0x00;
/// The byte a tag's input starts with (neither a leaf's nor a node's).
pub const TAG_PREFIX: u8 = 0x02;

/// The secret nonce of one card in one round (16 bytes), revealed only with that card.
pub type Nonce = Bytes<16>;
/// The server's secret for one hand's deck (32 bytes): every nonce comes from it.
pub type Secret = Bytes<32>;

/// How many rounds a hand of `game` commits: the deal, and one per draw (at most one
/// reshuffle per draw: every discard of the draw is in the muck before its cards are
/// dealt, so one reshuffle always covers the rest of it).
pub fn rounds_for(game: Game) -> u8 {
    1 + game.streets().iter().filter(|s| s.draw).count() as u8
}

/// The card's number in its deck: `4 × rank + suit` (ranks 2..A as 0..12, suits c d h s
/// as 0..3), less 16 in the short deck (which starts at the sixes). Its leaf's index.
pub fn card_number(size: usize, card: Card) -> Option<usize> {
    let lowest = 52 - size;
    (card.is_known() && card.index() >= lowest && card.index() < 52).then(|| card.index() - lowest)
}

/// The deck of `size` cards (52 or 36), in its canonical order.
pub fn deck_kind(size: usize) -> Option<DeckKind> {
    match size {
        52 => Some(DeckKind::Standard),
        36 => Some(DeckKind::Short),
        _ => None,
    }
}

fn card_bytes(card: Card) -> [u8; 2] {
    let t = card.to_string();
    let b = t.as_bytes();
    [b[0], b[1]]
}

/// A card's nonce in a round: the first 16 bytes of SHA-256 of [`NONCE_LABEL`], the
/// secret, the round (one byte) and the card (two ASCII characters).
pub fn nonce(secret: &Secret, round: u8, card: Card) -> Nonce {
    let mut h = Sha256::new();
    h.update(NONCE_LABEL);
    h.update(secret.as_bytes());
    h.update([round]);
    h.update(card_bytes(card));
    let d: [u8; 32] = h.finalize().into();
    Bytes(d[..16].try_into().expect("16 bytes"))
}

fn prefixed(prefix: u8, round: u8, card: Card, nonce: &Nonce) -> Digest {
    let mut h = Sha256::new();
    h.update([prefix, round]);
    h.update(card_bytes(card));
    h.update(nonce.as_bytes());
    Bytes(h.finalize().into())
}

/// A card's leaf in a round: SHA-256 of `0x00`, the round (one byte), the card (two
/// ASCII characters) and its nonce (16 bytes).
pub fn leaf_hash(round: u8, card: Card, nonce: &Nonce) -> Digest {
    prefixed(LEAF_PREFIX, round, card, nonce)
}

/// A card's tag in a round: SHA-256 of `0x02`, the round, the card and its nonce. Public
/// in the round's list; without the nonce it says nothing of the card.
pub fn tag_hash(round: u8, card: Card, nonce: &Nonce) -> Digest {
    prefixed(TAG_PREFIX, round, card, nonce)
}

/// A round's tags digest: SHA-256 of [`TAGS_LABEL`], the round (one byte) and the
/// round's tags in ascending order (32 bytes each).
pub fn tags_digest(round: u8, sorted: &[Digest]) -> Digest {
    let mut h = Sha256::new();
    h.update(TAGS_LABEL);
    h.update([round]);
    for t in sorted {
        h.update(t.as_bytes());
    }
    Bytes(h.finalize().into())
}

/// What one round commits: the root of its tree and the digest of its sorted tags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundCommitment {
    /// The Merkle root over the round's leaves, one per card in canonical order.
    pub root: Digest,
    /// [`tags_digest`] of the round's sorted tags.
    pub tags: Digest,
}

/// The commitment: SHA-256 of [`COMMIT_LABEL`], the hand's id as its 36 characters of
/// text (lowercase, with dashes), the deck's size (one byte), the count of rounds (one
/// byte), then each round's root and tags digest.
pub fn commitment_digest(hand_id: &HandId, size: u8, rounds: &[RoundCommitment]) -> Digest {
    let mut h = Sha256::new();
    h.update(COMMIT_LABEL);
    h.update(hand_id.to_string().as_bytes());
    h.update([size, rounds.len() as u8]);
    for r in rounds {
        h.update(r.root.as_bytes());
        h.update(r.tags.as_bytes());
    }
    Bytes(h.finalize().into())
}

/// What the server publishes for a hand before it takes any seed for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commitment {
    /// The hand it is for (the id it will be recorded under).
    pub hand_id: HandId,
    /// How many cards the deck holds (52, or 36 for the short deck).
    pub size: u8,
    /// How many rounds it commits (1, plus one per draw in a draw game).
    pub rounds: u8,
    /// [`commitment_digest`]: what the seeds' commitments and the key are bound to.
    pub commitment: Digest,
}

/// Why a deck or a dealing is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeckError {
    /// No round, or more than the protocol's byte holds.
    #[error("a deck commits 1 to 16 rounds")]
    Rounds,
    /// A deck size no game uses.
    #[error("a deck of {0} cards")]
    Size(usize),
    /// A discard handed to a reshuffle that is not a card of the deck, or twice.
    #[error("{0} is not a card of the deck, or is given twice")]
    NotInDeck(Card),
    /// More reshuffles than the deck committed rounds for.
    #[error("the deck committed {0} rounds: no reshuffle is left")]
    TooManyReshuffles(u8),
}

struct Round {
    nonces: Vec<Nonce>,
    tree: Tree,
    /// The tags in ascending order.
    sorted: Vec<Digest>,
    /// The card whose tag is `sorted[i]`.
    card_of: Vec<Card>,
    digest: Digest,
}

/// A deck the server committed to: every round's nonces, trees and tags, from the
/// secret. Secret until the hand ends (its `Debug` shows only the commitment).
pub struct CommittedDeck {
    hand_id: HandId,
    size: usize,
    secret: Secret,
    rounds: Vec<Round>,
    commitment: Digest,
}

impl fmt::Debug for CommittedDeck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CommittedDeck")
            .field("hand_id", &self.hand_id)
            .field("commitment", &self.commitment)
            .finish_non_exhaustive()
    }
}

/// The dealing of one hand, from its seeds: the closed list of commitments, the seeds
/// used, the key, and the reshuffles made so far (each the ascending slots it took).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dealing {
    /// The closed list of seed commitments, by ascending seat.
    pub seed_list: Vec<SeedCommit>,
    /// The seeds used, by ascending seat.
    pub seeds: Vec<SeatSeed>,
    /// [`shuffle_key`] of the commitment, the list's digest and the seeds.
    pub key: Digest,
    /// Each reshuffle's slots of its round, ascending.
    pub reshuffles: Vec<Vec<u8>>,
}

impl CommittedDeck {
    /// Commits to a deck of `kind` for hand `hand_id` over `rounds` rounds, every nonce
    /// from `secret` (which the server draws from the operating system's generator).
    pub fn new(
        hand_id: HandId,
        kind: DeckKind,
        rounds: u8,
        secret: Secret,
    ) -> Result<Self, DeckError> {
        if !(1..=16).contains(&rounds) {
            return Err(DeckError::Rounds);
        }
        let cards = kind.cards();
        let rounds: Vec<Round> = (0..rounds)
            .map(|r| {
                let nonces: Vec<Nonce> = cards.iter().map(|&c| nonce(&secret, r, c)).collect();
                let leaves = cards
                    .iter()
                    .zip(&nonces)
                    .map(|(&c, n)| leaf_hash(r, c, n))
                    .collect();
                let mut tagged: Vec<(Digest, Card)> = cards
                    .iter()
                    .zip(&nonces)
                    .map(|(&c, n)| (tag_hash(r, c, n), c))
                    .collect();
                tagged.sort_unstable();
                let sorted: Vec<Digest> = tagged.iter().map(|t| t.0).collect();
                Round {
                    nonces,
                    tree: Tree::new(leaves),
                    digest: tags_digest(r, &sorted),
                    card_of: tagged.iter().map(|t| t.1).collect(),
                    sorted,
                }
            })
            .collect();
        let parts: Vec<RoundCommitment> = rounds
            .iter()
            .map(|r| RoundCommitment {
                root: r.tree.root(),
                tags: r.digest,
            })
            .collect();
        Ok(CommittedDeck {
            hand_id,
            size: cards.len(),
            secret,
            commitment: commitment_digest(&hand_id, cards.len() as u8, &parts),
            rounds,
        })
    }

    /// The hand it is for.
    pub fn hand_id(&self) -> HandId {
        self.hand_id
    }

    /// How many cards.
    pub fn size(&self) -> usize {
        self.size
    }

    /// How many rounds it commits.
    pub fn rounds(&self) -> u8 {
        self.rounds.len() as u8
    }

    /// What is published before seeds are taken.
    pub fn commitment(&self) -> Commitment {
        Commitment {
            hand_id: self.hand_id,
            size: self.size as u8,
            rounds: self.rounds(),
            commitment: self.commitment,
        }
    }

    /// Each round's root and tags digest (the commitment's parts).
    pub fn round_commitments(&self) -> Vec<RoundCommitment> {
        self.rounds
            .iter()
            .map(|r| RoundCommitment {
                root: r.tree.root(),
                tags: r.digest,
            })
            .collect()
    }

    /// A round's tags, ascending.
    pub fn tags(&self, round: u8) -> &[Digest] {
        &self.rounds[round as usize].sorted
    }

    /// A card's nonce and inclusion proof in a round (`None`: not a card of this deck).
    pub fn opening(&self, round: u8, card: Card) -> Option<(Nonce, Vec<Digest>)> {
        let i = card_number(self.size, card)?;
        let r = &self.rounds[round as usize];
        Some((r.nonces[i], r.tree.path(i)))
    }

    /// The dealing with this closed list and these seeds (each sorted here by seat, one
    /// per seat).
    pub fn dealing(&self, mut seed_list: Vec<SeedCommit>, mut seeds: Vec<SeatSeed>) -> Dealing {
        seed_list.sort_by_key(|s| s.seat);
        seed_list.dedup_by_key(|s| s.seat);
        seeds.sort_by_key(|s| s.seat);
        seeds.dedup_by_key(|s| s.seat);
        let list = list_digest(&self.commitment, &seed_list);
        let key = shuffle_key(&self.commitment, &list, &seeds);
        Dealing {
            seed_list,
            seeds,
            key,
            reshuffles: Vec::new(),
        }
    }

    /// The card at `slot` of round `round` under the dealing's key.
    fn at(&self, order: &[u8], round: u8, slot: usize) -> Card {
        self.rounds[round as usize].card_of[order[slot] as usize]
    }

    /// The cards in the order they are dealt (burn cards included): round 0's slots.
    pub fn dealt_cards(&self, dealing: &Dealing) -> Vec<Card> {
        let order = round_order(&dealing.key, 0, self.size);
        (0..self.size).map(|s| self.at(&order, 0, s)).collect()
    }

    /// A draw game's reshuffle of these discards: the next round's slots that hold them,
    /// ascending, which the reshuffle takes in that order; returns the cards in the order
    /// they will be dealt and notes the reshuffle in the dealing.
    pub fn reshuffle(
        &self,
        dealing: &mut Dealing,
        discards: &[Card],
    ) -> Result<Vec<Card>, DeckError> {
        let round = dealing.reshuffles.len() + 1;
        if round >= self.rounds.len() {
            return Err(DeckError::TooManyReshuffles(self.rounds()));
        }
        let mut wanted = vec![false; self.size];
        for &c in discards {
            let i = card_number(self.size, c).ok_or(DeckError::NotInDeck(c))?;
            if std::mem::replace(&mut wanted[i], true) {
                return Err(DeckError::NotInDeck(c));
            }
        }
        let round = round as u8;
        let order = round_order(&dealing.key, round, self.size);
        let mut slots = Vec::new();
        let mut cards = Vec::new();
        for slot in 0..self.size {
            let card = self.at(&order, round, slot);
            if wanted[card_number(self.size, card).expect("a card of the deck")] {
                slots.push(slot as u8);
                cards.push(card);
            }
        }
        dealing.reshuffles.push(slots);
        Ok(cards)
    }

    /// What the server keeps of the hand's deck once it is dealt.
    pub fn record(&self, dealing: &Dealing) -> DeckRecord {
        DeckRecord {
            version: VERSION,
            hand_id: self.hand_id,
            size: self.size as u8,
            rounds: self.rounds(),
            secret: self.secret,
            seed_list: dealing.seed_list.clone(),
            seeds: dealing.seeds.clone(),
            reshuffles: dealing.reshuffles.clone(),
        }
    }
}

/// What the server keeps of a hand's deck, in the hand's record (the operator's; never
/// sent to a player whole): the secret every nonce comes from, the closed list, the seeds
/// used and the reshuffles. Every proof is made again from it. Its `Debug` shows no
/// secret.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeckRecord {
    /// The construction's version (2).
    pub version: u8,
    /// The hand.
    pub hand_id: HandId,
    /// Cards in the deck.
    pub size: u8,
    /// Rounds committed.
    pub rounds: u8,
    /// The secret.
    pub secret: Secret,
    /// The closed list of seed commitments, by ascending seat.
    pub seed_list: Vec<SeedCommit>,
    /// The seeds used, by ascending seat.
    pub seeds: Vec<SeatSeed>,
    /// Each reshuffle's slots, ascending.
    #[serde(default)]
    pub reshuffles: Vec<Vec<u8>>,
}

impl fmt::Debug for DeckRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeckRecord")
            .field("hand_id", &self.hand_id)
            .field("size", &self.size)
            .field("rounds", &self.rounds)
            .field("seeds", &self.seeds.len())
            .field("reshuffles", &self.reshuffles.len())
            .finish_non_exhaustive()
    }
}

impl DeckRecord {
    /// The committed deck again.
    pub fn deck(&self) -> Result<CommittedDeck, DeckError> {
        let kind = deck_kind(self.size as usize).ok_or(DeckError::Size(self.size as usize))?;
        CommittedDeck::new(self.hand_id, kind, self.rounds, self.secret)
    }

    /// The dealing again (the key from the commitment, the list and the seeds).
    pub fn dealing(&self, deck: &CommittedDeck) -> Dealing {
        let mut dealing = deck.dealing(self.seed_list.clone(), self.seeds.clone());
        dealing.reshuffles = self.reshuffles.clone();
        dealing
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seeds::seed_commitment;

    fn deck(rounds: u8) -> CommittedDeck {
        CommittedDeck::new(HandId::new(), DeckKind::Standard, rounds, Bytes([7; 32])).unwrap()
    }

    #[test]
    fn the_commitment_binds_the_hand_the_secret_and_every_round() {
        let d = deck(2);
        let c = d.commitment();
        assert_eq!(
            c.commitment,
            commitment_digest(&d.hand_id(), 52, &d.round_commitments())
        );
        let other_hand = CommittedDeck::new(HandId::new(), DeckKind::Standard, 2, Bytes([7; 32]));
        assert_ne!(other_hand.unwrap().commitment().commitment, c.commitment);
        let other_secret =
            CommittedDeck::new(d.hand_id(), DeckKind::Standard, 2, Bytes([8; 32])).unwrap();
        assert_ne!(other_secret.commitment().commitment, c.commitment);
        let fewer = CommittedDeck::new(d.hand_id(), DeckKind::Standard, 1, Bytes([7; 32]));
        assert_ne!(fewer.unwrap().commitment().commitment, c.commitment);
        assert_eq!(
            CommittedDeck::new(d.hand_id(), DeckKind::Standard, 0, Bytes([7; 32])).unwrap_err(),
            DeckError::Rounds
        );
    }

    #[test]
    fn each_round_has_one_leaf_and_one_distinct_tag_per_card() {
        let d = deck(3);
        for r in 0..3 {
            let tags = d.tags(r);
            assert_eq!(tags.len(), 52);
            assert!(tags.windows(2).all(|w| w[0] < w[1]), "ascending, distinct");
            for card in DeckKind::Standard.cards() {
                let (n, path) = d.opening(r, card).unwrap();
                let i = card_number(52, card).unwrap();
                assert!(crate::merkle::verify_path(
                    i,
                    52,
                    &leaf_hash(r, card, &n),
                    &path,
                    &d.round_commitments()[r as usize].root
                ));
                assert!(tags.binary_search(&tag_hash(r, card, &n)).is_ok());
            }
        }
        // A card's tags in two rounds have nothing in common.
        let (n0, _) = d.opening(0, Card::from_index(0).unwrap()).unwrap();
        let (n1, _) = d.opening(1, Card::from_index(0).unwrap()).unwrap();
        assert_ne!(n0, n1);
    }

    #[test]
    fn dealt_cards_are_the_deck_in_the_order_of_the_seeds_and_the_list() {
        let d = deck(1);
        let seed = |seat, b| SeatSeed {
            seat,
            seed: Bytes([b; 32]),
        };
        let list = |seats: &[u8]| {
            seats
                .iter()
                .map(|&seat| SeedCommit {
                    seat,
                    commitment: seed_commitment(&d.commitment().commitment, &Bytes([seat; 32])),
                    house: false,
                })
                .collect::<Vec<_>>()
        };
        let a = d.dealt_cards(&d.dealing(list(&[0, 1]), vec![seed(1, 1), seed(0, 2)]));
        // Seeds are sorted by seat: the order they are given in does not matter.
        assert_eq!(
            a,
            d.dealt_cards(&d.dealing(list(&[1, 0]), vec![seed(0, 2), seed(1, 1)]))
        );
        assert_ne!(
            a,
            d.dealt_cards(&d.dealing(list(&[0, 1]), vec![seed(0, 2), seed(1, 2)]))
        );
        // The same seeds under another closed list: another order.
        assert_ne!(
            a,
            d.dealt_cards(&d.dealing(list(&[0, 1, 2]), vec![seed(0, 2), seed(1, 1)]))
        );
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, DeckKind::Standard.cards());
    }

    #[test]
    fn a_reshuffle_takes_exactly_the_discards_in_its_rounds_order_and_no_more_than_committed() {
        let d = deck(2);
        let mut dealing = d.dealing(Vec::new(), Vec::new());
        let discards: Vec<Card> = d.dealt_cards(&dealing)[..7].to_vec();
        let cards = d.reshuffle(&mut dealing, &discards).unwrap();
        let mut a = cards.clone();
        let mut b = discards.clone();
        a.sort();
        b.sort();
        assert_eq!(a, b);
        let slots = &dealing.reshuffles[0];
        assert_eq!(slots.len(), 7);
        assert!(slots.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(
            d.reshuffle(&mut dealing, &discards).unwrap_err(),
            DeckError::TooManyReshuffles(2)
        );
        let mut again = d.dealing(Vec::new(), Vec::new());
        assert!(matches!(
            d.reshuffle(&mut again, &[discards[0], discards[0]]),
            Err(DeckError::NotInDeck(_))
        ));
    }

    #[test]
    fn the_record_reads_back_and_hides_the_secret_from_debug() {
        let d = deck(2);
        let mut dealing = d.dealing(Vec::new(), Vec::new());
        let discards: Vec<Card> = d.dealt_cards(&dealing)[..3].to_vec();
        d.reshuffle(&mut dealing, &discards).unwrap();
        let record = d.record(&dealing);
        let json = serde_json::to_string(&record).unwrap();
        let back: DeckRecord = serde_json::from_str(&json).unwrap();
        assert_eq!(back, record);
        let again = back.deck().unwrap();
        assert_eq!(again.commitment(), d.commitment());
        assert_eq!(back.dealing(&again), dealing);
        let debug = format!("{record:?} {d:?}");
        assert!(!debug.contains(&record.secret.to_string()), "{debug}");
    }

    #[test]
    fn the_short_deck_numbers_its_cards_from_the_sixes() {
        let six_clubs: Card = "6c".parse().unwrap();
        assert_eq!(card_number(36, six_clubs), Some(0));
        assert_eq!(card_number(36, "5s".parse().unwrap()), None);
        assert_eq!(card_number(52, six_clubs), Some(16));
        assert_eq!(card_number(36, "As".parse().unwrap()), Some(35));
        assert_eq!(rounds_for(Game::Holdem), 1);
        assert_eq!(rounds_for(Game::DeuceToSevenTripleDraw), 4);
        assert_eq!(rounds_for(Game::DeuceToSevenSingleDraw), 2);
    }
}
