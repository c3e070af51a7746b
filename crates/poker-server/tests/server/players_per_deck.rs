//! How many players one deck deals (issue 35, item 8): seven-card stud, stud hi/lo and
//! razz deal seven, draw games eight. A table with more seats would stall once full (the
//! hand cannot be dealt), so every way of making one refuses it with a clear 400: the
//! admin API, a clone, a player's private game. A table an older version stored with
//! eight seats at stud still opens, deals seven a hand with whoever sits out moving round
//! with the button, and refuses an eighth player with a clear `seat_refused`.

use crate::common;

use common::{games, sit, tid, Db, DbGuard, Server};
use poker_protocol::{ClientMsg, ErrorCode, ServerMsg};
use poker_rules::Event;
use poker_store::{PlayerId, SqlStore};
use serde_json::{json, Value};
use std::collections::HashSet;

/// What each player deposits.
const DEPOSIT: u64 = 1000;

/// Asserts a 400 `invalid_rules` on the seats with these words.
fn assert_refused_seats(status: u16, body: &Value, words: &str) {
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"], "invalid_rules", "{body}");
    assert_eq!(
        body["message"],
        format!("invalid table rules: {words}"),
        "{body}"
    );
    assert_eq!(body["problems"][0]["field"], "rules.seat_count", "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stud_table_of_eight_seats_is_refused_by_the_admin_api_and_a_private_game_with_why() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[("POKER__ROOM__PRIVATE_TABLES", "on")]).await;
    let (status, body) = server
        .post(
            "/admin/tables",
            json!({ "name": "Stud 8", "rules": games::stud("stud", 8) }),
        )
        .await;
    assert_refused_seats(
        status,
        &body,
        "seven-card stud deals at most 7 players from one deck: a table of 8 seats would stall",
    );
    for (rules, words) in [
        (
            games::stud("razz", 10),
            "razz deals at most 7 players from one deck: a table of 10 seats would stall",
        ),
        (
            games::stud("stud_hi_lo", 9),
            "seven-card stud hi/lo deals at most 7 players from one deck: a table of 9 seats \
             would stall",
        ),
        (
            games::base(
                "deuce_to_seven_triple_draw",
                "fixed_limit",
                json!({ "small_bet": 2, "big_bet": 4 }),
                9,
            ),
            "2-7 triple draw deals at most 8 players from one deck: a table of 9 seats would stall",
        ),
    ] {
        let (status, body) = server
            .post(
                "/admin/tables",
                json!({ "name": "Too many", "rules": rules }),
            )
            .await;
        assert_refused_seats(status, &body, words);
    }
    // Seven is a stud table; the stud and razz presets are seven-handed.
    server.table_with(games::stud("stud", 7), json!({})).await;
    let presets = server.get_json("/admin/presets").await;
    for p in presets.as_array().unwrap() {
        if matches!(p["key"].as_str(), Some("stud" | "razz")) {
            assert_eq!(p["body"]["rules"]["seat_count"], 7, "{p}");
        }
    }

    // A player's private game: the same refusal, and the stud preset as it is.
    server.player("ann", 0).await;
    let token = server.login("ann").await;
    for (ask, words) in [
        (
            json!({ "preset": "stud", "seats": 8 }),
            "seven-card stud deals at most 7 players from one deck: a table of 8 seats would stall",
        ),
        (
            json!({ "preset": "razz", "seats": 9 }),
            "razz deals at most 7 players from one deck: a table of 9 seats would stall",
        ),
        (
            json!({ "preset": "triple_draw", "seats": 9 }),
            "2-7 triple draw deals at most 8 players from one deck: a table of 9 seats would stall",
        ),
    ] {
        let (status, body) = server
            .call("POST", "/api/private", Some(&token), Some(ask))
            .await;
        assert_refused_seats(status, &body, words);
    }
    let sent = json!({ "preset": "stud" });
    server
        .expect("POST", "/api/private", Some(&token), Some(sent), 201)
        .await;
    server.finish(0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stud_table_stored_with_eight_players_deals_seven_a_hand_in_turn_and_seats_no_eighth() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let names = ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "ivy"];
    let mut server = Server::start(&guard.url(), &[]).await;
    let mut ids = Vec::new();
    for name in names {
        ids.push(server.player(name, DEPOSIT).await);
    }
    server.stop().await;
    // As an older version left it: an 8-seat stud table with eight players bought in.
    // The clock plays for everyone, quickly, and never sits anyone out.
    let mut spec = games::stud("stud", 8);
    spec["clock"] = json!({ "action_ms": 50, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    let store = SqlStore::connect(&guard.url()).await.unwrap();
    let table = store
        .create_table("Old stud", &spec.to_string())
        .await
        .unwrap();
    for (seat, id) in ids.iter().take(8).enumerate() {
        let player: PlayerId = id.parse().unwrap();
        store
            .buy_in(table, seat as u32, player, 100, None, None)
            .await
            .unwrap();
    }
    store.close().await;

    let mut server = Server::start(&guard.url(), &[]).await;
    let t = table.to_string();
    // A clone of it is refused as a new table would be.
    let (status, body) = server
        .post(&format!("/admin/tables/{t}/clone"), json!({}))
        .await;
    assert_refused_seats(
        status,
        &body,
        "seven-card stud deals at most 7 players from one deck: a table of 8 seats would stall",
    );
    // Hands are dealt to seven of the eight, whoever sits one out moving round.
    let mut ivy = server.client("ivy").await;
    ivy.send(&ClientMsg::Watch { table_id: tid(&t) }).await;
    let mut sat_out = HashSet::new();
    let mut ended = 0;
    while sat_out.len() < 3 || ended < 3 {
        match ivy.recv().await {
            ServerMsg::Event { seats, event, .. } => {
                assert_eq!(seats.len(), 7, "{seats:?}");
                sat_out.insert((0..8).find(|s| !seats.contains(s)).unwrap());
                if matches!(event, Event::HandEnded { .. }) {
                    ended += 1;
                }
            }
            ServerMsg::Error { code, message } => panic!("{code:?}: {message}"),
            _ => {}
        }
    }
    // One leaves; the seat is free, and the eighth player to sit is refused why.
    let mut p0 = server.client("p0").await;
    p0.send(&ClientMsg::Leave { table_id: tid(&t) }).await;
    p0.until(|m| match m {
        ServerMsg::Done {
            request, pending, ..
        } if request == "leave" && !pending => Some(()),
        _ => None,
    })
    .await;
    ivy.send(&sit(&t, 0, 100)).await;
    let (code, message) = loop {
        if let ServerMsg::Error { code, message } = ivy.recv().await {
            break (code, message);
        }
    };
    assert_eq!(code, ErrorCode::SeatRefused, "{message}");
    assert_eq!(
        message,
        "seven-card stud deals at most 7 players from one deck: the table is full"
    );
    // And the seven play on.
    let mut more = 0;
    while more < 2 {
        if let ServerMsg::Event {
            event: Event::HandEnded { .. },
            seats,
            ..
        } = ivy.recv().await
        {
            assert!(seats.len() <= 7);
            more += 1;
        }
    }
    server.finish((DEPOSIT * names.len() as u64) as i64).await;
}
