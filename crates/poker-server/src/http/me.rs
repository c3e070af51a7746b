//! A player's own view: `/api/me` (name, wallet, seats) and their hand histories,
//! as JSON or PokerStars text with only their own cards and what was shown.

use crate::http::error::*;
use crate::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use poker_store::{HandStatus, TableId};
use serde_json::json;
use std::sync::Arc;

use super::auth::*;

/// `GET /api/me`: who the session is, with the wallet balance, and whether the room
/// plays for play money (then `play_grant` is what a reload refills the wallet to).
pub(crate) async fn me(State(state): State<Arc<AppState>>, Session(me): Session) -> Response {
    let balance = state.store.balance(me.player_id).await.unwrap_or(0);
    let play = state.config.play_money();
    Json(json!({
        "player_id": me.player_id.to_string(),
        "name": me.name,
        "balance": balance,
        "play_money": play,
        "play_grant": if play { Some(state.config.room.play_grant) } else { None },
    }))
    .into_response()
}

/// `POST /api/me/reload`: in a play-money room, refills the wallet to the grant (a
/// deposit with its ledger record; nothing when the wallet holds that much already).
/// A real-money room answers 409 `real_money`.
pub(crate) async fn reload(
    State(state): State<Arc<AppState>>,
    Session(me): Session,
) -> ApiResult<Json<serde_json::Value>> {
    if !state.config.play_money() {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "real_money",
            "this room plays for real money: ask the cashier",
        ));
    }
    let (balance, added) = refill(&state.store, me.player_id, state.config.room.play_grant).await?;
    Ok(Json(json!({ "balance": balance, "added": added })))
}

/// Refills a play-money wallet to `level` (nothing when it holds that much already): a
/// reload with its ledger record, as a player's `POST /api/me/reload` and a house bot
/// short of its buy-in do. Keyed by the wallet's newest movement: two reloads at once
/// see the same one, so only one applies (the other is answered as its repeat). Returns
/// the balance and what was added.
pub(crate) async fn refill(
    store: &poker_store::SqlStore,
    player: poker_store::PlayerId,
    level: poker_rules::Chips,
) -> Result<(poker_rules::Chips, poker_rules::Chips), poker_store::StoreError> {
    let balance = store.balance(player).await?;
    if balance >= level {
        return Ok((balance, 0));
    }
    let added = level - balance;
    let last = store
        .ledger(player, 1)
        .await?
        .first()
        .map_or_else(String::new, |e| e.movement_id.clone());
    let key = format!("reload:{last}");
    let balance = store
        .credit(player, added, poker_store::Credit::Reload, Some(&key))
        .await?;
    Ok((balance, added))
}

/// The query of `GET /api/me/hands`.
#[derive(serde::Deserialize)]
pub(crate) struct MyPage {
    /// How many hands, 1 to 100 (20 unless asked), in the JSON list.
    limit: Option<u32>,
    /// How many of the newest hands to pass over first (paging back), 0 unless asked.
    #[serde(default)]
    offset: u32,
    /// A download of the range's hands as one file: `phh`, `pokerstars` or `ohh`.
    format: Option<String>,
    /// The range: unix milliseconds, from (inclusive)...
    from: Option<i64>,
    /// ...to (exclusive).
    to: Option<i64>,
}

/// `GET /api/me/hands?limit=N&offset=M&from=&to=`: the player's recent hands (in the
/// range, when given), newest first, with their result; `offset` pages back through older
/// ones. With `format=phh|pokerstars|ohh`: every hand of the range as one file to download,
/// as the player may see them ([`super::history::download`]; `limit` and `offset` are the
/// list's alone). A range (or a download) that starts before the archive's cutoff is
/// refused, 410 `archived`; the list without a range pages back to the cutoff.
pub(crate) async fn my_hands(
    State(state): State<Arc<AppState>>,
    Session(me): Session,
    q: Result<axum::extract::Query<MyPage>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let page = match q {
        Ok(axum::extract::Query(page)) => page,
        Err(e) => return ApiError::from(e).into_response(),
    };
    let range = super::history::Range {
        from: page.from,
        to: page.to,
    };
    let limit = match page.limit {
        None => 20,
        Some(n @ 1..=100) => n,
        Some(_) => return refused(StatusCode::BAD_REQUEST, "bad_request", "limit is 1 to 100"),
    };
    if let Some(format) = page.format {
        if !["phh", "pokerstars", "ohh"].contains(&format.as_str()) {
            return refused(
                StatusCode::BAD_REQUEST,
                "bad_request",
                "a download's format is phh, pokerstars or ohh",
            );
        }
        return super::history::download(&state, me.player_id, &format, &range)
            .await
            .into_response();
    }
    let rows = if page.from.is_some() || page.to.is_some() {
        // The range's newest hands, unless some of it is archived.
        if let Err(e) = super::history::refuse_archived(&state, &range).await {
            return e.into_response();
        }
        super::history::hands_in_range(&state, me.player_id, &range)
            .await
            .map(|rows| {
                rows.into_iter()
                    .rev()
                    .skip(page.offset as usize)
                    .take(limit as usize)
                    .collect()
            })
    } else {
        state
            .store
            .player_hands(me.player_id, limit, page.offset)
            .await
            .map_err(ApiError::from)
    };
    let rows: Vec<poker_store::HandRow> = match rows {
        Ok(rows) => rows,
        Err(e) => return e.into_response(),
    };
    // The names of these hands' tables only.
    let mut names: std::collections::HashMap<TableId, String> = Default::default();
    for row in &rows {
        if let std::collections::hash_map::Entry::Vacant(entry) = names.entry(row.table_id) {
            if let Ok(t) = state.store.table(row.table_id).await {
                entry.insert(t.name);
            }
        }
    }
    let hands: Vec<serde_json::Value> = rows
        .into_iter()
        .filter(|r| r.status == HandStatus::Complete)
        .map(|r| {
            let net = r.record.as_ref().and_then(|rec| rec.net(me.player_id));
            let board = r.record.as_ref().map(|rec| rec.board.clone());
            json!({
                "hand_id": r.hand_id.to_string(),
                "table_id": r.table_id.to_string(),
                "table_name": names.get(&r.table_id).cloned().unwrap_or_default(),
                "number": r.number,
                "started_at": r.started_at,
                "net": net,
                "board": board,
            })
        })
        .collect();
    Json(serde_json::Value::Array(hands)).into_response()
}

/// The format of one of the player's hands.
#[derive(serde::Deserialize)]
pub(crate) struct MyFormat {
    format: Option<String>,
}

/// `GET /api/me/hands/{id}`: one of the player's hands as PokerStars text (the default),
/// PHH (`?format=phh`), Open Hand History with the player as hero (`?format=ohh`) or, for
/// the browser's replayer, the hand's events in the protocol's
/// words with the seats, names and stacks (`?format=replay`); each with only their own
/// hole cards and those shown at showdown.
pub(crate) async fn my_hand(
    State(state): State<Arc<AppState>>,
    Session(me): Session,
    axum::extract::Path(id): axum::extract::Path<String>,
    format: Result<axum::extract::Query<MyFormat>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let not_found = || refused(StatusCode::NOT_FOUND, "not_found", "hand not found");
    let format = match format {
        Ok(axum::extract::Query(f)) => f.format.unwrap_or_else(|| "pokerstars".into()),
        Err(e) => return ApiError::from(e).into_response(),
    };
    if !["pokerstars", "phh", "ohh", "replay"].contains(&format.as_str()) {
        return refused(
            StatusCode::BAD_REQUEST,
            "bad_request",
            "format is pokerstars, phh, ohh or replay",
        );
    }
    let Ok(hand) = id.parse() else {
        return not_found();
    };
    let Ok(row) = state.store.hand(hand).await else {
        return not_found();
    };
    if format == "replay" {
        return match crate::http::formats::my_replay(&state, &row, Some(me.player_id)).await {
            Ok(json) => axum::Json(json).into_response(),
            Err(e) => e.into_response(),
        };
    }
    if format == "ohh" {
        let names = match crate::http::formats::Names::load(&state, [&row]).await {
            Ok(names) => names,
            Err(e) => return e.into_response(),
        };
        return match crate::http::ohh::document(&state, &names, &row, Some(me.player_id)) {
            Ok(doc) => crate::http::ohh::json(&doc),
            Err(e) => e.into_response(),
        };
    }
    let text = if format == "phh" {
        // With the deck's proofs of the cards the player saw, as user-defined fields.
        crate::http::formats::my_phh(&row, me.player_id).and_then(|own| {
            let index = row.record.as_ref().and_then(|r| r.index_of(me.player_id));
            let proof = crate::http::proofs::hand_proof(&row, index)?;
            Ok(crate::http::proofs::with_fields(own, proof.as_ref()))
        })
    } else {
        match crate::http::formats::Names::load(&state, [&row]).await {
            Ok(names) => crate::http::formats::pokerstars_text(&names, &row, Some(me.player_id)),
            Err(e) => Err(e),
        }
    };
    match text {
        Ok(text) => (
            [(
                axum::http::header::CONTENT_TYPE,
                "text/plain; charset=utf-8",
            )],
            text,
        )
            .into_response(),
        Err(e) => e.into_response(),
    }
}
