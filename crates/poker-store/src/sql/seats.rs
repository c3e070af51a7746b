//! Seats: buy-ins, top-ups and cash-outs (money between wallet and seat), the rathole
//! record, and the seat flags that move no money (sitting out, missed blinds).

use super::*;

impl SqlStore {
    /// [`Store::buy_in`] on both backends.
    pub(super) async fn buy_in_impl(
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

    /// [`Store::buy_ins`] on both backends: one transaction, each buy-in inside a
    /// savepoint of its own, so a refused one is rolled back alone (Postgres would
    /// otherwise abort the whole transaction at its failed insert). The wallets are
    /// debited in player order, so two batches at once never wait on each other's rows
    /// in opposite orders.
    pub(super) async fn buy_ins_impl(
        &self,
        buy_ins: &[BuyIn],
    ) -> StoreResult<Vec<StoreResult<()>>> {
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
        let inserted = sqlx::query(&self.sql(
            "insert into seat (poker_table_id, seat_no, player_id, stack, created_at) values ($1, $2, $3, $4, $5)",
        ))
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

    /// [`Store::top_up`] on both backends.
    pub(super) async fn top_up_impl(
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
                let stack: i64 = sqlx::query_scalar(&s.sql(
                    "update seat set stack = stack + $1 where poker_table_id = $2 and player_id = $3 returning stack",
                ))
                .bind(amount)
                .bind(table.to_string())
                .bind(player.to_string())
                .fetch_optional(&mut **tx)
                .await?
                .ok_or(StoreError::NotSeated)?;
                let entries = [(wallet_account(player), -amount), (seat_account(table, player), amount)];
                s.movement(tx, "top_up", key_owned.as_deref(), Some(player), Some(table), &entries).await?;
                Ok(stack as Chips)
            })
        })
        .await
    }

    /// [`Store::cash_out`] on both backends.
    pub(super) async fn cash_out_impl(
        &self,
        table: TableId,
        player: PlayerId,
        at: i64,
        fence: Option<u64>,
    ) -> StoreResult<Chips> {
        let mut tx = self.begin().await?;
        self.check_fence(&mut tx, table, fence).await?;
        let stack: i64 =
            sqlx::query_scalar(&self.sql(
                "delete from seat where poker_table_id = $1 and player_id = $2 returning stack",
            ))
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
        sqlx::query(&self.sql("delete from rathole where poker_table_id = $1 and player_id = $2"))
            .bind(table.to_string())
            .bind(player.to_string())
            .execute(&mut *tx)
            .await?;
        sqlx::query(&self.sql(
            "insert into rathole (poker_table_id, player_id, stack, left_at, created_at) values ($1, $2, $3, $4, $5)",
        ))
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

    /// [`Store::seats`] on both backends.
    pub(super) async fn seats_impl(&self, table: TableId) -> StoreResult<Vec<SeatRow>> {
        let rows: Vec<SqlSeat> = sqlx::query_as(&self.sql(
            "select seat_no, player_id, stack, sitting_out from seat where poker_table_id = $1 order by seat_no",
        ))
        .bind(table.to_string())
        .fetch_all(&self.pool)
        .await?;
        convert(rows)
    }

    /// [`Store::tables_of`] on both backends.
    pub(super) async fn tables_of_impl(&self, player: PlayerId) -> StoreResult<Vec<TableId>> {
        let rows =
            sqlx::query_scalar(&self.sql(
                "select poker_table_id from seat where player_id = $1 order by poker_table_id",
            ))
            .bind(player.to_string())
            .fetch_all(&self.read)
            .await?;
        table_ids(rows)
    }

    /// [`Store::rathole`] on both backends.
    pub(super) async fn rathole_impl(
        &self,
        table: TableId,
        player: PlayerId,
    ) -> StoreResult<Option<RatholeRow>> {
        let row: Option<SqlRathole> = sqlx::query_as(&self.sql(
            "select stack, left_at from rathole where poker_table_id = $1 and player_id = $2",
        ))
        .bind(table.to_string())
        .bind(player.to_string())
        .fetch_optional(&self.read)
        .await?;
        row.map(RatholeRow::try_from).transpose()
    }

    /// [`Store::save_table_writes`] on both backends.
    pub(super) async fn save_table_writes_impl(&self, writes: &[TableWrite]) -> StoreResult<()> {
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

    /// [`Store::missed_blinds`] on both backends.
    pub(super) async fn missed_blinds_impl(
        &self,
        table: TableId,
        player: PlayerId,
    ) -> StoreResult<(bool, bool)> {
        let row: Option<(i64, i64)> = sqlx::query_as(&self.sql("select owes_small, owes_big from missed_blind where poker_table_id = $1 and player_id = $2"))
            .bind(table.to_string())
            .bind(player.to_string())
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map_or((false, false), |(small, big)| (small != 0, big != 0)))
    }
}
