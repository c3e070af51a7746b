//! Tables: creating them, their configuration, status and saved between-hands state.

use super::*;

impl SqlStore {
    /// [`Store::create_table`] on both backends.
    pub(super) async fn create_table_impl(&self, name: &str, config: &str) -> StoreResult<TableId> {
        let name = names::table_name(name)?;
        let id = TableId::new();
        sqlx::query(&self.sql(
            "insert into poker_table (poker_table_id, name, config, status, created_at) values ($1, $2, $3, 'open', $4)",
        ))
        .bind(id.to_string())
        .bind(&name)
        .bind(config)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(id)
    }

    /// [`Store::create_tables_if_none`] on both backends.
    pub(super) async fn create_tables_if_none_impl(
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
            sqlx::query(&self.sql(
                "insert into poker_table (poker_table_id, name, config, status, created_at) values ($1, $2, $3, 'open', $4)",
            ))
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

    /// [`Store::tables`] on both backends.
    pub(super) async fn tables_impl(&self) -> StoreResult<Vec<TableRow>> {
        let rows: Vec<SqlTable> = sqlx::query_as("select poker_table_id, name, config, status, created_at from poker_table order by created_at")
            .fetch_all(&self.pool)
            .await?;
        convert(rows)
    }

    /// [`Store::table`] on both backends.
    pub(super) async fn table_impl(&self, table: TableId) -> StoreResult<TableRow> {
        let row: SqlTable = sqlx::query_as(&self.sql(
            "select poker_table_id, name, config, status, created_at from poker_table where poker_table_id = $1",
        ))
        .bind(table.to_string())
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StoreError::NotFound("table"))?;
        TableRow::try_from(row)
    }

    /// [`Store::table_state`] on both backends.
    pub(super) async fn table_state_impl(&self, table: TableId) -> StoreResult<Option<String>> {
        let state: Option<String> = sqlx::query_scalar(
            &self.sql("select state from poker_table where poker_table_id = $1"),
        )
        .bind(table.to_string())
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StoreError::NotFound("table"))?;
        Ok(state)
    }

    /// [`Store::set_table_config`] on both backends.
    pub(super) async fn set_table_config_impl(
        &self,
        table: TableId,
        config: &str,
    ) -> StoreResult<()> {
        let done =
            sqlx::query(&self.sql("update poker_table set config = $1 where poker_table_id = $2"))
                .bind(config)
                .bind(table.to_string())
                .execute(&self.pool)
                .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("table"));
        }
        Ok(())
    }

    /// [`Store::set_table_status`] on both backends.
    pub(super) async fn set_table_status_impl(
        &self,
        table: TableId,
        status: TableStatus,
    ) -> StoreResult<()> {
        let done =
            sqlx::query(&self.sql("update poker_table set status = $1 where poker_table_id = $2"))
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
