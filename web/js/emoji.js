// The chat's emoji picker: a small grid of the emoji players use at a card table; a
// choice goes into the message at the caret.

export const EMOJI = ["😀", "😂", "😅", "😎", "🤔", "😬", "😱", "😭", "😡", "🙏", "👍", "👎",
  "👏", "🤝", "💪", "🔥", "💰", "🍀", "🎉", "☕", "🃏", "♠️", "♥️", "♦️", "♣️", "🐟", "🦈", "🚀"];

/** The text with `emoji` put in place of the selection from `start` to `end`, and where
 * the caret goes after it. */
export function insertAt(text, start, end, emoji) {
  const a = Math.max(0, Math.min(start, text.length));
  const b = Math.max(a, Math.min(end, text.length));
  return { text: text.slice(0, a) + emoji + text.slice(b), caret: a + emoji.length };
}

/** Builds the picker's buttons and wires its toggle. */
export function wireEmoji(doc) {
  const toggle = doc.querySelector("#emoji-toggle");
  const grid = doc.querySelector("#emoji-grid");
  const input = doc.querySelector("#chat-text");
  for (const e of EMOJI) {
    const b = doc.createElement("button");
    b.type = "button";
    b.textContent = e;
    b.setAttribute("aria-label", "Insert " + e);
    b.addEventListener("click", () => {
      const max = Number(input.maxLength) > 0 ? input.maxLength : 200;
      const next = insertAt(input.value, input.selectionStart ?? input.value.length, input.selectionEnd ?? input.value.length, e);
      if (next.text.length > max) return;
      input.value = next.text;
      input.focus();
      input.setSelectionRange(next.caret, next.caret);
    });
    grid.append(b);
  }
  const open = (on) => {
    grid.classList.toggle("hidden", !on);
    toggle.setAttribute("aria-expanded", String(on));
  };
  toggle.addEventListener("click", () => open(grid.classList.contains("hidden")));
  grid.addEventListener("keydown", (e) => { if (e.key === "Escape") { open(false); toggle.focus(); } });
  doc.querySelector("#chat-form").addEventListener("submit", () => open(false));
}
