//! A play-money room that deals all night (issue 26): the real server on a SQLite file,
//! its preset tables and its house bots, run through hours of history in compressed time
//! (`room.clock_scale`: the rathole window of an hour passes in seconds). Regulars come
//! and go at every table, shoving often, so the bots that join them win and leave with
//! more than the table's maximum, come back within the rathole window, bust and have
//! their wallets reloaded. Then a newcomer sits alone at every preset table in turn, over
//! a real WebSocket, and must be dealt in: a house bot that the rathole rule holds back
//! gives way to one that may sit. The time from the newcomer's seat to their first hand
//! is printed (the issue asks for 5 s; the test only fails past a generous deadline), and
//! the books hold exactly the play money granted.

use crate::common;

use common::{act, assert_conserved, tid, Client, Db, DbGuard, Server};
use poker_protocol::{BuyInRange, ClientMsg, ErrorCode, ServerMsg, TableView};
use poker_rules::{Action, Event, LegalActions};
use poker_store::SqlStore;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Room seconds per real second: the presets' hour-long rathole window lasts 60 s, longer
/// than the deadline, so a bot the rule holds back stays held back while a newcomer waits.
const SCALE: u64 = 60;
/// How long the history runs, in real time (two hours of the room).
const HISTORY: Duration = Duration::from_secs(120);
/// How much longer it may run, 20 s at a time, until the ledger holds what the test looks
/// for (a bot that left with more than the maximum, one back within the window, one that
/// busted and had its wallet reloaded: 5 busts and no reload once in 120 s): the
/// cards decide when a bot first wins that much, and a loaded machine deals fewer hands
/// in the same time (245 hands in one run that ended without it; 263 hands in 220 s and no
/// bot above the maximum in another, on a 2-core machine running the suite beside it).
const HISTORY_MORE: Duration = Duration::from_secs(220);
/// The acceptance figure of the issue, printed beside each measure.
const ISSUE_SECS: f64 = 5.0;
/// The test fails only past this: four times the issue's figure (a loaded machine is
/// slow), and shorter than the rathole window (a house that offers a bot the rule refuses
/// is still refused then).
const DEADLINE: Duration = Duration::from_secs(20);

const SETTINGS: &[(&str, &str)] = &[
    ("POKER__ROOM__MONEY", "play"),
    // A small grant: a bot's wallet covers about one buy-in, so losing one means a reload.
    ("POKER__ROOM__PLAY_GRANT", "150"),
    ("POKER__ROOM__CLOCK_SCALE", "60"),
    ("POKER__BOTS__FILL_TO", "3"),
    ("POKER__BOTS__THINK_MS", "0"),
    // Twelve people register from 127.0.0.1.
    ("POKER__SERVER__REGISTER_PER_ADDRESS", "100"),
];

/// A preset table: id, name, maximum buy-in.
#[derive(Clone, Debug)]
struct Preset {
    id: String,
    name: String,
    max_buy_in: u64,
}

async fn presets(server: &Server) -> Vec<Preset> {
    let tables = server.get_json("/admin/tables").await;
    tables
        .as_array()
        .expect("a list")
        .iter()
        .map(|t| {
            let id = t["table_id"].as_str().unwrap().to_string();
            Preset {
                name: t["name"].as_str().unwrap().to_string(),
                max_buy_in: t["rules"]["max_buy_in"]
                    .as_u64()
                    .expect("the table's maximum buy-in"),
                id,
            }
        })
        .collect()
}

async fn reload(server: &Server, token: &str) {
    let how = common::Req {
        token: Some(token),
        ..Default::default()
    };
    let answer = server.send("POST", "/api/me/reload", how).await;
    assert_eq!(answer.status, 200);
}

async fn balance(server: &Server, token: &str) -> u64 {
    let me = server.get_as(token, "/api/me").await.body;
    me["balance"].as_u64().unwrap()
}

/// Asks the server what this player may bring to a table (what the buy-in dialog shows).
async fn ask_range(c: &mut Client, table: &str) -> BuyInRange {
    c.send(&ClientMsg::BuyInRange {
        table_id: tid(table),
    })
    .await;
    c.until(|m| match m {
        ServerMsg::BuyInRange { range, .. } => Some(range.clone()),
        _ => None,
    })
    .await
}

/// Watches a table and takes a free seat for the most the player's range and wallet
/// allow; reloads the wallet first when it is short. Returns the seat, or `None` when
/// the table has no free seat now or the wallet cannot cover the rathole rule's minimum.
/// A seat a bot took meanwhile is looked for again.
async fn take_seat(server: &Server, c: &mut Client, token: &str, table: &str) -> Option<u32> {
    for _ in 0..5 {
        c.send(&ClientMsg::Watch {
            table_id: tid(table),
        })
        .await;
        let view: TableView = c
            .until(|m| match m {
                ServerMsg::Snapshot { table: t, .. } if t.table_id == tid(table) => Some(t.clone()),
                _ => None,
            })
            .await;
        let taken: Vec<u32> = view.seats.iter().map(|s| s.seat).collect();
        let seat = (0..view.seat_count).find(|s| !taken.contains(s))?;
        let range = ask_range(c, table).await;
        if balance(server, token).await < range.min {
            reload(server, token).await;
        }
        let wallet = balance(server, token).await;
        if wallet < range.min {
            // Back within the window after losing elsewhere what was won here: as a
            // person would, the regular tries another table.
            return None;
        }
        c.send(&common::sit(table, seat, range.max.min(wallet)))
            .await;
        // The range the server told is the range it seats with: any refusal but a seat
        // taken meanwhile fails the test.
        loop {
            match c.recv().await {
                ServerMsg::Done { request, .. } if request == "sit" => return Some(seat),
                ServerMsg::Error { code, message }
                    if code == ErrorCode::SeatRefused && message.contains("taken") =>
                {
                    break
                }
                ServerMsg::Error { code, message } => {
                    panic!(
                        "{}: a sit within {range:?} was refused: {code:?}: {message}",
                        c.name
                    )
                }
                _ => {}
            }
        }
    }
    None
}

/// What one regular does at a table: plays until it has seen `hands` hands end, then
/// leaves.
struct Regular {
    client: Client,
    token: String,
    table: Option<String>,
    hands: u32,
    leaving: bool,
}

/// What the regulars saw.
#[derive(Debug, Default)]
struct Seen {
    /// Hands that ended at a regular's table.
    hands: u64,
}

/// An answer for a regular: shoves two times in five (so stacks swing), else calls or
/// checks.
fn regular_action(rng: &mut rand::rngs::StdRng, legal: &LegalActions) -> Action {
    if rng.gen_bool(0.4) {
        if let Some((_, max)) = legal.bet_or_raise {
            return Action::BetOrRaiseTo { to: max };
        }
    }
    if legal.bring_in.is_some() {
        return Action::BringIn;
    }
    if legal.call.is_some() {
        Action::Call
    } else {
        Action::Check
    }
}

/// Drives the regulars for one message each; true when one of them got something.
async fn drive(regs: &mut [Regular], rng: &mut rand::rngs::StdRng, seen: &mut Seen) -> bool {
    let mut any = false;
    for r in regs.iter_mut() {
        let Some(table) = r.table.clone() else {
            continue;
        };
        let Some(msg) = r.client.try_recv(Duration::from_millis(5)).await else {
            continue;
        };
        any = true;
        match msg {
            ServerMsg::Decide {
                table_id,
                decision_id,
                legal,
                ..
            } if table_id == tid(&table) => {
                let action = regular_action(rng, &legal);
                r.client.send(&act(&table, decision_id, action)).await;
            }
            ServerMsg::DecideShow {
                table_id,
                decision_id,
                ..
            } if table_id == tid(&table) => {
                r.client.send(&act(&table, decision_id, Action::Muck)).await;
            }
            ServerMsg::DecideDraw {
                table_id,
                decision_id,
                ..
            } if table_id == tid(&table) => {
                let stand = Action::Draw {
                    discards: Default::default(),
                };
                r.client.send(&act(&table, decision_id, stand)).await;
            }
            ServerMsg::DecideRunTwice {
                table_id,
                decision_id,
                ..
            } if table_id == tid(&table) => {
                let yes = Action::RunItTwice { agree: true };
                r.client.send(&act(&table, decision_id, yes)).await;
            }
            ServerMsg::Seats { table: view } if view.table_id == tid(&table) => {
                let me = r.client.player_id;
                let mine = view.seats.iter().find(|s| Some(s.player_id) == me);
                if mine.is_some_and(|s| s.stack == 0 && !s.leaving) && !r.leaving {
                    // Busted: leave (and come back with a reloaded wallet).
                    r.leaving = true;
                    r.client.leave(&table).await;
                }
            }
            ServerMsg::Event {
                table_id,
                event: Event::HandEnded { .. },
                ..
            } if table_id == tid(&table) => {
                seen.hands += 1;
                r.hands = r.hands.saturating_sub(1);
                if r.hands == 0 && !r.leaving {
                    r.leaving = true;
                    r.client.leave(&table).await;
                }
            }
            ServerMsg::Done {
                request, pending, ..
            } if request == "leave" && !pending => {
                r.table = None;
                r.leaving = false;
            }
            // Leaving during a hand makes the hand dead: an answer already on its way
            // is refused, as the protocol says.
            ServerMsg::Error {
                code: ErrorCode::NotYourTurn | ErrorCode::StaleDecision,
                ..
            } if r.leaving => {}
            ServerMsg::Error { code, message } => {
                panic!("{}: {code:?}: {message}", r.client.name)
            }
            _ => {}
        }
    }
    any
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn house_bots_deal_a_newcomer_in_at_every_preset_table_after_hours_of_bot_history() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), SETTINGS).await;
    let tables = presets(&server).await;
    assert!(tables.len() >= 4, "the preset tables: {tables:?}");
    let mut rng = rand::rngs::StdRng::seed_from_u64(26);

    // Hours of history: four regulars, each at its own table, play a few hands and
    // leave, then move on; the bots come with them and leave with them.
    let mut regs = Vec::new();
    for i in 0..4 {
        let name = format!("regular{i}");
        let token = server.register(&name).await;
        let mut client = Client::connect(server.addr, &name).await;
        client.auth(&token).await;
        regs.push(Regular {
            client,
            token,
            table: None,
            hands: 0,
            leaving: false,
        });
    }
    let mut seen = Seen::default();
    let started = Instant::now();
    let mut until = started + HISTORY;
    let mut round = 0usize;
    loop {
        if Instant::now() >= until {
            let history = bot_history(&server, &tables).await;
            // Every kind of history asserted below: won and left, came back within the
            // window, busted and reloaded (a bot that busts late may not have sat again).
            let whole = history.left_above_max > 0
                && history.returned_within_window > 0
                && history.busts > 0
                && history.reloads > 0;
            if whole || started.elapsed() >= HISTORY + HISTORY_MORE {
                break;
            }
            until += Duration::from_secs(20);
        }
        // Everyone between tables sits down at the next one.
        for (i, r) in regs.iter_mut().enumerate() {
            if r.table.is_some() {
                continue;
            }
            let table = &tables[(i + round) % tables.len()].id;
            if take_seat(&server, &mut r.client, &r.token, table)
                .await
                .is_some()
            {
                r.table = Some(table.clone());
                r.hands = rng.gen_range(2..=5);
            }
        }
        round += 1;
        let idle_since = Instant::now();
        while regs.iter().all(|r| r.table.is_some()) && Instant::now() < until {
            if drive(&mut regs, &mut rng, &mut seen).await {
                continue;
            }
            assert!(
                idle_since.elapsed() < Duration::from_secs(120),
                "the regulars' tables stalled: {seen:?}"
            );
        }
    }
    // Everyone leaves; the bots follow.
    for r in regs.iter_mut().filter(|r| r.table.is_some() && !r.leaving) {
        let table = r.table.clone().unwrap();
        r.leaving = true;
        r.client
            .send(&ClientMsg::Leave {
                table_id: tid(&table),
            })
            .await;
    }
    let leaving = Instant::now();
    while regs.iter().any(|r| r.table.is_some()) {
        drive(&mut regs, &mut rng, &mut seen).await;
        assert!(
            leaving.elapsed() < Duration::from_secs(60),
            "the regulars left"
        );
    }
    let room_hours = started.elapsed().as_secs_f64() * SCALE as f64 / 3600.0;
    println!(
        "history: {:.1} room hours in {:.0} s, {} hands at the regulars' tables",
        room_hours,
        started.elapsed().as_secs_f64(),
        seen.hands
    );

    // What the bots went through, from the ledger: left with more than the maximum,
    // came back within the rathole window, had their wallets reloaded.
    let history = bot_history(&server, &tables).await;
    println!("bots: {history:?}");
    assert!(
        history.left_above_max > 0 && history.returned_within_window > 0,
        "the history has bots that won and left and came back within the window: {history:?}"
    );
    assert!(
        history.busts > 0 && history.reloads > 0,
        "bots busted and their wallets were reloaded: {history:?}"
    );

    // A newcomer alone at every preset table, twice around: dealt in every time.
    let mut times = Vec::new();
    for pass in 0..2 {
        for (i, t) in tables.iter().enumerate() {
            let name = format!("newcomer{pass}{i}");
            let token = server.register(&name).await;
            let mut c = Client::connect(server.addr, &name).await;
            c.auth(&token).await;
            let seat = take_seat(&server, &mut c, &token, &t.id)
                .await
                .expect("a free seat at an empty table");
            let sat = Instant::now();
            let dealt = first_hand(&mut c, &t.id, seat).await;
            let secs = sat.elapsed().as_secs_f64();
            assert!(
                dealt,
                "{name} alone at {} was not dealt in within {DEADLINE:?}",
                t.name
            );
            println!(
                "newcomer at {} (pass {}): first hand after {secs:.2} s (the issue asks {ISSUE_SECS} s)",
                t.name,
                pass + 1
            );
            times.push(secs);
            // One hand with the bots, then home.
            play_out_and_leave(&mut c, &t.id).await;
        }
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "newcomer to first hand: min {:.2} s, median {:.2} s, max {:.2} s over {} seats",
        times[0],
        times[times.len() / 2],
        times[times.len() - 1],
        times.len()
    );

    server.stop().await;
    let granted = granted(&server).await;
    let audit = server.audit().await;
    assert_conserved(&audit, granted);
    drop(guard);
}

/// Waits for the first event of a hand the player at `seat` is dealt into; false if
/// none comes before the deadline.
async fn first_hand(c: &mut Client, table: &str, seat: u32) -> bool {
    let until = Instant::now() + DEADLINE;
    while Instant::now() < until {
        match c.try_recv(Duration::from_millis(100)).await {
            Some(ServerMsg::Event {
                table_id, seats, ..
            }) if table_id == tid(table) && seats.contains(&seat) => return true,
            Some(ServerMsg::Error { code, message }) => panic!("{code:?}: {message}"),
            _ => {}
        }
    }
    false
}

/// Answers until the hand in progress ends, then leaves and waits for the cash-out.
async fn play_out_and_leave(c: &mut Client, table: &str) {
    let mut asked = false;
    loop {
        match c.recv().await {
            ServerMsg::Decide {
                decision_id, legal, ..
            } => {
                let a = if legal.check {
                    Action::Check
                } else if legal.bring_in.is_some() {
                    Action::BringIn
                } else {
                    Action::Fold
                };
                c.send(&act(table, decision_id, a)).await;
            }
            ServerMsg::DecideShow { decision_id, .. } => {
                c.send(&act(table, decision_id, Action::Muck)).await
            }
            ServerMsg::DecideDraw { decision_id, .. } => {
                let stand = Action::Draw {
                    discards: Default::default(),
                };
                c.send(&act(table, decision_id, stand)).await
            }
            ServerMsg::DecideRunTwice { decision_id, .. } => {
                let no = Action::RunItTwice { agree: false };
                c.send(&act(table, decision_id, no)).await
            }
            ServerMsg::Event {
                event: Event::HandEnded { .. },
                ..
            } if !asked => {
                asked = true;
                c.send(&ClientMsg::Leave {
                    table_id: tid(table),
                })
                .await;
            }
            ServerMsg::Done {
                request, pending, ..
            } if request == "leave" && !pending => return,
            _ => {}
        }
    }
}

/// What the ledger says the bots did.
#[derive(Debug, Default)]
struct BotHistory {
    bots: usize,
    buy_ins: usize,
    /// Cash-outs of more than the table's maximum buy-in.
    left_above_max: usize,
    /// Buy-ins at a table the bot had left less than an hour of room time before.
    returned_within_window: usize,
    /// Seats a bot lost every chip of (bought into and never cashed out of).
    busts: usize,
    /// Reloads of a bot's wallet after it had played (a new bot's first is not counted).
    reloads: usize,
}

async fn bot_history(server: &Server, tables: &[Preset]) -> BotHistory {
    let store = SqlStore::connect(&server.url).await.unwrap();
    let max: HashMap<String, u64> = tables
        .iter()
        .map(|t| (t.id.clone(), t.max_buy_in))
        .collect();
    let mut h = BotHistory::default();
    for bot in store
        .players()
        .await
        .unwrap()
        .into_iter()
        .filter(poker_server::house::is_bot)
    {
        h.bots += 1;
        let mut entries = store.ledger(bot.player_id, 100_000).await.unwrap();
        entries.reverse();
        // Per table: when the bot last left it (real ms), and whether it sits there.
        let mut left: HashMap<String, i64> = HashMap::new();
        let mut sitting: HashMap<String, bool> = HashMap::new();
        for e in entries {
            let reload = e
                .reference
                .as_deref()
                .is_some_and(|r| r.starts_with("reload:"));
            if e.kind == "deposit" && reload && e.amount > 0 && !sitting.is_empty() {
                h.reloads += 1;
            }
            let Some(table) = e
                .account
                .strip_prefix("seat:")
                .and_then(|rest| rest.split(':').next())
                .map(str::to_string)
            else {
                continue;
            };
            match e.kind.as_str() {
                "buy_in" => {
                    h.buy_ins += 1;
                    // Bought in again without a cash-out: the last seat was lost.
                    if sitting.insert(table.clone(), true) == Some(true) {
                        h.busts += 1;
                    }
                    if let Some(at) = left.get(&table) {
                        let room_secs = (e.created_at - at) as u64 * SCALE / 1000;
                        if room_secs < 3600 {
                            h.returned_within_window += 1;
                        }
                    }
                }
                "cash_out" => {
                    sitting.insert(table.clone(), false);
                    left.insert(table.clone(), e.created_at);
                    if (-e.amount) as u64 > max.get(&table).copied().unwrap_or(u64::MAX) {
                        h.left_above_max += 1;
                    }
                }
                _ => {}
            }
        }
        // Everyone has left: a seat never cashed out of was lost.
        h.busts += sitting.values().filter(|s| **s).count();
    }
    store.close().await;
    h
}

/// Every chip granted or reloaded into a wallet, from the ledger.
async fn granted(server: &Server) -> i64 {
    let store = SqlStore::connect(&server.url).await.unwrap();
    let mut total = 0;
    for p in store.players().await.unwrap() {
        let entries = store.ledger(p.player_id, 100_000).await.unwrap();
        total += entries
            .iter()
            .filter(|e| e.kind == "deposit" && e.account.starts_with("wallet:"))
            .map(|e| e.amount)
            .sum::<i64>();
    }
    store.close().await;
    total
}
