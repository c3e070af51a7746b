//! A player's own record over real HTTP against the real server on port 0, after hands
//! played over real WebSockets: their stats by range (`/api/me/stats`), their history
//! download by range (`/api/me/hands?format=phh|pokerstars|ohh&from=&to=`) with their own
//! hole cards and only those the other player showed, and their private notes on other
//! players (`/api/me/notes`).

use crate::common;

use common::{assert_conserved, play, Db, DbGuard, Server};
use poker_rules::Action;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// A GET with a player's session: status, headers' content disposition, body.
async fn get(server: &Server, path: &str, token: &str) -> (u16, String, String) {
    let a = server.get_as(token, path).await;
    (a.status, a.disposition, a.text)
}

/// A POST of a note with a player's session (or none): status and JSON answer.
async fn put_note(server: &Server, subject: &str, note: &str, token: Option<&str>) -> (u16, Value) {
    let how = common::Req {
        token,
        body: Some(json!({ "note": note })),
        ..Default::default()
    };
    let path = format!("/api/me/notes/{subject}");
    let a = server.send("POST", &path, how).await;
    (a.status, a.body)
}

/// The cards a PHH deal action gives (`d dh p2 AhKd` → `["Ah", "Kd"]`).
fn dealt(action: &str) -> Vec<String> {
    let cards = action.rsplit(' ').next().unwrap_or_default();
    cards
        .as_bytes()
        .chunks(2)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stats_and_history_downloads_cover_a_range_with_only_what_the_player_saw() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    let ann_id = server.player("ann", 1000).await;
    let ben_id = server.player("ben", 1000).await;
    let cy_id = server.player("cy", 0).await;
    let clock = json!({ "action_ms": 30000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    let table_id = server.table(clock).await;
    let mut clients = vec![server.client("ann").await, server.client("ben").await];
    for (seat, c) in clients.iter_mut().enumerate() {
        c.sat(&table_id, seat as u32, 200).await;
    }
    // In even hands Ann raises when she can and Ben folds to any bet (his cards are
    // never shown there); in odd hands both check or call to a showdown, where the
    // loser may muck.
    let hands = 12;
    play(&mut clients, &table_id, hands, |i, n, legal| {
        if let (0, 0, Some((min, _))) = (n % 2, i, legal.bet_or_raise) {
            Action::BetOrRaiseTo { to: min }
        } else if n % 2 == 0 && i == 1 && legal.call.is_some() {
            Action::Fold
        } else if legal.call.is_some() {
            Action::Call
        } else {
            Action::Check
        }
    })
    .await;
    let ann = server.login("ann").await;
    let ben = server.login("ben").await;
    // Hands are committed a moment after they end.
    let deadline = Instant::now() + Duration::from_secs(20);
    let list: Vec<Value> = loop {
        let (status, _, body) = get(&server, "/api/me/hands?limit=100", &ann).await;
        assert_eq!(status, 200, "{body}");
        let list: Vec<Value> = serde_json::from_str(&body).unwrap();
        if list.len() >= hands {
            break list;
        }
        assert!(
            Instant::now() < deadline,
            "only {} hands stored",
            list.len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let mut started: Vec<i64> = list
        .iter()
        .map(|h| h["started_at"].as_i64().unwrap())
        .collect();
    started.sort_unstable();

    // Stats over the whole history: the list's nets, and big blinds of 2 each.
    let (status, _, body) = get(&server, "/api/me/stats", &ann).await;
    assert_eq!(status, 200, "{body}");
    let stats: Value = serde_json::from_str(&body).unwrap();
    let net: i64 = list.iter().map(|h| h["net"].as_i64().unwrap()).sum();
    let won = list
        .iter()
        .filter(|h| h["net"].as_i64().unwrap() > 0)
        .count();
    assert_eq!(stats["hands"], json!(list.len()));
    assert_eq!(stats["net"], json!(net));
    assert_eq!(stats["hands_won"], json!(won));
    let per_100 = (net as f64 / 2.0 * 100.0 / list.len() as f64 * 100.0).round() / 100.0;
    assert_eq!(stats["bb_per_100"].as_f64().unwrap(), per_100);
    // Ann's and Ben's nets cancel out (no rake at this table), and match their chips.
    let (_, _, body) = get(&server, "/api/me/stats", &ben).await;
    let ben_stats: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(ben_stats["net"].as_i64().unwrap(), -net);
    let audit = server.audit().await;
    assert_eq!(audit.rake, 0);
    assert_conserved(&audit, 2000);

    // A range: from the fifth hand's start to before the ninth's.
    let (from, to) = (started[4], started[8]);
    let in_range: Vec<&Value> = list
        .iter()
        .filter(|h| (from..to).contains(&h["started_at"].as_i64().unwrap()))
        .collect();
    assert!(!in_range.is_empty());
    let (status, _, body) = get(&server, &format!("/api/me/stats?from={from}&to={to}"), &ann).await;
    assert_eq!(status, 200, "{body}");
    let ranged: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(ranged["hands"], json!(in_range.len()));
    assert_eq!(
        ranged["net"],
        json!(in_range
            .iter()
            .map(|h| h["net"].as_i64().unwrap())
            .sum::<i64>())
    );
    assert_eq!(
        (ranged["from"].as_i64(), ranged["to"].as_i64()),
        (Some(from), Some(to))
    );
    // An empty range (or one that ends before it starts) has no bb/100; bad values are
    // refused.
    for empty in ["from=1&to=2", &format!("from={to}&to={from}")] {
        let (_, _, body) = get(&server, &format!("/api/me/stats?{empty}"), &ann).await;
        let empty: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            (empty["hands"].as_u64(), empty["bb_per_100"].clone()),
            (Some(0), Value::Null)
        );
    }
    for bad in ["from=-1", "from=x", "to=-5"] {
        let (status, _, body) = get(&server, &format!("/api/me/stats?{bad}"), &ann).await;
        assert_eq!(status, 400, "{bad}: {body}");
    }
    let r = reqwest::get(format!("{}/api/me/stats", server.base))
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);

    // The range's hands as one PHH file (.phhs): each hand as ann saw it, which replays.
    let (status, disposition, phhs) = get(
        &server,
        &format!("/api/me/hands?format=phh&from={from}&to={to}"),
        &ann,
    )
    .await;
    assert_eq!(status, 200, "{phhs}");
    assert!(
        disposition.starts_with("attachment;") && disposition.ends_with(".phhs\""),
        "{disposition}"
    );
    let mine = poker_history::phh::PhhHand::parse_many(&phhs).unwrap();
    assert_eq!(mine.len(), in_range.len());
    // And in PokerStars text.
    let (status, disposition, stars) = get(
        &server,
        &format!("/api/me/hands?format=pokerstars&from={from}&to={to}"),
        &ann,
    )
    .await;
    assert_eq!(status, 200, "{stars}");
    assert!(disposition.ends_with(".txt\""), "{disposition}");
    let sections: Vec<&str> = stars
        .split("PokerStars Hand #")
        .filter(|s| !s.trim().is_empty())
        .collect();
    assert_eq!(sections.len(), in_range.len());
    // And as Open Hand History: one object per hand, a blank line between, ann the hero.
    let (status, disposition, ohh) = get(
        &server,
        &format!("/api/me/hands?format=ohh&from={from}&to={to}"),
        &ann,
    )
    .await;
    assert_eq!(status, 200, "{ohh}");
    assert!(disposition.ends_with(".ohh\""), "{disposition}");
    let docs: Vec<Value> = ohh
        .split("\n\n")
        .filter(|s| !s.trim().is_empty())
        .map(|s| serde_json::from_str(s).unwrap())
        .collect();
    assert_eq!(docs.len(), in_range.len());

    // Hand by hand, against the operator's full history: ann's cards are there, Ben's
    // only when he showed them.
    let mut unshown = 0;
    for (k, hand) in in_range.iter().rev().enumerate() {
        let id = hand["hand_id"].as_str().unwrap();
        let (_, full) = server.get(&format!("/admin/hands/{id}?format=phh")).await;
        let full = poker_history::phh::PhhHand::parse(&full).unwrap();
        let record = server.get_json(&format!("/admin/hands/{id}")).await;
        let players = record["record"]["seat_players"].as_array().unwrap();
        let a = players.iter().position(|p| *p == json!(ann_id)).unwrap() + 1;
        let b = players.iter().position(|p| *p == json!(ben_id)).unwrap() + 1;
        let (name, seen) = mine
            .iter()
            .find(|(name, _)| name.ends_with(&format!("#{}", hand["number"])))
            .unwrap();
        let seen = seen.as_ref().unwrap_or_else(|e| panic!("{name}: {e}"));
        poker_history::phh::replay(seen).expect("the hand as ann saw it replays");
        let bens: Vec<String> = full
            .actions
            .iter()
            .filter(|x| x.starts_with(&format!("d dh p{b} ")))
            .flat_map(|x| dealt(x))
            .collect();
        let ben_showed = full
            .actions
            .iter()
            .any(|x| x.starts_with(&format!("p{b} sm ")));
        for (theirs, ours) in full.actions.iter().zip(&seen.actions) {
            if theirs.starts_with(&format!("d dh p{b} ")) {
                assert!(ours.ends_with("????"), "ben's cards dealt: {ours}");
            } else if theirs.starts_with(&format!("d dh p{a} ")) {
                assert_eq!(theirs, ours, "ann's own cards");
            } else {
                assert_eq!(theirs, ours);
            }
        }
        // The OHH document of this hand (oldest first too), the same as the hand's own
        // answer: ann's cards dealt, ben's only if shown, the pots paying what they hold.
        let doc = &docs[k]["ohh"];
        let (status, _, single) =
            get(&server, &format!("/api/me/hands/{id}?format=ohh"), &ann).await;
        assert_eq!(status, 200, "{single}");
        assert_eq!(serde_json::from_str::<Value>(&single).unwrap()["ohh"], *doc);
        let hero = doc["hero_player_id"].as_u64().unwrap();
        assert_eq!(hero as usize, a - 1, "ann is the hero");
        let actions: Vec<&Value> = doc["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r["actions"].as_array().unwrap())
            .collect();
        for action in &actions {
            if action["action"] == "Dealt Cards" {
                assert_eq!(
                    action["cards"].is_array(),
                    action["player_id"] == hero,
                    "{action}"
                );
            }
        }
        let text = doc.to_string();
        let ben_cards_written = bens.iter().any(|c| text.contains(&format!("\"{c}\"")));
        if !ben_showed {
            assert!(!ben_cards_written, "ben's unshown cards in the OHH: {text}");
        }
        for pot in doc["pots"].as_array().unwrap() {
            let wins: u64 = pot["player_wins"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| w["win_amount"].as_u64().unwrap())
                .sum();
            assert_eq!(
                wins + pot["rake"].as_u64().unwrap(),
                pot["amount"].as_u64().unwrap(),
                "{pot}"
            );
        }
        // The operator's exports of the hand: with `viewer=ann`, exactly what ann's own
        // download holds, in OHH, PHH and the replayer's record; without a viewer, the
        // house's OHH, flagged `Observed` with no hero, holds every player's cards.
        let (status, admin_ohh) = server
            .get(&format!("/admin/hands/{id}?format=ohh&viewer={ann_id}"))
            .await;
        assert_eq!(status, 200, "{admin_ohh}");
        assert_eq!(
            serde_json::from_str::<Value>(&admin_ohh).unwrap()["ohh"],
            *doc
        );
        for format in ["phh", "replay"] {
            let (_, _, own) = get(
                &server,
                &format!("/api/me/hands/{id}?format={format}"),
                &ann,
            )
            .await;
            let (status, admin) = server
                .get(&format!(
                    "/admin/hands/{id}?format={format}&viewer={ann_id}"
                ))
                .await;
            assert_eq!(status, 200, "{admin}");
            assert_eq!(admin, own, "the operator's {format} for ann is hers");
        }
        let house = server
            .get_json(&format!("/admin/hands/{id}?format=ohh"))
            .await;
        let house = &house["ohh"];
        assert!(house["hero_player_id"].is_null(), "{house}");
        assert_eq!(house["flags"], json!(["Observed"]));
        let house_text = house.to_string();
        for c in &bens {
            assert!(
                house_text.contains(&format!("\"{c}\"")),
                "the house sees {c}: {house_text}"
            );
        }
        // The PokerStars text of this hand (oldest first in the file).
        let section = sections[k];
        assert!(section.contains("Dealt to ann ["), "{section}");
        assert!(!section.contains("Dealt to ben"), "{section}");
        let pair = bens.join(" ");
        if ben_showed {
            assert!(section.contains(&pair), "ben showed {pair}: {section}");
        } else {
            unshown += 1;
            assert!(
                !section.contains(&pair),
                "ben's unshown {pair} leaked: {section}"
            );
            assert!(
                !seen.actions.iter().any(|x| x.contains(&bens.concat())),
                "ben's unshown cards in the PHH"
            );
        }
    }
    assert!(
        unshown > 0,
        "a hand of the range where ben's cards stayed hidden"
    );
    // The operator's OHH page of ann's hands with `viewer=ann` holds the range's
    // documents as her own download does; a viewer who is not a player is refused.
    let (status, page) = server
        .get(&format!(
            "/admin/players/{ann_id}/hands?format=ohh&viewer={ann_id}&limit=100"
        ))
        .await;
    assert_eq!(status, 200, "{page}");
    let page: Vec<Value> = page
        .split("\n\n")
        .filter(|s| !s.trim().is_empty())
        .map(|s| serde_json::from_str(s).unwrap())
        .collect();
    assert_eq!(page.len(), list.len());
    for doc in &docs {
        assert!(
            page.contains(doc),
            "the operator's page for ann lacks {doc}"
        );
    }
    let (status, _) = server
        .get(&format!(
            "/admin/players/{ann_id}/hands?format=ohh&viewer=nobody"
        ))
        .await;
    assert_eq!(status, 400);
    // cy was dealt into no hand: no format of one gives the hand as cy's.
    let id = in_range[0]["hand_id"].as_str().unwrap();
    for format in ["pokerstars", "phh", "ohh", "replay"] {
        let (status, body) = server
            .get(&format!("/admin/hands/{id}?format={format}&viewer={cy_id}"))
            .await;
        assert_eq!(status, 404, "{format} for cy: {body}");
    }
    // The JSON list of the range: its newest hands first.
    let (status, _, body) = get(
        &server,
        &format!("/api/me/hands?from={from}&to={to}&limit=2"),
        &ann,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let newest: Vec<Value> = serde_json::from_str(&body).unwrap();
    assert_eq!(newest.len(), 2.min(in_range.len()));
    assert_eq!(newest[0]["hand_id"], in_range[0]["hand_id"]);
    // Another player's download holds their own hands; a bad format is refused.
    let (status, _, bens_file) = get(&server, "/api/me/hands?format=pokerstars", &ben).await;
    assert_eq!(status, 200);
    assert_eq!(bens_file.matches("Dealt to ben [").count(), list.len());
    assert!(!bens_file.contains("Dealt to ann"));
    let cy = server.login("cy").await;
    let (status, _, nothing) = get(&server, "/api/me/hands?format=phh", &cy).await;
    assert_eq!((status, nothing.as_str()), (200, ""));
    for bad in [
        "format=xml",
        "format=phh&from=-9",
        "limit=0",
        "format=phh&limit=101",
    ] {
        let (status, _, body) = get(&server, &format!("/api/me/hands?{bad}"), &ann).await;
        assert_eq!(status, 400, "{bad}: {body}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notes_on_other_players_are_private_to_their_owner() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    let ann_id = server.player("ann", 0).await;
    let ben_id = server.player("ben", 0).await;
    let ann = server.login("ann").await;
    let ben = server.login("ben").await;
    let (status, body) = put_note(&server, &ben_id, "  calls 3-bets light  ", Some(&ann)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["note"], "calls 3-bets light");
    let (_, _, body) = get(&server, "/api/me/notes", &ann).await;
    let notes: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(notes.as_array().unwrap().len(), 1);
    assert_eq!(notes[0]["player_id"], json!(ben_id));
    assert_eq!(notes[0]["note"], "calls 3-bets light");
    // Ben sees none of it.
    let (_, _, body) = get(&server, "/api/me/notes", &ben).await;
    assert_eq!(body, "[]");
    // Refused: a note on oneself, with a control character, on nobody, too long,
    // without a session.
    let (status, _) = put_note(&server, &ann_id, "me", Some(&ann)).await;
    assert_eq!(status, 404, "a note on oneself: no such other player");
    let (status, _) = put_note(&server, &ben_id, "bell\u{7}", Some(&ann)).await;
    assert_eq!(status, 400);
    let (status, _) = put_note(
        &server,
        &poker_protocol::PlayerId::new().to_string(),
        "x",
        Some(&ann),
    )
    .await;
    assert_eq!(status, 404);
    let (status, _) = put_note(&server, "not-an-id", "x", Some(&ann)).await;
    assert_eq!(status, 404);
    let (status, _) = put_note(&server, &ben_id, &"x".repeat(1001), Some(&ann)).await;
    assert_eq!(status, 400);
    let (status, _) = put_note(&server, &ben_id, "x", None).await;
    assert_eq!(status, 401);
    // An empty note deletes it.
    let (status, _) = put_note(&server, &ben_id, "", Some(&ann)).await;
    assert_eq!(status, 200);
    let (_, _, body) = get(&server, "/api/me/notes", &ann).await;
    assert_eq!(body, "[]");
    server.stop().await;
}

/// Issue 38 item 4: the rake page reads `table_day` (a row per table and day, kept by
/// each commit); its three forms (per table and day, per day, per table) agree with each
/// other, with the hands played and with the audit's rake.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rake_report_per_table_and_day_per_day_and_per_table_agrees_with_the_audit() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    server.player("ann", 1000).await;
    server.player("ben", 1000).await;
    let clock = json!({ "action_ms": 30000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    let mut rules = common::nl_rules();
    rules["options"] = json!({ "rake": { "basis_points": 500, "cap": 100 } });
    let table_id = server.table_with(rules, clock).await;
    let mut clients = vec![server.client("ann").await, server.client("ben").await];
    for (seat, c) in clients.iter_mut().enumerate() {
        c.sat(&table_id, seat as u32, 200).await;
    }
    // Ann bets five times the least she may whenever nobody has bet, Ben calls, to a
    // showdown: every pot is large enough to be raked.
    let hands = 6;
    play(&mut clients, &table_id, hands, |i, _, legal| {
        if let (0, None, Some((min, max))) = (i, legal.call, legal.bet_or_raise) {
            Action::BetOrRaiseTo {
                to: (min * 5).min(max),
            }
        } else if legal.call.is_some() {
            Action::Call
        } else {
            Action::Check
        }
    })
    .await;
    // Hands are committed a moment after they end.
    let deadline = Instant::now() + Duration::from_secs(20);
    let (by_table_and_day, by_day, by_table) = loop {
        let mut forms = Vec::new();
        for by in ["", "&by=day", "&by=table"] {
            forms.push(server.get_json(&format!("/admin/rake?days=2{by}")).await);
        }
        let played: u64 = forms[0]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["hands"].as_u64().unwrap())
            .sum();
        if played >= hands as u64 || Instant::now() > deadline {
            break (forms[0].clone(), forms[1].clone(), forms[2].clone());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let audit = server.audit().await;
    assert!(audit.rake > 0, "{audit:?}");
    for form in [&by_table_and_day, &by_day, &by_table] {
        assert_eq!(form["total"], json!(audit.rake), "{form}");
        let rows = form["rows"].as_array().unwrap();
        let rake: u64 = rows.iter().map(|r| r["rake"].as_u64().unwrap()).sum();
        let dealt: u64 = rows.iter().map(|r| r["hands"].as_u64().unwrap()).sum();
        assert_eq!((rake as i64, dealt), (audit.rake, hands as u64), "{form}");
    }
    let today = &by_table_and_day["rows"][0];
    assert_eq!(by_day["rows"][0]["day"], today["day"], "{by_day}");
    assert!(by_day["rows"][0].get("table_id").is_none(), "{by_day}");
    assert_eq!(
        by_table["rows"][0]["table_id"],
        json!(table_id),
        "{by_table}"
    );
    assert_eq!(
        by_table["rows"][0]["table_name"], today["table_name"],
        "{by_table}"
    );
    for bad in ["/admin/rake?days=2&by=week", "/admin/rake?days=2&bogus=1"] {
        let (status, refused) = server.get(bad).await;
        assert_eq!(status, 400, "{bad}: {refused}");
    }
    assert_conserved(&audit, 2000);
    server.stop().await;
}
