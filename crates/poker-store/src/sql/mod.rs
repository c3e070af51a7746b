//! `SqlStore`: the store on Postgres and SQLite through sqlx's runtime-chosen driver:
//! connecting and migrating, the SQL helpers both backends share, and the transactions
//! that move money with their ledger rows.

use serde::Serialize;
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{AnyPool, Row};
use std::future::Future;
use uuid::Uuid;

use crate::*;

pub(crate) mod backup;
mod commit;
mod fairplay;
mod operations;

pub(crate) use commit::*;

/// [`Store`] on Postgres or SQLite, chosen by the URL.
#[derive(Clone, Debug)]
pub struct SqlStore {
    pool: AnyPool,
    backend: Backend,
    /// Postgres only: a native pool for the bulk hand commit (arrays through `unnest`).
    pg: Option<sqlx::PgPool>,
}

pub(crate) static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator =
    sqlx::migrate!("../../migrations/postgres");
pub(crate) static SQLITE_MIGRATIONS: sqlx::migrate::Migrator =
    sqlx::migrate!("../../migrations/sqlite");

/// The columns of a `staff` row, as [`SqlStore::staff_row`] reads them.
pub(crate) const STAFF_COLUMNS: &str =
    "s.staff_id, s.name, s.password_hash, s.role, s.created_at, s.disabled";

pub(crate) fn to_i64(amount: Chips) -> StoreResult<i64> {
    i64::try_from(amount).map_err(|_| StoreError::Invalid("amount too large".into()))
}

/// An idempotency key as given: 1 to 128 characters, none a control character (the
/// same limits on both databases).
pub(crate) fn check_key(key: &str) -> StoreResult<&str> {
    let n = key.chars().count();
    if n == 0 || n > 128 || key.chars().any(char::is_control) {
        return Err(StoreError::Invalid(
            "an idempotency key has 1 to 128 characters, none a control character".into(),
        ));
    }
    Ok(key)
}

/// A node's name as given to the lease operations: 1 to 128 characters, none a control
/// character (the same limits on both databases).
pub(crate) fn check_node(node: &str) -> StoreResult<&str> {
    let n = node.chars().count();
    if n == 0 || n > 128 || node.chars().any(char::is_control) {
        return Err(StoreError::Invalid(
            "a node's name has 1 to 128 characters, none a control character".into(),
        ));
    }
    Ok(node)
}

pub(crate) fn positive(amount: Chips) -> StoreResult<i64> {
    if amount == 0 || amount > MAX_MONEY {
        return Err(StoreError::Invalid(format!(
            "the amount must be from 1 to {MAX_MONEY}"
        )));
    }
    to_i64(amount)
}

pub(crate) fn wallet_account(p: PlayerId) -> String {
    format!("wallet:{p}")
}

pub(crate) fn seat_account(t: TableId, p: PlayerId) -> String {
    format!("seat:{t}:{p}")
}

/// Gives the players created before name keys existed their key. Where two older names
/// share a key, the first keeps it and the other stays keyless (found by its exact name
/// at login, and its name cannot be registered again by anyone).
pub(crate) async fn fill_name_keys(pool: &AnyPool, backend: Backend) -> StoreResult<()> {
    let rows = sqlx::query(
        "select player_id, name from player where name_key is null order by created_at, player_id",
    )
    .fetch_all(pool)
    .await?;
    let update = match backend {
        Backend::Postgres => "update player set name_key = $1 where player_id = $2",
        Backend::Sqlite => "update player set name_key = ?1 where player_id = ?2",
    };
    for row in rows {
        let id: String = row.try_get("player_id")?;
        let name: String = row.try_get("name")?;
        match sqlx::query(update)
            .bind(names::name_key(&name))
            .bind(&id)
            .execute(pool)
            .await
        {
            Err(e) if unique_violation(&e) => {}
            other => {
                other?;
            }
        }
    }
    Ok(())
}

pub(crate) fn unique_violation(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Database(d) => {
            let m = d.message().to_lowercase();
            d.code()
                .is_some_and(|c| c == "23505" || c == "2067" || c == "1555")
                || m.contains("unique")
                || m.contains("duplicate key")
        }
        _ => false,
    }
}

pub(crate) type Tx = sqlx::Transaction<'static, sqlx::Any>;

impl SqlStore {
    /// Connects (`postgres://...` or `sqlite://path`), creating a SQLite file and its
    /// folder when missing, and runs the migrations.
    pub async fn connect(url: &str) -> StoreResult<SqlStore> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("postgres") {
            Backend::Postgres
        } else if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else {
            // Only the scheme: the rest may hold a password.
            let scheme = url.split(':').next().unwrap_or_default();
            return Err(StoreError::Config(format!(
                "unsupported database URL scheme {scheme:?}: postgres:// or sqlite://"
            )));
        };
        let pool = match backend {
            Backend::Postgres => {
                // No idle reaping on any pool: sqlx 0.8's reaping task can spin a worker
                // thread at 100% CPU forever after its idle count underflows (sqlx issue
                // 3645; seen here under the chaos soak). Without `idle_timeout` and
                // `max_lifetime` that task is never started.
                AnyPoolOptions::new()
                    .max_connections(16)
                    .idle_timeout(None)
                    .max_lifetime(None)
                    .connect(url)
                    .await?
            }
            Backend::Sqlite => {
                let path = backup::sqlite_file(url).unwrap_or_default();
                if let Some(dir) = std::path::Path::new(path).parent() {
                    if !dir.as_os_str().is_empty() {
                        std::fs::create_dir_all(dir).map_err(|e| {
                            StoreError::Config(format!("cannot create {}: {e}", dir.display()))
                        })?;
                    }
                }
                let url = format!("sqlite://{path}?mode=rwc");
                // One connection: SQLite has one writer anyway, and this way no
                // transaction ever meets a busy database.
                AnyPoolOptions::new()
                    .max_connections(1)
                    .idle_timeout(None)
                    .max_lifetime(None)
                    .after_connect(|conn, _| {
                        Box::pin(async move {
                            for pragma in [
                                "pragma journal_mode = wal",
                                "pragma synchronous = full",
                                "pragma foreign_keys = on",
                                "pragma busy_timeout = 10000",
                            ] {
                                sqlx::query(pragma).execute(&mut *conn).await?;
                            }
                            Ok(())
                        })
                    })
                    .connect(&url)
                    .await?
            }
        };
        match backend {
            Backend::Postgres => POSTGRES_MIGRATIONS.run(&pool).await?,
            Backend::Sqlite => SQLITE_MIGRATIONS.run(&pool).await?,
        }
        fill_name_keys(&pool, backend).await?;
        let pg = match backend {
            Backend::Postgres => Some(
                sqlx::postgres::PgPoolOptions::new()
                    .max_connections(4)
                    .idle_timeout(None)
                    .max_lifetime(None)
                    .connect(url)
                    .await?,
            ),
            Backend::Sqlite => None,
        };
        Ok(SqlStore { pool, backend, pg })
    }

    /// A plain pool on a Postgres server, for administration (creating databases).
    pub async fn connect_admin(url: &str) -> StoreResult<AnyPool> {
        sqlx::any::install_default_drivers();
        Ok(AnyPoolOptions::new()
            .max_connections(1)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect(url)
            .await?)
    }

    /// Closes the pool.
    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// SQL with `$n` placeholders, in this backend's dialect (`?n` for SQLite).
    fn sql(&self, text: &str) -> String {
        match self.backend {
            Backend::Postgres => text.to_string(),
            Backend::Sqlite => text.replace('$', "?"),
        }
    }

    /// Marks void the hands started and never committed, of one table or all; returns
    /// them.
    async fn void_started(&self, table: Option<TableId>) -> StoreResult<Vec<HandId>> {
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
        let mut select = sqlx::query(&select_sql);
        if let Some(t) = &table {
            select = select.bind(t.clone());
        }
        let ids: Vec<HandId> = select
            .fetch_all(&mut *tx)
            .await?
            .iter()
            .map(|r| Ok(HandId(Self::uuid(r.try_get("hand_id")?)?)))
            .collect::<StoreResult<_>>()?;
        let mut update = sqlx::query(&update_sql).bind(now_ms());
        if let Some(t) = table {
            update = update.bind(t);
        }
        update.execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(ids)
    }

    async fn begin(&self) -> StoreResult<Tx> {
        Ok(self.pool.begin().await?)
    }

    /// A transaction that changes a staff account's role or state: on PostgreSQL under a
    /// transaction-scoped advisory lock, so that two admins demoting or disabling each
    /// other at once cannot both see the other still enabled and leave no admin. (SQLite
    /// runs each such change as one statement under its single writer.)
    async fn staff_change(&self) -> StoreResult<Tx> {
        /// The advisory lock held while staff change ("poker" and 2).
        const STAFF_LOCK: i64 = 0x706f_6b65_7200_0002;
        let mut tx = self.begin().await?;
        if self.backend == Backend::Postgres {
            sqlx::query("select 1 as locked from pg_advisory_xact_lock($1)")
                .bind(STAFF_LOCK)
                .fetch_one(&mut *tx)
                .await?;
        }
        Ok(tx)
    }

    /// A staff account, read in a transaction.
    async fn staff_in(&self, tx: &mut Tx, staff_id: &str) -> StoreResult<Staff> {
        let row = sqlx::query(&self.sql(&format!(
            "select {STAFF_COLUMNS} from staff s where s.staff_id = $1"
        )))
        .bind(staff_id)
        .fetch_optional(&mut **tx)
        .await?
        .ok_or(StoreError::NotFound("staff"))?;
        Self::staff_row(&row)
    }

    /// Why a guarded staff change changed nothing: no such account, or it would have
    /// left no enabled admin.
    async fn why_unchanged(&self, tx: &mut Tx, staff_id: &str) -> StoreError {
        match self.staff_in(tx, staff_id).await {
            Ok(_) => StoreError::LastAdmin,
            Err(e) => e,
        }
    }

    /// Replaces a player's password on a staff member's word, in a transaction: every
    /// session of theirs ends and the notice for their next login is left.
    async fn new_password_in(
        &self,
        tx: &mut Tx,
        player: PlayerId,
        password_hash: &str,
        by: &str,
        now: i64,
    ) -> StoreResult<()> {
        let done =
            sqlx::query(&self.sql("update player set password_hash = $1 where player_id = $2"))
                .bind(password_hash)
                .bind(player.to_string())
                .execute(&mut **tx)
                .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("player"));
        }
        sqlx::query(&self.sql("delete from session where player_id = $1"))
            .bind(player.to_string())
            .execute(&mut **tx)
            .await?;
        sqlx::query(&self.sql("delete from password_notice where player_id = $1"))
            .bind(player.to_string())
            .execute(&mut **tx)
            .await?;
        sqlx::query(&self.sql(
            "insert into password_notice (player_id, changed_by, changed_at, created_at) values ($1, $2, $3, $4)",
        ))
        .bind(player.to_string())
        .bind(by)
        .bind(now)
        .bind(now_ms())
        .execute(&mut **tx)
        .await?;
        Ok(())
    }

    /// Runs `op` in a transaction, applied at most once per idempotency key: a retry
    /// returns the first answer.
    /// A key names one request of `player` (two players may use the same key);
    /// `request` describes it exactly, its kind included (`deposit 100`, `withdrawal
    /// 100`, `grant 100`...), and a key already used for another request, of this kind
    /// or another, is refused.
    ///
    /// Keys stored before were scoped by kind as well (`KIND:PLAYER:KEY`): those are
    /// looked up too, so a retry of a request made then still gets its first answer, and
    /// their key is refused for any other request.
    async fn once<T, F>(
        &self,
        key: Option<&str>,
        player: PlayerId,
        request: String,
        op: F,
    ) -> StoreResult<T>
    where
        T: Serialize + serde::de::DeserializeOwned + Send,
        F: for<'a> FnOnce(
                &'a SqlStore,
                &'a mut Tx,
            )
                -> std::pin::Pin<Box<dyn Future<Output = StoreResult<T>> + Send + 'a>>
            + Send,
    {
        let given = match key {
            Some(k) => Some(check_key(k)?),
            None => None,
        };
        let key = given.map(|k| format!("{player}:{k}"));
        let key = key.as_deref();
        // The answer stored with the key, if this very request made it.
        let answer = |row: sqlx::any::AnyRow| -> StoreResult<T> {
            let stored: String = row.try_get("operation")?;
            if stored != request {
                return Err(StoreError::IdempotencyConflict);
            }
            let result: String = row.try_get("result")?;
            serde_json::from_str(&result).map_err(|e| StoreError::Corrupt(e.to_string()))
        };
        let select =
            self.sql("select operation, result from idempotency_key where idempotency_key_id = $1");
        let mut tx = self.begin().await?;
        if let (Some(key), Some(given)) = (key, given) {
            let legacy = ["deposit", "withdrawal", "buy_in", "top_up"]
                .map(|kind| format!("{kind}:{player}:{given}"));
            let stored = sqlx::query(&self.sql(
                "select operation, result from idempotency_key \
                 where idempotency_key_id in ($1, $2, $3, $4, $5)",
            ))
            .bind(key)
            .bind(&legacy[0])
            .bind(&legacy[1])
            .bind(&legacy[2])
            .bind(&legacy[3])
            .fetch_all(&mut *tx)
            .await?;
            // The row of this very request if there is one (keys stored before could
            // name two requests of different kinds), else the conflicting one.
            let mut rows = stored.into_iter();
            let mut conflicting = None;
            for row in rows.by_ref() {
                if row.try_get::<String, _>("operation")? == request {
                    return answer(row);
                }
                conflicting = Some(row);
            }
            if let Some(row) = conflicting {
                return answer(row);
            }
        }
        let value = op(self, &mut tx).await?;
        if let Some(key) = key {
            let inserted = sqlx::query(&self.sql(
                "insert into idempotency_key (idempotency_key_id, operation, result, created_at) values ($1, $2, $3, $4)",
            ))
            .bind(key)
            .bind(&request)
            .bind(serde_json::to_string(&value).expect("results serialize"))
            .bind(now_ms())
            .execute(&mut *tx)
            .await;
            match inserted {
                Ok(_) => {}
                Err(e) if unique_violation(&e) => {
                    // A concurrent retry committed first: give its answer, apply nothing.
                    drop(tx);
                    let row = sqlx::query(&select).bind(key).fetch_one(&self.pool).await?;
                    return answer(row);
                }
                Err(e) => return Err(e.into()),
            }
        }
        tx.commit().await?;
        Ok(value)
    }

    /// Writes one movement's ledger entries (which must sum to zero).
    #[allow(clippy::too_many_arguments)]
    async fn movement(
        &self,
        tx: &mut Tx,
        kind: &str,
        reference: Option<&str>,
        player: Option<PlayerId>,
        table: Option<TableId>,
        entries: &[(String, i64)],
    ) -> StoreResult<()> {
        debug_assert_eq!(entries.iter().map(|e| e.1).sum::<i64>(), 0);
        let movement = Uuid::new_v4().to_string();
        let now = now_ms();
        for (account, amount) in entries {
            sqlx::query(&self.sql(
                "insert into ledger_entry (movement_id, account, player_id, poker_table_id, kind, amount, reference, created_at) \
                 values ($1, $2, $3, $4, $5, $6, $7, $8)",
            ))
            .bind(&movement)
            .bind(account)
            .bind(player.map(|p| p.to_string()))
            .bind(table.map(|t| t.to_string()))
            .bind(kind)
            .bind(*amount)
            .bind(reference)
            .bind(now)
            .execute(&mut **tx)
            .await?;
        }
        Ok(())
    }

    /// Takes `amount` from a wallet, refusing to go below zero.
    async fn debit_wallet(&self, tx: &mut Tx, player: PlayerId, amount: i64) -> StoreResult<i64> {
        let row = sqlx::query(&self.sql(
            "update wallet set balance = balance - $1 where player_id = $2 and balance >= $1 returning balance",
        ))
        .bind(amount)
        .bind(player.to_string())
        .fetch_optional(&mut **tx)
        .await?;
        match row {
            Some(row) => Ok(row.try_get("balance")?),
            None => {
                let balance =
                    sqlx::query(&self.sql("select balance from wallet where player_id = $1"))
                        .bind(player.to_string())
                        .fetch_optional(&mut **tx)
                        .await?
                        .ok_or(StoreError::NotFound("player"))?;
                let balance: i64 = balance.try_get("balance")?;
                Err(StoreError::InsufficientFunds {
                    balance: balance as Chips,
                })
            }
        }
    }

    async fn credit_wallet(&self, tx: &mut Tx, player: PlayerId, amount: i64) -> StoreResult<i64> {
        let row = sqlx::query(&self.sql(
            "update wallet set balance = balance + $1 where player_id = $2 returning balance",
        ))
        .bind(amount)
        .bind(player.to_string())
        .fetch_optional(&mut **tx)
        .await?
        .ok_or(StoreError::NotFound("player"))?;
        Ok(row.try_get("balance")?)
    }

    fn hand_row(row: &AnyRow) -> StoreResult<HandRow> {
        let parse = |s: String| {
            s.parse()
                .map_err(|_| StoreError::Corrupt("an id that is not a UUID".into()))
        };
        Ok(HandRow {
            hand_id: HandId(parse(row.try_get("hand_id")?)?),
            table_id: TableId(parse(row.try_get("poker_table_id")?)?),
            number: row.try_get::<i64, _>("number")? as u64,
            status: row.try_get::<String, _>("status")?.parse()?,
            phh: row.try_get("phh")?,
            record: row
                .try_get::<Option<String>, _>("record")?
                .map(|r| serde_json::from_str(&r))
                .transpose()
                .map_err(|e| StoreError::Corrupt(format!("a hand record: {e}")))?,
            rake: row.try_get::<i64, _>("rake")? as Chips,
            started_at: row.try_get("started_at")?,
            ended_at: row.try_get("ended_at")?,
        })
    }

    /// A `player` row (player_id, name, password_hash, created_at).
    fn player_row(row: &AnyRow) -> StoreResult<Player> {
        Ok(Player {
            player_id: PlayerId(Self::uuid(row.try_get("player_id")?)?),
            name: row.try_get("name")?,
            password_hash: row.try_get("password_hash")?,
            created_at: row.try_get("created_at")?,
            locked: row.try_get::<i64, _>("locked").unwrap_or(0) != 0,
        })
    }

    /// A `staff` row ([`STAFF_COLUMNS`]).
    fn staff_row(row: &AnyRow) -> StoreResult<Staff> {
        let role: String = row.try_get("role")?;
        Ok(Staff {
            staff_id: row.try_get("staff_id")?,
            name: row.try_get("name")?,
            password_hash: row.try_get("password_hash")?,
            role: Role::parse(&role)
                .ok_or_else(|| StoreError::Corrupt(format!("a staff role {role}")))?,
            created_at: row.try_get("created_at")?,
            disabled: row.try_get::<i64, _>("disabled")? != 0,
        })
    }

    fn uuid(s: String) -> StoreResult<Uuid> {
        s.parse()
            .map_err(|_| StoreError::Corrupt("an id that is not a UUID".into()))
    }
}
