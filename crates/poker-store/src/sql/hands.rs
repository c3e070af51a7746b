//! Hands: recording a hand dealt, committing completed hands with their stacks and
//! ledger rows exactly once, voiding unfinished ones, and reading histories and rake.

use super::*;

/// The columns of a `hand` row, as [`SqlHand`] reads them.
pub(crate) const HAND_COLUMNS: &str =
    "hand_id, poker_table_id, number, status, phh, record, rake, started_at, ended_at";

impl SqlStore {
    /// Marks void the hands started and never committed, of one table or all; returns
    /// them.
    pub(super) async fn void_started(&self, table: Option<TableId>) -> StoreResult<Vec<HandId>> {
        let table = table.map(|t| t.to_string());
        let one = if table.is_some() {
            " and poker_table_id = $2"
        } else {
            ""
        };
        let select_sql = self.sql(&format!(
            "select hand_id from hand where status = 'started'{}",
            one.replace("$2", "$1")
        ));
        let update_sql = self.sql(&format!(
            "update hand set status = 'void', ended_at = $1 where status = 'started'{one}"
        ));
        let mut tx = self.begin().await?;
        let mut select = sqlx::query_scalar::<_, String>(&select_sql);
        if let Some(t) = &table {
            select = select.bind(t.clone());
        }
        let ids = hand_ids(select.fetch_all(&mut *tx).await?)?;
        let mut update = sqlx::query(&update_sql).bind(now_ms());
        if let Some(t) = table {
            update = update.bind(t);
        }
        update.execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(ids)
    }

    /// [`Store::rake_by_day`] on both backends.
    pub(super) async fn rake_by_day_impl(&self, since: i64) -> StoreResult<Vec<RakeDay>> {
        let rows: Vec<SqlRakeDay> = sqlx::query_as(&self.sql(
            "select ended_at / 86400000 as day, poker_table_id, cast(sum(rake) as bigint) as rake, cast(count(*) as bigint) as hands \
             from hand where status = 'complete' and ended_at >= $1 \
             group by ended_at / 86400000, poker_table_id order by day desc, poker_table_id",
        ))
        .bind(since)
        .fetch_all(&self.pool)
        .await?;
        convert(rows)
    }

    /// [`Store::start_hands`] on both backends.
    pub(super) async fn start_hands_impl(&self, starts: &[HandStart]) -> StoreResult<()> {
        if starts.is_empty() {
            return Ok(());
        }
        let mut tx = self.begin().await?;
        self.start_hands_in(&mut tx, starts).await?;
        tx.commit().await?;
        Ok(())
    }

    /// [`Store::write_group`] on both backends: on SQLite the hands dealt, the writes
    /// that move no money and the finished hands in one transaction, so the batch costs
    /// one disk flush and one `begin`/`commit` round trip to the driver's thread instead
    /// of three; on PostgreSQL (whose hand commit has its own connections and array
    /// statements) each kind in its own transaction, in this order.
    pub(super) async fn write_group_impl(
        &self,
        starts: &[HandStart],
        writes: &[TableWrite],
        hands: &[CompletedHand],
    ) -> StoreResult<()> {
        if self.pg.is_some() {
            self.start_hands_impl(starts).await?;
            self.save_table_writes_impl(writes).await?;
            return self.commit_hands_impl(hands).await.map(|_| ());
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
    /// [`Store::save_table_writes`] does, but the tables' states: those are returned, each
    /// table's last, to be written with the rest of the batch in one statement (a state
    /// only ever replaces the one before, and no other write touches it).
    async fn table_writes_in<'w>(
        &self,
        tx: &mut Tx,
        writes: &'w [TableWrite],
    ) -> StoreResult<Vec<(String, &'w str)>> {
        let mut states: Vec<(String, &str)> = Vec::new();
        for write in writes {
            match write {
                TableWrite::State { table, state } => {
                    let table = table.to_string();
                    states.retain(|(t, _)| *t != table);
                    states.push((table, state));
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
        let now = now_ms();
        for chunk in starts.chunks(CHUNK_ROWS) {
            let sql = format!(
                "insert into hand (hand_id, poker_table_id, number, status, rake, started_at, created_at) values {} on conflict (hand_id) do nothing",
                placeholders_with(chunk.len(), &["", "", "", "'started'", "0", "", ""], 1)
            );
            let text = self.sql(&sql);
            let mut q = sqlx::query(&text);
            for start in chunk {
                q = q
                    .bind(start.hand.to_string())
                    .bind(start.table.to_string())
                    .bind(to_i64(start.number)?)
                    .bind(start.at)
                    .bind(now);
            }
            q.execute(&mut **tx).await?;
        }
        Ok(())
    }

    /// [`Store::commit_hands`] on both backends.
    pub(super) async fn commit_hands_impl(&self, hands: &[CompletedHand]) -> StoreResult<usize> {
        if let Some(pg) = &self.pg {
            return commit_hands_pg(pg, hands).await;
        }
        check_conserved(hands)?;
        let mut tx = self.begin().await?;
        let committed = self.group_sqlite(&mut tx, &[], &[], hands).await?;
        tx.commit().await?;
        Ok(committed)
    }

    /// [`Store::hand`] on both backends.
    pub(super) async fn hand_impl(&self, hand: HandId) -> StoreResult<HandRow> {
        let row: SqlHand = sqlx::query_as(&self.sql(&format!(
            "select {HAND_COLUMNS} from hand where hand_id = $1"
        )))
        .bind(hand.to_string())
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StoreError::NotFound("hand"))?;
        HandRow::try_from(row)
    }

    /// [`Store::record_show`] on both backends.
    pub(super) async fn record_show_impl(&self, hand: HandId, phh: &str) -> StoreResult<()> {
        let done = sqlx::query(
            &self.sql("update hand set phh = $1 where hand_id = $2 and status = 'complete'"),
        )
        .bind(phh)
        .bind(hand.to_string())
        .execute(&self.pool)
        .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("hand"));
        }
        Ok(())
    }

    /// [`Store::table_hands`] on both backends.
    pub(super) async fn table_hands_impl(
        &self,
        table: TableId,
        limit: u32,
        offset: u32,
    ) -> StoreResult<Vec<HandRow>> {
        let rows: Vec<SqlHand> = sqlx::query_as(&self.sql(&format!(
            "select {HAND_COLUMNS} from hand where poker_table_id = $1 order by started_at desc, number desc limit $2 offset $3"
        )))
        .bind(table.to_string())
        .bind(i64::from(limit))
        .bind(i64::from(offset))
        .fetch_all(&self.pool)
        .await?;
        convert(rows)
    }

    /// [`Store::player_hands`] on both backends.
    pub(super) async fn player_hands_impl(
        &self,
        player: PlayerId,
        limit: u32,
        offset: u32,
    ) -> StoreResult<Vec<HandRow>> {
        let columns = HAND_COLUMNS
            .split(", ")
            .map(|c| format!("h.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        let rows: Vec<SqlHand> = sqlx::query_as(&self.sql(&format!(
            "select {columns} from hand h join hand_player hp on hp.hand_id = h.hand_id \
             where hp.player_id = $1 order by h.started_at desc, h.number desc limit $2 offset $3"
        )))
        .bind(player.to_string())
        .bind(i64::from(limit))
        .bind(i64::from(offset))
        .fetch_all(&self.pool)
        .await?;
        convert(rows)
    }
}
