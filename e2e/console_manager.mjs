// The console as a card-room manager uses it, in Debian's Chromium against a real pokerd
// (crates/poker-server/tests/server/browser.rs passes BASE, ADMIN_TOKEN, PLAYER (a player's
// name with a wallet) and SHOTS), at a laptop's 1366x768 and on a tablet both ways
// (768x1024 and 1024x768, touch): a table made with the form from a preset (a rule
// refused before anything is sent, shown on its field; a name the server refuses, shown
// on the name field; then the table opens); a deposit that the players' list, the wallet
// and the ledger show at once, with no reload; the audit log in words with names, no id
// standing alone and no JSON. On every page and dialog at every size: axe-core (WCAG A and
// AA) finds nothing and the page never scrolls sideways; on the tablet, every control is
// at least 44 px tall.
import { chromium } from "playwright-core";
import { checkAxe, checkNoOverflow } from "./checks.mjs";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

// axe-core put in the page through the DevTools protocol: the console's Content Security
// Policy (script-src 'self') refuses the inline script tag checkAxe would add, and the
// policy stays on, so that the console is checked as it runs.
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

const BASE = process.env.BASE;
const SHOTS = process.env.SHOTS;
const PLAYER = process.env.PLAYER;
const step = (text) => console.log("step: " + text);
function check(cond, text) {
  if (!cond) throw new Error("check failed: " + text);
}
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/i;

const SIZES = [
  { label: "laptop", viewport: { width: 1366, height: 768 }, touch: false },
  { label: "tablet", viewport: { width: 768, height: 1024 }, touch: true },
  { label: "tablet-landscape", viewport: { width: 1024, height: 768 }, touch: true },
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
const errors = [];
const timings = [];
try {
  for (const size of SIZES) {
    const context = await browser.newContext({ viewport: size.viewport, hasTouch: size.touch, isMobile: size.touch });
    const page = await context.newPage();
    page.on("pageerror", (e) => errors.push(`${size.label}: page error: ${e.message}`));
    page.on("console", (m) => {
      // A refused request (400) is the console's business, shown on the page.
      if (m.type() === "error" && !/status of (4\d\d)/.test(m.text())) errors.push(`${size.label}: console error: ${m.text()}`);
    });
    page.on("dialog", (d) => { errors.push(`${size.label}: a native ${d.type()} box: ${d.message()}`); d.dismiss(); });
    const creates = [];
    page.on("request", (r) => { if (r.method() === "POST" && r.url().endsWith("/admin/tables")) creates.push(r.url()); });
    const at = size.label;
    const pageChecks = async (what) => {
      if (!(await page.evaluate(() => typeof window.axe !== "undefined"))) await page.evaluate(AXE_SOURCE);
      await checkAxe(page, `${what} (${at})`);
      await checkNoOverflow(page, `${what} (${at})`);
      if (size.touch) {
        // Every control a finger uses is at least 44 px tall (the 2.5.5 target size).
        const small = await page.evaluate(() => [...document.querySelectorAll("button, select, input:not([type=checkbox]), summary, a.button")]
          .filter((e) => e.offsetParent !== null)
          .map((e) => [e.id || e.textContent.trim().slice(0, 20) || e.tagName, e.getBoundingClientRect().height])
          .filter(([, h]) => h < 43.5));
        check(small.length === 0, `${what} (${at}): controls under 44 px: ${JSON.stringify(small.slice(0, 5))}`);
      }
    };
    const shot = async (name) => { if (SHOTS) await page.screenshot({ path: `${SHOTS}/console-${name}-${at}.png`, fullPage: true }); };
    const section = async (name) => {
      await page.click(`#sections button[data-section="${name}"]`);
      await page.waitForSelector(`#${name}:not(.hidden)`);
    };
    const fieldError = (id) => page.locator(`#table-fields [data-field="${id}"] .field-error`).textContent();

    step(`${at}: the sign-in page`);
    await page.goto(BASE + "/admin");
    await pageChecks("sign-in");
    await page.fill("#token", process.env.ADMIN_TOKEN);
    await page.click("#token-form button");
    await page.waitForSelector("#sections:not(.hidden)");
    await page.evaluate(() => { window.notReloaded = true; });

    step(`${at}: a new table from the PLO preset, every rule a field with what it means`);
    await page.waitForSelector("#preset option", { state: "attached" });
    await page.selectOption("#preset", "plo");
    check(await page.inputValue("#f-rules-game") === "omaha", "the preset's game in the form");
    check(await page.inputValue("#f-rules-structure") === "pot_limit", "the preset's structure");
    check(await page.isVisible("#f-rules-stakes-min_bet") && !(await page.isVisible("#f-rules-stakes-small_bet")), "pot limit shows a minimum bet, not the limit bets");
    check(await page.isVisible("#f-rules-options-pot_limit_preflop"), "pot limit's preflop rule is offered");
    check((await page.locator('[data-field="rules.missed_blinds"] .help').textContent()).includes("R14"), "an explanation with its rule id");
    await pageChecks("tables, the new-table form");
    await shot("form");

    step(`${at}: a buy-in range upside down is refused on its field before anything is sent`);
    const name = `Manager PLO ${at}`;
    await page.fill("#f-name", name);
    await page.fill("#f-rules-min_buy_in", "300");
    await page.click("#create-table");
    await page.waitForSelector('[data-field="rules.max_buy_in"].invalid');
    check((await fieldError("rules.max_buy_in")).includes("min <= max"), "the range's problem on the maximum buy-in");
    check(await page.getAttribute("#f-rules-max_buy_in", "aria-invalid") === "true", "the field is marked invalid");
    check(await page.evaluate(() => document.activeElement.id) === "f-rules-max_buy_in", "the focus goes to the field");
    check(creates.length === 0, "nothing was sent");
    await pageChecks("the form with a problem on a field");
    await shot("form-problem");

    step(`${at}: a name the server refuses (it reads as an id) is shown on the name field`);
    await page.fill("#f-rules-min_buy_in", "40");
    await page.fill("#f-name", "0b5d5a3e-1d2c-4e5f-8a9b-0c1d2e3f4a5b");
    await page.click("#create-table");
    await page.waitForSelector('[data-field="name"].invalid');
    check(creates.length === 1, "the form sent it once");
    check((await fieldError("name")).length > 5, "the server's words on the name field");
    check(!(await page.isVisible('[data-field="rules.max_buy_in"].invalid')), "the fixed field is clear");
    check((await page.locator("#table-problems li").count()) === 0, "no problem left without its field");

    step(`${at}: the table opens, listed and shown live`);
    await page.fill("#f-name", name);
    await page.click("#create-table");
    await page.waitForSelector(`#table-live:not(.hidden) h3:has-text("${name}")`);
    await page.waitForSelector(`#table-list tbody tr:has-text("${name}")`);
    check(creates.length === 2, "created with one more request");
    await pageChecks("tables with the live view");

    step(`${at}: the advanced JSON view holds the form's body`);
    await page.click("#table-json summary");
    // Filled when the view opens (the details' toggle event comes just after the click).
    await page.waitForFunction(() => document.querySelector("#table-body").value.length > 0);
    const json = JSON.parse(await page.inputValue("#table-body"));
    check(json.name === name && json.rules.game === "omaha" && json.rules.min_buy_in === 40, "the form's table as JSON");
    await pageChecks("the advanced JSON view");
    await page.click("#table-json summary");

    step(`${at}: a deposit shows in the list, the wallet and the ledger with no reload`);
    await section("players");
    await page.fill("#player-q", PLAYER);
    await page.click("#player-search button");
    const row = page.locator("#player-list tbody tr", { hasText: PLAYER }).first();
    await row.waitFor();
    const before = Number((await row.locator("td").nth(1).textContent()).replace(/\D/g, ""));
    await row.locator("button", { hasText: "Open" }).click();
    await page.waitForSelector("#player-detail:not(.hidden)");
    await pageChecks("a player");
    await page.fill("#money-amount", "1000");
    const t0 = Date.now();
    await page.click("#deposit");
    await page.waitForFunction((want) => {
      const cell = [...document.querySelectorAll("#player-list tbody tr")].find((r) => r.textContent.includes(want.name));
      return cell && Number(cell.children[1].textContent.replace(/\D/g, "")) === want.balance;
    }, { name: PLAYER, balance: before + 1000 });
    timings.push(`${at}: deposit to the list refreshed in ${Date.now() - t0} ms`);
    // The player's own panel is read again alongside the list.
    await page.waitForFunction((want) => document.querySelector("#player-summary").textContent.includes(want), `Wallet ${before + 1000}`);
    await page.waitForFunction(() => (document.querySelector("#ledger tbody tr") || {}).textContent?.includes("+1,000"));
    const first = await page.locator("#ledger tbody tr").first().textContent();
    check(first.includes("deposit") && first.includes("+1,000") && first.includes("wallet"), `the ledger's newest line: ${first}`);
    check(!UUID.test(await page.locator("#ledger").textContent()), "no id standing alone in the ledger");
    check(await page.evaluate(() => window.notReloaded === true), "the page was not reloaded");
    await pageChecks("a player after a deposit");
    await shot("players");

    step(`${at}: the audit log in words, with names`);
    await section("audit");
    await page.waitForSelector('#audit-log tbody tr[data-action="deposit"]');
    const deposit = await page.locator('#audit-log tbody tr[data-action="deposit"]').first().textContent();
    check(deposit.includes(`deposit 1,000 to ${PLAYER}`) && deposit.includes("admin token") && deposit.includes("(key "), `the deposit in words: ${deposit}`);
    const opened = await page.locator('#audit-log tbody tr[data-action="create_table"]', { hasText: name }).first().textContent();
    check(opened.includes(`open table ${name}`) && opened.includes("omaha pot limit"), `the new table in words: ${opened}`);
    const log = await page.locator("#audit-log").textContent();
    check(!UUID.test(log), "no id standing alone in the audit log");
    check(!log.includes('{"'), "no JSON in the audit log");
    await pageChecks("the audit log");
    await shot("audit");

    for (const other of ["hands", "room", "fairplay", "staff"]) {
      step(`${at}: the ${other} section`);
      await section(other);
      await page.waitForLoadState("networkidle");
      await pageChecks(`the ${other} section`);
    }
    await section("tables");
    await context.close();
  }
  if (errors.length) throw new Error(errors.join("\n"));
  for (const t of timings) console.log("timing: " + t);
  console.log("console manager: ok");
} finally {
  await browser.close();
}
