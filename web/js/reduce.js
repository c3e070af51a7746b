// The client's state machine: `reduce(state, message)` takes the state and one message
// (a server message of docs/protocol.md, or a local one saying what the player did or
// what the connection did) and returns `{ state, effects }`: the next state, and what
// the page must do about it (send a message, show a toast, beep, open a dialog). It
// never touches the DOM, the network, storage or the clock, so `node --test web/test/`
// checks every message's handling; main.js runs the effects and the views draw the
// state. The state given is never changed: what a message touches is copied first.
//
// Local messages (`type` with a `ui_` or `conn_` prefix) are listed in `LOCAL` below.

import { applyEvent, newHand, DEFAULT_SETTINGS, mySeat, myPlayer, inHand, family, gameOf } from "./state.js";
import { freeSeat, myStanding, adjustedLine } from "./private.js";

/**
 * The state before the server has said anything; `current` is the table last looked at,
 * `invites` the private games' invites this tab kept (table id -> invite).
 */
export function initialState({ current = null, token = false, invites = {} } = {}) {
  return {
    me: null, // { player_id, name }
    lobby: new Map(), // table_id -> the lobby's summary
    view: token ? (current ? "table" : "lobby") : "login",
    current, // the table on screen
    tables: new Map(), // table_id -> the state of one table (see newTable)
    settings: { ...DEFAULT_SETTINGS, muted: [] },
    pane: "log", // the side pane shown: the hand log or the chat
    online: true, // false while the connection is down or silent: no action can be sent
    wallet: null, // the answer of /api/me, once asked
    private: newPrivate(invites), // private games: see `newPrivate`
  };
}

/**
 * What the page keeps about private games (docs/web-client.md, "Private games"): the
 * invites this tab knows (`invites`, table id -> invite; kept in sessionStorage), the
 * invite to present once the connection is up (`pending`: { table, invite }), the table
 * just made whose host sits down when its snapshot comes (`hostSit`), the tables this page
 * sat the player down at once let in (`satAt`), the sit sent and not yet seen refused
 * (`sitting`: { table, seat }), by table the seats a sit of this page was refused at
 * (`refused`, see `freeSeat`), the table whose invite was presented again after a
 * refusal (`retried`), the last ledger received (`ledger`: { table_id, name, lines, rake,
 * final }, final once the game ended), the table whose ledger this page asked for
 * (`ledgerAsked`), and for a host the seat requests already announced (`asking`: table id
 * -> player ids).
 */
export function newPrivate(invites = {}) {
  return {
    invites, pending: null, hostSit: null, satAt: [], sitting: null, refused: {}, retried: null,
    ledger: null, ledgerAsked: null, asking: {},
  };
}

/** One table's state before its snapshot. */
export function newTable(id) {
  return {
    id, table: null, hand: null, decide: null, clock: null, pre: null, discards: [],
    log: [], logDropped: 0, logEdits: 0, chat: [], unread: 0, alert: false, rebuyFor: null, waitPlace: null, rabbit: null,
    // `logDropped`: how many lines the log has dropped at its front (past LOG_LINES), and
    // `logEdits` how many times lines were changed or removed elsewhere, so that the view
    // removes as many, adds the new ones, and reads the others only after an edit.
    // The next hand's deck commitment (`deck_committed`, a snapshot's `next_deck`), and this
    // page's seed for it: see `commitSeed`.
    nextDeck: null, seed: null,
  };
}

const DECIDE_KIND = { decide: "bet", decide_draw: "draw", decide_run_twice: "run_twice", decide_show: "show" };
const ACTED = ["folded", "checked", "called", "bet_to", "bring_in_posted", "discarded", "run_it_twice_answered", "shown", "mucked"];
/** The hand log keeps this many lines per table. */
export const LOG_LINES = 400;

/**
 * The messages the page itself feeds to `reduce`, besides the server's:
 * `ui_open_table {table_id}`, `ui_lobby`, `ui_act {action}`, `ui_show_hand`, `ui_pane {pane}`,
 * `ui_preselect {pre}`, `ui_discard {card}`, `ui_settings {settings}`, `ui_wallet {wallet}`,
 * `ui_log {table_id, hand_number, text, key}` (a line of the hand log; a line with a `key`
 * replaces the hand's line with the same key), `ui_logout`, `ui_focus {table_id}` (the
 * table on screen from now on, asking nothing of the server: a private table is entered
 * with its invite), `ui_sit {table_id, committed}` (the page just sent `sit`, with the
 * commitment `committed` {hand_id, commitment} when it had a next deck), `ui_seed_commitment
 * {table_id, hand_id, commitment}` (the commitment to this page's seed, worked out by
 * main.js), `conn_down`, `conn_up`; private games' (private.js): `ui_private_made {table_id,
 * invite}` (the host made a game: it is entered and the host sits down), `ui_invite {table_id,
 * invite}` (an invite link of an open game: kept, and presented once connected and asked),
 * `ui_present` (the friend asked to join), `ui_invite_drop` (they did not).
 */
export const LOCAL = ["ui_focus", "ui_open_table", "ui_lobby", "ui_act", "ui_show_hand", "ui_pane", "ui_preselect", "ui_discard", "ui_settings",
  "ui_wallet", "ui_log", "ui_logout", "ui_sit", "ui_seed_commitment", "ui_private_made", "ui_invite", "ui_present", "ui_invite_drop",
  "conn_down", "conn_up"];

/**
 * The next state after `m`, and the effects to run: `{ type: "send", msg }`,
 * `{ type: "toast", text, table_id }` (a table's word: shown loudly only when that table
 * is on screen), `{ type: "beep", freq, secs }`, `{ type: "announce", text }`,
 * `{ type: "notify", title, body, table_id }`, `{ type: "buy_in", seat }`,
 * `{ type: "top_up", rebuy }`, `{ type: "seed_commit", table_id, hand_id, deck }` (find or
 * make the seed for the hand, keep it, and feed its commitment to the deck back as
 * `ui_seed_commitment`), `{ type: "seed_reveal", table_id, hand_id, deck, list }` (keep the
 * closed list's digest with the seed, then send the seed), `{ type: "forget_seed", hand_id }`,
 * `{ type: "proof", table_id, hand_number, proof, seat }`,
 * `{ type: "remember_table", table_id }` (null: none), `{ type: "wallet" }` (ask again),
 * `{ type: "your_turn", table_id }` (clear the table of what covers it),
 * `{ type: "settings" }` (load the player's saved settings), `{ type: "logout", message }`,
 * `{ type: "sit", msg }` (take a seat: main.js sends the sit with the seed's commitment),
 * `{ type: "keep_invites", invites }` (the private games' invites, kept for the tab),
 * `{ type: "show_ledger" }` (show `state.private.ledger`).
 */
export function reduce(state, m) {
  const r = { state: { ...state, tables: new Map(state.tables) }, effects: [] };
  const id = m.table_id || (m.table && m.table.table_id) || null;
  const handler = HANDLERS[m.type];
  if (handler) handler(r, m, id);
  privateGames(r, m, id);
  return r;
}

// A copy of one table's state that this message may change (null: not followed). The
// log's and the chat's lines are never changed once made (a line is replaced, never
// edited), so their lists are copied and the lines shared: a busy table's 400 lines are
// not cloned at every message.
function table(r, id) {
  const T = r.state.tables.get(id);
  if (!T) return null;
  const { log, chat, ...rest } = T;
  const copy = structuredClone(rest);
  copy.log = log.slice();
  copy.chat = chat.slice();
  r.state.tables.set(id, copy);
  return copy;
}

function tableName(T, fallback = "A table") {
  return T && T.table ? T.table.name : fallback;
}

/** A table stays while the player sits there or waits for a seat. */
export function keep(S, T) {
  return mySeat(S, T) !== null || !!T.waitPlace;
}

function clockOf(c, table, at) {
  return {
    seat: c.seat, deadline: (at || 0) + c.remaining_ms,
    total: c.in_time_bank ? c.time_bank_ms : (table ? table.action_ms : c.remaining_ms),
    bankMs: c.time_bank_ms, inBank: c.in_time_bank,
  };
}

/**
 * A hand's first line in the log: its number, its game at a dealer's choice table, and
 * "Bomb pot" when it is one (H1, H3).
 */
export function handTitle(T, number) {
  const h = T.hand;
  const t = T.table || {};
  let out = "Hand #" + number;
  if (t.dealers_choice && t.game) out += " \u00b7 " + t.game;
  if (h && h.bomb_pot) out += " \u00b7 Bomb pot";
  return out;
}

/** What `applyEvent` needs to word a table's log lines. */
export function logCtx(S, T, handName) {
  return {
    me: mySeat(S, T),
    name: (seat) => { const v = T.table && T.table.seats.find((x) => x.seat === seat); return v ? v.name : "Seat " + (seat + 1); },
    blinds: T.table ? T.table.blinds : [0, 0],
    straddle: !!(T.table && T.table.straddle),
    game: T.table ? T.table.game : "",
    family: T.table ? family(gameOf(T)) : "board",
    handName,
  };
}

// A line of a table's hand log; one with a `key` replaces the hand's line with that key.
function log(T, text, hand, cls, key) {
  const line = cls ? { text, hand, cls } : { text, hand };
  if (key) {
    line.key = key;
    const at = T.log.findIndex((l) => l.hand === hand && l.key === key);
    if (at >= 0) { T.log[at] = line; T.logEdits++; return; }
  }
  T.log.push(line);
  if (T.log.length > LOG_LINES) {
    const gone = T.log.length - LOG_LINES;
    T.log.splice(0, gone);
    T.logDropped += gone;
  }
}

function toast(r, text, T = null) {
  r.effects.push({ type: "toast", text, table_id: T ? T.id : null });
}

// The player leaves the table on screen for the lobby.
function goLobby(r) {
  const S = r.state;
  const T = S.tables.get(S.current);
  if (T && !keep(S, T)) { r.effects.push({ type: "send", msg: { type: "unwatch", table_id: T.id } }); S.tables.delete(T.id); }
  S.current = null;
  S.view = "lobby";
  r.effects.push({ type: "remember_table", table_id: null }, { type: "send", msg: { type: "list_tables" } }, { type: "wallet" });
}

function openTable(r, id) {
  const S = r.state;
  const prev = S.tables.get(S.current);
  // A spectator of another table stops receiving it.
  if (prev && prev.id !== id && !keep(S, prev)) {
    r.effects.push({ type: "send", msg: { type: "unwatch", table_id: prev.id } });
    S.tables.delete(prev.id);
  }
  S.current = id;
  r.effects.push({ type: "remember_table", table_id: id });
  const T = table(r, id);
  if (T && T.table) {
    T.alert = false;
    applyPreselect(r, T);
    S.view = "table";
  } else {
    r.effects.push({ type: "send", msg: { type: "watch", table_id: id } });
  }
}

// Sends the player's action at the table on screen; nothing is sent (and the player is
// told) while the connection is down.
function act(r, T, action) {
  if (!T || !T.decide) return;
  if (!r.state.online) { toast(r, "Not connected: your action was not sent."); return; }
  r.effects.push({ type: "send", msg: { type: "act", table_id: T.id, decision_id: T.decide.id, action } });
  T.decide = null;
  T.alert = false;
}

// Pre-selected actions are held until the turn and re-validated then (R2).
function applyPreselect(r, T) {
  const pre = T.pre;
  if (!pre || !T.decide || T.decide.kind !== "bet" || T.id !== r.state.current || !r.state.online) return false;
  const l = T.decide.legal;
  T.pre = null;
  if (pre === "check_fold") { act(r, T, l.check ? { type: "check" } : { type: "fold" }); return true; }
  if (pre === "check" && l.check) { act(r, T, { type: "check" }); return true; }
  if (pre === "call_any") { act(r, T, l.call !== null ? { type: "call" } : { type: "check" }); return true; }
  return false;
}

function yourTurn(r, T) {
  const name = tableName(T, "a table");
  const l = T.decide.legal;
  const k = T.decide.kind;
  const what = k === "draw" ? "choose your discards" : k === "run_twice" ? "run it twice?" : k === "show" ? "show or muck?" :
    l.call !== null ? "call " + l.call + (l.bet_or_raise ? " or raise" : "") + ", or fold" : l.check ? "check" + (l.bet_or_raise ? " or bet" : "") : "act";
  r.effects.push({ type: "announce", text: "Your turn at " + name + ": " + what + "." }, { type: "beep", freq: 660, secs: 0.12 });
  if (T.id !== r.state.current) {
    T.alert = true;
    toast(r, "Your turn at " + name, T);
  }
  r.effects.push({ type: "notify", title: "Your turn at " + name, body: what, table_id: T.id }, { type: "your_turn", table_id: T.id });
}

// The seeds (docs/fairness.md): a seated player, or one who just sent `sit`, commits to a
// seed for each new next deck (`seed_commit`: main.js makes or finds the seed, keeps it,
// and feeds its commitment back, `ui_seed_commitment`, which is then sent); once the
// table's closed list (`seeds_closed`) holds that commitment, the page reveals the seed,
// once (`seed_reveal`: main.js keeps the list's digest, then sends the seed). `T.seed` is
// `{ hand_id, deck, commitment, list, revealed, resend }`: `commitment` once worked out,
// `list` once closed, `resend` after the connection dropped (what was sent may be lost:
// the snapshot that resyncs the table starts again). `again` (after `sit`: a sit refused
// and sent again commits again) starts again, with the same seed, unless the list already
// closed; `closed` is a snapshot's closed list.
function commitSeed(r, T, { again = false, closed = null } = {}) {
  const d = T.nextDeck;
  if (!d) return;
  const s = T.seed;
  if (s && s.hand_id === d.hand_id && !s.resend && !(again && !s.list)) {
    if (closed) closeSeeds(r, T, d.hand_id, closed);
    return;
  }
  T.seed = { hand_id: d.hand_id, deck: d.commitment, commitment: null, list: closed, revealed: false, resend: false };
  r.effects.push({ type: "seed_commit", table_id: T.id, hand_id: d.hand_id, deck: d.commitment });
}

// The closed list of a hand's seed commitments: the seed is revealed if it holds ours.
function closeSeeds(r, T, handId, list) {
  const s = T.seed;
  if (!s || s.hand_id !== handId) return;
  s.list = list;
  revealSeed(r, T);
}

function revealSeed(r, T) {
  const s = T.seed;
  if (!s.commitment || !s.list || s.revealed || !s.list.some((e) => e.commitment === s.commitment)) return;
  s.revealed = true;
  r.effects.push({ type: "seed_reveal", table_id: T.id, hand_id: s.hand_id, deck: s.deck, list: s.list });
}

// Busted after a hand at the table on screen: offer a rebuy once per hand.
function maybeRebuy(r, T) {
  const S = r.state;
  if (T.id !== S.current || !T.hand || !T.hand.ended || T.rebuyFor === T.hand.number) return;
  const me = T.table.seats.find((x) => S.me && x.player_id === S.me.player_id);
  if (!me || me.stack > 0 || me.pending_top_up > 0 || me.leaving) return;
  T.rebuyFor = T.hand.number;
  r.effects.push({ type: "top_up", rebuy: true });
}

const HANDLERS = {
  welcome(r, m) {
    const S = r.state;
    S.me = { player_id: m.player_id, name: m.name };
    S.online = true;
    r.effects.push({ type: "settings" }, { type: "send", msg: { type: "list_tables" } });
    // Seated tables come as snapshots by themselves; a watched one is asked again.
    if (S.current) r.effects.push({ type: "send", msg: { type: "watch", table_id: S.current } });
    else S.view = "lobby";
    r.effects.push({ type: "wallet" });
  },
  error(r, m) {
    if (m.code === "unauthenticated") { r.effects.push({ type: "logout", message: "Please log in again." }); return; }
    if (m.code === "seed_refused") {
      // A commitment or seed for a hand dealt without it ("hand … is not the next hand"):
      // the seed is forgotten (nothing to show). Other refusals (a repeat after a reload,
      // a commitment after the list closed; they name their hand too) leave it kept: a
      // seed never revealed is checked as such.
      if (!/ is not the next hand/.test(m.message)) return;
      const hand = (m.message.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/) || [])[0];
      if (!hand) return;
      r.effects.push({ type: "forget_seed", hand_id: hand });
      for (const [id, T] of r.state.tables) if (T.seed && T.seed.hand_id === hand) table(r, id).seed = null;
      return;
    }
    toast(r, m.message);
  },
  tables(r, m) {
    r.state.lobby = new Map(m.tables.map((t) => [t.table_id, t]));
  },
  table_update(r, m) {
    r.state.lobby = new Map(r.state.lobby);
    if (m.table.status === "closed") r.state.lobby.delete(m.table.table_id);
    else r.state.lobby.set(m.table.table_id, m.table);
  },
  snapshot(r, m, id) {
    const S = r.state;
    if (!S.tables.has(id)) S.tables.set(id, newTable(id));
    const T = table(r, id);
    const seated = m.table.seats.some((x) => S.me && x.player_id === S.me.player_id);
    // A table the player neither sits at, waits for, nor looks at is not kept.
    if (!seated && !T.waitPlace && id !== S.current) { S.tables.delete(id); return; }
    T.table = m.table;
    T.hand = null;
    if (m.hand) {
      const n = m.hand.hand_number;
      // A snapshot of a hand already in the log (a reload, a second snapshot after
      // sitting down or joining the waiting list) replaces its lines, never repeats them.
      const had = T.log.some((l) => l.hand === n);
      T.log = T.log.filter((l) => l.hand !== n);
      T.logEdits++;
      T.hand = newHand(m.hand);
      log(T, handTitle(T, n) + (had ? "" : " (joined)"), n, "hand-start");
      for (const e of m.hand.events) {
        const line = applyEvent(T.hand, e, logCtx(S, T));
        if (line) log(T, line, n);
      }
    }
    T.chat = (m.chat || []).slice();
    T.decide = m.decide ? { id: m.decide.decision_id, kind: DECIDE_KIND[m.decide.type], legal: m.decide.legal || null } : null;
    T.clock = m.clock ? clockOf(m.clock, m.table, m.at) : null;
    // The server mucks beaten hands unless told to ask (per seat, so told on each join).
    if (seated && !S.settings.autoMuck) r.effects.push({ type: "send", msg: { type: "auto_muck", table_id: id, on: false } });
    if (m.next_deck) {
      T.nextDeck = m.next_deck;
      if (seated) commitSeed(r, T, { closed: m.seeds_closed || null });
    }
    if (id === S.current) { S.view = "table"; r.effects.push({ type: "remember_table", table_id: id }); }
    if (T.decide && id !== S.current) T.alert = true;
  },
  seats(r, m, id) {
    const S = r.state;
    const T = table(r, id);
    if (!T) return;
    T.table = m.table;
    if (T.hand && T.hand.ended) {
      // After the hand, the seats are the truth (top-ups included).
      for (const p of T.hand.players) {
        const v = m.table.seats.find((x) => x.seat === p.seat);
        if (v) p.stack = v.stack;
      }
    }
    if (!keep(S, T) && T.id !== S.current) { S.tables.delete(T.id); return; }
    maybeRebuy(r, T);
  },
  event(r, m, id) {
    const S = r.state;
    const T = table(r, id);
    if (!T) return;
    if (!T.hand || T.hand.number !== m.hand_number) {
      // A new hand: its stacks come from the seats message sent just before it.
      const stacks = m.seats.map((seat) => {
        const x = T.table && T.table.seats.find((v) => v.seat === seat);
        return x ? x.stack : 0;
      });
      // The seats message just before the hand says its game and whether it is a bomb pot.
      const t = T.table || {};
      T.hand = newHand({
        hand_number: m.hand_number, seats: m.seats, starting_stacks: stacks, button: t.button === undefined ? null : t.button,
        game_kind: t.game_kind, structure: t.structure, bomb_pot: !!(t.bomb_pot && t.bomb_pot.now),
      });
      log(T, handTitle(T, m.hand_number), m.hand_number, "hand-start");
    }
    const line = applyEvent(T.hand, m.event, logCtx(S, T, m.hand_name));
    if (line) log(T, line, m.hand_number);
    const e = m.event;
    const p = e.player !== undefined ? T.hand.players[e.player] : null;
    if (p && p.seat === mySeat(S, T) && ACTED.includes(e.type)) { T.decide = null; T.alert = false; }
    if (ACTED.includes(e.type)) T.clock = null;
    if (e.type === "board_dealt" || e.type === "hole_dealt") r.effects.push({ type: "beep", freq: 520, secs: 0.04 });
    if (e.type === "hand_ended") { T.decide = null; T.clock = null; T.pre = null; T.alert = false; }
  },
  decide(r, m, id) {
    const T = table(r, id);
    if (!T) return;
    T.decide = { id: m.decision_id, kind: "bet", legal: m.legal };
    if (!applyPreselect(r, T)) yourTurn(r, T);
  },
  decide_draw(r, m, id) { decideOther(r, m, id); },
  decide_run_twice(r, m, id) { decideOther(r, m, id); },
  decide_show(r, m, id) { decideOther(r, m, id); },
  turn(r, m, id) {
    const T = table(r, id);
    if (T) T.clock = clockOf(m.clock, T.table, m.at);
  },
  clock_warning(r, m, id) {
    const T = r.state.tables.get(id);
    if (T) toast(r, tableName(T) + ": time is running out, " + Math.ceil(m.remaining_ms / 1000) + " s left", T);
    r.effects.push({ type: "beep", freq: 880, secs: 0.15 });
  },
  timed_out(r, m, id) {
    const T = r.state.tables.get(id);
    if (T && mySeat(r.state, T) === m.seat) toast(r, tableName(T) + ": " + (m.sat_out ? "you timed out and are sitting out." : "you timed out."), T);
  },
  done(r, m, id) {
    const S = r.state;
    const T = S.tables.get(id);
    const what = {
      sit: "Seated with " + m.amount,
      top_up: m.pending ? "Adding " + m.amount + " after this hand" : "Added " + m.amount,
      leave: m.pending ? "Leaving after this hand" : "Cashed out " + m.amount,
      sit_out: m.pending ? "Sitting out after this hand" : "Sitting out",
      sit_in: "Back in",
      straddle: "Straddle setting saved",
    }[m.request];
    if (m.request === "leave" && T && T.removedBy) {
      toast(r, T.removedBy + " removed you from " + tableName(T, "the game") + (m.pending
        ? ": your hand is folded, and your chips go back to your wallet when it ends."
        : ": " + m.amount + " chips are back in your wallet."), T);
    } else if (what) toast(r, (T && T.table && T.id !== S.current ? T.table.name + ": " : "") + what, T);
    if (m.request === "leave" && !m.pending) {
      S.tables.delete(id);
      if (id === S.current) goLobby(r);
    }
  },
  chat(r, m, id) {
    const S = r.state;
    const T = table(r, id);
    if (!T) return;
    T.chat.push(m.line);
    if (T.chat.length > 200) T.chat.shift();
    if ((S.pane !== "chat" || T.id !== S.current) && !S.settings.muted.includes(m.line.player_id)) T.unread++;
  },
  waitlist(r, m, id) {
    const T = table(r, id);
    if (!T) return;
    T.waitPlace = m.position;
    if (T.table) T.table = { ...T.table, waitlist: m.length };
  },
  seat_offered(r, m, id) {
    const T = r.state.tables.get(id);
    if (!T) return;
    toast(r, tableName(T) + ": seat " + (m.seat + 1) + " is yours for " + Math.round(m.expires_ms / 1000) + " s");
    r.effects.push({ type: "beep", freq: 660, secs: 0.2 });
    if (T.id !== r.state.current) openTable(r, T.id);
    r.effects.push({ type: "buy_in", seat: m.seat });
  },
  deck_committed(r, m, id) {
    const T = table(r, id);
    if (!T) return;
    T.nextDeck = m.commitment;
    if (mySeat(r.state, T) !== null) commitSeed(r, T);
  },
  seeds_closed(r, m, id) {
    const T = table(r, id);
    if (T) closeSeeds(r, T, m.hand_id, m.list);
  },
  deck_proof(r, m, id) {
    const T = r.state.tables.get(id);
    // The proofs of the cards this player saw: main.js compares the seed it remembers
    // and logs the outcome (`ui_log`, one line a hand: a second proof, after an
    // uncontested winner showed, replaces it); the history dialog checks the proofs.
    if (T) r.effects.push({ type: "proof", table_id: id, hand_number: m.hand_number, proof: m.proof, seat: mySeat(r.state, T) });
  },
  rabbit(r, m, id) {
    const T = table(r, id);
    if (!T) return;
    T.rabbit = { hand: m.hand_number, cards: m.cards };
    log(T, "Rabbit hunt: " + m.cards.join(" ") + " (not dealt)", m.hand_number);
  },
  chat_switched(r, m, id) {
    const T = table(r, id);
    if (!T) return;
    T.table = { ...T.table, chat: m.enabled };
    T.chat.push({ off: m.enabled ? "The chat is on again." : "An operator turned the chat off." });
  },
  ledger(r, m, id) {
    // A private game's ledger: shown when this page asked for it, and when the game ends
    // (its last one comes just before `table_closed`, every seat cashed out).
    const P = priv(r);
    const T = r.state.tables.get(id);
    P.ledger = { table_id: id, name: tableName(T, "The game"), lines: m.lines, rake: m.rake, final: false };
    if (P.ledgerAsked === id) {
      P.ledgerAsked = null;
      r.effects.push({ type: "show_ledger" });
    }
  },
  seat_released(r, m, id) {
    // Away longer than the room keeps a seat: cashed out, and off the table.
    const S = r.state;
    const T = S.tables.get(id);
    const minutes = Math.max(1, Math.round(m.away_secs / 60));
    // Told on coming back (after the welcome): the message names the table.
    const name = m.table_name || tableName(T, "a table");
    toast(r, "You were away from " + name + " for " + (minutes === 1 ? "a minute" : minutes + " minutes") +
      ": your seat was released and " + m.amount + " chips are back in your wallet.", T);
    if (!T) return;
    S.tables.delete(id);
    if (id === S.current) goLobby(r);
  },
  stack_adjusted(r, m, id) {
    // The host of a play-money game changed a stack between hands: a line in the log for
    // everyone, a word for the player (the new stack comes with `seats`).
    const T = table(r, id);
    if (!T) return;
    const line = adjustedLine(m);
    log(T, line, T.hand ? T.hand.number : null, "host-note");
    if (r.state.me && m.player_id === r.state.me.player_id) toast(r, line, T);
  },
  removed(r, m, id) {
    // The host's doing, not the player's: said with the cash-out that follows.
    const T = table(r, id);
    if (T) T.removedBy = m.host_name;
  },
  table_closed(r, m, id) {
    const S = r.state;
    const T = S.tables.get(id);
    if (!T) return;
    if (S.private.ledger && S.private.ledger.table_id === id) {
      // The game's settle-up: its ledger once everyone was cashed out.
      priv(r).ledger = { ...S.private.ledger, final: true };
      r.effects.push({ type: "show_ledger" });
    }
    toast(r, tableName(T, "The table") + " was closed; your chips are back in your wallet.");
    S.tables.delete(id);
    if (id === S.current) goLobby(r);
  },
  table_failed(r, m, id) {
    // The hand in progress is void and nothing more is dealt: leaving cashes out.
    const T = table(r, id);
    if (T) T.decide = null;
    toast(r, "This table stopped on a server fault: " + m.message);
  },

  // ------------------------------------------------------------ local messages

  ui_focus(r, m) { focus(r, m.table_id); },
  ui_open_table(r, m) { openTable(r, m.table_id); },
  ui_lobby(r) { goLobby(r); },
  ui_act(r, m) { act(r, table(r, r.state.current), m.action); },
  ui_show_hand(r) {
    // The winner of a hand nobody called may show it, once, until the next hand.
    const T = table(r, r.state.current);
    if (!T || !canShowHand(r.state, T) || !r.state.online) return;
    T.showSent = T.hand.number;
    r.effects.push({ type: "send", msg: { type: "show_hand", table_id: T.id } });
  },
  ui_pane(r, m) {
    r.state.pane = m.pane;
    const T = table(r, r.state.current);
    if (T && m.pane === "chat") T.unread = 0;
  },
  ui_preselect(r, m) {
    const T = table(r, r.state.current);
    if (T) T.pre = m.pre || null;
  },
  ui_discard(r, m) {
    const T = table(r, r.state.current);
    if (!T) return;
    T.discards = T.discards.includes(m.card) ? T.discards.filter((c) => c !== m.card) : T.discards.concat([m.card]);
  },
  ui_settings(r, m) { r.state.settings = m.settings; },
  ui_wallet(r, m) { r.state.wallet = m.wallet; },
  ui_log(r, m) {
    const T = table(r, m.table_id);
    if (T) log(T, m.text, m.hand_number, null, m.key);
  },
  ui_sit(r, m) {
    // The sit carried the commitment (`committed`: main.js kept the seed), taken before
    // the seat: the hand the sit may start has this player's seed. Without a next deck
    // known, the page commits once one comes.
    const T = table(r, m.table_id);
    if (!T) return;
    const d = T.nextDeck;
    if (m.committed && d && m.committed.hand_id === d.hand_id) {
      T.seed = { hand_id: d.hand_id, deck: d.commitment, commitment: m.committed.commitment, list: null, revealed: false, resend: false };
    } else {
      commitSeed(r, T, { again: true });
    }
  },
  ui_seed_commitment(r, m) {
    const T = table(r, m.table_id);
    const s = T && T.seed;
    if (!s || s.hand_id !== m.hand_id) return;
    s.commitment = m.commitment;
    // A list already closed (a snapshot after a reload): too late to commit; revealed if
    // the list holds this seed's commitment.
    if (s.list) revealSeed(r, T);
    else r.effects.push({ type: "send", msg: { type: "seed_commit", table_id: T.id, hand_id: s.hand_id, commitment: s.commitment } });
  },
  ui_logout(r) {
    // The lobby and what the tab knows of private games stay (an invite opened before
    // logging in is presented after).
    const { lobby, private: kept } = r.state;
    r.state = { ...initialState(), lobby, private: kept, view: "login" };
  },
  ui_private_made(r, m) {
    keepInvite(r, m.table_id, m.invite);
    r.state.private.hostSit = m.table_id;
    enterPrivate(r, m.table_id, m.invite);
  },
  ui_invite(r, m) {
    keepInvite(r, m.table_id, m.invite);
    r.state.private.pending = { table: m.table_id, invite: m.invite };
  },
  ui_present(r) { present(r); },
  ui_invite_drop(r) { r.state.private = { ...r.state.private, pending: null }; },
  ui_ledger(r) {
    // Asked of the private game on screen; shown when it answers.
    const id = r.state.current;
    const T = id && r.state.tables.get(id);
    if (!T || !T.table || !T.table.private || !r.state.online) return;
    priv(r).ledgerAsked = id;
    r.effects.push({ type: "send", msg: { type: "ledger", table_id: id } });
  },
  conn_down(r) {
    r.state.online = false;
    // What was sent about the seeds may be lost with the connection: sent again on the
    // snapshot that resyncs each table.
    for (const [id, T] of r.state.tables) if (T.seed) table(r, id).seed.resend = true;
  },
  conn_up(r) { r.state.online = true; },
};

// The table on screen from now on, asking nothing of the server.
function focus(r, id) {
  r.state.current = id;
  r.effects.push({ type: "remember_table", table_id: id });
}

// ------------------------------------------------------------ private games

// Private games read every message after its handler (the seats after a snapshot, a
// refusal): the page presents an invite once connected, and sits the player down by
// itself once let in (the host at the table just made).
function privateGames(r, m, id) {
  if (m.type === "welcome") present(r);
  if ((m.type === "snapshot" || m.type === "seats") && id) {
    sitIfLetIn(r, id);
    seatRequests(r, id);
  }
  if (m.type === "error" && m.code === "seat_refused") sitElsewhere(r);
  if (m.type === "error" && m.code === "private_refused") presentAgain(r);
}

// The state's private part, copied before this message changes it.
function priv(r) {
  r.state.private = { ...r.state.private };
  return r.state.private;
}

function keepInvite(r, table, invite) {
  const P = priv(r);
  P.invites = { ...P.invites, [table]: invite };
  r.effects.push({ type: "keep_invites", invites: P.invites });
}

/** Presents the invite and looks at the table (its snapshot opens it). */
function enterPrivate(r, table, invite) {
  focus(r, table);
  r.effects.push({ type: "send", msg: { type: "join_private", table_id: table, invite } });
}

// The invite waiting for the connection (or for the friend to ask), presented once.
function present(r) {
  const link = r.state.private.pending;
  if (!link) return;
  priv(r).pending = null;
  enterPrivate(r, link.table, link.invite);
}

/**
 * Sits the player down at private table `id` once: the host at the table just made, a
 * friend once let in, in the first free seat (see `freeSeat`) with the largest buy-in the
 * wallet allows.
 */
function sitIfLetIn(r, id) {
  const S = r.state;
  const T = S.tables.get(id);
  if (!T || !T.table || !T.table.private) return;
  const P = S.private;
  const me = S.me && S.me.player_id;
  const seat = freeSeat(T.table, P.refused[id]);
  const letIn = myStanding(T.table, me) === "approved" && T.table.private.host !== me && !P.satAt.includes(id);
  if ((P.hostSit === id || letIn) && mySeat(S, T) === null && seat !== null) {
    const wallet = S.wallet ? S.wallet.balance : T.table.max_buy_in;
    const buyIn = Math.max(T.table.min_buy_in, Math.min(T.table.max_buy_in, wallet));
    const Q = priv(r);
    Q.hostSit = null;
    if (!Q.satAt.includes(id)) Q.satAt = Q.satAt.concat([id]);
    Q.sitting = { table: id, seat };
    // main.js sends it with this page's commitment to its seed for the next deck.
    r.effects.push({ type: "sit", msg: { type: "sit", table_id: id, seat, buy_in: buyIn, post_now: true } });
  }
  const sitting = S.private.sitting;
  if (sitting && sitting.table === id && mySeat(S, T) !== null) priv(r).sitting = null;
}

// The host hears of each new seat request at once, even on another tab or table: a
// sound, a notification when the page is hidden, and a word on the notices line (the
// page's title counts the requests waiting: views.js `renderTitle`).
function seatRequests(r, id) {
  const S = r.state;
  const T = S.tables.get(id);
  const me = S.me && S.me.player_id;
  if (!T || !T.table || !T.table.private || T.table.private.host !== me) return;
  const asking = T.table.private.requests;
  const seen = S.private.asking[id] || [];
  const now = asking.map((q) => q.player_id);
  if (now.length === seen.length && now.every((p, i) => p === seen[i])) return;
  const P = priv(r);
  P.asking = { ...P.asking, [id]: now };
  for (const q of asking.filter((q) => !seen.includes(q.player_id))) {
    const text = q.name + " asks for a seat at " + T.table.name;
    r.effects.push({ type: "beep", freq: 660, secs: 0.25 });
    r.effects.push({ type: "notify", title: "Seat request", body: text, table_id: id });
    toast(r, text, T);
  }
}

// The seat went to someone else first (another friend let in at the same moment): sat
// again at the next free seat, now if the table shows one, else on its next update.
function sitElsewhere(r) {
  const sitting = r.state.private.sitting;
  if (!sitting) return;
  const { table, seat } = sitting;
  const P = priv(r);
  P.sitting = null;
  const refused = (P.refused[table] || []).concat([seat]);
  P.refused = { ...P.refused, [table]: refused };
  const T = r.state.tables.get(table);
  if (T && T.table && refused.length < T.table.seat_count) {
    P.satAt = P.satAt.filter((x) => x !== table);
    sitIfLetIn(r, table);
  }
}

// A private table this page looked at, refused on reconnecting (the server restarted and
// forgot who presented the invite): presented again once, or forgotten.
function presentAgain(r) {
  const S = r.state;
  if (!S.current || (S.tables.get(S.current) || {}).table) return;
  const invite = S.private.invites[S.current];
  if (invite && S.private.retried !== S.current) {
    priv(r).retried = S.current;
    r.effects.push({ type: "send", msg: { type: "join_private", table_id: S.current, invite } });
  } else {
    focus(r, null);
  }
}

function decideOther(r, m, id) {
  const T = table(r, id);
  if (!T) return;
  T.decide = { id: m.decision_id, kind: DECIDE_KIND[m.type], legal: null };
  T.discards = [];
  yourTurn(r, T);
}

/**
 * Whether the player may show the hand just ended at `T`: they won it without a
 * showdown (everyone else folded) and have not shown it or asked to.
 */
export function canShowHand(S, T) {
  const h = T && T.hand;
  const me = myPlayer(S, T);
  if (!h || !h.ended || !me || me.folded || me.shown || T.showSent === h.number) return false;
  return h.players.every((p) => p === me || p.folded) && me.cards.some((c) => c !== "??");
}

export { mySeat, myPlayer, inHand };
