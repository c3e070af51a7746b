//! Reading a hand's first line, exactly as PokerStars writes it: `PokerStars Hand #N:  `,
//! a home game's club, the game and its betting structure, the stakes in the form the game
//! names them, and the date. A header that does not match one of these forms in full is
//! refused rather than read in part: a half-read header (two hands run together, a stake
//! garbled) gives stakes the writer cannot write back the same way.

use super::money::Money;
use super::parsed::ReadError;
use poker_rules::{Chips, Game, Structure};

/// What a header line says.
pub(super) struct Header {
    /// The hand's number (`#N`).
    pub(super) hand_number: u64,
    /// A home game's club (`{Club}`).
    pub(super) club: Option<String>,
    /// The game as written (`Hold'em No Limit`).
    pub(super) game_name: String,
    pub(super) game: Game,
    pub(super) structure: Structure,
    /// The unit of the hand's amounts.
    pub(super) money: Money,
    /// The two stakes: the blinds (no limit, pot limit), the small and big bets (fixed
    /// limit, stud); 6+ has no small blind in its header: `[0, button blind]`.
    pub(super) stakes: [Chips; 2],
    /// A cap game's cap (R24).
    pub(super) cap: Option<Chips>,
    /// The date as written.
    pub(super) date_text: String,
    /// The date as unix ms.
    pub(super) started_at_ms: i64,
}

/// The words before the hand number, and whether the hand is a home game's.
const PREFIXES: [(&str, bool); 4] = [
    ("PokerStars Hand #", false),
    ("PokerStars Game #", false),
    ("PokerStars Zoom Hand #", false),
    ("PokerStars Home Game Hand #", true),
];

/// The games the engine plays, as headers name them.
const GAMES: [(&str, Game); 10] = [
    ("Hold'em", Game::Holdem),
    ("6+ Hold'em", Game::ShortDeckHoldem),
    ("Omaha Hi/Lo", Game::OmahaHiLo),
    ("Omaha", Game::Omaha),
    ("7 Card Stud Hi/Lo", Game::StudHiLo),
    ("7 Card Stud", Game::Stud),
    ("Razz", Game::Razz),
    ("Single Draw 2-7 Lowball", Game::DeuceToSevenSingleDraw),
    ("Triple Draw 2-7 Lowball", Game::DeuceToSevenTripleDraw),
    ("Badugi", Game::Badugi),
];

/// The game and structure a header names (`Hold'em No Limit`), if the engine plays it.
/// 6+ is played with a button blind, which a fixed-limit game's stakes cannot name.
pub(super) fn game_of(name: &str) -> Result<(Game, Structure), ReadError> {
    let unsupported = || ReadError::UnsupportedGame(name.to_string());
    let (game, structure) = name
        .rsplit_once(" No Limit")
        .filter(|x| x.1.is_empty())
        .map(|x| (x.0, Structure::NoLimit))
        .or_else(|| {
            name.rsplit_once(" Pot Limit")
                .filter(|x| x.1.is_empty())
                .map(|x| (x.0, Structure::PotLimit))
        })
        .or_else(|| {
            name.rsplit_once(" Fixed Limit")
                .filter(|x| x.1.is_empty())
                .map(|x| (x.0, Structure::FixedLimit))
        })
        .or_else(|| {
            name.rsplit_once(" Limit")
                .filter(|x| x.1.is_empty())
                .map(|x| (x.0, Structure::FixedLimit))
        })
        .ok_or_else(unsupported)?;
    let game = GAMES
        .iter()
        .find(|(n, _)| *n == game)
        .map(|(_, g)| *g)
        .ok_or_else(unsupported)?;
    if game == Game::ShortDeckHoldem && structure == Structure::FixedLimit {
        return Err(unsupported());
    }
    // Stud is dealt at fixed limit only (a stud header names its bets, not blinds: fuzz
    // regression stud-no-limit-header).
    if matches!(game, Game::Stud | Game::StudHiLo | Game::Razz)
        && structure != Structure::FixedLimit
    {
        return Err(unsupported());
    }
    Ok((game, structure))
}

/// Reads a header line. `Err(None)`: a line not understood; `Err(Some(e))`: a hand read
/// as far as the header tells it is not one the reader takes (a tournament, a game the
/// engine does not play).
pub(super) fn read_header(line: &str) -> Result<Header, Option<ReadError>> {
    let (id, rest) = line.split_once(": ").ok_or(None)?;
    if rest.contains("Tournament #") {
        return Err(Some(ReadError::Tournament));
    }
    let (number, home) = PREFIXES
        .iter()
        .find_map(|(p, home)| id.strip_prefix(p).map(|n| (n, *home)))
        .ok_or(None)?;
    let hand_number = plain_number(number).ok_or(None)?;
    // One space after the colon, or two as PokerStars writes its newer hands.
    let rest = rest.strip_prefix(' ').unwrap_or(rest);
    let (club, rest) = match (home, rest.strip_prefix('{')) {
        (true, Some(r)) => {
            let (club, r) = r.split_once('}').ok_or(None)?;
            let r = r.strip_prefix(' ').ok_or(None)?;
            let r = r.strip_prefix(' ').unwrap_or(r);
            if club.is_empty() || club.chars().any(char::is_control) {
                return Err(None);
            }
            (Some(club.to_string()), r)
        }
        (false, None) => (None, rest),
        _ => return Err(None),
    };
    let (game_name, rest) = rest.split_once(" (").ok_or(None)?;
    let (game, structure) = game_of(game_name).map_err(Some)?;
    let (stakes_text, date_text) = rest.split_once(") - ").ok_or(None)?;
    let started_at_ms = super::time::parse(date_text).ok_or(None)?;
    let (money, stakes, cap) = if game == Game::ShortDeckHoldem {
        let (money, button) = button_blind(stakes_text).ok_or(None)?;
        (money, [0, button], None)
    } else {
        blinds(stakes_text).ok_or(None)?
    };
    // A cap is a no-limit or pot-limit game's (R24); a fixed-limit header names none
    // (fuzz regression fixed-limit-header-with-a-cap).
    if cap.is_some() && structure == Structure::FixedLimit {
        return Err(None);
    }
    Ok(Header {
        hand_number,
        club,
        game_name: game_name.to_string(),
        game,
        structure,
        money,
        stakes,
        cap,
        date_text: date_text.to_string(),
        started_at_ms,
    })
}

/// A number as written: digits without a leading zero.
pub(super) fn plain_number(text: &str) -> Option<u64> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    (digits && (text == "0" || !text.starts_with('0')))
        .then(|| text.parse().ok())
        .flatten()
}

/// The unit of a stake as written: a currency sign starts it, chips have none.
fn unit_of(amount: &str) -> Money {
    match super::money::SIGNS.iter().find(|s| amount.starts_with(*s)) {
        Some(sign) => Money::Cash {
            sign: sign.to_string(),
            code: None,
        },
        None => Money::Chips,
    }
}

/// The currency code after the stakes (` USD`): three capital letters, real money only.
fn with_code(money: Money, code: &str) -> Option<Money> {
    if code.is_empty() {
        return Some(money);
    }
    let valid = code.len() == 3 && code.bytes().all(|b| b.is_ascii_uppercase());
    match money {
        Money::Cash { sign, .. } if valid => Some(Money::Cash {
            sign,
            code: Some(code.to_string()),
        }),
        _ => None,
    }
}

/// `Button Blind $5 - Ante $5  USD` (one space or two before the code, as PokerStars
/// has written both): the unit and the button blind.
fn button_blind(text: &str) -> Option<(Money, Chips)> {
    let rest = text.strip_prefix("Button Blind ")?;
    let (button, rest) = rest.split_once(" - Ante ")?;
    let money = unit_of(button);
    let (ante, code) = match rest.split_once(' ') {
        Some((ante, code)) => (ante, code.strip_prefix(' ').unwrap_or(code)),
        None => (rest, ""),
    };
    let money = with_code(money, code)?;
    let button = money.parse(button).filter(|&b| b > 0)?;
    money.parse(ante)?;
    Some((money, button))
}

/// `$0.25/$0.50 USD`, `25/50`, or a cap game's `$1/$2 - $40 Cap -  USD`: the unit, the
/// two stakes (the second above the first) and the cap.
fn blinds(text: &str) -> Option<(Money, [Chips; 2], Option<Chips>)> {
    let (small, rest) = text.split_once('/')?;
    let money = unit_of(small);
    let (big, cap, code) = match rest.split_once(" - ") {
        Some((big, capped)) => {
            let (cap, code) = capped.split_once(" Cap - ")?;
            let code = match code {
                "" => "",
                c => c.strip_prefix(' ')?,
            };
            (big, Some(cap), code)
        }
        None => match rest.split_once(' ') {
            Some((big, code)) => (big, None, code),
            None => (rest, None, ""),
        },
    };
    let money = with_code(money, code)?;
    // The small stake is below the big one (a small blind as big as the big blind
    // would be a second big blind); it is 0 only in a header written for a one-chip
    // big blind with no small blind posted.
    let small = money.parse(small)?;
    let big = money.parse(big).filter(|&b| b > small)?;
    let cap = match cap {
        Some(c) => Some(money.parse(c).filter(|&c| c > 0)?),
        None => None,
    };
    Some((money, [small, big], cap))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_read_only_in_the_forms_pokerstars_writes() {
        let h = read_header(
            "PokerStars Hand #12:  Hold'em No Limit ($0.25/$0.50 USD) - 2026/11/22 6:40:00 ET",
        )
        .expect("read");
        assert_eq!((h.hand_number, h.stakes, h.cap), (12, [25, 50], None));
        let h = read_header(
            "PokerStars Hand #12:  Hold'em No Limit ($1/$2 - $40 Cap -  USD) - 2026/11/22 6:40:00 ET",
        )
        .expect("read");
        assert_eq!((h.stakes, h.cap), ([100, 200], Some(4000)));
        let h = read_header(
            "PokerStars Hand #1: 6+ Hold'em No Limit (Button Blind $5 - Ante $5 USD) - 2026/11/22 6:40:00 ET",
        )
        .expect("read");
        assert_eq!(h.stakes, [0, 500]);
        let h = read_header(
            "PokerStars Home Game Hand #7: {chip}  Hold'em No Limit (1/2) - 2026/11/22 6:40:00 ET",
        )
        .expect("read");
        assert_eq!(h.club.as_deref(), Some("chip"));
        for bad in [
            // A garbled button blind.
            "PokerStars Hand #1:  6+ Hold'em No Limit (Button Bl0fd1 i - Ante 5) - 2026/11/22 6:43:00 ET",
            // Two headers run together.
            "PokerStars Hand #1:  6+ Hold'em No Limit (Button Blind 10 - AntPokerStars Hand #2:  Omaha Hi/Lo Pot Limit (5/11) - 2026/11/22 11:44:00 ET",
            // Leading zeros, an invalid date, a code on chips, a club outside a home game.
            "PokerStars Hand #1:  Hold'em No Limit (05/10) - 2026/11/22 6:43:00 ET",
            "PokerStars Hand #01:  Hold'em No Limit (5/10) - 2026/11/22 6:43:00 ET",
            "PokerStars Hand #1:  Hold'em No Limit (5/10) - 2026/:1/22 6:43:00 ET",
            "PokerStars Hand #1:  Hold'em No Limit (5/10) - 2026/02/30 6:43:00 ET",
            "PokerStars Hand #1:  Hold'em No Limit (5/10 USD) - 2026/11/22 6:43:00 ET",
            "PokerStars Hand #1: {Club}  Hold'em No Limit (5/10) - 2026/11/22 6:43:00 ET",
            "PokerStars Hand #1:  Hold'em No Limit (10/5) - 2026/11/22 6:43:00 ET",
            "PokerStars Hand #1:  Hold'em No Limit (5/5) - 2026/11/22 6:43:00 ET",
        ] {
            assert!(matches!(read_header(bad), Err(None)), "{bad}");
        }
        assert!(matches!(
            read_header("PokerStars Hand #1:  6+ Hold'em Limit (Button Blind 5 - Ante 5) - 2026/11/22 6:43:00 ET"),
            Err(Some(ReadError::UnsupportedGame(_)))
        ));
    }
}
