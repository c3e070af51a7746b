//! The scenarios websocket.rs plays on SQLite and on PostgreSQL (one test for each): many
//! hands with side pots and a spectator, a player reconnecting mid-hand, the action clock
//! running out.

use super::*;
use common::{named, Scenario};

/// Ann and Ben (1,000 each) seated with 100 at a table on this clock; `None` without
/// the database.
async fn heads_up(db: Db, clock: serde_json::Value) -> Option<(Server, String, Vec<Client>)> {
    let room = Scenario::on(db)
        .table_with(common::nl_rules(), clock)
        .seated(&["ann", "ben"], 1000, 100)
        .start()
        .await?;
    Some((room.server, room.table_id, room.clients))
}

pub(super) async fn many_hands_with_side_pots(db: Db) {
    let Some(guard) = DbGuard::new(db).await else {
        return;
    };
    let mut server = Server::start(&guard.url(), &[]).await;
    for name in ["ann", "ben", "cat"] {
        server.player(name, 1000).await;
    }
    server.player("sue", 0).await;
    // Rake 5% capped at 3, so the rake is part of every conservation check.
    let mut rules = common::nl_rules();
    rules["options"] = json!({ "rake": { "basis_points": 500, "cap": 3 } });
    let table_id = server.table_with(rules, fast_clock()).await;

    let mut spectator = server.client("sue").await;
    spectator
        .send(&ClientMsg::Watch {
            table_id: tid(&table_id),
        })
        .await;
    assert!(matches!(
        spectator.recv().await,
        ServerMsg::Snapshot { hand: None, .. }
    ));
    let mut clients = vec![spectator];
    // Different stacks, so that all-ins make side pots.
    for (seat, (name, buy_in)) in [("ann", 40), ("ben", 90), ("cat", 200)].iter().enumerate() {
        let mut c = server.client(name).await;
        c.sat(&table_id, seat as u32 * 2, *buy_in).await;
        clients.push(c);
    }
    // Everyone shoves every third hand; otherwise they call down.
    let stats = play(&mut clients, &table_id, 15, |_, hand, legal| {
        simple_action(legal, hand % 3 == 1)
    })
    .await;
    assert!(
        stats.side_pots_awarded > 0,
        "side pots were played: {stats:?}"
    );
    assert!(stats.showdowns > 0, "{stats:?}");

    let lobby = server.get_json("/admin/tables").await;
    assert_eq!(lobby.as_array().unwrap().len(), 1);
    let (_, metrics) = server.get("/metrics").await;
    for line in [
        "poker_hands_total",
        "poker_actions_total",
        "poker_connections 4",
        "poker_seated_players 3",
        "poker_action_broadcast_seconds_bucket",
        "poker_persist_lag_seconds_count",
    ] {
        assert!(metrics.contains(line), "metrics lack {line}:\n{metrics}");
    }
    server.finish(3000).await;
}

pub(super) async fn reconnect_mid_hand(db: Db) {
    let Some((mut server, table_id, mut clients)) = heads_up(db, fast_clock()).await else {
        return;
    };
    // Ann drops the moment she is asked to act.
    let (hand, asked) = loop {
        let mut found = None;
        for c in clients.iter_mut() {
            if let Some(ServerMsg::Decide { decision_id, .. }) =
                c.try_recv(Duration::from_millis(5)).await
            {
                found = Some((c.name.clone(), decision_id));
            }
        }
        if let Some((name, id)) = found {
            break (name, id);
        }
    };
    let i = clients.iter().position(|c| c.name == hand).unwrap();
    let dropped = clients.remove(i);
    drop(dropped);
    // She comes back on a new connection with a new login: a welcome, then a snapshot of
    // the hand with her cards and the same decision, still hers to answer.
    let mut back = server.client(&hand).await;
    let (decide, events) = back
        .until(|m| match m {
            ServerMsg::Snapshot {
                hand: Some(h),
                decide,
                ..
            } => Some((decide.clone(), h.events.clone())),
            _ => None,
        })
        .await;
    let own_cards = events
        .iter()
        .filter(
            |e| matches!(e, Event::HoleDealt { cards, .. } if cards.iter().all(|c| c.is_known())),
        )
        .count();
    assert_eq!(own_cards, 1, "the snapshot holds her own cards only");
    let Some(ServerMsg::Decide {
        decision_id, legal, ..
    }) = decide.map(|d| *d)
    else {
        panic!("the snapshot carries her decision")
    };
    assert_eq!(decision_id, asked, "the same decision is still asked");
    back.send(&act(&table_id, decision_id, simple_action(&legal, false)))
        .await;
    clients.insert(0, back);
    play(&mut clients, &table_id, 2, |_, _, legal| {
        simple_action(legal, false)
    })
    .await;
    server.finish(2000).await;
}

pub(super) async fn clock_runs_out(db: Db) {
    let clock = json!({ "action_ms": 300, "warning_ms": 150, "time_bank_ms": 200, "max_timeouts": 2, "between_hands_ms": 0 });
    let Some((mut server, table_id, clients)) = heads_up(db, clock).await else {
        return;
    };
    let [mut ann, mut ben] = named(clients);
    // Nobody answers. Per decision: a warning to the player, the time bank, then the
    // server folds for them (preflop there is a blind to call); after two timeouts in a
    // row a player sits out, and the game stops for want of two players.
    let mut seen = Vec::new();
    let sat_out_seat = loop {
        let msg = ann.recv().await;
        match &msg {
            ServerMsg::Decide { .. } => seen.push("decide"),
            ServerMsg::ClockWarning { remaining_ms, .. } => {
                assert!(*remaining_ms <= 150);
                seen.push("warning")
            }
            ServerMsg::Turn { clock, .. } if clock.in_time_bank && clock.seat == 0 => {
                seen.push("bank")
            }
            ServerMsg::TimedOut {
                sat_out: true,
                seat,
                ..
            } => break *seat,
            ServerMsg::TimedOut { seat: 0, .. } => seen.push("timeout"),
            ServerMsg::Event {
                event: Event::Folded { player },
                seats,
                ..
            } if seats[*player] == 0 => seen.push("fold"),
            _ => {}
        }
    };
    assert!(seen.len() >= 5, "{seen:?}");
    assert_eq!(
        &seen[..5],
        &["decide", "warning", "bank", "timeout", "fold"],
        "{seen:?}"
    );
    let table = ann
        .until(|m| match m {
            ServerMsg::Seats { table } if table.seats.iter().any(|s| s.sitting_out) => {
                Some(table.clone())
            }
            _ => None,
        })
        .await;
    let out = table.seats.iter().find(|s| s.sitting_out).unwrap();
    assert_eq!(out.seat, sat_out_seat);
    // Sitting back in restarts the game.
    let back = if sat_out_seat == 0 {
        &mut ann
    } else {
        &mut ben
    };
    back.sit_in(&table_id).await;
    ann.until(|m| matches!(m, ServerMsg::Turn { .. }).then_some(()))
        .await;
    drop(ben);
    server.finish(2000).await;
}
