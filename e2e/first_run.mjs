// A newcomer's first minute, in Debian's Chromium against a pokerd started from nothing
// (crates/poker-server/tests/server/browser.rs starts the binary in an empty folder, as the
// README's run command does, and passes BASE): open the page, register, see the preset
// tables and the play chips, sit at the hold'em table, and play a hand against the house
// bots, all through the page: no curl, no admin call. Then, while that table plays on
// (the newcomer's turns answered at once), the lobby: another table's row given the focus
// keeps it, at the same place on the screen, in every frame for 5 s of the table's
// messages, and opens with Enter; a click whose press and release span messages opens
// its table. Each step is timed; the last line is JSON with the times in milliseconds
// since the page was opened.
import { chromium } from "playwright-core";
import { checkAxe, checkNoOverflow, autoplay, watchFocus } from "./checks.mjs";

const BASE = process.env.BASE;
const SHOTS = process.env.SHOTS;
const step = (text) => console.log("step: " + text);
function check(cond, text) {
  if (!cond) throw new Error("check failed: " + text);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
const errors = [];
const times = {};
try {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  const page = await context.newPage();
  page.on("pageerror", (e) => errors.push("page error: " + e.message));
  page.on("console", (m) => { if (m.type() === "error") errors.push("console error: " + m.text()); });
  page.on("dialog", (d) => { errors.push("a native dialog: " + d.message()); d.dismiss(); });
  const t0 = Date.now();
  const mark = (what) => { times[what] = Date.now() - t0; step(`${what} at ${times[what]} ms`); };

  await page.goto(BASE + "/");
  await page.waitForSelector("#login-view:not(.hidden)");
  mark("page_open");
  await checkAxe(page, "the login page");
  await checkNoOverflow(page, "the login page");

  await page.fill("#login-name", "newcomer");
  await page.fill("#login-password", "first-time-here");
  await page.click("#register-submit");
  await page.waitForSelector("#lobby-view:not(.hidden)");
  mark("registered");

  // The room is ready: preset tables of several games, and play chips in the wallet.
  await page.waitForFunction(() => document.querySelectorAll("#lobby tbody tr").length >= 4);
  const lobby = await page.locator("#lobby").textContent();
  for (const game of ["Hold'em", "Omaha", "Stud", "Triple Draw"]) check(lobby.includes(game), `the lobby has ${game}: ${lobby}`);
  await page.waitForFunction(() => /Wallet 10,000 play chips/.test(document.querySelector("#wallet").textContent));
  check(await page.locator("#reload:not(.hidden)").count() === 1, "a reload button in a play-money room");
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/first-run-lobby.png` });
  await checkAxe(page, "the lobby of a fresh room");
  await checkNoOverflow(page, "the lobby of a fresh room");

  const row = page.locator("#lobby tbody tr", { hasText: "NL Hold'em" }).first();
  await row.locator("button").click();
  await page.waitForSelector("#table-view:not(.hidden) .seat.empty");
  await page.locator(".seat.empty").first().click();
  await page.waitForSelector("#buy-in-dialog[open]");
  await checkAxe(page, "the buy-in dialog");
  await page.click("#buy-in-confirm");
  await page.waitForSelector(".seat.me");
  mark("seated");

  // House bots join the lone newcomer and a hand is dealt.
  await page.waitForFunction(() => [...document.querySelectorAll(".seat:not(.empty)")].length >= 2, null, { timeout: 20000 });
  await page.waitForFunction(() => document.querySelectorAll(".seat.me .hole .card[data-card]").length === 2, null, { timeout: 20000 });
  mark("first_hand_dealt");
  await checkAxe(page, "the table in a hand");
  await checkNoOverflow(page, "the table in a hand");
  const bots = await page.locator(".seat:not(.empty):not(.me)").allTextContents();
  check(bots.length >= 1 && bots.every((b) => b.includes("(bot)")), "house bots sit with the newcomer: " + bots.join(" | "));

  // Play the hand through the page: check or call, until the log shows who won.
  const logDone = () => page.evaluate(() => {
    const T = window.pokerd.tables.get(window.pokerd.current);
    return !!(T && T.log.some((l) => / wins? .* from the main pot| split /.test(l.text)));
  });
  for (let i = 0; i < 1200 && !(await logDone()); i++) {
    if (await page.locator("#actions:not(.hidden)").count()) {
      for (const id of ["#act-check", "#act-call"]) {
        if (await page.locator(`${id}:not(.hidden)`).count()) { await page.click(id); break; }
      }
    }
    await page.waitForTimeout(50);
  }
  check(await logDone(), "a hand was played to its end");
  mark("first_hand_played");
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/first-run-table.png` });

  // The lobby while the newcomer's table plays on: its events and the lobby's updates
  // keep coming, and the rows are updated in place. Busted in that hand (a bot's all-in
  // called), the newcomer buys back in first, so that the table plays on.
  await page.waitForTimeout(1000);
  if (await page.locator("#buy-in-dialog[open]").count()) await page.click("#buy-in-confirm");
  await page.evaluate(autoplay);
  await page.click("#to-lobby");
  await page.waitForSelector("#lobby-view:not(.hidden)");
  const omaha = await page.locator("#lobby tbody tr", { hasText: "PL Omaha" }).first().getAttribute("data-table");
  const open = `#lobby tr[data-table="${omaha}"] button`;
  const seen = await watchFocus(page, open, 5000);
  step("a focused lobby row while the table plays: " + JSON.stringify(seen));
  check(seen.messages >= 3, "the table played on while the row had the focus: " + JSON.stringify(seen));
  check(seen.frames > 0 && seen.kept === seen.frames, "the row's button kept the focus in every frame: " + JSON.stringify(seen));
  check(seen.moved <= 1 && seen.offscreen === 0, "and stayed in its place in the list, on the screen: " + JSON.stringify(seen));
  await page.keyboard.press("Enter");
  await page.waitForFunction((id) => window.pokerd.current === id && !document.querySelector("#table-view").classList.contains("hidden"), omaha);
  mark("lobby_row_kept_focus");
  // A click pressed before messages and released after them opens the table.
  await page.click("#to-lobby");
  await page.waitForSelector("#lobby-view:not(.hidden)");
  await page.hover(open);
  await page.evaluate(() => { window.__heard = 0; window.pokerd.ws.addEventListener("message", () => window.__heard++); });
  await page.mouse.down();
  await page.waitForFunction(() => window.__heard >= 2, null, { timeout: 20000 });
  await page.mouse.up();
  await page.waitForFunction((id) => window.pokerd.current === id && !document.querySelector("#table-view").classList.contains("hidden"), omaha);
  mark("lobby_click_across_messages");

  check(errors.length === 0, "no page or console error:\n" + errors.join("\n"));
  console.log("first run: ok");
  console.log(JSON.stringify(times));
} finally {
  await browser.close();
}
