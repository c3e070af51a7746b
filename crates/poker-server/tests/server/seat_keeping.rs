//! Seats kept for players who are away (`room.seat_keep_secs`): a player sitting out, and
//! one whose connection closed (sat out by the clock, R38), are cashed out to their
//! wallets through the ledger once away longer than the room keeps a seat, and the one
//! still connected is told; the one with no page open is told on coming back, once; the
//! player who stays keeps the seat, and the books balance.

use crate::common;

use common::scenario::{check_or_call, clock, named, Scenario};
use common::tid;
use poker_protocol::{ClientMsg, ServerMsg};
use serde_json::json;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_sitting_out_or_without_a_connection_is_released_after_the_rooms_keep() {
    // One timeout sits a player out (R38), so a closed page stops being dealt in.
    let mut table_clock = clock(1_000, 300);
    table_clock["max_timeouts"] = json!(1);
    let (mut server, table, clients) = Scenario::table(table_clock)
        .settings(&[("POKER__ROOM__SEAT_KEEP_SECS", "2")])
        .seated(&["ann", "ben", "cat"], 1000, 200)
        .await;
    let [mut ann, mut ben, cat] = named(clients);
    let ids = [&ann, &ben, &cat].map(|c| c.player_id.unwrap());
    let [ann_id, ben_id, cat_id] = ids;
    ann.send(&ClientMsg::SitOut {
        table_id: tid(&table),
        next_big_blind: false,
    })
    .await;
    drop(cat);
    // Ben plays on (alone, nothing is dealt); Ann is told when her seat goes.
    let mut told = None;
    let mut gone = false;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while told.is_none() || !gone {
        assert!(
            tokio::time::Instant::now() < deadline,
            "not released: told {told:?}, gone {gone}"
        );
        if let Some(msg) = ben.try_recv(Duration::from_millis(20)).await {
            match msg {
                ServerMsg::Decide {
                    decision_id, legal, ..
                } => {
                    let action = check_or_call(&legal);
                    ben.send(&common::act(&table, decision_id, action)).await;
                }
                ServerMsg::Seats { table: view } => {
                    let seated: Vec<_> = view.seats.iter().map(|s| s.player_id).collect();
                    gone = seated == [ben_id];
                }
                _ => {}
            }
        }
        if let Some(ServerMsg::SeatReleased {
            away_secs, amount, ..
        }) = ann.try_recv(Duration::from_millis(20)).await
        {
            told = Some((away_secs, amount));
        }
    }
    let (away_secs, amount) = told.unwrap();
    assert!(away_secs >= 2, "kept for the room's time: {away_secs}");
    // Back in the wallets, through the ledger: Ann's and Cat's whole stacks.
    for (name, cashed) in [("ann", Some(amount)), ("cat", None)] {
        let id = if name == "ann" { ann_id } else { cat_id };
        let player = server.get_json(&format!("/admin/players/{id}")).await;
        let balance = player["balance"].as_i64().unwrap();
        let seats = player["seats"].as_array().unwrap();
        assert!(seats.is_empty(), "{name} holds no seat: {player}");
        if let Some(cashed) = cashed {
            assert_eq!(balance, 1000 - 200 + cashed as i64, "{name}");
        } else {
            assert!(balance >= 800, "{name}'s stack came back: {balance}");
        }
    }
    // Cat had no page open: she is told when she comes back (after the welcome), by the
    // table's name, and only once.
    let mut back = server.client("cat").await;
    let (table_id, away_secs, amount, table_name) = back
        .until(|m| match m {
            ServerMsg::SeatReleased {
                table_id,
                away_secs,
                amount,
                table_name,
            } => Some((*table_id, *away_secs, *amount, table_name.clone())),
            _ => None,
        })
        .await;
    assert_eq!(table_id, tid(&table));
    assert!(away_secs >= 2 && amount > 0, "{away_secs} {amount}");
    assert!(table_name.is_some_and(|n| !n.is_empty()));
    let cat_balance = server.get_json(&format!("/admin/players/{cat_id}")).await["balance"]
        .as_i64()
        .unwrap();
    assert_eq!(
        cat_balance,
        800 + amount as i64,
        "the word says what came back"
    );
    drop(back);
    let mut again = server.client("cat").await;
    while let Some(m) = again.try_recv(Duration::from_millis(300)).await {
        assert!(
            !matches!(m, ServerMsg::SeatReleased { .. }),
            "told once: {m:?}"
        );
    }
    server.finish(3000).await;
}
