//! Migrations and rolling upgrades (docs/operations.md, Rolling upgrades): nodes of two
//! releases run side by side on one database, so a release's migrations only add to the
//! schema the previous release's queries use, and a node starts on a database that a later
//! release has migrated already.

use poker_store::testing::{TestPostgres, TestSqlite};
use poker_store::SqlStore;
use std::path::Path;

fn migrations_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../migrations")
}

/// The last migration of the last release rolled out (`migrations/RELEASES`).
fn last_released() -> (String, u64) {
    let text = std::fs::read_to_string(migrations_dir().join("RELEASES")).unwrap();
    let line = text
        .lines()
        .rfind(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .expect("a release");
    let (release, version) = line.split_once(' ').expect("`release version`");
    (release.to_string(), version.trim().parse().unwrap())
}

/// What a migration may not do while the previous release still runs on the database: each
/// breaks a query of that release (a table or column it reads gone or renamed, a column it
/// writes without now required, a type it binds changed).
///
/// A keyword check, not a parser: it also refuses what only narrows what the previous
/// release may write (a unique index, a constraint, a trigger) and data rewritten in place
/// (an update or delete); a migration that must do one of these waits a release. What no
/// schema check sees, a change of what rows mean (the rake's rows per table), is told in
/// the release's notes (docs/operations.md).
const REMOVALS: [(&str, &str); 15] = [
    ("drop table", "drops a table"),
    ("drop column", "drops a column"),
    ("drop index", "drops an index"),
    ("drop default", "drops a default"),
    ("rename", "renames"),
    (" type ", "changes a column's type"),
    ("set not null", "makes a column required"),
    ("drop view", "drops a view"),
    ("truncate", "empties a table"),
    (
        "create unique index",
        "adds a uniqueness the previous release may break",
    ),
    (
        "add constraint",
        "adds a constraint the previous release may break",
    ),
    ("check (", "adds a check the previous release may break"),
    (
        "create trigger",
        "adds a trigger the previous release does not expect",
    ),
    ("update ", "rewrites rows"),
    ("delete from", "deletes rows"),
];

/// The columns `statements` add to existing tables, as `table.column`.
fn added_columns(statements: &[String]) -> Vec<String> {
    statements
        .iter()
        .filter_map(|s| {
            let rest = s.strip_prefix("alter table ")?;
            let (table, rest) = rest.split_once(' ')?;
            let column = rest.strip_prefix("add column ")?.split(' ').next()?;
            Some(format!("{table}.{column}"))
        })
        .collect()
}

/// Whether an `update` only fills columns `added` (those this migration adds, which the
/// previous release neither reads nor writes): the backfill of a new column rewrites
/// nothing that release sees. Its assignments are read up to the first `from` or `where`
/// outside parentheses.
fn fills_only_added_columns(statement: &str, added: &[String]) -> bool {
    let Some(rest) = statement.strip_prefix("update ") else {
        return false;
    };
    let Some((table, rest)) = rest.split_once(' ') else {
        return false;
    };
    let Some(sets) = rest.strip_prefix("set ") else {
        return false;
    };
    let mut depth = 0i32;
    let mut columns = Vec::new();
    let mut start = 0;
    let bytes = sets.as_bytes();
    let mut i = 0;
    while i <= bytes.len() {
        let at_end = i == bytes.len()
            || (depth == 0
                && (sets[i..].starts_with(" from ") || sets[i..].starts_with(" where ")));
        if at_end || (depth == 0 && bytes[i] == b',') {
            let assignment = sets[start..i].trim();
            columns.push(
                assignment
                    .split('=')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_string(),
            );
            if at_end {
                break;
            }
            start = i + 1;
        } else if bytes[i] == b'(' {
            depth += 1;
        } else if bytes[i] == b')' {
            depth -= 1;
        }
        i += 1;
    }
    !columns.is_empty()
        && columns
            .iter()
            .all(|c| added.contains(&format!("{table}.{c}")))
}

/// Whether an `add column` requires a value the previous release does not write.
fn adds_a_required_column(statement: &str) -> bool {
    statement.contains("add column")
        && statement.contains("not null")
        && !statement.contains("default")
}

/// What in a migration's text may break a query of the previous release, one line each.
fn removals(text: &str) -> Vec<String> {
    let text = text.to_lowercase();
    let mut found = Vec::new();
    let code: String = text
        .lines()
        .map(|l| l.split("--").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let statements: Vec<String> = code
        .split(';')
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    // Tables this release makes: the previous release never writes them, so what
    // narrows them (a unique index, a check) is no removal.
    let made: Vec<String> = statements
        .iter()
        .filter_map(|s| s.strip_prefix("create table "))
        .map(|rest| {
            rest.trim_start_matches("if not exists ")
                .split([' ', '('])
                .next()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    let added = added_columns(&statements);
    for statement in statements {
        let on_a_new_table = made.iter().any(|t| {
            statement.starts_with(&format!("create table {t}"))
                || statement.starts_with(&format!("create table if not exists {t}"))
                || statement.ends_with(&format!(" on {t}"))
                || statement.contains(&format!(" on {t} "))
                || statement.contains(&format!(" on {t}("))
        });
        for (word, what) in REMOVALS {
            // `create type`, `alter type ... add value` add; ` type ` in a create
            // table's column list is a column named so: only alter column counts.
            if word == " type " && !statement.contains("alter column") {
                continue;
            }
            if on_a_new_table
                && [
                    "create unique index",
                    "add constraint",
                    "check (",
                    "create trigger",
                ]
                .contains(&word)
            {
                continue;
            }
            // Data rewritten is a statement of its own (`on update cascade` is not one).
            let rewrites = ["update ", "delete from"].contains(&word);
            if word == "update " && fills_only_added_columns(&statement, &added) {
                continue;
            }
            if (rewrites && statement.starts_with(word)) || (!rewrites && statement.contains(word))
            {
                found.push(format!("{what}: `{statement}`"));
            }
        }
        if adds_a_required_column(&statement) {
            found.push(format!(
                "adds a required column with no default: `{statement}`"
            ));
        }
    }
    found
}

#[test]
fn migrations_since_the_last_release_only_add() {
    let (release, last) = last_released();
    let mut newer = Vec::new();
    let mut problems = Vec::new();
    for backend in ["postgres", "sqlite"] {
        for entry in std::fs::read_dir(migrations_dir().join(backend)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let version: u64 = name.split('_').next().unwrap().parse().unwrap();
            if version <= last {
                continue;
            }
            newer.push(format!("{backend}/{name}"));
            let text = std::fs::read_to_string(&path).unwrap();
            for problem in removals(&text) {
                problems.push(format!("{backend}/{name}: {problem}"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "migrations after release {release} (its last: {last}) may only add while that \
         release still runs beside this one; move each removal to the release after:\n{}",
        problems.join("\n")
    );
    eprintln!("migrations after release {release}: {newer:?}");
}

#[test]
fn the_check_of_removals_finds_each_kind() {
    // What narrows a table the release makes is no removal; the same on an old one is.
    assert!(removals(
        "create table notice (id text primary key, n bigint check (n >= 0));\n\
         create unique index notice_by_n on notice (n);"
    )
    .is_empty());
    assert_eq!(
        removals("alter table seat add constraint s check (stack >= 0); -- drop table x\n").len(),
        2,
        "a constraint and a check on an old table; comments are not read"
    );
    for bad in [
        "alter table hand drop column phh",
        "drop table player_note",
        "alter table seat rename column stack to chips",
        "alter table hand alter column rake type numeric",
        "alter table wallet alter column balance set not null",
        "create unique index hand_by_number on hand (poker_table_id, number)",
        "alter table seat add constraint stack_positive check (stack >= 0)",
        "update hand set status = 'void' where status = 'started'",
        "delete from session where expires_at < 0",
    ] {
        assert!(
            REMOVALS
                .iter()
                .any(|(w, _)| (*w != " type " || bad.contains("alter column")) && bad.contains(w)),
            "{bad}"
        );
    }
    // Filling a column the same migration adds rewrites nothing the previous release
    // sees; an update that also sets an old column, or fills a column added elsewhere, does.
    assert!(removals(
        "alter table hand_player add column started_at bigint;\n\
         update hand_player set started_at = (select h.started_at from hand h \
         where h.hand_id = hand_player.hand_id);"
    )
    .is_empty());
    assert_eq!(
        removals(
            "alter table hand_player add column started_at bigint;\n\
             update hand_player set started_at = 1, seat_no = 0 where seat_no > 9;"
        )
        .len(),
        1
    );
    assert_eq!(
        removals("update hand_player set started_at = 1;").len(),
        1,
        "a column this migration did not add"
    );
    assert!(adds_a_required_column(
        "alter table seat add column x bigint not null"
    ));
    assert!(!adds_a_required_column(
        "alter table seat add column x bigint not null default 0"
    ));
    assert!(!adds_a_required_column(
        "alter table seat add column x bigint"
    ));
}

/// A later release's migration, as sqlx records it when that release migrates first.
const LATER: i64 = 99_991_231_000_001;

async fn starts_on_a_database_a_later_release_migrated(url: &str, postgres: bool) {
    let store = SqlStore::connect(url).await.expect("migrate");
    let pool = sqlx::AnyPool::connect(url).await.unwrap();
    let sql = if postgres {
        "insert into _sqlx_migrations (version, description, success, checksum, execution_time) \
         values ($1, 'a later release', true, decode('00', 'hex'), 0)"
    } else {
        "insert into _sqlx_migrations (version, description, success, checksum, execution_time) \
         values (?, 'a later release', true, x'00', 0)"
    };
    sqlx::query(sql).bind(LATER).execute(&pool).await.unwrap();
    pool.close().await;
    store.close().await;
    let again = SqlStore::connect(url)
        .await
        .expect("a node of this release starts on a database a later release migrated");
    let audit = again.audit().await.unwrap();
    assert!(audit.holds(), "{audit:?}");
    again.close().await;
}

#[tokio::test]
async fn sqlite_a_node_starts_on_a_database_a_later_release_has_migrated() {
    let db = TestSqlite::new();
    starts_on_a_database_a_later_release_migrated(&db.url, false).await;
}

#[tokio::test]
async fn postgres_a_node_starts_on_a_database_a_later_release_has_migrated() {
    let Some(db) =
        TestPostgres::shared_or_skip("a_node_starts_on_a_database_a_later_release_has_migrated")
            .await
    else {
        return;
    };
    starts_on_a_database_a_later_release_migrated(&db.url, true).await;
}

/// The hand archive's columns for the rows already there: migration 20261206000005 fills
/// a `table_day` row per table and day of the complete hands (void ones not counted);
/// migration 20261206000004 adds `hand_player`'s deal time and big blind but leaves them
/// to the background filler (`SqlStore::fill_hand_players`), which fills each row from
/// its hand as the commit would (the big blind from the hand's posts, else its PHH, else
/// 0), a batch at a time, and then finds nothing left.
async fn the_hand_archive_migrations_fill_the_rows_already_there(url: &str, postgres: bool) {
    sqlx::any::install_default_drivers();
    // The database as the previous release left it: migrated up to its last migration
    // and this release's first one (20261206000003), with hands of its shape.
    let before = std::env::temp_dir().join(format!("poker-migrations-{}", uuid_like()));
    std::fs::create_dir_all(&before).unwrap();
    let backend = if postgres { "postgres" } else { "sqlite" };
    for entry in std::fs::read_dir(migrations_dir().join(backend)).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.split('_').next().unwrap().parse::<u64>().unwrap() <= 20261206000003 {
            std::fs::copy(&path, before.join(&name)).unwrap();
        }
    }
    let raw_url = if postgres {
        url.to_string()
    } else {
        format!("{url}?mode=rwc")
    };
    let pool = sqlx::AnyPool::connect(&raw_url).await.unwrap();
    sqlx::migrate::Migrator::new(before.as_path())
        .await
        .unwrap()
        .run(&pool)
        .await
        .unwrap();
    std::fs::remove_dir_all(&before).unwrap();
    let q = |sql: &str| {
        if postgres {
            sql.to_string()
        } else {
            sql.replace('$', "?")
        }
    };
    sqlx::query(&q(
        "insert into poker_table (poker_table_id, name, config, status, created_at) \
         values ('t', 'T', '{}', 'open', 0)",
    ))
    .execute(&pool)
    .await
    .unwrap();
    let day = 86_400_000i64;
    // Hand a: a big blind of 10, raked 3, ended on day 2; hand b: no big blind, ended on
    // day 2; hand c: void.
    let blind = r#"{"posts":[{"seat":0,"kind":"small_blind","amount":5,"live":true},{"seat":1,"kind":"big_blind","amount":10,"live":true}]}"#;
    for (id, status, record, rake, started, ended) in [
        ("a", "complete", blind, 3i64, 2 * day + 5, 2 * day + 9),
        (
            "b",
            "complete",
            "{\"posts\":[]}",
            0,
            2 * day + 10,
            2 * day + 20,
        ),
        ("c", "void", "{\"posts\":[]}", 0, 2 * day + 30, 2 * day + 31),
    ] {
        sqlx::query(&q(
            "insert into hand (hand_id, poker_table_id, number, status, phh, record, rake, started_at, ended_at, created_at) \
             values ($1, 't', 1, $2, 'x', $3, $4, $5, $6, $5)",
        ))
        .bind(id)
        .bind(status)
        .bind(record)
        .bind(rake)
        .bind(started)
        .bind(ended)
        .execute(&pool)
        .await
        .unwrap();
        if status == "complete" {
            for (p, seat) in [("p1", 0i64), ("p2", 1)] {
                sqlx::query(&q(
                    "insert into hand_player (hand_id, player_id, seat_no, starting_stack, finishing_stack, created_at) \
                     values ($1, $2, $3, 100, 100, $4)",
                ))
                .bind(id)
                .bind(p)
                .bind(seat)
                .bind(ended)
                .execute(&pool)
                .await
                .unwrap();
            }
        }
    }
    pool.close().await;
    // A node of this release starts: the rest of the migrations run, and fill nothing.
    let store = SqlStore::connect(url).await.expect("migrate the rest");
    let pool = sqlx::AnyPool::connect(&raw_url).await.unwrap();
    let read = || async {
        sqlx::query_as::<_, (String, String, Option<i64>, Option<i64>)>(
            "select hand_id, player_id, started_at, big_blind from hand_player order by hand_id, player_id",
        )
        .fetch_all(&pool)
        .await
        .unwrap()
    };
    let want =
        |h: &str, p: &str, s: Option<i64>, b: Option<i64>| (h.to_string(), p.to_string(), s, b);
    assert_eq!(
        read().await,
        vec![
            want("a", "p1", None, None),
            want("a", "p2", None, None),
            want("b", "p1", None, None),
            want("b", "p2", None, None),
        ],
        "the migration leaves the rows to the filler"
    );
    // The filler, one row a batch: hand a's two rows, then b's (a batch fills every row of
    // the hands it took), then nothing after b; a new pass from the first finds nothing.
    let mut batches = Vec::new();
    let mut after = String::new();
    loop {
        let batch = store.fill_hand_players(1, &after).await.expect("fill");
        let Some(next) = batch.next else {
            break;
        };
        batches.push(batch.rows);
        after = next;
        assert!(batches.len() <= 4, "the filler never ends: {batches:?}");
    }
    assert_eq!(after, "b");
    assert_eq!(
        store.fill_hand_players(1, "").await.unwrap(),
        poker_store::FillBatch {
            rows: 0,
            next: None,
            elsewhere: false
        }
    );
    assert_eq!(batches, vec![2, 2], "each batch fills its hand's rows");
    assert_eq!(
        read().await,
        vec![
            want("a", "p1", Some(2 * day + 5), Some(10)),
            want("a", "p2", Some(2 * day + 5), Some(10)),
            want("b", "p1", Some(2 * day + 10), Some(0)),
            want("b", "p2", Some(2 * day + 10), Some(0)),
        ]
    );
    // Two nodes filling at once (two stores), batches of three rows that cut hands: each
    // ends with every row filled, neither fails (on PostgreSQL they deadlocked when both
    // could fill at once).
    let mut many = Vec::new();
    for n in 0..40i64 {
        let id = format!("m{n:03}");
        sqlx::query(&q(
            "insert into hand (hand_id, poker_table_id, number, status, phh, record, rake, started_at, ended_at, created_at) \
             values ($1, 't', $2, 'complete', 'x', $3, 0, $4, $4, $4)",
        ))
        .bind(&id)
        .bind(n + 2)
        .bind(blind)
        .bind(3 * day + n)
        .execute(&pool)
        .await
        .unwrap();
        for (p, seat) in [("p1", 0i64), ("p2", 1), ("p3", 2)] {
            sqlx::query(&q(
                "insert into hand_player (hand_id, player_id, seat_no, starting_stack, finishing_stack, created_at) \
                 values ($1, $2, $3, 100, 100, $4)",
            ))
            .bind(&id)
            .bind(p)
            .bind(seat)
            .bind(3 * day + n)
            .execute(&pool)
            .await
            .unwrap();
            many.push(want(&id, p, Some(3 * day + n), Some(10)));
        }
    }
    let other = SqlStore::connect(url).await.unwrap();
    let node = |store: SqlStore| async move {
        let mut after = String::new();
        let mut filled = 0;
        for _ in 0..10_000 {
            let batch = store
                .fill_hand_players(3, &after)
                .await
                .expect("no batch fails");
            filled += batch.rows;
            match batch.next {
                Some(next) => after = next,
                None if batch.elsewhere => tokio::task::yield_now().await,
                None if !after.is_empty() => after.clear(),
                None => {
                    store.close().await;
                    return filled;
                }
            }
        }
        panic!("the filler never ends");
    };
    let (one, two) = tokio::join!(tokio::spawn(node(store.clone())), tokio::spawn(node(other)));
    assert_eq!(one.unwrap() + two.unwrap(), 120, "each row filled once");
    let all = read().await;
    assert_eq!(&all[4..], &many[..]);
    store.close().await;
    let days: Vec<(i64, String, i64, i64)> =
        sqlx::query_as("select day, poker_table_id, hands, rake from table_day")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(days, vec![(2, "t".to_string(), 2, 3)]);
    pool.close().await;
}

/// A name no other test's folder has.
fn uuid_like() -> String {
    format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}

#[tokio::test]
async fn sqlite_the_hand_archive_migrations_fill_the_rows_already_there() {
    let db = TestSqlite::new();
    the_hand_archive_migrations_fill_the_rows_already_there(&db.url, false).await;
}

#[tokio::test]
async fn postgres_the_hand_archive_migrations_fill_the_rows_already_there() {
    let Some(db) =
        TestPostgres::shared_or_skip("the_hand_archive_migrations_fill_the_rows_already_there")
            .await
    else {
        return;
    };
    the_hand_archive_migrations_fill_the_rows_already_there(&db.url, true).await;
}
