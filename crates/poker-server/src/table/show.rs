//! Showing after an uncontested win: a player whose bet nobody called wins without a
//! showdown, and may then show the cards to the table (`show_hand`), until the next hand
//! is dealt. Only that player, only that hand's cards, once; nobody else's cards are
//! ever shown this way.

use super::actor::{Actor, Current};
use super::{Outcome, Refusal};
use poker_protocol::ServerMsg;
use poker_rules::{Card, Cards, Event};
use poker_store::PlayerId;

/// The last hand, when it was won without a showdown: what its winner may show.
pub(super) struct Uncontested {
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
            number: cur.plan.number,
            seats: cur.plan.seats.iter().map(|&s| s as u32).collect(),
            index,
            player: cur.players[index],
            cards: winner.hole,
            board: cur.hand.board().to_vec(),
        })
    }
}

impl Actor {
    /// Shows the cards of the hand just won uncontested to everyone at the table, as a
    /// `shown` event of that hand with its name; refused for anyone but its winner, after
    /// the next hand is dealt, or a second time.
    pub(super) fn show_uncontested(&mut self, player: PlayerId) -> Result<Outcome, Refusal> {
        let won = self.uncontested.take_if(|u| u.player == player).ok_or_else(|| {
            Refusal::Illegal("only the winner of a hand won without a showdown may show it, until the next hand".into())
        })?;
        let hole: Vec<Card> = won.cards.iter().copied().collect();
        let game = self.table.rules().game;
        let msg = ServerMsg::Event {
            table_id: self.table_id,
            hand_number: won.number,
            seats: won.seats,
            event: Event::Shown {
                player: won.index,
                cards: won.cards,
            },
            hand_name: poker_history::pokerstars::describe::describe(game, &hole, &won.board),
        };
        self.send_all(&msg);
        Ok(Outcome {
            amount: 0,
            pending: false,
        })
    }
}
