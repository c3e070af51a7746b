//! The audit that checks the books balance (wallets + stacks + rake = deposits -
//! withdrawals, every movement's entries summing to zero, every account's ledger sum equal
//! to its balance), and its checkpoint: where a passing audit left the ledger, so that the
//! next one reads only the ledger rows after it.
//!
//! A checkpoint is a ledger row id `H` with, for every account, the sum of its ledger rows
//! up to `H`, and the deposits and withdrawals up to `H` (tables `audit_checkpoint` and
//! `audit_checkpoint_account`). It is written only by an audit that held, so every movement
//! up to `H` balanced. The default audit ([`SqlStore::audit`]) reads the checkpoint and the
//! ledger rows after it; [`SqlStore::audit_full`] reads the whole ledger and ignores the
//! checkpoint (a ledger row up to `H` changed by hand afterwards is seen by the full audit
//! only). The balances (wallets, seats, the house's rows) are read whole each time: one row
//! an account.
//!
//! # Where a checkpoint may be placed
//!
//! `H` must be an id below which no row can appear after the audit: ids are allocated when
//! a row is inserted, before its transaction commits, so on PostgreSQL a transaction
//! holding a lower id can commit after one with a higher id is visible. The xid order is
//! no guide either (a transaction may take its xid before another and its ledger id after,
//! and an insert takes its id from the sequence before its transaction has an xid when it
//! is the transaction's first write), so the horizon is found from the sequence and the
//! table's locks:
//!
//! - PostgreSQL ([`SqlStore::settled_ledger_id`]): read `L`, the last id the sequence gave
//!   (its cache is 1, the default; with another the checkpoint is not moved). Every id up
//!   to `L` was given to an `insert` into `ledger_entry`, which holds the table's
//!   `RowExclusiveLock` from before it takes the id until its transaction ends. So the
//!   transactions that may still commit a row up to `L` are among the holders of that lock
//!   listed after `L` was read; the audit waits until each of them has ended (its virtual
//!   transaction id is gone from `pg_locks`; a later transaction given the same id would
//!   only make it wait longer) and only then takes its snapshot, in which every row up to
//!   `L` is final (a transaction releases its locks after it is visible as committed or
//!   aborted); `pg_locks` is read every 5 ms meanwhile (each read holds the lock manager's
//!   partitions for the moment of the read). If they do not all end within
//!   [`HOLDERS_WAIT`] (a node frozen mid-commit), the audit runs without moving the
//!   checkpoint. Nothing waits on the audit: it takes no lock a writer needs.
//! - SQLite: one writer at a time and `autoincrement` (an id above every id ever used), so
//!   `L` is the largest id in the audit's snapshot.
//!
//! A movement's rows are inserted by one transaction (a hand's in the commit's `insert
//! ... select`, a wallet's or seat's in [`SqlStore::movement`] within the request's
//! transaction), so they are all visible or none. But their ids need not be consecutive
//! (another transaction's rows may take ids between them), so a movement may straddle `L`;
//! the checkpoint is put at `H`, the largest id up to `L` that no movement straddles: below
//! the first id of every movement that has ids on both sides of `L`. Such a movement has a
//! row up to `L`, so its transaction had ended and committed before the snapshot, which sees
//! all its rows. By induction (the first audit starts from id 0) no movement straddles the
//! previous checkpoint either, so the rows after it hold every row of every movement they
//! touch, and the per-movement check over them is exact.

use super::*;
use std::collections::HashMap;

/// How long an audit waits for the transactions that may still commit a ledger row under
/// the horizon before it gives up moving the checkpoint (PostgreSQL).
const HOLDERS_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Accounts written per statement when a checkpoint is stored (3 parameters each).
const ACCOUNTS_PER_INSERT: usize = 300;

/// The key of the one checkpoint row.
const CHECKPOINT_ROW: i64 = 1;

/// Where a passing audit left the ledger.
#[derive(sqlx::FromRow)]
struct CheckpointRow {
    /// Every ledger row up to this id is summed.
    ledger_entry_id: i64,
    /// Deposits up to it.
    deposits: i64,
    /// Withdrawals up to it.
    withdrawals: i64,
}

/// The totals of the ledger up to a row id: the checkpoint read, or the one to write.
#[derive(Default)]
struct Totals {
    /// Every row up to this id is summed (0: none).
    upto: i64,
    /// Deposits (as [`Audit::deposits`]).
    deposits: i64,
    /// Withdrawals (as [`Audit::withdrawals`]).
    withdrawals: i64,
    /// Each account's sum (`external` left out; an account absent sums to 0).
    accounts: HashMap<String, i64>,
}

/// How a checkpoint is written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Write {
    /// Over the checkpoint the audit started from (0: none), only if it is still the one
    /// stored (another audit may have moved it meanwhile: its is as good), and only the
    /// accounts whose sum changed.
    After(i64),
    /// A full audit's: replaces the checkpoint whatever it is, with every account.
    Replace,
}

/// The balances, one row an account, and their sums.
struct Balances {
    /// Each account's balance, named as in the ledger.
    accounts: HashMap<String, i64>,
    /// Sum of wallets.
    wallets: i64,
    /// Sum of seat stacks.
    stacks: i64,
    /// Sum of the house's rows (the rake).
    rake: i64,
}

/// One account's rows after the checkpoint: all of them, and those up to the new horizon.
type AccountDelta = (String, Option<i64>, Option<i64>);

impl SqlStore {
    /// The money totals and ledger consistency, reading the ledger rows after the last
    /// checkpoint (and writing a new one when the audit holds).
    pub async fn audit(&self) -> StoreResult<Audit> {
        self.audit_from(true).await
    }

    /// The audit over the whole ledger, not trusting the checkpoint: it sees a ledger row
    /// changed by hand under the checkpoint, which [`SqlStore::audit`] cannot. When it
    /// holds, the checkpoint is made again from it.
    pub async fn audit_full(&self) -> StoreResult<Audit> {
        self.audit_from(false).await
    }

    async fn audit_from(&self, from_checkpoint: bool) -> StoreResult<Audit> {
        // PostgreSQL: read before the snapshot, which is taken once every row up to it is
        // final (module comment).
        let settled = match self.backend {
            Backend::Postgres => self.settled_ledger_id().await?,
            Backend::Sqlite => None,
        };
        let mut tx = self.begin().await?;
        // Every query below reads the same snapshot, so hands committed meanwhile cannot
        // make the books look unbalanced (SQLite transactions are serializable already).
        if self.backend == Backend::Postgres {
            sqlx::query("set transaction isolation level repeatable read")
                .execute(&mut *tx)
                .await?;
        }
        let settled = match self.backend {
            Backend::Postgres => settled,
            Backend::Sqlite => Some(
                sqlx::query_scalar::<_, Option<i64>>(
                    "select cast(max(ledger_entry_id) as bigint) from ledger_entry",
                )
                .fetch_one(&mut *tx)
                .await?
                .unwrap_or(0),
            ),
        };
        let base = if from_checkpoint {
            read_checkpoint(&mut tx).await?
        } else {
            Totals::default()
        };
        let from = base.upto;
        // The movements after the checkpoint: those unbalanced, and the first id of those
        // straddling the settled id (the new checkpoint goes below it).
        let limit = settled.unwrap_or(from).max(from);
        let (unbalanced, straddling): (i64, Option<i64>) = sqlx::query_as(
            "select cast(coalesce(sum(case when s <> 0 then 1 else 0 end), 0) as bigint), \
                    cast(min(case when lo <= $2 and hi > $3 then lo end) as bigint) \
             from (select sum(amount) as s, min(ledger_entry_id) as lo, max(ledger_entry_id) as hi \
                   from ledger_entry where ledger_entry_id > $1 group by movement_id) m",
        )
        .bind(from)
        .bind(limit)
        .bind(limit)
        .fetch_one(&mut *tx)
        .await?;
        let upto = match straddling {
            Some(first) => (first - 1).min(limit),
            None => limit,
        }
        .max(from);
        let (deposits, withdrawals, deposits_upto, withdrawals_upto): (i64, i64, i64, i64) =
            sqlx::query_as(
                "select \
                 cast(coalesce(sum(case when account <> 'external' and (kind = 'deposit' \
                      or (kind = 'stack_adjust' and amount > 0)) then amount else 0 end), 0) as bigint), \
                 cast(coalesce(sum(case when account = 'external' and (kind = 'withdrawal' \
                      or (kind = 'stack_adjust' and amount > 0)) then amount else 0 end), 0) as bigint), \
                 cast(coalesce(sum(case when ledger_entry_id <= $2 and account <> 'external' \
                      and (kind = 'deposit' or (kind = 'stack_adjust' and amount > 0)) \
                      then amount else 0 end), 0) as bigint), \
                 cast(coalesce(sum(case when ledger_entry_id <= $3 and account = 'external' \
                      and (kind = 'withdrawal' or (kind = 'stack_adjust' and amount > 0)) \
                      then amount else 0 end), 0) as bigint) \
                 from ledger_entry where ledger_entry_id > $1",
            )
            .bind(from)
            .bind(upto)
            .bind(upto)
            .fetch_one(&mut *tx)
            .await?;
        let delta: Vec<AccountDelta> = sqlx::query_as(
            "select account, cast(sum(amount) as bigint), \
                    cast(sum(case when ledger_entry_id <= $2 then amount else 0 end) as bigint) \
             from ledger_entry where ledger_entry_id > $1 and account <> 'external' \
             group by account",
        )
        .bind(from)
        .bind(upto)
        .fetch_all(&mut *tx)
        .await?;
        let Balances {
            accounts: balances,
            wallets,
            stacks,
            rake,
        } = read_balances(&mut tx).await?;
        tx.commit().await?;

        // Every account's ledger sum (the checkpoint's and the rows after it) equals its
        // balance.
        let mut ledger = base.accounts.clone();
        let mut next = Totals {
            upto,
            deposits: base.deposits + deposits_upto,
            withdrawals: base.withdrawals + withdrawals_upto,
            accounts: HashMap::new(),
        };
        for (account, total, total_upto) in delta {
            let total_upto = total_upto.unwrap_or(0);
            if total_upto != 0 || !from_checkpoint {
                let before = base.accounts.get(&account).copied().unwrap_or(0);
                next.accounts.insert(account.clone(), before + total_upto);
            }
            *ledger.entry(account).or_default() += total.unwrap_or(0);
        }
        let mut mismatched: Vec<String> = ledger
            .iter()
            .filter(|(account, total)| balances.get(*account).copied().unwrap_or(0) != **total)
            .map(|(account, _)| account.clone())
            .chain(
                balances
                    .iter()
                    .filter(|(account, balance)| **balance != 0 && !ledger.contains_key(*account))
                    .map(|(account, _)| account.clone()),
            )
            .collect();
        mismatched.sort();
        let audit = Audit {
            wallets,
            stacks,
            rake,
            deposits: base.deposits + deposits,
            withdrawals: base.withdrawals + withdrawals,
            unbalanced_movements: unbalanced,
            mismatched_accounts: mismatched,
        };
        if audit.holds() {
            if !from_checkpoint && upto > 0 {
                self.write_checkpoint(Write::Replace, next).await?;
            } else if from_checkpoint && upto > from {
                self.write_checkpoint(Write::After(from), next).await?;
            }
        }
        Ok(audit)
    }

    /// PostgreSQL: a ledger row id up to which every row that will ever commit has
    /// committed (or rolled back) by the time this returns, so a snapshot taken after it
    /// sees all of them; `None` when that cannot be known in [`HOLDERS_WAIT`] (module
    /// comment).
    async fn settled_ledger_id(&self) -> StoreResult<Option<i64>> {
        let mut conn = self.pool.acquire().await?;
        let (last, cache): (Option<i64>, i64) = sqlx::query_as(
            "select cast(pg_sequence_last_value(s.seqrelid) as bigint), cast(s.seqcache as bigint) \
             from pg_sequence s \
             where s.seqrelid = cast(pg_get_serial_sequence('ledger_entry', 'ledger_entry_id') as regclass)",
        )
        .fetch_one(&mut *conn)
        .await?;
        if cache != 1 {
            return Ok(None);
        }
        // The transactions that may hold an id up to `last`: listed after it was read.
        let holders = "select virtualtransaction from pg_locks \
                       where locktype = 'relation' and granted and mode = 'RowExclusiveLock' \
                       and database = (select oid from pg_database where datname = current_database()) \
                       and relation = cast('ledger_entry' as regclass) and pid <> pg_backend_pid()";
        let waited: Vec<String> = sqlx::query_scalar(holders).fetch_all(&mut *conn).await?;
        let deadline = std::time::Instant::now() + HOLDERS_WAIT;
        let mut waiting = waited;
        while !waiting.is_empty() {
            if std::time::Instant::now() >= deadline {
                return Ok(None);
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            let now: Vec<String> = sqlx::query_scalar(holders).fetch_all(&mut *conn).await?;
            waiting.retain(|v| now.contains(v));
        }
        Ok(Some(last.unwrap_or(0)))
    }

    /// Stores the checkpoint an audit that held reached (`how`: over the last one, or
    /// replacing it).
    async fn write_checkpoint(&self, how: Write, next: Totals) -> StoreResult<()> {
        let now = now_ms();
        let mut tx = self.begin().await?;
        // The checkpoint row first: it is the lock that orders two audits' writes.
        let written = match how {
            Write::After(after) if after > 0 => sqlx::query(
                "update audit_checkpoint set ledger_entry_id = $1, deposits = $2, \
                 withdrawals = $3, created_at = $4 \
                 where audit_checkpoint_id = $5 and ledger_entry_id = $6",
            )
            .bind(next.upto)
            .bind(next.deposits)
            .bind(next.withdrawals)
            .bind(now)
            .bind(CHECKPOINT_ROW)
            .bind(after)
            .execute(&mut *tx)
            .await?
            .rows_affected(),
            _ => {
                let conflict = if how == Write::Replace {
                    "on conflict (audit_checkpoint_id) do update set \
                     ledger_entry_id = excluded.ledger_entry_id, deposits = excluded.deposits, \
                     withdrawals = excluded.withdrawals, created_at = excluded.created_at"
                } else {
                    "on conflict (audit_checkpoint_id) do nothing"
                };
                sqlx::query(&format!(
                    "insert into audit_checkpoint \
                     (audit_checkpoint_id, ledger_entry_id, deposits, withdrawals, created_at) \
                     values ($1, $2, $3, $4, $5) {conflict}"
                ))
                .bind(CHECKPOINT_ROW)
                .bind(next.upto)
                .bind(next.deposits)
                .bind(next.withdrawals)
                .bind(now)
                .execute(&mut *tx)
                .await?
                .rows_affected()
            }
        };
        if written != 1 {
            // Another audit moved the checkpoint first: its is as good.
            return Ok(());
        }
        if how == Write::Replace {
            sqlx::query("delete from audit_checkpoint_account")
                .execute(&mut *tx)
                .await?;
        }
        let accounts: Vec<(String, i64)> = next.accounts.into_iter().collect();
        for chunk in accounts.chunks(ACCOUNTS_PER_INSERT) {
            let values: Vec<String> = (0..chunk.len())
                .map(|i| format!("(${}, ${}, ${})", 3 * i + 1, 3 * i + 2, 3 * i + 3))
                .collect();
            let sql = format!(
                "insert into audit_checkpoint_account \
                 (audit_checkpoint_account_id, total, created_at) values {} \
                 on conflict (audit_checkpoint_account_id) do update set \
                 total = excluded.total, created_at = excluded.created_at",
                values.join(", ")
            );
            let mut query = sqlx::query(&sql);
            for (account, total) in chunk {
                query = query.bind(account.as_str()).bind(*total).bind(now);
            }
            query.execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

/// The checkpoint, read in the audit's snapshot (none: every total 0 from id 0).
async fn read_checkpoint(tx: &mut Tx) -> StoreResult<Totals> {
    let row: Option<CheckpointRow> = sqlx::query_as(
        "select ledger_entry_id, deposits, withdrawals from audit_checkpoint \
         where audit_checkpoint_id = $1",
    )
    .bind(CHECKPOINT_ROW)
    .fetch_optional(&mut **tx)
    .await?;
    let Some(row) = row else {
        return Ok(Totals::default());
    };
    let accounts: Vec<(String, i64)> =
        sqlx::query_as("select audit_checkpoint_account_id, total from audit_checkpoint_account")
            .fetch_all(&mut **tx)
            .await?;
    Ok(Totals {
        upto: row.ledger_entry_id,
        deposits: row.deposits,
        withdrawals: row.withdrawals,
        accounts: accounts.into_iter().collect(),
    })
}

/// Every account's balance, named as in the ledger: `wallet:<player>`,
/// `seat:<table>:<player>`, `house:rake`.
async fn read_balances(tx: &mut Tx) -> StoreResult<Balances> {
    let mut balances = HashMap::new();
    let (mut wallet_sum, mut stack_sum, mut rake_sum) = (0, 0, 0);
    let wallets: Vec<(String, i64)> = sqlx::query_as("select player_id, balance from wallet")
        .fetch_all(&mut **tx)
        .await?;
    for (p, balance) in wallets {
        wallet_sum += balance;
        balances.insert(format!("wallet:{p}"), balance);
    }
    let seats: Vec<(String, String, i64)> =
        sqlx::query_as("select poker_table_id, player_id, stack from seat")
            .fetch_all(&mut **tx)
            .await?;
    for (t, p, stack) in seats {
        stack_sum += stack;
        balances.insert(format!("seat:{t}:{p}"), stack);
    }
    let house: Vec<(String, i64)> =
        sqlx::query_as("select house_account_id, balance from house_account")
            .fetch_all(&mut **tx)
            .await?;
    // The house's rake is kept in a row per table (`rake:<table>`; `rake` before them), all
    // of them the ledger's one account `house:rake`.
    for (a, balance) in house {
        rake_sum += balance;
        let account = a.split(':').next().unwrap_or(&a);
        *balances.entry(format!("house:{account}")).or_default() += balance;
    }
    Ok(Balances {
        accounts: balances,
        wallets: wallet_sum,
        stacks: stack_sum,
        rake: rake_sum,
    })
}
