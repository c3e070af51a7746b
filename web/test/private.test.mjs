// Private games' pure logic under node (web/js/private.js): reading an invite link, the
// stakes as players read them, a guest's generated password, and where a player stands
// at a private table (asking, let in, seated); and their transitions in the reducer
// (web/js/reduce.js): the invite presented once connected, sitting down once let in (the
// host at the game just made), a refused seat, a refusal after reconnecting.
import test from "node:test";
import assert from "node:assert/strict";
import { webcrypto } from "node:crypto";
import { parseInvite, stakesLabel, newPassword, myStanding, freeSeat, seatChoices, GAMES, STAKES } from "../js/private.js";

const TABLE = "5d0c8a8e-3f0b-4a7e-b0a4-1c2d3e4f5a6b";
const INVITE = "0123456789abcdef0123456789abcdef";

test("an invite link is the table's id and a 128-bit secret, nothing else", () => {
  assert.deepEqual(parseInvite(`#join/${TABLE}/${INVITE}`), { table: TABLE, invite: INVITE });
  for (const bad of ["", "#join/" + TABLE, `#join/${TABLE}/${INVITE.slice(1)}`, `#join/${TABLE}/${INVITE}x`,
    `#join/${TABLE}/${INVITE.toUpperCase()}`, `#other/${TABLE}/${INVITE}`, `#join/<b>/${INVITE}`]) {
    assert.equal(parseInvite(bad), null, bad);
  }
});

test("stakes read as blinds, or as a stud game's bets", () => {
  assert.equal(stakesLabel(2, true), "1/2");
  assert.equal(stakesLabel(10, true), "5/10");
  assert.equal(stakesLabel(2, false), "2/4");
  assert.equal(stakesLabel(50, false), "50/100");
  assert.ok(GAMES.some((g) => g.key === "nlhe" && g.blinds));
  assert.ok(GAMES.some((g) => g.key === "stud" && !g.blinds));
  assert.ok(STAKES.every((s, i) => i === 0 || s > STAKES[i - 1]));
});

test("a guest's password is long, URL-safe and new each time", () => {
  const a = newPassword(webcrypto);
  const b = newPassword(webcrypto);
  assert.match(a, /^[A-Za-z0-9_-]{24}$/);
  assert.notEqual(a, b);
});

test("where a player stands at a private table", () => {
  const table = {
    seats: [{ player_id: "h", seat: 0 }, { player_id: "s", seat: 1 }],
    private: { host: "h", approved: ["a"], requests: [{ player_id: "q", name: "Q" }] },
  };
  assert.equal(myStanding(table, "s"), "seated");
  assert.equal(myStanding(table, "h"), "seated");
  assert.equal(myStanding(table, "a"), "approved");
  assert.equal(myStanding(table, "q"), "asking");
  assert.equal(myStanding(table, "x"), null);
  assert.equal(myStanding({ seats: [], private: null }, "a"), null);
  assert.equal(myStanding({ seats: [], private: { host: "h", approved: [], requests: [] } }, "h"), "approved");
});

test("an approved friend refused a seat held for another's buy-in sits at the next free one", () => {
  const table = { seat_count: 4, seats: [{ seat: 0, player_id: "h" }] };
  // Two friends approved at once both see seat 1 free; the one refused passes over it.
  assert.equal(freeSeat(table), 1);
  assert.equal(freeSeat(table, [1]), 2);
  // Once the first friend's buy-in is durable the table shows seat 1 taken.
  assert.equal(freeSeat({ ...table, seats: [...table.seats, { seat: 1, player_id: "a" }] }, [1]), 2);
  assert.equal(freeSeat(table, [1, 2, 3]), null);
  assert.equal(freeSeat({ seat_count: 2, seats: [{ seat: 0 }, { seat: 1 }] }), null);
});

test("a game is offered no more seats than one deck deals it", () => {
  const game = (key) => GAMES.find((g) => g.key === key);
  assert.deepEqual(seatChoices(game("nlhe")), [2, 6, 9]);
  assert.deepEqual(seatChoices(game("stud")), [2, 6, 7]);
  // Dealer's choice: no more seats than its most restrictive game deals (H3).
  assert.deepEqual(seatChoices(game("nlhe"), [game("plo"), game("triple_draw")]), [2, 6, 8]);
  assert.deepEqual(seatChoices(game("nlhe"), [game("plo")]), [2, 6, 9]);
  assert.deepEqual(seatChoices(game("razz")), [2, 6, 7]);
  assert.deepEqual(seatChoices(game("triple_draw")), [2, 6, 8]);
});

// ---------------------------------------------------------------- the reducer's private games

const { reduce, initialState } = await import("../js/reduce.js");
const { player } = await import("./play.mjs");

const HOST = "11111111-1111-4111-8111-111111111111";
const ANN = "22222222-2222-4222-8222-222222222222";
const BEN = "33333333-3333-4333-8333-333333333333";

const play = player(reduce);
const of = (effects, type) => effects.filter((e) => e.type === type);
const sits = (effects) => of(effects, "sit").map((e) => e.msg);
const sent = (effects) => of(effects, "send").map((e) => e.msg);
const privateTable = (seats, priv = {}) => ({
  table_id: TABLE, name: "Home", seat_count: 4, button: null, seats, min_buy_in: 40, max_buy_in: 200, blinds: [1, 2],
  action_ms: 30000, time_bank_ms: 0, game: "NL Hold'em", game_kind: "holdem", structure: "no_limit", stakes: "1/2", chat: true,
  waitlist: 0, straddle: false, rabbit_hunt: false,
  private: { host: HOST, host_name: "hostess", approved: [], requests: [], paused: true, next_blinds: null, ...priv },
});
const seat = (n, player_id, name) => ({ seat: n, player_id, name, stack: 100, sitting_out: false, pending_top_up: 0, leaving: false, straddle: false });
const welcome = (player_id, name) => ({ type: "welcome", player_id, name });

test("the host's new game is entered with its invite, and the host sits down once, at the first seat", () => {
  let { state, effects } = play(initialState({ token: true }), welcome(HOST, "hostess"), { type: "ui_wallet", wallet: { balance: 150 } },
    { type: "ui_private_made", table_id: TABLE, invite: INVITE });
  assert.equal(state.current, TABLE);
  assert.deepEqual(sent(effects).at(-1), { type: "join_private", table_id: TABLE, invite: INVITE });
  assert.deepEqual(of(effects, "keep_invites"), [{ type: "keep_invites", invites: { [TABLE]: INVITE } }]);
  ({ state, effects } = play(state, { type: "snapshot", table: privateTable([]), chat: [] }));
  assert.deepEqual(sits(effects), [{ type: "sit", table_id: TABLE, seat: 0, buy_in: 150, post_now: true }], "the largest buy-in the wallet allows");
  // The seats come again before the sit is done: no second sit.
  ({ effects } = play(state, { type: "seats", table_id: TABLE, table: privateTable([]) }));
  assert.deepEqual(sits(effects), []);
  ({ state } = play(state, { type: "seats", table_id: TABLE, table: privateTable([seat(0, HOST, "hostess")]) }));
  assert.equal(state.private.sitting, null, "seated: the sit is done");
});

test("a friend's invite waits for the connection, is presented once, and they sit once let in", () => {
  let { state, effects } = play(initialState(), { type: "ui_invite", table_id: TABLE, invite: INVITE });
  assert.deepEqual(sent(effects), [], "nothing is sent before the connection is up");
  ({ state, effects } = play(state, welcome(ANN, "ann")));
  assert.deepEqual(sent(effects).filter((m) => m.type === "join_private"), [{ type: "join_private", table_id: TABLE, invite: INVITE }]);
  assert.equal(state.current, TABLE);
  ({ state, effects } = play(state, { type: "snapshot", table: privateTable([seat(0, HOST, "hostess")], { requests: [{ player_id: ANN, name: "ann" }] }), chat: [] }));
  assert.deepEqual(sits(effects), [], "asking is not let in");
  ({ effects } = play(state, welcome(ANN, "ann")));
  assert.deepEqual(sent(effects).filter((m) => m.type === "join_private"), [], "presented once");
  const letIn = privateTable([seat(0, HOST, "hostess")], { approved: [ANN] });
  ({ state, effects } = play(state, { type: "seats", table_id: TABLE, table: letIn }));
  assert.deepEqual(sits(effects), [{ type: "sit", table_id: TABLE, seat: 1, buy_in: 200, post_now: true }]);
  ({ effects } = play(state, { type: "seats", table_id: TABLE, table: letIn }));
  assert.deepEqual(sits(effects), [], "once");
});

test("two friends let in at once: the one refused the shared seat sits at the next free one, and gives up when none is left", () => {
  const letIn = privateTable([seat(0, HOST, "hostess")], { approved: [ANN, BEN] });
  let { state, effects } = play(initialState({ current: TABLE, token: true }), welcome(BEN, "ben"), { type: "snapshot", table: letIn, chat: [] });
  assert.deepEqual(sits(effects).map((m) => m.seat), [1]);
  ({ state, effects } = play(state, { type: "error", code: "seat_refused", message: "seat 2 is taken" }));
  assert.deepEqual(sits(effects).map((m) => m.seat), [2], "the next free seat, at once");
  assert.ok(of(effects, "toast").length === 1, "and the refusal is said");
  ({ state, effects } = play(state, { type: "error", code: "seat_refused", message: "seat 3 is taken" }));
  assert.deepEqual(sits(effects).map((m) => m.seat), [3]);
  ({ state, effects } = play(state, { type: "error", code: "seat_refused", message: "seat 4 is taken" }));
  assert.deepEqual(sits(effects), [], "every seat refused: no more sits");
  ({ effects } = play(state, { type: "error", code: "seat_refused", message: "again" }));
  assert.deepEqual(sits(effects), [], "a refusal with no sit under way changes nothing");
});

test("a private table refused on reconnecting is presented again once, then forgotten", () => {
  let { state, effects } = play(initialState({ current: TABLE, token: true, invites: { [TABLE]: INVITE } }), welcome(ANN, "ann"),
    { type: "error", code: "private_refused", message: "present the invite" });
  assert.deepEqual(sent(effects).at(-1), { type: "join_private", table_id: TABLE, invite: INVITE });
  ({ state, effects } = play(state, { type: "error", code: "private_refused", message: "present the invite" }));
  assert.equal(state.current, null, "forgotten");
  assert.deepEqual(of(effects, "remember_table"), [{ type: "remember_table", table_id: null }]);
  // Without an invite kept, forgotten at once.
  ({ state } = play(initialState({ current: TABLE, token: true }), welcome(ANN, "ann"), { type: "error", code: "private_refused", message: "no" }));
  assert.equal(state.current, null);
});

test("logging out keeps the tab's invites and the invite waiting to be presented; a cancelled join drops it", () => {
  let { state } = play(initialState({ token: true }), welcome(ANN, "ann"), { type: "ui_invite", table_id: TABLE, invite: INVITE }, { type: "ui_logout" });
  assert.deepEqual(state.private.invites, { [TABLE]: INVITE });
  assert.deepEqual(state.private.pending, { table: TABLE, invite: INVITE });
  ({ state } = play(state, { type: "ui_invite_drop" }));
  assert.equal(state.private.pending, null);
  const { effects } = play(state, welcome(ANN, "ann"));
  assert.deepEqual(sent(effects).filter((m) => m.type === "join_private"), []);
});

test("the ledger: asked of the game on screen and shown when it answers; the last one is the settle-up when the game ends", async () => {
  const { ledgerCsv, ledgerBalances } = await import("../js/private.js");
  const lines = [
    { player_id: HOST, name: "hostess", bought_in: 200, cashed_out: 0, stack: 260, net: 60 },
    { player_id: ANN, name: "ann, \"the shark\"", bought_in: 400, cashed_out: 330, stack: 0, net: -70 },
  ];
  let { state, effects } = play(initialState({ current: TABLE, token: true }), welcome(HOST, "hostess"),
    { type: "snapshot", table: privateTable([seat(0, HOST, "hostess")]), chat: [] }, { type: "ui_ledger" });
  assert.deepEqual(sent(effects).at(-1), { type: "ledger", table_id: TABLE });
  ({ state, effects } = play(state, { type: "ledger", table_id: TABLE, lines, rake: 10 }));
  assert.equal(of(effects, "show_ledger").length, 1, "shown: this page asked");
  assert.deepEqual(state.private.ledger, { table_id: TABLE, name: "Home", lines, rake: 10, final: false });
  // The game ends: its last ledger comes unasked, then the table closes.
  ({ state, effects } = play(state, { type: "ledger", table_id: TABLE, lines, rake: 10 }));
  assert.equal(of(effects, "show_ledger").length, 0, "not asked: kept, not shown");
  ({ state, effects } = play(state, { type: "table_closed", table_id: TABLE }));
  assert.equal(of(effects, "show_ledger").length, 1, "the settle-up is shown");
  assert.equal(state.private.ledger.final, true);
  assert.equal(state.view, "lobby");
  assert.ok(ledgerBalances(state.private.ledger), "60 - 70 + 10 = 0");
  assert.equal(ledgerBalances({ lines, rake: 0 }), false);
  assert.equal(ledgerCsv(state.private.ledger),
    "player,bought_in,adjusted,cashed_out,at_table,net\nhostess,200,0,0,260,60\n\"ann, \"\"the shark\"\"\",400,0,330,0,-70\n(rake),0,0,0,0,-10\n");
  // A public table has no ledger to ask.
  ({ effects } = play(initialState({ current: TABLE, token: true }), welcome(HOST, "hostess"),
    { type: "snapshot", table: { ...privateTable([]), private: null }, chat: [] }, { type: "ui_ledger" }));
  assert.deepEqual(sent(effects).filter((m) => m.type === "ledger"), []);
});

test("the host hears of each new seat request once: a sound, a notification, a word", () => {
  let { state, effects } = play(initialState({ current: TABLE, token: true }), welcome(HOST, "hostess"),
    { type: "snapshot", table: privateTable([seat(0, HOST, "hostess")]), chat: [] });
  assert.equal(of(effects, "notify").length, 0);
  const asking = privateTable([seat(0, HOST, "hostess")], { requests: [{ player_id: ANN, name: "ann" }] });
  ({ state, effects } = play(state, { type: "seats", table_id: TABLE, table: asking }));
  assert.deepEqual(of(effects, "notify"), [{ type: "notify", title: "Seat request", body: "ann asks for a seat at Home", table_id: TABLE }]);
  assert.equal(of(effects, "beep").length, 1);
  ({ state, effects } = play(state, { type: "seats", table_id: TABLE, table: asking }));
  assert.equal(of(effects, "notify").length, 0, "once");
  const two = privateTable([seat(0, HOST, "hostess")], { requests: [{ player_id: ANN, name: "ann" }, { player_id: BEN, name: "ben" }] });
  ({ state, effects } = play(state, { type: "seats", table_id: TABLE, table: two }));
  assert.deepEqual(of(effects, "notify").map((e) => e.body), ["ben asks for a seat at Home"]);
  // A friend hears nothing of the others' requests.
  ({ effects } = play(initialState({ current: TABLE, token: true }), welcome(BEN, "ben"), { type: "snapshot", table: two, chat: [] }));
  assert.equal(of(effects, "notify").length, 0);
});

test("a player the host removed is told so, with the chips back in the wallet", () => {
  let { state, effects } = play(initialState({ current: TABLE, token: true }), welcome(ANN, "ann"),
    { type: "snapshot", table: privateTable([seat(0, HOST, "hostess"), seat(1, ANN, "ann")]), chat: [] },
    { type: "removed", table_id: TABLE, host_name: "hostess" });
  ({ state, effects } = play(state, { type: "done", table_id: TABLE, request: "leave", amount: 198, pending: false }));
  assert.deepEqual(of(effects, "toast").map((e) => e.text), ["hostess removed you from Home: 198 chips are back in your wallet."]);
  assert.equal(state.view, "lobby");
});

test("a guest's link for another device reads back to the name and code, and a code alone is taken for the name typed", async () => {
  const { returnLink, parseReturn } = await import("../js/private.js");
  const code = newPassword(webcrypto);
  for (const name of ["ann", "Ann Marie", "zoë", "a/b"]) {
    const link = returnLink("https://poker.example", name, code);
    assert.ok(link.startsWith("https://poker.example/#me/"));
    assert.deepEqual(parseReturn(new URL(link).hash), { name, code });
    assert.deepEqual(parseReturn(link), { name, code }, "the whole link pasted");
  }
  assert.deepEqual(parseReturn(" " + code + " ", "ann"), { name: "ann", code });
  assert.equal(parseReturn(code), null, "a code alone names nobody");
  for (const bad of ["", "#me/ann", "#me/ann/short", `#me/ann/${code}x`, `#join/ann/${code}`, "#me/%E0%A4%A/" + code]) {
    assert.equal(parseReturn(bad), null, bad);
  }
});

test("a private game's options: only what the host set, the buy-in in chips, each where the game has it", async () => {
  const { privateOptions } = await import("../js/private.js");
  const nl = GAMES.find((g) => g.key === "nlhe");
  const stud = GAMES.find((g) => g.key === "stud");
  const none = { buyMin: "", buyMax: "", runItTwice: false, straddle: true, rabbit: false, showdown: "" };
  assert.deepEqual(privateOptions(none, nl, 2), { run_it_twice: false, straddle: true, rabbit_hunt: false });
  assert.deepEqual(privateOptions({ ...none, buyMin: "50", buyMax: "200", runItTwice: true, rabbit: true, showdown: "4.5" }, nl, 10),
    { min_buy_in: 500, max_buy_in: 2000, run_it_twice: true, straddle: true, rabbit_hunt: true, showdown_ms: 4500 });
  // Stud has neither a board to run twice (or to hunt the rest of) nor blinds to straddle.
  assert.deepEqual(privateOptions({ ...none, runItTwice: true, rabbit: true, buyMax: "40" }, stud, 2), { max_buy_in: 80 });
});

test("h1 h3: the create dialog asks for a dealer's choice rotation and bomb pots only where they fit", async () => {
  const { privateOptions } = await import("../js/private.js");
  const none = { buyMin: "", buyMax: "", runItTwice: false, straddle: true, rabbit: false, showdown: "" };
  const nl = GAMES.find((g) => g.key === "nlhe");
  const draw = GAMES.find((g) => g.key === "triple_draw");
  const stud = GAMES.find((g) => g.key === "stud");
  // The chosen game first, then the others ticked (games with a button only); a bomb pot
  // every 10 hands of 3 big blinds.
  const ask = privateOptions({ ...none, rotation: ["plo", "stud", "triple_draw", "nlhe"], bombEvery: "10", bombSize: "3" }, nl, 2);
  assert.deepEqual(ask.games, ["nlhe", "plo", "triple_draw"]);
  assert.equal(ask.bomb_pot_every, 10);
  assert.equal(ask.bomb_pot_big_blinds, 3);
  // Nothing ticked, nothing set: neither is asked.
  const plain = privateOptions({ ...none, rotation: [], bombEvery: "", bombSize: "" }, nl, 2);
  assert.equal(plain.games, undefined);
  assert.equal(plain.bomb_pot_every, undefined);
  // A draw game alone has no flop: no bomb pot; with hold'em in its rotation, it has.
  assert.equal(privateOptions({ ...none, rotation: [], bombEvery: "5" }, draw, 2).bomb_pot_every, undefined);
  assert.equal(privateOptions({ ...none, rotation: ["nlhe"], bombEvery: "5" }, draw, 2).bomb_pot_every, 5);
  // Stud has no button: no rotation, no bomb pot.
  const s = privateOptions({ ...none, rotation: ["nlhe"], bombEvery: "5" }, stud, 2);
  assert.equal(s.games, undefined);
  assert.equal(s.bomb_pot_every, undefined);
});

test("h2 h3: the table says the game now, the next and when, and its bomb pots", async () => {
  const { rotationLabel, bombLabel, inviteGame } = await import("../js/private.js");
  const games = [
    { game_kind: "holdem", structure: "no_limit", game: "NL Hold'em", stakes: "1/2" },
    { game_kind: "omaha", structure: "pot_limit", game: "PL Omaha", stakes: "1/2" },
    { game_kind: "deuce_to_seven_triple_draw", structure: "fixed_limit", game: "FL 2-7 Triple Draw", stakes: "2/4" },
  ];
  const t = (d, b) => ({ dealers_choice: d, bomb_pot: b });
  assert.equal(rotationLabel(t({ games, now: 1, next: 2, hands_left: 3 })), "Dealer's choice: PL Omaha now, FL 2-7 Triple Draw next in 3 hands");
  assert.equal(rotationLabel(t({ games, now: 2, next: 0, hands_left: 1 })), "Dealer's choice: FL 2-7 Triple Draw now, NL Hold'em next in 1 hand");
  assert.equal(rotationLabel(t({ games, now: 0, next: 1, hands_left: 0 })), "Dealer's choice: NL Hold'em now, PL Omaha next hand");
  assert.equal(rotationLabel(t({ games, now: 0, next: 1 })), "Dealer's choice: NL Hold'em now, PL Omaha after this orbit");
  assert.equal(rotationLabel(t(null)), "");
  assert.equal(bombLabel(t(null, { every: 10, big_blinds: 2, now: true })), "Bomb pot!");
  assert.equal(bombLabel(t(null, { every: 10, big_blinds: 2, now: false, called: 3 })), "Bomb pot next hand (3 big blinds each)");
  assert.equal(bombLabel(t(null, { every: 10, big_blinds: 2, now: false, next_hand: 20 })), "Bomb pot every 10 hands (next: hand #20)");
  assert.equal(bombLabel(t(null, null)), "");
  assert.equal(inviteGame({ game: "Dealer's choice", games: ["NL Hold'em", "PL Omaha"], stakes: "1/2", bomb_pot_every: 8 }),
    "Dealer's choice (NL Hold'em, PL Omaha) 1/2 \u00b7 bomb pot every 8 hands");
  assert.equal(inviteGame({ game: "NL Hold'em", stakes: "1/2" }), "NL Hold'em 1/2");
});

test("a host's stack adjustment is read as a whole number of chips, never zero, never below nothing nor past a hundred buy-ins", async () => {
  const { adjustAmount, adjustQuestion, ADJUST_BUY_INS } = await import("../js/private.js");
  assert.deepEqual(adjustAmount("500", 200, 1000), { amount: 500 });
  assert.deepEqual(adjustAmount(" +500 ", 200, 1000), { amount: 500 });
  assert.deepEqual(adjustAmount("-200", 200, 1000), { amount: -200 });
  assert.deepEqual(adjustAmount("\u2212150", 200, 1000), { amount: -150 }, "a typographic minus");
  for (const bad of ["", "0", "-0", "1.5", "1e3", "abc", "5 00", "--5"]) assert.ok(adjustAmount(bad, 200, 1000).error, bad);
  assert.match(adjustAmount("-201", 200, 1000).error, /at most 200 chips can be taken off/);
  assert.deepEqual(adjustAmount(String(ADJUST_BUY_INS * 1000 - 200), 200, 1000), { amount: 99800 });
  assert.match(adjustAmount("99801", 200, 1000).error, /at most 100000 chips/);
  assert.ok(adjustAmount("99999999999999999999", 200, 1000).error, "past what a number holds exactly");
  assert.equal(adjustQuestion("ann", 500, 200),
    "Give ann 500 chips? The stack goes from 200 to 700 between hands; play chips, recorded in the game's ledger.");
  assert.match(adjustQuestion("ann", -200, 700), /^Take 200 chips from ann\? The stack goes from 700 to 500/);
});

test("everyone at the table reads the host's adjustment in the log, and its player is told", async () => {
  const { adjustedLine } = await import("../js/private.js");
  const given = { type: "stack_adjusted", table_id: TABLE, player_id: ANN, name: "ann", host_name: "hostess", amount: 500, stack: 600 };
  assert.equal(adjustedLine(given), "hostess gave ann 500 chips (stack 600)");
  assert.equal(adjustedLine({ ...given, amount: -200, stack: 400 }), "hostess took 200 chips from ann (stack 400)");
  const at = (me, name) => play(initialState({ current: TABLE, token: true }), welcome(me, name),
    { type: "snapshot", table: privateTable([seat(0, HOST, "hostess"), seat(1, ANN, "ann")]), chat: [] }, given);
  let { state, effects } = at(BEN, "ben");
  assert.equal(state.tables.get(TABLE).log.at(-1).text, "hostess gave ann 500 chips (stack 600)");
  assert.equal(of(effects, "toast").length, 0, "an onlooker is not interrupted");
  ({ state, effects } = at(ANN, "ann"));
  assert.equal(state.tables.get(TABLE).log.at(-1).text, "hostess gave ann 500 chips (stack 600)");
  assert.ok(of(effects, "toast").some((t) => /gave ann 500 chips/.test(t.text)), JSON.stringify(effects));
});
