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
use super::parsed::{Act, Parsed, Seat};
pub use super::parsed::{ImportedHand, ReadError};
use super::read_header::plain_number;
use poker_rules::table::{Post, PostKind};
use poker_rules::{Action, BlindKind, Card, Cards, Chips, Game, Structure};
use std::collections::BTreeMap;

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

/// The last `[...]` group of a line, as cards.
fn last_group(text: &str) -> Option<Vec<Card>> {
    let open = text.rfind('[')?;
    let close = open + text[open..].find(']')?;
    Card::parse_many(&text[open + 1..close].replace(' ', "")).ok()
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
    let super::read_header::Header {
        hand_number,
        club,
        game_name,
        game,
        structure,
        money,
        stakes,
        cap,
        date_text,
        started_at_ms,
    } = super::read_header::read_header(header).map_err(|e| e.unwrap_or_else(|| bad(0)))?;
    let mut p = Parsed::default();
    let mut li = 1;
    // Table line: `Table 'Name' 6-max[ (Play Money)][ Seat #3 is the button]`.
    let table_line = lines.get(li).copied().unwrap_or("").trim_end();
    let after = table_line.strip_prefix("Table '").ok_or_else(|| bad(li))?;
    let (table, tail) = after.rsplit_once("' ").ok_or_else(|| bad(li))?;
    let (max, tail) = tail.split_once("-max").ok_or_else(|| bad(li))?;
    p.table = printable_name(table).ok_or_else(|| bad(li))?;
    p.seat_count = plain_number(max)
        .and_then(|n| u32::try_from(n).ok())
        .filter(|&n| n >= 2)
        .ok_or_else(|| bad(li))?;
    let tail = match tail.strip_prefix(" (Play Money)") {
        Some(t) => {
            p.play_money = true;
            t
        }
        None => tail,
    };
    p.button = match tail {
        "" => None,
        t => Some(
            t.strip_prefix(" Seat #")
                .and_then(|t| t.strip_suffix(" is the button"))
                .and_then(plain_number)
                .and_then(|n| u32::try_from(n).ok())
                .filter(|n| (1..=p.seat_count).contains(n))
                .ok_or_else(|| bad(li))?,
        ),
    };
    li += 1;
    // Seat lines: `Seat 2: Name ($10 in chips)`, then perhaps ` is sitting out` or
    // ` out of hand (...)`.
    while let Some(line) = lines.get(li).and_then(|l| l.strip_prefix("Seat ")) {
        // A player named `Seat 9` posting right after the seat lines: their line, not a
        // seat's (fuzz regression player-named-seat-n-read-as-a-seat-line).
        let full = lines[li];
        let a_players_line = p.seats.iter().any(|s| {
            full.strip_prefix(s.name.as_str())
                .and_then(|r| r.strip_prefix(": "))
                .is_some_and(|r| ACTIONS.iter().any(|a| r.starts_with(a)))
        });
        if a_players_line {
            break;
        }
        let Some((num, rest)) = line.split_once(": ") else {
            break;
        };
        let Some(number) = plain_number(num) else {
            break;
        };
        let (left, after) = rest.rsplit_once(" in chips)").ok_or_else(|| bad(li))?;
        let (name, chips) = left.rsplit_once(" (").ok_or_else(|| bad(li))?;
        let after = after.trim_end();
        let dealt = match after {
            "" => true,
            " is sitting out" => false,
            a if a.starts_with(" out of hand") => false,
            _ => return Err(bad(li)),
        };
        let name = printable_name(name).ok_or_else(|| bad(li))?;
        // Seats are numbered from 1 to the table's size, each once (a `Seat 0` would
        // have no table seat), and each name is one player's.
        let number = u32::try_from(number)
            .ok()
            .filter(|n| (1..=p.seat_count).contains(n))
            .filter(|n| p.seats.iter().all(|s| s.number != *n && s.name != name))
            .ok_or_else(|| bad(li))?;
        let stack = money.parse(chips).ok_or_else(|| bad(li))?;
        p.seats.push(Seat {
            number,
            name,
            stack,
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
    let fixed = structure == Structure::FixedLimit;
    let forced = Forced {
        money: money.clone(),
        // Fixed limit: the big blind is the small bet, the small blind not named.
        small: (!fixed && game != Game::ShortDeckHoldem).then_some(stakes[0]),
        big: if fixed { stakes[0] } else { stakes[1] },
        button_blind: game == Game::ShortDeckHoldem,
    };
    let mut in_summary = false;
    let mut second_run = false;
    // Each seat dealt to so far: the stud street of its last `Dealt to` line and the
    // cards its lines showed.
    let mut dealt: BTreeMap<usize, (usize, Vec<Card>)> = BTreeMap::new();
    // Stud's streets begun (`*** 3rd STREET ***` is 1).
    let mut stud_street = 0usize;
    // The first small blind's line: a small blind needs a big blind (else the writer
    // would name it the big blind).
    let mut small_line = None;
    let mut all_in_bring_in = None;
    // The blinds posted for less than named (all in), by line and seat.
    let mut posts_for_less: Vec<(usize, usize)> = Vec::new();
    for (i, &line) in lines.iter().enumerate().skip(li) {
        let line = line.trim_end();
        // A bet's amount, alone or with how it ends (`2 and is all-in`, `$10 and has
        // reached the $10 cap`). A bet or raise of nothing is no line PokerStars writes.
        let amount = |w: &str| {
            let w = w.strip_suffix(" and is all-in").unwrap_or(w);
            let w = match (w.split_once(" and has reached the "), cap) {
                (Some((a, reached)), Some(c)) => {
                    (money.parse(reached.strip_suffix(" cap")?) == Some(c)).then_some(a)?
                }
                (Some(_), None) => return None,
                (None, _) => w,
            };
            money.parse(w).filter(|&a| a > 0)
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
                let (number, seat_line) = seat_line.split_once(": ").unwrap_or(("", ""));
                // The seat the line's number names (not the longest name the line starts
                // with: `X (button) mucked` is X's on the button, fuzz regression
                // summary-line-credited-to-a-name-ending-button), then `mucked [` after
                // its player's name (a name may hold those words).
                let seat = plain_number(number)
                    .and_then(|n| p.seats.iter().position(|seat| u64::from(seat.number) == n));
                let mucked = seat.and_then(|s| {
                    let rest = seat_line
                        .strip_prefix(seat_names[s].as_str())?
                        .strip_prefix(' ')?;
                    Some((s, rest[rest.find("mucked [")?..].to_string()))
                });
                if let Some((s, rest)) = mucked {
                    let cards = last_group_first(&rest);
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
            if ["3rd", "4th", "5th", "6th", "RIVER"]
                .iter()
                .any(|s| street.starts_with(&format!("{s} ")))
            {
                stud_street += 1;
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
            // The names after which the line is card groups only, longest first (a name
            // may hold `[Ah`: fuzz regression dealt-to-a-name-holding-a-card-group).
            let candidates: Vec<(usize, String)> = by_len
                .iter()
                .filter_map(|&k| {
                    let r = rest
                        .strip_prefix(seat_names[k].as_str())?
                        .strip_prefix(' ')?;
                    let groups = r.trim();
                    (groups.starts_with('[') && groups.ends_with(']') && last_group(r).is_some())
                        .then(|| (k, r.to_string()))
                })
                .collect();
            // Of those, the longest whose line fits where the hand is, else the longest:
            // a seat's first line is one group, dealt before anyone acts (stud: on 3rd
            // street); a later one is two, the first the cards it showed before (stud:
            // one line a street), or in a draw the cards kept right after its discard.
            // `Dealt to B [7c] [8d]` is B's 4th street, not the first line of a seat
            // named `B [7c]` (fuzz regression stud-dealt-to-a-name-holding-an-up-card).
            let fits = |k: usize, r: &str| {
                let groups = r.matches('[').count();
                let before = r.find(']').and_then(|end| last_group(&r[..=end]));
                match (dealt.get(&k), family_stud) {
                    (None, true) => groups == 1 && stud_street <= 1,
                    (Some((street, shown)), true) => {
                        groups == 2 && *street < stud_street && before.as_ref() == Some(shown)
                    }
                    (None, false) => groups == 1 && p.acts.is_empty(),
                    (Some(_), false) => {
                        draw && groups == 2
                            && matches!(p.acts.last(),
                                Some((_, who, Act::Play(Action::Draw { .. }))) if *who == k)
                    }
                }
            };
            let (s, cards_text) = candidates
                .iter()
                .find(|(k, r)| fits(*k, r))
                .or(candidates.first())
                .cloned()
                .ok_or_else(|| bad(i))?;
            let new = last_group(&cards_text).ok_or_else(|| bad(i))?;
            let groups = cards_text.matches('[').count();
            let queue = p.holes.entry(s).or_default();
            let first = !dealt.contains_key(&s);
            let seen = dealt.entry(s).or_insert((stud_street, Vec::new()));
            seen.0 = stud_street;
            seen.1.extend(new.iter().copied());
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
            let total = p.collected.entry(s).or_default();
            *total = a.and_then(|a| total.checked_add(a)).ok_or_else(|| bad(i))?;
            continue;
        }
        // The longest name followed by an action the reader knows, else the longest name
        // (a shown hand's `(HI: ...` made `A: shows [..] (HI` a longer name than `A`:
        // fuzz regression shown-hand-description-read-as-a-name).
        let acting = by_len.iter().find_map(|&k| {
            let r = line
                .strip_prefix(seat_names[k].as_str())?
                .strip_prefix(": ")?;
            ACTIONS
                .iter()
                .any(|a| r.starts_with(a))
                .then(|| (k, r.to_string()))
        });
        let Some((s, rest)) = acting.or_else(|| who(line, ": ")) else {
            // Table talk (joins, leaves, disconnects, chat, time outs) is not the hand's.
            continue;
        };
        let push = |p: &mut Parsed, act: Act| p.acts.push((i, s, act));
        if let Some(post_text) = rest.strip_prefix("posts ") {
            let seat = p.seats[s].number as usize - 1;
            if forced_bet(&mut p, &forced, s, seat, post_text).ok_or_else(|| bad(i))? {
                posts_for_less.push((i, s));
            }
            if post_text.starts_with("small blind ") {
                small_line.get_or_insert(i);
            }
        } else if let Some(a) = rest.strip_prefix("brings in for ") {
            let posted = amount(a).ok_or_else(|| bad(i))?;
            // What the antes left: a bring-in of more is no line PokerStars writes, one
            // said to be all in with chips left neither (fuzz regressions
            // bring-in-more-than-the-stack-holds, bring-in-all-in-for-less-read-as-the-bring-in).
            let left = p.seats[s]
                .stack
                .saturating_sub(p.posted.get(&s).copied().unwrap_or(0));
            if posted > left || (a.ends_with(" and is all-in") && posted < left) {
                return Err(bad(i));
            }
            // One that takes the rest of the stack says only that the game's bring-in is
            // at least that much (the writer writes it with the tail).
            if posted == left {
                all_in_bring_in = Some(posted);
            } else {
                p.bring_in = Some(posted);
            }
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
            .and_then(|r| r.split_once(" to "))
            .filter(|(by, _)| money.parse(by).is_some_and(|b| b > 0))
            .map(|(_, to)| to)
            .or_else(|| rest.strip_prefix("completes it to "))
        {
            let to = amount(a).ok_or_else(|| bad(i))?;
            push(&mut p, Act::Play(Action::BetOrRaiseTo { to }));
        } else if rest.starts_with("discards ") {
            // The viewer's discards are named; others' are so many unknown cards (at
            // most a hand's five: a count is not taken for an allocation's size).
            let n: usize = rest
                .split(' ')
                .nth(1)
                .and_then(|n| n.parse().ok())
                .filter(|&n| n <= 5)
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
    let live = |kind: PostKind| p.posts.iter().any(|q| q.kind == kind && q.live);
    if let (Some(i), false) = (small_line, live(PostKind::BigBlind)) {
        return Err(bad(i));
    }
    // A blind for less than named is all in: the seat's posts use up its stack (a dead
    // small blind "all in" with chips left is refused: fuzz regressions
    // dead-small-blind-all-in-with-chips-left, big-blind-all-in-with-the-ante-written-after).
    if let Some(&(i, _)) = posts_for_less
        .iter()
        .find(|&&(_, s)| p.posted.get(&s) != Some(&p.seats[s].stack))
    {
        return Err(bad(i));
    }
    // A bring-in all in says only that the game's is at least that much: half the small
    // bet (the engine's when the text does not say), or what it posted if more.
    let bring_in = p
        .bring_in
        .or_else(|| all_in_bring_in.map(|x| x.max(stakes[0] / 2)));
    super::engine::play(
        super::engine::PlayInput {
            hand_number,
            game_name,
            date_text,
            started_at_ms,
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

/// How the action lines the reader takes begin, after `NAME: `.
const ACTIONS: [&str; 13] = [
    "posts ",
    "brings in for ",
    "folds",
    "checks",
    "calls ",
    "bets ",
    "raises ",
    "completes it to ",
    "discards ",
    "stands pat",
    "shows [",
    "mucks hand",
    "doesn't show hand",
];

/// A table's or player's name as a line holds it: not empty, no control characters or
/// line separators (which the writer could not write back, see `printable`).
fn printable_name(name: &str) -> Option<String> {
    let breaks = |c: char| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}');
    (!name.is_empty() && !name.chars().any(breaks)).then(|| name.to_string())
}

/// Adds a forced bet to what the seat has put in dead; `None` past any count of chips
/// (the engine refuses amounts past `MAX_CHIPS` in any case).
fn add(dead: &mut BTreeMap<usize, Chips>, s: usize, x: Chips) -> Option<()> {
    let total = dead.entry(s).or_default();
    *total = total.checked_add(x)?;
    Some(())
}

/// The forced bets a hand's header names.
struct Forced {
    money: Money,
    /// The small blind, when the header names it (no limit and pot limit).
    small: Option<Chips>,
    /// The big blind: no limit's and pot limit's second stake, fixed limit's small bet,
    /// 6+'s button blind.
    big: Chips,
    /// A 6+ game, which may post a button blind.
    button_blind: bool,
}

/// Reads a forced bet (`posts ...`) of seat index `s` at table seat `seat`: only the
/// blinds the game has, each for the amount the header names (or less, all in).
/// A post the reader could not write back the same way is refused (`None`): a small
/// blind not below the big blind (it would be written as a big blind), a new player's
/// big blind below the big blind (written as a small blind), a button blind outside 6+
/// or with another big blind, an amount with anything after it. `Some(true)`: a blind for
/// less than the one named, all in, which the caller accepts only if the seat's posts use
/// up its stack once all are read (the writer may write the antes after the blinds).
fn forced_bet(p: &mut Parsed, f: &Forced, s: usize, seat: usize, text: &str) -> Option<bool> {
    let (kind, rest) = [
        "the ante ",
        "small & big blinds ",
        "small blind ",
        "big blind ",
        "button blind ",
        "straddle ",
    ]
    .into_iter()
    .find_map(|k| text.strip_prefix(k).map(|r| (k, r)))?;
    let (a, all_in) = match rest.strip_suffix(" and is all-in") {
        Some(a) => (a, true),
        None => (rest, false),
    };
    let x = f.money.parse(a).filter(|&x| x > 0)?;
    // A seat sitting out posts nothing (its blind would be missing from the hand, and
    // another's named after it).
    if !p.seats[s].dealt {
        return None;
    }
    // A post of more than the stack holds is no line PokerStars writes (the engine
    // would post less, and a dead small blind could leave nothing for the big blind).
    add(&mut p.posted, s, x)?;
    if p.posted[&s] > p.seats[s].stack {
        return None;
    }
    // A blind of the amount named, or less when the poster is all in: the seat's blind
    // is the one named (the engine posts what the stack holds).
    let nominal = |named: Chips| (x == named || (all_in && x < named)).then_some(named);
    let has = |p: &Parsed, kind: PostKind| p.posts.iter().any(|q| q.kind == kind && q.live);
    // One blind a seat (a returning player's dead small blind, then their big blind
    // as a new player's post, as `small & big blinds` writes them).
    let dead_small = p
        .posts
        .iter()
        .any(|q| q.seat == seat && q.kind == PostKind::MissedSmall);
    let new_big = kind == "big blind " && has(p, PostKind::BigBlind);
    if kind != "the ante " && (p.blinds.contains_key(&s) || (dead_small && !new_big)) {
        return None;
    }
    // Whether the post is for less than the blind named (all in, which the caller
    // checks once every post is read).
    let mut less = false;
    match kind {
        "the ante " => add(&mut p.antes, s, x)?,
        "small & big blinds " => {
            // The dead small blind the header names (else what is over the big blind),
            // then the live big blind (less when all in).
            let dead = match f.small {
                Some(named) => named,
                None => x.checked_sub(f.big)?,
            };
            let live = x
                .checked_sub(dead)
                .filter(|&l| l > 0 && dead > 0 && dead < f.big)?;
            let big = (live == f.big || (all_in && live < f.big)).then_some(f.big)?;
            less = live < f.big;
            add(&mut p.antes, s, dead)?;
            p.blinds.insert(s, (big, BlindKind::Post));
            p.posts.push(post(seat, PostKind::MissedSmall, dead, false));
            p.posts.push(post(seat, PostKind::MissedBig, big, true));
        }
        "small blind " => {
            let small = match f.small {
                Some(named) => {
                    less = x < named;
                    nominal(named)?
                }
                None => Some(x).filter(|&x| x < f.big)?,
            };
            if !has(p, PostKind::SmallBlind) {
                p.blinds.insert(s, (small, BlindKind::Blind));
                p.posts.push(post(seat, PostKind::SmallBlind, small, true));
            } else {
                // A second small blind: a returning player's dead small blind.
                add(&mut p.antes, s, x)?;
                p.posts.push(post(seat, PostKind::MissedSmall, x, false));
            }
        }
        "big blind " | "button blind " => {
            let big = nominal(f.big)?;
            less = x < f.big;
            let big_posted = has(p, PostKind::BigBlind);
            if kind == "button blind " && (!f.button_blind || big_posted) {
                return None;
            }
            if big_posted {
                p.blinds.insert(s, (big, BlindKind::Post));
                p.posts.push(post(seat, PostKind::NewPlayer, big, true));
            } else {
                p.blinds.insert(s, (big, BlindKind::Blind));
                p.posts.push(post(seat, PostKind::BigBlind, big, true));
            }
        }
        _ => {
            p.blinds.insert(s, (x, BlindKind::Straddle));
            p.posts.push(post(seat, PostKind::Straddle, x, true));
        }
    }
    Some(less)
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
