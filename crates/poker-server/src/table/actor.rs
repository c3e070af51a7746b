//! The actor and its loop: the table and its rooms (the hand in progress, the audience,
//! the seats' book, the lifecycle, the clock, the seeds, the sits under way...), each a
//! type of its own module whose fields only its methods change; how it starts, and how it
//! answers each command. The orchestration files (`play`, `seating`, `fanout`,
//! `seeding`, `social`, `hosting`) add to `Actor` what takes several rooms at once.

use super::audience::{Audience, Listeners};
use super::book::{Book, Saved, SeatInfo};
use super::clock::Clock;
use super::current::Current;
use super::failed::Failed;
use super::lifecycle::Lifecycle;
use super::pace::Pace;
use super::writer::*;
use super::*;
use poker_rules::table::Table;
use poker_rules::Chips;
use poker_store::{PlayerId, TableId};
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tracing::Instrument;

pub(super) struct Actor {
    /// The table's id.
    pub(super) table_id: TableId,
    /// The table's name in the lobby.
    pub(super) name: String,
    /// The table's span, parent of each hand's.
    pub(super) span: tracing::Span,
    /// Show the cards a hand that ended early would have dealt.
    pub(super) rabbit_hunt: bool,
    /// The last hand, won without a showdown, until the next is dealt: its winner may show.
    pub(super) uncontested: Option<super::show::Uncontested>,
    /// The chat: its rules, the last lines, who spoke when.
    pub(super) chat: super::chat::Chat,
    /// The waiting list of a full table, and the seat offered.
    pub(super) waitlist: super::waitlist::Waitlist,
    /// The table between hands, as the rules keep it.
    pub(super) table: Table<PlayerId>,
    /// What every table of the process shares: the store, the persister, the lobby...
    pub(super) ctx: TableContext,
    /// The seats' book: each seated player's own state, seat states as saved, flagged
    /// pairs.
    pub(super) book: Book,
    /// The hand in progress, while one is (until its commit is durable).
    pub(super) current: Option<Current>,
    /// The action clock and when the next hand is due.
    pub(super) clock: Clock,
    /// The last hand's button seat, for the view.
    pub(super) button: Option<u32>,
    /// Running, draining, closing, closed or failed, with the requests waiting for it.
    pub(super) life: Lifecycle,
    /// The last hands' pots and the hands of the last hour, for the lobby.
    pub(super) pace: Pace,
    /// Where writes that move no money go (the background writer).
    pub(super) writer: Writer,
    /// Who listens, and what waits to be sent to them.
    pub(super) audience: Audience,
    /// The next hand's committed deck and the seeds sent for it (docs/fairness.md).
    pub(super) seeds: super::deck::Seeds,
    /// The finished hand's commit under way: its outcome wakes the actor, which shows the
    /// hand's result only once it is durable.
    pub(super) committing: Option<oneshot::Receiver<super::commit::Outcome>>,
    /// A private table's host, invite and seat requests (`None`: a lobby table).
    pub(super) private: Option<super::private::Private>,
    /// The sits whose store work is under way, their seats held (`super::sitting`).
    pub(super) sitting: super::sitting::Sitting,
    /// What players last left with, within the rathole window (`super::departures`).
    pub(super) departures: super::departures::Departures,
}

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
    let departures = super::departures::Departures::load(
        &ctx.store,
        table_id,
        spec.rules.rathole_secs,
        ctx.clock.now_ms(),
    )
    .await?;
    let mut book = Book::default();
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
        let saved = Saved {
            sitting_out: seat.sitting_out,
            missed_small: small,
            missed_big: big,
        };
        let seat_info = SeatInfo::new(
            names.get(&seat.player_id).cloned().unwrap_or_default(),
            &spec.clock,
            addresses.get(&seat.player_id).cloned(),
        );
        book.restore(seat.player_id, seat_info, saved);
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
        span: span.clone(),
        rabbit_hunt: spec.rabbit_hunt,
        uncontested: None,
        chat: super::chat::Chat::new(spec.chat),
        waitlist: Default::default(),
        table,
        ctx,
        book,
        current: None,
        clock: Clock::new(spec.clock),
        button: None,
        life: Lifecycle::Running,
        pace: Pace::default(),
        writer,
        audience: Audience::new(listeners.clone()),
        // Committed before anyone sits, so the first hand's seeds can come in too.
        seeds: super::deck::Seeds::new(spec.rules.game),
        committing: None,
        private,
        sitting: Default::default(),
        departures,
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
            while !actor.life.is_closed() {
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
                let flush_at = actor.audience.flush_at();
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
                    actor.audience.answering(None);
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
            std::mem::replace(&mut actor.life, Lifecycle::Closed).failure()
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
            .map_or_else(tracing::Span::none, |c| c.span().clone())
    }
}

pub(super) async fn sleep_until(deadline: Option<Instant>) {
    if let Some(d) = deadline {
        tokio::time::sleep_until(d).await;
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
            Command::InjectFault => panic!("injected fault"),
            Command::Abandon => {
                tracing::info!("stopping here: another node owns the table now, or takes it over");
                self.abandon();
                return;
            }
        };
        // What answers a player's own command reaches them at once.
        self.audience.answering(request.urgent_for());
        let asking = queue.clone();
        match self.answer(request, queue, received, respond_to).await {
            // A refusal of what a connection sent without waiting goes with the frames
            // the table has for it already, in order.
            Some((Respond::Refusals(queue), Err(refusal))) => {
                self.audience.refuse_to(&queue, refusal)
            }
            Some((respond_to, answer)) => {
                // The asking connection's frames of this step first (its action's event):
                // the answer never overtakes them.
                if let Some(queue) = &asking {
                    self.audience.send_before_answer(queue);
                }
                respond_to.send(answer)
            }
            None => {}
        }
    }

    /// Does what is asked; the answer, unless it comes later (a sit once its buy-in has
    /// moved, draining and closing once the hand in progress has ended).
    async fn answer(
        &mut self,
        request: Request,
        queue: Option<mpsc::Sender<Batch>>,
        received: Instant,
        respond_to: Respond,
    ) -> Option<(Respond, Answer)> {
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
                    self.audience.add(player, queue, snapshot);
                }
                Ok(Reply::Subscribed(ok))
            }
            Request::Chat { player, name, text } => {
                self.chat(player, &name, &text).map(|()| Reply::Ok)
            }
            Request::Waitlist { player, join } => {
                let result = if join {
                    // Watching the table (the guard let them), so the offer of a seat
                    // reaches this queue.
                    if let Some(queue) = queue {
                        let snapshot = self.snapshot(Some(player));
                        self.audience.add(Some(player), queue, snapshot);
                    }
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
                seed_commit,
            } => {
                // The seed's commitment first: the hand this sit may start then has this
                // player's seed. A refusal leaves the sit as it is (the next deck's
                // commitment can come later).
                if let Some(step) = seed_commit {
                    let _ = self.take_seed(player, step);
                }
                let answer = respond_to.later();
                return self
                    .start_sit(player, name, seat, buy_in, entry, address, queue, answer)
                    .map(|(caller, answer)| (Respond::Caller(caller), answer));
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
                    self.audience.remove(&queue, &seated);
                }
                Ok(Reply::Ok)
            }
            Request::BuyInRange { player } => {
                let now = self.ctx.clock.now_secs();
                Ok(Reply::BuyInRange(self.range_for(player, now).0))
            }
            Request::Private { player, name, ask } => {
                self.private_request(player, name, ask, queue).await
            }
            Request::Ledger { .. } => self.ledger().await.map(|m| Reply::ToClient(Box::new(m))),
            Request::ReleaseAway { keep_secs } => {
                self.release_away(keep_secs).await;
                Ok(Reply::Ok)
            }
            Request::Inspect => Ok(Reply::View(self.inspect())),
            Request::Drain => {
                let (done, idle) = oneshot::channel();
                self.life.drain(done);
                later(idle, respond_to.later(), |()| Reply::Ok);
                return None;
            }
            Request::Close => {
                let (done, closed) = oneshot::channel();
                self.life.close(done);
                later(closed, respond_to.later(), Reply::Closed);
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
                "number": c.number(),
                "board": poker_rules::Card::format_many(c.hand().board()),
                "pot": c.hand().players().iter().map(|p| p.committed).sum::<poker_rules::Chips>(),
                "in_hand": c.plan().seats.iter().zip(c.hand().players())
                    .filter(|(_, p)| !p.folded).map(|(&s, _)| s).collect::<Vec<_>>(),
            })
        });
        serde_json::json!({
            "table": view,
            "hand_number": self.current.as_ref().map(|c| c.number()),
            "hands_dealt": self.table.hands_dealt(),
            "status": self.status(),
            "hand": hand,
            "clock": self.clock.view(self.bank()),
        })
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
                        respond_to.send(answer);
                    }
                } else {
                    respond_to.send(Err(Refusal::Moving));
                }
                true
            }
            command @ (Command::Abandon | Command::InjectFault) => {
                self.handle(command).await;
                !self.life.is_closed()
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
        self.life.stop();
        self.current = None;
        self.committing = None;
        self.clock.stop();
        self.audience.clear();
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
        self.current.as_ref().is_some_and(|c| c.deals(player))
    }

    /// What is left of the time bank of the player asked now.
    pub(super) fn bank(&self) -> u64 {
        self.clock.asked().map_or(0, |p| self.book.time_bank(p))
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
