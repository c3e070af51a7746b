//! Who is asking: the operator (the admin bearer token from the configuration, compared
//! in constant time) or a player (a session token, stored only as its SHA-256 hash).

use crate::AppState;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use poker_store::{Player, Store};
use sha2::{Digest, Sha256};
use std::sync::Arc;

use super::error::*;

/// The operator: a handler taking `Admin` runs only for a request carrying the admin
/// bearer token (401 otherwise; an empty configured token refuses every call).
pub struct Admin;

impl FromRequestParts<Arc<AppState>> for Admin {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AppState>,
    ) -> Result<Self, Self::Rejection> {
        authorize(state, &parts.headers).map(|()| Admin)
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
