// Drawing at the screen's pace and lists that keep their rows, under node (web/js/dom.js,
// views.js's lobby and tabs, lobbyfilter.js's order): however many messages come, one
// drawing a frame; a row per key, updated in place, so the focus and a click on a row
// survive a table playing; when the order changes, as few rows as possible move.
import test from "node:test";
import assert from "node:assert/strict";
import { frames, stayers, arrange, keyed } from "../js/dom.js";
import { fakeDocument } from "./fakedom.mjs";

/** Animation frames and timers run by hand. */
function clock() {
  let next = 1;
  const frames_ = new Map();
  const timers = new Map();
  return {
    frames: frames_,
    timers,
    raf: (f) => { frames_.set(next, f); return next++; },
    cancelRaf: (id) => frames_.delete(id),
    setTimer: (f) => { timers.set(next, f); return next++; },
    clearTimer: (id) => timers.delete(id),
    frame() { const fs = [...frames_.values()]; frames_.clear(); fs.forEach((f) => f()); },
    timeout() { const ts = [...timers.values()]; timers.clear(); ts.forEach((f) => f()); },
  };
}

test("eighty messages in a frame are drawn once, at the frame", () => {
  const c = clock();
  let drawn = 0;
  const f = frames(() => drawn++, c);
  for (let i = 0; i < 80; i++) f.request();
  assert.equal(drawn, 0, "nothing is drawn per message");
  assert.equal(c.frames.size, 1, "one frame asked for");
  c.frame();
  assert.equal(drawn, 1);
  assert.equal(c.timers.size, 0, "the fallback timer is dropped once the frame drew");
  c.frame();
  assert.equal(drawn, 1, "no message, no drawing");
  f.request();
  c.frame();
  assert.equal(drawn, 2, "the next message asks for the next frame");
  assert.equal(f.drawn, 2);
});

test("what the player did is drawn at once, and the frame asked for before is dropped", () => {
  const c = clock();
  let drawn = 0;
  const f = frames(() => drawn++, c);
  f.request();
  f.now();
  assert.equal(drawn, 1);
  assert.equal(f.pending, false);
  c.frame();
  c.timeout();
  assert.equal(drawn, 1, "not drawn a second time for the same messages");
});

test("where no frame comes (a page in the background) the timer draws, once", () => {
  const c = clock();
  let drawn = 0;
  const f = frames(() => drawn++, c);
  for (let i = 0; i < 10; i++) f.request();
  c.timeout();
  assert.equal(drawn, 1);
  c.frame();
  assert.equal(drawn, 1, "the frame asked for was dropped");
});

test("a drawing that throws does not stop the drawings after it", () => {
  const c = clock();
  let n = 0;
  const f = frames(() => { n++; if (n === 1) throw new Error("boom"); }, c);
  f.request();
  assert.throws(() => c.frame());
  f.request();
  c.frame();
  assert.equal(n, 2);
});

test("the elements that stay when a list is reordered are the longest run already in order", () => {
  assert.deepEqual([...stayers([0, 1, 2])].sort(), [0, 1, 2]);
  assert.deepEqual([...stayers([2, 0, 1])].sort(), [1, 2], "the first moves to the end: one move");
  assert.deepEqual([...stayers([1, 2, 0])].sort(), [0, 1], "the last moves to the front: one move");
  assert.deepEqual([...stayers([-1, 0, -1, 1])].sort(), [1, 3], "new elements never stay");
  assert.equal(stayers([3, 2, 1, 0]).size, 1);
  assert.equal(stayers([]).size, 0);
});

function shuffled(list, rand) {
  const a = list.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

test("arrange puts any order in place, moving only the elements out of place", () => {
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let round = 0; round < 200; round++) {
    const doc = fakeDocument({ "#list": "tbody" });
    const box = doc.querySelector("#list");
    const n = 1 + Math.floor(rand() * 12);
    const rows = [...Array(n).keys()].map((k) => { const r = doc.createElement("tr"); r.dataset.key = String(k); box.append(r); return r; });
    const extra = doc.createElement("tr"); // a child not in the list stays after it
    box.append(extra);
    doc.moves = 0;
    const order = shuffled(rows, rand);
    arrange(box, order);
    assert.deepEqual(box.children, [...order, extra]);
    const places = order.map((r) => rows.indexOf(r));
    assert.equal(doc.moves, n - stayers(places).size, "moved: only those out of place");
  }
});

test("a keyed list keeps each key's element, adds new keys at the end and removes those gone", () => {
  const doc = fakeDocument({ "#list": "ul" });
  const box = doc.querySelector("#list");
  const make = (item) => doc.createElement("li");
  const update = (li, item) => { li.textContent = item.text; };
  const first = keyed(box, [{ id: "a", text: "A" }, { id: "b", text: "B" }], (i) => i.id, make, update);
  const second = keyed(box, [{ id: "b", text: "B2" }, { id: "c", text: "C" }], (i) => i.id, make, update);
  assert.equal(second[0], first[1], "b's element kept");
  assert.equal(second[0].textContent, "B2", "and brought up to date");
  assert.deepEqual(box.children.map((e) => e.dataset.key), ["b", "c"]);
  assert.equal(first[0].parentNode, null, "a's element removed");
  box.append(doc.createElement("li")); // a child without a key is not the list's
  keyed(box, [{ id: "b", text: "B" }], (i) => i.id, make, update);
  assert.deepEqual(box.children.map((e) => e.dataset.key), ["b"]);
});

// ---------------------------------------------------------------- the lobby and the tabs

const { renderLobby, renderTabs } = await import("../js/views.js");
// lobbyfilter.js keeps the filter it read first: each test loads its own copy.
let copies = 0;
const lobbyFilter = async () => (await import("../js/lobbyfilter.js?copy=" + copies++)).filterLobby;
const { reduce, initialState } = await import("../js/reduce.js");

const ID = (n) => `0000000${n}-0000-4000-8000-000000000000`;
const summary = (n, name, players, extra = {}) => ({
  table_id: ID(n), name, game: "NL Hold'em", stakes: "1/2", players, seats: 6, waiting: 0,
  avg_pot: 10, hands_per_hour: 80, status: "open", ...extra,
});

function lobbyPage() {
  const doc = fakeDocument({
    "#lobby tbody": "tbody", "#lobby-empty": "p", "#filter-game": "select", "#filter-stakes": "select",
    "#filter-free": "input", "#filter-sort": "select", "#filter-count": "span", "#tabs": "nav",
  });
  globalThis.document = doc;
  globalThis.Option = class { constructor(text, value) { return Object.assign(doc.createElement("option"), { value, text }); } };
  return doc;
}

/** A storage holding one lobby filter. */
const storage = (filter) => ({ getItem: () => JSON.stringify(filter), setItem() {} });

test("a focused lobby row keeps the focus and takes a click while its table plays 80 updates", async () => {
  const doc = lobbyPage();
  const opened = [];
  const ui = { openTable: (id) => opened.push(id) };
  const filterLobby = await lobbyFilter();
  let S = reduce(initialState({ token: true }), { type: "tables", tables: [summary(1, "Alpha", 2), summary(2, "Beta", 3)] }).state;
  const draw = () => { renderLobby(S, ui); filterLobby(doc, storage({ sort: "name" }), S.lobby); };
  draw();
  const body = doc.querySelector("#lobby tbody");
  const row = body.children.find((tr) => tr.dataset.table === ID(1));
  const button = row.cells[6].firstChild;
  button.focus();
  doc.moves = 0;
  for (let i = 0; i < 80; i++) {
    S = reduce(S, { type: "table_update", table: summary(1, "Alpha", 2 + (i % 3), { avg_pot: 10 + i, hands_per_hour: 80 + i }) }).state;
    draw();
  }
  assert.equal(doc.activeElement, button, "the focus is where it was");
  assert.equal(body.children.find((tr) => tr.dataset.table === ID(1)), row, "the same row, updated");
  assert.equal(row.cells[4].textContent, "89", "showing the last update");
  assert.equal(doc.moves, 0, "no row moved");
  button.click();
  assert.deepEqual(opened, [ID(1)], "the click opens the table");
});

test("a row that moves past the focused one leaves it focused; a row filtered out is hidden, not removed", async () => {
  const doc = lobbyPage();
  const ui = { openTable() {} };
  let S = reduce(initialState({ token: true }), { type: "tables", tables: [summary(1, "A", 5), summary(2, "B", 4), summary(3, "C", 1, { stakes: "5/10" })] }).state;
  const filters = { players: await lobbyFilter(), stakes: await lobbyFilter() };
  const draw = (filter) => { renderLobby(S, ui); filters[filter.stakes ? "stakes" : "players"](doc, storage(filter), S.lobby); };
  draw({ sort: "players" });
  const body = doc.querySelector("#lobby tbody");
  const names = () => body.children.filter((tr) => !tr.classList.contains("hidden")).map((tr) => tr.cells[0].textContent);
  assert.deepEqual(names(), ["A", "B", "C"]);
  const b = body.children.find((tr) => tr.dataset.table === ID(2));
  b.cells[6].firstChild.focus();
  // C fills up and goes to the top: C moves, A and B stay.
  S = reduce(S, { type: "table_update", table: summary(3, "C", 6, { stakes: "5/10" }) }).state;
  draw({ sort: "players" });
  assert.deepEqual(names(), ["C", "A", "B"]);
  assert.equal(doc.activeElement, b.cells[6].firstChild, "B keeps the focus");
  draw({ sort: "players", stakes: "1/2" });
  assert.deepEqual(names(), ["A", "B"]);
  assert.equal(body.children.length, 3, "C's row is hidden, not removed");
  assert.equal(doc.querySelector("#filter-count").textContent, "2 of 3 tables");
  // A closed table leaves the lobby.
  S = reduce(S, { type: "table_update", table: summary(1, "A", 5, { status: "closed" }) }).state;
  draw({ sort: "players" });
  assert.deepEqual(names(), ["C", "B"]);
  assert.equal(doc.activeElement, b.cells[6].firstChild);
});

test("the tabs keep their buttons while the tables play, and follow the player's turn", () => {
  const doc = lobbyPage();
  const ui = { openTable() {} };
  const view = (n, name) => ({ table_id: ID(n), name, seat_count: 6, seats: [], blinds: [1, 2], button: null });
  let S = initialState({ token: true });
  S = reduce(S, { type: "welcome", player_id: "me", name: "me" }).state;
  S = reduce({ ...S, current: ID(1) }, { type: "snapshot", table: view(1, "One"), chat: [] }).state;
  S = reduce({ ...S, current: ID(2) }, { type: "snapshot", table: view(2, "Two"), chat: [] }).state;
  S = { ...S, view: "table" };
  renderTabs(S, ui);
  const nav = doc.querySelector("#tabs");
  const [one, two] = nav.children;
  one.focus();
  assert.deepEqual(nav.children.map((b) => b.textContent), ["One", "Two"]);
  assert.equal(two.className, "current");
  const T1 = S.tables.get(ID(1));
  S = { ...S, tables: new Map(S.tables).set(ID(1), { ...T1, alert: true }) };
  renderTabs(S, ui);
  assert.equal(nav.children[0], one);
  assert.equal(doc.activeElement, one, "the focused tab keeps the focus");
  assert.equal(one.className, " alert");
  assert.equal(one.getAttribute("aria-label"), "One: your turn");
  S = { ...S, tables: new Map(S.tables).set(ID(1), { ...T1, alert: false }) };
  renderTabs(S, ui);
  assert.equal(one.getAttribute("aria-label"), null);
});
