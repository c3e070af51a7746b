//! After each hand: stacks, who posted what, the kill and the rock.

use super::*;
use crate::hand::{Chips, Hand};

impl<P: Clone + PartialEq> Table<P> {
    /// Absorbs a finished hand: stacks, who posted what, kill and rock.
    pub fn finish_hand(&mut self, hand: &Hand) -> Result<(), TableError> {
        let plan = self.current.as_ref().ok_or(TableError::WrongHand)?;
        let stacks = hand.final_stacks().ok_or(TableError::WrongHand)?;
        if hand.config() != &plan.config {
            return Err(TableError::WrongHand);
        }
        let plan = self.current.take().expect("checked");
        // A bomb pot leaves the table between hands as it was (H2): the next hand is
        // planned from the hand before it.
        if !plan.bomb_pot {
            self.last_dealt = plan.seats.clone();
        }
        // Winners: players who took chips from others (not just their own bet back).
        let winners: Vec<usize> = (0..plan.seats.len())
            .filter(|&i| hand.players()[i].won > 0 && stacks[i] > plan.config.seats[i].stack)
            .map(|i| plan.seats[i])
            .collect();
        let pot: Chips = hand.players().iter().map(|p| p.won).sum();
        for (i, &s) in plan.seats.iter().enumerate() {
            let o = self.seats[s]
                .as_mut()
                .expect("dealt seats stay occupied during a hand");
            o.stack = stacks[i];
            o.new = false;
            o.missed_big_blinds = 0;
            // Whatever was owed was posted, or the big blind was taken (which clears it).
            let posted_big = plan.posts.iter().any(|p| {
                p.seat == s
                    && matches!(
                        p.kind,
                        PostKind::BigBlind
                            | PostKind::MissedBig
                            | PostKind::NewPlayer
                            | PostKind::Kill
                            | PostKind::Rock
                            | PostKind::Straddle
                    )
            });
            let posted_small = plan.posts.iter().any(|p| {
                p.seat == s && matches!(p.kind, PostKind::MissedSmall | PostKind::SmallBlind)
            });
            if posted_big {
                o.missed_big = false;
                if self.rules.missed_blinds == MissedBlindRule::DeadSmallLiveBig
                    || plan
                        .posts
                        .iter()
                        .any(|p| p.seat == s && p.kind == PostKind::BigBlind)
                {
                    o.missed_small = false;
                }
            }
            if posted_small {
                o.missed_small = false;
            }
            if o.stack == 0 {
                o.sitting_out = true;
            }
        }
        // Kill triggers (R17).
        self.kill_seat = None;
        for s in 0..self.seats.len() {
            if let Some(o) = self.seats[s].as_mut() {
                if winners.contains(&s) {
                    o.wins_in_a_row += 1;
                } else {
                    o.wins_in_a_row = 0;
                }
            }
        }
        if let Some(rule) = self.rules.kill {
            let triggered = match rule.trigger {
                KillTrigger::PotOver(limit) => {
                    (winners.len() == 1 && pot > limit).then(|| winners[0])
                }
                KillTrigger::ConsecutiveWins(k) => winners
                    .iter()
                    .copied()
                    .find(|&w| self.seats[w].as_ref().is_some_and(|o| o.wins_in_a_row >= k)),
            };
            self.kill_seat =
                triggered.filter(|&s| self.seats[s].as_ref().is_some_and(|o| o.stack > 0));
        }
        // The rock passes to the pot's winner; on a split, to the winner closest to the
        // holder's left (R16).
        if let Some(holder) = plan
            .posts
            .iter()
            .find(|p| p.kind == PostKind::Rock)
            .map(|p| p.seat)
        {
            let n = self.seats.len();
            if let Some(&next) = winners.iter().min_by_key(|&&w| (w + n - holder - 1) % n) {
                self.rock_seat = Some(next);
            }
        }
        Ok(())
    }
}
