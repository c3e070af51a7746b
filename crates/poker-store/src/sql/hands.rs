//! Hands: recording a hand dealt, committing completed hands with their stacks and
//! ledger rows exactly once, voiding unfinished ones, and reading histories and rake.

use super::*;

/// The hands started and never committed, of every table.
const STARTED: &str = "select hand_id from hand where status = 'started'";

/// [`STARTED`] of one table.
const STARTED_AT_TABLE: &str =
    "select hand_id from hand where status = 'started' and poker_table_id = $1";

/// Voids the hands started and never committed, of every table.
const VOID_STARTED: &str =
    "update hand set status = 'void', ended_at = $1 where status = 'started'";

/// [`VOID_STARTED`] of one table.
const VOID_STARTED_AT_TABLE: &str = "update hand set status = 'void', ended_at = $1 \
     where status = 'started' and poker_table_id = $2";

/// Records hands just dealt (PostgreSQL; SQLite's is in `sqlite_batch`), given as one
/// JSON array of [`StartRow`]s; a hand recorded before is left as it is.
const START_HANDS_POSTGRES: &str = "insert into hand \
     (hand_id, poker_table_id, number, status, rake, started_at, created_at) \
     select v.hand_id, v.poker_table_id, v.number, 'started', 0, v.started_at, $2 \
     from jsonb_to_recordset(cast($1 as jsonb)) \
         as v (hand_id text, poker_table_id text, number bigint, started_at bigint) \
     on conflict (hand_id) do nothing";

/// A hand just dealt, as a row of the JSON array the statements that record hands read
/// (by these names).
#[derive(serde::Serialize)]
pub(crate) struct StartRow {
    /// The hand.
    pub hand_id: String,
    /// Its table.
    pub poker_table_id: String,
    /// Its number at the table.
    pub number: i64,
    /// When it was dealt.
    pub started_at: i64,
}

impl StartRow {
    /// The rows of `starts`, refusing a number past what the database holds.
    pub(crate) fn of(starts: &[HandStart]) -> StoreResult<Vec<StartRow>> {
        starts
            .iter()
            .map(|s| {
                Ok(StartRow {
                    hand_id: s.hand.to_string(),
                    poker_table_id: s.table.to_string(),
                    number: to_i64(s.number)?,
                    started_at: s.at,
                })
            })
            .collect()
    }
}

impl SqlStore {
    /// Marks void the hands started and never committed, of one table or all; returns
    /// them.
    pub(super) async fn void_started(&self, table: Option<TableId>) -> StoreResult<Vec<HandId>> {
        let table = table.map(|t| t.to_string());
        let (select, update) = match table {
            Some(_) => (STARTED_AT_TABLE, VOID_STARTED_AT_TABLE),
            None => (STARTED, VOID_STARTED),
        };
        let mut tx = self.begin().await?;
        let mut select = sqlx::query_scalar::<_, String>(select);
        if let Some(t) = &table {
            select = select.bind(t.clone());
        }
        let ids = hand_ids(select.fetch_all(&mut *tx).await?)?;
        let mut update = sqlx::query(update).bind(now_ms());
        if let Some(t) = table {
            update = update.bind(t);
        }
        update.execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(ids)
    }

    /// The rake collected per day (UTC) and table by hands that ended on the day of
    /// `since` (unix milliseconds) or later, newest day first: `table_day`'s rows, which
    /// each commit adds to (a row per table and day, whatever the archive holds).
    pub async fn rake_by_day(&self, since: i64) -> StoreResult<Vec<RakeDay>> {
        // Read in the key's order and sorted here: the database's sort of the text ids
        // was three quarters of the time (60,000 rows: 2,000 tables for 30 days). On
        // PostgreSQL through the native pool: decoding tens of thousands of rows through
        // `Any` (each value copied into its own row) was most of what remained.
        const SQL: &str = "select day, poker_table_id, rake, hands from table_day where day >= $1";
        let day = since.div_euclid(super::commit::DAY_MS);
        let rows: Vec<SqlRakeDay> = match &self.pg {
            Some(pg) => sqlx::query_as(SQL).bind(day).fetch_all(pg).await?,
            None => sqlx::query_as(SQL).bind(day).fetch_all(&self.pool).await?,
        };
        let mut days: Vec<RakeDay> = rake_days(rows)?;
        // Newest day first ("YYYY-MM-DD" sorts as its date), then by table id (a uuid's
        // order is its text's).
        days.sort_unstable_by(|a, b| b.day.cmp(&a.day).then(a.table_id.0.cmp(&b.table_id.0)));
        Ok(days)
    }

    /// The rake and hands of the days from the day of `since` (unix milliseconds) on,
    /// summed per day or per table ([`RakeBy`]): what the rake page shows of a room of
    /// thousands of tables, where a row per table and day is tens of thousands of rows.
    pub async fn rake_totals(&self, since: i64, by: RakeBy) -> StoreResult<Vec<RakeTotal>> {
        let sql = match by {
            RakeBy::Day => {
                "select day, cast(sum(rake) as bigint), cast(sum(hands) as bigint) \
                 from table_day where day >= $1 group by day"
            }
            RakeBy::Table => {
                "select poker_table_id, cast(sum(rake) as bigint), cast(sum(hands) as bigint) \
                 from table_day where day >= $1 group by poker_table_id"
            }
        };
        let day = since.div_euclid(super::commit::DAY_MS);
        let mut totals = match by {
            RakeBy::Day => {
                let rows: Vec<(i64, i64, i64)> =
                    sqlx::query_as(sql).bind(day).fetch_all(&self.pool).await?;
                rows.into_iter()
                    .map(|(d, rake, hands)| RakeTotal {
                        day: Some(day_string(d)),
                        table_id: None,
                        rake: rake as Chips,
                        hands: hands as u64,
                    })
                    .collect::<Vec<_>>()
            }
            RakeBy::Table => {
                let rows: Vec<(String, i64, i64)> =
                    sqlx::query_as(sql).bind(day).fetch_all(&self.pool).await?;
                rows.into_iter()
                    .map(|(t, rake, hands)| {
                        Ok(RakeTotal {
                            day: None,
                            table_id: Some(TableId(uuid(&t)?)),
                            rake: rake as Chips,
                            hands: hands as u64,
                        })
                    })
                    .collect::<StoreResult<Vec<_>>>()?
            }
        };
        // Newest day first; the most raked table first, then by id.
        totals.sort_unstable_by(|a, b| {
            b.day
                .cmp(&a.day)
                .then(b.rake.cmp(&a.rake))
                .then(a.table_id.map(|t| t.0).cmp(&b.table_id.map(|t| t.0)))
        });
        Ok(totals)
    }

    /// Start-up: hands started but never committed are void. Returns them.
    pub async fn recover(&self) -> StoreResult<Vec<HandId>> {
        self.void_started(None).await
    }

    /// One table's hands started but never committed are void (its task failed mid-hand;
    /// the stored stacks are as the hand began). Returns them.
    pub async fn void_hands(&self, table: TableId) -> StoreResult<Vec<HandId>> {
        self.void_started(Some(table)).await
    }

    /// Records hands just dealt, in one transaction, each as [`SqlStore::start_hand`] does;
    /// a stale fence refuses them all.
    pub async fn start_hands(&self, starts: &[HandStart]) -> StoreResult<()> {
        if starts.is_empty() {
            return Ok(());
        }
        let mut tx = self.begin().await?;
        self.start_hands_in(&mut tx, starts).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Records that a hand was dealt (it is void unless committed). Recording it again, or
    /// after the hand was committed, changes nothing (a retried write is harmless).
    /// Refused with [`StoreError::Fenced`] on a stale `fence`, like [`SqlStore::buy_in`].
    pub async fn start_hand(
        &self,
        hand: HandId,
        table: TableId,
        number: u64,
        at: i64,
        fence: Option<u64>,
    ) -> StoreResult<()> {
        let start = HandStart {
            hand,
            table,
            number,
            at,
            fence,
        };
        self.start_hands(&[start]).await
    }

    /// Writes a persister's batch: hands just dealt, writes that move no money and
    /// finished hands, each kind as [`SqlStore::start_hands`],
    /// [`SqlStore::save_table_writes`] and [`SqlStore::commit_hands`] write it. On SQLite
    /// all three go in one transaction (one disk flush and one `begin`/`commit` for the
    /// batch instead of three: nothing is written unless everything is); on PostgreSQL
    /// (whose hand commit has its own connections and array statements) each kind in its
    /// own, in that order. Each kind is idempotent (a hand dealt is recorded once, a
    /// write sets what it sets, a hand commits exactly once), so after an error the
    /// caller may write them again kind by kind.
    pub async fn write_group(
        &self,
        starts: &[HandStart],
        writes: &[TableWrite],
        hands: &[CompletedHand],
    ) -> StoreResult<()> {
        if self.pg.is_some() {
            self.start_hands(starts).await?;
            self.save_table_writes(writes).await?;
            return self.commit_hands(hands).await.map(|_| ());
        }
        if starts.is_empty() && writes.is_empty() && hands.is_empty() {
            return Ok(());
        }
        check_conserved(hands)?;
        let mut tx = self.begin().await?;
        self.check_start_fences(&mut tx, starts).await?;
        let states = self.table_writes_in(&mut tx, writes).await?;
        self.group_sqlite(&mut tx, starts, &states, hands).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Writes that move no money inside `tx`, one by one in order as
    /// [`SqlStore::save_table_writes`] does, but the tables' states: those are returned, each
    /// table's last, to be written with the rest of the batch in one statement (a state
    /// only ever replaces the one before, and no other write touches it).
    async fn table_writes_in<'w>(
        &self,
        tx: &mut Tx,
        writes: &'w [TableWrite],
    ) -> StoreResult<Vec<StateRow<'w>>> {
        let mut states: Vec<StateRow> = Vec::new();
        for write in writes {
            match write {
                TableWrite::State { table, state } => {
                    let table = table.to_string();
                    states.retain(|s| s.poker_table_id != table);
                    states.push(StateRow {
                        poker_table_id: table,
                        state,
                    });
                }
                other => self.table_write(tx, other).await?,
            }
        }
        Ok(states)
    }

    /// Checks the fences of hands just dealt inside `tx`, each table's once.
    async fn check_start_fences(&self, tx: &mut Tx, starts: &[HandStart]) -> StoreResult<()> {
        let mut checked: Vec<TableId> = Vec::new();
        for start in starts {
            if start.fence.is_some() && !checked.contains(&start.table) {
                self.check_fence(tx, start.table, start.fence).await?;
                checked.push(start.table);
            }
        }
        Ok(())
    }

    /// Records hands just dealt inside `tx` (their fences checked first).
    async fn start_hands_in(&self, tx: &mut Tx, starts: &[HandStart]) -> StoreResult<()> {
        self.check_start_fences(tx, starts).await?;
        if self.backend == Backend::Sqlite {
            return self.group_sqlite(tx, starts, &[], &[]).await.map(|_| ());
        }
        sqlx::query(START_HANDS_POSTGRES)
            .bind(json_rows(&StartRow::of(starts)?)?)
            .bind(now_ms())
            .execute(&mut **tx)
            .await?;
        Ok(())
    }

    /// Commits completed hands in one transaction (group commit): their records and the
    /// stacks they changed, exactly once each. Returns how many were newly committed.
    /// A hand with a `fence` whose table lease no longer has that token fails the whole
    /// batch with [`StoreError::Fenced`] (even if the hand was committed or voided
    /// before), and nothing is written.
    pub async fn commit_hands(&self, hands: &[CompletedHand]) -> StoreResult<usize> {
        if let Some(pg) = &self.pg {
            return commit_hands_pg(pg, hands).await;
        }
        check_conserved(hands)?;
        let mut tx = self.begin().await?;
        let committed = self.group_sqlite(&mut tx, &[], &[], hands).await?;
        tx.commit().await?;
        Ok(committed)
    }

    /// A hand by id.
    pub async fn hand(&self, hand: HandId) -> StoreResult<HandRow> {
        let row: SqlHand = sqlx::query_as(concat!(
            "select ",
            hand_columns!(),
            " from hand h where hand_id = $1"
        ))
        .bind(hand.to_string())
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StoreError::NotFound("hand"))?;
        HandRow::try_from(row)
    }

    /// Replaces a committed hand's history with one that adds what its winner showed after
    /// an uncontested win (the same history and one line): every download and every
    /// proof is made from it. `NotFound` unless the hand is committed.
    pub async fn record_show(&self, hand: HandId, phh: &str) -> StoreResult<()> {
        let done =
            sqlx::query("update hand set phh = $1 where hand_id = $2 and status = 'complete'")
                .bind(phh)
                .bind(hand.to_string())
                .execute(&self.pool)
                .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("hand"));
        }
        Ok(())
    }

    /// A table's hands, newest first.
    pub async fn table_hands(
        &self,
        table: TableId,
        limit: u32,
        offset: u32,
    ) -> StoreResult<Vec<HandRow>> {
        let rows: Vec<SqlHand> = sqlx::query_as(concat!(
            "select ",
            hand_columns!(),
            " from hand h where poker_table_id = $1 \
             order by started_at desc, number desc limit $2 offset $3"
        ))
        .bind(table.to_string())
        .bind(i64::from(limit))
        .bind(i64::from(offset))
        .fetch_all(&self.pool)
        .await?;
        convert(rows)
    }

    /// A player's hands, newest first.
    pub async fn player_hands(
        &self,
        player: PlayerId,
        limit: u32,
        offset: u32,
    ) -> StoreResult<Vec<HandRow>> {
        // Read from the players' index, not from every hand the player ever played: a
        // hand's players are written when it ends, after it was dealt (`hp.created_at` is
        // at or after `h.started_at`). So the `limit + offset` hands that ended last were
        // dealt at or after the earliest of them was, `floor`; at least that many were
        // dealt since `floor`, so the page's hands were too, and they ended at or after
        // it: the index's range from `floor` on holds the whole page (the same rows as
        // sorting every hand, with a few dozen reads instead of one per hand played).
        let rows: Vec<SqlHand> = sqlx::query_as(concat!(
            "select ",
            hand_columns!(),
            " from hand h join hand_player hp on hp.hand_id = h.hand_id \
             where hp.player_id = $1 and hp.created_at >= \
             (select min(r.started_at) from (select h2.started_at from hand_player p2 \
              join hand h2 on h2.hand_id = p2.hand_id where p2.player_id = $1 \
              order by p2.created_at desc limit $2 + $3) r) \
             order by h.started_at desc, h.number desc limit $2 offset $3"
        ))
        .bind(player.to_string())
        .bind(i64::from(limit))
        .bind(i64::from(offset))
        .fetch_all(&self.pool)
        .await?;
        convert(rows)
    }
}
