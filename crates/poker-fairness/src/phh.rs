//! The proofs as PHH user-defined fields: each field of a hand's proofs under its own
//! name prefixed `_deck_` (the standard's rule for user-defined fields: a single
//! underscore, snake case), so a PHH reader that does not know them ignores them.

use serde::de::DeserializeOwned;
use serde::Serialize;

/// The prefix of every field.
pub const PREFIX: &str = "_deck_";

/// The fields, as (name, TOML value) lines to append to a history.
pub fn fields<T: Serialize>(proof: &T) -> Vec<(String, toml::Value)> {
    let toml::Value::Table(table) = toml::Value::try_from(proof).expect("proofs are TOML values")
    else {
        unreachable!("a struct is a table");
    };
    table
        .into_iter()
        .map(|(k, v)| (format!("{PREFIX}{k}"), v))
        .collect()
}

/// The fields written as TOML lines (`_deck_commitment = "..."`), in a fixed order.
pub fn text<T: Serialize>(proof: &T) -> String {
    let mut out = String::new();
    for (name, value) in fields(proof) {
        out.push_str(&format!("{name} = {value}\n"));
    }
    out
}

/// The proofs read back from a history's fields (`None` if it has none or they are
/// damaged).
pub fn read<T: DeserializeOwned>(table: &toml::Table) -> Option<T> {
    let fields: toml::Table = table
        .iter()
        .filter_map(|(k, v)| Some((k.strip_prefix(PREFIX)?.to_string(), v.clone())))
        .collect();
    if fields.is_empty() {
        return None;
    }
    toml::Value::Table(fields).try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proof::testing::{play, record_for};
    use crate::proof::{HandProof, Viewer};
    use poker_rules::Game;

    #[test]
    fn the_proofs_round_trip_through_phh_user_defined_fields() {
        for game in [Game::Holdem, Game::DeuceToSevenTripleDraw] {
            let (record, events) = play(game, 6, 3);
            let doc = record_for(&record, &events, Viewer::Player(2), 6);
            let history = format!("variant = 'NT'\n{}", text(&doc.fairness));
            for line in history.lines().skip(1) {
                assert!(line.starts_with("_deck_"), "{line}");
            }
            let table: toml::Table = history.parse().unwrap();
            assert_eq!(read::<HandProof>(&table), Some(doc.fairness));
        }
    }
}
