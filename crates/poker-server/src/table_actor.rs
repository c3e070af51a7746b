//! One table's actor: a private task that owns the table between hands and the hand in
//! progress, driven by commands through a cloneable [`TableHandle`] and by its own clock.
//!
//! It seats players (the buy-in moves money in the store first), deals hands from a deck
//! shuffled with the operating system's cryptographic RNG, asks each decision with an id
//! (an answer naming another id is refused, so a late or repeated action never applies
//! twice), runs the action clock (a warning, the time bank, then check if free or fold;
//! repeated timeouts sit the player out, R38), and fans events out to subscribers through
//! bounded queues: a subscriber whose queue is full is marked stale and resynced with a
//! snapshot once it has room again; it never stalls the table. Hole cards are redacted
//! for everyone but their owner before anything leaves the actor.
//!
//! A finished hand is committed through the persister, and the next hand starts only once
//! it is durable. Top-ups and leaving asked during a hand wait for its end. Closing the
//! table lets the hand in progress finish, then cashes everyone out.

use crate::lobby::Lobby;
use crate::metrics::Metrics;
use poker_protocol::{
    ClockView, ErrorCode, HandView, SeatView, ServerMsg, TableSummary, TableView,
};
use poker_rules::table::{Entry, HandPlan, SitOut, Table, TableRules};
use poker_rules::{Action, Card, CardSource, Cards, Chips, Decision, Event, Hand};
use poker_store::{
    now_ms, CompletedHand, HandId, HandPlayer, PersisterHandle, PlayerId, SqlStore, Store,
    StoreError, TableId,
};
use rand::rngs::OsRng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, oneshot};

/// A refused command, as the client is told.
pub type Refusal = (ErrorCode, String);

/// The clock of a table (R38), in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClockRules {
    /// Time to act on each decision.
    pub action_ms: u64,
    /// A warning is sent when this much of the action time is left (0: none).
    pub warning_ms: u64,
    /// Extra time each player has on sitting down, used when the action time runs out.
    pub time_bank_ms: u64,
    /// Timeouts in a row after which the player is sat out (0: never).
    pub max_timeouts: u32,
    /// Pause between hands, so players see the result.
    pub between_hands_ms: u64,
}

impl Default for ClockRules {
    fn default() -> ClockRules {
        ClockRules {
            action_ms: 30_000,
            warning_ms: 10_000,
            time_bank_ms: 60_000,
            max_timeouts: 2,
            between_hands_ms: 2_000,
        }
    }
}

/// Everything an operator sets when creating a table: the rules of the game and the
/// clock. Stored as the table's configuration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSpec {
    /// The game, stakes and house rules.
    #[serde(flatten)]
    pub rules: TableRules,
    /// The action clock.
    #[serde(default)]
    pub clock: ClockRules,
}

/// What a done request did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Chips moved (bought in, added, cashed out).
    pub amount: Chips,
    /// Whether it waits for the hand in progress to end.
    pub pending: bool,
}

type Reply<T> = oneshot::Sender<Result<T, Refusal>>;

/// What the actor is asked.
pub enum Command {
    /// Seat a player with a buy-in.
    Sit {
        /// Who.
        player: PlayerId,
        /// Their name, as others see it.
        name: String,
        /// Where.
        seat: u32,
        /// Chips from the wallet.
        buy_in: Chips,
        /// Post now or wait for the big blind.
        entry: Entry,
        /// The connection's queue, subscribed (with a snapshot) only if the seat is taken.
        queue: Option<mpsc::Sender<ServerMsg>>,
        /// Answer.
        respond_to: Reply<Outcome>,
    },
    /// Answer a decision.
    Act {
        /// Who.
        player: PlayerId,
        /// The decision answered.
        decision_id: u64,
        /// The action.
        action: Action,
        /// When the gateway received it.
        received: Instant,
        /// Answer.
        respond_to: Reply<()>,
    },
    /// Sit out, sit in, top up or leave.
    Seat {
        /// Who.
        player: PlayerId,
        /// What.
        request: SeatRequest,
        /// Answer.
        respond_to: Reply<Outcome>,
    },
    /// Receive this table's messages (as this player, or as a spectator), starting with
    /// a snapshot.
    Subscribe {
        /// Who listens (`None`: a spectator, who never sees hole cards).
        player: Option<PlayerId>,
        /// Subscribe only if this player is seated here.
        only_if_seated: bool,
        /// The queue to send to.
        queue: mpsc::Sender<ServerMsg>,
        /// Whether it subscribed.
        respond_to: oneshot::Sender<bool>,
    },
    /// Stop sending to this queue, unless its player is seated here.
    Unsubscribe {
        /// The queue.
        queue: mpsc::Sender<ServerMsg>,
    },
    /// The table as a spectator sees it, for the admin API.
    Inspect {
        /// Answer.
        respond_to: oneshot::Sender<serde_json::Value>,
    },
    /// Finish the hand in progress, deal no more; answered once idle.
    Drain {
        /// Answer.
        respond_to: oneshot::Sender<()>,
    },
    /// Finish the hand in progress, cash everyone out and close; answered with the chips
    /// cashed out.
    Close {
        /// Answer.
        respond_to: oneshot::Sender<Chips>,
    },
    /// Makes the task fail at once, as a bug would (fault-injection tests).
    InjectFault,
}

/// A seat request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeatRequest {
    /// Sit out from the next hand, or when the big blind next comes.
    SitOut {
        /// Wait for the big blind.
        next_big_blind: bool,
    },
    /// Come back, posting now or waiting for the big blind.
    SitIn {
        /// Post now.
        post_now: bool,
    },
    /// Add chips from the wallet.
    TopUp {
        /// How many.
        amount: Chips,
    },
    /// Leave and cash out.
    Leave,
}

impl SeatRequest {
    /// The protocol's name of the request.
    pub fn name(&self) -> &'static str {
        match self {
            SeatRequest::SitOut { .. } => "sit_out",
            SeatRequest::SitIn { .. } => "sit_in",
            SeatRequest::TopUp { .. } => "top_up",
            SeatRequest::Leave => "leave",
        }
    }
}

/// What a table's actor shares with the rest of the server.
#[derive(Clone)]
pub struct TableContext {
    /// The database.
    pub store: Arc<SqlStore>,
    /// Commits hands.
    pub persister: PersisterHandle,
    /// The lobby the actor keeps up to date.
    pub lobby: Arc<Lobby>,
    /// Counters.
    pub metrics: Arc<Metrics>,
}

/// A handle to a table's actor.
#[derive(Clone)]
pub struct TableHandle {
    commands: mpsc::Sender<Command>,
    /// The table.
    pub table_id: TableId,
}

fn gone() -> Refusal {
    (ErrorCode::UnknownTable, "the table is closed".to_string())
}

impl TableHandle {
    async fn ask<T>(&self, make: impl FnOnce(Reply<T>) -> Command) -> Result<T, Refusal> {
        let (tx, rx) = oneshot::channel();
        self.commands.send(make(tx)).await.map_err(|_| gone())?;
        rx.await.map_err(|_| gone())?
    }

    async fn query<T>(&self, make: impl FnOnce(oneshot::Sender<T>) -> Command) -> Option<T> {
        let (tx, rx) = oneshot::channel();
        self.commands.send(make(tx)).await.ok()?;
        rx.await.ok()
    }

    /// Seats a player.
    pub async fn sit(
        &self,
        player: PlayerId,
        name: String,
        seat: u32,
        buy_in: Chips,
        entry: Entry,
    ) -> Result<Outcome, Refusal> {
        self.sit_with(player, name, seat, buy_in, entry, None).await
    }

    /// Seats a player and, only if seated, subscribes the connection's queue (a snapshot
    /// first, taken with the player in the seat).
    pub async fn sit_with(
        &self,
        player: PlayerId,
        name: String,
        seat: u32,
        buy_in: Chips,
        entry: Entry,
        queue: Option<mpsc::Sender<ServerMsg>>,
    ) -> Result<Outcome, Refusal> {
        self.ask(|respond_to| Command::Sit {
            player,
            name,
            seat,
            buy_in,
            entry,
            queue,
            respond_to,
        })
        .await
    }

    /// Answers a decision.
    pub async fn act(
        &self,
        player: PlayerId,
        decision_id: u64,
        action: Action,
    ) -> Result<(), Refusal> {
        let received = Instant::now();
        self.ask(|respond_to| Command::Act {
            player,
            decision_id,
            action,
            received,
            respond_to,
        })
        .await
    }

    /// Sits out, sits in, tops up or leaves.
    pub async fn seat(&self, player: PlayerId, request: SeatRequest) -> Result<Outcome, Refusal> {
        self.ask(|respond_to| Command::Seat {
            player,
            request,
            respond_to,
        })
        .await
    }

    /// Subscribes a bounded queue to the table's messages; returns the receiver.
    pub async fn subscribe(
        &self,
        player: Option<PlayerId>,
        capacity: usize,
    ) -> mpsc::Receiver<ServerMsg> {
        let (queue, rx) = mpsc::channel(capacity);
        self.subscribe_with(player, queue, false).await;
        rx
    }

    /// Subscribes an existing queue (a connection's, shared by its tables); with
    /// `only_if_seated`, only if the player is seated here. Returns whether it did.
    pub async fn subscribe_with(
        &self,
        player: Option<PlayerId>,
        queue: mpsc::Sender<ServerMsg>,
        only_if_seated: bool,
    ) -> bool {
        self.query(|respond_to| Command::Subscribe {
            player,
            only_if_seated,
            queue,
            respond_to,
        })
        .await
        .unwrap_or(false)
    }

    /// Stops sending to a connection's queue (not while its player is seated here).
    pub async fn unsubscribe(&self, queue: mpsc::Sender<ServerMsg>) {
        let _ = self.commands.send(Command::Unsubscribe { queue }).await;
    }

    /// The table's state, for operators.
    pub async fn inspect(&self) -> Option<serde_json::Value> {
        self.query(|respond_to| Command::Inspect { respond_to })
            .await
    }

    /// Lets the hand in progress finish and deals no more.
    pub async fn drain(&self) {
        self.query(|respond_to| Command::Drain { respond_to }).await;
    }

    /// Finishes the hand in progress, cashes everyone out and closes the table; returns
    /// the chips cashed out (`None` if it was already closed).
    pub async fn close(&self) -> Option<Chips> {
        self.query(|respond_to| Command::Close { respond_to }).await
    }

    /// Makes the table's task fail as a bug would, to test that the server contains it
    /// (the hand is voided, the table marked failed, its players may leave with their
    /// chips). Not reachable from the network.
    #[doc(hidden)]
    pub async fn inject_fault(&self) {
        let _ = self.commands.send(Command::InjectFault).await;
    }
}

struct Current {
    plan: HandPlan,
    hand: Hand,
    hand_id: HandId,
    players: Vec<PlayerId>,
    started_at: i64,
    decision_id: u64,
    /// How many events the hand had when the current decision was asked.
    asked_at: usize,
    events: Vec<Event>,
    ended: Option<Instant>,
}

/// The clock of the decision being asked.
struct TurnClock {
    player: usize,
    seat: u32,
    asked: Instant,
    warned: bool,
    bank_started: Option<Instant>,
}

/// What the actor knows of a seated player besides the table's rules.
struct SeatInfo {
    name: String,
    time_bank_ms: u64,
    timeouts: u32,
    pending_top_up: Chips,
    leaving: bool,
    /// Asked to sit out during a hand and told `pending`: told `done` again at its end.
    pending_sit_out: bool,
}

struct Subscriber {
    who: Option<PlayerId>,
    queue: mpsc::Sender<ServerMsg>,
    /// Missed messages: gets a snapshot as soon as its queue has room.
    stale: bool,
}

struct Actor {
    table_id: TableId,
    name: String,
    clock_rules: ClockRules,
    table: Table<PlayerId>,
    ctx: TableContext,
    info: HashMap<PlayerId, SeatInfo>,
    subscribers: Vec<Subscriber>,
    current: Option<Current>,
    clock: Option<TurnClock>,
    next_decision: u64,
    next_hand_at: Option<Instant>,
    button: Option<u32>,
    draining: Vec<oneshot::Sender<()>>,
    drain: bool,
    closing: Vec<oneshot::Sender<Chips>>,
    closed: bool,
    recent_pots: VecDeque<Chips>,
    hand_times: VecDeque<Instant>,
    /// Sitting out and blinds owed, as last written to the store.
    saved: HashMap<PlayerId, (bool, bool, bool)>,
    /// The table's state, for the background writer.
    state_tx: tokio::sync::watch::Sender<(u64, String)>,
    /// The generation of the state last written by the writer.
    state_written: tokio::sync::watch::Receiver<u64>,
    /// The table changed since its state was last handed to the writer.
    state_dirty: bool,
    /// Who listens, mirrored for the supervisor (which tells them if this task fails).
    listeners: Listeners,
}

/// The queues subscribed to a table, shared with its supervisor.
type Listeners = Arc<std::sync::Mutex<Vec<(Option<PlayerId>, mpsc::Sender<ServerMsg>)>>>;

/// Starts a table's actor, with the players the store says are seated there.
pub async fn spawn(
    table_id: TableId,
    name: String,
    spec: TableSpec,
    ctx: TableContext,
) -> anyhow::Result<TableHandle> {
    let seats = ctx.store.seats(table_id).await?;
    // The table as last saved (button, blinds owed, dead seats...), made to agree with
    // the stored seats; or a fresh table with them.
    let stored: Vec<(usize, PlayerId, Chips)> = seats
        .iter()
        .map(|s| (s.seat_no as usize, s.player_id, s.stack))
        .collect();
    let saved_table = ctx
        .store
        .table_state(table_id)
        .await?
        .and_then(|json| {
            serde_json::from_str::<Table<PlayerId>>(&json)
                .map_err(|e| eprintln!("pokerd: table {table_id}: saved state unreadable: {e}"))
                .ok()
        })
        .filter(|t| t.rules() == &spec.rules);
    let mut table = match saved_table {
        Some(mut t) => {
            t.reconcile(&stored)
                .map_err(|e| anyhow::anyhow!("restoring the table: {e}"))?;
            t
        }
        None => {
            let mut t = Table::new(spec.rules.clone()).map_err(|e| anyhow::anyhow!("{e}"))?;
            for &(seat, player, stack) in &stored {
                t.restore_seat(seat, player, stack)
                    .map_err(|e| anyhow::anyhow!("seat {seat}: {e}"))?;
            }
            t
        }
    };
    // Hand numbers go on from the last hand dealt here (void ones included).
    if let Some(last) = ctx.store.table_hands(table_id, 1, 0).await?.first() {
        table.continue_numbering(last.number);
    }
    let names: HashMap<PlayerId, String> = if seats.is_empty() {
        HashMap::new()
    } else {
        ctx.store
            .players()
            .await?
            .into_iter()
            .map(|p| (p.player_id, p.name))
            .collect()
    };
    let mut info = HashMap::new();
    let mut saved = HashMap::new();
    for seat in seats {
        // Who was sitting out, and the blinds they owe (R14), survive a restart.
        let (small, big) = ctx.store.missed_blinds(table_id, seat.player_id).await?;
        table
            .restore_state(seat.seat_no as usize, seat.sitting_out, small, big)
            .map_err(|e| anyhow::anyhow!("seat {}: {e}", seat.seat_no))?;
        saved.insert(seat.player_id, (seat.sitting_out, small, big));
        info.insert(
            seat.player_id,
            SeatInfo::new(
                names.get(&seat.player_id).cloned().unwrap_or_default(),
                &spec.clock,
            ),
        );
    }
    // The table's state is written in the background, latest first, never holding up
    // the table.
    // Every write goes through this one writer, in order, so an older state can never
    // land after a newer one; a drain waits for its own write (the generation).
    let (state_tx, mut state_rx) = tokio::sync::watch::channel((0u64, String::new()));
    let (written_tx, state_written) = tokio::sync::watch::channel(0u64);
    {
        let store = ctx.store.clone();
        tokio::spawn(async move {
            while state_rx.changed().await.is_ok() {
                let (generation, json) = state_rx.borrow_and_update().clone();
                if let Err(e) = store.set_table_state(table_id, &json).await {
                    eprintln!("pokerd: table {table_id}: cannot save its state: {e}");
                }
                let _ = written_tx.send(generation);
            }
        });
    }
    let (commands, rx) = mpsc::channel(256);
    // The supervisor takes the commands over if the actor's task ends unexpectedly.
    let rx = Arc::new(tokio::sync::Mutex::new(rx));
    let listeners: Listeners = Arc::default();
    let mut actor = Actor {
        table_id,
        name,
        clock_rules: spec.clock,
        table,
        ctx,
        info,
        subscribers: Vec::new(),
        current: None,
        clock: None,
        next_decision: 1,
        next_hand_at: None,
        button: None,
        draining: Vec::new(),
        drain: false,
        closing: Vec::new(),
        closed: false,
        recent_pots: VecDeque::new(),
        hand_times: VecDeque::new(),
        saved,
        state_tx,
        state_written,
        state_dirty: false,
        listeners: listeners.clone(),
    };
    actor.publish_lobby();
    let failed = Failed {
        table_id,
        name: actor.name.clone(),
        ctx: actor.ctx.clone(),
        listeners,
    };
    let actor_rx = rx.clone();
    let task = tokio::spawn(async move {
        let mut rx = actor_rx.lock().await;
        actor.progress().await;
        while !actor.closed {
            let deadline = actor.next_deadline();
            tokio::select! {
                command = rx.recv() => match command {
                    Some(command) => actor.handle(command).await,
                    None => break,
                },
                _ = sleep_until(deadline), if deadline.is_some() => actor.on_timer(),
            }
            actor
                .ctx
                .metrics
                .table_wakeups
                .fetch_add(1, Ordering::Relaxed);
            actor.progress().await;
            actor.save_seat_states().await;
            actor.save_table();
        }
    });
    tokio::spawn(async move {
        match task.await {
            Ok(()) => {}
            Err(e) if e.is_cancelled() => {}
            Err(e) => {
                let reason = match e.try_into_panic() {
                    Ok(p) => p
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| p.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "a panic".into()),
                    Err(e) => e.to_string(),
                };
                let mut rx = rx.lock().await;
                failed.serve(&reason, &mut rx).await;
            }
        }
    });
    Ok(TableHandle { commands, table_id })
}

/// A table whose task ended unexpectedly: what its supervisor needs to contain it.
struct Failed {
    table_id: TableId,
    name: String,
    ctx: TableContext,
    listeners: Listeners,
}

impl Failed {
    fn tell(&self, msg: &ServerMsg) {
        let mut listeners = self.listeners.lock().unwrap_or_else(|e| e.into_inner());
        listeners.retain(|(_, q)| !matches!(q.try_send(msg.clone()), Err(TrySendError::Closed(_))));
    }

    fn lobby(&self, status: &str) {
        if let Some(mut summary) = self.ctx.lobby.get(self.table_id) {
            summary.status = status.to_string();
            self.ctx.lobby.publish(self.table_id, summary);
        }
    }

    /// Voids the hand in progress (the stored stacks are as it began), marks the table
    /// failed, tells its players, then answers commands: players may leave with their
    /// chips, the operator may close the table; nothing else is done.
    async fn serve(self, reason: &str, rx: &mut mpsc::Receiver<Command>) {
        let table_id = self.table_id;
        self.ctx
            .metrics
            .table_failures
            .fetch_add(1, Ordering::Relaxed);
        eprintln!("pokerd: table {table_id}: its task failed ({reason}); the table is stopped");
        match self.ctx.store.void_hands(table_id).await {
            Ok(void) if !void.is_empty() => {
                eprintln!("pokerd: table {table_id}: {} hand(s) void", void.len())
            }
            Ok(_) => {}
            Err(e) => eprintln!("pokerd: table {table_id}: cannot void its hand: {e}"),
        }
        self.lobby("failed");
        let failed_msg = ServerMsg::TableFailed {
            table_id: table_id.to_string(),
            message: "the table stopped on a server fault: the hand in progress is void \
                      (every stack is as it began); leave to cash out"
                .into(),
        };
        self.tell(&failed_msg);
        let stopped = || {
            refuse(
                ErrorCode::SeatRefused,
                "the table has failed: leave to cash out",
            )
        };
        while let Some(command) = rx.recv().await {
            match command {
                Command::Sit { respond_to, .. } => {
                    let _ = respond_to.send(Err(stopped()));
                }
                Command::Act { respond_to, .. } => {
                    let _ = respond_to.send(Err(refuse(
                        ErrorCode::IllegalAction,
                        "the table has failed: the hand is void",
                    )));
                }
                Command::Seat {
                    player,
                    request: SeatRequest::Leave,
                    respond_to,
                } => {
                    let result = match self.ctx.store.cash_out(table_id, player, now_ms()).await {
                        Ok(amount) => Ok(Outcome {
                            amount,
                            pending: false,
                        }),
                        Err(StoreError::NotFound(_)) => Err(refuse(
                            ErrorCode::NotYourTurn,
                            "you are not seated at this table",
                        )),
                        Err(e) => {
                            eprintln!("pokerd: table {table_id}: cash-out failed: {e}");
                            Err(refuse(ErrorCode::Internal, "the cash-out failed"))
                        }
                    };
                    let _ = respond_to.send(result);
                }
                Command::Seat { respond_to, .. } => {
                    let _ = respond_to.send(Err(stopped()));
                }
                Command::Subscribe {
                    player,
                    only_if_seated,
                    queue,
                    respond_to,
                } => {
                    let seated = match (player, self.ctx.store.seats(table_id).await) {
                        (Some(p), Ok(seats)) => seats.iter().any(|s| s.player_id == p),
                        _ => false,
                    };
                    let ok = !only_if_seated || seated;
                    if ok {
                        let _ = queue.try_send(failed_msg.clone());
                        self.listeners
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push((player, queue));
                    }
                    let _ = respond_to.send(ok);
                }
                Command::Unsubscribe { queue } => {
                    self.listeners
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .retain(|(_, q)| !q.same_channel(&queue));
                }
                Command::Inspect { respond_to } => {
                    let seats = self.ctx.store.seats(table_id).await.unwrap_or_default();
                    let _ = respond_to.send(serde_json::json!({
                        "table": { "table_id": table_id.to_string(), "name": self.name, "seats": seats },
                        "hand_number": null,
                        "status": "failed",
                        "reason": reason,
                    }));
                }
                Command::Drain { respond_to } => {
                    let _ = respond_to.send(());
                }
                Command::Close { respond_to } => {
                    let mut total = 0;
                    for seat in self.ctx.store.seats(table_id).await.unwrap_or_default() {
                        match self
                            .ctx
                            .store
                            .cash_out(table_id, seat.player_id, now_ms())
                            .await
                        {
                            Ok(amount) => total += amount,
                            Err(e) => eprintln!("pokerd: table {table_id}: closing: {e}"),
                        }
                    }
                    if let Err(e) = self.ctx.store.set_table_status(table_id, "closed").await {
                        eprintln!("pokerd: table {table_id}: cannot mark closed: {e}");
                    }
                    self.lobby("closed");
                    self.tell(&ServerMsg::TableClosed {
                        table_id: table_id.to_string(),
                    });
                    let _ = respond_to.send(total);
                    return;
                }
                Command::InjectFault => {}
            }
        }
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    if let Some(d) = deadline {
        tokio::time::sleep_until(d.into()).await;
    }
}

fn refuse(code: ErrorCode, message: impl Into<String>) -> Refusal {
    (code, message.into())
}

fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}

impl SeatInfo {
    fn new(name: String, clock: &ClockRules) -> SeatInfo {
        SeatInfo {
            name,
            time_bank_ms: clock.time_bank_ms,
            timeouts: 0,
            pending_top_up: 0,
            leaving: false,
            pending_sit_out: false,
        }
    }
}

impl Actor {
    async fn handle(&mut self, command: Command) {
        match command {
            Command::Subscribe {
                player,
                only_if_seated,
                queue,
                respond_to,
            } => {
                let seated = player.is_some_and(|p| self.seat_of(p).is_some());
                let ok = !only_if_seated || seated;
                if ok {
                    let snapshot = self.snapshot(player);
                    // A connection subscribes once per table; a spectator who sits down
                    // becomes that player.
                    self.add_subscriber(player, queue, snapshot);
                }
                let _ = respond_to.send(ok);
            }
            Command::InjectFault => panic!("injected fault"),
            Command::Sit {
                player,
                name,
                seat,
                buy_in,
                entry,
                queue,
                respond_to,
            } => {
                let result = self.sit(player, name, seat, buy_in, entry).await;
                if result.is_ok() {
                    // Subscribed only once seated: a refused sit leaves the connection
                    // as it was.
                    if let Some(queue) = queue {
                        let snapshot = self.snapshot(Some(player));
                        self.add_subscriber(Some(player), queue, snapshot);
                    }
                    self.seats_changed();
                }
                let _ = respond_to.send(result);
            }
            Command::Act {
                player,
                decision_id,
                action,
                received,
                respond_to,
            } => {
                let result = self.act(player, decision_id, action);
                if result.is_ok() {
                    self.ctx.metrics.actions.fetch_add(1, Ordering::Relaxed);
                    self.ctx.metrics.action_latency.observe(received.elapsed());
                }
                let _ = respond_to.send(result);
            }
            Command::Seat {
                player,
                request,
                respond_to,
            } => {
                let result = self.seat_request(player, request).await;
                if result.is_ok() {
                    self.seats_changed();
                }
                let _ = respond_to.send(result);
            }
            Command::Unsubscribe { queue } => {
                let seated: Vec<PlayerId> = self
                    .table
                    .seats()
                    .iter()
                    .flatten()
                    .map(|o| o.player)
                    .collect();
                self.subscribers.retain(|s| {
                    !s.queue.same_channel(&queue) || s.who.is_some_and(|p| seated.contains(&p))
                });
                self.mirror_listeners();
            }
            Command::Inspect { respond_to } => {
                let view = self.table_view();
                let _ = respond_to.send(serde_json::json!({
                    "table": view,
                    "hand_number": self.current.as_ref().map(|c| c.plan.number),
                    "hands_dealt": self.table.hands_dealt(),
                    "status": self.status(),
                }));
            }
            Command::Drain { respond_to } => {
                self.drain = true;
                self.draining.push(respond_to);
            }
            Command::Close { respond_to } => {
                self.closing.push(respond_to);
                self.publish_lobby();
            }
        }
    }

    /// Subscribes a queue (once per connection: a spectator who sits down becomes that
    /// player), sending it a snapshot first.
    fn add_subscriber(
        &mut self,
        player: Option<PlayerId>,
        queue: mpsc::Sender<ServerMsg>,
        snapshot: ServerMsg,
    ) {
        self.subscribers.retain(|s| !s.queue.same_channel(&queue));
        let stale = queue.try_send(snapshot).is_err();
        self.subscribers.push(Subscriber {
            who: player,
            queue,
            stale,
        });
        self.mirror_listeners();
    }

    /// Copies who listens for the supervisor.
    fn mirror_listeners(&mut self) {
        self.subscribers.retain(|s| !s.queue.is_closed());
        let mut listeners = self.listeners.lock().unwrap_or_else(|e| e.into_inner());
        listeners.clear();
        listeners.extend(self.subscribers.iter().map(|s| (s.who, s.queue.clone())));
    }

    fn seat_of(&self, player: PlayerId) -> Option<usize> {
        self.table
            .seats()
            .iter()
            .position(|o| o.as_ref().is_some_and(|o| o.player == player))
    }

    /// Whether the player is dealt into the hand in progress.
    fn in_hand(&self, player: PlayerId) -> bool {
        self.current
            .as_ref()
            .is_some_and(|c| c.ended.is_none() && c.players.contains(&player))
    }

    async fn sit(
        &mut self,
        player: PlayerId,
        name: String,
        seat: u32,
        buy_in: Chips,
        entry: Entry,
    ) -> Result<Outcome, Refusal> {
        if !self.closing.is_empty() {
            return Err(refuse(ErrorCode::SeatRefused, "the table is closing"));
        }
        let seat_no = seat as usize;
        match self.table.seats().get(seat_no) {
            None => return Err(refuse(ErrorCode::SeatRefused, "no such seat")),
            Some(Some(_)) => return Err(refuse(ErrorCode::SeatRefused, "the seat is taken")),
            Some(None) => {}
        }
        if self.seat_of(player).is_some() {
            return Err(refuse(ErrorCode::SeatRefused, "already seated here"));
        }
        let rathole = self
            .ctx
            .store
            .rathole(self.table_id, player)
            .await
            .ok()
            .flatten()
            .map(|r| poker_rules::table::Rathole {
                player,
                stack: r.stack,
                left_at: (r.left_at / 1000).max(0) as u64,
            });
        let now = (now_ms() / 1000) as u64;
        let (min, max) = self.table.buy_in_range(rathole.as_ref(), now);
        if buy_in < min || buy_in > max {
            return Err(refuse(
                ErrorCode::SeatRefused,
                format!("buy in between {min} and {max}"),
            ));
        }
        // The money moves first, in its own transaction with its ledger rows.
        match self
            .ctx
            .store
            .buy_in(self.table_id, seat, player, buy_in, None)
            .await
        {
            Ok(()) => {}
            Err(StoreError::InsufficientFunds { balance }) => {
                return Err(refuse(
                    ErrorCode::InsufficientFunds,
                    format!("the balance is {balance}"),
                ))
            }
            Err(e) => return Err(refuse(ErrorCode::SeatRefused, e.to_string())),
        }
        self.table
            .sit_down(seat_no, player, buy_in, entry, rathole.as_ref(), now)
            .map_err(|e| refuse(ErrorCode::SeatRefused, e.to_string()))?;
        self.info
            .insert(player, SeatInfo::new(name, &self.clock_rules));
        Ok(Outcome {
            amount: buy_in,
            pending: false,
        })
    }

    async fn seat_request(
        &mut self,
        player: PlayerId,
        request: SeatRequest,
    ) -> Result<Outcome, Refusal> {
        let seat = self
            .seat_of(player)
            .ok_or_else(|| refuse(ErrorCode::NotYourTurn, "you are not seated at this table"))?;
        let done = |amount, pending| Ok(Outcome { amount, pending });
        let table_error =
            |e: poker_rules::table::TableError| refuse(ErrorCode::SeatRefused, e.to_string());
        match request {
            SeatRequest::SitOut { next_big_blind } => {
                let when = if next_big_blind {
                    SitOut::NextBigBlind
                } else {
                    SitOut::NextHand
                };
                self.table.sit_out(seat, when).map_err(table_error)?;
                let pending = self.in_hand(player);
                if let Some(info) = self.info.get_mut(&player) {
                    // Told `done` again when the hand ends.
                    info.pending_sit_out = pending;
                }
                done(0, pending)
            }
            SeatRequest::SitIn { post_now } => {
                let entry = if post_now {
                    Entry::PostNow
                } else {
                    Entry::WaitForBigBlind
                };
                self.table.sit_in(seat, entry).map_err(table_error)?;
                if let Some(info) = self.info.get_mut(&player) {
                    info.timeouts = 0;
                    info.pending_sit_out = false;
                }
                done(0, false)
            }
            SeatRequest::TopUp { amount } => {
                let max = self.table.rules().max_buy_in;
                let stack = self.table.seats()[seat].as_ref().expect("seated").stack;
                let pending = self.info.get(&player).map_or(0, |i| i.pending_top_up);
                if amount == 0 || stack + pending + amount > max {
                    return Err(refuse(
                        ErrorCode::SeatRefused,
                        format!(
                            "a top-up may bring the stack to at most {max} (now {})",
                            stack + pending
                        ),
                    ));
                }
                if self.in_hand(player) {
                    // Chips are added only between hands (R26); the money moves then.
                    let balance = self.ctx.store.balance(player).await.unwrap_or(0);
                    if balance < pending + amount {
                        return Err(refuse(
                            ErrorCode::InsufficientFunds,
                            format!("the balance is {balance}"),
                        ));
                    }
                    if let Some(info) = self.info.get_mut(&player) {
                        info.pending_top_up += amount;
                    }
                    return done(amount, true);
                }
                self.top_up_now(player, seat, amount).await?;
                done(amount, false)
            }
            SeatRequest::Leave => {
                if self.in_hand(player) {
                    self.info.get_mut(&player).expect("seated").leaving = true;
                    let stack = self.table.seats()[seat].as_ref().expect("seated").stack;
                    // The hand is dead: if the player is being asked now, the answer is
                    // given for them at once (a fold where folding is allowed).
                    let cur = self.current.as_ref().expect("in a hand");
                    if let Some(p) = cur.hand.to_act() {
                        if cur.players[p] == player {
                            if let Some(decision) = cur.hand.decision() {
                                if !matches!(decision, Decision::Showdown { .. }) {
                                    self.clock = None;
                                    self.auto(p, default_action(&decision, true));
                                }
                            }
                        }
                    }
                    return done(stack, true);
                }
                let amount = self.leave_now(player, seat).await?;
                done(amount, false)
            }
        }
    }

    async fn top_up_now(
        &mut self,
        player: PlayerId,
        seat: usize,
        amount: Chips,
    ) -> Result<(), Refusal> {
        match self
            .ctx
            .store
            .top_up(self.table_id, player, amount, None)
            .await
        {
            Ok(_) => {}
            Err(StoreError::InsufficientFunds { balance }) => {
                return Err(refuse(
                    ErrorCode::InsufficientFunds,
                    format!("the balance is {balance}"),
                ))
            }
            Err(e) => {
                eprintln!("pokerd: table {}: top-up failed: {e}", self.table_id);
                return Err(refuse(ErrorCode::Internal, "the top-up failed"));
            }
        }
        let busted = self.table.seats()[seat]
            .as_ref()
            .is_some_and(|o| o.stack == 0);
        self.table
            .top_up(seat, amount)
            .map_err(|e| refuse(ErrorCode::SeatRefused, e.to_string()))?;
        if busted {
            // A player who lost every chip was sat out by the table; buying more chips
            // brings them back in, posting what they owe.
            let _ = self.table.sit_in(seat, Entry::PostNow);
        }
        Ok(())
    }

    async fn leave_now(&mut self, player: PlayerId, seat: usize) -> Result<Chips, Refusal> {
        let amount = self
            .ctx
            .store
            .cash_out(self.table_id, player, now_ms())
            .await;
        let amount = amount.map_err(|e| {
            eprintln!("pokerd: table {}: cash-out failed: {e}", self.table_id);
            refuse(ErrorCode::Internal, "the cash-out failed")
        })?;
        let now = (now_ms() / 1000) as u64;
        self.table
            .leave(seat, now)
            .map_err(|e| refuse(ErrorCode::SeatRefused, e.to_string()))?;
        self.info.remove(&player);
        Ok(amount)
    }

    fn act(&mut self, player: PlayerId, decision_id: u64, action: Action) -> Result<(), Refusal> {
        let Some(cur) = self.current.as_mut() else {
            return Err(refuse(ErrorCode::NotYourTurn, "no hand is being played"));
        };
        let Some(to_act) = cur.hand.to_act() else {
            return Err(refuse(ErrorCode::NotYourTurn, "nobody is to act"));
        };
        if cur.players[to_act] != player {
            return Err(refuse(ErrorCode::NotYourTurn, "it is not your turn"));
        }
        if self.info.get(&player).is_some_and(|i| i.leaving) {
            return Err(refuse(
                ErrorCode::IllegalAction,
                "you have left the table: your hand is dead",
            ));
        }
        if decision_id != cur.decision_id {
            return Err(refuse(
                ErrorCode::StaleDecision,
                "that decision is no longer asked",
            ));
        }
        let events = cur
            .hand
            .apply(to_act, action)
            .map_err(|e| refuse(ErrorCode::IllegalAction, e.to_string()))?;
        cur.events.extend(events.iter().cloned());
        if let Some(clock) = self.clock.take() {
            if let (Some(b), Some(info)) = (clock.bank_started, self.info.get_mut(&player)) {
                info.time_bank_ms = info.time_bank_ms.saturating_sub(ms(b.elapsed()));
            }
        }
        if let Some(info) = self.info.get_mut(&player) {
            info.timeouts = 0;
        }
        self.broadcast(&events);
        Ok(())
    }

    /// Writes who sits out and the blinds they owe, where changed, so that a restart
    /// keeps them.
    async fn save_seat_states(&mut self) {
        if self.closed {
            return;
        }
        let now: Vec<(PlayerId, (bool, bool, bool))> = self
            .table
            .seats()
            .iter()
            .flatten()
            .map(|o| {
                let out = o.sitting_out || o.sit_out_next_hand;
                (o.player, (out, o.missed_small, o.missed_big))
            })
            .collect();
        self.saved.retain(|p, _| now.iter().any(|(q, _)| q == p));
        for (player, state) in now {
            let before = self.saved.get(&player).copied();
            if before == Some(state) {
                continue;
            }
            let store = &self.ctx.store;
            let mut ok = true;
            if before.map(|b| b.0) != Some(state.0) {
                ok &= store
                    .set_sitting_out(self.table_id, player, state.0)
                    .await
                    .is_ok();
            }
            if before.map(|b| (b.1, b.2)) != Some((state.1, state.2)) {
                ok &= store
                    .set_missed_blinds(self.table_id, player, state.1, state.2)
                    .await
                    .is_ok();
            }
            if ok {
                self.saved.insert(player, state);
            }
        }
    }

    /// Hands the table's state to the background writer if it changed. Only states
    /// between hands are saved: planning a hand moves the button, and a hand cut off by a
    /// restart never happened.
    fn save_table(&mut self) {
        // A drained table wrote its state for the next start; the database may be
        // closing now.
        if !self.state_dirty || self.closed || self.drain || self.table.current_hand().is_some() {
            return;
        }
        self.state_dirty = false;
        match serde_json::to_string(&self.table) {
            Ok(json) => {
                let generation = self.state_tx.borrow().0 + 1;
                let _ = self.state_tx.send((generation, json));
            }
            Err(e) => eprintln!("pokerd: table {}: state: {e}", self.table_id),
        }
    }

    /// When the actor must wake up by itself.
    fn next_deadline(&self) -> Option<Instant> {
        if let Some(clock) = &self.clock {
            return Some(self.clock_deadline(clock));
        }
        match &self.current {
            // Between hands, or a finished hand whose commit is to be tried again.
            None => self.next_hand_at,
            Some(c) if c.hand.is_complete() => self.next_hand_at,
            Some(_) => None,
        }
    }

    fn action_end(&self, clock: &TurnClock) -> Instant {
        clock.asked + Duration::from_millis(self.clock_rules.action_ms)
    }

    fn warn_at(&self, clock: &TurnClock) -> Option<Instant> {
        let r = &self.clock_rules;
        (r.warning_ms > 0 && r.warning_ms < r.action_ms)
            .then(|| self.action_end(clock) - Duration::from_millis(r.warning_ms))
    }

    fn bank_of(&self, clock: &TurnClock) -> u64 {
        let cur = self.current.as_ref().expect("a clock runs in a hand");
        self.info
            .get(&cur.players[clock.player])
            .map_or(0, |i| i.time_bank_ms)
    }

    fn clock_deadline(&self, clock: &TurnClock) -> Instant {
        if let Some(b) = clock.bank_started {
            return b + Duration::from_millis(self.bank_of(clock));
        }
        match self.warn_at(clock) {
            Some(w) if !clock.warned => w,
            _ => self.action_end(clock),
        }
    }

    fn clock_view(&self, clock: &TurnClock) -> ClockView {
        let now = Instant::now();
        let bank = self.bank_of(clock);
        match clock.bank_started {
            Some(b) => {
                let left = bank.saturating_sub(ms(now.saturating_duration_since(b)));
                ClockView {
                    seat: clock.seat,
                    remaining_ms: left,
                    time_bank_ms: left,
                    in_time_bank: true,
                }
            }
            None => ClockView {
                seat: clock.seat,
                remaining_ms: ms(self.action_end(clock).saturating_duration_since(now)),
                time_bank_ms: bank,
                in_time_bank: false,
            },
        }
    }

    /// The clock moved on: warn, start the time bank, or act for the player (R38).
    fn on_timer(&mut self) {
        let now = Instant::now();
        let Some(clock) = self.clock.as_ref() else {
            return;
        };
        if now < self.clock_deadline(clock) {
            return;
        }
        let table_id = self.table_id.to_string();
        let cur = self.current.as_ref().expect("a clock runs in a hand");
        let player = cur.players[clock.player];
        let hand_number = cur.plan.number;
        if clock.bank_started.is_none() {
            if let Some(w) = self.warn_at(clock) {
                if !clock.warned && now >= w {
                    let remaining_ms = ms(self.action_end(clock).saturating_duration_since(now));
                    self.clock.as_mut().expect("clock").warned = true;
                    self.send_to(
                        player,
                        ServerMsg::ClockWarning {
                            table_id,
                            remaining_ms,
                        },
                    );
                    return;
                }
            }
            if self.bank_of(clock) > 0 {
                self.clock.as_mut().expect("clock").bank_started = Some(now);
                let view = self.clock_view(self.clock.as_ref().expect("clock"));
                self.send_all(&ServerMsg::Turn {
                    table_id,
                    hand_number,
                    clock: view,
                });
                return;
            }
        }
        // Out of time: check if free, else fold (stand pat on a draw, decline to run it
        // twice); too many in a row sits the player out.
        let clock = self.clock.take().expect("clock");
        let Some(decision) = cur.hand.decision() else {
            return;
        };
        let action = default_action(&decision, false);
        self.ctx.metrics.timeouts.fetch_add(1, Ordering::Relaxed);
        let max = self.clock_rules.max_timeouts;
        let mut sat_out = false;
        if let Some(info) = self.info.get_mut(&player) {
            info.time_bank_ms = 0;
            info.timeouts += 1;
            if max > 0 && info.timeouts >= max {
                if let Some(seat) = self.seat_of(player) {
                    sat_out = self.table.sit_out(seat, SitOut::NextHand).is_ok();
                }
            }
        }
        self.send_all(&ServerMsg::TimedOut {
            table_id,
            seat: clock.seat,
            sat_out,
        });
        self.auto(clock.player, action);
        if sat_out {
            self.seats_changed();
        }
    }

    fn status(&self) -> &'static str {
        if self.closed {
            "closed"
        } else if !self.closing.is_empty() {
            "closing"
        } else {
            "open"
        }
    }

    fn table_view(&self) -> TableView {
        let rules = self.table.rules();
        let seats = self
            .table
            .seats()
            .iter()
            .enumerate()
            .filter_map(|(i, o)| {
                let o = o.as_ref()?;
                let info = self.info.get(&o.player);
                Some(SeatView {
                    seat: i as u32,
                    player_id: o.player.to_string(),
                    name: info.map(|i| i.name.clone()).unwrap_or_default(),
                    stack: o.stack,
                    sitting_out: o.sitting_out || o.sit_out_next_hand,
                    pending_top_up: info.map_or(0, |i| i.pending_top_up),
                    leaving: info.is_some_and(|i| i.leaving),
                })
            })
            .collect();
        TableView {
            table_id: self.table_id.to_string(),
            name: self.name.clone(),
            seat_count: rules.seat_count as u32,
            button: self.button,
            seats,
            min_buy_in: rules.min_buy_in,
            max_buy_in: rules.max_buy_in,
            blinds: (rules.small_blind, rules.big_blind),
            action_ms: self.clock_rules.action_ms,
            time_bank_ms: self.clock_rules.time_bank_ms,
        }
    }

    /// The decision being asked, as its player is told.
    fn decide_msg(&self) -> Option<(PlayerId, ServerMsg)> {
        let cur = self.current.as_ref()?;
        let p = cur.hand.to_act()?;
        let table_id = self.table_id.to_string();
        let decision_id = cur.decision_id;
        let msg = match cur.hand.decision()? {
            Decision::Bet(legal) => ServerMsg::Decide {
                table_id,
                decision_id,
                legal,
            },
            Decision::Draw => ServerMsg::DecideDraw {
                table_id,
                decision_id,
            },
            Decision::RunItTwice => ServerMsg::DecideRunTwice {
                table_id,
                decision_id,
            },
            Decision::Showdown { .. } => return None,
        };
        Some((cur.players[p], msg))
    }

    /// The whole table and hand as `who` may see them.
    fn snapshot(&self, who: Option<PlayerId>) -> ServerMsg {
        let hand = self.current.as_ref().map(|cur| HandView {
            hand_number: cur.plan.number,
            seats: cur.plan.seats.iter().map(|&s| s as u32).collect(),
            starting_stacks: cur.plan.config.seats.iter().map(|s| s.stack).collect(),
            button: cur.plan.button as u32,
            events: cur
                .events
                .iter()
                .map(|e| redact(e, who, &cur.players))
                .collect(),
        });
        let decide = self
            .clock
            .as_ref()
            .and_then(|_| self.decide_msg())
            .filter(|(p, _)| Some(*p) == who)
            .map(|(_, m)| Box::new(m));
        ServerMsg::Snapshot {
            table: self.table_view(),
            hand,
            clock: self.clock.as_ref().map(|c| self.clock_view(c)),
            decide,
        }
    }

    /// Sends to every subscriber the message made for them; a full queue marks the
    /// subscriber stale (resynced later), a closed one is dropped.
    fn fan_out(&mut self, mut make: impl FnMut(Option<PlayerId>) -> Vec<ServerMsg>) {
        let mut subscribers = std::mem::take(&mut self.subscribers);
        subscribers.retain_mut(|s| {
            if s.stale {
                match s.queue.try_send(self.snapshot(s.who)) {
                    Ok(()) => {
                        s.stale = false;
                        self.ctx.metrics.resyncs.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(TrySendError::Full(_)) => {}
                    Err(TrySendError::Closed(_)) => return false,
                }
                return true;
            }
            for msg in make(s.who) {
                match s.queue.try_send(msg) {
                    Ok(()) => {}
                    Err(TrySendError::Full(_)) => {
                        s.stale = true;
                        return true;
                    }
                    Err(TrySendError::Closed(_)) => return false,
                }
            }
            true
        });
        self.subscribers = subscribers;
    }

    fn send_all(&mut self, msg: &ServerMsg) {
        self.fan_out(|_| vec![msg.clone()]);
    }

    /// Sends events to every subscriber, hole cards hidden from all but their owner.
    fn broadcast(&mut self, events: &[Event]) {
        let Some(cur) = self.current.as_ref() else {
            return;
        };
        let seats: Vec<u32> = cur.plan.seats.iter().map(|&s| s as u32).collect();
        let number = cur.plan.number;
        let players = cur.players.clone();
        let table_id = self.table_id.to_string();
        self.fan_out(|who| {
            events
                .iter()
                .map(|event| ServerMsg::Event {
                    table_id: table_id.clone(),
                    hand_number: number,
                    seats: seats.clone(),
                    event: redact(event, who, &players),
                })
                .collect()
        });
    }

    fn send_to(&mut self, player: PlayerId, msg: ServerMsg) {
        self.fan_out(|who| {
            if who == Some(player) {
                vec![msg.clone()]
            } else {
                Vec::new()
            }
        });
    }

    fn seats_changed(&mut self) {
        self.state_dirty = true;
        let msg = ServerMsg::Seats {
            table: self.table_view(),
        };
        self.send_all(&msg);
        self.publish_lobby();
    }

    fn publish_lobby(&mut self) {
        let rules = self.table.rules();
        let hour = Duration::from_secs(3600);
        while self.hand_times.front().is_some_and(|t| t.elapsed() > hour) {
            self.hand_times.pop_front();
        }
        let avg_pot = if self.recent_pots.is_empty() {
            0
        } else {
            self.recent_pots.iter().sum::<Chips>() / self.recent_pots.len() as Chips
        };
        let summary = TableSummary {
            table_id: self.table_id.to_string(),
            name: self.name.clone(),
            game: format!("{:?} {}", rules.game, structure_name(&rules.structure)),
            stakes: format!("{}/{}", rules.small_blind, rules.big_blind),
            players: self.table.seats().iter().flatten().count() as u32,
            seats: rules.seat_count as u32,
            min_buy_in: rules.min_buy_in,
            max_buy_in: rules.max_buy_in,
            avg_pot,
            hands_per_hour: self.hand_times.len() as u32,
            status: self.status().to_string(),
        };
        self.ctx.lobby.publish(self.table_id, summary);
    }

    /// Deals, asks and finishes hands until a player's answer or the clock is needed.
    async fn progress(&mut self) {
        loop {
            if self.closed {
                return;
            }
            if self.current.is_none() {
                if !self.closing.is_empty() {
                    self.close().await;
                    return;
                }
                if self.drain {
                    if !self.draining.is_empty() {
                        // Written before answering: the database closes right after.
                        self.save_seat_states().await;
                        if let Ok(json) = serde_json::to_string(&self.table) {
                            let generation = self.state_tx.borrow().0 + 1;
                            let _ = self.state_tx.send((generation, json));
                            let _ = self.state_written.wait_for(|&g| g >= generation).await;
                        }
                        self.state_dirty = false;
                    }
                    for waiter in self.draining.drain(..) {
                        let _ = waiter.send(());
                    }
                    return;
                }
                if self.next_hand_at.is_some_and(|t| Instant::now() < t) {
                    return;
                }
                if !self.deal().await {
                    return;
                }
            }
            let cur = self.current.as_mut().expect("a hand");
            if let Some(muck) = cur.hand.needs_reshuffle() {
                // A draw needs more cards than the stub holds: the discards are shuffled
                // and go under it (the burn card and the last card are never dealt).
                let mut cards = muck.to_vec();
                cards.shuffle(&mut OsRng);
                let events = cur
                    .hand
                    .reshuffle(cards)
                    .expect("the discards asked for are handed back");
                cur.events.extend(events.iter().cloned());
                self.broadcast(&events);
                continue;
            }
            if let Some(p) = cur.hand.to_act() {
                let decision = cur.hand.decision();
                match decision {
                    // Cards speak at showdown: a hand that can still win something is
                    // shown; one beaten by a hand already shown is mucked unseen (R33).
                    Some(Decision::Showdown { .. }) => {
                        let action = if cur.hand.is_beaten(p) {
                            Action::Muck
                        } else {
                            Action::Show { cards: None }
                        };
                        self.auto(p, action)
                    }
                    Some(decision) => {
                        if cur.asked_at == cur.events.len() {
                            return; // already asked; the same id stands
                        }
                        let player = cur.players[p];
                        if self.info.get(&player).is_some_and(|i| i.leaving) {
                            // A player who left has a dead hand.
                            self.auto(p, default_action(&decision, true));
                            continue;
                        }
                        cur.decision_id = self.next_decision;
                        cur.asked_at = cur.events.len();
                        self.next_decision += 1;
                        let hand_number = cur.plan.number;
                        let seat = cur.plan.seats[p] as u32;
                        let msg = self.decide_msg().expect("a decision").1;
                        let clock = TurnClock {
                            player: p,
                            seat,
                            asked: Instant::now(),
                            warned: false,
                            bank_started: None,
                        };
                        let view = self.clock_view(&clock);
                        self.clock = Some(clock);
                        self.send_to(player, msg);
                        self.send_all(&ServerMsg::Turn {
                            table_id: self.table_id.to_string(),
                            hand_number,
                            clock: view,
                        });
                        return;
                    }
                    None => return,
                }
                continue;
            }
            if cur.hand.is_complete() {
                if cur.ended.is_some() && self.next_hand_at.is_some_and(|t| Instant::now() < t) {
                    return; // a failed commit is tried again after a pause
                }
                if !self.finish().await {
                    return;
                }
                continue;
            }
            return;
        }
    }

    /// Starts the next hand if the table can; false if it cannot now.
    async fn deal(&mut self) -> bool {
        let (plan, stood_up) = self.table.next_hand();
        let any_stood_up = !stood_up.is_empty();
        for s in stood_up {
            match self
                .ctx
                .store
                .cash_out(self.table_id, s.player, now_ms())
                .await
            {
                Ok(amount) => self.send_to(
                    s.player,
                    ServerMsg::Done {
                        table_id: self.table_id.to_string(),
                        request: "leave".into(),
                        amount,
                        pending: false,
                    },
                ),
                Err(e) => eprintln!("pokerd: table {}: cash-out failed: {e}", self.table_id),
            }
            self.info.remove(&s.player);
        }
        if any_stood_up {
            self.seats_changed();
        }
        let Some(plan) = plan else {
            // Nobody to deal to: sleep until a command changes that (no timer, or the
            // task would wake up again at once, forever).
            self.next_hand_at = None;
            return false;
        };
        let mut deck = plan.config.game.deck().cards();
        deck.shuffle(&mut OsRng);
        let (hand, events) = match Hand::new(plan.config.clone(), CardSource::Deck(deck)) {
            Ok(x) => x,
            Err(e) => {
                eprintln!("pokerd: table {}: cannot deal: {e}", self.table_id);
                self.next_hand_at = None;
                return false;
            }
        };
        let players: Vec<PlayerId> = plan
            .seats
            .iter()
            .map(|&s| {
                self.table.seats()[s]
                    .as_ref()
                    .expect("dealt seats are occupied")
                    .player
            })
            .collect();
        let hand_id = HandId::new();
        let started_at = now_ms();
        if let Err(e) = self
            .ctx
            .store
            .start_hand(hand_id, self.table_id, plan.number, started_at)
            .await
        {
            eprintln!(
                "pokerd: table {}: cannot record the hand start: {e}",
                self.table_id
            );
            // Tried again after a pause.
            self.next_hand_at = Some(Instant::now() + Duration::from_secs(1));
            return false;
        }
        self.button = Some(plan.button as u32);
        self.current = Some(Current {
            plan,
            hand,
            hand_id,
            players,
            started_at,
            decision_id: 0,
            asked_at: usize::MAX,
            events: Vec::new(),
            ended: None,
        });
        // Everyone learns of the new hand with a snapshot of the table first.
        let view = self.table_view();
        self.send_all(&ServerMsg::Seats { table: view });
        self.current.as_mut().expect("dealt").events = events.clone();
        self.broadcast(&events);
        true
    }

    /// Acts for player `p` (the clock, a player who left, the showdown). The action is
    /// legal for the decision it answers; if the engine still refused it, the hand could
    /// never go on, so the task fails and its supervisor voids the hand.
    fn auto(&mut self, p: usize, action: Action) {
        let cur = self.current.as_mut().expect("a hand");
        match cur.hand.apply(p, action) {
            Ok(events) => {
                cur.events.extend(events.iter().cloned());
                self.broadcast(&events);
            }
            Err(e) => panic!("automatic action {action:?} refused: {e}"),
        }
    }

    /// Commits the finished hand (waiting until durable), lets the table absorb it, then
    /// applies what waited for the hand's end.
    async fn finish(&mut self) -> bool {
        let cur = self.current.as_mut().expect("a hand");
        let ended = *cur.ended.get_or_insert_with(Instant::now);
        let stacks = cur.hand.final_stacks().expect("complete");
        let phh = poker_rules::phh::write(&cur.plan.config, &cur.events, Some(&stacks))
            .map(|h| h.to_toml())
            .unwrap_or_default();
        let pot: Chips = cur.hand.players().iter().map(|p| p.committed).sum();
        let completed = CompletedHand {
            hand_id: cur.hand_id,
            table_id: self.table_id,
            number: cur.plan.number,
            players: cur
                .players
                .iter()
                .enumerate()
                .map(|(i, &player_id)| HandPlayer {
                    player_id,
                    seat_no: cur.plan.seats[i] as u32,
                    starting_stack: cur.plan.config.seats[i].stack,
                    finishing_stack: stacks[i],
                })
                .collect(),
            rake: cur.hand.rake(),
            phh,
            record: serde_json::json!({
                "board": Card::format_many(cur.hand.board()),
                "button": cur.plan.button,
                "seats": cur.plan.seats,
                "seat_players": cur.players.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
                "seat_count": self.table.rules().seat_count,
                "posts": cur.plan.posts,
                "starting_stacks": cur.plan.config.seats.iter().map(|s| s.stack).collect::<Vec<_>>(),
                "finishing_stacks": stacks,
            }),
            started_at: cur.started_at,
            ended_at: now_ms(),
        };
        if let Err(e) = self.ctx.persister.commit(completed).await {
            eprintln!(
                "pokerd: table {}: the hand could not be committed: {e}",
                self.table_id
            );
            // Try again after a pause; the table waits rather than lose the hand.
            self.next_hand_at = Some(Instant::now() + Duration::from_secs(1));
            return false;
        }
        self.ctx.metrics.persist_lag.observe(ended.elapsed());
        self.ctx.metrics.hands.fetch_add(1, Ordering::Relaxed);
        let cur = self.current.take().expect("a hand");
        self.clock = None;
        if let Err(e) = self.table.finish_hand(&cur.hand) {
            eprintln!("pokerd: table {}: {e}", self.table_id);
            return false;
        }
        self.recent_pots.push_back(pot);
        if self.recent_pots.len() > 50 {
            self.recent_pots.pop_front();
        }
        self.hand_times.push_back(Instant::now());
        self.apply_pending().await;
        self.seats_changed();
        self.save_table();
        self.next_hand_at =
            Some(Instant::now() + Duration::from_millis(self.clock_rules.between_hands_ms));
        true
    }

    /// Top-ups and departures asked during the hand that just ended.
    async fn apply_pending(&mut self) {
        let sat_out: Vec<PlayerId> = self
            .info
            .iter_mut()
            .filter(|(_, i)| i.pending_sit_out)
            .map(|(&p, i)| {
                i.pending_sit_out = false;
                p
            })
            .collect();
        for player in sat_out {
            self.send_to(
                player,
                ServerMsg::Done {
                    table_id: self.table_id.to_string(),
                    request: "sit_out".into(),
                    amount: 0,
                    pending: false,
                },
            );
        }
        let pending: Vec<(PlayerId, Chips, bool)> = self
            .info
            .iter()
            .filter(|(_, i)| i.leaving || i.pending_top_up > 0)
            .map(|(&p, i)| (p, i.pending_top_up, i.leaving))
            .collect();
        for (player, top_up, leaving) in pending {
            if let Some(info) = self.info.get_mut(&player) {
                info.pending_top_up = 0;
            }
            let Some(seat) = self.seat_of(player) else {
                continue;
            };
            let table_id = self.table_id.to_string();
            // Every request answered `pending` is answered again now: a top-up adds what
            // still fits under the maximum (nothing when the player leaves or is there).
            let top_up_done = |amount| ServerMsg::Done {
                table_id: table_id.clone(),
                request: "top_up".into(),
                amount,
                pending: false,
            };
            if leaving {
                if top_up > 0 {
                    self.send_to(player, top_up_done(0));
                }
                let msg = match self.leave_now(player, seat).await {
                    Ok(amount) => ServerMsg::Done {
                        table_id,
                        request: "leave".into(),
                        amount,
                        pending: false,
                    },
                    Err((code, message)) => ServerMsg::Error { code, message },
                };
                self.send_to(player, msg);
                continue;
            }
            let stack = self.table.seats()[seat].as_ref().expect("seated").stack;
            let amount = top_up.min(self.table.rules().max_buy_in.saturating_sub(stack));
            let msg = if amount == 0 {
                top_up_done(0)
            } else {
                match self.top_up_now(player, seat, amount).await {
                    Ok(()) => top_up_done(amount),
                    Err((code, message)) => ServerMsg::Error { code, message },
                }
            };
            self.send_to(player, msg);
        }
    }

    /// Cashes everyone out and closes the table.
    async fn close(&mut self) {
        let mut total = 0;
        let seated: Vec<(usize, PlayerId)> = self
            .table
            .seats()
            .iter()
            .enumerate()
            .filter_map(|(i, o)| Some((i, o.as_ref()?.player)))
            .collect();
        for (seat, player) in seated {
            match self.leave_now(player, seat).await {
                Ok(amount) => total += amount,
                Err((_, m)) => eprintln!("pokerd: table {}: closing: {m}", self.table_id),
            }
        }
        if let Err(e) = self
            .ctx
            .store
            .set_table_status(self.table_id, "closed")
            .await
        {
            eprintln!("pokerd: table {}: cannot mark closed: {e}", self.table_id);
        }
        self.closed = true;
        self.send_all(&ServerMsg::TableClosed {
            table_id: self.table_id.to_string(),
        });
        self.publish_lobby();
        for waiter in self.closing.drain(..) {
            let _ = waiter.send(total);
        }
        for waiter in self.draining.drain(..) {
            let _ = waiter.send(());
        }
    }
}

/// What the server does for a player who is out of time (or has left, `dead`: fold rather
/// than check).
fn default_action(decision: &Decision, dead: bool) -> Action {
    match decision {
        // The bring-in cannot be folded or checked: it is posted (R12).
        Decision::Bet(legal) if legal.bring_in.is_some() => Action::BringIn,
        Decision::Bet(legal) if legal.check && !dead => Action::Check,
        Decision::Bet(_) => Action::Fold,
        Decision::Draw => Action::Draw {
            discards: Cards::new(),
        },
        Decision::RunItTwice => Action::RunItTwice { agree: false },
        Decision::Showdown { .. } => Action::Show { cards: None },
    }
}

fn structure_name(s: &poker_rules::Structure) -> &'static str {
    use poker_rules::Structure::*;
    match s {
        NoLimit => "no limit",
        PotLimit => "pot limit",
        FixedLimit => "fixed limit",
        SpreadLimit => "spread limit",
    }
}

/// The event as `who` may see it: hole cards of others are unknown unless dealt face up.
fn redact(event: &Event, who: Option<PlayerId>, players: &[PlayerId]) -> Event {
    match event {
        Event::HoleDealt { player, cards, up } if who != Some(players[*player]) => {
            let hidden: Vec<Card> = cards
                .iter()
                .enumerate()
                .map(|(i, &c)| if up >> i & 1 == 1 { c } else { Card::UNKNOWN })
                .collect();
            Event::HoleDealt {
                player: *player,
                cards: Cards::from_slice(&hidden).expect("same count"),
                up: *up,
            }
        }
        Event::Discarded { player, cards } if who != Some(players[*player]) => Event::Discarded {
            player: *player,
            cards: Cards::from_slice(&vec![Card::UNKNOWN; cards.len()]).expect("same count"),
        },
        other => other.clone(),
    }
}
