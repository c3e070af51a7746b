// The operators' console at /admin: plain ES module, no build step. It signs in with the
// admin token or a staff account (POST /admin/login) and drives the admin API: tables
// (create from presets with every rule editable, clone, close, a live view), players
// (search by name, then everything by id: money with idempotency keys, ledger, lock, a
// one-time reset code, a password set directly by admins, their hands), hands (by table,
// player and date, as PokerStars text or PHH, downloadable), the room (ledger audit, rake
// per day and table, metrics), fair play (same-address pairs with the hands they played
// together, the collusion report, sortable, each row opening its hands), staff (roles, disable and enable, new password, sign out)
// and the audit log. A player appears everywhere as their name beside a short id, never
// by name alone: a name can read like somebody else's id. A new table is made with a
// form (web/js/table_form.js: each rule a field with what it means, checked as the server
// checks it, the server's problems shown on their fields) or, in "Advanced: JSON", as the
// request body; the audit log reads in words (web/js/audit_text.js). Every list a change
// touches is read again after it; every list scrolls inside its own box on a narrow screen.
//
// Like the player's page: `reduceConsole(state, message)` is pure (tested under node in
// web/test/console.test.mjs): an operator's action (`ui_*`) or the API's answer (`got_*`,
// `did_*`, `refused`) gives the next state and the effects to run (an API call, the live
// view's timer, the session's token, the form's problems). The views draw the state, at
// most once per animation frame, each part only when its part of the state changed; the
// lists keep a row per key (a table, a player, a seat, a staff member), so the focus and
// a click survive the live view's updates and the lists read again after a change. The
// new-table form's fields are the page's own (table_form.js checks them).

import { GROUPS, FIELDS, valuesFrom, bodyFrom, check, fieldFor, shown as fieldShown } from "./table_form.js";
import { describe, actorText, accountText, chips, shortId } from "./audit_text.js";
import { $, el, frames, keyed, arrange, setText } from "./dom.js";

// ---------------------------------------------------------------- the state (pure)

/** The pair report's sort until the operator picks a column. */
export const PAIR_SORT = "folds_ahead";
/** How often the live view of a table is read again, in milliseconds. */
export const LIVE_MS = 2000;

/**
 * The console before anything is read: `token` is the session kept in this tab (or null).
 * The lists are the API's answers as they came; `live` the table viewed live
 * (`{ table_id, view }`), `player` the player opened (with `ledger` and the idempotency
 * key of the next money movement), `notice` the last word to the operator (`n` counts
 * them, so the same words twice show twice).
 */
export function initialConsole(token = null) {
  return {
    token, role: null, actor: null, signInError: "", section: "tables",
    tables: [], tableNames: {}, presetsAsked: false, presets: [], live: null,
    playerQuery: "", players: [], player: null, ledger: [], moneyKey: null, code: null,
    handPlayers: [], hands: [], handShown: null,
    room: { audit: null, metrics: null, rake: null, rakeTables: null },
    flags: null, pairs: null, pairQuery: "", pairSort: PAIR_SORT, pairDetail: null, pairHand: null,
    staff: [], auditLog: [], notice: null,
  };
}

/**
 * The next state after `m`, and the effects to run: `{ type: "call", method, path, body,
 * auth, then, ctx, fresh }` (an API call: its answer comes back as `{ type: then, answer,
 * ...ctx }`, with `key`, a new idempotency key, when `fresh` names one; a refusal as
 * `{ type: "refused", then, error, ...ctx }`), `{ type: "live", on }` (read the live view
 * every LIVE_MS, or stop), `{ type: "keep_token", token }`, `{ type: "forget_token" }`,
 * `{ type: "sign_out", staff, token }`, `{ type: "form" }` (the presets came: build the new-table
 * form), `{ type: "problems", problems, fromJson }` (show the server's problems on the
 * form), `{ type: "clear", ids }` (empty these inputs).
 */
export function reduceConsole(state, m) {
  const r = { state: { ...state }, effects: [] };
  const handler = CONSOLE[m.type];
  if (handler) handler(r, m);
  return r;
}

const call = (r, then, path, { method = "GET", body, auth = true, ctx = {}, fresh } = {}) =>
  r.effects.push({ type: "call", method, path, body, auth, then, ctx, fresh });

function notice(r, text, bad = false) {
  r.state.notice = { text, bad, n: (r.state.notice ? r.state.notice.n : 0) + 1 };
}

/** The hands started from the first day to the last (both `yyyy-mm-dd`, UTC; "" for none). */
export function withinDays(hands, from, to) {
  const a = from ? Date.parse(from) : -Infinity;
  const b = to ? Date.parse(to) + 86_400_000 : Infinity;
  return hands.filter((h) => h.started_at >= a && h.started_at < b);
}

/** The pair report's query: its sort, the newest hands read, and the days chosen. */
export function pairQuery(sort, { pairFrom = "", pairTo = "", pairMax = "" } = {}) {
  const q = new URLSearchParams({ sort, max_hands: pairMax || "20000" });
  if (pairFrom) q.set("since", String(Date.parse(pairFrom)));
  if (pairTo) q.set("until", String(Date.parse(pairTo) + 86_400_000));
  return q.toString();
}

/** A figure of pokerd's /metrics text, or "–" when it has none. */
export function metric(text, name) {
  const m = text.match(new RegExp("^" + name + "(?:\\{[^}]*\\})? (\\S+)$", "m"));
  return m ? Number(m[1]) : "\u2013";
}

/** Whether the books balance: wallets + stacks + rake = deposits − withdrawals, nothing unbalanced. */
export function booksBalance(a) {
  return a.wallets + a.stacks + a.rake === a.deposits - a.withdrawals && a.unbalanced_movements === 0 && a.mismatched_accounts.length === 0;
}

// What each section reads when it is shown (or refreshed); `inputs` are the search forms'
// values as the operator left them.
const LOADS = {
  tables: (r) => call(r, "got_tables", "/admin/tables"),
  players: (r, inputs) => searchPlayers(r, inputs.q || ""),
  hands: (r) => call(r, "got_tables", "/admin/tables"),
  room: (r) => call(r, "got_audit", "/admin/audit"),
  fairplay: (r, inputs) => {
    call(r, "got_flags", "/admin/fair-play/flags");
    call(r, "got_tables", "/admin/tables");
    loadPairs(r, inputs);
  },
  staff: (r) => call(r, "got_staff", "/admin/staff"),
  audit: (r) => call(r, "got_audit_log", "/admin/audit-log?limit=200"),
};

function show(r, section, inputs = {}) {
  r.state.section = section;
  stopLive(r);
  LOADS[section](r, inputs);
}

function stopLive(r) {
  r.effects.push({ type: "live", on: false });
}

function searchPlayers(r, q) {
  r.state.playerQuery = q;
  call(r, "got_players", "/admin/players" + (q ? "?q=" + encodeURIComponent(q) : ""));
}

function openPlayer(r, id) {
  call(r, "got_player", "/admin/players/" + encodeURIComponent(id), { fresh: "money" });
}

function loadPairs(r, inputs) {
  const q = pairQuery(r.state.pairSort, inputs);
  call(r, "got_pairs", "/admin/fair-play/pairs?" + q, { ctx: { query: q } });
}

// The session ended under us (signed out elsewhere, disabled, idle too long): back to the
// sign-in screen, saying why.
function ended(r, why) {
  const s = r.state;
  Object.assign(s, { token: null, role: null, actor: null, signInError: why });
  stopLive(r);
  r.effects.push({ type: "forget_token" });
}

const CONSOLE = {
  // ------------------------------------------------------------ signing in
  ui_sign_in(r, m) {
    r.state.token = m.token;
    call(r, "got_whoami", "/admin/whoami");
  },
  ui_staff_sign_in(r, m) {
    call(r, "did_staff_login", "/admin/login", { method: "POST", body: { name: m.name, password: m.password }, auth: false });
  },
  did_staff_login(r, m) { CONSOLE.ui_sign_in(r, { token: m.answer.token }); },
  got_whoami(r, m) {
    Object.assign(r.state, { role: m.answer.role, actor: m.answer.actor, signInError: "" });
    r.effects.push({ type: "keep_token", token: r.state.token });
    show(r, r.state.section, m.inputs || {});
  },
  ui_sign_out(r) {
    r.effects.push({ type: "sign_out", staff: !!(r.state.actor && r.state.actor.startsWith("staff:")), token: r.state.token });
    Object.assign(r.state, { token: null, role: null });
  },
  ui_show(r, m) { show(r, m.section, m.inputs); },
  ui_load(r, m) { LOADS[m.section](r, m.inputs || {}); },

  // ------------------------------------------------------------ tables
  got_tables(r, m) {
    r.state.tables = m.answer;
    r.state.tableNames = Object.fromEntries(m.answer.map((t) => [t.table_id, t.name]));
    if (!r.state.presetsAsked) {
      r.state.presetsAsked = true;
      call(r, "got_presets", "/admin/presets");
    }
  },
  got_presets(r, m) {
    r.state.presets = m.answer;
    r.effects.push({ type: "form" });
  },
  ui_create_table(r, m) {
    call(r, "did_create_table", "/admin/tables", { method: "POST", body: m.body, ctx: { fromJson: !!m.fromJson, name: m.body && m.body.name } });
  },
  did_create_table(r, m) {
    r.effects.push({ type: "problems", problems: [], fromJson: false });
    notice(r, "Table opened: " + m.name);
    call(r, "got_tables", "/admin/tables");
    CONSOLE.ui_live(r, { table_id: m.answer.table_id });
  },
  ui_clone(r, m) {
    call(r, "did_clone", `/admin/tables/${m.table.table_id}/clone`, { method: "POST", body: { name: m.name }, ctx: { name: m.name } });
  },
  did_clone(r, m) {
    notice(r, "Cloned as " + m.name);
    call(r, "got_tables", "/admin/tables");
  },
  ui_close_table(r, m) {
    call(r, "did_close", `/admin/tables/${m.table.table_id}/close`, { method: "POST", ctx: { name: m.table.name } });
  },
  did_close(r, m) {
    notice(r, `${m.name} closed; ${m.answer.cashed_out} chips back in the wallets`);
    call(r, "got_tables", "/admin/tables");
  },
  ui_live(r, m) {
    const was = r.state.live;
    r.state.live = { table_id: m.table_id, view: was ? was.view : null };
    r.effects.push({ type: "live", on: true });
    call(r, "got_live", `/admin/tables/${m.table_id}`, { ctx: { table_id: m.table_id } });
  },
  ui_live_tick(r) {
    const live = r.state.live;
    if (live) call(r, "got_live", `/admin/tables/${live.table_id}`, { ctx: { table_id: live.table_id } });
  },
  got_live(r, m) {
    const live = r.state.live;
    if (!live || live.table_id !== m.table_id) return; // an answer for a table no longer viewed
    r.state.live = { ...live, view: m.answer };
    if (m.answer.status === "closed") stopLive(r);
  },

  // ------------------------------------------------------------ players
  ui_search_players(r, m) { searchPlayers(r, m.q); },
  got_players(r, m) { r.state.players = m.answer; },
  ui_open_player(r, m) { openPlayer(r, m.id); },
  got_player(r, m) {
    const s = r.state;
    const p = m.answer;
    // The reset code shown is one player's: another player's page hides it.
    if (!s.player || s.player.player_id !== p.player_id) s.code = null;
    Object.assign(s, { player: p, moneyKey: m.key });
    call(r, "got_ledger", `/admin/players/${p.player_id}/ledger`, { ctx: { player_id: p.player_id } });
  },
  got_ledger(r, m) {
    if (r.state.player && r.state.player.player_id === m.player_id) r.state.ledger = m.answer;
  },
  ui_money(r, m) {
    const p = r.state.player;
    if (!p || !(m.amount > 0)) { notice(r, "Enter an amount", true); return; }
    // One key per intent: a double click or a retry applies once.
    call(r, "did_money", `/admin/players/${p.player_id}/${m.kind}`, {
      method: "POST", body: { amount: m.amount, idempotency_key: r.state.moneyKey }, ctx: { kind: m.kind, amount: m.amount, player: p },
    });
  },
  did_money(r, m) {
    const p = m.player;
    notice(r, `${m.kind === "deposit" ? "Deposited" : "Withdrew"} ${chips(m.amount)} for ${whoText(p.name, p.player_id)}: wallet ${chips(m.answer.balance)}`);
    r.effects.push({ type: "clear", ids: ["#money-amount"] });
    // The player's wallet, ledger and the list's wallet column, read again (a new key for
    // the next intent comes with the player).
    openPlayer(r, p.player_id);
    searchPlayers(r, r.state.playerQuery);
  },
  ui_lock(r) {
    const p = r.state.player;
    if (p) call(r, "did_lock", `/admin/players/${p.player_id}/lock`, { method: "POST", body: { locked: !p.locked }, ctx: { player: p } });
  },
  did_lock(r, m) {
    notice(r, m.player.locked ? "Unlocked" : "Locked: their sessions ended");
    openPlayer(r, m.player.player_id);
    searchPlayers(r, r.state.playerQuery);
  },
  ui_reset_code(r) {
    const p = r.state.player;
    if (p) call(r, "did_reset_code", `/admin/players/${p.player_id}/reset-code`, { method: "POST", ctx: { player: p } });
  },
  // Shown once, here: the server keeps only its hash.
  did_reset_code(r, m) {
    r.state.code = { code: m.answer.code, expires_at: m.answer.expires_at, name: m.player.name, player_id: m.player.player_id };
  },
  ui_set_password(r, m) {
    const p = r.state.player;
    if (p) call(r, "did_password", `/admin/players/${p.player_id}/password`, { method: "POST", body: { password: m.password } });
  },
  did_password(r) {
    r.effects.push({ type: "clear", ids: ["#new-password"] });
    notice(r, "Password set; their sessions ended");
  },
  ui_player_hands(r, m) {
    const p = r.state.player;
    if (!p) return;
    r.state.handPlayers = [p];
    r.effects.push({ type: "clear", ids: ["#hand-table"] });
    show(r, "hands", m.inputs);
    CONSOLE.ui_find_hands(r, { ...m.inputs, playerId: p.player_id, table: "" });
  },

  // ------------------------------------------------------------ hands
  // The players a name search found, to choose one from (by id).
  ui_hand_player(r, m) {
    if (m.q) call(r, "got_hand_players", "/admin/players?q=" + encodeURIComponent(m.q));
    else r.state.handPlayers = [];
  },
  got_hand_players(r, m) {
    r.state.handPlayers = m.answer;
    if (!m.find) return;
    // Searched with a name typed and no player chosen yet: the one player of that name
    // (or the only one found) is searched at once, in one click.
    const q = m.find.q.toLowerCase();
    const pick = m.answer.find((p) => p.name.toLowerCase() === q) || (m.answer.length === 1 ? m.answer[0] : null);
    if (pick) CONSOLE.ui_find_hands(r, { ...m.find, playerId: pick.player_id, q: "" });
    else notice(r, m.answer.length ? "Choose the player among the " + m.answer.length + " found" : "No player named like " + m.find.q, true);
  },
  ui_find_hands(r, m) {
    const ctx = { table: m.table || "", from: m.from || "", to: m.to || "" };
    if (!m.playerId && m.q) call(r, "got_hand_players", "/admin/players?q=" + encodeURIComponent(m.q), { ctx: { find: { ...ctx, q: m.q } } });
    else if (m.playerId) call(r, "got_hands", `/admin/players/${m.playerId}/hands?limit=500`, { ctx });
    else if (m.table) call(r, "got_hands", `/admin/tables/${m.table}/hands?limit=500`, { ctx });
    else notice(r, "Choose a table or a player", true);
  },
  got_hands(r, m) {
    const hands = withinDays(m.answer.filter((h) => !m.table || h.table_id === m.table), m.from, m.to);
    r.state.hands = hands;
    if (!hands.length) notice(r, "No hands found");
  },
  ui_view_hand(r, m) {
    call(r, "got_hand_text", `/admin/hands/${m.hand.hand_id}?format=${m.format}`, { ctx: { hand: m.hand, format: m.format } });
  },
  got_hand_text(r, m) { r.state.handShown = { hand: m.hand, format: m.format, text: m.answer }; },

  // ------------------------------------------------------------ the room
  got_audit(r, m) {
    r.state.room = { ...r.state.room, audit: m.answer };
    call(r, "got_metrics", "/metrics", { auth: false });
  },
  got_metrics(r, m) {
    r.state.room = { ...r.state.room, metrics: m.answer };
    call(r, "got_rake", "/admin/rake?days=30&by=day");
  },
  // The rake per day, then per table: in a room of thousands of tables a row per table and
  // day would be tens of thousands of rows.
  got_rake(r, m) {
    r.state.room = { ...r.state.room, rake: m.answer };
    call(r, "got_rake_tables", "/admin/rake?days=30&by=table");
  },
  got_rake_tables(r, m) { r.state.room = { ...r.state.room, rakeTables: m.answer }; },

  // ------------------------------------------------------------ fair play
  got_flags(r, m) { r.state.flags = m.answer; },
  ui_pairs(r, m) { loadPairs(r, m.inputs); },
  ui_pair_sort(r, m) {
    r.state.pairSort = m.sort;
    loadPairs(r, m.inputs);
  },
  got_pairs(r, m) { Object.assign(r.state, { pairs: m.answer, pairQuery: m.query }); },
  ui_flag_hands(r, m) {
    const f = m.flag;
    r.state.pairDetail = { title: `${f.player.name} and ${f.other.name} at ${f.table_name}`, hands: f.hands, a: f.player, b: f.other };
    r.state.pairHand = null;
  },
  ui_pair_hands(r, m) {
    const q = new URLSearchParams(r.state.pairQuery);
    const w = new URLSearchParams({ limit: "500" });
    for (const k of ["since", "until"]) if (q.has(k)) w.set(k, q.get(k));
    call(r, "got_pair_hands", `/admin/fair-play/pairs/${m.pair.a.player_id}/${m.pair.b.player_id}/hands?` + w, { ctx: { pair: m.pair } });
  },
  got_pair_hands(r, m) {
    const { a, b } = m.pair;
    r.state.pairDetail = { title: `${named(a)} and ${named(b)}: ${m.answer.length} hands`, hands: m.answer, a, b };
    r.state.pairHand = null;
  },
  ui_pair_hand(r, m) {
    call(r, "got_pair_hand", `/admin/hands/${m.hand.hand_id}?format=pokerstars`, { ctx: { number: m.hand.number } });
  },
  got_pair_hand(r, m) { r.state.pairHand = { number: m.number, text: m.answer }; },

  // ------------------------------------------------------------ staff and the audit log
  got_staff(r, m) { r.state.staff = m.answer; },
  ui_staff(r, m) {
    call(r, "did_staff", `/admin/staff/${m.staff.staff_id}/${m.what}`, { method: "POST", body: m.body, ctx: { staff: m.staff, done: m.done || null } });
  },
  did_staff(r, m) {
    notice(r, m.done || `${m.staff.name} signed out: ${m.answer.sessions_ended} session(s) ended`);
    call(r, "got_staff", "/admin/staff");
  },
  ui_add_staff(r, m) {
    call(r, "did_add_staff", "/admin/staff", { method: "POST", body: { name: m.name, password: m.password, role: m.role }, ctx: { name: m.name } });
  },
  did_add_staff(r, m) {
    notice(r, "Added " + m.name);
    r.effects.push({ type: "clear", ids: ["#new-staff-name", "#new-staff-password"] });
    call(r, "got_staff", "/admin/staff");
  },
  got_audit_log(r, m) { r.state.auditLog = m.answer; },

  // ------------------------------------------------------------ refusals
  refused(r, m) {
    const e = m.error;
    if (m.then === "got_whoami") {
      r.state.token = null;
      r.effects.push({ type: "forget_token" });
      r.state.signInError = e.status === 401 ? "That token or session is not valid." : e.message;
      return;
    }
    if (m.then === "did_staff_login") { r.state.signInError = e.message || "Refused"; return; }
    if (e.status === 401 && r.state.role) ended(r, "Your session has ended (signed out, disabled or idle too long): sign in again.");
    if (m.then === "did_create_table") {
      // Every problem at once (a refusal without fields, such as a role's: one per line).
      const problems = e.problems && e.problems.length ? e.problems : e.message.split("; ").map((x) => ({ field: "", message: x }));
      r.effects.push({ type: "problems", problems, fromJson: m.fromJson });
      return;
    }
    if (m.then === "got_live") stopLive(r);
    notice(r, e.message, true);
    // A staff change refused: the list as it is now.
    if (m.then === "did_staff") call(r, "got_staff", "/admin/staff");
  },
};

// ---------------------------------------------------------------- words

const when = (ms) => ms ? new Date(ms).toISOString().replace("T", " ").slice(0, 19) : "";
const whoText = (name, id) => `${name} \u00b7 ${shortId(id)}`;
// A player as the fair play lists name one: the name beside a short id.
const named = (p) => `${p.name} (${p.player_id.slice(0, 8)})`;
const folds = (f) => `${f.folds} (${f.ahead} ahead)`;

/// A game or structure as the form offers it, in words.
function choiceText(id, value) {
  const choice = (FIELDS.get(id).options || []).find(([k]) => k === value);
  return choice ? choice[1] : String(value ?? "");
}

// A ledger line's reference in words: a hand by its number at its table when the hand
// is one the console listed, an idempotency key as it is.
function reference(l) {
  if (!l.reference) return "";
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-/i.test(l.reference)) return "hand " + l.reference.slice(0, 8);
  return "key " + l.reference;
}

// ---------------------------------------------------------------- the page (from here on, a browser)

let state = initialConsole();

/** Feeds a message to the reducer, runs its effects and asks for a drawing. */
function dispatch(m) {
  const r = reduceConsole(state, m);
  state = r.state;
  for (const e of r.effects) run(e);
  frame.request();
}

let liveTimer = null;

function run(e) {
  switch (e.type) {
    case "call": callApi(e); break;
    case "live":
      clearInterval(liveTimer);
      liveTimer = e.on ? setInterval(() => dispatch({ type: "ui_live_tick" }), LIVE_MS) : null;
      break;
    case "keep_token": sessionStorage.setItem("pokerd.admin", e.token); break;
    case "forget_token": sessionStorage.removeItem("pokerd.admin"); break;
    case "sign_out": signOut(e.staff, e.token); break;
    case "form": buildForm(); break;
    case "problems":
      if (!e.fromJson) { showProblems(e.problems); break; }
      showProblems([]);
      $("#json-problems").replaceChildren(...e.problems.map((p) => el("li", "", p.field ? `${p.field}: ${p.message}` : p.message)));
      break;
    case "clear": for (const id of e.ids) $(id).value = ""; break;
  }
}

async function api(method, path, body, auth = true) {
  const headers = body !== undefined ? { "content-type": "application/json" } : {};
  if (auth) headers.authorization = "Bearer " + state.token;
  const r = await fetch(path, { method, headers, body: body !== undefined ? JSON.stringify(body) : undefined });
  const type = r.headers.get("content-type") || "";
  const data = type.includes("json") ? await r.json() : await r.text();
  if (!r.ok) {
    const err = new Error((data && data.message) || r.statusText);
    err.status = r.status;
    err.problems = (data && data.problems) || [];
    throw err;
  }
  return data;
}

const newKey = (what) => what + "-" + Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 8);

async function callApi({ method, path, body, auth, then, ctx, fresh }) {
  let answer;
  try {
    answer = await api(method, path, body, auth);
  } catch (err) {
    dispatch({ type: "refused", then, ...ctx, error: { message: err.message, status: err.status, problems: err.problems || [] } });
    return;
  }
  dispatch({ type: then, answer, ...ctx, ...(fresh ? { key: newKey(fresh) } : {}) });
}

async function signOut(staff, token) {
  // A staff session ends on the server too.
  if (staff) await fetch("/admin/logout", { method: "POST", headers: { authorization: "Bearer " + token } }).catch(() => {});
  sessionStorage.removeItem("pokerd.admin");
  location.reload();
}

/** The search forms' values as the operator left them (what a section reads with). */
function inputs() {
  return { q: $("#player-q").value.trim(), pairFrom: $("#pair-from").value, pairTo: $("#pair-to").value, pairMax: $("#pair-max").value };
}

// ---------------------------------------------------------------- drawing

// What was drawn last: each part is drawn again only when its part of the state changed.
let drawn = {};
const frame = frames(draw);

function draw() {
  const s = state;
  const was = drawn;
  drawn = s;
  const moved = (...keys) => keys.some((k) => s[k] !== was[k]);
  if (moved("role", "actor", "signInError", "section")) drawSession(s);
  if (moved("tables")) { drawTables(s); drawHandTables(s); }
  if (moved("live")) drawLive(s);
  if (moved("players")) drawPlayers(s);
  if (moved("player", "ledger", "code", "role")) drawPlayer(s);
  if (moved("handPlayers")) drawHandPlayers(s);
  if (moved("hands", "tableNames")) drawHands(s);
  if (moved("handShown")) drawHandShown(s);
  if (moved("room")) drawRoom(s);
  if (moved("flags")) drawFlags(s);
  if (moved("pairs", "pairSort")) drawPairs(s);
  if (moved("pairDetail", "pairHand")) drawPairDetail(s);
  if (moved("staff")) drawStaff(s);
  if (moved("auditLog")) drawAuditLog(s);
  if (moved("notice")) drawNotice(s);
}

// A player (or staff member) as shown everywhere: the name beside the first 8 digits of
// the id (the whole id on hover), and a warning when the name itself reads as an id.
function who(name, id, likeId = false) {
  const span = el("span", "who");
  span.append(el("span", "name", name), " ", el("code", "id", shortId(id)));
  span.querySelector("code").title = id;
  if (likeId) span.append(" ", el("span", "warn", "name reads as an id"));
  return span;
}

function button(text, onclick, cls = "") {
  const b = el("button", cls, text);
  b.type = "button";
  b.onclick = onclick;
  return b;
}

// The item each kept row shows now (its buttons act on it).
const itemOf = new WeakMap();

/**
 * A list's rows, one per key, kept across drawings (see dom.js's `keyed`) and in the
 * list's order: `draw(item)` gives `{ cells, buttons, actions }` — each cell a text, or
 * `{ node, sig }` (made again only when `sig` changed), and the buttons `{ text, cls,
 * act(item) }` (made again only when their labels changed, so the one with the focus
 * keeps it). `actions` (true unless said) adds the buttons' cell even when empty.
 */
function rows(tbody, items, keyOf, drawRow, after = () => {}) {
  const trs = keyed(tbody, items, keyOf, () => el("tr"), (tr, item) => {
    itemOf.set(tr, item);
    const { cells, buttons = [], actions = true } = drawRow(item);
    const n = cells.length + (actions ? 1 : 0);
    while (tr.cells.length < n) tr.append(el("td"));
    cells.forEach((c, k) => {
      const td = tr.cells[k];
      if (c && c.node) {
        if (td.dataset.sig !== c.sig) { td.dataset.sig = c.sig; td.replaceChildren(c.node(tr)); }
      } else setText(td, String(c ?? ""));
    });
    if (actions) {
      const td = tr.cells[cells.length];
      td.className = "row-actions";
      const sig = buttons.map((b) => b.text + "\u0000" + (b.cls || "")).join("\u0001");
      if (td.dataset.sig !== sig) {
        td.dataset.sig = sig;
        td.replaceChildren(...buttons.map((b) => button(b.text, () => b.act(itemOf.get(tr)), b.cls)));
      }
    }
    after(tr, item);
  });
  // Rows in the list's order (keyed adds new ones at the end); only those out of place move.
  arrange(tbody, trs);
  return trs;
}

const whoCell = (name, id, likeId = false) => ({ node: () => who(name, id, likeId), sig: [name, id, likeId].join("\u0000") });

function drawSession(s) {
  const signedIn = !!s.role;
  setText($("#who"), !signedIn ? "" : s.actor === "token" ? "admin (token)" : s.actor.replace("staff:", "") + " \u00b7 " + s.role);
  $("#sign-in").classList.toggle("hidden", signedIn);
  $("#sections").classList.toggle("hidden", !signedIn);
  $("#sign-out").classList.toggle("hidden", !signedIn);
  setText($("#sign-in-error"), s.signInError);
  $("#sections [data-section=staff]").classList.toggle("hidden", s.role !== "admin");
  // Only an admin sets a player's password directly; the floor issues reset codes.
  $("#password-row").classList.toggle("hidden", s.role !== "admin");
  $("#reset-code").classList.toggle("hidden", s.role === "cashier");
  for (const x of document.querySelectorAll(".section")) x.classList.toggle("hidden", !signedIn || x.id !== s.section);
  for (const b of document.querySelectorAll("#sections button")) {
    if (b.dataset.section === s.section) b.setAttribute("aria-current", "page"); else b.removeAttribute("aria-current");
  }
}

function stakesOf(r) {
  return r.structure === "fixed_limit" || (r.stakes && r.stakes.bring_in) ? `${r.stakes.small_bet}/${r.stakes.big_bet}` : `${r.small_blind}/${r.big_blind}`;
}

function drawTables(s) {
  rows($("#table-list tbody"), s.tables, (t) => t.table_id, (t) => {
    const r = t.rules || {};
    const open = t.status !== "closed";
    return {
      cells: [t.name, `${choiceText("rules.game", r.game)} \u00b7 ${choiceText("rules.structure", r.structure)}`, stakesOf(r), `${t.seats.length}/${r.seat_count}`, t.status],
      buttons: [
        ...(open ? [{ text: "View", act: (x) => dispatch({ type: "ui_live", table_id: x.table_id }) }] : []),
        { text: "Clone", act: cloneTable },
        ...(open ? [{ text: "Close", act: closeTable, cls: "danger" }] : []),
      ],
    };
  });
}

function drawHandTables(s) {
  const sel = $("#hand-table");
  const want = s.tables.map((t) => t.table_id + "\u0000" + t.name).join("\u0001");
  if (sel.dataset.sig === want) return;
  sel.dataset.sig = want;
  const keep = sel.value;
  sel.replaceChildren(el("option", "", "(any)"), ...s.tables.map((t) => { const o = el("option", "", t.name); o.value = t.table_id; return o; }));
  sel.options[0].value = "";
  sel.value = keep;
}

// The live view: its heading, the hand in progress and a row per seat, kept while the
// view is read again every 2 s.
function drawLive(s) {
  const panel = $("#table-live");
  panel.classList.toggle("hidden", !s.live);
  const v = s.live && s.live.view;
  if (!v) return;
  if (!panel.querySelector("h3")) {
    const list = el("table", "list");
    list.append(el("thead"), el("tbody"));
    list.tHead.append(el("tr"));
    for (const h of ["Seat", "Player", "Stack", "State", ""]) list.tHead.rows[0].append(el("td", h ? "" : "row-actions", h));
    panel.replaceChildren(el("h3"), el("p", "muted"));
    panel.append(list);
    boxed(list, "Seats");
  }
  const t = v.table;
  setText(panel.querySelector("h3"), `${t.name} \u00b7 ${t.game || ""} ${t.stakes || ""} \u00b7 ${v.status}`);
  setText(panel.querySelector("p"), v.hand ? `Hand #${v.hand.number} in progress \u00b7 board ${v.hand.board || "(none yet)"} \u00b7 pot ${v.hand.pot}` +
    (v.clock ? ` \u00b7 seat ${v.clock.seat + 1} to act, ${Math.ceil(v.clock.remaining_ms / 1000)} s${v.clock.in_time_bank ? " (time bank)" : ""}` : "") +
    ` \u00b7 ${v.hands_dealt} dealt` : `Between hands \u00b7 ${v.hands_dealt || 0} dealt`);
  const box = panel.querySelector(".table-box");
  box.setAttribute("aria-label", `Seats at ${t.name}`);
  rows(box.querySelector("tbody"), t.seats, (x) => x.seat, (x) => {
    const inHand = v.hand && v.hand.in_hand.includes(x.seat);
    const toAct = v.clock && v.clock.seat === x.seat;
    return {
      cells: [x.seat + 1, whoCell(x.name, x.player_id), x.stack, [x.sitting_out ? "sitting out" : inHand ? "in the hand" : "playing", toAct ? "to act" : "",
        x.leaving ? "leaving" : "", x.pending_top_up ? `+${x.pending_top_up} after the hand` : ""].filter(Boolean).join(", ")],
    };
  });
}

function drawPlayers(s) {
  rows($("#player-list tbody"), s.players, (p) => p.player_id, (p) => ({
    cells: [whoCell(p.name, p.player_id, p.name_like_id), chips(p.balance), [p.locked ? "locked" : "", p.bot ? "house bot" : ""].filter(Boolean).join(", ") || "active"],
    buttons: [{ text: "Open", act: (x) => dispatch({ type: "ui_open_player", id: x.player_id }) }],
  }));
}

function drawPlayer(s) {
  const p = s.player;
  $("#player-detail").classList.toggle("hidden", !p);
  const box = $("#code-shown");
  box.classList.toggle("hidden", !s.code);
  if (s.code) {
    const c = s.code;
    box.replaceChildren(
      el("span", "", "Reset code for "), who(c.name, c.player_id), el("span", "", ": "),
      el("code", "reset-code", c.code),
      el("span", "muted", ` \u00b7 works once, until ${when(c.expires_at)} UTC, at the player page's \u201cReset code\u201d. Their password and sessions stand until then.`));
  } else box.replaceChildren();
  if (!p) return;
  $("#player-name").replaceChildren(who(p.name, p.player_id, p.name_like_id));
  const seats = (p.seats || []).map((x) => `${x.table_name || x.table_id}: ${x.stack}`).join(", ");
  setText($("#player-summary"), `Wallet ${p.balance}` + (seats ? ` \u00b7 seated: ${seats}` : " \u00b7 not seated") + (p.locked ? " \u00b7 locked" : ""));
  setText($("#lock"), p.locked ? "Unlock" : "Lock");
  $("#ledger tbody").replaceChildren(...s.ledger.slice(0, 50).map((l) => {
    const tr = el("tr");
    const amount = el("td", "num", (l.amount > 0 ? "+" : "") + chips(l.amount));
    for (const c of [when(l.created_at), accountText(l)]) tr.append(el("td", "", c));
    tr.append(amount, el("td", "", l.kind.replace(/_/g, " ")), el("td", "", reference(l)));
    return tr;
  }));
}

function drawHandPlayers(s) {
  const sel = $("#hand-player-id");
  sel.replaceChildren(el("option", "", "(any)"), ...s.handPlayers.map((p) => { const o = el("option", "", whoText(p.name, p.player_id)); o.value = p.player_id; return o; }));
  sel.options[0].value = "";
  if (s.handPlayers.length === 1) sel.value = s.handPlayers[0].player_id;
}

function drawHands(s) {
  rows($("#hand-list tbody"), s.hands, (h) => h.hand_id, (h) => ({
    cells: [`#${h.number}`, s.tableNames[h.table_id] || h.table_id, when(h.started_at), h.status],
    buttons: h.status === "complete" ? [{ text: "View", act: (x) => dispatch({ type: "ui_view_hand", hand: x, format: "pokerstars" }) }] : [],
  }));
}

function drawHandShown(s) {
  const v = s.handShown;
  $("#hand-view").classList.toggle("hidden", !v);
  if (!v) return;
  const h = v.hand;
  setText($("#hand-title"), `${s.tableNames[h.table_id] || ""} hand #${h.number} (${v.format === "phh" ? "PHH" : "PokerStars"})`);
  $("#hand-text").textContent = v.text;
  const a = $("#download");
  if (a.href) URL.revokeObjectURL(a.href);
  a.href = URL.createObjectURL(new Blob([v.text], { type: "text/plain" }));
  a.download = `hand-${h.number}-${h.hand_id.slice(0, 8)}.${v.format === "phh" ? "phh" : "txt"}`;
}

function figures(dl, pairs) {
  dl.replaceChildren(...pairs.flatMap(([k, v]) => [el("dt", "", k), el("dd", "", String(v))]));
}

function drawRoom(s) {
  const { audit, metrics, rake, rakeTables } = s.room;
  if (audit) {
    const holds = booksBalance(audit);
    setText($("#audit-status"), holds ? "\u2714 The books balance: wallets + stacks + rake = deposits \u2212 withdrawals." : "\u2718 The books do not balance: see the figures.");
    $("#audit-status").className = holds ? "ok" : "error";
    figures($("#audit-figures"), [["Wallets", audit.wallets], ["On the tables", audit.stacks], ["Rake", audit.rake], ["Deposits", audit.deposits], ["Withdrawals", audit.withdrawals]]);
  }
  if (metrics !== null) {
    figures($("#metrics"), [["Tables", metric(metrics, "poker_tables")], ["Players seated", metric(metrics, "poker_seated_players")],
      ["Hands dealt", metric(metrics, "poker_hands_total")], ["Connections", metric(metrics, "poker_connections")]]);
  }
  const rakeRows = (id, report, cells) => {
    $(id + " tbody").replaceChildren(...report.rows.map((x) => {
      const tr = el("tr");
      for (const c of cells(x)) tr.append(el("td", "", String(c)));
      return tr;
    }), (() => { const tr = el("tr", "total"); for (const c of ["Total", "", report.total]) tr.append(el("td", "", String(c))); return tr; })());
  };
  if (rake) rakeRows("#rake", rake, (x) => [x.day, x.hands, x.rake]);
  if (rakeTables) rakeRows("#rake-tables", rakeTables, (x) => [x.table_name, x.hands, x.rake]);
}

function drawFlags(s) {
  if (!s.flags) return;
  const flags = s.flags.length ? s.flags : [null];
  rows($("#flag-list tbody"), flags, (f) => (f ? [f.at, f.table_name, f.player.player_id, f.other.player_id].join("/") : ""), (f) => (!f
    ? { cells: ["No pair flagged", "", "", "", "", ""] }
    : {
      cells: [when(f.at), f.table_name, named(f.player), named(f.other), f.address, f.hands.length],
      buttons: f.hands.length ? [{ text: "Hands", act: (x) => dispatch({ type: "ui_flag_hands", flag: x }) }] : [],
    }));
}

function drawPairs(s) {
  for (const th of document.querySelectorAll("#pair-list th[data-sort]")) {
    if (th.dataset.sort === s.pairSort) th.setAttribute("aria-sort", "descending"); else th.removeAttribute("aria-sort");
  }
  const r = s.pairs;
  if (!r) return;
  setText($("#pair-summary"), `${r.hands} hands from ${when(r.oldest_started_at || r.since)} to ${when(r.until)}` +
    (r.complete ? "" : ` (the newest ${r.max_hands} of the window)`) + ` \u00b7 ${r.pairs_total} ${r.pairs_total === 1 ? "pair" : "pairs"}` +
    (r.unreadable ? ` \u00b7 ${r.unreadable} unreadable` : ""));
  rows($("#pair-list tbody"), r.pairs, (p) => p.a.player_id + "/" + p.b.player_id, (p) => {
    const folded = p.a_folds_to_b.folds + p.b_folds_to_a.folds;
    const rate = folded ? Math.round((100 * p.folds_ahead) / folded) + "%" : "\u2013";
    return {
      cells: [`${named(p.a)} \u2190 ${named(p.b)}`, p.hands, p.net_chips,
        `${p.a.name}: ${folds(p.a_folds_to_b)}; ${p.b.name}: ${folds(p.b_folds_to_a)}`, p.folds_ahead, rate, p.shared_addresses.join(", ")],
      buttons: [{ text: "Hands", act: (x) => dispatch({ type: "ui_pair_hands", pair: x }) }],
    };
  }, (tr, p) => tr.classList.toggle("flagged", p.shared_addresses.length > 0));
}

// A pair's hands, each opened as PokerStars text below the list.
function drawPairDetail(s) {
  const d = s.pairDetail;
  $("#pair-detail").classList.toggle("hidden", !d);
  if (!d) return;
  setText($("#pair-title"), d.title);
  const { a, b } = d;
  rows($("#pair-hands tbody"), d.hands, (h) => h.hand_id, (h) => ({
    cells: [`#${h.number}`, h.table_name || s.tableNames[h.table_id] || h.table_id, when(h.started_at),
      h.net_chips === undefined ? "" : `${h.net_chips} to ${a.name}`,
      h.a_folds_to_b ? `${a.name}: ${folds(h.a_folds_to_b)}; ${b.name}: ${folds(h.b_folds_to_a)}` : ""],
    buttons: [{ text: "View", act: (x) => dispatch({ type: "ui_pair_hand", hand: x }) }],
  }));
  const shown = s.pairHand;
  setText($("#fp-hand-title"), shown ? `Hand #${shown.number}` : "");
  $("#fp-hand-text").textContent = shown ? shown.text : "";
  $("#fp-hand-text").classList.toggle("hidden", !shown);
}

function drawStaff(s) {
  rows($("#staff-list tbody"), s.staff, (x) => x.staff_id, (x) => ({
    cells: [whoCell(x.name, x.staff_id), { node: roleSelect, sig: "role" }, x.disabled ? "disabled" : "enabled", when(x.created_at)],
    buttons: [
      { text: x.disabled ? "Enable" : "Disable", cls: x.disabled ? "" : "danger",
        act: (y) => staffDo(y, "disable", { disabled: !y.disabled }, y.disabled ? `${y.name} enabled` : `${y.name} disabled: their sessions ended`) },
      { text: "New password", act: newStaffPassword },
      { text: "Sign out", act: (y) => staffDo(y, "sign-out", undefined, null) },
    ],
  }), (tr, x) => {
    tr.dataset.staff = x.staff_id;
    tr.classList.toggle("disabled", x.disabled);
    const role = tr.querySelector("select.role");
    role.setAttribute("aria-label", "Role of " + x.name);
    if (role.value !== x.role) role.value = x.role;
  });
}

// A staff member's role, kept in the row (it keeps the focus while the list is read again).
function roleSelect(tr) {
  const role = el("select", "role");
  for (const r of ["admin", "cashier", "floor"]) { const o = el("option", "", r); o.value = r; role.append(o); }
  role.addEventListener("change", () => {
    const x = itemOf.get(tr);
    staffDo(x, "role", { role: role.value }, `${x.name} is now ${role.value}`);
  });
  return role;
}

function drawAuditLog(s) {
  $("#audit-log tbody").replaceChildren(...s.auditLog.map((l) => {
    const tr = el("tr");
    tr.dataset.action = l.action;
    tr.append(el("td", "", when(l.at)), el("td", "", actorText(l)), el("td", "", describe(l)));
    return tr;
  }));
}

let noticeTimer = null;
function drawNotice(s) {
  const n = $("#notice");
  if (!s.notice) { n.classList.add("hidden"); return; }
  n.textContent = s.notice.text;
  n.classList.toggle("bad", s.notice.bad);
  n.classList.remove("hidden");
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => n.classList.add("hidden"), 5000);
}

// ---------------------------------------------------------------- questions and actions

/**
 * The page's own question (a native confirm() or prompt() would stop every page of the
 * room in this browser until answered): resolves with true or false, or, with `input`
 * (the field's label), with the text typed or null when cancelled.
 */
function ask(question, { yes = "Yes", input = null, value = "", type = "text" } = {}) {
  return new Promise((resolve) => {
    const d = $("#ask-dialog");
    const box = $("#ask-input");
    $("#ask-text").textContent = question;
    $("#ask-yes").textContent = yes;
    $("#ask-input-row").classList.toggle("hidden", input === null);
    $("#ask-input-label").textContent = input || "";
    box.type = type;
    box.value = value;
    d.returnValue = "";
    d.addEventListener("close", () => {
      const ok = d.returnValue === "yes";
      resolve(input === null ? ok : ok ? box.value : null);
    }, { once: true });
    d.showModal();
    if (input !== null) box.select();
  });
}

async function cloneTable(t) {
  const name = await ask("Clone " + t.name + ": a new table with the same rules.", { yes: "Clone", input: "Name of the new table", value: t.name + " (2)" });
  if (name !== null) dispatch({ type: "ui_clone", table: t, name });
}

async function closeTable(t) {
  if (await ask(`Close ${t.name}? The hand in progress finishes and everyone is cashed out.`, { yes: "Close the table" })) dispatch({ type: "ui_close_table", table: t });
}

function staffDo(x, what, body, done) {
  dispatch({ type: "ui_staff", staff: x, what, body, done });
}

async function newStaffPassword(x) {
  const password = await ask(`A new password for ${x.name}: their sessions end.`, { yes: "Set the password", input: "New password (8 to 256 characters)", type: "password" });
  if (password) staffDo(x, "password", { password }, `${x.name} has a new password`);
}

// ---------------------------------------------------------------- the new-table form

// The body the form started from (a preset, or the JSON loaded): what the form does not
// show is kept from it.
let formBase = null;
const inputId = (id) => "f-" + id.replace(/\./g, "-");
const fieldBox = (id) => document.querySelector(`#table-fields [data-field="${id}"]`);

/// The presets came: the choice of preset, and the form started from the first.
function buildForm() {
  $("#preset").replaceChildren(...state.presets.map((p) => { const o = el("option", "", p.body.name); o.value = p.key; return o; }));
  buildTableForm();
  choosePreset();
}

/// The form's fields, in groups, each with its explanation and a place for its problem.
function buildTableForm() {
  $("#table-fields").replaceChildren(...GROUPS.map((g) => {
    const set = el("fieldset");
    set.append(el("legend", "", g.title));
    for (const f of g.fields) {
      const box = el("div", "field" + (f.kind === "check" ? " check" : ""));
      box.dataset.field = f.id;
      const id = inputId(f.id);
      let input;
      if (f.kind === "select") {
        input = el("select");
        for (const [value, text] of f.options) { const o = el("option", "", text); o.value = value; input.append(o); }
      } else {
        input = el("input");
        input.type = f.kind === "check" ? "checkbox" : "text";
        if (f.kind === "number") { input.inputMode = f.step === "any" ? "decimal" : "numeric"; input.autocomplete = "off"; }
        if (f.id === "name") { input.maxLength = 64; input.autocomplete = "off"; }
      }
      input.id = id;
      input.name = f.id;
      const label = el("label", "", f.label + (f.optional ? " (optional)" : ""));
      label.htmlFor = id;
      const help = el("p", "help", f.help);
      help.id = id + "-help";
      const error = el("p", "field-error");
      error.id = id + "-error";
      input.setAttribute("aria-describedby", `${help.id} ${error.id}`);
      if (f.kind === "check") box.append(input, label, help, error); else box.append(label, input, help, error);
      set.append(box);
    }
    return set;
  }));
  $("#table-fields").addEventListener("input", (e) => { clearProblem(e.target.name); showFields(); });
  $("#table-fields").addEventListener("change", showFields);
}

function formValues() {
  const v = {};
  for (const f of FIELDS.values()) {
    const input = document.getElementById(inputId(f.id));
    v[f.id] = f.kind === "check" ? input.checked : input.value;
  }
  return v;
}

function setFormValues(v) {
  for (const f of FIELDS.values()) {
    const input = document.getElementById(inputId(f.id));
    if (f.kind === "check") input.checked = Boolean(v[f.id]); else input.value = v[f.id] ?? "";
  }
  showFields();
}

/// Shows the fields that apply to the game and structure chosen, hides the others.
function showFields() {
  const v = formValues();
  for (const f of FIELDS.values()) fieldBox(f.id).classList.toggle("hidden", !fieldShown(f, v));
}

function clearProblem(id) {
  const box = id && fieldBox(id);
  if (!box) return;
  box.classList.remove("invalid");
  box.querySelector(".field-error").textContent = "";
  document.getElementById(inputId(id)).removeAttribute("aria-invalid");
}

/// Shows each problem on its field (or, when no field shown is to blame, under the form)
/// and moves the focus to the first field with a problem.
function showProblems(problems) {
  for (const f of FIELDS.values()) clearProblem(f.id);
  const list = $("#table-problems");
  list.replaceChildren();
  const v = formValues();
  let first = null;
  for (const p of problems) {
    const id = fieldFor(p.field, v);
    if (!id) { list.append(el("li", "", p.field ? `${p.field}: ${p.message}` : p.message)); continue; }
    const box = fieldBox(id);
    const error = box.querySelector(".field-error");
    error.textContent = error.textContent ? error.textContent + "; " + p.message : p.message;
    box.classList.add("invalid");
    const input = document.getElementById(inputId(id));
    input.setAttribute("aria-invalid", "true");
    first = first || input;
  }
  if (first) first.focus();
}

function choosePreset() {
  const p = state.presets.find((x) => x.key === $("#preset").value) || state.presets[0];
  if (!p) return;
  formBase = p.body;
  setFormValues(valuesFrom(p.body));
  showProblems([]);
  if ($("#table-json").open) $("#table-body").value = JSON.stringify(p.body, null, 2);
}

function jsonBody() {
  try { return JSON.parse($("#table-body").value); } catch (e) {
    $("#json-problems").replaceChildren(el("li", "", "not valid JSON: " + e.message));
    return null;
  }
}

/// Sends a create-table body. The server's problems go on their fields when the form
/// made the body, and are listed under the JSON (each with its field's path) when the
/// JSON did: the form's fields do not hold that body.
function createTable(body, fromJson = false) {
  $("#json-problems").replaceChildren();
  dispatch({ type: "ui_create_table", body, fromJson });
}

// ---------------------------------------------------------------- narrow screens

/// Puts a list in a box of its own that scrolls sideways when the list is wider than the
/// screen (a tablet held upright), so the page itself never does; the box is a region
/// the keyboard reaches, named after the heading above the list.
function boxed(table, label) {
  const box = el("div", "table-box");
  box.tabIndex = 0;
  box.setAttribute("role", "region");
  if (!label) {
    let h = table.previousElementSibling;
    while (h && !/^H[2-4]$/.test(h.tagName) && !h.classList.contains("section-head")) h = h.previousElementSibling;
    const heading = h ? (h.matches("h2, h3, h4") ? h : h.querySelector("h2")) : table.closest("section, .panel").querySelector("h2, h3");
    label = heading ? heading.textContent : table.id;
  }
  box.setAttribute("aria-label", label);
  table.replaceWith(box);
  box.append(table);
  return box;
}

// ---------------------------------------------------------------- wiring

function wire() {
  state = initialConsole(sessionStorage.getItem("pokerd.admin"));
  window.pokerdConsole = { get state() { return state; }, dispatch, get drawn() { return frame.drawn; } };
  $("#token-form").addEventListener("submit", (e) => {
    e.preventDefault();
    dispatch({ type: "ui_sign_in", token: $("#token").value.trim() });
  });
  $("#staff-form").addEventListener("submit", (e) => {
    e.preventDefault();
    dispatch({ type: "ui_staff_sign_in", name: $("#staff-name").value, password: $("#staff-password").value });
  });
  $("#sign-out").addEventListener("click", () => dispatch({ type: "ui_sign_out" }));
  for (const b of document.querySelectorAll("#sections button")) b.addEventListener("click", () => dispatch({ type: "ui_show", section: b.dataset.section, inputs: inputs() }));
  const load = (section) => () => dispatch({ type: "ui_load", section, inputs: inputs() });

  $("#refresh-tables").addEventListener("click", load("tables"));
  $("#preset").addEventListener("change", choosePreset);
  $("#table-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const { body, problems } = bodyFrom(formValues(), formBase);
    const all = [...problems, ...check(body).filter((p) => !problems.some((q) => q.field === p.field))];
    if (all.length) { showProblems(all); return; }
    createTable(body);
  });
  $("#table-json").addEventListener("toggle", () => {
    if ($("#table-json").open) $("#table-body").value = JSON.stringify(bodyFrom(formValues(), formBase).body, null, 2);
  });
  $("#json-to-form").addEventListener("click", () => {
    const body = jsonBody();
    if (!body) return;
    formBase = body;
    setFormValues(valuesFrom(body));
    showProblems([]);
    $("#json-problems").replaceChildren();
  });
  $("#create-json").addEventListener("click", () => {
    const body = jsonBody();
    if (body) createTable(body, true);
  });

  $("#player-search").addEventListener("submit", (e) => { e.preventDefault(); dispatch({ type: "ui_search_players", q: $("#player-q").value.trim() }); });
  const money = (kind) => dispatch({ type: "ui_money", kind, amount: parseInt($("#money-amount").value, 10) });
  $("#deposit").addEventListener("click", () => money("deposit"));
  $("#withdraw").addEventListener("click", () => money("withdraw"));
  $("#lock").addEventListener("click", () => dispatch({ type: "ui_lock" }));
  $("#reset-code").addEventListener("click", async () => {
    const p = state.player;
    if (!p) return;
    if (await ask(`Issue a password reset code for ${whoText(p.name, p.player_id)}? Give it to the player only: it is shown once.`, { yes: "Issue a code" })) dispatch({ type: "ui_reset_code" });
  });
  $("#set-password").addEventListener("click", () => dispatch({ type: "ui_set_password", password: $("#new-password").value }));
  $("#player-hands").addEventListener("click", () => {
    const i = { ...inputs(), from: $("#hand-from").value, to: $("#hand-to").value };
    dispatch({ type: "ui_player_hands", inputs: i });
  });

  $("#hand-player").addEventListener("change", () => dispatch({ type: "ui_hand_player", q: $("#hand-player").value.trim() }));
  $("#hand-search").addEventListener("submit", (e) => {
    e.preventDefault();
    dispatch({ type: "ui_find_hands", playerId: $("#hand-player-id").value, q: $("#hand-player").value.trim(), table: $("#hand-table").value, from: $("#hand-from").value, to: $("#hand-to").value });
  });
  const shownHand = (format) => () => { if (state.handShown) dispatch({ type: "ui_view_hand", hand: state.handShown.hand, format }); };
  $("#show-stars").addEventListener("click", shownHand("pokerstars"));
  $("#show-phh").addEventListener("click", shownHand("phh"));

  $("#refresh-room").addEventListener("click", load("room"));
  $("#refresh-fairplay").addEventListener("click", load("fairplay"));
  $("#pair-search").addEventListener("submit", (e) => { e.preventDefault(); dispatch({ type: "ui_pairs", inputs: inputs() }); });
  for (const th of document.querySelectorAll("#pair-list th[data-sort]")) {
    th.querySelector("button").addEventListener("click", () => dispatch({ type: "ui_pair_sort", sort: th.dataset.sort, inputs: inputs() }));
  }

  $("#staff-create").addEventListener("submit", (e) => {
    e.preventDefault();
    dispatch({ type: "ui_add_staff", name: $("#new-staff-name").value, password: $("#new-staff-password").value, role: $("#new-staff-role").value });
  });
  $("#refresh-audit").addEventListener("click", load("audit"));

  for (const t of document.querySelectorAll("table.list")) boxed(t);
  if (state.token) dispatch({ type: "ui_sign_in", token: state.token });
}

// Under node (web/test/console.test.mjs) there is no page: only the reducer is used.
if (typeof document !== "undefined") wire();
