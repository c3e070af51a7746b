// The browser's check of the verifiable deck (web/js/fairness.js) under node, against the
// published test vectors (docs/fairness/vectors.json): every step recomputed, both
// records verified, and each way of tampering with them refused; and the seeds a browser
// keeps.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  leafHash, commitmentDigest, shuffleKey, dealOrder, reshuffleOrder, verifyPath, toHex,
  verifyRecord, verdict, newSeed, seedFor, forgetSeed, Failed,
} from "../js/fairness.js";

const vectors = JSON.parse(readFileSync(new URL("../../docs/fairness/vectors.json", import.meta.url)));
const hex = (s) => Uint8Array.from(s.match(/../g), (b) => parseInt(b, 16));

test("every published vector is what the browser computes", async () => {
  const salts = vectors.salts.map(hex);
  const leaves = await Promise.all(vectors.cards.map((c, i) => leafHash(i, c, salts[i])));
  assert.deepEqual(leaves.map(toHex), vectors.leaves);
  const root = hex(vectors.root);
  const commitment = await commitmentDigest(vectors.hand_id, 52, root);
  assert.equal(toHex(commitment), vectors.commitment);
  const key = await shuffleKey(commitment, vectors.seeds.map((s) => [s.seat, hex(s.seed)]));
  assert.equal(toHex(key), vectors.key);
  assert.deepEqual(await dealOrder(key, 52), vectors.deal_order);
  const r = vectors.reshuffle;
  assert.deepEqual(await reshuffleOrder(key, r.round, r.positions), r.order);
  const p = vectors.proof_of_position_17;
  assert.ok(await verifyPath(17, 52, await leafHash(17, p.card, hex(p.salt)), p.path.map(hex), root));
  assert.ok(!(await verifyPath(16, 52, await leafHash(17, p.card, hex(p.salt)), p.path.map(hex), root)));
});

test("the published records verify, and a player's own seed is found or missed", async () => {
  for (const record of vectors.records) {
    const result = await verifyRecord(record);
    assert.ok(result.cards > 0);
    assert.match(verdict(result), /^Verified: /);
    const seat = record.seats[record.me];
    const mine = record.fairness.seeds.find((s) => s.seat === seat);
    if (mine) assert.equal((await verifyRecord(record, mine.seed)).seedCounted, true);
    await assert.rejects(verifyRecord(record, "ab".repeat(32)), /your seed was not counted/);
  }
  assert.equal(vectors.records[1].fairness.reshuffles.length > 0, true, "the draw record reshuffles");
});

test("a tampered card, salt, path, seed list, permutation or reshuffle is refused", async () => {
  const tamper = {
    "a card": (r) => { r.fairness.cards[0].card = r.fairness.cards[0].card === "2c" ? "3c" : "2c"; },
    "a salt": (r) => { const s = r.fairness.cards[0].salt; r.fairness.cards[0].salt = (s[0] === "0" ? "1" : "0") + s.slice(1); },
    "a path": (r) => { r.fairness.cards[0].path[0] = "00".repeat(32); },
    "a seed changed": (r) => { r.fairness.seeds[0].seed = "ab".repeat(32); },
    "a seed dropped": (r) => { r.fairness.seeds.shift(); },
    "a position": (r) => { r.fairness.cards[0].position = (r.fairness.cards[0].position + 1) % 52; },
    "a place": (r) => { const c = r.fairness.cards.shift(); c.place = r.fairness.cards.at(-1).place + 1; r.fairness.cards.push(c); },
    "the root": (r) => { r.fairness.root = "11".repeat(32); },
    "a proof left out": (r) => { r.fairness.cards.pop(); },
    "a reshuffle left out": (r) => { r.fairness.reshuffles.pop(); },
  };
  for (const [i, record] of vectors.records.entries()) {
    for (const [name, f] of Object.entries(tamper)) {
      if (name === "a reshuffle left out" && !record.fairness.reshuffles.length) continue;
      const bad = structuredClone(record);
      f(bad);
      await assert.rejects(verifyRecord(bad), Failed, `record ${i}: ${name}`);
    }
  }
});

test("a browser keeps the seeds it sent, the newest few hundred, and forgets a late one", () => {
  const store = new Map();
  const storage = { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => store.set(k, v) };
  let n = 0;
  const random = (len) => new Uint8Array(len).fill(n++ % 256);
  const first = newSeed(storage, "h0", random);
  assert.equal(first, "00".repeat(32));
  assert.equal(seedFor(storage, "h0"), first);
  for (let i = 1; i <= 300; i++) newSeed(storage, "h" + i, random);
  assert.equal(seedFor(storage, "h0"), null, "the oldest is let go");
  assert.equal(seedFor(storage, "h300"), "2c".repeat(32));
  forgetSeed(storage, "h300");
  assert.equal(seedFor(storage, "h300"), null);
});
