//! One table's actor: a private task that owns the table between hands and the hand in
//! progress, driven by commands through a cloneable [`TableHandle`] and by its own clock.
//!
//! It seats players (the buy-in moves money in the store first), deals hands from a deck
//! committed before the players' seeds are known and ordered by them (its secret from the
//! operating system's cryptographic RNG: docs/fairness.md), asks each decision with an id
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
use poker_protocol::{ErrorCode, ServerMsg};
use poker_rules::table::{Entry, TableRules};
use poker_rules::{Action, Chips};
use poker_store::{PersisterHandle, PlayerId, SqlStore, TableId};
use serde::{Deserialize, Serialize};
use std::net::IpAddr;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

mod actor;
mod audience;
mod away;
mod book;
mod chat;
mod clock;
mod commit;
mod current;
mod deck;
mod departures;
mod failed;
mod fanout;
mod hosting;
mod lifecycle;
mod pace;
mod play;
mod private;
mod request;
mod seating;
mod seeding;
mod show;
mod sitting;
mod social;
mod waitlist;
mod writer;

pub use actor::spawn;
pub use fanout::{dealers_choice_label, game_label, stakes_name};
pub use private::{PrivateAsk, PrivateSpec};
use request::expect;
pub use request::{Answer, Caller, Reply, Request};

/// One frame a table sends a subscriber.
#[derive(Clone, Debug)]
pub enum Out {
    /// A message made for this subscriber alone (its decisions, its own cards, a
    /// snapshot); the connection serializes it.
    Own(Box<ServerMsg>),
    /// A message the same for every subscriber it went to, serialized once by the table
    /// and shared (a reference count, no copy).
    Shared(axum::extract::ws::Utf8Bytes),
}

impl Out {
    /// A message for one subscriber.
    pub fn own(msg: ServerMsg) -> Out {
        Out::Own(Box::new(msg))
    }

    /// The message, decoded again if it was shared.
    pub fn into_msg(self) -> ServerMsg {
        match self {
            Out::Own(msg) => *msg,
            Out::Shared(text) => serde_json::from_str(&text).expect("the table wrote a message"),
        }
    }
}

/// Everything one step of a table made for one subscriber (an action and the events,
/// turn and decision it caused): one queue item, one wake-up and one write.
pub type Batch = Vec<Out>;

/// A subscriber's end of a table's messages, one at a time (for tests and tools).
pub struct Subscription {
    rx: mpsc::Receiver<Batch>,
    buffered: std::collections::VecDeque<ServerMsg>,
    batches: usize,
}

impl Subscription {
    /// The next message; `None` once the table is gone.
    pub async fn recv(&mut self) -> Option<ServerMsg> {
        loop {
            if let Some(msg) = self.buffered.pop_front() {
                return Some(msg);
            }
            let batch = self.rx.recv().await?;
            self.batches += 1;
            self.buffered.extend(batch.into_iter().map(Out::into_msg));
        }
    }

    /// The next message if one is waiting.
    pub fn try_recv(&mut self) -> Result<ServerMsg, mpsc::error::TryRecvError> {
        loop {
            if let Some(msg) = self.buffered.pop_front() {
                return Ok(msg);
            }
            let batch = self.rx.try_recv()?;
            self.batches += 1;
            self.buffered.extend(batch.into_iter().map(Out::into_msg));
        }
    }

    /// How many batches (one socket write each, on a connection) have arrived so far.
    pub fn batches(&self) -> usize {
        self.batches
    }
}

/// Why a table refused a command: one typed refusal from the table to the wire, where it
/// becomes the protocol's error (`From<Refusal> for ServerMsg`). Internal failures carry
/// only what the client may read; their causes are logged where they happen.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum Refusal {
    /// A seat request that cannot be granted (seat taken, buy-in out of bounds...).
    #[error("{0}")]
    Seat(String),
    /// Not enough money in the wallet for the buy-in or top-up.
    #[error("{0}")]
    Funds(String),
    /// Not the player's turn, seat or hand.
    #[error("{0}")]
    NotYourTurn(String),
    /// The decision answered is not the one being asked.
    #[error("{0}")]
    Stale(String),
    /// The action breaks a rule of the hand.
    #[error("{0}")]
    Illegal(String),
    /// A chat line refused (chat off, not seated, empty or too long).
    #[error("{0}")]
    Chat(String),
    /// A seed refused (late, repeated, or not seated).
    #[error("{0}")]
    Seed(String),
    /// Chatting too fast.
    #[error("{0}")]
    RateLimited(String),
    /// Another player at the table connects from the same address (`room.same_address_seating`
    /// = "refuse").
    #[error("{0}")]
    SameAddress(String),
    /// The table is closed or gone.
    #[error("the table is closed")]
    TableGone,
    /// The table's node stopped and another is taking it over (several nodes).
    #[error("the table is moving to another server: try again in a few seconds")]
    Moving,
    /// A private table's host command from someone else.
    #[error("{0}")]
    NotHost(String),
    /// A private table refused: wrong invite, not let in by the host, removed.
    #[error("{0}")]
    Private(String),
    /// Something only a play-money room allows (a host adjusting a stack).
    #[error("{0}")]
    PlayMoneyOnly(String),
    /// Not while the player is in the hand being played (R26, R37).
    #[error("{0}")]
    InHand(String),
    /// Something failed on the server.
    #[error("{0}")]
    Internal(String),
}

impl Refusal {
    /// The protocol's code for it.
    pub fn code(&self) -> ErrorCode {
        match self {
            Refusal::Seat(_) => ErrorCode::SeatRefused,
            Refusal::Funds(_) => ErrorCode::InsufficientFunds,
            Refusal::NotYourTurn(_) => ErrorCode::NotYourTurn,
            Refusal::Stale(_) => ErrorCode::StaleDecision,
            Refusal::Illegal(_) => ErrorCode::IllegalAction,
            Refusal::Chat(_) => ErrorCode::ChatRefused,
            Refusal::Seed(_) => ErrorCode::SeedRefused,
            Refusal::RateLimited(_) => ErrorCode::RateLimited,
            Refusal::SameAddress(_) => ErrorCode::SameAddress,
            Refusal::TableGone => ErrorCode::UnknownTable,
            Refusal::Moving => ErrorCode::TableMoving,
            Refusal::NotHost(_) => ErrorCode::NotHost,
            Refusal::Private(_) => ErrorCode::PrivateRefused,
            Refusal::PlayMoneyOnly(_) => ErrorCode::PlayMoneyOnly,
            Refusal::InHand(_) => ErrorCode::InHand,
            Refusal::Internal(_) => ErrorCode::Internal,
        }
    }
}

impl From<Refusal> for ServerMsg {
    fn from(r: Refusal) -> ServerMsg {
        ServerMsg::error(r.code(), r.to_string())
    }
}

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
    /// Added to that pause for each pot shown down (each board of a pot run twice
    /// counts, a high-low pot's halves once; at most four): time to read a showdown.
    /// 0, the default for a table made without it: none. The presets, and so the
    /// private games, take 2.5 s.
    pub showdown_ms: u64,
    /// How long a seat offered to the first on the waiting list is held.
    pub seat_offer_ms: u64,
}

impl Default for ClockRules {
    fn default() -> ClockRules {
        ClockRules {
            action_ms: 30_000,
            warning_ms: 10_000,
            time_bank_ms: 60_000,
            max_timeouts: 2,
            between_hands_ms: 2_000,
            showdown_ms: 0,
            seat_offer_ms: 30_000,
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
    /// The table's chat.
    #[serde(default)]
    pub chat: ChatRules,
    /// Show the cards a hand that ended early would have dealt (off by default).
    #[serde(default)]
    pub rabbit_hunt: bool,
    /// A private table's host and invite (`None`: a table of the room's lobby).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private: Option<PrivateSpec>,
}

/// A table's chat: on or off, and how much one player may say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChatRules {
    /// Whether seated players may chat (operators switch it live too).
    pub enabled: bool,
    /// Lines one player may send in any 10 seconds.
    pub lines_per_10s: u32,
}

impl Default for ChatRules {
    fn default() -> ChatRules {
        ChatRules {
            enabled: true,
            lines_per_10s: 5,
        }
    }
}

/// What a done request did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// Chips moved (bought in, added, cashed out).
    pub amount: Chips,
    /// Whether it waits for the hand in progress to end.
    pub pending: bool,
}

/// What the actor is sent: a request with where its answer goes, or one of the controls
/// that only this process uses.
pub enum Command {
    /// A [`Request`], with the subscriber's queue when the request takes one.
    Request {
        /// What is asked.
        request: Request,
        /// The subscriber's queue (a sit's or a subscription's).
        queue: Option<mpsc::Sender<Batch>>,
        /// When the gateway received it.
        received: Instant,
        /// Where the answer goes.
        respond_to: Respond,
    },
    /// Makes the task fail at once, as a bug would (fault-injection tests).
    InjectFault,
    /// Stop at once, writing nothing and cashing nobody out: another node owns the table
    /// now (its lease passed on), or is about to take it over (a drained table handed over
    /// in a rebalance), and it takes the table from the store.
    Abandon,
}

/// Where a request's answer goes.
pub enum Respond {
    /// To the caller, who waits for it.
    Caller(oneshot::Sender<Answer>),
    /// Nowhere when granted (the events it causes are the answer); a refusal to this
    /// connection's queue as an error frame, in order with the table's frames. A player's
    /// action or seed from a connection of this process goes so: no reply channel is
    /// made, and the connection does not wait for the table.
    Refusals(mpsc::Sender<Batch>),
}

impl Respond {
    /// Answers now.
    fn send(self, answer: Answer) {
        match self {
            Respond::Caller(caller) => {
                let _ = caller.send(answer);
            }
            Respond::Refusals(queue) => {
                if let Err(refusal) = answer {
                    audience::refuse_queued(&queue, refusal);
                }
            }
        }
    }

    /// A channel for an answer that comes later (a sit's, once its buy-in has moved; a
    /// drain's or a close's, once the hand in progress has ended).
    fn later(self) -> oneshot::Sender<Answer> {
        match self {
            Respond::Caller(caller) => caller,
            Respond::Refusals(queue) => {
                let (answer, answered) = oneshot::channel();
                tokio::spawn(async move {
                    if let Ok(Err(refusal)) = answered.await {
                        audience::refuse_queued(&queue, refusal);
                    }
                });
                answer
            }
        }
    }
}

/// A seat request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// Muck beaten hands without asking (true, the default) or ask.
    AutoMuck {
        /// Muck without asking.
        on: bool,
    },
    /// Straddle whenever under the gun (R15), where the table allows it.
    Straddle {
        /// Straddle.
        on: bool,
    },
    /// Show the cards of the hand just won without a showdown (until the next hand).
    ShowHand,
    /// A step of the player's seed for the next hand's deck (docs/fairness.md).
    Seed(SeedStep),
}

/// A step of a player's seed for the next hand's deck (docs/fairness.md): the commitment,
/// then, once the table closed the list of commitments, the seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SeedStep {
    /// The commitment to a seed.
    Commit {
        /// The hand the deck's commitment is for.
        hand_id: poker_store::HandId,
        /// The seed's commitment.
        commitment: poker_fairness::Digest,
        /// Sent by a house bot's connection: the house's own seed.
        house: bool,
    },
    /// The seed revealed.
    Reveal {
        /// The hand.
        hand_id: poker_store::HandId,
        /// The seed.
        seed: poker_fairness::Seed,
    },
}

impl SeatRequest {
    /// The protocol's name of the request.
    pub fn name(&self) -> &'static str {
        match self {
            SeatRequest::SitOut { .. } => "sit_out",
            SeatRequest::SitIn { .. } => "sit_in",
            SeatRequest::TopUp { .. } => "top_up",
            SeatRequest::Leave => "leave",
            SeatRequest::AutoMuck { .. } => "auto_muck",
            SeatRequest::Straddle { .. } => "straddle",
            SeatRequest::Seed(SeedStep::Commit { .. }) => "seed_commit",
            SeatRequest::Seed(SeedStep::Reveal { .. }) => "seed",
            SeatRequest::ShowHand => "show_hand",
        }
    }

    /// Whether granting it changes what everyone sees of the seats (a seed does not).
    pub fn changes_seats(&self) -> bool {
        !matches!(self, SeatRequest::Seed(_) | SeatRequest::ShowHand)
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
    /// The lease's token when this node owns the table among several (each finished
    /// hand carries it, and the store refuses it once the lease has passed on).
    pub fence: Option<u64>,
    /// Until when the lease is known to hold, among several nodes: the actor acts only
    /// before it (waiting for the next renewal past it), and stops when it closes.
    pub lease: Option<tokio::sync::watch::Receiver<Instant>>,
    /// At most how long what concerns a subscriber only as an onlooker is held back to
    /// be written with what follows (`server.coalesce_ms`); zero: never.
    pub coalesce: std::time::Duration,
    /// What a sit from the address of a seated player does (`room.same_address_seating`).
    pub same_address: crate::fairplay::SameAddressSeating,
    /// The room's clock, by which the rathole window is measured.
    pub clock: crate::room_clock::RoomClock,
    /// The room plays for play money: a private game's host may adjust stacks (chips
    /// that come from nothing may be given; real money never).
    pub play_money: bool,
}

/// A handle to a table's actor: in this process, or on the node that owns it.
#[derive(Clone)]
pub struct TableHandle {
    route: Route,
    /// The table.
    pub table_id: TableId,
    /// What a request is refused with once the actor here has stopped: the table is gone
    /// (one process), or moving to another node (several).
    stopped: Refusal,
}

#[derive(Clone)]
enum Route {
    Local(mpsc::Sender<Command>),
    Remote(Arc<dyn RemoteRoute>),
}

/// How a handle reaches a table another node owns (the cluster's RPC implements it, so the
/// tables never depend on the cluster).
pub trait RemoteRoute: Send + Sync {
    /// Asks the table's owner; the queue becomes the connection's inbox there.
    fn request(
        &self,
        table: TableId,
        request: Request,
        queue: Option<mpsc::Sender<Batch>>,
    ) -> futures_util::future::BoxFuture<'_, Answer>;
}

impl TableHandle {
    /// A handle to an actor of this process.
    pub(crate) fn local(commands: mpsc::Sender<Command>, table_id: TableId) -> TableHandle {
        TableHandle {
            route: Route::Local(commands),
            table_id,
            stopped: Refusal::TableGone,
        }
    }

    /// A handle to a table another node owns.
    pub fn remote(route: Arc<dyn RemoteRoute>, table_id: TableId) -> TableHandle {
        TableHandle {
            route: Route::Remote(route),
            table_id,
            stopped: Refusal::Moving,
        }
    }

    /// The same handle, for a table among several nodes: once its actor here has
    /// stopped, the table is moving (its next owner answers), not gone.
    pub(crate) fn among_nodes(mut self) -> TableHandle {
        self.stopped = Refusal::Moving;
        self
    }

    /// Whether the actor runs in this process.
    pub fn is_local(&self) -> bool {
        matches!(self.route, Route::Local(_))
    }

    /// Sends a control to the local actor.
    pub(crate) async fn command(&self, command: Command) -> Result<(), Refusal> {
        match &self.route {
            Route::Local(commands) => commands
                .send(command)
                .await
                .map_err(|_| self.stopped.clone()),
            Route::Remote(_) => Err(Refusal::Internal("not a local table".into())),
        }
    }

    /// Asks the table, here or on its node; `queue` is the subscriber's for requests that
    /// take one ([`Request::takes_queue`]).
    pub async fn request(&self, request: Request, queue: Option<mpsc::Sender<Batch>>) -> Answer {
        match &self.route {
            Route::Remote(remote) => remote.request(self.table_id, request, queue).await,
            Route::Local(_) => {
                let (respond_to, answer) = oneshot::channel();
                self.command(Command::Request {
                    request,
                    queue,
                    received: Instant::now(),
                    respond_to: Respond::Caller(respond_to),
                })
                .await?;
                answer.await.map_err(|_| self.stopped.clone())?
            }
        }
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
        self.sit_with(player, name, seat, buy_in, entry, None, None)
            .await
    }

    /// Seats a player and, only if seated, subscribes the connection's queue (a snapshot
    /// first, taken with the player in the seat). `address` is the client's address bucket
    /// for `room.same_address_seating` (`None`: not checked, as for a house bot).
    #[allow(clippy::too_many_arguments)]
    pub async fn sit_with(
        &self,
        player: PlayerId,
        name: String,
        seat: u32,
        buy_in: Chips,
        entry: Entry,
        queue: Option<mpsc::Sender<Batch>>,
        address: Option<IpAddr>,
    ) -> Result<Outcome, Refusal> {
        let request = Request::Sit {
            player,
            name,
            seat,
            buy_in,
            entry,
            address,
            seed_commit: None,
        };
        expect(self.request(request, queue).await, Reply::done)
    }

    /// Answers a decision.
    pub async fn act(
        &self,
        player: PlayerId,
        decision_id: u64,
        action: Action,
    ) -> Result<(), Refusal> {
        let request = Request::Act {
            player,
            decision_id,
            action,
        };
        expect(self.request(request, None).await, Reply::ok)
    }

    /// Asks without waiting for the table, when it runs in this process: `Ok(true)` once
    /// the request is on its way (a refusal will come through `queue` as an error frame,
    /// in order with the table's other frames; a grant is answered by the events it
    /// causes: see [`Request::answered_by_events`]), `Ok(false)` when it cannot go so (ask
    /// with [`TableHandle::request`]), an error when the table has stopped. It cannot for
    /// a table on another node, when the actor's queue is full, and among several nodes
    /// at all: there a `table_moving` refusal must reach the connection as a reply, which
    /// has it subscribe to the table again.
    pub(crate) fn send(
        &self,
        request: Request,
        queue: &mpsc::Sender<Batch>,
    ) -> Result<bool, Refusal> {
        let Route::Local(commands) = &self.route else {
            return Ok(false);
        };
        if self.stopped != Refusal::TableGone {
            return Ok(false);
        }
        let command = Command::Request {
            request,
            queue: None,
            received: Instant::now(),
            respond_to: Respond::Refusals(queue.clone()),
        };
        match commands.try_send(command) {
            Ok(()) => Ok(true),
            Err(mpsc::error::TrySendError::Full(_)) => Ok(false),
            Err(mpsc::error::TrySendError::Closed(_)) => Err(self.stopped.clone()),
        }
    }

    /// Sits out, sits in, tops up or leaves.
    pub async fn seat(&self, player: PlayerId, request: SeatRequest) -> Result<Outcome, Refusal> {
        let request = Request::Seat { player, request };
        expect(self.request(request, None).await, Reply::done)
    }

    /// Turns the table's chat on or off (every listener is told).
    pub async fn switch_chat(&self, enabled: bool) -> bool {
        self.request(Request::SwitchChat { enabled }, None)
            .await
            .is_ok()
    }

    /// Subscribes a bounded queue (of `capacity` batches) to the table's messages.
    pub async fn subscribe(&self, player: Option<PlayerId>, capacity: usize) -> Subscription {
        let (queue, rx) = mpsc::channel(capacity);
        self.subscribe_with(player, queue, false).await;
        Subscription {
            rx,
            buffered: Default::default(),
            batches: 0,
        }
    }

    /// Subscribes an existing queue (a connection's, shared by its tables); with
    /// `only_if_seated`, only if the player is seated here. Returns whether it did.
    pub async fn subscribe_with(
        &self,
        player: Option<PlayerId>,
        queue: mpsc::Sender<Batch>,
        only_if_seated: bool,
    ) -> bool {
        self.try_subscribe(player, queue, only_if_seated)
            .await
            .unwrap_or(false)
    }

    /// [`TableHandle::subscribe_with`], saying why it could not ask (the table is moving,
    /// gone...) apart from a refusal (`Ok(false)`: not seated here).
    pub async fn try_subscribe(
        &self,
        player: Option<PlayerId>,
        queue: mpsc::Sender<Batch>,
        only_if_seated: bool,
    ) -> Result<bool, Refusal> {
        let request = Request::Subscribe {
            player,
            only_if_seated,
        };
        expect(self.request(request, Some(queue)).await, Reply::subscribed)
    }

    /// Stops sending to a connection's queue (not while its player is seated here).
    pub async fn unsubscribe(&self, queue: mpsc::Sender<Batch>) {
        let _ = self.request(Request::Unsubscribe, Some(queue)).await;
    }

    /// What `player` may buy in for here now (see [`Request::BuyInRange`]).
    pub async fn buy_in_range(
        &self,
        player: PlayerId,
    ) -> Result<poker_protocol::BuyInRange, Refusal> {
        expect(
            self.request(Request::BuyInRange { player }, None).await,
            Reply::buy_in_range,
        )
    }

    /// The table's state, for operators (`None` when it is gone).
    pub async fn inspect(&self) -> Option<serde_json::Value> {
        expect(self.request(Request::Inspect, None).await, Reply::view).ok()
    }

    /// Lets the hand in progress finish and deals no more.
    pub async fn drain(&self) {
        let _ = self.request(Request::Drain, None).await;
    }

    /// Finishes the hand in progress, cashes everyone out and closes the table; returns
    /// the chips cashed out (`None` if it was already closed).
    pub async fn close(&self) -> Option<Chips> {
        self.try_close().await.ok()
    }

    /// [`TableHandle::close`], saying why it could not (closed already, gone, moving).
    /// What closes a table for good is [`crate::registry::Registry::close`], which also
    /// has this node forget it.
    pub async fn try_close(&self) -> Result<Chips, Refusal> {
        expect(self.request(Request::Close, None).await, Reply::closed)
    }

    /// Makes the table's task fail as a bug would, to test that the server contains it
    /// (the hand is voided, the table marked failed, its players may leave with their
    /// chips). Not reachable from the network.
    #[doc(hidden)]
    pub async fn inject_fault(&self) {
        let _ = self.command(Command::InjectFault).await;
    }
}

impl Reply {
    fn done(self) -> Option<Outcome> {
        match self {
            Reply::Done(outcome) => Some(outcome),
            _ => None,
        }
    }

    fn buy_in_range(self) -> Option<poker_protocol::BuyInRange> {
        match self {
            Reply::BuyInRange(range) => Some(range),
            _ => None,
        }
    }

    fn ok(self) -> Option<()> {
        matches!(self, Reply::Ok).then_some(())
    }

    fn subscribed(self) -> Option<bool> {
        match self {
            Reply::Subscribed(yes) => Some(yes),
            _ => None,
        }
    }

    fn view(self) -> Option<serde_json::Value> {
        match self {
            Reply::View(view) => Some(view),
            _ => None,
        }
    }

    fn closed(self) -> Option<Chips> {
        match self {
            Reply::Closed(chips) => Some(chips),
            _ => None,
        }
    }
}
