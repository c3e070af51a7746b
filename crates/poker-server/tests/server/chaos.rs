//! The chaos soak: the real server on port 0 (SQLite, and Postgres), tables of every game
//! and option family, and bots that mostly play legally but also send wrong action kinds,
//! stale ids, garbage, oversized, binary and invalid frames, leave mid-hand, sit out and
//! in, top up, disconnect and reconnect, stop reading, and let the clock act for them.
//!
//! Checked throughout and at the end: no panic; the books balance at every look; every
//! client sees no hole card before it is shown (the harness checks every frame); no table
//! stops dealing while two players can play; every `pending` request completes; every
//! finished hand is stored with a PHH that replays to its recorded stacks; an idle server
//! does not wake up (its table wake-up counter stays flat); closing every table returns
//! every chip to the wallets.
//!
//! Seeded: `CHAOS_SEED` (printed) fixes every bot's choices; the interleaving is the
//! scheduler's. `CHAOS_SECS` sets how long the chaos lasts (default 40 s per database).

use crate::common;

use common::{act, Client, Db, DbGuard, MyCards, Server};
use futures_util::SinkExt;
use poker_protocol::{ClientMsg, ErrorCode, ServerMsg};
use poker_rules::{Action, Cards, LegalActions};
use poker_store::{SqlStore, TableId};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde_json::json;
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::Message;

const DEPOSIT: u64 = 100_000;

/// Panics anywhere in the process (server tasks included), counted by a hook.
static PANICS: AtomicU64 = AtomicU64::new(0);

fn count_panics() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        PANICS.fetch_add(1, Ordering::SeqCst);
        previous(info);
    }));
}

/// What the bots did, summed.
#[derive(Default)]
struct Figures {
    messages: AtomicU64,
    invalid: AtomicU64,
    reconnects: AtomicU64,
    leaves: AtomicU64,
    stalls: AtomicU64,
    timeouts_let: AtomicU64,
}

struct Bot {
    client: Client,
    token: String,
    table: TableId,
    seat: u32,
    rng: SmallRng,
    mine: MyCards,
    seated: bool,
    max_buy_in: u64,
    /// Requests answered `pending` and not yet `done`.
    pending: BTreeSet<String>,
    figures: Arc<Figures>,
    addr: std::net::SocketAddr,
    /// Every table, to watch them all at once and fall behind.
    all_tables: Arc<Vec<TableId>>,
}

impl Bot {
    async fn send(&mut self, msg: &ClientMsg) {
        self.figures.messages.fetch_add(1, Ordering::Relaxed);
        self.client.send(msg).await;
    }

    async fn send_raw_frame(&mut self, m: Message) {
        self.figures.messages.fetch_add(1, Ordering::Relaxed);
        self.figures.invalid.fetch_add(1, Ordering::Relaxed);
        let _ = self.client.ws.send(m).await;
    }

    fn legal_action(&mut self, l: &LegalActions) -> Action {
        let mut options = Vec::new();
        if let Some(_b) = l.bring_in {
            options.push(Action::BringIn);
        }
        if l.check {
            options.extend([Action::Check, Action::Check]);
        } else if l.fold {
            options.push(Action::Fold);
        }
        if l.call.is_some() {
            options.extend([Action::Call, Action::Call, Action::Call]);
        }
        if let Some((min, max)) = l.bet_or_raise {
            let unit = l.unit.max(1);
            let steps = (max - min) / unit;
            let to = min + unit * self.rng.gen_range(0..=steps.min(4));
            options.push(Action::BetOrRaiseTo { to });
            if self.rng.gen_bool(0.15) {
                options.push(Action::BetOrRaiseTo { to: max });
            }
        }
        *options.choose(&mut self.rng).expect("something is legal")
    }

    /// Answers a decision: mostly legally, sometimes with a wrong kind of action or a
    /// stale id first, sometimes not at all (the clock acts).
    async fn decide(&mut self, msg: &ServerMsg) {
        let (decision_id, right) = match msg {
            ServerMsg::Decide {
                decision_id, legal, ..
            } => (*decision_id, self.legal_action(legal)),
            ServerMsg::DecideDraw { decision_id, .. } => {
                // Full tables draw heavily, so the stub runs out.
                let cards = self.mine.cards.clone();
                let keep = self.rng.gen_range(0..=cards.len().min(2));
                let discards = Cards::from_slice(&cards[keep..]).expect("a few cards");
                (*decision_id, Action::Draw { discards })
            }
            ServerMsg::DecideRunTwice { decision_id, .. } => (
                *decision_id,
                Action::RunItTwice {
                    agree: self.rng.gen_bool(0.7),
                },
            ),
            _ => return,
        };
        if self.rng.gen_bool(0.03) {
            self.figures.timeouts_let.fetch_add(1, Ordering::Relaxed);
            return; // the clock answers
        }
        if self.rng.gen_bool(0.05) {
            let wrong = match right {
                Action::Draw { .. } => Action::Call,
                Action::RunItTwice { .. } => Action::Fold,
                _ => *[
                    Action::RunItTwice { agree: true },
                    Action::Draw {
                        discards: Cards::new(),
                    },
                    Action::Show { cards: None },
                    Action::Muck,
                ]
                .choose(&mut self.rng)
                .unwrap(),
            };
            self.figures.invalid.fetch_add(1, Ordering::Relaxed);
            self.send(&act(&self.table.to_string(), decision_id, wrong))
                .await;
        }
        if self.rng.gen_bool(0.03) {
            self.figures.invalid.fetch_add(1, Ordering::Relaxed);
            self.send(&act(
                &self.table.to_string(),
                decision_id.wrapping_sub(1),
                right,
            ))
            .await;
        }
        self.send(&act(&self.table.to_string(), decision_id, right))
            .await;
    }

    async fn sit(&mut self) {
        let buy_in = self.rng.gen_range(40..=self.max_buy_in);
        let msg = ClientMsg::Sit {
            table_id: self.table,
            seat: self.seat,
            buy_in,
            post_now: self.rng.gen_bool(0.7),
            seed_commit: None,
        };
        self.send(&msg).await;
    }

    /// One random disturbance.
    async fn chaos(&mut self) {
        let t = self.table;
        match self.rng.gen_range(0..14) {
            0 => {
                self.figures.invalid.fetch_add(1, Ordering::Relaxed);
                let junk: String = (0..self.rng.gen_range(0..40))
                    .map(|_| self.rng.gen_range(32u8..127) as char)
                    .collect();
                self.figures.messages.fetch_add(1, Ordering::Relaxed);
                self.client.send_raw(junk).await;
            }
            1 => {
                self.figures.messages.fetch_add(1, Ordering::Relaxed);
                self.figures.invalid.fetch_add(1, Ordering::Relaxed);
                self.client
                    .send_raw(format!(
                        "{{\"type\":\"ping\",\"pad\":\"{}\"}}",
                        "x".repeat(20_000)
                    ))
                    .await;
            }
            2 => {
                self.send_raw_frame(Message::Binary(vec![1, 2, 3].into()))
                    .await
            }
            3 => {
                self.figures.invalid.fetch_add(1, Ordering::Relaxed);
                self.send(&ClientMsg::Leave {
                    table_id: TableId::new(),
                })
                .await;
            }
            4 => {
                self.figures.invalid.fetch_add(1, Ordering::Relaxed);
                let seat = (self.seat + 1) % 6;
                self.send(&common::sit(&t.to_string(), seat, 100)).await;
            }
            5 => {
                let amount = self.rng.gen_range(1..=self.max_buy_in);
                self.send(&ClientMsg::TopUp {
                    table_id: t,
                    amount,
                })
                .await;
            }
            6 => {
                let next_big_blind = self.rng.gen_bool(0.3);
                self.send(&ClientMsg::SitOut {
                    table_id: t,
                    next_big_blind,
                })
                .await;
            }
            7 if self.rng.gen_bool(0.5) => {
                // Straddle under the gun, or not (refused where the table has none).
                let on = self.rng.gen_bool(0.6);
                self.send(&ClientMsg::Straddle { table_id: t, on }).await;
            }
            7 | 8 => {
                let post_now = self.rng.gen_bool(0.5);
                self.send(&ClientMsg::SitIn {
                    table_id: t,
                    post_now,
                })
                .await;
            }
            9 => {
                if self.seated {
                    self.figures.leaves.fetch_add(1, Ordering::Relaxed);
                    self.send(&ClientMsg::Leave { table_id: t }).await;
                } else {
                    self.sit().await;
                }
            }
            10 => {
                // Drop the connection and come back.
                self.figures.reconnects.fetch_add(1, Ordering::Relaxed);
                self.pending.clear();
                let token = self.token.clone();
                common::reconnect(&mut self.client, self.addr, &token).await;
            }
            11 => {
                // Invalid UTF-8 in a text frame: the server closes; come back.
                let bad = Frame::message(vec![b'"', 0xc3, 0x28], OpCode::Data(Data::Text), true);
                self.send_raw_frame(Message::Frame(bad)).await;
                self.figures.reconnects.fetch_add(1, Ordering::Relaxed);
                self.pending.clear();
                let token = self.token.clone();
                common::reconnect(&mut self.client, self.addr, &token).await;
            }
            12 => {
                // Stop reading for a while.
                self.figures.stalls.fetch_add(1, Ordering::Relaxed);
                let ms = self.rng.gen_range(300..1500);
                tokio::time::sleep(Duration::from_millis(ms)).await;
            }
            13 if self.rng.gen_bool(0.2) => {
                // Watch every table, stop reading long enough to fall behind, then
                // catch up (resynced with snapshots) and stop watching.
                self.figures.stalls.fetch_add(1, Ordering::Relaxed);
                for t in self.all_tables.clone().iter() {
                    self.send(&ClientMsg::Watch { table_id: *t }).await;
                }
                let ms = self.rng.gen_range(3000..6000);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                let own = self.table;
                for t in self.all_tables.clone().iter().filter(|t| **t != own) {
                    self.send(&ClientMsg::Unwatch { table_id: *t }).await;
                }
            }
            _ => {
                self.send(&ClientMsg::ListTables).await;
            }
        }
    }

    /// Follows one message; panics on what must never come.
    async fn on(&mut self, msg: ServerMsg, calm: bool) {
        let table = match &msg {
            ServerMsg::Event { table_id, .. } => Some(table_id),
            ServerMsg::Snapshot { table, .. } | ServerMsg::Seats { table } => Some(&table.table_id),
            _ => None,
        };
        if table.is_some_and(|t| *t != self.table) {
            return; // a table watched in passing
        }
        self.mine.follow(&msg, Some(self.seat));
        match &msg {
            ServerMsg::Decide { .. }
            | ServerMsg::DecideDraw { .. }
            | ServerMsg::DecideRunTwice { .. } => {
                if calm {
                    self.answer_calmly(&msg).await
                } else {
                    self.decide(&msg).await
                }
            }
            ServerMsg::Snapshot {
                decide: Some(d), ..
            } => {
                let d = (**d).clone();
                if calm {
                    self.answer_calmly(&d).await
                } else {
                    self.decide(&d).await
                }
            }
            ServerMsg::Error { code, message } => {
                assert!(
                    !matches!(code, ErrorCode::Internal | ErrorCode::Unauthenticated),
                    "{}: {code:?}: {message}",
                    self.client.name
                );
            }
            ServerMsg::Done {
                request, pending, ..
            } => {
                if *pending {
                    self.pending.insert(request.clone());
                } else {
                    self.pending.remove(request);
                    // Coming back in cancels a sit-out still waiting for the hand's end.
                    if request == "sit_in" {
                        self.pending.remove("sit_out");
                    }
                }
            }
            ServerMsg::TableFailed { message, .. } => panic!("a table failed: {message}"),
            _ => {}
        }
        if let ServerMsg::Snapshot { table, hand, .. } = &msg {
            // A snapshot stands in for what the connection missed: a sit-out it shows
            // taken is settled when no hand is in progress, or when the hand in progress
            // is one the player was not dealt (the hand the sit-out waited for has
            // ended). A reader resynced after falling behind is sent the final `done`
            // with its snapshot; a connection that follows the table only from its
            // sit-out on (it signed in while a sit was under way) may subscribe after the
            // hand's end, and have only the snapshot.
            let me = self.client.player_id;
            let mine = table
                .seats
                .iter()
                .find(|s| Some(&s.player_id) == me.as_ref());
            let out = match (mine, hand) {
                (None, _) => true,
                (Some(s), None) => s.sitting_out,
                (Some(s), Some(h)) => s.sitting_out && !h.seats.contains(&s.seat),
            };
            if out {
                self.pending.remove("sit_out");
            }
        }
        if let ServerMsg::Snapshot { table, .. } | ServerMsg::Seats { table } = &msg {
            let me = self.client.player_id;
            let seat = table
                .seats
                .iter()
                .find(|s| Some(&s.player_id) == me.as_ref());
            self.seated = seat.is_some();
            if let Some(s) = seat {
                if s.stack == 0 && s.pending_top_up == 0 && !s.leaving {
                    let amount = self.max_buy_in / 2;
                    self.send(&ClientMsg::TopUp {
                        table_id: self.table,
                        amount,
                    })
                    .await;
                }
            }
        }
    }

    async fn answer_calmly(&mut self, msg: &ServerMsg) {
        let (id, action) = match msg {
            ServerMsg::Decide {
                decision_id, legal, ..
            } => (
                *decision_id,
                if legal.bring_in.is_some() {
                    Action::BringIn
                } else {
                    common::check_or_call(legal)
                },
            ),
            ServerMsg::DecideDraw { decision_id, .. } => (
                *decision_id,
                Action::Draw {
                    discards: Cards::new(),
                },
            ),
            ServerMsg::DecideRunTwice { decision_id, .. } => {
                (*decision_id, Action::RunItTwice { agree: false })
            }
            _ => return,
        };
        self.send(&act(&self.table.to_string(), id, action)).await;
    }

    /// Plays with chaos until `until`, then calmly: sits in, answers everything, and
    /// waits for its pending requests to complete.
    async fn run(mut self, until: Instant, settle: Instant) -> Bot {
        self.sit().await;
        while Instant::now() < until {
            if self.rng.gen_bool(0.02) {
                self.chaos().await;
            }
            if let Some(msg) = self.client.try_recv(Duration::from_millis(20)).await {
                self.on(msg, false).await;
            }
        }
        // Calm: everyone back in.
        if self.seated {
            self.send(&ClientMsg::SitIn {
                table_id: self.table,
                post_now: true,
            })
            .await;
        } else {
            let buy_in = self.max_buy_in;
            self.send(&common::sit(&self.table.to_string(), self.seat, buy_in))
                .await;
        }
        while Instant::now() < settle {
            if let Some(msg) = self.client.try_recv(Duration::from_millis(20)).await {
                self.on(msg, true).await;
            }
        }
        self
    }
}

async fn soak(db: Db) {
    let Some(guard) = DbGuard::new(db).await else {
        return;
    };
    count_panics();
    let seed: u64 = common::env_or("CHAOS_SEED", 20261124);
    let secs: u64 = common::env_or("CHAOS_SECS", 40);
    eprintln!("chaos soak on {db:?}: CHAOS_SEED={seed} CHAOS_SECS={secs}");
    let mut server = Server::start(
        &guard.url(),
        &[
            ("POKER__SERVER__MAX_FRAME_BYTES", "4096"),
            ("POKER__SERVER__SHUTDOWN_GRACE_MS", "5000"),
        ],
    )
    .await;
    let clock = json!({ "action_ms": 400, "warning_ms": 200, "time_bank_ms": 300,
                        "max_timeouts": 3, "between_hands_ms": 0 });
    let figures = Arc::new(Figures::default());
    let mut bots = Vec::new();
    let mut table_ids = Vec::new();
    let mut games = HashMap::new();
    let mut deposited = 0u64;
    let mut rng = SmallRng::seed_from_u64(seed);
    for (n, (name, mut rules, players)) in common::games::tables().into_iter().enumerate() {
        // Straddles where players may choose them (the kill's table too), and the rabbit
        // hunt everywhere.
        if name == "PL hold'em" || name == "FL hold'em, kill" {
            rules["straddle"] = json!(true);
        }
        let (status, t) = server
            .post(
                "/admin/tables",
                json!({ "name": name, "rules": rules, "clock": clock, "rabbit_hunt": true }),
            )
            .await;
        assert_eq!(status, 201, "{name}: {t}");
        let table = t["table_id"].as_str().unwrap().to_string();
        games.insert(table.clone(), name);
        table_ids.push(table.clone());
        for seat in 0..players {
            let player = format!("b{n}s{seat}");
            server.player(&player, DEPOSIT).await;
            deposited += DEPOSIT;
            let token = server.login(&player).await;
            let mut client = Client::connect(server.addr, &player).await;
            client.auth(&token).await;
            bots.push(Bot {
                client,
                token,
                table: common::tid(&table),
                seat: seat as u32,
                rng: SmallRng::seed_from_u64(rng.gen()),
                mine: MyCards::default(),
                seated: false,
                max_buy_in: 200,
                pending: BTreeSet::new(),
                figures: figures.clone(),
                addr: server.addr,
                all_tables: Arc::default(),
            });
        }
    }
    let bot_count = bots.len();
    let all_tables = Arc::new(table_ids.iter().map(|t| common::tid(t)).collect::<Vec<_>>());
    for b in bots.iter_mut() {
        b.all_tables = all_tables.clone();
    }
    let start = Instant::now();
    let until = start + Duration::from_secs(secs);
    let settle = until + Duration::from_secs(8);
    let handles: Vec<_> = bots
        .into_iter()
        .map(|b| tokio::spawn(b.run(until, settle)))
        .collect();
    // The books balance at every look while the bots play.
    let mut looks = 0;
    while Instant::now() < until {
        tokio::time::sleep(Duration::from_secs(2)).await;
        let audit = server.audit().await;
        assert!(audit.holds(), "{audit:?}");
        assert_eq!(
            audit.wallets + audit.stacks + audit.rake,
            deposited as i64,
            "{audit:?}"
        );
        looks += 1;
    }
    // While everyone plays calmly, every table with two players able to play deals.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let mut dealt_before = HashMap::new();
    for t in &table_ids {
        let view = server.get_json(&format!("/admin/tables/{t}")).await;
        dealt_before.insert(t.clone(), view["hands_dealt"].as_u64().unwrap_or(0));
    }
    let mut bots = Vec::new();
    for h in handles {
        bots.push(h.await.expect("a bot kept every invariant"));
    }
    for t in &table_ids {
        let view = server.get_json(&format!("/admin/tables/{t}")).await;
        let able = view["table"]["seats"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| !s["sitting_out"].as_bool().unwrap() && s["stack"].as_u64().unwrap() > 0)
            .count();
        let dealt = view["hands_dealt"].as_u64().unwrap_or(0);
        if able >= 2 {
            assert!(
                dealt > dealt_before[t],
                "{} stopped dealing with {able} able players: {view}",
                games[t]
            );
        }
    }
    // Every pending request completed.
    for b in &bots {
        assert!(
            b.pending.is_empty(),
            "{}: still pending {:?} (seated as it last saw the table: {})",
            b.client.name,
            b.pending,
            b.seated
        );
    }
    // Everyone leaves; the idle server does not wake up.
    let mut bots: Vec<Bot> = bots;
    for b in bots.iter_mut() {
        let t = b.table;
        b.send(&ClientMsg::Leave { table_id: t }).await;
    }
    let drain_until = Instant::now() + Duration::from_secs(20);
    loop {
        let mut seated = 0;
        for t in &table_ids {
            let v = server.get_json(&format!("/admin/tables/{t}")).await;
            seated += v["table"]["seats"].as_array().map_or(0, |s| s.len());
        }
        if seated == 0 {
            break;
        }
        // Leavers in a hand wait for its end: keep answering.
        for b in bots.iter_mut() {
            while let Some(msg) = b.client.try_recv(Duration::from_millis(1)).await {
                b.on(msg, true).await;
            }
        }
        assert!(
            Instant::now() < drain_until,
            "{seated} players still seated"
        );
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let wakeups = server.metric("poker_table_wakeups_total").await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        server.metric("poker_table_wakeups_total").await,
        wakeups,
        "an idle server's tables woke up"
    );
    assert_eq!(server.metric("poker_table_failures_total").await, 0);
    let resyncs = server.metric("poker_resyncs_total").await;
    let server_messages = server.metric("poker_messages_total").await;
    let timeouts = server.metric("poker_timeouts_total").await;
    // Every finished hand is stored complete and replays to its recorded stacks.
    let store = SqlStore::connect(&server.url).await.unwrap();
    let mut hands = 0;
    let mut histories = Vec::new();
    let mut per_game: HashMap<&str, usize> = HashMap::new();
    for t in &table_ids {
        let rows = store
            .table_hands(t.parse().unwrap(), 100_000, 0)
            .await
            .unwrap();
        for row in rows.iter().filter(|r| r.status == "complete") {
            let text = row
                .phh
                .as_deref()
                .filter(|p| !p.is_empty())
                .unwrap_or_else(|| panic!("{}: hand {} has no PHH", games[t], row.number));
            let phh = poker_history::phh::PhhHand::parse(text)
                .unwrap_or_else(|e| panic!("{}: {e}\n{text}", games[t]));
            let replay = poker_history::phh::replay(&phh)
                .unwrap_or_else(|e| panic!("{}: {e}\n{text}", games[t]));
            let stacks: Vec<f64> = replay
                .hand
                .final_stacks()
                .unwrap()
                .iter()
                .map(|&s| s as f64)
                .collect();
            assert_eq!(Some(stacks), phh.finishing_stacks, "{}: {text}", games[t]);
            hands += 1;
            *per_game.entry(games[t]).or_default() += 1;
            histories.push(text.to_string());
        }
    }
    store.close().await;
    // And `pokerd replay` agrees: every stored history, written out as files.
    let dir = std::env::temp_dir().join(format!("chaos-{db:?}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (i, text) in histories.iter().enumerate() {
        std::fs::write(dir.join(format!("{i:06}.phh")), text).unwrap();
    }
    let (replayed, failed) =
        poker_server::replay::run(std::slice::from_ref(&dir), &mut std::io::sink()).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        (replayed, failed),
        (hands, 0),
        "pokerd replay of the stored hands"
    );
    // Closing every table puts every chip back in the wallets.
    for t in &table_ids {
        let (status, body) = server
            .post(&format!("/admin/tables/{t}/close"), json!({}))
            .await;
        assert_eq!(status, 200, "{body}");
    }
    let audit = server.audit().await;
    assert_eq!(audit.stacks, 0, "{audit:?}");
    common::assert_conserved(&audit, deposited as i64);
    server.stop().await;
    assert_eq!(PANICS.load(Ordering::SeqCst), 0, "a panic happened");
    let f = &figures;
    let mut by_game: Vec<_> = per_game.into_iter().collect();
    by_game.sort();
    eprintln!(
        "chaos {db:?} seed {seed}: {secs} s, {bot_count} bots at {} tables; {hands} hands \
         ({by_game:?}); {} client messages ({server_messages} counted by the server), {} invalid, \
         {} reconnects, {} leaves, {} stalls, {} decisions left to the clock ({timeouts} \
         timeouts), {resyncs} resyncs, {looks} audits during play",
        table_ids.len(),
        f.messages.load(Ordering::Relaxed),
        f.invalid.load(Ordering::Relaxed),
        f.reconnects.load(Ordering::Relaxed),
        f.leaves.load(Ordering::Relaxed),
        f.stalls.load(Ordering::Relaxed),
        f.timeouts_let.load(Ordering::Relaxed),
    );
    assert_eq!(
        by_game.len(),
        table_ids.len(),
        "every table played: {by_game:?}"
    );
}

crate::on_both_dbs!(soak: chaos_soak_on_sqlite, chaos_soak_on_postgres);
