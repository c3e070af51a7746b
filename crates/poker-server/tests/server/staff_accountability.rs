//! Accountable staff and names that are never ids (issue 24, items 2, 5, 6 and 12),
//! attacked through the real server on port 0 over HTTP and WebSockets:
//! - an attacker registering under a name that is another player's id (in every spelling)
//!   is refused, paths take ids only, and an account named so before the rule is told
//!   apart from its victim by the search (ids and names together) and still logs in;
//! - a disabled cashier's session is refused at its next request; staff are re-enabled,
//!   given another role, a new password, signed out everywhere, admins only, each audited;
//!   the last enabled admin cannot be disabled or demoted from a staff session;
//! - an idle staff session ends, a used one slides on;
//! - a floor member cannot take over an account: no password set directly, a one-time
//!   code the player uses instead, told at their next login who and when;
//! - a guessing attacker on the reset endpoint is slowed like at `/login`, and cannot lock
//!   the player out;
//! - each class of character the chat accepted before is refused over the WebSocket, the
//!   connection goes on, and emoji sequences pass.
//!
//! The client's address comes from `x-forwarded-for` (as behind a proxy), so one test
//! plays several addresses.

use crate::common;

use common::{tid, Answer, Client, Db, DbGuard, Received, Req, Scenario, Server, TOKEN};
use poker_protocol::{ClientMsg, ErrorCode, ServerMsg};
use serde_json::{json, Value};
use std::time::Duration;

mod support;

use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_named_like_anothers_id_is_never_taken_for_them() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[FROM_PROXY]).await;
    let victim = server.player("victim", 1000).await;
    let simple = victim.replace('-', "");
    let wide: String = simple
        .chars()
        .map(|c| match c {
            '0'..='9' => char::from_u32(0xFF10 + (c as u32 - '0' as u32)).unwrap(),
            c => char::from_u32(0xFF41 + (c as u32 - 'a' as u32)).unwrap(),
        })
        .collect();
    // The attacker registers under the victim's id, in every spelling a parser takes.
    for (i, name) in [
        simple.clone(),
        simple.to_uppercase(),
        format!(" {simple} "),
        wide,
        format!("{{{victim}}}"),
    ]
    .iter()
    .enumerate()
    {
        let r = send(
            &server,
            "POST",
            "/register",
            None,
            &format!("10.1.0.{i}"),
            Some(json!({ "name": name, "password": "password1" })),
        )
        .await;
        assert!(
            r.status == 400 && ["invalid_name"].contains(&r.body["error"].as_str().unwrap()),
            "{name:?}: {} {}",
            r.status,
            r.body
        );
    }
    for (path, body) in [
        (
            "/admin/players",
            json!({ "name": simple, "password": "password1" }),
        ),
        (
            "/admin/staff",
            json!({ "name": simple.to_uppercase(), "password": "password1", "role": "floor" }),
        ),
        (
            "/admin/tables",
            json!({ "name": format!("urn:uuid:{victim}"), "rules": common::nl_rules() }),
        ),
    ] {
        let r = post(&server, path, TOKEN, body).await;
        assert_eq!(
            (r.status, r.body["error"].as_str()),
            (400, Some("invalid_name")),
            "{path}: {}",
            r.body
        );
    }

    // An account named so before the rule: it keeps its name and logs in by it.
    let (pool, sql) = raw(&server).await;
    let attacker = poker_store::PlayerId::new().to_string();
    let hash = poker_store::hash_password("attackpass1");
    sqlx::query(&sql(
        "insert into player (player_id, name, name_key, password_hash, created_at) values ($1, $2, $2, $3, 1)",
    ))
    .bind(&attacker)
    .bind(&simple)
    .bind(&hash)
    .execute(&pool)
    .await
    .unwrap();
    sqlx::query(&sql(
        "insert into wallet (player_id, balance, created_at) values ($1, 0, 1)",
    ))
    .bind(&attacker)
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;
    let r = login(&server, &simple, "attackpass1").await;
    assert_eq!(
        (r.status, r.body["player_id"].as_str()),
        (200, Some(attacker.as_str())),
        "{}",
        r.body
    );

    // A cashier searches by that name: both come back, each with its id, the old one
    // marked; a name in a path is nobody.
    let (_, cashier) = staff(&server, "Carla", "cashier").await;
    let found = get(&server, &format!("/admin/players?q={simple}"), &cashier)
        .await
        .body;
    let mut rows: Vec<(String, String, bool)> = found
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["player_id"].as_str().unwrap().to_string(),
                p["name"].as_str().unwrap().to_string(),
                p["name_like_id"].as_bool().unwrap(),
            )
        })
        .collect();
    rows.sort_by_key(|r| r.1.clone());
    let mut expected = vec![
        (attacker.clone(), simple.clone(), true),
        (victim.clone(), "victim".to_string(), false),
    ];
    expected.sort_by_key(|r| r.1.clone());
    assert_eq!(rows, expected);
    let r = post(
        &server,
        "/admin/players/victim/withdraw",
        &cashier,
        json!({ "amount": 10 }),
    )
    .await;
    assert_eq!(
        (r.status, r.body["error"].as_str()),
        (404, Some("not_found"))
    );
    // The attacker's own id reaches the attacker's wallet, never the victim's.
    let r = post(
        &server,
        &format!("/admin/players/{attacker}/withdraw"),
        &cashier,
        json!({ "amount": 10 }),
    )
    .await;
    assert_eq!(
        (r.status, r.body["error"].as_str()),
        (409, Some("insufficient_funds"))
    );
    let detail = get(&server, &format!("/admin/players/{attacker}"), &cashier).await;
    assert_eq!(
        (
            detail.body["name"].as_str(),
            detail.body["name_like_id"].as_bool()
        ),
        (Some(simple.as_str()), Some(true))
    );
    let victim_detail = get(&server, &format!("/admin/players/{victim}"), &cashier).await;
    assert_eq!(victim_detail.body["balance"], 1000);
    server.finish(1000).await;
}

async fn staff_are_revoked(db: Db) {
    let Some(guard) = DbGuard::new(db).await else {
        return;
    };
    let mut server = Server::start(&guard.url(), &[FROM_PROXY]).await;
    let ann = server.player("ann", 100).await;
    let (carla_id, carla) = staff(&server, "Carla", "cashier").await;
    let carla_too = staff_login(&server, "Carla", "staffpass1").await;
    let (_, fred) = staff(&server, "Fred", "floor").await;
    let (bea_id, bea) = staff(&server, "Bea", "admin").await;
    let deposit = |key: &'static str| json!({ "amount": 5, "idempotency_key": key });
    let pay = format!("/admin/players/{ann}/deposit");
    assert_eq!(post(&server, &pay, &carla, deposit("d1")).await.status, 200);

    // Only admins revoke staff; a path names staff by id, never by name.
    for (token, path) in [
        (&carla, format!("/admin/staff/{carla_id}/disable")),
        (&fred, format!("/admin/staff/{carla_id}/disable")),
    ] {
        let r = post(&server, &path, token, json!({ "disabled": true })).await;
        assert_eq!(r.status, 403, "{}", r.body);
    }
    let r = post(
        &server,
        "/admin/staff/Carla/disable",
        &bea,
        json!({ "disabled": true }),
    )
    .await;
    assert_eq!(r.status, 404);

    // A disabled cashier's sessions end at once: the next request is 401, and she cannot
    // sign in again.
    let r = post(
        &server,
        &format!("/admin/staff/{carla_id}/disable"),
        &bea,
        json!({ "disabled": true }),
    )
    .await;
    assert_eq!(
        (r.status, &r.body["disabled"]),
        (200, &json!(true)),
        "{}",
        r.body
    );
    for token in [&carla, &carla_too] {
        let r = post(&server, &pay, token, deposit("d2")).await;
        assert_eq!(r.status, 401, "a disabled cashier moves no money");
        assert_eq!(get(&server, "/admin/whoami", token).await.status, 401);
    }
    let r = send(
        &server,
        "POST",
        "/admin/login",
        None,
        "10.0.0.2",
        Some(json!({ "name": "Carla", "password": "staffpass1" })),
    )
    .await;
    assert_eq!(
        (r.status, r.body["error"].as_str()),
        (403, Some("disabled"))
    );
    let listed = get(&server, "/admin/staff", &bea).await.body;
    let carla_row = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["staff_id"] == carla_id.as_str())
        .unwrap()
        .clone();
    assert_eq!(carla_row["disabled"], true);

    // Enabled again: she signs in anew (the old sessions stay ended).
    post(
        &server,
        &format!("/admin/staff/{carla_id}/disable"),
        &bea,
        json!({ "disabled": false }),
    )
    .await;
    assert_eq!(get(&server, "/admin/whoami", &carla).await.status, 401);
    let carla = staff_login(&server, "Carla", "staffpass1").await;

    // Another role takes effect at her next request.
    let r = post(
        &server,
        &format!("/admin/staff/{carla_id}/role"),
        &bea,
        json!({ "role": "floor" }),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(post(&server, &pay, &carla, deposit("d3")).await.status, 403);
    assert_eq!(
        get(&server, "/admin/whoami", &carla).await.body["role"],
        "floor"
    );

    // A new password ends her sessions; sign-out ends every session.
    let r = post(
        &server,
        &format!("/admin/staff/{carla_id}/password"),
        &bea,
        json!({ "password": "short" }),
    )
    .await;
    assert_eq!(
        (r.status, r.body["error"].as_str()),
        (400, Some("invalid_password"))
    );
    post(
        &server,
        &format!("/admin/staff/{carla_id}/password"),
        &bea,
        json!({ "password": "carla-new-pass" }),
    )
    .await;
    assert_eq!(get(&server, "/admin/whoami", &carla).await.status, 401);
    let first = staff_login(&server, "Carla", "carla-new-pass").await;
    let second = staff_login(&server, "Carla", "carla-new-pass").await;
    let r = post(
        &server,
        &format!("/admin/staff/{carla_id}/sign-out"),
        &bea,
        json!(null),
    )
    .await;
    assert_eq!(
        (r.status, &r.body["sessions_ended"]),
        (200, &json!(2)),
        "{}",
        r.body
    );
    for token in [&first, &second] {
        assert_eq!(get(&server, "/admin/whoami", token).await.status, 401);
    }

    // The last enabled admin: not from a staff session (not even herself); the admin
    // token may, and puts things right.
    for (path, body) in [
        (
            format!("/admin/staff/{bea_id}/disable"),
            json!({ "disabled": true }),
        ),
        (
            format!("/admin/staff/{bea_id}/role"),
            json!({ "role": "cashier" }),
        ),
    ] {
        let r = post(&server, &path, &bea, body).await;
        assert_eq!(
            (r.status, r.body["error"].as_str()),
            (409, Some("last_admin")),
            "{path}"
        );
    }
    assert_eq!(
        get(&server, "/admin/whoami", &bea).await.body["role"],
        "admin"
    );
    let r = post(
        &server,
        &format!("/admin/staff/{bea_id}/role"),
        TOKEN,
        json!({ "role": "cashier" }),
    )
    .await;
    assert_eq!(r.status, 200, "the admin token may: {}", r.body);
    assert_eq!(get(&server, "/admin/staff", &bea).await.status, 403);
    post(
        &server,
        &format!("/admin/staff/{bea_id}/role"),
        TOKEN,
        json!({ "role": "admin" }),
    )
    .await;
    // With a second admin, Bea may step down.
    let r = post(
        &server,
        &format!("/admin/staff/{carla_id}/role"),
        &bea,
        json!({ "role": "admin" }),
    )
    .await;
    assert_eq!(r.status, 200);
    let r = post(
        &server,
        &format!("/admin/staff/{bea_id}/disable"),
        &bea,
        json!({ "disabled": true }),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(get(&server, "/admin/whoami", &bea).await.status, 401);

    // Every change is in the audit log, with who did it and to whom.
    let lines = audit_lines(&server).await;
    for (actor, action, target) in [
        ("staff:Bea", "disable_staff", &carla_id),
        ("staff:Bea", "enable_staff", &carla_id),
        ("staff:Bea", "set_staff_role", &carla_id),
        ("staff:Bea", "reset_staff_password", &carla_id),
        ("staff:Bea", "sign_out_staff", &carla_id),
        ("token", "set_staff_role", &bea_id),
        ("staff:Bea", "disable_staff", &bea_id),
    ] {
        assert!(
            lines
                .iter()
                .any(|(a, b, c)| a == actor && b == action && c == target),
            "{actor} {action} {target} in {lines:?}"
        );
    }
    assert!(
        !lines
            .iter()
            .any(|(a, b, _)| a == "staff:Fred" && b != "sign_in"),
        "refused requests are not logged"
    );
    server.finish(105).await;
}

crate::on_both_dbs!(staff_are_revoked: a_disabled_cashier_is_refused_at_once_and_staff_are_revoked_on_sqlite, a_disabled_cashier_is_refused_at_once_and_staff_are_revoked_on_postgres);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_staff_session_ends_and_a_used_one_slides_on() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(
        &guard.url(),
        &[FROM_PROXY, ("POKER__ADMIN__STAFF_IDLE_MINUTES", "30")],
    )
    .await;
    let (_, fred) = staff(&server, "Fred", "floor").await;
    let (_, fran) = staff(&server, "Fran", "floor").await;
    let (pool, sql) = raw(&server).await;
    let now = poker_store::now_ms();
    // As if the last request were that long ago (the clock is not waited for).
    let idle_for = |minutes: i64| {
        let pool = pool.clone();
        let update = sql(
            "update staff_session set last_seen = $1 where staff_id = (select staff_id from staff where name = $2)",
        );
        move |name: &'static str| {
            let pool = pool.clone();
            let update = update.clone();
            async move {
                sqlx::query(&update)
                    .bind(poker_store::now_ms() - minutes * 60_000)
                    .bind(name)
                    .execute(&pool)
                    .await
                    .unwrap();
            }
        }
    };
    // Fred works on: each request moves the limit on, for hours of use.
    for _ in 0..3 {
        idle_for(29)("Fred").await;
        assert_eq!(get(&server, "/admin/whoami", &fred).await.status, 200);
    }
    let seen: i64 = sqlx::query_scalar(&sql(
        "select last_seen from staff_session s join staff f on f.staff_id = s.staff_id where f.name = $1",
    ))
    .bind("Fred")
    .fetch_one(&pool)
    .await
    .unwrap();
    assert!(seen >= now, "the last request is remembered");
    // Fran left her console open and went home.
    idle_for(31)("Fran").await;
    let r = get(&server, "/admin/whoami", &fran).await;
    assert_eq!(
        (r.status, r.body["error"].as_str()),
        (401, Some("unauthorized"))
    );
    assert_eq!(get(&server, "/admin/whoami", &fred).await.status, 200);
    pool.close().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_floor_member_cannot_take_over_an_account() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[FROM_PROXY]).await;
    let ann = server.player("ann", 0).await;
    let (_, fred) = staff(&server, "Fred", "floor").await;
    let (_, cash) = staff(&server, "Cash", "cashier").await;
    let (_, bea) = staff(&server, "Bea", "admin").await;
    let mut socket = server.client("ann").await;
    let session = server.login("ann").await;

    // The floor cannot set a password and log in as the player.
    let r = post(
        &server,
        &format!("/admin/players/{ann}/password"),
        &fred,
        json!({ "password": "takeover-1" }),
    )
    .await;
    assert_eq!(
        (r.status, r.body["error"].as_str()),
        (403, Some("forbidden"))
    );
    assert_eq!(login(&server, "ann", "takeover-1").await.status, 401);
    // Nor may a cashier issue a code.
    let r = post(
        &server,
        &format!("/admin/players/{ann}/reset-code"),
        &cash,
        json!(null),
    )
    .await;
    assert_eq!(r.status, 403);

    // A code: shown once, changing nothing until it is used (ann plays on).
    let r = post(
        &server,
        &format!("/admin/players/{ann}/reset-code"),
        &fred,
        json!(null),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let old_code = r.body["code"].as_str().unwrap().to_string();
    let r = post(
        &server,
        &format!("/admin/players/{ann}/reset-code"),
        &fred,
        json!(null),
    )
    .await;
    let code = r.body["code"].as_str().unwrap().to_string();
    assert_ne!(code, old_code);
    assert!(r.body["expires_at"].as_i64().unwrap() > poker_store::now_ms());
    socket.send(&ClientMsg::Ping).await;
    assert!(matches!(socket.recv().await, ServerMsg::Pong));
    assert_eq!(get(&server, "/api/me", &session).await.status, 200);
    let detail = get(&server, "/admin/audit-log?limit=5", TOKEN).await.body;
    assert!(
        !detail.to_string().contains(&code),
        "the code is in no answer but the one that issued it"
    );

    // Used: the replaced code is void, the live one works once; every session and
    // socket of the player ends.
    let reset = |code: String, password: &'static str| {
        let server = &server;
        async move {
            send(
                server,
                "POST",
                "/reset-password",
                None,
                "10.0.0.7",
                Some(json!({ "name": "ann", "code": code, "password": password })),
            )
            .await
        }
    };
    let r = reset(old_code, "ann-new-pass").await;
    assert_eq!(
        (r.status, r.body["error"].as_str()),
        (401, Some("invalid_code"))
    );
    // Read out loud: any case, without hyphens.
    let r = reset(code.replace('-', "").to_lowercase(), "ann-new-pass").await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(closed(&mut socket).await, "ann's socket closes");
    assert_eq!(get(&server, "/api/me", &session).await.status, 401);
    assert_eq!(
        reset(code.clone(), "another-pass").await.status,
        401,
        "once"
    );
    assert_eq!(login(&server, "ann", "password1").await.status, 401);

    // At her next login she is told who reset it and when; once.
    let r = login(&server, "ann", "ann-new-pass").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["password_reset"]["by"], "staff:Fred", "{}", r.body);
    assert!(r.body["password_reset"]["at"].as_i64().unwrap() > 0);
    let r = login(&server, "ann", "ann-new-pass").await;
    assert!(
        r.body.get("password_reset").is_none(),
        "told once: {}",
        r.body
    );

    // An expired code does nothing.
    let r = post(
        &server,
        &format!("/admin/players/{ann}/reset-code"),
        &fred,
        json!(null),
    )
    .await;
    let late = r.body["code"].as_str().unwrap().to_string();
    let (pool, sql) = raw(&server).await;
    sqlx::query(&sql("update password_reset set expires_at = $1"))
        .bind(poker_store::now_ms() - 1)
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
    assert_eq!(reset(late, "too-late-pass").await.status, 401);

    // An admin may still set it directly; the player is told so too.
    let r = post(
        &server,
        &format!("/admin/players/{ann}/password"),
        &bea,
        json!({ "password": "from-bea-1" }),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = login(&server, "ann", "from-bea-1").await;
    assert_eq!(r.body["password_reset"]["by"], "staff:Bea");

    let lines = audit_lines(&server).await;
    for (actor, action) in [
        ("staff:Fred", "issue_reset_code"),
        ("address:10.0.0.7", "use_reset_code"),
        ("staff:Bea", "reset_password"),
    ] {
        assert!(
            lines
                .iter()
                .any(|(a, b, c)| a == actor && b == action && c == &ann),
            "{actor} {action} in {lines:?}"
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guessing_attacker_on_the_reset_endpoint_is_slowed_and_locks_nobody_out() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(
        &guard.url(),
        &[
            FROM_PROXY,
            ("POKER__SERVER__LOGIN_ATTEMPTS", "3"),
            ("POKER__SERVER__LOGIN_ADDRESS_ATTEMPTS", "5"),
            ("POKER__SERVER__LOGIN_LOCKOUT_SECS", "600"),
        ],
    )
    .await;
    let ann = server.player("ann", 0).await;
    for name in ["ben", "cat", "dan"] {
        server.player(name, 0).await;
    }
    let code = post(
        &server,
        &format!("/admin/players/{ann}/reset-code"),
        TOKEN,
        json!(null),
    )
    .await
    .body["code"]
        .as_str()
        .unwrap()
        .to_string();
    let try_code = |from: &'static str, name: &'static str, code: String| {
        let server = &server;
        async move {
            send(
                server,
                "POST",
                "/reset-password",
                None,
                from,
                Some(json!({ "name": name, "code": code, "password": "guessed-pass" })),
            )
            .await
        }
    };
    // Three wrong codes for ann from one address: the fourth try is refused, even with
    // the right code, and says how long to wait.
    for guess in ["AAAAA-AAAAA-AAAAA-AAAAA", "BBBBB", ""] {
        let r = try_code("10.6.6.6", "ann", guess.into()).await;
        assert_eq!(
            (r.status, r.body["error"].as_str()),
            (401, Some("invalid_code"))
        );
    }
    let r = try_code("10.6.6.6", "ann", code.clone()).await;
    assert_eq!(r.status, 429);
    assert!(r.retry_after.unwrap() > 0);
    // Moving on to other names, the address runs out of its budget.
    for name in ["ben", "cat"] {
        assert_eq!(try_code("10.6.6.6", name, "x".into()).await.status, 401);
    }
    assert_eq!(try_code("10.6.6.6", "dan", "x".into()).await.status, 429);
    // The code is not burnt: ann, from her own address, sets her password with it.
    let r = try_code("10.2.2.2", "ann", code).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(login(&server, "ann", "guessed-pass").await.status, 200);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_refused_chat_character_class_gets_a_typed_error_and_emoji_sequences_pass() {
    let mut rules = common::nl_rules();
    rules["seat_count"] = json!(2);
    let (mut server, table, clients) = Scenario::new()
        .table_with(rules, common::clock(60_000, 600_000))
        .seated(&["ann", "ben"], 500, 100)
        .await;
    let [mut ann, mut ben] = common::named(clients);
    // Many lines: more than the chat's rate allows in ten seconds, so each is spaced.
    let say = |text: String| ClientMsg::Chat {
        table_id: tid(&table),
        text,
    };
    for (class, bad) in [
        ("word joiner", "a\u{2060}b".to_string()),
        (
            "invisible operators",
            "a\u{2061}\u{2062}\u{2063}\u{2064}b".into(),
        ),
        ("Arabic letter mark", "a\u{61C}b".into()),
        ("Mongolian vowel separator", "a\u{180E}b".into()),
        ("soft hyphen", "a\u{AD}b".into()),
        ("line separator", "a\u{2028}b".into()),
        ("paragraph separator", "a\u{2029}b".into()),
        ("interlinear annotation", "a\u{FFF9}b\u{FFFB}".into()),
        ("tag characters", "a\u{E0001}\u{E0041}".into()),
        ("199 stacked marks", format!("a{}", "\u{301}".repeat(199))),
        ("a mark with nothing under it", "\u{301}".into()),
        ("private use", "a\u{E000}".into()),
        ("unassigned", "a\u{378}".into()),
        ("Hangul filler", "\u{3164}".into()),
        ("a joiner between letters", "a\u{200D}b".into()),
    ] {
        println!("{class}");
        ann.send(&say(bad)).await;
        ann.expect_error(ErrorCode::ChatRefused).await;
    }
    // The connection goes on; emoji as people write them pass, composed.
    let family = "gl \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467} \u{1F44D}\u{1F3FD} \u{2764}\u{FE0F} Re\u{301}my";
    ann.send(&say(family.to_string())).await;
    let heard = ben
        .until(|m| match m {
            ServerMsg::Chat { line, .. } => Some(line.text.clone()),
            _ => None,
        })
        .await;
    assert_eq!(heard, family.replace("e\u{301}", "\u{e9}"));
    server.stop().await;
}
