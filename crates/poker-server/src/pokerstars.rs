//! Hand histories in the PokerStars text format, which tracking tools import, written
//! from a committed hand's PHH history replayed through the engine: the pot and rake
//! arithmetic is the engine's own, uncalled bets are returned as their own line.
//!
//! Flop games (hold'em, short deck, Omaha, Omaha hi-lo) are written; other games are
//! refused with a reason.

use poker_rules::phh::{replay, PhhHand};
use poker_rules::{Card, Chips, Event, Game, Structure};
use poker_store::names::printable;
use std::collections::BTreeMap;
use std::fmt::Write;

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

/// The civil date of a count of days since 1970-01-01 (Howard Hinnant's algorithm).
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Days since 1970-01-01 of a civil date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The `n`th Sunday (1-based) of a month, as days since 1970-01-01.
fn nth_sunday(y: i64, m: i64, n: i64) -> i64 {
    let first = days_from_civil(y, m, 1);
    // 1970-01-01 was a Thursday: (days + 4) % 7 == 0 on Sundays.
    let to_sunday = (7 - (first + 4).rem_euclid(7)) % 7;
    first + to_sunday + 7 * (n - 1)
}

/// US Eastern time, as PokerStars dates its hands: `2026/11/22 3:05:09 ET`. Daylight
/// time runs from 2:00 on the second Sunday of March to 2:00 on the first Sunday of
/// November (local), UTC-4; otherwise UTC-5.
fn timestamp(ms: i64) -> String {
    let utc = ms.div_euclid(1000);
    let (year, _, _) = civil(utc.div_euclid(86_400));
    // The switches, in UTC: 2:00 EST = 7:00 UTC in March, 2:00 EDT = 6:00 UTC in November.
    let dst_start = nth_sunday(year, 3, 2) * 86_400 + 7 * 3600;
    let dst_end = nth_sunday(year, 11, 1) * 86_400 + 6 * 3600;
    let offset = if (dst_start..dst_end).contains(&utc) {
        4
    } else {
        5
    };
    let local = utc - offset * 3600;
    let (days, rem) = (local.div_euclid(86_400), local.rem_euclid(86_400));
    let (y, m, d) = civil(days);
    format!(
        "{y}/{m:02}/{d:02} {}:{:02}:{:02} ET",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Writes one hand.
pub fn write(meta: &Meta) -> Result<String, String> {
    let phh = PhhHand::parse(meta.phh).map_err(|e| e.to_string())?;
    let played = replay(&phh).map_err(|e| e.to_string())?;
    if played.scale != 1 {
        return Err("fractional chip amounts".into());
    }
    let config = played.hand.config().clone();
    let game = match config.game {
        Game::Holdem => "Hold'em",
        Game::ShortDeckHoldem => "6+ Hold'em",
        Game::Omaha => "Omaha",
        Game::OmahaHiLo => "Omaha Hi/Lo",
        other => return Err(format!("{other:?} has no PokerStars format here")),
    };
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
    // Names are checked when they enter (poker_store::names); older ones that hold a
    // line break or the like still cannot break a line of the history.
    let names: Vec<String> = meta
        .players
        .iter()
        .map(|p| printable(p).into_owned())
        .collect();
    let name = |i: usize| names[i].as_str();
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
    // Fixed limit is named by its bets (a 2/4 game has blinds 1/2), the others by blinds.
    let (small, big_shown) = match config.structure {
        Structure::FixedLimit => (config.stakes.small_bet, config.stakes.big_bet),
        _ => (small, big),
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "PokerStars Hand #{}:  {game} {limit} ({small}/{big_shown}) - {}",
        meta.hand_number,
        timestamp(meta.started_at_ms)
    );
    // The last player in hand order holds the button; heads-up, the button posts the
    // small blind (R19).
    let button = if n == 2 {
        (0..n)
            .find(|&i| config.seats[i].blind > 0 && config.seats[i].blind < big)
            .unwrap_or(n - 1)
    } else {
        n - 1
    };
    let _ = writeln!(
        out,
        "Table '{}' {}-max Seat #{} is the button",
        printable(meta.table_name),
        meta.seat_count,
        meta.seats[button]
    );
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| meta.seats[i]);
    for &i in &order {
        let _ = writeln!(
            out,
            "Seat {}: {} ({} in chips)",
            meta.seats[i],
            name(i),
            config.seats[i].stack
        );
    }
    let mut hole: BTreeMap<usize, Vec<Card>> = BTreeMap::new();
    let mut board: Vec<Card> = Vec::new();
    let mut round_bet: Chips = 0;
    let mut street = 0usize;
    let mut folded_on: BTreeMap<usize, usize> = BTreeMap::new();
    let mut shown: BTreeMap<usize, Vec<Card>> = BTreeMap::new();
    let mut mucked: Vec<usize> = Vec::new();
    let mut won: BTreeMap<usize, Chips> = BTreeMap::new();
    let mut pots: BTreeMap<usize, Chips> = BTreeMap::new();
    let mut rake: Chips = 0;
    let mut showdown_started = false;
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
    // Who put chips in before the flop (a blind, a call, a bet): the others who fold
    // there "didn't bet".
    let mut bet_preflop: std::collections::BTreeSet<usize> = Default::default();
    let mut posted_blinds = 0;
    for event in &played.events {
        match event {
            Event::AntePosted { player, amount } => {
                let _ = writeln!(out, "{}: posts the ante {amount}", name(*player));
            }
            Event::BlindPosted { player, amount } => {
                let kind = if *amount < big {
                    "small blind"
                } else if posted_blinds <= 1 {
                    "big blind"
                } else {
                    "straddle"
                };
                posted_blinds += 1;
                bet_preflop.insert(*player);
                round_bet = round_bet.max(*amount);
                let _ = writeln!(out, "{}: posts {kind} {amount}", name(*player));
            }
            Event::HoleDealt {
                player, cards: c, ..
            } => {
                hole.entry(*player).or_default().extend(c.iter().copied());
            }
            Event::RoundStarted { street: s } => {
                street = *s;
                if *s == 0 {
                    out.push_str("*** HOLE CARDS ***\n");
                    for (&p, c) in &hole {
                        if meta.viewer.is_none_or(|v| v == p) {
                            let _ = writeln!(out, "Dealt to {} [{}]", name(p), cards(c));
                        }
                    }
                } else {
                    round_bet = 0;
                }
            }
            Event::BoardDealt { cards: c } => {
                let before = board.clone();
                board.extend(c.iter().copied());
                let _ = match board.len() {
                    3 => writeln!(out, "*** FLOP *** [{}]", cards(&board)),
                    4 => writeln!(out, "*** TURN *** [{}] [{}]", cards(&before), cards(c)),
                    _ => writeln!(out, "*** RIVER *** [{}] [{}]", cards(&before), cards(c)),
                };
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
                    bet_preflop.insert(*player);
                }
                let tail = if *all_in { " and is all-in" } else { "" };
                let _ = writeln!(out, "{}: calls {amount}{tail}", name(*player));
            }
            Event::BetTo {
                player,
                to,
                amount,
                all_in,
                ..
            } => {
                if street == 0 {
                    bet_preflop.insert(*player);
                }
                let tail = if *all_in { " and is all-in" } else { "" };
                if round_bet == 0 {
                    let _ = writeln!(out, "{}: bets {amount}{tail}", name(*player));
                } else {
                    let by = to.saturating_sub(round_bet);
                    let _ = writeln!(out, "{}: raises {by} to {to}{tail}", name(*player));
                }
                round_bet = round_bet.max(*to);
            }
            Event::UncalledReturned { player, amount } => {
                let _ = writeln!(out, "Uncalled bet ({amount}) returned to {}", name(*player));
            }
            Event::Shown { player, cards: c } => {
                if !showdown_started {
                    showdown_started = true;
                    out.push_str("*** SHOW DOWN ***\n");
                }
                shown.insert(*player, c.to_vec());
                let _ = writeln!(out, "{}: shows [{}]", name(*player), cards(c));
            }
            Event::Mucked { player } => {
                mucked.push(*player);
                let _ = writeln!(out, "{}: mucks hand", name(*player));
            }
            Event::Raked { amount } => rake += amount,
            Event::PotAwarded {
                pot,
                amount,
                winners,
                ..
            } => {
                *pots.entry(*pot).or_default() += amount;
                let from = match (*pot, side_pots) {
                    (_, false) => "pot".to_string(),
                    (0, true) => "main pot".to_string(),
                    (k, true) => side_pot_name(k),
                };
                for &(w, part) in winners {
                    *won.entry(w).or_default() += part;
                    let _ = writeln!(out, "{} collected {part} from {from}", name(w));
                }
            }
            _ => {}
        }
    }
    // Everything bet and not returned: what was awarded plus the rake.
    let total: Chips = pots.values().sum::<Chips>() + rake;
    out.push_str("*** SUMMARY ***\n");
    let mut line = format!("Total pot {total}");
    if side_pots {
        for (&k, &amount) in &pots {
            if k == 0 {
                let _ = write!(line, " Main pot {amount}.");
            } else {
                let mut name = side_pot_name(k);
                name[..1].make_ascii_uppercase();
                let _ = write!(line, " {name} {amount}.");
            }
        }
    }
    let _ = writeln!(out, "{line} | Rake {rake}");
    if !board.is_empty() {
        let _ = writeln!(out, "Board [{}]", cards(&board));
    }
    let street_name = |s: usize| match s {
        0 => "before Flop",
        1 => "on the Flop",
        2 => "on the Turn",
        _ => "on the River",
    };
    for &i in &order {
        let role = if i == button && n == 2 {
            // Heads-up, the button is the small blind (R19).
            " (button) (small blind)"
        } else if i == button && n > 2 {
            " (button)"
        } else if config.seats[i].blind > 0 && config.seats[i].blind < big {
            " (small blind)"
        } else if config.seats[i].blind == big {
            " (big blind)"
        } else if i == button {
            " (button)"
        } else {
            ""
        };
        let what = if let Some(&s) = folded_on.get(&i) {
            let quiet = if s == 0 && !bet_preflop.contains(&i) {
                " (didn't bet)"
            } else {
                ""
            };
            format!("folded {}{quiet}", street_name(s))
        } else if let Some(c) = shown.get(&i) {
            match won.get(&i) {
                Some(w) => format!("showed [{}] and won ({w})", cards(c)),
                None => format!("showed [{}] and lost", cards(c)),
            }
        } else if let Some(w) = won.get(&i) {
            format!("collected ({w})")
        } else if mucked.contains(&i) {
            "mucked".to_string()
        } else {
            "lost".to_string()
        };
        let _ = writeln!(out, "Seat {}: {}{role} {what}", meta.seats[i], name(i));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta<'a>(phh: &'a str, players: &'a [String], seats: &'a [u32]) -> Meta<'a> {
        Meta {
            hand_number: 42,
            table_name: "Alpha",
            started_at_ms: 1_795_344_309_000,
            players,
            seats,
            seat_count: 6,
            phh,
            viewer: None,
        }
    }

    #[test]
    fn side_pots_uncalled_bets_and_rake_add_up() {
        // p1 (SB) 100, p2 (BB) 300, p3 (button) 1000. p3 shoves, both call all in:
        // main pot 300 (3 x 100), side pot 400 (2 x 200); p3's 700 over p2 is returned.
        let phh = r#"
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [5, 10, 0]
min_bet = 10
starting_stacks = [100, 300, 1000]
actions = [
  "d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 QcQd",
  "p3 cbr 1000", "p1 cc", "p2 cc",
  "d db 2h3h4s", "d db 9c", "d db Ts",
  "p1 sm AcAd", "p2 sm KcKd", "p3 sm QcQd",
]
"#;
        let players: Vec<String> = ["ann", "bob", "cat"].map(String::from).to_vec();
        let out = write(&meta(phh, &players, &[2, 4, 6])).unwrap();
        for line in [
            "PokerStars Hand #42:  Hold'em No Limit (5/10) - 2026/11/22 5:45:09 ET",
            "Table 'Alpha' 6-max Seat #6 is the button",
            "Seat 2: ann (100 in chips)",
            "ann: posts small blind 5",
            "bob: posts big blind 10",
            "Dealt to cat [Qc Qd]",
            "cat: raises 990 to 1000",
            "ann: calls 95 and is all-in",
            "bob: calls 290 and is all-in",
            "Uncalled bet (700) returned to cat",
            "*** FLOP *** [2h 3h 4s]",
            "*** TURN *** [2h 3h 4s] [9c]",
            "*** RIVER *** [2h 3h 4s 9c] [Ts]",
            "ann collected 300 from main pot",
            "bob collected 400 from side pot",
            "Total pot 700 Main pot 300. Side pot 400. | Rake 0",
            "Seat 2: ann (small blind) showed [Ac Ad] and won (300)",
            "Seat 6: cat (button) showed [Qc Qd] and lost",
        ] {
            assert!(out.contains(line), "missing {line:?} in\n{out}");
        }
    }

    #[test]
    fn a_bet_nobody_calls_is_returned_and_other_games_are_refused() {
        let phh = r#"
variant = "NT"
antes = [0, 0]
blinds_or_straddles = [10, 5]
min_bet = 10
starting_stacks = [200, 200]
actions = ["d dh p1 AcAd", "d dh p2 KcKd", "p1 cbr 30", "p2 f"]
"#;
        let players: Vec<String> = ["ann", "bob"].map(String::from).to_vec();
        let out = write(&meta(phh, &players, &[1, 2])).unwrap();
        for line in [
            "Table 'Alpha' 6-max Seat #1 is the button",
            "ann: raises 20 to 30",
            "Uncalled bet (20) returned to ann",
            "ann collected 20 from pot",
            "Seat 2: bob (big blind) folded before Flop",
            "Seat 1: ann (button) (small blind) collected (20)",
        ] {
            assert!(out.contains(line), "missing {line:?} in\n{out}");
        }
        assert!(out.contains("Total pot 20 | Rake 0"), "{out}");
        let mine = write(&Meta {
            viewer: Some(1),
            ..meta(phh, &players, &[1, 2])
        })
        .unwrap();
        assert!(
            mine.contains("Dealt to bob [Kc Kd]")
                && !mine.contains("AcAd")
                && !mine.contains("Ac Ad")
        );
        // A name stored before names were checked cannot add lines to the history.
        let sneaky: Vec<String> = ["ann\n*** SUMMARY ***\nSeat 9: x", "bob"]
            .map(String::from)
            .to_vec();
        let out = write(&Meta {
            table_name: "T\r\nable",
            ..meta(phh, &sneaky, &[1, 2])
        })
        .unwrap();
        let summaries = out.lines().filter(|l| l.starts_with("*** SUMMARY ***"));
        assert_eq!(summaries.count(), 1, "{out}");
        assert!(!out.lines().any(|l| l.starts_with("Seat 9")), "{out}");
        assert!(out.contains("Table 'T\u{FFFD}\u{FFFD}able'"), "{out}");
        let stud = phh.replace("\"NT\"", "\"F7S\"");
        assert!(write(&meta(&stud, &players, &[1, 2])).is_err());
    }

    #[test]
    fn hands_are_dated_in_eastern_time_with_daylight_saving() {
        // 2026-07-04 16:00:00 UTC is 12:00 EDT; 2026-01-15 16:00:00 UTC is 11:00 EST.
        assert_eq!(timestamp(1_783_180_800_000), "2026/07/04 12:00:00 ET");
        assert_eq!(timestamp(1_768_492_800_000), "2026/01/15 11:00:00 ET");
        // Daylight time starts 2026-03-08 at 7:00 UTC and ends 2026-11-01 at 6:00 UTC.
        assert_eq!(timestamp(1_772_953_199_000), "2026/03/08 1:59:59 ET");
        assert_eq!(timestamp(1_772_953_200_000), "2026/03/08 3:00:00 ET");
        assert_eq!(timestamp(1_793_512_799_000), "2026/11/01 1:59:59 ET");
        assert_eq!(timestamp(1_793_512_800_000), "2026/11/01 1:00:00 ET");
        // Across midnight: 2026-11-22 03:00 UTC is the 21st in New York.
        assert_eq!(timestamp(1_795_316_400_000), "2026/11/21 22:00:00 ET");
    }

    #[test]
    fn fixed_limit_is_named_by_its_bets_and_quiet_folds_did_not_bet() {
        let phh = r#"
variant = "FT"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
small_bet = 2
big_bet = 4
starting_stacks = [100, 100, 100]
actions = ["d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 QcQd", "p3 f", "p1 cbr 4", "p2 f"]
"#;
        let players: Vec<String> = ["ann", "bob", "cat"].map(String::from).to_vec();
        let out = write(&meta(phh, &players, &[1, 2, 3])).unwrap();
        for line in [
            "Hold'em Limit (2/4) - ",
            "Seat 3: cat (button) folded before Flop (didn't bet)",
            "Seat 2: bob (big blind) folded before Flop\n",
        ] {
            assert!(out.contains(line), "missing {line:?} in\n{out}");
        }
    }
}
