//! Every hold'em hand the server exports as PokerStars text, read by an independent
//! reader: pokerdf 1.8.0 (PyPI), the one parser there that reads PokerStars text.
//!
//! The real server on port 0 runs no-limit (with antes, so that forced bets put players
//! all in), pot-limit and fixed-limit hold'em with bots that play random legal actions
//! over the WebSocket, shoving now and then. Every finished hand is then exported through
//! the admin API in the house's view and in each of its players' views
//! (`?viewer=PLAYER_ID`), each text is read by pokerdf, and every field pokerdf reads
//! must be what the engine says: the seats, stacks, posts and positions, every action
//! with its amount (a raise by its increment over the bet to call, worked out by
//! replaying the history up to the raise and asking the engine for its bet to call), the
//! all-ins of each street, the board, the cards revealed, each player's result and
//! winnings, uncalled bets returned, the pot, its side pots and the rake.
//!
//! pokerdf reads only tournament hands, from its owner's own files: the test turns each
//! header into a tournament's (`Tournament #1, 0+0 ... - Level I (1/2)`, table `'1 1'`)
//! and compares those fields to what it wrote there. The house's view has no owner (no
//! `Dealt to`), which pokerdf cannot read at all: the test names an owner who is not at
//! the table (`Dealt to house [-- --]`) and does not compare the owner's fields there.
//!
//! Without Python or PyPI the test is skipped, unless `CI` is set: then it fails.

use crate::common;

use common::{random_bot, Db, DbGuard, Server};
use poker_history::phh::{replay, PhhHand};
use poker_history::pokerstars::describe;
use poker_rules::{Action, Card, CardSource, Chips, Event, Hand};
use serde_json::{json, Value};
use std::collections::BTreeMap;

const POKERDF: &str = "pokerdf==1.8.0";
/// Hands played at each table.
const HANDS: usize = 30;

/// Reads each file given with pokerdf and prints its rows (one per player) by file.
const READ: &str = r#"
import json, sys, math
from datetime import timezone
from pokerdf.core.read_and_convert import apply_regex
import pandas as pd
def plain(v):
    if v is None or v is pd.NaT:
        return None
    if hasattr(v, "to_pydatetime"):
        return int(v.to_pydatetime().replace(tzinfo=timezone.utc).timestamp())
    if isinstance(v, float):
        return None if math.isnan(v) else v
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if hasattr(v, "item"):
        return plain(v.item())
    return v if isinstance(v, (int, str, bool)) else str(v)
out = {}
for path in sys.argv[1:]:
    try:
        with open(path) as f:
            df = apply_regex(f.read())
        out[path] = [{k: plain(v) for k, v in row.items()} for row in df.to_dict("records")]
    except Exception as e:
        out[path] = {"error": type(e).__name__ + ": " + str(e)}
print(json.dumps(out))
"#;

/// The text as pokerdf reads it: a tournament's header and table line, and for the
/// house's view an owner who is not at the table.
fn as_tournament(text: &str, house: bool) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    // `PokerStars Hand #N:  Hold'em No Limit (1/2) - DATE ET`
    let (head, date) = lines[0].rsplit_once(" - ").expect("a dated header");
    let (hand, game) = head.split_once(":  ").expect("a hand number");
    let (game, stakes) = game.rsplit_once(" (").expect("stakes");
    lines[0] = format!("{hand}: Tournament #1, 0+0 {game} - Level I ({stakes} - {date}");
    let (_, rest) = lines[1].rsplit_once("' ").expect("a table line");
    lines[1] = format!("Table '1 1' {rest}");
    if house {
        let at = lines
            .iter()
            .position(|l| l == "*** HOLE CARDS ***")
            .unwrap();
        lines.insert(at + 1, "Dealt to house [-- --]".into());
    }
    lines.join("\n") + "\n"
}

/// What every player's row must say, from the engine.
struct Truth {
    fields: BTreeMap<String, Value>,
}

/// The fields pokerdf reads for one player of one hand, as the engine has them.
#[allow(clippy::too_many_arguments)]
fn truth(
    phh: &PhhHand,
    record: &Value,
    names: &[String],
    player: usize,
    viewer: Option<usize>,
    structure: &str,
) -> Truth {
    let played = replay(phh).expect("the history replays");
    let config = played.hand.config().clone();
    let events = &played.events;
    let n = names.len();
    let mut f: BTreeMap<String, Value> = BTreeMap::new();
    let seats: Vec<u64> = record["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap() + 1)
        .collect();
    let button = record["button"].as_u64().unwrap() + 1;
    let big = config.big_blind();
    let (small_stake, big_stake) = if structure == "fixed_limit" {
        (config.stakes.small_bet, config.stakes.big_bet)
    } else {
        let small = config
            .seats
            .iter()
            .filter(|s| s.kind == poker_rules::BlindKind::Blind && s.blind > 0 && s.blind < big)
            .map(|s| s.blind)
            .min()
            .unwrap_or(big / 2);
        (small, big)
    };
    let modality = match structure {
        "no_limit" => "Hold'em No Limit",
        "pot_limit" => "Hold'em Pot Limit",
        _ => "Hold'em Limit",
    };
    f.insert("Modality".into(), json!(modality));
    f.insert(
        "Blinds".into(),
        json!([small_stake as f64, big_stake as f64]),
    );
    f.insert("Player".into(), json!(names[player]));
    f.insert("Seat".into(), json!(seats[player]));
    f.insert("Playing".into(), json!(n));
    f.insert("Stack".into(), json!(config.seats[player].stack as f64));
    // Forced bets.
    // A returning player's dead small blind goes in with the antes; the table's posts
    // tell it apart.
    let dead_small = |p: usize| -> Chips {
        record["posts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|post| {
                post["seat"].as_u64() == Some(seats[p] - 1)
                    && post["kind"] == "missed_small"
                    && post["live"] == false
            })
            .filter_map(|post| post["amount"].as_u64())
            .sum()
    };
    let antes: Vec<Chips> = (0..n)
        .map(|p| {
            let posted: Chips = events
                .iter()
                .filter_map(|e| match e {
                    Event::AntePosted { player: q, amount } if *q == p => Some(*amount),
                    _ => None,
                })
                .sum();
            posted - dead_small(p).min(posted)
        })
        .collect();
    let blind: Option<Chips> = events.iter().find_map(|e| match e {
        Event::BlindPosted { player: q, amount } if *q == player => Some(*amount),
        _ => None,
    });
    let any_ante = antes.iter().any(|&a| a > 0);
    f.insert(
        "Ante".into(),
        json!(any_ante.then(|| *antes.iter().max().unwrap() as f64)),
    );
    f.insert(
        "PostedAnte".into(),
        json!((antes[player] > 0).then(|| antes[player] as f64)),
    );
    // pokerdf reads `posts small blind` and `posts big blind`, not PokerStars' `posts
    // small & big blinds 3` for a returning player's dead small and live big blinds: that
    // field is left out for them (and counted).
    if dead_small(player) == 0 {
        f.insert("PostedBlind".into(), json!(blind.map(|b| b as f64)));
    }
    let forced = antes[player] + dead_small(player) + blind.unwrap_or(0);
    f.insert(
        "AnteAllIn".into(),
        json!(any_ante && forced > 0 && forced >= config.seats[player].stack),
    );
    // The seat's position: the button first, then a blind seat's blind.
    let seat_blind = config.seats[player].blind;
    let position = if seats[player] == button {
        Some("button")
    } else if config.seats[player].kind == poker_rules::BlindKind::Blind && seat_blind > 0 {
        Some(if seat_blind < big {
            "small blind"
        } else {
            "big blind"
        })
    } else {
        None
    };
    f.insert("Position".into(), json!(position));
    // Actions by street, with the engine's bet to call before each bet or raise.
    let mut streets: Vec<Vec<(String, String)>> = vec![Vec::new(); 4];
    let mut all_in = [false; 4];
    let mut street = 0usize;
    let to_call = bets_to_call(phh);
    let mut raises = phh
        .actions
        .iter()
        .enumerate()
        .filter(|(_, a)| a.split_whitespace().nth(1) == Some("cbr"))
        .map(|(k, _)| k);
    for e in events {
        match e {
            Event::RoundStarted { street: s } => street = *s,
            Event::Folded { player: q } if *q == player => {
                streets[street].push(("folds".into(), String::new()))
            }
            Event::Checked { player: q } if *q == player => {
                streets[street].push(("checks".into(), String::new()))
            }
            Event::Called {
                player: q,
                amount,
                all_in: a,
            } if *q == player => {
                streets[street].push(("calls".into(), amount.to_string()));
                all_in[street] |= *a;
            }
            Event::BetTo {
                player: q,
                to,
                all_in: a,
                ..
            } => {
                let at = raises.next().expect("a cbr for each bet");
                if *q != player {
                    continue;
                }
                let to_call = to_call[&at];
                streets[street].push(if to_call == 0 {
                    ("bets".into(), to.to_string())
                } else {
                    ("raises".into(), (to - to_call).to_string())
                });
                all_in[street] |= *a;
            }
            _ => {}
        }
    }
    let board: Vec<Card> = events
        .iter()
        .flat_map(|e| match e {
            Event::BoardDealt { cards } => cards.to_vec(),
            _ => Vec::new(),
        })
        .collect();
    let stage_names = ["PreflopAction", "FlopAction", "TurnAction", "RiverAction"];
    let all_in_names = ["PreflopAllIn", "FlopAllIn", "TurnAllIn", "RiverAllIn"];
    let reached = [true, board.len() >= 3, board.len() >= 4, board.len() >= 5];
    for s in 0..4 {
        let acts = if streets[s].is_empty() || !reached[s] {
            vec![(String::new(), String::new())]
        } else {
            streets[s].clone()
        };
        f.insert(stage_names[s].into(), json!(acts));
        f.insert(all_in_names[s].into(), json!(reached[s] && all_in[s]));
    }
    let strs = |c: &[Card]| c.iter().map(|c| c.to_string()).collect::<Vec<_>>();
    for (name, k) in [("BoardFlop", 3), ("BoardTurn", 4), ("BoardRiver", 5)] {
        let v = if board.len() >= k {
            strs(&board[..k])
        } else {
            Vec::new()
        };
        f.insert(name.into(), json!(v));
    }
    // The showdown and the pots.
    let shown: Option<Vec<Card>> = events.iter().find_map(|e| match e {
        Event::Shown { player: q, cards } if *q == player => Some(cards.to_vec()),
        _ => None,
    });
    let mucked = events
        .iter()
        .any(|e| matches!(e, Event::Mucked { player: q } if *q == player));
    let folded = events
        .iter()
        .any(|e| matches!(e, Event::Folded { player: q } if *q == player));
    let hole = hole_of(events, player);
    let won: Chips = events
        .iter()
        .flat_map(|e| match e {
            Event::PotAwarded { winners, .. } => winners.to_vec(),
            _ => Vec::new(),
        })
        .filter(|(w, _)| *w == player)
        .map(|(_, part)| part)
        .sum();
    let knows = viewer.is_none_or(|v| v == player);
    let revealed = match (&shown, mucked && knows && !folded) {
        (Some(c), _) => json!([c[0].to_string(), c[1].to_string()]),
        (None, true) => json!([hole[0].to_string(), hole[1].to_string()]),
        _ => json!([null, null]),
    };
    f.insert("RevealedCards".into(), revealed);
    f.insert(
        "CardCombination".into(),
        json!(shown
            .as_ref()
            .and_then(|c| describe::describe(config.game, c, &board))),
    );
    let result = if folded {
        "folded"
    } else if shown.is_some() && won > 0 {
        "won at showdown"
    } else if shown.is_some() {
        "lost at showdown"
    } else if mucked {
        "mucked at showdown"
    } else if won > 0 {
        "won without showdown"
    } else {
        "lost at showdown"
    };
    f.insert("Result".into(), json!(result));
    f.insert("Balance".into(), json!((won > 0).then_some(won as f64)));
    let returned: Chips = events
        .iter()
        .filter_map(|e| match e {
            Event::UncalledReturned { player: q, amount } if *q == player => Some(*amount),
            _ => None,
        })
        .sum();
    f.insert(
        "UncalledReturned".into(),
        json!((returned > 0).then_some(returned as f64)),
    );
    let mut pots: BTreeMap<usize, Chips> = BTreeMap::new();
    let mut rake: Chips = 0;
    for e in events {
        match e {
            Event::PotAwarded { pot, amount, .. } => *pots.entry(*pot).or_default() += amount,
            Event::Raked { amount } => rake += amount,
            _ => {}
        }
    }
    let total = pots.values().sum::<Chips>() + rake;
    f.insert("TotalPotLog".into(), json!(total as f64));
    f.insert("Rake".into(), json!(rake as f64));
    let breakdown: Vec<f64> = if pots.len() > 1 {
        pots.values().map(|&v| v as f64).collect()
    } else {
        vec![total as f64]
    };
    f.insert("PotBreakdown".into(), json!(breakdown));
    // The owner: the viewer (the house's view has the stand-in the test added).
    match viewer {
        Some(v) => {
            let mine = hole_of(events, v);
            f.insert("Owner".into(), json!(names[v]));
            f.insert("OwnersHand".into(), json!(strs(&mine)));
        }
        None => {
            f.insert("Owner".into(), json!("house"));
            f.insert("OwnersHand".into(), json!(["--", "--"]));
        }
    }
    // What the tournament header says, and what a cash game has none of.
    for (k, v) in [
        ("TableSize", json!(6)),
        ("BuyIn", json!("0+0")),
        ("TournID", json!("1")),
        ("TableID", json!("1")),
        ("Level", json!("I")),
        ("HandStartTimeLocal", Value::Null),
        ("HandTimezone", Value::Null),
        ("Bounty", Value::Null),
        ("BountyWon", Value::Null),
        ("FinalRank", json!(-1)),
        ("Prize", Value::Null),
    ] {
        f.insert(k.into(), v);
    }
    Truth { fields: f }
}

/// The engine's bet to call before each bet or raise of a hold'em history (by action
/// index): the history is played through the engine one notation at a time.
/// The cards dealt to `player` in the hand, in order.
fn hole_of(events: &[Event], player: usize) -> Vec<Card> {
    let dealt = events.iter().flat_map(|e| match e {
        Event::HoleDealt {
            player: q, cards, ..
        } if *q == player => cards.to_vec(),
        _ => Vec::new(),
    });
    dealt.collect()
}

fn bets_to_call(phh: &PhhHand) -> BTreeMap<usize, Chips> {
    let (mut hand, _) = Hand::new(phh.config(1), CardSource::Manual).expect("a valid hand");
    let mut out = BTreeMap::new();
    for (at, text) in phh.actions.iter().enumerate() {
        let words: Vec<&str> = text.split_whitespace().collect();
        let cards = |k: usize| Card::parse_many(words[k]).expect("cards");
        let who = |w: &str| w[1..].parse::<usize>().expect("a player") - 1;
        match words.as_slice() {
            ["d", "dh", p, _] => {
                hand.deal(Some(who(p)), &cards(3)).expect("dealt");
            }
            ["d", "db", _] => {
                hand.deal(None, &cards(2)).expect("dealt");
            }
            [p, "f"] => {
                hand.apply(who(p), Action::Fold).expect("a fold");
            }
            [p, "cc"] => {
                // The one player left with chips "checks" in PHH where the rules deal on.
                if hand.to_act() != Some(who(p)) {
                    continue;
                }
                let call = hand.legal_actions().is_some_and(|l| l.call.is_some());
                let action = if call { Action::Call } else { Action::Check };
                hand.apply(who(p), action).expect("a call or check");
            }
            [p, "cbr", to] => {
                out.insert(at, hand.current_bet());
                let to: Chips = to.parse().expect("an amount");
                hand.apply(who(p), Action::BetOrRaiseTo { to })
                    .expect("a bet or raise");
            }
            _ => break,
        }
    }
    out
}

/// JSON values equal as pokerdf and the engine write them (numbers as numbers).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        _ => a == b,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pokerdf_reads_every_field_of_every_holdem_hand_as_the_engine_played_it() {
    let Some(venv) = common::python::python_venv(
        "pokerdf",
        POKERDF,
        "pokerdf.core.read_and_convert",
        "the pokerdf reading of exported hands",
    ) else {
        return;
    };
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    let clock = json!({ "action_ms": 20000, "warning_ms": 5000, "time_bank_ms": 0,
                        "max_timeouts": 3, "between_hands_ms": 0 });
    let mut nl = common::games::base("holdem", "no_limit", json!({ "min_bet": 2 }), 6);
    nl["ante"] = json!({ "kind": "each", "amount": 1 });
    nl["min_buy_in"] = json!(4);
    let pl = common::games::base("holdem", "pot_limit", json!({ "min_bet": 2 }), 6);
    let mut fl = common::games::base(
        "holdem",
        "fixed_limit",
        json!({ "small_bet": 2, "big_bet": 4 }),
        6,
    );
    fl["max_raises"] = json!(3);
    // Short stacks at the antes table, so that forced bets put players all in.
    let buy_in = |name: &str, seat: usize| {
        if name == "NL" && seat.is_multiple_of(2) {
            4
        } else {
            60
        }
    };
    let seating = random_bot::Seating {
        prefix: "d",
        deposit: 5000,
        top_up: 60,
        buy_in: &buy_in,
    };
    let all = vec![("NL", nl, 5), ("PL", pl, 4), ("FL", fl, 3)];
    let tables = random_bot::play_tables(&server, all, &clock, seating, HANDS).await;

    // Every hand in every view, with what each row must say.
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<String> = Vec::new();
    let mut expected: BTreeMap<String, (String, Vec<Truth>)> = BTreeMap::new();
    let mut hands = 0;
    let mut posts_all_in = 0;
    let mut side_pots = 0;
    for (name, rules, table) in &tables {
        let list = server
            .get_json(&format!("/admin/tables/{table}/hands?limit=500"))
            .await;
        for hand in list.as_array().unwrap() {
            if hand["status"] != "complete" {
                continue;
            }
            hands += 1;
            let id = hand["hand_id"].as_str().unwrap();
            let (status, phh_text) = server.get(&format!("/admin/hands/{id}?format=phh")).await;
            assert_eq!(status, 200, "{phh_text}");
            let phh = PhhHand::parse(&phh_text).unwrap();
            let row = server.get_json(&format!("/admin/hands/{id}")).await;
            let record = &row["record"];
            let ids: Vec<String> = record["seat_players"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap().to_string())
                .collect();
            let mut views: Vec<Option<usize>> = vec![None];
            views.extend((0..ids.len()).map(Some));
            for viewer in views {
                let query = match viewer {
                    None => String::new(),
                    Some(v) => format!("&viewer={}", ids[v]),
                };
                let (status, stars) = server
                    .get(&format!("/admin/hands/{id}?format=pokerstars{query}"))
                    .await;
                assert_eq!(status, 200, "{name}: {stars}");
                if viewer.is_none() {
                    assert!(
                        !stars.contains("Dealt to"),
                        "the house has no hero:\n{stars}"
                    );
                    posts_all_in += usize::from(
                        stars
                            .lines()
                            .any(|l| l.contains(": posts ") && l.ends_with("and is all-in")),
                    );
                    side_pots += usize::from(stars.contains("Side pot"));
                }
                // The names as the seat lines have them, in hand order.
                let by_seat: BTreeMap<u64, String> = stars
                    .lines()
                    .filter_map(|l| l.strip_prefix("Seat "))
                    .map(str::trim_end)
                    .filter(|l| l.ends_with(" in chips)"))
                    .filter_map(|l| {
                        let (seat, rest) = l.split_once(": ")?;
                        let (who, _) = rest.rsplit_once(" (")?;
                        Some((seat.parse().ok()?, who.to_string()))
                    })
                    .collect();
                let names: Vec<String> = record["seats"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| by_seat[&(s.as_u64().unwrap() + 1)].clone())
                    .collect();
                let truths: Vec<Truth> = (0..names.len())
                    .map(|p| {
                        let mut t = truth(
                            &phh,
                            record,
                            &names,
                            p,
                            viewer,
                            rules["structure"].as_str().unwrap(),
                        );
                        t.fields.insert(
                            "HandID".into(),
                            json!(stars
                                .strip_prefix("PokerStars Hand #")
                                .and_then(|s| s.split(':').next())
                                .unwrap()),
                        );
                        t.fields.insert(
                            "HandStartTimeCET".into(),
                            json!(row["started_at"].as_i64().unwrap() / 1000 + 3600),
                        );
                        t
                    })
                    .collect();
                let path = dir
                    .path()
                    .join(format!("HH-{id}-{}.txt", viewer.map_or(99, |v| v)));
                std::fs::write(&path, as_tournament(&stars, viewer.is_none())).unwrap();
                let path = path.to_string_lossy().into_owned();
                files.push(path.clone());
                expected.insert(path, (name.to_string(), truths));
            }
        }
    }
    assert!(hands >= 3 * HANDS, "{hands} hands");

    let mut failures = Vec::new();
    let mut compared = 0usize;
    let mut both_blinds = 0usize;
    for chunk in files.chunks(200) {
        let out = std::process::Command::new(venv.join("bin/python"))
            .args(["-c", READ])
            .args(chunk)
            .output()
            .expect("python runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let read: Value = serde_json::from_slice(&out.stdout).expect("JSON from pokerdf");
        for path in chunk {
            let (name, truths) = &expected[path];
            let text = std::fs::read_to_string(path).unwrap();
            let Some(rows) = read[path].as_array() else {
                failures.push(format!(
                    "{name}: pokerdf refused it: {}\n{text}",
                    read[path]
                ));
                continue;
            };
            if rows.len() != truths.len() {
                failures.push(format!(
                    "{name}: {} rows for {} players\n{text}",
                    rows.len(),
                    truths.len()
                ));
                continue;
            }
            // pokerdf's rows are in seat order, the truths in hand order.
            for row in rows {
                let Some(truth) = truths.iter().find(|t| t.fields["Player"] == row["Player"])
                else {
                    failures.push(format!(
                        "{name}: pokerdf read a player {}\n{text}",
                        row["Player"]
                    ));
                    continue;
                };
                both_blinds += usize::from(!truth.fields.contains_key("PostedBlind"));
                for (field, want) in &truth.fields {
                    compared += 1;
                    let got = &row[field.as_str()];
                    if !same(got, want) {
                        failures.push(format!(
                            "{name}: {field} of {}: pokerdf {got}, the engine {want}\n{text}",
                            truth.fields["Player"]
                        ));
                    }
                }
            }
        }
    }
    println!(
        "pokerdf: {hands} hands, {} texts (the house's view and each player's), {compared} fields compared, {} disagreements; {posts_all_in} hands with a forced bet all in, {side_pots} with side pots; {both_blinds} rows of `posts small & big blinds` (PostedBlind not read by pokerdf)",
        files.len(),
        failures.len()
    );
    for f in failures.iter().take(5) {
        println!("---\n{f}");
    }
    assert!(failures.is_empty(), "{} fields disagree", failures.len());
    server.stop().await;
}
