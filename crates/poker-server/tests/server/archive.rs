//! `pokerd archive --before DAY --to DIR` on the SQLite database of a server that played
//! hands over real WebSockets, run as the real binary while the server runs: the files
//! hold the hands the admin API answered, `sha256sum -c` accepts them, the rows are gone
//! but for the hand in play and the table's newest, the books still balance, and the
//! server's history API says that a range before the cutoff is archived.

use crate::common;

use common::pokerd::run;
use common::{assert_conserved, play, Client, Db, DbGuard, Server};
use poker_rules::Action;
use poker_store::{HandStatus, SqlStore, TableId};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// Ann and Ben sit at a new table and play `hands` hands (calling or checking), stored
/// before this returns: the table, their connections, and Ann's session token.
async fn ann_and_ben_play(server: &Server, hands: usize) -> (String, Vec<Client>, String) {
    server.player("ann", 1000).await;
    server.player("ben", 1000).await;
    let clock = json!({ "action_ms": 30000, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": 0 });
    let table_id = server.table(clock).await;
    let mut clients = vec![server.client("ann").await, server.client("ben").await];
    for (seat, c) in clients.iter_mut().enumerate() {
        c.sat(&table_id, seat as u32, 200).await;
    }
    play(&mut clients, &table_id, hands, |_, _, legal| {
        if legal.call.is_some() {
            Action::Call
        } else {
            Action::Check
        }
    })
    .await;
    let ann = server.login("ann").await;
    // Hands are committed a moment after they end.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let a = server.get_as(&ann, "/api/me/hands?limit=100").await;
        assert_eq!(a.status, 200, "{}", a.text);
        if a.body.as_array().unwrap().len() >= hands {
            break;
        }
        assert!(Instant::now() < deadline, "the hands are not stored");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    (table_id, clients, ann)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pokerd_archive_moves_a_playing_rooms_hands_to_checked_files_and_the_history_says_they_are_archived(
) {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let url = guard.url();
    let mut server = Server::start(&url, &[]).await;
    let hands = 6;
    let (table_id, _clients, ann) = ann_and_ben_play(&server, hands).await;

    // What the admin API answers for each hand of the table, before the archive.
    let table: TableId = table_id.parse().unwrap();
    let store = SqlStore::connect(&url).await.unwrap();
    let before_rows = store.table_hands(table, 1000, 0).await.unwrap();
    let mut admin: BTreeMap<String, Value> = BTreeMap::new();
    for row in &before_rows {
        if row.status != HandStatus::Started {
            let id = row.hand_id.to_string();
            let answer = server.get_json(&format!("/admin/hands/{id}")).await;
            admin.insert(id, answer);
        }
    }
    assert!(admin.len() >= hands);

    // Tomorrow (UTC): every hand dealt so far is before it. The cutoff stored is the run's
    // start, not tomorrow: a hand dealt after the run is not said to be archived.
    let now = poker_store::now_ms();
    let tomorrow = now.div_euclid(86_400_000) * 86_400_000 + 86_400_000;
    let day = poker_store::day_of(tomorrow);
    let dir = std::env::temp_dir().join(format!("poker-archive-{}", poker_store::HandId::new()));
    let ran = run(
        &url,
        &["archive", "--before", &day, "--to", dir.to_str().unwrap()],
    )
    .await;
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert_eq!(ran.stdout.lines().count(), 1, "{ran:?}");
    let ran_by = poker_store::now_ms();

    // One file this month, with its checksum, which sha256sum accepts.
    let month = &poker_store::day_of(now)[..7];
    let name = format!("hands-{month}.jsonl");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // The runs' lock file of the folder, and the month's file with its checksum.
    assert_eq!(
        names,
        [
            ".archive-lock".to_string(),
            name.clone(),
            format!("{name}.sha256")
        ]
    );
    let check = std::process::Command::new("sha256sum")
        .arg("-c")
        .arg(format!("{name}.sha256"))
        .current_dir(&dir)
        .output()
        .expect("sha256sum runs");
    assert!(check.status.success(), "{check:?}");
    assert_eq!(
        String::from_utf8_lossy(&check.stdout),
        format!("{name}: OK\n")
    );

    // Each line is the admin API's answer for its hand, with its players.
    let text = std::fs::read_to_string(dir.join(&name)).unwrap();
    let mut archived = BTreeSet::new();
    let mut last_start = i64::MIN;
    for line in text.lines() {
        let mut hand: Value = serde_json::from_str(line).unwrap();
        let players = hand.as_object_mut().unwrap().remove("players").unwrap();
        let id = hand["hand_id"].as_str().unwrap().to_string();
        assert_eq!(Some(&hand), admin.get(&id), "hand {id}");
        let started = hand["started_at"].as_i64().unwrap();
        assert!(started >= last_start, "oldest first");
        last_start = started;
        if hand["status"] == "complete" {
            assert_eq!(players.as_array().unwrap().len(), 2, "{players}");
        }
        archived.insert(id);
    }
    assert!(ran.stdout.starts_with(&format!(
        "pokerd archive: {} hands dealt before {day} written to {} (1 file, ",
        archived.len(),
        dir.display()
    )));
    assert!(ran
        .stdout
        .contains(&format!("{name} {} hands", archived.len())));

    // The rows are gone but for the hand in play and the table's newest: at most one
    // hand that was complete or void before the archive stays.
    let after_rows = store.table_hands(table, 1000, 0).await.unwrap();
    let before_ids: BTreeSet<String> = before_rows.iter().map(|r| r.hand_id.to_string()).collect();
    assert!(archived.is_subset(&before_ids));
    let finished_kept: Vec<_> = after_rows
        .iter()
        .filter(|r| r.status != HandStatus::Started && before_ids.contains(&r.hand_id.to_string()))
        .collect();
    assert!(finished_kept.len() <= 1, "{finished_kept:?}");
    if let Some(kept) = finished_kept.first() {
        assert_eq!(
            kept.hand_id, after_rows[0].hand_id,
            "only the table's newest stays"
        );
    }
    assert!(archived.len() >= hands - 1);
    assert_eq!(archived.len() + finished_kept.len(), admin.len());
    let cutoff = store.archive_cutoff().await.unwrap().expect("a cutoff");
    assert!(
        (now..=ran_by).contains(&cutoff),
        "{cutoff} not in {now}..={ran_by}"
    );
    assert!(
        ran.stdout.contains(&format!(
            "cutoff {} (unix ms {cutoff}",
            poker_store::day_of(cutoff)
        )),
        "{ran:?}"
    );
    let day = poker_store::day_of(cutoff);
    store.close().await;
    let id = archived.iter().next().unwrap();
    let (status, _) = server.get(&format!("/admin/hands/{id}")).await;
    assert_eq!(status, 404);
    assert_conserved(&server.audit().await, 2000);

    // The player's history: a range (a list or a download) that starts before the
    // cutoff is refused as archived; the stats say from when they count.
    for path in [
        "/api/me/hands?format=pokerstars".to_string(),
        "/api/me/hands?format=phh&from=0".to_string(),
        format!("/api/me/hands?from={}&to={}", cutoff - 86_400_000, cutoff),
    ] {
        let a = server.get_as(&ann, &path).await;
        assert_eq!(a.status, 410, "{path}: {}", a.text);
        assert_eq!(a.body["error"], "archived", "{path}");
        assert!(a.body["message"].as_str().unwrap().contains(&day), "{path}");
    }
    let stats = server.get_as(&ann, "/api/me/stats").await;
    assert_eq!(stats.status, 200, "{}", stats.text);
    assert_eq!(stats.body["archived_before"], json!(cutoff));
    // Counted: the complete hands dealt from the cutoff on (none: the table's newest, kept,
    // was dealt before the run).
    let kept = after_rows
        .iter()
        .filter(|r| r.status == HandStatus::Complete && r.started_at >= cutoff)
        .count();
    assert_eq!(stats.body["hands"], json!(kept));
    let later = server
        .get_as(&ann, &format!("/api/me/stats?from={cutoff}"))
        .await;
    assert_eq!(later.status, 200, "{}", later.text);
    assert_eq!(later.body["archived_before"], Value::Null);
    let download = server
        .get_as(&ann, &format!("/api/me/hands?format=phh&from={cutoff}"))
        .await;
    assert_eq!(download.status, 200, "{}", download.text);

    // An argument given twice is refused with the usage, nothing done.
    let twice = run(
        &url,
        &[
            "archive",
            "--before",
            "2000-01-01",
            "--before",
            "2000-02-01",
            "--to",
            "/nowhere",
        ],
    )
    .await;
    assert_eq!(twice.code, Some(2), "{twice:?}");
    // A run that finds no hand writes no file and leaves the cutoff as it was.
    let empty = dir.join("empty");
    let again = run(
        &url,
        &[
            "archive",
            "--before",
            "2000-01-01",
            "--to",
            empty.to_str().unwrap(),
        ],
    )
    .await;
    assert_eq!(again.code, Some(0), "{again:?}");
    assert!(again.stdout.contains("nothing archived"), "{again:?}");
    // Only the folder's lock file (made once and left there).
    let left: Vec<String> = std::fs::read_dir(&empty)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, [".archive-lock"]);
    let store = SqlStore::connect(&url).await.unwrap();
    assert_eq!(store.archive_cutoff().await.unwrap(), Some(cutoff));
    store.close().await;

    server.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// The rows a room had before this release, and those a node of the previous release
/// writes during a roll, have no deal time or big blind (migration 20261206000004 adds
/// the columns and fills nothing): a node of this release fills them in the background
/// as it starts, with exactly what its commit writes, while its players' history and
/// stats answer the same throughout. The books balance.
async fn a_node_fills_the_deal_time_of_its_players_rows_in_the_background(db: Db) {
    let Some(guard) = DbGuard::new(db).await else {
        return;
    };
    let url = guard.url();
    let mut server = Server::start(&url, &[]).await;
    let hands = 5;
    let (_table_id, clients, ann) = ann_and_ben_play(&server, hands).await;
    let history = server.get_as(&ann, "/api/me/hands?limit=100").await.body;
    let stats = server.get_as(&ann, "/api/me/stats").await.body;
    drop(clients);
    server.stop().await;

    // What this release's commit wrote, then the rows as the previous release left them.
    sqlx::any::install_default_drivers();
    let raw_url = if db == Db::Sqlite {
        format!("{url}?mode=rw")
    } else {
        url.clone()
    };
    let pool = sqlx::AnyPool::connect(&raw_url).await.unwrap();
    let read = || async {
        sqlx::query_as::<_, (String, String, Option<i64>, Option<i64>)>(
            "select hand_id, player_id, started_at, big_blind from hand_player \
             order by hand_id, player_id",
        )
        .fetch_all(&pool)
        .await
        .unwrap()
    };
    let written = read().await;
    assert!(written.len() >= 2 * hands, "{written:?}");
    assert!(
        written.iter().all(|r| r.2.is_some() && r.3 == Some(2)),
        "the commit writes both: {written:?}"
    );
    sqlx::query("update hand_player set started_at = null, big_blind = null")
        .execute(&pool)
        .await
        .unwrap();

    // A node of this release starts on them.
    let server = Server::start(&url, &[]).await;
    let ann = server.login("ann").await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while server.metric("poker_hand_players_filled_total").await < written.len() as u64 {
        // Meanwhile the unfilled rows are read the old way: the same answers.
        assert_eq!(
            server.get_as(&ann, "/api/me/hands?limit=100").await.body,
            history
        );
        assert_eq!(server.get_as(&ann, "/api/me/stats").await.body, stats);
        assert!(Instant::now() < deadline, "the rows are not filled");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        server.metric("poker_hand_players_filled_total").await,
        written.len() as u64
    );
    assert_eq!(read().await, written, "filled as the commit writes them");
    assert_eq!(
        server.get_as(&ann, "/api/me/hands?limit=100").await.body,
        history
    );
    assert_eq!(server.get_as(&ann, "/api/me/stats").await.body, stats);
    assert_conserved(&server.audit().await, 2000);
    pool.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_node_fills_the_deal_time_of_its_players_rows_in_the_background() {
    a_node_fills_the_deal_time_of_its_players_rows_in_the_background(Db::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_node_fills_the_deal_time_of_its_players_rows_in_the_background() {
    a_node_fills_the_deal_time_of_its_players_rows_in_the_background(Db::Postgres).await;
}
