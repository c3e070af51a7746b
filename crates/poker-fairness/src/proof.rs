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
use crate::deck::{commitment_digest, CommittedDeck, Dealing, DeckError, DeckRecord};
use crate::merkle::{leaf_hash, verify_path};
use crate::shuffle::{deal_order, reshuffle_order, shuffle_key, SeatSeed};
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

/// Hands played by the engine with a committed deck, for the tests here and in the
/// server's: one hand of `game` for `players`, deterministic from `seed`.
#[doc(hidden)]
pub mod testing {
    use super::*;
    use crate::bytes::Bytes;
    use crate::deck::CommittedDeck;
    use poker_rules::{
        Action, CardSource, Cards, Decision, Game, Hand, HandConfig, HandOptions, SeatConfig,
        Stakes, Structure,
    };

    /// A small deterministic generator (splitmix64), so tests need no RNG crate.
    pub struct Mix(pub u64);

    impl Mix {
        /// The next number.
        pub fn word(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        /// A number below `n`.
        pub fn below(&mut self, n: u64) -> u64 {
            self.word() % n
        }

        /// `N` bytes.
        pub fn bytes<const N: usize>(&mut self) -> Bytes<N> {
            let mut b = [0u8; N];
            for x in b.iter_mut() {
                *x = self.word() as u8;
            }
            Bytes(b)
        }
    }

    /// A configuration: fixed limit for stud and draw games, no limit otherwise; stacks of
    /// 200, blinds 1/2 (antes and a bring-in in stud).
    pub fn config(game: Game, players: usize) -> HandConfig {
        let stud = game.opening() != poker_rules::game::Opening::Position;
        let structure = if stud || game.is_draw() {
            Structure::FixedLimit
        } else {
            Structure::NoLimit
        };
        let seats = (0..players)
            .map(|i| SeatConfig {
                stack: 200,
                ante: u64::from(stud),
                blind: match (stud, i) {
                    (true, _) => 0,
                    (false, 0) => 1,
                    (false, 1) => 2,
                    _ => 0,
                },
                ..SeatConfig::default()
            })
            .collect();
        let mut config = HandConfig::new(
            game,
            structure,
            Stakes {
                min_bet: 2,
                small_bet: 2,
                big_bet: 4,
                bring_in: u64::from(stud),
            },
            seats,
        );
        config.max_raises = (structure == Structure::FixedLimit).then_some(4);
        config.options = HandOptions {
            run_it_twice: game.has_board(),
            ..HandOptions::default()
        };
        config
    }

    /// Plays one hand: the deck committed and dealt with one seed per player, random
    /// legal decisions, reshuffles through the committed deck. Returns the server's record
    /// of the deck and every event (all cards known).
    pub fn play(game: Game, players: usize, seed: u64) -> (DeckRecord, Vec<Event>) {
        play_config(config(game, players), seed)
    }

    /// [`play`] with this configuration.
    pub fn play_config(config: HandConfig, seed: u64) -> (DeckRecord, Vec<Event>) {
        let game = config.game;
        let players = config.seats.len();
        let mut mix = Mix(seed);
        let mut cards = game.deck().cards();
        for i in (1..cards.len()).rev() {
            cards.swap(i, mix.below(i as u64 + 1) as usize);
        }
        let salts = (0..cards.len()).map(|_| mix.bytes()).collect();
        let id: Bytes<16> = mix.bytes();
        let hand_id = format!(
            "{}-{}-4{}-8{}-{}",
            &id.to_string()[..8],
            &id.to_string()[8..12],
            &id.to_string()[13..16],
            &id.to_string()[17..20],
            &id.to_string()[20..32]
        )
        .parse()
        .expect("a UUID");
        let deck = CommittedDeck::new(hand_id, cards, salts).expect("a deck");
        let mut seeds = Vec::new();
        for seat in 0..players as u8 {
            // Most players send a seed; some are late.
            if mix.below(4) > 0 {
                seeds.push(SeatSeed {
                    seat,
                    seed: mix.bytes(),
                });
            }
        }
        let mut dealing = deck.dealing(seeds);
        let (mut hand, mut events) =
            Hand::new(config, CardSource::Deck(deck.dealt_cards(&dealing))).expect("a hand");
        for _ in 0..10_000 {
            if let Some(muck) = hand.needs_reshuffle() {
                let cards = deck.reshuffle(&mut dealing, muck).expect("discards");
                events.extend(hand.reshuffle(cards).expect("a reshuffle"));
                continue;
            }
            let Some(p) = hand.to_act() else { break };
            let action = match hand.decision().expect("a decision") {
                Decision::Bet(legal) => match mix.below(10) {
                    0 if legal.fold && legal.call.is_some() => Action::Fold,
                    1 | 2 if legal.bet_or_raise.is_some() => Action::BetOrRaiseTo {
                        to: legal.bet_or_raise.expect("checked").0,
                    },
                    _ if legal.bring_in.is_some() => Action::BringIn,
                    _ if legal.call.is_some() => Action::Call,
                    _ => Action::Check,
                },
                Decision::Draw => {
                    let hole = hand.players()[p].hole;
                    let mut discards = Cards::new();
                    for &c in hole.iter() {
                        if mix.below(2) == 0 {
                            discards.push(c);
                        }
                    }
                    Action::Draw { discards }
                }
                Decision::Showdown { can_muck } if can_muck && mix.below(2) == 0 => Action::Muck,
                Decision::Showdown { .. } => Action::Show { cards: None },
                Decision::RunItTwice => Action::RunItTwice {
                    agree: mix.below(2) == 0,
                },
            };
            events.extend(hand.apply(p, action).expect("a legal action"));
        }
        assert!(hand.is_complete(), "the hand ends");
        (deck.record(&dealing), events)
    }

    /// The events as player `viewer` saw them: others' down cards and discards unknown.
    pub fn seen_by(events: &[Event], viewer: usize) -> Vec<Event> {
        let hide = |cards: &Cards, up: u8| {
            let mut out = Cards::new();
            for (k, &c) in cards.iter().enumerate() {
                out.push(if up >> k & 1 == 1 { c } else { Card::UNKNOWN });
            }
            out
        };
        events
            .iter()
            .map(|e| match e {
                Event::HoleDealt { player, cards, up } if *player != viewer => Event::HoleDealt {
                    player: *player,
                    cards: hide(cards, *up),
                    up: *up,
                },
                Event::Discarded { player, cards } if *player != viewer => Event::Discarded {
                    player: *player,
                    cards: hide(cards, 0),
                },
                other => other.clone(),
            })
            .collect()
    }

    /// The record a viewer downloads (seat `i` for player `i`).
    pub fn record_for(
        record: &DeckRecord,
        events: &[Event],
        viewer: Viewer,
        players: usize,
    ) -> Record {
        let (me, seen) = match viewer {
            Viewer::Player(i) => (Some(i), seen_by(events, i)),
            Viewer::Operator => (None, events.to_vec()),
        };
        Record {
            hand_id: record.hand_id,
            seats: (0..players as u32).collect(),
            me,
            events: seen,
            fairness: prove(record, events, viewer).expect("proofs"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;
    use poker_rules::Game;

    const GAMES: [(Game, usize); 5] = [
        (Game::Holdem, 6),
        (Game::ShortDeckHoldem, 4),
        (Game::Stud, 7),
        (Game::DeuceToSevenTripleDraw, 6),
        (Game::Badugi, 6),
    ];

    #[test]
    fn every_viewer_of_every_game_family_verifies_their_proofs() {
        let mut reshuffles = 0;
        for (game, n) in GAMES {
            for seed in 0..20 {
                let (record, events) = play(game, n, seed);
                reshuffles += record.reshuffles.len();
                for viewer in (0..n).map(Viewer::Player).chain([Viewer::Operator]) {
                    let doc = record_for(&record, &events, viewer, n);
                    let own = match viewer {
                        Viewer::Player(i) => record.seeds.iter().find(|s| s.seat as usize == i),
                        Viewer::Operator => None,
                    };
                    verify(&doc, own.map(|s| &s.seed))
                        .unwrap_or_else(|e| panic!("{game:?} seed {seed} {viewer:?}: {e}"));
                }
            }
        }
        assert!(reshuffles > 0, "triple draw with six players reshuffles");
    }

    #[test]
    fn a_player_is_proved_exactly_the_cards_they_saw() {
        for (game, n) in GAMES {
            for seed in 0..10 {
                let (record, events) = play(game, n, seed);
                let all = prove(&record, &events, Viewer::Operator).unwrap();
                for me in 0..n {
                    let doc = record_for(&record, &events, Viewer::Player(me), n);
                    // Every card the viewer's events show (own, board, face up) or a hand
                    // shown...
                    let mut visible: Vec<Card> = Vec::new();
                    for e in &doc.events {
                        match e {
                            Event::HoleDealt { cards, .. }
                            | Event::BoardDealt { cards }
                            | Event::SecondBoardDealt { cards }
                            | Event::Shown { cards, .. } => {
                                visible.extend(cards.iter().filter(|c| c.is_known()))
                            }
                            _ => {}
                        }
                    }
                    // ...and no other: each proof opens a visible card, at a place the
                    // operator's proofs agree on.
                    for p in &doc.fairness.cards {
                        assert!(visible.contains(&p.card), "{game:?}: {} not seen", p.card);
                        assert!(all.cards.contains(p));
                    }
                    let unseen: Vec<&CardProof> = all
                        .cards
                        .iter()
                        .filter(|p| !visible.contains(&p.card))
                        .collect();
                    for p in unseen {
                        assert!(doc.fairness.cards.iter().all(|q| q.salt != p.salt));
                    }
                }
            }
        }
    }

    /// A viewer's record of a hand of each family, and the operator's, for tampering.
    fn docs() -> Vec<(String, Record)> {
        let mut out = Vec::new();
        for (game, n) in GAMES {
            // A seed whose hand shows a hand and, in triple draw, reshuffles.
            let (record, events) = (0..200)
                .map(|s| play(game, n, s))
                .find(|(r, e)| {
                    e.iter().any(|e| matches!(e, Event::Shown { .. }))
                        && (game != Game::DeuceToSevenTripleDraw || !r.reshuffles.is_empty())
                })
                .expect("a showdown");
            out.push((
                format!("{game:?} p0"),
                record_for(&record, &events, Viewer::Player(0), n),
            ));
            out.push((
                format!("{game:?} operator"),
                record_for(&record, &events, Viewer::Operator, n),
            ));
        }
        out
    }

    fn refused(doc: &Record, what: &str) -> VerifyError {
        match verify(doc, None) {
            Ok(v) => panic!("{what}: a tampered record verified: {v:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn a_tampered_card_salt_path_position_or_place_is_caught() {
        for (name, doc) in docs() {
            verify(&doc, None).unwrap();
            let n = doc.fairness.cards.len();
            assert!(n > 0, "{name}");
            for k in [0, n / 2, n - 1] {
                let mut d = doc.clone();
                let c = &mut d.fairness.cards[k];
                c.card = poker_rules::Card::from_index(((c.card.index() + 1) % 52) as u8).unwrap();
                refused(&d, &format!("{name}: card"));

                let mut d = doc.clone();
                d.fairness.cards[k].salt.0[3] ^= 0x40;
                assert!(
                    matches!(refused(&d, &name), VerifyError::Path { .. }),
                    "{name}: salt"
                );

                let mut d = doc.clone();
                d.fairness.cards[k].path[0].0[0] ^= 1;
                assert!(
                    matches!(refused(&d, &name), VerifyError::Path { .. }),
                    "{name}: path"
                );

                let mut d = doc.clone();
                d.fairness.cards[k].path.pop();
                refused(&d, &format!("{name}: short path"));

                let mut d = doc.clone();
                let c = &mut d.fairness.cards[k];
                c.position = (c.position + 1) % d.fairness.size;
                assert!(
                    matches!(refused(&d, &name), VerifyError::Position { .. }),
                    "{name}: position"
                );

                // The card said to come from another place: the permutation disagrees,
                // or the place is another card's.
                let mut d = doc.clone();
                let last = d.fairness.cards.last().unwrap().place;
                d.fairness.cards[k].place = last + 1;
                d.fairness.cards.sort_by_key(|c| c.place);
                refused(&d, &format!("{name}: place"));

                let mut d = doc.clone();
                d.fairness.cards.remove(k);
                refused(&d, &format!("{name}: a proof left out"));
            }
        }
    }

    #[test]
    fn a_tampered_seed_list_commitment_or_reshuffle_is_caught() {
        for (name, doc) in docs() {
            let mut d = doc.clone();
            d.fairness.seeds[0].seed.0[0] ^= 1;
            refused(&d, &format!("{name}: a seed changed"));

            let mut d = doc.clone();
            d.fairness.seeds.remove(0);
            refused(&d, &format!("{name}: a seed left out"));

            let mut d = doc.clone();
            let free = (0..10u8).find(|s| {
                d.fairness.seeds.iter().all(|x| x.seat != *s) && d.seats.contains(&u32::from(*s))
            });
            if let Some(seat) = free {
                d.fairness.seeds.push(SeatSeed {
                    seat,
                    seed: crate::Bytes([9; 32]),
                });
                d.fairness.seeds.sort_by_key(|s| s.seat);
                refused(&d, &format!("{name}: a seed added"));
            }

            let mut d = doc.clone();
            d.fairness.seeds.reverse();
            if d.fairness.seeds.len() > 1 {
                assert_eq!(refused(&d, &name), VerifyError::SeedOrder);
            }

            let mut d = doc.clone();
            d.fairness.root.0[5] ^= 1;
            assert_eq!(refused(&d, &name), VerifyError::Commitment, "{name}: root");

            let mut d = doc.clone();
            d.fairness.commitment.0[5] ^= 1;
            assert_eq!(
                refused(&d, &name),
                VerifyError::Commitment,
                "{name}: commitment"
            );

            let mut d = doc.clone();
            d.fairness.hand_id = HandId::new();
            refused(&d, &format!("{name}: hand id"));

            let mut d = doc.clone();
            d.hand_id = d.fairness.hand_id;
            d.fairness.version = 2;
            assert_eq!(refused(&d, &name), VerifyError::Version(2));

            if !doc.fairness.reshuffles.is_empty() {
                // One of the viewer's own discards swapped for another card: the viewer
                // sees theirs left out (another player's discard swapped is theirs to see).
                let mut d = doc.clone();
                let proved: Vec<u8> = d.fairness.cards.iter().map(|c| c.position).collect();
                let list = &mut d.fairness.reshuffles[0];
                if let Some(k) = list.iter().position(|p| proved.contains(p)) {
                    let other = (0..d.fairness.size).find(|p| !list.contains(p)).unwrap();
                    list[k] = other;
                    list.sort_unstable();
                    refused(&d, &format!("{name}: a reshuffle changed"));
                }

                let mut d = doc.clone();
                d.fairness.reshuffles.pop();
                refused(&d, &format!("{name}: a reshuffle left out"));

                let mut d = doc.clone();
                d.fairness.reshuffles[0].reverse();
                refused(&d, &format!("{name}: a reshuffle out of order"));
            }
            let mut d = doc.clone();
            d.fairness.reshuffles.push(vec![0]);
            refused(&d, &format!("{name}: a reshuffle added"));
        }
    }

    #[test]
    fn records_made_from_the_phh_history_verify_for_every_viewer_run_twice_included() {
        // As the server exports them: the viewer's events replayed from their PHH (others'
        // cards unknown, no burn cards), the proofs made from the full history's replay.
        use poker_rules::phh;
        let mut hands = Vec::new();
        for seed in 0..40 {
            // Heads-up with short stacks: all in often, the board run twice sometimes.
            let mut c = config(Game::Holdem, 2);
            c.seats[0].stack = 9;
            c.seats[1].stack = 7;
            let (record, events) = play_config(c.clone(), seed);
            hands.push((c, record, events));
        }
        for (game, n) in GAMES {
            for seed in 0..5 {
                let (record, events) = play(game, n, seed);
                hands.push((config(game, n), record, events));
            }
        }
        let twice = hands
            .iter()
            .filter(|(_, _, e)| {
                e.iter()
                    .any(|e| matches!(e, Event::SecondBoardDealt { .. }))
            })
            .count();
        assert!(twice > 0, "a board was run twice");
        for (config, record, events) in hands {
            let n = config.seats.len();
            let stacks = match events.last() {
                Some(Event::HandEnded { stacks }) => stacks.clone(),
                other => panic!("the hand ends: {other:?}"),
            };
            let full = phh::write(&config, &events, Some(&stacks)).expect("a history");
            let replayed = phh::replay(&full).expect("it replays").events;
            for v in 0..n {
                let own = phh::for_viewer(&full, v).expect("the viewer's history");
                let doc = Record {
                    hand_id: record.hand_id,
                    seats: (0..n as u32).collect(),
                    me: Some(v),
                    events: phh::replay(&own).expect("it replays").events,
                    fairness: prove(&record, &replayed, Viewer::Player(v)).expect("proofs"),
                };
                verify(&doc, None).unwrap_or_else(|e| panic!("{:?} viewer {v}: {e}", config.game));
            }
        }
    }

    #[test]
    fn a_seed_that_was_not_counted_is_caught_by_its_owner() {
        let (record, events) = play(Game::Holdem, 3, 7);
        let doc = record_for(&record, &events, Viewer::Player(0), 3);
        let mine = crate::Bytes([0x5a; 32]);
        assert_eq!(
            verify(&doc, Some(&mine)),
            Err(VerifyError::OwnSeed { seat: 0 })
        );
    }

    #[test]
    fn a_proof_of_a_card_the_player_did_not_see_is_refused() {
        let (record, events) = (0..50)
            .map(|s| play(Game::Holdem, 4, s))
            .find(|(_, e)| {
                !e.iter()
                    .any(|e| matches!(e, Event::Shown { player: 1, .. }))
            })
            .unwrap();
        let mut doc = record_for(&record, &events, Viewer::Player(0), 4);
        let all = prove(&record, &events, Viewer::Operator).unwrap();
        // Player 1's first hole card, never shown.
        let theirs = all
            .cards
            .iter()
            .find(|p| {
                matches!(events.iter().find(|e| matches!(e, Event::HoleDealt { player: 1, .. })),
                    Some(Event::HoleDealt { cards, .. }) if cards.contains(&p.card))
            })
            .unwrap()
            .clone();
        doc.fairness.cards.push(theirs);
        doc.fairness.cards.sort_by_key(|c| c.place);
        assert!(matches!(
            verify(&doc, None),
            Err(VerifyError::NotShown { .. })
        ));
    }
}
