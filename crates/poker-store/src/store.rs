//! The `Store` trait: every operation the server persists through, implemented by
//! `SqlStore` on both backends and checked by one conformance suite.

use std::future::Future;

use crate::*;

/// Everything the server persists. Implemented by [`SqlStore`] on both backends; the
/// conformance suite (tests/conformance/) runs against both, one test per scenario.
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
    /// A staff account by id.
    fn staff_by_id(&self, staff_id: &str) -> impl Future<Output = StoreResult<Staff>> + Send;
    /// The staff member of a session that is unexpired, was used less than `idle_ms` before
    /// `now` (unix milliseconds), and whose account is enabled; the session's last use
    /// becomes `now` (a sliding idle expiry). `None` otherwise, and a session found idle
    /// too long or expired is deleted: it never comes back.
    fn touch_staff_session(
        &self,
        token_hash: &str,
        now: i64,
        idle_ms: i64,
    ) -> impl Future<Output = StoreResult<Option<Staff>>> + Send;
    /// Disables a staff account (every session of theirs ends in the same transaction) or
    /// enables it again. With `keep_admin`, disabling the last enabled admin is refused
    /// with [`StoreError::LastAdmin`] (checked and changed atomically, against concurrent
    /// changes too).
    fn set_staff_disabled(
        &self,
        staff_id: &str,
        disabled: bool,
        keep_admin: bool,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// Gives a staff account another role; returns the one it had. With `keep_admin`,
    /// demoting the last enabled admin is refused with [`StoreError::LastAdmin`].
    fn set_staff_role(
        &self,
        staff_id: &str,
        role: Role,
        keep_admin: bool,
    ) -> impl Future<Output = StoreResult<Role>> + Send;
    /// Replaces a staff member's password hash and ends their sessions.
    fn set_staff_password(
        &self,
        staff_id: &str,
        password_hash: &str,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// Ends every session of a staff member (signing them out everywhere); returns how
    /// many were live.
    fn end_staff_sessions(&self, staff_id: &str) -> impl Future<Output = StoreResult<u64>> + Send;
    /// Keeps a new password reset code for a player (its hash), replacing any earlier one.
    /// Nothing else changes: the player's password and sessions stand until it is used.
    fn issue_reset_code(
        &self,
        player: PlayerId,
        code_hash: &str,
        issued_by: &str,
        expires_at: i64,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// Uses a player's reset code: if `code_hash` is their live code (unexpired at `now`),
    /// in one transaction the code is spent, the password replaced, every session of the
    /// player ended and a [`PasswordNotice`] (by whoever issued the code) left for their
    /// next login; returns the code. `None` (and nothing changed) otherwise.
    fn use_reset_code(
        &self,
        player: PlayerId,
        code_hash: &str,
        password_hash: &str,
        now: i64,
    ) -> impl Future<Output = StoreResult<Option<ResetCode>>> + Send;
    /// Sets a player's password on a staff member's word (`by`, at `now`): in one
    /// transaction the password is replaced, every session and any reset code of the
    /// player end, and a [`PasswordNotice`] is left for their next login.
    fn staff_set_password(
        &self,
        player: PlayerId,
        password_hash: &str,
        by: &str,
        now: i64,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// Takes the notice of a password changed by staff, if one is waiting: it is told
    /// once.
    fn take_password_notice(
        &self,
        player: PlayerId,
    ) -> impl Future<Output = StoreResult<Option<PasswordNotice>>> + Send;
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
    /// The names of these players, by id (an unknown id is left out): what a hand's
    /// history needs, read without reading every account.
    fn player_names(
        &self,
        players: &[PlayerId],
    ) -> impl Future<Output = StoreResult<std::collections::HashMap<PlayerId, String>>> + Send;
    /// Adds money from outside for this reason; returns the new balance. An idempotency
    /// key names one request of the player: used again for the same request it gives the
    /// first answer, for another (another amount, or another kind of money move: a
    /// deposit's key on a withdrawal, a grant's on a deposit) it is
    /// [`StoreError::IdempotencyConflict`].
    fn credit(
        &self,
        player: PlayerId,
        amount: Chips,
        why: Credit,
        key: Option<&str>,
    ) -> impl Future<Output = StoreResult<Chips>> + Send;
    /// Adds money from outside (a cashier's [`Credit::Deposit`]); returns the new balance.
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
    /// Creates these tables (name, configuration) only if there is no table at all, in
    /// one transaction; returns their ids, in order, or nothing if there were tables.
    /// Nodes starting together on an empty database (a play-money room's first start)
    /// make them once: on PostgreSQL the check and the inserts hold a transaction-scoped
    /// advisory lock. (SQLite has one process: a racing writer fails, it never adds.)
    fn create_tables_if_none(
        &self,
        tables: &[(String, String)],
    ) -> impl Future<Output = StoreResult<Vec<TableId>>> + Send;
    /// Replaces a table's configuration (an operator's live change, e.g. its chat).
    fn set_table_config(
        &self,
        table: TableId,
        config: &str,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// Every table.
    fn tables(&self) -> impl Future<Output = StoreResult<Vec<TableRow>>> + Send;
    /// One table, by id (its key: no scan), whatever its status.
    fn table(&self, table: TableId) -> impl Future<Output = StoreResult<TableRow>> + Send;
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
    /// Takes or extends a table's lease for `node` (which runs the table while it holds
    /// the lease), until `ttl_ms` from now. Now, and whether a lease has expired, are the
    /// database's clock's: no node's clock decides. A free, expired or released lease
    /// passes to `node` with a new fencing token, one above the last (1 for the table's
    /// first lease); a live lease of `node` itself is extended and keeps its token.
    /// Returns the token, or `None` while another node holds a live lease. Safe against
    /// nodes racing.
    fn acquire_lease(
        &self,
        table: TableId,
        node: &str,
        ttl_ms: i64,
    ) -> impl Future<Output = StoreResult<Option<u64>>> + Send;
    /// Extends `node`'s lease to `ttl_ms` from now (the database's), if the table's
    /// lease still has this node and token (even expired: nobody has taken it since, so
    /// the token is still the newest) and was not released. Returns whether it did;
    /// `false` means the table has passed to another owner (or `node` released it).
    fn renew_lease(
        &self,
        table: TableId,
        node: &str,
        token: u64,
        ttl_ms: i64,
    ) -> impl Future<Output = StoreResult<bool>> + Send;
    /// [`Store::renew_lease`] for each of `node`'s `(table, token)` leases, in one
    /// statement (a node renews all its leases at once every heartbeat). Returns the
    /// tables whose lease it extended, by id; the others have passed to another owner.
    fn renew_leases(
        &self,
        node: &str,
        leases: &[(TableId, u64)],
        ttl_ms: i64,
    ) -> impl Future<Output = StoreResult<Vec<TableId>>> + Send;
    /// Gives a lease up at once (its `expires_at` becomes 0) if it still has this node
    /// and token; otherwise changes nothing. The token stays, so the next owner's is
    /// higher.
    fn release_lease(
        &self,
        table: TableId,
        node: &str,
        token: u64,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// Every table's lease, live, expired or released (`Lease::live`, by the database's
    /// clock), by table id.
    fn leases(&self) -> impl Future<Output = StoreResult<Vec<Lease>>> + Send;
    /// The open tables `node` could take: those without a lease, or whose lease has
    /// expired (by the database's clock) or was released, by id. Tables with a live lease are not listed, `node`'s
    /// own included (it renews those); the list is the same for every node.
    fn lease_candidates(
        &self,
        node: &str,
    ) -> impl Future<Output = StoreResult<Vec<TableId>>> + Send;
    /// Moves money from the wallet to a seat.
    ///
    /// `fence` (here and in [`Store::top_up`], [`Store::cash_out`] and
    /// [`Store::start_hand`]) is the writing node's fencing token for the table: when it
    /// is not the table lease's current token (or the table has no lease) the write is
    /// refused with [`StoreError::Fenced`] and nothing is written, since another node
    /// owns the table now. `None` (single process) is not checked.
    fn buy_in(
        &self,
        table: TableId,
        seat_no: u32,
        player: PlayerId,
        amount: Chips,
        key: Option<&str>,
        fence: Option<u64>,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// Several buy-ins in one transaction, a group commit for a room whose tables fill at
    /// once. Each is applied or refused on its own, as [`Store::buy_in`] without a key
    /// would (a refusal, such as insufficient funds or a taken seat, leaves the others
    /// applied); the answer has one result per buy-in, in order. `Err` means the
    /// transaction as a whole failed and none was applied.
    fn buy_ins(
        &self,
        buy_ins: &[BuyIn],
    ) -> impl Future<Output = StoreResult<Vec<StoreResult<()>>>> + Send;
    /// Moves more money to a seat; returns the new stack. Refused with
    /// [`StoreError::Fenced`] on a stale `fence`, like [`Store::buy_in`].
    fn top_up(
        &self,
        table: TableId,
        player: PlayerId,
        amount: Chips,
        key: Option<&str>,
        fence: Option<u64>,
    ) -> impl Future<Output = StoreResult<Chips>> + Send;
    /// Moves the whole stack back to the wallet, frees the seat and keeps the rathole
    /// record; returns the amount. Refused with [`StoreError::Fenced`] on a stale
    /// `fence`, like [`Store::buy_in`].
    fn cash_out(
        &self,
        table: TableId,
        player: PlayerId,
        at: i64,
        fence: Option<u64>,
    ) -> impl Future<Output = StoreResult<Chips>> + Send;
    /// The seats of a table.
    fn seats(&self, table: TableId) -> impl Future<Output = StoreResult<Vec<SeatRow>>> + Send;
    /// The tables where a player holds a seat.
    fn tables_of(&self, player: PlayerId)
        -> impl Future<Output = StoreResult<Vec<TableId>>> + Send;
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
    /// Refused with [`StoreError::Fenced`] on a stale `fence`, like [`Store::buy_in`].
    fn start_hand(
        &self,
        hand: HandId,
        table: TableId,
        number: u64,
        at: i64,
        fence: Option<u64>,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// Records hands just dealt, in one transaction, each as [`Store::start_hand`] does;
    /// a stale fence refuses them all.
    fn start_hands(&self, starts: &[HandStart]) -> impl Future<Output = StoreResult<()>> + Send;
    /// Writes that move no money, of any tables, in one transaction and in order, each as
    /// [`Store::set_table_state`], [`Store::set_sitting_out`] and
    /// [`Store::set_missed_blinds`] do; one that finds nothing to write refuses them all
    /// (`NotFound`, `NotSeated`).
    fn save_table_writes(
        &self,
        writes: &[TableWrite],
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// Commits completed hands in one transaction (group commit): their records and the
    /// stacks they changed, exactly once each. Returns how many were newly committed.
    /// A hand with a `fence` whose table lease no longer has that token fails the whole
    /// batch with [`StoreError::Fenced`] (even if the hand was committed or voided
    /// before), and nothing is written.
    fn commit_hands(
        &self,
        hands: &[CompletedHand],
    ) -> impl Future<Output = StoreResult<usize>> + Send;
    /// Writes a persister's batch: hands just dealt, writes that move no money and
    /// finished hands, each kind as [`Store::start_hands`], [`Store::save_table_writes`]
    /// and [`Store::commit_hands`] write it. On SQLite all three go in one transaction
    /// (one disk flush for the batch: nothing is written unless everything is); on
    /// PostgreSQL each kind in its own, in that order. Each kind is idempotent (a hand
    /// dealt is recorded once, a write sets what it sets, a hand commits exactly once),
    /// so after an error the caller may write them again kind by kind.
    fn write_group(
        &self,
        starts: &[HandStart],
        writes: &[TableWrite],
        hands: &[CompletedHand],
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// Start-up: hands started but never committed are void. Returns them.
    fn recover(&self) -> impl Future<Output = StoreResult<Vec<HandId>>> + Send;
    /// One table's hands started but never committed are void (its task failed mid-hand;
    /// the stored stacks are as the hand began). Returns them.
    fn void_hands(&self, table: TableId) -> impl Future<Output = StoreResult<Vec<HandId>>> + Send;
    /// A hand by id.
    fn hand(&self, hand: HandId) -> impl Future<Output = StoreResult<HandRow>> + Send;
    /// Replaces a committed hand's history with one that adds what its winner showed after
    /// an uncontested win (the same history and one line): every download and every
    /// proof is made from it. `NotFound` unless the hand is committed.
    fn record_show(&self, hand: HandId, phh: &str) -> impl Future<Output = StoreResult<()>> + Send;
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

    // Fair play: same-address seating and the collusion report.

    /// Records the client address (see [`AddressFlag::address`]) a player has just sat
    /// down from at a table and, for each player of `flagged_with` (seated there from that
    /// address, as the table decided), an [`AddressFlag`], in one transaction. The seat's
    /// address replaces any older one of that player at that table; the player's list of
    /// addresses counts the sit.
    fn record_sit_address(
        &self,
        table: TableId,
        player: PlayerId,
        address: &str,
        at: i64,
        flagged_with: &[PlayerId],
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// The addresses the players seated at a table sat down from: only addresses recorded
    /// since the player took the seat they hold now.
    fn seat_addresses(
        &self,
        table: TableId,
    ) -> impl Future<Output = StoreResult<Vec<(PlayerId, String)>>> + Send;
    /// Same-address pairs, newest first.
    fn address_flags(
        &self,
        limit: u32,
        offset: u32,
    ) -> impl Future<Output = StoreResult<Vec<AddressFlag>>> + Send;
    /// Every address that more than one player has sat down from, with each such player,
    /// among sits at or after `since` (unix milliseconds); by address, then player.
    fn shared_addresses(
        &self,
        since: i64,
    ) -> impl Future<Output = StoreResult<Vec<PlayerAddress>>> + Send;
    /// Complete hands dealt from `since` to before `until` (unix milliseconds), at any
    /// table, newest first, at most `limit`.
    fn hands_between(
        &self,
        since: i64,
        until: i64,
        limit: u32,
    ) -> impl Future<Output = StoreResult<Vec<HandRow>>> + Send;
    /// Complete hands both players were dealt in, dealt from `since` to before `until`
    /// (at one table if given), newest first, at most `limit`.
    fn hands_together(
        &self,
        a: PlayerId,
        b: PlayerId,
        table: Option<TableId>,
        since: i64,
        until: i64,
        limit: u32,
    ) -> impl Future<Output = StoreResult<Vec<HandRow>>> + Send;

    // A player's own: their private notes on other players, their hands by date.

    /// Writes the owner's private note on another player (replacing any older one), or
    /// deletes it when `note` is empty or blank. A note has at most [`MAX_NOTE_LEN`]
    /// characters; a note on oneself is refused (`Invalid`), one naming a player who does
    /// not exist is `NotFound`. Moves no money.
    fn set_note(
        &self,
        owner: PlayerId,
        subject: PlayerId,
        note: &str,
        at: i64,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// Every note the owner has written, newest first.
    fn notes(&self, owner: PlayerId) -> impl Future<Output = StoreResult<Vec<PlayerNote>>> + Send;
    /// A player's complete hands dealt from `since` to before `until` (unix
    /// milliseconds), oldest first, at most `limit`: their stats and history download.
    fn player_hands_between(
        &self,
        player: PlayerId,
        since: i64,
        until: i64,
        limit: u32,
    ) -> impl Future<Output = StoreResult<Vec<HandRow>>> + Send;
}
