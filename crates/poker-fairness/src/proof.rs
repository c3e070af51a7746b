//! Proofs of the cards a player saw, and their check (version 2).
//!
//! Every card taken from the deck comes from a *slot* of a *round*: round 0 is the deal,
//! whose slots are taken in order (burn cards included); round `r` is the `r`-th
//! reshuffle of a draw game, which takes the slots of its round that hold the discards, in
//! ascending order, and puts them under the stub. Which round and slot each card taken
//! comes from follows from public facts only: the hand's deal events in order, the rule
//! that a board deal burns one card first when the stub holds more than it needs, and the
//! reshuffles' lists of slots. A slot's card is fixed by the seeds' order of the round's
//! committed tags, and a tag's card by its opening (nonce and Merkle path).
//!
//! Accounting: a reshuffle must take exactly the discards. Each player's proofs open, in
//! every reshuffle's round, each card they held (or were still to be dealt from the old
//! stub) when it was made, showing that its tag is not among the slots taken. Nobody
//! learns where their own discards went: no proof opens a discard in the round that
//! reshuffles it.
//!
//! [`prove`] makes a player's proofs (or the operator's, every card dealt) from the
//! server's [`DeckRecord`] and the hand's events; [`verify`] checks a hand's record as a
//! player downloads it: its events (others' down cards unknown) and its [`HandProof`].

use crate::bytes::{Digest, Seed};
use crate::deck::{
    card_number, commitment_digest, leaf_hash, tag_hash, tags_digest, CommittedDeck, Dealing,
    DeckError, DeckRecord, Nonce, RoundCommitment,
};
use crate::merkle::verify_path;
use crate::seeds::{list_digest, seed_commitment, SeatSeed, SeedCommit};
use crate::shuffle::{round_order, shuffle_key};
use poker_ids::HandId;
use poker_rules::{Card, Event};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// The version of the construction this module makes and checks (the deck's).
pub use crate::deck::VERSION;

/// The opening of one card the viewer saw, where it was dealt from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardProof {
    /// The round it was dealt from (0: the deal; `r`: the `r`-th reshuffle).
    pub round: u8,
    /// Its slot in that round.
    pub slot: u8,
    /// The card.
    pub card: Card,
    /// Its nonce in that round.
    pub nonce: Nonce,
    /// Its leaf's inclusion proof in the round's tree (siblings from the leaf up).
    pub path: Vec<Digest>,
}

/// The opening of a card the viewer knows in a reshuffle's round, showing that the
/// reshuffle did not take it (it was held, or still in the stub).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptProof {
    /// The reshuffle's round.
    pub round: u8,
    /// The card.
    pub card: Card,
    /// Its nonce in that round.
    pub nonce: Nonce,
    /// Its leaf's inclusion proof in the round's tree.
    pub path: Vec<Digest>,
}

/// A hand's deck as one viewer may check it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandProof {
    /// The construction's version ([`VERSION`]).
    pub version: u8,
    /// The hand.
    pub hand_id: HandId,
    /// Cards in the deck.
    pub size: u8,
    /// Every round's root and tags digest, as committed.
    pub rounds: Vec<RoundCommitment>,
    /// The commitment published before the seeds were taken.
    pub commitment: Digest,
    /// The closed list of seed commitments, by ascending seat.
    pub seed_list: Vec<SeedCommit>,
    /// Every seed used, by ascending seat.
    pub seeds: Vec<SeatSeed>,
    /// Each reshuffle's slots of its round, ascending (draw games).
    pub reshuffles: Vec<Vec<u8>>,
    /// For each discard of the hand, in order: which of the player's cards it threw away,
    /// as their numbers in the order dealt to that player (from 0), ascending.
    pub discards: Vec<Vec<u8>>,
    /// The sorted tags of each round dealt from (the deal, then each reshuffle made).
    pub tags: Vec<Vec<Digest>>,
    /// The openings of the cards the viewer saw, by ascending round and slot.
    pub cards: Vec<CardProof>,
    /// The openings that show each reshuffle left the viewer's cards alone, by ascending
    /// round and card number.
    pub kept: Vec<KeptProof>,
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

/// What the viewer knows of their own seed for the check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MySeed {
    /// Nothing: the seeds are checked as they stand.
    Unknown,
    /// The viewer sent this seed (and, when kept, was sent the closed list with this
    /// digest before revealing it): it must be the one used at their seat, under that
    /// list.
    Sent {
        /// The seed.
        seed: Seed,
        /// The digest of the closed list the viewer was sent before revealing.
        list: Option<Digest>,
    },
    /// The viewer sent none: no seed may be listed at their seat.
    None,
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
    /// No round, or more than 16.
    #[error("the commitment has {0} rounds")]
    Rounds(usize),
    /// The commitment is not made of the hand, the size and the rounds.
    #[error("the commitment is not the hash of the hand id, the deck size and the rounds")]
    Commitment,
    /// Seeds or commitments not listed once each by ascending seat.
    #[error("the seeds and their commitments are not listed once each, by ascending seat")]
    SeedOrder,
    /// A seed from a seat that was not dealt in.
    #[error("a seed from seat {0}, which was not dealt in")]
    SeedSeat(u8),
    /// A seed that does not open its seat's commitment (or whose seat committed none).
    #[error("the seed of seat {0} does not open a commitment of the closed list")]
    SeedOpen(u8),
    /// A house seat dealt in committed a seed and did not reveal it.
    #[error("the house committed a seed at seat {0} and did not reveal it: it could have chosen whether it counted")]
    HouseWithheld(u8),
    /// The viewer's own seed is not among those used.
    #[error("your seed was not used (seat {seat})")]
    OwnSeed {
        /// The viewer's seat.
        seat: u32,
    },
    /// A card the viewer saw written unknown (`??`): their own, one dealt face up, the
    /// board's, or any in the operator's record.
    #[error("{0} is written unknown (??), and the record must show it")]
    Format(String),
    /// The viewer's own seed checked on a record with no viewer (the operator's).
    #[error("a record with no viewer (the operator's): there is no seed of yours to check")]
    NoViewer,
    /// The closed list is not the one the viewer was sent before revealing their seed.
    #[error(
        "the list of seed commitments is not the one you were sent before revealing your seed"
    )]
    ListChanged,
    /// A seed or commitment at the viewer's seat, who sent none.
    #[error("a seed is listed at your seat (seat {seat}), and you sent none")]
    SeedInMyName {
        /// The viewer's seat.
        seat: u32,
    },
    /// The tags of the rounds dealt from are not all given, or do not match.
    #[error(
        "the tags of round {round} are not the committed ones, or not {size} in ascending order"
    )]
    Tags {
        /// The round.
        round: usize,
        /// The deck's size.
        size: u8,
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
    /// A reshuffle's slots are not ascending, repeat one, or are off the deck.
    #[error("reshuffle {round} does not list its slots once each in ascending order")]
    ReshuffleOrder {
        /// The reshuffle (from 1).
        round: usize,
    },
    /// A reshuffle does not take as many cards as were discarded before it.
    #[error("reshuffle {round} takes {listed} cards; {discarded} were discarded before it")]
    ReshuffleCount {
        /// The reshuffle (from 1).
        round: usize,
        /// Slots it lists.
        listed: usize,
        /// Cards discarded since the last one.
        discarded: usize,
    },
    /// A reshuffle takes a card that was held or still in the stub.
    #[error(
        "reshuffle {round} takes {card}, which was not discarded (held, or still in the stub)"
    )]
    ReshuffleTookKept {
        /// The reshuffle (from 1).
        round: usize,
        /// The card.
        card: Card,
    },
    /// A deal needs more cards than the deck holds even after a reshuffle.
    #[error("the deal runs out of cards")]
    DeckExhausted,
    /// The record's discards are not one list per discard, each naming cards the player
    /// held, as many as were thrown away.
    #[error("discard {index} does not name {count} cards that player {player} held, ascending")]
    Discard {
        /// The discard (from 0, in the hand's order).
        index: usize,
        /// Its player.
        player: usize,
        /// How many cards it threw away.
        count: usize,
    },
    /// A discard names other cards than the viewer threw away.
    #[error("discard {index} names other cards than you threw away")]
    DiscardCards {
        /// The discard.
        index: usize,
    },
    /// Proofs not listed once each in order.
    #[error("the proofs are not listed once each in ascending order")]
    ProofOrder,
    /// A proof for a slot no card was dealt from.
    #[error("a proof for round {round} slot {slot}, from which no card was dealt")]
    SlotNotDealt {
        /// The round.
        round: u8,
        /// The slot.
        slot: u8,
    },
    /// A proof opens a burn card.
    #[error("a proof opens the burn card at round {round} slot {slot}")]
    BurnProved {
        /// The round.
        round: u8,
        /// The slot.
        slot: u8,
    },
    /// The card, its nonce and its path do not lead to the round's root.
    #[error("{card} in round {round} is not in the committed deck: its leaf and path do not lead to the root")]
    Path {
        /// The round.
        round: u8,
        /// The card claimed.
        card: Card,
    },
    /// The card's tag is not the one the seeds' order puts at its slot.
    #[error("{card} is not the card at round {round} slot {slot}: its tag is not the one there")]
    Tag {
        /// The round.
        round: u8,
        /// The slot.
        slot: u8,
        /// The card claimed.
        card: Card,
    },
    /// A card's tag is not among its round's committed tags.
    #[error("the tag of {card} in round {round} is not among the committed tags")]
    TagUnknown {
        /// The round.
        round: u8,
        /// The card.
        card: Card,
    },
    /// The proof opens another card than the record shows there.
    #[error("the record shows {recorded} at round {round} slot {slot}, the proof opens {proved}")]
    CardMismatch {
        /// The round.
        round: u8,
        /// The slot.
        slot: u8,
        /// What the record shows.
        recorded: Card,
        /// What the proof opens.
        proved: Card,
    },
    /// A proof of a card the viewer did not see.
    #[error("a proof of {card} at round {round} slot {slot}, a card you did not see")]
    NotShown {
        /// The round.
        round: u8,
        /// The slot.
        slot: u8,
        /// The card.
        card: Card,
    },
    /// A card the record shows has no proof.
    #[error("the record shows {card} (round {round} slot {slot}) without a proof")]
    Unproved {
        /// The round.
        round: u8,
        /// The slot.
        slot: u8,
        /// The card.
        card: Card,
    },
    /// A hand shown is not the cards its player held at the end.
    #[error("player {player} showed {shown}, and the cards they held at the end are not those")]
    ShownNotHeld {
        /// The player's index in the hand.
        player: usize,
        /// The cards shown.
        shown: String,
    },
    /// A reshuffle's opening of a card the viewer did not hold then.
    #[error("an opening of {card} in round {round}, which the reshuffle does not concern for you")]
    KeptUnexpected {
        /// The round.
        round: u8,
        /// The card.
        card: Card,
    },
    /// A card the viewer held through a reshuffle has no opening in its round.
    #[error("no opening shows reshuffle {round} left {card} alone")]
    KeptMissing {
        /// The round.
        round: u8,
        /// The card.
        card: Card,
    },
    /// The server's deck record is damaged (making proofs).
    #[error("the deck record: {0}")]
    Deck(#[from] DeckError),
}

impl VerifyError {
    /// A stable name for the error, the same in every verifier (`docs/fairness/vectors.json`
    /// names the error each forged record must give by it).
    pub fn code(&self) -> &'static str {
        match self {
            VerifyError::Version { .. } => "version",
            VerifyError::HandId { .. } => "hand_id",
            VerifyError::Size { .. } => "size",
            VerifyError::Rounds { .. } => "rounds",
            VerifyError::Commitment => "commitment",
            VerifyError::SeedOrder => "seed_order",
            VerifyError::SeedSeat { .. } => "seed_seat",
            VerifyError::SeedOpen { .. } => "seed_open",
            VerifyError::HouseWithheld { .. } => "house_withheld",
            VerifyError::OwnSeed { .. } => "own_seed",
            VerifyError::Format(_) => "format",
            VerifyError::NoViewer => "no_viewer",
            VerifyError::ListChanged => "list_changed",
            VerifyError::SeedInMyName { .. } => "seed_in_my_name",
            VerifyError::Tags { .. } => "tags",
            VerifyError::ReshuffleMissing => "reshuffle_missing",
            VerifyError::ReshuffleUnused { .. } => "reshuffle_unused",
            VerifyError::ReshuffleOrder { .. } => "reshuffle_order",
            VerifyError::ReshuffleCount { .. } => "reshuffle_count",
            VerifyError::ReshuffleTookKept { .. } => "reshuffle_took_kept",
            VerifyError::DeckExhausted => "deck_exhausted",
            VerifyError::Discard { .. } => "discard",
            VerifyError::DiscardCards { .. } => "discard_cards",
            VerifyError::ProofOrder => "proof_order",
            VerifyError::SlotNotDealt { .. } => "slot_not_dealt",
            VerifyError::BurnProved { .. } => "burn_proved",
            VerifyError::Path { .. } => "path",
            VerifyError::Tag { .. } => "tag",
            VerifyError::TagUnknown { .. } => "tag_unknown",
            VerifyError::CardMismatch { .. } => "card_mismatch",
            VerifyError::NotShown { .. } => "not_shown",
            VerifyError::Unproved { .. } => "unproved",
            VerifyError::ShownNotHeld { .. } => "shown_not_held",
            VerifyError::KeptUnexpected { .. } => "kept_unexpected",
            VerifyError::KeptMissing { .. } => "kept_missing",
            VerifyError::Deck { .. } => "deck",
        }
    }
}

/// A hand's record as a player (or the operator) downloads it, as far as the check needs:
/// `/api/me/hands/{id}?format=replay` and `/admin/hands/{id}?format=replay`.
#[derive(Clone, Debug, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    /// Cards proved.
    pub cards: usize,
    /// Openings showing reshuffles left the viewer's cards alone.
    pub kept: usize,
    /// Seeds used.
    pub seeds: usize,
    /// Of them, the house's.
    pub house_seeds: usize,
    /// Seeds used from seats that are not the house's.
    pub player_seeds: usize,
    /// Seats that committed a seed and did not reveal it (players' only: the house's
    /// fail the check).
    pub unrevealed: Vec<u8>,
    /// Reshuffles.
    pub reshuffles: usize,
    /// Cards taken from the deck in all (burn cards included).
    pub dealt: usize,
    /// Whether the viewer's own seed was checked and used.
    pub my_seed_used: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Burn,
    Hole { player: usize, up: bool },
    Board,
}

/// One card taken from the deck, in the order taken.
#[derive(Clone, Copy, Debug)]
struct Taken {
    kind: Kind,
    card: Card,
    round: u8,
    slot: u8,
    /// How many reshuffles were made when it left its holder (discarded); `None`: held
    /// to the end (or a board card).
    until: Option<usize>,
}

/// The hand's cards taken, from its events.
struct Walk {
    taken: Vec<Taken>,
    /// Each hand shown: the player and the cards.
    shown: Vec<(usize, Vec<Card>)>,
    /// Each player's cards, as indexes into `taken` in the order dealt to them.
    receipts: Vec<Vec<usize>>,
    /// Each discard's numbers (into the player's receipts).
    discards: Vec<Vec<u8>>,
    /// Reshuffles made.
    made: usize,
}

impl Walk {
    /// The indexes into `taken` a player holds at the end.
    fn held(&self, player: usize) -> Vec<usize> {
        self.receipts
            .get(player)
            .map(|r| {
                r.iter()
                    .copied()
                    .filter(|&t| self.taken[t].until.is_none())
                    .collect()
            })
            .unwrap_or_default()
    }
}

struct Walker<'a> {
    size: usize,
    lists: &'a [Vec<u8>],
    given: Option<&'a [Vec<u8>]>,
    queue: VecDeque<(u8, u8)>,
    discarded: usize,
    walk: Walk,
}

impl Walker<'_> {
    fn reshuffle(&mut self) -> Result<(), VerifyError> {
        let round = self.walk.made + 1;
        let list = self
            .lists
            .get(round - 1)
            .ok_or(VerifyError::ReshuffleMissing)?;
        if list.windows(2).any(|w| w[0] >= w[1]) || list.iter().any(|&s| s as usize >= self.size) {
            return Err(VerifyError::ReshuffleOrder { round });
        }
        if list.len() != self.discarded {
            return Err(VerifyError::ReshuffleCount {
                round,
                listed: list.len(),
                discarded: self.discarded,
            });
        }
        let r = u8::try_from(round).map_err(|_| VerifyError::ReshuffleMissing)?;
        self.queue.extend(list.iter().map(|&slot| (r, slot)));
        self.walk.made = round;
        self.discarded = 0;
        Ok(())
    }

    fn take(&mut self, kind: Kind, cards: &[Card], up: u8) -> Result<(), VerifyError> {
        let count = cards.len();
        if count > self.queue.len() {
            self.reshuffle()?;
            if count > self.queue.len() {
                return Err(VerifyError::DeckExhausted);
            }
        }
        if kind == Kind::Board && count < self.queue.len() {
            self.push(Kind::Burn, Card::UNKNOWN);
        }
        for (k, &card) in cards.iter().enumerate() {
            let kind = match kind {
                Kind::Hole { player, .. } => Kind::Hole {
                    player,
                    up: up >> k & 1 == 1,
                },
                other => other,
            };
            self.push(kind, card);
        }
        Ok(())
    }

    fn push(&mut self, kind: Kind, card: Card) {
        let (round, slot) = self.queue.pop_front().expect("counted before");
        let index = self.walk.taken.len();
        if let Kind::Hole { player, .. } = kind {
            if self.walk.receipts.len() <= player {
                self.walk.receipts.resize(player + 1, Vec::new());
            }
            self.walk.receipts[player].push(index);
        }
        self.walk.taken.push(Taken {
            kind,
            card,
            round,
            slot,
            until: None,
        });
    }

    fn discard(&mut self, player: usize, cards: &[Card]) -> Result<(), VerifyError> {
        let index = self.walk.discards.len();
        let bad = VerifyError::Discard {
            index,
            player,
            count: cards.len(),
        };
        let receipts = self.walk.receipts.get(player).cloned().unwrap_or_default();
        let taken = &self.walk.taken;
        let holds = |n: u8| {
            receipts
                .get(n as usize)
                .is_some_and(|&t| taken[t].until.is_none())
        };
        let numbers: Vec<u8> = match self.given {
            Some(given) => {
                let list = given.get(index).ok_or(bad.clone())?;
                if list.len() != cards.len()
                    || list.windows(2).any(|w| w[0] >= w[1])
                    || !list.iter().all(|&n| holds(n))
                {
                    return Err(bad);
                }
                if cards.iter().any(|c| c.is_known()) {
                    let mut named: Vec<Card> = list
                        .iter()
                        .map(|&n| taken[receipts[n as usize]].card)
                        .collect();
                    let mut thrown = cards.to_vec();
                    named.sort();
                    thrown.sort();
                    if named != thrown {
                        return Err(VerifyError::DiscardCards { index });
                    }
                }
                list.clone()
            }
            None => {
                // Making proofs: every card is known; each discard is the held card it is.
                let mut numbers = Vec::new();
                for &card in cards {
                    let n = (0..receipts.len() as u8)
                        .find(|&n| {
                            holds(n)
                                && !numbers.contains(&n)
                                && taken[receipts[n as usize]].card == card
                        })
                        .ok_or(bad.clone())?;
                    numbers.push(n);
                }
                numbers.sort_unstable();
                numbers
            }
        };
        for &n in &numbers {
            self.walk.taken[receipts[n as usize]].until = Some(self.walk.made);
        }
        self.discarded += cards.len();
        self.walk.discards.push(numbers);
        Ok(())
    }
}

/// Assigns every card taken from the deck its round and slot; `given`: the record's
/// discards (checking), or `None` to work them out from the cards (making proofs).
fn walk(
    events: &[Event],
    size: usize,
    lists: &[Vec<u8>],
    given: Option<&[Vec<u8>]>,
) -> Result<Walk, VerifyError> {
    let mut w = Walker {
        size,
        lists,
        given,
        queue: (0..size as u8).map(|slot| (0, slot)).collect(),
        discarded: 0,
        walk: Walk {
            taken: Vec::new(),
            shown: Vec::new(),
            receipts: Vec::new(),
            discards: Vec::new(),
            made: 0,
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
            Event::Discarded { player, cards } => w.discard(*player, cards)?,
            Event::Shown { player, cards } => w.walk.shown.push((*player, cards.to_vec())),
            _ => {}
        }
    }
    if w.walk.made != lists.len() {
        return Err(VerifyError::ReshuffleUnused {
            listed: lists.len(),
            made: w.walk.made,
        });
    }
    if let Some(given) = given {
        if given.len() != w.walk.discards.len() {
            return Err(VerifyError::Discard {
                index: w.walk.discards.len(),
                player: 0,
                count: 0,
            });
        }
    }
    Ok(w.walk)
}

/// The cards of the walk the viewer sees (indexes into `taken`): with all cards known
/// (making proofs), the viewer's own, the board, face-up cards, and what players who
/// showed held at the end; the operator, every card but the burns.
fn seen(walk: &Walk, viewer: Viewer) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    for (i, t) in walk.taken.iter().enumerate() {
        let visible = match (viewer, t.kind) {
            (_, Kind::Burn) => false,
            (Viewer::Operator, _) | (_, Kind::Board) => true,
            (Viewer::Player(me), Kind::Hole { player, up }) => player == me || up,
        };
        if visible {
            out.insert(i);
        }
    }
    if viewer != Viewer::Operator {
        for (player, _) in &walk.shown {
            out.extend(walk.held(*player));
        }
    }
    out
}

/// The (round, card) openings that show each reshuffle left the cards in `seen` alone:
/// a card dealt from round `q` needs one in every round after `q` made before it was
/// discarded (or before the hand ended).
fn kept_needed(walk: &Walk, seen: &BTreeSet<usize>) -> BTreeSet<(u8, usize, usize)> {
    let mut out = BTreeSet::new();
    for &i in seen {
        let t = &walk.taken[i];
        let end = t.until.unwrap_or(walk.made);
        for r in (t.round as usize + 1)..=end {
            out.insert((r as u8, t.card.index(), i));
        }
    }
    out
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
    let size = deck.size();
    let walk = walk(events, size, &dealing.reshuffles, None)?;
    if walk.made >= deck.rounds() as usize {
        return Err(DeckError::TooManyReshuffles(deck.rounds()).into());
    }
    let orders: Vec<Vec<u8>> = (0..=walk.made as u8)
        .map(|r| round_order(&dealing.key, r, size))
        .collect();
    let tags: Vec<Vec<Digest>> = (0..=walk.made as u8)
        .map(|r| deck.tags(r).to_vec())
        .collect();
    // Every card the events show is the committed one at its round and slot.
    for t in walk.taken.iter().filter(|t| t.kind != Kind::Burn) {
        let tag = tags[t.round as usize][orders[t.round as usize][t.slot as usize] as usize];
        let (nonce, _) = deck.opening(t.round, t.card).ok_or(VerifyError::Path {
            round: t.round,
            card: t.card,
        })?;
        if tag_hash(t.round, t.card, &nonce) != tag {
            return Err(VerifyError::Tag {
                round: t.round,
                slot: t.slot,
                card: t.card,
            });
        }
    }
    let seen = seen(&walk, viewer);
    let opening = |round: u8, card: Card| {
        deck.opening(round, card)
            .ok_or(VerifyError::Path { round, card })
    };
    let mut cards = Vec::new();
    for &i in &seen {
        let t = &walk.taken[i];
        let (nonce, path) = opening(t.round, t.card)?;
        cards.push(CardProof {
            round: t.round,
            slot: t.slot,
            card: t.card,
            nonce,
            path,
        });
    }
    cards.sort_by_key(|c| (c.round, c.slot));
    let mut kept = Vec::new();
    for (round, _, i) in kept_needed(&walk, &seen) {
        let card = walk.taken[i].card;
        let (nonce, path) = opening(round, card)?;
        kept.push(KeptProof {
            round,
            card,
            nonce,
            path,
        });
    }
    let commitment = deck.commitment();
    Ok(HandProof {
        version: VERSION,
        hand_id: commitment.hand_id,
        size: commitment.size,
        rounds: deck.round_commitments(),
        commitment: commitment.commitment,
        seed_list: dealing.seed_list.clone(),
        seeds: dealing.seeds.clone(),
        reshuffles: dealing.reshuffles.clone(),
        discards: walk.discards,
        tags,
        cards,
        kept,
    })
}

/// Checks the seeds: both lists by ascending seat, every seed used from a seat dealt in
/// that committed to it, every house seat dealt in revealed, and the viewer's own.
fn check_seeds(record: &Record, mine: MySeed) -> Result<(Vec<u8>, usize, bool), VerifyError> {
    let f = &record.fairness;
    if f.seed_list.windows(2).any(|w| w[0].seat >= w[1].seat)
        || f.seeds.windows(2).any(|w| w[0].seat >= w[1].seat)
    {
        return Err(VerifyError::SeedOrder);
    }
    let dealt_in = |seat: u8| record.seats.contains(&u32::from(seat));
    for s in &f.seeds {
        if !dealt_in(s.seat) {
            return Err(VerifyError::SeedSeat(s.seat));
        }
        let committed = f.seed_list.iter().find(|c| c.seat == s.seat);
        if committed.is_none_or(|c| c.commitment != seed_commitment(&f.commitment, &s.seed)) {
            return Err(VerifyError::SeedOpen(s.seat));
        }
    }
    let revealed = |seat: u8| f.seeds.iter().any(|s| s.seat == seat);
    let mut unrevealed = Vec::new();
    let mut house = 0;
    for c in f.seed_list.iter().filter(|c| dealt_in(c.seat)) {
        match (c.house, revealed(c.seat)) {
            (true, false) => return Err(VerifyError::HouseWithheld(c.seat)),
            (true, true) => house += 1,
            (false, false) => unrevealed.push(c.seat),
            (false, true) => {}
        }
    }
    let mut used = false;
    if record.me.is_none() && mine != MySeed::Unknown {
        return Err(VerifyError::NoViewer);
    }
    if let Some(me) = record.me {
        let seat = record.seats.get(me).copied().unwrap_or(u32::MAX);
        let at_mine = |s: u8| u32::from(s) == seat;
        match mine {
            MySeed::Sent { seed, list } => {
                if list.is_some_and(|l| l != list_digest(&f.commitment, &f.seed_list)) {
                    return Err(VerifyError::ListChanged);
                }
                if !f.seeds.iter().any(|s| at_mine(s.seat) && s.seed == seed) {
                    return Err(VerifyError::OwnSeed { seat });
                }
                used = true;
            }
            MySeed::None => {
                if f.seed_list.iter().any(|c| at_mine(c.seat)) {
                    return Err(VerifyError::SeedInMyName { seat });
                }
            }
            MySeed::Unknown => {}
        }
    }
    Ok((unrevealed, house, used))
}

/// Checks a hand's record: the commitment, the seeds, the rounds' tags, the walk of the
/// deal with its reshuffles and discards, every proof, that every card the record shows
/// is proved (and nothing else), that each hand shown is what its player held, and that
/// no reshuffle took a card the viewer held. With `mine`, also the viewer's own seed.
pub fn verify(record: &Record, mine: MySeed) -> Result<Verified, VerifyError> {
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
    let size = f.size as usize;
    if !(1..=16).contains(&f.rounds.len()) {
        return Err(VerifyError::Rounds(f.rounds.len()));
    }
    if commitment_digest(&f.hand_id, f.size, &f.rounds) != f.commitment {
        return Err(VerifyError::Commitment);
    }
    let (unrevealed, house_seeds, my_seed_used) = check_seeds(record, mine)?;
    let list = list_digest(&f.commitment, &f.seed_list);
    let key = shuffle_key(&f.commitment, &list, &f.seeds);
    if f.reshuffles.len() >= f.rounds.len() {
        return Err(VerifyError::ReshuffleUnused {
            listed: f.reshuffles.len(),
            made: f.rounds.len() - 1,
        });
    }
    let made = f.reshuffles.len();
    if f.tags.len() != made + 1 {
        return Err(VerifyError::Tags {
            round: f.tags.len().min(made + 1),
            size: f.size,
        });
    }
    for (r, tags) in f.tags.iter().enumerate() {
        if tags.len() != size
            || tags.windows(2).any(|w| w[0] >= w[1])
            || tags_digest(r as u8, tags) != f.rounds[r].tags
        {
            return Err(VerifyError::Tags {
                round: r,
                size: f.size,
            });
        }
    }
    let walk = walk(&record.events, size, &f.reshuffles, Some(&f.discards))?;
    // Every card the viewer saw is written: only another player's down cards are unknown.
    for t in &walk.taken {
        let may_hide = match (t.kind, record.me) {
            (Kind::Burn, _) => true,
            (Kind::Hole { player, up: false }, Some(me)) => player != me,
            _ => false,
        };
        if !t.card.is_known() && !may_hide {
            let what = match t.kind {
                Kind::Board => "a board card".to_string(),
                Kind::Hole { player, .. } if Some(player) == record.me => "your card".to_string(),
                Kind::Hole { player, .. } => format!("a card of player {player}"),
                Kind::Burn => unreachable!("burns may be hidden"),
            };
            return Err(VerifyError::Format(what));
        }
    }
    let orders: Vec<Vec<u8>> = (0..=made as u8)
        .map(|r| round_order(&key, r, size))
        .collect();
    // Where each card was taken from.
    let at: BTreeMap<(u8, u8), usize> = walk
        .taken
        .iter()
        .enumerate()
        .map(|(i, t)| ((t.round, t.slot), i))
        .collect();
    let opens = |round: u8, card: Card, nonce: &Nonce, path: &[Digest]| {
        let index = card_number(size, card).ok_or(VerifyError::Path { round, card })?;
        let root = &f.rounds[round as usize].root;
        if verify_path(index, size, &leaf_hash(round, card, nonce), path, root) {
            Ok(tag_hash(round, card, nonce))
        } else {
            Err(VerifyError::Path { round, card })
        }
    };
    if f.cards
        .windows(2)
        .any(|w| (w[0].round, w[0].slot) >= (w[1].round, w[1].slot))
    {
        return Err(VerifyError::ProofOrder);
    }
    // The card each proof opens, by index into the walk.
    let mut proved: BTreeMap<usize, Card> = BTreeMap::new();
    let shown_by = |player: usize| walk.shown.iter().any(|(p, _)| *p == player);
    for p in &f.cards {
        let (round, slot) = (p.round, p.slot);
        let &i = at
            .get(&(round, slot))
            .ok_or(VerifyError::SlotNotDealt { round, slot })?;
        let t = &walk.taken[i];
        if t.kind == Kind::Burn {
            return Err(VerifyError::BurnProved { round, slot });
        }
        let tag = opens(round, p.card, &p.nonce, &p.path)?;
        if tag != f.tags[round as usize][orders[round as usize][slot as usize] as usize] {
            return Err(VerifyError::Tag {
                round,
                slot,
                card: p.card,
            });
        }
        if t.card.is_known() {
            if t.card != p.card {
                return Err(VerifyError::CardMismatch {
                    round,
                    slot,
                    recorded: t.card,
                    proved: p.card,
                });
            }
        } else {
            let shown = match t.kind {
                Kind::Hole { player, .. } => shown_by(player) && t.until.is_none(),
                _ => false,
            };
            if !shown {
                return Err(VerifyError::NotShown {
                    round,
                    slot,
                    card: p.card,
                });
            }
        }
        proved.insert(i, p.card);
    }
    for (i, t) in walk.taken.iter().enumerate() {
        if t.kind != Kind::Burn && t.card.is_known() && !proved.contains_key(&i) {
            return Err(VerifyError::Unproved {
                round: t.round,
                slot: t.slot,
                card: t.card,
            });
        }
    }
    // A hand shown is exactly the cards its player held at the end.
    for (player, cards) in &walk.shown {
        let mut held = Vec::new();
        for i in walk.held(*player) {
            held.push(proved.get(&i).copied().unwrap_or(Card::UNKNOWN));
        }
        let mut shown = cards.clone();
        held.sort();
        shown.sort();
        if held != shown {
            return Err(VerifyError::ShownNotHeld {
                player: *player,
                shown: Card::format_many(cards),
            });
        }
    }
    // The reshuffles left alone every card the viewer knows while it was held or in the
    // stub: each has an opening in the reshuffle's round whose tag is at no slot it took.
    let known: BTreeSet<usize> = proved.keys().copied().collect();
    let mut needed: BTreeMap<(u8, usize), usize> = BTreeMap::new();
    for (round, _, i) in kept_needed(&walk, &known) {
        needed.insert((round, card_number(size, proved[&i]).unwrap_or(0)), i);
    }
    if f.kept
        .windows(2)
        .any(|w| (w[0].round, w[0].card.index()) >= (w[1].round, w[1].card.index()))
    {
        return Err(VerifyError::ProofOrder);
    }
    for k in &f.kept {
        let number = card_number(size, k.card).ok_or(VerifyError::Path {
            round: k.round,
            card: k.card,
        })?;
        let expected = needed
            .remove(&(k.round, number))
            .filter(|&i| proved[&i] == k.card);
        if expected.is_none() {
            return Err(VerifyError::KeptUnexpected {
                round: k.round,
                card: k.card,
            });
        }
        let tag = opens(k.round, k.card, &k.nonce, &k.path)?;
        let r = k.round as usize;
        let index = f.tags[r]
            .binary_search(&tag)
            .map_err(|_| VerifyError::TagUnknown {
                round: k.round,
                card: k.card,
            })?;
        let slot = orders[r]
            .iter()
            .position(|&x| x as usize == index)
            .expect("a permutation");
        if f.reshuffles[r - 1].contains(&(slot as u8)) {
            return Err(VerifyError::ReshuffleTookKept {
                round: r,
                card: k.card,
            });
        }
    }
    if let Some((&(round, _), &i)) = needed.iter().next() {
        return Err(VerifyError::KeptMissing {
            round,
            card: proved[&i],
        });
    }
    Ok(Verified {
        cards: f.cards.len(),
        kept: f.kept.len(),
        seeds: f.seeds.len(),
        house_seeds,
        player_seeds: f.seeds.len() - house_seeds,
        unrevealed,
        reshuffles: made,
        dealt: walk.taken.len(),
        my_seed_used,
    })
}

#[doc(hidden)]
pub mod testing;

#[doc(hidden)]
pub mod attacks;

#[cfg(test)]
mod tests;
