//! Leases under skewed clocks: a child process (this test binary again, with libfaketime)
//! plays another node whose wall clock is off by a day (Postgres only).

use super::*;

/// Where a child process (this test binary again, in the role below) finds its orders.
pub(crate) const SKEWED_NODE_ENV: &str = "POKER_STORE_SKEWED_NODE";

/// The libfaketime library that gives a child process a wall clock of its own.
fn libfaketime() -> Option<&'static str> {
    [
        "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
        "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
        "/usr/lib/faketime/libfaketime.so.1",
        "/usr/local/lib/faketime/libfaketime.so.1",
    ]
    .into_iter()
    .find(|p| std::path::Path::new(p).is_file())
}

/// What a node with a skewed clock is asked to do, and what it saw.
#[derive(serde::Serialize, serde::Deserialize)]
struct SkewedNode {
    url: String,
    table: TableId,
    node: String,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct SkewedNodeSaw {
    /// Its wall clock (unix milliseconds), to show it was skewed.
    clock: i64,
    acquired: Option<u64>,
    candidate: bool,
    live: Option<bool>,
}

/// The child role: another node, whose wall clock libfaketime sets, tries to take the
/// table's lease (does nothing unless the parent started this binary as that node).
#[tokio::test]
async fn skewed_node_role() {
    let Ok(orders) = std::env::var(SKEWED_NODE_ENV) else {
        return;
    };
    let orders: SkewedNode = serde_json::from_str(&orders).unwrap();
    let store = SqlStore::connect(&orders.url).await.expect("connect");
    let candidate = store
        .lease_candidates(&orders.node)
        .await
        .unwrap()
        .contains(&orders.table);
    let live = store
        .leases()
        .await
        .unwrap()
        .into_iter()
        .find(|l| l.table_id == orders.table)
        .map(|l| l.live);
    let acquired = store
        .acquire_lease(orders.table, &orders.node, 60_000)
        .await
        .unwrap();
    let saw = SkewedNodeSaw {
        clock: now_ms(),
        acquired,
        candidate,
        live,
    };
    println!("SKEWED-NODE {}", serde_json::to_string(&saw).unwrap());
    store.close().await;
}

/// Runs a node whose wall clock is `offset` (libfaketime: `+1d`, `-1d`) off this one's.
fn skewed_node(url: &str, table: TableId, node: &str, offset: &str) -> SkewedNodeSaw {
    let orders = SkewedNode {
        url: url.to_string(),
        table,
        node: node.to_string(),
    };
    let out = std::process::Command::new(std::env::current_exe().expect("this test binary"))
        .args([
            "--exact",
            "skew::skewed_node_role",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(SKEWED_NODE_ENV, serde_json::to_string(&orders).unwrap())
        .env("LD_PRELOAD", libfaketime().expect("libfaketime"))
        .env("FAKETIME", offset)
        // Timers and timeouts run on the monotonic clock: left alone.
        .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
        .output()
        .expect("the skewed node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find_map(|l| l.split_once("SKEWED-NODE ").map(|(_, saw)| saw))
        .unwrap_or_else(|| {
            panic!(
                "the skewed node said nothing: {stdout}{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    serde_json::from_str(line).unwrap()
}

/// Several nodes' wall clocks may disagree by any amount: the database's clock alone
/// decides whether a lease has expired. A node whose clock is a day ahead cannot take a
/// live lease (nor sees it as free), a node whose clock is a day behind takes a lease no
/// shorter for it; once a short lease has expired by the database's clock, a node takes it
/// whatever its own clock says. (Postgres only: an embedded SQLite has no clock but its
/// process's, and several nodes never share one.)
pub(crate) async fn lease_no_nodes_clock_decides_whether_a_lease_is_live(
    store: &SqlStore,
    url: &str,
) {
    let Some(_) = libfaketime() else {
        eprintln!("SKIPPED: skewed clocks (no libfaketime: apt-get install libfaketime)");
        return;
    };
    const DAY: i64 = 24 * 3600 * 1000;
    let table = store.create_table("skew", "{}").await.unwrap();
    assert_eq!(
        store.acquire_lease(table, "node-a", 60_000).await.unwrap(),
        Some(1)
    );
    let ahead = skewed_node(url, table, "node-b", "+1d");
    assert!(ahead.clock > now_ms() + DAY / 2, "skewed: {ahead:?}");
    assert_eq!(
        (ahead.acquired, ahead.candidate, ahead.live),
        (None, false, Some(true)),
        "a node a day ahead sees the lease live and cannot take it"
    );

    // A node a day behind takes a free table for as long as anyone else would.
    let other = store.create_table("skew-behind", "{}").await.unwrap();
    let behind = skewed_node(url, other, "node-c", "-1d");
    assert!(behind.clock < now_ms() - DAY / 2, "skewed: {behind:?}");
    assert_eq!((behind.acquired, behind.candidate), (Some(1), true));
    assert_eq!(
        store.acquire_lease(other, "node-d", 60_000).await.unwrap(),
        None
    );
    assert!(!store
        .lease_candidates("node-d")
        .await
        .unwrap()
        .contains(&other));

    // A short lease, expired by the database's clock: any node takes it.
    assert!(store.renew_lease(table, "node-a", 1, 100).await.unwrap());
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let behind = skewed_node(url, table, "node-b", "-1d");
    assert_eq!(
        (behind.acquired, behind.candidate, behind.live),
        (Some(2), true, Some(false)),
        "expired by the database's clock, whatever the node's says"
    );
}
