// A measurement, not a test (scripts/browser-seed-coverage.sh runs it): one person at a
// human pace in Debian's Chromium, against the house bots of a fresh play-money room,
// sits at the NL Hold'em table and plays HANDS hands, waiting 1 to 3 s before each action
// and reloading the page once halfway; then prints pokerd's own counts from /metrics:
// hands dealt, and hands dealt with the seed of every player dealt in (the house's bots
// aside: here, the person's), first hand included (docs/fairness.md).
import { chromium } from "playwright-core";

const BASE = process.env.BASE;
const HANDS = Number(process.env.HANDS || 30);
const pause = (lo, hi) => new Promise((r) => setTimeout(r, lo + Math.random() * (hi - lo)));

async function metric(name) {
  const text = await (await fetch(BASE + "/metrics")).text();
  const line = text.split("\n").find((l) => l.startsWith(name + " "));
  return line ? Number(line.split(" ")[1]) : NaN;
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
try {
  const page = await (await browser.newContext({ viewport: { width: 1366, height: 768 } })).newPage();
  await page.goto(BASE + "/");
  await page.waitForSelector("#login-view:not(.hidden)");
  await page.fill("#login-name", "person");
  await page.fill("#login-password", "a-person-at-a-human-pace");
  await page.click("#register-submit");
  await page.waitForSelector("#lobby-view:not(.hidden)");
  await page.waitForFunction(() => document.querySelectorAll("#lobby tbody tr").length >= 4);
  await pause(1000, 3000);
  await page.locator("#lobby tbody tr", { hasText: "NL Hold'em" }).first().locator("button").click();
  await page.waitForSelector("#table-view:not(.hidden) .seat.empty");
  await pause(1000, 3000);
  await page.locator(".seat.empty").first().click();
  await page.waitForSelector("#buy-in-dialog[open]");
  await pause(1000, 3000);
  await page.click("#buy-in-confirm");
  await page.waitForSelector(".seat.me");
  // Only this table plays (the house's bots play where a person sits), so pokerd's count
  // of hands dealt is this table's.
  let reloaded = false;
  const deadline = Date.now() + HANDS * 60000;
  // A person who loses every chip sits out and the bots leave: the table stops dealing.
  // The run ends then, with the hands dealt so far.
  let last = -1;
  let lastAt = Date.now();
  while ((await metric("poker_hands_dealt_total")) < HANDS && Date.now() < deadline) {
    const now = await metric("poker_hands_dealt_total");
    if (now !== last) { last = now; lastAt = Date.now(); }
    if (Date.now() - lastAt > 90000) { console.log(`no hand dealt for 90 s after ${now}: the person is out of chips`); break; }
    if (await page.locator("#actions:not(.hidden)").count()) {
      await pause(1000, 3000);
      for (const id of ["#act-check", "#act-call"]) {
        if (await page.locator(`${id}:not(.hidden)`).count()) { await page.click(id).catch(() => {}); break; }
      }
    }
    await page.waitForTimeout(200);
    if (!reloaded && (await metric("poker_hands_dealt_total")) >= HANDS / 2) {
      reloaded = true;
      await page.reload();
      await page.waitForSelector(".seat.me", { timeout: 30000 });
    }
  }
  // Which hands lacked the person's seed, from their own records (what they can check).
  const missing = await page.evaluate(async () => {
    const auth = { headers: { authorization: "Bearer " + localStorage.getItem("pokerd.token") } };
    const hands = await (await fetch("/api/me/hands?limit=100", auth)).json();
    if (!Array.isArray(hands)) return [{ error: JSON.stringify(hands).slice(0, 300) }];
    const out = [];
    for (const h of hands) {
      const r = await (await fetch(`/api/me/hands/${h.hand_id}?format=replay`, auth)).json();
      const seat = r.seats[r.me];
      const f = r.fairness;
      if (!f.seeds.some((s) => s.seat === seat)) {
        out.push({ number: h.number, listed: f.seed_list.map((c) => c.seat + (c.house ? "h" : "")), seeds: f.seeds.map((s) => s.seat) });
      }
    }
    return out;
  });
  if (missing.length) console.log("hands without the person's seed: " + JSON.stringify(missing));
  const dealt = await metric("poker_hands_dealt_total");
  const all = await metric("poker_hands_all_seeds_total");
  const none = await metric("poker_hands_no_player_seed_total");
  console.log(JSON.stringify({ hands_dealt: dealt, all_seeds: all, no_player_seed: none,
    share: dealt ? Math.round(10000 * all / dealt) / 100 : null }));
} finally {
  await browser.close();
}
