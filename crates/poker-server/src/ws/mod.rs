//! The WebSocket at `/ws`: the upgrade (refused for foreign origins unless configured in
//! `server.allowed_origins`) and one task per connection speaking `poker-protocol`, one
//! JSON message per text frame.

use crate::http::error::*;
use crate::AppState;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use std::sync::Arc;

mod conn;
mod connection;
mod dispatch;
mod follows;

use connection::connection;

/// `GET /ws`.
/// Whether a page from `origin` may open the WebSocket: the server's own pages (the
/// origin's host is the `Host` asked for), the configured origins, or any with `*`.
pub(crate) fn origin_allowed(state: &AppState, headers: &HeaderMap) -> bool {
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
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
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
    // The client's address (its bucket), which each sit carries to the table (fair play).
    let address = crate::http::guard::client_address(&state.config.server, peer, &headers);
    // Frames up to 1 MiB are read and answered; the configured limit is enforced per
    // message with a typed error, so an oversized frame does not cost the connection.
    // Clients' messages are small (an action is under 200 bytes): a 1 KiB read buffer
    // instead of the default 128 KiB, which the codec zero-fills on every read (a quarter
    // of the CPU under load, measured) and every idle connection would hold.
    // A browser offers `poker` (and its session token as `bearer.TOKEN`, which the
    // reserve of connections reads: http/shield.rs); `poker` is the answer.
    upgrade
        .protocols(["poker"])
        .read_buffer_size(1024)
        .max_message_size(1 << 20)
        .on_upgrade(move |mut socket| {
            use tracing::Instrument;
            let span = tracing::info_span!("connection", player_id = tracing::field::Empty);
            // The socket is held here once, and lent (an async fn's arguments are held
            // twice: as given, and moved to its locals).
            async move { connection(state, &mut socket, address).await }.instrument(span)
        })
}
