//! What the failover tests share: the cluster they start (PostgreSQL, NATS, three nodes),
//! a cuttable relay to NATS, and the `Game` that drives every table's players.

use super::common;
use common::cluster::Node;
use common::nats::{nats, nats_server_binary, Proc};
use common::{act, assert_conserved, simple_action, sit, tid, Client, Db, DbGuard, Received};
use poker_protocol::{ClientMsg, ErrorCode, ServerMsg, TableId};
use poker_rules::{Action, Event, LegalActions};
use poker_store::SqlStore;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// How long a node's table leases last, and how often it renews them.
pub(super) const LEASE_MS: u64 = 3000;
pub(super) const HEARTBEAT_MS: u64 = 500;
/// What each player deposits, and buys in for.
pub(super) const DEPOSIT: u64 = 1000;
pub(super) const BUY_IN: u64 = 150;
/// The nodes' names, by index.
pub(super) const NODES: [&str; 3] = ["n1", "n2", "n3"];
/// The node killed, and the table it owns (table `i` is created through node `i`).
pub(super) const KILLED: usize = 0;

/// Starts `pokerd` as a cluster node with this test's lease and heartbeat.
pub(super) async fn pokerd(name: &'static str, url: &str, nats_url: &str) -> Node {
    common::cluster::pokerd(name, url, nats_url, LEASE_MS, HEARTBEAT_MS).await
}

pub(super) use crate::common::nats::Relay;

/// What a table's players do with their decisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// Check or call.
    Play,
    /// Raise the minimum at the next chance, then hold.
    Raise,
    /// Answer nothing: the hand waits.
    Hold,
}

/// One table, as its players saw it.
pub(super) struct Table {
    pub(super) id: String,
    pub(super) tid: TableId,
    /// The node it was created on.
    pub(super) owner: usize,
    /// Hands seen to end (by any of its players).
    pub(super) ended: BTreeSet<u64>,
    /// The highest hand number seen.
    pub(super) latest: u64,
    pub(super) mode: Mode,
    /// The hand in which `Mode::Raise` raised.
    pub(super) raised_in: Option<u64>,
    /// The player asked a decision left unanswered in `Mode::Hold`.
    pub(super) held_by: Option<usize>,
}

impl Table {
    /// A table made on node `owner`, playing, nothing seen yet.
    pub(super) fn new(id: String, owner: usize) -> Table {
        Table {
            tid: tid(&id),
            id,
            owner,
            ended: BTreeSet::new(),
            latest: 0,
            mode: Mode::Play,
            raised_in: None,
            held_by: None,
        }
    }
}

/// One player and their connection.
pub(super) struct Player {
    pub(super) client: Client,
    pub(super) token: String,
    pub(super) table: usize,
    /// The node the connection is on.
    pub(super) node: usize,
    /// Reconnected to another node after the kill.
    pub(super) moved: bool,
    /// A connection made after the kill that has not had its table's snapshot yet.
    pub(super) awaiting_snapshot: Option<Instant>,
    /// Whether it asked for one with `watch`.
    pub(super) watched: bool,
    /// Snapshots of its table since the kill: when, and the hand in progress in them.
    pub(super) snapshots: Vec<(Instant, Option<u64>)>,
    /// Each hand it saw end, and when.
    pub(super) hands_ended: Vec<(u64, Instant)>,
    /// When its connection closed, on a node being stopped (`Game::stopping`), until it
    /// connects again.
    pub(super) closed: Option<Instant>,
    pub(super) pongs: usize,
}

impl Player {
    /// A player just seated at table `table` through a connection to node `node`.
    fn seated(client: Client, token: String, table: usize, node: usize) -> Player {
        Player {
            client,
            token,
            table,
            node,
            moved: false,
            awaiting_snapshot: None,
            watched: false,
            snapshots: Vec::new(),
            hands_ended: Vec::new(),
            closed: None,
            pongs: 0,
        }
    }
}

/// The players of every table, driven together.
pub(super) struct Game {
    pub(super) players: Vec<Player>,
    pub(super) tables: Vec<Table>,
    /// Since the kill: a refused stale decision (an answer racing a reconnection) is
    /// tolerated, and so is an answer refused while leaving; any other error fails the
    /// test.
    pub(super) after_kill: bool,
    /// When the kill happened.
    pub(super) killed_at: Option<Instant>,
    pub(super) stale_refusals: usize,
    /// Everyone asked to leave.
    pub(super) leaving: bool,
    /// Once set, a hand numbered this or lower is void and over: an event or snapshot of
    /// it reaching a player is noted in `stale`.
    pub(super) void_up_to: Option<u64>,
    pub(super) stale: Vec<String>,
    /// A node being stopped (SIGTERM): its connections may close, each close noted in its
    /// player's `closed`; a close elsewhere fails the test.
    pub(super) stopping: Option<usize>,
}

impl Game {
    /// No player yet, nothing killed, stale or left: the game at these tables as it starts.
    pub(super) fn new(tables: Vec<Table>) -> Game {
        Game {
            players: Vec::new(),
            tables,
            after_kill: false,
            killed_at: None,
            stale_refusals: 0,
            leaving: false,
            void_up_to: None,
            stale: Vec::new(),
            stopping: None,
        }
    }

    /// Table `a`'s owner was lost at `at` (killed, frozen, cut off): its next owner numbers
    /// its decisions afresh, so those of the cut hand are forgotten.
    pub(super) fn owner_lost(&mut self, a: usize, at: Instant) {
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
    pub(super) async fn resynced(&mut self, what: &str) {
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

    /// Every connection is sent a ping and answers it within 10 s.
    pub(super) async fn everyone_answers_a_ping(&mut self) {
        for p in self.players.iter_mut() {
            p.client.send(&ClientMsg::Ping).await;
        }
        let answered = self
            .drive(Duration::from_secs(10), |g| {
                g.players.iter().all(|p| p.pongs > 0)
            })
            .await;
        assert!(answered, "every connection answers a ping at the end");
    }

    /// Everyone leaves (after the hand in progress): within 20 s nobody is seated at
    /// `tables`, and every chip is in a wallet or the rake.
    pub(super) async fn everyone_leaves(
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

    pub(super) fn name(&self, i: usize) -> String {
        let p = &self.players[i];
        format!("{} (on {})", p.client.name, NODES[p.node])
    }

    pub(super) fn table_of(&self, id: &TableId) -> Option<usize> {
        self.tables.iter().position(|t| &t.tid == id)
    }

    /// Answers a decision (once) as the table's mode says.
    pub(super) async fn answer(&mut self, i: usize, decision_id: u64, legal: LegalActions) {
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
    pub(super) async fn step(&mut self) {
        for i in 0..self.players.len() {
            if self.players[i].closed.is_some() {
                continue;
            }
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
                Received::Closed if self.stopping == Some(self.players[i].node) => {
                    self.players[i].closed = Some(Instant::now());
                    continue;
                }
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

    pub(super) async fn handle(&mut self, i: usize, msg: ServerMsg) {
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
                    self.players[i]
                        .hands_ended
                        .push((hand_number, Instant::now()));
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
    pub(super) fn recent(&self, i: usize) -> String {
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
    pub(super) async fn drive(
        &mut self,
        within: Duration,
        mut done: impl FnMut(&Game) -> bool,
    ) -> bool {
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
    pub(super) fn ended_after(&self, t: usize, after: u64) -> usize {
        self.tables[t].ended.range(after + 1..).count()
    }

    /// Where every table is, for failure messages.
    pub(super) fn state(&self) -> String {
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
pub(super) fn by_seat(seats: &[usize], stacks: &[u64]) -> BTreeMap<u32, u64> {
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
pub(super) async fn await_lobbies(nodes: &[Node], tables: &[Table]) {
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
pub(super) async fn seat_everyone(
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
        let bought = client.done("sit").await.0;
        assert_eq!(bought, BUY_IN, "{name} bought in through {}", NODES[node]);
        players.push(Player::seated(client, token, table, node));
    }
    players
}

/// What a cluster's nodes stand on: a PostgreSQL database and a `nats-server`, both for
/// as long as it is held.
pub(super) struct Backing {
    pub(super) url: String,
    pub(super) nats_url: String,
    // Dropped in this order: nats-server, then the database.
    _nats: Proc,
    _guard: DbGuard,
}

/// PostgreSQL and NATS for a cluster test; `None` without PostgreSQL outside CI. Without
/// NATS it fails: it is not skipped like Postgres.
pub(super) async fn backing() -> Option<Backing> {
    nats_server_binary();
    let guard = DbGuard::new(Db::Postgres).await?;
    let url = guard.url();
    let (nats, nats_url) = nats().await;
    Some(Backing {
        url,
        nats_url,
        _guard: guard,
        _nats: nats,
    })
}

/// PostgreSQL, NATS and the first `n` of [`NODES`] on them (the first runs the migrations
/// alone); `None` without PostgreSQL outside CI.
pub(super) async fn cluster_of(started: Instant, n: usize) -> Option<(Backing, Vec<Node>)> {
    let backing = backing().await?;
    let mut nodes = Vec::new();
    for name in &NODES[..n] {
        nodes.push(pokerd(name, &backing.url, &backing.nats_url).await);
    }
    eprintln!("{:?}: {n} nodes up", started.elapsed());
    Some((backing, nodes))
}

/// Each hand row of a table: number -> (id, status, end), as text to compare.
pub(super) async fn hand_rows(
    store: &SqlStore,
    table: poker_store::TableId,
) -> BTreeMap<u64, String> {
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

impl Game {
    /// Connects a player to a node and sits them at table `t`, playing on meanwhile; a
    /// `table_moving` refusal (the table is being handed between nodes) is retried, as
    /// a client would. Returns the refusals.
    pub(super) async fn join(
        &mut self,
        node: &Node,
        n: usize,
        name: &str,
        t: usize,
        seat: u32,
    ) -> usize {
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
        self.players.push(Player::seated(client, token, t, n));
        refused
    }
}
