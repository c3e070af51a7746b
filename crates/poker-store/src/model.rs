//! What the store keeps and returns: players, ledger entries, tables, seats, rathole
//! records, completed hands and the audit.

use serde::{Deserialize, Serialize};

use crate::*;

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
    /// Open, closing or closed.
    pub status: TableStatus,
    /// When created.
    pub created_at: i64,
}

/// Where a table is in its life (stored as `open`, `closing`, `closed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TableStatus {
    /// Playing or waiting for players.
    Open,
    /// Asked to close: the hand in progress finishes, then everyone is cashed out.
    Closing,
    /// Closed for good.
    Closed,
}

/// Where a hand is in its life (stored as `started`, `complete`, `void`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HandStatus {
    /// Dealt and not yet committed: void after a crash.
    Started,
    /// Committed with its history.
    Complete,
    /// Never finished: its chips went back to the stacks it began with.
    Void,
}

macro_rules! text_enum {
    ($ty:ty { $($variant:ident = $text:literal),* }) => {
        impl $ty {
            /// The text stored in the database.
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $text),* }
            }
        }
        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
        impl PartialEq<&str> for $ty {
            fn eq(&self, text: &&str) -> bool {
                self.as_str() == *text
            }
        }
        impl std::str::FromStr for $ty {
            type Err = StoreError;
            fn from_str(s: &str) -> Result<Self, StoreError> {
                match s {
                    $($text => Ok(Self::$variant),)*
                    other => Err(StoreError::Invalid(format!(
                        "unknown {} {other:?}", stringify!($ty)
                    ))),
                }
            }
        }
    };
}

text_enum!(TableStatus { Open = "open", Closing = "closing", Closed = "closed" });
text_enum!(HandStatus { Started = "started", Complete = "complete", Void = "void" });

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
    /// Started, complete or void.
    pub status: HandStatus,
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
