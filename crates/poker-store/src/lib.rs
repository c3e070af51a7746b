//! Persistence: everything the server must remember so that a crash, a restart or a bad
//! request never loses or creates a chip.
//!
//! One type, [`SqlStore`], whose methods are the store's operations, on Postgres
//! (production) and on an embedded SQLite file (the default, so a fresh machine needs no
//! database server), through sqlx's runtime-chosen driver; each query's text is fixed
//! at compile time for each backend. Money moves only inside database
//! transactions that also write its double-entry [`LedgerEntry`] rows; a wallet can never
//! go negative (a `check` constraint, and conditional updates); client-retried operations
//! carry an idempotency key and are applied once. Seat stacks change only with a buy-in,
//! top-up, cash-out or a committed hand, so a hand that never committed never happened:
//! [`SqlStore::recover`] marks it void at start-up.

mod error;
mod fairplay;
mod ids;
mod model;
pub mod names;
pub mod password;
pub mod persister;
mod sql;
pub mod testing;

use std::time::{SystemTime, UNIX_EPOCH};

pub use error::*;
pub use fairplay::*;
pub use ids::*;
pub use model::*;
pub use persister::{Persister, PersisterHandle};
pub use sql::archive::{
    day_of, day_start, Archive, ArchiveError, ArchiveFile, ArchiveLock, ArchivedHand,
    ArchivedPlayer, DELETE_BATCH,
};
pub use sql::backfill::FillBatch;
pub use sql::backup::{backup_database, Backup, BackupError, POSTGRES_WAY};
pub use sql::{SetPathFallbacks, SqlStore};

/// An amount of chips (whole chips, never negative).
pub type Chips = u64;

/// The most money a room may hold: deposits less withdrawals, all wallets, stacks and
/// rake together (2^53, `poker_rules::MAX_CHIPS`). A deposit that would pass it is refused,
/// so every sum the store forms (a balance, the audit) fits, and so does every amount a
/// table or a PHH history (floats) holds.
pub const MAX_MONEY: Chips = 1 << 53;

/// The current time in unix milliseconds.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Hashes a password with Argon2 (a random salt each time), in memory of its own
/// (a server hashes on its hashing threads instead, see [`password`]).
pub fn hash_password(password: &str) -> String {
    password::hash_password_in(password, &mut password::Memory::new())
}

/// Checks a password against its Argon2 hash, in memory of its own.
pub fn verify_password(password: &str, hash: &str) -> bool {
    password::verify_password_in(password, hash, &mut password::Memory::new())
}
