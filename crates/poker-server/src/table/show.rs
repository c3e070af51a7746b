//! Showing after an uncontested win: a player whose bet nobody called wins without a
//! showdown, and may then show the cards to the table (`show_hand`), until the next hand
//! is dealt. Only that player, only that hand's cards, once; nobody else's cards are
//! ever shown this way. The show goes on the hand's record before anyone sees it (a line
//! of its history, so every download has it), and every player dealt in gets the hand's
//! proofs again, with the cards shown proved (docs/fairness.md).

use super::current::Current;
use super::Refusal;
use poker_fairness::{CommittedDeck, Dealing, DeckRecord};
use poker_protocol::ServerMsg;
use poker_rules::{Card, Cards, Event};
use poker_store::{HandId, PlayerId, TableId};

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
    /// The hand's game (a dealer's choice table changes game between hands).
    game: poker_rules::Game,
}

impl Uncontested {
    /// The winner of a committed hand that ended without a showdown (everyone else
    /// folded), or `None` (a showdown, or nobody left).
    pub(super) fn of(cur: &Current) -> Option<Uncontested> {
        let players = cur.hand().players();
        let mut live = players.iter().enumerate().filter(|(_, p)| !p.folded);
        let (index, winner) = live.next()?;
        if live.next().is_some() || winner.shown.is_some() || winner.hole.is_empty() {
            return None;
        }
        Some(Uncontested {
            hand_id: cur.hand_id(),
            number: cur.number(),
            seats: cur.plan().seats.iter().map(|&s| s as u32).collect(),
            game: cur.plan().config.game,
            index,
            player: cur.players()[index],
            cards: winner.hole,
            board: cur.hand().board().to_vec(),
            players: cur.players().to_vec(),
            events: cur.events().to_vec(),
            deck: cur.deck().record(cur.dealing()),
            phh: cur.phh()?.to_string(),
        })
    }

    /// The hand won uncontested.
    pub(super) fn hand_id(&self) -> HandId {
        self.hand_id
    }

    /// Its winner, the one player who may show it.
    pub(super) fn winner(&self) -> PlayerId {
        self.player
    }

    /// The hand's history with the show as its last line (PHH commentary, as run it
    /// twice is written: docs/histories.md).
    pub(super) fn history(&self) -> Result<String, Refusal> {
        let mut history = match poker_history::phh::PhhHand::parse(&self.phh) {
            Ok(h) => h,
            Err(e) => {
                tracing::error!("the hand's history does not read back: {e}");
                return Err(Refusal::Internal("the show could not be recorded".into()));
            }
        };
        let hole: Vec<Card> = self.cards.iter().copied().collect();
        history.actions.push(format!(
            "# p{} shows {}",
            self.index + 1,
            Card::format_many(&hole)
        ));
        Ok(history.to_toml())
    }

    /// The show, once recorded: the `shown` event everyone is sent (with the hand's name
    /// in `game`), and what the proofs are made again from.
    pub(super) fn show(self, table_id: TableId) -> Shown {
        let game = self.game;
        let hole: Vec<Card> = self.cards.iter().copied().collect();
        let shown = Event::Shown {
            player: self.index,
            cards: self.cards,
        };
        let msg = ServerMsg::Event {
            table_id,
            hand_number: self.number,
            seats: self.seats,
            event: shown.clone(),
            hand_name: poker_history::pokerstars::describe::describe(game, &hole, &self.board),
        };
        // Every player dealt in saw the cards shown: their proofs again, with them.
        let mut events = self.events;
        events.push(shown);
        let deck = match self.deck.deck() {
            Ok(deck) => {
                let dealing = self.deck.dealing(&deck);
                Some((deck, dealing))
            }
            Err(e) => {
                tracing::error!("the deck's proofs could not be made: {e}");
                None
            }
        };
        Shown {
            msg,
            number: self.number,
            players: self.players,
            events,
            deck,
        }
    }
}

/// A show recorded: what goes out.
pub(super) struct Shown {
    /// The `shown` event, for everyone.
    pub(super) msg: ServerMsg,
    /// The hand's number.
    pub(super) number: u64,
    /// The players dealt in, each sent their proofs again.
    pub(super) players: Vec<PlayerId>,
    /// The hand's events with the show.
    pub(super) events: Vec<Event>,
    /// The deck and its dealing, for the proofs (`None`: they could not be made).
    pub(super) deck: Option<(CommittedDeck, Dealing)>,
}
