//! Table leases: which node runs a table, until when by the database's clock, with the
//! fencing token that refuses a former owner's writes.

use super::*;

/// The database's clock, in unix milliseconds, as SQL. Leases expire by it alone: the
/// nodes' own clocks (which may disagree by any amount) never decide whether a lease is
/// live. Postgres's `now()` is the transaction's start, so a statement that waited for a
/// row lock judges expiry by the earlier time (it takes nothing early); SQLite's is its
/// own clock (a file no other machine shares).
fn db_now_ms(backend: Backend) -> &'static str {
    match backend {
        Backend::Postgres => "(extract(epoch from now()) * 1000)::bigint",
        Backend::Sqlite => "cast((julianday('now') - 2440587.5) * 86400000.0 as integer)",
    }
}

/// A lease's lifetime as given, kept within what the database's arithmetic holds (a
/// negative one makes a lease that has already expired).
fn lease_ttl(ttl_ms: i64) -> i64 {
    const YEARS: i64 = 100 * 365 * 24 * 3600 * 1000;
    ttl_ms.clamp(-YEARS, YEARS)
}

impl SqlStore {
    /// [`Store::acquire_lease`] on both backends.
    pub(super) async fn acquire_lease_impl(
        &self,
        table: TableId,
        node: &str,
        ttl_ms: i64,
    ) -> StoreResult<Option<u64>> {
        let node = check_node(node)?;
        let now = db_now_ms(self.backend);
        let mut tx = self.begin().await?;
        sqlx::query(&self.sql("select 1 from poker_table where poker_table_id = $1"))
            .bind(table.to_string())
            .fetch_optional(&mut *tx)
            .await?
            .ok_or(StoreError::NotFound("table"))?;
        // One statement: Postgres takes the row lock of an existing lease and evaluates
        // the condition on its latest version, so of two racing nodes only one wins.
        // Expiry is the database's time, never the caller's.
        let token: Option<i64> = sqlx::query_scalar(&self.sql(&format!(
            "insert into table_lease (poker_table_id, node, token, expires_at, created_at) \
             values ($1, $2, 1, {now} + $3, {now}) \
             on conflict (poker_table_id) do update set \
                 token = case when table_lease.node = excluded.node and table_lease.expires_at >= {now} \
                              then table_lease.token else table_lease.token + 1 end, \
                 node = excluded.node, \
                 expires_at = excluded.expires_at \
             where table_lease.node = excluded.node or table_lease.expires_at < {now} \
             returning token",
        )))
        .bind(table.to_string())
        .bind(node)
        .bind(lease_ttl(ttl_ms))
        .fetch_optional(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(token.map(|t| t as u64))
    }

    /// [`Store::renew_leases`] on both backends.
    pub(super) async fn renew_leases_impl(
        &self,
        node: &str,
        leases: &[(TableId, u64)],
        ttl_ms: i64,
    ) -> StoreResult<Vec<TableId>> {
        let node = check_node(node)?;
        // A token past what the database holds is no lease's.
        let leases: Vec<(String, i64)> = leases
            .iter()
            .filter_map(|(t, k)| Some((t.to_string(), i64::try_from(*k).ok()?)))
            .collect();
        if leases.is_empty() {
            return Ok(Vec::new());
        }
        let now = db_now_ms(self.backend);
        // One statement for all: a lease is kept only if its row still has this node and
        // token and was not released (expires_at 0).
        let rows: Vec<String> = match &self.pg {
            Some(pg) => {
                let (tables, tokens): (Vec<String>, Vec<i64>) = leases.into_iter().unzip();
                sqlx::query_scalar(&format!(
                    "update table_lease l set expires_at = {now} + $1 \
                     from unnest($2::text[], $3::bigint[]) as r(poker_table_id, token) \
                     where l.poker_table_id = r.poker_table_id and l.token = r.token \
                         and l.node = $4 and l.expires_at <> 0 \
                     returning l.poker_table_id",
                ))
                .bind(lease_ttl(ttl_ms))
                .bind(tables)
                .bind(tokens)
                .bind(node)
                .fetch_all(pg)
                .await?
            }
            None => {
                // SQLite: the pairs as one JSON array of [table, token].
                let pairs = serde_json::to_string(&leases).expect("pairs serialize");
                sqlx::query_scalar(&format!(
                    "update table_lease set expires_at = {now} + ?1 \
                     where node = ?2 and expires_at <> 0 \
                         and poker_table_id in \
                             (select json_extract(value, '$[0]') from json_each(?3)) \
                         and poker_table_id || ' ' || token in \
                             (select json_extract(value, '$[0]') || ' ' || json_extract(value, '$[1]') \
                              from json_each(?3)) \
                     returning poker_table_id",
                ))
                .bind(lease_ttl(ttl_ms))
                .bind(node)
                .bind(pairs)
                .fetch_all(&self.pool)
                .await?
            }
        };
        let mut kept = table_ids(rows)?;
        kept.sort_unstable();
        Ok(kept)
    }

    /// [`Store::release_lease`] on both backends.
    pub(super) async fn release_lease_impl(
        &self,
        table: TableId,
        node: &str,
        token: u64,
    ) -> StoreResult<()> {
        let node = check_node(node)?;
        let Ok(token) = i64::try_from(token) else {
            return Ok(());
        };
        sqlx::query(&self.sql(
            "update table_lease set expires_at = 0 where poker_table_id = $1 and node = $2 and token = $3",
        ))
        .bind(table.to_string())
        .bind(node)
        .bind(token)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// [`Store::leases`] on both backends.
    pub(super) async fn leases_impl(&self) -> StoreResult<Vec<Lease>> {
        let rows: Vec<SqlLease> = sqlx::query_as(&format!(
            "select poker_table_id, node, token, expires_at, \
                 cast(case when expires_at >= {} then 1 else 0 end as bigint) as live \
             from table_lease order by poker_table_id",
            db_now_ms(self.backend)
        ))
        .fetch_all(&self.pool)
        .await?;
        convert(rows)
    }

    /// [`Store::lease_candidates`] on both backends.
    pub(super) async fn lease_candidates_impl(&self, node: &str) -> StoreResult<Vec<TableId>> {
        check_node(node)?;
        let rows = sqlx::query_scalar(&self.sql(&format!(
            "select t.poker_table_id from poker_table t \
             left join table_lease l on l.poker_table_id = t.poker_table_id \
             where t.status = $1 and (l.poker_table_id is null or l.expires_at < {}) \
             order by t.poker_table_id",
            db_now_ms(self.backend)
        )))
        .bind(TableStatus::Open.as_str())
        .fetch_all(&self.pool)
        .await?;
        table_ids(rows)
    }
}
