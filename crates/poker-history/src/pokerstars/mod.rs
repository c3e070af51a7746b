//! Hand histories in the PokerStars text format, which tracking tools import, written
//! from a committed hand's PHH history replayed through the engine: the pot and rake
//! arithmetic is the engine's own, uncalled bets are returned as their own line.
//!
//! Every game is written in PokerStars' own form for it: flop games with `*** HOLE CARDS
//! ***` and the board, stud and razz street by street with each player's up cards (and
//! the viewer's down cards), draw games with `*** DEALING HANDS ***`, each draw and its
//! discards. Shown hands are described in PokerStars' words (`describe`), dates are in
//! Eastern time (`time`).

use crate::phh::{replay, PhhHand};
use poker_rules::table::{Post, PostKind};
use poker_rules::{Card, Chips, Event, Game, Structure};
use std::collections::BTreeMap;
use std::fmt::Write;

pub mod describe;
pub mod import;
pub mod money;
pub mod read;
mod time;

use money::Money;
use time::timestamp;

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
    /// The table's forced bets of the hand, by table seat (0-based): they tell a new
    /// player's post and a returning player's blinds from the ordinary blinds. Empty: the
    /// blinds are told apart by size.
    pub posts: &'a [Post],
    /// The PHH history.
    pub phh: &'a str,
    /// Whose history it is (hand index): only their hole cards are dealt face up, other
    /// hands appear only if shown. `None`: the operator's view, every hand.
    pub viewer: Option<usize>,
}

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

/// Writes one hand in chips.
pub fn write(meta: &Meta) -> Result<String, String> {
    write_in(meta, &Money::Chips)
}

/// Writes one hand with its amounts in `money` (chips, or cents of a currency).
pub fn write_in(meta: &Meta, money: &Money) -> Result<String, String> {
    let m = |x: Chips| money.format(x);
    let phh = PhhHand::parse(meta.phh).map_err(|e| e.to_string())?;
    let played = replay(&phh).map_err(|e| e.to_string())?;
    if played.scale != 1 {
        return Err("fractional chip amounts".into());
    }
    let config = played.hand.config().clone();
    let (game, family) = match config.game {
        Game::Holdem => ("Hold'em", Family::Flop),
        Game::ShortDeckHoldem => ("6+ Hold'em", Family::Flop),
        Game::Omaha => ("Omaha", Family::Flop),
        Game::OmahaHiLo => ("Omaha Hi/Lo", Family::Flop),
        Game::Stud => ("7 Card Stud", Family::Stud),
        Game::StudHiLo => ("7 Card Stud Hi/Lo", Family::Stud),
        Game::Razz => ("Razz", Family::Stud),
        Game::DeuceToSevenSingleDraw => ("Single Draw 2-7 Lowball", Family::Draw),
        Game::DeuceToSevenTripleDraw => ("Triple Draw 2-7 Lowball", Family::Draw),
        Game::Badugi => ("Badugi", Family::Draw),
    };
    let single_draw = config.game == Game::DeuceToSevenSingleDraw;
    let limit = match config.structure {
        Structure::NoLimit => "No Limit",
        Structure::PotLimit => "Pot Limit",
        Structure::FixedLimit => "Limit",
        Structure::SpreadLimit => "Spread Limit",
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
    let name = |i: usize| names[i].as_str();
    // Whose cards this history may show face down: the viewer's, or everyone's for the
    // operator.
    let sees = |p: usize| meta.viewer.is_none_or(|v| v == p);
    let blinds: Vec<Chips> = config
        .seats
        .iter()
        .map(|s| s.blind)
        .filter(|&b| b > 0)
        .collect();
    let big = config.big_blind();
    let small = blinds
        .iter()
        .copied()
        .filter(|&b| b < big)
        .min()
        .unwrap_or(big / 2);
    // Fixed limit and stud are named by their bets (a 2/4 game has blinds 1/2), the
    // others by their blinds.
    let (small, big_shown) = match (config.structure, family) {
        (Structure::FixedLimit, _) | (_, Family::Stud) => {
            (config.stakes.small_bet, config.stakes.big_bet)
        }
        _ => (small, big),
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "PokerStars Hand #{}:  {game} {limit} ({}) - {}",
        meta.hand_number,
        money.stakes(small, big_shown),
        timestamp(meta.started_at_ms)
    );
    // The button's seat as the table recorded it; else the last player in hand order
    // holds it (heads-up, the button posts the small blind, R19). Stud has no button.
    let button_seat = meta.button_seat.unwrap_or_else(|| {
        let i = if n == 2 {
            (0..n)
                .find(|&i| config.seats[i].blind > 0 && config.seats[i].blind < big)
                .unwrap_or(n - 1)
        } else {
            n - 1
        };
        meta.seats[i]
    });
    if family == Family::Stud {
        let _ = writeln!(
            out,
            "Table '{}' {}-max",
            printable(meta.table_name),
            meta.seat_count
        );
    } else {
        let _ = writeln!(
            out,
            "Table '{}' {}-max Seat #{} is the button",
            printable(meta.table_name),
            meta.seat_count,
            button_seat
        );
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| meta.seats[i]);
    for &i in &order {
        let _ = writeln!(
            out,
            "Seat {}: {} ({} in chips)",
            meta.seats[i],
            name(i),
            m(config.seats[i].stack)
        );
    }
    // Each player's cards as dealt so far, with which are face up.
    let mut hole: BTreeMap<usize, Vec<(Card, bool)>> = BTreeMap::new();
    let mut board: Vec<Card> = Vec::new();
    let mut round_bet: Chips = 0;
    let mut street = 0usize;
    let mut stud_street = 0usize;
    let mut draws = 0usize;
    let mut dealt_shown = false;
    let mut folded_on: BTreeMap<usize, usize> = BTreeMap::new();
    let mut shown: BTreeMap<usize, Vec<Card>> = BTreeMap::new();
    let mut described: BTreeMap<usize, String> = BTreeMap::new();
    let mut mucked: Vec<usize> = Vec::new();
    let mut won: BTreeMap<usize, Chips> = BTreeMap::new();
    let mut pots: BTreeMap<usize, Chips> = BTreeMap::new();
    let mut rake: Chips = 0;
    let mut showdown_started = false;
    // Run it twice: the board both runs share, the second run's board, the second
    // showdown's lines (hands described on the second board), and who won what by run.
    let mut twice: Option<usize> = None;
    let mut board2: Vec<Card> = Vec::new();
    let mut second_showdown: Vec<String> = Vec::new();
    let mut second_started = false;
    let mut by_run: BTreeMap<(usize, u8), Chips> = BTreeMap::new();
    let mut described2: BTreeMap<usize, String> = BTreeMap::new();
    let side_pot_count = played
        .events
        .iter()
        .filter_map(|e| match e {
            Event::PotAwarded { pot, .. } if *pot > 0 => Some(*pot),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let side_pots = side_pot_count > 0;
    // One side pot is "side pot"; several are numbered.
    let side_pot_name = |k: usize| {
        if side_pot_count == 1 {
            "side pot".to_string()
        } else {
            format!("side pot-{k}")
        }
    };
    // Who put chips in on the first round (a blind, a bring-in, a call, a bet): the
    // others who fold there "didn't bet" (antes do not count).
    let mut bet_first_round: std::collections::BTreeSet<usize> = Default::default();
    let mut posted_blinds = 0;
    // The table's posts of each player in the hand.
    let posts_of = |player: usize| {
        let seat = meta.seats[player];
        meta.posts.iter().filter(move |p| p.seat as u32 + 1 == seat)
    };
    // " and is all-in" when forced bets took the whole stack.
    let all_in = |player: usize, forced: Chips| {
        if forced >= config.seats[player].stack {
            " and is all-in"
        } else {
            ""
        }
    };
    // Dead small blinds waiting for the big blind they are written with.
    let mut pending_dead: BTreeMap<usize, Chips> = BTreeMap::new();
    // Replacement cards already written with their discard.
    let mut written_with_discard: std::collections::BTreeSet<usize> = Default::default();
    for (index, event) in played.events.iter().enumerate() {
        match event {
            Event::AntePosted { player, amount } => {
                // A missed small blind made up dead goes in with the antes; PokerStars
                // writes it with the big blind it comes with.
                let dead_small = posts_of(*player)
                    .find(|p| p.kind == PostKind::MissedSmall && !p.live)
                    .map_or(0, |p| p.amount.min(*amount));
                let ante = amount - dead_small;
                if dead_small > 0 {
                    pending_dead.insert(*player, dead_small);
                    let live_big = posts_of(*player).any(|p| p.live);
                    if !live_big {
                        let _ = writeln!(
                            out,
                            "{}: posts small blind {}{}",
                            name(*player),
                            m(dead_small),
                            all_in(*player, *amount)
                        );
                        pending_dead.remove(player);
                    }
                }
                if ante > 0 {
                    let _ = writeln!(
                        out,
                        "{}: posts the ante {}{}",
                        name(*player),
                        m(ante),
                        all_in(*player, *amount)
                    );
                }
            }
            Event::BlindPosted { player, amount } => {
                let kinds: Vec<PostKind> = posts_of(*player)
                    .filter(|p| p.live)
                    .map(|p| p.kind)
                    .collect();
                let dead = pending_dead.remove(player).unwrap_or(0);
                let kind = if dead > 0 {
                    "small & big blinds"
                } else if kinds.contains(&PostKind::Kill) {
                    "kill blind"
                } else if kinds.contains(&PostKind::Rock) || kinds.contains(&PostKind::Straddle) {
                    "straddle"
                } else if kinds.iter().any(|k| {
                    matches!(
                        k,
                        PostKind::NewPlayer | PostKind::MissedBig | PostKind::BigBlind
                    )
                }) {
                    "big blind"
                } else if *amount < big
                    || kinds
                        .iter()
                        .any(|k| matches!(k, PostKind::SmallBlind | PostKind::MissedSmall))
                {
                    "small blind"
                } else if posted_blinds <= 1 {
                    "big blind"
                } else {
                    "straddle"
                };
                posted_blinds += 1;
                bet_first_round.insert(*player);
                round_bet = round_bet.max(*amount);
                let _ = writeln!(
                    out,
                    "{}: posts {kind} {}{}",
                    name(*player),
                    m(amount + dead),
                    all_in(*player, config.seats[*player].ante + amount)
                );
            }
            Event::BringInPosted { player, amount } => {
                bet_first_round.insert(*player);
                round_bet = round_bet.max(*amount);
                let _ = writeln!(out, "{}: brings in for {}", name(*player), m(*amount));
            }
            Event::HoleDealt {
                player,
                cards: c,
                up,
            } => {
                if written_with_discard.contains(&index) {
                    continue;
                }
                let before: Vec<(Card, bool)> = hole.get(player).cloned().unwrap_or_default();
                let new: Vec<(Card, bool)> = c
                    .iter()
                    .enumerate()
                    .map(|(k, &card)| (card, up >> k & 1 == 1))
                    .collect();
                hole.entry(*player).or_default().extend(new.iter().copied());
                match family {
                    Family::Stud => {
                        let now = before.len() + new.len();
                        let this_street = now.saturating_sub(2).max(1);
                        if this_street > stud_street {
                            stud_street = this_street;
                            let _ = match now {
                                3 => writeln!(out, "*** 3rd STREET ***"),
                                7 => writeln!(out, "*** RIVER ***"),
                                k => writeln!(out, "*** {k}th STREET ***"),
                            };
                        }
                        let known = before.iter().chain(&new).all(|x| x.0.is_known());
                        let line = if sees(*player) && known {
                            let all = |v: &[(Card, bool)]| {
                                cards(&v.iter().map(|x| x.0).collect::<Vec<_>>())
                            };
                            if before.is_empty() {
                                Some(format!("[{}]", all(&new)))
                            } else {
                                Some(format!("[{}] [{}]", all(&before), all(&new)))
                            }
                        } else {
                            let ups = |v: &[(Card, bool)]| {
                                cards(&v.iter().filter(|x| x.1).map(|x| x.0).collect::<Vec<_>>())
                            };
                            let (old_up, new_up) = (ups(&before), ups(&new));
                            match (old_up.is_empty(), new_up.is_empty()) {
                                (_, true) => None,
                                (true, false) => Some(format!("[{new_up}]")),
                                (false, false) => Some(format!("[{old_up}] [{new_up}]")),
                            }
                        };
                        if let Some(line) = line {
                            let _ = writeln!(out, "Dealt to {} {line}", name(*player));
                        }
                    }
                    Family::Flop | Family::Draw => {}
                }
            }
            Event::RoundStarted { street: s } => {
                street = *s;
                if *s == 0 && family != Family::Stud && !dealt_shown {
                    dealt_shown = true;
                    out.push_str(if family == Family::Draw {
                        "*** DEALING HANDS ***\n"
                    } else {
                        "*** HOLE CARDS ***\n"
                    });
                    for (&p, c) in &hole {
                        // Cards the record does not know (a hand watched, not played)
                        // are not written.
                        if sees(p) && c.iter().all(|x| x.0.is_known()) {
                            let c: Vec<Card> = c.iter().map(|x| x.0).collect();
                            let _ = writeln!(out, "Dealt to {} [{}]", name(p), cards(&c));
                        }
                    }
                }
                if *s > 0 {
                    round_bet = 0;
                }
            }
            Event::Discarded { player, cards: c } => {
                let held: Vec<Card> = hole
                    .get(player)
                    .map(|v| v.iter().map(|x| x.0).collect())
                    .unwrap_or_default();
                // The first discard after a betting round opens the draw (single draw
                // has no marker, as at PokerStars).
                if draws <= street {
                    draws = street + 1;
                    if !single_draw {
                        let which = ["FIRST", "SECOND", "THIRD"].get(street).unwrap_or(&"NEXT");
                        let _ = writeln!(out, "*** {which} DRAW ***");
                    }
                }
                if c.is_empty() {
                    if sees(*player) {
                        let _ =
                            writeln!(out, "{}: stands pat on [{}]", name(*player), cards(&held));
                    } else {
                        let _ = writeln!(out, "{}: stands pat", name(*player));
                    }
                    continue;
                }
                let count = c.len();
                let noun = if count == 1 { "card" } else { "cards" };
                let kept: Vec<Card> = held
                    .iter()
                    .copied()
                    .filter(|h| !c.iter().any(|d| d == h))
                    .collect();
                hole.insert(*player, kept.iter().map(|&k| (k, false)).collect());
                if sees(*player) {
                    let _ = writeln!(
                        out,
                        "{}: discards {count} {noun} [{}]",
                        name(*player),
                        cards(c)
                    );
                } else {
                    let _ = writeln!(out, "{}: discards {count} {noun}", name(*player));
                }
                // The replacements, written right after the discard as PokerStars does.
                let replacement =
                    played.events[index + 1..]
                        .iter()
                        .enumerate()
                        .find_map(|(k, e)| match e {
                            Event::HoleDealt {
                                player: p,
                                cards: new,
                                ..
                            } if p == player => Some((index + 1 + k, *new)),
                            _ => None,
                        });
                if let Some((at, new)) = replacement {
                    written_with_discard.insert(at);
                    hole.entry(*player)
                        .or_default()
                        .extend(new.iter().map(|&x| (x, false)));
                    if sees(*player) {
                        let _ = writeln!(
                            out,
                            "Dealt to {} [{}] [{}]",
                            name(*player),
                            cards(&kept),
                            cards(&new)
                        );
                    }
                }
            }
            Event::RunningTwice => twice = Some(board.len()),
            Event::BoardDealt { cards: c } => {
                let run = if twice.is_some() { "FIRST " } else { "" };
                street_lines(&mut out, run, &mut board, c);
            }
            Event::SecondBoardDealt { cards: c } => {
                if board2.is_empty() {
                    board2 = board[..twice.unwrap_or(0).min(board.len())].to_vec();
                }
                street_lines(&mut out, "SECOND ", &mut board2, c);
            }
            Event::Folded { player } => {
                folded_on.insert(*player, street);
                let _ = writeln!(out, "{}: folds", name(*player));
            }
            Event::Checked { player } => {
                let _ = writeln!(out, "{}: checks", name(*player));
            }
            Event::Called {
                player,
                amount,
                all_in,
            } => {
                if street == 0 {
                    bet_first_round.insert(*player);
                }
                let tail = if *all_in { " and is all-in" } else { "" };
                let _ = writeln!(out, "{}: calls {}{tail}", name(*player), m(*amount));
            }
            Event::BetTo {
                player,
                to,
                amount,
                all_in,
                ..
            } => {
                if street == 0 {
                    bet_first_round.insert(*player);
                }
                let tail = if *all_in { " and is all-in" } else { "" };
                if round_bet == 0 {
                    let _ = writeln!(out, "{}: bets {}{tail}", name(*player), m(*amount));
                } else {
                    let by = to.saturating_sub(round_bet);
                    let _ = writeln!(
                        out,
                        "{}: raises {} to {}{tail}",
                        name(*player),
                        m(by),
                        m(*to)
                    );
                }
                round_bet = round_bet.max(*to);
            }
            Event::UncalledReturned { player, amount } => {
                let _ = writeln!(
                    out,
                    "Uncalled bet ({}) returned to {}",
                    m(*amount),
                    name(*player)
                );
            }
            Event::Shown { player, cards: c } => {
                if !showdown_started {
                    showdown_started = true;
                    let run = if twice.is_some() { "FIRST " } else { "" };
                    let _ = writeln!(out, "*** {run}SHOW DOWN ***");
                }
                shown.insert(*player, c.to_vec());
                if twice.is_some() {
                    let line = match describe::describe(config.game, c, &board2) {
                        Some(what) => {
                            described2.insert(*player, what.clone());
                            format!("{}: shows [{}] ({what})", name(*player), cards(c))
                        }
                        None => format!("{}: shows [{}]", name(*player), cards(c)),
                    };
                    second_showdown.push(line);
                }
                match describe::describe(config.game, c, &board) {
                    Some(what) => {
                        let _ = writeln!(out, "{}: shows [{}] ({what})", name(*player), cards(c));
                        described.insert(*player, what);
                    }
                    None => {
                        let _ = writeln!(out, "{}: shows [{}]", name(*player), cards(c));
                    }
                }
            }
            Event::Mucked { player } => {
                mucked.push(*player);
                let _ = writeln!(out, "{}: mucks hand", name(*player));
                if twice.is_some() {
                    second_showdown.push(format!("{}: mucks hand", name(*player)));
                }
            }
            Event::Raked { amount } => rake += amount,
            Event::PotAwarded {
                pot,
                amount,
                winners,
                run,
                ..
            } => {
                if *run == 1 && !second_started {
                    second_started = true;
                    out.push_str("*** SECOND SHOW DOWN ***\n");
                    for line in &second_showdown {
                        let _ = writeln!(out, "{line}");
                    }
                }
                for &(w, part) in winners {
                    *by_run.entry((w, *run)).or_default() += part;
                }
                *pots.entry(*pot).or_default() += amount;
                let from = match (*pot, side_pots) {
                    (_, false) => "pot".to_string(),
                    (0, true) => "main pot".to_string(),
                    (k, true) => side_pot_name(k),
                };
                for &(w, part) in winners {
                    *won.entry(w).or_default() += part;
                    let _ = writeln!(out, "{} collected {} from {from}", name(w), m(part));
                }
            }
            _ => {}
        }
    }
    // A winner without a showdown who chose not to show says so; the record keeps the
    // choice as a comment (`# p3 doesn't show hand`), which replays as nothing.
    for note in &phh.actions {
        let who = note
            .trim()
            .strip_prefix("# p")
            .and_then(|r| r.strip_suffix(" doesn't show hand"))
            .and_then(|k| k.parse::<usize>().ok())
            .filter(|&k| (1..=n).contains(&k));
        if let Some(k) = who {
            let _ = writeln!(out, "{}: doesn't show hand", name(k - 1));
        }
    }
    // A split game where nobody showed a low says so, as PokerStars does.
    if matches!(config.game, Game::OmahaHiLo | Game::StudHiLo)
        && !shown.is_empty()
        && !shown
            .values()
            .any(|c| describe::has_low(config.game, c, &board))
    {
        let at = out.find("*** SHOW DOWN ***\n").map(|i| i + 18);
        if let Some(at) = at {
            // After the last "shows" line.
            let tail = &out[at..];
            let shows_end = tail
                .lines()
                .take_while(|l| l.contains(": shows ["))
                .map(|l| l.len() + 1)
                .sum::<usize>();
            out.insert_str(at + shows_end, "No low hand qualified\n");
        }
    }
    // Everything bet and not returned: what was awarded plus the rake.
    let total: Chips = pots.values().sum::<Chips>() + rake;
    out.push_str("*** SUMMARY ***\n");
    let mut line = format!("Total pot {}", m(total));
    if side_pots {
        for (&k, &amount) in &pots {
            if k == 0 {
                let _ = write!(line, " Main pot {}.", m(amount));
            } else {
                let mut name = side_pot_name(k);
                name[..1].make_ascii_uppercase();
                let _ = write!(line, " {name} {}.", m(amount));
            }
        }
    }
    let _ = writeln!(out, "{line} | Rake {}", m(rake));
    if !board.is_empty() {
        if board2.is_empty() {
            let _ = writeln!(out, "Board [{}]", cards(&board));
        } else {
            let _ = writeln!(out, "Hand was run twice");
            let _ = writeln!(out, "FIRST Board [{}]", cards(&board));
            let _ = writeln!(out, "SECOND Board [{}]", cards(&board2));
        }
    }
    let street_name = |s: usize| match family {
        Family::Flop => ["before Flop", "on the Flop", "on the Turn", "on the River"]
            .get(s)
            .copied()
            .unwrap_or("on the River")
            .to_string(),
        Family::Stud => format!(
            "on the {}",
            [
                "3rd Street",
                "4th Street",
                "5th Street",
                "6th Street",
                "River"
            ]
            .get(s)
            .copied()
            .unwrap_or("River")
        ),
        Family::Draw if s == 0 => "before the Draw".to_string(),
        Family::Draw if single_draw => "after the Draw".to_string(),
        Family::Draw => format!(
            "after the {} Draw",
            ["1st", "2nd", "3rd"].get(s - 1).copied().unwrap_or("3rd")
        ),
    };
    for &i in &order {
        // The button, and the blind posted: heads-up the button is also the small blind
        // (R19), `(button) (small blind)`.
        let on_button = family != Family::Stud && meta.seats[i] == button_seat;
        let blind = config.seats[i].blind;
        let role = match (family, on_button) {
            (Family::Stud, _) => String::new(),
            (_, true) if n == 2 && blind > 0 && blind < big => " (button) (small blind)".into(),
            (_, true) => " (button)".into(),
            (_, false) if blind > 0 && blind < big => " (small blind)".into(),
            (_, false) if blind > 0 && blind == big => " (big blind)".into(),
            _ => String::new(),
        };
        let with = described
            .get(&i)
            .map(|d| format!(" with {d}"))
            .unwrap_or_default();
        let what = if let Some(&s) = folded_on.get(&i) {
            let quiet = if s == 0 && !bet_first_round.contains(&i) {
                " (didn't bet)"
            } else {
                ""
            };
            format!("folded {}{quiet}", street_name(s))
        } else if let (Some(c), true) = (shown.get(&i), second_started) {
            // Each run: `and won ($X) with ...` or `and lost with ...`, comma-joined.
            let runs: Vec<String> = [(0u8, &described), (1u8, &described2)]
                .iter()
                .map(|(r, d)| {
                    let with = d.get(&i).map(|d| format!(" with {d}")).unwrap_or_default();
                    match by_run.get(&(i, *r)).filter(|&&w| w > 0) {
                        Some(w) => format!("won ({}){with}", m(*w)),
                        None => format!("lost{with}"),
                    }
                })
                .collect();
            format!("showed [{}] and {}", cards(c), runs.join(", and "))
        } else if let Some(c) = shown.get(&i) {
            match won.get(&i) {
                Some(w) => format!("showed [{}] and won ({}){with}", cards(c), m(*w)),
                None => format!("showed [{}] and lost{with}", cards(c)),
            }
        } else if let Some(w) = won.get(&i) {
            format!("collected ({})", m(*w))
        } else if mucked.contains(&i) {
            // A mucked hand the record knows is named, as PokerStars names it; not in draw
            // games, where a record read from PokerStars text cannot hold the hand drawn
            // to without its discards.
            match hole.get(&i) {
                Some(c)
                    if family != Family::Draw
                        && !c.is_empty()
                        && c.iter().all(|x| x.0.is_known()) =>
                {
                    let c: Vec<Card> = c.iter().map(|x| x.0).collect();
                    format!("mucked [{}]", cards(&c))
                }
                _ => "mucked".to_string(),
            }
        } else {
            "lost".to_string()
        };
        let _ = writeln!(out, "Seat {}: {}{role} {what}", meta.seats[i], name(i));
    }
    Ok(out)
}

/// Writes the street lines for board cards dealt (`*** FLOP ***`, `*** TURN ***`...), one
/// per street even when several streets come at once (a run of the board), with `run`
/// before the street's name (`FIRST `, `SECOND ` when the board is run twice).
fn street_lines(out: &mut String, run: &str, board: &mut Vec<Card>, new: &[Card]) {
    let mut rest = new;
    while !rest.is_empty() {
        let take = if board.len() < 3 {
            (3 - board.len()).min(rest.len())
        } else {
            1
        };
        let (now, later) = rest.split_at(take);
        let before = board.clone();
        board.extend(now.iter().copied());
        let _ = match board.len() {
            3 => writeln!(out, "*** {run}FLOP *** [{}]", cards(board)),
            4 => writeln!(
                out,
                "*** {run}TURN *** [{}] [{}]",
                cards(&before),
                cards(now)
            ),
            _ => writeln!(
                out,
                "*** {run}RIVER *** [{}] [{}]",
                cards(&before),
                cards(now)
            ),
        };
        rest = later;
    }
}

#[cfg(test)]
mod tests;
