//! Showing after an uncontested win: a player whose bet nobody called wins without a
//! showdown, and may then show the cards to the table (`show_hand`), until the next hand
//! is dealt. Only that player, only that hand's cards, once; nobody else's cards are
//! ever shown this way. The show goes on the hand's record before anyone sees it (a line
//! of its history, so every download has it), and every player dealt in gets the hand's
//! proofs again, with the cards shown proved (docs/fairness.md).

use super::actor::{Actor, Current};
use super::{Outcome, Refusal};
use poker_fairness::DeckRecord;
use poker_protocol::ServerMsg;
use poker_rules::{Card, Cards, Event};
use poker_store::{HandId, PlayerId};

/// The last hand, when it was won without a showdown: what its winner may show.
pub(super) struct Uncontested {
    /// The hand.
    hand_id: HandId,
    /// The hand's number at the table.
    number: u64,
    /// Player index in the hand to seat number, as the hand's events say.
    seats: Vec<u32>,
    /// The winner's index in the hand.
    index: usize,
    /// The winner.
    player: PlayerId,
    /// The winner's hole cards.
    cards: Cards,
    /// The board, to name the hand shown.
    board: Vec<Card>,
    /// The players dealt in, by index in the hand.
    players: Vec<PlayerId>,
    /// The hand's events (every card known), for the proofs made again.
    events: Vec<Event>,
    /// The hand's deck, for the proofs.
    deck: DeckRecord,
    /// The hand's history as committed.
    phh: String,
}

impl Uncontested {
    /// The winner of a committed hand that ended without a showdown (everyone else
    /// folded), or `None` (a showdown, or nobody left).
    pub(super) fn of(cur: &Current) -> Option<Uncontested> {
        let players = cur.hand.players();
        let mut live = players.iter().enumerate().filter(|(_, p)| !p.folded);
        let (index, winner) = live.next()?;
        if live.next().is_some() || winner.shown.is_some() || winner.hole.is_empty() {
            return None;
        }
        Some(Uncontested {
            hand_id: cur.hand_id,
            number: cur.plan.number,
            seats: cur.plan.seats.iter().map(|&s| s as u32).collect(),
            index,
            player: cur.players[index],
            cards: winner.hole,
            board: cur.hand.board().to_vec(),
            players: cur.players.clone(),
            events: cur.events.clone(),
            deck: cur.deck.record(&cur.dealing),
            phh: cur.phh.clone()?,
        })
    }
}

impl Actor {
    /// Shows the cards of the hand just won uncontested to everyone at the table, as a
    /// `shown` event of that hand with its name, once it is on the hand's record; refused
    /// for anyone but its winner, after the next hand is dealt, or a second time.
    pub(super) async fn show_uncontested(&mut self, player: PlayerId) -> Result<Outcome, Refusal> {
        let won = self.uncontested.take_if(|u| u.player == player).ok_or_else(|| {
            Refusal::Illegal("only the winner of a hand won without a showdown may show it, until the next hand".into())
        })?;
        let hole: Vec<Card> = won.cards.iter().copied().collect();
        // The history's line for it: PHH commentary, as run it twice is written
        // (docs/histories.md).
        let mut history = match poker_history::phh::PhhHand::parse(&won.phh) {
            Ok(h) => h,
            Err(e) => {
                tracing::error!("the hand's history does not read back: {e}");
                return Err(Refusal::Internal("the show could not be recorded".into()));
            }
        };
        history.actions.push(format!(
            "# p{} shows {}",
            won.index + 1,
            Card::format_many(&hole)
        ));
        if let Err(e) = self
            .ctx
            .store
            .record_show(won.hand_id, &history.to_toml())
            .await
        {
            if self.lost_table(&e) {
                return Err(Refusal::Moving);
            }
            tracing::error!("the show could not be recorded: {e}");
            self.uncontested = Some(won);
            return Err(Refusal::Internal("the show could not be recorded".into()));
        }
        let game = self.table.rules().game;
        let shown = Event::Shown {
            player: won.index,
            cards: won.cards,
        };
        let msg = ServerMsg::Event {
            table_id: self.table_id,
            hand_number: won.number,
            seats: won.seats.clone(),
            event: shown.clone(),
            hand_name: poker_history::pokerstars::describe::describe(game, &hole, &won.board),
        };
        self.send_all(&msg);
        // Every player dealt in saw the cards shown: their proofs again, with them.
        let mut events = won.events;
        events.push(shown);
        match won.deck.deck() {
            Ok(deck) => {
                let dealing = won.deck.dealing(&deck);
                self.send_proofs(won.number, &won.players, &deck, &dealing, &events);
            }
            Err(e) => tracing::error!("the deck's proofs could not be made: {e}"),
        }
        Ok(Outcome {
            amount: 0,
            pending: false,
        })
    }
}
