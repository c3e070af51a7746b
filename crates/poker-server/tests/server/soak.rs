//! The cluster soak (issue 25): three `pokerd` nodes over one PostgreSQL and one
//! nats-server, six six-max tables, and bots in this process, each connected over a real
//! WebSocket to a random node, playing random legal actions. Bots rely on `auth` alone:
//! they never send `watch`; when their connection drops they reconnect to a live node and
//! send `auth`, nothing else. Every bot pings every 200 ms.
//!
//! Faults, in a seeded random order, at least five of each kind by default:
//! - `kill`: SIGKILL of a random node, restarted once its tables are resynced;
//! - `stop`: SIGSTOP of a random node past its lease (lease + 1 s), then SIGCONT;
//! - `nats_restart` and `pg_restart`: nats-server (on the same port) or PostgreSQL
//!   (`pg_ctl stop -m immediate`, then start) down for lease + 1 s;
//! - `nats_short` and `pg_short`: the same, down for about half the lease: these must
//!   void nothing.
//!
//! Checked after each fault: chips conserved (wallets + stacks + rake = deposits, by the
//! store's audit), no hand number used twice at a table (in the store, and as players saw
//! hands end). Measured: per fault kind, the time from the fault (the kill or the stop;
//! for an outage, the service's return; for players connected to a frozen node, its
//! SIGCONT) until every affected player has a fresh snapshot of its table (affected: at a
//! table owned by the node hit or whose lease changed, connected to the node hit, or whose
//! stream crosses NATS in a NATS fault); the longest any player connected to a running
//! node waited for an answer (a `pong`, or for an `act` the table's next message or an
//! error); hands voided by short outages; hands whose result players saw and the store
//! later calls void; `unknown_table` errors. The figures are printed in one block and
//! written to `target/soak-report.json`, and then asserted: the correctness
//! deadlines (a snapshot within lease + 2 s, an answer within 1 s) and its invariants.
//!
//! `SOAK_FAULTS` (default 30) sets the number of faults, spread evenly over the six kinds;
//! `SOAK_SEED` (default 25, printed) fixes the order, the nodes hit, the placement of
//! players and the bots' choices. docs/scaling.md ("Soak") says how to run a long soak.

mod bot;
use crate::common;
mod figures;

use bot::{Bot, Seen, Shared, Slot};
use common::cluster::{pokerd_with, Node, Stopped};
use common::nats::{free_port, nats_on, nats_server_binary, Proc};
use common::{nl_rules, sit, tid, Client, DbGuard};
use figures::{hands, leases, ms, report_and_check, retry, within, FaultRecord, Run};
use poker_protocol::ServerMsg;
use poker_store::{Audit, SqlStore};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a node's table leases last, and how often it renews them.
const LEASE_MS: u64 = 3000;
const HEARTBEAT_MS: u64 = 500;
/// The nodes' names, by index.
const NODES: [&str; 3] = ["n1", "n2", "n3"];
/// Tables, and players at each (six seats: one stays free).
const TABLES: usize = 6;
const PER_TABLE: usize = 5;
/// What each player deposits, and buys in (and tops up) for.
const DEPOSIT: u64 = 100_000;
const BUY_IN: u64 = 150;
/// How often each bot pings.
const PING_EVERY: Duration = Duration::from_millis(200);
/// The deadlines: every affected player has a snapshot within lease + 2 s of the
/// fault; a player on a running node never waits more than a second for an answer.
const SNAPSHOT_DEADLINE: Duration = Duration::from_millis(LEASE_MS + 2000);
const ANSWER_DEADLINE: Duration = Duration::from_secs(1);
/// How long past the snapshot deadline the soak keeps waiting to measure a late snapshot
/// before it calls it missing (and goes on to the next fault).
const MEASURE_PAST_DEADLINE: Duration = Duration::from_secs(1);
/// The longest the soak waits after a fault for the tables to spread evenly again.
const SETTLE: Duration = Duration::from_secs(5);
/// How long a long outage or a stop lasts: past the lease.
const LONG_DOWN: Duration = Duration::from_millis(LEASE_MS + 1000);
/// How long a short outage lasts: about half the lease.
const SHORT_DOWN: Duration = Duration::from_millis(LEASE_MS / 2);
/// The nodes' settings beyond the cluster's: a bot sends five pings a second besides its
/// actions, and a connection held up by the server gets them all at once when it frees up;
/// the room's message rate limit is not what this test measures.
const SETTINGS: [(&str, &str); 2] = [
    ("POKER__SERVER__RATE_LIMIT_PER_SEC", "1000"),
    ("POKER__SERVER__RATE_LIMIT_BURST", "1000"),
];
/// The longest the test waits for the store when it is up (its pool's own timeout is 30 s).
const STORE_WAIT: Duration = Duration::from_secs(2);

/// The kinds of fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Kill,
    Stop,
    NatsRestart,
    PgRestart,
    NatsShort,
    PgShort,
}

const KINDS: [Kind; 6] = [
    Kind::Kill,
    Kind::Stop,
    Kind::NatsRestart,
    Kind::PgRestart,
    Kind::NatsShort,
    Kind::PgShort,
];

impl Kind {
    fn label(self) -> &'static str {
        match self {
            Kind::Kill => "kill",
            Kind::Stop => "stop",
            Kind::NatsRestart => "nats_restart",
            Kind::PgRestart => "pg_restart",
            Kind::NatsShort => "nats_short",
            Kind::PgShort => "pg_short",
        }
    }

    /// An outage shorter than the lease: it must void no hand.
    fn short(self) -> bool {
        matches!(self, Kind::NatsShort | Kind::PgShort)
    }

    fn nats(self) -> bool {
        matches!(self, Kind::NatsRestart | Kind::NatsShort)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soak_three_nodes_through_kills_stops_and_outages_keep_every_player_and_chip() {
    let started = Instant::now();
    let seed: u64 = common::env_or("SOAK_SEED", 25);
    let faults: usize = common::env_or("SOAK_FAULTS", 30);
    eprintln!("cluster soak: SOAK_SEED={seed} SOAK_FAULTS={faults}");
    nats_server_binary();
    let Some(guard) = DbGuard::stoppable_postgres("this soak").await else {
        return;
    };
    let pg = guard.postgres();
    let url = guard.url();
    let mut rng = SmallRng::seed_from_u64(seed);
    let nats_port = free_port();
    let nats_url = format!("nats://127.0.0.1:{nats_port}");
    let mut nats: Proc = nats_on(nats_port).await;
    let mut nodes: Vec<Node> = Vec::new();
    for name in NODES {
        nodes.push(pokerd_with(name, &url, &nats_url, LEASE_MS, HEARTBEAT_MS, &SETTINGS).await);
    }
    eprintln!("{:?}: three nodes up", started.elapsed());

    // Players (created through every node: the store is shared) and tables (table t
    // through node t % 3, so each node owns two).
    let players = TABLES * PER_TABLE;
    let name = |i: usize| format!("soak{i:02}");
    for i in 0..players {
        nodes[i % 3].server.player(&name(i), DEPOSIT).await;
    }
    let deposited = (DEPOSIT * players as u64) as i64;
    let clock = json!({ "action_ms": 5000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 300 });
    let mut table_ids = Vec::new();
    for t in 0..TABLES {
        let id = nodes[t % 3]
            .server
            .table_with(nl_rules(), clock.clone())
            .await;
        table_ids.push(tid(&id));
    }
    let store = SqlStore::connect(&url).await.unwrap();
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(2)
        .acquire_timeout(STORE_WAIT)
        .connect(&url)
        .await
        .unwrap();

    // Every player connects to a random node and sits down.
    let shared = Arc::new(Shared {
        nodes: Mutex::new(
            nodes
                .iter()
                .map(|n| Slot {
                    addr: n.server.addr,
                    down: false,
                    outages: Vec::new(),
                })
                .collect(),
        ),
        players: Mutex::new(Vec::new()),
        results: Mutex::new(vec![BTreeSet::new(); TABLES]),
        last_result: Mutex::new(vec![Instant::now(); TABLES]),
        errors: Mutex::default(),
        error_examples: Mutex::default(),
        longest_wait: Mutex::default(),
        long_waits: Mutex::default(),
        answers: Mutex::default(),
        repeated: Mutex::default(),
        phases: Mutex::default(),
        leave: AtomicBool::new(false),
        stop: AtomicBool::new(false),
    });
    let mut bots = Vec::new();
    for i in 0..players {
        let (table, seat) = (i / PER_TABLE, (i % PER_TABLE) as u32);
        let node = rng.gen_range(0..NODES.len());
        let token = nodes[node].server.login(&name(i)).await;
        let mut client = Client::connect(nodes[node].server.addr, &name(i)).await;
        client.auth(&token).await;
        client
            .send(&sit(&table_ids[table].to_string(), seat, BUY_IN))
            .await;
        let bought = client.done("sit").await.0;
        assert_eq!(bought, BUY_IN, "{} bought in", name(i));
        let snapshot = client.log.iter().any(
            |m| matches!(m, ServerMsg::Snapshot { table: view, .. } if view.table_id == table_ids[table]),
        );
        shared.players.lock().unwrap().push(Seen {
            name: name(i),
            table,
            node,
            connected: true,
            since: Instant::now(),
            snapshot: snapshot.then(Instant::now),
            heard: Instant::now(),
            reconnects: 0,
        });
        bots.push(Bot {
            index: i,
            token,
            table,
            table_id: table_ids[table],
            client,
            node,
            rng: SmallRng::seed_from_u64(seed ^ ((i as u64 + 1) << 20)),
            shared: shared.clone(),
            pings: VecDeque::new(),
            act_sent: None,
            decide: None,
            topped_up_at: None,
            sat_in_at: None,
            left: false,
            leave_sent: None,
            ended: BTreeSet::new(),
            outbox: Vec::new(),
        });
    }
    let tasks: Vec<_> = bots
        .into_iter()
        .map(|bot| tokio::spawn(bot.run()))
        .collect();
    // Silence: how long a connected player heard nothing of its table while others saw
    // hands end there (a stream lost with the connection open), looked at every 100 ms.
    let silence = {
        let shared = shared.clone();
        tokio::spawn(async move {
            let mut longest: BTreeMap<String, Duration> = BTreeMap::new();
            while !shared.leave.load(Ordering::SeqCst) {
                let ended = shared.last_result.lock().unwrap().clone();
                let seen = shared.players.lock().unwrap().clone();
                for p in seen.iter().filter(|p| p.connected) {
                    let quiet = ended[p.table].saturating_duration_since(p.heard);
                    let e = longest.entry(p.name.clone()).or_default();
                    *e = (*e).max(quiet);
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            longest
        })
    };
    shared.phase("warm-up".into(), None);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !shared.results.lock().unwrap().iter().all(|r| r.len() >= 2) {
        assert!(
            Instant::now() < deadline,
            "every table plays two hands within 60 s of seating: results seen {:?}",
            shared
                .results
                .lock()
                .unwrap()
                .iter()
                .map(|r| r.len())
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    eprintln!(
        "{:?}: {players} bots playing at {TABLES} tables",
        started.elapsed()
    );

    // The faults, in a seeded order.
    let mut plan: Vec<Kind> = (0..faults).map(|k| KINDS[k % KINDS.len()]).collect();
    plan.shuffle(&mut rng);
    let mut records: Vec<FaultRecord> = Vec::new();
    let mut violations: Vec<String> = Vec::new();
    let mut shown_void: BTreeSet<(usize, u64)> = BTreeSet::new();
    let mut void_seen: BTreeSet<(String, u64)> = BTreeSet::new();
    let table_text: Vec<String> = table_ids.iter().map(|t| t.to_string()).collect();
    for (k, &kind) in plan.iter().enumerate() {
        let before = retry("leases", || leases(&store, &table_ids)).await;
        let voids_before = retry("hands", || hands(&pool)).await.void;
        let target = rng.gen_range(0..NODES.len());
        let hit = matches!(kind, Kind::Kill | Kind::Stop).then_some(target);
        let label = match hit {
            Some(n) => format!("fault {k}: {} {}", kind.label(), NODES[n]),
            None => format!("fault {k}: {}", kind.label()),
        };
        shared.phase(label.clone(), Some(kind));
        let at_start: Vec<Seen> = shared.players.lock().unwrap().clone();
        let fault_at = Instant::now();
        // When the fault ends (the reference of the snapshot times), and for the players
        // on a frozen node, when it woke.
        let (down, reference, woke) = match kind {
            Kind::Kill => {
                shared.node_down(target);
                nodes[target].proc.kill();
                (Duration::ZERO, Instant::now(), None)
            }
            Kind::Stop => {
                shared.node_down(target);
                let mut frozen = Stopped::stop(&nodes[target].proc);
                tokio::time::sleep(LONG_DOWN).await;
                frozen.wake();
                let woke = Instant::now();
                let addr = nodes[target].server.addr;
                shared.node_up(target, addr);
                (woke - fault_at, fault_at, Some(woke))
            }
            Kind::NatsRestart | Kind::NatsShort => {
                nats.kill();
                let pause = if kind.short() { SHORT_DOWN } else { LONG_DOWN };
                tokio::time::sleep(pause.saturating_sub(fault_at.elapsed())).await;
                nats = nats_on(nats_port).await;
                (fault_at.elapsed(), Instant::now(), None)
            }
            Kind::PgRestart | Kind::PgShort => {
                tokio::task::block_in_place(|| pg.stop()).expect("pg_ctl stop");
                let pause = if kind.short() { SHORT_DOWN } else { LONG_DOWN };
                // Starting takes a while too: the pause is counted from the stop.
                let start_takes = Duration::from_millis(300);
                tokio::time::sleep(
                    pause
                        .saturating_sub(fault_at.elapsed())
                        .saturating_sub(start_takes),
                )
                .await;
                tokio::task::block_in_place(|| pg.restart()).expect("pg_ctl start");
                (fault_at.elapsed(), Instant::now(), None)
            }
        };
        eprintln!("{:?}: {label} (down {:?})", started.elapsed(), down);

        // Who must get a fresh snapshot: the players at the tables of the node hit, those
        // connected to a killed node, those whose stream crosses NATS in a NATS fault,
        // those at tables whose owner changed (found as the leases change), and any player
        // whose connection was opened since.
        let owner_index = |node: &str| NODES.iter().position(|n| *n == node);
        let mut affected: BTreeSet<usize> = BTreeSet::new();
        for (i, p) in at_start.iter().enumerate() {
            let owner = owner_index(&before[p.table].0);
            // (A frozen node's players at other nodes' tables may keep their stream: NATS
            // holds what it could not deliver meanwhile.)
            let hit_here =
                hit.is_some_and(|n| owner == Some(n) || (kind == Kind::Kill && p.node == n));
            let crosses = kind.nats() && owner != Some(p.node);
            if hit_here || crosses {
                affected.insert(i);
            }
        }
        let reference_of = |i: usize| match (woke, hit) {
            (Some(woke), Some(n)) if at_start[i].node == n => woke,
            _ => reference,
        };
        let cap = woke.unwrap_or(reference) + SNAPSHOT_DEADLINE + MEASURE_PAST_DEADLINE;
        // Watched at least until leases lapsed by the fault have changed hands.
        let watch_at_least = (fault_at + Duration::from_millis(LEASE_MS + 2 * HEARTBEAT_MS))
            .max(reference + Duration::from_millis(3 * HEARTBEAT_MS));
        // A table whose owner changed: its players need a snapshot sent after the change,
        // which came after the last look at the leases that still showed the old owner.
        let mut moved: BTreeMap<usize, Instant> = BTreeMap::new();
        let mut resync: BTreeMap<usize, Instant> = BTreeMap::new();
        let mut last_look: Option<Instant> = None;
        loop {
            let now = Instant::now();
            if last_look.is_none_or(|at| now - at > Duration::from_millis(250)) {
                if let Some(after) = leases(&store, &table_ids).await {
                    for t in 0..TABLES {
                        if after[t] != before[t] && !moved.contains_key(&t) {
                            moved.insert(t, last_look.unwrap_or(fault_at).max(fault_at));
                        }
                    }
                    last_look = Some(now);
                }
            }
            let seen = shared.players.lock().unwrap().clone();
            for (i, p) in seen.iter().enumerate() {
                if moved.contains_key(&p.table) || p.since > fault_at {
                    affected.insert(i);
                }
            }
            for &i in &affected {
                let p = &seen[i];
                let floor = moved
                    .get(&p.table)
                    .copied()
                    .unwrap_or(fault_at)
                    .max(fault_at);
                if resync.get(&i).is_some_and(|&at| at < floor) {
                    resync.remove(&i);
                }
                if resync.contains_key(&i) {
                    continue;
                }
                if let Some(at) = p.snapshot.filter(|&at| p.connected && at >= floor) {
                    resync.insert(i, at);
                }
            }
            let all = affected.iter().all(|i| resync.contains_key(i));
            if (all && now >= watch_at_least) || now >= cap.max(watch_at_least) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let record_resync: Vec<(String, Option<Duration>)> = affected
            .iter()
            .map(|&i| {
                let took = resync
                    .get(&i)
                    .map(|&at| at.saturating_duration_since(reference_of(i)));
                (at_start[i].name.clone(), took)
            })
            .collect();

        // A killed node comes back (its players have reconnected elsewhere).
        if kind == Kind::Kill {
            nodes[target] = pokerd_with(
                NODES[target],
                &url,
                &nats_url,
                LEASE_MS,
                HEARTBEAT_MS,
                &SETTINGS,
            )
            .await;
            shared.node_up(target, nodes[target].server.addr);
        }

        // The tables spread again (a node back from a kill or a stop is handed its share,
        // between hands), so that the next fault starts from a balanced room, as far as
        // [`SETTLE`] allows.
        let settling = Instant::now();
        let mut balanced_room = false;
        while settling.elapsed() < SETTLE {
            if let Some(now) = leases(&store, &table_ids).await {
                balanced_room = NODES.iter().all(|n| {
                    now.iter().filter(|(node, _)| node == n).count() == TABLES / NODES.len()
                });
                if balanced_room {
                    break;
                }
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let settled = settling.elapsed();

        // The checks: chips conserved, no hand number used twice, voids.
        let audit: Audit = retry("audit", || within(store.audit())).await;
        let balanced = audit.wallets + audit.stacks + audit.rake == deposited;
        if !audit.holds() || !balanced {
            violations.push(format!(
                "after {label}: chips not conserved (chips in play + wallets + rake = \
                 deposits {deposited}): {audit:?}"
            ));
        }
        let now_hands = retry("hands", || hands(&pool)).await;
        for (t, n, c) in &now_hands.reused {
            violations.push(format!(
                "after {label}: hand number {n} used by {c} hands at table {t}"
            ));
        }
        let voided: Vec<(String, u64)> =
            now_hands.void.difference(&voids_before).cloned().collect();
        void_seen.extend(now_hands.void.iter().cloned());
        let shown_before = shown_void.len();
        {
            let results = shared.results.lock().unwrap();
            for (t, r) in results.iter().enumerate() {
                for n in r {
                    if now_hands.void.contains(&(table_text[t].clone(), *n)) {
                        shown_void.insert((t, *n));
                    }
                }
            }
        }
        let record = FaultRecord {
            index: k,
            kind,
            node: hit,
            down,
            resync: record_resync,
            voided,
            moved: moved.len(),
            settled: balanced_room.then_some(settled),
            shown_void: shown_void.len() - shown_before,
        };
        eprintln!(
            "{:?}: {label}: {} affected, all resynced {}, {} tables moved, {} hands voided",
            started.elapsed(),
            record.resync.len(),
            record
                .all_resynced()
                .map_or("never (within the measure)".into(), |d| format!("{d:?}")),
            record.moved,
            record.voided.len()
        );
        records.push(record);
        shared.phase(format!("after fault {k}"), Some(kind));
        tokio::time::sleep(Duration::from_millis(rng.gen_range(200..500))).await;
    }

    // Everyone leaves (after the hand in progress): nobody is seated, and every chip is in
    // a wallet or the rake.
    shared.phase("leaving".into(), None);
    shared.leave.store(true, Ordering::SeqCst);
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut seated = usize::MAX;
    while Instant::now() < deadline {
        let mut count = 0;
        for t in &table_ids {
            let id: poker_store::TableId = t.to_string().parse().unwrap();
            count += retry("seats", || within(store.seats(id))).await.len();
        }
        seated = count;
        if seated == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let final_audit: Audit = retry("audit", || within(store.audit())).await;
    let final_hands = retry("hands", || hands(&pool)).await;
    {
        let results = shared.results.lock().unwrap();
        for (t, r) in results.iter().enumerate() {
            for n in r {
                if final_hands.void.contains(&(table_text[t].clone(), *n)) {
                    shown_void.insert((t, *n));
                }
            }
        }
    }
    void_seen.extend(final_hands.void.iter().cloned());
    shared.stop.store(true, Ordering::SeqCst);
    let silence = silence.await.unwrap();
    let mut silent: Vec<(u64, String)> = silence
        .into_iter()
        .filter(|(_, d)| *d > Duration::from_secs(5))
        .map(|(p, d)| (ms(d), p))
        .collect();
    silent.sort_unstable_by(|a, b| b.cmp(a));
    let mut panicked = Vec::new();
    for (i, task) in tasks.into_iter().enumerate() {
        match tokio::time::timeout(Duration::from_secs(5), task).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => panicked.push(format!("{}: {e}", name(i))),
            Err(_) => panicked.push(format!("{}: did not stop within 5 s", name(i))),
        }
    }

    report_and_check(
        &shared,
        Run {
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
        },
    );
    store.close().await;
    drop(nats);
    drop(nodes);
}
