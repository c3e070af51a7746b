// The browser client end to end, in Debian's Chromium through playwright-core, against
// a real pokerd (started by crates/poker-server/tests/server/browser.rs, which passes BASE,
// TABLE_ID and ADMIN_TOKEN). Two players in two browser contexts log in, sit, buy in and
// play a hand to showdown through the page; a third context watches and never sees a
// hole card before the showdown; reloading a player's page mid-hand restores the hand;
// afterwards every page shows the stacks the server has. A silent network drop is seen
// within seconds and no action is sent unseen. axe-core finds no violation on the login
// page, the lobby, the table and the dialogs; no page scrolls sideways at 390x844,
// 1366x768 or 1920x1080; stud/draw-sized cards grow with the screen.
import { chromium } from "playwright-core";
import { checkAxe, checkNoOverflow } from "./checks.mjs";

const BASE = process.env.BASE;
const TABLE_ID = process.env.TABLE_ID;
const ADMIN_TOKEN = process.env.ADMIN_TOKEN;
const step = (text) => console.log("step: " + text);
function check(cond, text) {
  if (!cond) throw new Error("check failed: " + text);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
try {
  // Each page's WebSockets go through the test, which can make them go silent (a network
  // that drops without closing anything): `silence(name)` stops every frame both ways on
  // the sockets open now and on any the page opens until `heal(name)`, so the page stays
  // cut off while the test looks at it (reconnecting takes a page well under a second,
  // which a loaded machine's polling could miss); after `heal` a new connection works.
  const sockets = new Map();
  const silenced = new Set();
  function silence(name) {
    silenced.add(name);
    for (const s of sockets.get(name) || []) s.dead = true;
  }
  function heal(name) {
    silenced.delete(name);
  }
  const SIZES = [[390, 844], [1366, 768], [1920, 1080]];
  // No sideways scrolling at a phone's, a laptop's and a desktop's size.
  async function noOverflowAtEverySize(page, label) {
    const before = page.viewportSize();
    for (const [width, height] of SIZES) {
      await page.setViewportSize({ width, height });
      await page.waitForTimeout(100);
      await checkNoOverflow(page, `${label} at ${width}x${height}`);
    }
    await page.setViewportSize(before);
  }

  async function player(name, viewport, { axe = false } = {}) {
    const context = await browser.newContext({ viewport });
    sockets.set(name, []);
    await context.routeWebSocket(/\/ws$/, (ws) => {
      const link = { dead: silenced.has(name) };
      sockets.get(name).push(link);
      const server = ws.connectToServer();
      ws.onMessage((m) => { if (!link.dead) server.send(m); });
      server.onMessage((m) => { if (!link.dead) ws.send(m); });
    });
    const page = await context.newPage();
    page.on("pageerror", (e) => { throw new Error(name + ": page error: " + e.message); });
    await page.goto(BASE + "/");
    if (axe) {
      await checkAxe(page, "the login page");
      await noOverflowAtEverySize(page, "the login page");
    }
    await page.fill("#login-name", name);
    await page.fill("#login-password", "password1");
    await page.click("#login-submit");
    await page.waitForSelector(`#lobby tr[data-table="${TABLE_ID}"]`);
    if (axe) {
      // Nobody plays there yet: no hands per hour or average pot are claimed.
      const cells = await page.locator(`#lobby tr[data-table="${TABLE_ID}"] td`).allTextContents();
      check(cells[4] === "\u2014" && cells[5] === "\u2014", "an empty table shows no pot or hands per hour: " + cells.join(" | "));
      await checkAxe(page, "the lobby");
      await noOverflowAtEverySize(page, "the lobby");
    }
    await page.click(`#lobby tr[data-table="${TABLE_ID}"] button`);
    await page.waitForSelector("#table-view:not(.hidden) .seat");
    return page;
  }

  step("log in: ann on a desktop, ben on a phone, sue watching");
  const ann = await player("ann", { width: 1280, height: 800 }, { axe: true });
  await checkAxe(ann, "the table, watching");
  const ben = await player("ben", { width: 390, height: 844 });
  const sue = await player("sue", { width: 1024, height: 768 });

  async function sit(page, seat, amount) {
    await page.click(`.seat.empty[data-seat="${seat}"]`);
    await page.waitForSelector("#buy-in-dialog[open]");
    if (seat === 0) await checkAxe(page, "the buy-in dialog");
    await page.fill("#buy-in-amount", String(amount));
    await page.click("#buy-in-confirm");
    await page.waitForSelector(`.seat.me[data-seat="${seat}"]`);
  }
  step("both sit down and buy in");
  await sit(ann, 0, 100);
  await sit(ben, 1, 100);

  // Hole cards are dealt: each player sees two of their own, face up.
  const faceUp = (page, seat) => page.locator(`.seat[data-seat="${seat}"] .hole .card[data-card]`);
  const faceDown = (page, seat) => page.locator(`.seat[data-seat="${seat}"] .hole .card.back`);
  await ann.waitForFunction(() => document.querySelectorAll('.seat[data-seat="0"] .hole .card[data-card]').length === 2);
  await ben.waitForFunction(() => document.querySelectorAll('.seat[data-seat="1"] .hole .card[data-card]').length === 2);
  check(await faceDown(ann, 1).count() === 2, "ann sees ben's cards face down");
  check(await faceUp(ann, 1).count() === 0, "ann never sees ben's cards");
  check(await faceUp(ben, 0).count() === 0, "ben never sees ann's cards");
  const annCards = await faceUp(ann, 0).evaluateAll((cs) => cs.map((c) => c.dataset.card).join(""));

  step("the spectator sees no hole cards");
  await sue.waitForFunction(() => document.querySelectorAll(".seat .hole .card.back").length === 4);
  check(await sue.locator(".seat .hole .card[data-card]").count() === 0, "sue sees no hole card");

  step("the table at every size: no sideways scrolling, no axe violation");
  await noOverflowAtEverySize(ann, "the table");
  await noOverflowAtEverySize(ben, "the table (ben's phone)");
  await checkAxe(ann, "the table, seated in a hand");
  await checkAxe(ben, "the table on a phone");

  step("ann reloads her page mid-hand and gets the hand back, told once in the log");
  await ann.reload();
  await ann.waitForSelector("#table-view:not(.hidden) .seat.me");
  await ann.waitForFunction(() => document.querySelectorAll('.seat[data-seat="0"] .hole .card[data-card]').length === 2);
  const again = await faceUp(ann, 0).evaluateAll((cs) => cs.map((c) => c.dataset.card).join(""));
  check(again === annCards, `the same cards after reload (${annCards} vs ${again})`);
  // The seated table's snapshot and the watch's both came: the hand is in the log once.
  await ann.waitForTimeout(300);
  const starts = await ann.locator("#log .hand-start").count();
  check(starts === 1, `the hand starts once in the log after a reload (${starts})`);

  step("after a visit to the chat, the hand log still follows the hand");
  // A short log box, so that the hand's lines overflow it and following them shows.
  await ann.addStyleTag({ content: "#log { max-height: 5em; }" });
  await ann.click("#tab-chat");
  await ann.click("#tab-log");
  check(await ann.evaluate(() => { const b = document.querySelector("#log"); return b.scrollHeight > b.clientHeight; }), "the log overflows its box");
  const logAtEnd = () => ann.evaluate(() => { const b = document.querySelector("#log"); return b.scrollTop + b.clientHeight >= b.scrollHeight - 8; });

  step("they check and call down to the showdown: ann with the keyboard, ben with 'call any' pre-selected");
  const over = (page) => page.locator("#message", { hasText: "is over" });
  let spectatorChecked = false;
  let preselected = 0;
  let presetChecked = false;
  let foldAsked = false;
  let dropped = false;
  let droppedSeenMs = 0;
  let followed = 0;
  for (let i = 0; i < 300 && (await over(ann).count()) === 0; i++) {
    if (await ann.locator("#actions:not(.hidden)").count()) {
      // While ann thinks, ben ticks 'call any' (the box shows when it is not his turn).
      await ben.waitForSelector("#preselect:not(.hidden)", { timeout: 3000 }).catch(() => {});
      const ticked = await ben.evaluate(() => {
        const box = document.querySelector('#preselect:not(.hidden) input[data-pre="call_any"]');
        if (!box || box.checked) return false;
        box.click();
        return true;
      });
      if (ticked) preselected++;
      if (!presetChecked && (await ann.locator("#sizing:not(.hidden)").count())) {
        // The all-in preset fills in the largest legal amount, and the label says so.
        await ann.click('[data-preset="max"]');
        const [value, max] = await ann.evaluate(() => [document.querySelector("#amount").value, document.querySelector("#amount-slider").max]);
        check(value === max, `all in sets the amount to the maximum (${value} vs ${max})`);
        check((await ann.locator("#act-raise").textContent()).includes("all in"), "the raise button says all in");
        presetChecked = true;
      }
      if (!foldAsked && (await ann.locator("#act-check:not(.hidden)").count())) {
        // F when checking is free asks first, in the page's own dialog (a native one
        // would stop every table); saying no keeps her in the hand.
        await ann.keyboard.press("f");
        await ann.waitForSelector("#ask-dialog[open]");
        const asked = await ann.locator("#ask-text").textContent();
        check(asked.includes("check for free"), `folding for free is confirmed first (${asked})`);
        await checkAxe(ann, "the page's question dialog");
        await ann.click("#ask-no");
        check(await ann.locator("#actions:not(.hidden)").count() === 1, "declining keeps the decision open");
        foldAsked = true;
      }
      await ann.keyboard.press("c");
    }
    if (await ben.locator("#actions:not(.hidden)").count()) {
      if (!dropped) {
        // ben's network goes silent on his turn: within seconds the page says so, his
        // buttons are off and a key press sends nothing; the connection comes back and
        // his decision with it.
        dropped = true;
        const at = Date.now();
        silence("ben");
        // The page gives up after 5 s of silence (pinging every 2 s); the wait is longer
        // for a loaded machine, and the time it took is printed.
        await ben.waitForSelector("#banner:not(.hidden)", { timeout: 25000 });
        droppedSeenMs = Date.now() - at;
        check(await ben.locator("#actions button:not(.hidden):not([disabled])").count() === 0, "no action button works while disconnected");
        await ben.keyboard.press("c");
        await ben.waitForSelector("#toast:not(.hidden)");
        check((await ben.locator("#toast").textContent()).includes("not sent"), "a key press while disconnected is refused aloud");
        // The network comes back: the page's next connection gets through.
        heal("ben");
        await ben.waitForSelector("#banner.hidden", { state: "attached", timeout: 30000 });
        await ben.waitForSelector("#actions:not(.hidden) button:not(.hidden):not([disabled])", { timeout: 10000 });
      }
      if (await ben.locator("#act-check:not(.hidden)").count()) await ben.click("#act-check");
      else if (await ben.locator("#act-call:not(.hidden)").count()) await ben.click("#act-call");
    }
    if (!spectatorChecked && (await sue.locator("#board .card").count()) >= 3) {
      check(await sue.locator(".seat .hole .card[data-card]").count() === 0, "sue sees no hole card on the flop");
      spectatorChecked = true;
    }
    if (await logAtEnd()) followed++;
    await ann.waitForTimeout(50);
  }
  check(dropped, "ben's connection was dropped on his turn");
  console.log(`a silent drop was shown after ${droppedSeenMs} ms`);
  check(followed > 0 && (await logAtEnd()), "the hand log follows the hand to its end");
  check(preselected > 0, "ben pre-selected an action");
  check(presetChecked, "ann tried a bet-sizing preset");
  check(foldAsked, "ann was asked before folding for free");
  await over(ann).waitFor();
  await over(ben).waitFor();
  await over(sue).waitFor();
  check((await ann.locator("#board .card").count()) === 5, "five board cards");
  // At the showdown the first hand is shown to everyone; a beaten one is mucked unseen.
  await sue.waitForFunction(() => document.querySelectorAll(".seat .hole .card[data-card]").length >= 2);
  check(await ann.locator(".seat.winner").count() >= 1, "the winner is highlighted");

  step("every page shows the stacks the server has");
  const r = await fetch(`${BASE}/admin/tables/${TABLE_ID}`, { headers: { authorization: "Bearer " + ADMIN_TOKEN } });
  const server = (await r.json()).table.seats;
  const truth = Object.fromEntries(server.map((s) => [s.seat, s.stack]));
  check(truth[0] + truth[1] === 200, "the two stacks hold the 200 bought in: " + JSON.stringify(truth));
  for (const [name, page] of [["ann", ann], ["ben", ben], ["sue", sue]]) {
    for (const seat of [0, 1]) {
      await page.waitForFunction(
        ([s, v]) => document.querySelector(`.seat[data-seat="${s}"] .stack`)?.dataset.stack === String(v),
        [seat, truth[seat]],
      );
    }
    console.log(`${name} shows ${truth[0]} and ${truth[1]}`);
  }

  step("a dropped connection shows a banner, then reconnects and resyncs");
  await ben.evaluate(() => window.pokerd.ws.close());
  await ben.waitForSelector("#banner:not(.hidden)");
  await ben.waitForSelector("#banner.hidden", { state: "attached" });
  await ben.waitForSelector(`.seat.me[data-seat="1"]`);
  await ben.waitForFunction(
    ([v]) => document.querySelector('.seat[data-seat="1"] .stack')?.dataset.stack === String(v),
    [truth[1]],
  );

  step("ann's hand history has the hand");
  await ann.click("#history-open");
  await ann.waitForSelector("#history-list li");
  await checkAxe(ann, "the history dialog");
  check(await ann.locator("#history-older").isDisabled(), "one hand: no older page");
  const [download] = await Promise.all([ann.waitForEvent("download"), ann.click("#history-download")]);
  const saved = await download.path();
  const { readFileSync } = await import("node:fs");
  check(readFileSync(saved, "utf8").includes("PokerStars Hand #"), "the download holds the listed hands' histories");
  await ann.click("#history-list li");
  await ann.waitForFunction(() => document.querySelector("#history-text").textContent.includes("PokerStars Hand #"));
  const text = await ann.locator("#history-text").textContent();
  check(text.includes("*** SHOW DOWN ***"), "the history has the showdown");
  step("ann replays the hand step by step to its end");
  await ann.click("#history-list li .replay-open");
  await ann.waitForSelector("#replay:not(.hidden) #replay-seats li");
  check((await ann.locator("#replay-line").textContent()).includes("The deal"), "the replayer starts at the deal");
  check(await ann.locator("#replay-back").isDisabled(), "nothing before the deal");
  await ann.click("#replay-next");
  const first = await ann.locator("#replay-line").textContent();
  check(/posts?/.test(first), "the first step is a post: " + first);
  await ann.click("#replay-end");
  const replay = await ann.evaluate(async () => {
    const id = (await (await fetch("/api/me/hands?limit=1", { headers: { authorization: "Bearer " + window.pokerd.token } })).json())[0].hand_id;
    return (await fetch("/api/me/hands/" + id + "?format=replay", { headers: { authorization: "Bearer " + window.pokerd.token } })).json();
  });
  const rows = await ann.locator("#replay-seats li").allTextContents();
  check(rows.length === replay.names.length, "a row per player");
  rows.forEach((row, i) => check(row.includes(String(replay.finishing_stacks[i])), `the replay ends at the recorded stacks: ${row} vs ${replay.finishing_stacks[i]}`));
  check(await ann.locator("#replay-seats .card:not(.back)").count() >= 2, "ann's own cards show");
  check(await ann.locator("#replay-next").isDisabled(), "nothing after the end");
  if (process.env.SCREENSHOT) await ann.screenshot({ path: process.env.SCREENSHOT.replace(/\.png$/, "-replay.png") });

  step("ann's seed is in the first hand dealt to her; she verifies the hand's deck in the page, her own seed used; a tampered record fails");
  // Committed right after her sit and revealed once the list closed with it: the table's
  // first hand waited for it (docs/fairness.md).
  const annSeat = replay.seats[replay.me];
  check(replay.fairness.version === 2 && replay.fairness.seeds.some((x) => x.seat === annSeat),
    `the first hand's record lists ann's seed (seat ${annSeat}): ` + JSON.stringify(replay.fairness.seeds));
  check(replay.fairness.seed_list.some((x) => x.seat === annSeat && !x.house), "and her commitment in the closed list");
  // Ben's sit started the hand: his page committed right after sending it, while the sit
  // was under way, so the deal waited for his seed too.
  const benFirst = await ben.evaluate(async () => {
    const auth = { headers: { authorization: "Bearer " + window.pokerd.token } };
    const id = (await (await fetch("/api/me/hands?limit=1", auth)).json())[0].hand_id;
    return (await fetch("/api/me/hands/" + id + "?format=replay", auth)).json();
  });
  check(benFirst.hand_id === replay.hand_id && benFirst.fairness.seeds.some((x) => x.seat === benFirst.seats[benFirst.me]),
    "the first hand's record lists ben's seed, whose sit started it: " + JSON.stringify(benFirst.fairness.seeds));
  const kept = await ann.evaluate((id) => JSON.parse(localStorage.getItem("pokerd.seeds") || "[]").find((x) => x[0] === id), replay.fairness.hand_id);
  check(kept && replay.fairness.seeds.some((x) => x.seat === annSeat && x.seed === kept[1]) && /^[0-9a-f]{64}$/.test(kept[2] || ""),
    "the page kept the seed used and the closed list's digest: " + JSON.stringify(kept));
  await ann.click("#history-list li .verify-open");
  await ann.waitForFunction(() => ["yes", "no"].includes(document.querySelector("#history-text").dataset.verified));
  const verified = await ann.locator("#history-text").textContent();
  check(verified.includes("Verified:") && verified.includes("your seed was used"), "the hand verifies with ann's seed: " + verified);
  // The server (played here by the page's network) changes one card of the record.
  await ann.route((url) => url.href.includes("format=replay"), async (route) => {
    const response = await route.fetch();
    const record = await response.json();
    const c = record.fairness.cards[0];
    c.card = c.card === "2c" ? "3c" : "2c";
    await route.fulfill({ response, json: record });
  });
  await ann.evaluate(() => { delete document.querySelector("#history-text").dataset.verified; });
  await ann.click("#history-list li .verify-open");
  await ann.waitForFunction(() => document.querySelector("#history-text").dataset.verified);
  const refused = await ann.locator("#history-text").textContent();
  check(refused.includes("NOT VERIFIED"), "a changed card is caught: " + refused);
  await ann.unrouteAll();
  await ann.click("#history-dialog button[value=close]");

  step("between hands: ann tops up, ben sits out and then leaves with his chips");
  await ann.click("#top-up-open");
  await ann.waitForSelector("#buy-in-dialog[open]");
  await ann.fill("#buy-in-amount", "50");
  await ann.click("#buy-in-confirm");
  await ann.waitForFunction(
    ([v]) => document.querySelector('.seat[data-seat="0"] .stack')?.dataset.stack === String(v),
    [truth[0] + 50],
  );
  await ben.click("#sit-toggle");
  await ann.waitForSelector('.seat.out[data-seat="1"]');
  // Each page learns of the change from its own connection: wait for ben's too.
  await ben
    .waitForFunction(() => document.querySelector("#sit-toggle")?.textContent === "Sit in", null, { timeout: 10000 })
    .catch(() => {});
  check((await ben.locator("#sit-toggle").textContent()) === "Sit in", "ben can sit back in");
  await ben.click("#leave");
  await ben.waitForSelector("#lobby-view:not(.hidden)");
  await checkNoOverflow(ben, "the lobby on a phone");
  await checkAxe(ben, "the lobby on a phone");
  await ann.waitForSelector('.seat.empty[data-seat="1"]');
  const players = await (await fetch(`${BASE}/admin/players`, { headers: { authorization: "Bearer " + ADMIN_TOKEN } })).json();
  const benWallet = players.find((p) => p.name === "ben").balance;
  check(benWallet === 500 - 100 + truth[1], `ben's stack went back to his wallet (${benWallet})`);
  await ann.screenshot({ path: process.env.SCREENSHOT || "/tmp/pokerd-e2e.png", fullPage: true });
  console.log("e2e: ok");
} finally {
  await browser.close();
}
