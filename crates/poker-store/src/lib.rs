//! Persistence: everything the server must remember so that a crash, a restart or a bad
//! request never loses or creates a chip.
//!
//! One [`Store`] trait; [`SqlStore`] implements it on Postgres (production) and on an
//! embedded SQLite file (the default, so a fresh machine needs no database server), with
//! the same SQL through sqlx's runtime-chosen driver. Money moves only inside database
//! transactions that also write its double-entry [`LedgerEntry`] rows; a wallet can never
//! go negative (a `check` constraint, and conditional updates); client-retried operations
//! carry an idempotency key and are applied once. Seat stacks change only with a buy-in,
//! top-up, cash-out or a committed hand, so a hand that never committed never happened:
//! [`Store::recover`] marks it void at start-up.

pub mod names;
pub mod persister;
pub mod testing;

use serde::{Deserialize, Serialize};
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{AnyPool, Row};
use std::future::Future;
use std::time::{SystemTime, UNIX_EPOCH};
use uuid::Uuid;

pub use persister::{Persister, PersisterHandle};

/// An amount of chips (whole chips, never negative).
pub type Chips = u64;

/// The most money a room may hold: deposits less withdrawals, all wallets, stacks and
/// rake together (2^53, `poker_rules::MAX_CHIPS`). A deposit that would pass it is refused,
/// so every sum the store forms (a balance, the audit) fits, and so does every amount a
/// table or a PHH history (floats) holds.
pub const MAX_MONEY: Chips = 1 << 53;

/// A player's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PlayerId(pub Uuid);

/// A table's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TableId(pub Uuid);

/// A hand's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct HandId(pub Uuid);

macro_rules! id_impls {
    ($($t:ident),*) => {$(
        impl $t {
            /// A fresh random id.
            pub fn new() -> $t {
                $t(Uuid::new_v4())
            }
        }
        impl Default for $t {
            fn default() -> $t {
                $t::new()
            }
        }
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
        impl std::str::FromStr for $t {
            type Err = uuid::Error;
            fn from_str(s: &str) -> Result<$t, uuid::Error> {
                Ok($t(s.parse()?))
            }
        }
    )*};
}
id_impls!(PlayerId, TableId, HandId);

/// Which database a store talks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    /// PostgreSQL.
    Postgres,
    /// An embedded SQLite file.
    Sqlite,
}

/// Why a store operation failed. Nothing was changed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A name that breaks the rules of names ([`names`]).
    #[error(transparent)]
    BadName(#[from] names::NameError),
    /// The thing asked for does not exist.
    #[error("{0} not found")]
    NotFound(&'static str),
    /// Not enough money in the wallet.
    #[error("insufficient funds: the balance is {balance}")]
    InsufficientFunds {
        /// The balance there is.
        balance: Chips,
    },
    /// The name is taken.
    #[error("the name is taken")]
    NameTaken,
    /// The seat is taken.
    #[error("the seat is taken")]
    SeatTaken,
    /// The player already sits at this table.
    #[error("the player is already seated at this table")]
    AlreadySeated,
    /// The player does not sit at this table.
    #[error("the player is not seated at this table")]
    NotSeated,
    /// A hand's starting stacks do not match the stored ones: it is stale or foreign.
    #[error("hand {0} does not start from the stored stacks")]
    StaleHand(HandId),
    /// The request makes no sense (a zero amount, chips not conserved...).
    #[error("invalid request: {0}")]
    Invalid(String),
    /// A deposit would take the money in the room past [`MAX_MONEY`].
    #[error("the room may hold at most {MAX_MONEY} chips ({held} now)")]
    RoomFull {
        /// What the room holds now.
        held: i64,
    },
    /// The idempotency key was used for a different request of the same kind and player.
    #[error("the idempotency key was used for a different request")]
    IdempotencyConflict,
    /// The database failed.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// A migration failed.
    #[error("migration error: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

/// A result of the store.
pub type StoreResult<T> = Result<T, StoreError>;

/// A player account.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// The id.
    pub player_id: PlayerId,
    /// The unique name.
    pub name: String,
    /// Argon2 hash of the password (never logged).
    #[serde(skip_serializing)]
    pub password_hash: String,
    /// When created (unix milliseconds).
    pub created_at: i64,
}

/// One row of the ledger: one side of a movement of money.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerEntry {
    /// Entries of one movement share it and sum to zero.
    pub movement_id: String,
    /// The account moved: `external`, `wallet:<player>`, `seat:<table>:<player>`, `house:rake`.
    pub account: String,
    /// What kind of movement: deposit, withdrawal, buy_in, top_up, cash_out, hand, rake.
    pub kind: String,
    /// Signed amount for this account.
    pub amount: i64,
    /// A hand id or idempotency key, when there is one.
    pub reference: Option<String>,
    /// When (unix milliseconds).
    pub created_at: i64,
}

/// A table as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableRow {
    /// The id.
    pub table_id: TableId,
    /// Its name.
    pub name: String,
    /// Its configuration (JSON, owned by the server).
    pub config: String,
    /// open, closing or closed.
    pub status: String,
    /// When created.
    pub created_at: i64,
}

/// A seated player's chips at a table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatRow {
    /// Seat number.
    pub seat_no: u32,
    /// Who sits there.
    pub player_id: PlayerId,
    /// Chips on the table.
    pub stack: Chips,
    /// Sitting out (not dealt in).
    #[serde(default)]
    pub sitting_out: bool,
}

/// What a player left a table with, for the no-ratholing rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatholeRow {
    /// The stack taken away.
    pub stack: Chips,
    /// When (unix milliseconds).
    pub left_at: i64,
}

/// One player's part in a completed hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandPlayer {
    /// Who.
    pub player_id: PlayerId,
    /// Where they sat.
    pub seat_no: u32,
    /// Stack when the hand started (must match the stored seat).
    pub starting_stack: Chips,
    /// Stack when it ended.
    pub finishing_stack: Chips,
}

/// A completed hand to commit: its record and the stacks it changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletedHand {
    /// The hand.
    pub hand_id: HandId,
    /// Its table.
    pub table_id: TableId,
    /// Its number at the table.
    pub number: u64,
    /// The players dealt in.
    pub players: Vec<HandPlayer>,
    /// Rake taken.
    pub rake: Chips,
    /// The PHH text.
    pub phh: String,
    /// The structured record (JSON): board, pots, winners...
    pub record: serde_json::Value,
    /// When it started and ended (unix milliseconds).
    pub started_at: i64,
    /// When it ended.
    pub ended_at: i64,
}

/// A stored hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandRow {
    /// The id.
    pub hand_id: HandId,
    /// The table.
    pub table_id: TableId,
    /// Its number at the table.
    pub number: u64,
    /// started, complete or void.
    pub status: String,
    /// The PHH text, once complete.
    pub phh: Option<String>,
    /// The structured record, once complete.
    pub record: Option<serde_json::Value>,
    /// Rake taken.
    pub rake: Chips,
    /// When it started.
    pub started_at: i64,
    /// When it ended.
    pub ended_at: Option<i64>,
}

/// The money totals, for the invariant wallets + stacks + rake = deposits - withdrawals.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Audit {
    /// Sum of wallets.
    pub wallets: i64,
    /// Sum of seat stacks.
    pub stacks: i64,
    /// Rake held by the house.
    pub rake: i64,
    /// Money deposited from outside.
    pub deposits: i64,
    /// Money withdrawn to outside.
    pub withdrawals: i64,
    /// Movements whose entries do not sum to zero (must be none).
    pub unbalanced_movements: i64,
    /// Accounts whose ledger sum differs from their balance (must be none).
    pub mismatched_accounts: Vec<String>,
}

impl Audit {
    /// Whether every chip is accounted for.
    pub fn holds(&self) -> bool {
        self.wallets + self.stacks + self.rake == self.deposits - self.withdrawals
            && self.unbalanced_movements == 0
            && self.mismatched_accounts.is_empty()
    }
}

/// The current time in unix milliseconds.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Hashes a password with Argon2 (a random salt each time).
pub fn hash_password(password: &str) -> String {
    use argon2::password_hash::{rand_core::OsRng, PasswordHasher, SaltString};
    let salt = SaltString::generate(&mut OsRng);
    argon2::Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .expect("argon2 with default parameters hashes any password")
        .to_string()
}

/// Checks a password against its Argon2 hash.
pub fn verify_password(password: &str, hash: &str) -> bool {
    use argon2::password_hash::{PasswordHash, PasswordVerifier};
    PasswordHash::new(hash).is_ok_and(|h| {
        argon2::Argon2::default()
            .verify_password(password.as_bytes(), &h)
            .is_ok()
    })
}

/// Everything the server persists. Implemented by [`SqlStore`] on both backends; the
/// conformance suite (tests/conformance.rs) runs against both.
pub trait Store: Send + Sync + 'static {
    /// Which database.
    fn backend(&self) -> Backend;
    /// Creates a player with an empty wallet.
    fn create_player(
        &self,
        name: &str,
        password_hash: &str,
    ) -> impl Future<Output = StoreResult<PlayerId>> + Send;
    /// Finds a player by name.
    fn player_by_name(&self, name: &str) -> impl Future<Output = StoreResult<Player>> + Send;
    /// Records a login session by the hash of its token.
    fn create_session(
        &self,
        token_hash: &str,
        player: PlayerId,
        expires_at: i64,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// The player of an unexpired session, by the hash of its token.
    fn session(&self, token_hash: &str)
        -> impl Future<Output = StoreResult<Option<Player>>> + Send;
    /// When an unexpired session ends (ms since the epoch), by the hash of its token.
    fn session_expiry(
        &self,
        token_hash: &str,
    ) -> impl Future<Output = StoreResult<Option<i64>>> + Send;
    /// Ends a session; also forgets every expired one.
    fn delete_session(&self, token_hash: &str) -> impl Future<Output = StoreResult<()>> + Send;
    /// Every player, by name.
    fn players(&self) -> impl Future<Output = StoreResult<Vec<Player>>> + Send;
    /// Adds money from outside; returns the new balance.
    fn deposit(
        &self,
        player: PlayerId,
        amount: Chips,
        key: Option<&str>,
    ) -> impl Future<Output = StoreResult<Chips>> + Send;
    /// Takes money out; returns the new balance.
    fn withdraw(
        &self,
        player: PlayerId,
        amount: Chips,
        key: Option<&str>,
    ) -> impl Future<Output = StoreResult<Chips>> + Send;
    /// The wallet balance.
    fn balance(&self, player: PlayerId) -> impl Future<Output = StoreResult<Chips>> + Send;
    /// The player's ledger entries (wallet and seats), newest first.
    fn ledger(
        &self,
        player: PlayerId,
        limit: u32,
    ) -> impl Future<Output = StoreResult<Vec<LedgerEntry>>> + Send;
    /// Creates a table.
    fn create_table(
        &self,
        name: &str,
        config: &str,
    ) -> impl Future<Output = StoreResult<TableId>> + Send;
    /// Every table.
    fn tables(&self) -> impl Future<Output = StoreResult<Vec<TableRow>>> + Send;
    /// Saves a table's between-hands state (JSON).
    fn set_table_state(
        &self,
        table: TableId,
        state: &str,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// A table's saved between-hands state, if any.
    fn table_state(
        &self,
        table: TableId,
    ) -> impl Future<Output = StoreResult<Option<String>>> + Send;
    /// Sets a table's status (open, closing, closed).
    fn set_table_status(
        &self,
        table: TableId,
        status: &str,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// Moves money from the wallet to a seat.
    fn buy_in(
        &self,
        table: TableId,
        seat_no: u32,
        player: PlayerId,
        amount: Chips,
        key: Option<&str>,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// Moves more money to a seat; returns the new stack.
    fn top_up(
        &self,
        table: TableId,
        player: PlayerId,
        amount: Chips,
        key: Option<&str>,
    ) -> impl Future<Output = StoreResult<Chips>> + Send;
    /// Moves the whole stack back to the wallet, frees the seat and keeps the rathole
    /// record; returns the amount.
    fn cash_out(
        &self,
        table: TableId,
        player: PlayerId,
        at: i64,
    ) -> impl Future<Output = StoreResult<Chips>> + Send;
    /// The seats of a table.
    fn seats(&self, table: TableId) -> impl Future<Output = StoreResult<Vec<SeatRow>>> + Send;
    /// What the player last left this table with.
    fn rathole(
        &self,
        table: TableId,
        player: PlayerId,
    ) -> impl Future<Output = StoreResult<Option<RatholeRow>>> + Send;
    /// Records whether a seated player is sitting out.
    fn set_sitting_out(
        &self,
        table: TableId,
        player: PlayerId,
        sitting_out: bool,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// Records the blinds a player owes at a table (small, big).
    fn set_missed_blinds(
        &self,
        table: TableId,
        player: PlayerId,
        small: bool,
        big: bool,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// The blinds a player owes at a table (small, big).
    fn missed_blinds(
        &self,
        table: TableId,
        player: PlayerId,
    ) -> impl Future<Output = StoreResult<(bool, bool)>> + Send;
    /// Records that a hand was dealt (it is void unless committed).
    fn start_hand(
        &self,
        hand: HandId,
        table: TableId,
        number: u64,
        at: i64,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// Commits completed hands in one transaction (group commit): their records and the
    /// stacks they changed, exactly once each. Returns how many were newly committed.
    fn commit_hands(
        &self,
        hands: &[CompletedHand],
    ) -> impl Future<Output = StoreResult<usize>> + Send;
    /// Start-up: hands started but never committed are void. Returns them.
    fn recover(&self) -> impl Future<Output = StoreResult<Vec<HandId>>> + Send;
    /// One table's hands started but never committed are void (its task failed mid-hand;
    /// the stored stacks are as the hand began). Returns them.
    fn void_hands(&self, table: TableId) -> impl Future<Output = StoreResult<Vec<HandId>>> + Send;
    /// A hand by id.
    fn hand(&self, hand: HandId) -> impl Future<Output = StoreResult<HandRow>> + Send;
    /// A table's hands, newest first.
    fn table_hands(
        &self,
        table: TableId,
        limit: u32,
        offset: u32,
    ) -> impl Future<Output = StoreResult<Vec<HandRow>>> + Send;
    /// A player's hands, newest first.
    fn player_hands(
        &self,
        player: PlayerId,
        limit: u32,
        offset: u32,
    ) -> impl Future<Output = StoreResult<Vec<HandRow>>> + Send;
    /// The money totals and ledger consistency.
    fn audit(&self) -> impl Future<Output = StoreResult<Audit>> + Send;
}

/// [`Store`] on Postgres or SQLite, chosen by the URL.
#[derive(Clone, Debug)]
pub struct SqlStore {
    pool: AnyPool,
    backend: Backend,
    /// Postgres only: a native pool for the bulk hand commit (arrays through `unnest`).
    pg: Option<sqlx::PgPool>,
}

static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations/postgres");
static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations/sqlite");

fn to_i64(amount: Chips) -> StoreResult<i64> {
    i64::try_from(amount).map_err(|_| StoreError::Invalid("amount too large".into()))
}

/// An idempotency key as given: 1 to 128 characters, none a control character (the
/// same limits on both databases).
fn check_key(key: &str) -> StoreResult<&str> {
    let n = key.chars().count();
    if n == 0 || n > 128 || key.chars().any(char::is_control) {
        return Err(StoreError::Invalid(
            "an idempotency key has 1 to 128 characters, none a control character".into(),
        ));
    }
    Ok(key)
}

fn positive(amount: Chips) -> StoreResult<i64> {
    if amount == 0 || amount > MAX_MONEY {
        return Err(StoreError::Invalid(format!(
            "the amount must be from 1 to {MAX_MONEY}"
        )));
    }
    to_i64(amount)
}

fn wallet_account(p: PlayerId) -> String {
    format!("wallet:{p}")
}

fn seat_account(t: TableId, p: PlayerId) -> String {
    format!("seat:{t}:{p}")
}

/// Gives the players created before name keys existed their key. Where two older names
/// share a key, the first keeps it and the other stays keyless (found by its exact name
/// at login, and its name cannot be registered again by anyone).
async fn fill_name_keys(pool: &AnyPool, backend: Backend) -> StoreResult<()> {
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

fn unique_violation(e: &sqlx::Error) -> bool {
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

type Tx = sqlx::Transaction<'static, sqlx::Any>;

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
            return Err(StoreError::Invalid(format!(
                "unsupported database URL {url:?}"
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
                let path = url
                    .trim_start_matches("sqlite://")
                    .trim_start_matches("sqlite:");
                let path = path.split('?').next().unwrap_or(path);
                if let Some(dir) = std::path::Path::new(path).parent() {
                    if !dir.as_os_str().is_empty() {
                        std::fs::create_dir_all(dir).map_err(|e| {
                            StoreError::Invalid(format!("cannot create {}: {e}", dir.display()))
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

    /// Runs `op` in a transaction, applied at most once per idempotency key: a retry
    /// returns the first answer.
    /// `kind` and `player` scope the key (the same key may serve a deposit and a
    /// withdrawal, or two players); `request` describes the request exactly, and a key
    /// already used for another request is refused.
    async fn once<T, F>(
        &self,
        key: Option<&str>,
        kind: &str,
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
        let key = match key {
            Some(k) => Some(format!("{kind}:{player}:{}", check_key(k)?)),
            None => None,
        };
        let key = key.as_deref();
        // The answer stored with the key, if this very request made it.
        let answer = |row: sqlx::any::AnyRow| -> StoreResult<T> {
            let stored: String = row.try_get("operation")?;
            if stored != request {
                return Err(StoreError::IdempotencyConflict);
            }
            let result: String = row.try_get("result")?;
            serde_json::from_str(&result).map_err(|e| StoreError::Invalid(e.to_string()))
        };
        let select =
            self.sql("select operation, result from idempotency_key where idempotency_key_id = $1");
        let mut tx = self.begin().await?;
        if let Some(key) = key {
            let stored = sqlx::query(&select)
                .bind(key)
                .fetch_optional(&mut *tx)
                .await?;
            if let Some(row) = stored {
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
                .map_err(|_| StoreError::Invalid("bad id in database".into()))
        };
        Ok(HandRow {
            hand_id: HandId(parse(row.try_get("hand_id")?)?),
            table_id: TableId(parse(row.try_get("poker_table_id")?)?),
            number: row.try_get::<i64, _>("number")? as u64,
            status: row.try_get("status")?,
            phh: row.try_get("phh")?,
            record: row
                .try_get::<Option<String>, _>("record")?
                .and_then(|r| serde_json::from_str(&r).ok()),
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
        })
    }

    fn uuid(s: String) -> StoreResult<Uuid> {
        s.parse()
            .map_err(|_| StoreError::Invalid("bad id in database".into()))
    }
}

/// Rows per multi-row statement (SQLite allows 32,766 parameters per statement).
const CHUNK_ROWS: usize = 500;

/// `($1,$2),($3,$4)...`: `rows` groups of `cols` placeholders numbered from `first`.
fn placeholders(rows: usize, cols: usize, first: usize) -> String {
    placeholders_with(rows, &vec![""; cols], first)
}

/// Like [`placeholders`], with fixed SQL where a column's entry is not empty.
fn placeholders_with(rows: usize, cols: &[&str], first: usize) -> String {
    let mut out = String::new();
    let mut n = first;
    for r in 0..rows {
        if r > 0 {
            out.push(',');
        }
        out.push('(');
        for (c, fixed) in cols.iter().enumerate() {
            if c > 0 {
                out.push(',');
            }
            if fixed.is_empty() {
                out.push_str(&format!("${n}"));
                n += 1;
            } else {
                out.push_str(fixed);
            }
        }
        out.push(')');
    }
    out
}

/// Checks every hand conserves chips (finishing stacks plus rake = starting stacks).
fn check_conserved(hands: &[CompletedHand]) -> StoreResult<()> {
    for h in hands {
        let before: u64 = h.players.iter().map(|p| p.starting_stack).sum();
        let after: u64 = h.players.iter().map(|p| p.finishing_stack).sum::<u64>() + h.rake;
        if before != after {
            return Err(StoreError::Invalid(format!(
                "hand {} does not conserve chips",
                h.hand_id
            )));
        }
    }
    Ok(())
}

/// One ledger row of a hand: movement, account, table, amount, hand.
type HandEntry = (String, String, String, i64, String);

/// The ledger rows of committed hands (one movement each: the seats' changes and the
/// rake) and the total rake.
fn hand_ledger(todo: &[&CompletedHand]) -> (Vec<HandEntry>, i64) {
    let mut entries = Vec::new();
    let mut total_rake = 0i64;
    for h in todo {
        let movement = Uuid::new_v4().to_string();
        let mut push = |account: String, amount: i64| {
            entries.push((
                movement.clone(),
                account,
                h.table_id.to_string(),
                amount,
                h.hand_id.to_string(),
            ));
        };
        for p in &h.players {
            let delta = p.finishing_stack as i64 - p.starting_stack as i64;
            if delta != 0 {
                push(seat_account(h.table_id, p.player_id), delta);
            }
        }
        if h.rake > 0 {
            total_rake += h.rake as i64;
            push("house:rake".to_string(), h.rake as i64);
        }
    }
    (entries, total_rake)
}

/// Hands still to commit: never recorded, or started and not yet complete or void.
fn pending<'a>(hands: &'a [CompletedHand], rows: &[(String, String)]) -> Vec<&'a CompletedHand> {
    let status: std::collections::HashMap<&str, &str> =
        rows.iter().map(|(i, s)| (i.as_str(), s.as_str())).collect();
    hands
        .iter()
        .filter(|h| {
            status
                .get(h.hand_id.to_string().as_str())
                .is_none_or(|s| *s == "started")
        })
        .collect()
}

/// The Postgres hand commit: the same rows as the portable one, each table written by
/// one fixed statement over arrays, so any batch size costs a handful of round trips.
async fn commit_hands_pg(pool: &sqlx::PgPool, hands: &[CompletedHand]) -> StoreResult<usize> {
    check_conserved(hands)?;
    let mut tx = pool.begin().await?;
    let ids: Vec<String> = hands.iter().map(|h| h.hand_id.to_string()).collect();
    let rows = sqlx::query("select hand_id, status from hand where hand_id = any($1)")
        .bind(&ids)
        .fetch_all(&mut *tx)
        .await?;
    let found: Vec<(String, String)> = rows
        .iter()
        .map(|r| Ok((r.try_get("hand_id")?, r.try_get("status")?)))
        .collect::<StoreResult<_>>()?;
    let todo = pending(hands, &found);
    if todo.is_empty() {
        return Ok(0);
    }
    let now = now_ms();
    let col = |f: &dyn Fn(&CompletedHand) -> String| -> Vec<String> {
        todo.iter().map(|h| f(h)).collect()
    };
    let num =
        |f: &dyn Fn(&CompletedHand) -> i64| -> Vec<i64> { todo.iter().map(|h| f(h)).collect() };
    let known: std::collections::HashSet<&str> = found.iter().map(|(i, _)| i.as_str()).collect();
    let started: Vec<bool> = todo
        .iter()
        .map(|h| known.contains(h.hand_id.to_string().as_str()))
        .collect();
    let hand_ids = col(&|h| h.hand_id.to_string());
    let phh = col(&|h| h.phh.clone());
    let record = col(&|h| h.record.to_string());
    let rake = num(&|h| h.rake as i64);
    let ended = num(&|h| h.ended_at);
    sqlx::query(
        "update hand set status = 'complete', phh = v.phh, record = v.record, rake = v.rake, ended_at = v.ended \
         from unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bool[]) \
              as v (id, phh, record, rake, ended, started) \
         where v.started and hand.hand_id = v.id and hand.status = 'started'",
    )
    .bind(&hand_ids)
    .bind(&phh)
    .bind(&record)
    .bind(&rake)
    .bind(&ended)
    .bind(&started)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "insert into hand (hand_id, poker_table_id, number, status, phh, record, rake, started_at, ended_at, created_at) \
         select v.id, v.t, v.n, 'complete', v.phh, v.record, v.rake, v.s, v.e, $10 \
         from unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], \
                     $8::bigint[], $9::bool[]) as v (id, t, n, phh, record, rake, s, e, started) \
         where not v.started",
    )
    .bind(&hand_ids)
    .bind(col(&|h| h.table_id.to_string()))
    .bind(num(&|h| h.number as i64))
    .bind(&phh)
    .bind(&record)
    .bind(&rake)
    .bind(num(&|h| h.started_at))
    .bind(&ended)
    .bind(&started)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    // The stacks: each seat must still hold the hand's starting stack.
    let seats: Vec<(&CompletedHand, &HandPlayer)> = todo
        .iter()
        .flat_map(|h| h.players.iter().map(move |p| (*h, p)))
        .collect();
    let s_hand: Vec<String> = seats.iter().map(|(h, _)| h.hand_id.to_string()).collect();
    let s_table: Vec<String> = seats.iter().map(|(h, _)| h.table_id.to_string()).collect();
    let s_player: Vec<String> = seats.iter().map(|(_, p)| p.player_id.to_string()).collect();
    let s_seat: Vec<i64> = seats.iter().map(|(_, p)| i64::from(p.seat_no)).collect();
    let s_start: Vec<i64> = seats.iter().map(|(_, p)| p.starting_stack as i64).collect();
    let s_end: Vec<i64> = seats
        .iter()
        .map(|(_, p)| p.finishing_stack as i64)
        .collect();
    let s_at: Vec<i64> = seats.iter().map(|(h, _)| h.ended_at).collect();
    let updated = sqlx::query(
        "update seat set stack = v.f from unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[]) as v (t, p, s, f) \
         where seat.poker_table_id = v.t and seat.player_id = v.p and seat.stack = v.s",
    )
    .bind(&s_table)
    .bind(&s_player)
    .bind(&s_start)
    .bind(&s_end)
    .execute(&mut *tx)
    .await?;
    if updated.rows_affected() != seats.len() as u64 {
        return Err(StoreError::StaleHand(todo[0].hand_id));
    }
    sqlx::query(
        "insert into hand_player (hand_id, player_id, seat_no, starting_stack, finishing_stack, created_at) \
         select * from unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[])",
    )
    .bind(&s_hand)
    .bind(&s_player)
    .bind(&s_seat)
    .bind(&s_start)
    .bind(&s_end)
    .bind(&s_at)
    .execute(&mut *tx)
    .await?;
    // The ledger: one movement per hand, the seats' changes and the rake.
    let (entries, total_rake) = hand_ledger(&todo);
    let l_move: Vec<&str> = entries.iter().map(|e| e.0.as_str()).collect();
    let l_account: Vec<&str> = entries.iter().map(|e| e.1.as_str()).collect();
    let l_table: Vec<&str> = entries.iter().map(|e| e.2.as_str()).collect();
    let l_amount: Vec<i64> = entries.iter().map(|e| e.3).collect();
    let l_ref: Vec<&str> = entries.iter().map(|e| e.4.as_str()).collect();
    sqlx::query(
        "insert into ledger_entry (movement_id, account, poker_table_id, kind, amount, reference, created_at) \
         select v.m, v.a, v.t, 'hand', v.x, v.r, $6 \
         from unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[]) as v (m, a, t, x, r)",
    )
    .bind(&l_move)
    .bind(&l_account)
    .bind(&l_table)
    .bind(&l_amount)
    .bind(&l_ref)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    if total_rake > 0 {
        sqlx::query(
            "insert into house_account (house_account_id, balance, created_at) values ('rake', $1, $2) \
             on conflict (house_account_id) do update set balance = house_account.balance + excluded.balance",
        )
        .bind(total_rake)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(todo.len())
}

const HAND_COLUMNS: &str =
    "hand_id, poker_table_id, number, status, phh, record, rake, started_at, ended_at";

impl Store for SqlStore {
    fn backend(&self) -> Backend {
        self.backend
    }

    async fn create_player(&self, name: &str, password_hash: &str) -> StoreResult<PlayerId> {
        let name = names::player_name(name)?;
        let id = PlayerId::new();
        let now = now_ms();
        let mut tx = self.begin().await?;
        let inserted = sqlx::query(&self.sql(
            "insert into player (player_id, name, name_key, password_hash, created_at) values ($1, $2, $3, $4, $5)",
        ))
        .bind(id.to_string())
        .bind(&name)
        .bind(names::name_key(&name))
        .bind(password_hash)
        .bind(now)
        .execute(&mut *tx)
        .await;
        match inserted {
            Err(e) if unique_violation(&e) => return Err(StoreError::NameTaken),
            other => {
                other?;
            }
        }
        sqlx::query(
            &self.sql("insert into wallet (player_id, balance, created_at) values ($1, 0, $2)"),
        )
        .bind(id.to_string())
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(id)
    }

    async fn player_by_name(&self, name: &str) -> StoreResult<Player> {
        // By key, so any case finds the account; a row from before keys whose key
        // collided with another's (see `fill_name_keys`) is found by its exact name.
        if name.contains('\0') {
            // No name holds one; Postgres would refuse the text outright.
            return Err(StoreError::NotFound("player"));
        }
        let key = names::player_name(name).ok().map(|n| names::name_key(&n));
        let row = sqlx::query(&self.sql(
            "select player_id, name, password_hash, created_at from player \
             where name_key = $1 or (name_key is null and name = $2) \
             order by case when name = $2 then 0 else 1 end limit 1",
        ))
        .bind(key)
        .bind(name)
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StoreError::NotFound("player"))?;
        Self::player_row(&row)
    }

    async fn create_session(
        &self,
        token_hash: &str,
        player: PlayerId,
        expires_at: i64,
    ) -> StoreResult<()> {
        sqlx::query(&self.sql(
            "insert into session (token_hash, player_id, expires_at, created_at) values ($1, $2, $3, $4)",
        ))
        .bind(token_hash)
        .bind(player.to_string())
        .bind(expires_at)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn session_expiry(&self, token_hash: &str) -> StoreResult<Option<i64>> {
        let row = sqlx::query(
            &self.sql("select expires_at from session where token_hash = $1 and expires_at > $2"),
        )
        .bind(token_hash)
        .bind(now_ms())
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|r| r.try_get("expires_at")).transpose()?)
    }

    async fn session(&self, token_hash: &str) -> StoreResult<Option<Player>> {
        let row = sqlx::query(&self.sql(
            "select p.player_id, p.name, p.password_hash, p.created_at from session s join player p on p.player_id = s.player_id where s.token_hash = $1 and s.expires_at > $2",
        ))
        .bind(token_hash)
        .bind(now_ms())
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(Self::player_row).transpose()
    }

    async fn delete_session(&self, token_hash: &str) -> StoreResult<()> {
        sqlx::query(&self.sql("delete from session where token_hash = $1 or expires_at <= $2"))
            .bind(token_hash)
            .bind(now_ms())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn players(&self) -> StoreResult<Vec<Player>> {
        let rows = sqlx::query(
            "select player_id, name, password_hash, created_at from player order by name",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(Self::player_row).collect()
    }

    async fn deposit(
        &self,
        player: PlayerId,
        amount: Chips,
        key: Option<&str>,
    ) -> StoreResult<Chips> {
        let amount = positive(amount)?;
        let key_owned = key.map(str::to_string);
        self.once(
            key,
            "deposit",
            player,
            format!("deposit {amount}"),
            move |s, tx| {
                Box::pin(async move {
                    let held = sqlx::query(
                        "select cast(coalesce((select sum(balance) from wallet), 0) as bigint) \
                         + cast(coalesce((select sum(stack) from seat), 0) as bigint) \
                         + cast(coalesce((select sum(balance) from house_account), 0) as bigint)",
                    )
                    .fetch_one(&mut **tx)
                    .await?
                    .try_get::<i64, _>(0)?;
                    if held.saturating_add(amount) > MAX_MONEY as i64 {
                        return Err(StoreError::RoomFull { held });
                    }
                    let balance = s.credit_wallet(tx, player, amount).await?;
                    let entries = [
                        ("external".to_string(), -amount),
                        (wallet_account(player), amount),
                    ];
                    s.movement(
                        tx,
                        "deposit",
                        key_owned.as_deref(),
                        Some(player),
                        None,
                        &entries,
                    )
                    .await?;
                    Ok(balance as Chips)
                })
            },
        )
        .await
    }

    async fn withdraw(
        &self,
        player: PlayerId,
        amount: Chips,
        key: Option<&str>,
    ) -> StoreResult<Chips> {
        let amount = positive(amount)?;
        let key_owned = key.map(str::to_string);
        self.once(
            key,
            "withdrawal",
            player,
            format!("withdrawal {amount}"),
            move |s, tx| {
                Box::pin(async move {
                    let balance = s.debit_wallet(tx, player, amount).await?;
                    let entries = [
                        (wallet_account(player), -amount),
                        ("external".to_string(), amount),
                    ];
                    s.movement(
                        tx,
                        "withdrawal",
                        key_owned.as_deref(),
                        Some(player),
                        None,
                        &entries,
                    )
                    .await?;
                    Ok(balance as Chips)
                })
            },
        )
        .await
    }

    async fn balance(&self, player: PlayerId) -> StoreResult<Chips> {
        let row = sqlx::query(&self.sql("select balance from wallet where player_id = $1"))
            .bind(player.to_string())
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NotFound("player"))?;
        Ok(row.try_get::<i64, _>("balance")? as Chips)
    }

    async fn ledger(&self, player: PlayerId, limit: u32) -> StoreResult<Vec<LedgerEntry>> {
        let rows = sqlx::query(&self.sql(
            "select movement_id, account, kind, amount, reference, created_at from ledger_entry \
             where player_id = $1 and account <> 'external' order by ledger_entry_id desc limit $2",
        ))
        .bind(player.to_string())
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(LedgerEntry {
                    movement_id: r.try_get("movement_id")?,
                    account: r.try_get("account")?,
                    kind: r.try_get("kind")?,
                    amount: r.try_get("amount")?,
                    reference: r.try_get("reference")?,
                    created_at: r.try_get("created_at")?,
                })
            })
            .collect()
    }

    async fn create_table(&self, name: &str, config: &str) -> StoreResult<TableId> {
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

    async fn tables(&self) -> StoreResult<Vec<TableRow>> {
        let rows = sqlx::query("select poker_table_id, name, config, status, created_at from poker_table order by created_at")
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|r| {
                Ok(TableRow {
                    table_id: TableId(Self::uuid(r.try_get("poker_table_id")?)?),
                    name: r.try_get("name")?,
                    config: r.try_get("config")?,
                    status: r.try_get("status")?,
                    created_at: r.try_get("created_at")?,
                })
            })
            .collect()
    }

    async fn set_table_state(&self, table: TableId, state: &str) -> StoreResult<()> {
        let done =
            sqlx::query(&self.sql("update poker_table set state = $1 where poker_table_id = $2"))
                .bind(state)
                .bind(table.to_string())
                .execute(&self.pool)
                .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("table"));
        }
        Ok(())
    }

    async fn table_state(&self, table: TableId) -> StoreResult<Option<String>> {
        let row = sqlx::query(&self.sql("select state from poker_table where poker_table_id = $1"))
            .bind(table.to_string())
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NotFound("table"))?;
        Ok(row.try_get::<Option<String>, _>("state")?)
    }

    async fn set_table_status(&self, table: TableId, status: &str) -> StoreResult<()> {
        let done =
            sqlx::query(&self.sql("update poker_table set status = $1 where poker_table_id = $2"))
                .bind(status)
                .bind(table.to_string())
                .execute(&self.pool)
                .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("table"));
        }
        Ok(())
    }

    async fn buy_in(
        &self,
        table: TableId,
        seat_no: u32,
        player: PlayerId,
        amount: Chips,
        key: Option<&str>,
    ) -> StoreResult<()> {
        let amount = positive(amount)?;
        let key_owned = key.map(str::to_string);
        let request = format!("buy_in {table} {seat_no} {amount}");
        self.once(key, "buy_in", player, request, move |s, tx| {
            Box::pin(async move {
                s.debit_wallet(tx, player, amount).await?;
                let inserted = sqlx::query(&s.sql(
                    "insert into seat (poker_table_id, seat_no, player_id, stack, created_at) values ($1, $2, $3, $4, $5)",
                ))
                .bind(table.to_string())
                .bind(i64::from(seat_no))
                .bind(player.to_string())
                .bind(amount)
                .bind(now_ms())
                .execute(&mut **tx)
                .await;
                if let Err(e) = inserted {
                    if unique_violation(&e) {
                        // Which uniqueness broke: the player's (already seated) or the
                        // seat's. Postgres aborts the transaction, so ask the error.
                        let text = match &e {
                            sqlx::Error::Database(d) => format!("{} {}", d.message(), d.constraint().unwrap_or("")),
                            _ => String::new(),
                        };
                        return Err(if text.contains("player_id") {
                            StoreError::AlreadySeated
                        } else {
                            StoreError::SeatTaken
                        });
                    }
                    return Err(e.into());
                }
                let entries = [(wallet_account(player), -amount), (seat_account(table, player), amount)];
                s.movement(tx, "buy_in", key_owned.as_deref(), Some(player), Some(table), &entries).await?;
                Ok(())
            })
        })
        .await
    }

    async fn top_up(
        &self,
        table: TableId,
        player: PlayerId,
        amount: Chips,
        key: Option<&str>,
    ) -> StoreResult<Chips> {
        let amount = positive(amount)?;
        let key_owned = key.map(str::to_string);
        let request = format!("top_up {table} {amount}");
        self.once(key, "top_up", player, request, move |s, tx| {
            Box::pin(async move {
                s.debit_wallet(tx, player, amount).await?;
                let row = sqlx::query(&s.sql(
                    "update seat set stack = stack + $1 where poker_table_id = $2 and player_id = $3 returning stack",
                ))
                .bind(amount)
                .bind(table.to_string())
                .bind(player.to_string())
                .fetch_optional(&mut **tx)
                .await?
                .ok_or(StoreError::NotSeated)?;
                let entries = [(wallet_account(player), -amount), (seat_account(table, player), amount)];
                s.movement(tx, "top_up", key_owned.as_deref(), Some(player), Some(table), &entries).await?;
                Ok(row.try_get::<i64, _>("stack")? as Chips)
            })
        })
        .await
    }

    async fn cash_out(&self, table: TableId, player: PlayerId, at: i64) -> StoreResult<Chips> {
        let mut tx = self.begin().await?;
        let row =
            sqlx::query(&self.sql(
                "delete from seat where poker_table_id = $1 and player_id = $2 returning stack",
            ))
            .bind(table.to_string())
            .bind(player.to_string())
            .fetch_optional(&mut *tx)
            .await?
            .ok_or(StoreError::NotSeated)?;
        let stack: i64 = row.try_get("stack")?;
        if stack > 0 {
            self.credit_wallet(&mut tx, player, stack).await?;
            let entries = [
                (seat_account(table, player), -stack),
                (wallet_account(player), stack),
            ];
            self.movement(
                &mut tx,
                "cash_out",
                None,
                Some(player),
                Some(table),
                &entries,
            )
            .await?;
        }
        sqlx::query(&self.sql("delete from rathole where poker_table_id = $1 and player_id = $2"))
            .bind(table.to_string())
            .bind(player.to_string())
            .execute(&mut *tx)
            .await?;
        sqlx::query(&self.sql(
            "insert into rathole (poker_table_id, player_id, stack, left_at, created_at) values ($1, $2, $3, $4, $5)",
        ))
        .bind(table.to_string())
        .bind(player.to_string())
        .bind(stack)
        .bind(at)
        .bind(now_ms())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(stack as Chips)
    }

    async fn seats(&self, table: TableId) -> StoreResult<Vec<SeatRow>> {
        let rows = sqlx::query(&self.sql(
            "select seat_no, player_id, stack, sitting_out from seat where poker_table_id = $1 order by seat_no",
        ))
        .bind(table.to_string())
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(SeatRow {
                    seat_no: r.try_get::<i64, _>("seat_no")? as u32,
                    player_id: PlayerId(Self::uuid(r.try_get("player_id")?)?),
                    stack: r.try_get::<i64, _>("stack")? as Chips,
                    sitting_out: r.try_get::<i64, _>("sitting_out")? != 0,
                })
            })
            .collect()
    }

    async fn rathole(&self, table: TableId, player: PlayerId) -> StoreResult<Option<RatholeRow>> {
        let row = sqlx::query(&self.sql(
            "select stack, left_at from rathole where poker_table_id = $1 and player_id = $2",
        ))
        .bind(table.to_string())
        .bind(player.to_string())
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| {
            Ok(RatholeRow {
                stack: r.try_get::<i64, _>("stack")? as Chips,
                left_at: r.try_get("left_at")?,
            })
        })
        .transpose()
    }

    async fn set_sitting_out(
        &self,
        table: TableId,
        player: PlayerId,
        sitting_out: bool,
    ) -> StoreResult<()> {
        let done =
            sqlx::query(&self.sql(
                "update seat set sitting_out = $1 where poker_table_id = $2 and player_id = $3",
            ))
            .bind(i64::from(sitting_out))
            .bind(table.to_string())
            .bind(player.to_string())
            .execute(&self.pool)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotSeated);
        }
        Ok(())
    }

    async fn set_missed_blinds(
        &self,
        table: TableId,
        player: PlayerId,
        small: bool,
        big: bool,
    ) -> StoreResult<()> {
        let mut tx = self.begin().await?;
        sqlx::query(
            &self.sql("delete from missed_blind where poker_table_id = $1 and player_id = $2"),
        )
        .bind(table.to_string())
        .bind(player.to_string())
        .execute(&mut *tx)
        .await?;
        if small || big {
            sqlx::query(&self.sql(
                "insert into missed_blind (poker_table_id, player_id, owes_small, owes_big, created_at) values ($1, $2, $3, $4, $5)",
            ))
            .bind(table.to_string())
            .bind(player.to_string())
            .bind(i64::from(small))
            .bind(i64::from(big))
            .bind(now_ms())
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn missed_blinds(&self, table: TableId, player: PlayerId) -> StoreResult<(bool, bool)> {
        let row = sqlx::query(&self.sql("select owes_small, owes_big from missed_blind where poker_table_id = $1 and player_id = $2"))
            .bind(table.to_string())
            .bind(player.to_string())
            .fetch_optional(&self.pool)
            .await?;
        match row {
            Some(r) => Ok((
                r.try_get::<i64, _>("owes_small")? != 0,
                r.try_get::<i64, _>("owes_big")? != 0,
            )),
            None => Ok((false, false)),
        }
    }

    async fn start_hand(
        &self,
        hand: HandId,
        table: TableId,
        number: u64,
        at: i64,
    ) -> StoreResult<()> {
        sqlx::query(&self.sql(
            "insert into hand (hand_id, poker_table_id, number, status, rake, started_at, created_at) values ($1, $2, $3, 'started', 0, $4, $5)",
        ))
        .bind(hand.to_string())
        .bind(table.to_string())
        .bind(to_i64(number)?)
        .bind(at)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn commit_hands(&self, hands: &[CompletedHand]) -> StoreResult<usize> {
        if let Some(pg) = &self.pg {
            return commit_hands_pg(pg, hands).await;
        }
        check_conserved(hands)?;
        let mut tx = self.begin().await?;
        // Exactly once: only hands never recorded, or started and not yet committed.
        let mut found: Vec<(String, String)> = Vec::new();
        for chunk in hands.chunks(CHUNK_ROWS) {
            let list = placeholders(chunk.len(), 1, 1);
            let text = self.sql(&format!(
                "select hand_id, status from hand where hand_id in ({})",
                &list[1..list.len() - 1].replace("),(", ",")
            ));
            let mut q = sqlx::query(&text);
            for h in chunk {
                q = q.bind(h.hand_id.to_string());
            }
            for row in q.fetch_all(&mut *tx).await? {
                found.push((row.try_get("hand_id")?, row.try_get("status")?));
            }
        }
        let todo = pending(hands, &found);
        if todo.is_empty() {
            return Ok(0);
        }
        let now = now_ms();
        let known: std::collections::HashSet<&str> =
            found.iter().map(|(i, _)| i.as_str()).collect();
        let (started, fresh): (Vec<&CompletedHand>, Vec<&CompletedHand>) = todo
            .iter()
            .partition(|h| known.contains(h.hand_id.to_string().as_str()));
        for chunk in started.chunks(CHUNK_ROWS) {
            let sql = format!(
                "with v (id, phh, record, rake, ended) as (values {}) \
                 update hand set status = 'complete', phh = v.phh, record = v.record, rake = v.rake, ended_at = v.ended \
                 from v where hand.hand_id = v.id and hand.status = 'started'",
                placeholders(chunk.len(), 5, 1)
            );
            let text = self.sql(&sql);
            let mut q = sqlx::query(&text);
            for h in chunk {
                q = q
                    .bind(h.hand_id.to_string())
                    .bind(h.phh.clone())
                    .bind(h.record.to_string())
                    .bind(to_i64(h.rake)?)
                    .bind(h.ended_at);
            }
            q.execute(&mut *tx).await?;
        }
        for chunk in fresh.chunks(CHUNK_ROWS) {
            let sql = format!(
                "insert into hand (hand_id, poker_table_id, number, status, phh, record, rake, started_at, ended_at, created_at) \
                 values {}",
                placeholders_with(chunk.len(), &["", "", "", "'complete'", "", "", "", "", "", ""], 1)
            );
            let text = self.sql(&sql);
            let mut q = sqlx::query(&text);
            for h in chunk {
                q = q
                    .bind(h.hand_id.to_string())
                    .bind(h.table_id.to_string())
                    .bind(to_i64(h.number)?)
                    .bind(h.phh.clone())
                    .bind(h.record.to_string())
                    .bind(to_i64(h.rake)?)
                    .bind(h.started_at)
                    .bind(h.ended_at)
                    .bind(now);
            }
            q.execute(&mut *tx).await?;
        }
        // The stacks: each seat must still hold the hand's starting stack.
        let seats: Vec<(&CompletedHand, &HandPlayer)> = todo
            .iter()
            .flat_map(|h| h.players.iter().map(move |p| (*h, p)))
            .collect();
        for chunk in seats.chunks(CHUNK_ROWS) {
            let sql = format!(
                "with v (t, p, s, f) as (values {}) \
                 update seat set stack = v.f from v \
                 where seat.poker_table_id = v.t and seat.player_id = v.p and seat.stack = v.s",
                placeholders(chunk.len(), 4, 1)
            );
            let text = self.sql(&sql);
            let mut q = sqlx::query(&text);
            for (h, p) in chunk {
                q = q
                    .bind(h.table_id.to_string())
                    .bind(p.player_id.to_string())
                    .bind(to_i64(p.starting_stack)?)
                    .bind(to_i64(p.finishing_stack)?);
            }
            let updated = q.execute(&mut *tx).await?;
            if updated.rows_affected() != chunk.len() as u64 {
                return Err(StoreError::StaleHand(chunk[0].0.hand_id));
            }
            let sql = format!(
                "insert into hand_player (hand_id, player_id, seat_no, starting_stack, finishing_stack, created_at) values {}",
                placeholders(chunk.len(), 6, 1)
            );
            let text = self.sql(&sql);
            let mut q = sqlx::query(&text);
            for (h, p) in chunk {
                q = q
                    .bind(h.hand_id.to_string())
                    .bind(p.player_id.to_string())
                    .bind(i64::from(p.seat_no))
                    .bind(to_i64(p.starting_stack)?)
                    .bind(to_i64(p.finishing_stack)?)
                    .bind(h.ended_at);
            }
            q.execute(&mut *tx).await?;
        }
        // The ledger: one movement per hand, the seats' changes and the rake.
        let (entries, total_rake) = hand_ledger(&todo);
        for chunk in entries.chunks(CHUNK_ROWS) {
            let sql = format!(
                "insert into ledger_entry (movement_id, account, poker_table_id, kind, amount, reference, created_at) values {}",
                placeholders_with(chunk.len(), &["", "", "", "'hand'", "", "", ""], 1)
            );
            let text = self.sql(&sql);
            let mut q = sqlx::query(&text);
            for (movement, account, table, amount, hand) in chunk {
                q = q
                    .bind(movement.clone())
                    .bind(account.clone())
                    .bind(table.clone())
                    .bind(*amount)
                    .bind(hand.clone())
                    .bind(now);
            }
            q.execute(&mut *tx).await?;
        }
        if total_rake > 0 {
            let updated = sqlx::query(&self.sql(
                "update house_account set balance = balance + $1 where house_account_id = 'rake'",
            ))
            .bind(total_rake)
            .execute(&mut *tx)
            .await?;
            if updated.rows_affected() == 0 {
                sqlx::query(&self.sql("insert into house_account (house_account_id, balance, created_at) values ('rake', $1, $2)"))
                    .bind(total_rake)
                    .bind(now)
                    .execute(&mut *tx)
                    .await?;
            }
        }
        tx.commit().await?;
        Ok(todo.len())
    }

    async fn recover(&self) -> StoreResult<Vec<HandId>> {
        self.void_started(None).await
    }

    async fn void_hands(&self, table: TableId) -> StoreResult<Vec<HandId>> {
        self.void_started(Some(table)).await
    }

    async fn hand(&self, hand: HandId) -> StoreResult<HandRow> {
        let row = sqlx::query(&self.sql(&format!(
            "select {HAND_COLUMNS} from hand where hand_id = $1"
        )))
        .bind(hand.to_string())
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StoreError::NotFound("hand"))?;
        Self::hand_row(&row)
    }

    async fn table_hands(
        &self,
        table: TableId,
        limit: u32,
        offset: u32,
    ) -> StoreResult<Vec<HandRow>> {
        let rows = sqlx::query(&self.sql(&format!(
            "select {HAND_COLUMNS} from hand where poker_table_id = $1 order by started_at desc, number desc limit $2 offset $3"
        )))
        .bind(table.to_string())
        .bind(i64::from(limit))
        .bind(i64::from(offset))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(Self::hand_row).collect()
    }

    async fn player_hands(
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
        let rows = sqlx::query(&self.sql(&format!(
            "select {columns} from hand h join hand_player hp on hp.hand_id = h.hand_id \
             where hp.player_id = $1 order by h.started_at desc, h.number desc limit $2 offset $3"
        )))
        .bind(player.to_string())
        .bind(i64::from(limit))
        .bind(i64::from(offset))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(Self::hand_row).collect()
    }

    async fn audit(&self) -> StoreResult<Audit> {
        let mut tx = self.begin().await?;
        // Every query below reads the same snapshot, so hands committed meanwhile cannot
        // make the books look unbalanced (SQLite transactions are serializable already).
        if self.backend == Backend::Postgres {
            sqlx::query("set transaction isolation level repeatable read")
                .execute(&mut *tx)
                .await?;
        }
        let sum = |sql: &'static str| sql;
        let scalar = async |tx: &mut Tx, sql: &str| -> StoreResult<i64> {
            let row = sqlx::query(sql).fetch_one(&mut **tx).await?;
            Ok(row.try_get::<Option<i64>, _>(0)?.unwrap_or(0))
        };
        let wallets = scalar(
            &mut tx,
            sum("select cast(coalesce(sum(balance), 0) as bigint) from wallet"),
        )
        .await?;
        let stacks = scalar(
            &mut tx,
            sum("select cast(coalesce(sum(stack), 0) as bigint) from seat"),
        )
        .await?;
        let rake = scalar(
            &mut tx,
            sum("select cast(coalesce(sum(balance), 0) as bigint) from house_account"),
        )
        .await?;
        let deposits = scalar(
            &mut tx,
            "select cast(coalesce(sum(amount), 0) as bigint) from ledger_entry where kind = 'deposit' and account <> 'external'",
        )
        .await?;
        let withdrawals = scalar(
            &mut tx,
            "select cast(coalesce(sum(amount), 0) as bigint) from ledger_entry where kind = 'withdrawal' and account = 'external'",
        )
        .await?;
        let unbalanced = scalar(
            &mut tx,
            "select cast(count(*) as bigint) from (select movement_id from ledger_entry group by movement_id having sum(amount) <> 0) m",
        )
        .await?;
        // Every account's ledger sum equals its balance.
        let mut mismatched = Vec::new();
        let ledger = sqlx::query("select account, cast(sum(amount) as bigint) as total from ledger_entry where account <> 'external' group by account")
            .fetch_all(&mut *tx)
            .await?;
        let mut balances = std::collections::HashMap::new();
        for r in sqlx::query("select player_id, balance from wallet")
            .fetch_all(&mut *tx)
            .await?
        {
            let p: String = r.try_get("player_id")?;
            balances.insert(format!("wallet:{p}"), r.try_get::<i64, _>("balance")?);
        }
        for r in sqlx::query("select poker_table_id, player_id, stack from seat")
            .fetch_all(&mut *tx)
            .await?
        {
            let t: String = r.try_get("poker_table_id")?;
            let p: String = r.try_get("player_id")?;
            balances.insert(format!("seat:{t}:{p}"), r.try_get::<i64, _>("stack")?);
        }
        for r in sqlx::query("select house_account_id, balance from house_account")
            .fetch_all(&mut *tx)
            .await?
        {
            let a: String = r.try_get("house_account_id")?;
            balances.insert(format!("house:{a}"), r.try_get::<i64, _>("balance")?);
        }
        for r in &ledger {
            let account: String = r.try_get("account")?;
            let total: i64 = r.try_get::<Option<i64>, _>("total")?.unwrap_or(0);
            let balance = balances.remove(&account).unwrap_or(0);
            if balance != total {
                mismatched.push(account);
            }
        }
        mismatched.extend(
            balances
                .into_iter()
                .filter(|(_, b)| *b != 0)
                .map(|(a, _)| a),
        );
        tx.commit().await?;
        Ok(Audit {
            wallets,
            stacks,
            rake,
            deposits,
            withdrawals,
            unbalanced_movements: unbalanced,
            mismatched_accounts: mismatched,
        })
    }
}
