//! The waiting list of a full table, over real WebSockets against the real server: a
//! player joins only when the table is full, learns their place, is offered the seat
//! that frees (held for them: nobody else may take it, not an outsider and not the next
//! in line), sits; the next is offered the next seat and, not taking it in time, loses
//! their place, and the table is open to anyone again. The lobby counts who waits;
//! every refusal is typed; the books balance.

use crate::common;

use common::{sit, tid, Client, Db, DbGuard, Server};
use poker_protocol::{ClientMsg, ErrorCode, ServerMsg};
use serde_json::json;

async fn place(c: &mut Client) -> (Option<u32>, u32) {
    c.until(|m| match m {
        ServerMsg::Waitlist {
            position, length, ..
        } => Some((*position, *length)),
        _ => None,
    })
    .await
}

async fn offered(c: &mut Client) -> (u32, u64) {
    c.until(|m| match m {
        ServerMsg::SeatOffered {
            seat, expires_ms, ..
        } => Some((*seat, *expires_ms)),
        _ => None,
    })
    .await
}

async fn seated(c: &mut Client) {
    c.until(|m| {
        matches!(m, ServerMsg::Done { request, pending: false, .. } if request == "sit")
            .then_some(())
    })
    .await;
}

async fn left(c: &mut Client) {
    c.until(|m| {
        matches!(m, ServerMsg::Done { request, pending: false, .. } if request == "leave")
            .then_some(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_table_seats_its_waiting_list_in_order() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    for name in ["ann", "ben", "cat", "dan", "eve"] {
        server.player(name, 500).await;
    }
    let mut rules = common::nl_rules();
    rules["seat_count"] = json!(2);
    rules["rathole_secs"] = json!(0);
    // Short hands (the clock folds for whoever does not act) and a short seat offer.
    let clock = json!({ "action_ms": 300, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0,
                        "between_hands_ms": 600000, "seat_offer_ms": 1500 });
    let table_id = server.table_with(rules, clock).await;
    let t = tid(&table_id);
    let mut ann = server.client("ann").await;
    let mut ben = server.client("ben").await;
    let mut cat = server.client("cat").await;
    let mut dan = server.client("dan").await;
    let mut eve = server.client("eve").await;

    // Not full: nobody may queue.
    cat.send(&ClientMsg::JoinWaitlist { table_id: t }).await;
    cat.expect_error(ErrorCode::SeatRefused).await;
    ann.send(&sit(&table_id, 0, 100)).await;
    seated(&mut ann).await;
    ben.send(&sit(&table_id, 1, 100)).await;
    seated(&mut ben).await;
    // Seated players do not queue.
    ann.send(&ClientMsg::JoinWaitlist { table_id: t }).await;
    ann.expect_error(ErrorCode::SeatRefused).await;

    cat.send(&ClientMsg::JoinWaitlist { table_id: t }).await;
    assert_eq!(place(&mut cat).await, (Some(1), 1));
    dan.send(&ClientMsg::JoinWaitlist { table_id: t }).await;
    assert_eq!(place(&mut dan).await, (Some(2), 2));
    // Joining twice keeps the place.
    cat.send(&ClientMsg::JoinWaitlist { table_id: t }).await;
    assert_eq!(place(&mut cat).await, (Some(1), 2));
    eve.send(&ClientMsg::ListTables).await;
    let waiting = eve
        .until(|m| match m {
            ServerMsg::Tables { tables } => Some(tables[0].waiting),
            _ => None,
        })
        .await;
    assert_eq!(waiting, 2, "the lobby counts who waits");

    // Ben leaves: his seat is offered to cat, and held for her.
    ben.send(&ClientMsg::Leave { table_id: t }).await;
    left(&mut ben).await;
    let (seat, expires_ms) = offered(&mut cat).await;
    assert_eq!((seat, expires_ms), (1, 1500));
    eve.send(&sit(&table_id, 1, 100)).await;
    eve.expect_error(ErrorCode::SeatRefused).await;
    dan.send(&sit(&table_id, 1, 100)).await;
    dan.expect_error(ErrorCode::SeatRefused).await;
    cat.send(&sit(&table_id, 1, 100)).await;
    seated(&mut cat).await;
    assert_eq!(place(&mut cat).await, (None, 1), "off the list once seated");
    assert_eq!(place(&mut dan).await, (Some(1), 1), "dan moves up");

    // Ann leaves: dan is offered her seat, does not take it in time, and loses his place.
    ann.send(&ClientMsg::Leave { table_id: t }).await;
    left(&mut ann).await;
    assert_eq!(offered(&mut dan).await.0, 0);
    assert_eq!(place(&mut dan).await, (None, 0), "the offer lapsed");
    // Now the seat is anyone's.
    eve.send(&sit(&table_id, 0, 100)).await;
    seated(&mut eve).await;
    // Leaving a list one is not on is harmless.
    dan.send(&ClientMsg::LeaveWaitlist { table_id: t }).await;
    assert_eq!(place(&mut dan).await, (None, 0));

    server.finish(2500).await;
}
