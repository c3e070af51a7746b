//! `impl Store for SqlStore`: the trait's one implementation block (a trait impl cannot be
//! split across files), each method one line handing over to the inherent `*_impl` method
//! of its aggregate's file (`players`, `staff`, `ledger`, `tables`, `leases`, `seats`,
//! `hands`, `fairplay`), so that the SQL of each aggregate lives with its kind.

use std::collections::HashMap;

use super::*;

impl Store for SqlStore {
    fn backend(&self) -> Backend {
        self.backend
    }

    async fn create_player(&self, name: &str, password_hash: &str) -> StoreResult<PlayerId> {
        self.create_player_impl(name, password_hash).await
    }

    async fn player_by_name(&self, name: &str) -> StoreResult<Player> {
        self.player_by_name_impl(name).await
    }

    async fn create_session(
        &self,
        token_hash: &str,
        player: PlayerId,
        expires_at: i64,
    ) -> StoreResult<()> {
        self.create_session_impl(token_hash, player, expires_at)
            .await
    }

    async fn session_expiry(&self, token_hash: &str) -> StoreResult<Option<i64>> {
        self.session_expiry_impl(token_hash).await
    }

    async fn session(&self, token_hash: &str) -> StoreResult<Option<Player>> {
        self.session_impl(token_hash).await
    }

    async fn delete_session(&self, token_hash: &str) -> StoreResult<()> {
        self.delete_session_impl(token_hash).await
    }

    async fn players(&self) -> StoreResult<Vec<Player>> {
        self.players_impl().await
    }

    async fn set_player_locked(&self, player: PlayerId, locked: bool) -> StoreResult<()> {
        self.set_player_locked_impl(player, locked).await
    }

    async fn set_password(&self, player: PlayerId, password_hash: &str) -> StoreResult<()> {
        self.set_password_impl(player, password_hash).await
    }

    async fn create_staff(
        &self,
        name: &str,
        password_hash: &str,
        role: Role,
    ) -> StoreResult<String> {
        self.create_staff_impl(name, password_hash, role).await
    }

    async fn staff_by_name(&self, name: &str) -> StoreResult<Staff> {
        self.staff_by_name_impl(name).await
    }

    async fn staff(&self) -> StoreResult<Vec<Staff>> {
        self.staff_impl().await
    }

    async fn staff_by_id(&self, staff_id: &str) -> StoreResult<Staff> {
        self.staff_by_id_impl(staff_id).await
    }

    async fn touch_staff_session(
        &self,
        token_hash: &str,
        now: i64,
        idle_ms: i64,
    ) -> StoreResult<Option<Staff>> {
        self.touch_staff_session_impl(token_hash, now, idle_ms)
            .await
    }

    async fn set_staff_disabled(
        &self,
        staff_id: &str,
        disabled: bool,
        keep_admin: bool,
    ) -> StoreResult<()> {
        self.set_staff_disabled_impl(staff_id, disabled, keep_admin)
            .await
    }

    async fn set_staff_role(
        &self,
        staff_id: &str,
        role: Role,
        keep_admin: bool,
    ) -> StoreResult<Role> {
        self.set_staff_role_impl(staff_id, role, keep_admin).await
    }

    async fn set_staff_password(&self, staff_id: &str, password_hash: &str) -> StoreResult<()> {
        self.set_staff_password_impl(staff_id, password_hash).await
    }

    async fn end_staff_sessions(&self, staff_id: &str) -> StoreResult<u64> {
        self.end_staff_sessions_impl(staff_id).await
    }

    async fn issue_reset_code(
        &self,
        player: PlayerId,
        code_hash: &str,
        issued_by: &str,
        expires_at: i64,
    ) -> StoreResult<()> {
        self.issue_reset_code_impl(player, code_hash, issued_by, expires_at)
            .await
    }

    async fn use_reset_code(
        &self,
        player: PlayerId,
        code_hash: &str,
        password_hash: &str,
        now: i64,
    ) -> StoreResult<Option<ResetCode>> {
        self.use_reset_code_impl(player, code_hash, password_hash, now)
            .await
    }

    async fn staff_set_password(
        &self,
        player: PlayerId,
        password_hash: &str,
        by: &str,
        now: i64,
    ) -> StoreResult<()> {
        self.staff_set_password_impl(player, password_hash, by, now)
            .await
    }

    async fn take_password_notice(&self, player: PlayerId) -> StoreResult<Option<PasswordNotice>> {
        self.take_password_notice_impl(player).await
    }

    async fn create_staff_session(
        &self,
        token_hash: &str,
        staff_id: &str,
        expires_at: i64,
    ) -> StoreResult<()> {
        self.create_staff_session_impl(token_hash, staff_id, expires_at)
            .await
    }

    async fn delete_staff_session(&self, token_hash: &str) -> StoreResult<()> {
        self.delete_staff_session_impl(token_hash).await
    }

    async fn staff_session(&self, token_hash: &str) -> StoreResult<Option<Staff>> {
        self.staff_session_impl(token_hash).await
    }

    async fn rake_by_day(&self, since: i64) -> StoreResult<Vec<RakeDay>> {
        self.rake_by_day_impl(since).await
    }

    async fn record_audit(&self, entry: &AuditEntry) -> StoreResult<()> {
        self.record_audit_impl(entry).await
    }

    async fn audit_log(&self, limit: u32, offset: u32) -> StoreResult<Vec<AuditEntry>> {
        self.audit_log_impl(limit, offset).await
    }

    async fn player_names(&self, players: &[PlayerId]) -> StoreResult<HashMap<PlayerId, String>> {
        self.player_names_impl(players).await
    }

    async fn deposit(
        &self,
        player: PlayerId,
        amount: Chips,
        key: Option<&str>,
    ) -> StoreResult<Chips> {
        self.credit(player, amount, Credit::Deposit, key).await
    }

    async fn credit(
        &self,
        player: PlayerId,
        amount: Chips,
        why: Credit,
        key: Option<&str>,
    ) -> StoreResult<Chips> {
        self.credit_impl(player, amount, why, key).await
    }

    async fn withdraw(
        &self,
        player: PlayerId,
        amount: Chips,
        key: Option<&str>,
    ) -> StoreResult<Chips> {
        self.withdraw_impl(player, amount, key).await
    }

    async fn balance(&self, player: PlayerId) -> StoreResult<Chips> {
        self.balance_impl(player).await
    }

    async fn ledger(&self, player: PlayerId, limit: u32) -> StoreResult<Vec<LedgerEntry>> {
        self.ledger_impl(player, limit).await
    }

    async fn create_table(&self, name: &str, config: &str) -> StoreResult<TableId> {
        self.create_table_impl(name, config).await
    }

    async fn create_tables_if_none(
        &self,
        tables: &[(String, String)],
    ) -> StoreResult<Vec<TableId>> {
        self.create_tables_if_none_impl(tables).await
    }

    async fn tables(&self) -> StoreResult<Vec<TableRow>> {
        self.tables_impl().await
    }

    async fn table(&self, table: TableId) -> StoreResult<TableRow> {
        self.table_impl(table).await
    }

    async fn set_table_state(&self, table: TableId, state: &str) -> StoreResult<()> {
        let state = state.to_string();
        self.save_table_writes(&[TableWrite::State { table, state }])
            .await
    }

    async fn table_state(&self, table: TableId) -> StoreResult<Option<String>> {
        self.table_state_impl(table).await
    }

    async fn set_table_config(&self, table: TableId, config: &str) -> StoreResult<()> {
        self.set_table_config_impl(table, config).await
    }

    async fn set_table_status(&self, table: TableId, status: TableStatus) -> StoreResult<()> {
        self.set_table_status_impl(table, status).await
    }

    async fn acquire_lease(
        &self,
        table: TableId,
        node: &str,
        ttl_ms: i64,
    ) -> StoreResult<Option<u64>> {
        self.acquire_lease_impl(table, node, ttl_ms).await
    }

    async fn renew_lease(
        &self,
        table: TableId,
        node: &str,
        token: u64,
        ttl_ms: i64,
    ) -> StoreResult<bool> {
        let kept = self.renew_leases(node, &[(table, token)], ttl_ms).await?;
        Ok(kept.contains(&table))
    }

    async fn renew_leases(
        &self,
        node: &str,
        leases: &[(TableId, u64)],
        ttl_ms: i64,
    ) -> StoreResult<Vec<TableId>> {
        self.renew_leases_impl(node, leases, ttl_ms).await
    }

    async fn release_lease(&self, table: TableId, node: &str, token: u64) -> StoreResult<()> {
        self.release_lease_impl(table, node, token).await
    }

    async fn leases(&self) -> StoreResult<Vec<Lease>> {
        self.leases_impl().await
    }

    async fn lease_candidates(&self, node: &str) -> StoreResult<Vec<TableId>> {
        self.lease_candidates_impl(node).await
    }

    async fn buy_in(
        &self,
        table: TableId,
        seat_no: u32,
        player: PlayerId,
        amount: Chips,
        key: Option<&str>,
        fence: Option<u64>,
    ) -> StoreResult<()> {
        self.buy_in_impl(table, seat_no, player, amount, key, fence)
            .await
    }

    async fn buy_ins(&self, buy_ins: &[BuyIn]) -> StoreResult<Vec<StoreResult<()>>> {
        self.buy_ins_impl(buy_ins).await
    }

    async fn top_up(
        &self,
        table: TableId,
        player: PlayerId,
        amount: Chips,
        key: Option<&str>,
        fence: Option<u64>,
    ) -> StoreResult<Chips> {
        self.top_up_impl(table, player, amount, key, fence).await
    }

    async fn cash_out(
        &self,
        table: TableId,
        player: PlayerId,
        at: i64,
        fence: Option<u64>,
    ) -> StoreResult<Chips> {
        self.cash_out_impl(table, player, at, fence).await
    }

    async fn seats(&self, table: TableId) -> StoreResult<Vec<SeatRow>> {
        self.seats_impl(table).await
    }

    async fn tables_of(&self, player: PlayerId) -> StoreResult<Vec<TableId>> {
        self.tables_of_impl(player).await
    }

    async fn rathole(&self, table: TableId, player: PlayerId) -> StoreResult<Option<RatholeRow>> {
        self.rathole_impl(table, player).await
    }

    async fn set_sitting_out(
        &self,
        table: TableId,
        player: PlayerId,
        sitting_out: bool,
    ) -> StoreResult<()> {
        let out = sitting_out;
        self.save_table_writes(&[TableWrite::SittingOut { table, player, out }])
            .await
    }

    async fn set_missed_blinds(
        &self,
        table: TableId,
        player: PlayerId,
        small: bool,
        big: bool,
    ) -> StoreResult<()> {
        let write = TableWrite::MissedBlinds {
            table,
            player,
            small,
            big,
        };
        self.save_table_writes(&[write]).await
    }

    async fn save_table_writes(&self, writes: &[TableWrite]) -> StoreResult<()> {
        self.save_table_writes_impl(writes).await
    }

    async fn missed_blinds(&self, table: TableId, player: PlayerId) -> StoreResult<(bool, bool)> {
        self.missed_blinds_impl(table, player).await
    }

    async fn start_hand(
        &self,
        hand: HandId,
        table: TableId,
        number: u64,
        at: i64,
        fence: Option<u64>,
    ) -> StoreResult<()> {
        let start = HandStart {
            hand,
            table,
            number,
            at,
            fence,
        };
        self.start_hands(&[start]).await
    }

    async fn start_hands(&self, starts: &[HandStart]) -> StoreResult<()> {
        self.start_hands_impl(starts).await
    }

    async fn commit_hands(&self, hands: &[CompletedHand]) -> StoreResult<usize> {
        self.commit_hands_impl(hands).await
    }

    async fn write_group(
        &self,
        starts: &[HandStart],
        writes: &[TableWrite],
        hands: &[CompletedHand],
    ) -> StoreResult<()> {
        self.write_group_impl(starts, writes, hands).await
    }

    async fn recover(&self) -> StoreResult<Vec<HandId>> {
        self.void_started(None).await
    }

    async fn void_hands(&self, table: TableId) -> StoreResult<Vec<HandId>> {
        self.void_started(Some(table)).await
    }

    async fn hand(&self, hand: HandId) -> StoreResult<HandRow> {
        self.hand_impl(hand).await
    }

    async fn record_show(&self, hand: HandId, phh: &str) -> StoreResult<()> {
        self.record_show_impl(hand, phh).await
    }

    async fn table_hands(
        &self,
        table: TableId,
        limit: u32,
        offset: u32,
    ) -> StoreResult<Vec<HandRow>> {
        self.table_hands_impl(table, limit, offset).await
    }

    async fn player_hands(
        &self,
        player: PlayerId,
        limit: u32,
        offset: u32,
    ) -> StoreResult<Vec<HandRow>> {
        self.player_hands_impl(player, limit, offset).await
    }

    async fn audit(&self) -> StoreResult<Audit> {
        self.audit_impl().await
    }

    async fn record_sit_address(
        &self,
        table: TableId,
        player: PlayerId,
        address: &str,
        at: i64,
        flagged_with: &[PlayerId],
    ) -> StoreResult<()> {
        self.record_sit_address_impl(table, player, address, at, flagged_with)
            .await
    }

    async fn seat_addresses(&self, table: TableId) -> StoreResult<Vec<(PlayerId, String)>> {
        self.seat_addresses_impl(table).await
    }

    async fn address_flags(&self, limit: u32, offset: u32) -> StoreResult<Vec<AddressFlag>> {
        self.address_flags_impl(limit, offset).await
    }

    async fn shared_addresses(&self, since: i64) -> StoreResult<Vec<PlayerAddress>> {
        self.shared_addresses_impl(since).await
    }

    async fn hands_between(&self, since: i64, until: i64, limit: u32) -> StoreResult<Vec<HandRow>> {
        self.hands_between_impl(since, until, limit).await
    }

    async fn hands_together(
        &self,
        a: PlayerId,
        b: PlayerId,
        table: Option<TableId>,
        since: i64,
        until: i64,
        limit: u32,
    ) -> StoreResult<Vec<HandRow>> {
        self.hands_together_impl(a, b, table, since, until, limit)
            .await
    }

    async fn set_note(
        &self,
        owner: PlayerId,
        subject: PlayerId,
        note: &str,
        at: i64,
    ) -> StoreResult<()> {
        self.set_note_impl(owner, subject, note, at).await
    }

    async fn notes(&self, owner: PlayerId) -> StoreResult<Vec<PlayerNote>> {
        self.notes_impl(owner).await
    }

    async fn player_hands_between(
        &self,
        player: PlayerId,
        since: i64,
        until: i64,
        limit: u32,
    ) -> StoreResult<Vec<HandRow>> {
        self.player_hands_between_impl(player, since, until, limit)
            .await
    }
}
