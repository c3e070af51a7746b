//! The seats' book: what the actor knows of each seated player besides the table's rules
//! (name, time bank, timeouts, a top-up or a departure waiting for the hand's end, where
//! they sat down from), the seat states last written to the store, and the same-address
//! pairs flagged while the table runs.

use super::writer::Write;
use super::ClockRules;
use poker_rules::Chips;
use poker_store::PlayerId;
use std::collections::{HashMap, HashSet};

/// What the actor knows of a seated player besides the table's rules.
pub(super) struct SeatInfo {
    /// The name shown at the seat.
    name: String,
    /// What is left of the player's time bank.
    time_bank_ms: u64,
    /// Timeouts in a row (R38: too many sit the player out).
    timeouts: u32,
    /// Chips asked for during a hand, added at its end (R26).
    pending_top_up: Chips,
    /// Left during a hand: the hand is dead, cashed out at its end.
    leaving: bool,
    /// Asked to sit out during a hand and told `pending`: told `done` again at its end.
    pending_sit_out: bool,
    /// Beaten hands are mucked without asking (R33: they may be).
    auto_muck: bool,
    /// The client address (bucket label) the player sat down from; `None` for a house
    /// bot, or a seat taken before addresses were recorded.
    address: Option<String>,
    /// Since when (the room's clock, seconds) the player has been away: sitting out, or
    /// without a connection to the table (`None`: here).
    away_since: Option<u64>,
}

impl SeatInfo {
    /// A player sitting down from `address`, with the clock's whole time bank.
    pub(super) fn new(name: String, clock: &ClockRules, address: Option<String>) -> SeatInfo {
        SeatInfo {
            name,
            time_bank_ms: clock.time_bank_ms,
            timeouts: 0,
            pending_top_up: 0,
            leaving: false,
            pending_sit_out: false,
            auto_muck: true,
            address,
            away_since: None,
        }
    }

    /// The name shown at the seat.
    pub(super) fn name(&self) -> &str {
        &self.name
    }

    /// Chips asked for during the hand, added at its end.
    pub(super) fn pending_top_up(&self) -> Chips {
        self.pending_top_up
    }

    /// Whether the player left during the hand (their hand is dead).
    pub(super) fn leaving(&self) -> bool {
        self.leaving
    }
}

/// Who sits out and the blinds they owe, as last written to the store.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Saved {
    /// Sitting out (or about to, from the next hand).
    pub(super) sitting_out: bool,
    /// Owes the small blind.
    pub(super) missed_small: bool,
    /// Owes the big blind.
    pub(super) missed_big: bool,
}

/// The seats' book.
#[derive(Default)]
pub(super) struct Book {
    /// Each seated player's own state.
    info: HashMap<PlayerId, SeatInfo>,
    /// Sitting out and blinds owed, as last written to the store.
    saved: HashMap<PlayerId, Saved>,
    /// Same-address pairs flagged here (lower id first): a pair is recorded once while
    /// the table runs, however often its players sit down again.
    flagged: HashSet<(PlayerId, PlayerId)>,
}

impl Book {
    /// A player seated when the table starts, with their seat state as stored.
    pub(super) fn restore(&mut self, player: PlayerId, info: SeatInfo, saved: Saved) {
        self.saved.insert(player, saved);
        self.info.insert(player, info);
    }

    /// A player takes a seat.
    pub(super) fn seat(&mut self, player: PlayerId, info: SeatInfo) {
        self.info.insert(player, info);
    }

    /// A player left their seat.
    pub(super) fn remove(&mut self, player: PlayerId) {
        self.info.remove(&player);
    }

    /// What the book knows of `player`.
    pub(super) fn get(&self, player: PlayerId) -> Option<&SeatInfo> {
        self.info.get(&player)
    }

    /// Whether `player` left during the hand (their hand is dead).
    pub(super) fn leaving(&self, player: PlayerId) -> bool {
        self.info.get(&player).is_some_and(|i| i.leaving)
    }

    /// Whether `player` is asked before their beaten hand is mucked (auto-muck off, and
    /// still at the table).
    pub(super) fn asks_to_muck(&self, player: PlayerId) -> bool {
        self.info
            .get(&player)
            .is_some_and(|i| !i.auto_muck && !i.leaving)
    }

    /// What is left of `player`'s time bank.
    pub(super) fn time_bank(&self, player: PlayerId) -> u64 {
        self.info.get(&player).map_or(0, |i| i.time_bank_ms)
    }

    /// Chips `player` asked for during the hand.
    pub(super) fn pending_top_up(&self, player: PlayerId) -> Chips {
        self.info.get(&player).map_or(0, |i| i.pending_top_up)
    }

    /// `player` leaves during a hand: the hand is dead, the cash-out waits for its end.
    /// Notes whether `player` is away at `now`; how long they have been (0: here).
    pub(super) fn away_for(&mut self, player: PlayerId, now: u64, away: bool) -> u64 {
        let Some(info) = self.info.get_mut(&player) else {
            return 0;
        };
        if !away {
            info.away_since = None;
            return 0;
        }
        now.saturating_sub(*info.away_since.get_or_insert(now))
    }

    pub(super) fn set_leaving(&mut self, player: PlayerId) {
        if let Some(info) = self.info.get_mut(&player) {
            info.leaving = true;
        }
    }

    /// Beaten hands are mucked without asking, or not.
    pub(super) fn set_auto_muck(&mut self, player: PlayerId, on: bool) {
        if let Some(info) = self.info.get_mut(&player) {
            info.auto_muck = on;
        }
    }

    /// `player` answered their decision in time, with `bank_used_ms` of their time bank.
    pub(super) fn answered(&mut self, player: PlayerId, bank_used_ms: Option<u64>) {
        if let Some(info) = self.info.get_mut(&player) {
            if let Some(used) = bank_used_ms {
                info.time_bank_ms = info.time_bank_ms.saturating_sub(used);
            }
            info.timeouts = 0;
        }
    }

    /// `player` ran out of time: their bank is spent and the timeout counted; true if that
    /// makes `max` in a row (0: no limit).
    pub(super) fn timed_out(&mut self, player: PlayerId, max: u32) -> bool {
        let Some(info) = self.info.get_mut(&player) else {
            return false;
        };
        info.time_bank_ms = 0;
        info.timeouts += 1;
        max > 0 && info.timeouts >= max
    }

    /// `player` asked to sit out (`pending`: during a hand, told `done` at its end).
    pub(super) fn sat_out(&mut self, player: PlayerId, pending: bool) {
        if let Some(info) = self.info.get_mut(&player) {
            info.pending_sit_out = pending;
        }
    }

    /// `player` sat in again.
    pub(super) fn sat_in(&mut self, player: PlayerId) {
        if let Some(info) = self.info.get_mut(&player) {
            info.timeouts = 0;
            info.pending_sit_out = false;
        }
    }

    /// `player` asks for `amount` more chips at the hand's end.
    pub(super) fn add_top_up(&mut self, player: PlayerId, amount: Chips) {
        if let Some(info) = self.info.get_mut(&player) {
            info.pending_top_up += amount;
        }
    }

    /// The players who sat out during the hand, to be told `done` now.
    pub(super) fn take_sit_outs(&mut self) -> Vec<PlayerId> {
        self.info
            .iter_mut()
            .filter(|(_, i)| i.pending_sit_out)
            .map(|(&p, i)| {
                i.pending_sit_out = false;
                p
            })
            .collect()
    }

    /// The top-ups and departures waiting for the hand's end: each player, the chips
    /// asked for, and whether they leave.
    pub(super) fn waiting_moves(&self) -> Vec<(PlayerId, Chips, bool)> {
        self.info
            .iter()
            .filter(|(_, i)| i.leaving || i.pending_top_up > 0)
            .map(|(&p, i)| (p, i.pending_top_up, i.leaving))
            .collect()
    }

    /// `player`'s top-up is being done.
    pub(super) fn clear_top_up(&mut self, player: PlayerId) {
        if let Some(info) = self.info.get_mut(&player) {
            info.pending_top_up = 0;
        }
    }

    /// The seated players other than `player` who sat down from `address`.
    pub(super) fn seated_from<'a>(
        &'a self,
        address: &'a str,
        player: PlayerId,
    ) -> impl Iterator<Item = PlayerId> + 'a {
        self.info
            .iter()
            .filter(move |(p, i)| **p != player && i.address.as_deref() == Some(address))
            .map(|(p, _)| *p)
    }

    /// Flags the pairs `player` makes with `same` that were not flagged yet; those pairs.
    pub(super) fn flag(&mut self, player: PlayerId, same: &[PlayerId]) -> Vec<PlayerId> {
        same.iter()
            .copied()
            .filter(|&other| self.flagged.insert((player.min(other), player.max(other))))
            .collect()
    }

    /// Lets go of the pairs `player` made with `others` (their buy-in was refused).
    pub(super) fn unflag(&mut self, player: PlayerId, others: &[PlayerId]) {
        for &other in others {
            self.flagged.remove(&(player.min(other), player.max(other)));
        }
    }

    /// The writes that bring the store to the seat states `now` (every seated player's),
    /// where they changed; players gone are forgotten.
    pub(super) fn changes(&mut self, now: Vec<(PlayerId, Saved)>) -> Vec<Write> {
        self.saved.retain(|p, _| now.iter().any(|(q, _)| q == p));
        let mut writes = Vec::new();
        for (player, state) in now {
            let before = self.saved.insert(player, state);
            if before.map(|b| b.sitting_out) != Some(state.sitting_out) {
                writes.push(Write::SittingOut {
                    player,
                    out: state.sitting_out,
                });
            }
            if before.map(|b| (b.missed_small, b.missed_big))
                != Some((state.missed_small, state.missed_big))
            {
                writes.push(Write::MissedBlinds {
                    player,
                    small: state.missed_small,
                    big: state.missed_big,
                });
            }
        }
        writes
    }
}
