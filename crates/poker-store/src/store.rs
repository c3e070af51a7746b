//! The `Store` trait: every operation the server persists through, implemented by
//! `SqlStore` on both backends and checked by one conformance suite.

use std::future::Future;

use crate::*;

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
    /// Locks a player out (no login; their sessions end) or lets them back in.
    fn set_player_locked(
        &self,
        player: PlayerId,
        locked: bool,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// Replaces a player's password hash and ends their sessions.
    fn set_password(
        &self,
        player: PlayerId,
        password_hash: &str,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// Creates a staff account.
    fn create_staff(
        &self,
        name: &str,
        password_hash: &str,
        role: Role,
    ) -> impl Future<Output = StoreResult<String>> + Send;
    /// A staff account by name (any case).
    fn staff_by_name(&self, name: &str) -> impl Future<Output = StoreResult<Staff>> + Send;
    /// Every staff account, by name.
    fn staff(&self) -> impl Future<Output = StoreResult<Vec<Staff>>> + Send;
    /// Records a staff login session by the hash of its token.
    fn create_staff_session(
        &self,
        token_hash: &str,
        staff_id: &str,
        expires_at: i64,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// Ends a staff session (signing out).
    fn delete_staff_session(
        &self,
        token_hash: &str,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// The staff member of an unexpired session.
    fn staff_session(
        &self,
        token_hash: &str,
    ) -> impl Future<Output = StoreResult<Option<Staff>>> + Send;
    /// The rake collected per day (UTC) and table by hands that ended at or after
    /// `since` (unix milliseconds), newest day first.
    fn rake_by_day(&self, since: i64) -> impl Future<Output = StoreResult<Vec<RakeDay>>> + Send;
    /// Writes one line of the audit log.
    fn record_audit(&self, entry: &AuditEntry) -> impl Future<Output = StoreResult<()>> + Send;
    /// The audit log, newest first.
    fn audit_log(
        &self,
        limit: u32,
        offset: u32,
    ) -> impl Future<Output = StoreResult<Vec<AuditEntry>>> + Send;
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
    /// Replaces a table's configuration (an operator's live change, e.g. its chat).
    fn set_table_config(
        &self,
        table: TableId,
        config: &str,
    ) -> impl Future<Output = StoreResult<()>> + Send;
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
        status: TableStatus,
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
    /// Records that a hand was dealt (it is void unless committed). Recording it again, or
    /// after the hand was committed, changes nothing (a retried write is harmless).
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
