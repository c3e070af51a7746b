//! The soak's records and figures: the store read directly (void hands, hand numbers used
//! twice, leases), what each fault did, and at the end one report (printed, and written to
//! `target/soak-report.json`) followed by every check of issue 25, each failing one told
//! with its figures.

use super::bot::Shared;
use super::{
    Kind, ANSWER_DEADLINE, HEARTBEAT_MS, KINDS, LEASE_MS, MEASURE_PAST_DEADLINE, NODES,
    SNAPSHOT_DEADLINE, STORE_WAIT, TABLES,
};
use poker_protocol::TableId;
use poker_store::{Audit, SqlStore};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// The database's hands, read directly: void hands and hand numbers used twice.
pub struct Hands {
    /// (table, number) of each void hand.
    pub void: BTreeSet<(String, u64)>,
    /// (table, number, rows) of each number used by more than one hand at a table.
    pub reused: Vec<(String, u64, i64)>,
}

/// Reads the hands' figures, or `None` while the database does not answer.
pub async fn hands(pool: &sqlx::PgPool) -> Option<Hands> {
    let read = async {
        let void: Vec<(String, i64)> =
            sqlx::query_as("select poker_table_id, number from hand where status = 'void'")
                .fetch_all(pool)
                .await?;
        let reused: Vec<(String, i64, i64)> = sqlx::query_as(
            "select poker_table_id, number, count(*) from hand \
             group by poker_table_id, number having count(*) > 1",
        )
        .fetch_all(pool)
        .await?;
        Ok::<_, sqlx::Error>(Hands {
            void: void.into_iter().map(|(t, n)| (t, n as u64)).collect(),
            reused: reused
                .into_iter()
                .map(|(t, n, c)| (t, n as u64, c))
                .collect(),
        })
    };
    tokio::time::timeout(STORE_WAIT, read).await.ok()?.ok()
}

/// The store's answer, or `None` while it does not answer within [`STORE_WAIT`].
pub async fn within<T, E>(f: impl std::future::Future<Output = Result<T, E>>) -> Option<T> {
    tokio::time::timeout(STORE_WAIT, f).await.ok()?.ok()
}

/// Retries a read of the store for up to 30 s (it may just have come back).
pub async fn retry<T, F, Fut>(what: &str, mut f: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(t) = f().await {
            return t;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: the store does not answer for 30 s"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Each table's lease: (node, token).
pub async fn leases(store: &SqlStore, tables: &[TableId]) -> Option<Vec<(String, u64)>> {
    let all = within(store.leases()).await?;
    tables
        .iter()
        .map(|t| {
            let id: poker_store::TableId = t.to_string().parse().unwrap();
            all.iter()
                .find(|l| l.table_id == id)
                .map(|l| (l.node.clone(), l.token))
        })
        .collect()
}

/// What one fault did.
pub struct FaultRecord {
    pub index: usize,
    pub kind: Kind,
    /// The node hit (kill and stop).
    pub node: Option<usize>,
    /// How long the service or node was down.
    pub down: Duration,
    /// Affected players, and when each had its snapshot (from the fault's reference
    /// time; `None`: none within the deadline and [`MEASURE_PAST_DEADLINE`]).
    pub resync: Vec<(String, Option<Duration>)>,
    /// Hands voided between this fault's start and its checks.
    pub voided: Vec<(String, u64)>,
    /// Tables whose owner changed.
    pub moved: usize,
    /// Hands whose result players saw that were found void after this fault.
    pub shown_void: usize,
    /// How long the tables took to spread evenly again after the fault (`None`: not
    /// within [`SETTLE`]).
    pub settled: Option<Duration>,
}

impl FaultRecord {
    /// The time until every affected player had a snapshot (`None`: someone had none).
    pub fn all_resynced(&self) -> Option<Duration> {
        self.resync
            .iter()
            .try_fold(Duration::ZERO, |m, (_, t)| t.map(|t| m.max(t)))
    }
}

/// Whole milliseconds, as the report gives times.
pub fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}

/// The median (the lower of the middle two), `None` for no values.
pub fn p50(mut v: Vec<u64>) -> Option<u64> {
    v.sort_unstable();
    v.get(v.len().saturating_sub(1) / 2).copied()
}

/// What the run left to report: its settings and what the fault driver gathered.
pub struct Run {
    /// `SOAK_SEED`.
    pub seed: u64,
    /// When the test began.
    pub started: Instant,
    /// Bots, and the chips they deposited.
    pub players: usize,
    pub deposited: i64,
    /// Each fault's record.
    pub records: Vec<FaultRecord>,
    /// Chips not conserved or hand numbers reused, after a fault.
    pub violations: Vec<String>,
    /// (table, hand) whose result players saw, found void.
    pub shown_void: BTreeSet<(usize, u64)>,
    /// Every void hand found, (table, hand).
    pub void_seen: BTreeSet<(String, u64)>,
    /// The audit once everyone left, and how many were still seated.
    pub final_audit: Audit,
    pub seated: usize,
    /// Bots whose task failed.
    pub panicked: Vec<String>,
    /// Players silent over 5 s while their table played: (ms, name), longest first.
    pub silent: Vec<(u64, String)>,
}

/// Prints and writes the report, then asserts the goals: every one that fails is
/// told at once, with its figures.
pub fn report_and_check(shared: &Shared, run: Run) {
    let Run {
        seed,
        started,
        players,
        deposited,
        records,
        violations,
        shown_void,
        void_seen,
        final_audit,
        seated,
        panicked,
        silent,
    } = run;
    // The figures.
    let seen = shared.players.lock().unwrap().clone();
    let errors = shared.errors.lock().unwrap().clone();
    let error_examples = shared.error_examples.lock().unwrap().clone();
    let unknown_table = errors.get("unknown_table").copied().unwrap_or(0);
    let longest_wait = *shared.longest_wait.lock().unwrap();
    let answers = *shared.answers.lock().unwrap();
    let long_waits: Vec<(u64, String)> = {
        let long = shared.long_waits.lock().unwrap();
        let mut v: Vec<(u64, String)> = long
            .iter()
            .map(|w| {
                (
                    ms(w.waited),
                    format!(
                        "{} ms: {} of {} on {} ({})",
                        ms(w.waited),
                        w.what,
                        w.player,
                        NODES[w.node],
                        shared.phase_of(w.sent).0
                    ),
                )
            })
            .collect();
        v.sort_by_key(|w| std::cmp::Reverse(w.0));
        v
    };
    let mut waits_by_phase: BTreeMap<String, u64> = BTreeMap::new();
    {
        let long = shared.long_waits.lock().unwrap();
        for w in long.iter() {
            let (phase, kind) = shared.phase_of(w.sent);
            let key = kind.map_or(phase, |k| k.label().to_string());
            let e = waits_by_phase.entry(key).or_default();
            *e = (*e).max(ms(w.waited));
        }
    }
    let mut per_kind = Vec::new();
    let mut late: Vec<String> = Vec::new();
    for kind in KINDS {
        let of: Vec<&FaultRecord> = records.iter().filter(|r| r.kind == kind).collect();
        if of.is_empty() {
            continue;
        }
        // Per fault (with someone affected): until every affected player had one.
        let measured: Vec<u64> = of
            .iter()
            .filter(|r| !r.resync.is_empty())
            .filter_map(|r| r.all_resynced())
            .map(ms)
            .collect();
        let never = of.iter().filter(|r| r.all_resynced().is_none()).count();
        let nobody = of.iter().filter(|r| r.resync.is_empty()).count();
        // Per affected player that had one.
        let each: Vec<u64> = of
            .iter()
            .flat_map(|r| r.resync.iter().filter_map(|(_, t)| t.map(ms)))
            .collect();
        let players: usize = of.iter().map(|r| r.resync.len()).sum();
        let missing: usize = of
            .iter()
            .map(|r| r.resync.iter().filter(|(_, t)| t.is_none()).count())
            .sum();
        let voided: usize = of.iter().map(|r| r.voided.len()).sum();
        let moved: usize = of.iter().map(|r| r.moved).sum();
        let downs: Vec<u64> = of.iter().map(|r| ms(r.down)).collect();
        let settled: Vec<u64> = of.iter().filter_map(|r| r.settled).map(ms).collect();
        for r in &of {
            for (who, t) in &r.resync {
                match t {
                    Some(t) if *t <= SNAPSHOT_DEADLINE => {}
                    Some(t) => late.push(format!(
                        "fault {} ({}): {who} had its snapshot after {} ms",
                        r.index,
                        kind.label(),
                        ms(*t)
                    )),
                    None => late.push(format!(
                        "fault {} ({}{}): {who} had no snapshot within {} ms",
                        r.index,
                        kind.label(),
                        r.node.map(|n| format!(" {}", NODES[n])).unwrap_or_default(),
                        ms(SNAPSHOT_DEADLINE + MEASURE_PAST_DEADLINE)
                    )),
                }
            }
        }
        per_kind.push(json!({
            "kind": kind.label(),
            "faults": of.len(),
            "down_ms": { "min": downs.iter().min(), "max": downs.iter().max() },
            "all_resynced_ms": {
                "p50": p50(measured.clone()),
                "max": measured.iter().max(),
                "faults_with_a_player_never_resynced": never,
                "faults_affecting_nobody": nobody,
            },
            "player_resynced_ms": { "p50": p50(each.clone()), "max": each.iter().max() },
            "affected_players": players,
            "affected_players_without_snapshot": missing,
            "tables_moved": moved,
            "rebalanced_after_ms": {
                "p50": p50(settled.clone()),
                "max": settled.iter().max(),
                "not_within_settle": of.len() - settled.len(),
            },
            "hands_voided": voided,
            "results_shown_then_voided": of.iter().map(|r| r.shown_void).sum::<usize>(),
            "longest_answer_wait_ms": waits_by_phase.get(kind.label()),
        }));
    }
    let short_voids: Vec<String> = records
        .iter()
        .filter(|r| r.kind.short())
        .flat_map(|r| {
            r.voided.iter().map(move |(t, n)| {
                format!(
                    "fault {} ({}): hand {n} of table {t}",
                    r.index,
                    r.kind.label()
                )
            })
        })
        .collect();
    let reconnects: usize = seen.iter().map(|p| p.reconnects).sum();
    let lost_at_end: Vec<&str> = seen
        .iter()
        .filter(|p| p.snapshot.is_none())
        .map(|p| p.name.as_str())
        .collect();
    let repeated = shared.repeated.lock().unwrap().clone();
    let report = json!({
        "date": today(),
        "seed": seed,
        "faults": records.len(),
        "wall_secs": started.elapsed().as_secs(),
        "nodes": NODES.len(), "tables": TABLES, "bots": players,
        "lease_ms": LEASE_MS, "heartbeat_ms": HEARTBEAT_MS,
        "snapshot_deadline_ms": ms(SNAPSHOT_DEADLINE),
        "per_kind": per_kind,
        "per_fault": records.iter().map(|r| json!({
            "fault": r.index,
            "kind": r.kind.label(),
            "node": r.node.map(|n| NODES[n]),
            "down_ms": ms(r.down),
            "affected": r.resync.len(),
            "without_snapshot": r.resync.iter().filter(|(_, t)| t.is_none()).count(),
            "all_resynced_ms": r.all_resynced().map(ms),
            "tables_moved": r.moved,
            "hands_voided": r.voided.len(),
            "results_shown_then_voided": r.shown_void,
            "rebalanced_after_ms": r.settled.map(ms),
        })).collect::<Vec<_>>(),
        "answers_measured": answers,
        "longest_answer_wait_ms_on_running_nodes": ms(longest_wait),
        "answers_over_1s": long_waits.len(),
        "longest_waits": long_waits.iter().take(10).map(|(_, w)| w.clone()).collect::<Vec<_>>(),
        "hands_voided_in_all": void_seen.len(),
        "hands_voided_by_short_outages": short_voids.len(),
        "results_shown_then_voided": shown_void.len(),
        "unknown_table_errors": unknown_table,
        "errors": errors,
        "error_examples": error_examples,
        "reconnects": reconnects,
        "players_silent_over_5s_while_their_table_played": silent.len(),
        "longest_silences_ms": silent.iter().take(10).map(|(d, p)| format!("{p}: {d} ms")).collect::<Vec<_>>(),
        "players_without_snapshot_at_end": lost_at_end,
        "seated_after_leaving": seated,
        "violations": violations,
    });
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/soak-report.json");
    let text = serde_json::to_string_pretty(&report).unwrap();
    let _ = std::fs::write(&path, &text);
    eprintln!(
        "===== cluster soak: {} faults, seed {seed}, {:?} =====\n{text}\n===== end of the soak report ({}) =====",
        records.len(),
        started.elapsed(),
        path.display()
    );

    // The asserts: the invariants, then its deadlines; every one that fails is
    // told, with its figures.
    let mut failed: Vec<String> = Vec::new();
    let mut check = |ok: bool, what: String| {
        if !ok {
            failed.push(what);
        }
    };
    check(panicked.is_empty(), format!("bots failed: {panicked:#?}"));
    check(
        violations.is_empty(),
        format!("chips conserved and no hand number reused after each fault: {violations:#?}"),
    );
    check(
        repeated.is_empty(),
        format!("players saw one hand number end twice: {repeated:#?}"),
    );
    check(
        final_audit.holds()
            && final_audit.wallets + final_audit.stacks + final_audit.rake == deposited,
        format!(
            "at the end, chips in play + wallets + rake = deposits {deposited}: {final_audit:?}"
        ),
    );
    check(
        unknown_table == 0,
        format!(
            "commands during moves are answered table_moving, never unknown_table: {unknown_table} \
             unknown_table errors ({errors:?}; first: {:?})",
            error_examples.get("unknown_table")
        ),
    );
    check(
        shown_void.is_empty(),
        format!(
            "no player sees the result of a hand that is then voided: {} were (table, hand): {:?}",
            shown_void.len(),
            shown_void.iter().take(20).collect::<Vec<_>>()
        ),
    );
    check(
        short_voids.is_empty(),
        format!(
            "outages shorter than the lease void no hand: they voided {}: {short_voids:#?}",
            short_voids.len()
        ),
    );
    check(
        late.is_empty(),
        format!(
            "every affected player has a snapshot within lease + 2 s ({} ms) of the fault; {} \
             did not (first 30): {:#?}",
            ms(SNAPSHOT_DEADLINE),
            late.len(),
            late.iter().take(30).collect::<Vec<_>>()
        ),
    );
    check(
        longest_wait <= ANSWER_DEADLINE,
        format!(
            "players on running nodes wait at most {} ms for an answer; the longest waited {} \
             ms ({} answers over; the longest by fault kind {waits_by_phase:?}): {:#?}",
            ms(ANSWER_DEADLINE),
            ms(longest_wait),
            long_waits.len(),
            long_waits
                .iter()
                .take(10)
                .map(|(_, w)| w)
                .collect::<Vec<_>>()
        ),
    );
    check(
        seated == 0,
        format!("everyone has left within 30 s of asking: {seated} still seated"),
    );
    check(
        lost_at_end.is_empty(),
        format!(
            "every connected player has a snapshot of its table by the end; these have none on \
             their connection: {lost_at_end:?}"
        ),
    );
    assert!(
        failed.is_empty(),
        "{} of the soak's checks failed:\n- {}",
        failed.len(),
        failed.join("\n- ")
    );
}

/// Today's date (UTC) as `YYYY-MM-DD`, from the system clock (no date crate here).
pub fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
        / 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}
