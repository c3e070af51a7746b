//! Fair play: sit addresses, same-address flags, shared addresses and the hands of a
//! window or a pair of players.

use super::*;
use poker_store::FoldFact;

/// Fair play: the address of each sit (the seat's, kept across a restart only for the
/// seat it was recorded for), the same-address flags, the addresses players share, and
/// the hands of a window of time or of a pair of players.
pub(crate) async fn fair_play_sit_addresses_flags_shared_addresses_and_hands_of_a_window_or_a_pair(
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
    let mut committed = Vec::new();
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
        h.record.board = "AhKd7c".into();
        h.record.seat_players = players.iter().map(|p| p.0).collect();
        h.record.starting_stacks = players.iter().map(|p| p.2).collect();
        h.record.finishing_stacks = players.iter().map(|p| p.3).collect();
        if n == 2 {
            h.record.folds = Some(vec![FoldFact {
                folder: 1,
                bettor: 0,
                ahead: true,
            }]);
        }
        store.commit_hands(std::slice::from_ref(&h)).await.unwrap();
        for &(p, seat, _, end) in &players {
            let _ = p;
            stacks[seat as usize] = end;
        }
        ids.push(h.hand_id);
        committed.push(h);
    }
    let window = store
        .fair_play_hands(7_000_000, 7_000_100, 10)
        .await
        .unwrap();
    assert_eq!(
        window.iter().map(|h| h.hand_id).collect::<Vec<_>>(),
        vec![ids[2], ids[1], ids[0]]
    );
    // Each hand as the report reads it: the record's players, stacks and folds, and the
    // history only where the record lacks the folds (the middle hand's has them).
    for (h, committed) in window.iter().zip(committed.iter().rev()) {
        assert_eq!(h.started_at, committed.started_at);
        let facts = h.facts.as_ref().expect("a record");
        assert_eq!(facts.seat_players, committed.record.seat_players);
        assert_eq!(facts.starting_stacks, committed.record.starting_stacks);
        assert_eq!(facts.finishing_stacks, committed.record.finishing_stacks);
        assert_eq!(facts.folds, committed.record.folds);
        let phh = committed
            .record
            .folds
            .is_none()
            .then(|| committed.phh.clone());
        assert_eq!(
            h.phh, phh,
            "the history is read only for a record without its folds"
        );
    }
    let newest: Vec<HandId> = store
        .fair_play_hands(7_000_000, 7_000_003, 1)
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

/// A batch of writes that move no money (`save_table_writes`, as the persister sends a
/// room's sits, sit-outs, blinds owed and tables' states) leaves what the same writes
/// leave one by one: each key's last write stands, a player's sits from one address add
/// up. On PostgreSQL a batch is one statement per kind, on SQLite one write after
/// another: the same expectations hold for both. A batch with one write that cannot be
/// made writes nothing and says why.
pub(crate) async fn fair_play_table_writes_in_one_batch_are_as_one_by_one_and_a_bad_one_writes_none(
    store: &SqlStore,
) {
    let (ann, ben, cid, stranger) = (
        player(store, "bw-ann", 1000).await,
        player(store, "bw-ben", 1000).await,
        player(store, "bw-cid", 1000).await,
        player(store, "bw-stranger", 1000).await,
    );
    let (t1, t2) = (
        store.create_table("bw-1", "{}").await.unwrap(),
        store.create_table("bw-2", "{}").await.unwrap(),
    );
    store.buy_in(t1, 0, ann, 100, None, None).await.unwrap();
    store.buy_in(t1, 1, ben, 100, None, None).await.unwrap();
    store.buy_in(t2, 0, ann, 100, None, None).await.unwrap();
    store.buy_in(t2, 1, cid, 100, None, None).await.unwrap();
    // Ann owes a small blind at table 2 before the batch; the batch clears it.
    store
        .save_table_writes(&[TableWrite::MissedBlinds {
            table: t2,
            player: ann,
            small: true,
            big: false,
        }])
        .await
        .unwrap();
    let (home, other) = ("203.0.113.70", "198.51.100.9");
    // A sit's address counts for the seat taken before it.
    let t0 = now_ms();
    let sit =
        |table, player, address: &str, at, flagged_with: Vec<PlayerId>| TableWrite::SitAddress {
            table,
            player,
            address: address.to_string(),
            at,
            flagged_with,
        };
    let out = |table, player, out| TableWrite::SittingOut { table, player, out };
    let owes = |table, player, small, big| TableWrite::MissedBlinds {
        table,
        player,
        small,
        big,
    };
    let state = |table, s: &str| TableWrite::State {
        table,
        state: s.to_string(),
    };
    let batch = vec![
        state(t1, r#"{"n":1}"#),
        sit(t1, ann, home, t0 + 1_000, vec![]),
        out(t1, ann, true),
        owes(t1, ben, true, true),
        state(t2, r#"{"n":2}"#),
        sit(t2, ann, home, t0 + 2_000, vec![]),
        sit(t1, ben, home, t0 + 1_500, vec![ann]),
        out(t2, cid, true),
        owes(t2, ann, false, false),
        out(t1, ann, false),
        owes(t1, ben, false, true),
        sit(t2, cid, other, t0 + 2_500, vec![]),
        state(t1, r#"{"n":3}"#),
    ];
    store.save_table_writes(&batch).await.unwrap();
    assert_eq!(
        store.table_state(t1).await.unwrap().as_deref(),
        Some(r#"{"n":3}"#)
    );
    assert_eq!(
        store.table_state(t2).await.unwrap().as_deref(),
        Some(r#"{"n":2}"#)
    );
    let out_of = |seats: Vec<poker_store::SeatRow>| -> Vec<(PlayerId, bool)> {
        let mut v: Vec<_> = seats.iter().map(|s| (s.player_id, s.sitting_out)).collect();
        v.sort();
        v
    };
    let mut expected = vec![(ann, false), (ben, false)];
    expected.sort();
    assert_eq!(out_of(store.seats(t1).await.unwrap()), expected);
    let mut expected = vec![(ann, false), (cid, true)];
    expected.sort();
    assert_eq!(out_of(store.seats(t2).await.unwrap()), expected);
    assert_eq!(store.missed_blinds(t1, ben).await.unwrap(), (false, true));
    assert_eq!(store.missed_blinds(t2, ann).await.unwrap(), (false, false));
    let mut expected = vec![(ann, home.to_string()), (ben, home.to_string())];
    expected.sort();
    assert_eq!(store.seat_addresses(t1).await.unwrap(), expected);
    let mut expected = vec![(ann, home.to_string()), (cid, other.to_string())];
    expected.sort();
    assert_eq!(store.seat_addresses(t2).await.unwrap(), expected);
    let shared: Vec<(PlayerId, String, i64, i64, u64)> = store
        .shared_addresses(0)
        .await
        .unwrap()
        .into_iter()
        .filter(|a| [ann, ben, cid].contains(&a.player_id))
        .map(|a| (a.player_id, a.address, a.first_at, a.last_at, a.sits))
        .collect();
    let mut expected = vec![
        (ann, home.to_string(), t0 + 1_000, t0 + 2_000, 2),
        (ben, home.to_string(), t0 + 1_500, t0 + 1_500, 1),
    ];
    expected.sort();
    assert_eq!(shared, expected, "cid's address is nobody else's");
    let flags: Vec<_> = store
        .address_flags(100, 0)
        .await
        .unwrap()
        .into_iter()
        .filter(|f| f.table_id == t1 || f.table_id == t2)
        .map(|f| (f.table_id, f.player_id, f.other_id, f.address, f.at))
        .collect();
    assert_eq!(flags, vec![(t1, ben, ann, home.to_string(), t0 + 1_500)]);
    // One write for a player not seated: nothing of the batch is written.
    let bad = store
        .save_table_writes(&[
            state(t1, r#"{"n":4}"#),
            sit(t1, ann, other, t0 + 3_000, vec![]),
            out(t1, stranger, true),
            out(t1, ben, true),
        ])
        .await;
    assert!(matches!(bad, Err(StoreError::NotSeated)), "{bad:?}");
    assert_eq!(
        store.table_state(t1).await.unwrap().as_deref(),
        Some(r#"{"n":3}"#)
    );
    assert_eq!(store.missed_blinds(t1, ben).await.unwrap(), (false, true));
    let mut expected = vec![(ann, home.to_string()), (ben, home.to_string())];
    expected.sort();
    assert_eq!(store.seat_addresses(t1).await.unwrap(), expected);
    assert!(!store.seats(t1).await.unwrap().iter().any(|s| s.sitting_out));
    // An address the store refuses refuses its batch too.
    let refused = store
        .save_table_writes(&[
            state(t1, r#"{"n":5}"#),
            sit(t1, ann, "", t0 + 3_000, vec![]),
        ])
        .await;
    assert!(
        matches!(refused, Err(StoreError::Invalid(_))),
        "{refused:?}"
    );
    assert_eq!(
        store.table_state(t1).await.unwrap().as_deref(),
        Some(r#"{"n":3}"#)
    );
}

/// A player's sits from one address are counted from the first to the last whatever the
/// order their writes reach the store in (two sit tasks may pass each other), in one
/// batch or one by one; and a batch that falls back to one by one (a write for a seat
/// gone) takes its rows' locks in the order a batch at the same moment takes them, so the
/// two never deadlock (PostgreSQL: they deadlocked in 14 rounds of 30 before).
pub(crate) async fn fair_play_sits_count_first_to_last_in_any_order_and_batches_do_not_deadlock(
    store: &SqlStore,
) {
    let (ann, ben, gone) = (
        player(store, "so-ann", 1000).await,
        player(store, "so-ben", 1000).await,
        player(store, "so-gone", 0).await,
    );
    let (t1, t2) = (
        store.create_table("so-1", "{}").await.unwrap(),
        store.create_table("so-2", "{}").await.unwrap(),
    );
    store.buy_in(t1, 0, ann, 100, None, None).await.unwrap();
    store.buy_in(t2, 0, ann, 100, None, None).await.unwrap();
    store.buy_in(t1, 1, ben, 100, None, None).await.unwrap();
    let home = "203.0.113.99";
    let t0 = now_ms();
    let sit = |table, player, at| TableWrite::SitAddress {
        table,
        player,
        address: home.to_string(),
        at,
        flagged_with: vec![],
    };
    store
        .save_table_writes(&[sit(t1, ann, t0 + 2_000), sit(t2, ann, t0 + 1_000)])
        .await
        .unwrap();
    // One by one, later sits first.
    store
        .save_table_writes(&[sit(t1, ben, t0 + 3_000)])
        .await
        .unwrap();
    store
        .save_table_writes(&[sit(t1, ben, t0 + 500)])
        .await
        .unwrap();
    let mut got: Vec<_> = store
        .shared_addresses(0)
        .await
        .unwrap()
        .into_iter()
        .filter(|a| a.address == home)
        .map(|a| (a.player_id, a.first_at - t0, a.last_at - t0, a.sits))
        .collect();
    got.sort();
    let mut expected = vec![(ann, 1_000, 2_000, 2), (ben, 500, 3_000, 2)];
    expected.sort();
    assert_eq!(got, expected);
    // Forty players' sits at two tables, in two batches at once: one in the opposite
    // order and with a sit-out for nobody seated (it goes one by one and is refused), the
    // other as it comes (one statement a kind).
    let mut players = Vec::new();
    for i in 0..40 {
        players.push(player(store, &format!("so-{i}"), 0).await);
    }
    players.sort_by_key(|p| p.to_string());
    let here = "203.0.113.98";
    let sit = |table, player| TableWrite::SitAddress {
        table,
        player,
        address: here.to_string(),
        at: now_ms(),
        flagged_with: vec![],
    };
    for round in 0..10 {
        let mut a: Vec<TableWrite> = players.iter().rev().map(|&p| sit(t1, p)).collect();
        a.push(TableWrite::SittingOut {
            table: t1,
            player: gone,
            out: true,
        });
        let b: Vec<TableWrite> = players.iter().map(|&p| sit(t2, p)).collect();
        let (x, y) = tokio::join!(store.save_table_writes(&a), store.save_table_writes(&b));
        assert!(
            matches!(x, Err(StoreError::NotSeated)),
            "round {round}: {x:?}"
        );
        assert!(y.is_ok(), "round {round}: {y:?}");
    }
    let sits: Vec<u64> = store
        .shared_addresses(0)
        .await
        .unwrap()
        .into_iter()
        .filter(|a| a.address == here)
        .map(|a| a.sits)
        .collect();
    assert_eq!(sits, vec![10; 40], "the refused batches counted nothing");
}

/// A sit's address sent to the persister beside a hand the store refuses (a stale fence)
/// is written once: PostgreSQL writes a batch's hands, starts and saves in transactions of
/// their own, and a batch whose hands fail writes its saves again, which would count the
/// sit twice and flag the pair twice (found by a review).
pub(crate) async fn fair_play_a_sits_address_beside_a_fenced_hand_counts_once(store: &SqlStore) {
    let (a, b, table, other, old) = two_tables_one_leased(store, "fh").await;
    assert!(store.renew_lease(table, "node-a", old, -1).await.unwrap());
    store
        .acquire_lease(table, "node-b", 60_000)
        .await
        .unwrap()
        .unwrap();
    let mut stale = hand(table, 1, &[(a, 0, 500, 520), (b, 1, 500, 480)], 0);
    stale.fence = Some(old);
    let home = "203.0.113.96";
    let persister = Persister::spawn(Arc::new(store.clone()), 64);
    let (fenced, saved) = tokio::join!(
        persister.commit(stale),
        persister.save(vec![TableWrite::SitAddress {
            table: other,
            player: b,
            address: home.to_string(),
            at: now_ms(),
            flagged_with: vec![a],
        }])
    );
    assert!(
        matches!(fenced, Err(StoreError::Fenced { .. })),
        "{fenced:?}"
    );
    saved.unwrap();
    // A's sit from the same address, so that it shows as shared.
    store
        .record_sit_address(other, a, home, now_ms(), &[])
        .await
        .unwrap();
    let sits: Vec<u64> = store
        .shared_addresses(0)
        .await
        .unwrap()
        .into_iter()
        .filter(|x| x.player_id == b)
        .map(|x| x.sits)
        .collect();
    let flags = store
        .address_flags(100, 0)
        .await
        .unwrap()
        .into_iter()
        .filter(|f| f.table_id == other)
        .count();
    assert_eq!((sits, flags), (vec![1], 1), "one sit, one flag");
}
