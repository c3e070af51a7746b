//! The hand archive's columns filled in the background (issue 38 item 4): every node fills
//! the `hand_player` rows still without their hand's deal time and big blind
//! ([`poker_store::SqlStore::fill_hand_players`]), those the room had before this release
//! and those a node of the previous release writes during a roll, a small batch at a
//! time with a pause after each, so that the tables' commits keep the database (on SQLite,
//! its one writing connection) most of the time. Until a row is filled the queries read it
//! the old way; nothing waits for the filler (docs/operations.md, Rolling upgrades).

use crate::AppState;
use poker_store::{Backend, FillBatch};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Rows a batch. PostgreSQL: 1,200 (about 200 hands of six players; 71 ms p50 on a room of
/// a million hands, beside the commits, which it never holds up). SQLite: 240, since a
/// batch holds the one writing connection and the tables' commits wait for it (about
/// 20 ms; 1,200 rows took 79 ms p50). Measured with `archive_bench --unfilled` and
/// `--fill-only` (docs/persistence.md, The hand archive).
pub fn batch_rows(backend: Backend) -> u32 {
    match backend {
        Backend::Postgres => 1_200,
        Backend::Sqlite => 240,
    }
}

/// How long the filler waits once nothing is left before it looks again: rows a node of
/// the previous release commits during a roll are filled that late.
pub const IDLE: Duration = Duration::from_secs(60);

/// How long the filler waits when another node (PostgreSQL) was filling a batch: it
/// holds the batch's lock for a fraction of a second, then pauses three times as long.
pub const ELSEWHERE: Duration = Duration::from_millis(250);

/// The pause after a batch that took `took`: three times as long (at least a millisecond),
/// so the filler holds the database a quarter of the time at most.
pub fn pause_after(took: Duration) -> Duration {
    (took * 3).max(Duration::from_millis(1))
}

/// Fills until the server shuts down.
pub fn spawn(state: Arc<AppState>) -> tokio::task::JoinHandle<()> {
    let mut shutting_down = state.shutting_down.clone();
    tokio::spawn(async move {
        // Logged when work is found, at most once a minute while it lasts, and when done.
        let mut working = false;
        let mut filled_since_log = 0u64;
        let mut last_log = Instant::now();
        // Where the pass is: the last hand filled ("" from the first).
        let mut after = String::new();
        let rows = batch_rows(state.store.backend());
        loop {
            let started = Instant::now();
            let wait = match state.store.fill_hand_players(rows, &after).await {
                Ok(FillBatch {
                    rows: filled,
                    next: Some(next),
                    ..
                }) => {
                    after = next;
                    if !working && filled > 0 {
                        tracing::info!(
                            "filling the deal time and big blind of hand players that have \
                             none, in the background"
                        );
                        working = true;
                        last_log = Instant::now();
                    }
                    state
                        .metrics
                        .hand_players_filled
                        .fetch_add(filled, Ordering::Relaxed);
                    filled_since_log += filled;
                    if working && last_log.elapsed() >= Duration::from_secs(60) {
                        tracing::info!(
                            "hand players' deal times filled: {filled_since_log} rows in the \
                             last minute"
                        );
                        filled_since_log = 0;
                        last_log = Instant::now();
                    }
                    pause_after(started.elapsed())
                }
                // Another node's batch is under way: its turn, this one's in a moment.
                Ok(FillBatch {
                    elsewhere: true, ..
                }) => ELSEWHERE,
                // The pass is over: another at once from the first hand, for rows written
                // behind it meanwhile; when that finds none either, the filler rests.
                Ok(FillBatch { next: None, .. }) if !after.is_empty() => {
                    after.clear();
                    Duration::ZERO
                }
                Ok(FillBatch { next: None, .. }) => {
                    if working {
                        tracing::info!(
                            "hand players' deal times filled: {filled_since_log} rows since the last line, none left"
                        );
                        working = false;
                        filled_since_log = 0;
                    }
                    IDLE
                }
                Err(e) => {
                    tracing::warn!("filling hand players' deal times: {e}");
                    after.clear();
                    IDLE
                }
            };
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = shutting_down.changed() => return,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filler_pauses_three_times_its_batch_so_it_holds_the_database_a_quarter_of_the_time() {
        assert_eq!(
            pause_after(Duration::from_millis(4)),
            Duration::from_millis(12)
        );
        assert_eq!(pause_after(Duration::ZERO), Duration::from_millis(1));
    }
}
