//! Wallets and the ledger: money in and out of the room, each move in one transaction with
//! its double-entry rows (applied once per idempotency key). The audit that checks the
//! books balance is in `audit.rs`.

use serde::Serialize;
use std::future::Future;

use super::*;

/// The answer stored with an idempotency key: the request it answered and its result
/// (JSON).
#[derive(sqlx::FromRow)]
struct StoredAnswer {
    operation: String,
    result: String,
}

impl SqlStore {
    /// Runs `op` in a transaction, applied at most once per idempotency key: a retry
    /// returns the first answer.
    /// A key names one request of `player` (two players may use the same key);
    /// `request` describes it exactly, its kind included (`deposit 100`, `withdrawal
    /// 100`, `grant 100`...), and a key already used for another request, of this kind
    /// or another, is refused.
    ///
    /// Keys stored before were scoped by kind as well (`KIND:PLAYER:KEY`): those are
    /// looked up too, so a retry of a request made then still gets its first answer, and
    /// their key is refused for any other request.
    pub(super) async fn once<T, F>(
        &self,
        key: Option<&str>,
        player: PlayerId,
        request: String,
        op: F,
    ) -> StoreResult<T>
    where
        T: Serialize + serde::de::DeserializeOwned + Send,
        F: for<'a> FnOnce(
                &'a SqlStore,
                &'a mut Tx,
            )
                -> std::pin::Pin<Box<dyn Future<Output = StoreResult<T>> + Send + 'a>>
            + Send,
    {
        let given = match key {
            Some(k) => Some(check_key(k)?),
            None => None,
        };
        let key = given.map(|k| format!("{player}:{k}"));
        let key = key.as_deref();
        // The answer stored with the key, if this very request made it.
        let answer = |row: StoredAnswer| -> StoreResult<T> {
            if row.operation != request {
                return Err(StoreError::IdempotencyConflict);
            }
            serde_json::from_str(&row.result).map_err(|e| StoreError::Corrupt(e.to_string()))
        };
        let mut tx = self.begin().await?;
        if let (Some(key), Some(given)) = (key, given) {
            let legacy = ["deposit", "withdrawal", "buy_in", "top_up"]
                .map(|kind| format!("{kind}:{player}:{given}"));
            let stored: Vec<StoredAnswer> = sqlx::query_as(
                "select operation, result from idempotency_key \
                 where idempotency_key_id in ($1, $2, $3, $4, $5)",
            )
            .bind(key)
            .bind(&legacy[0])
            .bind(&legacy[1])
            .bind(&legacy[2])
            .bind(&legacy[3])
            .fetch_all(&mut *tx)
            .await?;
            // The row of this very request if there is one (keys stored before could
            // name two requests of different kinds), else the conflicting one.
            let mut rows = stored.into_iter();
            let mut conflicting = None;
            for row in rows.by_ref() {
                if row.operation == request {
                    return answer(row);
                }
                conflicting = Some(row);
            }
            if let Some(row) = conflicting {
                return answer(row);
            }
        }
        let value = op(self, &mut tx).await?;
        if let Some(key) = key {
            let inserted = sqlx::query(
                "insert into idempotency_key (idempotency_key_id, operation, result, created_at) \
                 values ($1, $2, $3, $4)",
            )
            .bind(key)
            .bind(&request)
            .bind(serde_json::to_string(&value).expect("results serialize"))
            .bind(now_ms())
            .execute(&mut *tx)
            .await;
            match inserted {
                Ok(_) => {}
                Err(e) if unique_violation(&e) => {
                    // A concurrent retry committed first: give its answer, apply nothing.
                    drop(tx);
                    let row = sqlx::query_as(
                        "select operation, result from idempotency_key \
                         where idempotency_key_id = $1",
                    )
                    .bind(key)
                    .fetch_one(&self.pool)
                    .await?;
                    return answer(row);
                }
                Err(e) => return Err(e.into()),
            }
        }
        tx.commit().await?;
        Ok(value)
    }

    /// Writes one movement's ledger entries (which must sum to zero).
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn movement(
        &self,
        tx: &mut Tx,
        kind: &str,
        reference: Option<&str>,
        player: Option<PlayerId>,
        table: Option<TableId>,
        entries: &[(String, i64)],
    ) -> StoreResult<()> {
        debug_assert_eq!(entries.iter().map(|e| e.1).sum::<i64>(), 0);
        let movement = Uuid::new_v4().to_string();
        let now = now_ms();
        for (account, amount) in entries {
            sqlx::query(
                "insert into ledger_entry (movement_id, account, player_id, poker_table_id, kind, amount, reference, created_at) \
                 values ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(&movement)
            .bind(account)
            .bind(player.map(|p| p.to_string()))
            .bind(table.map(|t| t.to_string()))
            .bind(kind)
            .bind(*amount)
            .bind(reference)
            .bind(now)
            .execute(&mut **tx)
            .await?;
        }
        Ok(())
    }

    /// Takes `amount` from a wallet, refusing to go below zero.
    pub(super) async fn debit_wallet(
        &self,
        tx: &mut Tx,
        player: PlayerId,
        amount: i64,
    ) -> StoreResult<i64> {
        let balance: Option<i64> = sqlx::query_scalar(
            "update wallet set balance = balance - $1 where player_id = $2 \
             and balance >= $1 returning balance",
        )
        .bind(amount)
        .bind(player.to_string())
        .fetch_optional(&mut **tx)
        .await?;
        match balance {
            Some(balance) => Ok(balance),
            None => {
                let balance: i64 =
                    sqlx::query_scalar("select balance from wallet where player_id = $1")
                        .bind(player.to_string())
                        .fetch_optional(&mut **tx)
                        .await?
                        .ok_or(StoreError::NotFound("player"))?;
                Err(StoreError::InsufficientFunds {
                    balance: balance as Chips,
                })
            }
        }
    }

    pub(super) async fn credit_wallet(
        &self,
        tx: &mut Tx,
        player: PlayerId,
        amount: i64,
    ) -> StoreResult<i64> {
        let balance = sqlx::query_scalar(
            "update wallet set balance = balance + $1 where player_id = $2 returning balance",
        )
        .bind(amount)
        .bind(player.to_string())
        .fetch_optional(&mut **tx)
        .await?
        .ok_or(StoreError::NotFound("player"))?;
        Ok(balance)
    }

    /// Adds money from outside for this reason; returns the new balance. An idempotency
    /// key names one request of the player: used again for the same request it gives the
    /// first answer, for another (another amount, or another kind of money move: a
    /// deposit's key on a withdrawal, a grant's on a deposit) it is
    /// [`StoreError::IdempotencyConflict`].
    pub async fn credit(
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
                    let held: i64 = sqlx::query_scalar(
                        "select cast(coalesce((select sum(balance) from wallet), 0) as bigint) \
                         + cast(coalesce((select sum(stack) from seat), 0) as bigint) \
                         + cast(coalesce((select sum(balance) from house_account), 0) as bigint)",
                    )
                    .fetch_one(&mut **tx)
                    .await?;
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

    /// Adds money from outside (a cashier's [`Credit::Deposit`]); returns the new balance.
    pub async fn deposit(
        &self,
        player: PlayerId,
        amount: Chips,
        key: Option<&str>,
    ) -> StoreResult<Chips> {
        self.credit(player, amount, Credit::Deposit, key).await
    }

    /// Takes money out; returns the new balance.
    pub async fn withdraw(
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

    /// The wallet balance.
    pub async fn balance(&self, player: PlayerId) -> StoreResult<Chips> {
        let balance: i64 = sqlx::query_scalar("select balance from wallet where player_id = $1")
            .bind(player.to_string())
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NotFound("player"))?;
        Ok(balance as Chips)
    }

    /// The player's ledger entries (wallet and seats), newest first.
    pub async fn ledger(&self, player: PlayerId, limit: u32) -> StoreResult<Vec<LedgerEntry>> {
        let rows: Vec<SqlLedgerEntry> = sqlx::query_as(
            "select movement_id, account, kind, amount, reference, created_at from ledger_entry \
             where player_id = $1 and account <> 'external' order by ledger_entry_id desc limit $2",
        )
        .bind(player.to_string())
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        convert(rows)
    }

    /// A table's ledger, summed from its seats' movements (buy-ins, top-ups, cash-outs,
    /// a host's stack adjustments, hands) and its rake. One snapshot: a hand committed meanwhile is in all of it or
    /// in none.
    pub async fn table_ledger(&self, table: TableId) -> StoreResult<TableLedger> {
        let mut tx = self.begin().await?;
        let rows: Vec<(String, i64, i64, i64, i64, Option<String>)> = sqlx::query_as(
            "select l.account, \
                    cast(sum(case when l.kind in ('buy_in', 'top_up') then l.amount else 0 end) as bigint), \
                    cast(sum(case when l.kind = 'cash_out' then -l.amount else 0 end) as bigint), \
                    cast(sum(case when l.kind = 'stack_adjust' then l.amount else 0 end) as bigint), \
                    cast(sum(l.amount) as bigint), \
                    max(p.name) \
             from ledger_entry l left join player p on p.player_id = l.player_id \
             where l.poker_table_id = $1 and l.account like 'seat:%' \
             group by l.account order by min(l.ledger_entry_id)",
        )
        .bind(table.to_string())
        .fetch_all(&mut *tx)
        .await?;
        let rake: i64 = sqlx::query_scalar(
            "select cast(coalesce(sum(amount), 0) as bigint) from ledger_entry \
             where poker_table_id = $1 and account = 'house:rake'",
        )
        .bind(table.to_string())
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        let prefix = format!("seat:{table}:");
        let lines = rows
            .into_iter()
            .map(|(account, bought_in, cashed_out, adjusted, stack, name)| {
                let player_id = account
                    .strip_prefix(&prefix)
                    .and_then(|p| p.parse().ok())
                    .ok_or_else(|| StoreError::Corrupt(format!("a seat account {account}")))?;
                Ok(TableLedgerLine {
                    player_id,
                    name: name.unwrap_or_default(),
                    bought_in,
                    cashed_out,
                    adjusted,
                    stack,
                })
            })
            .collect::<StoreResult<Vec<_>>>()?;
        Ok(TableLedger { lines, rake })
    }
}
