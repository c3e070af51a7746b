//! The hand in progress: its plan, the rules' `Hand`, the players dealt in, its events
//! (how many were sent, whether its end is held back until the commit), the decision
//! asked, and the deck it is dealt from. Its fields change only through its methods.

use poker_fairness::{CommittedDeck, Dealing};
use poker_protocol::{HandView, ServerMsg};
use poker_rules::table::HandPlan;
use poker_rules::{Action, Card, Chips, Decision, Event, Hand};
use poker_store::{now_ms, CompletedHand, HandId, HandPlayer, HandRecord, PlayerId, TableId};
use tokio::time::Instant;

/// The hand being played.
pub(super) struct Current {
    /// What the table planned: seats, button, posts, the hand's configuration.
    plan: HandPlan,
    /// The rules' hand.
    hand: Hand,
    /// The hand's id (its deck's).
    hand_id: HandId,
    /// The players dealt in, by index in the hand.
    players: Vec<PlayerId>,
    /// When it was dealt (ms).
    started_at: i64,
    /// The id of the decision asked.
    decision_id: u64,
    /// How many events the hand had when the current decision was asked.
    asked_at: usize,
    /// Everything that happened in the hand.
    events: Vec<Event>,
    /// How many of `events` have been sent to subscribers (the rest are held back).
    told: usize,
    /// The hand's end has begun (showdown, awards): what follows is held back until the
    /// hand is committed, or a player must decide with it in view.
    holding: bool,
    /// When the hand was complete.
    ended: Option<Instant>,
    /// The hand's span (`hand_id`, inside the table's): the actor's work runs in it while
    /// the hand lasts, so every event it logs names the hand.
    span: tracing::Span,
    /// The deck committed for the hand, dealt in the order its seeds made.
    deck: CommittedDeck,
    /// The seeds used, the shuffle key and the reshuffles so far.
    dealing: Dealing,
    /// The hand's history as committed, once finished (an uncontested winner's show
    /// adds a line to it).
    phh: Option<String>,
}

/// What the hand needs next.
pub(super) enum Next {
    /// Player `p` answers `decision`.
    Decide(usize, Decision),
    /// Nobody is to act: the hand is complete, or waits.
    Nobody,
}

impl Current {
    /// A hand just dealt, with the events of its deal.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        plan: HandPlan,
        hand: Hand,
        events: Vec<Event>,
        players: Vec<PlayerId>,
        started_at: i64,
        span: tracing::Span,
        deck: CommittedDeck,
        dealing: Dealing,
    ) -> Current {
        Current {
            plan,
            hand,
            hand_id: deck.hand_id(),
            players,
            started_at,
            decision_id: 0,
            asked_at: usize::MAX,
            events,
            told: 0,
            holding: false,
            ended: None,
            span,
            deck,
            dealing,
            phh: None,
        }
    }

    /// The rules' hand, to read.
    pub(super) fn hand(&self) -> &Hand {
        &self.hand
    }

    /// The plan the hand was dealt from.
    pub(super) fn plan(&self) -> &HandPlan {
        &self.plan
    }

    /// The hand's number at the table.
    pub(super) fn number(&self) -> u64 {
        self.plan.number
    }

    /// The hand's id.
    pub(super) fn hand_id(&self) -> HandId {
        self.hand_id
    }

    /// The players dealt in, by index in the hand.
    pub(super) fn players(&self) -> &[PlayerId] {
        &self.players
    }

    /// Everything that happened in the hand.
    pub(super) fn events(&self) -> &[Event] {
        &self.events
    }

    /// The committed deck.
    pub(super) fn deck(&self) -> &CommittedDeck {
        &self.deck
    }

    /// The seeds and reshuffles the deck was dealt with.
    pub(super) fn dealing(&self) -> &Dealing {
        &self.dealing
    }

    /// The hand's history as committed, once finished.
    pub(super) fn phh(&self) -> Option<&str> {
        self.phh.as_deref()
    }

    /// The hand's span.
    pub(super) fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// When the hand was complete, once it is.
    pub(super) fn ended(&self) -> Option<Instant> {
        self.ended
    }

    /// Whether `player` is dealt in.
    pub(super) fn deals(&self, player: PlayerId) -> bool {
        self.players.contains(&player)
    }

    /// Who is to act and what they decide.
    pub(super) fn next(&self) -> Next {
        match (self.hand.to_act(), self.hand.decision()) {
            (Some(p), Some(decision)) => Next::Decide(p, decision),
            _ => Next::Nobody,
        }
    }

    /// The player to act, by index and id.
    pub(super) fn to_act(&self) -> Option<(usize, PlayerId)> {
        let p = self.hand.to_act()?;
        Some((p, self.players[p]))
    }

    /// Whether the decision asked now was asked already (its id stands).
    pub(super) fn asked(&self) -> bool {
        self.asked_at == self.events.len()
    }

    /// The decision to act is asked now, under `decision_id`.
    pub(super) fn ask(&mut self, decision_id: u64) {
        self.decision_id = decision_id;
        self.asked_at = self.events.len();
    }

    /// The id of the decision asked.
    pub(super) fn decision_id(&self) -> u64 {
        self.decision_id
    }

    /// If a draw needs more cards than the stub holds, puts the discards under it in the
    /// order the seeds make of their committed positions (docs/fairness.md); whether it
    /// did.
    pub(super) fn reshuffle(&mut self) -> bool {
        let Some(muck) = self.hand.needs_reshuffle() else {
            return false;
        };
        let muck = muck.to_vec();
        let cards = self
            .deck
            .reshuffle(&mut self.dealing, &muck)
            .expect("discards come from the committed deck");
        let events = self
            .hand
            .reshuffle(cards)
            .expect("the discards asked for are handed back");
        self.events.extend(events);
        true
    }

    /// Applies player `p`'s action.
    pub(super) fn apply(
        &mut self,
        p: usize,
        action: Action,
    ) -> Result<(), poker_rules::ActionError> {
        let events = self.hand.apply(p, action)?;
        self.events.extend(events);
        Ok(())
    }

    /// The events to send now: those not sent yet, up to where the hand's end begins
    /// (which holds back what follows until [`Current::release`]). `from..to`.
    pub(super) fn tell(&mut self, ends_hand: impl Fn(&Event) -> bool) -> (usize, usize) {
        if self.holding {
            return (self.told, self.told);
        }
        let from = self.told;
        let to = self.events[from..]
            .iter()
            .position(ends_hand)
            .map_or(self.events.len(), |i| from + i);
        self.holding = to < self.events.len();
        self.told = to;
        (from, to)
    }

    /// Every event not sent yet, held back or not: `from..to`.
    pub(super) fn release(&mut self) -> (usize, usize) {
        self.holding = false;
        let from = self.told;
        self.told = self.events.len();
        (from, self.told)
    }

    /// The decision asked, as its player is told.
    pub(super) fn decide_msg(&self, table_id: TableId) -> Option<(PlayerId, ServerMsg)> {
        let p = self.hand.to_act()?;
        let decision_id = self.decision_id;
        let msg = match self.hand.decision()? {
            Decision::Bet(legal) => ServerMsg::Decide {
                table_id,
                decision_id,
                legal,
            },
            Decision::Draw => ServerMsg::DecideDraw {
                table_id,
                decision_id,
            },
            Decision::RunItTwice => ServerMsg::DecideRunTwice {
                table_id,
                decision_id,
            },
            Decision::Showdown { can_muck: true } => ServerMsg::DecideShow {
                table_id,
                decision_id,
            },
            Decision::Showdown { can_muck: false } => return None,
        };
        Some((self.players[p], msg))
    }

    /// The hand as `who` may see it (`redact`: an event as they may see it): what was
    /// sent so far, never a result held back until the commit.
    pub(super) fn view(&self, redact: impl Fn(&Event) -> Event) -> HandView {
        HandView {
            hand_number: self.plan.number,
            seats: self.plan.seats.iter().map(|&s| s as u32).collect(),
            starting_stacks: self.plan.config.seats.iter().map(|s| s.stack).collect(),
            button: self.plan.button as u32,
            events: self.events[..self.told].iter().map(redact).collect(),
            game_kind: Some(self.plan.config.game),
            structure: Some(self.plan.config.structure),
            bomb_pot: self.plan.bomb_pot,
        }
    }

    /// What the pot came to: every pot awarded, and the rake taken from it.
    pub(super) fn pot(&self) -> Chips {
        self.events
            .iter()
            .map(|e| match e {
                Event::PotAwarded { amount, .. } | Event::Raked { amount } => *amount,
                _ => 0,
            })
            .sum()
    }

    /// The complete hand as the store commits it (its history kept for a show after).
    pub(super) fn finish(
        &mut self,
        table_id: TableId,
        seat_count: usize,
        fence: Option<u64>,
    ) -> CompletedHand {
        self.ended.get_or_insert_with(Instant::now);
        let stacks = self.hand.final_stacks().expect("complete");
        let phh = poker_history::phh::write(&self.plan.config, &self.events, Some(&stacks))
            .map(|h| h.to_toml())
            .unwrap_or_default();
        let plan = &self.plan;
        let completed = CompletedHand {
            hand_id: self.hand_id,
            table_id,
            number: plan.number,
            players: self
                .players
                .iter()
                .enumerate()
                .map(|(i, &player_id)| HandPlayer {
                    player_id,
                    seat_no: plan.seats[i] as u32,
                    starting_stack: plan.config.seats[i].stack,
                    finishing_stack: stacks[i],
                })
                .collect(),
            rake: self.hand.rake(),
            phh: phh.clone(),
            record: HandRecord {
                board: Card::format_many(self.hand.board()),
                button: plan.button,
                seats: plan.seats.clone(),
                seat_players: self.players.clone(),
                seat_count,
                posts: plan.posts.clone(),
                starting_stacks: plan.config.seats.iter().map(|s| s.stack).collect(),
                finishing_stacks: stacks,
                deck: Some(poker_fairness::StoredDeck::V2(
                    self.deck.record(&self.dealing),
                )),
                // Folds to a bet, and whether the folder was ahead: for the collusion
                // report, from the cards the table knows (microseconds, no replay).
                folds: Some(crate::fairplay::report::fold_facts(
                    plan.config.game,
                    self.players.len(),
                    &self.events,
                )),
            },
            started_at: self.started_at,
            ended_at: now_ms(),
            fence,
        };
        self.phh = Some(phh);
        completed
    }
}
