// Checks every browser test runs on every page it visits: accessibility (axe-core, the
// WCAG 2.x A and AA rules) and horizontal overflow (a page wider than the window makes a
// phone scroll sideways). Each throws with the offending elements named.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

const require = createRequire(import.meta.url);
const AXE = require.resolve("axe-core/axe.min.js");

/// Runs axe-core on the page as it is now and throws on any violation; `label` names the
/// page in the error. `exclude` lists selectors axe must skip (none by default).
export async function checkAxe(page, label, exclude = []) {
  const loaded = await page.evaluate(() => typeof window.axe !== "undefined");
  // Evaluated, not added as a script tag: the pages' Content-Security-Policy refuses
  // inline scripts (as it should), and an evaluation is not subject to it.
  if (!loaded) await page.evaluate(readFileSync(AXE, "utf8"));
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
