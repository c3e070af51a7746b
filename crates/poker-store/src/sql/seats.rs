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
    ///
    /// On PostgreSQL a batch is first tried whole in a few statements for all of it
    /// ([`buy_ins_pg`]); if any of its buy-ins would be refused, or the batch fails, that
    /// transaction is rolled back and the batch goes one by one as above, which gives each
    /// buy-in its own answer.
    pub async fn buy_ins(&self, buy_ins: &[BuyIn]) -> StoreResult<Vec<StoreResult<()>>> {
        if let (Some(pg), true) = (&self.pg, buy_ins.len() > 1) {
            match buy_ins_pg(pg, buy_ins).await {
                Ok(()) => return Ok(buy_ins.iter().map(|_| Ok(())).collect()),
                Err(why) => self.set_path_fell_back(SetPath::BuyIns, &why),
            }
        }
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

    /// What each player who left this table at `since` (unix ms) or later last left it
    /// with: a table's actor reads these once when it starts, and keeps them itself from
    /// then on (its own cash-outs are the only ones while it holds the table).
    pub async fn ratholes_since(
        &self,
        table: TableId,
        since: i64,
    ) -> StoreResult<Vec<(PlayerId, RatholeRow)>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            player_id: String,
            #[sqlx(flatten)]
            rathole: SqlRathole,
        }
        let rows: Vec<Row> = sqlx::query_as(
            "select player_id, stack, left_at from rathole \
             where poker_table_id = $1 and left_at >= $2",
        )
        .bind(table.to_string())
        .bind(since)
        .fetch_all(&self.read)
        .await?;
        rows.into_iter()
            .map(|r| {
                Ok((
                    PlayerId(uuid(&r.player_id)?),
                    RatholeRow::try_from(r.rathole)?,
                ))
            })
            .collect()
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

    /// Writes that move no money, of any tables, in one transaction, each key's in order,
    /// each as [`SqlStore::set_table_state`], [`SqlStore::set_sitting_out`],
    /// [`SqlStore::set_missed_blinds`] and [`SqlStore::record_sit_address`] do; one that
    /// finds nothing to write refuses them all (`NotFound`, `NotSeated`), as does an
    /// address refused (`Invalid`).
    pub async fn save_table_writes(&self, writes: &[TableWrite]) -> StoreResult<()> {
        if writes.is_empty() {
            return Ok(());
        }
        // PostgreSQL: each kind of write in one statement for the whole batch, which a
        // room opening all its tables at once sends by the thousand (the sits' addresses,
        // who sits out, the tables' states). If that fails, one by one, which says why.
        if let (Some(pg), true) = (&self.pg, writes.len() > 1) {
            match table_writes_pg(pg, writes).await {
                Ok(()) => return Ok(()),
                Err(why) => self.set_path_fell_back(SetPath::TableWrites, &why),
            }
        }
        // In the order of their rows (stable: a key's writes keep their order), so that
        // two batches at once take their row locks in the same order, as the set path
        // does: one by one in arrival order, sits of the same players at two tables
        // could wait for each other.
        let mut ordered: Vec<&TableWrite> = writes.iter().collect();
        ordered.sort_by_key(|w| write_key(w));
        let mut tx = self.begin().await?;
        for write in ordered {
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

/// A batch of buy-ins on PostgreSQL, all or none, in one transaction of a statement per
/// step for the whole batch, each step as [`SqlStore::buy_in`] does it for one: the
/// tables' leases share-locked in table order and each fence checked, the seats inserted,
/// the wallets locked in player order (the order of the one-by-one path, so two batches
/// at once never wait on each other's rows crosswise) and each player's buy-ins of the
/// batch checked against the balance together, the wallets debited, and each buy-in's
/// two ledger rows (wallet and seat, one movement) written in player order. Any buy-in that
/// would be refused (an amount out of bounds, a stale fence, a player unknown or too
/// poor, a seat taken, a player seated there already) fails the batch and writes
/// nothing: [`SqlStore::buy_ins`] then writes it one by one, which answers each.
async fn buy_ins_pg(pool: &sqlx::PgPool, buy_ins: &[BuyIn]) -> StoreResult<()> {
    use std::collections::BTreeMap;
    let mut order: Vec<&BuyIn> = buy_ins.iter().collect();
    order.sort_by_key(|b| b.player);
    let mut amounts = Vec::with_capacity(order.len());
    // Each player's buy-ins of the batch together, against one balance.
    let mut totals: BTreeMap<String, i64> = BTreeMap::new();
    // Each fenced table's token (two buy-ins naming two tokens: one of them is stale).
    let mut fences: BTreeMap<String, i64> = BTreeMap::new();
    for b in &order {
        let amount = positive(b.amount)?;
        amounts.push(amount);
        let total = totals.entry(b.player.to_string()).or_insert(0);
        *total = total
            .checked_add(amount)
            .ok_or_else(|| StoreError::Invalid("a batch's buy-ins overflow".into()))?;
        if let Some(token) = b.fence {
            let token = i64::try_from(token).map_err(|_| StoreError::Fenced {
                table: b.table,
                token,
            })?;
            if *fences.entry(b.table.to_string()).or_insert(token) != token {
                return Err(StoreError::Fenced {
                    table: b.table,
                    token: token as u64,
                });
            }
        }
    }
    let mut tx = set_transaction(pool).await?;
    let written: StoreResult<()> = async {
        if !fences.is_empty() {
            let tables: Vec<&str> = fences.keys().map(String::as_str).collect();
            let leases: BTreeMap<String, i64> = sqlx::query_as::<_, (String, i64)>(
                "select poker_table_id, token from table_lease where poker_table_id = any($1) \
                 order by poker_table_id for share",
            )
            .bind(&tables)
            .fetch_all(&mut *tx)
            .await?
            .into_iter()
            .collect();
            for b in &order {
                if let Some(token) = b.fence {
                    if leases.get(&b.table.to_string()) != i64::try_from(token).ok().as_ref() {
                        return Err(StoreError::Fenced {
                            table: b.table,
                            token,
                        });
                    }
                }
            }
        }
        let tables: Vec<String> = order.iter().map(|b| b.table.to_string()).collect();
        let seat_nos: Vec<i64> = order.iter().map(|b| i64::from(b.seat_no)).collect();
        let seated: Vec<String> = order.iter().map(|b| b.player.to_string()).collect();
        let now = now_ms();
        // The seats before the wallets: a seat row another transaction holds (a cash-out
        // deleting it) is waited for before this one holds any wallet that one may need. A
        // seat taken or a player seated there already breaks a unique key: the statement
        // fails, and the batch with it.
        let seated_rows = sqlx::query(
            "insert into seat (poker_table_id, seat_no, player_id, stack, created_at) \
             select t, s, p, a, $5 from unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[]) \
             as v (t, s, p, a)",
        )
        .bind(&tables)
        .bind(&seat_nos)
        .bind(&seated)
        .bind(&amounts)
        .bind(now)
        .execute(&mut *tx)
        .await;
        if let Err(e) = seated_rows {
            return Err(if unique_violation(&e) {
                StoreError::SeatTaken
            } else {
                e.into()
            });
        }
        let players: Vec<&str> = totals.keys().map(String::as_str).collect();
        let balances: BTreeMap<String, i64> = sqlx::query_as::<_, (String, i64)>(
            "select player_id, balance from wallet where player_id = any($1) \
             order by player_id for update",
        )
        .bind(&players)
        .fetch_all(&mut *tx)
        .await?
        .into_iter()
        .collect();
        for (player, total) in &totals {
            match balances.get(player) {
                None => return Err(StoreError::NotFound("player")),
                Some(&balance) if balance < *total => {
                    return Err(StoreError::InsufficientFunds {
                        balance: balance as Chips,
                    })
                }
                Some(_) => {}
            }
        }
        let debits: Vec<i64> = totals.values().copied().collect();
        let debited = sqlx::query(
            "update wallet set balance = wallet.balance - v.a \
             from unnest($1::text[], $2::bigint[]) as v (p, a) where wallet.player_id = v.p",
        )
        .bind(&players)
        .bind(&debits)
        .execute(&mut *tx)
        .await?;
        if debited.rows_affected() != players.len() as u64 {
            return Err(StoreError::NotFound("player"));
        }
        let mut movements = Vec::with_capacity(2 * order.len());
        let mut accounts = Vec::with_capacity(2 * order.len());
        let mut entry_players = Vec::with_capacity(2 * order.len());
        let mut entry_tables = Vec::with_capacity(2 * order.len());
        let mut entry_amounts = Vec::with_capacity(2 * order.len());
        for (b, &amount) in order.iter().zip(&amounts) {
            let movement = Uuid::new_v4().to_string();
            for (account, amount) in [
                (wallet_account(b.player), -amount),
                (seat_account(b.table, b.player), amount),
            ] {
                movements.push(movement.clone());
                accounts.push(account);
                entry_players.push(b.player.to_string());
                entry_tables.push(b.table.to_string());
                entry_amounts.push(amount);
            }
        }
        sqlx::query(
            "insert into ledger_entry (movement_id, account, player_id, poker_table_id, kind, \
             amount, reference, created_at) \
             select m, c, p, t, 'buy_in', a, null, $6 \
             from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[]) \
             with ordinality as v (m, c, p, t, a, n) order by n",
        )
        .bind(&movements)
        .bind(&accounts)
        .bind(&entry_players)
        .bind(&entry_tables)
        .bind(&entry_amounts)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        Ok(())
    }
    .await;
    finish_set(tx, written).await
}

/// A set-based path's transaction on PostgreSQL. It waits at most a second for any row
/// lock: a batch stuck behind another transaction gives up, freeing its connection (the
/// native pool's few serve the hands' commits and the leases' renewals too), and is
/// written one by one on the general pool.
async fn set_transaction(
    pool: &sqlx::PgPool,
) -> StoreResult<sqlx::Transaction<'static, sqlx::Postgres>> {
    let mut tx = pool.begin().await?;
    sqlx::query("set local lock_timeout = '1s'")
        .execute(&mut *tx)
        .await?;
    Ok(tx)
}

/// Ends a set-based path's transaction: committed when its writes succeeded, else rolled
/// back before the answer, so that the one-by-one path after it never waits for this
/// transaction's locks to go with its connection's return to the pool.
async fn finish_set(
    tx: sqlx::Transaction<'static, sqlx::Postgres>,
    written: StoreResult<()>,
) -> StoreResult<()> {
    match written {
        Ok(()) => {
            tx.commit().await?;
            Ok(())
        }
        Err(why) => {
            // A rollback that fails leaves the connection closed, which ends the
            // transaction on the server too.
            let _ = tx.rollback().await;
            Err(why)
        }
    }
}

/// Where a write's row is, for the order of [`SqlStore::save_table_writes`]: its kind,
/// then its table and player (a sit's: its player, whose address row it also writes).
fn write_key(write: &TableWrite) -> (u8, String, String) {
    match write {
        TableWrite::State { table, .. } => (0, table.to_string(), String::new()),
        TableWrite::SittingOut { table, player, .. } => (1, table.to_string(), player.to_string()),
        TableWrite::MissedBlinds { table, player, .. } => {
            (2, table.to_string(), player.to_string())
        }
        TableWrite::SitAddress { table, player, .. } => (3, player.to_string(), table.to_string()),
    }
}

/// The writes of a batch that moves no money, on PostgreSQL in one transaction of one
/// statement per kind: each key's last write of a kind stands, as one by one. An error
/// (a table unknown, a player no longer seated, an address refused) rolls it all back:
/// [`SqlStore::save_table_writes`] then writes them one by one, which says which.
async fn table_writes_pg(pool: &sqlx::PgPool, writes: &[TableWrite]) -> StoreResult<()> {
    use std::collections::BTreeMap;
    // Keys in order (BTreeMap): every batch takes its rows' locks in the same order.
    let mut states: BTreeMap<String, &str> = BTreeMap::new();
    let mut outs: BTreeMap<(String, String), i64> = BTreeMap::new();
    let mut blinds: BTreeMap<(String, String), (i64, i64)> = BTreeMap::new();
    let mut seat_addresses: BTreeMap<(String, String), (&str, i64)> = BTreeMap::new();
    // A player's address: the batch's first and last sit from it, and how many.
    let mut player_addresses: BTreeMap<(String, &str), (i64, i64, i64)> = BTreeMap::new();
    // Each flag: id, table, player, other player, address, when.
    let mut flags: Vec<(String, String, String, String, &str, i64)> = Vec::new();
    for write in writes {
        match write {
            TableWrite::State { table, state } => {
                states.insert(table.to_string(), state);
            }
            TableWrite::SittingOut { table, player, out } => {
                outs.insert((table.to_string(), player.to_string()), i64::from(*out));
            }
            TableWrite::MissedBlinds {
                table,
                player,
                small,
                big,
            } => {
                let owed = (i64::from(*small), i64::from(*big));
                blinds.insert((table.to_string(), player.to_string()), owed);
            }
            TableWrite::SitAddress {
                table,
                player,
                address,
                at,
                flagged_with,
            } => {
                let address = super::fairplay::check_address(address)?;
                seat_addresses.insert((table.to_string(), player.to_string()), (address, *at));
                let seen = player_addresses
                    .entry((player.to_string(), address))
                    .or_insert((*at, *at, 0));
                *seen = (seen.0.min(*at), seen.1.max(*at), seen.2 + 1);
                for other in flagged_with {
                    flags.push((
                        Uuid::new_v4().to_string(),
                        table.to_string(),
                        player.to_string(),
                        other.to_string(),
                        address,
                        *at,
                    ));
                }
            }
        }
    }
    let now = now_ms();
    let mut tx = set_transaction(pool).await?;
    let written: StoreResult<()> = async {
        if !states.is_empty() {
            let t: Vec<&str> = states.keys().map(String::as_str).collect();
            let v: Vec<&str> = states.values().copied().collect();
            let done = sqlx::query(
                "update poker_table set state = v.s from unnest($1::text[], $2::text[]) as v (t, s) \
                 where poker_table_id = v.t",
            )
            .bind(&t)
            .bind(&v)
            .execute(&mut *tx)
            .await?;
            if done.rows_affected() != t.len() as u64 {
                return Err(StoreError::NotFound("table"));
            }
        }
        if !outs.is_empty() {
            let t: Vec<&str> = outs.keys().map(|k| k.0.as_str()).collect();
            let p: Vec<&str> = outs.keys().map(|k| k.1.as_str()).collect();
            let o: Vec<i64> = outs.values().copied().collect();
            let done = sqlx::query(
                "update seat set sitting_out = v.o \
                 from unnest($1::text[], $2::text[], $3::bigint[]) as v (t, p, o) \
                 where seat.poker_table_id = v.t and seat.player_id = v.p",
            )
            .bind(&t)
            .bind(&p)
            .bind(&o)
            .execute(&mut *tx)
            .await?;
            if done.rows_affected() != t.len() as u64 {
                return Err(StoreError::NotSeated);
            }
        }
        if !blinds.is_empty() {
            let t: Vec<&str> = blinds.keys().map(|k| k.0.as_str()).collect();
            let p: Vec<&str> = blinds.keys().map(|k| k.1.as_str()).collect();
            sqlx::query(
                "delete from missed_blind m using unnest($1::text[], $2::text[]) as v (t, p) \
                 where m.poker_table_id = v.t and m.player_id = v.p",
            )
            .bind(&t)
            .bind(&p)
            .execute(&mut *tx)
            .await?;
            let owing = || {
                blinds
                    .iter()
                    .filter(|(_, (small, big))| *small != 0 || *big != 0)
            };
            if owing().next().is_some() {
                let t: Vec<&str> = owing().map(|(k, _)| k.0.as_str()).collect();
                let p: Vec<&str> = owing().map(|(k, _)| k.1.as_str()).collect();
                let small: Vec<i64> = owing().map(|(_, o)| o.0).collect();
                let big: Vec<i64> = owing().map(|(_, o)| o.1).collect();
                sqlx::query(
                    "insert into missed_blind (poker_table_id, player_id, owes_small, owes_big, \
                     created_at) select v.t, v.p, v.s, v.b, $5 \
                     from unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[]) as v (t, p, s, b)",
                )
                .bind(&t)
                .bind(&p)
                .bind(&small)
                .bind(&big)
                .bind(now)
                .execute(&mut *tx)
                .await?;
            }
        }
        if !seat_addresses.is_empty() {
            let t: Vec<&str> = seat_addresses.keys().map(|k| k.0.as_str()).collect();
            let p: Vec<&str> = seat_addresses.keys().map(|k| k.1.as_str()).collect();
            let a: Vec<&str> = seat_addresses.values().map(|v| v.0).collect();
            let at: Vec<i64> = seat_addresses.values().map(|v| v.1).collect();
            sqlx::query(
                "insert into seat_address (poker_table_id, player_id, address, at, created_at) \
                 select v.t, v.p, v.a, v.at, $5 \
                 from unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) as v (t, p, a, at) \
                 on conflict (poker_table_id, player_id) do update \
                 set address = excluded.address, at = excluded.at",
            )
            .bind(&t)
            .bind(&p)
            .bind(&a)
            .bind(&at)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            let p: Vec<&str> = player_addresses.keys().map(|k| k.0.as_str()).collect();
            let a: Vec<&str> = player_addresses.keys().map(|k| k.1).collect();
            let first: Vec<i64> = player_addresses.values().map(|v| v.0).collect();
            let last: Vec<i64> = player_addresses.values().map(|v| v.1).collect();
            let sits: Vec<i64> = player_addresses.values().map(|v| v.2).collect();
            sqlx::query(
                "insert into player_address (player_id, address, first_at, last_at, sits, created_at) \
                 select v.p, v.a, v.f, v.l, v.n, $6 \
                 from unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[]) \
                 as v (p, a, f, l, n) \
                 on conflict (player_id, address) do update \
                 set first_at = least(player_address.first_at, excluded.first_at), \
                 last_at = greatest(player_address.last_at, excluded.last_at), \
                 sits = player_address.sits + excluded.sits",
            )
            .bind(&p)
            .bind(&a)
            .bind(&first)
            .bind(&last)
            .bind(&sits)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        if !flags.is_empty() {
            let id: Vec<&str> = flags.iter().map(|f| f.0.as_str()).collect();
            let t: Vec<&str> = flags.iter().map(|f| f.1.as_str()).collect();
            let p: Vec<&str> = flags.iter().map(|f| f.2.as_str()).collect();
            let o: Vec<&str> = flags.iter().map(|f| f.3.as_str()).collect();
            let a: Vec<&str> = flags.iter().map(|f| f.4).collect();
            let at: Vec<i64> = flags.iter().map(|f| f.5).collect();
            sqlx::query(
                "insert into address_flag (address_flag_id, poker_table_id, player_id, \
                 other_player_id, address, at, created_at) \
                 select v.i, v.t, v.p, v.o, v.a, v.at, $7 \
                 from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], \
                 $6::bigint[]) as v (i, t, p, o, a, at)",
            )
            .bind(&id)
            .bind(&t)
            .bind(&p)
            .bind(&o)
            .bind(&a)
            .bind(&at)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        Ok(())
    }
    .await;
    finish_set(tx, written).await
}
