// A home game's week (issue 37's "done when"), in Debian's Chromium against a play-money
// room whose clock runs fast (crates/poker-server/tests/server/browser.rs starts it with
// `room.clock_scale` and passes BASE and SCALE): twelve room hours pass each second, so
// the half minute this plays is more than a week of the room's time (it waits until a
// week has passed before the host settles up), and the seat of a friend who left is
// released after the room's seat keep (a day: 2 s).
//
// The host makes the game in the create dialog with its options: dealer's choice (NL
// Hold'em, then PL Omaha, an orbit each: H3), a bomb pot every fourth hand (H1, H2), run it
// twice, a short showdown pause. Three friends open the invite link in their own browsers
// (ben on a 390x844 phone) and ask for seats; the host lets each in as they ask. They play
// through the pages (check or fold; stand pat) until a bomb pot and both games were
// dealt. cat copies her link for another device from Settings, and her browser closes (a
// lost phone): her seat is released and her chips go back to her wallet. On a new device
// she opens the invite link, gives her name, is told it is taken, pastes her link, and is
// back at the table, dealt in again. The host ends the game: everyone sees the settle-up,
// whose nets and rake sum to zero. The last line is JSON: the timings a host sees and the
// ledger, which the Rust side checks against every wallet and the room's audit.
import { chromium } from "playwright-core";
import { checkAxe, checkNoOverflow, autoplay } from "./checks.mjs";

const BASE = process.env.BASE;
/** How many times faster than the wall clock the room's clock runs (`room.clock_scale`). */
const SCALE = Number(process.env.SCALE || 1);
const DAY_MS = 24 * 3600 * 1000;
/** The room's days since `from` (a wall-clock time of this script). */
const roomDays = (from) => ((Date.now() - from) * SCALE) / DAY_MS;
const SHOTS = process.env.SHOTS;
const step = (text) => console.log("step: " + text);
function check(cond, text) {
  if (!cond) throw new Error("check failed: " + text);
}

const WIDE = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
const errors = [];
const times = {};

async function open(name, viewport) {
  const phone = viewport === PHONE;
  const context = await browser.newContext({ viewport, isMobile: phone, hasTouch: phone });
  const page = await context.newPage();
  page.on("pageerror", (e) => errors.push(`${name}: page error: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error" && !/status of 4\d\d/.test(m.text())) errors.push(`${name}: console error: ${m.text()}`); });
  page.on("dialog", (d) => { errors.push(`${name}: a native ${d.type()} dialog: ${d.message()}`); d.dismiss(); });
  page.who = name;
  return page;
}

/** The hand-start lines of the table's log so far ("Hand #3 · PL Omaha · Bomb pot"). */
const titles = (page) => page.evaluate(() => {
  const T = window.pokerd.tables.get(window.pokerd.current);
  return T ? T.log.filter((l) => /^Hand #\d+( \u00b7|$)/.test(l.text)).map((l) => l.text) : [];
});

/** A friend opens the invite link and asks for a seat under `name`; resolves once the
 * page waits for the host (or is seated). */
async function join(page, link, name) {
  await page.goto(link);
  await page.waitForSelector("#join-dialog[open] #join-submit");
  if (await page.locator("#join-name:visible").count()) await page.fill("#join-name", name);
  await page.click("#join-submit");
}

try {
  step("the host registers and makes the game with its options");
  const host = await open("hostess", WIDE);
  await host.goto(BASE + "/");
  await host.waitForSelector("#login-view:not(.hidden)");
  await host.fill("#login-name", "hostess");
  await host.fill("#login-password", "a-host-password");
  await host.click("#register-submit");
  await host.waitForSelector("#lobby-view:not(.hidden) #private-open");
  await host.click("#private-open");
  await host.waitForSelector("#private-dialog[open]");
  await host.check("#private-games input[value=nlhe]");
  await host.check("#private-stakes input[value='2']");
  await host.check("#private-seats input[value='6']");
  await host.click("#private-dialog summary");
  await host.fill("#private-name", "Friday game");
  await host.fill("#private-clock", "6");
  await host.check("#private-rotation input[value=plo]");
  await host.fill("#private-bomb-every", "4");
  await host.fill("#private-bomb-size", "2");
  await host.check("#private-rit");
  await host.fill("#private-showdown", "1");
  await checkAxe(host, "the create dialog with its options open");
  const created = Date.now();
  const mark = (what, from = created) => { times[what] = Date.now() - from; step(`${what}: ${times[what]} ms`); };
  await host.click("#private-create");
  await host.waitForSelector("#table-view:not(.hidden) #host-panel:not(.hidden)");
  await host.waitForSelector(".seat.me");
  const link = await host.inputValue("#invite-link");
  const tableId = link.split("/").slice(-2)[0];
  // The host lets in whoever asks, as a host watching the table does.
  await host.evaluate(() => setInterval(() => document.querySelectorAll("#host-requests li button.primary").forEach((b) => b.click()), 200));

  step("two friends join (one on a phone); the host starts the game");
  const ann = await open("ann", WIDE);
  const ben = await open("ben", PHONE);
  await Promise.all([join(ann, link, "ann"), join(ben, link, "ben")]);
  for (const p of [ann, ben]) await p.waitForSelector(".seat.me", { timeout: 20000 });
  await host.click("#host-pause");
  for (const p of [host, ann, ben]) {
    await p.waitForFunction(() => document.querySelectorAll(".seat.me .hole .card[data-card]").length >= 2, null, { timeout: 20000 });
  }
  mark("create_to_first_hand_with_two_friends");
  for (const p of [host, ann, ben]) await p.evaluate(autoplay);

  step("a third friend arrives late, on a desktop");
  const cat = await open("cat", { width: 1920, height: 1080 });
  await join(cat, link, "cat");
  await cat.waitForSelector(".seat.me", { timeout: 20000 });
  await cat.evaluate(autoplay);
  await checkNoOverflow(ben, "the phone at the table");

  step("hands until a bomb pot and both games were dealt");
  const played = async (want, timeout) => {
    const end = Date.now() + timeout;
    for (;;) {
      const t = await titles(host);
      if (want(t)) return t;
      check(Date.now() < end, "hands dealt: " + JSON.stringify(t));
      await host.waitForTimeout(500);
    }
  };
  const first = await played((t) => t.some((l) => /Bomb pot/.test(l)) && t.some((l) => /Omaha/.test(l)) && t.some((l) => /Hold'em/.test(l)), 240000);
  step("dealt: " + first.join(" | "));
  // The bomb pot is dealt without blinds or a pre-flop round, to everyone.
  const bomb = await host.evaluate(() => {
    const T = window.pokerd.tables.get(window.pokerd.current);
    const i = T.log.findIndex((l) => /Bomb pot/.test(l.text));
    return T.log.slice(i, i + 8).map((l) => l.text);
  });
  check(!bomb.some((l) => /posts the (small|big) blind/.test(l)), "no blinds in a bomb pot: " + bomb.join(" | "));
  if (SHOTS) await ben.screenshot({ path: `${SHOTS}/home-week-phone.png` });

  step("cat copies her link for another device, and loses her phone");
  // The settings give way to her turns (they close when she is asked to act): asked
  // again if a turn closed them first.
  for (let tries = 0; ; tries++) {
    await cat.click("#settings-open");
    const got = await cat.click("#set-device-copy", { timeout: 2000 })
      .then(() => cat.waitForFunction(() => document.querySelector("#set-device-link").value !== "", null, { timeout: 2000 }))
      .then(() => true, () => false);
    if (got) break;
    check(tries < 10, "the settings stayed open long enough to copy her link");
    if (await cat.locator("#settings-dialog[open]").count()) await cat.keyboard.press("Escape");
  }
  const catLink = await cat.inputValue("#set-device-link");
  check(/\/#me\/cat\/.+/.test(catLink), "her link: " + catLink);
  await cat.keyboard.press("Escape");
  const catChips = await host.evaluate(() => {
    const T = window.pokerd.tables.get(window.pokerd.current);
    return T.table.seats.find((s) => s.name === "cat").stack;
  });
  // She sits out (her hand plays out first), then her phone is gone.
  await cat.click("#sit-toggle");
  await cat.waitForFunction(() => {
    const T = window.pokerd.tables.get(window.pokerd.current);
    const me = T.table.seats.find((s) => s.name === "cat");
    return me && me.sitting_out && !(T.hand && !T.hand.ended && T.hand.players.some((p) => p.seat === me.seat && !p.folded));
  }, null, { timeout: 60000 });
  await cat.context().close();
  // Away longer than the room keeps a seat (a room day: 2 s at this speed), she is
  // cashed out.
  await host.waitForFunction(() => !window.pokerd.tables.get(window.pokerd.current).table.seats.some((s) => s.name === "cat"), null, { timeout: 150000 });
  step(`cat's seat released (she had ${catChips} chips)`);
  const before = (await titles(host)).length;
  const left = Date.now();
  // She comes back two days later (of the room's clock).
  while (roomDays(left) < 2) await host.waitForTimeout(200);

  step("later in the week, cat comes back on a new device under her name");
  const back = await open("cat (new device)", PHONE);
  const returned = Date.now();
  await back.goto(link);
  await back.waitForSelector("#join-dialog[open] #join-name");
  await back.fill("#join-name", "cat");
  await back.click("#join-submit");
  await back.waitForSelector("#join-code-row:not(.hidden)");
  await checkAxe(back, "the join dialog asking a taken name for its link");
  await back.fill("#join-code", catLink);
  await back.click("#join-submit");
  await back.waitForSelector(".seat.me", { timeout: 30000 });
  mark("returning_friend_back_at_the_table", returned);
  const name = await back.textContent(".seat.me .name");
  check(name.trim() === "cat", "the same name at the table: " + name);
  await back.evaluate(autoplay);
  await back.waitForFunction(() => document.querySelectorAll(".seat.me .hole .card[data-card]").length >= 2, null, { timeout: 60000 });
  mark("returning_friend_dealt_in", returned);
  await played((t) => t.length >= before + 2, 120000);

  const hands = (await titles(host)).length;
  // A week of the room's clock since the game was made.
  while (roomDays(created) < 7) await host.waitForTimeout(200);
  step(`the host ends the game ${roomDays(created).toFixed(1)} room days after making it: everyone is shown the settle-up`);
  await host.click("#host-tools summary");
  await host.click("#host-end");
  await host.waitForSelector("#private-confirm[open]");
  await host.click("#private-confirm-yes");
  const pages = [host, ann, ben, back];
  for (const p of pages) await p.waitForSelector("#ledger-dialog[open]", { timeout: 90000 });
  const ledgers = [];
  for (const p of pages) {
    ledgers.push(await p.evaluate(() => ({
      title: document.querySelector("#ledger-title").textContent,
      check: document.querySelector("#ledger-check").textContent,
      rows: [...document.querySelectorAll("#ledger-table tbody tr")].map((tr) => [...tr.children].map((c) => c.textContent)),
      ledger: window.pokerd.state.private.ledger,
    })));
  }
  for (const [k, l] of ledgers.entries()) {
    check(/^Settle-up/.test(l.title) && /sum to zero/.test(l.check), `${pages[k].who} sees the settle-up: ${l.title} ${l.check}`);
    check(JSON.stringify(l.rows) === JSON.stringify(ledgers[0].rows), `${pages[k].who} sees the host's ledger`);
  }
  const L = ledgers[0].ledger;
  check(L.final && L.lines.length === 4, "four players settle: " + JSON.stringify(L));
  check(L.lines.reduce((a, l) => a + l.net, 0) + L.rake === 0, "nets and rake sum to zero: " + JSON.stringify(L));
  check(L.lines.every((l) => l.stack === 0), "everyone cashed out: " + JSON.stringify(L));
  const catLine = L.lines.find((l) => l.name === "cat");
  check(catLine.bought_in >= 2 * 40, "cat bought in twice (once per device): " + JSON.stringify(catLine));
  if (SHOTS) await host.screenshot({ path: `${SHOTS}/home-week-settle-up.png` });
  await checkAxe(host, "the settle-up");

  check(errors.length === 0, "no page errors: " + errors.join(" | "));
  console.log(JSON.stringify({ times, table_id: tableId, hands, room_days: +roomDays(created).toFixed(1), ledger: L }));
  console.log("e2e home week: ok");
} finally {
  await browser.close();
}
