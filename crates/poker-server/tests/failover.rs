//! Three `pokerd` nodes share one Postgres and one NATS server; each owns one table and
//! every player is connected to a node that does not own their table, so every command
//! and every event crosses NATS. One node is killed with SIGKILL in the middle of a hand:
//! its lease runs out, another node takes its table, voids the cut hand (stacks as it
//! began), sends a fresh snapshot to every connection at that table and plays on; the
//! other tables never stop, no connection to a live node drops, and no chip is lost.

mod common;

use common::cluster::{Node, Stopped};
use common::nats::{nats, nats_server_binary, Proc};
use common::{
    act, assert_conserved, nl_rules, reconnect, simple_action, sit, tid, Client, Db, DbGuard,
    Received,
};
use poker_protocol::{ClientMsg, ErrorCode, ServerMsg, TableId};
use poker_rules::{Action, Event, LegalActions};
use poker_store::{SqlStore, Store};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a node's table leases last, and how often it renews them.
const LEASE_MS: u64 = 3000;
const HEARTBEAT_MS: u64 = 500;
/// What each player deposits, and buys in for.
const DEPOSIT: u64 = 1000;
const BUY_IN: u64 = 150;
/// The nodes' names, by index.
const NODES: [&str; 3] = ["n1", "n2", "n3"];
/// The node killed, and the table it owns (table `i` is created through node `i`).
const KILLED: usize = 0;

/// Starts `pokerd` as a cluster node with this test's lease and heartbeat.
async fn pokerd(name: &'static str, url: &str, nats_url: &str) -> Node {
    common::cluster::pokerd(name, url, nats_url, LEASE_MS, HEARTBEAT_MS).await
}

/// A TCP relay to NATS that can be cut: its connections close, and new ones are closed
/// as soon as they are made, until it is mended.
struct Relay {
    url: String,
    cut: Arc<std::sync::atomic::AtomicBool>,
    /// Each relayed connection's task, to end them on a cut.
    links: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>>,
    accepting: tokio::task::JoinHandle<()>,
}

impl Relay {
    async fn start(to: &str) -> Relay {
        let to = to.trim_start_matches("nats://").to_string();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("nats://{}", listener.local_addr().unwrap());
        let cut = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let links: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>> = Arc::default();
        let (is_cut, tasks) = (cut.clone(), links.clone());
        let accepting = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                if is_cut.load(std::sync::atomic::Ordering::SeqCst) {
                    continue;
                }
                let to = to.clone();
                let link = tokio::spawn(async move {
                    if let Ok(mut outbound) = tokio::net::TcpStream::connect(&to).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
                tasks.lock().unwrap().push(link);
            }
        });
        Relay {
            url,
            cut,
            links,
            accepting,
        }
    }

    /// Closes every connection through it, and every new one until mended.
    fn cut(&self) {
        self.cut.store(true, std::sync::atomic::Ordering::SeqCst);
        for link in self.links.lock().unwrap().drain(..) {
            link.abort();
        }
    }

    fn mend(&self) {
        self.cut.store(false, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.cut();
        self.accepting.abort();
    }
}

/// What a table's players do with their decisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Check or call.
    Play,
    /// Raise the minimum at the next chance, then hold.
    Raise,
    /// Answer nothing: the hand waits.
    Hold,
}

/// One table, as its players saw it.
struct Table {
    id: String,
    tid: TableId,
    /// The node it was created on.
    owner: usize,
    /// Hands seen to end (by any of its players).
    ended: BTreeSet<u64>,
    /// The highest hand number seen.
    latest: u64,
    mode: Mode,
    /// The hand in which `Mode::Raise` raised.
    raised_in: Option<u64>,
    /// The player asked a decision left unanswered in `Mode::Hold`.
    held_by: Option<usize>,
}

/// One player and their connection.
struct Player {
    client: Client,
    token: String,
    table: usize,
    /// The node the connection is on.
    node: usize,
    /// Reconnected to another node after the kill.
    moved: bool,
    /// A connection made after the kill that has not had its table's snapshot yet.
    awaiting_snapshot: Option<Instant>,
    /// Whether it asked for one with `watch`.
    watched: bool,
    /// Snapshots of its table since the kill: when, and the hand in progress in them.
    snapshots: Vec<(Instant, Option<u64>)>,
    pongs: usize,
}

/// The players of every table, driven together.
struct Game {
    players: Vec<Player>,
    tables: Vec<Table>,
    /// Since the kill: a refused stale decision (an answer racing a reconnection) is
    /// tolerated, and so is an answer refused while leaving; any other error fails the
    /// test.
    after_kill: bool,
    /// When the kill happened.
    killed_at: Option<Instant>,
    stale_refusals: usize,
    /// Everyone asked to leave.
    leaving: bool,
    /// Once set, a hand numbered this or lower is void and over: an event or snapshot of
    /// it reaching a player is noted in `stale`.
    void_up_to: Option<u64>,
    stale: Vec<String>,
}

impl Game {
    /// Table `a`'s owner was lost at `at` (killed, frozen, cut off): its next owner numbers
    /// its decisions afresh, so those of the cut hand are forgotten.
    fn owner_lost(&mut self, a: usize, at: Instant) {
        self.after_kill = true;
        self.killed_at = Some(at);
        self.tables[a].mode = Mode::Play;
        self.tables[a].held_by = None;
        for p in self.players.iter_mut().filter(|p| p.table == a) {
            p.client.answered.clear();
            p.client.last_decide = None;
        }
    }

    /// Every player gets a new snapshot within the lease and 10 s of `what` happening.
    async fn resynced(&mut self, what: &str) {
        let resynced = self
            .drive(
                Duration::from_millis(LEASE_MS) + Duration::from_secs(10),
                |g| g.players.iter().all(|p| !p.snapshots.is_empty()),
            )
            .await;
        assert!(
            resynced,
            "every player gets a new snapshot within {LEASE_MS} ms + 10 s of {what}: {}",
            self.state()
        );
    }

    /// Everyone leaves (after the hand in progress): within 20 s nobody is seated at
    /// `tables`, and every chip is in a wallet or the rake.
    async fn everyone_leaves(
        &mut self,
        store: &SqlStore,
        tables: &[poker_store::TableId],
        deposited: i64,
    ) {
        self.leaving = true;
        for p in self.players.iter_mut() {
            let table_id = self.tables[p.table].tid;
            p.client.send(&ClientMsg::Leave { table_id }).await;
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            self.drive(Duration::from_millis(250), |_| false).await;
            let mut seated = 0;
            for &table in tables {
                seated += store.seats(table).await.unwrap().len();
            }
            if seated == 0 {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "everyone has left within 20 s ({seated} still seated): {}",
                self.state()
            );
        }
        let audit = store.audit().await.unwrap();
        assert_eq!(audit.stacks, 0, "nobody is seated: {audit:?}");
        assert_conserved(&audit, deposited);
    }

    fn name(&self, i: usize) -> String {
        let p = &self.players[i];
        format!("{} (on {})", p.client.name, NODES[p.node])
    }

    fn table_of(&self, id: &TableId) -> Option<usize> {
        self.tables.iter().position(|t| &t.tid == id)
    }

    /// Answers a decision (once) as the table's mode says.
    async fn answer(&mut self, i: usize, decision_id: u64, legal: LegalActions) {
        if self.players[i].client.answered.contains(&decision_id) {
            return;
        }
        let table = &mut self.tables[self.players[i].table];
        let action = match table.mode {
            Mode::Hold => {
                table.held_by = Some(i);
                return;
            }
            Mode::Raise => match legal.bet_or_raise {
                Some((min, _)) => {
                    table.raised_in = Some(table.latest);
                    table.mode = Mode::Hold;
                    Action::BetOrRaiseTo { to: min }
                }
                None => simple_action(&legal, false),
            },
            Mode::Play => simple_action(&legal, false),
        };
        let id = table.id.clone();
        self.players[i]
            .client
            .send(&act(&id, decision_id, action))
            .await;
    }

    /// One round: every player answers what it was asked and reads one message.
    async fn step(&mut self) {
        for i in 0..self.players.len() {
            if let Some((id, legal)) = self.players[i].client.last_decide {
                self.answer(i, id, legal).await;
            }
            // A new connection that had no snapshot by itself asks for one.
            if let Some(since) = self.players[i].awaiting_snapshot {
                if !self.players[i].watched && since.elapsed() > Duration::from_secs(2) {
                    let table_id = self.tables[self.players[i].table].tid;
                    self.players[i].watched = true;
                    eprintln!(
                        "{}: no snapshot of its table 2 s after connecting; watching it",
                        self.name(i)
                    );
                    self.players[i]
                        .client
                        .send(&ClientMsg::Watch { table_id })
                        .await;
                }
            }
            let msg = match self.players[i]
                .client
                .recv_or_closed(Duration::from_millis(5))
                .await
            {
                Received::Quiet => continue,
                Received::Closed => panic!(
                    "{}: the connection closed, but that node is alive{}",
                    self.name(i),
                    self.killed_at
                        .map(|k| format!(" ({:?} after the kill)", k.elapsed()))
                        .unwrap_or_default()
                ),
                Received::Msg(msg) => *msg,
            };
            self.handle(i, msg).await;
        }
    }

    async fn handle(&mut self, i: usize, msg: ServerMsg) {
        match msg {
            ServerMsg::Decide {
                decision_id, legal, ..
            } => self.answer(i, decision_id, legal).await,
            ServerMsg::Event {
                table_id,
                hand_number,
                event,
                ..
            } => {
                let Some(t) = self.table_of(&table_id) else {
                    panic!("{}: an event of a table it is not at", self.name(i));
                };
                if self.void_up_to.is_some_and(|v| hand_number <= v) {
                    let text = format!("{}: {event:?} of hand {hand_number}", self.name(i));
                    self.stale.push(text.chars().take(300).collect());
                }
                let table = &mut self.tables[t];
                table.latest = table.latest.max(hand_number);
                if matches!(event, Event::HandEnded { .. }) {
                    table.ended.insert(hand_number);
                }
            }
            ServerMsg::Snapshot { table, hand, .. } => {
                let t = self.players[i].table;
                if table.table_id != self.tables[t].tid {
                    return;
                }
                let hand = hand.map(|h| h.hand_number);
                if let (Some(n), Some(v)) = (hand, self.void_up_to) {
                    if n <= v {
                        self.stale
                            .push(format!("{}: a snapshot in hand {n}", self.name(i)));
                    }
                }
                if let Some(n) = hand {
                    self.tables[t].latest = self.tables[t].latest.max(n);
                }
                let p = &mut self.players[i];
                p.awaiting_snapshot = None;
                if self.after_kill {
                    p.snapshots.push((Instant::now(), hand));
                }
            }
            ServerMsg::Pong => self.players[i].pongs += 1,
            ServerMsg::Error { code, message } => {
                // An answer racing a reconnection, or a leave (a leaving player's turn
                // is folded for them while their answer is on its way).
                let race = (self.after_kill && code == ErrorCode::StaleDecision)
                    || (self.leaving
                        && matches!(code, ErrorCode::StaleDecision | ErrorCode::NotYourTurn));
                if race {
                    self.stale_refusals += 1;
                    eprintln!(
                        "{}: an answer refused, having raced a leave or a reconnection: \
                         {message}",
                        self.name(i)
                    );
                } else {
                    panic!(
                        "{}: unexpected error {code:?}: {message}; its last messages:\n{}",
                        self.name(i),
                        self.recent(i)
                    );
                }
            }
            _ => {}
        }
    }

    /// A player's last messages, for failure messages.
    fn recent(&self, i: usize) -> String {
        let log = &self.players[i].client.log;
        log[log.len().saturating_sub(8)..]
            .iter()
            .map(|m| {
                let text = serde_json::to_string(m).unwrap();
                text.chars().take(300).collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Plays until `done` holds or `within` passes; returns whether `done` held.
    async fn drive(&mut self, within: Duration, mut done: impl FnMut(&Game) -> bool) -> bool {
        let deadline = Instant::now() + within;
        loop {
            if done(self) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            self.step().await;
        }
    }

    /// Hands seen to end at table `t` numbered above `after`.
    fn ended_after(&self, t: usize, after: u64) -> usize {
        self.tables[t].ended.range(after + 1..).count()
    }

    /// Where every table is, for failure messages.
    fn state(&self) -> String {
        self.tables
            .iter()
            .map(|t| {
                format!(
                    "table of {}: mode {:?}, latest hand {}, ended {:?}",
                    NODES[t.owner], t.mode, t.latest, t.ended
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// Seat `seat_no -> stack` of a hand record's starting or finishing stacks.
fn by_seat(seats: &[usize], stacks: &[u64]) -> BTreeMap<u32, u64> {
    assert_eq!(
        seats.len(),
        stacks.len(),
        "a hand record's seats and stacks"
    );
    seats
        .iter()
        .map(|&s| s as u32)
        .zip(stacks.iter().copied())
        .collect()
}

/// Waits until every node's lobby lists every table (5 s at most).
async fn await_lobbies(nodes: &[Node], tables: &[Table]) {
    for node in nodes {
        let mut c = node.server.client("ann").await;
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            c.send(&ClientMsg::ListTables).await;
            let listed = c
                .until(|m| match m {
                    ServerMsg::Tables { tables } => Some(tables.clone()),
                    _ => None,
                })
                .await;
            if tables
                .iter()
                .all(|t| listed.iter().any(|s| s.table_id == t.tid))
            {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the lobby of {} lists {} of the {} tables after 5 s",
                node.name,
                listed.len(),
                tables.len()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// Connects each player of `plan` (name, table, node connected to, seat) to its node,
/// away from its table's owner, and sits them down with `BUY_IN`.
async fn seat_everyone(
    nodes: &[Node],
    tables: &[Table],
    plan: &[(&str, usize, usize, u32)],
) -> Vec<Player> {
    let mut players = Vec::new();
    for &(name, table, node, seat) in plan {
        assert_ne!(table, node, "{name} must be connected away from the owner");
        let token = nodes[node].server.login(name).await;
        let mut client = Client::connect(nodes[node].server.addr, name).await;
        client.auth(&token).await;
        client.send(&sit(&tables[table].id, seat, BUY_IN)).await;
        let bought = client
            .until(|m| match m {
                ServerMsg::Done {
                    request, amount, ..
                } if request == "sit" => Some(*amount),
                _ => None,
            })
            .await;
        assert_eq!(bought, BUY_IN, "{name} bought in through {}", NODES[node]);
        players.push(Player {
            client,
            token,
            table,
            node,
            moved: false,
            awaiting_snapshot: None,
            watched: false,
            snapshots: Vec::new(),
            pongs: 0,
        });
    }
    players
}

/// PostgreSQL, NATS and three nodes on them (the first runs the migrations alone); `None`
/// without PostgreSQL outside CI. Without NATS it fails: it is not skipped like Postgres.
async fn cluster(started: Instant) -> Option<(DbGuard, String, Proc, Vec<Node>)> {
    nats_server_binary();
    let guard = DbGuard::new(Db::Postgres).await?;
    let url = guard.url();
    let (nats, nats_url) = nats().await;
    let mut nodes = Vec::new();
    for name in NODES {
        nodes.push(pokerd(name, &url, &nats_url).await);
    }
    eprintln!("{:?}: three nodes up", started.elapsed());
    Some((guard, url, nats, nodes))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_a_node_killed_mid_hand_loses_no_chip_and_its_tables_resume_elsewhere() {
    let started = Instant::now();
    // Dropped in reverse: the nodes and NATS are killed before the database goes.
    let Some((_guard, url, _nats, mut nodes)) = cluster(started).await else {
        return;
    };

    // Players (created through different nodes: the store is shared) and one table
    // per node, created through that node's admin API.
    let clock = json!({ "action_ms": 10000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    // (name, table, node connected to, seat): nobody is connected to their table's owner,
    // and every node has connections.
    let plan: [(&str, usize, usize, u32); 7] = [
        ("ann", 0, 1, 0),
        ("amy", 0, 2, 1),
        ("abe", 0, 1, 2),
        ("bob", 1, 0, 0),
        ("bea", 1, 2, 1),
        ("cal", 2, 0, 0),
        ("cat", 2, 1, 1),
    ];
    for (k, (name, ..)) in plan.iter().enumerate() {
        nodes[k % 3].server.player(name, DEPOSIT).await;
    }
    let deposited = (DEPOSIT * plan.len() as u64) as i64;
    let mut tables = Vec::new();
    for (owner, node) in nodes.iter().enumerate() {
        let id = node.server.table_with(nl_rules(), clock.clone()).await;
        tables.push(Table {
            tid: tid(&id),
            id,
            owner,
            ended: BTreeSet::new(),
            latest: 0,
            mode: Mode::Play,
            raised_in: None,
            held_by: None,
        });
    }
    let store = SqlStore::connect(&url).await.unwrap();
    let store_id = |t: &Table| -> poker_store::TableId { t.id.parse().unwrap() };
    let leases = store.leases().await.unwrap();
    let mut tokens = Vec::new();
    for t in &tables {
        let lease = leases
            .iter()
            .find(|l| l.table_id == store_id(t))
            .unwrap_or_else(|| panic!("the table created on {} has no lease", NODES[t.owner]));
        assert_eq!(
            lease.node, NODES[t.owner],
            "a table created through a node's admin API is owned by that node: {lease:?}"
        );
        tokens.push(lease.token);
    }

    // Every node's lobby lists every table.
    await_lobbies(&nodes, &tables).await;

    // Everyone connects to a node that does not own their table, and sits down.
    let players = seat_everyone(&nodes, &tables, &plan).await;
    let mut game = Game {
        players,
        tables,
        after_kill: false,
        killed_at: None,
        stale_refusals: 0,
        leaving: false,
        void_up_to: None,
        stale: Vec::new(),
    };

    // A few hands everywhere: commands go to the owners and events come back, across
    // NATS both ways.
    let played = game
        .drive(Duration::from_secs(30), |g| {
            g.tables.iter().all(|t| t.ended.len() >= 3)
        })
        .await;
    assert!(
        played,
        "every table plays 3 hands with its players on other nodes: {}",
        game.state()
    );
    eprintln!("{:?}: 3 hands on every table", started.elapsed());

    // At n1's table, someone raises and the next player is asked and does not answer;
    // then n1 dies.
    let a = KILLED;
    game.tables[a].mode = Mode::Raise;
    let held = game
        .drive(Duration::from_secs(15), |g| g.tables[a].held_by.is_some())
        .await;
    assert!(
        held,
        "a raise at n1's table, then a decision left waiting: {}",
        game.state()
    );
    let cut = game.tables[a].latest;
    assert_eq!(
        game.tables[a].raised_in,
        Some(cut),
        "the decision held is in the hand that had the raise"
    );
    let before: Vec<u64> = game.tables.iter().map(|t| t.latest).collect();
    let lease = store
        .leases()
        .await
        .unwrap()
        .into_iter()
        .find(|l| l.table_id == store_id(&game.tables[a]))
        .unwrap();
    assert_eq!(lease.node, "n1", "n1 still owns its table before the kill");
    let token_before = lease.token;
    nodes[KILLED].proc.kill();
    let killed_at = Instant::now();
    game.owner_lost(a, killed_at);
    eprintln!(
        "{:?}: n1 killed in hand {cut} of its table",
        started.elapsed()
    );

    // The store as n1 left it: the cut hand never committed, and the stacks stored are
    // those it began with (the last committed hand's finishing stacks).
    let table_a = store_id(&game.tables[a]);
    let hands = store.table_hands(table_a, 100, 0).await.unwrap();
    let cut_row = hands
        .iter()
        .find(|h| h.number == cut)
        .unwrap_or_else(|| panic!("hand {cut} (the cut one) was recorded as started"));
    assert_ne!(
        cut_row.status, "complete",
        "hand {cut} was cut before it ended, so it cannot be complete"
    );
    let last = hands
        .iter()
        .filter(|h| h.number < cut && h.status == "complete")
        .max_by_key(|h| h.number)
        .expect("a hand completed before the cut one");
    let record = last.record.as_ref().expect("a complete hand has a record");
    let began_with = by_seat(&record.seats, &record.finishing_stacks);
    let stored: BTreeMap<u32, u64> = store
        .seats(table_a)
        .await
        .unwrap()
        .iter()
        .map(|s| (s.seat_no, s.stack))
        .collect();
    assert_eq!(
        stored, began_with,
        "the stacks stored are those hand {cut} began with (hand {}'s finishing stacks)",
        last.number
    );

    // Players whose connection was on n1 lose it: they reconnect to a live node that does
    // not own their table (their session token is good anywhere).
    for p in game.players.iter_mut().filter(|p| p.node == KILLED) {
        let to = (0..NODES.len())
            .find(|&n| n != KILLED && n != game.tables[p.table].owner)
            .unwrap();
        reconnect(&mut p.client, nodes[to].server.addr, &p.token).await;
        // An answer sent just before the kill may have died with n1.
        p.client.answered.clear();
        p.node = to;
        p.moved = true;
        p.awaiting_snapshot = Some(Instant::now());
    }

    // Within the lease and a margin, everyone at n1's former table (all on n2 and n3,
    // none reconnected) gets a fresh snapshot of it, without the cut hand in it.
    let resynced = game
        .drive(
            Duration::from_millis(LEASE_MS) + Duration::from_secs(10),
            |g| {
                g.players
                    .iter()
                    .filter(|p| p.table == a)
                    .all(|p| !p.snapshots.is_empty())
            },
        )
        .await;
    let missing: Vec<&str> = game
        .players
        .iter()
        .filter(|p| p.table == a && p.snapshots.is_empty())
        .map(|p| p.client.name.as_str())
        .collect();
    assert!(
        resynced,
        "within {LEASE_MS} ms + 10 s of n1's death every player at its table gets a new \
         snapshot; none came for {missing:?}: {}",
        game.state()
    );
    for p in game.players.iter().filter(|p| p.table == a) {
        let (at, hand) = p.snapshots[0];
        eprintln!(
            "{}: snapshot {:?} after the kill (hand {hand:?})",
            p.client.name,
            at - killed_at
        );
        for (_, hand) in &p.snapshots {
            assert!(
                hand.is_none_or(|n| n > cut),
                "{}: a snapshot after the takeover shows hand {hand:?}, but hand {cut} is \
                 void and must not go on",
                p.client.name
            );
        }
    }

    // Play resumes there (two more hands, numbered after the cut one), and the other
    // tables keep going (a hand dealt after the kill ends at each), reconnected players
    // included.
    let resumed = game
        .drive(Duration::from_secs(20), |g| {
            g.ended_after(a, cut) >= 2
                && (0..g.tables.len())
                    .filter(|&t| t != a)
                    .all(|t| g.ended_after(t, before[t]) >= 1)
                && g.players.iter().all(|p| p.awaiting_snapshot.is_none())
        })
        .await;
    let waiting: Vec<&str> = game
        .players
        .iter()
        .filter(|p| p.awaiting_snapshot.is_some())
        .map(|p| p.client.name.as_str())
        .collect();
    assert!(
        resumed,
        "after the takeover 2 hands end at n1's former table and 1 at each other table, \
         and reconnected players get their table's snapshot (still waiting: {waiting:?}); \
         hands in progress at the kill: {before:?}; {}",
        game.state()
    );
    eprintln!(
        "{:?}: play resumed everywhere ({} stale answers refused so far)",
        started.elapsed(),
        game.stale_refusals
    );

    // A new owner serves it: another node holds the lease, with a higher fencing token;
    // the other tables stayed where they were.
    let leases = store.leases().await.unwrap();
    for (t, table) in game.tables.iter().enumerate() {
        let lease = leases
            .iter()
            .find(|l| l.table_id == store_id(table))
            .unwrap();
        if t == a {
            assert!(
                lease.node == "n2" || lease.node == "n3",
                "n1's table passed to a live node: {lease:?}"
            );
            assert!(
                lease.token > token_before,
                "the new owner's fencing token is above n1's ({token_before}): {lease:?}"
            );
            eprintln!("n1's table is now {}'s (token {})", lease.node, lease.token);
        } else {
            assert_eq!(
                (lease.node.as_str(), lease.token),
                (NODES[table.owner], tokens[t]),
                "a live node keeps its table and its token"
            );
        }
    }

    // The cut hand is void, and the first hand after it was dealt from the stacks it
    // began with.
    let hands = store.table_hands(table_a, 100, 0).await.unwrap();
    let cut_row = hands.iter().find(|h| h.number == cut).unwrap();
    assert_eq!(
        cut_row.status, "void",
        "hand {cut}, cut by the kill, is void"
    );
    let next = hands
        .iter()
        .filter(|h| h.number > cut && h.status == "complete")
        .min_by_key(|h| h.number)
        .expect("a hand completed after the takeover");
    let record = next.record.as_ref().expect("a complete hand has a record");
    assert_eq!(
        by_seat(&record.seats, &record.starting_stacks),
        began_with,
        "hand {} (the first after the takeover) began with the stacks hand {cut} began with",
        next.number
    );
    assert_conserved(&store.audit().await.unwrap(), deposited);

    // Nobody on n2 or n3 lost their connection: it never closed (the driver fails on a
    // close) and still answers.
    for p in game.players.iter_mut() {
        p.client.send(&ClientMsg::Ping).await;
    }
    let answered = game
        .drive(Duration::from_secs(10), |g| {
            g.players.iter().all(|p| p.pongs > 0)
        })
        .await;
    assert!(answered, "every connection answers a ping at the end");
    assert_eq!(
        game.players.iter().filter(|p| !p.moved).count(),
        5,
        "only the two players connected to n1 had to reconnect"
    );

    // Everyone leaves (after the hand in progress); every chip is in a wallet or the rake.
    let tables: Vec<_> = game.tables.iter().map(store_id).collect();
    game.everyone_leaves(&store, &tables, deposited).await;
    store.close().await;
    for node in nodes.iter_mut() {
        node.proc.kill();
    }
    eprintln!("{:?}: done", started.elapsed());
}

/// Each hand row of a table: number -> (id, status, end), as text to compare.
async fn hand_rows(store: &SqlStore, table: poker_store::TableId) -> BTreeMap<u64, String> {
    let hands = store.table_hands(table, 1_000_000, 0).await.unwrap();
    let mut rows = BTreeMap::new();
    for h in &hands {
        let row = format!("{:?} {:?} ended {:?}", h.hand_id, h.status, h.ended_at);
        assert!(
            rows.insert(h.number, row).is_none(),
            "two hand rows numbered {} at one table: {hands:?}",
            h.number
        );
    }
    rows
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_a_frozen_owner_that_wakes_up_after_its_lease_passed_on_commits_nothing() {
    let started = Instant::now();
    // Dropped in reverse: the nodes and NATS are killed before the database goes.
    let Some((_guard, url, _nats, mut nodes)) = cluster(started).await else {
        return;
    };

    // One table, n1's; its three players are connected to n2 and n3.
    // n1 stays frozen past the clock of the decision it was waiting for, so that when it
    // wakes its timer has run out and it would fold that player and end the hand.
    let action_ms: u64 = 10000;
    let clock = json!({ "action_ms": action_ms, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    let plan: [(&str, usize, usize, u32); 3] =
        [("ann", 0, 1, 0), ("amy", 0, 2, 1), ("abe", 0, 1, 2)];
    for (k, (name, ..)) in plan.iter().enumerate() {
        nodes[k % 3].server.player(name, DEPOSIT).await;
    }
    let deposited = (DEPOSIT * plan.len() as u64) as i64;
    let id = nodes[KILLED].server.table_with(nl_rules(), clock).await;
    let tables = vec![Table {
        tid: tid(&id),
        id,
        owner: KILLED,
        ended: BTreeSet::new(),
        latest: 0,
        mode: Mode::Play,
        raised_in: None,
        held_by: None,
    }];
    let store = SqlStore::connect(&url).await.unwrap();
    let table_a: poker_store::TableId = tables[0].id.parse().unwrap();
    let lease_of = |leases: Vec<poker_store::Lease>| {
        leases
            .into_iter()
            .find(|l| l.table_id == table_a)
            .expect("the table has a lease")
    };
    await_lobbies(&nodes, &tables).await;
    let players = seat_everyone(&nodes, &tables, &plan).await;
    let mut game = Game {
        players,
        tables,
        after_kill: false,
        killed_at: None,
        stale_refusals: 0,
        leaving: false,
        void_up_to: None,
        stale: Vec::new(),
    };
    let a = 0;

    // Two hands, then a raise and a decision left waiting.
    let played = game
        .drive(Duration::from_secs(20), |g| g.tables[a].ended.len() >= 2)
        .await;
    assert!(played, "2 hands at n1's table: {}", game.state());
    game.tables[a].mode = Mode::Raise;
    let held = game
        .drive(Duration::from_secs(15), |g| g.tables[a].held_by.is_some())
        .await;
    assert!(held, "a raise, then a decision waiting: {}", game.state());
    let cut = game.tables[a].latest;
    let before = lease_of(store.leases().await.unwrap());
    assert_eq!(before.node, "n1", "n1 owns its table before it freezes");

    // n1 freezes (SIGSTOP): its process lives on, holding its table's actor mid-hand.
    let mut frozen = Stopped::stop(&nodes[KILLED].proc);
    let frozen_at = Instant::now();
    game.owner_lost(a, frozen_at);
    eprintln!(
        "{:?}: n1 frozen in hand {cut} of its table",
        started.elapsed()
    );

    // Another node takes the table over: every player gets a fresh snapshot, without the
    // cut hand, and the lease is that node's with a higher token.
    game.resynced("n1 freezing").await;
    for p in &game.players {
        for (_, hand) in &p.snapshots {
            assert!(
                hand.is_none_or(|n| n > cut),
                "{}: a snapshot after the takeover shows hand {hand:?}, but hand {cut} is void",
                p.client.name
            );
        }
    }
    let taken = lease_of(store.leases().await.unwrap());
    assert!(
        taken.node != "n1" && taken.token > before.token,
        "a live node holds n1's table with a token above n1's ({}): {taken:?}",
        before.token
    );
    eprintln!(
        "{:?}: {} took the table (token {} -> {})",
        started.elapsed(),
        taken.node,
        before.token,
        taken.token
    );
    assert!(
        nodes[KILLED].proc.exited().is_none(),
        "n1 is frozen, not dead"
    );

    // A full hand at the new owner, then one in progress with a decision waiting.
    let resumed = game
        .drive(Duration::from_secs(15), |g| g.ended_after(a, cut) >= 1)
        .await;
    assert!(resumed, "a hand ends at the new owner: {}", game.state());
    game.tables[a].mode = Mode::Hold;
    let held = game
        .drive(Duration::from_secs(15), |g| g.tables[a].held_by.is_some())
        .await;
    assert!(
        held,
        "a decision waiting at the new owner: {}",
        game.state()
    );
    let frozen_for = Duration::from_millis(action_ms + 500);
    game.drive(frozen_for.saturating_sub(frozen_at.elapsed()), |_| false)
        .await;
    let in_progress = game.tables[a].latest;
    assert!(
        !game.tables[a].ended.contains(&in_progress) && in_progress > cut,
        "hand {in_progress} is in progress at the new owner: {}",
        game.state()
    );
    let rows_before = hand_rows(&store, table_a).await;
    assert!(
        rows_before[&cut].contains("Void"),
        "the new owner voided hand {cut}: {}",
        rows_before[&cut]
    );

    // n1 wakes, long after its lease passed on and after the clock of the decision it was
    // waiting for ran out. Play goes on meanwhile; n1 gets more than two heartbeats.
    game.void_up_to = Some(cut);
    frozen.wake();
    let woke_at = Instant::now();
    eprintln!(
        "{:?}: n1 woken ({:?} frozen) in hand {in_progress} of the new owner",
        started.elapsed(),
        woke_at - frozen_at
    );
    game.tables[a].mode = Mode::Play;
    game.tables[a].held_by = None;
    let awake = Duration::from_millis(6 * HEARTBEAT_MS).max(Duration::from_secs(3));
    let went_on = game
        .drive(Duration::from_secs(20), |g| {
            woke_at.elapsed() >= awake && g.ended_after(a, in_progress) >= 1
        })
        .await;
    assert!(
        went_on,
        "after n1 wakes, hand {in_progress} and a later one end at the new owner: {}",
        game.state()
    );
    assert!(
        game.tables[a].ended.contains(&in_progress),
        "hand {in_progress}, in progress when n1 woke, ended: {}",
        game.state()
    );
    eprintln!(
        "{:?}: play went on after n1 woke ({} hands ended in all); n1's last lines:\n{}",
        started.elapsed(),
        game.tables[a].ended.len(),
        nodes[KILLED].proc.tail()
    );

    // n1 wrote nothing: the lease is still the new owner's, with the same token; every
    // hand row that existed when n1 woke is as it was (the cut hand still void), except
    // the hand then in progress, which the new owner completed; and the hands after it
    // are numbered on, one row each (hand_rows checks), none void.
    let after = lease_of(store.leases().await.unwrap());
    assert_eq!(
        (after.node.as_str(), after.token),
        (taken.node.as_str(), taken.token),
        "the lease stays with the new owner after n1 wakes: {after:?}"
    );
    let rows_after = hand_rows(&store, table_a).await;
    for (n, row) in &rows_before {
        if *n == in_progress {
            assert!(
                rows_after[n].contains("Complete"),
                "hand {n} completed after n1 woke: {}",
                rows_after[n]
            );
        } else {
            assert_eq!(&rows_after[n], row, "hand {n}'s row changed after n1 woke");
        }
    }
    for (n, row) in rows_after.range(in_progress + 1..) {
        assert!(
            !row.contains("Void"),
            "hand {n}, dealt after n1 woke, is void: {row}"
        );
    }
    assert_eq!(
        rows_after.keys().copied().collect::<Vec<_>>(),
        (1..=*rows_after.keys().last().unwrap()).collect::<Vec<_>>(),
        "the table's hands are numbered without gaps: {rows_after:?}"
    );
    // Nothing of the void hand reaches a player once n1 is awake (its actor must not time
    // out the decision it was waiting for and broadcast that before it stops).
    assert!(
        game.stale.is_empty(),
        "after n1 woke, players were sent messages of hands up to the void hand {cut}: {:#?}",
        game.stale
    );
    assert_conserved(&store.audit().await.unwrap(), deposited);

    // Every connection still answers.
    for p in game.players.iter_mut() {
        p.client.send(&ClientMsg::Ping).await;
    }
    let answered = game
        .drive(Duration::from_secs(10), |g| {
            g.players.iter().all(|p| p.pongs > 0)
        })
        .await;
    assert!(answered, "every connection answers a ping at the end");

    // Everyone leaves; every chip is in a wallet or the rake.
    game.everyone_leaves(&store, &[table_a], deposited).await;
    let rows_end = hand_rows(&store, table_a).await;
    assert!(
        rows_end[&cut].contains("Void"),
        "hand {cut} is still void at the end: {}",
        rows_end[&cut]
    );
    store.close().await;
    drop(frozen);
    for node in nodes.iter_mut() {
        node.proc.kill();
    }
    eprintln!("{:?}: done", started.elapsed());
}

impl Game {
    /// Connects a player to a node and sits them at table `t`, playing on meanwhile; a
    /// `table_moving` refusal (the table is being handed between nodes) is retried, as
    /// a client would. Returns the refusals.
    async fn join(&mut self, node: &Node, n: usize, name: &str, t: usize, seat: u32) -> usize {
        let token = node.server.login(name).await;
        let mut client = Client::connect(node.server.addr, name).await;
        client.auth(&token).await;
        let sit_down = sit(&self.tables[t].id, seat, BUY_IN);
        client.send(&sit_down).await;
        let mut refused = 0;
        let mut again: Option<Instant> = None;
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            assert!(
                Instant::now() < deadline,
                "{name} is seated through {} within 20 s ({refused} refusals): {}",
                node.name,
                self.state()
            );
            self.step().await;
            if again.is_some_and(|at| Instant::now() >= at) {
                again = None;
                client.send(&sit_down).await;
            }
            match client.recv_or_closed(Duration::from_millis(5)).await {
                Received::Msg(msg) => match *msg {
                    ServerMsg::Done {
                        request, amount, ..
                    } if request == "sit" => {
                        assert_eq!(amount, BUY_IN, "{name} bought in");
                        break;
                    }
                    ServerMsg::Error {
                        code: ErrorCode::TableMoving,
                        ..
                    } => {
                        refused += 1;
                        again = Some(Instant::now() + Duration::from_millis(300));
                    }
                    ServerMsg::Error { code, message } => {
                        panic!("{name}: sitting down, unexpected error {code:?}: {message}")
                    }
                    _ => {}
                },
                Received::Quiet => {}
                Received::Closed => panic!("{name}: the connection closed while sitting down"),
            }
        }
        self.players.push(Player {
            client,
            token,
            table: t,
            node: n,
            moved: false,
            awaiting_snapshot: None,
            watched: false,
            snapshots: Vec::new(),
            pongs: 0,
        });
        refused
    }
}

/// How many tables each node holds a live lease on.
async fn lease_counts(store: &SqlStore) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for lease in store.leases().await.unwrap().into_iter().filter(|l| l.live) {
        *counts.entry(lease.node).or_default() += 1;
    }
    counts
}

/// Four tables are created while only n1 runs, and played at by players connected to n1.
/// n2 starts: n1, over its fair share, hands two tables over, each once its hand in
/// progress has ended, and n2 takes them; players connected to n2 sit down meanwhile.
/// Every hand is committed (none is void), play goes on everywhere, no connection
/// closes, the tables stay where they went, and every chip is accounted for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_a_node_that_joins_later_is_handed_its_share_of_tables_between_hands() {
    let started = Instant::now();
    nats_server_binary();
    let Some(guard) = DbGuard::new(Db::Postgres).await else {
        return;
    };
    let url = guard.url();
    let (_nats, nats_url) = nats().await;
    let mut nodes = vec![pokerd(NODES[0], &url, &nats_url).await];
    let clock = json!({ "action_ms": 10000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    const TABLES: usize = 4;
    let name = |t: usize, k: usize| format!("{}{}", ["ann", "bob", "cal", "dan"][t], k);
    for t in 0..TABLES {
        for k in 0..3 {
            nodes[0].server.player(&name(t, k), DEPOSIT).await;
        }
    }
    let deposited = (DEPOSIT * 3 * TABLES as u64) as i64;
    let mut tables = Vec::new();
    for _ in 0..TABLES {
        let id = nodes[0].server.table_with(nl_rules(), clock.clone()).await;
        tables.push(Table {
            tid: tid(&id),
            id,
            owner: 0,
            ended: BTreeSet::new(),
            latest: 0,
            mode: Mode::Play,
            raised_in: None,
            held_by: None,
        });
    }
    let store = SqlStore::connect(&url).await.unwrap();
    let store_id = |t: &Table| -> poker_store::TableId { t.id.parse().unwrap() };
    assert_eq!(
        lease_counts(&store).await,
        BTreeMap::from([("n1".to_string(), TABLES)]),
        "n1, alone, holds every table"
    );
    let mut game = Game {
        players: Vec::new(),
        tables,
        after_kill: false,
        killed_at: None,
        stale_refusals: 0,
        leaving: false,
        void_up_to: None,
        stale: Vec::new(),
    };
    // Two players at each table, connected to n1; two hands everywhere.
    for t in 0..TABLES {
        for k in 0..2 {
            let refused = game.join(&nodes[0], 0, &name(t, k), t, k as u32).await;
            assert_eq!(refused, 0, "nothing moves while n1 is alone");
        }
    }
    let played = game
        .drive(Duration::from_secs(30), |g| {
            g.tables.iter().all(|t| t.ended.len() >= 2)
        })
        .await;
    assert!(played, "2 hands at every table on n1: {}", game.state());
    eprintln!(
        "{:?}: n1 alone played 2 hands at each table",
        started.elapsed()
    );

    // n2 joins; a third player at each table sits down through it (while tables move).
    nodes.push(pokerd(NODES[1], &url, &nats_url).await);
    let joined_at = Instant::now();
    eprintln!("{:?}: n2 up", started.elapsed());
    let mut refused = 0;
    for t in 0..TABLES {
        refused += game.join(&nodes[1], 1, &name(t, 2), t, 2).await;
    }
    eprintln!(
        "{:?}: the players on n2 are seated ({refused} sits refused as moving)",
        started.elapsed()
    );

    // Within a few heartbeats of hands, each node holds half the tables.
    let half = BTreeMap::from([
        ("n1".to_string(), TABLES / 2),
        ("n2".to_string(), TABLES / 2),
    ]);
    let deadline = joined_at + Duration::from_secs(20);
    loop {
        let counts = lease_counts(&store).await;
        if counts == half {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "each node holds {} tables within 20 s of n2 joining: {counts:?}; {}",
            TABLES / 2,
            game.state()
        );
        game.drive(Duration::from_millis(100), |_| false).await;
    }
    let balanced_at = Instant::now();
    eprintln!(
        "{:?}: balanced {:?} after n2 started",
        started.elapsed(),
        balanced_at - joined_at
    );
    let leases: BTreeMap<_, _> = store
        .leases()
        .await
        .unwrap()
        .into_iter()
        .map(|l| (l.table_id, (l.node, l.token)))
        .collect();

    // Play goes on at every table, two more hands each, with nobody refused anything.
    let before: Vec<u64> = game.tables.iter().map(|t| t.latest).collect();
    let went_on = game
        .drive(Duration::from_secs(30), |g| {
            (0..TABLES).all(|t| g.ended_after(t, before[t]) >= 2)
        })
        .await;
    assert!(
        went_on,
        "2 more hands at every table once balanced: {}",
        game.state()
    );
    assert_eq!(game.stale_refusals, 0);
    // Many heartbeats later, no table moved again (and none moved twice: its token).
    let now: BTreeMap<_, _> = store
        .leases()
        .await
        .unwrap()
        .into_iter()
        .map(|l| (l.table_id, (l.node, l.token)))
        .collect();
    assert_eq!(now, leases, "the tables stay where they went");
    for table in &game.tables {
        let (node, token) = &leases[&store_id(table)];
        assert!(
            (node == "n1" && *token == 1) || (node == "n2" && *token == 2),
            "a table is n1's first lease or moved once, to n2: {node} {token}"
        );
    }

    // Every hand dealt was committed: none void, numbered without gaps, and each hand a
    // player saw end is complete.
    for (t, table) in game.tables.iter().enumerate() {
        let rows = hand_rows(&store, store_id(table)).await;
        assert_eq!(
            rows.keys().copied().collect::<Vec<_>>(),
            (1..=*rows.keys().last().unwrap()).collect::<Vec<_>>(),
            "table {t}'s hands are numbered without gaps: {rows:?}"
        );
        for (n, row) in &rows {
            assert!(!row.contains("Void"), "table {t}: hand {n} is void: {row}");
        }
        for n in &table.ended {
            assert!(
                rows[n].contains("Complete"),
                "table {t}: hand {n} ended but is not complete: {}",
                rows[n]
            );
        }
    }
    assert_conserved(&store.audit().await.unwrap(), deposited);

    // Every connection still answers; then everyone leaves and every chip is in a wallet.
    for p in game.players.iter_mut() {
        p.client.send(&ClientMsg::Ping).await;
    }
    let answered = game
        .drive(Duration::from_secs(10), |g| {
            g.players.iter().all(|p| p.pongs > 0)
        })
        .await;
    assert!(answered, "every connection answers a ping at the end");
    let tables: Vec<_> = game.tables.iter().map(store_id).collect();
    game.everyone_leaves(&store, &tables, deposited).await;
    store.close().await;
    for node in nodes.iter_mut() {
        node.proc.kill();
    }
    eprintln!("{:?}: done", started.elapsed());
}

/// n1 reaches NATS through a relay, n2 directly; n1 owns the table, whose players are
/// connected to n2. The relay is cut in the middle of a hand: n1 still reaches the
/// database but no player can reach its table, so it renews no lease; once its lease has
/// run out n2 takes the table (voiding the cut hand) and play goes on. When n1 is reached
/// again it finds the table gone and stops it; it commits nothing, and every chip is
/// accounted for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_a_node_cut_off_from_nats_renews_no_lease_and_its_table_moves() {
    let started = Instant::now();
    nats_server_binary();
    let Some(guard) = DbGuard::new(Db::Postgres).await else {
        return;
    };
    let url = guard.url();
    let (_nats, nats_url) = nats().await;
    let relay = Relay::start(&nats_url).await;
    let mut nodes = vec![
        pokerd(NODES[0], &url, &relay.url).await,
        pokerd(NODES[1], &url, &nats_url).await,
    ];
    let clock = json!({ "action_ms": 10000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    let plan = ["ann", "amy", "abe"];
    for name in plan {
        nodes[1].server.player(name, DEPOSIT).await;
    }
    let deposited = (DEPOSIT * plan.len() as u64) as i64;
    let id = nodes[0].server.table_with(nl_rules(), clock).await;
    let table_a: poker_store::TableId = id.parse().unwrap();
    let tables = vec![Table {
        tid: tid(&id),
        id,
        owner: 0,
        ended: BTreeSet::new(),
        latest: 0,
        mode: Mode::Play,
        raised_in: None,
        held_by: None,
    }];
    let store = SqlStore::connect(&url).await.unwrap();
    let lease_of = |leases: Vec<poker_store::Lease>| {
        leases
            .into_iter()
            .find(|l| l.table_id == table_a)
            .expect("the table has a lease")
    };
    await_lobbies(&nodes, &tables).await;
    let mut game = Game {
        players: Vec::new(),
        tables,
        after_kill: false,
        killed_at: None,
        stale_refusals: 0,
        leaving: false,
        void_up_to: None,
        stale: Vec::new(),
    };
    for (seat, name) in plan.iter().enumerate() {
        game.join(&nodes[1], 1, name, 0, seat as u32).await;
    }
    let a = 0;

    // Two hands, then a raise and a decision left waiting; then n1 loses NATS.
    let played = game
        .drive(Duration::from_secs(20), |g| g.tables[a].ended.len() >= 2)
        .await;
    assert!(played, "2 hands at n1's table: {}", game.state());
    game.tables[a].mode = Mode::Raise;
    let held = game
        .drive(Duration::from_secs(15), |g| g.tables[a].held_by.is_some())
        .await;
    assert!(held, "a raise, then a decision waiting: {}", game.state());
    let cut = game.tables[a].latest;
    let before = lease_of(store.leases().await.unwrap());
    assert_eq!(before.node, "n1", "n1 owns its table before it is cut off");
    relay.cut();
    let cut_at = Instant::now();
    game.owner_lost(a, cut_at);
    eprintln!(
        "{:?}: n1 cut off from NATS in hand {cut}",
        started.elapsed()
    );

    // n2 takes the table once n1's lease has run out: everyone gets a snapshot without
    // the cut hand, and two hands end there.
    game.resynced("n1 losing NATS").await;
    let taken = lease_of(store.leases().await.unwrap());
    assert!(
        taken.node == "n2" && taken.token > before.token,
        "n2 holds n1's table with a higher token: {taken:?}"
    );
    eprintln!(
        "{:?}: n2 took the table, snapshots {:?} after the cut",
        started.elapsed(),
        game.players
            .iter()
            .map(|p| p.snapshots[0].0 - cut_at)
            .collect::<Vec<_>>()
    );
    for p in &game.players {
        for (_, hand) in &p.snapshots {
            assert!(
                hand.is_none_or(|n| n > cut),
                "{}: a snapshot after the takeover shows hand {hand:?}, but hand {cut} is void",
                p.client.name
            );
        }
    }
    let resumed = game
        .drive(Duration::from_secs(15), |g| g.ended_after(a, cut) >= 2)
        .await;
    assert!(resumed, "2 hands end at n2: {}", game.state());
    assert!(nodes[0].proc.exited().is_none(), "n1 is cut off, not dead");

    // NATS reaches n1 again: it finds its table gone and stops it there; the lease stays
    // n2's, and play goes on.
    relay.mend();
    let mended_at = Instant::now();
    game.void_up_to = Some(cut);
    let deadline = mended_at + Duration::from_secs(15);
    loop {
        let stopped = nodes[0]
            .warnings
            .lock()
            .unwrap()
            .iter()
            .any(|w| w.contains("stopping it here"));
        if stopped {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "n1 stops its table within 15 s of reaching NATS again; its last lines:\n{}",
            nodes[0].proc.tail()
        );
        game.drive(Duration::from_millis(100), |_| false).await;
    }
    eprintln!(
        "{:?}: n1 stopped its table {:?} after NATS came back",
        started.elapsed(),
        mended_at.elapsed()
    );
    let latest = game.tables[a].latest;
    let went_on = game
        .drive(Duration::from_secs(15), |g| g.ended_after(a, latest) >= 1)
        .await;
    assert!(went_on, "play goes on at n2: {}", game.state());
    let after = lease_of(store.leases().await.unwrap());
    assert_eq!(
        (after.node.as_str(), after.token),
        (taken.node.as_str(), taken.token),
        "the lease stays n2's"
    );
    let rows = hand_rows(&store, table_a).await;
    assert!(
        rows[&cut].contains("Void"),
        "hand {cut} is void: {}",
        rows[&cut]
    );
    for (n, row) in rows.range(cut + 1..) {
        assert!(
            !row.contains("Void"),
            "hand {n}, dealt at n2, is void: {row}"
        );
    }
    assert!(
        game.stale.is_empty(),
        "players were sent messages of hands up to the void hand {cut}: {:#?}",
        game.stale
    );

    // Everyone leaves; every chip is in a wallet or the rake.
    game.everyone_leaves(&store, &[table_a], deposited).await;
    store.close().await;
    for node in nodes.iter_mut() {
        node.proc.kill();
    }
    eprintln!("{:?}: done", started.elapsed());
}

/// A batch as the owner sends it to an inbox (the cluster's wire format): per frame, 1 if
/// it is the subscriber's own, its length (4 bytes, little-endian) and its JSON text.
fn wire_batch(frames: &[serde_json::Value]) -> bytes::Bytes {
    let mut out = Vec::new();
    for frame in frames {
        let text = frame.to_string();
        out.push(0);
        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
        out.extend_from_slice(text.as_bytes());
    }
    out.into()
}

/// The texts of a batch a connection's queue received.
fn texts(batch: poker_server::table::Batch) -> Vec<serde_json::Value> {
    batch
        .into_iter()
        .map(|frame| match frame {
            poker_server::table::Out::Own(msg) => serde_json::to_value(&*msg).unwrap(),
            poker_server::table::Out::Shared(text) => serde_json::from_str(text.as_str()).unwrap(),
        })
        .collect()
}

/// A connection on one node watching a table another node owns, whose queue is full when
/// more of the table's batches arrive: they are dropped, not awaited (the NATS reader
/// never waits for a slow connection), and once the connection has room it subscribes to
/// the table again, so the owner sends a snapshot; what comes of the table before that
/// snapshot is dropped too. The owner here is played by a bare NATS client.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_a_slow_connection_to_a_remote_table_is_resynced_with_a_snapshot() {
    use futures_util::StreamExt;
    let (_nats, nats_url) = nats().await;
    let config = poker_server::config::ClusterConfig {
        nats_url: nats_url.clone(),
        node: "gateway".into(),
        lease_ms: LEASE_MS,
        heartbeat_ms: HEARTBEAT_MS,
    };
    let cluster = poker_server::cluster::Cluster::connect(&config)
        .await
        .unwrap();
    let table = TableId::new();
    let player = poker_protocol::PlayerId::new();

    // The owner: answers each subscription, telling the test its inbox and player.
    let owner = async_nats::connect(nats_url.as_str()).await.unwrap();
    let mut commands = owner
        .subscribe(format!("pokerd.table.{table}"))
        .await
        .unwrap();
    owner.flush().await.unwrap();
    let (subscribed_tx, mut subscribed) = tokio::sync::mpsc::unbounded_channel();
    let answering = owner.clone();
    tokio::spawn(async move {
        while let Some(request) = commands.next().await {
            let envelope: serde_json::Value = serde_json::from_slice(&request.payload).unwrap();
            let sub = &envelope["request"]["Subscribe"];
            let _ = subscribed_tx.send((
                envelope["inbox"].as_str().unwrap().to_string(),
                sub["player"].clone(),
                sub["only_if_seated"].clone(),
            ));
            let reply = serde_json::to_vec(&json!({"Ok": {"Subscribed": true}})).unwrap();
            answering
                .publish(request.reply.unwrap(), reply.into())
                .await
                .unwrap();
        }
    });
    let chat =
        |enabled: bool| json!({"type": "chat_switched", "table_id": table, "enabled": enabled});
    let snapshot = json!({"type": "snapshot", "table": {"table_id": table}, "hand": null});

    // The connection's queue holds one batch.
    let (queue, mut rx) = tokio::sync::mpsc::channel(1);
    let handle = cluster.remote(table);
    // (Until the NATS server has the owner's subscription: under load it may not yet,
    // the owner's flush being no round trip, and the request finds no responder.)
    let deadline = Instant::now() + Duration::from_secs(10);
    while !handle
        .subscribe_with(Some(player), queue.clone(), false)
        .await
    {
        assert!(Instant::now() < deadline, "the owner answers within 10 s");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (inbox, who, only_if_seated) = subscribed.recv().await.unwrap();
    assert_eq!((who, only_if_seated), (json!(player), json!(false)));

    // One batch fills the queue; the next ones find it full while the client reads nothing.
    owner
        .publish(inbox.clone(), wire_batch(&[chat(true)]))
        .await
        .unwrap();
    for _ in 0..20 {
        owner
            .publish(inbox.clone(), wire_batch(&[chat(false)]))
            .await
            .unwrap();
    }
    owner.flush().await.unwrap();
    // (Time for the gateway to read them all: the queue stays full meanwhile.)
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(texts(rx.recv().await.unwrap()), [chat(true)]);

    // Room again: subscribed again, as the same player, through the same inbox.
    let again = tokio::time::timeout(Duration::from_secs(10), subscribed.recv())
        .await
        .expect("the connection is subscribed again once it has room")
        .unwrap();
    assert_eq!(again, (inbox.clone(), json!(player), json!(false)));
    // What the owner sent before its snapshot is dropped; the snapshot and what follows
    // it arrive.
    owner
        .publish(
            inbox.clone(),
            wire_batch(&[chat(false), snapshot.clone(), chat(true)]),
        )
        .await
        .unwrap();
    let batch = tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("the snapshot arrives")
        .unwrap();
    assert_eq!(texts(batch), [snapshot, chat(true)]);
    owner
        .publish(inbox.clone(), wire_batch(&[chat(false)]))
        .await
        .unwrap();
    let batch = tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("what follows arrives")
        .unwrap();
    assert_eq!(texts(batch), [chat(false)]);
    assert!(rx.try_recv().is_err(), "nothing else");
}

/// A sit at a table another node owns carries the client's address in the request (the
/// owner applies `room.same_address_seating`), and the owner's refusal comes back typed.
/// The owner here is a bare NATS client that records the command and refuses it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_a_sit_at_a_table_on_another_node_carries_the_client_address() {
    use futures_util::StreamExt;
    use poker_server::table::Refusal;
    let (_nats, nats_url) = nats().await;
    let config = poker_server::config::ClusterConfig {
        nats_url: nats_url.clone(),
        node: "gateway".into(),
        lease_ms: LEASE_MS,
        heartbeat_ms: HEARTBEAT_MS,
    };
    let cluster = poker_server::cluster::Cluster::connect(&config)
        .await
        .unwrap();
    let table = TableId::new();
    let owner = async_nats::connect(nats_url.as_str()).await.unwrap();
    let mut commands = owner
        .subscribe(format!("pokerd.table.{table}"))
        .await
        .unwrap();
    owner.flush().await.unwrap();
    let (seen_tx, mut seen) = tokio::sync::mpsc::unbounded_channel();
    let answering = owner.clone();
    tokio::spawn(async move {
        while let Some(request) = commands.next().await {
            let cmd: serde_json::Value = serde_json::from_slice(&request.payload).unwrap();
            let _ = seen_tx.send(cmd);
            let reply = json!({"Err": {"SameAddress": "a player at this table connects from your address"}});
            answering
                .publish(
                    request.reply.unwrap(),
                    serde_json::to_vec(&reply).unwrap().into(),
                )
                .await
                .unwrap();
        }
    });
    let handle = cluster.remote(table);
    let player = poker_protocol::PlayerId::new();
    let address: std::net::IpAddr = "198.51.100.7".parse().unwrap();
    // (Until the NATS server has the owner's subscription.)
    let deadline = Instant::now() + Duration::from_secs(10);
    let refusal = loop {
        let r = handle
            .sit_with(
                player,
                "ann".into(),
                2,
                100,
                poker_rules::table::Entry::PostNow,
                None,
                Some(address),
            )
            .await;
        match r {
            Err(Refusal::SameAddress(message)) => break message,
            other => {
                assert!(Instant::now() < deadline, "the owner answers: {other:?}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    assert!(refusal.contains("address"), "{refusal}");
    let cmd = seen.recv().await.unwrap();
    assert_eq!(
        cmd["request"]["Sit"]["address"],
        json!("198.51.100.7"),
        "{cmd}"
    );
    assert_eq!(cmd["request"]["Sit"]["player"], json!(player), "{cmd}");
    // A house bot's sit carries none.
    let _ = handle
        .sit_with(
            player,
            "Ada (bot)".into(),
            3,
            100,
            poker_rules::table::Entry::PostNow,
            None,
            None,
        )
        .await;
    let mut cmd = seen.recv().await.unwrap();
    while cmd["request"]["Sit"]["seat"] != 3 {
        cmd = seen.recv().await.unwrap();
    }
    assert_eq!(cmd["request"]["Sit"]["address"], json!(null), "{cmd}");
}
