//! A hand's result reaches players only once the hand is committed (issue 25), over real
//! WebSockets against a real database: with PostgreSQL stopped as a hand ends, the actions
//! stream as usual but nobody (players or a spectator) sees the showdown, the awards or
//! the hand's end while the commit cannot be made; nobody is timed out or cut off; once
//! the database is back the hand commits, its result arrives once, and the next hand is
//! dealt. A hand whose commit is refused for good is void, and its result is never sent.
//! Every test checks chip conservation.

use crate::common;

use common::{assert_conserved, sit, tid, Client, Db, DbGuard, Received, Server};
use poker_protocol::{ClientMsg, ErrorCode, ServerMsg};
use poker_rules::Event;
use poker_store::SqlStore;
use serde_json::json;
use std::time::{Duration, Instant};

/// A short action clock: were it running while the commit waits, someone would be timed
/// out during the outage.
fn clock() -> serde_json::Value {
    json!({ "action_ms": 2000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 })
}

/// Whether the event tells the hand's result: a hand shown or mucked at showdown, the
/// rake, a pot awarded, the hand's end.
fn tells_result(event: &Event) -> bool {
    matches!(
        event,
        Event::Shown { .. }
            | Event::Mucked { .. }
            | Event::Raked { .. }
            | Event::PotAwarded { .. }
            | Event::HandEnded { .. }
    )
}

/// The result events of hand `number` among the messages.
fn results_of(log: &[ServerMsg], number: u64) -> Vec<Event> {
    log.iter()
        .filter_map(|m| match m {
            ServerMsg::Event {
                hand_number, event, ..
            } if *hand_number == number && tells_result(event) => Some(event.clone()),
            _ => None,
        })
        .collect()
}

/// Ann and Ben (1,000 each) seated with 200 at a new table, Cat (nothing deposited)
/// watching it.
async fn table_of_three(server: &Server) -> (String, Vec<Client>) {
    server.player("ann", 1000).await;
    server.player("ben", 1000).await;
    server.player("cat", 0).await;
    let table_id = server.table(clock()).await;
    let mut ann = server.client("ann").await;
    let mut ben = server.client("ben").await;
    let mut cat = server.client("cat").await;
    cat.watch(&table_id).await;
    ann.send(&sit(&table_id, 0, 200)).await;
    ben.send(&sit(&table_id, 1, 200)).await;
    (table_id, vec![ann, ben, cat])
}

/// Reads every client for about `wait`; fails if any connection is closed.
async fn read_all(clients: &mut [Client], wait: Duration) {
    let end = Instant::now() + wait;
    while Instant::now() < end {
        for c in clients.iter_mut() {
            // Everything waiting, then on to the next.
            loop {
                match c.recv_or_closed(Duration::from_millis(10)).await {
                    Received::Closed => panic!("{}: the connection was closed", c.name),
                    Received::Quiet => break,
                    Received::Msg(_) => {}
                }
            }
        }
    }
}

/// Plays hand 1 heads-up, calling and checking, up to its last decision (eight in all:
/// two on each street): the river's second check, which ends the hand. Returns who is
/// asked, the decision's id and what is legal, unanswered.
async fn to_the_last_decision(
    table_id: &str,
    clients: &mut [Client],
) -> (usize, u64, poker_rules::LegalActions) {
    let mut decisions = 0;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        assert!(Instant::now() < deadline, "hand 1 was not played out");
        for (i, c) in clients.iter_mut().enumerate().take(2) {
            let Some(ServerMsg::Decide {
                decision_id, legal, ..
            }) = c.try_recv(Duration::from_millis(10)).await
            else {
                continue;
            };
            decisions += 1;
            if decisions == 8 {
                return (i, decision_id, legal);
            }
            let action = common::simple_action(&legal, false);
            c.send(&common::act(table_id, decision_id, action)).await;
        }
    }
}

/// Answers the last decision: a check, which ends the hand.
async fn last_action(
    table_id: &str,
    clients: &mut [Client],
    (i, decision_id, legal): (usize, u64, poker_rules::LegalActions),
) {
    let action = common::simple_action(&legal, false);
    clients[i]
        .send(&common::act(table_id, decision_id, action))
        .await;
}

/// Reads every subscriber for `wait` after the last action, while the hand cannot be
/// committed: the check is seen live, but none of the hand's result; no connection is
/// closed and nobody is timed out.
async fn nothing_of_the_result(clients: &mut [Client], wait: Duration) {
    read_all(clients, wait).await;
    for c in clients.iter() {
        assert_eq!(
            results_of(&c.log, 1),
            vec![],
            "{}: no result while the hand cannot be committed",
            c.name
        );
        assert!(
            !c.log
                .iter()
                .any(|m| matches!(m, ServerMsg::TimedOut { .. })),
            "{}: nobody is timed out while the commit waits",
            c.name
        );
        // The last action itself went out live: the river's second check.
        let checks_on_river = c
            .log
            .iter()
            .skip_while(|m| {
                !matches!(
                    m,
                    ServerMsg::Event {
                        event: Event::RoundStarted { street: 3 },
                        ..
                    }
                )
            })
            .filter(|m| {
                matches!(
                    m,
                    ServerMsg::Event {
                        event: Event::Checked { .. },
                        ..
                    }
                )
            })
            .count();
        assert_eq!(checks_on_river, 2, "{}: the last action is live", c.name);
    }
}

/// Once the database can commit again: the first result any subscriber receives finds
/// the hand committed; the next hand is dealt to the same connections; every subscriber
/// received the result exactly once, showdown included; the chips are all there.
async fn result_once_after_the_commit(
    server: &Server,
    url: &str,
    table_id: &str,
    clients: &mut [Client],
) {
    let store = SqlStore::connect(url).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    'first: loop {
        assert!(Instant::now() < deadline, "the result never came");
        for c in clients.iter_mut() {
            if let Some(ServerMsg::Event {
                hand_number: 1,
                event,
                ..
            }) = c.try_recv(Duration::from_millis(10)).await
            {
                if tells_result(&event) {
                    break 'first;
                }
            }
        }
    }
    assert_eq!(
        hand_status(&store, table_id, 1).await,
        "complete",
        "the result is sent only once the hand is committed"
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    'next: loop {
        assert!(Instant::now() < deadline, "no next hand");
        for c in clients.iter_mut() {
            if let Some(ServerMsg::Event { hand_number: 2, .. }) =
                c.try_recv(Duration::from_millis(10)).await
            {
                break 'next;
            }
        }
    }
    read_all(clients, Duration::from_millis(300)).await;
    for c in clients.iter() {
        let result = results_of(&c.log, 1);
        let ends = result
            .iter()
            .filter(|e| matches!(e, Event::HandEnded { .. }))
            .count();
        assert_eq!(ends, 1, "{}: the result arrives once: {result:?}", c.name);
        assert!(
            result.iter().any(|e| matches!(e, Event::Shown { .. })),
            "{}: a showdown",
            c.name
        );
    }
    assert_conserved(&server.audit().await, 2000);
    store.close().await;
}

/// The status of a table's hand `number` in the store.
/// A server on PostgreSQL (none where there is none): the database, its URL, the server.
async fn on_postgres() -> Option<(DbGuard, String, Server)> {
    let guard = DbGuard::new(Db::Postgres).await?;
    let url = guard.url();
    let server = Server::start(&url, &[]).await;
    Some((guard, url, server))
}

/// Three at a table and hand 1 played to its end while the test holds its row locked
/// (until `lock` is rolled back or dropped): the hand is over and its commit waits.
async fn over_and_waiting(
    server: &Server,
    url: &str,
) -> (String, Vec<Client>, sqlx::Transaction<'static, sqlx::Any>) {
    let (table_id, mut clients) = table_of_three(server).await;
    let last = to_the_last_decision(&table_id, &mut clients).await;
    let lock = lock_hand_one(url, &table_id).await;
    last_action(&table_id, &mut clients, last).await;
    (table_id, clients, lock)
}

/// Hand 1's row, locked by the test (until the lock is rolled back or dropped), so the
/// hand's commit waits on it.
async fn lock_hand_one(url: &str, table_id: &str) -> sqlx::Transaction<'static, sqlx::Any> {
    let holder = SqlStore::connect_admin(url).await.unwrap();
    let mut lock = holder.begin().await.unwrap();
    sqlx::query("select hand_id from hand where poker_table_id = $1 and number = 1 for update")
        .bind(table_id)
        .fetch_one(&mut *lock)
        .await
        .unwrap();
    lock
}

async fn hand_status(store: &SqlStore, table_id: &str, number: u64) -> String {
    let hands = store
        .table_hands(table_id.parse().expect("a table id"), 10, 0)
        .await
        .unwrap();
    hands
        .iter()
        .find(|h| h.number == number)
        .map(|h| h.status.to_string())
        .unwrap_or_default()
}

/// PostgreSQL stops just before the last action of a hand and comes back five seconds
/// later: meanwhile the last action is seen live but no subscriber receives any of the
/// hand's result, nobody is timed out (on a 2 s clock) or cut off; once the database is
/// back, the hand is committed before its result arrives, the result arrives exactly once
/// at every subscriber, the chips are all there, and the next hand is dealt. (The commit
/// waits inside the pool, which keeps trying to connect for up to 30 s.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hand_ending_while_postgres_restarts_shows_its_result_only_once_committed() {
    let Some((guard, mut server)) = Server::on_stoppable_postgres("this test").await else {
        return;
    };
    let pg = guard.postgres();
    let (table_id, mut clients) = table_of_three(&server).await;
    let last = to_the_last_decision(&table_id, &mut clients).await;
    pg.stop().unwrap();
    last_action(&table_id, &mut clients, last).await;
    // The outage: longer than the action clock.
    nothing_of_the_result(&mut clients, Duration::from_secs(5)).await;
    pg.restart().unwrap();
    result_once_after_the_commit(&server, &guard.url(), &table_id, &mut clients).await;
    server.stop().await;
}

/// The hand's commit is cut off again and again (its connection killed by the database
/// while it waits for a row lock the test holds, as a restart or a failover does): each
/// failure is transient, so the table tries again (more often than the persister's own
/// second try) instead of voiding the hand; once the lock goes, the hand commits and only
/// then is its result shown, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_cut_off_by_the_database_is_tried_again_until_durable() {
    let Some((_guard, url, mut server)) = on_postgres().await else {
        return;
    };
    let killer = SqlStore::connect_admin(&url).await.unwrap();
    let (table_id, mut clients, lock) = over_and_waiting(&server, &url).await;
    // Three commits cut off: the persister tries a failed hand once more by itself, so
    // the third is the table's own try again.
    let mut cut = 0;
    let deadline = Instant::now() + Duration::from_secs(60);
    while cut < 3 {
        assert!(Instant::now() < deadline, "the commit was not tried again");
        let killed: Vec<(bool,)> = sqlx::query_as(
            "select pg_terminate_backend(pid) from pg_stat_activity \
             where wait_event_type = 'Lock' and pid <> pg_backend_pid()",
        )
        .fetch_all(&killer)
        .await
        .unwrap();
        cut += killed.len();
        read_all(&mut clients, Duration::from_millis(50)).await;
    }
    nothing_of_the_result(&mut clients, Duration::from_millis(500)).await;
    lock.rollback().await.unwrap();
    result_once_after_the_commit(&server, &url, &table_id, &mut clients).await;
    server.stop().await;
}

/// A player who leaves while the finished hand waits for its commit (its row locked by
/// the test) is told the leave waits for the hand, like a leave asked during play; once
/// the hand is committed the player has its result, then is cashed out with the stack it
/// left them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_leaving_while_the_hand_waits_for_its_commit_leaves_once_it_is_committed() {
    let Some((_guard, url, mut server)) = on_postgres().await else {
        return;
    };
    let (table_id, mut clients, lock) = over_and_waiting(&server, &url).await;
    nothing_of_the_result(&mut clients, Duration::from_millis(300)).await;
    let ann = &mut clients[0];
    ann.send(&ClientMsg::Leave {
        table_id: tid(&table_id),
    })
    .await;
    let pending = ann.done("leave").await.1;
    assert!(pending, "the leave waits for the hand's commit");
    nothing_of_the_result(&mut clients, Duration::from_millis(300)).await;
    lock.rollback().await.unwrap();
    let ann = &mut clients[0];
    let amount = ann.settled("leave").await;
    let stacks = ann
        .log
        .iter()
        .find_map(|m| match m {
            ServerMsg::Event {
                hand_number: 1,
                event: Event::HandEnded { stacks },
                seats,
                ..
            } => Some((stacks.clone(), seats.clone())),
            _ => None,
        })
        .expect("the result before the cash-out");
    let mine = stacks
        .1
        .iter()
        .position(|&s| s == 0)
        .expect("ann in seat 0");
    assert_eq!(
        amount, stacks.0[mine],
        "cashed out with the hand's final stack"
    );
    assert_conserved(&server.audit().await, 2000);
    server.stop().await;
}

/// A hand whose commit the store refuses for good (a stored stack changed behind the
/// table's back mid-hand, so the hand no longer starts from the stored stacks) is void:
/// the players and the spectator are told the table stopped with the hand void, and
/// none of them ever receives its result; each player leaves with the stack the hand
/// began with.
async fn refused_commit(db: Db) {
    let Some(guard) = DbGuard::new(db).await else {
        return;
    };
    let mut server = Server::start(&guard.url(), &[]).await;
    let (table_id, mut clients) = table_of_three(&server).await;
    let store = SqlStore::connect(&guard.url()).await.unwrap();
    let raw = SqlStore::connect_admin(&guard.url()).await.unwrap();
    let ann = clients[0].player_id.expect("welcomed").to_string();
    let tamper = |delta: i64| {
        let (raw, ann) = (raw.clone(), ann.clone());
        async move {
            sqlx::query("update seat set stack = stack + $1 where player_id = $2")
                .bind(delta)
                .bind(ann)
                .execute(&raw)
                .await
                .unwrap();
        }
    };
    let mut tampered = false;
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut failed = [false; 3];
    while failed.iter().any(|f| !f) {
        assert!(Instant::now() < deadline, "the table never stopped");
        for (i, c) in clients.iter_mut().enumerate() {
            match c.try_recv(Duration::from_millis(10)).await {
                Some(ServerMsg::Decide {
                    decision_id, legal, ..
                }) => {
                    // Hand 1 is dealt (its start is on record): its stacks go stale.
                    if !tampered {
                        tamper(1).await;
                        tampered = true;
                    }
                    let action = common::simple_action(&legal, false);
                    c.send(&common::act(&table_id, decision_id, action)).await;
                }
                Some(ServerMsg::TableFailed { .. }) => failed[i] = true,
                _ => {}
            }
        }
    }
    read_all(&mut clients, Duration::from_millis(500)).await;
    for c in &clients {
        assert_eq!(
            results_of(&c.log, 1),
            vec![],
            "{}: a void hand's result is never sent",
            c.name
        );
    }
    assert_eq!(hand_status(&store, &table_id, 1).await, "void");
    tamper(-1).await;
    for c in clients.iter_mut().take(2) {
        c.send(&ClientMsg::Leave {
            table_id: tid(&table_id),
        })
        .await;
        let amount = c.done("leave").await.0;
        assert_eq!(
            amount, 200,
            "{}: the stack the void hand began with",
            c.name
        );
    }
    assert_conserved(&server.audit().await, 2000);
    store.close().await;
    server.stop().await;
}

crate::on_both_dbs!(refused_commit: a_hand_whose_commit_is_refused_is_void_and_its_result_never_sent_sqlite, a_hand_whose_commit_is_refused_is_void_and_its_result_never_sent_postgres);

/// Holds the database's writes up from the test: on SQLite an open write transaction
/// (WAL readers go on beside it), on PostgreSQL a lock on `seat` that lets reads through
/// but no new seat. A buy-in cannot complete until the transaction is rolled back.
async fn hold_writes(db: Db, holder: &sqlx::AnyPool) -> sqlx::Transaction<'static, sqlx::Any> {
    let mut tx = holder.begin().await.unwrap();
    let sql = match db {
        Db::Sqlite => "update seat set stack = stack where 0 = 1",
        Db::Postgres => "lock table seat in exclusive mode",
    };
    sqlx::query(sql).execute(&mut *tx).await.unwrap();
    tx
}

/// The first decision of hand 1: which of Ann and Ben is asked, the decision's id and
/// what is legal, unanswered.
async fn first_decision(clients: &mut [Client]) -> (usize, u64, poker_rules::LegalActions) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        assert!(Instant::now() < deadline, "hand 1 was not dealt");
        for (i, c) in clients.iter_mut().enumerate().take(2) {
            if let Some(ServerMsg::Decide {
                decision_id, legal, ..
            }) = c.try_recv(Duration::from_millis(10)).await
            {
                return (i, decision_id, legal);
            }
        }
    }
}

/// Dan's answer to his sit or leave: `(amount, pending)`; an error fails the test.
async fn done(dan: &mut Client, what: &str) -> (u64, bool) {
    dan.until(|m| match m {
        ServerMsg::Done {
            request,
            amount,
            pending,
            ..
        } if request == what => Some((*amount, *pending)),
        _ => None,
    })
    .await
}

/// What Dan does while his buy-in waits.
#[derive(Clone, Copy, PartialEq)]
enum Meanwhile {
    Waits,
    Disconnects,
    /// Asks to leave from a second connection (another tab of his).
    Leaves,
}

/// Dan sits down at Ann and Ben's table during hand 1 while the test holds the
/// database's writes up, so his buy-in cannot complete: the table goes on answering the
/// hand's action (the other player is asked next) while his sit waits, and his wallet is
/// untouched meanwhile. Once the writes are let go, his sit is answered and he is seated
/// with his buy-in; when he disconnected while it waited, the durable buy-in still
/// seats him (his chips are on the table, not lost between wallet and seat). When he
/// asked to leave while it waited, he is told the leave is pending and is cashed out once
/// seated: his buy-in goes back to his wallet whole. The chips are all there in every
/// case.
async fn sit_while_the_buy_in_waits(db: Db, meanwhile: Meanwhile) {
    let Some(guard) = DbGuard::new(db).await else {
        return;
    };
    let url = guard.url();
    let mut server = Server::start(&url, &[]).await;
    let (table_id, mut clients) = table_of_three(&server).await;
    server.player("dan", 1000).await;
    server.player("eve", 1000).await;
    let mut dan = server.client("dan").await;
    let mut eve = server.client("eve").await;
    let dan_id = dan.player_id.expect("welcomed");
    // Connected before the writes are held: connecting runs the migrations' checks.
    let store = SqlStore::connect(&url).await.unwrap();
    let holder = SqlStore::connect_admin(&url).await.unwrap();
    let (i, decision_id, legal) = first_decision(&mut clients).await;
    // Dan's other tab signs in before the writes are held (signing in writes a session).
    let mut tab = match meanwhile {
        Meanwhile::Leaves => Some(server.client("dan").await),
        _ => None,
    };

    let held = hold_writes(db, &holder).await;
    dan.send(&sit(&table_id, 2, 200)).await;
    // Dan's sit reaches the table first: it waits for the store from then on.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let action = common::simple_action(&legal, false);
    clients[i]
        .send(&common::act(&table_id, decision_id, action))
        .await;
    clients[1 - i]
        .until(|m| matches!(m, ServerMsg::Decide { .. }).then_some(()))
        .await;
    assert_eq!(
        dan.try_recv(Duration::from_millis(300)).await,
        None,
        "dan's sit is still waiting for its buy-in"
    );
    assert_eq!(store.balance(dan_id).await.unwrap(), 1000);
    // The seat is held for dan's sit: eve asking for it meanwhile is refused at once
    // (the table does not wait for the store to say so).
    eve.send(&sit(&table_id, 2, 200)).await;
    let refused = loop {
        if let ServerMsg::Error { code, message } = eve.recv().await {
            break (code, message);
        }
    };
    assert_eq!(
        refused,
        (ErrorCode::SeatRefused, "the seat is taken".to_string())
    );
    match meanwhile {
        Meanwhile::Waits => {
            held.rollback().await.unwrap();
            assert_eq!(
                done(&mut dan, "sit").await,
                (200, false),
                "seated once durable"
            );
        }
        Meanwhile::Disconnects => {
            drop(dan);
            held.rollback().await.unwrap();
        }
        Meanwhile::Leaves => {
            let tab = tab.as_mut().expect("dan's other tab");
            tab.send(&ClientMsg::Leave {
                table_id: tid(&table_id),
            })
            .await;
            assert_eq!(
                done(tab, "leave").await,
                (200, true),
                "the leave waits for the sit"
            );
            held.rollback().await.unwrap();
            assert_eq!(
                done(&mut dan, "sit").await,
                (200, false),
                "seated once durable"
            );
            // Then cashed out: the seat is let go and the buy-in is back in his wallet.
            let table: poker_store::TableId = table_id.parse().unwrap();
            let deadline = Instant::now() + Duration::from_secs(30);
            loop {
                let seats = store.seats(table).await.unwrap();
                let balance = store.balance(dan_id).await.unwrap();
                if balance == 1000 && seats.iter().all(|s| s.player_id != dan_id) {
                    break;
                }
                assert!(
                    Instant::now() < deadline,
                    "dan was never cashed out: balance {balance}, seats {seats:?}"
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            assert_conserved(&server.audit().await, 4000);
            store.close().await;
            server.stop().await;
            return;
        }
    }
    let table: poker_store::TableId = table_id.parse().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let seats = store.seats(table).await.unwrap();
        if seats
            .iter()
            .any(|s| s.player_id == dan_id && s.seat_no == 2 && s.stack == 200)
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "dan never took seat 2: {seats:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        store.balance(dan_id).await.unwrap(),
        800,
        "the buy-in left his wallet"
    );
    // Ann's, Ben's, dan's and eve's deposits.
    assert_conserved(&server.audit().await, 4000);
    store.close().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_answers_actions_while_a_sit_waits_for_its_buy_in_sqlite() {
    sit_while_the_buy_in_waits(Db::Sqlite, Meanwhile::Waits).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_answers_actions_while_a_sit_waits_for_its_buy_in_postgres() {
    sit_while_the_buy_in_waits(Db::Postgres, Meanwhile::Waits).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_disconnecting_while_the_buy_in_waits_keeps_the_seat_bought_sqlite() {
    sit_while_the_buy_in_waits(Db::Sqlite, Meanwhile::Disconnects).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_disconnecting_while_the_buy_in_waits_keeps_the_seat_bought_postgres() {
    sit_while_the_buy_in_waits(Db::Postgres, Meanwhile::Disconnects).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_leaving_while_the_buy_in_waits_is_cashed_out_once_seated_sqlite() {
    sit_while_the_buy_in_waits(Db::Sqlite, Meanwhile::Leaves).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_leaving_while_the_buy_in_waits_is_cashed_out_once_seated_postgres() {
    sit_while_the_buy_in_waits(Db::Postgres, Meanwhile::Leaves).await;
}
