//! A player's own reads and writes: private notes on other players, and their hands by
//! date (their stats and history download).

use super::*;

pub(crate) async fn notes_are_private_to_their_owner_replaced_deleted_and_checked(
    store: &SqlStore,
) {
    let (ann, bob, cy) = (
        player(store, "ann", 0).await,
        player(store, "bob", 0).await,
        player(store, "cy", 0).await,
    );
    store
        .set_note(ann, bob, "calls too much\nbluffs rivers", 10)
        .await
        .unwrap();
    store.set_note(ann, cy, "tight", 20).await.unwrap();
    store.set_note(bob, ann, "ann is loose", 30).await.unwrap();
    // Ann's notes, newest first; Bob's are his alone.
    let anns = store.notes(ann).await.unwrap();
    assert_eq!(
        anns.iter()
            .map(|n| (n.subject, n.note.as_str(), n.updated_at))
            .collect::<Vec<_>>(),
        vec![
            (cy, "tight", 20),
            (bob, "calls too much\nbluffs rivers", 10)
        ]
    );
    let bobs = store.notes(bob).await.unwrap();
    assert_eq!(bobs.len(), 1);
    assert_eq!(
        (bobs[0].subject, bobs[0].note.as_str()),
        (ann, "ann is loose")
    );
    assert!(store.notes(cy).await.unwrap().is_empty());
    // Writing again replaces; a blank note deletes.
    store
        .set_note(ann, bob, "folds to 3-bets", 40)
        .await
        .unwrap();
    let anns = store.notes(ann).await.unwrap();
    assert_eq!(anns[0].subject, bob);
    assert_eq!(anns[0].note, "folds to 3-bets");
    assert_eq!(anns.len(), 2);
    store.set_note(ann, cy, "  ", 50).await.unwrap();
    let anns = store.notes(ann).await.unwrap();
    assert_eq!(anns.len(), 1);
    assert_eq!(anns[0].subject, bob);
    // Deleting a note that does not exist is no error.
    store.set_note(cy, bob, "", 60).await.unwrap();
    // Refused: a note on oneself, on nobody, too long, with a control character.
    assert!(matches!(
        store.set_note(ann, ann, "me", 70).await,
        Err(StoreError::Invalid(_))
    ));
    assert!(matches!(
        store.set_note(ann, PlayerId::new(), "ghost", 70).await,
        Err(StoreError::NotFound(_))
    ));
    let long = "x".repeat(poker_store::MAX_NOTE_LEN + 1);
    assert!(matches!(
        store.set_note(ann, bob, &long, 70).await,
        Err(StoreError::Invalid(_))
    ));
    assert!(matches!(
        store.set_note(ann, bob, "bell\u{7}", 70).await,
        Err(StoreError::Invalid(_))
    ));
    let longest = "y".repeat(poker_store::MAX_NOTE_LEN);
    store.set_note(ann, bob, &longest, 80).await.unwrap();
    assert_eq!(store.notes(ann).await.unwrap()[0].note, longest);
    audit_holds(store).await;
}

pub(crate) async fn a_players_hands_are_read_by_date_oldest_first(store: &SqlStore) {
    let (i, j) = (
        player(store, "iris", 1000).await,
        player(store, "joe", 1000).await,
    );
    let table = store.create_table("t8", "{}").await.unwrap();
    store.buy_in(table, 0, i, 300, None, None).await.unwrap();
    store.buy_in(table, 1, j, 300, None, None).await.unwrap();
    let mut stacks = [300u64, 300];
    for n in 1..=6u64 {
        // Iris plays every hand, Joe only the even ones (Iris's chips are then his).
        let mut players = vec![(i, 0, stacks[0], stacks[0])];
        if n % 2 == 0 {
            players[0].3 = stacks[0] + 5;
            players.push((j, 1, stacks[1], stacks[1] - 5));
            stacks[0] += 5;
            stacks[1] -= 5;
        }
        // Hand n starts at 1000 + n (the scenario's helper).
        store
            .commit_hands(&[hand(table, n, &players, 0)])
            .await
            .unwrap();
    }
    let numbers =
        |rows: Vec<poker_store::HandRow>| -> Vec<u64> { rows.iter().map(|h| h.number).collect() };
    // From 1002 to before 1005: hands 2, 3, 4, oldest first.
    assert_eq!(
        numbers(
            store
                .player_hands_between(i, 1002, 1005, 100)
                .await
                .unwrap()
        ),
        vec![2, 3, 4]
    );
    assert_eq!(
        numbers(
            store
                .player_hands_between(j, 0, i64::MAX, 100)
                .await
                .unwrap()
        ),
        vec![2, 4, 6]
    );
    assert_eq!(
        numbers(store.player_hands_between(i, 0, i64::MAX, 2).await.unwrap()),
        vec![1, 2]
    );
    assert!(store
        .player_hands_between(j, 1007, i64::MAX, 100)
        .await
        .unwrap()
        .is_empty());
    // A hand still in play (started, never committed) is not among them.
    store
        .start_hands(&[HandStart {
            hand: HandId::new(),
            table,
            number: 7,
            at: 1007,
            fence: None,
        }])
        .await
        .unwrap();
    assert_eq!(
        numbers(
            store
                .player_hands_between(i, 1006, i64::MAX, 100)
                .await
                .unwrap()
        ),
        vec![6]
    );
    audit_holds(store).await;
}

/// Issue 37 item 8: a seat released while its player had no page open is kept to tell
/// them on coming back, oldest first, each once, to that player only.
pub(crate) async fn seat_release_notices_are_kept_until_told_once_to_their_player(
    store: &SqlStore,
) {
    let (ann, bob) = (player(store, "ann", 0).await, player(store, "bob", 0).await);
    let home = store.create_table("Home", "{}").await.unwrap();
    let friday = store.create_table("Friday game", "{}").await.unwrap();
    assert!(store
        .take_seat_release_notices(ann)
        .await
        .unwrap()
        .is_empty());
    store
        .note_seat_released(ann, home, "Home", 3_700, 180)
        .await
        .unwrap();
    store
        .note_seat_released(ann, friday, "Friday game", 86_400, 0)
        .await
        .unwrap();
    // Bob has none of Ann's.
    assert!(store
        .take_seat_release_notices(bob)
        .await
        .unwrap()
        .is_empty());
    let told = store.take_seat_release_notices(ann).await.unwrap();
    // Oldest first: two written in the same millisecond may come in either order.
    let mut seen: Vec<_> = told
        .iter()
        .map(|n| (n.table_id, n.table_name.as_str(), n.away_secs, n.amount))
        .collect();
    if told[0].created_at == told[1].created_at {
        seen.sort_by_key(|n| std::cmp::Reverse(n.2 == 3_700));
    }
    assert_eq!(
        seen,
        vec![
            (home, "Home", 3_700, 180),
            (friday, "Friday game", 86_400, 0)
        ]
    );
    assert!(told[0].created_at <= told[1].created_at);
    // Told once.
    assert!(store
        .take_seat_release_notices(ann)
        .await
        .unwrap()
        .is_empty());
}
