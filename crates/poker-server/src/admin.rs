//! The operators' REST API under `/admin`, behind the bearer token from the
//! configuration, and `/healthz`. Errors are JSON `{"error": code, "message": text}`;
//! internal failures are logged, not shown.

use crate::AppState;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use poker_rules::table::{Table, TableRules};
use poker_rules::{HandConfig, SeatConfig};
use poker_store::{hash_password, HandId, PlayerId, Store, StoreError};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;

/// An error answered by the API.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl ApiError {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (
            self.status,
            Json(json!({ "error": self.code, "message": self.message })),
        )
            .into_response()
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::NotFound(what) => ApiError::new(
                StatusCode::NOT_FOUND,
                "not_found",
                format!("{what} not found"),
            ),
            StoreError::InsufficientFunds { balance } => ApiError::new(
                StatusCode::CONFLICT,
                "insufficient_funds",
                format!("the balance is {balance}"),
            ),
            StoreError::NameTaken => {
                ApiError::new(StatusCode::CONFLICT, "name_taken", "the name is taken")
            }
            StoreError::Invalid(m) => ApiError::new(StatusCode::BAD_REQUEST, "invalid", m),
            other => {
                eprintln!("pokerd: internal error: {other}");
                ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "internal error",
                )
            }
        }
    }
}

impl From<JsonRejection> for ApiError {
    fn from(e: JsonRejection) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", e.body_text())
    }
}

type ApiResult<T> = Result<T, ApiError>;

fn authorize(state: &AppState, headers: &HeaderMap) -> ApiResult<()> {
    let expected = &state.config.admin.token;
    let given = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    match given {
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

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn parse_id<T: std::str::FromStr>(s: &str, what: &'static str) -> ApiResult<T> {
    s.parse().map_err(|_| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("{what} not found"),
        )
    })
}

/// The routes.
pub fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/admin/players", post(create_player).get(list_players))
        .route("/admin/players/{id}/deposit", post(deposit))
        .route("/admin/players/{id}/withdraw", post(withdraw))
        .route("/admin/players/{id}/ledger", get(ledger))
        .route("/admin/tables", post(create_table).get(list_tables))
        .route("/admin/hands/{id}", get(hand))
}

async fn healthz(State(state): State<Arc<AppState>>) -> ApiResult<Json<Value>> {
    state.store.tables().await?;
    Ok(Json(json!({ "status": "ok" })))
}

#[derive(Deserialize)]
struct NewPlayer {
    name: String,
    password: String,
}

async fn create_player(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Result<Json<NewPlayer>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    authorize(&state, &headers)?;
    let Json(p) = body?;
    let name = p.name.trim();
    if name.is_empty() || name.len() > 32 || p.password.len() < 8 {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid",
            "a name of 1 to 32 characters and a password of at least 8",
        ));
    }
    let id = state
        .store
        .create_player(name, &hash_password(&p.password))
        .await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({ "player_id": id.to_string(), "name": name })),
    ))
}

async fn list_players(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
) -> ApiResult<Json<Value>> {
    authorize(&state, &headers)?;
    let mut out = Vec::new();
    for p in state.store.players().await? {
        let balance = state.store.balance(p.player_id).await?;
        out.push(
            json!({ "player_id": p.player_id.to_string(), "name": p.name, "balance": balance }),
        );
    }
    Ok(Json(Value::Array(out)))
}

#[derive(Deserialize)]
struct Money {
    amount: u64,
    idempotency_key: Option<String>,
}

/// Deposits into or withdraws from a wallet, applied once per idempotency key.
async fn move_money(
    state: Arc<AppState>,
    headers: HeaderMap,
    id: String,
    body: Result<Json<Money>, JsonRejection>,
    deposit: bool,
) -> ApiResult<Json<Value>> {
    authorize(&state, &headers)?;
    let player: PlayerId = parse_id(&id, "player")?;
    let Json(m) = body?;
    let key = m.idempotency_key.as_deref();
    let balance = if deposit {
        state.store.deposit(player, m.amount, key).await?
    } else {
        state.store.withdraw(player, m.amount, key).await?
    };
    Ok(Json(json!({ "balance": balance })))
}

async fn deposit(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Result<Json<Money>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    move_money(state, headers, id, body, true).await
}

async fn withdraw(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Result<Json<Money>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    move_money(state, headers, id, body, false).await
}

async fn ledger(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    authorize(&state, &headers)?;
    let player: PlayerId = parse_id(&id, "player")?;
    state.store.balance(player).await?;
    let entries = state.store.ledger(player, 200).await?;
    Ok(Json(
        serde_json::to_value(entries).expect("entries serialize"),
    ))
}

#[derive(Deserialize)]
struct NewTable {
    name: String,
    rules: TableRules,
}

/// Checks table rules the way the table and its hands will use them.
fn check_rules(rules: &TableRules) -> ApiResult<()> {
    let bad = |m: String| ApiError::new(StatusCode::BAD_REQUEST, "invalid_rules", m);
    Table::<u32>::new(rules.clone()).map_err(|e| bad(e.to_string()))?;
    let blinds = rules.game.opening() == poker_rules::game::Opening::Position;
    let seat = |blind| SeatConfig {
        stack: rules.max_buy_in,
        blind: if blinds { blind } else { 0 },
        ..SeatConfig::default()
    };
    let mut probe = HandConfig::new(
        rules.game,
        rules.structure,
        rules.stakes,
        vec![seat(rules.small_blind), seat(rules.big_blind), seat(0)],
    );
    probe.max_raises = rules.max_raises;
    probe.uncapped_heads_up = rules.uncapped_heads_up;
    probe.options = rules.options.clone();
    probe.validate().map_err(|e| bad(e.to_string()))
}

async fn create_table(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Result<Json<NewTable>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    authorize(&state, &headers)?;
    let Json(t) = body?;
    check_rules(&t.rules)?;
    let config = serde_json::to_string(&t.rules).expect("rules serialize");
    let id = state.store.create_table(&t.name, &config).await?;
    if let Err(e) = state.open_table(id, &config).await {
        eprintln!("pokerd: cannot open table {id}: {e:#}");
        return Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "internal error",
        ));
    }
    Ok((
        StatusCode::CREATED,
        Json(json!({ "table_id": id.to_string() })),
    ))
}

async fn list_tables(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
) -> ApiResult<Json<Value>> {
    authorize(&state, &headers)?;
    let mut out = Vec::new();
    for t in state.store.tables().await? {
        let seats = state.store.seats(t.table_id).await?;
        let rules: Value = serde_json::from_str(&t.config).unwrap_or(Value::Null);
        out.push(json!({
            "table_id": t.table_id.to_string(),
            "name": t.name,
            "status": t.status,
            "rules": rules,
            "seats": seats,
        }));
    }
    Ok(Json(Value::Array(out)))
}

async fn hand(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    authorize(&state, &headers)?;
    let hand: HandId = parse_id(&id, "hand")?;
    let row = state.store.hand(hand).await?;
    Ok(Json(serde_json::to_value(row).expect("hands serialize")))
}
