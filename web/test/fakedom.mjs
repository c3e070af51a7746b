// A document small enough to read, for drawing tests under node: elements with children,
// text, classes, data attributes and attributes, and the one behaviour the keyed lists
// are about: an element taken out of the document (removed, or moved elsewhere with
// `insertBefore`/`append`) loses the focus, as in a browser. Each move is counted.

class ClassList {
  constructor(e) { this.e = e; }
  get names() { return this.e.className.split(/\s+/).filter(Boolean); }
  contains(n) { return this.names.includes(n); }
  add(...ns) { this.e.className = [...new Set(this.names.concat(ns))].join(" "); }
  remove(...ns) { this.e.className = this.names.filter((x) => !ns.includes(x)).join(" "); }
  toggle(n, on = !this.contains(n)) { if (on) this.add(n); else this.remove(n); return on; }
}

export class FakeElement {
  constructor(doc, tag) {
    this.ownerDocument = doc;
    this.tagName = tag.toUpperCase();
    this.parentNode = null;
    this.childNodes = []; // elements and { text } nodes
    this.children = []; // the elements only, kept in step (live, like a browser's)
    this.dataset = {};
    this.attrs = new Map();
    this.className = "";
    this.style = {};
    this.classList = new ClassList(this);
    this.onclick = null;
  }
  get firstChild() { return this.childNodes[0] || null; }
  get lastChild() { return this.childNodes[this.childNodes.length - 1] || null; }
  get firstElementChild() { return this.children[0] || null; }
  get childElementCount() { return this.children.length; }
  get nextElementSibling() {
    if (!this.parentNode) return null;
    const kids = this.parentNode.children;
    return kids[kids.indexOf(this) + 1] || null;
  }
  get cells() { return this.children.filter((c) => c.tagName === "TD" || c.tagName === "TH"); }
  get textContent() { return this.childNodes.map((n) => n.textContent).join(""); }
  set textContent(t) {
    for (const c of [...this.children]) this.#detach(c);
    this.childNodes = t === "" ? [] : [{ textContent: String(t) }];
  }
  setAttribute(k, v) { this.attrs.set(k, String(v)); }
  getAttribute(k) { return this.attrs.has(k) ? this.attrs.get(k) : null; }
  removeAttribute(k) { this.attrs.delete(k); }
  contains(e) { for (let x = e; x; x = x.parentNode) if (x === this) return true; return false; }
  append(...nodes) { for (const n of nodes) this.insertBefore(n, null); }
  insertBefore(n, ref) {
    if (typeof n === "string") n = { textContent: n };
    if (n instanceof FakeElement) {
      if (n.parentNode) { this.ownerDocument.moves++; n.parentNode.#detach(n); }
      n.parentNode = this;
      const at = ref ? this.children.indexOf(ref) : -1;
      this.children.splice(at < 0 ? this.children.length : at, 0, n);
    }
    const at = ref ? this.childNodes.indexOf(ref) : -1;
    this.childNodes.splice(at < 0 ? this.childNodes.length : at, 0, n);
    return n;
  }
  replaceChildren(...nodes) {
    for (const c of [...this.children]) this.#detach(c);
    this.childNodes = [];
    this.append(...nodes);
  }
  remove() { if (this.parentNode) this.parentNode.#detach(this); }
  focus() { this.ownerDocument.activeElement = this; }
  click() { if (this.onclick) this.onclick(); }
  #detach(n) {
    this.childNodes.splice(this.childNodes.indexOf(n), 1);
    this.children.splice(this.children.indexOf(n), 1);
    n.parentNode = null;
    // Taken out of the document: the focus inside it is lost.
    const doc = this.ownerDocument;
    if (doc.activeElement && n.contains(doc.activeElement)) doc.activeElement = null;
  }
}

/** A document whose `querySelector` knows the selectors given (each a new element). */
export function fakeDocument(selectors = {}) {
  const doc = { activeElement: null, moves: 0, found: {} };
  doc.createElement = (tag) => new FakeElement(doc, tag);
  for (const [sel, tag] of Object.entries(selectors)) doc.found[sel] = doc.createElement(tag);
  doc.querySelector = (sel) => doc.found[sel] || null;
  return doc;
}
