// The console's new-table form logic (web/js/table_form.js) under node: a preset read
// into the form and written back is the same table; each check the server makes is found
// on the field it concerns, with nothing else wrong; a server problem lands on its field
// or the nearest one shown; and every field is explained.
import test from "node:test";
import assert from "node:assert/strict";
import { GROUPS, FIELDS, valuesFrom, bodyFrom, check, fieldFor, shown, spreadRanges } from "../js/table_form.js";

// Bodies shaped like crates/poker-server/src/presets.rs's (the form's starting points).
const nl = {
  name: "NL Hold'em 1/2",
  rules: {
    game: "holdem", structure: "no_limit", stakes: { min_bet: 2 }, max_raises: null, uncapped_heads_up: false,
    seat_count: 6, small_blind: 1, big_blind: 2, ante: { kind: "none" }, button: "dead",
    missed_blinds: "dead_small_live_big", min_buy_in: 40, max_buy_in: 200, rathole_secs: 3600,
    max_missed_big_blinds: 10, kill: null, rock: false, straddle: true,
  },
  clock: { action_ms: 20000, warning_ms: 7000, time_bank_ms: 30000, showdown_ms: 2500 },
};
const stud = {
  name: "FL 7 Card Stud 2/4",
  rules: {
    ...structuredClone(nl.rules), game: "stud", structure: "fixed_limit", stakes: { small_bet: 2, big_bet: 4, bring_in: 1 },
    max_raises: 4, uncapped_heads_up: true, seat_count: 7, small_blind: 0, big_blind: 0, ante: { kind: "each", amount: 1 }, straddle: undefined,
  },
  clock: { action_ms: 20000, warning_ms: 7000, time_bank_ms: 30000, showdown_ms: 2500 },
};
delete stud.rules.straddle;

/// The body of a preset after a round trip through the form with `change` made to the
/// values.
function edited(base, change = {}) {
  const values = { ...valuesFrom(base), ...change };
  const { body, problems } = bodyFrom(values, base);
  return { body, problems, values };
}

test("a preset read into the form and written back is the same table", () => {
  for (const base of [nl, stud]) {
    const { body, problems } = edited(base);
    assert.deepEqual(problems, []);
    assert.deepEqual(check(body), []);
    for (const k of Object.keys(base.rules)) assert.deepEqual(body.rules[k], base.rules[k], `${base.name}: ${k}`);
    assert.deepEqual(body.clock, base.clock);
    assert.equal(body.name, base.name);
  }
});

test("rathole minutes and clock seconds are stored in seconds and milliseconds", () => {
  const { body } = edited(nl, { "rules.rathole_secs": "30", "clock.action_ms": "12.5" });
  assert.equal(body.rules.rathole_secs, 1800);
  assert.equal(body.clock.action_ms, 12500);
  assert.equal(valuesFrom(body)["rules.rathole_secs"], "30");
});

test("each check the server makes is found on the field it concerns, alone", () => {
  const cases = [
    [nl, { name: "  " }, "name"],
    [nl, { name: "x".repeat(65) }, "name"],
    [nl, { "rules.seat_count": "11" }, "rules.seat_count"],
    [nl, { "rules.min_buy_in": "0" }, "rules.min_buy_in"],
    [nl, { "rules.max_buy_in": "20" }, "rules.max_buy_in"],
    [nl, { "rules.big_blind": "0", "rules.small_blind": "0" }, "rules.big_blind"],
    [nl, { "rules.small_blind": "5" }, "rules.small_blind"],
    [nl, { "rules.rock": true }, "rules.straddle"],
    [nl, { "rules.kill": "consecutive_wins", "rules.kill.value": "2", "rules.kill.percent": "100" }, "rules.kill.percent"],
    [nl, { "rules.stakes.min_bet": "0" }, "rules.stakes.min_bet"],
    [nl, { "rules.options.unit": "2", "rules.stakes.min_bet": "3" }, "rules.stakes.min_bet"],
    [nl, { "rules.options.cap": "1" }, "rules.options.cap"],
    [nl, { "rules.options.rake": "10001", "rules.options.rake.cap": "5" }, "rules.options.rake"],
    [nl, { "rules.options.half_bet_rule": true, "rules.structure": "fixed_limit", "rules.stakes.small_bet": "2", "rules.stakes.big_bet": "0" }, "rules.stakes.big_bet"],
    [nl, { "rules.structure": "spread_limit", "rules.options.spread": "" }, "rules.options.spread"],
    [nl, { "rules.structure": "spread_limit", "rules.options.spread": "5-1" }, "rules.options.spread"],
    [nl, { "rules.max_buy_in": String(2 ** 52) }, "rules.max_buy_in"],
    [nl, { "clock.action_ms": "0" }, "clock.action_ms"],
    [stud, { "rules.stakes.small_bet": "0" }, "rules.stakes.small_bet"],
    // One deck deals stud to seven players and draw games to eight: more seats would stall.
    [stud, { "rules.seat_count": "8" }, "rules.seat_count"],
    [nl, { "rules.game": "deuce_to_seven_triple_draw", "rules.seat_count": "9" }, "rules.seat_count"],
    [nl, { "clock.action_ms": "86401" }, "clock.action_ms"],
    [nl, { "clock.time_bank_ms": String(2 ** 64) }, "clock.time_bank_ms"],
  ];
  for (const [base, change, field] of cases) {
    const { body, problems } = edited(base, change);
    const found = [...problems, ...check(body)];
    assert.deepEqual(found.map((p) => p.field), [field], JSON.stringify(change));
    assert.ok(found[0].message.length > 5);
  }
});

test("a stud game seats seven at most, in the server's words", () => {
  const found = check(edited(stud, { "rules.seat_count": "8" }).body);
  assert.deepEqual(found, [{
    field: "rules.seat_count",
    message: "seven-card stud deals at most 7 players from one deck: a table of 8 seats would stall",
  }]);
});

test("what a field does not apply to is neither sent nor checked", () => {
  // A stud game has no blinds: the blinds are 0 whatever was typed, and straddles off.
  const { body } = edited(stud, { "rules.small_blind": "9", "rules.straddle": true });
  assert.equal(body.rules.small_blind, 0);
  assert.equal(body.rules.straddle, false);
  assert.deepEqual(check(body), []);
  // No limit has no raise cap; a spread game sends its ranges.
  assert.equal(edited(nl, { "rules.max_raises": "3" }).body.rules.max_raises, null);
  const spread = edited(nl, { "rules.structure": "spread_limit", "rules.options.spread": "1-5, 1 to 10" }).body;
  assert.deepEqual(spread.rules.options.spread, [[1, 5], [1, 10]]);
  assert.deepEqual(check(spread), []);
  assert.equal(spreadRanges("1-5, x"), null);
  // A number that is not whole is a problem of its field.
  assert.deepEqual(edited(nl, { "rules.seat_count": "6.5" }).problems.map((p) => p.field), ["rules.seat_count"]);
});

test("a server problem lands on its field, or the nearest one shown", () => {
  const values = valuesFrom(nl);
  assert.equal(fieldFor("rules.max_buy_in", values), "rules.max_buy_in");
  assert.equal(fieldFor("rules.ante.kind", values), "rules.ante");
  assert.equal(fieldFor("name", values), "name");
  // Not shown for no limit: listed under the form instead.
  assert.equal(fieldFor("rules.stakes.small_bet", values), null);
  assert.equal(fieldFor("clok", values), null);
});

test("every field is explained, its rule ids within the catalogue's R1..R38", () => {
  for (const group of GROUPS) {
    for (const f of group.fields) {
      assert.ok(f.help && f.help.length > 20, f.id);
      for (const id of f.help.match(/R\d+/g) || []) {
        const n = Number(id.slice(1));
        assert.ok(n >= 1 && n <= 38, `${f.id}: ${id}`);
      }
    }
  }
  assert.ok([...FIELDS.values()].every((f) => typeof shown(f, valuesFrom(nl)) === "boolean"));
});
