//! Messages an independent or hostile client sends, each once found to break a table:
//! every one is answered with a typed error or done as documented, and the table plays on
//! with every chip accounted for. Real server on port 0, real WebSockets, SQLite file.

use crate::common;

use common::{act, sit, tid, Client, Db, DbGuard, MyCards, Server};
use futures_util::{SinkExt, StreamExt};
use poker_protocol::{ClientMsg, ErrorCode, ServerMsg};
use poker_rules::{Action, Cards, Event};
use serde_json::json;
use std::time::Duration;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::Message;

fn clock(action_ms: u64) -> serde_json::Value {
    json!({ "action_ms": action_ms, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 })
}

async fn server(settings: &[(&str, &str)]) -> (DbGuard, Server) {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let server = Server::start(&guard.url(), settings).await;
    (guard, server)
}

/// Ann and Ben, each with 1000 in the wallet, sit at `table` with `buy_in` each.
async fn heads_up(server: &Server, table: &str, buy_in: u64) -> (Client, Client) {
    server.player("ann", 1000).await;
    server.player("ben", 1000).await;
    let mut ann = server.client("ann").await;
    let mut ben = server.client("ben").await;
    ann.send(&sit(table, 0, buy_in)).await;
    ben.send(&sit(table, 1, buy_in)).await;
    (ann, ben)
}

/// Skips messages until an error or a done comes.
async fn answer(c: &mut Client) -> ServerMsg {
    loop {
        let m = c.recv().await;
        if matches!(m, ServerMsg::Error { .. } | ServerMsg::Done { .. }) {
            return m;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_of_the_wrong_kind_for_the_decision_is_illegal_and_the_table_plays_on() {
    let (_g, mut server) = server(&[]).await;
    let t = server.table(clock(10_000)).await;
    let (ann, ben) = heads_up(&server, &t, 200).await;
    let mut clients = [ann, ben];
    // Whoever is asked first tries every kind of answer that is not a betting action.
    let wrong = [
        Action::RunItTwice { agree: true },
        Action::RunItTwice { agree: false },
        Action::Draw {
            discards: Cards::new(),
        },
        Action::Show { cards: None },
        Action::Muck,
    ];
    let mut tried = false;
    while !tried {
        for c in clients.iter_mut() {
            if let Some(ServerMsg::Decide { decision_id, .. }) =
                c.try_recv(Duration::from_millis(10)).await
            {
                for action in wrong {
                    c.send(&act(&t, decision_id, action)).await;
                    match answer(c).await {
                        ServerMsg::Error { code, .. } => {
                            assert_eq!(code, ErrorCode::IllegalAction, "{action:?}")
                        }
                        other => panic!("{action:?}: {other:?}"),
                    }
                }
                // The same decision still stands and is answered.
                c.send(&act(&t, decision_id, Action::Fold)).await;
                tried = true;
                break;
            }
        }
    }
    let stats = common::play(&mut clients, &t, 3, |_, _, l| {
        common::simple_action(l, false)
    })
    .await;
    assert!(stats.hands_ended >= 3);
    server.finish(2000).await;
}

/// Six players each throw away every card at every draw of 2-7 triple draw: the 52-card
/// deck runs out and the discards are reshuffled, every hand.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn triple_draw_with_six_players_discarding_everything_reshuffles_and_plays_on() {
    let (_g, mut server) = server(&[]).await;
    let mut rules = common::nl_rules();
    rules["game"] = json!("deuce_to_seven_triple_draw");
    rules["structure"] = json!("fixed_limit");
    rules["stakes"] = json!({ "small_bet": 2, "big_bet": 4 });
    rules["max_raises"] = json!(4);
    let t = server.table_with(rules, clock(10_000)).await;
    let mut clients = Vec::new();
    for (i, name) in ["ann", "ben", "cat", "dan", "eve", "fay"]
        .iter()
        .enumerate()
    {
        server.player(name, 1000).await;
        let mut c = server.client(name).await;
        c.send(&sit(&t, i as u32, 200)).await;
        clients.push((c, MyCards::default()));
    }
    let mut ended = 0;
    let mut draws = 0;
    let mut idle = 0;
    while ended < 3 {
        let mut any = false;
        for (i, (c, mine)) in clients.iter_mut().enumerate() {
            let Some(msg) = c.try_recv(Duration::from_millis(5)).await else {
                continue;
            };
            any = true;
            mine.follow(&msg, c.seat);
            match msg {
                ServerMsg::Decide {
                    decision_id, legal, ..
                } => {
                    let a = common::check_or_call(&legal);
                    c.send(&act(&t, decision_id, a)).await;
                }
                ServerMsg::DecideDraw { decision_id, .. } => {
                    assert_eq!(mine.cards.len(), 5, "{}: {:?}", c.name, mine.cards);
                    let discards = Cards::from_slice(&mine.cards).unwrap();
                    draws += 1;
                    c.send(&act(&t, decision_id, Action::Draw { discards }))
                        .await;
                }
                ServerMsg::Event {
                    event: Event::HandEnded { .. },
                    ..
                } if i == 0 => ended += 1,
                ServerMsg::Error { code, message } => panic!("{code:?}: {message}"),
                _ => {}
            }
        }
        idle = if any { 0 } else { idle + 1 };
        assert!(
            idle < 1000,
            "the table froze after {ended} hands, {draws} draws"
        );
    }
    // Six players drawing five cards three times need 6*5 + 3*30 = 120 cards: reshuffled.
    assert!(draws >= 18, "{draws} draws");
    server.finish(6000).await;
    let store = poker_store::SqlStore::connect(&server.url).await.unwrap();
    let hands = poker_store::SqlStore::table_hands(&store, t.parse().unwrap(), 10, 0)
        .await
        .unwrap();
    for h in hands.iter().filter(|h| h.status == "complete") {
        let phh = poker_history::phh::PhhHand::parse(h.phh.as_deref().expect("a PHH")).unwrap();
        poker_history::phh::replay(&phh).expect("a reshuffled hand replays");
    }
}

/// Nobody answers at a stud table: the clock posts the bring-in (it can neither check nor
/// fold), and hands go on being dealt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r12_the_clock_posts_the_bring_in_for_a_player_who_does_not_answer() {
    let (_g, mut server) = server(&[]).await;
    let rules = json!({
        "game": "stud", "structure": "fixed_limit",
        "stakes": { "small_bet": 4, "big_bet": 8, "bring_in": 1 },
        "max_raises": 4, "uncapped_heads_up": false, "seat_count": 6,
        "small_blind": 0, "big_blind": 0, "ante": { "kind": "each", "amount": 1 },
        "button": "dead", "missed_blinds": "dead_small_live_big",
        "min_buy_in": 40, "max_buy_in": 200, "rathole_secs": 0,
        "max_missed_big_blinds": 10, "kill": null, "rock": false
    });
    let t = server.table_with(rules, clock(150)).await;
    let (mut ann, ben) = heads_up(&server, &t, 100).await;
    let mut bring_ins = 0;
    let mut ended = 0;
    while ended < 3 {
        match ann.recv().await {
            ServerMsg::Event { event, .. } => match event {
                Event::BringInPosted { .. } => bring_ins += 1,
                Event::HandEnded { .. } => ended += 1,
                _ => {}
            },
            ServerMsg::Error { code, message } => panic!("{code:?}: {message}"),
            _ => {}
        }
    }
    assert!(bring_ins >= 3, "{bring_ins} bring-ins in {ended} hands");
    drop(ben);
    server.finish(2000).await;
}

/// A player who leaves at their turn has a dead hand: the answer they then send is
/// refused, they are folded, and they cash out what they had left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_who_left_at_their_turn_cannot_act_and_is_folded() {
    let (_g, mut server) = server(&[]).await;
    let t = server.table(clock(10_000)).await;
    let (mut ann, mut ben) = heads_up(&server, &t, 120).await;
    // Whoever is asked first leaves, then tries to raise all in.
    let (leaver, other) = loop {
        if let Some(ServerMsg::Decide { .. }) = ann.try_recv(Duration::from_millis(10)).await {
            break (&mut ann, &mut ben);
        }
        if let Some(ServerMsg::Decide { .. }) = ben.try_recv(Duration::from_millis(10)).await {
            break (&mut ben, &mut ann);
        }
    };
    let (decision_id, legal) = leaver.last_decide.unwrap();
    leaver.send(&ClientMsg::Leave { table_id: tid(&t) }).await;
    match answer(leaver).await {
        ServerMsg::Done {
            request, pending, ..
        } => assert!(request == "leave" && pending),
        other => panic!("{other:?}"),
    }
    let max = legal.bet_or_raise.map_or(0, |(_, m)| m);
    leaver
        .send(&act(&t, decision_id, Action::BetOrRaiseTo { to: max }))
        .await;
    match answer(leaver).await {
        ServerMsg::Error { code, .. } => assert!(
            matches!(
                code,
                ErrorCode::StaleDecision | ErrorCode::IllegalAction | ErrorCode::NotYourTurn
            ),
            "{code:?}"
        ),
        other => panic!("the action of a player who left was taken: {other:?}"),
    }
    // The hand ends with the leaver folded; they are cashed out what they had behind.
    let cashed = loop {
        match leaver.recv().await {
            ServerMsg::Done {
                request,
                amount,
                pending: false,
                ..
            } if request == "leave" => break amount,
            ServerMsg::Event {
                event: Event::BetTo { .. },
                ..
            } => panic!("a player who left raised"),
            _ => {}
        }
    };
    assert!(cashed < 120, "a folded blind loses it: {cashed}");
    let _ = other;
    server.finish(2000).await;
}

/// A refused sit neither subscribes the connection nor sends a snapshot.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_sit_sends_no_snapshot_and_subscribes_nothing() {
    let (_g, mut server) = server(&[]).await;
    server.player("ann", 1000).await;
    let t = server.table(clock(10_000)).await;
    let mut ann = server.client("ann").await;
    for (seat, buy_in) in [(0, 1), (0, 100_000), (42, 100)] {
        ann.send(&sit(&t, seat, buy_in)).await;
        ann.send(&ClientMsg::Ping).await;
        match ann.recv().await {
            ServerMsg::Error { code, .. } => assert!(
                matches!(code, ErrorCode::SeatRefused | ErrorCode::InsufficientFunds),
                "{code:?}"
            ),
            other => panic!("a refused sit sent {other:?}"),
        }
        assert_eq!(ann.recv().await, ServerMsg::Pong);
    }
    assert!(ann.try_recv(Duration::from_millis(200)).await.is_none());
    server.finish(1000).await;
}

/// A text frame that is not UTF-8 ends the connection (RFC 6455), with an error and a
/// close frame saying why; the player reconnects and the table is untouched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_frame_with_invalid_utf8_gets_an_error_and_a_close_frame() {
    let (_g, mut server) = server(&[]).await;
    server.player("ann", 1000).await;
    let mut ann = server.client("ann").await;
    let bad = Frame::message(vec![b'{', 0xff, 0xfe, b'}'], OpCode::Data(Data::Text), true);
    ann.ws.send(Message::Frame(bad)).await.unwrap();
    let mut got_error = false;
    let mut close_code = None;
    while let Ok(Some(frame)) = tokio::time::timeout(Duration::from_secs(5), ann.ws.next()).await {
        match frame {
            Ok(Message::Text(t)) => {
                let msg: ServerMsg = serde_json::from_str(&t).unwrap();
                if let ServerMsg::Error { code, .. } = msg {
                    assert_eq!(code, ErrorCode::BadMessage);
                    got_error = true;
                }
            }
            Ok(Message::Close(Some(c))) => close_code = Some(u16::from(c.code)),
            Ok(_) => {}
            Err(_) => break,
        }
    }
    assert!(got_error, "a typed error first");
    assert_eq!(close_code, Some(1007), "then a close frame: invalid data");
    let mut again = server.client("ann").await;
    again.send(&ClientMsg::Ping).await;
    assert_eq!(again.recv().await, ServerMsg::Pong);
    server.stop().await;
}

/// Sitting out during a hand is answered `pending`, then `done` again when the hand ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pending_sit_out_is_told_done_when_the_hand_ends() {
    let (_g, mut server) = server(&[]).await;
    let t = server.table(clock(500)).await;
    let (mut ann, ben) = heads_up(&server, &t, 200).await;
    ann.until(|m| matches!(m, ServerMsg::Event { .. }).then_some(()))
        .await;
    ann.send(&ClientMsg::SitOut {
        table_id: tid(&t),
        next_big_blind: false,
    })
    .await;
    match answer(&mut ann).await {
        ServerMsg::Done {
            request, pending, ..
        } => assert!(request == "sit_out" && pending),
        other => panic!("{other:?}"),
    }
    let mut clients = [ann, ben];
    let mut told = false;
    let mut idle = 0;
    while !told {
        for c in clients.iter_mut() {
            match c.try_recv(Duration::from_millis(5)).await {
                Some(ServerMsg::Decide {
                    decision_id, legal, ..
                }) => {
                    c.send(&act(&t, decision_id, common::simple_action(&legal, false)))
                        .await
                }
                Some(ServerMsg::Done {
                    request,
                    pending: false,
                    ..
                }) if request == "sit_out" => told = true,
                Some(ServerMsg::Error { code, message }) => panic!("{code:?} {message}"),
                Some(_) => idle = 0,
                None => idle += 1,
            }
        }
        assert!(idle < 2000, "no second done");
    }
    server.finish(2000).await;
}

/// Answers to decisions are never rate-limited: heads-up with no pause between hands at
/// one message a second, every decision is answered in time and accepted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_to_decisions_are_never_rate_limited() {
    let (_g, mut server) = server(&[
        ("POKER__SERVER__RATE_LIMIT_PER_SEC", "1"),
        ("POKER__SERVER__RATE_LIMIT_BURST", "3"),
    ])
    .await;
    let t = server.table(clock(10_000)).await;
    let (ann, ben) = heads_up(&server, &t, 200).await;
    let mut clients = [ann, ben];
    // `play` fails on any error, rate_limited included.
    let stats = common::play(&mut clients, &t, 15, |_, _, l| {
        common::simple_action(l, false)
    })
    .await;
    assert!(stats.actions >= 30, "{stats:?}");
    // A message that answers nothing still is limited.
    let mut limited = false;
    for _ in 0..10 {
        clients[0].send(&ClientMsg::Ping).await;
    }
    // The next hand's messages may come first (the table deals on at once).
    while !limited {
        if let ServerMsg::Error { code, .. } = clients[0].recv().await {
            limited |= code == ErrorCode::RateLimited;
        }
    }
    server.finish(2000).await;
}

/// A misspelt option or field is refused with its name, not silently dropped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_rule_options_and_fields_are_refused_by_name() {
    let (_g, mut server) = server(&[]).await;
    let mut rules = common::nl_rules();
    rules["options"] = json!({ "run_it_twise": true });
    let sent = json!({ "name": "x", "rules": rules, "clock": clock(1000) });
    let body = server.posted("/admin/tables", sent, 400).await;
    assert!(
        body["message"].as_str().unwrap().contains("run_it_twise"),
        "{body}"
    );
    let mut rules = common::nl_rules();
    rules["rake_percent"] = json!(5);
    let (status, body) = server
        .post("/admin/tables", json!({ "name": "x", "rules": rules }))
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("rake_percent"),
        "{body}"
    );
    let sent = json!({ "name": "x", "rules": common::nl_rules(), "clok": clock(1000) });
    let body = server.posted("/admin/tables", sent, 400).await;
    assert!(body["message"].as_str().unwrap().contains("clok"), "{body}");
    let id = server.player("ann", 0).await;
    let sent = json!({ "amount": 5, "idempotency": "k" });
    server
        .posted(&format!("/admin/players/{id}/deposit"), sent, 400)
        .await;
    server.finish(0).await;
}

/// Amounts are bounded so that every sum fits: tables with giant blinds, stakes or
/// buy-ins, and deposits past the room's bound, are refused with a typed 400.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn amounts_past_the_bound_are_refused_so_every_sum_fits() {
    let (_g, mut server) = server(&[]).await;
    let big = poker_rules::MAX_CHIPS + 1;
    assert_eq!(poker_rules::MAX_CHIPS, poker_store::MAX_MONEY);
    for (field, value) in [
        ("big_blind", json!(1u64 << 62)),
        ("small_blind", json!(1u64 << 61)),
        ("max_buy_in", json!(1u64 << 62)),
        ("max_buy_in", json!(poker_rules::MAX_CHIPS / 2)),
        ("stakes", json!({ "min_bet": big })),
        ("ante", json!({ "kind": "each", "amount": big })),
    ] {
        let mut rules = common::nl_rules();
        rules[field] = value.clone();
        let (status, body) = server
            .post("/admin/tables", json!({ "name": "x", "rules": rules }))
            .await;
        assert_eq!(status, 400, "{field} = {value}: {body}");
        assert_eq!(body["error"], "invalid_rules", "{body}");
    }
    let id = server.player("ann", 1).await;
    for amount in [i64::MAX as u64, u64::MAX, big] {
        let sent = json!({ "amount": amount });
        server
            .posted(&format!("/admin/players/{id}/deposit"), sent, 400)
            .await;
    }
    let audit = server.get_json("/admin/audit").await;
    assert_eq!(audit["wallets"], 1, "{audit}");
    server.finish(1).await;
}

/// Reads frames until the connection closes: the error codes seen and the close code.
async fn until_closed(c: &mut Client) -> (Vec<ErrorCode>, Option<u16>) {
    let mut errors = Vec::new();
    while let Ok(Some(frame)) = tokio::time::timeout(Duration::from_secs(10), c.ws.next()).await {
        match frame {
            Ok(Message::Text(t)) => {
                if let ServerMsg::Error { code, .. } = serde_json::from_str(&t).unwrap() {
                    errors.push(code);
                }
            }
            Ok(Message::Close(frame)) => return (errors, frame.map(|f| u16::from(f.code))),
            Ok(_) => {}
            Err(_) => break,
        }
    }
    (errors, None)
}

/// Logging out, or the session expiring, ends the session's WebSockets: told
/// `unauthenticated`, then closed (1008); the token no longer authenticates.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_that_logs_out_or_expires_closes_its_websockets() {
    let (_g, mut server) = server(&[]).await;
    let ann_id = server.player("ann", 1000).await;
    let t = server.table(clock(10_000)).await;
    let token = server.login("ann").await;
    let mut ann = Client::connect(server.addr, "ann").await;
    ann.auth(&token).await;
    let status = reqwest::Client::new()
        .post(format!("{}/logout", server.base))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status.as_u16(), 204);
    let (errors, close) = until_closed(&mut ann).await;
    assert_eq!(errors, vec![ErrorCode::Unauthenticated]);
    assert_eq!(close, Some(1008));
    let mut again = Client::connect(server.addr, "ann").await;
    again
        .send(&ClientMsg::Auth {
            token: token.clone(),
        })
        .await;
    again.expect_error(ErrorCode::Unauthenticated).await;
    again.send(&sit(&t, 0, 100)).await;
    again.expect_error(ErrorCode::Unauthenticated).await;
    // A session that expires while connected.
    use sha2::Digest;
    let store = poker_store::SqlStore::connect(&server.url).await.unwrap();
    let short = "short-lived-token";
    poker_store::SqlStore::create_session(
        &store,
        &format!("{:x}", sha2::Sha256::digest(short.as_bytes())),
        ann_id.parse().unwrap(),
        poker_store::now_ms() + 700,
    )
    .await
    .unwrap();
    let mut brief = Client::connect(server.addr, "ann").await;
    brief.auth(short).await;
    let (errors, close) = until_closed(&mut brief).await;
    assert_eq!(errors, vec![ErrorCode::Unauthenticated]);
    assert_eq!(close, Some(1008));
    store.close().await;
    server.finish(1000).await;
}

/// The admin API keeps its contract at the edges: unknown player or table on `…/hands`
/// is 404, closing a closed table is 409, a body over the limit is 413, and a bad query
/// gets the JSON error shape.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_api_answers_its_edges_as_documented() {
    let (_g, mut server) = server(&[]).await;
    let nobody = "00000000-0000-4000-8000-000000000000";
    for path in [
        format!("/admin/players/{nobody}/hands"),
        format!("/admin/tables/{nobody}/hands"),
    ] {
        let (status, body) = server.get(&path).await;
        assert_eq!(status, 404, "{path}: {body}");
    }
    let t = server.table(clock(1000)).await;
    let (status, _) = server
        .post(&format!("/admin/tables/{t}/close"), json!({}))
        .await;
    assert_eq!(status, 200);
    let (status, body) = server
        .post(&format!("/admin/tables/{t}/close"), json!({}))
        .await;
    assert_eq!((status, body["error"].as_str()), (409, Some("closed")));
    let (status, _) = server
        .post(&format!("/admin/tables/{nobody}/close"), json!({}))
        .await;
    assert_eq!(status, 404);
    let (status, body) = server
        .get(&format!("/admin/tables/{t}/hands?offset=-1"))
        .await;
    assert_eq!(status, 400);
    let body: serde_json::Value = serde_json::from_str(&body).expect("a JSON error");
    assert_eq!(body["error"], "bad_request");
    // The documented page limits: 1 to 500 hands.
    for (query, expected) in [("limit=0", 400), ("limit=501", 400), ("limit=500", 200)] {
        let (status, body) = server
            .get(&format!("/admin/tables/{t}/hands?{query}"))
            .await;
        assert_eq!(status, expected, "{query}: {body}");
    }
    // The server answers 413 from the declared length, without reading the body, and
    // closes the connection: a client still writing the 3 MiB may see its write cut
    // (a broken pipe) before it reads the answer. Either way the body was refused.
    let sent = reqwest::Client::new()
        .post(format!("{}/admin/players", server.base))
        .bearer_auth(common::TOKEN)
        .json(&json!({ "name": "x".repeat(3 << 20), "password": "password1" }))
        .send()
        .await;
    match sent {
        Ok(response) => {
            let status = response.status().as_u16();
            let body: serde_json::Value = response.json().await.unwrap_or_default();
            assert_eq!(
                (status, body["error"].as_str()),
                (413, Some("payload_too_large"))
            );
        }
        Err(e) => {
            let cut = std::error::Error::source(&e)
                .map(|s| format!("{s:?}"))
                .unwrap_or_default();
            assert!(
                e.is_request() && (cut.contains("BrokenPipe") || cut.contains("ConnectionReset")),
                "an oversized body is refused with 413 or cut off, not {e:?}"
            );
        }
    }
    let (_, players) = server.get("/admin/players?q=xxxxxxxx").await;
    assert!(!players.contains("xxxxxxxx"), "{players}");
    server.stop().await;
}

/// With Postgres down, `/healthz` answers 503 promptly (not after the pool's 30 s), and
/// 200 again by itself once the database is back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_answers_503_while_postgres_is_down_and_recovers_by_itself() {
    let Some((guard, mut server)) = Server::on_stoppable_postgres("this test").await else {
        return;
    };
    let pg = guard.postgres();
    let health = || async {
        reqwest::get(format!("{}/healthz", server.base))
            .await
            .unwrap()
            .status()
            .as_u16()
    };
    assert_eq!(health().await, 200);
    pg.stop().unwrap();
    assert_eq!(health().await, 503);
    pg.restart().unwrap();
    let mut status = 0;
    for _ in 0..100 {
        status = health().await;
        if status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(status, 200, "healthy again once the database is back");
    server.stop().await;
}

async fn ws_with_origin(server: &Server, origin: &str) -> Result<u16, u16> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut request = format!("ws://{}/ws", server.addr)
        .into_client_request()
        .unwrap();
    request
        .headers_mut()
        .insert("origin", origin.parse().unwrap());
    match tokio_tungstenite::connect_async(request).await {
        Ok((_, response)) => Ok(response.status().as_u16()),
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => Err(r.status().as_u16()),
        Err(e) => panic!("{e}"),
    }
}

/// The page is served with a content security policy that forbids framing and foreign
/// scripts; `/ws` refuses pages from other origins unless configured.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_is_locked_down_and_the_websocket_refuses_foreign_origins() {
    let (_g, mut server) = server(&[(
        "POKER__SERVER__ALLOWED_ORIGINS",
        "https://club.example, https://other.example",
    )])
    .await;
    let page = reqwest::get(format!("{}/", server.base)).await.unwrap();
    let h = page.headers();
    let csp = h["content-security-policy"].to_str().unwrap();
    // Framed by itself only (tiled tables), never by another site.
    assert!(
        csp.contains("frame-ancestors 'self'") && csp.contains("script-src 'self'"),
        "{csp}"
    );
    assert_eq!(h["x-content-type-options"], "nosniff");
    assert_eq!(h["x-frame-options"], "SAMEORIGIN");
    let own = format!("http://{}", server.addr);
    assert_eq!(ws_with_origin(&server, &own).await, Ok(101));
    assert_eq!(
        ws_with_origin(&server, "https://club.example").await,
        Ok(101)
    );
    assert_eq!(
        ws_with_origin(&server, "https://evil.example").await,
        Err(403)
    );
    assert_eq!(ws_with_origin(&server, "null").await, Err(403));
    server.stop().await;
}
