// The WebSocket to the server: one connection for every table, authenticated with the
// session token, reconnecting with backoff when it drops (the server then sends a
// snapshot of every table the player sits at).

export function connection({ token, onMessage, onDown, onUp }) {
  let ws = null;
  let want = false;
  let retry = 0;
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
      sock.onopen = () => { sock.send(JSON.stringify({ type: "auth", token: token() })); };
      sock.onmessage = (m) => {
        let msg;
        try { msg = JSON.parse(m.data); } catch (_) { return; }
        if (msg.type === "welcome") { retry = 0; onUp(); }
        onMessage(msg);
      };
      sock.onclose = () => {
        if (ws !== sock) return;
        ws = null;
        if (!want) return;
        onDown();
        setTimeout(() => { if (want) c.open(); }, Math.min(5000, 300 * 2 ** retry++));
      };
    },
    close() {
      want = false;
      if (ws) ws.close();
      ws = null;
    },
    send(msg) {
      if (ws && ws.readyState === WebSocket.OPEN) { ws.send(JSON.stringify(msg)); return true; }
      return false;
    },
  };
  setInterval(() => c.send({ type: "ping" }), 25000);
  return c;
}
