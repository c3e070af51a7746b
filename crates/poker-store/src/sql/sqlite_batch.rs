//! The SQLite batch writes (the persister's group: hands dealt, tables' states, finished
//! hands). Every statement is a fixed text whose rows come in one JSON array parameter of
//! objects, read with `json_each` and each value by its name (`value ->> '$.stack'`): the
//! text never changes with the batch's size, so the connection prepares it once and finds
//! it in its cache afterwards (statements built with one `(?, ?, ...)` group per row were
//! a new text, prepared anew, for about one batch in twenty), one parameter is bound
//! instead of one per column and row, and there is no parameter limit to chunk for. A
//! statement whose rows are none is not sent. On PostgreSQL the same writes go through
//! `unnest` over arrays (`commit_hands_pg`).

use serde::Serialize;

use super::*;

/// The statuses of the hands named (an array of hand ids).
const HAND_STATUSES: &str =
    "select hand_id, status from hand where hand_id in (select value from json_each($1))";

/// Hands just dealt ([`StartRow`]s), at `$2`; a hand recorded before is left as it is.
const START_HANDS: &str = "\
insert into hand (hand_id, poker_table_id, number, status, rake, started_at, created_at) \
 select value ->> '$.hand_id', value ->> '$.poker_table_id', value ->> '$.number', \
 'started', 0, value ->> '$.started_at', $2 from json_each($1) where true \
 on conflict (hand_id) do nothing";

/// The tables' states ([`StateRow`]s, one per table).
const SET_STATES: &str = "\
update poker_table set state = v.value ->> '$.state' from json_each($1) as v \
 where poker_table.poker_table_id = v.value ->> '$.poker_table_id'";

/// Started hands completed ([`FinishedRow`]s).
const COMPLETE_STARTED: &str = "\
update hand set status = 'complete', phh = v.value ->> '$.phh', \
 record = v.value ->> '$.record', rake = v.value ->> '$.rake', \
 ended_at = v.value ->> '$.ended_at' \
 from json_each($1) as v where hand.hand_id = v.value ->> '$.hand_id' \
 and hand.status = 'started'";

/// Hands never recorded, inserted complete ([`FinishedRow`]s), at `$2`.
const INSERT_FINISHED: &str = "\
insert into hand (hand_id, poker_table_id, number, status, phh, record, rake, started_at, \
 ended_at, created_at) \
 select value ->> '$.hand_id', value ->> '$.poker_table_id', value ->> '$.number', \
 'complete', value ->> '$.phh', value ->> '$.record', value ->> '$.rake', \
 value ->> '$.started_at', value ->> '$.ended_at', $2 from json_each($1)";

/// The seats' new stacks ([`SeatChange`]s), each only if the seat still holds the hand's
/// starting stack.
const SET_STACKS: &str = "\
update seat set stack = v.value ->> '$.end' from json_each($1) as v \
 where seat.poker_table_id = v.value ->> '$.table_id' \
 and seat.player_id = v.value ->> '$.player_id' and seat.stack = v.value ->> '$.start'";

/// Who played each hand, from the same rows as [`SET_STACKS`].
const INSERT_HAND_PLAYERS: &str = "\
insert into hand_player (hand_id, player_id, seat_no, starting_stack, finishing_stack, \
 created_at, started_at, big_blind) \
 select value ->> '$.hand_id', value ->> '$.player_id', value ->> '$.seat_no', \
 value ->> '$.start', value ->> '$.end', value ->> '$.at', value ->> '$.started_at', \
 value ->> '$.big_blind' from json_each($1)";

/// The hands' ledger rows ([`HandEntry`]s), at `$2`.
const INSERT_LEDGER: &str = "\
insert into ledger_entry (movement_id, account, poker_table_id, kind, amount, reference, \
 created_at) \
 select value ->> '$.movement_id', value ->> '$.account', value ->> '$.poker_table_id', \
 'hand', value ->> '$.amount', value ->> '$.reference', $2 from json_each($1)";

/// The rake ([`super::commit::RakeRow`]s, each table's row of the house's account), at
/// `$2`.
const ADD_RAKE: &str = "\
insert into house_account (house_account_id, balance, created_at) \
 select value ->> '$.house_account_id', value ->> '$.amount', $2 from json_each($1) where true \
 on conflict (house_account_id) do update set balance = house_account.balance + excluded.balance";

/// The tables' hands and rake per day ([`super::commit::DayRow`]s).
const ADD_DAYS: &str = "\
insert into table_day (day, poker_table_id, hands, rake) \
 select value ->> '$.day', value ->> '$.poker_table_id', value ->> '$.hands', \
 value ->> '$.rake' from json_each($1) where true \
 on conflict (day, poker_table_id) do update \
 set hands = table_day.hands + excluded.hands, rake = table_day.rake + excluded.rake";

/// A table's state, a row of [`SET_STATES`].
#[derive(Serialize)]
pub(crate) struct StateRow<'a> {
    /// The table.
    pub poker_table_id: String,
    /// Its state (JSON).
    pub state: &'a str,
}

/// A finished hand, a row of [`COMPLETE_STARTED`] and [`INSERT_FINISHED`].
#[derive(Serialize)]
struct FinishedRow<'a> {
    hand_id: String,
    poker_table_id: String,
    number: i64,
    phh: &'a str,
    record: String,
    rake: i64,
    started_at: i64,
    ended_at: i64,
}

impl<'a> FinishedRow<'a> {
    /// The rows of `hands`, refusing an amount past what the database holds.
    fn of(hands: &[&'a CompletedHand]) -> StoreResult<Vec<FinishedRow<'a>>> {
        hands
            .iter()
            .map(|h| {
                Ok(FinishedRow {
                    hand_id: h.hand_id.to_string(),
                    poker_table_id: h.table_id.to_string(),
                    number: to_i64(h.number)?,
                    phh: h.phh.as_str(),
                    record: h.record.to_json(),
                    rake: to_i64(h.rake)?,
                    started_at: h.started_at,
                    ended_at: h.ended_at,
                })
            })
            .collect()
    }
}

/// Runs one of the batch's statements over `rows` (`$1`, one JSON array), with `at` as
/// `$2` for those that read one; returns how many rows it changed. With no rows nothing
/// is sent.
async fn write_rows<T: Serialize>(
    tx: &mut Tx,
    sql: &'static str,
    rows: &[T],
    at: Option<i64>,
) -> StoreResult<u64> {
    if rows.is_empty() {
        return Ok(0);
    }
    let mut query = sqlx::query(sql).bind(json_rows(rows)?);
    if let Some(at) = at {
        query = query.bind(at);
    }
    Ok(query.execute(&mut **tx).await?.rows_affected())
}

impl SqlStore {
    /// SQLite: writes a batch inside `tx`: the hands just dealt, the tables' states (one
    /// row per table) and the finished hands not yet committed, with their stacks and
    /// ledger rows ([`plan`]). The fences and the hands' statuses are read first. A state
    /// for a table that does not exist fails the batch with [`StoreError::NotFound`], a
    /// seat that no longer holds its hand's starting stack with
    /// [`StoreError::StaleHand`] (the caller rolls `tx` back). Returns how many hands
    /// were newly committed.
    pub(crate) async fn group_sqlite(
        &self,
        tx: &mut Tx,
        starts: &[HandStart],
        states: &[StateRow<'_>],
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
        let now = now_ms();
        write_rows(tx, START_HANDS, &StartRow::of(starts)?, Some(now)).await?;
        let states_set = write_rows(tx, SET_STATES, states, None).await?;
        if states_set != states.len() as u64 {
            return Err(StoreError::NotFound("table"));
        }
        let Some(plan) = plan else {
            return Ok(0);
        };
        let completed =
            write_rows(tx, COMPLETE_STARTED, &FinishedRow::of(&plan.started)?, None).await?;
        // As on PostgreSQL: a hand no longer `started` (voided) moves no chip. (The
        // statuses above were read in this write transaction, so SQLite cannot see it.)
        if completed != plan.started.len() as u64 {
            return Err(StoreError::StaleHand(plan.started[0].hand_id));
        }
        write_rows(
            tx,
            INSERT_FINISHED,
            &FinishedRow::of(&plan.fresh)?,
            Some(now),
        )
        .await?;
        let stacks_set = write_rows(tx, SET_STACKS, &plan.seats, None).await?;
        if let Some(first) = plan.seats.first() {
            if stacks_set != plan.seats.len() as u64 {
                let stale: HandId = first
                    .hand_id
                    .parse()
                    .map_err(|_| StoreError::Corrupt("a hand id".into()))?;
                return Err(StoreError::StaleHand(stale));
            }
        }
        write_rows(tx, INSERT_HAND_PLAYERS, &plan.seats, None).await?;
        write_rows(tx, INSERT_LEDGER, &plan.ledger, Some(now)).await?;
        write_rows(tx, ADD_RAKE, &plan.rake, Some(now)).await?;
        write_rows(tx, ADD_DAYS, &plan.days, None).await?;
        Ok(plan.hands())
    }
}
