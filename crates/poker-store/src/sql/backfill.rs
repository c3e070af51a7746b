//! Filling `hand_player`'s deal time and big blind in the background (issue 38 item 4):
//! the rows a room had before migration `20261206000004_hand_player_started`, and those a
//! node of the previous release writes during a roll, are found by the partial index
//! `hand_player_unfilled` and filled from their hands a batch at a time, each batch one
//! short transaction, so a large room's upgrade no longer waits for them (filling them in
//! the migration took 144 s a million hands on PostgreSQL). Until a row is filled the
//! queries read it the old way (`started_at is null`), so nothing is missing meanwhile.
//! The server runs [`SqlStore::fill_hand_players`] in a loop of its own
//! (`poker_server::backfill`); on PostgreSQL every node does, one batch at a time.

use std::collections::HashMap;

use super::*;

/// Some rows still to fill after a hand id, in the order of the partial index
/// `hand_player_unfilled`, a hand's rows together, from where the batch before stopped:
/// without the order PostgreSQL read the table from its start while every row was
/// unfilled (the index covering the table), and from the index's start each batch stepped
/// over the entries of the rows already filled (dead until a vacuum): either way each
/// batch slower than the one before.
const UNFILLED: &str = "select hand_id, created_at from hand_player where started_at is null \
                        and hand_id > $1 order by hand_id limit $2";

/// PostgreSQL: one node's batch at a time, whichever node (the transaction's advisory
/// lock, "pfil" in ASCII and the room's schema hashed, as the archive's lock). Two nodes filling at once took rows of the same hands (a
/// batch's limit cuts a hand's rows, and each fills the whole hand), deadlocked on them,
/// and filled a tenth as fast as one alone.
const FILL_LOCK: &str =
    "select pg_try_advisory_xact_lock(1885759852, (hashtext(current_schema()) & 2147483647))";

/// The hands of some rows (one JSON array of ids).
const HANDS_OF: Dialects = Dialects {
    postgres: "select hand_id, started_at, phh, record from hand \
               where hand_id in (select jsonb_array_elements_text(cast($1 as jsonb)))",
    sqlite: "select hand_id, started_at, phh, record from hand \
             where hand_id in (select value from json_each($1))",
};

/// Fills the rows of each hand of a JSON array of `{"h": hand, "s": deal, "b": big blind}`
/// that are still unfilled.
const FILL: Dialects = Dialects {
    postgres: "update hand_player hp set started_at = (x ->> 's')::bigint, \
               big_blind = (x ->> 'b')::bigint \
               from jsonb_array_elements(cast($1 as jsonb)) x \
               where hp.hand_id = x ->> 'h' and hp.started_at is null",
    sqlite: "update hand_player set started_at = x.s, big_blind = x.b \
             from (select value ->> '$.h' as h, value ->> '$.s' as s, value ->> '$.b' as b \
                   from json_each($1)) x \
             where hand_player.hand_id = x.h and hand_player.started_at is null",
};

/// One hand's values for its rows.
#[derive(serde::Serialize)]
struct Fill {
    h: String,
    s: i64,
    b: i64,
}

/// The big blind a hand was played for, as the commit reckons it ([`crate::big_blind`]):
/// from the record's posts, else the PHH; 0 when neither says. Only the posts are read
/// from the record, so a record of an older shape still gives its big blind, and one that
/// cannot be read at all leaves the PHH to say (a row is filled whatever its hand holds:
/// the filler never stops at one it cannot read).
fn big_blind_of(record: Option<&str>, phh: Option<&str>) -> i64 {
    #[derive(serde::Deserialize)]
    struct Posts {
        #[serde(default)]
        posts: Vec<poker_rules::table::Post>,
    }
    let posts = record
        .and_then(|r| serde_json::from_str::<Posts>(r).ok())
        .map(|p| p.posts)
        .unwrap_or_default();
    let record = HandRecord {
        posts,
        ..HandRecord::default()
    };
    crate::big_blind(&record, phh)
        .and_then(|b| i64::try_from(b).ok())
        .unwrap_or(0)
}

/// What one batch of [`SqlStore::fill_hand_players`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FillBatch {
    /// Rows filled.
    pub rows: u64,
    /// The last hand the batch took: the next batch goes on after it. `None` when no row
    /// was left to fill after the hand it was given, or when another node's batch was
    /// under way (`elsewhere`).
    pub next: Option<String>,
    /// PostgreSQL: another node was filling a batch, so this one did nothing.
    pub elsewhere: bool,
}

impl SqlStore {
    /// Fills the deal time and big blind of up to `rows` `hand_player` rows still without
    /// them, of the hands after `after` (a hand id; `""` from the first), with every
    /// other unfilled row of the same hands, exactly as this release's commit writes them:
    /// the hand's `started_at`, and [`crate::big_blind`] of its record and PHH (0 when
    /// none is known). A row whose hand is gone (never the case for rows a commit wrote,
    /// since the archive deletes a hand's players with it) takes its own commit time and
    /// 0, so that it leaves the rows to fill. One transaction. A pass goes batch after
    /// batch on from each [`FillBatch::next`] until it is `None`; rows written behind it
    /// meanwhile (a node of the previous release commits hands of any id) are found by the
    /// next pass, from `""`.
    pub async fn fill_hand_players(&self, rows: u32, after: &str) -> StoreResult<FillBatch> {
        // SQLite: the write lock first (waiting up to the busy timeout for another
        // process's writer, such as `pokerd archive`), since a transaction that reads and
        // then writes cannot wait for it and fails at once ("database is locked").
        let mut tx = match self.backend {
            Backend::Sqlite => self.pool.begin_with("begin immediate").await?,
            Backend::Postgres => self.begin().await?,
        };
        if self.backend == Backend::Postgres {
            let ours: bool = sqlx::query_scalar(FILL_LOCK).fetch_one(&mut *tx).await?;
            if !ours {
                tx.commit().await?;
                return Ok(FillBatch {
                    rows: 0,
                    next: None,
                    elsewhere: true,
                });
            }
        }
        let picked: Vec<(String, i64)> = sqlx::query_as(UNFILLED)
            .bind(after)
            .bind(i64::from(rows.max(1)))
            .fetch_all(&mut *tx)
            .await?;
        let Some(next) = picked.iter().map(|(h, _)| h.clone()).max() else {
            tx.commit().await?;
            return Ok(FillBatch {
                rows: 0,
                next: None,
                elsewhere: false,
            });
        };
        let mut committed_at: HashMap<String, i64> = HashMap::new();
        for (hand, at) in picked {
            let first = committed_at.entry(hand).or_insert(at);
            *first = (*first).min(at);
        }
        let ids: Vec<&String> = committed_at.keys().collect();
        let hands: Vec<(String, i64, Option<String>, Option<String>)> =
            sqlx::query_as(HANDS_OF.of(self.backend))
                .bind(json_rows(&ids)?)
                .fetch_all(&mut *tx)
                .await?;
        let mut fills: HashMap<String, Fill> = HashMap::new();
        for (h, started_at, phh, record) in hands {
            let b = big_blind_of(record.as_deref(), phh.as_deref());
            fills.insert(
                h.clone(),
                Fill {
                    h,
                    s: started_at,
                    b,
                },
            );
        }
        for (h, at) in committed_at {
            fills.entry(h.clone()).or_insert(Fill { h, s: at, b: 0 });
        }
        let fills: Vec<Fill> = fills.into_values().collect();
        let filled = sqlx::query(FILL.of(self.backend))
            .bind(json_rows(&fills)?)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        tx.commit().await?;
        Ok(FillBatch {
            rows: filled,
            next: Some(next),
            elsewhere: false,
        })
    }
}
