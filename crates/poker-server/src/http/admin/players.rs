//! Players and their money: create, find by name (a query answering ids and names
//! together), inspect, deposit and withdraw (idempotent by key), the ledger, locks, password
//! reset codes (the floor) and passwords set directly (admins only), and the room's audit.
//!
//! A path names a player by id only: a name that reads like somebody's id can never be
//! taken for them. Names that read as ids are refused when made ([`poker_store::names`]);
//! accounts named so before that rule keep their name, log in by it, and are marked
//! `name_like_id` in these answers so that the console can warn.

use crate::AppState;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::Json;
use poker_store::{Audit, PlayerId, StoreError};
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
    who: Admin,
    body: Result<Json<NewPlayer>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    who.may(Duty::Floor)?;
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
    who.audit(
        &state,
        "create_player",
        &name,
        json!({ "player_id": id.to_string() }),
    )
    .await;
    Ok((
        StatusCode::CREATED,
        Json(json!({ "player_id": id.to_string(), "name": name })),
    ))
}

/// The query of `GET /admin/players`: `q`, a part of the name (any case).
#[derive(Deserialize)]
pub(crate) struct PlayerSearch {
    q: Option<String>,
}

/// Whether a player matches a search: a part of their name (any case, compatibility
/// forms folded), or the start of their id (with or without hyphens).
fn matches(p: &poker_store::Player, needle: &str) -> bool {
    let key = poker_store::names::name_key(&p.name);
    let id = p.player_id.to_string();
    let hex: String = needle.chars().filter(|c| *c != '-').collect();
    key.contains(needle)
        || (hex.len() >= 4
            && hex.chars().all(|c| c.is_ascii_hexdigit())
            && id.replace('-', "").starts_with(&hex))
}

pub(crate) async fn list_players(
    State(state): State<Arc<AppState>>,
    _: Admin,
    q: Result<axum::extract::Query<PlayerSearch>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Json<Value>> {
    let axum::extract::Query(q) = q?;
    let needle =
        q.q.map(|s| poker_store::names::name_key(s.trim()))
            .filter(|s| !s.is_empty());
    let mut out = Vec::new();
    for p in state.store.players().await? {
        if needle.as_ref().is_some_and(|n| !matches(&p, n)) {
            continue;
        }
        let balance = state.store.balance(p.player_id).await?;
        out.push(json!({
            "player_id": p.player_id.to_string(),
            "name": p.name,
            "balance": balance,
            "locked": p.locked,
            "bot": crate::house::is_bot(&p),
            "name_like_id": poker_store::names::looks_like_id(&p.name),
        }));
    }
    Ok(Json(Value::Array(out)))
}

/// A player named in a path: by id, never by name (404 for anything else).
pub(crate) fn resolve_player(id: &str) -> ApiResult<PlayerId> {
    parse_id(id, "player")
}

/// A player the floor acts on (lock, reset code): the role checked, the player found by
/// id, and never a house bot, the room's own account.
async fn floor_player(state: &AppState, who: &Admin, id: &str) -> ApiResult<PlayerId> {
    who.may(Duty::Floor)?;
    let player = resolve_player(id)?;
    not_a_bot(state, player).await?;
    Ok(player)
}

/// House bots are the room's own accounts: nobody locks them or logs in to them.
async fn not_a_bot(state: &AppState, player: PlayerId) -> ApiResult<()> {
    let is_bot = state
        .store
        .players()
        .await?
        .iter()
        .any(|p| p.player_id == player && crate::house::is_bot(p));
    if is_bot {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "house_bot",
            "a house bot is the room's own account",
        ));
    }
    Ok(())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Lock {
    locked: bool,
}

/// Locks a player out (no login, every session and WebSocket of theirs ends) or lets
/// them back in; their seats and money stay as they are.
/// Like every admin change, it runs to its end even if the client hangs up
/// ([`super::router`]): the lock, the end of the player's sessions and the audit entry.
pub(crate) async fn lock_player(
    State(state): State<Arc<AppState>>,
    who: Admin,
    Path(id): Path<String>,
    body: Result<Json<Lock>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    let player = floor_player(&state, &who, &id).await?;
    let Json(lock) = body?;
    let locked = state.store.set_player_locked(player, lock.locked).await;
    // Told even if the store answered an error: the lock may have been committed with its
    // answer lost, and a needless end only asks the player to sign in again.
    if lock.locked {
        state
            .end_sessions(crate::sessions::SessionEnd::Locked { player_id: player })
            .await;
    }
    locked?;
    who.audit(
        &state,
        if lock.locked {
            "lock_player"
        } else {
            "unlock_player"
        },
        &player.to_string(),
        json!({}),
    )
    .await;
    Ok(Json(
        json!({ "player_id": player.to_string(), "locked": lock.locked }),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NewPassword {
    password: String,
}

/// Sets a player's password directly (admins only: the floor issues a reset code the
/// player uses instead). Every session of theirs ends, any reset code of theirs is void,
/// and at their next login they are told who set it and when.
/// It runs to its end even if the client hangs up ([`super::router`]).
pub(crate) async fn reset_password(
    State(state): State<Arc<AppState>>,
    who: Admin,
    Path(id): Path<String>,
    body: Result<Json<NewPassword>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    who.may(Duty::SetPassword)?;
    let player = floor_player(&state, &who, &id).await?;
    let Json(p) = body?;
    if !poker_store::names::password_ok(&p.password) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_password",
            crate::http::guard::PASSWORD_RULE,
        ));
    }
    let hash = state.accounts.hash(p.password).await?;
    let set = state
        .store
        .staff_set_password(player, &hash, &who.actor, poker_store::now_ms())
        .await;
    // Told even if the store answered an error (the password may be set, its answer lost).
    state
        .end_sessions(crate::sessions::SessionEnd::PasswordReset { player_id: player })
        .await;
    set?;
    who.audit(&state, "reset_password", &player.to_string(), json!({}))
        .await;
    Ok(Json(json!({ "player_id": player.to_string() })))
}

/// A reset code: 20 characters of Crockford's base 32 (100 bits from the OS generator),
/// in groups of five for reading out; letters that look alike are read as one
/// ([`crate::http::accounts::code_hash`]).
fn new_reset_code() -> String {
    use rand::RngCore;
    const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let mut raw = [0u8; 20];
    rand::rngs::OsRng.fill_bytes(&mut raw);
    let chars: Vec<char> = raw
        .iter()
        .map(|b| ALPHABET[usize::from(b % 32)] as char)
        .collect();
    chars
        .chunks(5)
        .map(|c| c.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join("-")
}

/// `POST /admin/players/{id}/reset-code` (floor, admin): a one-time code for the player
/// to set a new password with (`POST /reset-password`), shown here once and kept only
/// as its hash; it expires after `admin.reset_code_minutes` and replaces any earlier
/// one. The player's password and sessions stand until the code is used: issuing one
/// cannot throw a player out of a hand.
pub(crate) async fn issue_reset_code(
    State(state): State<Arc<AppState>>,
    who: Admin,
    Path(id): Path<String>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let player = floor_player(&state, &who, &id).await?;
    let code = new_reset_code();
    let expires_at =
        poker_store::now_ms() + i64::from(state.config.admin.reset_code_minutes) * 60_000;
    state
        .store
        .issue_reset_code(
            player,
            &crate::http::accounts::code_hash(&code),
            &who.actor,
            expires_at,
        )
        .await?;
    who.audit(
        &state,
        "issue_reset_code",
        &player.to_string(),
        json!({ "expires_at": expires_at }),
    )
    .await;
    Ok((
        StatusCode::CREATED,
        Json(json!({ "player_id": player.to_string(), "code": code, "expires_at": expires_at })),
    ))
}

/// A player: wallet balance and the seats they hold, with their stacks.
pub(crate) async fn inspect_player(
    State(state): State<Arc<AppState>>,
    _: Admin,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let player = resolve_player(&id)?;
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
        "locked": p.locked,
        "bot": crate::house::is_bot(&p),
        "name_like_id": poker_store::names::looks_like_id(&p.name),
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
    who: Admin,
    id: String,
    body: Result<Json<Money>, JsonRejection>,
    deposit: bool,
) -> ApiResult<Json<Value>> {
    who.may(Duty::Money)?;
    let player = resolve_player(&id)?;
    let Json(m) = body?;
    if !deposit && state.config.play_money() {
        // Play chips come from nothing (grants, reloads): none may leave as money.
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "play_money",
            "this room plays for play money: nothing can be withdrawn",
        ));
    }
    let key = m.idempotency_key.as_deref();
    let balance = if deposit {
        state.store.deposit(player, m.amount, key).await?
    } else {
        state.store.withdraw(player, m.amount, key).await?
    };
    who.audit(
        &state,
        if deposit { "deposit" } else { "withdraw" },
        &player.to_string(),
        json!({ "amount": m.amount, "idempotency_key": m.idempotency_key, "balance": balance }),
    )
    .await;
    Ok(Json(json!({ "balance": balance })))
}

pub(crate) async fn deposit(
    State(state): State<Arc<AppState>>,
    who: Admin,
    Path(id): Path<String>,
    body: Result<Json<Money>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    move_money(state, who, id, body, true).await
}

pub(crate) async fn withdraw(
    State(state): State<Arc<AppState>>,
    who: Admin,
    Path(id): Path<String>,
    body: Result<Json<Money>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    move_money(state, who, id, body, false).await
}

/// `GET /admin/players/{id}/ledger`: the player's newest 200 ledger lines, each seat
/// account's with the name of its table.
pub(crate) async fn ledger(
    State(state): State<Arc<AppState>>,
    _: Admin,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let player = resolve_player(&id)?;
    state.store.balance(player).await?;
    let entries = state.store.ledger(player, 200).await?;
    let named = super::names::name_ledger(&state, entries).await?;
    Ok(Json(
        serde_json::to_value(named).expect("entries serialize"),
    ))
}

/// `GET /admin/audit`'s query.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AuditQuery {
    /// Read the whole ledger instead of the rows after the last checkpoint (false unless
    /// asked).
    full: Option<bool>,
}

/// `GET /admin/audit`: the books, from the last checkpoint on (`?full=true`: the whole
/// ledger, not trusting the checkpoint).
pub(crate) async fn audit(
    State(state): State<Arc<AppState>>,
    _: Admin,
    q: Result<Query<AuditQuery>, QueryRejection>,
) -> ApiResult<Json<Audit>> {
    let Query(q) = q?;
    let audit = if q.full.unwrap_or(false) {
        state.store.audit_full().await?
    } else {
        state.store.audit().await?
    };
    Ok(Json(audit))
}
