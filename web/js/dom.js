// The page's DOM and HTTP helpers, shared by every module that draws or asks the server:
// `$` finds an element, `el` makes one, `api` fetches a JSON (or text) answer with the
// player's session token. Nothing else here: the views decide what is drawn.

/** The first element matching `sel`. */
export const $ = (sel) => document.querySelector(sel);

/** A new `tag` element with class `cls` and text `text` (both optional). */
export const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

/** GET `path` as the player (`S.token`); throws with the server's message on refusal. */
export async function api(S, path) {
  const r = await fetch(path, { headers: { authorization: "Bearer " + S.token } });
  if (!r.ok) throw new Error((await r.json().catch(() => ({}))).message || r.statusText);
  return (r.headers.get("content-type") || "").includes("json") ? r.json() : r.text();
}
