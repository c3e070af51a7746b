//! Staff accounts and their sessions, roles and passwords, and the audit log of what staff did.

use super::*;

impl SqlStore {
    /// A transaction that changes a staff account's role or state: on PostgreSQL under a
    /// transaction-scoped advisory lock, so that two admins demoting or disabling each
    /// other at once cannot both see the other still enabled and leave no admin. (SQLite
    /// runs each such change as one statement under its single writer.)
    async fn staff_change(&self) -> StoreResult<Tx> {
        /// The advisory lock held while staff change ("poker" and 2).
        const STAFF_LOCK: i64 = 0x706f_6b65_7200_0002;
        let mut tx = self.begin().await?;
        if self.backend == Backend::Postgres {
            sqlx::query("select 1 as locked from pg_advisory_xact_lock($1)")
                .bind(STAFF_LOCK)
                .fetch_one(&mut *tx)
                .await?;
        }
        Ok(tx)
    }

    /// A staff account, read in a transaction.
    async fn staff_in(&self, tx: &mut Tx, staff_id: &str) -> StoreResult<Staff> {
        let row: SqlStaff = sqlx::query_as(concat!(
            "select ",
            staff_columns!(),
            " from staff s where s.staff_id = $1"
        ))
        .bind(staff_id)
        .fetch_optional(&mut **tx)
        .await?
        .ok_or(StoreError::NotFound("staff"))?;
        Staff::try_from(row)
    }

    /// Why a guarded staff change changed nothing: no such account, or it would have
    /// left no enabled admin.
    async fn why_unchanged(&self, tx: &mut Tx, staff_id: &str) -> StoreError {
        match self.staff_in(tx, staff_id).await {
            Ok(_) => StoreError::LastAdmin,
            Err(e) => e,
        }
    }

    /// Creates a staff account.
    pub async fn create_staff(
        &self,
        name: &str,
        password_hash: &str,
        role: Role,
    ) -> StoreResult<String> {
        let name = names::player_name(name)?;
        let id = uuid::Uuid::new_v4().to_string();
        let inserted = sqlx::query(
            "insert into staff (staff_id, name, name_key, password_hash, role, \
             created_at) values ($1, $2, $3, $4, $5, $6)",
        )
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

    /// A staff account by name (any case).
    pub async fn staff_by_name(&self, name: &str) -> StoreResult<Staff> {
        let Some(key) = names::lookup_key(name).filter(|_| !name.contains('\0')) else {
            return Err(StoreError::NotFound("staff"));
        };
        let row: SqlStaff = sqlx::query_as(concat!(
            "select ",
            staff_columns!(),
            " from staff s where s.name_key = $1"
        ))
        .bind(key)
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StoreError::NotFound("staff"))?;
        Staff::try_from(row)
    }

    /// Every staff account, by name.
    pub async fn staff(&self) -> StoreResult<Vec<Staff>> {
        let rows: Vec<SqlStaff> = sqlx::query_as(concat!(
            "select ",
            staff_columns!(),
            " from staff s order by s.name"
        ))
        .fetch_all(&self.pool)
        .await?;
        convert(rows)
    }

    /// A staff account by id.
    pub async fn staff_by_id(&self, staff_id: &str) -> StoreResult<Staff> {
        if staff_id.contains('\0') {
            return Err(StoreError::NotFound("staff"));
        }
        let row: SqlStaff = sqlx::query_as(concat!(
            "select ",
            staff_columns!(),
            " from staff s where s.staff_id = $1"
        ))
        .bind(staff_id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StoreError::NotFound("staff"))?;
        Staff::try_from(row)
    }

    /// The staff member of a session that is unexpired, was used less than `idle_ms` before
    /// `now` (unix milliseconds), and whose account is enabled; the session's last use
    /// becomes `now` (a sliding idle expiry). `None` otherwise, and a session found idle
    /// too long or expired is deleted: it never comes back.
    pub async fn touch_staff_session(
        &self,
        token_hash: &str,
        now: i64,
        idle_ms: i64,
    ) -> StoreResult<Option<Staff>> {
        if token_hash.contains('\0') {
            return Ok(None);
        }
        // One statement: a session idle too long is never brought back by a racing use.
        let touched = sqlx::query(
            "update staff_session set last_seen = $2 where token_hash = $1 and expires_at > $2 \
             and last_seen > $3 and last_seen <= $2",
        )
        .bind(token_hash)
        .bind(now)
        .bind(now.saturating_sub(idle_ms))
        .execute(&self.pool)
        .await?;
        if touched.rows_affected() == 0 {
            // Used at a later `now` already (a concurrent request): still live if idle
            // from then is within the limit.
            let later = sqlx::query(
                "select 1 as live from staff_session where token_hash = $1 and expires_at > $2 \
                 and last_seen > $2",
            )
            .bind(token_hash)
            .bind(now)
            .fetch_optional(&self.pool)
            .await?;
            if later.is_none() {
                // Idle too long or expired: it is over for good.
                sqlx::query(
                    "delete from staff_session where token_hash = $1 and (expires_at <= $2 or \
                     last_seen <= $3)",
                )
                .bind(token_hash)
                .bind(now)
                .bind(now.saturating_sub(idle_ms))
                .execute(&self.pool)
                .await?;
                return Ok(None);
            }
        }
        let row: Option<SqlStaff> = sqlx::query_as(concat!(
            "select ",
            staff_columns!(),
            " from staff_session t join staff s on s.staff_id = t.staff_id \
             where t.token_hash = $1 and s.disabled = 0"
        ))
        .bind(token_hash)
        .fetch_optional(&self.pool)
        .await?;
        row.map(Staff::try_from).transpose()
    }

    /// Disables a staff account (every session of theirs ends in the same transaction) or
    /// enables it again. With `keep_admin`, disabling the last enabled admin is refused
    /// with [`StoreError::LastAdmin`] (checked and changed atomically, against concurrent
    /// changes too).
    pub async fn set_staff_disabled(
        &self,
        staff_id: &str,
        disabled: bool,
        keep_admin: bool,
    ) -> StoreResult<()> {
        let mut tx = self.staff_change().await?;
        let done = sqlx::query(
            "update staff set disabled = $1 where staff_id = $2 and \
             ($1 = 0 or $3 = 0 or role <> 'admin' or disabled <> 0 or exists \
             (select 1 from staff o where o.staff_id <> $2 and o.role = 'admin' and o.disabled = 0))",
        )
        .bind(i64::from(disabled))
        .bind(staff_id)
        .bind(i64::from(keep_admin))
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 0 {
            return Err(self.why_unchanged(&mut tx, staff_id).await);
        }
        if disabled {
            sqlx::query("delete from staff_session where staff_id = $1")
                .bind(staff_id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Gives a staff account another role; returns the one it had. With `keep_admin`,
    /// demoting the last enabled admin is refused with [`StoreError::LastAdmin`].
    pub async fn set_staff_role(
        &self,
        staff_id: &str,
        role: Role,
        keep_admin: bool,
    ) -> StoreResult<Role> {
        let mut tx = self.staff_change().await?;
        let before = self.staff_in(&mut tx, staff_id).await?;
        let done = sqlx::query(
            "update staff set role = $1 where staff_id = $2 and \
             ($1 = 'admin' or $3 = 0 or role <> 'admin' or disabled <> 0 or exists \
             (select 1 from staff o where o.staff_id <> $2 and o.role = 'admin' and o.disabled = 0))",
        )
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

    /// Replaces a staff member's password hash and ends their sessions.
    pub async fn set_staff_password(&self, staff_id: &str, password_hash: &str) -> StoreResult<()> {
        let mut tx = self.begin().await?;
        let done = sqlx::query("update staff set password_hash = $1 where staff_id = $2")
            .bind(password_hash)
            .bind(staff_id)
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("staff"));
        }
        sqlx::query("delete from staff_session where staff_id = $1")
            .bind(staff_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Ends every session of a staff member (signing them out everywhere); returns how
    /// many were live.
    pub async fn end_staff_sessions(&self, staff_id: &str) -> StoreResult<u64> {
        let mut tx = self.begin().await?;
        self.staff_in(&mut tx, staff_id).await?;
        let live: i64 = sqlx::query_scalar(
            "select count(*) as n from staff_session where staff_id = $1 and expires_at > $2",
        )
        .bind(staff_id)
        .bind(now_ms())
        .fetch_one(&mut *tx)
        .await?;
        sqlx::query("delete from staff_session where staff_id = $1")
            .bind(staff_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(live as u64)
    }

    /// Records a staff login session by the hash of its token.
    pub async fn create_staff_session(
        &self,
        token_hash: &str,
        staff_id: &str,
        expires_at: i64,
    ) -> StoreResult<()> {
        let now = now_ms();
        sqlx::query(
            "insert into staff_session (token_hash, staff_id, expires_at, created_at, \
             last_seen) values ($1, $2, $3, $4, $4)",
        )
        .bind(token_hash)
        .bind(staff_id)
        .bind(expires_at)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Ends a staff session (signing out).
    pub async fn delete_staff_session(&self, token_hash: &str) -> StoreResult<()> {
        sqlx::query("delete from staff_session where token_hash = $1 or expires_at <= $2")
            .bind(token_hash)
            .bind(now_ms())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The staff member of an unexpired session.
    pub async fn staff_session(&self, token_hash: &str) -> StoreResult<Option<Staff>> {
        if token_hash.contains('\0') {
            return Ok(None);
        }
        let row: Option<SqlStaff> = sqlx::query_as(concat!(
            "select ",
            staff_columns!(),
            " from staff_session t join staff s on s.staff_id = t.staff_id \
             where t.token_hash = $1 and t.expires_at > $2 and s.disabled = 0"
        ))
        .bind(token_hash)
        .bind(now_ms())
        .fetch_optional(&self.pool)
        .await?;
        row.map(Staff::try_from).transpose()
    }

    /// Writes one line of the audit log.
    pub async fn record_audit(&self, entry: &AuditEntry) -> StoreResult<()> {
        sqlx::query(
            "insert into audit_log (audit_id, at, actor, action, target, detail, \
             created_at) values ($1, $2, $3, $4, $5, $6, $7)",
        )
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

    /// The audit log, newest first.
    pub async fn audit_log(&self, limit: u32, offset: u32) -> StoreResult<Vec<AuditEntry>> {
        let rows: Vec<SqlAuditEntry> = sqlx::query_as(
            "select at, actor, action, target, detail from audit_log order by at \
             desc, created_at desc limit $1 offset $2",
        )
        .bind(i64::from(limit))
        .bind(i64::from(offset))
        .fetch_all(&self.pool)
        .await?;
        convert(rows)
    }
}
