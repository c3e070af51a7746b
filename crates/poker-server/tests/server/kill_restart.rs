//! The `pokerd` process killed with SIGKILL in the middle of a hand, then restarted on
//! the same database: every chip is where the last committed hand left it, the unfinished
//! hand is void, the players are seated again, and play resumes.

use crate::common;

use common::{act, assert_conserved, play, simple_action, sit, Db, DbGuard, Server};
use poker_protocol::ServerMsg;
use poker_store::{SqlStore, TableId};
use serde_json::json;
use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::time::Duration;

/// Starts `pokerd` on a free port, logging JSON; returns the process and its address.
fn pokerd(url: &str) -> (Child, std::net::SocketAddr) {
    let mut child = common::pokerd::command(url)
        .stderr(Stdio::piped())
        .spawn()
        .expect("pokerd starts");
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let addr = loop {
        let line = lines.next().expect("pokerd says where it listens").unwrap();
        let event: serde_json::Value = serde_json::from_str(&line).expect("a JSON log line");
        let message = event["fields"]["message"].as_str().unwrap_or_default();
        if let Some(rest) = message.split("listening on http://").nth(1) {
            break rest.split_whitespace().next().unwrap().parse().unwrap();
        }
    };
    // Keep draining its output so it never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines.by_ref() {});
    (child, addr)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pokerd_killed_mid_hand_restarts_with_every_chip_where_the_last_hand_left_it() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let url = guard.url();
    let (mut first, addr) = pokerd(&url);
    let server = Server::external(addr, &url);
    for _ in 0..200 {
        if reqwest::get(format!("{}/healthz", server.base))
            .await
            .is_ok()
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.player("ann", 1000).await;
    server.player("ben", 1000).await;
    let clock = json!({ "action_ms": 10000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    let table_id = server.table(clock).await;
    let mut clients = Vec::new();
    for (seat, name) in ["ann", "ben"].iter().enumerate() {
        let mut c = server.client(name).await;
        c.send(&sit(&table_id, seat as u32, 150)).await;
        clients.push(c);
    }
    // Three hands with raises, then a raise in the fourth, and the process dies.
    play(&mut clients, &table_id, 3, |_, _, legal| {
        match legal.bet_or_raise {
            Some((min, _)) if legal.call.is_none() => poker_rules::Action::BetOrRaiseTo { to: min },
            _ => simple_action(legal, false),
        }
    })
    .await;
    'fourth: loop {
        for c in clients.iter_mut() {
            if let Some(ServerMsg::Decide {
                decision_id, legal, ..
            }) = c.try_recv(Duration::from_millis(5)).await
            {
                let to = legal.bet_or_raise.unwrap().0;
                c.send(&act(
                    &table_id,
                    decision_id,
                    poker_rules::Action::BetOrRaiseTo { to },
                ))
                .await;
                // The raise is applied once the next player is asked.
                c.until(|m| matches!(m, ServerMsg::Turn { .. }).then_some(()))
                    .await;
                break 'fourth;
            }
        }
    }
    first.kill().unwrap();
    first.wait().unwrap();
    drop(clients);

    // The store as the dead process left it: the hand in progress never committed.
    let table: TableId = table_id.parse().unwrap();
    let store = SqlStore::connect(&url).await.unwrap();
    let hands = store.table_hands(table, 20, 0).await.unwrap();
    assert_eq!(hands[0].status, "started", "the fourth hand was cut off");
    let last = hands.iter().find(|h| h.status == "complete").unwrap();
    let record = last.record.clone().unwrap();
    let mut committed: Vec<(u32, u64)> = record
        .seats
        .iter()
        .zip(&record.finishing_stacks)
        .map(|(&s, &f)| (s as u32, f))
        .collect();
    committed.sort();
    let seats = store.seats(table).await.unwrap();
    let seated: Vec<(u32, u64)> = seats.iter().map(|s| (s.seat_no, s.stack)).collect();
    assert_eq!(seated, committed, "stacks are the last committed hand's");
    store.close().await;

    // Restarted: the cut-off hand is void, both are seated with those stacks, and a
    // reconnecting player gets a new hand dealt from them.
    let (mut second, addr) = pokerd(&url);
    let server = Server::external(addr, &url);
    let mut ann = server.client("ann").await;
    let starting = ann
        .until(|m| match m {
            ServerMsg::Snapshot { hand: Some(h), .. } => Some(h.clone()),
            _ => None,
        })
        .await;
    assert!(
        starting.hand_number > hands[0].number,
        "hand numbers go on after a restart"
    );
    let stacks = starting.starting_stacks.iter().copied();
    let mut restarted: Vec<(u32, u64)> = starting.seats.iter().copied().zip(stacks).collect();
    restarted.sort();
    assert_eq!(restarted, committed);
    let store = SqlStore::connect(&url).await.unwrap();
    let hands = store.table_hands(table, 20, 0).await.unwrap();
    assert!(
        hands.iter().any(|h| h.status == "void"),
        "the cut-off hand is void"
    );
    store.close().await;
    second.kill().unwrap();
    second.wait().unwrap();
    let store = SqlStore::connect(&url).await.unwrap();
    assert_conserved(&store.audit().await.unwrap(), 2000);
    store.close().await;
}
