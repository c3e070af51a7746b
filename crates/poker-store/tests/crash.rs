//! Crash recovery with a real process kill: a child process (this test binary, run again
//! in the child role) seats two players, commits one hand, starts a second and waits; the
//! test kills it with SIGKILL mid-hand, reopens the database as a restarted server would,
//! and finds the unfinished hand void and every chip where the last committed hand left it.

use poker_store::testing::{TestPostgres, TestSqlite};
use poker_store::{CompletedHand, HandId, HandPlayer, SqlStore};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

const CHILD_ENV: &str = "POKER_STORE_CRASH_CHILD_URL";

/// The child role: does nothing unless the parent started this binary to crash it.
#[tokio::test]
async fn crash_child_role() {
    let Ok(url) = std::env::var(CHILD_ENV) else {
        return;
    };
    let store = SqlStore::connect(&url).await.expect("connect");
    let a = store.create_player("crash-a", "x").await.unwrap();
    let b = store.create_player("crash-b", "x").await.unwrap();
    store.deposit(a, 1000, None).await.unwrap();
    store.deposit(b, 1000, None).await.unwrap();
    let table = store.create_table("crash", "{}").await.unwrap();
    store.buy_in(table, 0, a, 500, None, None).await.unwrap();
    store.buy_in(table, 1, b, 500, None, None).await.unwrap();
    let hand = |number: u64, stacks: [(u64, u64); 2]| CompletedHand {
        hand_id: HandId::new(),
        table_id: table,
        number,
        players: vec![
            HandPlayer {
                player_id: a,
                seat_no: 0,
                starting_stack: stacks[0].0,
                finishing_stack: stacks[0].1,
            },
            HandPlayer {
                player_id: b,
                seat_no: 1,
                starting_stack: stacks[1].0,
                finishing_stack: stacks[1].1,
            },
        ],
        rake: 0,
        phh: String::new(),
        record: poker_store::HandRecord::default(),
        started_at: 0,
        ended_at: 0,
        fence: None,
    };
    let first = hand(1, [(500, 560), (500, 440)]);
    store
        .start_hand(first.hand_id, table, 1, 1, None)
        .await
        .unwrap();
    store.commit_hands(&[first]).await.unwrap();
    let second = hand(2, [(560, 0), (440, 1000)]);
    store
        .start_hand(second.hand_id, table, 2, 2, None)
        .await
        .unwrap();
    println!("MID-HAND {table} {}", second.hand_id);
    tokio::time::sleep(std::time::Duration::from_secs(600)).await;
}

async fn kill_mid_hand_and_recover(url: &str) {
    let exe = std::env::current_exe().expect("this test binary");
    let mut child = Command::new(exe)
        .args([
            "--exact",
            "crash_child_role",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, url)
        .stdout(Stdio::piped())
        .spawn()
        .expect("the child starts");
    let mut line = String::new();
    let mut out = BufReader::new(child.stdout.take().expect("piped"));
    // libtest may print "test crash_child_role ... " on the same line first.
    while !line.contains("MID-HAND") {
        line.clear();
        assert!(
            out.read_line(&mut line).expect("read") > 0,
            "the child died before the hand started"
        );
    }
    let marker = &line[line.find("MID-HAND").expect("found")..];
    let mut words = marker.split_whitespace().skip(1);
    let table = words.next().unwrap().parse().unwrap();
    let unfinished: HandId = words.next().unwrap().parse().unwrap();
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");

    let restarted = SqlStore::connect(url)
        .await
        .expect("reopen after the crash");
    let voided = restarted.recover().await.unwrap();
    assert_eq!(voided, vec![unfinished]);
    assert_eq!(restarted.hand(unfinished).await.unwrap().status, "void");
    let stacks: Vec<u64> = restarted
        .seats(table)
        .await
        .unwrap()
        .iter()
        .map(|s| s.stack)
        .collect();
    assert_eq!(stacks, vec![560, 440], "the last committed hand's stacks");
    let audit = restarted.audit().await.unwrap();
    assert!(audit.holds(), "{audit:?}");
    assert_eq!((audit.deposits, audit.wallets + audit.stacks), (2000, 2000));
    restarted.close().await;
}

#[tokio::test]
async fn killing_the_process_mid_hand_voids_the_hand_and_keeps_committed_stacks_on_sqlite() {
    if std::env::var_os(CHILD_ENV).is_some() {
        return;
    }
    let db = TestSqlite::new();
    kill_mid_hand_and_recover(&db.url).await;
}

#[tokio::test]
async fn killing_the_process_mid_hand_voids_the_hand_and_keeps_committed_stacks_on_postgres() {
    if std::env::var_os(CHILD_ENV).is_some() {
        return;
    }
    let Some(db) = TestPostgres::start_or_skip("the crash test").await else {
        return;
    };
    kill_mid_hand_and_recover(&db.url).await;
}
