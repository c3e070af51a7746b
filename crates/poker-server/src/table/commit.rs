//! The commit of a finished hand, off the actor's loop: handed to the persister and tried
//! again, with a growing pause, for as long as the database is out of reach (a connection
//! refused or reset, the pool timing out, PostgreSQL restarting), so that a short outage
//! costs players a wait, never the hand.
//!
//! The actor holds the hand's result back until this says the hand is durable
//! ([`Outcome::Durable`]), and answers commands meanwhile (a player who reconnects gets a
//! snapshot without the result; nobody's clock runs, since no decision is asked and no
//! hand is dealt before the commit). Only a refusal that trying again cannot change voids
//! the hand ([`Outcome::Refused`]). Among several nodes, the fence settles who may write:
//! a stale owner's commit is refused with [`StoreError::Fenced`] and it stops showing
//! nothing; the retries also stop once the node lets the table's lease go.

use poker_store::{CompletedHand, PersisterHandle, StoreError};
use std::time::Duration;
use tokio::sync::{oneshot, watch};
use tokio::time::Instant;
use tracing::Instrument;

/// The pause after the first failed try; it doubles after each one, up to [`MAX_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(100);

/// The longest pause between two tries: a database back after an outage is used within
/// this long.
const MAX_PAUSE: Duration = Duration::from_secs(2);

/// How a finished hand's commit ended.
#[derive(Debug)]
pub(super) enum Outcome {
    /// The hand is durable: its result may be shown.
    Durable,
    /// The table's lease has passed to another node, which voids the hand and deals on:
    /// this node stops without showing or writing anything more.
    Fenced(StoreError),
    /// This node let the table's lease go while the database was out of reach (another
    /// node takes the table over and voids the hand): stop, as when fenced.
    LetGo,
    /// The server is stopping (the persister has stopped) or the table stopped waiting.
    Stopped,
    /// The database refused the hand for good (its stored stacks disagree, a constraint,
    /// a corrupt row): the hand is void and its result is never shown.
    Refused(StoreError),
}

/// Starts committing `hand`; the receiver gets the outcome once there is one.
pub(super) fn spawn(
    persister: PersisterHandle,
    hand: CompletedHand,
    lease: Option<watch::Receiver<Instant>>,
    span: tracing::Span,
) -> oneshot::Receiver<Outcome> {
    let (mut tell, outcome) = oneshot::channel();
    tokio::spawn(
        async move {
            let outcome = until_durable(&persister, hand, lease, &mut tell).await;
            let _ = tell.send(outcome);
        }
        .instrument(span),
    );
    outcome
}

/// Commits the hand, trying again after each transient failure
/// ([`StoreError::is_transient`]) until it is durable or refused, the lease is let go, or
/// nobody waits for the answer any more.
async fn until_durable(
    persister: &PersisterHandle,
    hand: CompletedHand,
    mut lease: Option<watch::Receiver<Instant>>,
    tell: &mut oneshot::Sender<Outcome>,
) -> Outcome {
    let mut pause = FIRST_PAUSE;
    let mut tries = 1u32;
    loop {
        // Each try is the same hand: a try whose answer was lost but which was written is
        // not written twice (the store commits a hand exactly once).
        let error = match persister.commit(hand.clone()).await {
            Ok(()) => {
                if tries > 1 {
                    tracing::info!("the hand is committed (try {tries})");
                }
                return Outcome::Durable;
            }
            Err(e) => e,
        };
        match error {
            e @ StoreError::Fenced { .. } => return Outcome::Fenced(e),
            StoreError::Stopped => return Outcome::Stopped,
            e if e.is_transient() => {
                tracing::warn!(
                    "the hand could not be committed (try {tries}): {e}; trying again in {} ms",
                    pause.as_millis()
                );
            }
            e => return Outcome::Refused(e),
        }
        tokio::select! {
            _ = tokio::time::sleep(pause) => {}
            // The table stopped (abandoned, closed): nobody is left to tell.
            _ = tell.closed() => return Outcome::Stopped,
        }
        if lease.as_mut().is_some_and(|l| l.has_changed().is_err()) {
            return Outcome::LetGo;
        }
        pause = (pause * 2).min(MAX_PAUSE);
        tries += 1;
    }
}

/// The outcome of the commit under way (never ready when there is none).
pub(super) async fn outcome(committing: &mut Option<oneshot::Receiver<Outcome>>) -> Outcome {
    match committing {
        Some(outcome) => outcome.await.unwrap_or(Outcome::Stopped),
        None => std::future::pending().await,
    }
}
