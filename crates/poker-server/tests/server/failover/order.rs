//! The answer to a request from another node never overtakes what the request made for
//! that node's connection. An action's answer says only that it was taken: the client is
//! answered by the action's event. Were the answer to reach the player's node first and
//! the owner then die (or NATS go down) before the event left it, the player would wait
//! for the table's next owner, seconds later, with nothing owed to them meanwhile (the
//! cluster soak's "4448 ms: act of soak11 on n1", just before a NATS restart).

use super::common;
use super::harness::{HEARTBEAT_MS, LEASE_MS};
use common::cluster::pokerd;
use common::nats::{nats, nats_server_binary};
use common::{assert_conserved, nl_rules, simple_action, Db, DbGuard};
use futures_util::StreamExt;
use poker_protocol::ServerMsg;
use poker_rules::Action;
use poker_server::table::Request;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const DEPOSIT: u64 = 1000;
/// The node the bare NATS client plays.
const OTHER: &str = "rx";
/// Actions of the remote player checked.
const ACTS: usize = 24;

/// The frames of a batch as the owner sends it to an inbox: per frame, 1 if it is the
/// subscriber's own, its length (4 bytes, little-endian) and its JSON text.
fn frames(mut payload: &[u8]) -> Vec<(bool, Value)> {
    let mut out = Vec::new();
    while payload.len() >= 5 {
        let own = payload[0] == 1;
        let len = u32::from_le_bytes(payload[1..5].try_into().unwrap()) as usize;
        out.push((own, serde_json::from_slice(&payload[5..5 + len]).unwrap()));
        payload = &payload[5 + len..];
    }
    out
}

/// Whether a frame is the event of an action taken at seat `seat`.
fn action_at(frame: &Value, seat: u64) -> bool {
    let event = &frame["event"];
    frame["type"] == "event"
        && ["folded", "checked", "called", "bet_to"].contains(&event["type"].as_str().unwrap_or(""))
        && event["player"]
            .as_u64()
            .and_then(|i| frame["seats"][i as usize].as_u64())
            == Some(seat)
}

/// A player of another node (a bare NATS client, whose inbox and answers come on one
/// subscription, in the order the NATS server delivers them) sits at a table of `n2` and
/// plays against a player of `n2`. Every answer to its actions comes after the action's
/// event: had the owner died between the two, the player would have its answer already.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_the_answer_to_an_action_from_another_node_comes_after_the_actions_event() {
    nats_server_binary();
    let Some(guard) = DbGuard::new(Db::Postgres).await else {
        return;
    };
    let url = guard.url();
    let (_nats, nats_url) = nats().await;
    let node = pokerd("n2", &url, &nats_url, LEASE_MS, HEARTBEAT_MS).await;
    let server = &node.server;
    let ann: poker_protocol::PlayerId = server.player("ann", DEPOSIT).await.parse().unwrap();
    server.player("bob", DEPOSIT).await;
    let clock = json!({ "action_ms": 20000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    let table = server.table_with(nl_rules(), clock).await;

    // The other node: it answers the owner's liveness pings, and hears its inbox and the
    // answers to its requests on one subscription.
    let other = async_nats::connect(&nats_url).await.unwrap();
    let mut alive = other
        .subscribe(format!("pokerd.alive.{OTHER}"))
        .await
        .unwrap();
    let answering = {
        let other = other.clone();
        tokio::spawn(async move {
            while let Some(ping) = alive.next().await {
                if let Some(reply) = ping.reply {
                    let _ = other.publish(reply, Default::default()).await;
                }
            }
        })
    };
    let inbox = format!("pokerd.inbox.{OTHER}.{}", poker_store::TableId::new());
    // One subscription for both: the answers' subjects are under the inbox's.
    let mut both = other
        .subscribe(format!("pokerd.inbox.{OTHER}.>"))
        .await
        .unwrap();
    other.flush().await.unwrap();
    let subject = format!("pokerd.table.{table}");
    let mut asked = 0u64;
    let mut ask = |request: Request| {
        asked += 1;
        let reply = format!("{inbox}.answer.{asked}");
        let envelope = json!({ "request": request, "inbox": inbox });
        let mut headers = async_nats::HeaderMap::new();
        headers.insert("Pokerd-Wire", "2");
        let other = other.clone();
        let subject = subject.clone();
        let sent = reply.clone();
        async move {
            other
                .publish_with_reply_and_headers(
                    subject,
                    sent,
                    headers,
                    serde_json::to_vec(&envelope).unwrap().into(),
                )
                .await
                .unwrap();
            reply
        }
    };

    // Ann sits at seat 0 through the other node.
    let sit = Request::Sit {
        player: ann,
        name: "ann".into(),
        seat: 0,
        buy_in: 200,
        entry: poker_rules::table::Entry::PostNow,
        address: None,
        seed_commit: None,
    };
    let sit_reply = ask(sit).await;

    // Bob, on n2 itself, calls or checks.
    let stop = Arc::new(AtomicBool::new(false));
    let mut bob = server.client("bob").await;
    bob.send(&common::sit(&table, 1, 200)).await;
    let bob_task = {
        let stop = stop.clone();
        let table = table.clone();
        tokio::spawn(async move {
            while !stop.load(Ordering::SeqCst) {
                if let Some(ServerMsg::Decide {
                    decision_id, legal, ..
                }) = bob.try_recv(Duration::from_millis(100)).await
                {
                    bob.send(&common::act(
                        &table,
                        decision_id,
                        simple_action(&legal, false),
                    ))
                    .await;
                }
            }
        })
    };

    // Ann answers each of her decisions; each answer must find her action's event come
    // before it.
    let mut sat = false;
    // Ann's actions sent (each one's reply subject and its number), and the events of her
    // actions heard: the k-th action's answer must find k events heard. (Her next
    // decision, and so her next action, may come before the last one's answer.)
    let mut pending: Vec<(String, usize)> = Vec::new();
    let mut sent = 0;
    let mut events = 0;
    let mut answered = 0;
    let mut overtaken = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(90);
    while answered < ACTS {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(
            !left.is_zero(),
            "{answered} of ann's {ACTS} actions answered within 90 s"
        );
        let Ok(Some(message)) = tokio::time::timeout(left, both.next()).await else {
            panic!("the other node's subscription stopped ({answered} answered)");
        };
        let subject = message.subject.to_string();
        if subject == sit_reply {
            let answer: Value = serde_json::from_slice(&message.payload).unwrap();
            assert_eq!(answer["Ok"]["Done"]["amount"], 200, "the sit: {answer}");
            sat = true;
            continue;
        }
        if let Some(k) = pending.iter().position(|(reply, _)| *reply == subject) {
            let answer: Value = serde_json::from_slice(&message.payload).unwrap();
            assert_eq!(answer, json!({ "Ok": "Ok" }), "an action's answer");
            let (_, number) = pending.remove(k);
            if events < number {
                overtaken.push(number);
            }
            answered += 1;
            continue;
        }
        if subject != inbox {
            continue;
        }
        for (own, frame) in frames(&message.payload) {
            if action_at(&frame, 0) {
                events += 1;
                assert!(
                    events <= sent,
                    "an action of ann's that she did not send: {frame}"
                );
            }
            if own && frame["type"] == "decide" {
                assert!(sat, "a decision before the sit's answer: {frame}");
                let action = if frame["legal"]["call"].is_null() {
                    Action::Check
                } else {
                    Action::Call
                };
                let act = Request::Act {
                    player: ann,
                    decision_id: frame["decision_id"].as_u64().unwrap(),
                    action,
                };
                sent += 1;
                pending.push((ask(act).await, sent));
            }
        }
    }
    stop.store(true, Ordering::SeqCst);
    let _ = bob_task.await;
    answering.abort();
    assert!(
        overtaken.is_empty(),
        "{} answers of ann's {ACTS} actions reached her node before the action's event (the \
         actions' numbers: {overtaken:?})",
        overtaken.len()
    );
    assert_conserved(&server.audit().await, (2 * DEPOSIT) as i64);
}
