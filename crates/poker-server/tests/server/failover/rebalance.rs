//! A node that joins the cluster later is handed its share of tables between hands.

use super::common;
use super::harness::*;
use common::{assert_conserved, nl_rules};
use poker_store::SqlStore;
use serde_json::json;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// How many tables each node holds a live lease on.
/// Each table's lease: its node and token.
async fn lease_map(store: &SqlStore) -> BTreeMap<poker_store::TableId, (String, u64)> {
    let all = store.leases().await.unwrap();
    all.into_iter()
        .map(|l| (l.table_id, (l.node, l.token)))
        .collect()
}

async fn lease_counts(store: &SqlStore) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for lease in store.leases().await.unwrap().into_iter().filter(|l| l.live) {
        *counts.entry(lease.node).or_default() += 1;
    }
    counts
}

/// Four tables are created while only n1 runs, and played at by players connected to n1.
/// n2 starts: n1, over its fair share, hands two tables over, each once its hand in
/// progress has ended, and n2 takes them; players connected to n2 sit down meanwhile.
/// Every hand is committed (none is void), play goes on everywhere, no connection
/// closes, the tables stay where they went, and every chip is accounted for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_a_node_that_joins_later_is_handed_its_share_of_tables_between_hands() {
    let started = Instant::now();
    let Some(backing) = backing().await else {
        return;
    };
    let (url, nats_url) = (backing.url.clone(), backing.nats_url.clone());
    let mut nodes = vec![pokerd(NODES[0], &url, &nats_url).await];
    let clock = json!({ "action_ms": 10000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    const TABLES: usize = 4;
    let name = |t: usize, k: usize| format!("{}{}", ["ann", "bob", "cal", "dan"][t], k);
    for t in 0..TABLES {
        for k in 0..3 {
            nodes[0].server.player(&name(t, k), DEPOSIT).await;
        }
    }
    let deposited = (DEPOSIT * 3 * TABLES as u64) as i64;
    let mut tables = Vec::new();
    for _ in 0..TABLES {
        let id = nodes[0].server.table_with(nl_rules(), clock.clone()).await;
        tables.push(Table::new(id, 0));
    }
    let store = SqlStore::connect(&url).await.unwrap();
    let store_id = |t: &Table| -> poker_store::TableId { t.id.parse().unwrap() };
    assert_eq!(
        lease_counts(&store).await,
        BTreeMap::from([("n1".to_string(), TABLES)]),
        "n1, alone, holds every table"
    );
    let mut game = Game::new(tables);
    // Two players at each table, connected to n1; two hands everywhere.
    for t in 0..TABLES {
        for k in 0..2 {
            let refused = game.join(&nodes[0], 0, &name(t, k), t, k as u32).await;
            assert_eq!(refused, 0, "nothing moves while n1 is alone");
        }
    }
    let played = game
        .drive(Duration::from_secs(30), |g| {
            g.tables.iter().all(|t| t.ended.len() >= 2)
        })
        .await;
    assert!(played, "2 hands at every table on n1: {}", game.state());
    eprintln!(
        "{:?}: n1 alone played 2 hands at each table",
        started.elapsed()
    );

    // n2 joins; a third player at each table sits down through it (while tables move).
    nodes.push(pokerd(NODES[1], &url, &nats_url).await);
    let joined_at = Instant::now();
    eprintln!("{:?}: n2 up", started.elapsed());
    let mut refused = 0;
    for t in 0..TABLES {
        refused += game.join(&nodes[1], 1, &name(t, 2), t, 2).await;
    }
    eprintln!(
        "{:?}: the players on n2 are seated ({refused} sits refused as moving)",
        started.elapsed()
    );

    // Within a few heartbeats of hands, each node holds half the tables.
    let half = BTreeMap::from([
        ("n1".to_string(), TABLES / 2),
        ("n2".to_string(), TABLES / 2),
    ]);
    let deadline = joined_at + Duration::from_secs(20);
    loop {
        let counts = lease_counts(&store).await;
        if counts == half {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "each node holds {} tables within 20 s of n2 joining: {counts:?}; {}",
            TABLES / 2,
            game.state()
        );
        game.drive(Duration::from_millis(100), |_| false).await;
    }
    let balanced_at = Instant::now();
    eprintln!(
        "{:?}: balanced {:?} after n2 started",
        started.elapsed(),
        balanced_at - joined_at
    );
    let leases = lease_map(&store).await;

    // Play goes on at every table, two more hands each, with nobody refused anything.
    let before: Vec<u64> = game.tables.iter().map(|t| t.latest).collect();
    let went_on = game
        .drive(Duration::from_secs(30), |g| {
            (0..TABLES).all(|t| g.ended_after(t, before[t]) >= 2)
        })
        .await;
    assert!(
        went_on,
        "2 more hands at every table once balanced: {}",
        game.state()
    );
    assert_eq!(game.stale_refusals, 0);
    // Many heartbeats later, no table moved again (and none moved twice: its token).
    let now = lease_map(&store).await;
    assert_eq!(now, leases, "the tables stay where they went");
    for table in &game.tables {
        let (node, token) = &leases[&store_id(table)];
        assert!(
            (node == "n1" && *token == 1) || (node == "n2" && *token == 2),
            "a table is n1's first lease or moved once, to n2: {node} {token}"
        );
    }

    // Every hand dealt was committed: none void, numbered without gaps, and each hand a
    // player saw end is complete.
    for (t, table) in game.tables.iter().enumerate() {
        let rows = hand_rows(&store, store_id(table)).await;
        assert_eq!(
            rows.keys().copied().collect::<Vec<_>>(),
            (1..=*rows.keys().last().unwrap()).collect::<Vec<_>>(),
            "table {t}'s hands are numbered without gaps: {rows:?}"
        );
        for (n, row) in &rows {
            assert!(!row.contains("Void"), "table {t}: hand {n} is void: {row}");
        }
        for n in &table.ended {
            assert!(
                rows[n].contains("Complete"),
                "table {t}: hand {n} ended but is not complete: {}",
                rows[n]
            );
        }
    }
    assert_conserved(&store.audit().await.unwrap(), deposited);

    // Every connection still answers; then everyone leaves and every chip is in a wallet.
    game.everyone_answers_a_ping().await;
    let tables: Vec<_> = game.tables.iter().map(store_id).collect();
    game.everyone_leaves(&store, &tables, deposited).await;
    store.close().await;
    for node in nodes.iter_mut() {
        node.proc.kill();
    }
    eprintln!("{:?}: done", started.elapsed());
}
