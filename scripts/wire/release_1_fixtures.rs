//! Writes every node-to-node request and answer of this release as JSON (WIRE_FIXTURES_OUT).
use poker_protocol::{HostCommand, ServerMsg};
use poker_rules::Action;
use poker_server::table::{Answer, PrivateAsk, Refusal, Reply, Request, SeatRequest, SeedStep};
use poker_store::{PlayerId, TableId, HandId};
use serde_json::json;

#[test]
fn write_wire_fixtures() {
    let Some(out) = std::env::var_os("WIRE_FIXTURES_OUT") else { return };
    let out = std::path::PathBuf::from(out);
    std::fs::create_dir_all(&out).unwrap();
    let player: PlayerId = "0b9e1a52-3c57-4a0e-9a43-5d0f7e0f4c11".parse().unwrap();
    let other: PlayerId = "5d7a9c2e-8f3b-4e61-b0a4-2c1e9d8f7a63".parse().unwrap();
    let hand: HandId = "7f3c2b1a-9e8d-4c7b-a6f5-e4d3c2b1a098".parse().unwrap();
    let digest = poker_fairness::Digest::from_bytes([7; 32]);
    let seats = vec![
        SeatRequest::SitOut { next_big_blind: true },
        SeatRequest::SitIn { post_now: false },
        SeatRequest::TopUp { amount: 50 },
        SeatRequest::Leave,
        SeatRequest::AutoMuck { on: false },
        SeatRequest::Straddle { on: true },
        SeatRequest::ShowHand,
        SeatRequest::Seed(SeedStep::Commit { hand_id: hand, commitment: digest, house: false }),
    ];
    let hosts = vec![
        HostCommand::Approve { player_id: other },
        HostCommand::Deny { player_id: other },
        HostCommand::Pause,
        HostCommand::Resume,
        HostCommand::Blinds { small: 2, big: 4 },
        HostCommand::Remove { player_id: other },
        HostCommand::End,
    ];
    let mut requests: Vec<(String, Request)> = vec![
        ("sit".into(), Request::Sit { player, name: "ann".into(), seat: 3, buy_in: 200, entry: serde_json::from_value(json!("post_now")).unwrap(), address: Some("10.0.0.1".parse().unwrap()), seed_commit: None }),
        ("buy_in_range".into(), Request::BuyInRange { player }),
        ("act_call".into(), Request::Act { player, decision_id: 7, action: Action::Call }),
        ("act_raise".into(), Request::Act { player, decision_id: 8, action: Action::BetOrRaiseTo { to: 120 } }),
        ("chat".into(), Request::Chat { player, name: "ann".into(), text: "gl".into() }),
        ("waitlist".into(), Request::Waitlist { player, join: true }),
        ("switch_chat".into(), Request::SwitchChat { enabled: false }),
        ("subscribe".into(), Request::Subscribe { player: Some(player), only_if_seated: true }),
        ("unsubscribe".into(), Request::Unsubscribe),
        ("private_join".into(), Request::Private { player, name: "ann".into(), ask: PrivateAsk::Join { invite: "s3cret-invite".into() } }),
        ("ledger".into(), Request::Ledger { player }),
        ("release_away".into(), Request::ReleaseAway { keep_secs: 3600 }),
        ("inspect".into(), Request::Inspect),
        ("drain".into(), Request::Drain),
        ("close".into(), Request::Close),
    ];
    for (i, s) in seats.into_iter().enumerate() {
        requests.push((format!("seat_{i}_{}", s.name()), Request::Seat { player, request: s }));
    }
    for (i, h) in hosts.into_iter().enumerate() {
        requests.push((format!("private_host_{i}"), Request::Private { player, name: "ann".into(), ask: PrivateAsk::Host(h) }));
    }
    for (name, request) in requests {
        let envelope = json!({ "request": request, "inbox": "pokerd.inbox.n2.3e0c8f4a-1b2d-4c5e-8f9a-0b1c2d3e4f5a" });
        std::fs::write(out.join(format!("envelope-{name}.json")), serde_json::to_string_pretty(&envelope).unwrap()).unwrap();
    }
    let table: TableId = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d".parse().unwrap();
    let mut answers: Vec<(String, Answer)> = vec![
        ("done".into(), Ok(Reply::Done(serde_json::from_value(json!({"amount": 5, "pending": true})).unwrap()))),
        ("ok".into(), Ok(Reply::Ok)),
        ("subscribed".into(), Ok(Reply::Subscribed(true))),
        ("view".into(), Ok(Reply::View(json!({"hand": 3, "seats": [1, 2]})))),
        ("closed".into(), Ok(Reply::Closed(300))),
        ("to_client_ledger".into(), Ok(Reply::ToClient(Box::new(ServerMsg::Ledger { table_id: table, lines: vec![poker_protocol::LedgerLine { player_id: player, name: "ann".into(), bought_in: 400, cashed_out: 0, stack: 350, net: -50 }], rake: 3 })))),
        ("buy_in_range".into(), Ok(Reply::BuyInRange(poker_protocol::BuyInRange { min: 400, max: 400, rathole: Some(poker_protocol::RatholeNote { stack: 400, left_secs_ago: 60, window_secs: 3600 }) }))),
    ];
    for r in [
        Refusal::Seat("seat 3 is taken".into()), Refusal::Funds("not enough".into()), Refusal::NotYourTurn("not your turn".into()),
        Refusal::Stale("stale".into()), Refusal::Illegal("below the minimum".into()), Refusal::Chat("chat is off".into()),
        Refusal::Seed("late".into()), Refusal::RateLimited("slow down".into()), Refusal::SameAddress("same address".into()),
        Refusal::TableGone, Refusal::Moving, Refusal::NotHost("not the host".into()), Refusal::Private("not let in".into()),
        Refusal::Internal("try again".into()),
    ] {
        let name = serde_json::to_value(&r).unwrap();
        let name = match &name { serde_json::Value::String(s) => s.clone(), serde_json::Value::Object(o) => o.keys().next().unwrap().clone(), _ => unreachable!() };
        answers.push((format!("refusal_{name}"), Err(r)));
    }
    for (name, answer) in answers {
        std::fs::write(out.join(format!("answer-{name}.json")), serde_json::to_string_pretty(&answer).unwrap()).unwrap();
    }
}
