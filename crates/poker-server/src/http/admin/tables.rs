//! Tables: create from a game and betting structure checked in full before anything is
//! stored, list, inspect the live state, close (the hand in progress finishes first).

use crate::table::{ClockRules, TableSpec};
use crate::AppState;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use poker_rules::table::{Table, TableRules};
use poker_rules::{HandConfig, SeatConfig};
use poker_store::{StoreError, TableId};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;

use super::rule_problems;
use crate::http::auth::*;
use crate::http::error::*;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NewTable {
    name: String,
    rules: TableRules,
    #[serde(default)]
    clock: ClockRules,
    #[serde(default)]
    chat: crate::table::ChatRules,
    #[serde(default)]
    rabbit_hunt: bool,
}

/// Checks table rules the way the table and its hands will use them; a refusal names the
/// rule it concerns (its `problems`).
pub(crate) fn check_rules(rules: &TableRules) -> ApiResult<()> {
    let bad = |p: Problem| {
        ApiError::new(StatusCode::BAD_REQUEST, "invalid_rules", p.message.clone())
            .with_problems(vec![p])
    };
    Table::<u32>::new(rules.clone()).map_err(|e| bad(rule_problems::table_problem(rules, &e)))?;
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
    probe
        .validate()
        .map_err(|e| bad(rule_problems::config_problem(rules, &e)))
}

/// A table name as stored, or its refusal naming the field `name`.
fn checked_name(raw: &str) -> ApiResult<String> {
    poker_store::names::table_name(raw).map_err(|e| {
        let message = e.to_string();
        ApiError::from(e).with_problems(vec![Problem {
            field: "name".into(),
            message,
        }])
    })
}

/// The longest time any of a table's clock settings may give, in milliseconds (a day):
/// a deadline is the time asked plus a setting, and past this bound it could overflow the
/// clock's instant and stop the table.
pub const MAX_CLOCK_MS: u64 = 24 * 60 * 60 * 1000;

/// Checks a table's clock: some time to act, and no setting longer than [`MAX_CLOCK_MS`].
pub(crate) fn check_clock(clock: &ClockRules) -> ApiResult<()> {
    let bad = |field: &str, message: String| {
        ApiError::new(StatusCode::BAD_REQUEST, "invalid_rules", message.clone()).with_problems(
            vec![Problem {
                field: format!("clock.{field}"),
                message,
            }],
        )
    };
    if clock.action_ms == 0 {
        return Err(bad(
            "action_ms",
            "the action clock must give some time".into(),
        ));
    }
    let times = [
        ("action_ms", clock.action_ms),
        ("warning_ms", clock.warning_ms),
        ("time_bank_ms", clock.time_bank_ms),
        ("between_hands_ms", clock.between_hands_ms),
        ("showdown_ms", clock.showdown_ms),
        ("seat_offer_ms", clock.seat_offer_ms),
    ];
    if let Some((field, ms)) = times.into_iter().find(|&(_, ms)| ms > MAX_CLOCK_MS) {
        return Err(bad(
            field,
            format!("{field} is {ms}: a clock setting is at most {MAX_CLOCK_MS} ms (a day)"),
        ));
    }
    Ok(())
}

pub(crate) fn check_new_table(t: NewTable) -> ApiResult<(String, TableSpec)> {
    check_rules(&t.rules)?;
    check_clock(&t.clock)?;
    let name = checked_name(&t.name)?;
    Ok((
        name,
        TableSpec {
            rules: t.rules,
            clock: t.clock,
            chat: t.chat,
            rabbit_hunt: t.rabbit_hunt,
            private: None,
        },
    ))
}

/// Reads and checks a `POST /admin/tables` body exactly as the route does: the table's
/// name and what it will be created with.
pub fn parse_new_table(body: &[u8]) -> ApiResult<(String, TableSpec)> {
    let value: Value = serde_json::from_slice(body).map_err(body_error)?;
    new_table_from(value)
}

/// Every problem of a create-table body at once (missing, unknown and mistyped fields),
/// then the rules checked as the engine will use them.
fn new_table_from(value: Value) -> ApiResult<(String, TableSpec)> {
    let problems = table_problems(&value);
    if !problems.is_empty() {
        // A bad name alone keeps its own code (invalid_name).
        if let (1, Some(Value::String(name))) = (problems.len(), value.get("name")) {
            checked_name(name)?;
        }
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_rules",
            problems.join("; "),
        )
        .with_problems(
            problems
                .iter()
                .map(|p| rule_problems::shape_problem(p))
                .collect(),
        ));
    }
    check_new_table(serde_json::from_value(value).map_err(body_error)?)
}

/// The problems of a create-table body that its shape shows: each missing field, each
/// unknown one, each value of the wrong type (tried field by field against a complete
/// set of rules, so one mistake does not hide the next).
pub fn table_problems(value: &Value) -> Vec<String> {
    const FIELDS: [&str; 5] = ["name", "rules", "clock", "chat", "rabbit_hunt"];
    const OPTIONAL_RULES: [&str; 4] = ["options", "straddle", "bomb_pot", "dealers_choice"];
    let Some(body) = value.as_object() else {
        return vec!["the body must be a JSON object with name and rules".into()];
    };
    let mut out = Vec::new();
    for key in body.keys().filter(|k| !FIELDS.contains(&k.as_str())) {
        out.push(format!(
            "{key}: unknown field (expected one of {})",
            FIELDS.join(", ")
        ));
    }
    match body.get("name") {
        None => out.push("name: missing".into()),
        Some(Value::String(n)) => {
            if let Err(e) = poker_store::names::table_name(n) {
                out.push(format!("name: {e}"));
            }
        }
        Some(_) => out.push("name: must be text".into()),
    }
    let reference = crate::presets::all()[0].body["rules"].clone();
    let known = reference
        .as_object()
        .expect("a preset's rules are an object");
    match body.get("rules") {
        None => out.push("rules: missing".into()),
        Some(Value::Object(rules)) => {
            for key in known.keys() {
                if !rules.contains_key(key) && !OPTIONAL_RULES.contains(&key.as_str()) {
                    out.push(format!("rules.{key}: missing"));
                }
            }
            for (key, v) in rules {
                if !known.contains_key(key) && !OPTIONAL_RULES.contains(&key.as_str()) {
                    out.push(format!("rules.{key}: unknown rule"));
                    continue;
                }
                let mut probe = reference.clone();
                probe[key] = v.clone();
                if let Err(e) = serde_json::from_value::<TableRules>(probe) {
                    out.push(format!("rules.{key}: {e}"));
                }
            }
        }
        Some(_) => out.push("rules: must be an object".into()),
    }
    if let Some(c) = body.get("clock") {
        if let Err(e) = serde_json::from_value::<ClockRules>(c.clone()) {
            out.push(format!("clock: {e}"));
        }
    }
    if let Some(c) = body.get("chat") {
        if let Err(e) = serde_json::from_value::<crate::table::ChatRules>(c.clone()) {
            out.push(format!("chat: {e}"));
        }
    }
    if body.get("rabbit_hunt").is_some_and(|v| !v.is_boolean()) {
        out.push("rabbit_hunt: must be true or false".into());
    }
    out
}

pub(crate) async fn create_table(
    State(state): State<Arc<AppState>>,
    who: Admin,
    body: Result<Json<Value>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    who.may(Duty::Floor)?;
    let Json(value) = body?;
    let (name, spec) = new_table_from(value)?;
    let id = open_new_table(&state, &name, &spec).await?;
    who.audit(
        &state,
        "create_table",
        &id.to_string(),
        json!({ "name": name, "spec": spec }),
    )
    .await;
    Ok((
        StatusCode::CREATED,
        Json(json!({ "table_id": id.to_string() })),
    ))
}

/// Stores a checked table and starts it.
pub(crate) async fn open_new_table(
    state: &Arc<AppState>,
    name: &str,
    spec: &TableSpec,
) -> ApiResult<TableId> {
    let config = serde_json::to_string(spec).expect("rules serialize");
    let id = state.store.create_table(name, &config).await?;
    if let Err(e) = state.open_table(id, name, &config).await {
        tracing::error!("cannot open table {id}: {e:#}");
        return Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "internal error",
        ));
    }
    Ok(id)
}

pub(crate) async fn list_tables(
    State(state): State<Arc<AppState>>,
    _: Admin,
) -> ApiResult<Json<Value>> {
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
                .filter(|l| l.status == poker_protocol::TableStatus::Failed)
                .map_or(t.status.to_string(), |_| "failed".to_string()),
            "rules": rules,
            "seats": seats,
        }));
    }
    Ok(Json(Value::Array(out)))
}

/// A table as the store has it (closed ones too).
async fn table_row(state: &AppState, table: TableId) -> ApiResult<poker_store::TableRow> {
    Ok(state
        .store
        .tables()
        .await?
        .into_iter()
        .find(|t| t.table_id == table)
        .ok_or(StoreError::NotFound("table"))?)
}

pub(crate) async fn inspect_table(
    State(state): State<Arc<AppState>>,
    _: Admin,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let table: TableId = parse_id(&id, "table")?;
    if let Some(handle) = state.table(table).await {
        if let Some(view) = handle.inspect().await {
            return Ok(Json(view));
        }
    }
    let row = table_row(&state, table).await?;
    Ok(Json(json!({
        "table": { "table_id": row.table_id.to_string(), "name": row.name },
        "status": row.status,
        "rules": serde_json::from_str::<Value>(&row.config).unwrap_or(Value::Null),
    })))
}

/// Closes a table: the hand in progress finishes, everyone is cashed out.
pub(crate) async fn close_table(
    State(state): State<Arc<AppState>>,
    who: Admin,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    who.may(Duty::Floor)?;
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
    let cashed_out = state.tables.close(&state, &handle).await.map_err(|_| {
        ApiError::new(
            StatusCode::CONFLICT,
            "closed",
            "the table is already closed",
        )
    })?;
    who.audit(
        &state,
        "close_table",
        &table.to_string(),
        json!({ "cashed_out": cashed_out }),
    )
    .await;
    Ok(Json(
        json!({ "status": "closed", "cashed_out": cashed_out }),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ChatSwitch {
    enabled: bool,
}

/// Turns a table's chat on or off: saved with the table's configuration (a restart keeps
/// it) and told at once to everyone at the table.
pub(crate) async fn switch_chat(
    State(state): State<Arc<AppState>>,
    who: Admin,
    Path(id): Path<String>,
    body: Result<Json<ChatSwitch>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    who.may(Duty::Floor)?;
    let table: TableId = parse_id(&id, "table")?;
    let Json(switch) = body?;
    let Some(handle) = state.table(table).await else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "no open table with that id",
        ));
    };
    let row = table_row(&state, table).await?;
    let mut spec: TableSpec = serde_json::from_str(&row.config).map_err(|e| {
        StoreError::Corrupt(format!("table {table}: configuration unreadable: {e}"))
    })?;
    spec.chat.enabled = switch.enabled;
    let config = serde_json::to_string(&spec).expect("rules serialize");
    state.store.set_table_config(table, &config).await?;
    if !handle.switch_chat(switch.enabled).await {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "no open table with that id",
        ));
    }
    who.audit(
        &state,
        "switch_chat",
        &table.to_string(),
        json!({ "enabled": switch.enabled }),
    )
    .await;
    Ok(Json(json!({ "enabled": switch.enabled })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CloneTable {
    name: Option<String>,
}

/// Opens a new table with the rules, clock, chat and rabbit hunt of another (open or
/// closed); named "NAME (2)" unless a name is given.
pub(crate) async fn clone_table(
    State(state): State<Arc<AppState>>,
    who: Admin,
    Path(id): Path<String>,
    body: Result<Json<CloneTable>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    who.may(Duty::Floor)?;
    let table: TableId = parse_id(&id, "table")?;
    let row = table_row(&state, table).await?;
    let mut spec: TableSpec = serde_json::from_str(&row.config).map_err(|e| {
        StoreError::Corrupt(format!("table {table}: configuration unreadable: {e}"))
    })?;
    // A clone is the room's table, in the lobby: neither a host nor an invite.
    spec.private = None;
    // Checked as a new table: the table cloned may be one an older version stored with
    // rules refused now (an 8-seat stud table, which would stall once full).
    check_rules(&spec.rules)?;
    check_clock(&spec.clock)?;
    let Json(c) = body?;
    // "NAME (2)", shortened so that it stays a valid name.
    let default = || {
        let keep = poker_store::names::TABLE_NAME_MAX - 4;
        let base: String = row.name.chars().take(keep).collect();
        format!("{} (2)", base.trim_end())
    };
    let name = poker_store::names::table_name(&c.name.unwrap_or_else(default))?;
    let id = open_new_table(&state, &name, &spec).await?;
    who.audit(
        &state,
        "clone_table",
        &id.to_string(),
        json!({ "from": table.to_string(), "name": name }),
    )
    .await;
    Ok((
        StatusCode::CREATED,
        Json(json!({ "table_id": id.to_string(), "name": name })),
    ))
}

/// The table presets the console creates from: complete create-table bodies.
pub(crate) async fn presets(_: Admin) -> Json<Value> {
    Json(Value::Array(
        crate::presets::all()
            .into_iter()
            .map(|p| json!({ "key": p.key, "body": p.body }))
            .collect(),
    ))
}
