//! A rolling upgrade's mixed cluster (docs/operations.md, Rolling upgrades): a node of this
//! release beside a node of the previous one, which is played here by a bare NATS client
//! that says and sends exactly what that release did: its heartbeat without a version,
//! and its requests as the payloads the previous release wrote (the fixtures in
//! `tests/fixtures/wire/1/`, with this test's player, table and inbox put in), with no
//! header. A player of the old node sits down, is sent the table's messages to the old
//! node's inbox, plays a hand against a player of the new node and leaves; everything the
//! new node answers and sends has every field the previous release's own payloads had, so
//! that release reads it; the chips are conserved.

use crate::common;

use common::cluster::pokerd;
use common::nats::{nats, nats_server_binary};
use common::{assert_conserved, nl_rules, simple_action, Db, DbGuard};
use futures_util::StreamExt;
use poker_protocol::ServerMsg;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The previous release's format, whose payloads the old node sends.
const PREVIOUS: &str = "1";
const OLD_NODE: &str = "r1";
const DEPOSIT: u64 = 1000;

fn fixture_path(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/wire")
        .join(PREVIOUS)
        .join(name)
}

fn fixture(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture_path(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The frames of a batch sent to a connection's inbox: whether made for that connection
/// alone, and the message.
fn frames(mut payload: &[u8]) -> Vec<(bool, Value)> {
    let mut out = Vec::new();
    while payload.len() >= 5 {
        let len = u32::from_le_bytes(payload[1..5].try_into().unwrap()) as usize;
        out.push((
            payload[0] == 1,
            serde_json::from_slice(&payload[5..5 + len]).unwrap(),
        ));
        payload = &payload[5 + len..];
    }
    assert!(payload.is_empty(), "a batch ends with a whole frame");
    out
}

/// The previous release's frame of this type (own or shared) among its captured batches.
fn previous_frame(own: bool, kind: &str) -> Option<Value> {
    let dir = fixture_path("");
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with("captured-batch-"))
        .collect();
    names.sort();
    names.into_iter().find_map(|n| {
        frames(&std::fs::read(fixture_path(&n)).unwrap())
            .into_iter()
            .find(|(o, m)| *o == own && m["type"] == kind)
            .map(|(_, m)| m)
    })
}

/// Whether `new` has every field `old` has, each of the same JSON kind, recursively (the
/// first element of arrays stands for the rest): what a reader of the previous release
/// needs of a payload. A null on either side matches anything (an `Option`).
fn shape_within(old: &Value, new: &Value, at: &str, problems: &mut Vec<String>) {
    match (old, new) {
        (Value::Null, _) | (_, Value::Null) => {}
        (Value::Object(o), Value::Object(n)) => {
            for (key, value) in o {
                match n.get(key) {
                    Some(v) => shape_within(value, v, &format!("{at}.{key}"), problems),
                    None => problems.push(format!("{at}.{key} is missing")),
                }
            }
        }
        (Value::Array(o), Value::Array(n)) => {
            if let (Some(a), Some(b)) = (o.first(), n.first()) {
                shape_within(a, b, &format!("{at}[0]"), problems);
            }
        }
        (Value::String(_), Value::String(_))
        | (Value::Number(_), Value::Number(_))
        | (Value::Bool(_), Value::Bool(_)) => {}
        _ => problems.push(format!("{at}: was {old}, now {new}")),
    }
}

/// An envelope of the previous release, from its fixture, for this player and inbox.
fn envelope(name: &str, player: &str, inbox: &str, edit: impl FnOnce(&mut Value)) -> Value {
    let mut envelope = fixture(name);
    let request = envelope["request"].as_object_mut().unwrap();
    let (_, body) = request.iter_mut().next().unwrap();
    body["player"] = json!(player);
    envelope["inbox"] = json!(inbox);
    edit(&mut envelope);
    envelope
}

async fn metric(server: &common::Server, name: &str) -> Option<f64> {
    let (_, text) = server.get("/metrics").await;
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rolling_upgrade_a_node_of_this_release_serves_a_player_of_a_previous_release_node_to_the_end_of_a_hand(
) {
    // The comparison finds a field gone and a kind changed.
    let mut found = Vec::new();
    shape_within(
        &json!({"a": 1, "b": [{"c": "x"}]}),
        &json!({"b": [{"c": 2}]}),
        "",
        &mut found,
    );
    assert_eq!(found, vec![".a is missing", ".b[0].c: was \"x\", now 2"]);
    nats_server_binary();
    let Some(guard) = DbGuard::new(Db::Postgres).await else {
        return;
    };
    let url = guard.url();
    let (_nats, nats_url) = nats().await;
    let node = pokerd("n2", &url, &nats_url, 3000, 500).await;
    let server = &node.server;
    let old_player = server.player("oldann", DEPOSIT).await;
    server.player("newbob", DEPOSIT).await;
    // The old node: it hears the new node's lobby changes, moves and heartbeats from
    // before the table is made.
    let old = async_nats::connect(&nats_url).await.unwrap();
    let mut gossip = Vec::new();
    for subject in ["pokerd.lobby", "pokerd.moved", "pokerd.node"] {
        let mut messages = old.subscribe(subject).await.unwrap();
        // The first few from the new node (a lobby changes at every hand: the rest are
        // not kept).
        let heard: Arc<std::sync::Mutex<Vec<Value>>> = Default::default();
        let listening = {
            let heard = heard.clone();
            tokio::spawn(async move {
                while let Some(message) = messages.next().await {
                    let value: Value = serde_json::from_slice(&message.payload).unwrap();
                    let mut heard = heard.lock().unwrap();
                    if value["node"] != OLD_NODE && heard.len() < 5 {
                        heard.push(value);
                    }
                }
            })
        };
        gossip.push((subject, heard, listening));
    }
    let clock = json!({ "action_ms": 20000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    let table = server.table_with(nl_rules(), clock).await;

    // Its heartbeat (no version, no header) and its liveness answers.
    let stop = Arc::new(AtomicBool::new(false));
    let heartbeat = {
        let (old, stop) = (old.clone(), stop.clone());
        let heard = fixture("captured-node-001.json");
        tokio::spawn(async move {
            let mut heard = heard;
            heard["node"] = json!(OLD_NODE);
            while !stop.load(Ordering::SeqCst) {
                let _ = old
                    .publish("pokerd.node", serde_json::to_vec(&heard).unwrap().into())
                    .await;
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        })
    };
    let mut alive = old
        .subscribe(format!("pokerd.alive.{OLD_NODE}"))
        .await
        .unwrap();
    let answering = {
        let old = old.clone();
        tokio::spawn(async move {
            while let Some(ping) = alive.next().await {
                if let Some(reply) = ping.reply {
                    let _ = old.publish(reply, Default::default()).await;
                }
            }
        })
    };
    // The new node sees a node of another release.
    let deadline = Instant::now() + Duration::from_secs(10);
    while metric(server, "poker_nodes_of_another_release").await != Some(1.0) {
        assert!(
            Instant::now() < deadline,
            "n2 never counted the old node: {:?}",
            metric(server, "poker_nodes_of_another_release").await
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(metric(server, "poker_wire_version").await, Some(2.0));

    // The old node's player sits down: the previous release's sit, sent as it sent it.
    let inbox = format!("pokerd.inbox.{OLD_NODE}.{}", poker_store::TableId::new());
    let mut batches = old.subscribe(inbox.clone()).await.unwrap();
    let subject = format!("pokerd.table.{table}");
    let mut problems = Vec::new();
    let ask = |envelope: Value| {
        let old = old.clone();
        let subject = subject.clone();
        async move {
            let answer = old
                .request(subject, serde_json::to_vec(&envelope).unwrap().into())
                .await
                .expect("the new node answers the old node's request");
            let version = answer
                .headers
                .as_ref()
                .and_then(|h| h.get("Pokerd-Wire"))
                .map(|v| v.as_str().to_string());
            assert_eq!(version.as_deref(), Some("2"), "the answer names its format");
            serde_json::from_slice::<Value>(&answer.payload).unwrap()
        }
    };
    let sit = envelope("envelope-sit.json", &old_player, &inbox, |e| {
        let sit = &mut e["request"]["Sit"];
        sit["name"] = json!("oldann");
        sit["seat"] = json!(0);
        sit["buy_in"] = json!(200);
        sit["address"] = json!("127.0.0.1");
    });
    let answer = ask(sit).await;
    assert_eq!(answer["Ok"]["Done"]["amount"], 200, "{answer}");
    shape_within(
        &fixture("answer-done.json"),
        &answer,
        "sit's answer",
        &mut problems,
    );

    // A player of the new node sits down and plays, calling or checking.
    let mut bob = server.client("newbob").await;
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
                    let action = simple_action(&legal, false);
                    bob.send(&common::act(&table, decision_id, action)).await;
                }
            }
        })
    };

    // The old node's player gets the table's messages in its inbox and answers its
    // decisions with the previous release's act, until a hand has ended.
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut checked: BTreeMap<String, bool> = BTreeMap::new();
    let mut acted = 0;
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut ended = false;
    while !ended {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "no hand ended within 60 s; saw {seen:?}");
        let Ok(Some(batch)) = tokio::time::timeout(left, batches.next()).await else {
            panic!("the old node's inbox stopped; saw {seen:?}");
        };
        for (own, msg) in frames(&batch.payload) {
            let kind = msg["type"].as_str().unwrap_or("?").to_string();
            let key = format!("{} {kind}", if own { "own" } else { "shared" });
            *seen.entry(key.clone()).or_default() += 1;
            if let std::collections::btree_map::Entry::Vacant(entry) = checked.entry(key.clone()) {
                let previous = previous_frame(own, &kind);
                if let Some(previous) = &previous {
                    shape_within(previous, &msg, &key, &mut problems);
                }
                entry.insert(previous.is_some());
            }
            if own && kind == "decide" {
                let action = if msg["legal"]["call"].is_null() {
                    json!({ "type": "check" })
                } else {
                    json!({ "type": "call" })
                };
                let act = envelope("envelope-act_call.json", &old_player, &inbox, |e| {
                    e["request"]["Act"]["decision_id"] = msg["decision_id"].clone();
                    e["request"]["Act"]["action"] = action;
                });
                let answer = ask(act).await;
                shape_within(
                    &fixture("captured-answer-002.json"),
                    &answer,
                    "act's answer",
                    &mut problems,
                );
                acted += 1;
            }
            if kind == "event" && msg["event"]["type"] == "hand_ended" {
                ended = true;
            }
        }
    }
    assert!(acted > 0, "the old node's player acted: {seen:?}");
    for wanted in ["own snapshot", "own decide", "shared event", "shared seats"] {
        assert_eq!(
            checked.get(wanted),
            Some(&true),
            "{wanted} was sent and compared with the previous release's: {checked:?}"
        );
    }

    // The old node's player leaves with the previous release's leave.
    let leave = envelope("envelope-seat_3_leave.json", &old_player, &inbox, |_| {});
    let answer = ask(leave).await;
    let previous = if answer["Ok"].get("Done").is_some() {
        "answer-done.json"
    } else {
        "answer-ok.json"
    };
    shape_within(&fixture(previous), &answer, "leave's answer", &mut problems);

    // What the new node said to every node meanwhile, as the old node reads it: each kind
    // with every field the previous release's own had (its captured gossip).
    for (subject, heard, listening) in gossip {
        let previous = match subject {
            "pokerd.lobby" => "captured-lobby-001.json",
            "pokerd.moved" => "captured-moved-001.json",
            _ => "captured-node-001.json",
        };
        // A heartbeat may be due yet (a hand can end within one).
        let deadline = Instant::now() + Duration::from_secs(5);
        while heard.lock().unwrap().is_empty() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        listening.abort();
        let heard = std::mem::take(&mut *heard.lock().unwrap());
        assert!(
            !heard.is_empty(),
            "the old node heard nothing from the new one on {subject}"
        );
        for value in heard {
            shape_within(&fixture(previous), &value, subject, &mut problems);
        }
    }
    stop.store(true, Ordering::SeqCst);
    let _ = bob_task.await;
    heartbeat.abort();
    answering.abort();
    assert!(
        problems.is_empty(),
        "the new node sent what the previous release cannot read:\n{}",
        problems.join("\n")
    );
    eprintln!("the old node's player saw {seen:?}; acted {acted} times");
    assert_conserved(&server.audit().await, (2 * DEPOSIT) as i64);
}
