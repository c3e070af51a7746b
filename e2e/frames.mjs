// A measurement, not a test (scripts/page-frames.sh runs it): how the player's page keeps
// up with a table that streams messages, in Debian's Chromium. The player sits at a
// six-seat table of a play-money room where the house bots fill the other seats and act
// quickly (pokerd started with a short bots.think_ms), and the page answers its own turns
// at once (check, or fold to a bet: the player stays in the game); the table's pause
// between hands is short. For SECS seconds on the table's view, then SECS seconds in the
// lobby (seated: the table's messages keep coming, and the lobby's updates with them),
// the page records, with the Performance API: the messages received per second, the
// frames drawn per second (requestAnimationFrame callbacks), the longest gap between two
// frames, the long tasks (PerformanceObserver 'longtask', 50 ms or more: how many, the
// longest, their total), the longest animation frame ('long-animation-frame', where the
// browser has it: its time, the style and layout's part, its longest scripts), the time
// spent handling messages (the socket's handler: the longest and the total) and in
// animation frame callbacks (the page's drawing, where it draws per frame: the longest
// and the total), and how often
// the page drew (`pokerd.drawn`, where the page counts it).
// In the lobby, the button of another table's row has the focus from the start: how many
// frames it kept it. One JSON line per view.
//
// BASE, ADMIN_TOKEN, SECS (20), CHROMIUM.
import { chromium } from "playwright-core";
import { autoplay } from "./checks.mjs";

const BASE = process.env.BASE;
const ADMIN_TOKEN = process.env.ADMIN_TOKEN;
const SECS = Number(process.env.SECS || 20);

async function admin(method, path, body) {
  const r = await fetch(BASE + path, {
    method,
    headers: { authorization: "Bearer " + ADMIN_TOKEN, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await r.json();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(data)}`);
  return data;
}

// Put in the page before its own scripts: counts and times every message the page's
// socket handles, and watches long tasks and long animation frames.
function instrument() {
  const m = (window.__m = { msgs: 0, handlerMs: 0, handlerMax: 0, longtasks: [], loaf: [] });
  const Socket = window.WebSocket;
  window.WebSocket = class extends Socket {
    set onmessage(f) {
      super.onmessage = f && ((e) => {
        const t = performance.now();
        try { return f.call(this, e); } finally {
          const d = performance.now() - t;
          m.msgs++;
          m.handlerMs += d;
          m.handlerMax = Math.max(m.handlerMax, d);
        }
      });
    }
    get onmessage() { return super.onmessage; }
  };
  new PerformanceObserver((list) => { for (const e of list.getEntries()) m.longtasks.push(e.duration); }).observe({ type: "longtask", buffered: true });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        // Where the frame's time went: scripts (the longest named), then style and layout.
        const scripts = e.scripts.map((x) => ({ ms: Math.round(x.duration), what: x.invoker || x.sourceFunctionName }));
        scripts.sort((a, b) => b.ms - a.ms);
        m.loaf.push({ ms: e.duration, layout_ms: Math.round(e.startTime + e.duration - (e.styleAndLayoutStart || e.startTime + e.duration)), scripts: scripts.slice(0, 2) });
      }
    }).observe({ type: "long-animation-frame", buffered: true });
  } catch (_) { /* not in this browser */ }
  // The time spent in animation frame callbacks: the page's drawing, where it draws per frame.
  const raf = window.requestAnimationFrame.bind(window);
  Object.assign(m, { rafMs: 0, rafMax: 0 });
  window.requestAnimationFrame = (f) => raf((t) => {
    const t0 = performance.now();
    try { return f(t); } finally {
      const d = performance.now() - t0;
      m.rafMs += d;
      m.rafMax = Math.max(m.rafMax, d);
    }
  });
}

// SECS seconds of the page as it is: the figures above, from inside the page.
async function measure(page, view, focusSel = null) {
  return page.evaluate(async ({ secs, focusSel }) => {
    const m = window.__m;
    const focus = focusSel ? document.querySelector(focusSel) : null;
    if (focus) focus.focus();
    Object.assign(m, { msgs: 0, handlerMs: 0, handlerMax: 0, longtasks: [], loaf: [], rafMs: 0, rafMax: 0 });
    const drawn0 = window.pokerd.drawn;
    let frames = 0;
    let kept = 0;
    let last = null;
    let gap = 0;
    let running = true;
    const tick = (t) => {
      frames++;
      if (last !== null) gap = Math.max(gap, t - last);
      last = t;
      if (focus && document.activeElement === focus) kept++;
      if (running) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, secs * 1000));
    running = false;
    const s = (performance.now() - t0) / 1000;
    const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
    return {
      messages_per_sec: round(m.msgs / s),
      frames_per_sec: round(frames / s),
      longest_frame_gap_ms: round(gap),
      longtasks: m.longtasks.length,
      longest_task_ms: round(Math.max(0, ...m.longtasks)),
      longtask_total_ms: round(m.longtasks.reduce((a, b) => a + b, 0)),
      longest_animation_frame: m.loaf.sort((a, b) => b.ms - a.ms)[0] || null,
      handler_max_ms: round(m.handlerMax),
      handler_ms_per_sec: round(m.handlerMs / s),
      frame_callbacks_ms_per_sec: round(m.rafMs / s),
      frame_callback_max_ms: round(m.rafMax),
      drawings_per_sec: drawn0 === undefined ? null : round((window.pokerd.drawn - drawn0) / s),
      focus_kept: focus ? round(kept / Math.max(1, frames), 3) : null,
    };
  }, { secs: SECS, focusSel }).then((r) => ({ view, secs: SECS, ...r }));
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
try {
  // A six-seat table that deals again 200 ms after a hand.
  const presets = await admin("GET", "/admin/presets");
  const body = structuredClone(presets.find((p) => p.key === "nlhe").body);
  body.name = "Frames 1/2";
  body.clock = { action_ms: 20000, warning_ms: 0, time_bank_ms: 0, between_hands_ms: 200 };
  const table = await admin("POST", "/admin/tables", body);

  const page = await (await browser.newContext({ viewport: { width: 1366, height: 768 } })).newPage();
  page.on("pageerror", (e) => console.error("page error: " + e.message));
  await page.addInitScript(instrument);
  await page.goto(BASE + "/");
  await page.fill("#login-name", "frames" + Date.now().toString(36));
  await page.fill("#login-password", "frames-measurement");
  await page.click("#register-submit");
  await page.waitForSelector(`#lobby tr[data-table="${table.table_id}"]`);
  await page.click(`#lobby tr[data-table="${table.table_id}"] button`);
  await page.waitForSelector("#table-view:not(.hidden) .seat.empty");
  await page.locator(".seat.empty").first().click();
  await page.waitForSelector("#buy-in-dialog[open]");
  await page.click("#buy-in-confirm");
  await page.waitForSelector(".seat.me");
  await page.evaluate(autoplay);
  // The house bots sit down and the hands come.
  await page.waitForFunction(() => document.querySelectorAll(".seat:not(.empty)").length >= 6, null, { timeout: 60000 });
  await page.waitForTimeout(3000);
  console.log(JSON.stringify(await measure(page, "table")));
  await page.click("#to-lobby");
  await page.waitForSelector("#lobby-view:not(.hidden)");
  await page.waitForTimeout(1000);
  const other = presets[1].body.name;
  const row = await page.evaluate((name) => [...document.querySelectorAll("#lobby tbody tr")].find((tr) => tr.cells[0].textContent === name).dataset.table, other);
  console.log(JSON.stringify(await measure(page, "lobby", `#lobby tr[data-table="${row}"] button`)));
} finally {
  await browser.close();
}
