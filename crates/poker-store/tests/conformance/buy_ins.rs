//! Buy-ins committed in groups ([`SqlStore::buy_ins`] and the persister): many tables' sits
//! in one transaction, each with its ledger movement, each refused on its own.

use super::*;
use poker_store::BuyIn;

fn sit(table: TableId, seat_no: u32, player: PlayerId, amount: Chips) -> BuyIn {
    BuyIn {
        table,
        seat_no,
        player,
        amount,
        fence: None,
    }
}

/// One batch holding good buy-ins and refused ones (a wallet too poor, a seat taken by an
/// earlier buy-in of the same batch, a player already seated at that table, a zero
/// amount): the good
/// ones are applied with their ledger rows, each refusal is answered with its own reason
/// and moves nothing, and the audit holds.
pub(crate) async fn buy_ins_in_one_batch_are_applied_or_refused_one_by_one(store: &SqlStore) {
    let rich = player(store, "batch-rich", 1000).await;
    let poor = player(store, "batch-poor", 30).await;
    let late = player(store, "batch-late", 1000).await;
    let twice = player(store, "batch-twice", 1000).await;
    let zero = player(store, "batch-zero", 1000).await;
    let t1 = store.create_table("batch-1", "{}").await.unwrap();
    let t2 = store.create_table("batch-2", "{}").await.unwrap();
    let batch = [
        sit(t1, 0, rich, 400),
        sit(t1, 1, poor, 40),
        sit(t1, 0, late, 100),
        sit(t1, 3, twice, 200),
        sit(t1, 2, twice, 200),
        sit(t2, 1, zero, 0),
        sit(t2, 2, late, 100),
    ];
    let results = store.buy_ins(&batch).await.expect("the batch commits");
    assert_eq!(results.len(), batch.len());
    assert!(
        matches!(
            results[1],
            Err(StoreError::InsufficientFunds { balance: 30 })
        ),
        "{:?}",
        results[1]
    );
    // Buy-ins are applied in player order (a player's own in batch order), so which of the
    // two sits on seat 0 of t1 wins depends on the ids: one is applied, the other refused.
    let seat_zero = [&results[0], &results[2]];
    assert_eq!(seat_zero.iter().filter(|r| r.is_ok()).count(), 1);
    assert!(seat_zero
        .iter()
        .any(|r| matches!(r, Err(StoreError::SeatTaken))));
    assert!(results[3].is_ok(), "{:?}", results[3]);
    assert!(
        matches!(results[4], Err(StoreError::AlreadySeated)),
        "{:?}",
        results[4]
    );
    assert!(
        matches!(results[5], Err(StoreError::Invalid(_))),
        "{:?}",
        results[5]
    );
    assert!(results[6].is_ok(), "{:?}", results[6]);
    // Money and seats agree with the answers.
    let mut expected_seated = Vec::new();
    for (buy_in, result) in batch.iter().zip(&results) {
        if result.is_ok() {
            expected_seated.push((buy_in.table, buy_in.seat_no, buy_in.player, buy_in.amount));
        }
    }
    let mut seated = Vec::new();
    for table in [t1, t2] {
        for s in store.seats(table).await.unwrap() {
            seated.push((table, s.seat_no, s.player_id, s.stack));
        }
    }
    seated.sort();
    expected_seated.sort();
    assert_eq!(seated, expected_seated);
    for p in [rich, poor, late, twice, zero] {
        let bought: Chips = expected_seated
            .iter()
            .filter(|s| s.2 == p)
            .map(|s| s.3)
            .sum();
        let deposit = if p == poor { 30 } else { 1000 };
        assert_eq!(store.balance(p).await.unwrap(), deposit - bought);
        let ledger = store.ledger(p, 100).await.unwrap();
        let buy_in_rows = ledger.iter().filter(|e| e.kind == "buy_in").count();
        let sits = expected_seated.iter().filter(|s| s.2 == p).count();
        // Two entries per movement (the wallet's and the seat's), both named by player.
        assert!(
            buy_in_rows >= sits,
            "{p}: {buy_in_rows} buy_in rows for {sits} sits"
        );
        if sits == 0 {
            assert_eq!(buy_in_rows, 0, "a refused buy-in left a ledger row");
        }
    }
    // An empty batch is an empty answer.
    assert!(store.buy_ins(&[]).await.unwrap().is_empty());
    audit_holds(store).await;
}

/// Sixty tables fill at once through the persister (360 buy-ins, some batched together),
/// with one player per table too poor to sit: every other sit is durable with its ledger
/// movement, every poor one is refused alone, and the money in the room is unchanged.
pub(crate) async fn the_persister_group_commits_many_tables_buy_ins(store: &SqlStore) {
    let shared = Arc::new(store.clone());
    let persister = Persister::spawn(shared.clone(), 64);
    let mut sits = Vec::new();
    for t in 0..60 {
        let table = store
            .create_table(&format!("fill-{t}"), "{}")
            .await
            .unwrap();
        for seat in 0..6u32 {
            let deposit = if seat == 5 { 50 } else { 500 };
            let p = player(store, &format!("fill{t}s{seat}"), deposit).await;
            sits.push(sit(table, seat, p, 200));
        }
    }
    let mut tasks = Vec::new();
    for buy_in in sits.clone() {
        let persister = persister.clone();
        tasks.push(tokio::spawn(async move { persister.buy_in(buy_in).await }));
    }
    for (buy_in, task) in sits.iter().zip(tasks) {
        let result = task.await.unwrap();
        if buy_in.seat_no == 5 {
            assert!(
                matches!(result, Err(StoreError::InsufficientFunds { balance: 50 })),
                "{result:?}"
            );
            assert_eq!(store.balance(buy_in.player).await.unwrap(), 50);
        } else {
            result.expect("a funded buy-in is durable");
            assert_eq!(store.balance(buy_in.player).await.unwrap(), 300);
            let ledger = store.ledger(buy_in.player, 10).await.unwrap();
            assert!(ledger
                .iter()
                .any(|e| e.kind == "buy_in" && e.amount == -200));
        }
    }
    for table in sits
        .iter()
        .map(|s| s.table)
        .collect::<std::collections::BTreeSet<_>>()
    {
        let seats = store.seats(table).await.unwrap();
        assert_eq!(seats.len(), 5);
        assert!(seats.iter().all(|s| s.stack == 200 && s.seat_no < 5));
    }
    let audit = store.audit().await.unwrap();
    assert!(audit.holds(), "{audit:?}");
    // Deposits: 60 tables of five players with 500 and one with 50.
    assert_eq!(audit.deposits - audit.withdrawals, 60 * (5 * 500 + 50));
    assert_eq!(audit.stacks, 60 * 5 * 200);
}

/// A batch of buy-ins none of which is refused (on PostgreSQL the set-based path: a few
/// statements for the whole batch) leaves exactly what the same buy-ins one by one
/// leave: seats, wallets, each buy-in's two ledger rows of one movement, the tables'
/// ledgers; a player buying in at two tables of the batch for all their balance, and
/// fenced tables, included. A batch with one buy-in that would be refused (a stale
/// fence) is answered one by one, the others applied; on PostgreSQL that is counted as a
/// set path given up, and nothing else was.
pub(crate) async fn buy_ins_a_batch_of_good_ones_leaves_what_one_by_one_does(store: &SqlStore) {
    // Two rooms of the same shape: one filled by a batch, one buy-in at a time.
    struct Room {
        tables: [TableId; 2],
        players: Vec<PlayerId>,
        fence: u64,
    }
    let mut rooms = Vec::new();
    for name in ["batched", "single"] {
        let t1 = store
            .create_table(&format!("{name}-1"), "{}")
            .await
            .unwrap();
        let t2 = store
            .create_table(&format!("{name}-2"), "{}")
            .await
            .unwrap();
        let fence = store
            .acquire_lease(t2, "node-a", 60_000)
            .await
            .unwrap()
            .expect("a free table's lease");
        let mut players = Vec::new();
        for i in 0..5 {
            players.push(player(store, &format!("{name}-p{i}"), 1000 + 100 * i).await);
        }
        rooms.push(Room {
            tables: [t1, t2],
            players,
            fence,
        });
    }
    // Player 0 buys in at both tables for all 1,000 of the wallet.
    let batch_of = |room: &Room| {
        let [t1, t2] = room.tables;
        let p = &room.players;
        let fenced = |mut b: BuyIn| {
            b.fence = Some(room.fence);
            b
        };
        vec![
            sit(t1, 0, p[0], 600),
            sit(t1, 3, p[1], 250),
            sit(t1, 5, p[2], 1200),
            fenced(sit(t2, 1, p[0], 400)),
            fenced(sit(t2, 2, p[3], 77)),
            fenced(sit(t2, 4, p[4], 1400)),
        ]
    };
    let fallbacks = store.set_path_fallbacks();
    let batch = batch_of(&rooms[0]);
    let results = store.buy_ins(&batch).await.expect("the batch commits");
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert_eq!(
        store.set_path_fallbacks(),
        fallbacks,
        "a batch of good buy-ins went one by one"
    );
    for buy_in in batch_of(&rooms[1]) {
        store
            .buy_in(
                buy_in.table,
                buy_in.seat_no,
                buy_in.player,
                buy_in.amount,
                None,
                buy_in.fence,
            )
            .await
            .expect("one buy-in");
    }
    // What each room holds, with its own ids replaced by their places in the room.
    let described = |room: &Room| {
        let room_players = room.players.clone();
        let room_tables = room.tables;
        async move {
            let place = |text: &str| {
                let mut text = text.to_string();
                for (i, p) in room_players.iter().enumerate() {
                    text = text.replace(&p.to_string(), &format!("P{i}"));
                }
                for (i, t) in room_tables.iter().enumerate() {
                    text = text.replace(&t.to_string(), &format!("T{i}"));
                }
                text
            };
            let mut seats = Vec::new();
            let mut ledgers = Vec::new();
            for table in room_tables {
                for s in store.seats(table).await.unwrap() {
                    seats.push(place(&format!(
                        "{table} {} {} {}",
                        s.seat_no, s.player_id, s.stack
                    )));
                }
                let ledger = store.table_ledger(table).await.unwrap();
                for line in ledger.lines {
                    ledgers.push(place(&format!(
                        "{table} {} in {} out {} held {}",
                        line.player_id, line.bought_in, line.cashed_out, line.stack
                    )));
                }
            }
            let mut wallets = Vec::new();
            let mut entries = Vec::new();
            for &p in &room_players {
                wallets.push(place(&format!("{p} {}", store.balance(p).await.unwrap())));
                let rows = store.ledger(p, 100).await.unwrap();
                let mut by_movement: std::collections::BTreeMap<String, Vec<String>> =
                    Default::default();
                for e in rows.iter().filter(|e| e.kind == "buy_in") {
                    assert_eq!(e.reference, None);
                    by_movement
                        .entry(e.movement_id.clone())
                        .or_default()
                        .push(place(&format!("{} {}", e.account, e.amount)));
                }
                for (_, mut movement) in by_movement {
                    movement.sort();
                    entries.push(movement.join(" / "));
                }
            }
            seats.sort();
            ledgers.sort();
            entries.sort();
            (seats, ledgers, wallets, entries)
        }
    };
    let batched = described(&rooms[0]).await;
    let single = described(&rooms[1]).await;
    assert_eq!(batched, single);
    // Six seats, player 0's wallet empty, and six movements of two rows each.
    assert_eq!(batched.0.len(), 6);
    assert_eq!(batched.2[0], "P0 0");
    assert_eq!(batched.3.len(), 6, "{:?}", batched.3);
    assert!(batched
        .3
        .contains(&"seat:T1:P0 400 / wallet:P0 -400".to_string()));
    audit_holds(store).await;

    // The lease moves on: a batch holding a buy-in under the old token is answered one by
    // one, the stale one refused and the others applied.
    let [t1, t2] = rooms[0].tables;
    assert!(store
        .renew_lease(t2, "node-a", rooms[0].fence, -1)
        .await
        .unwrap());
    let new = store
        .acquire_lease(t2, "node-b", 60_000)
        .await
        .unwrap()
        .unwrap();
    let late = player(store, "batched-late", 500).await;
    let later = player(store, "batched-later", 500).await;
    let stale = BuyIn {
        fence: Some(rooms[0].fence),
        ..sit(t2, 0, late, 100)
    };
    let current = BuyIn {
        fence: Some(new),
        ..sit(t2, 3, later, 100)
    };
    let fallbacks = store.set_path_fallbacks();
    let results = store
        .buy_ins(&[stale, current, sit(t1, 1, late, 200)])
        .await
        .expect("the batch commits");
    assert!(
        matches!(results[0], Err(StoreError::Fenced { table, token }) if table == t2 && token == rooms[0].fence),
        "{:?}",
        results[0]
    );
    assert!(results[1].is_ok() && results[2].is_ok(), "{results:?}");
    assert_eq!(store.balance(late).await.unwrap(), 300);
    assert_eq!(store.balance(later).await.unwrap(), 400);
    let mut expected = fallbacks;
    if store.backend() == Backend::Postgres {
        expected.buy_ins_refused += 1;
    }
    assert_eq!(store.set_path_fallbacks(), expected);

    // Two buy-ins of one player that each fit the wallet but not together: the batch is
    // answered one by one, in batch order, the second refused.
    let both = player(store, "batched-both", 300).await;
    let t3 = store.create_table("batched-3", "{}").await.unwrap();
    let fallbacks = store.set_path_fallbacks();
    let results = store
        .buy_ins(&[sit(t3, 0, both, 200), sit(t1, 2, both, 200)])
        .await
        .expect("the batch commits");
    assert!(results[0].is_ok(), "{results:?}");
    assert!(
        matches!(
            results[1],
            Err(StoreError::InsufficientFunds { balance: 100 })
        ),
        "{results:?}"
    );
    assert_eq!(store.balance(both).await.unwrap(), 100);
    assert_eq!(store.seats(t3).await.unwrap().len(), 1);
    let mut expected = fallbacks;
    if store.backend() == Backend::Postgres {
        expected.buy_ins_refused += 1;
    }
    assert_eq!(store.set_path_fallbacks(), expected);
    assert_eq!(expected.buy_ins_failed, 0);
    audit_holds(store).await;
}
