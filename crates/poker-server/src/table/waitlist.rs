//! The waiting list of a full table. A player joins when every seat is taken; when one
//! frees, the first in line is offered it and has the clock's `seat_offer_ms` (30 s by
//! default) to sit down, after which
//! they lose their place and the next is offered. While anyone waits, the free seats are
//! theirs: a player from outside the list cannot sit, and neither can one further down.

use super::Refusal;
use poker_store::PlayerId;
use std::collections::VecDeque;
use tokio::time::Instant;

/// Most players one table's list holds.
pub(super) const MAX_WAITING: usize = 100;

/// The players waiting for a seat, and the seat offered to the first.
#[derive(Default)]
pub(super) struct Waitlist {
    /// Who waits, first in line first.
    queue: VecDeque<PlayerId>,
    /// The first in line, the seat held for them, and until when.
    offer: Option<(PlayerId, u32, Instant)>,
}

impl Waitlist {
    /// How many wait.
    pub(super) fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether anyone waits.
    pub(super) fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Whether `player` waits.
    pub(super) fn contains(&self, player: PlayerId) -> bool {
        self.queue.contains(&player)
    }

    /// Who waits, first in line first.
    pub(super) fn players(&self) -> Vec<PlayerId> {
        self.queue.iter().copied().collect()
    }

    /// The first in line.
    pub(super) fn first(&self) -> Option<PlayerId> {
        self.queue.front().copied()
    }

    /// `player`'s place in line (1 for the first).
    pub(super) fn position(&self, player: PlayerId) -> Option<u32> {
        self.queue
            .iter()
            .position(|p| *p == player)
            .map(|i| i as u32 + 1)
    }

    /// Adds `player` at the end of the line, if there is room.
    pub(super) fn join(&mut self, player: PlayerId) -> Result<(), Refusal> {
        if self.queue.len() >= MAX_WAITING {
            return Err(Refusal::Seat("the waiting list is full".into()));
        }
        self.queue.push_back(player);
        Ok(())
    }

    /// Takes `player` off the list (and their offer); whether they were on it.
    pub(super) fn leave(&mut self, player: PlayerId) -> bool {
        let was = self.queue.len();
        self.queue.retain(|p| *p != player);
        if self.offer.is_some_and(|(p, _, _)| p == player) {
            self.offer = None;
        }
        self.queue.len() != was
    }

    /// The offered player sat down: off the list; whether they were on it.
    pub(super) fn seated(&mut self, player: PlayerId) -> bool {
        if !self.queue.contains(&player) {
            return false;
        }
        self.queue.retain(|p| *p != player);
        self.offer = None;
        true
    }

    /// Whether `player` may sit in `seat` as far as the waiting list goes.
    pub(super) fn allows(&self, player: PlayerId, seat: u32) -> Result<(), Refusal> {
        if self.queue.is_empty() {
            return Ok(());
        }
        match self.offer {
            Some((p, s, _)) if p == player && s == seat => Ok(()),
            Some((p, s, _)) if p == player => {
                Err(Refusal::Seat(format!("seat {s} is the one held for you")))
            }
            _ => Err(Refusal::Seat(
                "players are waiting for a seat here: join the waiting list".into(),
            )),
        }
    }

    /// Expires the offer if it lapsed at `now`: the player who lost their place.
    pub(super) fn lapse(&mut self, now: Instant) -> Option<PlayerId> {
        let (p, _, until) = self.offer?;
        if now < until {
            return None;
        }
        // Too late: the place is lost.
        self.offer = None;
        self.queue.retain(|q| *q != p);
        Some(p)
    }

    /// Whether a seat is offered now.
    pub(super) fn offering(&self) -> bool {
        self.offer.is_some()
    }

    /// Offers `seat` to `player` until `until`.
    pub(super) fn offer(&mut self, player: PlayerId, seat: u32, until: Instant) {
        self.offer = Some((player, seat, until));
    }

    /// When the seat offered lapses.
    pub(super) fn offer_deadline(&self) -> Option<Instant> {
        self.offer.map(|(_, _, until)| until)
    }
}
