//! `StoreError`: why a store operation failed (nothing was changed).

use crate::*;

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
    /// A write's fencing token (a hand's, or a buy-in's, top-up's, cash-out's or hand
    /// start's) is not the table lease's current one: the lease has passed to another
    /// node (or was never taken), so this node must not write for the table any more.
    #[error("table {table}: lease token {token} is stale; another node owns the table")]
    Fenced {
        /// The table.
        table: TableId,
        /// The stale token the write carried.
        token: u64,
    },
    /// The request makes no sense (a zero amount, chips not conserved...): the caller's
    /// mistake, safe to show.
    #[error("invalid request: {0}")]
    Invalid(String),
    /// The database holds something this version cannot read (an id that is not a UUID,
    /// an unknown status, an unreadable record): logged, never shown to a client.
    #[error("the database is corrupt: {0}")]
    Corrupt(String),
    /// The store cannot start: an unsupported database URL, a directory it cannot create.
    #[error("cannot open the store: {0}")]
    Config(String),
    /// The persister has stopped (the server is shutting down).
    #[error("the persister has stopped")]
    Stopped,
    /// A deposit would take the money in the room past [`MAX_MONEY`].
    #[error("the room may hold at most {MAX_MONEY} chips ({held} now)")]
    RoomFull {
        /// What the room holds now.
        held: i64,
    },
    /// The change would leave no enabled admin among the staff (refused when asked to
    /// keep one).
    #[error("the last enabled admin cannot be disabled or demoted")]
    LastAdmin,
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

impl StoreError {
    /// Whether the failure is the database being out of reach for a while (a connection
    /// refused or reset, the pool timing out, PostgreSQL shutting down or starting up, a
    /// serialization conflict, SQLite busy) rather than a refusal of what was asked: the
    /// same write may succeed if tried again later. A table tries a finished hand's commit
    /// again after such a failure instead of voiding the hand.
    pub fn is_transient(&self) -> bool {
        let StoreError::Database(e) = self else {
            return false;
        };
        match e {
            sqlx::Error::Io(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::Protocol(_)
            | sqlx::Error::WorkerCrashed => true,
            sqlx::Error::Database(db) => db.code().is_some_and(|code| transient_code(&code)),
            _ => false,
        }
    }
}

/// Database error codes that mean "try again later": PostgreSQL's connection exceptions
/// (class 08), insufficient resources (class 53, such as too many connections), operator
/// intervention (57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now),
/// serialization failures and deadlocks (40001, 40P01); SQLite's busy and locked (primary
/// codes 5 and 6, and their extended codes).
fn transient_code(code: &str) -> bool {
    if code.starts_with("08") || code.starts_with("53") {
        return true;
    }
    if matches!(code, "57P01" | "57P02" | "57P03" | "40001" | "40P01") {
        return true;
    }
    // SQLite's extended codes keep the primary code in their low byte.
    code.parse::<u32>().is_ok_and(|n| matches!(n & 0xff, 5 | 6))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreachable_database_is_transient_and_a_refusal_is_not() {
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert!(StoreError::Database(sqlx::Error::Io(refused)).is_transient());
        assert!(StoreError::Database(sqlx::Error::PoolTimedOut).is_transient());
        for code in [
            "08006", "08001", "57P01", "57P03", "53300", "40001", "5", "517", "6",
        ] {
            assert!(transient_code(code), "{code}");
        }
        // A unique violation, a raised exception, SQLite's constraint failure (19) and
        // its corrupt database (11) are refusals: trying again changes nothing.
        for code in ["23505", "P0001", "42P01", "19", "2067", "11"] {
            assert!(!transient_code(code), "{code}");
        }
        assert!(!StoreError::StaleHand(HandId::new()).is_transient());
        assert!(!StoreError::Invalid("chips not conserved".into()).is_transient());
        assert!(!StoreError::Fenced {
            table: TableId::new(),
            token: 1
        }
        .is_transient());
        assert!(!StoreError::Stopped.is_transient());
    }
}
