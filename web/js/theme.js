// The light and dark themes: the player's choice, remembered in this browser, or the
// system's (prefers-color-scheme) until they choose. The theme is an attribute on the
// root element (`data-theme`), which features.css reads.

export const THEME_KEY = "pokerd.theme";

/** The theme to show: the saved choice if any, else the system's preference. */
export function chooseTheme(saved, prefersLight) {
  if (saved === "light" || saved === "dark") return saved;
  return prefersLight ? "light" : "dark";
}

/** The other theme. */
export function otherTheme(theme) {
  return theme === "light" ? "dark" : "light";
}

/** Applies the theme to the page and labels the toggle with what it switches to. */
export function applyTheme(doc, theme) {
  doc.documentElement.dataset.theme = theme;
  const b = doc.querySelector("#theme-toggle");
  if (b) {
    // A sun or a moon; the name stays "Light theme", pressed when it shows.
    b.textContent = theme === "light" ? "\u263e" : "\u2600";
    b.setAttribute("aria-pressed", String(theme === "light"));
    b.title = theme === "light" ? "Switch to the dark theme" : "Switch to the light theme";
  }
}

/** Shows the saved or system theme, follows the system until the player chooses, and
 * wires the toggle (which saves the choice). */
export function wireTheme(win, storage) {
  const media = win.matchMedia("(prefers-color-scheme: light)");
  const show = () => applyTheme(win.document, chooseTheme(storage.getItem(THEME_KEY), media.matches));
  show();
  media.addEventListener("change", show);
  const b = win.document.querySelector("#theme-toggle");
  if (b) b.addEventListener("click", () => {
    storage.setItem(THEME_KEY, otherTheme(win.document.documentElement.dataset.theme));
    show();
  });
}
