// The console's form for a new table, as pure logic (no DOM; tested under node in
// web/test/table_form.test.mjs): every rule of a table as a field with what it means
// (with the rule ids R1..R38 of docs/rules-engine.md where a rule text decides it), a
// preset's body read into the fields' values, the values written back into a body (what
// the form does not show is kept from the body it started from), and the checks the
// server makes (crates/poker-server/src/http/admin/tables.rs: the table's and a probe
// hand's validation), each problem on the field it concerns, with the server's words.

/// The most chips any amount may be (the engine's MAX_CHIPS, 2^53).
export const MAX_CHIPS = 2 ** 53;
/// The longest any clock setting may be, in milliseconds: a day
/// (crates/poker-server/src/http/admin/tables.rs, MAX_CLOCK_MS).
export const MAX_CLOCK_MS = 24 * 60 * 60 * 1000;
/// The longest table name, in characters (poker_store::names::TABLE_NAME_MAX).
export const TABLE_NAME_MAX = 64;

const STUD = ["stud", "stud_hi_lo", "razz"];
const BOARD = ["holdem", "short_deck_holdem", "omaha", "omaha_hi_lo"];

/// The most players each game deals from one deck (poker_rules::Game::max_players): a
/// table with more seats than that would stall once full, and the server refuses it.
const MAX_PLAYERS = {
  stud: 7, stud_hi_lo: 7, razz: 7,
  deuce_to_seven_single_draw: 8, deuce_to_seven_triple_draw: 8, badugi: 8,
};
/// The games as the server's refusals name them.
const WORDS = {
  holdem: "hold'em", short_deck_holdem: "short-deck hold'em", omaha: "Omaha", omaha_hi_lo: "Omaha hi/lo",
  stud: "seven-card stud", stud_hi_lo: "seven-card stud hi/lo", razz: "razz",
  deuce_to_seven_single_draw: "2-7 single draw", deuce_to_seven_triple_draw: "2-7 triple draw", badugi: "badugi",
};

/// The most seats a table of this game may have: 10, or fewer where one deck deals fewer.
export const maxSeats = (game) => Math.min(10, MAX_PLAYERS[game] || 10);

/// Whether the game opens with blinds (by position), not a bring-in (stud games).
export const blindGame = (game) => !STUD.includes(game);
const limitGame = (structure) => structure === "fixed_limit" || structure === "spread_limit";

const GAMES = [
  ["holdem", "Texas Hold'em"], ["short_deck_holdem", "Short deck Hold'em"], ["omaha", "Omaha"],
  ["omaha_hi_lo", "Omaha hi/lo"], ["stud", "Seven card stud"], ["stud_hi_lo", "Stud hi/lo"],
  ["razz", "Razz"], ["deuce_to_seven_single_draw", "2-7 single draw"],
  ["deuce_to_seven_triple_draw", "2-7 triple draw"], ["badugi", "Badugi"],
];

/// Every field of the form, in groups. `id` is the field's dotted path in the body (the
/// same path the server's problems name); `shown(v)` says when it applies to the values
/// `v`; `unit` scales what is typed into what is stored (minutes and seconds).
export const GROUPS = [
  { title: "The table", fields: [
    { id: "name", label: "Name", kind: "text", help: `What players see in the lobby: 1 to ${TABLE_NAME_MAX} characters, not an id.` },
    { id: "rules.seat_count", label: "Seats", kind: "number", min: 2, max: 10, help: "2 to 10 seats around the table; at most 7 in stud games and 8 in draw games, the players one deck deals." },
  ] },
  { title: "Game and stakes", fields: [
    { id: "rules.game", label: "Game", kind: "select", options: GAMES, help: "The game dealt. Seven card stud, stud hi/lo and razz open with a bring-in (R12); the others with blinds (R10)." },
    { id: "rules.structure", label: "Betting structure", kind: "select",
      options: [["no_limit", "No limit"], ["pot_limit", "Pot limit"], ["fixed_limit", "Fixed limit"], ["spread_limit", "Spread limit"]],
      help: "No limit: any amount up to the stack (R23). Pot limit: at most the pot after calling (R22). Fixed limit: the small bet early, the big bet later, raises capped (R20). Spread limit: any amount within a range per street (R21)." },
    { id: "rules.stakes.min_bet", label: "Minimum bet", kind: "number", min: 1, shown: (v) => v["rules.structure"] === "no_limit" || v["rules.structure"] === "pot_limit",
      help: "The smallest bet, usually the big blind; the smallest raise is the last full bet or raise (R4)." },
    { id: "rules.stakes.small_bet", label: "Small bet", kind: "number", min: 1, shown: (v) => v["rules.structure"] === "fixed_limit", help: "Fixed limit: every bet and raise of the early streets (R20)." },
    { id: "rules.stakes.big_bet", label: "Big bet", kind: "number", min: 1, shown: (v) => v["rules.structure"] === "fixed_limit", help: "Fixed limit: every bet and raise of the later streets (R20)." },
    { id: "rules.stakes.bring_in", label: "Bring-in", kind: "number", min: 0, shown: (v) => !blindGame(v["rules.game"]) && v["rules.structure"] === "fixed_limit",
      help: "Stud: what the lowest upcard (highest in razz) must bring in; it may complete to the small bet instead (R11, R12)." },
    { id: "rules.options.spread", label: "Spread ranges", kind: "text", shown: (v) => v["rules.structure"] === "spread_limit",
      help: "Spread limit: the smallest and largest bet of each street, in order, as min-max separated by commas (\u201c1-5, 1-5, 1-5, 1-10\u201d: 1 to 5, 10 on the end); the last range serves later streets (R21)." },
    { id: "rules.max_raises", label: "Raise cap", kind: "number", min: 0, optional: true, shown: (v) => v["rules.structure"] === "fixed_limit",
      help: "Fixed limit: raises allowed after the opening bet of a round; empty for no cap (R20)." },
    { id: "rules.uncapped_heads_up", label: "No raise cap heads-up", kind: "check", shown: (v) => v["rules.structure"] === "fixed_limit",
      help: "Fixed limit: raises are unlimited while only two players contest the pot (R20)." },
  ] },
  { title: "Blinds and antes", fields: [
    { id: "rules.small_blind", label: "Small blind", kind: "number", min: 0, shown: (v) => blindGame(v["rules.game"]), help: "Posted left of the button; a live bet (R10). At most the big blind." },
    { id: "rules.big_blind", label: "Big blind", kind: "number", min: 1, shown: (v) => blindGame(v["rules.game"]),
      help: "Posted two left of the button, a live bet with the option to raise (R6, R10); also what a new player posts to come in (R13)." },
    { id: "rules.ante", label: "Ante", kind: "select",
      options: [["none", "No ante"], ["each", "Every player"], ["big_blind", "Big blind pays for all"], ["button", "Button pays for all"]],
      help: "Antes before the deal: from every player, or one player paying for the table (big-blind ante, button ante) (R9)." },
    { id: "rules.ante.amount", label: "Ante amount", kind: "number", min: 0, shown: (v) => v["rules.ante"] !== "none", help: "Each player's ante, or the whole ante the big blind or button pays (R9)." },
    { id: "rules.button", label: "Button rule", kind: "select",
      options: [["dead", "Dead button"], ["moving", "Moving button"], ["simplified_moving", "Simplified moving button"]],
      help: "How the button moves when players leave or join: dead button (the big blind always moves on; live games), moving or simplified moving button (online) (R18)." },
    { id: "rules.missed_blinds", label: "Missed blinds", kind: "select",
      options: [["dead_small_live_big", "Both at once: big live, small dead"], ["one_per_hand", "One per hand, largest first, all live"]],
      help: "What a player who missed blinds sitting out posts to come back (R14)." },
    { id: "rules.straddle", label: "Straddles allowed", kind: "check", shown: (v) => blindGame(v["rules.game"]),
      help: "Players under the gun may post a live straddle of twice the big blind (R15). Not with the rock." },
    { id: "rules.rock", label: "The rock", kind: "check", help: "A mandatory straddle that passes to each pot's winner (R16)." },
    { id: "rules.kill", label: "Kill", kind: "select", options: [["none", "No kill"], ["pot_over", "Pot over an amount"], ["consecutive_wins", "Consecutive wins"]],
      help: "A kill game: after a pot over an amount, or a player's consecutive wins, the next hand plays at raised stakes with a kill blind (R17)." },
    { id: "rules.kill.value", label: "Kill trigger", kind: "number", min: 0, shown: (v) => v["rules.kill"] !== "none", help: "The pot size, or how many wins in a row, that starts a kill (R17)." },
    { id: "rules.kill.percent", label: "Kill stakes %", kind: "number", min: 101, max: 1000, shown: (v) => v["rules.kill"] !== "none",
      help: "The stakes of a killed hand, in percent: 150 a half kill, 200 a full kill; over 100 and at most 1000 (R17)." },
  ] },
  { title: "Buy-ins and seats", fields: [
    { id: "rules.min_buy_in", label: "Minimum buy-in", kind: "number", min: 1, help: "The fewest chips a player sits down with (R26)." },
    { id: "rules.max_buy_in", label: "Maximum buy-in", kind: "number", min: 1,
      help: "The most chips a player sits down with, and the most a top-up between hands may bring a stack to (R26, R37). At least the minimum." },
    { id: "rules.rathole_secs", label: "Rathole minutes", kind: "number", min: 0, unit: 60, step: "any",
      help: "A player who leaves and comes back within this many minutes brings back at least the stack they left with: no taking chips off the table (R26)." },
    { id: "rules.max_missed_big_blinds", label: "Missed big blinds before the seat is freed", kind: "number", min: 0,
      help: "Big blinds missed in a row while sitting out before the player is stood up; 0 never (R14)." },
  ] },
  { title: "House options", fields: [
    { id: "rules.options.rake", label: "Rake, basis points", kind: "number", min: 0, max: 10000, help: "The house's cut of each pot in hundredths of a percent (500 = 5%), none when no flop is dealt (R36); 0 for no rake." },
    { id: "rules.options.rake.cap", label: "Rake cap", kind: "number", min: 0, shown: (v) => Number(v["rules.options.rake"]) > 0, help: "The most rake taken from one hand (R36)." },
    { id: "rules.options.cap", label: "Cap per player", kind: "number", min: 1, optional: true,
      help: "Cap limit: the most a player may put in during a hand; reaching it puts them all in; empty for none (R24). At least the big blind." },
    { id: "rules.options.unit", label: "Betting unit", kind: "number", min: 0, help: "Bets and raises in multiples of this; 0 or 1 for any amount (R25). The stakes must be multiples of it." },
    { id: "rules.options.pot_limit_preflop", label: "Pot limit before the flop", kind: "select", shown: (v) => v["rules.structure"] === "pot_limit",
      options: [["true_pot", "The pot as it is"], ["assumed_call", "Small blind counted as a full blind"], ["dead_small_blind", "Small blind as dead money"]],
      help: "How the first round's pot is sized in pot limit (R22)." },
    { id: "rules.options.half_bet_rule", label: "Half bet rule", kind: "check", shown: (v) => limitGame(v["rules.structure"]),
      help: "Limit games: an all-in raise of at least half a bet reopens the betting (R30); otherwise the full bet rule (R29)." },
    { id: "rules.options.run_it_twice", label: "Run it twice", kind: "check", shown: (v) => BOARD.includes(v["rules.game"]),
      help: "When everyone left is all in and all agree, the rest of the board is dealt twice, each run winning half of each pot (R32). Board games only." },
  ] },
  { title: "Clock and chat", fields: [
    { id: "clock.action_ms", label: "Seconds to act", kind: "number", min: 1, unit: 1000, step: "any", help: "The time a player has for each decision; then the hand is dead: fold, or check when free (R38)." },
    { id: "clock.warning_ms", label: "Warning, seconds left", kind: "number", min: 0, unit: 1000, step: "any", help: "The player is warned when this much of the time is left; 0 for no warning (R38)." },
    { id: "clock.time_bank_ms", label: "Time bank, seconds", kind: "number", min: 0, unit: 1000, step: "any", help: "Extra time each player has on sitting down, used when the time to act runs out." },
    { id: "clock.showdown_ms", label: "Showdown pause, seconds", kind: "number", min: 0, unit: 1000, step: "any", help: "Added to the pause before the next hand for each pot shown down (each board of a pot run twice; at most four), so players can read the showdown; 0 for none." },
    { id: "chat.enabled", label: "Chat", kind: "check", help: "Seated players may chat (the floor switches it live too)." },
    { id: "rabbit_hunt", label: "Rabbit hunt", kind: "check", help: "After a hand that ended early, show everyone the cards it would have dealt." },
  ] },
];

/// Every field, by id.
export const FIELDS = new Map(GROUPS.flatMap((g) => g.fields.map((f) => [f.id, f])));

const get = (obj, path) => path.split(".").reduce((o, k) => (o == null ? undefined : o[k]), obj);
const defaults = { clock: { action_ms: 30000, warning_ms: 10000, time_bank_ms: 60000, showdown_ms: 2500 }, chat: { enabled: true } };

/// The form's values (text for inputs, booleans for checkboxes) read from a create-table
/// body, such as a preset's.
export function valuesFrom(body) {
  const r = body.rules || {};
  const v = {};
  for (const f of FIELDS.values()) {
    let x = get(body, f.id);
    if (x === undefined) x = get(defaults, f.id);
    if (f.kind === "check") { v[f.id] = Boolean(x); continue; }
    v[f.id] = x == null ? "" : f.unit ? String(x / f.unit) : String(x);
  }
  v["rules.ante"] = (r.ante && r.ante.kind) || "none";
  v["rules.ante.amount"] = r.ante && r.ante.amount !== undefined ? String(r.ante.amount) : "";
  v["rules.kill"] = r.kill ? r.kill.trigger.kind : "none";
  v["rules.kill.value"] = r.kill ? String(r.kill.trigger.value) : "";
  v["rules.kill.percent"] = r.kill ? String(r.kill.percent) : "200";
  const o = r.options || {};
  v["rules.options.rake"] = o.rake ? String(o.rake.basis_points) : "0";
  v["rules.options.rake.cap"] = o.rake ? String(o.rake.cap) : "";
  v["rules.options.spread"] = (o.spread || []).map(([a, b]) => `${a}-${b}`).join(", ");
  v["rules.options.pot_limit_preflop"] = o.pot_limit_preflop || "true_pot";
  v["rules.options.unit"] = String(o.unit ?? 0);
  return v;
}

/// Whether a field applies to these values (a hidden field is neither sent nor checked).
export const shown = (f, v) => !f.shown || f.shown(v);

/// A whole number as typed, or NaN (empty, fractional, negative, or not a number).
function whole(text) {
  const t = String(text).trim();
  return /^\d+$/.test(t) ? Number(t) : NaN;
}

/// Reads the spread ranges ("1-5, 1-10"), or null when they do not read.
export function spreadRanges(text) {
  const parts = String(text).split(",").map((s) => s.trim()).filter(Boolean);
  const out = [];
  for (const p of parts) {
    const m = p.match(/^(\d+)\s*(?:-|to)\s*(\d+)$/);
    if (!m) return null;
    out.push([Number(m[1]), Number(m[2])]);
  }
  return out;
}

/// The create-table body of these values, starting from `base` (what the form does not
/// show is kept), and the problems found on the way (a number that is not a whole number).
export function bodyFrom(values, base) {
  const body = structuredClone(base || {});
  const problems = [];
  body.rules = body.rules || {};
  body.rules.options = body.rules.options || {};
  body.clock = body.clock || {};
  body.chat = body.chat || {};
  const num = (id) => {
    const f = FIELDS.get(id);
    const text = String(values[id] ?? "").trim();
    if (f.optional && text === "") return null;
    if (f.unit) {
      const x = Number(text);
      if (text === "" || !Number.isFinite(x) || x < 0) { problems.push({ field: id, message: "must be a number, 0 or more" }); return 0; }
      return Math.round(x * f.unit);
    }
    const x = whole(text);
    if (Number.isNaN(x)) { problems.push({ field: id, message: "must be a whole number, 0 or more" }); return 0; }
    return x;
  };
  const v = values;
  const on = (id) => shown(FIELDS.get(id), v);
  const r = body.rules;
  body.name = String(v.name ?? "");
  r.game = v["rules.game"];
  r.structure = v["rules.structure"];
  r.seat_count = num("rules.seat_count");
  const stakes = {};
  for (const k of ["min_bet", "small_bet", "big_bet", "bring_in"]) if (on("rules.stakes." + k)) stakes[k] = num("rules.stakes." + k);
  r.stakes = stakes;
  r.max_raises = on("rules.max_raises") ? num("rules.max_raises") : null;
  r.uncapped_heads_up = on("rules.uncapped_heads_up") && Boolean(v["rules.uncapped_heads_up"]);
  const blinds = on("rules.small_blind");
  r.small_blind = blinds ? num("rules.small_blind") : 0;
  r.big_blind = blinds ? num("rules.big_blind") : 0;
  r.ante = v["rules.ante"] === "none" ? { kind: "none" } : { kind: v["rules.ante"], amount: num("rules.ante.amount") };
  r.button = v["rules.button"];
  r.missed_blinds = v["rules.missed_blinds"];
  r.straddle = on("rules.straddle") && Boolean(v["rules.straddle"]);
  r.rock = Boolean(v["rules.rock"]);
  r.kill = v["rules.kill"] === "none" ? null
    : { trigger: { kind: v["rules.kill"], value: num("rules.kill.value") }, percent: num("rules.kill.percent") };
  r.min_buy_in = num("rules.min_buy_in");
  r.max_buy_in = num("rules.max_buy_in");
  r.rathole_secs = num("rules.rathole_secs");
  r.max_missed_big_blinds = num("rules.max_missed_big_blinds");
  const o = r.options;
  const bp = num("rules.options.rake");
  if (bp > 0) o.rake = { ...(o.rake || {}), basis_points: bp, cap: num("rules.options.rake.cap") };
  else delete o.rake;
  const cap = num("rules.options.cap");
  if (cap === null) delete o.cap; else o.cap = cap;
  o.unit = num("rules.options.unit");
  if (on("rules.options.spread")) {
    const ranges = spreadRanges(v["rules.options.spread"]);
    if (ranges === null) problems.push({ field: "rules.options.spread", message: "write each range as min-max, separated by commas (1-5, 1-10)" });
    o.spread = ranges || [];
  } else delete o.spread;
  o.pot_limit_preflop = on("rules.options.pot_limit_preflop") ? v["rules.options.pot_limit_preflop"] : "true_pot";
  o.half_bet_rule = on("rules.options.half_bet_rule") && Boolean(v["rules.options.half_bet_rule"]);
  o.run_it_twice = on("rules.options.run_it_twice") && Boolean(v["rules.options.run_it_twice"]);
  body.clock.action_ms = num("clock.action_ms");
  body.clock.warning_ms = num("clock.warning_ms");
  body.clock.time_bank_ms = num("clock.time_bank_ms");
  body.clock.showdown_ms = num("clock.showdown_ms");
  body.chat.enabled = Boolean(v["chat.enabled"]);
  body.rabbit_hunt = Boolean(v.rabbit_hunt);
  return { body, problems };
}

/// The problems the server would find in a body the form made, each on its field, in
/// the server's words: the table's rules (poker_rules::table::Table::new) and a probe
/// hand of three seats at the maximum buy-in (HandConfig::validate).
export function check(body) {
  const out = [];
  const bad = (field, message) => { if (!out.some((p) => p.field === field)) out.push({ field, message }); };
  const name = String(body.name || "").trim();
  if (!name) bad("name", "the name is empty");
  else if ([...String(body.name)].length > TABLE_NAME_MAX) bad("name", `a name is at most ${TABLE_NAME_MAX} characters`);
  const r = body.rules;
  const o = r.options || {};
  if (!(r.seat_count >= 2 && r.seat_count <= 10)) bad("rules.seat_count", "a table has 2 to 10 seats");
  else if (r.seat_count > maxSeats(r.game)) {
    bad("rules.seat_count", `${WORDS[r.game]} deals at most ${maxSeats(r.game)} players from one deck: a table of ${r.seat_count} seats would stall`);
  }
  if (r.min_buy_in === 0) bad("rules.min_buy_in", "the buy-in range must be positive with min <= max");
  else if (r.min_buy_in > r.max_buy_in) bad("rules.max_buy_in", "the buy-in range must be positive with min <= max");
  const blinds = blindGame(r.game);
  if (blinds && r.big_blind === 0) bad("rules.big_blind", "blind games need a big blind at least the small blind");
  else if (blinds && r.small_blind > r.big_blind) bad("rules.small_blind", "blind games need a big blind at least the small blind");
  if (r.straddle && (!blinds || r.rock)) bad("rules.straddle", "straddles are for blind games without the rock (the rock is its own straddle)");
  if (r.kill && (r.kill.percent <= 100 || r.kill.percent > 1000)) bad("rules.kill.percent", "a kill multiplies the stakes by more than 100% and at most 1000%");
  const amounts = [
    ["rules.small_blind", r.small_blind], ["rules.big_blind", r.big_blind], ["rules.ante.amount", r.ante.amount || 0],
    ["rules.stakes.min_bet", r.stakes.min_bet || 0], ["rules.stakes.small_bet", r.stakes.small_bet || 0],
    ["rules.stakes.big_bet", r.stakes.big_bet || 0], ["rules.stakes.bring_in", r.stakes.bring_in || 0],
    ["rules.options.cap", o.cap || 0], ["rules.options.unit", o.unit || 0], ["rules.options.rake.cap", o.rake ? o.rake.cap : 0],
    ["rules.options.spread", Math.max(0, ...(o.spread || []).flat())],
    ["rules.kill.value", r.kill && r.kill.trigger.kind === "pot_over" ? r.kill.trigger.value : 0],
  ];
  for (const [field, a] of amounts) if (a > MAX_CHIPS) bad(field, `amounts are at most ${MAX_CHIPS} chips`);
  // The table's chips (the maximum buy-in times the seats) and the probe hand's three
  // stacks must fit too.
  if (r.max_buy_in * Math.max(r.seat_count, 3) > MAX_CHIPS) bad("rules.max_buy_in", `amounts are at most ${MAX_CHIPS} chips, and so is the maximum buy-in times the seats`);
  if (r.structure === "fixed_limit") {
    if (!r.stakes.small_bet) bad("rules.stakes.small_bet", "small_bet must be positive for this game and structure");
    if (!r.stakes.big_bet) bad("rules.stakes.big_bet", "big_bet must be positive for this game and structure");
  } else if (r.structure === "spread_limit") {
    if (!(o.spread || []).length) bad("rules.options.spread", "spread limit needs a (min, max) range per street");
    for (const [street, [min, max]] of (o.spread || []).entries()) {
      if (min === 0 || min > max) bad("rules.options.spread", `spread-limit range of street ${street} is ${min} to ${max}: min must be positive and at most max`);
    }
  } else if (!r.stakes.min_bet) bad("rules.stakes.min_bet", "min_bet must be positive for this game and structure");
  const largestBlind = blinds ? Math.max(r.small_blind, r.big_blind) : 0;
  if (o.cap != null && o.cap < Math.max(largestBlind, 1)) bad("rules.options.cap", `a cap of ${o.cap} is below the big blind of ${largestBlind}`);
  if (o.unit > 1) {
    for (const k of ["min_bet", "small_bet", "big_bet"]) {
      const a = r.stakes[k] || 0;
      if (a % o.unit !== 0) bad("rules.stakes." + k, `${k} ${a} is not a multiple of the betting unit ${o.unit}`);
    }
  }
  if (o.pot_limit_preflop && o.pot_limit_preflop !== "true_pot" && r.structure !== "pot_limit") bad("rules.options.pot_limit_preflop", "pot-limit preflop options need pot limit");
  if (o.half_bet_rule && !limitGame(r.structure)) bad("rules.options.half_bet_rule", "the half bet rule is for limit games; no and pot limit use the full bet rule");
  if (o.run_it_twice && !BOARD.includes(r.game)) bad("rules.options.run_it_twice", "run it twice needs a game with a board");
  if (o.rake && o.rake.basis_points > 10000) bad("rules.options.rake", "rake cannot exceed 100% of a pot");
  if (!(body.clock && body.clock.action_ms > 0)) bad("clock.action_ms", "the action clock must give some time");
  for (const k of ["action_ms", "warning_ms", "time_bank_ms", "showdown_ms"]) {
    const ms = body.clock ? body.clock[k] : 0;
    if (ms > MAX_CLOCK_MS) bad("clock." + k, `${k} is ${ms}: a clock setting is at most ${MAX_CLOCK_MS} ms (a day)`);
  }
  return out;
}

/// The form field a server problem's field belongs on: the field itself, or the nearest
/// field it is part of (`rules.ante` for a problem of the ante's kind or amount), or
/// `null` when the form has none shown (then it is listed under the form).
export function fieldFor(problemField, values) {
  let f = problemField;
  while (f) {
    const field = FIELDS.get(f);
    if (field && shown(field, values)) return f;
    f = f.includes(".") ? f.slice(0, f.lastIndexOf(".")) : "";
  }
  return null;
}
