//! The waiting list of a full table. A player joins when every seat is taken; when one
//! frees, the first in line is offered it and has the clock's `seat_offer_ms` (30 s by
//! default) to sit down, after which
//! they lose their place and the next is offered. While anyone waits, the free seats are
//! theirs: a player from outside the list cannot sit, and neither can one further down.

use super::actor::Actor;
use super::Refusal;
use poker_protocol::ServerMsg;
use poker_store::PlayerId;
use std::collections::VecDeque;
use std::time::Duration;
use tokio::time::Instant;

/// Most players one table's list holds.
pub(super) const MAX_WAITING: usize = 100;

#[derive(Default)]
pub(super) struct Waitlist {
    pub(super) queue: VecDeque<PlayerId>,
    /// The first in line, the seat held for them, and until when.
    pub(super) offer: Option<(PlayerId, u32, Instant)>,
}

impl Actor {
    /// A seat a player may sit down in now: empty, not held for a sit under way, and at a
    /// table with room for another player (`Table::room_for`).
    fn free_seat(&self) -> Option<u32> {
        self.table.room_for(self.sitting.count() + 1).ok()?;
        self.table
            .seats()
            .iter()
            .enumerate()
            .position(|(s, o)| o.is_none() && !self.sitting.holds(s as u32))
            .map(|s| s as u32)
    }

    fn tell_place(&mut self, player: PlayerId) {
        let position = self
            .waitlist
            .queue
            .iter()
            .position(|p| *p == player)
            .map(|i| i as u32 + 1);
        let msg = ServerMsg::Waitlist {
            table_id: self.table_id,
            position,
            length: self.waitlist.queue.len() as u32,
        };
        self.send_to(player, msg);
    }

    fn tell_everyone_waiting(&mut self) {
        let waiting: Vec<PlayerId> = self.waitlist.queue.iter().copied().collect();
        for p in waiting {
            self.tell_place(p);
        }
        self.seats_changed();
    }

    pub(super) fn join_waitlist(&mut self, player: PlayerId) -> Result<(), Refusal> {
        if !self.closing.is_empty() {
            return Err(Refusal::Seat("the table is closing".into()));
        }
        if self.seat_of(player).is_some() {
            return Err(Refusal::Seat("already seated here".into()));
        }
        if self.waitlist.queue.contains(&player) {
            self.tell_place(player);
            return Ok(());
        }
        if self.waitlist.queue.is_empty() && self.free_seat().is_some() {
            return Err(Refusal::Seat("a seat is free: sit down".into()));
        }
        if self.waitlist.queue.len() >= MAX_WAITING {
            return Err(Refusal::Seat("the waiting list is full".into()));
        }
        self.waitlist.queue.push_back(player);
        self.tell_everyone_waiting();
        Ok(())
    }

    pub(super) fn leave_waitlist(&mut self, player: PlayerId) {
        let was = self.waitlist.queue.len();
        self.waitlist.queue.retain(|p| *p != player);
        if self.waitlist.offer.is_some_and(|(p, _, _)| p == player) {
            self.waitlist.offer = None;
        }
        self.tell_place(player);
        if self.waitlist.queue.len() != was {
            self.tell_everyone_waiting();
        }
    }

    /// Whether `player` may sit in `seat` as far as the waiting list goes.
    pub(super) fn waitlist_allows(&self, player: PlayerId, seat: u32) -> Result<(), Refusal> {
        if self.waitlist.queue.is_empty() {
            return Ok(());
        }
        match self.waitlist.offer {
            Some((p, s, _)) if p == player && s == seat => Ok(()),
            Some((p, s, _)) if p == player => {
                Err(Refusal::Seat(format!("seat {s} is the one held for you")))
            }
            _ => Err(Refusal::Seat(
                "players are waiting for a seat here: join the waiting list".into(),
            )),
        }
    }

    /// The offered player sat down: off the list.
    pub(super) fn waitlist_seated(&mut self, player: PlayerId) {
        if self.waitlist.queue.contains(&player) {
            self.waitlist.queue.retain(|p| *p != player);
            self.waitlist.offer = None;
            self.tell_place(player);
            self.tell_everyone_waiting();
        }
    }

    /// Expires a lapsed offer and offers a free seat to the first in line; run after
    /// every command and timer.
    pub(super) fn offer_seats(&mut self) {
        let now = Instant::now();
        if let Some((p, _, until)) = self.waitlist.offer {
            if now >= until {
                // Too late: the place is lost.
                self.waitlist.offer = None;
                self.waitlist.queue.retain(|q| *q != p);
                self.tell_place(p);
                self.tell_everyone_waiting();
            }
        }
        if self.waitlist.offer.is_some() || !self.closing.is_empty() {
            return;
        }
        let (Some(&player), Some(seat)) = (self.waitlist.queue.front(), self.free_seat()) else {
            return;
        };
        let hold = Duration::from_millis(self.clock_rules.seat_offer_ms);
        self.waitlist.offer = Some((player, seat, now + hold));
        self.send_to(
            player,
            ServerMsg::SeatOffered {
                table_id: self.table_id,
                seat,
                expires_ms: self.clock_rules.seat_offer_ms,
            },
        );
    }

    pub(super) fn offer_deadline(&self) -> Option<Instant> {
        self.waitlist.offer.map(|(_, _, until)| until)
    }
}
