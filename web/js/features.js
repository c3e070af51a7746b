// The features players expect beside the table itself, each in its own module: the
// light theme (theme.js), lobby filters (lobbyfilter.js), session stats and the history
// download (stats.js), player notes (notes.js), the chat's emoji (emoji.js) and chips
// that move (chips.js). main.js calls `wireFeatures` once and `afterRender` after each
// drawing; nothing here changes the state main.js keeps.

import { wireTheme } from "./theme.js";
import { filterLobby, wireLobbyFilter } from "./lobbyfilter.js";
import { showStats, wireDownload } from "./stats.js";
import { loadNotes, decorateSeats, wireNotes, forgetNotes } from "./notes.js";
import { wireEmoji } from "./emoji.js";
import { animateChips } from "./chips.js";

/** Wires every feature's controls; `redraw` draws the page again. */
export function wireFeatures(S, redraw) {
  wireTheme(window, localStorage);
  wireLobbyFilter(document, localStorage, redraw);
  wireDownload(document, S);
  wireNotes(document, S, redraw);
  wireEmoji(document);
  document.querySelector("#logout").addEventListener("click", forgetNotes);
}

/** What the features add to a drawing of the page. */
export function afterRender(S, redraw) {
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
