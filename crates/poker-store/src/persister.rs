//! The persister: a task that commits completed hands from many tables in batches, one
//! transaction per batch (group commit, with synchronous commit kept on), so a slow disk
//! never stalls a table and no hand is acknowledged before it is durable.

use crate::{CompletedHand, Store, StoreError, StoreResult};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

struct Job {
    hand: CompletedHand,
    done: oneshot::Sender<StoreResult<()>>,
}

/// Spawns persisters.
pub struct Persister;

/// A cloneable handle to a persister task; the task ends when the last handle drops.
#[derive(Clone)]
pub struct PersisterHandle {
    jobs: mpsc::Sender<Job>,
    queued: Arc<AtomicUsize>,
}

impl Persister {
    /// Starts the writers: each takes whatever hands are waiting (up to `max_batch`) and
    /// commits them together; two writers let one batch gather while the other waits for
    /// the disk. A table has at most one hand in flight, so batches never conflict.
    pub fn spawn<S: Store>(store: Arc<S>, max_batch: usize) -> PersisterHandle {
        let (jobs, rx) = mpsc::channel::<Job>(4096);
        let queued = Arc::new(AtomicUsize::new(0));
        let rx = Arc::new(tokio::sync::Mutex::new(rx));
        for _ in 0..2 {
            let (store, rx, counter) = (store.clone(), rx.clone(), queued.clone());
            tokio::spawn(async move {
                loop {
                    let batch = {
                        let mut rx = rx.lock().await;
                        let Some(first) = rx.recv().await else { break };
                        let mut batch = vec![first];
                        // Linger a moment so hands that are about to arrive join this batch.
                        for _ in 0..3 {
                            tokio::task::yield_now().await;
                            while batch.len() < max_batch.max(1) {
                                match rx.try_recv() {
                                    Ok(job) => batch.push(job),
                                    Err(_) => break,
                                }
                            }
                        }
                        batch
                    };
                    counter.fetch_sub(batch.len(), Ordering::Relaxed);
                    let hands: Vec<CompletedHand> = batch.iter().map(|j| j.hand.clone()).collect();
                    match store.commit_hands(&hands).await {
                        Ok(_) => {
                            for job in batch {
                                let _ = job.done.send(Ok(()));
                            }
                        }
                        Err(_) => {
                            // One bad hand must not fail the others: commit them one by one.
                            for job in batch {
                                let result = store
                                    .commit_hands(std::slice::from_ref(&job.hand))
                                    .await
                                    .map(|_| ());
                                let _ = job.done.send(result);
                            }
                        }
                    }
                }
            });
        }
        PersisterHandle { jobs, queued }
    }
}

impl PersisterHandle {
    /// Commits a hand; returns once it is durable.
    pub async fn commit(&self, hand: CompletedHand) -> StoreResult<()> {
        let (done, answer) = oneshot::channel();
        self.queued.fetch_add(1, Ordering::Relaxed);
        self.jobs
            .send(Job { hand, done })
            .await
            .map_err(|_| StoreError::Stopped)?;
        answer.await.map_err(|_| StoreError::Stopped)?
    }

    /// Hands waiting to be written (the persister's lag).
    pub fn lag(&self) -> usize {
        self.queued.load(Ordering::Relaxed)
    }
}
