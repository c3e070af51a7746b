// The browser client's state logic under node (`node --test web/test/`): a hand rebuilt
// from events with its log, pots, bet sizing per structure, seat layout, settings, and
// the colour contrast of the style sheet's controls.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  applyEvent, newHand, potsOf, sizing, raiseLabel, completes, callLabel, legalAmount, seatPosition,
  loadSettings, saveSettings, DEFAULT_SETTINGS, contrast, family, cardName, spokenHand,
} from "../js/state.js";

const names = ["ann", "ben", "cat"];
const ctx = (me = null, extra = {}) => ({ name: (seat) => names[seat], me, blinds: [1, 2], game: "NL Hold'em", ...extra });

test("a hold'em hand: state, log lines and per-pot results", () => {
  const h = newHand({ hand_number: 7, seats: [0, 1, 2], starting_stacks: [100, 50, 100], button: 2 });
  const log = [];
  const play = (e, c = ctx(0)) => { const line = applyEvent(h, e, c); if (line) log.push(line); };
  play({ type: "blind_posted", player: 0, amount: 1 });
  play({ type: "blind_posted", player: 1, amount: 2 });
  play({ type: "hole_dealt", player: 0, cards: "AsKd", up: 0 });
  play({ type: "hole_dealt", player: 1, cards: "????", up: 0 });
  play({ type: "round_started", street: 0 });
  play({ type: "bet_to", player: 2, to: 6, amount: 6, all_in: false, full: true });
  play({ type: "called", player: 0, amount: 5, all_in: false });
  play({ type: "bet_to", player: 1, to: 50, amount: 48, all_in: true, full: true });
  play({ type: "called", player: 2, amount: 44, all_in: false });
  play({ type: "folded", player: 0 });
  assert.deepEqual(potsOf(h), [106]);
  play({ type: "bets_collected", pot: 106 });
  play({ type: "board_dealt", cards: "2c7d9h" });
  assert.equal(h.board.length, 3);
  play({ type: "shown", player: 1, cards: "QsQh" }, ctx(0, { handName: "a pair of Queens" }));
  play({ type: "pot_awarded", pot: 0, share: "all", amount: 106, winners: [[1, 106]] });
  play({ type: "hand_ended", stacks: [94, 106, 0] });
  assert.ok(h.ended);
  assert.equal(h.players[1].won, 106);
  assert.equal(h.players[1].handName, "a pair of Queens");
  assert.deepEqual(h.results, [{ pot: 0, run: 0, share: "all", amount: 106, winners: [[1, 106]] }]);
  assert.deepEqual(log, [
    "You post the small blind of 1",
    "ben posts the big blind of 2",
    "Dealt to you: As Kd",
    "cat raises to 6",
    "You call 5",
    "ben raises to 50, all in",
    "cat calls 44",
    "You fold",
    "Flop: 2c 7d 9h",
    "ben shows Qs Qh (a pair of Queens)",
    "ben wins 106 from the main pot",
  ]);
});

test("side pots while all-ins are pending, and results by run", () => {
  const h = newHand({ hand_number: 1, seats: [0, 1, 2], starting_stacks: [20, 50, 100], button: 0 });
  applyEvent(h, { type: "bet_to", player: 0, to: 20, amount: 20, all_in: true, full: true });
  applyEvent(h, { type: "bet_to", player: 1, to: 50, amount: 50, all_in: true, full: true });
  applyEvent(h, { type: "called", player: 2, amount: 50, all_in: false });
  assert.deepEqual(potsOf(h), [60, 60]);
  applyEvent(h, { type: "bets_collected", pot: 120 });
  applyEvent(h, { type: "running_twice" });
  const line = applyEvent(h, { type: "pot_awarded", pot: 1, run: 1, share: "all", amount: 30, winners: [[2, 30]] }, ctx());
  assert.equal(line, "cat wins 30 from side pot 1 on the second run");
  const split = applyEvent(h, { type: "pot_awarded", pot: 0, run: 0, share: "low", amount: 61, winners: [[0, 31], [1, 30]] }, ctx(1));
  assert.equal(split, "ann and you split the main pot (low) on the first run (61): ann 31, you 30");
});

test("stud: up and down cards are told apart, the bring-in is completed", () => {
  const h = newHand({ hand_number: 1, seats: [0, 1], starting_stacks: [100, 100], button: 0 });
  const c = ctx(0, { family: family("stud") });
  applyEvent(h, { type: "hole_dealt", player: 0, cards: "AsKd7c", up: 4 }, c);
  applyEvent(h, { type: "hole_dealt", player: 1, cards: "????2h", up: 4 }, c);
  assert.deepEqual(h.players[0].up, [false, false, true]);
  assert.deepEqual(h.players[1].cards, ["??", "??", "2h"]);
  assert.equal(applyEvent(h, { type: "round_started", street: 0 }, c), "\u2014 3rd Street \u2014");
  assert.equal(applyEvent(h, { type: "bring_in_posted", player: 1, amount: 1 }, c), "ben brings in for 1");
  assert.equal(applyEvent(h, { type: "bet_to", player: 0, to: 4, amount: 4, all_in: false, full: true }, c), "You complete to 4");
  assert.equal(applyEvent(h, { type: "bet_to", player: 1, to: 8, amount: 7, all_in: false, full: true }, c), "ben raises to 8");
});

test("stud: nobody completed on 3rd street, so 4th street's first bet is a bet, not a completion", () => {
  const h = newHand({ hand_number: 1, seats: [0, 1], starting_stacks: [100, 100], button: 0 });
  const c = ctx(0, { family: family("stud") });
  applyEvent(h, { type: "round_started", street: 0 }, c);
  applyEvent(h, { type: "bring_in_posted", player: 1, amount: 1 }, c);
  assert.equal(completes(h), true);
  applyEvent(h, { type: "called", player: 0, amount: 1, all_in: false }, c);
  applyEvent(h, { type: "bets_collected", pot: 2 }, c);
  applyEvent(h, { type: "round_started", street: 1 }, c);
  assert.equal(completes(h), false);
  assert.equal(raiseLabel(4, { facing: false, completing: completes(h), allIn: -1 }), "Bet 4");
  assert.equal(applyEvent(h, { type: "bet_to", player: 1, to: 4, amount: 4, all_in: false, full: true }, c), "ben bets 4");
});

test("draw: discards leave the hand, others' are counted only", () => {
  const h = newHand({ hand_number: 1, seats: [0, 1], starting_stacks: [100, 100], button: 0 });
  const c = ctx(0, { family: family({ game_kind: "deuce_to_seven_triple_draw" }) });
  applyEvent(h, { type: "hole_dealt", player: 0, cards: "2c3d4h8sKs", up: 0 }, c);
  applyEvent(h, { type: "hole_dealt", player: 1, cards: "??????????", up: 0 }, c);
  assert.equal(applyEvent(h, { type: "discarded", player: 0, cards: "Ks8s" }, c), "You draw 2 (throwing Ks 8s)");
  assert.deepEqual(h.players[0].cards, ["2c", "3d", "4h"]);
  assert.equal(applyEvent(h, { type: "discarded", player: 1, cards: "????" }, c), "ben draws 2");
  assert.equal(h.players[1].cards.length, 3);
  assert.equal(applyEvent(h, { type: "discarded", player: 1, cards: "" }, c), "ben stands pat");
  assert.equal(applyEvent(h, { type: "round_started", street: 1 }, c), "\u2014 After the first draw \u2014");
  assert.equal(family("badugi"), "draw");
  assert.equal(family("razz"), "stud");
  assert.equal(family({ game_kind: "omaha_hi_lo" }), "board");
  // A label is for people: it is never parsed (a table named "Stud night" plays hold'em).
  assert.equal(family("FL 7 Card Stud"), "board");
});

test("sizing: fixed limit has one amount, no presets, and is not all in", () => {
  const s = sizing({ bet_or_raise: [2, 2], call: null, unit: 0 }, { structure: "fixed_limit", myBet: 0, myStack: 99, pot: 3 });
  assert.equal(s.fixed, true);
  assert.deepEqual(s.presets, []);
  assert.equal(raiseLabel(2, { facing: false, allIn: s.allIn }), "Bet 2");
  assert.equal(raiseLabel(4, { facing: true, allIn: s.allIn }), "Raise to 4");
  // Short in fixed limit: the one amount is the whole stack.
  const short = sizing({ bet_or_raise: [3, 3], call: 2, unit: 0 }, { structure: "fixed_limit", myBet: 0, myStack: 3, pot: 3 });
  assert.equal(raiseLabel(3, { facing: true, allIn: short.allIn }), "Raise to 3 (all in)");
  assert.equal(callLabel({ call: 2 }, 3), "Call 2");
  assert.equal(callLabel({ call: 3 }, 3), "Call 3 (all in)");
});

test("sizing: no limit presets, pot limit's maximum says Pot, spread has min and max", () => {
  const nl = sizing({ bet_or_raise: [4, 100], call: 2, unit: 0 }, { structure: "no_limit", myBet: 0, myStack: 100, pot: 3 });
  assert.deepEqual(nl.presets.map((p) => [p.label, p.to]), [["Min", 4], ["\u00bd Pot", 5], ["Pot", 7], ["All in", 100]]);
  const pl = sizing({ bet_or_raise: [4, 7], call: 2, unit: 0 }, { structure: "pot_limit", myBet: 0, myStack: 100, pot: 3 });
  assert.deepEqual(pl.presets.map((p) => [p.label, p.to]), [["Min", 4], ["\u00bd Pot", 5], ["Pot", 7]]);
  assert.equal(raiseLabel(7, { facing: true, allIn: pl.allIn }), "Raise to 7");
  const spread = sizing({ bet_or_raise: [1, 5], call: null, unit: 0 }, { structure: "spread_limit", myBet: 0, myStack: 50, pot: 2 });
  assert.deepEqual(spread.presets.map((p) => p.label), ["Min", "Max"]);
  // A pot bigger than the stack: the pot preset is the all in, shown once.
  const deep = sizing({ bet_or_raise: [4, 30], call: 0, unit: 0 }, { structure: "no_limit", myBet: 0, myStack: 30, pot: 80 });
  assert.deepEqual(deep.presets.map((p) => p.label), ["Min", "All in"]);
  assert.equal(legalAmount({ bet_or_raise: [4, 100], unit: 5 }, "37"), 35);
  assert.equal(legalAmount({ bet_or_raise: [4, 100], unit: 5 }, "1000"), 100);
  assert.equal(legalAmount({ bet_or_raise: [4, 100], unit: 0 }, "abc"), 4);
});

test("seats: mine at the bottom, every layout from 2 to 10 seats apart and on the felt", () => {
  for (const portrait of [false, true]) {
    for (let n = 2; n <= 10; n++) {
      for (let mine = 0; mine < n; mine++) {
        const ps = [...Array(n).keys()].map((i) => seatPosition(i, n, mine, portrait));
        assert.ok(ps[mine].top > 90, "my seat is at the bottom");
        for (const p of ps) assert.ok(p.left >= 0 && p.left <= 100 && p.top >= 0 && p.top <= 100);
        for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) {
          const d = Math.hypot(ps[i].left - ps[j].left, ps[i].top - ps[j].top);
          assert.ok(d > 15, `${n} seats: ${i} and ${j} are ${d.toFixed(1)} apart`);
        }
      }
    }
  }
});

test("seats are spaced evenly along a wide oval, not bunched at its ends", () => {
  const spread = (positions, aspect) => {
    const px = positions.map((p) => [p.left * aspect, p.top]);
    const gaps = px.map((p, i) => { const q = px[(i + 1) % px.length]; return Math.hypot(p[0] - q[0], p[1] - q[1]); });
    return Math.max(...gaps) / Math.min(...gaps);
  };
  const byAngle = (n, aspect) => [...Array(n).keys()].map((k) => {
    const t = Math.PI / 2 + (2 * Math.PI * k) / n;
    return { left: 50 + 46 * Math.cos(t), top: 50 + 47 * Math.sin(t) };
  });
  for (const aspect of [1.6, 2.3, 3]) {
    for (const n of [6, 8, 9]) {
      const along = spread([...Array(n).keys()].map((i) => seatPosition(i, n, 0, false, aspect)), aspect);
      const old = spread(byAngle(n, aspect), aspect);
      // Neighbours' distances differ by under 70% (equal angles: up to 2.6 times).
      assert.ok(along < 1.7 && along < old, `${n} seats on a ${aspect}:1 felt: ${along.toFixed(2)} (by angle ${old.toFixed(2)})`);
    }
  }
});

test("settings: defaults, saved per player, garbage ignored", () => {
  const store = new Map();
  const storage = { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => store.set(k, v) };
  assert.deepEqual(loadSettings(storage, "p1"), { ...DEFAULT_SETTINGS, muted: [] });
  assert.equal(DEFAULT_SETTINGS.sound, false, "sounds are off by default");
  saveSettings(storage, "p1", { ...DEFAULT_SETTINGS, fourColor: true, muted: ["p2"] });
  assert.equal(loadSettings(storage, "p1").fourColor, true);
  assert.deepEqual(loadSettings(storage, "p1").muted, ["p2"]);
  assert.equal(loadSettings(storage, "p9").fourColor, false, "another player's settings are theirs");
  store.set("pokerd.settings.p3", "{not json");
  assert.equal(loadSettings(storage, "p3").sound, false);
  store.set("pokerd.settings.p4", JSON.stringify({ sound: "yes", muted: [1, "x"], evil: true }));
  assert.deepEqual(loadSettings(storage, "p4"), { ...DEFAULT_SETTINGS, muted: ["x"] });
  assert.equal(cardName("Td"), "Ten of diamonds");
});

test("the style sheet's controls meet WCAG AA contrast (4.5:1)", () => {
  const css = readFileSync(new URL("../style.css", import.meta.url), "utf8");
  const v = (name) => css.match(new RegExp("--" + name + ":\\s*(#[0-9a-fA-F]{6})"))[1];
  const pairs = [
    ["text", "bg"], ["text", "panel"], ["muted", "bg"], ["muted", "panel"], ["on-primary", "primary"],
    ["on-danger", "danger"], ["text", "button"], ["accent", "panel"], ["card-red", "card"], ["text", "felt"],
  ];
  for (const [fg, bg] of pairs) {
    const r = contrast(v(fg), v(bg));
    assert.ok(r >= 4.5, `${fg} on ${bg}: ${r.toFixed(2)}:1`);
  }
});

test("a straddle is named as one where the table allows straddles", () => {
  const h = newHand({ hand_number: 1, seats: [0, 1, 2], starting_stacks: [100, 100, 100], button: 2 });
  const c = ctx(null, { straddle: true });
  applyEvent(h, { type: "blind_posted", player: 0, amount: 1 }, c);
  applyEvent(h, { type: "blind_posted", player: 1, amount: 2 }, c);
  assert.equal(applyEvent(h, { type: "blind_posted", player: 2, amount: 4 }, c), "cat posts a straddle of 4");
  assert.equal(h.players[2].bet, 4);
  assert.equal(h.players[2].last, "Straddle 4");
  const plain = newHand({ hand_number: 2, seats: [0, 1, 2], starting_stacks: [100, 100, 100], button: 2 });
  assert.equal(applyEvent(plain, { type: "blind_posted", player: 2, amount: 4 }, ctx()), "cat posts a blind of 4");
});

test("the replayer plays a hand from the server's events, step by step, to its end", async () => {
  const { replayTo, replaySteps } = await import("../js/state.js");
  const replay = {
    hand_number: 12, seats: [3, 5], names: ["ann", "ben"], me: 0, button: 5,
    starting_stacks: [100, 100], finishing_stacks: [102, 98], blinds: [1, 2], game: "NL Hold'em", game_kind: "holdem", straddle: false,
    events: [
      { type: "blind_posted", player: 1, amount: 1 },
      { type: "blind_posted", player: 0, amount: 2 },
      { type: "hole_dealt", player: 0, cards: "AsKd", up: 0 },
      { type: "hole_dealt", player: 1, cards: "????", up: 0 },
      { type: "round_started", street: 0 },
      { type: "bet_to", player: 1, to: 6, amount: 5, all_in: false, full: true },
      { type: "folded", player: 0 },
      { type: "uncalled_returned", player: 1, amount: 4 },
      { type: "pot_awarded", pot: 0, share: "all", amount: 4, winners: [[1, 4]] },
      { type: "hand_ended", stacks: [98, 102] },
    ],
  };
  const start = replayTo(replay, 0);
  assert.deepEqual(start.hand.players.map((p) => p.stack), [100, 100]);
  assert.equal(start.lines.length, 0);
  const stops = replaySteps(replay);
  assert.equal(stops[0], 0);
  assert.equal(stops[stops.length - 1], replay.events.length);
  for (let i = 1; i < stops.length; i++) assert.ok(stops[i] > stops[i - 1], "stops move forward");
  const end = replayTo(replay, replay.events.length);
  assert.ok(end.last && end.hand.ended);
  assert.deepEqual(end.hand.players.map((p) => p.stack), [98, 102]);
  assert.deepEqual(end.hand.players[0].cards, ["As", "Kd"], "the viewer's own cards");
  assert.ok(end.lines.some((l) => l.startsWith("You fold")), end.lines.join("\n"));
  assert.ok(end.lines.some((l) => l.includes("ben")), "others by name");
  // Beyond the end is the end; before the start is the start.
  assert.equal(replayTo(replay, 99).step, replay.events.length);
  assert.equal(replayTo(replay, -3).step, 0);
});

test("lows read as players say them: 8-5 low, not the history's list of ranks", () => {
  assert.equal(spokenHand("Lo: 8,5,4,3,2"), "8-5 low");
  assert.equal(spokenHand("Lo: 7,5,4,3,2"), "7-5 low (number one)");
  assert.equal(spokenHand("Lo: 7,5,3,2,A"), "7-5 low");
  assert.equal(spokenHand("Lo: T,8,6,4,3"), "10-8 low");
  // A lowball hand with a pair, straight or flush is said by that name, never "Lo:".
  assert.equal(spokenHand("Lo: a pair of Sevens"), "a pair of Sevens");
  assert.equal(spokenHand("Lo: a flush, Ace high"), "a flush, Ace high");
  assert.equal(spokenHand("HI: a flush, Ace high; LO: 8,6,3,2,A"), "HI: a flush, Ace high; LO: 8-6 low");
  assert.equal(spokenHand("a pair of Sevens"), "a pair of Sevens");
  const h = newHand({ hand_number: 1, seats: [0, 1], starting_stacks: [100, 100], button: 0 });
  const line = applyEvent(h, { type: "shown", player: 1, cards: "8h5d4c3s2h" }, ctx(0, { family: "draw", handName: "Lo: 8,5,4,3,2" }));
  assert.equal(line, "ben shows 8h 5d 4c 3s 2h (8-5 low)");
});
