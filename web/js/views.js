// Drawing: the lobby, the tabs of the player's tables, the table (seats, cards, pots,
// board, clock), the action bar labelled for the table's betting structure, the hand
// log and the chat. Everything is redrawn from the state; nothing here changes it
// except through the callbacks in `ui`.

import { SUITS, cardName, family, gameOf, potsOf, raiseLabel, completes, callLabel, sizing, legalAmount, seatPosition, mySeat, myPlayer, inHand } from "./state.js";
import { $, el, keyed, arrange, setText } from "./dom.js";
import { canShowHand } from "./reduce.js";
import { idle } from "./lobbyfilter.js";

export { $, el, mySeat, myPlayer, inHand };

// What the views remember between draws, per table: the cards already drawn (new ones
// are animated), the amount box's decision (it starts at the minimum once per decision)
// and the sizing shown. Drawing state only; the game's state is the reducer's.
const memo = new Map();
function memoOf(id) {
  if (!memo.has(id)) memo.set(id, { seenCards: {}, seenBoard: 0, hand: null, sizedFor: null, sizing: null });
  return memo.get(id);
}

/**
 * Draws everything from the state: which view is shown, the top bar, the connection
 * banner, the wallet, the tabs, the lobby or the table, the page's title.
 */
export function render(S, ui) {
  for (const v of ["login", "lobby", "table"]) $("#" + v + "-view").classList.toggle("hidden", S.view !== v);
  const inside = S.view !== "login";
  for (const id of ["#logout", "#history-open", "#settings-open"]) $(id).classList.toggle("hidden", !inside);
  $("#to-lobby").classList.toggle("hidden", S.view !== "table");
  $("#who").textContent = S.me ? S.me.name : "";
  $("#banner").classList.toggle("hidden", S.online || S.view === "login");
  document.body.classList.toggle("offline", !S.online);
  const w = S.wallet;
  $("#wallet").textContent = w ? "Wallet " + w.balance.toLocaleString("en") + (w.play_money ? " play chips" : "") : "";
  $("#reload").classList.toggle("hidden", !(w && w.play_money));
  $("#reload").disabled = !!(w && w.play_money && w.balance >= w.play_grant);
  renderTabs(S, ui);
  if (S.view === "lobby") renderLobby(S, ui);
  if (S.view === "table") renderTable(S, ui);
  renderTitle(S);
}

/** The page's title: whose turn it is first, else the table on screen. */
export function renderTitle(S) {
  const waiting = [...S.tables.values()].filter((T) => T.decide && T.table);
  const cur = S.tables.get(S.current);
  let title;
  // A host's games where friends wait for an answer.
  const me = S.me && S.me.player_id;
  const asked = [...S.tables.values()].filter((T) => T.table && T.table.private && T.table.private.host === me && T.table.private.requests.length);
  const asking = asked.reduce((n, T) => n + T.table.private.requests.length, 0);
  if (waiting.length) {
    const first = waiting.find((T) => T.id !== S.current) || waiting[0];
    title = "\u25B6 Your turn at " + first.table.name + " \u2013 pokerd";
  } else if (asking) {
    title = "\u270B " + asking + (asking === 1 ? " seat request" : " seat requests") + " at " + asked[0].table.name + " \u2013 pokerd";
  } else {
    title = S.view === "table" && cur && cur.table ? cur.table.name + " \u2013 pokerd" : "pokerd";
  }
  if (document.title !== title) document.title = title;
}

let toastTimer = null;
/** A short word about the table on screen, at the top of the page, for `ms`. */
export function showToast(text, ms = 2500) {
  const t = $("#toast");
  t.textContent = text;
  t.classList.remove("hidden");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => t.classList.add("hidden"), ms);
}

/**
 * A word about another table: kept quietly in the notices line, the last three (a screen
 * reader hears each; the line shows the newest, and never changes height).
 */
export function showNotice(text) {
  const box = $("#notices");
  box.append(el("p", "", text));
  while (box.childElementCount > 3) box.firstChild.remove();
}

/** What a screen reader says now (the player's turn). */
export function announce(text) {
  $("#announce").textContent = text;
}

export function cardEl(code, { down = false, fresh = false } = {}) {
  if (!code || code === "??") {
    const b = el("span", "card back", "");
    b.setAttribute("role", "img");
    b.setAttribute("aria-label", "face-down card");
    return b;
  }
  const rank = code[0] === "T" ? "10" : code[0];
  const suit = code[1];
  const c = el("span", "card s-" + suit + (suit === "h" || suit === "d" ? " red" : "") + (down ? " down" : "") + (fresh ? " new" : ""));
  c.append(el("span", "r", rank), el("span", "u", SUITS[suit]));
  c.dataset.card = code;
  c.setAttribute("role", "img");
  c.setAttribute("aria-label", cardName(code) + (down ? ", face down" : ""));
  return c;
}

// ---------------------------------------------------------------- lobby and tabs

/**
 * The lobby: a row per table (its key the table's id), kept across drawings and brought
 * up to date in place, so the focus and a click on a row survive the table's updates.
 * New rows come at the end; lobbyfilter.js hides and orders them.
 */
export function renderLobby(S, ui) {
  const body = $("#lobby tbody");
  keyed(body, [...S.lobby.values()], (t) => t.table_id, (t) => {
    const tr = el("tr");
    tr.dataset.table = t.table_id;
    for (let k = 0; k < 6; k++) tr.append(el("td", ""));
    const td = el("td");
    const b = el("button", "primary");
    b.onclick = () => ui.openTable(t.table_id);
    td.append(b);
    tr.append(td);
    return tr;
  }, (tr, t) => {
    const mine = S.tables.has(t.table_id) && mySeat(S, S.tables.get(t.table_id)) !== null;
    const cls = t.status + (mine ? " mine" : "") + (tr.classList.contains("hidden") ? " hidden" : "");
    if (tr.className !== cls) tr.className = cls;
    const seats = t.players + "/" + t.seats + (t.waiting ? " +" + t.waiting + " waiting" : "");
    // Nobody playing: the last hour's figures say nothing about the table now.
    const quiet = idle(t);
    [t.name, t.game, t.stakes, seats, quiet ? "\u2014" : t.avg_pot, quiet ? "\u2014" : t.hands_per_hour].forEach((v, k) => setText(tr.cells[k], v));
    const b = tr.cells[6].firstChild;
    setText(b, mine ? "Return" : "Open");
    const label = (mine ? "Return to " : "Open ") + t.name;
    if (b.getAttribute("aria-label") !== label) b.setAttribute("aria-label", label);
  });
  $("#lobby-empty").classList.toggle("hidden", S.lobby.size > 0);
}

/** The tabs of the player's tables: a button per table, kept across drawings. */
export function renderTabs(S, ui) {
  const nav = $("#tabs");
  const tabs = keyed(nav, [...S.tables.values()].filter((T) => T.table), (T) => T.id, (T) => {
    const b = el("button");
    b.dataset.table = T.id;
    b.onclick = () => ui.openTable(T.id);
    return b;
  }, (b, T) => {
    const cls = (T.id === S.current && S.view === "table" ? "current" : "") + (T.alert ? " alert" : "");
    if (b.className !== cls) b.className = cls;
    setText(b, T.table.name);
    if (T.alert) b.setAttribute("aria-label", T.table.name + ": your turn"); else b.removeAttribute("aria-label");
  });
  arrange(nav, tabs);
  nav.classList.toggle("hidden", S.view === "login" || tabs.length < 1 || (tabs.length === 1 && S.view === "table"));
}

// ---------------------------------------------------------------- the table

/** The tallest the action bar (or the act-in-advance bar) has been at this window's
 * width: the room the felt leaves below itself. */
const below = { width: 0, px: 0 };

/**
 * Fits the felt to the window (style.css's `.felt` height): measures where the felt
 * starts (below the top bar, the tabs and a private table's bar and host panel, whatever
 * they hold now) and the room the action bar takes, into `--felt-top` and `--below`.
 * Returns whether either changed (the seats are then placed again on the new felt).
 */
export function fitFelt(doc = document) {
  const felt = doc.querySelector("#felt");
  if (!felt || !felt.offsetParent) return false;
  const win = doc.defaultView;
  if (below.width !== win.innerWidth) { below.width = win.innerWidth; below.px = 0; }
  for (const id of ["#actions", "#preselect"]) below.px = Math.max(below.px, doc.querySelector(id).offsetHeight);
  const root = doc.documentElement.style;
  const want = { "--felt-top": Math.round(felt.getBoundingClientRect().top + win.scrollY) + "px" };
  if (below.px) want["--below"] = below.px + "px";
  let changed = false;
  for (const [k, v] of Object.entries(want)) {
    if (root.getPropertyValue(k) !== v) { root.setProperty(k, v); changed = true; }
  }
  return changed;
}

/** The decision last brought into view (its table, its id and the window's size). */
let revealed = "";

/**
 * On the player's turn, brings the own seat into view above the action bar when the
 * window is too short to show the whole table (a phone with many tabs, a small tile):
 * once per decision and layout (a phone turned, bars above the felt grown), so a player
 * who scrolls away meanwhile is not pulled back.
 */
export function revealTurn(S, doc = document) {
  const T = S.view === "table" ? S.tables.get(S.current) : null;
  const d = T && T.decide;
  const win = doc.defaultView;
  // The bars above the felt growing mid-turn (seat requests, the host's tools) move the
  // felt: that is a new layout to reveal the turn in, as a new window size is.
  const top = doc.documentElement.style.getPropertyValue("--felt-top");
  const key = d ? [T.id, d.id, win.innerWidth, win.innerHeight, top].join("/") : "";
  if (!d || revealed === key) return;
  const seat = doc.querySelector(".seat.me");
  const bar = doc.querySelector("#actions");
  if (!seat || !bar || bar.classList.contains("hidden")) return;
  revealed = key;
  const r = seat.getBoundingClientRect();
  const floor = bar.getBoundingClientRect().top;
  if (r.bottom > floor - 4) win.scrollBy(0, Math.min(r.bottom - floor + 8, r.top - 4));
  else if (r.top < 0) win.scrollBy(0, r.top - 4);
}

export function renderTable(S, ui) {
  const T = S.tables.get(S.current);
  if (S.view !== "table" || !T || !T.table) return;
  const t = T.table;
  document.body.classList.toggle("four-color", S.settings.fourColor);
  document.body.classList.toggle("animate", S.settings.animations);
  $("#table-name").textContent = t.name;
  const info = [t.game || "", t.stakes ? "Stakes " + t.stakes : "", t.cap ? "cap " + t.cap : "", "buy-in " + t.min_buy_in + "\u2013" + t.max_buy_in].filter(Boolean);
  $("#table-info").textContent = info.join(" \u00b7 ");
  $("#table-info").title = info.join(" \u00b7 ");
  const mine = mySeat(S, T);
  const meSeat = t.seats.find((x) => x.seat === mine);
  const playing = inHand(S, T);
  for (const id of ["#sit-toggle", "#sit-second", "#top-up-open", "#leave"]) $(id).classList.toggle("hidden", mine === null);
  // A full table (or one with a queue): the waiting list.
  const full = t.seats.length >= t.seat_count || t.waitlist > 0;
  $("#waitlist").classList.toggle("hidden", mine !== null || (!full && !T.waitPlace));
  $("#waitlist").textContent = T.waitPlace ? "Leave waiting list (#" + T.waitPlace + " of " + t.waitlist + ")" :
    "Join waiting list" + (t.waitlist ? " (" + t.waitlist + " waiting)" : "");
  $("#straddle").classList.toggle("hidden", !(meSeat && t.straddle));
  if (meSeat && t.straddle) {
    $("#straddle").setAttribute("aria-pressed", String(!!meSeat.straddle));
    $("#straddle").textContent = meSeat.straddle ? "Straddle \u2713" : "Straddle";
  }
  if (meSeat) {
    $("#sit-toggle").textContent = meSeat.sitting_out ? "Sit in" : "Sit out";
    $("#sit-second").textContent = meSeat.sitting_out ? "Wait for BB" : "Sit out next BB";
    $("#sit-second").classList.toggle("hidden", family(gameOf(T)) === "stud");
  }
  const h = T.hand;
  const M = memoOf(T.id);
  // A new hand (or none) starts the animation memory over.
  if (!h || M.hand !== h.number) { M.seenCards = {}; M.seenBoard = 0; M.hand = h ? h.number : null; }
  portraitQuery = portraitQuery || window.matchMedia("(max-width: 640px)");
  const portrait = portraitQuery.matches;
  const felt = $("#felt");
  // The felt's shape as drawn, for spacing the seats evenly along its rim.
  const fw = felt.clientWidth;
  const fh = felt.clientHeight;
  const aspect = fw && fh ? fw / fh : (portrait ? 0.6 : 2.3);
  const seatsEl = $("#seats");
  const fam = "fam-" + family(gameOf(T));
  if (seatsEl.className !== fam) seatsEl.className = fam;
  const refit = seatsEl.dataset.fw !== String(fw);
  seatsEl.dataset.fw = String(fw);
  // A seat's element is kept while its table is drawn (the focus on a seat survives the
  // table's events); what is in it is made again only when something it shows changed,
  // and it is placed again only then, or when its place or the felt changed.
  const seatEls = keyed(seatsEl, [...Array(t.seat_count).keys()], (i) => T.id + "/" + i, () => el("div", "seat"), () => {});
  const places = placesOf(t.seat_count, mine, portrait, aspect);
  const moved = seatEls.filter((d, i) => {
    const pos = places[i];
    const place = pos.left + "/" + pos.top;
    if (!drawSeat(d, i, { S, T, ui, M, mine, h, pos }) && !refit && placed.get(d) === place) return false;
    placed.set(d, place);
    d.style.left = pos.left + "%"; d.style.top = pos.top + "%";
    return true;
  });
  // A wide seat (stud's seven cards) near the felt's end stays on the felt: its centre
  // moves in as far as half its width (all read first, then all moved).
  if (fw && moved.length) {
    const widths = moved.map((d) => d.offsetWidth);
    moved.forEach((d, k) => {
      const half = (100 * widths[k]) / 2 / fw;
      const left = parseFloat(d.style.left);
      if (half < 50) d.style.left = Math.min(100 - half, Math.max(half, left)) + "%";
    });
  }
  const fresh = (n) => S.settings.animations && n >= (M.seenBoard || 0);
  // The rabbit hunt: the cards a hand that ended early would have dealt, set apart.
  const rabbit = h && T.rabbit && T.rabbit.hand === h.number ? T.rabbit.cards : [];
  const board = $("#board");
  if (changed(board, [T.id, h ? h.number : null, h ? h.board : [], rabbit, S.settings.animations])) {
    board.replaceChildren(...(h ? h.board.map((c, k) => cardEl(c, { fresh: fresh(k) })) : []),
      ...rabbit.map((c) => { const e = cardEl(c); e.classList.add("rabbit"); e.title = "Rabbit hunt: not dealt"; return e; }));
  }
  M.seenBoard = h ? h.board.length : 0;
  const b2 = $("#board2");
  b2.classList.toggle("hidden", !(h && h.board2));
  if (h && h.board2 && changed(b2, h.board2)) b2.replaceChildren(...h.board2.map((c) => cardEl(c)));
  const pots = h ? potsOf(h) : [];
  $("#pots").textContent = !h || pots.every((x) => x === 0) ? "" :
    pots.length === 1 ? "Pot " + pots[0] : pots.map((x, k) => (k === 0 ? "Main " : "Side " + k + " ") + x).join(" \u00b7 ");
  let message = "";
  if (h && h.ended) message = "Hand #" + h.number + " is over" + (h.rake ? " (rake " + h.rake + ")" : "");
  else if (!h && t.seats.filter((x) => !x.sitting_out).length < 2) message = mine !== null ? "Waiting for another player\u2026" : "Waiting for players";
  $("#message").textContent = message;
  $("#show-hand").classList.toggle("hidden", !canShowHand(S, T));
  $("#tab-log").setAttribute("aria-selected", String(S.pane === "log"));
  $("#tab-chat").setAttribute("aria-selected", String(S.pane === "chat"));
  $("#log").classList.toggle("hidden", S.pane !== "log");
  $("#chat").classList.toggle("hidden", S.pane !== "chat");
  renderLog(S, T);
  renderChat(S, T, ui);
  renderActions(S, ui);
  tick(S);
}

// What each part of the table was last drawn from (as JSON), by its element; where each
// seat was last placed.
const drawnFrom = new WeakMap();
const placed = new WeakMap();
// The phone's layout (a portrait felt): asked once, read at each drawing.
let portraitQuery = null;

// The seats' places for a table of `count` seats as drawn (seatPosition measures the
// oval's rim: worked out once per layout).
const placeMemo = new Map();
function placesOf(count, mine, portrait, aspect) {
  const key = [count, mine, portrait, aspect].join("/");
  if (!placeMemo.has(key)) {
    if (placeMemo.size > 50) placeMemo.clear();
    placeMemo.set(key, [...Array(count).keys()].map((i) => seatPosition(i, count, mine, portrait, aspect)));
  }
  return placeMemo.get(key);
}

// Whether what `e` shows from `inputs` changed since it was last drawn: a part of the
// table is made again only when it did.
function changed(e, inputs) {
  const sig = JSON.stringify(inputs);
  if (drawnFrom.get(e) === sig) return false;
  drawnFrom.set(e, sig);
  return true;
}

// One seat: its element's classes and label every drawing; what is in it (name, stack,
// cards, last action, clock, bet, button) only when it changed (then it says so: true).
// A card that had the focus (choosing discards) has it again once the seat is made again.
function drawSeat(d, i, { S, T, ui, M, mine, h, pos }) {
  const t = T.table;
  const view = t.seats.find((x) => x.seat === i);
  const p = h ? h.players.find((x) => x.seat === i) : null;
  const stud = family(gameOf(T)) === "stud";
  d.dataset.seat = i;
  const stillIn = p && h && !h.ended && !p.folded;
  const toAct = !!(view && T.clock && T.clock.seat === i && h && !h.ended);
  const drawing = !!(view && i === mine && T.decide && T.decide.kind === "draw");
  d.classList.toggle("empty", !view);
  d.classList.toggle("me", !!view && i === mine);
  // Sitting out asked during a hand: still in that hand until it ends.
  d.classList.toggle("out", !!view && view.sitting_out && !stillIn);
  d.classList.toggle("folded", !!(view && p && p.folded));
  d.classList.toggle("winner", !!(view && p && p.won > 0 && h.ended));
  d.classList.toggle("to-act", toAct);
  d.classList.toggle("drawing", drawing);
  if (!view) {
    delete d.dataset.player;
    const made = changed(d, ["empty", mine === null]);
    if (made) d.replaceChildren(el("div", "name", mine === null ? "Sit here" : "Empty"));
    if (mine === null) {
      d.tabIndex = 0;
      d.setAttribute("role", "button");
      d.setAttribute("aria-label", "Sit here, seat " + (i + 1));
      d.onclick = () => ui.openBuyIn(i);
      d.onkeydown = (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); ui.openBuyIn(i); } };
    } else {
      for (const a of ["tabindex", "role", "aria-label"]) d.removeAttribute(a);
      d.onclick = d.onkeydown = null;
    }
    M.seenCards[i] = 0;
    return made;
  }
  d.onclick = d.onkeydown = null;
  d.dataset.player = view.name;
  d.setAttribute("role", "group");
  d.tabIndex = 0;
  const stack = p ? p.stack : view.stack;
  let lastText = view.leaving ? "Leaving" : p ? p.last : (view.sitting_out ? "Sitting out" : h && !h.ended ? "Next hand" : "");
  if (view.sitting_out && stillIn && !view.leaving) lastText = (p.last ? p.last + " \u00b7 " : "") + "out next hand";
  const label = [view.name, stack + " chips", i === mine ? "you" : "", lastText, p && p.won && h.ended ? "wins " + p.won : "",
    toAct ? "to act" : "", h && h.button === i ? "dealer" : "", p && p.bet ? "bet " + p.bet : ""].filter(Boolean).join(", ");
  d.setAttribute("aria-label", "Seat " + (i + 1) + ": " + label);
  const shows = [view, p, i === mine, h ? [h.number, h.ended, h.button === i] : null, stud, drawing, drawing ? T.discards : null,
    toAct, toAct && T.clock.inBank, pos.top > 50, S.settings.animations];
  if (!changed(d, shows)) return false;
  const focused = d.contains(document.activeElement) ? document.activeElement.dataset.card : undefined;
  const parts = [el("div", "name", view.name)];
  const st = el("div", "stack", String(stack));
  st.dataset.stack = stack;
  parts.push(st);
  const hole = el("div", "hole");
  if (p && !p.folded) {
    p.cards.forEach((c, k) => {
      const fresh = S.settings.animations && (M.seenCards[i] || 0) <= k;
      const ce = cardEl(c, { down: i === mine && !p.up[k] && !p.shown && stud, fresh });
      if (drawing) {
        ce.tabIndex = 0;
        ce.setAttribute("role", "checkbox");
        ce.setAttribute("aria-checked", String(T.discards.includes(c)));
        if (T.discards.includes(c)) ce.classList.add("selected");
        const flip = () => ui.discard(c);
        ce.onclick = flip;
        ce.onkeydown = (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); flip(); } };
      }
      hole.append(ce);
    });
    M.seenCards[i] = p.cards.length;
  } else {
    M.seenCards[i] = 0;
  }
  parts.push(hole);
  const last = el("div", "last", lastText);
  if (p && p.won > 0 && h.ended) { last.textContent = "Wins " + p.won; last.classList.add("won"); }
  parts.push(last);
  if (p && p.shown && p.handName) parts.push(el("div", "handname", p.handName));
  if (toAct) {
    const bar = el("div", "timer" + (T.clock.inBank ? " bank" : ""));
    bar.append(el("div"));
    parts.push(bar, el("div", "clock", ""));
  }
  if (p && p.bet > 0) {
    const b = el("div", "bet", String(p.bet));
    b.style.top = pos.top > 50 ? "-1.6em" : "calc(100% + .3em)";
    parts.push(b);
  }
  if (h && h.button === i && !stud) parts.push(el("div", "dealer", "D"));
  d.replaceChildren(...parts);
  if (focused !== undefined) {
    const again = [...hole.children].find((c) => c.dataset.card === focused);
    if (again) again.focus();
  }
  return true;
}

// Whether the hand log follows new lines, per table: it does until the reader scrolls
// back, and again once they scroll to the end. Kept while the log is hidden (a hidden
// box has no height, so its scroll position says nothing).
const following = new Map();

export function renderLog(S, T) {
  const box = $("#log");
  if (!box.dataset.wired) {
    box.dataset.wired = "yes";
    box.addEventListener("scroll", () => {
      if (!box.clientHeight || !box.dataset.table) return;
      following.set(box.dataset.table, box.scrollTop + box.clientHeight >= box.scrollHeight - 8);
    });
  }
  // Redrawn whole when the table changed; otherwise the lines dropped at the front (past
  // LOG_LINES) are removed, a line changed in place (a second deck proof) is rewritten and
  // new ones are added: at a busy table nothing else is touched.
  const dropped = (T.logDropped || 0) - Number(box.dataset.from || 0);
  const fresh = box.dataset.table !== T.id || dropped < 0;
  if (fresh) { box.replaceChildren(); box.dataset.table = T.id; }
  else for (let k = 0; k < dropped && box.firstChild; k++) box.firstChild.remove();
  box.dataset.from = String(T.logDropped || 0);
  const lines = box.children;
  while (lines.length > T.log.length) box.lastChild.remove();
  if (box.dataset.edits !== String(T.logEdits || 0)) {
    box.dataset.edits = String(T.logEdits || 0);
    for (let k = 0; k < lines.length; k++) {
      const line = T.log[k];
      if (lines[k].textContent !== line.text) lines[k].textContent = line.text;
      if (lines[k].className !== (line.cls || "")) lines[k].className = line.cls || "";
    }
  }
  for (let k = lines.length; k < T.log.length; k++) box.append(el("p", T.log[k].cls || "", T.log[k].text));
  if (fresh && !following.has(T.id)) following.set(T.id, true);
  if (S.pane === "log" && following.get(T.id) !== false) box.scrollTop = box.scrollHeight;
}

/** The chat: made again only when its lines, the muted players or the pane changed. */
export function renderChat(S, T, ui) {
  const box = $("#chat");
  const chatOpen = S.pane === "chat";
  if (changed(box, [T.id, T.chat, S.settings.muted, T.table.chat, chatOpen])) {
    box.replaceChildren();
    for (const line of T.chat) {
      if (line.off !== undefined) { box.append(el("p", "off", line.off)); continue; }
      if (S.settings.muted.includes(line.player_id)) continue;
      const p = el("p");
      const who = el("button", "who", line.name);
      who.type = "button";
      who.title = "Mute " + line.name;
      who.setAttribute("aria-label", "Mute " + line.name);
      who.onclick = () => ui.mute(line.player_id, line.name);
      p.append(who, document.createTextNode(": " + line.text));
      box.append(p);
    }
    box.scrollTop = box.scrollHeight;
    if (!T.table.chat && chatOpen && !box.childElementCount) box.append(el("p", "off", "Chat is off at this table."));
  }
  // Seated players and signed-in spectators chat alike.
  $("#chat-form").classList.toggle("hidden", !chatOpen || !T.table.chat);
  setText($("#chat-unread"), T.unread && !chatOpen ? "(" + T.unread + ")" : "");
}

// ---------------------------------------------------------------- actions

export function renderActions(S, ui) {
  const T = S.tables.get(S.current);
  if (!T) return;
  const seated = mySeat(S, T) !== null;
  const me = myPlayer(S, T);
  $("#actions").classList.toggle("hidden", !T.decide);
  $("#preselect").classList.toggle("hidden", !!T.decide || !inHand(S, T) || !seated || (me && me.allIn));
  document.querySelectorAll("#preselect input").forEach((i) => { i.checked = T.pre === i.dataset.pre; });
  // While the connection is down nothing can be sent: the buttons say so by being off.
  document.querySelectorAll("#actions button, #actions input, #preselect input").forEach((b) => { b.disabled = !S.online; });
  $("#actions").classList.toggle("offline", !S.online);
  if (!T.decide) return;
  const kind = T.decide.kind;
  const show = (id, on) => $(id).classList.toggle("hidden", !on);
  show("#act-pat", kind === "draw");
  show("#act-draw", kind === "draw");
  if (kind === "draw") $("#act-draw").textContent = T.discards.length ? "Draw " + T.discards.length : "Draw";
  $("#act-draw").disabled = T.discards.length === 0 || !S.online;
  show("#act-rit-yes", kind === "run_twice");
  show("#act-rit-no", kind === "run_twice");
  show("#act-show", kind === "show");
  show("#act-muck", kind === "show");
  const bet = kind === "bet";
  const l = bet ? T.decide.legal : null;
  show("#act-fold", bet && l.fold);
  show("#act-check", bet && l.check);
  show("#act-call", bet && l.call !== null);
  show("#act-bring-in", bet && l.bring_in !== null && l.bring_in !== undefined);
  show("#act-raise", bet && !!l.bet_or_raise);
  show("#sizing", false);
  $("#act-hint").textContent = kind === "draw" ? "Choose the cards to throw away, then Draw; or stand pat." :
    kind === "run_twice" ? "Everyone is all in: run the rest twice?" :
    kind === "show" ? "Your hand is beaten: show it or muck it (the clock mucks it)." : "";
  if (!bet) return;
  const stack = me ? me.stack : 0;
  if (l.call !== null) $("#act-call").firstChild.textContent = callLabel(l, stack) + " ";
  if (l.bring_in !== null && l.bring_in !== undefined) $("#act-bring-in").textContent = "Bring in " + l.bring_in;
  if (!l.bet_or_raise) return;
  const sz = sizing(l, { structure: gameOf(T).structure, myBet: me ? me.bet : 0, myStack: stack, pot: totalPot(T) });
  const M = memoOf(T.id);
  M.sizing = sz;
  show("#sizing", !sz.fixed);
  const presets = $("#presets");
  if (presets.dataset.decision !== String(T.decide.id)) {
    presets.dataset.decision = String(T.decide.id);
    presets.replaceChildren(...sz.presets.map((p) => {
      const b = el("button", "", p.label);
      b.type = "button";
      b.dataset.preset = p.key;
      b.onclick = () => ui.setAmount(p.to);
      return b;
    }));
  }
  const slider = $("#amount-slider");
  slider.min = sz.min; slider.max = sz.max; slider.step = l.unit || 1;
  // The amount starts at the minimum once per decision; later redraws keep the choice.
  if (M.sizedFor !== T.decide.id) {
    M.sizedFor = T.decide.id;
    slider.value = sz.min; $("#amount").value = sz.min;
  }
  $("#amount").min = sz.min; $("#amount").max = sz.max; $("#amount").step = l.unit || 1;
  updateRaiseLabel(S);
}

export function totalPot(T) {
  return T.hand ? T.hand.pot + T.hand.players.reduce((a, p) => a + p.bet, 0) : 0;
}

export function chosenAmount(S) {
  const T = S.tables.get(S.current);
  const l = T.decide.legal;
  const M = memoOf(T.id);
  return M.sizing && M.sizing.fixed ? l.bet_or_raise[0] : legalAmount(l, $("#amount").value);
}

export function updateRaiseLabel(S) {
  const T = S.tables.get(S.current);
  if (!T || !T.decide || T.decide.kind !== "bet" || !T.decide.legal.bet_or_raise) return;
  const l = T.decide.legal;
  const h = T.hand;
  const facing = l.call !== null || (h && h.players.some((p) => p.bet > 0));
  const completing = completes(h);
  $("#act-raise").firstChild.textContent = raiseLabel(chosenAmount(S), { facing, completing, allIn: memoOf(T.id).sizing ? memoOf(T.id).sizing.allIn : -1 });
}

export function tick(S) {
  const T = S.tables.get(S.current);
  if (!T || !T.clock) return;
  const left = Math.max(0, T.clock.deadline - performance.now());
  const fill = document.querySelector(".seat.to-act .timer > div");
  if (fill) fill.style.width = (100 * left / Math.max(1, T.clock.total)) + "%";
  const label = document.querySelector(".seat.to-act .clock");
  if (label) {
    label.textContent = T.clock.inBank ? "Time bank " + Math.ceil(left / 1000) + " s"
      : Math.ceil(left / 1000) + " s" + (T.clock.bankMs ? " + bank " + Math.round(T.clock.bankMs / 1000) + " s" : "");
  }
}
