// Lobby filters and sorting: by game, by stakes, tables with a free seat only, and a
// sort order; the choice is kept for the session. Pure selection (`selectTables`) and
// the filter bar's wiring; the lobby's rows, drawn by views.js, are then hidden and
// reordered to match.

import { arrange } from "./dom.js";

/**
 * A table nobody plays at (fewer than two players): the lobby shows no average pot or
 * hands an hour for it (the last hour's figures say nothing about it now), and sorting
 * by them puts it last, as what is shown, not by the hidden figure.
 */
export function idle(t) {
  return t.players < 2;
}

const shown = (t, key) => (idle(t) ? -1 : t[key] || 0);

export const SORTS = {
  name: (a, b) => a.name.localeCompare(b.name),
  stakes: (a, b) => bigBlind(a.stakes) - bigBlind(b.stakes) || a.name.localeCompare(b.name),
  players: (a, b) => b.players - a.players || a.name.localeCompare(b.name),
  free: (a, b) => (b.seats - b.players) - (a.seats - a.players) || a.name.localeCompare(b.name),
  avg_pot: (a, b) => shown(b, "avg_pot") - shown(a, "avg_pot") || a.name.localeCompare(b.name),
};

/** The big blind of a stakes label ("1/2" -> 2, "5/10 ante 1" -> 10; 0 if none). */
export function bigBlind(stakes) {
  const m = String(stakes || "").match(/(\d+(?:\.\d+)?)\s*\/\s*(\d+(?:\.\d+)?)/);
  if (m) return Number(m[2]);
  const n = String(stakes || "").match(/\d+(?:\.\d+)?/);
  return n ? Number(n[0]) : 0;
}

/** The tables the filter keeps, in the sort's order. */
export function selectTables(tables, { game = "", stakes = "", free = false, sort = "name" } = {}) {
  return tables
    .filter((t) => !game || t.game === game)
    .filter((t) => !stakes || t.stakes === stakes)
    .filter((t) => !free || t.players < t.seats)
    .sort(SORTS[sort] || SORTS.name);
}

/** The choices a select offers: each distinct value, sorted (stakes by big blind). */
export function choices(tables, key) {
  const values = [...new Set(tables.map((t) => t[key]).filter(Boolean))];
  return key === "stakes" ? values.sort((a, b) => bigBlind(a) - bigBlind(b)) : values.sort();
}

const KEY = "pokerd.lobbyFilter";
let filter = null;

function load(storage) {
  if (filter) return filter;
  try { filter = JSON.parse(storage.getItem(KEY)) || {}; } catch (_) { filter = {}; }
  return filter;
}

function fill(select, values, chosen, all) {
  const want = [all, ...values].join("\u0000");
  if (select.dataset.values !== want) {
    select.replaceChildren(new Option(all, ""), ...values.map((v) => new Option(v, v)));
    select.dataset.values = want;
  }
  select.value = values.includes(chosen) ? chosen : "";
}

/** Applies the filter to the lobby's drawn rows (hides and reorders them). */
export function filterLobby(doc, storage, lobby) {
  const f = load(storage);
  const tables = [...lobby.values()];
  fill(doc.querySelector("#filter-game"), choices(tables, "game"), f.game || "", "All games");
  fill(doc.querySelector("#filter-stakes"), choices(tables, "stakes"), f.stakes || "", "All stakes");
  doc.querySelector("#filter-free").checked = !!f.free;
  doc.querySelector("#filter-sort").value = f.sort || "name";
  const kept = selectTables(tables, f);
  const body = doc.querySelector("#lobby tbody");
  const rows = new Map([...body.children].map((tr) => [tr.dataset.table, tr]));
  const shown = kept.map((t) => rows.get(t.table_id)).filter(Boolean);
  const on = new Set(shown);
  for (const tr of rows.values()) tr.classList.toggle("hidden", !on.has(tr));
  // The rows kept in the sort's order, the hidden ones after them; only the rows out of
  // place move, so a row with the focus keeps it while the lobby updates.
  arrange(body, shown.concat([...rows.values()].filter((tr) => !on.has(tr))));
  const note = doc.querySelector("#filter-count");
  note.textContent = kept.length === tables.length ? "" : kept.length + " of " + tables.length + " tables";
}

/** Wires the filter bar: each change is kept and the lobby filtered again. */
export function wireLobbyFilter(doc, storage, redraw) {
  const f = load(storage);
  const set = (key, value) => { f[key] = value; storage.setItem(KEY, JSON.stringify(f)); redraw(); };
  doc.querySelector("#filter-game").addEventListener("change", (e) => set("game", e.target.value));
  doc.querySelector("#filter-stakes").addEventListener("change", (e) => set("stakes", e.target.value));
  doc.querySelector("#filter-free").addEventListener("change", (e) => set("free", e.target.checked));
  doc.querySelector("#filter-sort").addEventListener("change", (e) => set("sort", e.target.value));
}
