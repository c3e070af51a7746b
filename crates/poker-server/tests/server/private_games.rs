//! Private games over the real interfaces: a signed-in player makes a table from a preset
//! (`POST /api/private`), shares its invite link, and friends who present the invite ask
//! for a seat that the host grants or refuses. The host pauses and resumes (between
//! hands), changes the blinds (from the next hand), removes a player (their hand is dead,
//! their chips go back to their wallet), adjusts a stack between hands in a play-money
//! room (through the ledger, told to everyone) and ends the game; nobody else may (an attacker's
//! host commands are refused `not_host`). Private tables stay out of the lobby, close
//! when empty, and exist only where the room allows them. The books balance throughout.

use crate::common;

use common::{assert_conserved, simple_action, tid, Client, Db, DbGuard, Server};
use poker_protocol::{ClientMsg, ErrorCode, HostCommand, PlayerId, ServerMsg, TableView};
use poker_rules::Event;
use serde_json::{json, Value};
use std::time::Duration;

/// A real-money room (deposits known to the test) with private tables turned on.
const ROOM: &[(&str, &str)] = &[("POKER__ROOM__PRIVATE_TABLES", "on")];

/// What a friend brings: every player is given this much.
const DEPOSIT: u64 = 1000;

/// A private game made by its host, with the host's connection watching it.
struct Game {
    server: Server,
    host: Client,
    table: String,
    invite: String,
    deposited: i64,
}

impl Game {
    async fn start(settings: &[(&str, &str)], guard: &DbGuard) -> Game {
        Game::start_with(settings, json!({ "preset": "nlhe", "seats": 6 }), guard).await
    }

    /// A private game made with this `POST /api/private` body.
    async fn start_with(settings: &[(&str, &str)], sent: Value, guard: &DbGuard) -> Game {
        let mut all = ROOM.to_vec();
        all.extend_from_slice(settings);
        let server = Server::start(&guard.url(), &all).await;
        server.player("host", DEPOSIT).await;
        let token = server.login("host").await;
        let made = server
            .expect("POST", "/api/private", Some(&token), Some(sent), 201)
            .await;
        let table = made["table_id"].as_str().unwrap().to_string();
        let invite = made["invite"].as_str().unwrap().to_string();
        assert_eq!(invite.len(), 32, "128 bits in hex");
        assert_eq!(
            made["link"].as_str().unwrap(),
            format!("/#join/{table}/{invite}")
        );
        let mut host = Client::connect(server.addr, "host").await;
        host.auth(&token).await;
        host.send(&join(&table, &invite)).await;
        let view = host
            .until(|m| match m {
                ServerMsg::Snapshot { table, .. } => Some(table.clone()),
                _ => None,
            })
            .await;
        assert_eq!(view.private.as_ref().unwrap().host, host.player_id.unwrap());
        Game {
            server,
            host,
            table,
            invite,
            deposited: DEPOSIT as i64,
        }
    }

    /// A friend with money in the wallet, connected.
    async fn friend(&mut self, name: &str) -> Client {
        self.server.player(name, DEPOSIT).await;
        self.deposited += DEPOSIT as i64;
        self.server.client(name).await
    }

    /// A friend who presented the invite, was let in by the host and sat in `seat`.
    async fn seated_friend(&mut self, name: &str, seat: u32) -> Client {
        let mut friend = self.friend(name).await;
        friend.send(&join(&self.table, &self.invite)).await;
        let id = friend.player_id.unwrap();
        wait_view(&mut self.host, |v| asks(v, id)).await;
        self.host(HostCommand::Approve { player_id: id }).await;
        wait_view(&mut friend, |v| approved(v, id)).await;
        friend.sat(&self.table, seat, 200).await;
        friend
    }

    /// A game where the host and Ann are seated (seats 0 and 1) and the host dealt the
    /// first hand.
    async fn heads_up(guard: &DbGuard) -> (Game, String, Client) {
        let mut game = Game::start(&[], guard).await;
        let table = game.table.clone();
        let ann = game.seated_friend("ann", 1).await;
        game.host.send(&common::sit(&table, 0, 200)).await;
        game.host(HostCommand::Resume).await;
        (game, table, ann)
    }

    async fn host(&mut self, command: HostCommand) {
        let msg = host_msg(&self.table, command);
        self.host.send(&msg).await;
    }

    async fn conserved(&self) {
        assert_conserved(&self.server.audit().await, self.deposited);
    }
}

fn join(table: &str, invite: &str) -> ClientMsg {
    ClientMsg::JoinPrivate {
        table_id: tid(table),
        invite: invite.to_string(),
    }
}

fn host_msg(table: &str, command: HostCommand) -> ClientMsg {
    ClientMsg::Host {
        table_id: tid(table),
        command,
    }
}

fn asks(view: &TableView, player: PlayerId) -> bool {
    view.private
        .as_ref()
        .is_some_and(|p| p.requests.iter().any(|r| r.player_id == player))
}

fn approved(view: &TableView, player: PlayerId) -> bool {
    view.private
        .as_ref()
        .is_some_and(|p| p.approved.contains(&player))
}

/// Reads a client's messages until a view of the table satisfies `f`.
async fn wait_view(client: &mut Client, f: impl Fn(&TableView) -> bool) -> TableView {
    client
        .until(|m| match m {
            ServerMsg::Snapshot { table, .. } | ServerMsg::Seats { table } if f(table) => {
                Some(table.clone())
            }
            _ => None,
        })
        .await
}

/// The table as it is now: watched again, its snapshot (what came before it is skipped).
async fn fresh_view(client: &mut Client, table: &str) -> TableView {
    client
        .send(&ClientMsg::Watch {
            table_id: tid(table),
        })
        .await;
    client
        .until(|m| match m {
            ServerMsg::Snapshot { table, .. } => Some(table.clone()),
            _ => None,
        })
        .await
}

/// Plays (checking or calling) at every client until client 0 receives a message that
/// `stop` accepts; returns every message client 0 received meanwhile.
async fn drive(
    clients: &mut [&mut Client],
    table: &str,
    mut stop: impl FnMut(&ServerMsg) -> bool,
) -> Vec<ServerMsg> {
    let mut seen = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        assert!(
            tokio::time::Instant::now() < deadline,
            "nothing came: {seen:?}"
        );
        for (i, client) in clients.iter_mut().enumerate() {
            let Some(msg) = client.try_recv(Duration::from_millis(5)).await else {
                continue;
            };
            if let ServerMsg::Decide {
                decision_id, legal, ..
            } = &msg
            {
                let action = simple_action(legal, false);
                client.send(&common::act(table, *decision_id, action)).await;
            }
            if let ServerMsg::DecideDraw { decision_id, .. } = &msg {
                let pat = poker_rules::Action::Draw {
                    discards: poker_rules::Cards::new(),
                };
                client.send(&common::act(table, *decision_id, pat)).await;
            }
            if i == 0 {
                seen.push(msg.clone());
                if stop(&msg) {
                    return seen;
                }
            }
        }
    }
}

fn hand_ended(m: &ServerMsg) -> bool {
    matches!(
        m,
        ServerMsg::Event {
            event: Event::HandEnded { .. },
            ..
        }
    )
}

fn hand_started(m: &ServerMsg) -> Option<u64> {
    match m {
        ServerMsg::Event {
            hand_number,
            event: Event::BlindPosted { .. },
            ..
        } => Some(*hand_number),
        _ => None,
    }
}

async fn invite_status(server: &Server, table: &str, invite: &str) -> (u16, Value) {
    server
        .call(
            "GET",
            &format!("/api/private/{table}?invite={invite}"),
            None,
            None,
        )
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn friends_with_the_invite_ask_for_a_seat_and_the_host_decides_who_sits() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut game = Game::start(&[], &guard).await;
    let table = game.table.clone();

    // The link shows the game to anyone holding it, signed in or not.
    let (status, shown) = invite_status(&game.server, &table, &game.invite).await;
    assert_eq!(status, 200, "{shown}");
    assert_eq!(shown["status"], "open");
    assert_eq!(shown["host_name"], "host");
    assert_eq!(shown["game"], "NL Hold'em");
    // A wrong invite, or none, learns nothing: the same 404 as a table that never was.
    let wrong = "0".repeat(32);
    for path in [
        format!("/api/private/{table}?invite={wrong}"),
        format!(
            "/api/private/{}?invite={}",
            poker_protocol::TableId::new(),
            game.invite
        ),
    ] {
        let (status, body) = game.server.call("GET", &path, None, None).await;
        assert_eq!(
            (status, body["error"].clone()),
            (404, json!("no_invite")),
            "{path}"
        );
    }

    // Hidden from the lobby.
    let mut ann = game.friend("ann").await;
    let listed = ann.tables().await;
    assert!(
        listed.iter().all(|t| t.table_id != tid(&table)),
        "a private table in the lobby: {listed:?}"
    );

    // The table's id alone lets nobody watch, queue or sit; a wrong invite neither.
    ann.send(&ClientMsg::Watch {
        table_id: tid(&table),
    })
    .await;
    ann.expect_error(ErrorCode::PrivateRefused).await;
    ann.send(&ClientMsg::JoinWaitlist {
        table_id: tid(&table),
    })
    .await;
    ann.expect_error(ErrorCode::PrivateRefused).await;
    ann.send(&common::sit(&table, 1, 200)).await;
    ann.expect_error(ErrorCode::PrivateRefused).await;
    ann.send(&join(&table, &wrong)).await;
    ann.expect_error(ErrorCode::PrivateRefused).await;

    // With the invite: watching, and asking the host, who sees the request.
    ann.send(&join(&table, &game.invite)).await;
    let ann_id = ann.player_id.unwrap();
    wait_view(&mut ann, |v| asks(v, ann_id)).await;
    let seen = wait_view(&mut game.host, |v| asks(v, ann_id)).await;
    assert_eq!(seen.private.unwrap().requests[0].name, "ann");
    // Not let in yet: the sit is refused, nothing moves.
    ann.send(&common::sit(&table, 1, 200)).await;
    ann.expect_error(ErrorCode::PrivateRefused).await;

    // Bob asks too; the host refuses him and lets Ann in.
    let mut bob = game.friend("bob").await;
    bob.send(&join(&table, &game.invite)).await;
    let bob_id = bob.player_id.unwrap();
    wait_view(&mut game.host, |v| asks(v, bob_id)).await;
    game.host(HostCommand::Deny { player_id: bob_id }).await;
    game.host(HostCommand::Approve { player_id: ann_id }).await;
    wait_view(&mut ann, |v| approved(v, ann_id) && !asks(v, bob_id)).await;
    bob.send(&common::sit(&table, 2, 200)).await;
    bob.expect_error(ErrorCode::PrivateRefused).await;
    ann.sat(&table, 1, 200).await;
    // The host sits without asking anyone, and deals the first hand when ready.
    game.host.send(&common::sit(&table, 0, 200)).await;
    let view = wait_view(&mut game.host, |v| v.seats.len() == 2).await;
    assert!(
        view.private.unwrap().paused,
        "a new game waits for its host"
    );
    game.host(HostCommand::Resume).await;
    drive(&mut [&mut game.host, &mut ann], &table, hand_ended).await;
    game.conserved().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_host_controls_a_private_game() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut game = Game::start(&[], &guard).await;
    let table = game.table.clone();
    let ann = game.seated_friend("ann", 1).await;
    let ann_id = ann.player_id.unwrap();
    // A seated friend and an outsider who holds the invite both try every host command.
    let mut eve = game.friend("eve").await;
    eve.send(&join(&table, &game.invite)).await;
    let eve_id = eve.player_id.unwrap();
    wait_view(&mut eve, |v| asks(v, eve_id)).await;
    let mut mallory = game.friend("mallory").await;
    let commands = [
        HostCommand::Approve { player_id: eve_id },
        HostCommand::Deny { player_id: eve_id },
        HostCommand::Pause,
        HostCommand::Resume,
        HostCommand::Blinds {
            small: 50,
            big: 100,
        },
        HostCommand::Remove { player_id: ann_id },
        HostCommand::End,
    ];
    for command in commands {
        for attacker in [&mut eve, &mut mallory] {
            attacker.send(&host_msg(&table, command.clone())).await;
            attacker.expect_error(ErrorCode::NotHost).await;
        }
    }
    // Nothing changed: Eve still waits, Ann still sits, the blinds are the preset's, and
    // the new game still waits for its host to start it.
    let view = fresh_view(&mut game.host, &table).await;
    let private = view.private.clone().unwrap();
    assert!(asks(&view, eve_id) && private.paused && private.next_blinds.is_none());
    assert!(view.seats.iter().any(|s| s.player_id == ann_id));
    assert_eq!(view.blinds, (1, 2));
    let (_, shown) = invite_status(&game.server, &table, &game.invite).await;
    assert_eq!(shown["status"], "open");
    // Host commands at a lobby table are refused too (there is no host).
    let lobby = game.server.table(json!({ "action_ms": 20000 })).await;
    game.host.send(&host_msg(&lobby, HostCommand::Pause)).await;
    game.host.expect_error(ErrorCode::PrivateRefused).await;
    game.conserved().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pause_waits_for_the_hand_and_new_blinds_start_with_the_next_hand() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let (mut game, table, mut ann) = Game::heads_up(&guard).await;

    // Paused during the first hand: it plays to its end, and no other is dealt.
    let first = {
        let mut clients = [&mut game.host, &mut ann];
        let seen = drive(&mut clients, &table, |m| hand_started(m).is_some()).await;
        hand_started(seen.last().unwrap()).unwrap()
    };
    game.host(HostCommand::Pause).await;
    // Blinds changed during the hand: this hand keeps its own.
    game.host(HostCommand::Blinds { small: 5, big: 10 }).await;
    let seen = drive(&mut [&mut game.host, &mut ann], &table, hand_ended).await;
    assert!(
        seen.iter().all(|m| !matches!(m, ServerMsg::Event { event: Event::BlindPosted { amount, .. }, .. } if *amount > 2)),
        "the hand in progress kept its blinds"
    );
    {
        let mut clients = [&mut game.host, &mut ann];
        let quiet = drive(&mut clients, &table, |m| hand_started(m).is_some());
        assert!(
            tokio::time::timeout(Duration::from_secs(4), quiet)
                .await
                .is_err(),
            "a hand was dealt while paused"
        );
    }
    let view = fresh_view(&mut game.host, &table).await;
    let private = view.private.unwrap();
    assert!(private.paused);
    assert_eq!(private.next_blinds, Some((5, 10)));

    // Resumed: the next hand is dealt at once, with the new blinds (and buy-ins scaled).
    game.host(HostCommand::Resume).await;
    let mut posted = Vec::new();
    let seen = drive(&mut [&mut game.host, &mut ann], &table, |m| {
        if let ServerMsg::Event {
            event: Event::BlindPosted { amount, .. },
            hand_number,
            ..
        } = m
        {
            posted.push((*hand_number, *amount));
        }
        posted.len() == 2
    })
    .await;
    assert!(posted.iter().all(|(n, _)| *n > first), "{posted:?}");
    let mut amounts: Vec<u64> = posted.iter().map(|(_, a)| *a).collect();
    amounts.sort();
    assert_eq!(amounts, vec![5, 10], "the new blinds");
    let view = seen
        .iter()
        .rev()
        .find_map(|m| match m {
            ServerMsg::Seats { table } => Some(table.clone()),
            _ => None,
        })
        .expect("the seats with the new blinds");
    assert_eq!(
        (view.blinds, view.min_buy_in, view.max_buy_in),
        ((5, 10), 200, 1000)
    );
    drive(&mut [&mut game.host, &mut ann], &table, hand_ended).await;
    // A restart keeps them: they are saved with the table.
    let config = game
        .server
        .get_json(&format!("/admin/tables/{table}"))
        .await;
    assert_eq!(config["table"]["blinds"], json!([5, 10]));
    game.conserved().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_removed_player_folds_is_cashed_out_and_cannot_come_back() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut game = Game::start(&[], &guard).await;
    let table = game.table.clone();
    let mut ann = game.seated_friend("ann", 1).await;
    let mut bob = game.seated_friend("bob", 2).await;
    let bob_id = bob.player_id.unwrap();
    game.host.send(&common::sit(&table, 0, 200)).await;
    game.host(HostCommand::Resume).await;
    // During a hand: Bob's hand is dead, the others play on, and he is cashed out when
    // it ends, to his wallet through the ledger.
    drive(&mut [&mut game.host, &mut ann, &mut bob], &table, |m| {
        hand_started(m).is_some()
    })
    .await;
    game.host(HostCommand::Remove { player_id: bob_id }).await;
    // Told why, before anything else the removal does to him.
    let host_name = bob
        .until(|m| match m {
            ServerMsg::Removed { host_name, .. } => Some(host_name.clone()),
            ServerMsg::Done { request, .. } if request == "leave" => {
                panic!("cashed out before being told why")
            }
            _ => None,
        })
        .await;
    assert_eq!(host_name, "host");
    let mut cashed = None;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while cashed.is_none() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "Bob was never cashed out"
        );
        drive(&mut [&mut bob, &mut game.host, &mut ann], &table, |m| {
            if let ServerMsg::Done {
                request,
                amount,
                pending: false,
                ..
            } = m
            {
                if request == "leave" {
                    cashed = Some(*amount);
                }
            }
            cashed.is_some() || hand_ended(m)
        })
        .await;
    }
    // Back in his wallet: what he did not buy in with, and what he was cashed out with.
    let token = game.server.login("bob").await;
    let (_, me) = game.server.call("GET", "/api/me", Some(&token), None).await;
    assert_eq!(me["balance"], json!(DEPOSIT - 200 + cashed.unwrap()));
    let view = wait_view(&mut game.host, |v| {
        v.seats.iter().all(|s| s.player_id != bob_id)
    })
    .await;
    assert!(!approved(&view, bob_id));
    // Removed for good: neither the invite nor a sit lets him back.
    bob.send(&join(&table, &game.invite)).await;
    bob.expect_error(ErrorCode::PrivateRefused).await;
    bob.send(&common::sit(&table, 2, 200)).await;
    bob.expect_error(ErrorCode::PrivateRefused).await;
    game.conserved().await;
    let audit = game.server.audit().await;
    assert!(audit.stacks > 0, "the others play on: {audit:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_ends_the_game_and_its_link_says_so() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let (mut game, table, mut ann) = Game::heads_up(&guard).await;
    drive(&mut [&mut game.host, &mut ann], &table, |m| {
        hand_started(m).is_some()
    })
    .await;
    // Ended during a hand: the link says so at once (nobody acts: the hand is still
    // being played), then the hand plays out, everyone is cashed out and told.
    game.host(HostCommand::End).await;
    let mut shown = json!(null);
    for _ in 0..50 {
        shown = invite_status(&game.server, &table, &game.invite).await.1;
        if shown["status"] == "closed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        shown["status"], "closed",
        "the game ends with the host's word: {shown}"
    );
    drive(&mut [&mut game.host, &mut ann], &table, |m| {
        matches!(m, ServerMsg::TableClosed { .. })
    })
    .await;
    let (status, shown) = invite_status(&game.server, &table, &game.invite).await;
    assert_eq!((status, shown["status"].clone()), (200, json!("closed")));
    ann.send(&join(&table, &game.invite)).await;
    ann.expect_error(ErrorCode::UnknownTable).await;
    let audit = game.server.audit().await;
    assert_eq!(audit.stacks, 0, "everyone cashed out: {audit:?}");
    game.conserved().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_table_closes_once_nobody_sits_there() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut game = Game::start(&[("POKER__ROOM__PRIVATE_EMPTY_SECS", "5")], &guard).await;
    let table = game.table.clone();
    let mut ann = game.seated_friend("ann", 1).await;
    // Seated: it stays open well past the limit.
    tokio::time::sleep(Duration::from_secs(7)).await;
    let (_, shown) = invite_status(&game.server, &table, &game.invite).await;
    assert_eq!(shown["status"], "open");
    assert_eq!(shown["players"], 1);
    ann.send(&ClientMsg::Leave {
        table_id: tid(&table),
    })
    .await;
    ann.until(|m| matches!(m, ServerMsg::TableClosed { .. }).then_some(()))
        .await;
    let (_, shown) = invite_status(&game.server, &table, &game.invite).await;
    assert_eq!(shown["status"], "closed");
    game.conserved().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rooms_offer_private_tables_with_play_money_and_not_with_real_money_unless_set() {
    let make = |server: &Server, token: String| {
        let server_base = server.base.clone();
        async move {
            let r = reqwest::Client::new()
                .post(format!("{server_base}/api/private"))
                .bearer_auth(token)
                .json(&json!({ "preset": "plo", "big_blind": 10, "seats": 2 }))
                .send()
                .await
                .unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };
    // Real money, by default: none.
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut real = Server::start(&guard.url(), &[]).await;
    real.player("rita", 0).await;
    let (status, body) = make(&real, real.login("rita").await).await;
    assert_eq!((status, body["error"].clone()), (403, json!("private_off")));
    real.stop().await;

    // Play money, by default: on; an account made on the spot hosts one, at the stakes
    // asked for, and no house bot sits there.
    let play = &[
        ("POKER__ROOM__MONEY", "play"),
        ("POKER__ROOM__PRESETS", "false"),
        ("POKER__BOTS__FILL_TO", "3"),
        ("POKER__BOTS__THINK_MS", "30"),
    ];
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), play).await;
    let token = server.register("paula").await;
    let (status, made) = make(&server, token.clone()).await;
    assert_eq!(status, 201, "{made}");
    let table = made["table_id"].as_str().unwrap().to_string();
    let mut paula = Client::connect(server.addr, "paula").await;
    paula.auth(&token).await;
    paula
        .send(&join(&table, made["invite"].as_str().unwrap()))
        .await;
    let view = wait_view(&mut paula, |_| true).await;
    assert_eq!(
        (view.blinds, view.seat_count, view.max_buy_in),
        ((5, 10), 2, 1000)
    );
    paula.send(&common::sit(&table, 0, 1000)).await;
    let view = wait_view(&mut paula, |v| !v.seats.is_empty()).await;
    assert_eq!(view.seats.len(), 1);
    // Alone at the table for a while: no house bot comes (at a lobby table one would).
    assert!(
        tokio::time::timeout(
            Duration::from_secs(3),
            wait_view(&mut paula, |v| v.seats.len() > 1)
        )
        .await
        .is_err(),
        "a house bot sat at a private table"
    );
    // The host's limit on open private tables.
    for _ in 1..3 {
        assert_eq!(make(&server, token.clone()).await.0, 201);
    }
    let (status, body) = make(&server, token.clone()).await;
    assert_eq!(
        (status, body["error"].clone()),
        (409, json!("too_many_private_tables"))
    );
    let audit = server.audit().await;
    assert!(audit.holds(), "{audit:?}");
    server.stop().await;
}

/// The lines and rake of a `ledger` message.
fn ledger_of(m: &ServerMsg) -> Option<(Vec<poker_protocol::LedgerLine>, u64)> {
    match m {
        ServerMsg::Ledger { lines, rake, .. } => Some((lines.clone(), *rake)),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ledger_settles_up_a_private_game_from_the_rooms_ledger() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let (mut game, table, mut ann) = Game::heads_up(&guard).await;
    let mut ended = 0;
    drive(&mut [&mut game.host, &mut ann], &table, |m| {
        ended += usize::from(hand_ended(m));
        ended == 3
    })
    .await;
    // Asked during play by a player of the game: a line each, in the order they bought
    // in, the chips on the table as of the last hand.
    let ask = ClientMsg::Ledger {
        table_id: tid(&table),
    };
    ann.send(&ask).await;
    let (lines, rake) = ann.until(ledger_of).await;
    let names: Vec<&str> = lines.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["ann", "host"]);
    assert!(lines
        .iter()
        .all(|l| l.bought_in == 200 && l.cashed_out == 0));
    assert_eq!(lines.iter().map(|l| l.stack).sum::<u64>() + rake, 400);
    assert_eq!(lines.iter().map(|l| l.net).sum::<i64>() + rake as i64, 0);
    // Someone who may not watch the game, and a public table, are refused.
    let mut eve = game.friend("eve").await;
    eve.send(&ask).await;
    eve.expect_error(ErrorCode::PrivateRefused).await;
    let public = game.server.table(json!({})).await;
    eve.send(&ClientMsg::Ledger {
        table_id: tid(&public),
    })
    .await;
    eve.expect_error(ErrorCode::PrivateRefused).await;
    // Ended: everyone is cashed out, then sent the settle-up, then told the table closed.
    game.host(HostCommand::End).await;
    let seen = drive(&mut [&mut game.host, &mut ann], &table, |m| {
        matches!(m, ServerMsg::TableClosed { .. })
    })
    .await;
    let (lines, rake) = seen
        .iter()
        .rev()
        .find_map(ledger_of)
        .expect("the settle-up before the table closed");
    assert_eq!(lines.len(), 2);
    for line in &lines {
        assert_eq!(line.stack, 0, "cashed out: {line:?}");
        assert_eq!(line.net, line.cashed_out as i64 - line.bought_in as i64);
        // The net is what the wallet gained or lost: the ledger's, not a second count.
        let player = game
            .server
            .get_json(&format!("/admin/players/{}", line.player_id))
            .await;
        assert_eq!(
            player["balance"],
            json!(DEPOSIT as i64 + line.net),
            "{line:?}"
        );
    }
    assert_eq!(lines.iter().map(|l| l.net).sum::<i64>() + rake as i64, 0);
    game.conserved().await;
}

/// The hand a message belongs to, if it is a hand's event.
fn event_of(m: &ServerMsg) -> Option<(u64, &Event)> {
    match m {
        ServerMsg::Event {
            hand_number, event, ..
        } => Some((*hand_number, event)),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h1_h2_h3_a_host_plays_bomb_pots_and_a_dealers_choice_rotation_with_friends() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    // Hold'em, Omaha and 2-7 triple draw, an orbit each; a bomb pot of 2 big blinds (4)
    // every 3 hands.
    let sent = json!({
        "preset": "nlhe", "games": ["nlhe", "plo", "triple_draw"],
        "bomb_pot_every": 3, "bomb_pot_big_blinds": 2, "showdown_ms": 0
    });
    let mut game = Game::start_with(&[], sent, &guard).await;
    let table = game.table.clone();
    let (status, shown) = invite_status(&game.server, &table, &game.invite).await;
    assert_eq!(status, 200);
    assert_eq!(shown["game"], "Dealer's choice");
    assert_eq!(
        shown["games"],
        json!(["NL Hold'em", "PL Omaha", "FL 2-7 Triple Draw"])
    );
    assert_eq!(shown["bomb_pot_every"], 3);
    let mut ann = game.seated_friend("ann", 1).await;
    let mut bob = game.seated_friend("bob", 2).await;
    game.host.send(&common::sit(&table, 0, 200)).await;
    let view = wait_view(&mut game.host, |v| v.seats.len() == 3).await;
    let rotation = view.dealers_choice.clone().unwrap();
    assert_eq!(rotation.games.len(), 3);
    assert_eq!((rotation.now, rotation.next), (0, 1));
    assert_eq!(view.bomb_pot.as_ref().unwrap().next_hand, Some(3));
    // Nobody but the host may call a bomb pot.
    ann.send(&host_msg(&table, HostCommand::BombPot { big_blinds: None }))
        .await;
    ann.expect_error(ErrorCode::NotHost).await;
    game.host(HostCommand::Resume).await;

    // Hands 1-9: hold'em 1, 2, 3 (a bomb pot, not counted), 4; Omaha 5, 6 (a bomb pot),
    // 7, 8; triple draw from 9 (a bomb pot due, but no flop: an ordinary hand).
    let seen = drive(&mut [&mut game.host, &mut ann, &mut bob], &table, |m| {
        matches!(event_of(m), Some((9, Event::HandEnded { .. })))
    })
    .await;
    // The game each hand was dealt in, from the view sent just before its first event.
    let mut games = std::collections::BTreeMap::new();
    let mut bombs = std::collections::BTreeMap::new();
    let mut last_view: Option<TableView> = None;
    for m in &seen {
        if let ServerMsg::Seats { table } | ServerMsg::Snapshot { table, .. } = m {
            last_view = Some(table.clone());
        }
        if let Some((number, _)) = event_of(m) {
            let view = last_view.as_ref().unwrap();
            games.entry(number).or_insert(view.game_kind);
            bombs
                .entry(number)
                .or_insert(view.bomb_pot.as_ref().is_some_and(|b| b.now));
        }
    }
    use poker_rules::Game::{DeuceToSevenTripleDraw as Draw, Holdem, Omaha};
    let dealt: Vec<_> = (1..=9).map(|n| (games[&n], bombs[&n])).collect();
    assert_eq!(
        dealt,
        [
            (Holdem, false),
            (Holdem, false),
            (Holdem, true),
            (Holdem, false),
            (Omaha, false),
            (Omaha, true),
            (Omaha, false),
            (Omaha, false),
            (Draw, false),
        ]
    );
    // A bomb pot: everyone puts in 4, nobody posts a blind, the flop comes before any
    // betting round (the first is the flop's).
    for bomb in [3, 6] {
        let events: Vec<&Event> = seen
            .iter()
            .filter_map(event_of)
            .filter(|(n, _)| *n == bomb)
            .map(|(_, e)| e)
            .collect();
        let antes: Vec<u64> = events
            .iter()
            .filter_map(|e| match e {
                Event::AntePosted { amount, .. } => Some(*amount),
                _ => None,
            })
            .collect();
        assert_eq!(antes, [4, 4, 4], "hand {bomb}");
        assert!(!events
            .iter()
            .any(|e| matches!(e, Event::BlindPosted { .. })));
        let flop = events
            .iter()
            .position(|e| matches!(e, Event::BoardDealt { .. }))
            .unwrap();
        let first_round = events
            .iter()
            .position(|e| matches!(e, Event::RoundStarted { .. }))
            .unwrap();
        assert!(flop < first_round, "hand {bomb}: no pre-flop round");
        assert!(matches!(
            events[first_round],
            Event::RoundStarted { street: 1 }
        ));
    }
    // An ordinary hand posts the blinds.
    assert!(seen
        .iter()
        .filter_map(event_of)
        .any(|(n, e)| n == 4 && matches!(e, Event::BlindPosted { .. })));

    // The host calls a bomb pot of 3 big blinds: not in triple draw (no flop), so it
    // waits for hold'em, whose first hand (12) was due one anyway: one bomb pot, of the
    // size called.
    game.host(HostCommand::BombPot {
        big_blinds: Some(3),
    })
    .await;
    let seen = drive(&mut [&mut game.host, &mut ann, &mut bob], &table, |m| {
        matches!(event_of(m), Some((12, Event::HandEnded { .. })))
    })
    .await;
    assert!(seen.iter().any(|m| matches!(m, ServerMsg::Seats { table }
        if table.game_kind == Draw
            && table.bomb_pot.as_ref().is_some_and(|b| b.called == Some(3) && !b.now))));
    let antes = |hand: u64| -> Vec<u64> {
        seen.iter()
            .filter_map(event_of)
            .filter_map(|(n, e)| match e {
                Event::AntePosted { amount, .. } if n == hand => Some(*amount),
                _ => None,
            })
            .collect()
    };
    assert!(
        antes(10).is_empty() && antes(11).is_empty(),
        "triple draw: no bomb"
    );
    assert_eq!(antes(12), [6, 6, 6], "3 big blinds each");
    game.host(HostCommand::Pause).await;
    let after = fresh_view(&mut game.host, &table).await;
    assert_eq!(after.game_kind, Holdem);
    assert!(
        after.bomb_pot.unwrap().called.is_none(),
        "one call, one bomb pot"
    );
    // Every hand's history is its own game's; a bomb pot's PHH says so, and each exports
    // as PokerStars text too.
    let hands = game
        .server
        .get_json(&format!("/admin/tables/{table}/hands?limit=500"))
        .await;
    let mut bomb_histories = Vec::new();
    for hand in hands.as_array().unwrap() {
        if hand["status"] != "complete" {
            continue;
        }
        let id = hand["hand_id"].as_str().unwrap();
        let number = hand["number"].as_u64().unwrap();
        let (status, phh) = game
            .server
            .get(&format!("/admin/hands/{id}?format=phh"))
            .await;
        assert_eq!(status, 200, "{phh}");
        let code = |c: &str| phh.contains(&format!("variant = '{c}'"));
        let variant = if code("PO") {
            Omaha
        } else if code("F2L3D") {
            Draw
        } else {
            Holdem
        };
        if let Some(&dealt) = games.get(&number) {
            assert_eq!(variant, dealt, "hand {number}: {phh}");
        }
        if phh.contains("\"bomb_pot\":true") {
            bomb_histories.push(number);
        }
        let (status, stars) = game
            .server
            .get(&format!("/admin/hands/{id}?format=pokerstars"))
            .await;
        assert_eq!(status, 200, "hand {number}: {stars}");
    }
    bomb_histories.sort();
    assert_eq!(bomb_histories, [3, 6, 12]);
    game.conserved().await;
}

/// A play-money room with private tables, without presets or house bots.
const PLAY: &[(&str, &str)] = &[
    ("POKER__ROOM__MONEY", "play"),
    ("POKER__ROOM__PRESETS", "false"),
    ("POKER__BOTS__FILL_TO", "0"),
];

/// The host's `adjust_stack`, answered: the `stack_adjusted` everyone is sent, or the
/// refusal's code. Refused `in_hand` while a hand that just ended waits for its commit,
/// it is asked again when `retry_in_hand`.
async fn adjust(
    game: &mut Game,
    player_id: PlayerId,
    amount: i64,
    retry_in_hand: bool,
) -> Result<(i64, u64), ErrorCode> {
    for _ in 0..100 {
        game.host(HostCommand::AdjustStack { player_id, amount })
            .await;
        let answer = loop {
            match game.host.recv().await {
                ServerMsg::StackAdjusted {
                    player_id: p,
                    amount,
                    stack,
                    ..
                } if p == player_id => break Ok((amount, stack)),
                ServerMsg::Error { code, .. } => break Err(code),
                // The host plays on meanwhile (a hand in progress waits for no one).
                ServerMsg::Decide {
                    decision_id, legal, ..
                } => {
                    let action = simple_action(&legal, false);
                    let act = common::act(&game.table, decision_id, action);
                    game.host.send(&act).await;
                }
                _ => {}
            }
        };
        match answer {
            Err(ErrorCode::InHand) if retry_in_hand => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            answer => return answer,
        }
    }
    panic!("the hand never ended")
}

/// Wallets, stacks and rake equal deposits less withdrawals (adjustments counted as
/// such); returns deposits less withdrawals.
async fn balanced(server: &Server) -> i64 {
    let audit = server.audit().await;
    assert!(audit.holds(), "{audit:?}");
    assert_eq!(
        audit.wallets + audit.stacks + audit.rake,
        audit.deposits - audit.withdrawals,
        "{audit:?}"
    );
    audit.deposits - audit.withdrawals
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_play_money_host_adjusts_a_stack_between_hands_everyone_sees_it_and_the_books_balance() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut game = Game::start(PLAY, &guard).await;
    let table = game.table.clone();
    let mut ann = game.seated_friend("ann", 1).await;
    let ann_id = ann.player_id.unwrap();
    game.host.send(&common::sit(&table, 0, 200)).await;
    wait_view(&mut game.host, |v| v.seats.len() == 2).await;
    let before = balanced(&game.server).await;
    // Only the host: Ann cannot give herself chips.
    ann.send(&host_msg(
        &table,
        HostCommand::AdjustStack {
            player_id: ann_id,
            amount: 1000,
        },
    ))
    .await;
    ann.expect_error(ErrorCode::NotHost).await;
    // The game is paused (new): between hands. 500 more for Ann: everyone is told, and
    // shown the new stack.
    assert_eq!(adjust(&mut game, ann_id, 500, false).await, Ok((500, 700)));
    let (name, host_name) = ann
        .until(|m| match m {
            ServerMsg::StackAdjusted {
                player_id,
                name,
                host_name,
                amount: 500,
                stack: 700,
                ..
            } if *player_id == ann_id => Some((name.clone(), host_name.clone())),
            _ => None,
        })
        .await;
    assert_eq!((name.as_str(), host_name.as_str()), ("ann", "host"));
    wait_view(&mut ann, |v| {
        v.seats
            .iter()
            .any(|s| s.player_id == ann_id && s.stack == 700)
    })
    .await;
    assert_eq!(balanced(&game.server).await, before + 500);
    // Refused: nothing, below nothing, past the bound, someone not seated.
    assert_eq!(
        adjust(&mut game, ann_id, 0, false).await,
        Err(ErrorCode::IllegalAction)
    );
    assert_eq!(
        adjust(&mut game, ann_id, -701, false).await,
        Err(ErrorCode::IllegalAction)
    );
    assert_eq!(
        adjust(&mut game, ann_id, i64::MAX, false).await,
        Err(ErrorCode::IllegalAction)
    );
    let eve = game.friend("eve").await;
    let before = before + DEPOSIT as i64;
    assert_eq!(
        adjust(&mut game, eve.player_id.unwrap(), 100, false).await,
        Err(ErrorCode::SeatRefused)
    );
    // 200 off: back to the house.
    assert_eq!(
        adjust(&mut game, ann_id, -200, false).await,
        Ok((-200, 500))
    );
    assert_eq!(balanced(&game.server).await, before + 300);
    // During a hand Ann is in: refused; once it ends (the host paused meanwhile), taken.
    game.host(HostCommand::Resume).await;
    drive(&mut [&mut game.host, &mut ann], &table, |m| {
        hand_started(m).is_some()
    })
    .await;
    game.host(HostCommand::Pause).await;
    assert_eq!(
        adjust(&mut game, ann_id, 100, false).await,
        Err(ErrorCode::InHand)
    );
    drive(&mut [&mut game.host, &mut ann], &table, hand_ended).await;
    let (amount, stack) = adjust(&mut game, ann_id, 100, true).await.unwrap();
    assert_eq!(amount, 100);
    assert_eq!(balanced(&game.server).await, before + 400);
    // The ledger shows the adjustments apart: the nets and the rake still sum to zero.
    game.host
        .send(&ClientMsg::Ledger {
            table_id: tid(&table),
        })
        .await;
    let (lines, rake) = game.host.until(ledger_of).await;
    let line = lines.iter().find(|l| l.player_id == ann_id).unwrap();
    assert_eq!(
        (line.bought_in, line.adjusted, line.stack),
        (200, 400, stack)
    );
    assert_eq!(line.net, line.stack as i64 - 200 - 400);
    assert_eq!(lines.iter().map(|l| l.net).sum::<i64>() + rake as i64, 0);
    // Ended: the settle-up still balances, and Ann's wallet has what she cashed out.
    game.host(HostCommand::End).await;
    let seen = drive(&mut [&mut game.host, &mut ann], &table, |m| {
        matches!(m, ServerMsg::TableClosed { .. })
    })
    .await;
    let (lines, rake) = seen.iter().rev().find_map(ledger_of).unwrap();
    for line in &lines {
        assert_eq!(
            line.net,
            line.cashed_out as i64 - line.bought_in as i64 - line.adjusted
        );
    }
    assert_eq!(lines.iter().map(|l| l.net).sum::<i64>() + rake as i64, 0);
    let line = lines.iter().find(|l| l.player_id == ann_id).unwrap();
    let player = game
        .server
        .get_json(&format!("/admin/players/{ann_id}"))
        .await;
    assert_eq!(
        player["balance"],
        json!(DEPOSIT as i64 - 200 + line.cashed_out as i64)
    );
    assert_eq!(balanced(&game.server).await, before + 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_money_host_cannot_adjust_a_stack() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut game = Game::start(&[], &guard).await;
    let ann = game.seated_friend("ann", 1).await;
    let ann_id = ann.player_id.unwrap();
    assert_eq!(
        adjust(&mut game, ann_id, 100, false).await,
        Err(ErrorCode::PlayMoneyOnly)
    );
    assert_eq!(
        adjust(&mut game, ann_id, -100, false).await,
        Err(ErrorCode::PlayMoneyOnly)
    );
    game.conserved().await;
}

/// A host who pauses the game while the deal waits for a friend's seed: the table sleeps
/// until the host resumes. The seeds' wait, once past, was left as the table's deadline
/// and woke it at once, again and again, for as long as the game stayed paused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_paused_while_the_deal_waits_for_a_seed_sleeps_until_the_host_resumes() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let (mut game, table, mut ann) = Game::heads_up(&guard).await;
    // Ann commits to a seed for every next deck and never reveals it: once the list of
    // commitments closes with hers in it, the deal waits for her seed (up to a second).
    let seed = poker_protocol::Seed::from_bytes([7; 32]);
    let closed_at = 'hands: loop {
        for (i, client) in [&mut game.host, &mut ann].into_iter().enumerate() {
            let Some(msg) = client.try_recv(Duration::from_millis(5)).await else {
                continue;
            };
            let commitment = match &msg {
                ServerMsg::Decide {
                    decision_id, legal, ..
                } => {
                    let action = simple_action(legal, false);
                    client
                        .send(&common::act(&table, *decision_id, action))
                        .await;
                    None
                }
                ServerMsg::DeckCommitted { commitment, .. } => Some(*commitment),
                ServerMsg::Snapshot {
                    next_deck: Some(next),
                    ..
                } => Some(**next),
                ServerMsg::SeedsClosed { list, .. } if list.iter().any(|e| e.seat == 1) => {
                    break 'hands tokio::time::Instant::now();
                }
                _ => None,
            };
            if let Some(next) = commitment.filter(|_| i == 1) {
                client
                    .send(&ClientMsg::SeedCommit {
                        table_id: tid(&table),
                        hand_id: next.hand_id,
                        commitment: poker_protocol::seed_commitment(&next.commitment, &seed),
                    })
                    .await;
            }
        }
    };
    // The pause between hands ends half a second after the list closed; the wait for
    // Ann's seed, a second after. The host pauses in between.
    tokio::time::sleep_until(closed_at + Duration::from_millis(700)).await;
    game.host(HostCommand::Pause).await;
    tokio::time::sleep_until(closed_at + Duration::from_millis(800)).await;
    let before = game.server.metric("poker_table_wakeups_total").await;
    tokio::time::sleep_until(closed_at + Duration::from_millis(2300)).await;
    let woke = game.server.metric("poker_table_wakeups_total").await - before;
    assert!(woke < 50, "the paused table woke {woke} times in 1.5 s");
    // Resumed: the next hand is dealt (without Ann's seed, which never came).
    game.host(HostCommand::Resume).await;
    drive(&mut [&mut game.host, &mut ann], &table, |m| {
        hand_started(m).is_some()
    })
    .await;
    game.conserved().await;
}
