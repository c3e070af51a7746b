//! The password hashing threads: a fixed few threads with one queue, each keeping one
//! Argon2 working memory while there is work and freeing it once idle.
//!
//! Argon2 needs 19 MiB per hash. Hashed on tokio's blocking pool, a burst of logins used
//! to spread over dozens of short-lived threads, and glibc kept each thread's 19 MiB in
//! that thread's malloc arena afterwards: 120 registrations took an idle pokerd from
//! 13 MB to 445 MB resident for good. Here at most `threads` hashes run at once (so at
//! most that many blocks exist), a thread reuses its block from one hash to the next, and
//! a thread idle for [`IDLE_RELEASE`] frees it; the block is allocated so that freeing it
//! returns it to the system (`poker_store::password::Memory`). No unsafe code, no
//! `malloc_trim`.

use poker_store::password::Memory;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// How long a hashing thread keeps its memory with nothing to hash.
pub const IDLE_RELEASE: Duration = Duration::from_secs(5);

type Job = Box<dyn FnOnce(&mut Memory) + Send>;

/// The queue and the counters the threads share.
struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
    running: AtomicUsize,
    peak: AtomicUsize,
    held: AtomicUsize,
}

struct Queue {
    jobs: VecDeque<Job>,
    closed: bool,
}

/// A handle to the hashing threads; they stop once it is dropped and the queue is empty.
pub struct HashPool {
    shared: Arc<Shared>,
    threads: usize,
}

/// The hashing threads have stopped (the server is shutting down).
#[derive(Debug)]
pub struct Stopped;

impl HashPool {
    /// Starts `threads` hashing threads (at least one) that free their memory after
    /// `idle` without work.
    pub fn new(threads: usize, idle: Duration) -> HashPool {
        let threads = threads.max(1);
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue {
                jobs: VecDeque::new(),
                closed: false,
            }),
            ready: Condvar::new(),
            running: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            held: AtomicUsize::new(0),
        });
        for i in 0..threads {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name(format!("argon2-{i}"))
                .spawn(move || work(&shared, idle))
                .expect("a hashing thread starts");
        }
        HashPool { shared, threads }
    }

    /// Runs `f` with a hashing thread's memory, after the jobs queued before it.
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Memory) -> T + Send + 'static,
    ) -> Result<T, Stopped> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        {
            let mut queue = self.shared.queue.lock().map_err(|_| Stopped)?;
            queue.jobs.push_back(Box::new(move |memory: &mut Memory| {
                let _ = tx.send(f(memory));
            }));
        }
        self.shared.ready.notify_one();
        rx.await.map_err(|_| Stopped)
    }

    /// The number of hashing threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The most jobs that ever ran at once.
    pub fn peak(&self) -> usize {
        self.shared.peak.load(Ordering::SeqCst)
    }

    /// How many threads hold an Argon2 memory block now.
    pub fn blocks_held(&self) -> usize {
        self.shared.held.load(Ordering::SeqCst)
    }
}

impl Drop for HashPool {
    fn drop(&mut self) {
        if let Ok(mut queue) = self.shared.queue.lock() {
            queue.closed = true;
        }
        self.shared.ready.notify_all();
    }
}

/// One hashing thread: takes jobs in order; with none for `idle`, frees its memory and
/// sleeps until the next.
fn work(shared: &Shared, idle: Duration) {
    let mut memory = Memory::new();
    loop {
        let job = {
            let Ok(mut queue) = shared.queue.lock() else {
                return;
            };
            loop {
                if let Some(job) = queue.jobs.pop_front() {
                    break job;
                }
                if queue.closed {
                    return;
                }
                if memory.is_held() {
                    let Ok((q, timeout)) = shared.ready.wait_timeout(queue, idle) else {
                        return;
                    };
                    queue = q;
                    if timeout.timed_out() && queue.jobs.is_empty() {
                        memory.release();
                        shared.held.fetch_sub(1, Ordering::SeqCst);
                    }
                } else {
                    let Ok(q) = shared.ready.wait(queue) else {
                        return;
                    };
                    queue = q;
                }
            }
        };
        let now = shared.running.fetch_add(1, Ordering::SeqCst) + 1;
        shared.peak.fetch_max(now, Ordering::SeqCst);
        let held = memory.is_held();
        job(&mut memory);
        if !held && memory.is_held() {
            shared.held.fetch_add(1, Ordering::SeqCst);
        }
        shared.running.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use poker_store::password::{hash_password_in, verify_password_in};

    /// Forty hashes asked at once on two threads: every one is answered and verifies, no
    /// more than two ever ran at once (counted by the pool and, independently, by the
    /// jobs themselves), and once idle the threads hold no memory.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn at_most_n_hashes_run_at_once() {
        let pool = Arc::new(HashPool::new(2, Duration::from_millis(200)));
        let inside = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let mut asks = tokio::task::JoinSet::new();
        for i in 0..40 {
            let (pool, inside, most) = (pool.clone(), inside.clone(), most.clone());
            asks.spawn(async move {
                let password = format!("password {i}");
                let checked = password.clone();
                let hash = pool
                    .run(move |memory| {
                        let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        let hash = hash_password_in(&password, memory);
                        inside.fetch_sub(1, Ordering::SeqCst);
                        hash
                    })
                    .await
                    .unwrap();
                let ok = pool
                    .run(move |memory| verify_password_in(&checked, &hash, memory))
                    .await
                    .unwrap();
                assert!(ok, "hash {i} verifies");
            });
        }
        let mut answered = 0;
        while let Some(done) = asks.join_next().await {
            done.unwrap();
            answered += 1;
        }
        assert_eq!(answered, 40);
        assert!(pool.peak() >= 1 && pool.peak() <= 2, "peak {}", pool.peak());
        let most = most.load(Ordering::SeqCst);
        assert!((1..=2).contains(&most), "{most} hashes ran at once");
        assert!(pool.blocks_held() <= 2);
        // Idle: each thread frees its block (waiting for it, not for a set time).
        while pool.blocks_held() > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        // And the pool still works afterwards.
        let again = pool.run(|memory| hash_password_in("after", memory)).await;
        assert!(poker_store::verify_password("after", &again.unwrap()));
    }
}
