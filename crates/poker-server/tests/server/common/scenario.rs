//! One builder for what most tests set up before they test anything: a server on a fresh
//! database with some settings, players with money, a table with a clock, and clients
//! logged in and seated (each sit answered before the next), so a test file holds only its
//! own scenario. Also the small steps tests repeat in the middle: sit and wait for the
//! answer, wait for a request's `done`, check or call, stop and audit, an HTTP request
//! with a token or from another address.

use super::{assert_conserved, nl_rules, sit, Client, Db, DbGuard, Server, TOKEN};
use poker_protocol::{ClientMsg, ServerMsg, TableSummary, TableView};
use poker_rules::{Action, Chips, LegalActions};
use serde_json::{json, Value};

/// A table clock with no warning, no time bank and no timeouts before sitting out:
/// `action_ms` to act, `between_hands_ms` between hands.
pub fn clock(action_ms: u64, between_hands_ms: u64) -> Value {
    json!({ "action_ms": action_ms, "warning_ms": 0, "time_bank_ms": 0, "max_timeouts": 0, "between_hands_ms": between_hands_ms })
}

/// What a test starts from; see [`Scenario::start`].
pub struct Scenario {
    db: Db,
    settings: Vec<(String, String)>,
    players: Vec<(String, u64)>,
    table: Option<(Value, Value)>,
    seated: Vec<(String, u64)>,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario::new()
    }
}

impl Scenario {
    /// A server on SQLite with the harness's settings, nothing else.
    pub fn new() -> Scenario {
        Scenario {
            db: Db::Sqlite,
            settings: Vec::new(),
            players: Vec::new(),
            table: None,
            seated: Vec::new(),
        }
    }

    /// A server on this database; [`Scenario::start`] it (Postgres may be missing).
    pub fn on(db: Db) -> Scenario {
        Scenario {
            db,
            ..Scenario::new()
        }
    }

    /// Extra server settings (`POKER__...` variables).
    pub fn settings(mut self, settings: &[(&str, &str)]) -> Scenario {
        let owned = settings.iter().map(|(k, v)| (k.to_string(), v.to_string()));
        self.settings.extend(owned);
        self
    }

    /// Players created through the admin API, each with `deposit` in the wallet.
    pub fn players(mut self, names: &[&str], deposit: u64) -> Scenario {
        let owned = names.iter().map(|n| (n.to_string(), deposit));
        self.players.extend(owned);
        self
    }

    /// A server with a 6-seat no-limit 1/2 table on this clock.
    pub fn table(clock: Value) -> Scenario {
        Scenario::new().table_with(nl_rules(), clock)
    }

    pub fn table_with(mut self, rules: Value, clock: Value) -> Scenario {
        self.table = Some((rules, clock));
        self
    }

    /// Players created with `deposit` each, logged in and seated at seats 0, 1, ... in
    /// this order with `buy_in` each, every sit answered before the next is asked.
    pub fn seated(mut self, names: &[&str], deposit: u64, buy_in: u64) -> Scenario {
        self = self.players(names, deposit);
        let owned = names.iter().map(|n| (n.to_string(), buy_in));
        self.seated.extend(owned);
        self
    }

    /// Starts it all; `None` when the database is Postgres and none is installed.
    pub async fn start(self) -> Option<Room> {
        let guard = DbGuard::new(self.db).await?;
        let settings: Vec<(&str, &str)> = self
            .settings
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let mut server = Server::start(&guard.url(), &settings).await;
        server.db = Some(guard);
        for (name, deposit) in &self.players {
            server.player(name, *deposit).await;
        }
        let table_id = match self.table {
            Some((rules, clock)) => server.table_with(rules, clock).await,
            None => String::new(),
        };
        let mut clients = Vec::new();
        for (seat, (name, buy_in)) in self.seated.iter().enumerate() {
            let mut c = server.client(name).await;
            c.sat(&table_id, seat as u32, *buy_in).await;
            clients.push(c);
        }
        Some(Room {
            server,
            table_id,
            clients,
        })
    }
}

/// Awaiting a scenario starts it on a database that is always there (SQLite): the
/// server, the table's id and the seated clients, to bind to names in one line.
impl std::future::IntoFuture for Scenario {
    type Output = (Server, String, Vec<Client>);
    type IntoFuture = std::pin::Pin<Box<dyn std::future::Future<Output = Self::Output> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let room = self.start().await.expect("a database");
            (room.server, room.table_id, room.clients)
        })
    }
}

/// A started [`Scenario`]: the server (which keeps its database), the table's id (empty
/// without a table) and the seated clients in seat order.
pub struct Room {
    pub server: Server,
    pub table_id: String,
    pub clients: Vec<Client>,
}

/// Clients as an array, to give each its name: `let [ann, ben] = named(clients);`.
pub fn named<const N: usize>(clients: Vec<Client>) -> [Client; N] {
    let n = clients.len();
    clients
        .try_into()
        .unwrap_or_else(|_| panic!("{N} clients wanted, {n} seated"))
}

impl Client {
    /// Sits and waits for the sit's answer; the chips bought in.
    pub async fn sat(&mut self, table_id: &str, seat: u32, buy_in: u64) -> Chips {
        self.send(&sit(table_id, seat, buy_in)).await;
        self.done("sit").await.0
    }

    /// Waits for the answer to a `request` (`sit`, `top_up`, `leave`...): the chips it
    /// moved and whether it waits for the hand in progress.
    pub async fn done(&mut self, request: &str) -> (Chips, bool) {
        self.until(|m| match m {
            ServerMsg::Done {
                request: r,
                amount,
                pending,
                ..
            } if r == request => Some((*amount, *pending)),
            _ => None,
        })
        .await
    }

    /// Waits for the answer to a `request` that is no longer pending; the chips moved.
    pub async fn settled(&mut self, request: &str) -> Chips {
        self.until(|m| match m {
            ServerMsg::Done {
                request: r,
                amount,
                pending: false,
                ..
            } if r == request => Some(*amount),
            _ => None,
        })
        .await
    }
}

/// Checks when it may, else calls.
pub fn check_or_call(legal: &LegalActions) -> Action {
    if legal.check {
        Action::Check
    } else {
        Action::Call
    }
}

impl Server {
    /// Stops the server, then checks that the books balance and hold what was deposited.
    pub async fn finish(&mut self, deposited: i64) {
        self.stop().await;
        assert_conserved(&self.audit().await, deposited);
    }
}

/// Both databases run one scenario: `on_both_dbs!(scenario: on_sqlite_name, on_postgres_name);`
/// makes the two tests, each calling `scenario(db)`.
#[macro_export]
macro_rules! on_both_dbs {
    ($scenario:path: $sqlite:ident, $postgres:ident) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $sqlite() {
            $scenario($crate::common::Db::Sqlite).await;
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $postgres() {
            $scenario($crate::common::Db::Postgres).await;
        }
    };
}

/// An HTTP answer: the status, the body as text and as JSON (`Null` when it is not), and
/// the headers tests read.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: Value,
    pub text: String,
    /// `Retry-After`, in seconds.
    pub retry_after: Option<u64>,
    /// `Content-Disposition`, empty when absent.
    pub disposition: String,
}

/// How one request goes: a bearer token, an `x-forwarded-for` (servers that trust it),
/// a loopback address of its own to come from (a fresh connection), a JSON body.
#[derive(Default)]
pub struct Req<'a> {
    pub token: Option<&'a str>,
    pub forwarded_for: Option<&'a str>,
    pub from: Option<&'a str>,
    pub body: Option<Value>,
}

impl Server {
    /// Any request (`GET`, else `POST`).
    pub async fn send(&self, method: &str, path: &str, how: Req<'_>) -> Answer {
        let client = match how.from {
            Some(ip) => reqwest::Client::builder()
                .local_address(ip.parse::<std::net::IpAddr>().unwrap())
                .pool_max_idle_per_host(0)
                .build()
                .unwrap(),
            None => reqwest::Client::new(),
        };
        let url = format!("{}{path}", self.base);
        let mut req = match method {
            "GET" => client.get(url),
            _ => client.post(url),
        };
        if let Some(f) = how.forwarded_for {
            req = req.header("x-forwarded-for", f);
        }
        if let Some(t) = how.token {
            req = req.bearer_auth(t);
        }
        if let Some(b) = how.body {
            req = req.json(&b);
        }
        let resp = req.send().await.expect("the server answers");
        let header = |name: &str| {
            resp.headers()
                .get(name)
                .map(|v| v.to_str().unwrap().to_string())
        };
        let retry_after = header("retry-after").map(|v| v.parse().expect("Retry-After in seconds"));
        let disposition = header("content-disposition").unwrap_or_default();
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap_or_default();
        Answer {
            status,
            body: serde_json::from_str(&text).unwrap_or(Value::Null),
            text,
            retry_after,
            disposition,
        }
    }

    /// A GET with this session or staff token.
    pub async fn get_as(&self, token: &str, path: &str) -> Answer {
        let how = Req {
            token: Some(token),
            ..Req::default()
        };
        self.send("GET", path, how).await
    }

    /// A POST with this session or staff token.
    pub async fn post_as(&self, token: &str, path: &str, body: Value) -> Answer {
        let how = Req {
            token: Some(token),
            body: Some(body),
            ..Req::default()
        };
        self.send("POST", path, how).await
    }
}

impl Server {
    /// A request that must answer `status`; the answer's JSON. A failure shows the request
    /// and the answer, so callers need no message of their own.
    pub async fn expect(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
        status: u16,
    ) -> Value {
        let sent = body.clone().unwrap_or_default();
        let (got, answer) = self.call(method, path, token, body).await;
        assert_eq!(got, status, "{method} {path} {sent}: {answer}");
        answer
    }

    /// An admin POST that must answer `status`; the answer's JSON.
    pub async fn posted(&self, path: &str, body: Value, status: u16) -> Value {
        self.by(Some(TOKEN)).post(path, body, status).await
    }

    /// An admin POST that must be refused with this status and error code.
    pub async fn post_refused(&self, path: &str, body: Value, expected: (u16, &str)) -> Value {
        self.by(Some(TOKEN)).refused(path, body, expected).await
    }

    /// A server on a PostgreSQL the test may stop and start (none where there is none;
    /// `what` says which test goes without).
    pub async fn on_stoppable_postgres(what: &str) -> Option<(DbGuard, Server)> {
        let guard = DbGuard::stoppable_postgres(what).await?;
        let server = Server::start(&guard.url(), &[]).await;
        Some((guard, server))
    }

    /// Requests with this bearer token (none: anonymous), each expecting its status.
    pub fn by<'a>(&'a self, token: Option<&'a str>) -> Caller<'a> {
        Caller {
            server: self,
            token,
        }
    }

    /// A request that must be refused with `status` and the error `code`.
    pub async fn refused(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
        (status, code): (u16, &str),
    ) -> Value {
        let answer = self.expect(method, path, token, body, status).await;
        assert_eq!(
            answer["error"].as_str(),
            Some(code),
            "{method} {path}: {answer}"
        );
        answer
    }

    /// A staff account (password `staffpass1`) made with the admin token, and a session of
    /// theirs: (staff id, token).
    pub async fn staff(&self, name: &str, role: &str) -> (String, String) {
        let made = json!({ "name": name, "password": "staffpass1", "role": role });
        let made = self.posted("/admin/staff", made, 201).await;
        let login = json!({ "name": name, "password": "staffpass1" });
        let login = self
            .expect("POST", "/admin/login", None, Some(login), 200)
            .await;
        assert_eq!(login["role"], role);
        let id = made["staff_id"].as_str().unwrap().to_string();
        (id, login["token"].as_str().unwrap().to_string())
    }
}

/// One caller's requests, short enough that a test reads as its list of requests.
pub struct Caller<'a> {
    server: &'a Server,
    token: Option<&'a str>,
}

impl Caller<'_> {
    /// A POST that must answer `status`; the answer's JSON.
    pub async fn post(&self, path: &str, body: Value, status: u16) -> Value {
        let server = self.server;
        server
            .expect("POST", path, self.token, Some(body), status)
            .await
    }

    /// A GET that must answer `status`; the answer's JSON.
    pub async fn get(&self, path: &str, status: u16) -> Value {
        self.server
            .expect("GET", path, self.token, None, status)
            .await
    }

    /// A POST that must be refused with this status and error code.
    pub async fn refused(&self, path: &str, body: Value, expected: (u16, &str)) -> Value {
        let server = self.server;
        server
            .refused("POST", path, self.token, Some(body), expected)
            .await
    }
}

impl Client {
    /// Watches the table (no answer comes but its events).
    pub async fn watch(&mut self, table_id: &str) {
        let table_id = super::tid(table_id);
        self.send(&ClientMsg::Watch { table_id }).await;
    }

    /// Sits back in, posting what is owed at once.
    pub async fn sit_in(&mut self, table_id: &str) {
        let table_id = super::tid(table_id);
        let msg = ClientMsg::SitIn {
            table_id,
            post_now: true,
        };
        self.send(&msg).await;
    }

    /// Asks to leave the table (the answer comes as a `done`).
    pub async fn leave(&mut self, table_id: &str) {
        let table_id = super::tid(table_id);
        self.send(&ClientMsg::Leave { table_id }).await;
    }

    /// The table as the first snapshot shows it.
    pub async fn snapshot_table(&mut self) -> TableView {
        self.until(|m| match m {
            ServerMsg::Snapshot { table, .. } => Some(table.clone()),
            _ => None,
        })
        .await
    }

    /// The lobby's tables, as this client is told them.
    pub async fn tables(&mut self) -> Vec<TableSummary> {
        self.send(&ClientMsg::ListTables).await;
        self.until(|m| match m {
            ServerMsg::Tables { tables } => Some(tables.clone()),
            _ => None,
        })
        .await
    }
}

/// One string field of each element of a JSON list, in order.
pub fn field<'a>(list: &'a Value, name: &str) -> Vec<&'a str> {
    let list = list.as_array().expect("a list");
    list.iter().map(|e| e[name].as_str().unwrap()).collect()
}
