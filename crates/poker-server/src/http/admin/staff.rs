//! The card room's staff: signing in to the console (`POST /admin/login`, guarded like
//! players' logins), who is signed in, staff accounts with their roles (made by an admin),
//! revoking them (disable and enable, another role, a new password, signing them out
//! everywhere: admins only, each audited), the audit log of every staff action, and the
//! rake collected per day and table.
//!
//! A staff session ends when its account is disabled (at once: the next request is 401),
//! after `admin.staff_idle_minutes` without a request (each request moves the limit on),
//! and after `server.session_hours` in any case. The last enabled admin account cannot be
//! disabled or demoted from a staff session (409 `last_admin`), so that no admin locks
//! the room's staff out of staff management by mistake; the admin token may (whoever holds
//! it can always make another admin).

use crate::AppState;
use axum::extract::rejection::JsonRejection;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use poker_store::{now_ms, Role, Staff, StoreError};
use rand::RngCore;
use serde::Deserialize;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::Arc;

use crate::http::auth::*;
use crate::http::error::*;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StaffLogin {
    name: String,
    password: String,
}

/// `POST /admin/login`: a staff member signs in; the answer carries a session token to
/// send as the bearer token of the admin API. Lockouts as for players' logins.
pub(crate) async fn login(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Result<Json<StaffLogin>, JsonRejection>,
) -> Result<Json<Value>, axum::response::Response> {
    use axum::response::IntoResponse;
    let e = |e: ApiError| e.into_response();
    let Json(body) = body.map_err(|r| e(r.into()))?;
    let server = &state.config.server;
    let ip = crate::http::guard::client_address(server, peer, &headers);
    let key = format!("staff:{}", poker_store::names::name_key(body.name.trim()));
    if let Err(too_many) = state.accounts.may_bear(&state.config.admin, ip) {
        return Err(too_many.into_response());
    }
    if let Err(too_many) = state.accounts.may_login(server, &key, ip) {
        return Err(too_many.into_response());
    }
    let staff = if poker_store::names::password_ok(&body.password) {
        match state.store.staff_by_name(&body.name).await {
            Ok(s) => Some(s),
            Err(StoreError::NotFound(_)) => None,
            Err(err) => return Err(e(err.into())),
        }
    } else {
        None
    };
    let password = if poker_store::names::password_ok(&body.password) {
        body.password
    } else {
        String::new()
    };
    let right = state
        .accounts
        .verify(password, staff.as_ref().map(|s| s.password_hash.clone()))
        .await
        .map_err(e)?;
    let Some(staff) = staff.filter(|_| right) else {
        state.accounts.failed_login(&key, ip);
        state.accounts.failed_bearer(ip);
        return Err(e(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "wrong name or password",
        )));
    };
    state.accounts.logged_in(&key, ip);
    if staff.disabled {
        return Err(e(ApiError::new(
            StatusCode::FORBIDDEN,
            "disabled",
            "this staff account is disabled: ask an admin",
        )));
    }
    let mut raw = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut raw);
    let token: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    let expires_at = now_ms() + i64::from(server.session_hours) * 3_600_000;
    state
        .store
        .create_staff_session(&token_hash(&token), &staff.staff_id, expires_at)
        .await
        .map_err(|err| e(err.into()))?;
    let who = Admin {
        actor: format!("staff:{}", staff.name),
        role: staff.role,
    };
    who.audit(&state, "sign_in", &staff.name, json!({})).await;
    Ok(Json(json!({
        "token": token,
        "name": staff.name,
        "role": staff.role,
        "expires_at": expires_at,
    })))
}

/// `POST /admin/logout`: ends the staff session of the bearer token (the admin token
/// itself cannot be signed out: it is configuration).
pub(crate) async fn logout(State(state): State<Arc<AppState>>, headers: HeaderMap) -> StatusCode {
    if let Some(token) = bearer(&headers).filter(|t| t.len() <= 256) {
        let _ = state.store.delete_staff_session(&token_hash(token)).await;
    }
    StatusCode::NO_CONTENT
}

/// `GET /admin/whoami`: who the bearer token is, and their role.
pub(crate) async fn whoami(State(state): State<Arc<AppState>>, who: Admin) -> Json<Value> {
    Json(json!({
        "actor": who.actor,
        "role": who.role,
        "play_money": state.config.play_money(),
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NewStaff {
    name: String,
    password: String,
    role: Role,
}

/// `POST /admin/staff` (admins only): a staff account with a role.
pub(crate) async fn create_staff(
    State(state): State<Arc<AppState>>,
    who: Admin,
    body: Result<Json<NewStaff>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    who.may(Duty::Staff)?;
    let Json(s) = body?;
    let name = poker_store::names::player_name(&s.name)?;
    if !poker_store::names::password_ok(&s.password) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_password",
            crate::http::guard::PASSWORD_RULE,
        ));
    }
    let hash = state.accounts.hash(s.password).await?;
    let id = state.store.create_staff(&name, &hash, s.role).await?;
    who.audit(
        &state,
        "create_staff",
        &name,
        json!({ "staff_id": id, "role": s.role }),
    )
    .await;
    Ok((
        StatusCode::CREATED,
        Json(json!({ "staff_id": id, "name": name, "role": s.role })),
    ))
}

/// `GET /admin/staff` (admins only).
pub(crate) async fn list_staff(
    State(state): State<Arc<AppState>>,
    who: Admin,
) -> ApiResult<Json<Value>> {
    who.may(Duty::Staff)?;
    Ok(Json(
        serde_json::to_value(state.store.staff().await?).expect("staff serialize"),
    ))
}

/// A staff account named in a path by its id (never by name); admins only.
async fn staff_target(state: &AppState, who: &Admin, id: &str) -> ApiResult<Staff> {
    who.may(Duty::Staff)?;
    match state.store.staff_by_id(id).await {
        Ok(staff) => Ok(staff),
        Err(StoreError::NotFound(_)) => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "staff not found",
        )),
        Err(e) => Err(e.into()),
    }
}

/// Whether a change must leave an enabled admin: from a staff session it must; the admin
/// token may leave none (whoever holds it can always make another admin).
fn keep_admin(who: &Admin) -> bool {
    who.actor != "token"
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Disable {
    disabled: bool,
}

/// `POST /admin/staff/{id}/disable` (admins only): disables a staff account (no sign-in;
/// every session of theirs ends at once) or enables it again.
pub(crate) async fn disable_staff(
    State(state): State<Arc<AppState>>,
    who: Admin,
    Path(id): Path<String>,
    body: Result<Json<Disable>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    let staff = staff_target(&state, &who, &id).await?;
    let Json(d) = body?;
    state
        .store
        .set_staff_disabled(&staff.staff_id, d.disabled, keep_admin(&who))
        .await?;
    who.audit(
        &state,
        if d.disabled {
            "disable_staff"
        } else {
            "enable_staff"
        },
        &staff.staff_id,
        json!({ "name": staff.name }),
    )
    .await;
    Ok(Json(
        json!({ "staff_id": staff.staff_id, "name": staff.name, "disabled": d.disabled }),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NewRole {
    role: Role,
}

/// `POST /admin/staff/{id}/role` (admins only): another role, in force from their next
/// request.
pub(crate) async fn set_role(
    State(state): State<Arc<AppState>>,
    who: Admin,
    Path(id): Path<String>,
    body: Result<Json<NewRole>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    let staff = staff_target(&state, &who, &id).await?;
    let Json(r) = body?;
    let before = state
        .store
        .set_staff_role(&staff.staff_id, r.role, keep_admin(&who))
        .await?;
    who.audit(
        &state,
        "set_staff_role",
        &staff.staff_id,
        json!({ "name": staff.name, "from": before, "to": r.role }),
    )
    .await;
    Ok(Json(
        json!({ "staff_id": staff.staff_id, "name": staff.name, "role": r.role }),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NewPassword {
    password: String,
}

/// `POST /admin/staff/{id}/password` (admins only): a new password; every session of
/// theirs ends.
pub(crate) async fn set_password(
    State(state): State<Arc<AppState>>,
    who: Admin,
    Path(id): Path<String>,
    body: Result<Json<NewPassword>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    let staff = staff_target(&state, &who, &id).await?;
    let Json(p) = body?;
    if !poker_store::names::password_ok(&p.password) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_password",
            crate::http::guard::PASSWORD_RULE,
        ));
    }
    let hash = state.accounts.hash(p.password).await?;
    state
        .store
        .set_staff_password(&staff.staff_id, &hash)
        .await?;
    who.audit(
        &state,
        "reset_staff_password",
        &staff.staff_id,
        json!({ "name": staff.name }),
    )
    .await;
    Ok(Json(
        json!({ "staff_id": staff.staff_id, "name": staff.name }),
    ))
}

/// `POST /admin/staff/{id}/sign-out` (admins only): ends every session of theirs.
pub(crate) async fn sign_out(
    State(state): State<Arc<AppState>>,
    who: Admin,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let staff = staff_target(&state, &who, &id).await?;
    let ended = state.store.end_staff_sessions(&staff.staff_id).await?;
    who.audit(
        &state,
        "sign_out_staff",
        &staff.staff_id,
        json!({ "name": staff.name, "sessions": ended }),
    )
    .await;
    Ok(Json(
        json!({ "staff_id": staff.staff_id, "name": staff.name, "sessions_ended": ended }),
    ))
}

/// The query of the audit log: a page of it.
#[derive(Deserialize)]
pub(crate) struct Page {
    limit: Option<u32>,
    offset: Option<u32>,
}

/// `GET /admin/audit-log`: who did what, newest first, with the names of who acted and of
/// what it was done to.
pub(crate) async fn audit_log(
    State(state): State<Arc<AppState>>,
    _: Admin,
    q: Result<axum::extract::Query<Page>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Json<Value>> {
    let axum::extract::Query(q) = q?;
    let limit = q.limit.unwrap_or(100);
    if !(1..=500).contains(&limit) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            "limit is 1 to 500",
        ));
    }
    let entries = state
        .store
        .audit_log(limit, q.offset.unwrap_or(0).min(1_000_000))
        .await?;
    let named = super::names::name_audit_log(&state, entries).await?;
    Ok(Json(
        serde_json::to_value(named).expect("entries serialize"),
    ))
}

/// The query of the rake report: how many days back (1 to 366, 30 by default), and how
/// the rows are summed: `day` (one row a day), `table` (one row a table), or absent (one
/// row per table and day).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Days {
    days: Option<u32>,
    by: Option<String>,
}

/// `GET /admin/rake?days=N[&by=day|table]`: the rake collected per day (UTC) and table,
/// with the hands dealt, newest day first; or summed per day (newest first) or per table
/// (the most raked first); and the total. Read from `table_day`, a row per table and day.
pub(crate) async fn rake(
    State(state): State<Arc<AppState>>,
    _: Admin,
    q: Result<axum::extract::Query<Days>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Json<Value>> {
    let axum::extract::Query(q) = q?;
    let days = q.days.unwrap_or(30);
    if !(1..=366).contains(&days) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            "days is 1 to 366",
        ));
    }
    const DAY: i64 = 86_400_000;
    let since = (now_ms() / DAY - i64::from(days) + 1) * DAY;
    let by = match q.by.as_deref() {
        None => None,
        Some("day") => Some(poker_store::RakeBy::Day),
        Some("table") => Some(poker_store::RakeBy::Table),
        Some(_) => {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "bad_request",
                "by is day or table",
            ))
        }
    };
    if by == Some(poker_store::RakeBy::Day) {
        let rows = state
            .store
            .rake_totals(since, poker_store::RakeBy::Day)
            .await?;
        let total: u64 = rows.iter().map(|r| r.rake).sum();
        let rows: Vec<Value> = rows
            .into_iter()
            .map(|r| json!({ "day": r.day, "rake": r.rake, "hands": r.hands }))
            .collect();
        return Ok(Json(json!({ "days": days, "total": total, "rows": rows })));
    }
    let names: std::collections::HashMap<_, _> = state
        .store
        .tables()
        .await?
        .into_iter()
        .map(|t| (t.table_id, t.name))
        .collect();
    if by == Some(poker_store::RakeBy::Table) {
        let rows = state
            .store
            .rake_totals(since, poker_store::RakeBy::Table)
            .await?;
        let total: u64 = rows.iter().map(|r| r.rake).sum();
        let rows: Vec<Value> = rows
            .into_iter()
            .filter_map(|r| {
                let t = r.table_id?;
                Some(json!({
                    "table_id": t.to_string(),
                    "table_name": names.get(&t).cloned().unwrap_or_default(),
                    "rake": r.rake,
                    "hands": r.hands,
                }))
            })
            .collect();
        return Ok(Json(json!({ "days": days, "total": total, "rows": rows })));
    }
    let rows = state.store.rake_by_day(since).await?;
    let total: u64 = rows.iter().map(|r| r.rake).sum();
    let rows: Vec<Value> = rows
        .into_iter()
        .map(|r| {
            json!({
                "day": r.day,
                "table_id": r.table_id.to_string(),
                "table_name": names.get(&r.table_id).cloned().unwrap_or_default(),
                "rake": r.rake,
                "hands": r.hands,
            })
        })
        .collect();
    Ok(Json(json!({ "days": days, "total": total, "rows": rows })))
}
