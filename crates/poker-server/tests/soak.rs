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

mod common;

use common::cluster::{pokerd_with, Node, Stopped};
use common::nats::{free_port, nats_on, nats_server_binary, Proc};
use common::{nl_rules, sit, tid, Client, Db, DbGuard, Received};
use futures_util::SinkExt;
use poker_protocol::{ClientMsg, ServerMsg, TableId};
use poker_rules::{Action, Event, LegalActions};
use poker_store::{Audit, SqlStore, Store};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

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

/// A node as the bots see it: where to connect, and when it was not running.
struct Slot {
    addr: SocketAddr,
    /// Killed or frozen now.
    down: bool,
    /// When it was killed or frozen, and until when (`None`: still).
    outages: Vec<(Instant, Option<Instant>)>,
}

/// One player's state, as its bot reports it.
#[derive(Clone)]
struct Seen {
    name: String,
    table: usize,
    /// The node its connection is on, and whether it is connected now.
    node: usize,
    connected: bool,
    /// When its current connection was opened.
    since: Instant,
    /// The last snapshot of its table on the current connection.
    snapshot: Option<Instant>,
    /// The last message of its table it received (any connection).
    heard: Instant,
    reconnects: usize,
}

/// A wait for an answer longer than the deadline.
struct LongWait {
    waited: Duration,
    player: String,
    node: usize,
    what: &'static str,
    sent: Instant,
}

/// What the bots and the fault driver share.
struct Shared {
    nodes: Mutex<Vec<Slot>>,
    players: Mutex<Vec<Seen>>,
    /// Per table: hand numbers whose result (a pot awarded, the hand's end) a player saw.
    results: Mutex<Vec<BTreeSet<u64>>>,
    /// Per table: when a player last saw a hand of it end.
    last_result: Mutex<Vec<Instant>>,
    /// Errors received, by code, and the first message of each code.
    errors: Mutex<BTreeMap<String, usize>>,
    error_examples: Mutex<BTreeMap<String, String>>,
    /// The longest wait for an answer on a running node, and every wait over the deadline.
    longest_wait: Mutex<Duration>,
    long_waits: Mutex<Vec<LongWait>>,
    /// Answers measured.
    answers: Mutex<u64>,
    /// A player that saw one hand number end twice at its table.
    repeated: Mutex<Vec<String>>,
    /// When each phase of the run began (`fault 3: kill n2`, `after fault 3`), with the
    /// kind of the fault it belongs to.
    phases: Mutex<Vec<(Instant, String, Option<Kind>)>>,
    /// Bots ask to leave once this is set, and stop once `stop` is.
    leave: AtomicBool,
    stop: AtomicBool,
}

impl Shared {
    /// Whether node `n` ran throughout `from..to`.
    fn ran(&self, n: usize, from: Instant, to: Instant) -> bool {
        let nodes = self.nodes.lock().unwrap();
        !nodes[n]
            .outages
            .iter()
            .any(|&(s, e)| s <= to && e.is_none_or(|e| e >= from))
    }

    /// The phase of the run at `at`, and the kind of fault it belongs to.
    fn phase_of(&self, at: Instant) -> (String, Option<Kind>) {
        let phases = self.phases.lock().unwrap();
        phases
            .iter()
            .rev()
            .find(|(s, ..)| *s <= at)
            .map(|(_, p, k)| (p.clone(), *k))
            .unwrap_or_else(|| ("setup".into(), None))
    }

    fn phase(&self, what: String, kind: Option<Kind>) {
        self.phases
            .lock()
            .unwrap()
            .push((Instant::now(), what, kind));
    }

    fn node_down(&self, n: usize) {
        let mut nodes = self.nodes.lock().unwrap();
        nodes[n].down = true;
        nodes[n].outages.push((Instant::now(), None));
    }

    fn node_up(&self, n: usize, addr: SocketAddr) {
        let mut nodes = self.nodes.lock().unwrap();
        nodes[n].down = false;
        nodes[n].addr = addr;
        if let Some(last) = nodes[n].outages.last_mut() {
            last.1.get_or_insert(Instant::now());
        }
    }
}

/// A bot: one player, one table, one connection at a time.
struct Bot {
    index: usize,
    token: String,
    table: usize,
    table_id: TableId,
    client: Client,
    node: usize,
    rng: SmallRng,
    shared: Arc<Shared>,
    /// Pings sent and not answered yet, oldest first.
    pings: VecDeque<Instant>,
    /// An act sent and not answered yet.
    act_sent: Option<Instant>,
    /// The decision to answer, and when (a bot thinks for a moment).
    decide: Option<(Instant, u64, LegalActions)>,
    /// When it last asked to top up (asked again only after a while: the seats it sees
    /// may not show the top-up yet).
    topped_up_at: Option<Instant>,
    sat_in_at: Option<Instant>,
    left: bool,
    leave_sent: Option<Instant>,
    /// Hands seen to end at its table.
    ended: BTreeSet<u64>,
    /// Requests to send on the next turn of the loop (a top-up, a sit in).
    outbox: Vec<ClientMsg>,
}

impl Bot {
    fn name(&self) -> String {
        format!("{} (on {})", self.client.name, NODES[self.node])
    }

    /// Sends a message; false if the connection is gone.
    async fn send(&mut self, msg: &ClientMsg) -> bool {
        let text = serde_json::to_string(msg).unwrap();
        self.client
            .ws
            .send(Message::Text(text.into()))
            .await
            .is_ok()
    }

    /// Notes an answer to a request sent at `sent`, if its node ran meanwhile.
    fn answered(&self, sent: Instant, what: &'static str) {
        let now = Instant::now();
        if !self.shared.ran(self.node, sent, now) {
            return;
        }
        let waited = now - sent;
        *self.shared.answers.lock().unwrap() += 1;
        {
            let mut longest = self.shared.longest_wait.lock().unwrap();
            *longest = (*longest).max(waited);
        }
        if waited > ANSWER_DEADLINE {
            let mut long = self.shared.long_waits.lock().unwrap();
            if long.len() < 2000 {
                long.push(LongWait {
                    waited,
                    player: self.client.name.clone(),
                    node: self.node,
                    what,
                    sent,
                });
            }
        }
    }

    fn act_answered(&mut self) {
        if let Some(sent) = self.act_sent.take() {
            self.answered(sent, "act");
        }
    }

    /// A random legal answer: mostly check or call, sometimes a raise (the smallest, or
    /// all in), a fold when facing a bet.
    fn choose(&mut self, legal: &LegalActions) -> Action {
        let r = self.rng.gen_range(0..100);
        if let Some((min, max)) = legal.bet_or_raise {
            if r < 4 {
                return Action::BetOrRaiseTo { to: max };
            }
            if r < 20 {
                return Action::BetOrRaiseTo { to: min };
            }
        }
        if legal.check {
            Action::Check
        } else if legal.call.is_some() && r < 85 {
            Action::Call
        } else {
            Action::Fold
        }
    }

    /// Plays on one connection, then reconnects, until told to stop.
    async fn run(mut self) {
        loop {
            self.session().await;
            if self.shared.stop.load(Ordering::SeqCst) {
                return;
            }
            self.reconnect().await;
        }
    }

    /// Plays until the connection closes or the bot is told to stop.
    async fn session(&mut self) {
        let mut next_ping = Instant::now() + PING_EVERY.mul_f64(self.rng.gen_range(0.1..1.0));
        loop {
            if self.shared.stop.load(Ordering::SeqCst) {
                // A request still unanswered at the end has waited this long at least.
                if let Some(sent) = self.pings.front().copied() {
                    self.answered(sent, "ping (unanswered at the end)");
                }
                return;
            }
            let now = Instant::now();
            if now >= next_ping {
                if !self.send(&ClientMsg::Ping).await {
                    return self.dropped();
                }
                self.pings.push_back(now);
                next_ping = now + PING_EVERY;
            }
            for msg in std::mem::take(&mut self.outbox) {
                if !self.send(&msg).await {
                    return self.dropped();
                }
            }
            if let Some((due, decision_id, legal)) = self.decide {
                if now >= due {
                    self.decide = None;
                    let action = self.choose(&legal);
                    let msg = ClientMsg::Act {
                        table_id: self.table_id,
                        decision_id,
                        action,
                    };
                    if !self.send(&msg).await {
                        return self.dropped();
                    }
                    self.act_sent.get_or_insert(now);
                }
            }
            if self.shared.leave.load(Ordering::SeqCst)
                && !self.left
                && self
                    .leave_sent
                    .is_none_or(|at| at.elapsed() > Duration::from_secs(1))
            {
                self.leave_sent = Some(now);
                let table_id = self.table_id;
                if !self.send(&ClientMsg::Leave { table_id }).await {
                    return self.dropped();
                }
            }
            let until = self
                .decide
                .map_or(next_ping, |(due, ..)| due.min(next_ping));
            let wait = until
                .saturating_duration_since(Instant::now())
                .max(Duration::from_millis(1));
            match self.client.recv_or_closed(wait).await {
                Received::Quiet => {}
                Received::Closed => return self.dropped(),
                Received::Msg(msg) => self.handle(*msg),
            }
            // The harness keeps every message; a soak keeps the last few.
            if self.client.log.len() > 64 {
                self.client.log.drain(..48);
            }
        }
    }

    fn dropped(&mut self) {
        let mut players = self.shared.players.lock().unwrap();
        players[self.index].connected = false;
    }

    fn handle(&mut self, msg: ServerMsg) {
        let mine = |id: &TableId| *id == self.table_id;
        let of_table = match &msg {
            ServerMsg::Snapshot { table, .. } | ServerMsg::Seats { table } => Some(table.table_id),
            ServerMsg::Event { table_id, .. }
            | ServerMsg::Turn { table_id, .. }
            | ServerMsg::Decide { table_id, .. }
            | ServerMsg::TimedOut { table_id, .. } => Some(*table_id),
            _ => None,
        };
        if of_table.is_some_and(|t| mine(&t)) {
            self.shared.players.lock().unwrap()[self.index].heard = Instant::now();
        }
        match msg {
            ServerMsg::Pong => {
                if let Some(sent) = self.pings.pop_front() {
                    self.answered(sent, "ping");
                }
            }
            ServerMsg::Snapshot { table, decide, .. } if mine(&table.table_id) => {
                self.shared.players.lock().unwrap()[self.index].snapshot = Some(Instant::now());
                self.act_answered();
                self.decide = None;
                if let Some(d) = decide {
                    self.decided(*d);
                }
                self.seats(&table);
            }
            ServerMsg::Decide { .. } => self.decided(msg),
            ServerMsg::Event {
                table_id,
                hand_number,
                event,
                ..
            } if mine(&table_id) => {
                self.act_answered();
                let result = match event {
                    Event::HandEnded { .. } => {
                        self.shared.last_result.lock().unwrap()[self.table] = Instant::now();
                        if !self.ended.insert(hand_number) {
                            let mut repeated = self.shared.repeated.lock().unwrap();
                            repeated.push(format!(
                                "{} saw hand {hand_number} of table {} end twice",
                                self.name(),
                                self.table
                            ));
                        }
                        true
                    }
                    Event::PotAwarded { .. } => true,
                    _ => false,
                };
                if result {
                    self.shared.results.lock().unwrap()[self.table].insert(hand_number);
                }
            }
            ServerMsg::TimedOut { table_id, .. } if mine(&table_id) => self.act_answered(),
            ServerMsg::Seats { table } if mine(&table.table_id) => self.seats(&table),
            ServerMsg::Done { request, .. } if request == "leave" => self.left = true,
            ServerMsg::Error { code, message } => {
                // A refused ping is answered too (pings are the only requests that come
                // in a steady stream).
                if code == poker_protocol::ErrorCode::RateLimited {
                    if let Some(sent) = self.pings.pop_front() {
                        self.answered(sent, "ping");
                    }
                }
                self.act_answered();
                let code = serde_json::to_value(code).unwrap();
                let code = code.as_str().unwrap_or("?").to_string();
                let phase = self.shared.phase_of(Instant::now()).0;
                self.shared
                    .error_examples
                    .lock()
                    .unwrap()
                    .entry(code.clone())
                    .or_insert_with(|| format!("{}, {phase}: {message}", self.name()));
                *self.shared.errors.lock().unwrap().entry(code).or_default() += 1;
            }
            _ => {}
        }
    }

    /// A decision for this bot: answered after a moment's thought.
    fn decided(&mut self, msg: ServerMsg) {
        if let ServerMsg::Decide {
            table_id,
            decision_id,
            legal,
        } = msg
        {
            if table_id == self.table_id {
                // A new decision means the last act was taken.
                self.act_answered();
                let think = Duration::from_millis(self.rng.gen_range(20..250));
                self.decide = Some((Instant::now() + think, decision_id, legal));
            }
        }
    }

    /// Tops up a busted stack, and sits back in if sat out.
    fn seats(&mut self, table: &poker_protocol::TableView) {
        let me = self.client.player_id;
        let Some(seat) = table.seats.iter().find(|s| Some(s.player_id) == me) else {
            return;
        };
        if self.shared.leave.load(Ordering::SeqCst) {
            return;
        }
        if seat.stack > 0 || seat.pending_top_up > 0 {
            self.topped_up_at = None;
        } else if self
            .topped_up_at
            .is_none_or(|at| at.elapsed() > Duration::from_secs(5))
        {
            self.topped_up_at = Some(Instant::now());
            let msg = ClientMsg::TopUp {
                table_id: self.table_id,
                amount: BUY_IN,
            };
            self.outbox.push(msg);
        }
        if seat.sitting_out && self.sat_in_at.is_none_or(|at| at.elapsed().as_secs() >= 3) {
            self.sat_in_at = Some(Instant::now());
            let msg = ClientMsg::SitIn {
                table_id: self.table_id,
                post_now: true,
            };
            self.outbox.push(msg);
        }
    }

    /// A new connection to a random running node, authenticated with `auth` alone.
    async fn reconnect(&mut self) {
        self.pings.clear();
        self.act_sent = None;
        self.decide = None;
        self.topped_up_at = None;
        self.outbox.clear();
        loop {
            if self.shared.stop.load(Ordering::SeqCst) {
                return;
            }
            let up: Vec<(usize, SocketAddr)> = {
                let nodes = self.shared.nodes.lock().unwrap();
                (0..nodes.len())
                    .filter(|&n| !nodes[n].down)
                    .map(|n| (n, nodes[n].addr))
                    .collect()
            };
            let Some(&(node, addr)) = up.choose(&mut self.rng) else {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            };
            let opened = Instant::now();
            let connect = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"));
            let Ok(Ok((ws, _))) = tokio::time::timeout(Duration::from_secs(2), connect).await
            else {
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            };
            let _ =
                tokio::time::timeout(Duration::from_millis(100), self.client.ws.close(None)).await;
            self.client.ws = ws;
            self.client.last_decide = None;
            self.node = node;
            {
                let mut players = self.shared.players.lock().unwrap();
                let seen = &mut players[self.index];
                seen.node = node;
                seen.since = opened;
                seen.snapshot = None;
                seen.reconnects += 1;
            }
            if self.authenticate().await {
                self.shared.players.lock().unwrap()[self.index].connected = true;
                return;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Sends `auth` until welcomed (an error such as `internal` while the database is
    /// down is retried); false if the connection closes or nothing comes for 3 s.
    async fn authenticate(&mut self) -> bool {
        let auth = ClientMsg::Auth {
            token: self.token.clone(),
        };
        if !self.send(&auth).await {
            return false;
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut early = Vec::new();
        while Instant::now() < deadline {
            match self.client.recv_or_closed(Duration::from_secs(3)).await {
                Received::Msg(msg) => match *msg {
                    ServerMsg::Welcome { .. } => {
                        for msg in early {
                            self.handle(msg);
                        }
                        return true;
                    }
                    ServerMsg::Error { code, .. } => {
                        let code = serde_json::to_value(code).unwrap();
                        let code = format!("auth: {}", code.as_str().unwrap_or("?"));
                        *self.shared.errors.lock().unwrap().entry(code).or_default() += 1;
                        tokio::time::sleep(Duration::from_millis(300)).await;
                        if !self.send(&auth).await {
                            return false;
                        }
                    }
                    other => early.push(other),
                },
                Received::Quiet | Received::Closed => return false,
            }
        }
        false
    }
}

/// The database's hands, read directly: void hands and hand numbers used twice.
struct Hands {
    /// (table, number) of each void hand.
    void: BTreeSet<(String, u64)>,
    /// (table, number, rows) of each number used by more than one hand at a table.
    reused: Vec<(String, u64, i64)>,
}

async fn hands(pool: &sqlx::PgPool) -> Option<Hands> {
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
async fn within<T, E>(f: impl std::future::Future<Output = Result<T, E>>) -> Option<T> {
    tokio::time::timeout(STORE_WAIT, f).await.ok()?.ok()
}

/// Retries a read of the store for up to 30 s (it may just have come back).
async fn retry<T, F, Fut>(what: &str, mut f: F) -> T
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
async fn leases(store: &SqlStore, tables: &[TableId]) -> Option<Vec<(String, u64)>> {
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
struct FaultRecord {
    index: usize,
    kind: Kind,
    /// The node hit (kill and stop).
    node: Option<usize>,
    /// How long the service or node was down.
    down: Duration,
    /// Affected players, and when each had its snapshot (from the fault's reference
    /// time; `None`: none within the deadline and [`MEASURE_PAST_DEADLINE`]).
    resync: Vec<(String, Option<Duration>)>,
    /// Hands voided between this fault's start and its checks.
    voided: Vec<(String, u64)>,
    /// Tables whose owner changed.
    moved: usize,
    /// Hands whose result players saw that were found void after this fault.
    shown_void: usize,
    /// How long the tables took to spread evenly again after the fault (`None`: not
    /// within [`SETTLE`]).
    settled: Option<Duration>,
}

impl FaultRecord {
    /// The time until every affected player had a snapshot (`None`: someone had none).
    fn all_resynced(&self) -> Option<Duration> {
        self.resync
            .iter()
            .try_fold(Duration::ZERO, |m, (_, t)| t.map(|t| m.max(t)))
    }
}

fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}

fn p50(mut v: Vec<u64>) -> Option<u64> {
    v.sort_unstable();
    v.get(v.len().saturating_sub(1) / 2).copied()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soak_three_nodes_through_kills_stops_and_outages_keep_every_player_and_chip() {
    let started = Instant::now();
    let seed: u64 = std::env::var("SOAK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(25);
    let faults: usize = std::env::var("SOAK_FAULTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    eprintln!("cluster soak: SOAK_SEED={seed} SOAK_FAULTS={faults}");
    nats_server_binary();
    let Some(guard) = DbGuard::new(Db::Postgres).await else {
        return;
    };
    let DbGuard::Postgres(pg) = &guard else {
        unreachable!("asked for Postgres")
    };
    if !pg.is_throwaway() {
        eprintln!("SKIPPED: DATABASE_URL names a server this soak must not stop");
        return;
    }
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
        let bought = client
            .until(|m| match m {
                ServerMsg::Done {
                    request, amount, ..
                } if request == "sit" => Some(*amount),
                _ => None,
            })
            .await;
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
    let mut silent: Vec<(u64, &str)> = silence
        .iter()
        .filter(|(_, d)| **d > Duration::from_secs(5))
        .map(|(p, d)| (ms(*d), p.as_str()))
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
        "date": chrono_free_date(),
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
    store.close().await;
    drop(nats);
    drop(nodes);
}

/// Today's date (UTC) as `YYYY-MM-DD`, from the system clock (no date crate here).
fn chrono_free_date() -> String {
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
