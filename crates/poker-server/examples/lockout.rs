//! The lockout attack of issue 24 against pokerd, measured: how many sockets one address
//! holds when it opens 1,011 silent ones, and how long `/healthz` and a login take for
//! everyone else meanwhile; then many addresses filling the room to its limit (1,000
//! connections, as under a 1,024 open-file limit): what the reserve answers, and how fast
//! a socket past the limit is refused.
//!
//! ```sh
//! cargo run --release -p poker-server --example lockout
//! ```
//!
//! Attackers bind 127.0.0.2, 127.0.0.3...: other addresses on the loopback (Linux).

use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::AsyncReadExt;
use tokio::net::{TcpSocket, TcpStream};

const TOKEN: &str = "example-admin-token-0123456789abcdef";

async fn connect_from(ip: &str, addr: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(format!("{ip}:0").parse().expect("an address"))?;
    socket.connect(addr).await
}

/// Whether the server refused the socket at once (it wrote its 503 and closed).
async fn refused(tcp: &mut TcpStream) -> bool {
    let mut buf = [0u8; 512];
    tokio::time::timeout(Duration::from_millis(30), tcp.read(&mut buf))
        .await
        .is_ok()
}

/// Milliseconds of `n` requests from `ip`, each on a new connection: p50, p99, max.
async fn timed(ip: &str, url: &str, body: Option<&str>, n: usize) -> (f64, f64, f64, usize) {
    let mut ms = Vec::new();
    let mut failed = 0;
    for _ in 0..n {
        let client = reqwest::Client::builder()
            .local_address(ip.parse::<std::net::IpAddr>().expect("an address"))
            .pool_max_idle_per_host(0)
            .build()
            .expect("a client");
        let t = Instant::now();
        let request = match body {
            Some(b) => client
                .post(url)
                .header("content-type", "application/json")
                .body(b.to_string()),
            None => client.get(url),
        };
        match request.send().await {
            Ok(r) if r.status().as_u16() < 500 => {
                let _ = r.bytes().await;
                ms.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            _ => failed += 1,
        }
    }
    ms.sort_by(f64::total_cmp);
    let p = |q: f64| {
        ms.get(((ms.len().max(1) - 1) as f64 * q) as usize)
            .copied()
            .unwrap_or(f64::NAN)
    };
    (p(0.5), p(0.99), p(1.0), failed)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let url = format!("sqlite://{}", dir.path().join("poker.db").display());
    let env: Vec<(String, String)> = [
        ("DATABASE_URL", url.as_str()),
        ("POKER__ADMIN__TOKEN", TOKEN),
        ("POKER__ROOM__MONEY", "real"),
        ("POKER__LOG__LEVEL", "error"),
        // As under a 1,024 open-file limit.
        ("POKER__SERVER__MAX_CONNECTIONS", "1000"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let config = poker_server::Config::from_layers(None, &env)?;
    poker_server::logging::init(&config.log)?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(poker_server::run(
        listener,
        async {
            let _ = stopped.await;
        },
        config,
    ));
    let base = format!("http://{addr}");
    while reqwest::get(format!("{base}/healthz")).await.is_err() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let login = r#"{"name":"nobody","password":"wrong-password"}"#;
    let health = format!("{base}/healthz");
    let login_url = format!("{base}/login");
    let (p50, p99, max, _) = timed("127.0.0.50", &health, None, 200).await;
    println!("no attack: /healthz p50 {p50:.2} ms, p99 {p99:.2} ms, max {max:.2} ms");

    // One address, 1,011 silent sockets.
    let mut held = Vec::new();
    let mut refusals = 0;
    for _ in 0..1011 {
        let mut tcp = connect_from("127.0.0.2", addr).await?;
        if refused(&mut tcp).await {
            refusals += 1;
        } else {
            held.push(tcp);
        }
    }
    println!(
        "one address opened 1,011 silent sockets: {} held, {refusals} refused at once",
        held.len()
    );
    let (p50, p99, max, failed) = timed("127.0.0.51", &health, None, 200).await;
    println!(
        "  meanwhile /healthz from another address: p50 {p50:.2} ms, p99 {p99:.2} ms, max {max:.2} ms ({failed} failed)"
    );
    let (p50, p99, max, failed) = timed("127.0.0.52", &login_url, Some(login), 20).await;
    println!(
        "  meanwhile POST /login (a wrong password, Argon2): p50 {p50:.1} ms, p99 {p99:.1} ms, max {max:.1} ms ({failed} failed)"
    );

    // Many addresses fill the room to its limit.
    let mut i = 3;
    let mut last_refused = false;
    while !last_refused && i < 40 {
        for _ in 0..64 {
            let mut tcp = connect_from(&format!("127.0.0.{i}"), addr).await?;
            if refused(&mut tcp).await {
                last_refused = true;
                break;
            }
            held.push(tcp);
        }
        i += 1;
    }
    println!(
        "{} addresses hold {} sockets: the room is at its reserve",
        i - 2,
        held.len()
    );
    let (p50, p99, max, failed) = timed("127.0.0.53", &health, None, 100).await;
    println!(
        "  /healthz in the reserve: p50 {p50:.2} ms, p99 {p99:.2} ms, max {max:.2} ms ({failed} refused)"
    );
    let (p50, _, max, failed) = timed("127.0.0.54", &login_url, Some(login), 10).await;
    println!("  POST /login in the reserve: p50 {p50:.1} ms, max {max:.1} ms ({failed} refused)");
    // The reserve filled too, two places an address.
    for j in 60..120 {
        for _ in 0..2 {
            let mut tcp = connect_from(&format!("127.0.0.{j}"), addr).await?;
            if !refused(&mut tcp).await {
                held.push(tcp);
            }
        }
    }
    let mut ms = Vec::new();
    for _ in 0..100 {
        let t = Instant::now();
        let mut tcp = connect_from("127.0.0.200", addr).await?;
        let mut buf = Vec::new();
        let _ = tcp.read_to_end(&mut buf).await;
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    ms.sort_by(f64::total_cmp);
    println!(
        "full ({} sockets held): a new socket is answered 503 and closed in p50 {:.2} ms, max {:.2} ms",
        held.len(),
        ms[49],
        ms[99]
    );
    drop(held);
    let _ = stop.send(());
    server.await??;
    Ok(())
}
