//! The players' side: `POST /login` and `POST /register` (name and password give a random
//! session token, stored only as its SHA-256 hash, expiring), `POST /logout`, and the
//! WebSocket at `/ws` speaking the protocol of `poker-protocol`, one JSON message per text
//! frame.
//!
//! Each connection `select!`s over its client's frames, one bounded queue that the tables
//! it joined send into, and lobby updates once it listed the tables. Bad input (malformed
//! JSON, unknown messages, oversized frames, floods, unknown tables, out-of-turn or stale
//! actions) is answered with a typed error; the connection, the tables and every chip
//! carry on. On authenticating, a connection joins every table where the player is seated
//! and gets a snapshot of each: this is how a dropped player reconnects.

use crate::table::SeatRequest;
use crate::AppState;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::{SinkExt, StreamExt};
use poker_protocol::{parse_client, ClientMsg, ErrorCode, ServerMsg};
use poker_rules::table::Entry;
use poker_store::{names, now_ms, Player, PlayerId, Store, StoreError, TableId};
use rand::RngCore;
use serde::Deserialize;
use serde_json::json;
use sha2::{Digest, Sha256};
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::{broadcast, mpsc};

/// The players' routes.
pub fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/login", post(login))
        .route("/register", post(register))
        .route("/logout", post(logout))
        .route("/ws", get(ws))
        .route("/api/me", get(me))
        .route("/api/me/hands", get(my_hands))
        .route("/api/me/hands/{id}", get(my_hand))
}

/// The player of the session named by `Authorization: Bearer TOKEN`.
async fn session_player(state: &AppState, headers: &HeaderMap) -> Result<Player, Response> {
    let token = crate::admin::bearer(headers);
    let unauthorized = || {
        refused(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "log in: the session token is missing, unknown or expired",
        )
    };
    let Some(token) = token else {
        return Err(unauthorized());
    };
    match state.store.session(&token_hash(token)).await {
        Ok(Some(p)) => Ok(p),
        _ => Err(unauthorized()),
    }
}

/// `GET /api/me`: who the session is, with the wallet balance.
async fn me(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let me = match session_player(&state, &headers).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    let balance = state.store.balance(me.player_id).await.unwrap_or(0);
    Json(json!({
        "player_id": me.player_id.to_string(),
        "name": me.name,
        "balance": balance,
    }))
    .into_response()
}

/// `GET /api/me/hands?limit=N`: the player's recent hands, newest first, with their
/// result.
async fn my_hands(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    axum::extract::Query(q): axum::extract::Query<std::collections::HashMap<String, String>>,
) -> Response {
    let me = match session_player(&state, &headers).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    let limit = q
        .get("limit")
        .and_then(|l| l.parse().ok())
        .unwrap_or(20u32)
        .clamp(1, 100);
    let rows = match state.store.player_hands(me.player_id, limit, 0).await {
        Ok(rows) => rows,
        Err(e) => {
            eprintln!("pokerd: hands of a player: {e}");
            return refused(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "internal error",
            );
        }
    };
    let names: std::collections::HashMap<TableId, String> = state
        .store
        .tables()
        .await
        .map(|t| t.into_iter().map(|t| (t.table_id, t.name)).collect())
        .unwrap_or_default();
    let me_id = me.player_id.to_string();
    let hands: Vec<serde_json::Value> = rows
        .into_iter()
        .filter(|r| r.status == "complete")
        .map(|r| {
            let record = r.record.clone().unwrap_or_default();
            let index = record["seat_players"]
                .as_array()
                .and_then(|a| a.iter().position(|p| p.as_str() == Some(me_id.as_str())));
            let net = index.and_then(|i| {
                let start = record["starting_stacks"][i].as_i64()?;
                let end = record["finishing_stacks"][i].as_i64()?;
                Some(end - start)
            });
            json!({
                "hand_id": r.hand_id.to_string(),
                "table_id": r.table_id.to_string(),
                "table_name": names.get(&r.table_id).cloned().unwrap_or_default(),
                "number": r.number,
                "started_at": r.started_at,
                "net": net,
                "board": record["board"],
            })
        })
        .collect();
    Json(serde_json::Value::Array(hands)).into_response()
}

/// `GET /api/me/hands/{id}`: one of the player's hands as PokerStars text, with only
/// their own hole cards and those shown at showdown.
async fn my_hand(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> Response {
    let me = match session_player(&state, &headers).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    let not_found = || refused(StatusCode::NOT_FOUND, "not_found", "hand not found");
    let Ok(hand) = id.parse() else {
        return not_found();
    };
    let Ok(row) = state.store.hand(hand).await else {
        return not_found();
    };
    let text = match crate::admin::Names::load(&state).await {
        Ok(names) => crate::admin::pokerstars_text(&names, &row, Some(me.player_id)),
        Err(e) => Err(e),
    };
    match text {
        Ok(text) => (
            [(
                axum::http::header::CONTENT_TYPE,
                "text/plain; charset=utf-8",
            )],
            text,
        )
            .into_response(),
        Err(e) => e.into_response(),
    }
}

fn token_hash(token: &str) -> String {
    format!("{:x}", Sha256::digest(token.as_bytes()))
}

#[derive(Deserialize)]
pub(crate) struct Credentials {
    name: String,
    password: String,
}

fn refused(status: StatusCode, code: &str, message: &str) -> Response {
    (status, Json(json!({ "error": code, "message": message }))).into_response()
}

/// Issues a session token for the player: only its hash is stored.
async fn new_session(state: &AppState, player: &Player) -> Response {
    let mut raw = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut raw);
    let token: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    let expires_at = now_ms() + i64::from(state.config.server.session_hours) * 3_600_000;
    if let Err(e) = state
        .store
        .create_session(&token_hash(&token), player.player_id, expires_at)
        .await
    {
        eprintln!("pokerd: cannot store a session: {e}");
        return refused(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "internal error",
        );
    }
    Json(json!({
        "token": token,
        "player_id": player.player_id.to_string(),
        "name": player.name,
        "expires_at": expires_at,
    }))
    .into_response()
}

/// `POST /login`. Guarded by [`crate::accounts`]: lockouts per name and address, the
/// password checked off the async workers, unknown names as slow as wrong passwords.
pub(crate) async fn login(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Result<Json<Credentials>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let Ok(Json(body)) = body else {
        return refused(
            StatusCode::BAD_REQUEST,
            "bad_request",
            "send {\"name\", \"password\"}",
        );
    };
    let server = &state.config.server;
    let ip = crate::accounts::client_address(server, peer, &headers);
    let key = names::player_name(&body.name)
        .map(|n| names::name_key(&n))
        .unwrap_or_else(|_| body.name.clone());
    if let Err(too_many) = state.accounts.may_login(server, &key, ip) {
        return too_many.into_response();
    }
    let player = if names::password_ok(&body.password) {
        match state.store.player_by_name(&body.name).await {
            Ok(player) => Some(player),
            Err(StoreError::NotFound(_) | StoreError::BadName(_)) => None,
            Err(e) => {
                eprintln!("pokerd: cannot look up a player: {e}");
                return refused(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "internal error",
                );
            }
        }
    } else {
        None
    };
    let hash = player.as_ref().map(|p| p.password_hash.clone());
    // A password no account can have is not hashed at all (it could be megabytes).
    let password = if names::password_ok(&body.password) {
        body.password
    } else {
        String::new()
    };
    let right = match state.accounts.verify(password, hash).await {
        Ok(right) => right,
        Err(e) => return e.into_response(),
    };
    match player {
        Some(player) if right => {
            state.accounts.logged_in(&key, ip);
            new_session(&state, &player).await
        }
        _ => {
            state.accounts.failed_login(&key, ip);
            refused(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "wrong name or password",
            )
        }
    }
}

/// `POST /register`, when the configuration allows it: a name by the rules of
/// [`names`], a password of 8 to 256 characters, a few accounts per address and window.
pub(crate) async fn register(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Result<Json<Credentials>, axum::extract::rejection::JsonRejection>,
) -> Response {
    if !state.config.server.allow_registration {
        return refused(
            StatusCode::FORBIDDEN,
            "registration_closed",
            "ask the operator for an account",
        );
    }
    let Ok(Json(body)) = body else {
        return refused(
            StatusCode::BAD_REQUEST,
            "bad_request",
            "send {\"name\", \"password\"}",
        );
    };
    let name = match names::player_name(&body.name) {
        Ok(name) => name,
        Err(e) => return crate::admin::ApiError::from(e).into_response(),
    };
    if !names::password_ok(&body.password) {
        return refused(
            StatusCode::BAD_REQUEST,
            "invalid_password",
            crate::accounts::PASSWORD_RULE,
        );
    }
    let ip = crate::accounts::client_address(&state.config.server, peer, &headers);
    if let Err(too_many) = state.accounts.may_register(&state.config.server, ip) {
        return too_many.into_response();
    }
    let hash = match state.accounts.hash(body.password).await {
        Ok(hash) => hash,
        Err(e) => return e.into_response(),
    };
    match state.store.create_player(&name, &hash).await {
        Ok(_) => {}
        Err(StoreError::NameTaken) => {
            return refused(StatusCode::CONFLICT, "name_taken", "the name is taken")
        }
        Err(e) => {
            eprintln!("pokerd: cannot register: {e}");
            return refused(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "internal error",
            );
        }
    }
    match state.store.player_by_name(&name).await {
        Ok(player) => new_session(&state, &player).await,
        Err(_) => refused(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "internal error",
        ),
    }
}

/// `POST /logout` with `Authorization: Bearer TOKEN`.
pub(crate) async fn logout(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    if let Some(token) = crate::admin::bearer(&headers) {
        let hash = token_hash(token);
        let _ = state.store.delete_session(&hash).await;
        // Every WebSocket of the session is refused from now on and closed.
        let _ = state.ended_sessions.send(hash);
    }
    StatusCode::NO_CONTENT.into_response()
}

/// `GET /ws`.
/// Whether a page from `origin` may open the WebSocket: the server's own pages (the
/// origin's host is the `Host` asked for), the configured origins, or any with `*`.
fn origin_allowed(state: &AppState, headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(axum::http::header::ORIGIN) else {
        return true; // not a browser
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let host = headers
        .get(axum::http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    let own = origin
        .split_once("://")
        .is_some_and(|(_, rest)| !host.is_empty() && rest.eq_ignore_ascii_case(host));
    own || state
        .config
        .server
        .allowed_origins
        .split(',')
        .map(str::trim)
        .any(|o| o == "*" || (!o.is_empty() && o.eq_ignore_ascii_case(origin)))
}

pub(crate) async fn ws(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    if !origin_allowed(&state, &headers) {
        return refused(
            StatusCode::FORBIDDEN,
            "forbidden_origin",
            "pages from this origin may not open the WebSocket (server.allowed_origins)",
        );
    }
    // Frames up to 1 MiB are read and answered; the configured limit is enforced per
    // message with a typed error, so an oversized frame does not cost the connection.
    // Messages are small: a 4 KiB read buffer instead of the default 128 KiB, which the
    // codec zero-fills on every read (a quarter of the CPU under load, measured).
    upgrade
        .read_buffer_size(4096)
        .max_message_size(1 << 20)
        .on_upgrade(move |socket| connection(state, socket))
}

/// A token bucket: `rate` messages per second on average, `burst` at once.
struct RateLimit {
    tokens: f64,
    rate: f64,
    burst: f64,
    last: Instant,
}

impl RateLimit {
    fn allow(&mut self) -> bool {
        let now = Instant::now();
        let refill = now.duration_since(self.last).as_secs_f64() * self.rate;
        self.tokens = (self.tokens + refill).min(self.burst);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// What one connection knows.
struct Conn {
    me: Option<Player>,
    joined: Vec<TableId>,
    out: mpsc::Sender<ServerMsg>,
    lobby: Option<broadcast::Receiver<poker_protocol::TableSummary>>,
    /// The decisions this client was asked and has not answered, by table: an answer
    /// to one of them is never rate-limited.
    asked: Vec<(String, u64)>,
    /// The session authenticated with (token hash) and when it expires.
    session: Option<(String, tokio::time::Instant)>,
}

/// Replies and lobby updates wait here for the socket, in order with the tables'
/// messages; a client that reads nothing while sending this many requests is closed.
const MAX_UNREAD_REPLIES: usize = 256;

/// Notes the decisions a message asks of this client.
fn note_asked(asked: &mut Vec<(String, u64)>, msg: &ServerMsg) {
    let (table_id, decision_id) = match msg {
        ServerMsg::Decide {
            table_id,
            decision_id,
            ..
        }
        | ServerMsg::DecideDraw {
            table_id,
            decision_id,
        }
        | ServerMsg::DecideRunTwice {
            table_id,
            decision_id,
        } => (table_id, *decision_id),
        ServerMsg::Snapshot {
            decide: Some(d), ..
        } => return note_asked(asked, d),
        _ => return,
    };
    asked.retain(|(t, _)| t != table_id);
    asked.push((table_id.clone(), decision_id));
}

struct Gauge<'a>(&'a AppState);

impl Drop for Gauge<'_> {
    fn drop(&mut self) {
        self.0.metrics.connections.fetch_sub(1, Ordering::Relaxed);
    }
}

async fn next_lobby(
    rx: &mut Option<broadcast::Receiver<poker_protocol::TableSummary>>,
) -> Result<poker_protocol::TableSummary, broadcast::error::RecvError> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

async fn connection(state: Arc<AppState>, socket: WebSocket) {
    state.metrics.connections.fetch_add(1, Ordering::Relaxed);
    let _gauge = Gauge(&state);
    let (mut sink, mut stream) = socket.split();
    let (out_tx, mut out_rx) = mpsc::channel::<ServerMsg>(1024);
    let mut conn = Conn {
        me: None,
        joined: Vec::new(),
        out: out_tx,
        lobby: None,
        asked: Vec::new(),
        session: None,
    };
    let mut ended_sessions = state.ended_sessions.subscribe();
    // Answers to this client's own messages and lobby updates. They never share the
    // tables' bounded queue, so a slow reader cannot lose them: the tables resync such a
    // client with a snapshot instead (a lobby that fell behind is sent whole).
    let mut replies: std::collections::VecDeque<ServerMsg> = std::collections::VecDeque::new();
    let mut lobby_behind = false;
    let server = &state.config.server;
    let mut limit = RateLimit {
        tokens: f64::from(server.rate_limit_burst),
        rate: f64::from(server.rate_limit_per_sec),
        burst: f64::from(server.rate_limit_burst),
        last: Instant::now(),
    };
    let mut shutting_down = state.shutting_down.clone();
    if *shutting_down.borrow_and_update() {
        return;
    }
    loop {
        tokio::select! {
            _ = shutting_down.changed() => {
                let _ = sink.send(Message::Close(None)).await;
                break;
            }
            ended = ended_sessions.recv(), if conn.session.is_some() => {
                let mine = conn.session.as_ref().map(|(h, _)| h.as_str());
                let over = match ended {
                    Ok(hash) => Some(hash.as_str()) == mine,
                    // Missed some: ask the store whether this session still stands.
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        matches!(state.store.session_expiry(mine.unwrap_or_default()).await, Ok(None))
                    }
                    Err(broadcast::error::RecvError::Closed) => false,
                };
                if over {
                    session_over(&mut sink, "the session ended (logged out)").await;
                    break;
                }
            }
            _ = sleep_until_expiry(&conn.session) => {
                session_over(&mut sink, "the session expired: log in again").await;
                break;
            }
            frame = stream.next() => {
                let frame = match frame {
                    None => break,
                    Some(Ok(frame)) => frame,
                    Some(Err(e)) => {
                        // A frame the WebSocket layer refused (invalid UTF-8 in a text
                        // frame, a protocol violation): the connection cannot go on
                        // (RFC 6455 7.1.7), so it is told why and closed properly.
                        let error = ServerMsg::error(
                            ErrorCode::BadMessage,
                            format!("the frame breaks the WebSocket protocol: {e}"),
                        );
                        close_with(&mut sink, Some(error), 1007, "invalid frame").await;
                        break;
                    }
                };
                let text = match frame {
                    Message::Text(t) => t.to_string(),
                    Message::Binary(_) => {
                        replies.push_back(ServerMsg::error(ErrorCode::BadMessage, "send JSON text frames"));
                        continue;
                    }
                    Message::Close(_) => break,
                    _ => continue,
                };
                state.metrics.messages.fetch_add(1, Ordering::Relaxed);
                let reply = if text.len() > server.max_frame_bytes {
                    limited(&mut limit, &state).or(Some(ServerMsg::error(
                        ErrorCode::FrameTooLarge,
                        format!("frames are limited to {} bytes", server.max_frame_bytes),
                    )))
                } else {
                    match parse_client(&text) {
                        Err(error) => limited(&mut limit, &state).or(Some(error)),
                        Ok(msg) => {
                            // An answer to a decision this client was asked is never
                            // rate-limited; everything else is.
                            let answers = match &msg {
                                ClientMsg::Act { table_id, decision_id, .. } => {
                                    let pos = conn.asked.iter().position(|(t, d)| t == table_id && d == decision_id);
                                    pos.map(|i| conn.asked.remove(i)).is_some()
                                }
                                _ => false,
                            };
                            match if answers { None } else { limited(&mut limit, &state) } {
                                Some(refusal) => Some(refusal),
                                None => handle(&state, &mut conn, msg).await,
                            }
                        }
                    }
                };
                if let Some(reply) = reply {
                    if replies.len() >= MAX_UNREAD_REPLIES {
                        // Sends and never reads: told so and closed.
                        close_with(&mut sink, None, 1008, "too many unread replies").await;
                        break;
                    }
                    replies.push_back(reply);
                }
            }
            update = next_lobby(&mut conn.lobby) => {
                match update {
                    Ok(table) if replies.len() < MAX_UNREAD_REPLIES => replies.push_back(ServerMsg::TableUpdate { table }),
                    // Missed updates: the whole lobby again, once the client reads.
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => lobby_behind = true,
                    Err(broadcast::error::RecvError::Closed) => conn.lobby = None,
                }
            }
            out = out_rx.recv(), if replies.is_empty() => {
                let Some(msg) = out else { break };
                // Whatever else is already queued goes out in the same write.
                let mut batch = vec![msg];
                while batch.len() < 64 {
                    match out_rx.try_recv() {
                        Ok(m) => batch.push(m),
                        Err(_) => break,
                    }
                }
                if write_batch(&mut sink, &mut conn.asked, batch).await.is_err() {
                    break;
                }
            }
            _ = std::future::ready(()), if !replies.is_empty() => {
                // Replies go out before the tables' queue is read again, each batch in
                // one write; a lobby that fell behind follows in one piece.
                let mut batch: Vec<ServerMsg> = replies.drain(..replies.len().min(64)).collect();
                if replies.is_empty() && lobby_behind {
                    lobby_behind = false;
                    batch.push(ServerMsg::Tables { tables: state.lobby.list() });
                }
                if write_batch(&mut sink, &mut conn.asked, batch).await.is_err() {
                    break;
                }
            }
        }
        if lobby_behind && replies.is_empty() {
            lobby_behind = false;
            replies.push_back(ServerMsg::Tables {
                tables: state.lobby.list(),
            });
        }
    }
}

async fn sleep_until_expiry(session: &Option<(String, tokio::time::Instant)>) {
    match session {
        Some((_, at)) => tokio::time::sleep_until(*at).await,
        None => std::future::pending().await,
    }
}

/// Tells the client its session is over and closes the connection (policy violation).
async fn session_over(
    sink: &mut futures_util::stream::SplitSink<WebSocket, Message>,
    why: &'static str,
) {
    let error = ServerMsg::error(ErrorCode::Unauthenticated, why);
    close_with(sink, Some(error), 1008, "session over").await;
}

/// Ends the connection properly: the error saying why (if any), then a close frame.
async fn close_with(
    sink: &mut futures_util::stream::SplitSink<WebSocket, Message>,
    error: Option<ServerMsg>,
    code: u16,
    reason: &'static str,
) {
    if let Some(error) = error {
        let text = serde_json::to_string(&error).expect("messages serialize");
        let _ = sink.send(Message::Text(text.into())).await;
    }
    let _ = sink
        .send(Message::Close(Some(axum::extract::ws::CloseFrame {
            code,
            reason: reason.into(),
        })))
        .await;
}

/// The rate limit's refusal, if this message goes over it.
fn limited(limit: &mut RateLimit, state: &AppState) -> Option<ServerMsg> {
    if limit.allow() {
        return None;
    }
    state.metrics.rate_limited.fetch_add(1, Ordering::Relaxed);
    Some(ServerMsg::error(
        ErrorCode::RateLimited,
        format!(
            "at most {} messages a second: slow down",
            state.config.server.rate_limit_per_sec
        ),
    ))
}

/// Writes messages to the socket in one flush, noting the decisions they ask.
async fn write_batch(
    sink: &mut futures_util::stream::SplitSink<WebSocket, Message>,
    asked: &mut Vec<(String, u64)>,
    batch: Vec<ServerMsg>,
) -> Result<(), axum::Error> {
    for msg in batch {
        note_asked(asked, &msg);
        let text = serde_json::to_string(&msg).expect("messages serialize");
        sink.feed(Message::Text(text.into())).await?;
    }
    sink.flush().await
}

/// Subscribes the connection to a table's messages as this player (a snapshot first).
async fn join(conn: &mut Conn, table: &crate::table::TableHandle, player: PlayerId) {
    table
        .subscribe_with(Some(player), conn.out.clone(), false)
        .await;
    if !conn.joined.contains(&table.table_id) {
        conn.joined.push(table.table_id);
    }
}

fn unknown_table() -> ServerMsg {
    ServerMsg::error(ErrorCode::UnknownTable, "no such table")
}

async fn handle(state: &Arc<AppState>, conn: &mut Conn, msg: ClientMsg) -> Option<ServerMsg> {
    if let ClientMsg::Auth { token } = &msg {
        let hash = token_hash(token);
        let player = match state.store.session(&hash).await {
            Ok(Some(p)) => p,
            Ok(None) => {
                return Some(ServerMsg::error(
                    ErrorCode::Unauthenticated,
                    "the token is unknown or expired",
                ))
            }
            Err(e) => {
                eprintln!("pokerd: session lookup failed: {e}");
                return Some(ServerMsg::error(ErrorCode::Internal, "try again"));
            }
        };
        let welcome = ServerMsg::Welcome {
            player_id: player.player_id.to_string(),
            name: player.name.clone(),
        };
        // The welcome is the reply; replies are written before the tables' queue, so it
        // comes before the snapshot of every table the player sits at.
        let tables: Vec<_> = state.tables.lock().await.values().cloned().collect();
        for table in tables {
            if conn.joined.contains(&table.table_id) {
                continue;
            }
            if table
                .subscribe_with(Some(player.player_id), conn.out.clone(), true)
                .await
            {
                conn.joined.push(table.table_id);
            }
        }
        // The connection lives as long as the session: it closes when the session
        // expires or logs out.
        let expires = state
            .store
            .session_expiry(&hash)
            .await
            .ok()
            .flatten()
            .unwrap_or(0);
        let left = u64::try_from(expires - now_ms()).unwrap_or(0);
        conn.session = Some((
            hash,
            tokio::time::Instant::now() + std::time::Duration::from_millis(left),
        ));
        conn.me = Some(player);
        return Some(welcome);
    }
    if matches!(msg, ClientMsg::Ping) {
        return Some(ServerMsg::Pong);
    }
    let Some(me) = conn.me.clone() else {
        return Some(ServerMsg::error(
            ErrorCode::Unauthenticated,
            "authenticate first",
        ));
    };
    if matches!(msg, ClientMsg::ListTables) {
        if conn.lobby.is_none() {
            conn.lobby = Some(state.lobby.subscribe());
        }
        return Some(ServerMsg::Tables {
            tables: state.lobby.list(),
        });
    }
    let table_id = match &msg {
        ClientMsg::Sit { table_id, .. }
        | ClientMsg::Watch { table_id }
        | ClientMsg::Unwatch { table_id }
        | ClientMsg::Act { table_id, .. }
        | ClientMsg::SitOut { table_id, .. }
        | ClientMsg::SitIn { table_id, .. }
        | ClientMsg::TopUp { table_id, .. }
        | ClientMsg::Leave { table_id } => table_id.clone(),
        ClientMsg::Auth { .. } | ClientMsg::Ping | ClientMsg::ListTables => return None,
    };
    let Ok(id) = table_id.parse::<TableId>() else {
        return Some(unknown_table());
    };
    let Some(table) = state.table(id).await else {
        return Some(unknown_table());
    };
    let done = |request: &str, r: Result<crate::table::Outcome, (ErrorCode, String)>| {
        Some(match r {
            Ok(o) => ServerMsg::Done {
                table_id: table_id.clone(),
                request: request.to_string(),
                amount: o.amount,
                pending: o.pending,
            },
            Err((code, message)) => ServerMsg::Error { code, message },
        })
    };
    let request = match msg {
        ClientMsg::Sit {
            seat,
            buy_in,
            post_now,
            ..
        } => {
            let entry = if post_now {
                Entry::PostNow
            } else {
                Entry::WaitForBigBlind
            };
            // Subscribed as this player only once seated (a snapshot comes first, with
            // the player in the seat); a refused sit changes nothing.
            let result = table
                .sit_with(
                    me.player_id,
                    me.name.clone(),
                    seat,
                    buy_in,
                    entry,
                    Some(conn.out.clone()),
                )
                .await;
            if result.is_ok() && !conn.joined.contains(&id) {
                conn.joined.push(id);
            }
            return done("sit", result);
        }
        ClientMsg::Watch { .. } => {
            // As this player: a spectator sees no hole cards but their own, and a seated
            // player watching again keeps theirs.
            join(conn, &table, me.player_id).await;
            return None;
        }
        ClientMsg::Unwatch { .. } => {
            table.unsubscribe(conn.out.clone()).await;
            conn.joined.retain(|t| *t != id);
            return None;
        }
        ClientMsg::Act {
            decision_id,
            action,
            ..
        } => {
            return match table.act(me.player_id, decision_id, action).await {
                Ok(()) => None,
                Err((code, message)) => Some(ServerMsg::error(code, message)),
            }
        }
        ClientMsg::SitOut { next_big_blind, .. } => SeatRequest::SitOut { next_big_blind },
        ClientMsg::SitIn { post_now, .. } => SeatRequest::SitIn { post_now },
        ClientMsg::TopUp { amount, .. } => SeatRequest::TopUp { amount },
        ClientMsg::Leave { .. } => SeatRequest::Leave,
        ClientMsg::Auth { .. } | ClientMsg::Ping | ClientMsg::ListTables => return None,
    };
    let result = table.seat(me.player_id, request).await;
    done(request.name(), result)
}
