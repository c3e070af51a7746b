//! A node stopped with SIGTERM (a rolling upgrade stops the nodes one at a time) hands its
//! tables to the others between hands: none of its hands is void, and every player at its
//! tables streams again from the new owner within 2 s (issue 38).

use super::common;
use super::harness::*;
use common::cluster::{pokerd_with, terminate, Node};
use common::{assert_conserved, nl_rules, reconnect};
use poker_protocol::ServerMsg;
use poker_store::SqlStore;
use serde_json::json;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The lease and heartbeat of config/default.toml: a hand-off must wait for neither.
const DEFAULT_LEASE_MS: u64 = 10_000;
const DEFAULT_HEARTBEAT_MS: u64 = 2_000;
/// n1's `server.shutdown_grace_ms` (60 s by default; its hands here end within seconds).
const GRACE_MS: u64 = 15_000;
/// The limit: from the end of a table's last hand on n1 (or, for a player
/// connected to n1, from that connection's close) to the table's snapshot from its new
/// owner.
const HANDOFF_LIMIT: Duration = Duration::from_secs(2);
/// How long the slow table's last hand goes on after SIGTERM (a player thinking).
const SLOW_HAND: Duration = Duration::from_secs(3);
/// n1's two tables (table `i` is created through node `i % 3`): at the quick one the hand
/// in progress at SIGTERM ends at once, at the slow one only after `SLOW_HAND`.
const QUICK: usize = 0;
const SLOW: usize = 3;

/// Starts a node with the default lease and heartbeat and a grace of `grace_ms`.
async fn node(name: &'static str, url: &str, nats_url: &str, grace_ms: u64) -> Node {
    let grace = grace_ms.to_string();
    let settings = [("POKER__SERVER__SHUTDOWN_GRACE_MS", grace.as_str())];
    pokerd_with(
        name,
        url,
        nats_url,
        DEFAULT_LEASE_MS,
        DEFAULT_HEARTBEAT_MS,
        &settings,
    )
    .await
}

/// Three nodes with the default lease (10 s) and heartbeat (2 s), two tables each; n1's two
/// are played by three players each, one connected to every node. Both of n1's tables are
/// in the middle of a hand, waiting for a player, when n1 gets SIGTERM; at the quick table
/// the player answers at once, at the slow one 3 s later.
///
/// Each table's hand finishes on n1 and commits; the table goes to n2 or n3 and deals
/// again there. Nothing is void: no hand row is, and every hand a player saw end is
/// complete. The players on n2 and n3 get their table's snapshot from its new owner
/// within 2 s of seeing its last hand on n1 end: the quick table does not wait for the
/// slow one, nor for anyone's heartbeat. The players on n1 see their connection close,
/// reconnect at once to another node, sign in with their session and have their table's
/// snapshot within 2 s of the close. n1 exits with status 0 within its grace period, no
/// connection to n2 or n3 closes, and every chip is accounted for. The hand-off times are
/// printed (docs/operations.md, Rolling upgrades, quotes them).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_sigterm_hands_a_nodes_tables_to_the_others_between_hands_and_every_player_streams_again_within_2_s(
) {
    let started = Instant::now();
    let Some(backing) = backing().await else {
        return;
    };
    let (url, nats_url) = (backing.url.clone(), backing.nats_url.clone());
    let mut nodes = Vec::new();
    for name in NODES {
        nodes.push(node(name, &url, &nats_url, GRACE_MS).await);
    }
    let up_at = Instant::now();
    eprintln!("{:?}: three nodes up", started.elapsed());

    // (name, table, node connected to, seat): at each of n1's tables one player on n1,
    // one on n2, one on n3.
    let plan: [(&str, usize, usize, u32); 6] = [
        ("ann", QUICK, 0, 0),
        ("amy", QUICK, 1, 1),
        ("abe", QUICK, 2, 2),
        ("bob", SLOW, 0, 0),
        ("bea", SLOW, 1, 1),
        ("ben", SLOW, 2, 2),
    ];
    for (k, (name, ..)) in plan.iter().enumerate() {
        nodes[k % 3].server.player(name, DEPOSIT).await;
    }
    let deposited = (DEPOSIT * plan.len() as u64) as i64;

    // Six tables, created through n1, n2, n3 in turn: each node owns two, its fair share,
    // so none is handed over before the test stops n1.
    let clock = json!({ "action_ms": 10000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    let mut tables = Vec::new();
    for t in 0..6 {
        let owner = t % 3;
        let id = nodes[owner]
            .server
            .table_with(nl_rules(), clock.clone())
            .await;
        tables.push(Table::new(id, owner));
    }
    let store = SqlStore::connect(&url).await.unwrap();
    let store_id = |t: &Table| -> poker_store::TableId { t.id.parse().unwrap() };
    let table_ids: Vec<poker_store::TableId> = tables.iter().map(store_id).collect();
    await_lobbies(&nodes, &tables).await;
    let mut game = Game::new(tables);
    for &(name, t, n, seat) in &plan {
        let refused = game.join(&nodes[n], n, name, t, seat).await;
        assert_eq!(refused, 0, "{name}: nothing moves before n1 is stopped");
    }
    // Two hands at least, and the nodes settled: a node takes no table for its first two
    // heartbeats (it first hears who is up), and a rolling upgrade stops nodes that have
    // been up a while.
    let settled = Duration::from_millis(3 * DEFAULT_HEARTBEAT_MS);
    let played = game
        .drive(Duration::from_secs(30), |g| {
            g.tables[QUICK].ended.len() >= 2
                && g.tables[SLOW].ended.len() >= 2
                && up_at.elapsed() >= settled
        })
        .await;
    assert!(played, "2 hands at each of n1's tables: {}", game.state());
    let before = leases(&store).await;
    for (t, id) in table_ids.iter().enumerate() {
        assert_eq!(
            before[id].0,
            NODES[t % 3],
            "table {t} is owned by the node it was created through: {before:?}"
        );
    }
    assert_eq!(voided(&store, &table_ids).await, 0, "no hand is void yet");

    // At both of n1's tables a player is asked and does not answer yet: a hand is in
    // progress at each when n1 gets SIGTERM.
    game.tables[QUICK].mode = Mode::Hold;
    game.tables[SLOW].mode = Mode::Hold;
    let held = game
        .drive(Duration::from_secs(15), |g| {
            g.tables[QUICK].held_by.is_some() && g.tables[SLOW].held_by.is_some()
        })
        .await;
    assert!(held, "a decision waits at both tables: {}", game.state());
    let last_on_n1: BTreeMap<usize, u64> = [QUICK, SLOW]
        .into_iter()
        .map(|t| (t, game.tables[t].latest))
        .collect();
    terminate(&nodes[0].proc);
    let term_at = Instant::now();
    game.stopping = Some(0);
    game.after_kill = true;
    game.killed_at = Some(term_at);
    eprintln!(
        "{:?}: SIGTERM to n1 in hands {last_on_n1:?} of its tables (quick, slow)",
        started.elapsed()
    );
    game.tables[QUICK].mode = Mode::Play;
    game.tables[QUICK].held_by = None;

    // Play on: the slow table's player answers after `SLOW_HAND`; players whose
    // connection to n1 closes reconnect at once, to n2 (ann) or n3 (bob).
    let mut closed_at: BTreeMap<usize, Instant> = BTreeMap::new();
    let mut exit = None;
    let deadline = term_at + Duration::from_secs(30);
    loop {
        if game.tables[SLOW].mode == Mode::Hold && term_at.elapsed() >= SLOW_HAND {
            game.tables[SLOW].mode = Mode::Play;
            game.tables[SLOW].held_by = None;
        }
        for i in 0..game.players.len() {
            let Some(closed) = game.players[i].closed else {
                continue;
            };
            let to = if game.players[i].table == QUICK { 1 } else { 2 };
            let p = &mut game.players[i];
            reconnect(&mut p.client, nodes[to].server.addr, &p.token).await;
            p.client.answered.clear();
            p.closed = None;
            p.node = to;
            p.moved = true;
            p.awaiting_snapshot = Some(Instant::now());
            closed_at.insert(i, closed);
        }
        if exit.is_none() {
            exit = nodes[0]
                .proc
                .exited()
                .map(|status| (status, term_at.elapsed()));
        }
        let streaming = game.players.iter().enumerate().all(|(i, p)| {
            let after = match (p.node, closed_at.get(&i)) {
                (0, _) => return false,
                (_, Some(&closed)) => closed,
                (_, None) => match ended_at(p, last_on_n1[&p.table]) {
                    Some(at) => at,
                    None => return false,
                },
            };
            p.snapshots.iter().any(|(at, _)| *at > after)
        });
        let dealing = [QUICK, SLOW]
            .iter()
            .all(|&t| game.ended_after(t, last_on_n1[&t]) >= 2);
        if streaming && dealing && exit.is_some() {
            break;
        }
        let waiting: Vec<String> = (0..game.players.len())
            .filter(|&i| game.players[i].snapshots.is_empty())
            .map(|i| game.name(i))
            .collect();
        assert!(
            Instant::now() < deadline,
            "within 30 s of SIGTERM: n1 exits ({exit:?}), every player gets a snapshot from \
             the new owner (none yet: {waiting:?}) and 2 hands end at each of n1's former \
             tables: {}; n1's last lines:\n{}",
            game.state(),
            nodes[0].proc.tail()
        );
        game.drive(Duration::from_millis(20), |g| {
            g.players.iter().any(|p| p.closed.is_some())
        })
        .await;
    }

    // n1 exited cleanly within its grace period, after both of its hands ended.
    let (status, exited_after) = exit.unwrap();
    assert!(
        status.success(),
        "n1 exits with status 0 on SIGTERM, not {status}; its last lines:\n{}",
        nodes[0].proc.tail()
    );
    assert!(
        exited_after < Duration::from_millis(GRACE_MS),
        "n1 exits within its grace period ({GRACE_MS} ms), not {exited_after:?} after SIGTERM"
    );

    // The hand-off each player saw. On n2 and n3: from the end of their table's last hand
    // on n1 to its new owner's snapshot; on n1: from the close to the snapshot after
    // reconnecting (and, meanwhile, from that hand's end to the first snapshot after it).
    let mut others: Vec<(String, Duration)> = Vec::new();
    let mut from_close: Vec<(String, Duration)> = Vec::new();
    let mut on_n1_ended: Vec<(String, Duration)> = Vec::new();
    for (i, p) in game.players.iter().enumerate() {
        let last = last_on_n1[&p.table];
        let ended = ended_at(p, last).unwrap_or_else(|| {
            panic!(
                "{}: saw hand {last} (the last on n1) end: {:?}",
                game.name(i),
                p.hands_ended
            )
        });
        let first_after = |since: Instant| {
            p.snapshots
                .iter()
                .find(|(at, _)| *at > since)
                .copied()
                .expect("a snapshot came")
        };
        let (snapshot_at, hand) = first_after(ended);
        assert!(
            hand.is_none_or(|n| n > last),
            "{}: the new owner's snapshot shows hand {hand:?}, but hand {last} ended on n1",
            game.name(i)
        );
        match closed_at.get(&i) {
            Some(&closed) => {
                assert!(
                    closed > ended,
                    "{}: the connection to n1 closed only after hand {last} ended",
                    game.name(i)
                );
                on_n1_ended.push((game.name(i), snapshot_at - ended));
                from_close.push((game.name(i), first_after(closed).0 - closed));
            }
            None => others.push((game.name(i), snapshot_at - ended)),
        }
    }
    assert_eq!(
        from_close.len(),
        2,
        "both players on n1 saw their connection close: {from_close:?}"
    );
    let max = |times: &[(String, Duration)]| times.iter().map(|(_, d)| *d).max().unwrap();
    eprintln!(
        "hand-off, players on n2 and n3 (their table's last hand on n1 ended -> the new \
         owner's snapshot): max {:?}; {others:?}",
        max(&others)
    );
    eprintln!(
        "hand-off, players on n1 (the connection closed -> the snapshot after reconnecting): \
         max {:?}; {from_close:?}; (their table's last hand on n1 ended -> the next \
         snapshot, still on n1: {on_n1_ended:?})",
        max(&from_close)
    );
    eprintln!("n1 exited {exited_after:?} after SIGTERM, status {status}");
    for (who, took) in others.iter().chain(&from_close) {
        assert!(
            *took <= HANDOFF_LIMIT,
            "{who} streams again {took:?} after their table's hand-off began, over the \
             {HANDOFF_LIMIT:?} limit; players on n2 and n3: {others:?}, on n1: {from_close:?}"
        );
    }

    // n1's tables are n2's and n3's now (each under a new token), and the others stayed.
    let after = leases(&store).await;
    for (t, id) in table_ids.iter().enumerate() {
        let (node, token) = &after[id];
        if t % 3 == 0 {
            assert!(
                (node == "n2" || node == "n3") && *token > before[id].1,
                "n1's table {t} passed to n2 or n3 under a higher token: {node} {token}"
            );
            eprintln!("n1's table {t} is {node}'s now");
        } else {
            assert_eq!(after[id], before[id], "table {t} stayed where it was");
        }
    }

    // Nothing was void: no hand row of any table, numbered without gaps, and every hand a
    // player saw end is complete; no player was told a table failed.
    assert_eq!(voided(&store, &table_ids).await, 0, "no hand is void");
    for t in [QUICK, SLOW] {
        let rows = hand_rows(&store, table_ids[t]).await;
        assert_eq!(
            rows.keys().copied().collect::<Vec<_>>(),
            (1..=*rows.keys().last().unwrap()).collect::<Vec<_>>(),
            "table {t}'s hands are numbered without gaps: {rows:?}"
        );
        for n in &game.tables[t].ended {
            assert!(
                rows[n].contains("Complete"),
                "table {t}: hand {n} ended but is not complete: {}",
                rows[n]
            );
        }
    }
    for (i, p) in game.players.iter().enumerate() {
        let failed = p
            .client
            .log
            .iter()
            .find(|m| matches!(m, ServerMsg::TableFailed { .. }));
        assert!(failed.is_none(), "{}: {failed:?}", game.name(i));
    }
    assert_conserved(&store.audit().await.unwrap(), deposited);
    eprintln!(
        "{:?}: every table handed over ({} answers refused as stale)",
        started.elapsed(),
        game.stale_refusals
    );

    // Every connection answers; everyone leaves, and every chip is in a wallet or the rake.
    game.everyone_answers_a_ping().await;
    game.everyone_leaves(&store, &table_ids, deposited).await;
    store.close().await;
    for node in nodes.iter_mut() {
        node.proc.kill();
    }
    eprintln!("{:?}: done", started.elapsed());
}

/// n1 owns a table whose players, on n2, leave a decision unanswered past n1's grace
/// period (1 s here) after SIGTERM. At the grace the hand is cut: n1 stops the table,
/// writing nothing, and releases its lease, so n2 takes the table at once (as released,
/// not as a lapsed lease: no takeover counted, long before the 10 s lease would have run
/// out) and voids that hand, stacks as it began. Play goes on at n2, nothing of the void
/// hand reaches a player after, n1 exits with status 0, and every chip is accounted for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_sigterm_cuts_a_hand_still_running_after_the_grace_period_and_the_next_owner_voids_it_at_once(
) {
    const SHORT_GRACE_MS: u64 = 1000;
    let started = Instant::now();
    let Some(backing) = backing().await else {
        return;
    };
    let (url, nats_url) = (backing.url.clone(), backing.nats_url.clone());
    let mut nodes = vec![
        node(NODES[0], &url, &nats_url, SHORT_GRACE_MS).await,
        node(NODES[1], &url, &nats_url, SHORT_GRACE_MS).await,
    ];
    let up_at = Instant::now();
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
    await_lobbies(&nodes, &tables).await;
    let mut game = Game::new(tables);
    for (seat, name) in plan.iter().enumerate() {
        game.join(&nodes[1], 1, name, 0, seat as u32).await;
    }
    let a = 0;
    let settled = Duration::from_millis(3 * DEFAULT_HEARTBEAT_MS);
    let played = game
        .drive(Duration::from_secs(30), |g| {
            g.tables[a].ended.len() >= 2 && up_at.elapsed() >= settled
        })
        .await;
    assert!(played, "2 hands at n1's table: {}", game.state());

    // A decision waits, and keeps waiting past n1's grace.
    game.tables[a].mode = Mode::Hold;
    let held = game
        .drive(Duration::from_secs(15), |g| g.tables[a].held_by.is_some())
        .await;
    assert!(held, "a decision waits: {}", game.state());
    // Everyone reads what the hand sent so far (nothing more comes while it waits).
    game.drive(Duration::from_millis(300), |_| false).await;
    let cut = game.tables[a].latest;
    let before = leases(&store).await[&table_a].clone();
    assert_eq!(before.0, "n1", "n1 owns the table");
    terminate(&nodes[0].proc);
    let term_at = Instant::now();
    // Nobody answers the cut hand's decision; the next owner's are answered.
    game.owner_lost(a, term_at);
    game.void_up_to = Some(cut);
    eprintln!("{:?}: SIGTERM to n1 in hand {cut}", started.elapsed());

    // n1 exits; every player gets the table's snapshot from n2; two hands end there.
    let mut exit = None;
    let deadline = term_at + Duration::from_secs(20);
    loop {
        if exit.is_none() {
            exit = nodes[0]
                .proc
                .exited()
                .map(|status| (status, term_at.elapsed()));
        }
        let resynced = game.players.iter().all(|p| !p.snapshots.is_empty());
        if exit.is_some() && resynced && game.ended_after(a, cut) >= 2 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "within 20 s of SIGTERM: n1 exits ({exit:?}), every player gets a snapshot from \
             n2 and 2 hands end there: {}; n1's last lines:\n{}",
            game.state(),
            nodes[0].proc.tail()
        );
        game.drive(Duration::from_millis(20), |_| false).await;
    }
    let (status, exited_after) = exit.unwrap();
    assert!(
        status.success(),
        "n1 exits with status 0 after cutting a hand, not {status}; its last lines:\n{}",
        nodes[0].proc.tail()
    );
    let snapshots: Vec<Duration> = game
        .players
        .iter()
        .map(|p| p.snapshots[0].0 - term_at)
        .collect();
    eprintln!(
        "n1 exited {exited_after:?} after SIGTERM (grace {SHORT_GRACE_MS} ms); snapshots from \
         n2 {snapshots:?} after SIGTERM"
    );
    for p in &game.players {
        for (_, hand) in &p.snapshots {
            assert!(
                hand.is_none_or(|n| n > cut),
                "{}: a snapshot from n2 shows hand {hand:?}, but hand {cut} is void",
                p.client.name
            );
        }
    }

    // n2 took the released lease (no takeover of a held lease) and voided the cut hand;
    // the first hand after it began with the stacks the cut one began with.
    let after = leases(&store).await[&table_a].clone();
    assert!(
        after.0 == "n2" && after.1 > before.1,
        "n2 holds the table under a higher token: {after:?}"
    );
    let n2 = super::scraped(&nodes[1].server).await;
    assert_eq!(
        n2["poker_lease_takeovers_total"], 0.0,
        "n1 released the lease: n2 took it over from nobody"
    );
    assert_eq!(
        n2["poker_hands_voided_total"], 1.0,
        "n2 voided the cut hand"
    );
    let rows = hand_rows(&store, table_a).await;
    for (n, row) in &rows {
        assert_eq!(
            row.contains("Void"),
            *n == cut,
            "hand {cut}, cut at n1's grace, is void and no other: hand {n}: {row}"
        );
    }
    let hands = store.table_hands(table_a, 100, 0).await.unwrap();
    let record = |h: &poker_store::HandRow| h.record.clone().expect("a complete hand's record");
    let last = hands
        .iter()
        .filter(|h| h.number < cut && h.status == "complete")
        .max_by_key(|h| h.number)
        .map(record)
        .expect("a hand completed before the cut one");
    let next = hands
        .iter()
        .filter(|h| h.number > cut && h.status == "complete")
        .min_by_key(|h| h.number)
        .map(record)
        .expect("a hand completed after the cut one");
    assert_eq!(
        by_seat(&next.seats, &next.starting_stacks),
        by_seat(&last.seats, &last.finishing_stacks),
        "the first hand at n2 began with the stacks the cut hand began with"
    );
    assert!(
        game.stale.is_empty(),
        "players were sent messages of the void hand {cut}: {:#?}",
        game.stale
    );
    assert_conserved(&store.audit().await.unwrap(), deposited);

    // Everyone leaves; every chip is in a wallet or the rake.
    game.everyone_leaves(&store, &[table_a], deposited).await;
    store.close().await;
    for node in nodes.iter_mut() {
        node.proc.kill();
    }
    eprintln!("{:?}: done", started.elapsed());
}

/// When a player saw hand `hand` end.
fn ended_at(p: &Player, hand: u64) -> Option<Instant> {
    p.hands_ended
        .iter()
        .find(|(n, _)| *n == hand)
        .map(|(_, at)| *at)
}

/// Each table's lease: its node and token.
async fn leases(store: &SqlStore) -> BTreeMap<poker_store::TableId, (String, u64)> {
    let all = store.leases().await.unwrap();
    all.into_iter()
        .map(|l| (l.table_id, (l.node, l.token)))
        .collect()
}

/// The void hands of these tables.
async fn voided(store: &SqlStore, tables: &[poker_store::TableId]) -> usize {
    let mut void = 0;
    for &table in tables {
        let hands = store.table_hands(table, 1_000_000, 0).await.unwrap();
        void += hands.iter().filter(|h| h.status == "void").count();
    }
    void
}
