// Private games (docs/web-client.md, "Private games"): a signed-in player makes one from
// a preset in three choices (game, stakes, seats; more under "Options"), shares its
// invite link, and runs it from the host's panel (seat requests, pause, blinds, remove,
// end, and in a play-money room a player's stack adjusted). A friend who opens the link chooses a name and asks for a seat; in a play-money
// room the page makes their account on the spot, with a generated password kept in this
// browser only. What the page keeps about private games is the state's `private` part,
// changed only by reduce.js (presenting an invite, sitting down once let in, a seat
// refused); this module has their pure helpers, the dialogs and the host's panel, which
// it draws from the state and whose buttons send or feed reduce.js.

import { $, el, keyed, setText } from "./dom.js";

/**
 * The seat to sit an approved player down at: the first one the table shows free, passing
 * over those a sit of this page was refused at. A seat held for another player's buy-in
 * shows free until that buy-in is durable, so two friends approved at once can both pick
 * it; the one refused takes the next free seat (`null`: none is free).
 */
export function freeSeat(table, refused = []) {
  const taken = new Set(table.seats.map((s) => s.seat));
  for (let i = 0; i < table.seat_count; i++) if (!taken.has(i) && !refused.includes(i)) return i;
  return null;
}

/**
 * The games a private table is made from (the server's preset keys), with the most
 * players one deck deals each (the server refuses a table with more seats: it would
 * stall once full).
 */
export const GAMES = [
  { key: "nlhe", label: "NL Hold'em", blinds: true, board: true, maxSeats: 10 },
  { key: "plo", label: "PL Omaha", blinds: true, board: true, maxSeats: 10 },
  { key: "flhe", label: "FL Hold'em", blinds: true, board: true, maxSeats: 10 },
  { key: "stud", label: "7 Card Stud", blinds: false, board: false, maxSeats: 7 },
  { key: "razz", label: "Razz", blinds: false, board: false, maxSeats: 7 },
  { key: "triple_draw", label: "2-7 Triple Draw", blinds: true, board: false, maxSeats: 8 },
];

/**
 * The house options of a new private game, read from the dialog's fields (`f`: strings
 * and booleans as the inputs hold them) for `game` at stakes `big`: only what the host
 * set, so the preset's own values stand for the rest. The buy-in is asked in big blinds
 * (a stud game's small bets) and sent in chips.
 */
export function privateOptions(f, game, big) {
  const ask = {};
  const bbs = (v) => (v === "" ? null : Number(v));
  const min = bbs(f.buyMin);
  const max = bbs(f.buyMax);
  if (min !== null) ask.min_buy_in = Math.round(min * big);
  if (max !== null) ask.max_buy_in = Math.round(max * big);
  if (game.board) ask.run_it_twice = !!f.runItTwice;
  if (game.blinds) ask.straddle = !!f.straddle;
  if (game.board) ask.rabbit_hunt = !!f.rabbit;
  if (f.showdown !== "") ask.showdown_ms = Math.round(Number(f.showdown) * 1000);
  // Dealer's choice (H3): the chosen game first, then the others ticked, games with a
  // button only; bomb pots (H1, H2) where some game of the table has a flop.
  const others = (f.rotation || []).filter((k) => k !== game.key && GAMES.some((g) => g.key === k && g.blinds));
  const games = [game, ...others.map((k) => GAMES.find((g) => g.key === k))];
  if (game.blinds && others.length) ask.games = [game.key, ...others];
  const every = f.bombEvery ? Number(f.bombEvery) : 0;
  if (game.blinds && games.some((g) => g.board) && every > 0) {
    ask.bomb_pot_every = every;
    if (f.bombSize) ask.bomb_pot_big_blinds = Number(f.bombSize);
  }
  return ask;
}

/** A game's name as players read it, by its typed kind and structure. */
const KIND_NAMES = {
  holdem: "Hold'em", short_deck_holdem: "6+ Hold'em", omaha: "Omaha", omaha_hi_lo: "Omaha Hi/Lo",
  deuce_to_seven_single_draw: "2-7 Single Draw", deuce_to_seven_triple_draw: "2-7 Triple Draw", badugi: "Badugi",
};

/**
 * What a dealer's choice table says of its rotation (H3): "Dealer's choice: PL Omaha now,
 * FL 2-7 Triple Draw next in 3 hands"; "" at a table of one game.
 */
export function rotationLabel(table) {
  const d = table && table.dealers_choice;
  if (!d || !d.games.length) return "";
  const name = (g) => g.game || KIND_NAMES[g.game_kind] || g.game_kind;
  const now = d.games[d.now];
  const next = d.games[d.next];
  const when = d.hands_left === null || d.hands_left === undefined
    ? " after this orbit"
    : d.hands_left === 0 ? " next hand" : " next in " + d.hands_left + (d.hands_left === 1 ? " hand" : " hands");
  return "Dealer's choice: " + name(now) + " now, " + name(next) + when;
}

/**
 * What a table says of its bomb pots (H1, H2): "Bomb pot!" during one, the host's call
 * for the next hand, or the schedule; "" without any.
 */
export function bombLabel(table) {
  const b = table && table.bomb_pot;
  if (!b) return "";
  if (b.now) return "Bomb pot!";
  if (b.called) return "Bomb pot next hand (" + b.called + " big blinds each)";
  if (b.every) return "Bomb pot every " + b.every + " hands" + (b.next_hand ? " (next: hand #" + b.next_hand + ")" : "");
  return "";
}

/** What an invite link shows of the game: its games at a dealer's choice table. */
export function inviteGame(info) {
  const games = info.games && info.games.length ? "Dealer's choice (" + info.games.join(", ") + ")" : info.game;
  return games + " " + info.stakes + (info.bomb_pot_every ? " \u00b7 bomb pot every " + info.bomb_pot_every + " hands" : "");
}

/** The table sizes offered for a game: heads-up, six, and a full ring of up to nine. */
export function seatChoices(game, rotation = []) {
  // A dealer's choice table seats no more than its most restrictive game deals (H3).
  const most = Math.min(game.maxSeats, ...rotation.map((g) => g.maxSeats));
  return [2, 6, Math.min(9, most)];
}

/** The stakes offered: the big blind (or a stud game's small bet). */
export const STAKES = [2, 10, 50, 200];

/** How the stakes read for a game: "1/2" for blinds, "2/4" for stud's bets. */
export function stakesLabel(big, blinds) {
  return blinds ? Math.max(1, Math.floor(big / 2)) + "/" + big : big + "/" + big * 2;
}

/** Reads an invite link's hash (`#join/TABLE/INVITE`); null when it is not one. */
export function parseInvite(hash) {
  const m = /^#join\/([0-9a-f-]{36})\/([0-9a-f]{32})$/.exec(hash || "");
  return m ? { table: m[1], invite: m[2] } : null;
}

/**
 * A guest's way back on another device: the link `/#me/NAME/CODE` (the code is the
 * generated password, which never left this browser but to log in). Opening it signs in
 * there as NAME and keeps the code in that browser too; pasting the code (or the link)
 * in the join dialog when "that name is taken" does the same.
 */
export function returnLink(origin, name, code) {
  return origin + "/#me/" + encodeURIComponent(name) + "/" + code;
}

/** Reads a return link's hash, or a code pasted as it is (`name` given); null if neither. */
export function parseReturn(text, name = null) {
  const t = (text || "").trim();
  const m = /(?:^|#)me\/([^/]+)\/([A-Za-z0-9_-]{24})$/.exec(t);
  if (m) {
    try { return { name: decodeURIComponent(m[1]), code: m[2] }; } catch (_) { return null; }
  }
  return name && /^[A-Za-z0-9_-]{24}$/.test(t) ? { name, code: t } : null;
}

/** The code this browser keeps for a guest account made here (null: none). */
export function guestCode(storage, name) {
  return name ? storage.getItem("pokerd.guest." + name) : null;
}

/** A password for an account made on the spot: 144 random bits, URL-safe. */
export function newPassword(crypto) {
  const bytes = new Uint8Array(18);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_");
}

/** What the asker sees of their request: "asking", "approved", "seated" or null. */
export function myStanding(table, me) {
  const p = table && table.private;
  if (!p || !me) return null;
  if (table.seats.some((s) => s.player_id === me)) return "seated";
  if (p.host === me || p.approved.includes(me)) return "approved";
  if (p.requests.some((r) => r.player_id === me)) return "asking";
  return null;
}

/** The invites kept for this tab (table id -> invite), from sessionStorage. */
export function loadInvites(storage) {
  try { return JSON.parse(storage.getItem("pokerd.invites") || "{}") || {}; } catch (_) { return {}; }
}

/** Keeps the invites for this tab (the `keep_invites` effect). */
export function keepInvites(storage, invites) {
  storage.setItem("pokerd.invites", JSON.stringify(invites));
}

// The page's handle (main.js's `window.pokerd`: the state, send, dispatch) and its hooks,
// set once by `wirePrivate`.
let S = null;
let hooks = null;

async function post(path, body, token) {
  const headers = { "content-type": "application/json" };
  if (token) headers.authorization = "Bearer " + token;
  const r = await fetch(path, { method: "POST", headers, body: JSON.stringify(body) });
  return { ok: r.ok, status: r.status, body: await r.json().catch(() => ({})) };
}

// ---------------------------------------------------------------- making a game

function radios(box, name, items, checked) {
  box.replaceChildren(...items.map((it) => {
    const input = el("input");
    input.type = "radio";
    input.name = name;
    input.value = String(it.value);
    input.checked = it.value === checked;
    const label = el("label", "choice");
    label.append(input, " " + it.label);
    return label;
  }));
}

function chosen(name) {
  const c = document.querySelector(`#private-dialog input[name="${name}"]:checked`);
  return c ? c.value : null;
}

function fillStakes() {
  const game = GAMES.find((g) => g.key === chosen("private-game")) || GAMES[0];
  const was = parseInt(chosen("private-stakes"), 10) || STAKES[0];
  radios($("#private-stakes"), "private-stakes", STAKES.map((s) => ({ value: s, label: stakesLabel(s, game.blinds) })), was);
  // The options that exist for this game only.
  $("#private-rit-row").classList.toggle("hidden", !game.board);
  $("#private-rabbit-row").classList.toggle("hidden", !game.board);
  $("#private-straddle-row").classList.toggle("hidden", !game.blinds);
  $("#private-buy-unit").textContent = game.blinds ? "big blinds" : "small bets";
  // Dealer's choice and bomb pots are for games with a button (H1, H3).
  $("#private-house").classList.toggle("hidden", !game.blinds);
  const ticked = [...document.querySelectorAll('#private-rotation input:checked')].map((i) => i.value);
  $("#private-rotation").replaceChildren(...GAMES.filter((g) => g.blinds && g.key !== game.key).map((g) => {
    const input = el("input");
    input.type = "checkbox";
    input.value = g.key;
    input.checked = ticked.includes(g.key);
    const label = el("label", "choice");
    label.append(input, " " + g.label);
    return label;
  }));
  fillSeats();
}

/** The seats offered: what the game, and every game ticked for its rotation, can deal. */
function fillSeats() {
  const game = GAMES.find((g) => g.key === chosen("private-game")) || GAMES[0];
  const rotation = [...document.querySelectorAll("#private-rotation input:checked")]
    .map((i) => GAMES.find((g) => g.key === i.value)).filter(Boolean);
  const seats = seatChoices(game, game.blinds ? rotation : []);
  const wasSeats = parseInt(chosen("private-seats"), 10);
  const keep = seats.includes(wasSeats) ? wasSeats : wasSeats > 6 ? seats[2] : 6;
  radios($("#private-seats"), "private-seats", seats.map((n) => ({ value: n, label: n + " seats" })), keep);
}

function openCreate() {
  radios($("#private-games"), "private-game", GAMES.map((g) => ({ value: g.key, label: g.label })), "nlhe");
  $("#private-seats").replaceChildren();
  fillStakes();
  $("#private-error").textContent = "";
  $("#private-dialog").showModal();
}

async function create() {
  const ask = {
    preset: chosen("private-game"),
    big_blind: parseInt(chosen("private-stakes"), 10),
    seats: parseInt(chosen("private-seats"), 10),
  };
  const name = $("#private-name").value.trim();
  if (name) ask.name = name;
  const secs = parseInt($("#private-clock").value, 10);
  if (secs > 0) ask.action_secs = secs;
  ask.chat = $("#private-chat").checked;
  const game = GAMES.find((g) => g.key === ask.preset) || GAMES[0];
  Object.assign(ask, privateOptions({
    buyMin: $("#private-buy-min").value.trim(), buyMax: $("#private-buy-max").value.trim(),
    runItTwice: $("#private-rit").checked, straddle: $("#private-straddle").checked,
    rabbit: $("#private-rabbit").checked, showdown: $("#private-showdown").value.trim(),
    rotation: [...document.querySelectorAll('#private-rotation input:checked')].map((i) => i.value),
    bombEvery: $("#private-bomb-every").value.trim(), bombSize: $("#private-bomb-size").value.trim(),
  }, game, ask.big_blind));
  const r = await post("/api/private", ask, S.token);
  if (!r.ok) { $("#private-error").textContent = r.body.message || "Refused"; return; }
  $("#private-dialog").close();
  S.dispatch({ type: "ui_private_made", table_id: r.body.table_id, invite: r.body.invite });
}

// ---------------------------------------------------------------- joining by the link

async function openJoin(link) {
  const r = await fetch(`/api/private/${link.table}?invite=${link.invite}`);
  const info = await r.json().catch(() => ({}));
  history.replaceState(null, "", location.pathname);
  const d = $("#join-dialog");
  $("#join-error").textContent = "";
  $("#join-code-row").classList.add("hidden");
  $("#join-code").value = "";
  // Nothing to join at a wrong link or an ended game: the dialog only says so.
  const open = r.ok && info.status === "open";
  $("#join-submit").classList.toggle("hidden", !open);
  $("#join-cancel").textContent = open ? "Not now" : "Close";
  if (!r.ok) {
    $("#join-title").textContent = "No game at this link";
    $("#join-info").textContent = "The link is wrong or incomplete: ask your host for it again.";
    $("#join-form").classList.add("hidden");
  } else if (info.status !== "open") {
    $("#join-title").textContent = info.name + " has ended";
    $("#join-info").textContent = "The host ended this game, or everyone left. Ask " + info.host_name + " for a new link.";
    $("#join-form").classList.add("hidden");
  } else {
    $("#join-title").textContent = "Join " + info.host_name + "'s game";
    $("#join-info").textContent = inviteGame(info) + " \u00b7 " + info.players + " of " + info.seats + " seated";
    $("#join-form").classList.remove("hidden");
    const signedIn = !!S.token;
    $("#join-name-row").classList.toggle("hidden", signedIn);
    $("#join-name").required = !signedIn;
    $("#join-note").textContent = signedIn ? "" : info.play_money
      ? "Choose the name others will see. Your account is made now; its password is kept in this browser."
      : "This room plays for real money: log in (or register) first, then you join this game.";
    $("#join-submit").textContent = signedIn || info.play_money ? "Join the game" : "Log in first";
    d.dataset.play = info.play_money ? "1" : "";
    S.dispatch({ type: "ui_invite", table_id: link.table, invite: link.invite });
  }
  if (!d.open) d.showModal();
}

async function join(e) {
  e.preventDefault();
  if (!S.state.private.pending) return;
  const d = $("#join-dialog");
  if (S.token) { d.close(); if (S.me) S.dispatch({ type: "ui_present" }); return; }
  if (!d.dataset.play) { d.close(); $("#login-name").focus(); return; }
  const name = $("#join-name").value.trim();
  const key = "pokerd.guest." + name;
  // The code of another device (its link, or the code alone), when this name is taken.
  const back = parseReturn($("#join-code").value, name);
  let password = back && back.name === name ? back.code : localStorage.getItem(key);
  let r = password ? await post("/login", { name, password }) : { ok: false, status: 0 };
  if (r.ok) localStorage.setItem(key, password);
  let made = false;
  if (!r.ok && !back) {
    password = newPassword(window.crypto);
    r = await post("/register", { name, password });
    if (r.ok) localStorage.setItem(key, password);
    made = r.ok;
  }
  if (!r.ok) {
    const taken = r.status === 409 || (back && r.status === 401);
    // Taken: someone has this name, maybe this friend on another device.
    $("#join-code-row").classList.toggle("hidden", !taken);
    $("#join-error").textContent = back ? "That code is not this name's: check it, or choose another name."
      : taken ? "That name is taken. Choose another, or if it is yours, paste the link from Settings on your other device."
      : r.body.message || "Refused";
    return;
  }
  d.close();
  hooks.signIn(r.body.token);
  if (made) S.toast("You play as " + name + " in this browser; Settings has your link to play as " + name + " on another device.", 8000);
}

// A return link opened on this device: signed in as its name, its code kept here.
async function comeBack(back) {
  history.replaceState(null, "", location.pathname);
  // Signed in here already (the session may not have said whose yet): this page would
  // speak for two players at once, so it asks to log out first.
  if (S.token) {
    S.toast(S.me && S.me.name === back.name ? "You already play as " + back.name + " here"
      : "You are signed in on this page: log out first, then open your link again.");
    return;
  }
  const r = await post("/login", { name: back.name, password: back.code });
  if (!r.ok) { S.toast("This link does not sign in (" + (r.body.message || "refused") + ")"); return; }
  localStorage.setItem("pokerd.guest." + back.name, back.code);
  hooks.signIn(r.body.token);
  S.toast("Signed in as " + back.name + " on this device");
}

// ---------------------------------------------------------------- the table's panel

function button(text, cls, onClick) {
  const b = el("button", cls, text);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

function host(command) {
  S.send({ type: "host", table_id: S.current, command });
}

// A select of players (`seats`), made again only when they changed; the choice is kept.
function fillPlayers(who, seats) {
  const names = seats.map((s) => s.player_id + "\u0000" + s.name).join("\u0001");
  if (who.dataset.names === names) return;
  who.dataset.names = names;
  const keep = who.value;
  who.replaceChildren(...seats.map((s) => {
    const o = el("option", null, s.name);
    o.value = s.player_id;
    return o;
  }));
  if ([...who.options].some((o) => o.value === keep)) who.value = keep;
}

// The host's adjustment: read, checked, asked in the page's dialog, then sent.
function adjustStack(e) {
  e.preventDefault();
  const T = S.tables.get(S.current);
  const id = $("#host-adjust-who").value;
  const seat = T && T.table && T.table.seats.find((s) => s.player_id === id);
  const note = $("#host-adjust-note");
  if (!seat) { setText(note, "Choose a seated player."); return; }
  const read = adjustAmount($("#host-adjust-amount").value, seat.stack, T.table.max_buy_in);
  if (read.error) { setText(note, read.error); return; }
  setText(note, "");
  ask(adjustQuestion(seat.name, read.amount, seat.stack), read.amount > 0 ? "Give chips" : "Take chips", () => {
    host({ do: "adjust_stack", player_id: id, amount: read.amount });
    $("#host-adjust-amount").value = "";
  });
}

// The host's yes-or-no question in the page's own dialog; `action` runs on yes.
function ask(question, yes, action) {
  const d = $("#private-confirm");
  $("#private-confirm-text").textContent = question;
  $("#private-confirm-yes").textContent = yes;
  d.returnValue = "";
  d.addEventListener("close", () => { if (d.returnValue === "yes") action(); }, { once: true });
  d.showModal();
}

/** Draws the private game's bar and, for its host, the controls. */
export function renderPrivate() {
  const T = S && S.current ? S.tables.get(S.current) : null;
  const t = T && T.table;
  const p = t && t.private;
  const bar = $("#private-bar");
  const panel = $("#host-panel");
  bar.classList.toggle("hidden", !p || S.view !== "table");
  panel.classList.toggle("hidden", !p || S.view !== "table" || !S.me || p.host !== S.me.player_id);
  if (!p) return;
  const me = S.me && S.me.player_id;
  const standing = myStanding(t, me);
  const parts = ["Private game hosted by " + p.host_name];
  if (p.paused) parts.push("paused by the host");
  if (p.next_blinds) parts.push("blinds " + p.next_blinds[0] + "/" + p.next_blinds[1] + " from the next hand");
  if (standing === "asking") parts.push("waiting for the host to let you in");
  setText($("#private-status"), parts.join(" \u00b7 "));
  // The house games: the rotation and the bomb pots, for everyone at the table.
  const house = [rotationLabel(t), bombLabel(t)].filter(Boolean).join(" \u00b7 ");
  setText($("#house-status"), house);
  $("#house-status").classList.toggle("bomb", !!(t.bomb_pot && t.bomb_pot.now));
  const invite = S.state.private.invites[t.table_id];
  $("#invite-row").classList.toggle("hidden", !invite);
  if (invite) {
    const link = location.origin + "/#join/" + t.table_id + "/" + invite;
    if ($("#invite-link").value !== link) $("#invite-link").value = link;
  }
  if (panel.classList.contains("hidden")) return;
  // A row per request (its key the player's id), kept while the table plays: the focus
  // on "Let in" survives the table's events.
  const list = $("#host-requests");
  keyed(list, p.requests.length ? p.requests : [null], (r) => (r ? r.player_id : ""), (r) => {
    if (!r) return el("li", "muted", "No seat requests.");
    const li = el("li", null, r.name + " asks for a seat ");
    li.append(
      button("Let in", "primary", () => host({ do: "approve", player_id: r.player_id })),
      button("Refuse", "secondary", () => host({ do: "deny", player_id: r.player_id })),
    );
    return li;
  }, () => {});
  // A new game waits for its host to deal the first hand.
  setText($("#host-pause"), p.paused ? (t.button === null ? "Start the game" : "Resume") : "Pause");
  $("#host-pause").setAttribute("aria-pressed", String(p.paused));
  // The players the host may remove; the list is made again only when they changed.
  const who = $("#host-remove-who");
  fillPlayers(who, t.seats.filter((s) => s.player_id !== me));
  $("#host-remove").disabled = who.options.length === 0;
  // A play-money room's host adjusts any seated player's stack, their own included.
  const play = !!(S.state.wallet && S.state.wallet.play_money);
  $("#host-adjust").classList.toggle("hidden", !play);
  if (play) fillPlayers($("#host-adjust-who"), t.seats);
  if (document.activeElement !== $("#host-small") && document.activeElement !== $("#host-big")) {
    $("#host-small").value = t.blinds[0];
    $("#host-big").value = t.blinds[1];
  }
}

// ---------------------------------------------------------------- adjusting a stack

/** A host may make a stack at most this many of the table's maximum buy-ins (as the server). */
export const ADJUST_BUY_INS = 100;

/** The largest amount of chips the server takes (2^53). */
const MAX_CHIPS = 2 ** 53;

/**
 * The host's adjustment read from its field (`text`) for a player holding `stack` at a
 * table whose maximum buy-in is `maxBuyIn`: `{ amount }`, a whole number of chips other
 * than zero (positive: given, negative: taken off), or `{ error }` saying why not (the
 * server checks the same again).
 */
export function adjustAmount(text, stack, maxBuyIn) {
  const t = String(text).trim().replace(/^\u2212/, "-");
  if (!/^[+-]?\d+$/.test(t)) return { error: "A whole number of chips: 500 to give, -200 to take off." };
  const amount = Number(t);
  if (amount === 0) return { error: "A number of chips other than zero." };
  if (stack + amount < 0) return { error: "The stack is " + stack + ": at most " + stack + " chips can be taken off." };
  const max = Math.min(maxBuyIn * ADJUST_BUY_INS, MAX_CHIPS);
  if (!Number.isSafeInteger(amount) || stack + amount > max) return { error: "A stack may be at most " + max + " chips here." };
  return { amount };
}

/** The host's question before an adjustment is sent. */
export function adjustQuestion(name, amount, stack) {
  const what = amount > 0 ? "Give " + name + " " + amount + " chips" : "Take " + -amount + " chips from " + name;
  return what + "? The stack goes from " + stack + " to " + (stack + amount) +
    " between hands; play chips, recorded in the game's ledger.";
}

/** The line everyone at the table reads of an adjustment (`stack_adjusted`). */
export function adjustedLine(m) {
  return (m.amount > 0
    ? m.host_name + " gave " + m.name + " " + m.amount + " chips"
    : m.host_name + " took " + -m.amount + " chips from " + m.name) + " (stack " + m.stack + ")";
}

// ---------------------------------------------------------------- the ledger

/**
 * A ledger as CSV lines (a header, a line per player, the rake), for the host's records:
 * `name,bought_in,adjusted,cashed_out,at_table,net` (`adjusted`: what the host of a
 * play-money game gave, or took off when negative; not won or lost).
 */
export function ledgerCsv(ledger) {
  const quote = (t) => (/[",\n]/.test(t) ? '"' + t.replace(/"/g, '""') + '"' : t);
  const lines = ["player,bought_in,adjusted,cashed_out,at_table,net"];
  for (const l of ledger.lines) lines.push([quote(l.name), l.bought_in, l.adjusted || 0, l.cashed_out, l.stack, l.net].join(","));
  lines.push(["(rake)", 0, 0, 0, 0, -ledger.rake].join(","));
  return lines.join("\n") + "\n";
}

/** Whether the ledger's nets and rake sum to zero, as every chip lost went somewhere. */
export function ledgerBalances(ledger) {
  return ledger.lines.reduce((sum, l) => sum + l.net, 0) + ledger.rake === 0;
}

const signed = (n) => (n > 0 ? "+" + n : String(n));

/** Shows the last ledger received (`state.private.ledger`) in its dialog. */
export function showLedger() {
  const L = S.state.private.ledger;
  if (!L) return;
  $("#ledger-title").textContent = (L.final ? "Settle-up: " : "Ledger: ") + L.name;
  setText($("#ledger-info"), L.final
    ? "The game ended: everyone was cashed out. Each net is what to pay (negative) or be paid."
    : "So far, from the room's ledger; a hand in progress counts once it ends.");
  const body = $("#ledger-table").tBodies[0];
  body.replaceChildren(...L.lines.map((l) => {
    const tr = el("tr");
    const cells = [l.name, l.bought_in, l.adjusted ? signed(l.adjusted) : 0, l.cashed_out, l.stack, signed(l.net)];
    cells.forEach((c, i) => {
      const td = el(i === 0 ? "th" : "td", i === 5 ? (l.net < 0 ? "neg" : l.net > 0 ? "pos" : null) : null, String(c));
      if (i === 0) td.scope = "row";
      tr.append(td);
    });
    return tr;
  }));
  setText($("#ledger-check"), (L.rake ? "Rake " + L.rake + ". " : "") +
    (ledgerBalances(L) ? "The nets" + (L.rake ? " and the rake" : "") + " sum to zero." : "The nets do not sum to zero: tell the room's operator."));
  const d = $("#ledger-dialog");
  if (!d.open) d.showModal();
}

function downloadLedger() {
  const L = S.state.private.ledger;
  if (!L) return;
  const a = el("a");
  a.href = URL.createObjectURL(new Blob([ledgerCsv(L)], { type: "text/csv" }));
  a.download = "ledger-" + L.name.replace(/[^\w.-]+/g, "_") + ".csv";
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

/** Wires the dialogs and buttons; `h.signIn(token)` starts a session made here. */
export function wirePrivate(state, h) {
  S = state;
  hooks = h;
  $("#private-open").addEventListener("click", openCreate);
  $("#private-games").addEventListener("change", fillStakes);
  $("#private-rotation").addEventListener("change", fillSeats);
  $("#private-create").addEventListener("click", create);
  $("#private-cancel").addEventListener("click", () => $("#private-dialog").close());
  $("#join-form").addEventListener("submit", join);
  $("#join-cancel").addEventListener("click", () => { S.dispatch({ type: "ui_invite_drop" }); $("#join-dialog").close(); });
  $("#invite-copy").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText($("#invite-link").value); S.toast("Invite link copied"); } catch (_) { $("#invite-link").select(); }
  });
  $("#host-pause").addEventListener("click", () => {
    const T = S.tables.get(S.current);
    host({ do: T && T.table.private.paused ? "resume" : "pause" });
  });
  $("#host-blinds").addEventListener("submit", (e) => {
    e.preventDefault();
    host({ do: "blinds", small: parseInt($("#host-small").value, 10), big: parseInt($("#host-big").value, 10) });
  });
  $("#host-remove").addEventListener("click", () => {
    const who = $("#host-remove-who");
    const name = who.selectedOptions[0] ? who.selectedOptions[0].textContent : "";
    const id = who.value;
    ask("Remove " + name + "? A hand they are in is folded, and their chips go back to their wallet.", "Remove", () => host({ do: "remove", player_id: id }));
  });
  $("#host-adjust").addEventListener("submit", adjustStack);
  $("#ledger-open").addEventListener("click", () => S.dispatch({ type: "ui_ledger" }));
  $("#ledger-close").addEventListener("click", () => $("#ledger-dialog").close());
  $("#ledger-download").addEventListener("click", downloadLedger);
  $("#host-bomb").addEventListener("click", () => host({ do: "bomb_pot" }));
  $("#host-end").addEventListener("click", () => ask("End the game? The hand in progress finishes, then everyone is cashed out.", "End the game", () => host({ do: "end" })));
  const link = parseInvite(location.hash);
  if (link) openJoin(link);
  const back = parseReturn(location.hash);
  if (back) comeBack(back);
  // A link pasted into a tab already open changes only the hash: followed all the same.
  window.addEventListener("hashchange", () => {
    const pasted = parseInvite(location.hash);
    if (pasted) openJoin(pasted);
    const mine = parseReturn(location.hash);
    if (mine) comeBack(mine);
  });
  $("#set-device-copy").addEventListener("click", async () => {
    const code = guestCode(localStorage, S.me && S.me.name);
    if (!code) return;
    const link = returnLink(location.origin, S.me.name, code);
    // Shown as well as copied: a page that may not use the clipboard still gives it.
    $("#set-device-link").value = link;
    try { await navigator.clipboard.writeText(link); S.toast("Your link is copied: open it on your other device"); } catch (_) { $("#set-device-link").select(); }
  });
}
