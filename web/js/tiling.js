// Table tiling for multi-tablers: two tables side by side, or three or four in a two by
// two grid, in one page. The page draws one table at a time (the tabs switch between
// them), so each tile is the page itself in a frame, opened on one table
// (`/?tile=TABLE_ID`): it signs in with the same session, follows that table and shows
// no top bar or tabs. The server lets the page frame itself only.

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The table a tile shows, from the page's query (`?tile=ID`), or null. */
export function tileParam(search) {
  const id = new URLSearchParams(search).get("tile");
  return id && ID.test(id) ? id : null;
}

/** The tables to tile: those the player sits at or watches, the current one first, at
 * most four. */
export function tileTables(tables, current) {
  const ids = tables.filter((t) => t.table).map((t) => t.id);
  ids.sort((a, b) => (b === current) - (a === current));
  return ids.slice(0, 4);
}

/** The grid for n tiles: columns and rows. */
export function tileGrid(n) {
  return n <= 1 ? { cols: 1, rows: 1 } : n === 2 ? { cols: 2, rows: 1 } : { cols: 2, rows: 2 };
}

let tiled = null; // the tiled table ids, while tiling

function leave(doc) {
  tiled = null;
  doc.querySelector("#tiles")?.remove();
  doc.body.classList.remove("tiling");
}

function enter(doc, S) {
  const ids = tileTables([...S.tables.values()], S.current);
  if (ids.length < 2) return;
  tiled = ids;
  const box = doc.createElement("div");
  box.id = "tiles";
  const grid = tileGrid(ids.length);
  box.className = "tiles cols-" + grid.cols + " rows-" + grid.rows;
  for (const id of ids) {
    const f = doc.createElement("iframe");
    f.src = "/?tile=" + id;
    f.title = "Table " + (S.tables.get(id).table.name || "");
    f.dataset.table = id;
    box.append(f);
  }
  doc.querySelector("main").after(box);
  doc.body.classList.add("tiling");
}

/** Marks a tile's page (no top bar or tabs) and wires the tiling button. */
export function wireTiling(doc, S, redraw) {
  if (tileParam(doc.location.search)) doc.body.classList.add("tile");
  doc.querySelector("#tile-toggle").addEventListener("click", () => {
    if (tiled) leave(doc); else enter(doc, S);
    redraw();
  });
}

/** The narrowest window that tiles: below it a tile would be narrower than a phone's
 * table, so the page shows one table and its tabs. */
export const TILE_MIN_WIDTH = 1000;

/** Shows the tiling button when there are tables to tile and room for them, labelled for
 * what it does; leaves tiling when the window became too narrow. */
export function updateTiling(doc, S) {
  const b = doc.querySelector("#tile-toggle");
  const n = tileTables([...S.tables.values()], S.current).length;
  const fits = doc.defaultView.innerWidth >= TILE_MIN_WIDTH;
  if (tiled && (n < 2 || !fits)) leave(doc);
  b.classList.toggle("hidden", !tiled && (n < 2 || !fits || S.view === "login" || doc.body.classList.contains("tile")));
  b.textContent = tiled ? "One table" : "Tile " + Math.min(n, 4);
  b.setAttribute("aria-pressed", String(!!tiled));
}
