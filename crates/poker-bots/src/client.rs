//! One bot's connection to a table, over the public WebSocket protocol: authenticate
//! with a session token, take a seat (or resume one it holds), answer each decision after
//! a thinking pause, and leave when told (cashing out through the server, like anyone).
//! A dropped connection is resumed: the server keeps the seat and resends the decision.

use crate::strategy::{Family, Strategy};
use futures_util::{SinkExt, StreamExt};
use poker_protocol::{ClientMsg, PlayerId, ServerMsg, TableId, TableView};
use poker_rules::{Action, Card, Chips, Event};
use rand::{Rng, RngCore};
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

/// What a bot is to do.
#[derive(Clone, Debug)]
pub struct BotPlan {
    /// The server's WebSocket address (`ws://host:port/ws`).
    pub url: String,
    /// The bot's session token.
    pub token: String,
    /// The table.
    pub table_id: TableId,
    /// The seat and buy-in to take; `None` resumes a seat the bot holds already.
    pub sit: Option<(u32, Chips)>,
    /// The thinking pause before each action (it varies from half to one and a half
    /// times this).
    pub think: Duration,
    /// Seed of its choices.
    pub seed: u64,
}

/// How a bot's run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BotEnd {
    /// It left as told (or busted and left), cashed out.
    Left,
    /// The server refused the seat (taken, no money...): nothing happened.
    Refused(String),
    /// The table closed or failed; the server cashed everyone out.
    TableGone,
    /// The connection could not be (re)made.
    Disconnected(String),
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// What the bot knows of the hand in progress.
#[derive(Default)]
struct HandState {
    number: u64,
    hole: Vec<Card>,
    board: Vec<Card>,
    pot: Chips,
    /// Chips the bot put in this hand.
    mine: Chips,
}

struct Bot {
    plan: BotPlan,
    strategy: Strategy,
    me: Option<PlayerId>,
    seat: Option<u32>,
    family: Family,
    /// The bot's stack at the start of the hand, per the server's seat view.
    stack: Chips,
    hand: HandState,
    /// An answer waiting for its thinking pause to end.
    pending: Option<(Instant, ClientMsg)>,
    leaving: bool,
    seated_once: bool,
    /// The next hand's deck commitment, as last heard.
    next_deck: Option<poker_protocol::Commitment>,
    /// The seed for the next hand's deck, once committed: its hand, the seed and whether
    /// it was revealed.
    seed: Option<(poker_protocol::HandId, poker_protocol::Seed, bool)>,
    /// A sit was asked (a commitment may go with it, before the seat shows).
    sit_asked: bool,
}

async fn connect(plan: &BotPlan) -> anyhow::Result<Ws> {
    let (mut ws, _) = tokio_tungstenite::connect_async(plan.url.as_str()).await?;
    let auth = ClientMsg::Auth {
        token: plan.token.clone(),
    };
    ws.send(Message::Text(serde_json::to_string(&auth)?.into()))
        .await?;
    Ok(ws)
}

/// Plays until told to leave (`leave` turns true), the table goes, or the connection
/// cannot be made again.
pub async fn run(plan: BotPlan, mut leave: watch::Receiver<bool>) -> BotEnd {
    let mut bot = Bot {
        strategy: Strategy::new(plan.seed),
        plan,
        me: None,
        seat: None,
        family: Family::Holdem,
        stack: 0,
        hand: HandState::default(),
        pending: None,
        leaving: false,
        seated_once: false,
        next_deck: None,
        seed: None,
        sit_asked: false,
    };
    let mut drops = 0;
    loop {
        let mut ws = match connect(&bot.plan).await {
            Ok(ws) => ws,
            Err(e) => {
                drops += 1;
                if drops > 5 {
                    return BotEnd::Disconnected(e.to_string());
                }
                tokio::time::sleep(Duration::from_millis(200 * drops)).await;
                continue;
            }
        };
        match bot.session(&mut ws, &mut leave).await {
            Some(end) => {
                let _ = ws.close(None).await;
                return end;
            }
            None => {
                // The connection dropped: resume the seat on a new one.
                drops += 1;
                if drops > 5 {
                    return BotEnd::Disconnected("the connection keeps dropping".into());
                }
                bot.plan.sit = None;
                bot.pending = None;
                tokio::time::sleep(Duration::from_millis(100 * drops)).await;
            }
        }
    }
}

impl Bot {
    fn think(&mut self) -> Duration {
        let base = self.plan.think.as_millis() as u64;
        if base == 0 {
            return Duration::ZERO;
        }
        let ms = rand::thread_rng().gen_range(base / 2..=base + base / 2);
        Duration::from_millis(ms)
    }

    fn answer(&mut self, decision_id: u64, action: Action) {
        let msg = ClientMsg::Act {
            table_id: self.plan.table_id,
            decision_id,
            action,
        };
        let at = Instant::now() + self.think();
        self.pending = Some((at, msg));
    }

    /// A fresh seed for the next deck, unless one is committed for it already: 32 bytes
    /// from the operating system's generator, like a person's browser; returns its
    /// commitment (docs/fairness.md).
    fn new_seed(&mut self) -> Option<poker_protocol::SitSeed> {
        let deck = self.next_deck?;
        if self.seed.is_some_and(|(h, _, _)| h == deck.hand_id) {
            return None;
        }
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        let seed = poker_protocol::Seed::from_bytes(bytes);
        self.seed = Some((deck.hand_id, seed, false));
        Some(poker_protocol::SitSeed {
            hand_id: deck.hand_id,
            commitment: poker_protocol::seed_commitment(&deck.commitment, &seed),
        })
    }

    /// Commits to a seed for the next hand's deck, once per deck, while seated or sitting
    /// down. False if the connection is lost.
    async fn commit_seed(&mut self, ws: &mut Ws) -> bool {
        if self.seat.is_none() && !self.sit_asked {
            return true;
        }
        let Some(c) = self.new_seed() else {
            return true;
        };
        let msg = ClientMsg::SeedCommit {
            table_id: self.plan.table_id,
            hand_id: c.hand_id,
            commitment: c.commitment,
        };
        send(ws, &msg).await.is_ok()
    }

    /// Reveals the seed once the table closed the list of commitments, if the list holds
    /// the bot's. False if the connection is lost.
    async fn reveal_seed(
        &mut self,
        ws: &mut Ws,
        hand_id: poker_protocol::HandId,
        list: &[poker_protocol::SeedCommit],
    ) -> bool {
        let (Some((h, seed, false)), Some(deck)) = (self.seed, self.next_deck) else {
            return true;
        };
        let mine = poker_protocol::seed_commitment(&deck.commitment, &seed);
        if h != hand_id || deck.hand_id != hand_id || !list.iter().any(|e| e.commitment == mine) {
            return true;
        }
        self.seed = Some((h, seed, true));
        let msg = ClientMsg::Seed {
            table_id: self.plan.table_id,
            hand_id,
            seed,
        };
        send(ws, &msg).await.is_ok()
    }

    fn note_view(&mut self, table: &TableView) {
        self.family = Family::of(table.game_kind);
        if let Some(me) = self.me {
            let mine = table.seats.iter().find(|s| s.player_id == me);
            self.seat = mine.map(|s| s.seat);
            if let Some(s) = mine {
                self.stack = s.stack;
            }
        }
    }

    fn note_event(&mut self, hand_number: u64, seats: &[u32], event: &Event) {
        if self.hand.number != hand_number {
            self.hand = HandState {
                number: hand_number,
                ..HandState::default()
            };
        }
        let mine = |p: usize| self.seat.is_some() && seats.get(p).copied() == self.seat;
        match event {
            Event::AntePosted { player, amount }
            | Event::BlindPosted { player, amount }
            | Event::BringInPosted { player, amount }
            | Event::Called { player, amount, .. }
            | Event::BetTo { player, amount, .. } => {
                self.hand.pot += amount;
                if mine(*player) {
                    self.hand.mine += amount;
                }
            }
            Event::UncalledReturned { amount, .. } => {
                self.hand.pot = self.hand.pot.saturating_sub(*amount)
            }
            Event::HoleDealt { player, cards, .. } if mine(*player) => {
                self.hand.hole.extend(cards.iter().filter(|c| c.is_known()));
            }
            Event::Discarded { player, cards } if mine(*player) => {
                self.hand.hole.retain(|c| !cards.as_slice().contains(c));
            }
            Event::BoardDealt { cards } => self.hand.board.extend(cards.iter()),
            _ => {}
        }
    }

    fn decide(&mut self, msg: &ServerMsg) {
        let hole = self.hand.hole.clone();
        match msg {
            ServerMsg::Decide {
                decision_id, legal, ..
            } => {
                let strength = self.strategy.strength(self.family, &hole, &self.hand.board);
                let behind = self.stack.saturating_sub(self.hand.mine);
                let action = self.strategy.bet(strength, legal, behind, self.hand.pot);
                self.answer(*decision_id, action);
            }
            ServerMsg::DecideDraw { decision_id, .. } => {
                let discards = self.strategy.discards(self.family, &hole);
                self.answer(*decision_id, Action::Draw { discards });
            }
            ServerMsg::DecideRunTwice { decision_id, .. } => {
                self.answer(*decision_id, Action::RunItTwice { agree: true })
            }
            ServerMsg::DecideShow { decision_id, .. } => self.answer(*decision_id, Action::Muck),
            _ => {}
        }
    }

    /// One connection's life: `Some` when the bot is done, `None` when it dropped.
    async fn session(&mut self, ws: &mut Ws, leave: &mut watch::Receiver<bool>) -> Option<BotEnd> {
        let table_id = self.plan.table_id;
        loop {
            let wake = self.pending.as_ref().map(|(at, _)| *at);
            tokio::select! {
                changed = leave.changed(), if !self.leaving => {
                    if changed.is_err() || *leave.borrow() {
                        // Leave even before the seat is confirmed: a sit still on its way
                        // is answered first, then this; a refused one makes this an error.
                        self.leaving = true;
                        let msg = ClientMsg::Leave { table_id };
                        if send(ws, &msg).await.is_err() {
                            return None;
                        }
                    }
                }
                _ = tokio::time::sleep_until(wake.unwrap_or_else(Instant::now)), if wake.is_some() => {
                    if let Some((_, msg)) = self.pending.take() {
                        if send(ws, &msg).await.is_err() {
                            return None;
                        }
                    }
                }
                frame = ws.next() => {
                    let text = match frame {
                        Some(Ok(Message::Text(t))) => t,
                        Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return None,
                        Some(Ok(_)) => continue,
                    };
                    let Ok(msg) = serde_json::from_str::<ServerMsg>(&text) else { continue };
                    if let Some(end) = self.on_message(ws, msg).await {
                        return end;
                    }
                }
            }
        }
    }

    /// Handles one server message; `Some(Some(end))` ends the bot, `Some(None)` means
    /// the connection is lost.
    async fn on_message(&mut self, ws: &mut Ws, msg: ServerMsg) -> Option<Option<BotEnd>> {
        let table_id = self.plan.table_id;
        match &msg {
            ServerMsg::Welcome { player_id, .. } => {
                // Watched first: the snapshot brings the next deck's commitment, so the
                // bot's commitment goes right after its `sit`, and the table's next hand
                // (its first, if the bot makes two) has the bot's seed.
                self.me = Some(*player_id);
                if !self.seated_once {
                    // A sit that never came back (the connection dropped) is asked again.
                    self.sit_asked = false;
                }
                if send(ws, &ClientMsg::Watch { table_id }).await.is_err() {
                    return Some(None);
                }
            }
            ServerMsg::Snapshot {
                table,
                hand,
                decide,
                next_deck,
                seeds_closed,
                ..
            } if table.table_id == table_id => {
                self.note_view(table);
                if self.seat.is_some() {
                    self.seated_once = true;
                }
                if let Some(c) = next_deck {
                    self.next_deck = Some(**c);
                }
                if let Some((seat, buy_in)) = self
                    .plan
                    .sit
                    .filter(|_| !self.seated_once && !self.sit_asked)
                {
                    self.sit_asked = true;
                    let sit = ClientMsg::Sit {
                        table_id,
                        seat,
                        buy_in,
                        post_now: true,
                        seed_commit: self.new_seed(),
                    };
                    if send(ws, &sit).await.is_err() {
                        return Some(None);
                    }
                }
                if let Some(c) = next_deck {
                    if !self.commit_seed(ws).await {
                        return Some(None);
                    }
                    if let Some(list) = seeds_closed {
                        if !self.reveal_seed(ws, c.hand_id, list).await {
                            return Some(None);
                        }
                    }
                }
                if let Some(h) = hand {
                    self.hand = HandState::default();
                    for e in &h.events {
                        self.note_event(h.hand_number, &h.seats, e);
                    }
                }
                if let Some(d) = decide {
                    self.decide(d);
                }
            }
            ServerMsg::Seats { table } if table.table_id == table_id => {
                self.note_view(table);
                if self.seat.is_some() {
                    self.seated_once = true;
                }
                if !self.commit_seed(ws).await {
                    return Some(None);
                }
                let me = self.me;
                let busted = table
                    .seats
                    .iter()
                    .find(|s| Some(s.player_id) == me)
                    .is_some_and(|s| s.stack == 0 && s.pending_top_up == 0 && !s.leaving);
                if busted && !self.leaving {
                    // Out of chips: leave the seat (the room seats another if needed).
                    self.leaving = true;
                    if send(ws, &ClientMsg::Leave { table_id }).await.is_err() {
                        return Some(None);
                    }
                }
                if self.seated_once && self.seat.is_none() && self.leaving {
                    return Some(Some(BotEnd::Left));
                }
            }
            ServerMsg::Event {
                table_id: t,
                hand_number,
                seats,
                event,
                ..
            } if *t == table_id => self.note_event(*hand_number, seats, event),
            ServerMsg::DeckCommitted {
                table_id: t,
                commitment,
            } if *t == table_id => {
                // The connection is lost if the commitment cannot be sent.
                self.next_deck = Some(*commitment);
                return (!self.commit_seed(ws).await).then_some(None);
            }
            ServerMsg::SeedsClosed {
                table_id: t,
                hand_id,
                list,
            } if *t == table_id => {
                return (!self.reveal_seed(ws, *hand_id, list).await).then_some(None);
            }
            ServerMsg::Decide { table_id: t, .. }
            | ServerMsg::DecideDraw { table_id: t, .. }
            | ServerMsg::DecideRunTwice { table_id: t, .. }
            | ServerMsg::DecideShow { table_id: t, .. }
                if *t == table_id =>
            {
                self.decide(&msg)
            }
            ServerMsg::Done {
                table_id: t,
                request,
                pending,
                ..
            } if *t == table_id => {
                if request == "sit" {
                    self.seated_once = true;
                }
                if request == "leave" && !pending {
                    return Some(Some(BotEnd::Left));
                }
            }
            ServerMsg::Error { code, message } => {
                use poker_protocol::ErrorCode::*;
                if self.leaving && matches!(code, NotYourTurn | SeatRefused) {
                    // Not seated (any more): nothing to leave.
                    return Some(Some(BotEnd::Left));
                }
                // Before its seat is confirmed the bot has asked nothing but the seat:
                // any refusal (the rathole rule, no money, the table moving or gone, too
                // many requests) ends the run, so that the room can seat another bot
                // instead of counting this one as on its way for ever.
                let sitting = self.plan.sit.is_some() && !matches!(code, SeedRefused);
                if !self.seated_once
                    && (sitting || matches!(code, SeatRefused | InsufficientFunds | UnknownTable))
                {
                    return Some(Some(BotEnd::Refused(format!("{code:?}: {message}"))));
                }
                if matches!(code, Unauthenticated) {
                    return Some(Some(BotEnd::Disconnected(message.clone())));
                }
                tracing::debug!("bot: {code:?}: {message}");
            }
            ServerMsg::TableClosed { table_id: t } | ServerMsg::TableFailed { table_id: t, .. }
                if *t == table_id =>
            {
                return Some(Some(BotEnd::TableGone));
            }
            _ => {}
        }
        None
    }
}

async fn send(ws: &mut Ws, msg: &ClientMsg) -> anyhow::Result<()> {
    ws.send(Message::Text(serde_json::to_string(msg)?.into()))
        .await?;
    Ok(())
}
