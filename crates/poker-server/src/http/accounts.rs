//! The account endpoints: `POST /login`, `POST /register`, `POST /logout` and
//! `POST /reset-password` (a new password with a one-time code staff issued), guarded by
//! [`crate::http::guard`] (lockouts, registration limits, hashing off the async workers).
//!
//! A password changed by staff (with a code, or set by an admin) is told to the player at
//! their next login, once: the login's answer carries `password_reset` (who, when).

use crate::http::error::*;
use crate::sessions::SessionEnd;
use crate::AppState;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use poker_store::{names, now_ms, Player, StoreError};
use rand::RngCore;
use serde::Deserialize;
use serde_json::json;
use std::net::SocketAddr;
use std::sync::Arc;

use super::auth::*;

#[derive(Deserialize)]
pub(crate) struct Credentials {
    name: String,
    password: String,
}

/// Issues a session token for the player: only its hash is stored. With `tell`, a notice
/// of a password changed by staff since their last login is taken and sent with it.
pub(crate) async fn new_session(state: &AppState, player: &Player, tell: bool) -> Response {
    let mut raw = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut raw);
    let token: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    let expires_at = now_ms() + i64::from(state.config.server.session_hours) * 3_600_000;
    if let Err(e) = state
        .store
        .create_session(&token_hash(&token), player.player_id, expires_at)
        .await
    {
        tracing::error!("cannot store a session: {e}");
        return refused(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "internal error",
        );
    }
    let mut answer = json!({
        "token": token,
        "player_id": player.player_id.to_string(),
        "name": player.name,
        "expires_at": expires_at,
    });
    if tell {
        match state.store.take_password_notice(player.player_id).await {
            Ok(Some(notice)) => {
                answer["password_reset"] = json!({ "by": notice.by, "at": notice.at });
            }
            Ok(None) => {}
            Err(e) => tracing::error!("cannot read a password notice: {e}"),
        }
    }
    Json(answer).into_response()
}

/// `POST /login`. Guarded by [`crate::http::guard`]: lockouts per name and address, the
/// password checked off the async workers, unknown names as slow as wrong passwords. It
/// runs to its end though the client hangs up: its password check runs anyway (a queued
/// hash is never taken back), so a wrong guess must be counted anyway.
pub(crate) async fn login(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Result<Json<Credentials>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let errands = state.errands.clone();
    crate::http::to_the_end(&errands, log_in(state, peer, headers, body)).await
}

/// [`login`]'s work.
async fn log_in(
    state: Arc<AppState>,
    peer: SocketAddr,
    headers: HeaderMap,
    body: Result<Json<Credentials>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let body = match body {
        Ok(Json(body)) => body,
        // Over the size limit: 413, as on every endpoint.
        Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            return crate::http::ApiError::from(e).into_response()
        }
        Err(_) => {
            return refused(
                StatusCode::BAD_REQUEST,
                "bad_request",
                "send {\"name\", \"password\"}",
            )
        }
    };
    let server = &state.config.server;
    let ip = crate::http::guard::client_address(server, peer, &headers);
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
                tracing::error!("cannot look up a player: {e}");
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
        Some(player) if right && player.locked => refused(
            StatusCode::FORBIDDEN,
            "locked",
            "this account is locked: ask the card room",
        ),
        Some(player) if right => {
            state.accounts.logged_in(&key, ip);
            new_session(&state, &player, true).await
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
    let body = match body {
        Ok(Json(body)) => body,
        // Over the size limit: 413, as on every endpoint.
        Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            return crate::http::ApiError::from(e).into_response()
        }
        Err(_) => {
            return refused(
                StatusCode::BAD_REQUEST,
                "bad_request",
                "send {\"name\", \"password\"}",
            )
        }
    };
    let name = match names::player_name(&body.name) {
        Ok(name) => name,
        Err(e) => return crate::http::ApiError::from(e).into_response(),
    };
    if !names::password_ok(&body.password) {
        return refused(
            StatusCode::BAD_REQUEST,
            "invalid_password",
            crate::http::guard::PASSWORD_RULE,
        );
    }
    let ip = crate::http::guard::client_address(&state.config.server, peer, &headers);
    if let Err(too_many) = state.accounts.may_register(&state.config.server, ip) {
        return too_many.into_response();
    }
    let hash = match state.accounts.hash(body.password).await {
        Ok(hash) => hash,
        Err(e) => return e.into_response(),
    };
    match state.store.create_player(&name, &hash).await {
        Ok(player) if state.config.play_money() => {
            // Play money: the new account's chips, deposited once (keyed by the player).
            let grant = state.config.room.play_grant;
            let key = format!("grant:{player}");
            if grant > 0 {
                if let Err(e) = state
                    .store
                    .credit(player, grant, poker_store::Credit::Grant, Some(&key))
                    .await
                {
                    tracing::error!("cannot grant play chips: {e}");
                }
            }
        }
        Ok(_) => {}
        Err(StoreError::NameTaken) => {
            return refused(StatusCode::CONFLICT, "name_taken", "the name is taken")
        }
        Err(e) => {
            tracing::error!("cannot register: {e}");
            return refused(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "internal error",
            );
        }
    }
    match state.store.player_by_name(&name).await {
        Ok(player) => new_session(&state, &player, false).await,
        Err(_) => refused(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "internal error",
        ),
    }
}

/// `POST /logout` with `Authorization: Bearer TOKEN`.
pub(crate) async fn logout(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let Some(token) = crate::http::auth::bearer(&headers) else {
        return StatusCode::NO_CONTENT.into_response();
    };
    let hash = token_hash(token);
    // A token that is no live session has nothing to end: answered after one read, which a
    // client hanging up still cancels (so made-up tokens leave no work behind).
    if let Ok(None) = state.store.session_expiry(&hash).await {
        return StatusCode::NO_CONTENT.into_response();
    }
    // The delete and the end run to their end even if the client hangs up.
    let errands = state.errands.clone();
    crate::http::to_the_end(&errands, async move {
        let _ = state.store.delete_session(&hash).await;
        // Every WebSocket of the session, on every node, is closed before the answer.
        state
            .end_sessions(SessionEnd::LoggedOut { token_hash: hash })
            .await;
        StatusCode::NO_CONTENT.into_response()
    })
    .await
}

/// The hash a reset code is kept and compared by: the code as read out, in any case, with
/// its hyphens and spaces dropped and the letters Crockford's base 32 reads as digits
/// (I and L as 1, O as 0) read so.
pub(crate) fn code_hash(code: &str) -> String {
    let canonical: String = code
        .chars()
        .filter(|c| !matches!(c, '-' | ' '))
        .map(|c| match c.to_ascii_uppercase() {
            'I' | 'L' => '1',
            'O' => '0',
            c => c,
        })
        .collect();
    token_hash(&canonical)
}

#[derive(Deserialize)]
pub(crate) struct CodeReset {
    name: String,
    code: String,
    password: String,
}

/// `POST /reset-password`: a player sets a new password with the one-time code staff
/// issued them. Guarded like `/login` (wrong codes counted per name and address, and per
/// address; 429 with `Retry-After`). On success the code is spent, every session of the
/// player ends (their WebSockets close), and their next login tells who issued the code
/// and when the password changed.
pub(crate) async fn reset_with_code(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Result<Json<CodeReset>, axum::extract::rejection::JsonRejection>,
) -> Response {
    // The code's use, the end of the player's sessions and the audit entry run to their
    // end even if the client hangs up.
    let errands = state.errands.clone();
    crate::http::to_the_end(&errands, use_reset_code(state, peer, headers, body)).await
}

/// [`reset_with_code`]'s work.
async fn use_reset_code(
    state: Arc<AppState>,
    peer: SocketAddr,
    headers: HeaderMap,
    body: Result<Json<CodeReset>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let Ok(Json(body)) = body else {
        return refused(
            StatusCode::BAD_REQUEST,
            "bad_request",
            "send {\"name\", \"code\", \"password\"}",
        );
    };
    if !names::password_ok(&body.password) {
        return refused(
            StatusCode::BAD_REQUEST,
            "invalid_password",
            crate::http::guard::PASSWORD_RULE,
        );
    }
    let server = &state.config.server;
    let ip = crate::http::guard::client_address(server, peer, &headers);
    let key = format!(
        "reset:{}",
        names::lookup_key(&body.name).unwrap_or_default()
    );
    if let Err(too_many) = state.accounts.may_login(server, &key, ip) {
        return too_many.into_response();
    }
    let wrong = |state: &AppState| {
        state.accounts.failed_login(&key, ip);
        refused(
            StatusCode::UNAUTHORIZED,
            "invalid_code",
            "wrong name or code, or the code has expired",
        )
    };
    // The new password is hashed first, whatever follows: an unknown name or a wrong
    // code takes as long as a right one, and tells nothing of which names exist.
    let hash = match state.accounts.hash(body.password).await {
        Ok(hash) => hash,
        Err(e) => return e.into_response(),
    };
    let player = match state.store.player_by_name(&body.name).await {
        Ok(player) => player,
        Err(StoreError::NotFound(_) | StoreError::BadName(_)) => return wrong(&state),
        Err(e) => {
            tracing::error!("cannot look up a player: {e}");
            return refused(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "internal error",
            );
        }
    };
    if body.code.chars().count() > 64 {
        return wrong(&state);
    }
    let used = state
        .store
        .use_reset_code(player.player_id, &code_hash(&body.code), &hash, now_ms())
        .await;
    let code = match used {
        Ok(Some(code)) => code,
        Ok(None) => return wrong(&state),
        Err(e) => {
            tracing::error!("cannot use a reset code: {e}");
            return refused(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "internal error",
            );
        }
    };
    state.accounts.logged_in(&key, ip);
    // Every WebSocket of the player closes.
    state
        .end_sessions(crate::sessions::SessionEnd::PasswordReset {
            player_id: player.player_id,
        })
        .await;
    let entry = poker_store::AuditEntry {
        at: now_ms(),
        actor: format!("address:{ip}"),
        action: "use_reset_code".into(),
        target: player.player_id.to_string(),
        detail: json!({ "issued_by": code.issued_by, "issued_at": code.issued_at }).to_string(),
    };
    if let Err(e) = state.store.record_audit(&entry).await {
        tracing::error!("cannot write the audit log (use_reset_code): {e}");
    }
    Json(json!({ "player_id": player.player_id.to_string(), "name": player.name })).into_response()
}
