//! The store's conformance suite, run against a real PostgreSQL (a throwaway cluster, or
//! `DATABASE_URL`) and a real SQLite file. Every scenario ends with the ledger audit:
//! wallets + table stacks + rake = deposits - withdrawals, every movement balanced, every
//! account's ledger equal to its balance.

use poker_store::testing::{TestPostgres, TestSqlite};
use poker_store::{
    hash_password, now_ms, verify_password, Backend, Chips, CompletedHand, Credit, HandId,
    HandPlayer, HandRecord, HandStart, HandStatus, Lease, Persister, PlayerId, SqlStore, Store,
    StoreError, TableId, TableStatus, TableWrite, MAX_MONEY,
};
use std::sync::Arc;

async fn audit_holds(store: &SqlStore) {
    let audit = store.audit().await.expect("audit");
    assert!(audit.holds(), "the ledger invariant broke: {audit:?}");
}

async fn player(store: &SqlStore, name: &str, deposit: Chips) -> PlayerId {
    let id = store
        .create_player(name, &hash_password("secret"))
        .await
        .expect("player");
    if deposit > 0 {
        store.deposit(id, deposit, None).await.expect("deposit");
    }
    id
}

fn hand(
    table: TableId,
    number: u64,
    players: &[(PlayerId, u32, Chips, Chips)],
    rake: Chips,
) -> CompletedHand {
    CompletedHand {
        hand_id: HandId::new(),
        table_id: table,
        number,
        players: players
            .iter()
            .map(
                |&(player_id, seat_no, starting_stack, finishing_stack)| HandPlayer {
                    player_id,
                    seat_no,
                    starting_stack,
                    finishing_stack,
                },
            )
            .collect(),
        rake,
        phh: format!("variant = 'NT'\n# hand {number}\n"),
        record: HandRecord {
            button: number as usize,
            ..HandRecord::default()
        },
        started_at: 1_000 + number as i64,
        ended_at: 2_000 + number as i64,
        fence: None,
    }
}

async fn deposits_buy_ins_top_ups_and_cash_outs_move_money_with_ledger_records(store: &SqlStore) {
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
    audit_holds(store).await;
    assert_eq!(store.cash_out(table, alice, 42, None).await.unwrap(), 500);
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
        store
            .rathole(table, alice)
            .await
            .unwrap()
            .map(|r| (r.stack, r.left_at)),
        Some((500, 42))
    );
    let player = store.player_by_name("alice").await.unwrap();
    assert!(verify_password("secret", &player.password_hash));
    assert!(!verify_password("wrong", &player.password_hash));
    audit_holds(store).await;
}

async fn the_wallet_never_goes_negative_under_concurrent_requests(store: &SqlStore) {
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

async fn retried_operations_with_an_idempotency_key_apply_once(store: &SqlStore) {
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

async fn an_idempotency_key_names_one_request_of_its_player_whatever_its_kind(
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

async fn a_hands_players_are_named_by_their_ids_alone(store: &SqlStore) {
    let (a, b) = (
        player(store, "Nadia", 0).await,
        player(store, "omar", 0).await,
    );
    let stranger = PlayerId::new();
    let names = store.player_names(&[a, b, a, stranger]).await.unwrap();
    assert_eq!(names.len(), 2, "the unknown id is left out: {names:?}");
    assert_eq!((names[&a].as_str(), names[&b].as_str()), ("Nadia", "omar"));
    assert!(store.player_names(&[]).await.unwrap().is_empty());
    // More ids than one statement binds.
    let mut many: Vec<PlayerId> = (0..1200).map(|_| PlayerId::new()).collect();
    many.push(b);
    let names = store.player_names(&many).await.unwrap();
    assert_eq!(names.len(), 1);
    assert_eq!(names[&b], "omar");
}

async fn no_deposit_lets_the_money_in_the_room_pass_its_bound(store: &SqlStore) {
    let a = player(store, "mona", 0).await;
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

async fn a_committed_hand_changes_stacks_exactly_once(store: &SqlStore) {
    let (d, e) = (
        player(store, "dave", 1000).await,
        player(store, "erin", 1000).await,
    );
    let table = store.create_table("t4", "{}").await.unwrap();
    store.buy_in(table, 0, d, 500, None, None).await.unwrap();
    store.buy_in(table, 1, e, 500, None, None).await.unwrap();
    let h = hand(table, 1, &[(d, 0, 500, 650), (e, 1, 500, 347)], 3);
    store
        .start_hand(h.hand_id, table, 1, h.started_at, None)
        .await
        .unwrap();
    assert_eq!(
        store.commit_hands(std::slice::from_ref(&h)).await.unwrap(),
        1
    );
    assert_eq!(
        store.commit_hands(std::slice::from_ref(&h)).await.unwrap(),
        0,
        "a second commit changes nothing"
    );
    let stacks: Vec<Chips> = store
        .seats(table)
        .await
        .unwrap()
        .iter()
        .map(|s| s.stack)
        .collect();
    assert_eq!(stacks, vec![650, 347]);
    // A start recorded twice, or after the commit (a retried write), changes nothing.
    store
        .start_hand(h.hand_id, table, 1, h.started_at, None)
        .await
        .unwrap();
    let row = store.hand(h.hand_id).await.unwrap();
    assert_eq!((row.status.as_str(), row.rake), ("complete", 3));
    assert!(row.phh.unwrap().contains("variant"));
    let late = hand(table, 2, &[(d, 0, 650, 640), (e, 1, 347, 357)], 0);
    assert_eq!(
        store
            .commit_hands(std::slice::from_ref(&late))
            .await
            .unwrap(),
        1
    );
    store
        .start_hand(late.hand_id, table, 2, late.started_at, None)
        .await
        .unwrap();
    assert_eq!(
        store.hand(late.hand_id).await.unwrap().status.as_str(),
        "complete"
    );
    let back = hand(table, 3, &[(d, 0, 640, 650), (e, 1, 357, 347)], 0);
    store
        .commit_hands(std::slice::from_ref(&back))
        .await
        .unwrap();
    // A hand from stale stacks, or one that creates chips, is refused whole.
    let stale = hand(table, 4, &[(d, 0, 500, 600), (e, 1, 347, 247)], 0);
    assert!(matches!(
        store.commit_hands(&[stale]).await,
        Err(StoreError::StaleHand(_))
    ));
    let minted = hand(table, 5, &[(d, 0, 650, 700), (e, 1, 347, 347)], 0);
    assert!(matches!(
        store.commit_hands(&[minted]).await,
        Err(StoreError::Invalid(_))
    ));
    assert_eq!(
        store
            .seats(table)
            .await
            .unwrap()
            .iter()
            .map(|s| s.stack)
            .collect::<Vec<_>>(),
        vec![650, 347]
    );
    audit_holds(store).await;
}

async fn missed_blinds_and_rathole_records_survive_reconnection(store: &SqlStore, url: &str) {
    let f = player(store, "frank", 1000).await;
    let table = store.create_table("t5", "{}").await.unwrap();
    store.buy_in(table, 2, f, 300, None, None).await.unwrap();
    store.set_missed_blinds(table, f, true, true).await.unwrap();
    assert_eq!(store.table_state(table).await.unwrap(), None);
    store
        .set_table_state(table, r#"{"button":2}"#)
        .await
        .unwrap();
    store.set_sitting_out(table, f, true).await.unwrap();
    let seat = &store.seats(table).await.unwrap()[0];
    assert!(seat.sitting_out, "sitting out is remembered");
    store.set_sitting_out(table, f, false).await.unwrap();
    assert!(!store.seats(table).await.unwrap()[0].sitting_out);
    store.set_sitting_out(table, f, true).await.unwrap();
    store.cash_out(table, f, 77, None).await.unwrap();
    assert!(matches!(
        store.set_sitting_out(table, f, true).await,
        Err(StoreError::NotSeated)
    ));
    let again = SqlStore::connect(url).await.unwrap();
    assert_eq!(again.missed_blinds(table, f).await.unwrap(), (true, true));
    assert_eq!(
        again.table_state(table).await.unwrap().as_deref(),
        Some(r#"{"button":2}"#)
    );
    assert!(matches!(
        again.table_state(TableId::new()).await,
        Err(StoreError::NotFound(_))
    ));
    assert_eq!(
        again.rathole(table, f).await.unwrap().map(|r| r.stack),
        Some(300)
    );
    again
        .set_missed_blinds(table, f, false, false)
        .await
        .unwrap();
    assert_eq!(again.missed_blinds(table, f).await.unwrap(), (false, false));
    again.close().await;
    audit_holds(store).await;
}

async fn crash_recovery_voids_the_unfinished_hand_and_keeps_committed_stacks(
    store: &SqlStore,
    url: &str,
) {
    let (g, h2) = (
        player(store, "gina", 1000).await,
        player(store, "hank", 1000).await,
    );
    let table = store.create_table("t6", "{}").await.unwrap();
    store.buy_in(table, 0, g, 400, None, None).await.unwrap();
    store.buy_in(table, 1, h2, 400, None, None).await.unwrap();
    let first = hand(table, 1, &[(g, 0, 400, 420), (h2, 1, 400, 380)], 0);
    store
        .start_hand(first.hand_id, table, 1, 1, None)
        .await
        .unwrap();
    store
        .commit_hands(std::slice::from_ref(&first))
        .await
        .unwrap();
    // The second hand is dealt, then the server dies before committing it.
    let second = hand(table, 2, &[(g, 0, 420, 0), (h2, 1, 380, 800)], 0);
    store
        .start_hand(second.hand_id, table, 2, 2, None)
        .await
        .unwrap();
    let restarted = SqlStore::connect(url).await.unwrap();
    let voided = restarted.recover().await.unwrap();
    assert!(voided.contains(&second.hand_id));
    assert_eq!(restarted.hand(second.hand_id).await.unwrap().status, "void");
    assert_eq!(
        restarted.hand(first.hand_id).await.unwrap().status,
        "complete"
    );
    let stacks: Vec<Chips> = restarted
        .seats(table)
        .await
        .unwrap()
        .iter()
        .map(|s| s.stack)
        .collect();
    assert_eq!(stacks, vec![420, 380], "the last committed hand's stacks");
    // A void hand can never be committed afterwards.
    assert_eq!(restarted.commit_hands(&[second]).await.unwrap(), 0);
    restarted.close().await;
    audit_holds(store).await;
}

async fn hand_histories_are_queried_by_id_table_and_player_newest_first(store: &SqlStore) {
    let (i, j, k) = (
        player(store, "ivy", 1000).await,
        player(store, "jack", 1000).await,
        player(store, "kim", 1000).await,
    );
    let table = store.create_table("t7", "{}").await.unwrap();
    for (seat, p) in [i, j, k].into_iter().enumerate() {
        store
            .buy_in(table, seat as u32, p, 300, None, None)
            .await
            .unwrap();
    }
    let mut stacks = [300u64, 300, 300];
    let mut ids = Vec::new();
    for n in 1..=6u64 {
        // Ivy and Jack play every hand; Kim only the odd ones.
        let mut players = vec![
            (i, 0, stacks[0], stacks[0] + 2),
            (j, 1, stacks[1], stacks[1] - 2),
        ];
        if n % 2 == 1 {
            players.push((k, 2, stacks[2], stacks[2]));
        }
        let h = hand(table, n, &players, 0);
        store.commit_hands(std::slice::from_ref(&h)).await.unwrap();
        stacks[0] += 2;
        stacks[1] -= 2;
        ids.push(h.hand_id);
    }
    let page1: Vec<HandId> = store
        .table_hands(table, 4, 0)
        .await
        .unwrap()
        .iter()
        .map(|h| h.hand_id)
        .collect();
    let page2: Vec<HandId> = store
        .table_hands(table, 4, 4)
        .await
        .unwrap()
        .iter()
        .map(|h| h.hand_id)
        .collect();
    assert_eq!(page1, vec![ids[5], ids[4], ids[3], ids[2]]);
    assert_eq!(page2, vec![ids[1], ids[0]]);
    let kims: Vec<u64> = store
        .player_hands(k, 10, 0)
        .await
        .unwrap()
        .iter()
        .map(|h| h.number)
        .collect();
    assert_eq!(kims, vec![5, 3, 1]);
    assert_eq!(
        store.hand(ids[2]).await.unwrap().record,
        Some(HandRecord {
            button: 3,
            ..HandRecord::default()
        })
    );
    assert!(matches!(
        store.hand(HandId::new()).await,
        Err(StoreError::NotFound(_))
    ));
    audit_holds(store).await;
}

async fn a_hands_deck_record_reads_back_whole(store: &SqlStore) {
    let (a, b) = (
        player(store, "dora", 1000).await,
        player(store, "eli", 1000).await,
    );
    let table = store.create_table("t-deck", "{}").await.unwrap();
    store.buy_in(table, 0, a, 300, None, None).await.unwrap();
    store.buy_in(table, 1, b, 300, None, None).await.unwrap();
    // A draw hand's deck: cards and salts, seeds, a reshuffle.
    let (deck, _) = (0..)
        .map(|s| {
            poker_fairness::proof::testing::play(poker_rules::Game::DeuceToSevenTripleDraw, 6, s)
        })
        .find(|(d, _)| !d.reshuffles.is_empty())
        .unwrap();
    let mut h = hand(table, 1, &[(a, 0, 300, 300), (b, 1, 300, 300)], 0);
    h.record.deck = Some(deck.clone());
    store.commit_hands(std::slice::from_ref(&h)).await.unwrap();
    let back = store.hand(h.hand_id).await.unwrap().record.unwrap();
    assert_eq!(back.deck, Some(deck));
    audit_holds(store).await;
}

/// Four tables named from `prefix`, two players with 1,000 in their wallets bought in for
/// 500 at each (seats 0 and 1).
async fn heads_up_tables(store: &SqlStore, prefix: &str) -> Vec<(TableId, PlayerId, PlayerId)> {
    let mut tables = Vec::new();
    for t in 0..4 {
        let (a, b) = (
            player(store, &format!("{prefix}{t}a"), 1000).await,
            player(store, &format!("{prefix}{t}b"), 1000).await,
        );
        let table = store
            .create_table(&format!("{prefix}{t}"), "{}")
            .await
            .unwrap();
        store.buy_in(table, 0, a, 500, None, None).await.unwrap();
        store.buy_in(table, 1, b, 500, None, None).await.unwrap();
        tables.push((table, a, b));
    }
    tables
}

async fn the_persister_commits_many_tables_hands_in_batches(store: &SqlStore) {
    let store = Arc::new(store.clone());
    let persister = Persister::spawn(store.clone(), 64);
    let tables = heads_up_tables(&store, "batch").await;
    let mut tasks = Vec::new();
    for (table, a, b) in tables.clone() {
        let persister = persister.clone();
        tasks.push(tokio::spawn(async move {
            let (mut sa, mut sb) = (500u64, 500u64);
            for n in 1..=25u64 {
                let h = hand(table, n, &[(a, 0, sa, sa + 1), (b, 1, sb, sb - 2)], 1);
                persister.commit(h).await.expect("durable");
                sa += 1;
                sb -= 2;
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    for (table, _, _) in tables {
        let stacks: Vec<Chips> = store
            .seats(table)
            .await
            .unwrap()
            .iter()
            .map(|s| s.stack)
            .collect();
        assert_eq!(stacks, vec![525, 450]);
        assert_eq!(store.table_hands(table, 100, 0).await.unwrap().len(), 25);
    }
    assert_eq!(persister.lag(), 0);
    let audit = store.audit().await.unwrap();
    assert!(audit.rake >= 100);
    assert!(audit.holds(), "{audit:?}");
}

/// Hands dealt, writes that move no money and finished hands of many tables go through the
/// persister together; a write that finds nothing fails alone.
async fn the_persister_writes_many_tables_starts_states_and_hands_together(store: &SqlStore) {
    let store = Arc::new(store.clone());
    let persister = Persister::spawn(store.clone(), 64);
    let tables = heads_up_tables(&store, "together").await;
    let stranger = player(&store, "wstranger", 0).await;
    let mut tasks = Vec::new();
    for (table, a, b) in tables.clone() {
        let persister = persister.clone();
        tasks.push(tokio::spawn(async move {
            let (mut sa, mut sb) = (500u64, 500u64);
            for n in 1..=10u64 {
                let h = hand(table, n, &[(a, 0, sa, sa + 2), (b, 1, sb, sb - 2)], 0);
                let start = HandStart {
                    hand: h.hand_id,
                    table,
                    number: n,
                    at: h.started_at,
                    fence: None,
                };
                persister.start(start).await.expect("recorded");
                let started = persister.save(vec![
                    TableWrite::State {
                        table,
                        state: format!(r#"{{"hand":{n}}}"#),
                    },
                    TableWrite::SittingOut {
                        table,
                        player: b,
                        out: n % 2 == 0,
                    },
                    TableWrite::MissedBlinds {
                        table,
                        player: a,
                        small: n % 3 == 0,
                        big: true,
                    },
                ]);
                // A write for somebody not seated here, beside the others: refused alone.
                let bad = persister.save(vec![TableWrite::SittingOut {
                    table,
                    player: stranger,
                    out: true,
                }]);
                let (started, bad) = tokio::join!(started, bad);
                started.expect("saved");
                assert!(matches!(bad, Err(StoreError::NotSeated)), "{bad:?}");
                persister.commit(h).await.expect("durable");
                sa += 2;
                sb -= 2;
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    for (table, a, b) in tables {
        let seats = store.seats(table).await.unwrap();
        let stacks: Vec<Chips> = seats.iter().map(|s| s.stack).collect();
        assert_eq!(stacks, vec![520, 480]);
        assert!(seats[1].sitting_out, "the last write stands (hand 10: out)");
        assert_eq!(
            store.table_state(table).await.unwrap().as_deref(),
            Some(r#"{"hand":10}"#)
        );
        assert_eq!(store.missed_blinds(table, a).await.unwrap(), (false, true));
        assert_eq!(store.missed_blinds(table, b).await.unwrap(), (false, false));
        let hands = store.table_hands(table, 100, 0).await.unwrap();
        assert_eq!(hands.len(), 10);
    }
    assert_eq!(persister.lag(), 0);
    audit_holds(&store).await;
}

async fn bad_requests_are_refused_without_moving_money(store: &SqlStore) {
    let l = player(store, "liam", 100).await;
    let m = player(store, "mia", 100).await;
    let table = store.create_table("t9", "{}").await.unwrap();
    assert!(matches!(
        store.create_player("liam", "x").await,
        Err(StoreError::NameTaken)
    ));
    assert!(matches!(
        store.deposit(l, 0, None).await,
        Err(StoreError::Invalid(_))
    ));
    assert!(matches!(
        store.deposit(PlayerId::new(), 10, None).await,
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.withdraw(l, 101, None).await,
        Err(StoreError::InsufficientFunds { balance: 100 })
    ));
    store.buy_in(table, 0, l, 50, None, None).await.unwrap();
    assert!(matches!(
        store.buy_in(table, 0, m, 50, None, None).await,
        Err(StoreError::SeatTaken)
    ));
    assert!(matches!(
        store.buy_in(table, 1, l, 10, None, None).await,
        Err(StoreError::AlreadySeated)
    ));
    assert!(matches!(
        store.cash_out(table, m, 0, None).await,
        Err(StoreError::NotSeated)
    ));
    assert!(matches!(
        store.buy_in(table, 1, m, 500, None, None).await,
        Err(StoreError::InsufficientFunds { .. })
    ));
    assert_eq!(store.balance(m).await.unwrap(), 100);
    assert_eq!(store.balance(l).await.unwrap(), 50);
    audit_holds(store).await;
}

async fn sessions_survive_reconnection_and_expire(store: &SqlStore, url: &str) {
    let s = player(store, "sally", 0).await;
    let now = now_ms();
    store
        .create_session("live-hash", s, now + 60_000)
        .await
        .unwrap();
    store.create_session("old-hash", s, now - 1).await.unwrap();
    let again = SqlStore::connect(url).await.unwrap();
    let found = again
        .session("live-hash")
        .await
        .unwrap()
        .expect("a live session");
    assert_eq!((found.player_id, found.name.as_str()), (s, "sally"));
    assert!(
        again.session("old-hash").await.unwrap().is_none(),
        "expired"
    );
    assert!(again.session("no-such-hash").await.unwrap().is_none());
    assert!(again.session_expiry("live-hash").await.unwrap().unwrap() > now_ms());
    assert_eq!(again.session_expiry("old-hash").await.unwrap(), None);
    again.delete_session("live-hash").await.unwrap();
    assert_eq!(store.session_expiry("live-hash").await.unwrap(), None);
    assert!(
        store.session("live-hash").await.unwrap().is_none(),
        "logged out"
    );
    again.close().await;
}

async fn a_failed_tables_hand_is_voided_and_no_other(store: &SqlStore) {
    let (a, b) = (
        player(store, "vera", 1000).await,
        player(store, "walt", 1000).await,
    );
    let failed = store.create_table("t-failed", "{}").await.unwrap();
    let other = store.create_table("t-other", "{}").await.unwrap();
    store.buy_in(failed, 0, a, 300, None, None).await.unwrap();
    store.buy_in(other, 0, b, 300, None, None).await.unwrap();
    let dead = hand(failed, 1, &[(a, 0, 300, 300)], 0);
    let live = hand(other, 1, &[(b, 0, 300, 300)], 0);
    store
        .start_hand(dead.hand_id, failed, 1, 1, None)
        .await
        .unwrap();
    store
        .start_hand(live.hand_id, other, 1, 1, None)
        .await
        .unwrap();
    assert_eq!(store.void_hands(failed).await.unwrap(), vec![dead.hand_id]);
    assert_eq!(store.hand(dead.hand_id).await.unwrap().status, "void");
    assert_eq!(store.hand(live.hand_id).await.unwrap().status, "started");
    assert!(store.void_hands(failed).await.unwrap().is_empty());
    // The void hand can never be committed; the stack is as the hand began.
    assert_eq!(store.commit_hands(&[dead]).await.unwrap(), 0);
    assert_eq!(store.seats(failed).await.unwrap()[0].stack, 300);
    assert_eq!(store.commit_hands(&[live]).await.unwrap(), 1);
    audit_holds(store).await;
}

/// One rule for names before the database: NFC, no control or format characters,
/// trimmed; unique regardless of case and width; players made before name keys get
/// theirs when the store connects, and every one of them can still log in.
async fn names_are_checked_before_the_database_and_unique_regardless_of_case(
    store: &SqlStore,
    url: &str,
) {
    use poker_store::names::NameError;
    for bad in ["a\0b", "a\nb", "rtl\u{202E}x", "zero\u{200B}width", "   "] {
        match store.create_player(bad, "x").await {
            Err(StoreError::BadName(_)) => {}
            other => panic!("{bad:?}: {other:?}"),
        }
        assert!(matches!(
            store.player_by_name(bad).await,
            Err(StoreError::NotFound(_))
        ));
    }
    assert!(matches!(
        store.create_table("t\r\n*** SUMMARY ***", "{}").await,
        Err(StoreError::BadName(NameError::Forbidden('\r')))
    ));
    let zed = store.create_player("  Zed  ", "x").await.expect("Zed");
    for taken in ["zed", "ZED", "\u{FF3A}ed", " zed"] {
        assert!(
            matches!(
                store.create_player(taken, "x").await,
                Err(StoreError::NameTaken)
            ),
            "{taken:?}"
        );
    }
    let found = store
        .player_by_name("ZED")
        .await
        .expect("any case finds Zed");
    assert_eq!((found.player_id, found.name.as_str()), (zed, "Zed"));
    // Decomposed and precomposed forms are one name.
    store.create_player("Re\u{301}my", "x").await.expect("Rémy");
    assert_eq!(
        store.player_by_name("R\u{e9}my").await.expect("NFC").name,
        "R\u{e9}my"
    );

    // Two players stored before keys existed, whose names differ only by case.
    let raw = sqlx::AnyPool::connect(url).await.expect("raw pool");
    let dollar = |sql: &str| match store.backend() {
        poker_store::Backend::Postgres => sql.to_string(),
        poker_store::Backend::Sqlite => sql.replace('$', "?"),
    };
    for (id, name, at) in [
        (PlayerId::new(), "Legacy", now_ms()),
        (PlayerId::new(), "LEGACY", now_ms() + 1),
    ] {
        sqlx::query(&dollar(
            "insert into player (player_id, name, password_hash, created_at) values ($1, $2, 'x', $3)",
        ))
        .bind(id.to_string())
        .bind(name)
        .bind(at)
        .execute(&raw)
        .await
        .expect("an old row");
        sqlx::query(&dollar(
            "insert into wallet (player_id, balance, created_at) values ($1, 0, $2)",
        ))
        .bind(id.to_string())
        .bind(at)
        .execute(&raw)
        .await
        .expect("its wallet");
    }
    raw.close().await;
    let again = SqlStore::connect(url).await.expect("reconnect");
    assert_eq!(again.player_by_name("legacy").await.unwrap().name, "Legacy");
    assert_eq!(again.player_by_name("LEGACY").await.unwrap().name, "LEGACY");
    assert!(matches!(
        again.create_player("lEgAcY", "x").await,
        Err(StoreError::NameTaken)
    ));
    again.close().await;
    audit_holds(store).await;
}

async fn staff_accounts_sessions_the_audit_log_locks_and_rake_by_day(store: &SqlStore) {
    use poker_store::{AuditEntry, Role};
    // Staff: unique names regardless of case, a role each, sessions by token hash.
    let id = store
        .create_staff("Floor Fran", &hash_password("secret"), Role::Floor)
        .await
        .unwrap();
    assert!(matches!(
        store
            .create_staff("floor fran", &hash_password("x"), Role::Admin)
            .await,
        Err(StoreError::NameTaken)
    ));
    let fran = store.staff_by_name("FLOOR FRAN").await.unwrap();
    assert_eq!(
        (fran.staff_id.as_str(), fran.role),
        (id.as_str(), Role::Floor)
    );
    assert!(verify_password("secret", &fran.password_hash));
    assert!(matches!(
        store.staff_by_name("nobody").await,
        Err(StoreError::NotFound(_))
    ));
    store
        .create_staff_session("staffhash", &id, now_ms() + 60_000)
        .await
        .unwrap();
    store
        .create_staff_session("oldhash", &id, now_ms() - 1)
        .await
        .unwrap();
    assert_eq!(
        store
            .staff_session("staffhash")
            .await
            .unwrap()
            .unwrap()
            .name,
        "Floor Fran"
    );
    assert!(
        store.staff_session("oldhash").await.unwrap().is_none(),
        "expired"
    );
    assert!(store.staff_session("nohash").await.unwrap().is_none());
    store
        .create_staff_session("gonehash", &id, now_ms() + 60_000)
        .await
        .unwrap();
    store.delete_staff_session("gonehash").await.unwrap();
    assert!(
        store.staff_session("gonehash").await.unwrap().is_none(),
        "signed out"
    );
    assert!(
        store.staff_session("staffhash").await.unwrap().is_some(),
        "others stand"
    );
    assert!(store
        .staff()
        .await
        .unwrap()
        .iter()
        .any(|s| s.name == "Floor Fran"));

    // The audit log, newest first.
    for (i, action) in ["deposit", "lock_player", "create_table"]
        .iter()
        .enumerate()
    {
        store
            .record_audit(&AuditEntry {
                at: 5_000 + i as i64,
                actor: "staff:Floor Fran".into(),
                action: action.to_string(),
                target: format!("t{i}"),
                detail: "{\"amount\":5}".into(),
            })
            .await
            .unwrap();
    }
    let log = store.audit_log(2, 0).await.unwrap();
    let actions: Vec<&str> = log.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(actions, ["create_table", "lock_player"]);
    assert_eq!(store.audit_log(2, 2).await.unwrap()[0].action, "deposit");

    // A locked player has no session; a new password ends every session.
    let p = player(store, "lockme", 0).await;
    store
        .create_session("lockhash", p, now_ms() + 60_000)
        .await
        .unwrap();
    store.set_player_locked(p, true).await.unwrap();
    assert!(store.session("lockhash").await.unwrap().is_none());
    assert!(store.player_by_name("lockme").await.unwrap().locked);
    store
        .create_session("lockhash2", p, now_ms() + 60_000)
        .await
        .unwrap();
    assert!(
        store.session("lockhash2").await.unwrap().is_none(),
        "locked: no session counts"
    );
    store.set_player_locked(p, false).await.unwrap();
    assert!(!store.player_by_name("lockme").await.unwrap().locked);
    assert!(store.session("lockhash2").await.unwrap().is_some());
    store
        .set_password(p, &hash_password("another"))
        .await
        .unwrap();
    assert!(
        store.session("lockhash2").await.unwrap().is_none(),
        "sessions end"
    );
    assert!(verify_password(
        "another",
        &store.player_by_name("lockme").await.unwrap().password_hash
    ));
    assert!(matches!(
        store.set_player_locked(PlayerId::new(), true).await,
        Err(StoreError::NotFound(_))
    ));

    // Rake per day and table, from the hands completed since a time.
    let (a, b) = (
        player(store, "rakea", 1000).await,
        player(store, "rakeb", 1000).await,
    );
    let table = store.create_table("rake table", "{}").await.unwrap();
    store.buy_in(table, 0, a, 500, None, None).await.unwrap();
    store.buy_in(table, 1, b, 500, None, None).await.unwrap();
    let day = 86_400_000i64;
    let mut stacks = (500, 500);
    for (n, ended) in [(1u64, 3 * day + 10), (2, 3 * day + 20), (3, 4 * day + 5)] {
        let mut h = hand(
            table,
            n,
            &[
                (a, 0, stacks.0, stacks.0 + 10),
                (b, 1, stacks.1, stacks.1 - 12),
            ],
            2,
        );
        h.started_at = ended - 5;
        h.ended_at = ended;
        stacks = (stacks.0 + 10, stacks.1 - 12);
        store
            .start_hand(h.hand_id, table, n, h.started_at, None)
            .await
            .unwrap();
        store.commit_hands(std::slice::from_ref(&h)).await.unwrap();
    }
    let rows: Vec<_> = store
        .rake_by_day(3 * day)
        .await
        .unwrap()
        .into_iter()
        .filter(|r| r.table_id == table)
        .collect();
    let summary: Vec<(&str, u64, u64)> = rows
        .iter()
        .map(|r| (r.day.as_str(), r.rake, r.hands))
        .collect();
    assert_eq!(summary, [("1970-01-05", 2, 1), ("1970-01-04", 4, 2)]);
    assert!(store
        .rake_by_day(4 * day)
        .await
        .unwrap()
        .iter()
        .all(|r| r.day != "1970-01-04"));
    audit_holds(store).await;
}

/// Staff revocation and password resets (issue 24, items 5 and 6): a disabled account has
/// no session and its sessions are gone; a staff session ends after a while unused and
/// lives on while used (sliding); the last enabled admin is kept when asked, against two
/// admins racing to disable each other; a reset code works once, before it expires, for
/// its player only, and ends their sessions; a password set by staff leaves one notice.
async fn staff_are_revoked_and_passwords_reset_with_one_time_codes(store: &SqlStore) {
    use poker_store::Role;
    let hash = hash_password("secret");
    let ada = store
        .create_staff("Rev Ada", &hash, Role::Admin)
        .await
        .unwrap();
    let bob = store
        .create_staff("Rev Bob", &hash, Role::Admin)
        .await
        .unwrap();
    let cas = store
        .create_staff("Rev Cas", &hash, Role::Cashier)
        .await
        .unwrap();
    assert_eq!(store.staff_by_id(&cas).await.unwrap().name, "Rev Cas");
    assert!(matches!(
        store.staff_by_id("nobody").await,
        Err(StoreError::NotFound(_))
    ));
    // Sliding idle expiry, judged at the `now` given.
    let t0 = now_ms();
    store
        .create_staff_session("rev-cas", &cas, t0 + 3_600_000)
        .await
        .unwrap();
    let idle = 60_000;
    let seen = store
        .touch_staff_session("rev-cas", t0 + 50_000, idle)
        .await
        .unwrap();
    assert_eq!(seen.map(|s| s.role), Some(Role::Cashier));
    assert!(
        store
            .touch_staff_session("rev-cas", t0 + 100_000, idle)
            .await
            .unwrap()
            .is_some(),
        "used 50 s ago: still live though created 100 s ago"
    );
    assert!(
        store
            .touch_staff_session("rev-cas", t0 + 170_000, idle)
            .await
            .unwrap()
            .is_none(),
        "idle 70 s: over"
    );
    assert!(
        store
            .touch_staff_session("rev-cas", t0 + 100_001, idle)
            .await
            .unwrap()
            .is_none(),
        "an idle session is not brought back"
    );
    assert!(
        store
            .touch_staff_session("rev-cas", t0 + 4_000_000, i64::MAX / 4)
            .await
            .unwrap()
            .is_none(),
        "expired"
    );

    // Disabling ends every session at once; enabling does not bring them back.
    for h in ["rev-cas-1", "rev-cas-2"] {
        store
            .create_staff_session(h, &cas, now_ms() + 3_600_000)
            .await
            .unwrap();
    }
    store.set_staff_disabled(&cas, true, true).await.unwrap();
    assert!(store.staff_by_id(&cas).await.unwrap().disabled);
    assert!(store.staff_session("rev-cas-1").await.unwrap().is_none());
    store
        .create_staff_session("rev-cas-3", &cas, now_ms() + 3_600_000)
        .await
        .unwrap();
    assert!(
        store
            .touch_staff_session("rev-cas-3", now_ms(), idle)
            .await
            .unwrap()
            .is_none(),
        "a disabled account has no session"
    );
    store.set_staff_disabled(&cas, false, true).await.unwrap();
    assert!(store.staff_session("rev-cas-1").await.unwrap().is_none());
    assert!(store.staff_session("rev-cas-3").await.unwrap().is_some());
    assert_eq!(store.end_staff_sessions(&cas).await.unwrap(), 1);
    assert!(store.staff_session("rev-cas-3").await.unwrap().is_none());
    // Another role; a new password ends the sessions.
    assert_eq!(
        store.set_staff_role(&cas, Role::Floor, true).await.unwrap(),
        Role::Cashier
    );
    store
        .create_staff_session("rev-cas-4", &cas, now_ms() + 3_600_000)
        .await
        .unwrap();
    store
        .set_staff_password(&cas, &hash_password("newer"))
        .await
        .unwrap();
    assert!(store.staff_session("rev-cas-4").await.unwrap().is_none());
    let cas_row = store.staff_by_id(&cas).await.unwrap();
    assert_eq!(cas_row.role, Role::Floor);
    assert!(verify_password("newer", &cas_row.password_hash));
    assert!(matches!(
        store.set_staff_role("nobody", Role::Floor, true).await,
        Err(StoreError::NotFound(_))
    ));

    // The last enabled admin. Other suites' admins are made enabled-or-not here, so this
    // room's admins are exactly Ada and Bob.
    for s in store.staff().await.unwrap() {
        if s.role == Role::Admin && s.staff_id != ada && s.staff_id != bob {
            store
                .set_staff_role(&s.staff_id, Role::Floor, false)
                .await
                .unwrap();
        }
    }
    // Two admins disabling each other at once: one wins, one admin is left.
    let (a, b) = tokio::join!(
        store.set_staff_disabled(&ada, true, true),
        store.set_staff_disabled(&bob, true, true)
    );
    assert!(
        a.is_ok() != b.is_ok(),
        "exactly one of the two is disabled: {a:?} {b:?}"
    );
    let (left, gone) = if a.is_ok() {
        (&bob, &ada)
    } else {
        (&ada, &bob)
    };
    assert!(matches!(
        store.set_staff_disabled(left, true, true).await,
        Err(StoreError::LastAdmin)
    ));
    assert!(matches!(
        store.set_staff_role(left, Role::Cashier, true).await,
        Err(StoreError::LastAdmin)
    ));
    assert_eq!(
        store.set_staff_role(left, Role::Admin, true).await.unwrap(),
        Role::Admin,
        "an admin made admin again changes nothing"
    );
    // A disabled admin does not count; without the guard, anything goes.
    assert_eq!(
        store.set_staff_role(gone, Role::Floor, true).await.unwrap(),
        Role::Admin
    );
    store.set_staff_disabled(left, true, false).await.unwrap();
    assert!(store.staff_by_id(left).await.unwrap().disabled);
    store.set_staff_disabled(left, false, true).await.unwrap();

    // Reset codes: one per player, unexpired, once, for their player only.
    let p = player(store, "resetme", 0).await;
    let other = player(store, "notme", 0).await;
    store
        .create_session("reset-s1", p, now_ms() + 60_000)
        .await
        .unwrap();
    let t = now_ms();
    store
        .issue_reset_code(p, "code-1", "staff:Rev Cas", t + 60_000)
        .await
        .unwrap();
    assert!(
        store.session("reset-s1").await.unwrap().is_some(),
        "issuing a code ends no session"
    );
    store
        .issue_reset_code(p, "code-2", "staff:Rev Cas", t + 60_000)
        .await
        .unwrap();
    assert!(matches!(
        store
            .issue_reset_code(PlayerId::new(), "x", "token", t)
            .await,
        Err(StoreError::NotFound(_))
    ));
    let new_hash = hash_password("fresh-password");
    for (who, code, at) in [
        (p, "code-1", t),
        (other, "code-2", t),
        (p, "code-2", t + 60_000),
        (p, "wrong", t),
    ] {
        assert!(
            store
                .use_reset_code(who, code, &new_hash, at)
                .await
                .unwrap()
                .is_none(),
            "{code} at {at} for the wrong player, replaced or expired"
        );
    }
    assert!(store.session("reset-s1").await.unwrap().is_some());
    assert!(store.take_password_notice(p).await.unwrap().is_none());
    let used = store
        .use_reset_code(p, "code-2", &new_hash, t + 1)
        .await
        .unwrap()
        .expect("the live code");
    assert_eq!(
        (used.player_id, used.issued_by.as_str()),
        (p, "staff:Rev Cas")
    );
    assert!(
        store
            .use_reset_code(p, "code-2", &new_hash, t + 2)
            .await
            .unwrap()
            .is_none(),
        "used once"
    );
    assert!(
        store.session("reset-s1").await.unwrap().is_none(),
        "sessions end"
    );
    assert!(verify_password(
        "fresh-password",
        &store.player_by_name("resetme").await.unwrap().password_hash
    ));
    let notice = store.take_password_notice(p).await.unwrap().unwrap();
    assert_eq!((notice.by.as_str(), notice.at), ("staff:Rev Cas", t + 1));
    assert!(
        store.take_password_notice(p).await.unwrap().is_none(),
        "told once"
    );
    // Set by an admin: any code is void, a notice is left.
    store
        .issue_reset_code(p, "code-3", "staff:Rev Cas", t + 60_000)
        .await
        .unwrap();
    store
        .staff_set_password(p, &hash_password("by-admin-1"), "token", t + 5)
        .await
        .unwrap();
    assert!(store
        .use_reset_code(p, "code-3", &new_hash, t + 6)
        .await
        .unwrap()
        .is_none());
    assert_eq!(
        store.take_password_notice(p).await.unwrap().unwrap().by,
        "token"
    );
    assert!(matches!(
        store
            .staff_set_password(PlayerId::new(), "x", "token", t)
            .await,
        Err(StoreError::NotFound(_))
    ));

    // A name that reads as an id is refused for players, staff and tables; an account
    // named so before the rule is still found by its name.
    let id_like = other.to_string().replace('-', "");
    assert!(matches!(
        store.create_player(&id_like, "x").await,
        Err(StoreError::BadName(
            poker_store::names::NameError::LooksLikeId
        ))
    ));
    assert!(matches!(
        store
            .create_staff(&id_like.to_uppercase(), "x", Role::Floor)
            .await,
        Err(StoreError::BadName(_))
    ));
    assert!(matches!(
        store.create_table(&other.to_string(), "{}").await,
        Err(StoreError::BadName(_))
    ));
    audit_holds(store).await;
}

/// A table passes between nodes only through its lease: taken when free, refused to others
/// while live, passed on with a higher token once expired or released; the old owner can
/// then neither renew nor release it.
async fn lease_a_table_is_held_by_one_node_until_it_expires_or_is_released(store: &SqlStore) {
    let table = store.create_table("lease-1", "{}").await.unwrap();
    assert_eq!(
        store.acquire_lease(table, "node-a", 60_000).await.unwrap(),
        Some(1),
        "a free table's first lease"
    );
    assert_eq!(
        store.acquire_lease(table, "node-b", 60_000).await.unwrap(),
        None,
        "refused while live"
    );
    assert_eq!(
        store.acquire_lease(table, "node-a", 60_000).await.unwrap(),
        Some(1),
        "the owner again: extended, same token"
    );
    assert!(store.renew_lease(table, "node-a", 1, 50).await.unwrap());
    tokio::time::sleep(std::time::Duration::from_millis(120)).await;
    assert_eq!(
        store.acquire_lease(table, "node-b", 60_000).await.unwrap(),
        Some(2),
        "expired: another node takes it with a higher token"
    );
    assert!(
        !store.renew_lease(table, "node-a", 1, 60_000).await.unwrap(),
        "the old owner cannot renew"
    );
    store.release_lease(table, "node-a", 1).await.unwrap();
    assert!(!store.renew_lease(table, "node-b", 1, 60_000).await.unwrap());
    assert!(!store.renew_lease(table, "node-a", 2, 60_000).await.unwrap());
    let lease = |leases: Vec<Lease>| leases.into_iter().find(|l| l.table_id == table).unwrap();
    let held = lease(store.leases().await.unwrap());
    assert_eq!((held.node.as_str(), held.token), ("node-b", 2));
    assert!(
        held.expires_at > now_ms(),
        "the old owner's release did nothing"
    );
    assert!(store.renew_lease(table, "node-b", 2, 60_000).await.unwrap());

    // Released: free at once, and the token stays so the next owner's is higher.
    store.release_lease(table, "node-b", 2).await.unwrap();
    let released = lease(store.leases().await.unwrap());
    assert_eq!((released.token, released.expires_at), (2, 0));
    assert_eq!(
        store.acquire_lease(table, "node-a", 60_000).await.unwrap(),
        Some(3)
    );
    // An owner whose lease expired still renews it while nobody took it...
    assert!(store.renew_lease(table, "node-a", 3, -1).await.unwrap());
    assert!(store.renew_lease(table, "node-a", 3, -1).await.unwrap());
    // ...but acquiring an expired lease, even its own, starts a new token.
    assert_eq!(
        store.acquire_lease(table, "node-a", 60_000).await.unwrap(),
        Some(4)
    );
    assert!(!store.renew_lease(table, "node-a", 3, 60_000).await.unwrap());
    assert!(!store
        .renew_lease(table, "node-a", u64::MAX, 60_000)
        .await
        .unwrap());

    assert!(matches!(
        store.acquire_lease(TableId::new(), "node-a", 60_000).await,
        Err(StoreError::NotFound("table"))
    ));
    for bad in ["", "a\0b", "line\nbreak"] {
        assert!(matches!(
            store.acquire_lease(table, bad, 60_000).await,
            Err(StoreError::Invalid(_))
        ));
    }
    let leases = store.leases().await.unwrap();
    assert!(
        leases.windows(2).all(|w| w[0].table_id < w[1].table_id),
        "by table id"
    );
}

/// One table by id, as `tables()` lists it, whatever its status; an unknown id is not
/// found.
async fn a_table_is_found_by_its_id_whatever_its_status(store: &SqlStore) {
    let open = store
        .create_table("by-id-open", r#"{"a":1}"#)
        .await
        .unwrap();
    let closed = store.create_table("by-id-closed", "{}").await.unwrap();
    store
        .set_table_status(closed, TableStatus::Closed)
        .await
        .unwrap();
    let all = store.tables().await.unwrap();
    for id in [open, closed] {
        let row = store.table(id).await.unwrap();
        assert_eq!(Some(&row), all.iter().find(|t| t.table_id == id));
    }
    let row = store.table(open).await.unwrap();
    assert_eq!(
        (row.name.as_str(), row.config.as_str(), row.status),
        ("by-id-open", r#"{"a":1}"#, TableStatus::Open)
    );
    assert_eq!(
        store.table(closed).await.unwrap().status,
        TableStatus::Closed
    );
    assert!(matches!(
        store.table(TableId::new()).await,
        Err(StoreError::NotFound("table"))
    ));
}

/// Where a child process (this test binary again, in the role below) finds its orders.
const SKEWED_NODE_ENV: &str = "POKER_STORE_SKEWED_NODE";

/// The libfaketime library that gives a child process a wall clock of its own.
fn libfaketime() -> Option<&'static str> {
    [
        "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
        "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
        "/usr/lib/faketime/libfaketime.so.1",
        "/usr/local/lib/faketime/libfaketime.so.1",
    ]
    .into_iter()
    .find(|p| std::path::Path::new(p).is_file())
}

/// What a node with a skewed clock is asked to do, and what it saw.
#[derive(serde::Serialize, serde::Deserialize)]
struct SkewedNode {
    url: String,
    table: TableId,
    node: String,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct SkewedNodeSaw {
    /// Its wall clock (unix milliseconds), to show it was skewed.
    clock: i64,
    acquired: Option<u64>,
    candidate: bool,
    live: Option<bool>,
}

/// The child role: another node, whose wall clock libfaketime sets, tries to take the
/// table's lease (does nothing unless the parent started this binary as that node).
#[tokio::test]
async fn skewed_node_role() {
    let Ok(orders) = std::env::var(SKEWED_NODE_ENV) else {
        return;
    };
    let orders: SkewedNode = serde_json::from_str(&orders).unwrap();
    let store = SqlStore::connect(&orders.url).await.expect("connect");
    let candidate = store
        .lease_candidates(&orders.node)
        .await
        .unwrap()
        .contains(&orders.table);
    let live = store
        .leases()
        .await
        .unwrap()
        .into_iter()
        .find(|l| l.table_id == orders.table)
        .map(|l| l.live);
    let acquired = store
        .acquire_lease(orders.table, &orders.node, 60_000)
        .await
        .unwrap();
    let saw = SkewedNodeSaw {
        clock: now_ms(),
        acquired,
        candidate,
        live,
    };
    println!("SKEWED-NODE {}", serde_json::to_string(&saw).unwrap());
    store.close().await;
}

/// Runs a node whose wall clock is `offset` (libfaketime: `+1d`, `-1d`) off this one's.
fn skewed_node(url: &str, table: TableId, node: &str, offset: &str) -> SkewedNodeSaw {
    let orders = SkewedNode {
        url: url.to_string(),
        table,
        node: node.to_string(),
    };
    let out = std::process::Command::new(std::env::current_exe().expect("this test binary"))
        .args([
            "--exact",
            "skewed_node_role",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(SKEWED_NODE_ENV, serde_json::to_string(&orders).unwrap())
        .env("LD_PRELOAD", libfaketime().expect("libfaketime"))
        .env("FAKETIME", offset)
        // Timers and timeouts run on the monotonic clock: left alone.
        .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
        .output()
        .expect("the skewed node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find_map(|l| l.split_once("SKEWED-NODE ").map(|(_, saw)| saw))
        .unwrap_or_else(|| {
            panic!(
                "the skewed node said nothing: {stdout}{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    serde_json::from_str(line).unwrap()
}

/// Several nodes' wall clocks may disagree by any amount: the database's clock alone
/// decides whether a lease has expired. A node whose clock is a day ahead cannot take a
/// live lease (nor sees it as free), a node whose clock is a day behind takes a lease no
/// shorter for it; once a short lease has expired by the database's clock, a node takes it
/// whatever its own clock says. (Postgres only: an embedded SQLite has no clock but its
/// process's, and several nodes never share one.)
async fn lease_no_nodes_clock_decides_whether_a_lease_is_live(store: &SqlStore, url: &str) {
    let Some(_) = libfaketime() else {
        eprintln!("SKIPPED: skewed clocks (no libfaketime: apt-get install libfaketime)");
        return;
    };
    const DAY: i64 = 24 * 3600 * 1000;
    let table = store.create_table("skew", "{}").await.unwrap();
    assert_eq!(
        store.acquire_lease(table, "node-a", 60_000).await.unwrap(),
        Some(1)
    );
    let ahead = skewed_node(url, table, "node-b", "+1d");
    assert!(ahead.clock > now_ms() + DAY / 2, "skewed: {ahead:?}");
    assert_eq!(
        (ahead.acquired, ahead.candidate, ahead.live),
        (None, false, Some(true)),
        "a node a day ahead sees the lease live and cannot take it"
    );

    // A node a day behind takes a free table for as long as anyone else would.
    let other = store.create_table("skew-behind", "{}").await.unwrap();
    let behind = skewed_node(url, other, "node-c", "-1d");
    assert!(behind.clock < now_ms() - DAY / 2, "skewed: {behind:?}");
    assert_eq!((behind.acquired, behind.candidate), (Some(1), true));
    assert_eq!(
        store.acquire_lease(other, "node-d", 60_000).await.unwrap(),
        None
    );
    assert!(!store
        .lease_candidates("node-d")
        .await
        .unwrap()
        .contains(&other));

    // A short lease, expired by the database's clock: any node takes it.
    assert!(store.renew_lease(table, "node-a", 1, 100).await.unwrap());
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let behind = skewed_node(url, table, "node-b", "-1d");
    assert_eq!(
        (behind.acquired, behind.candidate, behind.live),
        (Some(2), true, Some(false)),
        "expired by the database's clock, whatever the node's says"
    );
}

/// A node renews all its leases in one call: it keeps those still its own (live or
/// expired but not taken since) and loses those another node took, released ones, and any
/// it names with a token that is not the lease's.
async fn lease_renewing_many_at_once_keeps_only_those_still_held(store: &SqlStore) {
    let mut tables = Vec::new();
    for i in 0..6 {
        let table = store
            .create_table(&format!("renew-many-{i}"), "{}")
            .await
            .unwrap();
        assert_eq!(
            store.acquire_lease(table, "node-a", 60_000).await.unwrap(),
            Some(1)
        );
        tables.push(table);
    }
    let [live, expired, taken, released, wrong_token, untouched] = tables[..] else {
        unreachable!()
    };
    // Expired, nobody took it: still node-a's to renew.
    assert!(store.renew_lease(expired, "node-a", 1, -1).await.unwrap());
    // Expired and taken over by node-b meanwhile.
    assert!(store.renew_lease(taken, "node-a", 1, -1).await.unwrap());
    assert_eq!(
        store.acquire_lease(taken, "node-b", 60_000).await.unwrap(),
        Some(2)
    );
    store.release_lease(released, "node-a", 1).await.unwrap();
    let asked = [
        (live, 1),
        (expired, 1),
        (taken, 1),
        (released, 1),
        (wrong_token, 7),
        (TableId::new(), 1),
        (live, u64::MAX),
    ];
    let mut expected = vec![live, expired];
    expected.sort_unstable();
    assert_eq!(
        store.renew_leases("node-a", &asked, 60_000).await.unwrap(),
        expected
    );
    let leases = store.leases().await.unwrap();
    let lease = |t: TableId| leases.iter().find(|l| l.table_id == t).unwrap();
    for t in [live, expired] {
        assert_eq!((lease(t).node.as_str(), lease(t).token), ("node-a", 1));
        assert!(lease(t).live, "renewed");
    }
    assert_eq!(
        (lease(taken).node.as_str(), lease(taken).token),
        ("node-b", 2)
    );
    assert!(lease(taken).live, "node-b's lease stands");
    assert_eq!((lease(released).token, lease(released).expires_at), (1, 0));
    assert!(!lease(released).live, "a released lease stays free");
    assert!(lease(wrong_token).live && lease(untouched).live);
    // Nothing to renew; another node's name renews nothing of node-a's.
    assert!(store
        .renew_leases("node-a", &[], 60_000)
        .await
        .unwrap()
        .is_empty());
    assert!(store
        .renew_leases("node-b", &[(live, 1), (taken, 2)], 60_000)
        .await
        .unwrap()
        .eq(&[taken]));
    assert!(matches!(
        store.renew_leases("", &[(live, 1)], 60_000).await,
        Err(StoreError::Invalid(_))
    ));
}

async fn lease_candidates_are_the_open_tables_without_a_live_lease(store: &SqlStore) {
    let table = |name: &'static str| store.create_table(name, "{}");
    let free = table("cand-free").await.unwrap();
    let expired = table("cand-expired").await.unwrap();
    let released = table("cand-released").await.unwrap();
    let live = table("cand-live").await.unwrap();
    let closed = table("cand-closed").await.unwrap();
    let closing = table("cand-closing").await.unwrap();
    assert_eq!(
        store.acquire_lease(expired, "node-a", -1).await.unwrap(),
        Some(1)
    );
    let token = store
        .acquire_lease(released, "node-a", 60_000)
        .await
        .unwrap()
        .unwrap();
    store
        .release_lease(released, "node-a", token)
        .await
        .unwrap();
    store.acquire_lease(live, "node-a", 60_000).await.unwrap();
    store
        .set_table_status(closed, TableStatus::Closed)
        .await
        .unwrap();
    store
        .set_table_status(closing, TableStatus::Closing)
        .await
        .unwrap();
    for node in ["node-a", "node-b"] {
        let candidates = store.lease_candidates(node).await.unwrap();
        for t in [free, expired, released] {
            assert!(candidates.contains(&t), "{node}: {t} is free");
        }
        for t in [live, closed, closing] {
            assert!(!candidates.contains(&t), "{node}: {t} is not free");
        }
        assert!(
            candidates.windows(2).all(|w| w[0] < w[1]),
            "by id: {candidates:?}"
        );
    }
    assert!(matches!(
        store.lease_candidates("").await,
        Err(StoreError::Invalid(_))
    ));
}

/// A hand dealt under a lease that has since passed to another node is refused whole and
/// moves no chip; the current owner's hands commit, alone or in the persister's batches.
async fn lease_a_hand_with_a_stale_fence_is_refused_and_moves_no_chip(store: &SqlStore) {
    let (a, b) = (
        player(store, "fence-a", 1000).await,
        player(store, "fence-b", 1000).await,
    );
    let table = store.create_table("fenced", "{}").await.unwrap();
    let other = store.create_table("unfenced", "{}").await.unwrap();
    store.buy_in(table, 0, a, 500, None, None).await.unwrap();
    store.buy_in(table, 1, b, 500, None, None).await.unwrap();
    store.buy_in(other, 0, a, 100, None, None).await.unwrap();
    store.buy_in(other, 1, b, 100, None, None).await.unwrap();
    let old = store
        .acquire_lease(table, "node-a", 60_000)
        .await
        .unwrap()
        .unwrap();
    let mut first = hand(table, 1, &[(a, 0, 500, 520), (b, 1, 500, 478)], 2);
    first.fence = Some(old);
    assert_eq!(
        store
            .commit_hands(std::slice::from_ref(&first))
            .await
            .unwrap(),
        1
    );
    // node-a's lease expires and node-b takes the table over.
    assert!(store.renew_lease(table, "node-a", old, -1).await.unwrap());
    let new = store
        .acquire_lease(table, "node-b", 60_000)
        .await
        .unwrap()
        .unwrap();
    assert!(new > old);

    let before = store.audit().await.unwrap();
    let stacks = || async {
        let mut all = store.seats(table).await.unwrap();
        all.extend(store.seats(other).await.unwrap());
        all.iter().map(|s| s.stack).collect::<Vec<Chips>>()
    };
    let balances = || async {
        (
            store.balance(a).await.unwrap(),
            store.balance(b).await.unwrap(),
        )
    };
    let ledgers = || async {
        (
            store.ledger(a, 1000).await.unwrap().len(),
            store.ledger(b, 1000).await.unwrap().len(),
        )
    };
    let (stacks0, balances0, ledgers0) = (stacks().await, balances().await, ledgers().await);
    let mut stale = hand(table, 2, &[(a, 0, 520, 600), (b, 1, 478, 396)], 2);
    stale.fence = Some(old);
    let unfenced = hand(other, 1, &[(a, 0, 100, 150), (b, 1, 100, 50)], 0);
    match store.commit_hands(&[unfenced.clone(), stale.clone()]).await {
        Err(StoreError::Fenced { table: t, token }) => assert_eq!((t, token), (table, old)),
        other => panic!("a stale fence: {other:?}"),
    }
    // A retry of the hand committed under the old lease is refused too: its node no
    // longer owns the table.
    assert!(matches!(
        store.commit_hands(std::slice::from_ref(&first)).await,
        Err(StoreError::Fenced { .. })
    ));
    let mut unleased = hand(other, 1, &[(a, 0, 100, 150), (b, 1, 100, 50)], 0);
    unleased.fence = Some(1);
    assert!(
        matches!(
            store.commit_hands(&[unleased]).await,
            Err(StoreError::Fenced { .. })
        ),
        "a fence on a table nobody leased"
    );
    for id in [stale.hand_id, unfenced.hand_id] {
        assert!(matches!(store.hand(id).await, Err(StoreError::NotFound(_))));
    }
    assert_eq!(stacks().await, stacks0);
    assert_eq!(balances().await, balances0);
    assert_eq!(ledgers().await, ledgers0);
    assert_eq!(store.audit().await.unwrap(), before);
    audit_holds(store).await;

    // Through the persister: the batch fails, and the retry hand by hand fails only the
    // fenced hand.
    let persister = Persister::spawn(Arc::new(store.clone()), 64);
    let (fenced, fine) = tokio::join!(
        persister.commit(stale.clone()),
        persister.commit(unfenced.clone())
    );
    assert!(
        matches!(fenced, Err(StoreError::Fenced { .. })),
        "{fenced:?}"
    );
    fine.expect("the unfenced hand commits");
    // The current owner's token commits.
    let mut current = hand(table, 2, &[(a, 0, 520, 600), (b, 1, 478, 396)], 2);
    current.fence = Some(new);
    assert_eq!(store.commit_hands(&[current]).await.unwrap(), 1);
    assert_eq!(stacks().await, vec![600, 396, 150, 50]);
    audit_holds(store).await;
}

/// A node whose lease passed to another can neither move money at the table nor start a
/// hand there: each write with its stale token is refused whole (no balance, seat,
/// rathole, idempotency key, ledger row or hand written); the owner's token writes, and
/// so do writes without a token (a single process).
async fn lease_money_moves_with_a_stale_fence_are_refused_and_move_nothing(store: &SqlStore) {
    let (a, b, c) = (
        player(store, "mfence-a", 1000).await,
        player(store, "mfence-b", 1000).await,
        player(store, "mfence-c", 1000).await,
    );
    let table = store.create_table("money-fenced", "{}").await.unwrap();
    let unleased = store.create_table("money-unleased", "{}").await.unwrap();
    store.buy_in(table, 0, a, 300, None, None).await.unwrap();
    store.buy_in(table, 1, b, 300, None, None).await.unwrap();
    let old = store
        .acquire_lease(table, "node-a", 60_000)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(old, 1);
    // While node-a holds the lease its token writes.
    assert_eq!(
        store.top_up(table, a, 10, None, Some(old)).await.unwrap(),
        310
    );
    // node-a's lease expires and node-b takes the table over.
    assert!(store.renew_lease(table, "node-a", old, -1).await.unwrap());
    let new = store
        .acquire_lease(table, "node-b", 60_000)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(new, 2);

    let state = || async {
        let mut seats = store.seats(table).await.unwrap();
        seats.extend(store.seats(unleased).await.unwrap());
        let mut wallets = Vec::new();
        let mut ledgers = Vec::new();
        let mut ratholes = Vec::new();
        for p in [a, b, c] {
            wallets.push(store.balance(p).await.unwrap());
            ledgers.push(store.ledger(p, 1000).await.unwrap().len());
            ratholes.push(store.rathole(table, p).await.unwrap());
        }
        let hands = store.table_hands(table, 100, 0).await.unwrap().len();
        (seats, wallets, ledgers, ratholes, hands)
    };
    let audit0 = store.audit().await.unwrap();
    let state0 = state().await;
    let stale = Some(old);
    let refused = |what: &str, t: TableId, r: Result<(), StoreError>| match r {
        Err(StoreError::Fenced { table: ft, token }) => {
            assert_eq!((ft, token), (t, old), "{what}")
        }
        other => panic!("{what} with a stale fence: {other:?}"),
    };
    refused(
        "buy_in",
        table,
        store.buy_in(table, 2, c, 200, None, stale).await,
    );
    refused(
        "keyed buy_in",
        table,
        store.buy_in(table, 2, c, 200, Some("mf-buy"), stale).await,
    );
    refused(
        "top_up",
        table,
        store.top_up(table, a, 50, None, stale).await.map(|_| ()),
    );
    refused(
        "keyed top_up",
        table,
        store
            .top_up(table, a, 50, Some("mf-top"), stale)
            .await
            .map(|_| ()),
    );
    refused(
        "cash_out",
        table,
        store.cash_out(table, b, 99, stale).await.map(|_| ()),
    );
    let dealt = HandId::new();
    refused(
        "start_hand",
        table,
        store.start_hand(dealt, table, 7, 5, stale).await,
    );
    // Among others, a stale start refuses them all.
    let beside = HandId::new();
    let starts = [
        HandStart {
            hand: beside,
            table: unleased,
            number: 1,
            at: 5,
            fence: None,
        },
        HandStart {
            hand: dealt,
            table,
            number: 7,
            at: 5,
            fence: stale,
        },
    ];
    refused("start_hands", table, store.start_hands(&starts).await);
    assert!(matches!(
        store.hand(beside).await,
        Err(StoreError::NotFound(_))
    ));
    // A token for a table nobody leased is refused too.
    refused(
        "buy_in where nobody holds the lease",
        unleased,
        store.buy_in(unleased, 0, c, 100, None, Some(1)).await,
    );
    refused(
        "start_hand where nobody holds the lease",
        unleased,
        store
            .start_hand(HandId::new(), unleased, 1, 5, Some(1))
            .await,
    );
    assert!(matches!(
        store.hand(dealt).await,
        Err(StoreError::NotFound(_))
    ));
    assert_eq!(state().await, state0, "nothing moved");
    assert_eq!(store.audit().await.unwrap(), audit0);
    audit_holds(store).await;

    // The new owner's token writes (the refused keyed requests left no key behind).
    store
        .buy_in(table, 2, c, 200, Some("mf-buy"), Some(new))
        .await
        .unwrap();
    assert_eq!(
        store
            .top_up(table, a, 50, Some("mf-top"), Some(new))
            .await
            .unwrap(),
        360
    );
    assert_eq!(store.cash_out(table, b, 99, Some(new)).await.unwrap(), 300);
    store
        .start_hand(dealt, table, 7, 5, Some(new))
        .await
        .unwrap();
    let started = store.hand(dealt).await.unwrap();
    assert_eq!((started.number, started.status), (7, HandStatus::Started));
    assert_eq!(store.balance(b).await.unwrap(), 1000);
    assert_eq!(store.balance(c).await.unwrap(), 800);
    audit_holds(store).await;

    // Without a token (one process, no leases) nothing is checked.
    assert_eq!(store.top_up(table, c, 10, None, None).await.unwrap(), 210);
    assert_eq!(store.cash_out(table, c, 100, None).await.unwrap(), 210);
    store.buy_in(unleased, 0, c, 100, None, None).await.unwrap();
    store
        .start_hand(HandId::new(), unleased, 1, 6, None)
        .await
        .unwrap();
    assert_eq!(store.balance(c).await.unwrap(), 900);
    // Tidy: the started hands are void again, as after a crash.
    store.void_hands(table).await.unwrap();
    store.void_hands(unleased).await.unwrap();
    audit_holds(store).await;
}

async fn lease_two_nodes_racing_for_a_table_never_both_win(store: &SqlStore) {
    for round in 0..20 {
        let table = store
            .create_table(&format!("lease-race-{round}"), "{}")
            .await
            .unwrap();
        // Even rounds race for a free table, odd ones for an expired lease.
        let expected = if round % 2 == 0 {
            1
        } else {
            store.acquire_lease(table, "node-c", -1).await.unwrap();
            2
        };
        let (a, b) = tokio::join!(
            store.acquire_lease(table, "node-a", 60_000),
            store.acquire_lease(table, "node-b", 60_000)
        );
        let (a, b) = (a.unwrap(), b.unwrap());
        let winner = match (a, b) {
            (Some(t), None) => {
                assert_eq!(t, expected);
                "node-a"
            }
            (None, Some(t)) => {
                assert_eq!(t, expected);
                "node-b"
            }
            both => panic!("round {round}: {both:?}"),
        };
        let lease = store
            .leases()
            .await
            .unwrap()
            .into_iter()
            .find(|l| l.table_id == table)
            .unwrap();
        assert_eq!((lease.node.as_str(), lease.token), (winner, expected));
    }
}

/// A room's first tables (a play-money room's presets) are made only while there is no
/// table at all; nodes starting together on one empty PostgreSQL make them once.
async fn lease_first_tables_are_made_once_by_nodes_starting_together(store: &SqlStore) {
    assert!(store.tables().await.unwrap().is_empty(), "an empty room");
    let presets: Vec<(String, String)> = (0..3)
        .map(|i| (format!("preset {i}"), format!(r#"{{"n":{i}}}"#)))
        .collect();
    let made = if store.backend() == Backend::Postgres {
        let make = || store.create_tables_if_none(&presets);
        let tries = tokio::join!(
            make(),
            make(),
            make(),
            make(),
            make(),
            make(),
            make(),
            make()
        );
        let tries = [
            tries.0, tries.1, tries.2, tries.3, tries.4, tries.5, tries.6, tries.7,
        ];
        let mut made: Vec<Vec<TableId>> = tries
            .into_iter()
            .map(|r| r.unwrap())
            .filter(|ids| !ids.is_empty())
            .collect();
        assert_eq!(
            made.len(),
            1,
            "one of 8 racing callers makes them: {made:?}"
        );
        made.remove(0)
    } else {
        store.create_tables_if_none(&presets).await.unwrap()
    };
    assert!(store
        .create_tables_if_none(&presets)
        .await
        .unwrap()
        .is_empty());
    let tables = store.tables().await.unwrap();
    assert_eq!(tables.len(), presets.len(), "made once: {tables:?}");
    for (id, (name, config)) in made.iter().zip(&presets) {
        let row = store.table(*id).await.unwrap();
        assert_eq!(
            (&row.name, &row.config, row.status),
            (name, config, TableStatus::Open)
        );
    }
    assert!(matches!(
        store
            .create_tables_if_none(&[(String::new(), "{}".into())])
            .await,
        Err(StoreError::BadName(_))
    ));
}

/// Fair play: the address of each sit (the seat's, kept across a restart only for the
/// seat it was recorded for), the same-address flags, the addresses players share, and
/// the hands of a window of time or of a pair of players.
async fn fair_play_sit_addresses_flags_shared_addresses_and_hands_of_a_window_or_a_pair(
    store: &SqlStore,
) {
    let (ann, ben, cid) = (
        player(store, "fp-ann", 1000).await,
        player(store, "fp-ben", 1000).await,
        player(store, "fp-cid", 1000).await,
    );
    let table = store.create_table("fp", "{}").await.unwrap();
    let home = "203.0.113.7";
    store.buy_in(table, 0, ann, 300, None, None).await.unwrap();
    store
        .record_sit_address(table, ann, home, now_ms(), &[])
        .await
        .unwrap();
    store.buy_in(table, 1, ben, 300, None, None).await.unwrap();
    let at = now_ms();
    store
        .record_sit_address(table, ben, home, at, &[ann])
        .await
        .unwrap();
    // Cid sits without an address (a house bot): nothing recorded.
    store.buy_in(table, 2, cid, 300, None, None).await.unwrap();
    let mut expected = vec![(ann, home.to_string()), (ben, home.to_string())];
    expected.sort();
    assert_eq!(store.seat_addresses(table).await.unwrap(), expected);
    let flags = store.address_flags(10, 0).await.unwrap();
    assert_eq!(flags.len(), 1);
    assert_eq!(
        (
            flags[0].table_id,
            flags[0].player_id,
            flags[0].other_id,
            flags[0].address.as_str(),
            flags[0].at
        ),
        (table, ben, ann, home, at)
    );
    assert!(flags[0].flag_id.parse::<uuid::Uuid>().is_ok());
    assert!(store.address_flags(10, 1).await.unwrap().is_empty());
    // Ben leaves and sits again without an address: the old one no longer counts for his
    // new seat; then from another address, which does.
    store.cash_out(table, ben, now_ms(), None).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    store.buy_in(table, 1, ben, 300, None, None).await.unwrap();
    assert_eq!(
        store.seat_addresses(table).await.unwrap(),
        vec![(ann, home.to_string())]
    );
    let v6 = "2001:db8:1:2::/64";
    store
        .record_sit_address(table, ben, v6, now_ms(), &[])
        .await
        .unwrap();
    let mut expected = vec![(ann, home.to_string()), (ben, v6.to_string())];
    expected.sort();
    assert_eq!(store.seat_addresses(table).await.unwrap(), expected);
    // Shared: the home address (both used it), not the /64 only Ben used.
    let shared = store.shared_addresses(0).await.unwrap();
    let mine: Vec<(PlayerId, &str, u64)> = shared
        .iter()
        .filter(|a| [ann, ben, cid].contains(&a.player_id))
        .map(|a| (a.player_id, a.address.as_str(), a.sits))
        .collect();
    let mut expected = vec![(ann, home, 1), (ben, home, 1)];
    expected.sort();
    assert_eq!(mine, expected);
    assert!(store
        .shared_addresses(now_ms() + 60_000)
        .await
        .unwrap()
        .is_empty());
    // Names of a few players, by id; an unknown id is left out.
    let expected: std::collections::HashMap<PlayerId, String> =
        [(ann, "fp-ann".to_string()), (cid, "fp-cid".to_string())].into();
    assert_eq!(
        store
            .player_names(&[cid, PlayerId::new(), ann])
            .await
            .unwrap(),
        expected
    );
    assert!(store.player_names(&[]).await.unwrap().is_empty());
    // More ids than one statement takes.
    let mut many: Vec<PlayerId> = (0..1200).map(|_| PlayerId::new()).collect();
    many.push(ben);
    assert_eq!(
        store.player_names(&many).await.unwrap(),
        [(ben, "fp-ben".to_string())].into()
    );
    // Addresses are checked, and a refused one writes nothing.
    for bad in ["", &"9".repeat(65), "1.2.3.4\n"] {
        assert!(matches!(
            store
                .record_sit_address(table, cid, bad, now_ms(), &[])
                .await,
            Err(StoreError::Invalid(_))
        ));
    }
    assert!(!store
        .seat_addresses(table)
        .await
        .unwrap()
        .iter()
        .any(|(p, _)| *p == cid));
    // Hands: Ann and Ben play 1 and 3, Ann and Cid 2 and 3; dealt at 7,000,001.. so that
    // no other scenario's hand is in the window.
    let mut stacks = [300u64, 300, 300];
    let mut ids = Vec::new();
    for n in 1..=3u64 {
        let who: &[(usize, PlayerId)] = match n {
            1 => &[(0, ann), (1, ben)],
            2 => &[(0, ann), (2, cid)],
            _ => &[(0, ann), (1, ben), (2, cid)],
        };
        let players: Vec<(PlayerId, u32, Chips, Chips)> = who
            .iter()
            .map(|&(seat, p)| {
                let end = if seat == 0 {
                    stacks[0] + 2 * (who.len() as u64 - 1)
                } else {
                    stacks[seat] - 2
                };
                (p, seat as u32, stacks[seat], end)
            })
            .collect();
        let mut h = hand(table, 100 + n, &players, 0);
        h.started_at = 7_000_000 + n as i64;
        store.commit_hands(std::slice::from_ref(&h)).await.unwrap();
        for &(p, seat, _, end) in &players {
            let _ = p;
            stacks[seat as usize] = end;
        }
        ids.push(h.hand_id);
    }
    let window: Vec<HandId> = store
        .hands_between(7_000_000, 7_000_100, 10)
        .await
        .unwrap()
        .iter()
        .map(|h| h.hand_id)
        .collect();
    assert_eq!(window, vec![ids[2], ids[1], ids[0]]);
    let newest: Vec<HandId> = store
        .hands_between(7_000_000, 7_000_003, 1)
        .await
        .unwrap()
        .iter()
        .map(|h| h.hand_id)
        .collect();
    assert_eq!(
        newest,
        vec![ids[1]],
        "until is excluded, limit keeps the newest"
    );
    let together = |a, b, t, since, until| async move {
        store
            .hands_together(a, b, t, since, until, 10)
            .await
            .unwrap()
            .iter()
            .map(|h| h.hand_id)
            .collect::<Vec<HandId>>()
    };
    assert_eq!(
        together(ann, ben, None, 0, i64::MAX).await,
        vec![ids[2], ids[0]]
    );
    assert_eq!(
        together(cid, ann, Some(table), 0, i64::MAX).await,
        vec![ids[2], ids[1]]
    );
    assert_eq!(together(ben, cid, None, 0, i64::MAX).await, vec![ids[2]]);
    assert_eq!(together(ben, cid, None, 7_000_004, i64::MAX).await, vec![]);
    assert_eq!(
        together(ann, ben, Some(TableId::new()), 0, i64::MAX).await,
        vec![]
    );
    audit_holds(store).await;
}

async fn run_all(url: &str) {
    let store = SqlStore::connect(url).await.expect("connect and migrate");
    // First: it needs a room with no table.
    lease_first_tables_are_made_once_by_nodes_starting_together(&store).await;
    deposits_buy_ins_top_ups_and_cash_outs_move_money_with_ledger_records(&store).await;
    the_wallet_never_goes_negative_under_concurrent_requests(&store).await;
    retried_operations_with_an_idempotency_key_apply_once(&store).await;
    an_idempotency_key_names_one_request_of_its_player_whatever_its_kind(&store, url).await;
    a_hands_players_are_named_by_their_ids_alone(&store).await;
    no_deposit_lets_the_money_in_the_room_pass_its_bound(&store).await;
    a_committed_hand_changes_stacks_exactly_once(&store).await;
    missed_blinds_and_rathole_records_survive_reconnection(&store, url).await;
    sessions_survive_reconnection_and_expire(&store, url).await;
    crash_recovery_voids_the_unfinished_hand_and_keeps_committed_stacks(&store, url).await;
    a_failed_tables_hand_is_voided_and_no_other(&store).await;
    hand_histories_are_queried_by_id_table_and_player_newest_first(&store).await;
    a_hands_deck_record_reads_back_whole(&store).await;
    the_persister_commits_many_tables_hands_in_batches(&store).await;
    the_persister_writes_many_tables_starts_states_and_hands_together(&store).await;
    bad_requests_are_refused_without_moving_money(&store).await;
    names_are_checked_before_the_database_and_unique_regardless_of_case(&store, url).await;
    staff_accounts_sessions_the_audit_log_locks_and_rake_by_day(&store).await;
    staff_are_revoked_and_passwords_reset_with_one_time_codes(&store).await;
    a_table_is_found_by_its_id_whatever_its_status(&store).await;
    fair_play_sit_addresses_flags_shared_addresses_and_hands_of_a_window_or_a_pair(&store).await;
    lease_a_table_is_held_by_one_node_until_it_expires_or_is_released(&store).await;
    lease_renewing_many_at_once_keeps_only_those_still_held(&store).await;
    lease_candidates_are_the_open_tables_without_a_live_lease(&store).await;
    lease_a_hand_with_a_stale_fence_is_refused_and_moves_no_chip(&store).await;
    lease_money_moves_with_a_stale_fence_are_refused_and_move_nothing(&store).await;
    lease_two_nodes_racing_for_a_table_never_both_win(&store).await;
    if store.backend() == Backend::Postgres {
        lease_no_nodes_clock_decides_whether_a_lease_is_live(&store, url).await;
    }
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_conformance_suite_passes_on_sqlite() {
    if std::env::var_os(SKEWED_NODE_ENV).is_some() {
        return;
    }
    let db = TestSqlite::new();
    run_all(&db.url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_conformance_suite_passes_on_postgres() {
    if std::env::var_os(SKEWED_NODE_ENV).is_some() {
        return;
    }
    let Some(db) = TestPostgres::start_or_skip("the conformance suite").await else {
        return;
    };
    run_all(&db.url).await;
}
