//! One table's actor: a private task that owns the table between hands and the hand in
//! progress, driven by commands through a cloneable [`TableHandle`].
//!
//! It seats players (the buy-in moves money in the store first), deals hands from a deck
//! shuffled with the operating system's cryptographic RNG, asks each decision with an id
//! (an answer naming another id is refused, so a late or repeated action never applies
//! twice), fans events out to subscribers through bounded queues (a full queue drops that
//! subscriber; it never stalls the table), and redacts hole cards for everyone but their
//! owner before anything leaves the actor. A finished hand is committed through the
//! persister, and the next hand starts only once it is durable.

use poker_protocol::{ErrorCode, ServerMsg};
use poker_rules::table::{Entry, HandPlan, Table, TableRules};
use poker_rules::{Action, Card, CardSource, Cards, Decision, Event, Hand};
use poker_store::{
    now_ms, Chips, CompletedHand, HandId, HandPlayer, PersisterHandle, PlayerId, SqlStore, Store,
    TableId,
};
use rand::rngs::OsRng;
use rand::seq::SliceRandom;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

/// A refused command, as the client is told.
pub type Refusal = (ErrorCode, String);

/// What the actor is asked.
pub enum Command {
    /// Seat a player with a buy-in.
    Sit {
        /// Who.
        player: PlayerId,
        /// Where.
        seat: u32,
        /// Chips from the wallet.
        buy_in: Chips,
        /// Answer.
        respond_to: oneshot::Sender<Result<(), Refusal>>,
    },
    /// Answer a decision.
    Act {
        /// Who.
        player: PlayerId,
        /// The decision answered.
        decision_id: u64,
        /// The action.
        action: Action,
        /// Answer.
        respond_to: oneshot::Sender<Result<(), Refusal>>,
    },
    /// Receive this table's messages (as this player, or as a spectator).
    Subscribe {
        /// Who listens (`None`: a spectator, who never sees hole cards).
        player: Option<PlayerId>,
        /// The queue to send to.
        queue: mpsc::Sender<ServerMsg>,
    },
}

/// A handle to a table's actor; the actor ends when the last handle drops.
#[derive(Clone)]
pub struct TableHandle {
    commands: mpsc::Sender<Command>,
    /// The table.
    pub table_id: TableId,
}

impl TableHandle {
    async fn ask<T>(
        &self,
        make: impl FnOnce(oneshot::Sender<Result<T, Refusal>>) -> Command,
    ) -> Result<T, Refusal> {
        let (tx, rx) = oneshot::channel();
        let gone = || (ErrorCode::UnknownTable, "the table is closed".to_string());
        self.commands.send(make(tx)).await.map_err(|_| gone())?;
        rx.await.map_err(|_| gone())?
    }

    /// Seats a player.
    pub async fn sit(&self, player: PlayerId, seat: u32, buy_in: Chips) -> Result<(), Refusal> {
        self.ask(|respond_to| Command::Sit {
            player,
            seat,
            buy_in,
            respond_to,
        })
        .await
    }

    /// Answers a decision.
    pub async fn act(
        &self,
        player: PlayerId,
        decision_id: u64,
        action: Action,
    ) -> Result<(), Refusal> {
        self.ask(|respond_to| Command::Act {
            player,
            decision_id,
            action,
            respond_to,
        })
        .await
    }

    /// Subscribes a bounded queue to the table's messages.
    pub async fn subscribe(
        &self,
        player: Option<PlayerId>,
        capacity: usize,
    ) -> mpsc::Receiver<ServerMsg> {
        let (queue, rx) = mpsc::channel(capacity);
        self.subscribe_with(player, queue).await;
        rx
    }

    /// Subscribes an existing queue (a connection's, shared by its tables).
    pub async fn subscribe_with(&self, player: Option<PlayerId>, queue: mpsc::Sender<ServerMsg>) {
        let _ = self
            .commands
            .send(Command::Subscribe { player, queue })
            .await;
    }
}

struct Current {
    plan: HandPlan,
    hand: Hand,
    hand_id: HandId,
    players: Vec<PlayerId>,
    started_at: i64,
    decision_id: u64,
    /// How many events the hand had when the current decision was asked.
    asked_at: usize,
    phh_events: Vec<Event>,
}

struct Actor {
    table_id: TableId,
    table: Table<PlayerId>,
    store: Arc<SqlStore>,
    persister: PersisterHandle,
    subscribers: Vec<(Option<PlayerId>, mpsc::Sender<ServerMsg>)>,
    current: Option<Current>,
    next_decision: u64,
}

/// Starts a table's actor, with the players the store says are seated there.
pub async fn spawn(
    table_id: TableId,
    rules: TableRules,
    store: Arc<SqlStore>,
    persister: PersisterHandle,
) -> anyhow::Result<TableHandle> {
    let mut table = Table::new(rules).map_err(|e| anyhow::anyhow!("{e}"))?;
    for seat in store.seats(table_id).await? {
        table
            .restore_seat(seat.seat_no as usize, seat.player_id, seat.stack)
            .map_err(|e| anyhow::anyhow!("seat {}: {e}", seat.seat_no))?;
    }
    let (commands, mut rx) = mpsc::channel(256);
    let mut actor = Actor {
        table_id,
        table,
        store,
        persister,
        subscribers: Vec::new(),
        current: None,
        next_decision: 1,
    };
    tokio::spawn(async move {
        while let Some(command) = rx.recv().await {
            actor.handle(command).await;
        }
    });
    Ok(TableHandle { commands, table_id })
}

fn refuse(code: ErrorCode, message: impl Into<String>) -> Refusal {
    (code, message.into())
}

impl Actor {
    async fn handle(&mut self, command: Command) {
        match command {
            Command::Subscribe { player, queue } => self.subscribers.push((player, queue)),
            Command::Sit {
                player,
                seat,
                buy_in,
                respond_to,
            } => {
                let result = self.sit(player, seat, buy_in).await;
                let _ = respond_to.send(result);
            }
            Command::Act {
                player,
                decision_id,
                action,
                respond_to,
            } => {
                let result = self.act(player, decision_id, action);
                let _ = respond_to.send(result);
            }
        }
        self.progress().await;
    }

    async fn sit(&mut self, player: PlayerId, seat: u32, buy_in: Chips) -> Result<(), Refusal> {
        let seat_no = seat as usize;
        match self.table.seats().get(seat_no) {
            None => return Err(refuse(ErrorCode::SeatRefused, "no such seat")),
            Some(Some(_)) => return Err(refuse(ErrorCode::SeatRefused, "the seat is taken")),
            Some(None) => {}
        }
        if self
            .table
            .seats()
            .iter()
            .flatten()
            .any(|o| o.player == player)
        {
            return Err(refuse(ErrorCode::SeatRefused, "already seated here"));
        }
        let rathole = self
            .store
            .rathole(self.table_id, player)
            .await
            .ok()
            .flatten()
            .map(|r| poker_rules::table::Rathole {
                player,
                stack: r.stack,
                left_at: (r.left_at / 1000).max(0) as u64,
            });
        let now = (now_ms() / 1000) as u64;
        let (min, max) = self.table.buy_in_range(rathole.as_ref(), now);
        if buy_in < min || buy_in > max {
            return Err(refuse(
                ErrorCode::SeatRefused,
                format!("buy in between {min} and {max}"),
            ));
        }
        // The money moves first, in its own transaction with its ledger rows.
        match self
            .store
            .buy_in(self.table_id, seat, player, buy_in, None)
            .await
        {
            Ok(()) => {}
            Err(poker_store::StoreError::InsufficientFunds { balance }) => {
                return Err(refuse(
                    ErrorCode::InsufficientFunds,
                    format!("the balance is {balance}"),
                ))
            }
            Err(e) => return Err(refuse(ErrorCode::SeatRefused, e.to_string())),
        }
        self.table
            .sit_down(
                seat_no,
                player,
                buy_in,
                Entry::PostNow,
                rathole.as_ref(),
                now,
            )
            .map_err(|e| refuse(ErrorCode::SeatRefused, e.to_string()))
    }

    fn act(&mut self, player: PlayerId, decision_id: u64, action: Action) -> Result<(), Refusal> {
        let Some(cur) = self.current.as_mut() else {
            return Err(refuse(ErrorCode::NotYourTurn, "no hand is being played"));
        };
        let Some(to_act) = cur.hand.to_act() else {
            return Err(refuse(ErrorCode::NotYourTurn, "nobody is to act"));
        };
        if cur.players[to_act] != player {
            return Err(refuse(ErrorCode::NotYourTurn, "it is not your turn"));
        }
        if decision_id != cur.decision_id {
            return Err(refuse(
                ErrorCode::StaleDecision,
                "that decision is no longer asked",
            ));
        }
        let events = cur
            .hand
            .apply(to_act, action)
            .map_err(|e| refuse(ErrorCode::IllegalAction, e.to_string()))?;
        cur.phh_events.extend(events.iter().cloned());
        self.broadcast(&events);
        Ok(())
    }

    /// Sends events to every subscriber, hole cards hidden from all but their owner.
    fn broadcast(&mut self, events: &[Event]) {
        let Some(cur) = self.current.as_ref() else {
            return;
        };
        let seats: Vec<u32> = cur.plan.seats.iter().map(|&s| s as u32).collect();
        let number = cur.plan.number;
        let players = cur.players.clone();
        let table_id = self.table_id.to_string();
        self.subscribers.retain(|(who, queue)| {
            for event in events {
                let event = redact(event, *who, &players);
                let msg = ServerMsg::Event {
                    table_id: table_id.clone(),
                    hand_number: number,
                    seats: seats.clone(),
                    event,
                };
                // A subscriber too slow to keep up is dropped, never waited for.
                if queue.try_send(msg).is_err() {
                    return false;
                }
            }
            true
        });
    }

    fn send_to(&mut self, player: PlayerId, msg: ServerMsg) {
        self.subscribers
            .retain(|(who, queue)| *who != Some(player) || queue.try_send(msg.clone()).is_ok());
    }

    /// Deals, asks and finishes hands until a player's answer is needed.
    async fn progress(&mut self) {
        loop {
            if self.current.is_none() {
                let (plan, stood_up) = self.table.next_hand();
                for s in stood_up {
                    let _ = self.store.cash_out(self.table_id, s.player, now_ms()).await;
                }
                let Some(plan) = plan else { return };
                let mut deck = plan.config.game.deck().cards();
                deck.shuffle(&mut OsRng);
                let (hand, events) = match Hand::new(plan.config.clone(), CardSource::Deck(deck)) {
                    Ok(x) => x,
                    Err(e) => {
                        eprintln!("pokerd: table {}: cannot deal: {e}", self.table_id);
                        return;
                    }
                };
                let players: Vec<PlayerId> = plan
                    .seats
                    .iter()
                    .map(|&s| {
                        self.table.seats()[s]
                            .as_ref()
                            .expect("dealt seats are occupied")
                            .player
                    })
                    .collect();
                let hand_id = HandId::new();
                let started_at = now_ms();
                if let Err(e) = self
                    .store
                    .start_hand(hand_id, self.table_id, plan.number, started_at)
                    .await
                {
                    eprintln!(
                        "pokerd: table {}: cannot record the hand start: {e}",
                        self.table_id
                    );
                    return;
                }
                self.current = Some(Current {
                    plan,
                    hand,
                    hand_id,
                    players,
                    started_at,
                    decision_id: 0,
                    asked_at: usize::MAX,
                    phh_events: events.clone(),
                });
                self.broadcast(&events);
            }
            let cur = self.current.as_mut().expect("a hand");
            if let Some(p) = cur.hand.to_act() {
                match cur.hand.decision() {
                    Some(Decision::Bet(legal)) => {
                        if cur.asked_at == cur.phh_events.len() {
                            return; // already asked; the same id stands
                        }
                        cur.decision_id = self.next_decision;
                        cur.asked_at = cur.phh_events.len();
                        self.next_decision += 1;
                        let msg = ServerMsg::Decide {
                            table_id: self.table_id.to_string(),
                            decision_id: cur.decision_id,
                            legal,
                        };
                        let player = cur.players[p];
                        self.send_to(player, msg);
                        return;
                    }
                    // Cards speak at showdown; draws and run-twice questions are
                    // answered for the player until the client supports them.
                    Some(Decision::Showdown { .. }) => self.auto(p, Action::Show { cards: None }),
                    Some(Decision::Draw) => self.auto(
                        p,
                        Action::Draw {
                            discards: Cards::new(),
                        },
                    ),
                    Some(Decision::RunItTwice) => self.auto(p, Action::RunItTwice { agree: false }),
                    None => return,
                }
                continue;
            }
            if cur.hand.is_complete() {
                if !self.finish().await {
                    return;
                }
                continue;
            }
            return;
        }
    }

    fn auto(&mut self, p: usize, action: Action) {
        let cur = self.current.as_mut().expect("a hand");
        match cur.hand.apply(p, action) {
            Ok(events) => {
                cur.phh_events.extend(events.iter().cloned());
                self.broadcast(&events);
            }
            Err(e) => eprintln!(
                "pokerd: table {}: automatic action refused: {e}",
                self.table_id
            ),
        }
    }

    /// Commits the finished hand (waiting until durable), then lets the table absorb it.
    async fn finish(&mut self) -> bool {
        let cur = self.current.as_ref().expect("a hand");
        let stacks = cur.hand.final_stacks().expect("complete");
        let phh = poker_rules::phh::write(&cur.plan.config, &cur.phh_events, Some(&stacks))
            .map(|h| h.to_toml())
            .unwrap_or_default();
        let completed = CompletedHand {
            hand_id: cur.hand_id,
            table_id: self.table_id,
            number: cur.plan.number,
            players: cur
                .players
                .iter()
                .enumerate()
                .map(|(i, &player_id)| HandPlayer {
                    player_id,
                    seat_no: cur.plan.seats[i] as u32,
                    starting_stack: cur.plan.config.seats[i].stack,
                    finishing_stack: stacks[i],
                })
                .collect(),
            rake: cur.hand.rake(),
            phh,
            record: serde_json::json!({
                "board": Card::format_many(cur.hand.board()),
                "button": cur.plan.button,
                "posts": cur.plan.posts,
                "finishing_stacks": stacks,
            }),
            started_at: cur.started_at,
            ended_at: now_ms(),
        };
        if let Err(e) = self.persister.commit(completed).await {
            eprintln!(
                "pokerd: table {}: the hand could not be committed: {e}",
                self.table_id
            );
            return false;
        }
        let cur = self.current.take().expect("a hand");
        if let Err(e) = self.table.finish_hand(&cur.hand) {
            eprintln!("pokerd: table {}: {e}", self.table_id);
            return false;
        }
        true
    }
}

/// The event as `who` may see it: hole cards of others are unknown unless dealt face up.
fn redact(event: &Event, who: Option<PlayerId>, players: &[PlayerId]) -> Event {
    match event {
        Event::HoleDealt { player, cards, up } if who != Some(players[*player]) => {
            let hidden: Vec<Card> = cards
                .iter()
                .enumerate()
                .map(|(i, &c)| if up >> i & 1 == 1 { c } else { Card::UNKNOWN })
                .collect();
            Event::HoleDealt {
                player: *player,
                cards: Cards::from_slice(&hidden).expect("same count"),
                up: *up,
            }
        }
        Event::Discarded { player, cards } if who != Some(players[*player]) => Event::Discarded {
            player: *player,
            cards: Cards::from_slice(&vec![Card::UNKNOWN; cards.len()]).expect("same count"),
        },
        other => other.clone(),
    }
}
