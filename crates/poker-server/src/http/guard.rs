//! The guards of the account endpoints (`/login`, `/register`, admin player creation)
//! against guessing and flooding from the open internet.
//!
//! - Wrong passwords are counted per (name, client address): `server.login_attempts` in
//!   a row lock that pair for `server.login_lockout_secs`, so a stranger cannot lock
//!   anyone else out of their account. Each address (an IPv6 client by its /64) also has
//!   a budget of `server.login_address_attempts` wrong passwords per lockout period,
//!   whatever the names, so one address cannot try a password on every account.
//! - `/register` is allowed `server.register_per_address` times per
//!   `server.register_window_secs` from one address.
//! - Refusals answer 429 with `Retry-After` (seconds).
//! - Password hashing and checking (Argon2, tens of milliseconds of CPU and 19 MiB) runs
//!   on a few hashing threads of its own with one queue ([`super::hashing`]), never on the
//!   async workers that serve tables and `/healthz`, and a login storm leaves no memory
//!   behind. A login to an unknown name checks the password against a stand-in hash,
//!   so it takes as long as a wrong password and does not tell which names exist.

use super::hashing::{HashPool, IDLE_RELEASE};
use crate::config::{AdminConfig, ServerConfig};
use crate::http::ApiError;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// What a password must be, as told to a client whose password is refused.
pub const PASSWORD_RULE: &str = "a password of 8 to 256 characters";

/// Strikes counted in a window that restarts once it has run out.
#[derive(Clone, Copy, Debug)]
struct Strikes {
    count: u32,
    last: Instant,
}

/// The account endpoints' shared guard state.
pub struct Guard {
    /// Wrong passwords by (name key, address).
    by_name: Mutex<HashMap<(String, IpAddr), Strikes>>,
    /// Wrong passwords by address.
    by_address: Mutex<HashMap<IpAddr, Strikes>>,
    /// Registrations by address: how many, and when the window began.
    registrations: Mutex<HashMap<IpAddr, Strikes>>,
    /// Wrong admin bearer tokens and failed staff logins by address.
    bearer: Mutex<HashMap<IpAddr, Strikes>>,
    /// The threads that hash and check passwords.
    hashing: HashPool,
    /// The hash an unknown name's password is checked against.
    stand_in: OnceLock<String>,
}

/// A refusal for too many attempts, with how long to wait.
#[derive(Debug)]
pub struct TooMany {
    /// Seconds until another attempt is considered.
    pub retry_after_secs: u64,
    /// What was exceeded.
    pub message: &'static str,
}

impl From<TooMany> for ApiError {
    fn from(too_many: TooMany) -> ApiError {
        ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "too_many_attempts",
            too_many.message,
        )
        .retry_after(too_many.retry_after_secs)
    }
}

impl IntoResponse for TooMany {
    fn into_response(self) -> Response {
        ApiError::from(self).into_response()
    }
}

/// The address a client's limits are counted by: IPv4 as is, IPv6 by its /64 (one
/// subscriber usually holds a whole /64).
pub fn bucket(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
        v4 => v4,
    }
}

/// The client's address: the peer, or when `server.client_address_header` names a
/// header set by a trusted reverse proxy (`x-forwarded-for`, say), its last address.
pub fn client_address(config: &ServerConfig, peer: SocketAddr, headers: &HeaderMap) -> IpAddr {
    let header = config.client_address_header.trim();
    if !header.is_empty() {
        if let Some(ip) = headers
            .get(header)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit(',').next())
            .and_then(|v| v.trim().parse::<IpAddr>().ok())
        {
            return bucket(ip);
        }
    }
    bucket(peer.ip())
}

/// The client address of a request (its connection's peer, or the proxy's header),
/// unspecified when the request came through no connection (a test calling the router).
pub fn request_address(config: &ServerConfig, parts: &axum::http::request::Parts) -> IpAddr {
    let peer = parts
        .extensions
        .get::<axum::extract::ConnectInfo<SocketAddr>>()
        .map_or(SocketAddr::from(([0, 0, 0, 0], 0)), |c| c.0);
    client_address(config, peer, &parts.headers)
}

fn remaining(strikes: &Strikes, window: Duration) -> u64 {
    window.saturating_sub(strikes.last.elapsed()).as_secs() + 1
}

impl Guard {
    /// A guard that hashes `parallel` passwords at once.
    pub fn new(parallel: usize) -> Guard {
        Guard {
            by_name: Mutex::new(HashMap::new()),
            by_address: Mutex::new(HashMap::new()),
            registrations: Mutex::new(HashMap::new()),
            bearer: Mutex::new(HashMap::new()),
            hashing: HashPool::new(parallel, IDLE_RELEASE),
            stand_in: OnceLock::new(),
        }
    }

    /// Whether a login to `key` from `ip` may be tried now.
    pub fn may_login(&self, config: &ServerConfig, key: &str, ip: IpAddr) -> Result<(), TooMany> {
        let window = Duration::from_secs(config.login_lockout_secs);
        let mut by_address = self.by_address.lock().expect("guard lock");
        by_address.retain(|_, s| s.last.elapsed() < window);
        if let Some(s) = by_address.get(&ip) {
            if s.count >= config.login_address_attempts {
                return Err(TooMany {
                    retry_after_secs: remaining(s, window),
                    message: "too many wrong passwords from this address: try again later",
                });
            }
        }
        drop(by_address);
        let mut by_name = self.by_name.lock().expect("guard lock");
        by_name.retain(|_, s| s.last.elapsed() < window);
        if let Some(s) = by_name.get(&(key.to_string(), ip)) {
            if s.count >= config.login_attempts {
                return Err(TooMany {
                    retry_after_secs: remaining(s, window),
                    message: "too many wrong passwords: try again later",
                });
            }
        }
        Ok(())
    }

    /// Counts a wrong password (or an unknown name) for `key` from `ip`.
    pub fn failed_login(&self, key: &str, ip: IpAddr) {
        fn strike(s: &mut Strikes) {
            s.count += 1;
            s.last = Instant::now();
        }
        let fresh = Strikes {
            count: 0,
            last: Instant::now(),
        };
        let mut by_name = self.by_name.lock().expect("guard lock");
        strike(by_name.entry((key.to_string(), ip)).or_insert(fresh));
        drop(by_name);
        let mut by_address = self.by_address.lock().expect("guard lock");
        strike(by_address.entry(ip).or_insert(fresh));
    }

    /// Forgets the wrong passwords for `key` from `ip` after the right one.
    pub fn logged_in(&self, key: &str, ip: IpAddr) {
        self.by_name
            .lock()
            .expect("guard lock")
            .remove(&(key.to_string(), ip));
    }

    /// Whether an admin request or a staff login from `ip` is heard: refused while the
    /// address has used up its `admin.bearer_attempts` wrong tokens (a right token too,
    /// so that its answer tells a guesser nothing).
    pub fn may_bear(&self, config: &AdminConfig, ip: IpAddr) -> Result<(), TooMany> {
        let window = Duration::from_secs(config.bearer_lockout_secs);
        let mut bearer = self.bearer.lock().expect("guard lock");
        bearer.retain(|_, s| s.last.elapsed() < window);
        match bearer.get(&ip) {
            Some(s) if s.count >= config.bearer_attempts => Err(TooMany {
                retry_after_secs: remaining(s, window),
                message: "too many wrong admin tokens or staff logins from this address: \
                          try again later",
            }),
            _ => Ok(()),
        }
    }

    /// Counts a wrong admin bearer token or a failed staff login from `ip`.
    pub fn failed_bearer(&self, ip: IpAddr) {
        let mut bearer = self.bearer.lock().expect("guard lock");
        let s = bearer.entry(ip).or_insert(Strikes {
            count: 0,
            last: Instant::now(),
        });
        s.count += 1;
        s.last = Instant::now();
    }

    /// Counts a registration from `ip`, or refuses it when the address has used up its
    /// registrations for the window.
    pub fn may_register(&self, config: &ServerConfig, ip: IpAddr) -> Result<(), TooMany> {
        let window = Duration::from_secs(config.register_window_secs);
        let mut registrations = self.registrations.lock().expect("guard lock");
        registrations.retain(|_, s| s.last.elapsed() < window);
        let entry = registrations.entry(ip).or_insert(Strikes {
            count: 0,
            last: Instant::now(),
        });
        if entry.count >= config.register_per_address {
            return Err(TooMany {
                retry_after_secs: remaining(entry, window),
                message: "too many new accounts from this address: try again later",
            });
        }
        entry.count += 1;
        Ok(())
    }

    /// Hashes a password on the hashing threads.
    pub async fn hash(&self, password: String) -> Result<String, ApiError> {
        self.hashing
            .run(move |memory| poker_store::password::hash_password_in(&password, memory))
            .await
            .map_err(|_| internal("the hashing threads have stopped"))
    }

    /// The hashing threads (their number, and the most hashes that ran at once).
    pub fn hashing(&self) -> &HashPool {
        &self.hashing
    }

    /// Checks a password on the hashing threads against `hash`, or against a stand-in
    /// when there is no account (`None`), so both take as long.
    pub async fn verify(&self, password: String, hash: Option<String>) -> Result<bool, ApiError> {
        let known = hash.is_some();
        let hash = match hash {
            Some(hash) => hash,
            None => match self.stand_in.get() {
                Some(h) => h.clone(),
                None => {
                    let h = self.hash("stand-in for unknown names".into()).await?;
                    self.stand_in.get_or_init(|| h).clone()
                }
            },
        };
        let ok = self
            .hashing
            .run(move |memory| poker_store::password::verify_password_in(&password, &hash, memory))
            .await
            .map_err(|_| internal("the hashing threads have stopped"))?;
        Ok(ok && known)
    }
}

fn internal(e: impl std::fmt::Display) -> ApiError {
    tracing::error!("password hashing failed: {e}");
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal",
        "internal error",
    )
}
