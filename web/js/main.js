// pokerd's browser client: plain ES modules, no build step, no dependencies. It speaks
// the WebSocket protocol of docs/protocol.md. Each table the player sits at or watches
// keeps its own state, rebuilt from the server's events (and from a snapshot's events
// after joining, reconnecting or falling behind), so what is drawn is always what the
// server said. Modules: reduce.js (every message's effect on the state, pure, tested
// under node), state.js (cards, hands, pots, sizing: pure), net.js (the socket),
// views.js (drawing: the only writer of the page), dialogs.js (buy-in, history,
// settings, questions), dom.js (DOM and HTTP helpers), and this file: it feeds the
// server's and the player's messages to `reduce`, runs the effects, and asks for a
// drawing: one per animation frame whatever the message rate (what the player just did
// is drawn at once).

import { loadSettings, saveSettings } from "./state.js";
import { reduce, initialState, mySeat, inHand } from "./reduce.js";
import { connection } from "./net.js";
import { $, frames } from "./dom.js";
import { render as draw, renderTitle, updateRaiseLabel, chosenAmount, tick, showToast, showNotice, announce, fitFelt, revealTurn } from "./views.js";
import { openBuyIn, openTopUp, wireBuyIn, openHistory, wireHistory, openSettings, wireSettings, wireReplay, ask, api } from "./dialogs.js";
import { onBuyInRange } from "./buyin.js";
import { newSeed, keepList, forgetSeed, mineFor, commitTo, closedListDigest, proofWords } from "./fairness.js";
import { wireFeatures, afterRender } from "./features.js"; // issue 26: theme, filters, stats, notes, emoji, chips, tiling
import { tileParam } from "./tiling.js"; // issue 26: a tile (`/?tile=ID`) opens on its table
import { wirePrivate, renderPrivate, loadInvites, keepInvites, showLedger } from "./private.js";

let state = initialState({
  current: tileParam(location.search) || sessionStorage.getItem("pokerd.table"),
  token: !!localStorage.getItem("pokerd.token"),
  invites: loadInvites(sessionStorage),
});

// What the dialogs and the end-to-end tests see: the state (read-only in spirit), the
// session token, the socket and the ways to send and to tell the player something.
const S = {
  token: localStorage.getItem("pokerd.token"),
  conn: null,
  get me() { return state.me; },
  get lobby() { return state.lobby; },
  get view() { return state.view; },
  get current() { return state.current; },
  get tables() { return state.tables; },
  get settings() { return state.settings; },
  get pane() { return state.pane; },
  get online() { return state.online; },
  get state() { return state; },
  send: (msg) => !!S.conn && S.conn.send(msg),
  // Takes a seat: the `sit` carries this page's commitment to its seed for the table's
  // next deck, which the table takes before the seat, so the hand the sit may start has
  // this player's seed (docs/fairness.md).
  sit: (msg) => {
    const T = state.tables.get(msg.table_id);
    const d = T && T.nextDeck;
    let committed = null;
    if (d) {
      const seed = newSeed(localStorage, d.hand_id);
      try {
        committed = { hand_id: d.hand_id, commitment: commitTo(d.commitment, seed) };
      } catch (_) { committed = null; /* a malformed deck commitment: no seed for it */ }
    }
    const ok = S.send(committed ? { ...msg, seed_commit: committed } : msg);
    dispatch({ type: "ui_sit", table_id: msg.table_id, committed });
    return ok;
  },
  toast: (text) => showToast(text),
  // What the player did (private.js's dialogs): drawn at once.
  dispatch: (m) => dispatchNow(m),
  get ws() { return S.conn && S.conn.ws; },
  /** How many times the page was drawn (e2e/frames.mjs compares it with the messages). */
  get drawn() { return frame.drawn; },
};
window.pokerd = S;

/** Draws the state (views.js), then what features.js and private.js add over it. */
function redraw() {
  draw(state, ui);
  afterRender(S, redrawNow); // issue 26 (features.js)
  renderPrivate(); // private games' bar and host panel (private.js)
  // The felt fitted to what is above and below it now: drawn again if it changed size.
  if (fitFelt()) draw(state, ui);
  revealTurn(state);
}

// At most one drawing per animation frame: a table streaming events is drawn at the
// screen's pace, not once per message.
const frame = frames(redraw);
const redrawNow = () => frame.now();
// A window resized (a phone turned, a window dragged): the table drawn for its new size.
window.addEventListener("resize", () => frame.request());
// What is above the felt changing size (seat requests arriving, the host's tools opened,
// the tabs wrapping) fits the felt again at the next frame, and a turn in progress is
// brought back into view if it went under the action bar.
if ("ResizeObserver" in window) {
  const above = new ResizeObserver(() => frame.request());
  for (const id of ["#topbar", "#tabs", "#notices", ".table-head", "#private-bar", "#host-panel"]) {
    const e = document.querySelector(id);
    if (e) above.observe(e);
  }
}

/**
 * Feeds one message to the reducer, runs what it asks for, and asks for a drawing at the
 * next frame. A page in the background draws no frames: its title (whose turn it is)
 * is written at once all the same.
 */
function dispatch(m) {
  const r = reduce(state, m);
  state = r.state;
  for (const e of r.effects) run(e);
  frame.request();
  if (document.hidden) renderTitle(state);
}

/** What the player did: reduced, and drawn at once. */
function dispatchNow(m) {
  dispatch(m);
  frame.now();
}

function run(e) {
  switch (e.type) {
    case "send": S.send(e.msg); break;
    case "toast":
      // A word about another table goes to the quiet notices line, not over the table.
      if (e.table_id && e.table_id !== state.current) showNotice(e.text);
      else showToast(e.text);
      break;
    case "beep": beep(e.freq, e.secs); break;
    case "announce": announce(e.text); break;
    case "notify":
      if (state.settings.notify && document.hidden && "Notification" in window && Notification.permission === "granted") {
        try { new Notification(e.title, { body: e.body, tag: "pokerd-" + e.table_id }); } catch (_) { /* not allowed here */ }
      }
      break;
    case "your_turn":
      // The history and the settings cover the table: they give way to the player's turn.
      if (e.table_id === state.current) for (const id of ["#history-dialog", "#settings-dialog"]) if ($(id).open) $(id).close();
      break;
    case "buy_in": openBuyIn(S, e.seat); break;
    case "top_up": openTopUp(S, e.rebuy); break;
    case "seed_commit": {
      // The seed is kept before its commitment leaves the page (a reload commits to it
      // again). Sent before the page's loop turns: right after a `sit`, the sit is still
      // under way when the commitment arrives, so the table's first hand waits for it.
      const seed = newSeed(localStorage, e.hand_id);
      let commitment;
      try { commitment = commitTo(e.deck, seed); } catch (_) { break; /* a malformed deck commitment: no seed for it */ }
      queueMicrotask(() => dispatch({ type: "ui_seed_commitment", table_id: e.table_id, hand_id: e.hand_id, commitment }));
      break;
    }
    case "seed_reveal": {
      // The closed list's digest is kept with the seed before the seed is sent: the
      // hand's check compares the record's list with it.
      const mine = mineFor(localStorage, e.hand_id);
      if (!mine.seed) break;
      closedListDigest(e.deck, e.list).then((digest) => {
        keepList(localStorage, e.hand_id, digest);
        S.send({ type: "seed", table_id: e.table_id, hand_id: e.hand_id, seed: mine.seed });
      }).catch(() => { /* a malformed list: the seed is not revealed */ });
      break;
    }
    case "forget_seed": forgetSeed(localStorage, e.hand_id); break;
    case "proof":
      // One line a hand: a second proof (after an uncontested winner showed) replaces it.
      queueMicrotask(() => dispatch({
        type: "ui_log", table_id: e.table_id, hand_number: e.hand_number, key: "proof",
        text: "Hand #" + e.hand_number + ": " + proofWords(e.proof, e.seat, mineFor(localStorage, e.proof.hand_id)) + " Verify it in the history.",
      }));
      break;
    case "remember_table":
      if (e.table_id) sessionStorage.setItem("pokerd.table", e.table_id); else sessionStorage.removeItem("pokerd.table");
      break;
    case "wallet": showWallet(); break;
    case "settings": queueMicrotask(() => dispatch({ type: "ui_settings", settings: loadSettings(localStorage, state.me.player_id) })); break;
    case "logout": logout(); $("#login-error").textContent = e.message; break;
    case "sit": S.sit(e.msg); break;
    case "keep_invites": keepInvites(sessionStorage, e.invites); break;
    case "show_ledger": showLedger(); break;
  }
}

// What the views call back.
const ui = {
  openTable: (id) => dispatchNow({ type: "ui_open_table", table_id: id }),
  openBuyIn: (seat) => openBuyIn(S, seat),
  discard: (card) => dispatchNow({ type: "ui_discard", card }),
  setAmount: (v) => { $("#amount").value = v; $("#amount-slider").value = v; updateRaiseLabel(state); },
  mute: async (playerId, name) => {
    if (!state.me || playerId === state.me.player_id) return;
    let muted = state.settings.muted;
    if (muted.includes(playerId)) muted = muted.filter((x) => x !== playerId);
    else if (await ask("Mute " + name + " in chat?", "Mute")) muted = muted.concat([playerId]);
    else return;
    changeSettings({ ...state.settings, muted });
  },
};

function changeSettings(settings) {
  if (state.me) saveSettings(localStorage, state.me.player_id, settings);
  dispatchNow({ type: "ui_settings", settings });
}

let audio = null;
function beep(freq, secs) {
  if (!state.settings.sound) return;
  try {
    audio = audio || new AudioContext();
    const o = audio.createOscillator();
    const g = audio.createGain();
    g.gain.setValueAtTime(0.08, audio.currentTime);
    g.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + secs);
    o.frequency.value = freq;
    o.connect(g).connect(audio.destination);
    o.start();
    o.stop(audio.currentTime + secs);
  } catch (_) { /* no audio here */ }
}

// ---------------------------------------------------------------- actions

function current() { return state.tables.get(state.current); }
const act = (action) => dispatchNow({ type: "ui_act", action });

function betOrRaise() {
  const T = current();
  if (!T || !T.decide || T.decide.kind !== "bet" || !T.decide.legal.bet_or_raise) return;
  act({ type: "bet_or_raise_to", to: chosenAmount(state) });
}

// Folding when a check is free loses a hand for nothing: ask first.
async function foldOrAsk() {
  const T = current();
  const l = T && T.decide && T.decide.legal;
  if (!l) return;
  if (l.check && !(await ask("You can check for free. Fold anyway?", "Fold"))) return;
  act({ type: "fold" });
}

// The wallet line of the lobby, and the reload button of a play-money room.
async function showWallet() {
  if (!S.token) return;
  try { dispatch({ type: "ui_wallet", wallet: await api(S, "/api/me") }); } catch (_) { /* shown next time */ }
}

$("#reload").addEventListener("click", async () => {
  const r = await fetch("/api/me/reload", { method: "POST", headers: { authorization: "Bearer " + S.token } });
  const body = await r.json().catch(() => ({}));
  showToast(r.ok ? (body.added ? "Added " + body.added + " play chips" : "Your wallet is full") : body.message || "Refused");
  showWallet();
});

// ---------------------------------------------------------------- login

async function authenticate(path) {
  const name = $("#login-name").value.trim();
  const password = $("#login-password").value;
  $("#login-error").textContent = "";
  const r = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name, password }) });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) { $("#login-error").textContent = body.message || "Refused"; return; }
  S.token = body.token;
  localStorage.setItem("pokerd.token", S.token);
  start();
  // A password the card room changed since the last login: the server tells it once.
  if (body.password_reset) showToast(resetNotice(body.password_reset), 15000);
}

function resetNotice(reset) {
  const by = reset.by === "token" ? "the card room's operator" : reset.by.replace(/^staff:/, "") + " (card room staff)";
  const at = new Date(reset.at).toISOString().replace("T", " ").slice(0, 16) + " UTC";
  return `Your password was reset by ${by} on ${at}. If you did not ask for this, tell the card room.`;
}

// A new password with a one-time code from the card room, then logged in with it.
async function resetWithCode(e) {
  e.preventDefault();
  const name = $("#reset-name").value.trim();
  const password = $("#reset-password").value;
  $("#reset-error").textContent = "";
  const r = await fetch("/reset-password", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name, code: $("#reset-code").value.trim(), password }) });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) { $("#reset-error").textContent = body.message || "Refused"; return; }
  $("#reset-box").open = false;
  $("#login-name").value = name;
  $("#login-password").value = password;
  $("#reset-password").value = ""; $("#reset-code").value = "";
  authenticate("/login");
}

function start() {
  S.conn = connection({
    token: () => S.token,
    onMessage: (m) => {
      // The clock's deadline is counted from when its message came.
      if (m.type === "turn" || m.type === "snapshot") m.at = performance.now();
      // A player's own buy-in range answers the buy-in dialog's question (buyin.js).
      if (m.type === "buy_in_range") { onBuyInRange(m); return; }
      dispatch(m);
    },
    onDown: () => dispatch({ type: "conn_down" }),
    onUp: () => dispatch({ type: "conn_up" }),
  });
  S.conn.open();
}

function logout() {
  if (S.token) fetch("/logout", { method: "POST", headers: { authorization: "Bearer " + S.token } }).catch(() => {});
  if (S.conn) S.conn.close();
  S.conn = null;
  S.token = null;
  localStorage.removeItem("pokerd.token");
  sessionStorage.removeItem("pokerd.table");
  dispatchNow({ type: "ui_logout" });
}

// ---------------------------------------------------------------- wiring

$("#login-form").addEventListener("submit", (e) => { e.preventDefault(); authenticate("/login"); });
$("#register-submit").addEventListener("click", () => authenticate("/register"));
$("#reset-form").addEventListener("submit", resetWithCode);
$("#logout").addEventListener("click", logout);
$("#to-lobby").addEventListener("click", () => dispatchNow({ type: "ui_lobby" }));
$("#history-open").addEventListener("click", () => openHistory(S));
$("#settings-open").addEventListener("click", () => openSettings(S));
wireSettings(S, (key, on) => {
  changeSettings({ ...state.settings, [key]: on });
  // Tell every table where the player sits how to treat their beaten hands.
  if (key === "autoMuck") {
    for (const T of state.tables.values()) {
      if (T.table && mySeat(state, T) !== null) S.send({ type: "auto_muck", table_id: T.id, on });
    }
  }
});
wireBuyIn(S);
wireReplay();
wireHistory(S);
// Private games: making one, joining by its link (an account made on the spot signs in
// here), the host's panel.
wirePrivate(S, {
  signIn: (token) => { S.token = token; localStorage.setItem("pokerd.token", token); start(); },
});
$("#act-fold").addEventListener("click", foldOrAsk);
$("#act-check").addEventListener("click", () => act({ type: "check" }));
$("#act-call").addEventListener("click", () => act({ type: "call" }));
$("#act-bring-in").addEventListener("click", () => act({ type: "bring_in" }));
$("#act-raise").addEventListener("click", betOrRaise);
$("#act-pat").addEventListener("click", () => act({ type: "draw", discards: "" }));
$("#act-draw").addEventListener("click", () => act({ type: "draw", discards: current().discards.join("") }));
$("#act-rit-yes").addEventListener("click", () => act({ type: "run_it_twice", agree: true }));
$("#act-rit-no").addEventListener("click", () => act({ type: "run_it_twice", agree: false }));
$("#act-show").addEventListener("click", () => act({ type: "show" }));
$("#act-muck").addEventListener("click", () => act({ type: "muck" }));
$("#show-hand").addEventListener("click", () => dispatchNow({ type: "ui_show_hand" }));
$("#amount-slider").addEventListener("input", (e) => { $("#amount").value = e.target.value; updateRaiseLabel(state); });
$("#amount").addEventListener("input", (e) => { $("#amount-slider").value = e.target.value; updateRaiseLabel(state); });
// Enter in the amount box bets that amount.
$("#amount").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); betOrRaise(); } });
document.querySelectorAll("#preselect input").forEach((i) => i.addEventListener("change", () => {
  dispatchNow({ type: "ui_preselect", pre: i.checked ? i.dataset.pre : null });
}));
function meSeat() {
  const T = current();
  return T && T.table.seats.find((x) => x.seat === mySeat(state, T));
}
$("#sit-toggle").addEventListener("click", () => {
  const me = meSeat();
  if (!me) return;
  if (me.sitting_out) S.send({ type: "sit_in", table_id: state.current, post_now: true });
  else S.send({ type: "sit_out", table_id: state.current, next_big_blind: false });
});
$("#sit-second").addEventListener("click", () => {
  const me = meSeat();
  if (!me) return;
  // Sitting out: come back when the big blind reaches you (no post). Playing: play until
  // your big blind, then sit out.
  if (me.sitting_out) S.send({ type: "sit_in", table_id: state.current, post_now: false });
  else S.send({ type: "sit_out", table_id: state.current, next_big_blind: true });
});
$("#straddle").addEventListener("click", () => {
  const me = meSeat();
  if (me) S.send({ type: "straddle", table_id: state.current, on: !me.straddle });
});
$("#top-up-open").addEventListener("click", () => openTopUp(S));
$("#waitlist").addEventListener("click", () => {
  const T = current();
  if (T) S.send({ type: T.waitPlace ? "leave_waitlist" : "join_waitlist", table_id: T.id });
});
$("#leave").addEventListener("click", async () => {
  // Leaving mid-hand folds the hand (a dead hand) before the cash-out: ask first.
  if (inHand(state, current()) && !(await ask("You are in a hand: leaving folds it. Leave anyway?", "Leave"))) return;
  S.send({ type: "leave", table_id: state.current });
});
for (const pane of ["log", "chat"]) $("#tab-" + pane).addEventListener("click", () => dispatchNow({ type: "ui_pane", pane }));
$("#chat-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("#chat-text").value.trim();
  if (!text || !state.current) return;
  S.send({ type: "chat", table_id: state.current, text });
  $("#chat-text").value = "";
});
document.addEventListener("keydown", (e) => {
  const T = current();
  if (!T || !T.decide || T.decide.kind !== "bet" || state.view !== "table") return;
  if (e.target.tagName === "INPUT" && e.target.type !== "range" || e.target.tagName === "BUTTON" && e.key === "Enter") return;
  if (document.querySelector("dialog[open]") || e.ctrlKey || e.metaKey || e.altKey) return;
  const l = T.decide.legal;
  const k = e.key.toLowerCase();
  if (k === "f" && l.fold) foldOrAsk();
  else if (k === "c") act(l.check ? { type: "check" } : l.call !== null ? { type: "call" } : { type: "fold" });
  else if ((k === "r" || k === "enter") && l.bet_or_raise) betOrRaise();
});
document.addEventListener("visibilitychange", () => { if (!document.hidden) redrawNow(); });
window.matchMedia("(max-width: 640px)").addEventListener("change", redrawNow);
setInterval(() => tick(state), 200);

redrawNow();
if (S.token) start();
wireFeatures(S, redrawNow); // issue 26 (features.js)
