//! `pokerd backup PATH`: an online copy of the embedded SQLite database, taken from a
//! real `pokerd` process while its tables play, restores into a fresh `pokerd`: the hands
//! in flight in the copy are void with their stacks as they began, the books balance,
//! hand numbers go on without reuse, and players reconnect and play on. And the
//! refusals: a path that exists, a PostgreSQL database, a database that cannot be opened.
//! The same with PostgreSQL's own tools: `pg_dump` mid-play, `pg_restore` into a fresh
//! cluster.

use crate::common;

use common::pokerd::{run, serve};
use common::{assert_conserved, play, sit, Client, Server};
use poker_protocol::ServerMsg;
use poker_rules::Action;
use poker_store::testing::{TestPostgres, TestSqlite};
use poker_store::{HandStatus, SqlStore, TableId};
use serde_json::json;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The file a test database's URL names.
fn file_of(url: &str) -> PathBuf {
    PathBuf::from(url.trim_start_matches("sqlite://"))
}

/// Check or call, and bet the minimum when nobody has: pots grow, nobody busts.
fn min_bets(legal: &poker_rules::LegalActions) -> Action {
    match legal.bet_or_raise {
        Some((min, _)) if legal.call.is_none() => Action::BetOrRaiseTo { to: min },
        _ => common::simple_action(legal, false),
    }
}

/// Reads every client's messages until one of them is asked to act and has not: the
/// hand is dealt (its start durable) and waits for that player.
async fn until_a_decision_waits(clients: &mut [Client]) {
    for _ in 0..2000 {
        for c in clients.iter_mut() {
            if c.last_decide
                .is_some_and(|(id, _)| !c.answered.contains(&id))
            {
                return;
            }
            let _ = c.try_recv(Duration::from_millis(5)).await;
        }
    }
    panic!("no decision waits at the table");
}

/// The hand a freshly authenticated player finds at its table (the table deals as it
/// opens): its number, and its seats with the stacks they began with.
async fn first_hand_seen(client: &mut Client) -> (u64, Vec<(u32, u64)>) {
    client
        .until(|m| match m {
            ServerMsg::Snapshot { hand: Some(h), .. } => {
                let mut stacks: Vec<(u32, u64)> = h
                    .seats
                    .iter()
                    .copied()
                    .zip(h.starting_stacks.iter().copied())
                    .collect();
                stacks.sort();
                Some((h.hand_number, stacks))
            }
            _ => None,
        })
        .await
}

/// What a database holds of some tables: each table's hands by number (status), and its
/// seats (seat, player, stack).
#[derive(Debug, PartialEq)]
struct Tables {
    hands: BTreeMap<TableId, Vec<(u64, HandStatus, poker_store::HandId)>>,
    seats: BTreeMap<TableId, Vec<(u32, poker_store::PlayerId, u64)>>,
}

async fn tables_in(store: &SqlStore, tables: &[TableId]) -> Tables {
    let mut out = Tables {
        hands: BTreeMap::new(),
        seats: BTreeMap::new(),
    };
    for &t in tables {
        let mut hands: Vec<_> = store
            .table_hands(t, 10_000, 0)
            .await
            .unwrap()
            .into_iter()
            .map(|h| (h.number, h.status, h.hand_id))
            .collect();
        hands.sort_by_key(|h| h.0);
        out.hands.insert(t, hands);
        let seats = store
            .seats(t)
            .await
            .unwrap()
            .into_iter()
            .map(|s| (s.seat_no, s.player_id, s.stack))
            .collect();
        out.seats.insert(t, seats);
    }
    out
}

/// Every hand number of each table appears once, in one hand.
fn assert_numbers_unique(tables: &Tables) {
    for (t, hands) in &tables.hands {
        let numbers: HashSet<u64> = hands.iter().map(|h| h.0).collect();
        assert_eq!(
            numbers.len(),
            hands.len(),
            "table {t}: a hand number is reused"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_while_hands_are_in_flight_restores_into_a_pokerd_that_voids_them_and_plays_on(
) {
    let db = TestSqlite::new();
    let folder = file_of(&db.url).parent().unwrap().to_path_buf();
    let copy = folder.join("backup.db");
    let take = async |url: &str| {
        let backup = run(url, &["backup", copy.to_str().unwrap()]).await;
        assert_eq!(backup.code, Some(0), "{backup:?}");
        backup.stdout
    };
    let restore = async || {
        let inspected = folder.join("inspected.db");
        std::fs::copy(&copy, &inspected).unwrap();
        Restored {
            inspect: format!("sqlite://{}", inspected.display()),
            restore: format!("sqlite://{}", copy.display()),
            _keep: Box::new(()),
        }
    };
    a_copy_taken_mid_play_restores_into_a_pokerd_that_voids_hands_in_flight(&db.url, take, restore)
        .await;
}

/// Issue 38 item 3, the PostgreSQL way (docs/operations.md): `pg_dump` of the database
/// while hands are in flight, `pg_restore` into a fresh cluster, and a fresh `pokerd` on
/// it voids the hands in flight, balances its books and plays on.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_pg_dump_taken_while_hands_are_in_flight_restores_into_a_fresh_cluster_that_voids_them_and_plays_on(
) {
    let Some(original) = TestPostgres::start_or_skip("pg_dump restore").await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("poker.dump");
    let program = |name: &str| {
        poker_store::testing::find_binary(name).unwrap_or_else(|| panic!("{name} is installed"))
    };
    let take = async |url: &str| {
        let out = std::process::Command::new(program("pg_dump"))
            .args(["--format=custom", "--no-owner", "--file"])
            .arg(&dump)
            .args(["--dbname", url])
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "pg_dump: {said}");
        said
    };
    let restore = async || {
        // A fresh cluster, as after losing the database server: two databases restored
        // from the dump, one to look at and one for the new pokerd.
        let fresh = TestPostgres::start(false).await.expect("a fresh cluster");
        let base = fresh.url.rsplit_once('/').unwrap().0.to_string();
        let mut urls = Vec::new();
        for name in ["inspected", "restored"] {
            let out = std::process::Command::new(program("psql"))
                .args([
                    "--dbname",
                    &fresh.url,
                    "-c",
                    &format!("create database {name}"),
                ])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let url = format!("{base}/{name}");
            let out = std::process::Command::new(program("pg_restore"))
                .args(["--no-owner", "--exit-on-error", "--dbname", &url])
                .arg(&dump)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "pg_restore: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            urls.push(url);
        }
        let restore = urls.pop().unwrap();
        Restored {
            inspect: urls.pop().unwrap(),
            restore,
            _keep: Box::new(fresh),
        }
    };
    a_copy_taken_mid_play_restores_into_a_pokerd_that_voids_hands_in_flight(
        &original.url,
        take,
        restore,
    )
    .await;
}

/// A copy of the database made ready to use: a URL to look at it through and a URL for
/// the restored pokerd (two copies of the same), and what must live as long as they do.
struct Restored {
    /// The copy only looked at.
    inspect: String,
    /// The copy a fresh pokerd runs on.
    restore: String,
    /// The cluster the copies are in, if any.
    _keep: Box<dyn std::any::Any>,
}

/// A pokerd on `url` plays at two tables; `take` copies the database while a hand waits
/// at one and the other plays on (what it said is returned); the original goes on past
/// the copy (hands and a deposit the copy never sees) and stops; `restore` makes the copy
/// ready. The copy as written has its hands in flight and balanced books; a fresh pokerd
/// on it voids them (stacks as the hands began), hand numbers go on without reuse, the
/// players come back and play on at both tables, and the books balance.
async fn a_copy_taken_mid_play_restores_into_a_pokerd_that_voids_hands_in_flight(
    url: &str,
    take: impl AsyncFnOnce(&str) -> String,
    restore: impl AsyncFnOnce() -> Restored,
) {
    let (original, addr) = serve("the original pokerd", url).await;
    let server = Server::external(addr, url);
    let names = ["ann", "ben", "cat", "dan"];
    for name in names {
        server.player(name, 1000).await;
    }
    let deposited = 4000;
    // A long clock: a hand waits for its players, never for the clock.
    let clock = json!({ "action_ms": 60000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    let held = server.table(clock.clone()).await;
    let busy = server.table(clock).await;
    let mut held_clients = Vec::new();
    let mut busy_clients = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let mut c = server.client(name).await;
        let (table, seat) = if i < 2 { (&held, i) } else { (&busy, i - 2) };
        c.send(&sit(table, seat as u32, 150)).await;
        if i < 2 {
            held_clients.push(c);
        } else {
            busy_clients.push(c);
        }
    }

    // One table plays three hands and then holds its fourth: a hand in flight for sure.
    play(&mut held_clients, &held, 3, |_, _, legal| min_bets(legal)).await;
    until_a_decision_waits(&mut held_clients).await;
    // The other plays on, hand after hand, while the backup is taken and after.
    let stop = Arc::new(AtomicBool::new(false));
    let played = Arc::new(AtomicUsize::new(0));
    let busy_play = {
        let (stop, played, busy) = (stop.clone(), played.clone(), busy.clone());
        tokio::spawn(async move {
            while !stop.load(Ordering::SeqCst) {
                let stats = play(&mut busy_clients, &busy, 1, |_, _, legal| min_bets(legal)).await;
                played.fetch_add(stats.hands_ended, Ordering::SeqCst);
            }
            busy_clients
        })
    };
    while played.load(Ordering::SeqCst) < 3 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    let said = take(url).await;
    eprintln!("{}", said.trim());
    let at_backup = played.load(Ordering::SeqCst);

    // The original goes on past the copy (hands and a deposit the copy never sees),
    // then stops.
    while played.load(Ordering::SeqCst) < at_backup + 3 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let (status, _) = server
        .post(
            &format!(
                "/admin/players/{}/deposit",
                held_clients[0].player_id.unwrap()
            ),
            json!({ "amount": 500 }),
        )
        .await;
    assert_eq!(status, 200);
    stop.store(true, Ordering::SeqCst);
    drop(busy_play.await.unwrap());
    drop(held_clients);
    drop(original);

    // The copy as written: the held hand (and any other) in flight, the books balanced.
    let tables: Vec<TableId> = [&held, &busy].map(|t| t.parse().unwrap()).to_vec();
    let copies = restore().await;
    let store = SqlStore::connect(&copies.inspect).await.unwrap();
    let before = tables_in(&store, &tables).await;
    assert_conserved(&store.audit().await.unwrap(), deposited);
    store.close().await;
    let in_flight: Vec<_> = before
        .hands
        .values()
        .flatten()
        .filter(|h| h.1 == HandStatus::Started)
        .map(|h| h.2)
        .collect();
    let held_hands = &before.hands[&tables[0]];
    assert_eq!(held_hands.len(), 4, "three hands played and one held");
    assert_eq!(
        held_hands[3].1,
        HandStatus::Started,
        "the held hand is in flight"
    );
    assert!(
        url.starts_with("postgres") || said.contains(&format!("{} in flight", in_flight.len())),
        "pokerd backup counts the hands in flight: {said}"
    );
    assert_numbers_unique(&before);

    // A fresh pokerd on the copy: every hand in flight is void, every stack as its hand
    // began (the copy's seats), the books balanced on what the copy had deposited.
    let restored_url = copies.restore.clone();
    let (restored, addr) = serve("the restored pokerd", &restored_url).await;
    let server = Server::external(addr, &restored_url);
    let store = SqlStore::connect(&restored_url).await.unwrap();
    let after = tables_in(&store, &tables).await;
    assert_eq!(
        after.seats, before.seats,
        "stacks are as the cut hands began"
    );
    for id in &in_flight {
        assert_eq!(store.hand(*id).await.unwrap().status, HandStatus::Void);
    }
    assert_conserved(&store.audit().await.unwrap(), deposited);

    // The players come back (log in, authenticate, get their table), the next hands
    // take new numbers, and play goes on at both tables.
    let mut clients = Vec::new();
    for name in names {
        clients.push(server.client(name).await);
    }
    let mut busy_clients = clients.split_off(2);
    let mut held_clients = clients;
    for (t, group) in [(0, &mut held_clients), (1, &mut busy_clients)] {
        let last = before.hands[&tables[t]].last().unwrap().0;
        let copied: Vec<(u32, u64)> = before.seats[&tables[t]]
            .iter()
            .map(|&(seat, _, stack)| (seat, stack))
            .collect();
        for c in group.iter_mut() {
            let (first, stacks) = first_hand_seen(c).await;
            assert!(
                first > last,
                "{}: hand {first} after the copy's last {last}",
                c.name
            );
            assert_eq!(stacks, copied, "{}: dealt from the copy's stacks", c.name);
        }
    }
    let held_stats = play(&mut held_clients, &held, 3, |_, _, legal| min_bets(legal)).await;
    let busy_stats = play(&mut busy_clients, &busy, 3, |_, _, legal| min_bets(legal)).await;
    assert!(held_stats.hands_ended >= 3 && busy_stats.hands_ended >= 3);
    drop(restored);

    let end = tables_in(&store, &tables).await;
    assert_numbers_unique(&end);
    for t in &tables {
        let restored_hands = &end.hands[t][before.hands[t].len()..];
        let complete = restored_hands
            .iter()
            .filter(|h| h.1 == HandStatus::Complete)
            .count();
        assert!(complete >= 3, "table {t} played on: {restored_hands:?}");
        assert_eq!(
            &end.hands[t][..before.hands[t].len()]
                .iter()
                .map(|h| h.0)
                .collect::<Vec<_>>(),
            &before.hands[t].iter().map(|h| h.0).collect::<Vec<_>>(),
            "the copy's hands are kept"
        );
    }
    assert_conserved(&store.audit().await.unwrap(), deposited);
    store.close().await;
}

/// A `pokerd backup` that must be refused: the exit code and what it said.
async fn refused(url: &str, path: &Path) -> String {
    let ran = run(url, &["backup", path.to_str().unwrap()]).await;
    assert_eq!(ran.code, Some(1), "{ran:?}");
    assert!(ran.stdout.is_empty(), "{ran:?}");
    ran.stderr
}

/// The files in a folder.
fn files(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn a_backup_never_overwrites_a_file_that_exists() {
    let db = TestSqlite::new();
    SqlStore::connect(&db.url).await.unwrap().close().await;
    let folder = file_of(&db.url).parent().unwrap().to_path_buf();
    let target = folder.join("yesterday.db");
    std::fs::write(&target, "yesterday's backup").unwrap();
    let said = refused(&db.url, &target).await;
    assert!(said.contains("exists"), "{said}");
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "yesterday's backup"
    );
    assert!(
        !files(&folder).iter().any(|f| f.contains("partial")),
        "nothing left behind: {:?}",
        files(&folder)
    );
    // The same command to a new name succeeds, and the copy opens as a pokerd database.
    let fresh = folder.join("today.db");
    let ran = run(&db.url, &["backup", fresh.to_str().unwrap()]).await;
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert!(
        ran.stdout.contains("0 complete hands, 0 in flight"),
        "{ran:?}"
    );
    let store = SqlStore::connect(&format!("sqlite://{}", fresh.display()))
        .await
        .unwrap();
    assert!(store.audit().await.unwrap().holds());
    store.close().await;
}

#[tokio::test]
async fn a_backup_of_a_postgres_database_is_refused_with_the_postgres_way() {
    let folder = TestSqlite::new();
    let target = file_of(&folder.url).with_file_name("copy.db");
    // Never connected to: the scheme is enough, and the password is never repeated.
    let said = refused("postgres://poker:s3cret@127.0.0.1:1/poker", &target).await;
    assert!(said.contains("PostgreSQL"), "{said}");
    assert!(
        said.contains("pg_dump") && said.contains("pg_basebackup"),
        "{said}"
    );
    assert!(!said.contains("s3cret"), "{said}");
    assert!(!target.exists());
}

#[tokio::test]
async fn a_backup_of_a_database_that_cannot_be_opened_is_refused_and_creates_nothing() {
    let db = TestSqlite::new();
    let folder = file_of(&db.url).parent().unwrap().to_path_buf();
    std::fs::create_dir_all(&folder).unwrap();
    let target = folder.join("copy.db");
    // No such file: it is not created (a mistyped path must not become an empty room).
    let said = refused(&db.url, &target).await;
    assert!(said.contains("cannot open the database"), "{said}");
    assert!(said.contains("no such file"), "{said}");
    assert!(files(&folder).is_empty(), "{:?}", files(&folder));
    // A file that is not a database.
    std::fs::write(file_of(&db.url), "not a database at all").unwrap();
    let said = refused(&db.url, &target).await;
    assert!(said.contains("cannot open the database"), "{said}");
    assert_eq!(files(&folder), ["poker.db"]);
    // An unknown scheme.
    let said = refused("mysql://poker@127.0.0.1/poker", &target).await;
    assert!(said.contains("unsupported database URL scheme"), "{said}");
    assert!(!target.exists());
}

#[tokio::test]
async fn a_backup_into_a_folder_that_does_not_exist_is_refused_and_leaves_nothing() {
    let db = TestSqlite::new();
    SqlStore::connect(&db.url).await.unwrap().close().await;
    let folder = file_of(&db.url).parent().unwrap().to_path_buf();
    let target = folder.join("no-such-folder").join("copy.db");
    let said = refused(&db.url, &target).await;
    assert!(said.contains("cannot write the backup"), "{said}");
    assert!(!folder.join("no-such-folder").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_backup_endpoint_copies_into_the_configured_folder_for_admins_only_and_is_audited() {
    let db = TestSqlite::new();
    let folder = file_of(&db.url).with_file_name("backups");
    let folder_setting = folder.to_str().unwrap();
    let mut server =
        Server::start(&db.url, &[("POKER__DATABASE__BACKUP_DIR", folder_setting)]).await;
    server.player("ann", 700).await;
    let token = Some(common::TOKEN);

    // Nobody without a token; no staff role but admin.
    let (status, _) = server.call("POST", "/admin/backup", None, None).await;
    assert_eq!(status, 401);
    for role in ["floor", "cashier"] {
        let name = format!("{role}-one");
        let (_, staff_token) = server.staff(&name, role).await;
        let staff_token = staff_token.as_str();
        let (status, body) = server
            .call("POST", "/admin/backup", Some(staff_token), None)
            .await;
        assert_eq!(status, 403, "a {role} may not copy the database: {body}");
    }
    assert!(!folder.exists(), "nothing was written");

    // An admin: a copy in the folder, named by the server, that opens as the room.
    let (status, made) = server.call("POST", "/admin/backup", token, None).await;
    assert_eq!(status, 201, "{made}");
    let path = PathBuf::from(made["path"].as_str().unwrap());
    assert_eq!(path.parent().unwrap(), folder);
    assert_eq!(
        std::fs::metadata(&path).unwrap().len(),
        made["bytes"].as_u64().unwrap()
    );
    let copy = SqlStore::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    assert_conserved(&copy.audit().await.unwrap(), 700);
    copy.close().await;
    let (_, log) = server
        .call("GET", "/admin/audit-log?limit=50", token, None)
        .await;
    assert!(
        log.as_array()
            .unwrap()
            .iter()
            .any(|e| e["action"] == "backup" && e["target"] == made["path"]),
        "the backup is in the audit log: {log}"
    );
    server.stop().await;

    // Without a folder configured, the endpoint is off and says how to copy instead.
    let mut server = Server::start(&db.url, &[]).await;
    let (status, body) = server.call("POST", "/admin/backup", token, None).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"], "backups_off");
    assert!(body["message"].as_str().unwrap().contains("pokerd backup"));
    server.stop().await;
}
