//! Hands as Open Hand History (`format=ohh`): one hand's OHH document from its stored
//! row, and a `.ohh` file of several, for the operator's export and the players'
//! downloads. The writer is `poker_history::ohh`; this module supplies what the row does
//! not hold itself: names, the table's name, the room's currency, and the viewer.

use crate::http::error::*;
use crate::http::formats::{hand_facts, hand_number_for, Names};
use crate::AppState;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use poker_history::ohh::{self, Document, OhhError};
use poker_store::{HandRow, PlayerId};

/// The site name OHH documents carry.
const SITE: &str = "pokerd";

/// A hand as an OHH document, as the operator sees it (`viewer: None`, flagged
/// `Observed`) or as one of its players does (the hero: their own hole cards and those
/// shown). A game the standard cannot express is refused 422 `unsupported`.
pub(crate) fn document(
    state: &AppState,
    names: &Names,
    row: &HandRow,
    viewer: Option<PlayerId>,
) -> ApiResult<Document> {
    attempt(state, names, row, viewer)?.map_err(|e| match e {
        OhhError::Game(_) | OhhError::SpreadLimit => ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "unsupported",
            e.to_string(),
        ),
        other => damaged(row, &other),
    })
}

/// A hand that should be written and is not: its history is damaged.
fn damaged(row: &HandRow, e: &OhhError) -> ApiError {
    tracing::error!("hand {} cannot be written as OHH: {e}", row.hand_id);
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal",
        format!("hand {} could not be written", row.hand_id),
    )
}

/// The writer's answer for a hand the viewer may see.
fn attempt(
    state: &AppState,
    names: &Names,
    row: &HandRow,
    viewer: Option<PlayerId>,
) -> ApiResult<Result<Document, OhhError>> {
    let facts = hand_facts(names, row, viewer)?;
    let number = hand_number_for(row).to_string();
    Ok(ohh::write(&ohh::Meta {
        site_name: SITE,
        internal_version: env!("CARGO_PKG_VERSION"),
        game_number: &number,
        table_name: &facts.table_name,
        started_at_ms: row.started_at,
        currency: state.config.history_currency(),
        players: &facts.players,
        seats: &facts.seats,
        seat_count: facts.record.seat_count as u32,
        button_seat: facts.button_seat(),
        posts: &facts.record.posts,
        phh: facts.phh,
        viewer: facts.viewer,
    }))
}

/// The OHH documents of several hands, oldest first as given, leaving out the hands in
/// games the standard cannot express (stud, draw, short deck, spread limit): how many were
/// left out is the second value, for the `x-hands-omitted` header.
pub(crate) fn documents<'a>(
    state: &AppState,
    names: &Names,
    rows: impl IntoIterator<Item = &'a HandRow>,
    viewer: Option<PlayerId>,
) -> ApiResult<(Vec<Document>, usize)> {
    let mut out = Vec::new();
    let mut omitted = 0;
    for row in rows {
        match attempt(state, names, row, viewer)? {
            Ok(d) => out.push(d),
            Err(OhhError::Game(_) | OhhError::SpreadLimit) => omitted += 1,
            Err(e) => return Err(damaged(row, &e)),
        }
    }
    Ok((out, omitted))
}

/// One hand's document as a JSON answer.
pub(crate) fn json(document: &Document) -> Response {
    axum::Json(document).into_response()
}

/// A `.ohh` file to download: the documents separated by blank lines (the spec's storage
/// format), named `file`, with how many hands were left out.
pub(crate) fn file(documents: &[Document], omitted: usize, file: &str) -> Response {
    (
        [
            (
                axum::http::header::CONTENT_TYPE,
                "text/plain; charset=utf-8".to_string(),
            ),
            (
                axum::http::header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{file}\""),
            ),
            (
                axum::http::header::HeaderName::from_static("x-hands-omitted"),
                omitted.to_string(),
            ),
        ],
        ohh::file(documents),
    )
        .into_response()
}
