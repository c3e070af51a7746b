//! Table presets: complete, valid tables of each game family that an operator (or a
//! first start in a play-money room) creates without writing the rules by hand. Each is a
//! `POST /admin/tables` body, checked by the same code as one.

use serde_json::{json, Value};

/// One preset: its key, and the create-table body.
pub struct Preset {
    /// Short name: `nlhe`, `plo`, `flhe`, `stud`, `razz`, `triple_draw`.
    pub key: &'static str,
    /// The body of `POST /admin/tables`.
    pub body: Value,
}

fn rules(game: &str, structure: &str, stakes: Value, seats: u32, blinds: (u64, u64)) -> Value {
    json!({
        "game": game, "structure": structure, "stakes": stakes,
        "max_raises": if structure == "fixed_limit" { json!(4) } else { Value::Null },
        "uncapped_heads_up": structure == "fixed_limit", "seat_count": seats,
        "small_blind": blinds.0, "big_blind": blinds.1, "ante": { "kind": "none" },
        "button": "dead", "missed_blinds": "dead_small_live_big",
        "min_buy_in": 40, "max_buy_in": 200, "rathole_secs": 3600,
        "max_missed_big_blinds": 10, "kill": null, "rock": false
    })
}

fn stud(game: &str) -> Value {
    let mut r = rules(
        game,
        "fixed_limit",
        json!({ "small_bet": 2, "big_bet": 4, "bring_in": 1 }),
        // One deck deals seven-card stud to seven players at most.
        7,
        (0, 0),
    );
    r["ante"] = json!({ "kind": "each", "amount": 1 });
    r["uncapped_heads_up"] = json!(true);
    r
}

const CLOCK: fn() -> Value = || json!({ "action_ms": 20000, "warning_ms": 7000, "time_bank_ms": 30000, "showdown_ms": 2500 });

/// Every preset, in the order the console lists them.
pub fn all() -> Vec<Preset> {
    let body = |name: &str, rules: Value| json!({ "name": name, "rules": rules, "clock": CLOCK() });
    let mut nl = rules("holdem", "no_limit", json!({ "min_bet": 2 }), 6, (1, 2));
    nl["straddle"] = json!(true);
    vec![
        Preset {
            key: "nlhe",
            body: body("NL Hold'em 1/2", nl),
        },
        Preset {
            key: "plo",
            body: body(
                "PL Omaha 1/2",
                rules("omaha", "pot_limit", json!({ "min_bet": 2 }), 6, (1, 2)),
            ),
        },
        Preset {
            key: "flhe",
            body: body(
                "FL Hold'em 2/4",
                rules(
                    "holdem",
                    "fixed_limit",
                    json!({ "small_bet": 2, "big_bet": 4 }),
                    9,
                    (1, 2),
                ),
            ),
        },
        Preset {
            key: "stud",
            body: body("FL 7 Card Stud 2/4", stud("stud")),
        },
        Preset {
            key: "razz",
            body: body("FL Razz 2/4", stud("razz")),
        },
        Preset {
            key: "triple_draw",
            body: body(
                "FL 2-7 Triple Draw 2/4",
                rules(
                    "deuce_to_seven_triple_draw",
                    "fixed_limit",
                    json!({ "small_bet": 2, "big_bet": 4 }),
                    6,
                    (1, 2),
                ),
            ),
        },
    ]
}

/// The presets a first start of a play-money room opens: one of each family.
pub const FIRST_START: [&str; 4] = ["nlhe", "plo", "stud", "triple_draw"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_a_table_the_admin_api_accepts() {
        for p in all() {
            let body = serde_json::to_vec(&p.body).unwrap();
            if let Err(e) = crate::http::admin::tables::parse_new_table(&body) {
                panic!("preset {}: {} {}", p.key, e.code(), e.message);
            }
        }
        for key in FIRST_START {
            assert!(all().iter().any(|p| p.key == key));
        }
    }
}
