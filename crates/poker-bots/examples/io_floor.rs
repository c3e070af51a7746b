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
//! With `--durable TARGET` it also does what any server must do per hand beyond its
//! sockets, each the cheapest way this process can do it, so that the floor is the complete
//! one pokerd is compared with (`scripts/capacity.sh`):
//! - **The hand's record made durable** with pokerd's own durability settings, batched
//!   across tables as a group commit: a writer task takes every record that ended while the
//!   last write was being made durable and writes them at once. TARGET a file path: one
//!   `write` and one `fsync` per batch (pokerd's SQLite runs in WAL mode with
//!   `synchronous = full`: a commit is durable when its WAL is synced, with `fsync` as
//!   the bundled SQLite is built). TARGET a `postgres://` URL: one `insert ... select from
//!   unnest($1)` per batch, committed with the server's `synchronous_commit` (on, as
//!   pokerd leaves it), into an unindexed table. The record is `--record-bytes` (3,687 by
//!   default: a hand's PHH and record in PostgreSQL, docs/persistence.md) of random hex
//!   (nothing can compress it), made once per table (the floor writes no history). A
//!   table shows a hand's result (and deals the next) only once its record is durable, as
//!   pokerd does.
//! - **Each audience's JSON serialized once** (serde_json, pokerd's wire types from
//!   poker-protocol) into a buffer reused for the table's life: per action the event and
//!   the turn for everyone and the decision for the player to act; per hand each player's
//!   hole cards for them alone and as the others see them (for everyone), the two blinds,
//!   the three board cards' deals, the rake, the pot's award and the hand's end for
//!   everyone. The messages themselves are made once per table and updated in place.
//!
//! With `--deck` (and `--durable`) it also does the verifiable deck's work per hand, which
//! every hand pokerd deals carries (docs/fairness.md), with poker-fairness's own functions
//! as pokerd calls them:
//! - at a hand's end, **each player's proofs** of the cards they saw (of a six-handed
//!   hold'em hand the engine played once with a committed deck) and **the next hand's deck
//!   committed** (a secret from the operating system's generator, the round's nonces, tree,
//!   tags and commitment), each player's `deck_proof` and everyone's `deck_committed`
//!   serialized once per audience;
//! - **the seeds' two round trips**: every client answers `deck_committed` with its
//!   `seed_commit`, the table reads the six and sends everyone `seeds_closed`, every client
//!   answers with its `seed`, the table reads the six, checks each against its commitment
//!   and deals from them; only then are the next hand's hole cards and first turn sent.
//!   Each of these twelve messages is read as pokerd's wire type (serde_json), since the
//!   table needs the bytes in them.
//!
//! With `--db-pid` (a PostgreSQL postmaster) the database's processes' CPU per hand is
//! reported apart, as poker-load reports it.
//!
//! `cargo run --release -p poker-bots --example io_floor -- --tables 20 --secs 10 --coalesce-ms 10 [--tasks] [--durable FILE|URL [--deck]]`

use futures_util::{SinkExt, StreamExt};
use poker_bots::cpu::tree_cpu;
use poker_fairness::proof::testing::play;
use poker_fairness::{prove_deck, CommittedDeck, Dealing, SeatSeed, SeedCommit, Viewer};
use poker_protocol::{ClientMsg, ClockView, ServerMsg, TableId};
use poker_rules::{Card, Cards, DeckKind, Event, Game, LegalActions, PotShare};
use rand::RngCore;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

const SEATS: usize = 6;
const ACTIONS_PER_HAND: u64 = 26;

fn arg(name: &str, default: u64) -> u64 {
    text_arg(name)
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn text_arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
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

/// Frames the size of pokerd's: an action event, then the turn clock (written once per
/// action, shared by every seat).
fn frames(n: u64) -> [Utf8Bytes; 2] {
    let table = "3f1c9a1e-8a55-4f43-a3c0-0d6a5ad0c7b1";
    [
        format!("{{\"type\":\"event\",\"table_id\":\"{table}\",\"hand_number\":{n},\"seats\":[0,1,2,3,4,5],\"event\":{{\"type\":\"called\",\"player\":3,\"amount\":4}}}}").into(),
        format!("{{\"type\":\"turn\",\"table_id\":\"{table}\",\"hand_number\":{n},\"clock\":{{\"seat\":4,\"remaining_ms\":30000,\"bank_ms\":60000}}}}").into(),
    ]
}

/// What a player answers: the turn's frame (`decide`, or pokerd's decision as JSON).
fn asks_to_act(text: &str) -> bool {
    text == "decide" || text.starts_with("{\"type\":\"decide\"")
}

#[derive(Default)]
struct Counts {
    actions: AtomicU64,
    writes: AtomicU64,
    reads: AtomicU64,
    /// Batches made durable, and the records in them.
    commits: AtomicU64,
    records: AtomicU64,
    /// The measurement is over (the runtime stops: a commit under way is cut).
    over: std::sync::atomic::AtomicBool,
}

/// Where the hands' records are made durable (`--durable`).
enum Target {
    /// Appended to a file, synced once per batch.
    File(Arc<std::fs::File>),
    /// Inserted into PostgreSQL, one statement per batch.
    Postgres(sqlx::PgPool),
}

impl Target {
    async fn open(target: &str) -> anyhow::Result<Target> {
        if target.starts_with("postgres") {
            let pool = sqlx::postgres::PgPoolOptions::new()
                .max_connections(1)
                .connect(target)
                .await?;
            sqlx::query("create table if not exists floor_hand (record bytea not null)")
                .execute(&pool)
                .await?;
            sqlx::query("truncate floor_hand").execute(&pool).await?;
            Ok(Target::Postgres(pool))
        } else {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .write(true)
                .truncate(true)
                .open(target)?;
            Ok(Target::File(Arc::new(file)))
        }
    }

    /// Makes a batch of records durable.
    async fn commit(&self, batch: &[Arc<[u8]>]) -> anyhow::Result<()> {
        match self {
            Target::File(file) => {
                let bytes = batch.concat();
                let file = file.clone();
                tokio::task::spawn_blocking(move || -> std::io::Result<()> {
                    (&*file).write_all(&bytes)?;
                    // SQLite as pokerd builds it (bundled, without HAVE_FDATASYNC) syncs
                    // its WAL with fsync.
                    file.sync_all()
                })
                .await??;
            }
            Target::Postgres(pool) => {
                let records: Vec<&[u8]> = batch.iter().map(|r| &r[..]).collect();
                sqlx::query("insert into floor_hand (record) select * from unnest($1::bytea[])")
                    .bind(records)
                    .execute(pool)
                    .await?;
            }
        }
        Ok(())
    }
}

/// A hand's record, and who waits for it to be durable (its table, to show the result).
type Record = (Arc<[u8]>, oneshot::Sender<()>);

/// The group commit: every record that came while the last batch was being made durable
/// goes in the next; each table is told once its record is durable.
async fn writer(target: Target, mut records: mpsc::UnboundedReceiver<Record>, counts: Arc<Counts>) {
    let mut batch = Vec::new();
    let mut waiting = Vec::new();
    while let Some((record, durable)) = records.recv().await {
        batch.push(record);
        waiting.push(durable);
        while let Ok((record, durable)) = records.try_recv() {
            batch.push(record);
            waiting.push(durable);
        }
        if let Err(e) = target.commit(&batch).await {
            if counts.over.load(Ordering::SeqCst) {
                return;
            }
            eprintln!("io_floor: a commit failed: {e:#}");
            std::process::exit(1);
        }
        counts.commits.fetch_add(1, Ordering::Relaxed);
        counts
            .records
            .fetch_add(batch.len() as u64, Ordering::Relaxed);
        batch.clear();
        for durable in waiting.drain(..) {
            let _ = durable.send(());
        }
    }
}

/// What a table does per action and per hand with `--durable`: pokerd's messages as JSON,
/// each serialized once per audience into one reused buffer, and each hand's record handed
/// to the writer, the hand's result shown once it is durable.
struct Durable {
    json: Vec<u8>,
    event: ServerMsg,
    turn: ServerMsg,
    decide: ServerMsg,
    /// A player's hole cards, for them alone.
    hole: ServerMsg,
    /// A player's hole cards as the others see them (one message to everyone).
    hidden: ServerMsg,
    /// The hand's other events, for everyone, once each: blinds, board, rake, pot, end.
    hand_events: Vec<ServerMsg>,
    record: Arc<[u8]>,
    records: mpsc::UnboundedSender<Record>,
    /// The ended hand's record, until it is durable.
    waiting: Option<oneshot::Receiver<()>>,
    /// The verifiable deck's work, with `--deck`.
    deck: Option<DeckWork>,
}

/// The verifiable deck's work per hand (`--deck`), with poker-fairness's functions as
/// pokerd's table calls them.
struct DeckWork {
    /// A six-handed hold'em hand the engine played with a committed deck, its dealing and
    /// its events: each hand's proofs are made of it.
    sample: (CommittedDeck, Dealing, Vec<Event>),
    /// The next hand's deck, committed at the last hand's end.
    next: Option<CommittedDeck>,
    /// The next hand's closed list of seed commitments.
    list: Vec<SeedCommit>,
    committed: ServerMsg,
    closed: ServerMsg,
    proof: ServerMsg,
}

impl DeckWork {
    fn new(table_id: TableId) -> DeckWork {
        let (record, events) = play(Game::Holdem, SEATS, 1);
        let deck = record.deck().expect("the sample hand's deck");
        let dealing = record.dealing(&deck);
        let commitment = deck.commitment();
        let proof = prove_deck(&deck, &dealing, &events, Viewer::Player(0)).expect("a proof");
        DeckWork {
            committed: ServerMsg::DeckCommitted {
                table_id,
                commitment,
            },
            closed: ServerMsg::SeedsClosed {
                table_id,
                hand_id: commitment.hand_id,
                list: Vec::new(),
            },
            proof: ServerMsg::DeckProof {
                table_id,
                hand_number: 0,
                proof: Box::new(proof),
            },
            sample: (deck, dealing, events),
            next: None,
            list: Vec::new(),
        }
    }

    /// Hand `hand` ended: each player's proofs (for them alone), and the next hand's deck
    /// committed (for everyone).
    fn hand_ended(&mut self, json: &mut Vec<u8>, hand: u64) -> (Vec<Utf8Bytes>, Utf8Bytes) {
        let (deck, dealing, events) = &self.sample;
        let mut proofs = Vec::with_capacity(SEATS);
        for seat in 0..SEATS {
            let proof = prove_deck(deck, dealing, events, Viewer::Player(seat)).expect("a proof");
            if let ServerMsg::DeckProof {
                hand_number,
                proof: slot,
                ..
            } = &mut self.proof
            {
                *hand_number = hand;
                **slot = proof;
            }
            proofs.push(Durable::frame(json, &self.proof));
        }
        let mut secret = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut secret);
        let next = CommittedDeck::new(
            poker_protocol::HandId::new(),
            DeckKind::Standard,
            1,
            poker_fairness::Bytes(secret),
        )
        .expect("a deck");
        if let ServerMsg::DeckCommitted { commitment, .. } = &mut self.committed {
            *commitment = next.commitment();
        }
        self.next = Some(next);
        (proofs, Durable::frame(json, &self.committed))
    }

    /// Every seat's commitment read: the list closed, for everyone.
    fn close(&mut self, json: &mut Vec<u8>, commits: Vec<SeedCommit>) -> Utf8Bytes {
        let hand = self.next.as_ref().expect("a committed deck").hand_id();
        self.list = commits;
        if let ServerMsg::SeedsClosed { hand_id, list, .. } = &mut self.closed {
            *hand_id = hand;
            list.clone_from(&self.list);
        }
        Durable::frame(json, &self.closed)
    }

    /// Every seat's seed read: each checked against its commitment, and the deck dealt
    /// from them.
    fn deal(&mut self, seeds: Vec<SeatSeed>) {
        let deck = self.next.take().expect("a committed deck");
        let digest = deck.commitment().commitment;
        for s in &seeds {
            let listed = self.list.iter().find(|c| c.seat == s.seat);
            assert!(
                listed.is_some_and(
                    |c| c.commitment == poker_fairness::seed_commitment(&digest, &s.seed)
                ),
                "seat {}'s seed opens its commitment",
                s.seat
            );
        }
        let dealing = deck.dealing(std::mem::take(&mut self.list), seeds);
        std::hint::black_box(deck.dealt_cards(&dealing));
    }
}

impl Durable {
    fn new(records: mpsc::UnboundedSender<Record>, record_bytes: usize, deck: bool) -> Durable {
        let table_id = TableId::new();
        let seats: Vec<u32> = (0..SEATS as u32).collect();
        let event = |event: Event| ServerMsg::Event {
            table_id,
            hand_number: 0,
            seats: seats.clone(),
            event,
            hand_name: None,
        };
        let cards =
            |text: &str| Cards::from_slice(&Card::parse_many(text).expect("cards")).expect("cards");
        // Hex, as most of a hand's record is (commitments, seeds), and random: neither
        // PostgreSQL's compression nor anything else can shrink it.
        let record: Vec<u8> = (0..record_bytes)
            .map(|_| b"0123456789abcdef"[usize::from(rand::random::<u8>() % 16)])
            .collect();
        Durable {
            json: Vec::with_capacity(1024),
            event: event(Event::Checked { player: 0 }),
            turn: ServerMsg::Turn {
                table_id,
                hand_number: 0,
                clock: ClockView {
                    seat: 0,
                    remaining_ms: 30_000,
                    time_bank_ms: 60_000,
                    in_time_bank: false,
                },
            },
            decide: ServerMsg::Decide {
                table_id,
                decision_id: 0,
                legal: LegalActions {
                    player: 0,
                    fold: true,
                    check: false,
                    call: Some(4),
                    bring_in: None,
                    bet_or_raise: Some((8, 200)),
                    cover_raise: None,
                    unit: 1,
                },
            },
            hole: event(Event::HoleDealt {
                player: 0,
                cards: cards("AhKd"),
                up: 0,
            }),
            hidden: event(Event::HoleDealt {
                player: 0,
                cards: cards(""),
                up: 0,
            }),
            hand_events: vec![
                event(Event::BlindPosted {
                    player: 1,
                    amount: 1,
                }),
                event(Event::BlindPosted {
                    player: 2,
                    amount: 2,
                }),
                event(Event::BoardDealt {
                    cards: cards("2c7d9h"),
                }),
                event(Event::BoardDealt { cards: cards("Js") }),
                event(Event::BoardDealt { cards: cards("Qd") }),
                event(Event::Raked { amount: 1 }),
                event(Event::PotAwarded {
                    pot: 0,
                    run: 0,
                    share: PotShare::All,
                    amount: 23,
                    winners: vec![(3, 23)],
                }),
                event(Event::HandEnded {
                    stacks: vec![200; SEATS],
                }),
            ],
            record: record.into(),
            records,
            waiting: None,
            deck: deck.then(|| DeckWork::new(table_id)),
        }
    }

    /// `message` as JSON, written into the reused buffer and copied once into a frame that
    /// every seat of its audience shares.
    fn frame(json: &mut Vec<u8>, message: &ServerMsg) -> Utf8Bytes {
        json.clear();
        serde_json::to_writer(&mut *json, message).expect("a message serializes");
        Utf8Bytes::from(std::str::from_utf8(json).expect("JSON is UTF-8"))
    }

    /// The action number `n` (of the whole table, from 1) by `to_act`, the turn going to
    /// `next`: the frames for everyone and the decision for `next`.
    fn action(&mut self, n: u64, to_act: usize, next: usize) -> ([Utf8Bytes; 2], Utf8Bytes) {
        let hand = (n - 1) / ACTIONS_PER_HAND;
        if let ServerMsg::Event {
            hand_number, event, ..
        } = &mut self.event
        {
            *hand_number = hand;
            *event = Event::Called {
                player: to_act,
                amount: 4,
                all_in: false,
            };
        }
        if let ServerMsg::Turn {
            hand_number, clock, ..
        } = &mut self.turn
        {
            *hand_number = hand;
            clock.seat = next as u32;
        }
        if let ServerMsg::Decide {
            decision_id, legal, ..
        } = &mut self.decide
        {
            *decision_id = n;
            legal.player = next;
        }
        (
            [
                Self::frame(&mut self.json, &self.event),
                Self::frame(&mut self.json, &self.turn),
            ],
            Self::frame(&mut self.json, &self.decide),
        )
    }

    /// Hand `hand` ended: its record to the writer (the table waits for it to be durable
    /// before showing the result) and its other events for everyone; with `--deck`, each
    /// player's proofs and the next deck's commitment. Returns the frames for everyone and
    /// each seat's own.
    fn hand_ended(&mut self, hand: u64) -> (Vec<Utf8Bytes>, Vec<Utf8Bytes>) {
        let (durable, waiting) = oneshot::channel();
        let _ = self.records.send((self.record.clone(), durable));
        self.waiting = Some(waiting);
        let mut everyone = Vec::with_capacity(self.hand_events.len() + 1);
        for message in &mut self.hand_events {
            if let ServerMsg::Event { hand_number, .. } = message {
                *hand_number = hand;
            }
            everyone.push(Self::frame(&mut self.json, message));
        }
        let mut own = Vec::new();
        if let Some(deck) = &mut self.deck {
            let (proofs, committed) = deck.hand_ended(&mut self.json, hand);
            own = proofs;
            everyone.push(committed);
        }
        (everyone, own)
    }

    /// Hand `hand` dealt: each player's hole cards for them alone, and for everyone as
    /// the others see them. Returns the frames for everyone and each seat's own.
    fn dealt(&mut self, hand: u64) -> (Vec<Utf8Bytes>, Vec<Utf8Bytes>) {
        let mut everyone = Vec::with_capacity(SEATS);
        let mut own = Vec::with_capacity(SEATS);
        for seat in 0..SEATS {
            for message in [&mut self.hole, &mut self.hidden] {
                if let ServerMsg::Event {
                    hand_number,
                    event: Event::HoleDealt { player, .. },
                    ..
                } = message
                {
                    *hand_number = hand;
                    *player = seat;
                }
            }
            own.push(Self::frame(&mut self.json, &self.hole));
            everyone.push(Self::frame(&mut self.json, &self.hidden));
        }
        (everyone, own)
    }
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
    let durable = text_arg("--durable");
    let records = match &durable {
        Some(target) => {
            let (records, rx) = mpsc::unbounded_channel();
            tokio::spawn(writer(Target::open(target).await?, rx, counts.clone()));
            Some(records)
        }
        None => None,
    };
    let record_bytes = arg("--record-bytes", 3687) as usize;
    let deck = std::env::args().any(|a| a == "--deck");
    anyhow::ensure!(
        !deck || (durable.is_some() && !tasks),
        "--deck is the complete floor's: it needs --durable, and is not laid out with --tasks"
    );
    let db_pid = text_arg("--db-pid").and_then(|p| p.parse::<u32>().ok());
    for _ in 0..tables {
        let mut seats = Vec::new();
        for _ in 0..SEATS {
            let (stream, _) = listener.accept().await?;
            stream.set_nodelay(true)?;
            seats.push(tokio_tungstenite::accept_async(stream).await?);
        }
        let held = Held::new(
            coalesce,
            records
                .clone()
                .map(|r| Box::new(Durable::new(r, record_bytes, deck))),
        );
        if tasks {
            tokio::spawn(table_of_tasks(seats, counts.clone(), held));
        } else {
            tokio::spawn(table(seats, counts.clone(), held));
        }
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (cpu0, at0) = (cpu(), Instant::now());
    let read = |c: &AtomicU64| c.load(Ordering::Relaxed);
    let (a0, w0, r0, c0, k0) = (
        read(&counts.actions),
        read(&counts.writes),
        read(&counts.reads),
        read(&counts.commits),
        read(&counts.records),
    );
    let db0 = db_pid.and_then(tree_cpu);
    tokio::time::sleep(Duration::from_secs(secs)).await;
    let (cpu1, elapsed) = (cpu(), at0.elapsed().as_secs_f64());
    let db1 = db_pid.and_then(tree_cpu);
    let hands = (read(&counts.actions) - a0) as f64 / ACTIONS_PER_HAND as f64;
    let writes = (read(&counts.writes) - w0) as f64;
    let reads = (read(&counts.reads) - r0) as f64;
    let mut line = format!(
        "{tables} tables, coalesce {} ms{}{}: {:.0} hands/s; server {:.3} ms CPU per hand, {:.1} writes and {:.1} reads per hand",
        coalesce.as_millis(),
        if tasks { ", a task per connection" } else { "" },
        match (durable.is_some(), deck) {
            (true, true) => ", durable, verifiable deck",
            (true, false) => ", durable",
            _ => "",
        },
        hands / elapsed,
        (cpu1 - cpu0).as_secs_f64() * 1000.0 / hands,
        writes / hands,
        reads / hands,
    );
    if durable.is_some() {
        let commits = (read(&counts.commits) - c0) as f64;
        let records = (read(&counts.records) - k0) as f64;
        line += &format!(
            "; {:.0} commits/s of {:.1} hands, {record_bytes} bytes a hand",
            commits / elapsed,
            records / commits.max(1.0),
        );
    }
    if let (Some(db0), Some(db1)) = (db0, db1) {
        line += &format!(
            "; database processes {:.3} ms",
            (db1 - db0).as_secs_f64() * 1000.0 / hands
        );
    }
    counts.over.store(true, Ordering::SeqCst);
    println!("{line}");
    child.kill()?;
    let _ = child.wait();
    Ok(())
}

type Ws = tokio_tungstenite::WebSocketStream<TcpStream>;

/// What each seat's connection has waiting and when it was last written to: the frames
/// of each action go at once to the player who acted and to the next one, and wait for an
/// onlooker until `coalesce` after its last write.
struct Held {
    pending: Vec<Vec<Utf8Bytes>>,
    last_sent: Vec<Option<Instant>>,
    coalesce: Duration,
    /// The actions so far.
    n: u64,
    /// The JSON and the records, with `--durable`.
    durable: Option<Box<Durable>>,
    /// With `--deck`, between hands: the next hand's hole cards (as everyone sees them and
    /// each player's own), its first decision and who it is for, sent once the seeds are in.
    after_seeds: Option<AfterSeeds>,
}

/// What waits for the seeds: frames for everyone, each seat's own, the decision, its seat.
type AfterSeeds = (Vec<Utf8Bytes>, Vec<Utf8Bytes>, Utf8Bytes, usize);

impl Held {
    fn new(coalesce: Duration, durable: Option<Box<Durable>>) -> Held {
        Held {
            pending: vec![Vec::new(); SEATS],
            last_sent: vec![None; SEATS],
            coalesce,
            n: 0,
            durable,
            after_seeds: None,
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
        let (shared, decide) = match &mut self.durable {
            Some(durable) => durable.action(self.n, to_act, next),
            None => (frames(self.n), Utf8Bytes::from_static("decide")),
        };
        // Each hand's last action: its record, its result, the next hand's hole cards.
        let hand = self.n / ACTIONS_PER_HAND;
        let ((ended, own), (hidden, hole)) = match &mut self.durable {
            Some(durable) if self.n.is_multiple_of(ACTIONS_PER_HAND) => {
                (durable.hand_ended(hand - 1), durable.dealt(hand))
            }
            _ => Default::default(),
        };
        let seeding = self.n.is_multiple_of(ACTIONS_PER_HAND)
            && self.durable.as_ref().is_some_and(|d| d.deck.is_some());
        if seeding {
            // With `--deck` the next hand is dealt once the seeds are in: its hole cards and
            // first turn wait; the hand's end and the next deck's commitment go to everyone.
            for seat in 0..SEATS {
                self.pending[seat].extend(shared.iter().cloned());
                self.pending[seat].extend(ended.iter().cloned());
                self.pending[seat].extend(own.get(seat).cloned());
            }
            self.after_seeds = Some((hidden, hole, decide, next));
            return (0..SEATS).collect();
        }
        (0..SEATS)
            .filter(|&seat| {
                self.pending[seat].extend(shared.iter().cloned());
                self.pending[seat].extend(ended.iter().cloned());
                self.pending[seat].extend(hidden.iter().cloned());
                if let Some(cards) = hole.get(seat) {
                    self.pending[seat].push(cards.clone());
                }
                if seat == next {
                    self.pending[seat].push(decide.clone());
                }
                let theirs = seat == to_act || seat == next;
                theirs || self.last_sent[seat].is_none_or(|t| t + self.coalesce <= now)
            })
            .collect()
    }

    /// With `--deck`, once the seeds are in: the next hand's hole cards and first turn, to
    /// every seat now.
    fn deal(&mut self) -> Vec<usize> {
        let Some((hidden, hole, decide, next)) = self.after_seeds.take() else {
            return Vec::new();
        };
        for seat in 0..SEATS {
            self.pending[seat].extend(hidden.iter().cloned());
            self.pending[seat].extend(hole.get(seat).cloned());
            if seat == next {
                self.pending[seat].push(decide.clone());
            }
        }
        (0..SEATS).collect()
    }

    /// With `--durable`, at a hand's end: waits until its record is durable (no result is
    /// shown before).
    async fn durable_result(&mut self) {
        if let Some(waiting) = self.durable.as_mut().and_then(|d| d.waiting.take()) {
            let _ = waiting.await;
        }
    }

    /// Takes what waits for `seat`, noting the write.
    fn take(&mut self, seat: usize) -> Vec<Utf8Bytes> {
        self.last_sent[seat] = Some(Instant::now());
        std::mem::take(&mut self.pending[seat])
    }
}

/// One table: each action is read from the player to act, then written back to them, to
/// the next player with their turn, and to the onlookers (held back while coalescing).
async fn table(seats: Vec<Ws>, counts: Arc<Counts>, mut held: Held) {
    let (mut sinks, mut streams): (Vec<_>, Vec<_>) = seats.into_iter().map(|s| s.split()).unzip();
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
        let seats = held.act(to_act, next);
        held.durable_result().await;
        for seat in seats {
            if write(&mut sinks[seat], held.take(seat), &counts)
                .await
                .is_err()
            {
                return;
            }
        }
        if held.after_seeds.is_some()
            && seeds(&mut sinks, &mut streams, &mut held, &counts)
                .await
                .is_err()
        {
            return;
        }
        to_act = next;
    }
}

/// A client's message, read as pokerd reads it.
async fn read_msg(
    stream: &mut futures_util::stream::SplitStream<Ws>,
    counts: &Counts,
) -> Result<ClientMsg, ()> {
    match stream.next().await {
        Some(Ok(Message::Text(text))) => {
            counts.reads.fetch_add(1, Ordering::Relaxed);
            serde_json::from_str(text.as_str()).map_err(|_| ())
        }
        _ => Err(()),
    }
}

/// With `--deck`, between hands: every seat's commitment read, the list closed to
/// everyone, every seat's seed read and checked, the deck dealt from them; then the next
/// hand's hole cards and first turn go out.
async fn seeds(
    sinks: &mut [futures_util::stream::SplitSink<Ws, Message>],
    streams: &mut [futures_util::stream::SplitStream<Ws>],
    held: &mut Held,
    counts: &Counts,
) -> Result<(), ()> {
    let durable = held.durable.as_mut().ok_or(())?;
    let deck = durable.deck.as_mut().ok_or(())?;
    let mut commits = Vec::with_capacity(SEATS);
    for (seat, stream) in streams.iter_mut().enumerate() {
        match read_msg(stream, counts).await? {
            ClientMsg::SeedCommit { commitment, .. } => commits.push(SeedCommit {
                seat: seat as u8,
                commitment,
                house: false,
            }),
            _ => return Err(()),
        }
    }
    let closed = deck.close(&mut durable.json, commits);
    for sink in sinks.iter_mut() {
        write(sink, vec![closed.clone()], counts)
            .await
            .map_err(|_| ())?;
    }
    let mut seeds = Vec::with_capacity(SEATS);
    for (seat, stream) in streams.iter_mut().enumerate() {
        match read_msg(stream, counts).await? {
            ClientMsg::Seed { seed, .. } => seeds.push(SeatSeed {
                seat: seat as u8,
                seed,
            }),
            _ => return Err(()),
        }
    }
    deck.deal(seeds);
    for seat in held.deal() {
        write(&mut sinks[seat], held.take(seat), counts)
            .await
            .map_err(|_| ())?;
    }
    Ok(())
}

/// One table laid out as pokerd lays it out: a task per connection, which reads its
/// socket (sending each action to the table) and writes the batches the table sends it;
/// the table's task takes the actions and sends each connection its frames, holding an
/// onlooker's back as [`table`] does.
async fn table_of_tasks(seats: Vec<Ws>, counts: Arc<Counts>, mut held: Held) {
    let (actions, mut actions_rx) = tokio::sync::mpsc::channel::<usize>(1024);
    let mut queues = Vec::new();
    for (seat, ws) in seats.into_iter().enumerate() {
        let (queue, rx) = tokio::sync::mpsc::channel::<Vec<Utf8Bytes>>(1024);
        queues.push(queue);
        tokio::spawn(connection(seat, ws, rx, actions.clone(), counts.clone()));
    }
    drop(actions);
    if queues[0]
        .try_send(vec![Utf8Bytes::from_static("decide")])
        .is_err()
    {
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
        let seats = held.act(to_act, next);
        held.durable_result().await;
        for seat in seats {
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
    mut queue: tokio::sync::mpsc::Receiver<Vec<Utf8Bytes>>,
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
    pending: Vec<Utf8Bytes>,
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
            // With `--deck`: the seed committed to for the next hand, until revealed.
            let mut seed = poker_protocol::Seed::from_bytes([0; 32]);
            while let Some(Ok(frame)) = stream.next().await {
                let Message::Text(text) = frame else { continue };
                let answer = if asks_to_act(text.as_str()) {
                    "{\"type\":\"act\",\"table_id\":\"3f1c9a1e-8a55-4f43-a3c0-0d6a5ad0c7b1\",\"decision_id\":1,\"action\":{\"type\":\"call\"}}".to_string()
                } else if text.starts_with("{\"type\":\"deck_committed\"") {
                    let Ok(ServerMsg::DeckCommitted { table_id, commitment }) =
                        serde_json::from_str(text.as_str())
                    else {
                        break;
                    };
                    seed = poker_protocol::Seed::from_bytes(rand::random());
                    serde_json::to_string(&ClientMsg::SeedCommit {
                        table_id,
                        hand_id: commitment.hand_id,
                        commitment: poker_protocol::seed_commitment(&commitment.commitment, &seed),
                    })
                    .expect("a message serializes")
                } else if text.starts_with("{\"type\":\"seeds_closed\"") {
                    let Ok(ServerMsg::SeedsClosed { table_id, hand_id, .. }) =
                        serde_json::from_str(text.as_str())
                    else {
                        break;
                    };
                    serde_json::to_string(&ClientMsg::Seed {
                        table_id,
                        hand_id,
                        seed,
                    })
                    .expect("a message serializes")
                } else {
                    continue;
                };
                if sink.send(Message::text(answer)).await.is_err() {
                    break;
                }
            }
        }));
    }
    for task in tasks {
        let _ = task.await;
    }
    Ok(())
}
