//! Processes for the tests of several nodes: a child process killed when the test ends,
//! and a `nats-server` on a free loopback port.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A child process, killed (SIGKILL) when dropped so a failing test leaves none behind;
/// keeps the last lines of its stderr and prints them if the test fails.
pub struct Proc {
    /// What the test calls it.
    pub name: String,
    /// The process, until it is killed.
    pub child: Option<Child>,
    /// Its last lines on stderr.
    tail: Arc<Mutex<VecDeque<String>>>,
}

impl Proc {
    /// Starts `command` with stderr piped to a thread that keeps its last lines and shows
    /// each to `on_line`.
    pub fn spawn(
        name: &str,
        mut command: Command,
        mut on_line: impl FnMut(&str) + Send + 'static,
    ) -> std::io::Result<Proc> {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()?;
        let stderr = child.stderr.take().expect("stderr is piped");
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let keep = tail.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                on_line(&line);
                let mut keep = keep.lock().unwrap_or_else(|e| e.into_inner());
                if keep.len() == 40 {
                    keep.pop_front();
                }
                keep.push_back(line);
            }
        });
        Ok(Proc {
            name: name.to_string(),
            child: Some(child),
            tail,
        })
    }

    /// The last lines it wrote to stderr.
    pub fn tail(&self) -> String {
        let tail = self.tail.lock().unwrap_or_else(|e| e.into_inner());
        tail.iter()
            .map(|l| l.chars().take(400).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// How it ended, if it has.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child
            .as_mut()
            .and_then(|c| c.try_wait().ok().flatten())
    }

    /// SIGKILL, and reaped.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill();
        if std::thread::panicking() {
            eprintln!(
                "--- the last lines {} wrote ---\n{}",
                self.name,
                self.tail()
            );
        }
    }
}

/// Where Debian's `nats-server` is (it installs it in /usr/sbin, not on every PATH).
pub fn nats_server_binary() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/usr/bin", "/usr/local/bin", "/usr/local/sbin"].map(PathBuf::from))
        .map(|dir| dir.join("nats-server"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "nats-server is not installed: the failover test needs a NATS server. \
                 Install Debian's package: `sudo apt-get install nats-server` (.ci/run does)"
            )
        })
}

/// A free loopback port (bound, read, let go).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts `nats-server` on a free loopback port; returns it and its URL once it accepts.
pub async fn nats() -> (Proc, String) {
    let port = free_port();
    (nats_on(port).await, format!("nats://127.0.0.1:{port}"))
}

/// Starts `nats-server` on a free loopback port requiring `token` of every client
/// (`--auth`); returns it and its URL without the token, once it accepts.
pub async fn nats_with_token(token: &str) -> (Proc, String) {
    let port = free_port();
    (
        nats_serving(port, &["--auth", token]).await,
        format!("nats://127.0.0.1:{port}"),
    )
}

/// Starts `nats-server` on this loopback port (again, after it was stopped: the nodes'
/// NATS URL stays good); returns it once it accepts.
pub async fn nats_on(port: u16) -> Proc {
    nats_serving(port, &[]).await
}

async fn nats_serving(port: u16, extra: &[&str]) -> Proc {
    let binary = nats_server_binary();
    let mut command = Command::new(&binary);
    command.args(["-a", "127.0.0.1", "-p", &port.to_string()]);
    command.args(extra);
    let mut proc = Proc::spawn("nats-server", command, |_| {})
        .unwrap_or_else(|e| panic!("{} does not start: {e}", binary.display()));
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Some(status) = proc.exited() {
            panic!("nats-server exited ({status}) before accepting on port {port}");
        }
        assert!(
            Instant::now() < deadline,
            "nats-server does not accept on 127.0.0.1:{port} within 10 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    proc
}

/// A TCP relay to NATS that can be cut: its connections close, and new ones are closed
/// as soon as they are made, until it is mended.
pub struct Relay {
    pub url: String,
    cut: Arc<std::sync::atomic::AtomicBool>,
    /// Each relayed connection's task, to end them on a cut.
    links: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>>,
    accepting: tokio::task::JoinHandle<()>,
}

impl Relay {
    pub async fn start(to: &str) -> Relay {
        let to = to.trim_start_matches("nats://").to_string();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("nats://{}", listener.local_addr().unwrap());
        let cut = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let links: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>> = Arc::default();
        let (is_cut, tasks) = (cut.clone(), links.clone());
        let accepting = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                if is_cut.load(std::sync::atomic::Ordering::SeqCst) {
                    continue;
                }
                let to = to.clone();
                let link = tokio::spawn(async move {
                    if let Ok(mut outbound) = tokio::net::TcpStream::connect(&to).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
                tasks.lock().unwrap().push(link);
            }
        });
        Relay {
            url,
            cut,
            links,
            accepting,
        }
    }

    /// Closes every connection through it, and every new one until mended.
    pub fn cut(&self) {
        self.cut.store(true, std::sync::atomic::Ordering::SeqCst);
        for link in self.links.lock().unwrap().drain(..) {
            link.abort();
        }
    }

    pub fn mend(&self) {
        self.cut.store(false, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.cut();
        self.accepting.abort();
    }
}
