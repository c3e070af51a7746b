//! One connection, one identity, attacked through real WebSockets on SQLite and
//! PostgreSQL (and two nodes over NATS): a second `auth` for another player on a socket is
//! refused and the first player's stream goes on; whatever ends a session (logout, a floor
//! password reset, a lock) closes its sockets, on this node or another, before the request
//! that ended it is answered, so nothing of the player's (cards, decisions, a later hand)
//! reaches a socket after that, even when the client that asked hangs up at once (and an
//! admin's deposit so abandoned is still in the audit log); a socket that never
//! authenticates, or that answers no ping, is closed.

use crate::common;

use common::nats::{nats, Proc, Relay};
use common::{nl_rules, Client, Db, DbGuard, Received, Server};
use poker_protocol::{ClientMsg, ErrorCode, ServerMsg};
use poker_rules::Event;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// A second to act (the logged-out player times out quickly), never sat out for it.
fn clock() -> Value {
    json!({ "action_ms": 1000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 })
}

/// What ends ann's session.
#[derive(Clone, Copy, Debug)]
enum Ending {
    /// She logs out (`POST /logout`).
    Logout,
    /// An admin gives her a new password (setting one directly is an admin's alone: the
    /// floor issues reset codes, which end no session until she uses one).
    PasswordReset,
    /// A floor member locks her out.
    Lock,
}

/// A room of one or more nodes on one database, with a table where ann, bob and cat sit.
struct Room {
    /// The nodes (one, or two sharing NATS).
    nodes: Vec<Server>,
    /// Keeps NATS running (two nodes).
    _nats: Option<Proc>,
    table: String,
    ann_id: String,
    /// A floor member's session (resets and locks are theirs to do).
    floor: String,
}

const DEPOSIT: u64 = 1000;

/// Starts `nodes` nodes (two: over a fresh `nats-server`, on PostgreSQL) and makes the
/// players, a floor member and the table through the first.
async fn room(guard: &DbGuard, nodes: usize) -> Room {
    let url = guard.url();
    let (nats, servers) = if nodes == 1 {
        (None, vec![Server::start(&url, &[]).await])
    } else {
        let (proc, nats_url) = nats().await;
        let mut servers = Vec::new();
        for n in 0..nodes {
            let node = format!("n{}", n + 1);
            let settings = [
                ("POKER__CLUSTER__NATS_URL", nats_url.as_str()),
                ("POKER__CLUSTER__NODE", node.as_str()),
                ("POKER__CLUSTER__LEASE_MS", "3000"),
                ("POKER__CLUSTER__HEARTBEAT_MS", "300"),
            ];
            // One at a time: the first runs the migrations alone.
            servers.push(Server::start(&url, &settings).await);
        }
        (Some(proc), servers)
    };
    let first = &servers[0];
    let ann_id = first.player("ann", DEPOSIT).await;
    first.player("bob", DEPOSIT).await;
    first.player("cat", DEPOSIT).await;
    let table = first.table_with(nl_rules(), clock()).await;
    let floor = floor_session(first).await;
    Room {
        nodes: servers,
        _nats: nats,
        table,
        ann_id,
        floor,
    }
}

/// A floor member's session token.
async fn floor_session(server: &Server) -> String {
    server.staff("fred", "floor").await.1
}

/// A player logged in and authenticated at `server`, seated at `seat`.
async fn seated(server: &Server, table: &str, name: &str, seat: u32) -> (Client, String) {
    let token = server.login(name).await;
    let mut client = Client::connect(server.addr, name).await;
    client.auth(&token).await;
    client.sat(table, seat, 200).await;
    (client, token)
}

/// The hand a message is about, if any.
fn hand_of(msg: &ServerMsg) -> Option<u64> {
    match msg {
        ServerMsg::Event { hand_number, .. } | ServerMsg::Turn { hand_number, .. } => {
            Some(*hand_number)
        }
        ServerMsg::Snapshot { hand: Some(h), .. } => Some(h.hand_number),
        _ => None,
    }
}

/// Answers every decision these players are asked (check or call) until `done` is true
/// of a message one of them got (by index); panics if nothing comes for 30 s.
async fn drive(
    players: &mut [&mut Client],
    table: &str,
    mut done: impl FnMut(usize, &ServerMsg) -> bool,
) {
    let mut quiet_since = Instant::now();
    loop {
        for (i, player) in players.iter_mut().enumerate() {
            if let Some((id, legal)) = player.last_decide {
                if !player.answered.contains(&id) {
                    let action = common::simple_action(&legal, false);
                    player.send(&common::act(table, id, action)).await;
                }
            }
            let Some(msg) = player.try_recv(Duration::from_millis(5)).await else {
                continue;
            };
            quiet_since = Instant::now();
            if let ServerMsg::Error { code, message } = &msg {
                // An answer the clock overtook (a loaded machine) is stale or no longer
                // the player's turn: anything else is a failure.
                assert!(
                    matches!(code, ErrorCode::StaleDecision | ErrorCode::NotYourTurn),
                    "{}: {code:?}: {message}",
                    player.name
                );
            }
            if done(i, &msg) {
                return;
            }
        }
        assert!(
            quiet_since.elapsed() < Duration::from_secs(30),
            "the table stalled"
        );
    }
}

/// Reads a socket until the server closes it, which must happen within a second; the last
/// message before the close must say `unauthenticated`.
async fn closed_within_a_second(client: &mut Client) {
    closed_within(client, Duration::from_secs(1)).await;
}

/// [`closed_within_a_second`] within `wait`.
async fn closed_within(client: &mut Client, wait: Duration) {
    let deadline = Instant::now() + wait;
    let mut last = None;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match client.recv_or_closed(left).await {
            Received::Msg(msg) => last = Some(*msg),
            Received::Quiet => panic!("{}: still open {wait:?} after", client.name),
            Received::Closed => break,
        }
    }
    assert!(
        matches!(
            last,
            Some(ServerMsg::Error {
                code: ErrorCode::Unauthenticated,
                ..
            })
        ),
        "{}: the last word before the close is unauthenticated, not {last:?}",
        client.name
    );
}

/// A request that ends ann's session: through which node, how, with her token (a
/// logout), an admin's (a password set) or a floor member's (a lock).
#[derive(Clone)]
struct EndRequest {
    base: String,
    how: Ending,
    ann_id: String,
    token: String,
}

impl Room {
    /// The request ending ann's session `how`, through node `at`; `ann_token` is the
    /// session a logout ends.
    fn end_request(&self, how: Ending, at: usize, ann_token: &str) -> EndRequest {
        let token = match how {
            Ending::Logout => ann_token,
            Ending::PasswordReset => common::TOKEN,
            Ending::Lock => &self.floor,
        };
        EndRequest {
            base: self.nodes[at].base.clone(),
            how,
            ann_id: self.ann_id.clone(),
            token: token.to_string(),
        }
    }
}

impl EndRequest {
    /// Sends it; returns how long it took to be answered.
    async fn send(self) -> Duration {
        let (path, body) = match self.how {
            Ending::Logout => ("/logout".to_string(), None),
            Ending::PasswordReset => (
                format!("/admin/players/{}/password", self.ann_id),
                Some(json!({ "password": "anewpassword1" })),
            ),
            Ending::Lock => (
                format!("/admin/players/{}/lock", self.ann_id),
                Some(json!({ "locked": true })),
            ),
        };
        let mut request = reqwest::Client::new()
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let began = Instant::now();
        let answer = request.send().await.unwrap();
        let took = began.elapsed();
        let status = answer.status().as_u16();
        assert!(
            status == 200 || status == 204,
            "{:?}: {status} {}",
            self.how,
            answer.text().await.unwrap_or_default()
        );
        took
    }
}

/// Ann (connected to node `ann_at`) plays with bob and cat (on the first node); her
/// session is ended through node `end_at` mid-play. Her socket is closed within a second
/// of the answer, saying why, and carries nothing of the hands dealt after the answer
/// (the table goes on without her: she times out). Her token no longer opens a socket.
async fn ended_mid_play(room: &Room, how: Ending, ann_at: usize, end_at: usize) {
    let first = &room.nodes[0];
    let (mut ann, ann_token) = seated(&room.nodes[ann_at], &room.table, "ann", 0).await;
    let (mut bob, _) = seated(first, &room.table, "bob", 1).await;
    let (mut cat, _) = seated(first, &room.table, "cat", 2).await;

    // Two hands played by all three: ann has her cards and her turns.
    let mut ended = 0;
    drive(&mut [&mut ann, &mut bob, &mut cat], &room.table, |i, m| {
        if i == 1
            && matches!(
                m,
                ServerMsg::Event {
                    event: Event::HandEnded { .. },
                    ..
                }
            )
        {
            ended += 1;
        }
        ended == 2
    })
    .await;
    assert!(
        ann.log
            .iter()
            .any(|m| matches!(m, ServerMsg::Decide { .. })),
        "ann was asked to act"
    );

    // The session ends while bob and cat play on (ann stops answering).
    let request = tokio::spawn(room.end_request(how, end_at, &ann_token).send());
    let mut seen_by_bob = bob.log.iter().filter_map(hand_of).max().unwrap_or(0);
    while !request.is_finished() {
        drive(&mut [&mut bob, &mut cat], &room.table, |i, m| {
            if i == 0 {
                seen_by_bob = seen_by_bob.max(hand_of(m).unwrap_or(0));
            }
            true
        })
        .await;
    }
    let took = request.await.unwrap();
    let answered_at = Instant::now();
    closed_within_a_second(&mut ann).await;
    eprintln!(
        "{how:?} (ann on node {ann_at}, ended through node {end_at}): the request took {} ms, \
         ann's socket was closed {} ms after its answer was read",
        took.as_millis(),
        answered_at.elapsed().as_millis()
    );

    // Two more hands: what the table deals after the answer (bob had seen hand
    // `seen_by_bob`; at most one more can have begun before the answer) never reached ann.
    let later = seen_by_bob + 2;
    drive(&mut [&mut bob, &mut cat], &room.table, |_, m| {
        hand_of(m).is_some_and(|h| h >= later)
    })
    .await;
    let leaked: Vec<_> = ann
        .log
        .iter()
        .filter(|m| hand_of(m).is_some_and(|h| h >= later))
        .collect();
    assert!(leaked.is_empty(), "ann's socket got {leaked:?}");

    // Her token opens no socket any more.
    let mut again = Client::connect(room.nodes[ann_at].addr, "ann again").await;
    again
        .send(&ClientMsg::Auth {
            token: ann_token.clone(),
        })
        .await;
    again.expect_error(ErrorCode::Unauthenticated).await;
    // Bob's and cat's sockets carried on.
    for c in [&mut bob, &mut cat] {
        c.send(&ClientMsg::Ping).await;
        c.until(|m| matches!(m, ServerMsg::Pong).then_some(()))
            .await;
    }
}

async fn ended_on_one_node(db: Db, how: Ending) {
    let Some(guard) = DbGuard::new(db).await else {
        return;
    };
    let mut room = room(&guard, 1).await;
    ended_mid_play(&room, how, 0, 0).await;
    room.nodes[0].stop().await;
    common::assert_conserved(&room.nodes[0].audit().await, 3 * DEPOSIT as i64);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_logout_closes_the_players_socket_and_nothing_of_theirs_follows_on_sqlite() {
    ended_on_one_node(Db::Sqlite, Ending::Logout).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_logout_closes_the_players_socket_and_nothing_of_theirs_follows_on_postgres() {
    ended_on_one_node(Db::Postgres, Ending::Logout).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_reset_closes_the_players_socket_and_nothing_follows_on_sqlite() {
    ended_on_one_node(Db::Sqlite, Ending::PasswordReset).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_reset_closes_the_players_socket_and_nothing_follows_on_postgres() {
    ended_on_one_node(Db::Postgres, Ending::PasswordReset).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lock_closes_the_players_socket_and_nothing_of_theirs_follows_on_sqlite() {
    ended_on_one_node(Db::Sqlite, Ending::Lock).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lock_closes_the_players_socket_and_nothing_of_theirs_follows_on_postgres() {
    ended_on_one_node(Db::Postgres, Ending::Lock).await;
}

/// Two nodes over NATS: ann plays from node 2 at a table node 1 runs; her logout, and
/// then (new session) a lock, both through node 1, close her socket on node 2.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_ended_on_one_node_closes_the_players_socket_on_another() {
    common::nats::nats_server_binary();
    let Some(guard) = DbGuard::new(Db::Postgres).await else {
        return;
    };
    let mut room = room(&guard, 2).await;
    ended_mid_play(&room, Ending::Logout, 1, 0).await;
    // Back on node 2 with a new session (her seat held, so she is subscribed at once),
    // then locked out through node 1.
    let token = room.nodes[1].login("ann").await;
    let mut ann = Client::connect(room.nodes[1].addr, "ann").await;
    ann.auth(&token).await;
    ann.until(|m| matches!(m, ServerMsg::Snapshot { .. }).then_some(()))
        .await;
    let took = room.end_request(Ending::Lock, 0, "").send().await;
    eprintln!("a lock through node 1 took {} ms", took.as_millis());
    closed_within_a_second(&mut ann).await;
    for node in room.nodes.iter_mut().rev() {
        node.stop().await;
    }
    common::assert_conserved(&room.nodes[0].audit().await, 3 * DEPOSIT as i64);
}

/// Two nodes over NATS on one database, node 2 through a relay a test can cut, with this
/// lease; ann and bob are players. Returns the nodes, NATS (kept running), the relay, and
/// the ids of ann and bob.
async fn behind_a_relay(url: &str, lease_ms: &str) -> (Vec<Server>, Proc, Relay, String, String) {
    let (nats_proc, nats_url) = nats().await;
    let relay = Relay::start(&nats_url).await;
    let mut nodes = Vec::new();
    for (node, via) in [("n1", &nats_url), ("n2", &relay.url)] {
        let settings = [
            ("POKER__CLUSTER__NATS_URL", via.as_str()),
            ("POKER__CLUSTER__NODE", node),
            ("POKER__CLUSTER__LEASE_MS", lease_ms),
            ("POKER__CLUSTER__HEARTBEAT_MS", "300"),
        ];
        nodes.push(Server::start(url, &settings).await);
    }
    let ann_id = nodes[0].player("ann", DEPOSIT).await;
    let bob_id = nodes[0].player("bob", DEPOSIT).await;
    (nodes, nats_proc, relay, ann_id, bob_id)
}

/// Whether `node`'s metrics say it is connected to NATS.
async fn nats_connected(node: &Server) -> bool {
    let text = node.get("/metrics").await.1;
    text.lines().any(|l| l == "poker_nats_connected 1")
}

/// Cuts the relay and waits until `node`, behind it, says NATS is gone.
async fn cut_off(relay: &Relay, node: &Server) {
    relay.cut();
    let deadline = Instant::now() + Duration::from_secs(10);
    while nats_connected(node).await {
        assert!(
            Instant::now() < deadline,
            "the node behind the relay sees NATS gone"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A floor member, through `node`, locks `player` out.
async fn lock_through(node: &Server, floor: &str, player: &str) {
    let status = reqwest::Client::new()
        .post(format!("{}/admin/players/{player}/lock", node.base))
        .bearer_auth(floor)
        .json(&json!({ "locked": true }))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16();
    assert!(
        status == 200 || status == 204,
        "the lock is answered: {status}"
    );
}

/// Two nodes over NATS, node 2 through a relay that is cut. While it is cut, ann (signed in
/// at node 2) is locked out through node 1, which cannot tell node 2, and bob (signed in at
/// node 1) through node 2, which cannot tell node 1. Neither socket hears of it meanwhile;
/// once node 2 reaches NATS again, both close: node 2 checks its sessions in the store
/// (`AppState::recheck_sessions`), and node 1 gets node 2's end (sent on the reconnect) or,
/// hearing node 2 back, checks its own. (The lease here outlasts the test, so node 1 does
/// not count node 2 silent meanwhile: that check has its test below.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_ended_while_a_node_was_cut_off_from_nats_close_their_sockets_once_it_is_back() {
    common::nats::nats_server_binary();
    let Some(guard) = DbGuard::new(Db::Postgres).await else {
        return;
    };
    let (mut nodes, _nats, relay, ann_id, bob_id) = behind_a_relay(&guard.url(), "120000").await;
    let floor = floor_session(&nodes[0]).await;
    let mut ann = Client::connect(nodes[1].addr, "ann").await;
    ann.auth(&nodes[1].login("ann").await).await;
    let mut bob = Client::connect(nodes[0].addr, "bob").await;
    bob.auth(&nodes[0].login("bob").await).await;

    cut_off(&relay, &nodes[1]).await;
    lock_through(&nodes[0], &floor, &ann_id).await;
    lock_through(&nodes[1], &floor, &bob_id).await;
    // Neither socket was told: each still answers.
    for client in [&mut ann, &mut bob] {
        client.send(&ClientMsg::Ping).await;
        client
            .until(|m| matches!(m, ServerMsg::Pong).then_some(()))
            .await;
    }

    relay.mend();
    let began = Instant::now();
    for client in [&mut ann, &mut bob] {
        closed_within(client, Duration::from_secs(15)).await;
    }
    eprintln!(
        "both sockets closed {} ms after the relay was mended",
        began.elapsed().as_millis()
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while !nats_connected(&nodes[1]).await {
        assert!(Instant::now() < deadline, "node 2 says NATS is back");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for node in nodes.iter_mut().rev() {
        node.stop().await;
    }
}

/// A node that ends a session and goes silent before the others hear it (here: cut off
/// from NATS, and never back; a node that dies between its commit and its telling looks
/// the same to them): bob, signed in at node 1, is locked out through node 2 after node 2
/// was cut off. Once node 1 has not heard node 2 for a lease's lifetime (6 s), it checks
/// its sessions in the store and closes bob's socket, without node 2 ever coming back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_ended_by_a_node_that_then_went_silent_closes_its_sockets_on_the_others() {
    common::nats::nats_server_binary();
    let Some(guard) = DbGuard::new(Db::Postgres).await else {
        return;
    };
    let (mut nodes, _nats, relay, _, bob_id) = behind_a_relay(&guard.url(), "6000").await;
    let floor = floor_session(&nodes[0]).await;
    let mut bob = Client::connect(nodes[0].addr, "bob").await;
    bob.auth(&nodes[0].login("bob").await).await;

    cut_off(&relay, &nodes[1]).await;
    let cut = Instant::now();
    lock_through(&nodes[1], &floor, &bob_id).await;
    // Node 1 checks once, when it stops counting node 2: the lock must be in the store
    // by then (an end node 2 committed later would wait for node 2 to come back).
    assert!(
        cut.elapsed() < Duration::from_secs(5),
        "the lock through node 2 took {} ms, past node 1's check",
        cut.elapsed().as_millis()
    );
    // A lease's lifetime, a heartbeat and the check: 20 s is ample on a slow machine.
    closed_within(&mut bob, Duration::from_secs(20)).await;
    eprintln!(
        "bob's socket on node 1 closed {} ms after node 2 was cut off",
        cut.elapsed().as_millis()
    );
    assert!(
        !nats_connected(&nodes[1]).await,
        "node 2 never came back: the check was node 1's own"
    );
    for node in nodes.iter_mut().rev() {
        node.stop().await;
    }
}

/// Ann logs out and hangs up at once: the client sends `POST /logout` and closes its side
/// of the connection without waiting, which makes the server drop the request at its next
/// await. Either the logout had not begun (the request was dropped before its handler ran:
/// her token still signs in, and she tries again), or it runs to its end
/// (`http::to_the_end`): her token signs in no more, and her open socket is told
/// `unauthenticated` and closed, not left open until the session would have expired.
async fn logout_and_hang_up(db: Db) {
    let Some(guard) = DbGuard::new(db).await else {
        return;
    };
    let mut server = Server::start(&guard.url(), &[]).await;
    server.player("ann", DEPOSIT).await;
    let token = server.login("ann").await;
    let mut ann = Client::connect(server.addr, "ann").await;
    ann.auth(&token).await;
    let request = format!(
        "POST /logout HTTP/1.1\r\nHost: pokerd\r\nAuthorization: Bearer {token}\r\n\
         Content-Length: 0\r\n\r\n"
    );

    // A logout that began and then stopped between its commit and the tell would show as a
    // token that signs in no more while her socket stays open. The logout first reads
    // whether the token is live, a read the hang-up may cancel: the client waits a little
    // longer each time (0 to 10 ms, by 50 us) before hanging up, so that one attempt falls
    // after that read, in the logout's work.
    for attempt in 1..=200u32 {
        send_and_hang_up(&server, &request, attempt).await;
        let closed = closed_or_open(&mut ann, Duration::from_millis(300)).await;
        if !closed && signs_in(&server, &token).await {
            // Not committed: the server dropped the request before the logout began (or it
            // is still under way, and a later attempt sees it).
            continue;
        }
        if !closed {
            // The session is gone from the store: her socket must close.
            closed_within(&mut ann, Duration::from_secs(10)).await;
        }
        assert!(
            matches!(
                ann.log.last(),
                Some(ServerMsg::Error {
                    code: ErrorCode::Unauthenticated,
                    ..
                })
            ),
            "the last word before the close is unauthenticated, not {:?}",
            ann.log.last()
        );
        assert!(!signs_in(&server, &token).await, "the logout was committed");
        eprintln!("attempt {attempt}: the logout ran to its end and ann's socket closed");
        server.stop().await;
        return;
    }
    panic!("no hung-up logout began in 200 attempts");
}

/// Sends a raw HTTP `request` and closes the connection without reading the answer,
/// after a wait that grows with the `attempt` (0 ms for the first, then 50 us more each
/// time): one of the attempts falls in the window a test looks for.
async fn send_and_hang_up(server: &Server, request: &str, attempt: u32) {
    let mut hang_up = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    tokio::io::AsyncWriteExt::write_all(&mut hang_up, request.as_bytes())
        .await
        .unwrap();
    let until = Instant::now() + Duration::from_micros(50 * u64::from(attempt - 1));
    while Instant::now() < until {
        std::hint::spin_loop();
    }
    drop(hang_up);
}

/// An admin deposits and hangs up at once, again and again with a little more time each
/// attempt, until ten deposits are committed: each one's audit entry must follow it,
/// though the client is gone. (Before every admin change ran to its end, a hang-up between the
/// commit and the entry left a deposit in the ledger that the audit log never named.)
async fn deposit_and_hang_up(db: Db) {
    let Some(guard) = DbGuard::new(db).await else {
        return;
    };
    let mut server = Server::start(&guard.url(), &[]).await;
    let ann = server.player("ann", 0).await;
    for attempt in 1..=200u32 {
        let body =
            json!({ "amount": 1, "idempotency_key": format!("hang-up-{attempt}") }).to_string();
        let request = format!(
            "POST /admin/players/{ann}/deposit HTTP/1.1\r\nHost: pokerd\r\n\
             Authorization: Bearer {}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n{body}",
            common::TOKEN,
            body.len()
        );
        send_and_hang_up(&server, &request, attempt).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        if balance(&server, &ann).await == 0 {
            // Dropped before the deposit began (or not yet committed: a later attempt
            // counts it).
            continue;
        }
        // Every deposit committed is in the audit log, soon after its commit. Both are
        // read afresh each time: a deposit still running may commit between the reads.
        let deadline = Instant::now() + Duration::from_secs(10);
        let deposited = loop {
            let deposited = balance(&server, &ann).await;
            let entries = deposits_audited(&server, &ann).await;
            if entries == deposited {
                break deposited;
            }
            assert!(
                Instant::now() < deadline,
                "{deposited} deposits committed, {entries} in the audit log 10 s after"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        // Ten deposits committed: the hang-ups swept the time from the commit to the
        // audit entry (0.5 ms past the first commit, by 50 us).
        if deposited >= 10 {
            eprintln!("attempt {attempt}: {deposited} deposits, each with its audit entry");
            server.stop().await;
            common::assert_conserved(&server.audit().await, deposited);
            return;
        }
    }
    panic!("fewer than ten hung-up deposits were committed in 200 attempts");
}

/// A player's wallet, as the admin API answers it.
async fn balance(server: &Server, player: &str) -> i64 {
    let p = server.get_json(&format!("/admin/players/{player}")).await;
    p["balance"].as_i64().unwrap()
}

/// The deposits to `player` the audit log names.
async fn deposits_audited(server: &Server, player: &str) -> i64 {
    let log = server.get_json("/admin/audit-log?limit=500").await;
    let entries = log.as_array().unwrap().iter();
    entries
        .filter(|e| e["action"] == "deposit" && e["target"] == player)
        .count() as i64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_deposit_whose_client_hangs_up_at_once_is_still_in_the_audit_log_on_sqlite() {
    deposit_and_hang_up(Db::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_deposit_whose_client_hangs_up_at_once_is_still_in_the_audit_log_on_postgres() {
    deposit_and_hang_up(Db::Postgres).await;
}

/// Whether `client`'s socket closed within `wait` (what it was sent is in its log).
async fn closed_or_open(client: &mut Client, wait: Duration) -> bool {
    let deadline = Instant::now() + wait;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match client.recv_or_closed(left).await {
            Received::Msg(_) => continue,
            Received::Quiet => return false,
            Received::Closed => return true,
        }
    }
}

/// Whether `token` still opens a socket.
async fn signs_in(server: &Server, token: &str) -> bool {
    let mut c = Client::connect(server.addr, "ann again").await;
    c.send(&ClientMsg::Auth {
        token: token.to_string(),
    })
    .await;
    loop {
        match c.recv().await {
            ServerMsg::Welcome { .. } => return true,
            ServerMsg::Error {
                code: ErrorCode::Unauthenticated,
                ..
            } => return false,
            _ => continue,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_logout_whose_client_hangs_up_at_once_still_closes_the_players_socket_on_sqlite() {
    logout_and_hang_up(Db::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_logout_whose_client_hangs_up_at_once_still_closes_the_players_socket_on_postgres() {
    logout_and_hang_up(Db::Postgres).await;
}

async fn second_auth(db: Db) {
    let Some(guard) = DbGuard::new(db).await else {
        return;
    };
    let mut room = room(&guard, 1).await;
    let server = &room.nodes[0];
    let (mut ann, ann_token) = seated(server, &room.table, "ann", 0).await;
    let (mut bob, _) = seated(server, &room.table, "bob", 1).await;
    let (mut cat, _) = seated(server, &room.table, "cat", 2).await;
    let mut ended = 0;
    drive(&mut [&mut ann, &mut bob, &mut cat], &room.table, |i, m| {
        if i == 1
            && matches!(
                m,
                ServerMsg::Event {
                    event: Event::HandEnded { .. },
                    ..
                }
            )
        {
            ended += 1;
        }
        ended == 1
    })
    .await;

    // On ann's socket, bob's valid token (a second login of his) is refused.
    let bob_token = server.login("bob").await;
    ann.send(&ClientMsg::Auth { token: bob_token }).await;
    ann.expect_error(ErrorCode::AlreadyAuthenticated).await;
    let refused_at = ann.log.len();

    // Ann's stream goes on as hers: her turns and her own cards. Every message is checked
    // against her seat: bob's cards would fail the check.
    let mut ended = 0;
    drive(&mut [&mut ann, &mut bob, &mut cat], &room.table, |i, m| {
        if i == 1
            && matches!(
                m,
                ServerMsg::Event {
                    event: Event::HandEnded { .. },
                    ..
                }
            )
        {
            ended += 1;
        }
        ended == 2
    })
    .await;
    let after = &ann.log[refused_at..];
    assert!(
        after.iter().any(|m| matches!(m, ServerMsg::Decide { .. })),
        "ann is still asked to act"
    );
    assert!(
        after.iter().any(|m| matches!(
            m,
            ServerMsg::Event { event: Event::HoleDealt { cards, .. }, .. }
                if cards.iter().all(|c| c.is_known())
        )),
        "ann still gets her own cards"
    );
    assert!(
        !after.iter().any(|m| matches!(m, ServerMsg::Welcome { .. })),
        "no second welcome"
    );

    // And her logout still closes it: the socket is hers, not bob's.
    room.end_request(Ending::Logout, 0, &ann_token).send().await;
    closed_within_a_second(&mut ann).await;
    bob.send(&ClientMsg::Ping).await;
    bob.until(|m| matches!(m, ServerMsg::Pong).then_some(()))
        .await;
    room.nodes[0].stop().await;
    common::assert_conserved(&room.nodes[0].audit().await, 3 * DEPOSIT as i64);
}

crate::on_both_dbs!(second_auth: a_second_auth_for_another_player_is_refused_and_the_first_stream_goes_on_on_sqlite, a_second_auth_for_another_player_is_refused_and_the_first_stream_goes_on_on_postgres);

async fn switch_session(db: Db) {
    let Some(guard) = DbGuard::new(db).await else {
        return;
    };
    let mut server = Server::start(&guard.url(), &[]).await;
    server.player("ann", 0).await;
    let first = server.login("ann").await;
    let second = server.login("ann").await;
    let mut ann = Client::connect(server.addr, "ann").await;
    ann.auth(&first).await;
    // Her other session: the connection moves to it.
    ann.auth(&second).await;
    // The first one's logout no longer concerns this connection...
    let (status, _) = server.call("POST", "/logout", Some(&first), None).await;
    assert_eq!(status, 204);
    ann.send(&ClientMsg::Ping).await;
    assert!(matches!(ann.recv().await, ServerMsg::Pong));
    // ...the second one's closes it.
    let (status, _) = server.call("POST", "/logout", Some(&second), None).await;
    assert_eq!(status, 204);
    closed_within_a_second(&mut ann).await;
    server.stop().await;
}

crate::on_both_dbs!(switch_session: the_same_player_may_move_a_connection_to_another_of_their_sessions_on_sqlite, the_same_player_may_move_a_connection_to_another_of_their_sessions_on_postgres);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_socket_that_does_not_authenticate_in_time_is_told_why_and_closed() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(
        &guard.url(),
        &[("POKER__SERVER__WS_AUTH_TIMEOUT_SECS", "1")],
    )
    .await;
    server.player("ann", 0).await;
    // An anonymous address opens sockets and never authenticates: one silent, one that
    // keeps sending pings (answered, but they do not keep it open).
    let mut silent = Client::connect(server.addr, "silent").await;
    let mut chatty = Client::connect(server.addr, "chatty").await;
    let mut ann = server.client("ann").await;
    let mut pongs = 0;
    loop {
        chatty.send(&ClientMsg::Ping).await;
        match chatty.recv_or_closed(Duration::from_secs(5)).await {
            Received::Msg(msg) => match *msg {
                ServerMsg::Pong => pongs += 1,
                ServerMsg::Error {
                    code: ErrorCode::AuthTimeout,
                    ..
                } => break,
                other => panic!("chatty got {other:?}"),
            },
            other => panic!("chatty: {other:?} before auth_timeout"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(pongs > 0);
    assert!(matches!(
        chatty.recv_or_closed(Duration::from_secs(5)).await,
        Received::Closed
    ));
    silent.expect_error(ErrorCode::AuthTimeout).await;
    assert!(matches!(
        silent.recv_or_closed(Duration::from_secs(5)).await,
        Received::Closed
    ));
    // Ann authenticated in time: her socket stays.
    ann.send(&ClientMsg::Ping).await;
    assert!(matches!(ann.recv().await, ServerMsg::Pong));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_authenticated_socket_that_answers_no_ping_is_closed_and_one_that_answers_stays() {
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[("POKER__SERVER__WS_IDLE_SECS", "2")]).await;
    server.player("ann", 0).await;
    server.player("bob", 0).await;
    // Ann's client reads nothing, so it answers no ping (tungstenite answers while reading).
    let mut deaf = server.client("ann").await;
    // Bob's reads (and so answers pings) but sends nothing of his own.
    let mut listening = server.client("bob").await;
    let mut pings = 0;
    let until = Instant::now() + Duration::from_secs(5);
    while let Some(left) = until.checked_duration_since(Instant::now()) {
        match tokio::time::timeout(left, listening.ws.next()).await {
            Err(_) => break,
            Ok(Some(Ok(Message::Ping(_)))) => pings += 1,
            Ok(other) => panic!("bob's socket: {other:?}"),
        }
    }
    assert!(pings >= 2, "the server pings a silent client: {pings}");
    listening.send(&ClientMsg::Ping).await;
    assert!(matches!(listening.recv().await, ServerMsg::Pong));
    // Ann's was closed meanwhile: what is left to read ends with the close.
    assert!(matches!(
        deaf.recv_or_closed(Duration::from_secs(1)).await,
        Received::Closed
    ));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auth_refusals_are_typed_and_documented() {
    let wire = |code: ErrorCode| serde_json::to_value(code).unwrap();
    assert_eq!(
        wire(ErrorCode::AlreadyAuthenticated),
        "already_authenticated"
    );
    assert_eq!(wire(ErrorCode::AuthTimeout), "auth_timeout");
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/protocol.md"
    ))
    .unwrap();
    for code in ["already_authenticated", "auth_timeout"] {
        assert!(
            doc.contains(&format!("`{code}`")),
            "docs/protocol.md names {code}"
        );
    }
}
