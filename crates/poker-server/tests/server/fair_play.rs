//! Fair play over the real interfaces: one address, one seat per table
//! (`room.same_address_seating`: refuse, flag, allow; house bots exempt), and the
//! collusion report the floor reads, against players who collude.
//!
//! Attackers: a player with two accounts on one connection (refused, or flagged for the
//! floor), the same behind a proxy or forging the proxy's header, and colluding players
//! who soft-play each other (they top the report; honest players do not appear in it).

use crate::common;

use common::{act, assert_conserved, sit, tid, Client, Db, DbGuard, Server};
use poker_protocol::{ClientMsg, ErrorCode, ServerMsg};
use poker_rules::{Action, Card, Event, Game};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::net::IpAddr;
use std::time::Duration;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// Logs in `name` (made with 1,000 chips) and connects from `from` with `headers`.
async fn player_from(server: &Server, name: &str, from: &str, headers: &[(&str, &str)]) -> Client {
    server.player(name, 1000).await;
    let token = server.login(name).await;
    let mut c = Client::connect_from(server.addr, name, ip(from), headers).await;
    c.auth(&token).await;
    c
}

/// Asks to sit and returns the answer: `Ok(amount)` when seated, or the error's code.
async fn try_sit(c: &mut Client, table: &str, seat: u32) -> Result<u64, ErrorCode> {
    c.send(&sit(table, seat, 100)).await;
    loop {
        match c.recv().await {
            ServerMsg::Done {
                request, amount, ..
            } if request == "sit" => return Ok(amount),
            ServerMsg::Error { code, .. } => return Err(code),
            _ => {}
        }
    }
}

async fn balance(server: &Server, player: &str) -> u64 {
    server.get_json(&format!("/admin/players/{player}")).await["balance"]
        .as_u64()
        .unwrap()
}

/// The default of a real-money room: a second player from an address already seated at a
/// table is refused there (typed error, no money moved), may sit at another table, and is
/// still refused after a restart; another address is welcome.
async fn refused_in_a_real_money_room(db: Db) {
    let Some(guard) = DbGuard::new(db).await else {
        return;
    };
    // "auto" in a real-money room: refuse.
    let settings = [("POKER__ROOM__SAME_ADDRESS_SEATING", "auto")];
    let mut server = Server::start(&guard.url(), &settings).await;
    let (t1, t2) = (server.table(json!({})).await, server.table(json!({})).await);
    let mut ann = player_from(&server, "ann", "127.0.0.1", &[]).await;
    let mut ben = player_from(&server, "ben", "127.0.0.1", &[]).await;
    let mut cid = player_from(&server, "cid", "127.0.0.2", &[]).await;
    assert_eq!(try_sit(&mut ann, &t1, 0).await, Ok(100));
    // Ann's second account, Ben, on her connection's address.
    assert_eq!(try_sit(&mut ben, &t1, 1).await, Err(ErrorCode::SameAddress));
    let ben_id = ben.player_id.unwrap().to_string();
    assert_eq!(balance(&server, &ben_id).await, 1000, "nothing moved");
    // The rule is per table.
    assert_eq!(try_sit(&mut ben, &t2, 0).await, Ok(100));
    // Another address is welcome.
    assert_eq!(try_sit(&mut cid, &t1, 1).await, Ok(100));
    let seated = server.get_json(&format!("/admin/tables/{t1}")).await;
    assert_eq!(
        seated["table"]["seats"].as_array().unwrap().len(),
        2,
        "{seated}"
    );

    // After a restart the table still knows where Ann sat down from.
    server.stop().await;
    let server = Server::start(&guard.url(), &settings).await;
    let token = server.login("ben").await;
    let mut ben = Client::connect_from(server.addr, "ben", ip("127.0.0.1"), &[]).await;
    ben.auth(&token).await;
    assert_eq!(try_sit(&mut ben, &t1, 2).await, Err(ErrorCode::SameAddress));
    assert_eq!(
        balance(&server, &ben_id).await,
        900,
        "only the other table's buy-in"
    );
    assert!(server
        .get_json("/admin/fair-play/flags")
        .await
        .as_array()
        .unwrap()
        .is_empty());
    assert_conserved(&server.audit().await, 3000);
}

crate::on_both_dbs!(refused_in_a_real_money_room: a_real_money_room_refuses_a_second_player_from_one_address_at_a_table_on_sqlite, a_real_money_room_refuses_a_second_player_from_one_address_at_a_table_on_postgres);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_proxy_the_forwarded_address_decides_and_without_one_a_forged_header_is_ignored() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(
        &guard.url(),
        &[
            ("POKER__ROOM__SAME_ADDRESS_SEATING", "refuse"),
            ("POKER__SERVER__CLIENT_ADDRESS_HEADER", "x-forwarded-for"),
        ],
    )
    .await;
    let table = server.table(json!({})).await;
    let xff = |v: &'static str| [("x-forwarded-for", v)];
    // Everyone comes through the proxy (127.0.0.1); the header tells them apart.
    let mut ann = player_from(&server, "ann", "127.0.0.1", &xff("198.51.100.1")).await;
    let mut ben = player_from(&server, "ben", "127.0.0.1", &xff("198.51.100.2")).await;
    let mut cid = player_from(
        &server,
        "cid",
        "127.0.0.1",
        &xff("203.0.113.9, 198.51.100.1"),
    )
    .await;
    let mut dan = player_from(&server, "dan", "127.0.0.1", &xff("2001:db8:0:1::5")).await;
    let mut eve = player_from(&server, "eve", "127.0.0.1", &xff("2001:db8:0:1:ffff::6")).await;
    assert_eq!(try_sit(&mut ann, &table, 0).await, Ok(100));
    assert_eq!(try_sit(&mut ben, &table, 1).await, Ok(100));
    // The proxy appends the address it saw: the last entry is Ann's, whatever Cid wrote
    // before it.
    assert_eq!(
        try_sit(&mut cid, &table, 2).await,
        Err(ErrorCode::SameAddress)
    );
    assert_eq!(try_sit(&mut dan, &table, 3).await, Ok(100));
    // An IPv6 client is its /64.
    assert_eq!(
        try_sit(&mut eve, &table, 4).await,
        Err(ErrorCode::SameAddress)
    );
    server.stop().await;

    // Without a configured header, one sent by the client is nobody's word.
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(
        &guard.url(),
        &[("POKER__ROOM__SAME_ADDRESS_SEATING", "refuse")],
    )
    .await;
    let table = server.table(json!({})).await;
    let mut ann = player_from(&server, "ann", "127.0.0.1", &xff("198.51.100.1")).await;
    let mut ben = player_from(&server, "ben", "127.0.0.1", &xff("198.51.100.2")).await;
    assert_eq!(try_sit(&mut ann, &table, 0).await, Ok(100));
    assert_eq!(
        try_sit(&mut ben, &table, 1).await,
        Err(ErrorCode::SameAddress)
    );
    server.stop().await;
}

/// Plays `hands` hands with everyone calling or checking.
async fn play_calling(clients: &mut [Client], table: &str, hands: usize) {
    common::play(clients, table, hands, |_, _, legal| {
        common::simple_action(legal, false)
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flag_seats_both_and_the_floor_sees_the_pair_with_the_hands_they_played_together() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(
        &guard.url(),
        &[("POKER__ROOM__SAME_ADDRESS_SEATING", "flag")],
    )
    .await;
    // A short clock (no time bank, never sat out) moves a hand nobody plays any more; no
    // rathole rule, so a player who leaves may buy in for anything again.
    let mut rules = common::nl_rules();
    rules["rathole_secs"] = json!(0);
    let clock = json!({ "between_hands_ms": 0, "action_ms": 1000, "warning_ms": 0,
                        "time_bank_ms": 0, "max_timeouts": 0 });
    let table = server.table_with(rules, clock).await;
    let mut ann = player_from(&server, "ann", "127.0.0.1", &[]).await;
    let mut ben = player_from(&server, "ben", "127.0.0.1", &[]).await;
    let mut cid = player_from(&server, "cid", "127.0.0.3", &[]).await;
    assert_eq!(try_sit(&mut ann, &table, 0).await, Ok(100));
    assert_eq!(try_sit(&mut ben, &table, 1).await, Ok(100));
    assert_eq!(try_sit(&mut cid, &table, 2).await, Ok(100));
    let (ann_id, ben_id) = (ann.player_id.unwrap(), ben.player_id.unwrap());
    let mut clients = vec![ann, ben, cid];
    play_calling(&mut clients, &table, 3).await;

    // The clock may still be finishing a hand: the table's complete hands are read before
    // and after the flags, until they agree.
    let complete_hands = || async {
        let hands = server
            .get_json(&format!("/admin/tables/{table}/hands"))
            .await;
        hands
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["status"] == "complete")
            .map(|h| h["hand_id"].as_str().unwrap().to_string())
            .collect::<Vec<String>>()
    };
    let (flags, complete) = loop {
        let before = complete_hands().await;
        let flags = server.get_json("/admin/fair-play/flags").await;
        if complete_hands().await == before {
            break (flags, before);
        }
    };
    let flags = flags.as_array().unwrap();
    assert_eq!(flags.len(), 1, "one pair: {flags:?}");
    let f = &flags[0];
    assert_eq!(
        (
            f["player"]["player_id"].as_str().unwrap(),
            f["player"]["name"].as_str().unwrap(),
            f["other"]["player_id"].as_str().unwrap(),
            f["other"]["name"].as_str().unwrap(),
            f["table_id"].as_str().unwrap(),
            f["address"].as_str().unwrap(),
        ),
        (
            ben_id.to_string().as_str(),
            "ben",
            ann_id.to_string().as_str(),
            "ann",
            table.as_str(),
            "127.0.0.1"
        )
    );
    // The hands they played together: every complete hand of the table (both were dealt
    // into each), newest first.
    let listed: Vec<String> = f["hands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["hand_id"].as_str().unwrap().to_string())
        .collect();
    assert!(complete.len() >= 3, "{complete:?}");
    assert_eq!(listed, complete);

    // Ben leaves and sits down again, twice: the pair is not recorded again (a player
    // could otherwise write rows as fast as they can sit).
    let ben = &mut clients[1];
    for _ in 0..2 {
        ben.send(&ClientMsg::Leave {
            table_id: tid(&table),
        })
        .await;
        // (At the end of the hand in progress, which the clock finishes.)
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        loop {
            assert!(tokio::time::Instant::now() < deadline, "ben leaves");
            match ben.try_recv(Duration::from_millis(200)).await {
                Some(ServerMsg::Done {
                    request,
                    pending: false,
                    ..
                }) if request == "leave" => break,
                _ => {}
            }
        }
        assert_eq!(try_sit(ben, &table, 1).await, Ok(100));
    }
    let flags = server.get_json("/admin/fair-play/flags").await;
    assert_eq!(flags.as_array().unwrap().len(), 1, "{flags}");
    server.finish(3000).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allow_seats_players_of_one_address_and_flags_nothing() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(
        &guard.url(),
        &[("POKER__ROOM__SAME_ADDRESS_SEATING", "allow")],
    )
    .await;
    let table = server.table(json!({})).await;
    let mut ann = player_from(&server, "ann", "127.0.0.1", &[]).await;
    let mut ben = player_from(&server, "ben", "127.0.0.1", &[]).await;
    assert_eq!(try_sit(&mut ann, &table, 0).await, Ok(100));
    assert_eq!(try_sit(&mut ben, &table, 1).await, Ok(100));
    assert!(server
        .get_json("/admin/fair-play/flags")
        .await
        .as_array()
        .unwrap()
        .is_empty());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn house_bots_are_exempt_but_a_second_person_from_their_address_is_not() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(
        &guard.url(),
        &[
            ("POKER__ROOM__MONEY", "play"),
            ("POKER__ROOM__PRESETS", "false"),
            ("POKER__ROOM__SAME_ADDRESS_SEATING", "refuse"),
            ("POKER__BOTS__FILL_TO", "3"),
            ("POKER__BOTS__THINK_MS", "30"),
        ],
    )
    .await;
    let table = server.table(json!({})).await;
    // Ann plays from the server's own machine, where the bots connect from.
    let token = server.register("ann").await;
    let mut ann = Client::connect(server.addr, "ann").await;
    ann.auth(&token).await;
    assert_eq!(try_sit(&mut ann, &table, 0).await, Ok(100));
    // Two bots join her from 127.0.0.1.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let mut bots = 0;
    while bots < 2 {
        assert!(tokio::time::Instant::now() < deadline, "bots sit: {bots}");
        if let Some(ServerMsg::Seats { table: view } | ServerMsg::Snapshot { table: view, .. }) =
            ann.try_recv(Duration::from_millis(200)).await
        {
            bots = view
                .seats
                .iter()
                .filter(|s| s.name.ends_with("(bot)"))
                .count();
        }
    }
    // A person is no bot.
    let token = server.register("ben").await;
    let mut ben = Client::connect(server.addr, "ben").await;
    ben.auth(&token).await;
    assert_eq!(
        try_sit(&mut ben, &table, 5).await,
        Err(ErrorCode::SameAddress)
    );
    server.stop().await;
}

/// The cards each colluder holds, shared between them as colluders share theirs (a call,
/// a chat on the side): each knows both hands and the board.
#[derive(Default)]
struct Shared {
    /// By hand number: each seat's cards.
    cards: HashMap<(u64, u32), Vec<Card>>,
    board: HashMap<u64, Vec<Card>>,
}

impl Shared {
    /// Follows one message of the colluder at `seat`.
    fn follow(&mut self, msg: &ServerMsg, seat: u32) {
        let (hand, seats, event) = match msg {
            ServerMsg::Event {
                hand_number,
                seats,
                event,
                ..
            } => (*hand_number, seats, event),
            _ => return,
        };
        let mine = |p: &usize| seats.get(*p) == Some(&seat);
        match event {
            Event::HoleDealt { player, cards, .. } if mine(player) => self
                .cards
                .entry((hand, seat))
                .or_default()
                .extend(cards.iter().copied().filter(|c| c.is_known())),
            Event::Discarded { player, cards } if mine(player) => self
                .cards
                .entry((hand, seat))
                .or_default()
                .retain(|c| !cards.contains(c)),
            Event::BoardDealt { cards } => {
                let board = self.board.entry(hand).or_default();
                for c in cards.iter() {
                    if !board.contains(c) {
                        board.push(*c);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Who bet last in the round each player faces, per client: from the events it sees.
#[derive(Default, Clone)]
struct LastBet {
    hand: u64,
    seat: Option<u32>,
}

impl LastBet {
    fn follow(&mut self, msg: &ServerMsg) {
        if let ServerMsg::Event {
            hand_number,
            seats,
            event,
            ..
        } = msg
        {
            if *hand_number != self.hand {
                self.hand = *hand_number;
                self.seat = None;
            }
            match event {
                Event::RoundStarted { .. } => self.seat = None,
                Event::BetTo { player, .. } => self.seat = seats.get(*player).copied(),
                _ => {}
            }
        }
    }
}

/// Colluders and honest players at one table, one connection each, from four addresses
/// (the rule allows them: the report is about play, not addresses). Seats: 0 Ann and 1 Ben
/// collude (each folds to the other's bet whenever ahead, and otherwise bets); 2 Cid and
/// 3 Dan call or check and never fold.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn colluders_who_soft_play_each_other_top_the_report_and_honest_players_do_not_appear() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    let table = server
        .table(json!({ "between_hands_ms": 0, "action_ms": 60000 }))
        .await;
    let names = ["ann", "ben", "cid", "dan"];
    let mut clients = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let mut c = player_from(&server, name, &format!("127.0.0.{}", i + 1), &[]).await;
        assert_eq!(try_sit(&mut c, &table, i as u32).await, Ok(100));
        clients.push(c);
    }
    let ids: Vec<String> = clients
        .iter()
        .map(|c| c.player_id.unwrap().to_string())
        .collect();
    let mut shared = Shared::default();
    let mut last = vec![LastBet::default(); 4];
    let mut hands_ended = 0;
    let mut topping_up = [false; 4];
    // Soft folds by hand number.
    let mut soft: HashMap<u64, u64> = HashMap::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(240);
    while soft.values().sum::<u64>() < 6 || hands_ended < 30 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{hands_ended} hands, soft folds {soft:?}"
        );
        for i in 0..4 {
            let Some(msg) = clients[i].try_recv(Duration::from_millis(2)).await else {
                continue;
            };
            last[i].follow(&msg);
            if i < 2 {
                shared.follow(&msg, i as u32);
            }
            match msg {
                ServerMsg::Event {
                    event: Event::HandEnded { .. },
                    ..
                } if i == 0 => hands_ended += 1,
                ServerMsg::Seats { table: view } => {
                    // Top up whoever ran low, so the game goes on.
                    let me = clients[i].player_id;
                    let low = view.seats.iter().any(|s| {
                        Some(&s.player_id) == me.as_ref() && s.stack < 20 && s.pending_top_up == 0
                    });
                    if low && !topping_up[i] {
                        topping_up[i] = true;
                        clients[i]
                            .send(&ClientMsg::TopUp {
                                table_id: tid(&table),
                                amount: 100,
                            })
                            .await;
                    }
                }
                ServerMsg::Decide {
                    decision_id, legal, ..
                } => {
                    let hand = last[i].hand;
                    let call_or_check = if legal.call.is_some() {
                        Action::Call
                    } else {
                        Action::Check
                    };
                    let action = if i < 2 {
                        let partner = 1 - i as u32;
                        let mine = shared.cards.get(&(hand, i as u32));
                        let theirs = shared.cards.get(&(hand, partner));
                        let board = shared.board.get(&hand).cloned().unwrap_or_default();
                        let ahead = match (mine, theirs) {
                            (Some(m), Some(t)) => {
                                poker_rules::eval::ahead(Game::Holdem, m, t, &board)
                                    == Some(std::cmp::Ordering::Greater)
                            }
                            _ => false,
                        };
                        let partner_bet = last[i].seat == Some(partner);
                        if legal.call.is_some() && partner_bet && ahead {
                            *soft.entry(hand).or_default() += 1;
                            Action::Fold
                        } else if partner_bet {
                            call_or_check
                        } else if let Some((min, _)) = legal.bet_or_raise {
                            // Colluders bet to squeeze the others, and so that their
                            // partner can fold to them.
                            Action::BetOrRaiseTo { to: min }
                        } else {
                            call_or_check
                        }
                    } else {
                        call_or_check
                    };
                    clients[i].send(&act(&table, decision_id, action)).await;
                }
                ServerMsg::DecideShow { decision_id, .. } => {
                    clients[i]
                        .send(&act(&table, decision_id, Action::Muck))
                        .await;
                }
                ServerMsg::Done {
                    request,
                    pending: false,
                    ..
                } if request == "top_up" => topping_up[i] = false,
                // A top-up asked on a stack that has grown since the view was sent.
                ServerMsg::Error {
                    code: ErrorCode::SeatRefused,
                    ..
                } if topping_up[i] => topping_up[i] = false,
                ServerMsg::Error { code, message } => {
                    panic!("{}: {code:?}: {message}", names[i])
                }
                _ => {}
            }
        }
    }
    // Nobody acts any more: the hand in progress stays uncommitted, out of the report.
    // The committed ones are the table's complete hands.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let table_hands = server
        .get_json(&format!("/admin/tables/{table}/hands?limit=500"))
        .await;
    let complete: Vec<u64> = table_hands
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["status"] == "complete")
        .map(|h| h["number"].as_u64().unwrap())
        .collect();
    let soft_committed: u64 = complete.iter().filter_map(|n| soft.get(n)).sum();
    assert!(soft_committed >= 5, "{soft:?}");
    let report = server.get_json("/admin/fair-play/pairs").await;
    let pairs = report["pairs"].as_array().unwrap();
    let top = &pairs[0];
    let pair_of = |row: &Value| {
        let mut p = [
            row["a"]["player_id"].as_str().unwrap().to_string(),
            row["b"]["player_id"].as_str().unwrap().to_string(),
        ];
        p.sort();
        p
    };
    let mut colluders = [ids[0].clone(), ids[1].clone()];
    colluders.sort();
    assert_eq!(
        pair_of(top),
        colluders,
        "the colluders top the report: {report}"
    );
    assert_eq!(
        top["folds_ahead"].as_u64().unwrap(),
        soft_committed,
        "every soft fold, and nothing else: {top}"
    );
    for row in &pairs[1..] {
        assert_eq!(
            row["folds_ahead"], 0,
            "honest pairs fold to nobody ahead: {row}"
        );
    }
    assert_eq!(pairs.len(), 6, "every pair of the four played together");
    assert_eq!(report["pairs_total"], 6);
    assert_eq!(report["hands"].as_u64().unwrap(), complete.len() as u64);
    let hands = top["hands"].as_u64().unwrap();

    // Sorted by hands or by net chips, the rows are in that order.
    for sort in ["hands", "net", "fold_ahead_rate"] {
        let sorted = server
            .get_json(&format!("/admin/fair-play/pairs?sort={sort}"))
            .await;
        let key = if sort == "hands" {
            "hands"
        } else {
            "net_chips"
        };
        let rows = sorted["pairs"].as_array().unwrap();
        if sort == "fold_ahead_rate" {
            assert_eq!(pair_of(&rows[0]), colluders);
            continue;
        }
        assert!(rows
            .windows(2)
            .all(|w| w[0][key].as_i64() >= w[1][key].as_i64()));
    }
    // The row opens their hands: each with its figures for the pair.
    let pair_hands = server
        .get_json(&format!(
            "/admin/fair-play/pairs/{}/{}/hands?limit=500",
            ids[0], ids[1]
        ))
        .await;
    let pair_hands = pair_hands.as_array().unwrap();
    assert_eq!(pair_hands.len() as u64, hands);
    let folds_ahead: u64 = pair_hands
        .iter()
        .map(|h| {
            h["a_folds_to_b"]["ahead"].as_u64().unwrap()
                + h["b_folds_to_a"]["ahead"].as_u64().unwrap()
        })
        .sum();
    assert_eq!(folds_ahead, soft_committed);

    // What the house works out about folded hands is the floor's only: a player's own
    // history of a hand (every form) says nothing of it.
    let token = server.login("cid").await;
    let hand = pair_hands[0]["hand_id"].as_str().unwrap();
    for format in ["pokerstars", "phh", "replay"] {
        let path = format!("/api/me/hands/{hand}?format={format}");
        let text = server.get_as(&token, &path).await.text;
        assert!(!text.is_empty());
        assert!(
            !text.contains("ahead") && !text.contains("\"folds\""),
            "{format}: {text}"
        );
    }
    server.finish(4000).await;
}
