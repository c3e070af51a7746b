//! Seats of players who are away: every table of this node is asked, now and then, to
//! release the seats of players away (sitting out, or with no connection) longer than
//! `room.seat_keep_secs` of the room's clock ([`crate::table::Request::ReleaseAway`]; the
//! table decides and cashes them out through the ledger, `table/away.rs`).

use crate::table::Request;
use crate::AppState;
use std::sync::Arc;
use std::time::Duration;

/// How often the tables are asked: a tenth of the time a seat is kept (in wall time, the
/// room's clock may run faster), between one and ten seconds. A seat is released at most
/// that late.
pub fn period(keep_secs: u64, clock_scale: u32) -> Duration {
    let wall_ms = keep_secs.saturating_mul(1000) / u64::from(clock_scale.max(1));
    Duration::from_millis(wall_ms / 10).clamp(Duration::from_secs(1), Duration::from_secs(10))
}

/// Asks every table of this node to release its away seats until the server shuts down
/// (nothing to do when seats are kept for ever).
pub fn spawn(state: Arc<AppState>) -> tokio::task::JoinHandle<()> {
    let keep_secs = state.config.room.seat_keep_secs;
    let every = period(keep_secs, state.config.room.clock_scale);
    let mut shutting_down = state.shutting_down.clone();
    tokio::spawn(async move {
        if keep_secs == 0 {
            return;
        }
        loop {
            tokio::select! {
                _ = tokio::time::sleep(every) => {}
                _ = shutting_down.changed() => return,
            }
            for (_, handle) in state.tables.handles() {
                // One at a time: a cash-out is a store write, and nothing here is urgent.
                let _ = handle
                    .request(Request::ReleaseAway { keep_secs }, None)
                    .await;
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_asked_a_tenth_of_the_keep_between_one_and_ten_seconds() {
        assert_eq!(period(3600, 1), Duration::from_secs(10));
        assert_eq!(period(60, 1), Duration::from_secs(6));
        assert_eq!(period(2, 1), Duration::from_secs(1));
        assert_eq!(period(3600, 120), Duration::from_secs(3));
    }
}
