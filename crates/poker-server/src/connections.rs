//! The listening socket and every connection on it: pokerd's own accept loop (hyper-util's
//! HTTP/1 and HTTP/2 server, upgrades for the WebSocket), so that no client can hold a
//! socket it does not use and no address can take the room's files.
//!
//! - **Timeouts.** A connection must send a whole request head within
//!   `server.header_timeout_ms` of opening (or of its first byte after an answer), and a
//!   kept-alive one may wait `server.idle_timeout_ms` for its next request; past either
//!   it is closed. A WebSocket, once upgraded, is the connection task's business
//!   (`ws/connection.rs`).
//! - **Per address.** One client address (IPv6: its /64, as [`crate::http::guard`]
//!   buckets) may hold `server.connections_per_address` open connections; more are
//!   answered 503 and closed at once. The server's own host (127.0.0.1, ::1: its house
//!   bots, a load generator) is not capped. Behind a proxy (`server.client_address_header`)
//!   every connection comes from the proxy: the cap is then kept per forwarded address,
//!   request by request ([`crate::http::shield`]).
//! - **The open-file limit.** Raised to its hard limit at start; connections are counted
//!   against it less `server.reserved_files` (or `server.max_connections`). The last
//!   `server.reserve_connections` are the reserve: a connection opened there answers one
//!   request, and only `/healthz`, the logins and a seated player's WebSocket
//!   ([`crate::http::shield`] decides); an address may hold `server.reserve_per_address`
//!   of them. Past the most, new connections are answered 503 and closed at once, while
//!   those open (seated players among them) go on.
//! - **Shutdown.** When the shutdown future completes (the tables have drained), no more
//!   connections are taken, every connection is asked to close once its request is
//!   answered, and serving ends when none is left.

use crate::config::ServerConfig;
use axum::extract::ConnectInfo;
use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// How many connections may be open, worked out at start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Open connections at most: past it a new one is refused at once.
    pub max: u64,
    /// From this many open, a new connection is of the reserve.
    pub reserve_from: u64,
    /// Open connections per client address (0: no cap, behind a proxy).
    pub per_address: u32,
    /// Connections of the reserve per client address.
    pub reserve_per_address: u32,
}

impl Limits {
    /// The limits for this configuration, with `open_files` the process's open-file
    /// (soft) limit.
    pub fn new(config: &ServerConfig, open_files: u64) -> Limits {
        let files = open_files.saturating_sub(config.reserved_files);
        let max = match config.max_connections {
            0 => files,
            n => n.min(files),
        };
        let behind_proxy = !config.client_address_header.trim().is_empty();
        Limits {
            max,
            reserve_from: max.saturating_sub(config.reserve_connections),
            per_address: if behind_proxy {
                0
            } else {
                config.connections_per_address
            },
            reserve_per_address: if behind_proxy {
                u32::MAX
            } else {
                config.reserve_per_address
            },
        }
    }
}

/// Raises the open-file soft limit to the hard limit (every socket is a file); returns
/// the soft limit in force.
pub fn raise_open_file_limit() -> u64 {
    let before = rlimit::getrlimit(rlimit::Resource::NOFILE).map_or(0, |(soft, _)| soft);
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(now) => {
            if now > before {
                tracing::info!("open files: the soft limit raised from {before} to {now}");
            }
            now
        }
        Err(e) => {
            tracing::warn!("open files: the soft limit stays at {before}: {e}");
            before
        }
    }
}

/// Whether a connection was taken as one of the reserve: put in each of its requests'
/// extensions, for [`crate::http::shield`] to serve it only what the reserve is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reserve(pub bool);

/// What a connection's requests share with it: whatever must live as long as its socket
/// (a WebSocket included), such as the forwarded address's slot behind a proxy.
#[derive(Default)]
pub struct Held {
    /// Kept until the socket closes.
    pub until_closed: Mutex<Vec<Box<dyn std::any::Any + Send>>>,
}

/// The open connections: how many, and per address.
pub struct Tracker {
    limits: Limits,
    open: AtomicU64,
    by_address: Mutex<HashMap<IpAddr, (u32, u32)>>,
}

/// Why a connection was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Its address holds as many as it may.
    Address,
    /// The server holds as many as it may.
    Full,
}

/// An open connection's place, given back when it closes.
pub struct Slot {
    tracker: Arc<Tracker>,
    ip: IpAddr,
    reserve: bool,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.tracker.open.fetch_sub(1, Ordering::Relaxed);
        let mut by_address = self.tracker.by_address.lock().expect("tracker lock");
        if let Some(entry) = by_address.get_mut(&self.ip) {
            entry.0 -= 1;
            if self.reserve {
                entry.1 -= 1;
            }
            if entry.0 == 0 {
                by_address.remove(&self.ip);
            }
        }
    }
}

impl Tracker {
    /// A tracker holding no connection.
    pub fn new(limits: Limits) -> Arc<Tracker> {
        Arc::new(Tracker {
            limits,
            open: AtomicU64::new(0),
            by_address: Mutex::new(HashMap::new()),
        })
    }

    /// The limits.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Connections open now.
    pub fn open(&self) -> u64 {
        self.open.load(Ordering::Relaxed)
    }

    /// A place for a new connection from `ip` (already bucketed), of the reserve or not,
    /// or why there is none.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Result<Slot, Refusal> {
        let mut by_address = self.by_address.lock().expect("tracker lock");
        let open = self.open.load(Ordering::Relaxed);
        let (all, reserved) = by_address.get(&ip).copied().unwrap_or((0, 0));
        // The server's own host (its house bots, a load generator) is not capped.
        let own_host = ip == IpAddr::from(std::net::Ipv4Addr::LOCALHOST)
            || ip == IpAddr::from(std::net::Ipv6Addr::LOCALHOST);
        if self.limits.per_address > 0 && !own_host && all >= self.limits.per_address {
            return Err(Refusal::Address);
        }
        if open >= self.limits.max {
            return Err(Refusal::Full);
        }
        let reserve = open >= self.limits.reserve_from;
        if reserve && reserved >= self.limits.reserve_per_address {
            return Err(Refusal::Full);
        }
        by_address.insert(ip, (all + 1, reserved + u32::from(reserve)));
        self.open.fetch_add(1, Ordering::Relaxed);
        Ok(Slot {
            tracker: self.clone(),
            ip,
            reserve,
        })
    }
}

/// When a connection last did what: shared by its socket (bytes read) and its service
/// (requests begun and answered), read by its watchdog.
struct Activity {
    base: Instant,
    /// Requests begun and not yet answered in full (their body written).
    in_flight: AtomicU32,
    /// Requests begun so far.
    requests: AtomicU64,
    /// Milliseconds after `base` when the connection last fell idle (opened, or an
    /// answer ended).
    idle_since: AtomicU64,
    /// Milliseconds after `base` when a request head began to arrive while none was in
    /// flight; `NONE` when none is arriving.
    head_since: AtomicU64,
}

const NONE: u64 = u64::MAX;

impl Activity {
    fn new() -> Arc<Activity> {
        Arc::new(Activity {
            base: Instant::now(),
            in_flight: AtomicU32::new(0),
            requests: AtomicU64::new(0),
            idle_since: AtomicU64::new(0),
            head_since: AtomicU64::new(NONE),
        })
    }

    fn now(&self) -> u64 {
        self.base.elapsed().as_millis() as u64
    }

    fn read(&self) {
        if self.in_flight.load(Ordering::Relaxed) == 0 {
            let now = self.now();
            let _ =
                self.head_since
                    .compare_exchange(NONE, now, Ordering::Relaxed, Ordering::Relaxed);
        }
    }

    fn begin(&self) {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.head_since.store(NONE, Ordering::Relaxed);
    }

    fn end(&self) {
        if self.in_flight.fetch_sub(1, Ordering::Relaxed) == 1 {
            self.idle_since.store(self.now(), Ordering::Relaxed);
            self.head_since.store(NONE, Ordering::Relaxed);
        }
    }

    /// When the connection is to be closed if nothing happens (`None`: a request is in
    /// flight, its own timeout bounds it).
    fn deadline(&self, header: Duration, idle: Duration) -> Option<Instant> {
        if self.in_flight.load(Ordering::Relaxed) > 0 {
            return None;
        }
        let at = |ms: u64, d: Duration| self.base + Duration::from_millis(ms) + d;
        match self.head_since.load(Ordering::Relaxed) {
            NONE if self.requests.load(Ordering::Relaxed) == 0 => {
                // A new connection owes its first request head.
                Some(at(self.idle_since.load(Ordering::Relaxed), header))
            }
            NONE => Some(at(self.idle_since.load(Ordering::Relaxed), idle)),
            since => Some(at(since, header)),
        }
    }
}

/// Ends a request's part in its connection's activity when dropped (with the answer's
/// body, once written; or with the request, if it never got that far).
struct Answering(Arc<Activity>);

impl Drop for Answering {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// A response body that holds its request's [`Answering`] until it is written.
struct Tracked {
    body: axum::body::Body,
    _answering: Answering,
}

impl http_body::Body for Tracked {
    type Data = bytes::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// A client's socket, holding its connection's place (and what must live as long) and
/// noting when bytes arrive.
struct Socket {
    tcp: TcpStream,
    activity: Arc<Activity>,
    _slot: Slot,
    _held: Arc<Held>,
}

impl AsyncRead for Socket {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.tcp).poll_read(cx, buf);
        if matches!(poll, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.read();
        }
        poll
    }
}

impl AsyncWrite for Socket {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }
}

/// What a refused connection is told before it is closed: a 503 in the API's error
/// shape, written without waiting (a client that reads nothing just sees it close).
fn refusal_answer(refusal: Refusal) -> String {
    let (code, message) = match refusal {
        Refusal::Address => (
            "too_many_connections",
            "this address holds as many connections as it may",
        ),
        Refusal::Full => ("busy", "the server is full: try again shortly"),
    };
    let body = format!("{{\"error\":\"{code}\",\"message\":\"{message}\"}}");
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nretry-after: 5\r\nconnection: close\r\n\
         x-content-type-options: nosniff\r\ncache-control: no-store\r\n\r\n{body}",
        body.len()
    )
}

/// Serves `app` on `listener` until `shutdown` completes, then lets every connection
/// finish its request and close (see the module's documentation).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    config: &ServerConfig,
    tracker: Arc<Tracker>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let header = Duration::from_millis(config.header_timeout_ms.max(1));
    let idle = Duration::from_millis(config.idle_timeout_ms.max(1));
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    let mut refused_logged: Option<Instant> = None;
    loop {
        let (tcp, peer) = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of files (or another passing error): the sockets open go on;
                    // a moment later, accepting again.
                    tracing::warn!("cannot accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let ip = crate::http::guard::bucket(peer.ip());
        let slot = match tracker.admit(ip) {
            Ok(slot) => slot,
            Err(refusal) => {
                let _ = tcp.try_write(refusal_answer(refusal).as_bytes());
                drop(tcp);
                if refused_logged.is_none_or(|at| at.elapsed() > Duration::from_secs(10)) {
                    refused_logged = Some(Instant::now());
                    tracing::warn!(
                        "connections refused ({refusal:?}; {} open of {}; from {ip})",
                        tracker.open(),
                        tracker.limits().max
                    );
                }
                continue;
            }
        };
        // Small messages go out at once (no Nagle delay behind an unacknowledged one).
        let _ = tcp.set_nodelay(true);
        let reserve = Reserve(slot.reserve);
        let activity = Activity::new();
        let held = Arc::new(Held::default());
        let socket = Socket {
            tcp,
            activity: activity.clone(),
            _slot: slot,
            _held: held.clone(),
        };
        let app = app.clone();
        let mut stop = stop_rx.clone();
        tokio::spawn(async move {
            let service = {
                let activity = activity.clone();
                hyper::service::service_fn(
                    move |mut request: hyper::Request<hyper::body::Incoming>| {
                        activity.begin();
                        let answering = Answering(activity.clone());
                        request.extensions_mut().insert(ConnectInfo(peer));
                        request.extensions_mut().insert(reserve);
                        request.extensions_mut().insert(held.clone());
                        let request = request.map(axum::body::Body::new);
                        let app = app.clone();
                        async move {
                            let response = tower::ServiceExt::oneshot(app, request).await?;
                            let mut response = response.map(|body| {
                                axum::body::Body::new(Tracked {
                                    body,
                                    _answering: answering,
                                })
                            });
                            let upgraded =
                                response.status() == axum::http::StatusCode::SWITCHING_PROTOCOLS;
                            if reserve.0 && !upgraded {
                                // The reserve serves one request per connection.
                                response.headers_mut().insert(
                                    axum::http::header::CONNECTION,
                                    axum::http::HeaderValue::from_static("close"),
                                );
                            }
                            Ok::<_, std::convert::Infallible>(response)
                        }
                    },
                )
            };
            let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
            let connection = builder.serve_connection_with_upgrades(TokioIo::new(socket), service);
            let mut connection = std::pin::pin!(connection);
            let mut stopping = false;
            loop {
                let wake = activity
                    .deadline(header, idle)
                    .unwrap_or_else(|| Instant::now() + header.min(idle));
                tokio::select! {
                    _ = connection.as_mut() => break,
                    _ = stop.changed(), if !stopping => {
                        stopping = true;
                        connection.as_mut().graceful_shutdown();
                    }
                    _ = tokio::time::sleep_until(wake.into()) => {
                        if activity.deadline(header, idle).is_some_and(|at| at <= Instant::now()) {
                            // Silent, half a request head, or idle too long: closed.
                            break;
                        }
                    }
                }
            }
        });
    }
    drop(listener);
    drop(stop_rx);
    let _ = stop_tx.send(true);
    // Every connection task holds a receiver: serving ends when the last one is gone.
    stop_tx.closed().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(per_address: u32, max: u64, reserve_from: u64) -> Limits {
        Limits {
            max,
            reserve_from,
            per_address,
            reserve_per_address: 2,
        }
    }

    #[test]
    fn an_address_holds_its_cap_and_the_reserve_two_at_most() {
        let tracker = Tracker::new(limits(3, 8, 5));
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let held: Vec<Slot> = (0..3).map(|_| tracker.admit(a).unwrap()).collect();
        assert_eq!(tracker.admit(a).err(), Some(Refusal::Address));
        // Others fill up to the reserve, then two of it each.
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        let c: IpAddr = "192.0.2.3".parse().unwrap();
        let more = [tracker.admit(b).unwrap(), tracker.admit(b).unwrap()];
        assert!(more.iter().all(|s| !s.reserve));
        let r1 = tracker.admit(b).unwrap();
        assert!(r1.reserve);
        let r2 = tracker.admit(c).unwrap();
        let r3 = tracker.admit(c).unwrap();
        assert!(r2.reserve && r3.reserve);
        assert_eq!(tracker.admit(c).err(), Some(Refusal::Full), "c's two");
        // Full: nobody else, until one closes.
        let d: IpAddr = "192.0.2.4".parse().unwrap();
        assert_eq!(tracker.admit(d).err(), Some(Refusal::Full));
        drop(r3);
        assert!(tracker.admit(d).unwrap().reserve);
        drop(held);
        assert_eq!(tracker.open(), 4, "b's three and c's one");
    }

    #[test]
    fn the_servers_own_host_is_not_capped_per_address() {
        let tracker = Tracker::new(limits(2, 100, 90));
        let own: Vec<Slot> = (0..10)
            .map(|_| tracker.admit("127.0.0.1".parse().unwrap()).unwrap())
            .collect();
        assert_eq!(own.len(), 10);
        let other: IpAddr = "127.0.0.2".parse().unwrap();
        let _two = [tracker.admit(other).unwrap(), tracker.admit(other).unwrap()];
        assert_eq!(tracker.admit(other).err(), Some(Refusal::Address));
    }

    #[test]
    fn the_limits_follow_the_open_file_limit_or_the_setting() {
        let mut config = crate::Config::from_layers(None, &[]).unwrap().server;
        config.reserved_files = 64;
        config.reserve_connections = 64;
        let l = Limits::new(&config, 1024);
        assert_eq!((l.max, l.reserve_from, l.per_address), (960, 896, 64));
        config.max_connections = 100;
        let l = Limits::new(&config, 1024);
        assert_eq!((l.max, l.reserve_from), (100, 36));
        config.client_address_header = "x-forwarded-for".into();
        assert_eq!(Limits::new(&config, 1024).per_address, 0);
    }
}
