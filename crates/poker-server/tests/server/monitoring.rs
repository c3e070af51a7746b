//! The room's monitoring (config/monitoring; docs/operations.md, "Dashboards and alerts"):
//! promtool accepts the Prometheus configuration and the alert rules, every metric the
//! dashboard and the rules ask for is one a real pokerd serves (and documented), and the
//! rules fire on a real pokerd's scraped metrics put in the state they describe (a node
//! down, hands voided by a restart) and stay quiet on a healthy room's.
//!
//! Scrapes are turned into a `promtool test rules` file: each scrape is one sample of every
//! series, 15 seconds apart (the scrape interval of prometheus.yml), `up` is 1 when the
//! scrape answered and 0 when it did not, as Prometheus records it. Nothing here waits for
//! a wall-clock duration: the time is the samples'.

use crate::common;

use common::{sit, Db, DbGuard, Server};
use poker_protocol::ServerMsg;
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The instance label the scraped series carry (as docker-compose.yml's first node).
const INSTANCE: &str = "pokerd:8080";

/// Seconds between two scrapes in the rules' test files, as in prometheus.yml.
const SCRAPE_SECS: usize = 15;

fn monitoring_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/monitoring")
}

/// Whether promtool is here: required in CI (`.ci/setup` installs it); elsewhere the test
/// is skipped, saying so.
fn promtool_present() -> bool {
    let found = Command::new("promtool")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "promtool is missing in CI (.ci/setup installs Debian's prometheus package)"
        );
        eprintln!("SKIPPED: no promtool (Debian's prometheus package)");
    }
    found
}

/// Runs promtool with these arguments; panics with its output unless it succeeds.
fn promtool(args: &[&Path]) {
    let out = Command::new("promtool").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "promtool {args:?}:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One scrape of `/metrics`: each series (`name{labels}`) and its value as served, or
/// `None` when the server did not answer (Prometheus records `up` 0).
type Scrape = Option<BTreeMap<String, String>>;

async fn scrape(base: &str) -> Scrape {
    let answer = reqwest::Client::new()
        .get(format!("{base}/metrics"))
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .ok()?;
    if !answer.status().is_success() {
        return None;
    }
    let text = answer.text().await.ok()?;
    let samples = text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (series, value) = l.rsplit_once(' ').expect("a sample line: series value");
            (series.to_string(), value.to_string())
        })
        .collect();
    Some(samples)
}

/// The metric names a scrape serves (histograms as their `_bucket`, `_sum`, `_count`).
fn names(scrape: &BTreeMap<String, String>) -> BTreeSet<String> {
    scrape
        .keys()
        .map(|s| s.split('{').next().unwrap().to_string())
        .collect()
}

/// `poker_*` names a text (a dashboard expression, the rules) mentions.
fn poker_names(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("poker_") {
        let tail = &rest[at..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        found.insert(tail[..end].to_string());
        rest = &tail[end..];
    }
    found
}

/// The series with the labels Prometheus adds to a target's samples.
fn labelled(series: &str) -> String {
    let target = format!("job=\"pokerd\",instance=\"{INSTANCE}\"");
    match series.split_once('{') {
        Some((name, labels)) => format!("{name}{{{target},{labels}"),
        None => format!("{series}{{{target}}}"),
    }
}

/// alerts.yml without its annotations: promtool compares them too, and they carry
/// humanized values; the labels say which alert fired for which node.
fn rules_without_annotations() -> String {
    let rules = std::fs::read_to_string(monitoring_dir().join("alerts.yml")).unwrap();
    let mut out = String::new();
    let mut skipping: Option<usize> = None;
    for line in rules.lines() {
        let indent = line.len() - line.trim_start().len();
        if let Some(depth) = skipping {
            if line.trim().is_empty() || indent > depth {
                continue;
            }
            skipping = None;
        }
        if line.trim() == "annotations:" {
            skipping = Some(indent);
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    assert!(
        !out.contains("annotations"),
        "every annotation block dropped"
    );
    out
}

/// The alerts of alerts.yml, by name.
fn alert_names() -> Vec<String> {
    std::fs::read_to_string(monitoring_dir().join("alerts.yml"))
        .unwrap()
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- alert: "))
        .map(str::to_string)
        .collect()
}

/// Runs alerts.yml (annotations aside) in `promtool test rules` on these scrapes: at the
/// time of each scrape index in `checks`, the alerts named fire for this node and no
/// other alert of the file does.
fn run_rules(scrapes: &[Scrape], checks: &[(usize, &[&str])]) {
    let mut series: BTreeSet<String> = BTreeSet::new();
    for s in scrapes.iter().flatten() {
        series.extend(s.keys().cloned());
    }
    let mut file = String::from(
        "rule_files:\n  - alerts.yml\nevaluation_interval: 15s\ntests:\n  - interval: 15s\n    input_series:\n",
    );
    let up: Vec<&str> = scrapes
        .iter()
        .map(|s| if s.is_some() { "1" } else { "0" })
        .collect();
    file.push_str(&format!(
        "      - series: '{}'\n        values: '{}'\n",
        labelled("up"),
        up.join(" ")
    ));
    for name in &series {
        let values: Vec<&str> = scrapes
            .iter()
            .map(|s| {
                s.as_ref()
                    .map_or("_", |s| s.get(name).map_or("_", String::as_str))
            })
            .collect();
        file.push_str(&format!(
            "      - series: '{}'\n        values: '{}'\n",
            labelled(name),
            values.join(" ")
        ));
    }
    file.push_str("    alert_rule_test:\n");
    let severity = severities();
    for (at, firing) in checks {
        for alert in alert_names() {
            file.push_str(&format!(
                "      - eval_time: {}s\n        alertname: {alert}\n",
                at * SCRAPE_SECS
            ));
            if firing.contains(&alert.as_str()) {
                file.push_str(&format!(
                    "        exp_alerts:\n          - exp_labels: {{severity: {}, job: pokerd, instance: '{INSTANCE}'}}\n",
                    severity[&alert]
                ));
            } else {
                file.push_str("        exp_alerts: []\n");
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("alerts.yml"), rules_without_annotations()).unwrap();
    let test = dir.path().join("scraped_test.yml");
    std::fs::write(&test, &file).unwrap();
    promtool(&[Path::new("test"), Path::new("rules"), &test]);
}

/// Each alert's severity label, as alerts.yml gives it.
fn severities() -> BTreeMap<String, String> {
    let rules = std::fs::read_to_string(monitoring_dir().join("alerts.yml")).unwrap();
    let mut out = BTreeMap::new();
    let mut alert = None;
    for line in rules.lines() {
        let line = line.trim();
        if let Some(name) = line.strip_prefix("- alert: ") {
            alert = Some(name.to_string());
        } else if let (Some(a), Some(s)) = (&alert, line.strip_prefix("severity: ")) {
            out.insert(a.clone(), s.to_string());
        }
    }
    out
}

/// Two players seated at a table with a slow clock, and a hand dealt: the one to act has
/// been asked (so the hand is on record as started, and not over for ten seconds).
async fn hand_in_progress(server: &Server) -> Vec<common::Client> {
    server.player("ann", 1000).await;
    server.player("ben", 1000).await;
    let clock = json!({ "action_ms": 60000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    let table_id = server.table(clock).await;
    let mut clients = Vec::new();
    for (seat, name) in ["ann", "ben"].iter().enumerate() {
        let mut c = server.client(name).await;
        c.send(&sit(&table_id, seat as u32, 150)).await;
        clients.push(c);
    }
    'asked: loop {
        for c in clients.iter_mut() {
            if let Some(ServerMsg::Decide { .. }) = c.try_recv(Duration::from_millis(5)).await {
                break 'asked;
            }
        }
    }
    clients
}

async fn scrapes(base: &str, n: usize) -> Vec<Scrape> {
    let mut out = Vec::new();
    for _ in 0..n {
        out.push(scrape(base).await);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn monitoring_config_rules_and_dashboard_pass_promtool_and_ask_for_served_metrics() {
    if !promtool_present() {
        return;
    }
    let dir = monitoring_dir();
    promtool(&[
        Path::new("check"),
        Path::new("config"),
        &dir.join("prometheus.yml"),
    ]);
    promtool(&[
        Path::new("check"),
        Path::new("rules"),
        &dir.join("alerts.yml"),
    ]);
    // The rules on made-up series for the states a real pokerd is not cheaply put in.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("alerts.yml"), rules_without_annotations()).unwrap();
    let unit = tmp.path().join("alerts_test.yml");
    std::fs::copy(dir.join("alerts_test.yml"), &unit).unwrap();
    promtool(&[Path::new("test"), Path::new("rules"), &unit]);

    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    let served = names(&scrape(&server.base).await.expect("/metrics answers"));
    server.stop().await;

    let dashboard: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("grafana/dashboards/room.json")).unwrap(),
    )
    .expect("the dashboard is JSON");
    let panels = dashboard["panels"].as_array().expect("panels");
    assert!(panels.len() >= 8, "the room's panels");
    for panel in panels {
        let targets = panel["targets"].as_array().expect("a panel's queries");
        assert!(!targets.is_empty(), "{}: a query", panel["title"]);
        for target in targets {
            let expr = target["expr"].as_str().expect("a PromQL expression");
            let asked = poker_names(expr);
            assert!(
                !asked.is_empty() || expr.contains("up{") || expr.contains("ALERTS{"),
                "{}: {expr} asks for a pokerd metric",
                panel["title"]
            );
            for name in asked {
                assert!(
                    served.contains(&name),
                    "{}: {name} is not served by /metrics",
                    panel["title"]
                );
            }
        }
    }
    let rules = std::fs::read_to_string(dir.join("alerts.yml")).unwrap();
    for name in poker_names(&rules) {
        assert!(served.contains(&name), "alerts.yml: {name} is not served");
    }
    // Every metric served is in the operator's list.
    let docs = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/operations.md"),
    )
    .unwrap();
    for name in &served {
        let base = name
            .strip_suffix("_bucket")
            .or_else(|| name.strip_suffix("_sum"))
            .or_else(|| name.strip_suffix("_count"))
            .unwrap_or(name);
        assert!(
            docs.contains(&format!("`{base}`")),
            "{base} is not in docs/operations.md"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn monitoring_no_alert_fires_on_a_healthy_room() {
    if !promtool_present() {
        return;
    }
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    let _clients = hand_in_progress(&server).await;
    // Seven minutes of samples: longer than any rule's `for:` and rate window.
    let healthy = scrapes(&server.base, 28).await;
    server.stop().await;
    let first = healthy[0].as_ref().expect("/metrics answers");
    assert_eq!(first["poker_tables"], "1");
    assert_eq!(first["poker_seated_players"], "2");
    assert_eq!(first["poker_nats_connected"], "1", "one node needs no NATS");
    run_rules(&healthy, &[(healthy.len() - 1, &[]), (8, &[])]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn monitoring_a_node_down_then_restarted_with_a_hand_voided_fires_its_alerts() {
    if !promtool_present() {
        return;
    }
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let url = guard.url();
    let mut server = Server::start(&url, &[]).await;
    let clients = hand_in_progress(&server).await;
    let mut timeline = scrapes(&server.base, 8).await;
    // Stopped with the hand in progress (past the grace period the hand is left cut):
    // the node is down, its scrapes fail.
    server.stop().await;
    drop(clients);
    let down = scrapes(&server.base, 8).await;
    assert!(
        down.iter().all(Option::is_none),
        "a stopped node answers nothing"
    );
    let down_at = timeline.len() + down.len() - 1;
    timeline.extend(down);
    // Restarted on the same database: the cut hand is voided on start.
    let mut server = Server::start(&url, &[]).await;
    let back = scrapes(&server.base, 8).await;
    server.stop().await;
    assert_eq!(
        back[0].as_ref().expect("/metrics answers")["poker_hands_voided_total"],
        "1"
    );
    timeline.extend(back);
    let end = timeline.len() - 1;
    run_rules(
        &timeline,
        &[
            (7, &[]),
            (down_at, &["PokerNodeDown"]),
            (end, &["PokerHandsVoided"]),
        ],
    );
}

/// A Debian package's program, if installed (`None`: the test is skipped, and fails in CI).
fn program(names: &[&str], package: &str) -> Option<String> {
    let found = names.iter().find(|name| {
        Command::new(name)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{} is missing in CI (.ci/setup installs Debian's {package} package)",
            names[0]
        );
        eprintln!("SKIPPED: no {} (Debian's {package} package)", names[0]);
    }
    found.map(|n| n.to_string())
}

/// A copy of one of config/monitoring's files with these replacements, each of which must
/// match as many times as said (so a change to the file that the test would silently miss
/// fails it).
fn adapted(file: &str, replacements: &[(&str, &str, usize)]) -> String {
    let mut text = std::fs::read_to_string(monitoring_dir().join(file)).unwrap();
    for (from, to, times) in replacements {
        assert_eq!(
            text.matches(from).count(),
            *times,
            "{file}: `{from}` {times} times"
        );
        text = text.replace(from, to);
    }
    text
}

/// The alerts Alertmanager holds (its API v2: labels, status, receivers), none while it
/// does not answer.
async fn alertmanager_alerts(base: &str) -> Vec<serde_json::Value> {
    let Ok(answer) = reqwest::Client::new()
        .get(format!("{base}/api/v2/alerts"))
        .timeout(Duration::from_secs(5))
        .send()
        .await
    else {
        return Vec::new();
    };
    answer.json().await.unwrap_or_default()
}

/// The `PokerNodeDown` alert Alertmanager holds for this instance, if any.
fn node_down<'a>(alerts: &'a [serde_json::Value], instance: &str) -> Option<&'a serde_json::Value> {
    alerts.iter().find(|a| {
        a["labels"]["alertname"] == "PokerNodeDown" && a["labels"]["instance"] == instance
    })
}

/// The shipped chain, end to end: Prometheus with config/monitoring's prometheus.yml and
/// alerts.yml scrapes a real pokerd, and sends what fires to Alertmanager running the
/// shipped alertmanager.yml (amtool accepts it). Only addresses and durations are changed
/// in the copies (targets on loopback ports, a second's scrape, evaluation and `for:`), so
/// the routing, the labels and the receivers are the room's own. The second node of
/// prometheus.yml is an address nobody answers: its `PokerNodeDown` reaches Alertmanager as
/// a page for the receiver `pages` with its node label, and inhibits that node's warnings
/// (a live node's go to `warnings`); Prometheus scrapes itself and Alertmanager; the live
/// node has no `PokerNodeDown` until it is stopped, then it has its own, and no alert about
/// delivery fires.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn monitoring_prometheus_sends_a_real_nodes_death_to_alertmanager_as_a_page() {
    use common::nats::{free_port, Proc};
    let (Some(prometheus), Some(alertmanager), Some(amtool)) = (
        program(&["prometheus"], "prometheus"),
        program(
            &["prometheus-alertmanager", "alertmanager"],
            "prometheus-alertmanager",
        ),
        program(&["amtool"], "prometheus-alertmanager"),
    ) else {
        return;
    };
    let shipped = monitoring_dir().join("alertmanager.yml");
    let out = Command::new(&amtool)
        .arg("check-config")
        .arg(&shipped)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "amtool check-config alertmanager.yml:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );

    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    let live = server.addr.to_string();
    // Nobody answers there: bound, read and let go.
    let dead = format!("127.0.0.1:{}", free_port());
    let (am_port, prom_port) = (free_port(), free_port());
    let am_base = format!("http://127.0.0.1:{am_port}");

    let tmp = tempfile::tempdir().unwrap();
    let am = Proc::spawn(
        "alertmanager",
        {
            let mut c = Command::new(&alertmanager);
            c.arg(format!("--config.file={}", shipped.display()))
                .arg(format!(
                    "--storage.path={}",
                    tmp.path().join("am").display()
                ))
                .arg(format!("--web.listen-address=127.0.0.1:{am_port}"))
                // Alone: no gossip port.
                .arg("--cluster.listen-address=");
            c
        },
        |_| {},
    )
    .unwrap();
    std::fs::write(
        tmp.path().join("prometheus.yml"),
        adapted(
            "prometheus.yml",
            &[
                ("scrape_interval: 15s", "scrape_interval: 1s", 1),
                ("evaluation_interval: 15s", "evaluation_interval: 1s", 1),
                // Where alerts go, and Alertmanager scraped.
                (
                    "\"alertmanager:9093\"",
                    &format!("\"127.0.0.1:{am_port}\""),
                    2,
                ),
                (
                    "\"localhost:9090\"",
                    &format!("\"127.0.0.1:{prom_port}\""),
                    1,
                ),
                ("\"pokerd:8080\"", &format!("\"{live}\""), 1),
                ("\"pokerd2:8080\"", &format!("\"{dead}\""), 1),
            ],
        ),
    )
    .unwrap();
    let rules = std::fs::read_to_string(monitoring_dir().join("alerts.yml")).unwrap();
    assert!(
        rules.contains("expr: up{job=\"pokerd\"} == 0\n        for: 1m\n"),
        "PokerNodeDown waits a minute"
    );
    std::fs::write(
        tmp.path().join("alerts.yml"),
        rules.replace("for: 1m", "for: 1s"),
    )
    .unwrap();
    let prom = Proc::spawn(
        "prometheus",
        {
            let mut c = Command::new(&prometheus);
            c.arg(format!(
                "--config.file={}",
                tmp.path().join("prometheus.yml").display()
            ))
            .arg(format!(
                "--storage.tsdb.path={}",
                tmp.path().join("tsdb").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{prom_port}"));
            c
        },
        |_| {},
    )
    .unwrap();

    // The dead node's page arrives; the live node has none.
    let deadline = std::time::Instant::now() + Duration::from_secs(90);
    let alerts = loop {
        let alerts = alertmanager_alerts(&am_base).await;
        if node_down(&alerts, &dead).is_some() {
            break alerts;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no PokerNodeDown for {dead} in Alertmanager within 90 s: {alerts:?}\n\
             --- prometheus:\n{}\n--- alertmanager:\n{}",
            prom.tail(),
            am.tail()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    let down = node_down(&alerts, &dead).unwrap();
    assert_eq!(down["labels"]["severity"], "page");
    assert_eq!(down["labels"]["node"], "pokerd-2");
    assert_eq!(down["labels"]["job"], "pokerd");
    assert_eq!(
        down["status"]["state"], "active",
        "not silenced nor inhibited"
    );
    assert_eq!(down["receivers"], json!([{ "name": "pages" }]));
    assert!(
        down["annotations"]["summary"]
            .as_str()
            .is_some_and(|s| s.contains(&dead)),
        "the summary names the node: {down}"
    );
    assert!(
        node_down(&alerts, &live).is_none(),
        "the live node is not down: {alerts:?}"
    );
    // A warning of each node: the dead node's is inhibited by its PokerNodeDown, the live
    // node's goes to `warnings`.
    let warning = |instance: &str| {
        json!({ "labels": { "alertname": "PokerHandsVoided", "severity": "warning",
                            "job": "pokerd", "instance": instance } })
    };
    let posted = reqwest::Client::new()
        .post(format!("{am_base}/api/v2/alerts"))
        .json(&json!([warning(&dead), warning(&live)]))
        .send()
        .await
        .unwrap();
    assert!(posted.status().is_success(), "{posted:?}");
    let voided = |alerts: &[serde_json::Value], instance: &str| -> Option<serde_json::Value> {
        alerts
            .iter()
            .find(|a| {
                a["labels"]["alertname"] == "PokerHandsVoided"
                    && a["labels"]["instance"] == instance
            })
            .cloned()
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let (quiet, heard) = loop {
        let alerts = alertmanager_alerts(&am_base).await;
        if let (Some(quiet), Some(heard)) = (voided(&alerts, &dead), voided(&alerts, &live)) {
            break (quiet, heard);
        }
        assert!(
            std::time::Instant::now() < deadline,
            "both warnings are held: {alerts:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(quiet["status"]["state"], "suppressed", "{quiet}");
    assert_eq!(
        quiet["status"]["inhibitedBy"],
        json!([down["fingerprint"].clone()]),
        "inhibited by the node's PokerNodeDown"
    );
    assert_eq!(heard["status"]["state"], "active", "{heard}");
    assert_eq!(heard["receivers"], json!([{ "name": "warnings" }]));

    // Prometheus scrapes itself and Alertmanager (the delivery alerts' metrics).
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let answer: serde_json::Value = reqwest::Client::new()
            .get(format!("http://127.0.0.1:{prom_port}/api/v1/query"))
            .query(&[("query", "up{job=~\"prometheus|alertmanager\"}")])
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let up: BTreeMap<String, String> = answer["data"]["result"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| {
                (
                    r["metric"]["job"].as_str().unwrap_or("").to_string(),
                    r["value"][1].as_str().unwrap_or("").to_string(),
                )
            })
            .collect();
        if up.get("prometheus").is_some_and(|v| v == "1")
            && up.get("alertmanager").is_some_and(|v| v == "1")
        {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "Prometheus scrapes itself and Alertmanager: {answer}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }

    // The live node stops: its own page follows.
    server.stop().await;
    let deadline = std::time::Instant::now() + Duration::from_secs(90);
    loop {
        let alerts = alertmanager_alerts(&am_base).await;
        if let Some(down) = node_down(&alerts, &live) {
            assert_eq!(down["labels"]["node"], "pokerd-1");
            assert_eq!(down["labels"]["severity"], "page");
            assert!(
                !alerts.iter().any(|a| a["labels"]["alertname"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("PokerAlert"))),
                "no delivery alert: {alerts:?}"
            );
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no PokerNodeDown for {live} within 90 s of its stop: {alerts:?}\n\
             --- prometheus:\n{}",
            prom.tail()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    drop(prom);
    drop(am);
}

/// Each service's published ports in docker-compose.yml (`  name:` under `services:`,
/// then its `ports:` list), as written.
fn compose_ports() -> BTreeMap<String, Vec<String>> {
    let compose = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docker-compose.yml"),
    )
    .unwrap();
    let mut ports: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let (mut in_services, mut service, mut in_ports) = (false, String::new(), false);
    for line in compose.lines() {
        if !line.starts_with(' ') && !line.trim().is_empty() {
            in_services = line == "services:";
            continue;
        }
        if !in_services || line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        if indent == 2 {
            service = line.trim().trim_end_matches(':').to_string();
            in_ports = false;
        } else if indent == 4 {
            in_ports = line.trim() == "ports:";
        } else if in_ports {
            if let Some(item) = line.trim().strip_prefix("- ") {
                ports
                    .entry(service.clone())
                    .or_default()
                    .push(item.trim_matches('"').to_string());
            }
        }
    }
    ports
}

/// Prometheus, Alertmanager (whose page silences alerts) and Grafana publish their ports
/// on the host's loopback only (docs/security.md): a player who reaches the host's public
/// address reaches none of them.
#[test]
fn monitoring_prometheus_alertmanager_and_grafana_listen_on_the_hosts_loopback_only() {
    let ports = compose_ports();
    assert_eq!(
        ports["pokerd"],
        ["8080:8080"],
        "the parse sees the nodes' ports"
    );
    for service in ["prometheus", "alertmanager", "grafana"] {
        let published = ports
            .get(service)
            .unwrap_or_else(|| panic!("{service} publishes a port"));
        for port in published {
            assert!(
                port.starts_with("127.0.0.1:"),
                "{service} publishes {port} beyond the host's loopback"
            );
        }
    }
}
