//! Seats: buy-ins, top-ups and cash-outs (money between wallet and seat), the rathole
//! record, and the seat flags that move no money (sitting out, missed blinds).

use super::*;

impl SqlStore {
    /// Moves money from the wallet to a seat.
    ///
    /// `fence` (here and in [`SqlStore::top_up`], [`SqlStore::cash_out`] and
    /// [`SqlStore::start_hand`]) is the writing node's fencing token for the table: when it
    /// is not the table lease's current token (or the table has no lease) the write is
    /// refused with [`StoreError::Fenced`] and nothing is written, since another node
    /// owns the table now. `None` (single process) is not checked.
    pub async fn buy_in(
        &self,
        table: TableId,
        seat_no: u32,
        player: PlayerId,
        amount: Chips,
        key: Option<&str>,
        fence: Option<u64>,
    ) -> StoreResult<()> {
        let buy_in = BuyIn {
            table,
            seat_no,
            player,
            amount,
            fence,
        };
        positive(amount)?;
        let key_owned = key.map(str::to_string);
        let request = format!("buy_in {table} {seat_no} {amount}");
        self.once(key, player, request, move |s, tx| {
            Box::pin(async move { s.buy_in_in(tx, &buy_in, key_owned.as_deref()).await })
        })
        .await
    }

    /// Several buy-ins in one transaction, a group commit for a room whose tables fill at
    /// once. Each is applied or refused on its own, as [`SqlStore::buy_in`] without a key
    /// would (a refusal, such as insufficient funds or a taken seat, leaves the others
    /// applied); the answer has one result per buy-in, in order. `Err` means the
    /// transaction as a whole failed and none was applied.
    ///
    /// One transaction, each buy-in inside a savepoint of its own, so a refused one is
    /// rolled back alone (Postgres would otherwise abort the whole transaction at its
    /// failed insert). The wallets are debited in player order, so two batches at once
    /// never wait on each other's rows in opposite orders.
    pub async fn buy_ins(&self, buy_ins: &[BuyIn]) -> StoreResult<Vec<StoreResult<()>>> {
        let mut order: Vec<usize> = (0..buy_ins.len()).collect();
        order.sort_by_key(|&i| buy_ins[i].player);
        let mut results: Vec<Option<StoreResult<()>>> = buy_ins.iter().map(|_| None).collect();
        let mut tx = self.begin().await?;
        for i in order {
            sqlx::query("savepoint buy_in").execute(&mut *tx).await?;
            let result = self.buy_in_in(&mut tx, &buy_ins[i], None).await;
            let end = if result.is_ok() {
                "release savepoint buy_in"
            } else {
                "rollback to savepoint buy_in"
            };
            sqlx::query(end).execute(&mut *tx).await?;
            if result.is_err() {
                // The savepoint itself stays after a rollback to it.
                sqlx::query("release savepoint buy_in")
                    .execute(&mut *tx)
                    .await?;
            }
            results[i] = Some(result);
        }
        tx.commit().await?;
        Ok(results
            .into_iter()
            .map(|r| r.expect("every buy-in was tried"))
            .collect())
    }

    /// One buy-in inside `tx`: the fence, the wallet's debit, the seat and the ledger
    /// movement (with `key` as its reference).
    async fn buy_in_in(&self, tx: &mut Tx, buy_in: &BuyIn, key: Option<&str>) -> StoreResult<()> {
        let BuyIn {
            table,
            seat_no,
            player,
            amount,
            fence,
        } = *buy_in;
        let amount = positive(amount)?;
        self.check_fence(tx, table, fence).await?;
        self.debit_wallet(tx, player, amount).await?;
        let inserted = sqlx::query(
            "insert into seat (poker_table_id, seat_no, player_id, stack, created_at) \
             values ($1, $2, $3, $4, $5)",
        )
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
                    sqlx::Error::Database(d) => {
                        format!("{} {}", d.message(), d.constraint().unwrap_or(""))
                    }
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
        let entries = [
            (wallet_account(player), -amount),
            (seat_account(table, player), amount),
        ];
        self.movement(tx, "buy_in", key, Some(player), Some(table), &entries)
            .await
    }

    /// Moves more money to a seat; returns the new stack. Refused with
    /// [`StoreError::Fenced`] on a stale `fence`, like [`SqlStore::buy_in`].
    pub async fn top_up(
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
                let stack: i64 = sqlx::query_scalar(
                    "update seat set stack = stack + $1 where poker_table_id = $2 \
                     and player_id = $3 returning stack",
                )
                .bind(amount)
                .bind(table.to_string())
                .bind(player.to_string())
                .fetch_optional(&mut **tx)
                .await?
                .ok_or(StoreError::NotSeated)?;
                let entries = [
                    (wallet_account(player), -amount),
                    (seat_account(table, player), amount),
                ];
                s.movement(
                    tx,
                    "top_up",
                    key_owned.as_deref(),
                    Some(player),
                    Some(table),
                    &entries,
                )
                .await?;
                Ok(stack as Chips)
            })
        })
        .await
    }

    /// A private play-money game's host adjusts a seat's stack by `delta` chips (never
    /// zero): more chips minted from outside the room to the seat, or chips taken off it
    /// back outside, in one transaction with its `stack_adjust` ledger rows (`external`
    /// against the seat; `reference` names who did it). Returns the new stack. Refused
    /// with [`StoreError::NotSeated`], [`StoreError::InsufficientFunds`] (the stack, when
    /// it would go below zero), [`StoreError::RoomFull`] past the room's bound, and
    /// [`StoreError::Fenced`] on a stale `fence`, like [`SqlStore::buy_in`]. Only the
    /// server's play-money rooms call it (real money never comes from nothing).
    pub async fn adjust_stack(
        &self,
        table: TableId,
        player: PlayerId,
        delta: i64,
        reference: &str,
        fence: Option<u64>,
    ) -> StoreResult<Chips> {
        positive(delta.unsigned_abs())?;
        let mut tx = self.begin().await?;
        self.check_fence(&mut tx, table, fence).await?;
        if delta > 0 {
            let held: i64 = sqlx::query_scalar(
                "select cast(coalesce((select sum(balance) from wallet), 0) as bigint) \
                 + cast(coalesce((select sum(stack) from seat), 0) as bigint) \
                 + cast(coalesce((select sum(balance) from house_account), 0) as bigint)",
            )
            .fetch_one(&mut *tx)
            .await?;
            if held.saturating_add(delta) > MAX_MONEY as i64 {
                return Err(StoreError::RoomFull { held });
            }
        }
        let stack: Option<i64> = sqlx::query_scalar(
            "update seat set stack = stack + $1 where poker_table_id = $2 \
             and player_id = $3 and stack + $1 >= 0 returning stack",
        )
        .bind(delta)
        .bind(table.to_string())
        .bind(player.to_string())
        .fetch_optional(&mut *tx)
        .await?;
        let Some(stack) = stack else {
            let stack: i64 = sqlx::query_scalar(
                "select stack from seat where poker_table_id = $1 and player_id = $2",
            )
            .bind(table.to_string())
            .bind(player.to_string())
            .fetch_optional(&mut *tx)
            .await?
            .ok_or(StoreError::NotSeated)?;
            return Err(StoreError::InsufficientFunds {
                balance: stack as Chips,
            });
        };
        let entries = [
            ("external".to_string(), -delta),
            (seat_account(table, player), delta),
        ];
        self.movement(
            &mut tx,
            "stack_adjust",
            Some(reference),
            Some(player),
            Some(table),
            &entries,
        )
        .await?;
        tx.commit().await?;
        Ok(stack as Chips)
    }

    /// Moves the whole stack back to the wallet, frees the seat and keeps the rathole
    /// record; returns the amount. Refused with [`StoreError::Fenced`] on a stale
    /// `fence`, like [`SqlStore::buy_in`].
    pub async fn cash_out(
        &self,
        table: TableId,
        player: PlayerId,
        at: i64,
        fence: Option<u64>,
    ) -> StoreResult<Chips> {
        let mut tx = self.begin().await?;
        self.check_fence(&mut tx, table, fence).await?;
        let stack: i64 = sqlx::query_scalar(
            "delete from seat where poker_table_id = $1 and player_id = $2 returning stack",
        )
        .bind(table.to_string())
        .bind(player.to_string())
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(StoreError::NotSeated)?;
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
        sqlx::query("delete from rathole where poker_table_id = $1 and player_id = $2")
            .bind(table.to_string())
            .bind(player.to_string())
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "insert into rathole (poker_table_id, player_id, stack, left_at, created_at) \
             values ($1, $2, $3, $4, $5)",
        )
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

    /// The seats of a table.
    pub async fn seats(&self, table: TableId) -> StoreResult<Vec<SeatRow>> {
        let rows: Vec<SqlSeat> = sqlx::query_as(
            "select seat_no, player_id, stack, sitting_out from seat \
             where poker_table_id = $1 order by seat_no",
        )
        .bind(table.to_string())
        .fetch_all(&self.pool)
        .await?;
        convert(rows)
    }

    /// The tables where a player holds a seat.
    pub async fn tables_of(&self, player: PlayerId) -> StoreResult<Vec<TableId>> {
        let rows = sqlx::query_scalar(
            "select poker_table_id from seat where player_id = $1 order by poker_table_id",
        )
        .bind(player.to_string())
        .fetch_all(&self.read)
        .await?;
        table_ids(rows)
    }

    /// What the player last left this table with.
    pub async fn rathole(
        &self,
        table: TableId,
        player: PlayerId,
    ) -> StoreResult<Option<RatholeRow>> {
        let row: Option<SqlRathole> = sqlx::query_as(
            "select stack, left_at from rathole where poker_table_id = $1 and player_id = $2",
        )
        .bind(table.to_string())
        .bind(player.to_string())
        .fetch_optional(&self.read)
        .await?;
        row.map(RatholeRow::try_from).transpose()
    }

    /// Records whether a seated player is sitting out.
    pub async fn set_sitting_out(
        &self,
        table: TableId,
        player: PlayerId,
        sitting_out: bool,
    ) -> StoreResult<()> {
        let out = sitting_out;
        self.save_table_writes(&[TableWrite::SittingOut { table, player, out }])
            .await
    }

    /// Records the blinds a player owes at a table (small, big).
    pub async fn set_missed_blinds(
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

    /// Writes that move no money, of any tables, in one transaction and in order, each as
    /// [`SqlStore::set_table_state`], [`SqlStore::set_sitting_out`] and
    /// [`SqlStore::set_missed_blinds`] do; one that finds nothing to write refuses them all
    /// (`NotFound`, `NotSeated`).
    pub async fn save_table_writes(&self, writes: &[TableWrite]) -> StoreResult<()> {
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

    /// The blinds a player owes at a table (small, big).
    pub async fn missed_blinds(
        &self,
        table: TableId,
        player: PlayerId,
    ) -> StoreResult<(bool, bool)> {
        let row: Option<(i64, i64)> = sqlx::query_as(
            "select owes_small, owes_big from missed_blind where poker_table_id = $1 \
             and player_id = $2",
        )
        .bind(table.to_string())
        .bind(player.to_string())
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map_or((false, false), |(small, big)| (small != 0, big != 0)))
    }
}
