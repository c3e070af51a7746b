//! Players and their sessions: accounts, logins, locks, passwords and reset codes.

use std::collections::HashMap;

use super::*;

impl SqlStore {
    /// Replaces a player's password on a staff member's word, in a transaction: every
    /// session of theirs ends and the notice for their next login is left.
    pub(super) async fn new_password_in(
        &self,
        tx: &mut Tx,
        player: PlayerId,
        password_hash: &str,
        by: &str,
        now: i64,
    ) -> StoreResult<()> {
        let done =
            sqlx::query(&self.sql("update player set password_hash = $1 where player_id = $2"))
                .bind(password_hash)
                .bind(player.to_string())
                .execute(&mut **tx)
                .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("player"));
        }
        sqlx::query(&self.sql("delete from session where player_id = $1"))
            .bind(player.to_string())
            .execute(&mut **tx)
            .await?;
        sqlx::query(&self.sql("delete from password_notice where player_id = $1"))
            .bind(player.to_string())
            .execute(&mut **tx)
            .await?;
        sqlx::query(&self.sql(
            "insert into password_notice (player_id, changed_by, changed_at, created_at) values ($1, $2, $3, $4)",
        ))
        .bind(player.to_string())
        .bind(by)
        .bind(now)
        .bind(now_ms())
        .execute(&mut **tx)
        .await?;
        Ok(())
    }

    /// [`Store::create_player`] on both backends.
    pub(super) async fn create_player_impl(
        &self,
        name: &str,
        password_hash: &str,
    ) -> StoreResult<PlayerId> {
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

    /// [`Store::player_by_name`] on both backends.
    pub(super) async fn player_by_name_impl(&self, name: &str) -> StoreResult<Player> {
        // By key, so any case finds the account; a row from before keys whose key
        // collided with another's (see `fill_name_keys`) is found by its exact name.
        if name.contains('\0') {
            // No name holds one; Postgres would refuse the text outright.
            return Err(StoreError::NotFound("player"));
        }
        let key = names::lookup_key(name);
        let row: SqlPlayer = sqlx::query_as(&self.sql(
            "select player_id, name, password_hash, created_at, locked from player \
             where name_key = $1 or (name_key is null and name = $2) \
             order by case when name = $2 then 0 else 1 end limit 1",
        ))
        .bind(key)
        .bind(name)
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StoreError::NotFound("player"))?;
        Player::try_from(row)
    }

    /// [`Store::create_session`] on both backends.
    pub(super) async fn create_session_impl(
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

    /// [`Store::session_expiry`] on both backends.
    pub(super) async fn session_expiry_impl(&self, token_hash: &str) -> StoreResult<Option<i64>> {
        let expiry = sqlx::query_scalar(
            &self.sql("select expires_at from session where token_hash = $1 and expires_at > $2"),
        )
        .bind(token_hash)
        .bind(now_ms())
        .fetch_optional(&self.read)
        .await?;
        Ok(expiry)
    }

    /// [`Store::session`] on both backends.
    pub(super) async fn session_impl(&self, token_hash: &str) -> StoreResult<Option<Player>> {
        let row: Option<SqlPlayer> = sqlx::query_as(&self.sql(
            "select p.player_id, p.name, p.password_hash, p.created_at, p.locked from session s join player p on p.player_id = s.player_id where s.token_hash = $1 and s.expires_at > $2 and p.locked = 0",
        ))
        .bind(token_hash)
        .bind(now_ms())
        .fetch_optional(&self.read)
        .await?;
        row.map(Player::try_from).transpose()
    }

    /// [`Store::delete_session`] on both backends.
    pub(super) async fn delete_session_impl(&self, token_hash: &str) -> StoreResult<()> {
        sqlx::query(&self.sql("delete from session where token_hash = $1 or expires_at <= $2"))
            .bind(token_hash)
            .bind(now_ms())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// [`Store::players`] on both backends.
    pub(super) async fn players_impl(&self) -> StoreResult<Vec<Player>> {
        let rows: Vec<SqlPlayer> = sqlx::query_as(
            "select player_id, name, password_hash, created_at, locked from player order by name",
        )
        .fetch_all(&self.pool)
        .await?;
        convert(rows)
    }

    /// [`Store::set_player_locked`] on both backends.
    pub(super) async fn set_player_locked_impl(
        &self,
        player: PlayerId,
        locked: bool,
    ) -> StoreResult<()> {
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

    /// [`Store::set_password`] on both backends.
    pub(super) async fn set_password_impl(
        &self,
        player: PlayerId,
        password_hash: &str,
    ) -> StoreResult<()> {
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

    /// [`Store::issue_reset_code`] on both backends.
    pub(super) async fn issue_reset_code_impl(
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

    /// [`Store::use_reset_code`] on both backends.
    pub(super) async fn use_reset_code_impl(
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
        let spent: Option<SqlResetCode> = sqlx::query_as(&self.sql(
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
            issued_by: row.issued_by,
            issued_at: row.created_at,
            expires_at: row.expires_at,
        };
        self.new_password_in(&mut tx, player, password_hash, &code.issued_by, now)
            .await?;
        tx.commit().await?;
        Ok(Some(code))
    }

    /// [`Store::staff_set_password`] on both backends.
    pub(super) async fn staff_set_password_impl(
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

    /// [`Store::take_password_notice`] on both backends.
    pub(super) async fn take_password_notice_impl(
        &self,
        player: PlayerId,
    ) -> StoreResult<Option<PasswordNotice>> {
        let row: Option<SqlPasswordNotice> = sqlx::query_as(&self.sql(
            "delete from password_notice where player_id = $1 returning changed_by, changed_at",
        ))
        .bind(player.to_string())
        .fetch_optional(&self.pool)
        .await?;
        row.map(PasswordNotice::try_from).transpose()
    }

    /// [`Store::player_names`] on both backends.
    pub(super) async fn player_names_impl(
        &self,
        players: &[PlayerId],
    ) -> StoreResult<HashMap<PlayerId, String>> {
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
            let mut query = sqlx::query_as::<_, (String, String)>(&text);
            for id in chunk {
                query = query.bind(id);
            }
            for (id, name) in query.fetch_all(&self.pool).await? {
                names.insert(PlayerId(uuid(&id)?), name);
            }
        }
        Ok(names)
    }
}
