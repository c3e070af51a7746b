//! One PostgreSQL cluster shared by the tests running at the same time, each with a
//! schema of its own (its URL sets `search_path`): creating a schema takes milliseconds,
//! a database a second (a copy of `template1`), a cluster about as long.
//!
//! nextest runs every test in a process of its own, so a cluster kept in a `static` would
//! be one per test again. The cluster lives in a known folder instead: a test takes an
//! exclusive lock (`flock` on a file beside the folder), starts the cluster if it is not running,
//! leaves a file naming its process among the folder's users, and lets the lock go. A
//! small shell loop started with the cluster (in a session of its own, so that it outlives
//! the test that started it) stops the cluster and removes the folder once no user's
//! process has been alive for ten seconds: no server outlives the run by more than that,
//! whether its tests ended well, panicked or were killed.

use std::io::BufRead;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::{find, is_root, run, template};

/// The reaper: every two seconds, under the lock, forgets the users whose process has
/// ended; ten seconds without one, stops the cluster and removes its folder.
/// Arguments: the folder, the lock file, then the command that stops the cluster.
const REAPER: &str = r#"
dir="$1"; lock="$2"; shift 2
idle=0
while sleep 2; do
  exec 9>>"$lock"
  flock 9
  live=0
  for f in "$dir"/users/*; do
    [ -e "$f" ] || continue
    if kill -0 "$(cat "$f")" 2>/dev/null; then live=1; else rm -f "$f"; fi
  done
  if [ "$live" = 1 ]; then idle=0; else idle=$((idle + 2)); fi
  if [ "$idle" -ge 10 ]; then
    "$@" >/dev/null 2>&1
    rm -rf "$dir"
    exit 0
  fi
  exec 9>&-
done
"#;

/// The cluster's lock, held by a `flock` child process for as long as its input is open:
/// released when dropped, and by the kernel if this process dies. (`File::lock` would
/// need a newer Rust than the workspace's.)
struct Held(std::process::Child);

impl Held {
    /// Waits for the lock on `lock` (created if missing).
    fn take(lock: &Path) -> anyhow::Result<Held> {
        let mut child = Command::new("flock")
            .arg(lock)
            .args(["sh", "-c", "echo locked; cat"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let mut line = String::new();
        if let Some(out) = child.stdout.take() {
            std::io::BufReader::new(out).read_line(&mut line)?;
        }
        let held = Held(child);
        anyhow::ensure!(line.trim() == "locked", "flock {} failed", lock.display());
        Ok(held)
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        drop(self.0.stdin.take());
        let _ = self.0.wait();
    }
}

/// This test's use of the shared cluster: its schema, dropped with it.
pub(super) struct SharedUse {
    /// The cluster's `postgres` database, where the schemas are.
    admin_url: String,
    /// This test's schema.
    schema: String,
    /// The file that counts this test among the cluster's users.
    user_file: PathBuf,
}

impl Drop for SharedUse {
    fn drop(&mut self) {
        let _ = Command::new(find("psql").unwrap_or_else(|| "psql".into()))
            .arg(&self.admin_url)
            .args(["-q", "-c"])
            .arg(format!("drop schema if exists {} cascade", self.schema))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_file(&self.user_file);
    }
}

/// The URL of a new empty schema named `schema` in the shared cluster's `postgres`
/// database, and this test's use of it; the cluster is started if it is not running.
pub(super) fn join(schema: &str) -> anyhow::Result<(String, SharedUse)> {
    let initdb = find("initdb").ok_or_else(|| anyhow::anyhow!("initdb is not installed"))?;
    let pg_ctl = find("pg_ctl").ok_or_else(|| anyhow::anyhow!("pg_ctl is not installed"))?;
    let runner: Vec<String> = if is_root() {
        ["runuser", "-u", "postgres", "--"]
            .map(String::from)
            .to_vec()
    } else {
        Vec::new()
    };
    let template = template(&runner, &initdb)?;
    let name = template
        .file_name()
        .map(|n| n.to_string_lossy().replace("template", "shared"))
        .ok_or_else(|| anyhow::anyhow!("a template without a name"))?;
    let dir = std::env::temp_dir().join(name);
    let lock = dir.with_extension("lock");
    let held = Held::take(&lock)?;
    let joined = join_locked(&dir, &lock, &template, &runner, &pg_ctl);
    drop(held);
    let (port, user_file) = joined?;
    let admin_url = format!("postgres://postgres@127.0.0.1:{port}/postgres");
    let out = Command::new(find("psql").unwrap_or_else(|| "psql".into()))
        .arg(&admin_url)
        .args(["-q", "-c"])
        .arg(format!("create schema {schema}"))
        .output()?;
    let use_ = SharedUse {
        admin_url: admin_url.clone(),
        schema: schema.to_string(),
        user_file,
    };
    anyhow::ensure!(
        out.status.success(),
        "create schema {schema} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok((
        format!("{admin_url}?options=-c%20search_path%3D{schema}"),
        use_,
    ))
}

/// Under the lock: the running cluster's port, after starting it (and its reaper) if
/// needed, and the file that counts this process among its users.
fn join_locked(
    dir: &Path,
    lock: &Path,
    template: &Path,
    runner: &[String],
    pg_ctl: &Path,
) -> anyhow::Result<(u16, PathBuf)> {
    let data = dir.join("data").display().to_string();
    let port_file = dir.join("port");
    let running = port_file.is_file() && run(runner, pg_ctl, &["-D", &data, "status"]).is_ok();
    if !running {
        let _ = std::fs::remove_dir_all(dir);
        start(dir, lock, template, runner, pg_ctl)?;
    }
    let port: u16 = std::fs::read_to_string(&port_file)?.trim().parse()?;
    let users = dir.join("users");
    std::fs::create_dir_all(&users)?;
    let user_file = users.join(uuid::Uuid::new_v4().simple().to_string());
    std::fs::write(&user_file, std::process::id().to_string())?;
    Ok((port, user_file))
}

/// Starts the shared cluster from the template, in a session of its own, and its reaper.
fn start(
    dir: &Path,
    lock: &Path,
    template: &Path,
    runner: &[String],
    pg_ctl: &Path,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)?;
    if !runner.is_empty() {
        let status = Command::new("chown")
            .args(["postgres:postgres"])
            .arg(dir)
            .status()?;
        anyhow::ensure!(status.success(), "chown of {} failed", dir.display());
    }
    let data = dir.join("data");
    let out = Command::new("cp")
        .arg("-a")
        .arg(template)
        .arg(&data)
        .output()?;
    anyhow::ensure!(
        out.status.success(),
        "copying {} failed: {}",
        template.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let options = format!(
        "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=400",
        dir.display()
    );
    let log = dir.join("log").display().to_string();
    let data = data.display().to_string();
    // A session of its own: the test runner may end the process group of the test that
    // started it.
    let detached: Vec<String> = ["setsid", "-w"]
        .map(String::from)
        .into_iter()
        .chain(runner.iter().cloned())
        .collect();
    run(
        &detached,
        pg_ctl,
        &["-D", &data, "-o", &options, "-l", &log, "-w", "start"],
    )?;
    std::fs::write(dir.join("port"), port.to_string())?;
    let stop: Vec<String> = runner
        .iter()
        .cloned()
        .chain([pg_ctl.display().to_string()])
        .chain(["-D", &data, "-m", "immediate", "-w", "stop"].map(String::from))
        .collect();
    Command::new("setsid")
        .args(["sh", "-c", REAPER, "reaper"])
        .arg(dir)
        .arg(lock)
        .args(&stop)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    Ok(())
}
