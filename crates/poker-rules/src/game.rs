//! The games (hold'em, Omaha, stud, draw, badugi...) and betting structures: which
//! cards each street deals, who opens, and how the pot is won at showdown.
//!
//! A [`Game`] says what is dealt and how hands are judged; a [`Structure`] says how
//! much may be bet. PHH variant codes (`NT`, `PO`, `F7S/8`...) name one pair of each.

use crate::card::DeckKind;
use serde::{Deserialize, Serialize};
use std::fmt;

/// What is dealt and how the pot is won.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Game {
    /// Texas hold'em: two hole cards, five on the board, best five of seven.
    Holdem,
    /// Short-deck hold'em: 36 cards, flush beats full house, A-6-7-8-9 straight.
    ShortDeckHoldem,
    /// Omaha: four hole cards, exactly two with exactly three from the board.
    Omaha,
    /// Omaha high/low split, eight or better for low.
    OmahaHiLo,
    /// Seven-card stud, high.
    Stud,
    /// Seven-card stud high/low split, eight or better for low.
    StudHiLo,
    /// Razz: seven-card stud, ace-to-five low wins.
    Razz,
    /// Deuce-to-seven lowball, five cards, one draw.
    DeuceToSevenSingleDraw,
    /// Deuce-to-seven lowball, five cards, three draws.
    DeuceToSevenTripleDraw,
    /// Badugi: four cards, three draws, lowest rainbow hand wins.
    Badugi,
}

/// How much may be bet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Structure {
    /// Any amount from the minimum up to the whole stack (R23).
    NoLimit,
    /// Up to the size of the pot after calling (R22).
    PotLimit,
    /// Fixed small and big bets with a raise cap (R20).
    FixedLimit,
    /// Any amount within a range per street, with a raise cap (R21).
    SpreadLimit,
}

/// What one street deals before its betting round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreetDef {
    /// Hole cards dealt to each player, `true` for a face-up card (stud).
    pub hole: &'static [bool],
    /// Board cards dealt.
    pub board: u8,
    /// Whether players first discard and draw replacements.
    pub draw: bool,
    /// Whether fixed-limit bets on this street are the big bet.
    pub big_bet: bool,
}

const fn street(hole: &'static [bool], board: u8, draw: bool, big_bet: bool) -> StreetDef {
    StreetDef {
        hole,
        board,
        draw,
        big_bet,
    }
}

const HOLDEM: [StreetDef; 4] = [
    street(&[false, false], 0, false, false),
    street(&[], 3, false, false),
    street(&[], 1, false, true),
    street(&[], 1, false, true),
];
const OMAHA: [StreetDef; 4] = [
    street(&[false, false, false, false], 0, false, false),
    street(&[], 3, false, false),
    street(&[], 1, false, true),
    street(&[], 1, false, true),
];
const STUD: [StreetDef; 5] = [
    street(&[false, false, true], 0, false, false),
    street(&[true], 0, false, false),
    street(&[true], 0, false, true),
    street(&[true], 0, false, true),
    street(&[false], 0, false, true),
];
const SINGLE_DRAW: [StreetDef; 2] = [
    street(&[false; 5], 0, false, false),
    street(&[], 0, true, true),
];
const TRIPLE_DRAW: [StreetDef; 4] = [
    street(&[false; 5], 0, false, false),
    street(&[], 0, true, false),
    street(&[], 0, true, true),
    street(&[], 0, true, true),
];
const BADUGI: [StreetDef; 4] = [
    street(&[false; 4], 0, false, false),
    street(&[], 0, true, false),
    street(&[], 0, true, true),
    street(&[], 0, true, true),
];

/// How the pot is judged at showdown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Showdown {
    /// Best five-card high hand.
    High,
    /// Best short-deck high hand.
    ShortDeckHigh,
    /// Omaha high (two plus three).
    OmahaHigh,
    /// Omaha high/low, eight or better.
    OmahaHiLo,
    /// Best high hand of the seven stud cards.
    StudHigh,
    /// Stud high/low, eight or better.
    StudHiLo,
    /// Ace-to-five low of seven cards, no qualifier.
    Razz,
    /// Deuce-to-seven low of five cards.
    DeuceToSeven,
    /// Badugi.
    Badugi,
}

/// Who acts first in each betting round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opening {
    /// Blinds and position: left of the biggest blind first, then left of the button.
    Position,
    /// Stud: the lowest up card brings in, then the best showing hand opens.
    StudHigh,
    /// Razz: the highest up card brings in, then the lowest showing hand opens.
    StudLow,
}

impl Game {
    /// The streets in order.
    pub fn streets(self) -> &'static [StreetDef] {
        match self {
            Game::Holdem | Game::ShortDeckHoldem => &HOLDEM,
            Game::Omaha | Game::OmahaHiLo => &OMAHA,
            Game::Stud | Game::StudHiLo | Game::Razz => &STUD,
            Game::DeuceToSevenSingleDraw => &SINGLE_DRAW,
            Game::DeuceToSevenTripleDraw => &TRIPLE_DRAW,
            Game::Badugi => &BADUGI,
        }
    }

    /// The deck the game is dealt from.
    pub fn deck(self) -> DeckKind {
        match self {
            Game::ShortDeckHoldem => DeckKind::Short,
            _ => DeckKind::Standard,
        }
    }

    /// How the showdown is judged.
    pub fn showdown(self) -> Showdown {
        match self {
            Game::Holdem => Showdown::High,
            Game::ShortDeckHoldem => Showdown::ShortDeckHigh,
            Game::Omaha => Showdown::OmahaHigh,
            Game::OmahaHiLo => Showdown::OmahaHiLo,
            Game::Stud => Showdown::StudHigh,
            Game::StudHiLo => Showdown::StudHiLo,
            Game::Razz => Showdown::Razz,
            Game::DeuceToSevenSingleDraw | Game::DeuceToSevenTripleDraw => Showdown::DeuceToSeven,
            Game::Badugi => Showdown::Badugi,
        }
    }

    /// Who opens each betting round.
    pub fn opening(self) -> Opening {
        match self {
            Game::Stud | Game::StudHiLo => Opening::StudHigh,
            Game::Razz => Opening::StudLow,
            _ => Opening::Position,
        }
    }

    /// Whether the game has a board (community cards).
    pub fn has_board(self) -> bool {
        self.streets().iter().any(|s| s.board > 0)
    }

    /// The most players one deck can serve when dealt from a real deck.
    pub fn max_players(self) -> usize {
        match self {
            Game::Stud | Game::StudHiLo | Game::Razz => 7,
            Game::DeuceToSevenSingleDraw | Game::DeuceToSevenTripleDraw | Game::Badugi => 8,
            _ => 10,
        }
    }

    /// Whether players may discard and draw.
    pub fn is_draw(self) -> bool {
        self.streets().iter().any(|s| s.draw)
    }
}

/// A PHH variant code: one game with one betting structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Variant {
    /// Fixed-limit Texas hold'em.
    FT,
    /// No-limit Texas hold'em.
    NT,
    /// No-limit short-deck hold'em.
    NS,
    /// Pot-limit Omaha hold'em.
    PO,
    /// Fixed-limit Omaha hold'em high/low-split eight or better.
    #[serde(rename = "FO/8")]
    FO8,
    /// Fixed-limit seven card stud.
    F7S,
    /// Fixed-limit seven card stud high/low-split eight or better.
    #[serde(rename = "F7S/8")]
    F7S8,
    /// Fixed-limit razz.
    FR,
    /// No-limit deuce-to-seven lowball single draw.
    N2L1D,
    /// Fixed-limit deuce-to-seven lowball triple draw.
    F2L3D,
    /// Fixed-limit badugi.
    FB,
}

impl Variant {
    /// Every variant of the PHH standard.
    pub const ALL: [Variant; 11] = [
        Variant::FT,
        Variant::NT,
        Variant::NS,
        Variant::PO,
        Variant::FO8,
        Variant::F7S,
        Variant::F7S8,
        Variant::FR,
        Variant::N2L1D,
        Variant::F2L3D,
        Variant::FB,
    ];

    /// The variant's PHH code.
    pub fn code(self) -> &'static str {
        match self {
            Variant::FT => "FT",
            Variant::NT => "NT",
            Variant::NS => "NS",
            Variant::PO => "PO",
            Variant::FO8 => "FO/8",
            Variant::F7S => "F7S",
            Variant::F7S8 => "F7S/8",
            Variant::FR => "FR",
            Variant::N2L1D => "N2L1D",
            Variant::F2L3D => "F2L3D",
            Variant::FB => "FB",
        }
    }

    /// Parses a PHH code.
    pub fn from_code(code: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.code() == code)
    }

    /// The game dealt.
    pub fn game(self) -> Game {
        match self {
            Variant::FT | Variant::NT => Game::Holdem,
            Variant::NS => Game::ShortDeckHoldem,
            Variant::PO => Game::Omaha,
            Variant::FO8 => Game::OmahaHiLo,
            Variant::F7S => Game::Stud,
            Variant::F7S8 => Game::StudHiLo,
            Variant::FR => Game::Razz,
            Variant::N2L1D => Game::DeuceToSevenSingleDraw,
            Variant::F2L3D => Game::DeuceToSevenTripleDraw,
            Variant::FB => Game::Badugi,
        }
    }

    /// The betting structure.
    pub fn structure(self) -> Structure {
        match self {
            Variant::NT | Variant::NS | Variant::N2L1D => Structure::NoLimit,
            Variant::PO => Structure::PotLimit,
            _ => Structure::FixedLimit,
        }
    }

    /// The variant code of a game and structure, if PHH has one.
    pub fn of(game: Game, structure: Structure) -> Option<Variant> {
        Variant::ALL
            .into_iter()
            .find(|v| v.game() == game && v.structure() == structure)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}
