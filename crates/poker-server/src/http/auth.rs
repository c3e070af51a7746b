//! Who is asking: the operator (the admin bearer token from the configuration, compared
//! in constant time), a member of staff (a staff session token, with a role), or a player
//! (a session token); session tokens are stored only as their SHA-256 hash.

use crate::AppState;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use poker_store::{now_ms, AuditEntry, Player, Role, Staff, StoreError};
use sha2::{Digest, Sha256};
use std::sync::Arc;

use super::error::*;

/// The operator or a member of staff: a handler taking `Admin` runs only for a request
/// carrying the admin bearer token (all rights) or a staff session token (the rights of
/// its role); 401 otherwise. Handlers then ask [`Admin::may`] for the duty at hand.
pub struct Admin {
    /// Who, as the audit log names them: `token` or `staff:NAME`.
    pub actor: String,
    /// What they may do.
    pub role: Role,
}

/// What a request does, for the role check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Duty {
    /// Reads anything (every role).
    Read,
    /// Moves money: deposits and withdrawals (admin, cashier).
    Money,
    /// Runs the floor: tables, players' accounts (admin, floor).
    Floor,
    /// Manages staff accounts (admin).
    Staff,
    /// Sets a player's password directly (admin); the floor issues reset codes instead.
    SetPassword,
    /// Copies the whole database, every account and hand in it (admin).
    Backup,
}

impl Admin {
    /// Whether this role may do that: 403 `forbidden` otherwise.
    pub fn may(&self, duty: Duty) -> ApiResult<()> {
        let ok = matches!(
            (self.role, duty),
            (Role::Admin, _)
                | (_, Duty::Read)
                | (Role::Cashier, Duty::Money)
                | (Role::Floor, Duty::Floor)
        );
        if ok {
            Ok(())
        } else {
            Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "forbidden",
                format!("a {} may not do this", self.role.as_str()),
            ))
        }
    }

    /// Writes what was done to the audit log, with who did it (a failure is logged: the
    /// action itself stands).
    pub async fn audit(
        &self,
        state: &AppState,
        action: &str,
        target: &str,
        detail: serde_json::Value,
    ) {
        let entry = AuditEntry {
            at: poker_store::now_ms(),
            actor: self.actor.clone(),
            action: action.to_string(),
            target: target.to_string(),
            detail: detail.to_string(),
        };
        if let Err(e) = state.store.record_audit(&entry).await {
            tracing::error!("cannot write the audit log ({action} {target}): {e}");
        }
    }
}

impl FromRequestParts<Arc<AppState>> for Admin {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AppState>,
    ) -> Result<Self, Self::Rejection> {
        // An address that guessed too often is not heard at all for a while (a request
        // without a token guesses nothing: it is told 401 as ever).
        let ip = super::guard::request_address(&state.config.server, parts);
        if bearer(&parts.headers).is_some() {
            state.accounts.may_bear(&state.config.admin, ip)?;
        }
        if authorize(state, &parts.headers).is_ok() {
            return Ok(Admin {
                actor: "token".into(),
                role: Role::Admin,
            });
        }
        if let Some(token) = bearer(&parts.headers) {
            if token.len() <= 256 {
                if let Ok(Some(staff)) = live_session(state, token).await {
                    return Ok(Admin {
                        actor: format!("staff:{}", staff.name),
                        role: staff.role,
                    });
                }
            }
            // A token that is neither: a guess, counted against the address.
            state.accounts.failed_bearer(ip);
        }
        Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "a valid admin bearer token or staff session is required",
        ))
    }
}

/// A logged-in player: a handler taking `Session` runs only for a request carrying a
/// live session token (401 otherwise).
pub struct Session(pub Player);

impl FromRequestParts<Arc<AppState>> for Session {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AppState>,
    ) -> Result<Self, Self::Rejection> {
        session_player(state, &parts.headers).await.map(Session)
    }
}

fn authorize(state: &AppState, headers: &HeaderMap) -> ApiResult<()> {
    let expected = &state.config.admin.token;
    match bearer(headers) {
        Some(token)
            if !expected.is_empty() && constant_time_eq(token.as_bytes(), expected.as_bytes()) =>
        {
            Ok(())
        }
        _ => Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "a valid admin bearer token is required",
        )),
    }
}

/// The token of an `Authorization: Bearer TOKEN` header.
pub(crate) fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The SHA-256 of a session token, as the store keeps it.
pub(crate) fn token_hash(token: &str) -> String {
    format!("{:x}", Sha256::digest(token.as_bytes()))
}

/// The player of the session named by `Authorization: Bearer TOKEN`.
async fn session_player(state: &AppState, headers: &HeaderMap) -> ApiResult<Player> {
    let token = bearer(headers);
    let unauthorized = || {
        ApiError::new(
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

/// The staff member of a session token, if the session stands: unexpired, used within
/// `admin.staff_idle_minutes`, the account enabled. The session's last use becomes now.
pub(crate) async fn live_session(
    state: &AppState,
    token: &str,
) -> Result<Option<Staff>, StoreError> {
    let idle_ms = i64::from(state.config.admin.staff_idle_minutes) * 60_000;
    state
        .store
        .touch_staff_session(&token_hash(token), now_ms(), idle_ms)
        .await
}
