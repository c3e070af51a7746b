//! Operators against the real server on port 0: closing a table in the middle of a hand,
//! reading hands by table, player and id in every format, the audit, the OpenAPI document
//! against the routes really served, and a graceful shutdown that lets the hand in
//! progress finish.

use crate::common;

use common::{assert_conserved, play, simple_action, sit, Db, DbGuard, Scenario, Server};
use poker_protocol::{ClientMsg, ServerMsg, TableStatus};
use serde_json::{json, Value};
use std::time::Duration;

fn fast_clock() -> Value {
    json!({ "action_ms": 10000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operators_close_a_table_mid_hand_and_read_its_hands_in_every_format() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    let ann_id = server.player("ann", 1000).await;
    server.player("ben", 1000).await;
    let table_id = server.table(fast_clock()).await;
    let mut clients = Vec::new();
    for (seat, name) in ["ann", "ben"].iter().enumerate() {
        let mut c = server.client(name).await;
        c.send(&ClientMsg::ListTables).await;
        c.until(|m| matches!(m, ServerMsg::Tables { .. }).then_some(()))
            .await;
        c.send(&sit(&table_id, seat as u32, 150)).await;
        c.until(|m| matches!(m, ServerMsg::Done { .. }).then_some(()))
            .await;
        clients.push(c);
    }
    let ann = server.get_json(&format!("/admin/players/{ann_id}")).await;
    assert_eq!(ann["balance"], 850);
    assert_eq!(ann["seats"][0]["table_id"], table_id.as_str());
    assert_eq!(ann["seats"][0]["stack"], 150);
    play(&mut clients, &table_id, 3, |_, _, legal| {
        simple_action(legal, false)
    })
    .await;
    // The lobby names the game and stakes as players read them, and the average pot of
    // the hands played (every hand here has at least the blinds in it).
    let mut lobby = server.client("ann").await;
    lobby.send(&ClientMsg::ListTables).await;
    let line = lobby
        .until(|m| match m {
            ServerMsg::Tables { tables } => Some(tables[0].clone()),
            _ => None,
        })
        .await;
    assert_eq!(
        (line.game.as_str(), line.stakes.as_str()),
        ("NL Hold'em", "1/2")
    );
    assert!(line.avg_pot >= 3, "{line:?}");
    // The next hand is under way; the close waits for it while the players finish it.
    let closing = {
        let base = server.base.clone();
        let table_id = table_id.clone();
        tokio::spawn(async move {
            let r = reqwest::Client::new()
                .post(format!("{base}/admin/tables/{table_id}/close"))
                .bearer_auth(common::TOKEN)
                .send()
                .await
                .unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        })
    };
    let mut closed = [false, false];
    let mut lobby_saw_closed = false;
    while !closed.iter().all(|&c| c) {
        for (i, c) in clients.iter_mut().enumerate() {
            match c.try_recv(Duration::from_millis(5)).await {
                Some(ServerMsg::Decide {
                    decision_id, legal, ..
                }) => {
                    c.send(&common::act(
                        &table_id,
                        decision_id,
                        simple_action(&legal, false),
                    ))
                    .await
                }
                Some(ServerMsg::TableClosed { .. }) => closed[i] = true,
                Some(ServerMsg::TableUpdate { table }) if table.status == TableStatus::Closed => {
                    lobby_saw_closed = true
                }
                _ => {}
            }
        }
    }
    let (status, body) = closing.await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["cashed_out"], 300,
        "every chip went back to the wallets"
    );
    // The lobby update may trail the closing message by a moment.
    for c in clients.iter_mut() {
        while !lobby_saw_closed {
            match c.try_recv(Duration::from_secs(2)).await {
                Some(ServerMsg::TableUpdate { table }) if table.status == TableStatus::Closed => {
                    lobby_saw_closed = true
                }
                None => break,
                _ => {}
            }
        }
    }
    assert!(lobby_saw_closed, "the lobby heard of the close");
    let audit = server.audit().await;
    assert_conserved(&audit, 2000);
    assert_eq!(audit.stacks, 0, "nobody is left at a closed table");
    let (status, _) = server
        .post(&format!("/admin/tables/{table_id}/close"), json!({}))
        .await;
    assert_eq!(status, 409, "a closed table cannot be closed again");
    let inspected = server.get_json(&format!("/admin/tables/{table_id}")).await;
    assert_eq!(inspected["status"], "closed");

    // Hands by table and by player, newest first; one in JSON, PHH and PokerStars text.
    let hands = server
        .get_json(&format!("/admin/tables/{table_id}/hands?limit=10"))
        .await;
    let hands = hands.as_array().unwrap();
    assert!(hands.len() >= 4, "{hands:?}");
    assert!(hands.iter().all(|h| h["status"] == "complete"));
    let by_player = server
        .get_json(&format!("/admin/players/{ann_id}/hands?limit=2"))
        .await;
    assert_eq!(by_player.as_array().unwrap().len(), 2);
    assert_eq!(by_player[0]["hand_id"], hands[0]["hand_id"]);
    let id = hands[0]["hand_id"].as_str().unwrap();
    let json = server.get_json(&format!("/admin/hands/{id}")).await;
    assert_eq!(json["status"], "complete");
    let (status, phh) = server.get(&format!("/admin/hands/{id}?format=phh")).await;
    assert_eq!(status, 200);
    let parsed = poker_history::phh::PhhHand::parse(&phh).expect("valid PHH");
    poker_history::phh::replay(&parsed).expect("the history replays to its recorded stacks");
    let (status, stars) = server
        .get(&format!("/admin/hands/{id}?format=pokerstars"))
        .await;
    assert_eq!(status, 200, "{stars}");
    assert!(stars.starts_with("PokerStars Hand #"), "{stars}");
    assert!(stars.contains("Table 'NL 1/2' 6-max"), "{stars}");
    assert!(stars.contains("ann") && stars.contains("ben") && stars.contains("*** SUMMARY ***"));
    // The table's hands in one PokerStars file, oldest first.
    let (status, file) = server
        .get(&format!(
            "/admin/tables/{table_id}/hands?limit=100&format=pokerstars"
        ))
        .await;
    assert_eq!(status, 200);
    assert_eq!(file.matches("PokerStars Hand #").count(), hands.len());
    assert!(
        file.ends_with(&format!("{stars}\n\n")),
        "the newest hand comes last"
    );
    let (status, _) = server.get(&format!("/admin/hands/{id}?format=xml")).await;
    assert_eq!(status, 400);
    let audit_api = server.get_json("/admin/audit").await;
    assert_eq!(audit_api["wallets"], 2000);
    // The whole ledger's audit says what the one from the checkpoint says.
    assert_eq!(server.get_json("/admin/audit?full=true").await, audit_api);
    assert_eq!(server.get_json("/admin/audit").await, audit_api);
    let (status, _) = server.get("/admin/audit?full=maybe").await;
    assert_eq!(status, 400);

    // A player reads their own history: their results, and their cards only.
    let token = server.login("ann").await;
    let get = |path: String| {
        let token = token.clone();
        async move {
            let r = reqwest::Client::new()
                .get(path)
                .bearer_auth(token)
                .send()
                .await
                .unwrap();
            (r.status().as_u16(), r.text().await.unwrap())
        }
    };
    let (status, mine) = get(format!("{}/api/me/hands?limit=50", server.base)).await;
    assert_eq!(status, 200);
    let mine: Vec<Value> = serde_json::from_str(&mine).unwrap();
    assert_eq!(mine.len(), hands.len());
    let net: i64 = mine.iter().map(|h| h["net"].as_i64().unwrap()).sum();
    let players = server.get_json("/admin/players").await;
    let ann_balance = players
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "ann")
        .unwrap()["balance"]
        .as_i64()
        .unwrap();
    assert_eq!(ann_balance, 1000 + net, "the results add up to the wallet");
    let (status, text) = get(format!("{}/api/me/hands/{id}", server.base)).await;
    assert_eq!(status, 200, "{text}");
    assert!(
        text.contains("Dealt to ann") && !text.contains("Dealt to ben"),
        "{text}"
    );
    // As PHH: ann's cards, and ben's only if shown; it replays to the same stacks.
    let (status, phh) = get(format!("{}/api/me/hands/{id}?format=phh", server.base)).await;
    assert_eq!(status, 200, "{phh}");
    let (_, full) = server.get(&format!("/admin/hands/{id}?format=phh")).await;
    let full = poker_history::phh::PhhHand::parse(&full).unwrap();
    let seen = poker_history::phh::PhhHand::parse(&phh).unwrap();
    assert_eq!(
        poker_history::phh::replay(&seen).unwrap().finishing_stacks,
        poker_history::phh::replay(&full).unwrap().finishing_stacks
    );
    let record = server.get_json(&format!("/admin/hands/{id}")).await;
    let players = record["record"]["seat_players"].as_array().unwrap();
    let ann_id = server
        .get_json("/admin/players")
        .await
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "ann")
        .unwrap()["player_id"]
        .clone();
    let ann = players.iter().position(|p| *p == ann_id).unwrap();
    for (theirs, ours) in full.actions.iter().zip(&seen.actions) {
        let mine = theirs.starts_with(&format!("d dh p{} ", ann + 1));
        if theirs.starts_with("d dh ") && !mine {
            assert!(ours.ends_with("????"), "{ours}");
        } else {
            assert_eq!(theirs, ours);
        }
    }
    // For the replayer: the events as ann saw them, which end at the recorded stacks;
    // ben's down cards are unknown unless he showed them.
    let (status, replay) = get(format!("{}/api/me/hands/{id}?format=replay", server.base)).await;
    assert_eq!(status, 200, "{replay}");
    let replay: Value = serde_json::from_str(&replay).unwrap();
    assert_eq!(replay["me"], json!(ann));
    assert_eq!(replay["names"][ann], "ann");
    assert_eq!(replay["hand_number"], record["number"]);
    assert_eq!(
        replay["finishing_stacks"],
        record["record"]["finishing_stacks"]
    );
    let events: Vec<poker_rules::Event> =
        serde_json::from_value(replay["events"].clone()).expect("the protocol's events");
    let shown: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            poker_rules::Event::Shown { player, .. } => Some(*player),
            _ => None,
        })
        .collect();
    for e in &events {
        if let poker_rules::Event::HoleDealt { player, cards, up } = e {
            for (i, c) in cards.iter().enumerate() {
                if *player != ann && c.is_known() {
                    assert!(up >> i & 1 == 1 || shown.contains(player), "{e:?}");
                }
                if *player == ann {
                    assert!(c.is_known(), "ann sees her own cards");
                }
            }
        }
    }
    match events.last() {
        Some(poker_rules::Event::HandEnded { stacks }) => {
            assert_eq!(json!(stacks), record["record"]["finishing_stacks"])
        }
        other => panic!("the replay ends with the hand: {other:?}"),
    }
    let (status, _) = get(format!("{}/api/me/hands/{id}?format=xml", server.base)).await;
    assert_eq!(status, 400);
    let (status, _) = get(format!("{}/api/me/hands", server.base).replace("/api", "/api/x")).await;
    assert_eq!(status, 404);
    let r = reqwest::get(format!("{}/api/me/hands", server.base))
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401, "a session is needed");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_the_openapi_document_describes_is_served() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    let doc = server.get_json("/openapi.json").await;
    assert_eq!(doc["openapi"], "3.0.3");
    let paths = doc["paths"].as_object().unwrap();
    assert!(paths.len() >= 17);
    let client = reqwest::Client::new();
    for (path, ops) in paths {
        let concrete = path.replace("{id}", "00000000-0000-4000-8000-000000000000");
        for (method, op) in ops.as_object().unwrap() {
            let url = format!("{}{concrete}", server.base);
            let request = match method.as_str() {
                "get" => client.get(&url),
                "post" => client.post(&url).json(&json!({})),
                other => panic!("{other}"),
            };
            let secured = op.get("security").is_some();
            // Without the token, secured operations are refused...
            let r = request.try_clone().unwrap().send().await.unwrap();
            let status = r.status().as_u16();
            assert_ne!(status, 405, "{method} {path} is not served");
            if secured {
                assert_eq!(status, 401, "{method} {path} needs the token");
            }
            // ...and with it, every documented route answers (never axum's bare 404).
            let r = request.bearer_auth(common::TOKEN).send().await.unwrap();
            let status = r.status().as_u16();
            let body = r.text().await.unwrap();
            assert_ne!(status, 405, "{method} {path}");
            if status == 404 {
                assert!(body.contains("not_found"), "{method} {path} is not routed");
            }
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_lets_the_hand_in_progress_finish_and_commits_it() {
    // Nobody acts: the clock finishes the hand during the drain.
    let (mut server, table_id, clients) = Scenario::table(common::clock(200, 0))
        .settings(&[("POKER__SERVER__SHUTDOWN_GRACE_MS", "20000")])
        .seated(&["ann", "ben"], 1000, 100)
        .await;
    let [mut ann, _ben] = common::named(clients);
    ann.until(|m| matches!(m, ServerMsg::Turn { .. }).then_some(()))
        .await;
    server.stop().await;
    // The hand was finished by the clock and committed; no hand is left unfinished, and
    // no new hand was dealt after the shutdown began.
    let store = poker_store::SqlStore::connect(&server.url).await.unwrap();
    let table: poker_store::TableId = table_id.parse().unwrap();
    let hands = store.table_hands(table, 50, 0).await.unwrap();
    assert!(!hands.is_empty());
    assert!(
        hands.iter().all(|h| h.status == "complete"),
        "{:?}",
        hands.iter().map(|h| &h.status).collect::<Vec<_>>()
    );
    store.close().await;
    assert_conserved(&server.audit().await, 2000);
}
