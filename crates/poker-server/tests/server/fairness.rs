//! A deck anyone can verify (docs/fairness.md), through the real server: players seed
//! every deck they are shown over the WebSocket, and every hand of every game family
//! (flop, stud, 2-7 triple draw with six players, which reshuffles) is checked from what
//! each player downloads, by the library, by `pokerd verify` and by the independent
//! Python verifier. Attackers: a player fishing for others' cards in the proofs (the raw
//! bytes sent to them hold no salt of a card they did not see), a server that drops or
//! changes a seed, a card, a salt, a proof, the permutation or a reshuffle (both
//! verifiers refuse the record), a player sending seeds late, twice, or without a seat.

use crate::common;

use common::{assert_conserved, games, sit, Client, Db, DbGuard, MyCards, Server};
use futures_util::StreamExt;
use poker_fairness::{HandProof, Record, Seed};
use poker_protocol::{ClientMsg, ErrorCode, HandId, ServerMsg};
use poker_rules::{Action, Cards, Event};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Whether python3 runs here; outside CI a machine without it skips the Python checks.
fn python() -> bool {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok || std::env::var_os("CI").is_none(),
        "CI must run the Python verifier"
    );
    ok
}

/// Runs a verifier on a record file: (exit code, what it said).
fn run(verifier: &str, file: &Path, seed: Option<&Seed>) -> (i32, String) {
    let mut cmd = if verifier == "pokerd" {
        let mut c = Command::new(env!("CARGO_BIN_EXE_pokerd"));
        c.arg("verify");
        c
    } else {
        let mut c = Command::new("python3");
        c.arg(repo().join("docs/fairness/verify.py"));
        c
    };
    cmd.arg(file);
    if let Some(s) = seed {
        cmd.args(["--seed", &s.to_string()]);
    }
    let out = cmd.output().expect("the verifier runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), said)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pokerd-fairness-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temp dir");
    dir
}

/// Both command-line verifiers accept the record (`pokerd verify` and, where python3
/// runs, verify.py), checking the player's seed when given.
fn both_accept(dir: &Path, name: &str, record: &Value, seed: Option<&Seed>) {
    let file = dir.join(format!("{name}.json"));
    std::fs::write(&file, record.to_string()).unwrap();
    let (code, said) = run("pokerd", &file, seed);
    assert_eq!(code, 0, "pokerd verify {name}: {said}");
    assert!(said.contains("verified"), "{said}");
    if python() {
        let (code, said) = run("python", &file, seed);
        assert_eq!(code, 0, "verify.py {name}: {said}");
    }
}

/// Both command-line verifiers refuse the record, saying so.
fn both_refuse(dir: &Path, name: &str, record: &Value) {
    let file = dir.join(format!("{name}.json"));
    std::fs::write(&file, record.to_string()).unwrap();
    let (code, said) = run("pokerd", &file, None);
    assert_eq!(code, 1, "pokerd verify accepted {name}: {said}");
    assert!(said.contains("FAILED"), "{name}: {said}");
    if python() {
        let (code, said) = run("python", &file, None);
        assert_eq!(code, 1, "verify.py accepted {name}: {said}");
        assert!(said.contains("FAILED"), "{name}: {said}");
    }
}

/// Every way of tampering with a record that a verifier must catch: a card, a salt, a
/// proof's path, a seed changed or dropped, the permutation (a card's position or
/// place), the root, a proof left out, and a reshuffle's list when there is one.
fn tampered(record: &Value) -> Vec<(&'static str, Value)> {
    let mut out = Vec::new();
    let mut t = |name, f: &dyn Fn(&mut Value)| {
        let mut r = record.clone();
        f(&mut r);
        out.push((name, r));
    };
    t("a card", &|r| {
        let c = &mut r["fairness"]["cards"][0]["card"];
        *c = json!(if c == "2c" { "3c" } else { "2c" });
    });
    t("a salt", &|r| {
        let s = r["fairness"]["cards"][0]["salt"]
            .as_str()
            .unwrap()
            .to_string();
        let flipped = if s.starts_with('0') { "1" } else { "0" };
        r["fairness"]["cards"][0]["salt"] = json!(format!("{flipped}{}", &s[1..]));
    });
    t("a proof's path", &|r| {
        r["fairness"]["cards"][0]["path"][0] = json!("00".repeat(32));
    });
    t("a seed changed", &|r| {
        r["fairness"]["seeds"][0]["seed"] = json!("ab".repeat(32));
    });
    t("a seed dropped", &|r| {
        r["fairness"]["seeds"].as_array_mut().unwrap().remove(0);
    });
    t("the permutation: a position", &|r| {
        let p = &mut r["fairness"]["cards"][0]["position"];
        *p = json!((p.as_u64().unwrap() + 1) % 52);
    });
    t("the permutation: a place", &|r| {
        let cards = r["fairness"]["cards"].as_array_mut().unwrap();
        let last = cards.last().unwrap()["place"].as_u64().unwrap();
        let mut moved = cards.remove(0);
        moved["place"] = json!(last + 1);
        cards.push(moved);
    });
    t("the root", &|r| {
        r["fairness"]["root"] = json!("11".repeat(32));
    });
    t("a proof left out", &|r| {
        r["fairness"]["cards"].as_array_mut().unwrap().pop();
    });
    if record["fairness"]["reshuffles"]
        .as_array()
        .is_some_and(|l| !l.is_empty())
    {
        t("a reshuffle left out", &|r| {
            r["fairness"]["reshuffles"].as_array_mut().unwrap().pop();
        });
        t("a reshuffle's list", &|r| {
            let list = r["fairness"]["reshuffles"][0].as_array_mut().unwrap();
            list.pop();
        });
    }
    out
}

#[test]
fn a_tampered_card_salt_proof_seed_list_or_permutation_is_caught_by_both_verifiers() {
    let vectors: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("docs/fairness/vectors.json")).unwrap(),
    )
    .unwrap();
    let dir = scratch("tampered");
    if python() {
        let out = Command::new("python3")
            .arg(repo().join("docs/fairness/verify.py"))
            .arg("--vectors")
            .arg(repo().join("docs/fairness/vectors.json"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "verify.py recomputes every published vector: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for (i, record) in vectors["records"].as_array().unwrap().iter().enumerate() {
        both_accept(&dir, &format!("vector-{i}"), record, None);
        for (name, bad) in tampered(record) {
            both_refuse(
                &dir,
                &format!("vector-{i}-{}", name.replace(' ', "-")),
                &bad,
            );
        }
    }
}

/// One WebSocket frame as sent, and what it says.
async fn recv_raw(c: &mut Client, wait: Duration) -> Option<(String, ServerMsg)> {
    loop {
        match tokio::time::timeout(wait, c.ws.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => {
                let msg: ServerMsg = serde_json::from_str(&t).expect("a server message");
                return Some((t.to_string(), msg));
            }
            Ok(Some(Ok(_))) => continue,
            _ => return None,
        }
    }
}

/// A player at one table who seeds every deck shown to them (unless `silent`) and plays
/// simply: calls, checks, draws three, agrees to run twice, shows.
struct Seeder {
    client: Client,
    table: String,
    seat: u32,
    silent: bool,
    /// Every raw frame received.
    frames: Vec<String>,
    /// The seed sent for each hand.
    seeds: HashMap<HandId, Seed>,
    /// Hands whose seed the server refused as late.
    late: HashSet<HandId>,
    /// Each hand's proofs received live, by hand id.
    proofs: HashMap<HandId, HandProof>,
    cards: MyCards,
    topping_up: bool,
    ended: usize,
    closed: bool,
}

impl Seeder {
    async fn seed(&mut self, hand_id: HandId) {
        if self.silent || self.seeds.contains_key(&hand_id) {
            return;
        }
        let seed = Seed::from_bytes(rand::random());
        self.seeds.insert(hand_id, seed);
        let msg = ClientMsg::Seed {
            table_id: common::tid(&self.table),
            hand_id,
            seed,
        };
        self.client.send(&msg).await;
    }

    async fn step(&mut self) -> bool {
        let Some((raw, msg)) = recv_raw(&mut self.client, Duration::from_millis(5)).await else {
            return false;
        };
        self.frames.push(raw);
        self.cards.follow(&msg, Some(self.seat));
        let table_id = common::tid(&self.table);
        let act = |decision_id, action| ClientMsg::Act {
            table_id,
            decision_id,
            action,
        };
        match msg {
            ServerMsg::Snapshot {
                next_deck: Some(c), ..
            } => self.seed(c.hand_id).await,
            ServerMsg::DeckCommitted { commitment, .. } => self.seed(commitment.hand_id).await,
            ServerMsg::DeckProof { proof, .. } => {
                self.proofs.insert(proof.hand_id, *proof);
            }
            ServerMsg::Decide {
                decision_id, legal, ..
            } => {
                let action = if legal.call.is_some() {
                    Action::Call
                } else if legal.check {
                    Action::Check
                } else {
                    Action::BringIn
                };
                self.client.send(&act(decision_id, action)).await;
            }
            ServerMsg::DecideDraw { decision_id, .. } => {
                let discards =
                    Cards::from_slice(&self.cards.cards[..self.cards.cards.len().min(3)]).unwrap();
                self.client
                    .send(&act(decision_id, Action::Draw { discards }))
                    .await;
            }
            ServerMsg::DecideRunTwice { decision_id, .. } => {
                self.client
                    .send(&act(decision_id, Action::RunItTwice { agree: true }))
                    .await;
            }
            ServerMsg::DecideShow { decision_id, .. } => {
                self.client
                    .send(&act(decision_id, Action::Show { cards: None }))
                    .await;
            }
            ServerMsg::Seats { table } => {
                let me = self.client.player_id;
                let busted = table.seats.iter().any(|s| {
                    Some(&s.player_id) == me.as_ref() && s.stack == 0 && s.pending_top_up == 0
                });
                if busted && !self.topping_up {
                    self.topping_up = true;
                    let msg = ClientMsg::TopUp {
                        table_id,
                        amount: 100,
                    };
                    self.client.send(&msg).await;
                }
            }
            ServerMsg::Done { request, .. } if request == "top_up" => self.topping_up = false,
            ServerMsg::TableClosed { .. } => self.closed = true,
            ServerMsg::Event {
                event: Event::HandEnded { .. },
                ..
            } => self.ended += 1,
            ServerMsg::Error {
                code: ErrorCode::SeedRefused,
                message,
            } => {
                // A seed that came after its hand was dealt: the message names the hand.
                let id = self
                    .seeds
                    .keys()
                    .find(|h| message.contains(&h.to_string()))
                    .copied()
                    .unwrap_or_else(|| panic!("{}: a seed refused: {message}", self.client.name));
                self.late.insert(id);
            }
            ServerMsg::Error { code, message } => {
                panic!("{}: unexpected error {code:?}: {message}", self.client.name)
            }
            _ => {}
        }
        true
    }
}

/// A player's text export.
async fn get_text(server: &Server, path: &str, token: &str) -> (u16, String) {
    let r = reqwest::Client::new()
        .get(format!("{}{path}", server.base))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

/// The salts of every card of a hand's committed deck, from the operator's record.
async fn all_salts(server: &Server, hand: HandId) -> Vec<String> {
    let row = server.get_json(&format!("/admin/hands/{hand}")).await;
    let salts = row["record"]["deck"]["salts"]
        .as_str()
        .expect("the deck's salts");
    (0..salts.len() / 32)
        .map(|i| salts[i * 32..i * 32 + 32].to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_game_family_deals_hands_each_player_verifies_and_learns_nothing_unseen() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let server = Server::start(&guard.url(), &[]).await;
    let clock = json!({ "action_ms": 30000, "warning_ms": 0, "time_bank_ms": 0,
                        "max_timeouts": 0, "between_hands_ms": 0 });
    let draw = games::base(
        "deuce_to_seven_triple_draw",
        "fixed_limit",
        json!({ "small_bet": 2, "big_bet": 4 }),
        6,
    );
    let families = [
        (
            "holdem",
            games::base("holdem", "no_limit", json!({ "min_bet": 2 }), 6),
            4,
        ),
        ("stud", games::stud("stud", 7), 4),
        ("triple draw", draw, 6),
    ];
    let mut seeders: Vec<Seeder> = Vec::new();
    let mut deposited = 0;
    for (f, (family, rules, players)) in families.iter().enumerate() {
        let table = server.table_with(rules.clone(), clock.clone()).await;
        for seat in 0..*players {
            let name = format!("p{f}{seat}");
            server.player(&name, 1000).await;
            deposited += 1000;
            let mut client = server.client(&name).await;
            client.send(&sit(&table, seat as u32, 200)).await;
            seeders.push(Seeder {
                client,
                table: table.clone(),
                seat: seat as u32,
                // At the flop table one player never seeds: no hand waits for them.
                silent: *family == "holdem" && seat == 3,
                frames: Vec::new(),
                seeds: HashMap::new(),
                late: HashSet::new(),
                proofs: HashMap::new(),
                cards: MyCards::default(),
                topping_up: false,
                ended: 0,
                closed: false,
            });
        }
    }
    // Play until every table has six hands and the draw table has reshuffled.
    let first_of = |family: usize| families[..family].iter().map(|f| f.2).sum::<usize>();
    let reshuffled = |s: &[Seeder]| {
        s[first_of(2)]
            .proofs
            .values()
            .any(|p| !p.reshuffles.is_empty())
    };
    let mut idle = 0;
    loop {
        let done = (0..3).all(|f| seeders[first_of(f)].ended >= 6) && reshuffled(&seeders);
        if done {
            break;
        }
        assert!(
            seeders[first_of(2)].ended < 60,
            "sixty hands of triple draw and no reshuffle"
        );
        let mut any = false;
        for s in seeders.iter_mut() {
            any |= s.step().await;
        }
        idle = if any { 0 } else { idle + 1 };
        assert!(idle < 2000, "the tables stalled");
    }
    // The tables close: the hands in progress end (their proofs come before the close).
    let tables: HashSet<String> = seeders.iter().map(|s| s.table.clone()).collect();
    let base = server.base.clone();
    let closing = tokio::spawn(async move {
        for t in tables {
            reqwest::Client::new()
                .post(format!("{base}/admin/tables/{t}/close"))
                .bearer_auth(common::TOKEN)
                .send()
                .await
                .unwrap();
        }
    });
    while seeders.iter().any(|s| !s.closed) {
        for s in seeders.iter_mut() {
            s.step().await;
        }
    }
    closing.await.unwrap();

    let dir = scratch("hands");
    let mut checked = 0;
    let mut counted = 0;
    let mut reshuffles = 0;
    for s in &seeders {
        let token = server.login(&s.client.name).await;
        let (_, hands) = server
            .call("GET", "/api/me/hands?limit=100", Some(&token), None)
            .await;
        for h in hands.as_array().unwrap() {
            let id: HandId = h["hand_id"].as_str().unwrap().parse().unwrap();
            let path = format!("/api/me/hands/{id}?format=replay");
            let (status, record) = server.call("GET", &path, Some(&token), None).await;
            assert_eq!(status, 200, "{record}");
            let parsed: Record = serde_json::from_value(record.clone()).unwrap();
            let seat = parsed.seats[parsed.me.unwrap()];
            assert_eq!(seat, s.seat);
            let f = &parsed.fairness;
            // The seeds by seat: this player's is counted unless it came late, and no
            // other is listed for their seat.
            let listed = f.seeds.iter().find(|x| u32::from(x.seat) == seat);
            let mine = s.seeds.get(&id).filter(|_| !s.late.contains(&id));
            assert_eq!(
                listed.map(|x| x.seed),
                mine.copied(),
                "{}: hand {id}",
                s.client.name
            );
            if s.silent {
                assert!(listed.is_none());
            }
            counted += usize::from(mine.is_some());
            reshuffles += f.reshuffles.len();
            // The library, `pokerd verify` and verify.py all accept it, seed included.
            poker_fairness::verify(&parsed, mine).unwrap_or_else(|e| panic!("hand {id}: {e}"));
            both_accept(&dir, &format!("{}-{id}", s.client.name), &record, mine);
            // What came live at the hand's end is what the export carries.
            let live = s
                .proofs
                .get(&id)
                .expect("the proofs came at the hand's end");
            assert_eq!(
                live, f,
                "{}: live and exported proofs of {id}",
                s.client.name
            );
            // The PHH export carries the same proofs as user-defined fields.
            let (status, phh) =
                get_text(&server, &format!("/api/me/hands/{id}?format=phh"), &token).await;
            assert_eq!(status, 200);
            let table: toml::Table = phh.parse().unwrap();
            assert_eq!(poker_fairness::phh::read(&table).as_ref(), Some(f));
            // Secrecy: no salt of a card this player did not see was ever sent to them,
            // live or in their exports; every card proved is one their record shows.
            let seen: HashSet<String> = f.cards.iter().map(|c| c.salt.to_string()).collect();
            let exported = format!("{record}{phh}");
            for salt in all_salts(&server, id).await {
                if seen.contains(&salt) {
                    continue;
                }
                assert!(
                    !exported.contains(&salt),
                    "{}: an unseen salt exported",
                    s.client.name
                );
                assert!(
                    s.frames.iter().all(|fr| !fr.contains(&salt)),
                    "{}: an unseen salt sent over the WebSocket",
                    s.client.name
                );
            }
            checked += 1;
        }
    }
    println!(
        "{checked} records checked, {counted} with the player's seed, {reshuffles} reshuffles"
    );
    assert!(checked >= 3 * 6 * 4, "{checked} records checked");
    assert!(reshuffles > 0, "a reshuffle was verified");
    assert!(
        counted * 10 >= checked * 7,
        "most seeds count: {counted} of {checked}"
    );

    // The operator's record has every card dealt, each proved; tampered, it fails.
    let draw_hand = seeders[first_of(2)]
        .proofs
        .values()
        .find(|p| !p.reshuffles.is_empty())
        .unwrap()
        .hand_id;
    let operator = server
        .get_json(&format!("/admin/hands/{draw_hand}?format=replay"))
        .await;
    assert_eq!(operator["me"], Value::Null);
    let parsed: Record = serde_json::from_value(operator.clone()).unwrap();
    let dealt = poker_fairness::verify(&parsed, None).unwrap();
    assert_eq!(
        dealt.cards, dealt.dealt,
        "every card of a draw hand (no burns) is proved"
    );
    both_accept(&dir, "operator", &operator, None);
    for (name, bad) in tampered(&operator) {
        both_refuse(&dir, &format!("operator-{}", name.replace(' ', "-")), &bad);
    }
    let (status, phh) = server
        .get(&format!("/admin/hands/{draw_hand}?format=phh"))
        .await;
    assert_eq!(status, 200);
    assert!(phh.contains("_deck_reshuffles = [["), "{phh}");

    drop(seeders);
    assert_conserved(&server.audit().await, deposited);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seed_that_is_late_repeated_malformed_or_from_a_spectator_is_refused_and_the_table_plays_on(
) {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let server = Server::start(&guard.url(), &[]).await;
    for name in ["ann", "ben", "sue"] {
        server.player(name, 500).await;
    }
    let clock = json!({ "action_ms": 30000, "warning_ms": 0, "time_bank_ms": 0,
                        "max_timeouts": 0, "between_hands_ms": 0 });
    let table = server.table(clock).await;
    let tid = common::tid(&table);
    let mut sue = server.client("sue").await;
    sue.send(&ClientMsg::Watch { table_id: tid }).await;
    let next = sue
        .until(|m| match m {
            ServerMsg::Snapshot { next_deck, .. } => {
                Some(next_deck.as_deref().copied().expect("a deck is committed"))
            }
            _ => None,
        })
        .await;
    // A spectator's seed counts for nothing.
    let seed = |b: u8| Seed::from_bytes([b; 32]);
    sue.send(&ClientMsg::Seed {
        table_id: tid,
        hand_id: next.hand_id,
        seed: seed(1),
    })
    .await;
    sue.expect_error(ErrorCode::SeedRefused).await;
    // Malformed: a seed that is not 64 hex digits.
    sue.send_raw(
        json!({ "type": "seed", "table_id": table, "hand_id": next.hand_id, "seed": "abc" })
            .to_string(),
    )
    .await;
    sue.expect_error(ErrorCode::BadMessage).await;

    let mut ann = server.client("ann").await;
    ann.send(&sit(&table, 0, 100)).await;
    ann.until(|m| matches!(m, ServerMsg::Done { .. }).then_some(()))
        .await;
    ann.send(&ClientMsg::Seed {
        table_id: tid,
        hand_id: next.hand_id,
        seed: seed(2),
    })
    .await;
    // The first seed stands; a second is refused.
    ann.send(&ClientMsg::Seed {
        table_id: tid,
        hand_id: next.hand_id,
        seed: seed(3),
    })
    .await;
    ann.expect_error(ErrorCode::SeedRefused).await;
    let mut ben = server.client("ben").await;
    ben.send(&sit(&table, 1, 100)).await;
    // Ben sat without seeding: the hand is dealt at once, without waiting for him.
    let dealt = ann
        .until(|m| match m {
            ServerMsg::DeckCommitted { commitment, .. } => Some(*commitment),
            _ => None,
        })
        .await;
    assert_ne!(
        dealt.hand_id, next.hand_id,
        "the next deck is committed at the deal"
    );
    // Too late now for the hand being played.
    ben.send(&ClientMsg::Seed {
        table_id: tid,
        hand_id: next.hand_id,
        seed: seed(4),
    })
    .await;
    ben.expect_error(ErrorCode::SeedRefused).await;
    // The table plays on: the hand ends, and its record lists ann's seed alone.
    let mut clients = [ann, ben];
    common::play(&mut clients, &table, 1, |_, _, l| {
        common::simple_action(l, false)
    })
    .await;
    let token = server.login("ann").await;
    let (_, record) = server
        .call(
            "GET",
            &format!("/api/me/hands/{}?format=replay", next.hand_id),
            Some(&token),
            None,
        )
        .await;
    let parsed: Record = serde_json::from_value(record).unwrap();
    assert_eq!(parsed.fairness.seeds.len(), 1);
    assert_eq!(parsed.fairness.seeds[0].seat, 0);
    assert_eq!(parsed.fairness.seeds[0].seed, seed(2));
    poker_fairness::verify(&parsed, Some(&seed(2))).unwrap();
    assert_conserved(&server.audit().await, 1500);
}
