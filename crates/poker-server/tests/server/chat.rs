//! The table's chat and the hand log's names, over real WebSockets against the real
//! server on port 0: seated players and signed-in spectators watching the table chat
//! (a spectator's line has no seat; spectators are rate limited like players) and
//! everyone at the table reads it, a player neither seated nor watching is refused; empty, overlong and control-character lines and chatting too fast get a
//! typed error and the connection goes on; an operator turns chat off (saved, told to
//! everyone) and on again; a reconnecting player gets the recent lines in the snapshot;
//! every shown hand comes named in the cardroom's words.

use crate::common;

use common::{clock, play, simple_action, tid, Client, Db, DbGuard, Scenario, Server};
use poker_protocol::{ClientMsg, ErrorCode, ServerMsg, CHAT_MAX_CHARS};
use serde_json::json;

fn say(table_id: &str, text: &str) -> ClientMsg {
    ClientMsg::Chat {
        table_id: tid(table_id),
        text: text.to_string(),
    }
}

async fn heard(c: &mut Client) -> (String, String) {
    c.until(|m| match m {
        ServerMsg::Chat { line, .. } => Some((line.name.clone(), line.text.clone())),
        _ => None,
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_is_for_seated_players_and_spectators_bounded_and_switchable() {
    // A long pause between hands keeps the table quiet after the first hand.
    let (mut server, table_id, _) = Scenario::table(clock(60_000, 600_000))
        .players(&["ann", "ben"], 500)
        .players(&["sue", "tom"], 0)
        .await;
    let mut ann = server.client("ann").await;
    let mut ben = server.client("ben").await;
    let mut sue = server.client("sue").await;
    sue.watch(&table_id).await;
    let chat_on = sue.snapshot_table().await.chat;
    assert!(chat_on, "chat is on by default");
    for (c, seat) in [(&mut ann, 0), (&mut ben, 1)] {
        c.sat(&table_id, seat, 100).await;
    }

    // A seated player speaks; everyone at the table hears it, spectators included.
    ann.send(&say(&table_id, "  good luck all  ")).await;
    for c in [&mut ann, &mut ben, &mut sue] {
        assert_eq!(heard(c).await, ("ann".into(), "good luck all".into()));
    }
    // A signed-in spectator watching the table speaks too, without a seat.
    sue.send(&say(&table_id, "hello from the rail")).await;
    for c in [&mut ann, &mut ben, &mut sue] {
        let line = c
            .until(|m| match m {
                ServerMsg::Chat { line, .. } => Some(line.clone()),
                _ => None,
            })
            .await;
        assert_eq!(
            (line.name.as_str(), line.text.as_str()),
            ("sue", "hello from the rail")
        );
        assert_eq!(line.seat, None);
    }
    // A player neither seated nor watching is refused.
    let mut tom = server.client("tom").await;
    tom.send(&say(&table_id, "hi")).await;
    tom.expect_error(ErrorCode::ChatRefused).await;
    // Spectators are rate limited like players: five lines in ten seconds (one said).
    for i in 1..5 {
        sue.send(&say(&table_id, &format!("rail {i}"))).await;
        assert_eq!(heard(&mut ann).await.1, format!("rail {i}"));
    }
    sue.send(&say(&table_id, "one too many")).await;
    sue.expect_error(ErrorCode::RateLimited).await;
    // Bad lines are refused with a typed error; the connection goes on.
    for bad in [
        "   ".to_string(),
        "x".repeat(CHAT_MAX_CHARS + 1),
        "right-to-left \u{202e}txet".to_string(),
        "bell\u{7}".to_string(),
    ] {
        ben.send(&say(&table_id, &bad)).await;
        ben.expect_error(ErrorCode::ChatRefused).await;
    }
    // A line of the longest length in characters (not bytes) is fine.
    let hearts = "\u{2665}".repeat(CHAT_MAX_CHARS);
    ben.send(&say(&table_id, &hearts)).await;
    assert_eq!(heard(&mut ann).await.1, hearts);
    // Too fast: five lines in ten seconds, then a rate-limit error.
    for i in 1..5 {
        ben.send(&say(&table_id, &format!("line {i}"))).await;
    }
    ben.send(&say(&table_id, "one too many")).await;
    ben.expect_error(ErrorCode::RateLimited).await;
    for i in 1..5 {
        assert_eq!(
            heard(&mut sue).await.1,
            if i == 1 {
                hearts.clone()
            } else {
                format!("line {}", i - 1)
            }
        );
    }
    ben.send(&ClientMsg::Ping).await;
    ben.until(|m| matches!(m, ServerMsg::Pong).then_some(()))
        .await;

    // A reconnecting player gets the recent lines, oldest first.
    let mut ann2 = server.client("ann").await;
    let lines = ann2
        .until(|m| match m {
            ServerMsg::Snapshot { chat, .. } => Some(chat.clone()),
            _ => None,
        })
        .await;
    let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts.first(), Some(&"good luck all"));
    assert_eq!(texts.last(), Some(&"line 4"));
    assert_eq!(lines[0].seat, Some(0));

    // The operator turns chat off: everyone is told, and nobody may speak.
    let sent = json!({ "enabled": false });
    server
        .posted(&format!("/admin/tables/{table_id}/chat"), sent, 200)
        .await;
    for c in [&mut ann, &mut sue] {
        let on = c
            .until(|m| match m {
                ServerMsg::ChatSwitched { enabled, .. } => Some(*enabled),
                _ => None,
            })
            .await;
        assert!(!on);
    }
    ann.send(&say(&table_id, "anyone?")).await;
    ann.expect_error(ErrorCode::ChatRefused).await;
    // Saved with the table: the admin API shows it in the table's configuration.
    let tables = server.get_json("/admin/tables").await;
    assert_eq!(tables[0]["rules"]["chat"]["enabled"], json!(false));
    // Unknown tables and bad bodies are typed errors.
    let sent = json!({ "enabled": true });
    let path = format!("/admin/tables/{}/chat", poker_protocol::TableId::new());
    server.posted(&path, sent, 404).await;
    let chat = format!("/admin/tables/{table_id}/chat");
    server.posted(&chat, json!({ "on": true }), 400).await;
    // And on again.
    server.posted(&chat, json!({ "enabled": true }), 200).await;
    ann.until(|m| matches!(m, ServerMsg::ChatSwitched { enabled: true, .. }).then_some(()))
        .await;
    ann.send(&say(&table_id, "back")).await;
    assert_eq!(heard(&mut ben).await, ("ann".into(), "back".into()));

    server.finish(1000).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_shown_hand_is_named() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    for name in ["ann", "ben", "cat"] {
        server.player(name, 1000).await;
    }
    let clock = json!({ "action_ms": 10000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    let table_id = server.table(clock).await;
    let mut clients = Vec::new();
    for (seat, name) in ["ann", "ben", "cat"].iter().enumerate() {
        let mut c = server.client(name).await;
        c.sat(&table_id, seat as u32, 100).await;
        clients.push(c);
    }
    let stats = play(&mut clients, &table_id, 10, |_, _, legal| {
        simple_action(legal, false)
    })
    .await;
    assert!(stats.showdowns > 0, "{stats:?}");
    assert_eq!(stats.named_shows, stats.showdowns, "{stats:?}");
    server.finish(3000).await;
}
