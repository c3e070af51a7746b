//! The table's pace, for its lobby line: the pots of the last 50 hands and the hands
//! dealt in the last hour.

use poker_rules::Chips;
use std::collections::VecDeque;
use std::time::Duration;
use tokio::time::Instant;

/// Pots kept for the average.
const POTS: usize = 50;

/// The table's recent hands.
#[derive(Default)]
pub(super) struct Pace {
    /// The last hands' pots, oldest first.
    recent_pots: VecDeque<Chips>,
    /// When each hand of the last hour ended, oldest first.
    hand_times: VecDeque<Instant>,
}

impl Pace {
    /// A hand ended now with `pot`.
    pub(super) fn hand_ended(&mut self, pot: Chips) {
        self.recent_pots.push_back(pot);
        if self.recent_pots.len() > POTS {
            self.recent_pots.pop_front();
        }
        self.hand_times.push_back(Instant::now());
    }

    /// The average pot of the last hands and the hands of the last hour.
    pub(super) fn summary(&mut self) -> (Chips, u32) {
        let hour = Duration::from_secs(3600);
        while self.hand_times.front().is_some_and(|t| t.elapsed() > hour) {
            self.hand_times.pop_front();
        }
        let avg_pot = if self.recent_pots.is_empty() {
            0
        } else {
            self.recent_pots.iter().sum::<Chips>() / self.recent_pots.len() as Chips
        };
        (avg_pot, self.hand_times.len() as u32)
    }
}
