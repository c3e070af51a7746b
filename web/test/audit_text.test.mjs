// The console's audit log in words (web/js/audit_text.js) under node: entries as the
// server sends them (GET /admin/audit-log, with names) read as one line each, with names
// and not ids; and ledger accounts in words.
import test from "node:test";
import assert from "node:assert/strict";
import { describe, actorText, accountText, targetText } from "../js/audit_text.js";

const ann = "3f2a9c1e-0000-4000-8000-00000000a001";
const table = "7b1d0e55-0000-4000-8000-0000000000b1";
const entry = (action, detail, extra = {}) => ({
  at: 0, actor: "staff:Carla", actor_kind: "staff", actor_name: "Carla", action, target: ann,
  target_kind: "player", target_name: "ann", detail: JSON.stringify(detail), names: {}, ...extra,
});

test("a deposit reads with the amount, the player's name and the key", () => {
  const line = describe(entry("deposit", { amount: 1000, idempotency_key: "dep-1", balance: 1500 }));
  assert.equal(line, "deposit 1,000 to ann (3f2a9c1e) (key dep-1): wallet 1,500");
  assert.equal(describe(entry("withdraw", { amount: 20, idempotency_key: "w", balance: 0 })), "withdraw 20 from ann (3f2a9c1e) (key w): wallet 0");
});

test("tables, staff and other actions read in words, with names for every id", () => {
  const t = { target: table, target_kind: "table", target_name: "Main 1/2" };
  // As the server logs it: TableSpec, the rules flattened beside the clock.
  const spec = { game: "holdem", structure: "no_limit", stakes: { min_bet: 2 }, small_blind: 1, big_blind: 2, seat_count: 6, clock: { action_ms: 1 } };
  assert.equal(describe(entry("create_table", { name: "Main 1/2", spec }, t)), "open table Main 1/2 (7b1d0e55): holdem no limit 1/2, 6 seats");
  const original = "11111111-2222-4333-8444-555555555555";
  const clone = entry("clone_table", { from: original, name: "Main 1/2 (2)" }, { ...t, target_name: "Main 1/2 (2)", names: { [original]: "Main 1/2" } });
  assert.equal(describe(clone), "open table Main 1/2 (2) (7b1d0e55) as a copy of Main 1/2 (11111111)");
  assert.equal(describe(entry("close_table", { cashed_out: 2500 }, t)), "close table Main 1/2 (7b1d0e55): 2,500 chips back to the wallets");
  const staff = { target: "Fred", target_kind: "staff", target_name: "Fred" };
  assert.equal(describe(entry("create_staff", { staff_id: "x", role: "floor" }, staff)), "add staff Fred as floor");
  assert.equal(describe(entry("set_staff_role", { name: "Fred", from: "floor", to: "admin" }, staff)), "make Fred admin (was floor)");
  assert.equal(describe(entry("use_reset_code", { issued_by: "staff:Fred", issued_at: 0 }, { actor: "address:10.0.0.1", actor_kind: "address" })),
    "ann (3f2a9c1e) set a new password with a reset code issued by Fred");
  assert.equal(describe(entry("lock_player", {})), "lock ann (3f2a9c1e) out (their sessions end)");
  // An action the console does not know: its words and details as they are, ids named.
  assert.equal(describe(entry("grant_chips", { amount: 5, by: original }, { names: { [original]: "Main 1/2" } })), "grant chips ann (3f2a9c1e): amount 5, by Main 1/2 (11111111)");
});

test("who acted, and a target the server no longer knows", () => {
  assert.equal(actorText({ actor_kind: "token", actor_name: "admin token" }), "admin token");
  assert.equal(actorText({ actor_kind: "staff", actor_name: "Carla" }), "Carla");
  assert.equal(actorText({ actor_kind: "address", actor_name: "10.0.0.1" }), "a player from 10.0.0.1");
  assert.equal(targetText({ target: "gone-id", target_name: null }), "gone-id");
});

test("ledger accounts in words", () => {
  assert.equal(accountText({ account: `wallet:${ann}` }), "wallet");
  assert.equal(accountText({ account: `seat:${table}:${ann}`, table_id: table, table_name: "Main 1/2" }), "seat at Main 1/2");
  assert.equal(accountText({ account: "house:rake" }), "rake");
  assert.equal(accountText({ account: "external" }), "outside");
});
