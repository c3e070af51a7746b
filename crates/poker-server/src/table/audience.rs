//! The table's audience: the queues subscribed to it (one per connection), what each step
//! of the actor made for each of them, and when the batches held back for onlookers are
//! due. A full queue marks its subscriber stale (resynced with a snapshot once it has
//! room), a closed one is dropped; who listens is mirrored for the supervisor, which tells
//! them if the table's task fails. A late answer to a player's request (the final `done`
//! of one answered `pending`) is never lost to a resync: it follows the snapshot. Nothing
//! here knows the table: messages come in made.

use super::{Batch, Out, Refusal};
use axum::extract::ws::Utf8Bytes;
use poker_protocol::ServerMsg;
use poker_store::PlayerId;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::{self, error::TrySendError};
use tokio::time::Instant;

/// The queues subscribed to a table, shared with its supervisor.
pub(super) type Listeners = Arc<std::sync::Mutex<Vec<(Option<PlayerId>, mpsc::Sender<Batch>)>>>;

/// One connection subscribed to the table.
struct Subscriber {
    /// The player it speaks for (`None`: a spectator not signed in).
    who: Option<PlayerId>,
    /// The connection's queue.
    queue: mpsc::Sender<Batch>,
    /// What this step of the actor made for it, sent as one batch when the step ends.
    pending: Batch,
    /// Missed messages: gets a snapshot as soon as its queue has room.
    stale: bool,
    /// The late answers to its player's requests ([`Audience::answer_to`]) not yet in its
    /// queue: a snapshot cannot stand in for them (it shows no request, and a sit-out at
    /// the big blind or a top-up's amount not at all), so a resync sends them too.
    owed: Vec<ServerMsg>,
    /// When it was last written to (what concerns it only as an onlooker waits until
    /// `coalesce` after this).
    last_sent: Option<Instant>,
}

/// Who listens to the table, and what waits to be sent to them.
pub(super) struct Audience {
    /// The subscribed queues, in the order they subscribed.
    subscribers: Vec<Subscriber>,
    /// Who listens, mirrored for the supervisor (which tells them if this task fails).
    listeners: Listeners,
    /// The player whose command this step answers: what it makes for them goes at once.
    urgent: Option<PlayerId>,
    /// When the batches held back for onlookers are due.
    flush_at: Option<Instant>,
}

impl Audience {
    /// Nobody yet; `listeners` is the supervisor's copy.
    pub(super) fn new(listeners: Listeners) -> Audience {
        Audience {
            subscribers: Vec::new(),
            listeners,
            urgent: None,
            flush_at: None,
        }
    }

    /// The player whose command this step answers (`None` once the step ends).
    pub(super) fn answering(&mut self, player: Option<PlayerId>) {
        self.urgent = player;
    }

    /// When the batches held back for onlookers are due.
    pub(super) fn flush_at(&self) -> Option<Instant> {
        self.flush_at
    }

    /// Whether a connection of `player` watches the table.
    pub(super) fn watching(&self, player: PlayerId) -> bool {
        self.subscribers.iter().any(|s| s.who == Some(player))
    }

    /// Whether `player` has a connection to the table still open (a closed one is
    /// dropped only at the next send).
    pub(super) fn connected(&self, player: PlayerId) -> bool {
        self.subscribers
            .iter()
            .any(|s| s.who == Some(player) && !s.queue.is_closed())
    }

    /// The players signed in among the subscribers.
    pub(super) fn watchers(&self) -> Vec<PlayerId> {
        self.subscribers.iter().filter_map(|s| s.who).collect()
    }

    /// Subscribes a queue (once per connection: a spectator who sits down becomes that
    /// player), sending it a snapshot first.
    pub(super) fn add(
        &mut self,
        player: Option<PlayerId>,
        queue: mpsc::Sender<Batch>,
        snapshot: ServerMsg,
    ) {
        // What this step already made for the queue's old subscription goes first (a
        // spectator who sits down is told of the waiting list they left, then sees the
        // table as a player); of a stale one, only the late answers it is owed.
        let mut batch: Batch = Vec::new();
        let mut owed = Vec::new();
        self.subscribers.retain_mut(|s| {
            if !s.queue.same_channel(&queue) {
                return true;
            }
            if s.stale {
                batch.extend(s.owed.iter().cloned().map(Out::own));
            } else {
                batch.append(&mut s.pending);
            }
            owed = std::mem::take(&mut s.owed);
            false
        });
        batch.push(Out::own(snapshot));
        let stale = queue.try_send(batch).is_err();
        self.subscribers.push(Subscriber {
            who: player,
            queue,
            pending: Vec::new(),
            stale,
            // Still owed if the batch did not fit.
            owed: if stale { owed } else { Vec::new() },
            last_sent: Some(Instant::now()),
        });
        self.mirror();
    }

    /// Unsubscribes the queue, unless it speaks for a player in `seated`.
    pub(super) fn remove(&mut self, queue: &mpsc::Sender<Batch>, seated: &[PlayerId]) {
        self.subscribers
            .retain(|s| !s.queue.same_channel(queue) || s.who.is_some_and(|p| seated.contains(&p)));
        self.mirror();
    }

    /// Drops everyone (the table stops here; the new owner sends them a snapshot).
    pub(super) fn clear(&mut self) {
        self.subscribers.clear();
        self.mirror();
    }

    /// Copies who listens for the supervisor.
    pub(super) fn mirror(&mut self) {
        self.subscribers.retain(|s| !s.queue.is_closed());
        let mut listeners = self.listeners.lock().unwrap_or_else(|e| e.into_inner());
        listeners.clear();
        listeners.extend(self.subscribers.iter().map(|s| (s.who, s.queue.clone())));
    }

    /// Adds to every subscriber's batch the frames made for it (nothing for a stale
    /// subscriber: it gets a snapshot instead). Batches leave in [`Audience::flush`].
    pub(super) fn fan_out(&mut self, mut make: impl FnMut(Option<PlayerId>) -> Vec<Out>) {
        for s in &mut self.subscribers {
            if !s.stale {
                s.pending.extend(make(s.who));
            }
        }
    }

    /// Sends a message the same for everyone, serialized once.
    pub(super) fn send_all(&mut self, msg: &ServerMsg) {
        let text = shared(msg);
        self.fan_out(|_| vec![Out::Shared(text.clone())]);
    }

    /// Sends a message to `player`'s connections only.
    pub(super) fn send_to(&mut self, player: PlayerId, msg: ServerMsg) {
        self.fan_out(|who| {
            if who == Some(player) {
                vec![Out::own(msg.clone())]
            } else {
                Vec::new()
            }
        });
    }

    /// Sends a late answer to `player`'s request (the final `done` of a request answered
    /// `pending`, or its refusal) to `player`'s connections: like [`Audience::send_to`],
    /// except that a connection that fell behind gets it after its snapshot instead of
    /// losing it, as a reply is never lost.
    pub(super) fn answer_to(&mut self, player: PlayerId, msg: ServerMsg) {
        for s in &mut self.subscribers {
            if s.who != Some(player) {
                continue;
            }
            if !s.stale {
                s.pending.push(Out::own(msg.clone()));
            }
            s.owed.push(msg.clone());
        }
    }

    /// Sends a message to the connections of the players in `players` only.
    pub(super) fn send_to_each(&mut self, players: &[PlayerId], msg: &ServerMsg) {
        self.fan_out(|who| match who {
            Some(p) if players.contains(&p) => vec![Out::own(msg.clone())],
            _ => Vec::new(),
        });
    }

    /// Tells the connection behind `queue` why its action was refused: with what this step
    /// makes for it if it is subscribed here (so the error keeps its place among the
    /// table's frames), else on its own.
    pub(super) fn refuse_to(&mut self, queue: &mpsc::Sender<Batch>, refusal: Refusal) {
        let msg = ServerMsg::from(refusal);
        match self
            .subscribers
            .iter_mut()
            .find(|s| !s.stale && s.queue.same_channel(queue))
        {
            Some(s) => s.pending.push(Out::own(msg)),
            None => send_queued(queue, vec![Out::own(msg)]),
        }
    }

    /// Sends the connection behind `queue` what this step made for it so far, before the
    /// answer to its request: an answer never overtakes the frames of what it answers. (A
    /// node asking for a connection of its own answers its client with the action's
    /// event: had the answer gone first and this node died before the event, the client
    /// would wait for the table's next owner with nothing owed to it.)
    pub(super) fn send_before_answer(&mut self, queue: &mpsc::Sender<Batch>) {
        let now = Instant::now();
        for s in &mut self.subscribers {
            if s.stale || s.pending.is_empty() || !s.queue.same_channel(queue) {
                continue;
            }
            match s.queue.try_send(std::mem::take(&mut s.pending)) {
                Ok(()) => {
                    s.last_sent = Some(now);
                    s.owed.clear();
                }
                // Resynced at the step's flush, as there.
                Err(TrySendError::Full(_)) => s.stale = true,
                // Kept, so the step's flush finds the queue closed and drops it.
                Err(TrySendError::Closed(batch)) => s.pending = batch,
            }
        }
    }

    /// The subscribers that get a snapshot at the next flush (stale ones), by who they
    /// speak for.
    pub(super) fn stale(&self) -> Vec<Option<PlayerId>> {
        self.subscribers
            .iter()
            .filter(|s| s.stale)
            .map(|s| s.who)
            .collect()
    }

    /// Sends each subscriber what this step made for it, in one batch (a stale one the late
    /// answers it is owed, then its `snapshot`); a full queue marks the subscriber stale
    /// (what it is owed is kept for its resync), a closed one is dropped. What
    /// concerns a subscriber only as an onlooker (no frame of its own, not the player
    /// whose command this step answers) waits until `coalesce` after its last write, to
    /// leave with what follows ([`Audience::flush_at`]), unless `everything` goes now.
    /// Returns how many stale subscribers were resynced.
    pub(super) fn flush(
        &mut self,
        everything: bool,
        coalesce: Duration,
        mut snapshot: impl FnMut(Option<PlayerId>) -> Option<ServerMsg>,
    ) -> u64 {
        let now = Instant::now();
        let urgent = self.urgent;
        let mut due: Option<Instant> = None;
        let mut resyncs = 0;
        self.subscribers.retain_mut(|s| {
            let batch = if s.stale {
                s.pending.clear();
                // Every stale subscriber has its snapshot; one without waits.
                let Some(snapshot) = snapshot(s.who) else {
                    return true;
                };
                let mut batch: Batch = s.owed.iter().cloned().map(Out::own).collect();
                batch.push(Out::own(snapshot));
                batch
            } else if s.pending.is_empty() {
                return true;
            } else {
                let hold_until = s.last_sent.map(|t| t + coalesce).filter(|&t| t > now);
                let theirs = (s.who.is_some() && s.who == urgent)
                    || s.pending.iter().any(|o| matches!(o, Out::Own(_)));
                if let Some(at) = hold_until.filter(|_| !everything && !theirs) {
                    due = Some(due.map_or(at, |d| d.min(at)));
                    return true;
                }
                std::mem::take(&mut s.pending)
            };
            match s.queue.try_send(batch) {
                Ok(()) => {
                    s.last_sent = Some(now);
                    s.owed.clear();
                    if s.stale {
                        s.stale = false;
                        resyncs += 1;
                    }
                    true
                }
                Err(TrySendError::Full(_)) => {
                    s.stale = true;
                    true
                }
                Err(TrySendError::Closed(_)) => false,
            }
        });
        self.flush_at = due;
        resyncs
    }
}

/// Tells the connection behind `queue` why its action was refused, outside the actor's
/// step (a paused or failed table).
pub(super) fn refuse_queued(queue: &mpsc::Sender<Batch>, refusal: Refusal) {
    send_queued(queue, vec![Out::own(ServerMsg::from(refusal))]);
}

/// Puts a batch in a connection's queue; a full queue (a client far behind) gets it once
/// it has room, without holding the table up.
pub(super) fn send_queued(queue: &mpsc::Sender<Batch>, batch: Batch) {
    if let Err(mpsc::error::TrySendError::Full(batch)) = queue.try_send(batch) {
        let queue = queue.clone();
        tokio::spawn(async move {
            let _ = queue.send(batch).await;
        });
    }
}

/// A message serialized once, to be shared by every subscriber it goes to.
pub(super) fn shared(msg: &ServerMsg) -> Utf8Bytes {
    Utf8Bytes::from(serde_json::to_string(msg).expect("messages serialize"))
}
