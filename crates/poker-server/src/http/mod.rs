//! The HTTP side of pokerd: one router for the operators' REST API under `/admin`, the
//! players' account endpoints and their own view under `/api/me`, the WebSocket upgrade
//! at `/ws`, and what operations watch (`/healthz`, `/metrics`, `/openapi.json`).
//!
//! Every answer that is not a success is [`ApiError`]'s JSON shape; who is asking is
//! settled by the extractors of [`auth`]: [`auth::Admin`] for the operator's bearer
//! token, [`auth::Session`] for a player's session.

pub mod accounts;
pub mod admin;
pub mod auth;
pub mod error;
pub(crate) mod formats;
pub mod guard;
pub mod hashing;
pub mod history;
pub mod me;
pub(crate) mod ohh;
pub mod ops;
pub(crate) mod private;
pub(crate) mod proofs;
pub mod shield;

pub use error::{ApiError, ApiResult};

use crate::AppState;
use axum::routing::{get, post};
use axum::Router;
use std::sync::Arc;

/// Every route pokerd serves but the browser client's files.
pub fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/healthz", get(ops::healthz))
        .route("/metrics", get(ops::metrics))
        .route("/openapi.json", get(ops::openapi))
        .route("/login", post(accounts::login))
        .route("/register", post(accounts::register))
        .route("/logout", post(accounts::logout))
        .route("/reset-password", post(accounts::reset_with_code))
        .route("/api/me", get(me::me))
        .route("/api/me/reload", post(me::reload))
        .route("/api/me/hands", get(me::my_hands))
        .route("/api/me/hands/{id}", get(me::my_hand))
        .route("/api/me/stats", get(history::my_stats))
        .route("/api/me/notes", get(history::my_notes))
        .route("/api/me/notes/{id}", post(history::put_note))
        .route("/api/private", post(private::create))
        .route("/api/private/{id}", get(private::invite))
        .route("/ws", get(crate::ws::ws))
        .merge(admin::router())
}

/// Runs a request's work in a task of its own and answers with what it returns. A client
/// that hangs up mid-request makes the server drop the handler's future at its next
/// await; work that ends sessions must not stop between its commit and what follows it
/// (telling every node, [`AppState::end_sessions`], and the audit entry), or a session
/// ended in the store keeps its sockets open on every node until it expires. The players'
/// logout and reset code call it; every admin change runs in it ([`admin::router`]).
pub(crate) async fn to_the_end<T: Send + 'static>(
    work: impl std::future::Future<Output = T> + Send + 'static,
) -> T {
    use tracing::Instrument;
    // In the request's span, as if it ran in the handler.
    match tokio::spawn(work.in_current_span()).await {
        Ok(answer) => answer,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        // Only a runtime shutting down cancels a task; the request goes with it.
        Err(e) => panic!("a request's work was cancelled: {e}"),
    }
}
