//! What players last left this table with, within the rathole window (R26): a player who
//! comes back within it buys in for at least that. Read from the store once, when the
//! table's actor starts, and kept by the actor from then on: its own cash-outs write the
//! table's rathole rows (each in the cash-out's transaction), and while it holds the table
//! no one else's can (a cash-out under a stale lease fence commits nothing). A sit so reads
//! nothing to check its range.

use poker_store::{PlayerId, RatholeRow, SqlStore, StoreResult, TableId};
use std::collections::HashMap;

/// The table's departures within its rathole window.
pub(super) struct Departures {
    /// The window, in room milliseconds.
    window_ms: i64,
    /// By player: their last departure within the window (or older, until pruned).
    last: HashMap<PlayerId, RatholeRow>,
}

impl Departures {
    /// The table's departures within `window_secs` of `now_ms` (room time), from the store.
    pub(super) async fn load(
        store: &SqlStore,
        table: TableId,
        window_secs: u64,
        now_ms: i64,
    ) -> StoreResult<Departures> {
        let window_ms = i64::try_from(window_secs.saturating_mul(1000)).unwrap_or(i64::MAX);
        let since = now_ms.saturating_sub(window_ms);
        let last = store
            .ratholes_since(table, since)
            .await?
            .into_iter()
            .collect();
        Ok(Departures { window_ms, last })
    }

    /// What `player` last left with, if within the window when the table started or since.
    pub(super) fn of(&self, player: PlayerId) -> Option<RatholeRow> {
        self.last.get(&player).cloned()
    }

    /// `player` was cashed out with `stack` at `left_at` (room ms), as the store recorded;
    /// departures out of the window by then are forgotten.
    pub(super) fn left(&mut self, player: PlayerId, stack: poker_rules::Chips, left_at: i64) {
        let window_ms = self.window_ms;
        self.last
            .retain(|_, r| left_at.saturating_sub(r.left_at) < window_ms);
        self.last.insert(player, RatholeRow { stack, left_at });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_departure_is_kept_for_its_window_and_the_last_one_counts() {
        let mut d = Departures {
            window_ms: 60_000,
            last: HashMap::new(),
        };
        let (a, b) = (PlayerId::new(), PlayerId::new());
        d.left(a, 500, 1_000);
        d.left(a, 300, 2_000);
        assert_eq!(
            d.of(a),
            Some(RatholeRow {
                stack: 300,
                left_at: 2_000
            })
        );
        assert_eq!(d.of(b), None);
        // b leaves a minute after a: a's departure is out of the window, forgotten.
        d.left(b, 100, 62_000);
        assert_eq!(d.of(a), None);
        assert_eq!(d.of(b).map(|r| r.stack), Some(100));
    }
}
