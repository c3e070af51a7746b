//! House bots of a play-money room: so that a lone newcomer gets a game, bots sit at a
//! table where people play until `bots.fill_to` players are seated, and leave one at a
//! time as people arrive, as people leave (bots never play among themselves), when
//! someone waits for a seat, or when the table closes.
//!
//! A bot is an ordinary account whose password hash is `bot:` (no password can log in
//! to it), funded with play money like anyone, and it plays through the public WebSocket
//! protocol (`poker-bots`), so the server treats it exactly as a person. Bots seated when
//! pokerd last stopped are resumed on start.

use crate::AppState;
use poker_bots::{BotEnd, BotPlan};
use poker_protocol::TableView;
use poker_store::{now_ms, PlayerId, Store, StoreError, TableId};
use rand::RngCore;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// The names house bots take, in order.
const NAMES: [&str; 24] = [
    "Ada", "Boole", "Cray", "Dijkstra", "Euler", "Fermat", "Gauss", "Hopper", "Ito", "Jacobi",
    "Knuth", "Lovelace", "Markov", "Nash", "Ostrom", "Pascal", "Quine", "Riemann", "Shannon",
    "Turing", "Ulam", "Viterbi", "Wiener", "Zermelo",
];

/// The prefix of a bot's password hash: no password verifies against it.
pub const BOT_HASH: &str = "bot:";

/// Whether a stored player is a house bot.
pub fn is_bot(player: &poker_store::Player) -> bool {
    player.password_hash.starts_with(BOT_HASH)
}

struct Running {
    table: TableId,
    leave: watch::Sender<bool>,
    task: JoinHandle<BotEnd>,
}

struct House {
    state: Arc<AppState>,
    url: String,
    /// Every bot account: id and name.
    accounts: Vec<(PlayerId, String)>,
    running: HashMap<PlayerId, Running>,
    /// One session per bot for the life of the process.
    tokens: HashMap<PlayerId, String>,
    seed: u64,
}

/// Starts the house bots of a play-money room (nothing otherwise); they stop with the
/// server.
pub fn spawn(state: Arc<AppState>, addr: std::net::SocketAddr) -> Option<JoinHandle<()>> {
    if !state.config.play_money() || state.config.bots.fill_to == 0 {
        return None;
    }
    let host = if addr.ip().is_unspecified() {
        format!("127.0.0.1:{}", addr.port())
    } else {
        addr.to_string()
    };
    let mut house = House {
        url: format!("ws://{host}/ws"),
        state,
        accounts: Vec::new(),
        running: HashMap::new(),
        tokens: HashMap::new(),
        seed: rand::random(),
    };
    Some(tokio::spawn(async move { house.run().await }))
}

impl House {
    async fn run(&mut self) {
        let mut shutting_down = self.state.shutting_down.clone();
        if let Err(e) = self.load_accounts().await {
            tracing::error!("house bots: cannot load their accounts: {e}");
            return;
        }
        let mut tick = tokio::time::interval(Duration::from_millis(700));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                _ = shutting_down.changed() => break,
            }
            if *shutting_down.borrow() {
                break;
            }
            if let Err(e) = self.step().await {
                tracing::warn!("house bots: {e}");
            }
        }
        // The server is draining: connections close with it; seats stay as stored and
        // bots resume them on the next start.
        for (_, r) in self.running.drain() {
            r.task.abort();
        }
    }

    async fn load_accounts(&mut self) -> Result<(), StoreError> {
        self.accounts = self
            .state
            .store
            .players()
            .await?
            .into_iter()
            .filter(is_bot)
            .map(|p| (p.player_id, p.name))
            .collect();
        Ok(())
    }

    /// A bot account not playing now, made if every existing one is busy.
    async fn free_account(&mut self) -> Result<Option<PlayerId>, StoreError> {
        if let Some((id, _)) = self
            .accounts
            .iter()
            .find(|(id, _)| !self.running.contains_key(id))
        {
            return Ok(Some(*id));
        }
        for (i, base) in NAMES.iter().cycle().enumerate().take(NAMES.len() * 4) {
            let name = if i < NAMES.len() {
                format!("{base} (bot)")
            } else {
                format!("{base} {} (bot)", i / NAMES.len() + 1)
            };
            if self.accounts.iter().any(|(_, n)| *n == name) {
                continue;
            }
            let mut raw = [0u8; 16];
            rand::rngs::OsRng.fill_bytes(&mut raw);
            let hash = format!("{BOT_HASH}{}", hex(&raw));
            match self.state.store.create_player(&name, &hash).await {
                Ok(id) => {
                    self.accounts.push((id, name));
                    return Ok(Some(id));
                }
                Err(StoreError::NameTaken) => continue,
                Err(e) => return Err(e),
            }
        }
        Ok(None)
    }

    /// The bot's session token (made once per process; only its hash is stored).
    async fn session(&mut self, player: PlayerId) -> Result<String, StoreError> {
        if let Some(token) = self.tokens.get(&player) {
            return Ok(token.clone());
        }
        let mut raw = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut raw);
        let token = hex(&raw);
        let expires = now_ms() + 30 * 24 * 3_600_000;
        self.state
            .store
            .create_session(&crate::http::auth::token_hash(&token), player, expires)
            .await?;
        self.tokens.insert(player, token.clone());
        Ok(token)
    }

    fn start(&mut self, player: PlayerId, table: TableId, token: String, sit: Option<(u32, u64)>) {
        self.seed = self.seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let plan = BotPlan {
            url: self.url.clone(),
            token,
            table_id: table,
            sit,
            think: Duration::from_millis(self.state.config.bots.think_ms),
            seed: self.seed,
        };
        let (leave, rx) = watch::channel(false);
        let task = tokio::spawn(poker_bots::run(plan, rx));
        self.running.insert(player, Running { table, leave, task });
    }

    async fn step(&mut self) -> anyhow::Result<()> {
        // Forget bots whose run ended.
        let ended: Vec<PlayerId> = self
            .running
            .iter()
            .filter(|(_, r)| r.task.is_finished())
            .map(|(p, _)| *p)
            .collect();
        for p in ended {
            if let Some(r) = self.running.remove(&p) {
                if let Ok(end) = r.task.await {
                    if !matches!(end, BotEnd::Left | BotEnd::TableGone) {
                        tracing::debug!("house bot {p}: {end:?}");
                    }
                }
            }
        }
        let bots: HashSet<PlayerId> = self.accounts.iter().map(|(id, _)| *id).collect();
        let tables: Vec<(TableId, crate::table::TableHandle)> = self.state.tables.handles();
        for (table_id, handle) in tables {
            let Some(inspect) = handle.inspect().await else {
                continue;
            };
            let Ok(view) = serde_json::from_value::<TableView>(inspect["table"].clone()) else {
                continue;
            };
            // A private game is its host's friends' alone: no house bot sits there.
            if view.private.is_some() {
                continue;
            }
            let status = inspect["status"].as_str().unwrap_or("open");
            let seated_bots: Vec<PlayerId> = view
                .seats
                .iter()
                .map(|s| s.player_id)
                .filter(|p| bots.contains(p))
                .collect();
            // A seated bot with no client (after a restart, or one whose connection
            // could not be made again) is resumed, so that it plays or is told to leave.
            for &p in &seated_bots {
                if !self.running.contains_key(&p) {
                    let token = self.session(p).await?;
                    self.start(p, table_id, token, None);
                }
            }
            // People playing: seated, not bots, not sitting out.
            let humans = view
                .seats
                .iter()
                .filter(|s| !bots.contains(&s.player_id) && !s.sitting_out)
                .count();
            let here: Vec<PlayerId> = self
                .running
                .iter()
                .filter(|(_, r)| r.table == table_id && !*r.leave.borrow())
                .map(|(p, _)| *p)
                .collect();
            let target = (self.state.config.bots.fill_to as usize).min(view.seat_count as usize);
            let seated = view.seats.len();
            let too_many = humans == 0 || seated > target || view.waitlist > 0 || status != "open";
            if too_many {
                // One bot at a time leaves (after its hand, like anyone).
                if let Some(p) = here.iter().find(|p| seated_bots.contains(p)) {
                    let _ = self.running[p].leave.send(true);
                }
                continue;
            }
            // Bots that are on their way in count as seated.
            let arriving = here.iter().filter(|p| !seated_bots.contains(p)).count();
            if seated + arriving < target {
                let taken: HashSet<u32> = view.seats.iter().map(|s| s.seat).collect();
                let Some(seat) = (0..view.seat_count).find(|s| !taken.contains(s)) else {
                    continue;
                };
                let Some(player) = self.free_account().await? else {
                    continue;
                };
                // Buy in for the midpoint of the range, topping the wallet up with play
                // money when it runs short (a deposit with its ledger record).
                let buy_in = (view.min_buy_in + view.max_buy_in) / 2;
                let balance = self.state.store.balance(player).await?;
                if balance < buy_in {
                    let grant = self.state.config.room.play_grant.max(buy_in);
                    let key = format!("bot-grant:{player}:{:016x}", rand::random::<u64>());
                    self.state
                        .store
                        .credit(
                            player,
                            grant - balance,
                            poker_store::Credit::Grant,
                            Some(&key),
                        )
                        .await?;
                }
                let token = self.session(player).await?;
                self.start(player, table_id, token, Some((seat, buy_in)));
            }
        }
        Ok(())
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
