//! The verifiable deck at a table (docs/fairness.md): the next hand's deck is committed
//! (its order drawn from a generator keyed by the operating system's, a salt per card from
//! the operating system's generator itself) and published when a
//! hand is dealt, so seated players' seeds for it arrive during that hand; the deal mixes
//! in the seeds that came before it; after the hand each player gets the proofs of exactly
//! the cards they saw.

use super::actor::*;
use super::*;
use poker_fairness::{prove_deck, CommittedDeck, Seed, Viewer};
use poker_protocol::ServerMsg;
use poker_rules::DeckKind;
use poker_store::HandId;
use rand::rngs::OsRng;
use rand::seq::SliceRandom;
use rand::{RngCore, SeedableRng};
use std::collections::HashMap;

/// The next hand's committed deck and the seeds sent for it so far.
pub(super) struct NextDeck {
    /// The deck, committed for the hand id it will be dealt under.
    pub(super) deck: CommittedDeck,
    /// The first seed each player sent for it.
    pub(super) seeds: HashMap<PlayerId, Seed>,
}

impl NextDeck {
    /// A deck of this kind, shuffled and salted afresh, committed for a fresh hand id. The
    /// salts are read from the operating system's generator; the order comes from a ChaCha
    /// generator (`StdRng`, cryptographically secure) keyed with 32 bytes read from it at
    /// once: shuffling with `OsRng` itself made a system call per card (about 75 per hand,
    /// 1.7% of pokerd's CPU at full speed).
    pub(super) fn draw(kind: DeckKind) -> NextDeck {
        let mut cards = kind.cards();
        let mut order = rand::rngs::StdRng::from_rng(OsRng).expect("the system's generator");
        cards.shuffle(&mut order);
        // Every salt in one read of the generator.
        let mut bytes = vec![0u8; 16 * cards.len()];
        OsRng.fill_bytes(&mut bytes);
        let salts = bytes
            .chunks(16)
            .map(|s| poker_fairness::Bytes(s.try_into().expect("16 bytes")))
            .collect();
        let deck = CommittedDeck::new(HandId::new(), cards, salts)
            .expect("a game's deck holds distinct cards, each with a salt");
        NextDeck {
            deck,
            seeds: HashMap::new(),
        }
    }
}

impl Actor {
    /// Commits the next hand's deck and tells every seated player (who answer with their
    /// seeds; spectators and whoever sits later find it in their snapshot).
    pub(super) fn commit_next_deck(&mut self) {
        let next = NextDeck::draw(self.table.rules().game.deck());
        let msg = ServerMsg::DeckCommitted {
            table_id: self.table_id,
            commitment: next.deck.commitment(),
        };
        self.next_deck = Some(next);
        let seated = self.seated_players();
        self.fan_out(|who| match who {
            Some(p) if seated.contains(&p) => vec![Out::own(msg.clone())],
            _ => Vec::new(),
        });
    }

    /// A seed from a connection of this process ([`super::Command::Seed`]): taken, or
    /// its refusal sent to the connection's queue. Not urgent: a seed taken makes nothing
    /// for its player, so what they are sent as an onlooker may wait as usual (a refusal,
    /// their own frame, goes at once all the same).
    pub(super) fn seed_queued(
        &mut self,
        player: PlayerId,
        hand_id: HandId,
        seed: Seed,
        queue: &tokio::sync::mpsc::Sender<Batch>,
    ) {
        let request = Request::Seat {
            player,
            request: SeatRequest::Seed { hand_id, seed },
        };
        let result = self
            .private_guard(&request)
            .and_then(|()| self.take_seed(player, hand_id, seed));
        if let Err(refusal) = result {
            self.refuse_to(queue, refusal);
        }
    }

    /// A seated player's seed for the next hand: the first one each player sends counts,
    /// if it names the hand committed next.
    pub(super) fn take_seed(
        &mut self,
        player: PlayerId,
        hand_id: HandId,
        seed: Seed,
    ) -> Result<Outcome, Refusal> {
        if self.seat_of(player).is_none() {
            return Err(Refusal::Seed("you are not seated at this table".into()));
        }
        let next = self
            .next_deck
            .as_mut()
            .filter(|n| n.deck.hand_id() == hand_id)
            .ok_or_else(|| {
                Refusal::Seed(format!(
                    "hand {hand_id} is not the next hand: it was dealt without this seed"
                ))
            })?;
        if next.seeds.contains_key(&player) {
            return Err(Refusal::Seed(
                "you sent a seed for this hand already".into(),
            ));
        }
        next.seeds.insert(player, seed);
        Ok(Outcome {
            amount: 0,
            pending: false,
        })
    }

    /// Sends each player dealt into the hand just finished the proofs of what they saw.
    pub(super) fn send_proofs(&mut self, cur: &Current) {
        for (i, &player) in cur.players.iter().enumerate() {
            match prove_deck(&cur.deck, &cur.dealing, &cur.events, Viewer::Player(i)) {
                Ok(proof) => self.send_to(
                    player,
                    ServerMsg::DeckProof {
                        table_id: self.table_id,
                        hand_number: cur.plan.number,
                        proof: Box::new(proof),
                    },
                ),
                Err(e) => tracing::error!("the deck's proofs could not be made: {e}"),
            }
        }
    }
}
