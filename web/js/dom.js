// The page's DOM and HTTP helpers, shared by every module that draws or asks the server
// (the player's page and the console): `$` finds an element, `el` makes one, `api` fetches
// a JSON (or text) answer with the player's session token; `frames` draws at most once per
// animation frame; `keyed` and `arrange` keep a list's elements (one per key) across
// drawings, so the focus and a click survive updates. Nothing else here: the views decide
// what is drawn.

/** The first element matching `sel`. */
export const $ = (sel) => document.querySelector(sel);

/** A new `tag` element with class `cls` and text `text` (both optional). */
export const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

/** GET `path` as the player (`S.token`); throws with the server's message on refusal. */
export async function api(S, path) {
  const r = await fetch(path, { headers: { authorization: "Bearer " + S.token } });
  if (!r.ok) throw new Error((await r.json().catch(() => ({}))).message || r.statusText);
  return (r.headers.get("content-type") || "").includes("json") ? r.json() : r.text();
}

/** Sets an element's text only when it changed (the same text is not written again). */
export function setText(e, text) {
  const t = String(text);
  if (e.textContent !== t) e.textContent = t;
}

/**
 * Draws at most once per animation frame, whatever the message rate. `request()` asks for
 * a drawing: the first ask schedules one for the next frame, the asks after it until then
 * join it. `now()` draws at once (what the person just did shows before the next event)
 * and drops the drawing asked for. Where no frame comes (a tab in the background gets
 * none), a timer draws after `fallbackMs`. `timers` are the browser's by default; the
 * tests pass their own.
 */
export function frames(draw, timers = {}, fallbackMs = 1000) {
  const g = globalThis;
  const {
    raf = (f) => g.requestAnimationFrame(f),
    cancelRaf = (id) => g.cancelAnimationFrame(id),
    setTimer = (f, ms) => g.setTimeout(f, ms),
    clearTimer = (id) => g.clearTimeout(id),
  } = timers;
  let frame = null;
  let timer = null;
  let drawn = 0;
  const cancel = () => {
    if (frame !== null) cancelRaf(frame);
    if (timer !== null) clearTimer(timer);
    frame = timer = null;
  };
  const run = () => { cancel(); drawn++; draw(); };
  return {
    request() {
      if (frame !== null || timer !== null) return;
      frame = raf(run);
      timer = setTimer(run, fallbackMs);
    },
    now: run,
    /** Whether a drawing is asked for and not yet done. */
    get pending() { return frame !== null || timer !== null; },
    /** How many drawings were done (for the measurements). */
    get drawn() { return drawn; },
  };
}

/**
 * Which of a list's elements stay where they are when it is put in a new order: given, in
 * the new order, each element's place in the old order (-1 for a new one), the indices of
 * the longest run that is already in order (a longest increasing subsequence). Every
 * other element is moved, so as few as possible move.
 */
export function stayers(places) {
  const tails = []; // tails[k]: index of the smallest last place of a run of length k + 1
  const prev = new Array(places.length).fill(-1);
  places.forEach((p, i) => {
    if (p < 0) return;
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (places[tails[mid]] < p) lo = mid + 1; else hi = mid;
    }
    if (lo > 0) prev[i] = tails[lo - 1];
    tails[lo] = i;
  });
  const stay = new Set();
  for (let i = tails.length ? tails[tails.length - 1] : -1; i >= 0; i = prev[i]) stay.add(i);
  return stay;
}

/**
 * Puts `elements` (the children of `box`, or new ones) in this order as `box`'s children,
 * moving only those out of place (see `stayers`): an element that is moved loses the
 * focus, one that stays keeps it. Children of `box` not listed are left after them.
 */
export function arrange(box, elements) {
  const old = new Map([...box.children].map((e, i) => [e, i]));
  const stay = stayers(elements.map((e) => (old.has(e) ? old.get(e) : -1)));
  let next = null;
  for (let i = elements.length - 1; i >= 0; i--) {
    const e = elements[i];
    if (!stay.has(i)) {
      // Where the element goes: before the next listed one, or after the last listed one
      // (before the first unlisted child after the listed ones; at the end if none).
      const before = next || firstUnlistedAfter(box, elements, stay);
      if (before !== e && (e.parentNode !== box || e.nextElementSibling !== before)) box.insertBefore(e, before);
    }
    next = e;
  }
}

// The child that follows the last of the listed elements that stay, or null.
function firstUnlistedAfter(box, elements, stay) {
  let last = null;
  for (let i = elements.length - 1; i >= 0 && !last; i--) if (stay.has(i)) last = elements[i];
  return last ? last.nextElementSibling : box.firstElementChild;
}

/**
 * Keeps one element a key in `box` across drawings: for each item, the element drawn
 * before for its key (`data-key`) is kept and brought up to date (`update(element, item)`),
 * a new key's element is made (`make(item)`, then `update`) and added at the end, and the
 * elements of keys gone (and any child without a key) are removed. Elements are not
 * reordered here (`arrange` does, moving as few as possible). Returns the elements in
 * the items' order.
 */
export function keyed(box, items, key, make, update) {
  const old = new Map();
  for (const e of [...box.children]) {
    const k = e.dataset ? e.dataset.key : undefined;
    if (k === undefined || old.has(k)) e.remove(); else old.set(k, e);
  }
  const out = items.map((item) => {
    const k = String(key(item));
    let e = old.get(k);
    if (e) old.delete(k);
    else {
      e = make(item);
      e.dataset.key = k;
      box.append(e);
    }
    update(e, item);
    return e;
  });
  for (const e of old.values()) e.remove();
  return out;
}
