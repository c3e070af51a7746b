//! Players and their money: create, list, inspect, deposit and withdraw (idempotent by
//! key), the ledger, and the room's audit.

use crate::AppState;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use poker_store::{PlayerId, Store, StoreError};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;

use crate::http::auth::*;
use crate::http::error::*;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NewPlayer {
    name: String,
    password: String,
}

pub(crate) async fn create_player(
    State(state): State<Arc<AppState>>,
    _: Admin,
    body: Result<Json<NewPlayer>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let Json(p) = body?;
    let name = poker_store::names::player_name(&p.name)?;
    if !poker_store::names::password_ok(&p.password) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_password",
            crate::http::guard::PASSWORD_RULE,
        ));
    }
    let hash = state.accounts.hash(p.password).await?;
    let id = state.store.create_player(&name, &hash).await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({ "player_id": id.to_string(), "name": name })),
    ))
}

pub(crate) async fn list_players(
    State(state): State<Arc<AppState>>,
    _: Admin,
) -> ApiResult<Json<Value>> {
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
pub(crate) async fn inspect_player(
    State(state): State<Arc<AppState>>,
    _: Admin,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
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
pub(crate) struct Money {
    amount: u64,
    idempotency_key: Option<String>,
}

/// Reads a deposit or withdrawal body: the amount and the idempotency key.
pub fn parse_money(body: &[u8]) -> ApiResult<(u64, Option<String>)> {
    let m: Money = serde_json::from_slice(body).map_err(body_error)?;
    Ok((m.amount, m.idempotency_key))
}

/// Deposits into or withdraws from a wallet, applied once per idempotency key.
pub(crate) async fn move_money(
    state: Arc<AppState>,
    id: String,
    body: Result<Json<Money>, JsonRejection>,
    deposit: bool,
) -> ApiResult<Json<Value>> {
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

pub(crate) async fn deposit(
    State(state): State<Arc<AppState>>,
    _: Admin,
    Path(id): Path<String>,
    body: Result<Json<Money>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    move_money(state, id, body, true).await
}

pub(crate) async fn withdraw(
    State(state): State<Arc<AppState>>,
    _: Admin,
    Path(id): Path<String>,
    body: Result<Json<Money>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    move_money(state, id, body, false).await
}

pub(crate) async fn ledger(
    State(state): State<Arc<AppState>>,
    _: Admin,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let player: PlayerId = parse_id(&id, "player")?;
    state.store.balance(player).await?;
    let entries = state.store.ledger(player, 200).await?;
    Ok(Json(
        serde_json::to_value(entries).expect("entries serialize"),
    ))
}

pub(crate) async fn audit(State(state): State<Arc<AppState>>, _: Admin) -> ApiResult<Json<Value>> {
    let audit = state.store.audit().await?;
    Ok(Json(serde_json::to_value(audit).expect("audits serialize")))
}
