//! The admin API over real HTTP: the server started on port 0 against a temporary SQLite
//! database, as an operator's tools would talk to it.

use crate::common;

use common::{Db, DbGuard, Server};
use serde_json::{json, Value};

async fn start() -> (DbGuard, Server) {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let server = Server::start(&guard.url(), &[]).await;
    (guard, server)
}

const T: Option<&str> = Some(common::TOKEN);

fn rules() -> Value {
    json!({
        "game": "holdem", "structure": "no_limit",
        "stakes": { "min_bet": 2 },
        "max_raises": null, "uncapped_heads_up": false,
        "seat_count": 6, "small_blind": 1, "big_blind": 2,
        "ante": { "kind": "none" }, "button": "dead", "missed_blinds": "dead_small_live_big",
        "min_buy_in": 40, "max_buy_in": 200, "rathole_secs": 3600,
        "max_missed_big_blinds": 10, "kill": null, "rock": false
    })
}

#[tokio::test]
async fn health_is_public_and_admin_calls_need_the_token() {
    let (_g, mut s) = start().await;
    assert_eq!(
        s.call("GET", "/healthz", None, None).await,
        (200, json!({ "status": "ok" }))
    );
    for token in [None, Some("wrong")] {
        let (status, body) = s.call("GET", "/admin/players", token, None).await;
        assert_eq!(
            (status, body["error"].as_str()),
            (401, Some("unauthorized"))
        );
    }
    s.stop().await;
}

#[tokio::test]
async fn operators_create_players_move_money_and_read_the_ledger() {
    let (_g, mut s) = start().await;
    let sent = json!({ "name": "alice", "password": "correct horse" });
    let created = s.expect("POST", "/admin/players", T, Some(sent), 201).await;
    let id = created["player_id"].as_str().unwrap().to_string();
    let dep = json!({ "amount": 500, "idempotency_key": "d1" });
    assert_eq!(
        s.call(
            "POST",
            &format!("/admin/players/{id}/deposit"),
            T,
            Some(dep.clone())
        )
        .await,
        (200, json!({ "balance": 500 }))
    );
    assert_eq!(
        s.call(
            "POST",
            &format!("/admin/players/{id}/deposit"),
            T,
            Some(dep)
        )
        .await,
        (200, json!({ "balance": 500 })),
        "retried once"
    );
    // The same key for another amount is refused, and so is it for another kind of
    // money move: a deposit's key on a withdrawal is not a new withdrawal.
    let sent = json!({ "amount": 100, "idempotency_key": "d1" });
    let path = format!("/admin/players/{id}/withdraw");
    s.refused("POST", &path, T, Some(sent), (409, "idempotency_conflict"))
        .await;
    let sent = json!({ "amount": 600, "idempotency_key": "d1" });
    let path = format!("/admin/players/{id}/deposit");
    s.refused("POST", &path, T, Some(sent), (409, "idempotency_conflict"))
        .await;
    let sent = json!({ "amount": 900 });
    let path = format!("/admin/players/{id}/withdraw");
    s.refused("POST", &path, T, Some(sent), (409, "insufficient_funds"))
        .await;
    let (_, list) = s.call("GET", "/admin/players", T, None).await;
    assert_eq!(list[0]["balance"], 500);
    let (_, ledger) = s
        .call("GET", &format!("/admin/players/{id}/ledger"), T, None)
        .await;
    assert_eq!(ledger.as_array().unwrap().len(), 1);
    let (status, body) = s
        .call(
            "POST",
            "/admin/players",
            T,
            Some(json!({ "name": "alice", "password": "another one" })),
        )
        .await;
    assert_eq!((status, body["error"].as_str()), (409, Some("name_taken")));
    s.stop().await;
}

#[tokio::test]
async fn bad_requests_get_typed_errors() {
    let (_g, mut s) = start().await;
    let (status, body) = s
        .call("POST", "/admin/players", T, Some(json!({ "name": "bob" })))
        .await;
    assert_eq!((status, body["error"].as_str()), (400, Some("bad_request")));
    let sent = json!({ "name": "bob", "password": "short" });
    s.refused(
        "POST",
        "/admin/players",
        T,
        Some(sent),
        (400, "invalid_password"),
    )
    .await;
    let sent = json!({ "amount": 1 });
    s.expect(
        "POST",
        "/admin/players/not-an-id/deposit",
        T,
        Some(sent),
        404,
    )
    .await;
    s.expect(
        "GET",
        "/admin/hands/8c1f5e62-0000-4000-8000-000000000000",
        T,
        None,
        404,
    )
    .await;
    s.stop().await;
}

#[tokio::test]
async fn tables_are_created_only_with_consistent_rules() {
    let (_g, mut s) = start().await;
    let sent = json!({ "name": "NL 1/2", "rules": rules() });
    s.expect("POST", "/admin/tables", T, Some(sent), 201).await;
    let mut bad = rules();
    bad["min_buy_in"] = json!(500);
    let sent = json!({ "name": "x", "rules": bad });
    s.refused(
        "POST",
        "/admin/tables",
        T,
        Some(sent),
        (400, "invalid_rules"),
    )
    .await;
    let mut capped = rules();
    capped["options"] = json!({ "cap": 1 });
    let sent = json!({ "name": "y", "rules": capped });
    let body = s.expect("POST", "/admin/tables", T, Some(sent), 400).await;
    assert!(body["message"].as_str().unwrap().contains("cap"), "{body}");
    let (_, tables) = s.call("GET", "/admin/tables", T, None).await;
    assert_eq!(tables.as_array().unwrap().len(), 1);
    assert_eq!(tables[0]["name"], "NL 1/2");
    s.stop().await;
}
