//! The card room's staff through the admin API, on SQLite and PostgreSQL: staff accounts
//! made with the admin token, signed in with their own sessions, each role limited to its
//! duties (cashier: money; floor: tables and players; admin: everything), every action in
//! the audit log with who did it; players found by name (paths take ids only), locked out
//! (their WebSocket closes), given a reset code (floor) or a new password (admins only);
//! tables from presets and clones; a create-table body with several mistakes refused
//! naming them all, each on its field, as is a rule the engine refuses; the audit log and
//! the ledger with the names of players, staff and tables beside their ids; the rake
//! report.

use crate::common;

use common::{Db, DbGuard, Server};
use poker_protocol::ServerMsg;
use serde_json::{json, Value};

async fn call(
    server: &Server,
    token: Option<&str>,
    method: &str,
    path: &str,
    body: Value,
) -> (u16, Value) {
    // Only a POST carries the body.
    let body = (method == "POST").then_some(body);
    server.call(method, path, token, body).await
}

async fn staff_session(server: &Server, name: &str, role: &str) -> String {
    let (status, body) = call(
        server,
        Some(common::TOKEN),
        "POST",
        "/admin/staff",
        json!({ "name": name, "password": "staffpass1", "role": role }),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let (status, body) = call(
        server,
        None,
        "POST",
        "/admin/login",
        json!({ "name": name, "password": "staffpass1" }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["role"], role);
    body["token"].as_str().unwrap().to_string()
}

async fn scenario(db: Db) {
    let Some(guard) = DbGuard::new(db).await else {
        return;
    };
    let mut server = Server::start(&guard.url(), &[]).await;
    let admin = Some(common::TOKEN);
    let ann_id = server.player("ann", 0).await;
    let ben_id = server.player("ben", 0).await;

    // Staff accounts and their sessions.
    let cashier = staff_session(&server, "Carla", "cashier").await;
    let floor = staff_session(&server, "Fred", "floor").await;
    let boss = staff_session(&server, "Bea", "admin").await;
    let (status, _) = call(
        &server,
        None,
        "POST",
        "/admin/login",
        json!({ "name": "Fred", "password": "wrongpass1" }),
    )
    .await;
    assert_eq!(status, 401, "a wrong password");
    let (_, me) = call(&server, Some(&floor), "GET", "/admin/whoami", json!(null)).await;
    assert_eq!(
        (me["actor"].clone(), me["role"].clone()),
        (json!("staff:Fred"), json!("floor"))
    );

    // Each role to its duties: money for the cashier (by id), tables for the floor.
    let deposit = json!({ "amount": 500, "idempotency_key": "cash-1" });
    let (status, body) = call(
        &server,
        Some(&cashier),
        "POST",
        "/admin/players/ann/deposit",
        deposit.clone(),
    )
    .await;
    assert_eq!(
        (status, body["error"].clone()),
        (404, json!("not_found")),
        "a path never takes a name"
    );
    let (status, body) = call(
        &server,
        Some(&cashier),
        "POST",
        &format!("/admin/players/{ann_id}/deposit"),
        deposit.clone(),
    )
    .await;
    assert_eq!(
        (status, body["balance"].clone()),
        (200, json!(500)),
        "{body}"
    );
    let (status, _) = call(
        &server,
        Some(&cashier),
        "POST",
        &format!("/admin/players/{}/deposit", ann_id.to_uppercase()),
        deposit,
    )
    .await;
    assert_eq!(
        status, 200,
        "the same key, by the id in any case, applies once"
    );
    let (status, body) = call(
        &server,
        Some(&floor),
        "POST",
        &format!("/admin/players/{ann_id}/deposit"),
        json!({ "amount": 5 }),
    )
    .await;
    assert_eq!(
        (status, body["error"].clone()),
        (403, json!("forbidden")),
        "{body}"
    );
    let (status, _) = call(
        &server,
        Some(&floor),
        "POST",
        "/admin/players/nobody/deposit",
        json!({ "amount": 5 }),
    )
    .await;
    assert_eq!(status, 403, "the role is checked first");
    let (status, _) = call(
        &server,
        Some(&cashier),
        "POST",
        "/admin/players/nobody/deposit",
        json!({ "amount": 5 }),
    )
    .await;
    assert_eq!(status, 404);
    let (status, presets) = call(&server, Some(&floor), "GET", "/admin/presets", json!(null)).await;
    assert_eq!(status, 200);
    let presets = presets.as_array().unwrap().clone();
    assert!(presets.len() >= 6);
    let mut first = String::new();
    for p in &presets {
        let (status, t) = call(
            &server,
            Some(&floor),
            "POST",
            "/admin/tables",
            p["body"].clone(),
        )
        .await;
        assert_eq!(status, 201, "preset {}: {t}", p["key"]);
        if first.is_empty() {
            first = t["table_id"].as_str().unwrap().to_string();
        }
    }
    let (status, _) = call(
        &server,
        Some(&cashier),
        "POST",
        "/admin/tables",
        presets[0]["body"].clone(),
    )
    .await;
    assert_eq!(status, 403, "a cashier opens no table");
    let (status, clone) = call(
        &server,
        Some(&floor),
        "POST",
        &format!("/admin/tables/{first}/clone"),
        json!({}),
    )
    .await;
    assert_eq!(status, 201, "{clone}");
    assert_eq!(clone["name"], "NL Hold'em 1/2 (2)");
    for token in [&cashier, &floor] {
        let (status, _) = call(&server, Some(token), "GET", "/admin/staff", json!(null)).await;
        assert_eq!(status, 403, "only admins see staff");
    }
    let (status, staff) = call(&server, Some(&boss), "GET", "/admin/staff", json!(null)).await;
    assert_eq!(status, 200);
    assert_eq!(staff.as_array().unwrap().len(), 3);
    assert!(
        staff[0].get("password_hash").is_none(),
        "no hash leaves the server"
    );

    // A create-table body with several mistakes names every one.
    let mut rules = common::nl_rules();
    rules["game"] = json!("holdum");
    rules["small_blind"] = json!("one");
    rules["bogus"] = json!(1);
    rules.as_object_mut().unwrap().remove("max_buy_in");
    let (status, body) = call(
        &server,
        admin,
        "POST",
        "/admin/tables",
        json!({ "rules": rules, "clok": 1 }),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    let message = body["message"].as_str().unwrap();
    for problem in [
        "name: missing",
        "rules.game",
        "rules.small_blind",
        "rules.bogus",
        "rules.max_buy_in: missing",
        "clok",
    ] {
        assert!(message.contains(problem), "{problem} in {message}");
    }
    // Each problem also on its own, with the field it concerns (what the console shows
    // beside that field).
    let fields: Vec<&str> = body["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .map(|p| p["field"].as_str().unwrap())
        .collect();
    for field in [
        "name",
        "rules.game",
        "rules.small_blind",
        "rules.bogus",
        "rules.max_buy_in",
        "clok",
    ] {
        assert!(fields.contains(&field), "{field} in {fields:?}");
    }
    // A rule the engine refuses (well formed, but a buy-in range upside down) names its field.
    let mut body = presets[0]["body"].clone();
    body["rules"]["max_buy_in"] = json!(20);
    let (status, refused) = call(&server, admin, "POST", "/admin/tables", body).await;
    assert_eq!(
        (status, refused["error"].clone()),
        (400, json!("invalid_rules"))
    );
    assert_eq!(
        refused["problems"],
        json!([{ "field": "rules.max_buy_in", "message": refused["message"] }])
    );

    // Players: search, lock (the socket closes, logins are refused), unlock, new password.
    let (_, found) = call(
        &server,
        Some(&floor),
        "GET",
        "/admin/players?q=AN",
        json!(null),
    )
    .await;
    let names: Vec<&str> = found
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ann"]);
    let mut ann = server.client("ann").await;
    let (status, _) = call(
        &server,
        Some(&cashier),
        "POST",
        &format!("/admin/players/{ann_id}/lock"),
        json!({ "locked": true }),
    )
    .await;
    assert_eq!(status, 403, "a cashier locks nobody");
    let (status, _) = call(
        &server,
        Some(&floor),
        "POST",
        &format!("/admin/players/{ann_id}/lock"),
        json!({ "locked": true }),
    )
    .await;
    assert_eq!(status, 200);
    // The server tells the socket why, then closes it (nothing more comes).
    let closed = loop {
        match ann.try_recv(std::time::Duration::from_secs(5)).await {
            None => break false,
            Some(ServerMsg::Error {
                code: poker_protocol::ErrorCode::Unauthenticated,
                ..
            }) => {
                break ann
                    .try_recv(std::time::Duration::from_secs(5))
                    .await
                    .is_none()
            }
            Some(_) => continue,
        }
    };
    assert!(closed, "a locked player's socket ends");
    let login = |password: &'static str| {
        let base = server.base.clone();
        async move {
            let r = reqwest::Client::new()
                .post(format!("{base}/login"))
                .json(&json!({ "name": "ann", "password": password }))
                .send()
                .await
                .unwrap();
            let status = r.status().as_u16();
            (status, r.json::<Value>().await.unwrap_or(Value::Null))
        }
    };
    let (status, body) = login("password1").await;
    assert_eq!((status, body["error"].clone()), (403, json!("locked")));
    call(
        &server,
        Some(&floor),
        "POST",
        &format!("/admin/players/{ann_id}/lock"),
        json!({ "locked": false }),
    )
    .await;
    assert_eq!(login("password1").await.0, 200);
    // The floor may not set a password (it issues a reset code); an admin may.
    let (status, _) = call(
        &server,
        Some(&floor),
        "POST",
        &format!("/admin/players/{ann_id}/password"),
        json!({ "password": "brand-new-1" }),
    )
    .await;
    assert_eq!(status, 403, "the floor sets no password");
    let (status, code) = call(
        &server,
        Some(&floor),
        "POST",
        &format!("/admin/players/{ann_id}/reset-code"),
        json!(null),
    )
    .await;
    assert_eq!(status, 201, "{code}");
    assert_eq!(
        login("password1").await.0,
        200,
        "a code changes nothing yet"
    );
    let (status, _) = call(
        &server,
        Some(&boss),
        "POST",
        &format!("/admin/players/{ann_id}/password"),
        json!({ "password": "brand-new-1" }),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(login("password1").await.0, 401, "the old password is gone");
    assert_eq!(login("brand-new-1").await.0, 200);

    // The audit log: every action, with who did it, newest first.
    let (_, log) = call(
        &server,
        Some(&floor),
        "GET",
        "/admin/audit-log?limit=200",
        json!(null),
    )
    .await;
    let lines: Vec<(String, String)> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["actor"].as_str().unwrap().to_string(),
                e["action"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for (actor, action) in [
        ("token", "create_staff"),
        ("staff:Carla", "sign_in"),
        ("staff:Carla", "deposit"),
        ("staff:Fred", "create_table"),
        ("staff:Fred", "clone_table"),
        ("staff:Fred", "lock_player"),
        ("staff:Fred", "unlock_player"),
        ("staff:Fred", "issue_reset_code"),
        ("staff:Bea", "reset_password"),
    ] {
        assert!(
            lines.iter().any(|(a, b)| a == actor && b == action),
            "{actor} {action} in {lines:?}"
        );
    }
    assert_eq!(lines[0].1, "reset_password", "newest first");
    assert!(
        !lines
            .iter()
            .any(|(a, b)| a == "staff:Fred" && b == "deposit"),
        "refused requests change nothing and are not logged"
    );

    names_beside_ids(&server, &ann_id, &ben_id, &first).await;

    // Signing out ends a staff session.
    let (status, _) = call(&server, Some(&boss), "POST", "/admin/logout", json!({})).await;
    assert_eq!(status, 204);
    let (status, _) = call(&server, Some(&boss), "GET", "/admin/whoami", json!(null)).await;
    assert_eq!(status, 401, "signed out");

    // The rake report.
    let (status, rake) = call(
        &server,
        Some(&cashier),
        "GET",
        "/admin/rake?days=7",
        json!(null),
    )
    .await;
    assert_eq!((status, rake["total"].clone()), (200, json!(0)), "{rake}");
    let (status, _) = call(&server, admin, "GET", "/admin/rake?days=0", json!(null)).await;
    assert_eq!(status, 400);
    server.stop().await;
    let audit = server.audit().await;
    assert!(audit.holds(), "{audit:?}");
    assert_eq!(audit.deposits, 800, "ann's deposit applied once, and ben's");
}

/// The audit log and the ledger name who acted and what it was done to: staff and the
/// token, players, tables (also those a detail mentions, as a clone's original), and the
/// table of a seat account.
async fn names_beside_ids(server: &Server, ann_id: &str, ben_id: &str, first: &str) {
    let (status, log) = call(
        server,
        Some(common::TOKEN),
        "GET",
        "/admin/audit-log?limit=200",
        json!(null),
    )
    .await;
    assert_eq!(status, 200, "{log}");
    let log = log.as_array().unwrap();
    let entry = |action: &str| {
        log.iter()
            .find(|e| e["action"] == action)
            .unwrap_or_else(|| panic!("{action} in the log"))
            .clone()
    };
    let deposit = entry("deposit");
    assert_eq!(
        [
            &deposit["actor_kind"],
            &deposit["actor_name"],
            &deposit["target"],
            &deposit["target_kind"],
            &deposit["target_name"]
        ],
        [
            &json!("staff"),
            &json!("Carla"),
            &json!(ann_id),
            &json!("player"),
            &json!("ann")
        ]
    );
    let created = log
        .iter()
        .find(|e| e["action"] == "create_table" && e["target"] == first)
        .expect("the first table's creation");
    assert_eq!(
        (&created["target_kind"], &created["target_name"]),
        (&json!("table"), &json!("NL Hold'em 1/2"))
    );
    let clone = entry("clone_table");
    assert_eq!(clone["target_name"], "NL Hold'em 1/2 (2)");
    assert_eq!(
        clone["names"],
        json!({ first: "NL Hold'em 1/2" }),
        "the original, named"
    );
    let made = entry("create_staff");
    assert_eq!(
        (
            &made["actor_kind"],
            &made["actor_name"],
            &made["target_kind"]
        ),
        (&json!("token"), &json!("admin token"), &json!("staff"))
    );
    let sign_in = entry("sign_in");
    assert_eq!(
        (&sign_in["target_kind"], &sign_in["target_name"]),
        (&json!("staff"), &sign_in["target"])
    );

    // The ledger: a seat account names its table.
    let (status, _) = call(
        server,
        Some(common::TOKEN),
        "POST",
        &format!("/admin/players/{ben_id}/deposit"),
        json!({ "amount": 300, "idempotency_key": "ben-1" }),
    )
    .await;
    assert_eq!(status, 200);
    let mut ben = server.client("ben").await;
    ben.send(&common::sit(first, 0, 100)).await;
    let started = std::time::Instant::now();
    let buy_in = loop {
        let (_, ledger) = call(
            server,
            Some(common::TOKEN),
            "GET",
            &format!("/admin/players/{ben_id}/ledger"),
            json!(null),
        )
        .await;
        let lines = ledger.as_array().unwrap().clone();
        if let Some(line) = lines
            .iter()
            .find(|l| l["kind"] == "buy_in" && l["account"].as_str().unwrap().starts_with("seat:"))
        {
            let wallet = lines
                .iter()
                .find(|l| l["kind"] == "deposit")
                .expect("the deposit");
            assert_eq!(
                (&wallet["table_id"], &wallet["table_name"]),
                (&Value::Null, &Value::Null),
                "a wallet line has no table"
            );
            break line.clone();
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(15),
            "ben's buy-in in {ledger}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    assert_eq!(
        (&buy_in["table_id"], &buy_in["table_name"]),
        (&json!(first), &json!("NL Hold'em 1/2"))
    );
    drop(ben);
}

crate::on_both_dbs!(scenario: staff_roles_the_audit_log_and_player_management_on_sqlite, staff_roles_the_audit_log_and_player_management_on_postgres);
