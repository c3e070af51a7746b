//! A stored hand as each history format writes it for one viewer (`None`: the house's
//! view, every card): the names a history shows, the facts every format needs of a row,
//! the player's own PHH, the replayer's record and PokerStars text. The routes that serve
//! hands (`me`, `history`, `admin::hands`) and the OHH writer (`ohh`) use these; this
//! module uses none of them.

use crate::http::error::*;
use crate::AppState;
use axum::http::StatusCode;
use poker_rules::table::PostKind;
use poker_store::{HandRow, PlayerId, StoreError, TableId};

/// The names of the players and tables of some hands, read for those hands alone (what
/// an export costs is what its hands cost, however many accounts the room has).
pub(crate) struct Names {
    players: std::collections::HashMap<PlayerId, String>,
    tables: std::collections::HashMap<TableId, String>,
    /// A play-money room: its histories say `(Play Money)` as PokerStars' do.
    play_money: bool,
}

impl Names {
    /// A player's name (their id if unknown).
    pub(crate) fn player(&self, id: PlayerId) -> String {
        self.players
            .get(&id)
            .cloned()
            .unwrap_or_else(|| id.to_string())
    }

    /// A table's name (empty if unknown).
    pub(crate) fn table(&self, id: TableId) -> String {
        self.tables.get(&id).cloned().unwrap_or_default()
    }

    /// The names these hands show: their players' and their tables'.
    pub(crate) async fn load<'a>(
        state: &AppState,
        rows: impl IntoIterator<Item = &'a HandRow>,
    ) -> ApiResult<Names> {
        let mut players = Vec::new();
        let mut tables = Vec::new();
        for row in rows {
            if let Some(record) = &row.record {
                players.extend_from_slice(&record.seat_players);
            }
            if !tables.contains(&row.table_id) {
                tables.push(row.table_id);
            }
        }
        let mut names = Names {
            players: state.store.player_names(&players).await?,
            tables: Default::default(),
            play_money: state.config.play_money(),
        };
        for table in tables {
            match state.store.table(table).await {
                Ok(t) => {
                    names.tables.insert(table, t.name);
                }
                Err(StoreError::NotFound(_)) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(names)
    }
}

/// What every history format needs of a stored hand beside the writer itself: its PHH,
/// the names made printable, seat numbers from 1, and the viewer's place in the hand.
pub(crate) struct HandFacts<'r> {
    /// The hand's PHH history.
    pub phh: &'r str,
    /// The hand's record (posts, seats, button).
    pub record: poker_store::HandRecord,
    /// The table's name, printable.
    pub table_name: String,
    /// Player names by index in the hand, printable.
    pub players: Vec<String>,
    /// Seat numbers (1-based) by index in the hand.
    pub seats: Vec<u32>,
    /// The viewer's index in the hand; `None`: the house's view.
    pub viewer: Option<usize>,
}

impl HandFacts<'_> {
    /// The button's seat number (1-based), when the hand records its players.
    pub fn button_seat(&self) -> Option<u32> {
        (!self.record.seat_players.is_empty()).then_some(self.record.button as u32 + 1)
    }
}

/// The facts of `row` for `viewer`. A player learns nothing of a hand they cannot be
/// shown to have played: an unfinished or void hand records no players, so it is "not
/// found" to them, as is a hand they were not dealt into; to the house it is unfinished.
pub(crate) fn hand_facts<'r>(
    names: &Names,
    row: &'r HandRow,
    viewer: Option<PlayerId>,
) -> ApiResult<HandFacts<'r>> {
    let phh = row.phh.as_deref().ok_or_else(|| match viewer {
        Some(_) => ApiError::new(StatusCode::NOT_FOUND, "not_found", "hand not found"),
        None => ApiError::new(
            StatusCode::CONFLICT,
            "unfinished",
            "the hand has no history",
        ),
    })?;
    let record = row.record.clone().unwrap_or_default();
    let players = record
        .seat_players
        .iter()
        .map(|&id| poker_store::names::printable(&names.player(id)).into_owned())
        .collect();
    let seats = record.seats.iter().map(|&s| s as u32 + 1).collect();
    let viewer =
        match viewer {
            None => None,
            Some(p) => Some(record.index_of(p).ok_or_else(|| {
                ApiError::new(StatusCode::NOT_FOUND, "not_found", "hand not found")
            })?),
        };
    Ok(HandFacts {
        phh,
        table_name: poker_store::names::printable(&names.table(row.table_id)).into_owned(),
        record,
        players,
        seats,
        viewer,
    })
}

/// A hand in PokerStars text, as the house sees it (`viewer: None`: nobody's hole cards
/// dealt face up, the hands mucked at the showdown in the summary) or as one of its
/// players does (only their own hole cards, and those shown).
pub(crate) fn pokerstars_text(
    names: &Names,
    row: &HandRow,
    viewer: Option<PlayerId>,
) -> ApiResult<String> {
    let facts = hand_facts(names, row, viewer)?;
    poker_history::pokerstars::write(&poker_history::pokerstars::Meta {
        hand_number: hand_number_for(row),
        table_name: &facts.table_name,
        started_at_ms: row.started_at,
        players: &facts.players,
        seats: &facts.seats,
        seat_count: facts.record.seat_count as u32,
        button_seat: facts.button_seat(),
        posts: &facts.record.posts,
        phh: facts.phh,
        viewer: facts.viewer,
        play_money: names.play_money,
    })
    .map_err(|e| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "unsupported", e))
}

/// A stable numeric hand id for tracking tools: the first 60 bits of the UUID.
pub(crate) fn hand_number_for(row: &HandRow) -> u64 {
    let b = row.hand_id.0.as_bytes();
    u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]) >> 4
}

/// A hand the player was dealt into, for the replayer: who sat where, their names and
/// stacks, and every event as the player's client saw it live (others' down cards `??`
/// until shown), replayed through the engine from the player's own PHH; with the deck's
/// proofs of the cards they saw (`fairness`, docs/fairness.md). `None`: the operator's,
/// every card and every proof.
pub(crate) async fn my_replay(
    state: &AppState,
    row: &poker_store::HandRow,
    me: Option<poker_store::PlayerId>,
) -> ApiResult<serde_json::Value> {
    let not_found = || ApiError::new(StatusCode::NOT_FOUND, "not_found", "hand not found");
    let record = row.record.as_ref().ok_or_else(not_found)?;
    let (text, index) = match me {
        Some(me) => (
            my_phh(row, me)?,
            Some(record.index_of(me).ok_or_else(not_found)?),
        ),
        None => (row.phh.clone().ok_or_else(not_found)?, None),
    };
    let fairness = crate::http::proofs::hand_proof(row, index)?;
    let phh = poker_history::phh::PhhHand::parse(&text).map_err(unsupported)?;
    let played = poker_history::phh::replay(&phh).map_err(unsupported)?;
    let names = Names::load(state, [row]).await?;
    let config = played.hand.config();
    let big = config.big_blind();
    let small = config
        .seats
        .iter()
        .map(|s| s.blind)
        .filter(|&b| b > 0 && b < big)
        .min()
        .unwrap_or(0);
    Ok(serde_json::json!({
        "hand_id": row.hand_id,
        "table_id": row.table_id,
        "table_name": names.table(row.table_id),
        "hand_number": row.number,
        "seat_count": record.seat_count,
        "button": record.button,
        "seats": record.seats,
        "names": record.seat_players.iter().map(|p| names.player(*p)).collect::<Vec<_>>(),
        "me": index,
        "starting_stacks": record.starting_stacks,
        "finishing_stacks": record.finishing_stacks,
        "game": crate::table::game_label(config.game, config.structure),
        "game_kind": config.game,
        "structure": config.structure,
        "blinds": [small, big],
        "straddle": record.posts.iter().any(|p| matches!(p.kind, PostKind::Straddle | PostKind::Rock)),
        "events": played.events,
        "fairness": fairness,
    }))
}

/// The PHH of a hand the player was dealt into, as they may see it.
pub(crate) fn my_phh(row: &poker_store::HandRow, me: poker_store::PlayerId) -> ApiResult<String> {
    let not_found = || ApiError::new(StatusCode::NOT_FOUND, "not_found", "hand not found");
    let text = row.phh.as_deref().ok_or_else(not_found)?;
    let index = row
        .record
        .as_ref()
        .and_then(|r| r.index_of(me))
        .ok_or_else(not_found)?;
    let full = poker_history::phh::PhhHand::parse(text).map_err(unsupported)?;
    Ok(poker_history::phh::for_viewer(&full, index)
        .map_err(unsupported)?
        .to_toml())
}

/// A stored history the engine cannot read or replay: 422 `unsupported`.
fn unsupported(e: poker_history::phh::PhhError) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "unsupported",
        e.to_string(),
    )
}
