//! House bots of a play-money room: so that a lone newcomer gets a game, bots sit at a
//! table where people play until `bots.fill_to` players are seated, and leave one at a
//! time as people arrive, as people leave (bots never play among themselves), when
//! someone waits for a seat, or when the table closes.
//!
//! A bot is an ordinary account whose password hash is `bot:` (no password can log in
//! to it), funded with play money like anyone, and it plays through the public WebSocket
//! protocol (`poker-bots`), so the server treats it exactly as a person. Bots seated when
//! pokerd last stopped are resumed on start.
//!
//! A bot is seated only where it may sit: the house asks the table what each idle bot
//! may buy in for (the rathole rule binds bots as it binds people: one that left this
//! table lately with more than the minimum must bring that much back), takes one whose
//! range fits within the table's limits, and makes a new bot account when none does.
//! A bot short of its buy-in has its wallet reloaded (a reload with its ledger record,
//! as a player's). A bot that is refused anyway, cannot connect, or does not reach its
//! seat in time is not offered at that table again for a while, and a bot sitting out
//! is asked to leave, so no bot holds a seat without playing. Each of these is logged
//! at info, with the bot that sat instead.

use crate::AppState;
use poker_bots::{BotEnd, BotPlan};
use poker_protocol::{BuyInRange, TableView};
use poker_rules::Chips;
use poker_store::{now_ms, PlayerId, StoreError, TableId};
use rand::RngCore;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;

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

/// How long a bot on its way to a seat may take to reach it before the house gives up
/// on it (a sit is answered in milliseconds; this covers a slow start).
const ARRIVAL: Duration = Duration::from_secs(10);

/// How long a bot that could not sit at a table is not offered there again.
const REFUSED_FOR: Duration = Duration::from_secs(60);

/// One bot's run at one table.
struct Running {
    /// The table.
    table: TableId,
    /// Tells the bot to leave (after its hand).
    leave: watch::Sender<bool>,
    /// The bot's connection.
    task: JoinHandle<BotEnd>,
    /// When it was started, to give up on a bot that never reaches its seat.
    started: Instant,
    /// Whether a seat view has shown it seated (a resumed bot is seated from the start).
    seen_seated: bool,
}

struct House {
    state: Arc<AppState>,
    url: String,
    /// Every bot account: id and name.
    accounts: Vec<(PlayerId, String)>,
    running: HashMap<PlayerId, Running>,
    /// One session per bot for the life of the process.
    tokens: HashMap<PlayerId, String>,
    /// Bots that could not sit at a table, and until when they are not offered there.
    refused: HashMap<(PlayerId, TableId), Instant>,
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
        refused: HashMap::new(),
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

    /// A bot's name, for the log.
    fn name(&self, player: PlayerId) -> &str {
        self.accounts
            .iter()
            .find(|(id, _)| *id == player)
            .map_or("?", |(_, n)| n.as_str())
    }

    /// A new bot account (the next free name), or `None` when every name is taken.
    async fn new_account(&mut self) -> Result<Option<PlayerId>, StoreError> {
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
                    tracing::info!("house bots: made a new bot, {name}");
                    self.accounts.push((id, name));
                    return Ok(Some(id));
                }
                Err(StoreError::NameTaken) => continue,
                Err(e) => return Err(e),
            }
        }
        Ok(None)
    }

    /// The bot to seat at a table and its buy-in: the first idle bot whose range (the
    /// table's, or the rathole rule's) fits within the table's limits, buying in for
    /// the middle of the table's range raised to its own minimum; else a new bot; else,
    /// every name taken, the idle bot that must bring the least, for what the rule asks.
    /// `None` when no bot can be asked now (the table is gone or every bot is busy).
    async fn choose(
        &mut self,
        handle: &crate::table::TableHandle,
        view: &TableView,
    ) -> Result<Option<(PlayerId, Chips)>, StoreError> {
        let table = view.table_id;
        let now = Instant::now();
        self.refused.retain(|_, until| *until > now);
        let idle: Vec<PlayerId> = self
            .accounts
            .iter()
            .map(|(id, _)| *id)
            .filter(|id| !self.running.contains_key(id))
            .filter(|id| !self.refused.contains_key(&(*id, table)))
            .collect();
        let middle = (view.min_buy_in + view.max_buy_in) / 2;
        let mut held_back: Vec<(PlayerId, BuyInRange)> = Vec::new();
        for bot in idle {
            let range = match handle.buy_in_range(bot).await {
                Ok(range) => range,
                // The table is gone or moving: ask again on the next round.
                Err(_) => return Ok(None),
            };
            if range.min <= view.max_buy_in {
                let buy_in = middle.clamp(range.min, range.max);
                self.log_choice(table, bot, buy_in, &held_back, view.max_buy_in);
                return Ok(Some((bot, buy_in)));
            }
            held_back.push((bot, range));
        }
        if let Some(bot) = self.new_account().await? {
            self.log_choice(table, bot, middle, &held_back, view.max_buy_in);
            return Ok(Some((bot, middle)));
        }
        // Every name is taken and every idle bot must bring more than the table's
        // maximum: the one that must bring the least brings what the rule asks.
        held_back.sort_by_key(|(_, r)| r.min);
        let Some((bot, range)) = held_back.first().cloned() else {
            return Ok(None);
        };
        tracing::info!(
            %table,
            "house bots: every idle bot must bring back more than the table's maximum \
             ({}) and no new bot can be made; {} sits with {}, as the rathole rule asks",
            view.max_buy_in,
            self.name(bot),
            range.min
        );
        Ok(Some((bot, range.min)))
    }

    /// Logs at info which bot sits down, and why each bot asked before it could not.
    fn log_choice(
        &self,
        table: TableId,
        bot: PlayerId,
        buy_in: Chips,
        held_back: &[(PlayerId, BuyInRange)],
        max: Chips,
    ) {
        let name = self.name(bot);
        if held_back.is_empty() {
            tracing::debug!(%table, "house bots: {name} sits down with {buy_in}");
            return;
        }
        let why: Vec<String> = held_back
            .iter()
            .map(|(p, r)| {
                let left = r.rathole.as_ref().map_or(String::new(), |n| {
                    format!(", left {} s ago with {}", n.left_secs_ago, n.stack)
                });
                format!(
                    "{} (the rathole rule asks at least {}{left}, above the table's maximum {max})",
                    self.name(*p),
                    r.min
                )
            })
            .collect();
        tracing::info!(
            %table,
            "house bots: {name} sits down with {buy_in}; could not sit: {}",
            why.join("; ")
        );
    }

    /// Makes sure a bot's wallet covers `buy_in`: a reload to the room's grant (or to the
    /// buy-in when that is more), with its ledger record.
    async fn fund(&self, bot: PlayerId, buy_in: Chips) -> Result<(), StoreError> {
        if self.state.store.balance(bot).await? >= buy_in {
            return Ok(());
        }
        let level = self.state.config.room.play_grant.max(buy_in);
        let (balance, added) = crate::http::me::refill(&self.state.store, bot, level).await?;
        tracing::info!(
            "house bots: {}'s wallet reloaded with {added} to {balance} for a buy-in of {buy_in}",
            self.name(bot)
        );
        Ok(())
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
        self.running.insert(
            player,
            Running {
                table,
                leave,
                task,
                started: Instant::now(),
                seen_seated: sit.is_none(),
            },
        );
    }

    async fn step(&mut self) -> anyhow::Result<()> {
        // Forget bots whose run ended; one that could not sit is not offered at that
        // table again for a while.
        let ended: Vec<PlayerId> = self
            .running
            .iter()
            .filter(|(_, r)| r.task.is_finished())
            .map(|(p, _)| *p)
            .collect();
        for p in ended {
            if let Some(r) = self.running.remove(&p) {
                match r.task.await {
                    Ok(BotEnd::Left | BotEnd::TableGone) => {}
                    Ok(end) => {
                        tracing::info!(
                            table = %r.table,
                            "house bots: {} could not sit or stay: {end:?}; another is asked",
                            self.name(p)
                        );
                        self.refused
                            .insert((p, r.table), Instant::now() + REFUSED_FOR);
                    }
                    Err(e) => tracing::warn!("house bots: {}'s run failed: {e}", self.name(p)),
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
                match self.running.get_mut(&p) {
                    Some(r) => r.seen_seated = true,
                    None => {
                        let token = self.session(p).await?;
                        self.start(p, table_id, token, None);
                    }
                }
            }
            // A bot sitting out holds a seat without playing: it leaves (another comes).
            for s in view.seats.iter().filter(|s| s.sitting_out && !s.leaving) {
                if let Some(r) = self.running.get(&s.player_id) {
                    if !*r.leave.borrow() {
                        tracing::info!(
                            %table_id,
                            "house bots: {} sits out, so it leaves",
                            self.name(s.player_id)
                        );
                        let _ = r.leave.send(true);
                    }
                }
            }
            // A bot that has not reached its seat in time is given up on (its sit may
            // have been lost or refused in a way it did not understand).
            let late: Vec<PlayerId> = self
                .running
                .iter()
                .filter(|(p, r)| {
                    r.table == table_id
                        && !r.seen_seated
                        && !seated_bots.contains(p)
                        && r.started.elapsed() > ARRIVAL
                })
                .map(|(p, _)| *p)
                .collect();
            for p in late {
                if let Some(r) = self.running.remove(&p) {
                    r.task.abort();
                    tracing::info!(
                        %table_id,
                        "house bots: {} did not reach its seat in {} s; another is asked",
                        self.name(p),
                        ARRIVAL.as_secs()
                    );
                    self.refused
                        .insert((p, table_id), Instant::now() + REFUSED_FOR);
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
                let Some((player, buy_in)) = self.choose(&handle, &view).await? else {
                    continue;
                };
                self.fund(player, buy_in).await?;
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
