//! Prints an example exchange of the protocol, message by message, exactly as the
//! serializers write it (docs/protocol.md is made from this):
//! `cargo run -p poker-protocol --example exchange`.

use poker_protocol::{
    ChatLine, ClientMsg, ClockView, ErrorCode, Game, HandId, PlayerId, SeatView, ServerMsg,
    Structure, TableId, TableStatus, TableSummary, TableView,
};
use poker_rules::{Action, Card, Cards, Event, LegalActions, PotShare};

fn show(who: &str, json: String) {
    println!("{who} {json}");
}

fn main() {
    let table: TableId = "0b6f5c1e-7a52-4f7e-9a43-6a2f1d0c9e11"
        .parse()
        .expect("an id");
    let id = |s: &str| -> PlayerId { s.parse().expect("an id") };
    let client = |m: ClientMsg| show("->", serde_json::to_string(&m).expect("serializes"));
    let server = |m: ServerMsg| show("<-", serde_json::to_string(&m).expect("serializes"));
    let cards = |s: &str| Cards::from_slice(&Card::parse_many(s).expect("cards")).expect("fits");
    client(ClientMsg::Auth {
        token: "9f2c...e41a".into(),
    });
    server(ServerMsg::Welcome {
        player_id: id("5d0c8a8e-3f0b-4a7e-b0a4-1c2d3e4f5a6b"),
        name: "ann".into(),
    });
    let summary = |players| TableSummary {
        table_id: table,
        name: "NL 1/2".into(),
        game: "NL Hold'em".into(),
        game_kind: Game::Holdem,
        structure: Structure::NoLimit,
        stakes: "1/2".into(),
        players,
        seats: 6,
        min_buy_in: 40,
        max_buy_in: 200,
        avg_pot: 23,
        hands_per_hour: 85,
        status: TableStatus::Open,
        waiting: 0,
        private: false,
    };
    client(ClientMsg::ListTables);
    server(ServerMsg::Tables {
        tables: vec![summary(1)],
    });
    server(ServerMsg::TableUpdate { table: summary(2) });
    // The decks committed for hands 1 and 2 (a fixed secret here; the server draws one
    // from the operating system's generator for each).
    let committed = |id: &str| {
        let hand_id: HandId = id.parse().expect("an id");
        poker_fairness::CommittedDeck::new(
            hand_id,
            poker_rules::DeckKind::Standard,
            1,
            poker_fairness::Bytes([7; 32]),
        )
        .expect("a deck")
        .commitment()
    };
    let first = committed("3d2c1b0a-9f8e-4d7c-8b6a-5f4e3d2c1b0a");
    let second = committed("a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d");
    // Ann watched the table (its snapshot named the next deck, `first`): her seat comes
    // with her commitment to her seed for it.
    let ann_seed: poker_protocol::Seed =
        "7c1f0e9a4b3d2c5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6"
            .parse()
            .expect("64 hex digits");
    let ann_commitment = poker_protocol::seed_commitment(&first.commitment, &ann_seed);
    client(ClientMsg::Sit {
        table_id: table,
        seat: 0,
        buy_in: 150,
        post_now: true,
        seed_commit: Some(poker_protocol::SitSeed {
            hand_id: first.hand_id,
            commitment: ann_commitment,
        }),
    });
    let seat = |seat: u32, name: &str, player: &str| SeatView {
        seat,
        player_id: id(player),
        name: name.into(),
        stack: 150,
        sitting_out: false,
        pending_top_up: 0,
        leaving: false,
        straddle: false,
    };
    let view = |seats: Vec<SeatView>, button| TableView {
        table_id: table,
        name: "NL 1/2".into(),
        seat_count: 6,
        button,
        seats,
        min_buy_in: 40,
        max_buy_in: 200,
        blinds: (1, 2),
        action_ms: 30000,
        time_bank_ms: 60000,
        game: "NL Hold'em".into(),
        game_kind: Game::Holdem,
        structure: Structure::NoLimit,
        stakes: "1/2".into(),
        cap: None,
        chat: true,
        waitlist: 0,
        straddle: false,
        rabbit_hunt: false,
        private: None,
        bomb_pot: None,
        dealers_choice: None,
    };
    let ann = seat(0, "ann", "5d0c8a8e-3f0b-4a7e-b0a4-1c2d3e4f5a6b");
    let ben = seat(1, "ben", "7a1e2b3c-4d5e-4f60-8a9b-0c1d2e3f4a5b");
    server(ServerMsg::Snapshot {
        table: view(vec![ann.clone()], None),
        hand: None,
        clock: None,
        decide: None,
        chat: Vec::new(),
        next_deck: Some(Box::new(first)),
        seeds_closed: None,
    });
    server(ServerMsg::Done {
        table_id: table,
        request: "sit".into(),
        amount: 150,
        pending: false,
    });
    server(ServerMsg::Seats {
        table: view(vec![ann.clone(), ben.clone()], Some(1)),
    });
    // Two players: the table closes the list of commitments (ben's client sent none), and
    // ann reveals her seed; the hand is dealt in the order it makes.
    server(ServerMsg::SeedsClosed {
        table_id: table,
        hand_id: first.hand_id,
        list: vec![poker_protocol::SeedCommit {
            seat: 0,
            commitment: ann_commitment,
            house: false,
        }],
    });
    client(ClientMsg::Seed {
        table_id: table,
        hand_id: first.hand_id,
        seed: ann_seed,
    });
    let event = |hand: u64, e: Event| ServerMsg::Event {
        table_id: table,
        hand_number: hand,
        seats: vec![1, 0],
        event: e,
        hand_name: None,
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
    server(ServerMsg::DeckCommitted {
        table_id: table,
        commitment: second,
    });
    server(event(1, Event::RoundStarted { street: 0 }));
    server(event(
        1,
        Event::Called {
            player: 1,
            amount: 1,
            all_in: false,
        },
    ));
    let turn = |remaining_ms, in_time_bank| ServerMsg::Turn {
        table_id: table,
        hand_number: 1,
        clock: ClockView {
            seat: 0,
            remaining_ms,
            time_bank_ms: 60000,
            in_time_bank,
        },
    };
    server(ServerMsg::Decide {
        table_id: table,
        decision_id: 2,
        legal: LegalActions {
            player: 0,
            fold: true,
            check: true,
            call: None,
            bring_in: None,
            bet_or_raise: Some((4, 150)),
            cover_raise: None,
            unit: 1,
        },
    });
    server(turn(30000, false));
    server(ServerMsg::ClockWarning {
        table_id: table,
        remaining_ms: 10000,
    });
    client(ClientMsg::Act {
        table_id: table,
        decision_id: 1,
        action: Action::Check,
    });
    server(ServerMsg::error(
        ErrorCode::StaleDecision,
        "that decision is no longer asked",
    ));
    client(ClientMsg::Act {
        table_id: table,
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
    client(ClientMsg::TopUp {
        table_id: table,
        amount: 50,
    });
    server(ServerMsg::Done {
        table_id: table,
        request: "top_up".into(),
        amount: 50,
        pending: true,
    });
    server(ServerMsg::TimedOut {
        table_id: table,
        seat: 1,
        sat_out: false,
    });
    server(event(1, Event::Folded { player: 1 }));
    server(event(
        1,
        Event::UncalledReturned {
            player: 0,
            amount: 4,
        },
    ));
    server(event(
        1,
        Event::PotAwarded {
            pot: 0,
            run: 0,
            share: PotShare::All,
            amount: 4,
            winners: vec![(0, 4)],
        },
    ));
    server(event(
        1,
        Event::HandEnded {
            stacks: vec![152, 148],
        },
    ));
    server(ServerMsg::Done {
        table_id: table,
        request: "top_up".into(),
        amount: 48,
        pending: false,
    });
    client(ClientMsg::Chat {
        table_id: table,
        text: "nh".into(),
    });
    server(ServerMsg::Chat {
        table_id: table,
        line: ChatLine {
            seat: Some(0),
            player_id: id("5d0c8a8e-3f0b-4a7e-b0a4-1c2d3e4f5a6b"),
            name: "ann".into(),
            text: "nh".into(),
            at_ms: 1_764_064_800_000,
        },
    });
    client(ClientMsg::SitOut {
        table_id: table,
        next_big_blind: false,
    });
    server(ServerMsg::Done {
        table_id: table,
        request: "sit_out".into(),
        amount: 0,
        pending: false,
    });
    client(ClientMsg::Leave { table_id: table });
    server(ServerMsg::Done {
        table_id: table,
        request: "leave".into(),
        amount: 200,
        pending: false,
    });
    client(ClientMsg::Ping);
    server(ServerMsg::Pong);
    println!("-> {{not json");
    server(ServerMsg::error(
        ErrorCode::BadMessage,
        "cannot read the message: key must be a string at line 1 column 2",
    ));
    server(ServerMsg::error(
        ErrorCode::RateLimited,
        "at most 20 messages a second: slow down",
    ));
}
