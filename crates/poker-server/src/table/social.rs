//! What the table's people say and wait for, as the actor does it: chat lines (seated
//! players and signed-in spectators, `super::chat`) and the waiting list of a full table
//! (`super::waitlist`): who is told their place, who is offered a seat and when the offer
//! lapses.

use super::actor::Actor;
use super::Refusal;
use poker_protocol::ServerMsg;
use poker_store::PlayerId;
use std::time::Duration;
use tokio::time::Instant;

impl Actor {
    /// Says `text` as `player`: seated here, or watching the table (a subscriber signed
    /// in as them; `name` is then theirs). Spectators are rate limited like players.
    pub(super) fn chat(&mut self, player: PlayerId, name: &str, text: &str) -> Result<(), Refusal> {
        if !self.chat.rules().enabled {
            return Err(Refusal::Chat("chat is off at this table".into()));
        }
        let seat = self.seat_of(player);
        if seat.is_none() && !self.audience.watching(player) {
            return Err(Refusal::Chat(
                "only players seated at or watching this table may chat".into(),
            ));
        }
        let name = match self.book.get(player) {
            Some(info) if seat.is_some() => info.name().to_string(),
            _ => name.to_string(),
        };
        let line = self.chat.say(player, seat.map(|s| s as u32), name, text)?;
        self.audience.send_all(&ServerMsg::Chat {
            table_id: self.table_id,
            line,
        });
        Ok(())
    }

    pub(super) fn switch_chat(&mut self, enabled: bool) {
        // Players who left take their rate-limit history with them (spectators still
        // watching keep theirs).
        let mut keep = self.seated_players();
        keep.extend(self.audience.watchers());
        self.chat.switch(enabled, &keep);
        self.audience.send_all(&ServerMsg::ChatSwitched {
            table_id: self.table_id,
            enabled,
        });
    }

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
        let msg = ServerMsg::Waitlist {
            table_id: self.table_id,
            position: self.waitlist.position(player),
            length: self.waitlist.len() as u32,
        };
        self.audience.send_to(player, msg);
    }

    fn tell_everyone_waiting(&mut self) {
        for p in self.waitlist.players() {
            self.tell_place(p);
        }
        self.seats_changed();
    }

    pub(super) fn join_waitlist(&mut self, player: PlayerId) -> Result<(), Refusal> {
        if self.life.is_closing() {
            return Err(Refusal::Seat("the table is closing".into()));
        }
        if self.seat_of(player).is_some() {
            return Err(Refusal::Seat("already seated here".into()));
        }
        if self.waitlist.contains(player) {
            self.tell_place(player);
            return Ok(());
        }
        if self.waitlist.is_empty() && self.free_seat().is_some() {
            return Err(Refusal::Seat("a seat is free: sit down".into()));
        }
        self.waitlist.join(player)?;
        self.tell_everyone_waiting();
        Ok(())
    }

    pub(super) fn leave_waitlist(&mut self, player: PlayerId) {
        let was_waiting = self.waitlist.leave(player);
        self.tell_place(player);
        if was_waiting {
            self.tell_everyone_waiting();
        }
    }

    /// The offered player sat down: off the list.
    pub(super) fn waitlist_seated(&mut self, player: PlayerId) {
        if self.waitlist.seated(player) {
            self.tell_place(player);
            self.tell_everyone_waiting();
        }
    }

    /// Expires a lapsed offer and offers a free seat to the first in line; run after
    /// every command and timer.
    pub(super) fn offer_seats(&mut self) {
        let now = Instant::now();
        if let Some(p) = self.waitlist.lapse(now) {
            self.tell_place(p);
            self.tell_everyone_waiting();
        }
        if self.waitlist.offering() || self.life.is_closing() {
            return;
        }
        let (Some(player), Some(seat)) = (self.waitlist.first(), self.free_seat()) else {
            return;
        };
        let hold = Duration::from_millis(self.clock.rules().seat_offer_ms);
        self.waitlist.offer(player, seat, now + hold);
        self.audience.send_to(
            player,
            ServerMsg::SeatOffered {
                table_id: self.table_id,
                seat,
                expires_ms: self.clock.rules().seat_offer_ms,
            },
        );
    }
}
