//! Reading PokerStars cash-game hand histories into the engine's hand records.
//!
//! A hand is read line by line into who sits where with what, the forced bets, each
//! player's actions and the cards the text reveals (the viewer's `Dealt to` cards, stud
//! up cards, the board, hands shown). It is then played through the engine, which deals
//! the known cards and unknown ones (`??`) where the text hides them, and asks for each
//! action in its own order: a hand the engine would play differently is refused, saying
//! which line. The pots collected and the rake written in the text are checked against
//! the engine's (the rake is taken from the text: PokerStars' rake schedule is its own).
//!
//! Only cash games of the variants the engine plays are read; tournaments, other games
//! and hands the text leaves unfinished are typed errors, so an import can count them.

use super::money::Money;
use crate::phh::PhhHand;
use poker_rules::table::{Post, PostKind};
use poker_rules::{Action, BlindKind, Card, Cards, Chips, Game, Structure};
use std::collections::{BTreeMap, VecDeque};

/// One hand read from PokerStars text: the engine's record (PHH) and what the PokerStars
/// writer needs besides it to write the hand again.
#[derive(Clone, Debug)]
pub struct ImportedHand {
    /// The hand's number (`PokerStars Hand #N`).
    pub hand_number: u64,
    /// The game as the header names it (`Hold'em No Limit`).
    pub game_name: String,
    /// The table's name.
    pub table_name: String,
    /// A home game's club, which its header names (`{chipchipchip}`).
    pub club: Option<String>,
    /// The header's date text, as written.
    pub date_text: String,
    /// The hand's start (unix ms) from the header's Eastern time, if it has one.
    pub started_at_ms: Option<i64>,
    /// Player names in hand order (first left of the button; stud: by seat).
    pub players: Vec<String>,
    /// Seat numbers (1-based) in hand order.
    pub seats: Vec<u32>,
    /// Seats at the table (`6-max`).
    pub seat_count: u32,
    /// The button's seat, for games with a button.
    pub button_seat: Option<u32>,
    /// The player whose hole cards the text shows (`Dealt to`), hand index.
    pub viewer: Option<usize>,
    /// Real money (amounts in cents of `Money`) or play chips.
    pub money: Money,
    /// Whether the table line says `(Play Money)`.
    pub play_money: bool,
    /// The table's forced bets by table seat (0-based), for the writer's post names.
    pub posts: Vec<Post>,
    /// The engine's record of the hand.
    pub phh: PhhHand,
    /// The rake the text states, in the hand's units.
    pub rake: Chips,
    /// The hand's text as read.
    pub text: String,
}

/// Why a hand could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// A tournament hand: only cash games are read.
    #[error("tournament hands are not read (cash games only)")]
    Tournament,
    /// Not a PokerStars hand.
    #[error("not a PokerStars hand: {0:?}")]
    NotPokerStars(String),
    /// A game the engine does not play (5 card draw, Courchevel, 5-card Omaha...).
    #[error("game not played by the engine: {0}")]
    UnsupportedGame(String),
    /// A line that could not be understood.
    #[error("line {line}: cannot read {text:?}")]
    Line {
        /// 1-based line number within the hand.
        line: usize,
        /// The line.
        text: String,
    },
    /// The engine refused the hand as written.
    #[error("line {line}: the engine refuses {text:?}: {reason}")]
    Refused {
        /// 1-based line number within the hand (0: at the end).
        line: usize,
        /// The line.
        text: String,
        /// The engine's reason.
        reason: String,
    },
    /// The hand ends before the engine's hand does (cancelled, or cut off).
    #[error("the hand is unfinished: {0}")]
    Unfinished(String),
    /// The engine's outcome differs from the text's.
    #[error("the engine disagrees: {0}")]
    Disagrees(String),
}

/// Splits a file into the text of each hand (BOM and blank lines dropped, CRLF and a
/// lone CR read as LF). A hand has no blank line of its own (blank lines separate
/// hands), so a copy whose line ends were doubled, or made old Mac CRs, still reads.
pub fn split(text: &str) -> Vec<String> {
    let text = text
        .replace("\r\n", "\n")
        .replace('\r', "\n")
        .replace('\u{feff}', "");
    let mut hands: Vec<String> = Vec::new();
    for line in text.lines() {
        if is_header(line) {
            hands.push(String::new());
        }
        if line.trim().is_empty() {
            continue;
        }
        if let Some(h) = hands.last_mut() {
            h.push_str(line);
            h.push('\n');
        }
    }
    hands
}

fn is_header(line: &str) -> bool {
    line.starts_with("PokerStars ") && line.contains(" #") && line.contains(": ")
}

/// Reads every hand of a file; the first hand that cannot be read is the error.
pub fn read(text: &str) -> Result<Vec<ImportedHand>, ReadError> {
    split(text).iter().map(|h| read_hand(h)).collect()
}

/// The game and structure a header names, if the engine plays it.
fn game_of(name: &str) -> Result<(Game, Structure), ReadError> {
    let unsupported = || ReadError::UnsupportedGame(name.to_string());
    let (game, limit) = [
        ("Hold'em ", Game::Holdem),
        ("6+ Hold'em ", Game::ShortDeckHoldem),
        ("Omaha Hi/Lo ", Game::OmahaHiLo),
        ("Omaha ", Game::Omaha),
        ("7 Card Stud Hi/Lo ", Game::StudHiLo),
        ("7 Card Stud ", Game::Stud),
        ("Razz ", Game::Razz),
        ("Single Draw 2-7 Lowball ", Game::DeuceToSevenSingleDraw),
        ("Triple Draw 2-7 Lowball ", Game::DeuceToSevenTripleDraw),
        ("Badugi ", Game::Badugi),
    ]
    .iter()
    .find_map(|(p, g)| name.strip_prefix(p).map(|rest| (*g, rest)))
    .ok_or_else(unsupported)?;
    let structure = match limit {
        "No Limit" => Structure::NoLimit,
        "Pot Limit" => Structure::PotLimit,
        "Limit" | "Fixed Limit" => Structure::FixedLimit,
        _ => return Err(unsupported()),
    };
    Ok((game, structure))
}

/// The last `[...]` group of a line, as cards.
fn last_group(text: &str) -> Option<Vec<Card>> {
    let open = text.rfind('[')?;
    let close = open + text[open..].find(']')?;
    Card::parse_many(&text[open + 1..close].replace(' ', "")).ok()
}

/// A player's action as the text writes it.
#[derive(Clone, Debug)]
pub(super) enum Act {
    Play(Action),
    Show(Vec<Card>),
    Muck,
}

pub(super) struct Seat {
    pub(super) number: u32,
    pub(super) name: String,
    pub(super) stack: Chips,
    pub(super) dealt: bool,
}

/// Everything the text says, before the engine plays it.
#[derive(Default)]
pub(super) struct Parsed {
    pub(super) seats: Vec<Seat>,
    pub(super) button: Option<u32>,
    pub(super) seat_count: u32,
    pub(super) table: String,
    pub(super) play_money: bool,
    /// (line number, seat index, action).
    pub(super) acts: Vec<(usize, usize, Act)>,
    pub(super) antes: BTreeMap<usize, Chips>,
    pub(super) blinds: BTreeMap<usize, (Chips, BlindKind)>,
    pub(super) posts: Vec<Post>,
    pub(super) holes: BTreeMap<usize, VecDeque<Card>>,
    pub(super) viewer: Option<usize>,
    pub(super) board: VecDeque<Card>,
    pub(super) board2: VecDeque<Card>,
    pub(super) run_twice: bool,
    pub(super) collected: BTreeMap<usize, Chips>,
    pub(super) total: Option<Chips>,
    /// The pots the summary names, after the rake (`Main pot 30. Side pot-1 7.`): the
    /// main pot, then each side pot; empty when there is one pot.
    pub(super) pots: Vec<Chips>,
    pub(super) rake: Chips,
    pub(super) bring_in: Option<Chips>,
    /// Winners who said they do not show (`doesn't show hand`), by seat index.
    pub(super) no_show: Vec<usize>,
    /// Hands the summary names as mucked (`mucked [Ah Kh]`), by seat index.
    pub(super) mucked: BTreeMap<usize, Vec<Card>>,
}

/// Reads one hand (as [`split`] cuts them).
pub fn read_hand(text: &str) -> Result<ImportedHand, ReadError> {
    let lines: Vec<&str> = text.lines().collect();
    let header = lines.first().copied().unwrap_or("");
    if !is_header(header) {
        return Err(ReadError::NotPokerStars(header.chars().take(60).collect()));
    }
    let bad = |i: usize| ReadError::Line {
        line: i + 1,
        text: lines.get(i).copied().unwrap_or("").to_string(),
    };
    let (id, rest) = header.split_once(": ").ok_or_else(|| bad(0))?;
    if rest.contains("Tournament #") {
        return Err(ReadError::Tournament);
    }
    let hand_number: u64 = id
        .rsplit('#')
        .next()
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| bad(0))?;
    let rest = rest.trim_start();
    // Home games name their club first: `{Club} Hold'em No Limit (1/2)`.
    let (club, rest) = match rest.strip_prefix('{') {
        Some(r) => r
            .split_once("} ")
            .map(|x| (Some(x.0.to_string()), x.1.trim_start()))
            .ok_or_else(|| bad(0))?,
        None => (None, rest),
    };
    let open = rest.find(" (").ok_or_else(|| bad(0))?;
    let game_name = rest[..open].to_string();
    let (game, structure) = game_of(&game_name)?;
    let close = rest.find(") - ").ok_or_else(|| bad(0))?;
    let stakes_text = &rest[open + 2..close];
    let date_text = rest[close + 4..].to_string();
    let money = Money::of_stakes(stakes_text);
    // A cap game names its cap (R24): `$0.25/$0.50 - $10 Cap -  USD`.
    let cap = stakes_text
        .split(" - ")
        .find_map(|part| part.strip_suffix(" Cap"))
        .and_then(|a| money.parse(a));
    // The two stakes: blinds (no limit, pot limit), bets (fixed limit, stud).
    let stakes: Vec<Chips> = stakes_text
        .split(['/', ' '])
        .filter_map(|w| money.parse(w))
        .collect();
    let mut p = Parsed::default();
    let mut li = 1;
    // Table line.
    let table_line = lines.get(li).copied().unwrap_or("");
    let after = table_line.strip_prefix("Table '").ok_or_else(|| bad(li))?;
    let q = after.rfind("' ").ok_or_else(|| bad(li))?;
    p.table = after[..q].to_string();
    let tail = &after[q + 2..];
    p.seat_count = tail
        .split(['-', ' '])
        .next()
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| bad(li))?;
    p.play_money = tail.contains("(Play Money)");
    p.button = tail
        .split("Seat #")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok());
    li += 1;
    while let Some(line) = lines.get(li).and_then(|l| l.strip_prefix("Seat ")) {
        let Some((num, rest)) = line.split_once(": ") else {
            break;
        };
        let Ok(number) = num.parse::<u32>() else {
            break;
        };
        // Seats are numbered from 1 (a `Seat 0` would have no table seat).
        if number == 0 {
            return Err(bad(li));
        }
        let open = rest.rfind(" (").ok_or_else(|| bad(li))?;
        let chips = rest[open + 2..]
            .split(" in chips")
            .next()
            .and_then(|a| money.parse(a))
            .ok_or_else(|| bad(li))?;
        let dealt = !rest.ends_with("is sitting out") && !rest.contains("out of hand");
        p.seats.push(Seat {
            number,
            name: rest[..open].to_string(),
            stack: chips,
            dealt,
        });
        li += 1;
    }
    if p.seats.is_empty() {
        return Err(bad(li.min(lines.len() - 1)));
    }
    // Longest names first, so `Bob 2: calls` is not read as `Bob`'s.
    let mut by_len: Vec<usize> = (0..p.seats.len()).collect();
    by_len.sort_by_key(|&i| std::cmp::Reverse(p.seats[i].name.len()));
    let seat_names: Vec<String> = p.seats.iter().map(|s| s.name.clone()).collect();
    let who = |line: &str, sep: &str| -> Option<(usize, String)> {
        by_len.iter().find_map(|&i| {
            line.strip_prefix(seat_names[i].as_str())
                .and_then(|r| r.strip_prefix(sep))
                .map(|r| (i, r.to_string()))
        })
    };
    let family_stud = matches!(game, Game::Stud | Game::StudHiLo | Game::Razz);
    let draw = game.is_draw();
    let mut in_summary = false;
    let mut second_run = false;
    let mut first_dealt: BTreeMap<usize, bool> = BTreeMap::new();
    for (i, &line) in lines.iter().enumerate().skip(li) {
        let line = line.trim_end();
        // The amount is the first word: `2 and is all-in`, `$10 and has reached the
        // $10 cap`. A post, bet or raise of nothing is no line PokerStars writes.
        let amount = |w: &str| {
            money
                .parse(w.split(' ').next().unwrap_or(""))
                .filter(|&a| a > 0)
        };
        if in_summary {
            if let Some(t) = line.strip_prefix("Total pot ") {
                p.total = t.split([' ', '|']).next().and_then(|a| money.parse(a));
                // `Main pot $30.37. Side pot-1 $7.91. | Rake...`: each pot's amount is
                // the word after its name, with the full stop dropped.
                let pots = t.split('|').next().unwrap_or("");
                let words: Vec<&str> = pots.split(' ').collect();
                p.pots = words
                    .windows(2)
                    .filter(|w| w[0] == "pot" || w[0].starts_with("pot-"))
                    .map(|w| money.parse(w[1].trim_end_matches('.')))
                    .collect::<Option<Vec<Chips>>>()
                    .ok_or_else(|| bad(i))?;
                p.rake = t
                    .split("| Rake ")
                    .nth(1)
                    .and_then(|r| r.split(' ').next())
                    .and_then(|a| money.parse(a))
                    .ok_or_else(|| bad(i))?;
            } else if let Some(seat_line) = line.strip_prefix("Seat ") {
                let seat_line = seat_line.split_once(": ").map_or("", |x| x.1);
                if let (Some((s, rest)), true) =
                    (who(seat_line, " "), seat_line.contains(" mucked ["))
                {
                    let at = rest.find("mucked [").unwrap_or(0);
                    let cards = last_group_first(&rest[at..]);
                    p.mucked.insert(s, cards.ok_or_else(|| bad(i))?);
                }
            }
            continue;
        }
        if let Some(street) = line.strip_prefix("*** ") {
            if street.starts_with("SUMMARY") {
                in_summary = true;
            } else if street.starts_with("SECOND ") && !street.starts_with("SECOND DRAW") {
                second_run = true;
                p.run_twice = true;
            }
            let board_street = ["FLOP", "TURN", "RIVER"]
                .iter()
                .any(|s| street.contains(&format!("{s} ***")));
            if board_street && !family_stud {
                let cards = last_group(line).ok_or_else(|| bad(i))?;
                let queue = if second_run {
                    &mut p.board2
                } else {
                    &mut p.board
                };
                // A second run repeats the streets it shares with the first.
                if !(second_run && street.starts_with("FLOP")) {
                    queue.extend(cards);
                }
            } else if street.starts_with("FIRST ") && !street.starts_with("FIRST DRAW") {
                p.run_twice = true;
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("Dealt to ") {
            let (s, cards_text) = who(rest, " ").ok_or_else(|| bad(i))?;
            let new = last_group(&cards_text).ok_or_else(|| bad(i))?;
            let groups = cards_text.matches('[').count();
            let queue = p.holes.entry(s).or_default();
            let first = !first_dealt.contains_key(&s);
            first_dealt.insert(s, true);
            if family_stud {
                // A down card's owner sees it; others see only up cards (3rd street:
                // one up card after two down).
                if first && new.len() == 1 {
                    queue.extend([Card::UNKNOWN, Card::UNKNOWN]);
                } else if first {
                    p.viewer = Some(s);
                }
                queue.extend(new);
            } else if draw && !first && groups == 2 {
                queue.extend(new);
            } else if first {
                p.viewer = Some(s);
                queue.extend(new);
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("Uncalled bet (") {
            let _ = rest;
            continue;
        }
        if let Some((s, rest)) = who(line, " collected ") {
            let a = rest.split(" from").next().and_then(|a| money.parse(a));
            *p.collected.entry(s).or_default() += a.ok_or_else(|| bad(i))?;
            continue;
        }
        let Some((s, rest)) = who(line, ": ") else {
            // Table talk (joins, leaves, disconnects, chat, time outs) is not the hand's.
            continue;
        };
        let push = |p: &mut Parsed, act: Act| p.acts.push((i, s, act));
        if let Some(a) = rest.strip_prefix("posts the ante ") {
            *p.antes.entry(s).or_default() += amount(a).ok_or_else(|| bad(i))?;
        } else if let Some(a) = rest.strip_prefix("posts small & big blinds ") {
            let total = amount(a).ok_or_else(|| bad(i))?;
            let big = stakes.get(1).copied().unwrap_or(total);
            let big = if structure == Structure::FixedLimit {
                p.blinds.values().map(|b| b.0).max().unwrap_or(big)
            } else {
                big
            };
            let dead = total.saturating_sub(big);
            *p.antes.entry(s).or_default() += dead;
            p.blinds.insert(s, (big, BlindKind::Post));
            let seat = p.seats[s].number as usize - 1;
            p.posts.push(post(seat, PostKind::MissedSmall, dead, false));
            p.posts.push(post(seat, PostKind::MissedBig, big, true));
        } else if let Some(a) = rest.strip_prefix("posts small blind ") {
            let x = amount(a).ok_or_else(|| bad(i))?;
            let seat = p.seats[s].number as usize - 1;
            let has_small = p.posts.iter().any(|q| q.kind == PostKind::SmallBlind);
            if !has_small {
                p.blinds.insert(s, (x, BlindKind::Blind));
                p.posts.push(post(seat, PostKind::SmallBlind, x, true));
            } else {
                // A second small blind: a returning player's dead small blind.
                *p.antes.entry(s).or_default() += x;
                p.posts.push(post(seat, PostKind::MissedSmall, x, false));
            }
        } else if let Some(a) = rest.strip_prefix("posts big blind ") {
            let x = amount(a).ok_or_else(|| bad(i))?;
            let seat = p.seats[s].number as usize - 1;
            let has_big = p.posts.iter().any(|q| q.kind == PostKind::BigBlind);
            if has_big {
                p.blinds.insert(s, (x, BlindKind::Post));
                p.posts.push(post(seat, PostKind::NewPlayer, x, true));
            } else {
                p.blinds.insert(s, (x, BlindKind::Blind));
                p.posts.push(post(seat, PostKind::BigBlind, x, true));
            }
        } else if let Some(a) = rest.strip_prefix("posts button blind ") {
            let x = amount(a).ok_or_else(|| bad(i))?;
            p.blinds.insert(s, (x, BlindKind::Blind));
        } else if let Some(a) = rest.strip_prefix("posts straddle ") {
            let x = amount(a).ok_or_else(|| bad(i))?;
            let seat = p.seats[s].number as usize - 1;
            p.blinds.insert(s, (x, BlindKind::Straddle));
            p.posts.push(post(seat, PostKind::Straddle, x, true));
        } else if let Some(a) = rest.strip_prefix("brings in for ") {
            p.bring_in = Some(amount(a).ok_or_else(|| bad(i))?);
            push(&mut p, Act::Play(Action::BringIn));
        } else if rest == "folds" {
            push(&mut p, Act::Play(Action::Fold));
        } else if rest == "checks" {
            push(&mut p, Act::Play(Action::Check));
        } else if rest.starts_with("calls ") {
            push(&mut p, Act::Play(Action::Call));
        } else if let Some(a) = rest.strip_prefix("bets ") {
            let to = amount(a).ok_or_else(|| bad(i))?;
            push(&mut p, Act::Play(Action::BetOrRaiseTo { to }));
        } else if let Some(a) = rest
            .strip_prefix("raises ")
            .and_then(|r| r.split(" to ").nth(1))
            .or_else(|| rest.strip_prefix("completes it to "))
        {
            let to = amount(a).ok_or_else(|| bad(i))?;
            push(&mut p, Act::Play(Action::BetOrRaiseTo { to }));
        } else if rest.starts_with("discards ") {
            // The viewer's discards are named; others' are so many unknown cards.
            let n: usize = rest
                .split(' ')
                .nth(1)
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| bad(i))?;
            let cards = if rest.contains('[') {
                last_group(&rest).ok_or_else(|| bad(i))?
            } else {
                vec![Card::UNKNOWN; n]
            };
            let discards = Cards::from_slice(&cards).ok_or_else(|| bad(i))?;
            push(&mut p, Act::Play(Action::Draw { discards }));
        } else if rest.starts_with("stands pat") {
            push(
                &mut p,
                Act::Play(Action::Draw {
                    discards: Cards::new(),
                }),
            );
        } else if rest.starts_with("shows [") {
            push(
                &mut p,
                Act::Show(last_group_first(&rest).ok_or_else(|| bad(i))?),
            );
        } else if rest == "mucks hand" {
            push(&mut p, Act::Muck);
        } else if rest == "doesn't show hand" {
            p.no_show.push(s);
        } else {
            // `doesn't show hand`, `is sitting out`, `sits out`, chat: nothing the
            // engine plays.
            continue;
        }
    }
    let bring_in = p.bring_in;
    super::engine::play(
        super::engine::PlayInput {
            hand_number,
            game_name,
            date_text,
            game,
            structure,
            stakes,
            cap,
            club,
            money,
            bring_in,
            text,
            lines: &lines,
        },
        p,
    )
}

/// The first `[...]` group of a line, as cards (a shown hand, before its description).
pub(super) fn last_group_first(text: &str) -> Option<Vec<Card>> {
    let open = text.find('[')?;
    let close = open + text[open..].find(']')?;
    Card::parse_many(&text[open + 1..close].replace(' ', "")).ok()
}

fn post(seat: usize, kind: PostKind, amount: Chips, live: bool) -> Post {
    Post {
        seat,
        kind,
        amount,
        live,
    }
}
