// The browser's check of the verifiable deck (web/js/fairness.js, version 2) under node,
// against the published test vectors (docs/fairness/vectors.json): every published value
// recomputed (nonces, leaves, tags, roots and tags digests, the commitment, the seeds'
// commitments, the list's digest, the key, the stream, the round orders, the cards
// dealt, the reshuffle, an opening), every record verified, and every forged record
// refused with exactly its error code; and the seeds a browser keeps.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  sha, leafHash, tagHash, nodeHash, tagsDigest, deckCommitment, seedCommitment, listDigest,
  shuffleKey, stream, roundOrder, verifyPath, toHex, verifyRecord, verdict, failure, Failed,
  newSeed, keepList, seedFor, forgetSeed, mineFor, commitTo, closedListDigest, proofWords,
} from "../js/fairness.js";

const vectors = JSON.parse(readFileSync(new URL("../../docs/fairness/vectors.json", import.meta.url)));
const hex = (s) => Uint8Array.from(s.match(/../g), (b) => parseInt(b, 16));
const CARDS = [..."23456789TJQKA"].flatMap((r) => [..."cdhs"].map((s) => r + s));

// The operator's side, which a player's check never needs: the nonces from the secret,
// and a round's tree (RFC 6962: split at the largest power of two below the count).
const NONCE_LABEL = new TextEncoder().encode("pokerd deck nonce v2");
const nonce = async (secret, round, card) => (await sha(NONCE_LABEL, secret, new Uint8Array([round]), new TextEncoder().encode(card))).slice(0, 16);
async function merkleRoot(leaves) {
  if (leaves.length === 1) return leaves[0];
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return nodeHash(await merkleRoot(leaves.slice(0, k)), await merkleRoot(leaves.slice(k)));
}
async function round(secret, r) {
  const nonces = await Promise.all(CARDS.map((c) => nonce(secret, r, c)));
  const leaves = await Promise.all(CARDS.map((c, i) => leafHash(r, c, nonces[i])));
  const tags = (await Promise.all(CARDS.map((c, i) => tagHash(r, c, nonces[i])))).map(toHex);
  const cardOf = new Map(tags.map((t, i) => [t, CARDS[i]]));
  const sorted = tags.slice().sort();
  return { nonces, leaves, tags, sorted, cardOf, root: await merkleRoot(leaves), digest: await tagsDigest(r, sorted.map(hex)) };
}

test("every published value is what the browser computes", async () => {
  const v = vectors;
  const secret = hex(v.secret);
  const rounds = [await round(secret, 0), await round(secret, 1)];
  const [r0, r1] = rounds;
  assert.deepEqual(v.round_0.map((x) => x.card), CARDS, "round 0 is listed in card number order");
  assert.deepEqual(r0.nonces.map(toHex), v.round_0.map((x) => x.nonce), "nonces");
  assert.deepEqual(r0.leaves.map(toHex), v.round_0.map((x) => x.leaf), "leaves");
  assert.deepEqual(r0.tags, v.round_0.map((x) => x.tag), "tags");
  assert.equal(toHex(r0.leaves[0]), v.leaf_of_2c_in_round_0);
  assert.deepEqual(rounds.map((r) => ({ root: toHex(r.root), tags: toHex(r.digest) })), v.round_commitments, "roots and tags digests");
  assert.equal(v.rounds, 2);
  assert.deepEqual(r0.sorted, v.tags_round_0, "round 0's sorted tags");
  const commitment = await deckCommitment(v.hand_id, 52, rounds.map((r) => ({ root: r.root, tags: r.digest })));
  assert.equal(toHex(commitment), v.commitment, "the commitment");
  const list = [];
  for (const s of v.seeds) list.push({ seat: s.seat, house: s.seat === 3, commitment: await seedCommitment(commitment, hex(s.seed)) });
  assert.deepEqual(list.map((e) => ({ seat: e.seat, commitment: toHex(e.commitment), house: e.house })), v.seed_list, "the seeds' commitments");
  assert.equal(commitTo(v.commitment, v.seeds[0].seed), v.seed_list[0].commitment, "what the page sends as its commitment");
  const digest = await listDigest(commitment, list);
  assert.equal(toHex(digest), v.seed_list_digest, "the list's digest");
  assert.equal(await closedListDigest(v.commitment, v.seed_list), v.seed_list_digest, "what the page keeps of seeds_closed");
  const key = await shuffleKey(commitment, digest, v.seeds.map((s) => [s.seat, hex(s.seed)]));
  assert.equal(toHex(key), v.key, "the key");
  const word = stream(key, 0);
  const words = [];
  for (const _ of v.stream_round_0_words) words.push(await word());
  assert.deepEqual(words, v.stream_round_0_words, "round 0's stream");
  const order0 = await roundOrder(key, 0, 52);
  assert.deepEqual(order0, v.round_0_order, "round 0's order");
  assert.deepEqual(order0.map((k) => r0.cardOf.get(r0.sorted[k])), v.dealt_cards, "the cards in the order dealt");
  const re = v.reshuffle;
  const order1 = await roundOrder(key, re.round, 52);
  assert.deepEqual(order1, re.round_1_order, "round 1's order");
  const slotCard = (k) => r1.cardOf.get(r1.sorted[order1[k]]);
  const slots = [...Array(52).keys()].filter((k) => re.discards.includes(slotCard(k)));
  assert.deepEqual(slots, re.slots, "the reshuffle's slots");
  assert.deepEqual(slots.map(slotCard), re.cards, "the reshuffle's cards, in the order put under the stub");
  const o = v.opening_of_as_in_round_0;
  const leaf = await leafHash(0, o.card, hex(o.nonce));
  assert.ok(await verifyPath(51, 52, leaf, o.path.map(hex), r0.root), "As opens at its number");
  assert.ok(!(await verifyPath(50, 52, leaf, o.path.map(hex), r0.root)), "and nowhere else");
});

test("the published records verify, with the viewer's seed used or none in their name", async () => {
  const [holdem, draw, operator] = vectors.records;
  for (const record of vectors.records) {
    const result = await verifyRecord(record);
    assert.ok(result.cards > 0);
    assert.match(verdict(result), /^Verified: /);
  }
  // Player 1 of the hold'em hand sent no seed; seat 3 committed and did not reveal.
  const h = await verifyRecord(holdem, "none");
  assert.equal(h.mine, "none");
  assert.deepEqual(h.unrevealed, [3]);
  assert.match(verdict(h), /no seed was used in your name/);
  assert.match(verdict(h), /Seat 4 committed a seed and did not reveal it\./);
  // Player 2 of the draw hand revealed 0x03 × 32 under the list they were sent.
  const seat = draw.seats[draw.me];
  const mine = draw.fairness.seeds.find((s) => s.seat === seat).seed;
  const list = await closedListDigest(draw.fairness.commitment, draw.fairness.seed_list);
  const d = await verifyRecord(draw, { seed: mine, list });
  assert.equal(d.mine, "used");
  assert.equal(d.reshuffles, 1);
  assert.match(verdict(d), /; your seed was used\./);
  assert.doesNotMatch(verdict(d), /No player's seed/);
  await assert.rejects(verifyRecord(draw, "none"), { code: "seed_in_my_name" });
  await assert.rejects(verifyRecord(draw, { seed: "ab".repeat(32), list }), { code: "own_seed" });
  await assert.rejects(verifyRecord(draw, { seed: mine, list: "ab".repeat(32) }), { code: "list_changed" });
  // The operator's record has no viewer: what the page knows of a seed does not apply.
  assert.equal((await verifyRecord(operator, "none")).mine, null);
});

test("every forged record is refused with exactly its error code", async () => {
  assert.ok(vectors.attacks.length >= 17);
  for (const a of vectors.attacks) {
    await assert.rejects(verifyRecord(a.record, a.mine), (e) => {
      assert.ok(e instanceof Failed, a.name + ": " + e);
      assert.equal(e.code, a.error, `${a.name} (${a.what}): ${e.message}`);
      assert.match(failure(e), new RegExp("^NOT VERIFIED \\(" + a.error + "\\): "));
      return true;
    });
  }
});

test("uppercase hex, another version and a record with no player's seed are said plainly", async () => {
  const record = vectors.records[0];
  const upper = structuredClone(record);
  upper.fairness.cards[0].nonce = upper.fairness.cards[0].nonce.toUpperCase();
  await assert.rejects(verifyRecord(upper), { code: "format" });
  const upperSeed = structuredClone(record);
  upperSeed.fairness.seeds[0].seed = upperSeed.fairness.seeds[0].seed.replace(/0/g, "A");
  await assert.rejects(verifyRecord(upperSeed), { code: "format" });
  const v1 = { hand_id: record.hand_id, seats: record.seats, me: 1, events: [], fairness: { version: 1, hand_id: record.hand_id, size: 52, root: "00".repeat(32) } };
  await assert.rejects(verifyRecord(v1), (e) => {
    assert.equal(e.code, "version");
    assert.ok(e.version1);
    assert.match(failure(e), /^NOT CHECKED HERE: .*version 2 only.*`pokerd verify FILE`, which checks version 1/);
    return true;
  });
  await assert.rejects(verifyRecord({ ...record, fairness: { ...record.fairness, version: 3 } }), { code: "version" });
  // The house's seed alone: no player's.
  const result = await verifyRecord(record);
  assert.equal(result.playerSeeds, 1);
  assert.match(verdict({ ...result, playerSeeds: 0, houseSeeds: 2 }), /No player's seed was used: the order was the server's alone\./);
});

test("a seed committed and never revealed: not used, and no other commitment at the seat", async () => {
  const draw = vectors.records[1];
  const seat = draw.seats[draw.me];
  // The viewer's seed dropped from the record and their commitment listed as made from
  // another seed: the record's seeds no longer open the list, so rebuild it honestly.
  const forged = structuredClone(draw);
  forged.fairness.seeds = forged.fairness.seeds.filter((s) => s.seat !== seat);
  const mine = draw.fairness.seeds.find((s) => s.seat === seat).seed;
  // The list still holds this browser's commitment: it committed, and did not reveal.
  // (The key changes with the seeds, so the openings no longer match: only the seed check
  // runs first and is what this test looks at.)
  await assert.rejects(verifyRecord(forged, { seed: mine, revealed: false }), (e) => e.code !== "seed_in_my_name");
  await assert.rejects(verifyRecord(draw, { seed: mine, revealed: false }), { code: "seed_in_my_name" }, "a seed used at a seat that never revealed");
  await assert.rejects(verifyRecord(forged, { seed: "ab".repeat(32), revealed: false }), { code: "seed_in_my_name" }, "another commitment at the seat");
  // A hand whose list has nothing at the seat (the hold'em viewer's).
  const h = await verifyRecord(vectors.records[0], { seed: "ab".repeat(32), revealed: false });
  assert.equal(h.mine, "unrevealed");
  assert.match(verdict(h), /your seed was not used: this browser committed to one and never revealed it/);
});

test("a browser keeps the seeds it committed to, the newest few hundred, their lists, and forgets a refused one", () => {
  const store = new Map();
  const storage = { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => store.set(k, v) };
  let n = 0;
  const random = (len) => new Uint8Array(len).fill(n++ % 256);
  const first = newSeed(storage, "h0", random);
  assert.equal(first, "00".repeat(32));
  assert.equal(newSeed(storage, "h0", random), first, "committed again (a reload) to the same seed");
  assert.equal(seedFor(storage, "h0"), first);
  assert.deepEqual(mineFor(storage, "h0"), { seed: first, revealed: false });
  keepList(storage, "h0", "cd".repeat(32));
  assert.deepEqual(mineFor(storage, "h0"), { seed: first, list: "cd".repeat(32) });
  assert.equal(mineFor(storage, "other"), "none");
  for (let i = 1; i <= 300; i++) newSeed(storage, "h" + i, random);
  assert.equal(seedFor(storage, "h0"), null, "the oldest is let go");
  assert.equal(seedFor(storage, "h300"), "2c".repeat(32));
  forgetSeed(storage, "h300");
  assert.equal(seedFor(storage, "h300"), null);
  assert.equal(mineFor(storage, "h300"), "none");
  // Storage that throws (full, or off) never breaks the page.
  const broken = { getItem: () => { throw new Error("off"); }, setItem: () => { throw new Error("full"); } };
  assert.equal(newSeed(broken, "h", random).length, 64);
  assert.equal(seedFor(broken, "h"), null);
});

test("a hand's proofs say at first sight whether this browser's seed was used, and when no player's was", () => {
  const proof = vectors.records[1].fairness;
  const seed = proof.seeds.find((s) => s.seat === 2).seed;
  assert.equal(proofWords(proof, 2, { seed, list: "cd".repeat(32) }), "the deck's proofs of 28 cards came; your seed was used.");
  assert.equal(proofWords(proof, 2, { seed: "ab".repeat(32), list: "cd".repeat(32) }), "the deck's proofs of 28 cards came; your seed was NOT used.");
  assert.match(proofWords(proof, 2, { seed, revealed: false }), /; your seed was not used \(the list of seeds closed without it\)\.$/);
  assert.match(proofWords(proof, 2, "none"), /; this browser sent no seed for it\.$/);
  const houseOnly = { ...proof, seeds: proof.seeds.filter((s) => s.seat === 5) };
  assert.match(proofWords(houseOnly, 2, "none"), /; no player's seed was used: the order was the server's alone\.$/);
});

test("the page's own SHA-256 (for pages without SubtleCrypto) is SHA-256", async () => {
  const { sha256 } = await import("../js/fairness.js");
  const subtle = async (d) => toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", d)));
  assert.equal(toHex(sha256(new Uint8Array(0))), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert.equal(toHex(sha256(new TextEncoder().encode("abc"))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  for (const n of [1, 55, 56, 63, 64, 65, 119, 120, 128, 1000]) {
    const d = Uint8Array.from({ length: n }, (_, i) => (i * 31 + n) & 255);
    assert.equal(toHex(sha256(d)), await subtle(d), n + " bytes");
  }
  // A whole record checked with it: SubtleCrypto taken away for the while.
  const saved = Object.getOwnPropertyDescriptor(globalThis, "crypto");
  Object.defineProperty(globalThis, "crypto", { value: { getRandomValues: (a) => a }, configurable: true });
  try {
    assert.equal((await verifyRecord(vectors.records[1])).cards, 28);
    await assert.rejects(verifyRecord(vectors.attacks[0].record), { code: vectors.attacks[0].error });
  } finally {
    Object.defineProperty(globalThis, "crypto", saved);
  }
});
