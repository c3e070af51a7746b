//! A play-money room from nothing, over the real interfaces: the first start opens the
//! preset tables, a new account receives the grant and reloads to it, a lone newcomer
//! who sits down is joined by house bots and plays hands against them (bots play through
//! the WebSocket protocol like anyone), and the bots leave when the newcomer does. A
//! real-money room does none of it. The books balance throughout.

use crate::common;

use common::{act, tid, Client, Db, DbGuard, Server};
use poker_protocol::{ClientMsg, ServerMsg};
use poker_rules::{Action, Event};
use serde_json::{json, Value};
use std::time::Duration;

const PLAY: &[(&str, &str)] = &[
    ("POKER__ROOM__MONEY", "play"),
    ("POKER__ROOM__PLAY_GRANT", "5000"),
    ("POKER__BOTS__FILL_TO", "3"),
    ("POKER__BOTS__THINK_MS", "30"),
];

async fn me(server: &Server, token: &str, method: &str, path: &str) -> (u16, Value) {
    let client = reqwest::Client::new();
    let url = format!("{}{path}", server.base);
    let request = if method == "POST" {
        client.post(url)
    } else {
        client.get(url)
    };
    let r = request.bearer_auth(token).send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newcomer_to_a_play_money_room_gets_chips_presets_and_house_bots_to_play() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), PLAY).await;

    // The first start opened one table of each family.
    let tables = server.get_json("/admin/tables").await;
    let names = common::field(&tables, "name");
    assert_eq!(
        names.len(),
        4,
        "preset tables on the first start: {names:?}"
    );
    for family in ["Hold'em", "Omaha", "Stud", "Triple Draw"] {
        assert!(
            names.iter().any(|n| n.contains(family)),
            "{family}: {names:?}"
        );
    }
    let nlhe = tables
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"].as_str().unwrap().contains("Hold'em"))
        .unwrap()["table_id"]
        .as_str()
        .unwrap()
        .to_string();

    // A new account has the grant; a reload refills the wallet to it.
    let token = server.register("newbie").await;
    let (status, mine) = me(&server, &token, "GET", "/api/me").await;
    assert_eq!(status, 200);
    assert_eq!(mine["balance"], 5000);
    assert_eq!(mine["play_money"], true);
    assert_eq!(mine["play_grant"], 5000);
    let (status, r) = me(&server, &token, "POST", "/api/me/reload").await;
    assert_eq!(
        (status, r["added"].clone()),
        (200, json!(0)),
        "full already"
    );

    // Alone at the hold'em table: house bots sit down and a game starts.
    let mut newbie = Client::connect(server.addr, "newbie").await;
    newbie.auth(&token).await;
    newbie.send(&common::sit(&nlhe, 0, 200)).await;
    let (status, r) = {
        newbie.done("sit").await;
        me(&server, &token, "POST", "/api/me/reload").await
    };
    assert_eq!(status, 200);
    assert_eq!(
        (r["added"].clone(), r["balance"].clone()),
        (json!(200), json!(5000))
    );

    let mut hands = 0;
    let mut bots_seen = 0;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while hands < 3 && tokio::time::Instant::now() < deadline {
        let Some(msg) = newbie.try_recv(Duration::from_millis(200)).await else {
            continue;
        };
        match msg {
            ServerMsg::Seats { table } | ServerMsg::Snapshot { table, .. } => {
                let bots = table
                    .seats
                    .iter()
                    .filter(|s| s.name.ends_with("(bot)"))
                    .count();
                bots_seen = bots_seen.max(bots);
                assert!(
                    table.seats.len() <= 3,
                    "bots fill to three players, no more"
                );
            }
            ServerMsg::Decide {
                decision_id, legal, ..
            } => {
                let action = common::check_or_call(&legal);
                newbie.send(&act(&nlhe, decision_id, action)).await;
            }
            ServerMsg::DecideShow { decision_id, .. } => {
                newbie.send(&act(&nlhe, decision_id, Action::Muck)).await;
            }
            ServerMsg::Event {
                event: Event::HandEnded { .. },
                ..
            } => hands += 1,
            ServerMsg::Error { code, message } => panic!("{code:?}: {message}"),
            _ => {}
        }
    }
    assert_eq!(bots_seen, 2, "two bots joined the lone newcomer");
    assert!(hands >= 3, "hands were played against the bots: {hands}");

    // The bots' seeds are the house's: committed with the others' before any is
    // revealed, marked so in each hand's record, and revealed (a house seat dealt in
    // that committed and revealed nothing fails the check); the newcomer's client sent
    // none, and none is listed in their name.
    let (_, mine) = me(&server, &token, "GET", "/api/me/hands?limit=20").await;
    let mut house_seeds = 0;
    for h in mine.as_array().unwrap() {
        let id = h["hand_id"].as_str().unwrap();
        let (status, record) = me(
            &server,
            &token,
            "GET",
            &format!("/api/me/hands/{id}?format=replay"),
        )
        .await;
        assert_eq!(status, 200, "{record}");
        let parsed: poker_fairness::Record = serde_json::from_value(record).unwrap();
        let done = poker_fairness::verify(&parsed, poker_fairness::MySeed::None)
            .unwrap_or_else(|e| panic!("hand {id}: {e}"));
        let me_seat = parsed.seats[parsed.me.unwrap()];
        for c in &parsed.fairness.seed_list {
            assert_eq!(
                c.house,
                u32::from(c.seat) != me_seat,
                "only the bots' seats are the house's"
            );
        }
        assert_eq!(done.player_seeds, 0);
        house_seeds += done.house_seeds;
    }
    assert!(house_seeds > 0, "the bots' seeds were used, as the house's");

    // The operator's live view of the table: the hand in progress with its pot and
    // whose turn it is (the newcomer, who stops answering), and never a hole card.
    let mut seen_turn = false;
    for _ in 0..100 {
        let t = server.get_json(&format!("/admin/tables/{nlhe}")).await;
        if t["hand"].is_object() && t["clock"]["seat"] == 0 {
            assert!(t["hand"]["pot"].as_u64().unwrap() > 0, "{t}");
            assert!(t["hand"]["in_hand"].as_array().unwrap().contains(&json!(0)));
            let text = t.to_string();
            assert!(
                !text.contains("hole") && !text.contains("cards"),
                "no cards: {text}"
            );
            seen_turn = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(seen_turn, "the live view showed the newcomer to act");

    // House bots are the room's own accounts, and play chips never leave as money.
    let players = server.get_json("/admin/players").await;
    let players = players.as_array().unwrap();
    let id_of = |p: &Value| p["player_id"].as_str().unwrap().to_string();
    let bot = id_of(
        players
            .iter()
            .find(|p| p["bot"] == true)
            .expect("a bot account"),
    );
    let house_bot = (409, "house_bot");
    let lock = format!("/admin/players/{bot}/lock");
    server
        .post_refused(&lock, json!({ "locked": true }), house_bot)
        .await;
    let password = format!("/admin/players/{bot}/password");
    let takeover = json!({ "password": "takeover1" });
    server.post_refused(&password, takeover, house_bot).await;
    let row = players.iter().find(|p| p["name"] == "newbie");
    let newbie_id = id_of(row.expect("the newcomer's account"));
    let withdraw = format!("/admin/players/{newbie_id}/withdraw");
    server
        .post_refused(&withdraw, json!({ "amount": 10 }), (409, "play_money"))
        .await;

    // The newcomer leaves: the bots do not play on among themselves.
    newbie
        .send(&ClientMsg::Leave {
            table_id: tid(&nlhe),
        })
        .await;
    let mut left = false;
    for _ in 0..150 {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let t = server.get_json(&format!("/admin/tables/{nlhe}")).await;
        if t["table"]["seats"].as_array().is_some_and(|s| s.is_empty()) {
            left = true;
            break;
        }
    }
    assert!(left, "the bots left the empty table");
    server.stop().await;
    let audit = server.audit().await;
    assert!(audit.holds(), "{audit:?}");
    assert_eq!(audit.stacks, 0, "everyone cashed out: {audit:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_money_room_grants_nothing_has_no_presets_and_no_bots() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    assert_eq!(server.get_json("/admin/tables").await, json!([]));
    let token = server.register("cash").await;
    let (_, mine) = me(&server, &token, "GET", "/api/me").await;
    assert_eq!(
        (mine["balance"].clone(), mine["play_money"].clone()),
        (json!(0), json!(false))
    );
    let (status, r) = me(&server, &token, "POST", "/api/me/reload").await;
    assert_eq!((status, r["error"].clone()), (409, json!("real_money")));
    server.stop().await;
    assert!(server.audit().await.holds());
}
