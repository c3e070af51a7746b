//! Fencing: a node whose lease passed to another can neither commit hands nor move money
//! at the table.

use super::*;

/// A hand dealt under a lease that has since passed to another node is refused whole and
/// moves no chip; the current owner's hands commit, alone or in the persister's batches.
pub(crate) async fn lease_a_hand_with_a_stale_fence_is_refused_and_moves_no_chip(store: &SqlStore) {
    let (a, b, table, other, old) = two_tables_one_leased(store, "fence").await;
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
pub(crate) async fn lease_money_moves_with_a_stale_fence_are_refused_and_move_nothing(
    store: &SqlStore,
) {
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
            ratholes.push(rathole(store, table, p).await);
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
        "adjust_stack",
        table,
        store
            .adjust_stack(table, a, 50, "host:x", stale)
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
