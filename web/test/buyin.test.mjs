// The buy-in dialog's offer (web/js/buyin.js): the player's own range from the server,
// bounded by the wallet, with the rathole rule's words when it applies.
import test from "node:test";
import assert from "node:assert/strict";
import { buyInChoice, onBuyInRange, askRange } from "../js/buyin.js";

const table = { min_buy_in: 40, max_buy_in: 200 };

test("a newcomer is offered the table's range, the most they may bring proposed", () => {
  const c = buyInChoice({ min: 40, max: 200 }, table, 5000);
  assert.deepEqual([c.min, c.max, c.value, c.short], [40, 200, 200, false]);
  assert.equal(c.text, "Between 40 and 200 \u00b7 wallet 5000");
  assert.equal(c.note, "");
});

test("r26 a player back within the rathole window is offered what they left with, even above the table's maximum", () => {
  const range = { min: 400, max: 400, rathole: { stack: 400, left_secs_ago: 12 * 60, window_secs: 3600 } };
  const c = buyInChoice(range, table, 5000);
  assert.deepEqual([c.min, c.max, c.value, c.short], [400, 400, 400, false]);
  assert.equal(c.text, "400 \u00b7 wallet 5000");
  assert.equal(c.note, "You left this table 12 minutes ago with 400: coming back within 60 minutes of leaving, you bring back at least what you left with (no ratholing).");
  // Left with 150: at least 150, up to the table's maximum.
  const c2 = buyInChoice({ min: 150, max: 200, rathole: { stack: 150, left_secs_ago: 30, window_secs: 3600 } }, table, 170);
  assert.deepEqual([c2.min, c2.max, c2.value, c2.short], [150, 170, 170, false]);
  assert.match(c2.note, /less than a minute ago with 150/);
});

test("a wallet short of the minimum is said so; no answer from the server offers the table's range", () => {
  const c = buyInChoice({ min: 400, max: 400, rathole: { stack: 400, left_secs_ago: 60, window_secs: 3600 } }, table, 300);
  assert.equal(c.short, true);
  assert.equal(c.value, 400);
  const none = buyInChoice(null, table, null);
  assert.deepEqual([none.min, none.max, none.value, none.text], [40, 200, 200, "Between 40 and 200"]);
});

test("the range asked is the one the server answers for that table", async () => {
  const sent = [];
  const S = { send: (m) => sent.push(m) };
  const asked = askRange(S, "t1", 1000);
  assert.deepEqual(sent, [{ type: "buy_in_range", table_id: "t1" }]);
  onBuyInRange({ type: "buy_in_range", table_id: "t2", min: 1, max: 2 });
  onBuyInRange({ type: "buy_in_range", table_id: "t1", min: 400, max: 400, rathole: { stack: 400, left_secs_ago: 1, window_secs: 3600 } });
  assert.deepEqual(await asked, { min: 400, max: 400, rathole: { stack: 400, left_secs_ago: 1, window_secs: 3600 } });
  assert.equal(await askRange(S, "t3", 10), null, "no answer in time");
});
