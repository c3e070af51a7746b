//! Seats kept for players who are away: one sitting out, or with no connection to the
//! table, keeps the seat for the room's `seat_keep_secs` (room clock), then is cashed out
//! through the ledger as if they had left, and told (`seat_released`, to a connection
//! still open, or kept in the store and told when the player comes back). A player in a hand is not: the clock plays their hand, and the seat goes
//! at a later look, between hands. [`crate::away`] asks every table of this node to look.

use super::actor::Actor;
use super::*;

impl Actor {
    /// Releases the seats of players away for `keep_secs` or more (0: kept for ever).
    pub(super) async fn release_away(&mut self, keep_secs: u64) {
        if keep_secs == 0 {
            return;
        }
        let now = self.ctx.clock.now_secs();
        let seated: Vec<(usize, PlayerId, bool)> = self
            .table
            .seats()
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.as_ref().map(|s| (i, s.player, s.sitting_out)))
            .collect();
        let mut released = false;
        for (seat, player, sitting_out) in seated {
            let away = sitting_out || !self.audience.connected(player);
            let secs = self.book.away_for(player, now, away);
            if secs < keep_secs || self.in_hand(player) || self.book.leaving(player) {
                continue;
            }
            // Whether a page of the player's follows the table now: if none does, the word
            // is kept for when the player comes back.
            let connected = self.audience.connected(player);
            match self.leave_now(player, seat).await {
                Ok(amount) => {
                    tracing::info!(%player, away_secs = secs, amount, "seat released: away too long");
                    self.audience.send_to(
                        player,
                        ServerMsg::SeatReleased {
                            table_id: self.table_id,
                            away_secs: secs,
                            amount,
                            table_name: None,
                        },
                    );
                    if !connected {
                        let kept = self
                            .ctx
                            .store
                            .note_seat_released(player, self.table_id, &self.name, secs, amount)
                            .await;
                        if let Err(e) = kept {
                            tracing::warn!(%player, "keeping the seat's release to tell: {e}");
                        }
                    }
                    released = true;
                }
                // Another node owns the table now: it stopped here.
                Err(_) if self.life.is_closed() => return,
                Err(refusal) => tracing::warn!("releasing an away seat: {refusal}"),
            }
        }
        if released {
            self.seats_changed();
        }
    }
}
