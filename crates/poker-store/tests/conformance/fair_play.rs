//! Fair play: sit addresses, same-address flags, shared addresses and the hands of a
//! window or a pair of players.

use super::*;

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
