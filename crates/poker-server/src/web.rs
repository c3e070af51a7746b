//! The browser client at `/` and the operators' console at `/admin`: the pages, their
//! style sheet and ES modules from `web/`,
//! built into the binary (or read from `server.web_root` when set, to work on them
//! without rebuilding).

use crate::AppState;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::sync::Arc;

const FILES: &[(&str, &str, &str)] = &[
    (
        "index.html",
        "text/html; charset=utf-8",
        include_str!("../../../web/index.html"),
    ),
    (
        "admin.html",
        "text/html; charset=utf-8",
        include_str!("../../../web/admin.html"),
    ),
    (
        "js/admin.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/js/admin.js"),
    ),
    (
        "js/main.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/js/main.js"),
    ),
    (
        "js/state.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/js/state.js"),
    ),
    (
        "js/reduce.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/js/reduce.js"),
    ),
    (
        "js/dom.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/js/dom.js"),
    ),
    (
        "js/net.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/js/net.js"),
    ),
    (
        "js/views.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/js/views.js"),
    ),
    (
        "js/dialogs.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/js/dialogs.js"),
    ),
    (
        "js/buyin.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/js/buyin.js"),
    ),
    (
        "js/private.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/js/private.js"),
    ),
    (
        "js/fairness.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/js/fairness.js"),
    ),
    (
        "js/table_form.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/js/table_form.js"),
    ),
    (
        "js/audit_text.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/js/audit_text.js"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../../../web/style.css"),
    ),
    (
        "console.css",
        "text/css; charset=utf-8",
        include_str!("../../../web/console.css"),
    ),
    (
        "features.css",
        "text/css; charset=utf-8",
        include_str!("../../../web/features.css"),
    ),
    (
        "js/features.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/js/features.js"),
    ),
    (
        "js/theme.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/js/theme.js"),
    ),
    (
        "js/lobbyfilter.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/js/lobbyfilter.js"),
    ),
    (
        "js/stats.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/js/stats.js"),
    ),
    (
        "js/notes.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/js/notes.js"),
    ),
    (
        "js/emoji.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/js/emoji.js"),
    ),
    (
        "js/tiling.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/js/tiling.js"),
    ),
    (
        "js/chips.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/js/chips.js"),
    ),
];

/// The client's routes.
pub fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/", get(|s| file(s, "index.html")))
        .route("/admin", get(|s| file(s, "admin.html")))
        .route("/style.css", get(|s| file(s, "style.css")))
        .route("/console.css", get(|s| file(s, "console.css")))
        .route("/features.css", get(|s| file(s, "features.css")))
        .route("/js/{name}", get(module))
}

/// One of the client's modules, by name; anything else is not found.
async fn module(
    state: State<Arc<AppState>>,
    axum::extract::Path(name): axum::extract::Path<String>,
) -> Response {
    let path = format!("js/{name}");
    match FILES.iter().find(|(n, _, _)| *n == path) {
        Some((n, _, _)) => file(state, n).await,
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn file(State(state): State<Arc<AppState>>, name: &'static str) -> Response {
    let (_, mime, built_in) = FILES
        .iter()
        .find(|(n, _, _)| *n == name)
        .expect("a known file");
    let root = &state.config.server.web_root;
    let body = if root.is_empty() {
        built_in.to_string()
    } else {
        match tokio::fs::read_to_string(std::path::Path::new(root).join(name)).await {
            Ok(text) => text,
            Err(_) => return StatusCode::NOT_FOUND.into_response(),
        }
    };
    let tiled = name == "index.html";
    let (policy, framing) = if tiled {
        (
            "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
             img-src 'self' data:; connect-src 'self'; frame-src 'self'; \
             frame-ancestors 'self'; base-uri 'none'; form-action 'self'",
            "SAMEORIGIN",
        )
    } else {
        (
            "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
             img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; \
             base-uri 'none'; form-action 'self'",
            "DENY",
        )
    };
    (
        [
            (header::CONTENT_TYPE, *mime),
            (header::CACHE_CONTROL, "no-cache"),
            // The page loads only its own files and talks only to its own server; no
            // other site may frame it. The player's page may frame itself: tiled tables
            // are that page in frames (js/tiling.js); nothing else is ever framed.
            (header::CONTENT_SECURITY_POLICY, policy),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::X_FRAME_OPTIONS, framing),
            (header::REFERRER_POLICY, "no-referrer"),
        ],
        body,
    )
        .into_response()
}
