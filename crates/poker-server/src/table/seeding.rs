//! The verifiable deck as the actor runs it (docs/fairness.md; the seeds' state is
//! `super::deck`'s): the next hand's deck committed and published, the players' seeds
//! taken, the list of commitments closed and sent to the players at the table, the deal's
//! wait for seeds, and each player's proofs after the hand.

use super::actor::Actor;
use super::deck::could_deal;
use super::*;
use poker_fairness::{prove_deck, CommittedDeck, Viewer};
use poker_protocol::ServerMsg;
use tokio::time::Instant;

impl Actor {
    /// Commits the next hand's deck and tells every seated player (who answer with their
    /// seeds' commitments; spectators and whoever sits later find it in their snapshot).
    pub(super) fn commit_next_deck(&mut self) {
        let commitment = self.seeds.commit(self.table.rules().game);
        let msg = ServerMsg::DeckCommitted {
            table_id: self.table_id,
            commitment,
        };
        let seated = self.seated_players();
        self.audience.send_to_each(&seated, &msg);
    }

    /// A player's commitment (seated, sitting down now, or watching the table: a client
    /// sends it with its `sit`, and it may reach the table first; it counts only if the
    /// player is seated when the list closes) or seed (listed when the list closed) for
    /// the next hand: the first of each counts, if it names the hand committed next and,
    /// for a seed, opens the commitment.
    pub(super) fn take_seed(
        &mut self,
        player: PlayerId,
        step: SeedStep,
    ) -> Result<Outcome, Refusal> {
        let seated = self.seat_of(player).is_some();
        let near = self.sitting.is_sitting(player) || self.audience.watching(player);
        self.seeds.take(player, step, seated, near)
    }

    /// Closes the next deck's list of commitments and sends it to everyone at the table:
    /// the commitments of the players seated now, and of those whose sit is under way
    /// (their seat is held: the sit may end before the deal), by seat.
    fn close_seeds(&mut self) {
        let seated: Vec<(PlayerId, usize)> = self
            .table
            .seats()
            .iter()
            .enumerate()
            .filter_map(|(seat, o)| Some((o.as_ref()?.player, seat)))
            .collect();
        let sitting = &self.sitting;
        let Some((msg, listed)) = self
            .seeds
            .close(self.table_id, seated, |p| sitting.seat_of(p))
        else {
            return;
        };
        // To the players at the table (seated, or listed: a sit under way); spectators
        // learn it from their snapshot if they sit.
        let mut told = self.seated_players();
        told.extend(listed);
        self.audience.send_to_each(&told, &msg);
    }

    /// Between hands, while the table pauses: closes the list as soon as every player the
    /// deal would wait for has committed, so the seeds come in during the pause.
    pub(super) fn close_seeds_when_all_in(&mut self) {
        let seats = self.table.seats();
        if could_deal(seats) && self.seeds.all_in(&self.seeds.takers(seats)) {
            self.close_seeds();
        }
    }

    /// Whether the next deck's seeds let the table deal now: the list closed once every
    /// player the deal waits for committed (or [`super::deck::SEED_WAIT`] passed), then
    /// every player listed revealed (or it passed again). `Err`: when to look again.
    pub(super) fn seeds_ready(&mut self) -> Result<(), Instant> {
        if !could_deal(self.table.seats()) {
            return Ok(());
        }
        let now = Instant::now();
        let takers = self.seeds.takers(self.table.seats());
        if self.seeds.wait_for_commits(&takers, now)? {
            self.close_seeds();
        }
        self.seeds.wait_for_reveals(&takers, now)
    }

    /// Sends each player dealt into the hand the proofs of what they saw (again after an
    /// uncontested winner shows: the shown cards then have their proofs too).
    pub(super) fn send_proofs(
        &mut self,
        number: u64,
        players: &[PlayerId],
        deck: &CommittedDeck,
        dealing: &poker_fairness::Dealing,
        events: &[poker_rules::Event],
    ) {
        for (i, &player) in players.iter().enumerate() {
            match prove_deck(deck, dealing, events, Viewer::Player(i)) {
                Ok(proof) => self.audience.send_to(
                    player,
                    ServerMsg::DeckProof {
                        table_id: self.table_id,
                        hand_number: number,
                        proof: Box::new(proof),
                    },
                ),
                Err(e) => tracing::error!("the deck's proofs could not be made: {e}"),
            }
        }
    }
}
