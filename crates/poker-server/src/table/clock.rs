//! The action clock (R38): the rules, the decision being asked and its deadlines (the
//! warning, the time bank, then the server acts for the player), the decision ids, and
//! when the next hand is due. The time bank itself is the seats' book's: it comes in as
//! `bank_ms`.

use super::ClockRules;
use poker_protocol::ClockView;
use poker_rules::{Action, Cards, Decision};
use poker_store::PlayerId;
use std::time::Duration;
use tokio::time::Instant;

/// The clock of the decision being asked.
pub(super) struct TurnClock {
    /// The player's index in the hand.
    player: usize,
    /// The player.
    who: PlayerId,
    /// Their seat.
    seat: u32,
    /// When the decision was asked.
    asked: Instant,
    /// The warning was sent.
    warned: bool,
    /// When the player's time bank started running, if it did.
    bank_started: Option<Instant>,
}

impl TurnClock {
    /// The player's index in the hand.
    pub(super) fn player(&self) -> usize {
        self.player
    }

    /// The player's seat.
    pub(super) fn seat(&self) -> u32 {
        self.seat
    }
}

/// What the clock did when its deadline came.
pub(super) enum Tick {
    /// Not due yet (or no decision is asked).
    Wait,
    /// The player is warned, with this much time left.
    Warn {
        /// The player asked.
        player: PlayerId,
        /// What is left before the time bank.
        remaining_ms: u64,
    },
    /// The player's time bank started: everyone sees the clock again.
    Bank(ClockView),
    /// Out of time: the server acts for the player.
    Out(TurnClock),
}

/// The table's clock.
pub(super) struct Clock {
    /// The table's clock rules.
    rules: ClockRules,
    /// The decision being asked, while one is.
    turn: Option<TurnClock>,
    /// The next decision's id.
    next_decision: u64,
    /// When the next hand is dealt (or a failed hand start tried again), between hands.
    next_hand_at: Option<Instant>,
}

impl Clock {
    /// A table's clock under `rules`, no decision asked.
    pub(super) fn new(rules: ClockRules) -> Clock {
        Clock {
            rules,
            turn: None,
            // Decision ids go on rising across restarts and moves between nodes (1,024 per
            // millisecond of the clock), so a late answer to a decision of a cut hand can
            // never match one the table asks now. Below 2^53: a JavaScript number holds
            // them.
            next_decision: (poker_store::now_ms().max(0) as u64) << 10,
            next_hand_at: None,
        }
    }

    /// The table's clock rules.
    pub(super) fn rules(&self) -> &ClockRules {
        &self.rules
    }

    /// Asks player `player` (`who`, at `seat`) a decision now: its id.
    pub(super) fn ask(&mut self, player: usize, who: PlayerId, seat: u32) -> u64 {
        let id = self.next_decision;
        self.next_decision += 1;
        self.turn = Some(TurnClock {
            player,
            who,
            seat,
            asked: Instant::now(),
            warned: false,
            bank_started: None,
        });
        id
    }

    /// Whether a decision is being asked.
    pub(super) fn running(&self) -> bool {
        self.turn.is_some()
    }

    /// The player asked, if a decision is.
    pub(super) fn asked(&self) -> Option<PlayerId> {
        self.turn.as_ref().map(|t| t.who)
    }

    /// Stops the clock (the decision is answered or void).
    pub(super) fn stop(&mut self) {
        self.turn = None;
    }

    /// Stops the clock on an answer: how much of the time bank it used.
    pub(super) fn answered(&mut self) -> Option<u64> {
        self.turn.take()?.bank_started.map(|b| ms(b.elapsed()))
    }

    /// When the next hand is due, between hands.
    pub(super) fn next_hand_at(&self) -> Option<Instant> {
        self.next_hand_at
    }

    /// Deals the next hand at `at` (`None`: when a command changes something).
    pub(super) fn deal_at(&mut self, at: Option<Instant>) {
        self.next_hand_at = at;
    }

    /// The pause between hands starts now: longer by `showdown_ms` for each of the
    /// hand's pots shown down (`shown_down`, at most four count).
    pub(super) fn pause_between_hands(&mut self, shown_down: u64) {
        let showdowns = self.rules.showdown_ms.saturating_mul(shown_down.min(4));
        let pause = self.rules.between_hands_ms.saturating_add(showdowns);
        self.next_hand_at = Some(Instant::now() + Duration::from_millis(pause));
    }

    /// When the decision asked times out next (the warning, the bank, the end), given
    /// the player's time bank.
    pub(super) fn turn_deadline(&self, bank_ms: u64) -> Option<Instant> {
        let turn = self.turn.as_ref()?;
        Some(deadline(&self.rules, turn, bank_ms))
    }

    /// The decision's clock as everyone sees it, given the player's time bank.
    pub(super) fn view(&self, bank_ms: u64) -> Option<ClockView> {
        let turn = self.turn.as_ref()?;
        let now = Instant::now();
        Some(match turn.bank_started {
            Some(b) => {
                let left = bank_ms.saturating_sub(ms(now.saturating_duration_since(b)));
                ClockView {
                    seat: turn.seat,
                    remaining_ms: left,
                    time_bank_ms: left,
                    in_time_bank: true,
                }
            }
            None => ClockView {
                seat: turn.seat,
                remaining_ms: ms(action_end(&self.rules, turn).saturating_duration_since(now)),
                time_bank_ms: bank_ms,
                in_time_bank: false,
            },
        })
    }

    /// The clock moved on (R38): warn, start the time bank, or out of time (the clock
    /// stops).
    pub(super) fn tick(&mut self, bank_ms: u64) -> Tick {
        let now = Instant::now();
        let Some(turn) = self.turn.as_mut() else {
            return Tick::Wait;
        };
        if now < deadline(&self.rules, turn, bank_ms) {
            return Tick::Wait;
        }
        if turn.bank_started.is_none() {
            if let Some(w) = warn_at(&self.rules, turn) {
                if !turn.warned && now >= w {
                    turn.warned = true;
                    let end = action_end(&self.rules, turn);
                    return Tick::Warn {
                        player: turn.who,
                        remaining_ms: ms(end.saturating_duration_since(now)),
                    };
                }
            }
            if bank_ms > 0 {
                turn.bank_started = Some(now);
                return self.view(bank_ms).map_or(Tick::Wait, Tick::Bank);
            }
        }
        self.turn.take().map_or(Tick::Wait, Tick::Out)
    }
}

/// When the player's own time for the decision ends.
fn action_end(rules: &ClockRules, turn: &TurnClock) -> Instant {
    turn.asked + Duration::from_millis(rules.action_ms)
}

/// When the player is warned, if the rules warn.
fn warn_at(rules: &ClockRules, turn: &TurnClock) -> Option<Instant> {
    (rules.warning_ms > 0 && rules.warning_ms < rules.action_ms)
        .then(|| action_end(rules, turn) - Duration::from_millis(rules.warning_ms))
}

/// The decision's next deadline: the end of the bank once it runs, else the warning if
/// not sent yet, else the end of the player's own time.
fn deadline(rules: &ClockRules, turn: &TurnClock, bank_ms: u64) -> Instant {
    if let Some(b) = turn.bank_started {
        return b + Duration::from_millis(bank_ms);
    }
    match warn_at(rules, turn) {
        Some(w) if !turn.warned => w,
        _ => action_end(rules, turn),
    }
}

/// Milliseconds, for the wire.
pub(super) fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
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
