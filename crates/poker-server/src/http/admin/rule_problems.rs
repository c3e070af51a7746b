//! Which field of a create-table body a refusal concerns, so that the console shows each
//! problem beside its field: the shape problems name theirs (`rules.seat_count: ...`); the
//! engine's checks ([`Table::new`](poker_rules::table::Table::new) and
//! [`HandConfig::validate`](poker_rules::HandConfig::validate)) stop at their first
//! problem, which is traced back here to the rule that causes it.

use crate::http::error::Problem;
use poker_rules::table::{AnteRule, TableError, TableRules};
use poker_rules::{ConfigError, MAX_CHIPS};

/// A shape problem as `table_problems` words it (`field: what is wrong`), split into its
/// field and its message; a problem of the whole body concerns the field `body`.
pub(crate) fn shape_problem(text: &str) -> Problem {
    match text.split_once(": ") {
        Some((field, message)) if !field.contains(' ') => Problem {
            field: field.to_string(),
            message: message.to_string(),
        },
        _ => Problem {
            field: "body".into(),
            message: text.to_string(),
        },
    }
}

/// The field of the rules that [`Table::new`](poker_rules::table::Table::new) refused.
pub(crate) fn table_problem(rules: &TableRules, e: &TableError) -> Problem {
    let message = e.to_string();
    let TableError::InvalidRules(why) = e else {
        return problem("rules", message);
    };
    let field = if why.starts_with("a table has") || why.contains("players from one deck") {
        "rules.seat_count"
    } else if why.starts_with("the buy-in range") {
        if rules.min_buy_in == 0 {
            "rules.min_buy_in"
        } else {
            "rules.max_buy_in"
        }
    } else if why.starts_with("blind games need") {
        if rules.big_blind == 0 {
            "rules.big_blind"
        } else {
            "rules.small_blind"
        }
    } else if why.starts_with("straddles are for") {
        "rules.straddle"
    } else if why.starts_with("a kill") {
        "rules.kill"
    } else if why.starts_with("amounts are at most") {
        too_large(rules)
    } else {
        "rules"
    };
    problem(field, message)
}

/// The field of the rules that [`HandConfig::validate`](poker_rules::HandConfig::validate)
/// refused (the console's probe hand: three seats of the maximum buy-in, with the blinds).
pub(crate) fn config_problem(rules: &TableRules, e: &ConfigError) -> Problem {
    let message = e.to_string();
    let field = match e {
        ConfigError::MissingStake(stake) => {
            return problem(&format!("rules.stakes.{stake}"), message)
        }
        ConfigError::SpreadRange { .. } => "rules.options.spread",
        ConfigError::CapBelowBlind { .. } => "rules.options.cap",
        ConfigError::EmptyStack(_) | ConfigError::PlayerCount { .. } => "rules.max_buy_in",
        ConfigError::BadDeck => "rules.game",
        ConfigError::Invalid(why) => {
            if let Some(stake) = ["min_bet", "small_bet", "big_bet"]
                .into_iter()
                .find(|s| why.starts_with(&format!("{s} ")) && why.contains("betting unit"))
            {
                return problem(&format!("rules.stakes.{stake}"), message);
            }
            if why.starts_with("amounts are at most") {
                too_large(rules)
            } else if why.contains("spread") {
                "rules.options.spread"
            } else if why.starts_with("pot-limit preflop") {
                "rules.options.pot_limit_preflop"
            } else if why.contains("half bet rule") {
                "rules.options.half_bet_rule"
            } else if why.starts_with("run it twice") {
                "rules.options.run_it_twice"
            } else if why.starts_with("rake") {
                "rules.options.rake"
            } else {
                "rules"
            }
        }
    };
    problem(field, message)
}

/// The first amount above the engine's bound, or the maximum buy-in (which, times the
/// seats or the probe's three stacks, is what overflows when no single amount does).
fn too_large(rules: &TableRules) -> &'static str {
    let s = &rules.stakes;
    let o = &rules.options;
    let ante = match rules.ante {
        AnteRule::None => 0,
        AnteRule::Each(a) | AnteRule::BigBlind(a) | AnteRule::Button(a) => a,
    };
    [
        ("rules.small_blind", rules.small_blind),
        ("rules.big_blind", rules.big_blind),
        ("rules.ante", ante),
        ("rules.stakes.min_bet", s.min_bet),
        ("rules.stakes.small_bet", s.small_bet),
        ("rules.stakes.big_bet", s.big_bet),
        ("rules.stakes.bring_in", s.bring_in),
        ("rules.options.cap", o.cap.unwrap_or(0)),
        ("rules.options.unit", o.unit),
        ("rules.options.rake", o.rake.map_or(0, |r| r.cap)),
        (
            "rules.options.spread",
            o.spread.iter().map(|&(a, b)| a.max(b)).max().unwrap_or(0),
        ),
    ]
    .into_iter()
    .find(|&(_, amount)| amount > MAX_CHIPS)
    .map_or("rules.max_buy_in", |(field, _)| field)
}

fn problem(field: &str, message: String) -> Problem {
    Problem {
        field: field.to_string(),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::admin::tables::parse_new_table;
    use serde_json::{json, Value};

    /// The NL Hold'em preset with `change` applied to its rules: the field its refusal names.
    fn refused_field(change: impl Fn(&mut Value)) -> String {
        let mut body = crate::presets::all()[0].body.clone();
        change(&mut body["rules"]);
        let err = parse_new_table(&serde_json::to_vec(&body).unwrap()).expect_err("refused");
        assert_eq!(err.problems().len(), 1, "{}", err.message);
        err.problems()[0].field.clone()
    }

    /// A field, and a change to the preset's rules that the engine refuses because of it.
    type Case = (&'static str, fn(&mut Value));

    #[test]
    fn each_engine_refusal_names_the_rule_that_causes_it() {
        let cases: [Case; 13] = [
            ("rules.seat_count", |r| r["seat_count"] = json!(11)),
            ("rules.seat_count", |r| {
                r["game"] = json!("deuce_to_seven_triple_draw");
                r["seat_count"] = json!(9);
            }),
            ("rules.min_buy_in", |r| r["min_buy_in"] = json!(0)),
            ("rules.max_buy_in", |r| r["max_buy_in"] = json!(10)),
            ("rules.big_blind", |r| r["big_blind"] = json!(0)),
            ("rules.small_blind", |r| r["small_blind"] = json!(5)),
            ("rules.straddle", |r| r["rock"] = json!(true)),
            (
                "rules.kill",
                |r| r["kill"] = json!({ "trigger": { "kind": "consecutive_wins", "value": 2 }, "percent": 100 }),
            ),
            ("rules.stakes.min_bet", |r| {
                r["stakes"] = json!({ "min_bet": 0 })
            }),
            ("rules.stakes.min_bet", |r| {
                r["stakes"] = json!({ "min_bet": 3 });
                r["options"] = json!({ "unit": 2 });
            }),
            ("rules.options.rake", |r| {
                r["options"] = json!({ "rake": { "basis_points": 10001, "cap": 5 } })
            }),
            ("rules.options.half_bet_rule", |r| {
                r["options"] = json!({ "half_bet_rule": true })
            }),
            ("rules.max_buy_in", |r| {
                r["max_buy_in"] = json!(4_000_000_000_000_000u64)
            }),
        ];
        for (field, change) in cases {
            assert_eq!(refused_field(change), field);
        }
    }

    #[test]
    fn shape_problems_keep_their_field() {
        assert_eq!(
            shape_problem("rules.game: unknown variant").field,
            "rules.game"
        );
        assert_eq!(
            shape_problem("the body must be a JSON object with name and rules").field,
            "body"
        );
    }
}
