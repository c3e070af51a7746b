//! The SQLite batch writes (the persister's group: hands dealt, tables' states, finished
//! hands). Every statement is one fixed text whose rows come in a single JSON array
//! parameter, read with `json_each`: the text never changes with the batch's size, so
//! the connection prepares each statement once and finds it in its cache afterwards
//! (statements built with one `(?, ?, ...)` group per row were a new text, prepared anew,
//! for nearly every batch), one parameter is bound instead of one per column and row,
//! there is no parameter limit to chunk for, and a statement whose array would be empty
//! is not sent at all. On PostgreSQL the same writes go through `unnest` over arrays
//! (`commit_hands_pg`).

use serde::Serialize;

use super::*;

/// The statuses of the hands named (an array of hand ids).
const HAND_STATUSES: &str =
    "select hand_id, status from hand where hand_id in (select value from json_each(?1))";

/// Hands just dealt: `[hand, table, number, started at]`; `?2` is now.
const START_HANDS: &str = "insert into hand (hand_id, poker_table_id, number, status, rake, started_at, created_at) \
     select value ->> 0, value ->> 1, value ->> 2, 'started', 0, value ->> 3, ?2 from json_each(?1) where true \
     on conflict (hand_id) do nothing";

/// The tables' states: `[table, state]`, one row per table.
const TABLE_STATES: &str = "update poker_table set state = v.value ->> 1 from json_each(?1) as v \
     where poker_table.poker_table_id = v.value ->> 0";

/// Started hands completed: `[hand, phh, record, rake, ended at]`.
const COMPLETE_STARTED: &str = "update hand set status = 'complete', phh = v.value ->> 1, record = v.value ->> 2, \
     rake = v.value ->> 3, ended_at = v.value ->> 4 \
     from json_each(?1) as v where hand.hand_id = v.value ->> 0 and hand.status = 'started'";

/// Hands never recorded, inserted complete: `[hand, table, number, phh, record, rake,
/// started at, ended at]`; `?2` is now.
const INSERT_COMPLETE: &str = "insert into hand (hand_id, poker_table_id, number, status, phh, record, rake, started_at, ended_at, created_at) \
     select value ->> 0, value ->> 1, value ->> 2, 'complete', value ->> 3, value ->> 4, value ->> 5, \
     value ->> 6, value ->> 7, ?2 from json_each(?1)";

/// The seats' new stacks, each only if the seat still holds the hand's starting stack:
/// `[table, player, start, end, hand, seat, ended at]` (the rows of [`HAND_PLAYERS`]).
const SEAT_STACKS: &str = "update seat set stack = v.value ->> 3 from json_each(?1) as v \
     where seat.poker_table_id = v.value ->> 0 and seat.player_id = v.value ->> 1 \
     and seat.stack = v.value ->> 2";

/// Who played each hand, from the rows of [`SEAT_STACKS`].
const HAND_PLAYERS: &str = "insert into hand_player (hand_id, player_id, seat_no, starting_stack, finishing_stack, created_at) \
     select value ->> 4, value ->> 1, value ->> 5, value ->> 2, value ->> 3, value ->> 6 from json_each(?1)";

/// The hands' ledger rows: `[movement, account, table, amount, hand]`; `?2` is now.
const HAND_LEDGER: &str = "insert into ledger_entry (movement_id, account, poker_table_id, kind, amount, reference, created_at) \
     select value ->> 0, value ->> 1, value ->> 2, 'hand', value ->> 3, value ->> 4, ?2 from json_each(?1)";

/// The rake (`?1`) added to the house's account; `?2` is now.
const HOUSE_RAKE: &str = "insert into house_account (house_account_id, balance, created_at) values ('rake', ?1, ?2) \
     on conflict (house_account_id) do update set balance = house_account.balance + excluded.balance";

/// `rows` as one JSON array of arrays (tuples serialize as arrays).
fn json_rows<T: Serialize>(rows: &[T]) -> StoreResult<String> {
    serde_json::to_string(rows)
        .map_err(|e| StoreError::Invalid(format!("rows that cannot be written: {e}")))
}

impl SqlStore {
    /// SQLite: records hands just dealt inside `tx`, in one statement.
    pub(crate) async fn start_hands_sqlite(
        &self,
        tx: &mut Tx,
        starts: &[HandStart],
    ) -> StoreResult<()> {
        if starts.is_empty() {
            return Ok(());
        }
        let rows = starts
            .iter()
            .map(|s| {
                Ok((
                    s.hand.to_string(),
                    s.table.to_string(),
                    to_i64(s.number)?,
                    s.at,
                ))
            })
            .collect::<StoreResult<Vec<_>>>()?;
        sqlx::query(START_HANDS)
            .bind(json_rows(&rows)?)
            .bind(now_ms())
            .execute(&mut **tx)
            .await?;
        Ok(())
    }

    /// SQLite: the tables' states inside `tx`, given as `(table, state)` with one row per
    /// table, in one statement; every table must exist.
    pub(crate) async fn table_states_sqlite(
        &self,
        tx: &mut Tx,
        states: &[(String, &str)],
    ) -> StoreResult<()> {
        if states.is_empty() {
            return Ok(());
        }
        let done = sqlx::query(TABLE_STATES)
            .bind(json_rows(states)?)
            .execute(&mut **tx)
            .await?;
        if done.rows_affected() != states.len() as u64 {
            return Err(StoreError::NotFound("table"));
        }
        Ok(())
    }

    /// The SQLite hand commit inside `tx`: fences checked, then each hand not yet
    /// committed written with its stacks and ledger rows ([`plan`]), one statement per
    /// kind of row. Returns how many were newly committed (none: nothing was written).
    pub(crate) async fn commit_hands_sqlite(
        &self,
        tx: &mut Tx,
        hands: &[CompletedHand],
    ) -> StoreResult<usize> {
        if hands.is_empty() {
            return Ok(0);
        }
        self.check_fences_in(tx, hands).await?;
        // Exactly once: only hands never recorded, or started and not yet committed.
        let ids: Vec<String> = hands.iter().map(|h| h.hand_id.to_string()).collect();
        let found: Vec<(String, String)> = sqlx::query_as(HAND_STATUSES)
            .bind(json_rows(&ids)?)
            .fetch_all(&mut **tx)
            .await?;
        let Some(plan) = plan(hands, &found)? else {
            return Ok(0);
        };
        let now = now_ms();
        if !plan.started.is_empty() {
            let rows = plan
                .started
                .iter()
                .map(|h| {
                    Ok((
                        h.hand_id.to_string(),
                        h.phh.as_str(),
                        h.record.to_json(),
                        to_i64(h.rake)?,
                        h.ended_at,
                    ))
                })
                .collect::<StoreResult<Vec<_>>>()?;
            sqlx::query(COMPLETE_STARTED)
                .bind(json_rows(&rows)?)
                .execute(&mut **tx)
                .await?;
        }
        if !plan.fresh.is_empty() {
            let rows = plan
                .fresh
                .iter()
                .map(|h| {
                    Ok((
                        h.hand_id.to_string(),
                        h.table_id.to_string(),
                        to_i64(h.number)?,
                        h.phh.as_str(),
                        h.record.to_json(),
                        to_i64(h.rake)?,
                        h.started_at,
                        h.ended_at,
                    ))
                })
                .collect::<StoreResult<Vec<_>>>()?;
            sqlx::query(INSERT_COMPLETE)
                .bind(json_rows(&rows)?)
                .bind(now)
                .execute(&mut **tx)
                .await?;
        }
        // The stacks: each seat must still hold the hand's starting stack.
        let seats: Vec<_> = plan
            .seats
            .iter()
            .map(|s| {
                (
                    &s.table_id,
                    &s.player_id,
                    s.start,
                    s.end,
                    &s.hand_id,
                    s.seat_no,
                    s.at,
                )
            })
            .collect();
        if let Some(first) = plan.seats.first() {
            let seats = json_rows(&seats)?;
            let updated = sqlx::query(SEAT_STACKS)
                .bind(seats.as_str())
                .execute(&mut **tx)
                .await?;
            if updated.rows_affected() != plan.seats.len() as u64 {
                let stale: HandId = first
                    .hand_id
                    .parse()
                    .map_err(|_| StoreError::Corrupt("a hand id".into()))?;
                return Err(StoreError::StaleHand(stale));
            }
            sqlx::query(HAND_PLAYERS)
                .bind(seats)
                .execute(&mut **tx)
                .await?;
        }
        // The ledger: one movement per hand, the seats' changes and the rake.
        if !plan.ledger.is_empty() {
            sqlx::query(HAND_LEDGER)
                .bind(json_rows(&plan.ledger)?)
                .bind(now)
                .execute(&mut **tx)
                .await?;
        }
        if plan.rake > 0 {
            sqlx::query(HOUSE_RAKE)
                .bind(plan.rake)
                .bind(now)
                .execute(&mut **tx)
                .await?;
        }
        Ok(plan.hands())
    }
}
