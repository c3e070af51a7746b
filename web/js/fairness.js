// The verifiable deck in the browser (docs/fairness.md, version 2): the seed this browser
// commits to and then reveals for each hand's committed deck (crypto.getRandomValues,
// kept with the closed list's digest so the check can say whether it was used), and the
// check of a hand's record with SubtleCrypto's SHA-256, the same as `pokerd verify`: the
// same steps in the same order, failing with the same codes (docs/fairness/vectors.json's
// forged records). Pure but for the seeds' storage, which is passed in; tested under node.

const enc = new TextEncoder();
const label = (text) => enc.encode(text);
const DECK_LABEL = label("pokerd deck commitment v2");
const TAGS_LABEL = label("pokerd deck tags v2");
const SEED_LABEL = label("pokerd seed commitment v2");
const LIST_LABEL = label("pokerd seed list v2");
const KEY_LABEL = label("pokerd shuffle key v2");
const STREAM_LABEL = label("pokerd shuffle stream v2");

/**
 * Why a record does not check out: `code` is the failure's stable name, the one
 * `pokerd verify` prints and the vectors' forged records give (`format`: not a record this
 * check can read, such as uppercase hex); `version1` marks a record of version 1, which
 * this page does not check.
 */
export class Failed extends Error {
  constructor(code, message, { version1 = false } = {}) {
    super(message);
    this.code = code;
    this.version1 = version1;
  }
}

const fail = (code, message) => { throw new Failed(code, message); };

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

/**
 * SHA-256 of the parts, concatenated: SubtleCrypto's, or, where the page has none (it is
 * only given to secure contexts: a page served over plain http from another machine than
 * localhost has no `crypto.subtle`), `sha256` below, so the seeds and the check work there
 * too.
 */
export async function sha(...parts) {
  const data = concat(parts);
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  return subtle ? new Uint8Array(await subtle.digest("SHA-256", data)) : sha256(data);
}

const K = Uint32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/**
 * SHA-256 (FIPS 180-4) in plain JavaScript, at once: for pages without SubtleCrypto, and for
 * the seed's commitment (`commitTo`).
 */
export function sha256(data) {
  const bits = data.length * 8;
  const padded = new Uint8Array((((data.length + 8) >> 6) + 1) << 6);
  padded.set(data);
  padded[data.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bits / 2 ** 32));
  view.setUint32(padded.length - 4, bits >>> 0);
  const h = Uint32Array.from([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let at = 0; at < padded.length; at += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(at + 4 * i);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    let [a, b, c, d, e, f, g, k] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
      const t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      k = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += k;
  }
  const out = new Uint8Array(32);
  const o = new DataView(out.buffer);
  h.forEach((x, i) => o.setUint32(4 * i, x));
  return out;
}

const u8 = (...bytes) => new Uint8Array(bytes);

export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** `size` bytes written as lowercase hex; anything else (uppercase included) is refused. */
export function unhex(text, size, what) {
  if (typeof text !== "string" || text.length !== 2 * size || !/^[0-9a-f]*$/.test(text)) {
    fail("format", what + " is not " + size + " bytes of lowercase hex");
  }
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

// ---------------------------------------------------------------- cards

const RANKS = "23456789TJQKA";
const SUITS = "cdhs";
/** The index of a card whose face is unknown (`??`), after every known card's. */
const UNKNOWN = 255;

/** A card's index 0..51 (`4 × rank + suit`), UNKNOWN for `??`. */
function cardIndex(text) {
  if (text === "??") return UNKNOWN;
  const r = typeof text === "string" && text.length === 2 ? RANKS.indexOf(text[0].toUpperCase()) : -1;
  const s = r >= 0 ? SUITS.indexOf(text[1].toLowerCase()) : -1;
  if (s < 0) fail("format", JSON.stringify(text) + " is not a card");
  return 4 * r + s;
}

const cardName = (index) => (index === UNKNOWN ? "??" : RANKS[index >> 2] + SUITS[index & 3]);

function cardsOf(text) {
  if (typeof text !== "string" || text.length % 2) fail("format", JSON.stringify(text) + " is not a string of cards");
  return (text.match(/../g) || []).map(cardIndex);
}

/** A card's number in a deck of `size` (leaf index), or null when it is not in that deck. */
export function cardNumber(size, card) {
  const lowest = 52 - size;
  return card !== UNKNOWN && card >= lowest && card < 52 ? card - lowest : null;
}

// ---------------------------------------------------------------- the construction

/** A card's leaf (prefix 0) or tag (prefix 2) in a round, from its nonce. */
function prefixed(prefix, round, card, nonce) {
  return sha(u8(prefix, round), enc.encode(cardName(card)), nonce);
}

export function leafHash(round, card, nonce) {
  return prefixed(0, round, typeof card === "string" ? cardIndex(card) : card, nonce);
}

export function tagHash(round, card, nonce) {
  return prefixed(2, round, typeof card === "string" ? cardIndex(card) : card, nonce);
}

export function nodeHash(left, right) {
  return sha(u8(1), left, right);
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

/** `tags_digest(r)` over a round's sorted tags. */
export function tagsDigest(round, sorted) {
  return sha(TAGS_LABEL, u8(round), ...sorted);
}

/** The deck's commitment from the hand id (its text), the size and every round's root and tags digest. */
export function deckCommitment(handId, size, rounds) {
  return sha(DECK_LABEL, enc.encode(handId), u8(size, rounds.length), ...rounds.flatMap((r) => [r.root, r.tags]));
}

/** A seed's commitment, bound to the deck's commitment (both bytes). */
export function seedCommitment(deck, seed) {
  return sha(SEED_LABEL, deck, seed);
}

/** The closed list's digest: `list` is `[{seat, house, commitment (bytes)}]` by ascending seat. */
export function listDigest(deck, list) {
  return sha(LIST_LABEL, deck, u8(list.length), ...list.flatMap((e) => [u8(e.seat, e.house ? 1 : 0), e.commitment]));
}

/** The key from the commitment, the list's digest and the seeds used (`[[seat, seed bytes]]`, ascending). */
export function shuffleKey(commitment, list, seeds) {
  return sha(KEY_LABEL, commitment, list, u8(seeds.length), ...seeds.flatMap(([seat, seed]) => [u8(seat), seed]));
}

/** Round `round`'s stream of 32-bit words: block j = H(label || key || u8 round || u32be j). */
export function stream(key, round) {
  let counter = 0, block = null, used = 32;
  return async () => {
    if (used === 32) {
      const j = new Uint8Array(4);
      new DataView(j.buffer).setUint32(0, counter++);
      block = await sha(STREAM_LABEL, key, u8(round), j);
      used = 0;
    }
    const w = new DataView(block.buffer).getUint32(used);
    used += 4;
    return w;
  };
}

/** `order(r)`: Fisher-Yates over 0..size-1 with round `round`'s stream, uniform draws by rejection. */
export async function roundOrder(key, round, size) {
  const word = stream(key, round);
  const a = [...Array(size).keys()];
  for (let i = size - 1; i >= 1; i--) {
    const bound = i + 1;
    const limit = 2 ** 32 - (2 ** 32 % bound);
    let x;
    do { x = await word(); } while (x >= limit);
    const j = x % bound;
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

// ---------------------------------------------------------------- the walk

/**
 * Every card taken from the deck, in order, from the record's events: its kind (`burn`,
 * `hole` with its player and whether face up, `board`), card (UNKNOWN when not seen),
 * round and slot, and `until` (the reshuffles made when its holder threw it away; null:
 * held to the end, or a board card). `given`: the record's `discards`.
 */
function walk(events, size, lists, given) {
  const w = { taken: [], shown: [], receipts: [], discards: [], made: 0 };
  let queue = [...Array(size).keys()].map((slot) => [0, slot]);
  let discarded = 0;
  const reshuffle = () => {
    const round = w.made + 1;
    const list = lists[round - 1];
    if (!list) fail("reshuffle_missing", "a deal needed a reshuffle the record does not list");
    if (list.some((s, i) => !Number.isInteger(s) || s < 0 || s >= size || (i > 0 && list[i - 1] >= s))) {
      fail("reshuffle_order", `reshuffle ${round} does not list its slots once each in ascending order`);
    }
    if (list.length !== discarded) fail("reshuffle_count", `reshuffle ${round} takes ${list.length} cards; ${discarded} were discarded before it`);
    queue = queue.concat(list.map((slot) => [round, slot]));
    w.made = round;
    discarded = 0;
  };
  const push = (kind, card) => {
    const [round, slot] = queue.shift();
    if (kind.hole) (w.receipts[kind.player] ||= []).push(w.taken.length);
    w.taken.push({ kind, card, round, slot, until: null });
  };
  const take = (kind, cards, up = 0) => {
    if (cards.length > queue.length) {
      reshuffle();
      if (cards.length > queue.length) fail("deck_exhausted", "the deal runs out of cards");
    }
    if (kind.board && cards.length < queue.length) push({ burn: true }, UNKNOWN);
    cards.forEach((card, k) => push(kind.hole ? { hole: true, player: kind.player, up: ((up >> k) & 1) === 1 } : kind, card));
  };
  const discard = (player, cards) => {
    const index = w.discards.length;
    const bad = () => fail("discard", `discard ${index + 1} does not name ${cards.length} cards that player ${player + 1} held, ascending`);
    const receipts = w.receipts[player] || [];
    const holds = (n) => Number.isInteger(n) && n >= 0 && n < receipts.length && w.taken[receipts[n]].until === null;
    const list = given[index];
    if (!Array.isArray(list) || list.length !== cards.length || list.some((n, i) => i > 0 && list[i - 1] >= n) || !list.every(holds)) bad();
    if (cards.some((c) => c !== UNKNOWN)) {
      const named = list.map((n) => w.taken[receipts[n]].card).sort((a, b) => a - b);
      const thrown = cards.slice().sort((a, b) => a - b);
      if (!same(named, thrown)) fail("discard_cards", `discard ${index + 1} names other cards than you threw away`);
    }
    for (const n of list) w.taken[receipts[n]].until = w.made;
    discarded += cards.length;
    w.discards.push(list);
  };
  for (const e of events) {
    if (e.type === "hole_dealt") take({ hole: true, player: e.player }, cardsOf(e.cards), e.up || 0);
    else if (e.type === "board_dealt" || e.type === "second_board_dealt") take({ board: true }, cardsOf(e.cards));
    else if (e.type === "discarded") discard(e.player, cardsOf(e.cards));
    else if (e.type === "shown") w.shown.push([e.player, cardsOf(e.cards)]);
  }
  if (w.made !== lists.length) fail("reshuffle_unused", `the record lists ${lists.length} reshuffles, the deal made ${w.made}`);
  if (given.length !== w.discards.length) fail("discard", `the record lists ${given.length} discards, the hand made ${w.discards.length}`);
  return w;
}

/** The indexes into `taken` a player holds at the end. */
const held = (w, player) => (w.receipts[player] || []).filter((i) => w.taken[i].until === null);

/**
 * The (round, card index, taken index) openings showing each reshuffle left the cards in
 * `seen` alone: a card dealt from round q needs one in every round after q made before it
 * was thrown away (or the hand ended).
 */
function keptNeeded(w, seen) {
  const out = [];
  for (const i of seen) {
    const t = w.taken[i];
    const end = t.until === null ? w.made : t.until;
    for (let r = t.round + 1; r <= end; r++) out.push([r, i]);
  }
  return out;
}

// ---------------------------------------------------------------- the check

const isSeat = (x) => Number.isInteger(x) && x >= 0 && x < 256;
const seatWord = (seat) => "seat " + (seat + 1);

/** "Seat 4", "Seats 2, 4 and 6" (seats from 0, said from 1). */
function seatsWords(seats) {
  const names = seats.map((s) => String(s + 1));
  return names.length === 1 ? "Seat " + names[0] : "Seats " + names.slice(0, -1).join(", ") + " and " + names.at(-1);
}

/**
 * The seeds: both lists by strictly ascending seat; every seed from a seat dealt in,
 * opening that seat's commitment; every house seat dealt in that committed revealed; and
 * the viewer's own (`mine`, see `verifyRecord`).
 */
async function checkSeeds(record, f, commitment, mine) {
  const list = f.seed_list.map((c, i) => {
    if (!c || !isSeat(c.seat) || typeof c.house !== "boolean") fail("format", `entry ${i + 1} of the closed list is not a seat, a commitment and whether it is the house's`);
    return { seat: c.seat, house: c.house, commitment: unhex(c.commitment, 32, "a seed's commitment") };
  });
  const seeds = f.seeds.map((s, i) => {
    if (!s || !isSeat(s.seat)) fail("format", `seed ${i + 1} has no seat`);
    return { seat: s.seat, seed: unhex(s.seed, 32, "a seed") };
  });
  const ascending = (xs) => xs.every((x, i) => i === 0 || xs[i - 1].seat < x.seat);
  if (!ascending(list) || !ascending(seeds)) fail("seed_order", "the seeds and their commitments are not listed once each, by ascending seat");
  const dealtIn = (seat) => record.seats.includes(seat);
  for (const s of seeds) {
    if (!dealtIn(s.seat)) fail("seed_seat", `a seed from ${seatWord(s.seat)}, which was not dealt in`);
    const c = list.find((x) => x.seat === s.seat);
    if (!c || !same(c.commitment, await seedCommitment(commitment, s.seed))) {
      fail("seed_open", `the seed of ${seatWord(s.seat)} does not open a commitment of the closed list`);
    }
  }
  const revealed = (seat) => seeds.some((s) => s.seat === seat);
  const unrevealed = [];
  let house = 0;
  for (const c of list.filter((x) => dealtIn(x.seat))) {
    if (c.house && !revealed(c.seat)) fail("house_withheld", `the house committed a seed at ${seatWord(c.seat)} and did not reveal it: it could have chosen whether it counted`);
    if (c.house) house++;
    else if (!revealed(c.seat)) unrevealed.push(c.seat);
  }
  const digest = await listDigest(commitment, list);
  let my = null;
  if (record.me !== null && record.me !== undefined && mine !== null && mine !== undefined) {
    const seat = record.seats[record.me];
    if (mine === "none") {
      if (list.some((c) => c.seat === seat)) fail("seed_in_my_name", `a seed is listed at your seat (${seatWord(seat)}), and this browser sent none for this hand`);
      my = "none";
    } else if (mine.revealed === false) {
      // This browser committed to a seed and never revealed it: no seed may be used at
      // its seat, and a commitment listed there must be its own.
      const own = await seedCommitment(commitment, unhex(mine.seed, 32, "your seed"));
      if (list.some((c) => c.seat === seat && !same(c.commitment, own)) || revealed(seat)) {
        fail("seed_in_my_name", `a seed is listed at your seat (${seatWord(seat)}) that this browser did not reveal`);
      }
      my = "unrevealed";
    } else {
      if (mine.list && !same(unhex(mine.list, 32, "your list's digest"), digest)) {
        fail("list_changed", "the list of seed commitments is not the one you were sent before revealing your seed");
      }
      const seed = unhex(mine.seed, 32, "your seed");
      if (!seeds.some((s) => s.seat === seat && same(s.seed, seed))) fail("own_seed", `your seed was not used (${seatWord(seat)})`);
      my = "used";
    }
  }
  return { seeds, digest, unrevealed, house, my };
}

/**
 * Checks a hand's record (`/api/me/hands/{id}?format=replay`) as docs/fairness.md's
 * "Checking a record" says, in its order: the version, hand, size, rounds and commitment;
 * the seeds; the rounds' tags; the walk of the deal with its reshuffles and discards;
 * every opening; nothing left out; each hand shown held; the reshuffles' `kept` openings.
 * `mine` is what this browser knows of its own seed for the hand: null (nothing: the
 * seeds are checked as they stand), `"none"` (it sent none: no commitment may be listed
 * at the player's seat), `{ seed, list }` (it revealed `seed` after being sent the closed
 * list whose digest is `list`, hex: the seed must be the one used at the player's seat,
 * under that list; `list` null skips the list's check), or `{ seed, revealed: false }`
 * (it committed and never revealed: no seed used at the seat, and any commitment there
 * its own). Resolves to what was checked; rejects with a Failed (`code`, what failed).
 */
export async function verifyRecord(record, mine = null) {
  const f = record && record.fairness;
  if (!f) fail("format", "this hand has no proofs (dealt before decks were committed)");
  if (f.version === 1) {
    throw new Failed("version", "this hand was dealt before version 2 of the verifiable deck: its record is version 1, which this page does not check (it checks version 2 only); download the hand's record and run `pokerd verify FILE`, which checks version 1", { version1: true });
  }
  if (f.version !== 2) fail("version", "unknown version " + f.version);
  if (typeof f.hand_id !== "string" || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(f.hand_id)) {
    fail("format", "the proofs' hand id is not a hand id in lowercase");
  }
  if (f.hand_id !== record.hand_id) fail("hand_id", `the proofs are for hand ${f.hand_id}, the record is hand ${record.hand_id}`);
  if (f.size !== 52 && f.size !== 36) fail("size", `a deck of ${f.size} cards`);
  const size = f.size;
  for (const k of ["rounds", "seed_list", "seeds", "reshuffles", "discards", "tags", "cards", "kept"]) {
    if (!Array.isArray(f[k])) fail("format", `the proofs have no ${k}`);
  }
  if (!Array.isArray(record.seats) || !Array.isArray(record.events)) fail("format", "not a hand's record: no seats or events");
  if (f.rounds.length < 1 || f.rounds.length > 16) fail("rounds", `the commitment has ${f.rounds.length} rounds`);
  const rounds = f.rounds.map((r) => ({ root: unhex(r && r.root, 32, "a round's root"), tags: unhex(r && r.tags, 32, "a round's tags digest") }));
  const commitment = unhex(f.commitment, 32, "the commitment");
  if (!same(await deckCommitment(f.hand_id, size, rounds), commitment)) {
    fail("commitment", "the commitment is not the hash of the hand id, the deck size and the rounds");
  }
  const s = await checkSeeds(record, f, commitment, mine);
  const key = await shuffleKey(commitment, s.digest, s.seeds.map((x) => [x.seat, x.seed]));
  const made = f.reshuffles.length;
  if (made >= f.rounds.length) fail("reshuffle_unused", `the record lists ${made} reshuffles, the deal made ${f.rounds.length - 1} at most`);
  if (f.tags.length !== made + 1) fail("tags", `the tags of round ${Math.min(f.tags.length, made + 1)} are not the committed ones, or not ${size} in ascending order`);
  for (const [r, tags] of f.tags.entries()) {
    const bad = () => fail("tags", `the tags of round ${r} are not the committed ones, or not ${size} in ascending order`);
    if (!Array.isArray(tags) || tags.length !== size) bad();
    const bytes = tags.map((t) => unhex(t, 32, "a tag"));
    // Lowercase hex of one length sorts as its bytes do.
    if (tags.some((t, i) => i > 0 && tags[i - 1] >= t)) bad();
    if (!same(await tagsDigest(r, bytes), rounds[r].tags)) bad();
  }
  const w = walk(record.events, size, f.reshuffles, f.discards);
  // Every card the viewer saw is written: only another player's down cards are unknown.
  const me = Number.isInteger(record.me) ? record.me : null;
  for (const t of w.taken) {
    const mayHide = t.kind.burn || (t.kind.hole && !t.kind.up && me !== null && t.kind.player !== me);
    if (t.card === UNKNOWN && !mayHide) {
      fail("format", (t.kind.board ? "a board card" : t.kind.player === me ? "your card" : `a card of player ${t.kind.player}`) + " is written unknown (??), and the record must show it");
    }
  }
  const orders = [];
  for (let r = 0; r <= made; r++) orders.push(await roundOrder(key, r, size));
  const at = new Map(w.taken.map((t, i) => [t.round * 256 + t.slot, i]));
  const opens = async (round, card, nonce, path, what) => {
    const number = cardNumber(size, card);
    const bad = () => fail("path", `${cardName(card)} in round ${round} is not in the committed deck: its leaf and path do not lead to the root`);
    if (number === null) bad();
    const n = unhex(nonce, 16, what + "'s nonce");
    if (!Array.isArray(path)) fail("format", what + " has no path");
    const p = path.map((x) => unhex(x, 32, what + "'s path"));
    if (!(await verifyPath(number, size, await leafHash(round, card, n), p, rounds[round].root))) bad();
    return toHex(await tagHash(round, card, n));
  };
  const proofs = f.cards.map((p) => {
    if (!p || !Number.isInteger(p.round) || !Number.isInteger(p.slot)) fail("format", "an opening without its round and slot");
    return { ...p, card: cardIndex(p.card) };
  });
  if (proofs.some((p, i) => i > 0 && proofs[i - 1].round * 256 + proofs[i - 1].slot >= p.round * 256 + p.slot)) {
    fail("proof_order", "the proofs are not listed once each in ascending order");
  }
  // The card each opening proves, by index into the walk.
  const proved = new Map();
  const shownBy = (player) => w.shown.some(([p]) => p === player);
  for (const p of proofs) {
    const { round, slot, card } = p;
    const i = at.get(round * 256 + slot);
    if (i === undefined) fail("slot_not_dealt", `a proof for round ${round} slot ${slot}, from which no card was dealt`);
    const t = w.taken[i];
    if (t.kind.burn) fail("burn_proved", `a proof opens the burn card at round ${round} slot ${slot}`);
    const tag = await opens(round, card, p.nonce, p.path, "an opening");
    if (tag !== f.tags[round][orders[round][slot]]) {
      fail("tag", `${cardName(card)} is not the card at round ${round} slot ${slot}: its tag is not the one there`);
    }
    if (t.card !== UNKNOWN) {
      if (t.card !== card) fail("card_mismatch", `the record shows ${cardName(t.card)} at round ${round} slot ${slot}, the proof opens ${cardName(card)}`);
    } else if (!(t.kind.hole && shownBy(t.kind.player) && t.until === null)) {
      fail("not_shown", `a proof of ${cardName(card)} at round ${round} slot ${slot}, a card you did not see`);
    }
    proved.set(i, card);
  }
  w.taken.forEach((t, i) => {
    if (!t.kind.burn && t.card !== UNKNOWN && !proved.has(i)) {
      fail("unproved", `the record shows ${cardName(t.card)} (round ${t.round} slot ${t.slot}) without a proof`);
    }
  });
  // A hand shown is exactly the cards its player held at the end.
  for (const [player, cards] of w.shown) {
    const had = held(w, player).map((i) => (proved.has(i) ? proved.get(i) : UNKNOWN)).sort((a, b) => a - b);
    if (!same(had, cards.slice().sort((a, b) => a - b))) {
      fail("shown_not_held", `player ${player + 1} showed ${cards.map(cardName).join("")}, and the cards they held at the end are not those`);
    }
  }
  // The reshuffles left alone every card the viewer knows while it was held or in the
  // stub: each has an opening in the reshuffle's round whose tag is at no slot it took.
  const needed = new Map();
  for (const [r, i] of keptNeeded(w, [...proved.keys()].sort((a, b) => a - b))) needed.set(r * 256 + cardNumber(size, proved.get(i)), i);
  const openings = f.kept.map((k) => {
    if (!k || !Number.isInteger(k.round)) fail("format", "a kept opening without its round");
    return { ...k, card: cardIndex(k.card) };
  });
  if (openings.some((k, i) => i > 0 && openings[i - 1].round * 256 + openings[i - 1].card >= k.round * 256 + k.card)) {
    fail("proof_order", "the proofs are not listed once each in ascending order");
  }
  for (const k of openings) {
    const number = cardNumber(size, k.card);
    if (number === null) fail("path", `${cardName(k.card)} in round ${k.round} is not in the committed deck: its leaf and path do not lead to the root`);
    const i = needed.get(k.round * 256 + number);
    if (i === undefined || proved.get(i) !== k.card) fail("kept_unexpected", `an opening of ${cardName(k.card)} in round ${k.round}, which the reshuffle does not concern for you`);
    needed.delete(k.round * 256 + number);
    const tag = await opens(k.round, k.card, k.nonce, k.path, "a kept opening");
    const index = f.tags[k.round].indexOf(tag);
    if (index < 0) fail("tag_unknown", `the tag of ${cardName(k.card)} in round ${k.round} is not among the committed tags`);
    const slot = orders[k.round].indexOf(index);
    if (f.reshuffles[k.round - 1].includes(slot)) {
      fail("reshuffle_took_kept", `reshuffle ${k.round} takes ${cardName(k.card)}, which was not discarded (held, or still in the stub)`);
    }
  }
  if (needed.size) {
    const first = Math.min(...needed.keys());
    fail("kept_missing", `no opening shows reshuffle ${first >> 8} left ${cardName(proved.get(needed.get(first)))} alone`);
  }
  return {
    cards: proofs.length, kept: openings.length, seeds: s.seeds.length, houseSeeds: s.house,
    playerSeeds: s.seeds.length - s.house, unrevealed: s.unrevealed, reshuffles: made,
    dealt: w.taken.length, mine: s.my,
  };
}

const plural = (n, word, many = word + "s") => n + " " + (n === 1 ? word : many);

/** What a check found, in words. */
export function verdict(result) {
  let text = "Verified: " + plural(result.cards, "card") + " you saw came from the deck committed before the seeds, dealt in the order "
    + plural(result.seeds, "seed") + " made (" + result.playerSeeds + " of players, " + result.houseSeeds + " of the house)"
    + (result.reshuffles ? ", with " + plural(result.reshuffles, "reshuffle") : "");
  if (result.mine === "used") text += "; your seed was used";
  else if (result.mine === "none") text += "; no seed was used in your name (this browser sent none for this hand)";
  else if (result.mine === "unrevealed") text += "; your seed was not used: this browser committed to one and never revealed it (the list of seeds closed without it)";
  text += ".";
  if (result.playerSeeds === 0) text += " No player's seed was used: the order was the server's alone.";
  if (result.unrevealed.length) {
    text += " " + seatsWords(result.unrevealed)
      + (result.unrevealed.length === 1 ? " committed a seed and did not reveal it." : " committed seeds and did not reveal them.");
  }
  return text;
}

/** What a failed check says, in words. */
export function failure(e) {
  if (e instanceof Failed && e.version1) return "NOT CHECKED HERE: " + e.message + ".";
  return "NOT VERIFIED" + (e instanceof Failed ? " (" + e.code + ")" : "") + ": " + e.message;
}

/**
 * What a hand's proofs (`deck_proof`) say at first sight, for the hand log: how many cards
 * they prove, whether this browser's seed was used at the player's `seat` (`mine`, as
 * `mineFor` gives it), and when no player's seed was (the check itself is "Verify").
 */
export function proofWords(proof, seat, mine) {
  let text = "the deck's proofs of " + plural(proof.cards.length, "card") + " came";
  if (mine && mine.seed && mine.revealed === false) text += "; your seed was not used (the list of seeds closed without it)";
  else if (mine && mine.seed) {
    // At the player's seat (any seat when they left it since: a seed is 32 random bytes).
    const used = proof.seeds.some((s) => s.seed === mine.seed && (seat === null || seat === undefined || s.seat === seat));
    text += used ? "; your seed was used" : "; your seed was NOT used";
  } else text += "; this browser sent no seed for it";
  const house = new Set((proof.seed_list || []).filter((e) => e.house).map((e) => e.seat));
  if (!proof.seeds.some((s) => !house.has(s.seat))) text += "; no player's seed was used: the order was the server's alone";
  return text + ".";
}

// ---------------------------------------------------------------- this browser's seeds

const SEEDS = "pokerd.seeds";
const KEEP = 300;

/** The kept seeds, oldest first: `[hand_id, seed, list digest or null]`. */
function kept(storage) {
  try {
    const k = JSON.parse(storage.getItem(SEEDS) || "[]");
    return Array.isArray(k) ? k : [];
  } catch (_) { return []; }
}

function keep(storage, list) {
  if (list.length > KEEP) list = list.slice(list.length - KEEP);
  try { storage.setItem(SEEDS, JSON.stringify(list)); } catch (_) { /* storage full or off: the check just cannot say */ }
}

/**
 * The seed this browser commits to for a hand: the one it has if it has one (a reload
 * commits to the same seed again), else a fresh one, remembered (the newest few hundred)
 * in `storage`.
 */
export function newSeed(storage, handId, random = (n) => crypto.getRandomValues(new Uint8Array(n))) {
  const had = seedFor(storage, handId);
  if (had) return had;
  const seed = toHex(random(32));
  keep(storage, kept(storage).filter(([h]) => h !== handId).concat([[handId, seed, null]]));
  return seed;
}

/** Keeps the digest of the closed list a hand's seed is revealed under (before revealing it). */
export function keepList(storage, handId, digest) {
  keep(storage, kept(storage).map((e) => (e[0] === handId ? [e[0], e[1], digest] : e)));
}

/** Forgets the seed of a hand (the server refused it: the hand is dealt without it). */
export function forgetSeed(storage, handId) {
  keep(storage, kept(storage).filter(([h]) => h !== handId));
}

/** The seed this browser committed to for a hand, if it still has it. */
export function seedFor(storage, handId) {
  const found = kept(storage).find(([h]) => h === handId);
  return found ? found[1] : null;
}

/**
 * What this browser knows of its seed for a hand, as `verifyRecord` takes it: revealed
 * (`{ seed, list }`), committed and never revealed (`{ seed, revealed: false }`), or none
 * kept (`"none"`: it sent none, or the seed was sent from another browser, or is older
 * than the few hundred kept).
 */
export function mineFor(storage, handId) {
  const found = kept(storage).find(([h]) => h === handId);
  if (!found) return "none";
  return found[2] ? { seed: found[1], list: found[2] } : { seed: found[1], revealed: false };
}

/**
 * The commitment (hex) to this browser's seed for a deck (the commitment's hex). Worked out
 * at once (this page's own SHA-256, not SubtleCrypto's promise), so that after a `sit` the
 * commitment leaves in the same turn of the page's loop, while the sit is under way.
 */
export function commitTo(deck, seed) {
  return toHex(sha256(concat([SEED_LABEL, unhex(deck, 32, "the deck's commitment"), unhex(seed, 32, "a seed")])));
}

/** The digest (hex) of a closed list as `seeds_closed` sends it, for a deck (hex). */
export async function closedListDigest(deck, list) {
  const entries = list.map((e) => ({ seat: e.seat, house: e.house, commitment: unhex(e.commitment, 32, "a seed's commitment") }));
  return toHex(await listDigest(unhex(deck, 32, "the deck's commitment"), entries));
}
