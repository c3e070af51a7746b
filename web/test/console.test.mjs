// The operators' console's state machine under node (web/js/admin.js's `reduceConsole`):
// each operator action and each answer of the admin API gives the next state and the
// effects (the calls to make, the live view's timer, the session's token); the state
// given is never changed.
import test from "node:test";
import assert from "node:assert/strict";
import { reduceConsole, initialConsole, withinDays, pairQuery, metric, booksBalance, PAIR_SORT } from "../js/admin.js";

import { player } from "./play.mjs";

/** Feeds messages in order; returns the last state and every effect (the state given is never changed). */
const play = player(reduceConsole);
const calls = (effects) => effects.filter((e) => e.type === "call").map((e) => `${e.method} ${e.path} -> ${e.then}`);
const live = (effects) => effects.filter((e) => e.type === "live").map((e) => e.on);
const ADMIN = { role: "admin", actor: "token" };
const signedIn = () => play(initialConsole("tok"), { type: "ui_sign_in", token: "tok" }, { type: "got_whoami", answer: ADMIN }).state;
const table = (id, name, status = "open") => ({ table_id: id, name, status, seats: [], rules: { game: "holdem", structure: "no_limit", seat_count: 6, small_blind: 1, big_blind: 2 } });

test("signing in asks who the token is, keeps it, then shows the tables and reads them once with the presets", () => {
  let { state, effects } = play(initialConsole(), { type: "ui_sign_in", token: "tok" });
  assert.deepEqual(calls(effects), ["GET /admin/whoami -> got_whoami"]);
  ({ state, effects } = play(state, { type: "got_whoami", answer: ADMIN }));
  assert.equal(state.role, "admin");
  assert.deepEqual(effects.filter((e) => e.type === "keep_token"), [{ type: "keep_token", token: "tok" }]);
  assert.deepEqual(calls(effects), ["GET /admin/tables -> got_tables"]);
  ({ state, effects } = play(state, { type: "got_tables", answer: [table("t1", "Main")] }));
  assert.deepEqual(state.tableNames, { t1: "Main" });
  assert.deepEqual(calls(effects), ["GET /admin/presets -> got_presets"]);
  ({ effects } = play(state, { type: "got_tables", answer: [] }));
  assert.deepEqual(calls(effects), [], "the presets are read once");
  ({ effects } = play(state, { type: "got_presets", answer: [{ key: "nlhe", body: {} }] }));
  assert.deepEqual(effects, [{ type: "form" }], "then the form is built");
});

test("a wrong token or staff password is said on the sign-in screen and forgotten", () => {
  let { state, effects } = play(initialConsole(), { type: "ui_sign_in", token: "bad" },
    { type: "refused", then: "got_whoami", error: { status: 401, message: "unauthorized" } });
  assert.equal(state.token, null);
  assert.equal(state.signInError, "That token or session is not valid.");
  assert.ok(effects.some((e) => e.type === "forget_token"));
  ({ state, effects } = play(initialConsole(), { type: "ui_staff_sign_in", name: "carla", password: "x" }));
  assert.deepEqual(effects[0].body, { name: "carla", password: "x" });
  assert.equal(effects[0].auth, false, "the login itself carries no token");
  ({ state } = play(state, { type: "refused", then: "did_staff_login", error: { status: 401, message: "wrong name or password" } }));
  assert.equal(state.signInError, "wrong name or password");
});

test("a session that ends under the console goes back to the sign-in screen, saying why", () => {
  const { state, effects } = play(signedIn(), { type: "refused", then: "got_players", error: { status: 401, message: "session ended" } });
  assert.equal(state.role, null);
  assert.equal(state.token, null);
  assert.match(state.signInError, /Your session has ended/);
  assert.deepEqual(live(effects), [false], "the live view stops");
  assert.equal(state.notice.text, "session ended");
  assert.equal(state.notice.bad, true);
});

test("the live view is read every 2 s until another section is shown or the table closes; a late answer for another table is dropped", () => {
  let { state, effects } = play(signedIn(), { type: "ui_live", table_id: "t1" });
  assert.deepEqual(live(effects), [true]);
  assert.deepEqual(calls(effects), ["GET /admin/tables/t1 -> got_live"]);
  const view = (status) => ({ status, table: { name: "Main", seats: [] }, hands_dealt: 3 });
  ({ state, effects } = play(state, { type: "got_live", table_id: "t1", answer: view("open") }, { type: "ui_live_tick" }));
  assert.equal(state.live.view.hands_dealt, 3);
  assert.deepEqual(calls(effects), ["GET /admin/tables/t1 -> got_live"]);
  ({ state } = play(state, { type: "ui_live", table_id: "t2" }, { type: "got_live", table_id: "t1", answer: view("open") }));
  assert.equal(state.live.table_id, "t2");
  ({ state, effects } = play(state, { type: "got_live", table_id: "t2", answer: view("closed") }));
  assert.deepEqual(live(effects), [false], "a closed table is not read again");
  ({ effects } = play(state, { type: "ui_show", section: "staff" }));
  assert.deepEqual(live(effects), [false]);
  assert.deepEqual(calls(effects), ["GET /admin/staff -> got_staff"]);
});

test("a new table: its problems go to the form, or under the JSON; once made it is viewed live and the list read again", () => {
  const body = { name: "New", rules: {} };
  let { effects } = play(signedIn(), { type: "ui_create_table", body },
    { type: "refused", then: "did_create_table", fromJson: false, name: "New", error: { status: 400, message: "a; b", problems: [] } });
  assert.deepEqual(effects.at(-1), { type: "problems", problems: [{ field: "", message: "a" }, { field: "", message: "b" }], fromJson: false });
  ({ effects } = play(signedIn(), { type: "refused", then: "did_create_table", fromJson: true, error: { status: 400, message: "x", problems: [{ field: "name", message: "missing" }] } }));
  assert.deepEqual(effects.at(-1), { type: "problems", problems: [{ field: "name", message: "missing" }], fromJson: true });
  const made = play(signedIn(), { type: "did_create_table", name: "New", answer: { table_id: "t9" } });
  assert.equal(made.state.notice.text, "Table opened: New");
  assert.equal(made.state.live.table_id, "t9");
  assert.deepEqual(calls(made.effects), ["GET /admin/tables -> got_tables", "GET /admin/tables/t9 -> got_live"]);
});

test("money moves once per intent: the key comes with the player read, a new one after the movement", () => {
  const ann = { player_id: "p1", name: "ann", balance: 100, locked: false };
  let { state, effects } = play(signedIn(), { type: "ui_search_players", q: "an" }, { type: "ui_open_player", id: "p1" });
  assert.deepEqual(calls(effects), ["GET /admin/players?q=an -> got_players", "GET /admin/players/p1 -> got_player"]);
  assert.equal(effects.at(-1).fresh, "money", "the player is read with a new key");
  ({ state, effects } = play(state, { type: "got_player", answer: ann, key: "money-1" }));
  assert.deepEqual(calls(effects), ["GET /admin/players/p1/ledger -> got_ledger"]);
  ({ effects } = play(state, { type: "ui_money", kind: "deposit", amount: 0 }));
  assert.equal(calls(effects).length, 0);
  ({ state, effects } = play(state, { type: "ui_money", kind: "deposit", amount: 250 }));
  assert.deepEqual(effects[0].body, { amount: 250, idempotency_key: "money-1" });
  ({ state, effects } = play(state, { type: "ui_money", kind: "deposit", amount: 250 }));
  assert.equal(effects[0].body.idempotency_key, "money-1", "a second click before the answer: the same key");
  ({ state, effects } = play(state, { ...effects[0].ctx, type: "did_money", answer: { balance: 350 } }));
  assert.equal(state.notice.text, "Deposited 250 for ann \u00b7 p1: wallet 350");
  assert.deepEqual(calls(effects), ["GET /admin/players/p1 -> got_player", "GET /admin/players?q=an -> got_players"], "the player and the list read again");
  assert.deepEqual(effects.find((e) => e.type === "clear"), { type: "clear", ids: ["#money-amount"] });
});

test("a reset code is shown for its player only", () => {
  const ann = { player_id: "p1", name: "ann" };
  let { state } = play(signedIn(), { type: "got_player", answer: ann, key: "k" },
    { type: "did_reset_code", player: ann, answer: { code: "ABCDE-FGHIJ", expires_at: 1 } });
  assert.equal(state.code.code, "ABCDE-FGHIJ");
  ({ state } = play(state, { type: "got_player", answer: ann, key: "k2" }));
  assert.ok(state.code, "the same player read again keeps it");
  ({ state } = play(state, { type: "got_player", answer: { player_id: "p2", name: "ben" }, key: "k3" }));
  assert.equal(state.code, null);
});

test("hands by player or table, within the days chosen; without either, the operator is told", () => {
  let { state, effects } = play(signedIn(), { type: "ui_find_hands", playerId: "", table: "" });
  assert.equal(state.notice.text, "Choose a table or a player");
  ({ effects } = play(state, { type: "ui_find_hands", playerId: "p1", table: "t1", from: "2024-01-02", to: "2024-01-02" }));
  assert.deepEqual(calls(effects), ["GET /admin/players/p1/hands?limit=500 -> got_hands"]);
  const day = Date.parse("2024-01-02");
  const hands = [{ hand_id: "a", table_id: "t1", started_at: day + 1 }, { hand_id: "b", table_id: "t2", started_at: day + 2 },
    { hand_id: "c", table_id: "t1", started_at: day + 86_400_000 }];
  ({ state } = play(state, { type: "got_hands", answer: hands, ...effects[0].ctx }));
  assert.deepEqual(state.hands.map((h) => h.hand_id), ["a"]);
  ({ state } = play(state, { type: "got_hands", answer: [], table: "", from: "", to: "" }));
  assert.equal(state.notice.text, "No hands found");
  assert.deepEqual(withinDays(hands, "", "").length, 3);
});

test("hands by a player's name typed: looked up and searched in one click", () => {
  let { state, effects } = play(signedIn(), { type: "ui_find_hands", playerId: "", q: "Ann", table: "", from: "", to: "" });
  assert.deepEqual(calls(effects), ["GET /admin/players?q=Ann -> got_hand_players"]);
  const found = [{ player_id: "p2", name: "annie" }, { player_id: "p1", name: "ann" }];
  ({ state, effects } = play(state, { type: "got_hand_players", answer: found, ...effects[0].ctx }));
  assert.deepEqual(calls(effects), ["GET /admin/players/p1/hands?limit=500 -> got_hands"], "the exact name, at once");
  assert.deepEqual(state.handPlayers, found);
  ({ state, effects } = play(state, { type: "ui_find_hands", playerId: "", q: "an", table: "", from: "", to: "" }));
  ({ state, effects } = play(state, { type: "got_hand_players", answer: found, ...effects[0].ctx }));
  assert.deepEqual(calls(effects), [], "two players named like it: the operator chooses");
  assert.equal(state.notice.text, "Choose the player among the 2 found");
});

test("a player's hands: chosen as the hands' player, and searched at once in the hands section", () => {
  const ann = { player_id: "p1", name: "ann" };
  const { state, effects } = play(signedIn(), { type: "got_player", answer: ann, key: "k" }, { type: "ui_player_hands", inputs: { from: "", to: "" } });
  assert.equal(state.section, "hands");
  assert.deepEqual(state.handPlayers, [ann]);
  assert.ok(calls(effects).includes("GET /admin/players/p1/hands?limit=500 -> got_hands"));
  assert.ok(effects.some((e) => e.type === "clear" && e.ids.includes("#hand-table")));
});

test("the room's figures are read in turn: the audit, pokerd's metrics, the rake per day, then per table", () => {
  let { state, effects } = play(signedIn(), { type: "ui_show", section: "room" });
  assert.deepEqual(calls(effects), ["GET /admin/audit -> got_audit"]);
  const audit = { wallets: 900, stacks: 100, rake: 0, deposits: 1000, withdrawals: 0, unbalanced_movements: 0, mismatched_accounts: [] };
  ({ state, effects } = play(state, { type: "got_audit", answer: audit }));
  assert.deepEqual(calls(effects), ["GET /metrics -> got_metrics"]);
  assert.equal(effects[0].auth, false);
  ({ state, effects } = play(state, { type: "got_metrics", answer: "poker_tables 3\npoker_connections{node=\"a\"} 7\n" }));
  assert.deepEqual(calls(effects), ["GET /admin/rake?days=30&by=day -> got_rake"]);
  const perDay = { days: 30, total: 7, rows: [{ day: "2026-12-06", hands: 3, rake: 7 }] };
  ({ state, effects } = play(state, { type: "got_rake", answer: perDay }));
  assert.deepEqual(calls(effects), ["GET /admin/rake?days=30&by=table -> got_rake_tables"]);
  const perTable = { days: 30, total: 7, rows: [{ table_id: "t1", table_name: "Main", hands: 3, rake: 7 }] };
  ({ state, effects } = play(state, { type: "got_rake_tables", answer: perTable }));
  assert.deepEqual([state.room.rake, state.room.rakeTables], [perDay, perTable]);
  assert.equal(metric(state.room.metrics, "poker_tables"), 3);
  assert.equal(metric(state.room.metrics, "poker_connections"), 7);
  assert.equal(metric(state.room.metrics, "poker_hands_total"), "\u2013");
  assert.equal(booksBalance(audit), true);
  assert.equal(booksBalance({ ...audit, rake: 1 }), false);
});

test("fair play: the pair report sorted by a column, and a pair's hands within the report's days", () => {
  let { state, effects } = play(signedIn(), { type: "ui_show", section: "fairplay", inputs: { pairFrom: "2024-01-01", pairTo: "", pairMax: "" } });
  assert.deepEqual(calls(effects), ["GET /admin/fair-play/flags -> got_flags", "GET /admin/tables -> got_tables",
    `GET /admin/fair-play/pairs?sort=${PAIR_SORT}&max_hands=20000&since=${Date.parse("2024-01-01")} -> got_pairs`]);
  ({ state, effects } = play(state, { type: "ui_pair_sort", sort: "net", inputs: { pairMax: "500" } }));
  assert.equal(state.pairSort, "net");
  assert.deepEqual(calls(effects), ["GET /admin/fair-play/pairs?sort=net&max_hands=500 -> got_pairs"]);
  const q = pairQuery("hands", { pairFrom: "2024-01-01", pairTo: "2024-01-02" });
  ({ state } = play(state, { type: "got_pairs", answer: { pairs: [] }, query: q }));
  const a = { player_id: "aaaaaaaa-1", name: "ann" };
  const b = { player_id: "bbbbbbbb-2", name: "ben" };
  ({ state, effects } = play(state, { type: "ui_pair_hands", pair: { a, b } }));
  assert.deepEqual(calls(effects), [`GET /admin/fair-play/pairs/${a.player_id}/${b.player_id}/hands?limit=500&since=${Date.parse("2024-01-01")}&until=${Date.parse("2024-01-02") + 86_400_000} -> got_pair_hands`]);
  ({ state } = play(state, { type: "got_pair_hands", pair: { a, b }, answer: [{ hand_id: "h" }] }, { type: "got_pair_hand", number: 4, answer: "text" }));
  assert.equal(state.pairDetail.title, "ann (aaaaaaaa) and ben (bbbbbbbb): 1 hands");
  assert.deepEqual(state.pairHand, { number: 4, text: "text" });
  ({ state } = play(state, { type: "ui_flag_hands", flag: { player: a, other: b, table_name: "Main", hands: [] } }));
  assert.equal(state.pairDetail.title, "ann and ben at Main");
  assert.equal(state.pairHand, null, "a new list closes the hand shown");
});

test("a staff change is said and the staff list read again, refused or not", () => {
  const carla = { staff_id: "s1", name: "Carla" };
  let { state, effects } = play(signedIn(), { type: "ui_staff", staff: carla, what: "sign-out" });
  assert.deepEqual(calls(effects), ["POST /admin/staff/s1/sign-out -> did_staff"]);
  ({ state, effects } = play(state, { type: "did_staff", ...effects[0].ctx, answer: { sessions_ended: 2 } }));
  assert.equal(state.notice.text, "Carla signed out: 2 session(s) ended");
  assert.deepEqual(calls(effects), ["GET /admin/staff -> got_staff"]);
  ({ state, effects } = play(state, { type: "refused", then: "did_staff", staff: carla, error: { status: 409, message: "last_admin" } }));
  assert.equal(state.notice.text, "last_admin");
  assert.deepEqual(calls(effects), ["GET /admin/staff -> got_staff"]);
  assert.equal(state.role, "admin", "a refusal other than 401 keeps the session");
});

test("signing out ends a staff session on the server with its token", () => {
  const staff = play(initialConsole("tok"), { type: "got_whoami", answer: { role: "floor", actor: "staff:fred" } }).state;
  const { state, effects } = play(staff, { type: "ui_sign_out" });
  assert.deepEqual(effects, [{ type: "sign_out", staff: true, token: "tok" }]);
  assert.equal(state.token, null);
});
