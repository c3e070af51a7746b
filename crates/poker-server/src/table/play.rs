//! The hand's life: dealing from a shuffled deck, applying actions, running until an
//! answer or the clock is needed, recording and committing the finished hand, closing.

use super::actor::*;
use super::clock::default_action;
use super::deck::NextDeck;
use super::writer::*;
use super::*;
use poker_protocol::ServerMsg;
use poker_rules::{Action, Card, CardSource, Chips, Decision, Event, Hand};
use poker_store::{now_ms, CompletedHand, HandPlayer, HandRecord, PlayerId, TableStatus};
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::time::Instant;

impl Actor {
    /// Deals, asks and finishes hands until a player's answer or the clock is needed.
    pub(super) async fn progress(&mut self) {
        loop {
            if self.closed {
                return;
            }
            if self.current.is_none() {
                // Closing and draining wait for the sits under way: a buy-in made
                // durable is seated, then cashed out or saved like any other seat.
                if (self.drain || !self.closing.is_empty()) && self.sitting.busy() {
                    return;
                }
                if !self.closing.is_empty() {
                    self.close().await;
                    return;
                }
                if self.drain {
                    if !self.draining.is_empty() {
                        // Written before answering: the database closes right after.
                        self.save_seat_states();
                        if let Ok(json) = serde_json::to_string(&self.table) {
                            self.writer.send(Write::TableState(json));
                        }
                        self.writer.flush().await;
                        self.state_dirty = false;
                    }
                    for waiter in self.draining.drain(..) {
                        let _ = waiter.send(());
                    }
                    return;
                }
                if let Some(t) = self.next_hand_at.filter(|&t| Instant::now() < t) {
                    // The pause between hands: the list of seed commitments closes
                    // REVEAL_LEAD before its end (whoever sits meanwhile is in it), and
                    // the seeds come in before the deal.
                    let close_at = t.checked_sub(super::deck::REVEAL_LEAD).unwrap_or(t);
                    if Instant::now() >= close_at {
                        self.close_seeds_when_all_in();
                    } else {
                        self.seeds_at = Some(close_at);
                    }
                    return;
                }
                if !self.private_before_deal().await {
                    return;
                }
                match self.seeds_ready() {
                    Ok(()) => self.seeds_at = None,
                    Err(at) => {
                        self.seeds_at = Some(at);
                        return;
                    }
                }
                if !self.deal().await {
                    return;
                }
            }
            let cur = self.current.as_mut().expect("a hand");
            if let Some(muck) = cur.hand.needs_reshuffle() {
                // A draw needs more cards than the stub holds: the discards go under it in
                // the order the seeds make of their committed positions (docs/fairness.md).
                let muck = muck.to_vec();
                let cards = cur
                    .deck
                    .reshuffle(&mut cur.dealing, &muck)
                    .expect("discards come from the committed deck");
                let events = cur
                    .hand
                    .reshuffle(cards)
                    .expect("the discards asked for are handed back");
                cur.events.extend(events);
                self.broadcast();
                continue;
            }
            if let Some(p) = cur.hand.to_act() {
                let decision = cur.hand.decision();
                match decision {
                    // Cards speak at showdown: a hand that can still win something is
                    // shown; one beaten by a hand already shown is mucked unseen (R33).
                    // A beaten hand may be mucked (R33): the player is asked only when
                    // they turned auto-muck off.
                    Some(Decision::Showdown { can_muck })
                        if !(can_muck
                            && cur.hand.is_beaten(p)
                            && self
                                .info
                                .get(&cur.players[p])
                                .is_some_and(|i| !i.auto_muck && !i.leaving)) =>
                    {
                        let action = if cur.hand.is_beaten(p) {
                            Action::Muck
                        } else {
                            Action::Show { cards: None }
                        };
                        self.auto(p, action)
                    }
                    Some(decision) => {
                        if cur.asked_at == cur.events.len() {
                            return; // already asked; the same id stands
                        }
                        let player = cur.players[p];
                        if self.info.get(&player).is_some_and(|i| i.leaving) {
                            // A player who left has a dead hand.
                            self.auto(p, default_action(&decision, true));
                            continue;
                        }
                        // Asked with everything so far in view (the hands an all-in
                        // showed, those shown before a show-or-muck question).
                        self.release();
                        let cur = self.current.as_mut().expect("a hand");
                        cur.decision_id = self.next_decision;
                        cur.asked_at = cur.events.len();
                        self.next_decision += 1;
                        let hand_number = cur.plan.number;
                        let seat = cur.plan.seats[p] as u32;
                        let msg = self.decide_msg().expect("a decision").1;
                        let clock = TurnClock {
                            player: p,
                            seat,
                            asked: Instant::now(),
                            warned: false,
                            bank_started: None,
                        };
                        let view = self.clock_view(&clock);
                        self.clock = Some(clock);
                        self.send_to(player, msg);
                        self.send_all(&ServerMsg::Turn {
                            table_id: self.table_id,
                            hand_number,
                            clock: view,
                        });
                        return;
                    }
                    None => return,
                }
                continue;
            }
            if cur.hand.is_complete() {
                // Committed off the loop; its outcome wakes the actor ([`Actor::on_commit`]).
                if self.committing.is_none() {
                    self.finish();
                }
                return;
            }
            return;
        }
    }

    /// Starts the next hand if the table can; false if it cannot now.
    pub(super) async fn deal(&mut self) -> bool {
        let (plan, stood_up) = self.table.next_hand();
        let any_stood_up = !stood_up.is_empty();
        for s in stood_up {
            let cashed = self
                .ctx
                .store
                .cash_out(
                    self.table_id,
                    s.player,
                    self.ctx.clock.now_ms(),
                    self.ctx.fence,
                )
                .await;
            match cashed {
                Err(e) if self.lost_table(&e) => return false,
                Ok(amount) => self.send_to(
                    s.player,
                    ServerMsg::Done {
                        table_id: self.table_id,
                        request: "leave".into(),
                        amount,
                        pending: false,
                    },
                ),
                Err(e) => tracing::error!("cash-out failed: {e}"),
            }
            self.info.remove(&s.player);
        }
        if any_stood_up {
            self.seats_changed();
        }
        let Some(plan) = plan else {
            // Nobody to deal to: sleep until a command changes that (no timer, or the
            // task would wake up again at once, forever).
            self.next_hand_at = None;
            return false;
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
        // The deck committed before any seed was taken, in the order the seeds revealed
        // by the players dealt in make of it, under the list of commitments closed before
        // any was revealed (docs/fairness.md).
        let next = match self.next_deck.take() {
            Some(next) => next,
            None => NextDeck::draw(plan.config.game),
        };
        let dealt: Vec<(PlayerId, usize)> = players
            .iter()
            .copied()
            .zip(plan.seats.iter().copied())
            .collect();
        let (seed_list, seeds) = next.seeds_for(&dealt);
        let dealing = next.deck.dealing(seed_list, seeds);
        let cards = next.deck.dealt_cards(&dealing);
        let (hand, events) = match Hand::new(plan.config.clone(), CardSource::Deck(cards)) {
            Ok(x) => x,
            Err(e) => {
                tracing::error!("cannot deal: {e}");
                self.table.abandon_hand();
                self.next_deck = Some(next);
                self.next_hand_at = None;
                return false;
            }
        };
        let hand_id = next.deck.hand_id();
        // A child of the table's span, never of the last hand's.
        let span = tracing::info_span!(parent: &self.span, "hand", hand_id = %hand_id);
        let started_at = now_ms();
        // The one write besides money the actor waits for: once cards are out, a crash must
        // leave the hand on record (voided on restart, its number never reused), so the
        // start is durable before anyone sees a card. Through the persister: the starts of
        // a busy room's tables share a transaction.
        let start = poker_store::HandStart {
            hand: hand_id,
            table: self.table_id,
            number: plan.number,
            at: started_at,
            fence: self.ctx.fence,
        };
        let recorded = self.ctx.persister.start(start).await;
        if let Err(e) = recorded {
            if self.lost_table(&e) {
                // Another node owns the table now: no card was dealt here.
                return false;
            }
            tracing::error!("cannot record the hand start: {e}");
            // Tried again after a pause, planned afresh, with a deck committed anew (for
            // a new hand id: the failed write may have kept this one).
            self.table.abandon_hand();
            self.commit_next_deck();
            self.next_hand_at = Some(Instant::now() + Duration::from_secs(1));
            return false;
        }
        self.count_seeds(&dealing, &players, &plan.seats);
        self.button = Some(plan.button as u32);
        self.uncontested = None;
        self.current = Some(Current {
            plan,
            hand,
            hand_id,
            players,
            started_at,
            decision_id: 0,
            asked_at: usize::MAX,
            events: Vec::new(),
            told: 0,
            holding: false,
            ended: None,
            span,
            deck: next.deck,
            dealing,
            phh: None,
        });
        // Everyone learns of the new hand with a snapshot of the table first.
        let view = self.table_view();
        self.send_all(&ServerMsg::Seats { table: view });
        self.current.as_mut().expect("dealt").events = events;
        self.broadcast();
        // The next hand's deck, so its seeds come in while this one is played.
        self.commit_next_deck();
        true
    }

    /// Acts for player `p` (the clock, a player who left, the showdown). The action is
    /// legal for the decision it answers; if the engine still refused it, the hand could
    /// never go on, so the task fails and its supervisor voids the hand.
    pub(super) fn auto(&mut self, p: usize, action: Action) {
        let cur = self.current.as_mut().expect("a hand");
        match cur.hand.apply(p, action) {
            Ok(events) => {
                cur.events.extend(events);
                self.broadcast();
            }
            Err(e) => panic!("automatic action {action:?} refused: {e}"),
        }
    }

    /// Hands the finished hand to its committer ([`super::commit`]), which tries until it
    /// is durable; the outcome comes back to the actor's loop ([`Actor::on_commit`]). The
    /// table answers commands meanwhile, with the hand's result held back, and deals
    /// nothing.
    pub(super) fn finish(&mut self) {
        let cur = self.current.as_mut().expect("a hand");
        cur.ended.get_or_insert_with(Instant::now);
        let stacks = cur.hand.final_stacks().expect("complete");
        let phh = poker_history::phh::write(&cur.plan.config, &cur.events, Some(&stacks))
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
            phh: phh.clone(),
            record: HandRecord {
                board: Card::format_many(cur.hand.board()),
                button: cur.plan.button,
                seats: cur.plan.seats.clone(),
                seat_players: cur.players.clone(),
                seat_count: self.table.rules().seat_count,
                posts: cur.plan.posts.clone(),
                starting_stacks: cur.plan.config.seats.iter().map(|s| s.stack).collect(),
                finishing_stacks: stacks,
                deck: Some(poker_fairness::StoredDeck::V2(
                    cur.deck.record(&cur.dealing),
                )),
                // Folds to a bet, and whether the folder was ahead: for the collusion
                // report, from the cards the table knows (microseconds, no replay).
                folds: Some(crate::fairplay::report::fold_facts(
                    cur.plan.config.game,
                    cur.players.len(),
                    &cur.events,
                )),
            },
            started_at: cur.started_at,
            ended_at: now_ms(),
            fence: self.ctx.fence,
        };
        cur.phh = Some(phh);
        self.committing = Some(super::commit::spawn(
            self.ctx.persister.clone(),
            completed,
            self.ctx.lease.clone(),
            cur.span.clone(),
        ));
    }

    /// The finished hand's commit ended: durable, the result is shown and the table
    /// absorbs the hand; fenced or let go, another node owns the table and this one stops
    /// showing nothing; refused for good, the table stops and its supervisor voids the
    /// hand and tells the players, who never saw its result.
    pub(super) async fn on_commit(&mut self, outcome: super::commit::Outcome) {
        use super::commit::Outcome;
        match outcome {
            Outcome::Durable => self.committed().await,
            Outcome::Fenced(e) => {
                // The lease passed to another node, which voids this hand and deals on.
                tracing::warn!("{e}: stopping here");
                self.abandon();
            }
            Outcome::LetGo => {
                tracing::warn!("the lease was let go while the hand waited for its commit");
                self.abandon();
            }
            Outcome::Stopped => self.abandon(),
            Outcome::Refused(e) => {
                tracing::error!("the hand's commit was refused: {e}");
                self.failure = Some(format!("the hand's commit was refused: {e}"));
                // Its result is dropped unseen; the listeners stay, to be told.
                self.closed = true;
                self.current = None;
                self.clock = None;
            }
        }
    }

    /// The hand is durable: its result goes out (what was held back, the proofs, the
    /// stacks), the table absorbs it, then what waited for the hand's end is applied.
    async fn committed(&mut self) {
        let cur = self.current.as_ref().expect("a hand");
        if let Some(ended) = cur.ended {
            self.ctx.metrics.persist_lag.observe(ended.elapsed());
        }
        self.ctx.metrics.hands.fetch_add(1, Ordering::Relaxed);
        // What the pot came to: every pot awarded, and the rake taken from it.
        let pot: Chips = cur
            .events
            .iter()
            .map(|e| match e {
                Event::PotAwarded { amount, .. } | Event::Raked { amount } => *amount,
                _ => 0,
            })
            .sum();
        self.release();
        let cur = self.current.take().expect("a hand");
        self.clock = None;
        self.uncontested = super::show::Uncontested::of(&cur);
        self.send_proofs(
            cur.plan.number,
            &cur.players,
            &cur.deck,
            &cur.dealing,
            &cur.events,
        );
        if self.rabbit_hunt {
            let cards = cur.hand.rabbit();
            if !cards.is_empty() {
                self.send_all(&ServerMsg::Rabbit {
                    table_id: self.table_id,
                    hand_number: cur.plan.number,
                    cards,
                });
            }
        }
        if let Err(e) = self.table.finish_hand(&cur.hand) {
            tracing::warn!("{e}");
            return;
        }
        self.recent_pots.push_back(pot);
        if self.recent_pots.len() > 50 {
            self.recent_pots.pop_front();
        }
        self.hand_times.push_back(Instant::now());
        self.apply_pending().await;
        if self.closed {
            // A cash-out or top-up was fenced: another node owns the table now.
            return;
        }
        self.seats_changed();
        self.save_table();
        self.next_hand_at =
            Some(Instant::now() + Duration::from_millis(self.clock_rules.between_hands_ms));
    }

    /// A decision answered by a connection of this process ([`super::Command::Act`]):
    /// counted when applied, its refusal sent to the connection's queue.
    pub(super) fn act_queued(
        &mut self,
        player: PlayerId,
        decision_id: u64,
        action: Action,
        queue: &tokio::sync::mpsc::Sender<super::Batch>,
        received: Instant,
    ) {
        let request = super::Request::Act {
            player,
            decision_id,
            action,
        };
        let result = self
            .private_guard(&request)
            .and_then(|()| self.act(player, decision_id, action));
        match result {
            Ok(()) => {
                self.ctx.metrics.actions.fetch_add(1, Ordering::Relaxed);
                self.ctx.metrics.action_latency.observe(received.elapsed());
            }
            Err(refusal) => self.refuse_to(queue, refusal),
        }
    }

    pub(super) fn act(
        &mut self,
        player: PlayerId,
        decision_id: u64,
        action: Action,
    ) -> Result<(), Refusal> {
        let Some(cur) = self.current.as_mut() else {
            return Err(Refusal::NotYourTurn("no hand is being played".into()));
        };
        let Some(to_act) = cur.hand.to_act() else {
            return Err(Refusal::NotYourTurn("nobody is to act".into()));
        };
        if cur.players[to_act] != player {
            return Err(Refusal::NotYourTurn("it is not your turn".into()));
        }
        if self.info.get(&player).is_some_and(|i| i.leaving) {
            return Err(Refusal::Illegal(
                "you have left the table: your hand is dead".into(),
            ));
        }
        if decision_id != cur.decision_id {
            return Err(Refusal::Stale("that decision is no longer asked".into()));
        }
        let events = cur
            .hand
            .apply(to_act, action)
            .map_err(|e| Refusal::Illegal(e.to_string()))?;
        cur.events.extend(events);
        if let Some(clock) = self.clock.take() {
            if let (Some(b), Some(info)) = (clock.bank_started, self.info.get_mut(&player)) {
                info.time_bank_ms = info.time_bank_ms.saturating_sub(ms(b.elapsed()));
            }
        }
        if let Some(info) = self.info.get_mut(&player) {
            info.timeouts = 0;
        }
        self.broadcast();
        Ok(())
    }

    /// Cashes everyone out and closes the table.
    pub(super) async fn close(&mut self) {
        let mut total = 0;
        let seated: Vec<(usize, PlayerId)> = self
            .table
            .seats()
            .iter()
            .enumerate()
            .filter_map(|(i, o)| Some((i, o.as_ref()?.player)))
            .collect();
        for (seat, player) in seated {
            match self.leave_now(player, seat).await {
                Ok(amount) => total += amount,
                // Another node owns the table now (the cash-out was fenced): it is not
                // closed here, and whoever asked hears nothing (their waiter is dropped).
                Err(_) if self.closed => return,
                Err(refusal) => tracing::warn!("closing: {refusal}"),
            }
        }
        if let Err(e) = self
            .ctx
            .store
            .set_table_status(self.table_id, TableStatus::Closed)
            .await
        {
            tracing::error!("cannot mark closed: {e}");
        }
        self.closed = true;
        self.send_all(&ServerMsg::TableClosed {
            table_id: self.table_id,
        });
        self.publish_lobby();
        for waiter in self.closing.drain(..) {
            let _ = waiter.send(total);
        }
        for waiter in self.draining.drain(..) {
            let _ = waiter.send(());
        }
    }
}
