//! Players over real WebSockets against the real server on port 0, on SQLite and on
//! Postgres: many hands to showdown with side pots and a spectator; a player who drops
//! mid-hand and reconnects; the action clock; sitting out and in, topping up and leaving;
//! bad input of every kind. Every client checks every message for hole cards that are not
//! its own; every test ends with the books balanced against what was deposited.

use crate::common;

use common::{act, play, simple_action, sit, tid, Client, Db, DbGuard, Server};
use poker_protocol::{ClientMsg, ErrorCode, ServerMsg};
use poker_rules::{Action, Event};
use poker_store::{now_ms, SqlStore};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::time::Duration;

mod scenarios;

use scenarios::*;

fn fast_clock() -> serde_json::Value {
    json!({ "action_ms": 10000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 })
}

crate::on_both_dbs!(many_hands_with_side_pots: players_play_many_hands_with_side_pots_and_a_spectator_on_sqlite, players_play_many_hands_with_side_pots_and_a_spectator_on_postgres);

crate::on_both_dbs!(reconnect_mid_hand: a_player_drops_mid_hand_and_reconnects_to_a_snapshot_on_sqlite, a_player_drops_mid_hand_and_reconnects_to_a_snapshot_on_postgres);

crate::on_both_dbs!(clock_runs_out: r38_the_clock_warns_uses_the_time_bank_then_folds_and_sits_out_repeat_offenders_on_sqlite, r38_the_clock_warns_uses_the_time_bank_then_folds_and_sits_out_repeat_offenders_on_postgres);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_sit_out_sit_in_top_up_and_leave_with_a_cash_out() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    server.player("ann", 1000).await;
    let ben_id = server.player("ben", 1000).await;
    let table_id = server.table(fast_clock()).await;
    let mut ann = server.client("ann").await;
    let mut ben = server.client("ben").await;
    ann.send(&sit(&table_id, 0, 100)).await;
    ann.until(|m| matches!(m, ServerMsg::Done { .. }).then_some(()))
        .await;
    ben.send(&sit(&table_id, 1, 100)).await;
    // In the hand: a top-up and a sit-out wait for its end.
    ann.until(|m| matches!(m, ServerMsg::Event { .. }).then_some(()))
        .await;
    let top_up = |amount| ClientMsg::TopUp {
        table_id: tid(&table_id),
        amount,
    };
    ann.send(&top_up(500)).await;
    ann.expect_error(ErrorCode::SeatRefused).await; // over the maximum buy-in
    ann.send(&top_up(50)).await;
    let pending = ann.done("top_up").await.1;
    assert!(pending, "chips are added only between hands (R26)");
    ann.send(&ClientMsg::SitOut {
        table_id: tid(&table_id),
        next_big_blind: false,
    })
    .await;
    let mut clients = vec![ann, ben];
    play(&mut clients, &table_id, 1, |_, _, legal| {
        simple_action(legal, false)
    })
    .await;
    let [mut ann, mut ben] = <[Client; 2]>::try_from(clients).ok().unwrap();
    let added = ann.settled("top_up").await;
    assert_eq!(added, 50);
    let table = ann
        .until(|m| match m {
            ServerMsg::Seats { table } => Some(table.clone()),
            _ => None,
        })
        .await;
    let seat = table.seats.iter().find(|s| s.seat == 0).unwrap();
    assert!(seat.sitting_out && seat.pending_top_up == 0, "{seat:?}");
    // Ann sits out, so no hand is dealt; she comes back and play resumes.
    assert!(
        ann.try_recv(Duration::from_millis(300)).await.is_none(),
        "no hand with one player in"
    );
    ann.sit_in(&table_id).await;
    // Ben leaves during the next hand: his hand is dead, and he is cashed out after it.
    ben.until(|m| matches!(m, ServerMsg::Event { .. }).then_some(()))
        .await;
    ben.send(&ClientMsg::Leave {
        table_id: tid(&table_id),
    })
    .await;
    let mut clients = [ann, ben];
    let cashed = loop {
        let mut found = None;
        for c in clients.iter_mut() {
            match c.try_recv(Duration::from_millis(5)).await {
                // Ben has left: a decision asked before his leave is answered for him.
                Some(ServerMsg::Decide {
                    decision_id, legal, ..
                }) if c.name == "ann" => {
                    c.send(&act(&table_id, decision_id, simple_action(&legal, false)))
                        .await
                }
                Some(ServerMsg::Done {
                    request,
                    amount,
                    pending: false,
                    ..
                }) if request == "leave" => found = Some(amount),
                Some(ServerMsg::Error { code, message }) => panic!("{code:?}: {message}"),
                _ => {}
            }
        }
        if let Some(a) = found {
            break a;
        }
    };
    let players = server.get_json("/admin/players").await;
    let ben_balance = players
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["player_id"] == ben_id.as_str())
        .unwrap()["balance"]
        .as_u64()
        .unwrap();
    assert_eq!(
        ben_balance,
        900 + cashed,
        "the whole stack went back to the wallet"
    );
    server.finish(2000).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_signed_in_before_its_players_sit_follows_the_table_once_it_asks_to_sit_out_there() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    server.player("ann", 1000).await;
    server.player("ben", 1000).await;
    let clock = json!({ "action_ms": 2000, "warning_ms": 0, "time_bank_ms": 0,
                        "max_timeouts": 0, "between_hands_ms": 0 });
    let table_id = server.table(clock).await;
    // Ann's second page signs in while she is not seated anywhere: it follows no table.
    // She sits down from her first page, which she then closes (a reconnect while a sit is
    // under way does the same).
    let mut page = server.client("ann").await;
    let mut first = server.client("ann").await;
    first.send(&sit(&table_id, 0, 100)).await;
    first.settled("sit").await;
    let _ = first.ws.close(None).await;
    let mut ben = server.client("ben").await;
    ben.send(&sit(&table_id, 1, 100)).await;
    // A hand dealt to both, Ben to act: from the page, Ann asks to sit out.
    let legal = ben
        .until(|m| match m {
            ServerMsg::Decide {
                decision_id, legal, ..
            } => Some((*decision_id, *legal)),
            _ => None,
        })
        .await;
    page.send(&ClientMsg::SitOut {
        table_id: tid(&table_id),
        next_big_blind: false,
    })
    .await;
    assert!(
        page.done("sit_out").await.1,
        "asked during her hand: pending"
    );
    // The page follows the table now (its snapshot comes), so it hears the hand's end.
    page.until(|m| matches!(m, ServerMsg::Snapshot { .. }).then_some(()))
        .await;
    let (decision_id, legal) = legal;
    let action = if legal.fold {
        Action::Fold
    } else {
        Action::Check
    };
    ben.send(&act(&table_id, decision_id, action)).await;
    page.settled("sit_out").await;
    server.finish(2000).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_typed_errors_while_the_connection_and_table_carry_on() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(
        &guard.url(),
        &[
            ("POKER__SERVER__MAX_FRAME_BYTES", "2048"),
            ("POKER__SERVER__RATE_LIMIT_PER_SEC", "20"),
            ("POKER__SERVER__RATE_LIMIT_BURST", "30"),
            ("POKER__SERVER__LOGIN_LOCKOUT_SECS", "1"),
        ],
    )
    .await;
    let ann_id = server.player("ann", 1000).await;
    server.player("ben", 1000).await;
    // Blinds 5/10 with a betting unit of 5.
    let mut rules = common::nl_5_10();
    rules["options"] = json!({ "unit": 5 });
    let table_id = server.table_with(rules, fast_clock()).await;

    // Before authenticating, nothing else is answered; bad and expired tokens are refused.
    let mut ann = Client::connect(server.addr, "ann").await;
    ann.send(&ClientMsg::ListTables).await;
    ann.expect_error(ErrorCode::Unauthenticated).await;
    ann.send(&ClientMsg::Auth {
        token: "nope".into(),
    })
    .await;
    ann.expect_error(ErrorCode::Unauthenticated).await;
    let store = SqlStore::connect(&server.url).await.unwrap();
    let expired = "0123456789abcdef";
    store
        .create_session(
            &format!("{:x}", Sha256::digest(expired.as_bytes())),
            ann_id.parse().unwrap(),
            now_ms() - 1,
        )
        .await
        .unwrap();
    store.close().await;
    ann.send(&ClientMsg::Auth {
        token: expired.into(),
    })
    .await;
    ann.expect_error(ErrorCode::Unauthenticated).await;
    let token = server.login("ann").await;
    ann.auth(&token).await;
    // Password guessing is cut short: after five wrong ones, even the right one waits.
    let login = |password: &'static str| {
        let base = server.base.clone();
        async move {
            reqwest::Client::new()
                .post(format!("{base}/login"))
                .json(&json!({ "name": "ben", "password": password }))
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    for _ in 0..5 {
        assert_eq!(login("guess-guess").await, 401);
    }
    assert_eq!(login("password1").await, 429);

    ann.send_raw("{not json".into()).await;
    ann.expect_error(ErrorCode::BadMessage).await;
    ann.send_raw(r#"{"type":"fly"}"#.into()).await;
    ann.expect_error(ErrorCode::BadMessage).await;
    ann.send_raw(format!(r#"{{"type":"ping","pad":"{}"}}"#, "x".repeat(5000)))
        .await;
    ann.expect_error(ErrorCode::FrameTooLarge).await;
    ann.send(&sit("00000000-0000-4000-8000-000000000000", 0, 300))
        .await;
    ann.expect_error(ErrorCode::UnknownTable).await;
    // A table id that is not an id at all is a malformed message, refused where it is read.
    ann.send_raw(r#"{"type":"sit","table_id":"not-a-uuid","seat":0,"buy_in":300}"#.into())
        .await;
    ann.expect_error(ErrorCode::BadMessage).await;
    ann.send(&sit(&table_id, 0, 5000)).await;
    ann.expect_error(ErrorCode::SeatRefused).await; // above the maximum buy-in
    ann.send(&sit(&table_id, 0, 100)).await;
    ann.expect_error(ErrorCode::SeatRefused).await; // below the minimum
    ann.send(&sit(&table_id, 9, 300)).await;
    ann.expect_error(ErrorCode::SeatRefused).await; // no such seat
    ann.send(&ClientMsg::Leave {
        table_id: tid(&table_id),
    })
    .await;
    ann.expect_error(ErrorCode::NotYourTurn).await; // not seated
    ann.send(&ClientMsg::Ping).await;
    assert_eq!(ann.recv().await, ServerMsg::Pong);
    ann.send(&ClientMsg::ListTables).await;
    match ann.recv().await {
        ServerMsg::Tables { tables } => assert_eq!(tables.len(), 1),
        other => panic!("{other:?}"),
    }

    ann.send(&sit(&table_id, 0, 300)).await;
    // Ben's lockout (one second here) is over.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let mut ben = server.client("ben").await;
    ben.send(&sit(&table_id, 1, 300)).await;
    // Whoever is asked first tries illegal amounts; the other acts out of turn and for
    // the other seat; both try a stale decision id.
    let mut clients = vec![ann, ben];
    let (who, decision_id, legal) = loop {
        let mut found = None;
        for (i, c) in clients.iter_mut().enumerate() {
            if let Some(ServerMsg::Decide {
                decision_id, legal, ..
            }) = c.try_recv(Duration::from_millis(5)).await
            {
                found = Some((i, decision_id, legal));
            }
        }
        if let Some(f) = found {
            break f;
        }
    };
    let (min, max) = legal.bet_or_raise.expect("a raise is possible");
    for to in [min - 5, max + 5, min + 2] {
        clients[who]
            .send(&act(&table_id, decision_id, Action::BetOrRaiseTo { to }))
            .await;
        clients[who].expect_error(ErrorCode::IllegalAction).await;
    }
    clients[who]
        .send(&act(&table_id, decision_id + 7, Action::Call))
        .await;
    clients[who].expect_error(ErrorCode::StaleDecision).await;
    let other = 1 - who;
    clients[other]
        .send(&act(&table_id, decision_id, Action::Fold))
        .await;
    clients[other].expect_error(ErrorCode::NotYourTurn).await;

    // A flood is rate limited; the connection stays open and works after a pause.
    for _ in 0..60 {
        clients[other].send(&ClientMsg::Ping).await;
    }
    let mut limited = 0;
    let mut pongs = 0;
    while limited + pongs < 60 {
        match clients[other].recv().await {
            ServerMsg::Error {
                code: ErrorCode::RateLimited,
                ..
            } => limited += 1,
            ServerMsg::Pong => pongs += 1,
            _ => {}
        }
    }
    assert!(
        limited > 0 && pongs >= 20,
        "{limited} limited, {pongs} answered"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    clients[other].send(&ClientMsg::Ping).await;
    clients[other]
        .until(|m| (*m == ServerMsg::Pong).then_some(()))
        .await;

    // The table plays on after all of it.
    clients[who]
        .send(&act(&table_id, decision_id, Action::Call))
        .await;
    play(&mut clients, &table_id, 2, |_, _, legal| {
        simple_action(legal, false)
    })
    .await;
    server.finish(2000).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_register_when_allowed_and_not_otherwise() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    let register = |base: String, name: &'static str, password: &'static str| async move {
        let r = reqwest::Client::new()
            .post(format!("{base}/register"))
            .json(&json!({ "name": name, "password": password }))
            .send()
            .await
            .unwrap();
        (
            r.status().as_u16(),
            r.json::<serde_json::Value>().await.unwrap(),
        )
    };
    let (status, body) = register(server.base.clone(), "newbie", "password1").await;
    assert_eq!(status, 200, "{body}");
    let mut c = Client::connect(server.addr, "newbie").await;
    c.auth(body["token"].as_str().unwrap()).await;
    assert_eq!(
        register(server.base.clone(), "newbie", "password1").await.0,
        409
    );
    assert_eq!(register(server.base.clone(), "x", "short").await.0, 400);
    server.stop().await;
    let mut closed = Server::start(
        &guard.url(),
        &[("POKER__SERVER__ALLOW_REGISTRATION", "false")],
    )
    .await;
    assert_eq!(
        register(closed.base.clone(), "other", "password1").await.0,
        403
    );
    // The session survived the restart.
    let mut again = Client::connect(closed.addr, "newbie").await;
    again.auth(body["token"].as_str().unwrap()).await;
    closed.stop().await;
}

/// Plays one client's part in the draw and run-it-twice test: returns once `done` says.
async fn answer_everything(
    clients: &mut [Client],
    table_id: &str,
    shove: bool,
    mut done: impl FnMut(usize, &ServerMsg) -> bool,
) {
    let mut own: Vec<Vec<poker_rules::Card>> = vec![Vec::new(); clients.len()];
    loop {
        for i in 0..clients.len() {
            let Some(msg) = clients[i].try_recv(Duration::from_millis(5)).await else {
                continue;
            };
            let of_table = match &msg {
                ServerMsg::Decide { table_id: t, .. }
                | ServerMsg::DecideDraw { table_id: t, .. }
                | ServerMsg::DecideRunTwice { table_id: t, .. }
                | ServerMsg::Event { table_id: t, .. } => *t == tid(table_id),
                _ => true,
            };
            if !of_table {
                continue;
            }
            if done(i, &msg) {
                return;
            }
            let mine = clients[i].seat;
            match &msg {
                ServerMsg::Decide {
                    decision_id, legal, ..
                } => {
                    let action = simple_action(legal, shove);
                    clients[i].send(&act(table_id, *decision_id, action)).await;
                }
                ServerMsg::DecideDraw { decision_id, .. } => {
                    // Throw the first card away.
                    let discards = poker_rules::Cards::from_slice(&own[i][..1]).unwrap();
                    clients[i]
                        .send(&act(table_id, *decision_id, Action::Draw { discards }))
                        .await;
                }
                ServerMsg::DecideRunTwice { decision_id, .. } => {
                    clients[i]
                        .send(&act(
                            table_id,
                            *decision_id,
                            Action::RunItTwice { agree: true },
                        ))
                        .await;
                }
                ServerMsg::Event {
                    event: Event::HoleDealt { player, cards, .. },
                    seats,
                    ..
                } if Some(seats[*player]) == mine => {
                    if own[i].len() >= 5 && cards.len() == 5 {
                        own[i].clear(); // a new hand
                    }
                    own[i].extend(cards.iter().copied());
                }
                ServerMsg::Event {
                    event: Event::Discarded { player, cards },
                    seats,
                    ..
                } if Some(seats[*player]) == mine => {
                    own[i].retain(|c| !cards.contains(c));
                }
                ServerMsg::Event {
                    event: Event::HandEnded { .. },
                    ..
                } => own[i].clear(),
                ServerMsg::Error { code, message } => panic!("{code:?}: {message}"),
                _ => {}
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_choose_their_draws_and_agree_to_run_it_twice() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    server.player("ann", 1000).await;
    server.player("ben", 1000).await;
    // 2-7 triple draw, fixed limit 2/4.
    let mut rules = common::nl_rules();
    rules["game"] = json!("deuce_to_seven_triple_draw");
    rules["structure"] = json!("fixed_limit");
    rules["stakes"] = json!({ "small_bet": 2, "big_bet": 4 });
    rules["max_raises"] = json!(4);
    let draw_table = server.table_with(rules, fast_clock()).await;
    let mut clients = Vec::new();
    for (seat, name) in ["ann", "ben"].iter().enumerate() {
        let mut c = server.client(name).await;
        c.send(&sit(&draw_table, seat as u32, 100)).await;
        clients.push(c);
    }
    // Each discards one card at every draw: they see their own discards and new cards,
    // and only the count of the other's.
    let mut discards_seen = [0usize; 2];
    let mut hidden_discards_seen = [0usize; 2];
    answer_everything(&mut clients, &draw_table, false, |i, msg| {
        if let ServerMsg::Event {
            event: Event::Discarded { cards, .. },
            ..
        } = msg
        {
            assert_eq!(cards.len(), 1, "one card thrown each time");
            if cards.iter().all(|c| c.is_known()) {
                discards_seen[i] += 1;
            } else {
                hidden_discards_seen[i] += 1;
            }
        }
        matches!(
            msg,
            ServerMsg::Event {
                event: Event::HandEnded { .. },
                ..
            }
        ) && i == 0
    })
    .await;
    assert!(discards_seen.iter().all(|&n| n > 0), "{discards_seen:?}");
    assert!(
        hidden_discards_seen.iter().all(|&n| n > 0),
        "{hidden_discards_seen:?}"
    );
    for c in clients.iter_mut() {
        c.send(&ClientMsg::Leave {
            table_id: tid(&draw_table),
        })
        .await;
    }

    // No limit with run it twice: both shove, both agree, two boards are dealt.
    let mut rules = common::nl_rules();
    rules["options"] = json!({ "run_it_twice": true });
    let rit_table = server.table_with(rules, fast_clock()).await;
    for (seat, c) in clients.iter_mut().enumerate() {
        c.seat = None;
        c.send(&sit(&rit_table, seat as u32, 100)).await;
    }
    let mut second_boards = 0;
    let mut run_awards = 0;
    answer_everything(&mut clients, &rit_table, true, |i, msg| {
        if i == 0 {
            match msg {
                ServerMsg::Event {
                    event: Event::SecondBoardDealt { .. },
                    ..
                } => second_boards += 1,
                ServerMsg::Event {
                    event: Event::PotAwarded { run: 1, .. },
                    ..
                } => run_awards += 1,
                _ => {}
            }
        }
        i == 0
            && second_boards > 0
            && matches!(
                msg,
                ServerMsg::Event {
                    event: Event::HandEnded { .. },
                    ..
                }
            )
    })
    .await;
    assert!(run_awards > 0, "the second run won half the pot");
    server.finish(2000).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_who_unwatches_receives_nothing_more_from_the_table() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    server.player("ann", 1000).await;
    server.player("ben", 1000).await;
    server.player("sue", 0).await;
    let table_id = server.table(fast_clock()).await;
    let mut sue = server.client("sue").await;
    sue.send(&ClientMsg::Watch {
        table_id: tid(&table_id),
    })
    .await;
    sue.until(|m| matches!(m, ServerMsg::Snapshot { .. }).then_some(()))
        .await;
    let mut clients = Vec::new();
    for (seat, name) in ["ann", "ben"].iter().enumerate() {
        let mut c = server.client(name).await;
        c.send(&sit(&table_id, seat as u32, 100)).await;
        clients.push(c);
    }
    sue.until(|m| matches!(m, ServerMsg::Event { .. }).then_some(()))
        .await;
    sue.send(&ClientMsg::Unwatch {
        table_id: tid(&table_id),
    })
    .await;
    // Once the pong is back the unwatch was handled; what was already queued drains.
    sue.send(&ClientMsg::Ping).await;
    sue.until(|m| (*m == ServerMsg::Pong).then_some(())).await;
    let mut last_hand = 0;
    while let Some(m) = sue.try_recv(Duration::from_millis(200)).await {
        if let ServerMsg::Event { hand_number, .. } = m {
            last_hand = last_hand.max(hand_number);
        }
    }
    play(&mut clients, &table_id, 2, |_, _, legal| {
        simple_action(legal, false)
    })
    .await;
    while let Some(m) = sue.try_recv(Duration::from_millis(200)).await {
        assert!(
            !matches!(&m, ServerMsg::Event { hand_number, .. } if *hand_number > last_hand),
            "after unwatching: {m:?}"
        );
    }
    server.finish(2000).await;
}

/// Signing in asks only the tables where the player holds a seat (found in the store), not
/// every table of the room: a room of many tables and a reconnect storm would otherwise
/// cost a question to every table per connection. The player is still put back at their
/// own table, with its snapshot.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signing_in_asks_only_the_tables_where_the_player_sits() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    server.player("ann", 1000).await;
    server.player("ben", 1000).await;
    let mut tables = Vec::new();
    for _ in 0..30 {
        tables.push(server.table(json!({})).await);
    }
    let mut ann = server.client("ann").await;
    ann.send(&sit(&tables[7], 0, 100)).await;
    ann.until(|m| matches!(m, ServerMsg::Snapshot { .. }).then_some(()))
        .await;
    let before = server.metric("poker_table_wakeups_total").await;
    // Ben sits nowhere: no table is asked (a table's own clock may tick meanwhile).
    let _ben = server.client("ben").await;
    let asked = server.metric("poker_table_wakeups_total").await - before;
    assert!(asked < 10, "{asked} tables asked");
    // Ann comes back on a new connection: only her table is asked, and she is back there.
    let token = server.login("ann").await;
    let mut again = Client::connect(server.addr, "ann").await;
    again.auth(&token).await;
    let table = again.snapshot_table().await.table_id;
    assert_eq!(table, tid(&tables[7]));
    let asked = server.metric("poker_table_wakeups_total").await - before;
    assert!(asked < 10, "{asked} tables asked");
    server.stop().await;
}
