//! A player's own record over a stretch of time: their stats (`GET /api/me/stats`: hands,
//! net, big blinds won per 100 hands) and their history download (`GET /api/me/hands` with
//! `format`: every hand of the range as one PHH or PokerStars file), both worked out from
//! the stored hands, and their private notes on other players (`/api/me/notes`).
//!
//! A download is the per-hand export of `me.rs` for each hand: the player's own hole cards
//! and those shown at showdown, never another player's unshown cards.
//!
//! Hands dealt before the archive's cutoff (`pokerd archive`) are no longer in the
//! database: a download or a list of a range that starts before it is refused (410
//! `archived`), and the stats of such a range count the hands from the cutoff on and say
//! so (`archived_before`).

use crate::http::error::*;
use crate::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use poker_store::{now_ms, HandRow, PlayerId, StoreError, MAX_NOTE_LEN};
use serde_json::json;
use std::sync::Arc;

use super::auth::*;

/// The most hands one stats request or download covers: a range holding more is refused
/// (`too_many_hands`), so that the answer is never a silent part of what was asked.
pub const MAX_RANGE_HANDS: u32 = 10_000;

/// A range of time, `from` (inclusive) to `to` (exclusive), in unix milliseconds; the
/// whole history when absent. One that ends before it starts is empty.
#[derive(serde::Deserialize)]
pub(crate) struct Range {
    pub(crate) from: Option<i64>,
    pub(crate) to: Option<i64>,
}

impl Range {
    /// The range's bounds, or why it is refused.
    fn bounds(&self) -> ApiResult<(i64, i64)> {
        let from = self.from.unwrap_or(0);
        let to = self.to.unwrap_or(i64::MAX);
        if from < 0 || to < 0 {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "bad_request",
                "from and to are unix milliseconds",
            ));
        }
        // A range that ends before it starts holds no hand.
        Ok((from, to.max(from)))
    }
}

/// The archive's cutoff when the range starts before it: the hands dealt before it have
/// been moved out of the database (`pokerd archive`), so the range is not whole here.
pub(crate) async fn archived_before(state: &AppState, range: &Range) -> ApiResult<Option<i64>> {
    let (from, _) = range.bounds()?;
    Ok(state.store.archive_cutoff().await?.filter(|&c| from < c))
}

/// Refuses a range that starts before the archive's cutoff: 410 `archived`, saying from
/// when the hands are here. A list or a download of such a range would be a silent part
/// of what was asked.
pub(crate) async fn refuse_archived(state: &AppState, range: &Range) -> ApiResult<()> {
    match archived_before(state, range).await? {
        None => Ok(()),
        Some(cutoff) => Err(ApiError::new(
            StatusCode::GONE,
            "archived",
            format!(
                "the hands dealt before {} ({cutoff} in unix milliseconds) are archived: \
                 ask for a range from then on (the operator keeps the older hands)",
                poker_store::day_of(cutoff)
            ),
        )),
    }
}

/// Refuses a range of more than [`MAX_RANGE_HANDS`] hands (`too_many_hands`): its answer
/// would be a silent part of what was asked.
fn within_limit(hands: usize) -> ApiResult<()> {
    if hands > MAX_RANGE_HANDS as usize {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "too_many_hands",
            format!("the range holds more than {MAX_RANGE_HANDS} hands: ask for a shorter one"),
        ));
    }
    Ok(())
}

/// The player's complete hands in the range, oldest first; refused when there are more
/// than [`MAX_RANGE_HANDS`]. The caller has dealt with the archive's cutoff
/// ([`refuse_archived`], [`archived_before`]).
pub(crate) async fn hands_in_range(
    state: &AppState,
    me: PlayerId,
    range: &Range,
) -> ApiResult<Vec<HandRow>> {
    let (from, to) = range.bounds()?;
    let rows = state
        .store
        .player_hands_between(me, from, to, MAX_RANGE_HANDS + 1)
        .await?;
    within_limit(rows.len())?;
    Ok(rows)
}

/// A player's totals over some hands: what `GET /api/me/stats` answers.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Stats {
    /// Hands dealt to the player.
    pub hands: u64,
    /// Chips won less chips lost.
    pub net: i64,
    /// Hands the player ended with more chips than they began.
    pub hands_won: u64,
    /// The net in big blinds (each hand's net over its own big blind), over the hands
    /// whose big blind is known.
    pub big_blinds: f64,
    /// Big blinds won per 100 hands (`null` without a hand).
    pub bb_per_100: Option<f64>,
}

/// A player's stats over their results in some hands: each hand's net and the big blind
/// it was played for, if known, oldest first.
pub fn stats(results: &[(i64, Option<u64>)]) -> Stats {
    let mut out = Stats::default();
    let mut measured = 0u64;
    for &(net, big_blind) in results {
        out.hands += 1;
        out.net += net;
        if net > 0 {
            out.hands_won += 1;
        }
        if let Some(bb) = big_blind {
            out.big_blinds += net as f64 / bb as f64;
            measured += 1;
        }
    }
    if measured > 0 {
        // Rounded to hundredths: what a player reads, and stable to compare.
        let per_100 = out.big_blinds * 100.0 / measured as f64;
        out.bb_per_100 = Some((per_100 * 100.0).round() / 100.0);
    }
    out.big_blinds = (out.big_blinds * 100.0).round() / 100.0;
    out
}

/// The player's results in the range, oldest first, from the players' index
/// ([`poker_store::SqlStore::player_results_between`]); the hands whose rows do not say
/// their big blind (written before the store kept it) are read for it. Refused when the
/// range holds more than [`MAX_RANGE_HANDS`] hands, like a download.
async fn results_in_range(
    state: &AppState,
    me: PlayerId,
    range: &Range,
) -> ApiResult<Vec<(i64, Option<u64>)>> {
    let (from, to) = range.bounds()?;
    let rows = state
        .store
        .player_results_between(me, from, to, MAX_RANGE_HANDS + 1)
        .await?;
    within_limit(rows.len())?;
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let big_blind = match r.big_blind {
            Some(known) => known,
            None => {
                let hand = state.store.hand(r.hand_id).await?;
                hand.record
                    .as_ref()
                    .and_then(|record| poker_store::big_blind(record, hand.phh.as_deref()))
            }
        };
        out.push((r.net, big_blind));
    }
    Ok(out)
}

/// `GET /api/me/stats?from=&to=`: the player's hands, net, hands won and big blinds per
/// 100 hands over the range (unix milliseconds; the whole history by default), from the
/// stored hands. When the range starts before the archive's cutoff, the stats are those
/// of the hands from the cutoff on and `archived_before` says so (the cutoff; `null`
/// otherwise): the whole history keeps its stats page after an archive.
pub(crate) async fn my_stats(
    State(state): State<Arc<AppState>>,
    Session(me): Session,
    q: Result<axum::extract::Query<Range>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Json<serde_json::Value>> {
    let axum::extract::Query(range) = q?;
    let (from, to) = range.bounds()?;
    let archived = archived_before(&state, &range).await?;
    let kept = Range {
        from: Some(archived.map_or(from, |c| c.max(from))),
        to: Some(to),
    };
    let results = results_in_range(&state, me.player_id, &kept).await?;
    let s = stats(&results);
    Ok(Json(json!({
        "from": from,
        "to": to,
        "archived_before": archived,
        "hands": s.hands,
        "net": s.net,
        "hands_won": s.hands_won,
        "big_blinds": s.big_blinds,
        "bb_per_100": s.bb_per_100,
    })))
}

/// The file a history download answers: every hand of the range in the format asked,
/// oldest first, as the player may see it. PHH is a `.phhs` file (one table per hand,
/// named by the table and the hand's number, with the deck's proofs of the cards the
/// player saw); PokerStars text is the hands one after another; OHH is a `.ohh` file (the
/// player as hero, hands of games the standard cannot express left out and counted in
/// `x-hands-omitted`).
pub(crate) async fn download(
    state: &AppState,
    me: PlayerId,
    format: &str,
    range: &Range,
) -> ApiResult<Response> {
    refuse_archived(state, range).await?;
    let rows = hands_in_range(state, me, range).await?;
    if format == "ohh" {
        let names = crate::http::formats::Names::load(state, &rows).await?;
        let (docs, omitted) = crate::http::ohh::documents(state, &names, &rows, Some(me))?;
        let (from, to) = range.bounds()?;
        let file = format!("hands-{from}-{}.ohh", to.min(now_ms()));
        return Ok(crate::http::ohh::file(&docs, omitted, &file));
    }
    let mut out = String::new();
    let extension = if format == "phh" {
        for row in &rows {
            let own = crate::http::formats::my_phh(row, me)?;
            let index = row.record.as_ref().and_then(|r| r.index_of(me));
            let proof = crate::http::proofs::hand_proof(row, index)?;
            let text = crate::http::proofs::with_fields(own, proof.as_ref());
            out.push_str(&format!("[\"{}#{}\"]\n", row.table_id, row.number));
            out.push_str(&text);
            out.push('\n');
        }
        "phhs"
    } else {
        let names = crate::http::formats::Names::load(state, &rows).await?;
        for row in &rows {
            out.push_str(&crate::http::formats::pokerstars_text(
                &names,
                row,
                Some(me),
            )?);
            out.push_str("\n\n");
        }
        "txt"
    };
    let (from, to) = range.bounds()?;
    let file = format!("hands-{from}-{}.{extension}", to.min(now_ms()));
    Ok((
        [
            (
                axum::http::header::CONTENT_TYPE,
                "text/plain; charset=utf-8".to_string(),
            ),
            (
                axum::http::header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{file}\""),
            ),
        ],
        out,
    )
        .into_response())
}

/// `GET /api/me/notes`: the player's private notes on other players, newest first.
pub(crate) async fn my_notes(
    State(state): State<Arc<AppState>>,
    Session(me): Session,
) -> ApiResult<Json<serde_json::Value>> {
    let notes = state.store.notes(me.player_id).await?;
    Ok(Json(serde_json::Value::Array(
        notes
            .into_iter()
            .map(|n| {
                json!({
                    "player_id": n.subject.to_string(),
                    "note": n.note,
                    "updated_at": n.updated_at,
                })
            })
            .collect(),
    )))
}

/// The body of `POST /api/me/notes/{id}`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoteBody {
    note: String,
}

/// `POST /api/me/notes/{id}`: writes the player's private note on another player
/// (an empty note deletes it). Seen by its owner alone.
pub(crate) async fn put_note(
    State(state): State<Arc<AppState>>,
    Session(me): Session,
    axum::extract::Path(subject): axum::extract::Path<String>,
    body: Result<Json<NoteBody>, axum::extract::rejection::JsonRejection>,
) -> ApiResult<Json<serde_json::Value>> {
    let not_found = || ApiError::new(StatusCode::NOT_FOUND, "not_found", "player not found");
    let subject: PlayerId = subject.parse().map_err(|_| not_found())?;
    let Json(body) = body?;
    if body.note.chars().count() > MAX_NOTE_LEN {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("a note has at most {MAX_NOTE_LEN} characters"),
        ));
    }
    let note = body.note.trim();
    let at = now_ms();
    match state.store.set_note(me.player_id, subject, note, at).await {
        Ok(()) => Ok(Json(json!({
            "player_id": subject.to_string(),
            "note": note,
            "updated_at": at,
        }))),
        // A note is on another player: oneself is not one.
        Err(StoreError::NotFound(_)) => Err(not_found()),
        Err(StoreError::Invalid(_)) if subject == me.player_id => Err(not_found()),
        Err(StoreError::Invalid(why)) => {
            Err(ApiError::new(StatusCode::BAD_REQUEST, "bad_request", why))
        }
        Err(e) => Err(e.into()),
    }
}
