//! Online backups of the embedded SQLite database: a consistent copy taken while a
//! pokerd runs on the file and its tables play.
//!
//! The copy is SQLite's `VACUUM INTO`, run from a connection of its own that only reads.
//! It reads the whole database inside one read transaction, so the copy is exactly the
//! database as some committed transaction left it; in WAL mode (which
//! [`crate::SqlStore`] sets) that reader neither waits for pokerd's writer nor holds it up. (SQLite's
//! page-by-page backup API would do the same, but only through `unsafe` FFI, which this
//! workspace forbids, and it starts over whenever the writer commits between its steps.)
//! The copy is written under a temporary name beside the target, checked with
//! `pragma integrity_check`, flushed to disk, and only then linked to its name, which
//! fails if something has appeared there meanwhile: a backup never overwrites a file,
//! and the name never holds half a copy.
//!
//! Since stacks change only with a committed hand, a copy taken mid-hand holds that hand
//! as `started`; the pokerd started on the copy voids it ([`crate::SqlStore::recover`]), so
//! the copy restores to the stacks the hand began with and the audit balances.
//!
//! PostgreSQL is backed up with its own tools ([`POSTGRES_WAY`]).

use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};
use sqlx::{ConnectOptions, Connection, Row};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How to back up a room on PostgreSQL, which `pokerd backup` does not copy.
pub const POSTGRES_WAY: &str = "back PostgreSQL up with its own tools: \
`pg_dump --format=custom --file=poker.dump DATABASE` takes a consistent logical copy while \
pokerd runs (restore it into an empty database with `pg_restore --dbname=NEWDB poker.dump`), \
and `pg_basebackup` with WAL archiving gives point-in-time recovery; \
see docs/operations.md, Backups";

/// Why a backup was refused or failed. Nothing is left at the target path.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    /// Something is at the target path already: a backup never overwrites.
    #[error("{} exists: a backup never overwrites a file; name a new one", .0.display())]
    Exists(PathBuf),
    /// The database is PostgreSQL, which its own tools back up.
    #[error("the database is PostgreSQL: {POSTGRES_WAY}")]
    Postgres,
    /// The database URL is neither `sqlite://` nor `postgres://`.
    #[error("unsupported database URL scheme {0:?}: postgres:// or sqlite://")]
    Scheme(String),
    /// The database file cannot be opened or read as pokerd's database.
    #[error("cannot open the database {}: {reason}", path.display())]
    Open {
        /// The database file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// The copy could not be written (a missing folder, no space, no permission).
    #[error("cannot write the backup {}: {reason}", path.display())]
    Write {
        /// The target path.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// The copy failed SQLite's integrity check (then it was removed).
    #[error("the copy failed its integrity check: {0}")]
    Check(String),
}

/// What a backup wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Backup {
    /// Where the copy is.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// The hands it holds as committed.
    pub complete_hands: u64,
    /// The hands it holds as in flight: void, their stacks as they began, once a pokerd
    /// starts on the copy.
    pub hands_in_flight: u64,
    /// How long the copy took, its check included.
    pub elapsed: Duration,
}

/// The file a `sqlite:` URL names (`sqlite://path`, `sqlite:path`, options after `?`
/// dropped), or `None` for another scheme.
pub(crate) fn sqlite_file(url: &str) -> Option<&str> {
    let rest = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))?;
    Some(rest.split('?').next().unwrap_or(rest))
}

/// Copies the SQLite database `url` names to the new file `to`, consistently, while
/// other connections (a running pokerd) read and write it. Refuses a PostgreSQL URL
/// ([`BackupError::Postgres`]), a `to` that exists, and a database that cannot be opened
/// (a missing file is never created).
pub async fn backup_database(url: &str, to: &Path) -> Result<Backup, BackupError> {
    let started = Instant::now();
    if url.starts_with("postgres") {
        return Err(BackupError::Postgres);
    }
    let Some(file) = sqlite_file(url) else {
        // Only the scheme: the rest may hold a password.
        let scheme = url.split(':').next().unwrap_or_default();
        return Err(BackupError::Scheme(scheme.to_string()));
    };
    let source = PathBuf::from(file);
    if to.symlink_metadata().is_ok() {
        return Err(BackupError::Exists(to.to_path_buf()));
    }
    let open_error = |reason: String| BackupError::Open {
        path: source.clone(),
        reason,
    };
    if !source.is_file() {
        return Err(open_error("no such file".into()));
    }
    let name = to.file_name().ok_or_else(|| BackupError::Write {
        path: to.to_path_buf(),
        reason: "the path names no file".into(),
    })?;
    let partial = Partial(to.with_file_name(format!(
        ".{}.partial-{}",
        name.to_string_lossy(),
        uuid::Uuid::new_v4().simple()
    )));
    let write_error = |reason: String| BackupError::Write {
        path: to.to_path_buf(),
        reason,
    };

    let mut db = read_only(&source)
        .await
        .map_err(|e| open_error(e.to_string()))?;
    // A pokerd database has its hand table; reading it also tells a file that is not a
    // database at all.
    sqlx::query("select count(*) as n from hand")
        .fetch_one(&mut db)
        .await
        .map_err(|e| open_error(format!("not a pokerd database: {e}")))?;
    let copied = sqlx::query("vacuum into $1")
        .bind(partial.0.to_string_lossy().into_owned())
        .execute(&mut db)
        .await;
    let _ = db.close().await;
    copied.map_err(|e| write_error(e.to_string()))?;

    let mut copy = read_only(&partial.0)
        .await
        .map_err(|e| BackupError::Check(e.to_string()))?;
    let checked = check_and_count(&mut copy).await;
    let _ = copy.close().await;
    let (complete_hands, hands_in_flight) = checked?;

    // Flushing and linking block on the disk: off the async workers (a pokerd serving
    // its tables runs this too).
    let target = to.to_path_buf();
    let bytes = tokio::task::spawn_blocking(move || publish(partial, &target))
        .await
        .map_err(|e| write_error(e.to_string()))??;
    Ok(Backup {
        path: to.to_path_buf(),
        bytes,
        complete_hands,
        hands_in_flight,
        elapsed: started.elapsed(),
    })
}

/// Makes the checked copy durable and gives it its name: its data flushed, linked to
/// `to` (which fails if `to` exists), the temporary name removed, the folder flushed.
/// Returns its size.
fn publish(partial: Partial, to: &Path) -> Result<u64, BackupError> {
    let write_error = |reason: String| BackupError::Write {
        path: to.to_path_buf(),
        reason,
    };
    let bytes = std::fs::File::open(&partial.0)
        .and_then(|f| {
            f.sync_all()?;
            f.metadata()
        })
        .map_err(|e| write_error(e.to_string()))?
        .len();
    match std::fs::hard_link(&partial.0, to) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(BackupError::Exists(to.to_path_buf()))
        }
        Err(e) => return Err(write_error(e.to_string())),
    }
    drop(partial);
    let folder = match to.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    std::fs::File::open(folder)
        .and_then(|f| f.sync_all())
        .map_err(|e| write_error(format!("the copy is written but its folder: {e}")))?;
    Ok(bytes)
}

/// The temporary copy, removed when dropped (after it has been linked to its name, or
/// when the backup fails).
struct Partial(PathBuf);

impl Drop for Partial {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A connection that only reads `path` (never creating it), waiting up to ten seconds
/// when the file is locked (a WAL checkpoint that truncates, a recovery).
async fn read_only(path: &Path) -> Result<SqliteConnection, sqlx::Error> {
    SqliteConnectOptions::new()
        .filename(path)
        .read_only(true)
        .create_if_missing(false)
        .busy_timeout(Duration::from_secs(10))
        .connect()
        .await
}

/// Checks the copy's integrity; returns its complete and in-flight hands.
async fn check_and_count(copy: &mut SqliteConnection) -> Result<(u64, u64), BackupError> {
    let check = |e: sqlx::Error| BackupError::Check(e.to_string());
    let problems: Vec<String> = sqlx::query("pragma integrity_check")
        .fetch_all(&mut *copy)
        .await
        .map_err(check)?
        .iter()
        .map(|r| r.try_get::<String, _>(0))
        .collect::<Result<_, _>>()
        .map_err(check)?;
    if problems != ["ok"] {
        return Err(BackupError::Check(problems.join("; ")));
    }
    let row = sqlx::query(
        "select coalesce(sum(status = 'complete'), 0) as complete, \
         coalesce(sum(status = 'started'), 0) as started from hand",
    )
    .fetch_one(&mut *copy)
    .await
    .map_err(check)?;
    let count = |column: &str| -> Result<u64, BackupError> {
        Ok(row.try_get::<i64, _>(column).map_err(check)? as u64)
    };
    Ok((count("complete")?, count("started")?))
}
