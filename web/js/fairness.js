// The verifiable deck in the browser (docs/fairness.md): the seed this browser sends for
// each hand's committed deck (crypto.getRandomValues, remembered so the check can say
// whether it was counted), and the check of a hand record's proofs with SubtleCrypto's
// SHA-256, the same as `pokerd verify` and docs/fairness/verify.py. Pure but for the
// seeds' storage, which is passed in; tested under node.

const enc = new TextEncoder();
const KEY_LABEL = enc.encode("pokerd shuffle key v1");
const STREAM_LABEL = enc.encode("pokerd shuffle stream v1");
const COMMIT_LABEL = enc.encode("pokerd deck commitment v1");

/** Why a record does not check out. */
export class Failed extends Error {}

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

async function sha(...parts) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", concat(parts)));
}

export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function unhex(text, size, what) {
  if (typeof text !== "string" || text.length !== 2 * size || !/^[0-9a-fA-F]*$/.test(text)) {
    throw new Failed(what + " is not " + size + " bytes of hex");
  }
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

export function leafHash(position, card, salt) {
  return sha(new Uint8Array([0, position]), enc.encode(card), salt);
}

export function nodeHash(left, right) {
  return sha(new Uint8Array([1]), left, right);
}

/** RFC 9162, 2.1.3.2: whether `path` proves `leaf` is leaf `index` of a tree of `size`. */
export async function verifyPath(index, size, leaf, path, root) {
  if (index >= size) return false;
  let f = index, s = size - 1, r = leaf;
  for (const p of path) {
    if (s === 0) return false;
    if (f & 1 || f === s) {
      r = await nodeHash(p, r);
      while ((f & 1) === 0 && f !== 0) { f >>= 1; s >>= 1; }
    } else {
      r = await nodeHash(r, p);
    }
    f >>= 1; s >>= 1;
  }
  return s === 0 && same(r, root);
}

export function commitmentDigest(handId, size, root) {
  return sha(COMMIT_LABEL, enc.encode(handId), new Uint8Array([size]), root);
}

export function shuffleKey(commitment, seeds) {
  const parts = [KEY_LABEL, commitment, new Uint8Array([seeds.length])];
  for (const [seat, seed] of seeds) parts.push(new Uint8Array([seat]), seed);
  return sha(...parts);
}

/** Round `round`'s stream: block j = H(label || key || round || j as 4 bytes big-endian). */
async function permute(items, key, round) {
  const a = items.slice();
  let counter = 0, block = null, used = 32;
  const word = async () => {
    if (used === 32) {
      const j = new Uint8Array(4);
      new DataView(j.buffer).setUint32(0, counter++);
      block = await sha(STREAM_LABEL, key, new Uint8Array([round]), j);
      used = 0;
    }
    const w = new DataView(block.buffer).getUint32(used);
    used += 4;
    return w;
  };
  for (let i = a.length - 1; i >= 1; i--) {
    const bound = i + 1;
    const limit = 2 ** 32 - (2 ** 32 % bound);
    let x;
    do { x = await word(); } while (x >= limit);
    const j = x % bound;
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

export function dealOrder(key, size) {
  return permute([...Array(size).keys()], key, 0);
}

export function reshuffleOrder(key, round, positions) {
  return permute(positions.slice().sort((x, y) => x - y), key, round);
}

const cardsOf = (text) => text.match(/../g) || [];
const known = (c) => c !== "??";

/** Every card taken from the deck, in order, with its place, kind, owner and position. */
async function walk(events, size, key, lists) {
  const deal = await dealOrder(key, size);
  const segments = [];
  const slots = [], shown = [], holes = new Map(), out = new Set();
  let remaining = size, discarded = 0, discardsKnown = [];
  const position = (place) => {
    if (place < size) return deal[place];
    let p = place - size;
    for (const seg of segments) { if (p < seg.length) return seg[p]; p -= seg.length; }
    throw new Failed("a place beyond the cards the deck had");
  };
  const reshuffle = async () => {
    const round = segments.length + 1;
    const list = lists[round - 1];
    if (!list) throw new Failed("a deal needed a reshuffle the record does not list");
    if (list.some((x, i) => i > 0 && list[i - 1] >= x)) throw new Failed(`reshuffle ${round} does not list its positions once each in ascending order`);
    if (list.length !== discarded) throw new Failed(`reshuffle ${round} takes ${list.length} cards; ${discarded} were discarded before it`);
    for (const p of list) if (!out.has(p)) throw new Failed(`reshuffle ${round} takes position ${p}, which is not a card dealt to a hand and out of the deck`);
    for (const p of discardsKnown) if (!list.includes(p)) throw new Failed(`reshuffle ${round} leaves out the discard at position ${p}`);
    for (const p of list) out.delete(p);
    segments.push(await reshuffleOrder(key, round, list));
    remaining += list.length;
    discarded = 0; discardsKnown = [];
  };
  const slot = (kind, player, card) => {
    const place = slots.length;
    const pos = position(place);
    if (kind === "hole") {
      out.add(pos);
      if (!holes.has(player)) holes.set(player, []);
      holes.get(player).push(place);
    }
    slots.push({ kind, player, card, position: pos });
    remaining--;
  };
  const take = async (kind, player, cards) => {
    if (cards.length > remaining) {
      await reshuffle();
      if (cards.length > remaining) throw new Failed("the deal runs out of cards");
    }
    if (kind === "board" && cards.length < remaining) slot("burn", null, "??");
    for (const c of cards) slot(kind, player, c);
  };
  for (const e of events) {
    if (e.type === "hole_dealt") await take("hole", e.player, cardsOf(e.cards));
    else if (e.type === "board_dealt" || e.type === "second_board_dealt") await take("board", null, cardsOf(e.cards));
    else if (e.type === "discarded") {
      const cards = cardsOf(e.cards);
      discarded += cards.length;
      const held = holes.get(e.player) || [];
      for (const c of cards.filter(known)) {
        for (let i = held.length - 1; i >= 0; i--) {
          if (slots[held[i]].card === c) { discardsKnown.push(slots[held.splice(i, 1)[0]].position); break; }
        }
      }
    } else if (e.type === "shown") shown.push([e.player, cardsOf(e.cards)]);
  }
  if (segments.length !== lists.length) throw new Failed(`the record lists ${lists.length} reshuffles, the deal made ${segments.length}`);
  return { slots, shown };
}

/**
 * Checks a hand's record (`/api/me/hands/{id}?format=replay`): the commitment, the seeds
 * (and `mySeed`, hex, when given: that it was counted at the player's seat), the
 * permutation, the reshuffles, every proof, and that every card shown has its proof.
 * Resolves to what was checked; rejects with a Failed saying what failed.
 */
export async function verifyRecord(record, mySeed = null) {
  const f = record.fairness;
  if (!f) throw new Failed("this hand has no proofs (dealt before decks were committed)");
  if (f.version !== 1) throw new Failed("unknown version " + f.version);
  if (f.hand_id !== record.hand_id) throw new Failed(`the proofs are for hand ${f.hand_id}, the record is hand ${record.hand_id}`);
  if (f.size !== 52 && f.size !== 36) throw new Failed(`a deck of ${f.size} cards`);
  const root = unhex(f.root, 32, "the root");
  const commitment = unhex(f.commitment, 32, "the commitment");
  if (!same(await commitmentDigest(f.hand_id, f.size, root), commitment)) {
    throw new Failed("the commitment is not the hash of the hand id, the deck size and the root");
  }
  const seeds = f.seeds.map((s) => [s.seat, unhex(s.seed, 32, "a seed")]);
  if (seeds.some((s, i) => i > 0 && seeds[i - 1][0] >= s[0])) throw new Failed("the seeds are not listed once each, by ascending seat");
  for (const [seat] of seeds) if (!record.seats.includes(seat)) throw new Failed(`a seed from seat ${seat}, which was not dealt in`);
  let seedCounted = null;
  if (mySeed && record.me !== null && record.me !== undefined) {
    const seat = record.seats[record.me];
    seedCounted = f.seeds.some((s) => s.seat === seat && s.seed === mySeed.toLowerCase());
    if (!seedCounted) throw new Failed(`your seed was not counted (seat ${seat + 1})`);
  }
  const key = await shuffleKey(commitment, seeds);
  const { slots, shown } = await walk(record.events, f.size, key, f.reshuffles);
  const proofs = f.cards;
  if (proofs.some((p, i) => i > 0 && proofs[i - 1].place >= p.place)) throw new Failed("the proofs are not listed once each by ascending place");
  for (const p of proofs) {
    const s = slots[p.place];
    if (!s) throw new Failed(`a proof for place ${p.place}, from which no card was dealt`);
    if (s.kind === "burn") throw new Failed(`a proof opens the burn card at place ${p.place}`);
    if (p.position !== s.position) throw new Failed(`the card at place ${p.place} claims position ${p.position}; the permutation puts position ${s.position} there`);
    const leaf = await leafHash(p.position, p.card, unhex(p.salt, 16, "a salt"));
    const path = p.path.map((x) => unhex(x, 32, "a path hash"));
    if (!(await verifyPath(p.position, f.size, leaf, path, root))) {
      throw new Failed(`the card at place ${p.place} (${p.card}) is not in the committed deck: its leaf and path do not lead to the root`);
    }
    if (known(s.card)) {
      if (s.card !== p.card) throw new Failed(`the record shows ${s.card} at place ${p.place}, the proof opens ${p.card}`);
    } else if (!(s.kind === "hole" && shown.some(([w, cs]) => w === s.player && cs.includes(p.card)))) {
      throw new Failed(`a proof of ${p.card} at place ${p.place}, which the record does not show`);
    }
  }
  const proved = new Set(proofs.map((p) => p.place));
  slots.forEach((s, place) => {
    if (s.kind !== "burn" && known(s.card) && !proved.has(place)) throw new Failed(`the record shows ${s.card} at place ${place} without a proof`);
  });
  for (const [player, cards] of shown) {
    for (const c of cards) {
      if (!proofs.some((p) => p.card === c && slots[p.place].kind === "hole" && slots[p.place].player === player)) {
        throw new Failed(`player ${player + 1} showed ${c}, and no proof opens it from their cards`);
      }
    }
  }
  return { cards: proofs.length, seeds: seeds.length, reshuffles: f.reshuffles.length, dealt: slots.length, seedCounted };
}

/** What a check found, in words. */
export function verdict(result) {
  return "Verified: " + result.cards + " card" + (result.cards === 1 ? "" : "s") + " you saw came from the deck committed before the seeds, dealt in the order "
    + result.seeds + " seed" + (result.seeds === 1 ? "" : "s") + " made"
    + (result.reshuffles ? " (" + result.reshuffles + " reshuffle" + (result.reshuffles === 1 ? "" : "s") + ")" : "")
    + (result.seedCounted ? "; your seed was counted." : ".");
}

// ---------------------------------------------------------------- this browser's seeds

const SEEDS = "pokerd.seeds";
const KEEP = 300;

/** A fresh seed for a hand, remembered (the newest few hundred) in `storage`. */
export function newSeed(storage, handId, random = (n) => crypto.getRandomValues(new Uint8Array(n))) {
  const seed = toHex(random(32));
  let kept = [];
  try { kept = JSON.parse(storage.getItem(SEEDS) || "[]"); } catch (_) { kept = []; }
  kept = kept.filter(([h]) => h !== handId);
  kept.push([handId, seed]);
  if (kept.length > KEEP) kept = kept.slice(kept.length - KEEP);
  try { storage.setItem(SEEDS, JSON.stringify(kept)); } catch (_) { /* storage full or off: the check just cannot say */ }
  return seed;
}

/** Forgets the seed of a hand (the server refused it as late: it was never counted). */
export function forgetSeed(storage, handId) {
  try {
    const kept = JSON.parse(storage.getItem(SEEDS) || "[]").filter(([h]) => h !== handId);
    storage.setItem(SEEDS, JSON.stringify(kept));
  } catch (_) { /* nothing kept */ }
}

/** The seed this browser sent for a hand, if it still has it. */
export function seedFor(storage, handId) {
  try {
    const found = JSON.parse(storage.getItem(SEEDS) || "[]").find(([h]) => h === handId);
    return found ? found[1] : null;
  } catch (_) { return null; }
}
