//! Table leases: which node runs a table, until when by the database's clock, with the
//! fencing token that refuses a former owner's writes.

use super::*;

/// The [`Dialects`] of a statement that reads the database's clock, written once (or one
/// backend's text, after `postgres:` or `sqlite:`): each `now` between its literal pieces
/// stands for that backend's clock in unix milliseconds, so the texts are literals fixed
/// at compile time.
///
/// Leases expire by the database's clock alone: the nodes' own clocks (which may disagree
/// by any amount) never decide whether a lease is live, so it is SQL, never a bound
/// value. Postgres's `now()` is the transaction's start, so a statement that waited for a
/// row lock judges expiry by the earlier time (it takes nothing early); SQLite's is its
/// own clock (a file no other machine shares).
macro_rules! with_db_now {
    (@postgres now) => {
        "(extract(epoch from now()) * 1000)::bigint"
    };
    (@sqlite now) => {
        "cast((julianday('now') - 2440587.5) * 86400000.0 as integer)"
    };
    (@$backend:ident $text:literal) => {
        $text
    };
    (postgres: $($part:tt)+) => {
        concat!($(with_db_now!(@postgres $part)),+)
    };
    (sqlite: $($part:tt)+) => {
        concat!($(with_db_now!(@sqlite $part)),+)
    };
    ($($part:tt)+) => {
        Dialects {
            postgres: concat!($(with_db_now!(@postgres $part)),+),
            sqlite: concat!($(with_db_now!(@sqlite $part)),+),
        }
    };
}

/// Takes a table's lease or extends it, in one statement: Postgres takes the row lock of
/// an existing lease and evaluates the condition on its latest version, so of two racing
/// nodes only one wins.
const ACQUIRE: Dialects = with_db_now!(
    "insert into table_lease (poker_table_id, node, token, expires_at, created_at) \
     values ($1, $2, 1, " now " + $3, " now ") \
     on conflict (poker_table_id) do update set \
         token = case when table_lease.node = excluded.node and table_lease.expires_at >= "
         now " then table_lease.token else table_lease.token + 1 end, \
         node = excluded.node, \
         expires_at = excluded.expires_at \
     where table_lease.node = excluded.node or table_lease.expires_at < " now " \
     returning token"
);

/// Renews a node's leases, given as arrays of tables and tokens (PostgreSQL, through its
/// own pool): a lease is kept only if its row still has this node and token and was not
/// released (expires_at 0).
const RENEW_POSTGRES: &str = with_db_now!(postgres:
    "update table_lease l set expires_at = " now " + $1 \
     from unnest($2::text[], $3::bigint[]) as r(poker_table_id, token) \
     where l.poker_table_id = r.poker_table_id and l.token = r.token \
         and l.node = $4 and l.expires_at <> 0 \
     returning l.poker_table_id"
);

/// [`RENEW_POSTGRES`] on SQLite: the leases as one JSON array of [`LeaseRow`]s.
const RENEW_SQLITE: &str = with_db_now!(sqlite:
    "update table_lease set expires_at = " now " + $1 \
     where node = $2 and expires_at <> 0 \
         and poker_table_id in \
             (select value ->> '$.poker_table_id' from json_each($3)) \
         and poker_table_id || ' ' || token in \
             (select (value ->> '$.poker_table_id') || ' ' || (value ->> '$.token') \
              from json_each($3)) \
     returning poker_table_id"
);

/// Every lease, and whether it is live by the database's clock.
const LEASES: Dialects = with_db_now!(
    "select poker_table_id, node, token, expires_at, \
         cast(case when expires_at >= " now " then 1 else 0 end as bigint) as live \
     from table_lease order by poker_table_id"
);

/// The open tables without a live lease.
const CANDIDATES: Dialects = with_db_now!(
    "select t.poker_table_id from poker_table t \
     left join table_lease l on l.poker_table_id = t.poker_table_id \
     where t.status = $1 and (l.poker_table_id is null or l.expires_at < " now ") \
     order by t.poker_table_id"
);

/// A lease's table and token, a row of the JSON array [`RENEW_SQLITE`] reads.
#[derive(serde::Serialize)]
struct LeaseRow {
    /// The table.
    poker_table_id: String,
    /// The token its lease must still have.
    token: i64,
}

/// A lease's lifetime as given, kept within what the database's arithmetic holds (a
/// negative one makes a lease that has already expired).
fn lease_ttl(ttl_ms: i64) -> i64 {
    const YEARS: i64 = 100 * 365 * 24 * 3600 * 1000;
    ttl_ms.clamp(-YEARS, YEARS)
}

impl SqlStore {
    /// Takes or extends a table's lease for `node` (which runs the table while it holds
    /// the lease), until `ttl_ms` from now. Now, and whether a lease has expired, are the
    /// database's clock's: no node's clock decides. A free, expired or released lease
    /// passes to `node` with a new fencing token, one above the last (1 for the table's
    /// first lease); a live lease of `node` itself is extended and keeps its token.
    /// Returns the token, or `None` while another node holds a live lease. Safe against
    /// nodes racing.
    pub async fn acquire_lease(
        &self,
        table: TableId,
        node: &str,
        ttl_ms: i64,
    ) -> StoreResult<Option<u64>> {
        let node = check_node(node)?;
        let mut tx = self.begin().await?;
        sqlx::query("select 1 from poker_table where poker_table_id = $1")
            .bind(table.to_string())
            .fetch_optional(&mut *tx)
            .await?
            .ok_or(StoreError::NotFound("table"))?;
        // Expiry is the database's time, never the caller's.
        let token: Option<i64> = sqlx::query_scalar(ACQUIRE.of(self.backend))
            .bind(table.to_string())
            .bind(node)
            .bind(lease_ttl(ttl_ms))
            .fetch_optional(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(token.map(|t| t as u64))
    }

    /// Extends `node`'s lease to `ttl_ms` from now (the database's), if the table's
    /// lease still has this node and token (even expired: nobody has taken it since, so
    /// the token is still the newest) and was not released. Returns whether it did;
    /// `false` means the table has passed to another owner (or `node` released it).
    pub async fn renew_lease(
        &self,
        table: TableId,
        node: &str,
        token: u64,
        ttl_ms: i64,
    ) -> StoreResult<bool> {
        let kept = self.renew_leases(node, &[(table, token)], ttl_ms).await?;
        Ok(kept.contains(&table))
    }

    /// [`SqlStore::renew_lease`] for each of `node`'s `(table, token)` leases, in one
    /// statement (a node renews all its leases at once every heartbeat). Returns the
    /// tables whose lease it extended, by id; the others have passed to another owner.
    pub async fn renew_leases(
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
        // One statement for all.
        let rows: Vec<String> = match &self.pg {
            Some(pg) => {
                let (tables, tokens): (Vec<String>, Vec<i64>) = leases.into_iter().unzip();
                sqlx::query_scalar(RENEW_POSTGRES)
                    .bind(lease_ttl(ttl_ms))
                    .bind(tables)
                    .bind(tokens)
                    .bind(node)
                    .fetch_all(pg)
                    .await?
            }
            None => {
                let rows: Vec<LeaseRow> = leases
                    .into_iter()
                    .map(|(poker_table_id, token)| LeaseRow {
                        poker_table_id,
                        token,
                    })
                    .collect();
                sqlx::query_scalar(RENEW_SQLITE)
                    .bind(lease_ttl(ttl_ms))
                    .bind(node)
                    .bind(serde_json::to_string(&rows).expect("leases serialize"))
                    .fetch_all(&self.pool)
                    .await?
            }
        };
        let mut kept = table_ids(rows)?;
        kept.sort_unstable();
        Ok(kept)
    }

    /// Gives a lease up at once (its `expires_at` becomes 0) if it still has this node
    /// and token; otherwise changes nothing. The token stays, so the next owner's is
    /// higher.
    pub async fn release_lease(&self, table: TableId, node: &str, token: u64) -> StoreResult<()> {
        let node = check_node(node)?;
        let Ok(token) = i64::try_from(token) else {
            return Ok(());
        };
        sqlx::query(
            "update table_lease set expires_at = 0 where poker_table_id = $1 and node = $2 \
             and token = $3",
        )
        .bind(table.to_string())
        .bind(node)
        .bind(token)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Every table's lease, live, expired or released (`Lease::live`, by the database's
    /// clock), by table id.
    pub async fn leases(&self) -> StoreResult<Vec<Lease>> {
        let rows: Vec<SqlLease> = sqlx::query_as(LEASES.of(self.backend))
            .fetch_all(&self.pool)
            .await?;
        convert(rows)
    }

    /// The open tables `node` could take: those without a lease, or whose lease has
    /// expired (by the database's clock) or was released, by id. Tables with a live
    /// lease are not listed, `node`'s own included (it renews those); the list is the
    /// same for every node.
    pub async fn lease_candidates(&self, node: &str) -> StoreResult<Vec<TableId>> {
        check_node(node)?;
        let rows = sqlx::query_scalar(CANDIDATES.of(self.backend))
            .bind(TableStatus::Open.as_str())
            .fetch_all(&self.pool)
            .await?;
        table_ids(rows)
    }
}
