// The console's audit log in words, as pure logic (tested under node in
// web/test/audit_text.test.mjs): each entry's action and details as one readable line
// ("deposit 1,000 to ann (key dep-1)"), with the names the server sent beside the ids
// (GET /admin/audit-log: target_name, names), and a ledger line's account in words.

/// A number of chips with thousands separators.
export const chips = (n) => (typeof n === "number" ? n.toLocaleString("en-US") : String(n ?? ""));

/// A short id: the first 8 hexadecimal digits.
export const shortId = (id) => String(id || "").replace(/-/g, "").slice(0, 8);

/// When (unix ms) as `YYYY-MM-DD HH:MM` UTC.
const minute = (ms) => new Date(ms).toISOString().replace("T", " ").slice(0, 16);

/// The entry's target in words: its name (the short id after it when the name stands for
/// an id), else the id itself.
export function targetText(e) {
  if (e.target_name == null) return e.target;
  return e.target_name === e.target ? e.target_name : `${e.target_name} (${shortId(e.target)})`;
}

function parse(detail) {
  try {
    const d = JSON.parse(detail);
    return d && typeof d === "object" ? d : {};
  } catch {
    return {};
  }
}

/// One readable line for an audit log entry: what was done, to whom or what, with the
/// details that matter.
export function describe(e) {
  const d = parse(e.detail);
  const t = targetText(e);
  const named = (id) => (e.names && e.names[id] ? `${e.names[id]} (${shortId(id)})` : shortId(id));
  const key = d.idempotency_key ? ` (key ${d.idempotency_key})` : "";
  switch (e.action) {
    case "deposit": return `deposit ${chips(d.amount)} to ${t}${key}` + (d.balance !== undefined ? `: wallet ${chips(d.balance)}` : "");
    case "withdraw": return `withdraw ${chips(d.amount)} from ${t}${key}` + (d.balance !== undefined ? `: wallet ${chips(d.balance)}` : "");
    case "create_player": return `create player ${t}`;
    case "lock_player": return `lock ${t} out (their sessions end)`;
    case "unlock_player": return `unlock ${t}`;
    case "reset_password": return `set a new password for ${t}`;
    case "use_reset_code": {
      const by = String(d.issued_by || "");
      return `${t} set a new password with a reset code` + (by ? ` issued by ${by === "token" ? "the admin token" : by.replace(/^staff:/, "")}` : "");
    }
    case "issue_reset_code": return `issue a password reset code for ${t}` + (d.expires_at ? `, valid until ${minute(d.expires_at)} UTC` : "");
    case "create_table": {
      // The table's configuration as stored: the rules flattened beside the clock.
      const r = (d.spec && (d.spec.rules || d.spec)) || {};
      const stakes = r.structure === "fixed_limit" ? `${r.stakes.small_bet}/${r.stakes.big_bet}` : r.big_blind ? `${r.small_blind}/${r.big_blind}` : "";
      return `open table ${t}` + (r.game ? `: ${r.game.replace(/_/g, " ")} ${r.structure.replace(/_/g, " ")}${stakes ? " " + stakes : ""}, ${r.seat_count} seats` : "");
    }
    case "clone_table": return `open table ${t} as a copy of ${named(d.from)}`;
    case "close_table": return `close table ${t}` + (d.cashed_out !== undefined ? `: ${chips(d.cashed_out)} chips back to the wallets` : "");
    case "switch_chat": return `${d.enabled ? "switch on" : "switch off"} the chat at ${t}`;
    case "create_staff": return `add staff ${t}` + (d.role ? ` as ${d.role}` : "");
    case "sign_in": return `sign in as ${t}`;
    case "disable_staff": return `disable staff ${t} (their sessions end)`;
    case "enable_staff": return `enable staff ${t}`;
    case "set_staff_role": return `make ${t} ${d.to}` + (d.from ? ` (was ${d.from})` : "");
    case "reset_staff_password": return `set a new password for staff ${t}`;
    case "sign_out_staff": return `sign ${t} out everywhere` + (d.sessions !== undefined ? ` (${d.sessions} session${d.sessions === 1 ? "" : "s"})` : "");
    case "backup": return `back up the database to ${t}` + (d.bytes !== undefined ? ` (${chips(d.bytes)} bytes, ${chips(d.complete_hands)} hands)` : "");
    default: {
      // An action this console does not know yet: its name and details as they are.
      const rest = Object.entries(d).map(([k, v]) =>
        `${k.replace(/_/g, " ")} ${typeof v === "object" ? JSON.stringify(v) : e.names && e.names[v] ? named(v) : v}`);
      return `${e.action.replace(/_/g, " ")} ${t}` + (rest.length ? `: ${rest.join(", ")}` : "");
    }
  }
}

/// Who acted, in words.
export function actorText(e) {
  if (e.actor_kind === "staff") return e.actor_name;
  if (e.actor_kind === "address") return `a player from ${e.actor_name}`;
  return "admin token";
}

/// A ledger line's account in words: the wallet, a seat at a named table, the house's
/// rake, or money from or to outside.
export function accountText(line) {
  const a = String(line.account || "");
  if (a.startsWith("wallet:")) return "wallet";
  if (a.startsWith("seat:")) return `seat at ${line.table_name || shortId(line.table_id || a.split(":")[1])}`;
  if (a === "house:rake") return "rake";
  if (a === "external") return "outside";
  return a;
}
