//! Committing finished hands in batches: conservation checked, the hands still pending,
//! their ledger rows and rake, and the Postgres batch path.

use sqlx::Row;
use uuid::Uuid;

use super::*;

/// Rows per multi-row statement (SQLite allows 32,766 parameters per statement).
pub(crate) const CHUNK_ROWS: usize = 500;

/// `($1,$2),($3,$4)...`: `rows` groups of `cols` placeholders numbered from `first`.
pub(crate) fn placeholders(rows: usize, cols: usize, first: usize) -> String {
    placeholders_with(rows, &vec![""; cols], first)
}

/// Like [`placeholders`], with fixed SQL where a column's entry is not empty.
pub(crate) fn placeholders_with(rows: usize, cols: &[&str], first: usize) -> String {
    let mut out = String::new();
    let mut n = first;
    for r in 0..rows {
        if r > 0 {
            out.push(',');
        }
        out.push('(');
        for (c, fixed) in cols.iter().enumerate() {
            if c > 0 {
                out.push(',');
            }
            if fixed.is_empty() {
                out.push_str(&format!("${n}"));
                n += 1;
            } else {
                out.push_str(fixed);
            }
        }
        out.push(')');
    }
    out
}

/// Checks every hand conserves chips (finishing stacks plus rake = starting stacks).
pub(crate) fn check_conserved(hands: &[CompletedHand]) -> StoreResult<()> {
    for h in hands {
        let before: u64 = h.players.iter().map(|p| p.starting_stack).sum();
        let after: u64 = h.players.iter().map(|p| p.finishing_stack).sum::<u64>() + h.rake;
        if before != after {
            return Err(StoreError::Invalid(format!(
                "hand {} does not conserve chips",
                h.hand_id
            )));
        }
    }
    Ok(())
}

/// One ledger row of a hand: movement, account, table, amount, hand.
pub(crate) type HandEntry = (String, String, String, i64, String);

/// The ledger rows of committed hands (one movement each: the seats' changes and the
/// rake) and the total rake.
pub(crate) fn hand_ledger(todo: &[&CompletedHand]) -> (Vec<HandEntry>, i64) {
    let mut entries = Vec::new();
    let mut total_rake = 0i64;
    for h in todo {
        let movement = Uuid::new_v4().to_string();
        let mut push = |account: String, amount: i64| {
            entries.push((
                movement.clone(),
                account,
                h.table_id.to_string(),
                amount,
                h.hand_id.to_string(),
            ));
        };
        for p in &h.players {
            let delta = p.finishing_stack as i64 - p.starting_stack as i64;
            if delta != 0 {
                push(seat_account(h.table_id, p.player_id), delta);
            }
        }
        if h.rake > 0 {
            total_rake += h.rake as i64;
            push("house:rake".to_string(), h.rake as i64);
        }
    }
    (entries, total_rake)
}

/// Hands still to commit: never recorded, or started and not yet complete or void.
pub(crate) fn pending<'a>(
    hands: &'a [CompletedHand],
    rows: &[(String, String)],
) -> Vec<&'a CompletedHand> {
    let status: std::collections::HashMap<&str, &str> =
        rows.iter().map(|(i, s)| (i.as_str(), s.as_str())).collect();
    hands
        .iter()
        .filter(|h| {
            status
                .get(h.hand_id.to_string().as_str())
                .is_none_or(|s| *s == "started")
        })
        .collect()
}

/// The Postgres hand commit: the same rows as the portable one, each table written by
/// one fixed statement over arrays, so any batch size costs a handful of round trips.
pub(crate) async fn commit_hands_pg(
    pool: &sqlx::PgPool,
    hands: &[CompletedHand],
) -> StoreResult<usize> {
    check_conserved(hands)?;
    let mut tx = pool.begin().await?;
    let ids: Vec<String> = hands.iter().map(|h| h.hand_id.to_string()).collect();
    let rows = sqlx::query("select hand_id, status from hand where hand_id = any($1)")
        .bind(&ids)
        .fetch_all(&mut *tx)
        .await?;
    let found: Vec<(String, String)> = rows
        .iter()
        .map(|r| Ok((r.try_get("hand_id")?, r.try_get("status")?)))
        .collect::<StoreResult<_>>()?;
    let todo = pending(hands, &found);
    if todo.is_empty() {
        return Ok(0);
    }
    let now = now_ms();
    let col = |f: &dyn Fn(&CompletedHand) -> String| -> Vec<String> {
        todo.iter().map(|h| f(h)).collect()
    };
    let num =
        |f: &dyn Fn(&CompletedHand) -> i64| -> Vec<i64> { todo.iter().map(|h| f(h)).collect() };
    let known: std::collections::HashSet<&str> = found.iter().map(|(i, _)| i.as_str()).collect();
    let started: Vec<bool> = todo
        .iter()
        .map(|h| known.contains(h.hand_id.to_string().as_str()))
        .collect();
    let hand_ids = col(&|h| h.hand_id.to_string());
    let phh = col(&|h| h.phh.clone());
    let record = col(&|h| h.record.to_string());
    let rake = num(&|h| h.rake as i64);
    let ended = num(&|h| h.ended_at);
    sqlx::query(
        "update hand set status = 'complete', phh = v.phh, record = v.record, rake = v.rake, ended_at = v.ended \
         from unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bool[]) \
              as v (id, phh, record, rake, ended, started) \
         where v.started and hand.hand_id = v.id and hand.status = 'started'",
    )
    .bind(&hand_ids)
    .bind(&phh)
    .bind(&record)
    .bind(&rake)
    .bind(&ended)
    .bind(&started)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "insert into hand (hand_id, poker_table_id, number, status, phh, record, rake, started_at, ended_at, created_at) \
         select v.id, v.t, v.n, 'complete', v.phh, v.record, v.rake, v.s, v.e, $10 \
         from unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], \
                     $8::bigint[], $9::bool[]) as v (id, t, n, phh, record, rake, s, e, started) \
         where not v.started",
    )
    .bind(&hand_ids)
    .bind(col(&|h| h.table_id.to_string()))
    .bind(num(&|h| h.number as i64))
    .bind(&phh)
    .bind(&record)
    .bind(&rake)
    .bind(num(&|h| h.started_at))
    .bind(&ended)
    .bind(&started)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    // The stacks: each seat must still hold the hand's starting stack.
    let seats: Vec<(&CompletedHand, &HandPlayer)> = todo
        .iter()
        .flat_map(|h| h.players.iter().map(move |p| (*h, p)))
        .collect();
    let s_hand: Vec<String> = seats.iter().map(|(h, _)| h.hand_id.to_string()).collect();
    let s_table: Vec<String> = seats.iter().map(|(h, _)| h.table_id.to_string()).collect();
    let s_player: Vec<String> = seats.iter().map(|(_, p)| p.player_id.to_string()).collect();
    let s_seat: Vec<i64> = seats.iter().map(|(_, p)| i64::from(p.seat_no)).collect();
    let s_start: Vec<i64> = seats.iter().map(|(_, p)| p.starting_stack as i64).collect();
    let s_end: Vec<i64> = seats
        .iter()
        .map(|(_, p)| p.finishing_stack as i64)
        .collect();
    let s_at: Vec<i64> = seats.iter().map(|(h, _)| h.ended_at).collect();
    let updated = sqlx::query(
        "update seat set stack = v.f from unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[]) as v (t, p, s, f) \
         where seat.poker_table_id = v.t and seat.player_id = v.p and seat.stack = v.s",
    )
    .bind(&s_table)
    .bind(&s_player)
    .bind(&s_start)
    .bind(&s_end)
    .execute(&mut *tx)
    .await?;
    if updated.rows_affected() != seats.len() as u64 {
        return Err(StoreError::StaleHand(todo[0].hand_id));
    }
    sqlx::query(
        "insert into hand_player (hand_id, player_id, seat_no, starting_stack, finishing_stack, created_at) \
         select * from unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[])",
    )
    .bind(&s_hand)
    .bind(&s_player)
    .bind(&s_seat)
    .bind(&s_start)
    .bind(&s_end)
    .bind(&s_at)
    .execute(&mut *tx)
    .await?;
    // The ledger: one movement per hand, the seats' changes and the rake.
    let (entries, total_rake) = hand_ledger(&todo);
    let l_move: Vec<&str> = entries.iter().map(|e| e.0.as_str()).collect();
    let l_account: Vec<&str> = entries.iter().map(|e| e.1.as_str()).collect();
    let l_table: Vec<&str> = entries.iter().map(|e| e.2.as_str()).collect();
    let l_amount: Vec<i64> = entries.iter().map(|e| e.3).collect();
    let l_ref: Vec<&str> = entries.iter().map(|e| e.4.as_str()).collect();
    sqlx::query(
        "insert into ledger_entry (movement_id, account, poker_table_id, kind, amount, reference, created_at) \
         select v.m, v.a, v.t, 'hand', v.x, v.r, $6 \
         from unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[]) as v (m, a, t, x, r)",
    )
    .bind(&l_move)
    .bind(&l_account)
    .bind(&l_table)
    .bind(&l_amount)
    .bind(&l_ref)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    if total_rake > 0 {
        sqlx::query(
            "insert into house_account (house_account_id, balance, created_at) values ('rake', $1, $2) \
             on conflict (house_account_id) do update set balance = house_account.balance + excluded.balance",
        )
        .bind(total_rake)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(todo.len())
}
