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
    // A sign-in's read says whether any wait (and a sign-in takes them only then).
    for (hash, who) in [("ann-hash", ann), ("bob-hash", bob)] {
        store
            .create_session(hash, who, now_ms() + 60_000)
            .await
            .unwrap();
    }
    let waiting =
        |hash: &'static str| async move { store.sign_in(hash).await.unwrap().unwrap().notices };
    assert!(!waiting("ann-hash").await);
    store
        .note_seat_released(ann, home, "Home", 3_700, 180)
        .await
        .unwrap();
    assert!(waiting("ann-hash").await);
    assert!(!waiting("bob-hash").await, "Ann's notices are not Bob's");
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
    assert!(!waiting("ann-hash").await);
}

/// Issue 38 item 4: a player's ranges, stats and a pair's hands are read by when each
/// hand was dealt (`hand_player.started_at`, in the players' index with the stacks and the
/// big blind), exactly the hands of the range; rows written by a node of the previous
/// release during a roll (no deal time, no big blind) are still found, the old way.
pub(crate) async fn a_players_results_and_ranges_are_read_by_the_deal_and_rows_of_the_previous_release_too(
    store: &SqlStore,
    url: &str,
) {
    use poker_rules::table::{Post, PostKind};
    let (i, j) = (
        player(store, "ivy", 1000).await,
        player(store, "jon", 1000).await,
    );
    let table = store.create_table("t9", "{}").await.unwrap();
    store.buy_in(table, 0, i, 300, None, None).await.unwrap();
    store.buy_in(table, 1, j, 300, None, None).await.unwrap();
    let mut stacks = [300u64, 300];
    let mut ids = Vec::new();
    for n in 1..=4u64 {
        // Ivy wins 10 of Jon's chips in odd hands and loses 4 in even ones; the first
        // three are played for a big blind of 10, the fourth for none the store can tell.
        let win: i64 = if n % 2 == 1 { 10 } else { -4 };
        let ends = [
            (stacks[0] as i64 + win) as u64,
            (stacks[1] as i64 - win) as u64,
        ];
        let mut h = hand(
            table,
            n,
            &[(i, 0, stacks[0], ends[0]), (j, 1, stacks[1], ends[1])],
            0,
        );
        if n <= 3 {
            h.record.posts = vec![Post {
                seat: 1,
                kind: PostKind::BigBlind,
                amount: 10,
                live: true,
            }];
        }
        // Hand 2 ends last of all, after hands 3 and 4 were dealt.
        if n == 2 {
            h.ended_at = 9_000;
        }
        stacks = ends;
        ids.push(h.hand_id);
        store.commit_hands(&[h]).await.unwrap();
    }
    // Hand 3's rows as a node of the previous release writes them: no deal time, no big
    // blind.
    let raw = sqlx::AnyPool::connect(url).await.expect("raw pool");
    let sql = match store.backend() {
        poker_store::Backend::Postgres => {
            "update hand_player set started_at = null, big_blind = null where hand_id = $1"
        }
        poker_store::Backend::Sqlite => {
            "update hand_player set started_at = null, big_blind = null where hand_id = ?"
        }
    };
    sqlx::query(sql)
        .bind(ids[2].to_string())
        .execute(&raw)
        .await
        .unwrap();
    raw.close().await;

    // Hands are dealt at 1000 + n: the whole history, oldest first, with each net and big
    // blind; hand 3's row does not say its big blind.
    let all = store
        .player_results_between(i, 0, i64::MAX, 100)
        .await
        .unwrap();
    let seen: Vec<(HandId, i64, i64, Option<Option<u64>>)> = all
        .iter()
        .map(|r| (r.hand_id, r.started_at, r.net, r.big_blind))
        .collect();
    assert_eq!(
        seen,
        vec![
            (ids[0], 1001, 10, Some(Some(10))),
            (ids[1], 1002, -4, Some(Some(10))),
            (ids[2], 1003, 10, None),
            (ids[3], 1004, -4, Some(None)),
        ]
    );
    let jon: Vec<i64> = store
        .player_results_between(j, 0, i64::MAX, 100)
        .await
        .unwrap()
        .iter()
        .map(|r| r.net)
        .collect();
    assert_eq!(jon, vec![-10, 4, -10, 4]);
    // Exactly the hands of a range, by the deal, whatever their ends; the previous
    // release's row too.
    let ranged = |rows: Vec<poker_store::HandResult>| -> Vec<HandId> {
        rows.iter().map(|r| r.hand_id).collect()
    };
    assert_eq!(
        ranged(
            store
                .player_results_between(i, 1002, 1004, 100)
                .await
                .unwrap()
        ),
        vec![ids[1], ids[2]]
    );
    assert_eq!(
        ranged(
            store
                .player_results_between(i, 1001, 1003, 1)
                .await
                .unwrap()
        ),
        vec![ids[0]]
    );
    let numbers =
        |rows: Vec<poker_store::HandRow>| -> Vec<u64> { rows.iter().map(|h| h.number).collect() };
    assert_eq!(
        numbers(
            store
                .player_hands_between(i, 1002, 1004, 100)
                .await
                .unwrap()
        ),
        vec![2, 3]
    );
    assert_eq!(
        numbers(
            store
                .player_hands_between(j, 1003, 1005, 100)
                .await
                .unwrap()
        ),
        vec![3, 4]
    );
    // A pair's hands, newest dealt first, in a window and at a table.
    let together =
        |rows: Vec<poker_store::HandRow>| -> Vec<u64> { rows.iter().map(|h| h.number).collect() };
    assert_eq!(
        together(
            store
                .hands_together(i, j, None, 0, i64::MAX, 10)
                .await
                .unwrap()
        ),
        vec![4, 3, 2, 1]
    );
    assert_eq!(
        together(
            store
                .hands_together(j, i, Some(table), 1002, 1004, 10)
                .await
                .unwrap()
        ),
        vec![3, 2]
    );
    assert_eq!(
        together(
            store
                .hands_together(i, j, None, 1003, 1005, 1)
                .await
                .unwrap()
        ),
        vec![4]
    );
    // The rake page's row of the table's days: the hands that ended each day.
    let days: Vec<(String, u64)> = store
        .rake_by_day(0)
        .await
        .unwrap()
        .into_iter()
        .filter(|d| d.table_id == table)
        .map(|d| (d.day, d.hands))
        .collect();
    assert_eq!(days, vec![("1970-01-01".to_string(), 4)]);
    audit_holds(store).await;
}
