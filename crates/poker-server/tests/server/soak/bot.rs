//! The soak's bots and what they share with the fault driver: one player each, on one
//! connection at a time, playing random legal actions, pinging, and reconnecting with
//! `auth` alone when the connection drops; each notes its snapshots, its waits for an
//! answer and the results it sees.

use super::{Kind, ANSWER_DEADLINE, BUY_IN, NODES, PING_EVERY};
use crate::common::{Client, Received};
use futures_util::SinkExt;
use poker_protocol::{ClientMsg, ServerMsg, TableId};
use poker_rules::{Action, Event, LegalActions};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::Rng;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

/// A node as the bots see it: where to connect, and when it was not running.
pub struct Slot {
    pub addr: SocketAddr,
    /// Killed or frozen now.
    pub down: bool,
    /// When it was killed or frozen, and until when (`None`: still).
    pub outages: Vec<(Instant, Option<Instant>)>,
}

/// One player's state, as its bot reports it.
#[derive(Clone)]
pub struct Seen {
    pub name: String,
    pub table: usize,
    /// The node its connection is on, and whether it is connected now.
    pub node: usize,
    pub connected: bool,
    /// When its current connection was opened.
    pub since: Instant,
    /// The last snapshot of its table on the current connection.
    pub snapshot: Option<Instant>,
    /// The last message of its table it received (any connection).
    pub heard: Instant,
    pub reconnects: usize,
}

/// A wait for an answer longer than the deadline.
pub struct LongWait {
    pub waited: Duration,
    pub player: String,
    pub node: usize,
    pub what: &'static str,
    pub sent: Instant,
}

/// What the bots and the fault driver share.
pub struct Shared {
    pub nodes: Mutex<Vec<Slot>>,
    pub players: Mutex<Vec<Seen>>,
    /// Per table: hand numbers whose result (a pot awarded, the hand's end) a player saw.
    pub results: Mutex<Vec<BTreeSet<u64>>>,
    /// Per table: when a player last saw a hand of it end.
    pub last_result: Mutex<Vec<Instant>>,
    /// Errors received, by code, and the first message of each code.
    pub errors: Mutex<BTreeMap<String, usize>>,
    pub error_examples: Mutex<BTreeMap<String, String>>,
    /// The longest wait for an answer on a running node, and every wait over the deadline.
    pub longest_wait: Mutex<Duration>,
    pub long_waits: Mutex<Vec<LongWait>>,
    /// Answers measured.
    pub answers: Mutex<u64>,
    /// A player that saw one hand number end twice at its table.
    pub repeated: Mutex<Vec<String>>,
    /// When each phase of the run began (`fault 3: kill n2`, `after fault 3`), with the
    /// kind of the fault it belongs to.
    pub phases: Mutex<Vec<(Instant, String, Option<Kind>)>>,
    /// Bots ask to leave once this is set, and stop once `stop` is.
    pub leave: AtomicBool,
    pub stop: AtomicBool,
}

impl Shared {
    /// Whether node `n` ran throughout `from..to`.
    pub fn ran(&self, n: usize, from: Instant, to: Instant) -> bool {
        let nodes = self.nodes.lock().unwrap();
        !nodes[n]
            .outages
            .iter()
            .any(|&(s, e)| s <= to && e.is_none_or(|e| e >= from))
    }

    /// The phase of the run at `at`, and the kind of fault it belongs to.
    pub fn phase_of(&self, at: Instant) -> (String, Option<Kind>) {
        let phases = self.phases.lock().unwrap();
        phases
            .iter()
            .rev()
            .find(|(s, ..)| *s <= at)
            .map(|(_, p, k)| (p.clone(), *k))
            .unwrap_or_else(|| ("setup".into(), None))
    }

    pub fn phase(&self, what: String, kind: Option<Kind>) {
        self.phases
            .lock()
            .unwrap()
            .push((Instant::now(), what, kind));
    }

    pub fn node_down(&self, n: usize) {
        let mut nodes = self.nodes.lock().unwrap();
        nodes[n].down = true;
        nodes[n].outages.push((Instant::now(), None));
    }

    pub fn node_up(&self, n: usize, addr: SocketAddr) {
        let mut nodes = self.nodes.lock().unwrap();
        nodes[n].down = false;
        nodes[n].addr = addr;
        if let Some(last) = nodes[n].outages.last_mut() {
            last.1.get_or_insert(Instant::now());
        }
    }
}

/// A bot: one player, one table, one connection at a time.
pub struct Bot {
    pub index: usize,
    pub token: String,
    pub table: usize,
    pub table_id: TableId,
    pub client: Client,
    pub node: usize,
    pub rng: SmallRng,
    pub shared: Arc<Shared>,
    /// Pings sent and not answered yet, oldest first.
    pub pings: VecDeque<Instant>,
    /// An act sent and not answered yet.
    pub act_sent: Option<Instant>,
    /// The decision to answer, and when (a bot thinks for a moment).
    pub decide: Option<(Instant, u64, LegalActions)>,
    /// When it last asked to top up (asked again only after a while: the seats it sees
    /// may not show the top-up yet).
    pub topped_up_at: Option<Instant>,
    pub sat_in_at: Option<Instant>,
    pub left: bool,
    pub leave_sent: Option<Instant>,
    /// Hands seen to end at its table.
    pub ended: BTreeSet<u64>,
    /// Requests to send on the next turn of the loop (a top-up, a sit in).
    pub outbox: Vec<ClientMsg>,
}

impl Bot {
    pub fn name(&self) -> String {
        format!("{} (on {})", self.client.name, NODES[self.node])
    }

    /// Sends a message; false if the connection is gone.
    pub async fn send(&mut self, msg: &ClientMsg) -> bool {
        let text = serde_json::to_string(msg).unwrap();
        self.client
            .ws
            .send(Message::Text(text.into()))
            .await
            .is_ok()
    }

    /// Notes an answer to a request sent at `sent`, if its node ran meanwhile.
    pub fn answered(&self, sent: Instant, what: &'static str) {
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

    pub fn act_answered(&mut self) {
        if let Some(sent) = self.act_sent.take() {
            self.answered(sent, "act");
        }
    }

    /// A random legal answer: mostly check or call, sometimes a raise (the smallest, or
    /// all in), a fold when facing a bet.
    pub fn choose(&mut self, legal: &LegalActions) -> Action {
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
    pub async fn run(mut self) {
        loop {
            self.session().await;
            if self.shared.stop.load(Ordering::SeqCst) {
                return;
            }
            self.reconnect().await;
        }
    }

    /// Plays until the connection closes or the bot is told to stop.
    pub async fn session(&mut self) {
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

    pub fn dropped(&mut self) {
        let mut players = self.shared.players.lock().unwrap();
        players[self.index].connected = false;
    }

    pub fn handle(&mut self, msg: ServerMsg) {
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
    pub fn decided(&mut self, msg: ServerMsg) {
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
    pub fn seats(&mut self, table: &poker_protocol::TableView) {
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
    pub async fn reconnect(&mut self) {
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
    pub async fn authenticate(&mut self) -> bool {
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
