//! The deck's proofs in a hand's exports (docs/fairness.md): a player's carry exactly the
//! cards they saw, the operator's every card dealt. They are made again, on each export,
//! from the deck the hand's record keeps and the hand's full history.

use crate::http::error::*;
use axum::http::StatusCode;
use poker_fairness::{AnyProof, Viewer};
use poker_history::phh::{self, PhhHand};
use poker_store::HandRow;

/// The proofs of a hand for the player at `viewer` (`None`: the operator), in the version
/// its deck was recorded in; `None` for a hand recorded before decks were committed.
pub(crate) fn hand_proof(row: &HandRow, viewer: Option<usize>) -> ApiResult<Option<AnyProof>> {
    let Some(deck) = row.record.as_ref().and_then(|r| r.deck.as_ref()) else {
        return Ok(None);
    };
    let damaged = |what: String| {
        tracing::error!(
            "hand {}: the deck's proofs cannot be made: {what}",
            row.hand_id
        );
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "the hand's proofs could not be made",
        )
    };
    let text = row
        .phh
        .as_deref()
        .ok_or_else(|| damaged("no history".into()))?;
    let played = PhhHand::parse(text)
        .and_then(|h| phh::replay(&h))
        .map_err(|e| damaged(e.to_string()))?;
    let viewer = viewer.map_or(Viewer::Operator, Viewer::Player);
    deck.prove(&played.events, viewer)
        .map(Some)
        .map_err(damaged)
}

/// A PHH history with the proofs appended as user-defined fields (`_deck_...`).
pub(crate) fn with_fields(mut text: String, proof: Option<&AnyProof>) -> String {
    if let Some(proof) = proof {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&poker_fairness::phh::text(proof));
    }
    text
}
