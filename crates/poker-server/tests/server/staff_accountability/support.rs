//! What the staff accountability tests share: HTTP requests from an address (as behind a
//! proxy), staff accounts and their sessions, the audit log, the raw database and a
//! socket's closing.

use super::*;

pub(super) const FROM_PROXY: (&str, &str) =
    ("POKER__SERVER__CLIENT_ADDRESS_HEADER", "x-forwarded-for");

/// Any request, from an address, with or without a bearer token.
pub(super) async fn send(
    server: &Server,
    method: &str,
    path: &str,
    token: Option<&str>,
    from: &str,
    body: Option<Value>,
) -> Answer {
    let how = Req {
        token,
        forwarded_for: Some(from),
        body,
        ..Req::default()
    };
    server.send(method, path, how).await
}

pub(super) async fn get(server: &Server, path: &str, token: &str) -> Answer {
    send(server, "GET", path, Some(token), "10.0.0.1", None).await
}

pub(super) async fn post(server: &Server, path: &str, token: &str, body: Value) -> Answer {
    send(server, "POST", path, Some(token), "10.0.0.1", Some(body)).await
}

pub(super) async fn login(server: &Server, name: &str, password: &str) -> Answer {
    send(
        server,
        "POST",
        "/login",
        None,
        "10.0.0.1",
        Some(json!({ "name": name, "password": password })),
    )
    .await
}

/// A staff account made with the admin token, and a session of theirs.
pub(super) async fn staff(server: &Server, name: &str, role: &str) -> (String, String) {
    let made = post(
        server,
        "/admin/staff",
        TOKEN,
        json!({ "name": name, "password": "staffpass1", "role": role }),
    )
    .await;
    assert_eq!(made.status, 201, "{}", made.body);
    (
        made.body["staff_id"].as_str().unwrap().to_string(),
        staff_login(server, name, "staffpass1").await,
    )
}

pub(super) async fn staff_login(server: &Server, name: &str, password: &str) -> String {
    let r = send(
        server,
        "POST",
        "/admin/login",
        None,
        "10.0.0.1",
        Some(json!({ "name": name, "password": password })),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.body["token"].as_str().unwrap().to_string()
}

/// The audit log's (actor, action, target) lines, newest first.
pub(super) async fn audit_lines(server: &Server) -> Vec<(String, String, String)> {
    let log = get(server, "/admin/audit-log?limit=500", TOKEN).await.body;
    log.as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["actor"].as_str().unwrap().to_string(),
                e["action"].as_str().unwrap().to_string(),
                e["target"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// A raw connection to the server's database, with the statement in its dialect.
pub(super) async fn raw(server: &Server) -> (sqlx::AnyPool, impl Fn(&str) -> String) {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&server.url).await.unwrap();
    let sqlite = server.url.starts_with("sqlite");
    (pool, move |sql: &str| {
        if sqlite {
            sql.replace('$', "?")
        } else {
            sql.to_string()
        }
    })
}

/// Whether the socket is told its session ended and is closed.
pub(super) async fn closed(c: &mut Client) -> bool {
    loop {
        match c.recv_or_closed(Duration::from_secs(5)).await {
            Received::Closed => return true,
            Received::Quiet => return false,
            Received::Msg(_) => continue,
        }
    }
}
