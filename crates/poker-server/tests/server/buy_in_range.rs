//! A player's own buy-in range, told before they choose (issue 26): a newcomer is told
//! the table's range; a player who left with more than the table's minimum and comes back
//! within the rathole window is told to bring at least what they left with (R26: no part
//! of a stack may be taken off the table), even above the table's maximum; a sit below it
//! is refused in the rule's words, and a sit with the range told is taken. Over real
//! WebSockets against a SQLite file; the books balance.

use crate::common;

use common::{act, nl_rules, sit, tid, Client, Db, DbGuard, Server};
use poker_protocol::{BuyInRange, ClientMsg, ErrorCode, ServerMsg};
use poker_rules::Action;

const CLOCK: &str =
    r#"{ "action_ms": 5000, "warning_ms": 0, "time_bank_ms": 0, "between_hands_ms": 0 }"#;

async fn ask(c: &mut Client, table: &str) -> BuyInRange {
    c.send(&ClientMsg::BuyInRange {
        table_id: tid(table),
    })
    .await;
    c.until(|m| match m {
        ServerMsg::BuyInRange { table_id, range } if *table_id == tid(table) => Some(range.clone()),
        _ => None,
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r26_a_player_back_within_the_rathole_window_is_told_their_range_before_sitting_and_sits_with_it(
) {
    back_within_the_window(Db::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r26_a_player_back_within_the_rathole_window_is_told_their_range_before_sitting_and_sits_with_it_on_postgres(
) {
    back_within_the_window(Db::Postgres).await;
}

/// Two players shove until one has more than the table's maximum, both leave; the winner
/// back at once is told (and held to) the rathole range, also after pokerd restarts.
async fn back_within_the_window(db: Db) {
    let Some(guard) = DbGuard::new(db).await else {
        return;
    };
    let mut server = Server::start(&guard.url(), &[]).await;
    for name in ["ann", "ben", "cat"] {
        server.player(name, 1000).await;
    }
    let table = server
        .table_with(nl_rules(), serde_json::from_str(CLOCK).unwrap())
        .await;
    let mut ann = server.client("ann").await;
    let mut ben = server.client("ben").await;

    // Before anyone has played: the table's range, no rathole note.
    let fresh = ask(&mut ann, &table).await;
    assert_eq!(
        fresh,
        BuyInRange {
            min: 40,
            max: 200,
            rathole: None
        }
    );

    // Both shove every hand until one of them has more than the maximum.
    for (c, seat) in [(&mut ann, 0), (&mut ben, 1)] {
        c.sat(&table, seat, 200).await;
    }
    // A stack above the maximum can only be seen once a hand has ended (each starts
    // with 200 at most); with both all in every hand, the other has nothing left then,
    // so no hand follows.
    let mut stacks = (0, 0);
    while stacks.0 <= 200 && stacks.1 <= 200 {
        for (i, c) in [&mut ann, &mut ben].into_iter().enumerate() {
            while let Some(m) = c.try_recv(std::time::Duration::from_millis(20)).await {
                match m {
                    ServerMsg::Decide {
                        decision_id, legal, ..
                    } => {
                        let shove = common::simple_action(&legal, true);
                        c.send(&act(&table, decision_id, shove)).await
                    }
                    ServerMsg::DecideShow { decision_id, .. } => {
                        c.send(&act(&table, decision_id, Action::Muck)).await
                    }
                    ServerMsg::DecideRunTwice { decision_id, .. } => {
                        let no = Action::RunItTwice { agree: false };
                        c.send(&act(&table, decision_id, no)).await
                    }
                    ServerMsg::Seats { table: view } if i == 0 => {
                        let stack = |seat| {
                            view.seats
                                .iter()
                                .find(|s| s.seat == seat)
                                .map_or(0, |s| s.stack)
                        };
                        stacks = (stack(0), stack(1));
                    }
                    _ => {}
                }
            }
        }
    }
    let (mut w, mut l) = if stacks.0 > 200 {
        (ann, ben)
    } else {
        (ben, ann)
    };
    // Both leave with their whole stacks.
    let mut amounts = Vec::new();
    for c in [&mut w, &mut l] {
        c.send(&ClientMsg::Leave {
            table_id: tid(&table),
        })
        .await;
        let amount = c.settled("leave").await;
        amounts.push(amount);
    }
    let (left_with, loser_left_with) = (amounts[0], amounts[1]);
    assert!(
        left_with > 200,
        "left with more than the maximum: {left_with}"
    );

    // Back at once: told to bring at least what they left with, above the table's max.
    let told = ask(&mut w, &table).await;
    assert_eq!((told.min, told.max), (left_with, left_with), "{told:?}");
    let note = told.rathole.clone().expect("the rathole rule is named");
    assert_eq!(
        (note.stack, note.window_secs),
        (left_with, 3600),
        "{note:?}"
    );
    assert!(note.left_secs_ago < 60, "{note:?}");

    // What the old dialog offered (the table's maximum) is refused, in the rule's words.
    w.send(&sit(&table, 2, 200)).await;
    let refusal = loop {
        if let ServerMsg::Error { code, message } = w.recv().await {
            break (code, message);
        }
    };
    assert_eq!(refusal.0, ErrorCode::SeatRefused);
    assert!(
        refusal.1.starts_with(&format!(
            "you left this table less than a minute ago with {left_with}: coming back within 60 minutes"
        )) && refusal.1.contains("R26"),
        "{}",
        refusal.1
    );

    // pokerd restarts: the table's new actor reads its departures from the store once,
    // and tells the same range.
    let (w_name, l_name) = (w.name.clone(), l.name.clone());
    drop((w, l));
    server.stop().await;
    server = Server::start(&guard.url(), &[]).await;
    let mut w = server.client(&w_name).await;
    let mut l = server.client(&l_name).await;
    let after = ask(&mut w, &table).await;
    assert_eq!((after.min, after.max), (left_with, left_with), "{after:?}");
    assert_eq!(
        after.rathole.as_ref().map(|n| (n.stack, n.window_secs)),
        Some((left_with, 3600)),
        "{after:?}"
    );

    // The range told is the range taken.
    w.send(&sit(&table, 2, told.min)).await;
    let bought = w.done("sit").await.0;
    assert_eq!(bought, left_with);

    // Someone who never sat here is told the table's range.
    let mut cat = server.client("cat").await;
    assert_eq!(
        ask(&mut cat, &table).await,
        BuyInRange {
            min: 40,
            max: 200,
            rathole: None
        }
    );

    // The other left with everything they had (nothing, or less than the minimum, with
    // both all in every hand): the table's range, no rathole note.
    assert!(loser_left_with <= 40, "{loser_left_with}");
    let loser_range = ask(&mut l, &table).await;
    assert_eq!(
        (loser_range.min, loser_range.max),
        (40, 200),
        "{loser_range:?}"
    );
    assert!(loser_range.rathole.is_none());

    server.finish(3000).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r26_a_player_stood_up_for_missing_the_big_blind_is_cashed_out_and_held_to_what_they_left_with(
) {
    stood_up_for_missed_blinds(Db::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r26_a_player_stood_up_for_missing_the_big_blind_is_cashed_out_and_held_to_what_they_left_with_on_postgres(
) {
    stood_up_for_missed_blinds(Db::Postgres).await;
}

/// The table stands up a player who sat out past its `max_missed_big_blinds` (here one) and
/// cashes them out between hands (`deal`): they are told their `leave` with the amount, and
/// back at once, the rathole rule holds them to what they left with, like any leave.
async fn stood_up_for_missed_blinds(db: Db) {
    let Some(guard) = DbGuard::new(db).await else {
        return;
    };
    let mut server = Server::start(&guard.url(), &[]).await;
    for name in ["ann", "ben", "cat"] {
        server.player(name, 1000).await;
    }
    let mut rules = nl_rules();
    rules["max_missed_big_blinds"] = serde_json::json!(1);
    let table = server
        .table_with(rules, serde_json::from_str(CLOCK).unwrap())
        .await;
    let mut ann = server.client("ann").await;
    let mut ben = server.client("ben").await;
    let mut cat = server.client("cat").await;
    for (c, seat) in [(&mut ann, 0), (&mut ben, 1), (&mut cat, 2)] {
        c.sat(&table, seat, 100).await;
    }

    // Everyone checks or calls; once cat has played a hand, cat sits out, and the next
    // big blind to pass cat's seat stands cat up.
    let mut sat_out = false;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let left_with = 'play: loop {
        assert!(
            std::time::Instant::now() < deadline,
            "cat was not stood up within 60 s (sat out: {sat_out})"
        );
        for (i, c) in [&mut ann, &mut ben, &mut cat].into_iter().enumerate() {
            while let Some(m) = c.try_recv(std::time::Duration::from_millis(20)).await {
                match m {
                    ServerMsg::Decide {
                        decision_id, legal, ..
                    } => {
                        let calm = common::simple_action(&legal, false);
                        c.send(&act(&table, decision_id, calm)).await
                    }
                    ServerMsg::DecideShow { decision_id, .. } => {
                        c.send(&act(&table, decision_id, Action::Muck)).await
                    }
                    ServerMsg::DecideRunTwice { decision_id, .. } => {
                        let no = Action::RunItTwice { agree: false };
                        c.send(&act(&table, decision_id, no)).await
                    }
                    ServerMsg::Event {
                        event: poker_rules::Event::HandEnded { .. },
                        ..
                    } if i == 2 && !sat_out => {
                        sat_out = true;
                        c.send(&ClientMsg::SitOut {
                            table_id: tid(&table),
                            next_big_blind: false,
                        })
                        .await;
                    }
                    ServerMsg::Done {
                        request, amount, ..
                    } if i == 2 && request == "leave" => break 'play amount,
                    _ => {}
                }
            }
        }
    };
    assert!(
        left_with > 40,
        "cat was cashed out with more than the table's minimum: {left_with}"
    );

    // Back at once: held to what the table cashed out, in the rule's words.
    let told = ask(&mut cat, &table).await;
    assert_eq!(told.min, left_with, "{told:?}");
    assert!(told.max >= left_with, "{told:?}");
    let note = told.rathole.clone().expect("the rathole rule is named");
    assert_eq!(
        (note.stack, note.window_secs),
        (left_with, 3600),
        "{note:?}"
    );
    cat.send(&sit(&table, 2, 40)).await;
    let refusal = loop {
        if let ServerMsg::Error { code, message } = cat.recv().await {
            break (code, message);
        }
    };
    assert_eq!(refusal.0, ErrorCode::SeatRefused);
    assert!(refusal.1.contains("R26"), "{}", refusal.1);
    // And sits with it.
    cat.send(&sit(&table, 2, left_with)).await;
    assert_eq!(cat.done("sit").await.0, left_with);

    drop((ann, ben, cat));
    server.finish(3000).await;
}
