// Issue 26's client features under node: the theme chosen, lobby filters and sorting,
// the emoji put at the caret, chips that move between two drawings of a hand, the stats'
// ranges and wording, and the light theme's contrast.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { chooseTheme, otherTheme } from "../js/theme.js";
import { selectTables, choices, bigBlind } from "../js/lobbyfilter.js";
import { insertAt, EMOJI } from "../js/emoji.js";
import { chipState, chipMoves } from "../js/chips.js";
import { sessionStart, startOfDay, dayRange, isoDay, formatStats } from "../js/stats.js";
import { contrast } from "../js/state.js";
import { tileParam, tileTables, tileGrid } from "../js/tiling.js";

test("the theme: the saved choice, else the system's", () => {
  assert.equal(chooseTheme("light", false), "light");
  assert.equal(chooseTheme("dark", true), "dark");
  assert.equal(chooseTheme(null, true), "light");
  assert.equal(chooseTheme(null, false), "dark");
  assert.equal(chooseTheme("purple", true), "light");
  assert.equal(otherTheme("light"), "dark");
  assert.equal(otherTheme("dark"), "light");
});

const tables = [
  { table_id: "a", name: "Zeta", game: "NL Hold'em", stakes: "1/2", players: 6, seats: 6, avg_pot: 40 },
  { table_id: "b", name: "Alpha", game: "PL Omaha", stakes: "5/10", players: 2, seats: 6, avg_pot: 300 },
  { table_id: "c", name: "Mid", game: "NL Hold'em", stakes: "2/5", players: 1, seats: 9, avg_pot: 0 },
  { table_id: "d", name: "Stud", game: "7 Card Stud", stakes: "2/4 ante 1", players: 0, seats: 8, avg_pot: 10 },
];
const ids = (list) => list.map((t) => t.table_id);

test("lobby filters keep the game, the stakes and free seats asked, sorted as asked", () => {
  assert.deepEqual(ids(selectTables(tables)), ["b", "c", "d", "a"]);
  assert.deepEqual(ids(selectTables(tables, { game: "NL Hold'em" })), ["c", "a"]);
  assert.deepEqual(ids(selectTables(tables, { stakes: "5/10" })), ["b"]);
  assert.deepEqual(ids(selectTables(tables, { free: true })), ["b", "c", "d"]);
  assert.deepEqual(ids(selectTables(tables, { game: "NL Hold'em", free: true })), ["c"]);
  assert.deepEqual(ids(selectTables(tables, { sort: "stakes" })), ["a", "d", "c", "b"]);
  assert.deepEqual(ids(selectTables(tables, { sort: "players" })), ["a", "b", "c", "d"]);
  assert.deepEqual(ids(selectTables(tables, { sort: "free" })), ["c", "d", "b", "a"]);
  // By the average pot shown: tables nobody plays at show none and come last, by name
  // (d's hidden 10 does not put it before c).
  assert.deepEqual(ids(selectTables(tables, { sort: "avg_pot" })), ["b", "a", "c", "d"]);
  assert.deepEqual(choices(tables, "stakes"), ["1/2", "2/4 ante 1", "2/5", "5/10"]);
  assert.deepEqual(choices(tables, "game"), ["7 Card Stud", "NL Hold'em", "PL Omaha"]);
  assert.equal(bigBlind("0.5/1"), 1);
  assert.equal(bigBlind("25"), 25);
  assert.equal(bigBlind(""), 0);
});

test("an emoji goes in at the caret, replacing the selection", () => {
  assert.deepEqual(insertAt("gl all", 2, 2, "🍀"), { text: "gl🍀 all", caret: 4 });
  assert.deepEqual(insertAt("nice hand", 5, 9, "👏"), { text: "nice 👏", caret: 7 });
  assert.deepEqual(insertAt("", 3, 9, "😀"), { text: "😀", caret: 2 });
  assert.equal(new Set(EMOJI).size, EMOJI.length);
});

const hand = (number, players, ended = false) => ({ number, ended, players });

test("chips move: bets to the pot at the end of a round, the pot to each winner", () => {
  const betting = chipState(hand(4, [{ seat: 0, bet: 10, won: 0 }, { seat: 2, bet: 10, won: 0 }, { seat: 5, bet: 0, won: 0 }]));
  const flop = chipState(hand(4, [{ seat: 0, bet: 0, won: 0 }, { seat: 2, bet: 0, won: 0 }, { seat: 5, bet: 0, won: 0 }]));
  assert.deepEqual(chipMoves(betting, flop), [{ from: 0, to: "pot", amount: 10 }, { from: 2, to: "pot", amount: 10 }]);
  // A bet still there (raised) moves nothing.
  const raised = chipState(hand(4, [{ seat: 0, bet: 30, won: 0 }, { seat: 2, bet: 10, won: 0 }]));
  assert.deepEqual(chipMoves(betting, raised), []);
  const won = chipState(hand(4, [{ seat: 0, bet: 0, won: 25 }, { seat: 2, bet: 0, won: 15 }], true));
  assert.deepEqual(chipMoves(flop, won), [{ from: "pot", to: 0, amount: 25 }, { from: "pot", to: 2, amount: 15 }]);
  // Drawn again: nothing new moves; nor between two hands, nor without a hand.
  assert.deepEqual(chipMoves(won, won), []);
  assert.deepEqual(chipMoves(won, chipState(hand(5, [{ seat: 0, bet: 2, won: 0 }]))), []);
  assert.equal(chipState(null), null);
  assert.deepEqual(chipMoves(null, flop), []);
});

test("stats: the session kept for the tab, today's and a download's days, one line", () => {
  const store = new Map();
  const storage = { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => store.set(k, v) };
  assert.equal(sessionStart(storage, 1000), 1000);
  assert.equal(sessionStart(storage, 5000), 1000, "a reload continues the session");
  const noon = new Date(2026, 10, 26, 12, 30).getTime();
  assert.equal(startOfDay(noon), new Date(2026, 10, 26).getTime());
  assert.equal(isoDay(noon), "2026-11-26");
  assert.deepEqual(dayRange("2026-11-25", "2026-11-26"), {
    from: new Date(2026, 10, 25).getTime(), to: new Date(2026, 10, 27).getTime(),
  });
  assert.equal(formatStats({ hands: 0, net: 0, bb_per_100: null }), "no hands yet");
  assert.equal(formatStats({ hands: 12, net: 34, bb_per_100: 141.67 }), "12 hands \u00b7 net +34 \u00b7 +141.67 bb/100");
  assert.equal(formatStats({ hands: 1, net: -2, bb_per_100: -100 }), "1 hand \u00b7 net -2 \u00b7 -100.00 bb/100");
});

test("the light theme meets WCAG AA contrast (4.5:1)", () => {
  const css = readFileSync(new URL("../features.css", import.meta.url), "utf8");
  const light = css.slice(css.indexOf(':root[data-theme="light"]'));
  const v = (name) => light.match(new RegExp("--" + name + ":\\s*(#[0-9a-fA-F]{6})"))[1];
  const pairs = [["text", "bg"], ["text", "panel"], ["muted", "bg"], ["muted", "panel"], ["text", "button"], ["accent", "panel"], ["accent", "bg"]];
  for (const [fg, bg] of pairs) {
    const r = contrast(v(fg), v(bg));
    assert.ok(r >= 4.5, `${fg} on ${bg}: ${r.toFixed(2)}:1`);
  }
  // The table's message on the felt, white in the light theme.
  assert.ok(contrast("#ffffff", "#1d6641") >= 4.5);
});

test("tiling: a tile's table from the query, the tables tiled, the grid", () => {
  const id = "0b6f5c1e-7a52-4f7e-9a43-6a2f1d0c9e11";
  assert.equal(tileParam("?tile=" + id), id);
  assert.equal(tileParam("?tile=../admin"), null);
  assert.equal(tileParam(""), null);
  const T = (id, table = { name: id }) => ({ id, table });
  assert.deepEqual(tileTables([T("a"), T("b"), T("c", null), T("d")], "d"), ["d", "a", "b"]);
  assert.deepEqual(tileTables([T("a"), T("b"), T("c"), T("d"), T("e")], "e"), ["e", "a", "b", "c"]);
  assert.deepEqual(tileTables([T("a")], "a"), ["a"]);
  assert.deepEqual(tileGrid(2), { cols: 2, rows: 1 });
  assert.deepEqual(tileGrid(3), { cols: 2, rows: 2 });
  assert.deepEqual(tileGrid(4), { cols: 2, rows: 2 });
});
