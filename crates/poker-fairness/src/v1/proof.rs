//! Proofs of the cards a player saw, and their check.
//!
//! A card's *place* is its rank in the order cards left the deck (0 first, burn cards
//! counted). It follows from public facts only: the hand's deal events in order (how many
//! cards each deal took, hole or board), the rule that a board deal burns one card first
//! when the stub holds more cards than the deal needs, and the reshuffles: when a deal
//! needs more cards than the stub holds, the next reshuffle's discards go under the stub.
//! The place fixes the committed position through the public permutation; the proof opens
//! that position (card, salt, Merkle path), so the server cannot say a card came from
//! anywhere else.
//!
//! [`prove`] makes a player's proofs (or the operator's, every dealt card) from the
//! server's [`DeckRecord`] and the hand's events; [`verify`] checks a hand's record as a
//! player downloads it: its events (others' down cards unknown) and its [`HandProof`].

use crate::bytes::{Digest, Salt, Seed};
use crate::merkle::verify_path;
use crate::seeds::SeatSeed;
use crate::v1::deck::leaf_hash;
use crate::v1::deck::{commitment_digest, CommittedDeck, Dealing, DeckError, DeckRecord};
use crate::v1::shuffle::{deal_order, reshuffle_order, shuffle_key};
use poker_ids::HandId;
use poker_rules::{Card, Event};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The version of the construction this crate makes and checks.
pub const VERSION: u8 = 1;

/// The opening of one card the viewer saw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardProof {
    /// Where the card came in the order cards left the deck (burn cards counted).
    pub place: u16,
    /// Its position in the committed deck: the deal's permutation at `place`.
    pub position: u8,
    /// The card.
    pub card: Card,
    /// Its salt.
    pub salt: Salt,
    /// The leaf's inclusion proof (siblings from the leaf up).
    pub path: Vec<Digest>,
}

/// A hand's deck as one viewer may check it: the commitment and what it was made of, the
/// seeds by seat, the reshuffles, and the proofs of the cards the viewer saw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandProof {
    /// The construction's version ([`VERSION`]).
    pub version: u8,
    /// The hand.
    pub hand_id: HandId,
    /// Cards in the deck.
    pub size: u8,
    /// The Merkle root.
    pub root: Digest,
    /// The commitment published before the seeds were taken.
    pub commitment: Digest,
    /// Every seed used, by ascending seat.
    pub seeds: Vec<SeatSeed>,
    /// Each reshuffle's discards as sorted committed positions (draw games).
    pub reshuffles: Vec<Vec<u8>>,
    /// The proofs, by ascending place.
    pub cards: Vec<CardProof>,
}

/// Whose proofs to make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Viewer {
    /// The player at this index of the hand: their own cards (discards included), the
    /// board, every card dealt face up and every hand shown.
    Player(usize),
    /// The operator: every card dealt.
    Operator,
}

/// Why a hand's deck does not check out (or, making proofs, does not match its events).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// A version this verifier does not know.
    #[error("unknown version {0}")]
    Version(u8),
    /// The proofs are for another hand.
    #[error("the proofs are for hand {proof}, the record is hand {record}")]
    HandId {
        /// The record's.
        record: HandId,
        /// The proofs'.
        proof: HandId,
    },
    /// A deck size no game uses.
    #[error("a deck of {0} cards")]
    Size(u8),
    /// The commitment is not made of the hand, the size and the root.
    #[error("the commitment is not the hash of the hand id, the deck size and the root")]
    Commitment,
    /// Seeds not listed once each by ascending seat.
    #[error("the seeds are not listed once each, by ascending seat")]
    SeedOrder,
    /// A seed from a seat that was not dealt in.
    #[error("a seed from seat {0}, which was not dealt in")]
    SeedSeat(u8),
    /// The viewer's own seed is not among those used.
    #[error("your seed was not counted (seat {seat})")]
    OwnSeed {
        /// The viewer's seat.
        seat: u32,
    },
    /// A deal needed more cards than the stub held and no reshuffle is listed.
    #[error("a deal needed a reshuffle the record does not list")]
    ReshuffleMissing,
    /// A reshuffle is listed that never happened.
    #[error("the record lists {listed} reshuffles, the deal made {made}")]
    ReshuffleUnused {
        /// Listed.
        listed: usize,
        /// Made.
        made: usize,
    },
    /// A reshuffle's positions are not sorted, or repeat one.
    #[error("reshuffle {round} does not list its positions once each in ascending order")]
    ReshuffleOrder {
        /// The reshuffle (from 1).
        round: usize,
    },
    /// A reshuffle does not take as many cards as were discarded before it.
    #[error("reshuffle {round} takes {listed} cards; {discarded} were discarded before it")]
    ReshuffleCount {
        /// The reshuffle (from 1).
        round: usize,
        /// Positions it lists.
        listed: usize,
        /// Cards discarded since the last one.
        discarded: usize,
    },
    /// A reshuffle takes a position that is not a card out of the deck in a hand.
    #[error("reshuffle {round} takes position {position}, which is not a card dealt to a hand and out of the deck")]
    ReshuffleCard {
        /// The reshuffle (from 1).
        round: usize,
        /// The position.
        position: u8,
    },
    /// A reshuffle leaves out a discard the record shows.
    #[error("reshuffle {round} leaves out the discard at position {position}")]
    ReshuffleMissesDiscard {
        /// The reshuffle (from 1).
        round: usize,
        /// The discard's position.
        position: u8,
    },
    /// A deal needs more cards than the deck holds even after a reshuffle.
    #[error("the deal runs out of cards")]
    DeckExhausted,
    /// Proofs not listed once each by ascending place.
    #[error("the proofs are not listed once each by ascending place")]
    PlaceOrder,
    /// A proof for a place no card was dealt from.
    #[error("a proof for place {place}, from which no card was dealt")]
    PlaceNotDealt {
        /// The place.
        place: u16,
    },
    /// A proof opens a burn card.
    #[error("a proof opens the burn card at place {place}")]
    BurnProved {
        /// The place.
        place: u16,
    },
    /// A proof's position is not the permutation's at its place.
    #[error("the card at place {place} claims position {claimed}; the permutation puts position {expected} there")]
    Position {
        /// The place.
        place: u16,
        /// The position the proof gives.
        claimed: u8,
        /// The position the permutation gives.
        expected: u8,
    },
    /// The card, its salt and its path do not lead to the root.
    #[error("the card at place {place} ({card}) is not in the committed deck: its leaf and path do not lead to the root")]
    Path {
        /// The place.
        place: u16,
        /// The card claimed.
        card: Card,
    },
    /// The proof opens another card than the record shows at that place.
    #[error("the record shows {recorded} at place {place}, the proof opens {proved}")]
    CardMismatch {
        /// The place.
        place: u16,
        /// What the record shows.
        recorded: Card,
        /// What the proof opens.
        proved: Card,
    },
    /// A proof of a card the record does not show.
    #[error("a proof of {card} at place {place}, which the record does not show")]
    NotShown {
        /// The place.
        place: u16,
        /// The card.
        card: Card,
    },
    /// A card the record shows has no proof.
    #[error("the record shows {card} at place {place} without a proof")]
    Unproved {
        /// The place.
        place: u16,
        /// The card.
        card: Card,
    },
    /// A shown card has no proof from its owner's places.
    #[error("player {player} showed {card}, and no proof opens it from their cards")]
    ShownUnproved {
        /// The player's index in the hand.
        player: usize,
        /// The card.
        card: Card,
    },
    /// The server's deck record is damaged (making proofs).
    #[error("the deck record: {0}")]
    Deck(#[from] DeckError),
}

/// A hand's record as a player (or the operator) downloads it, as far as the check needs:
/// `/api/me/hands/{id}?format=replay` and `/admin/hands/{id}?format=replay`.
#[derive(Clone, Debug, Deserialize)]
pub struct Record {
    /// The hand.
    pub hand_id: HandId,
    /// Each player's seat (0-based), by index in the hand.
    pub seats: Vec<u32>,
    /// The viewer's index in the hand (none for the operator).
    #[serde(default)]
    pub me: Option<usize>,
    /// The hand's events as the viewer saw them.
    pub events: Vec<Event>,
    /// The deck's proofs.
    pub fairness: HandProof,
}

/// What a successful check covered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verified {
    /// Cards proved.
    pub cards: usize,
    /// Seeds used.
    pub seeds: usize,
    /// Reshuffles.
    pub reshuffles: usize,
    /// Cards taken from the deck in all (burn cards included).
    pub dealt: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Burn,
    Hole { player: usize, up: bool },
    Board,
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    kind: Kind,
    card: Card,
    position: u8,
}

/// The places of a hand, from its events.
struct Walk {
    slots: Vec<Slot>,
    /// Each hand shown: the player and the cards.
    shown: Vec<(usize, Vec<Card>)>,
    /// The places each player holds at the end (exact when the events show every card).
    holes: Vec<Vec<usize>>,
}

struct Walker<'a> {
    size: usize,
    key: Digest,
    deal: Vec<u8>,
    lists: &'a [Vec<u8>],
    /// The permuted order of each reshuffle made so far.
    segments: Vec<Vec<u8>>,
    remaining: usize,
    /// Positions dealt to a hand and not back in the deck.
    out: [bool; 256],
    discarded: usize,
    discards_known: Vec<u8>,
    walk: Walk,
}

impl Walker<'_> {
    fn position(&self, place: usize) -> u8 {
        if place < self.size {
            return self.deal[place];
        }
        let mut p = place - self.size;
        for seg in &self.segments {
            if p < seg.len() {
                return seg[p];
            }
            p -= seg.len();
        }
        unreachable!("a place within the cards the deck had")
    }

    fn reshuffle(&mut self) -> Result<(), VerifyError> {
        let round = self.segments.len() + 1;
        let list = self
            .lists
            .get(round - 1)
            .ok_or(VerifyError::ReshuffleMissing)?;
        if list.windows(2).any(|w| w[0] >= w[1]) {
            return Err(VerifyError::ReshuffleOrder { round });
        }
        if list.len() != self.discarded {
            return Err(VerifyError::ReshuffleCount {
                round,
                listed: list.len(),
                discarded: self.discarded,
            });
        }
        for &position in list {
            if !self.out[position as usize] {
                return Err(VerifyError::ReshuffleCard { round, position });
            }
        }
        if let Some(&position) = self.discards_known.iter().find(|p| !list.contains(p)) {
            return Err(VerifyError::ReshuffleMissesDiscard { round, position });
        }
        for &position in list {
            self.out[position as usize] = false;
        }
        let round_byte = u8::try_from(round).map_err(|_| VerifyError::ReshuffleMissing)?;
        self.segments
            .push(reshuffle_order(&self.key, round_byte, list));
        self.remaining += list.len();
        self.discarded = 0;
        self.discards_known.clear();
        Ok(())
    }

    fn take(&mut self, kind: Kind, cards: &[Card], up: u8) -> Result<(), VerifyError> {
        let count = cards.len();
        if count > self.remaining {
            self.reshuffle()?;
            if count > self.remaining {
                return Err(VerifyError::DeckExhausted);
            }
        }
        if kind == Kind::Board && count < self.remaining {
            self.slot(Kind::Burn, Card::UNKNOWN);
        }
        for (k, &card) in cards.iter().enumerate() {
            let kind = match kind {
                Kind::Hole { player, .. } => Kind::Hole {
                    player,
                    up: up >> k & 1 == 1,
                },
                other => other,
            };
            self.slot(kind, card);
        }
        Ok(())
    }

    fn slot(&mut self, kind: Kind, card: Card) {
        let place = self.walk.slots.len();
        let position = self.position(place);
        if let Kind::Hole { player, .. } = kind {
            self.out[position as usize] = true;
            if self.walk.holes.len() <= player {
                self.walk.holes.resize(player + 1, Vec::new());
            }
            self.walk.holes[player].push(place);
        }
        self.walk.slots.push(Slot {
            kind,
            card,
            position,
        });
        self.remaining -= 1;
    }

    fn discard(&mut self, player: usize, cards: &[Card]) {
        self.discarded += cards.len();
        for &card in cards.iter().filter(|c| c.is_known()) {
            let Some(held) = self.walk.holes.get_mut(player) else {
                continue;
            };
            let slots = &self.walk.slots;
            if let Some(i) = held.iter().rposition(|&p| slots[p].card == card) {
                let place = held.remove(i);
                self.discards_known.push(slots[place].position);
            }
        }
    }
}

/// Assigns every card taken from the deck its place and committed position.
fn walk(
    events: &[Event],
    size: usize,
    key: &Digest,
    lists: &[Vec<u8>],
) -> Result<Walk, VerifyError> {
    let mut w = Walker {
        size,
        key: *key,
        deal: deal_order(key, size),
        lists,
        segments: Vec::new(),
        remaining: size,
        out: [false; 256],
        discarded: 0,
        discards_known: Vec::new(),
        walk: Walk {
            slots: Vec::new(),
            shown: Vec::new(),
            holes: Vec::new(),
        },
    };
    for e in events {
        match e {
            Event::HoleDealt { player, cards, up } => w.take(
                Kind::Hole {
                    player: *player,
                    up: false,
                },
                cards,
                *up,
            )?,
            Event::BoardDealt { cards } | Event::SecondBoardDealt { cards } => {
                w.take(Kind::Board, cards, 0)?
            }
            Event::Discarded { player, cards } => w.discard(*player, cards),
            Event::Shown { player, cards } => w.walk.shown.push((*player, cards.to_vec())),
            _ => {}
        }
    }
    if w.segments.len() != lists.len() {
        return Err(VerifyError::ReshuffleUnused {
            listed: lists.len(),
            made: w.segments.len(),
        });
    }
    Ok(w.walk)
}

/// The proofs of what `viewer` saw in a hand, from the server's record of its deck and
/// the hand's events (every card known, as the table played it).
pub fn prove(
    record: &DeckRecord,
    events: &[Event],
    viewer: Viewer,
) -> Result<HandProof, VerifyError> {
    let deck = record.deck()?;
    let dealing = record.dealing(&deck);
    prove_deck(&deck, &dealing, events, viewer)
}

/// [`prove`] from the committed deck and its dealing, as the table holds them.
pub fn prove_deck(
    deck: &CommittedDeck,
    dealing: &Dealing,
    events: &[Event],
    viewer: Viewer,
) -> Result<HandProof, VerifyError> {
    let commitment = deck.commitment();
    let walk = walk(events, deck.size(), &dealing.key, &dealing.reshuffles)?;
    for (place, slot) in walk.slots.iter().enumerate() {
        let committed = deck.card(slot.position);
        if slot.kind != Kind::Burn && slot.card != committed {
            return Err(VerifyError::CardMismatch {
                place: place as u16,
                recorded: slot.card,
                proved: committed,
            });
        }
    }
    let mut places = BTreeSet::new();
    for (place, slot) in walk.slots.iter().enumerate() {
        let seen = match (viewer, slot.kind) {
            (_, Kind::Burn) => false,
            (Viewer::Operator, _) | (_, Kind::Board) => true,
            (Viewer::Player(me), Kind::Hole { player, up }) => player == me || up,
        };
        if seen {
            places.insert(place);
        }
    }
    for (player, cards) in &walk.shown {
        let held = walk.holes.get(*player).map(Vec::as_slice).unwrap_or(&[]);
        for card in cards {
            if let Some(&place) = held.iter().find(|&&p| walk.slots[p].card == *card) {
                places.insert(place);
            }
        }
    }
    let cards = places
        .into_iter()
        .map(|place| {
            let position = walk.slots[place].position;
            let (card, salt, path) = deck.opening(position);
            CardProof {
                place: place as u16,
                position,
                card,
                salt,
                path,
            }
        })
        .collect();
    Ok(HandProof {
        version: VERSION,
        hand_id: commitment.hand_id,
        size: commitment.size,
        root: commitment.root,
        commitment: commitment.commitment,
        seeds: dealing.seeds.clone(),
        reshuffles: dealing.reshuffles.clone(),
        cards,
    })
}

/// Checks a hand's record: the commitment, the seeds, the permutation, the reshuffles and
/// every proof, and that every card the record shows is proved (and nothing else). With
/// `my_seed`, also that the viewer's own seed was counted.
pub fn verify(record: &Record, my_seed: Option<&Seed>) -> Result<Verified, VerifyError> {
    let f = &record.fairness;
    if f.version != VERSION {
        return Err(VerifyError::Version(f.version));
    }
    if f.hand_id != record.hand_id {
        return Err(VerifyError::HandId {
            record: record.hand_id,
            proof: f.hand_id,
        });
    }
    if f.size != 52 && f.size != 36 {
        return Err(VerifyError::Size(f.size));
    }
    if commitment_digest(&f.hand_id, f.size, &f.root) != f.commitment {
        return Err(VerifyError::Commitment);
    }
    if f.seeds.windows(2).any(|w| w[0].seat >= w[1].seat) {
        return Err(VerifyError::SeedOrder);
    }
    if let Some(s) = f
        .seeds
        .iter()
        .find(|s| !record.seats.contains(&u32::from(s.seat)))
    {
        return Err(VerifyError::SeedSeat(s.seat));
    }
    if let (Some(seed), Some(me)) = (my_seed, record.me) {
        let seat = record.seats.get(me).copied().unwrap_or(u32::MAX);
        if !f
            .seeds
            .iter()
            .any(|s| u32::from(s.seat) == seat && s.seed == *seed)
        {
            return Err(VerifyError::OwnSeed { seat });
        }
    }
    let key = shuffle_key(&f.commitment, &f.seeds);
    let walk = walk(&record.events, f.size as usize, &key, &f.reshuffles)?;
    if f.cards.windows(2).any(|w| w[0].place >= w[1].place) {
        return Err(VerifyError::PlaceOrder);
    }
    for p in &f.cards {
        let slot = walk
            .slots
            .get(p.place as usize)
            .ok_or(VerifyError::PlaceNotDealt { place: p.place })?;
        if slot.kind == Kind::Burn {
            return Err(VerifyError::BurnProved { place: p.place });
        }
        if p.position != slot.position {
            return Err(VerifyError::Position {
                place: p.place,
                claimed: p.position,
                expected: slot.position,
            });
        }
        let leaf = leaf_hash(p.position, p.card, &p.salt);
        if !verify_path(
            p.position as usize,
            f.size as usize,
            &leaf,
            &p.path,
            &f.root,
        ) {
            return Err(VerifyError::Path {
                place: p.place,
                card: p.card,
            });
        }
        if slot.card.is_known() {
            if slot.card != p.card {
                return Err(VerifyError::CardMismatch {
                    place: p.place,
                    recorded: slot.card,
                    proved: p.card,
                });
            }
        } else {
            let shown = match slot.kind {
                Kind::Hole { player, .. } => walk
                    .shown
                    .iter()
                    .any(|(who, cards)| *who == player && cards.contains(&p.card)),
                _ => false,
            };
            if !shown {
                return Err(VerifyError::NotShown {
                    place: p.place,
                    card: p.card,
                });
            }
        }
    }
    let proved = |place: usize| f.cards.iter().any(|p| p.place as usize == place);
    for (place, slot) in walk.slots.iter().enumerate() {
        if slot.kind != Kind::Burn && slot.card.is_known() && !proved(place) {
            return Err(VerifyError::Unproved {
                place: place as u16,
                card: slot.card,
            });
        }
    }
    for (player, cards) in &walk.shown {
        for &card in cards {
            let covered = f.cards.iter().any(|p| {
                p.card == card
                    && matches!(walk.slots[p.place as usize].kind, Kind::Hole { player: q, .. } if q == *player)
            });
            if !covered {
                return Err(VerifyError::ShownUnproved {
                    player: *player,
                    card,
                });
            }
        }
    }
    Ok(Verified {
        cards: f.cards.len(),
        seeds: f.seeds.len(),
        reshuffles: f.reshuffles.len(),
        dealt: walk.slots.len(),
    })
}

#[doc(hidden)]
pub mod testing;

#[cfg(test)]
mod tests;
