// Chips that move: at the end of a betting round the bets slide into the pot, and at the
// end of the hand the pot slides to each winner. What moved is worked out from two
// drawings of the same hand (`chipMoves`, pure); the slide is a chip drawn over the
// page for half a second. Nothing moves when the player turned animations off or asks
// the system for reduced motion.

/** What the drawing of one hand shows of chips: each seat's bet and winnings. */
export function chipState(hand) {
  if (!hand) return null;
  const bets = {};
  const won = {};
  for (const p of hand.players) {
    if (p.bet > 0) bets[p.seat] = p.bet;
    if (p.won > 0) won[p.seat] = p.won;
  }
  return { hand: hand.number, ended: !!hand.ended, bets, won };
}

/** The chips that moved between two drawings: bets gone from a seat went to the pot;
 * winnings new to a seat came from it. Nothing between different hands. */
export function chipMoves(prev, next) {
  if (!prev || !next || prev.hand !== next.hand) return [];
  const moves = [];
  for (const [seat, amount] of Object.entries(prev.bets)) {
    if (!(next.bets[seat] > 0)) moves.push({ from: Number(seat), to: "pot", amount });
  }
  for (const [seat, amount] of Object.entries(next.won)) {
    if (!(prev.won[seat] > 0)) moves.push({ from: "pot", to: Number(seat), amount });
  }
  return moves;
}

const last = new Map(); // table id -> the chip state last drawn
let moved = 0;
let reduced = null; // the system's reduced-motion query, asked once

function centre(doc, where) {
  const e = where === "pot" ? doc.querySelector("#pots") : doc.querySelector('#seats .seat[data-seat="' + where + '"]');
  if (!e) return null;
  const r = e.getBoundingClientRect();
  return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
}

/** Slides the chips that moved since the table was last drawn. */
export function animateChips(win, S, T) {
  const next = chipState(T.hand);
  const moves = chipMoves(last.get(T.id), next);
  last.set(T.id, next);
  reduced = reduced || win.matchMedia("(prefers-reduced-motion: reduce)");
  const still = !S.settings.animations || reduced.matches;
  if (still || !moves.length) return;
  const doc = win.document;
  for (const m of moves) {
    const a = centre(doc, m.from);
    const b = centre(doc, m.to);
    if (!a || !b) continue;
    const chip = doc.createElement("div");
    chip.className = "chip-fly";
    chip.setAttribute("aria-hidden", "true");
    chip.textContent = String(m.amount);
    chip.style.left = a.x + "px";
    chip.style.top = a.y + "px";
    doc.body.append(chip);
    moved++;
    doc.body.dataset.chipMoves = String(moved);
    // Next frame: slide to the target, then go.
    win.requestAnimationFrame(() => {
      chip.style.transform = "translate(" + (b.x - a.x) + "px, " + (b.y - a.y) + "px)";
      chip.style.opacity = "0.2";
    });
    win.setTimeout(() => chip.remove(), 700);
  }
}
