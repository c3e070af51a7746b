//! The tables a connection follows: owned by the connection, so they survive any change of
//! the table's owner, a NATS outage or a subscription that failed. There is one way to
//! (re)subscribe, taken on `auth` (the player's tables), on `moved`, when NATS comes back,
//! when a request finds the table moving, and after a subscription whose snapshot did not
//! come: the table is marked as owing a snapshot, and the connection subscribes again
//! (retrying while the table has no owner) until one arrives.

use crate::table::Refusal;
use poker_store::TableId;
use std::collections::HashMap;
use std::time::Duration;
use tokio::time::Instant;

/// How long a snapshot may take after a subscription was granted before the connection
/// subscribes again (it was lost on the way: an inbox that fell behind, NATS cut).
pub(crate) const SNAPSHOT_WAIT: Duration = Duration::from_secs(2);
/// How long after a failed subscription (the table moving, its node frozen) the next try
/// comes.
pub(crate) const RETRY: Duration = Duration::from_millis(400);

/// One table followed.
#[derive(Debug)]
struct Follow {
    /// Followed only while the player is seated there (their tables on `auth`), not
    /// watched.
    only_if_seated: bool,
    /// A snapshot came since the last (re)subscription: the stream is whole.
    live: bool,
    /// A subscription is being asked.
    asking: bool,
    /// When to subscribe (again) if no snapshot has come by then.
    next_try: Option<Instant>,
}

/// The tables a connection follows.
#[derive(Debug, Default)]
pub(crate) struct Follows {
    tables: HashMap<TableId, Follow>,
    /// When a snapshot of each table last came (of tables followed or being asked for:
    /// a sit's snapshot may come before the sit's answer).
    snapshots: HashMap<TableId, Instant>,
}

impl Follows {
    /// Follows a table: watched (`only_if_seated` false), or as one of the player's
    /// tables; it is subscribed to at once.
    pub(crate) fn follow(&mut self, table: TableId, only_if_seated: bool) {
        let follow = self.tables.entry(table).or_insert(Follow {
            only_if_seated,
            live: false,
            asking: false,
            next_try: None,
        });
        follow.only_if_seated &= only_if_seated;
        follow.live = false;
        follow.next_try = Some(Instant::now());
    }

    /// Followed after a request, asked at `asked`, that subscribed it already (a sit, a
    /// watch): its snapshot came since, or is on the way.
    pub(crate) fn subscribed(&mut self, table: TableId, only_if_seated: bool, asked: Instant) {
        self.follow(table, only_if_seated);
        let came = self.snapshots.get(&table).is_some_and(|at| *at >= asked);
        let follow = self.tables.get_mut(&table).expect("just followed");
        if came {
            follow.live = true;
            follow.next_try = None;
        } else {
            follow.next_try = Some(Instant::now() + SNAPSHOT_WAIT);
        }
    }

    /// No longer followed.
    pub(crate) fn unfollow(&mut self, table: TableId) {
        self.tables.remove(&table);
        self.snapshots.remove(&table);
    }

    /// Whether the table is followed.
    pub(crate) fn contains(&self, table: TableId) -> bool {
        self.tables.contains_key(&table)
    }

    /// The tables followed.
    pub(crate) fn tables(&self) -> Vec<TableId> {
        self.tables.keys().copied().collect()
    }

    /// The table's stream may have broken (it moved, NATS came back, a request found it
    /// moving): subscribed again until a snapshot comes.
    pub(crate) fn resync(&mut self, table: TableId) {
        if let Some(follow) = self.tables.get_mut(&table) {
            follow.live = false;
            follow.next_try = Some(Instant::now());
        }
    }

    /// Every table's stream may have broken.
    pub(crate) fn resync_all(&mut self) {
        for table in self.tables() {
            self.resync(table);
        }
    }

    /// A snapshot of the table came: its stream is whole.
    pub(crate) fn snapshot(&mut self, table: TableId) {
        self.snapshots.insert(table, Instant::now());
        if let Some(follow) = self.tables.get_mut(&table) {
            follow.live = true;
            follow.next_try = None;
        }
    }

    /// When the next subscription is due, if any.
    pub(crate) fn next_due(&self) -> Option<Instant> {
        self.tables
            .values()
            .filter(|f| !f.live && !f.asking)
            .filter_map(|f| f.next_try)
            .min()
    }

    /// The tables to subscribe to now, each with whether only if seated; marked as asked.
    pub(crate) fn due(&mut self, now: Instant) -> Vec<(TableId, bool)> {
        let mut due = Vec::new();
        for (table, follow) in &mut self.tables {
            if !follow.live && !follow.asking && follow.next_try.is_some_and(|t| t <= now) {
                follow.asking = true;
                due.push((*table, follow.only_if_seated));
            }
        }
        due
    }

    /// What a subscription asked by [`Follows::due`] got: granted (the snapshot is on its
    /// way), refused because the player is no longer seated there (no longer followed, if
    /// only followed so), the table gone (no longer followed), or no answer (tried again
    /// shortly).
    pub(crate) fn answered(&mut self, table: TableId, answer: Result<bool, Refusal>) {
        let Some(follow) = self.tables.get_mut(&table) else {
            return;
        };
        follow.asking = false;
        let now = Instant::now();
        match answer {
            Ok(true) => {
                if !follow.live {
                    follow.next_try = Some(now + SNAPSHOT_WAIT);
                }
            }
            Ok(false) | Err(Refusal::TableGone) => self.unfollow(table),
            Err(_) => follow.next_try = Some(now + RETRY),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_followed_table_is_subscribed_again_until_its_snapshot_comes() {
        let mut follows = Follows::default();
        let table = TableId::new();
        follows.follow(table, true);
        let now = Instant::now();
        assert_eq!(follows.due(now), vec![(table, true)]);
        // Asked once at a time.
        assert!(follows.due(now).is_empty());
        // No owner yet: tried again shortly.
        follows.answered(table, Err(Refusal::Moving));
        assert!(follows.due(now).is_empty());
        assert_eq!(follows.next_due(), Some(now + RETRY));
        assert_eq!(follows.due(now + RETRY), vec![(table, true)]);
        // Granted, but the snapshot was lost on the way: asked again after a while.
        follows.answered(table, Ok(true));
        assert!(follows.due(now + RETRY).is_empty());
        assert_eq!(follows.due(now + RETRY + SNAPSHOT_WAIT).len(), 1);
        follows.answered(table, Ok(true));
        follows.snapshot(table);
        assert_eq!(follows.next_due(), None);
        // The table moved: subscribed again.
        follows.resync_all();
        assert_eq!(follows.due(Instant::now()).len(), 1);
        // The player left meanwhile: no longer followed.
        follows.answered(table, Ok(false));
        assert!(!follows.contains(table));
    }

    #[tokio::test(start_paused = true)]
    async fn watching_a_table_followed_as_a_seat_keeps_it_past_leaving() {
        let mut follows = Follows::default();
        let table = TableId::new();
        follows.follow(table, true);
        follows.subscribed(table, false, Instant::now());
        let due = follows.due(Instant::now() + SNAPSHOT_WAIT);
        assert_eq!(due, vec![(table, false)]);
        follows.answered(table, Err(Refusal::TableGone));
        assert!(follows.tables().is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn a_snapshot_that_came_before_the_sits_answer_counts() {
        let mut follows = Follows::default();
        let table = TableId::new();
        let asked = Instant::now();
        tokio::time::advance(Duration::from_millis(5)).await;
        follows.snapshot(table);
        tokio::time::advance(Duration::from_millis(5)).await;
        follows.subscribed(table, false, asked);
        assert_eq!(follows.next_due(), None);
        // One from before the request does not.
        let later = Instant::now();
        tokio::time::advance(Duration::from_millis(5)).await;
        follows.subscribed(table, false, later);
        assert!(follows.next_due().is_some());
    }
}
