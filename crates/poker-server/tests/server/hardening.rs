//! The gateway against guessers, floods and leaks, through the real interfaces:
//!
//! - an admin token under 32 characters stops `pokerd` at start (the real binary);
//! - wrong bearer tokens and failed staff logins from one address are throttled on every
//!   admin route and the staff login (429 with `Retry-After`), the right token included;
//! - `/api` and `/admin` are rate limited per session and per address;
//! - no secret of the database or NATS URL reaches `pokerd`'s output (the real binary);
//! - every kind of answer carries `X-Content-Type-Options: nosniff` and the frame and
//!   referrer policies;
//! - a body over the limit is 413 in the API's shape on every endpoint of the OpenAPI
//!   document, and on the pages and the WebSocket;
//! - an idempotency key of one kind of money move (a grant) is refused on another (a
//!   cashier's deposit).

use crate::common;

use common::{play, simple_action, sit, Db, DbGuard, Req, Server, TOKEN};
use serde_json::{json, Value};
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

async fn server(settings: &[(&str, &str)]) -> (DbGuard, Server) {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let server = Server::start(&guard.url(), settings).await;
    (guard, server)
}

/// A request as if from `from` (the server trusts `x-forwarded-for` in these tests);
/// status, `Retry-After`, and the body as JSON.
async fn from(
    server: &Server,
    from: &str,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (u16, Option<u64>, Value) {
    let how = Req {
        token,
        forwarded_for: Some(from),
        body,
        ..Req::default()
    };
    let a = server.send(method, path, how).await;
    (a.status, a.retry_after, a.body)
}

/// Runs `pokerd` with these variables until it exits or `wait` passes (then kills it);
/// everything it wrote, standard output and error together, and whether it exited.
fn run_pokerd(vars: &[(&str, &str)], wait: Duration) -> (String, Option<bool>) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pokerd"));
    command
        .env_remove("RUST_LOG")
        .env_remove("DATABASE_URL")
        .env("POKER__SERVER__ADDR", "127.0.0.1:0")
        .env("POKER__ROOM__MONEY", "real")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in vars {
        command.env(k, v);
    }
    let mut child = command.spawn().expect("pokerd starts");
    let deadline = std::time::Instant::now() + wait;
    let exited = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status.success());
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    (out, exited)
}

#[test]
fn an_admin_token_under_32_characters_stops_pokerd_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("p.db").display());
    let (out, exited) = run_pokerd(
        &[
            ("DATABASE_URL", &url),
            ("POKER__ADMIN__TOKEN", "short-token-of-31-characters-xx"),
        ],
        Duration::from_secs(30),
    );
    assert_eq!(exited, Some(false), "{out}");
    assert!(
        out.contains("has 31 characters: it needs at least 32")
            && out.contains("admin.allow_short_token"),
        "{out}"
    );
    assert!(
        !out.contains("short-token-of"),
        "the token itself is not shown: {out}"
    );
    // A development room may say so, and starts.
    let (out, exited) = run_pokerd(
        &[
            ("DATABASE_URL", &url),
            ("POKER__ADMIN__TOKEN", "dev"),
            ("POKER__ADMIN__ALLOW_SHORT_TOKEN", "true"),
        ],
        Duration::from_secs(4),
    );
    assert_eq!(exited, None, "it keeps serving: {out}");
    assert!(out.contains("pokerd is up"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_bearer_tokens_from_one_address_are_throttled_on_every_admin_route_and_the_staff_login(
) {
    let (_g, mut server) = server(&[
        ("POKER__SERVER__CLIENT_ADDRESS_HEADER", "x-forwarded-for"),
        ("POKER__ADMIN__BEARER_ATTEMPTS", "5"),
    ])
    .await;
    let sent = json!({ "name": "Fran", "password": "password1", "role": "floor" });
    server.posted("/admin/staff", sent, 201).await;
    let guesser = "203.0.113.5";
    // Five guesses over several routes: 401 each.
    for (i, (method, path)) in [
        ("GET", "/admin/players"),
        ("POST", "/admin/tables"),
        ("GET", "/admin/whoami"),
        ("GET", "/admin/audit-log"),
        ("POST", "/admin/players/x/deposit"),
    ]
    .into_iter()
    .enumerate()
    {
        let guess = format!("guess-{i:0>40}");
        let (status, _, body) = from(&server, guesser, method, path, Some(&guess), None).await;
        assert_eq!(status, 401, "{path}: {body}");
    }
    // Then every admin request from the address is refused, the right token's too, and
    // so is a staff login.
    for (method, path, token, body) in [
        ("GET", "/admin/players", Some(TOKEN), None),
        ("GET", "/admin/rake", Some("another-guess"), None),
        (
            "POST",
            "/admin/login",
            None,
            Some(json!({ "name": "Fran", "password": "password1" })),
        ),
    ] {
        let (status, retry, answer) = from(&server, guesser, method, path, token, body).await;
        assert_eq!(
            (status, answer["error"].as_str()),
            (429, Some("too_many_attempts")),
            "{path}: {answer}"
        );
        assert!(retry.is_some_and(|s| s >= 1), "{path}: Retry-After");
    }
    // A request without a token guesses nothing: the usual 401.
    let (status, _, _) = from(&server, guesser, "GET", "/admin/players", None, None).await;
    assert_eq!(status, 401);
    // Another address is heard.
    let (status, _, _) = from(
        &server,
        "203.0.113.9",
        "GET",
        "/admin/players",
        Some(TOKEN),
        None,
    )
    .await;
    assert_eq!(status, 200);
    // Failed staff logins count the same way.
    let staff_guesser = "203.0.113.6";
    for _ in 0..5 {
        let (status, _, body) = from(
            &server,
            staff_guesser,
            "POST",
            "/admin/login",
            None,
            Some(json!({ "name": "Fran", "password": "wrong-password" })),
        )
        .await;
        assert_eq!(status, 401, "{body}");
    }
    let (status, _, _) = from(
        &server,
        staff_guesser,
        "GET",
        "/admin/whoami",
        Some(TOKEN),
        None,
    )
    .await;
    assert_eq!(status, 429);
    // Asking without a token is no guess.
    let polite = "203.0.113.7";
    for _ in 0..20 {
        let (status, _, _) = from(&server, polite, "GET", "/admin/players", None, None).await;
        assert_eq!(status, 401);
    }
    let (status, _, _) = from(&server, polite, "GET", "/admin/players", Some(TOKEN), None).await;
    assert_eq!(status, 200);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_and_the_admin_api_are_rate_limited_per_session_and_per_address() {
    let (_g, mut server) = server(&[
        ("POKER__SERVER__CLIENT_ADDRESS_HEADER", "x-forwarded-for"),
        ("POKER__SERVER__API_RATE_PER_SEC", "1"),
        ("POKER__SERVER__API_RATE_BURST", "3"),
        ("POKER__SERVER__API_ADDRESS_RATE_PER_SEC", "1"),
        ("POKER__SERVER__API_ADDRESS_RATE_BURST", "8"),
    ])
    .await;
    // Accounts of their own making: the admin token's burst stays whole for below.
    let (a, b, c) = (
        server.register("ann").await,
        server.register("ben").await,
        server.register("cat").await,
    );
    let me = |token: String, address: &'static str| {
        let server = &server;
        async move { from(server, address, "GET", "/api/me", Some(&token), None).await }
    };
    // A session has its burst, then waits.
    for _ in 0..3 {
        assert_eq!(me(a.clone(), "198.51.100.1").await.0, 200);
    }
    let (status, retry, body) = me(a.clone(), "198.51.100.1").await;
    assert_eq!(
        (status, body["error"].as_str()),
        (429, Some("rate_limited"))
    );
    assert!(retry.is_some_and(|s| s >= 1));
    // Another session from the address has its own, until the address's is spent.
    for _ in 0..3 {
        assert_eq!(me(b.clone(), "198.51.100.1").await.0, 200);
    }
    assert_eq!(me(c.clone(), "198.51.100.1").await.0, 200);
    assert_eq!(me(c.clone(), "198.51.100.1").await.0, 200);
    let (status, _, body) = me(c.clone(), "198.51.100.1").await;
    assert_eq!(
        (status, body["error"].as_str()),
        (429, Some("rate_limited"))
    );
    // From another address, that session is heard.
    assert_eq!(me(c.clone(), "198.51.100.2").await.0, 200);
    // The admin API the same way, per token.
    for _ in 0..3 {
        let (status, _, _) = from(
            &server,
            "198.51.100.3",
            "GET",
            "/admin/players",
            Some(TOKEN),
            None,
        )
        .await;
        assert_eq!(status, 200);
    }
    let (status, _, _) = from(
        &server,
        "198.51.100.3",
        "GET",
        "/admin/players",
        Some(TOKEN),
        None,
    )
    .await;
    assert_eq!(status, 429);
    // Health checks are never limited.
    for _ in 0..20 {
        let (status, _, _) = from(&server, "198.51.100.1", "GET", "/healthz", None, None).await;
        assert_eq!(status, 200);
    }
    server.stop().await;
}

#[test]
fn no_secret_of_the_database_or_nats_urls_reaches_pokerds_output() {
    let dir = tempfile::tempdir().unwrap();
    let secrets = ["DBSECRET1", "NATSSECRET2", "NATSTOKEN3", "PGSECRET4"];
    let nats = "nats://natsuser:NATSSECRET2@127.0.0.1:1,nats://NATSTOKEN3@127.0.0.1:2";
    // SQLite with a password in the query; several nodes refused on SQLite, after the
    // start-up line showed the whole configuration.
    let url = format!(
        "sqlite://{}?password=DBSECRET1",
        dir.path().join("p.db").display()
    );
    let (out, exited) = run_pokerd(
        &[
            ("DATABASE_URL", &url),
            ("POKER__ADMIN__TOKEN", TOKEN),
            ("POKER__CLUSTER__NATS_URL", nats),
        ],
        Duration::from_secs(30),
    );
    assert_eq!(exited, Some(false), "{out}");
    assert!(
        out.contains("listening on") && out.contains("PostgreSQL"),
        "{out}"
    );
    assert!(
        out.contains("password=***")
            && out.contains("natsuser:***@")
            && out.contains("nats://***@"),
        "the URLs are shown redacted: {out}"
    );
    for secret in secrets {
        assert!(!out.contains(secret), "{secret} in {out}");
    }
    // PostgreSQL with a password in the query and the user information; NATS does not
    // answer, and the error says where without its credentials.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let Some(pg) = runtime.block_on(poker_store::testing::TestPostgres::start_or_skip(
        "the secrets test",
    )) else {
        return;
    };
    let url = format!(
        "{}?password=PGSECRET4",
        pg.url.replacen("postgres@", "postgres:PGSECRET4@", 1)
    );
    let (out, exited) = run_pokerd(
        &[
            ("DATABASE_URL", &url),
            ("POKER__ADMIN__TOKEN", TOKEN),
            ("POKER__CLUSTER__NATS_URL", nats),
        ],
        Duration::from_secs(60),
    );
    assert_eq!(exited, Some(false), "{out}");
    assert!(out.contains("cannot reach NATS at"), "{out}");
    for secret in secrets {
        assert!(!out.contains(secret), "{secret} in {out}");
    }
    drop(pg);
}

/// The headers every answer must carry.
fn assert_hardened(what: &str, headers: &reqwest::header::HeaderMap) {
    let get = |h: &str| headers.get(h).map(|v| v.to_str().unwrap().to_string());
    assert_eq!(
        get("x-content-type-options").as_deref(),
        Some("nosniff"),
        "{what}"
    );
    // The player's page alone may be framed, by itself (tiled tables); nothing else.
    let (framing, ancestors) = if what == "page" {
        ("SAMEORIGIN", "frame-ancestors 'self'")
    } else {
        ("DENY", "frame-ancestors 'none'")
    };
    assert_eq!(get("x-frame-options").as_deref(), Some(framing), "{what}");
    assert_eq!(
        get("referrer-policy").as_deref(),
        Some("no-referrer"),
        "{what}"
    );
    let csp = get("content-security-policy").unwrap_or_default();
    assert!(csp.contains(ancestors), "{what}: {csp}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_kind_of_answer_says_nosniff_and_may_not_be_framed() {
    let (_g, mut server) = server(&[
        ("POKER__SERVER__API_RATE_PER_SEC", "1"),
        ("POKER__SERVER__API_RATE_BURST", "1000"),
    ])
    .await;
    let table = server
        .table(json!({ "action_ms": 10_000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 }))
        .await;
    server.player("ann", 1000).await;
    server.player("ben", 1000).await;
    let ann_token = server.login("ann").await;
    let mut ann = common::Client::connect(server.addr, "ann").await;
    ann.auth(&ann_token).await;
    let mut ben = server.client("ben").await;
    ann.send(&sit(&table, 0, 200)).await;
    ben.send(&sit(&table, 1, 200)).await;
    let mut players = [ann, ben];
    play(&mut players, &table, 1, |_, _, legal| {
        simple_action(legal, false)
    })
    .await;
    // The hand is in the history once the persister has written it.
    let mut hand = String::new();
    for _ in 0..100 {
        let hands = server
            .call("GET", "/api/me/hands", Some(&ann_token), None)
            .await
            .1;
        if let Some(id) = hands[0]["hand_id"].as_str() {
            hand = id.to_string();
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!hand.is_empty(), "the hand is written");
    let http = reqwest::Client::new();
    let cases: Vec<(&str, reqwest::RequestBuilder, u16)> = vec![
        ("health", http.get(format!("{}/healthz", server.base)), 200),
        ("metrics", http.get(format!("{}/metrics", server.base)), 200),
        (
            "contract",
            http.get(format!("{}/openapi.json", server.base)),
            200,
        ),
        ("page", http.get(format!("{}/", server.base)), 200),
        ("console", http.get(format!("{}/admin", server.base)), 200),
        (
            "module",
            http.get(format!("{}/js/main.js", server.base)),
            200,
        ),
        ("style", http.get(format!("{}/style.css", server.base)), 200),
        (
            "unknown module",
            http.get(format!("{}/js/nope.js", server.base)),
            404,
        ),
        (
            "api json",
            http.get(format!("{}/api/me", server.base))
                .bearer_auth(&ann_token),
            200,
        ),
        (
            "player's text export",
            http.get(format!("{}/api/me/hands/{hand}", server.base))
                .bearer_auth(&ann_token),
            200,
        ),
        (
            "operator's text export",
            http.get(format!(
                "{}/admin/hands/{hand}?format=pokerstars",
                server.base
            ))
            .bearer_auth(TOKEN),
            200,
        ),
        (
            "admin json",
            http.get(format!("{}/admin/players", server.base))
                .bearer_auth(TOKEN),
            200,
        ),
        (
            "unauthorized",
            http.get(format!("{}/api/me", server.base)),
            401,
        ),
        (
            "bad request",
            http.get(format!("{}/api/me/hands?limit=0", server.base))
                .bearer_auth(&ann_token),
            400,
        ),
        (
            "not found",
            http.get(format!("{}/no/such/page", server.base)),
            404,
        ),
        (
            "wrong method",
            http.get(format!("{}/login", server.base)),
            405,
        ),
        (
            "not an upgrade",
            http.get(format!("{}/ws", server.base)),
            400,
        ),
        (
            "foreign origin",
            http.get(format!("{}/ws", server.base))
                .header("origin", "https://evil.example")
                .header("connection", "upgrade")
                .header("upgrade", "websocket")
                .header("sec-websocket-version", "13")
                .header("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="),
            403,
        ),
    ];
    for (what, request, expected) in cases {
        let r = request.send().await.unwrap();
        assert_eq!(r.status().as_u16(), expected, "{what}");
        assert_hardened(what, r.headers());
        let html = r
            .headers()
            .get("content-type")
            .is_some_and(|v| v.to_str().unwrap().starts_with("text/html"));
        if !html && expected >= 400 && what != "not an upgrade" && what != "unknown module" {
            let body: Value = r.json().await.expect(what);
            assert!(
                body["error"].is_string(),
                "{what}: the API's error shape: {body}"
            );
        }
    }
    // A refusal of the rate limit too: a token spent its burst (at one a second).
    let mut last = 0;
    for _ in 0..1100 {
        let r = http
            .get(format!("{}/api/me", server.base))
            .bearer_auth(&ann_token)
            .send()
            .await
            .unwrap();
        last = r.status().as_u16();
        if last == 429 {
            assert_hardened("rate limited", r.headers());
            break;
        }
    }
    assert_eq!(last, 429);
    server.stop().await;
}

/// Sends a request with a body of `announced` bytes (only its first kilobyte is sent)
/// on a raw socket; the status and the body.
async fn oversized(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    token: &str,
) -> (u16, String) {
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: pokerd\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: 3000000\r\nConnection: close\r\n\r\n"
    );
    tcp.write_all(head.as_bytes()).await.unwrap();
    let _ = tcp.write_all(&[b' '; 1024]).await;
    read_answer(&mut tcp).await
}

/// The status and body of an answer read to its end; the headers must say nosniff.
async fn read_answer(tcp: &mut tokio::net::TcpStream) -> (u16, String) {
    let mut got = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), tcp.read_to_end(&mut got)).await;
    let text = String::from_utf8_lossy(&got).into_owned();
    assert!(
        text.to_ascii_lowercase()
            .contains("x-content-type-options: nosniff"),
        "{text}"
    );
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text
        .split("\r\n\r\n")
        .nth(1)
        .unwrap_or_default()
        .to_string();
    (status, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_limit_is_413_in_the_apis_shape_on_every_endpoint() {
    let (_g, mut server) = server(&[]).await;
    let player = server.player("ann", 100).await;
    let token = server.login("ann").await;
    let table = server
        .table(json!({ "action_ms": 10_000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 }))
        .await;
    let contract: Value =
        serde_json::from_str(include_str!("../../../../docs/openapi.json")).unwrap();
    let mut endpoints: Vec<(String, String)> = Vec::new();
    for (path, methods) in contract["paths"].as_object().unwrap() {
        for method in methods.as_object().unwrap().keys() {
            let path = if path.starts_with("/admin/players/") {
                path.replace("{id}", &player)
            } else if path.starts_with("/admin/tables/") {
                path.replace("{id}", &table)
            } else {
                path.replace("{id}", &uuid_like())
            };
            endpoints.push((method.to_uppercase(), path));
        }
    }
    for page in ["/", "/admin", "/ws", "/js/main.js", "/no/such/page"] {
        endpoints.push(("GET".into(), page.into()));
    }
    assert!(endpoints.len() > 35, "{endpoints:?}");
    for (method, path) in &endpoints {
        // The player's token on /api, the admin's elsewhere.
        let bearer = if path.starts_with("/api") {
            &token
        } else {
            TOKEN
        };
        let (status, body) = oversized(server.addr, method, path, bearer).await;
        assert_eq!(status, 413, "{method} {path}: {body}");
        let body: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        assert_eq!(
            body["error"], "payload_too_large",
            "{method} {path}: {body}"
        );
    }
    // A body sent in chunks, with no length announced, is stopped by the limit as it
    // is read: /register, which answered 400 to 3 MB.
    let mut tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let chunk = format!(
        "{{\"name\":\"big\",\"password\":\"{}\"}}",
        "p".repeat(65_572)
    );
    let request = format!(
        "POST /register HTTP/1.1\r\nHost: pokerd\r\nContent-Type: application/json\r\n\
         Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n{:x}\r\n{chunk}\r\n0\r\n\r\n",
        chunk.len()
    );
    tcp.write_all(request.as_bytes()).await.unwrap();
    let (status, body) = read_answer(&mut tcp).await;
    assert_eq!(status, 413, "{body}");
    assert!(body.contains("payload_too_large"), "{body}");
    server.stop().await;
}

fn uuid_like() -> String {
    "0123456789abcdef0123456789abcdef".to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grants_idempotency_key_is_refused_on_a_cashiers_deposit() {
    let (_g, mut server) = server(&[("POKER__ROOM__MONEY", "play")]).await;
    let token = server.register("dora").await;
    let me = server.call("GET", "/api/me", Some(&token), None).await.1;
    let id = me["player_id"].as_str().unwrap().to_string();
    let grant = me["balance"].as_u64().unwrap();
    assert!(grant > 0);
    // The grant was keyed `grant:ID`: a deposit with that key is not taken for its repeat.
    let sent = json!({ "amount": grant, "idempotency_key": format!("grant:{id}") });
    let path = format!("/admin/players/{id}/deposit");
    server
        .post_refused(&path, sent, (409, "idempotency_conflict"))
        .await;
    let me = server.call("GET", "/api/me", Some(&token), None).await.1;
    assert_eq!(me["balance"].as_u64(), Some(grant));
    server.stop().await;
}
