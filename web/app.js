// pokerd's browser client: plain JavaScript, no build step, no dependencies. It speaks
// the WebSocket protocol of docs/protocol.md. The table state is rebuilt from the
// server's events (and from a snapshot's events after joining, reconnecting or falling
// behind), so what is drawn is always what the server said.
"use strict";

const $ = (sel) => document.querySelector(sel);
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

const S = {
  token: localStorage.getItem("pokerd.token"),
  me: null,               // { player_id, name }
  ws: null,
  wantOpen: false,
  retry: 0,
  lobby: new Map(),       // table_id -> summary
  view: "login",
  tableId: sessionStorage.getItem("pokerd.table"),
  table: null,            // TableView
  hand: null,             // rebuilt from events
  decide: null,           // { id, legal }
  clock: null,            // { seat, deadline, bankMs, inBank, total }
  pre: null,              // pre-selected action: check_fold | check | call_any
  discards: new Set(),    // cards chosen to throw away at a draw
  sizedFor: null,         // the decision the bet amount was set up for
  lastHand: null,         // the finished hand, shown until the next one starts
};

// ---------------------------------------------------------------- cards

const SUITS = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };
function splitCards(text) {
  const out = [];
  for (let i = 0; i + 1 < (text || "").length; i += 2) out.push(text.slice(i, i + 2));
  return out;
}
function cardEl(code) {
  if (!code || code === "??") return el("span", "card back", "??");
  const rank = code[0] === "T" ? "10" : code[0];
  const suit = code[1];
  const c = el("span", "card" + (suit === "h" || suit === "d" ? " red" : ""), rank + SUITS[suit]);
  c.dataset.card = code;
  return c;
}

// ---------------------------------------------------------------- hand state

function newHand(view) {
  const players = view.seats.map((seat, i) => ({
    seat, stack: view.starting_stacks[i], bet: 0, committed: 0, folded: false,
    allIn: false, cards: [], shown: false, last: "", won: 0,
  }));
  return {
    number: view.hand_number, seats: view.seats, button: view.button, players,
    board: [], board2: null, runTwiceAt: null, pot: 0, ended: false, rake: 0,
  };
}

function applyEvent(h, e) {
  const p = e.player !== undefined ? h.players[e.player] : null;
  switch (e.type) {
    case "ante_posted":
      p.stack -= e.amount; p.committed += e.amount; h.pot += e.amount; p.last = "Ante " + e.amount; break;
    case "blind_posted": case "bring_in_posted":
      p.stack -= e.amount; p.bet += e.amount; p.committed += e.amount;
      p.last = (e.type === "bring_in_posted" ? "Bring-in " : "Blind ") + e.amount; break;
    case "hole_dealt":
      p.cards = p.cards.concat(splitCards(e.cards)); break;
    case "discarded": {
      const gone = splitCards(e.cards);
      for (const c of gone) {
        const i = c === "??" ? p.cards.length - 1 : p.cards.indexOf(c);
        if (i >= 0) p.cards.splice(i, 1);
      }
      p.last = gone.length ? "Draws " + gone.length : "Stands pat"; break;
    }
    case "board_dealt": h.board = h.board.concat(splitCards(e.cards)); break;
    case "round_started": if (e.street > 0) for (const q of h.players) if (!q.folded && !q.allIn) q.last = ""; break;
    case "folded": p.folded = true; p.last = "Fold"; break;
    case "checked": p.last = "Check"; break;
    case "called":
      p.stack -= e.amount; p.bet += e.amount; p.committed += e.amount; p.allIn = e.all_in;
      p.last = e.all_in ? "Call, all in" : "Call"; break;
    case "bet_to":
      p.stack -= e.amount; p.bet = e.to; p.committed += e.amount; p.allIn = e.all_in;
      p.last = (h.players.some((q) => q !== p && q.bet > 0) ? "Raise to " : "Bet ") + e.to + (e.all_in ? ", all in" : ""); break;
    case "uncalled_returned":
      p.stack += e.amount; p.bet -= e.amount; p.committed -= e.amount; break;
    case "bets_collected":
      for (const q of h.players) q.bet = 0;
      h.pot = e.pot; break;
    case "shown": p.cards = splitCards(e.cards); p.shown = true; break;
    case "mucked": p.last = "Muck"; break;
    case "running_twice": h.runTwiceAt = h.board.length; h.board2 = h.board.slice(); break;
    case "second_board_dealt": h.board2 = (h.board2 || []).concat(splitCards(e.cards)); break;
    case "raked": h.rake += e.amount; h.pot -= e.amount; break;
    case "pot_awarded":
      for (const [i, amount] of e.winners) { h.players[i].stack += amount; h.players[i].won += amount; }
      h.pot -= e.amount; break;
    case "hand_ended":
      e.stacks.forEach((s, i) => { h.players[i].stack = s; h.players[i].bet = 0; });
      h.ended = true; break;
  }
}

// Main and side pots from what each player put in (R27).
function potsOf(h) {
  const total = h.pot + h.players.reduce((a, p) => a + p.bet, 0);
  const caps = [...new Set(h.players.filter((p) => p.allIn && !p.folded).map((p) => p.committed))].sort((a, b) => a - b);
  if (caps.length === 0 || h.ended) return [total];
  const pots = [];
  let prev = 0;
  for (const cap of caps.concat([Infinity])) {
    let amount = 0;
    for (const p of h.players) amount += Math.max(0, Math.min(p.committed, cap) - prev);
    if (amount > 0) pots.push(amount);
    prev = cap;
  }
  // Dead antes and rounding aside, the pots add up to the total.
  const sum = pots.reduce((a, b) => a + b, 0);
  if (sum !== total && pots.length) pots[0] += total - sum;
  return pots.filter((x) => x > 0);
}

// ---------------------------------------------------------------- connection

function send(msg) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) S.ws.send(JSON.stringify(msg));
}

function connect() {
  if (!S.token) return;
  S.wantOpen = true;
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  S.ws = ws;
  ws.onopen = () => { ws.send(JSON.stringify({ type: "auth", token: S.token })); };
  ws.onmessage = (m) => onMessage(JSON.parse(m.data));
  ws.onclose = () => {
    if (S.ws !== ws) return;
    S.ws = null;
    if (!S.wantOpen) return;
    $("#banner").classList.remove("hidden");
    const wait = Math.min(5000, 300 * 2 ** S.retry++);
    setTimeout(connect, wait);
  };
}

function onMessage(m) {
  switch (m.type) {
    case "welcome":
      S.me = { player_id: m.player_id, name: m.name };
      S.retry = 0;
      $("#banner").classList.add("hidden");
      $("#who").textContent = m.name;
      send({ type: "list_tables" });
      // Seated tables come as snapshots by themselves; a watched one is asked again.
      if (S.tableId) send({ type: "watch", table_id: S.tableId });
      else show("lobby");
      break;
    case "error":
      if (m.code === "unauthenticated") { logout(); showLoginError("Please log in again."); break; }
      toast(m.message);
      if (S.decide === null) renderActions();
      break;
    case "tables":
      S.lobby = new Map(m.tables.map((t) => [t.table_id, t]));
      renderLobby(); break;
    case "table_update":
      if (m.table.status === "closed") S.lobby.delete(m.table.table_id);
      else S.lobby.set(m.table.table_id, m.table);
      renderLobby(); break;
    case "snapshot": onSnapshot(m); break;
    case "seats":
      if (m.table.table_id !== S.tableId) break;
      S.table = m.table;
      if (S.hand && S.hand.ended) {
        // After the hand, the seats are the truth (top-ups included).
        for (const p of S.hand.players) {
          const v = m.table.seats.find((s) => s.seat === p.seat);
          if (v) p.stack = v.stack;
        }
      }
      render(); break;
    case "event": onEvent(m); break;
    case "decide":
      if (m.table_id !== S.tableId) { otherTable(m.table_id); break; }
      S.decide = { id: m.decision_id, kind: "bet", legal: m.legal };
      if (!applyPreselect()) { renderActions(); }
      render(); break;
    case "decide_draw": case "decide_run_twice":
      if (m.table_id !== S.tableId) { otherTable(m.table_id); break; }
      S.decide = { id: m.decision_id, kind: m.type === "decide_draw" ? "draw" : "run_twice", legal: null };
      S.discards = new Set();
      render(); break;
    case "turn":
      if (m.table_id !== S.tableId) break;
      S.clock = {
        seat: m.clock.seat, deadline: performance.now() + m.clock.remaining_ms,
        total: m.clock.in_time_bank ? m.clock.time_bank_ms : (S.table ? S.table.action_ms : m.clock.remaining_ms),
        bankMs: m.clock.time_bank_ms, inBank: m.clock.in_time_bank,
      };
      render(); break;
    case "clock_warning": toast("Time is running out: " + Math.ceil(m.remaining_ms / 1000) + " s"); break;
    case "timed_out":
      if (S.table && mySeat() === m.seat) toast(m.sat_out ? "You timed out and are sitting out." : "You timed out.");
      break;
    case "done": onDone(m); break;
    case "table_closed":
      if (m.table_id === S.tableId) { toast("The table was closed; your chips are back in your wallet."); leaveView(); }
      break;
    case "table_failed":
      // The hand in progress is void and nothing more is dealt: leaving cashes out.
      S.decide = null;
      toast("This table stopped on a server fault: " + m.message);
      if (m.table_id === S.tableId) render();
      break;
  }
}

function otherTable(id) {
  const t = S.lobby.get(id);
  toast("Your turn at " + (t ? t.name : "another table") + ": open it from the lobby");
}

function onSnapshot(m) {
  // While looking at one table, snapshots of others (where the player also sits) are
  // left for when the player opens them from the lobby.
  if (S.tableId && m.table.table_id !== S.tableId) return;
  S.tableId = m.table.table_id;
  sessionStorage.setItem("pokerd.table", S.tableId);
  S.table = m.table;
  S.hand = null;
  if (m.hand) {
    S.hand = newHand(m.hand);
    for (const e of m.hand.events) applyEvent(S.hand, e);
  }
  S.decide = null;
  if (m.decide) {
    const kind = { decide: "bet", decide_draw: "draw", decide_run_twice: "run_twice" }[m.decide.type];
    S.decide = { id: m.decide.decision_id, kind, legal: m.decide.legal || null };
  }
  S.clock = null;
  if (m.clock) {
    S.clock = {
      seat: m.clock.seat, deadline: performance.now() + m.clock.remaining_ms,
      total: m.clock.in_time_bank ? m.clock.time_bank_ms : m.table.action_ms,
      bankMs: m.clock.time_bank_ms, inBank: m.clock.in_time_bank,
    };
  }
  show("table");
  renderActions();
  render();
}

function onEvent(m) {
  if (m.table_id !== S.tableId) return;
  if (!S.hand || S.hand.number !== m.hand_number) {
    // A new hand: its stacks come from the seats message sent just before it.
    const stacks = m.seats.map((seat) => {
      const s = S.table && S.table.seats.find((x) => x.seat === seat);
      return s ? s.stack : 0;
    });
    S.lastHand = null;
    S.hand = newHand({ hand_number: m.hand_number, seats: m.seats, starting_stacks: stacks, button: S.table ? S.table.button : null });
  }
  applyEvent(S.hand, m.event);
  const e = m.event;
  if (e.player !== undefined && S.hand.players[e.player] && S.hand.players[e.player].seat === mySeat()
      && ["folded", "checked", "called", "bet_to", "bring_in_posted", "discarded", "run_it_twice_answered"].includes(e.type)) {
    S.decide = null; renderActions();
  }
  if (["folded", "checked", "called", "bet_to", "bring_in_posted", "discarded", "run_it_twice_answered"].includes(e.type)) S.clock = null;
  if (e.type === "round_started") resetPreselectIfBetChanged();
  if (e.type === "hand_ended") { S.decide = null; S.clock = null; S.pre = null; renderActions(); }
  render();
}

function onDone(m) {
  const what = {
    sit: "Seated with " + m.amount,
    top_up: m.pending ? "Top-up of " + m.amount + " after this hand" : "Added " + m.amount,
    leave: m.pending ? "Leaving after this hand" : "Cashed out " + m.amount,
    sit_out: m.pending ? "Sitting out after this hand" : "Sitting out",
    sit_in: "Back in",
  }[m.request];
  if (what) toast(what);
  if (m.request === "leave" && !m.pending && m.table_id === S.tableId) leaveView();
}

// ---------------------------------------------------------------- actions

function mySeat() {
  if (!S.table || !S.me) return null;
  const s = S.table.seats.find((x) => x.player_id === S.me.player_id);
  return s ? s.seat : null;
}
function myPlayer() {
  if (!S.hand) return null;
  const seat = mySeat();
  return S.hand.players.find((p) => p.seat === seat) || null;
}

function act(action) {
  if (!S.decide) return;
  send({ type: "act", table_id: S.tableId, decision_id: S.decide.id, action });
  S.decide = null;
  renderActions();
}

// Pre-selected actions are held until the turn and re-validated then (R2).
function applyPreselect() {
  const pre = S.pre;
  if (!pre || !S.decide || S.decide.kind !== "bet") return false;
  const l = S.decide.legal;
  S.pre = null;
  document.querySelectorAll("#preselect input").forEach((i) => { i.checked = false; });
  if (pre === "check_fold") { act(l.check ? { type: "check" } : { type: "fold" }); return true; }
  if (pre === "check" && l.check) { act({ type: "check" }); return true; }
  if (pre === "call_any") { act(l.call !== null ? { type: "call" } : { type: "check" }); return true; }
  return false;
}
function resetPreselectIfBetChanged() { /* choices hold across streets until used */ }

function totalPot() {
  return S.hand ? S.hand.pot + S.hand.players.reduce((a, p) => a + p.bet, 0) : 0;
}

function roundTo(x, unit) { return unit > 1 ? Math.round(x / unit) * unit : Math.round(x); }

function presetAmount(kind) {
  const l = S.decide.legal;
  const [min, max] = l.bet_or_raise;
  const me = myPlayer();
  const myBet = me ? me.bet : 0;
  const call = l.call || 0;
  const current = myBet + call;
  const potAfterCall = totalPot() + call;
  let to = min;
  if (kind === "half") to = current + potAfterCall / 2;
  if (kind === "pot") to = current + potAfterCall;
  if (kind === "max") to = max;
  to = roundTo(to, l.unit || 1);
  return Math.max(min, Math.min(max, to));
}

function chosenAmount() {
  const l = S.decide.legal;
  const [min, max] = l.bet_or_raise;
  let v = parseInt($("#amount").value, 10);
  if (!Number.isFinite(v)) v = min;
  v = Math.max(min, Math.min(max, v));
  if (v !== max) v = Math.max(min, roundTo(v, l.unit || 1));
  return v;
}

function renderActions() {
  const seated = mySeat() !== null;
  const inHand = !!myPlayer() && S.hand && !S.hand.ended && !myPlayer().folded;
  $("#actions").classList.toggle("hidden", !S.decide);
  $("#preselect").classList.toggle("hidden", !!S.decide || !inHand || !seated || (myPlayer() && myPlayer().allIn));
  if (!S.decide) return;
  const kind = S.decide.kind;
  $("#act-pat").classList.toggle("hidden", kind !== "draw");
  $("#act-draw").classList.toggle("hidden", kind !== "draw");
  if (kind === "draw") $("#act-draw").textContent = "Draw " + S.discards.size;
  $("#act-draw").disabled = S.discards.size === 0;
  $("#act-rit-yes").classList.toggle("hidden", kind !== "run_twice");
  $("#act-rit-no").classList.toggle("hidden", kind !== "run_twice");
  if (kind !== "bet") {
    for (const id of ["#act-fold", "#act-check", "#act-call", "#act-bring-in", "#act-raise", "#sizing"]) $(id).classList.add("hidden");
    return;
  }
  const l = S.decide.legal;
  $("#act-fold").classList.toggle("hidden", !l.fold);
  $("#act-check").classList.toggle("hidden", !l.check);
  $("#act-call").classList.toggle("hidden", l.call === null);
  if (l.call !== null) $("#act-call").firstChild.textContent = "Call " + l.call + " ";
  $("#act-bring-in").classList.toggle("hidden", l.bring_in === null);
  if (l.bring_in !== null) $("#act-bring-in").textContent = "Bring in " + l.bring_in;
  const sizing = !!l.bet_or_raise;
  $("#act-raise").classList.toggle("hidden", !sizing);
  $("#sizing").classList.toggle("hidden", !sizing);
  if (sizing) {
    const [min, max] = l.bet_or_raise;
    const slider = $("#amount-slider");
    slider.min = min; slider.max = max; slider.step = l.unit || 1;
    // The amount starts at the minimum once per decision; later redraws keep the choice.
    if (S.sizedFor !== S.decide.id) {
      S.sizedFor = S.decide.id;
      slider.value = min; $("#amount").value = min;
    }
    $("#amount").min = min; $("#amount").max = max; $("#amount").step = l.unit || 1;
    updateRaiseLabel();
  }
}

function updateRaiseLabel() {
  if (!S.decide || S.decide.kind !== "bet" || !S.decide.legal.bet_or_raise) return;
  const l = S.decide.legal;
  const facing = l.call !== null || (S.hand && S.hand.players.some((p) => p.bet > 0));
  const v = chosenAmount();
  $("#act-raise").firstChild.textContent = (facing ? "Raise to " : "Bet ") + v + (v === l.bet_or_raise[1] ? " (all in) " : " ");
}

// ---------------------------------------------------------------- rendering

function show(view) {
  S.view = view;
  $("#login-view").classList.toggle("hidden", view !== "login");
  $("#lobby-view").classList.toggle("hidden", view !== "lobby");
  $("#table-view").classList.toggle("hidden", view !== "table");
  const inside = view !== "login";
  $("#logout").classList.toggle("hidden", !inside);
  $("#history-open").classList.toggle("hidden", !inside);
  $("#to-lobby").classList.toggle("hidden", view !== "table");
}

function renderLobby() {
  const body = $("#lobby tbody");
  body.replaceChildren();
  for (const t of S.lobby.values()) {
    const tr = el("tr", t.status);
    tr.dataset.table = t.table_id;
    for (const v of [t.name, t.game, t.stakes, t.players + "/" + t.seats, t.avg_pot, t.hands_per_hour]) tr.append(el("td", "", String(v)));
    const td = el("td");
    const b = el("button", "primary", "Open");
    b.onclick = () => openTable(t.table_id);
    td.append(b);
    tr.append(td);
    body.append(tr);
  }
  $("#lobby-empty").classList.toggle("hidden", S.lobby.size > 0);
}

function openTable(id) {
  S.tableId = id;
  sessionStorage.setItem("pokerd.table", id);
  send({ type: "watch", table_id: id });
}

function leaveView() {
  // A spectator stops receiving the table; a seated player keeps their seat.
  if (S.tableId && mySeat() === null) send({ type: "unwatch", table_id: S.tableId });
  S.tableId = null; S.table = null; S.hand = null; S.decide = null; S.clock = null;
  sessionStorage.removeItem("pokerd.table");
  show("lobby");
  send({ type: "list_tables" });
}

function seatPosition(index, count, mine) {
  // The player's own seat sits at the bottom; others go round clockwise.
  const offset = mine === null ? 0 : mine;
  const k = (index - offset + count) % count;
  const angle = Math.PI / 2 + (2 * Math.PI * k) / count;
  return { left: 50 + 47 * Math.cos(angle), top: 50 + 50 * Math.sin(angle) };
}

function render() {
  if (S.view !== "table" || !S.table) return;
  const t = S.table;
  $("#table-name").textContent = t.name;
  $("#table-info").textContent = "Blinds " + t.blinds[0] + "/" + t.blinds[1] + " \u00b7 buy-in " + t.min_buy_in + "\u2013" + t.max_buy_in;
  const mine = mySeat();
  const meSeat = t.seats.find((s) => s.seat === mine);
  $("#sit-toggle").classList.toggle("hidden", mine === null);
  $("#top-up-open").classList.toggle("hidden", mine === null);
  $("#leave").classList.toggle("hidden", mine === null);
  if (meSeat) $("#sit-toggle").textContent = meSeat.sitting_out ? "Sit in" : "Sit out";
  const h = S.hand;
  const seatsEl = $("#seats");
  seatsEl.replaceChildren();
  for (let i = 0; i < t.seat_count; i++) {
    const pos = seatPosition(i, t.seat_count, mine);
    const view = t.seats.find((s) => s.seat === i);
    const p = h ? h.players.find((x) => x.seat === i) : null;
    const d = el("div", "seat");
    d.dataset.seat = i;
    d.style.left = pos.left + "%"; d.style.top = pos.top + "%";
    if (!view) {
      d.classList.add("empty");
      d.append(el("div", "name", mine === null ? "Sit here" : "Empty"));
      if (mine === null) d.onclick = () => openBuyIn(i);
      seatsEl.append(d);
      continue;
    }
    if (i === mine) d.classList.add("me");
    if (view.sitting_out) d.classList.add("out");
    if (p && p.folded) d.classList.add("folded");
    if (p && p.won > 0 && h.ended) d.classList.add("winner");
    if (S.clock && S.clock.seat === i && h && !h.ended) d.classList.add("to-act");
    d.dataset.player = view.name;
    d.append(el("div", "name", view.name));
    const stack = p ? p.stack : view.stack;
    const st = el("div", "stack", String(stack));
    st.dataset.stack = stack;
    d.append(st);
    const hole = el("div", "hole");
    const drawing = i === mine && S.decide && S.decide.kind === "draw";
    if (drawing) d.classList.add("drawing");
    if (p && !p.folded) {
      for (const c of p.cards) {
        const ce = cardEl(c);
        if (drawing) {
          if (S.discards.has(c)) ce.classList.add("selected");
          ce.onclick = () => {
            if (S.discards.has(c)) S.discards.delete(c); else S.discards.add(c);
            render();
          };
        }
        hole.append(ce);
      }
    }
    d.append(hole);
    const waiting = view.sitting_out ? "Sitting out" : h && !h.ended ? "Next hand" : "";
    const last = el("div", "last", view.leaving ? "Leaving" : p ? p.last : waiting);
    if (p && p.won > 0 && h.ended) { last.textContent = "Wins " + p.won; last.classList.add("won"); }
    d.append(last);
    if (S.clock && S.clock.seat === i && h && !h.ended) {
      const bar = el("div", "timer" + (S.clock.inBank ? " bank" : ""));
      const fill = el("div");
      bar.append(fill);
      d.append(bar);
      d.append(el("div", "clock", ""));
    }
    if (p && p.bet > 0) {
      const b = el("div", "bet", String(p.bet));
      b.style.top = pos.top > 50 ? "-1.6em" : "calc(100% + .3em)";
      d.append(b);
    }
    if (h && h.button === i) d.append(el("div", "dealer", "D"));
    seatsEl.append(d);
  }
  const board = $("#board");
  board.replaceChildren(...(h ? h.board.map(cardEl) : []));
  const b2 = $("#board2");
  b2.classList.toggle("hidden", !(h && h.board2));
  if (h && h.board2) b2.replaceChildren(...h.board2.map(cardEl));
  const pots = h ? potsOf(h) : [];
  $("#pots").textContent = !h || pots.every((x) => x === 0) ? "" :
    pots.length === 1 ? "Pot " + pots[0] : pots.map((x, i) => (i === 0 ? "Main " : "Side " + i + " ") + x).join(" \u00b7 ");
  $("#message").textContent = h && h.ended ? "Hand #" + h.number + " is over" + (h.rake ? " (rake " + h.rake + ")" : "") : "";
  renderActions();
  tick();
}

function tick() {
  if (!S.clock) return;
  const left = Math.max(0, S.clock.deadline - performance.now());
  const fill = document.querySelector(".seat.to-act .timer > div");
  if (fill) fill.style.width = (100 * left / Math.max(1, S.clock.total)) + "%";
  const label = document.querySelector(".seat.to-act .clock");
  if (label) {
    label.textContent = S.clock.inBank ? "Time bank " + Math.ceil(left / 1000) + " s"
      : Math.ceil(left / 1000) + " s" + (S.clock.bankMs ? " + bank " + Math.round(S.clock.bankMs / 1000) + " s" : "");
  }
}
setInterval(tick, 200);

let toastTimer = null;
function toast(text) {
  const t = $("#toast");
  t.textContent = text;
  t.classList.remove("hidden");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => t.classList.add("hidden"), 3500);
}

// ---------------------------------------------------------------- dialogs

async function api(path) {
  const r = await fetch(path, { headers: { authorization: "Bearer " + S.token } });
  if (!r.ok) throw new Error((await r.json().catch(() => ({}))).message || r.statusText);
  return r.headers.get("content-type").includes("json") ? r.json() : r.text();
}

let buyInSeat = null;
let buyInMode = "sit";
async function openBuyIn(seat) {
  buyInSeat = seat; buyInMode = "sit";
  const t = S.table;
  let balance = null;
  try { balance = (await api("/api/me")).balance; } catch (_) { /* shown as unknown */ }
  const max = balance === null ? t.max_buy_in : Math.min(t.max_buy_in, balance);
  setupAmountDialog("Buy in at seat " + (seat + 1), t.min_buy_in, max, balance, true);
}
function openTopUp() {
  const t = S.table;
  const me = t.seats.find((s) => s.seat === mySeat());
  buyInMode = "top_up";
  const room = t.max_buy_in - me.stack - me.pending_top_up;
  api("/api/me").then((m) => {
    setupAmountDialog("Top up", Math.min(1, room), Math.min(room, m.balance), m.balance, false);
  }).catch((e) => toast(e.message));
}
function setupAmountDialog(title, min, max, balance, showWait) {
  $("#buy-in-title").textContent = title;
  $("#buy-in-range").textContent = "Between " + min + " and " + max + (balance !== null ? " \u00b7 wallet " + balance : "");
  for (const inp of [$("#buy-in-slider"), $("#buy-in-amount")]) { inp.min = min; inp.max = max; inp.value = max; }
  $("#buy-in-wait").parentElement.classList.toggle("hidden", !showWait);
  $("#buy-in-error").textContent = max < min ? "Not enough in your wallet." : "";
  $("#buy-in-confirm").disabled = max < min || max <= 0;
  $("#buy-in-confirm").textContent = showWait ? "Sit down" : "Add chips";
  $("#buy-in-dialog").showModal();
}

// ---------------------------------------------------------------- login

function showLoginError(text) { $("#login-error").textContent = text; }

async function authenticate(path) {
  const name = $("#login-name").value.trim();
  const password = $("#login-password").value;
  showLoginError("");
  const r = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name, password }) });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) { showLoginError(body.message || "Refused"); return; }
  S.token = body.token;
  localStorage.setItem("pokerd.token", S.token);
  connect();
}

function logout() {
  if (S.token) fetch("/logout", { method: "POST", headers: { authorization: "Bearer " + S.token } }).catch(() => {});
  S.wantOpen = false;
  if (S.ws) S.ws.close();
  S.token = null; S.me = null; S.tableId = null; S.table = null; S.hand = null;
  localStorage.removeItem("pokerd.token");
  sessionStorage.removeItem("pokerd.table");
  $("#who").textContent = "";
  show("login");
}

// ---------------------------------------------------------------- wiring

$("#login-form").addEventListener("submit", (e) => { e.preventDefault(); authenticate("/login"); });
$("#register-submit").addEventListener("click", () => authenticate("/register"));
$("#logout").addEventListener("click", logout);
$("#to-lobby").addEventListener("click", leaveView);
// Folding when a check is free loses a hand for nothing: ask first.
function foldOrAsk() {
  const l = S.decide && S.decide.legal;
  if (l && l.check && !confirm("You can check for free. Fold anyway?")) return;
  act({ type: "fold" });
}
$("#act-fold").addEventListener("click", foldOrAsk);
$("#act-check").addEventListener("click", () => act({ type: "check" }));
$("#act-call").addEventListener("click", () => act({ type: "call" }));
$("#act-bring-in").addEventListener("click", () => act({ type: "bring_in" }));
$("#act-raise").addEventListener("click", () => act({ type: "bet_or_raise_to", to: chosenAmount() }));
$("#act-pat").addEventListener("click", () => act({ type: "draw", discards: "" }));
$("#act-draw").addEventListener("click", () => act({ type: "draw", discards: [...S.discards].join("") }));
$("#act-rit-yes").addEventListener("click", () => act({ type: "run_it_twice", agree: true }));
$("#act-rit-no").addEventListener("click", () => act({ type: "run_it_twice", agree: false }));
$("#amount-slider").addEventListener("input", (e) => { $("#amount").value = e.target.value; updateRaiseLabel(); });
$("#amount").addEventListener("input", (e) => { $("#amount-slider").value = e.target.value; updateRaiseLabel(); });
document.querySelectorAll("[data-preset]").forEach((b) => b.addEventListener("click", () => {
  const v = presetAmount(b.dataset.preset);
  $("#amount").value = v; $("#amount-slider").value = v; updateRaiseLabel();
}));
document.querySelectorAll("#preselect input").forEach((i) => i.addEventListener("change", () => {
  document.querySelectorAll("#preselect input").forEach((o) => { if (o !== i) o.checked = false; });
  S.pre = i.checked ? i.dataset.pre : null;
}));
$("#sit-toggle").addEventListener("click", () => {
  const me = S.table.seats.find((s) => s.seat === mySeat());
  if (me.sitting_out) send({ type: "sit_in", table_id: S.tableId, post_now: true });
  else send({ type: "sit_out", table_id: S.tableId, next_big_blind: false });
});
$("#top-up-open").addEventListener("click", openTopUp);
$("#leave").addEventListener("click", () => {
  // Leaving mid-hand folds the hand (a dead hand) before the cash-out: ask first.
  const me = myPlayer();
  const inHand = me && S.hand && !S.hand.ended && !me.folded;
  if (inHand && !confirm("You are in a hand: leaving folds it. Leave anyway?")) return;
  send({ type: "leave", table_id: S.tableId });
});
$("#buy-in-slider").addEventListener("input", (e) => { $("#buy-in-amount").value = e.target.value; });
$("#buy-in-amount").addEventListener("input", (e) => { $("#buy-in-slider").value = e.target.value; });
$("#buy-in-dialog").addEventListener("close", () => {
  if ($("#buy-in-dialog").returnValue !== "ok") return;
  const amount = parseInt($("#buy-in-amount").value, 10);
  if (buyInMode === "sit") {
    send({ type: "sit", table_id: S.tableId, seat: buyInSeat, buy_in: amount, post_now: !$("#buy-in-wait").checked });
  } else {
    send({ type: "top_up", table_id: S.tableId, amount });
  }
});
$("#history-open").addEventListener("click", async () => {
  const list = $("#history-list");
  list.replaceChildren();
  $("#history-text").textContent = "";
  try {
    const hands = await api("/api/me/hands?limit=20");
    if (!hands.length) list.append(el("li", "muted", "No hands yet."));
    for (const h of hands) {
      const li = el("li");
      li.append(el("span", "", h.table_name + " #" + h.number));
      li.append(el("span", h.net > 0 ? "won" : "muted", (h.net > 0 ? "+" : "") + h.net));
      li.onclick = async () => {
        const text = $("#history-text");
        try { text.textContent = await api("/api/me/hands/" + h.hand_id); }
        catch (e) { text.textContent = "This hand's history could not be shown: " + e.message; }
      };
      list.append(li);
    }
  } catch (e) { list.append(el("li", "error", e.message)); }
  $("#history-dialog").showModal();
});
document.addEventListener("keydown", (e) => {
  if (!S.decide || S.decide.kind !== "bet" || e.target.tagName === "INPUT" && e.target.type !== "range" || document.querySelector("dialog[open]")) return;
  const l = S.decide.legal;
  const k = e.key.toLowerCase();
  if (k === "f" && l.fold) foldOrAsk();
  else if (k === "c") act(l.check ? { type: "check" } : l.call !== null ? { type: "call" } : { type: "fold" });
  else if ((k === "r" || k === "enter") && l.bet_or_raise) act({ type: "bet_or_raise_to", to: chosenAmount() });
});
setInterval(() => send({ type: "ping" }), 25000);

if (S.token) { show(S.tableId ? "table" : "lobby"); connect(); } else show("login");
