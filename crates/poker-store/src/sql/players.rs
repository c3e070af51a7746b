//! Players and their sessions: accounts, logins, locks, passwords and reset codes.

use std::collections::HashMap;

use super::*;

/// The names of the players named (one JSON array of ids: no limit on how many, and one
/// text whatever their number).
const NAMES: Dialects = Dialects {
    postgres: "select player_id, name from player \
         where player_id in (select jsonb_array_elements_text(cast($1 as jsonb)))",
    sqlite: "select player_id, name from player \
         where player_id in (select value from json_each($1))",
};

/// Where a session is live: unexpired (`$2` is the time now) and its player not locked
/// out. The one rule of a sign-in's read, its read again, and a node's check of its
/// connections' sessions.
macro_rules! live_session {
    () => {
        "from session s join player p on p.player_id = s.player_id \
         where s.expires_at > $2 and p.locked = 0 "
    };
}

/// Which of a list of sessions (`$1`, their tokens' hashes as a JSON array) are live.
const LIVE_SESSIONS: Dialects = Dialects {
    postgres: concat!(
        "select s.token_hash ",
        live_session!(),
        "and s.token_hash in (select jsonb_array_elements_text(cast($1 as jsonb)))"
    ),
    sqlite: concat!(
        "select s.token_hash ",
        live_session!(),
        "and s.token_hash in (select value from json_each($1))"
    ),
};

/// A sign-in's one read (`$1` the token's hash, `$2` now, in `live_session!`): the live
/// session's player and expiry, the tables where the player holds a seat (ids joined by
/// commas, in no order, by the dialect's aggregate given), and whether seat-release
/// notices wait (1 or 0).
macro_rules! sign_in {
    ($join_ids:literal) => {
        concat!(
            "select p.player_id, p.name, p.password_hash, p.created_at, p.locked, \
             s.expires_at, (select coalesce(",
            $join_ids,
            ", '') from seat t where t.player_id = p.player_id) as tables, \
             cast(case when exists (select 1 from seat_release_notice n \
              where n.player_id = p.player_id) then 1 else 0 end as bigint) as notices ",
            live_session!(),
            "and s.token_hash = $1"
        )
    };
}

/// [`sign_in!`] in each dialect.
const SIGN_IN: Dialects = Dialects {
    postgres: sign_in!("string_agg(t.poker_table_id, ',')"),
    sqlite: sign_in!("group_concat(t.poker_table_id, ',')"),
};

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
        let done = sqlx::query("update player set password_hash = $1 where player_id = $2")
            .bind(password_hash)
            .bind(player.to_string())
            .execute(&mut **tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("player"));
        }
        sqlx::query("delete from session where player_id = $1")
            .bind(player.to_string())
            .execute(&mut **tx)
            .await?;
        sqlx::query("delete from password_notice where player_id = $1")
            .bind(player.to_string())
            .execute(&mut **tx)
            .await?;
        sqlx::query(
            "insert into password_notice (player_id, changed_by, changed_at, created_at) \
             values ($1, $2, $3, $4)",
        )
        .bind(player.to_string())
        .bind(by)
        .bind(now)
        .bind(now_ms())
        .execute(&mut **tx)
        .await?;
        Ok(())
    }

    /// Creates a player with an empty wallet.
    pub async fn create_player(&self, name: &str, password_hash: &str) -> StoreResult<PlayerId> {
        let name = names::player_name(name)?;
        let id = PlayerId::new();
        let now = now_ms();
        let mut tx = self.begin().await?;
        let inserted = sqlx::query(
            "insert into player (player_id, name, name_key, password_hash, created_at) \
             values ($1, $2, $3, $4, $5)",
        )
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
        sqlx::query("insert into wallet (player_id, balance, created_at) values ($1, 0, $2)")
            .bind(id.to_string())
            .bind(now)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(id)
    }

    /// Finds a player by name.
    pub async fn player_by_name(&self, name: &str) -> StoreResult<Player> {
        // By key, so any case finds the account; a row from before keys whose key
        // collided with another's (see `fill_name_keys`) is found by its exact name.
        if name.contains('\0') {
            // No name holds one; Postgres would refuse the text outright.
            return Err(StoreError::NotFound("player"));
        }
        let key = names::lookup_key(name);
        let row: SqlPlayer = sqlx::query_as(
            "select player_id, name, password_hash, created_at, locked from player \
             where name_key = $1 or (name_key is null and name = $2) \
             order by case when name = $2 then 0 else 1 end limit 1",
        )
        .bind(key)
        .bind(name)
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StoreError::NotFound("player"))?;
        Player::try_from(row)
    }

    /// Records a login session by the hash of its token.
    pub async fn create_session(
        &self,
        token_hash: &str,
        player: PlayerId,
        expires_at: i64,
    ) -> StoreResult<()> {
        sqlx::query(
            "insert into session (token_hash, player_id, expires_at, created_at) \
             values ($1, $2, $3, $4)",
        )
        .bind(token_hash)
        .bind(player.to_string())
        .bind(expires_at)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// When a live session (unexpired, its player not locked out) ends, in ms since the
    /// epoch, by the hash of its token.
    pub async fn session_expiry(&self, token_hash: &str) -> StoreResult<Option<i64>> {
        let expiry = sqlx::query_scalar(concat!(
            "select s.expires_at ",
            live_session!(),
            "and s.token_hash = $1"
        ))
        .bind(token_hash)
        .bind(now_ms())
        .fetch_optional(&self.read)
        .await?;
        Ok(expiry)
    }

    /// The player of an unexpired session, by the hash of its token.
    pub async fn session(&self, token_hash: &str) -> StoreResult<Option<Player>> {
        Ok(self
            .session_and_expiry(token_hash)
            .await?
            .map(|(player, _)| player))
    }

    /// The player of a live session and when it ends (ms since the epoch), by the hash of
    /// its token: an HTTP request's session ([`SqlStore::session`]).
    pub async fn session_and_expiry(&self, token_hash: &str) -> StoreResult<Option<(Player, i64)>> {
        /// A session's row with its player's.
        #[derive(sqlx::FromRow)]
        struct SqlSession {
            #[sqlx(flatten)]
            player: SqlPlayer,
            expires_at: i64,
        }
        let row: Option<SqlSession> = sqlx::query_as(concat!(
            "select p.player_id, p.name, p.password_hash, p.created_at, p.locked, \
                 s.expires_at ",
            live_session!(),
            "and s.token_hash = $1"
        ))
        .bind(token_hash)
        .bind(now_ms())
        .fetch_optional(&self.read)
        .await?;
        row.map(|r| Ok((Player::try_from(r.player)?, r.expires_at)))
            .transpose()
    }

    /// What a WebSocket's sign-in needs, by the hash of its token, in one statement: the
    /// live session's player and expiry, the tables where they hold a seat, and whether
    /// seat-release notices wait for them. `None` for no live session.
    pub async fn sign_in(&self, token_hash: &str) -> StoreResult<Option<SignIn>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            #[sqlx(flatten)]
            player: SqlPlayer,
            expires_at: i64,
            tables: String,
            notices: i64,
        }
        let row: Option<Row> = sqlx::query_as(SIGN_IN.of(self.backend))
            .bind(token_hash)
            .bind(now_ms())
            .fetch_optional(&self.read)
            .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let mut tables = row
            .tables
            .split(',')
            .filter(|id| !id.is_empty())
            .map(|id| Ok(TableId(uuid(id)?)))
            .collect::<StoreResult<Vec<TableId>>>()?;
        tables.sort_by_key(|t| t.to_string());
        Ok(Some(SignIn {
            player: Player::try_from(row.player)?,
            expires_at: row.expires_at,
            tables,
            notices: row.notices != 0,
        }))
    }

    /// Which of these sessions (their tokens' hashes) are unexpired, of players not locked
    /// out: a node that was cut off from the others checks its connections' sessions.
    pub async fn live_sessions(
        &self,
        token_hashes: &[&str],
    ) -> StoreResult<std::collections::HashSet<String>> {
        let mut live = std::collections::HashSet::new();
        for chunk in token_hashes.chunks(1_000) {
            let rows: Vec<String> = sqlx::query_scalar(LIVE_SESSIONS.of(self.backend))
                .bind(json_rows(chunk)?)
                .bind(now_ms())
                .fetch_all(&self.read)
                .await?;
            live.extend(rows);
        }
        Ok(live)
    }

    /// Ends a session; also forgets every expired one.
    pub async fn delete_session(&self, token_hash: &str) -> StoreResult<()> {
        sqlx::query("delete from session where token_hash = $1 or expires_at <= $2")
            .bind(token_hash)
            .bind(now_ms())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Every player, by name.
    pub async fn players(&self) -> StoreResult<Vec<Player>> {
        let rows: Vec<SqlPlayer> = sqlx::query_as(
            "select player_id, name, password_hash, created_at, locked from player order by name",
        )
        .fetch_all(&self.pool)
        .await?;
        convert(rows)
    }

    /// Locks a player out (no login; their sessions end) or lets them back in.
    pub async fn set_player_locked(&self, player: PlayerId, locked: bool) -> StoreResult<()> {
        let mut tx = self.begin().await?;
        let done = sqlx::query("update player set locked = $1 where player_id = $2")
            .bind(i64::from(locked))
            .bind(player.to_string())
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("player"));
        }
        if locked {
            sqlx::query("delete from session where player_id = $1")
                .bind(player.to_string())
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Replaces a player's password hash and ends their sessions.
    pub async fn set_password(&self, player: PlayerId, password_hash: &str) -> StoreResult<()> {
        let mut tx = self.begin().await?;
        let done = sqlx::query("update player set password_hash = $1 where player_id = $2")
            .bind(password_hash)
            .bind(player.to_string())
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("player"));
        }
        sqlx::query("delete from session where player_id = $1")
            .bind(player.to_string())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Keeps a new password reset code for a player (its hash), replacing any earlier one.
    /// Nothing else changes: the player's password and sessions stand until it is used.
    pub async fn issue_reset_code(
        &self,
        player: PlayerId,
        code_hash: &str,
        issued_by: &str,
        expires_at: i64,
    ) -> StoreResult<()> {
        let mut tx = self.begin().await?;
        let known = sqlx::query("select 1 as known from player where player_id = $1")
            .bind(player.to_string())
            .fetch_optional(&mut *tx)
            .await?;
        if known.is_none() {
            return Err(StoreError::NotFound("player"));
        }
        sqlx::query("delete from password_reset where player_id = $1")
            .bind(player.to_string())
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "insert into password_reset (player_id, code_hash, issued_by, expires_at, created_at) \
             values ($1, $2, $3, $4, $5)",
        )
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

    /// Uses a player's reset code: if `code_hash` is their live code (unexpired at `now`),
    /// in one transaction the code is spent, the password replaced, every session of the
    /// player ended and a [`PasswordNotice`] (by whoever issued the code) left for their
    /// next login; returns the code. `None` (and nothing changed) otherwise.
    pub async fn use_reset_code(
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
        let spent: Option<SqlResetCode> = sqlx::query_as(
            "delete from password_reset where player_id = $1 and code_hash = $2 and expires_at > $3 \
             returning issued_by, created_at, expires_at",
        )
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

    /// Sets a player's password on a staff member's word (`by`, at `now`): in one
    /// transaction the password is replaced, every session and any reset code of the
    /// player end, and a [`PasswordNotice`] is left for their next login.
    pub async fn staff_set_password(
        &self,
        player: PlayerId,
        password_hash: &str,
        by: &str,
        now: i64,
    ) -> StoreResult<()> {
        let mut tx = self.begin().await?;
        sqlx::query("delete from password_reset where player_id = $1")
            .bind(player.to_string())
            .execute(&mut *tx)
            .await?;
        self.new_password_in(&mut tx, player, password_hash, by, now)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Takes the notice of a password changed by staff, if one is waiting: it is told
    /// once.
    pub async fn take_password_notice(
        &self,
        player: PlayerId,
    ) -> StoreResult<Option<PasswordNotice>> {
        let row: Option<SqlPasswordNotice> = sqlx::query_as(
            "delete from password_notice where player_id = $1 returning changed_by, changed_at",
        )
        .bind(player.to_string())
        .fetch_optional(&self.pool)
        .await?;
        row.map(PasswordNotice::try_from).transpose()
    }

    /// The names of these players, by id (an unknown id is left out): what a hand's
    /// history needs, read without reading every account.
    pub async fn player_names(
        &self,
        players: &[PlayerId],
    ) -> StoreResult<HashMap<PlayerId, String>> {
        let mut ids: Vec<String> = players.iter().map(|p| p.to_string()).collect();
        ids.sort();
        ids.dedup();
        let mut names = HashMap::new();
        if ids.is_empty() {
            return Ok(names);
        }
        let rows: Vec<(String, String)> = sqlx::query_as(NAMES.of(self.backend))
            .bind(json_rows(&ids)?)
            .fetch_all(&self.pool)
            .await?;
        for (id, name) in rows {
            names.insert(PlayerId(uuid(&id)?), name);
        }
        Ok(names)
    }
}
