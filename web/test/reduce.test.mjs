// The client's state machine under node: each server message and each local one (what
// the player did, what the connection did) gives the next state and the effects the
// page must run; the state given is never changed.
import test from "node:test";
import assert from "node:assert/strict";
import { reduce, initialState, newTable } from "../js/reduce.js";
import { player } from "./play.mjs";

const ME = "11111111-1111-4111-8111-111111111111";
const BEN = "22222222-2222-4222-8222-222222222222";
const T1 = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
const T2 = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";

const view = (id, seats, extra = {}) => ({
  table_id: id, name: id === T1 ? "Main" : "Second", seat_count: 6, button: 0, seats,
  min_buy_in: 40, max_buy_in: 200, blinds: [1, 2], action_ms: 30000, time_bank_ms: 60000,
  game: "NL Hold'em", game_kind: "holdem", structure: "no_limit", stakes: "1/2", cap: null, chat: true,
  waitlist: 0, straddle: false, rabbit_hunt: false, ...extra,
});
const seat = (n, player_id, name, stack = 100) => ({ seat: n, player_id, name, stack, sitting_out: false, pending_top_up: 0, leaving: false, straddle: false });
const seated = (id) => view(id, [seat(0, ME, "ann"), seat(1, BEN, "ben")]);
const LEGAL = { fold: true, check: false, call: 2, bring_in: null, bet_or_raise: [4, 100], unit: 0 };

/** Feeds messages in order; returns the last state and every effect (the state given is never changed). */
const play = player(reduce);
const sent = (effects) => effects.filter((e) => e.type === "send").map((e) => e.msg);
const welcome = { type: "welcome", player_id: ME, name: "ann" };
const hand = (n, events) => ({ hand_number: n, seats: [0, 1], starting_stacks: [100, 100], button: 0, events });
const BLINDS = [{ type: "blind_posted", player: 0, amount: 1 }, { type: "blind_posted", player: 1, amount: 2 }];

test("welcome: the player is known, the lobby is asked, a table looked at before a reload is watched again", () => {
  const { state, effects } = play(initialState({ current: T1, token: true }), welcome);
  assert.deepEqual(state.me, { player_id: ME, name: "ann" });
  assert.equal(state.view, "table");
  assert.deepEqual(sent(effects), [{ type: "list_tables" }, { type: "watch", table_id: T1 }]);
  assert.ok(effects.some((e) => e.type === "settings") && effects.some((e) => e.type === "wallet"));
  const fresh = play(initialState({ token: true }), welcome);
  assert.equal(fresh.state.view, "lobby");
});

test("a snapshot of a hand already in the log replaces its lines instead of repeating them", () => {
  const snap = { type: "snapshot", table: seated(T1), hand: hand(7, BLINDS), chat: [] };
  const { state } = play(initialState({ current: T1, token: true }), welcome, snap);
  const T = state.tables.get(T1);
  assert.deepEqual(T.log.map((l) => l.text), ["Hand #7 (joined)", "You post the small blind of 1", "ben posts the big blind of 2"]);
  // A reload, sitting down where one watched, joining the waiting list: a second snapshot.
  const again = play(state, { ...snap, hand: hand(7, BLINDS.concat([{ type: "folded", player: 0 }])) }).state.tables.get(T1);
  assert.deepEqual(again.log.map((l) => l.text), ["Hand #7", "You post the small blind of 1", "ben posts the big blind of 2", "You fold"]);
  // The next hand's events start a new hand in the log, after the old one.
  const next = play(play(state, snap).state, { type: "event", table_id: T1, hand_number: 8, seats: [0, 1], event: BLINDS[0] }).state.tables.get(T1);
  assert.deepEqual(next.log.slice(-2).map((l) => l.text), ["Hand #8", "You post the small blind of 1"]);
});

test("a decision: announced, and a pre-selected action answers it at once", () => {
  const base = play(initialState({ current: T1, token: true }), welcome, { type: "snapshot", table: seated(T1), hand: hand(3, BLINDS), chat: [] }).state;
  const asked = play(base, { type: "decide", table_id: T1, decision_id: 9, legal: LEGAL });
  assert.equal(asked.state.tables.get(T1).decide.id, 9);
  assert.ok(asked.effects.some((e) => e.type === "announce" && /Your turn at Main: call 2 or raise, or fold/.test(e.text)));
  assert.ok(asked.effects.some((e) => e.type === "your_turn" && e.table_id === T1));
  const pre = play(base, { type: "ui_preselect", pre: "check_fold" }, { type: "decide", table_id: T1, decision_id: 9, legal: LEGAL });
  assert.deepEqual(sent(pre.effects), [{ type: "act", table_id: T1, decision_id: 9, action: { type: "fold" } }]);
  assert.equal(pre.state.tables.get(T1).decide, null);
  assert.equal(pre.state.tables.get(T1).pre, null);
});

test("while the connection is down an action is never queued unseen: nothing is sent and the player is told", () => {
  const base = play(initialState({ current: T1, token: true }), welcome, { type: "snapshot", table: seated(T1), hand: hand(3, BLINDS), chat: [] },
    { type: "decide", table_id: T1, decision_id: 9, legal: LEGAL }).state;
  const down = play(base, { type: "conn_down" }, { type: "ui_act", action: { type: "call" } });
  assert.equal(down.state.online, false);
  assert.deepEqual(sent(down.effects), []);
  assert.ok(down.effects.some((e) => e.type === "toast" && /not sent/.test(e.text)));
  assert.equal(down.state.tables.get(T1).decide.id, 9, "the decision stays open");
  const up = play(down.state, { type: "conn_up" }, { type: "ui_act", action: { type: "call" } });
  assert.deepEqual(sent(up.effects), [{ type: "act", table_id: T1, decision_id: 9, action: { type: "call" } }]);
});

test("a turn at another table is a quiet word and a tab alert; the table on screen's words are its own", () => {
  const base = play(initialState({ current: T1, token: true }), welcome,
    { type: "snapshot", table: seated(T1), chat: [] }, { type: "snapshot", table: seated(T2), hand: hand(1, BLINDS), chat: [] }).state;
  const r = play(base, { type: "decide", table_id: T2, decision_id: 1, legal: LEGAL });
  const toast = r.effects.find((e) => e.type === "toast");
  assert.equal(toast.table_id, T2);
  assert.equal(r.state.tables.get(T2).alert, true);
  const warn = play(base, { type: "clock_warning", table_id: T1, remaining_ms: 5000 });
  assert.equal(warn.effects.find((e) => e.type === "toast").table_id, T1);
});

test("opening another table stops watching one only watched; leaving goes back to the lobby", () => {
  const watched = play(initialState({ current: T2, token: true }), welcome, { type: "snapshot", table: view(T2, [seat(1, BEN, "ben")]), chat: [] }).state;
  assert.ok(watched.tables.has(T2));
  const r = play(watched, { type: "ui_open_table", table_id: T1 });
  assert.deepEqual(sent(r.effects), [{ type: "unwatch", table_id: T2 }, { type: "watch", table_id: T1 }]);
  assert.ok(!r.state.tables.has(T2));
  const at = play(initialState({ current: T1, token: true }), welcome, { type: "snapshot", table: seated(T1), chat: [] }).state;
  const left = play(at, { type: "done", table_id: T1, request: "leave", amount: 100, pending: false });
  assert.equal(left.state.view, "lobby");
  assert.equal(left.state.current, null);
  assert.ok(!left.state.tables.has(T1));
  assert.ok(left.effects.some((e) => e.type === "remember_table" && e.table_id === null));
});

test("the lobby follows its updates; a closed table leaves it", () => {
  const line = { table_id: T1, name: "Main", game: "NL Hold'em", game_kind: "holdem", structure: "no_limit", status: "open" };
  const { state } = play(initialState(), { type: "tables", tables: [line] }, { type: "table_update", table: { ...line, table_id: T2 } });
  assert.deepEqual([...state.lobby.keys()], [T1, T2]);
  assert.deepEqual([...play(state, { type: "table_update", table: { ...line, status: "closed" } }).state.lobby.keys()], [T2]);
});

test("chat counts unread lines until the chat pane is opened; draw discards toggle", () => {
  const base = play(initialState({ current: T1, token: true }), welcome, { type: "snapshot", table: seated(T1), chat: [] }).state;
  const line = { player_id: BEN, name: "ben", text: "hi" };
  const r = play(base, { type: "chat", table_id: T1, line }, { type: "chat", table_id: T1, line });
  assert.equal(r.state.tables.get(T1).unread, 2);
  assert.equal(play(r.state, { type: "ui_pane", pane: "chat" }).state.tables.get(T1).unread, 0);
  const d = play(base, { type: "ui_discard", card: "Ks" }, { type: "ui_discard", card: "2c" }, { type: "ui_discard", card: "Ks" });
  assert.deepEqual(d.state.tables.get(T1).discards, ["2c"]);
  assert.deepEqual(newTable(T1).discards, []);
});

const DECK = (hand, n = "d1") => ({ hand_id: hand, size: 52, rounds: 1, commitment: n.repeat(32) });
const commits = (effects) => effects.filter((e) => e.type === "seed_commit");
const reveals = (effects) => effects.filter((e) => e.type === "seed_reveal");
const entry = (seat, commitment, house = false) => ({ seat, commitment, house });
const MINE = "c0".repeat(32);

test("a seated player commits to a seed for each new deck, once a hand; a spectator does not", () => {
  const base = play(initialState({ current: T1, token: true }), welcome, { type: "snapshot", table: seated(T1), chat: [] }).state;
  const c = { type: "deck_committed", table_id: T1, commitment: DECK("h1") };
  const r = play(base, c, c);
  assert.deepEqual(commits(r.effects), [{ type: "seed_commit", table_id: T1, hand_id: "h1", deck: "d1".repeat(32) }]);
  assert.deepEqual(sent(r.effects), [], "nothing is sent before the commitment is worked out");
  // main.js feeds the commitment back: it is sent once.
  const back = { type: "ui_seed_commitment", table_id: T1, hand_id: "h1", commitment: MINE };
  const s = play(r.state, back);
  assert.deepEqual(sent(s.effects), [{ type: "seed_commit", table_id: T1, hand_id: "h1", commitment: MINE }]);
  assert.deepEqual(sent(play(s.state, { ...back, hand_id: "h0" }).effects), [], "a late answer for another hand is dropped");
  // The next hand's deck: committed again; a snapshot with the same deck does not.
  const next = play(s.state, { type: "deck_committed", table_id: T1, commitment: DECK("h2", "d2") });
  assert.deepEqual(commits(next.effects).map((e) => e.hand_id), ["h2"]);
  const again = play(next.state, { type: "snapshot", table: seated(T1), chat: [], next_deck: DECK("h2", "d2") });
  assert.deepEqual(commits(again.effects), []);
  // A snapshot's next deck, new to the page (a reload), is committed to.
  const fresh = play(initialState({ current: T1, token: true }), welcome, { type: "snapshot", table: seated(T1), chat: [], next_deck: DECK("h3") });
  assert.deepEqual(commits(fresh.effects).map((e) => e.hand_id), ["h3"]);
  const watching = play(initialState({ current: T2, token: true }), welcome,
    { type: "snapshot", table: view(T2, [seat(1, BEN, "ben")]), chat: [], next_deck: DECK("h1") });
  assert.deepEqual(commits(watching.effects), []);
  assert.deepEqual(commits(play(watching.state, { ...c, table_id: T2 }).effects), []);
});

test("the sit carries the page's commitment for the deck the table shows, so the hand it starts includes its seed", () => {
  // A spectator's snapshot carries the next deck; main.js puts the commitment in the
  // `sit` and tells the reducer (ui_sit with `committed`): nothing more is sent for it.
  const watching = play(initialState({ current: T2, token: true }), welcome,
    { type: "snapshot", table: view(T2, [seat(1, BEN, "ben")]), chat: [], next_deck: DECK("h1") }).state;
  const r = play(watching, { type: "ui_sit", table_id: T2, committed: { hand_id: "h1", commitment: MINE } });
  assert.deepEqual(commits(r.effects), []);
  assert.deepEqual(sent(r.effects), []);
  // The snapshot that seats the player shows the same deck: not committed twice.
  const sat = play(r.state, { type: "snapshot", table: view(T2, [seat(0, ME, "ann"), seat(1, BEN, "ben")]), chat: [], next_deck: DECK("h1") });
  assert.deepEqual(commits(sat.effects), []);
  // The list closes with the commitment the sit carried: the seed is revealed.
  const closed = play(sat.state, { type: "seeds_closed", table_id: T2, hand_id: "h1", list: [{ seat: 0, commitment: MINE, house: false }] });
  assert.equal(closed.effects.filter((e) => e.type === "seed_reveal").length, 1);
  // A sit sent without a commitment (no deck was known to main.js, or a stale one)
  // commits once a deck is known, as a seated player does.
  const late = play(watching, { type: "ui_sit", table_id: T2, committed: null });
  assert.deepEqual(commits(late.effects).map((e) => e.hand_id), ["h1"]);
  // No deck known: nothing to commit to.
  const bare = play(initialState({ current: T2, token: true }), welcome, { type: "snapshot", table: view(T2, []), chat: [] }).state;
  assert.deepEqual(commits(play(bare, { type: "ui_sit", table_id: T2, committed: null }).effects), []);
});

test("the seed is revealed once the closed list holds this page's commitment, once, and never otherwise", () => {
  const base = play(initialState({ current: T1, token: true }), welcome, { type: "snapshot", table: seated(T1), chat: [] },
    { type: "deck_committed", table_id: T1, commitment: DECK("h1") },
    { type: "ui_seed_commitment", table_id: T1, hand_id: "h1", commitment: MINE }).state;
  const list = [entry(0, MINE), entry(3, "e0".repeat(32), true)];
  const closed = { type: "seeds_closed", table_id: T1, hand_id: "h1", list };
  const r = play(base, closed, closed);
  assert.deepEqual(reveals(r.effects), [{ type: "seed_reveal", table_id: T1, hand_id: "h1", deck: "d1".repeat(32), list }]);
  assert.deepEqual(sent(r.effects), [], "main.js sends the seed once it kept the list's digest");
  // A list without this page's commitment (it came too late): nothing is revealed.
  const without = play(base, { ...closed, list: [entry(3, "e0".repeat(32), true)] });
  assert.deepEqual(reveals(without.effects), []);
  // Another hand's list: nothing.
  assert.deepEqual(reveals(play(base, { ...closed, hand_id: "h0" }).effects), []);
  // After a reload, the snapshot carries the deck and its closed list: the page commits
  // again to the same seed (main.js finds it), sends no commitment the list would refuse,
  // and reveals once the commitment is worked out and found in the list.
  const reload = play(initialState({ current: T1, token: true }), welcome,
    { type: "snapshot", table: seated(T1), chat: [], next_deck: DECK("h1"), seeds_closed: list });
  assert.deepEqual(commits(reload.effects).map((e) => e.hand_id), ["h1"]);
  const back = play(reload.state, { type: "ui_seed_commitment", table_id: T1, hand_id: "h1", commitment: MINE });
  assert.deepEqual(sent(back.effects), []);
  assert.deepEqual(reveals(back.effects).map((e) => e.hand_id), ["h1"]);
  // A dropped connection: the snapshot that resyncs the table reveals again (the seed
  // sent may be lost; a repeat is refused harmlessly).
  const resync = play(r.state, { type: "conn_down" }, { type: "conn_up" },
    { type: "snapshot", table: seated(T1), chat: [], next_deck: DECK("h1"), seeds_closed: list },
    { type: "ui_seed_commitment", table_id: T1, hand_id: "h1", commitment: MINE });
  assert.deepEqual(reveals(resync.effects).map((e) => e.hand_id), ["h1"]);
});

test("a seed refused for a hand dealt without it is forgotten; other refusals keep it, silently", () => {
  const base = play(initialState({ current: T1, token: true }), welcome, { type: "snapshot", table: seated(T1), chat: [] },
    { type: "deck_committed", table_id: T1, commitment: DECK(T2) }).state;
  const r = play(base, { type: "error", code: "seed_refused", message: `hand ${T2} is not the next hand: it was dealt without this seed` });
  assert.deepEqual(r.effects, [{ type: "forget_seed", hand_id: T2 }]);
  assert.equal(r.state.tables.get(T1).seed, null);
  const repeat = play(base, { type: "error", code: "seed_refused", message: `hand ${T2}: you sent a commitment for this hand already` });
  assert.deepEqual(repeat.effects, [], "no toast, nothing forgotten");
  assert.equal(repeat.state.tables.get(T1).seed.hand_id, T2);
});

test("a line of the log with a key replaces the hand's line with that key (a second deck proof)", () => {
  const base = play(initialState({ current: T1, token: true }), welcome, { type: "snapshot", table: seated(T1), chat: [] }).state;
  const line = (text) => ({ type: "ui_log", table_id: T1, hand_number: 4, key: "proof", text });
  const r = play(base, line("first"), { type: "ui_log", table_id: T1, hand_number: 4, text: "other" }, line("second"), { ...line("hand 5"), hand_number: 5 });
  assert.deepEqual(r.state.tables.get(T1).log.map((l) => l.text), ["second", "other", "hand 5"]);
});

test("the winner of a hand nobody called may show it once; a folded player may not", async () => {
  const { canShowHand } = await import("../js/reduce.js");
  const events = [
    ...BLINDS,
    { type: "hole_dealt", player: 0, cards: "AsKd", up: 0 },
    { type: "hole_dealt", player: 1, cards: "????", up: 0 },
    { type: "bet_to", player: 0, to: 6, amount: 5, all_in: false, full: true },
    { type: "folded", player: 1 },
    { type: "uncalled_returned", player: 0, amount: 4 },
    { type: "pot_awarded", pot: 0, share: "all", amount: 4, winners: [[0, 4]] },
    { type: "hand_ended", stacks: [102, 98] },
  ];
  const won = play(initialState({ current: T1, token: true }), welcome, { type: "snapshot", table: seated(T1), hand: hand(5, events), chat: [] }).state;
  assert.equal(canShowHand(won, won.tables.get(T1)), true);
  const asked = play(won, { type: "ui_show_hand" });
  assert.deepEqual(sent(asked.effects), [{ type: "show_hand", table_id: T1 }]);
  assert.equal(canShowHand(asked.state, asked.state.tables.get(T1)), false, "asked once");
  const shown = play(asked.state, { type: "event", table_id: T1, hand_number: 5, seats: [0, 1], event: { type: "shown", player: 0, cards: "AsKd" }, hand_name: "high card, Ace" });
  assert.match(shown.state.tables.get(T1).log.at(-1).text, /^You show As Kd/);
  // Ben, who folded, sees no such button.
  const benView = play(initialState({ current: T1, token: true }), { ...welcome, player_id: BEN, name: "ben" },
    { type: "snapshot", table: seated(T1), hand: hand(5, events), chat: [] }).state;
  assert.equal(canShowHand(benView, benView.tables.get(T1)), false);
  assert.deepEqual(sent(play(benView, { type: "ui_show_hand" }).effects), []);
});

test("a seat released after the player was away: said, and the page goes back to the lobby", async () => {
  const { reduce, initialState } = await import("../js/reduce.js");
  const { player } = await import("./play.mjs");
  const T = "t1";
  const table = { table_id: T, name: "Main", seat_count: 6, button: null, seats: [], min_buy_in: 40, max_buy_in: 200, blinds: [1, 2],
    action_ms: 30000, time_bank_ms: 0, game: "NL Hold'em", game_kind: "holdem", structure: "no_limit", stakes: "1/2", chat: true,
    waitlist: 0, straddle: false, rabbit_hunt: false, private: null };
  const { state, effects } = player(reduce)(initialState({ current: T, token: true }), { type: "welcome", player_id: "p", name: "ann" },
    { type: "snapshot", table, chat: [] }, { type: "seat_released", table_id: T, away_secs: 3700, amount: 180 });
  assert.deepEqual(effects.filter((e) => e.type === "toast").map((e) => e.text),
    ["You were away from Main for 62 minutes: your seat was released and 180 chips are back in your wallet."]);
  assert.equal(state.view, "lobby");
  assert.equal(state.tables.has(T), false);
});

test("a seat released while the page was closed: told after the welcome, by the table's name", async () => {
  const { reduce, initialState } = await import("../js/reduce.js");
  const { player } = await import("./play.mjs");
  const { state, effects } = player(reduce)(initialState({ current: null, token: true }), { type: "welcome", player_id: "p", name: "ann" },
    { type: "seat_released", table_id: "t9", away_secs: 7200, amount: 95, table_name: "Friday game" });
  assert.deepEqual(effects.filter((e) => e.type === "toast").map((e) => e.text),
    ["You were away from Friday game for 120 minutes: your seat was released and 95 chips are back in your wallet."]);
  assert.equal(state.tables.has("t9"), false);
});

test("h1 h3: each hand is drawn by its own game, and a bomb pot says so in the log", async () => {
  const { gameOf, family } = await import("../js/state.js");
  const rotation = { games: [], now: 1, next: 0, hands_left: 2 };
  // The seats message before hand 8 says Omaha and a bomb pot; before hand 9, triple draw.
  const omaha = { type: "seats", table_id: T1, table: seated(T1) };
  omaha.table = { ...omaha.table, game: "PL Omaha", game_kind: "omaha", structure: "pot_limit", dealers_choice: rotation, bomb_pot: { every: 4, big_blinds: 2, now: true } };
  const snap = { type: "snapshot", table: seated(T1), hand: null, chat: [] };
  const ante = (p) => ({ type: "ante_posted", player: p, amount: 4 });
  let { state } = play(initialState({ current: T1, token: true }), welcome, snap, omaha,
    { type: "event", table_id: T1, hand_number: 8, seats: [0, 1], event: ante(0) });
  let T = state.tables.get(T1);
  assert.equal(T.log.find((l) => l.hand === 8).text, "Hand #8 \u00b7 PL Omaha \u00b7 Bomb pot");
  assert.equal(T.hand.bomb_pot, true);
  assert.deepEqual(gameOf(T), { game_kind: "omaha", structure: "pot_limit" });
  // Between hands the table already says the next game: the hand shown keeps its own.
  const draw = { ...omaha, table: { ...omaha.table, game: "FL 2-7 Triple Draw", game_kind: "deuce_to_seven_triple_draw", structure: "fixed_limit", bomb_pot: null } };
  state = play(state, draw).state;
  T = state.tables.get(T1);
  assert.equal(family(gameOf(T)), "board", "hand 8 is still Omaha's");
  state = play(state, { type: "event", table_id: T1, hand_number: 9, seats: [0, 1], event: BLINDS[0] }).state;
  T = state.tables.get(T1);
  assert.equal(family(gameOf(T)), "draw");
  assert.equal(T.hand.bomb_pot, false);
  // A snapshot mid-hand carries the hand's game.
  const mid = { type: "snapshot", table: seated(T1), hand: { ...hand(10, BLINDS), game_kind: "badugi", structure: "fixed_limit" }, chat: [] };
  T = play(state, mid).state.tables.get(T1);
  assert.equal(family(gameOf(T)), "draw");
});
