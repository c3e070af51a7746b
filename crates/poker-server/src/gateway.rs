//! The players' side: `POST /login` (name and password give a random session token,
//! kept only as its SHA-256 hash and expiring), and the WebSocket at `/ws` speaking the
//! protocol of `poker-protocol`, one JSON message per text frame.
//!
//! Each connection `select!`s over its client's frames and one bounded queue that the
//! tables it joined send into. Bad input (malformed JSON, unknown messages, oversized
//! frames, unknown tables, out-of-turn or stale actions) is answered with a typed error;
//! the connection, the tables and every chip carry on.

use crate::AppState;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures_util::{SinkExt, StreamExt};
use poker_protocol::{parse_client, ClientMsg, ErrorCode, ServerMsg, TableSummary};
use poker_store::{now_ms, verify_password, PlayerId, Store, TableId};
use rand::RngCore;
use serde::Deserialize;
use serde_json::json;
use sha2::{Digest, Sha256};
use std::sync::Arc;
use tokio::sync::mpsc;

/// How long a session lasts.
const SESSION_MS: i64 = 12 * 3600 * 1000;

/// A logged-in player.
#[derive(Clone, Debug)]
pub struct Session {
    /// Who.
    pub player_id: PlayerId,
    /// Their name.
    pub name: String,
    /// When the token stops working (unix ms).
    pub expires_at: i64,
}

fn token_hash(token: &str) -> String {
    format!("{:x}", Sha256::digest(token.as_bytes()))
}

#[derive(Deserialize)]
pub(crate) struct Login {
    name: String,
    password: String,
}

/// `POST /login`.
pub(crate) async fn login(State(state): State<Arc<AppState>>, Json(body): Json<Login>) -> Response {
    let refused = || {
        (
            StatusCode::UNAUTHORIZED,
            Json(json!({ "error": "unauthorized", "message": "wrong name or password" })),
        )
            .into_response()
    };
    let Ok(player) = state.store.player_by_name(&body.name).await else {
        return refused();
    };
    if !verify_password(&body.password, &player.password_hash) {
        return refused();
    }
    let mut raw = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut raw);
    let token: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    state.sessions.lock().await.insert(
        token_hash(&token),
        Session {
            player_id: player.player_id,
            name: player.name.clone(),
            expires_at: now_ms() + SESSION_MS,
        },
    );
    Json(json!({ "token": token, "player_id": player.player_id.to_string() })).into_response()
}

/// `GET /ws`.
pub(crate) async fn ws(State(state): State<Arc<AppState>>, upgrade: WebSocketUpgrade) -> Response {
    // Frames up to 1 MiB are read and answered; the configured limit is enforced per
    // message with a typed error, so an oversized frame does not cost the connection.
    upgrade
        .max_message_size(1 << 20)
        .on_upgrade(move |socket| connection(state, socket))
}

async fn connection(state: Arc<AppState>, socket: WebSocket) {
    let (mut sink, mut stream) = socket.split();
    let (out_tx, mut out_rx) = mpsc::channel::<ServerMsg>(1024);
    let mut me: Option<Session> = None;
    let mut joined: Vec<TableId> = Vec::new();
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
            frame = stream.next() => {
                let Some(Ok(frame)) = frame else { break };
                let text = match frame {
                    Message::Text(t) => t.to_string(),
                    Message::Binary(_) => {
                        let _ = out_tx.try_send(ServerMsg::error(ErrorCode::BadMessage, "send JSON text frames"));
                        continue;
                    }
                    Message::Close(_) => break,
                    _ => continue,
                };
                let reply = if text.len() > state.config.server.max_frame_bytes {
                    Some(ServerMsg::error(
                        ErrorCode::FrameTooLarge,
                        format!("frames are limited to {} bytes", state.config.server.max_frame_bytes),
                    ))
                } else {
                    match parse_client(&text) {
                        Err(error) => Some(error),
                        Ok(msg) => handle(&state, &mut me, &mut joined, &out_tx, msg).await,
                    }
                };
                if let Some(reply) = reply {
                    if out_tx.try_send(reply).is_err() {
                        break;
                    }
                }
            }
            out = out_rx.recv() => {
                let Some(msg) = out else { break };
                let text = serde_json::to_string(&msg).expect("messages serialize");
                if sink.send(Message::Text(text.into())).await.is_err() {
                    break;
                }
            }
        }
    }
}

async fn handle(
    state: &Arc<AppState>,
    me: &mut Option<Session>,
    joined: &mut Vec<TableId>,
    out: &mpsc::Sender<ServerMsg>,
    msg: ClientMsg,
) -> Option<ServerMsg> {
    if let ClientMsg::Auth { token } = &msg {
        let session = state.sessions.lock().await.get(&token_hash(token)).cloned();
        return Some(match session {
            Some(s) if s.expires_at > now_ms() => {
                let welcome = ServerMsg::Welcome {
                    player_id: s.player_id.to_string(),
                    name: s.name.clone(),
                };
                *me = Some(s);
                welcome
            }
            _ => ServerMsg::error(
                ErrorCode::Unauthenticated,
                "the token is unknown or expired",
            ),
        });
    }
    if matches!(msg, ClientMsg::Ping) {
        return Some(ServerMsg::Pong);
    }
    let Some(session) = me.as_ref() else {
        return Some(ServerMsg::error(
            ErrorCode::Unauthenticated,
            "authenticate first",
        ));
    };
    let table_of = |id: &str| -> Result<TableId, ServerMsg> {
        id.parse()
            .map_err(|_| ServerMsg::error(ErrorCode::UnknownTable, "no such table"))
    };
    match msg {
        ClientMsg::ListTables => {
            let tables = match state.store.tables().await {
                Ok(t) => t,
                Err(_) => return Some(ServerMsg::error(ErrorCode::Internal, "try again")),
            };
            let mut out = Vec::new();
            for t in tables.into_iter().filter(|t| t.status == "open") {
                let rules: serde_json::Value = serde_json::from_str(&t.config).unwrap_or_default();
                let players = state
                    .store
                    .seats(t.table_id)
                    .await
                    .map(|s| s.len())
                    .unwrap_or(0);
                out.push(TableSummary {
                    table_id: t.table_id.to_string(),
                    name: t.name,
                    game: rules["game"].as_str().unwrap_or("").to_string(),
                    stakes: format!("{}/{}", rules["small_blind"], rules["big_blind"]),
                    players: players as u32,
                    seats: rules["seat_count"].as_u64().unwrap_or(0) as u32,
                });
            }
            Some(ServerMsg::Tables { tables: out })
        }
        ClientMsg::Sit {
            table_id,
            seat,
            buy_in,
            ..
        } => {
            let id = match table_of(&table_id) {
                Ok(id) => id,
                Err(e) => return Some(e),
            };
            let Some(table) = state.tables.lock().await.get(&id).cloned() else {
                return Some(ServerMsg::error(ErrorCode::UnknownTable, "no such table"));
            };
            if !joined.contains(&id) {
                table
                    .subscribe_with(Some(session.player_id), out.clone())
                    .await;
                joined.push(id);
            }
            match table.sit(session.player_id, seat, buy_in).await {
                Ok(()) => None,
                Err((code, message)) => Some(ServerMsg::error(code, message)),
            }
        }
        ClientMsg::Watch { table_id } => {
            let id = match table_of(&table_id) {
                Ok(id) => id,
                Err(e) => return Some(e),
            };
            let Some(table) = state.tables.lock().await.get(&id).cloned() else {
                return Some(ServerMsg::error(ErrorCode::UnknownTable, "no such table"));
            };
            if !joined.contains(&id) {
                table.subscribe_with(None, out.clone()).await;
                joined.push(id);
            }
            None
        }
        ClientMsg::Act {
            table_id,
            decision_id,
            action,
        } => {
            let id = match table_of(&table_id) {
                Ok(id) => id,
                Err(e) => return Some(e),
            };
            let Some(table) = state.tables.lock().await.get(&id).cloned() else {
                return Some(ServerMsg::error(ErrorCode::UnknownTable, "no such table"));
            };
            match table.act(session.player_id, decision_id, action).await {
                Ok(()) => None,
                Err((code, message)) => Some(ServerMsg::error(code, message)),
            }
        }
        ClientMsg::Auth { .. } | ClientMsg::Ping => None,
    }
}
