// pokerd's browser client: plain ES modules, no build step, no dependencies. It speaks
// the WebSocket protocol of docs/protocol.md. Each table the player sits at or watches
// keeps its own state, rebuilt from the server's events (and from a snapshot's events
// after joining, reconnecting or falling behind), so what is drawn is always what the
// server said. Modules: state.js (pure logic, tested under node), net.js (the socket),
// views.js (drawing), dialogs.js (buy-in, history, settings), this file (wiring).

import { applyEvent, newHand, loadSettings, saveSettings, DEFAULT_SETTINGS } from "./state.js";
import { connection } from "./net.js";
import {
  $, renderLobby, renderTabs, renderTable, renderActions, updateRaiseLabel, chosenAmount,
  mySeat, myPlayer, inHand, tick,
} from "./views.js";
import { openBuyIn, openTopUp, wireBuyIn, openHistory, openSettings, wireSettings, wireReplay, api } from "./dialogs.js";
import { newSeed, seedFor, forgetSeed } from "./fairness.js";
import { wirePrivate, afterMessage, renderPrivate } from "./private.js";

const S = {
  token: localStorage.getItem("pokerd.token"),
  me: null,                // { player_id, name }
  conn: null,
  lobby: new Map(),        // table_id -> summary
  view: "login",
  current: sessionStorage.getItem("pokerd.table"),
  tables: new Map(),       // table_id -> the state of one table (see tableState)
  settings: { ...DEFAULT_SETTINGS, muted: [] },
  pane: "log",
  send: (msg) => S.conn && S.conn.send(msg),
  toast: (text) => toast(text),
  get ws() { return S.conn && S.conn.ws; },
};
// For the end-to-end test and the curious: the state, read-only in spirit.
window.pokerd = S;

function tableState(id) {
  let T = S.tables.get(id);
  if (!T) {
    T = {
      id, table: null, hand: null, decide: null, clock: null, pre: null, discards: new Set(),
      sizedFor: null, sizing: null, log: [], chat: [], unread: 0, alert: false, rebuyFor: null, waitPlace: null,
      seenCards: {}, seenBoard: 0,
    };
    S.tables.set(id, T);
  }
  return T;
}

const ui = {
  render: () => render(),
  openTable: (id) => openTable(id),
  openBuyIn: (seat) => openBuyIn(S, seat),
  setAmount: (v) => { $("#amount").value = v; $("#amount-slider").value = v; updateRaiseLabel(S); },
  mute: (playerId, name) => {
    if (S.me && playerId === S.me.player_id) return;
    const muted = S.settings.muted;
    if (muted.includes(playerId)) muted.splice(muted.indexOf(playerId), 1);
    else if (confirm("Mute " + name + " in chat?")) muted.push(playerId);
    else return;
    saveSettings(localStorage, S.me.player_id, S.settings);
    render();
  },
};

function render() {
  renderTabs(S, ui);
  if (S.view === "lobby") renderLobby(S, ui);
  if (S.view === "table") renderTable(S, ui);
  renderPrivate();
  updateTitle();
}

// ---------------------------------------------------------------- messages

function onMessage(m) {
  const T = m.table_id ? S.tables.get(m.table_id) : m.table && m.table.table_id ? S.tables.get(m.table.table_id) : null;
  switch (m.type) {
    case "welcome":
      S.me = { player_id: m.player_id, name: m.name };
      S.settings = loadSettings(localStorage, m.player_id);
      $("#banner").classList.add("hidden");
      $("#who").textContent = m.name;
      S.send({ type: "list_tables" });
      // Seated tables come as snapshots by themselves; a watched one is asked again.
      if (S.current) S.send({ type: "watch", table_id: S.current });
      else show("lobby");
      showWallet();
      break;
    case "error":
      if (m.code === "unauthenticated") { logout(); $("#login-error").textContent = "Please log in again."; break; }
      if (m.code === "seed_refused") {
        // A seed that came after its hand was dealt: it was not counted (nothing to show).
        const id = (m.message.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/) || [])[0];
        if (id) forgetSeed(localStorage, id);
        break;
      }
      toast(m.message);
      render();
      break;
    case "tables":
      S.lobby = new Map(m.tables.map((t) => [t.table_id, t]));
      render(); break;
    case "table_update":
      if (m.table.status === "closed") S.lobby.delete(m.table.table_id);
      else S.lobby.set(m.table.table_id, m.table);
      if (S.view === "lobby") renderLobby(S, ui);
      break;
    case "snapshot": onSnapshot(m); break;
    case "seats": {
      if (!T) break;
      T.table = m.table;
      if (T.hand && T.hand.ended) {
        // After the hand, the seats are the truth (top-ups included).
        for (const p of T.hand.players) {
          const v = m.table.seats.find((x) => x.seat === p.seat);
          if (v) p.stack = v.stack;
        }
      }
      if (!keep(T) && T.id !== S.current) S.tables.delete(T.id);
      maybeRebuy(T);
      render(); break;
    }
    case "event": onEvent(T, m); break;
    case "decide":
      if (!T) break;
      T.decide = { id: m.decision_id, kind: "bet", legal: m.legal };
      if (!applyPreselect(T)) yourTurn(T);
      render(); break;
    case "decide_draw": case "decide_run_twice": case "decide_show":
      if (!T) break;
      T.decide = { id: m.decision_id, kind: { decide_draw: "draw", decide_run_twice: "run_twice", decide_show: "show" }[m.type], legal: null };
      T.discards = new Set();
      yourTurn(T);
      render(); break;
    case "turn":
      if (!T) break;
      T.clock = clockOf(m.clock, T.table);
      if (T.id === S.current) render();
      break;
    case "clock_warning":
      if (T) toast((T.table ? T.table.name + ": " : "") + "time is running out, " + Math.ceil(m.remaining_ms / 1000) + " s left");
      beep(880, 0.15);
      break;
    case "timed_out":
      if (T && mySeat(S, T) === m.seat) toast((T.table ? T.table.name + ": " : "") + (m.sat_out ? "you timed out and are sitting out." : "you timed out."));
      break;
    case "done": onDone(T, m); break;
    case "chat":
      if (!T) break;
      T.chat.push(m.line);
      if (T.chat.length > 200) T.chat.shift();
      if ((S.pane !== "chat" || T.id !== S.current) && !S.settings.muted.includes(m.line.player_id)) T.unread++;
      if (T.id === S.current) render();
      break;
    case "waitlist":
      if (!T) break;
      T.waitPlace = m.position;
      if (T.table) T.table = { ...T.table, waitlist: m.length };
      if (T.id === S.current) render();
      break;
    case "seat_offered":
      if (!T) break;
      toast((T.table ? T.table.name : "A table") + ": seat " + (m.seat + 1) + " is yours for " + Math.round(m.expires_ms / 1000) + " s");
      beep(660, 0.2);
      if (T.id !== S.current) openTable(T.id);
      openBuyIn(S, m.seat);
      break;
    case "deck_committed":
      if (T) seedDeck(T, m.commitment);
      break;
    case "deck_proof": {
      if (!T) break;
      // The proofs of the cards this player saw; the history dialog checks them.
      const seat = mySeat(S, T);
      const mine = seedFor(localStorage, m.proof.hand_id);
      const listed = m.proof.seeds.find((x) => x.seat === seat);
      const counted = mine && listed && listed.seed === mine;
      T.log.push({ text: "Hand #" + m.hand_number + ": the deck's proofs of " + m.proof.cards.length + " cards came"
        + (mine ? (counted ? "; your seed was counted." : "; your seed was NOT counted.") : ".") + " Verify it in the history." });
      if (T.id === S.current) render();
      break;
    }
    case "rabbit":
      if (!T) break;
      T.rabbit = { hand: m.hand_number, cards: m.cards };
      T.log.push({ text: "Rabbit hunt: " + m.cards.join(" ") + " (not dealt)" });
      if (T.id === S.current) render();
      break;
    case "chat_switched":
      if (!T) break;
      T.table = { ...T.table, chat: m.enabled };
      T.chat.push({ off: m.enabled ? "The chat is on again." : "An operator turned the chat off." });
      if (T.id === S.current) render();
      break;
    case "table_closed":
      if (T) {
        toast((T.table ? T.table.name : "The table") + " was closed; your chips are back in your wallet.");
        S.tables.delete(m.table_id);
        if (m.table_id === S.current) toLobby(); else render();
      }
      break;
    case "table_failed":
      // The hand in progress is void and nothing more is dealt: leaving cashes out.
      if (T) T.decide = null;
      toast("This table stopped on a server fault: " + m.message);
      render();
      break;
  }
}

// A table stays (as a tab, receiving its messages) while the player sits there or waits
// for a seat; a table only watched goes when the player looks elsewhere.
function keep(T) {
  return mySeat(S, T) !== null || !!T.waitPlace;
}

function clockOf(c, table) {
  return {
    seat: c.seat, deadline: performance.now() + c.remaining_ms,
    total: c.in_time_bank ? c.time_bank_ms : (table ? table.action_ms : c.remaining_ms),
    bankMs: c.time_bank_ms, inBank: c.in_time_bank,
  };
}

function onSnapshot(m) {
  const T = tableState(m.table.table_id);
  const seated = m.table.seats.some((x) => S.me && x.player_id === S.me.player_id);
  // A table the player neither sits at, waits for, nor looks at is not kept.
  if (!seated && !T.waitPlace && m.table.table_id !== S.current) { S.tables.delete(T.id); return; }
  T.table = m.table;
  T.hand = null;
  T.seenCards = {}; T.seenBoard = 0;
  if (m.hand) {
    T.hand = newHand(m.hand);
    T.log.push({ text: "Hand #" + m.hand.hand_number + " (joined)", cls: "hand-start" });
    for (const e of m.hand.events) {
      const line = applyEvent(T.hand, e, logCtx(T));
      if (line) T.log.push({ text: line });
    }
    T.seenCards = Object.fromEntries(T.hand.players.map((p) => [p.seat, p.cards.length]));
    T.seenBoard = T.hand.board.length;
  }
  T.chat = (m.chat || []).slice();
  T.decide = null;
  if (m.decide) {
    const kind = { decide: "bet", decide_draw: "draw", decide_run_twice: "run_twice", decide_show: "show" }[m.decide.type];
    T.decide = { id: m.decide.decision_id, kind, legal: m.decide.legal || null };
  }
  T.clock = m.clock ? clockOf(m.clock, m.table) : null;
  // The server mucks beaten hands unless told to ask (per seat, so told on each join).
  if (seated && !S.settings.autoMuck) S.send({ type: "auto_muck", table_id: T.id, on: false });
  if (m.next_deck) seedDeck(T, m.next_deck);
  if (T.id === S.current) { sessionStorage.setItem("pokerd.table", T.id); show("table"); }
  if (T.decide && T.id !== S.current) T.alert = true;
  render();
}

// Every seated player answers the next hand's deck commitment with a random seed
// (docs/fairness.md), once per hand; the browser remembers it to check it was counted.
function seedDeck(T, commitment) {
  if (mySeat(S, T) === null || T.seeded === commitment.hand_id) return;
  T.seeded = commitment.hand_id;
  const seed = seedFor(localStorage, commitment.hand_id) || newSeed(localStorage, commitment.hand_id);
  S.send({ type: "seed", table_id: T.id, hand_id: commitment.hand_id, seed });
}

function logCtx(T, handName) {
  const me = mySeat(S, T);
  return {
    me,
    name: (seat) => { const v = T.table && T.table.seats.find((x) => x.seat === seat); return v ? v.name : "Seat " + (seat + 1); },
    blinds: T.table ? T.table.blinds : [0, 0],
    straddle: !!(T.table && T.table.straddle),
    game: T.table ? T.table.game : "",
    handName,
  };
}

const ACTED = ["folded", "checked", "called", "bet_to", "bring_in_posted", "discarded", "run_it_twice_answered", "shown", "mucked"];

function onEvent(T, m) {
  if (!T) return;
  if (!T.hand || T.hand.number !== m.hand_number) {
    // A new hand: its stacks come from the seats message sent just before it.
    const stacks = m.seats.map((seat) => {
      const x = T.table && T.table.seats.find((v) => v.seat === seat);
      return x ? x.stack : 0;
    });
    T.hand = newHand({ hand_number: m.hand_number, seats: m.seats, starting_stacks: stacks, button: T.table ? T.table.button : null });
    T.seenCards = {}; T.seenBoard = 0;
    T.log.push({ text: "Hand #" + m.hand_number, cls: "hand-start" });
    if (T.log.length > 400) T.log.splice(0, T.log.length - 400);
  }
  const line = applyEvent(T.hand, m.event, logCtx(T, m.hand_name));
  if (line) T.log.push({ text: line });
  const e = m.event;
  const p = e.player !== undefined ? T.hand.players[e.player] : null;
  if (p && p.seat === mySeat(S, T) && ACTED.includes(e.type)) { T.decide = null; T.alert = false; }
  if (ACTED.includes(e.type)) T.clock = null;
  if (e.type === "board_dealt" || e.type === "hole_dealt") beep(520, 0.04);
  if (e.type === "hand_ended") {
    T.decide = null; T.clock = null; T.pre = null; T.alert = false;
    if (T.id === S.current) document.querySelectorAll("#preselect input").forEach((i) => { i.checked = false; });
  }
  if (T.id === S.current) render(); else renderTabs(S, ui);
}

function onDone(T, m) {
  const what = {
    sit: "Seated with " + m.amount,
    top_up: m.pending ? "Adding " + m.amount + " after this hand" : "Added " + m.amount,
    leave: m.pending ? "Leaving after this hand" : "Cashed out " + m.amount,
    sit_out: m.pending ? "Sitting out after this hand" : "Sitting out",
    sit_in: "Back in",
    straddle: "Straddle setting saved",
  }[m.request];
  if (what) toast((T && T.table && T.id !== S.current ? T.table.name + ": " : "") + what);
  if (m.request === "leave" && !m.pending) {
    S.tables.delete(m.table_id);
    if (m.table_id === S.current) toLobby(); else render();
  }
}

// Busted after a hand: offer a rebuy once per hand.
function maybeRebuy(T) {
  if (T.id !== S.current || !T.hand || !T.hand.ended || T.rebuyFor === T.hand.number) return;
  const me = T.table.seats.find((x) => S.me && x.player_id === S.me.player_id);
  if (!me || me.stack > 0 || me.pending_top_up > 0 || me.leaving) return;
  T.rebuyFor = T.hand.number;
  openTopUp(S, true);
}

// ---------------------------------------------------------------- turns and alerts

function yourTurn(T) {
  const name = T.table ? T.table.name : "a table";
  const l = T.decide.legal;
  const what = T.decide.kind === "draw" ? "choose your discards" : T.decide.kind === "run_twice" ? "run it twice?" :
    T.decide.kind === "show" ? "show or muck?" :
    l.call !== null ? "call " + l.call + (l.bet_or_raise ? " or raise" : "") + ", or fold" : l.check ? "check" + (l.bet_or_raise ? " or bet" : "") : "act";
  $("#announce").textContent = "Your turn at " + name + ": " + what + ".";
  beep(660, 0.12);
  if (T.id !== S.current || document.hidden) {
    T.alert = true;
    if (T.id !== S.current) toast("Your turn at " + name);
    if (S.settings.notify && document.hidden && "Notification" in window && Notification.permission === "granted") {
      try { new Notification("Your turn at " + name, { body: what, tag: "pokerd-" + T.id }); } catch (_) { /* not allowed here */ }
    }
  }
}

function updateTitle() {
  const waiting = [...S.tables.values()].filter((T) => T.decide && T.table);
  const cur = S.tables.get(S.current);
  if (waiting.length) {
    const first = waiting.find((T) => T.id !== S.current) || waiting[0];
    document.title = "\u25B6 Your turn at " + first.table.name + " \u2013 pokerd";
  } else {
    document.title = S.view === "table" && cur && cur.table ? cur.table.name + " \u2013 pokerd" : "pokerd";
  }
}

let audio = null;
function beep(freq, secs) {
  if (!S.settings.sound) return;
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

function current() { return S.tables.get(S.current); }

function act(action) {
  const T = current();
  if (!T || !T.decide) return;
  S.send({ type: "act", table_id: T.id, decision_id: T.decide.id, action });
  T.decide = null;
  T.alert = false;
  renderActions(S, ui);
  updateTitle();
}

// Pre-selected actions are held until the turn and re-validated then (R2).
function applyPreselect(T) {
  const pre = T.pre;
  if (!pre || !T.decide || T.decide.kind !== "bet" || T.id !== S.current) return false;
  const l = T.decide.legal;
  T.pre = null;
  document.querySelectorAll("#preselect input").forEach((i) => { i.checked = false; });
  if (pre === "check_fold") { act(l.check ? { type: "check" } : { type: "fold" }); return true; }
  if (pre === "check" && l.check) { act({ type: "check" }); return true; }
  if (pre === "call_any") { act(l.call !== null ? { type: "call" } : { type: "check" }); return true; }
  return false;
}

function betOrRaise() {
  const T = current();
  if (!T || !T.decide || T.decide.kind !== "bet" || !T.decide.legal.bet_or_raise) return;
  act({ type: "bet_or_raise_to", to: chosenAmount(S) });
}

// Folding when a check is free loses a hand for nothing: ask first.
function foldOrAsk() {
  const T = current();
  const l = T && T.decide && T.decide.legal;
  if (!l) return;
  if (l.check && !confirm("You can check for free. Fold anyway?")) return;
  act({ type: "fold" });
}

// ---------------------------------------------------------------- views

function show(view) {
  S.view = view;
  $("#login-view").classList.toggle("hidden", view !== "login");
  $("#lobby-view").classList.toggle("hidden", view !== "lobby");
  $("#table-view").classList.toggle("hidden", view !== "table");
  const inside = view !== "login";
  for (const id of ["#logout", "#history-open", "#settings-open"]) $(id).classList.toggle("hidden", !inside);
  $("#to-lobby").classList.toggle("hidden", view !== "table");
}

function openTable(id) {
  const T = S.tables.get(id);
  // A spectator of another table stops receiving it.
  const prev = current();
  if (prev && prev.id !== id && !keep(prev)) { S.send({ type: "unwatch", table_id: prev.id }); S.tables.delete(prev.id); }
  S.current = id;
  sessionStorage.setItem("pokerd.table", id);
  if (T && T.table) {
    T.alert = false;
    if (T.decide && T.decide.kind === "bet") applyPreselect(T);
    $("#log").dataset.table = "";
    show("table");
    render();
  } else {
    S.send({ type: "watch", table_id: id });
  }
}

// The wallet line of the lobby, and the reload button of a play-money room.
async function showWallet() {
  if (!S.token) return;
  try {
    const me = await api(S, "/api/me");
    S.wallet = me;
    $("#wallet").textContent = "Wallet " + me.balance.toLocaleString("en") + (me.play_money ? " play chips" : "");
    $("#reload").classList.toggle("hidden", !me.play_money);
    $("#reload").disabled = me.play_money && me.balance >= me.play_grant;
  } catch (_) { /* shown next time */ }
}

$("#reload").addEventListener("click", async () => {
  const r = await fetch("/api/me/reload", { method: "POST", headers: { authorization: "Bearer " + S.token } });
  const body = await r.json().catch(() => ({}));
  toast(r.ok ? (body.added ? "Added " + body.added + " play chips" : "Your wallet is full") : body.message || "Refused");
  showWallet();
});

function toLobby() {
  const T = current();
  if (T && !keep(T)) { S.send({ type: "unwatch", table_id: T.id }); S.tables.delete(T.id); }
  S.current = null;
  sessionStorage.removeItem("pokerd.table");
  show("lobby");
  S.send({ type: "list_tables" });
  showWallet();
  render();
}

let toastTimer = null;
function toast(text, ms = 4000) {
  const t = $("#toast");
  t.textContent = text;
  t.classList.remove("hidden");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => t.classList.add("hidden"), ms);
}

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
  if (body.password_reset) toast(resetNotice(body.password_reset), 15000);
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
    // Private games (private.js) read each message after this file has.
    onMessage: (m) => { onMessage(m); afterMessage(m); },
    onDown: () => $("#banner").classList.remove("hidden"),
    onUp: () => {},
  });
  S.conn.open();
}

function logout() {
  if (S.token) fetch("/logout", { method: "POST", headers: { authorization: "Bearer " + S.token } }).catch(() => {});
  if (S.conn) S.conn.close();
  S.conn = null;
  S.token = null; S.me = null; S.current = null; S.tables = new Map();
  localStorage.removeItem("pokerd.token");
  sessionStorage.removeItem("pokerd.table");
  $("#who").textContent = "";
  show("login");
  render();
}

// ---------------------------------------------------------------- wiring

$("#login-form").addEventListener("submit", (e) => { e.preventDefault(); authenticate("/login"); });
$("#register-submit").addEventListener("click", () => authenticate("/register"));
$("#reset-form").addEventListener("submit", resetWithCode);
$("#logout").addEventListener("click", logout);
$("#to-lobby").addEventListener("click", toLobby);
$("#history-open").addEventListener("click", () => openHistory(S));
$("#settings-open").addEventListener("click", () => openSettings(S));
wireSettings(S, () => {
  // Tell every table where the player sits how to treat their beaten hands.
  for (const T of S.tables.values()) {
    if (T.table && mySeat(S, T) !== null) S.send({ type: "auto_muck", table_id: T.id, on: S.settings.autoMuck });
  }
  render();
});
wireBuyIn(S);
wireReplay();
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
$("#act-draw").addEventListener("click", () => act({ type: "draw", discards: [...current().discards].join("") }));
$("#act-rit-yes").addEventListener("click", () => act({ type: "run_it_twice", agree: true }));
$("#act-rit-no").addEventListener("click", () => act({ type: "run_it_twice", agree: false }));
$("#act-show").addEventListener("click", () => act({ type: "show" }));
$("#act-muck").addEventListener("click", () => act({ type: "muck" }));
$("#amount-slider").addEventListener("input", (e) => { $("#amount").value = e.target.value; updateRaiseLabel(S); });
$("#amount").addEventListener("input", (e) => { $("#amount-slider").value = e.target.value; updateRaiseLabel(S); });
// Enter in the amount box bets that amount.
$("#amount").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); betOrRaise(); } });
document.querySelectorAll("#preselect input").forEach((i) => i.addEventListener("change", () => {
  document.querySelectorAll("#preselect input").forEach((o) => { if (o !== i) o.checked = false; });
  const T = current();
  if (T) T.pre = i.checked ? i.dataset.pre : null;
}));
function meSeat() {
  const T = current();
  return T && T.table.seats.find((x) => x.seat === mySeat(S, T));
}
$("#sit-toggle").addEventListener("click", () => {
  const me = meSeat();
  if (!me) return;
  if (me.sitting_out) S.send({ type: "sit_in", table_id: S.current, post_now: true });
  else S.send({ type: "sit_out", table_id: S.current, next_big_blind: false });
});
$("#sit-second").addEventListener("click", () => {
  const me = meSeat();
  if (!me) return;
  // Sitting out: come back when the big blind reaches you (no post). Playing: play until
  // your big blind, then sit out.
  if (me.sitting_out) S.send({ type: "sit_in", table_id: S.current, post_now: false });
  else S.send({ type: "sit_out", table_id: S.current, next_big_blind: true });
});
$("#straddle").addEventListener("click", () => {
  const me = meSeat();
  if (me) S.send({ type: "straddle", table_id: S.current, on: !me.straddle });
});
$("#top-up-open").addEventListener("click", () => openTopUp(S));
$("#waitlist").addEventListener("click", () => {
  const T = current();
  if (T) S.send({ type: T.waitPlace ? "leave_waitlist" : "join_waitlist", table_id: T.id });
});
$("#leave").addEventListener("click", () => {
  // Leaving mid-hand folds the hand (a dead hand) before the cash-out: ask first.
  if (inHand(S, current()) && !confirm("You are in a hand: leaving folds it. Leave anyway?")) return;
  S.send({ type: "leave", table_id: S.current });
});
for (const pane of ["log", "chat"]) {
  $("#tab-" + pane).addEventListener("click", () => {
    S.pane = pane;
    $("#tab-log").setAttribute("aria-selected", String(pane === "log"));
    $("#tab-chat").setAttribute("aria-selected", String(pane === "chat"));
    $("#log").classList.toggle("hidden", pane !== "log");
    $("#chat").classList.toggle("hidden", pane !== "chat");
    const T = current();
    if (T && pane === "chat") T.unread = 0;
    render();
  });
}
$("#chat-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("#chat-text").value.trim();
  if (!text || !S.current) return;
  S.send({ type: "chat", table_id: S.current, text });
  $("#chat-text").value = "";
});
document.addEventListener("keydown", (e) => {
  const T = current();
  if (!T || !T.decide || T.decide.kind !== "bet" || S.view !== "table") return;
  if (e.target.tagName === "INPUT" && e.target.type !== "range" || e.target.tagName === "BUTTON" && e.key === "Enter") return;
  if (document.querySelector("dialog[open]") || e.ctrlKey || e.metaKey || e.altKey) return;
  const l = T.decide.legal;
  const k = e.key.toLowerCase();
  if (k === "f" && l.fold) foldOrAsk();
  else if (k === "c") act(l.check ? { type: "check" } : l.call !== null ? { type: "call" } : { type: "fold" });
  else if ((k === "r" || k === "enter") && l.bet_or_raise) betOrRaise();
});
document.addEventListener("visibilitychange", () => { if (!document.hidden) updateTitle(); });
window.matchMedia("(max-width: 640px)").addEventListener("change", render);
setInterval(() => tick(S), 200);

if (S.token) { show(S.current ? "table" : "lobby"); start(); } else show("login");
