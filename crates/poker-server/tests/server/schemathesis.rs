//! The admin and account API against its OpenAPI contract (`docs/openapi.json`, served at
//! `/openapi.json`), checked by [schemathesis](https://schemathesis.io) on the real server
//! on port 0, on SQLite and on Postgres.
//!
//! Schemathesis generates requests from the document in every phase (the document's
//! examples; the coverage phase's boundary values and schema violations; random fuzzing;
//! stateful chains that follow the document's links: player created, deposit, ledger and
//! hands; table created, inspected, its hands, closed) and runs every check on every
//! answer: no server error, only documented status codes and content types, bodies that
//! match their schemas, requests that break the schema refused, requests that keep it
//! accepted, authentication not ignored, 405 with `Allow` for other methods.
//!
//! It runs from a Python venv under `target/schemathesis-venv`, made once (under a file
//! lock, so test processes running at once do not race) with the pinned version from
//! PyPI. Without Python (or its `venv` module, or PyPI) the test is skipped, unless `CI`
//! is set: then it fails.
//!
//! The settings that are not schemathesis' defaults, and why:
//! - strings are generated from Latin-1 (`generation.codec`): a name may not hold an
//!   unassigned or private-use code point, which no pattern the document could give lists
//!   for every Unicode version; over Latin-1 the document's name pattern is exact;
//! - `POST /admin/tables` and `POST /api/private` may answer 400 to a request the schema
//!   allows: table rules must also agree with each other (blinds, stakes and buy-ins for
//!   the structure; the seats one deck deals for the game: 7 for stud), which a schema
//!   cannot express (the document says so); every other check still applies;
//! - `/api/me...` are called with a player's session, the rest with the admin token;
//! - in the fuzzing phase, three requests in four to `.../{id}` name a player, table or
//!   hand made beforehand (schemathesis dictionaries), so they get past 404;
//! - the server allows many registrations and wrong passwords per address: every request
//!   comes from 127.0.0.1, and the default limits would answer 429 (documented) to most
//!   of them, leaving the endpoints untested; so are wrong admin tokens (schemathesis
//!   sends malformed `Authorization` headers), and the API's rate limits are the
//!   harness's loose ones. The limiters have their own tests (tests/server/hardening.rs).

use crate::common;

use common::{play, simple_action, sit, Db, DbGuard, Server, TOKEN};
use poker_protocol::ServerMsg;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// The schemathesis release used (from PyPI).
const VERSION: &str = "4.32.5";
/// Test cases per operation in the fuzzing phase (schemathesis' `--max-examples`): a budget
/// that fits nextest's limit (300 s) on a machine three times slower than ours. With 50,
/// a run is about 4,400 cases (coverage about 2,250, fuzzing about 1,870, stateful about
/// 300) in 37 s on SQLite on a 2-core machine with a build beside it; 200 took 175-212 s.
const MAX_EXAMPLES: &str = "50";
/// Generation is reproducible from this seed (the server's ids and clocks aside).
const SEED: &str = "20261125";
/// The most one schemathesis run may take: a guard against a hang, short of nextest's
/// 300 s so that the test says what schemathesis printed.
const RUN_LIMIT: Duration = Duration::from_secs(270);

/// The schemathesis executable, or `None` (skipped) when it cannot be installed here.
fn schemathesis() -> Option<PathBuf> {
    let venv = common::python::python_venv(
        "schemathesis",
        &format!("schemathesis=={VERSION}"),
        "schemathesis",
        "the OpenAPI conformance test",
    )?;
    Some(venv.join("bin/schemathesis"))
}

/// What the server holds before schemathesis starts: ids for its dictionaries, and a
/// player's session for `/api/me`.
struct Seed {
    session: String,
    players: Vec<String>,
    staff: Vec<String>,
    tables: Vec<String>,
    hands: Vec<String>,
}

/// A server with data: two players who played a few hands at one table, another table
/// with nobody seated.
async fn start(guard: &DbGuard) -> (Server, Seed) {
    let server = Server::start(
        &guard.url(),
        &[
            ("POKER__SERVER__REGISTER_PER_ADDRESS", "1000000"),
            ("POKER__SERVER__LOGIN_ADDRESS_ATTEMPTS", "1000000"),
            ("POKER__ADMIN__BEARER_ATTEMPTS", "1000000"),
        ],
    )
    .await;
    let players = vec![
        server.player("ann", 1000).await,
        server.player("ben", 1000).await,
    ];
    // Players who stop acting time out once and sit out: the table goes quiet.
    let clock = json!({ "action_ms": 500, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 1, "between_hands_ms": 0 });
    let played = server.table(clock.clone()).await;
    let mut clients = Vec::new();
    for (seat, name) in ["ann", "ben"].iter().enumerate() {
        let mut c = server.client(name).await;
        c.send(&sit(&played, seat as u32, 100)).await;
        c.until(|m| matches!(m, ServerMsg::Done { .. }).then_some(()))
            .await;
        clients.push(c);
    }
    play(&mut clients, &played, 3, |_, _, legal| {
        simple_action(legal, false)
    })
    .await;
    drop(clients);
    let hands = server
        .get_json(&format!("/admin/tables/{played}/hands"))
        .await
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["hand_id"].as_str().unwrap().to_string())
        .collect();
    let tables = vec![played, server.table(clock).await];
    let session = server.login("ann").await;
    let sam = json!({ "name": "Sam", "password": "staffpass1", "role": "floor" });
    let sam = server.posted("/admin/staff", sam, 201).await;
    let staff = vec![sam["staff_id"].as_str().unwrap().to_string()];
    (
        server,
        Seed {
            session,
            players,
            staff,
            tables,
            hands,
        },
    )
}

/// Runs schemathesis against the server; returns its output and the test cases it
/// generated in each phase.
async fn run(
    schemathesis: &Path,
    server: &Server,
    seed: &Seed,
    work: &Path,
) -> (bool, String, BTreeMap<String, u64>) {
    let _ = std::fs::remove_dir_all(work);
    std::fs::create_dir_all(work).unwrap();
    let list = |ids: &[String]| {
        ids.iter()
            .map(|id| format!("{id:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let config = work.join("schemathesis.toml");
    std::fs::write(
        &config,
        format!(
            r#"# Written by crates/poker-server/tests/server/schemathesis.rs, which says why.
[generation]
codec = "latin-1"

# Ids that exist, used by the fuzzing phase for most requests (the others, and the
# coverage phase, use ids nobody has).
[dictionaries.players]
values = [{players}]
[dictionaries.tables]
values = [{tables}]
[dictionaries.hands]
values = [{hands}]
[dictionaries.staff]
values = [{staff}]

[[operations]]
include-operation-id = ["getPlayer", "deposit", "withdraw", "getLedger", "getPlayerHands", "issueResetCode"]
parameters = {{ "path.id" = {{ dictionary = "players", probability = 0.75 }} }}

[[operations]]
include-operation-id = ["getTable", "getTableHands", "closeTable"]
parameters = {{ "path.id" = {{ dictionary = "tables", probability = 0.75 }} }}

[[operations]]
include-operation-id = ["disableStaff", "setStaffRole", "setStaffPassword", "signOutStaff"]
parameters = {{ "path.id" = {{ dictionary = "staff", probability = 0.75 }} }}

[[operations]]
include-operation-id = ["getHand", "getMyHand"]
parameters = {{ "path.id" = {{ dictionary = "hands", probability = 0.75 }} }}

[[operations]]
include-operation-id = "createPrivateTable"
headers = {{ Authorization = "Bearer {session}" }}
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "429", "5xx"]

[[operations]]
include-path-regex = "^/api/(me|private)"
headers = {{ Authorization = "Bearer {session}" }}

[[operations]]
include-operation-id = "createTable"
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "429", "5xx"]

"#,
            players = list(&seed.players),
            tables = list(&seed.tables),
            hands = list(&seed.hands),
            staff = list(&seed.staff),
            session = seed.session,
        ),
    )
    .unwrap();
    let events = work.join("events.ndjson");
    let log = work.join("output.txt");
    let mut child = tokio::process::Command::new(schemathesis)
        .current_dir(work)
        .arg("--config-file")
        .arg(&config)
        .arg("run")
        .arg(format!("{}/openapi.json", server.base))
        .args(["--url", &server.base])
        .args(["-H", &format!("Authorization: Bearer {TOKEN}")])
        .args(["--checks", "all"])
        .args(["--phases", "examples,coverage,fuzzing,stateful"])
        .args(["--max-examples", MAX_EXAMPLES])
        .args(["--seed", SEED])
        .args(["--generation-database", "none"])
        .args(["--request-timeout", "30"])
        .args(["--continue-on-failure", "--no-color"])
        .args(["--output-sanitize", "false", "--output-truncate", "false"])
        .args(["--report", "ndjson", "--report-ndjson-path"])
        .arg(&events)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(std::fs::File::create(work.join("stderr.txt")).unwrap())
        .kill_on_drop(true)
        .spawn()
        .expect("schemathesis runs");
    let status = tokio::time::timeout(RUN_LIMIT, child.wait()).await;
    let read = |name: &str| std::fs::read_to_string(work.join(name)).unwrap_or_default();
    let output = format!("{}{}", read("output.txt"), read("stderr.txt"));
    let Ok(status) = status else {
        let _ = child.kill().await;
        panic!("schemathesis did not finish in {RUN_LIMIT:?}:\n{output}");
    };
    let ok = status.expect("schemathesis runs").success();
    let mut cases = BTreeMap::new();
    for line in std::fs::read_to_string(&events)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with(r#"{"ScenarioFinished""#))
    {
        let event: Value = serde_json::from_str(line).expect("an ndjson event");
        let scenario = &event["ScenarioFinished"];
        let n = scenario["recorder"]["cases"]
            .as_object()
            .map_or(0, |c| c.len() as u64);
        let phase = scenario["phase"].as_str().unwrap_or("?").to_string();
        *cases.entry(phase).or_default() += n;
    }
    (ok, output, cases)
}

async fn conforms(db: Db) {
    let Some(schemathesis) = schemathesis() else {
        return;
    };
    let Some(guard) = DbGuard::new(db).await else {
        return;
    };
    let (mut server, seed) = start(&guard).await;
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("schemathesis-{db:?}"));
    let started = Instant::now();
    let (ok, output, cases) = run(&schemathesis, &server, &seed, &work).await;
    let took = started.elapsed();
    let total: u64 = cases.values().sum();
    let phases: Vec<String> = ["examples", "coverage", "fuzzing", "stateful"]
        .iter()
        .map(|p| format!("{p} {}", cases.get(*p).copied().unwrap_or(0)))
        .collect();
    println!(
        "schemathesis {VERSION} on {db:?}: {total} test cases ({}) in {:.1} s",
        phases.join(", "),
        took.as_secs_f64()
    );
    if let Some(summary) = output.find("=== SUMMARY ===") {
        let start = output[..summary].rfind('\n').map_or(0, |i| i + 1);
        println!("{}", &output[start..]);
    }
    assert!(
        ok,
        "the server does not keep its OpenAPI contract on {db:?}:\n{output}"
    );
    assert!(total > 0, "schemathesis generated no test case:\n{output}");
    server.stop().await;
}

crate::on_both_dbs!(conforms: the_api_keeps_its_openapi_contract_on_sqlite, the_api_keeps_its_openapi_contract_on_postgres);
