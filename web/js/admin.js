// The operators' console at /admin: plain ES module, no build step. It signs in with the
// admin token or a staff account (POST /admin/login) and drives the admin API: tables
// (create from presets with every rule editable, clone, close, a live view), players
// (search by name, then everything by id: money with idempotency keys, ledger, lock, a
// one-time reset code, a password set directly by admins, their hands), hands (by table,
// player and date, as PokerStars text or PHH, downloadable), the room (ledger audit, rake
// per day and table, metrics), fair play (same-address pairs with the hands they played
// together, the collusion report, sortable, each row opening its hands), staff (roles, disable and enable, new password, sign out)
// and the audit log. A player appears everywhere as their name beside a short id, never
// by name alone: a name can read like somebody else's id. A new table is made with a
// form (web/js/table_form.js: each rule a field with what it means, checked as the server
// checks it, the server's problems shown on their fields) or, in "Advanced: JSON", as the
// request body; the audit log reads in words (web/js/audit_text.js). Every list a change
// touches is read again after it; every list scrolls inside its own box on a narrow screen.

import { GROUPS, FIELDS, valuesFrom, bodyFrom, check, fieldFor, shown as fieldShown } from "./table_form.js";
import { describe, actorText, accountText, chips } from "./audit_text.js";

const $ = (sel) => document.querySelector(sel);
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};
const C = { token: sessionStorage.getItem("pokerd.admin"), role: null, actor: null, section: "tables", live: null };
window.pokerdConsole = C;

async function api(method, path, body) {
  const r = await fetch(path, {
    method,
    headers: { authorization: "Bearer " + C.token, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const type = r.headers.get("content-type") || "";
  const data = type.includes("json") ? await r.json() : await r.text();
  if (r.status === 401 && C.role) {
    // The session ended under us: signed out elsewhere, disabled, or idle too long.
    ended("Your session has ended (signed out, disabled or idle too long): sign in again.");
  }
  if (!r.ok) {
    const err = new Error((data && data.message) || r.statusText);
    err.code = data && data.error; err.status = r.status;
    err.problems = (data && data.problems) || [];
    throw err;
  }
  return data;
}

let noticeTimer = null;
function notice(text, bad = false) {
  const n = $("#notice");
  n.textContent = text;
  n.classList.toggle("bad", bad);
  n.classList.remove("hidden");
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => n.classList.add("hidden"), 5000);
}
const fail = (e) => notice(e.message, true);
const when = (ms) => ms ? new Date(ms).toISOString().replace("T", " ").slice(0, 19) : "";
const key = (what) => what + "-" + Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 8);

function row(cells, ...buttons) {
  const tr = el("tr");
  for (const c of cells) tr.append(el("td", "", String(c ?? "")));
  const td = el("td", "row-actions");
  for (const b of buttons) td.append(b);
  tr.append(td);
  return tr;
}
// A player (or staff member) as shown everywhere: the name beside the first 8 digits of
// the id (the whole id on hover), and a warning when the name itself reads as an id.
const shortId = (id) => String(id || "").replace(/-/g, "").slice(0, 8);
function who(name, id, likeId = false) {
  const span = el("span", "who");
  span.append(el("span", "name", name), " ", el("code", "id", shortId(id)));
  span.querySelector("code").title = id;
  if (likeId) span.append(" ", el("span", "warn", "name reads as an id"));
  return span;
}
const whoText = (name, id) => `${name} \u00b7 ${shortId(id)}`;

function cellRow(cells, ...buttons) {
  const tr = el("tr");
  for (const c of cells) {
    const td = el("td");
    if (c instanceof Node) td.append(c); else td.textContent = String(c ?? "");
    tr.append(td);
  }
  const td = el("td", "row-actions");
  for (const b of buttons) td.append(b);
  tr.append(td);
  return tr;
}

function button(text, onclick, cls = "") {
  const b = el("button", cls, text);
  b.type = "button";
  b.onclick = onclick;
  return b;
}

// ---------------------------------------------------------------- signing in

async function signedIn() {
  try {
    const me = await api("GET", "/admin/whoami");
    C.role = me.role; C.actor = me.actor;
  } catch (e) {
    C.token = null; sessionStorage.removeItem("pokerd.admin");
    $("#sign-in-error").textContent = e.status === 401 ? "That token or session is not valid." : e.message;
    return;
  }
  sessionStorage.setItem("pokerd.admin", C.token);
  $("#who").textContent = C.actor === "token" ? "admin (token)" : C.actor.replace("staff:", "") + " \u00b7 " + C.role;
  $("#sign-in").classList.add("hidden");
  $("#sections").classList.remove("hidden");
  $("#sign-out").classList.remove("hidden");
  $("#sections [data-section=staff]").classList.toggle("hidden", C.role !== "admin");
  // Only an admin sets a player's password directly; the floor issues reset codes.
  $("#password-row").classList.toggle("hidden", C.role !== "admin");
  $("#reset-code").classList.toggle("hidden", C.role === "cashier");
  show(C.section);
}

function ended(why) {
  C.token = null; C.role = null; C.actor = null;
  sessionStorage.removeItem("pokerd.admin");
  clearInterval(C.live);
  for (const s of document.querySelectorAll(".section")) s.classList.add("hidden");
  $("#sections").classList.add("hidden");
  $("#sign-out").classList.add("hidden");
  $("#who").textContent = "";
  $("#sign-in").classList.remove("hidden");
  $("#sign-in-error").textContent = why;
}

$("#token-form").addEventListener("submit", (e) => {
  e.preventDefault();
  C.token = $("#token").value.trim();
  signedIn();
});
$("#staff-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const r = await fetch("/admin/login", {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: $("#staff-name").value, password: $("#staff-password").value }),
  });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) { $("#sign-in-error").textContent = body.message || "Refused"; return; }
  C.token = body.token;
  signedIn();
});
$("#sign-out").addEventListener("click", async () => {
  // A staff session ends on the server too.
  if (C.actor && C.actor.startsWith("staff:")) await fetch("/admin/logout", { method: "POST", headers: { authorization: "Bearer " + C.token } }).catch(() => {});
  C.token = null; C.role = null;
  sessionStorage.removeItem("pokerd.admin");
  location.reload();
});

function show(section) {
  C.section = section;
  for (const s of document.querySelectorAll(".section")) s.classList.toggle("hidden", s.id !== section);
  for (const b of document.querySelectorAll("#sections button")) {
    if (b.dataset.section === section) b.setAttribute("aria-current", "page"); else b.removeAttribute("aria-current");
  }
  clearInterval(C.live);
  ({ tables: loadTables, players: searchPlayers, hands: loadHandTables, room: loadRoom, fairplay: loadFairPlay, staff: loadStaff, audit: loadAudit })[section]();
}
for (const b of document.querySelectorAll("#sections button")) b.addEventListener("click", () => show(b.dataset.section));

// ---------------------------------------------------------------- tables

let presets = [];

async function loadTables() {
  try {
    const tables = await api("GET", "/admin/tables");
    const body = $("#table-list tbody");
    body.replaceChildren(...tables.map((t) => {
      const r = t.rules || {};
      const stakes = r.structure === "fixed_limit" || (r.stakes && r.stakes.bring_in) ? `${r.stakes.small_bet}/${r.stakes.big_bet}` : `${r.small_blind}/${r.big_blind}`;
      const open = t.status !== "closed";
      return row([t.name, `${choiceText("rules.game", r.game)} \u00b7 ${choiceText("rules.structure", r.structure)}`, stakes, `${t.seats.length}/${r.seat_count}`, t.status],
        ...(open ? [button("View", () => liveView(t.table_id))] : []),
        button("Clone", () => cloneTable(t)),
        ...(open ? [button("Close", () => closeTable(t), "danger")] : []));
    }));
    tableNames = new Map(tables.map((t) => [t.table_id, t.name]));
    if (!presets.length) {
      presets = await api("GET", "/admin/presets");
      $("#preset").replaceChildren(...presets.map((p) => { const o = el("option", "", p.body.name); o.value = p.key; return o; }));
      buildTableForm();
      choosePreset();
    }
  } catch (e) { fail(e); }
}

// ---------------------------------------------------------------- the new-table form

/// A choice of the form (a game, a structure) in words, as the form offers it.
function choiceText(id, value) {
  const choice = (FIELDS.get(id).options || []).find(([k]) => k === value);
  return choice ? choice[1] : String(value ?? "");
}

// The body the form started from (a preset, or the JSON loaded): what the form does not
// show is kept from it.
let formBase = null;
const inputId = (id) => "f-" + id.replace(/\./g, "-");
const fieldBox = (id) => document.querySelector(`#table-fields [data-field="${id}"]`);

/// The form's fields, in groups, each with its explanation and a place for its problem.
function buildTableForm() {
  $("#table-fields").replaceChildren(...GROUPS.map((g) => {
    const set = el("fieldset");
    set.append(el("legend", "", g.title));
    for (const f of g.fields) {
      const box = el("div", "field" + (f.kind === "check" ? " check" : ""));
      box.dataset.field = f.id;
      const id = inputId(f.id);
      let input;
      if (f.kind === "select") {
        input = el("select");
        for (const [value, text] of f.options) { const o = el("option", "", text); o.value = value; input.append(o); }
      } else {
        input = el("input");
        input.type = f.kind === "check" ? "checkbox" : "text";
        if (f.kind === "number") { input.inputMode = f.step === "any" ? "decimal" : "numeric"; input.autocomplete = "off"; }
        if (f.id === "name") { input.maxLength = 64; input.autocomplete = "off"; }
      }
      input.id = id;
      input.name = f.id;
      const label = el("label", "", f.label + (f.optional ? " (optional)" : ""));
      label.htmlFor = id;
      const help = el("p", "help", f.help);
      help.id = id + "-help";
      const error = el("p", "field-error");
      error.id = id + "-error";
      input.setAttribute("aria-describedby", `${help.id} ${error.id}`);
      if (f.kind === "check") box.append(input, label, help, error); else box.append(label, input, help, error);
      set.append(box);
    }
    return set;
  }));
  $("#table-fields").addEventListener("input", (e) => { clearProblem(e.target.name); showFields(); });
  $("#table-fields").addEventListener("change", showFields);
}

function formValues() {
  const v = {};
  for (const f of FIELDS.values()) {
    const input = document.getElementById(inputId(f.id));
    v[f.id] = f.kind === "check" ? input.checked : input.value;
  }
  return v;
}

function setFormValues(v) {
  for (const f of FIELDS.values()) {
    const input = document.getElementById(inputId(f.id));
    if (f.kind === "check") input.checked = Boolean(v[f.id]); else input.value = v[f.id] ?? "";
  }
  showFields();
}

/// Shows the fields that apply to the game and structure chosen, hides the others.
function showFields() {
  const v = formValues();
  for (const f of FIELDS.values()) fieldBox(f.id).classList.toggle("hidden", !fieldShown(f, v));
}

function clearProblem(id) {
  const box = id && fieldBox(id);
  if (!box) return;
  box.classList.remove("invalid");
  box.querySelector(".field-error").textContent = "";
  document.getElementById(inputId(id)).removeAttribute("aria-invalid");
}

/// Shows each problem on its field (or, when no field shown is to blame, under the form)
/// and moves the focus to the first field with a problem.
function showProblems(problems) {
  for (const f of FIELDS.values()) clearProblem(f.id);
  const list = $("#table-problems");
  list.replaceChildren();
  const v = formValues();
  let first = null;
  for (const p of problems) {
    const id = fieldFor(p.field, v);
    if (!id) { list.append(el("li", "", p.field ? `${p.field}: ${p.message}` : p.message)); continue; }
    const box = fieldBox(id);
    const error = box.querySelector(".field-error");
    error.textContent = error.textContent ? error.textContent + "; " + p.message : p.message;
    box.classList.add("invalid");
    const input = document.getElementById(inputId(id));
    input.setAttribute("aria-invalid", "true");
    first = first || input;
  }
  if (first) first.focus();
}

function choosePreset() {
  const p = presets.find((x) => x.key === $("#preset").value) || presets[0];
  if (!p) return;
  formBase = p.body;
  setFormValues(valuesFrom(p.body));
  showProblems([]);
  if ($("#table-json").open) $("#table-body").value = JSON.stringify(p.body, null, 2);
}
$("#preset").addEventListener("change", choosePreset);
$("#refresh-tables").addEventListener("click", loadTables);

/// Sends a create-table body. The server's problems go on their fields when the form
/// made the body, and are listed under the JSON (each with its field's path) when the
/// JSON did: the form's fields do not hold that body.
async function createTable(body, fromJson = false) {
  $("#json-problems").replaceChildren();
  try {
    const t = await api("POST", "/admin/tables", body);
    showProblems([]);
    notice("Table opened: " + body.name);
    await loadTables();
    liveView(t.table_id);
  } catch (e) {
    // Every problem at once (a refusal without fields, such as a role's: one per line).
    const problems = e.problems.length ? e.problems : e.message.split("; ").map((m) => ({ field: "", message: m }));
    if (!fromJson) { showProblems(problems); return; }
    showProblems([]);
    $("#json-problems").replaceChildren(...problems.map((p) => el("li", "", p.field ? `${p.field}: ${p.message}` : p.message)));
  }
}

$("#table-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const { body, problems } = bodyFrom(formValues(), formBase);
  const all = [...problems, ...check(body).filter((p) => !problems.some((q) => q.field === p.field))];
  if (all.length) { showProblems(all); return; }
  await createTable(body);
});

$("#table-json").addEventListener("toggle", () => {
  if ($("#table-json").open) $("#table-body").value = JSON.stringify(bodyFrom(formValues(), formBase).body, null, 2);
});
function jsonBody() {
  try { return JSON.parse($("#table-body").value); } catch (e) {
    $("#json-problems").replaceChildren(el("li", "", "not valid JSON: " + e.message));
    return null;
  }
}
$("#json-to-form").addEventListener("click", () => {
  const body = jsonBody();
  if (!body) return;
  formBase = body;
  setFormValues(valuesFrom(body));
  showProblems([]);
  $("#json-problems").replaceChildren();
});
$("#create-json").addEventListener("click", async () => {
  const body = jsonBody();
  if (body) await createTable(body, true);
});

/**
 * The page's own question (a native confirm() or prompt() would stop every page of the
 * room in this browser until answered): resolves with true or false, or, with `input`
 * (the field's label), with the text typed or null when cancelled.
 */
function ask(question, { yes = "Yes", input = null, value = "", type = "text" } = {}) {
  return new Promise((resolve) => {
    const d = $("#ask-dialog");
    const box = $("#ask-input");
    $("#ask-text").textContent = question;
    $("#ask-yes").textContent = yes;
    $("#ask-input-row").classList.toggle("hidden", input === null);
    $("#ask-input-label").textContent = input || "";
    box.type = type;
    box.value = value;
    d.returnValue = "";
    d.addEventListener("close", () => {
      const ok = d.returnValue === "yes";
      resolve(input === null ? ok : ok ? box.value : null);
    }, { once: true });
    d.showModal();
    if (input !== null) box.select();
  });
}

async function cloneTable(t) {
  const name = await ask("Clone " + t.name + ": a new table with the same rules.", { yes: "Clone", input: "Name of the new table", value: t.name + " (2)" });
  if (name === null) return;
  try { await api("POST", `/admin/tables/${t.table_id}/clone`, { name }); notice("Cloned as " + name); loadTables(); } catch (e) { fail(e); }
}

async function closeTable(t) {
  if (!(await ask(`Close ${t.name}? The hand in progress finishes and everyone is cashed out.`, { yes: "Close the table" }))) return;
  try { const r = await api("POST", `/admin/tables/${t.table_id}/close`); notice(`${t.name} closed; ${r.cashed_out} chips back in the wallets`); loadTables(); } catch (e) { fail(e); }
}

async function liveView(id) {
  clearInterval(C.live);
  const panel = $("#table-live");
  panel.classList.remove("hidden");
  const draw = async () => {
    try {
      const v = await api("GET", `/admin/tables/${id}`);
      const t = v.table;
      panel.replaceChildren(
        el("h3", "", `${t.name} \u00b7 ${t.game || ""} ${t.stakes || ""} \u00b7 ${v.status}`),
        el("p", "muted", v.hand ? `Hand #${v.hand.number} in progress \u00b7 board ${v.hand.board || "(none yet)"} \u00b7 pot ${v.hand.pot}` +
          (v.clock ? ` \u00b7 seat ${v.clock.seat + 1} to act, ${Math.ceil(v.clock.remaining_ms / 1000)} s${v.clock.in_time_bank ? " (time bank)" : ""}` : "") +
          ` \u00b7 ${v.hands_dealt} dealt` : `Between hands \u00b7 ${v.hands_dealt || 0} dealt`),
      );
      const list = el("table", "list");
      list.append(el("thead"));
      list.tHead.append(row(["Seat", "Player", "Stack", "State"]));
      const tb = el("tbody");
      for (const s of t.seats) {
        const inHand = v.hand && v.hand.in_hand.includes(s.seat);
        const toAct = v.clock && v.clock.seat === s.seat;
        tb.append(cellRow([s.seat + 1, who(s.name, s.player_id), s.stack, [s.sitting_out ? "sitting out" : inHand ? "in the hand" : "playing", toAct ? "to act" : "", s.leaving ? "leaving" : "", s.pending_top_up ? `+${s.pending_top_up} after the hand` : ""].filter(Boolean).join(", ")]));
      }
      list.append(tb);
      panel.append(list);
      boxed(list, `Seats at ${t.name}`);
      if (v.status === "closed") clearInterval(C.live);
    } catch (e) { clearInterval(C.live); fail(e); }
  };
  await draw();
  C.live = setInterval(draw, 2000);
}

// ---------------------------------------------------------------- players

let player = null;

async function searchPlayers(e) {
  if (e && e.preventDefault) e.preventDefault();
  try {
    const q = $("#player-q").value.trim();
    const list = await api("GET", "/admin/players" + (q ? "?q=" + encodeURIComponent(q) : ""));
    $("#player-list tbody").replaceChildren(...list.map((p) =>
      cellRow([who(p.name, p.player_id, p.name_like_id), chips(p.balance), [p.locked ? "locked" : "", p.bot ? "house bot" : ""].filter(Boolean).join(", ") || "active"],
        button("Open", () => openPlayer(p.player_id)))));
  } catch (err) { fail(err); }
}
$("#player-search").addEventListener("submit", searchPlayers);

// A player is always opened, and acted on, by id.
async function openPlayer(id) {
  try {
    const p = await api("GET", "/admin/players/" + encodeURIComponent(id));
    if (!player || player.player_id !== p.player_id) { $("#code-shown").classList.add("hidden"); $("#code-shown").replaceChildren(); }
    player = p;
    $("#player-detail").classList.remove("hidden");
    $("#player-name").replaceChildren(who(p.name, p.player_id, p.name_like_id));
    const seats = (p.seats || []).map((s) => `${s.table_name || s.table_id}: ${s.stack}`).join(", ");
    $("#player-summary").textContent = `Wallet ${p.balance}` + (seats ? ` \u00b7 seated: ${seats}` : " \u00b7 not seated") + (p.locked ? " \u00b7 locked" : "");
    $("#lock").textContent = p.locked ? "Unlock" : "Lock";
    $("#money-form").dataset.key = key("money");
    const ledger = await api("GET", `/admin/players/${p.player_id}/ledger`);
    $("#ledger tbody").replaceChildren(...ledger.slice(0, 50).map((l) => {
      const tr = el("tr");
      const amount = el("td", "num", (l.amount > 0 ? "+" : "") + chips(l.amount));
      for (const c of [when(l.created_at), accountText(l)]) tr.append(el("td", "", c));
      tr.append(amount, el("td", "", l.kind.replace(/_/g, " ")), el("td", "", reference(l)));
      return tr;
    }));
  } catch (e) { fail(e); }
}

// A ledger line's reference in words: a hand by its number at its table when the hand
// is one the console listed, an idempotency key as it is.
function reference(l) {
  if (!l.reference) return "";
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-/i.test(l.reference)) return "hand " + l.reference.slice(0, 8);
  return "key " + l.reference;
}

async function money(kind) {
  const amount = parseInt($("#money-amount").value, 10);
  if (!player || !(amount > 0)) { notice("Enter an amount", true); return; }
  const form = $("#money-form");
  try {
    // One key per intent: a double click or a retry applies once.
    const r = await api("POST", `/admin/players/${player.player_id}/${kind}`, { amount, idempotency_key: form.dataset.key });
    notice(`${kind === "deposit" ? "Deposited" : "Withdrew"} ${chips(amount)} for ${whoText(player.name, player.player_id)}: wallet ${chips(r.balance)}`);
    $("#money-amount").value = "";
    // The player's wallet, ledger and the list's wallet column, read again (a new key for
    // the next intent comes with the player).
    await Promise.all([openPlayer(player.player_id), searchPlayers()]);
  } catch (e) { fail(e); }
}
$("#deposit").addEventListener("click", () => money("deposit"));
$("#withdraw").addEventListener("click", () => money("withdraw"));
$("#lock").addEventListener("click", async () => {
  if (!player) return;
  try { await api("POST", `/admin/players/${player.player_id}/lock`, { locked: !player.locked }); notice(player.locked ? "Unlocked" : "Locked: their sessions ended"); openPlayer(player.player_id); searchPlayers(); } catch (e) { fail(e); }
});
$("#reset-code").addEventListener("click", async () => {
  if (!player) return;
  if (!(await ask(`Issue a password reset code for ${whoText(player.name, player.player_id)}? Give it to the player only: it is shown once.`, { yes: "Issue a code" }))) return;
  try {
    const r = await api("POST", `/admin/players/${player.player_id}/reset-code`);
    // Shown once, here: the server keeps only its hash.
    const box = $("#code-shown");
    box.replaceChildren(
      el("span", "", "Reset code for "), who(player.name, player.player_id), el("span", "", ": "),
      el("code", "reset-code", r.code),
      el("span", "muted", ` \u00b7 works once, until ${when(r.expires_at)} UTC, at the player page's \u201cReset code\u201d. Their password and sessions stand until then.`));
    box.classList.remove("hidden");
  } catch (e) { fail(e); }
});
$("#set-password").addEventListener("click", async () => {
  if (!player) return;
  try { await api("POST", `/admin/players/${player.player_id}/password`, { password: $("#new-password").value }); $("#new-password").value = ""; notice("Password set; their sessions ended"); } catch (e) { fail(e); }
});
$("#player-hands").addEventListener("click", () => {
  if (!player) return;
  choosePlayers([player]);
  $("#hand-table").value = "";
  show("hands");
  findHands();
});

// ---------------------------------------------------------------- hands

let tableNames = new Map();

async function loadHandTables() {
  try {
    const tables = await api("GET", "/admin/tables");
    tableNames = new Map(tables.map((t) => [t.table_id, t.name]));
    const sel = $("#hand-table");
    const keep = sel.value;
    sel.replaceChildren(el("option", "", "(any)"), ...tables.map((t) => { const o = el("option", "", t.name); o.value = t.table_id; return o; }));
    sel.options[0].value = "";
    sel.value = keep;
  } catch (e) { fail(e); }
}

// The players a name search found, to choose one from (by id).
function choosePlayers(list) {
  const sel = $("#hand-player-id");
  sel.replaceChildren(el("option", "", "(any)"), ...list.map((p) => { const o = el("option", "", whoText(p.name, p.player_id)); o.value = p.player_id; return o; }));
  sel.options[0].value = "";
  if (list.length === 1) sel.value = list[0].player_id;
}
$("#hand-player").addEventListener("change", async () => {
  const q = $("#hand-player").value.trim();
  try { choosePlayers(q ? await api("GET", "/admin/players?q=" + encodeURIComponent(q)) : []); } catch (e) { fail(e); }
});

async function findHands(e) {
  if (e && e.preventDefault) e.preventDefault();
  try {
    let hands = [];
    const id = $("#hand-player-id").value;
    if (id) {
      hands = await api("GET", `/admin/players/${id}/hands?limit=500`);
      if ($("#hand-table").value) hands = hands.filter((h) => h.table_id === $("#hand-table").value);
    } else if ($("#hand-table").value) {
      hands = await api("GET", `/admin/tables/${$("#hand-table").value}/hands?limit=500`);
    } else {
      notice("Choose a table or a player", true);
      return;
    }
    const from = $("#hand-from").value ? Date.parse($("#hand-from").value) : -Infinity;
    const to = $("#hand-to").value ? Date.parse($("#hand-to").value) + 86_400_000 : Infinity;
    hands = hands.filter((h) => h.started_at >= from && h.started_at < to);
    $("#hand-list tbody").replaceChildren(...hands.map((h) =>
      row([`#${h.number}`, tableNames.get(h.table_id) || h.table_id, when(h.started_at), h.status],
        ...(h.status === "complete" ? [button("View", () => viewHand(h, "pokerstars"))] : []))));
    if (!hands.length) notice("No hands found");
  } catch (err) { fail(err); }
}
$("#hand-search").addEventListener("submit", findHands);

let shown = null;
async function viewHand(h, format) {
  shown = h;
  try {
    const text = await api("GET", `/admin/hands/${h.hand_id}?format=${format}`);
    $("#hand-view").classList.remove("hidden");
    $("#hand-title").textContent = `${tableNames.get(h.table_id) || ""} hand #${h.number} (${format === "phh" ? "PHH" : "PokerStars"})`;
    $("#hand-text").textContent = text;
    const a = $("#download");
    if (a.href) URL.revokeObjectURL(a.href);
    a.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
    a.download = `hand-${h.number}-${h.hand_id.slice(0, 8)}.${format === "phh" ? "phh" : "txt"}`;
  } catch (e) { fail(e); }
}
$("#show-stars").addEventListener("click", () => shown && viewHand(shown, "pokerstars"));
$("#show-phh").addEventListener("click", () => shown && viewHand(shown, "phh"));

// ---------------------------------------------------------------- the room

function figures(dl, pairs) {
  dl.replaceChildren(...pairs.flatMap(([k, v]) => [el("dt", "", k), el("dd", "", String(v))]));
}

async function loadRoom() {
  try {
    const audit = await api("GET", "/admin/audit");
    const holds = audit.wallets + audit.stacks + audit.rake === audit.deposits - audit.withdrawals &&
      audit.unbalanced_movements === 0 && audit.mismatched_accounts.length === 0;
    $("#audit-status").textContent = holds ? "\u2714 The books balance: wallets + stacks + rake = deposits \u2212 withdrawals." : "\u2718 The books do not balance: see the figures.";
    $("#audit-status").className = holds ? "ok" : "error";
    figures($("#audit-figures"), [["Wallets", audit.wallets], ["On the tables", audit.stacks], ["Rake", audit.rake], ["Deposits", audit.deposits], ["Withdrawals", audit.withdrawals]]);
    const text = await (await fetch("/metrics")).text();
    const metric = (name) => { const m = text.match(new RegExp("^" + name + "(?:\\{[^}]*\\})? (\\S+)$", "m")); return m ? Number(m[1]) : "\u2013"; };
    figures($("#metrics"), [["Tables", metric("poker_tables")], ["Players seated", metric("poker_seated_players")], ["Hands dealt", metric("poker_hands_total")], ["Connections", metric("poker_connections")]]);
    const rake = await api("GET", "/admin/rake?days=30");
    $("#rake tbody").replaceChildren(...rake.rows.map((r) => {
      const tr = el("tr");
      for (const c of [r.day, r.table_name, r.hands, r.rake]) tr.append(el("td", "", String(c)));
      return tr;
    }), (() => { const tr = el("tr", "total"); for (const c of ["Total", "", "", rake.total]) tr.append(el("td", "", String(c))); return tr; })());
  } catch (e) { fail(e); }
}
$("#refresh-room").addEventListener("click", loadRoom);

// ---------------------------------------------------------------- fair play

// A player as the console names one: the name beside a short id.
const named = (p) => `${p.name} (${p.player_id.slice(0, 8)})`;
const folds = (f) => `${f.folds} (${f.ahead} ahead)`;
C.pairSort = "folds_ahead";

async function loadFairPlay() {
  try {
    const [flags, tables] = await Promise.all([api("GET", "/admin/fair-play/flags"), api("GET", "/admin/tables")]);
    tableNames = new Map(tables.map((t) => [t.table_id, t.name]));
    $("#flag-list tbody").replaceChildren(...flags.map((f) =>
      row([when(f.at), f.table_name, named(f.player), named(f.other), f.address, f.hands.length],
        ...(f.hands.length ? [button("Hands", () => showHandList(`${f.player.name} and ${f.other.name} at ${f.table_name}`, f.hands.map((h) => ({ ...h })), f.player, f.other))] : []))));
    if (!flags.length) $("#flag-list tbody").append(row(["No pair flagged", "", "", "", "", ""]));
  } catch (e) { fail(e); }
  await loadPairs();
}
$("#refresh-fairplay").addEventListener("click", loadFairPlay);

function pairQuery() {
  const q = new URLSearchParams({ sort: C.pairSort, max_hands: $("#pair-max").value || "20000" });
  if ($("#pair-from").value) q.set("since", String(Date.parse($("#pair-from").value)));
  if ($("#pair-to").value) q.set("until", String(Date.parse($("#pair-to").value) + 86_400_000));
  return q;
}

async function loadPairs(e) {
  if (e && e.preventDefault) e.preventDefault();
  try {
    const q = pairQuery();
    const r = await api("GET", "/admin/fair-play/pairs?" + q);
    $("#pair-summary").textContent = `${r.hands} hands from ${when(r.oldest_started_at || r.since)} to ${when(r.until)}` +
      (r.complete ? "" : ` (the newest ${r.max_hands} of the window)`) + ` \u00b7 ${r.pairs_total} ${r.pairs_total === 1 ? "pair" : "pairs"}` +
      (r.unreadable ? ` \u00b7 ${r.unreadable} unreadable` : "");
    for (const th of document.querySelectorAll("#pair-list th[data-sort]")) {
      if (th.dataset.sort === C.pairSort) th.setAttribute("aria-sort", "descending"); else th.removeAttribute("aria-sort");
    }
    $("#pair-list tbody").replaceChildren(...r.pairs.map((p) => {
      const folded = p.a_folds_to_b.folds + p.b_folds_to_a.folds;
      const rate = folded ? Math.round((100 * p.folds_ahead) / folded) + "%" : "\u2013";
      const tr = row([`${named(p.a)} \u2190 ${named(p.b)}`, p.hands, p.net_chips,
        `${p.a.name}: ${folds(p.a_folds_to_b)}; ${p.b.name}: ${folds(p.b_folds_to_a)}`, p.folds_ahead, rate,
        p.shared_addresses.join(", ")],
        button("Hands", () => openPair(p, q)));
      if (p.shared_addresses.length) tr.classList.add("flagged");
      return tr;
    }));
  } catch (err) { fail(err); }
}
$("#pair-search").addEventListener("submit", loadPairs);
for (const th of document.querySelectorAll("#pair-list th[data-sort]")) {
  th.querySelector("button").addEventListener("click", () => { C.pairSort = th.dataset.sort; loadPairs(); });
}

async function openPair(p, q) {
  try {
    const w = new URLSearchParams({ limit: "500" });
    for (const k of ["since", "until"]) if (q.has(k)) w.set(k, q.get(k));
    const hands = await api("GET", `/admin/fair-play/pairs/${p.a.player_id}/${p.b.player_id}/hands?` + w);
    showHandList(`${named(p.a)} and ${named(p.b)}: ${hands.length} hands`, hands, p.a, p.b);
  } catch (e) { fail(e); }
}

// A pair's hands, each opened as PokerStars text below the list.
function showHandList(title, hands, a, b) {
  $("#pair-detail").classList.remove("hidden");
  $("#pair-title").textContent = title;
  $("#fp-hand-text").classList.add("hidden");
  $("#fp-hand-title").textContent = "";
  $("#pair-hands tbody").replaceChildren(...hands.map((h) => row([
    `#${h.number}`, h.table_name || tableNames.get(h.table_id) || h.table_id, when(h.started_at),
    h.net_chips === undefined ? "" : `${h.net_chips} to ${a.name}`,
    h.a_folds_to_b ? `${a.name}: ${folds(h.a_folds_to_b)}; ${b.name}: ${folds(h.b_folds_to_a)}` : ""],
    button("View", async () => {
      try {
        const text = await api("GET", `/admin/hands/${h.hand_id}?format=pokerstars`);
        $("#fp-hand-title").textContent = `Hand #${h.number}`;
        $("#fp-hand-text").textContent = text;
        $("#fp-hand-text").classList.remove("hidden");
      } catch (e) { fail(e); }
    }))));
}

// ---------------------------------------------------------------- staff and the audit log

async function loadStaff() {
  try {
    const staff = await api("GET", "/admin/staff");
    $("#staff-list tbody").replaceChildren(...staff.map((s) => {
      const role = el("select", "role");
      role.setAttribute("aria-label", "Role of " + s.name);
      for (const r of ["admin", "cashier", "floor"]) { const o = el("option", "", r); o.value = r; role.append(o); }
      role.value = s.role;
      role.addEventListener("change", () => staffDo(s, "role", { role: role.value }, `${s.name} is now ${role.value}`));
      const tr = cellRow([who(s.name, s.staff_id), role, s.disabled ? "disabled" : "enabled", when(s.created_at)],
        button(s.disabled ? "Enable" : "Disable", () => staffDo(s, "disable", { disabled: !s.disabled }, s.disabled ? `${s.name} enabled` : `${s.name} disabled: their sessions ended`), s.disabled ? "" : "danger"),
        button("New password", async () => {
          const password = await ask(`A new password for ${s.name}: their sessions end.`, { yes: "Set the password", input: "New password (8 to 256 characters)", type: "password" });
          if (password) staffDo(s, "password", { password }, `${s.name} has a new password`);
        }),
        button("Sign out", () => staffDo(s, "sign-out", undefined, null)));
      tr.dataset.staff = s.staff_id;
      tr.classList.toggle("disabled", s.disabled);
      return tr;
    }));
  } catch (e) { fail(e); }
}
async function staffDo(s, what, body, done) {
  try {
    const r = await api("POST", `/admin/staff/${s.staff_id}/${what}`, body);
    notice(done || `${s.name} signed out: ${r.sessions_ended} session(s) ended`);
  } catch (e) { fail(e); }
  loadStaff();
}
$("#staff-create").addEventListener("submit", async (e) => {
  e.preventDefault();
  try {
    await api("POST", "/admin/staff", { name: $("#new-staff-name").value, password: $("#new-staff-password").value, role: $("#new-staff-role").value });
    notice("Added " + $("#new-staff-name").value);
    $("#new-staff-name").value = ""; $("#new-staff-password").value = "";
    loadStaff();
  } catch (err) { fail(err); }
});

async function loadAudit() {
  try {
    const log = await api("GET", "/admin/audit-log?limit=200");
    $("#audit-log tbody").replaceChildren(...log.map((l) => {
      const tr = el("tr");
      tr.dataset.action = l.action;
      tr.append(el("td", "", when(l.at)), el("td", "", actorText(l)), el("td", "", describe(l)));
      return tr;
    }));
  } catch (e) { fail(e); }
}
$("#refresh-audit").addEventListener("click", loadAudit);

// ---------------------------------------------------------------- narrow screens

/// Puts a list in a box of its own that scrolls sideways when the list is wider than the
/// screen (a tablet held upright), so the page itself never does; the box is a region
/// the keyboard reaches, named after the heading above the list.
function boxed(table, label) {
  const box = el("div", "table-box");
  box.tabIndex = 0;
  box.setAttribute("role", "region");
  if (!label) {
    let h = table.previousElementSibling;
    while (h && !/^H[2-4]$/.test(h.tagName) && !h.classList.contains("section-head")) h = h.previousElementSibling;
    const heading = h ? (h.matches("h2, h3, h4") ? h : h.querySelector("h2")) : table.closest("section, .panel").querySelector("h2, h3");
    label = heading ? heading.textContent : table.id;
  }
  box.setAttribute("aria-label", label);
  table.replaceWith(box);
  box.append(table);
  return box;
}
for (const t of document.querySelectorAll("table.list")) boxed(t);

if (C.token) signedIn();
