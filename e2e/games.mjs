// Every game family in the browser, three players and a spectator, at 1366x768 and on a
// phone (390x844), run by crates/poker-server/tests/server/browser.rs (which passes BASE,
// TABLES as JSON [{id, family, name}], SHOTS, the folder for the screenshots).
//
// The three players sit at every table (so each page tiles its tables as tabs and
// alerts a turn elsewhere by the table's name); they play each table's hands through
// the page: check or call, the bring-in in stud, a discard chosen by clicking a card in
// draw games. At a decision with three players dealt in, every page is checked by
// script (no control off-screen or overlapped, nothing wider than the screen, the
// action bar on screen) and photographed. Fixed limit tables must show one amount and
// no slider, and never call a 2-chip bet "all in". The chat and the hand log are read
// on every page. Any page error or console error fails the test. axe-core finds no
// violation at any table, on a phone and a desktop; stud and draw cards grow from
// 1366x768 to 1920x1080, and no page scrolls sideways at either size.
import { chromium } from "playwright-core";
import { checkAxe, checkNoOverflow } from "./checks.mjs";

const BASE = process.env.BASE;
const TABLES = JSON.parse(process.env.TABLES);
const SHOTS = process.env.SHOTS;
const step = (text) => console.log("step: " + text);
function check(cond, text) {
  if (!cond) throw new Error("check failed: " + text);
}

const DESKTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
const errors = [];
try {
  async function login(name, viewport) {
    const context = await browser.newContext({ viewport, isMobile: viewport === PHONE, hasTouch: viewport === PHONE });
    const page = await context.newPage();
    page.on("pageerror", (e) => errors.push(name + ": page error: " + e.message));
    page.on("console", (m) => { if (m.type() === "error") errors.push(name + ": console error: " + m.text()); });
    // The page never opens a native dialog (one would stop every table's clock).
    page.on("dialog", (d) => { errors.push(name + ": a native dialog: " + d.message()); d.dismiss(); });
    await page.goto(BASE + "/");
    await page.fill("#login-name", name);
    await page.fill("#login-password", "password1");
    await page.click("#login-submit");
    await page.waitForSelector("#lobby-view:not(.hidden)");
    page.who = name;
    page.size = viewport === PHONE ? "phone" : "desktop";
    return page;
  }
  async function open(page, table) {
    // From the tabs if the table is one of the player's, else from the lobby.
    const tab = page.locator(`#tabs button[data-table="${table.id}"]`);
    if (await tab.count()) await tab.click();
    else {
      if (await page.locator("#to-lobby:not(.hidden)").count()) await page.click("#to-lobby");
      await page.waitForSelector(`#lobby tr[data-table="${table.id}"] button`);
      await page.click(`#lobby tr[data-table="${table.id}"] button`);
    }
    await page.waitForFunction((id) => window.pokerd.current === id && document.querySelector("#table-view:not(.hidden) .seat"), table.id);
  }
  async function sit(page, table, seat) {
    await open(page, table);
    await page.click(`.seat.empty[data-seat="${seat}"]`);
    await page.waitForSelector("#buy-in-dialog[open]");
    await page.fill("#buy-in-amount", "100");
    await page.click("#buy-in-confirm");
    await page.waitForSelector(`.seat.me[data-seat="${seat}"]`);
  }

  step("three players (two desktops, one phone) and a spectator on a phone log in");
  const ann = await login("ann", DESKTOP);
  const ben = await login("ben", PHONE);
  const cat = await login("cat", DESKTOP);
  const sue = await login("sue", PHONE);
  const players = [ann, ben, cat];

  // What a page shows is checked by script: returns the problems found.
  const layoutProblems = (page) => page.evaluate(() => {
    const problems = [];
    const W = innerWidth, H = innerHeight;
    const shown = (e) => {
      const r = e.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden";
    };
    const name = (e) => e.id ? "#" + e.id : (e.className || e.tagName) + ":" + (e.textContent || "").trim().slice(0, 20);
    if (document.documentElement.scrollWidth > W + 1) problems.push("the page is wider than the screen: " + document.documentElement.scrollWidth + " > " + W);
    const controls = [...document.querySelectorAll("#lobby-view:not(.hidden) #lobby button, #topbar button, #tabs button, .table-head button, #actions button, #actions input, #preselect input, #chat-form input, #chat-form button, .side-tabs button")].filter(shown);
    for (const c of controls) {
      const r = c.getBoundingClientRect();
      if (r.left < -1 || r.right > W + 1) problems.push(name(c) + " is off-screen sideways");
    }
    const bar = document.querySelector("#actions:not(.hidden)");
    if (bar) {
      const r = bar.getBoundingClientRect();
      if (r.top < 0 || r.bottom > H + 1) problems.push("the action bar is off-screen: " + r.top + ".." + r.bottom + " of " + H);
    }
    const overlap = (a, b) => {
      const r = a.getBoundingClientRect(), s = b.getBoundingClientRect();
      const x = Math.min(r.right, s.right) - Math.max(r.left, s.left);
      const y = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
      return x > 2 && y > 2;
    };
    for (let i = 0; i < controls.length; i++) for (let j = i + 1; j < controls.length; j++) {
      if (overlap(controls[i], controls[j])) problems.push(name(controls[i]) + " overlaps " + name(controls[j]));
    }
    const seats = [...document.querySelectorAll("#seats .seat")].filter(shown);
    for (let i = 0; i < seats.length; i++) {
      const r = seats[i].getBoundingClientRect();
      if (r.left < -1 || r.right > W + 1) problems.push("seat " + seats[i].dataset.seat + " is off-screen sideways");
      for (let j = i + 1; j < seats.length; j++) {
        if (overlap(seats[i], seats[j])) problems.push("seat " + seats[i].dataset.seat + " overlaps seat " + seats[j].dataset.seat);
      }
      for (const c of controls) if (overlap(seats[i], c)) problems.push("seat " + seats[i].dataset.seat + " covers " + name(c));
      if (bar && overlap(seats[i], bar)) problems.push("the action bar covers seat " + seats[i].dataset.seat);
    }
    // Cards inside a seat stay inside it.
    for (const s of seats) {
      const r = s.getBoundingClientRect();
      for (const c of s.querySelectorAll(".hole .card")) {
        const q = c.getBoundingClientRect();
        if (q.left < r.left - 1 || q.right > r.right + 1) problems.push("a card spills out of seat " + s.dataset.seat);
      }
    }
    return problems;
  });

  step("the lobby fits the phone: every Open button on screen");
  for (const p of [ben, sue]) {
    const problems = await layoutProblems(p);
    check(problems.length === 0, `lobby, ${p.who} (${p.size}): ${problems.join("; ")}`);
  }
  await sue.screenshot({ path: `${SHOTS}/lobby-phone.png` });

  step("everyone sits at every table: the tables are tabs");
  for (const table of TABLES) {
    for (const [i, p] of players.entries()) await sit(p, table, [0, 3, 5][i]);
  }
  for (const p of players) {
    await p.waitForFunction((n) => document.querySelectorAll("#tabs button").length === n, TABLES.length);
  }
  step("at the hold'em table (straddles allowed) everyone chooses to straddle under the gun");
  const boardTable = TABLES.find((t) => t.family === "board");
  for (const p of players) {
    await open(p, boardTable);
    await p.waitForSelector("#straddle:not(.hidden)");
    await p.click("#straddle");
    await p.waitForSelector('#straddle[aria-pressed="true"]');
  }
  // The lobby marks the tables where the player sits.
  await ann.click("#to-lobby");
  await ann.waitForFunction((n) => document.querySelectorAll("#lobby tr.mine").length === n, TABLES.length);

  // One move for a page whose turn it is at the table it shows; returns what it did.
  async function move(page, table) {
    if (!(await page.locator("#actions:not(.hidden)").count())) return "";
    const on = await page.evaluate(() => window.pokerd.current);
    if (on !== table.id) return "";
    if (await page.locator("#act-draw:not(.hidden)").count()) {
      // Draw: pick the first card, which must be marked, then draw one.
      const card = page.locator(".seat.me .hole .card").first();
      await card.click();
      check((await card.getAttribute("class")).includes("selected"), "a clicked card is marked for discarding");
      check((await page.locator("#act-draw").textContent()).includes("Draw 1"), "the draw button counts the discards");
      await page.click("#act-draw");
      return "draw";
    }
    if (table.family !== "board" || table.fixed) {
      if (await page.locator("#act-raise:not(.hidden)").count()) {
        const label = await page.locator("#act-raise").textContent();
        check(!label.includes("all in"), `${table.name}: a fixed-limit bet is not all in (${label})`);
        check(!(await page.locator("#sizing:not(.hidden)").count()), `${table.name}: fixed limit has no slider or presets`);
      }
    }
    for (const id of ["#act-check", "#act-call", "#act-bring-in"]) {
      if (await page.locator(`${id}:not(.hidden)`).count()) { await page.click(id); return id; }
    }
    return "";
  }

  // Stud and draw cards grow with the screen: ann's own `n` cards (or more), readable at
  // 1366x768 and larger at 1920x1080, where nothing scrolls sideways or overlaps.
  async function cardsGrow(table, n) {
    const cardSize = () => ann.evaluate(() => {
      const cs = [...document.querySelectorAll(".seat.me .hole .card")].map((c) => c.getBoundingClientRect());
      return [cs.length, Math.min(...cs.map((r) => r.width)), Math.min(...cs.map((r) => r.height))];
    });
    const [count, ...small] = await cardSize();
    check(count >= n, `${table.name}: ${count} cards to measure`);
    await ann.setViewportSize({ width: 1920, height: 1080 });
    await ann.waitForTimeout(200);
    const [, ...large] = await cardSize();
    await checkNoOverflow(ann, `${table.name} at 1920x1080`);
    const big = await layoutProblems(ann);
    await ann.screenshot({ path: `${SHOTS}/${table.family}-${count}-cards-1920.png` });
    await ann.setViewportSize(DESKTOP);
    await ann.waitForTimeout(200);
    console.log(`${table.name}: ${count} own cards ${small.map(Math.round).join("x")} px at 1366x768, ${large.map(Math.round).join("x")} px at 1920x1080`);
    check(big.length === 0, `${table.name} at 1920x1080: ${big.join("; ")}`);
    check(small[0] >= 18 && small[1] >= 30, `${table.name}: cards readable at 1366 (${small.join("x")})`);
    check(large[0] > small[0] * 1.2 && large[1] > small[1] * 1.2, `${table.name}: cards grow at 1920 (${small.join("x")} to ${large.join("x")})`);
  }

  for (const table of TABLES) {
    step(`${table.name}: everyone opens it, sue watches`);
    for (const p of players) await open(p, table);
    await open(sue, table);
    const dealt3 = (page) => page.evaluate(() => {
      const T = window.pokerd.tables.get(window.pokerd.current);
      return !!(T && T.hand && !T.hand.ended && T.hand.players.length === 3);
    });
    let shot = false;
    let hands = 0;
    let studMeasured = false;
    // Where players straddle, play on until a straddle is posted (under the gun, 3 dealt).
    const straddled = async () => table.family !== "board" ||
      /posts? a straddle of 4/.test(await ann.locator("#log").textContent());
    for (let i = 0; i < 900 && (!shot || hands < 2 || !(await straddled())); i++) {
      // At someone's decision with three dealt in: check and photograph every page.
      if (!shot && (await ann.locator("#actions:not(.hidden)").count()) && (await dealt3(ann))) {
        await ann.waitForTimeout(400); // let the deal animation finish
        for (const p of [ann, ben, cat, sue]) {
          const problems = await layoutProblems(p);
          if (problems.length) await p.screenshot({ path: `${SHOTS}/failed-${table.family}-${p.who}.png` });
          check(problems.length === 0, `${table.name}, ${p.who} (${p.size}): ${problems.join("; ")}`);
        }
        // Seats around the oval, evenly: neighbours' distances differ by under 80%
        // (drawn at equal angles on a wide felt they differed 2 to 1 and more).
        for (const p of [ann, ben]) {
          const spread = await p.evaluate(() => {
            const c = [...document.querySelectorAll("#seats .seat")]
              .sort((a, b) => a.dataset.seat - b.dataset.seat)
              .map((s) => { const r = s.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; });
            const gaps = c.map((q, i) => Math.hypot(q[0] - c[(i + 1) % c.length][0], q[1] - c[(i + 1) % c.length][1]));
            return Math.max(...gaps) / Math.min(...gaps);
          });
          console.log(`${table.name}, ${p.who} (${p.size}): neighbouring seats ${spread.toFixed(2)} to 1 apart at most`);
          check(spread < 1.8, `${table.name}, ${p.who}: seats bunch (${spread.toFixed(2)} to 1)`);
        }
        await checkAxe(ann, `${table.name} (desktop)`);
        await checkAxe(ben, `${table.name} (phone)`);
        if (table.family === "draw") await cardsGrow(table, 5);
        await ann.screenshot({ path: `${SHOTS}/${table.family}-desktop.png` });
        await ben.screenshot({ path: `${SHOTS}/${table.family}-phone.png` });
        await sue.screenshot({ path: `${SHOTS}/${table.family}-phone-spectator.png` });
        console.log(`screenshots: ${table.family}-desktop.png, ${table.family}-phone.png, ${table.family}-phone-spectator.png`);
        shot = true;
      }
      // Stud's narrow cards: measured once ann holds six or seven.
      if (table.family === "stud" && !studMeasured && (await ann.locator(".seat.me .hole .card").count()) >= 6) {
        await cardsGrow(table, 6);
        studMeasured = true;
      }
      for (const p of players) await move(p, table);
      hands = await ann.evaluate((id) => {
        const T = window.pokerd.tables.get(id);
        return T.log.filter((l) => l.cls === "hand-start").length - (T.hand && !T.hand.ended ? 1 : 0);
      }, table.id);
      await ann.waitForTimeout(60);
    }
    check(shot, `${table.name}: a hand with three players was photographed`);
    if (table.family === "stud") check(studMeasured, "stud cards were measured at six or seven");
    step(`${table.name}: the hand log names results per pot, and the stud/draw cards show`);
    const log = await ann.locator("#log").textContent();
    check(log.includes("Hand #") && /(from|split) (the main|side) pot/.test(log), `${table.name}: the log has hands and results: ${log.slice(0, 300)}`);
    // Seen from ann's page: her own actions read "You bring in", "You draw 1".
    if (table.family === "stud") check(/brings? in for/.test(log), "stud log has the bring-in");
    if (table.family === "board") check(/posts? a straddle of 4/.test(log), "a straddle was posted under the gun: " + log.slice(-600));
    if (table.family === "draw") check(/draws? \d|stands? pat/.test(log), "draw log has the draws");
    // Lows are said as players say them ("8-5 low"), never as the history's "Lo: 8,5,4,3,2".
    check(!/\bLo: /.test(log), `${table.name}: no "Lo:" lists in the log`);
    if (table.family === "draw" && /shows? .*\(/.test(log)) check(/\b[2-9TJQKA]\d?-[2-9TJQKA]\d? low|pair|straight|flush|high/.test(log), "a shown 2-7 hand is named: " + log.slice(-400));
  }

  step("a turn at another table is named in the tab and the title");
  // Play on the first table only; the others wait on the players' decisions.
  const waiting = await ann.evaluate(() => [...window.pokerd.tables.values()].filter((T) => T.decide && T.id !== window.pokerd.current).map((T) => T.table.name));
  if (waiting.length) {
    check((await ann.title()).includes("Your turn at"), "the title says whose turn: " + (await ann.title()));
    check(await ann.locator("#tabs button.alert").count() >= 1, "the tab of the waiting table is marked");
  }

  step("chat: a seated player speaks, everyone reads, the spectator speaks too");
  const t0 = TABLES[0];
  for (const p of [ann, ben, sue]) await open(p, t0);
  for (const p of [ann, ben, sue]) await p.click("#tab-chat");
  await ann.fill("#chat-text", "good luck all");
  await ann.press("#chat-text", "Enter");
  for (const p of [ann, ben, sue]) await p.waitForFunction(() => document.querySelector("#chat").textContent.includes("good luck all"));
  await sue.fill("#chat-text", "nice table");
  await sue.press("#chat-text", "Enter");
  for (const p of [ann, ben, sue]) await p.waitForFunction(() => document.querySelector("#chat").textContent.includes("nice table"));

  step("settings: the four-colour deck is saved per player");
  await ben.click("#settings-open");
  await checkAxe(ben, "the settings dialog on a phone");
  await ben.check("#set-fourColor");
  await ben.click("#settings-dialog button[value=close]");
  check(await ben.evaluate(() => document.body.classList.contains("four-color")), "four colours on");
  await ben.reload();
  await ben.waitForSelector("#table-view:not(.hidden) .seat");
  check(await ben.evaluate(() => window.pokerd.settings.fourColor), "the setting survives a reload");

  step("keyboard: every seat and control is reachable with Tab");
  const reached = await sue.evaluate(async () => {
    const seen = new Set();
    for (let i = 0; i < 80; i++) {
      document.activeElement && seen.add(document.activeElement);
      const all = [...document.querySelectorAll("button, input, [tabindex]")].filter((e) => e.tabIndex >= 0 && e.getClientRects().length);
      const k = all.indexOf(document.activeElement);
      (all[(k + 1) % all.length] || document.body).focus();
    }
    return [...document.querySelectorAll("#seats .seat")].every((s) => s.tabIndex === 0);
  });
  check(reached, "every seat takes the focus");

  step("a full heads-up table: cat joins its waiting list, ben leaves, cat is offered the seat and sits");
  const hu = { id: process.env.HEADS_UP, name: "Heads-up", family: "board" };
  await sit(ann, hu, 0);
  await sit(ben, hu, 1);
  await open(cat, hu);
  await cat.waitForSelector("#waitlist:not(.hidden)");
  await cat.click("#waitlist");
  await cat.waitForFunction(() => document.querySelector("#waitlist").textContent.includes("#1"));
  await ann.click("#to-lobby");
  await ann.waitForFunction((id) => document.querySelector(`#lobby tr[data-table="${id}"]`)?.textContent.includes("1 waiting"), hu.id);
  await open(ann, hu);
  await ben.click("#leave");
  // In a hand: the page's own question, answered yes.
  if (await ben.waitForSelector("#ask-dialog[open]", { timeout: 3000 }).catch(() => null)) await ben.click("#ask-yes");
  // Ann plays the hand out (ben's hand is dead); then his seat is offered to cat.
  for (let i = 0; i < 200 && !(await cat.locator("#buy-in-dialog[open]").count()); i++) {
    await move(ann, hu);
    await ann.waitForTimeout(50);
  }
  await cat.waitForSelector("#buy-in-dialog[open]");
  check((await cat.locator("#buy-in-title").textContent()).includes("seat 2"), "the seat offered opens its buy-in");
  step("the rabbit hunt: the hand ben's leaving ended early shows the cards it would have dealt");
  const board = await ann.evaluate(() => window.pokerd.tables.get(window.pokerd.current).hand.board.length);
  if (board < 5) {
    await ann.waitForSelector("#board .card.rabbit");
    check(await ann.locator("#board .card.rabbit").count() === 5 - board, "the rest of the board, set apart");
    check((await ann.locator("#log").textContent()).includes("Rabbit hunt:"), "the log names the rabbit");
    console.log(`rabbit: ${5 - board} cards shown after a board of ${board}`);
  } else console.log("rabbit: the hand reached the river, nothing to hunt");
  step("ann won that hand without a showdown: she may show her cards, and cat sees them");
  await ann.waitForSelector("#show-hand:not(.hidden)");
  await ann.click("#show-hand");
  await ann.waitForFunction(() => /You show \S\S \S\S/.test(document.querySelector("#log").textContent));
  await ann.waitForSelector("#show-hand.hidden", { state: "attached" });
  await cat.waitForFunction(() => document.querySelectorAll('.seat[data-seat="0"] .hole .card[data-card]').length === 2);
  console.log("show after an uncontested win: ann's cards shown to the table");
  await cat.fill("#buy-in-amount", "100");
  await cat.click("#buy-in-confirm");
  await cat.waitForSelector('.seat.me[data-seat="1"]');
  check(!(await cat.locator("#waitlist:not(.hidden)").count()), "seated: no waiting-list button");

  check(errors.length === 0, "no page or console error:\n" + errors.join("\n"));
  console.log("e2e games: ok");
} finally {
  await browser.close();
}
