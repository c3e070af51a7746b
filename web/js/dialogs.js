// Dialogs: buying in, topping up and rebuying (bounded by the table and the wallet),
// the hand history, and the player's settings.

import { $, el, api } from "./dom.js";
import { cardEl } from "./views.js";
import { replayTo, replaySteps, potsOf, mySeat } from "./state.js";
import { verifyRecord, verdict, failure, mineFor } from "./fairness.js";
import { askRange, buyInChoice } from "./buyin.js";

export { api };

/**
 * The page's own yes-or-no question (a native `confirm()` would stop every table's
 * clock on the page): resolves true when the player chooses `yes`.
 */
export function ask(question, yes = "Yes", no = "Cancel") {
  const d = $("#ask-dialog");
  $("#ask-text").textContent = question;
  $("#ask-yes").textContent = yes;
  $("#ask-no").textContent = no;
  d.returnValue = "";
  return new Promise((resolve) => {
    d.addEventListener("close", () => resolve(d.returnValue === "yes"), { once: true });
    d.showModal();
  });
}

let mode = { kind: "sit", seat: null, table: null };

export async function openBuyIn(S, seat) {
  const T = S.tables.get(S.current);
  const t = T.table;
  mode = { kind: "sit", seat, table: T.id };
  // The player's own range (the rathole rule may raise it), asked while the wallet is read.
  const asked = askRange(S, T.id);
  let balance = null;
  try { balance = (await api(S, "/api/me")).balance; } catch (_) { /* shown as unknown */ }
  const c = buyInChoice(await asked, t, balance);
  setup("Buy in at " + t.name + ", seat " + (seat + 1), c.min, c.max, balance, true, "Sit down", c);
}

/** Top up, or rebuy when busted: at least enough to reach the minimum buy-in. */
export async function openTopUp(S, rebuy = false) {
  const T = S.tables.get(S.current);
  const t = T.table;
  const me = t.seats.find((x) => x.seat === mySeat(S, T));
  if (!me) return;
  mode = { kind: "top_up", seat: me.seat, table: T.id };
  const stack = me.stack + me.pending_top_up;
  const room = t.max_buy_in - stack;
  let balance = 0;
  try { balance = (await api(S, "/api/me")).balance; } catch (e) { S.toast(e.message); return; }
  const min = Math.max(1, Math.min(room, t.min_buy_in - stack));
  const title = (rebuy ? "You are out of chips: rebuy at " : "Top up at ") + t.name + (rebuy ? "?" : "");
  setup(title, min, Math.min(room, balance), balance, false, rebuy ? "Rebuy" : "Add chips");
  if (room <= 0) $("#buy-in-error").textContent = "Your stack is at the table's maximum.";
}

function setup(title, min, max, balance, showWait, confirm, choice = null) {
  $("#buy-in-title").textContent = title;
  $("#buy-in-range").textContent = choice ? choice.text + (choice.note ? " \u00b7 " + choice.note : "")
    : "Between " + min + " and " + Math.max(max, 0) + (balance !== null ? " \u00b7 wallet " + balance : "");
  for (const inp of [$("#buy-in-slider"), $("#buy-in-amount")]) { inp.min = min; inp.max = max; inp.value = choice ? choice.value : max; }
  // One amount allowed (a fixed buy-in, or the rathole rule's): nothing to slide.
  $("#buy-in-slider").classList.toggle("hidden", max <= min);
  $("#buy-in-wait").parentElement.classList.toggle("hidden", !showWait);
  $("#buy-in-error").textContent = max < min ? "Not enough in your wallet." : "";
  $("#buy-in-confirm").disabled = max < min || max <= 0;
  $("#buy-in-confirm").textContent = confirm;
  const d = $("#buy-in-dialog");
  if (!d.open) d.showModal();
}

export function wireBuyIn(S) {
  $("#buy-in-slider").addEventListener("input", (e) => { $("#buy-in-amount").value = e.target.value; });
  $("#buy-in-amount").addEventListener("input", (e) => { $("#buy-in-slider").value = e.target.value; });
  $("#buy-in-dialog").addEventListener("close", () => {
    if ($("#buy-in-dialog").returnValue !== "ok") return;
    const min = parseInt($("#buy-in-amount").min, 10);
    const max = parseInt($("#buy-in-amount").max, 10);
    const amount = Math.max(min, Math.min(max, parseInt($("#buy-in-amount").value, 10) || min));
    if (mode.kind === "sit") {
      S.sit({ type: "sit", table_id: mode.table, seat: mode.seat, buy_in: amount, post_now: !$("#buy-in-wait").checked });
    } else {
      S.send({ type: "top_up", table_id: mode.table, amount });
    }
  });
}

/** Hands per page of the history. */
export const HISTORY_PAGE = 20;
const H = { offset: 0, hands: [] };

/** Opens the history at its newest page. */
export async function openHistory(S) {
  H.offset = 0;
  await showHistory(S);
  if (!$("#history-dialog").open) $("#history-dialog").showModal();
}

/** Wires the history's paging and its download of the hands listed. */
export function wireHistory(S) {
  $("#history-newer").addEventListener("click", () => { H.offset = Math.max(0, H.offset - HISTORY_PAGE); showHistory(S); });
  $("#history-older").addEventListener("click", () => { H.offset += HISTORY_PAGE; showHistory(S); });
  $("#history-download").addEventListener("click", () => downloadHistory(S));
}

// The hands listed, as one text file: each hand's history, as the per-hand export gives it.
async function downloadHistory(S) {
  const status = $("#history-status");
  status.textContent = "Preparing " + H.hands.length + " hands\u2026";
  try {
    const texts = [];
    for (const h of H.hands) texts.push(await api(S, "/api/me/hands/" + h.hand_id));
    const a = el("a");
    a.href = URL.createObjectURL(new Blob([texts.join("\n\n\n")], { type: "text/plain" }));
    const day = (h) => String(h.started_at || "").slice(0, 10);
    a.download = "pokerd-hands-" + (H.hands.length ? day(H.hands[H.hands.length - 1]) + "-to-" + day(H.hands[0]) : "none") + ".txt";
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    status.textContent = "Downloaded " + H.hands.length + " hands.";
  } catch (e) { status.textContent = "The download failed: " + e.message; }
}

async function showHistory(S) {
  const list = $("#history-list");
  list.replaceChildren();
  $("#history-text").textContent = "";
  $("#history-status").textContent = "";
  stopReplay();
  $("#replay").classList.add("hidden");
  try {
    // One more than a page: whether there are older hands to page to.
    const got = await api(S, "/api/me/hands?limit=" + (HISTORY_PAGE + 1) + "&offset=" + H.offset);
    const hands = got.slice(0, HISTORY_PAGE);
    H.hands = hands;
    $("#history-older").disabled = got.length <= HISTORY_PAGE;
    $("#history-newer").disabled = H.offset === 0;
    $("#history-download").disabled = !hands.length;
    $("#history-page").textContent = hands.length ? "Hands " + (H.offset + 1) + "\u2013" + (H.offset + hands.length) : "";
    if (!hands.length) list.append(el("li", "muted", "No hands yet."));
    for (const h of hands) {
      const li = el("li");
      const b = el("button");
      b.type = "button";
      b.append(el("span", "", h.table_name + " \u00b7 hand #" + h.number));
      b.append(el("span", h.net > 0 ? "won" : "muted", (h.net > 0 ? "+" : "") + h.net));
      b.onclick = async () => {
        const text = $("#history-text");
        stopReplay();
        $("#replay").classList.add("hidden");
        text.classList.remove("hidden");
        // The table's hand number (as in the hand log) and the history's own number.
        try { text.textContent = h.table_name + ", hand #" + h.number + "\n\n" + await api(S, "/api/me/hands/" + h.hand_id); }
        catch (e) { text.textContent = "This hand's history could not be shown: " + e.message; }
      };
      const r = el("button", "replay-open", "Replay");
      r.type = "button";
      r.setAttribute("aria-label", "Replay " + h.table_name + " hand #" + h.number);
      r.onclick = async () => {
        try { openReplay(await api(S, "/api/me/hands/" + h.hand_id + "?format=replay")); }
        catch (e) { $("#history-text").classList.remove("hidden"); $("#history-text").textContent = "This hand could not be replayed: " + e.message; }
      };
      const v = el("button", "verify-open", "Verify");
      v.type = "button";
      v.setAttribute("aria-label", "Verify this hand: " + h.table_name + " hand #" + h.number);
      v.onclick = async () => {
        const text = $("#history-text");
        stopReplay();
        $("#replay").classList.add("hidden");
        text.classList.remove("hidden");
        text.textContent = "Checking the deck of " + h.table_name + ", hand #" + h.number + "\u2026";
        try {
          const record = await api(S, "/api/me/hands/" + h.hand_id + "?format=replay");
          // With what this browser knows of its own seed for the hand: revealed under a
          // list, committed and never revealed, or none sent from here.
          const result = await verifyRecord(record, mineFor(localStorage, h.hand_id));
          text.textContent = h.table_name + ", hand #" + h.number + "\n\n" + verdict(result);
          text.dataset.verified = "yes";
        } catch (e) {
          text.textContent = h.table_name + ", hand #" + h.number + "\n\n" + failure(e);
          // A version 1 record is not checked here (not a failure of the hand).
          text.dataset.verified = e.version1 ? "version1" : "no";
        }
      };
      li.append(b, r, v);
      list.append(li);
    }
  } catch (e) { list.append(el("li", "error", e.message)); }
}

// ---------------------------------------------------------------- the replayer

const R = { replay: null, stops: [0], at: 0, timer: null };

function stopReplay() {
  if (R.timer) clearInterval(R.timer);
  R.timer = null;
  $("#replay-play").textContent = "Play";
}

function openReplay(replay) {
  stopReplay();
  R.replay = replay; R.stops = replaySteps(replay); R.at = 0;
  $("#history-text").classList.add("hidden");
  $("#replay").classList.remove("hidden");
  $("#replay-title").textContent = replay.table_name + " \u00b7 hand #" + replay.hand_number + " \u00b7 " + replay.game;
  drawReplay();
}

function drawReplay() {
  const { hand: h, lines, last } = replayTo(R.replay, R.stops[R.at]);
  const seats = h.players.map((p, i) => {
    const li = el("li", (p.folded ? "folded " : "") + (p.won && h.ended ? "won" : ""));
    li.append(el("span", "who", R.replay.names[i] + (R.replay.me === i ? " (you)" : "")));
    li.append(el("span", "", String(p.stack)));
    const cards = el("span", "cards");
    p.cards.forEach((c) => cards.append(cardEl(c)));
    li.append(cards);
    const note = [p.bet ? "bet " + p.bet : "", p.last, p.won && h.ended ? "wins " + p.won : ""].filter(Boolean).join(" \u00b7 ");
    li.append(el("span", "last", note));
    li.setAttribute("aria-label", R.replay.names[i] + ", " + p.stack + " chips" + (note ? ", " + note : ""));
    return li;
  });
  $("#replay-seats").replaceChildren(...seats);
  $("#replay-board").replaceChildren(...h.board.map((c) => cardEl(c)));
  const pots = potsOf(h);
  $("#replay-pot").textContent = pots.some((x) => x > 0) ? "Pot " + pots.join(" + ") : "";
  $("#replay-line").textContent = R.at === 0 ? "The deal: press \u25B6 to step through." : lines[lines.length - 1] || "";
  $("#replay-pos").textContent = "Step " + R.at + " of " + (R.stops.length - 1);
  $("#replay-back").disabled = $("#replay-start").disabled = R.at === 0;
  $("#replay-next").disabled = $("#replay-end").disabled = last;
  if (last) stopReplay();
}

export function wireReplay() {
  const go = (at) => { R.at = Math.max(0, Math.min(R.stops.length - 1, at)); drawReplay(); };
  $("#replay-start").onclick = () => { stopReplay(); go(0); };
  $("#replay-back").onclick = () => { stopReplay(); go(R.at - 1); };
  $("#replay-next").onclick = () => { stopReplay(); go(R.at + 1); };
  $("#replay-end").onclick = () => { stopReplay(); go(R.stops.length - 1); };
  $("#replay-play").onclick = () => {
    if (R.timer) { stopReplay(); return; }
    if (R.at >= R.stops.length - 1) R.at = 0;
    $("#replay-play").textContent = "Pause";
    R.timer = setInterval(() => go(R.at + 1), 700);
  };
  $("#history-dialog").addEventListener("close", stopReplay);
}

const KEYS = ["fourColor", "sound", "animations", "notify", "autoMuck"];

export function openSettings(S) {
  for (const k of KEYS) $("#set-" + k).checked = !!S.settings[k];
  // A guest account made in this browser (a private game's friend): its way back on
  // another device (private.js, `returnLink`).
  const guest = !!(S.me && localStorage.getItem("pokerd.guest." + S.me.name));
  $("#set-device").classList.toggle("hidden", !guest);
  $("#set-device-link").value = "";
  $("#set-muted").textContent = S.settings.muted.length
    ? "Muted in chat: " + S.settings.muted.length + " player(s). Click a name in the chat to mute or unmute." : "Click a name in the chat to mute that player.";
  $("#settings-dialog").showModal();
}

/** Wires the settings' boxes: `changed(key, value)` saves and applies one. */
export function wireSettings(S, changed) {
  for (const k of KEYS) {
    $("#set-" + k).addEventListener("change", async (e) => {
      const on = e.target.checked;
      if (k === "notify" && on && "Notification" in window && Notification.permission === "default") {
        try { await Notification.requestPermission(); } catch (_) { /* declined */ }
      }
      changed(k, on);
    });
  }
}
