// A private game in 30 seconds, in Debian's Chromium against a play-money room
// (crates/poker-server/tests/server/browser.rs starts it and passes BASE): the host registers,
// makes a private game in three choices (game, stakes, seats) and gets its invite link;
// two friends open the link in their own browser contexts (one on a 390x844 phone),
// choose a name (their accounts are made on the spot), and ask for a seat; the host lets
// both in, they sit down by themselves, the host starts the game, and the first hand is
// dealt and played to its end through the pages. axe-core and the overflow check run on
// every page added. The last line is JSON with the times in milliseconds; `create_to_hand`
// is from clicking "Create" to the first hand dealt with the two friends.
import { chromium } from "playwright-core";
import { checkAxe, checkNoOverflow } from "./checks.mjs";

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

async function open(viewport, name) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.on("pageerror", (e) => errors.push(`${name}: page error: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error" && !/status of 4\d\d/.test(m.text())) errors.push(`${name}: console error: ${m.text()}`); });
  // No native dialog may appear: the page uses its own.
  page.on("dialog", (d) => { errors.push(`${name}: a native ${d.type()} dialog: ${d.message()}`); d.dismiss(); });
  return page;
}

async function checks(page, label, exclude = []) {
  await checkAxe(page, label, exclude);
  await checkNoOverflow(page, label);
}

try {
  const wide = { width: 1366, height: 768 };
  const host = await open(wide, "host");
  await host.goto(BASE + "/");
  await host.waitForSelector("#login-view:not(.hidden)");
  await host.fill("#login-name", "hostess");
  await host.fill("#login-password", "a-host-password");
  await host.click("#register-submit");
  await host.waitForSelector("#lobby-view:not(.hidden) #private-open");
  await checks(host, "the lobby with its private game button");

  // Three choices: game, stakes, seats (the options stay folded).
  await host.click("#private-open");
  await host.waitForSelector("#private-dialog[open]");
  await checks(host, "the private game dialog");
  await host.check("#private-games input[value=nlhe]");
  await host.check("#private-stakes input[value='2']");
  await host.check("#private-seats input[value='6']");
  const created = Date.now();
  const mark = (what) => { times[what] = Date.now() - created; step(`${what} at ${times[what]} ms after "Create"`); };
  await host.click("#private-create");
  await host.waitForSelector("#table-view:not(.hidden) #host-panel:not(.hidden)");
  await host.waitForSelector(".seat.me");
  const link = await host.inputValue("#invite-link");
  check(/\/#join\/[0-9a-f-]{36}\/[0-9a-f]{32}$/.test(link), "an invite link: " + link);
  mark("host_seated_with_link");
  const tableId = link.split("/").slice(-2)[0];
  const lobby = await host.evaluate(() => [...window.pokerd.lobby.keys()]);
  check(!lobby.includes(tableId), "the private table is not in the lobby");

  // Two friends open the link, each in their own browser; one on a phone.
  const friends = [["ann", wide], ["ben", { width: 390, height: 844 }]];
  const pages = [];
  for (const [name, viewport] of friends) {
    const page = await open(viewport, name);
    await page.goto(link);
    await page.waitForSelector("#join-dialog[open] #join-name");
    const info = await page.textContent("#join-dialog");
    check(info.includes("hostess") && info.includes("NL Hold'em"), `${name} sees whose game it is: ${info}`);
    if (name === "ann") await checks(page, "the invite link's join dialog");
    else await checks(page, "the join dialog on a 390 px phone");
    await page.fill("#join-name", name);
    await page.click("#join-submit");
    await page.waitForSelector("#table-view:not(.hidden) #private-bar:not(.hidden)");
    await page.waitForFunction(() => /waiting for the host/.test(document.querySelector("#private-status").textContent));
    pages.push(page);
  }
  mark("friends_asking");
  await checks(pages[0], "a friend waiting for the host");
  const saved = await pages[0].evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("pokerd.guest.")));
  check(saved.length === 1, "the guest's password is kept in the browser: " + saved);

  // The host lets both in at the same moment; they sit down by themselves. Both pages
  // see the same first free seat: the one refused it (held for the other's buy-in) takes
  // the next.
  await host.waitForFunction(() => document.querySelectorAll("#host-requests li button.primary").length === 2);
  await checks(host, "the host's table with two seat requests");
  await host.evaluate(() => document.querySelectorAll("#host-requests li button.primary").forEach((b) => b.click()));
  await host.waitForFunction(() => document.querySelectorAll("#host-requests li button.primary").length === 0);
  for (const page of pages) await page.waitForSelector(".seat.me");
  await host.waitForFunction(() => document.querySelectorAll(".seat:not(.empty)").length === 3);
  mark("friends_seated");

  // The host starts the game: the first hand is dealt to all three.
  await host.click("#host-pause");
  for (const page of [host, ...pages]) {
    await page.waitForFunction(() => document.querySelectorAll(".seat.me .hole .card[data-card]").length === 2, null, { timeout: 20000 });
  }
  const dealt = await host.evaluate(() => window.pokerd.tables.get(window.pokerd.current).hand.players.length);
  check(dealt === 3, "the first hand is dealt to the host and both friends: " + dealt);
  mark("create_to_hand");
  await checks(host, "the host's table during the first hand");
  if (SHOTS) await host.screenshot({ path: `${SHOTS}/private-host.png` });

  // Played to its end through the pages: check or call.
  const ended = (page) => page.evaluate(() => {
    const T = window.pokerd.tables.get(window.pokerd.current);
    return !!(T && T.log.some((l) => / wins? .* from the main pot| split /.test(l.text)));
  });
  for (let i = 0; i < 1200 && !(await ended(host)); i++) {
    for (const page of [host, ...pages]) {
      if (await page.locator("#actions:not(.hidden)").count()) {
        for (const id of ["#act-check", "#act-call"]) {
          if (await page.locator(`${id}:not(.hidden)`).count()) { await page.click(id); break; }
        }
      }
    }
    await host.waitForTimeout(50);
  }
  check(await ended(host), "the first hand was played to its end");
  mark("first_hand_played");

  // The host ends the game through the page's own dialog; the link says so.
  await host.click("#host-tools summary");
  await host.click("#host-end");
  await host.waitForSelector("#private-confirm[open]");
  await checks(host, "the host's confirmation dialog");
  await host.click("#private-confirm-yes");
  await pages[0].waitForFunction(() => !window.pokerd.current, null, { timeout: 30000 }).catch(() => {});
  const r = await pages[0].evaluate(async (u) => (await fetch(u)).json(), `${BASE}/api/private/${tableId}?invite=${link.split("/").pop()}`);
  for (let i = 0; i < 100 && r.status !== "closed"; i++) {
    await host.waitForTimeout(100);
    Object.assign(r, await pages[0].evaluate(async (u) => (await fetch(u)).json(), `${BASE}/api/private/${tableId}?invite=${link.split("/").pop()}`));
  }
  check(r.status === "closed", "the ended game's link says so: " + JSON.stringify(r));
  check(errors.length === 0, "no page errors: " + errors.join(" | "));
  console.log(JSON.stringify(times));
  console.log("e2e private: ok");
} finally {
  await browser.close();
}
