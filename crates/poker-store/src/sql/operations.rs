//! `impl Store for SqlStore`: one method per operation of the trait, on both backends
//! (one cohesive block: a trait implementation cannot be split across files).

use sqlx::Row;
use std::collections::HashMap;

use super::*;

/// A `poker_table` row (poker_table_id, name, config, status, created_at).
fn table_row(r: &sqlx::any::AnyRow) -> StoreResult<TableRow> {
    Ok(TableRow {
        table_id: TableId(SqlStore::uuid(r.try_get("poker_table_id")?)?),
        name: r.try_get("name")?,
        config: r.try_get("config")?,
        status: r.try_get::<String, _>("status")?.parse()?,
        created_at: r.try_get("created_at")?,
    })
}

/// The database's clock, in unix milliseconds, as SQL. Leases expire by it alone: the
/// nodes' own clocks (which may disagree by any amount) never decide whether a lease is
/// live. Postgres's `now()` is the transaction's start, so a statement that waited for a
/// row lock judges expiry by the earlier time (it takes nothing early); SQLite's is its
/// own clock (a file no other machine shares).
fn db_now_ms(backend: Backend) -> &'static str {
    match backend {
        Backend::Postgres => "(extract(epoch from now()) * 1000)::bigint",
        Backend::Sqlite => "cast((julianday('now') - 2440587.5) * 86400000.0 as integer)",
    }
}

/// A lease's lifetime as given, kept within what the database's arithmetic holds (a
/// negative one makes a lease that has already expired).
fn lease_ttl(ttl_ms: i64) -> i64 {
    const YEARS: i64 = 100 * 365 * 24 * 3600 * 1000;
    ttl_ms.clamp(-YEARS, YEARS)
}

pub(crate) const HAND_COLUMNS: &str =
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
        let key = names::lookup_key(name);
        let row = sqlx::query(&self.sql(
            "select player_id, name, password_hash, created_at, locked from player \
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
            "select p.player_id, p.name, p.password_hash, p.created_at, p.locked from session s join player p on p.player_id = s.player_id where s.token_hash = $1 and s.expires_at > $2 and p.locked = 0",
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
            "select player_id, name, password_hash, created_at, locked from player order by name",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(Self::player_row).collect()
    }

    async fn set_player_locked(&self, player: PlayerId, locked: bool) -> StoreResult<()> {
        let mut tx = self.begin().await?;
        let done = sqlx::query(&self.sql("update player set locked = $1 where player_id = $2"))
            .bind(i64::from(locked))
            .bind(player.to_string())
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("player"));
        }
        if locked {
            sqlx::query(&self.sql("delete from session where player_id = $1"))
                .bind(player.to_string())
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn set_password(&self, player: PlayerId, password_hash: &str) -> StoreResult<()> {
        let mut tx = self.begin().await?;
        let done =
            sqlx::query(&self.sql("update player set password_hash = $1 where player_id = $2"))
                .bind(password_hash)
                .bind(player.to_string())
                .execute(&mut *tx)
                .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("player"));
        }
        sqlx::query(&self.sql("delete from session where player_id = $1"))
            .bind(player.to_string())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn create_staff(
        &self,
        name: &str,
        password_hash: &str,
        role: Role,
    ) -> StoreResult<String> {
        let name = names::player_name(name)?;
        let id = uuid::Uuid::new_v4().to_string();
        let inserted = sqlx::query(&self.sql(
            "insert into staff (staff_id, name, name_key, password_hash, role, created_at) values ($1, $2, $3, $4, $5, $6)",
        ))
        .bind(&id)
        .bind(&name)
        .bind(names::name_key(&name))
        .bind(password_hash)
        .bind(role.as_str())
        .bind(now_ms())
        .execute(&self.pool)
        .await;
        match inserted {
            Err(e) if unique_violation(&e) => Err(StoreError::NameTaken),
            other => {
                other?;
                Ok(id)
            }
        }
    }

    async fn staff_by_name(&self, name: &str) -> StoreResult<Staff> {
        let Some(key) = names::lookup_key(name).filter(|_| !name.contains('\0')) else {
            return Err(StoreError::NotFound("staff"));
        };
        let row = sqlx::query(&self.sql(&format!(
            "select {STAFF_COLUMNS} from staff s where s.name_key = $1"
        )))
        .bind(key)
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StoreError::NotFound("staff"))?;
        Self::staff_row(&row)
    }

    async fn staff(&self) -> StoreResult<Vec<Staff>> {
        let rows = sqlx::query(&format!(
            "select {STAFF_COLUMNS} from staff s order by s.name"
        ))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(Self::staff_row).collect()
    }

    async fn staff_by_id(&self, staff_id: &str) -> StoreResult<Staff> {
        if staff_id.contains('\0') {
            return Err(StoreError::NotFound("staff"));
        }
        let row = sqlx::query(&self.sql(&format!(
            "select {STAFF_COLUMNS} from staff s where s.staff_id = $1"
        )))
        .bind(staff_id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StoreError::NotFound("staff"))?;
        Self::staff_row(&row)
    }

    async fn touch_staff_session(
        &self,
        token_hash: &str,
        now: i64,
        idle_ms: i64,
    ) -> StoreResult<Option<Staff>> {
        if token_hash.contains('\0') {
            return Ok(None);
        }
        // One statement: a session idle too long is never brought back by a racing use.
        let touched = sqlx::query(&self.sql(
            "update staff_session set last_seen = $2 where token_hash = $1 and expires_at > $2 \
             and last_seen > $3 and last_seen <= $2",
        ))
        .bind(token_hash)
        .bind(now)
        .bind(now.saturating_sub(idle_ms))
        .execute(&self.pool)
        .await?;
        if touched.rows_affected() == 0 {
            // Used at a later `now` already (a concurrent request): still live if idle
            // from then is within the limit.
            let later = sqlx::query(&self.sql(
                "select 1 as live from staff_session where token_hash = $1 and expires_at > $2 and last_seen > $2",
            ))
            .bind(token_hash)
            .bind(now)
            .fetch_optional(&self.pool)
            .await?;
            if later.is_none() {
                // Idle too long or expired: it is over for good.
                sqlx::query(&self.sql(
                    "delete from staff_session where token_hash = $1 and (expires_at <= $2 or last_seen <= $3)",
                ))
                .bind(token_hash)
                .bind(now)
                .bind(now.saturating_sub(idle_ms))
                .execute(&self.pool)
                .await?;
                return Ok(None);
            }
        }
        let row = sqlx::query(&self.sql(&format!(
            "select {STAFF_COLUMNS} from staff_session t join staff s on s.staff_id = t.staff_id \
             where t.token_hash = $1 and s.disabled = 0"
        )))
        .bind(token_hash)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(Self::staff_row).transpose()
    }

    async fn set_staff_disabled(
        &self,
        staff_id: &str,
        disabled: bool,
        keep_admin: bool,
    ) -> StoreResult<()> {
        let mut tx = self.staff_change().await?;
        let done = sqlx::query(&self.sql(
            "update staff set disabled = $1 where staff_id = $2 and \
             ($1 = 0 or $3 = 0 or role <> 'admin' or disabled <> 0 or exists \
             (select 1 from staff o where o.staff_id <> $2 and o.role = 'admin' and o.disabled = 0))",
        ))
        .bind(i64::from(disabled))
        .bind(staff_id)
        .bind(i64::from(keep_admin))
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 0 {
            return Err(self.why_unchanged(&mut tx, staff_id).await);
        }
        if disabled {
            sqlx::query(&self.sql("delete from staff_session where staff_id = $1"))
                .bind(staff_id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn set_staff_role(
        &self,
        staff_id: &str,
        role: Role,
        keep_admin: bool,
    ) -> StoreResult<Role> {
        let mut tx = self.staff_change().await?;
        let before = self.staff_in(&mut tx, staff_id).await?;
        let done = sqlx::query(&self.sql(
            "update staff set role = $1 where staff_id = $2 and \
             ($1 = 'admin' or $3 = 0 or role <> 'admin' or disabled <> 0 or exists \
             (select 1 from staff o where o.staff_id <> $2 and o.role = 'admin' and o.disabled = 0))",
        ))
        .bind(role.as_str())
        .bind(staff_id)
        .bind(i64::from(keep_admin))
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 0 {
            return Err(self.why_unchanged(&mut tx, staff_id).await);
        }
        tx.commit().await?;
        Ok(before.role)
    }

    async fn set_staff_password(&self, staff_id: &str, password_hash: &str) -> StoreResult<()> {
        let mut tx = self.begin().await?;
        let done =
            sqlx::query(&self.sql("update staff set password_hash = $1 where staff_id = $2"))
                .bind(password_hash)
                .bind(staff_id)
                .execute(&mut *tx)
                .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("staff"));
        }
        sqlx::query(&self.sql("delete from staff_session where staff_id = $1"))
            .bind(staff_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn end_staff_sessions(&self, staff_id: &str) -> StoreResult<u64> {
        let mut tx = self.begin().await?;
        self.staff_in(&mut tx, staff_id).await?;
        let live = sqlx::query(&self.sql(
            "select count(*) as n from staff_session where staff_id = $1 and expires_at > $2",
        ))
        .bind(staff_id)
        .bind(now_ms())
        .fetch_one(&mut *tx)
        .await?
        .try_get::<i64, _>("n")?;
        sqlx::query(&self.sql("delete from staff_session where staff_id = $1"))
            .bind(staff_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(live as u64)
    }

    async fn issue_reset_code(
        &self,
        player: PlayerId,
        code_hash: &str,
        issued_by: &str,
        expires_at: i64,
    ) -> StoreResult<()> {
        let mut tx = self.begin().await?;
        let known = sqlx::query(&self.sql("select 1 as known from player where player_id = $1"))
            .bind(player.to_string())
            .fetch_optional(&mut *tx)
            .await?;
        if known.is_none() {
            return Err(StoreError::NotFound("player"));
        }
        sqlx::query(&self.sql("delete from password_reset where player_id = $1"))
            .bind(player.to_string())
            .execute(&mut *tx)
            .await?;
        sqlx::query(&self.sql(
            "insert into password_reset (player_id, code_hash, issued_by, expires_at, created_at) values ($1, $2, $3, $4, $5)",
        ))
        .bind(player.to_string())
        .bind(code_hash)
        .bind(issued_by)
        .bind(expires_at)
        .bind(now_ms())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn use_reset_code(
        &self,
        player: PlayerId,
        code_hash: &str,
        password_hash: &str,
        now: i64,
    ) -> StoreResult<Option<ResetCode>> {
        if code_hash.contains('\0') {
            return Ok(None);
        }
        let mut tx = self.begin().await?;
        // Spent by the delete itself: of two uses racing, one finds nothing to delete.
        let spent = sqlx::query(&self.sql(
            "delete from password_reset where player_id = $1 and code_hash = $2 and expires_at > $3 \
             returning issued_by, created_at, expires_at",
        ))
        .bind(player.to_string())
        .bind(code_hash)
        .bind(now)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = spent else {
            return Ok(None);
        };
        let code = ResetCode {
            player_id: player,
            issued_by: row.try_get("issued_by")?,
            issued_at: row.try_get("created_at")?,
            expires_at: row.try_get("expires_at")?,
        };
        self.new_password_in(&mut tx, player, password_hash, &code.issued_by, now)
            .await?;
        tx.commit().await?;
        Ok(Some(code))
    }

    async fn staff_set_password(
        &self,
        player: PlayerId,
        password_hash: &str,
        by: &str,
        now: i64,
    ) -> StoreResult<()> {
        let mut tx = self.begin().await?;
        sqlx::query(&self.sql("delete from password_reset where player_id = $1"))
            .bind(player.to_string())
            .execute(&mut *tx)
            .await?;
        self.new_password_in(&mut tx, player, password_hash, by, now)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn take_password_notice(&self, player: PlayerId) -> StoreResult<Option<PasswordNotice>> {
        let row = sqlx::query(&self.sql(
            "delete from password_notice where player_id = $1 returning changed_by, changed_at",
        ))
        .bind(player.to_string())
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| {
            Ok(PasswordNotice {
                by: r.try_get("changed_by")?,
                at: r.try_get("changed_at")?,
            })
        })
        .transpose()
    }

    async fn create_staff_session(
        &self,
        token_hash: &str,
        staff_id: &str,
        expires_at: i64,
    ) -> StoreResult<()> {
        let now = now_ms();
        sqlx::query(&self.sql(
            "insert into staff_session (token_hash, staff_id, expires_at, created_at, last_seen) values ($1, $2, $3, $4, $4)",
        ))
        .bind(token_hash)
        .bind(staff_id)
        .bind(expires_at)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn delete_staff_session(&self, token_hash: &str) -> StoreResult<()> {
        sqlx::query(
            &self.sql("delete from staff_session where token_hash = $1 or expires_at <= $2"),
        )
        .bind(token_hash)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn staff_session(&self, token_hash: &str) -> StoreResult<Option<Staff>> {
        if token_hash.contains('\0') {
            return Ok(None);
        }
        let row = sqlx::query(&self.sql(&format!(
            "select {STAFF_COLUMNS} from staff_session t join staff s on s.staff_id = t.staff_id \
             where t.token_hash = $1 and t.expires_at > $2 and s.disabled = 0"
        )))
        .bind(token_hash)
        .bind(now_ms())
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(Self::staff_row).transpose()
    }

    async fn rake_by_day(&self, since: i64) -> StoreResult<Vec<RakeDay>> {
        let rows = sqlx::query(&self.sql(
            "select ended_at / 86400000 as day, poker_table_id, cast(sum(rake) as bigint) as rake, cast(count(*) as bigint) as hands \
             from hand where status = 'complete' and ended_at >= $1 \
             group by ended_at / 86400000, poker_table_id order by day desc, poker_table_id",
        ))
        .bind(since)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let day: i64 = r.try_get("day")?;
                let table: String = r.try_get("poker_table_id")?;
                let rake: i64 = r.try_get("rake")?;
                let hands: i64 = r.try_get("hands")?;
                Ok(RakeDay {
                    day: day_string(day),
                    table_id: TableId(Self::uuid(table)?),
                    rake: rake as Chips,
                    hands: hands as u64,
                })
            })
            .collect()
    }

    async fn record_audit(&self, entry: &AuditEntry) -> StoreResult<()> {
        sqlx::query(&self.sql(
            "insert into audit_log (audit_id, at, actor, action, target, detail, created_at) values ($1, $2, $3, $4, $5, $6, $7)",
        ))
        .bind(uuid::Uuid::new_v4().to_string())
        .bind(entry.at)
        .bind(&entry.actor)
        .bind(&entry.action)
        .bind(&entry.target)
        .bind(&entry.detail)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn audit_log(&self, limit: u32, offset: u32) -> StoreResult<Vec<AuditEntry>> {
        let rows = sqlx::query(&self.sql(
            "select at, actor, action, target, detail from audit_log order by at desc, created_at desc limit $1 offset $2",
        ))
        .bind(i64::from(limit))
        .bind(i64::from(offset))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(AuditEntry {
                    at: r.try_get("at")?,
                    actor: r.try_get("actor")?,
                    action: r.try_get("action")?,
                    target: r.try_get("target")?,
                    detail: r.try_get("detail")?,
                })
            })
            .collect()
    }

    async fn player_names(&self, players: &[PlayerId]) -> StoreResult<HashMap<PlayerId, String>> {
        let mut ids: Vec<String> = players.iter().map(|p| p.to_string()).collect();
        ids.sort();
        ids.dedup();
        let mut names = HashMap::new();
        // A few hundred at a time: bind parameters are bounded on both databases.
        for chunk in ids.chunks(500) {
            let marks: Vec<String> = (1..=chunk.len()).map(|i| format!("${i}")).collect();
            let text = format!(
                "select player_id, name from player where player_id in ({})",
                marks.join(", ")
            );
            let text = self.sql(&text);
            let mut query = sqlx::query(&text);
            for id in chunk {
                query = query.bind(id);
            }
            for row in query.fetch_all(&self.pool).await? {
                let id: String = row.try_get("player_id")?;
                let id: PlayerId = id
                    .parse()
                    .map_err(|_| StoreError::Corrupt(format!("player id {id:?}")))?;
                names.insert(id, row.try_get("name")?);
            }
        }
        Ok(names)
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
        let amount = positive(amount)?;
        let key_owned = key.map(str::to_string);
        self.once(
            key,
            player,
            format!("{} {amount}", why.as_str()),
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
        self.once(key, player, format!("withdrawal {amount}"), move |s, tx| {
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
        })
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

    async fn create_tables_if_none(
        &self,
        tables: &[(String, String)],
    ) -> StoreResult<Vec<TableId>> {
        /// The advisory lock held while the first tables are made ("poker" and 1).
        const FIRST_TABLES_LOCK: i64 = 0x706f_6b65_7200_0001;
        let names = tables
            .iter()
            .map(|(name, _)| names::table_name(name))
            .collect::<Result<Vec<_>, _>>()?;
        let mut tx = self.begin().await?;
        if self.backend == Backend::Postgres {
            sqlx::query("select 1 as locked from pg_advisory_xact_lock($1)")
                .bind(FIRST_TABLES_LOCK)
                .fetch_one(&mut *tx)
                .await?;
        }
        let any = sqlx::query("select 1 as one from poker_table limit 1")
            .fetch_optional(&mut *tx)
            .await?;
        if any.is_some() {
            return Ok(Vec::new());
        }
        let now = now_ms();
        let mut ids = Vec::new();
        for (name, (_, config)) in names.iter().zip(tables) {
            let id = TableId::new();
            sqlx::query(&self.sql(
                "insert into poker_table (poker_table_id, name, config, status, created_at) values ($1, $2, $3, 'open', $4)",
            ))
            .bind(id.to_string())
            .bind(name)
            .bind(config)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            ids.push(id);
        }
        tx.commit().await?;
        Ok(ids)
    }

    async fn tables(&self) -> StoreResult<Vec<TableRow>> {
        let rows = sqlx::query("select poker_table_id, name, config, status, created_at from poker_table order by created_at")
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(table_row).collect()
    }

    async fn table(&self, table: TableId) -> StoreResult<TableRow> {
        let row = sqlx::query(&self.sql(
            "select poker_table_id, name, config, status, created_at from poker_table where poker_table_id = $1",
        ))
        .bind(table.to_string())
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StoreError::NotFound("table"))?;
        table_row(&row)
    }

    async fn set_table_state(&self, table: TableId, state: &str) -> StoreResult<()> {
        let state = state.to_string();
        self.save_table_writes(&[TableWrite::State { table, state }])
            .await
    }

    async fn table_state(&self, table: TableId) -> StoreResult<Option<String>> {
        let row = sqlx::query(&self.sql("select state from poker_table where poker_table_id = $1"))
            .bind(table.to_string())
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NotFound("table"))?;
        Ok(row.try_get::<Option<String>, _>("state")?)
    }

    async fn set_table_config(&self, table: TableId, config: &str) -> StoreResult<()> {
        let done =
            sqlx::query(&self.sql("update poker_table set config = $1 where poker_table_id = $2"))
                .bind(config)
                .bind(table.to_string())
                .execute(&self.pool)
                .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("table"));
        }
        Ok(())
    }

    async fn set_table_status(&self, table: TableId, status: TableStatus) -> StoreResult<()> {
        let done =
            sqlx::query(&self.sql("update poker_table set status = $1 where poker_table_id = $2"))
                .bind(status.as_str())
                .bind(table.to_string())
                .execute(&self.pool)
                .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("table"));
        }
        Ok(())
    }

    async fn acquire_lease(
        &self,
        table: TableId,
        node: &str,
        ttl_ms: i64,
    ) -> StoreResult<Option<u64>> {
        let node = check_node(node)?;
        let now = db_now_ms(self.backend);
        let mut tx = self.begin().await?;
        sqlx::query(&self.sql("select 1 from poker_table where poker_table_id = $1"))
            .bind(table.to_string())
            .fetch_optional(&mut *tx)
            .await?
            .ok_or(StoreError::NotFound("table"))?;
        // One statement: Postgres takes the row lock of an existing lease and evaluates
        // the condition on its latest version, so of two racing nodes only one wins.
        // Expiry is the database's time, never the caller's.
        let row = sqlx::query(&self.sql(&format!(
            "insert into table_lease (poker_table_id, node, token, expires_at, created_at) \
             values ($1, $2, 1, {now} + $3, {now}) \
             on conflict (poker_table_id) do update set \
                 token = case when table_lease.node = excluded.node and table_lease.expires_at >= {now} \
                              then table_lease.token else table_lease.token + 1 end, \
                 node = excluded.node, \
                 expires_at = excluded.expires_at \
             where table_lease.node = excluded.node or table_lease.expires_at < {now} \
             returning token",
        )))
        .bind(table.to_string())
        .bind(node)
        .bind(lease_ttl(ttl_ms))
        .fetch_optional(&mut *tx)
        .await?;
        tx.commit().await?;
        row.map(|r| Ok(r.try_get::<i64, _>("token")? as u64))
            .transpose()
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
        let node = check_node(node)?;
        // A token past what the database holds is no lease's.
        let leases: Vec<(String, i64)> = leases
            .iter()
            .filter_map(|(t, k)| Some((t.to_string(), i64::try_from(*k).ok()?)))
            .collect();
        if leases.is_empty() {
            return Ok(Vec::new());
        }
        let now = db_now_ms(self.backend);
        // One statement for all: a lease is kept only if its row still has this node and
        // token and was not released (expires_at 0).
        let rows = match &self.pg {
            Some(pg) => {
                let (tables, tokens): (Vec<String>, Vec<i64>) = leases.into_iter().unzip();
                sqlx::query(&format!(
                    "update table_lease l set expires_at = {now} + $1 \
                     from unnest($2::text[], $3::bigint[]) as r(poker_table_id, token) \
                     where l.poker_table_id = r.poker_table_id and l.token = r.token \
                         and l.node = $4 and l.expires_at <> 0 \
                     returning l.poker_table_id",
                ))
                .bind(lease_ttl(ttl_ms))
                .bind(tables)
                .bind(tokens)
                .bind(node)
                .fetch_all(pg)
                .await?
                .iter()
                .map(|r| r.try_get::<String, _>("poker_table_id"))
                .collect::<Result<Vec<_>, _>>()?
            }
            None => {
                // SQLite: the pairs as one JSON array of [table, token].
                let pairs = serde_json::to_string(&leases).expect("pairs serialize");
                sqlx::query(&format!(
                    "update table_lease set expires_at = {now} + ?1 \
                     where node = ?2 and expires_at <> 0 \
                         and poker_table_id in \
                             (select json_extract(value, '$[0]') from json_each(?3)) \
                         and poker_table_id || ' ' || token in \
                             (select json_extract(value, '$[0]') || ' ' || json_extract(value, '$[1]') \
                              from json_each(?3)) \
                     returning poker_table_id",
                ))
                .bind(lease_ttl(ttl_ms))
                .bind(node)
                .bind(pairs)
                .fetch_all(&self.pool)
                .await?
                .iter()
                .map(|r| r.try_get::<String, _>("poker_table_id"))
                .collect::<Result<Vec<_>, _>>()?
            }
        };
        let mut kept = rows
            .into_iter()
            .map(|t| Ok(TableId(Self::uuid(t)?)))
            .collect::<StoreResult<Vec<_>>>()?;
        kept.sort_unstable();
        Ok(kept)
    }

    async fn release_lease(&self, table: TableId, node: &str, token: u64) -> StoreResult<()> {
        let node = check_node(node)?;
        let Ok(token) = i64::try_from(token) else {
            return Ok(());
        };
        sqlx::query(&self.sql(
            "update table_lease set expires_at = 0 where poker_table_id = $1 and node = $2 and token = $3",
        ))
        .bind(table.to_string())
        .bind(node)
        .bind(token)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn leases(&self) -> StoreResult<Vec<Lease>> {
        let rows = sqlx::query(&format!(
            "select poker_table_id, node, token, expires_at, \
                 cast(case when expires_at >= {} then 1 else 0 end as bigint) as live \
             from table_lease order by poker_table_id",
            db_now_ms(self.backend)
        ))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(Lease {
                    table_id: TableId(Self::uuid(r.try_get("poker_table_id")?)?),
                    node: r.try_get("node")?,
                    token: r.try_get::<i64, _>("token")? as u64,
                    expires_at: r.try_get("expires_at")?,
                    live: r.try_get::<i64, _>("live")? != 0,
                })
            })
            .collect()
    }

    async fn lease_candidates(&self, node: &str) -> StoreResult<Vec<TableId>> {
        check_node(node)?;
        let rows = sqlx::query(&self.sql(&format!(
            "select t.poker_table_id from poker_table t \
             left join table_lease l on l.poker_table_id = t.poker_table_id \
             where t.status = $1 and (l.poker_table_id is null or l.expires_at < {}) \
             order by t.poker_table_id",
            db_now_ms(self.backend)
        )))
        .bind(TableStatus::Open.as_str())
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok(TableId(Self::uuid(r.try_get("poker_table_id")?)?)))
            .collect()
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
        let amount = positive(amount)?;
        let key_owned = key.map(str::to_string);
        let request = format!("buy_in {table} {seat_no} {amount}");
        self.once(key, player, request, move |s, tx| {
            Box::pin(async move {
                s.check_fence(tx, table, fence).await?;
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
        fence: Option<u64>,
    ) -> StoreResult<Chips> {
        let amount = positive(amount)?;
        let key_owned = key.map(str::to_string);
        let request = format!("top_up {table} {amount}");
        self.once(key, player, request, move |s, tx| {
            Box::pin(async move {
                s.check_fence(tx, table, fence).await?;
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

    async fn cash_out(
        &self,
        table: TableId,
        player: PlayerId,
        at: i64,
        fence: Option<u64>,
    ) -> StoreResult<Chips> {
        let mut tx = self.begin().await?;
        self.check_fence(&mut tx, table, fence).await?;
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

    async fn tables_of(&self, player: PlayerId) -> StoreResult<Vec<TableId>> {
        let rows =
            sqlx::query(&self.sql(
                "select poker_table_id from seat where player_id = $1 order by poker_table_id",
            ))
            .bind(player.to_string())
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|r| Ok(TableId(Self::uuid(r.try_get("poker_table_id")?)?)))
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
        if writes.is_empty() {
            return Ok(());
        }
        let mut tx = self.begin().await?;
        for write in writes {
            self.table_write(&mut tx, write).await?;
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
        if starts.is_empty() {
            return Ok(());
        }
        let mut tx = self.begin().await?;
        let mut checked: Vec<TableId> = Vec::new();
        for start in starts {
            if start.fence.is_some() && !checked.contains(&start.table) {
                self.check_fence(&mut tx, start.table, start.fence).await?;
                checked.push(start.table);
            }
        }
        let now = now_ms();
        for chunk in starts.chunks(CHUNK_ROWS) {
            let sql = format!(
                "insert into hand (hand_id, poker_table_id, number, status, rake, started_at, created_at) values {} on conflict (hand_id) do nothing",
                placeholders_with(chunk.len(), &["", "", "", "'started'", "0", "", ""], 1)
            );
            let text = self.sql(&sql);
            let mut q = sqlx::query(&text);
            for start in chunk {
                q = q
                    .bind(start.hand.to_string())
                    .bind(start.table.to_string())
                    .bind(to_i64(start.number)?)
                    .bind(start.at)
                    .bind(now);
            }
            q.execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn commit_hands(&self, hands: &[CompletedHand]) -> StoreResult<usize> {
        if let Some(pg) = &self.pg {
            return commit_hands_pg(pg, hands).await;
        }
        check_conserved(hands)?;
        let mut tx = self.begin().await?;
        self.check_fences_in(&mut tx, hands).await?;
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
        let Some(plan) = plan(hands, &found)? else {
            return Ok(0);
        };
        let now = now_ms();
        for chunk in plan.started.chunks(CHUNK_ROWS) {
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
                    .bind(h.record.to_json())
                    .bind(to_i64(h.rake)?)
                    .bind(h.ended_at);
            }
            q.execute(&mut *tx).await?;
        }
        for chunk in plan.fresh.chunks(CHUNK_ROWS) {
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
                    .bind(h.record.to_json())
                    .bind(to_i64(h.rake)?)
                    .bind(h.started_at)
                    .bind(h.ended_at)
                    .bind(now);
            }
            q.execute(&mut *tx).await?;
        }
        // The stacks: each seat must still hold the hand's starting stack.
        for chunk in plan.seats.chunks(CHUNK_ROWS) {
            let sql = format!(
                "with v (t, p, s, f) as (values {}) \
                 update seat set stack = v.f from v \
                 where seat.poker_table_id = v.t and seat.player_id = v.p and seat.stack = v.s",
                placeholders(chunk.len(), 4, 1)
            );
            let text = self.sql(&sql);
            let mut q = sqlx::query(&text);
            for s in chunk {
                q = q
                    .bind(s.table_id.clone())
                    .bind(s.player_id.clone())
                    .bind(s.start)
                    .bind(s.end);
            }
            let updated = q.execute(&mut *tx).await?;
            if updated.rows_affected() != chunk.len() as u64 {
                let stale: HandId = chunk[0]
                    .hand_id
                    .parse()
                    .map_err(|_| StoreError::Corrupt("a hand id".into()))?;
                return Err(StoreError::StaleHand(stale));
            }
            let sql = format!(
                "insert into hand_player (hand_id, player_id, seat_no, starting_stack, finishing_stack, created_at) values {}",
                placeholders(chunk.len(), 6, 1)
            );
            let text = self.sql(&sql);
            let mut q = sqlx::query(&text);
            for s in chunk {
                q = q
                    .bind(s.hand_id.clone())
                    .bind(s.player_id.clone())
                    .bind(s.seat_no)
                    .bind(s.start)
                    .bind(s.end)
                    .bind(s.at);
            }
            q.execute(&mut *tx).await?;
        }
        // The ledger: one movement per hand, the seats' changes and the rake.
        for chunk in plan.ledger.chunks(CHUNK_ROWS) {
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
        if plan.rake > 0 {
            let updated = sqlx::query(&self.sql(
                "update house_account set balance = balance + $1 where house_account_id = 'rake'",
            ))
            .bind(plan.rake)
            .execute(&mut *tx)
            .await?;
            if updated.rows_affected() == 0 {
                sqlx::query(&self.sql("insert into house_account (house_account_id, balance, created_at) values ('rake', $1, $2)"))
                    .bind(plan.rake)
                    .bind(now)
                    .execute(&mut *tx)
                    .await?;
            }
        }
        tx.commit().await?;
        Ok(plan.hands())
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

    async fn record_sit_address(
        &self,
        table: TableId,
        player: PlayerId,
        address: &str,
        at: i64,
        flagged_with: &[PlayerId],
    ) -> StoreResult<()> {
        self.fair_record_sit_address(table, player, address, at, flagged_with)
            .await
    }

    async fn seat_addresses(&self, table: TableId) -> StoreResult<Vec<(PlayerId, String)>> {
        self.fair_seat_addresses(table).await
    }

    async fn address_flags(&self, limit: u32, offset: u32) -> StoreResult<Vec<AddressFlag>> {
        self.fair_address_flags(limit, offset).await
    }

    async fn shared_addresses(&self, since: i64) -> StoreResult<Vec<PlayerAddress>> {
        self.fair_shared_addresses(since).await
    }

    async fn hands_between(&self, since: i64, until: i64, limit: u32) -> StoreResult<Vec<HandRow>> {
        self.fair_hands_between(since, until, limit).await
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
        self.fair_hands_together(a, b, table, since, until, limit)
            .await
    }
}
