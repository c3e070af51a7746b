// Private games' pure logic under node (web/js/private.js): reading an invite link, the
// stakes as players read them, a guest's generated password, and where a player stands
// at a private table (asking, let in, seated).
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
  assert.deepEqual(seatChoices(game("razz")), [2, 6, 7]);
  assert.deepEqual(seatChoices(game("triple_draw")), [2, 6, 8]);
});
