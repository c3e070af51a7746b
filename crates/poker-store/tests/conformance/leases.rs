//! Leases: one node holds a table until its lease expires or is released, renewals,
//! candidates, races, and the first tables made once.

use super::*;

/// A table passes between nodes only through its lease: taken when free, refused to others
/// while live, passed on with a higher token once expired or released; the old owner can
/// then neither renew nor release it.
pub(crate) async fn lease_a_table_is_held_by_one_node_until_it_expires_or_is_released(
    store: &SqlStore,
) {
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
pub(crate) async fn a_table_is_found_by_its_id_whatever_its_status(store: &SqlStore) {
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

/// A node renews all its leases in one call: it keeps those still its own (live or
/// expired but not taken since) and loses those another node took, released ones, and any
/// it names with a token that is not the lease's.
pub(crate) async fn lease_renewing_many_at_once_keeps_only_those_still_held(store: &SqlStore) {
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

pub(crate) async fn lease_candidates_are_the_open_tables_without_a_live_lease(store: &SqlStore) {
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

pub(crate) async fn lease_two_nodes_racing_for_a_table_never_both_win(store: &SqlStore) {
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
pub(crate) async fn lease_first_tables_are_made_once_by_nodes_starting_together(store: &SqlStore) {
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
