//! The action clock (R38): deadlines, the warning, the time bank, and what the server
//! does for a player who is out of time.

use super::actor::*;
use poker_protocol::{ClockView, ServerMsg};
use poker_rules::table::SitOut;
use poker_rules::{Action, Cards, Decision};
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::time::Instant;

impl Actor {
    /// When the actor must wake up by itself.
    pub(super) fn next_deadline(&self) -> Option<Instant> {
        let play = if let Some(clock) = &self.clock {
            Some(self.clock_deadline(clock))
        } else {
            match &self.current {
                // Between hands (the next one, or a hand start to be tried again, or
                // the seeds' wait).
                None => match (self.next_hand_at, self.seeds_at) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                },
                // In a hand with no clock running, or a finished hand waiting for its
                // commit (whose outcome wakes the actor): nobody's time runs out.
                Some(_) => None,
            }
        };
        // A seat offered to the waiting list lapses on its own clock.
        match (play, self.offer_deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    pub(super) fn action_end(&self, clock: &TurnClock) -> Instant {
        clock.asked + Duration::from_millis(self.clock_rules.action_ms)
    }

    pub(super) fn warn_at(&self, clock: &TurnClock) -> Option<Instant> {
        let r = &self.clock_rules;
        (r.warning_ms > 0 && r.warning_ms < r.action_ms)
            .then(|| self.action_end(clock) - Duration::from_millis(r.warning_ms))
    }

    pub(super) fn bank_of(&self, clock: &TurnClock) -> u64 {
        let cur = self.current.as_ref().expect("a clock runs in a hand");
        self.info
            .get(&cur.players[clock.player])
            .map_or(0, |i| i.time_bank_ms)
    }

    pub(super) fn clock_deadline(&self, clock: &TurnClock) -> Instant {
        if let Some(b) = clock.bank_started {
            return b + Duration::from_millis(self.bank_of(clock));
        }
        match self.warn_at(clock) {
            Some(w) if !clock.warned => w,
            _ => self.action_end(clock),
        }
    }

    pub(super) fn clock_view(&self, clock: &TurnClock) -> ClockView {
        let now = Instant::now();
        let bank = self.bank_of(clock);
        match clock.bank_started {
            Some(b) => {
                let left = bank.saturating_sub(ms(now.saturating_duration_since(b)));
                ClockView {
                    seat: clock.seat,
                    remaining_ms: left,
                    time_bank_ms: left,
                    in_time_bank: true,
                }
            }
            None => ClockView {
                seat: clock.seat,
                remaining_ms: ms(self.action_end(clock).saturating_duration_since(now)),
                time_bank_ms: bank,
                in_time_bank: false,
            },
        }
    }

    /// The clock moved on: warn, start the time bank, or act for the player (R38).
    pub(super) fn on_timer(&mut self) {
        let now = Instant::now();
        let Some(clock) = self.clock.as_ref() else {
            return;
        };
        if now < self.clock_deadline(clock) {
            return;
        }
        let table_id = self.table_id;
        let cur = self.current.as_ref().expect("a clock runs in a hand");
        let player = cur.players[clock.player];
        let hand_number = cur.plan.number;
        if clock.bank_started.is_none() {
            if let Some(w) = self.warn_at(clock) {
                if !clock.warned && now >= w {
                    let remaining_ms = ms(self.action_end(clock).saturating_duration_since(now));
                    self.clock.as_mut().expect("clock").warned = true;
                    self.send_to(
                        player,
                        ServerMsg::ClockWarning {
                            table_id,
                            remaining_ms,
                        },
                    );
                    return;
                }
            }
            if self.bank_of(clock) > 0 {
                self.clock.as_mut().expect("clock").bank_started = Some(now);
                let view = self.clock_view(self.clock.as_ref().expect("clock"));
                self.send_all(&ServerMsg::Turn {
                    table_id,
                    hand_number,
                    clock: view,
                });
                return;
            }
        }
        // Out of time: check if free, else fold (stand pat on a draw, decline to run it
        // twice); too many in a row sits the player out.
        let clock = self.clock.take().expect("clock");
        let Some(decision) = cur.hand.decision() else {
            return;
        };
        let action = default_action(&decision, false);
        self.ctx.metrics.timeouts.fetch_add(1, Ordering::Relaxed);
        let max = self.clock_rules.max_timeouts;
        let mut sat_out = false;
        // Not answering show-or-muck mucks the hand; it is no timeout.
        let counts = !matches!(decision, Decision::Showdown { .. });
        if let Some(info) = self.info.get_mut(&player).filter(|_| counts) {
            info.time_bank_ms = 0;
            info.timeouts += 1;
            if max > 0 && info.timeouts >= max {
                if let Some(seat) = self.seat_of(player) {
                    sat_out = self.table.sit_out(seat, SitOut::NextHand).is_ok();
                }
            }
        }
        self.send_all(&ServerMsg::TimedOut {
            table_id,
            seat: clock.seat,
            sat_out,
        });
        self.auto(clock.player, action);
        if sat_out {
            self.seats_changed();
        }
    }
}

/// What the server does for a player who is out of time (or has left, `dead`: fold rather
/// than check).
pub(super) fn default_action(decision: &Decision, dead: bool) -> Action {
    match decision {
        // The bring-in cannot be folded or checked: it is posted (R12).
        Decision::Bet(legal) if legal.bring_in.is_some() => Action::BringIn,
        Decision::Bet(legal) if legal.check && !dead => Action::Check,
        Decision::Bet(_) => Action::Fold,
        Decision::Draw => Action::Draw {
            discards: Cards::new(),
        },
        Decision::RunItTwice => Action::RunItTwice { agree: false },
        // A beaten hand asked about is mucked; one that must be shown is shown.
        Decision::Showdown { can_muck: true } => Action::Muck,
        Decision::Showdown { can_muck: false } => Action::Show { cards: None },
    }
}
