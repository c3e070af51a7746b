//! The harness of the server's integration tests: the real server on port 0 against a
//! real database (a SQLite file, or a throwaway Postgres), the admin API over HTTP, and
//! players over real WebSockets. Every client checks every message it receives for hole
//! cards that are not its own and not shown.
#![allow(dead_code)]

pub mod cluster;
pub mod games;
pub mod nats;
pub mod pokerd;
pub mod python;
pub mod random_bot;
pub mod scenario;

pub use scenario::{check_or_call, clock, field, named, Answer, Req, Scenario};

use futures_util::{SinkExt, StreamExt};
use poker_protocol::{ClientMsg, ErrorCode, ServerMsg};
use poker_rules::{Action, Event};
use poker_server::Config;
use poker_store::testing::{TestPostgres, TestSqlite};
use poker_store::{Audit, SqlStore};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

pub type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Which database a test runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Db {
    Sqlite,
    Postgres,
}

/// Keeps the database alive for the test.
pub enum DbGuard {
    Sqlite(TestSqlite),
    Postgres(TestPostgres),
}

impl DbGuard {
    /// A fresh database, or `None` when Postgres is not installed outside CI.
    pub async fn new(db: Db) -> Option<DbGuard> {
        match db {
            Db::Sqlite => Some(DbGuard::Sqlite(TestSqlite::new())),
            Db::Postgres => TestPostgres::start_or_skip("this server test")
                .await
                .map(DbGuard::Postgres),
        }
    }

    /// A fresh Postgres the test may stop and start again (`None` when there is none, or
    /// when `DATABASE_URL` names a server that is not the harness's own).
    pub async fn stoppable_postgres(what: &str) -> Option<DbGuard> {
        let guard = DbGuard::new(Db::Postgres).await?;
        let DbGuard::Postgres(pg) = &guard else {
            unreachable!("asked for Postgres")
        };
        if !pg.is_throwaway() {
            eprintln!("SKIPPED: DATABASE_URL names a server {what} must not stop");
            return None;
        }
        Some(guard)
    }

    /// The Postgres server itself, to stop and start.
    pub fn postgres(&self) -> &TestPostgres {
        match self {
            DbGuard::Postgres(pg) => pg,
            DbGuard::Sqlite(_) => panic!("a SQLite database"),
        }
    }

    pub fn url(&self) -> String {
        match self {
            DbGuard::Sqlite(s) => s.url.clone(),
            DbGuard::Postgres(p) => p.url.clone(),
        }
    }
}

/// A running server.
pub struct Server {
    pub addr: std::net::SocketAddr,
    pub base: String,
    pub url: String,
    /// The database, when the server owns it (started by a [`Scenario`]).
    pub db: Option<DbGuard>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
}

/// The API rate limits of test servers (in process or `pokerd` processes): tests poll
/// the API in tight loops from one address. The rate limit's own tests
/// (tests/server/hardening.rs) set theirs.
pub const LOOSE_RATE_LIMITS: [(&str, &str); 4] = [
    ("POKER__SERVER__API_RATE_PER_SEC", "100000"),
    ("POKER__SERVER__API_RATE_BURST", "100000"),
    ("POKER__SERVER__API_ADDRESS_RATE_PER_SEC", "100000"),
    ("POKER__SERVER__API_ADDRESS_RATE_BURST", "100000"),
];

/// The admin token of every test server: as long as pokerd demands (32 characters at
/// least), and used by every test, e2e script and tool through this constant.
pub const TOKEN: &str = "test-admin-token-5f0c2a9e17d84b36a1c7";

impl Server {
    /// Starts the server on port 0 with these extra settings.
    pub async fn start(url: &str, settings: &[(&str, &str)]) -> Server {
        let mut env = vec![
            ("DATABASE_URL".to_string(), url.to_string()),
            ("POKER__ADMIN__TOKEN".to_string(), TOKEN.to_string()),
            // A real-money room unless a test says otherwise: no grants, bots or presets.
            ("POKER__ROOM__MONEY".to_string(), "real".to_string()),
            // Every test client connects from 127.0.0.1: one address may seat many players
            // unless a test is about that rule (tests/fair_play.rs).
            (
                "POKER__ROOM__SAME_ADDRESS_SEATING".to_string(),
                "allow".to_string(),
            ),
            // Tests stop the server with a hand in progress: it is void after this long.
            (
                "POKER__SERVER__SHUTDOWN_GRACE_MS".to_string(),
                "500".to_string(),
            ),
        ];
        env.extend(
            LOOSE_RATE_LIMITS
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string())),
        );
        env.extend(settings.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let config = Config::from_layers(None, &env).unwrap();
        // The server's logs go to the test's output (shown when a test fails).
        poker_server::logging::init(&config.log).unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(poker_server::run(
            listener,
            async {
                let _ = stopped.await;
            },
            config,
        ));
        let base = format!("http://{addr}");
        for _ in 0..200 {
            if reqwest::get(format!("{base}/healthz")).await.is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Server {
            addr,
            base,
            url: url.to_string(),
            db: None,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// A server running elsewhere (a `pokerd` process).
    pub fn external(addr: std::net::SocketAddr, url: &str) -> Server {
        Server {
            addr,
            base: format!("http://{addr}"),
            url: url.to_string(),
            db: None,
            stop: None,
            task: None,
        }
    }

    /// Asks the server to stop and waits for it.
    pub async fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            tokio::time::timeout(Duration::from_secs(30), task)
                .await
                .expect("the server stops in time")
                .unwrap()
                .unwrap();
        }
    }

    /// Any call, with or without a bearer token and a JSON body; the answer as JSON
    /// (`Null` when it is not).
    pub async fn call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value) {
        let how = Req {
            token,
            body,
            ..Req::default()
        };
        let answer = self.send(method, path, how).await;
        (answer.status, answer.body)
    }

    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let answer = self.post_as(TOKEN, path, body).await;
        (answer.status, answer.body)
    }

    pub async fn get(&self, path: &str) -> (u16, String) {
        let answer = self.get_as(TOKEN, path).await;
        (answer.status, answer.text)
    }

    /// A counter or gauge of `/metrics`, as a whole number.
    pub async fn metric(&self, name: &str) -> u64 {
        let (_, text) = self.get("/metrics").await;
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{name} ")))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no metric {name} in {text}"))
    }

    pub async fn get_json(&self, path: &str) -> Value {
        let (status, body) = self.get(path).await;
        assert_eq!(status, 200, "{path}: {body}");
        serde_json::from_str(&body).unwrap()
    }

    /// Creates a player with money in the wallet; returns the id.
    pub async fn player(&self, name: &str, deposit: u64) -> String {
        let (status, p) = self
            .post(
                "/admin/players",
                json!({ "name": name, "password": "password1" }),
            )
            .await;
        assert_eq!(status, 201, "{p}");
        let id = p["player_id"].as_str().unwrap().to_string();
        if deposit > 0 {
            let (status, _) = self
                .post(
                    &format!("/admin/players/{id}/deposit"),
                    json!({ "amount": deposit }),
                )
                .await;
            assert_eq!(status, 200);
        }
        id
    }

    /// Creates a 6-seat no-limit 1/2 table with this clock; returns its id.
    pub async fn table(&self, clock: Value) -> String {
        self.table_with(nl_rules(), clock).await
    }

    /// Creates a table with these rules and clock; returns its id.
    pub async fn table_with(&self, rules: Value, clock: Value) -> String {
        let (status, t) = self
            .post(
                "/admin/tables",
                json!({ "name": "NL 1/2", "rules": rules, "clock": clock }),
            )
            .await;
        assert_eq!(status, 201, "{t}");
        t["table_id"].as_str().unwrap().to_string()
    }

    pub async fn login(&self, name: &str) -> String {
        self.account("/login", name).await
    }

    /// Registers an account (password `password1`); returns its session token.
    #[allow(dead_code)] // not every test binary registers
    pub async fn register(&self, name: &str) -> String {
        self.account("/register", name).await
    }

    /// Logs in or registers; returns the session token.
    async fn account(&self, path: &str, name: &str) -> String {
        let login: Value = reqwest::Client::new()
            .post(format!("{}{path}", self.base))
            .json(&json!({ "name": name, "password": "password1" }))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        login["token"].as_str().expect("a token").to_string()
    }

    /// A logged-in, authenticated client.
    pub async fn client(&self, name: &str) -> Client {
        let token = self.login(name).await;
        let mut c = Client::connect(self.addr, name).await;
        c.auth(&token).await;
        c
    }

    /// The store's audit, read through a second connection.
    pub async fn audit(&self) -> Audit {
        let store = SqlStore::connect(&self.url).await.unwrap();
        let audit = store.audit().await.unwrap();
        store.close().await;
        audit
    }
}

pub fn nl_rules() -> Value {
    json!({
        "game": "holdem", "structure": "no_limit", "stakes": { "min_bet": 2 },
        "max_raises": null, "uncapped_heads_up": false, "seat_count": 6,
        "small_blind": 1, "big_blind": 2, "ante": { "kind": "none" }, "button": "dead",
        "missed_blinds": "dead_small_live_big", "min_buy_in": 40, "max_buy_in": 200,
        "rathole_secs": 3600, "max_missed_big_blinds": 10, "kill": null, "rock": false
    })
}

/// No-limit hold'em at 5/10 (bets in tens), buy-ins from 200 to 1,000.
pub fn nl_5_10() -> Value {
    let mut rules = nl_rules();
    rules["small_blind"] = json!(5);
    rules["big_blind"] = json!(10);
    rules["stakes"] = json!({ "min_bet": 10 });
    rules["min_buy_in"] = json!(200);
    rules["max_buy_in"] = json!(1000);
    rules
}

/// Checks that the books balance and hold exactly what was deposited.
pub fn assert_conserved(audit: &Audit, deposited: i64) {
    assert!(audit.holds(), "{audit:?}");
    assert_eq!(
        audit.wallets + audit.stacks + audit.rake,
        deposited,
        "chips in play + wallets + rake = deposits: {audit:?}"
    );
}

/// What [`Client::recv_or_closed`] got.
#[derive(Debug)]
pub enum Received {
    /// A message (checked for secrecy), boxed: the other variants are empty.
    Msg(Box<ServerMsg>),
    /// Nothing in time; the connection is still open.
    Quiet,
    /// The server closed the connection, or it broke.
    Closed,
}

/// A player's (or spectator's) WebSocket.
pub struct Client {
    pub name: String,
    pub ws: Ws,
    pub player_id: Option<poker_protocol::PlayerId>,
    /// Seat numbers this client sits in, per the server's seat views.
    pub seat: Option<u32>,
    /// The seat at each table, for the secrecy check: a player who leaves one table for
    /// another still gets the first table's hand in progress.
    pub table_seats: std::collections::HashMap<poker_protocol::TableId, u32>,
    /// Hole cards legitimately shown at showdown, per hand and player index.
    pub shown: HashSet<(u64, usize)>,
    /// Every message received, for later checks.
    pub log: Vec<ServerMsg>,
    /// The last decision asked of this client, and whether it was answered.
    pub last_decide: Option<(u64, poker_rules::LegalActions)>,
    pub answered: HashSet<u64>,
}

impl Client {
    pub async fn connect(addr: std::net::SocketAddr, name: &str) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
            .await
            .unwrap();
        Client::with_ws(ws, name)
    }

    /// A connection from another loopback address (`from`: 127.0.0.2, say; Linux routes
    /// all of 127/8 to the loopback) and with extra request headers (a proxy's
    /// `x-forwarded-for`, say).
    pub async fn connect_from(
        addr: std::net::SocketAddr,
        name: &str,
        from: std::net::IpAddr,
        headers: &[(&str, &str)],
    ) -> Client {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let mut request = format!("ws://{addr}/ws").into_client_request().unwrap();
        for (key, value) in headers {
            request.headers_mut().insert(
                tokio_tungstenite::tungstenite::http::HeaderName::from_bytes(key.as_bytes())
                    .unwrap(),
                value.parse().unwrap(),
            );
        }
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(std::net::SocketAddr::new(from, 0)).unwrap();
        let stream = socket.connect(addr).await.unwrap();
        let (ws, _) = tokio_tungstenite::client_async(
            request,
            tokio_tungstenite::MaybeTlsStream::Plain(stream),
        )
        .await
        .unwrap();
        Client::with_ws(ws, name)
    }

    /// A client on a WebSocket opened elsewhere (from another address, with headers).
    pub fn with_ws(ws: Ws, name: &str) -> Client {
        Client {
            name: name.to_string(),
            ws,
            player_id: None,
            seat: None,
            table_seats: Default::default(),
            shown: HashSet::new(),
            log: Vec::new(),
            last_decide: None,
            answered: HashSet::new(),
        }
    }

    pub async fn send(&mut self, msg: &ClientMsg) {
        if let ClientMsg::Act { decision_id, .. } = msg {
            self.answered.insert(*decision_id);
        }
        self.send_raw(serde_json::to_string(msg).unwrap()).await;
    }

    pub async fn send_raw(&mut self, text: String) {
        self.ws.send(Message::Text(text.into())).await.unwrap();
    }

    pub async fn auth(&mut self, token: &str) {
        self.send(&ClientMsg::Auth {
            token: token.to_string(),
        })
        .await;
        match self.recv().await {
            ServerMsg::Welcome { player_id, .. } => self.player_id = Some(player_id),
            other => panic!("{}: expected a welcome, got {other:?}", self.name),
        }
    }

    /// The next message within `wait`, checked for secrecy.
    pub async fn try_recv(&mut self, wait: Duration) -> Option<ServerMsg> {
        match self.recv_or_closed(wait).await {
            Received::Msg(msg) => Some(*msg),
            Received::Quiet | Received::Closed => None,
        }
    }

    /// Like [`Client::try_recv`], but tells a quiet connection from a closed one.
    pub async fn recv_or_closed(&mut self, wait: Duration) -> Received {
        loop {
            let frame = match tokio::time::timeout(wait, self.ws.next()).await {
                Err(_) => return Received::Quiet,
                Ok(None) | Ok(Some(Err(_))) => return Received::Closed,
                Ok(Some(Ok(f))) => f,
            };
            if let Message::Text(t) = frame {
                let msg: ServerMsg = serde_json::from_str(&t).expect("a server message");
                self.check_secrecy(&msg);
                match &msg {
                    ServerMsg::Decide {
                        decision_id, legal, ..
                    } => self.last_decide = Some((*decision_id, *legal)),
                    ServerMsg::Snapshot {
                        decide: Some(d), ..
                    } => {
                        if let ServerMsg::Decide {
                            decision_id, legal, ..
                        } = d.as_ref()
                        {
                            self.last_decide = Some((*decision_id, *legal));
                        }
                    }
                    _ => {}
                }
                self.log.push(msg.clone());
                return Received::Msg(Box::new(msg));
            }
            if let Message::Close(_) = frame {
                return Received::Closed;
            }
        }
    }

    pub async fn recv(&mut self) -> ServerMsg {
        self.try_recv(Duration::from_secs(15))
            .await
            .unwrap_or_else(|| panic!("{}: no message in time", self.name))
    }

    /// Skips table traffic until an error comes; checks its code.
    pub async fn expect_error(&mut self, code: ErrorCode) {
        loop {
            match self.recv().await {
                ServerMsg::Error { code: c, message } => {
                    assert_eq!(c, code, "{}: {message}", self.name);
                    return;
                }
                ServerMsg::Welcome { .. } | ServerMsg::Pong | ServerMsg::Tables { .. } => {
                    panic!("{}: expected {code:?}", self.name)
                }
                _ => continue,
            }
        }
    }

    /// Skips other messages until one matches.
    pub async fn until<T>(&mut self, mut f: impl FnMut(&ServerMsg) -> Option<T>) -> T {
        loop {
            let msg = self.recv().await;
            if let ServerMsg::Error { code, message } = &msg {
                panic!("{}: unexpected error {code:?}: {message}", self.name);
            }
            if let Some(t) = f(&msg) {
                return t;
            }
        }
    }

    /// No message may carry hole cards other than this player's own, unless shown.
    fn check_secrecy(&mut self, msg: &ServerMsg) {
        let me = self.player_id;
        let check = |hand: u64, seats: &[u32], event: &Event, mine: Option<u32>| {
            if let Event::HoleDealt { player, cards, up } = event {
                let own = mine.is_some() && Some(seats[*player]) == mine;
                for (i, c) in cards.iter().enumerate() {
                    let face_up = up >> i & 1 == 1;
                    assert!(
                        own || face_up || !c.is_known(),
                        "{}: saw hole cards {cards} of player {player} in hand {hand}",
                        self.name
                    );
                }
            }
        };
        match msg {
            ServerMsg::Snapshot { table, .. } | ServerMsg::Seats { table } if me.is_some() => {
                let mine = table
                    .seats
                    .iter()
                    .find(|s| Some(&s.player_id) == me.as_ref())
                    .map(|s| s.seat);
                if mine.is_some() || self.seat.is_none() {
                    self.seat = mine.or(self.seat);
                }
                if let Some(seat) = mine {
                    self.table_seats.insert(table.table_id, seat);
                }
                if let ServerMsg::Snapshot { hand: Some(h), .. } = msg {
                    for e in &h.events {
                        check(h.hand_number, &h.seats, e, mine);
                    }
                }
            }
            ServerMsg::Event {
                table_id,
                hand_number,
                seats,
                event,
                ..
            } => {
                if let Event::Shown { player, .. } = event {
                    self.shown.insert((*hand_number, *player));
                }
                let mine = self.table_seats.get(table_id).copied().or(self.seat);
                check(*hand_number, seats, event, mine);
            }
            _ => {}
        }
    }
}

/// A simple player: calls or checks, or with `shove` bets everything.
pub fn simple_action(legal: &poker_rules::LegalActions, shove: bool) -> Action {
    if shove {
        if let Some((_, max)) = legal.bet_or_raise {
            return Action::BetOrRaiseTo { to: max };
        }
    }
    if legal.call.is_some() {
        Action::Call
    } else {
        Action::Check
    }
}

pub fn act(table_id: &str, decision_id: u64, action: Action) -> ClientMsg {
    ClientMsg::Act {
        table_id: table_id.parse().expect("a table id"),
        decision_id,
        action,
    }
}

pub fn sit(table_id: &str, seat: u32, buy_in: u64) -> ClientMsg {
    ClientMsg::Sit {
        table_id: table_id.parse().expect("a table id"),
        seat,
        buy_in,
        post_now: true,
        seed_commit: None,
    }
}

/// What [`play`] saw.
#[derive(Debug, Default)]
pub struct Stats {
    pub hands_ended: usize,
    pub side_pots_awarded: usize,
    pub showdowns: usize,
    /// Shown hands that came with their name (`two pair, Tens and Threes`).
    pub named_shows: usize,
    pub actions: usize,
}

/// Drives every client until the first client has seen `hands` hands end: each answers
/// its decisions with `strategy(client, hand_number, legal)`, and tops up by 100 when
/// it finds itself seated with no chips.
pub async fn play(
    clients: &mut [Client],
    table_id: &str,
    hands: usize,
    mut strategy: impl FnMut(usize, u64, &poker_rules::LegalActions) -> Action,
) -> Stats {
    let mut stats = Stats::default();
    let mut hand_of = vec![0u64; clients.len()];
    let mut topping_up = vec![false; clients.len()];
    let mut idle_rounds = 0;
    while stats.hands_ended < hands {
        let mut got_any = false;
        for i in 0..clients.len() {
            // A decision received earlier (while the test waited for something else).
            if let Some((id, legal)) = clients[i].last_decide {
                if !clients[i].answered.contains(&id) {
                    let action = strategy(i, hand_of[i], &legal);
                    clients[i].send(&act(table_id, id, action)).await;
                }
            }
            let Some(msg) = clients[i].try_recv(Duration::from_millis(5)).await else {
                continue;
            };
            got_any = true;
            match msg {
                ServerMsg::Decide {
                    decision_id, legal, ..
                } => {
                    let action = strategy(i, hand_of[i], &legal);
                    stats.actions += 1;
                    clients[i].send(&act(table_id, decision_id, action)).await;
                }
                ServerMsg::Snapshot { hand: Some(h), .. } => hand_of[i] = h.hand_number,
                ServerMsg::Done { request, .. } if request == "top_up" => topping_up[i] = false,
                ServerMsg::Seats { table } => {
                    let me = clients[i].player_id;
                    let busted = table.seats.iter().any(|s| {
                        Some(&s.player_id) == me.as_ref() && s.stack == 0 && s.pending_top_up == 0
                    });
                    if busted && !topping_up[i] {
                        topping_up[i] = true;
                        clients[i]
                            .send(&ClientMsg::TopUp {
                                table_id: table_id.parse().expect("a table id"),
                                amount: 100,
                            })
                            .await;
                    }
                }
                ServerMsg::Event {
                    hand_number,
                    event,
                    hand_name,
                    ..
                } => {
                    hand_of[i] = hand_number;
                    if i == 0 && hand_name.is_some() {
                        stats.named_shows += 1;
                    }
                    if i == 0 {
                        match event {
                            Event::HandEnded { .. } => stats.hands_ended += 1,
                            Event::PotAwarded { pot, .. } if pot > 0 => {
                                stats.side_pots_awarded += 1
                            }
                            Event::Shown { .. } => stats.showdowns += 1,
                            _ => {}
                        }
                    }
                }
                ServerMsg::Error { code, message } => {
                    panic!("{}: unexpected error {code:?}: {message}", clients[i].name)
                }
                _ => {}
            }
        }
        idle_rounds = if got_any { 0 } else { idle_rounds + 1 };
        assert!(idle_rounds < 1000, "the table stalled: {stats:?}");
    }
    stats
}

/// The cards a player holds in the hand in progress at one table, from the events it
/// receives (its own hole cards, less its discards).
#[derive(Debug, Default)]
pub struct MyCards {
    pub hand: u64,
    pub cards: Vec<poker_rules::Card>,
}

impl MyCards {
    /// Follows one message; `seat` is the player's seat.
    pub fn follow(&mut self, msg: &ServerMsg, seat: Option<u32>) {
        match msg {
            ServerMsg::Event {
                hand_number,
                seats,
                event,
                ..
            } => self.event(*hand_number, seats, event, seat),
            ServerMsg::Snapshot { hand: Some(h), .. } => {
                self.hand = h.hand_number;
                self.cards.clear();
                for e in &h.events {
                    self.event(h.hand_number, &h.seats, e, seat);
                }
            }
            _ => {}
        }
    }

    fn event(&mut self, hand: u64, seats: &[u32], event: &Event, seat: Option<u32>) {
        if hand != self.hand {
            self.hand = hand;
            self.cards.clear();
        }
        let mine = |p: &usize| seat.is_some() && seats.get(*p).copied() == seat;
        match event {
            Event::HoleDealt { player, cards, .. } if mine(player) => self
                .cards
                .extend(cards.iter().copied().filter(|c| c.is_known())),
            Event::Discarded { player, cards } if mine(player) => {
                self.cards.retain(|c| !cards.contains(c))
            }
            _ => {}
        }
    }
}

/// A fresh connection for a client that dropped its own (same name, same session).
pub async fn reconnect(client: &mut Client, addr: std::net::SocketAddr, token: &str) {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
        .await
        .unwrap();
    let _ = client.ws.close(None).await;
    client.ws = ws;
    client.last_decide = None;
    client.auth(token).await;
}

/// A number from the environment (a soak's seed, say), else `default`.
pub fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// A table id as the admin API writes it, typed for the protocol.
pub fn tid(table_id: &str) -> poker_protocol::TableId {
    table_id.parse().expect("a table id")
}
