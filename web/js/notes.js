// Player notes: the player's private notes on other players, kept by the server
// (`/api/me/notes`), shown on the player's seat (on hover or focus, and in its label)
// and written from a button on the seat.

import { api } from "./dialogs.js";

let notes = null; // player id -> note text, once loaded
let editing = null; // { id, name } of the note being written

/** Loads the notes once per sign-in. */
export async function loadNotes(S, redraw) {
  if (notes || !S.token) return;
  notes = new Map();
  try {
    for (const n of await api(S, "/api/me/notes")) notes.set(n.player_id, n.note);
  } catch (_) { notes = null; return; }
  redraw();
}

/** Forgets the notes (signed out). */
export function forgetNotes() { notes = null; }

/** The note on a player, or "". */
export function noteOn(id) { return (notes && notes.get(id)) || ""; }

/**
 * Puts a note button on every other player's seat, and their note when there is one. The
 * seats are kept across drawings (views.js), so what is already there is brought up to
 * date, not added again: a note button with the focus keeps it.
 */
export function decorateSeats(doc, S, T) {
  if (!T || !T.table || !S.me) return;
  for (const d of doc.querySelectorAll("#seats .seat")) {
    const view = d.classList.contains("empty") ? null : T.table.seats.find((x) => String(x.seat) === d.dataset.seat);
    let b = d.querySelector(":scope > .note-btn");
    let t = d.querySelector(":scope > .note-text");
    if (!view || view.player_id === S.me.player_id) {
      if (b) b.remove();
      if (t) t.remove();
      d.classList.remove("has-note");
      continue;
    }
    const note = noteOn(view.player_id);
    if (!b) {
      b = doc.createElement("button");
      b.type = "button";
      b.className = "note-btn";
      b.addEventListener("click", (e) => { e.stopPropagation(); openNote(doc, b.dataset.player, b.dataset.name); });
      d.append(b);
    }
    b.dataset.player = view.player_id;
    b.dataset.name = view.name;
    const label = (note ? "Edit your note on " : "Write a note on ") + view.name;
    if (b.getAttribute("aria-label") !== label) {
      b.textContent = note ? "\u270e" : "+";
      b.setAttribute("aria-label", label);
    }
    const title = note ? "Your note: " + note : "Write a note on " + view.name;
    if (b.title !== title) b.title = title;
    d.classList.toggle("has-note", !!note);
    if (!note) { if (t) t.remove(); continue; }
    if (!t) {
      t = doc.createElement("div");
      t.className = "note-text";
      d.append(t);
    }
    if (t.textContent !== note) t.textContent = note;
    d.setAttribute("aria-label", d.getAttribute("aria-label") + ". Your note: " + note);
  }
}

function openNote(doc, id, name) {
  editing = { id, name };
  doc.querySelector("#note-title").textContent = "Your note on " + name;
  doc.querySelector("#note-input").value = noteOn(id);
  doc.querySelector("#note-error").textContent = "";
  doc.querySelector("#note-dialog").showModal();
}

/** Wires the note dialog: saving writes the note to the server. */
export function wireNotes(doc, S, redraw) {
  doc.querySelector("#note-form").addEventListener("submit", async (e) => {
    if (e.submitter && e.submitter.value !== "save") return;
    e.preventDefault();
    const text = doc.querySelector("#note-input").value;
    const r = await fetch("/api/me/notes/" + editing.id, {
      method: "POST",
      headers: { authorization: "Bearer " + S.token, "content-type": "application/json" },
      body: JSON.stringify({ note: text }),
    });
    const body = await r.json().catch(() => ({}));
    if (!r.ok) { doc.querySelector("#note-error").textContent = body.message || r.statusText; return; }
    if (!notes) notes = new Map();
    if (body.note) notes.set(editing.id, body.note); else notes.delete(editing.id);
    doc.querySelector("#note-dialog").close();
    redraw();
  });
}
