// The features players expect beside the table itself, each in its own module: the
// light theme (theme.js), lobby filters (lobbyfilter.js), session stats and the history
// download (stats.js), player notes (notes.js), the chat's emoji (emoji.js), chips
// that move (chips.js) and table tiling (tiling.js). main.js calls `wireFeatures` once and `afterRender` after each
// drawing; nothing here changes the state main.js keeps.

import { wireTheme } from "./theme.js";
import { filterLobby, wireLobbyFilter } from "./lobbyfilter.js";
import { showStats, wireDownload } from "./stats.js";
import { loadNotes, decorateSeats, wireNotes, forgetNotes } from "./notes.js";
import { wireEmoji } from "./emoji.js";
import { animateChips } from "./chips.js";
import { wireTiling, updateTiling } from "./tiling.js";

/** Wires every feature's controls; `redraw` draws the page again. */
export function wireFeatures(S, redraw) {
  wireTheme(window, localStorage);
  wireLobbyFilter(document, localStorage, redraw);
  wireDownload(document, S);
  wireNotes(document, S, redraw);
  wireEmoji(document);
  wireTiling(document, S, redraw);
  document.querySelector("#logout").addEventListener("click", forgetNotes);
}

/** What the features add to a drawing of the page. */
export function afterRender(S, redraw) {
  updateTiling(document, S);
  if (!S.me) return;
  loadNotes(S, redraw);
  if (S.view === "lobby") {
    filterLobby(document, localStorage, S.lobby);
    showStats(document, S);
  }
  const T = S.view === "table" ? S.tables.get(S.current) : null;
  if (T && T.table) {
    decorateSeats(document, S, T);
    animateChips(window, S, T);
  }
}
