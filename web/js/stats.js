// Session stats and the history download. The stats (hands, net, big blinds per 100
// hands) of this session (since the page was first opened in this tab) and of today
// come from the server (`/api/me/stats`), which works them out from the stored hands.
// The download asks `/api/me/hands?format=...&from=&to=` for the days chosen and saves
// the file the server answers.

const SESSION_KEY = "pokerd.sessionStart";

/** When this session began: kept for the tab, so a reload continues it. */
export function sessionStart(storage, now) {
  const kept = Number(storage.getItem(SESSION_KEY));
  if (kept > 0 && kept <= now) return kept;
  storage.setItem(SESSION_KEY, String(now));
  return now;
}

/** Local midnight of the day `ms` falls in. */
export function startOfDay(ms) {
  const d = new Date(ms);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/** A range of whole local days from two `yyyy-mm-dd` dates (both included). */
export function dayRange(fromDate, toDate) {
  const day = (s) => { const [y, m, d] = s.split("-").map(Number); return new Date(y, m - 1, d).getTime(); };
  const from = day(fromDate);
  const end = new Date(day(toDate));
  end.setDate(end.getDate() + 1);
  return { from, to: end.getTime() };
}

/** A date as `yyyy-mm-dd` in local time. */
export function isoDay(ms) {
  const d = new Date(ms);
  const two = (n) => String(n).padStart(2, "0");
  return d.getFullYear() + "-" + two(d.getMonth() + 1) + "-" + two(d.getDate());
}

/** One line of stats. */
export function formatStats(s) {
  if (!s || !s.hands) return "no hands yet";
  const net = (s.net > 0 ? "+" : "") + s.net;
  const bb = s.bb_per_100 === null ? "" : " \u00b7 " + (s.bb_per_100 > 0 ? "+" : "") + s.bb_per_100.toFixed(2) + " bb/100";
  return s.hands + (s.hands === 1 ? " hand" : " hands") + " \u00b7 net " + net + bb;
}

async function get(S, path) {
  const r = await fetch(path, { headers: { authorization: "Bearer " + S.token } });
  if (!r.ok) throw new Error((await r.json().catch(() => ({}))).message || r.statusText);
  return r;
}

let asked = 0;

/** Shows the session's and today's stats in the lobby (at most every 5 seconds). */
export async function showStats(doc, S, now = Date.now()) {
  if (!S.token || now - asked < 5000) return;
  asked = now;
  const session = sessionStart(sessionStorage, now);
  try {
    const [a, b] = await Promise.all([
      get(S, "/api/me/stats?from=" + session).then((r) => r.json()),
      get(S, "/api/me/stats?from=" + startOfDay(now)).then((r) => r.json()),
    ]);
    doc.querySelector("#stats-session").textContent = formatStats(a);
    doc.querySelector("#stats-today").textContent = formatStats(b);
  } catch (_) { /* shown again at the next lobby drawing */ }
}

/** Wires the download form of the history dialog. */
export function wireDownload(doc, S) {
  const from = doc.querySelector("#dl-from");
  const to = doc.querySelector("#dl-to");
  const today = isoDay(Date.now());
  from.value = today; to.value = today;
  doc.querySelector("#dl-go").addEventListener("click", async () => {
    const msg = doc.querySelector("#dl-status");
    if (!from.value || !to.value || from.value > to.value) { msg.textContent = "Choose a first day on or before the last."; return; }
    const range = dayRange(from.value, to.value);
    const format = doc.querySelector("#dl-format").value;
    msg.textContent = "Preparing\u2026";
    try {
      const r = await get(S, "/api/me/hands?format=" + format + "&from=" + range.from + "&to=" + range.to);
      const text = await r.text();
      // PHH: one table per hand; OHH: one object per line; PokerStars: one header per hand.
      const counted = { phh: /^\["/gm, ohh: /^\{"ohh":/gm }[format] || /^PokerStars Hand #/gm;
      const hands = (text.match(counted) || []).length;
      const omitted = Number(r.headers.get("x-hands-omitted") || 0);
      const a = doc.createElement("a");
      a.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
      a.download = "hands-" + from.value + "-to-" + to.value + ({ phh: ".phhs", ohh: ".ohh" }[format] || ".txt");
      doc.body.append(a);
      a.click();
      a.remove();
      msg.textContent = hands + (hands === 1 ? " hand" : " hands") + " downloaded." +
        (omitted ? " " + omitted + (omitted === 1 ? " hand" : " hands") + " of games Open Hand History cannot express left out." : "");
    } catch (e) { msg.textContent = e.message; }
  });
}
