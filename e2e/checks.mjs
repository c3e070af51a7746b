// Checks every browser test runs on every page it visits: accessibility (axe-core, the
// WCAG 2.x A and AA rules) and horizontal overflow (a page wider than the window makes a
// phone scroll sideways). Each throws with the offending elements named. Also what some
// tests share: the player's turns answered from inside the page (`autoplay`), and a
// focused control watched frame by frame while messages come (`watchFocus`).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
// Put in the page through the DevTools protocol (page.evaluate): the pages' Content
// Security Policy (script-src 'self') refuses an inline script tag.
const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/// Runs axe-core on the page as it is now and throws on any violation; `label` names the
/// page in the error. `exclude` lists selectors axe must skip (none by default).
export async function checkAxe(page, label, exclude = []) {
  const loaded = await page.evaluate(() => typeof window.axe !== "undefined");
  if (!loaded) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async (exclude) => {
    const context = exclude.length ? { exclude: exclude.map((s) => [s]) } : document;
    const result = await window.axe.run(context, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
      resultTypes: ["violations"],
    });
    return result.violations.map((v) => ({
      id: v.id,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
    }));
  }, exclude);
  if (violations.length) {
    const text = violations.map((v) => `${v.id} (${v.help}): ${v.nodes.join(", ")}`).join("; ");
    throw new Error(`axe on ${label}: ${violations.length} violation(s): ${text}`);
  }
}

/// Throws when the page is wider than its window (horizontal scrolling), naming the
/// widest elements that stick out.
export async function checkNoOverflow(page, label) {
  const result = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const scroll = document.documentElement.scrollWidth;
    const out = [];
    if (scroll > width) {
      for (const el of document.querySelectorAll("body *")) {
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.right > width + 1) {
          out.push(`${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}${el.className && typeof el.className === "string" ? "." + el.className.split(" ").join(".") : ""} right=${Math.round(r.right)}`);
        }
        if (out.length >= 8) break;
      }
    }
    return { width, scroll, out };
  });
  if (result.scroll > result.width) {
    throw new Error(`${label}: page is ${result.scroll} px wide in a ${result.width} px window: ${result.out.join(", ")}`);
  }
}

/// The player's own turns answered at once from inside the page (`page.evaluate(autoplay)`),
/// whatever it shows, so that a table plays on while the test looks elsewhere: a check, or
/// a fold to a bet (the stack lasts), a stand pat, no second run, a muck.
export function autoplay() {
  const done = new Set();
  setInterval(() => {
    for (const T of window.pokerd.tables.values()) {
      const d = T.decide;
      if (!d || done.has(T.id + d.id)) continue;
      done.add(T.id + d.id);
      const action = d.kind === "bet" ? (d.legal.check ? { type: "check" } : { type: "fold" })
        : d.kind === "draw" ? { type: "draw", discards: "" } : d.kind === "run_twice" ? { type: "run_it_twice", agree: false } : { type: "muck" };
      window.pokerd.send({ type: "act", table_id: T.id, decision_id: d.id, action });
    }
  }, 20);
}

/// Gives the focus to `selector` and watches it for `ms` as a player sees it, at every
/// animation frame: whether it still has the focus, how far it moved in its list (the
/// table or list it is in), how far the list itself moved on the screen (`shifted`: what
/// is drawn above it grew), and whether it was off the screen; and how many messages the
/// page's socket received meanwhile. Returns `{ frames, kept, moved, shifted, offscreen,
/// messages }`.
export async function watchFocus(page, selector, ms) {
  await page.focus(selector);
  return page.evaluate(async ({ selector, ms }) => {
    const target = document.querySelector(selector);
    const list = target.closest("table, ul, ol, nav") || document.body;
    const inList = () => {
      const r = target.getBoundingClientRect();
      const l = list.getBoundingClientRect();
      return { top: r.top - l.top, left: r.left - l.left, listTop: l.top };
    };
    const at = inList();
    let messages = 0;
    const count = () => messages++;
    const ws = window.pokerd.ws;
    ws.addEventListener("message", count);
    const seen = { frames: 0, kept: 0, moved: 0, shifted: 0, offscreen: 0 };
    let running = true;
    const frame = () => {
      seen.frames++;
      if (document.activeElement === target) seen.kept++;
      const now = inList();
      seen.moved = Math.max(seen.moved, Math.abs(now.top - at.top), Math.abs(now.left - at.left));
      seen.shifted = Math.max(seen.shifted, Math.abs(now.listTop - at.listTop));
      const r = target.getBoundingClientRect();
      if (!target.isConnected || r.bottom <= 0 || r.top >= innerHeight || r.width === 0) seen.offscreen++;
      if (running) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    await new Promise((resolve) => setTimeout(resolve, ms));
    running = false;
    ws.removeEventListener("message", count);
    return { ...seen, messages };
  }, { selector, ms });
}
