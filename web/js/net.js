// The WebSocket to the server: one connection for every table, authenticated with the
// session token, reconnecting with backoff when it drops (the server then sends a
// snapshot of every table the player sits at). A network that dies silently (no close,
// nothing more arrives) is found by pinging: the server answers every `ping` with a
// `pong`, so a connection that has heard nothing for `DEAD_MS` is given up, reported
// down, and opened again.

/** How often the client pings, in milliseconds. */
export const PING_MS = 2000;
/** Silence after which the connection counts as dead, in milliseconds. */
export const DEAD_MS = 5000;

export function connection({ token, onMessage, onDown, onUp }) {
  let ws = null;
  let want = false;
  let retry = 0;
  let heard = 0;
  let down = false;
  const goDown = () => { if (!down) { down = true; onDown(); } };
  const reopen = () => setTimeout(() => { if (want && !ws) c.open(); }, Math.min(5000, 300 * 2 ** retry++));
  const c = {
    get ws() { return ws; },
    open() {
      want = true;
      // The session token is offered as a protocol too: when the server is near its
      // connection limit it still lets in a player who holds a seat (docs/server.md).
      const t = token();
      const protocols = typeof t === "string" && /^[0-9a-f]{1,256}$/.test(t) ? ["poker", "bearer." + t] : ["poker"];
      const sock = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws", protocols);
      ws = sock;
      heard = performance.now();
      sock.onopen = () => { heard = performance.now(); sock.send(JSON.stringify({ type: "auth", token: token() })); };
      sock.onmessage = (m) => {
        if (ws !== sock) return;
        heard = performance.now();
        let msg;
        try { msg = JSON.parse(m.data); } catch (_) { return; }
        if (msg.type === "pong") return;
        if (msg.type === "welcome") { retry = 0; down = false; onUp(); }
        onMessage(msg);
      };
      sock.onclose = () => {
        if (ws !== sock) return;
        ws = null;
        if (!want) return;
        goDown();
        reopen();
      };
    },
    close() {
      want = false;
      if (ws) ws.close();
      ws = null;
    },
    /** Sends `msg` now, or returns false when there is no live connection to send it on. */
    send(msg) {
      if (ws && ws.readyState === WebSocket.OPEN && !down) { ws.send(JSON.stringify(msg)); return true; }
      return false;
    },
  };
  setInterval(() => {
    if (!ws) return;
    if (performance.now() - heard > DEAD_MS) {
      // Silence: the socket is dropped without waiting for a close that may never come.
      const dead = ws;
      ws = null;
      dead.onclose = null;
      dead.onmessage = null;
      try { dead.close(); } catch (_) { /* already gone */ }
      if (want) { goDown(); reopen(); }
      return;
    }
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "ping" }));
  }, PING_MS);
  return c;
}
