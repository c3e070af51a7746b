// The buy-in a player is offered: their own range, asked of the server before the dialog
// opens (`buy_in_range`: the table's range, or the rathole rule's for a player who left
// this table lately with more than its minimum), bounded by the wallet. The pure part,
// `buyInChoice`, is tested under node (web/test/buyin.test.mjs); main.js hands each
// `buy_in_range` message to `onBuyInRange`.

/** Answers awaited, by table id. */
const waiting = new Map();

/**
 * Asks the server what this player may buy in for at a table; resolves with the range
 * (`{ min, max, rathole? }`), or null when no answer comes in time (the dialog then
 * offers the table's own range, and the server still checks the sit).
 */
export function askRange(S, tableId, timeoutMs = 3000) {
  return new Promise((resolve) => {
    const earlier = waiting.get(tableId);
    if (earlier) earlier(null);
    const timer = setTimeout(() => { waiting.delete(tableId); resolve(null); }, timeoutMs);
    waiting.set(tableId, (range) => { clearTimeout(timer); waiting.delete(tableId); resolve(range); });
    S.send({ type: "buy_in_range", table_id: tableId });
  });
}

/** A `buy_in_range` message from the server: resolves the question waiting for it. */
export function onBuyInRange(m) {
  const done = waiting.get(m.table_id);
  if (done) done({ min: m.min, max: m.max, rathole: m.rathole || null });
}

function minutes(secs) {
  const n = Math.floor(secs / 60);
  return n === 0 ? "less than a minute" : n === 1 ? "1 minute" : n + " minutes";
}

/**
 * What the buy-in dialog offers: `range` is the server's answer (null: none came, the
 * table's range is offered), `table` the table's view, `balance` the wallet (null:
 * unknown). Returns the bounds, the amount proposed (the most the player may bring),
 * whether the wallet is short, and the words for the range and the rathole rule.
 */
export function buyInChoice(range, table, balance) {
  const min = range ? range.min : table.min_buy_in;
  const allowed = range ? range.max : table.max_buy_in;
  const max = balance === null ? allowed : Math.min(allowed, balance);
  const short = max < min;
  const rathole = range && range.rathole;
  const note = rathole
    ? "You left this table " + minutes(rathole.left_secs_ago) + " ago with " + rathole.stack +
      ": coming back within " + minutes(rathole.window_secs) + " of leaving, you bring back at least what you left with (no ratholing)."
    : "";
  const bounds = min === allowed ? String(min) : "Between " + min + " and " + allowed;
  const text = bounds + (balance !== null ? " \u00b7 wallet " + balance : "");
  return { min, max: Math.max(max, 0), value: short ? min : max, short, text, note };
}
