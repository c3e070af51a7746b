//! An anonymous address trying to lock the room out, through real sockets: silent TCP
//! connections, half-sent request heads, heads sent a byte at a time, bodies never sent
//! and idle keep-alives are closed; one address is capped; near the connection limit the
//! reserve serves health checks, logins and seated players while everything else is
//! refused fast; and the real `pokerd` under a low open-file limit does the same.
//!
//! Clients bind their sockets to 127.0.0.2, 127.0.0.3... to be other addresses on the
//! loopback.

use crate::common;

use common::{play, simple_action, sit, Client, Db, DbGuard, Req, Server, Ws};
use poker_protocol::{ClientMsg, ServerMsg};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

async fn server(settings: &[(&str, &str)]) -> (DbGuard, Server) {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let server = Server::start(&guard.url(), settings).await;
    (guard, server)
}

/// A TCP connection to `addr` from `ip` (a loopback address).
async fn connect_from(ip: &str, addr: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket
        .bind(format!("{ip}:0").parse().unwrap())
        .expect("binds a loopback address");
    socket.connect(addr).await.expect("connects")
}

/// What a socket shows within `wait`: `Ok(text)` for what it read before the server
/// closed it (empty: closed without a word), `Err(())` if it is still open and quiet.
async fn closed_within(tcp: &mut TcpStream, wait: Duration) -> Result<String, ()> {
    let mut got = Vec::new();
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        let mut buf = [0u8; 4096];
        match tokio::time::timeout_at(deadline, tcp.read(&mut buf)).await {
            Err(_) => return Err(()),
            Ok(Ok(0)) | Ok(Err(_)) => return Ok(String::from_utf8_lossy(&got).into_owned()),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
}

/// A request from `ip` on a connection of its own (closed after the answer); the
/// status and the body as JSON (`Null` when not).
async fn request_from(
    ip: &str,
    server: &Server,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let from = Some(ip);
    let a = server
        .send(
            method,
            path,
            Req {
                token,
                from,
                body,
                ..Req::default()
            },
        )
        .await;
    (a.status, a.body)
}

/// A WebSocket from `ip` with these headers on the upgrade.
async fn ws_from(
    ip: &str,
    addr: SocketAddr,
    headers: &[(&str, &str)],
) -> Result<(Ws, Option<String>), tokio_tungstenite::tungstenite::Error> {
    let tcp = connect_from(ip, addr).await;
    let mut request = format!("ws://{addr}/ws").into_client_request().unwrap();
    for (name, value) in headers {
        let name: tokio_tungstenite::tungstenite::http::HeaderName = name.parse().unwrap();
        request
            .headers_mut()
            .insert(name, value.parse().expect("a header value"));
    }
    let (ws, response) =
        tokio_tungstenite::client_async(request, tokio_tungstenite::MaybeTlsStream::Plain(tcp))
            .await?;
    let protocol = response
        .headers()
        .get("sec-websocket-protocol")
        .map(|v| v.to_str().unwrap().to_string());
    Ok((ws, protocol))
}

/// The status of a refused upgrade.
fn refused_status(e: tokio_tungstenite::tungstenite::Error) -> u16 {
    match e {
        tokio_tungstenite::tungstenite::Error::Http(response) => response.status().as_u16(),
        other => panic!("expected an HTTP refusal, got {other}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_sockets_half_sent_heads_trickled_heads_unsent_bodies_and_idle_keep_alives_are_closed(
) {
    let (_g, mut server) = server(&[
        ("POKER__SERVER__HEADER_TIMEOUT_MS", "500"),
        ("POKER__SERVER__IDLE_TIMEOUT_MS", "900"),
        ("POKER__SERVER__BODY_TIMEOUT_MS", "700"),
    ])
    .await;
    let addr = server.addr;
    let mut silent = Vec::new();
    let mut half = Vec::new();
    let mut idle = Vec::new();
    for _ in 0..20 {
        silent.push(connect_from("127.0.0.2", addr).await);
        let mut h = connect_from("127.0.0.2", addr).await;
        h.write_all(b"GET /healthz HTTP/1.1\r\nHost: pokerd\r\nX-Slow: ")
            .await
            .unwrap();
        half.push(h);
        let mut k = connect_from("127.0.0.2", addr).await;
        k.write_all(b"GET /healthz HTTP/1.1\r\nHost: pokerd\r\n\r\n")
            .await
            .unwrap();
        // The answer, then nothing: an idle keep-alive.
        let mut buf = [0u8; 1024];
        let n = k.read(&mut buf).await.unwrap();
        assert!(
            String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"),
            "{}",
            String::from_utf8_lossy(&buf[..n])
        );
        idle.push(k);
    }
    // While they are open, another address is served.
    let (status, body) = request_from("127.0.0.3", &server, "GET", "/healthz", None, None).await;
    assert_eq!((status, body), (200, json!({ "status": "ok" })));
    // A head sent a byte at a time, each in time for the last: closed all the same.
    let mut trickle = connect_from("127.0.0.2", addr).await;
    let head = b"GET /healthz HTTP/1.1\r\nHost: pokerd\r\nX-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n";
    let mut cut = false;
    for byte in head.iter() {
        if trickle.write_all(&[*byte]).await.is_err() {
            cut = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    if !cut {
        // Every byte was taken before the cut was seen: the answer must not be a 200.
        let seen = closed_within(&mut trickle, Duration::from_secs(10))
            .await
            .expect("the trickling socket is closed");
        assert!(
            !seen.contains("200 OK"),
            "a trickled head was answered: {seen}"
        );
    }
    // A body announced and never sent: 408 in the API's shape, then closed.
    let mut no_body = connect_from("127.0.0.2", addr).await;
    no_body
        .write_all(
            b"POST /login HTTP/1.1\r\nHost: pokerd\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
        )
        .await
        .unwrap();
    let seen = closed_within(&mut no_body, Duration::from_secs(10))
        .await
        .expect("the socket without its body is answered and closed");
    assert!(
        seen.starts_with("HTTP/1.1 408") && seen.contains("\"request_timeout\""),
        "{seen}"
    );
    // Every one of them closed by the server, none answered with anything.
    for tcp in silent
        .iter_mut()
        .chain(half.iter_mut())
        .chain(idle.iter_mut())
    {
        let seen = closed_within(tcp, Duration::from_secs(10))
            .await
            .expect("the server closes it");
        assert_eq!(
            seen, "",
            "a silent, half-sent or idle socket is closed without a word"
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_holds_its_cap_of_connections_and_others_keep_being_served() {
    let (_g, mut server) = server(&[("POKER__SERVER__CONNECTIONS_PER_ADDRESS", "16")]).await;
    server.player("zoe", 0).await;
    let addr = server.addr;
    let mut held = Vec::new();
    let mut refused = 0;
    for _ in 0..60 {
        let mut tcp = connect_from("127.0.0.2", addr).await;
        match closed_within(&mut tcp, Duration::from_millis(200)).await {
            Err(()) => held.push(tcp),
            Ok(seen) => {
                assert!(
                    seen.starts_with("HTTP/1.1 503") && seen.contains("too_many_connections"),
                    "{seen}"
                );
                refused += 1;
            }
        }
    }
    assert_eq!((held.len(), refused), (16, 44));
    // Another address: health, a login, a wrong password, the API.
    let (status, _) = request_from("127.0.0.3", &server, "GET", "/healthz", None, None).await;
    assert_eq!(status, 200);
    let (status, body) = request_from(
        "127.0.0.3",
        &server,
        "POST",
        "/login",
        None,
        Some(json!({ "name": "zoe", "password": "password1" })),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, _) = request_from(
        "127.0.0.3",
        &server,
        "POST",
        "/login",
        None,
        Some(json!({ "name": "zoe", "password": "wrong-password" })),
    )
    .await;
    assert_eq!(status, 401);
    // The first address gets its places back as its sockets close.
    drop(held);
    let mut served = false;
    for _ in 0..50 {
        let client = reqwest::Client::builder()
            .local_address("127.0.0.2".parse::<std::net::IpAddr>().unwrap())
            .build()
            .unwrap();
        if let Ok(r) = client.get(format!("{}/healthz", server.base)).send().await {
            if r.status() == 200 {
                served = true;
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        served,
        "the address is served again once its sockets are closed"
    );
    server.stop().await;
}

/// Opens silent sockets from `ip` until one is refused; returns those held.
async fn fill_from(ip: &str, addr: SocketAddr, at_most: usize) -> (Vec<TcpStream>, String) {
    let mut held = Vec::new();
    for _ in 0..at_most {
        let mut tcp = connect_from(ip, addr).await;
        match closed_within(&mut tcp, Duration::from_millis(100)).await {
            Err(()) => held.push(tcp),
            Ok(seen) => return (held, seen),
        }
    }
    (held, String::new())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn near_the_limit_the_reserve_serves_health_logins_and_seated_players_and_past_it_sockets_are_refused(
) {
    let (_g, mut server) = server(&[
        ("POKER__SERVER__MAX_CONNECTIONS", "40"),
        ("POKER__SERVER__RESERVE_CONNECTIONS", "10"),
        ("POKER__SERVER__RESERVE_PER_ADDRESS", "2"),
        ("POKER__SERVER__CONNECTIONS_PER_ADDRESS", "100"),
        // The attack's silent sockets stay for the whole test.
        ("POKER__SERVER__HEADER_TIMEOUT_MS", "600000"),
    ])
    .await;
    let addr = server.addr;
    let table = server
        .table(json!({ "action_ms": 30_000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 }))
        .await;
    server.player("ann", 1000).await;
    server.player("ben", 1000).await;
    server.player("cat", 1000).await;
    let ann_token = server.login("ann").await;
    let cat_token = server.login("cat").await;
    let mut ann = Client::connect(addr, "ann").await;
    ann.auth(&ann_token).await;
    let mut ben = server.client("ben").await;
    ann.send(&sit(&table, 0, 200)).await;
    ben.send(&sit(&table, 1, 200)).await;
    let mut players = [ann, ben];
    play(&mut players, &table, 1, |_, _, legal| {
        simple_action(legal, false)
    })
    .await;

    // An attacker fills the room to its reserve, and takes the two reserve places one
    // address may hold.
    let (attack, seen) = fill_from("127.0.0.2", addr, 100).await;
    assert!(
        seen.starts_with("HTTP/1.1 503") && seen.contains("\"busy\""),
        "{seen}"
    );
    assert!(attack.len() >= 25, "{} held", attack.len());

    // From other addresses, in the reserve: health and logins answer; the API does not.
    let (status, _) = request_from("127.0.0.3", &server, "GET", "/healthz", None, None).await;
    assert_eq!(status, 200);
    let (status, body) = request_from(
        "127.0.0.4",
        &server,
        "POST",
        "/login",
        None,
        Some(json!({ "name": "cat", "password": "password1" })),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = request_from(
        "127.0.0.5",
        &server,
        "GET",
        "/api/me",
        Some(&cat_token),
        None,
    )
    .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (503, Some("busy")),
        "{body}"
    );
    // A player without a seat cannot open a WebSocket in the reserve; a seated one can,
    // with the token as a header or as a browser's protocol.
    let cat_ws = ws_from(
        "127.0.0.6",
        addr,
        &[("authorization", &format!("Bearer {cat_token}"))],
    )
    .await;
    let Err(refusal) = cat_ws else {
        panic!("a player without a seat opened a WebSocket in the reserve")
    };
    assert_eq!(refused_status(refusal), 503);
    let (ws, protocol) = ws_from(
        "127.0.0.7",
        addr,
        &[(
            "sec-websocket-protocol",
            &format!("poker, bearer.{ann_token}"),
        )],
    )
    .await
    .expect("a seated player reconnects in the reserve");
    assert_eq!(protocol.as_deref(), Some("poker"));
    let mut ann_again = Client::with_ws(ws, "ann");
    ann_again.auth(&ann_token).await;
    ann_again
        .until(|m| matches!(m, ServerMsg::Snapshot { .. }).then_some(()))
        .await;
    drop(ann_again);

    // The reserve filled from many addresses, two each: past it, sockets are refused at
    // once, whatever they want.
    let mut reserve = Vec::new();
    for i in 10..40 {
        let (held, seen) = fill_from(&format!("127.0.0.{i}"), addr, 3).await;
        reserve.extend(held);
        if seen.is_empty() {
            continue;
        }
        assert!(seen.starts_with("HTTP/1.1 503"), "{seen}");
    }
    let mut late = connect_from("127.0.0.99", addr).await;
    late.write_all(b"GET /healthz HTTP/1.1\r\nHost: pokerd\r\n\r\n")
        .await
        .unwrap();
    let seen = closed_within(&mut late, Duration::from_secs(5))
        .await
        .expect("refused at once");
    assert!(
        seen.is_empty() || (seen.starts_with("HTTP/1.1 503") && seen.contains("\"busy\"")),
        "{seen}"
    );
    // The players already seated keep playing.
    play(&mut players, &table, 2, |_, _, legal| {
        simple_action(legal, false)
    })
    .await;
    players[0].send(&ClientMsg::ListTables).await;
    players[0]
        .until(|m| matches!(m, ServerMsg::Tables { .. }).then_some(()))
        .await;

    // The attack over, the room is whole again.
    drop(attack);
    drop(reserve);
    let mut whole = false;
    for _ in 0..50 {
        // Until the server has seen them closed, a socket may still be refused.
        let answered = reqwest::Client::new()
            .get(format!("{}/api/me", server.base))
            .bearer_auth(&cat_token)
            .send()
            .await;
        if answered.is_ok_and(|r| r.status() == 200) {
            whole = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(whole, "served again once the attack's sockets are closed");
    server.stop().await;
}

/// `pokerd` run under `prlimit` with this open-file limit (`soft:hard`), logging JSON;
/// its address and the lines it logged until it said how many connections it takes.
fn pokerd_limited(
    nofile: &str,
    url: &str,
    settings: &[(&str, &str)],
) -> Option<(std::process::Child, SocketAddr, Vec<String>)> {
    use std::io::{BufRead, BufReader};
    if std::process::Command::new("prlimit")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: prlimit (util-linux) is not installed");
        return None;
    }
    let mut command = std::process::Command::new("prlimit");
    command
        .arg(format!("--nofile={nofile}"))
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_pokerd"))
        .env_remove("RUST_LOG")
        .env("DATABASE_URL", url)
        .env("POKER__SERVER__ADDR", "127.0.0.1:0")
        .env("POKER__ADMIN__TOKEN", common::TOKEN)
        .env("POKER__ROOM__MONEY", "real")
        .env("POKER__ROOM__SAME_ADDRESS_SEATING", "allow")
        .env("POKER__LOG__FORMAT", "json")
        .envs(common::LOOSE_RATE_LIMITS)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    for (k, v) in settings {
        command.env(k, v);
    }
    let mut child = command.spawn().expect("pokerd starts under prlimit");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut said = Vec::new();
    let mut addr = None;
    loop {
        let line = lines.next().expect("pokerd logs its start").unwrap();
        let event: Value = serde_json::from_str(&line).expect("a JSON log line");
        let message = event["fields"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if let Some(rest) = message.split("listening on http://").nth(1) {
            addr = Some(rest.split_whitespace().next().unwrap().parse().unwrap());
        }
        let done = message.starts_with("connections:");
        said.push(message);
        if done {
            break;
        }
    }
    std::thread::spawn(move || for _ in lines.by_ref() {});
    Some((child, addr.expect("an address"), said))
}

#[test]
fn pokerd_raises_its_open_file_soft_limit_to_the_hard_limit_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("p.db").display());
    let Some((mut child, _, said)) = pokerd_limited("200:4096", &url, &[]) else {
        return;
    };
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        said.iter()
            .any(|m| m == "open files: the soft limit raised from 200 to 4096"),
        "{said:?}"
    );
    // The default 64 files kept for the rest, 64 connections of them the reserve.
    assert!(
        said.iter()
            .any(|m| m == "connections: 4032 at most, the last 64 a reserve, 64 per address"),
        "{said:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pokerd_at_its_open_file_limit_keeps_health_logins_and_seated_players_going() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("p.db").display());
    // 256 files: 64 kept for the database and logs, 192 connections, the last 32 the
    // reserve.
    let Some((mut child, addr, said)) = pokerd_limited(
        "256:256",
        &url,
        &[
            ("POKER__SERVER__RESERVE_CONNECTIONS", "32"),
            ("POKER__SERVER__HEADER_TIMEOUT_MS", "600000"),
        ],
    ) else {
        return;
    };
    assert!(
        said.iter()
            .any(|m| m == "connections: 192 at most, the last 32 a reserve, 64 per address"),
        "{said:?}"
    );
    let server = Server::external(addr, &url);
    let table = server
        .table(json!({ "action_ms": 30_000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 }))
        .await;
    server.player("ann", 1000).await;
    server.player("ben", 1000).await;
    server.player("cat", 1000).await;
    let mut ann = server.client("ann").await;
    let mut ben = server.client("ben").await;
    ann.send(&sit(&table, 0, 200)).await;
    ben.send(&sit(&table, 1, 200)).await;
    let mut players = [ann, ben];
    play(&mut players, &table, 1, |_, _, legal| {
        simple_action(legal, false)
    })
    .await;

    // Addresses fill the room, 64 sockets each, until it is at its reserve.
    let mut attack = Vec::new();
    for i in 10..20 {
        let (held, seen) = fill_from(&format!("127.0.0.{i}"), addr, 64).await;
        attack.extend(held);
        if seen.contains("\"busy\"") {
            break;
        }
    }
    assert!(attack.len() >= 150, "{} held", attack.len());
    // Health, logins and the players at the table go on; the rest waits.
    let (status, _) = request_from("127.0.0.100", &server, "GET", "/healthz", None, None).await;
    assert_eq!(status, 200);
    let (status, body) = request_from(
        "127.0.0.101",
        &server,
        "POST",
        "/login",
        None,
        Some(json!({ "name": "cat", "password": "password1" })),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let cat = body["token"].as_str().unwrap().to_string();
    let (status, _) =
        request_from("127.0.0.102", &server, "GET", "/api/me", Some(&cat), None).await;
    assert_eq!(status, 503);
    play(&mut players, &table, 2, |_, _, legal| {
        simple_action(legal, false)
    })
    .await;
    // The reserve taken too: new sockets are refused at once, the table plays on.
    for i in 110..140 {
        let (held, _) = fill_from(&format!("127.0.0.{i}"), addr, 3).await;
        attack.extend(held);
    }
    let mut late = connect_from("127.0.0.200", addr).await;
    let seen = closed_within(&mut late, Duration::from_secs(5))
        .await
        .expect("refused at once");
    assert!(
        seen.starts_with("HTTP/1.1 503") && seen.contains("\"busy\""),
        "{seen}"
    );
    play(&mut players, &table, 2, |_, _, legal| {
        simple_action(legal, false)
    })
    .await;
    drop(attack);
    let _ = child.kill();
    let _ = child.wait();
}
