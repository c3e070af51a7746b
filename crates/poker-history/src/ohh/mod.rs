//! Open Hand History (OHH, <https://hh-specs.handhistory.org/>), the JSON standard that
//! tracking tools exchange: one hand written as one OHH object, from its PHH history
//! replayed through the engine, so the pots, the rake and who won which pot are the
//! engine's own (see [`pots`] for how each pot's size is recovered and checked).
//!
//! The standard knows hold'em, Omaha and Omaha hi/lo (and stud and draw game types with
//! no streets, bring-in or draw actions to write them with); every other hand is refused
//! with [`OhhError`], and `docs/histories.md` lists what each format cannot express.
//! Secrecy is the PokerStars writer's: a player's history holds their own hole cards and
//! the hands shown; the operator's view (flag `Observed`, no hero) holds every hand.

use crate::phh::{replay, PhhError, PhhHand};
use poker_rules::table::{Post, PostKind};
use poker_rules::{BlindKind, Card, Chips, Event, Game, Structure};

pub mod model;
pub mod pots;

pub use model::{
    Action, BetLimit, Document, HandHistory, Player, PlayerWin, Pot, Round, PLAY_MONEY,
    SPEC_VERSION,
};

/// Why a hand cannot be written as OHH.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum OhhError {
    /// The stored history does not replay.
    #[error(transparent)]
    History(#[from] PhhError),
    /// The standard has no game type (or no streets and actions) for the game.
    #[error("Open Hand History cannot express {0}")]
    Game(&'static str),
    /// The standard has no bet type for the structure.
    #[error("Open Hand History has no bet type for spread limit")]
    SpreadLimit,
    /// Amounts in fractions of a chip (histories read from elsewhere).
    #[error("amounts in fractions of a chip")]
    Fractional,
    /// The names or seats given do not match the hand's players.
    #[error("the hand's players are not all known")]
    Players,
    /// The pots worked out from the bets disagree with the engine's awards.
    #[error("the pots disagree with the engine: {0}")]
    Pots(String),
}

/// What the history itself does not say.
pub struct Meta<'a> {
    /// The site's name (`site_name`), also written as the network's.
    pub site_name: &'a str,
    /// The writer's version (`internal_version`).
    pub internal_version: &'a str,
    /// The hand's number, unique to the hand.
    pub game_number: &'a str,
    /// The table's name.
    pub table_name: &'a str,
    /// When the hand started (unix ms).
    pub started_at_ms: i64,
    /// ISO currency code, or [`PLAY_MONEY`].
    pub currency: &'a str,
    /// Player names by index in the hand.
    pub players: &'a [String],
    /// Seat numbers (1-based) by index in the hand.
    pub seats: &'a [u32],
    /// Seats at the table.
    pub seat_count: u32,
    /// The button's seat number (1-based). `None`: taken from the blinds.
    pub button_seat: Option<u32>,
    /// The table's forced bets of the hand, by table seat (0-based): they tell a missed
    /// small blind paid dead from an ante. Empty: every dead post is an ante.
    pub posts: &'a [Post],
    /// The PHH history.
    pub phh: &'a str,
    /// Whose history it is (hand index): only their hole cards are written, other hands
    /// only if shown. `None`: the operator's view, every hand.
    pub viewer: Option<usize>,
}

/// The spec's game type of a game the writer can express, or the refusal.
fn game_type(game: Game) -> Result<&'static str, OhhError> {
    match game {
        Game::Holdem => Ok("Holdem"),
        Game::Omaha => Ok("Omaha"),
        Game::OmahaHiLo => Ok("OmahaHiLo"),
        // The standard has no short-deck game type: as `Holdem`, a reader would rank
        // hands from a 52-card deck (a full house over a flush) and misjudge showdowns.
        Game::ShortDeckHoldem => Err(OhhError::Game("short-deck (6+) hold'em")),
        // `Stud` and `StudHiLo` exist as game types, but rounds are named only Preflop to
        // River, there is no bring-in action and no up or down cards; razz has no type.
        Game::Stud => Err(OhhError::Game("seven-card stud")),
        Game::StudHiLo => Err(OhhError::Game("seven-card stud hi/lo")),
        Game::Razz => Err(OhhError::Game("razz")),
        // `Draw` names no draw game (2-7 or badugi) and there is no discard action.
        Game::DeuceToSevenSingleDraw => Err(OhhError::Game("2-7 single draw")),
        Game::DeuceToSevenTripleDraw => Err(OhhError::Game("2-7 triple draw")),
        Game::Badugi => Err(OhhError::Game("badugi")),
    }
}

fn card_strings(cards: &[Card]) -> Vec<String> {
    cards.iter().map(Card::to_string).collect()
}

/// A player's cards as a history may write them: only when every one is known (a history
/// read from elsewhere may hold `??` for a hand nobody saw).
fn known_cards(cards: &[Card]) -> Option<Vec<String>> {
    (!cards.is_empty() && cards.iter().all(|c| c.is_known())).then(|| card_strings(cards))
}

/// The street of a round that brings the board to `len` cards.
fn street_of(len: usize) -> &'static str {
    match len {
        0..=3 => "Flop",
        4 => "Turn",
        _ => "River",
    }
}

/// Writes one hand as an OHH document.
pub fn write(meta: &Meta) -> Result<Document, OhhError> {
    let phh = PhhHand::parse(meta.phh)?;
    let played = replay(&phh)?;
    if played.scale != 1 {
        return Err(OhhError::Fractional);
    }
    let config = played.hand.config().clone();
    let game_type = game_type(config.game)?;
    let bet_type = match config.structure {
        Structure::NoLimit => "NL",
        Structure::PotLimit => "PL",
        Structure::FixedLimit => "FL",
        Structure::SpreadLimit => return Err(OhhError::SpreadLimit),
    };
    let n = config.seats.len();
    if meta.players.len() != n || meta.seats.len() != n || meta.viewer.is_some_and(|v| v >= n) {
        return Err(OhhError::Players);
    }
    let sees = |p: usize| meta.viewer.is_none_or(|v| v == p);
    let big = config.big_blind();
    let small = config
        .seats
        .iter()
        .map(|s| s.blind)
        .filter(|&b| b > 0 && b < big)
        .min()
        .unwrap_or(big / 2);
    // The button's seat as the table recorded it; else heads-up the small blind's, else
    // the last player's in hand order (the PokerStars writer's rule).
    let dealer_seat = meta.button_seat.unwrap_or_else(|| {
        let i = if n == 2 {
            (0..n)
                .find(|&i| config.seats[i].blind > 0 && config.seats[i].blind < big)
                .unwrap_or(n - 1)
        } else {
            n - 1
        };
        meta.seats[i]
    });
    let id = |p: usize| p as u32;
    let mut stacks: Vec<Chips> = config.seats.iter().map(|s| s.stack).collect();
    let mut hole: Vec<Vec<Card>> = vec![Vec::new(); n];
    let mut dealt_written = false;
    let mut board_len = 0usize;
    let mut split_at: Option<usize> = None;
    let mut second_len = 0usize;
    let mut round_bet: Chips = 0;
    let mut big_posted = false;
    let mut rounds: Vec<Round> = vec![Round {
        id: 0,
        street: "Preflop",
        cards: Vec::new(),
        actions: Vec::new(),
    }];
    let mut showdown: Vec<Action> = Vec::new();
    let act = |player: usize, action: &'static str, amount: Option<Chips>, all_in: bool| Action {
        action_number: 0,
        player_id: id(player),
        action,
        amount,
        is_allin: all_in,
        cards: None,
    };
    // A missed small blind paid dead goes in with the antes; it is written as its own
    // `Post Dead`.
    let dead_small = |player: usize, amount: Chips| {
        meta.posts
            .iter()
            .filter(|p| p.seat as u32 + 1 == meta.seats[player])
            .find(|p| p.kind == PostKind::MissedSmall && !p.live)
            .map_or(0, |p| p.amount.min(amount))
    };
    for event in &played.events {
        // The hole cards are written once, after the forced bets, before anything else.
        let deal_over = !matches!(
            event,
            Event::AntePosted { .. } | Event::BlindPosted { .. } | Event::HoleDealt { .. }
        );
        if deal_over && !dealt_written && hole.iter().any(|h| !h.is_empty()) {
            dealt_written = true;
            for (p, cards) in hole.iter().enumerate() {
                let mut a = act(p, "Dealt Cards", None, false);
                a.cards = if sees(p) { known_cards(cards) } else { None };
                rounds[0].actions.push(a);
            }
        }
        let current = rounds.len() - 1;
        match event {
            Event::AntePosted { player, amount } => {
                stacks[*player] -= amount;
                let all_in = stacks[*player] == 0;
                let dead = dead_small(*player, *amount);
                if dead > 0 {
                    let whole = dead == *amount;
                    let a = act(*player, "Post Dead", Some(dead), all_in && whole);
                    rounds[0].actions.push(a);
                }
                if amount - dead > 0 {
                    let a = act(*player, "Post Ante", Some(amount - dead), all_in);
                    rounds[0].actions.push(a);
                }
            }
            Event::BlindPosted { player, amount } => {
                stacks[*player] -= amount;
                let seat = config.seats[*player];
                let name = match seat.kind {
                    BlindKind::Straddle => "Straddle",
                    BlindKind::Sleeper | BlindKind::Kill | BlindKind::Post => "Post Extra Blind",
                    BlindKind::Blind if seat.blind < big => "Post SB",
                    BlindKind::Blind if !big_posted => {
                        big_posted = true;
                        "Post BB"
                    }
                    BlindKind::Blind => "Post Extra Blind",
                };
                round_bet = round_bet.max(*amount);
                let a = act(*player, name, Some(*amount), stacks[*player] == 0);
                rounds[0].actions.push(a);
            }
            Event::HoleDealt { player, cards, .. } => {
                hole[*player].extend(cards.iter().copied());
            }
            Event::BoardDealt { cards } => {
                board_len += cards.len();
                round_bet = 0;
                rounds.push(Round {
                    id: rounds.len() as u32,
                    street: street_of(board_len),
                    cards: card_strings(cards),
                    actions: Vec::new(),
                });
            }
            Event::RunningTwice => split_at = Some(board_len),
            Event::SecondBoardDealt { cards } => {
                second_len += cards.len();
                let len = split_at.unwrap_or(board_len) + second_len;
                rounds.push(Round {
                    id: rounds.len() as u32,
                    street: street_of(len),
                    cards: card_strings(cards),
                    actions: Vec::new(),
                });
            }
            Event::Folded { player } => rounds[current]
                .actions
                .push(act(*player, "Fold", None, false)),
            Event::Checked { player } => {
                rounds[current]
                    .actions
                    .push(act(*player, "Check", None, false));
            }
            Event::Called {
                player,
                amount,
                all_in,
            } => {
                stacks[*player] -= amount;
                let a = act(*player, "Call", Some(*amount), *all_in);
                rounds[current].actions.push(a);
            }
            Event::BetTo {
                player,
                to,
                amount,
                all_in,
                ..
            } => {
                stacks[*player] -= amount;
                // "Bet" is not a preflop action: the blinds are the opening bet there.
                let name = if current == 0 || round_bet > 0 {
                    "Raise"
                } else {
                    "Bet"
                };
                round_bet = round_bet.max(*to);
                let a = act(*player, name, Some(*amount), *all_in);
                rounds[current].actions.push(a);
            }
            Event::UncalledReturned { player, amount } => stacks[*player] += amount,
            // A winner without a showdown who shows after the hand (`Shown` after
            // `HandEnded`) goes to the showdown round too: the spec puts `Shows Cards`
            // in one.
            Event::Shown { player, cards } => {
                let mut a = act(*player, "Shows Cards", None, false);
                a.cards = known_cards(cards);
                showdown.push(a);
            }
            Event::Mucked { player } => {
                let mut a = act(*player, "Mucks Cards", None, false);
                a.cards = if sees(*player) {
                    known_cards(&hole[*player])
                } else {
                    None
                };
                showdown.push(a);
            }
            Event::BringInPosted { .. } | Event::Discarded { .. } => {
                return Err(OhhError::Game("a stud or draw action"));
            }
            _ => {}
        }
    }
    if !showdown.is_empty() {
        rounds.push(Round {
            id: rounds.len() as u32,
            street: "Showdown",
            cards: Vec::new(),
            actions: showdown,
        });
    }
    let mut number = 0;
    for a in rounds.iter_mut().flat_map(|r| r.actions.iter_mut()) {
        number += 1;
        a.action_number = number;
    }
    let pots = pots::pots(&config, &played.events).map_err(OhhError::Pots)?;
    let pots = pots
        .iter()
        .enumerate()
        .map(|(k, pot)| {
            let rake = pots::rake_shares(pot);
            Pot {
                number: k as u32,
                amount: pot.amount,
                rake: pot.rake,
                jackpot: 0,
                player_wins: pot
                    .wins
                    .iter()
                    .map(|(&w, &win)| PlayerWin {
                        player_id: id(w),
                        win_amount: win,
                        contributed_rake: rake.get(&w).copied().unwrap_or(0),
                    })
                    .collect(),
            }
        })
        .collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| meta.seats[i]);
    let mut flags = Vec::new();
    if meta.viewer.is_none() {
        flags.push("Observed");
    }
    if split_at.is_some() && second_len > 0 {
        flags.push("Run_It_Twice");
    }
    if config.options.cap.is_some() {
        flags.push("Cap");
    }
    Ok(Document {
        ohh: HandHistory {
            spec_version: SPEC_VERSION.to_string(),
            site_name: meta.site_name.to_string(),
            network_name: meta.site_name.to_string(),
            internal_version: meta.internal_version.to_string(),
            tournament: false,
            game_number: meta.game_number.to_string(),
            start_date_utc: crate::pokerstars::time::iso_utc(meta.started_at_ms),
            table_name: meta.table_name.to_string(),
            game_type,
            bet_limit: BetLimit {
                bet_type,
                bet_cap: config.options.cap.unwrap_or(0),
            },
            table_size: meta.seat_count,
            currency: meta.currency.to_string(),
            dealer_seat,
            small_blind_amount: small,
            big_blind_amount: big,
            ante_amount: (0..n)
                .map(|i| config.seats[i].ante - dead_small(i, config.seats[i].ante))
                .max()
                .unwrap_or(0),
            hero_player_id: meta.viewer.map(id),
            flags,
            players: order
                .iter()
                .map(|&i| Player {
                    id: id(i),
                    seat: meta.seats[i],
                    name: meta.players[i].clone(),
                    starting_stack: config.seats[i].stack,
                })
                .collect(),
            rounds,
            pots,
        },
    })
}

/// Hands as a `.ohh` file: each document on one line, separated by one blank line, as
/// the spec's storage format has it (several objects, so not one JSON value).
pub fn file(documents: &[Document]) -> String {
    let mut out = String::new();
    for (k, d) in documents.iter().enumerate() {
        if k > 0 {
            out.push('\n');
        }
        // Strings, integers and lists only: serializing cannot fail.
        out.push_str(&serde_json::to_string(d).expect("an OHH document serializes"));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests;
