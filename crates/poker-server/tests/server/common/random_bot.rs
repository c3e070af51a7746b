//! Bots that play random legal actions at a table over the real WebSocket, for the tests
//! that run many hands of every game through the server and read their histories back
//! with independent readers (pokerkit, pokerdf).

use super::{act, sit, tid, Client, MyCards, Server};
use poker_protocol::{ClientMsg, ErrorCode, ServerMsg};
use poker_rules::{Action, Cards, Event, LegalActions};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A random legal answer to a betting decision.
pub fn choose(rng: &mut SmallRng, legal: &LegalActions) -> Action {
    if legal.bring_in.is_some() && rng.gen_bool(0.6) {
        return Action::BringIn;
    }
    let roll: f64 = rng.gen();
    if let Some((min, max)) = legal.bet_or_raise {
        if roll < 0.05 {
            return Action::BetOrRaiseTo { to: max };
        }
        if roll < 0.3 {
            let unit = legal.unit.max(1);
            let steps = (max - min) / unit;
            let to = min + unit * rng.gen_range(0..=steps.min(4));
            return Action::BetOrRaiseTo { to };
        }
    }
    if legal.call.is_some() {
        if roll > 0.88 {
            Action::Fold
        } else {
            Action::Call
        }
    } else if legal.check {
        Action::Check
    } else {
        Action::BringIn
    }
}

/// One bot: answers everything at its table until told to stop (random legal bets,
/// draws and run-it-twice answers), tops up `top_up` when bust; the first bot of each
/// table counts the hands that end. An illegal action or an internal error fails the test.
pub async fn bot(
    mut client: Client,
    table: String,
    seed: u64,
    stop: Arc<AtomicBool>,
    ended: Option<Arc<AtomicUsize>>,
    top_up: u64,
) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut mine = MyCards::default();
    let mut topping_up = false;
    while !stop.load(Ordering::Relaxed) {
        let Some(msg) = client.try_recv(Duration::from_millis(20)).await else {
            continue;
        };
        mine.follow(&msg, client.seat);
        let answer = match &msg {
            ServerMsg::Decide {
                decision_id, legal, ..
            } => Some((*decision_id, choose(&mut rng, legal))),
            ServerMsg::DecideDraw { decision_id, .. } => {
                let mut discards = Cards::new();
                for &c in &mine.cards {
                    if discards.len() < 3 && rng.gen_bool(0.4) {
                        discards.push(c);
                    }
                }
                Some((*decision_id, Action::Draw { discards }))
            }
            ServerMsg::DecideRunTwice { decision_id, .. } => Some((
                *decision_id,
                Action::RunItTwice {
                    agree: rng.gen_bool(0.5),
                },
            )),
            ServerMsg::Seats { table: view } => {
                let me = client.player_id;
                let busted = view.seats.iter().any(|s| {
                    Some(&s.player_id) == me.as_ref() && s.stack == 0 && s.pending_top_up == 0
                });
                if busted && !topping_up {
                    topping_up = true;
                    client
                        .send(&ClientMsg::TopUp {
                            table_id: tid(&table),
                            amount: top_up,
                        })
                        .await;
                }
                None
            }
            ServerMsg::Done { request, .. } if request == "top_up" => {
                topping_up = false;
                None
            }
            ServerMsg::Event {
                event: Event::HandEnded { .. },
                ..
            } => {
                if let Some(ended) = &ended {
                    ended.fetch_add(1, Ordering::Relaxed);
                }
                None
            }
            ServerMsg::Error { code, message } => {
                assert!(
                    !matches!(code, ErrorCode::IllegalAction | ErrorCode::Internal),
                    "{}: {code:?}: {message}",
                    client.name
                );
                topping_up = false;
                None
            }
            _ => None,
        };
        if let Some((id, action)) = answer {
            client.send(&act(&table, id, action)).await;
        }
    }
}

/// How bots fill the tables of `play_tables`: bot `seat` of table `n` is `{prefix}{n}x{seat}`
/// with `deposit` in the wallet, sits with `buy_in(table name, seat)` and tops up `top_up`.
pub struct Seating<'a> {
    pub prefix: &'a str,
    pub deposit: u64,
    pub top_up: u64,
    pub buy_in: &'a dyn Fn(&str, usize) -> u64,
}

/// Opens each (name, rules, bots) table with `clock`, seats its bots and lets them play until
/// every table has ended `hands` hands (a table that stalls fails the test); the tables as
/// (name, rules, id), in order.
pub async fn play_tables<N: AsRef<str>>(
    server: &Server,
    tables: Vec<(N, Value, usize)>,
    clock: &Value,
    seating: Seating<'_>,
    hands: usize,
) -> Vec<(N, Value, String)> {
    let stop = Arc::new(AtomicBool::new(false));
    let mut opened = Vec::new();
    let mut tasks = Vec::new();
    for (n, (name, rules, players)) in tables.into_iter().enumerate() {
        let sent = json!({ "name": name.as_ref(), "rules": rules, "clock": clock });
        let t = server.posted("/admin/tables", sent, 201).await;
        let table = t["table_id"].as_str().unwrap().to_string();
        let ended = Arc::new(AtomicUsize::new(0));
        for seat in 0..players {
            let player = format!("{}{n}x{seat}", seating.prefix);
            server.player(&player, seating.deposit).await;
            let mut client = server.client(&player).await;
            let buy_in = (seating.buy_in)(name.as_ref(), seat);
            client.send(&sit(&table, seat as u32, buy_in)).await;
            let counter = (seat == 0).then(|| ended.clone());
            let seed = (n * 10 + seat) as u64;
            let stop = stop.clone();
            let player = bot(client, table.clone(), seed, stop, counter, seating.top_up);
            tasks.push(tokio::spawn(player));
        }
        opened.push((name, rules, table, ended));
    }
    let mut waited = 0;
    while opened
        .iter()
        .any(|(_, _, _, e)| e.load(Ordering::Relaxed) < hands)
    {
        tokio::time::sleep(Duration::from_millis(100)).await;
        waited += 1;
        assert!(waited < 3000, "tables stalled");
    }
    stop.store(true, Ordering::Relaxed);
    for t in tasks {
        t.await.unwrap();
    }
    let opened = opened.into_iter();
    opened
        .map(|(name, rules, table, _)| (name, rules, table))
        .collect()
}
