//! The actor's state and its loop: what it owns (the table, the hand in progress, the
//! seats' clocks and subscribers), how it starts, and how it answers each command.

use super::failed::Failed;
use super::writer::*;
use super::*;
use poker_protocol::ServerMsg;
use poker_rules::table::{HandPlan, Table};
use poker_rules::{Chips, Event, Hand};
use poker_store::{HandId, PlayerId, TableId};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tracing::Instrument;

pub(super) struct Current {
    pub(super) plan: HandPlan,
    pub(super) hand: Hand,
    pub(super) hand_id: HandId,
    pub(super) players: Vec<PlayerId>,
    pub(super) started_at: i64,
    pub(super) decision_id: u64,
    /// How many events the hand had when the current decision was asked.
    pub(super) asked_at: usize,
    pub(super) events: Vec<Event>,
    /// How many of `events` have been sent to subscribers (the rest are held back).
    pub(super) told: usize,
    /// The hand's end has begun (showdown, awards): what follows is held back until the
    /// hand is committed, or a player must decide with it in view.
    pub(super) holding: bool,
    pub(super) ended: Option<Instant>,
    /// The hand's span (`hand_id`, inside the table's): the actor's work runs in it while
    /// the hand lasts, so every event it logs names the hand.
    pub(super) span: tracing::Span,
    /// The deck committed for the hand, dealt in the order its seeds made.
    pub(super) deck: poker_fairness::CommittedDeck,
    /// The seeds used, the shuffle key and the reshuffles so far.
    pub(super) dealing: poker_fairness::Dealing,
    /// The hand's history as committed, once finished (an uncontested winner's show
    /// adds a line to it).
    pub(super) phh: Option<String>,
}

/// The clock of the decision being asked.
pub(super) struct TurnClock {
    pub(super) player: usize,
    pub(super) seat: u32,
    pub(super) asked: Instant,
    pub(super) warned: bool,
    pub(super) bank_started: Option<Instant>,
}

/// What the actor knows of a seated player besides the table's rules.
pub(super) struct SeatInfo {
    pub(super) name: String,
    pub(super) time_bank_ms: u64,
    pub(super) timeouts: u32,
    pub(super) pending_top_up: Chips,
    pub(super) leaving: bool,
    /// Asked to sit out during a hand and told `pending`: told `done` again at its end.
    pub(super) pending_sit_out: bool,
    /// Beaten hands are mucked without asking (R33: they may be).
    pub(super) auto_muck: bool,
    /// The client address (bucket label) the player sat down from; `None` for a house
    /// bot, or a seat taken before addresses were recorded.
    pub(super) address: Option<String>,
}

pub(super) struct Subscriber {
    pub(super) who: Option<PlayerId>,
    pub(super) queue: mpsc::Sender<Batch>,
    /// What this step of the actor made for it, sent as one batch when the step ends.
    pub(super) pending: Batch,
    /// Missed messages: gets a snapshot as soon as its queue has room.
    pub(super) stale: bool,
    /// When it was last written to (what concerns it only as an onlooker waits until
    /// `coalesce` after this).
    pub(super) last_sent: Option<Instant>,
}

pub(super) struct Actor {
    pub(super) table_id: TableId,
    pub(super) name: String,
    pub(super) clock_rules: ClockRules,
    pub(super) chat_rules: ChatRules,
    /// The table's span, parent of each hand's.
    pub(super) span: tracing::Span,
    /// Show the cards a hand that ended early would have dealt.
    pub(super) rabbit_hunt: bool,
    /// The last hand, won without a showdown, until the next is dealt: its winner may show.
    pub(super) uncontested: Option<super::show::Uncontested>,
    pub(super) chat: super::chat::Chat,
    pub(super) waitlist: super::waitlist::Waitlist,
    pub(super) table: Table<PlayerId>,
    pub(super) ctx: TableContext,
    pub(super) info: HashMap<PlayerId, SeatInfo>,
    /// Same-address pairs flagged here (lower id first): a pair is recorded once while
    /// the table runs, however often its players sit down again.
    pub(super) flagged: std::collections::HashSet<(PlayerId, PlayerId)>,
    pub(super) subscribers: Vec<Subscriber>,
    pub(super) current: Option<Current>,
    pub(super) clock: Option<TurnClock>,
    pub(super) next_decision: u64,
    pub(super) next_hand_at: Option<Instant>,
    pub(super) button: Option<u32>,
    pub(super) draining: Vec<oneshot::Sender<()>>,
    pub(super) drain: bool,
    pub(super) closing: Vec<oneshot::Sender<Chips>>,
    pub(super) closed: bool,
    pub(super) recent_pots: VecDeque<Chips>,
    pub(super) hand_times: VecDeque<Instant>,
    /// Sitting out and blinds owed, as last written to the store.
    pub(super) saved: HashMap<PlayerId, (bool, bool, bool)>,
    /// Where writes that move no money go (the background writer).
    pub(super) writer: Writer,
    /// The table changed since its state was last handed to the writer.
    pub(super) state_dirty: bool,
    /// Who listens, mirrored for the supervisor (which tells them if this task fails).
    pub(super) listeners: Listeners,
    /// The player whose command this step answers: what it makes for them goes at once.
    pub(super) urgent: Option<PlayerId>,
    /// When the batches held back for onlookers are due.
    pub(super) flush_at: Option<Instant>,
    /// The next hand's committed deck and the seeds sent for it (docs/fairness.md).
    pub(super) next_deck: Option<super::deck::NextDeck>,
    /// When the deal's wait for seeds ends, while it waits.
    pub(super) seeds_at: Option<Instant>,
    /// The players whose clients take part in the seeds: the deal waits for them a
    /// while (one who misses the wait is left out until their client commits again).
    pub(super) seeding: std::collections::HashSet<PlayerId>,
    /// The players whose commitments came from a house bot's connection.
    pub(super) house: std::collections::HashSet<PlayerId>,
    /// The finished hand's commit under way: its outcome wakes the actor, which shows the
    /// hand's result only once it is durable.
    pub(super) committing: Option<oneshot::Receiver<super::commit::Outcome>>,
    /// Why the table stops for good (a hand's commit refused): its supervisor then voids
    /// the hand, tells the players and serves the table as failed.
    pub(super) failure: Option<String>,
    /// A private table's host, invite and seat requests (`None`: a lobby table).
    pub(super) private: Option<super::private::Private>,
    /// The sits whose store work is under way, their seats held (`super::sitting`).
    pub(super) sitting: super::sitting::Sitting,
}

/// The queues subscribed to a table, shared with its supervisor.
pub(super) type Listeners = Arc<std::sync::Mutex<Vec<(Option<PlayerId>, mpsc::Sender<Batch>)>>>;

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
                .map_err(|e| tracing::error!("saved state unreadable: {e}"))
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
            // Reopened, not new: a table an older version stored with more seats than its
            // game deals (an 8-seat stud table) still opens, to seat and deal no more than
            // the game allows, and its players' chips stay reachable.
            let mut t = Table::reopen(spec.rules.clone()).map_err(|e| anyhow::anyhow!("{e}"))?;
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
    // The seated players' names only, not every account's.
    let seated: Vec<PlayerId> = seats.iter().map(|s| s.player_id).collect();
    let names: HashMap<PlayerId, String> = if seats.is_empty() {
        HashMap::new()
    } else {
        ctx.store.player_names(&seated).await?
    };
    let private = match spec.private.clone() {
        Some(p) => {
            let host = ctx.store.player_names(&[p.host]).await?;
            let host_name = host.get(&p.host).cloned().unwrap_or_default();
            Some(super::private::Private::new(
                p,
                host_name,
                table.hands_dealt() == 0,
            ))
        }
        None => None,
    };
    let mut info = HashMap::new();
    let mut saved = HashMap::new();
    // The address each seated player sat down from, for the same-address rule.
    let addresses: HashMap<PlayerId, String> = if seats.is_empty() {
        HashMap::new()
    } else {
        ctx.store
            .seat_addresses(table_id)
            .await?
            .into_iter()
            .collect()
    };
    for seat in seats {
        // Who was sitting out, and the blinds they owe (R14), survive a restart.
        let (small, big) = ctx.store.missed_blinds(table_id, seat.player_id).await?;
        table
            .restore_state(seat.seat_no as usize, seat.sitting_out, small, big)
            .map_err(|e| anyhow::anyhow!("seat {}: {e}", seat.seat_no))?;
        saved.insert(seat.player_id, (seat.sitting_out, small, big));
        let mut seat_info = SeatInfo::new(
            names.get(&seat.player_id).cloned().unwrap_or_default(),
            &spec.clock,
        );
        seat_info.address = addresses.get(&seat.player_id).cloned();
        info.insert(seat.player_id, seat_info);
    }
    // Every event the table's tasks log carries its id, and the hand's while one runs (a
    // span per hand inside this one: recording a field again would repeat it, not
    // replace it).
    let span = tracing::info_span!("table", table_id = %table_id);
    let writer = Writer::spawn(ctx.persister.clone(), table_id, span.clone());
    let (commands, rx) = mpsc::channel(256);
    // The supervisor takes the commands over if the actor's task ends unexpectedly.
    let rx = Arc::new(tokio::sync::Mutex::new(rx));
    let listeners: Listeners = Arc::default();
    let mut actor = Actor {
        table_id,
        name,
        clock_rules: spec.clock,
        chat_rules: spec.chat,
        span: span.clone(),
        rabbit_hunt: spec.rabbit_hunt,
        uncontested: None,
        chat: Default::default(),
        waitlist: Default::default(),
        table,
        ctx,
        info,
        flagged: Default::default(),
        subscribers: Vec::new(),
        current: None,
        clock: None,
        // Decision ids go on rising across restarts and moves between nodes (1,024 per
        // millisecond of the clock), so a late answer to a decision of a cut hand can never
        // match one the table asks now. Below 2^53: a JavaScript number holds them.
        next_decision: (poker_store::now_ms().max(0) as u64) << 10,
        next_hand_at: None,
        button: None,
        draining: Vec::new(),
        drain: false,
        closing: Vec::new(),
        closed: false,
        recent_pots: VecDeque::new(),
        hand_times: VecDeque::new(),
        saved,
        writer,
        state_dirty: false,
        listeners: listeners.clone(),
        urgent: None,
        flush_at: None,
        // Committed before anyone sits, so the first hand's seeds can come in too.
        next_deck: Some(super::deck::NextDeck::draw(spec.rules.game)),
        seeds_at: None,
        seeding: Default::default(),
        house: Default::default(),
        committing: None,
        failure: None,
        private,
        sitting: Default::default(),
    };
    actor.publish_lobby();
    let failed = Failed {
        table_id,
        name: actor.name.clone(),
        ctx: actor.ctx.clone(),
        listeners,
    };
    let actor_rx = rx.clone();
    let task = tokio::spawn(
        async move {
            let mut rx = actor_rx.lock().await;
            Box::pin(actor.progress()).await;
            actor.flush_out();
            while !actor.closed {
                // Among several nodes, past its hold (its lease not renewed: the database
                // or NATS out, or this node frozen), the table acts on nothing and answers
                // every request with `table_moving` at once, until the lease is renewed
                // or let go.
                if !actor.lease_holds() {
                    if Box::pin(actor.paused(&mut rx)).await {
                        continue;
                    }
                    break;
                }
                let deadline = actor.next_deadline();
                let flush_at = actor.flush_at;
                let lease_until = actor.lease_until();
                let hand = actor.hand_span();
                let go_on = async {
                    tokio::select! {
                        // Batches held back for onlookers are due: written, nothing else.
                        _ = sleep_until(flush_at), if flush_at.is_some() => {
                            if !actor.hold_lease().await {
                                return false;
                            }
                            actor.flush_out();
                            return true;
                        }
                        // The finished hand's commit ended: its result is shown, or the
                        // table stops. No lease check: a durable commit passed the fence.
                        outcome = super::commit::outcome(&mut actor.committing), if actor.committing.is_some() => {
                            actor.committing = None;
                            Box::pin(actor.on_commit(outcome)).await;
                        }
                        // A sit's store work took a step: the seat is taken, or let go.
                        Some((player, step)) = actor.sitting.next(), if actor.sitting.busy() => {
                            Box::pin(actor.on_sit_step(player, step)).await;
                        }
                        // The lease's hold runs out: paused (at the loop's top).
                        _ = sleep_until(lease_until), if lease_until.is_some() => return true,
                        command = rx.recv() => match command {
                            Some(command) => {
                                // Among several nodes, only while the lease holds; past it,
                                // answered at once (`table_moving`), never held.
                                if !actor.lease_holds() {
                                    return actor.while_paused(command).await;
                                }
                                // Boxed, like `progress`: the store's futures inside are
                                // large, and an idle table should not hold room for them.
                                Box::pin(actor.handle(command)).await
                            }
                            None => return false,
                        },
                        _ = sleep_until(deadline), if deadline.is_some() => {
                            if !actor.hold_lease().await {
                                return false;
                            }
                            actor.on_timer()
                        }
                    }
                    actor
                        .ctx
                        .metrics
                        .table_wakeups
                        .fetch_add(1, Ordering::Relaxed);
                    Box::pin(actor.progress()).await;
                    actor.offer_seats();
                    actor.save_seat_states();
                    actor.save_table();
                    actor.flush_out();
                    actor.urgent = None;
                    true
                }
                .instrument(hand)
                .await;
                if !go_on {
                    break;
                }
            }
            // Closed: nothing held back stays behind.
            actor.flush_everything();
            actor.failure.take()
        }
        .instrument(span.clone()),
    );
    tokio::spawn(
        async move {
            match task.await {
                Ok(None) => {}
                // Stopped for good on purpose: served as failed, like a panic.
                Ok(Some(reason)) => {
                    let mut rx = rx.lock().await;
                    failed.serve(&reason, &mut rx).await;
                }
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
        }
        .instrument(span),
    );
    Ok(TableHandle::local(commands, table_id))
}

impl Actor {
    /// The span the actor's next piece of work runs in: the hand's while one lasts.
    fn hand_span(&self) -> tracing::Span {
        self.current
            .as_ref()
            .map_or_else(tracing::Span::none, |c| c.span.clone())
    }
}

pub(super) async fn sleep_until(deadline: Option<Instant>) {
    if let Some(d) = deadline {
        tokio::time::sleep_until(d).await;
    }
}

pub(super) fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}

impl SeatInfo {
    pub(super) fn new(name: String, clock: &ClockRules) -> SeatInfo {
        SeatInfo {
            name,
            time_bank_ms: clock.time_bank_ms,
            timeouts: 0,
            pending_top_up: 0,
            leaving: false,
            pending_sit_out: false,
            auto_muck: true,
            address: None,
        }
    }
}

impl Actor {
    pub(super) async fn handle(&mut self, command: Command) {
        let (request, queue, received, respond_to) = match command {
            Command::Request {
                request,
                queue,
                received,
                respond_to,
            } => (request, queue, received, respond_to),
            Command::Act {
                player,
                decision_id,
                action,
                queue,
                received,
            } => {
                self.urgent = Some(player);
                self.act_queued(player, decision_id, action, &queue, received);
                return;
            }
            Command::Seed {
                player,
                step,
                queue,
            } => {
                self.seed_queued(player, step, &queue);
                return;
            }
            Command::InjectFault => panic!("injected fault"),
            Command::Abandon => {
                tracing::info!("stopping here: another node owns the table now, or takes it over");
                self.abandon();
                return;
            }
        };
        // What answers a player's own command reaches them at once.
        self.urgent = request.player();
        if let Some(answer) = self.answer(request, queue, received, respond_to).await {
            let _ = answer.0.send(answer.1);
        }
    }

    /// Does what is asked; the answer, unless it comes later (draining and closing answer
    /// once the hand in progress has ended).
    async fn answer(
        &mut self,
        request: Request,
        queue: Option<mpsc::Sender<Batch>>,
        received: Instant,
        respond_to: oneshot::Sender<Answer>,
    ) -> Option<(oneshot::Sender<Answer>, Answer)> {
        if let Err(refusal) = self.private_guard(&request) {
            return Some((respond_to, Err(refusal)));
        }
        let answer = match request {
            Request::Subscribe {
                player,
                only_if_seated,
            } => {
                let seated = player.is_some_and(|p| self.seat_of(p).is_some());
                let ok = (!only_if_seated || seated) && queue.is_some();
                if let (true, Some(queue)) = (ok, queue) {
                    let snapshot = self.snapshot(player);
                    // A connection subscribes once per table; a spectator who sits down
                    // becomes that player.
                    self.add_subscriber(player, queue, snapshot);
                }
                Ok(Reply::Subscribed(ok))
            }
            Request::Chat { player, name, text } => {
                self.chat(player, &name, &text).map(|()| Reply::Ok)
            }
            Request::Waitlist { player, join } => {
                let result = if join {
                    self.join_waitlist(player)
                } else {
                    self.leave_waitlist(player);
                    Ok(())
                };
                result.map(|()| Reply::Ok)
            }
            Request::SwitchChat { enabled } => {
                self.switch_chat(enabled);
                Ok(Reply::Ok)
            }
            Request::Sit {
                player,
                name,
                seat,
                buy_in,
                entry,
                address,
            } => {
                let (queue, answer) = (queue, respond_to);
                return self.start_sit(player, name, seat, buy_in, entry, address, queue, answer);
            }
            Request::Act {
                player,
                decision_id,
                action,
            } => {
                let result = self.act(player, decision_id, action);
                if result.is_ok() {
                    self.ctx.metrics.actions.fetch_add(1, Ordering::Relaxed);
                    self.ctx.metrics.action_latency.observe(received.elapsed());
                }
                result.map(|()| Reply::Ok)
            }
            Request::Seat { player, request } => {
                let result = self.seat_request(player, request).await;
                if result.is_ok() && request.changes_seats() {
                    self.seats_changed();
                }
                result.map(Reply::Done)
            }
            Request::Unsubscribe => {
                if let Some(queue) = queue {
                    let seated = self.seated_players();
                    self.subscribers.retain(|s| {
                        !s.queue.same_channel(&queue) || s.who.is_some_and(|p| seated.contains(&p))
                    });
                    self.mirror_listeners();
                }
                Ok(Reply::Ok)
            }
            Request::BuyInRange { player } => {
                let now = self.ctx.clock.now_secs();
                Ok(Reply::BuyInRange(self.range_for(player, now).await.0))
            }
            Request::Private { player, name, ask } => {
                self.private_request(player, name, ask, queue).await
            }
            Request::Inspect => Ok(Reply::View(self.inspect())),
            Request::Drain => {
                self.drain = true;
                let (done, idle) = oneshot::channel();
                self.draining.push(done);
                later(idle, respond_to, |()| Reply::Ok);
                return None;
            }
            Request::Close => {
                let (done, closed) = oneshot::channel();
                self.closing.push(done);
                later(closed, respond_to, Reply::Closed);
                self.publish_lobby();
                return None;
            }
        };
        Some((respond_to, answer))
    }

    /// The table as a spectator sees it, for operators: the seats, and the hand in
    /// progress (the board, the pot, whose turn it is and their clock; never a hole card).
    fn inspect(&self) -> serde_json::Value {
        let view = self.table_view();
        let hand = self.current.as_ref().map(|c| {
            serde_json::json!({
                "number": c.plan.number,
                "board": poker_rules::Card::format_many(c.hand.board()),
                "pot": c.hand.players().iter().map(|p| p.committed).sum::<poker_rules::Chips>(),
                "in_hand": c.plan.seats.iter().zip(c.hand.players())
                    .filter(|(_, p)| !p.folded).map(|(&s, _)| s).collect::<Vec<_>>(),
            })
        });
        serde_json::json!({
            "table": view,
            "hand_number": self.current.as_ref().map(|c| c.plan.number),
            "hands_dealt": self.table.hands_dealt(),
            "status": self.status(),
            "hand": hand,
            "clock": self.clock.as_ref().map(|c| self.clock_view(c)),
        })
    }

    /// Subscribes a queue (once per connection: a spectator who sits down becomes that
    /// player), sending it a snapshot first.
    pub(super) fn add_subscriber(
        &mut self,
        player: Option<PlayerId>,
        queue: mpsc::Sender<Batch>,
        snapshot: ServerMsg,
    ) {
        // What this step already made for the queue's old subscription goes first (a
        // spectator who sits down is told of the waiting list they left, then sees the
        // table as a player).
        let mut batch: Batch = Vec::new();
        self.subscribers.retain_mut(|s| {
            if !s.queue.same_channel(&queue) {
                return true;
            }
            if !s.stale {
                batch.append(&mut s.pending);
            }
            false
        });
        batch.push(Out::own(snapshot));
        let stale = queue.try_send(batch).is_err();
        self.subscribers.push(Subscriber {
            who: player,
            queue,
            pending: Vec::new(),
            stale,
            last_sent: Some(Instant::now()),
        });
        self.mirror_listeners();
    }

    /// Among several nodes: waits until the lease is known to hold (a node frozen past its
    /// lease wakes up here, before acting on a timer or a command); false, after
    /// abandoning the table, if the node let it go meanwhile.
    pub(super) async fn hold_lease(&mut self) -> bool {
        let Some(lease) = self.ctx.lease.as_mut() else {
            return true;
        };
        loop {
            if Instant::now() < *lease.borrow_and_update() {
                return true;
            }
            if lease.changed().await.is_err() {
                tracing::warn!("the lease was let go while waiting for its renewal");
                self.abandon();
                return false;
            }
        }
    }

    /// Whether the lease is known to hold now (always, for one process).
    pub(super) fn lease_holds(&mut self) -> bool {
        match self.ctx.lease.as_mut() {
            Some(lease) => Instant::now() < *lease.borrow_and_update(),
            None => true,
        }
    }

    /// Waits for the lease's next renewal, answering what comes meanwhile: a request with
    /// `table_moving` (nothing of a hand that may be void is shown, nothing is done),
    /// draining and closing noted for later. False, after abandoning the table, if it was
    /// let go or must stop.
    pub(super) async fn paused(&mut self, rx: &mut mpsc::Receiver<Command>) -> bool {
        let Some(lease) = self.ctx.lease.as_mut() else {
            return true;
        };
        tokio::select! {
            renewed = lease.changed() => {
                if renewed.is_err() {
                    tracing::warn!("the lease was let go while waiting for its renewal");
                    self.abandon();
                    return false;
                }
                true
            }
            command = rx.recv() => match command {
                Some(command) => self.while_paused(command).await,
                None => false,
            },
        }
    }

    /// Answers a command while the lease is not known to hold: a request with
    /// `table_moving`, draining and closing noted for later, the controls done. False if
    /// the table stopped.
    pub(super) async fn while_paused(&mut self, command: Command) -> bool {
        match command {
            Command::Request {
                request,
                queue,
                received,
                respond_to,
            } => {
                if matches!(request, Request::Drain | Request::Close) {
                    if let Some((respond_to, answer)) =
                        self.answer(request, queue, received, respond_to).await
                    {
                        let _ = respond_to.send(answer);
                    }
                } else {
                    let _ = respond_to.send(Err(Refusal::Moving));
                }
                true
            }
            Command::Act { queue, .. } | Command::Seed { queue, .. } => {
                super::fanout::refuse_queued(&queue, Refusal::Moving);
                true
            }
            command @ (Command::Abandon | Command::InjectFault) => {
                self.handle(command).await;
                !self.closed
            }
        }
    }

    /// When the lease stops being known to hold (never, for one process).
    pub(super) fn lease_until(&self) -> Option<Instant> {
        self.ctx.lease.as_ref().map(|lease| *lease.borrow())
    }

    /// Stops at once without writing anything: another node owns the table now. The
    /// hand in progress is left for the new owner to void; listeners are dropped (the
    /// new owner sends them a snapshot).
    pub(super) fn abandon(&mut self) {
        self.closed = true;
        self.current = None;
        self.committing = None;
        self.clock = None;
        self.subscribers.clear();
        self.mirror_listeners();
    }

    /// Copies who listens for the supervisor.
    pub(super) fn mirror_listeners(&mut self) {
        self.subscribers.retain(|s| !s.queue.is_closed());
        let mut listeners = self.listeners.lock().unwrap_or_else(|e| e.into_inner());
        listeners.clear();
        listeners.extend(self.subscribers.iter().map(|s| (s.who, s.queue.clone())));
    }

    /// Everyone seated here.
    pub(super) fn seated_players(&self) -> Vec<PlayerId> {
        self.table
            .seats()
            .iter()
            .flatten()
            .map(|o| o.player)
            .collect()
    }

    pub(super) fn seat_of(&self, player: PlayerId) -> Option<usize> {
        self.table
            .seats()
            .iter()
            .position(|o| o.as_ref().is_some_and(|o| o.player == player))
    }

    /// Whether the player is dealt into the hand in progress: one that has ended but
    /// waits for its commit is still in progress (the table has not absorbed it), so a
    /// leave or a top-up asked meanwhile waits for it like one asked during play.
    pub(super) fn in_hand(&self, player: PlayerId) -> bool {
        self.current
            .as_ref()
            .is_some_and(|c| c.players.contains(&player))
    }
}

/// Answers a request once the actor says it is done (draining and closing wait for the
/// hand in progress), without holding the actor up meanwhile.
fn later<T: Send + 'static>(
    done: oneshot::Receiver<T>,
    respond_to: oneshot::Sender<Answer>,
    reply: impl FnOnce(T) -> Reply + Send + 'static,
) {
    tokio::spawn(async move {
        if let Ok(value) = done.await {
            let _ = respond_to.send(Ok(reply(value)));
        }
    });
}
