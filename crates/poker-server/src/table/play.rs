//! The hand's life: dealing from the committed deck, applying actions, running until an
//! answer or the clock is needed (and what the clock does when it runs out), recording
//! and committing the finished hand, showing its result, an uncontested winner's show,
//! closing.

use super::actor::*;
use super::clock::{default_action, Tick};
use super::current::{Current, Next};
use super::deck::NextDeck;
use super::lifecycle::BetweenHands;
use super::writer::*;
use super::*;
use poker_protocol::ServerMsg;
use poker_rules::table::SitOut;
use poker_rules::{Action, CardSource, Decision, Event, Hand};
use poker_store::{now_ms, PlayerId, TableStatus};
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::time::Instant;

impl Actor {
    /// Deals, asks and finishes hands until a player's answer or the clock is needed.
    pub(super) async fn progress(&mut self) {
        loop {
            if self.life.is_closed() {
                return;
            }
            if self.current.is_none() {
                // Closing and draining wait for the sits under way: a buy-in made
                // durable is seated, then cashed out or saved like any other seat.
                if self.life.is_stopping() && self.sitting.busy() {
                    // The sits' steps wake the table; no deal's time may (see below).
                    self.no_deal_times();
                    return;
                }
                match self.life.between_hands() {
                    BetweenHands::Close => {
                        self.close().await;
                        return;
                    }
                    BetweenHands::Drained { answer } => {
                        if answer {
                            // Written before answering: the database closes right after.
                            self.save_seat_states();
                            if let Ok(json) = serde_json::to_string(&self.table) {
                                self.writer.send(Write::TableState(json));
                            }
                            self.writer.flush().await;
                            self.writer.table_saved();
                        }
                        for waiter in self.life.drained() {
                            let _ = waiter.send(());
                        }
                        // Drained for good: no next hand, and no time of one to wake for.
                        self.no_deal_times();
                        return;
                    }
                    BetweenHands::Deal => {}
                }
                if let Some(t) = self.clock.next_hand_at() {
                    if Instant::now() < t {
                        // The pause between hands: the list of seed commitments closes
                        // REVEAL_LEAD before its end (whoever sits meanwhile is in it),
                        // and the seeds come in before the deal.
                        let close_at = t.checked_sub(super::deck::REVEAL_LEAD).unwrap_or(t);
                        if Instant::now() >= close_at {
                            self.close_seeds_when_all_in();
                            // Nothing to wait for now but the pause's end (commitments
                            // still to come are messages, which wake the table).
                            self.seeds.set_wait(None);
                        } else {
                            self.seeds.set_wait(Some(close_at));
                        }
                        return;
                    }
                    // The pause is over. Whatever the deal waits for now sets its own
                    // time (the seeds' wait, a start tried again) or none; a time left
                    // here, past, would be the table's deadline (`next_deadline`) and
                    // wake it at once, again and again, until the deal.
                    self.clock.deal_at(None);
                }
                if !self.private_before_deal().await {
                    return;
                }
                match self.seeds_ready() {
                    Ok(()) => self.seeds.set_wait(None),
                    Err(at) => {
                        self.seeds.set_wait(Some(at));
                        return;
                    }
                }
                if !self.deal().await {
                    return;
                }
            }
            let Some(cur) = self.current.as_mut() else {
                return;
            };
            if cur.reshuffle() {
                // A draw needed more cards than the stub held: the discards went under it.
                self.broadcast();
                continue;
            }
            let Next::Decide(p, decision) = cur.next() else {
                // Complete: committed off the loop; its outcome wakes the actor
                // ([`Actor::on_commit`]). Or nobody is to act yet.
                let complete = cur.hand().to_act().is_none() && cur.hand().is_complete();
                if complete && self.committing.is_none() {
                    self.finish();
                }
                return;
            };
            let player = cur.players()[p];
            match decision {
                // Cards speak at showdown: a hand that can still win something is
                // shown; one beaten by a hand already shown is mucked unseen (R33).
                // A beaten hand may be mucked (R33): the player is asked only when
                // they turned auto-muck off.
                Decision::Showdown { can_muck }
                    if !(can_muck && cur.hand().is_beaten(p) && self.book.asks_to_muck(player)) =>
                {
                    let action = if cur.hand().is_beaten(p) {
                        Action::Muck
                    } else {
                        Action::Show { cards: None }
                    };
                    self.auto(p, action);
                }
                decision => {
                    if cur.asked() {
                        return; // already asked; the same id stands
                    }
                    if self.book.leaving(player) {
                        // A player who left has a dead hand.
                        self.auto(p, default_action(&decision, true));
                        continue;
                    }
                    self.ask(p, player);
                    return;
                }
            }
        }
    }

    /// Asks player `p` (`player`) the decision to act, with everything so far in view
    /// (the hands an all-in showed, those shown before a show-or-muck question), and
    /// starts their clock.
    fn ask(&mut self, p: usize, player: PlayerId) {
        self.release();
        let Some(cur) = self.current.as_mut() else {
            return;
        };
        let seat = cur.plan().seats[p] as u32;
        let id = self.clock.ask(p, player, seat);
        cur.ask(id);
        let hand_number = cur.number();
        let decide = cur.decide_msg(self.table_id);
        let view = self.clock.view(self.bank());
        if let Some((_, msg)) = decide {
            self.audience.send_to(player, msg);
        }
        if let Some(clock) = view {
            self.audience.send_all(&ServerMsg::Turn {
                table_id: self.table_id,
                hand_number,
                clock,
            });
        }
    }

    /// Forgets when the next hand was due and when the seeds' wait ends, for a table that
    /// will not deal until something else wakes it: either time, once past, would stay the
    /// table's deadline (`next_deadline`) and wake it at once, again and again.
    pub(super) fn no_deal_times(&mut self) {
        self.clock.deal_at(None);
        self.seeds.set_wait(None);
    }

    /// Starts the next hand if the table can; false if it cannot now.
    pub(super) async fn deal(&mut self) -> bool {
        let (plan, stood_up) = self.table.next_hand();
        let any_stood_up = !stood_up.is_empty();
        for s in stood_up {
            let at = self.ctx.clock.now_ms();
            let cashed = self
                .ctx
                .store
                .cash_out(self.table_id, s.player, at, self.ctx.fence)
                .await;
            match &cashed {
                Ok(amount) => self.departures.left(s.player, *amount, at),
                // An error may hide a cash-out committed with its answer lost (its rathole
                // record written): the departure is kept as the table knew it. Had it not
                // been committed, the seat still in the store refuses a new sit anyway.
                Err(e) if !self.lost_table(e) => self.departures.left(s.player, s.stack, at),
                Err(_) => {}
            }
            match cashed {
                Err(e) if self.lost_table(&e) => return false,
                Ok(amount) => self.audience.answer_to(
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
            self.book.remove(s.player);
        }
        if any_stood_up {
            self.seats_changed();
        }
        let Some(plan) = plan else {
            // Nobody to deal to: sleep until a command changes that (no timer, or the
            // task would wake up again at once, forever).
            self.clock.deal_at(None);
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
        let next = match self.seeds.take_next() {
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
                self.seeds.put_back(next);
                self.clock.deal_at(None);
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
            self.clock
                .deal_at(Some(Instant::now() + Duration::from_secs(1)));
            return false;
        }
        self.seeds
            .count(&self.ctx.metrics, &dealing, &players, &plan.seats);
        self.button = Some(plan.button as u32);
        self.uncontested = None;
        // Everyone learns of the new hand with a snapshot of the table first.
        let view = self.table_view();
        self.audience.send_all(&ServerMsg::Seats { table: view });
        self.current = Some(Current::new(
            plan, hand, events, players, started_at, span, next.deck, dealing,
        ));
        self.broadcast();
        // The next hand's deck, so its seeds come in while this one is played.
        self.commit_next_deck();
        true
    }

    /// Acts for player `p` (the clock, a player who left, the showdown). The action is
    /// legal for the decision it answers; if the engine still refused it, the hand could
    /// never go on, so the task fails and its supervisor voids the hand.
    pub(super) fn auto(&mut self, p: usize, action: Action) {
        let Some(cur) = self.current.as_mut() else {
            return;
        };
        if let Err(e) = cur.apply(p, action) {
            panic!("automatic action {action:?} refused: {e}");
        }
        self.broadcast();
    }

    /// Hands the finished hand to its committer ([`super::commit`]), which tries until it
    /// is durable; the outcome comes back to the actor's loop ([`Actor::on_commit`]). The
    /// table answers commands meanwhile, with the hand's result held back, and deals
    /// nothing.
    pub(super) fn finish(&mut self) {
        let Some(cur) = self.current.as_mut() else {
            return;
        };
        let seat_count = self.table.rules().seat_count;
        let completed = cur.finish(self.table_id, seat_count, self.ctx.fence);
        self.committing = Some(super::commit::spawn(
            self.ctx.persister.clone(),
            completed,
            self.ctx.lease.clone(),
            cur.span().clone(),
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
                // Its result is dropped unseen; the listeners stay, to be told.
                self.life
                    .fail(format!("the hand's commit was refused: {e}"));
                self.current = None;
                self.clock.stop();
            }
        }
    }

    /// The hand is durable: its result goes out (what was held back, the proofs, the
    /// stacks), the table absorbs it, then what waited for the hand's end is applied.
    async fn committed(&mut self) {
        // What the pot came to: every pot awarded, and the rake taken from it.
        let Some(pot) = self.current.as_ref().map(|cur| {
            if let Some(ended) = cur.ended() {
                self.ctx.metrics.persist_lag.observe(ended.elapsed());
            }
            cur.pot()
        }) else {
            return;
        };
        self.ctx.metrics.hands.fetch_add(1, Ordering::Relaxed);
        self.release();
        let Some(cur) = self.current.take() else {
            return;
        };
        self.clock.stop();
        let shown_down = shown_down(cur.events());
        self.uncontested = super::show::Uncontested::of(&cur);
        self.send_proofs(
            cur.number(),
            cur.players(),
            cur.deck(),
            cur.dealing(),
            cur.events(),
        );
        if self.rabbit_hunt {
            let cards = cur.hand().rabbit();
            if !cards.is_empty() {
                self.audience.send_all(&ServerMsg::Rabbit {
                    table_id: self.table_id,
                    hand_number: cur.number(),
                    cards,
                });
            }
        }
        if let Err(e) = self.table.finish_hand(cur.hand()) {
            tracing::warn!("{e}");
            return;
        }
        self.pace.hand_ended(pot);
        self.apply_pending().await;
        if self.life.is_closed() {
            // A cash-out or top-up was fenced: another node owns the table now.
            return;
        }
        self.seats_changed();
        self.save_table();
        self.clock.pause_between_hands(shown_down);
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
        let Some((to_act, asked)) = cur.to_act() else {
            return Err(Refusal::NotYourTurn("nobody is to act".into()));
        };
        if asked != player {
            return Err(Refusal::NotYourTurn("it is not your turn".into()));
        }
        if self.book.leaving(player) {
            return Err(Refusal::Illegal(
                "you have left the table: your hand is dead".into(),
            ));
        }
        if decision_id != cur.decision_id() {
            return Err(Refusal::Stale("that decision is no longer asked".into()));
        }
        cur.apply(to_act, action)
            .map_err(|e| Refusal::Illegal(e.to_string()))?;
        let bank_used = self.clock.answered();
        self.book.answered(player, bank_used);
        self.broadcast();
        Ok(())
    }

    /// When the actor must wake up by itself.
    pub(super) fn next_deadline(&self) -> Option<Instant> {
        let play = match (self.clock.turn_deadline(self.bank()), &self.current) {
            (Some(turn), _) => Some(turn),
            // Between hands (the next one, or a hand start to be tried again, or the
            // seeds' wait).
            (None, None) => match (self.clock.next_hand_at(), self.seeds.wait_until()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            // In a hand with no clock running, or a finished hand waiting for its commit
            // (whose outcome wakes the actor): nobody's time runs out.
            (None, Some(_)) => None,
        };
        // A seat offered to the waiting list lapses on its own clock.
        match (play, self.waitlist.offer_deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The clock moved on: warn, start the time bank, or act for the player (R38).
    pub(super) fn on_timer(&mut self) {
        let table_id = self.table_id;
        let Some(cur) = self.current.as_ref() else {
            return;
        };
        let hand_number = cur.number();
        let decision = cur.hand().decision();
        let turn = match self.clock.tick(self.bank()) {
            Tick::Wait => return,
            Tick::Warn {
                player,
                remaining_ms,
            } => {
                let msg = ServerMsg::ClockWarning {
                    table_id,
                    remaining_ms,
                };
                self.audience.send_to(player, msg);
                return;
            }
            Tick::Bank(clock) => {
                self.audience.send_all(&ServerMsg::Turn {
                    table_id,
                    hand_number,
                    clock,
                });
                return;
            }
            Tick::Out(turn) => turn,
        };
        // Out of time: check if free, else fold (stand pat on a draw, decline to run it
        // twice); too many in a row sits the player out.
        let Some(decision) = decision else {
            return;
        };
        let player = cur.players()[turn.player()];
        let action = default_action(&decision, false);
        self.ctx.metrics.timeouts.fetch_add(1, Ordering::Relaxed);
        let max = self.clock.rules().max_timeouts;
        let mut sat_out = false;
        // Not answering show-or-muck mucks the hand; it is no timeout.
        let counts = !matches!(decision, Decision::Showdown { .. });
        if counts && self.book.timed_out(player, max) {
            if let Some(seat) = self.seat_of(player) {
                sat_out = self.table.sit_out(seat, SitOut::NextHand).is_ok();
            }
        }
        self.audience.send_all(&ServerMsg::TimedOut {
            table_id,
            seat: turn.seat(),
            sat_out,
        });
        self.auto(turn.player(), action);
        if sat_out {
            self.seats_changed();
        }
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
                Err(_) if self.life.is_closed() => return,
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
        // A private game ends with its settle-up: everyone at it is sent the ledger, now
        // that every seat is cashed out.
        if self.private.is_some() {
            if let Ok(ledger) = self.ledger().await {
                self.audience.send_all(&ledger);
            }
        }
        let (closes, drains) = self.life.closed();
        self.audience.send_all(&ServerMsg::TableClosed {
            table_id: self.table_id,
        });
        self.publish_lobby();
        for waiter in closes {
            let _ = waiter.send(total);
        }
        for waiter in drains {
            let _ = waiter.send(());
        }
    }
}

impl Actor {
    /// Shows the cards of the hand just won uncontested to everyone at the table, as a
    /// `shown` event of that hand with its name, once it is on the hand's record; refused
    /// for anyone but its winner, after the next hand is dealt, or a second time.
    pub(super) async fn show_uncontested(&mut self, player: PlayerId) -> Result<Outcome, Refusal> {
        let won = self.uncontested.take_if(|u| u.winner() == player).ok_or_else(|| {
            Refusal::Illegal("only the winner of a hand won without a showdown may show it, until the next hand".into())
        })?;
        let history = won.history()?;
        if let Err(e) = self.ctx.store.record_show(won.hand_id(), &history).await {
            if self.lost_table(&e) {
                return Err(Refusal::Moving);
            }
            tracing::error!("the show could not be recorded: {e}");
            self.uncontested = Some(won);
            return Err(Refusal::Internal("the show could not be recorded".into()));
        }
        let shown = won.show(self.table_id);
        self.audience.send_all(&shown.msg);
        if let Some((deck, dealing)) = &shown.deck {
            self.send_proofs(shown.number, &shown.players, deck, dealing, &shown.events);
        }
        Ok(Outcome {
            amount: 0,
            pending: false,
        })
    }
}

/// How many pots a hand's showdown awarded, each board of a pot run twice apart and a
/// high-low pot's halves as one: 0 when nobody showed (the hand was won uncontested).
fn shown_down(events: &[Event]) -> u64 {
    if !events.iter().any(|e| matches!(e, Event::Shown { .. })) {
        return 0;
    }
    let awards: std::collections::BTreeSet<(usize, u8)> = events
        .iter()
        .filter_map(|e| match e {
            Event::PotAwarded { pot, run, .. } => Some((*pot, *run)),
            _ => None,
        })
        .collect();
    awards.len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use poker_rules::PotShare;

    fn award(pot: usize, run: u8, share: PotShare) -> Event {
        Event::PotAwarded {
            pot,
            run,
            share,
            amount: 10,
            winners: vec![(0, 10)],
        }
    }

    fn shown() -> Event {
        Event::Shown {
            player: 0,
            cards: poker_rules::Cards::default(),
        }
    }

    #[test]
    fn a_showdown_counts_its_pots_and_boards_and_an_uncontested_hand_none() {
        assert_eq!(shown_down(&[award(0, 0, PotShare::All)]), 0, "uncontested");
        assert_eq!(shown_down(&[shown(), award(0, 0, PotShare::All)]), 1);
        let side_pot = [
            shown(),
            award(0, 0, PotShare::All),
            award(1, 0, PotShare::All),
        ];
        assert_eq!(shown_down(&side_pot), 2);
        let hi_lo = [
            shown(),
            award(0, 0, PotShare::High),
            award(0, 0, PotShare::Low),
        ];
        assert_eq!(shown_down(&hi_lo), 1, "a pot's halves are one pot to read");
        let twice = [
            shown(),
            award(0, 0, PotShare::All),
            award(0, 1, PotShare::All),
        ];
        assert_eq!(shown_down(&twice), 2, "each board of a pot run twice");
    }

    #[tokio::test(start_paused = true)]
    async fn the_pause_after_a_showdown_grows_with_its_pots_up_to_four() {
        let mut clock = super::super::clock::Clock::new(ClockRules {
            between_hands_ms: 2_000,
            showdown_ms: 2_500,
            ..ClockRules::default()
        });
        let pause = |clock: &mut super::super::clock::Clock, pots| {
            clock.pause_between_hands(pots);
            clock.next_hand_at().unwrap() - Instant::now()
        };
        assert_eq!(pause(&mut clock, 0), Duration::from_millis(2_000));
        assert_eq!(pause(&mut clock, 1), Duration::from_millis(4_500));
        assert_eq!(pause(&mut clock, 2), Duration::from_millis(7_000));
        assert_eq!(pause(&mut clock, 9), Duration::from_millis(12_000));
        // A table made without it: the pause as before.
        let mut plain = super::super::clock::Clock::new(ClockRules::default());
        assert_eq!(pause(&mut plain, 3), Duration::from_millis(2_000));
    }
}
