//! The account endpoints against the open internet, on SQLite and on Postgres: one rule
//! for names (refused before the database, unique regardless of case), logins locked per
//! name and address with a per-address budget and `Retry-After`, registrations throttled
//! per address, passwords measured in characters, hashing kept off the async workers.
//! The client's address comes from `x-forwarded-for` here (as behind a proxy), so one
//! test plays several addresses.

use crate::common;

use common::{Answer, Db, DbGuard, Req, Server};
use serde_json::{json, Value};

const SETTINGS: &[(&str, &str)] = &[
    ("POKER__SERVER__CLIENT_ADDRESS_HEADER", "x-forwarded-for"),
    ("POKER__SERVER__LOGIN_ATTEMPTS", "3"),
    ("POKER__SERVER__LOGIN_ADDRESS_ATTEMPTS", "6"),
    ("POKER__SERVER__LOGIN_LOCKOUT_SECS", "600"),
    ("POKER__SERVER__REGISTER_PER_ADDRESS", "3"),
];

async fn call(server: &Server, path: &str, from: &str, body: Value) -> Answer {
    let forwarded = format!("10.9.9.9, {from}");
    let how = Req {
        forwarded_for: Some(&forwarded),
        body: Some(body),
        ..Req::default()
    };
    server.send("POST", path, how).await
}

async fn login(server: &Server, from: &str, name: &str, password: &str) -> Answer {
    let login = json!({ "name": name, "password": password });
    call(server, "/login", from, login).await
}

async fn register(server: &Server, from: &str, name: &str, password: &str) -> Answer {
    let account = json!({ "name": name, "password": password });
    call(server, "/register", from, account).await
}

async fn names_are_one_rule_everywhere(server: &Server) {
    // Refused before the database, with the same answer on both backends.
    for bad in [
        "line\n*** SUMMARY ***",
        "nul\0byte",
        "rtl\u{202E}gnp",
        "zero\u{200B}width",
        "   ",
    ] {
        let a = register(server, "192.0.2.1", bad, "password1").await;
        assert_eq!(refusal(&a), (400, Some("invalid_name")), "{bad:?}");
        let sent = json!({ "name": bad, "password": "password1" });
        server
            .post_refused("/admin/players", sent, (400, "invalid_name"))
            .await;
        let sent = json!({ "name": bad, "rules": common::nl_rules() });
        server
            .post_refused("/admin/tables", sent, (400, "invalid_name"))
            .await;
    }
    let a = register(server, "192.0.2.1", &"é".repeat(33), "password1").await;
    assert_eq!(a.status, 400);
    // Unique regardless of case and width; stored trimmed and NFC.
    let a = register(server, "192.0.2.1", "  Zed ", "password1").await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["name"], "Zed");
    let a = register(server, "192.0.2.2", "zED", "password1").await;
    assert_eq!(refusal(&a), (409, Some("name_taken")));
    let wide = json!({ "name": "ＺＥＤ", "password": "password1" });
    server.posted("/admin/players", wide, 409).await;
    // Passwords are measured in characters: four euro signs are 12 bytes, too short.
    let a = register(server, "192.0.2.2", "Euro", "€€€€").await;
    assert_eq!(refusal(&a), (400, Some("invalid_password")));
    let euros = json!({ "name": "Euro", "password": "€€€€" });
    server.posted("/admin/players", euros, 400).await;
    let a = register(server, "192.0.2.2", "Euro", "€€€€€€€€").await;
    assert_eq!(a.status, 200);
    // Idempotency keys with a NUL or of 2.7 KB are refused before the database too.
    let id = a.body["player_id"].as_str().unwrap();
    for key in ["k\0ey".to_string(), "k".repeat(2700)] {
        let sent = json!({ "amount": 5, "idempotency_key": key });
        server
            .posted(&format!("/admin/players/{id}/deposit"), sent, 400)
            .await;
    }
}

async fn logins_lock_per_name_and_address(server: &Server) {
    // Any case of the name logs in.
    let a = login(server, "198.51.100.1", "ZED", "password1").await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["name"], "Zed");
    // An unknown name and a wrong password get the same answer.
    let unknown = login(server, "198.51.100.9", "nobody-here", "password1").await;
    let wrong = login(server, "198.51.100.9", "Zed", "not-the-one").await;
    assert_eq!((unknown.status, &unknown.body), (wrong.status, &wrong.body));
    assert_eq!(wrong.status, 401);
    // Three wrong passwords from one address lock that address out of that name,
    // even with the right password, and say how long to wait...
    for _ in 0..3 {
        assert_eq!(
            login(server, "198.51.100.2", "zed", "guessing")
                .await
                .status,
            401
        );
    }
    let locked = login(server, "198.51.100.2", "Zed", "password1").await;
    assert_eq!(locked.status, 429);
    assert_eq!(locked.body["error"], "too_many_attempts");
    let wait = locked.retry_after.expect("Retry-After");
    assert!((1..=601).contains(&wait), "{wait}");
    // ...but the player logs in from their own address: nobody can lock anyone out.
    assert_eq!(
        login(server, "198.51.100.3", "Zed", "password1")
            .await
            .status,
        200
    );
    // One address guessing across names runs out of its budget for every name.
    for name in ["a1", "a2", "a3", "a4", "a5", "a6"] {
        assert_eq!(
            login(server, "203.0.113.7", name, "guessing").await.status,
            401
        );
    }
    let spent = login(server, "203.0.113.7", "Zed", "password1").await;
    assert_eq!(spent.status, 429);
    assert!(spent.retry_after.is_some());
    // IPv6 clients are counted by their /64.
    for i in 0..6 {
        let from = format!("2001:db8:1:2::{i:x}");
        let name = format!("b{i}");
        assert_eq!(login(server, &from, &name, "guessing").await.status, 401);
    }
    let a = login(server, "2001:db8:1:2:ffff::1", "Zed", "password1").await;
    assert_eq!(a.status, 429);
    let a = login(server, "2001:db8:1:3::1", "Zed", "password1").await;
    assert_eq!(a.status, 200);
}

async fn registrations_are_throttled_per_address(server: &Server) {
    for i in 0..3 {
        let a = register(server, "192.0.2.50", &format!("reg{i}"), "password1").await;
        assert_eq!(a.status, 200, "{}", a.body);
    }
    let a = register(server, "192.0.2.50", "reg3", "password1").await;
    assert_eq!(a.status, 429);
    assert!(a.retry_after.is_some());
    assert_eq!(
        register(server, "192.0.2.51", "reg3", "password1")
            .await
            .status,
        200
    );
}

/// Registrations from many addresses at once hash passwords on the hashing threads, a few
/// at a time: `/healthz` and the admin API answer while they are still queued. Then all of
/// them log in at once, and every login succeeds; `/metrics` shows that no more hashes ran
/// at once than there are hashing threads.
async fn a_flood_of_registrations_does_not_starve_health(server: &Server) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let base = server.base.clone();
    let finished = Arc::new(AtomicUsize::new(0));
    let mut flood = tokio::task::JoinSet::new();
    for i in 0..32 {
        let base = base.clone();
        let finished = finished.clone();
        flood.spawn(async move {
            let account = json!({ "name": format!("flood{i}"), "password": "password1" });
            let from = format!("100.64.0.{i}");
            let sent = post_from(&base, "/register", from, account).send().await;
            let status = sent.unwrap().status().as_u16();
            finished.fetch_add(1, Ordering::SeqCst);
            status
        });
    }
    // Once the flood is being hashed, health is asked: it must not wait behind the
    // queued hashes (at most the ones already running finish meanwhile).
    while finished.load(Ordering::SeqCst) < 2 {
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
    let health = reqwest::get(format!("{base}/healthz")).await.unwrap();
    assert_eq!(health.status(), 200);
    // Not a count of hashes in a time window (a slower machine finishes more of them
    // meanwhile): health came back while the flood was still queued.
    let left = 32 - finished.load(Ordering::SeqCst);
    let mut created = 0;
    while let Some(status) = flood.join_next().await {
        assert_eq!(status.unwrap(), 200);
        created += 1;
    }
    assert_eq!(created, 32);
    assert!(
        left > 0,
        "/healthz waited until all 32 registrations were hashed"
    );
    // Then the 32 log in at once: every login is answered with a session.
    let mut logins = tokio::task::JoinSet::new();
    for i in 0..32 {
        let base = base.clone();
        logins.spawn(async move {
            let login = json!({ "name": format!("flood{i}"), "password": "password1" });
            let from = format!("100.64.1.{i}");
            let sent = post_from(&base, "/login", from, login).send().await;
            let answer: Value = sent
                .unwrap()
                .error_for_status()
                .unwrap()
                .json()
                .await
                .unwrap();
            answer["token"].as_str().is_some_and(|t| !t.is_empty())
        });
    }
    while let Some(ok) = logins.join_next().await {
        assert!(ok.unwrap(), "a login in the storm got no session");
    }
    // The storm ran on the hashing threads, never more hashes at once than threads.
    let metrics = reqwest::get(format!("{base}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let gauge = |name: &str| -> usize {
        metrics
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} in /metrics"))
            .parse()
            .unwrap()
    };
    let (threads, peak) = (
        gauge("poker_password_hashing_threads"),
        gauge("poker_password_hashes_peak"),
    );
    assert!(
        threads >= 1 && (1..=threads).contains(&peak),
        "{peak} hashes at once on {threads} threads"
    );
    assert!(gauge("poker_password_memory_blocks") <= threads);
}

async fn run(db: Db) {
    let Some(guard) = DbGuard::new(db).await else {
        return;
    };
    let mut server = Server::start(&guard.url(), SETTINGS).await;
    names_are_one_rule_everywhere(&server).await;
    logins_lock_per_name_and_address(&server).await;
    registrations_are_throttled_per_address(&server).await;
    a_flood_of_registrations_does_not_starve_health(&server).await;
    server.finish(0).await;
}

crate::on_both_dbs!(run: accounts_hold_against_the_open_internet_on_sqlite, accounts_hold_against_the_open_internet_on_postgres);

/// An answer's status and error code.
fn refusal(a: &Answer) -> (u16, Option<&str>) {
    (a.status, a.body["error"].as_str())
}

/// A POST of `body` to `path` from the address `from` (as behind a proxy), on a client of
/// its own, so that requests sent at once are not queued on one connection.
fn post_from(base: &str, path: &str, from: String, body: Value) -> reqwest::RequestBuilder {
    let client = reqwest::Client::new().post(format!("{base}{path}"));
    client.header("x-forwarded-for", from).json(&body)
}
