//! Money: deposits, buy-ins, top-ups and cash-outs with their ledger rows, the wallet
//! never negative, idempotency keys, and the bound on the money in the room.

use super::*;

pub(crate) async fn deposits_buy_ins_top_ups_and_cash_outs_move_money_with_ledger_records(
    store: &SqlStore,
) {
    let alice = player(store, "alice", 1000).await;
    let table = store.create_table("t1", "{}").await.unwrap();
    store
        .set_table_config(table, r#"{"chat":{"enabled":false}}"#)
        .await
        .unwrap();
    let row = store.tables().await.unwrap();
    let row = row.iter().find(|t| t.table_id == table).unwrap();
    assert_eq!(row.config, r#"{"chat":{"enabled":false}}"#);
    assert!(matches!(
        store.set_table_config(TableId::new(), "{}").await,
        Err(StoreError::NotFound("table"))
    ));
    store
        .buy_in(table, 3, alice, 400, None, None)
        .await
        .unwrap();
    assert_eq!(store.balance(alice).await.unwrap(), 600);
    assert_eq!(
        store.top_up(table, alice, 100, None, None).await.unwrap(),
        500
    );
    assert_eq!(store.balance(alice).await.unwrap(), 500);
    let seats = store.seats(table).await.unwrap();
    assert_eq!(
        (seats[0].seat_no, seats[0].player_id, seats[0].stack),
        (3, alice, 500)
    );
    assert_eq!(store.tables_of(alice).await.unwrap(), vec![table]);
    // A WebSocket's sign-in reads the tables where she sits with her session, in the
    // order of their ids, with a second seat.
    store
        .create_session("alice-hash", alice, now_ms() + 60_000)
        .await
        .unwrap();
    let other = store.create_table("t-other", "{}").await.unwrap();
    store
        .buy_in(other, 0, alice, 100, None, None)
        .await
        .unwrap();
    let mut both = vec![table, other];
    both.sort_by_key(|t| t.to_string());
    assert_eq!(store.tables_of(alice).await.unwrap(), both);
    let signed = store.sign_in("alice-hash").await.unwrap().unwrap();
    assert_eq!((signed.player.player_id, signed.tables), (alice, both));
    store.cash_out(other, alice, 41, None).await.unwrap();
    assert_eq!(
        store.sign_in("alice-hash").await.unwrap().unwrap().tables,
        vec![table]
    );
    audit_holds(store).await;
    assert_eq!(store.cash_out(table, alice, 42, None).await.unwrap(), 500);
    let ledger = store.table_ledger(table).await.unwrap();
    assert_eq!(ledger.lines.len(), 1);
    let line = &ledger.lines[0];
    assert_eq!(
        (
            line.player_id,
            line.name.as_str(),
            line.bought_in,
            line.cashed_out,
            line.stack
        ),
        (alice, "alice", 500, 500, 0)
    );
    assert_eq!((line.net(), ledger.rake), (0, 0));
    assert_eq!(store.balance(alice).await.unwrap(), 1000);
    assert!(store.seats(table).await.unwrap().is_empty());
    assert!(store.tables_of(alice).await.unwrap().is_empty());
    assert_eq!(store.withdraw(alice, 300, None).await.unwrap(), 700);
    let ledger = store.ledger(alice, 100).await.unwrap();
    let kinds: Vec<&str> = ledger.iter().map(|e| e.kind.as_str()).collect();
    for kind in ["deposit", "buy_in", "top_up", "cash_out", "withdrawal"] {
        assert!(kinds.contains(&kind), "{kind} recorded: {kinds:?}");
    }
    assert_eq!(
        rathole(store, table, alice)
            .await
            .map(|r| (r.stack, r.left_at)),
        Some((500, 42))
    );
    // A table's actor reads the departures of its window at once: those at or after the
    // time asked, none before.
    assert_eq!(
        store.ratholes_since(table, 42).await.unwrap(),
        vec![(
            alice,
            poker_store::RatholeRow {
                stack: 500,
                left_at: 42
            }
        )]
    );
    assert!(store.ratholes_since(table, 43).await.unwrap().is_empty());
    let player = store.player_by_name("alice").await.unwrap();
    assert!(verify_password("secret", &player.password_hash));
    assert!(!verify_password("wrong", &player.password_hash));
    audit_holds(store).await;
}

pub(crate) async fn the_wallet_never_goes_negative_under_concurrent_requests(store: &SqlStore) {
    let bob = player(store, "bob", 100).await;
    let table = store.create_table("t2", "{}").await.unwrap();
    let mut tasks = Vec::new();
    for i in 0..20u32 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            if i % 2 == 0 {
                store.withdraw(bob, 10, None).await.map(|_| ())
            } else {
                store.top_up(table, bob, 10, None, None).await.map(|_| ())
            }
        }));
    }
    // Ten withdrawals can succeed; top-ups fail (not seated) without moving money.
    let mut ok = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(()) => ok += 1,
            Err(StoreError::InsufficientFunds { .. } | StoreError::NotSeated) => {}
            Err(e) => panic!("unexpected error {e}"),
        }
    }
    assert_eq!(ok, 10);
    assert_eq!(store.balance(bob).await.unwrap(), 0);
    // Now many concurrent buy-ins for more than the wallet holds.
    store.deposit(bob, 100, None).await.unwrap();
    let mut tasks = Vec::new();
    for seat in 0..8u32 {
        let store = store.clone();
        let table = store
            .create_table(&format!("race{seat}"), "{}")
            .await
            .unwrap();
        tasks.push(tokio::spawn(async move {
            store.buy_in(table, 0, bob, 30, None, None).await
        }));
    }
    let mut bought = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(()) => bought += 1,
            Err(StoreError::InsufficientFunds { .. }) => {}
            Err(e) => panic!("unexpected error {e}"),
        }
    }
    assert_eq!(bought, 3, "100 buys three seats of 30");
    assert_eq!(store.balance(bob).await.unwrap(), 10);
    audit_holds(store).await;
}

pub(crate) async fn retried_operations_with_an_idempotency_key_apply_once(store: &SqlStore) {
    let carol = player(store, "carol", 0).await;
    let table = store.create_table("t3", "{}").await.unwrap();
    assert_eq!(store.deposit(carol, 500, Some("dep-1")).await.unwrap(), 500);
    assert_eq!(
        store.deposit(carol, 500, Some("dep-1")).await.unwrap(),
        500,
        "the retry gets the first answer"
    );
    assert_eq!(store.balance(carol).await.unwrap(), 500);
    store
        .buy_in(table, 1, carol, 200, Some("buy-1"), None)
        .await
        .unwrap();
    store
        .buy_in(table, 1, carol, 200, Some("buy-1"), None)
        .await
        .unwrap();
    assert_eq!(store.balance(carol).await.unwrap(), 300);
    // Concurrent retries of one withdrawal.
    let mut tasks = Vec::new();
    for _ in 0..10 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            store.withdraw(carol, 100, Some("wd-1")).await
        }));
    }
    for t in tasks {
        assert_eq!(t.await.unwrap().unwrap(), 200);
    }
    assert_eq!(store.balance(carol).await.unwrap(), 200);
    audit_holds(store).await;
}

pub(crate) async fn an_idempotency_key_names_one_request_of_its_player_whatever_its_kind(
    store: &SqlStore,
    url: &str,
) {
    let (a, b) = (
        player(store, "kurt", 0).await,
        player(store, "lena", 0).await,
    );
    let conflict = |r: Result<Chips, StoreError>| matches!(r, Err(StoreError::IdempotencyConflict));
    assert_eq!(store.deposit(a, 100, Some("k1")).await.unwrap(), 100);
    assert_eq!(store.deposit(a, 100, Some("k1")).await.unwrap(), 100);
    assert!(conflict(store.deposit(a, 5000, Some("k1")).await));
    // A deposit's key on another kind of money move: refused like a changed amount, and
    // nothing applied.
    assert!(conflict(store.withdraw(a, 50, Some("k1")).await));
    assert!(conflict(store.withdraw(a, 100, Some("k1")).await));
    assert!(conflict(
        store.credit(a, 100, Credit::Grant, Some("k1")).await
    ));
    assert!(conflict(
        store.credit(a, 100, Credit::Reload, Some("k1")).await
    ));
    assert_eq!(store.balance(a).await.unwrap(), 100);
    // A grant's key on a cashier's deposit or a reload, a reload's on a grant.
    let grant = format!("grant:{a}");
    assert_eq!(
        store
            .credit(a, 10, Credit::Grant, Some(&grant))
            .await
            .unwrap(),
        110
    );
    assert!(conflict(store.deposit(a, 10, Some(&grant)).await));
    assert!(conflict(
        store.credit(a, 10, Credit::Reload, Some(&grant)).await
    ));
    assert_eq!(
        store
            .credit(a, 10, Credit::Grant, Some(&grant))
            .await
            .unwrap(),
        110,
        "the grant's retry gets its first answer"
    );
    assert_eq!(
        store
            .credit(a, 5, Credit::Reload, Some("reload:1"))
            .await
            .unwrap(),
        115
    );
    assert!(conflict(
        store.credit(a, 5, Credit::Grant, Some("reload:1")).await
    ));
    assert!(conflict(store.deposit(a, 5, Some("reload:1")).await));
    assert_eq!(store.balance(a).await.unwrap(), 115);
    // Another player: their own keys.
    assert_eq!(store.deposit(b, 100, Some("k1")).await.unwrap(), 100);
    let table = store.create_table("t-keys", "{}").await.unwrap();
    assert!(matches!(
        store.buy_in(table, 0, b, 40, Some("k1"), None).await,
        Err(StoreError::IdempotencyConflict)
    ));
    store
        .buy_in(table, 0, b, 40, Some("k2"), None)
        .await
        .unwrap();
    assert!(matches!(
        store.buy_in(table, 0, b, 60, Some("k2"), None).await,
        Err(StoreError::IdempotencyConflict)
    ));
    assert!(conflict(store.top_up(table, b, 40, Some("k2"), None).await));
    assert!(conflict(store.withdraw(b, 40, Some("k2")).await));
    assert_eq!(store.balance(b).await.unwrap(), 60);
    // Keys stored before a key named one request were scoped by kind as well
    // (KIND:PLAYER:KEY): a retry still gets its first answer, another kind is refused.
    let raw = sqlx::AnyPool::connect(url).await.expect("raw pool");
    let dollar = |sql: &str| match store.backend() {
        poker_store::Backend::Postgres => sql.to_string(),
        poker_store::Backend::Sqlite => sql.replace('$', "?"),
    };
    sqlx::query(&dollar(
        "insert into idempotency_key (idempotency_key_id, operation, result, created_at) \
         values ($1, 'deposit 7', '122', 0)",
    ))
    .bind(format!("deposit:{a}:old-1"))
    .execute(&raw)
    .await
    .unwrap();
    raw.close().await;
    assert_eq!(store.deposit(a, 7, Some("old-1")).await.unwrap(), 122);
    assert!(conflict(store.withdraw(a, 7, Some("old-1")).await));
    assert!(conflict(
        store.credit(a, 7, Credit::Grant, Some("old-1")).await
    ));
    assert_eq!(store.balance(a).await.unwrap(), 115);
    // Keys are bounded the same way on both databases.
    for bad in ["", "a\0b", "line\nbreak"] {
        assert!(matches!(
            store.deposit(a, 1, Some(bad)).await,
            Err(StoreError::Invalid(_))
        ));
    }
    let long = "k".repeat(2700);
    assert!(matches!(
        store.deposit(a, 1, Some(&long)).await,
        Err(StoreError::Invalid(_))
    ));
    assert_eq!(
        store.deposit(a, 1, Some(&"é".repeat(128))).await.unwrap(),
        116
    );
    audit_holds(store).await;
}

pub(crate) async fn no_deposit_lets_the_money_in_the_room_pass_its_bound(store: &SqlStore) {
    let a = player(store, "mona", 0).await;
    // Some money in the room already (this scenario has a database of its own).
    player(store, "nell", 1_000).await;
    // Past the bound on its own: an invalid amount; within it but past what the room
    // can still take: the room is full.
    for amount in [u64::MAX, i64::MAX as u64, MAX_MONEY + 1] {
        assert!(
            matches!(
                store.deposit(a, amount, None).await,
                Err(StoreError::Invalid(_))
            ),
            "{amount}"
        );
    }
    assert!(matches!(
        store.deposit(a, MAX_MONEY, None).await,
        Err(StoreError::RoomFull { .. })
    ));
    let held = {
        let audit = store.audit().await.unwrap();
        audit.wallets + audit.stacks + audit.rake
    };
    let room = MAX_MONEY - held as u64;
    assert_eq!(store.deposit(a, room, None).await.unwrap(), room);
    assert!(matches!(
        store.deposit(a, 1, None).await,
        Err(StoreError::RoomFull { .. })
    ));
    assert_eq!(store.withdraw(a, room, None).await.unwrap(), 0);
    audit_holds(store).await;
}

pub(crate) async fn a_hosts_stack_adjustment_moves_chips_with_its_ledger_record_and_shows_in_the_table_ledger(
    store: &SqlStore,
) {
    let ann = player(store, "ann", 1000).await;
    let table = store.create_table("home", "{}").await.unwrap();
    store.buy_in(table, 0, ann, 400, None, None).await.unwrap();
    let host = format!("host:{ann}");
    assert_eq!(
        store
            .adjust_stack(table, ann, 500, &host, None)
            .await
            .unwrap(),
        900
    );
    audit_holds(store).await;
    assert_eq!(
        store
            .adjust_stack(table, ann, -200, &host, None)
            .await
            .unwrap(),
        700
    );
    audit_holds(store).await;
    // Below zero, zero, a seat nobody holds: refused, nothing moves.
    assert!(matches!(
        store.adjust_stack(table, ann, -701, &host, None).await,
        Err(StoreError::InsufficientFunds { balance: 700 })
    ));
    assert!(matches!(
        store.adjust_stack(table, ann, 0, &host, None).await,
        Err(StoreError::Invalid(_))
    ));
    let bob = player(store, "bob", 10).await;
    assert!(matches!(
        store.adjust_stack(table, bob, 5, &host, None).await,
        Err(StoreError::NotSeated)
    ));
    // Past the room's bound.
    assert!(matches!(
        store
            .adjust_stack(table, ann, MAX_MONEY as i64, &host, None)
            .await,
        Err(StoreError::RoomFull { .. })
    ));
    let seats = store.seats(table).await.unwrap();
    assert_eq!(seats[0].stack, 700);
    assert_eq!(store.balance(ann).await.unwrap(), 600);
    let kinds: Vec<String> = store
        .ledger(ann, 100)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.kind)
        .collect();
    assert!(kinds.iter().any(|k| k == "stack_adjust"), "{kinds:?}");
    let ledger = store.table_ledger(table).await.unwrap();
    let line = &ledger.lines[0];
    assert_eq!(
        (line.bought_in, line.adjusted, line.stack, line.net()),
        (400, 300, 700, 0)
    );
    assert_eq!(store.cash_out(table, ann, 1, None).await.unwrap(), 700);
    let ledger = store.table_ledger(table).await.unwrap();
    let line = &ledger.lines[0];
    assert_eq!((line.cashed_out, line.stack, line.net()), (700, 0, 0));
    assert_eq!(store.balance(ann).await.unwrap(), 1300);
    let audit = store.audit().await.unwrap();
    assert!(audit.holds(), "{audit:?}");
    assert_eq!((audit.deposits, audit.withdrawals), (1010 + 500, 200));
}
