//! Tables: creating them, their configuration, status and saved between-hands state.

use super::*;

impl SqlStore {
    /// Creates a table.
    pub async fn create_table(&self, name: &str, config: &str) -> StoreResult<TableId> {
        let name = names::table_name(name)?;
        let id = TableId::new();
        sqlx::query(
            "insert into poker_table (poker_table_id, name, config, status, \
             created_at) values ($1, $2, $3, 'open', $4)",
        )
        .bind(id.to_string())
        .bind(&name)
        .bind(config)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(id)
    }

    /// Creates these tables (name, configuration) only if there is no table at all, in
    /// one transaction; returns their ids, in order, or nothing if there were tables.
    /// Nodes starting together on an empty database (a play-money room's first start)
    /// make them once: on PostgreSQL the check and the inserts hold a transaction-scoped
    /// advisory lock. (SQLite has one process: a racing writer fails, it never adds.)
    pub async fn create_tables_if_none(
        &self,
        tables: &[(String, String)],
    ) -> StoreResult<Vec<TableId>> {
        /// The advisory lock held while the first tables are made ("poker" and 1).
        const FIRST_TABLES_LOCK: i64 = 0x706f_6b65_7200_0001;
        let names = tables
            .iter()
            .map(|(name, _)| names::table_name(name))
            .collect::<Result<Vec<_>, _>>()?;
        let mut tx = self.begin().await?;
        if self.backend == Backend::Postgres {
            sqlx::query("select 1 as locked from pg_advisory_xact_lock($1)")
                .bind(FIRST_TABLES_LOCK)
                .fetch_one(&mut *tx)
                .await?;
        }
        let any = sqlx::query("select 1 as one from poker_table limit 1")
            .fetch_optional(&mut *tx)
            .await?;
        if any.is_some() {
            return Ok(Vec::new());
        }
        let now = now_ms();
        let mut ids = Vec::new();
        for (name, (_, config)) in names.iter().zip(tables) {
            let id = TableId::new();
            sqlx::query(
                "insert into poker_table (poker_table_id, name, config, status, \
                 created_at) values ($1, $2, $3, 'open', $4)",
            )
            .bind(id.to_string())
            .bind(name)
            .bind(config)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            ids.push(id);
        }
        tx.commit().await?;
        Ok(ids)
    }

    /// Every table.
    pub async fn tables(&self) -> StoreResult<Vec<TableRow>> {
        let rows: Vec<SqlTable> = sqlx::query_as("select poker_table_id, name, config, status, created_at from poker_table order by created_at")
            .fetch_all(&self.pool)
            .await?;
        convert(rows)
    }

    /// One table, by id (its key: no scan), whatever its status.
    pub async fn table(&self, table: TableId) -> StoreResult<TableRow> {
        let row: SqlTable = sqlx::query_as(
            "select poker_table_id, name, config, status, created_at from poker_table \
             where poker_table_id = $1",
        )
        .bind(table.to_string())
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StoreError::NotFound("table"))?;
        TableRow::try_from(row)
    }

    /// Saves a table's between-hands state (JSON).
    pub async fn set_table_state(&self, table: TableId, state: &str) -> StoreResult<()> {
        let state = state.to_string();
        self.save_table_writes(&[TableWrite::State { table, state }])
            .await
    }

    /// A table's saved between-hands state, if any.
    pub async fn table_state(&self, table: TableId) -> StoreResult<Option<String>> {
        let state: Option<String> =
            sqlx::query_scalar("select state from poker_table where poker_table_id = $1")
                .bind(table.to_string())
                .fetch_optional(&self.pool)
                .await?
                .ok_or(StoreError::NotFound("table"))?;
        Ok(state)
    }

    /// Replaces a table's configuration (an operator's live change, e.g. its chat).
    pub async fn set_table_config(&self, table: TableId, config: &str) -> StoreResult<()> {
        let done = sqlx::query("update poker_table set config = $1 where poker_table_id = $2")
            .bind(config)
            .bind(table.to_string())
            .execute(&self.pool)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("table"));
        }
        Ok(())
    }

    /// Sets a table's status (open, closing, closed).
    pub async fn set_table_status(&self, table: TableId, status: TableStatus) -> StoreResult<()> {
        let done = sqlx::query("update poker_table set status = $1 where poker_table_id = $2")
            .bind(status.as_str())
            .bind(table.to_string())
            .execute(&self.pool)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("table"));
        }
        Ok(())
    }
}
