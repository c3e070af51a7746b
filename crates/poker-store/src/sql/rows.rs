//! Rows as the database returns them, read with `sqlx::FromRow` (by column name), and the
//! one conversion of each into the store's model type: text ids become UUIDs, integer
//! flags booleans, `bigint` counts and amounts `u64`, stored text enums their enum. Both
//! backends give the same column types (ids as text, numbers as `bigint`), so one row
//! type serves both.

use super::*;

/// A text id as a UUID; anything else is a corrupt row.
pub(super) fn uuid(s: &str) -> StoreResult<Uuid> {
    s.parse()
        .map_err(|_| StoreError::Corrupt("an id that is not a UUID".into()))
}

/// Text table ids (a single-column read) as table ids.
pub(super) fn table_ids(ids: Vec<String>) -> StoreResult<Vec<TableId>> {
    ids.iter().map(|t| Ok(TableId(uuid(t)?))).collect()
}

/// Text hand ids (a single-column read) as hand ids.
pub(super) fn hand_ids(ids: Vec<String>) -> StoreResult<Vec<HandId>> {
    ids.iter().map(|h| Ok(HandId(uuid(h)?))).collect()
}

/// Converts every row read into its model type.
pub(super) fn convert<R, T>(rows: Vec<R>) -> StoreResult<Vec<T>>
where
    T: TryFrom<R, Error = StoreError>,
{
    rows.into_iter().map(T::try_from).collect()
}

/// A `player` row (player_id, name, password_hash, created_at, locked).
#[derive(sqlx::FromRow)]
pub(super) struct SqlPlayer {
    player_id: String,
    name: String,
    password_hash: String,
    created_at: i64,
    /// Not selected by every reader: unlocked when absent.
    #[sqlx(default)]
    locked: i64,
}

impl TryFrom<SqlPlayer> for Player {
    type Error = StoreError;
    fn try_from(r: SqlPlayer) -> StoreResult<Player> {
        Ok(Player {
            player_id: PlayerId(uuid(&r.player_id)?),
            name: r.name,
            password_hash: r.password_hash,
            created_at: r.created_at,
            locked: r.locked != 0,
        })
    }
}

/// A `staff` row (`staff_columns!`).
#[derive(sqlx::FromRow)]
pub(super) struct SqlStaff {
    staff_id: String,
    name: String,
    password_hash: String,
    role: String,
    created_at: i64,
    disabled: i64,
}

impl TryFrom<SqlStaff> for Staff {
    type Error = StoreError;
    fn try_from(r: SqlStaff) -> StoreResult<Staff> {
        Ok(Staff {
            staff_id: r.staff_id,
            name: r.name,
            password_hash: r.password_hash,
            role: Role::parse(&r.role)
                .ok_or_else(|| StoreError::Corrupt(format!("a staff role {}", r.role)))?,
            created_at: r.created_at,
            disabled: r.disabled != 0,
        })
    }
}

/// A `hand` row (`hand_columns!`).
#[derive(sqlx::FromRow)]
pub(super) struct SqlHand {
    hand_id: String,
    poker_table_id: String,
    number: i64,
    status: String,
    phh: Option<String>,
    record: Option<String>,
    rake: i64,
    started_at: i64,
    ended_at: Option<i64>,
}

impl TryFrom<SqlHand> for HandRow {
    type Error = StoreError;
    fn try_from(r: SqlHand) -> StoreResult<HandRow> {
        Ok(HandRow {
            hand_id: HandId(uuid(&r.hand_id)?),
            table_id: TableId(uuid(&r.poker_table_id)?),
            number: r.number as u64,
            status: r.status.parse()?,
            phh: r.phh,
            record: r
                .record
                .map(|r| serde_json::from_str(&r))
                .transpose()
                .map_err(|e| StoreError::Corrupt(format!("a hand record: {e}")))?,
            rake: r.rake as Chips,
            started_at: r.started_at,
            ended_at: r.ended_at,
        })
    }
}

/// A `poker_table` row (poker_table_id, name, config, status, created_at).
#[derive(sqlx::FromRow)]
pub(super) struct SqlTable {
    poker_table_id: String,
    name: String,
    config: String,
    status: String,
    created_at: i64,
}

impl TryFrom<SqlTable> for TableRow {
    type Error = StoreError;
    fn try_from(r: SqlTable) -> StoreResult<TableRow> {
        Ok(TableRow {
            table_id: TableId(uuid(&r.poker_table_id)?),
            name: r.name,
            config: r.config,
            status: r.status.parse()?,
            created_at: r.created_at,
        })
    }
}

/// A `table_lease` row, with whether it is live by the database's clock.
#[derive(sqlx::FromRow)]
pub(super) struct SqlLease {
    poker_table_id: String,
    node: String,
    token: i64,
    expires_at: i64,
    live: i64,
}

impl TryFrom<SqlLease> for Lease {
    type Error = StoreError;
    fn try_from(r: SqlLease) -> StoreResult<Lease> {
        Ok(Lease {
            table_id: TableId(uuid(&r.poker_table_id)?),
            node: r.node,
            token: r.token as u64,
            expires_at: r.expires_at,
            live: r.live != 0,
        })
    }
}

/// A `seat` row (seat_no, player_id, stack, sitting_out).
#[derive(sqlx::FromRow)]
pub(super) struct SqlSeat {
    seat_no: i64,
    player_id: String,
    stack: i64,
    sitting_out: i64,
}

impl TryFrom<SqlSeat> for SeatRow {
    type Error = StoreError;
    fn try_from(r: SqlSeat) -> StoreResult<SeatRow> {
        Ok(SeatRow {
            seat_no: r.seat_no as u32,
            player_id: PlayerId(uuid(&r.player_id)?),
            stack: r.stack as Chips,
            sitting_out: r.sitting_out != 0,
        })
    }
}

/// A `rathole` row (stack, left_at).
#[derive(sqlx::FromRow)]
pub(super) struct SqlRathole {
    stack: i64,
    left_at: i64,
}

impl TryFrom<SqlRathole> for RatholeRow {
    type Error = StoreError;
    fn try_from(r: SqlRathole) -> StoreResult<RatholeRow> {
        Ok(RatholeRow {
            stack: r.stack as Chips,
            left_at: r.left_at,
        })
    }
}

/// One day and table of the rake report (day, poker_table_id, rake, hands).
#[derive(sqlx::FromRow)]
pub(super) struct SqlRakeDay {
    day: i64,
    poker_table_id: String,
    rake: i64,
    hands: i64,
}

/// `table_day` rows as rake days: each day's text made once (a window's rows are a few
/// dozen days of thousands of tables).
pub(super) fn rake_days(rows: Vec<SqlRakeDay>) -> StoreResult<Vec<RakeDay>> {
    let mut names: Vec<(i64, String)> = Vec::new();
    rows.into_iter()
        .map(|r| {
            let day = match names.iter().find(|(d, _)| *d == r.day) {
                Some((_, name)) => name.clone(),
                None => {
                    let name = day_string(r.day);
                    names.push((r.day, name.clone()));
                    name
                }
            };
            Ok(RakeDay {
                day,
                table_id: TableId(uuid(&r.poker_table_id)?),
                rake: r.rake as Chips,
                hands: r.hands as u64,
            })
        })
        .collect()
}

/// A `ledger_entry` row as a player sees it.
#[derive(sqlx::FromRow)]
pub(super) struct SqlLedgerEntry {
    movement_id: String,
    account: String,
    kind: String,
    amount: i64,
    reference: Option<String>,
    created_at: i64,
}

impl TryFrom<SqlLedgerEntry> for LedgerEntry {
    type Error = StoreError;
    fn try_from(r: SqlLedgerEntry) -> StoreResult<LedgerEntry> {
        Ok(LedgerEntry {
            movement_id: r.movement_id,
            account: r.account,
            kind: r.kind,
            amount: r.amount,
            reference: r.reference,
            created_at: r.created_at,
        })
    }
}

/// An `audit_log` row (at, actor, action, target, detail).
#[derive(sqlx::FromRow)]
pub(super) struct SqlAuditEntry {
    at: i64,
    actor: String,
    action: String,
    target: String,
    detail: String,
}

impl TryFrom<SqlAuditEntry> for AuditEntry {
    type Error = StoreError;
    fn try_from(r: SqlAuditEntry) -> StoreResult<AuditEntry> {
        Ok(AuditEntry {
            at: r.at,
            actor: r.actor,
            action: r.action,
            target: r.target,
            detail: r.detail,
        })
    }
}

/// A spent `password_reset` row (issued_by, created_at, expires_at).
#[derive(sqlx::FromRow)]
pub(super) struct SqlResetCode {
    pub(super) issued_by: String,
    pub(super) created_at: i64,
    pub(super) expires_at: i64,
}

/// A taken `password_notice` row (changed_by, changed_at).
#[derive(sqlx::FromRow)]
pub(super) struct SqlPasswordNotice {
    changed_by: String,
    changed_at: i64,
}

impl TryFrom<SqlPasswordNotice> for PasswordNotice {
    type Error = StoreError;
    fn try_from(r: SqlPasswordNotice) -> StoreResult<PasswordNotice> {
        Ok(PasswordNotice {
            by: r.changed_by,
            at: r.changed_at,
        })
    }
}

/// An `address_flag` row.
#[derive(sqlx::FromRow)]
pub(super) struct SqlAddressFlag {
    address_flag_id: String,
    poker_table_id: String,
    player_id: String,
    other_player_id: String,
    address: String,
    at: i64,
}

impl TryFrom<SqlAddressFlag> for AddressFlag {
    type Error = StoreError;
    fn try_from(r: SqlAddressFlag) -> StoreResult<AddressFlag> {
        Ok(AddressFlag {
            flag_id: r.address_flag_id,
            table_id: TableId(uuid(&r.poker_table_id)?),
            player_id: PlayerId(uuid(&r.player_id)?),
            other_id: PlayerId(uuid(&r.other_player_id)?),
            address: r.address,
            at: r.at,
        })
    }
}

/// A `player_address` row.
#[derive(sqlx::FromRow)]
pub(super) struct SqlPlayerAddress {
    player_id: String,
    address: String,
    first_at: i64,
    last_at: i64,
    sits: i64,
}

impl TryFrom<SqlPlayerAddress> for PlayerAddress {
    type Error = StoreError;
    fn try_from(r: SqlPlayerAddress) -> StoreResult<PlayerAddress> {
        Ok(PlayerAddress {
            player_id: PlayerId(uuid(&r.player_id)?),
            address: r.address,
            first_at: r.first_at,
            last_at: r.last_at,
            sits: r.sits as u64,
        })
    }
}
