//! Prints an example exchange of the protocol, message by message, exactly as the
//! serializers write it (docs/protocol.md is made from this):
//! `cargo run -p poker-protocol --example exchange`.

use poker_protocol::{ClientMsg, ErrorCode, ServerMsg, TableSummary};
use poker_rules::{Action, Card, Cards, Event, LegalActions};

fn show(who: &str, json: String) {
    println!("{who} {json}");
}

fn main() {
    let table = "0b6f5c1e-7a52-4f7e-9a43-6a2f1d0c9e11".to_string();
    let client = |m: ClientMsg| show("->", serde_json::to_string(&m).expect("serializes"));
    let server = |m: ServerMsg| show("<-", serde_json::to_string(&m).expect("serializes"));
    let cards = |s: &str| Cards::from_slice(&Card::parse_many(s).expect("cards")).expect("fits");
    client(ClientMsg::Auth {
        token: "9f2c...e41a".into(),
    });
    server(ServerMsg::Welcome {
        player_id: "5d0c8a8e-3f0b-4a7e-b0a4-1c2d3e4f5a6b".into(),
        name: "ann".into(),
    });
    client(ClientMsg::ListTables);
    server(ServerMsg::Tables {
        tables: vec![TableSummary {
            table_id: table.clone(),
            name: "NL 1/2".into(),
            game: "holdem".into(),
            stakes: "1/2".into(),
            players: 1,
            seats: 6,
            min_buy_in: 40,
            max_buy_in: 200,
            avg_pot: 23,
            hands_per_hour: 85,
            status: "open".into(),
        }],
    });
    client(ClientMsg::Sit {
        table_id: table.clone(),
        seat: 0,
        buy_in: 150,
        post_now: true,
    });
    let event = |hand: u64, e: Event| ServerMsg::Event {
        table_id: table.clone(),
        hand_number: hand,
        seats: vec![1, 0],
        event: e,
    };
    server(event(
        1,
        Event::BlindPosted {
            player: 0,
            amount: 2,
        },
    ));
    server(event(
        1,
        Event::BlindPosted {
            player: 1,
            amount: 1,
        },
    ));
    server(event(
        1,
        Event::HoleDealt {
            player: 0,
            cards: cards("AsKd"),
            up: 0,
        },
    ));
    server(event(
        1,
        Event::HoleDealt {
            player: 1,
            cards: cards("????"),
            up: 0,
        },
    ));
    server(event(1, Event::RoundStarted { street: 0 }));
    server(event(
        1,
        Event::Called {
            player: 1,
            amount: 1,
            all_in: false,
        },
    ));
    server(ServerMsg::Decide {
        table_id: table.clone(),
        decision_id: 2,
        legal: LegalActions {
            player: 0,
            fold: true,
            check: true,
            call: None,
            bring_in: None,
            bet_or_raise: Some((4, 150)),
            unit: 1,
        },
    });
    client(ClientMsg::Act {
        table_id: table.clone(),
        decision_id: 1,
        action: Action::Check,
    });
    server(ServerMsg::error(
        ErrorCode::StaleDecision,
        "that decision is no longer asked",
    ));
    client(ClientMsg::Act {
        table_id: table.clone(),
        decision_id: 2,
        action: Action::BetOrRaiseTo { to: 6 },
    });
    server(event(
        1,
        Event::BetTo {
            player: 0,
            to: 6,
            amount: 4,
            all_in: false,
            full: true,
        },
    ));
    client(ClientMsg::Ping);
    server(ServerMsg::Pong);
    println!("-> {{not json");
    server(ServerMsg::error(
        ErrorCode::BadMessage,
        "cannot read the message: key must be a string at line 1 column 2",
    ));
}
