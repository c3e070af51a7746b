//! Names beside ids in the lists the console reads: each audit log entry with the name of
//! who acted and of what it was done to (a player, a table or a staff member, and every
//! other id its details mention), each ledger line with the table of a seat account. The
//! ids stay (paths take ids only; a name can read like somebody else's id); the names are
//! read when the list is asked for, so a renamed table shows its name of today.

use crate::AppState;
use poker_store::{AuditEntry, LedgerEntry, PlayerId, TableId};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

use crate::http::error::ApiResult;

/// One audit log entry with names.
#[derive(Serialize)]
pub(crate) struct NamedAuditEntry {
    /// The entry as stored: `at`, `actor`, `action`, `target`, `detail`.
    #[serde(flatten)]
    pub entry: AuditEntry,
    /// What acted: `token` (the admin token), `staff`, or `address` (a player setting
    /// their password with a reset code, from that address).
    pub actor_kind: &'static str,
    /// The staff member's name, the address, or `admin token`.
    pub actor_name: String,
    /// What the target is: `player`, `table`, `staff` or `file` (a backup); `None` when
    /// it is none of those the server still knows.
    pub target_kind: Option<&'static str>,
    /// The target's name (the target itself when it is a name already); `None` when
    /// unknown.
    pub target_name: Option<String>,
    /// The name of every player, table and staff id the details mention, by id.
    pub names: BTreeMap<String, String>,
}

/// Every name the audit log may mention, by id: players, tables and staff.
struct Directory {
    players: HashMap<String, String>,
    tables: HashMap<String, String>,
    staff: HashMap<String, String>,
}

impl Directory {
    fn name(&self, id: &str) -> Option<(&'static str, &String)> {
        let id = id.to_ascii_lowercase();
        self.players
            .get(&id)
            .map(|n| ("player", n))
            .or_else(|| self.tables.get(&id).map(|n| ("table", n)))
            .or_else(|| self.staff.get(&id).map(|n| ("staff", n)))
    }
}

/// The audit log entries with their names.
pub(crate) async fn name_audit_log(
    state: &AppState,
    entries: Vec<AuditEntry>,
) -> ApiResult<Vec<NamedAuditEntry>> {
    let details: Vec<serde_json::Value> = entries
        .iter()
        .map(|e| serde_json::from_str(&e.detail).unwrap_or(serde_json::Value::Null))
        .collect();
    // The players named: targets and detail strings that read as player ids.
    let mut wanted: Vec<PlayerId> = Vec::new();
    for (e, d) in entries.iter().zip(&details) {
        wanted.extend(e.target.parse::<PlayerId>().ok());
        if let Some(d) = d.as_object() {
            wanted.extend(
                d.values()
                    .filter_map(|v| v.as_str()?.parse::<PlayerId>().ok()),
            );
        }
    }
    wanted.sort_unstable_by_key(|p| p.to_string());
    wanted.dedup();
    let players = state.store.player_names(&wanted).await?;
    let directory = Directory {
        players: players
            .into_iter()
            .map(|(id, name)| (id.to_string().to_ascii_lowercase(), name))
            .collect(),
        tables: state
            .store
            .tables()
            .await?
            .into_iter()
            .map(|t| (t.table_id.to_string().to_ascii_lowercase(), t.name))
            .collect(),
        staff: state
            .store
            .staff()
            .await?
            .into_iter()
            .map(|s| (s.staff_id.to_ascii_lowercase(), s.name))
            .collect(),
    };
    Ok(entries
        .into_iter()
        .zip(details)
        .map(|(entry, detail)| name_entry(&directory, entry, &detail))
        .collect())
}

fn name_entry(dir: &Directory, entry: AuditEntry, detail: &serde_json::Value) -> NamedAuditEntry {
    let (actor_kind, actor_name) = if let Some(name) = entry.actor.strip_prefix("staff:") {
        ("staff", name.to_string())
    } else if let Some(address) = entry.actor.strip_prefix("address:") {
        ("address", address.to_string())
    } else {
        ("token", "admin token".to_string())
    };
    let (target_kind, target_name) = match dir.name(&entry.target) {
        Some((kind, name)) => (Some(kind), Some(name.clone())),
        // A few actions are logged against a name, not an id.
        None => match entry.action.as_str() {
            "create_player" => (Some("player"), Some(entry.target.clone())),
            "create_staff" | "sign_in" => (Some("staff"), Some(entry.target.clone())),
            "backup" => (Some("file"), Some(entry.target.clone())),
            _ => (None, None),
        },
    };
    let names = detail
        .as_object()
        .into_iter()
        .flat_map(|d| d.values())
        .filter_map(|v| {
            let id = v.as_str()?;
            dir.name(id).map(|(_, name)| (id.to_string(), name.clone()))
        })
        .collect();
    NamedAuditEntry {
        entry,
        actor_kind,
        actor_name,
        target_kind,
        target_name,
        names,
    }
}

/// One ledger line with the table of a seat account.
#[derive(Serialize)]
pub(crate) struct NamedLedgerEntry {
    /// The line as stored: `movement_id`, `account`, `kind`, `amount`, `reference`,
    /// `created_at`.
    #[serde(flatten)]
    pub entry: LedgerEntry,
    /// The table of a seat account (`seat:<table>:<player>`), else `None`.
    pub table_id: Option<String>,
    /// That table's name.
    pub table_name: Option<String>,
}

/// The ledger lines with the names of their tables.
pub(crate) async fn name_ledger(
    state: &AppState,
    entries: Vec<LedgerEntry>,
) -> ApiResult<Vec<NamedLedgerEntry>> {
    let tables: HashMap<TableId, String> = state
        .store
        .tables()
        .await?
        .into_iter()
        .map(|t| (t.table_id, t.name))
        .collect();
    Ok(entries
        .into_iter()
        .map(|entry| {
            let table = entry
                .account
                .strip_prefix("seat:")
                .and_then(|rest| rest.split(':').next())
                .and_then(|t| t.parse::<TableId>().ok());
            NamedLedgerEntry {
                table_id: table.map(|t| t.to_string()),
                table_name: table.and_then(|t| tables.get(&t).cloned()),
                entry,
            }
        })
        .collect())
}
