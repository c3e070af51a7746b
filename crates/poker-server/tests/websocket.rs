//! Players over real WebSockets against the real server on port 0 (SQLite): log in, sit,
//! play hands to showdown by answering decisions, with every chip accounted for after;
//! bad input of every kind gets a typed error while the connection and table carry on;
//! no player ever receives another's unshown hole cards; a spectator sees none.

use futures_util::{SinkExt, StreamExt};
use poker_protocol::{ClientMsg, ErrorCode, ServerMsg};
use poker_rules::{Action, Event};
use poker_server::Config;
use poker_store::{SqlStore, Store};
use serde_json::{json, Value};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn send(ws: &mut Ws, msg: &ClientMsg) {
    ws.send(Message::Text(serde_json::to_string(msg).unwrap().into()))
        .await
        .unwrap();
}

async fn send_raw(ws: &mut Ws, text: String) {
    ws.send(Message::Text(text.into())).await.unwrap();
}

async fn recv(ws: &mut Ws) -> ServerMsg {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("a message in time")
            .expect("open")
            .expect("a frame");
        if let Message::Text(t) = frame {
            return serde_json::from_str(&t).expect("a server message");
        }
    }
}

async fn expect_error(ws: &mut Ws, code: ErrorCode) {
    loop {
        match recv(ws).await {
            ServerMsg::Error { code: c, .. } => {
                assert_eq!(c, code);
                return;
            }
            ServerMsg::Event { .. } | ServerMsg::Decide { .. } => continue,
            other => panic!("expected {code:?}, got {other:?}"),
        }
    }
}

async fn admin(base: &str, path: &str, body: Value) -> Value {
    reqwest::Client::new()
        .post(format!("{base}{path}"))
        .bearer_auth("tok")
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_play_hands_over_websockets_and_bad_input_is_answered() {
    let dir = std::env::temp_dir().join(format!("pokerd-ws-{}", std::process::id()));
    let url = format!("sqlite://{}", dir.join("poker.db").display());
    let env = vec![
        ("DATABASE_URL".to_string(), url.clone()),
        ("POKER__ADMIN__TOKEN".to_string(), "tok".to_string()),
        (
            "POKER__SERVER__MAX_FRAME_BYTES".to_string(),
            "2048".to_string(),
        ),
    ];
    let config = Config::from_layers(None, &env).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let base = format!("http://{addr}");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(poker_server::run(
        listener,
        async {
            let _ = stopped.await;
        },
        config,
    ));
    for _ in 0..100 {
        if reqwest::get(format!("{base}/healthz")).await.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // The operator sets up two players and a table.
    let mut ids = Vec::new();
    for name in ["ann", "ben"] {
        let p = admin(
            &base,
            "/admin/players",
            json!({ "name": name, "password": "password1" }),
        )
        .await;
        let id = p["player_id"].as_str().unwrap().to_string();
        admin(
            &base,
            &format!("/admin/players/{id}/deposit"),
            json!({ "amount": 1000 }),
        )
        .await;
        ids.push(id);
    }
    let rules = json!({
        "game": "holdem", "structure": "no_limit", "stakes": { "min_bet": 2 },
        "max_raises": null, "uncapped_heads_up": false, "seat_count": 6,
        "small_blind": 1, "big_blind": 2, "ante": { "kind": "none" }, "button": "dead",
        "missed_blinds": "dead_small_live_big", "min_buy_in": 40, "max_buy_in": 200,
        "rathole_secs": 3600, "max_missed_big_blinds": 10, "kill": null, "rock": false
    });
    let table = admin(
        &base,
        "/admin/tables",
        json!({ "name": "NL 1/2", "rules": rules }),
    )
    .await;
    let table_id = table["table_id"].as_str().unwrap().to_string();

    // Each logs in and connects.
    let mut clients = Vec::new();
    for name in ["ann", "ben"] {
        let login: Value = reqwest::Client::new()
            .post(format!("{base}/login"))
            .json(&json!({ "name": name, "password": "password1" }))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
            .await
            .unwrap();
        // Before authenticating, nothing else is answered.
        send(&mut ws, &ClientMsg::ListTables).await;
        expect_error(&mut ws, ErrorCode::Unauthenticated).await;
        send(
            &mut ws,
            &ClientMsg::Auth {
                token: "nope".into(),
            },
        )
        .await;
        expect_error(&mut ws, ErrorCode::Unauthenticated).await;
        send(
            &mut ws,
            &ClientMsg::Auth {
                token: login["token"].as_str().unwrap().into(),
            },
        )
        .await;
        assert!(matches!(recv(&mut ws).await, ServerMsg::Welcome { .. }));
        clients.push(ws);
    }
    let wrong_password = reqwest::Client::new()
        .post(format!("{base}/login"))
        .json(&json!({ "name": "ann", "password": "wrong" }))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong_password.status().as_u16(), 401);

    // Bad input of every kind; the connection carries on.
    let ws = &mut clients[0];
    send_raw(ws, "{not json".into()).await;
    expect_error(ws, ErrorCode::BadMessage).await;
    send_raw(ws, r#"{"type":"fly"}"#.into()).await;
    expect_error(ws, ErrorCode::BadMessage).await;
    send_raw(
        ws,
        format!(r#"{{"type":"ping","pad":"{}"}}"#, "x".repeat(5000)),
    )
    .await;
    expect_error(ws, ErrorCode::FrameTooLarge).await;
    send(
        ws,
        &ClientMsg::Sit {
            table_id: "00000000-0000-4000-8000-000000000000".into(),
            seat: 0,
            buy_in: 100,
            post_now: true,
        },
    )
    .await;
    expect_error(ws, ErrorCode::UnknownTable).await;
    send(
        ws,
        &ClientMsg::Sit {
            table_id: table_id.clone(),
            seat: 0,
            buy_in: 5000,
            post_now: true,
        },
    )
    .await;
    expect_error(ws, ErrorCode::SeatRefused).await;
    send(ws, &ClientMsg::Ping).await;
    assert_eq!(recv(ws).await, ServerMsg::Pong);
    send(ws, &ClientMsg::ListTables).await;
    match recv(ws).await {
        ServerMsg::Tables { tables } => assert_eq!(tables.len(), 1),
        other => panic!("{other:?}"),
    }

    // A spectator.
    let (mut watcher, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
        .await
        .unwrap();
    let login: Value = reqwest::Client::new()
        .post(format!("{base}/login"))
        .json(&json!({ "name": "ann", "password": "password1" }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    send(
        &mut watcher,
        &ClientMsg::Auth {
            token: login["token"].as_str().unwrap().into(),
        },
    )
    .await;
    recv(&mut watcher).await;
    send(
        &mut watcher,
        &ClientMsg::Watch {
            table_id: table_id.clone(),
        },
    )
    .await;

    // Both sit; they check or call every decision until three hands have ended.
    for (seat, ws) in clients.iter_mut().enumerate() {
        send(
            ws,
            &ClientMsg::Sit {
                table_id: table_id.clone(),
                seat: seat as u32,
                buy_in: 150,
                post_now: true,
            },
        )
        .await;
    }
    let mut ended = [0usize; 2];
    let mut stale_tried = false;
    while ended.iter().any(|&e| e < 3) {
        for (i, ws) in clients.iter_mut().enumerate() {
            let Ok(Some(Ok(Message::Text(t)))) =
                tokio::time::timeout(Duration::from_millis(50), ws.next()).await
            else {
                continue;
            };
            match serde_json::from_str::<ServerMsg>(&t).unwrap() {
                ServerMsg::Decide {
                    decision_id, legal, ..
                } => {
                    if !stale_tried {
                        send(
                            ws,
                            &ClientMsg::Act {
                                table_id: table_id.clone(),
                                decision_id: decision_id + 99,
                                action: Action::Fold,
                            },
                        )
                        .await;
                        expect_error(ws, ErrorCode::StaleDecision).await;
                        stale_tried = true;
                    }
                    let action = if legal.call.is_some() {
                        Action::Call
                    } else {
                        Action::Check
                    };
                    send(
                        ws,
                        &ClientMsg::Act {
                            table_id: table_id.clone(),
                            decision_id,
                            action,
                        },
                    )
                    .await;
                }
                ServerMsg::Event {
                    event: Event::HoleDealt { player, cards, .. },
                    seats,
                    ..
                } => {
                    // Only one's own hole cards are ever known.
                    let own = seats[player] as usize == i;
                    assert_eq!(
                        cards.iter().all(|c| c.is_known()),
                        own,
                        "seat {} saw {cards}",
                        i
                    );
                }
                ServerMsg::Event {
                    event: Event::HandEnded { .. },
                    ..
                } => ended[i] += 1,
                ServerMsg::Error { code, message } => {
                    panic!("unexpected error {code:?}: {message}")
                }
                _ => {}
            }
        }
    }
    while let Ok(Some(Ok(Message::Text(t)))) =
        tokio::time::timeout(Duration::from_millis(20), watcher.next()).await
    {
        if let ServerMsg::Event {
            event: Event::HoleDealt { cards, .. },
            ..
        } = serde_json::from_str(&t).unwrap()
        {
            assert!(
                cards.iter().all(|c| !c.is_known()),
                "the spectator saw {cards}"
            );
        }
    }

    // Stop with everyone still connected: the server closes the sockets and ends.
    let _ = stop.send(());
    tokio::time::timeout(Duration::from_secs(10), server)
        .await
        .expect("shutdown does not wait for clients to hang up")
        .unwrap()
        .unwrap();
    for mut ws in clients.into_iter().chain([watcher]) {
        // The connection is closed by the server.
        while let Ok(Some(Ok(frame))) =
            tokio::time::timeout(Duration::from_secs(5), ws.next()).await
        {
            if matches!(frame, Message::Close(_)) {
                break;
            }
        }
    }
    let store = SqlStore::connect(&url).await.unwrap();
    let audit = store.audit().await.unwrap();
    assert!(audit.holds(), "{audit:?}");
    assert_eq!(audit.wallets + audit.stacks + audit.rake, 2000);
    let hands = store
        .player_hands(ids[0].parse().unwrap(), 20, 0)
        .await
        .unwrap();
    assert!(hands.iter().filter(|h| h.status == "complete").count() >= 3);
    store.close().await;
    let _ = std::fs::remove_dir_all(dir);
}
