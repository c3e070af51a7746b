//! The hand archive (`SqlStore::archive_hands`): the hands dealt before a day go to one
//! verified file a month and leave the database; the hands in play and those dealt later
//! stay, as does each table's newest hand, a player's pages still work for them, the
//! ledger is untouched, and the room remembers the cutoff.

use super::*;
use poker_store::{day_start, ArchiveError, ArchivedHand, HandRow};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// A folder of its own for a scenario's files, removed when dropped.
struct Folder(PathBuf);

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The hands an archive file holds, one per line, each line parsed; checked against the
/// `sha256sum`-format checksum written beside it.
fn read_checked(path: &Path) -> Vec<ArchivedHand> {
    let bytes = std::fs::read(path).unwrap();
    let sum = std::fs::read_to_string(format!("{}.sha256", path.display())).unwrap();
    let hex: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let name = path.file_name().unwrap().to_str().unwrap();
    assert_eq!(sum, format!("{hex}  {name}\n"), "the checksum of {name}");
    let text = String::from_utf8(bytes).unwrap();
    assert!(text.ends_with('\n'));
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The names of the files in a folder, sorted, but the runs' lock file (`.archive-lock`).
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != ".archive-lock")
        .collect();
    names.sort();
    names
}

pub(crate) async fn archive_moves_the_hands_dealt_before_a_day_to_verified_monthly_files_and_keeps_the_rest(
    store: &SqlStore,
) {
    let folder = Folder(std::env::temp_dir().join(format!("poker-archive-{}", HandId::new())));
    let (ann, bob, cat) = (
        player(store, "ann", 1000).await,
        player(store, "bob", 1000).await,
        player(store, "cat", 1000).await,
    );
    let dan = player(store, "dan", 1000).await;
    let table = store.create_table("a1", "{}").await.unwrap();
    let other = store.create_table("a2", "{}").await.unwrap();
    let idle = store.create_table("a3", "{}").await.unwrap();
    store.buy_in(table, 0, ann, 500, None, None).await.unwrap();
    store.buy_in(table, 1, bob, 500, None, None).await.unwrap();
    store.buy_in(other, 0, cat, 500, None, None).await.unwrap();
    store.buy_in(idle, 0, dan, 500, None, None).await.unwrap();
    let day = |text: &str| day_start(text).unwrap();
    let (october, november, december) = (day("2025-10-10"), day("2025-11-20"), day("2025-12-03"));
    // A table whose last hand was in October: it stays, whatever its age, since the
    // table numbers its next hands from it.
    let mut last_of_idle = hand(idle, 41, &[(dan, 0, 500, 500)], 0);
    last_of_idle.started_at = october;
    last_of_idle.ended_at = october + 1;
    store
        .commit_hands(std::slice::from_ref(&last_of_idle))
        .await
        .unwrap();

    // Two hands in October, three in November, three in December: Ann wins 4 from Bob
    // each time, 1 of it raked.
    let mut stacks = (500u64, 500u64);
    let mut committed = Vec::new();
    for (n, at) in [
        october,
        october + 60_000,
        november,
        november + 60_000,
        november + 120_000,
        december,
        december + 60_000,
        december + 120_000,
    ]
    .into_iter()
    .enumerate()
    {
        let n = n as u64 + 1;
        let mut h = hand(
            table,
            n,
            &[
                (ann, 0, stacks.0, stacks.0 + 3),
                (bob, 1, stacks.1, stacks.1 - 4),
            ],
            1,
        );
        h.started_at = at;
        h.ended_at = at + 30_000;
        store.commit_hands(std::slice::from_ref(&h)).await.unwrap();
        stacks = (stacks.0 + 3, stacks.1 - 4);
        committed.push(h.hand_id);
    }
    // A hand of November voided (its table failed), and one dealt in November still in
    // play at the other table.
    let void = HandId::new();
    store
        .start_hand(void, table, 9, november + 180_000, None)
        .await
        .unwrap();
    store.void_hands(table).await.unwrap();
    let in_play = hand(other, 1, &[(cat, 0, 500, 500)], 0);
    store
        .start_hand(in_play.hand_id, other, 1, november + 200_000, None)
        .await
        .unwrap();

    let rows_before: Vec<HandRow> = {
        let mut rows = Vec::new();
        for id in committed.iter().chain([&void]) {
            rows.push(store.hand(*id).await.unwrap());
        }
        rows
    };
    let ledger_before = store.table_ledger(table).await.unwrap();
    let rake_before = store.rake_by_day(0).await.unwrap();
    assert!(!rake_before.is_empty());
    let balances = (
        store.balance(ann).await.unwrap(),
        store.balance(bob).await.unwrap(),
    );
    assert_eq!(store.archive_cutoff().await.unwrap(), None);

    let archive = store
        .archive_hands(day("2025-12-01"), &folder.0)
        .await
        .unwrap();

    // Two files, October's and November's, with the checksums beside them.
    assert_eq!(
        names_in(&folder.0),
        [
            "hands-2025-10.jsonl",
            "hands-2025-10.jsonl.sha256",
            "hands-2025-11.jsonl",
            "hands-2025-11.jsonl.sha256"
        ]
    );
    let months: Vec<(&str, u64)> = archive
        .files
        .iter()
        .map(|f| (f.month.as_str(), f.hands))
        .collect();
    assert_eq!(months, [("2025-10", 2), ("2025-11", 4)]);
    // Each file's lines are its month's hands, oldest first, each the row the admin API
    // answered with its players; the sizes and sums are the files'.
    let october_lines = read_checked(&folder.0.join("hands-2025-10.jsonl"));
    let november_lines = read_checked(&folder.0.join("hands-2025-11.jsonl"));
    let lines: Vec<&ArchivedHand> = october_lines.iter().chain(&november_lines).collect();
    let archived_rows: Vec<&HandRow> = lines.iter().map(|l| &l.hand).collect();
    let expected_rows: Vec<&HandRow> = rows_before[..5].iter().chain(&rows_before[8..]).collect();
    assert_eq!(archived_rows, expected_rows);
    for f in &archive.files {
        let meta = std::fs::metadata(&f.path).unwrap();
        assert_eq!(f.bytes, meta.len());
        // The decks are the operator's: the file is its owner's alone.
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777,
            0o600
        );
        let sum = std::fs::read_to_string(format!("{}.sha256", f.path.display())).unwrap();
        assert!(sum.starts_with(&f.sha256));
    }
    for (line, n) in lines[..5].iter().zip(1u64..) {
        let players: Vec<(PlayerId, u32, u64, u64)> = line
            .players
            .iter()
            .map(|p| (p.player_id, p.seat_no, p.starting_stack, p.finishing_stack))
            .collect();
        let (a, b) = (500 + 3 * (n - 1), 500 - 4 * (n - 1));
        assert_eq!(
            players,
            [(ann, 0, a, a + 3), (bob, 1, b, b - 4)],
            "hand {n}"
        );
        assert!(line
            .players
            .iter()
            .all(|p| p.created_at == line.hand.ended_at.unwrap()));
        assert!(line
            .players
            .iter()
            .all(|p| p.started_at == Some(line.hand.started_at)));
    }
    assert_eq!(lines[5].hand.status, HandStatus::Void);
    assert!(lines[5].players.is_empty());

    // Their rows are gone; the hand in play and December's hands stay.
    assert_eq!(archive.hands_deleted, 6);
    assert_eq!(archive.players_deleted, 10);
    for id in committed[..5].iter().chain([&void]) {
        assert!(matches!(
            store.hand(*id).await,
            Err(StoreError::NotFound("hand"))
        ));
    }
    assert_eq!(
        store.hand(in_play.hand_id).await.unwrap().status,
        HandStatus::Started
    );
    let kept: Vec<HandId> = store
        .table_hands(table, 100, 0)
        .await
        .unwrap()
        .iter()
        .map(|h| h.hand_id)
        .collect();
    assert_eq!(kept, [committed[7], committed[6], committed[5]]);
    let idle_kept = store.table_hands(idle, 1, 0).await.unwrap();
    assert_eq!(idle_kept.len(), 1);
    assert_eq!(
        (idle_kept[0].hand_id, idle_kept[0].number),
        (last_of_idle.hand_id, 41)
    );
    // A player's pages still work for the kept hands.
    for p in [ann, bob] {
        let page: Vec<u64> = store
            .player_hands(p, 2, 0)
            .await
            .unwrap()
            .iter()
            .map(|h| h.number)
            .collect();
        assert_eq!(page, [8, 7]);
        let next: Vec<u64> = store
            .player_hands(p, 2, 2)
            .await
            .unwrap()
            .iter()
            .map(|h| h.number)
            .collect();
        assert_eq!(next, [6]);
        let range: Vec<u64> = store
            .player_hands_between(p, day("2025-12-01"), i64::MAX, 100)
            .await
            .unwrap()
            .iter()
            .map(|h| h.number)
            .collect();
        assert_eq!(range, [6, 7, 8]);
    }
    // The money is untouched: every ledger row (a hand's keeps its id) and balance.
    assert_eq!(store.table_ledger(table).await.unwrap(), ledger_before);
    // The rake page's days still count the archived hands.
    assert_eq!(store.rake_by_day(0).await.unwrap(), rake_before);
    assert_eq!(
        (
            store.balance(ann).await.unwrap(),
            store.balance(bob).await.unwrap()
        ),
        balances
    );
    assert_eq!(
        store.archive_cutoff().await.unwrap(),
        Some(day("2025-12-01"))
    );
    audit_holds(store).await;

    // The hand in play ends; a second run archives it into a part file of its own and
    // leaves the first files as they were. An earlier cutoff archives nothing and does
    // not lower the one remembered.
    let sums = (
        std::fs::read(folder.0.join("hands-2025-11.jsonl.sha256")).unwrap(),
        std::fs::read(folder.0.join("hands-2025-11.jsonl")).unwrap(),
    );
    let mut ended = in_play.clone();
    ended.started_at = november + 200_000;
    ended.ended_at = november + 230_000;
    store.commit_hands(&[ended]).await.unwrap();
    // (It is its table's newest hand until another is dealt there.)
    let mut next = hand(other, 2, &[(cat, 0, 500, 500)], 0);
    next.started_at = december;
    next.ended_at = december + 1;
    store.commit_hands(&[next]).await.unwrap();
    let again = store
        .archive_hands(day("2025-12-01"), &folder.0)
        .await
        .unwrap();
    assert_eq!(again.files.len(), 1);
    assert!(again.files[0].path.ends_with("hands-2025-11.2.jsonl"));
    let part = read_checked(&again.files[0].path);
    assert_eq!(part.len(), 1);
    assert_eq!(part[0].hand.hand_id, in_play.hand_id);
    assert_eq!((again.hands_deleted, again.players_deleted), (1, 1));
    assert_eq!(
        sums,
        (
            std::fs::read(folder.0.join("hands-2025-11.jsonl.sha256")).unwrap(),
            std::fs::read(folder.0.join("hands-2025-11.jsonl")).unwrap(),
        )
    );
    let earlier = store
        .archive_hands(day("2025-11-01"), &folder.0)
        .await
        .unwrap();
    assert!(earlier.files.is_empty());
    assert_eq!(
        store.archive_cutoff().await.unwrap(),
        Some(day("2025-12-01"))
    );
    assert_eq!(names_in(&folder.0).len(), 6);
    audit_holds(store).await;
}

/// A table where Ann played `hands` hands a minute apart from 2025-11-20, none winning
/// or losing a chip (nothing raked).
async fn ann_plays_in_november(store: &SqlStore, hands: u64) -> TableId {
    let ann = player(store, "ann", 1000).await;
    let table = store.create_table("a1", "{}").await.unwrap();
    store.buy_in(table, 0, ann, 500, None, None).await.unwrap();
    let november = day_start("2025-11-20").unwrap();
    for n in 1..=hands {
        let mut h = hand(table, n, &[(ann, 0, 500, 500)], 0);
        h.started_at = november + n as i64 * 60_000;
        h.ended_at = h.started_at + 1;
        store.commit_hands(std::slice::from_ref(&h)).await.unwrap();
    }
    table
}

/// Two archive runs at once would write the same hands to two files: while one holds the
/// database's archive lock, another (from this store or a second one, as a second
/// `pokerd archive` process would be) is refused before it reads or writes anything, and
/// the lock is free again once its run lets it go or its connection (PostgreSQL) or file
/// (SQLite) closes, as when a run's process dies.
pub(crate) async fn archive_a_second_run_at_the_same_time_is_refused_and_a_dead_runs_lock_is_let_go(
    store: &SqlStore,
    url: &str,
) {
    let folder = Folder(std::env::temp_dir().join(format!("poker-archive-{}", HandId::new())));
    let table = ann_plays_in_november(store, 2).await;
    let december = day_start("2025-12-01").unwrap();
    let busy = |r: Result<poker_store::Archive, ArchiveError>| match r {
        Err(ArchiveError::Busy(who)) => who,
        other => panic!("a second run is refused while the first holds the lock: {other:?}"),
    };

    let run = store.archive_lock().await.expect("the lock is free");
    let who = busy(store.archive_hands(december, &folder.0).await);
    assert!(!who.is_empty());
    let second = SqlStore::connect(url).await.unwrap();
    busy(second.archive_hands(december, &folder.0).await);
    assert!(
        matches!(second.archive_lock().await, Err(ArchiveError::Busy(_))),
        "nor can another store take it"
    );
    // SQLite: nor a store that names the file through a symbolic link.
    if let Some(file) = url.strip_prefix("sqlite://") {
        let file = file.split('?').next().unwrap();
        let link = format!("{file}.link.db");
        std::os::unix::fs::symlink(file, &link).unwrap();
        let aliased = SqlStore::connect(&format!("sqlite://{link}"))
            .await
            .unwrap();
        assert!(
            matches!(aliased.archive_lock().await, Err(ArchiveError::Busy(_))),
            "the lock is the file's, whatever its name"
        );
        aliased.close().await;
        std::fs::remove_file(&link).unwrap();
    }
    assert!(
        !folder.0.exists() || names_in(&folder.0).is_empty(),
        "a refused run writes nothing"
    );
    assert_eq!(store.archive_cutoff().await.unwrap(), None);
    assert_eq!(store.table_hands(table, 10, 0).await.unwrap().len(), 2);

    // Let go: the other store's run goes through (the table's newest hand stays); but not
    // while another process writes into the same folder (its own lock, held by the run's
    // process for as long as it runs, even once the database's lock is lost).
    run.release().await;
    std::fs::create_dir_all(&folder.0).unwrap();
    let writing = std::fs::File::create(folder.0.join(".archive-lock")).unwrap();
    writing.try_lock().unwrap();
    busy(second.archive_hands(december, &folder.0).await);
    drop(writing);
    let done = second.archive_hands(december, &folder.0).await.unwrap();
    assert_eq!(done.hands_deleted, 1);

    // A run that dies holding the lock: its connection or file closes with it, and the
    // lock is free once the database has seen that (PostgreSQL: its backend ends a moment
    // after the connection closes).
    let dying = second.archive_lock().await.unwrap();
    drop(dying);
    second.close().await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let lock = loop {
        match store.archive_lock().await {
            Ok(lock) => break lock,
            Err(ArchiveError::Busy(_)) if std::time::Instant::now() < deadline => {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            Err(e) => panic!("free once its holder is gone: {e:?}"),
        }
    };
    lock.release().await;
    audit_holds(store).await;
}

/// The lock's session ends under a run (PostgreSQL: a dropped connection, an idle
/// timeout, `pg_terminate_backend`), which lets another run start: the run stops with
/// `LockLost` before it names a file or deletes a hand, and a new run then archives
/// everything once.
pub(crate) async fn archive_a_run_whose_lock_is_lost_stops_before_naming_a_file_or_deleting(
    store: &SqlStore,
    url: &str,
) {
    let folder = Folder(std::env::temp_dir().join(format!("poker-archive-{}", HandId::new())));
    let table = ann_plays_in_november(store, 3).await;
    let december = day_start("2025-12-01").unwrap();
    let mut lock = store.archive_lock().await.unwrap();
    // Another connection ends the lock's session, as an idle timeout would.
    let admin = SqlStore::connect_admin(url).await.unwrap();
    let ended: Vec<(bool,)> = sqlx::query_as(
        "select pg_terminate_backend(pid) from pg_locks where locktype = 'advisory' \
         and database = (select oid from pg_database where datname = current_database()) \
         and classid = 1885434467 \
         and objid::bigint = (hashtext(current_schema()) & 2147483647)",
    )
    .fetch_all(&admin)
    .await
    .unwrap();
    assert_eq!(ended, vec![(true,)], "the lock's session");
    admin.close().await;
    match store
        .archive_hands_with(december, &folder.0, &mut lock)
        .await
    {
        Err(ArchiveError::LockLost(_)) => {}
        other => panic!("the run stops: {other:?}"),
    }
    drop(lock);
    assert!(
        !folder.0.exists() || names_in(&folder.0).is_empty(),
        "no file named: {:?}",
        names_in(&folder.0)
    );
    assert_eq!(store.table_hands(table, 10, 0).await.unwrap().len(), 3);
    assert_eq!(store.archive_cutoff().await.unwrap(), None);
    // The next run takes the lock and archives each hand once (the newest stays).
    let done = store.archive_hands(december, &folder.0).await.unwrap();
    assert_eq!(done.hands_deleted, 2);
    let files: Vec<_> = done.files.iter().map(|f| read_checked(&f.path)).collect();
    assert_eq!(files.iter().map(Vec::len).sum::<usize>(), 2);
    audit_holds(store).await;
}

/// A run that stopped after naming a month's file but before deleting all its hands (a
/// kill, a lost lock, a failed delete) leaves them in the database: the next run into the
/// same folder deletes them without writing them again, so a month's parts never hold a
/// hand twice; a named file that no longer matches its checksum stops the run before
/// anything is deleted.
pub(crate) async fn archive_a_rerun_deletes_the_hands_a_stopped_run_named_without_writing_them_again(
    store: &SqlStore,
    url: &str,
) {
    let folder = Folder(std::env::temp_dir().join(format!("poker-archive-{}", HandId::new())));
    let table = ann_plays_in_november(store, 4).await;
    let december = day_start("2025-12-01").unwrap();
    // The rows as they are, to put back as a run stopped before its deletes leaves them.
    let sql = SqlStore::connect_admin(url).await.unwrap();
    for statement in [
        "create table hand_kept as select * from hand",
        "create table hand_player_kept as select * from hand_player",
    ] {
        sqlx::query(statement).execute(&sql).await.unwrap();
    }
    let put_back = || async {
        for statement in [
            "insert into hand select * from hand_kept k \
             where not exists (select 1 from hand h where h.hand_id = k.hand_id)",
            "insert into hand_player select * from hand_player_kept k \
             where not exists (select 1 from hand_player p where p.hand_id = k.hand_id)",
        ] {
            sqlx::query(statement).execute(&sql).await.unwrap();
        }
    };
    let first = store.archive_hands(december, &folder.0).await.unwrap();
    assert_eq!(first.hands_deleted, 3, "all but the table's newest");
    let names = names_in(&folder.0);
    assert_eq!(names, ["hands-2025-11.jsonl", "hands-2025-11.jsonl.sha256"]);
    let file = std::fs::read(folder.0.join(&names[0])).unwrap();

    // As if that run had stopped before its deletes: the hands are in the database again.
    put_back().await;
    assert_eq!(store.table_hands(table, 10, 0).await.unwrap().len(), 4);
    let again = store.archive_hands(december, &folder.0).await.unwrap();
    assert!(
        again.files.is_empty(),
        "nothing written again: {:?}",
        again.files
    );
    assert_eq!(again.hands_deleted, 3);
    assert_eq!(names_in(&folder.0), names);
    assert_eq!(std::fs::read(folder.0.join(&names[0])).unwrap(), file);
    assert_eq!(store.table_hands(table, 10, 0).await.unwrap().len(), 1);

    // A named file changed since: which hands it holds is not known, so nothing goes.
    put_back().await;
    let mut changed = file.clone();
    changed.extend_from_slice(b"\n");
    std::fs::write(folder.0.join(&names[0]), &changed).unwrap();
    match store.archive_hands(december, &folder.0).await {
        Err(ArchiveError::Check { .. }) => {}
        other => panic!("a file that does not match its checksum stops the run: {other:?}"),
    }
    assert_eq!(store.table_hands(table, 10, 0).await.unwrap().len(), 4);
    for statement in ["drop table hand_kept", "drop table hand_player_kept"] {
        sqlx::query(statement).execute(&sql).await.unwrap();
    }
    sql.close().await;
    audit_holds(store).await;
}
