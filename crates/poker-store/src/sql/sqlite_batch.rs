//! The SQLite batch writes (the persister's group: hands dealt, tables' states, finished
//! hands). Every statement is a fixed text whose rows come in one JSON array parameter,
//! read with `json_each`: the text never changes with the batch's size, so the
//! connection prepares it once and finds it in its cache afterwards (statements built
//! with one `(?, ?, ...)` group per row were a new text, prepared anew, for about one
//! batch in twenty), one parameter is bound instead of one per column and row, and there
//! is no parameter limit to chunk for. All of a batch's writes are one statement list
//! sent to the driver's thread in one call, so a batch costs four round trips to that
//! thread (`begin`, the hands' statuses, the writes, `commit`) instead of ten. On
//! PostgreSQL the same writes go through `unnest` over arrays (`commit_hands_pg`).

use futures_util::TryStreamExt;
use serde::Serialize;

use super::*;

/// The statuses of the hands named (an array of hand ids).
const HAND_STATUSES: &str =
    "select hand_id, status from hand where hand_id in (select value from json_each(?1))";

/// A batch's writes, in this order, each statement reading its rows from one JSON array
/// (an empty array writes nothing). One text, so one cached statement list, sent to the
/// driver's thread in one call. Its parameters are plain `?`, bound in the order they
/// appear (sqlx numbers them on through the list; `?N` names would be looked up for
/// every slot below N of every statement, and leave those slots to other values):
///
/// 1. Hands just dealt: now, `[hand, table, number, started at]`.
/// 2. The tables' states: `[table, state]`, one row per table.
/// 3. Started hands completed: `[hand, phh, record, rake, ended at]`.
/// 4. Hands never recorded, inserted complete: now, `[hand, table, number, phh, record,
///    rake, started at, ended at]`.
/// 5. The seats' new stacks, each only if the seat still holds the hand's starting
///    stack: `[table, player, start, end, hand, seat, ended at]`.
/// 6. Who played each hand, from the same rows.
/// 7. The hands' ledger rows: now, `[movement, account, table, amount, hand]`.
/// 8. The rake added to the house's account, when there is any: rake, now, rake.
const GROUP_WRITES: &str = "\
insert into hand (hand_id, poker_table_id, number, status, rake, started_at, created_at) \
 select value ->> 0, value ->> 1, value ->> 2, 'started', 0, value ->> 3, ? from json_each(?) where true \
 on conflict (hand_id) do nothing; \
update poker_table set state = v.value ->> 1 from json_each(?) as v \
 where poker_table.poker_table_id = v.value ->> 0; \
update hand set status = 'complete', phh = v.value ->> 1, record = v.value ->> 2, \
 rake = v.value ->> 3, ended_at = v.value ->> 4 \
 from json_each(?) as v where hand.hand_id = v.value ->> 0 and hand.status = 'started'; \
insert into hand (hand_id, poker_table_id, number, status, phh, record, rake, started_at, ended_at, created_at) \
 select value ->> 0, value ->> 1, value ->> 2, 'complete', value ->> 3, value ->> 4, value ->> 5, \
 value ->> 6, value ->> 7, ? from json_each(?); \
update seat set stack = v.value ->> 3 from json_each(?) as v \
 where seat.poker_table_id = v.value ->> 0 and seat.player_id = v.value ->> 1 \
 and seat.stack = v.value ->> 2; \
insert into hand_player (hand_id, player_id, seat_no, starting_stack, finishing_stack, created_at) \
 select value ->> 4, value ->> 1, value ->> 5, value ->> 2, value ->> 3, value ->> 6 from json_each(?); \
insert into ledger_entry (movement_id, account, poker_table_id, kind, amount, reference, created_at) \
 select value ->> 0, value ->> 1, value ->> 2, 'hand', value ->> 3, value ->> 4, ? from json_each(?); \
insert into house_account (house_account_id, balance, created_at) select 'rake', ?, ? where ? > 0 \
 on conflict (house_account_id) do update set balance = house_account.balance + excluded.balance";

/// How many statements [`GROUP_WRITES`] holds.
const GROUP_STATEMENTS: usize = 8;

/// `rows` as one JSON array of arrays (tuples serialize as arrays).
fn json_rows<T: Serialize>(rows: &[T]) -> StoreResult<String> {
    serde_json::to_string(rows)
        .map_err(|e| StoreError::Invalid(format!("rows that cannot be written: {e}")))
}

impl SqlStore {
    /// SQLite: writes a batch inside `tx`: the hands just dealt, the tables' states (given
    /// as `(table, state)`, one row per table) and the finished hands not yet committed,
    /// with their stacks and ledger rows ([`plan`]). The fences and the hands' statuses
    /// are read first; everything is then written by [`GROUP_WRITES`] in one call to the
    /// driver's thread. A state for a table that does not exist fails the batch with
    /// [`StoreError::NotFound`], a seat that no longer holds its hand's starting stack
    /// with [`StoreError::StaleHand`] (the caller rolls `tx` back). Returns how many hands
    /// were newly committed.
    pub(crate) async fn group_sqlite(
        &self,
        tx: &mut Tx,
        starts: &[HandStart],
        states: &[(String, &str)],
        hands: &[CompletedHand],
    ) -> StoreResult<usize> {
        let plan = if hands.is_empty() {
            None
        } else {
            self.check_fences_in(tx, hands).await?;
            // Exactly once: only hands never recorded, or started and not yet committed.
            let ids: Vec<String> = hands.iter().map(|h| h.hand_id.to_string()).collect();
            let found: Vec<(String, String)> = sqlx::query_as(HAND_STATUSES)
                .bind(json_rows(&ids)?)
                .fetch_all(&mut **tx)
                .await?;
            plan(hands, &found)?
        };
        if starts.is_empty() && states.is_empty() && plan.is_none() {
            return Ok(0);
        }
        let starts = starts
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
        let (started, fresh) = match &plan {
            Some(p) => (p.started.as_slice(), p.fresh.as_slice()),
            None => (&[][..], &[][..]),
        };
        let started = started
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
        let fresh = fresh
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
        let seats: &[SeatChange] = plan.as_ref().map_or(&[], |p| p.seats.as_slice());
        let seat_rows: Vec<_> = seats
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
        let ledger: &[HandEntry] = plan.as_ref().map_or(&[], |p| p.ledger.as_slice());
        let (now, rake) = (now_ms(), plan.as_ref().map_or(0, |p| p.rake));
        let seat_rows = json_rows(&seat_rows)?;
        // Several statements in one text is deprecated in sqlx 0.8 (PostgreSQL cannot
        // prepare them) but supported by its SQLite driver, which runs them in order
        // and reports each one's result; this path is SQLite's alone.
        #[allow(deprecated)]
        let mut results = sqlx::query(GROUP_WRITES)
            .bind(now)
            .bind(json_rows(&starts)?)
            .bind(json_rows(states)?)
            .bind(json_rows(&started)?)
            .bind(now)
            .bind(json_rows(&fresh)?)
            .bind(seat_rows.clone())
            .bind(seat_rows)
            .bind(now)
            .bind(json_rows(ledger)?)
            .bind(rake)
            .bind(now)
            .bind(rake)
            .fetch_many(&mut **tx);
        let mut changes = Vec::with_capacity(GROUP_STATEMENTS);
        while let Some(step) = results.try_next().await? {
            if let sqlx::Either::Left(done) = step {
                changes.push(done.rows_affected());
            }
        }
        drop(results);
        if changes.len() != GROUP_STATEMENTS {
            return Err(StoreError::Corrupt(format!(
                "{} of the batch's {GROUP_STATEMENTS} statements ran",
                changes.len()
            )));
        }
        if changes[1] != states.len() as u64 {
            return Err(StoreError::NotFound("table"));
        }
        if let Some(first) = seats.first() {
            if changes[4] != seats.len() as u64 {
                let stale: HandId = first
                    .hand_id
                    .parse()
                    .map_err(|_| StoreError::Corrupt("a hand id".into()))?;
                return Err(StoreError::StaleHand(stale));
            }
        }
        Ok(plan.map_or(0, |p| p.hands()))
    }
}
