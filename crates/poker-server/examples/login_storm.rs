//! A login storm against a real pokerd, and what it leaves behind in resident memory.
//!
//! Starts the given pokerd binary (a fresh SQLite room in a temporary directory), reads
//! its resident memory (VmRSS in /proc/PID/status) at rest, then fires 120 registrations
//! at once and, once they are answered, 120 logins at once (each an Argon2 hash of 19 MiB
//! and tens of milliseconds). It prints the latency of both (p50, p99, max), the peak
//! resident memory, and samples it every five seconds for a minute and more after the
//! storm: the figure issue 28 asks about is the resident memory a minute later, against
//! the one before.
//!
//! ```sh
//! cargo build --release -p poker-server
//! cargo run --release -p poker-server --example login_storm -- target/release/pokerd
//! ```
//!
//! The pokerd binary may be any build (an older one for comparison); the last line is
//! JSON with the keys `rss_before_kb`, `rss_peak_kb`, `rss_after_60s_kb`,
//! `register_p50_ms`, `register_p99_ms`, `login_p50_ms`, `login_p99_ms`.

use serde_json::json;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const STORM: usize = 120;
const TOKEN: &str = "login-storm-admin-token-0123456789abcdef";

/// A process's resident memory in kB.
fn rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// Stops the server when the example ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// p50, p99 and max of `ms`, in milliseconds.
fn percentiles(mut ms: Vec<f64>) -> (f64, f64, f64) {
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| {
        ms.get(((ms.len().max(1) - 1) as f64 * q).round() as usize)
            .copied()
            .unwrap_or(f64::NAN)
    };
    (at(0.5), at(0.99), at(1.0))
}

/// Sends `STORM` requests to `path` at once, one per name; the milliseconds each took.
async fn storm(base: &str, path: &str, run: &str) -> anyhow::Result<Vec<f64>> {
    let client = reqwest::Client::new();
    let mut all = tokio::task::JoinSet::new();
    for i in 0..STORM {
        let request = client.post(format!("{base}{path}")).json(
            &json!({ "name": format!("storm{run}n{i}"), "password": format!("password-{i}") }),
        );
        all.spawn(async move {
            let t = Instant::now();
            let answer = request.send().await?.error_for_status()?;
            let _ = answer.bytes().await?;
            anyhow::Ok(t.elapsed().as_secs_f64() * 1000.0)
        });
    }
    let mut ms = Vec::new();
    while let Some(done) = all.join_next().await {
        ms.push(done??);
    }
    Ok(ms)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let pokerd = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/release/pokerd".into());
    // pokerd runs in a temporary directory: a relative path is taken from here first.
    let pokerd = std::fs::canonicalize(&pokerd)
        .map_err(|e| anyhow::anyhow!("cannot find {pokerd}: {e}"))?
        .display()
        .to_string();
    let dir = tempfile::tempdir()?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let child = Command::new(&pokerd)
        .current_dir(dir.path())
        .env(
            "DATABASE_URL",
            format!("sqlite://{}", dir.path().join("poker.db").display()),
        )
        .env("POKER__SERVER__ADDR", format!("127.0.0.1:{port}"))
        .env("POKER__ADMIN__TOKEN", TOKEN)
        .env("POKER__LOG__LEVEL", "error")
        .env("POKER__SERVER__REGISTER_PER_ADDRESS", "100000")
        .env("POKER__SERVER__API_RATE_PER_SEC", "100000")
        .env("POKER__SERVER__API_RATE_BURST", "100000")
        .env("POKER__SERVER__API_ADDRESS_RATE_PER_SEC", "100000")
        .env("POKER__SERVER__API_ADDRESS_RATE_BURST", "100000")
        .spawn()
        .map_err(|e| anyhow::anyhow!("cannot start {pokerd}: {e}"))?;
    let pid = child.id();
    let _server = Server(child);
    let base = format!("http://127.0.0.1:{port}");
    let started = Instant::now();
    while reqwest::get(format!("{base}/healthz")).await.is_err() {
        anyhow::ensure!(
            started.elapsed() < Duration::from_secs(60),
            "pokerd did not start"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    let before = rss_kb(pid);
    println!("{pokerd} (pid {pid}): {before} kB resident at rest");

    // The peak, sampled every 20 ms while the storm lasts.
    let peak = Arc::new(AtomicU64::new(before));
    let storming = Arc::new(AtomicBool::new(true));
    let sampler = {
        let (peak, storming) = (peak.clone(), storming.clone());
        tokio::spawn(async move {
            while storming.load(Ordering::Relaxed) {
                peak.fetch_max(rss_kb(pid), Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
    };
    let run = format!("{:06x}", std::process::id());
    let t = Instant::now();
    let registered = percentiles(storm(&base, "/register", &run).await?);
    let register_secs = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let logged_in = percentiles(storm(&base, "/login", &run).await?);
    let login_secs = t.elapsed().as_secs_f64();
    storming.store(false, Ordering::Relaxed);
    sampler.await?;
    let peak = peak.load(Ordering::Relaxed).max(rss_kb(pid));
    println!(
        "{STORM} registrations at once: {register_secs:.1} s in all; each p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms",
        registered.0, registered.1, registered.2
    );
    println!(
        "{STORM} logins at once: {login_secs:.1} s in all; each p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms",
        logged_in.0, logged_in.1, logged_in.2
    );
    println!("peak resident: {peak} kB");
    let mut after = 0;
    for s in (5..=65).step_by(5) {
        tokio::time::sleep(Duration::from_secs(5)).await;
        after = rss_kb(pid);
        println!("  {s:>2} s after the storm: {after} kB");
    }
    println!(
        "resident: {before} kB before, {peak} kB at the peak, {after} kB 65 s after the storm"
    );
    println!(
        "{}",
        json!({
            "rss_before_kb": before, "rss_peak_kb": peak, "rss_after_60s_kb": after,
            "register_p50_ms": registered.0, "register_p99_ms": registered.1,
            "login_p50_ms": logged_in.0, "login_p99_ms": logged_in.1,
        })
    );
    Ok(())
}
