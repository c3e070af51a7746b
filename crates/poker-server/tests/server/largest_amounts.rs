//! The largest amounts, sent to every WebSocket message and every HTTP endpoint that takes
//! one (issue 35, item 9): 2^64-1, 2^63, 2^63-1 (i64::MAX, the largest SQL bigint) and
//! i64::MAX+1, amounts just past the table's and the store's bounds, and numbers that do
//! not fit a u64 at all (2^64, negative, 1e30). Each gets its typed refusal (never
//! `internal`, never a wrap that passes a bound, never a panic: these run in a debug
//! build, where an overflow panicked the table's task), the connection and the table carry
//! on (a later ordinary request is done), and chips in play, wallets and rake add up to
//! what was deposited.

use crate::common;

use common::{act, sit, tid, Client, Db, DbGuard, Server, TOKEN};
use poker_protocol::{ClientMsg, ErrorCode, HostCommand, ServerMsg, TableView};
use poker_rules::{Action, Event, MAX_CHIPS};
use poker_store::MAX_MONEY;
use serde_json::{json, Value};

/// Each player's deposit.
const DEPOSIT: u64 = 1000;

/// 2^63: past i64::MAX, what a u64 cast to an SQL bigint would turn negative.
const TWO_TO_63: u64 = 1 << 63;

/// The largest amounts every field of chips is tried with.
const LARGEST: [u64; 5] = [
    u64::MAX,
    TWO_TO_63,
    i64::MAX as u64,
    i64::MAX as u64 + 1,
    MAX_CHIPS + 1,
];

/// Numbers a JSON reader cannot take as a u64, as they are written in a frame or body.
const NOT_U64: [&str; 4] = ["18446744073709551616", "-1", "1e30", "12.5"];

/// A real-money room (every deposit known to the test) with private games on.
async fn server() -> (DbGuard, Server) {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let settings = [
        ("POKER__ROOM__PRIVATE_TABLES", "on"),
        // Every refusal is waited for; the test is about amounts, not the rate limit.
        ("POKER__SERVER__RATE_LIMIT_BURST", "1000"),
    ];
    let server = Server::start(&guard.url(), &settings).await;
    (guard, server)
}

/// A clock that never runs out while the test sends its messages.
fn slow_clock() -> Value {
    json!({ "action_ms": 600_000, "warning_ms": 0, "time_bank_ms": 0, "between_hands_ms": 0 })
}

/// A POST with a body as written (numbers no `serde_json::Value` can hold), with a bearer
/// token: the status and the answer.
async fn post_text(server: &Server, path: &str, token: &str, body: String) -> (u16, Value) {
    let r = reqwest::Client::new()
        .post(format!("{}{path}", server.base))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// Skips table traffic until an error comes: its code and words.
async fn next_error(c: &mut Client) -> (ErrorCode, String) {
    loop {
        match c.recv().await {
            ServerMsg::Error { code, message } => return (code, message),
            ServerMsg::Done { request, .. } => panic!("{}: {request} was done", c.name),
            _ => {}
        }
    }
}

/// Skips table traffic until a `done` comes: what was asked, the amount, whether pending.
async fn next_done(c: &mut Client) -> (String, u64, bool) {
    c.until(|m| match m {
        ServerMsg::Done {
            request,
            amount,
            pending,
            ..
        } => Some((request.clone(), *amount, *pending)),
        _ => None,
    })
    .await
}

/// The next view of the table (a snapshot or a change of seats) that `ok` accepts.
async fn view_where(c: &mut Client, ok: impl Fn(&TableView) -> bool) -> TableView {
    c.until(|m| match m {
        ServerMsg::Snapshot { table, .. } | ServerMsg::Seats { table } if ok(table) => {
            Some(table.clone())
        }
        _ => None,
    })
    .await
}

/// The frame of a client message with one number written as given (`NUMBER` in `frame`).
fn with_number(frame: &str, number: &str) -> String {
    frame.replace("NUMBER", number)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_largest_amounts_to_every_http_endpoint_are_refused_with_their_typed_4xx() {
    let (_g, mut server) = server().await;
    let ann = server.player("ann", DEPOSIT).await;
    let ann_token = server.login("ann").await;
    let deposited = DEPOSIT;

    // Deposits and withdrawals: past the store's bound (2^53) is 400 `invalid`, however
    // large; within it but past what the room may hold is 409 `room_full`; a withdrawal
    // past the balance is 409 `insufficient_funds`.
    for kind in ["deposit", "withdraw"] {
        for amount in LARGEST {
            let sent = json!({ "amount": amount, "idempotency_key": format!("{kind}-{amount}") });
            let path = format!("/admin/players/{ann}/{kind}");
            server.post_refused(&path, sent, (400, "invalid")).await;
        }
    }
    let sent = json!({ "amount": MAX_MONEY - deposited + 1 });
    let path = format!("/admin/players/{ann}/deposit");
    server.post_refused(&path, sent, (409, "room_full")).await;
    let sent = json!({ "amount": DEPOSIT + 1 });
    let path = format!("/admin/players/{ann}/withdraw");
    server
        .post_refused(&path, sent, (409, "insufficient_funds"))
        .await;

    // A table's amounts (blinds, stakes, ante, buy-ins, cap, unit, rake cap, spread, kill
    // pot, seats) and its clock: 400 `invalid_rules`, naming the field to blame (a
    // minimum buy-in above the maximum names the maximum).
    let mut cases: Vec<(&str, Value, Value)> = Vec::new();
    for amount in LARGEST {
        let a = json!(amount);
        let rules = vec![
            ("rules.small_blind", json!({ "small_blind": a })),
            ("rules.big_blind", json!({ "big_blind": a })),
            ("rules.max_buy_in", json!({ "min_buy_in": a })),
            ("rules.max_buy_in", json!({ "max_buy_in": a })),
            ("rules.seat_count", json!({ "seat_count": a })),
            (
                "rules.stakes.min_bet",
                json!({ "stakes": { "min_bet": a } }),
            ),
            (
                "rules.ante",
                json!({ "ante": { "kind": "each", "amount": a } }),
            ),
            ("rules.options.cap", json!({ "options": { "cap": a } })),
            ("rules.options.unit", json!({ "options": { "unit": a } })),
            (
                "rules.options.rake",
                json!({ "options": { "rake": { "basis_points": 500, "cap": a } } }),
            ),
            (
                "rules.options.spread",
                json!({ "structure": "spread_limit", "stakes": {}, "max_raises": 3, "options": { "spread": [[1, a]] } }),
            ),
            (
                "rules.kill",
                json!({ "kill": { "trigger": { "kind": "pot_over", "value": a }, "percent": 200 } }),
            ),
            (
                "rules.kill",
                json!({ "kill": { "trigger": { "kind": "consecutive_wins", "value": 2 }, "percent": a } }),
            ),
            (
                "rules.max_missed_big_blinds",
                json!({ "max_missed_big_blinds": a }),
            ),
        ];
        for (field, change) in rules {
            cases.push((field, change, Value::Null));
        }
        for (field, name) in [
            ("clock.action_ms", "action_ms"),
            ("clock.warning_ms", "warning_ms"),
            ("clock.time_bank_ms", "time_bank_ms"),
            ("clock.between_hands_ms", "between_hands_ms"),
            ("clock.seat_offer_ms", "seat_offer_ms"),
        ] {
            cases.push((field, json!({}), json!({ name: a })));
        }
    }
    for (field, change, clock) in cases {
        let mut rules = common::nl_rules();
        for (k, v) in change.as_object().unwrap() {
            rules[k] = v.clone();
        }
        let mut body = json!({ "name": "huge", "rules": rules });
        if !clock.is_null() {
            body["clock"] = clock.clone();
        }
        let (status, answer) = server.post("/admin/tables", body).await;
        assert_eq!(
            (status, answer["error"].as_str()),
            (400, Some("invalid_rules")),
            "{field} {change} {clock}: {answer}"
        );
        assert_eq!(
            answer["problems"][0]["field"], field,
            "{change} {clock}: {answer}"
        );
    }

    // A private game's stakes, seats and clock: 400.
    for ask in [
        json!({ "preset": "nlhe", "big_blind": u64::MAX }),
        json!({ "preset": "nlhe", "big_blind": TWO_TO_63 }),
        json!({ "preset": "nlhe", "big_blind": i64::MAX }),
        json!({ "preset": "nlhe", "big_blind": 1_000_000_001 }),
        json!({ "preset": "stud", "big_blind": u64::MAX }),
        json!({ "preset": "nlhe", "seats": u32::MAX }),
        json!({ "preset": "nlhe", "seats": u64::MAX }),
        json!({ "preset": "nlhe", "action_secs": u64::MAX }),
        json!({ "preset": "nlhe", "action_secs": TWO_TO_63 }),
        json!({ "preset": "nlhe", "action_secs": u64::MAX / 1000 + 1 }),
        json!({ "preset": "nlhe", "action_secs": 86_401 }),
    ] {
        let (status, body) = server
            .call("POST", "/api/private", Some(&ann_token), Some(ask.clone()))
            .await;
        assert_eq!(status, 400, "{ask}: {body}");
        assert!(
            matches!(
                body["error"].as_str(),
                Some("invalid_rules" | "bad_request")
            ),
            "{ask}: {body}"
        );
    }

    // Later ordinary requests are done: the amounts moved nothing.
    let sent = json!({ "amount": 10 });
    let body = server
        .posted(&format!("/admin/players/{ann}/deposit"), sent, 200)
        .await;
    assert_eq!(body["balance"], DEPOSIT + 10);
    let sent = json!({ "amount": 10 });
    let body = server
        .posted(&format!("/admin/players/{ann}/withdraw"), sent, 200)
        .await;
    assert_eq!(body["balance"], DEPOSIT);
    server.table(slow_clock()).await;
    let sent = json!({ "preset": "nlhe", "big_blind": 10, "action_secs": 86_400 });
    server
        .expect("POST", "/api/private", Some(&ann_token), Some(sent), 201)
        .await;
    let audit = server.get_json("/admin/audit").await;
    assert_eq!(audit["wallets"], DEPOSIT, "{audit}");
    server.finish(deposited as i64).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_largest_amounts_in_every_websocket_message_are_refused_and_the_table_plays_on() {
    let (_g, mut server) = server().await;
    for name in ["ann", "ben", "cat"] {
        server.player(name, DEPOSIT).await;
    }
    let deposited = 3 * DEPOSIT;
    // Buy-ins 40 to 200.
    let t = server.table(slow_clock()).await;
    let mut ann = server.client("ann").await;
    let mut ben = server.client("ben").await;

    // sit: a buy-in past the table's maximum (200) is `seat_refused`.
    for buy_in in LARGEST.into_iter().chain([201]) {
        ann.send(&sit(&t, 0, buy_in)).await;
        let (code, message) = next_error(&mut ann).await;
        assert_eq!(code, ErrorCode::SeatRefused, "{buy_in}: {message}");
        assert!(message.contains("buy in between 40 and 200"), "{message}");
    }
    ann.send(&sit(&t, 0, 100)).await;
    assert_eq!(next_done(&mut ann).await, ("sit".into(), 100, false));

    // top_up, alone at the table (no hand): past the maximum is `seat_refused`, and so is
    // the amount that wrapped 100 + amount round to exactly 0 (and used to pass).
    let top_up = |amount| ClientMsg::TopUp {
        table_id: tid(&t),
        amount,
    };
    for amount in LARGEST.into_iter().chain([u64::MAX - 99, 101]) {
        ann.send(&top_up(amount)).await;
        let (code, message) = next_error(&mut ann).await;
        assert_eq!(code, ErrorCode::SeatRefused, "{amount}: {message}");
        assert_eq!(
            message, "a top-up may bring the stack to at most 200 (now 100)",
            "{amount}"
        );
    }
    ann.send(&top_up(50)).await;
    assert_eq!(next_done(&mut ann).await, ("top_up".into(), 50, false));

    // A hand starts once Ben sits; a top-up during it waits for its end (pending), and the
    // largest amounts are refused beside one that waits.
    ben.send(&sit(&t, 1, 200)).await;
    assert_eq!(next_done(&mut ben).await, ("sit".into(), 200, false));
    let view = view_where(&mut ann, |v| v.button.is_some()).await;
    let stack = view.seats.iter().find(|s| s.seat == 0).unwrap().stack;
    ann.send(&top_up(10)).await;
    assert_eq!(next_done(&mut ann).await, ("top_up".into(), 10, true));
    let now = stack + 10;
    for amount in LARGEST
        .into_iter()
        .chain([u64::MAX - now + 1, 200 - now + 1])
    {
        ann.send(&top_up(amount)).await;
        let (code, message) = next_error(&mut ann).await;
        assert_eq!(code, ErrorCode::SeatRefused, "{amount}: {message}");
        assert_eq!(
            message,
            format!("a top-up may bring the stack to at most 200 (now {now})")
        );
    }

    // act: a bet or raise to the largest amounts is `illegal_action`; the decision stays
    // open and an ordinary answer is taken.
    let (who, decision) = loop {
        if let Some((id, _)) = ann.last_decide {
            break (0, id);
        }
        if let Some((id, _)) = ben.last_decide {
            break (1, id);
        }
        tokio::select! {
            _ = ann.recv() => {}
            _ = ben.recv() => {}
        }
    };
    let actor = if who == 0 { &mut ann } else { &mut ben };
    for to in LARGEST.into_iter().chain([201, 1001]) {
        actor
            .send(&act(&t, decision, Action::BetOrRaiseTo { to }))
            .await;
        let (code, message) = next_error(actor).await;
        assert_eq!(code, ErrorCode::IllegalAction, "{to}: {message}");
    }
    actor.send(&act(&t, decision, Action::Fold)).await;
    // The hand ends and the top-up that waited for it is made.
    let (mut ended, mut topped_up) = (false, false);
    while !(ended && topped_up) {
        match ann.recv().await {
            ServerMsg::Event {
                event: Event::HandEnded { .. },
                ..
            } => ended = true,
            ServerMsg::Done {
                request, amount, ..
            } if request == "top_up" => {
                assert_eq!(amount, 10);
                topped_up = true;
            }
            ServerMsg::Error { code, message } => panic!("{code:?}: {message}"),
            _ => {}
        }
    }

    // host blinds: the blinds of a private game, checked before any product (the big
    // bet, twice the big blind, panicked the table's task in a debug build).
    let cat_token = server.login("cat").await;
    let sent = json!({ "preset": "flhe" });
    let made = server
        .expect("POST", "/api/private", Some(&cat_token), Some(sent), 201)
        .await;
    let private = made["table_id"].as_str().unwrap().to_string();
    let mut cat = Client::connect(server.addr, "cat").await;
    cat.auth(&cat_token).await;
    cat.send(&ClientMsg::JoinPrivate {
        table_id: tid(&private),
        invite: made["invite"].as_str().unwrap().to_string(),
    })
    .await;
    view_where(&mut cat, |v| v.private.is_some()).await;
    let blinds = |small, big| ClientMsg::Host {
        table_id: tid(&private),
        command: HostCommand::Blinds { small, big },
    };
    for (small, big) in [
        (1, u64::MAX),
        (u64::MAX, u64::MAX),
        (1, TWO_TO_63),
        (TWO_TO_63, TWO_TO_63),
        (1, i64::MAX as u64),
        (1, i64::MAX as u64 + 1),
        (1, u64::MAX / 2 + 1),
        (1, MAX_CHIPS + 1),
        (1, MAX_CHIPS / 2 + 1),
    ] {
        cat.send(&blinds(small, big)).await;
        let (code, message) = next_error(&mut cat).await;
        assert_eq!(code, ErrorCode::IllegalAction, "{small}/{big}: {message}");
    }
    cat.send(&blinds(2, 4)).await;
    view_where(&mut cat, |v| {
        v.private
            .as_ref()
            .is_some_and(|p| p.next_blinds == Some((2, 4)))
    })
    .await;

    // Every connection still answers, and the first table still plays: both leave.
    for c in [&mut ann, &mut ben, &mut cat] {
        c.send(&ClientMsg::Ping).await;
        c.until(|m| matches!(m, ServerMsg::Pong).then_some(()))
            .await;
    }
    for c in [&mut ann, &mut ben] {
        c.send(&ClientMsg::Leave { table_id: tid(&t) }).await;
        let (request, _, _) = next_done(c).await;
        assert_eq!(request, "leave");
    }
    server.finish(deposited as i64).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn numbers_that_do_not_fit_a_u64_are_refused_with_a_clear_error_over_http_and_the_websocket()
{
    let (_g, mut server) = server().await;
    let ann = server.player("ann", DEPOSIT).await;
    let ann_token = server.login("ann").await;
    let t = server.table(slow_clock()).await;
    for number in NOT_U64 {
        // The admin API's deposits and withdrawals, and a table's amounts.
        for path in ["deposit", "withdraw"] {
            let (status, body) = post_text(
                &server,
                &format!("/admin/players/{ann}/{path}"),
                TOKEN,
                format!(r#"{{"amount": {number}}}"#),
            )
            .await;
            assert_eq!(
                (status, body["error"].as_str()),
                (400, Some("bad_request")),
                "{number}: {body}"
            );
            let message = body["message"].as_str().unwrap();
            assert!(
                message.contains("amount") && message.contains("u64"),
                "{message}"
            );
        }
        let mut rules = serde_json::to_string(&common::nl_rules()).unwrap();
        rules = rules.replace(r#""big_blind":2"#, &format!(r#""big_blind":{number}"#));
        let table = format!(r#"{{"name": "huge", "rules": {rules}}}"#);
        let (status, body) = post_text(&server, "/admin/tables", TOKEN, table).await;
        let error = body["error"].as_str();
        assert_eq!(
            (status, error),
            (400, Some("invalid_rules")),
            "{number}: {body}"
        );
        assert_eq!(body["problems"][0]["field"], "rules.big_blind", "{body}");
        // A player's private game.
        let (status, body) = post_text(
            &server,
            "/api/private",
            &ann_token,
            format!(r#"{{"preset": "nlhe", "big_blind": {number}}}"#),
        )
        .await;
        assert_eq!(
            (status, body["error"].as_str()),
            (400, Some("bad_request")),
            "{number}: {body}"
        );
        assert!(
            body["message"].as_str().unwrap().contains("big_blind"),
            "{body}"
        );
    }

    // Every message with an amount, over the WebSocket: `bad_message` naming the number
    // and what it must be; the connection carries on.
    let mut c = server.client("ann").await;
    let table = t.as_str();
    let frames = [
        format!(r#"{{"type":"sit","table_id":"{table}","seat":0,"buy_in":NUMBER}}"#),
        format!(r#"{{"type":"top_up","table_id":"{table}","amount":NUMBER}}"#),
        format!(
            r#"{{"type":"act","table_id":"{table}","decision_id":1,"action":{{"type":"bet_or_raise_to","to":NUMBER}}}}"#
        ),
        format!(
            r#"{{"type":"host","table_id":"{table}","command":{{"do":"blinds","small":1,"big":NUMBER}}}}"#
        ),
    ];
    for frame in &frames {
        for number in NOT_U64 {
            c.send_raw(with_number(frame, number)).await;
            let (code, message) = next_error(&mut c).await;
            assert_eq!(code, ErrorCode::BadMessage, "{frame} {number}: {message}");
            assert!(
                message.contains("whole numbers from 0 to 18446744073709551615"),
                "{number}: {message}"
            );
        }
    }
    c.send(&sit(&t, 0, 100)).await;
    assert_eq!(next_done(&mut c).await, ("sit".into(), 100, false));
    c.send(&ClientMsg::Leave { table_id: tid(&t) }).await;
    assert_eq!(next_done(&mut c).await.0, "leave");
    server.finish(DEPOSIT as i64).await;
}
