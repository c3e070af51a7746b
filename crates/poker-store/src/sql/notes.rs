//! The players' own reads and writes on both backends: their private notes on other
//! players, their hands by date for their stats and history download, and the seats
//! released while they were away, kept until they are told.

use super::*;

/// A note as the store keeps it: at most [`MAX_NOTE_LEN`] characters, no control
/// character but line breaks and tabs (a note may run over several lines).
fn check_note(note: &str) -> StoreResult<&str> {
    let n = note.chars().count();
    if n > MAX_NOTE_LEN
        || note
            .chars()
            .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
    {
        return Err(StoreError::Invalid(format!(
            "a note has at most {MAX_NOTE_LEN} characters, no control character but line breaks"
        )));
    }
    Ok(note)
}

/// One row of `player_note`.
#[derive(sqlx::FromRow)]
struct SqlNote {
    subject_id: String,
    note: String,
    updated_at: i64,
}

/// One row of `seat_release_notice`.
#[derive(sqlx::FromRow)]
struct SqlSeatNotice {
    seat_release_notice_id: String,
    poker_table_id: String,
    table_name: String,
    away_secs: i64,
    amount: i64,
    created_at: i64,
}

impl SqlStore {
    /// Keeps a word for `player`, whose seat at `table` was released after `away_secs`
    /// away with no page open, `amount` chips going back to the wallet (moved by the
    /// cash-out itself): told on coming back ([`SqlStore::take_seat_release_notices`]).
    pub async fn note_seat_released(
        &self,
        player: PlayerId,
        table: TableId,
        table_name: &str,
        away_secs: u64,
        amount: Chips,
    ) -> StoreResult<()> {
        sqlx::query(
            "insert into seat_release_notice (seat_release_notice_id, player_id, poker_table_id, \
             table_name, away_secs, amount, created_at) values ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(uuid::Uuid::new_v4().to_string())
        .bind(player.to_string())
        .bind(table.to_string())
        .bind(table_name)
        .bind(i64::try_from(away_secs).unwrap_or(i64::MAX))
        .bind(to_i64(amount)?)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The seats released while `player` was away, oldest first, deleted as they are
    /// read: each is told once. One statement (`delete ... returning`), not a transaction
    /// of three, so a notice written meanwhile is either returned or left for the next
    /// sign-in, never deleted unread. A sign-in calls it only when its read
    /// ([`SqlStore::sign_in`]) saw a notice or a seat.
    pub async fn take_seat_release_notices(
        &self,
        player: PlayerId,
    ) -> StoreResult<Vec<SeatReleaseNotice>> {
        let mut rows: Vec<SqlSeatNotice> = sqlx::query_as(
            "delete from seat_release_notice where player_id = $1 \
             returning seat_release_notice_id, poker_table_id, table_name, away_secs, amount, \
             created_at",
        )
        .bind(player.to_string())
        .fetch_all(&self.pool)
        .await?;
        rows.sort_by(|a, b| {
            (a.created_at, &a.seat_release_notice_id)
                .cmp(&(b.created_at, &b.seat_release_notice_id))
        });
        rows.into_iter()
            .map(|r| {
                Ok(SeatReleaseNotice {
                    table_id: TableId(uuid(&r.poker_table_id)?),
                    table_name: r.table_name,
                    away_secs: u64::try_from(r.away_secs).unwrap_or(0),
                    amount: u64::try_from(r.amount).unwrap_or(0),
                    created_at: r.created_at,
                })
            })
            .collect()
    }

    /// Writes the owner's private note on another player (replacing any older one), or
    /// deletes it when `note` is empty or blank. A note has at most [`MAX_NOTE_LEN`]
    /// characters; a note on oneself is refused (`Invalid`), one naming a player who does
    /// not exist is `NotFound`. Moves no money.
    pub async fn set_note(
        &self,
        owner: PlayerId,
        subject: PlayerId,
        note: &str,
        at: i64,
    ) -> StoreResult<()> {
        let note = check_note(note)?;
        if owner == subject {
            return Err(StoreError::Invalid("a note is about another player".into()));
        }
        if note.trim().is_empty() {
            sqlx::query("delete from player_note where owner_id = $1 and subject_id = $2")
                .bind(owner.to_string())
                .bind(subject.to_string())
                .execute(&self.pool)
                .await?;
            return Ok(());
        }
        // Both players must exist: the foreign keys refuse anyone else (SQLite checks them
        // with `foreign_keys = on`), read here first so both backends answer alike.
        let known: i64 = sqlx::query_scalar(
            "select count(*) from player where player_id = $1 or player_id = $2",
        )
        .bind(owner.to_string())
        .bind(subject.to_string())
        .fetch_one(&self.pool)
        .await?;
        if known < 2 {
            return Err(StoreError::NotFound("player"));
        }
        sqlx::query(
            "insert into player_note (owner_id, subject_id, note, updated_at, created_at) \
             values ($1, $2, $3, $4, $5) \
             on conflict (owner_id, subject_id) do update set note = excluded.note, \
             updated_at = excluded.updated_at",
        )
        .bind(owner.to_string())
        .bind(subject.to_string())
        .bind(note)
        .bind(at)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Every note the owner has written, newest first.
    pub async fn notes(&self, owner: PlayerId) -> StoreResult<Vec<PlayerNote>> {
        let rows: Vec<SqlNote> = sqlx::query_as(
            "select subject_id, note, updated_at from player_note where owner_id = $1 \
             order by updated_at desc, subject_id",
        )
        .bind(owner.to_string())
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|r| {
                Ok(PlayerNote {
                    subject: PlayerId(uuid(&r.subject_id)?),
                    note: r.note,
                    updated_at: r.updated_at,
                })
            })
            .collect()
    }

    /// A player's complete hands dealt from `since` to before `until` (unix
    /// milliseconds), oldest first, at most `limit`: their history download.
    pub async fn player_hands_between(
        &self,
        player: PlayerId,
        since: i64,
        until: i64,
        limit: u32,
    ) -> StoreResult<Vec<HandRow>> {
        // The players' rows know when their hand was dealt (`hand_player_started`): the
        // range reads exactly its hands. Rows a node of the previous release wrote during a
        // roll do not (`started_at` null): those are read the old way, from their commit
        // (`created_at`, at or after the deal, so at or after `since` too).
        let rows: Vec<SqlHand> = sqlx::query_as(concat!(
            "select ",
            hand_columns!(),
            " from (select hand_id from hand_player where player_id = $1 \
               and started_at >= $2 and started_at < $3 \
             union all select hand_id from hand_player where player_id = $1 \
               and started_at is null and created_at >= $2) hp \
             join hand h on h.hand_id = hp.hand_id \
             where h.started_at >= $2 and h.started_at < $3 and h.status = 'complete' \
             order by h.started_at, h.number, h.hand_id limit $4"
        ))
        .bind(player.to_string())
        .bind(since)
        .bind(until)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        convert(rows)
    }

    /// What a player won or lost in each complete hand dealt from `since` to before
    /// `until`, oldest first, at most `limit`: their stats, read from the players' index
    /// alone (`hand_player_started` holds each hand's deal, stacks and big blind), not from
    /// the hands. A row written before the store kept the big blind says so
    /// ([`HandResult::big_blind`] `None`).
    pub async fn player_results_between(
        &self,
        player: PlayerId,
        since: i64,
        until: i64,
        limit: u32,
    ) -> StoreResult<Vec<HandResult>> {
        let rows: Vec<(String, i64, i64, i64, Option<i64>)> = sqlx::query_as(
            "select hand_id, started_at, starting_stack, finishing_stack, big_blind from hand_player \
             where player_id = $1 and started_at >= $2 and started_at < $3 \
             union all select hp.hand_id, h.started_at, hp.starting_stack, hp.finishing_stack, hp.big_blind \
             from hand_player hp join hand h on h.hand_id = hp.hand_id \
             where hp.player_id = $1 and hp.started_at is null and hp.created_at >= $2 \
             and h.started_at >= $2 and h.started_at < $3 and h.status = 'complete' \
             order by 2, 1 limit $4",
        )
        .bind(player.to_string())
        .bind(since)
        .bind(until)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|(hand_id, started_at, start, end, big_blind)| {
                Ok(HandResult {
                    hand_id: HandId(uuid(&hand_id)?),
                    started_at,
                    net: end - start,
                    big_blind: big_blind.map(|b| u64::try_from(b).ok().filter(|&b| b > 0)),
                })
            })
            .collect()
    }
}
