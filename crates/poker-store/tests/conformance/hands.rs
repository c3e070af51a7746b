//! Hands: committing exactly once, crash recovery and voiding, histories, and the
//! persister's batches.

use super::*;

pub(crate) async fn a_committed_hand_changes_stacks_exactly_once(store: &SqlStore) {
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
    // The table's ledger: each seat's buy-in and what it holds now; the chips one seat
    // lost went to the other and to the rake.
    let ledger = store.table_ledger(table).await.unwrap();
    let lines: Vec<_> = ledger
        .lines
        .iter()
        .map(|l| (l.player_id, l.bought_in, l.cashed_out, l.stack, l.net()))
        .collect();
    assert_eq!(lines, vec![(d, 500, 0, 650, 150), (e, 500, 0, 347, -153)]);
    assert_eq!(ledger.rake, 3);
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

pub(crate) async fn missed_blinds_and_rathole_records_survive_reconnection(
    store: &SqlStore,
    url: &str,
) {
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
    assert_eq!(rathole(&again, table, f).await.map(|r| r.stack), Some(300));
    again
        .set_missed_blinds(table, f, false, false)
        .await
        .unwrap();
    assert_eq!(again.missed_blinds(table, f).await.unwrap(), (false, false));
    again.close().await;
    audit_holds(store).await;
}

pub(crate) async fn crash_recovery_voids_the_unfinished_hand_and_keeps_committed_stacks(
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

/// A player's pages of hands are the pages of all their hands sorted newest dealt first,
/// however long each hand lasted: a hand dealt earlier may end after hands dealt later
/// (the page is read from the players' index, which is in the order hands ended).
pub(crate) async fn a_players_pages_are_their_hands_newest_dealt_first_whatever_their_ends(
    store: &SqlStore,
) {
    let p = player(store, "paula", 3000).await;
    let mut tables = Vec::new();
    for t in 0..3 {
        let other = player(store, &format!("opp{t}"), 1000).await;
        let table = store.create_table(&format!("tp{t}"), "{}").await.unwrap();
        store.buy_in(table, 0, p, 500, None, None).await.unwrap();
        store
            .buy_in(table, 1, other, 500, None, None)
            .await
            .unwrap();
        tables.push((table, other));
    }
    let mut all = Vec::new();
    for n in 1..=24u64 {
        let (table, other) = tables[(n % 3) as usize];
        let mut h = hand(table, n, &[(p, 0, 500, 500), (other, 1, 500, 500)], 0);
        h.started_at = 10_000 + 100 * n as i64;
        // Every fourth hand lasts long: it ends after the next 49 hands were dealt.
        h.ended_at = h.started_at + if n % 4 == 0 { 5_000 } else { 50 };
        store.commit_hands(std::slice::from_ref(&h)).await.unwrap();
        all.push((h.started_at, h.hand_id));
    }
    all.sort_by(|a, b| b.cmp(a));
    let newest: Vec<HandId> = all.iter().map(|(_, id)| *id).collect();
    for limit in [1u32, 2, 3, 5, 7, 24, 30] {
        for offset in 0..=25u32 {
            let page: Vec<HandId> = store
                .player_hands(p, limit, offset)
                .await
                .unwrap()
                .iter()
                .map(|h| h.hand_id)
                .collect();
            let want: Vec<HandId> = newest
                .iter()
                .skip(offset as usize)
                .take(limit as usize)
                .copied()
                .collect();
            assert_eq!(page, want, "limit {limit}, offset {offset}");
        }
    }
    audit_holds(store).await;
}

pub(crate) async fn hand_histories_are_queried_by_id_table_and_player_newest_first(
    store: &SqlStore,
) {
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

pub(crate) async fn a_hands_deck_record_reads_back_whole(store: &SqlStore) {
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
    h.record.deck = Some(poker_fairness::StoredDeck::V2(deck.clone()));
    store.commit_hands(std::slice::from_ref(&h)).await.unwrap();
    let back = store.hand(h.hand_id).await.unwrap().record.unwrap();
    assert_eq!(back.deck, Some(poker_fairness::StoredDeck::V2(deck)));
    // A hand recorded before version 2 keeps its version 1 deck, read back as such.
    let (old, _) = poker_fairness::v1::proof::testing::play(poker_rules::Game::Holdem, 6, 1);
    let mut h = hand(table, 2, &[(a, 0, 300, 300), (b, 1, 300, 300)], 0);
    h.record.deck = Some(poker_fairness::StoredDeck::V1(old.clone()));
    store.commit_hands(std::slice::from_ref(&h)).await.unwrap();
    let back = store.hand(h.hand_id).await.unwrap().record.unwrap();
    assert_eq!(back.deck, Some(poker_fairness::StoredDeck::V1(old)));
    // An uncontested winner's show rewrites the committed hand's history, and only a
    // committed hand's.
    let shown = format!("{}\n# shown\n", h.phh);
    store.record_show(h.hand_id, &shown).await.unwrap();
    assert_eq!(
        store.hand(h.hand_id).await.unwrap().phh.as_deref(),
        Some(shown.as_str())
    );
    assert!(matches!(
        store.record_show(poker_store::HandId::new(), &shown).await,
        Err(poker_store::StoreError::NotFound(_))
    ));
    audit_holds(store).await;
}

/// Four tables named from `prefix`, two players with 1,000 in their wallets bought in for
/// 500 at each (seats 0 and 1).
pub(crate) async fn heads_up_tables(
    store: &SqlStore,
    prefix: &str,
) -> Vec<(TableId, PlayerId, PlayerId)> {
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

pub(crate) async fn the_persister_commits_many_tables_hands_in_batches(store: &SqlStore) {
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
pub(crate) async fn the_persister_writes_many_tables_starts_states_and_hands_together(
    store: &SqlStore,
) {
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

pub(crate) async fn a_failed_tables_hand_is_voided_and_no_other(store: &SqlStore) {
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

/// A persister's batch written with `write_group`: the next hand's start, a state write and
/// the last hand's commit land together. On SQLite they are one transaction, so a batch
/// whose commit is refused (a stale hand) writes none of them; on PostgreSQL each kind is
/// its own, so what came before the refused commit stands.
pub(crate) async fn a_group_of_starts_writes_and_hands_is_written_together(store: &SqlStore) {
    let (f, g) = (
        player(store, "gfay", 1000).await,
        player(store, "ggus", 1000).await,
    );
    let table = store.create_table("group", "{}").await.unwrap();
    store.buy_in(table, 0, f, 500, None, None).await.unwrap();
    store.buy_in(table, 1, g, 500, None, None).await.unwrap();
    let first = hand(table, 1, &[(f, 0, 500, 540), (g, 1, 500, 458)], 2);
    let start = |h: &CompletedHand| HandStart {
        hand: h.hand_id,
        table,
        number: h.number,
        at: h.started_at,
        fence: None,
    };
    store.start_hands(&[start(&first)]).await.unwrap();
    let second = hand(table, 2, &[(f, 0, 540, 500), (g, 1, 458, 498)], 0);
    let state = |n: u64| TableWrite::State {
        table,
        state: format!(r#"{{"hand":{n}}}"#),
    };
    store
        .write_group(&[start(&second)], &[state(2)], std::slice::from_ref(&first))
        .await
        .expect("written");
    let stacks: Vec<Chips> = store
        .seats(table)
        .await
        .unwrap()
        .iter()
        .map(|s| s.stack)
        .collect();
    assert_eq!(stacks, vec![540, 458]);
    assert_eq!(
        store.hand(first.hand_id).await.unwrap().status,
        HandStatus::Complete
    );
    assert_eq!(
        store.hand(second.hand_id).await.unwrap().status,
        HandStatus::Started
    );
    assert_eq!(
        store.table_state(table).await.unwrap().as_deref(),
        Some(r#"{"hand":2}"#)
    );

    // The third hand's start and a state beside a commit whose stacks are stale.
    let stale = hand(table, 2, &[(f, 0, 500, 460), (g, 1, 500, 538)], 2);
    let stale = CompletedHand {
        hand_id: second.hand_id,
        ..stale
    };
    let third = hand(table, 3, &[(f, 0, 540, 540), (g, 1, 458, 458)], 0);
    let refused = store
        .write_group(&[start(&third)], &[state(3)], std::slice::from_ref(&stale))
        .await;
    assert!(
        matches!(refused, Err(StoreError::StaleHand(_))),
        "{refused:?}"
    );
    let third_row = store.hand(third.hand_id).await;
    let state_now = store.table_state(table).await.unwrap();
    match store.backend() {
        Backend::Sqlite => {
            assert!(
                matches!(third_row, Err(StoreError::NotFound(_))),
                "{third_row:?}"
            );
            assert_eq!(state_now.as_deref(), Some(r#"{"hand":2}"#));
        }
        Backend::Postgres => {
            assert_eq!(third_row.unwrap().status, HandStatus::Started);
            assert_eq!(state_now.as_deref(), Some(r#"{"hand":3}"#));
        }
    }
    // The second hand, with its true stacks, still commits.
    store
        .write_group(&[], &[], std::slice::from_ref(&second))
        .await
        .expect("written");
    let stacks: Vec<Chips> = store
        .seats(table)
        .await
        .unwrap()
        .iter()
        .map(|s| s.stack)
        .collect();
    assert_eq!(stacks, vec![500, 498]);
    audit_holds(store).await;
}

/// Texts with quotes, backslashes, control characters and characters outside the basic
/// plane come back exactly as written through a group (on SQLite its rows travel as JSON
/// arrays), for a hand recorded when dealt, one never recorded and a table's state; the
/// batch's many tables land in one group, every seat and ledger row with them.
pub(crate) async fn awkward_text_and_many_tables_in_one_group_are_written_exactly(
    store: &SqlStore,
) {
    let tables = heads_up_tables(store, "awk").await;
    let awkward = "q\"uote' back\\slash\nline\ttab \u{1} \u{2603} \u{1F0A1} \\u0041 ?1 $1 '); --";
    let mut starts = Vec::new();
    let mut hands = Vec::new();
    let mut writes = Vec::new();
    for (i, &(table, a, b)) in tables.iter().enumerate() {
        let mut h = hand(
            table,
            1,
            &[(a, 0, 500, 530 + i as u64), (b, 1, 500, 468 - i as u64)],
            2,
        );
        h.phh = format!("{awkward} {i}");
        h.record.button = i;
        // Every other hand was recorded when dealt; the rest are inserted complete.
        if i % 2 == 0 {
            starts.push(HandStart {
                hand: h.hand_id,
                table,
                number: 1,
                at: h.started_at,
                fence: None,
            });
        }
        hands.push(h);
        writes.push(TableWrite::State {
            table,
            state: serde_json::json!({ "note": format!("{awkward} {i}") }).to_string(),
        });
    }
    store.start_hands(&starts).await.unwrap();
    let next: Vec<HandStart> = tables
        .iter()
        .map(|&(table, _, _)| HandStart {
            hand: HandId::new(),
            table,
            number: 2,
            at: 3_000,
            fence: None,
        })
        .collect();
    store
        .write_group(&next, &writes, &hands)
        .await
        .expect("written");
    for (i, (&(table, _, _), h)) in tables.iter().zip(&hands).enumerate() {
        let row = store.hand(h.hand_id).await.unwrap();
        assert_eq!(row.status, HandStatus::Complete);
        assert_eq!(row.phh.as_deref(), Some(format!("{awkward} {i}").as_str()));
        assert_eq!(row.record.map(|r| r.button), Some(i));
        assert_eq!((row.rake, row.number, row.started_at), (2, 1, h.started_at));
        let stacks: Vec<Chips> = store
            .seats(table)
            .await
            .unwrap()
            .iter()
            .map(|s| s.stack)
            .collect();
        assert_eq!(stacks, vec![530 + i as Chips, 468 - i as Chips]);
        let state = store.table_state(table).await.unwrap().expect("a state");
        let note: serde_json::Value = serde_json::from_str(&state).unwrap();
        assert_eq!(note["note"], format!("{awkward} {i}"));
        assert_eq!(
            store.hand(next[i].hand).await.unwrap().status,
            HandStatus::Started
        );
        assert_eq!(
            store
                .player_hands(h.players[0].player_id, 10, 0)
                .await
                .unwrap()
                .len(),
            1
        );
    }
    // The same group again changes nothing: its hands are committed already.
    store
        .write_group(&[], &[], &hands)
        .await
        .expect("a retried group applies once");
    let audit = store.audit().await.unwrap();
    assert_eq!(audit.rake, 2 * tables.len() as i64);
    audit_holds(store).await;
}

/// PostgreSQL (several nodes share it): a node frozen in the middle of committing one
/// table's hand (SIGSTOP, a paused VM) holds the rows that commit wrote until it runs
/// again; no other table's hand may wait for it. Simulated by an open transaction holding
/// every row the first table's commit touched, the house's too: another table's hand,
/// with rake, commits meanwhile. (The house's rake was one row for the whole room: every
/// node's hands waited behind a frozen one, up to the freeze's length, which the cluster
/// soak saw as an `act` answered after 2.9 s.)
pub(crate) async fn a_node_frozen_mid_commit_holds_no_other_tables_hand(
    store: &SqlStore,
    url: &str,
) {
    let players = [
        player(store, "frozen1", 1000).await,
        player(store, "frozen2", 1000).await,
        player(store, "running1", 1000).await,
        player(store, "running2", 1000).await,
    ];
    let frozen = store.create_table("frozen", "{}").await.unwrap();
    let running = store.create_table("running", "{}").await.unwrap();
    for (i, &p) in players.iter().enumerate() {
        let table = if i < 2 { frozen } else { running };
        store
            .buy_in(table, (i % 2) as u32, p, 500, None, None)
            .await
            .unwrap();
    }
    let first = hand(
        frozen,
        1,
        &[(players[0], 0, 500, 520), (players[1], 1, 500, 477)],
        3,
    );
    assert_eq!(store.commit_hands(&[first]).await.unwrap(), 1);

    // The frozen node's transaction: every row its next commit of `frozen` would lock.
    let raw = sqlx::PgPool::connect(url).await.expect("raw pool");
    let mut frozen_tx = raw.begin().await.unwrap();
    for sql in [
        "select 1 from house_account for update",
        "select 1 from seat where poker_table_id = $1 for update",
        "select 1 from poker_table where poker_table_id = $1 for update",
        "select 1 from hand where poker_table_id = $1 for update",
    ] {
        let query = sqlx::query(sql);
        let query = if sql.contains("$1") {
            query.bind(frozen.to_string())
        } else {
            query
        };
        query
            .execute(&mut *frozen_tx)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    let other = hand(
        running,
        1,
        &[(players[2], 0, 500, 548), (players[3], 1, 500, 447)],
        5,
    );
    let committed = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        store.commit_hands(std::slice::from_ref(&other)),
    )
    .await
    .expect("another table's hand waited for the frozen node's transaction");
    assert_eq!(committed.unwrap(), 1);
    frozen_tx.rollback().await.unwrap();
    raw.close().await;

    let audit = store.audit().await.unwrap();
    assert_eq!(audit.rake, 8, "{audit:?}");
    audit_holds(store).await;
}

/// A hand voided while its commit runs (PostgreSQL: the commit reads the statuses without a
/// lock, then marks its started hands complete): the void's transaction holds the hand's
/// row when the commit reads it as `started`, and commits once the commit waits on that
/// row. The commit is refused as stale and moves no chip; the hand stays void.
pub(crate) async fn a_hand_voided_while_its_commit_runs_moves_no_chip(store: &SqlStore, url: &str) {
    let (a, b) = (
        player(store, "voided-a", 1000).await,
        player(store, "voided-b", 1000).await,
    );
    let table = store.create_table("voided", "{}").await.unwrap();
    store.buy_in(table, 0, a, 500, None, None).await.unwrap();
    store.buy_in(table, 1, b, 500, None, None).await.unwrap();
    let h = hand(table, 1, &[(a, 0, 500, 540), (b, 1, 500, 458)], 2);
    store
        .start_hand(h.hand_id, table, 1, h.started_at, None)
        .await
        .unwrap();
    let before = store.audit().await.unwrap();

    // Another node voids the table's hands (a take-over), its transaction still open.
    let raw = sqlx::PgPool::connect(url).await.expect("raw pool");
    let mut void_tx = raw.begin().await.unwrap();
    let voided =
        sqlx::query("update hand set status = 'void' where hand_id = $1 and status = 'started'")
            .bind(h.hand_id.to_string())
            .execute(&mut *void_tx)
            .await
            .unwrap();
    assert_eq!(voided.rows_affected(), 1);

    let committing = {
        let store = store.clone();
        let h = h.clone();
        tokio::spawn(async move { store.commit_hands(std::slice::from_ref(&h)).await })
    };
    // The commit reads `started` (the void is not committed) and waits on the hand's row.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert!(
        !committing.is_finished(),
        "the commit waits on the hand's row"
    );
    void_tx.commit().await.unwrap();
    match committing.await.unwrap() {
        Err(StoreError::StaleHand(id)) => assert_eq!(id, h.hand_id),
        other => panic!("a hand voided under its commit is refused: {other:?}"),
    }
    assert_eq!(
        store.hand(h.hand_id).await.unwrap().status,
        HandStatus::Void
    );
    let stacks: Vec<Chips> = store
        .seats(table)
        .await
        .unwrap()
        .iter()
        .map(|s| s.stack)
        .collect();
    assert_eq!(stacks, vec![500, 500], "no chip moved");
    assert_eq!(store.audit().await.unwrap(), before);
    audit_holds(store).await;
    raw.close().await;
}
