//! Table rules for every game and option family the server offers, shared by the tests
//! that play them all (chaos, pokerkit).

use serde_json::{json, Value};

/// The rules of a 6-seat (or `seats`) table of this game and structure, blinds 1/2,
/// buy-ins 40..200.
pub fn base(game: &str, structure: &str, stakes: Value, seats: u32) -> Value {
    json!({
        "game": game, "structure": structure, "stakes": stakes,
        "max_raises": if structure == "fixed_limit" { json!(4) } else { Value::Null },
        "uncapped_heads_up": false, "seat_count": seats,
        "small_blind": 1, "big_blind": 2, "ante": { "kind": "none" }, "button": "dead",
        "missed_blinds": "dead_small_live_big", "min_buy_in": 40, "max_buy_in": 200,
        "rathole_secs": 0, "max_missed_big_blinds": 10, "kill": null, "rock": false
    })
}

pub fn stud(game: &str, seats: u32) -> Value {
    let mut r = base(
        game,
        "fixed_limit",
        json!({ "small_bet": 4, "big_bet": 8, "bring_in": 1 }),
        seats,
    );
    r["small_blind"] = json!(0);
    r["big_blind"] = json!(0);
    r["ante"] = json!({ "kind": "each", "amount": 1 });
    r
}

/// Every game and option family, with how many bots sit at each.
pub fn tables() -> Vec<(&'static str, Value, usize)> {
    let nl = || base("holdem", "no_limit", json!({ "min_bet": 2 }), 6);
    let mut v = Vec::new();
    let mut t = nl();
    t["options"] = json!({ "run_it_twice": true, "rake": { "basis_points": 500, "cap": 5 } });
    v.push(("NL hold'em, run it twice, rake", t, 6));
    let mut t = nl();
    t["rock"] = json!(true);
    t["ante"] = json!({ "kind": "big_blind", "amount": 2 });
    t["button"] = json!("moving");
    v.push(("NL hold'em, rock straddle, big blind ante", t, 5));
    let mut t = nl();
    t["kill"] = json!({ "trigger": { "kind": "pot_over", "value": 60 }, "percent": 200 });
    t["structure"] = json!("fixed_limit");
    t["stakes"] = json!({ "small_bet": 2, "big_bet": 4 });
    t["max_raises"] = json!(4);
    v.push(("FL hold'em, kill", t, 4));
    let mut t = base("holdem", "pot_limit", json!({ "min_bet": 2 }), 6);
    t["missed_blinds"] = json!("one_per_hand");
    t["button"] = json!("simplified_moving");
    v.push(("PL hold'em", t, 4));
    v.push((
        "PL Omaha",
        base("omaha", "pot_limit", json!({ "min_bet": 2 }), 6),
        5,
    ));
    v.push((
        "PL Omaha hi/lo",
        base("omaha_hi_lo", "pot_limit", json!({ "min_bet": 2 }), 6),
        4,
    ));
    v.push((
        "FL Omaha hi/lo",
        base(
            "omaha_hi_lo",
            "fixed_limit",
            json!({ "small_bet": 2, "big_bet": 4 }),
            6,
        ),
        3,
    ));
    let mut t = base("short_deck_holdem", "no_limit", json!({ "min_bet": 2 }), 6);
    t["ante"] = json!({ "kind": "each", "amount": 1 });
    v.push(("NL short deck, antes", t, 4));
    v.push(("stud", stud("stud", 7), 5));
    v.push(("razz", stud("razz", 7), 4));
    v.push(("stud hi/lo", stud("stud_hi_lo", 7), 4));
    v.push((
        "2-7 triple draw (full)",
        base(
            "deuce_to_seven_triple_draw",
            "fixed_limit",
            json!({ "small_bet": 2, "big_bet": 4 }),
            6,
        ),
        6,
    ));
    v.push((
        "2-7 single draw (full)",
        base(
            "deuce_to_seven_single_draw",
            "no_limit",
            json!({ "min_bet": 2 }),
            6,
        ),
        6,
    ));
    v.push((
        "badugi (full)",
        base(
            "badugi",
            "fixed_limit",
            json!({ "small_bet": 2, "big_bet": 4 }),
            6,
        ),
        6,
    ));
    let mut t = base("holdem", "spread_limit", json!({}), 6);
    t["options"] = json!({ "spread": [[2, 6], [2, 10]] });
    t["max_raises"] = json!(3);
    v.push(("spread limit hold'em", t, 3));
    v
}
