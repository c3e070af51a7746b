//! The answer to a request from another node never overtakes what the request made for
//! that node's connection. An action's answer says only that it was taken: the client is
//! answered by the action's event. Were the answer to reach the player's node first and
//! the owner then die (or NATS go down) before the event left it, the player would wait
//! for the table's next owner, seconds later, with nothing owed to them meanwhile (the
//! cluster soak's "4448 ms: act of soak11 on n1", just before a NATS restart).

use super::common;
use super::harness::cluster_of;
use common::{act, assert_conserved, nl_rules, simple_action, sit, Client};
use futures_util::StreamExt;
use poker_protocol::ServerMsg;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const DEPOSIT: u64 = 1000;
/// Actions of the player on the other node checked.
const ACTS: usize = 24;

/// The frames of a batch as the owner sends it to an inbox: per frame, 1 if it is the
/// subscriber's own, its length (4 bytes, little-endian) and its JSON text.
fn frames(mut payload: &[u8]) -> Vec<Value> {
    let mut out = Vec::new();
    while payload.len() >= 5 {
        let len = u32::from_le_bytes(payload[1..5].try_into().unwrap()) as usize;
        out.push(serde_json::from_slice(&payload[5..5 + len]).unwrap());
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

/// A player's bot: answers each decision with a call or a check until `stop`.
fn plays(mut client: Client, table: String, stop: Arc<AtomicBool>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        while !stop.load(Ordering::SeqCst) {
            if let Some(ServerMsg::Decide {
                decision_id, legal, ..
            }) = client.try_recv(Duration::from_millis(100)).await
            {
                client
                    .send(&act(&table, decision_id, simple_action(&legal, false)))
                    .await;
            }
        }
    })
}

/// Ann, connected to `n1`, plays at a table `n2` owns against Bob, connected to `n2`:
/// her actions go to `n2` as NATS requests, their events come back to her connection's
/// inbox. A NATS client that hears every subject on one subscription (so in the order
/// the NATS server delivers them) finds each answer to her actions after the action's
/// event: had `n2` died between the two, `n1` would have its answer already.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_the_answer_to_an_action_from_another_node_comes_after_the_actions_event() {
    let Some((backing, nodes)) = cluster_of(Instant::now(), 2).await else {
        return;
    };
    let nats_url = &backing.nats_url;
    let [n1, n2]: [_; 2] = nodes.try_into().ok().unwrap();
    let ann_id = n2.server.player("ann", DEPOSIT).await;
    n2.server.player("bob", DEPOSIT).await;
    let clock = json!({ "action_ms": 20000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    let table = n2.server.table_with(nl_rules(), clock).await;

    let observer = async_nats::connect(&nats_url).await.unwrap();
    let mut everything = observer.subscribe(">").await.unwrap();
    observer.flush().await.unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let mut ann = n1.server.client("ann").await;
    ann.send(&sit(&table, 0, 200)).await;
    let mut bob = n2.server.client("bob").await;
    bob.send(&sit(&table, 1, 200)).await;
    let players = [
        plays(ann, table.clone(), stop.clone()),
        plays(bob, table.clone(), stop.clone()),
    ];

    // Ann's actions asked of n2, by decision (a request sent again, its first try having
    // reached nobody, is the same action), each answer's subject with its decision, and
    // the events of her actions heard: the answer taking her k-th action must find k
    // events heard. (Her next decision, and so her next action, may come before the last
    // answer: only its own event must not.) A refusal takes nothing and is only counted.
    let table_subject = format!("pokerd.table.{table}");
    let mut decisions: Vec<u64> = Vec::new();
    let mut asked: BTreeMap<String, u64> = BTreeMap::new();
    let mut events = 0;
    let mut answered = 0;
    let mut refused = Vec::new();
    let mut with_inbox = 0;
    let mut sent = 0;
    let mut overtaken = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(90);
    while answered < ACTS {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(
            !left.is_zero(),
            "{answered} of ann's {ACTS} actions taken within 90 s (refused: {refused:?})"
        );
        let Ok(Some(message)) = tokio::time::timeout(left, everything.next()).await else {
            panic!("the observer's subscription stopped ({answered} answered)");
        };
        let subject = message.subject.as_str();
        if subject == table_subject {
            let envelope: Value = serde_json::from_slice(&message.payload).unwrap();
            let action = &envelope["request"]["Act"];
            if action["player"] == json!(ann_id) {
                sent += 1;
                if envelope["inbox"].is_string() {
                    with_inbox += 1;
                }
                let decision = action["decision_id"].as_u64().unwrap();
                if !decisions.contains(&decision) {
                    decisions.push(decision);
                }
                let reply = message.reply.expect("a request has a reply subject");
                asked.insert(reply.to_string(), decision);
            }
        } else if subject.starts_with("pokerd.inbox.n1.") {
            for frame in frames(&message.payload) {
                if action_at(&frame, 0) {
                    events += 1;
                    assert!(
                        events <= decisions.len(),
                        "an action of ann's that n1 did not ask: {frame}"
                    );
                }
            }
        } else if let Some(decision) = asked.remove(subject) {
            let answer: Value = serde_json::from_slice(&message.payload).unwrap();
            if answer != json!({ "Ok": "Ok" }) {
                // No event comes of it.
                decisions.retain(|d| *d != decision);
                refused.push(answer);
                continue;
            }
            let number = decisions.iter().position(|d| *d == decision).unwrap() + 1;
            if events < number {
                overtaken.push(number);
            }
            answered += 1;
        }
    }
    stop.store(true, Ordering::SeqCst);
    for player in players {
        let _ = player.await;
    }
    assert!(
        overtaken.is_empty(),
        "{} answers of ann's {ACTS} actions reached n1 before the action's event (the \
         actions' numbers: {overtaken:?}; refused: {refused:?})",
        overtaken.len()
    );
    assert_eq!(
        with_inbox, sent,
        "each action went with its connection's inbox (the owner orders its answer after \
         what it published there)"
    );
    assert_conserved(&n2.server.audit().await, (2 * DEPOSIT) as i64);
}
