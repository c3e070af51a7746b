//! The persister: tasks that write for many tables in batches (group commit, with
//! synchronous commit kept on): the hands just dealt, the finished hands and the tables'
//! writes that move no money together (on SQLite in one transaction per batch), the
//! buy-ins in their own. A busy room thus pays one disk flush for many tables' writes,
//! and no hand is acknowledged before it is durable.

use crate::{BuyIn, CompletedHand, HandStart, SqlStore, StoreError, StoreResult, TableWrite};
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

/// What a table asks to have written.
enum Work {
    /// A hand just dealt (awaited before anyone sees a card).
    Start(HandStart),
    /// A finished hand.
    Commit(Box<CompletedHand>),
    /// Writes that move no money (the table's background writer awaits them, in order).
    Save(Vec<TableWrite>),
    /// A sit with chips (awaited before the player is seated).
    BuyIn(BuyIn),
}

struct Job {
    work: Work,
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
    /// Starts the writers: each takes whatever is waiting (up to `max_batch` jobs) and
    /// writes it together: the hands dealt, the writes that move no money and the
    /// finished hands in one [`SqlStore::write_group`], the buy-ins beside; two writers let one batch gather while the other
    /// waits for the disk. A table has at most one job in flight per kind (its writer
    /// awaits each gathering), beside the sits' buy-ins and addresses, whose rows are
    /// the sitting players' own.
    pub fn spawn(store: Arc<SqlStore>, max_batch: usize) -> PersisterHandle {
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
                        // Linger a moment so jobs that are about to arrive join this batch.
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
                    write(&store, batch).await;
                }
            });
        }
        PersisterHandle { jobs, queued }
    }
}

/// Writes one batch: the hands dealt, the writes that move no money and the finished
/// hands together, the buy-ins in their own transactions; if a transaction fails, its
/// jobs are written again in smaller ones, so one bad job never fails the others.
async fn write(store: &SqlStore, batch: Vec<Job>) {
    let mut starts = Vec::new();
    let mut saves = Vec::new();
    let mut commits = Vec::new();
    let mut buy_ins = Vec::new();
    let mut addresses = Vec::new();
    for job in batch {
        match job.work {
            Work::Start(start) => starts.push((vec![start], job.done)),
            // A sit's address is written apart, in a transaction of the sits' addresses
            // alone: unlike the other writes that move no money it is not idempotent (a
            // sit counts once, its flags are rows of their own), and PostgreSQL writes a
            // group's kinds in transactions of their own, so a group failing on its hands
            // would write its saves a second time.
            Work::Save(writes)
                if writes
                    .iter()
                    .all(|w| matches!(w, TableWrite::SitAddress { .. })) =>
            {
                addresses.push((writes, job.done))
            }
            Work::Save(writes) => saves.push((writes, job.done)),
            Work::Commit(hand) => commits.push((vec![*hand], job.done)),
            Work::BuyIn(buy_in) => buy_ins.push((buy_in, job.done)),
        }
    }
    grouped(store, starts, saves, commits).await;
    each_answered(store, buy_ins).await;
    together(
        addresses,
        |w| async move { store.save_table_writes(&w).await },
    )
    .await;
}

/// A job's items and where its answer goes.
type Jobs<T> = Vec<(Vec<T>, oneshot::Sender<StoreResult<()>>)>;

/// Writes the hands dealt, the writes that move no money and the finished hands of a
/// batch together ([`SqlStore::write_group`]: on SQLite one transaction, so one disk flush
/// and one `begin`/`commit` instead of one per kind); if that fails, or only one kind is
/// waiting, each kind in its own transaction as before (and each job alone if that
/// fails too).
async fn grouped(
    store: &SqlStore,
    mut starts: Jobs<HandStart>,
    mut saves: Jobs<TableWrite>,
    mut commits: Jobs<CompletedHand>,
) {
    let kinds = [starts.is_empty(), saves.is_empty(), commits.is_empty()]
        .iter()
        .filter(|empty| !**empty)
        .count();
    if kinds > 1 {
        // The items are moved out of their jobs for the group (not copied: finished
        // hands carry their histories), and back into them if it fails.
        let (start_items, start_dones) = flatten(starts);
        let (save_items, save_dones) = flatten(saves);
        let (commit_items, commit_dones) = flatten(commits);
        let written = store
            .write_group(&start_items, &save_items, &commit_items)
            .await;
        if written.is_ok() {
            let dones = start_dones.into_iter().map(|(_, done)| done);
            let dones = dones.chain(save_dones.into_iter().map(|(_, done)| done));
            for done in dones.chain(commit_dones.into_iter().map(|(_, done)| done)) {
                let _ = done.send(Ok(()));
            }
            return;
        }
        starts = unflatten(start_items, start_dones);
        saves = unflatten(save_items, save_dones);
        commits = unflatten(commit_items, commit_dones);
    }
    together(starts, |s| async move { store.start_hands(&s).await }).await;
    together(saves, |w| async move { store.save_table_writes(&w).await }).await;
    together(commits, |h| async move {
        store.commit_hands(&h).await.map(|_| ())
    })
    .await;
}

/// Each job's count of items and where its answer goes, for items listed together.
type Counts = Vec<(usize, oneshot::Sender<StoreResult<()>>)>;

/// The items of several jobs in one list, with each job's count and answer.
fn flatten<T>(jobs: Jobs<T>) -> (Vec<T>, Counts) {
    let mut items = Vec::new();
    let mut dones = Vec::with_capacity(jobs.len());
    for (job, done) in jobs {
        dones.push((job.len(), done));
        items.extend(job);
    }
    (items, dones)
}

/// The jobs [`flatten`] made one list of, back as they were.
fn unflatten<T>(items: Vec<T>, dones: Counts) -> Jobs<T> {
    let mut items = items.into_iter();
    dones
        .into_iter()
        .map(|(n, done)| (items.by_ref().take(n).collect(), done))
        .collect()
}

/// At most this many transactions write one batch's buy-ins at once.
const BUY_IN_LANES: usize = 4;

/// A transaction of buy-ins holds at least this many (unless fewer are waiting).
const BUY_IN_LANE_MIN: usize = 16;

/// Writes the buy-ins, answering each with its own result (a refused one does not fail
/// the others). A big batch is split into up to [`BUY_IN_LANES`] transactions written at
/// once, by ranges of players: on PostgreSQL each takes its own connection, so a room
/// filling thousands of seats is not written statement by statement on one connection
/// (on SQLite, with its one connection, they follow each other). If a transaction fails
/// as a whole, its buy-ins are written each alone.
async fn each_answered(store: &SqlStore, jobs: Vec<(BuyIn, oneshot::Sender<StoreResult<()>>)>) {
    if jobs.is_empty() {
        return;
    }
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| jobs[i].0.player);
    let size = jobs.len().div_ceil(BUY_IN_LANES).max(BUY_IN_LANE_MIN);
    let lanes: Vec<Vec<BuyIn>> = order
        .chunks(size)
        .map(|lane| lane.iter().map(|&i| jobs[i].0).collect())
        .collect();
    let lane = |n: usize| lanes.get(n).map(Vec::as_slice);
    let (a, b, c, d) = tokio::join!(
        write_lane(store, lane(0)),
        write_lane(store, lane(1)),
        write_lane(store, lane(2)),
        write_lane(store, lane(3))
    );
    let mut answers: Vec<Option<StoreResult<()>>> = jobs.iter().map(|_| None).collect();
    let mut retry = Vec::new();
    for ((lane, written), indices) in lanes.iter().zip([a, b, c, d]).zip(order.chunks(size)) {
        match written {
            Ok(results) => {
                for (&i, result) in indices.iter().zip(results) {
                    answers[i] = Some(result);
                }
            }
            Err(_) => retry.extend(indices.iter().copied().zip(lane.iter().copied())),
        }
    }
    for (i, buy_in) in retry {
        answers[i] = Some(match store.buy_ins(&[buy_in]).await {
            Ok(mut results) => results.pop().unwrap_or(Err(StoreError::Stopped)),
            Err(e) => Err(e),
        });
    }
    for ((_, done), answer) in jobs.into_iter().zip(answers) {
        let _ = done.send(answer.unwrap_or(Err(StoreError::Stopped)));
    }
}

/// One lane's buy-ins in one transaction (none: nothing to write).
async fn write_lane(store: &SqlStore, lane: Option<&[BuyIn]>) -> StoreResult<Vec<StoreResult<()>>> {
    match lane {
        Some(lane) => store.buy_ins(lane).await,
        None => Ok(Vec::new()),
    }
}

/// Writes every job's items in one go; if that fails, each job's alone.
async fn together<T: Clone, F: Future<Output = StoreResult<()>>>(
    jobs: Vec<(Vec<T>, oneshot::Sender<StoreResult<()>>)>,
    write: impl Fn(Vec<T>) -> F,
) {
    if jobs.is_empty() {
        return;
    }
    let all: Vec<T> = jobs
        .iter()
        .flat_map(|(items, _)| items.iter().cloned())
        .collect();
    if write(all).await.is_ok() {
        for (_, done) in jobs {
            let _ = done.send(Ok(()));
        }
        return;
    }
    for (items, done) in jobs {
        let _ = done.send(write(items).await);
    }
}

impl PersisterHandle {
    async fn run(&self, work: Work) -> StoreResult<()> {
        let (done, answer) = oneshot::channel();
        self.queued.fetch_add(1, Ordering::Relaxed);
        self.jobs
            .send(Job { work, done })
            .await
            .map_err(|_| StoreError::Stopped)?;
        answer.await.map_err(|_| StoreError::Stopped)?
    }

    /// Commits a hand; returns once it is durable.
    pub async fn commit(&self, hand: CompletedHand) -> StoreResult<()> {
        self.run(Work::Commit(Box::new(hand))).await
    }

    /// Records a hand just dealt ([`SqlStore::start_hand`]); returns once it is durable.
    pub async fn start(&self, start: HandStart) -> StoreResult<()> {
        self.run(Work::Start(start)).await
    }

    /// Moves `buy_in`'s chips from the wallet to its seat ([`SqlStore::buy_ins`]) in one
    /// transaction with the other buy-ins waiting; returns once it is durable, or why it
    /// was refused.
    pub async fn buy_in(&self, buy_in: BuyIn) -> StoreResult<()> {
        self.run(Work::BuyIn(buy_in)).await
    }

    /// Writes what moves no money ([`SqlStore::save_table_writes`]), in this order, with
    /// other tables' writes; returns once they are written.
    pub async fn save(&self, writes: Vec<TableWrite>) -> StoreResult<()> {
        self.run(Work::Save(writes)).await
    }

    /// Jobs waiting to be written (the persister's lag).
    pub fn lag(&self) -> usize {
        self.queued.load(Ordering::Relaxed)
    }
}
