//! The browser client end to end: the real server on port 0, and `e2e/table.mjs` driving
//! Debian's Chromium through playwright-core (two players and a spectator in three
//! browser contexts). Needs `node` and `/usr/bin/chromium`; installs the one npm package
//! with `npm ci` when it is missing. Outside CI, a machine without Chromium skips it.

use crate::common;

use common::{assert_conserved, games, Db, DbGuard, Server};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Where the browser tests put their screenshots (`$SCREENSHOTS`, or
/// `target/e2e-screenshots/`), made if missing.
fn shots() -> PathBuf {
    let shots = std::env::var("SCREENSHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|_| repo().join("target/e2e-screenshots"));
    std::fs::create_dir_all(&shots).unwrap();
    shots
}

/// The room's books balance in `/admin/audit`'s answer: wallets, stacks and rake are what
/// was deposited less what was withdrawn.
fn assert_books_balance(audit: &serde_json::Value) {
    assert_eq!(
        audit["wallets"].as_i64().unwrap()
            + audit["stacks"].as_i64().unwrap()
            + audit["rake"].as_i64().unwrap(),
        audit["deposits"].as_i64().unwrap() - audit["withdrawals"].as_i64().unwrap(),
        "the books balance: {audit}"
    );
}

fn chromium() -> Option<String> {
    let path = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    Path::new(&path).exists().then_some(path)
}

/// Chromium and node, with the npm package installed; `None` (skip) outside CI.
fn browser_tools() -> Option<String> {
    let node = Command::new("node").arg("--version").output();
    let (Some(chromium), Ok(_)) = (chromium(), node) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run the browser test: install chromium and node"
        );
        eprintln!("SKIPPED: no /usr/bin/chromium or node");
        return None;
    };
    let e2e = repo().join("e2e");
    let installed = || {
        e2e.join("node_modules/playwright-core/package.json")
            .exists()
            && e2e.join("node_modules/axe-core/axe.min.js").exists()
    };
    if !installed() {
        // The browser tests run at once, each in its own process: one installs while the
        // others wait (`npm ci` empties node_modules first, so two at once break each other).
        let lock = e2e.join(".npm-ci.lock");
        let started = std::time::Instant::now();
        while std::fs::create_dir(&lock).is_err() {
            let stale = std::fs::metadata(&lock)
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|age| age.as_secs() > 300));
            if stale {
                let _ = std::fs::remove_dir(&lock);
            }
            assert!(
                started.elapsed().as_secs() < 600,
                "npm ci in e2e/ never finished"
            );
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
        if !installed() {
            let status = Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund"])
                .current_dir(&e2e)
                .status();
            let _ = std::fs::remove_dir(&lock);
            assert!(status.is_ok_and(|s| s.success()), "npm ci in e2e/");
        } else {
            let _ = std::fs::remove_dir(&lock);
        }
    }
    Some(chromium)
}

/// Runs one of `e2e/`'s scripts with node; it must succeed and print `ok_line`. Returns
/// what it printed.
async fn run_script(script: &str, env: &[(&str, String)], ok_line: &str) -> String {
    let output = tokio::process::Command::new("node")
        .arg(script)
        .current_dir(repo().join("e2e"))
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .await
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        output.status.success() && stdout.contains(ok_line),
        "the browser test {script} failed:\n{stdout}\n{stderr}"
    );
    stdout.into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_players_and_a_spectator_play_a_hand_in_chromium() {
    let Some(chromium) = browser_tools() else {
        return;
    };
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    for name in ["ann", "ben"] {
        server.player(name, 500).await;
    }
    server.player("sue", 0).await;
    // A long pause after the hand, so that the pages can be checked against the server.
    let clock = json!({ "action_ms": 60000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 600000 });
    let table_id = server.table(clock).await;
    let screenshot = std::env::temp_dir().join(format!("pokerd-e2e-{}.png", std::process::id()));
    run_script(
        "table.mjs",
        &[
            ("BASE", server.base.clone()),
            ("TABLE_ID", table_id.clone()),
            ("ADMIN_TOKEN", common::TOKEN.to_string()),
            ("CHROMIUM", chromium),
            ("SCREENSHOT", screenshot.display().to_string()),
        ],
        "e2e: ok",
    )
    .await;
    server.finish(1000).await;
}

/// A private game from "Create" to the first hand with two friends (`e2e/private.mjs`): the
/// host makes it in the page, two friends open the invite link in their own browsers and
/// choose a name (a play-money room makes their accounts), the host lets them in and
/// starts, and the hand is played to its end; the time it took is printed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_game_from_create_to_the_first_hand_with_two_friends_in_chromium() {
    let Some(chromium) = browser_tools() else {
        return;
    };
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let play = [
        ("POKER__ROOM__MONEY", "play"),
        ("POKER__ROOM__PRESETS", "false"),
        ("POKER__BOTS__FILL_TO", "3"),
    ];
    let mut server = Server::start(&guard.url(), &play).await;
    run_script(
        "private.mjs",
        &[("BASE", server.base.clone()), ("CHROMIUM", chromium)],
        "e2e private: ok",
    )
    .await;
    server.stop().await;
    let audit = server.audit().await;
    assert!(audit.holds(), "{audit:?}");
    assert_eq!(
        audit.stacks, 0,
        "the ended game cashed everyone out: {audit:?}"
    );
    assert_eq!(
        audit.deposits, 30_000,
        "three play-money accounts' grants (no house bot came): {audit:?}"
    );
    assert_conserved(&audit, 30_000);
}

/// A home game's week in compressed time (`e2e/home_week.mjs`, issue 37): the host makes a
/// dealer's choice game with bomb pots in the page, three friends join (one on a phone),
/// one loses her device, her seat is released, and she comes back on a new one under the
/// same name; bomb pots and both games are dealt; the host ends the game and everyone sees
/// the settle-up. Here: each net in it is that player's wallet's change (the ledger's, not
/// a second count), nets and rake sum to zero, and the room's audit holds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_home_game_plays_a_week_with_bomb_pots_dealers_choice_and_a_friend_back_on_a_new_device_in_chromium(
) {
    let Some(chromium) = browser_tools() else {
        return;
    };
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    // Twelve room hours a second: the test's half minute is more than a week of the
    // room, and a seat is kept a room day (2 s) once its player is away.
    let scale = "43200";
    let play = [
        ("POKER__ROOM__MONEY", "play"),
        ("POKER__ROOM__PRESETS", "false"),
        ("POKER__BOTS__FILL_TO", "0"),
        ("POKER__ROOM__CLOCK_SCALE", scale),
        ("POKER__ROOM__SEAT_KEEP_SECS", "86400"),
    ];
    let mut server = Server::start(&guard.url(), &play).await;
    let shots = shots();
    let out = run_script(
        "home_week.mjs",
        &[
            ("BASE", server.base.clone()),
            ("SCALE", scale.to_string()),
            ("CHROMIUM", chromium),
            ("SHOTS", shots.display().to_string()),
        ],
        "e2e home week: ok",
    )
    .await;
    let report: serde_json::Value = out
        .lines()
        .rev()
        .find_map(|l| {
            serde_json::from_str(l)
                .ok()
                .filter(|v: &serde_json::Value| v.get("ledger").is_some())
        })
        .expect("the script's report");
    let ledger = &report["ledger"];
    let lines = ledger["lines"].as_array().unwrap();
    let grant = 10_000;
    let mut nets = 0;
    for line in lines {
        let net = line["net"].as_i64().unwrap();
        nets += net;
        let player = server
            .get_json(&format!(
                "/admin/players/{}",
                line["player_id"].as_str().unwrap()
            ))
            .await;
        assert_eq!(player["balance"], json!(grant + net), "{line}: {player}");
    }
    assert_eq!(nets + ledger["rake"].as_i64().unwrap(), 0, "{ledger}");
    server.stop().await;
    let audit = server.audit().await;
    assert!(audit.holds(), "{audit:?}");
    assert_eq!(
        audit.stacks, 0,
        "the ended game cashed everyone out: {audit:?}"
    );
    assert_conserved(&audit, 4 * grant);
}

/// Cross-site scripting and cross-site requests, attacked through the pages
/// (`e2e/hostile.mjs`): players named in HTML chat HTML and script at a table, watched by a
/// spectator and listed in the console, and nothing of it runs; a page of another origin
/// can neither open the WebSocket, nor read the players' or the admin API's answers, nor
/// make anything with a form-style POST.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_names_and_chat_never_run_and_foreign_pages_cannot_use_the_server_in_chromium() {
    let Some(chromium) = browser_tools() else {
        return;
    };
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    let name_a = "<img src=x onerror=__xss=1>";
    let name_b = "\"><b>bold</b>";
    server.player(name_a, 500).await;
    server.player(name_b, 500).await;
    server.player("sue", 0).await;
    let clock = json!({ "action_ms": 60000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 600000 });
    let table_id = server.table(clock).await;
    run_script(
        "hostile.mjs",
        &[
            ("BASE", server.base.clone()),
            ("TABLE_ID", table_id.clone()),
            ("ADMIN_TOKEN", common::TOKEN.to_string()),
            ("CHROMIUM", chromium),
            ("NAME_A", name_a.to_string()),
            ("NAME_B", name_b.to_string()),
        ],
        "e2e hostile: ok",
    )
    .await;
    server.finish(1000).await;
}

/// Hold'em (9 seats), fixed-limit stud (7 seats) and fixed-limit 2-7 triple draw (6
/// seats): three players at every table at once (tabs) and a spectator, on desktops and
/// phones, with layout checks and screenshots of each family at both sizes
/// (`target/e2e-screenshots/`, or `$SCREENSHOTS`); and a full heads-up table's waiting
/// list through the page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_game_family_with_three_players_and_a_spectator_in_chromium() {
    let Some(chromium) = browser_tools() else {
        return;
    };
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    for name in ["ann", "ben", "cat"] {
        server.player(name, 1000).await;
    }
    server.player("sue", 0).await;
    let clock = json!({ "action_ms": 120000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 1500 });
    let mut holdem = games::base("holdem", "no_limit", json!({ "min_bet": 2 }), 9);
    holdem["rathole_secs"] = json!(0);
    holdem["straddle"] = json!(true);
    let tables = [
        ("board", "NL Hold'em 9-max", holdem),
        ("stud", "FL Stud 4/8", games::stud("stud", 7)),
        (
            "draw",
            "FL 2-7 Triple Draw",
            games::base(
                "deuce_to_seven_triple_draw",
                "fixed_limit",
                json!({ "small_bet": 2, "big_bet": 4 }),
                6,
            ),
        ),
    ];
    let mut list = Vec::new();
    for (family, name, rules) in tables {
        let sent = json!({ "name": name, "rules": rules, "clock": clock, "rabbit_hunt": family == "board" });
        let t = server.posted("/admin/tables", sent, 201).await;
        list.push(json!({ "id": t["table_id"], "family": family, "name": name }));
    }
    let mut heads_up = games::base("holdem", "no_limit", json!({ "min_bet": 2 }), 2);
    heads_up["rathole_secs"] = json!(0);
    let sent =
        json!({ "name": "Heads-up", "rules": heads_up, "clock": clock, "rabbit_hunt": true });
    let hu = server.posted("/admin/tables", sent, 201).await;
    let shots = shots();
    run_script(
        "games.mjs",
        &[
            ("BASE", server.base.clone()),
            ("TABLES", serde_json::to_string(&list).unwrap()),
            ("HEADS_UP", hu["table_id"].as_str().unwrap().to_string()),
            ("CHROMIUM", chromium),
            ("SHOTS", shots.display().to_string()),
        ],
        "e2e games: ok",
    )
    .await;
    server.finish(3000).await;
}

/// A `pokerd` started from nothing in `dir`, as the README's run command starts it: no
/// settings at all but a free port (and a short shutdown grace, so that stopping it with
/// a browser gone mid-hand does not wait for the clock). Returns the process, its address, and every line it
/// printed on standard output (the banner) and standard error (the log), as they come.
struct Pokerd {
    child: std::process::Child,
    base: String,
    stdout: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    stderr: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

fn fresh_pokerd(dir: &Path) -> Pokerd {
    use std::io::BufRead;
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_pokerd"));
    for (key, _) in std::env::vars() {
        if key.starts_with("POKER__") || key == "DATABASE_URL" || key == "POKER_CONFIG" {
            command.env_remove(key);
        }
    }
    let mut child = command
        .current_dir(dir)
        .env("POKER__SERVER__ADDR", "127.0.0.1:0")
        .env("POKER__SERVER__SHUTDOWN_GRACE_MS", "1000")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("pokerd starts");
    let stdout = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let stderr = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let (tx, rx) = std::sync::mpsc::channel();
    let out = child.stdout.take().unwrap();
    let lines = stdout.clone();
    std::thread::spawn(move || {
        // The banner ends with the console's line: the base is sent once it is all in.
        let mut base = None;
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            if let Some(rest) = line.trim().strip_prefix("Play:") {
                base = Some(rest.trim().trim_end_matches('/').to_string());
            }
            let last = line.trim().starts_with("Console:");
            lines.lock().unwrap().push(line);
            if last {
                if let Some(b) = base.take() {
                    let _ = tx.send(b);
                }
            }
        }
    });
    let err = child.stderr.take().unwrap();
    let lines = stderr.clone();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(err).lines().map_while(Result::ok) {
            lines.lock().unwrap().push(line);
        }
    });
    let base = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("pokerd prints where to play");
    Pokerd {
        child,
        base,
        stdout,
        stderr,
    }
}

impl Pokerd {
    /// SIGTERM, then wait for the exit.
    fn stop(mut self) -> (Vec<String>, Vec<String>) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let status = self.child.wait().unwrap();
        assert!(status.success(), "pokerd stops cleanly: {status:?}");
        let out = self.stdout.lock().unwrap().clone();
        let err = self.stderr.lock().unwrap().clone();
        (out, err)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newcomer_plays_a_hand_against_house_bots_from_a_fresh_start_in_chromium() {
    let Some(chromium) = browser_tools() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let pokerd = fresh_pokerd(dir.path());
    let up_ms = started.elapsed().as_millis();
    let banner = pokerd.stdout.lock().unwrap().join("\n");
    println!("pokerd up in {up_ms} ms:\n{banner}");
    // The token made on this first start is printed once and saved for its owner only.
    let token_file = dir.path().join("data/admin-token");
    let token = std::fs::read_to_string(&token_file)
        .expect("the admin token is saved")
        .trim()
        .to_string();
    assert!(
        banner.contains(&token),
        "the first start shows the token: {banner}"
    );
    assert!(
        banner.contains("/admin"),
        "and where the console is: {banner}"
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&token_file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the token file is its owner's only");

    let shots = shots();
    run_script(
        "first_run.mjs",
        &[
            ("BASE", pokerd.base.clone()),
            ("CHROMIUM", chromium),
            ("SHOTS", shots.display().to_string()),
        ],
        "first run: ok",
    )
    .await;
    let (_, log) = pokerd.stop();
    assert!(
        !log.iter().any(|l| l.contains(&token)),
        "the token never reaches the log"
    );

    // A second start reads the saved token: it is not shown again, and the room keeps
    // its tables (no second set of presets).
    let again = fresh_pokerd(dir.path());
    let banner = again.stdout.lock().unwrap().join("\n");
    assert!(
        !banner.contains(&token),
        "shown only on the first start: {banner}"
    );
    assert!(banner.contains("admin-token"), "{banner}");
    let get = |path: &str| {
        let request = reqwest::Client::new()
            .get(format!("{}{path}", again.base))
            .bearer_auth(&token);
        async move {
            let r = request.send().await.unwrap();
            r.json::<serde_json::Value>().await.unwrap()
        }
    };
    let tables = get("/admin/tables").await;
    assert_eq!(tables.as_array().map(Vec::len), Some(4), "{tables}");
    let audit = get("/admin/audit").await;
    assert_books_balance(&audit);
    again.stop();
}

/// Issue 37 items 1 and 7 (`e2e/layout.mjs`): on every turn measured, the player's own
/// cards and action buttons are all on the screen and uncovered (where a click lands),
/// and the cards at least 20x28 px with their faces inside them, at 390x844, 768x1024,
/// 1366x768 and 1920x1080, in each game family, in public games, as a private game's host
/// and friend, and tiled two, three and four to a window; a fresh play-money room (its
/// preset tables and house bots), whose books balance afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn own_cards_and_action_buttons_are_uncovered_on_every_turn_at_four_sizes_in_chromium() {
    let Some(chromium) = browser_tools() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let pokerd = fresh_pokerd(dir.path());
    let token = std::fs::read_to_string(dir.path().join("data/admin-token"))
        .expect("the admin token is saved")
        .trim()
        .to_string();
    let shots = shots();
    run_script(
        "layout.mjs",
        &[
            ("BASE", pokerd.base.clone()),
            ("CHROMIUM", chromium),
            ("SHOTS", shots.display().to_string()),
        ],
        "e2e layout: ok",
    )
    .await;
    let audit: serde_json::Value = reqwest::Client::new()
        .get(format!("{}/admin/audit", pokerd.base))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_books_balance(&audit);
    pokerd.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operators_console_runs_the_room_through_the_page_in_chromium() {
    let Some(chromium) = browser_tools() else {
        return;
    };
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    // Ann and Ben play from one address: the table seats them and flags the pair.
    let mut server = Server::start(
        &guard.url(),
        &[("POKER__ROOM__SAME_ADDRESS_SEATING", "flag")],
    )
    .await;
    for name in ["ann", "ben"] {
        server.player(name, 500).await;
    }
    // A table where two hands were played, for the console's hand search and fair play.
    let clock =
        json!({ "action_ms": 5000, "warning_ms": 0, "time_bank_ms": 0, "between_hands_ms": 0 });
    let table_id = server.table(clock).await;
    let mut clients = Vec::new();
    for (seat, name) in ["ann", "ben"].iter().enumerate() {
        let mut c = server.client(name).await;
        c.send(&common::sit(&table_id, seat as u32, 100)).await;
        clients.push(c);
    }
    common::play(&mut clients, &table_id, 2, |_, _, legal| {
        common::simple_action(legal, false)
    })
    .await;
    for c in clients.iter_mut() {
        c.send(&poker_protocol::ClientMsg::Leave {
            table_id: common::tid(&table_id),
        })
        .await;
    }
    let shots = shots();
    run_script(
        "console.mjs",
        &[
            ("BASE", server.base.clone()),
            ("ADMIN_TOKEN", common::TOKEN.to_string()),
            ("HANDS_TABLE", table_id.clone()),
            ("CHROMIUM", chromium),
            ("SHOTS", shots.display().to_string()),
        ],
        "console: ok",
    )
    .await;
    server.stop().await;
    // Deposited: 500 each, and the console's 250 to ann.
    assert_conserved(&server.audit().await, 1250);
}

/// The console as a card-room manager uses it (`e2e/console_manager.mjs`), at 1366x768
/// and on a tablet both ways: a table made with the form (a rule refused on its field
/// before sending, a name the server refuses on the name field, then the table), a
/// deposit the lists show at once, the audit log in words with names; axe-core and no
/// sideways scrolling on every page at every size, touch-sized controls on the tablet.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_room_manager_runs_the_console_on_a_laptop_and_a_tablet_in_chromium() {
    let Some(chromium) = browser_tools() else {
        return;
    };
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    server.player("ann", 500).await;
    let shots = shots();
    run_script(
        "console_manager.mjs",
        &[
            ("BASE", server.base.clone()),
            ("ADMIN_TOKEN", common::TOKEN.to_string()),
            ("PLAYER", "ann".to_string()),
            ("CHROMIUM", chromium),
            ("SHOTS", shots.display().to_string()),
        ],
        "console manager: ok",
    )
    .await;
    server.stop().await;
    // Ann's 500, and the console's deposit of 1,000 at each of the three sizes.
    assert_conserved(&server.audit().await, 3500);
}

/// Issue 26's features in the page (`e2e/features.mjs`): after three hands played over
/// WebSockets, the lobby's stats, filters and sorting, the light theme (remembered), the
/// history download by date, player notes on a seat, the chat's emoji and a spectator's
/// chat, and chips that slide to the pot and to the winner; axe-core and the overflow
/// check in both themes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lobby_filters_stats_download_notes_theme_emoji_and_moving_chips_in_chromium() {
    let Some(chromium) = browser_tools() else {
        return;
    };
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    for name in ["ann", "ben"] {
        server.player(name, 2000).await;
    }
    server.player("sue", 0).await;
    let clock = json!({ "action_ms": 60000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 1500 });
    let high = common::nl_5_10();
    let mut ids = Vec::new();
    for (name, rules) in [("Low", common::nl_rules()), ("High", high)] {
        let sent = json!({ "name": name, "rules": rules, "clock": clock });
        let t = server.posted("/admin/tables", sent, 201).await;
        ids.push(t["table_id"].as_str().unwrap().to_string());
    }
    // Three hands at Low over WebSockets, then both leave: the stats and the download.
    let mut clients = vec![server.client("ann").await, server.client("ben").await];
    for (seat, c) in clients.iter_mut().enumerate() {
        c.sat(&ids[0], seat as u32, 100).await;
    }
    common::play(&mut clients, &ids[0], 3, |_, _, legal| {
        common::simple_action(legal, false)
    })
    .await;
    for c in clients.iter_mut() {
        c.send(&poker_protocol::ClientMsg::Leave {
            table_id: common::tid(&ids[0]),
        })
        .await;
    }
    drop(clients);
    let shots = shots();
    run_script(
        "features.mjs",
        &[
            ("BASE", server.base.clone()),
            ("LOW", ids[0].clone()),
            ("HIGH", ids[1].clone()),
            ("ADMIN_TOKEN", common::TOKEN.to_string()),
            ("CHROMIUM", chromium),
            ("SHOTS", shots.display().to_string()),
        ],
        "features: ok",
    )
    .await;
    server.finish(4000).await;
}
