//! Show or muck (R33: losing hands may be mucked), over real WebSockets: by default a
//! beaten hand is mucked for its player; a player who turns auto-muck off is asked
//! (`decide_show`) whenever their hand is beaten at showdown, may show it (everyone sees
//! the cards) or muck it, and when the clock runs out the hand is mucked without counting
//! as a timeout (the player is never sat out for it). A show answer to a bet decision,
//! or a stale one, is refused; the books balance.

use crate::common;

use common::{act, tid, Scenario};
use poker_protocol::{ClientMsg, ServerMsg};
use poker_rules::{Action, Event};
use serde_json::json;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_beaten_hand_is_shown_or_mucked_as_its_player_chooses() {
    // A short clock so an unanswered show-or-muck runs out quickly; one timeout in a
    // row would sit a player out, if show-or-muck counted.
    let (mut server, table_id, mut clients) = Scenario::table(json!({ "action_ms": 400, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 1, "between_hands_ms": 0 }))
        .seated(&["ann", "ben"], 5000, 200)
        .await;
    let t = tid(&table_id);
    // Ben asks to be asked.
    clients[1]
        .send(&ClientMsg::AutoMuck {
            table_id: t,
            on: false,
        })
        .await;
    clients[1].done("auto_muck").await;

    let (mut shown, mut mucked_by_clock, mut ann_asked, mut refused) = (0, 0, 0, false);
    let mut hands = 0;
    let mut asked_at: Option<(u64, u64)> = None; // ben's show decision: (id, hand)
    let mut answer_show = true;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    while (shown == 0 || mucked_by_clock == 0) && tokio::time::Instant::now() < deadline {
        for i in 0..2 {
            let Some(msg) = clients[i].try_recv(Duration::from_millis(5)).await else {
                continue;
            };
            match msg {
                // Everyone checks or calls down, so hands reach the showdown.
                ServerMsg::Decide {
                    decision_id, legal, ..
                } => {
                    let action = common::check_or_call(&legal);
                    clients[i].send(&act(&table_id, decision_id, action)).await;
                }
                ServerMsg::DecideShow { decision_id, .. } => {
                    assert_eq!(i, 1, "ann keeps the default: she is never asked");
                    if i == 0 {
                        ann_asked += 1;
                    }
                    if !refused {
                        // A bet action is not an answer to show-or-muck.
                        clients[1]
                            .send(&act(&table_id, decision_id, Action::Check))
                            .await;
                        refused = true;
                    }
                    if answer_show {
                        clients[1]
                            .send(&act(&table_id, decision_id, Action::Show { cards: None }))
                            .await;
                    }
                    asked_at = Some((decision_id, hands));
                }
                ServerMsg::Event { event, seats, .. } if i == 0 => match event {
                    // Ben's (seat 1) hand, in a hand where he was asked.
                    Event::Shown { player, .. }
                        if seats[player] == 1
                            && asked_at.is_some_and(|(_, h)| h == hands)
                            && answer_show =>
                    {
                        shown += 1;
                        answer_show = false;
                    }
                    Event::Mucked { player }
                        if seats[player] == 1
                            && asked_at.is_some_and(|(_, h)| h == hands)
                            && !answer_show
                            && shown > 0 =>
                    {
                        mucked_by_clock += 1;
                    }
                    Event::HandEnded { .. } => hands += 1,
                    _ => {}
                },
                ServerMsg::TimedOut { sat_out, .. } => {
                    assert!(!sat_out, "show-or-muck running out never sits a player out");
                }
                ServerMsg::Error { code, message } => {
                    // Only the deliberate wrong answer is refused.
                    assert!(refused, "unexpected {code:?}: {message}");
                }
                _ => {}
            }
        }
    }
    assert_eq!(ann_asked, 0);
    assert!(shown > 0, "ben showed a beaten hand when asked");
    assert!(
        mucked_by_clock > 0,
        "an unanswered show-or-muck mucked the hand"
    );
    // Ben is still playing: the clock's muck did not sit him out.
    let (_, inspect) = server.get(&format!("/admin/tables/{table_id}")).await;
    let inspect: serde_json::Value = serde_json::from_str(&inspect).unwrap();
    assert_eq!(
        inspect["table"]["seats"][1]["sitting_out"],
        json!(false),
        "{inspect}"
    );
    server.finish(10000).await;
}
