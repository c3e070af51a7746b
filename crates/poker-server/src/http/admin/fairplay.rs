//! Fair play for the floor: the pairs of players a table seated from one address
//! (`room.same_address_seating = "flag"`) with the hands they played together, and the
//! collusion report over a window of hands ([`crate::fairplay::report`]). Every role
//! may read them.

use crate::fairplay::report::{self, Folds, Report, Sort};
use crate::AppState;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::Json;
use poker_store::{now_ms, FairPlayHand, HandRow, PlayerId, StoreError, TableId};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use crate::http::auth::*;
use crate::http::error::*;

/// The window a report reads unless told: the last 7 days.
const DEFAULT_WINDOW_MS: i64 = 7 * 86_400_000;
/// Hands a report reads unless told, and at most (the newest of the window).
const DEFAULT_MAX_HANDS: u32 = 20_000;
const MAX_HANDS: u32 = 200_000;

/// A player as the console shows one: the name beside the id.
#[derive(Serialize)]
pub(crate) struct PlayerRef {
    player_id: String,
    name: String,
}

/// A hand in a list, opened with `GET /admin/hands/{id}`.
#[derive(Serialize)]
pub(crate) struct HandRef {
    hand_id: String,
    table_id: String,
    number: u64,
    started_at: i64,
}

impl HandRef {
    fn of(row: &HandRow) -> HandRef {
        HandRef {
            hand_id: row.hand_id.to_string(),
            table_id: row.table_id.to_string(),
            number: row.number,
            started_at: row.started_at,
        }
    }
}

/// One same-address pair.
#[derive(Serialize)]
pub(crate) struct FlagView {
    flag_id: String,
    table_id: String,
    table_name: String,
    /// Who sat down.
    player: PlayerRef,
    /// Who was seated already.
    other: PlayerRef,
    address: String,
    at: i64,
    /// The hands the two played together at that table since, newest first.
    hands: Vec<HandRef>,
}

/// Names of players and tables, loaded for the few a page shows.
struct Names {
    players: HashMap<PlayerId, String>,
    tables: HashMap<TableId, String>,
}

impl Names {
    async fn load(state: &AppState, players: &[PlayerId]) -> ApiResult<Names> {
        let mut ids = players.to_vec();
        ids.sort();
        ids.dedup();
        Ok(Names {
            players: state.store.player_names(&ids).await?.into_iter().collect(),
            tables: state
                .store
                .tables()
                .await?
                .into_iter()
                .map(|t| (t.table_id, t.name))
                .collect(),
        })
    }

    fn player(&self, id: PlayerId) -> PlayerRef {
        PlayerRef {
            player_id: id.to_string(),
            name: self.players.get(&id).cloned().unwrap_or_default(),
        }
    }
}

fn bad(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FlagsQuery {
    limit: Option<u32>,
    offset: Option<u32>,
    /// Hands listed per pair (1 to 100, 20 unless asked).
    hands: Option<u32>,
}

/// `GET /admin/fair-play/flags`: same-address pairs, newest first, each with the hands
/// the two played together at that table since.
pub(crate) async fn flags(
    State(state): State<Arc<AppState>>,
    _: Admin,
    q: Result<Query<FlagsQuery>, QueryRejection>,
) -> ApiResult<Json<Vec<FlagView>>> {
    let Query(q) = q?;
    let limit = q.limit.unwrap_or(50);
    if !(1..=500).contains(&limit) {
        return Err(bad("limit is 1 to 500"));
    }
    let hands = q.hands.unwrap_or(20);
    if !(1..=100).contains(&hands) {
        return Err(bad("hands is 1 to 100"));
    }
    let flags = state
        .store
        .address_flags(limit, q.offset.unwrap_or(0))
        .await?;
    let ids: Vec<PlayerId> = flags
        .iter()
        .flat_map(|f| [f.player_id, f.other_id])
        .collect();
    let names = Names::load(&state, &ids).await?;
    let mut out = Vec::with_capacity(flags.len());
    for f in flags {
        let together = state
            .store
            .hands_together(
                f.player_id,
                f.other_id,
                Some(f.table_id),
                f.at,
                i64::MAX,
                hands,
            )
            .await?;
        out.push(FlagView {
            flag_id: f.flag_id,
            table_id: f.table_id.to_string(),
            table_name: names.tables.get(&f.table_id).cloned().unwrap_or_default(),
            player: names.player(f.player_id),
            other: names.player(f.other_id),
            address: f.address,
            at: f.at,
            hands: together.iter().map(HandRef::of).collect(),
        });
    }
    Ok(Json(out))
}

/// A window of hands: dealt from `since` to before `until` (unix milliseconds).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReportQuery {
    since: Option<i64>,
    until: Option<i64>,
    /// The newest hands of the window read at most (1 to 200,000; 20,000 unless asked).
    max_hands: Option<u32>,
    sort: Option<Sort>,
    /// Rows (1 to 1,000; 100 unless asked).
    limit: Option<u32>,
}

/// The window asked: `until` now and `since` a week before unless given. A window that
/// ends before it starts is empty (nothing in it), not an error.
fn window(since: Option<i64>, until: Option<i64>) -> ApiResult<(i64, i64)> {
    let until = until.unwrap_or_else(|| now_ms() + 1);
    let since = since.unwrap_or(until.saturating_sub(DEFAULT_WINDOW_MS));
    Ok((since.min(until), until))
}

/// One row of the collusion report.
#[derive(Serialize)]
pub(crate) struct PairRow {
    /// The player the net chips went to.
    a: PlayerRef,
    /// The other.
    b: PlayerRef,
    /// Hands both were dealt into.
    hands: u64,
    /// Chips that moved from `b` to `a` over those hands.
    net_chips: i64,
    /// `a`'s folds to `b`'s bets, and those made ahead.
    a_folds_to_b: Folds,
    /// `b`'s folds to `a`'s bets, and those made ahead.
    b_folds_to_a: Folds,
    /// Folds to the other when ahead, either way.
    folds_ahead: u64,
    /// Addresses both sat down from (in the window).
    shared_addresses: Vec<String>,
}

/// The collusion report.
#[derive(Serialize)]
pub(crate) struct PairReport {
    since: i64,
    until: i64,
    /// Hands read: the newest `max_hands` of the window.
    hands: u64,
    max_hands: u32,
    /// Whether the whole window was read (fewer hands than `max_hands`).
    complete: bool,
    /// When the oldest hand read was dealt (with `complete` false, the report covers only
    /// from there).
    oldest_started_at: Option<i64>,
    /// Hands whose history could not be replayed (logged).
    unreadable: u64,
    /// Pairs that played together in the window.
    pairs_total: usize,
    pairs: Vec<PairRow>,
}

/// `GET /admin/fair-play/pairs`: the collusion report over a window of hands.
pub(crate) async fn pairs(
    State(state): State<Arc<AppState>>,
    _: Admin,
    q: Result<Query<ReportQuery>, QueryRejection>,
) -> ApiResult<Json<PairReport>> {
    let Query(q) = q?;
    let (since, until) = window(q.since, q.until)?;
    let max_hands = q.max_hands.unwrap_or(DEFAULT_MAX_HANDS);
    if !(1..=MAX_HANDS).contains(&max_hands) {
        return Err(bad(format!("max_hands is 1 to {MAX_HANDS}")));
    }
    let limit = q.limit.unwrap_or(100);
    if !(1..=1000).contains(&limit) {
        return Err(bad("limit is 1 to 1000"));
    }
    let sort = q.sort.unwrap_or(Sort::FoldsAhead);
    let rows = state.store.fair_play_hands(since, until, max_hands).await?;
    let read = rows.len() as u64;
    let oldest_started_at = rows.last().map(|r| r.started_at);
    // Replaying thousands of hands is CPU work: off the async workers.
    let (report, top) = tokio::task::spawn_blocking(move || {
        let report = Report::of(&rows);
        let top = report.rows(sort, limit as usize);
        (report, top)
    })
    .await
    .map_err(|e| {
        tracing::error!("the collusion report failed: {e}");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "internal error",
        )
    })?;
    let ids: Vec<PlayerId> = top.iter().flat_map(|r| [r.a, r.b]).collect();
    let names = Names::load(&state, &ids).await?;
    let mut addresses: HashMap<PlayerId, BTreeSet<String>> = HashMap::new();
    for a in state.store.shared_addresses(since).await? {
        addresses.entry(a.player_id).or_default().insert(a.address);
    }
    let shared = |a: PlayerId, b: PlayerId| -> Vec<String> {
        match (addresses.get(&a), addresses.get(&b)) {
            (Some(x), Some(y)) => x.intersection(y).cloned().collect(),
            _ => Vec::new(),
        }
    };
    let pairs = top
        .into_iter()
        .map(|r| PairRow {
            a: names.player(r.a),
            b: names.player(r.b),
            hands: r.stats.hands,
            net_chips: r.stats.net,
            a_folds_to_b: r.stats.a_to_b,
            b_folds_to_a: r.stats.b_to_a,
            folds_ahead: r.stats.folds_ahead(),
            shared_addresses: shared(r.a, r.b),
        })
        .collect();
    Ok(Json(PairReport {
        since,
        until,
        hands: read,
        max_hands,
        complete: read < u64::from(max_hands),
        oldest_started_at,
        unreadable: report.unreadable,
        pairs_total: report.pairs.len(),
        pairs,
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PairHandsQuery {
    since: Option<i64>,
    until: Option<i64>,
    /// Hands (1 to 500; 50 unless asked).
    limit: Option<u32>,
}

/// One hand of a pair, with what it moved between them and their folds to each other.
#[derive(Serialize)]
pub(crate) struct PairHand {
    #[serde(flatten)]
    hand: HandRef,
    table_name: String,
    /// Chips that moved from the path's second player to its first in this hand.
    net_chips: i64,
    /// The first player's folds to the second's bets.
    a_folds_to_b: Folds,
    /// The second's folds to the first's bets.
    b_folds_to_a: Folds,
}

/// `GET /admin/fair-play/pairs/{a}/{b}/hands`: the hands two players were dealt into in
/// a window, newest first, each with its figures for the pair.
pub(crate) async fn pair_hands(
    State(state): State<Arc<AppState>>,
    _: Admin,
    Path((a, b)): Path<(String, String)>,
    q: Result<Query<PairHandsQuery>, QueryRejection>,
) -> ApiResult<Json<Vec<PairHand>>> {
    let Query(q) = q?;
    let a: PlayerId = parse_id(&a, "player")?;
    let b: PlayerId = parse_id(&b, "player")?;
    if a == b {
        // No player makes a pair with themselves: there is no such pair.
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "a pair is two players",
        ));
    }
    let (since, until) = window(q.since, q.until)?;
    let limit = q.limit.unwrap_or(50);
    if !(1..=500).contains(&limit) {
        return Err(bad("limit is 1 to 500"));
    }
    if state.store.player_names(&[a, b]).await?.len() < 2 {
        return Err(StoreError::NotFound("player").into());
    }
    let rows = state
        .store
        .hands_together(a, b, None, since, until, limit)
        .await?;
    let names = Names::load(&state, &[]).await?;
    let out = rows
        .iter()
        .map(|row| {
            let pair = report::analyze(&FairPlayHand::from(row))
                .ok()
                .and_then(|pairs| {
                    pairs
                        .into_iter()
                        .find(|p| (p.a, p.b) == (a, b) || (p.a, p.b) == (b, a))
                })
                .map(|p| {
                    if p.a == a {
                        (p.net, p.a_to_b, p.b_to_a)
                    } else {
                        (-p.net, p.b_to_a, p.a_to_b)
                    }
                })
                .unwrap_or_default();
            PairHand {
                hand: HandRef::of(row),
                table_name: names.tables.get(&row.table_id).cloned().unwrap_or_default(),
                net_chips: pair.0,
                a_folds_to_b: pair.1,
                b_folds_to_a: pair.2,
            }
        })
        .collect();
    Ok(Json(out))
}
