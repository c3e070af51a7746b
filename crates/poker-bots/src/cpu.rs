//! CPU time and memory of processes and threads, read from Linux's /proc: what the load
//! generator and the I/O floor report (a server's, its SQLite threads', a database's
//! process tree).

use std::time::Duration;

/// A process's CPU time (user + system) and resident memory, from /proc.
pub fn proc_usage(pid: u32) -> Option<(Duration, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) in parentheses.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    let hz = 100; // USER_HZ on Linux
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let rss_kb = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some((Duration::from_millis(ticks * 1000 / hz), rss_kb))
}

/// The fields of /proc/PID/stat after the command name (which may hold spaces).
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    read_stat(&format!("/proc/{pid}/stat")).map(|(_, fields)| fields)
}

/// A stat file of /proc (a process's or a thread's): its command name, and the fields
/// after it.
fn read_stat(path: &str) -> Option<(String, Vec<String>)> {
    let stat = std::fs::read_to_string(path).ok()?;
    let (open, close) = (stat.find('(')?, stat.rfind(')')?);
    let fields = stat.get(close + 2..)?.split_whitespace().map(String::from);
    Some((stat[open + 1..close].to_string(), fields.collect()))
}

/// The name sqlx gives its SQLite threads, as /proc shows it.
pub const SQLITE_THREAD: &str = "sqlx-sqlite";

/// The CPU time (user + system) of a process's threads whose name starts with `prefix`:
/// sqlx runs each SQLite connection on a thread of its own (`sqlx-sqlite-worker`, cut to
/// 15 characters), so SQLite's work inside pokerd is theirs. A thread that ended is not
/// counted (its time stays only in the process's total).
pub fn threads_cpu(pid: u32, prefix: &str) -> Option<Duration> {
    let hz = 100; // USER_HZ on Linux
    let mut ticks = 0u64;
    for entry in std::fs::read_dir(format!("/proc/{pid}/task")).ok()? {
        let Some(tid) = entry
            .ok()
            .and_then(|e| e.file_name().to_str()?.parse::<u32>().ok())
        else {
            continue;
        };
        let Some((name, fields)) = read_stat(&format!("/proc/{pid}/task/{tid}/stat")) else {
            continue;
        };
        if name.starts_with(prefix) {
            // utime, stime.
            ticks += fields
                .get(11..13)
                .map_or(0, |f| f.iter().map(|v| v.parse::<u64>().unwrap_or(0)).sum());
        }
    }
    Some(Duration::from_millis(ticks * 1000 / hz))
}

/// The CPU time of a process tree: `root` (with what its reaped children spent) and its
/// live descendants. A database server's work is done in processes it forks; those that
/// ended are in the root's reaped time.
pub fn tree_cpu(root: u32) -> Option<Duration> {
    let ticks = |f: &[String], from: usize, n: usize| -> u64 {
        f[from..from + n]
            .iter()
            .map(|v| v.parse::<u64>().unwrap_or(0))
            .sum()
    };
    let root_fields = stat_fields(root)?;
    // utime, stime, cutime, cstime.
    let mut total = ticks(&root_fields, 11, 4);
    let mut parents = vec![root];
    let mut seen = std::collections::HashSet::from([root]);
    let all: Vec<(u32, Vec<String>)> = std::fs::read_dir("/proc")
        .ok()?
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, stat_fields(pid)?)))
        .collect();
    while let Some(parent) = parents.pop() {
        for (pid, fields) in &all {
            let ppid = fields.get(1).and_then(|p| p.parse::<u32>().ok());
            if ppid == Some(parent) && seen.insert(*pid) && fields.len() > 12 {
                total += ticks(fields, 11, 2);
                parents.push(*pid);
            }
        }
    }
    Some(Duration::from_millis(total * 10))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    /// The CPU time of a thread named as sqlx names its SQLite threads is found among this
    /// process's threads, and only under that name.
    #[test]
    fn the_sqlite_threads_cpu_is_read_by_their_name() {
        let pid = std::process::id();
        let before = threads_cpu(pid, SQLITE_THREAD).expect("this process's threads");
        let stop = Arc::new(AtomicBool::new(false));
        let spinning = {
            let stop = stop.clone();
            std::thread::Builder::new()
                .name("sqlx-sqlite-worker".into())
                .spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
                    }
                    x
                })
                .expect("a thread")
        };
        // It spins until its CPU time shows (ten-millisecond ticks); a minute at most.
        let mut seen = Duration::ZERO;
        for _ in 0..600 {
            std::thread::sleep(Duration::from_millis(100));
            seen = threads_cpu(pid, SQLITE_THREAD).expect("this process's threads");
            if seen > before {
                break;
            }
        }
        let other = threads_cpu(pid, "no-such-thread").expect("this process's threads");
        stop.store(true, Ordering::Relaxed);
        spinning.join().expect("the thread ends");
        assert!(seen > before, "the spinning thread's CPU time was not read");
        assert_eq!(other, Duration::ZERO);
    }
}
