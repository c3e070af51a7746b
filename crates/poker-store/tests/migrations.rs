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
const REMOVALS: [(&str, &str); 7] = [
    ("drop table", "drops a table"),
    ("drop column", "drops a column"),
    ("rename", "renames"),
    (" type ", "changes a column's type"),
    ("set not null", "makes a column required"),
    ("drop view", "drops a view"),
    ("truncate", "empties a table"),
];

/// Whether an `add column` requires a value the previous release does not write.
fn adds_a_required_column(statement: &str) -> bool {
    statement.contains("add column")
        && statement.contains("not null")
        && !statement.contains("default")
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
            let text = std::fs::read_to_string(&path).unwrap().to_lowercase();
            let code: String = text
                .lines()
                .map(|l| l.split("--").next().unwrap_or(""))
                .collect::<Vec<_>>()
                .join("\n");
            for statement in code.split(';') {
                let statement = statement.split_whitespace().collect::<Vec<_>>().join(" ");
                for (word, what) in REMOVALS {
                    // `create type`, `alter type ... add value` add; ` type ` in a create
                    // table's column list is a column named so: only alter column counts.
                    if word == " type " && !statement.contains("alter column") {
                        continue;
                    }
                    if statement.contains(word) {
                        problems.push(format!("{backend}/{name}: {what}: `{statement}`"));
                    }
                }
                if adds_a_required_column(&statement) {
                    problems.push(format!(
                        "{backend}/{name}: adds a required column with no default: `{statement}`"
                    ));
                }
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
    for bad in [
        "alter table hand drop column phh",
        "drop table player_note",
        "alter table seat rename column stack to chips",
        "alter table hand alter column rake type numeric",
        "alter table wallet alter column balance set not null",
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
