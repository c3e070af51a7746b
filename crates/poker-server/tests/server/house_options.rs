//! House options a player meets at the table, over real WebSockets: the live straddle
//! under the gun that each player chooses (R15), and the rabbit hunt (off unless the
//! operator turns it on). The books balance after each.

use crate::common;

use common::{act, nl_rules, tid, Client, Db, DbGuard, Server};
use poker_protocol::{ClientMsg, ErrorCode, ServerMsg};
use poker_rules::{Action, Card, Event};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::time::Duration;

const CLOCK: &str =
    r#"{ "action_ms": 5000, "warning_ms": 0, "time_bank_ms": 0, "between_hands_ms": 0 }"#;

async fn create(server: &Server, rules: Value, rabbit_hunt: bool) -> String {
    let clock: Value = serde_json::from_str(CLOCK).unwrap();
    let sent =
        json!({ "name": "Options", "rules": rules, "clock": clock, "rabbit_hunt": rabbit_hunt });
    let t = server.posted("/admin/tables", sent, 201).await;
    t["table_id"].as_str().unwrap().to_string()
}

async fn seat_all(server: &Server, table_id: &str, names: &[&str]) -> Vec<Client> {
    let mut clients = Vec::new();
    for (seat, name) in names.iter().enumerate() {
        let mut c = server.client(name).await;
        c.sat(table_id, seat as u32, 200).await;
        clients.push(c);
    }
    clients
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r15_players_who_choose_to_straddle_post_twice_the_big_blind_under_the_gun_and_act_last() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    let names = ["ann", "ben", "cat"];
    for name in names {
        server.player(name, 1000).await;
    }
    // A table without straddles refuses the wish.
    let plain = create(&server, nl_rules(), false).await;
    let mut lone = seat_all(&server, &plain, &["ann"]).await;
    lone[0]
        .send(&ClientMsg::Straddle {
            table_id: tid(&plain),
            on: true,
        })
        .await;
    lone[0].expect_error(ErrorCode::SeatRefused).await;
    lone[0]
        .send(&ClientMsg::Leave {
            table_id: tid(&plain),
        })
        .await;
    lone[0].done("leave").await;

    let mut rules = nl_rules();
    rules["straddle"] = json!(true);
    let table_id = create(&server, rules, false).await;
    let t = tid(&table_id);
    let mut clients = seat_all(&server, &table_id, &names).await;
    // Everyone straddles when under the gun, from the hand after the seat views say so.
    for c in clients.iter_mut() {
        c.send(&ClientMsg::Straddle {
            table_id: t,
            on: true,
        })
        .await;
    }
    let mut straddlers = HashSet::new();
    let mut from_hand: Option<u64> = None;
    let mut current_hand = 0;
    let mut done = 0;

    // Everyone checks or calls: each hand, the player under the gun straddles 4 (the
    // big blind is 2), the first to act is left of the straddle, and the straddler,
    // called by everyone, has the option (a check) and closes the round.
    let mut hands_seen = 0;
    let mut posts: Vec<(usize, u64)> = Vec::new();
    let mut preflop_turns: Vec<usize> = Vec::new(); // seats asked before the flop
    let mut preflop_actions: Vec<(usize, &str)> = Vec::new();
    let mut street0 = true;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while hands_seen < 4 && tokio::time::Instant::now() < deadline {
        for (i, client) in clients.iter_mut().enumerate() {
            let Some(msg) = client.try_recv(Duration::from_millis(5)).await else {
                continue;
            };
            match msg {
                ServerMsg::Done { request, .. } if request == "straddle" => done += 1,
                ServerMsg::Seats { table }
                    if i == 0
                        && from_hand.is_none()
                        && table.seats.len() == 3
                        && table.seats.iter().all(|s| s.straddle) =>
                {
                    assert!(table.straddle, "the table view says straddles are allowed");
                    from_hand = Some(current_hand + 1);
                }
                ServerMsg::Decide {
                    decision_id, legal, ..
                } => {
                    let action = common::check_or_call(&legal);
                    client.send(&act(&table_id, decision_id, action)).await;
                }
                // Whose turn it is, in client 0's ordered view of the table.
                ServerMsg::Turn {
                    hand_number, clock, ..
                } if i == 0 && hand_number == current_hand && street0 => {
                    preflop_turns.push(clock.seat as usize);
                }
                ServerMsg::Event {
                    event,
                    seats,
                    hand_number,
                    ..
                } if i == 0 => {
                    if hand_number != current_hand {
                        current_hand = hand_number;
                        posts.clear();
                        preflop_turns.clear();
                        preflop_actions.clear();
                        street0 = true;
                    }
                    match event {
                        Event::BlindPosted { player, amount } => posts.push((player, amount)),
                        Event::BoardDealt { .. } => street0 = false,
                        Event::Checked { player } if street0 => {
                            preflop_actions.push((seats[player] as usize, "check"))
                        }
                        Event::Called { player, .. } if street0 => {
                            preflop_actions.push((seats[player] as usize, "call"))
                        }
                        Event::HandEnded { .. }
                            if from_hand.is_some_and(|f| hand_number >= f) && seats.len() == 3 =>
                        {
                            hands_seen += 1;
                            let mut amounts: Vec<u64> = posts.iter().map(|p| p.1).collect();
                            amounts.sort();
                            assert_eq!(amounts, vec![1, 2, 4], "blinds and a straddle: {posts:?}");
                            let (straddler, _) = *posts.iter().find(|p| p.1 == 4).unwrap();
                            let (big, _) = *posts.iter().find(|p| p.1 == 2).unwrap();
                            assert_eq!(straddler, (big + 1) % 3, "under the gun");
                            let seat = seats[straddler] as usize;
                            straddlers.insert(seat);
                            assert_eq!(
                                preflop_turns.first().copied(),
                                Some(seats[(straddler + 1) % 3] as usize),
                                "action starts left of the straddle: {preflop_turns:?}"
                            );
                            assert_eq!(
                                preflop_actions,
                                vec![
                                    (seats[(straddler + 1) % 3] as usize, "call"),
                                    (seats[(straddler + 2) % 3] as usize, "call"),
                                    (seat, "check")
                                ],
                                "called round, the straddler has the option and closes it"
                            );
                        }
                        _ => {}
                    }
                }
                ServerMsg::Error { code, message } => panic!("{code:?}: {message}"),
                _ => {}
            }
        }
    }
    assert_eq!(done, 3, "every straddle request answered");
    assert_eq!(hands_seen, 4, "four hands played");
    assert_eq!(
        straddlers.len(),
        3,
        "the straddle went round with the button"
    );
    server.finish(3000).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rabbit_hunt_shows_the_undealt_board_only_where_the_operator_turned_it_on() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    for name in ["ann", "ben", "dan", "eve", "cat"] {
        server.player(name, 1000).await;
    }
    let mut spectator = server.client("cat").await;
    for (rabbit_hunt, names) in [(true, ["ann", "ben"]), (false, ["dan", "eve"])] {
        let table_id = create(&server, nl_rules(), rabbit_hunt).await;
        let mut clients = seat_all(&server, &table_id, &names).await;
        spectator
            .send(&ClientMsg::Watch {
                table_id: tid(&table_id),
            })
            .await;
        // Whoever acts first before the flop folds: every hand ends with no board.
        let mut ended = 0;
        let mut rabbits: Vec<(u64, Vec<Card>)> = Vec::new();
        let mut own_cards: Vec<(u64, Card)> = Vec::new();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        while ended < 6 && tokio::time::Instant::now() < deadline {
            for (i, client) in clients.iter_mut().enumerate() {
                let Some(msg) = client.try_recv(Duration::from_millis(5)).await else {
                    continue;
                };
                match msg {
                    ServerMsg::Decide { decision_id, .. } => {
                        client
                            .send(&act(&table_id, decision_id, Action::Fold))
                            .await;
                    }
                    ServerMsg::Event {
                        hand_number,
                        event: Event::HoleDealt { cards, .. },
                        ..
                    } => own_cards.extend(
                        cards
                            .iter()
                            .filter(|c| c.is_known())
                            .map(|c| (hand_number, *c)),
                    ),
                    ServerMsg::Event {
                        event: Event::HandEnded { .. },
                        ..
                    } if i == 0 => ended += 1,
                    ServerMsg::Rabbit {
                        hand_number, cards, ..
                    } if i == 0 => rabbits.push((hand_number, cards)),
                    _ => {}
                }
            }
        }
        assert!(ended >= 6, "hands were played");
        // Let the last hand's messages arrive.
        while let Some(msg) = clients[0].try_recv(Duration::from_millis(200)).await {
            if let ServerMsg::Rabbit {
                hand_number, cards, ..
            } = msg
            {
                rabbits.push((hand_number, cards));
            }
        }
        if !rabbit_hunt {
            assert!(rabbits.is_empty(), "off by default: {rabbits:?}");
        } else {
            assert!(rabbits.len() >= 6, "one rabbit per hand: {rabbits:?}");
            for (hand, cards) in &rabbits {
                assert_eq!(cards.len(), 5, "the whole board was never dealt");
                let distinct: HashSet<_> = cards.iter().collect();
                assert_eq!(distinct.len(), 5);
                for (h, c) in &own_cards {
                    assert!(
                        h != hand || !cards.contains(c),
                        "a rabbit card was in a hand"
                    );
                }
            }
            // The spectator sees it too.
            spectator
                .until(|m| matches!(m, ServerMsg::Rabbit { .. }).then_some(()))
                .await;
        }
        for c in clients.iter_mut() {
            c.send(&ClientMsg::Leave {
                table_id: tid(&table_id),
            })
            .await;
        }
    }
    server.finish(5000).await;
}
