//! Hand histories in the PokerStars text format, which tracking tools import, written
//! from a committed hand's PHH history replayed through the engine: the pot and rake
//! arithmetic is the engine's own, uncalled bets are returned as their own line.
//!
//! Every game is written in PokerStars' own form for it: flop games with `*** HOLE CARDS
//! ***` and the board, stud and razz street by street with each player's up cards (and
//! the viewer's down cards), draw games with `*** DEALING HANDS ***`, each draw and its
//! discards. Shown hands are described in PokerStars' words (`describe`), dates are in
//! Eastern time (`time`).
//!
//! The text follows PokerStars' cash-game conventions to the byte where readers depend on
//! them: the trailing space after `folds`, `checks`, `mucks hand`, a seat's `(N in
//! chips)` and the summary's `Rake N`; the blinds before the antes (antes first in 6+,
//! as PokerStars writes its button blind games); `raises X to Y` where X is the raise
//! over the bet to call; `completes it to` in stud.
//!
//! A history is written for one viewer: their own cards are dealt face up (`Dealt to`),
//! others' only as shown. The house's view ([`Meta::viewer`] `None`) deals nobody's cards
//! face up, as an observer's history would, so that no reader takes a player for its
//! hero; it adds the cards of hands mucked at the showdown to the summary.
//!
//! The pieces: [`header`] writes the hand's first lines and the seats, [`body`] the
//! streets from the engine's events, [`summary`] the summary.

use crate::phh::{replay, PhhHand};
use poker_rules::table::Post;
use poker_rules::{BlindKind, Card, Chips, Game, HandConfig, Structure};

mod body;
pub mod describe;
mod engine;
mod header;
pub mod import;
pub mod money;
mod parsed;
pub mod read;
mod read_header;
mod summary;
pub(crate) mod time;

use money::Money;

/// A name as one line can hold it: every control character and line or paragraph
/// separator becomes U+FFFD, so no name can end a line of the history early or forge
/// one. The full policy of names is the store's (`poker_store::names`); this is the
/// writer's own guarantee for whatever it is given.
pub fn printable(name: &str) -> std::borrow::Cow<'_, str> {
    let breaks = |c: char| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}');
    if name.chars().any(breaks) {
        std::borrow::Cow::Owned(
            name.chars()
                .map(|c| if breaks(c) { '\u{FFFD}' } else { c })
                .collect(),
        )
    } else {
        std::borrow::Cow::Borrowed(name)
    }
}

/// What the history itself does not say.
pub struct Meta<'a> {
    /// The hand's number for tracking tools.
    pub hand_number: u64,
    /// The table's name.
    pub table_name: &'a str,
    /// When the hand started (unix ms).
    pub started_at_ms: i64,
    /// Player names by index in the hand.
    pub players: &'a [String],
    /// Seat numbers (1-based) by index in the hand.
    pub seats: &'a [u32],
    /// Seats at the table.
    pub seat_count: u32,
    /// The button's seat number (1-based), which may be a seat not dealt in (a dead
    /// button, or a player waiting there to come in). `None`: taken from the blinds.
    pub button_seat: Option<u32>,
    /// The table's forced bets of the hand, by table seat (0-based): they tell a
    /// returning player's dead small blind from an ante. Empty: every dead post is an
    /// ante.
    pub posts: &'a [Post],
    /// The PHH history.
    pub phh: &'a str,
    /// Whose history it is (hand index): only their hole cards are dealt face up, other
    /// hands appear only if shown. `None`: the house's view, which deals nobody's cards
    /// face up (an observer's history) and shows the hands mucked at the showdown in the
    /// summary.
    pub viewer: Option<usize>,
    /// A play-money room's hand: the table line says `(Play Money)`, as PokerStars
    /// writes it for its play-money tables.
    pub play_money: bool,
}

/// Cards as PokerStars lists them: `Ac Kd`.
fn cards(c: &[Card]) -> String {
    c.iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The three families of games, which PokerStars writes differently.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    /// Hold'em and Omaha: blinds, a button, a board.
    Flop,
    /// Stud and razz: antes and a bring-in, up and down cards, no button.
    Stud,
    /// Draw games: blinds, a button, discards.
    Draw,
}

/// Everything the pieces of the writer share about one hand: its rules, its players'
/// printable names and seats, and who views it.
struct Hand<'a> {
    meta: &'a Meta<'a>,
    config: HandConfig,
    family: Family,
    /// Single draw 2-7 has no `*** FIRST DRAW ***` marker and one draw in the summary.
    single_draw: bool,
    names: Vec<String>,
    /// The big blind (the biggest live blind of a blind seat).
    big: Chips,
    /// The button's seat number (1-based).
    button_seat: u32,
    /// Hand indexes in seat order, as the seat and summary lines list them.
    order: Vec<usize>,
    /// The unit amounts are written in.
    money: &'a Money,
    /// Winners without a showdown who said they do not show: the record keeps that
    /// choice as a comment (`# p3 doesn't show hand`), which replays as nothing.
    no_show: Vec<usize>,
    /// Mucked hands the record says the table saw (`# p2 mucked 9sAh`), as PokerStars
    /// names them in the summary: kept as a comment, which replays as nothing.
    mucked_named: std::collections::BTreeMap<usize, Vec<Card>>,
    /// Cards the record says a player showed in part (`# p3 shows in part Qc`), which
    /// no event of the engine's holds: a hand shown in part then mucked (PokerStars
    /// writes `shows [Qc]` for the muck), or a part of the hand of a winner without a
    /// showdown, written after the pot is collected. (That winner's whole hand is an
    /// event, `Shown` after `HandEnded`.)
    shown_outside: std::collections::BTreeMap<usize, Vec<Card>>,
}

impl Hand<'_> {
    /// An amount as the history writes it (`500`, `$0.25`).
    fn m(&self, amount: Chips) -> String {
        self.money.format(amount)
    }

    /// A player's name as the history prints it.
    fn name(&self, player: usize) -> &str {
        &self.names[player]
    }

    /// Whether the history deals this player's cards face up: the viewer's only.
    fn sees(&self, player: usize) -> bool {
        self.meta.viewer == Some(player)
    }

    /// Whether the history may name cards the player did not show: their own history,
    /// or the house's.
    fn knows(&self, player: usize) -> bool {
        self.meta.viewer.is_none_or(|v| v == player)
    }

    /// The seat's blind as a position: a blind seat's small or big blind (a new or
    /// returning player's post is not a position, as at PokerStars).
    fn position_blind(&self, player: usize) -> Option<Chips> {
        let seat = &self.config.seats[player];
        (seat.kind == BlindKind::Blind && seat.blind > 0).then_some(seat.blind)
    }
}

/// Writes one hand in chips.
pub fn write(meta: &Meta) -> Result<String, String> {
    write_in(meta, &Money::Chips)
}

/// Writes one hand with its amounts in `money` (chips, or cents of a currency).
pub fn write_in(meta: &Meta, money: &Money) -> Result<String, String> {
    let phh = PhhHand::parse(meta.phh).map_err(|e| e.to_string())?;
    let played = replay(&phh).map_err(|e| e.to_string())?;
    if played.scale != 1 {
        return Err("fractional chip amounts".into());
    }
    let config = played.hand.config().clone();
    let family = match config.game {
        Game::Holdem | Game::ShortDeckHoldem | Game::Omaha | Game::OmahaHiLo => Family::Flop,
        Game::Stud | Game::StudHiLo | Game::Razz => Family::Stud,
        Game::DeuceToSevenSingleDraw | Game::DeuceToSevenTripleDraw | Game::Badugi => Family::Draw,
    };
    let n = config.seats.len();
    if meta.players.len() != n || meta.seats.len() != n {
        return Err("the hand's players are not all known".into());
    }
    // Names are checked when they enter (the server's Unicode policy, and the server
    // passes them through it again); whatever a caller passes still cannot break a line.
    let names: Vec<String> = meta
        .players
        .iter()
        .map(|p| printable(p).into_owned())
        .collect();
    let big = config.big_blind();
    // The button's seat as the table recorded it; else the last player in hand order
    // holds it (heads-up, the button posts the small blind, R19). Stud has no button.
    let button_seat = meta.button_seat.unwrap_or_else(|| {
        let small = (0..n).find(|&i| config.seats[i].blind > 0 && config.seats[i].blind < big);
        let i = match (n, small) {
            (2, Some(i)) => i,
            _ => n - 1,
        };
        meta.seats[i]
    });
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| meta.seats[i]);
    let no_show = phh
        .actions
        .iter()
        .filter_map(|note| {
            note.trim()
                .strip_prefix("# p")?
                .strip_suffix(" doesn't show hand")?
                .parse::<usize>()
                .ok()
        })
        .filter(|&k| (1..=n).contains(&k))
        .map(|k| k - 1)
        .collect();
    // Comments naming a player's cards: `# p2 mucked 9sAh`, `# p3 shows in part Qc`.
    let named = |what: &str| {
        phh.actions
            .iter()
            .filter_map(|note| {
                let (who, c) = note.trim().strip_prefix("# p")?.split_once(what)?;
                let k = who
                    .parse::<usize>()
                    .ok()
                    .filter(|&k| (1..=n).contains(&k))?;
                Some((k - 1, Card::parse_many(c).ok()?))
            })
            .collect()
    };
    let mucked_named = named(" mucked ");
    let shown_outside = named(" shows in part ");
    let hand = Hand {
        money,
        no_show,
        mucked_named,
        shown_outside,
        meta,
        single_draw: config.game == Game::DeuceToSevenSingleDraw,
        config,
        family,
        names,
        big,
        button_seat,
        order,
    };
    let mut out = header::header(&hand);
    let streets = body::Body::write(&hand, &played.events);
    out.push_str(&streets.out);
    summary::summary(&hand, &streets, &mut out);
    Ok(out)
}

/// The betting structure as the header names it.
fn structure_name(structure: Structure) -> &'static str {
    match structure {
        Structure::NoLimit => "No Limit",
        Structure::PotLimit => "Pot Limit",
        Structure::FixedLimit => "Limit",
        Structure::SpreadLimit => "Spread Limit",
    }
}

#[cfg(test)]
mod tests;
