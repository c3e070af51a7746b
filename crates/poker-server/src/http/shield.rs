//! What every request passes before its handler, outermost first:
//!
//! - **Headers**: every answer (API JSON, text exports, `/metrics`, `/openapi.json`,
//!   errors, 404s) carries `X-Content-Type-Options: nosniff`,
//!   `Referrer-Policy: no-referrer`, and unless it set its own (the pages do),
//!   `X-Frame-Options: DENY`, `Content-Security-Policy: default-src 'none';
//!   frame-ancestors 'none'` and `Cache-Control: no-store`.
//! - **The reserve**: a connection taken in the reserve ([`crate::connections`]) is
//!   served `/healthz`, `POST /login`, `POST /admin/login` and the WebSocket of a player
//!   holding a seat (the session token offered on the upgrade, as `Authorization:
//!   Bearer` or a `bearer.TOKEN` WebSocket protocol); anything else is 503 `busy`.
//! - **Per forwarded address**: behind a proxy (`server.client_address_header`), one
//!   client address may have `server.connections_per_address` requests and WebSockets
//!   in progress (429 `too_many_connections`).
//! - **Rate limit**: `/api/...` and `/admin/...` take `server.api_rate_per_sec` requests a
//!   second (bursts of `server.api_rate_burst`) per session or bearer token, and
//!   `server.api_address_rate_per_sec` (`server.api_address_rate_burst`) per client
//!   address; more are 429 `rate_limited` with `Retry-After`.
//! - **Body**: read whole before the handler: over `server.max_body_bytes` it is 413
//!   `payload_too_large` on every endpoint (by its `Content-Length` before reading, or
//!   as it arrives), and not arrived `server.body_timeout_ms` after the head it is 408
//!   `request_timeout`.

use crate::connections::{Held, Reserve};
use crate::http::ApiError;
use crate::AppState;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A token bucket.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    last: Instant,
}

impl Bucket {
    /// Refilled to now at `rate` a second up to `burst`.
    fn refill(&mut self, rate: f64, burst: f64) {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.last).as_secs_f64() * rate).min(burst);
        self.last = now;
    }
}

/// Buckets by key, forgetting those that refilled.
struct Buckets<K> {
    map: HashMap<K, Bucket>,
}

impl<K: std::hash::Hash + Eq + Copy> Buckets<K> {
    /// The key's bucket, refilled.
    fn get(&mut self, key: K, rate: f64, burst: f64) -> &mut Bucket {
        if self.map.len() > 50_000 {
            self.map.retain(|_, b| {
                let mut b = *b;
                b.refill(rate, burst);
                b.tokens < burst
            });
        }
        let bucket = self.map.entry(key).or_insert(Bucket {
            tokens: burst,
            last: Instant::now(),
        });
        bucket.refill(rate, burst);
        bucket
    }
}

/// The shared state of the request limits.
pub struct Shield {
    sessions: Mutex<Buckets<u64>>,
    addresses: Mutex<Buckets<IpAddr>>,
    forwarded: Arc<Mutex<HashMap<IpAddr, u32>>>,
    /// Keys a session's bucket by its token's hash, never by the token.
    hasher: std::collections::hash_map::RandomState,
}

impl Default for Shield {
    fn default() -> Shield {
        Shield {
            sessions: Mutex::new(Buckets {
                map: HashMap::new(),
            }),
            addresses: Mutex::new(Buckets {
                map: HashMap::new(),
            }),
            forwarded: Arc::new(Mutex::new(HashMap::new())),
            hasher: Default::default(),
        }
    }
}

impl Shield {
    /// Takes one request from the session's and the address's buckets, or tells how
    /// many seconds until both have one.
    fn allow(
        &self,
        config: &crate::config::ServerConfig,
        session: Option<u64>,
        ip: IpAddr,
    ) -> Result<(), u64> {
        let (rate, burst) = (
            f64::from(config.api_rate_per_sec),
            f64::from(config.api_rate_burst.max(1)),
        );
        let (a_rate, a_burst) = (
            f64::from(config.api_address_rate_per_sec),
            f64::from(config.api_address_rate_burst.max(1)),
        );
        let wait = |tokens: f64, rate: f64| ((1.0 - tokens) / rate).ceil().max(1.0) as u64;
        let mut sessions = self.sessions.lock().expect("shield lock");
        let mut addresses = self.addresses.lock().expect("shield lock");
        let session = match session {
            Some(key) if rate > 0.0 => Some(sessions.get(key, rate, burst)),
            _ => None,
        };
        let address = (a_rate > 0.0).then(|| addresses.get(ip, a_rate, a_burst));
        if let Some(b) = session.as_deref().filter(|b| b.tokens < 1.0) {
            return Err(wait(b.tokens, rate));
        }
        if let Some(b) = address.as_deref().filter(|b| b.tokens < 1.0) {
            return Err(wait(b.tokens, a_rate));
        }
        // Both have one: each gives it.
        for b in [session, address].into_iter().flatten() {
            b.tokens -= 1.0;
        }
        Ok(())
    }
}

/// A forwarded address's request or WebSocket in progress, given back when dropped.
struct Forwarded {
    counts: Arc<Mutex<HashMap<IpAddr, u32>>>,
    ip: IpAddr,
}

impl Drop for Forwarded {
    fn drop(&mut self) {
        let mut counts = self.counts.lock().expect("shield lock");
        if let Some(n) = counts.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                counts.remove(&self.ip);
            }
        }
    }
}

/// The headers every answer carries (the pages' own policy kept).
pub async fn headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let h = response.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // The player's page may be framed by itself (table tiling); nothing else may.
    h.entry(header::X_FRAME_OPTIONS)
        .or_insert(HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.entry(header::CONTENT_SECURITY_POLICY)
        .or_insert(HeaderValue::from_static(
            "default-src 'none'; frame-ancestors 'none'",
        ));
    h.entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    response
}

/// The session token a WebSocket upgrade offers: `Authorization: Bearer TOKEN`, or a
/// `bearer.TOKEN` entry of `Sec-WebSocket-Protocol` (what a browser can send).
fn offered_token(headers: &HeaderMap) -> Option<String> {
    if let Some(token) = super::auth::bearer(headers) {
        return Some(token.to_string());
    }
    headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .find_map(|p| p.trim().strip_prefix("bearer.").map(str::to_string))
}

/// Whether the request's session is a player's holding a seat somewhere.
async fn seated(state: &AppState, headers: &HeaderMap) -> bool {
    let Some(token) = offered_token(headers).filter(|t| t.len() <= 256) else {
        return false;
    };
    let Ok(Some(player)) = state.store.session(&super::auth::token_hash(&token)).await else {
        return false;
    };
    state
        .store
        .tables_of(player.player_id)
        .await
        .is_ok_and(|tables| !tables.is_empty())
}

/// The reserve serves only what keeps the room running for the people in it.
pub async fn reserve(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let in_reserve = request.extensions().get::<Reserve>().is_some_and(|r| r.0);
    if !in_reserve {
        return next.run(request).await;
    }
    let method = request.method().clone();
    let allowed = match (method, request.uri().path()) {
        (Method::GET | Method::HEAD, "/healthz") => true,
        (Method::POST, "/login" | "/admin/login") => true,
        (Method::GET, "/ws") => seated(&state, request.headers()).await,
        _ => false,
    };
    if allowed {
        return next.run(request).await;
    }
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "busy",
        "the server is near its connection limit: only health checks, logins and seated \
         players are served now; try again shortly",
    )
    .retry_after(5)
    .into_response()
}

/// The body, read whole before the handler runs: 413 when it is announced over the limit
/// (before anything reads it) or turns out to be (a chunked one), 408 when it has not
/// arrived `server.body_timeout_ms` after the head. The handler's own work is not
/// timed: cutting it could leave an operation half done.
pub async fn body(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let max = state.config.server.max_body_bytes;
    let announced = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|n| n > max as u64) {
        return too_large(max).into_response();
    }
    let (parts, body) = request.into_parts();
    let limit = Duration::from_millis(state.config.server.body_timeout_ms.max(1));
    let bytes = match tokio::time::timeout(limit, axum::body::to_bytes(body, max)).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(e)) if over_limit(&e) => return too_large(max).into_response(),
        Ok(Err(_)) => {
            return ApiError::new(
                StatusCode::BAD_REQUEST,
                "bad_request",
                "the request's body could not be read",
            )
            .into_response()
        }
        Err(_) => {
            return ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                "request_timeout",
                "the request's body took too long to arrive",
            )
            .into_response()
        }
    };
    next.run(Request::from_parts(parts, axum::body::Body::from(bytes)))
        .await
}

/// Whether reading a body failed for its length.
fn over_limit(e: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if err.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = err.source();
    }
    false
}

/// The answer to a body over the limit.
pub(crate) fn too_large(max: usize) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
        format!("request bodies are limited to {max} bytes"),
    )
}

/// Behind a proxy: requests and WebSockets in progress per forwarded address.
pub async fn forwarded(
    State(state): State<Arc<AppState>>,
    request: Request,
    next: Next,
) -> Response {
    let server = &state.config.server;
    let cap = server.connections_per_address;
    if server.client_address_header.trim().is_empty() || cap == 0 {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let ip = super::guard::request_address(server, &parts);
    let held = parts.extensions.get::<Arc<Held>>().cloned();
    let request = Request::from_parts(parts, body);
    let counts = state.shield.forwarded.clone();
    {
        let mut map = counts.lock().expect("shield lock");
        let n = map.entry(ip).or_insert(0);
        if *n >= cap {
            return ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_connections",
                "this address has as many requests and WebSockets open as it may",
            )
            .retry_after(5)
            .into_response();
        }
        *n += 1;
    }
    let slot = Forwarded { counts, ip };
    let response = next.run(request).await;
    if response.status() == StatusCode::SWITCHING_PROTOCOLS {
        // A WebSocket: its slot is held for as long as its socket.
        if let Some(held) = held {
            held.until_closed
                .lock()
                .expect("held lock")
                .push(Box::new(slot));
        }
    }
    response
}

/// `/api/...` and `/admin/...` per session (or bearer token) and per address.
pub async fn rate_limit(
    State(state): State<Arc<AppState>>,
    request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path();
    if !(path.starts_with("/api/") || path.starts_with("/admin/")) {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let ip = super::guard::request_address(&state.config.server, &parts);
    let session = super::auth::bearer(&parts.headers).map(|t| state.shield.hasher.hash_one(t));
    if let Err(secs) = state.shield.allow(&state.config.server, session, ip) {
        return ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            "too many requests: slow down",
        )
        .retry_after(secs)
        .into_response();
    }
    next.run(Request::from_parts(parts, body)).await
}

/// No such endpoint: 404 in the API's shape.
pub async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such endpoint")
}

/// An endpoint asked with a method it does not take: 405 in the API's shape.
pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this endpoint does not take that method",
    )
}

/// The whole of it around `app`, in order (the outermost last).
pub fn wrap(
    app: axum::Router<Arc<AppState>>,
    state: &Arc<AppState>,
) -> axum::Router<Arc<AppState>> {
    use axum::middleware::{from_fn, from_fn_with_state};
    app.fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::extract::DefaultBodyLimit::max(
            state.config.server.max_body_bytes,
        ))
        .layer(from_fn_with_state(state.clone(), body))
        .layer(from_fn_with_state(state.clone(), rate_limit))
        .layer(from_fn_with_state(state.clone(), forwarded))
        .layer(from_fn_with_state(state.clone(), reserve))
        .layer(from_fn(headers))
}
