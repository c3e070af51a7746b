//! Configuration: `config/default.toml` (built in), then a file named by `POKER_CONFIG`,
//! then `POKER__SECTION__KEY` environment variables and `DATABASE_URL`.

use serde::Deserialize;
use std::fmt;

const DEFAULT: &str = include_str!("../../../config/default.toml");

/// The server's settings.
#[derive(Clone, Deserialize)]
pub struct Config {
    /// Listening.
    pub server: ServerConfig,
    /// The database.
    pub database: DatabaseConfig,
    /// The admin API.
    pub admin: AdminConfig,
    /// Logs.
    pub log: LogConfig,
    /// Play or real money.
    pub room: RoomConfig,
    /// House bots.
    pub bots: BotsConfig,
    /// Several nodes.
    pub cluster: ClusterConfig,
}

/// Several `pokerd` nodes sharing one PostgreSQL (`[cluster]`).
#[derive(Clone, Deserialize)]
pub struct ClusterConfig {
    /// The NATS server the nodes talk through (`nats://host:port`, with `TOKEN@` or
    /// `USER:PASSWORD@` when nats-server asks for credentials); empty: one process, no
    /// leases.
    pub nats_url: String,
    /// This node's name, unique in the cluster; empty: the host name and process id.
    pub node: String,
    /// How long a table's lease lasts without renewal, in milliseconds: a dead node's
    /// tables move to another node after this long.
    pub lease_ms: u64,
    /// How often leases are renewed and free tables claimed, in milliseconds.
    pub heartbeat_ms: u64,
}

/// The room's money: play or real (`[room]`).
#[derive(Clone, Debug, Deserialize)]
pub struct RoomConfig {
    /// "play", "real" or "auto" (play on SQLite, real on PostgreSQL).
    pub money: String,
    /// Play money: a new account's chips, and what a reload refills the wallet to.
    pub play_grant: u64,
    /// Real money: the ISO 4217 code hand histories give the room's chips (one chip, one
    /// unit of it); play-money rooms' histories say play money whatever it is.
    pub currency: String,
    /// Play money: preset tables on a first start.
    pub presets: bool,
    /// Two players at one table from one address: "refuse", "flag", "allow", or "auto"
    /// (refuse with real money, flag with play money); see [`Config::same_address_seating`].
    pub same_address_seating: String,
    /// Private tables players create from a preset and share by invite: "on", "off", or
    /// "auto" (on with play money, off with real money); see [`Config::private_tables`].
    pub private_tables: String,
    /// A private table where nobody has been seated for this many seconds closes.
    pub private_empty_secs: u64,
    /// Open private tables one player may host at once.
    pub private_per_host: u32,
    /// A seat whose player is away (sitting out, or with no connection to the table) is
    /// kept this many seconds of the room's clock, then released: the chips go back to
    /// the wallet through the ledger. 0: kept for ever.
    #[serde(default = "an_hour")]
    pub seat_keep_secs: u64,
    /// How many times faster than the wall clock the room's clock runs for rules that
    /// span hours (the rathole window); 1 in a real room. Tests and demonstrations live
    /// through hours of a room in minutes with more.
    #[serde(default = "one")]
    pub clock_scale: u32,
}

/// The default seat keeping: an hour.
fn an_hour() -> u64 {
    3600
}

/// The default of settings that are 1 unless set.
fn one() -> u32 {
    1
}

/// House bots (`[bots]`), at play-money rooms only.
#[derive(Clone, Debug, Deserialize)]
pub struct BotsConfig {
    /// Seat bots while people play until this many are seated; 0: no bots.
    pub fill_to: u32,
    /// A bot's thinking time, in milliseconds (from half to one and a half times).
    pub think_ms: u64,
}

/// `[log]`.
#[derive(Clone, Debug, Deserialize)]
pub struct LogConfig {
    /// `text` (one line per event, for people) or `json` (one object per line, for log
    /// collectors).
    pub format: String,
    /// What to log, as `RUST_LOG` would say it (`info`, `poker_server=debug,info`...);
    /// `RUST_LOG` itself wins when set.
    pub level: String,
}

/// `[server]`.
#[derive(Clone, Debug, Deserialize)]
pub struct ServerConfig {
    /// host:port to listen on.
    pub addr: String,
    /// Largest client frame, in bytes.
    pub max_frame_bytes: usize,
    /// Average messages per second a client may send.
    pub rate_limit_per_sec: u32,
    /// Messages a client may send in a burst.
    pub rate_limit_burst: u32,
    /// Whether `POST /register` creates accounts.
    pub allow_registration: bool,
    /// Wrong passwords in a row before logins to a name are refused for a while.
    pub login_attempts: u32,
    /// How long, in seconds.
    pub login_lockout_secs: u64,
    /// Wrong passwords from one address (IPv6: its /64), whatever the names, after which
    /// its logins are refused for `login_lockout_secs`.
    pub login_address_attempts: u32,
    /// Accounts one address may register per `register_window_secs`.
    pub register_per_address: u32,
    /// The window of `register_per_address`, in seconds.
    pub register_window_secs: u64,
    /// A header set by a trusted reverse proxy that carries the client's address
    /// (`x-forwarded-for`: its last entry is used); empty: the peer address.
    pub client_address_header: String,
    /// Session lifetime, in hours.
    pub session_hours: u32,
    /// How long running hands get to finish on shutdown, in milliseconds.
    pub shutdown_grace_ms: u64,
    /// At most how long a table holds back, for a player it has just written to, what
    /// concerns them only as an onlooker (others' actions), so that a busy table's many
    /// steps reach them in one write; in milliseconds, 0: every step is written at once.
    /// Their own turn, cards and actions always go at once.
    pub coalesce_ms: u64,
    /// A folder to serve the browser client from instead of the built-in copy.
    pub web_root: String,
    /// Origins (`scheme://host:port`, comma-separated) whose pages may open `/ws`, besides
    /// the server's own; `*` allows any. Clients that send no `Origin` (bots) are let in.
    pub allowed_origins: String,
    /// Seconds a WebSocket has to send `auth` after connecting; then it is told
    /// `auth_timeout` and closed (it holds a socket and memory for nobody).
    pub ws_auth_timeout_secs: u64,
    /// Seconds an authenticated WebSocket may stay silent: the server pings it after half
    /// of this, and closes it when nothing (not even the pong) came within all of it, or
    /// when a write to it has not gone through in this long (a client that reads nothing).
    pub ws_idle_secs: u64,
    /// How long a connection may take to send a whole request head, from its opening
    /// or its first byte after an answer, in milliseconds; then it is closed.
    pub header_timeout_ms: u64,
    /// How long a kept-alive connection may wait for its next request, in milliseconds.
    pub idle_timeout_ms: u64,
    /// How long a request's body may take to arrive after its head, in milliseconds
    /// (408 after).
    pub body_timeout_ms: u64,
    /// Largest request body, in bytes (413 above).
    pub max_body_bytes: usize,
    /// Open connections one client address (IPv6: its /64) may hold; behind a proxy
    /// (`client_address_header`), requests and WebSockets in progress per forwarded address.
    pub connections_per_address: u32,
    /// Open connections at most; 0: the open-file limit less `reserved_files`.
    pub max_connections: u64,
    /// Files kept for everything but clients' sockets (the database, logs, NATS).
    pub reserved_files: u64,
    /// The last connections before the most: a connection opened among them answers
    /// one request, and only `/healthz`, the logins and a seated player's WebSocket.
    pub reserve_connections: u64,
    /// Connections of the reserve one client address may hold at once.
    pub reserve_per_address: u32,
    /// Requests to `/api` and `/admin` a session (or bearer token) may make per second
    /// on average, and in a burst (429 after).
    pub api_rate_per_sec: u32,
    /// The burst of `api_rate_per_sec`.
    pub api_rate_burst: u32,
    /// Requests to `/api` and `/admin` one client address may make per second on
    /// average, whatever the sessions, and in a burst.
    pub api_address_rate_per_sec: u32,
    /// The burst of `api_address_rate_per_sec`.
    pub api_address_rate_burst: u32,
}

/// `[database]`.
#[derive(Clone, Deserialize)]
pub struct DatabaseConfig {
    /// postgres:// or sqlite:// URL.
    pub url: String,
    /// The folder `POST /admin/backup` writes copies to; empty: that endpoint is off.
    pub backup_dir: String,
}

/// `[admin]`.
#[derive(Clone, Deserialize)]
pub struct AdminConfig {
    /// The admin bearer token; empty: pokerd makes one on its first start and keeps it
    /// in `token_file`.
    pub token: String,
    /// Where a token pokerd made itself is kept (used when `token` is empty).
    pub token_file: String,
    /// A staff session ends after this many minutes without a request (each request
    /// moves the limit on); it ends after `server.session_hours` in any case.
    pub staff_idle_minutes: u32,
    /// How long a player's password reset code works, in minutes.
    pub reset_code_minutes: u32,
    /// Development only: lets pokerd start with a configured token under 32 characters.
    pub allow_short_token: bool,
    /// Wrong bearer tokens (and failed staff logins) from one address after which its
    /// admin requests are refused for `bearer_lockout_secs`.
    pub bearer_attempts: u32,
    /// How long, in seconds.
    pub bearer_lockout_secs: u64,
}

impl fmt::Debug for AdminConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Secrets never appear in logs.
        f.debug_struct("AdminConfig")
            .field("token", &"<redacted>")
            .field("token_file", &self.token_file)
            .field("staff_idle_minutes", &self.staff_idle_minutes)
            .field("reset_code_minutes", &self.reset_code_minutes)
            .field("allow_short_token", &self.allow_short_token)
            .field("bearer_attempts", &self.bearer_attempts)
            .field("bearer_lockout_secs", &self.bearer_lockout_secs)
            .finish()
    }
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("server", &self.server)
            .field("database", &redact_url(&self.database.url))
            .field("admin", &self.admin)
            .field("log", &self.log)
            .field("room", &self.room)
            .field("bots", &self.bots)
            .field("cluster", &self.cluster)
            .finish()
    }
}

impl fmt::Debug for DatabaseConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DatabaseConfig")
            .field("url", &redact_url(&self.url))
            .field("backup_dir", &self.backup_dir)
            .finish()
    }
}

impl fmt::Debug for ClusterConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClusterConfig")
            .field("nats_url", &redact_url(&self.nats_url))
            .field("node", &self.node)
            .field("lease_ms", &self.lease_ms)
            .field("heartbeat_ms", &self.heartbeat_ms)
            .finish()
    }
}

/// A URL, or a comma-separated list of them (as NATS takes), with every secret it can
/// carry replaced by `***`: the password of its user information (`user:***@`), the
/// whole user information when it has no colon (a NATS token, `nats://TOKEN@host`), and
/// the value of every query parameter named like a secret (`password`, `sslpassword`,
/// `token`, `auth_token`, `secret`, `key`, `credentials`...). What is not a URL is
/// shown as is.
pub fn redact_url(url: &str) -> String {
    url.split(',').map(redact_one).collect::<Vec<_>>().join(",")
}

fn redact_one(url: &str) -> String {
    let (head, query) = match url.split_once('?') {
        Some((head, query)) => (head, Some(query)),
        None => (url, None),
    };
    let mut out = match head.find("://") {
        // The user information ends at the last `@` (a password may hold `/` or `@`).
        Some(scheme) => match head[scheme + 3..].rfind('@') {
            Some(at) => {
                let at = scheme + 3 + at;
                let shown = match head[scheme + 3..at].split_once(':') {
                    Some((user, _)) => format!("{user}:***"),
                    None => "***".to_string(),
                };
                format!("{}{shown}{}", &head[..scheme + 3], &head[at..])
            }
            None => head.to_string(),
        },
        None => head.to_string(),
    };
    if let Some(query) = query {
        out.push('?');
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, _)) if secret_name(name) => format!("{name}=***"),
                _ => pair.to_string(),
            })
            .collect();
        out.push_str(&pairs.join("&"));
    }
    out
}

/// Whether a query parameter's name says it carries a secret.
fn secret_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [
        "pass", "pwd", "token", "secret", "key", "auth", "cred", "nkey", "jwt",
    ]
    .iter()
    .any(|s| name.contains(s))
}

impl Config {
    /// Whether the room plays for play money: `room.money`, with "auto" meaning play on
    /// the embedded SQLite database and real on PostgreSQL.
    pub fn play_money(&self) -> bool {
        match self.room.money.as_str() {
            "play" => true,
            "real" => false,
            _ => self.database.url.starts_with("sqlite:"),
        }
    }

    /// The currency hand histories give the room's chips: Open Hand History's play-money
    /// code in a play-money room, else `room.currency`.
    pub fn history_currency(&self) -> &str {
        if self.play_money() {
            poker_history::ohh::PLAY_MONEY
        } else {
            &self.room.currency
        }
    }

    /// What a table does when a player sits down from the address of one seated there:
    /// `room.same_address_seating`, with "auto" meaning refuse for real money and flag for
    /// play money.
    pub fn same_address_seating(&self) -> crate::fairplay::SameAddressSeating {
        use crate::fairplay::SameAddressSeating;
        match SameAddressSeating::parse(&self.room.same_address_seating) {
            Some(rule) => rule,
            None if self.play_money() => SameAddressSeating::Flag,
            None => SameAddressSeating::Refuse,
        }
    }

    /// Whether players may create private tables: `room.private_tables`, with "auto"
    /// meaning on for play money and off for real money.
    pub fn private_tables(&self) -> bool {
        match self.room.private_tables.as_str() {
            "on" => true,
            "off" => false,
            _ => self.play_money(),
        }
    }

    /// Loads the layered configuration from the process environment.
    pub fn load() -> anyhow::Result<Config> {
        let vars: Vec<(String, String)> = std::env::vars().collect();
        let file = match std::env::var("POKER_CONFIG") {
            Ok(path) => Some(
                std::fs::read_to_string(&path)
                    .map_err(|e| anyhow::anyhow!("cannot read {path}: {e}"))?,
            ),
            Err(_) => None,
        };
        Config::from_layers(file.as_deref(), &vars)
    }

    /// The defaults, then `file`, then `POKER__SECTION__KEY` variables and `DATABASE_URL`.
    pub fn from_layers(file: Option<&str>, env: &[(String, String)]) -> anyhow::Result<Config> {
        let mut value: toml::Table = DEFAULT.parse()?;
        if let Some(file) = file {
            merge(&mut value, file.parse()?);
        }
        for (key, v) in env {
            let path: Vec<String> = match key.strip_prefix("POKER__") {
                Some(rest) => rest.split("__").map(str::to_lowercase).collect(),
                None if key == "DATABASE_URL" => vec!["database".into(), "url".into()],
                None => continue,
            };
            let [section, name] = path.as_slice() else {
                anyhow::bail!("{key}: use POKER__SECTION__KEY");
            };
            let table = value
                .get_mut(section)
                .and_then(|s| s.as_table_mut())
                .ok_or_else(|| anyhow::anyhow!("{key}: no section [{section}]"))?;
            let old = table
                .get(name)
                .ok_or_else(|| anyhow::anyhow!("{key}: no setting {section}.{name}"))?;
            let new = match old {
                toml::Value::Integer(_) => toml::Value::Integer(
                    v.parse()
                        .map_err(|_| anyhow::anyhow!("{key} must be a number"))?,
                ),
                toml::Value::Boolean(_) => toml::Value::Boolean(
                    v.parse()
                        .map_err(|_| anyhow::anyhow!("{key} must be true or false"))?,
                ),
                _ => toml::Value::String(v.clone()),
            };
            table.insert(name.clone(), new);
        }
        let config: Config = toml::Value::Table(value).try_into()?;
        if !["play", "real", "auto"].contains(&config.room.money.as_str()) {
            anyhow::bail!("room.money is play, real or auto");
        }
        if !["refuse", "flag", "allow", "auto"].contains(&config.room.same_address_seating.as_str())
        {
            anyhow::bail!("room.same_address_seating is refuse, flag, allow or auto");
        }
        if !["on", "off", "auto"].contains(&config.room.private_tables.as_str()) {
            anyhow::bail!("room.private_tables is on, off or auto");
        }
        Ok(config)
    }
}

fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_then_file_then_environment() {
        let c = Config::from_layers(None, &[]).unwrap();
        assert_eq!(
            (c.server.addr.as_str(), c.database.url.as_str()),
            ("127.0.0.1:8080", "sqlite://data/poker.db")
        );
        let c = Config::from_layers(
            Some("[server]\naddr = \"0.0.0.0:9000\"\n"),
            &env(&[
                ("POKER__SERVER__MAX_FRAME_BYTES", "1024"),
                ("DATABASE_URL", "postgres://u:pw@h/db"),
                ("POKER__ADMIN__TOKEN", "s3cret"),
            ]),
        )
        .unwrap();
        assert_eq!(c.server.addr, "0.0.0.0:9000");
        assert_eq!(c.server.max_frame_bytes, 1024);
        assert_eq!(c.admin.token, "s3cret");
        let shown = format!("{c:?}");
        assert!(
            !shown.contains("s3cret") && !shown.contains("pw@"),
            "secrets never shown: {shown}"
        );
    }

    #[test]
    fn every_form_of_secret_in_a_url_is_redacted() {
        for (url, secrets, shown) in [
            (
                "postgres://poker:hunter2@db/poker",
                &["hunter2"][..],
                "postgres://poker:***@db/poker",
            ),
            (
                "postgres://poker@db/poker?password=hunter2&sslmode=require",
                &["hunter2"][..],
                "postgres://***@db/poker?password=***&sslmode=require",
            ),
            (
                "postgresql://db/poker?user=p&PassWord=a%40b&sslpassword=c",
                &["a%40b", "=c"][..],
                "postgresql://db/poker?user=p&PassWord=***&sslpassword=***",
            ),
            (
                "postgres://u:p@ss/w@rd@db:5432/poker",
                &["p@ss", "w@rd", "ss/w"][..],
                "postgres://u:***@db:5432/poker",
            ),
            (
                "nats://s3cr3ttoken@nats:4222",
                &["s3cr3ttoken"][..],
                "nats://***@nats:4222",
            ),
            (
                "nats://user:pw1@a:4222,nats://user:pw2@b:4222,tls://c?auth_token=t0k",
                &["pw1", "pw2", "t0k"][..],
                "nats://user:***@a:4222,nats://user:***@b:4222,tls://c?auth_token=***",
            ),
            (
                "sqlite://data/poker.db?password=x1&mode=rwc",
                &["x1"][..],
                "sqlite://data/poker.db?password=***&mode=rwc",
            ),
            ("sqlite://data/poker.db", &[][..], "sqlite://data/poker.db"),
            ("", &[][..], ""),
        ] {
            let redacted = redact_url(url);
            assert_eq!(redacted, shown, "{url}");
            for secret in secrets {
                assert!(!redacted.contains(secret), "{url} shows {secret}");
            }
        }
    }

    #[test]
    fn the_configuration_shows_no_secret_in_debug_output() {
        let c = Config::from_layers(
            None,
            &env(&[
                ("DATABASE_URL", "postgres://u@h/db?password=dbsecret"),
                ("POKER__CLUSTER__NATS_URL", "nats://natssecret@n:4222"),
                ("POKER__ADMIN__TOKEN", "adminsecretadminsecretadminsecret"),
            ]),
        )
        .unwrap();
        for shown in [
            format!("{c:?}"),
            format!("{:?}", c.database),
            format!("{:?}", c.cluster),
            format!("{:?}", c.admin),
            format!("{c:#?}"),
        ] {
            for secret in ["dbsecret", "natssecret", "adminsecret"] {
                assert!(!shown.contains(secret), "{secret} in {shown}");
            }
        }
    }

    #[test]
    fn private_tables_are_on_with_play_money_and_off_with_real_money_unless_set() {
        let on = |pairs: &[(&str, &str)]| {
            Config::from_layers(None, &env(pairs))
                .unwrap()
                .private_tables()
        };
        assert!(on(&[("POKER__ROOM__MONEY", "play")]));
        assert!(!on(&[("POKER__ROOM__MONEY", "real")]));
        assert!(!on(&[("DATABASE_URL", "postgres://h/db")]));
        assert!(on(&[
            ("POKER__ROOM__MONEY", "real"),
            ("POKER__ROOM__PRIVATE_TABLES", "on")
        ]));
        assert!(!on(&[("POKER__ROOM__PRIVATE_TABLES", "off")]));
        assert!(
            Config::from_layers(None, &env(&[("POKER__ROOM__PRIVATE_TABLES", "yes")])).is_err()
        );
    }

    #[test]
    fn same_address_seating_refuses_with_real_money_and_flags_with_play_money_unless_set() {
        use crate::fairplay::SameAddressSeating::*;
        let rule = |pairs: &[(&str, &str)]| {
            Config::from_layers(None, &env(pairs))
                .unwrap()
                .same_address_seating()
        };
        assert_eq!(rule(&[("POKER__ROOM__MONEY", "real")]), Refuse);
        assert_eq!(rule(&[("DATABASE_URL", "postgres://h/db")]), Refuse);
        assert_eq!(rule(&[("POKER__ROOM__MONEY", "play")]), Flag);
        assert_eq!(
            rule(&[]),
            Flag,
            "the embedded database plays for play money"
        );
        assert_eq!(
            rule(&[
                ("POKER__ROOM__MONEY", "real"),
                ("POKER__ROOM__SAME_ADDRESS_SEATING", "allow")
            ]),
            Allow
        );
        assert!(Config::from_layers(
            None,
            &env(&[("POKER__ROOM__SAME_ADDRESS_SEATING", "sometimes")])
        )
        .is_err());
    }

    #[test]
    fn unknown_or_malformed_settings_are_refused() {
        assert!(Config::from_layers(None, &env(&[("POKER__SERVER__NOPE", "1")])).is_err());
        assert!(
            Config::from_layers(None, &env(&[("POKER__SERVER__MAX_FRAME_BYTES", "big")])).is_err()
        );
        assert!(Config::from_layers(None, &env(&[("POKER__X", "1")])).is_err());
    }
}
