// Hostile text and foreign pages, in Debian's Chromium through playwright-core, against a
// real pokerd (started by crates/poker-server/tests/server/browser.rs, which passes BASE,
// TABLE_ID, ADMIN_TOKEN and the two hostile player names in NAME_A and NAME_B).
//
// - Cross-site scripting: two players whose names are HTML (made by the admin API) sit and
//   chat HTML and script at a table; a spectator watches; the operators' console lists the
//   players. No page runs any of it (each payload would set window.__xss), and every page
//   shows the text as it was typed.
// - Cross-site requests: a page served from another origin (a second HTTP server on
//   another port) cannot open the WebSocket, cannot read a player's or the admin API's
//   answers even holding a token, and its form-style POST to the admin API changes nothing.
import { chromium } from "playwright-core";
import http from "node:http";

const BASE = process.env.BASE;
const TABLE_ID = process.env.TABLE_ID;
const ADMIN_TOKEN = process.env.ADMIN_TOKEN;
const NAME_A = process.env.NAME_A;
const NAME_B = process.env.NAME_B;
const step = (text) => console.log("step: " + text);
function check(cond, text) {
  if (!cond) throw new Error("check failed: " + text);
}

// Each payload, if it ever ran, would set window.__xss.
const CHAT = [
  `<img src=x onerror="window.__xss='chat-img'">`,
  `<script>window.__xss='chat-script'</script>`,
  `"><svg onload="window.__xss='chat-svg'">`,
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
const foreign = http.createServer((req, res) => {
  res.writeHead(200, { "content-type": "text/html" });
  res.end("<!doctype html><title>elsewhere</title><p>a page of another site</p>");
});
await new Promise((resolve) => foreign.listen(0, "127.0.0.1", resolve));
const FOREIGN = `http://127.0.0.1:${foreign.address().port}`;
try {
  const pages = [];
  async function player(name) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.on("pageerror", (e) => { throw new Error(name + ": page error: " + e.message); });
    await page.goto(BASE + "/");
    await page.fill("#login-name", name);
    await page.fill("#login-password", "password1");
    await page.click("#login-submit");
    await page.waitForSelector(`#lobby tr[data-table="${TABLE_ID}"]`);
    await page.click(`#lobby tr[data-table="${TABLE_ID}"] button`);
    await page.waitForSelector("#table-view:not(.hidden) .seat");
    pages.push(page);
    return page;
  }
  async function sit(page, seat) {
    await page.click(`.seat.empty[data-seat="${seat}"]`);
    await page.waitForSelector("#buy-in-dialog[open]");
    await page.fill("#buy-in-amount", "100");
    await page.click("#buy-in-confirm");
    await page.waitForSelector(`.seat.me[data-seat="${seat}"]`);
  }

  step("two players named in HTML sit down, a spectator watches");
  const a = await player(NAME_A);
  const b = await player(NAME_B);
  const sue = await player("sue");
  await sit(a, 0);
  await sit(b, 1);

  step("they chat HTML and script");
  for (const page of [a, b, sue]) await page.click("#tab-chat");
  for (const text of CHAT) {
    await a.fill("#chat-text", text);
    await a.press("#chat-text", "Enter");
  }
  for (const page of [a, b, sue]) {
    await page.waitForFunction((n) => document.querySelectorAll("#chat p").length >= n, CHAT.length);
    const said = await page.locator("#chat p").allTextContents();
    for (const text of CHAT) {
      check(said.some((line) => line.endsWith(": " + text)), `the chat shows ${text} as typed: ${JSON.stringify(said)}`);
    }
    const seats = (await page.locator(".seat").allTextContents()).join(" ");
    check(seats.includes(NAME_A) && seats.includes(NAME_B), `the seats show the names as typed: ${seats}`);
    check(await page.locator("#chat img, #chat svg, #chat script, .seat img").count() === 0, "no element made from the text");
  }

  step("the operators' console lists the players by their names, as text");
  const consoleContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const admin = await consoleContext.newPage();
  admin.on("pageerror", (e) => { throw new Error("console: page error: " + e.message); });
  await admin.goto(BASE + "/admin");
  await admin.fill("#token", ADMIN_TOKEN);
  await admin.click("#token-form button[type=submit]");
  await admin.click('#sections button[data-section="players"]');
  await admin.waitForFunction((n) => document.querySelector("#players").textContent.includes(n), NAME_A);
  const listed = await admin.locator("#players").textContent();
  check(listed.includes(NAME_A) && listed.includes(NAME_B), "the console shows both names as typed");
  check(await admin.locator("#players img, #players svg, #players script").count() === 0, "no element made from a name");
  pages.push(admin);

  for (const page of pages) {
    check(await page.evaluate(() => window.__xss === undefined), `no payload ran (window.__xss = ${await page.evaluate(() => window.__xss)})`);
  }

  step("a page of another origin cannot use the server");
  const elsewhere = await (await browser.newContext()).newPage();
  await elsewhere.goto(FOREIGN + "/");
  const token = await a.evaluate(() => localStorage.getItem("pokerd.token"));
  check(/^[0-9a-f]{64}$/.test(token || ""), "the player page holds a session token");
  const result = await elsewhere.evaluate(async ({ base, token, adminToken }) => {
    const out = {};
    // The WebSocket: refused for a foreign Origin before it opens.
    out.ws = await new Promise((resolve) => {
      const ws = new WebSocket(base.replace(/^http/, "ws") + "/ws");
      ws.onopen = () => { ws.close(); resolve("open"); };
      ws.onerror = () => resolve("refused");
      setTimeout(() => resolve("timeout"), 5000);
    });
    // Reading answers: no CORS headers, so the browser keeps them from this page.
    const read = async (path, bearer) => {
      try {
        const r = await fetch(base + path, { headers: bearer ? { authorization: "Bearer " + bearer } : {} });
        return "read " + r.status + " " + (await r.text()).slice(0, 60);
      } catch (e) {
        return "blocked";
      }
    };
    out.me = await read("/api/me", token);
    out.players = await read("/admin/players", adminToken);
    // A form-style POST (no preflight): no bearer token, so nothing happens.
    try {
      await fetch(base + "/admin/players", {
        method: "POST",
        mode: "no-cors",
        headers: { "content-type": "text/plain" },
        body: JSON.stringify({ name: "csrf-made", password: "password1" }),
      });
      out.post = "sent";
    } catch (e) {
      out.post = "blocked";
    }
    return out;
  }, { base: BASE, token, adminToken: ADMIN_TOKEN });
  check(result.ws === "refused", `the WebSocket refuses the foreign page: ${result.ws}`);
  check(result.me === "blocked", `a player's answers are not readable by the foreign page: ${result.me}`);
  check(result.players === "blocked", `the admin API's answers are not readable by the foreign page: ${result.players}`);
  const made = await fetch(BASE + "/admin/players?q=csrf-made", { headers: { authorization: "Bearer " + ADMIN_TOKEN } });
  const found = await made.json();
  check(Array.isArray(found) && found.length === 0, `the foreign page's POST made no player: ${JSON.stringify(found)}`);

  console.log("e2e hostile: ok");
} finally {
  foreign.close();
  await browser.close();
}
