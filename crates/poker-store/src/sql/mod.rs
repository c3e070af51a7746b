//! `SqlStore`: the store on Postgres and SQLite through sqlx's runtime-chosen driver:
//! connecting and migrating and the SQL helpers both backends share. The operations are
//! its public methods, one file per aggregate (players, staff, ledger, tables, leases,
//! seats, hands, fair play, notes, the archive, the archive's columns filled in the
//! background); rows are read into the structs of `rows`.

use sqlx::any::AnyPoolOptions;
use sqlx::AnyPool;
use uuid::Uuid;

use crate::*;

/// The columns of a `hand` row, as `SqlHand` reads them, of the table named `h`: a
/// literal, so that `concat!` puts it in a query's text at compile time.
macro_rules! hand_columns {
    () => {
        "h.hand_id, h.poker_table_id, h.number, h.status, h.phh, h.record, h.rake, \
         h.started_at, h.ended_at"
    };
}

/// The columns of a `staff` row, as `SqlStaff` reads them, of the table named `s` (a
/// literal, like `hand_columns!`).
macro_rules! staff_columns {
    () => {
        "s.staff_id, s.name, s.password_hash, s.role, s.created_at, s.disabled"
    };
}

pub(crate) mod archive;
mod audit;
pub(crate) mod backfill;
pub(crate) mod backup;
mod commit;
mod fairplay;
mod hands;
mod leases;
mod ledger;
mod notes;
mod players;
mod rows;
mod seats;
mod sqlite_batch;
mod staff;
mod tables;

pub(crate) use commit::*;
use hands::StartRow;
use rows::*;
use sqlite_batch::StateRow;

/// How many connections read beside SQLite's one writing connection: two, one per core of
/// a small node; a read is a lookup by an indexed key, over in microseconds.
const READERS: u32 = 2;

/// Everything the server persists, on Postgres or SQLite, chosen by the URL. The
/// conformance suite (tests/conformance/) runs against both, one test per scenario.
#[derive(Clone, Debug)]
pub struct SqlStore {
    pool: AnyPool,
    /// Where the reads that sign players in and seat them go (sessions, a player's tables,
    /// rathole records): on SQLite a pool of its own, so a write batch on the one writing
    /// connection never queues behind thousands of them (WAL lets them read beside it);
    /// on Postgres the same pool as everything else, which has connections enough.
    read: AnyPool,
    backend: Backend,
    /// Postgres only: a native pool for the bulk hand commit (arrays through `unnest`).
    pg: Option<sqlx::PgPool>,
    /// SQLite only: the database file (its archive lock is a file beside it).
    sqlite_file: Option<std::path::PathBuf>,
    /// Batches whose set-based PostgreSQL write failed and were written one by one
    /// ([`SqlStore::set_path_fallbacks`]).
    set_fallbacks: std::sync::Arc<[std::sync::atomic::AtomicU64; 4]>,
}

/// What [`SqlStore::set_path_fallbacks`] counts: batches given up by PostgreSQL's
/// set-based path, by path and reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SetPathFallbacks {
    /// Buy-in batches holding a buy-in the one-by-one path refuses too.
    pub buy_ins_refused: u64,
    /// Buy-in batches the database failed.
    pub buy_ins_failed: u64,
    /// Batches of writes that move no money holding one the one-by-one path refuses too.
    pub table_writes_refused: u64,
    /// Batches of writes that move no money the database failed.
    pub table_writes_failed: u64,
}

impl SetPathFallbacks {
    /// All of them.
    pub fn total(&self) -> u64 {
        self.buy_ins_refused
            + self.buy_ins_failed
            + self.table_writes_refused
            + self.table_writes_failed
    }
}

/// Which set-based path gave a batch up.
#[derive(Clone, Copy)]
enum SetPath {
    BuyIns = 0,
    TableWrites = 1,
}

pub(crate) static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator =
    sqlx::migrate!("../../migrations/postgres");
pub(crate) static SQLITE_MIGRATIONS: sqlx::migrate::Migrator =
    sqlx::migrate!("../../migrations/sqlite");

/// The migrations, run so that a node starts on a database a later release has migrated
/// already (its migrations unknown here are let be): during a rolling upgrade the first
/// node of the new release migrates, and a node of this release that restarts meanwhile,
/// or a roll taken back, must still start. What makes that safe is the rule every
/// release's migrations keep (docs/operations.md, Rolling upgrades): they only add (tables,
/// nullable or defaulted columns, indexes), so this release's queries still work on the
/// later schema; a removal waits one release. Migrations known here are still checked
/// (an edited one is refused).
pub(crate) fn tolerant(migrations: &sqlx::migrate::Migrator) -> sqlx::migrate::Migrator {
    let mut migrator = sqlx::migrate::Migrator {
        migrations: migrations.migrations.clone(),
        ..sqlx::migrate::Migrator::DEFAULT
    };
    migrator.set_ignore_missing(true);
    migrator
}

/// A statement whose text differs between the backends: both texts are literals, fixed
/// at compile time. Most statements need no such pair: their one text runs on both (see
/// docs/persistence.md, Queries on both backends).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dialects {
    /// The PostgreSQL text.
    pub postgres: &'static str,
    /// The SQLite text.
    pub sqlite: &'static str,
}

impl Dialects {
    /// The text for `backend`.
    pub(crate) const fn of(&self, backend: Backend) -> &'static str {
        match backend {
            Backend::Postgres => self.postgres,
            Backend::Sqlite => self.sqlite,
        }
    }
}

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

/// `rows` as one JSON array (of objects, for structs: a statement reads each value by
/// its name), the one parameter that carries a batch's rows.
pub(crate) fn json_rows<T: serde::Serialize>(rows: &[T]) -> StoreResult<String> {
    serde_json::to_string(rows)
        .map_err(|e| StoreError::Invalid(format!("rows that cannot be written: {e}")))
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
pub(crate) async fn fill_name_keys(pool: &AnyPool) -> StoreResult<()> {
    let rows: Vec<(String, String)> = sqlx::query_as(
        "select player_id, name from player where name_key is null order by created_at, player_id",
    )
    .fetch_all(pool)
    .await?;
    for (id, name) in rows {
        match sqlx::query("update player set name_key = $1 where player_id = $2")
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
                    // No ping before each use: a SQLite connection is a thread of this
                    // process, not a socket that can break while idle, and each ping is
                    // a round trip to that thread (sqlx still pings on release).
                    .test_before_acquire(false)
                    .after_connect(|conn, _| {
                        Box::pin(async move {
                            for pragma in [
                                "pragma journal_mode = wal",
                                "pragma synchronous = full",
                                "pragma foreign_keys = on",
                                "pragma busy_timeout = 10000",
                                // A statement that changes several rows inside a
                                // transaction keeps the pages it changes in a statement
                                // journal, to undo itself alone if it fails; on a file
                                // (spilled past 64 KiB) that was a sixth of SQLite's
                                // time per hand (docs/scaling.md). In memory it is
                                // bounded by one batch's writes.
                                "pragma temp_store = memory",
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
            Backend::Postgres => tolerant(&POSTGRES_MIGRATIONS).run(&pool).await?,
            Backend::Sqlite => tolerant(&SQLITE_MIGRATIONS).run(&pool).await?,
        }
        fill_name_keys(&pool).await?;
        let read = match backend {
            Backend::Postgres => pool.clone(),
            Backend::Sqlite => {
                let path = backup::sqlite_file(url).unwrap_or_default();
                // Opened after the migrations, so the file is in WAL mode already: these
                // connections read the last committed state without waiting for the
                // writer, and `query_only` keeps them from ever writing.
                AnyPoolOptions::new()
                    .max_connections(READERS)
                    .idle_timeout(None)
                    .max_lifetime(None)
                    .test_before_acquire(false)
                    .after_connect(|conn, _| {
                        Box::pin(async move {
                            for pragma in ["pragma query_only = on", "pragma busy_timeout = 10000"]
                            {
                                sqlx::query(pragma).execute(&mut *conn).await?;
                            }
                            Ok(())
                        })
                    })
                    .connect(&format!("sqlite://{path}?mode=rw"))
                    .await?
            }
        };
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
        let sqlite_file = match backend {
            Backend::Sqlite => backup::sqlite_file(url).map(std::path::PathBuf::from),
            Backend::Postgres => None,
        };
        Ok(SqlStore {
            pool,
            read,
            backend,
            pg,
            sqlite_file,
            set_fallbacks: Default::default(),
        })
    }

    /// The batches (buy-ins, or writes that move no money) PostgreSQL's set-based path
    /// gave up since this store was opened, each then written one by one, which names the
    /// write at fault: refused (a write in it the one-by-one path refuses too: a player
    /// too poor, a seat taken, a stale fence), or failed (the database's error: a lock
    /// waited for too long, a connection lost, a statement broken). Refusals come now and
    /// then; failures that climb mean the fast path no longer applies and a room filling
    /// at once pays a statement per write again. A batch retried in smaller ones can count
    /// again. Always zero on SQLite.
    pub fn set_path_fallbacks(&self) -> SetPathFallbacks {
        let n = |i: usize| self.set_fallbacks[i].load(std::sync::atomic::Ordering::Relaxed);
        SetPathFallbacks {
            buy_ins_refused: n(0),
            buy_ins_failed: n(1),
            table_writes_refused: n(2),
            table_writes_failed: n(3),
        }
    }

    /// Counts one batch the set-based path of `path` gave to the one-by-one path, for
    /// `why`.
    fn set_path_fell_back(&self, path: SetPath, why: &StoreError) {
        let failed = matches!(why, StoreError::Database(_) | StoreError::Migrate(_));
        let i = 2 * path as usize + usize::from(failed);
        self.set_fallbacks[i].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Which database.
    pub fn backend(&self) -> Backend {
        self.backend
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

    /// Closes the pools.
    pub async fn close(&self) {
        self.read.close().await;
        self.pool.close().await;
    }

    async fn begin(&self) -> StoreResult<Tx> {
        Ok(self.pool.begin().await?)
    }
}
