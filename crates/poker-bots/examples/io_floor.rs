//! The floor of a table's I/O: what a server that does nothing but pokerd's socket work
//! spends per six-max hand, with no rules, no JSON, no database.
//!
//! A child process plays the clients: six WebSocket connections per table, each answering
//! the frame that asks it to act at once. The server process answers like pokerd's table
//! actor: per action it reads the actor's frame, writes to the actor (its action) and to the
//! next player (the action and their turn), and writes the action to the four onlookers,
//! either at once (`--coalesce-ms 0`, one write each) or held back until `--coalesce-ms`
//! after their last write (pokerd's `server.coalesce_ms`). A hand is 26 actions, about what
//! poker-load's bots make. It reports the server process's CPU time per hand (user +
//! system, from /proc) and the writes and reads per hand.
//!
//! With `--tasks` the same work is laid out as pokerd lays it out: each connection is a task
//! of its own that reads its socket and writes what it is sent, and the table is a task
//! that the connections send their actions to and that sends each connection its frames
//! through a queue. The difference between the two is what those hand-offs cost (a wake-up
//! of the table per action, and of each connection per batch), with no rules, JSON or
//! database.
//!
//! `cargo run --release -p poker-bots --example io_floor -- --tables 20 --secs 10 --coalesce-ms 10 [--tasks]`

use futures_util::{SinkExt, StreamExt};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::Message;

const SEATS: usize = 6;
const ACTIONS_PER_HAND: u64 = 26;

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// This process's CPU time (user + system), from /proc.
fn cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    let fields: Vec<&str> = stat[stat.rfind(')').expect("a comm") + 2..]
        .split(' ')
        .collect();
    let ticks: u64 =
        fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
    Duration::from_millis(ticks * 10)
}

/// Frames the size of pokerd's: an action event, then the turn clock.
fn frames(n: u64) -> [String; 2] {
    let table = "3f1c9a1e-8a55-4f43-a3c0-0d6a5ad0c7b1";
    [
        format!("{{\"type\":\"event\",\"table_id\":\"{table}\",\"hand_number\":{n},\"seats\":[0,1,2,3,4,5],\"event\":{{\"type\":\"called\",\"player\":3,\"amount\":4}}}}"),
        format!("{{\"type\":\"turn\",\"table_id\":\"{table}\",\"hand_number\":{n},\"clock\":{{\"seat\":4,\"remaining_ms\":30000,\"bank_ms\":60000}}}}"),
    ]
}

#[derive(Default)]
struct Counts {
    actions: AtomicU64,
    writes: AtomicU64,
    reads: AtomicU64,
}

fn main() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    if std::env::args().any(|a| a == "--client") {
        runtime.block_on(client(arg("--port", 0) as u16, arg("--tables", 20)))
    } else {
        runtime.block_on(server(
            arg("--tables", 20),
            arg("--secs", 10),
            Duration::from_millis(arg("--coalesce-ms", 10)),
        ))
    }
}

async fn server(tables: u64, secs: u64, coalesce: Duration) -> anyhow::Result<()> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    let mut child = std::process::Command::new(std::env::current_exe()?)
        .args([
            "--client",
            "--port",
            &port.to_string(),
            "--tables",
            &tables.to_string(),
        ])
        .spawn()?;
    let counts = Arc::new(Counts::default());
    let tasks = std::env::args().any(|a| a == "--tasks");
    for _ in 0..tables {
        let mut seats = Vec::new();
        for _ in 0..SEATS {
            let (stream, _) = listener.accept().await?;
            stream.set_nodelay(true)?;
            seats.push(tokio_tungstenite::accept_async(stream).await?);
        }
        if tasks {
            tokio::spawn(table_of_tasks(seats, counts.clone(), coalesce));
        } else {
            tokio::spawn(table(seats, counts.clone(), coalesce));
        }
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (cpu0, at0) = (cpu(), Instant::now());
    let (a0, w0, r0) = (
        counts.actions.load(Ordering::Relaxed),
        counts.writes.load(Ordering::Relaxed),
        counts.reads.load(Ordering::Relaxed),
    );
    tokio::time::sleep(Duration::from_secs(secs)).await;
    let (cpu1, elapsed) = (cpu(), at0.elapsed().as_secs_f64());
    let hands = (counts.actions.load(Ordering::Relaxed) - a0) as f64 / ACTIONS_PER_HAND as f64;
    let writes = (counts.writes.load(Ordering::Relaxed) - w0) as f64;
    let reads = (counts.reads.load(Ordering::Relaxed) - r0) as f64;
    println!(
        "{tables} tables, coalesce {} ms{}: {:.0} hands/s; server {:.3} ms CPU per hand, {:.1} writes and {:.1} reads per hand",
        coalesce.as_millis(),
        if tasks { ", a task per connection" } else { "" },
        hands / elapsed,
        (cpu1 - cpu0).as_secs_f64() * 1000.0 / hands,
        writes / hands,
        reads / hands,
    );
    child.kill()?;
    let _ = child.wait();
    Ok(())
}

type Ws = tokio_tungstenite::WebSocketStream<TcpStream>;

/// What each seat's connection has waiting and when it was last written to: the frames
/// of each action go at once to the player who acted and to the next one, and wait for an
/// onlooker until `coalesce` after its last write.
struct Held {
    pending: Vec<Vec<String>>,
    last_sent: Vec<Option<Instant>>,
    coalesce: Duration,
    /// The actions so far.
    n: u64,
}

impl Held {
    fn new(coalesce: Duration) -> Held {
        Held {
            pending: vec![Vec::new(); SEATS],
            last_sent: vec![None; SEATS],
            coalesce,
            n: 0,
        }
    }

    /// When the first onlooker's held-back frames fall due, if any wait.
    fn due(&self) -> Option<Instant> {
        self.last_sent
            .iter()
            .zip(&self.pending)
            .filter(|(_, p)| !p.is_empty())
            .filter_map(|(t, _)| t.map(|t| t + self.coalesce))
            .min()
    }

    /// The seats whose held-back frames are due now.
    fn due_now(&self) -> Vec<usize> {
        let now = Instant::now();
        (0..SEATS)
            .filter(|&seat| {
                !self.pending[seat].is_empty()
                    && self.last_sent[seat].is_some_and(|t| t + self.coalesce <= now)
            })
            .collect()
    }

    /// Adds the frames of an action by `to_act` (the turn going to `next`) to every seat
    /// and returns the seats to write to now.
    fn act(&mut self, to_act: usize, next: usize) -> Vec<usize> {
        self.n += 1;
        let now = Instant::now();
        (0..SEATS)
            .filter(|&seat| {
                self.pending[seat].extend(frames(self.n));
                if seat == next {
                    self.pending[seat].push("decide".into());
                }
                let theirs = seat == to_act || seat == next;
                theirs || self.last_sent[seat].is_none_or(|t| t + self.coalesce <= now)
            })
            .collect()
    }

    /// Takes what waits for `seat`, noting the write.
    fn take(&mut self, seat: usize) -> Vec<String> {
        self.last_sent[seat] = Some(Instant::now());
        std::mem::take(&mut self.pending[seat])
    }
}

/// One table: each action is read from the player to act, then written back to them, to
/// the next player with their turn, and to the onlookers (held back while coalescing).
async fn table(seats: Vec<Ws>, counts: Arc<Counts>, coalesce: Duration) {
    let (mut sinks, mut streams): (Vec<_>, Vec<_>) = seats.into_iter().map(|s| s.split()).unzip();
    let mut held = Held::new(coalesce);
    // The first turn.
    if sinks[0].send(Message::text("decide")).await.is_err() {
        return;
    }
    let mut to_act = 0;
    loop {
        // Onlookers' held-back batches that fall due while waiting for the action.
        let due = held.due();
        let frame = tokio::select! {
            frame = streams[to_act].next() => frame,
            _ = tokio::time::sleep_until(due.unwrap_or_else(Instant::now).into()), if due.is_some() => {
                for seat in held.due_now() {
                    if write(&mut sinks[seat], held.take(seat), &counts).await.is_err() {
                        return;
                    }
                }
                continue;
            }
        };
        match frame {
            Some(Ok(Message::Text(_))) => {}
            _ => return,
        }
        counts.reads.fetch_add(1, Ordering::Relaxed);
        counts.actions.fetch_add(1, Ordering::Relaxed);
        let next = (to_act + 1) % SEATS;
        for seat in held.act(to_act, next) {
            if write(&mut sinks[seat], held.take(seat), &counts)
                .await
                .is_err()
            {
                return;
            }
        }
        to_act = next;
    }
}

/// One table laid out as pokerd lays it out: a task per connection, which reads its
/// socket (sending each action to the table) and writes the batches the table sends it;
/// the table's task takes the actions and sends each connection its frames, holding an
/// onlooker's back as [`table`] does.
async fn table_of_tasks(seats: Vec<Ws>, counts: Arc<Counts>, coalesce: Duration) {
    let (actions, mut actions_rx) = tokio::sync::mpsc::channel::<usize>(1024);
    let mut queues = Vec::new();
    for (seat, ws) in seats.into_iter().enumerate() {
        let (queue, rx) = tokio::sync::mpsc::channel::<Vec<String>>(1024);
        queues.push(queue);
        tokio::spawn(connection(seat, ws, rx, actions.clone(), counts.clone()));
    }
    drop(actions);
    let mut held = Held::new(coalesce);
    if queues[0].try_send(vec!["decide".into()]).is_err() {
        return;
    }
    let mut to_act = 0;
    loop {
        let due = held.due();
        let seat = tokio::select! {
            seat = actions_rx.recv() => seat,
            _ = tokio::time::sleep_until(due.unwrap_or_else(Instant::now).into()), if due.is_some() => {
                for seat in held.due_now() {
                    if queues[seat].try_send(held.take(seat)).is_err() {
                        return;
                    }
                }
                continue;
            }
        };
        match seat {
            Some(seat) if seat == to_act => {}
            _ => return,
        }
        counts.actions.fetch_add(1, Ordering::Relaxed);
        let next = (to_act + 1) % SEATS;
        for seat in held.act(to_act, next) {
            if queues[seat].try_send(held.take(seat)).is_err() {
                return;
            }
        }
        to_act = next;
    }
}

/// One connection's task in [`table_of_tasks`]: its socket's frames go to the table as
/// actions, and what the table sends it goes out in one flush per batch.
async fn connection(
    seat: usize,
    mut ws: Ws,
    mut queue: tokio::sync::mpsc::Receiver<Vec<String>>,
    actions: tokio::sync::mpsc::Sender<usize>,
    counts: Arc<Counts>,
) {
    loop {
        tokio::select! {
            frame = ws.next() => {
                match frame {
                    Some(Ok(Message::Text(_))) => {}
                    _ => return,
                }
                counts.reads.fetch_add(1, Ordering::Relaxed);
                if actions.try_send(seat).is_err() {
                    return;
                }
            }
            batch = queue.recv() => {
                let Some(batch) = batch else { return };
                for text in batch {
                    if ws.feed(Message::text(text)).await.is_err() {
                        return;
                    }
                }
                counts.writes.fetch_add(1, Ordering::Relaxed);
                if ws.flush().await.is_err() {
                    return;
                }
            }
        }
    }
}

/// One write: every frame waiting for this seat, flushed once.
async fn write(
    sink: &mut futures_util::stream::SplitSink<Ws, Message>,
    pending: Vec<String>,
    counts: &Counts,
) -> Result<(), tokio_tungstenite::tungstenite::Error> {
    for text in pending {
        sink.feed(Message::text(text)).await?;
    }
    counts.writes.fetch_add(1, Ordering::Relaxed);
    sink.flush().await
}

/// The players: six connections per table, each answering its turn at once.
async fn client(port: u16, tables: u64) -> anyhow::Result<()> {
    let mut tasks = Vec::new();
    for _ in 0..tables * SEATS as u64 {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{port}/")).await?;
        tasks.push(tokio::spawn(async move {
            let (mut sink, mut stream) = ws.split();
            while let Some(Ok(frame)) = stream.next().await {
                if let Message::Text(text) = frame {
                    if text.as_str() == "decide" {
                        let action = "{\"type\":\"act\",\"table_id\":\"3f1c9a1e-8a55-4f43-a3c0-0d6a5ad0c7b1\",\"decision_id\":1,\"action\":{\"type\":\"call\"}}";
                        if sink.send(Message::text(action)).await.is_err() {
                            break;
                        }
                    }
                }
            }
        }));
    }
    for task in tasks {
        let _ = task.await;
    }
    Ok(())
}
