//! What operations watch: `/healthz` (503 within about a second when the database
//! does not answer), `/metrics` (Prometheus text) and `/openapi.json` (the contract).

use crate::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use std::sync::Arc;

use super::error::*;

pub(crate) const OPENAPI: &str = include_str!("../../../../docs/openapi.json");

pub(crate) async fn openapi() -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        OPENAPI,
    )
        .into_response()
}

/// `GET /healthz`: 200 when the database answers within 1.5 s, else 503 (at once when
/// it refuses, within 1.5 s when it hangs); it recovers by itself with the database.
pub(crate) async fn healthz(State(state): State<Arc<AppState>>) -> ApiResult<Json<Value>> {
    let probe =
        tokio::time::timeout(std::time::Duration::from_millis(1500), state.store.tables()).await;
    match probe {
        Ok(Ok(_)) => Ok(Json(json!({ "status": "ok" }))),
        Ok(Err(e)) => {
            tracing::error!("health: the database failed: {e}");
            Err(unavailable())
        }
        Err(_) => Err(unavailable()),
    }
}

pub(crate) fn unavailable() -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "unavailable",
        "the database does not answer",
    )
}

pub(crate) async fn metrics(State(state): State<Arc<AppState>>) -> Response {
    let lobby = state.lobby.list();
    let seated = lobby.iter().map(|t| t.players as usize).sum();
    let mut body = state.metrics.render(lobby.len(), seated);
    let hashing = state.accounts.hashing();
    let fallbacks = state.store.set_path_fallbacks();
    body.push_str(
        "# HELP poker_store_set_path_fallbacks_total Batches PostgreSQL's set-based path gave up \
         and wrote one by one: buy-ins or writes that move no money, refused (a write in them \
         refused) or failed (the database's error).\n\
         # TYPE poker_store_set_path_fallbacks_total counter\n",
    );
    for (path, reason, n) in [
        ("buy_ins", "refused", fallbacks.buy_ins_refused),
        ("buy_ins", "failed", fallbacks.buy_ins_failed),
        ("table_writes", "refused", fallbacks.table_writes_refused),
        ("table_writes", "failed", fallbacks.table_writes_failed),
    ] {
        body.push_str(&format!(
            "poker_store_set_path_fallbacks_total{{path=\"{path}\",reason=\"{reason}\"}} {n}\n"
        ));
    }
    for (name, help, value) in [
        (
            "poker_password_hashing_threads",
            "Threads that hash passwords.",
            hashing.threads(),
        ),
        (
            "poker_password_hashes_peak",
            "The most password hashes that ran at once.",
            hashing.peak(),
        ),
        (
            "poker_password_memory_blocks",
            "Argon2 memory blocks held now.",
            hashing.blocks_held(),
        ),
    ] {
        body.push_str(&format!(
            "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {value}\n"
        ));
    }
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; version=0.0.4",
        )],
        body,
    )
        .into_response()
}
