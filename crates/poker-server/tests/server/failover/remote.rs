//! A table another node owns, played by a bare NATS client: a slow connection to it is
//! resynced with a snapshot, and a sit at it carries the client's address.

use super::common;
use super::harness::{HEARTBEAT_MS, LEASE_MS};
use common::nats::nats;
use poker_protocol::TableId;
use serde_json::json;
use std::time::{Duration, Instant};

/// A batch as the owner sends it to an inbox (the cluster's wire format): per frame, 1 if
/// it is the subscriber's own, its length (4 bytes, little-endian) and its JSON text.
fn wire_batch(frames: &[serde_json::Value]) -> bytes::Bytes {
    let mut out = Vec::new();
    for frame in frames {
        let text = frame.to_string();
        out.push(0);
        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
        out.extend_from_slice(text.as_bytes());
    }
    out.into()
}

/// The texts of a batch a connection's queue received.
fn texts(batch: poker_server::table::Batch) -> Vec<serde_json::Value> {
    batch
        .into_iter()
        .map(|frame| match frame {
            poker_server::table::Out::Own(msg) => serde_json::to_value(&*msg).unwrap(),
            poker_server::table::Out::Shared(text) => serde_json::from_str(text.as_str()).unwrap(),
        })
        .collect()
}

/// A connection on one node watching a table another node owns, whose queue is full when
/// more of the table's batches arrive: they are dropped, not awaited (the NATS reader
/// never waits for a slow connection), and once the connection has room it subscribes to
/// the table again, so the owner sends a snapshot; what comes of the table before that
/// snapshot is dropped too. The owner here is played by a bare NATS client.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_a_slow_connection_to_a_remote_table_is_resynced_with_a_snapshot() {
    use futures_util::StreamExt;
    let (_nats, nats_url) = nats().await;
    let config = poker_server::config::ClusterConfig {
        nats_url: nats_url.clone(),
        node: "gateway".into(),
        lease_ms: LEASE_MS,
        heartbeat_ms: HEARTBEAT_MS,
    };
    let cluster = poker_server::cluster::Cluster::connect(&config, Default::default())
        .await
        .unwrap();
    let table = TableId::new();
    let player = poker_protocol::PlayerId::new();

    // The owner: answers each subscription, telling the test its inbox and player.
    let owner = async_nats::connect(nats_url.as_str()).await.unwrap();
    let mut commands = owner
        .subscribe(format!("pokerd.table.{table}"))
        .await
        .unwrap();
    owner.flush().await.unwrap();
    let (subscribed_tx, mut subscribed) = tokio::sync::mpsc::unbounded_channel();
    let answering = owner.clone();
    tokio::spawn(async move {
        while let Some(request) = commands.next().await {
            let envelope: serde_json::Value = serde_json::from_slice(&request.payload).unwrap();
            let sub = &envelope["request"]["Subscribe"];
            let _ = subscribed_tx.send((
                envelope["inbox"].as_str().unwrap().to_string(),
                sub["player"].clone(),
                sub["only_if_seated"].clone(),
            ));
            let reply = serde_json::to_vec(&json!({"Ok": {"Subscribed": true}})).unwrap();
            answering
                .publish(request.reply.unwrap(), reply.into())
                .await
                .unwrap();
        }
    });
    let chat =
        |enabled: bool| json!({"type": "chat_switched", "table_id": table, "enabled": enabled});
    let snapshot = json!({"type": "snapshot", "table": {"table_id": table}, "hand": null});

    // The connection's queue holds one batch.
    let (queue, mut rx) = tokio::sync::mpsc::channel(1);
    let handle = cluster.remote(table);
    // (Until the NATS server has the owner's subscription: under load it may not yet,
    // the owner's flush being no round trip, and the request finds no responder.)
    let deadline = Instant::now() + Duration::from_secs(10);
    while !handle
        .subscribe_with(Some(player), queue.clone(), false)
        .await
    {
        assert!(Instant::now() < deadline, "the owner answers within 10 s");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (inbox, who, only_if_seated) = subscribed.recv().await.unwrap();
    assert_eq!((who, only_if_seated), (json!(player), json!(false)));

    // One batch fills the queue; the next ones find it full while the client reads nothing.
    owner
        .publish(inbox.clone(), wire_batch(&[chat(true)]))
        .await
        .unwrap();
    for _ in 0..20 {
        owner
            .publish(inbox.clone(), wire_batch(&[chat(false)]))
            .await
            .unwrap();
    }
    owner.flush().await.unwrap();
    // (Time for the gateway to read them all: the queue stays full meanwhile.)
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(texts(rx.recv().await.unwrap()), [chat(true)]);

    // Room again: subscribed again, as the same player, through the same inbox.
    let again = tokio::time::timeout(Duration::from_secs(10), subscribed.recv())
        .await
        .expect("the connection is subscribed again once it has room")
        .unwrap();
    assert_eq!(again, (inbox.clone(), json!(player), json!(false)));
    // What the owner sent before its snapshot is dropped; the snapshot and what follows
    // it arrive.
    owner
        .publish(
            inbox.clone(),
            wire_batch(&[chat(false), snapshot.clone(), chat(true)]),
        )
        .await
        .unwrap();
    let batch = tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("the snapshot arrives")
        .unwrap();
    assert_eq!(texts(batch), [snapshot, chat(true)]);
    owner
        .publish(inbox.clone(), wire_batch(&[chat(false)]))
        .await
        .unwrap();
    let batch = tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("what follows arrives")
        .unwrap();
    assert_eq!(texts(batch), [chat(false)]);
    assert!(rx.try_recv().is_err(), "nothing else");
}

/// A sit at a table another node owns carries the client's address in the request (the
/// owner applies `room.same_address_seating`), and the owner's refusal comes back typed.
/// The owner here is a bare NATS client that records the command and refuses it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_a_sit_at_a_table_on_another_node_carries_the_client_address() {
    use futures_util::StreamExt;
    use poker_server::table::Refusal;
    let (_nats, nats_url) = nats().await;
    let config = poker_server::config::ClusterConfig {
        nats_url: nats_url.clone(),
        node: "gateway".into(),
        lease_ms: LEASE_MS,
        heartbeat_ms: HEARTBEAT_MS,
    };
    let cluster = poker_server::cluster::Cluster::connect(&config, Default::default())
        .await
        .unwrap();
    let table = TableId::new();
    let owner = async_nats::connect(nats_url.as_str()).await.unwrap();
    let mut commands = owner
        .subscribe(format!("pokerd.table.{table}"))
        .await
        .unwrap();
    owner.flush().await.unwrap();
    let (seen_tx, mut seen) = tokio::sync::mpsc::unbounded_channel();
    let answering = owner.clone();
    tokio::spawn(async move {
        while let Some(request) = commands.next().await {
            let cmd: serde_json::Value = serde_json::from_slice(&request.payload).unwrap();
            let _ = seen_tx.send(cmd);
            let reply = json!({"Err": {"SameAddress": "a player at this table connects from your address"}});
            answering
                .publish(
                    request.reply.unwrap(),
                    serde_json::to_vec(&reply).unwrap().into(),
                )
                .await
                .unwrap();
        }
    });
    let handle = cluster.remote(table);
    let player = poker_protocol::PlayerId::new();
    let address: std::net::IpAddr = "198.51.100.7".parse().unwrap();
    // (Until the NATS server has the owner's subscription.)
    let deadline = Instant::now() + Duration::from_secs(10);
    let refusal = loop {
        let r = handle
            .sit_with(
                player,
                "ann".into(),
                2,
                100,
                poker_rules::table::Entry::PostNow,
                None,
                Some(address),
            )
            .await;
        match r {
            Err(Refusal::SameAddress(message)) => break message,
            other => {
                assert!(Instant::now() < deadline, "the owner answers: {other:?}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    assert!(refusal.contains("address"), "{refusal}");
    let cmd = seen.recv().await.unwrap();
    assert_eq!(
        cmd["request"]["Sit"]["address"],
        json!("198.51.100.7"),
        "{cmd}"
    );
    assert_eq!(cmd["request"]["Sit"]["player"], json!(player), "{cmd}");
    // A house bot's sit carries none.
    let _ = handle
        .sit_with(
            player,
            "Ada (bot)".into(),
            3,
            100,
            poker_rules::table::Entry::PostNow,
            None,
            None,
        )
        .await;
    let mut cmd = seen.recv().await.unwrap();
    while cmd["request"]["Sit"]["seat"] != 3 {
        cmd = seen.recv().await.unwrap();
    }
    assert_eq!(cmd["request"]["Sit"]["address"], json!(null), "{cmd}");
}
