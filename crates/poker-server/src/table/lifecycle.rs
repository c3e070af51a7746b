//! The table's lifecycle: running, draining (the hand in progress finishes, no new one is
//! dealt, the seats stay for the next start), closing (the hand finishes, then everyone is
//! cashed out), closed (stopped here: closed, abandoned to another node), or failed (a
//! hand's commit refused: the supervisor serves the table as failed). Each state holds
//! the requests waiting for it; one place decides what follows what.

use poker_protocol::TableStatus;
use poker_rules::Chips;
use tokio::sync::oneshot;

/// Where the table is in its life, with whoever waits for the next step.
pub(super) enum Lifecycle {
    /// Dealing hands.
    Running,
    /// Asked to drain: no new hand; `waiters` are answered once the table is idle and
    /// its writes are done (the table stays drained after).
    Draining {
        /// The drain requests not answered yet.
        waiters: Vec<oneshot::Sender<()>>,
    },
    /// Asked to close: once the hand in progress and the sits under way end, everyone is
    /// cashed out and the table is marked closed.
    Closing {
        /// The close requests, answered with the chips cashed out.
        waiters: Vec<oneshot::Sender<Chips>>,
        /// The drain requests, answered once closed.
        drains: Vec<oneshot::Sender<()>>,
        /// A drain was asked too (the table's state is not written any more).
        drained: bool,
    },
    /// Stopped here: closed, or another node owns the table now.
    Closed,
    /// Stopped for good on a failure: its supervisor voids the hand, tells the players and
    /// serves the table as failed.
    Failed(String),
}

/// What the table does between hands, as its lifecycle says.
pub(super) enum BetweenHands {
    /// Deal on.
    Deal,
    /// Drained: deal nothing; `answer` if drain requests wait.
    Drained {
        /// Drain requests wait: the table's writes are done, then they are answered.
        answer: bool,
    },
    /// Close now.
    Close,
}

impl Lifecycle {
    /// Whether the table has stopped here (closed, abandoned or failed).
    pub(super) fn is_closed(&self) -> bool {
        matches!(self, Lifecycle::Closed | Lifecycle::Failed(_))
    }

    /// Whether the table is asked to close (it refuses newcomers).
    pub(super) fn is_closing(&self) -> bool {
        matches!(self, Lifecycle::Closing { .. })
    }

    /// Whether the table deals no new hand (draining or closing): the sits under way are
    /// waited for first.
    pub(super) fn is_stopping(&self) -> bool {
        matches!(self, Lifecycle::Draining { .. } | Lifecycle::Closing { .. })
    }

    /// Whether the table's state is no longer written (closed, or drained for the next
    /// start: the database may be closing).
    pub(super) fn keeps_state(&self) -> bool {
        !matches!(
            self,
            Lifecycle::Closed
                | Lifecycle::Failed(_)
                | Lifecycle::Draining { .. }
                | Lifecycle::Closing { drained: true, .. }
        )
    }

    /// The status shown in the lobby and to operators.
    pub(super) fn status(&self) -> TableStatus {
        match self {
            Lifecycle::Closed | Lifecycle::Failed(_) => TableStatus::Closed,
            Lifecycle::Closing { .. } => TableStatus::Closing,
            Lifecycle::Running | Lifecycle::Draining { .. } => TableStatus::Open,
        }
    }

    /// What the table does between hands.
    pub(super) fn between_hands(&self) -> BetweenHands {
        match self {
            Lifecycle::Closing { .. } => BetweenHands::Close,
            Lifecycle::Draining { waiters } => BetweenHands::Drained {
                answer: !waiters.is_empty(),
            },
            _ => BetweenHands::Deal,
        }
    }

    /// A drain is asked: `done` once the table is idle.
    pub(super) fn drain(&mut self, done: oneshot::Sender<()>) {
        match self {
            Lifecycle::Running => {
                *self = Lifecycle::Draining {
                    waiters: vec![done],
                }
            }
            Lifecycle::Draining { waiters } => waiters.push(done),
            Lifecycle::Closing {
                drains, drained, ..
            } => {
                drains.push(done);
                *drained = true;
            }
            // Stopped: the request is dropped with the table.
            Lifecycle::Closed | Lifecycle::Failed(_) => {}
        }
    }

    /// A close is asked: `done` with the chips cashed out once closed.
    pub(super) fn close(&mut self, done: oneshot::Sender<Chips>) {
        match self {
            Lifecycle::Running => {
                *self = Lifecycle::Closing {
                    waiters: vec![done],
                    drains: Vec::new(),
                    drained: false,
                }
            }
            Lifecycle::Draining { waiters } => {
                *self = Lifecycle::Closing {
                    waiters: vec![done],
                    drains: std::mem::take(waiters),
                    drained: true,
                }
            }
            Lifecycle::Closing { waiters, .. } => waiters.push(done),
            Lifecycle::Closed | Lifecycle::Failed(_) => {}
        }
    }

    /// The drain requests waiting, to be answered now (the table stays drained).
    pub(super) fn drained(&mut self) -> Vec<oneshot::Sender<()>> {
        match self {
            Lifecycle::Draining { waiters } => std::mem::take(waiters),
            _ => Vec::new(),
        }
    }

    /// The table is closed: the close and drain requests to answer.
    pub(super) fn closed(&mut self) -> (Vec<oneshot::Sender<Chips>>, Vec<oneshot::Sender<()>>) {
        match std::mem::replace(self, Lifecycle::Closed) {
            Lifecycle::Closing {
                waiters, drains, ..
            } => (waiters, drains),
            Lifecycle::Draining { waiters } => (Vec::new(), waiters),
            _ => (Vec::new(), Vec::new()),
        }
    }

    /// Stops here at once (another node owns the table now); a failure stays one.
    pub(super) fn stop(&mut self) {
        if !matches!(self, Lifecycle::Failed(_)) {
            *self = Lifecycle::Closed;
        }
    }

    /// Stops for good on a failure.
    pub(super) fn fail(&mut self, reason: String) {
        *self = Lifecycle::Failed(reason);
    }

    /// Why the table stopped for good, if it failed.
    pub(super) fn failure(self) -> Option<String> {
        match self {
            Lifecycle::Failed(reason) => Some(reason),
            _ => None,
        }
    }
}
