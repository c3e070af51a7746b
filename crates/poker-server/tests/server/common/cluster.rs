//! `pokerd` nodes of a cluster as child processes (tests/server/failover.rs, tests/server/soak.rs): each
//! started on a free port with the cluster's settings, its warnings kept, and a process
//! that can be frozen with SIGSTOP and woken again, or stopped with SIGTERM.

use super::nats::Proc;
use super::Server;
use std::net::SocketAddr;
use std::process::Command;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// A `pokerd` node of the cluster.
pub struct Node {
    /// Its cluster name (`POKER__CLUSTER__NODE`).
    pub name: &'static str,
    /// The process.
    pub proc: Proc,
    /// Its HTTP and WebSocket address.
    pub server: Server,
    /// The messages it logged at WARN level.
    pub warnings: Arc<Mutex<Vec<String>>>,
}

/// Starts `pokerd` as a cluster node on a free port, logging JSON, with table leases of
/// `lease_ms` renewed every `heartbeat_ms`, and waits until its `/healthz` answers 200.
pub async fn pokerd(
    name: &'static str,
    url: &str,
    nats_url: &str,
    lease_ms: u64,
    heartbeat_ms: u64,
) -> Node {
    pokerd_with(name, url, nats_url, lease_ms, heartbeat_ms, &[]).await
}

/// [`pokerd`] with extra settings (`POKER__...` variables).
pub async fn pokerd_with(
    name: &'static str,
    url: &str,
    nats_url: &str,
    lease_ms: u64,
    heartbeat_ms: u64,
    settings: &[(&str, &str)],
) -> Node {
    let mut command = super::pokerd::command(url);
    command
        .env("POKER__CLUSTER__NATS_URL", nats_url)
        .env("POKER__CLUSTER__NODE", name)
        .env("POKER__CLUSTER__LEASE_MS", lease_ms.to_string())
        .env("POKER__CLUSTER__HEARTBEAT_MS", heartbeat_ms.to_string())
        .envs(settings.iter().copied());
    let (tx, rx) = mpsc::channel::<SocketAddr>();
    let mut told = false;
    let warnings = Arc::new(Mutex::new(Vec::new()));
    let warned = warnings.clone();
    let mut proc = Proc::spawn(name, command, move |line| {
        let Ok(event) = serde_json::from_str::<serde_json::Value>(line) else {
            return;
        };
        let message = event["fields"]["message"].as_str().unwrap_or_default();
        if event["level"] == "WARN" {
            let mut warned = warned.lock().unwrap_or_else(|e| e.into_inner());
            warned.push(message.to_string());
        }
        if told {
            return;
        }
        if let Some(rest) = message.split("listening on http://").nth(1) {
            if let Some(addr) = rest.split_whitespace().next().and_then(|a| a.parse().ok()) {
                told = tx.send(addr).is_ok();
            }
        }
    })
    .expect("pokerd starts");
    let addr = match rx.recv_timeout(Duration::from_secs(30)) {
        Ok(addr) => addr,
        Err(why) => {
            // Its output may still be arriving.
            std::thread::sleep(Duration::from_millis(200));
            panic!(
                "pokerd {name} never said where it listens ({why:?}; exit status {:?}); \
                 does it know the POKER__CLUSTER__* settings? Its output:\n{}",
                proc.exited(),
                proc.tail()
            )
        }
    };
    let server = Server::external(addr, url);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let status = reqwest::get(format!("{}/healthz", server.base))
            .await
            .map(|r| r.status().as_u16());
        if matches!(status, Ok(200)) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "pokerd {name}: /healthz is not 200 within 10 s (last: {status:?})"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Node {
        name,
        proc,
        server,
        warnings,
    }
}

/// Sends SIGTERM, as an operator (or systemd, or Kubernetes) stops a node: it shuts down
/// cleanly, in its own time.
pub fn terminate(proc: &Proc) {
    let pid = proc.child.as_ref().expect("the process runs").id();
    Stopped::signal(pid, "-TERM");
}

/// A process stopped with SIGSTOP: sent SIGCONT when dropped, so a failing test never
/// leaves a stopped process behind (its `Proc`, dropped after, then kills it).
pub struct Stopped {
    pid: Option<u32>,
}

impl Stopped {
    fn signal(pid: u32, signal: &str) {
        let status = Command::new("kill")
            .args([signal, &pid.to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill {signal} {pid}: {status}");
    }

    /// SIGSTOP.
    pub fn stop(proc: &Proc) -> Stopped {
        let pid = proc.child.as_ref().expect("the process runs").id();
        Stopped::signal(pid, "-STOP");
        Stopped { pid: Some(pid) }
    }

    /// SIGCONT.
    pub fn wake(&mut self) {
        if let Some(pid) = self.pid.take() {
            Stopped::signal(pid, "-CONT");
        }
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        if let Some(pid) = self.pid.take() {
            let _ = Command::new("kill")
                .args(["-CONT", &pid.to_string()])
                .status();
        }
    }
}
