//! A deck anyone can verify (docs/fairness.md), through the real server: players commit
//! to a seed for every deck they are shown and reveal it once the table closes the list,
//! over the WebSocket, and every hand of every game family (flop, stud, 2-7 triple draw
//! with six players, which reshuffles) is checked from what each player downloads, by
//! the library, by `pokerd verify` and by the independent Python verifier, each player's
//! own seed included (and the first hand's). Attackers: a player fishing for others' cards
//! in the proofs (the raw bytes sent to them hold no nonce of a card they did not see,
//! and never the deck's secret), the forged records of docs/fairness/vectors.json (a shown
//! card its owner threw away, a reshuffle that takes a held card, a house seed chosen
//! after the others, a seed in a player's name...), each refused by both verifiers with
//! its code, a server that changes a card, a nonce, a proof, a seed, a slot or a
//! reshuffle, and a player whose commitments and seeds come late, twice, unopened, out of
//! order or without a seat.

use crate::common;

use common::{assert_conserved, games, sit, Client, Db, DbGuard, MyCards, Server};
use futures_util::StreamExt;
use poker_fairness::{Digest, HandProof, MySeed, Record, Seed};
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
fn run(verifier: &str, file: &Path, mine: MySeed) -> (i32, String) {
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
    match mine {
        MySeed::Sent { seed, list } => {
            cmd.args(["--seed", &seed.to_string()]);
            if let Some(l) = list {
                cmd.args(["--list", &l.to_string()]);
            }
        }
        MySeed::None => {
            cmd.arg("--no-seed");
        }
        MySeed::Unknown => {}
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
/// runs, verify.py), checking the player's seed as given.
fn both_accept(dir: &Path, name: &str, record: &Value, mine: MySeed) {
    let file = dir.join(format!("{name}.json"));
    std::fs::write(&file, record.to_string()).unwrap();
    let (code, said) = run("pokerd", &file, mine);
    assert_eq!(code, 0, "pokerd verify {name}: {said}");
    assert!(said.contains("verified"), "{said}");
    if python() {
        let (code, said) = run("python", &file, mine);
        assert_eq!(code, 0, "verify.py {name}: {said}");
    }
}

/// Both command-line verifiers refuse the record, saying so (with this code, when given).
fn both_refuse(dir: &Path, name: &str, record: &Value, mine: MySeed, code: Option<&str>) {
    let file = dir.join(format!("{name}.json"));
    std::fs::write(&file, record.to_string()).unwrap();
    let verifiers: &[&str] = if python() {
        &["pokerd", "python"]
    } else {
        &["pokerd"]
    };
    for verifier in verifiers {
        let (exit, said) = run(verifier, &file, mine);
        assert_eq!(exit, 1, "{verifier} accepted {name}: {said}");
        assert!(said.contains("FAILED"), "{verifier} {name}: {said}");
        if let Some(code) = code {
            assert!(
                said.contains(&format!("FAILED ({code})")),
                "{verifier} {name}: expected {code}: {said}"
            );
        }
    }
}

/// Every way of tampering with a record a verifier must catch, as JSON: a card, a nonce,
/// a proof's path, a seed changed or dropped, a slot, a round, the commitment, a proof
/// left out, uppercase hex, and a reshuffle's list or a reshuffle's opening when there
/// is one.
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
    t("a nonce", &|r| {
        let s = r["fairness"]["cards"][0]["nonce"]
            .as_str()
            .unwrap()
            .to_string();
        let flipped = if s.starts_with('0') { "1" } else { "0" };
        r["fairness"]["cards"][0]["nonce"] = json!(format!("{flipped}{}", &s[1..]));
    });
    t("an uppercase hand id", &|r| {
        let s = r["hand_id"].as_str().unwrap().to_uppercase();
        r["hand_id"] = json!(s);
        r["fairness"]["hand_id"] = json!(s);
    });
    t("a hand id without dashes", &|r| {
        let s = r["hand_id"].as_str().unwrap().replace('-', "");
        r["hand_id"] = json!(s);
        r["fairness"]["hand_id"] = json!(s);
    });
    t("a card in another spelling", &|r| {
        let c = r["fairness"]["cards"][0]["card"]
            .as_str()
            .unwrap()
            .to_uppercase();
        r["fairness"]["cards"][0]["card"] = json!(c);
    });
    t("uppercase hex", &|r| {
        let s = r["fairness"]["commitment"].as_str().unwrap().to_uppercase();
        r["fairness"]["commitment"] = json!(s);
    });
    t("a proof's path", &|r| {
        r["fairness"]["cards"][0]["path"][0] = json!("00".repeat(32));
    });
    t("a seed changed", &|r| {
        r["fairness"]["seeds"][0]["seed"] = json!("ab".repeat(32));
    });
    t("a slot", &|r| {
        let p = &mut r["fairness"]["cards"][0]["slot"];
        *p = json!((p.as_u64().unwrap() + 1) % 52);
    });
    t("a round", &|r| {
        r["fairness"]["cards"][0]["round"] = json!(1);
    });
    t("the commitment", &|r| {
        r["fairness"]["commitment"] = json!("11".repeat(32));
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
    if record["fairness"]["kept"]
        .as_array()
        .is_some_and(|l| !l.is_empty())
    {
        t("a reshuffle's opening left out", &|r| {
            r["fairness"]["kept"].as_array_mut().unwrap().pop();
        });
    }
    out
}

/// What a vector's `mine` says.
fn mine_of(v: &Value) -> MySeed {
    match v {
        Value::Null => MySeed::Unknown,
        Value::String(s) if s == "none" => MySeed::None,
        v => MySeed::Sent {
            seed: v["seed"].as_str().unwrap().parse().unwrap(),
            list: v["list"].as_str().map(|l| l.parse().unwrap()),
        },
    }
}

#[test]
fn every_forged_record_and_every_tampering_is_refused_by_both_verifiers_with_its_code() {
    let vectors: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("docs/fairness/vectors.json")).unwrap(),
    )
    .unwrap();
    let dir = scratch("forged");
    if python() {
        let out = Command::new("python3")
            .arg(repo().join("docs/fairness/verify.py"))
            .arg("--vectors")
            .arg(repo().join("docs/fairness/vectors.json"))
            .output()
            .unwrap();
        succeeded(
            &out,
            "verify.py recomputes every published vector and refuses every forged record",
        );
    }
    if python() {
        // verify.py's own tests: records it forges itself (uppercase hex, a card or a seed
        // changed, a kept opening removed...), each refused with its code.
        let out = Command::new("python3")
            .args(["-m", "unittest", "docs/fairness/test_verify.py"])
            .current_dir(repo())
            .output()
            .unwrap();
        succeeded(&out, "verify.py's tests");
    }
    let attacks = vectors["attacks"].as_array().unwrap();
    assert!(attacks.len() >= 15, "{} forged records", attacks.len());
    for a in attacks {
        let name = a["name"].as_str().unwrap();
        both_refuse(
            &dir,
            name,
            &a["record"],
            mine_of(&a["mine"]),
            Some(a["error"].as_str().unwrap()),
        );
    }
    for (i, record) in vectors["records"].as_array().unwrap().iter().enumerate() {
        both_accept(&dir, &format!("vector-{i}"), record, MySeed::Unknown);
        for (name, bad) in tampered(record) {
            both_refuse(
                &dir,
                &format!("vector-{i}-{}", name.replace(' ', "-")),
                &bad,
                MySeed::Unknown,
                None,
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

/// A player at one table who commits to a seed for every deck shown to them (right
/// after asking to sit, too), reveals it once the list closes with their commitment in
/// it (unless `silent`: then they send nothing), and plays simply: calls, checks, draws
/// three, agrees to run twice, shows.
struct Seeder {
    client: Client,
    table: String,
    seat: u32,
    silent: bool,
    /// Every raw frame received.
    frames: Vec<String>,
    /// The next deck, as last heard.
    next: Option<poker_fairness::Commitment>,
    /// The seed committed for each hand.
    seeds: HashMap<HandId, Seed>,
    /// The closed list's digest each seed was revealed under.
    revealed: HashMap<HandId, Digest>,
    /// Hands whose commitment or seed the server refused as late.
    late: HashSet<HandId>,
    /// The seat to take once the table's snapshot (and its next deck) is in: a client
    /// watches first and sends its commitment right after its `sit`, as the page does.
    to_sit: Option<ClientMsg>,
    /// Each hand's proofs received live, by hand id.
    proofs: HashMap<HandId, HandProof>,
    cards: MyCards,
    topping_up: bool,
    ended: usize,
    closed: bool,
}

impl Seeder {
    fn new(client: Client, table: &str, seat: u32, silent: bool) -> Seeder {
        Seeder {
            to_sit: Some(sit(table, seat, 200)),
            client,
            table: table.to_string(),
            seat,
            silent,
            frames: Vec::new(),
            next: None,
            seeds: HashMap::new(),
            revealed: HashMap::new(),
            late: HashSet::new(),
            proofs: HashMap::new(),
            cards: MyCards::default(),
            topping_up: false,
            ended: 0,
            closed: false,
        }
    }

    /// Commits to a seed for the next deck, once per deck.
    async fn commit(&mut self) {
        let Some(next) = self.next else { return };
        if self.silent || self.seeds.contains_key(&next.hand_id) {
            return;
        }
        let seed = Seed::from_bytes(rand::random());
        self.seeds.insert(next.hand_id, seed);
        let msg = ClientMsg::SeedCommit {
            table_id: common::tid(&self.table),
            hand_id: next.hand_id,
            commitment: poker_protocol::seed_commitment(&next.commitment, &seed),
        };
        self.client.send(&msg).await;
    }

    /// Reveals the seed of the next deck once its list is closed with this player's
    /// commitment in it.
    async fn reveal(&mut self, hand_id: HandId, list: &[poker_fairness::SeedCommit]) {
        let Some(next) = self.next.filter(|n| n.hand_id == hand_id) else {
            return;
        };
        let Some(&seed) = self.seeds.get(&hand_id) else {
            return;
        };
        if self.revealed.contains_key(&hand_id) {
            return;
        }
        let mine = poker_protocol::seed_commitment(&next.commitment, &seed);
        if !list.iter().any(|e| e.commitment == mine) {
            return;
        }
        self.revealed.insert(
            hand_id,
            poker_fairness::seeds::list_digest(&next.commitment, list),
        );
        let msg = ClientMsg::Seed {
            table_id: common::tid(&self.table),
            hand_id,
            seed,
        };
        self.client.send(&msg).await;
    }

    /// What this player knows of their seed for a hand.
    fn mine(&self, hand: HandId) -> MySeed {
        match (self.seeds.get(&hand), self.revealed.get(&hand)) {
            (Some(&seed), Some(&list)) if !self.late.contains(&hand) => MySeed::Sent {
                seed,
                list: Some(list),
            },
            (None, _) => MySeed::None,
            _ => MySeed::Unknown,
        }
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
                next_deck: Some(c),
                seeds_closed,
                ..
            } => {
                self.next = Some(*c);
                if let Some(mut sit) = self.to_sit.take() {
                    // The commitment goes with the sit, as the page sends it.
                    if let (ClientMsg::Sit { seed_commit, .. }, false) = (&mut sit, self.silent) {
                        let seed = Seed::from_bytes(rand::random());
                        self.seeds.insert(c.hand_id, seed);
                        *seed_commit = Some(poker_protocol::SitSeed {
                            hand_id: c.hand_id,
                            commitment: poker_protocol::seed_commitment(&c.commitment, &seed),
                        });
                    }
                    self.client.send(&sit).await;
                }
                self.commit().await;
                if let Some(list) = seeds_closed {
                    self.reveal(c.hand_id, &list).await;
                }
            }
            ServerMsg::DeckCommitted { commitment, .. } => {
                self.next = Some(commitment);
                self.commit().await;
            }
            ServerMsg::SeedsClosed { hand_id, list, .. } => self.reveal(hand_id, &list).await,
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
                // A commitment or seed that came after its hand was dealt, or a
                // commitment after the list closed: the hand is dealt without it.
                let id = self
                    .seeds
                    .keys()
                    .find(|h| message.contains(&h.to_string()))
                    .copied()
                    .or(self.next.map(|n| n.hand_id))
                    .unwrap_or_else(|| panic!("{}: a seed refused: {message}", self.client.name));
                self.late.insert(id);
            }
            // The tables close at the end: a commitment or seed answering their last
            // deck may find the table gone.
            ServerMsg::Error {
                code: ErrorCode::UnknownTable,
                ..
            } => {}
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
    let answer = server.get_as(token, path).await;
    (answer.status, answer.text)
}

/// The deck's secret and the nonce of every card in every round of a hand, from the
/// operator's record.
async fn all_nonces(server: &Server, hand: HandId) -> (String, Vec<String>) {
    let row = server.get_json(&format!("/admin/hands/{hand}")).await;
    let deck = &row["record"]["deck"];
    let secret: poker_fairness::Secret = deck["secret"]
        .as_str()
        .expect("the deck's secret")
        .parse()
        .unwrap();
    let kind = poker_fairness::deck::deck_kind(deck["size"].as_u64().unwrap() as usize).unwrap();
    let rounds = deck["rounds"].as_u64().unwrap() as u8;
    let nonces = (0..rounds)
        .flat_map(|r| {
            kind.cards()
                .into_iter()
                .map(move |c| poker_fairness::deck::nonce(&secret, r, c).to_string())
        })
        .collect();
    (secret.to_string(), nonces)
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
            client
                .send(&ClientMsg::Watch {
                    table_id: common::tid(&table),
                })
                .await;
            // At the flop table one player never seeds: no hand waits for them.
            let silent = *family == "holdem" && seat == 3;
            seeders.push(Seeder::new(client, &table, seat as u32, silent));
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
    // The deal's waits for seeds are timed, never spun: a table wakes for its messages,
    // commits, timers and held-back writes, tens of times a hand. A wait left in the past
    // woke it at once, again and again, until the seeds came (hundreds of times a hand;
    // under poker-load 590, and 39.7 once fixed).
    let wakeups = server.metric("poker_table_wakeups_total").await;
    let hands = server.metric("poker_hands_dealt_total").await;
    println!("{wakeups} table wakeups for {hands} hands");
    assert!(
        wakeups < 150 * hands.max(1),
        "the tables woke {wakeups} times for {hands} hands"
    );
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
    let mut expected = 0;
    let mut reshuffles = 0;
    // Each table's first hand: (number, whether every player who seeds had theirs used).
    let mut first: HashMap<String, (u64, bool)> = HashMap::new();
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
            // The seeds by seat: this player's is used unless it came late, and none is
            // listed in the name of the player who sends none.
            let listed = f.seeds.iter().find(|x| u32::from(x.seat) == seat);
            let mine = s.mine(id);
            match mine {
                MySeed::Sent { seed, .. } => {
                    assert_eq!(
                        listed.map(|x| x.seed),
                        Some(seed),
                        "{}: {id}",
                        s.client.name
                    );
                    counted += 1;
                }
                MySeed::None => {
                    assert!(listed.is_none());
                    assert!(!f.seed_list.iter().any(|c| u32::from(c.seat) == seat));
                }
                MySeed::Unknown => {}
            }
            expected += usize::from(!s.silent);
            if !s.silent && !matches!(mine, MySeed::Sent { .. }) {
                println!(
                    "MISSING {} seat {seat} hand {} {:?}: committed {} revealed {} late {} listed {:?}",
                    s.client.name,
                    h["number"],
                    id,
                    s.seeds.contains_key(&id),
                    s.revealed.contains_key(&id),
                    s.late.contains(&id),
                    f.seed_list.iter().map(|c| c.seat).collect::<Vec<_>>()
                );
            }
            assert!(f.seed_list.iter().all(|c| !c.house), "no house seat here");
            let number = h["number"].as_u64().expect("the hand's number");
            let all_in = matches!(mine, MySeed::Sent { .. }) || s.silent;
            let e = first.entry(s.table.clone()).or_insert((number, true));
            if number < e.0 {
                *e = (number, all_in);
            } else if number == e.0 {
                e.1 &= all_in;
            }
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
            assert_eq!(
                poker_fairness::phh::read::<HandProof>(&table).as_ref(),
                Some(f)
            );
            // Secrecy: no nonce of a card this player did not see, and never the deck's
            // secret, was ever sent to them, live or in their exports.
            let seen: HashSet<String> = f
                .cards
                .iter()
                .map(|c| c.nonce.to_string())
                .chain(f.kept.iter().map(|k| k.nonce.to_string()))
                .collect();
            let exported = format!("{record}{phh}");
            let (secret, nonces) = all_nonces(&server, id).await;
            assert!(!exported.contains(&secret), "the secret exported");
            assert!(
                s.frames.iter().all(|fr| !fr.contains(&secret)),
                "the secret sent"
            );
            for nonce in nonces {
                if seen.contains(&nonce) {
                    continue;
                }
                assert!(
                    !exported.contains(&nonce),
                    "{}: an unseen nonce exported",
                    s.client.name
                );
                assert!(
                    s.frames.iter().all(|fr| !fr.contains(&nonce)),
                    "{}: an unseen nonce sent over the WebSocket",
                    s.client.name
                );
            }
            checked += 1;
        }
    }
    println!(
        "{checked} records checked; {counted} of {expected} with the seed of a player who seeds; {reshuffles} reshuffles"
    );
    assert!(checked >= 3 * 6 * 4, "{checked} records checked");
    assert!(reshuffles > 0, "a reshuffle was verified");
    // The deal waits for the seeds of the players who send them: all but a rare late one
    // count, the first hand's included.
    assert!(
        counted * 100 >= expected * 95,
        "the seeds of players who seed: {counted} of {expected}"
    );
    for (table, (number, all)) in &first {
        assert!(
            all,
            "the first hand ({number}) at {table} has every seeding player's seed"
        );
    }

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
    let dealt = poker_fairness::verify(&parsed, MySeed::Unknown).unwrap();
    assert_eq!(
        dealt.cards, dealt.dealt,
        "every card of a draw hand (no burns) is proved"
    );
    both_accept(&dir, "operator", &operator, MySeed::Unknown);
    for (name, bad) in tampered(&operator) {
        both_refuse(
            &dir,
            &format!("operator-{}", name.replace(' ', "-")),
            &bad,
            MySeed::Unknown,
            None,
        );
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
async fn a_commitment_or_seed_that_is_late_repeated_unopened_malformed_or_from_a_spectator_is_refused_and_the_table_plays_on(
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
    let seed = |b: u8| Seed::from_bytes([b; 32]);
    let commit = |b: u8| ClientMsg::SeedCommit {
        table_id: tid,
        hand_id: next.hand_id,
        commitment: poker_protocol::seed_commitment(&next.commitment, &seed(b)),
    };
    let reveal = |b: u8| ClientMsg::Seed {
        table_id: tid,
        hand_id: next.hand_id,
        seed: seed(b),
    };
    // A commitment from someone neither at nor watching the table is refused; a
    // spectator's is kept in case they sit before the list closes (sue never does: the
    // list below holds ann's alone).
    let mut ben = server.client("ben").await;
    ben.send(&commit(1)).await;
    ben.expect_error(ErrorCode::SeedRefused).await;
    sue.send(&commit(1)).await;
    // Malformed: not 64 hex digits, or uppercase hex (each value has one spelling).
    sue.send_raw(
        json!({ "type": "seed_commit", "table_id": table, "hand_id": next.hand_id, "commitment": "abc" })
            .to_string(),
    )
    .await;
    sue.expect_error(ErrorCode::BadMessage).await;
    sue.send_raw(
        json!({ "type": "seed", "table_id": table, "hand_id": next.hand_id, "seed": "AB".repeat(32) })
            .to_string(),
    )
    .await;
    sue.expect_error(ErrorCode::BadMessage).await;

    let mut ann = server.client("ann").await;
    ann.send(&sit(&table, 0, 100)).await;
    // Ann commits while her sit is under way (as the page does), then again: refused.
    ann.send(&commit(2)).await;
    ann.send(&commit(3)).await;
    ann.expect_error(ErrorCode::SeedRefused).await;
    // Her seed before the list is closed: refused (it would be seen before the others
    // are fixed).
    ann.send(&reveal(2)).await;
    ann.expect_error(ErrorCode::SeedRefused).await;
    // Ben sits and sends nothing more: his client takes no part in the seeds, so the
    // table does not wait for him; the list closes with ann's commitment alone.
    ben.send(&sit(&table, 1, 100)).await;
    let list = ann
        .until(|m| match m {
            ServerMsg::SeedsClosed { hand_id, list, .. } if *hand_id == next.hand_id => {
                Some(list.clone())
            }
            _ => None,
        })
        .await;
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].seat, 0);
    assert!(!list[0].house);
    // Too late for ben's commitment now; a seed that does not open ann's commitment is
    // refused; hers counts.
    ben.send(&commit(4)).await;
    ben.expect_error(ErrorCode::SeedRefused).await;
    ann.send(&reveal(9)).await;
    ann.expect_error(ErrorCode::SeedRefused).await;
    ann.send(&reveal(2)).await;
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
    ann.send(&reveal(2)).await;
    ann.expect_error(ErrorCode::SeedRefused).await;
    // The table plays on: the hand ends, and its record lists ann's seed alone, under
    // the list she was sent; ben's record shows none in his name.
    let mut clients = [ann, ben];
    common::play(&mut clients, &table, 1, |_, _, l| {
        common::simple_action(l, false)
    })
    .await;
    let record_of = |name: &'static str| {
        let server = &server;
        async move {
            let token = server.login(name).await;
            let (_, record) = server
                .call(
                    "GET",
                    &format!("/api/me/hands/{}?format=replay", next.hand_id),
                    Some(&token),
                    None,
                )
                .await;
            serde_json::from_value::<Record>(record).unwrap()
        }
    };
    let parsed = record_of("ann").await;
    assert_eq!(parsed.fairness.seeds.len(), 1);
    assert_eq!(parsed.fairness.seeds[0].seat, 0);
    assert_eq!(parsed.fairness.seeds[0].seed, seed(2));
    let digest = poker_fairness::seeds::list_digest(&next.commitment, &list);
    poker_fairness::verify(
        &parsed,
        MySeed::Sent {
            seed: seed(2),
            list: Some(digest),
        },
    )
    .unwrap();
    poker_fairness::verify(&record_of("ben").await, MySeed::None).unwrap();
    assert_conserved(&server.audit().await, 1500);
}

/// A program that must have succeeded: `what` it shows, and its output when it did not.
fn succeeded(out: &std::process::Output, what: &str) {
    let (stdout, stderr) = (&out.stdout, &out.stderr);
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(stdout),
        String::from_utf8_lossy(stderr)
    );
    assert!(out.status.success(), "{what}: {output}");
}
