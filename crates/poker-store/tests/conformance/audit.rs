//! The audit's checkpoint: the default audit reads the ledger after the last checkpoint and
//! agrees with the full audit; a checkpoint never skips a movement committed after it; a
//! ledger row changed by hand under the checkpoint is seen by the full audit.

use super::*;
use poker_store::Audit;

/// Runs `sql` on a connection of its own (`$N` parameters on both backends).
fn dollar(store: &SqlStore, sql: &str) -> String {
    match store.backend() {
        Backend::Postgres => sql.to_string(),
        Backend::Sqlite => sql.replace('$', "?"),
    }
}

/// The stored checkpoint's ledger row id (0: none).
async fn checkpoint(store: &SqlStore, url: &str) -> i64 {
    let raw = sqlx::AnyPool::connect(url).await.expect("raw pool");
    let id: Option<i64> = sqlx::query_scalar(
        "select ledger_entry_id from audit_checkpoint where audit_checkpoint_id = 1",
    )
    .fetch_optional(&raw)
    .await
    .unwrap();
    raw.close().await;
    let _ = store;
    id.unwrap_or(0)
}

/// Adds `amount` to `player`'s wallet in `tx`, as a deposit does.
async fn credit_by_hand(
    store: &SqlStore,
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    player: PlayerId,
    amount: i64,
) {
    sqlx::query(&dollar(
        store,
        "update wallet set balance = balance + $1 where player_id = $2",
    ))
    .bind(amount)
    .bind(player.to_string())
    .execute(&mut **tx)
    .await
    .unwrap();
}

/// Writes a deposit's ledger movement (`movement`) in `tx`.
async fn ledger_by_hand(
    store: &SqlStore,
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    movement: &str,
    player: PlayerId,
    amount: i64,
) {
    ledger_row_by_hand(store, tx, movement, "external", player, -amount).await;
    let wallet = format!("wallet:{player}");
    ledger_row_by_hand(store, tx, movement, &wallet, player, amount).await;
}

/// Writes one ledger row of a deposit's movement in `tx`; returns its id.
async fn ledger_row_by_hand(
    store: &SqlStore,
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    movement: &str,
    account: &str,
    player: PlayerId,
    amount: i64,
) -> i64 {
    sqlx::query_scalar(&dollar(
        store,
        "insert into ledger_entry (movement_id, account, player_id, kind, amount, created_at) \
         values ($1, $2, $3, 'deposit', $4, 0) returning cast(ledger_entry_id as bigint)",
    ))
    .bind(movement)
    .bind(account)
    .bind(player.to_string())
    .bind(amount)
    .fetch_one(&mut **tx)
    .await
    .unwrap()
}

/// The default audit holds and says what the full one says.
async fn audits_agree(store: &SqlStore) -> Audit {
    let audit = store.audit().await.expect("audit");
    assert!(audit.holds(), "the ledger invariant broke: {audit:?}");
    let full = store.audit_full().await.expect("full audit");
    assert_eq!(audit, full, "the checkpointed audit and the full one agree");
    audit
}

/// Plays `n` hands from `first` at `table` between `a` (seat 0) and `b` (seat 1), each
/// moving 10 chips from one to the other and 1 to the rake, starting from `stacks`.
async fn play(
    store: &SqlStore,
    table: TableId,
    (a, b): (PlayerId, PlayerId),
    first: u64,
    n: u64,
    stacks: &mut (Chips, Chips),
) {
    for number in first..first + n {
        let (sa, sb) = *stacks;
        let next = if number % 2 == 0 {
            (sa + 10, sb - 11)
        } else {
            (sa - 11, sb + 10)
        };
        let h = hand(table, number, &[(a, 0, sa, next.0), (b, 1, sb, next.1)], 1);
        store
            .start_hand(h.hand_id, table, number, h.started_at, None)
            .await
            .unwrap();
        assert_eq!(store.commit_hands(&[h]).await.unwrap(), 1);
        *stacks = next;
    }
}

pub(crate) async fn audit_with_a_checkpoint_agrees_with_the_full_audit_as_hands_go_on(
    store: &SqlStore,
    url: &str,
) {
    // No ledger yet: the audit holds over nothing and places no checkpoint.
    audits_agree(store).await;
    let (a, b) = (
        player(store, "ada", 1000).await,
        player(store, "bo", 1000).await,
    );
    let table = store.create_table("audited", "{}").await.unwrap();
    store.buy_in(table, 0, a, 500, None, None).await.unwrap();
    store.buy_in(table, 1, b, 500, None, None).await.unwrap();
    let mut stacks = (500, 500);
    play(store, table, (a, b), 1, 5, &mut stacks).await;
    let first = audits_agree(store).await;
    let at = checkpoint(store, url).await;
    assert!(at > 0, "an audit that held placed a checkpoint");
    // More hands, money in and out, a seat left and taken again: the checkpointed audit
    // reads only what came after and still says what the full one says.
    play(store, table, (a, b), 6, 7, &mut stacks).await;
    store.deposit(a, 300, None).await.unwrap();
    store.withdraw(b, 200, None).await.unwrap();
    store.top_up(table, a, 100, None, None).await.unwrap();
    stacks.0 += 100;
    let second = audits_agree(store).await;
    assert_ne!(first, second);
    assert_eq!(second.deposits, 2300);
    assert_eq!(second.withdrawals, 200);
    let later = checkpoint(store, url).await;
    assert!(later > at, "the checkpoint moved on ({at} then {later})");
    play(store, table, (a, b), 13, 3, &mut stacks).await;
    // Audits at once, while hands commit: each holds, the checkpoints they race to store
    // are each exact, and the next audit agrees with the full one.
    let (one, two, full, ()) =
        tokio::join!(store.audit(), store.audit(), store.audit_full(), async {
            play(store, table, (a, b), 16, 2, &mut stacks).await;
            store.deposit(a, 5, None).await.unwrap();
        });
    for audit in [one.unwrap(), two.unwrap(), full.unwrap()] {
        assert!(audit.holds(), "{audit:?}");
    }
    store.cash_out(table, b, now_ms(), None).await.unwrap();
    // An audit with nothing new reads nothing and says the same.
    let third = audits_agree(store).await;
    assert_eq!(store.audit().await.unwrap(), third);
    assert_eq!(third.stacks, stacks.0 as i64);
}

pub(crate) async fn audit_a_checkpoint_never_skips_a_movement_committed_after_it(
    store: &SqlStore,
    url: &str,
) {
    let (a, b) = (
        player(store, "cy", 1000).await,
        player(store, "di", 1000).await,
    );
    audits_agree(store).await;
    if store.backend() == Backend::Sqlite {
        // One writer: a transaction holding a ledger id keeps every other writer out
        // until it ends, so no id below a visible one can still appear.
        return;
    }
    // Two deposits made by hand. The first transaction takes its xid first (its wallet's
    // update) and its ledger ids last, and commits; the second keeps its ledger ids, below
    // the first's, open. (Rows whose transaction is older than the snapshot's xmin are
    // thus no prefix of the ids: a checkpoint placed by them would skip the second.)
    let raw = sqlx::AnyPool::connect(url).await.expect("raw pool");
    let mut older = raw.begin().await.unwrap();
    credit_by_hand(store, &mut older, b, 70).await;
    let mut open = raw.begin().await.unwrap();
    credit_by_hand(store, &mut open, a, 50).await;
    ledger_by_hand(store, &mut open, "by-hand", a, 50).await;
    ledger_by_hand(store, &mut older, "by-hand-older", b, 70).await;
    older.commit().await.unwrap();
    // The audit while the deposit is open does not see it, holds, and places no
    // checkpoint past its ids (it waits for it, then goes on without moving it).
    let before = checkpoint(store, url).await;
    let audit = store.audit().await.unwrap();
    assert!(audit.holds(), "{audit:?}");
    assert_eq!(audit.deposits, 2070);
    let open_ids: i64 = {
        let visible_to_it: Option<i64> = sqlx::query_scalar(
            "select cast(min(ledger_entry_id) as bigint) from ledger_entry where movement_id = 'by-hand'",
        )
        .fetch_one(&mut *open)
        .await
        .unwrap();
        visible_to_it.unwrap()
    };
    let at = checkpoint(store, url).await;
    assert!(
        at < open_ids,
        "the checkpoint ({at}, {before} before) stays below the open deposit's ids ({open_ids})"
    );
    open.commit().await.unwrap();
    let after = audits_agree(store).await;
    assert_eq!(after.deposits, 2120, "the late deposit is counted");
    assert!(checkpoint(store, url).await > open_ids);

    // An audit that starts while a deposit is open waits for it: committed meanwhile, it
    // is in the audit, never skipped. Its movement's rows take ids on both sides of the
    // last id given when the audit starts (another deposit's between them): the
    // checkpoint goes below the movement, not through it.
    let mut open = raw.begin().await.unwrap();
    credit_by_hand(store, &mut open, b, 5).await;
    let first = ledger_row_by_hand(store, &mut open, "by-hand-2", "external", b, -5).await;
    store.deposit(a, 1, None).await.unwrap();
    let wallet = format!("wallet:{b}");
    let (audit, last) = tokio::join!(store.audit(), async {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let last = ledger_row_by_hand(store, &mut open, "by-hand-2", &wallet, b, 5).await;
        open.commit().await.unwrap();
        last
    });
    let audit = audit.unwrap();
    assert!(audit.holds(), "{audit:?}");
    assert_eq!(
        audit.deposits, 2126,
        "the audit waited for the open deposit"
    );
    let at = checkpoint(store, url).await;
    assert!(
        at < first,
        "the checkpoint ({at}) is below the straddling movement ({first} to {last})"
    );
    let after = audits_agree(store).await;
    assert_eq!(after.deposits, 2126);
    raw.close().await;
}

pub(crate) async fn audit_full_sees_a_ledger_row_changed_under_the_checkpoint(
    store: &SqlStore,
    url: &str,
) {
    let (a, b) = (
        player(store, "eve", 1000).await,
        player(store, "fay", 1000).await,
    );
    let table = store.create_table("tampered", "{}").await.unwrap();
    store.buy_in(table, 0, a, 500, None, None).await.unwrap();
    store.buy_in(table, 1, b, 500, None, None).await.unwrap();
    let mut stacks = (500, 500);
    play(store, table, (a, b), 1, 4, &mut stacks).await;
    audits_agree(store).await;
    let at = checkpoint(store, url).await;
    play(store, table, (a, b), 5, 2, &mut stacks).await;
    // Someone with the database's password moves 5 chips in the first wallet's ledger row,
    // under the checkpoint.
    let raw = sqlx::AnyPool::connect(url).await.expect("raw pool");
    let changed = sqlx::query(&dollar(
        store,
        "update ledger_entry set amount = amount + 5 where ledger_entry_id = \
         (select min(ledger_entry_id) from ledger_entry where account = $1)",
    ))
    .bind(format!("wallet:{a}"))
    .execute(&raw)
    .await
    .unwrap();
    assert_eq!(changed.rows_affected(), 1);
    let row: i64 = sqlx::query_scalar(&dollar(
        store,
        "select min(ledger_entry_id) from ledger_entry where account = $1",
    ))
    .bind(format!("wallet:{a}"))
    .fetch_one(&raw)
    .await
    .unwrap();
    assert!(
        row <= at,
        "the row changed ({row}) is under the checkpoint ({at})"
    );
    // The default audit trusts the checkpoint and cannot see it; the full audit does.
    let audit = store.audit().await.unwrap();
    assert!(audit.holds(), "{audit:?}");
    let full = store.audit_full().await.unwrap();
    assert!(!full.holds(), "the full audit sees the change: {full:?}");
    assert_eq!(full.mismatched_accounts, vec![format!("wallet:{a}")]);
    // A row changed after the checkpoint is seen by both.
    store.deposit(b, 10, None).await.unwrap();
    sqlx::query(&dollar(
        store,
        "update ledger_entry set amount = amount - 3 where ledger_entry_id = \
         (select max(ledger_entry_id) from ledger_entry where account = $1)",
    ))
    .bind(format!("wallet:{b}"))
    .execute(&raw)
    .await
    .unwrap();
    let audit = store.audit().await.unwrap();
    assert!(!audit.holds(), "{audit:?}");
    assert_eq!(audit.mismatched_accounts, vec![format!("wallet:{b}")]);
    assert_eq!(audit.unbalanced_movements, 1);
    // A failing audit writes no checkpoint: the next ones still see the change.
    let stuck = checkpoint(store, url).await;
    assert!(!store.audit().await.unwrap().holds());
    assert!(!store.audit_full().await.unwrap().holds());
    assert_eq!(checkpoint(store, url).await, stuck);
    raw.close().await;
}
