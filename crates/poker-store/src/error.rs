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
