//! A table's actor driven through its handle against a real SQLite store: two players
//! and a spectator; hands are dealt, asked with decision ids, played to showdown and
//! committed; chips are conserved across wallets, stacks and rake; nobody ever receives
//! another player's unshown hole cards; late and out-of-turn actions are refused.

use poker_protocol::{ErrorCode, ServerMsg};
use poker_rules::table::Entry;
use poker_rules::table::{AnteRule, ButtonRule, MissedBlindRule, TableRules};
use poker_rules::{Action, Event, Game, Stakes, Structure};
use poker_server::lobby::Lobby;
use poker_server::metrics::Metrics;
use poker_server::table::{self as table_actor, ClockRules, TableContext, TableHandle, TableSpec};
use poker_store::testing::TestSqlite;
use poker_store::{Persister, SqlStore, TableId};
use std::sync::Arc;
use std::time::Duration;

mod support;

use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_players_play_hands_to_showdown_with_every_chip_accounted_for() {
    let db = TestSqlite::new();
    let store = Arc::new(SqlStore::connect(&db.url).await.unwrap());
    let (a, b, table_id) = ann_and_ben(&store).await;
    let table = spawn(table_id, &store).await;
    let mut rx_a = table.subscribe(Some(a), 1024).await;
    let mut rx_b = table.subscribe(Some(b), 1024).await;
    let mut rx_watch = table.subscribe(None, 1024).await;

    assert_eq!(
        sit_refused(&table, a, "p", 0, 10).await,
        ErrorCode::SeatRefused,
        "below the minimum buy-in"
    );
    sit_now(&table, a, "p", 0, 150).await;
    assert_eq!(
        sit_refused(&table, b, "p", 0, 150).await,
        ErrorCode::SeatRefused,
        "the seat is taken"
    );
    sit_now(&table, b, "p", 1, 150).await;

    // Both check or call down every hand; play three hands.
    let mut ended = 0;
    let mut own_cards_seen = 0;
    let mut refusals_checked = false;
    while ended < 3 {
        let (rx, me, other) = tokio::select! {
            m = next(&mut rx_a) => (m, a, b),
            m = next(&mut rx_b) => (m, b, a),
        };
        match rx {
            ServerMsg::Decide {
                decision_id, legal, ..
            } => {
                if !refusals_checked {
                    let code = table
                        .act(other, decision_id, Action::Fold)
                        .await
                        .unwrap_err()
                        .code();
                    assert_eq!(code, ErrorCode::NotYourTurn);
                    let code = table
                        .act(me, decision_id + 1000, Action::Fold)
                        .await
                        .unwrap_err()
                        .code();
                    assert_eq!(code, ErrorCode::StaleDecision);
                    refusals_checked = true;
                }
                let action = call_or_check(&legal);
                table.act(me, decision_id, action).await.unwrap();
                // The same decision answered twice is refused.
                let code = table.act(me, decision_id, action).await.unwrap_err().code();
                assert!(matches!(
                    code,
                    ErrorCode::StaleDecision | ErrorCode::NotYourTurn
                ));
            }
            ServerMsg::Event {
                event: Event::HoleDealt { cards, .. },
                seats,
                ..
            } => {
                // Each player sees exactly their own cards.
                let known = cards.iter().filter(|c| c.is_known()).count();
                assert!(known == 0 || known == 2, "all or nothing: {cards}");
                own_cards_seen += usize::from(known == 2);
                let _ = seats;
            }
            ServerMsg::Event {
                event: Event::HandEnded { .. },
                ..
            } if me == a => ended += 1,
            _ => {}
        }
    }
    assert!(
        own_cards_seen >= 6,
        "each player saw their own cards every hand"
    );
    // The spectator never saw a hole card before it was shown.
    while let Ok(msg) = rx_watch.try_recv() {
        if let ServerMsg::Event {
            event: Event::HoleDealt { cards, .. },
            ..
        } = msg
        {
            assert!(
                cards.iter().all(|c| !c.is_known()),
                "a spectator saw {cards}"
            );
        }
    }
    // The third hand's commit may still be in flight: wait for it, then check the books.
    let mut complete = 0;
    for _ in 0..200 {
        let hands = store.table_hands(table_id, 10, 0).await.unwrap();
        complete = hands.iter().filter(|h| h.status == "complete").count();
        if complete >= 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(complete >= 3, "three hands committed, found {complete}");
    let audit = store.audit().await.unwrap();
    assert!(audit.holds(), "{audit:?}");
    assert_eq!(audit.wallets + audit.stacks + audit.rake, 2000);
    let stacks: u64 = stacks_of(&store, table_id).await.iter().sum();
    assert_eq!(stacks, 300, "the table's chips are all still there");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_table_puts_seated_players_back_with_their_stored_stacks() {
    let db = TestSqlite::new();
    let store = Arc::new(SqlStore::connect(&db.url).await.unwrap());
    let (a, b, table_id) = two_at(&store, ["cy", "di"], 500, "t").await;
    store.buy_in(table_id, 2, a, 180, None, None).await.unwrap();
    store.buy_in(table_id, 4, b, 120, None, None).await.unwrap();
    // A fresh actor, as after a restart: the hand starts with the stored players.
    let table = spawn(table_id, &store).await;
    let mut rx = table.subscribe(Some(a), 256).await;
    // Any command lets the actor deal; a refused sit is enough.
    let _ = table.sit(a, "p".into(), 2, 100, Entry::PostNow).await;
    // The hand was dealt at start; subscribing brings a snapshot of it.
    loop {
        if let ServerMsg::Snapshot {
            hand: Some(hand), ..
        } = next(&mut rx).await
        {
            let mut seats = hand.seats.clone();
            seats.sort();
            assert_eq!(seats, vec![2, 4]);
            assert_eq!(hand.starting_stacks.iter().sum::<u64>(), 300);
            break;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscriber_too_slow_to_keep_up_is_resynced_with_a_snapshot() {
    let db = TestSqlite::new();
    let store = Arc::new(SqlStore::connect(&db.url).await.unwrap());
    let (a, b, table_id) = two_at(&store, ["eve", "fay"], 500, "t").await;
    let table = spawn(table_id, &store).await;
    // A spectator whose queue holds two messages and who reads nothing for now.
    let mut slow = table.subscribe(None, 2).await;
    let mut rx_a = table.subscribe(Some(a), 1024).await;
    let mut rx_b = table.subscribe(Some(b), 1024).await;
    sit_now(&table, a, "eve", 0, 100).await;
    sit_now(&table, b, "fay", 1, 100).await;
    // Play a hand while the spectator's queue is full.
    let mut ended = 0;
    while ended < 1 {
        let (msg, me) = tokio::select! {
            m = next(&mut rx_a) => (m, a),
            m = next(&mut rx_b) => (m, b),
        };
        match msg {
            ServerMsg::Decide {
                decision_id, legal, ..
            } => {
                let action = call_or_check(&legal);
                table.act(me, decision_id, action).await.unwrap();
            }
            ServerMsg::Event {
                event: Event::HandEnded { .. },
                ..
            } if me == a => ended += 1,
            _ => {}
        }
    }
    // The table never waited for it. Once it reads, it gets what fit, then a fresh
    // snapshot as soon as the table has something new to send.
    // (The queue holds two batches: what one step of the table made for it.)
    let mut drained = Vec::new();
    while let Ok(m) = slow.try_recv() {
        drained.push(m);
    }
    assert!(!drained.is_empty());
    let resynced = loop {
        // The players play on, so the table has something new to send.
        let msg = tokio::select! {
            m = next(&mut slow) => m,
            m = next(&mut rx_a) => { answer(&table, a, m).await; continue }
            m = next(&mut rx_b) => { answer(&table, b, m).await; continue }
        };
        match msg {
            ServerMsg::Snapshot { table, hand, .. } => break (table, hand),
            ServerMsg::Event { .. } => panic!("events after a gap, without a snapshot"),
            _ => continue,
        }
    };
    assert_eq!(resynced.0.seats.len(), 2);
    // The snapshot hides the hole cards from the spectator too.
    if let Some(hand) = resynced.1 {
        for e in hand.events {
            if let Event::HoleDealt { cards, .. } = e {
                assert!(cards.iter().all(|c| !c.is_known()));
            }
        }
    }
    assert_conserved(&store, 1000).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_resynced_after_falling_behind_still_gets_the_final_done_of_a_pending_sit_out() {
    let db = TestSqlite::new();
    let store = Arc::new(SqlStore::connect(&db.url).await.unwrap());
    let (a, b, table_id) = two_at(&store, ["mae", "ned"], 500, "t").await;
    let table = spawn(table_id, &store).await;
    // A connection of Mae's whose queue holds two batches and that reads nothing for now
    // (its snapshot and the first sit fill it), and one she plays from.
    let mut slow = table.subscribe(Some(a), 2).await;
    let mut rx_a = table.subscribe(Some(a), 1024).await;
    let mut rx_b = table.subscribe(Some(b), 1024).await;
    sit_now(&table, a, "mae", 0, 100).await;
    sit_now(&table, b, "ned", 1, 100).await;
    // During the first hand Mae asks to sit out when her big blind comes: `pending`. The
    // hand is played out, and her reading connection gets the final `done`.
    let mut asked = false;
    loop {
        let (msg, me) = tokio::select! {
            m = next(&mut rx_a) => (m, a),
            m = next(&mut rx_b) => (m, b),
        };
        match msg {
            ServerMsg::Decide {
                decision_id, legal, ..
            } => {
                if !asked {
                    let sit_out = table_actor::SeatRequest::SitOut {
                        next_big_blind: true,
                    };
                    let outcome = table.seat(a, sit_out).await.unwrap();
                    assert!(outcome.pending, "asked during a hand she is dealt");
                    asked = true;
                }
                table
                    .act(me, decision_id, call_or_check(&legal))
                    .await
                    .unwrap();
            }
            ServerMsg::Done {
                request, pending, ..
            } if me == a && request == "sit_out" => {
                assert!(!pending);
                break;
            }
            _ => {}
        }
    }
    // The slow connection fell behind before the hand ended: what fit is all it has.
    let mut drained = Vec::new();
    while let Ok(m) = slow.try_recv() {
        drained.push(m);
    }
    assert!(
        !drained.iter().any(|m| matches!(m, ServerMsg::Done { .. })),
        "the final done did not fit: {drained:?}"
    );
    // Once it reads again, the table's next step resyncs it: the snapshot cannot say that
    // a sit-out at the big blind was applied (she may still be dealt in), so the final
    // `done` it missed comes with it.
    let _ = table.inspect().await;
    let mut resync = Vec::new();
    loop {
        let msg = next(&mut slow).await;
        let snapshot = matches!(msg, ServerMsg::Snapshot { .. });
        resync.push(msg);
        if snapshot {
            break;
        }
    }
    while let Ok(m) = slow.try_recv() {
        resync.push(m);
    }
    let done = resync.iter().any(
        |m| matches!(m, ServerMsg::Done { request, pending: false, .. } if request == "sit_out"),
    );
    assert!(done, "the resync carries the final done: {resync:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_table_remembers_who_sits_out_and_the_blinds_they_owe() {
    let (_db, store, players, table_id, table, mut rx) = three_seated(["gus", "hal", "ida"]).await;
    // Everyone checks or folds. After two hands (Ida is dealt in from the second), Ida
    // sits out, and the other two play on until she has missed the big blind.
    let mut hands = 0;
    let mut sat_out = false;
    while hands < 6 {
        if hands >= 2 && !sat_out {
            table
                .seat(
                    players[2],
                    table_actor::SeatRequest::SitOut {
                        next_big_blind: false,
                    },
                )
                .await
                .unwrap();
            sat_out = true;
        }
        for (i, r) in rx.iter_mut().enumerate() {
            while let Ok(msg) = r.try_recv() {
                match msg {
                    ServerMsg::Decide {
                        decision_id, legal, ..
                    } => {
                        let action = check_or_fold(&legal);
                        table.act(players[i], decision_id, action).await.unwrap();
                    }
                    ServerMsg::Event {
                        event: Event::HandEnded { .. },
                        ..
                    } if i == 0 => hands += 1,
                    _ => {}
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(
        store.missed_blinds(table_id, players[2]).await.unwrap(),
        (true, true),
        "the blinds she missed are recorded"
    );
    // A restart (a new actor on the same store) keeps her out and owing.
    drop(table);
    drop(rx);
    let table = spawn(table_id, &store).await;
    let mut watch = table.subscribe(None, 64).await;
    let ServerMsg::Snapshot { table: view, .. } = next(&mut watch).await else {
        panic!("a snapshot first")
    };
    let ida = view.seats.iter().find(|s| s.seat == 4).unwrap();
    assert!(ida.sitting_out, "still sitting out after the restart");
    assert!(store.seats(table_id).await.unwrap()[2].sitting_out);
    assert_conserved(&store, 1500).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r18_a_restarted_table_moves_the_button_on_from_where_it_was() {
    let (_db, store, players, table_id, table, mut rx) = three_seated(["jan", "kim", "lou"]).await;
    // Everyone checks or folds through five hands; the button of the last one is noted.
    let (mut hands, mut button) = (0, None);
    while hands < 5 {
        for (i, r) in rx.iter_mut().enumerate() {
            while let Ok(msg) = r.try_recv() {
                match msg {
                    // Nobody acts in the sixth hand: it is cut off by the restart.
                    ServerMsg::Decide {
                        decision_id, legal, ..
                    } if hands < 5 => {
                        let action = check_or_fold(&legal);
                        let _ = table.act(players[i], decision_id, action).await;
                    }
                    ServerMsg::Seats { table } if i == 0 && hands < 5 => button = table.button,
                    ServerMsg::Event {
                        event: Event::HandEnded { .. },
                        ..
                    } if i == 0 => hands += 1,
                    _ => {}
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let last = button.expect("a button");
    drop(table);
    drop(rx);
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Restarted, the next hand's button is the next seat on from the last one (seats 0,
    // 2 and 4 are taken), not wherever a fresh table would put it.
    let table = spawn(table_id, &store).await;
    let mut watch = table.subscribe(None, 64).await;
    let first = loop {
        match next(&mut watch).await {
            ServerMsg::Snapshot { hand: Some(h), .. } => break h.button,
            ServerMsg::Seats { table } if table.button.is_some() => break table.button.unwrap(),
            _ => {}
        }
    };
    assert_eq!(
        first,
        (last + 2) % 6,
        "the button moves on from seat {last}"
    );
}

/// Defence in depth: a table whose task dies mid-hand (a fault injected as a bug would
/// cause it) has that hand voided, is marked failed, tells its players, and lets each
/// leave with the stack they had when the hand began; the operator can still close it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_whose_task_fails_voids_the_hand_and_lets_its_players_leave_with_their_chips() {
    let db = TestSqlite::new();
    let store = Arc::new(SqlStore::connect(&db.url).await.unwrap());
    let (a, b, c) = (
        store.create_player("ann", "x").await.unwrap(),
        store.create_player("ben", "x").await.unwrap(),
        store.create_player("cat", "x").await.unwrap(),
    );
    for p in [a, b, c] {
        store.deposit(p, 1000, None).await.unwrap();
    }
    let table_id = store.create_table("NL 1/2", "{}").await.unwrap();
    let metrics = Arc::new(Metrics::default());
    let lobby = Arc::new(Lobby::default());
    let table = spawn_with(table_id, &store, &lobby, &metrics).await;
    let mut rx_a = table.subscribe(Some(a), 1024).await;
    let mut rx_watch = table.subscribe(None, 1024).await;
    for (seat, p) in [a, b, c].into_iter().enumerate() {
        sit_now(&table, p, "p", seat as u32, 200).await;
    }
    // Into the first hand: blinds are posted and someone raises.
    let mut raised = false;
    while !raised {
        if let ServerMsg::Decide {
            decision_id, legal, ..
        } = next(&mut rx_a).await
        {
            let to = legal.bet_or_raise.unwrap().0;
            table
                .act(a, decision_id, Action::BetOrRaiseTo { to })
                .await
                .unwrap();
            raised = true;
        }
    }
    // Only Ann's decisions reach her queue; if she was not first, the others time out
    // slowly (30 s clock), so the hand is surely in progress now.
    table.inject_fault().await;
    let failed = loop {
        match next(&mut rx_watch).await {
            ServerMsg::TableFailed { .. } => break true,
            _ => continue,
        }
    };
    assert!(failed);
    assert_eq!(
        metrics
            .table_failures
            .load(std::sync::atomic::Ordering::Relaxed),
        1
    );
    let view = table.inspect().await.expect("still answers");
    assert_eq!(view["status"], "failed");
    assert_eq!(
        lobby.get(table_id).unwrap().status,
        poker_protocol::TableStatus::Failed
    );
    let hands = store.table_hands(table_id, 10, 0).await.unwrap();
    assert_eq!(hands.len(), 1);
    assert_eq!(hands[0].status, "void");
    // Nothing more is played; each leaves with the stack the void hand began with.
    let err = table
        .sit(a, "p".into(), 4, 100, Entry::PostNow)
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::SeatRefused);
    assert!(table.act(a, 1, Action::Fold).await.is_err());
    let out = table
        .seat(a, table_actor::SeatRequest::Leave)
        .await
        .unwrap();
    assert_eq!(out.amount, 200);
    assert_eq!(store.balance(a).await.unwrap(), 1000);
    // A player who reconnects is told at once.
    let mut rx_b = tokio::sync::mpsc::channel::<table_actor::Batch>(16);
    assert!(table.subscribe_with(Some(b), rx_b.0.clone(), true).await);
    let batch = tokio::time::timeout(Duration::from_secs(10), rx_b.1.recv())
        .await
        .expect("a message in time")
        .expect("the table is open");
    assert!(matches!(
        batch.into_iter().next().map(table_actor::Out::into_msg),
        Some(ServerMsg::TableFailed { .. })
    ));
    // The operator closes it: the others are cashed out whole.
    assert_eq!(table.close().await, Some(400));
    for p in [a, b, c] {
        assert_eq!(store.balance(p).await.unwrap(), 1000);
    }
    assert_conserved(&store, 3000).await;
}

/// The event as an onlooker sees it: hole cards unknown unless dealt face up.
fn as_onlooker(event: &Event) -> String {
    let mut json = serde_json::to_value(event).unwrap();
    if let Event::HoleDealt { cards, up, .. } = event {
        let hidden: Vec<String> = cards
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if up >> i & 1 == 1 {
                    c.to_string()
                } else {
                    poker_rules::Card::UNKNOWN.to_string()
                }
            })
            .collect();
        json["cards"] = serde_json::to_value(hidden.join("")).unwrap();
    }
    json.to_string()
}

/// A busy table holds back what concerns an onlooker (here for a minute): the players get
/// their cards, turns and own actions at once and play a whole hand, while a spectator has
/// received nothing past its snapshot; it gets every event of the hand, in order, in one
/// batch when the table closes, and the chips are all accounted for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn onlookers_get_a_busy_tables_messages_held_back_in_one_write_and_players_theirs_at_once() {
    let db = TestSqlite::new();
    let store = Arc::new(SqlStore::connect(&db.url).await.unwrap());
    let (a, b, table_id) = ann_and_ben(&store).await;
    let metrics = Arc::new(Metrics::default());
    let table = start(
        table_id,
        &store,
        &Arc::new(Lobby::default()),
        &metrics,
        Duration::from_secs(60),
    )
    .await;
    let mut watch = table.subscribe(None, 1024).await;
    assert!(matches!(next(&mut watch).await, ServerMsg::Snapshot { .. }));
    let mut rx_a = table.subscribe(Some(a), 1024).await;
    let mut rx_b = table.subscribe(Some(b), 1024).await;
    sit_now(&table, a, "ann", 0, 150).await;
    sit_now(&table, b, "ben", 1, 150).await;

    // One hand, both checking or calling down; what ann sees of it, in order.
    let mut seen_by_a: Vec<String> = Vec::new();
    let mut a_ended = false;
    let mut b_ended = false;
    while !(a_ended && b_ended) {
        tokio::select! {
            m = next(&mut rx_a), if !a_ended => {
                if let ServerMsg::Event { event, .. } = &m {
                    seen_by_a.push(as_onlooker(event));
                    a_ended = matches!(event, Event::HandEnded { .. });
                }
                answer(&table, a, m).await;
            }
            m = next(&mut rx_b), if !b_ended => {
                if let ServerMsg::Event { event: Event::HandEnded { .. }, .. } = &m {
                    b_ended = true;
                }
                answer(&table, b, m).await;
            }
        }
    }
    assert!(seen_by_a.len() > 8, "a whole hand: {seen_by_a:?}");
    // Nothing of it has reached the spectator yet: held back, in one batch.
    assert!(watch.try_recv().is_err(), "held back");
    assert_eq!(watch.batches(), 1, "the snapshot only");

    // Closing (the players play the next hand out) sends what was held back: every event
    // of the hand, as ann saw it but for her cards, in order, in one more batch.
    let mut closing = tokio::spawn({
        let table = table.clone();
        async move { table.close().await }
    });
    let cashed = loop {
        tokio::select! {
            biased;
            done = &mut closing => break done.unwrap().unwrap(),
            Some(m) = rx_a.recv() => answer(&table, a, m).await,
            Some(m) = rx_b.recv() => answer(&table, b, m).await,
        }
    };
    let mut seen_by_watch: Vec<String> = Vec::new();
    loop {
        match next(&mut watch).await {
            ServerMsg::Event { event, .. } => {
                seen_by_watch.push(as_onlooker(&event));
                if matches!(event, Event::HandEnded { .. }) {
                    break;
                }
            }
            ServerMsg::Seats { .. } | ServerMsg::Turn { .. } => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(seen_by_watch, seen_by_a);
    assert_eq!(watch.batches(), 2, "everything held back came in one batch");
    assert_eq!(cashed, 300);
    assert_conserved(&store, 2000).await;
}

/// Among several nodes: the table's lease passes to another node while a hand is played
/// (this node's renewals stopped reaching the database, say). The hand's commit is then
/// refused as fenced: the table stops at once and writes nothing; its subscribers are let
/// go (the new owner sends them a snapshot) without ever receiving the hand's result; the
/// new owner voids the hand, and every chip is where it was when the hand began.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_fenced_out_as_its_hand_ends_stops_and_never_shows_the_result() {
    let db = TestSqlite::new();
    let store = Arc::new(SqlStore::connect(&db.url).await.unwrap());
    let (a, b, table_id) = ann_and_ben(&store).await;
    // This node's lease: short in the database; the actor is told it holds (its renewal
    // is not what this test is about).
    let token = store
        .acquire_lease(table_id, "node-a", 300)
        .await
        .unwrap()
        .expect("a free lease");
    let far = tokio::time::Instant::now() + Duration::from_secs(3600);
    let (_renewals, lease) = tokio::sync::watch::channel(far);
    let (lobby, metrics) = (Arc::new(Lobby::default()), Arc::new(Metrics::default()));
    let context = TableContext {
        fence: Some(token),
        lease: Some(lease),
        ..table_context(&store, &lobby, &metrics, Duration::ZERO)
    };
    let table = table_actor::spawn(table_id, "NL 1/2".into(), nl_spec(), context)
        .await
        .unwrap();
    let mut rx_a = table.subscribe(Some(a), 1024).await;
    let mut rx_b = table.subscribe(Some(b), 1024).await;
    let mut rx_watch = table.subscribe(None, 1024).await;
    sit_now(&table, a, "ann", 0, 200).await;
    sit_now(&table, b, "ben", 1, 200).await;
    // Hand 1 is dealt (its start passed the fence); then the lease lapses and another
    // node takes it, with the next token.
    let (me, decision_id) = loop {
        let (msg, me) = tokio::select! {
            m = next(&mut rx_a) => (m, a),
            m = next(&mut rx_b) => (m, b),
        };
        if let ServerMsg::Decide { decision_id, .. } = msg {
            break (me, decision_id);
        }
    };
    tokio::time::sleep(Duration::from_millis(400)).await;
    let taken = store
        .acquire_lease(table_id, "node-b", 60_000)
        .await
        .unwrap();
    assert_eq!(taken, Some(token + 1), "the other node has the table");
    // The fold ends the hand; its commit is fenced.
    table.act(me, decision_id, Action::Fold).await.unwrap();
    let mut seen = Vec::new();
    for rx in [&mut rx_a, &mut rx_b, &mut rx_watch] {
        // Everything until the table lets the subscriber go.
        while let Some(msg) = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .expect("let go in time")
        {
            seen.push(msg);
        }
    }
    assert!(
        seen.iter().any(|m| matches!(
            m,
            ServerMsg::Event {
                event: Event::Folded { .. },
                ..
            }
        )),
        "the fold itself went out live"
    );
    let results: Vec<_> = seen
        .iter()
        .filter(|m| {
            matches!(
                m,
                ServerMsg::Event {
                    event: Event::PotAwarded { .. }
                        | Event::HandEnded { .. }
                        | Event::Raked { .. }
                        | Event::Shown { .. }
                        | Event::Mucked { .. },
                    ..
                }
            )
        })
        .collect();
    assert!(
        results.is_empty(),
        "no result of a fenced hand: {results:?}"
    );
    // The new owner voids the cut hand: the stacks are as it began.
    let void = store.void_hands(table_id).await.unwrap();
    assert_eq!(void.len(), 1);
    let hands = store.table_hands(table_id, 10, 0).await.unwrap();
    assert_eq!(hands[0].status, "void");
    let stacks = stacks_of(&store, table_id).await;
    assert_eq!(stacks, vec![200, 200]);
    assert_conserved(&store, 2000).await;
}

/// A table between hands sleeps until it has something to do. The list of seed
/// commitments closes in the pause's last half-second (docs/fairness.md); that stretch was
/// a spin: the table's wait pointed at the moment the list could close, already past, so
/// it woke at once again and again until the deal (under poker-load, 488 wakeups a hand
/// and most of pokerd's CPU). Counted by the table's wakeups while it waits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_sleeps_through_the_pause_between_hands_and_the_seeds_lead_before_the_deal() {
    let db = TestSqlite::new();
    let store = Arc::new(SqlStore::connect(&db.url).await.unwrap());
    let (a, b, table_id) = ann_and_ben(&store).await;
    let metrics = Arc::new(Metrics::default());
    let context = table_context(
        &store,
        &Arc::new(Lobby::default()),
        &metrics,
        Duration::ZERO,
    );
    let mut spec = nl_spec();
    spec.clock.between_hands_ms = 1500;
    let table = table_actor::spawn(table_id, "NL 1/2".into(), spec, context)
        .await
        .unwrap();
    let mut rx_a = table.subscribe(Some(a), 1024).await;
    let mut rx_b = table.subscribe(Some(b), 1024).await;
    sit_now(&table, a, "ann", 0, 150).await;
    sit_now(&table, b, "ben", 1, 150).await;
    // The first hand: whoever is asked folds.
    loop {
        let (msg, me) = tokio::select! {
            m = next(&mut rx_a) => (m, a),
            m = next(&mut rx_b) => (m, b),
        };
        match msg {
            ServerMsg::Decide { decision_id, .. } => {
                table.act(me, decision_id, Action::Fold).await.unwrap();
            }
            ServerMsg::Event {
                event: Event::HandEnded { .. },
                ..
            } => break,
            _ => {}
        }
    }
    // The pause is 1.5 s from here (or from the hand's commit), its last 0.5 s the seeds'
    // lead: 1.3 s of it watched, nobody sending anything.
    let before = metrics
        .table_wakeups
        .load(std::sync::atomic::Ordering::Relaxed);
    tokio::time::sleep(Duration::from_millis(1300)).await;
    let woke = metrics
        .table_wakeups
        .load(std::sync::atomic::Ordering::Relaxed)
        - before;
    assert!(
        woke < 50,
        "the table woke {woke} times in a pause with nothing to do"
    );
    assert_conserved(&store, 2000).await;
}
