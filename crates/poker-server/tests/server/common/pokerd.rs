//! `pokerd` as a real process: a server alone on a database (killed when the test ends,
//! its last log lines shown if the test fails), and one-shot commands (`pokerd backup`).

use super::nats::Proc;
use std::net::SocketAddr;
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

/// The environment of every test `pokerd`: the test token, loose rate limits, a
/// real-money room whose players may all connect from 127.0.0.1, JSON logs.
pub fn command(url: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pokerd"));
    command
        .env_remove("POKER_CONFIG")
        .env("DATABASE_URL", url)
        .env("POKER__SERVER__ADDR", "127.0.0.1:0")
        .env("POKER__ADMIN__TOKEN", super::TOKEN)
        .envs(super::LOOSE_RATE_LIMITS)
        .env("POKER__ROOM__MONEY", "real")
        .env("POKER__ROOM__SAME_ADDRESS_SEATING", "allow")
        .env("POKER__LOG__FORMAT", "json");
    command
}

/// Starts `pokerd` alone on `url` and waits until it answers `/healthz` (its start-up
/// recovery done, its tables open); returns the process and its address.
pub async fn serve(name: &str, url: &str) -> (Proc, SocketAddr) {
    let (tx, rx) = mpsc::channel::<SocketAddr>();
    let mut told = false;
    let mut proc = Proc::spawn(name, command(url), move |line| {
        let Ok(event) = serde_json::from_str::<serde_json::Value>(line) else {
            return;
        };
        let message = event["fields"]["message"].as_str().unwrap_or_default();
        if let Some(rest) = message.split("listening on http://").nth(1) {
            if !told {
                told = true;
                let addr = rest.split_whitespace().next().unwrap_or_default();
                let _ = tx.send(addr.parse().expect("an address"));
            }
        }
    })
    .expect("pokerd starts");
    let addr = loop {
        match rx.try_recv() {
            Ok(addr) => break addr,
            Err(mpsc::TryRecvError::Empty) => {
                if let Some(status) = proc.exited() {
                    panic!(
                        "{name} exited ({status}) before listening:\n{}",
                        proc.tail()
                    );
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(mpsc::TryRecvError::Disconnected) => {
                panic!("{name} closed its log before listening:\n{}", proc.tail())
            }
        }
    };
    for _ in 0..1500 {
        if reqwest::get(format!("http://{addr}/healthz"))
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            return (proc, addr);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{name} does not answer /healthz:\n{}", proc.tail());
}

/// What a one-shot `pokerd` command did.
#[derive(Debug)]
pub struct Ran {
    /// Its exit code (`None`: killed by a signal).
    pub code: Option<i32>,
    /// What it printed on stdout.
    pub stdout: String,
    /// What it printed on stderr.
    pub stderr: String,
}

/// Runs `pokerd ARGS...` on `url` to its end.
pub async fn run(url: &str, args: &[&str]) -> Ran {
    let mut command = tokio::process::Command::from(command(url));
    let out = command.args(args).output().await.expect("pokerd runs");
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
