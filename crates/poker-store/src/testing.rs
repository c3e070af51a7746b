//! Real databases for tests and benchmarks: a throwaway PostgreSQL cluster started from
//! the installed binaries (or the server `DATABASE_URL` names, with a fresh database per
//! use), and SQLite files in a temporary folder.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

mod shared;

/// A PostgreSQL database for one test: stopped and removed when dropped.
pub struct TestPostgres {
    /// URL of the database to use.
    pub url: String,
    cluster: Option<PathBuf>,
    runner: Vec<String>,
    /// The server's options and log file, to start it again after [`TestPostgres::stop`].
    options: String,
    log: String,
    /// A database of the cluster shared by the tests running at once, dropped with this.
    _shared: Option<shared::SharedUse>,
}

/// A PostgreSQL program (`pg_dump`, `pg_restore`, `psql`...): on `PATH`, or in Debian's
/// `/usr/lib/postgresql/*/bin`.
pub fn find_binary(binary: &str) -> Option<PathBuf> {
    find(binary)
}

fn find(binary: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(
            std::fs::read_dir("/usr/lib/postgresql")
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path().join("bin")),
        )
        .map(|dir| dir.join(binary))
        .find(|p| p.is_file())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn run(runner: &[String], program: &Path, args: &[&str]) -> anyhow::Result<()> {
    let (cmd, rest): (String, Vec<String>) = match runner.split_first() {
        Some((first, rest)) => (
            first.clone(),
            rest.iter()
                .cloned()
                .chain([program.display().to_string()])
                .collect(),
        ),
        None => (program.display().to_string(), Vec::new()),
    };
    let out = Command::new(&cmd).args(&rest).args(args).output()?;
    if !out.status.success() {
        anyhow::bail!(
            "{} failed: {}{}",
            program.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

/// A freshly initialised cluster's data folder, made once per PostgreSQL version and user
/// in the temporary folder and copied by every [`TestPostgres::start`]: `initdb` takes
/// seconds, a copy a fraction of one, so a suite can give each test a cluster of its own.
/// Made aside and renamed into place, so concurrent tests (nextest runs each in its own
/// process) never see half of one.
fn template(runner: &[String], initdb: &Path) -> anyhow::Result<PathBuf> {
    let version = Command::new(initdb).arg("--version").output()?;
    let key = format!(
        "{}|{}|{}",
        initdb.display(),
        String::from_utf8_lossy(&version.stdout).trim(),
        runner.join(" ")
    );
    // FNV-1a: a stable name for the key (std's hasher is seeded per process).
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let template = std::env::temp_dir().join(format!("poker-pg-template-{hash:016x}"));
    if template.join("PG_VERSION").is_file() {
        return Ok(template);
    }
    let scratch = std::env::temp_dir().join(format!(
        "poker-pg-template-{}",
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::create_dir_all(&scratch)?;
    if !runner.is_empty() {
        let status = Command::new("chown")
            .args(["-R", "postgres:postgres"])
            .arg(&scratch)
            .status()?;
        anyhow::ensure!(status.success(), "chown of {} failed", scratch.display());
    }
    let data = scratch.join("data");
    let made = run(
        runner,
        initdb,
        &[
            "-D",
            &data.display().to_string(),
            "-A",
            "trust",
            "-U",
            "postgres",
            "--no-sync",
            "--locale=C",
            "--encoding=UTF8",
        ],
    )
    .and_then(|()| {
        // Another test may have put its template in place first: then this one goes.
        if std::fs::rename(&data, &template).is_err() && !template.join("PG_VERSION").is_file() {
            anyhow::bail!("cannot put the template at {}", template.display());
        }
        Ok(())
    });
    let _ = std::fs::remove_dir_all(&scratch);
    made?;
    Ok(template)
}

impl TestPostgres {
    /// Whether a PostgreSQL is available: `DATABASE_URL` is a postgres URL, or `initdb`
    /// and `pg_ctl` are installed.
    pub fn available() -> bool {
        std::env::var("DATABASE_URL").is_ok_and(|u| u.starts_with("postgres"))
            || (find("initdb").is_some() && find("pg_ctl").is_some())
    }

    /// A fresh database for `what` (a test's name), or `None` with a "SKIPPED" line when
    /// no PostgreSQL is installed, which CI (`CI` set) does not allow: there it panics.
    pub async fn start_or_skip(what: &str) -> Option<TestPostgres> {
        if !TestPostgres::available() {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must run {what} on Postgres: install PostgreSQL"
            );
            eprintln!("SKIPPED: {what} on Postgres (no PostgreSQL installed)");
            return None;
        }
        Some(
            TestPostgres::start(false)
                .await
                .expect("a throwaway Postgres"),
        )
    }

    /// A fresh database: in the server `DATABASE_URL` names, or in a new cluster.
    /// `durable` keeps fsync on (benchmarks); tests turn it off for speed.
    pub async fn start(durable: bool) -> anyhow::Result<TestPostgres> {
        if let Ok(url) = std::env::var("DATABASE_URL") {
            if url.starts_with("postgres") {
                let name = format!("test_{}", uuid::Uuid::new_v4().simple());
                let admin = crate::SqlStore::connect_admin(&url).await?;
                sqlx::query(&format!("create database {name}"))
                    .execute(&admin)
                    .await?;
                admin.close().await;
                let base = url.rsplit_once('/').map_or(url.as_str(), |(b, _)| b);
                return Ok(TestPostgres {
                    url: format!("{base}/{name}"),
                    cluster: None,
                    runner: Vec::new(),
                    options: String::new(),
                    log: String::new(),
                    _shared: None,
                });
            }
        }
        let initdb = find("initdb").ok_or_else(|| anyhow::anyhow!("initdb is not installed"))?;
        let pg_ctl = find("pg_ctl").ok_or_else(|| anyhow::anyhow!("pg_ctl is not installed"))?;
        let dir = std::env::temp_dir().join(format!("poker-pg-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir)?;
        // PostgreSQL refuses to run as root: run it as the postgres user then.
        let runner: Vec<String> = if is_root() {
            let status = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(&dir)
                .status()?;
            anyhow::ensure!(status.success(), "chown of {} failed", dir.display());
            vec![
                "runuser".into(),
                "-u".into(),
                "postgres".into(),
                "--".into(),
            ]
        } else {
            Vec::new()
        };
        let data = dir.join("data");
        let data_s = data.display().to_string();
        let template = template(&runner, &initdb)?;
        // `cp -a` keeps the files' owner (the postgres user when run as root) and modes.
        let out = Command::new("cp")
            .arg("-a")
            .arg(&template)
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
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync={} -c max_connections=200",
            dir.display(),
            if durable { "on" } else { "off" }
        );
        let log = dir.join("log").display().to_string();
        run(
            &runner,
            &pg_ctl,
            &["-D", &data_s, "-o", &options, "-l", &log, "-w", "start"],
        )?;
        Ok(TestPostgres {
            url: format!("postgres://postgres@127.0.0.1:{port}/postgres"),
            cluster: Some(dir),
            runner,
            options,
            log,
            _shared: None,
        })
    }

    /// A fresh schema for `what` (a test's name) in the cluster shared by the tests
    /// running at the same time (its URL sets `search_path`), or a fresh database in the
    /// server `DATABASE_URL` names, or `None` as [`TestPostgres::start_or_skip`]. Cheaper
    /// than a cluster of its own, for tests that never stop the server
    /// ([`TestPostgres::stop`] refuses).
    pub async fn shared_or_skip(what: &str) -> Option<TestPostgres> {
        let url = std::env::var("DATABASE_URL").unwrap_or_default();
        if url.starts_with("postgres") || !TestPostgres::available() || find("psql").is_none() {
            return TestPostgres::start_or_skip(what).await;
        }
        let name = format!("test_{}", uuid::Uuid::new_v4().simple());
        let joined = tokio::task::spawn_blocking(move || shared::join(&name))
            .await
            .expect("joining the shared cluster does not panic");
        let (url, used) = joined.expect("the shared Postgres cluster");
        Some(TestPostgres {
            url,
            cluster: None,
            runner: Vec::new(),
            options: String::new(),
            log: String::new(),
            _shared: Some(used),
        })
    }

    /// Whether this is a throwaway cluster that [`TestPostgres::stop`] can stop.
    pub fn is_throwaway(&self) -> bool {
        self.cluster.is_some()
    }

    /// Stops the server at once (an outage); [`TestPostgres::restart`] brings it back.
    pub fn stop(&self) -> anyhow::Result<()> {
        let (pg_ctl, data) = self.control()?;
        run(
            &self.runner,
            &pg_ctl,
            &["-D", &data, "-m", "immediate", "-w", "stop"],
        )
    }

    /// Starts the server again on the same port, with the same data.
    pub fn restart(&self) -> anyhow::Result<()> {
        let (pg_ctl, data) = self.control()?;
        run(
            &self.runner,
            &pg_ctl,
            &[
                "-D",
                &data,
                "-o",
                &self.options,
                "-l",
                &self.log,
                "-w",
                "start",
            ],
        )
    }

    fn control(&self) -> anyhow::Result<(PathBuf, String)> {
        let dir = self
            .cluster
            .as_ref()
            .ok_or_else(|| anyhow::anyhow!("not a throwaway cluster"))?;
        let pg_ctl = find("pg_ctl").ok_or_else(|| anyhow::anyhow!("no pg_ctl"))?;
        Ok((pg_ctl, dir.join("data").display().to_string()))
    }
}

impl Drop for TestPostgres {
    fn drop(&mut self) {
        if let Some(dir) = &self.cluster {
            if let Some(pg_ctl) = find("pg_ctl") {
                let data = dir.join("data").display().to_string();
                let _ = run(
                    &self.runner,
                    &pg_ctl,
                    &["-D", &data, "-m", "immediate", "-w", "stop"],
                );
            }
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// A SQLite database file in a fresh temporary folder (removed when dropped).
pub struct TestSqlite {
    /// URL of the database.
    pub url: String,
    dir: PathBuf,
}

impl TestSqlite {
    /// A new, empty database file.
    pub fn new() -> TestSqlite {
        let dir =
            std::env::temp_dir().join(format!("poker-sqlite-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        TestSqlite {
            url: format!("sqlite://{}", dir.join("poker.db").display()),
            dir,
        }
    }
}

impl Default for TestSqlite {
    fn default() -> TestSqlite {
        TestSqlite::new()
    }
}

impl Drop for TestSqlite {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
