//! Hand histories for the operator: pages of a table's or a player's hands, one hand as
//! JSON, PHH, PokerStars text, Open Hand History or the replayer's record.
//!
//! Each history is written for one viewer, because readers take the one player whose
//! cards are dealt face up for the history's owner: `?viewer=PLAYER_ID` writes a
//! player's own history (what they download themselves); without it the text is the
//! house's view, an observer's history that deals nobody's cards face up and adds the
//! hands mucked at the showdown to the summary. Every card of a hand is in the house's
//! PHH, OHH and replay formats; with `viewer` they hold what that player saw.

use crate::AppState;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use poker_store::{HandId, HandRow, HandStatus, PlayerId, TableId};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;

use crate::http::auth::*;
use crate::http::error::*;
use crate::http::formats::{pokerstars_text, Names};

#[derive(Deserialize)]
pub(crate) struct Page {
    limit: Option<u32>,
    offset: Option<u32>,
    /// `json` (a list, the default), `pokerstars` (the complete hands as one text,
    /// oldest first, as tracking tools import them) or `ohh` (Open Hand History, one
    /// object per hand; hands of games it cannot express are left out and counted).
    format: Option<String>,
    /// With `pokerstars` or `ohh`: the player whose history it is (the hands they were
    /// dealt into, as they see them); without it, the house's view of every hand.
    viewer: Option<String>,
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

pub(crate) fn hand_list(rows: Vec<HandRow>) -> Json<Value> {
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

pub(crate) async fn table_hands(
    State(state): State<Arc<AppState>>,
    _: Admin,
    Path(id): Path<String>,
    page: Result<Query<Page>, QueryRejection>,
) -> ApiResult<Response> {
    let Query(page) = page?;
    let table: TableId = parse_id(&id, "table")?;
    state.store.table(table).await?; // 404 for an unknown table
    let rows = state
        .store
        .table_hands(table, page.limit()?, page.offset.unwrap_or(0))
        .await?;
    hands_in(&state, rows, &page).await
}

/// A page of hands as a JSON list, or as PokerStars text (the house's view, or one
/// player's).
pub(crate) async fn hands_in(
    state: &AppState,
    rows: Vec<HandRow>,
    page: &Page,
) -> ApiResult<Response> {
    // A viewer that is not a player id is refused whatever the format.
    let viewer = viewer(page.viewer.as_deref())?;
    match page.format.as_deref().unwrap_or("json") {
        "json" => Ok(hand_list(rows).into_response()),
        "pokerstars" => {
            let names = Names::load(state, &rows).await?;
            let mut out = String::new();
            for row in rows.iter().rev().filter(|r| {
                // A player's history holds the hands they were dealt into.
                r.status == HandStatus::Complete
                    && viewer
                        .is_none_or(|v| r.record.as_ref().and_then(|rec| rec.index_of(v)).is_some())
            }) {
                // Every game has the format: a hand that cannot be written is damaged,
                // and an export that silently left it out would mislead.
                let text = pokerstars_text(&names, row, viewer).map_err(|e| {
                    tracing::error!("hand {} cannot be written: {}", row.hand_id, e.message);
                    ApiError::new(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "internal",
                        format!("hand {} could not be written", row.hand_id),
                    )
                })?;
                out.push_str(&text);
                out.push_str("\n\n");
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
        "ohh" => {
            let names = Names::load(state, &rows).await?;
            // As for PokerStars text: a player's view holds the hands they were dealt into.
            let complete = rows.iter().rev().filter(|r| {
                r.status == HandStatus::Complete
                    && viewer
                        .is_none_or(|v| r.record.as_ref().and_then(|rec| rec.index_of(v)).is_some())
            });
            let (docs, omitted) = crate::http::ohh::documents(state, &names, complete, viewer)?;
            Ok(crate::http::ohh::file(&docs, omitted, "hands.ohh"))
        }
        other => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("unknown format {other:?}: json, pokerstars or ohh"),
        )),
    }
}

pub(crate) async fn player_hands(
    State(state): State<Arc<AppState>>,
    _: Admin,
    Path(id): Path<String>,
    page: Result<Query<Page>, QueryRejection>,
) -> ApiResult<Response> {
    let Query(page) = page?;
    let player: PlayerId = parse_id(&id, "player")?;
    state.store.balance(player).await?; // 404 for an unknown player
    let rows = state
        .store
        .player_hands(player, page.limit()?, page.offset.unwrap_or(0))
        .await?;
    hands_in(&state, rows, &page).await
}

/// The `viewer` of an export, if one is asked: a value that is not a player id is a bad
/// request (400), whatever the format; a player id nobody has is a viewer who was dealt
/// into no hand (404 for a hand, an empty page for a list).
fn viewer(viewer: Option<&str>) -> ApiResult<Option<PlayerId>> {
    viewer
        .map(|v| {
            v.parse().map_err(|_| {
                ApiError::new(
                    StatusCode::BAD_REQUEST,
                    "bad_request",
                    "viewer is not a player id",
                )
            })
        })
        .transpose()
}

#[derive(Deserialize)]
pub(crate) struct Format {
    format: Option<String>,
    /// With `pokerstars`, `phh`, `ohh` or `replay`: the player whose history it is
    /// (404 if they were not dealt in), as their own download holds it; without it, the
    /// house's view.
    viewer: Option<String>,
}

/// A hand by id: `?format=json` (default), `phh` (with the deck's proofs of every card
/// dealt as user-defined fields), `pokerstars` (the house's view, or `&viewer=PLAYER_ID`'s),
/// `ohh` (Open Hand History, the operator's view), or `replay` (the record the replayer
/// and `pokerd verify` read, every card shown, with every proof); each of the last four
/// as one player saw the hand with `&viewer=PLAYER_ID`.
pub(crate) async fn hand(
    State(state): State<Arc<AppState>>,
    _: Admin,
    Path(id): Path<String>,
    format: Result<Query<Format>, QueryRejection>,
) -> ApiResult<Response> {
    let Query(format) = format?;
    let hand: HandId = parse_id(&id, "hand")?;
    // A viewer that is not a player id is refused whatever the format.
    let viewer = viewer(format.viewer.as_deref())?;
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
        "phh" => {
            let history = row.phh.clone().ok_or_else(unfinished)?;
            // One player's view: their own cards and those shown, with the proofs of
            // the cards they saw (what their own download holds).
            let (history, index) = match viewer {
                None => (history, None),
                Some(v) => (
                    crate::http::formats::my_phh(&row, v)?,
                    row.record.as_ref().and_then(|r| r.index_of(v)),
                ),
            };
            let proof = crate::http::proofs::hand_proof(&row, index)?;
            Ok(text(crate::http::proofs::with_fields(
                history,
                proof.as_ref(),
            )))
        }
        "replay" => {
            if row.phh.is_none() {
                return Err(unfinished());
            }
            Ok(Json(crate::http::formats::my_replay(&state, &row, viewer).await?).into_response())
        }
        "pokerstars" => {
            if row.phh.is_none() {
                return Err(unfinished());
            }
            let names = Names::load(&state, [&row]).await?;
            Ok(text(pokerstars_text(&names, &row, viewer)?))
        }
        "ohh" => {
            if row.phh.is_none() {
                return Err(unfinished());
            }
            let names = Names::load(&state, [&row]).await?;
            let doc = crate::http::ohh::document(&state, &names, &row, viewer)?;
            Ok(crate::http::ohh::json(&doc))
        }
        other => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("unknown format {other:?}: json, phh, pokerstars, ohh or replay"),
        )),
    }
}
