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

async fn scenario(db: Db) {
    let Some(guard) = DbGuard::new(db).await else {
        return;
    };
    let mut server = Server::start(&guard.url(), &[]).await;
    let admin = server.by(Some(common::TOKEN));
    let ann_id = server.player("ann", 0).await;
    let ben_id = server.player("ben", 0).await;

    // Staff accounts and their sessions.
    let (_, cashier) = server.staff("Carla", "cashier").await;
    let (_, floor) = server.staff("Fred", "floor").await;
    let (_, boss) = server.staff("Bea", "admin").await;
    let (cashier, floor, boss) = (
        server.by(Some(&cashier)),
        server.by(Some(&floor)),
        server.by(Some(&boss)),
    );
    // A wrong password.
    let wrong = json!({ "name": "Fred", "password": "wrongpass1" });
    server.by(None).post("/admin/login", wrong, 401).await;
    let me = floor.get("/admin/whoami", 200).await;
    assert_eq!(
        (me["actor"].clone(), me["role"].clone()),
        (json!("staff:Fred"), json!("floor"))
    );

    // Each role to its duties: money for the cashier (by id), tables for the floor.
    let deposit = json!({ "amount": 500, "idempotency_key": "cash-1" });
    let ann_deposit = format!("/admin/players/{ann_id}/deposit");
    // A path never takes a name.
    let not_found = (404, "not_found");
    let ann_by_name = "/admin/players/ann/deposit";
    cashier
        .refused(ann_by_name, deposit.clone(), not_found)
        .await;
    let body = cashier.post(&ann_deposit, deposit.clone(), 200).await;
    assert_eq!(body["balance"], json!(500), "{body}");
    // The same key, by the id in any case, applies once.
    let upper = format!("/admin/players/{}/deposit", ann_id.to_uppercase());
    cashier.post(&upper, deposit, 200).await;
    let five = json!({ "amount": 5 });
    floor
        .refused(&ann_deposit, five.clone(), (403, "forbidden"))
        .await;
    // The role is checked first.
    floor
        .post("/admin/players/nobody/deposit", five.clone(), 403)
        .await;
    cashier
        .post("/admin/players/nobody/deposit", five, 404)
        .await;
    let presets = floor.get("/admin/presets", 200).await;
    let presets = presets.as_array().unwrap().clone();
    assert!(presets.len() >= 6);
    let mut first = String::new();
    for p in &presets {
        let t = floor.post("/admin/tables", p["body"].clone(), 201).await;
        if first.is_empty() {
            first = t["table_id"].as_str().unwrap().to_string();
        }
    }
    // A cashier opens no table.
    cashier
        .post("/admin/tables", presets[0]["body"].clone(), 403)
        .await;
    let clone_path = format!("/admin/tables/{first}/clone");
    let clone = floor.post(&clone_path, json!({}), 201).await;
    assert_eq!(clone["name"], "NL Hold'em 1/2 (2)");
    // Only admins see staff.
    for caller in [&cashier, &floor] {
        caller.get("/admin/staff", 403).await;
    }
    let staff = boss.get("/admin/staff", 200).await;
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
    let body = json!({ "rules": rules, "clok": 1 });
    let body = admin.post("/admin/tables", body, 400).await;
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
    let refused = admin
        .refused("/admin/tables", body, (400, "invalid_rules"))
        .await;
    assert_eq!(
        refused["problems"],
        json!([{ "field": "rules.max_buy_in", "message": refused["message"] }])
    );

    // Players: search, lock (the socket closes, logins are refused), unlock, new password.
    let found = floor.get("/admin/players?q=AN", 200).await;
    assert_eq!(common::field(&found, "name"), ["ann"]);
    let mut ann = server.client("ann").await;
    let lock = format!("/admin/players/{ann_id}/lock");
    // A cashier locks nobody.
    cashier.post(&lock, json!({ "locked": true }), 403).await;
    floor.post(&lock, json!({ "locked": true }), 200).await;
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
    floor.post(&lock, json!({ "locked": false }), 200).await;
    assert_eq!(login("password1").await.0, 200);
    // The floor may not set a password (it issues a reset code); an admin may.
    let password = format!("/admin/players/{ann_id}/password");
    let new_password = json!({ "password": "brand-new-1" });
    // The floor sets no password.
    floor.post(&password, new_password.clone(), 403).await;
    let reset_code = format!("/admin/players/{ann_id}/reset-code");
    floor.post(&reset_code, json!(null), 201).await;
    assert_eq!(
        login("password1").await.0,
        200,
        "a code changes nothing yet"
    );
    boss.post(&password, new_password, 200).await;
    assert_eq!(login("password1").await.0, 401, "the old password is gone");
    assert_eq!(login("brand-new-1").await.0, 200);

    // The audit log: every action, with who did it, newest first.
    let log = floor.get("/admin/audit-log?limit=200", 200).await;
    let actors = common::field(&log, "actor").into_iter();
    let lines: Vec<(&str, &str)> = actors.zip(common::field(&log, "action")).collect();
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
            lines.iter().any(|&(a, b)| a == actor && b == action),
            "{actor} {action} in {lines:?}"
        );
    }
    assert_eq!(lines[0].1, "reset_password", "newest first");
    assert!(
        !lines
            .iter()
            .any(|&(a, b)| a == "staff:Fred" && b == "deposit"),
        "refused requests change nothing and are not logged"
    );

    names_beside_ids(&server, &ann_id, &ben_id, &first).await;

    // Signing out ends a staff session.
    boss.post("/admin/logout", json!({}), 204).await;
    // Signed out.
    boss.get("/admin/whoami", 401).await;

    // The rake report.
    let rake = cashier.get("/admin/rake?days=7", 200).await;
    assert_eq!(rake["total"], json!(0), "{rake}");
    admin.get("/admin/rake?days=0", 400).await;
    server.stop().await;
    let audit = server.audit().await;
    assert!(audit.holds(), "{audit:?}");
    assert_eq!(audit.deposits, 800, "ann's deposit applied once, and ben's");
}

/// The audit log and the ledger name who acted and what it was done to: staff and the
/// token, players, tables (also those a detail mentions, as a clone's original), and the
/// table of a seat account.
async fn names_beside_ids(server: &Server, ann_id: &str, ben_id: &str, first: &str) {
    let admin = server.by(Some(common::TOKEN));
    let log = admin.get("/admin/audit-log?limit=200", 200).await;
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
    let deposit = json!({ "amount": 300, "idempotency_key": "ben-1" });
    admin
        .post(&format!("/admin/players/{ben_id}/deposit"), deposit, 200)
        .await;
    let mut ben = server.client("ben").await;
    ben.send(&common::sit(first, 0, 100)).await;
    let started = std::time::Instant::now();
    let buy_in = loop {
        let ledger = admin
            .get(&format!("/admin/players/{ben_id}/ledger"), 200)
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
