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
