//! The operators' REST API under `/admin`, behind the bearer token from the
//! configuration, and `/healthz`. Errors are JSON `{"error": code, "message": text}`;
//! internal failures are logged, not shown.

use crate::table::TableSpec;
use crate::AppState;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use poker_rules::table::{Table, TableRules};
use poker_rules::{HandConfig, SeatConfig};
use poker_store::{HandId, HandRow, PlayerId, Store, StoreError, TableId};
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
    pub(crate) fn new(
        status: StatusCode,
        code: &'static str,
        message: impl Into<String>,
    ) -> ApiError {
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
            StoreError::IdempotencyConflict => ApiError::new(
                StatusCode::CONFLICT,
                "idempotency_conflict",
                "the idempotency key was used for a different request",
            ),
            StoreError::NameTaken => {
                ApiError::new(StatusCode::CONFLICT, "name_taken", "the name is taken")
            }
            StoreError::Invalid(m) => ApiError::new(StatusCode::BAD_REQUEST, "invalid", m),
            StoreError::BadName(e) => ApiError::from(e),
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

impl From<poker_store::names::NameError> for ApiError {
    fn from(e: poker_store::names::NameError) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "invalid_name", e.to_string())
    }
}

impl From<JsonRejection> for ApiError {
    fn from(e: JsonRejection) -> ApiError {
        // The rejection's own status: 413 for a body over the limit, 415 without a JSON
        // content type, 400 or 422 for a body that is not the expected JSON.
        let status = e.status();
        let code = match status {
            StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
            StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
            _ => "bad_request",
        };
        let status = if code == "bad_request" {
            StatusCode::BAD_REQUEST
        } else {
            status
        };
        ApiError::new(status, code, e.body_text())
    }
}

impl From<QueryRejection> for ApiError {
    fn from(e: QueryRejection) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", e.body_text())
    }
}

/// What an admin handler answers.
pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The error code.
    pub fn code(&self) -> &'static str {
        self.code
    }
}

fn body_error(e: serde_json::Error) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "bad_request",
        format!("Failed to deserialize the JSON body into the target type: {e}"),
    )
}

/// Reads and checks a `POST /admin/tables` body exactly as the route does: the table's
/// name and what it will be created with.
pub fn parse_new_table(body: &[u8]) -> ApiResult<(String, TableSpec)> {
    check_new_table(serde_json::from_slice(body).map_err(body_error)?)
}

/// Reads a deposit or withdrawal body: the amount and the idempotency key.
pub fn parse_money(body: &[u8]) -> ApiResult<(u64, Option<String>)> {
    let m: Money = serde_json::from_slice(body).map_err(body_error)?;
    Ok((m.amount, m.idempotency_key))
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
        .route("/admin/players/{id}", get(inspect_player))
        .route("/admin/players/{id}/deposit", post(deposit))
        .route("/admin/players/{id}/withdraw", post(withdraw))
        .route("/admin/players/{id}/ledger", get(ledger))
        .route("/admin/players/{id}/hands", get(player_hands))
        .route("/admin/tables", post(create_table).get(list_tables))
        .route("/admin/tables/{id}", get(inspect_table))
        .route("/admin/tables/{id}/close", post(close_table))
        .route("/admin/tables/{id}/hands", get(table_hands))
        .route("/admin/hands/{id}", get(hand))
        .route("/admin/audit", get(audit))
        .route("/metrics", get(metrics))
        .route("/openapi.json", get(openapi))
}

const OPENAPI: &str = include_str!("../../../docs/openapi.json");

async fn openapi() -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        OPENAPI,
    )
        .into_response()
}

/// `GET /healthz`: 200 when the database answers within 1.5 s, else 503 (at once when
/// it refuses, within 1.5 s when it hangs); it recovers by itself with the database.
async fn healthz(State(state): State<Arc<AppState>>) -> ApiResult<Json<Value>> {
    let probe =
        tokio::time::timeout(std::time::Duration::from_millis(1500), state.store.tables()).await;
    match probe {
        Ok(Ok(_)) => Ok(Json(json!({ "status": "ok" }))),
        Ok(Err(e)) => {
            eprintln!("pokerd: health: the database failed: {e}");
            Err(unavailable())
        }
        Err(_) => Err(unavailable()),
    }
}

fn unavailable() -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "unavailable",
        "the database does not answer",
    )
}

async fn metrics(State(state): State<Arc<AppState>>) -> Response {
    let lobby = state.lobby.list();
    let seated = lobby.iter().map(|t| t.players as usize).sum();
    let body = state.metrics.render(lobby.len(), seated);
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; version=0.0.4",
        )],
        body,
    )
        .into_response()
}

async fn audit(State(state): State<Arc<AppState>>, headers: HeaderMap) -> ApiResult<Json<Value>> {
    authorize(&state, &headers)?;
    let audit = state.store.audit().await?;
    Ok(Json(serde_json::to_value(audit).expect("audits serialize")))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
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
    let name = poker_store::names::player_name(&p.name)?;
    if !poker_store::names::password_ok(&p.password) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_password",
            crate::accounts::PASSWORD_RULE,
        ));
    }
    let hash = state.accounts.hash(p.password).await?;
    let id = state.store.create_player(&name, &hash).await?;
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

/// A player: wallet balance and the seats they hold, with their stacks.
async fn inspect_player(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    authorize(&state, &headers)?;
    let player: PlayerId = parse_id(&id, "player")?;
    let p = state
        .store
        .players()
        .await?
        .into_iter()
        .find(|p| p.player_id == player)
        .ok_or(StoreError::NotFound("player"))?;
    let balance = state.store.balance(player).await?;
    let mut seats = Vec::new();
    for t in state.store.tables().await? {
        for seat in state.store.seats(t.table_id).await? {
            if seat.player_id == player {
                seats.push(json!({
                    "table_id": t.table_id.to_string(),
                    "table_name": t.name,
                    "seat": seat.seat_no,
                    "stack": seat.stack,
                    "sitting_out": seat.sitting_out,
                }));
            }
        }
    }
    Ok(Json(json!({
        "player_id": p.player_id.to_string(),
        "name": p.name,
        "created_at": p.created_at,
        "balance": balance,
        "seats": seats,
    })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
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
#[serde(deny_unknown_fields)]
struct NewTable {
    name: String,
    rules: TableRules,
    #[serde(default)]
    clock: crate::table::ClockRules,
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

fn check_new_table(t: NewTable) -> ApiResult<(String, TableSpec)> {
    check_rules(&t.rules)?;
    if t.clock.action_ms == 0 {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_rules",
            "the action clock must give some time",
        ));
    }
    let name = poker_store::names::table_name(&t.name)?;
    Ok((
        name,
        TableSpec {
            rules: t.rules,
            clock: t.clock,
        },
    ))
}

async fn create_table(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Result<Json<NewTable>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    authorize(&state, &headers)?;
    let Json(t) = body?;
    let (name, spec) = check_new_table(t)?;
    let name = name.as_str();
    let config = serde_json::to_string(&spec).expect("rules serialize");
    let id = state.store.create_table(name, &config).await?;
    if let Err(e) = state.open_table(id, name, &config).await {
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
        // (Admin listing reads the store, so closed tables show too.)
        let rules: Value = serde_json::from_str(&t.config).unwrap_or(Value::Null);
        out.push(json!({
            "table_id": t.table_id.to_string(),
            "name": t.name,
            // A table whose task failed is open in the store (a restart reopens it) and
            // failed until then.
            "status": state
                .lobby
                .get(t.table_id)
                .filter(|l| l.status == "failed")
                .map_or(t.status, |l| l.status),
            "rules": rules,
            "seats": seats,
        }));
    }
    Ok(Json(Value::Array(out)))
}

async fn inspect_table(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    authorize(&state, &headers)?;
    let table: TableId = parse_id(&id, "table")?;
    if let Some(handle) = state.table(table).await {
        if let Some(view) = handle.inspect().await {
            return Ok(Json(view));
        }
    }
    let row = state
        .store
        .tables()
        .await?
        .into_iter()
        .find(|t| t.table_id == table)
        .ok_or(StoreError::NotFound("table"))?;
    Ok(Json(json!({
        "table": { "table_id": row.table_id.to_string(), "name": row.name },
        "status": row.status,
        "rules": serde_json::from_str::<Value>(&row.config).unwrap_or(Value::Null),
    })))
}

/// Closes a table: the hand in progress finishes, everyone is cashed out.
async fn close_table(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    authorize(&state, &headers)?;
    let table: TableId = parse_id(&id, "table")?;
    let Some(handle) = state.table(table).await else {
        // A table closed before is a conflict; one never created is not found.
        let known = state
            .store
            .tables()
            .await?
            .into_iter()
            .find(|t| t.table_id == table);
        return Err(match known {
            Some(_) => ApiError::new(
                StatusCode::CONFLICT,
                "closed",
                "the table is already closed",
            ),
            None => ApiError::new(StatusCode::NOT_FOUND, "not_found", "no table with that id"),
        });
    };
    let cashed_out = handle.close().await.ok_or_else(|| {
        ApiError::new(
            StatusCode::CONFLICT,
            "closed",
            "the table is already closed",
        )
    })?;
    state.tables.lock().await.remove(&table);
    Ok(Json(
        json!({ "status": "closed", "cashed_out": cashed_out }),
    ))
}

#[derive(Deserialize)]
struct Page {
    limit: Option<u32>,
    offset: Option<u32>,
    /// `json` (a list, the default) or `pokerstars` (the complete hands as one text,
    /// oldest first, as tracking tools import them).
    format: Option<String>,
}

impl Page {
    /// Hands per page: 1 to 500 (50 unless asked), as the OpenAPI document states.
    fn limit(&self) -> ApiResult<u32> {
        match self.limit.unwrap_or(50) {
            n @ 1..=500 => Ok(n),
            _ => Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "bad_request",
                "limit is 1 to 500",
            )),
        }
    }
}

fn hand_list(rows: Vec<HandRow>) -> Json<Value> {
    let rows: Vec<Value> = rows
        .into_iter()
        .map(|r| {
            json!({
                "hand_id": r.hand_id.to_string(),
                "table_id": r.table_id.to_string(),
                "number": r.number,
                "status": r.status,
                "started_at": r.started_at,
                "ended_at": r.ended_at,
            })
        })
        .collect();
    Json(Value::Array(rows))
}

async fn table_hands(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    page: Result<Query<Page>, QueryRejection>,
) -> ApiResult<Response> {
    authorize(&state, &headers)?;
    let Query(page) = page?;
    let table: TableId = parse_id(&id, "table")?;
    if !state
        .store
        .tables()
        .await?
        .iter()
        .any(|t| t.table_id == table)
    {
        return Err(StoreError::NotFound("table").into());
    }
    let rows = state
        .store
        .table_hands(table, page.limit()?, page.offset.unwrap_or(0))
        .await?;
    hands_in(&state, rows, &page).await
}

/// A page of hands as a JSON list, or as PokerStars text (the operator's view).
async fn hands_in(state: &AppState, rows: Vec<HandRow>, page: &Page) -> ApiResult<Response> {
    match page.format.as_deref().unwrap_or("json") {
        "json" => Ok(hand_list(rows).into_response()),
        "pokerstars" => {
            let names = Names::load(state).await?;
            let mut out = String::new();
            for row in rows.iter().rev().filter(|r| r.status == "complete") {
                // Games without the format are left out of a bulk export.
                if let Ok(text) = pokerstars_text(&names, row, None) {
                    out.push_str(&text);
                    out.push_str("\n\n");
                }
            }
            Ok((
                [(
                    axum::http::header::CONTENT_TYPE,
                    "text/plain; charset=utf-8",
                )],
                out,
            )
                .into_response())
        }
        other => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("unknown format {other:?}: json or pokerstars"),
        )),
    }
}

async fn player_hands(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    page: Result<Query<Page>, QueryRejection>,
) -> ApiResult<Response> {
    authorize(&state, &headers)?;
    let Query(page) = page?;
    let player: PlayerId = parse_id(&id, "player")?;
    state.store.balance(player).await?; // 404 for an unknown player
    let rows = state
        .store
        .player_hands(player, page.limit()?, page.offset.unwrap_or(0))
        .await?;
    hands_in(&state, rows, &page).await
}

#[derive(Deserialize)]
struct Format {
    format: Option<String>,
}

/// A hand by id: `?format=json` (default), `phh`, or `pokerstars`.
async fn hand(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    format: Result<Query<Format>, QueryRejection>,
) -> ApiResult<Response> {
    authorize(&state, &headers)?;
    let Query(format) = format?;
    let hand: HandId = parse_id(&id, "hand")?;
    let row = state.store.hand(hand).await?;
    let text = |body: String| {
        (
            [(
                axum::http::header::CONTENT_TYPE,
                "text/plain; charset=utf-8",
            )],
            body,
        )
            .into_response()
    };
    let unfinished = || {
        ApiError::new(
            StatusCode::CONFLICT,
            "unfinished",
            "the hand has no history (void or in progress)",
        )
    };
    match format.format.as_deref().unwrap_or("json") {
        "json" => Ok(Json(serde_json::to_value(row).expect("hands serialize")).into_response()),
        "phh" => Ok(text(row.phh.ok_or_else(unfinished)?)),
        "pokerstars" => {
            if row.phh.is_none() {
                return Err(unfinished());
            }
            let names = Names::load(&state).await?;
            Ok(text(pokerstars_text(&names, &row, None)?))
        }
        other => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("unknown format {other:?}: json, phh or pokerstars"),
        )),
    }
}

/// A hand in PokerStars text, as the operator sees it (`viewer: None`) or as one of its
/// players does (only their own hole cards, and those shown).
/// Player and table names, loaded once for writing any number of hands.
pub(crate) struct Names {
    players: std::collections::HashMap<String, String>,
    tables: std::collections::HashMap<TableId, String>,
}

impl Names {
    pub(crate) async fn load(state: &AppState) -> ApiResult<Names> {
        Ok(Names {
            players: state
                .store
                .players()
                .await?
                .into_iter()
                .map(|p| (p.player_id.to_string(), p.name))
                .collect(),
            tables: state
                .store
                .tables()
                .await?
                .into_iter()
                .map(|t| (t.table_id, t.name))
                .collect(),
        })
    }
}

pub(crate) fn pokerstars_text(
    names: &Names,
    row: &HandRow,
    viewer: Option<PlayerId>,
) -> ApiResult<String> {
    let phh = row.phh.as_deref().ok_or_else(|| {
        ApiError::new(
            StatusCode::CONFLICT,
            "unfinished",
            "the hand has no history",
        )
    })?;
    let table_name = names.tables.get(&row.table_id).cloned().unwrap_or_default();
    let record = row.record.clone().unwrap_or(Value::Null);
    let ids: Vec<String> = record["seat_players"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|p| p.as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default();
    let players: Vec<String> = ids
        .iter()
        .map(|id| names.players.get(id).cloned().unwrap_or_else(|| id.clone()))
        .collect();
    let seats: Vec<u32> = record["seats"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_u64())
                .map(|s| s as u32 + 1)
                .collect()
        })
        .unwrap_or_default();
    let viewer = match viewer {
        None => None,
        Some(p) => Some(
            ids.iter()
                .position(|id| *id == p.to_string())
                .ok_or_else(|| {
                    ApiError::new(StatusCode::NOT_FOUND, "not_found", "hand not found")
                })?,
        ),
    };
    crate::pokerstars::write(&crate::pokerstars::Meta {
        hand_number: hand_number_for(row),
        table_name: &table_name,
        started_at_ms: row.started_at,
        players: &players,
        seats: &seats,
        seat_count: record["seat_count"].as_u64().unwrap_or(9) as u32,
        phh,
        viewer,
    })
    .map_err(|e| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "unsupported", e))
}

/// A stable numeric hand id for tracking tools: the first 60 bits of the UUID.
fn hand_number_for(row: &HandRow) -> u64 {
    let b = row.hand_id.0.as_bytes();
    u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]) >> 4
}
