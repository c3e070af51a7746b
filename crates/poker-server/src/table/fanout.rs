//! Fan-out: what each subscriber is sent (events redacted for everyone but the owner of
//! the hole cards), snapshots for joins and resyncs, the decision asked, the lobby line.

use super::actor::*;
use super::audience::{shared, Audience};
use super::current::Current;
use super::Out;
use axum::extract::ws::Utf8Bytes;
use poker_protocol::{
    BombPotView, DealersChoiceView, RotationGameView, SeatView, ServerMsg, TableStatus,
    TableSummary, TableView,
};
use poker_rules::table::RotationGame;
use poker_rules::{Card, Cards, Event};
use poker_store::{PlayerId, TableId};
use std::sync::atomic::Ordering;

impl Actor {
    pub(super) fn status(&self) -> TableStatus {
        self.life.status()
    }

    /// The game now: the hand in progress's, or the next hand's (a dealer's choice
    /// table changes game between hands, H3).
    pub(super) fn game_now(&self) -> RotationGame {
        // The table's plan: set from the deal, before the hand's first view is sent.
        match self.table.current_hand() {
            Some(plan) => {
                let c = &plan.config;
                RotationGame {
                    game: c.game,
                    structure: c.structure,
                    stakes: self.table.hand_game().stakes,
                    max_raises: c.max_raises,
                    uncapped_heads_up: c.uncapped_heads_up,
                }
            }
            None => self.table.hand_game(),
        }
    }

    /// Bomb pots at this table as everyone sees them (H1, H2); `None` where there are
    /// none scheduled, called or being played.
    fn bomb_pot_view(&self) -> Option<BombPotView> {
        let rule = self.table.rules().bomb_pot;
        let now = self.table.current_hand().is_some_and(|p| p.bomb_pot);
        let called = self.table.bomb_called();
        if rule.is_none() && !now && called.is_none() {
            return None;
        }
        let every = rule.map_or(0, |r| r.every);
        let next_hand = (every >= 2).then(|| {
            let dealt = self.table.hands_dealt();
            (dealt / u64::from(every) + 1) * u64::from(every)
        });
        Some(BombPotView {
            every,
            big_blinds: rule.map_or(0, |r| r.big_blinds),
            now,
            called,
            next_hand,
        })
    }

    /// A dealer's choice rotation as everyone sees it (H3).
    fn dealers_choice_view(&self) -> Option<DealersChoiceView> {
        let rules = self.table.rules();
        let at = self.table.rotation_view()?;
        let games = rules
            .dealers_choice
            .iter()
            .map(|g| RotationGameView {
                game_kind: g.game,
                structure: g.structure,
                game: game_label(g.game, g.structure),
                stakes: stakes_of(rules, g),
            })
            .collect();
        Some(DealersChoiceView {
            games,
            now: at.now,
            next: at.next,
            hands_left: at.hands_left,
        })
    }

    pub(super) fn table_view(&self) -> TableView {
        let rules = self.table.rules();
        let now = self.game_now();
        let seats = self
            .table
            .seats()
            .iter()
            .enumerate()
            .filter_map(|(i, o)| {
                let o = o.as_ref()?;
                let info = self.book.get(o.player);
                Some(SeatView {
                    seat: i as u32,
                    player_id: o.player,
                    name: info.map(|i| i.name().to_string()).unwrap_or_default(),
                    stack: o.stack,
                    sitting_out: o.sitting_out || o.sit_out_next_hand,
                    pending_top_up: info.map_or(0, |i| i.pending_top_up()),
                    leaving: info.is_some_and(|i| i.leaving()),
                    straddle: o.straddle,
                })
            })
            .collect();
        TableView {
            table_id: self.table_id,
            name: self.name.clone(),
            seat_count: rules.seat_count as u32,
            button: self.button,
            seats,
            min_buy_in: rules.min_buy_in,
            max_buy_in: rules.max_buy_in,
            blinds: (rules.small_blind, rules.big_blind),
            action_ms: self.clock.rules().action_ms,
            time_bank_ms: self.clock.rules().time_bank_ms,
            game: game_label(now.game, now.structure),
            game_kind: now.game,
            structure: now.structure,
            stakes: stakes_of(rules, &now),
            cap: rules.options.cap,
            chat: self.chat.rules().enabled,
            waitlist: self.waitlist.len() as u32,
            straddle: rules.straddle,
            rabbit_hunt: self.rabbit_hunt,
            private: self.private_view(),
            bomb_pot: self.bomb_pot_view(),
            dealers_choice: self.dealers_choice_view(),
        }
    }

    /// The decision being asked, as its player is told.
    pub(super) fn decide_msg(&self) -> Option<(PlayerId, ServerMsg)> {
        self.current.as_ref()?.decide_msg(self.table_id)
    }

    /// The whole table and hand as `who` may see them.
    pub(super) fn snapshot(&self, who: Option<PlayerId>) -> ServerMsg {
        // What was sent so far: never a result held back until the commit.
        let hand = self
            .current
            .as_ref()
            .map(|cur| cur.view(|e| redact(e, who, cur.players())));
        let decide = self
            .clock
            .running()
            .then(|| self.decide_msg())
            .flatten()
            .filter(|(p, _)| Some(*p) == who)
            .map(|(_, m)| Box::new(m));
        ServerMsg::Snapshot {
            table: self.table_view(),
            hand,
            clock: self.clock.view(self.bank()),
            decide,
            chat: self.chat.lines().cloned().collect(),
            next_deck: self.seeds.commitment().map(Box::new),
            seeds_closed: self.seeds.closed_list().map(<[_]>::to_vec),
        }
    }

    /// Sends each subscriber what this step made for it, in one batch; a full queue
    /// marks the subscriber stale (resynced with a snapshot once it has room), a closed
    /// one is dropped. What concerns a subscriber only as an onlooker (no frame of its
    /// own, not the player whose command this step answers) waits until `coalesce` after
    /// its last write, to leave with what follows ([`Actor::flush_at`]).
    pub(super) fn flush_out(&mut self) {
        self.flush(false);
    }

    /// Sends everything, held back or not.
    pub(super) fn flush_everything(&mut self) {
        self.flush(true);
    }

    fn flush(&mut self, everything: bool) {
        // A stale subscriber gets the table as it is now.
        let snapshots: Vec<(Option<PlayerId>, ServerMsg)> = self
            .audience
            .stale()
            .into_iter()
            .map(|who| (who, self.snapshot(who)))
            .collect();
        let snapshot = |who: Option<PlayerId>| {
            snapshots
                .iter()
                .find(|(w, _)| *w == who)
                .map(|(_, m)| m.clone())
        };
        let resyncs = self.audience.flush(everything, self.ctx.coalesce, snapshot);
        if resyncs > 0 {
            self.ctx
                .metrics
                .resyncs
                .fetch_add(resyncs, Ordering::Relaxed);
        }
    }

    /// Sends the hand's events not sent yet to every subscriber, up to where the hand's
    /// end begins: a hand shown or mucked at showdown, the rake, a pot awarded, the hand's
    /// end, and everything after them, are held back until the hand is committed
    /// ([`Actor::release`]), so that nobody sees the result of a hand that could still be
    /// void. The actions before (bets, folds, cards dealt) go at once.
    ///
    /// Cards shown are held back too: once the board is out they tell who won as surely
    /// as the award does. They go earlier only when a player must decide with them in
    /// view (show or muck, run it twice after an all-in shows the hands): then
    /// [`Actor::release`] is called before the question.
    pub(super) fn broadcast(&mut self) {
        let Some(cur) = self.current.as_mut() else {
            return;
        };
        let (from, to) = cur.tell(ends_hand);
        let game = cur.plan().config.game;
        send_events(&mut self.audience, cur, self.table_id, game, from, to);
    }

    /// Sends every event of the hand held back so far: the hand is committed, or a
    /// player must decide with them in view.
    pub(super) fn release(&mut self) {
        let Some(cur) = self.current.as_mut() else {
            return;
        };
        let (from, to) = cur.release();
        let game = cur.plan().config.game;
        send_events(&mut self.audience, cur, self.table_id, game, from, to);
    }

    pub(super) fn seats_changed(&mut self) {
        self.writer.table_changed();
        let msg = ServerMsg::Seats {
            table: self.table_view(),
        };
        self.audience.send_all(&msg);
        self.publish_lobby();
    }

    pub(super) fn publish_lobby(&mut self) {
        let (avg_pot, hands_per_hour) = self.pace.summary();
        let rules = self.table.rules();
        let now = self.game_now();
        let summary = TableSummary {
            table_id: self.table_id,
            name: self.name.clone(),
            game: if rules.dealers_choice.is_empty() {
                game_name(rules)
            } else {
                format!("Dealer's choice: {}", dealers_choice_label(rules))
            },
            game_kind: now.game,
            structure: now.structure,
            stakes: stakes_of(rules, &now),
            players: self.table.seats().iter().flatten().count() as u32,
            seats: rules.seat_count as u32,
            min_buy_in: rules.min_buy_in,
            max_buy_in: rules.max_buy_in,
            avg_pot,
            hands_per_hour,
            status: self.status(),
            waiting: self.waitlist.len() as u32,
            private: self.private.is_some(),
        };
        self.ctx.lobby.publish(self.table_id, summary);
    }
}

/// The lobby's name of a table's game: `NL Hold'em`, `FL 2-7 Triple Draw`, `FL Razz`.
pub(super) fn game_name(rules: &poker_rules::table::TableRules) -> String {
    game_label(rules.game, rules.structure)
}

/// A game and structure as players read them: `NL Hold'em`, `FL 7 Card Stud`.
pub fn game_label(game: poker_rules::Game, structure: poker_rules::Structure) -> String {
    use poker_rules::{Game::*, Structure::*};
    let structure = match structure {
        NoLimit => "NL",
        PotLimit => "PL",
        FixedLimit => "FL",
        SpreadLimit => "Spread",
    };
    let game = match game {
        Holdem => "Hold'em",
        ShortDeckHoldem => "6+ Hold'em",
        Omaha => "Omaha",
        OmahaHiLo => "Omaha Hi/Lo",
        Stud => "7 Card Stud",
        StudHiLo => "7 Card Stud Hi/Lo",
        Razz => "Razz",
        DeuceToSevenSingleDraw => "2-7 Single Draw",
        DeuceToSevenTripleDraw => "2-7 Triple Draw",
        Badugi => "Badugi",
    };
    format!("{structure} {game}")
}

/// The games of a dealer's choice table as players read them: `NL Hold'em, PL Omaha`.
pub fn dealers_choice_label(rules: &poker_rules::table::TableRules) -> String {
    rules
        .dealers_choice
        .iter()
        .map(|g| game_label(g.game, g.structure))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The lobby's stakes: the blinds, or the small and big bet in fixed limit and in stud,
/// with the ante if there is one: `1/2`, `4/8 ante 1`.
pub fn stakes_name(rules: &poker_rules::table::TableRules) -> String {
    stakes_of(rules, &RotationGame::of(rules))
}

/// The stakes of one game of the table (H3: a rotation's games have their own).
pub fn stakes_of(rules: &poker_rules::table::TableRules, game: &RotationGame) -> String {
    use poker_rules::table::AnteRule;
    let stud = matches!(
        game.game,
        poker_rules::Game::Stud | poker_rules::Game::StudHiLo | poker_rules::Game::Razz
    );
    let mut out = if stud || game.structure == poker_rules::Structure::FixedLimit {
        format!("{}/{}", game.stakes.small_bet, game.stakes.big_bet)
    } else {
        format!("{}/{}", rules.small_blind, rules.big_blind)
    };
    match rules.ante {
        AnteRule::None => {}
        AnteRule::Each(a) | AnteRule::BigBlind(a) | AnteRule::Button(a) => {
            out.push_str(&format!(" ante {a}"))
        }
    }
    out
}

/// Sends the hand's events `from..to` to every subscriber, hole cards hidden from all
/// but their owner: each event is serialized once as everyone but its owner sees it.
fn send_events(
    audience: &mut Audience,
    cur: &Current,
    table_id: TableId,
    game: poker_rules::Game,
    from: usize,
    to: usize,
) {
    if from >= to {
        return;
    }
    let events = &cur.events()[from..to];
    let seats: Vec<u32> = cur.plan().seats.iter().map(|&s| s as u32).collect();
    let number = cur.number();
    let players = cur.players();
    // A shown hand is named once for everyone.
    let board: Vec<Card> = cur.events()[..to]
        .iter()
        .filter_map(|e| match e {
            Event::BoardDealt { cards } => Some(cards.iter().copied()),
            _ => None,
        })
        .flatten()
        .collect();
    let message = |event: Event, hand_name: Option<String>| ServerMsg::Event {
        table_id,
        hand_number: number,
        seats: seats.clone(),
        event,
        hand_name,
    };
    // Per event: who sees it otherwise than everyone (the owner of redacted cards), the
    // message for everyone else, serialized once.
    let made: Vec<(Option<PlayerId>, Utf8Bytes)> = events
        .iter()
        .map(|e| {
            let hand_name = match e {
                Event::Shown { cards, .. } => {
                    let hole: Vec<Card> = cards.iter().copied().collect();
                    poker_history::pokerstars::describe::describe(game, &hole, &board)
                }
                _ => None,
            };
            let public = redact(e, None, players);
            let owner = private_to(e, players).filter(|_| &public != e);
            (owner, shared(&message(public, hand_name)))
        })
        .collect();
    audience.fan_out(|who| {
        events
            .iter()
            .zip(&made)
            .map(|(event, (owner, public))| match owner {
                Some(owner) if who == Some(*owner) => Out::own(message(event.clone(), None)),
                _ => Out::Shared(public.clone()),
            })
            .collect()
    });
}

/// Whether the event is part of a hand's end (the showdown and what follows it), held
/// back until the hand is committed.
fn ends_hand(event: &Event) -> bool {
    matches!(
        event,
        Event::Shown { .. }
            | Event::Mucked { .. }
            | Event::Raked { .. }
            | Event::PotAwarded { .. }
            | Event::HandEnded { .. }
    )
}

/// The player who sees this event otherwise than everyone else (their own cards).
fn private_to(event: &Event, players: &[PlayerId]) -> Option<PlayerId> {
    match event {
        Event::HoleDealt { player, .. } | Event::Discarded { player, .. } => Some(players[*player]),
        _ => None,
    }
}

/// The event as `who` may see it: hole cards of others are unknown unless dealt face up.
pub(super) fn redact(event: &Event, who: Option<PlayerId>, players: &[PlayerId]) -> Event {
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
