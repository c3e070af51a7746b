//! The hand archive (docs/persistence.md, Retention): the complete and void hands dealt
//! before a day moved out of the database into one JSON-lines file per month, and the
//! cutoff the room remembers so that a player's history can say a range is archived.
//!
//! Each month's file is written under a temporary name, flushed to disk, read back (every
//! line parsed, the hands counted and compared with those written), its SHA-256 written
//! beside it in `sha256sum`'s format, and only then linked to its name, which never
//! replaces a file: a month archived before gets a part file of its own
//! (`hands-2025-11.2.jsonl`). Only then are that file's hands deleted, by the ids read back
//! from it, 10,000 hands a transaction; a hand in play (`started`) is never read, nor is
//! each table's newest hand (its table numbers the next hands from it), and no
//! ledger row is ever touched (a hand's movement keeps its id as `reference`), so the
//! audit holds as before.

use super::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::{BufRead, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How many hands are read from the database at a time (with their PHH and records,
/// about 4 MB).
const READ_BATCH: i64 = 1_000;

/// How many hands one deleting transaction removes, with their players: short enough
/// that the hand tables are never held for long.
pub const DELETE_BATCH: usize = 10_000;

/// The id of the cutoff's one row.
const CUTOFF_ROW: &str = "hands";

/// The next hands to archive: dealt before `$1`, complete or void, after the hand
/// (`$2` started_at, `$3` hand_id) read last, oldest first (on `hand_started_at`). A
/// table's newest hand stays, whatever its age: a table that opens numbers its hands on
/// from it (`table_hands(t, 1, 0)`), so a table idle since before the cutoff would
/// otherwise deal its numbers again (one probe of `hand_table` a hand).
const NEXT_HANDS: &str = concat!(
    "select ",
    hand_columns!(),
    " from hand h where h.started_at < $1 and h.status in ('complete', 'void') \
     and h.started_at >= $2 and (h.started_at > $2 or h.hand_id > $3) \
     and exists (select 1 from hand n where n.poker_table_id = h.poker_table_id \
         and (n.started_at > h.started_at \
              or (n.started_at = h.started_at and n.number > h.number))) \
     order by h.started_at, h.hand_id limit $4"
);

/// The players of some hands, given as one JSON array of their ids (on `hand_player_hand`).
const PLAYERS_OF: Dialects = Dialects {
    postgres: "select hand_id, player_id, seat_no, starting_stack, finishing_stack, created_at, \
               started_at, big_blind from hand_player where hand_id in \
               (select jsonb_array_elements_text(cast($1 as jsonb))) order by hand_id, seat_no",
    sqlite: "select hand_id, player_id, seat_no, starting_stack, finishing_stack, created_at, \
             started_at, big_blind from hand_player where hand_id in (select value from json_each($1)) \
             order by hand_id, seat_no",
};

/// Deletes the players of some hands (one JSON array of ids).
const DELETE_PLAYERS: Dialects = Dialects {
    postgres: "delete from hand_player where hand_id in \
               (select jsonb_array_elements_text(cast($1 as jsonb)))",
    sqlite: "delete from hand_player where hand_id in (select value from json_each($1))",
};

/// Deletes some hands (one JSON array of ids), only if they are complete or void.
const DELETE_HANDS: Dialects = Dialects {
    postgres: "delete from hand where hand_id in \
               (select jsonb_array_elements_text(cast($1 as jsonb))) \
               and status in ('complete', 'void')",
    sqlite: "delete from hand where hand_id in (select value from json_each($1)) \
             and status in ('complete', 'void')",
};

/// Records the cutoff `$1` at `$2`, never lowering one recorded before.
const SET_CUTOFF: &str = "insert into archive_cutoff \
     (archive_cutoff_id, before_at, created_at, updated_at) values ($3, $1, $2, $2) \
     on conflict (archive_cutoff_id) do update set \
     before_at = case when excluded.before_at > archive_cutoff.before_at \
         then excluded.before_at else archive_cutoff.before_at end, \
     updated_at = excluded.updated_at";

/// One player of an archived hand: the hand's `hand_player` row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchivedPlayer {
    /// The player.
    pub player_id: PlayerId,
    /// The seat they played from.
    pub seat_no: u32,
    /// Their stack as the hand began.
    pub starting_stack: Chips,
    /// Their stack as it ended.
    pub finishing_stack: Chips,
    /// When the row was written (the hand's end).
    pub created_at: i64,
    /// When the hand was dealt, as the row says (`None` in rows written before the store
    /// kept it).
    #[serde(default)]
    pub started_at: Option<i64>,
    /// The big blind the hand was played for, as the row says (0 when none is known;
    /// `None` in rows written before the store kept it).
    #[serde(default)]
    pub big_blind: Option<Chips>,
}

/// One line of an archive file: the hand's row as `GET /admin/hands/{id}` answers it (PHH,
/// record with the deck, rake, times, status, table, number), and its players.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArchivedHand {
    /// The hand's row.
    #[serde(flatten)]
    pub hand: HandRow,
    /// Its `hand_player` rows, by seat (none for a void hand).
    pub players: Vec<ArchivedPlayer>,
}

/// One file an archive wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchiveFile {
    /// Where it is (`DIR/hands-YYYY-MM.jsonl`, or `.N.jsonl` for a later part).
    pub path: PathBuf,
    /// The month its hands were dealt in, `YYYY-MM` (UTC).
    pub month: String,
    /// How many hands (lines) it holds.
    pub hands: u64,
    /// Its size.
    pub bytes: u64,
    /// Its SHA-256, hex, as written beside it in `PATH.sha256`.
    pub sha256: String,
}

/// What an archive did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Archive {
    /// The cutoff: hands dealt before it (unix milliseconds): the one asked for, or the
    /// run's start if that is earlier (a hand dealt during the run, or later on the day
    /// asked, stays, and a range from it on is not said to be archived).
    pub before: i64,
    /// Whether the stored cutoff moved to [`Archive::before`]: only when a hand was
    /// archived (a run that found none says nothing of any range), never lowered.
    pub cutoff_recorded: bool,
    /// The files written, oldest month first.
    pub files: Vec<ArchiveFile>,
    /// The `hand` rows deleted (every hand written).
    pub hands_deleted: u64,
    /// The `hand_player` rows deleted.
    pub players_deleted: u64,
    /// How long it took, from the first read to the last delete.
    pub elapsed: Duration,
}

/// Why an archive stopped. Files already named stay, with their checksums; the hands of
/// a file not yet verified are still in the database.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A file could not be written, read back or named.
    #[error("{}: {reason}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// A file read back differs from what was written (then it was removed and nothing of
    /// its month deleted).
    #[error("{} does not read back as written: {reason}", path.display())]
    Check {
        /// The file.
        path: PathBuf,
        /// What differs.
        reason: String,
    },
    /// Another archive run holds the database's archive lock ([`ArchiveLock`]): two at
    /// once would write the same hands to two files. Nothing was written or deleted.
    #[error(
        "another archive run is going on on this database ({0}): nothing was done; run it \
         again once that one has ended"
    )]
    Busy(String),
    /// The run's archive lock was lost (PostgreSQL: its session ended, through a dropped
    /// connection, an idle timeout or `pg_terminate_backend`), so another run may have
    /// started: the run stopped before naming its next file or deleting anything more.
    #[error(
        "the archive lock was lost ({0}): the run stopped; files already named are whole, \
         run it again"
    )]
    LockLost(String),
}

/// The archive's advisory lock on PostgreSQL: the pair ("parc" in ASCII, the room's
/// schema hashed). Advisory locks are per database; the schema's hash keeps rooms in two
/// schemas of one database (each with its `search_path`, as the tests' shared cluster
/// has) apart too. Two schemas of the same hash only wait for each other's runs.
/// The second key, `hashtext(current_schema()) & 2147483647`, is never negative, so that
/// `pg_locks.objid` shows it as it is.
pub(crate) const ARCHIVE_LOCK_CLASS: i32 = 0x7061_7263;

/// The database's archive lock, held for a whole run by [`SqlStore::archive_hands`] (or
/// taken with [`SqlStore::archive_lock`]): a second run on the same database is refused
/// with [`ArchiveError::Busy`] meanwhile. On PostgreSQL a session advisory lock on a
/// connection of its own, on SQLite an exclusive lock on the file `DATABASE.archive-lock`
/// beside the database (made once and left there); either is let go when the run's
/// process ends, however it ends, so a killed run never leaves the archive locked.
#[derive(Debug)]
pub struct ArchiveLock(Option<Held>);

#[derive(Debug)]
enum Held {
    Postgres(sqlx::pool::PoolConnection<sqlx::Any>),
    Sqlite(std::fs::File),
}

impl ArchiveLock {
    /// Lets the lock go: the next run may start as soon as this returns.
    pub async fn release(mut self) {
        match self.0.take() {
            Some(Held::Postgres(mut conn)) => {
                let _ = sqlx::query(concat!(
                    "select pg_advisory_unlock($1, ",
                    "(hashtext(current_schema()) & 2147483647))"
                ))
                .bind(ARCHIVE_LOCK_CLASS)
                .execute(&mut *conn)
                .await;
                // The session holds nothing now; it still ends rather than go back to the
                // pool, should the unlock have failed.
                let _ = sqlx::Connection::close(conn.detach()).await;
            }
            Some(Held::Sqlite(file)) => drop(file),
            None => {}
        }
    }
}

impl ArchiveLock {
    /// Whether the lock is still held: on PostgreSQL a round trip on its session (a
    /// session that ended took the lock with it); a SQLite file's lock lasts as long as
    /// the file is open.
    async fn check(&mut self) -> Result<(), ArchiveError> {
        if let Some(conn) = self.connection() {
            sqlx::query("select 1")
                .execute(conn)
                .await
                .map_err(|e| ArchiveError::LockLost(e.to_string()))?;
        }
        Ok(())
    }

    /// PostgreSQL: the connection whose session holds the lock.
    fn connection(&mut self) -> Option<&mut sqlx::AnyConnection> {
        match &mut self.0 {
            Some(Held::Postgres(conn)) => Some(&mut **conn),
            _ => None,
        }
    }
}

impl Drop for ArchiveLock {
    /// A lock not released (a run that panicked): its PostgreSQL connection is closed,
    /// never handed back to the pool still holding the lock; PostgreSQL lets the lock go
    /// once its backend sees the connection closed, a moment later. The SQLite file's lock
    /// goes with the file.
    fn drop(&mut self) {
        if let Some(Held::Postgres(conn)) = self.0.take() {
            drop(conn.detach());
        }
    }
}

/// A `hand_player` row as the archive reads it (its columns, by name).
#[derive(sqlx::FromRow)]
struct SqlArchivedPlayer {
    hand_id: String,
    player_id: String,
    seat_no: i64,
    starting_stack: i64,
    finishing_stack: i64,
    created_at: i64,
    started_at: Option<i64>,
    big_blind: Option<i64>,
}

/// Days since 1970-01-01 of a date in the proleptic Gregorian calendar.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if month > 2 { month - 3 } else { month + 9 };
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date (year, month, day) of a count of days since 1970-01-01.
pub(crate) fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// A day in milliseconds (UTC days have no leap seconds in unix time).
const DAY_MS: i64 = 86_400_000;

/// The start (UTC midnight, unix milliseconds) of a day written `YYYY-MM-DD`, or `None`
/// if the text is not such a day (`2026-02-30` is not).
pub fn day_start(text: &str) -> Option<i64> {
    let mut parts = text.split('-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let number = |s: &str| -> Option<i64> {
        s.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    let (y, m, d) = (number(y)?, number(m)?, number(d)?);
    let days = days_from_civil(y, m, d);
    (civil_from_days(days) == (y, m, d)).then_some(days * DAY_MS)
}

/// The UTC day of a moment (unix milliseconds), `YYYY-MM-DD`.
pub fn day_of(ms: i64) -> String {
    crate::day_string(ms.div_euclid(DAY_MS))
}

/// The UTC month of a moment (unix milliseconds), `YYYY-MM`: the month its hand's file is
/// named by.
fn month_of(ms: i64) -> String {
    let (y, m, _) = civil_from_days(ms.div_euclid(DAY_MS));
    format!("{y:04}-{m:02}")
}

/// A month's file being written: its lines under a temporary name (removed when dropped,
/// unless it was named), and the ids of the hands written, in order.
struct MonthFile {
    /// The month, `YYYY-MM`.
    month: String,
    /// The temporary file the lines go to.
    partial: Partial,
    /// The writer over it.
    out: std::io::BufWriter<std::fs::File>,
    /// The hands written, in order: what reading back must find.
    written: Vec<HandId>,
    /// The hands of the month's files already named in the folder (by a run that
    /// stopped before deleting them all): never written again.
    named: std::collections::HashSet<HandId>,
    /// Those of them this run found still in the database: deleted, not written.
    found: Vec<HandId>,
}

/// A temporary file, removed when dropped.
struct Partial(PathBuf);

impl Drop for Partial {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// An I/O error on `path`, as the archive says it.
fn file_error(path: &Path) -> impl Fn(std::io::Error) -> ArchiveError + '_ {
    move |e| ArchiveError::File {
        path: path.to_path_buf(),
        reason: e.to_string(),
    }
}

/// A temporary name beside `name` in `dir`.
fn partial_in(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!(".{name}.partial-{}", Uuid::new_v4().simple()))
}

impl MonthFile {
    /// Starts a month's file under a temporary name in `dir`.
    fn create(dir: &Path, month: String) -> Result<MonthFile, ArchiveError> {
        let path = partial_in(dir, &format!("hands-{month}.jsonl"));
        // The records carry the decks (every card of every hand): the operator's alone,
        // so the file is readable by its owner only.
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .map_err(file_error(&path))?;
        let named = named_hands(dir, &month)?;
        Ok(MonthFile {
            month,
            partial: Partial(path),
            out: std::io::BufWriter::new(file),
            written: Vec::new(),
            named,
            found: Vec::new(),
        })
    }

    /// Writes one hand's line, unless a file of the folder has it already.
    fn write(&mut self, hand: &ArchivedHand) -> Result<(), ArchiveError> {
        if self.named.contains(&hand.hand.hand_id) {
            self.found.push(hand.hand.hand_id);
            return Ok(());
        }
        let line = serde_json::to_string(hand).map_err(|e| ArchiveError::File {
            path: self.partial.0.clone(),
            reason: format!("a hand that cannot be written: {e}"),
        })?;
        self.out
            .write_all(line.as_bytes())
            .and_then(|()| self.out.write_all(b"\n"))
            .map_err(file_error(&self.partial.0))?;
        self.written.push(hand.hand.hand_id);
        Ok(())
    }

    /// Flushes the file to disk, reads it back (every line parsed, its hands those
    /// written, in order, each dealt before `before` and complete or void), writes its
    /// SHA-256 beside it and names both, the data last; returns the file and the ids read
    /// back; with the hands found already in a named file, to delete. No file when every
    /// hand was found so (nothing new to write).
    fn finish(
        self,
        dir: &Path,
        before: i64,
    ) -> Result<(Option<ArchiveFile>, Vec<HandId>), ArchiveError> {
        let MonthFile {
            month,
            partial,
            out,
            written,
            found,
            ..
        } = self;
        if written.is_empty() {
            drop(out);
            drop(partial);
            return Ok((None, found));
        }
        let file = out
            .into_inner()
            .map_err(|e| file_error(&partial.0)(e.into_error()))?;
        file.sync_all().map_err(file_error(&partial.0))?;
        drop(file);

        let (read_back, sha256, bytes) = read_back(&partial.0, before)?;
        if read_back != written {
            return Err(ArchiveError::Check {
                path: partial.0.clone(),
                reason: format!(
                    "{} hands written, {} read back, or not the same",
                    written.len(),
                    read_back.len()
                ),
            });
        }

        let (name, path) = free_name(dir, &month);
        let sum_name = format!("{name}.sha256");
        let sum_path = dir.join(&sum_name);
        let sum = Partial(partial_in(dir, &sum_name));
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&sum.0)
            .and_then(|mut f| {
                f.write_all(format!("{sha256}  {name}\n").as_bytes())?;
                f.sync_all()
            })
            .map_err(file_error(&sum.0))?;
        link(&sum.0, &sum_path)?;
        if let Err(e) = link(&partial.0, &path) {
            let _ = std::fs::remove_file(&sum_path);
            return Err(e);
        }
        drop(sum);
        drop(partial);
        std::fs::File::open(dir)
            .and_then(|f| f.sync_all())
            .map_err(file_error(dir))?;
        let hands = read_back.len() as u64;
        let mut ids = read_back;
        ids.extend(found);
        Ok((
            Some(ArchiveFile {
                path,
                month,
                hands,
                bytes,
                sha256,
            }),
            ids,
        ))
    }
}

/// Reads an archive file back: the ids of its hands in order, its SHA-256 (hex) and size.
/// Every line must parse as an [`ArchivedHand`] dealt before `before`, complete or void.
fn read_back(path: &Path, before: i64) -> Result<(Vec<HandId>, String, u64), ArchiveError> {
    let check = |reason: String| ArchiveError::Check {
        path: path.to_path_buf(),
        reason,
    };
    let mut reader = std::io::BufReader::new(std::fs::File::open(path).map_err(file_error(path))?);
    let mut hasher = Sha256::new();
    let mut ids = Vec::new();
    let mut bytes = 0u64;
    let mut line = String::new();
    loop {
        line.clear();
        let n = reader.read_line(&mut line).map_err(file_error(path))?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        hasher.update(line.as_bytes());
        let Some(text) = line.strip_suffix('\n') else {
            return Err(check(format!("line {} is not ended", ids.len() + 1)));
        };
        let hand: ArchivedHand = serde_json::from_str(text)
            .map_err(|e| check(format!("line {}: {e}", ids.len() + 1)))?;
        if hand.hand.status == HandStatus::Started || hand.hand.started_at >= before {
            return Err(check(format!(
                "line {}: hand {} is in play or dealt after the cutoff",
                ids.len() + 1,
                hand.hand.hand_id
            )));
        }
        ids.push(hand.hand.hand_id);
    }
    let sha256 = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok((ids, sha256, bytes))
}

/// The first name of a month's archive that is free in `dir`, with its checksum's:
/// `hands-YYYY-MM.jsonl`, then `hands-YYYY-MM.2.jsonl`, `.3`...
/// The hands of the month's files already named in `dir` (`hands-MONTH.jsonl` and its
/// parts `hands-MONTH.N.jsonl`), each checked against its `.sha256` first: a run stopped
/// (killed, its lock lost, a delete failed) after naming a file but before deleting all
/// its hands leaves them in the database, and the next run into the same folder deletes
/// them instead of writing them into a part of their own. A file that does not match its
/// checksum stops the run ([`ArchiveError::Check`]): which hands it holds is not known.
fn named_hands(dir: &Path, month: &str) -> Result<std::collections::HashSet<HandId>, ArchiveError> {
    #[derive(serde::Deserialize)]
    struct Line {
        hand_id: HandId,
    }
    let mut named = std::collections::HashSet::new();
    let first = format!("hands-{month}.jsonl");
    let part = format!("hands-{month}.");
    for entry in std::fs::read_dir(dir).map_err(file_error(dir))? {
        let entry = entry.map_err(file_error(dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_part = name
            .strip_prefix(&part)
            .and_then(|rest| rest.strip_suffix(".jsonl"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if name != first && !is_part {
            continue;
        }
        let path = entry.path();
        let check = |reason: String| ArchiveError::Check {
            path: path.clone(),
            reason,
        };
        let bytes = std::fs::read(&path).map_err(file_error(&path))?;
        let sum_path = dir.join(format!("{name}.sha256"));
        let sum = std::fs::read_to_string(&sum_path).map_err(file_error(&sum_path))?;
        let hex: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        if sum.split_whitespace().next() != Some(hex.as_str()) {
            return Err(check(format!(
                "does not match {}: which hands it holds is not known; restore it from a copy",
                sum_path.display()
            )));
        }
        for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if line.is_empty() {
                continue;
            }
            let line: Line =
                serde_json::from_slice(line).map_err(|e| check(format!("line {}: {e}", n + 1)))?;
            named.insert(line.hand_id);
        }
    }
    Ok(named)
}

fn free_name(dir: &Path, month: &str) -> (String, PathBuf) {
    (1..)
        .map(|part| match part {
            1 => format!("hands-{month}.jsonl"),
            n => format!("hands-{month}.{n}.jsonl"),
        })
        .map(|name| {
            let path = dir.join(&name);
            (name, path)
        })
        .find(|(name, path)| {
            path.symlink_metadata().is_err()
                && dir
                    .join(format!("{name}.sha256"))
                    .symlink_metadata()
                    .is_err()
        })
        .expect("a free part number")
}

/// An exclusive `flock` on `DIR/.archive-lock` (made once and left there), or
/// [`ArchiveError::Busy`] if another process holds it.
fn lock_folder(dir: &Path) -> Result<std::fs::File, ArchiveError> {
    flock(
        &dir.join(".archive-lock"),
        "is locked: a run is writing into this folder",
    )
}

/// An exclusive `flock` on the file `path` (made if missing, never emptied), held as long
/// as the file returned is open; [`ArchiveError::Busy`] saying `path` and `held` if
/// another open file holds it.
fn flock(path: &Path, held: &str) -> Result<std::fs::File, ArchiveError> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(file_error(path))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => {
            Err(ArchiveError::Busy(format!("{} {held}", path.display())))
        }
        Err(std::fs::TryLockError::Error(e)) => Err(ArchiveError::File {
            path: path.to_path_buf(),
            reason: format!("cannot lock: {e}"),
        }),
    }
}

/// Gives `from` the name `to`, failing if `to` exists (a file that appeared meanwhile is
/// never replaced).
fn link(from: &Path, to: &Path) -> Result<(), ArchiveError> {
    std::fs::hard_link(from, to).map_err(|e| ArchiveError::File {
        path: to.to_path_buf(),
        reason: if e.kind() == std::io::ErrorKind::AlreadyExists {
            "appeared while the archive was written: it is left as it is".into()
        } else {
            e.to_string()
        },
    })
}

/// A database error on the lock's session said as the lock lost when that is why.
async fn lost_or<T>(result: StoreResult<T>, lock: &mut ArchiveLock) -> Result<T, ArchiveError> {
    match result {
        Ok(v) => Ok(v),
        Err(e) => match lock.check().await {
            Err(ArchiveError::LockLost(_)) => Err(ArchiveError::LockLost(e.to_string())),
            _ => Err(e.into()),
        },
    }
}

impl SqlStore {
    /// The archive's cutoff: hands dealt before it (unix milliseconds) may have been moved
    /// to files by [`SqlStore::archive_hands`]; `None` if nothing was ever archived.
    pub async fn archive_cutoff(&self) -> StoreResult<Option<i64>> {
        Ok(sqlx::query_scalar::<_, i64>(
            "select before_at from archive_cutoff where archive_cutoff_id = $1",
        )
        .bind(CUTOFF_ROW)
        .fetch_optional(&self.read)
        .await?)
    }

    /// Moves every complete or void hand dealt before `before` (unix milliseconds), but
    /// each table's newest hand, to `dir`, one file a month (see the module's text), then deletes the hands of each
    /// verified file with their players, [`DELETE_BATCH`] hands a transaction, and
    /// remembers `before` as the cutoff (never lowering it) before the first delete. A
    /// hand in play is left; no ledger row is touched. Creates `dir` if missing. Files are
    /// written with blocking calls: for a command of its own (`pokerd archive`), on a
    /// multi-threaded runtime.
    /// Holds the database's [`ArchiveLock`] for the whole run: a second run at the same
    /// time is refused ([`ArchiveError::Busy`]) before it reads or writes anything.
    pub async fn archive_hands(&self, before: i64, dir: &Path) -> Result<Archive, ArchiveError> {
        let mut lock = self.archive_lock().await?;
        let archived = self.archive_hands_with(before, dir, &mut lock).await;
        lock.release().await;
        archived
    }

    /// Takes the database's [`ArchiveLock`], or says who holds it.
    pub async fn archive_lock(&self) -> Result<ArchiveLock, ArchiveError> {
        match (&self.sqlite_file, self.backend) {
            (_, Backend::Postgres) => {
                let mut conn = self.pool.acquire().await.map_err(StoreError::from)?;
                let got: bool = sqlx::query_scalar(concat!(
                    "select pg_try_advisory_lock($1, ",
                    "(hashtext(current_schema()) & 2147483647))"
                ))
                .bind(ARCHIVE_LOCK_CLASS)
                .fetch_one(&mut *conn)
                .await
                .map_err(StoreError::from)?;
                if !got {
                    // The connection goes back to the pool holding nothing.
                    return Err(ArchiveError::Busy(format!(
                        "PostgreSQL's advisory lock ({ARCHIVE_LOCK_CLASS}, this schema's hash) is held"
                    )));
                }
                Ok(ArchiveLock(Some(Held::Postgres(conn))))
            }
            (Some(db), Backend::Sqlite) => {
                // Beside the file itself: a second name for it (a symbolic link, another
                // spelling of the path) must meet the same lock.
                let db = std::fs::canonicalize(db).map_err(file_error(db))?;
                let mut name = db.as_os_str().to_owned();
                name.push(".archive-lock");
                let path = PathBuf::from(name);
                let file = flock(&path, "is locked")?;
                Ok(ArchiveLock(Some(Held::Sqlite(file))))
            }
            (None, Backend::Sqlite) => Err(ArchiveError::Store(StoreError::Config(
                "a SQLite store without its file".into(),
            ))),
        }
    }

    /// [`SqlStore::archive_hands`] under a lock the caller took ([`SqlStore::archive_lock`])
    /// and lets go afterwards. The lock is checked before each file is named, and on
    /// PostgreSQL the deletes run on its session, so a run whose lock is lost stops
    /// ([`ArchiveError::LockLost`]) instead of going on beside another.
    pub async fn archive_hands_with(
        &self,
        before: i64,
        dir: &Path,
        lock: &mut ArchiveLock,
    ) -> Result<Archive, ArchiveError> {
        let started = Instant::now();
        // Hands dealt from now on stay whatever day was asked: the cutoff never passes the
        // run's start, so a range that starts after it is never said to be archived.
        let before = before.min(now_ms());
        std::fs::create_dir_all(dir).map_err(file_error(dir))?;
        // One run at a time into a folder too, held by this process until the run ends:
        // the database's lock alone can be lost (a PostgreSQL session ended) while this run
        // is still naming a file a next run could not yet see.
        let _folder = lock_folder(dir)?;
        // The folder must take a file even when there is nothing to write.
        let probe = partial_in(dir, "probe");
        std::fs::File::create(&probe).map_err(file_error(dir))?;
        std::fs::remove_file(&probe).map_err(file_error(dir))?;
        let mut archive = Archive {
            before,
            cutoff_recorded: false,
            files: Vec::new(),
            hands_deleted: 0,
            players_deleted: 0,
            elapsed: Duration::ZERO,
        };
        let mut cutoff_recorded = false;
        let mut current: Option<MonthFile> = None;
        let mut after = (i64::MIN, String::new());
        loop {
            let hands = self.next_hands(before, &after).await?;
            let Some(last) = hands.last() else {
                break;
            };
            after = (last.hand.started_at, last.hand.hand_id.to_string());
            for hand in &hands {
                let month = month_of(hand.hand.started_at);
                let mut file = match current.take() {
                    Some(file) if file.month == month => file,
                    Some(done) => {
                        self.finish_month(done, dir, &mut archive, &mut cutoff_recorded, lock)
                            .await?;
                        MonthFile::create(dir, month)?
                    }
                    None => MonthFile::create(dir, month)?,
                };
                file.write(hand)?;
                current = Some(file);
            }
        }
        if let Some(done) = current.take() {
            self.finish_month(done, dir, &mut archive, &mut cutoff_recorded, lock)
                .await?;
        }
        archive.cutoff_recorded = cutoff_recorded;
        archive.elapsed = started.elapsed();
        Ok(archive)
    }

    /// Names a month's verified file, records the cutoff if not yet, and deletes the
    /// file's hands.
    async fn finish_month(
        &self,
        month: MonthFile,
        dir: &Path,
        archive: &mut Archive,
        cutoff_recorded: &mut bool,
        lock: &mut ArchiveLock,
    ) -> Result<(), ArchiveError> {
        let dir = dir.to_path_buf();
        let before = archive.before;
        let folder = dir.clone();
        // Still the only run: a file named now is one no other run writes.
        lock.check().await?;
        let (file, ids) = tokio::task::spawn_blocking(move || month.finish(&dir, before))
            .await
            .map_err(|e| ArchiveError::File {
                path: folder,
                reason: format!("the task writing the file failed: {e}"),
            })??;
        if !*cutoff_recorded {
            // Before the first delete: a player's range is said to be archived before any
            // of its hands goes.
            let recorded = self.record_cutoff(before, lock).await;
            lost_or(recorded, lock).await?;
            *cutoff_recorded = true;
        }
        archive.files.extend(file);
        for chunk in ids.chunks(DELETE_BATCH) {
            let deleted = self.delete_hands(chunk, lock).await;
            let (hands, players) = lost_or(deleted, lock).await?;
            archive.hands_deleted += hands;
            archive.players_deleted += players;
        }
        Ok(())
    }

    /// The next [`READ_BATCH`] hands to archive after `after` (started_at, hand_id), with
    /// their players.
    async fn next_hands(
        &self,
        before: i64,
        after: &(i64, String),
    ) -> StoreResult<Vec<ArchivedHand>> {
        // The hands and their players from one snapshot: a hand another run deletes
        // meanwhile is read whole or not at all, never without its players.
        let mut tx = self.read.begin().await?;
        if self.backend == Backend::Postgres {
            sqlx::query("set transaction isolation level repeatable read")
                .execute(&mut *tx)
                .await?;
        }
        let rows: Vec<SqlHand> = sqlx::query_as(NEXT_HANDS)
            .bind(before)
            .bind(after.0)
            .bind(&after.1)
            .bind(READ_BATCH)
            .fetch_all(&mut *tx)
            .await?;
        let hands: Vec<HandRow> = convert(rows)?;
        if hands.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<String> = hands.iter().map(|h| h.hand_id.to_string()).collect();
        let players: Vec<SqlArchivedPlayer> = sqlx::query_as(PLAYERS_OF.of(self.backend))
            .bind(json_rows(&ids)?)
            .fetch_all(&mut *tx)
            .await?;
        tx.commit().await?;
        let mut by_hand: std::collections::HashMap<String, Vec<ArchivedPlayer>> =
            Default::default();
        for p in players {
            by_hand.entry(p.hand_id).or_default().push(ArchivedPlayer {
                player_id: PlayerId(rows::uuid(&p.player_id)?),
                seat_no: u32::try_from(p.seat_no)
                    .map_err(|_| StoreError::Corrupt("a seat number".into()))?,
                starting_stack: p.starting_stack as Chips,
                finishing_stack: p.finishing_stack as Chips,
                created_at: p.created_at,
                started_at: p.started_at,
                big_blind: p.big_blind.map(|b| b as Chips),
            });
        }
        Ok(hands
            .into_iter()
            .map(|hand| ArchivedHand {
                players: by_hand
                    .remove(&hand.hand_id.to_string())
                    .unwrap_or_default(),
                hand,
            })
            .collect())
    }

    /// Deletes some archived hands and their players in one transaction; returns the
    /// `hand` and `hand_player` rows deleted.
    ///
    /// On PostgreSQL on the lock's own connection: if that session has ended (the
    /// connection dropped, an idle timeout, `pg_terminate_backend`), its advisory lock
    /// went with it and another run may have started, so the delete fails and the run
    /// stops rather than go on unlocked.
    async fn delete_hands(
        &self,
        ids: &[HandId],
        lock: &mut ArchiveLock,
    ) -> StoreResult<(u64, u64)> {
        let ids: Vec<String> = ids.iter().map(HandId::to_string).collect();
        let ids = json_rows(&ids)?;
        let mut tx = match lock.connection() {
            Some(conn) => sqlx::Connection::begin(conn).await?,
            None => self.begin().await?,
        };
        let players = sqlx::query(DELETE_PLAYERS.of(self.backend))
            .bind(&ids)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        let hands = sqlx::query(DELETE_HANDS.of(self.backend))
            .bind(&ids)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        tx.commit().await?;
        Ok((hands, players))
    }

    /// Remembers `before` as the archive's cutoff, unless a later one is remembered (on
    /// the lock's connection on PostgreSQL, as the deletes).
    async fn record_cutoff(&self, before: i64, lock: &mut ArchiveLock) -> StoreResult<()> {
        let query = sqlx::query(SET_CUTOFF)
            .bind(before)
            .bind(now_ms())
            .bind(CUTOFF_ROW);
        match lock.connection() {
            Some(conn) => query.execute(conn).await?,
            None => query.execute(&self.pool).await?,
        };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_is_read_as_its_utc_midnight_and_a_moment_named_by_its_day_and_month() {
        assert_eq!(day_start("1970-01-01"), Some(0));
        assert_eq!(day_start("2026-01-01"), Some(1_767_225_600_000));
        assert_eq!(day_start("2024-02-29"), Some(1_709_164_800_000));
        assert_eq!(day_of(1_767_225_600_000 - 1), "2025-12-31");
        assert_eq!(month_of(1_767_225_600_000 - 1), "2025-12");
        assert_eq!(month_of(1_767_225_600_000), "2026-01");
        for days in [-800_000, -1, 0, 59, 60, 11_016, 20_454, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }

    #[test]
    fn a_day_that_does_not_exist_or_is_not_written_yyyy_mm_dd_is_refused() {
        for bad in [
            "2026-02-30",
            "2025-02-29",
            "2026-13-01",
            "2026-00-10",
            "2026-1-01",
            "26-01-01",
            "2026-01-01T00",
            "2026/01/01",
            "+026-01-01",
            "",
        ] {
            assert_eq!(day_start(bad), None, "{bad}");
        }
    }
}
