//! What the store keeps and returns: players, ledger entries, tables, seats, rathole
//! records, table leases, completed hands and the audit.

use serde::{Deserialize, Serialize};

use crate::*;

/// A player account. Its `Debug` leaves the password's hash out (an account in a log line
/// or a panic message must not carry it).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// Locked by staff: no login, no session.
    #[serde(default)]
    pub locked: bool,
}

impl std::fmt::Debug for Player {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Player")
            .field("player_id", &self.player_id)
            .field("name", &self.name)
            .field("password_hash", &"(hidden)")
            .field("created_at", &self.created_at)
            .field("locked", &self.locked)
            .finish()
    }
}

/// What a WebSocket's sign-in reads, in one statement ([`crate::SqlStore::sign_in`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignIn {
    /// The live session's player.
    pub player: Player,
    /// When the session ends (unix milliseconds).
    pub expires_at: i64,
    /// The tables where the player holds a seat, by id.
    pub tables: Vec<TableId>,
    /// Whether seats released while the player was away wait to be told
    /// ([`crate::SqlStore::take_seat_release_notices`]).
    pub notices: bool,
}

/// Why money comes into a wallet from outside the room ([`crate::SqlStore::credit`]). Each
/// is its own kind of request for idempotency: the key of one is refused on another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Credit {
    /// A cashier's deposit (real money in).
    Deposit,
    /// Play chips a play-money room gives: a new account's, or a house bot's.
    Grant,
    /// Play chips a player asks for to refill their wallet.
    Reload,
}

impl Credit {
    /// The word the request is recorded under.
    pub fn as_str(self) -> &'static str {
        match self {
            Credit::Deposit => "deposit",
            Credit::Grant => "grant",
            Credit::Reload => "reload",
        }
    }
}

/// What a staff member may do in the console and the admin API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Everything, staff accounts included.
    Admin,
    /// Deposits and withdrawals, and reading players and the ledger.
    Cashier,
    /// Tables and players (no money).
    Floor,
}

impl Role {
    /// The role's name as stored and sent.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Cashier => "cashier",
            Role::Floor => "floor",
        }
    }

    /// A role by its name.
    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "admin" => Some(Role::Admin),
            "cashier" => Some(Role::Cashier),
            "floor" => Some(Role::Floor),
            _ => None,
        }
    }
}

/// A staff account. Its `Debug` leaves the password's hash out, as [`Player`]'s does.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Staff {
    /// The id (a UUID).
    pub staff_id: String,
    /// The unique name.
    pub name: String,
    /// Argon2 hash of the password (never sent).
    #[serde(skip_serializing)]
    pub password_hash: String,
    /// What they may do.
    pub role: Role,
    /// When created (unix milliseconds).
    pub created_at: i64,
    /// Disabled by an admin: no sign-in, no session.
    #[serde(default)]
    pub disabled: bool,
}

impl std::fmt::Debug for Staff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Staff")
            .field("staff_id", &self.staff_id)
            .field("name", &self.name)
            .field("password_hash", &"(hidden)")
            .field("role", &self.role)
            .field("created_at", &self.created_at)
            .field("disabled", &self.disabled)
            .finish()
    }
}

/// A player's live password reset code, as the store keeps it (the code itself only as
/// its hash, never here).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResetCode {
    /// Whose password it resets.
    pub player_id: PlayerId,
    /// Who issued it, as the audit log names them (`token`, `staff:NAME`).
    pub issued_by: String,
    /// When it was issued (unix milliseconds).
    pub issued_at: i64,
    /// When it stops working (unix milliseconds).
    pub expires_at: i64,
}

/// A password changed by staff (set by an admin, or with a code a staff member issued),
/// told to the player at their next login.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PasswordNotice {
    /// Who: the admin who set it, or whoever issued the code (`token`, `staff:NAME`).
    pub by: String,
    /// When the password changed (unix milliseconds).
    pub at: i64,
}

/// The rake one table collected on one day (UTC).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RakeDay {
    /// The day, `YYYY-MM-DD`.
    pub day: String,
    /// The table.
    pub table_id: TableId,
    /// Rake collected.
    pub rake: Chips,
    /// Hands completed.
    pub hands: u64,
}

/// The rake of a window of days summed per day (room-wide) or per table
/// ([`crate::SqlStore::rake_totals`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RakeBy {
    /// A total per day (UTC), newest first.
    Day,
    /// A total per table, the most raked first.
    Table,
}

/// The rake and hands of one day or one table over a window ([`RakeBy`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RakeTotal {
    /// The day, `YYYY-MM-DD`, when summed per day.
    pub day: Option<String>,
    /// The table, when summed per table.
    pub table_id: Option<TableId>,
    /// Rake collected.
    pub rake: Chips,
    /// Hands completed.
    pub hands: u64,
}

/// A day number (days since 1970-01-01) as `YYYY-MM-DD` (proleptic Gregorian).
pub fn day_string(days: i64) -> String {
    let (y, m, d) = crate::sql::archive::civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// One line of the audit log: who did what to what.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditEntry {
    /// When (unix milliseconds).
    pub at: i64,
    /// Who: `token` (the admin token) or `staff:NAME`.
    pub actor: String,
    /// What: `deposit`, `create_table`, `lock_player`...
    pub action: String,
    /// To what: a player's or table's id or name.
    pub target: String,
    /// The request's details (JSON).
    pub detail: String,
}

/// One line of the ledger: one side of a movement of money.
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

/// One player's seat at one table, summed from the ledger (a line of the table's
/// settle-up).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableLedgerLine {
    /// The player.
    pub player_id: PlayerId,
    /// Their name.
    pub name: String,
    /// Bought in and topped up, in all.
    pub bought_in: i64,
    /// Cashed out, in all.
    pub cashed_out: i64,
    /// What a private play-money game's host added to the stack (positive) or took off
    /// it, in all: chips from outside the game, so not won or lost.
    pub adjusted: i64,
    /// What the seat's account holds now (the stack as of the last finished hand).
    pub stack: i64,
}

impl TableLedgerLine {
    /// Won (positive) or lost: cashed out and held, less bought in and less what the
    /// host adjusted.
    pub fn net(&self) -> i64 {
        self.cashed_out + self.stack - self.bought_in - self.adjusted
    }
}

/// A table's ledger: a line per player who bought in (in the order they first did), and
/// the rake the house took there. Every chip a seat lost went to another seat or to the
/// rake, so the nets and the rake sum to zero.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableLedger {
    /// The players' lines.
    pub lines: Vec<TableLedgerLine>,
    /// The rake taken at the table.
    pub rake: i64,
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

/// Which node runs a table, when several server nodes share one database: the owner
/// until `expires_at` (by the database's clock) unless it renews the lease.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lease {
    /// The table.
    pub table_id: TableId,
    /// The node holding (or last holding) it.
    pub node: String,
    /// The fencing token: raised each time the table passes to an owner, never lowered,
    /// so writes made under an older lease can be refused.
    pub token: u64,
    /// When the lease ends (unix milliseconds by the database's clock); 0 once released.
    pub expires_at: i64,
    /// Whether it was live when read, by the database's clock (the only one that decides:
    /// never compare `expires_at` with a node's own clock).
    pub live: bool,
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
                    other => Err(StoreError::Corrupt(format!(
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

/// What a finished hand's record holds beside its PHH text: who sat where, the forced
/// bets and the stacks, for the histories' exports and the players' lists of their hands.
/// Stored as JSON; every list but `posts` has one entry per player dealt in, in the
/// hand's order (index 0 first left of the button).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandRecord {
    /// The board, as card text (`"AhKd7c"`), empty in stud and draw.
    pub board: String,
    /// The button's seat (0-based).
    pub button: usize,
    /// Each player's seat (0-based).
    pub seats: Vec<usize>,
    /// Each player's id.
    pub seat_players: Vec<PlayerId>,
    /// The seats the table has.
    pub seat_count: usize,
    /// Every forced bet, by seat.
    pub posts: Vec<poker_rules::table::Post>,
    /// Each player's stack as the hand began.
    pub starting_stacks: Vec<Chips>,
    /// Each player's stack as it ended.
    pub finishing_stacks: Vec<Chips>,
    /// The deck the hand was dealt from: the commitment's cards and salts, the seeds used
    /// and the reshuffles, from which every player's proofs are made again. The
    /// operator's: never sent to a player whole (its `Debug` shows no card).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deck: Option<poker_fairness::StoredDeck>,
    /// Every fold made facing another player's bet or raise, for the collusion report:
    /// worked out by the table from the hand's cards as it ends (a few microseconds), so
    /// the report reads it instead of replaying the history. `None` in records written
    /// before it existed. For the house only: it tells how hands that were never shown
    /// stood, so it is never sent to a player (`/api/me/hands` picks its fields).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folds: Option<Vec<FoldFact>>,
}

/// A fold facing another player's bet or raise (`HandRecord::folds`). Players are indexes
/// in the hand's order, as in the record's lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoldFact {
    /// Who folded.
    pub folder: usize,
    /// Whose bet or raise (the last of the betting round) they folded to.
    pub bettor: usize,
    /// Whether the folder's cards stood better than the bettor's then
    /// (`poker_rules::eval::ahead`).
    pub ahead: bool,
}

impl HandRecord {
    /// The index in the hand of a player, if they were dealt in.
    pub fn index_of(&self, player: PlayerId) -> Option<usize> {
        self.seat_players.iter().position(|&p| p == player)
    }

    /// The JSON stored in the database.
    pub fn to_json(&self) -> String {
        // Only strings, integers and plain enums: serializing cannot fail.
        serde_json::to_string(self).expect("a hand record serializes")
    }

    /// What a player won or lost in the hand, if they were dealt in.
    pub fn net(&self, player: PlayerId) -> Option<i64> {
        let i = self.index_of(player)?;
        let start = i64::try_from(*self.starting_stacks.get(i)?).ok()?;
        let end = i64::try_from(*self.finishing_stacks.get(i)?).ok()?;
        Some(end - start)
    }
}

/// The big blind a hand was played for: its largest big blind posted, or in a game
/// without blinds (stud) its small bet, as its PHH history says. `None` if neither is
/// known. What a player's stats count big blinds in; the commit keeps it in each of the
/// hand's `hand_player` rows (0 there when `None`).
pub fn big_blind(record: &HandRecord, phh: Option<&str>) -> Option<u64> {
    let posted = record
        .posts
        .iter()
        .filter(|p| p.kind == poker_rules::table::PostKind::BigBlind)
        .map(|p| p.amount)
        .max();
    if let Some(bb) = posted.filter(|&b| b > 0) {
        return Some(bb);
    }
    let phh = poker_history::phh::PhhHand::parse(phh?).ok()?;
    let blinds = phh.blinds_or_straddles.iter().copied().fold(0.0, f64::max);
    [blinds, phh.small_bet, phh.min_bet]
        .into_iter()
        .find(|&v| v > 0.0)
        .map(|v| v as u64)
}

/// One of a player's hands as their stats count it, read from the players' index alone
/// ([`crate::SqlStore::player_results_between`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HandResult {
    /// The hand.
    pub hand_id: HandId,
    /// When it was dealt (unix milliseconds).
    pub started_at: i64,
    /// What the player won (positive) or lost.
    pub net: i64,
    /// The big blind it was played for ([`big_blind`]): `Some(None)` when none is known,
    /// `None` when the row does not say (written before the store kept it, or by a node of
    /// the previous release): the caller then reads the hand.
    pub big_blind: Option<Option<u64>>,
}

/// A hand just dealt, recorded before anyone sees a card ([`crate::SqlStore::start_hands`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandStart {
    /// The hand.
    pub hand: HandId,
    /// Its table.
    pub table: TableId,
    /// Its number at the table.
    pub number: u64,
    /// When it was dealt (ms since the epoch).
    pub at: i64,
    /// The table's lease token among several nodes (a stale one is refused).
    pub fence: Option<u64>,
}

/// A sit with chips, one of a group committed together ([`crate::SqlStore::buy_ins`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuyIn {
    /// The table.
    pub table: TableId,
    /// The seat taken.
    pub seat_no: u32,
    /// Who sits.
    pub player: PlayerId,
    /// The chips moved from the wallet to the seat.
    pub amount: Chips,
    /// The table's lease token among several nodes (a stale one is refused).
    pub fence: Option<u64>,
}

/// A write that moves no money ([`crate::SqlStore::save_table_writes`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableWrite {
    /// A table's between-hands state (JSON).
    State {
        /// The table.
        table: TableId,
        /// The state.
        state: String,
    },
    /// Whether a seated player sits out.
    SittingOut {
        /// The table.
        table: TableId,
        /// The player.
        player: PlayerId,
        /// Sitting out.
        out: bool,
    },
    /// The blinds a player owes at a table.
    MissedBlinds {
        /// The table.
        table: TableId,
        /// The player.
        player: PlayerId,
        /// Owes the small blind.
        small: bool,
        /// Owes the big blind.
        big: bool,
    },
    /// The address a player has just sat down from at a table, and a flag with each
    /// player seated there from it ([`crate::SqlStore::record_sit_address`]).
    SitAddress {
        /// The table.
        table: TableId,
        /// The player who sat down.
        player: PlayerId,
        /// The client's address.
        address: String,
        /// When they sat down (unix milliseconds).
        at: i64,
        /// The players seated at the table from the same address, as the table decided.
        flagged_with: Vec<PlayerId>,
    },
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
    /// The structured record beside the PHH text.
    pub record: HandRecord,
    /// When it started and ended (unix milliseconds).
    pub started_at: i64,
    /// When it ended.
    pub ended_at: i64,
    /// The table lease's token when the hand was dealt: the commit is refused if the
    /// lease has passed to another owner since. `None` where one process runs every
    /// table without leases.
    #[serde(default)]
    pub fence: Option<u64>,
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
    pub record: Option<HandRecord>,
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
    /// Money deposited from outside (play chips granted, and those a private play-money
    /// game's host added to a stack, included).
    pub deposits: i64,
    /// Money withdrawn to outside (play chips a private game's host took off a stack
    /// included).
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

#[cfg(test)]
mod day_tests {
    #[test]
    fn day_numbers_read_as_calendar_dates() {
        assert_eq!(super::day_string(0), "1970-01-01");
        assert_eq!(super::day_string(20_417), "2025-11-25");
        assert_eq!(super::day_string(11_016), "2000-02-29");
        assert_eq!(super::day_string(-1), "1969-12-31");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_accounts_debug_never_shows_its_password_hash() {
        let player = Player {
            player_id: PlayerId::new(),
            name: "ann".into(),
            password_hash: "$argon2id$v=19$secret".into(),
            created_at: 1,
            locked: false,
        };
        let shown = format!("{player:?}");
        assert!(
            shown.contains("ann") && !shown.contains("argon2"),
            "{shown}"
        );
        let staff = Staff {
            staff_id: "s1".into(),
            name: "bob".into(),
            password_hash: "$argon2id$v=19$secret".into(),
            role: Role::Admin,
            created_at: 1,
            disabled: false,
        };
        let shown = format!("{staff:?}");
        assert!(
            shown.contains("bob") && !shown.contains("argon2"),
            "{shown}"
        );
    }

    #[test]
    fn a_hand_record_reads_back_from_its_json_and_tells_each_players_result() {
        let (ann, ben) = (PlayerId::new(), PlayerId::new());
        let record = HandRecord {
            board: "Ah7d2c".into(),
            button: 3,
            seats: vec![3, 0],
            seat_players: vec![ann, ben],
            seat_count: 6,
            posts: Vec::new(),
            starting_stacks: vec![100, 200],
            finishing_stacks: vec![160, 138],
            deck: None,
            folds: Some(vec![FoldFact {
                folder: 1,
                bettor: 0,
                ahead: true,
            }]),
        };
        let back: HandRecord = serde_json::from_str(&record.to_json()).unwrap();
        assert_eq!(back, record);
        assert_eq!(record.index_of(ben), Some(1));
        assert_eq!(record.net(ann), Some(60));
        assert_eq!(record.net(ben), Some(-62));
        assert_eq!(record.net(PlayerId::new()), None);
        // Ids are text in the JSON, as the admin API and older rows have them.
        assert!(record.to_json().contains(&format!("\"{ann}\"")));
        // A record written before the folds were kept reads back without them.
        let older = r#"{"board":"","button":0,"seats":[],"seat_players":[],"seat_count":6,"posts":[],"starting_stacks":[],"finishing_stacks":[]}"#;
        assert_eq!(
            serde_json::from_str::<HandRecord>(older).unwrap().folds,
            None
        );
    }
}

/// The longest player note, in characters ([`crate::SqlStore::set_note`]).
pub const MAX_NOTE_LEN: usize = 1000;

/// A seat released while its player was away with no page open, kept to tell the player
/// on coming back ([`crate::SqlStore::take_seat_release_notices`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatReleaseNotice {
    /// The table whose seat it was.
    pub table_id: TableId,
    /// The table's name then.
    pub table_name: String,
    /// How long the player had been away, in seconds of the room's clock.
    pub away_secs: u64,
    /// The chips cashed out to the wallet.
    pub amount: Chips,
    /// When the seat was released (unix milliseconds).
    pub created_at: i64,
}

/// A player's private note on another player ([`crate::SqlStore::notes`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerNote {
    /// The player the note is about.
    pub subject: PlayerId,
    /// The note's text: 1 to [`MAX_NOTE_LEN`] characters.
    pub note: String,
    /// When it was last written (unix milliseconds).
    pub updated_at: i64,
}
