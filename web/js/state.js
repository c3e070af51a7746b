// The client's pure state logic: cards, one hand rebuilt from the server's events, the
// hand log's lines, main and side pots, bet sizing and its labels per betting
// structure, seat layout, settings. No DOM and no network here, so `node --test
// web/test/` checks all of it.

export const SUITS = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };
const SUIT_NAMES = { s: "spades", h: "hearts", d: "diamonds", c: "clubs" };
const RANK_NAMES = {
  A: "Ace", K: "King", Q: "Queen", J: "Jack", T: "Ten", 9: "Nine", 8: "Eight", 7: "Seven",
  6: "Six", 5: "Five", 4: "Four", 3: "Three", 2: "Two",
};

export function splitCards(text) {
  const out = [];
  for (let i = 0; i + 1 < (text || "").length; i += 2) out.push(text.slice(i, i + 2));
  return out;
}

/** "Ace of spades", or "a face-down card". */
export function cardName(code) {
  if (!code || code === "??") return "a face-down card";
  return RANK_NAMES[code[0]] + " of " + SUIT_NAMES[code[1]];
}

const STUD_GAMES = ["stud", "stud_hi_lo", "razz"];
const DRAW_GAMES = ["deuce_to_seven_single_draw", "deuce_to_seven_triple_draw", "badugi"];

/**
 * The game family, `board`, `stud` or `draw`, of the protocol's typed game (`game_kind`
 * of a table view, a lobby line or a replay: `holdem`, `razz`, `badugi`...), or of an
 * object carrying it.
 */
export function family(game) {
  const kind = game && typeof game === "object" ? game.game_kind : game;
  if (STUD_GAMES.includes(kind)) return "stud";
  if (DRAW_GAMES.includes(kind)) return "draw";
  return "board";
}

/** The seat of the player `S.me` at table state `T`, or null when not seated there. */
export function mySeat(S, T) {
  if (!T || !T.table || !S.me) return null;
  const s = T.table.seats.find((x) => x.player_id === S.me.player_id);
  return s ? s.seat : null;
}

/** The player's own entry in the hand in progress at `T`, or null. */
export function myPlayer(S, T) {
  if (!T || !T.hand) return null;
  const seat = mySeat(S, T);
  return seat === null ? null : T.hand.players.find((p) => p.seat === seat) || null;
}

/** Whether the player still has cards in a hand in progress at `T`. */
export function inHand(S, T) {
  const me = myPlayer(S, T);
  return !!me && !T.hand.ended && !me.folded;
}

// ---------------------------------------------------------------- one hand

/** A hand as it starts: `view` is the protocol's HandView (or the same fields). */
export function newHand(view) {
  const players = view.seats.map((seat, i) => ({
    seat, stack: view.starting_stacks[i], bet: 0, committed: 0, folded: false,
    allIn: false, cards: [], up: [], shown: false, handName: "", last: "", won: 0,
  }));
  return {
    number: view.hand_number, seats: view.seats, button: view.button, players,
    board: [], board2: null, pot: 0, ended: false, rake: 0, street: 0, bringIn: false,
    completed: false, results: [],
    // The hand's own game (a dealer's choice table changes game between hands), and
    // whether it is a bomb pot (docs/house-games.md, H1).
    game_kind: view.game_kind || null, structure: view.structure || null, bomb_pot: !!view.bomb_pot,
  };
}

/**
 * The game a table's page draws now: the hand's while one is shown (its cards, draws and
 * betting controls are its game's), else the table's. `{ game_kind, structure }`.
 */
export function gameOf(T) {
  const h = T && T.hand;
  const t = (T && T.table) || {};
  return {
    game_kind: (h && h.game_kind) || t.game_kind,
    structure: (h && h.structure) || t.structure,
  };
}

const STUD_STREETS = ["3rd Street", "4th Street", "5th Street", "6th Street", "7th Street"];
const DRAW_ROUNDS = ["First draw", "Second draw", "Third draw"];

function list(names) {
  return names.length <= 1 ? names.join("") : names.slice(0, -1).join(", ") + " and " + names[names.length - 1];
}

/**
 * Applies one event to the hand and returns its line for the hand log (or "" for none).
 * `ctx`: { name(seat) -> string, me: my seat or null, blinds: [small, big], family
 * (`board`, `stud` or `draw`, see `family`), handName: the server's name of a shown hand }.
 */
export function applyEvent(h, e, ctx = {}) {
  const p = e.player !== undefined ? h.players[e.player] : null;
  const who = p ? (ctx.me === p.seat ? "You" : (ctx.name ? ctx.name(p.seat) : "Seat " + (p.seat + 1))) : "";
  const fam = ctx.family || "board";
  switch (e.type) {
    case "ante_posted":
      p.stack -= e.amount; p.committed += e.amount; h.pot += e.amount; p.last = "Ante " + e.amount;
      return who + " post" + s(who) + " an ante of " + e.amount;
    case "blind_posted": {
      p.stack -= e.amount; p.bet += e.amount; p.committed += e.amount;
      if (p.stack === 0) p.allIn = true;
      const [sb, bb] = ctx.blinds || [0, 0];
      const kind = e.amount === sb && sb !== bb ? "the small blind" : e.amount === bb ? "the big blind" :
        ctx.straddle && e.amount === 2 * bb ? "a straddle" : "a blind";
      p.last = (kind === "a straddle" ? "Straddle " : "Blind ") + e.amount;
      return who + " post" + s(who) + " " + kind + " of " + e.amount + (p.allIn ? ", all in" : "");
    }
    case "bring_in_posted":
      p.stack -= e.amount; p.bet += e.amount; p.committed += e.amount; h.bringIn = true;
      if (p.stack === 0) p.allIn = true;
      p.last = "Bring-in " + e.amount;
      return who + " bring" + s(who) + " in for " + e.amount;
    case "hole_dealt": {
      const cards = splitCards(e.cards);
      cards.forEach((c, i) => { p.cards.push(c); p.up.push(((e.up || 0) >> i & 1) === 1); });
      const known = cards.filter((c) => c !== "??");
      if (ctx.me === p.seat && known.length) return "Dealt to you: " + known.join(" ");
      return "";
    }
    case "discarded": {
      const gone = splitCards(e.cards);
      for (const c of gone) {
        const i = c === "??" ? p.cards.length - 1 : p.cards.indexOf(c);
        if (i >= 0) { p.cards.splice(i, 1); p.up.splice(i, 1); }
      }
      p.last = gone.length ? "Draws " + gone.length : "Stands pat";
      if (!gone.length) return who + " stand" + s(who) + " pat";
      return who + " draw" + s(who) + " " + gone.length + (gone[0] !== "??" ? " (throwing " + gone.join(" ") + ")" : "");
    }
    case "board_dealt": {
      h.board = h.board.concat(splitCards(e.cards));
      const name = { 3: "Flop", 4: "Turn", 5: "River" }[h.board.length] || "Board";
      return name + ": " + h.board.join(" ");
    }
    case "round_started":
      h.street = e.street;
      if (e.street > 0) for (const q of h.players) if (!q.folded && !q.allIn) q.last = "";
      if (fam === "stud") return "\u2014 " + (STUD_STREETS[e.street] || "Street " + (e.street + 3)) + " \u2014";
      if (fam === "draw" && e.street > 0) return "\u2014 After the " + (DRAW_ROUNDS[e.street - 1] || "draw").toLowerCase() + " \u2014";
      return "";
    case "folded": p.folded = true; p.last = "Fold"; return who + " fold" + s(who);
    case "checked": p.last = "Check"; return who + " check" + s(who);
    case "called":
      p.stack -= e.amount; p.bet += e.amount; p.committed += e.amount; p.allIn = e.all_in;
      p.last = e.all_in ? "Call, all in" : "Call";
      return who + " call" + s(who) + " " + e.amount + (e.all_in ? ", all in" : "");
    case "bet_to": {
      const raising = h.players.some((q) => q !== p && q.bet > 0);
      const completing = completes(h);
      h.completed = true;
      p.stack -= e.amount; p.bet = e.to; p.committed += e.amount; p.allIn = e.all_in;
      const verb = completing ? "Complete to " : raising ? "Raise to " : "Bet ";
      p.last = verb + e.to + (e.all_in ? ", all in" : "");
      const v = completing ? " complete" + s(who) + " to " : raising ? " raise" + s(who) + " to " : " bet" + s(who) + " ";
      return who + v + e.to + (e.all_in ? ", all in" : "");
    }
    case "uncalled_returned":
      p.stack += e.amount; p.bet -= e.amount; p.committed -= e.amount;
      return "Uncalled bet of " + e.amount + " returned to " + (who === "You" ? "you" : who);
    case "bets_collected":
      for (const q of h.players) q.bet = 0;
      h.pot = e.pot;
      return "";
    case "shown":
      p.cards = splitCards(e.cards); p.up = p.cards.map(() => true); p.shown = true;
      p.handName = spokenHand(ctx.handName);
      return who + " show" + s(who) + " " + p.cards.join(" ") + (p.handName ? " (" + p.handName + ")" : "");
    case "mucked": p.last = "Muck"; return who + " muck" + s(who);
    case "run_it_twice_answered":
      return who + (e.agree ? " agree" + s(who) + " to run it twice" : " decline" + s(who) + " to run it twice");
    case "running_twice": h.board2 = h.board.slice(); return "Running it twice";
    case "second_board_dealt":
      h.board2 = (h.board2 || []).concat(splitCards(e.cards));
      return "Second board: " + h.board2.join(" ");
    case "raked": h.rake += e.amount; h.pot -= e.amount; return "Rake " + e.amount;
    case "pot_awarded": {
      const names = [];
      for (const [i, amount] of e.winners) {
        const q = h.players[i];
        q.stack += amount; q.won += amount;
        names.push([ctx.me === q.seat ? "You" : ctx.name ? ctx.name(q.seat) : "Seat " + (q.seat + 1), amount]);
      }
      h.pot -= e.amount;
      const pot = (e.pot === 0 ? "the main pot" : "side pot " + e.pot) + (e.share === "high" ? " (high)" : e.share === "low" ? " (low)" : "");
      const run = h.board2 ? (e.run === 1 ? " on the second run" : " on the first run") : "";
      h.results.push({ pot: e.pot, run: e.run || 0, share: e.share, amount: e.amount, winners: e.winners });
      if (names.length === 1) return names[0][0] + " win" + s(names[0][0]) + " " + names[0][1] + " from " + pot + run;
      const lower = (n, i) => (i > 0 && n === "You" ? "you" : n);
      return list(names.map(([n], i) => lower(n, i))) + " split " + pot + run + " (" + e.amount + "): " + names.map(([n, a], i) => lower(n, i) + " " + a).join(", ");
    }
    case "hand_ended":
      e.stacks.forEach((st, i) => { h.players[i].stack = st; h.players[i].bet = 0; });
      h.ended = true;
      return "";
  }
  return "";
}

/**
 * A shown hand's name as players say it: the server's lows (`Lo: 8,5,4,3,2`, the hand
 * history's words) read `8-5 low` (its two highest cards), `7-5 low` for the best 2-7
 * hand ("number one"); a lowball hand spoiled by a pair, straight or flush is said by
 * that name (`Lo: a pair of Sevens` reads `a pair of Sevens`); other names are kept.
 */
export function spokenHand(name) {
  return (name || "").replace(/\bLo: (?=[a-z])/g, "").replace(/\b(Lo|LO): ([2-9TJQKA](?:,[2-9TJQKA]){4})/g, (_, lo, list) => {
    const r = list.split(",").map((c) => (c === "T" ? "10" : c));
    const words = r[0] + "-" + r[1] + " low";
    const label = lo === "LO" ? "LO: " : "";
    return label + (list === "7,5,4,3,2" ? words + " (number one)" : words);
  });
}

function s(who) {
  return who === "You" ? "" : "s";
}

/** Main and side pots from what each player put in (R27). */
export function potsOf(h) {
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
  const sum = pots.reduce((a, b) => a + b, 0);
  if (sum !== total && pots.length) pots[0] += total - sum;
  return pots.filter((x) => x > 0);
}

// ---------------------------------------------------------------- bet sizing

function roundTo(x, unit) {
  return unit > 1 ? Math.round(x / unit) * unit : Math.round(x);
}

/**
 * What the bet/raise controls show for a decision. `ctx`: { structure, myBet, myStack,
 * pot (everything in the middle and in front of players) }. Returns { min, max, allIn,
 * fixed (one amount only: no slider), presets: [{ key, label, to }] }.
 */
export function sizing(legal, ctx) {
  const [min, max] = legal.bet_or_raise;
  const unit = legal.unit || 1;
  const allIn = ctx.myBet + ctx.myStack;
  const fixed = min === max;
  const presets = [];
  if (!fixed) {
    const call = legal.call || 0;
    const current = ctx.myBet + call;
    const potAfterCall = ctx.pot + call;
    const clamp = (x) => Math.max(min, Math.min(max, roundTo(x, unit)));
    presets.push({ key: "min", label: "Min", to: min });
    if (ctx.structure === "no_limit" || ctx.structure === "pot_limit") {
      presets.push({ key: "half", label: "\u00bd Pot", to: clamp(current + potAfterCall / 2) });
      presets.push({ key: "pot", label: "Pot", to: clamp(current + potAfterCall) });
    }
    presets.push({ key: "max", label: max === allIn ? "All in" : "Max", to: max });
  }
  // Two presets of one amount: keep the later ("All in" over "Pot"), but in pot limit
  // the pot is the maximum, and it says so.
  const out = presets.filter((p, i) => !presets.slice(i + 1).some((q) => q.to === p.to));
  if (ctx.structure === "pot_limit") {
    const last = out[out.length - 1];
    if (last && last.key === "max" && last.to !== allIn) last.label = "Pot";
  }
  return { min, max, allIn, fixed, presets: out };
}

/** The amount typed, made legal: within the range and on the betting unit. */
export function legalAmount(legal, typed) {
  const [min, max] = legal.bet_or_raise;
  let v = parseInt(typed, 10);
  if (!Number.isFinite(v)) v = min;
  v = Math.max(min, Math.min(max, v));
  if (v !== max) v = Math.max(min, roundTo(v, legal.unit || 1));
  return v;
}

/**
 * Whether a bet now completes the bring-in: only on the street it was posted (stud's 3rd
 * street), and only the first bet there. Nobody completed on 3rd street: 4th street's
 * first bet is a bet (R11, R12).
 */
export function completes(h) {
  return !!h && h.bringIn && !h.completed && h.street === 0;
}

/** The bet button's words: "Bet 2", "Raise to 8", "Complete to 4", "(all in)". */
export function raiseLabel(to, { facing, completing, allIn }) {
  const verb = completing ? "Complete to " : facing ? "Raise to " : "Bet ";
  return verb + to + (to === allIn ? " (all in)" : "");
}

/** The call button's words. */
export function callLabel(legal, myStack) {
  return "Call " + legal.call + (legal.call >= myStack ? " (all in)" : "");
}

// ---------------------------------------------------------------- layout

/**
 * Where seat `index` of `count` sits, in percent of the felt: the player's own seat at
 * the bottom, the others clockwise, spaced evenly along the oval as drawn. `aspect` is
 * the felt's width over its height in pixels: equal angles on a wide oval would crowd
 * the seats at its two ends (two of six a few centimetres apart, the top and bottom
 * empty), so the seats are placed at equal distances along its rim instead. A portrait
 * felt (phones) is taller than wide.
 */
export function seatPosition(index, count, mine, portrait = false, aspect = portrait ? 0.6 : 2.3) {
  const offset = mine === null || mine === undefined ? 0 : mine;
  const k = (index - offset + count) % count;
  const rx = portrait ? 40 : 46;
  const ry = portrait ? 45 : 47;
  const at = (t) => ({ left: 50 + rx * Math.cos(t), top: 50 + ry * Math.sin(t) });
  // The rim's length in pixels (the felt `aspect` wide and 1 high), from the bottom.
  const STEPS = 720;
  const lengths = [0];
  for (let i = 1; i <= STEPS; i++) {
    const a = at(Math.PI / 2 + (2 * Math.PI * (i - 1)) / STEPS), b = at(Math.PI / 2 + (2 * Math.PI * i) / STEPS);
    lengths.push(lengths[i - 1] + Math.hypot((b.left - a.left) * aspect, b.top - a.top));
  }
  const want = (lengths[STEPS] * k) / count;
  let i = 0;
  while (i < STEPS && lengths[i + 1] < want) i++;
  const f = lengths[i + 1] > lengths[i] ? (want - lengths[i]) / (lengths[i + 1] - lengths[i]) : 0;
  return at(Math.PI / 2 + (2 * Math.PI * (i + f)) / STEPS);
}

// ---------------------------------------------------------------- settings

export const DEFAULT_SETTINGS = Object.freeze({
  fourColor: false, sound: false, animations: true, notify: false, autoMuck: true, muted: [],
});

/** A player's saved settings (unknown keys dropped, missing ones defaulted). */
export function loadSettings(storage, playerId) {
  let saved = {};
  try { saved = JSON.parse(storage.getItem("pokerd.settings." + playerId) || "{}") || {}; } catch (_) { saved = {}; }
  const out = { ...DEFAULT_SETTINGS, muted: [] };
  for (const k of Object.keys(DEFAULT_SETTINGS)) {
    if (k === "muted") { if (Array.isArray(saved.muted)) out.muted = saved.muted.filter((x) => typeof x === "string"); }
    else if (typeof saved[k] === typeof DEFAULT_SETTINGS[k]) out[k] = saved[k];
  }
  return out;
}

export function saveSettings(storage, playerId, settings) {
  storage.setItem("pokerd.settings." + playerId, JSON.stringify(settings));
}

// ---------------------------------------------------------------- accessibility

/** WCAG contrast ratio of two `#rrggbb` colours. */
export function contrast(a, b) {
  const lum = (hex) => {
    const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
      .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

/**
 * The replayer: a hand from `/api/me/hands/{id}?format=replay` played up to `step` events
 * (0: as dealt, before any event; `replay.events.length`: the end). Returns the hand as
 * `applyEvent` builds it and the log lines so far (the last one is what `step` did).
 */
export function replayTo(replay, step) {
  const h = newHand(replay);
  const me = replay.me === null || replay.me === undefined ? null : replay.seats[replay.me];
  const ctx = {
    me,
    name: (seat) => replay.names[replay.seats.indexOf(seat)] || "Seat " + (seat + 1),
    blinds: replay.blinds || [0, 0],
    family: family(replay.game_kind),
    straddle: !!replay.straddle,
  };
  const lines = [];
  const n = Math.max(0, Math.min(step, replay.events.length));
  for (let i = 0; i < n; i++) {
    const line = applyEvent(h, replay.events[i], ctx);
    if (line) lines.push(line);
  }
  return { hand: h, lines, step: n, last: n === replay.events.length };
}

/**
 * The replayer's stops: 0 (as dealt), then after each event that says something in the
 * log (a post, an action, a card, a result), and the end.
 */
export function replaySteps(replay) {
  const stops = [0];
  const all = replayTo(replay, replay.events.length);
  let count = 0;
  const h = newHand(replay);
  const ctx = { name: () => "", blinds: replay.blinds || [0, 0], family: family(replay.game_kind), straddle: !!replay.straddle };
  replay.events.forEach((e, i) => {
    if (applyEvent(h, e, ctx)) { count++; stops.push(i + 1); }
  });
  if (stops[stops.length - 1] !== all.step) stops.push(all.step);
  return stops;
}
