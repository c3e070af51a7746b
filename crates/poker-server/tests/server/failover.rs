//! Three `pokerd` nodes share one Postgres and one NATS server; each owns one table and
//! every player is connected to a node that does not own their table, so every command
//! and every event crosses NATS. One node is killed with SIGKILL in the middle of a hand:
//! its lease runs out, another node takes its table, voids the cut hand (stacks as it
//! began), sends a fresh snapshot to every connection at that table and plays on; the
//! other tables never stop, no connection to a live node drops, and no chip is lost.

use crate::common;
mod harness;
mod order;
mod rebalance;
mod remote;
mod sigterm;

use common::cluster::Stopped;
use common::nats::{nats_server_binary, nats_with_token};
use common::{assert_conserved, nl_rules, reconnect, Db, DbGuard};
use poker_store::SqlStore;
use serde_json::json;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use harness::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_a_node_killed_mid_hand_loses_no_chip_and_its_tables_resume_elsewhere() {
    let started = Instant::now();
    // Dropped in reverse: the nodes and NATS are killed before the database goes.
    let Some((backing, mut nodes)) = cluster_of(started, NODES.len()).await else {
        return;
    };
    let url = backing.url.clone();

    // Players (created through different nodes: the store is shared) and one table
    // per node, created through that node's admin API.
    let clock = json!({ "action_ms": 10000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    // (name, table, node connected to, seat): nobody is connected to their table's owner,
    // and every node has connections.
    let plan: [(&str, usize, usize, u32); 7] = [
        ("ann", 0, 1, 0),
        ("amy", 0, 2, 1),
        ("abe", 0, 1, 2),
        ("bob", 1, 0, 0),
        ("bea", 1, 2, 1),
        ("cal", 2, 0, 0),
        ("cat", 2, 1, 1),
    ];
    for (k, (name, ..)) in plan.iter().enumerate() {
        nodes[k % 3].server.player(name, DEPOSIT).await;
    }
    let deposited = (DEPOSIT * plan.len() as u64) as i64;
    let mut tables = Vec::new();
    for (owner, node) in nodes.iter().enumerate() {
        let id = node.server.table_with(nl_rules(), clock.clone()).await;
        tables.push(Table::new(id, owner));
    }
    let store = SqlStore::connect(&url).await.unwrap();
    let store_id = |t: &Table| -> poker_store::TableId { t.id.parse().unwrap() };
    let leases = store.leases().await.unwrap();
    let mut tokens = Vec::new();
    for t in &tables {
        let lease = leases
            .iter()
            .find(|l| l.table_id == store_id(t))
            .unwrap_or_else(|| panic!("the table created on {} has no lease", NODES[t.owner]));
        assert_eq!(
            lease.node, NODES[t.owner],
            "a table created through a node's admin API is owned by that node: {lease:?}"
        );
        tokens.push(lease.token);
    }

    // Every node's lobby lists every table.
    await_lobbies(&nodes, &tables).await;

    // Everyone connects to a node that does not own their table, and sits down.
    let players = seat_everyone(&nodes, &tables, &plan).await;
    let mut game = Game {
        players,
        ..Game::new(tables)
    };

    // A few hands everywhere: commands go to the owners and events come back, across
    // NATS both ways.
    let played = game
        .drive(Duration::from_secs(30), |g| {
            g.tables.iter().all(|t| t.ended.len() >= 3)
        })
        .await;
    assert!(
        played,
        "every table plays 3 hands with its players on other nodes: {}",
        game.state()
    );
    eprintln!("{:?}: 3 hands on every table", started.elapsed());

    // At n1's table, someone raises and the next player is asked and does not answer;
    // then n1 dies.
    let a = KILLED;
    game.tables[a].mode = Mode::Raise;
    let held = game
        .drive(Duration::from_secs(15), |g| g.tables[a].held_by.is_some())
        .await;
    assert!(
        held,
        "a raise at n1's table, then a decision left waiting: {}",
        game.state()
    );
    let cut = game.tables[a].latest;
    assert_eq!(
        game.tables[a].raised_in,
        Some(cut),
        "the decision held is in the hand that had the raise"
    );
    let before: Vec<u64> = game.tables.iter().map(|t| t.latest).collect();
    let lease = store
        .leases()
        .await
        .unwrap()
        .into_iter()
        .find(|l| l.table_id == store_id(&game.tables[a]))
        .unwrap();
    assert_eq!(lease.node, "n1", "n1 still owns its table before the kill");
    let token_before = lease.token;
    nodes[KILLED].proc.kill();
    let killed_at = Instant::now();
    game.owner_lost(a, killed_at);
    eprintln!(
        "{:?}: n1 killed in hand {cut} of its table",
        started.elapsed()
    );

    // The store as n1 left it: the cut hand never committed, and the stacks stored are
    // those it began with (the last committed hand's finishing stacks).
    let table_a = store_id(&game.tables[a]);
    let hands = store.table_hands(table_a, 100, 0).await.unwrap();
    let cut_row = hands
        .iter()
        .find(|h| h.number == cut)
        .unwrap_or_else(|| panic!("hand {cut} (the cut one) was recorded as started"));
    assert_ne!(
        cut_row.status, "complete",
        "hand {cut} was cut before it ended, so it cannot be complete"
    );
    let last = hands
        .iter()
        .filter(|h| h.number < cut && h.status == "complete")
        .max_by_key(|h| h.number)
        .expect("a hand completed before the cut one");
    let record = last.record.as_ref().expect("a complete hand has a record");
    let began_with = by_seat(&record.seats, &record.finishing_stacks);
    let stored: BTreeMap<u32, u64> = store
        .seats(table_a)
        .await
        .unwrap()
        .iter()
        .map(|s| (s.seat_no, s.stack))
        .collect();
    assert_eq!(
        stored, began_with,
        "the stacks stored are those hand {cut} began with (hand {}'s finishing stacks)",
        last.number
    );

    // Players whose connection was on n1 lose it: they reconnect to a live node that does
    // not own their table (their session token is good anywhere).
    for p in game.players.iter_mut().filter(|p| p.node == KILLED) {
        let to = (0..NODES.len())
            .find(|&n| n != KILLED && n != game.tables[p.table].owner)
            .unwrap();
        reconnect(&mut p.client, nodes[to].server.addr, &p.token).await;
        // An answer sent just before the kill may have died with n1.
        p.client.answered.clear();
        p.node = to;
        p.moved = true;
        p.awaiting_snapshot = Some(Instant::now());
    }

    // Within the lease and a margin, everyone at n1's former table (all on n2 and n3,
    // none reconnected) gets a fresh snapshot of it, without the cut hand in it.
    let resynced = game
        .drive(
            Duration::from_millis(LEASE_MS) + Duration::from_secs(10),
            |g| {
                g.players
                    .iter()
                    .filter(|p| p.table == a)
                    .all(|p| !p.snapshots.is_empty())
            },
        )
        .await;
    let missing: Vec<&str> = game
        .players
        .iter()
        .filter(|p| p.table == a && p.snapshots.is_empty())
        .map(|p| p.client.name.as_str())
        .collect();
    assert!(
        resynced,
        "within {LEASE_MS} ms + 10 s of n1's death every player at its table gets a new \
         snapshot; none came for {missing:?}: {}",
        game.state()
    );
    for p in game.players.iter().filter(|p| p.table == a) {
        let (at, hand) = p.snapshots[0];
        eprintln!(
            "{}: snapshot {:?} after the kill (hand {hand:?})",
            p.client.name,
            at - killed_at
        );
        for (_, hand) in &p.snapshots {
            assert!(
                hand.is_none_or(|n| n > cut),
                "{}: a snapshot after the takeover shows hand {hand:?}, but hand {cut} is \
                 void and must not go on",
                p.client.name
            );
        }
    }

    // Play resumes there (two more hands, numbered after the cut one), and the other
    // tables keep going (a hand dealt after the kill ends at each), reconnected players
    // included.
    let resumed = game
        .drive(Duration::from_secs(20), |g| {
            g.ended_after(a, cut) >= 2
                && (0..g.tables.len())
                    .filter(|&t| t != a)
                    .all(|t| g.ended_after(t, before[t]) >= 1)
                && g.players.iter().all(|p| p.awaiting_snapshot.is_none())
        })
        .await;
    let waiting: Vec<&str> = game
        .players
        .iter()
        .filter(|p| p.awaiting_snapshot.is_some())
        .map(|p| p.client.name.as_str())
        .collect();
    assert!(
        resumed,
        "after the takeover 2 hands end at n1's former table and 1 at each other table, \
         and reconnected players get their table's snapshot (still waiting: {waiting:?}); \
         hands in progress at the kill: {before:?}; {}",
        game.state()
    );
    eprintln!(
        "{:?}: play resumed everywhere ({} stale answers refused so far)",
        started.elapsed(),
        game.stale_refusals
    );

    // A new owner serves it: another node holds the lease, with a higher fencing token;
    // the other tables stayed where they were.
    let leases = store.leases().await.unwrap();
    for (t, table) in game.tables.iter().enumerate() {
        let lease = leases
            .iter()
            .find(|l| l.table_id == store_id(table))
            .unwrap();
        if t == a {
            assert!(
                lease.node == "n2" || lease.node == "n3",
                "n1's table passed to a live node: {lease:?}"
            );
            assert!(
                lease.token > token_before,
                "the new owner's fencing token is above n1's ({token_before}): {lease:?}"
            );
            eprintln!("n1's table is now {}'s (token {})", lease.node, lease.token);
        } else {
            assert_eq!(
                (lease.node.as_str(), lease.token),
                (NODES[table.owner], tokens[t]),
                "a live node keeps its table and its token"
            );
        }
    }

    // The cut hand is void, and the first hand after it was dealt from the stacks it
    // began with.
    let hands = store.table_hands(table_a, 100, 0).await.unwrap();
    let cut_row = hands.iter().find(|h| h.number == cut).unwrap();
    assert_eq!(
        cut_row.status, "void",
        "hand {cut}, cut by the kill, is void"
    );
    let next = hands
        .iter()
        .filter(|h| h.number > cut && h.status == "complete")
        .min_by_key(|h| h.number)
        .expect("a hand completed after the takeover");
    let record = next.record.as_ref().expect("a complete hand has a record");
    assert_eq!(
        by_seat(&record.seats, &record.starting_stacks),
        began_with,
        "hand {} (the first after the takeover) began with the stacks hand {cut} began with",
        next.number
    );
    assert_conserved(&store.audit().await.unwrap(), deposited);

    // Nobody on n2 or n3 lost their connection: it never closed (the driver fails on a
    // close) and still answers.
    game.everyone_answers_a_ping().await;
    assert_eq!(
        game.players.iter().filter(|p| !p.moved).count(),
        5,
        "only the two players connected to n1 had to reconnect"
    );

    // Everyone leaves (after the hand in progress); every chip is in a wallet or the rake.
    let tables: Vec<_> = game.tables.iter().map(store_id).collect();
    game.everyone_leaves(&store, &tables, deposited).await;
    store.close().await;
    for node in nodes.iter_mut() {
        node.proc.kill();
    }
    eprintln!("{:?}: done", started.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_a_frozen_owner_that_wakes_up_after_its_lease_passed_on_commits_nothing() {
    let started = Instant::now();
    // Dropped in reverse: the nodes and NATS are killed before the database goes.
    let Some((backing, mut nodes)) = cluster_of(started, NODES.len()).await else {
        return;
    };
    let url = backing.url.clone();

    // One table, n1's; its three players are connected to n2 and n3.
    // n1 stays frozen past the clock of the decision it was waiting for, so that when it
    // wakes its timer has run out and it would fold that player and end the hand.
    let action_ms: u64 = 10000;
    let clock = json!({ "action_ms": action_ms, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    let plan: [(&str, usize, usize, u32); 3] =
        [("ann", 0, 1, 0), ("amy", 0, 2, 1), ("abe", 0, 1, 2)];
    for (k, (name, ..)) in plan.iter().enumerate() {
        nodes[k % 3].server.player(name, DEPOSIT).await;
    }
    let deposited = (DEPOSIT * plan.len() as u64) as i64;
    let id = nodes[KILLED].server.table_with(nl_rules(), clock).await;
    let tables = vec![Table::new(id, KILLED)];
    let store = SqlStore::connect(&url).await.unwrap();
    let table_a: poker_store::TableId = tables[0].id.parse().unwrap();
    let lease_of = |leases: Vec<poker_store::Lease>| {
        leases
            .into_iter()
            .find(|l| l.table_id == table_a)
            .expect("the table has a lease")
    };
    await_lobbies(&nodes, &tables).await;
    let players = seat_everyone(&nodes, &tables, &plan).await;
    let mut game = Game {
        players,
        ..Game::new(tables)
    };
    let a = 0;

    // Two hands, then a raise and a decision left waiting.
    let played = game
        .drive(Duration::from_secs(20), |g| g.tables[a].ended.len() >= 2)
        .await;
    assert!(played, "2 hands at n1's table: {}", game.state());
    game.tables[a].mode = Mode::Raise;
    let held = game
        .drive(Duration::from_secs(15), |g| g.tables[a].held_by.is_some())
        .await;
    assert!(held, "a raise, then a decision waiting: {}", game.state());
    let cut = game.tables[a].latest;
    let before = lease_of(store.leases().await.unwrap());
    assert_eq!(before.node, "n1", "n1 owns its table before it freezes");

    // n1 freezes (SIGSTOP): its process lives on, holding its table's actor mid-hand.
    let mut frozen = Stopped::stop(&nodes[KILLED].proc);
    let frozen_at = Instant::now();
    game.owner_lost(a, frozen_at);
    eprintln!(
        "{:?}: n1 frozen in hand {cut} of its table",
        started.elapsed()
    );

    // Another node takes the table over: every player gets a fresh snapshot, without the
    // cut hand, and the lease is that node's with a higher token.
    game.resynced("n1 freezing").await;
    for p in &game.players {
        for (_, hand) in &p.snapshots {
            assert!(
                hand.is_none_or(|n| n > cut),
                "{}: a snapshot after the takeover shows hand {hand:?}, but hand {cut} is void",
                p.client.name
            );
        }
    }
    let taken = lease_of(store.leases().await.unwrap());
    assert!(
        taken.node != "n1" && taken.token > before.token,
        "a live node holds n1's table with a token above n1's ({}): {taken:?}",
        before.token
    );
    eprintln!(
        "{:?}: {} took the table (token {} -> {})",
        started.elapsed(),
        taken.node,
        before.token,
        taken.token
    );
    assert!(
        nodes[KILLED].proc.exited().is_none(),
        "n1 is frozen, not dead"
    );

    // A full hand at the new owner, then one in progress with a decision waiting.
    let resumed = game
        .drive(Duration::from_secs(15), |g| g.ended_after(a, cut) >= 1)
        .await;
    assert!(resumed, "a hand ends at the new owner: {}", game.state());
    game.tables[a].mode = Mode::Hold;
    let held = game
        .drive(Duration::from_secs(15), |g| g.tables[a].held_by.is_some())
        .await;
    assert!(
        held,
        "a decision waiting at the new owner: {}",
        game.state()
    );
    let frozen_for = Duration::from_millis(action_ms + 500);
    game.drive(frozen_for.saturating_sub(frozen_at.elapsed()), |_| false)
        .await;
    let in_progress = game.tables[a].latest;
    assert!(
        !game.tables[a].ended.contains(&in_progress) && in_progress > cut,
        "hand {in_progress} is in progress at the new owner: {}",
        game.state()
    );
    let rows_before = hand_rows(&store, table_a).await;
    assert!(
        rows_before[&cut].contains("Void"),
        "the new owner voided hand {cut}: {}",
        rows_before[&cut]
    );

    // n1 wakes, long after its lease passed on and after the clock of the decision it was
    // waiting for ran out. Play goes on meanwhile; n1 gets more than two heartbeats.
    game.void_up_to = Some(cut);
    frozen.wake();
    let woke_at = Instant::now();
    eprintln!(
        "{:?}: n1 woken ({:?} frozen) in hand {in_progress} of the new owner",
        started.elapsed(),
        woke_at - frozen_at
    );
    game.tables[a].mode = Mode::Play;
    game.tables[a].held_by = None;
    let awake = Duration::from_millis(6 * HEARTBEAT_MS).max(Duration::from_secs(3));
    let went_on = game
        .drive(Duration::from_secs(20), |g| {
            woke_at.elapsed() >= awake && g.ended_after(a, in_progress) >= 1
        })
        .await;
    assert!(
        went_on,
        "after n1 wakes, hand {in_progress} and a later one end at the new owner: {}",
        game.state()
    );
    assert!(
        game.tables[a].ended.contains(&in_progress),
        "hand {in_progress}, in progress when n1 woke, ended: {}",
        game.state()
    );
    eprintln!(
        "{:?}: play went on after n1 woke ({} hands ended in all); n1's last lines:\n{}",
        started.elapsed(),
        game.tables[a].ended.len(),
        nodes[KILLED].proc.tail()
    );

    // n1 wrote nothing: the lease is still the new owner's, with the same token; every
    // hand row that existed when n1 woke is as it was (the cut hand still void), except
    // the hand then in progress, which the new owner completed; and the hands after it
    // are numbered on, one row each (hand_rows checks), none void.
    let after = lease_of(store.leases().await.unwrap());
    assert_eq!(
        (after.node.as_str(), after.token),
        (taken.node.as_str(), taken.token),
        "the lease stays with the new owner after n1 wakes: {after:?}"
    );
    let rows_after = hand_rows(&store, table_a).await;
    for (n, row) in &rows_before {
        if *n == in_progress {
            assert!(
                rows_after[n].contains("Complete"),
                "hand {n} completed after n1 woke: {}",
                rows_after[n]
            );
        } else {
            assert_eq!(&rows_after[n], row, "hand {n}'s row changed after n1 woke");
        }
    }
    for (n, row) in rows_after.range(in_progress + 1..) {
        assert!(
            !row.contains("Void"),
            "hand {n}, dealt after n1 woke, is void: {row}"
        );
    }
    assert_eq!(
        rows_after.keys().copied().collect::<Vec<_>>(),
        (1..=*rows_after.keys().last().unwrap()).collect::<Vec<_>>(),
        "the table's hands are numbered without gaps: {rows_after:?}"
    );
    // Nothing of the void hand reaches a player once n1 is awake (its actor must not time
    // out the decision it was waiting for and broadcast that before it stops).
    assert!(
        game.stale.is_empty(),
        "after n1 woke, players were sent messages of hands up to the void hand {cut}: {:#?}",
        game.stale
    );
    assert_conserved(&store.audit().await.unwrap(), deposited);

    // Every connection still answers.
    game.everyone_answers_a_ping().await;

    // Everyone leaves; every chip is in a wallet or the rake.
    game.everyone_leaves(&store, &[table_a], deposited).await;
    let rows_end = hand_rows(&store, table_a).await;
    assert!(
        rows_end[&cut].contains("Void"),
        "hand {cut} is still void at the end: {}",
        rows_end[&cut]
    );
    store.close().await;
    drop(frozen);
    for node in nodes.iter_mut() {
        node.proc.kill();
    }
    eprintln!("{:?}: done", started.elapsed());
}

/// n1 reaches NATS through a relay, n2 directly; n1 owns the table, whose players are
/// connected to n2. The relay is cut in the middle of a hand: n1 still reaches the
/// database but no player can reach its table, so it renews no lease; once its lease has
/// run out n2 takes the table (voiding the cut hand) and play goes on. When n1 is reached
/// again it finds the table gone and stops it; it commits nothing, and every chip is
/// accounted for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_a_node_cut_off_from_nats_renews_no_lease_and_its_table_moves() {
    let started = Instant::now();
    let Some(backing) = backing().await else {
        return;
    };
    let (url, nats_url) = (backing.url.clone(), backing.nats_url.clone());
    let relay = Relay::start(&nats_url).await;
    let mut nodes = vec![
        pokerd(NODES[0], &url, &relay.url).await,
        pokerd(NODES[1], &url, &nats_url).await,
    ];
    let clock = json!({ "action_ms": 10000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    let plan = ["ann", "amy", "abe"];
    for name in plan {
        nodes[1].server.player(name, DEPOSIT).await;
    }
    let deposited = (DEPOSIT * plan.len() as u64) as i64;
    let id = nodes[0].server.table_with(nl_rules(), clock).await;
    let table_a: poker_store::TableId = id.parse().unwrap();
    let tables = vec![Table::new(id, 0)];
    let store = SqlStore::connect(&url).await.unwrap();
    let lease_of = |leases: Vec<poker_store::Lease>| {
        leases
            .into_iter()
            .find(|l| l.table_id == table_a)
            .expect("the table has a lease")
    };
    await_lobbies(&nodes, &tables).await;
    let mut game = Game::new(tables);
    for (seat, name) in plan.iter().enumerate() {
        game.join(&nodes[1], 1, name, 0, seat as u32).await;
    }
    let a = 0;

    // Two hands, then a raise and a decision left waiting; then n1 loses NATS.
    let played = game
        .drive(Duration::from_secs(20), |g| g.tables[a].ended.len() >= 2)
        .await;
    assert!(played, "2 hands at n1's table: {}", game.state());
    game.tables[a].mode = Mode::Raise;
    let held = game
        .drive(Duration::from_secs(15), |g| g.tables[a].held_by.is_some())
        .await;
    assert!(held, "a raise, then a decision waiting: {}", game.state());
    let cut = game.tables[a].latest;
    let before = lease_of(store.leases().await.unwrap());
    assert_eq!(before.node, "n1", "n1 owns its table before it is cut off");
    // The players' commands went from n2 to n1 through NATS; no lease has moved yet.
    let n2_before = scraped(&nodes[1].server).await;
    assert!(n2_before["poker_nats_round_trip_seconds_count"] > 0.0);
    assert_eq!(n2_before["poker_lease_takeovers_total"], 0.0);
    assert_eq!(scraped(&nodes[0].server).await["poker_nats_connected"], 1.0);
    relay.cut();
    let cut_at = Instant::now();
    game.owner_lost(a, cut_at);
    eprintln!(
        "{:?}: n1 cut off from NATS in hand {cut}",
        started.elapsed()
    );

    // n2 takes the table once n1's lease has run out: everyone gets a snapshot without
    // the cut hand, and two hands end there.
    game.resynced("n1 losing NATS").await;
    let taken = lease_of(store.leases().await.unwrap());
    assert!(
        taken.node == "n2" && taken.token > before.token,
        "n2 holds n1's table with a higher token: {taken:?}"
    );
    eprintln!(
        "{:?}: n2 took the table, snapshots {:?} after the cut",
        started.elapsed(),
        game.players
            .iter()
            .map(|p| p.snapshots[0].0 - cut_at)
            .collect::<Vec<_>>()
    );
    for p in &game.players {
        for (_, hand) in &p.snapshots {
            assert!(
                hand.is_none_or(|n| n > cut),
                "{}: a snapshot after the takeover shows hand {hand:?}, but hand {cut} is void",
                p.client.name
            );
        }
    }
    let resumed = game
        .drive(Duration::from_secs(15), |g| g.ended_after(a, cut) >= 2)
        .await;
    assert!(resumed, "2 hands end at n2: {}", game.state());
    assert!(nodes[0].proc.exited().is_none(), "n1 is cut off, not dead");
    // What the alerts read (config/monitoring/alerts.yml): n1 says it is cut off from
    // NATS, n2 that it took a table from a node that held it and voided the cut hand.
    assert_eq!(scraped(&nodes[0].server).await["poker_nats_connected"], 0.0);
    let n2 = scraped(&nodes[1].server).await;
    assert_eq!(n2["poker_lease_takeovers_total"], 1.0);
    assert_eq!(n2["poker_hands_voided_total"], 1.0);
    assert_eq!(n2["poker_nats_connected"], 1.0);

    // NATS reaches n1 again: it finds its table gone and stops it there; the lease stays
    // n2's, and play goes on.
    relay.mend();
    let mended_at = Instant::now();
    game.void_up_to = Some(cut);
    let deadline = mended_at + Duration::from_secs(15);
    loop {
        let stopped = nodes[0]
            .warnings
            .lock()
            .unwrap()
            .iter()
            .any(|w| w.contains("stopping it here"));
        if stopped {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "n1 stops its table within 15 s of reaching NATS again; its last lines:\n{}",
            nodes[0].proc.tail()
        );
        game.drive(Duration::from_millis(100), |_| false).await;
    }
    eprintln!(
        "{:?}: n1 stopped its table {:?} after NATS came back",
        started.elapsed(),
        mended_at.elapsed()
    );
    let latest = game.tables[a].latest;
    let went_on = game
        .drive(Duration::from_secs(15), |g| g.ended_after(a, latest) >= 1)
        .await;
    assert!(went_on, "play goes on at n2: {}", game.state());
    assert_eq!(scraped(&nodes[0].server).await["poker_nats_connected"], 1.0);
    let after = lease_of(store.leases().await.unwrap());
    assert_eq!(
        (after.node.as_str(), after.token),
        (taken.node.as_str(), taken.token),
        "the lease stays n2's"
    );
    let rows = hand_rows(&store, table_a).await;
    assert!(
        rows[&cut].contains("Void"),
        "hand {cut} is void: {}",
        rows[&cut]
    );
    for (n, row) in rows.range(cut + 1..) {
        assert!(
            !row.contains("Void"),
            "hand {n}, dealt at n2, is void: {row}"
        );
    }
    assert!(
        game.stale.is_empty(),
        "players were sent messages of hands up to the void hand {cut}: {:#?}",
        game.stale
    );

    // Everyone leaves; every chip is in a wallet or the rake.
    game.everyone_leaves(&store, &[table_a], deposited).await;
    store.close().await;
    for node in nodes.iter_mut() {
        node.proc.kill();
    }
    eprintln!("{:?}: done", started.elapsed());
}

/// Whoever can publish on NATS can speak for any node, so a deployment runs nats-server
/// with a token (docker-compose.yml does) and the nodes carry it in their NATS URL
/// (`nats://TOKEN@host`, percent-encoded). nats-server refuses a client without it; a
/// node given a wrong one stops at once saying NATS refused it, without showing the
/// token; two nodes with it play a table across NATS (a player on n2, the table at n1)
/// and every chip is accounted for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_nodes_speak_through_a_nats_server_that_requires_a_token() {
    nats_server_binary();
    let Some(guard) = DbGuard::new(Db::Postgres).await else {
        return;
    };
    let url = guard.url();
    let token = "s3cr@t/token-4f1c9e";
    let (_nats, bare) = nats_with_token(token).await;
    let with = |t: &str| bare.replacen("nats://", &format!("nats://{t}@"), 1);

    assert!(
        async_nats::connect(bare.as_str()).await.is_err(),
        "nats-server accepted a client without its token"
    );
    let wrong = std::process::Command::new(env!("CARGO_BIN_EXE_pokerd"))
        .env("DATABASE_URL", &url)
        .env("POKER__SERVER__ADDR", "127.0.0.1:0")
        .env("POKER__ADMIN__TOKEN", common::TOKEN)
        .env("POKER__ROOM__MONEY", "real")
        .env("POKER__CLUSTER__NATS_URL", with("wrong-token-7d2a"))
        .env("POKER__CLUSTER__NODE", "n9")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("pokerd runs");
    let said = String::from_utf8_lossy(&wrong.stderr).to_string()
        + &String::from_utf8_lossy(&wrong.stdout);
    assert!(
        !wrong.status.success(),
        "a node with a wrong token started: {said}"
    );
    assert!(
        said.contains("cannot reach NATS") && !said.contains("wrong-token-7d2a"),
        "the node says NATS refused it, without the token: {said}"
    );

    let encoded = "s3cr%40t%2Ftoken-4f1c9e";
    let mut nodes = vec![
        pokerd(NODES[0], &url, &with(encoded)).await,
        pokerd(NODES[1], &url, &with(encoded)).await,
    ];
    for node in &nodes {
        let tail = node.proc.tail();
        assert!(
            !tail.contains("4f1c9e"),
            "{} shows the NATS token in its output:\n{tail}",
            node.name
        );
    }
    let clock = json!({ "action_ms": 10000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    let plan = ["ann", "amy", "abe"];
    for name in plan {
        nodes[1].server.player(name, DEPOSIT).await;
    }
    let deposited = (DEPOSIT * plan.len() as u64) as i64;
    let id = nodes[0].server.table_with(nl_rules(), clock).await;
    let table_a: poker_store::TableId = id.parse().unwrap();
    let tables = vec![Table::new(id, 0)];
    await_lobbies(&nodes, &tables).await;
    let mut game = Game::new(tables);
    for (seat, name) in plan.iter().enumerate() {
        game.join(&nodes[1], 1, name, 0, seat as u32).await;
    }
    let played = game
        .drive(Duration::from_secs(20), |g| g.tables[0].ended.len() >= 3)
        .await;
    assert!(
        played,
        "3 hands at n1's table, played from n2: {}",
        game.state()
    );
    let store = SqlStore::connect(&url).await.unwrap();
    let lease = store
        .leases()
        .await
        .unwrap()
        .into_iter()
        .find(|l| l.table_id == table_a)
        .expect("the table has a lease");
    assert_eq!(
        lease.node, "n1",
        "n1 owns the table the players of n2 played"
    );
    game.everyone_leaves(&store, &[table_a], deposited).await;
    store.close().await;
    for node in nodes.iter_mut() {
        node.proc.kill();
    }
}

/// A node's `/metrics`: each unlabelled sample by name.
async fn scraped(server: &common::Server) -> BTreeMap<String, f64> {
    let (status, text) = server.get("/metrics").await;
    assert_eq!(status, 200, "/metrics: {text}");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.contains('{'))
        .filter_map(|l| {
            let (name, value) = l.split_once(' ')?;
            Some((name.to_string(), value.parse().ok()?))
        })
        .collect()
}
