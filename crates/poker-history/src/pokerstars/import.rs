//! The golden round trip of PokerStars text: each hand is read into the engine's record
//! ([`read`](super::read)), replayed, written again by the PokerStars writer, and compared
//! line by line with the text it came from. `pokerd import FILE` runs it over a file.
//!
//! What the comparison sets aside, and why: the hand's id and date on the header line
//! (ids and timestamps are the site's); whitespace at line ends (the public copies of
//! PokerStars files have had it stripped, so it cannot be compared); and table talk that
//! is not part of the hand (`joins the table`, `leaves the table`, `is disconnected`,
//! chat), which the engine does not record. Everything else must be identical.

use super::read::{read_hand, split, ImportedHand, ReadError};
use super::{write_in, Meta};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The first line where the written hand differs from the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// 1-based line number in the compared (talk-free) text.
    pub line: usize,
    /// The text's line (`None`: the text ended first).
    pub expected: Option<String>,
    /// The written line (`None`: the written hand ended first).
    pub written: Option<String>,
}

/// What became of one hand.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Read, replayed and written back identical.
    Identical,
    /// Read and replayed, but written back differently.
    Differs(Difference),
    /// The writer could not write it.
    NotWritten(String),
    /// Not read (unsupported, or refused by the engine).
    NotRead(ReadError),
}

/// Whether a line is table talk rather than the hand: seats taken and left, connections,
/// time-outs, chat.
pub fn is_table_talk(line: &str) -> bool {
    const ENDS: [&str; 8] = [
        " leaves the table",
        " is disconnected",
        " is connected",
        " has timed out",
        " has timed out while disconnected",
        " has returned",
        " is sitting out",
        ": sits out",
    ];
    ENDS.iter().any(|e| line.ends_with(e))
        || line.contains(" joins the table at seat #")
        || line.contains(" said, \"")
        || line.contains(" was removed from the table")
        || line.ends_with("will be allowed to play after the button")
        || line.contains(" has timed out while being disconnected")
}

/// The header with its id and date set aside: `Hold'em No Limit ($0.25/$0.50 USD)`.
fn header_key(line: &str) -> String {
    let rest = line.split_once(": ").map_or(line, |x| x.1).trim_start();
    rest.rsplit_once(" - ").map_or(rest, |x| x.0).to_string()
}

fn normalized(text: &str) -> Vec<String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !is_table_talk(l.trim_end()))
        .map(|(i, l)| {
            if i == 0 {
                header_key(l)
            } else {
                l.trim_end().to_string()
            }
        })
        .collect()
}

/// Compares a hand's text with the text written for it (see the module's notes).
pub fn compare(original: &str, written: &str) -> Option<Difference> {
    let (a, b) = (normalized(original), normalized(written));
    (0..a.len().max(b.len())).find_map(|i| {
        let (x, y) = (a.get(i), b.get(i));
        (x != y).then(|| Difference {
            line: i + 1,
            expected: x.cloned(),
            written: y.cloned(),
        })
    })
}

/// Writes an imported hand again in PokerStars text; a home game's header says so and
/// names its club (`PokerStars Home Game Hand #1: {Club}  Hold'em No Limit (1/2)`), which
/// the writer, for the server's own tables, never does.
pub fn write_back(hand: &ImportedHand) -> Result<String, String> {
    let written = write_hand(hand)?;
    Ok(match &hand.club {
        Some(club) => {
            let (first, rest) = written.split_once('\n').unwrap_or((&written, ""));
            let first = first
                .replacen("PokerStars Hand #", "PokerStars Home Game Hand #", 1)
                .replacen(":  ", &format!(": {{{club}}}  "), 1);
            format!("{first}\n{rest}")
        }
        None => written,
    })
}

fn write_hand(hand: &ImportedHand) -> Result<String, String> {
    let phh = hand.phh.to_toml();
    write_in(
        &Meta {
            hand_number: hand.hand_number,
            table_name: &hand.table_name,
            started_at_ms: hand.started_at_ms.unwrap_or(0),
            players: &hand.players,
            seats: &hand.seats,
            seat_count: hand.seat_count,
            button_seat: hand.button_seat,
            posts: &hand.posts,
            phh: &phh,
            viewer: hand.viewer,
            play_money: hand.play_money,
        },
        &hand.money,
    )
}

/// Reads, replays, writes back and compares one hand's text.
pub fn round_trip(text: &str) -> (Option<ImportedHand>, Outcome) {
    let hand = match read_hand(text) {
        Ok(h) => h,
        Err(e) => return (None, Outcome::NotRead(e)),
    };
    let outcome = match write_back(&hand) {
        Ok(written) => match compare(text, &written) {
            None => Outcome::Identical,
            Some(d) => Outcome::Differs(d),
        },
        Err(e) => Outcome::NotWritten(e),
    };
    (Some(hand), outcome)
}

/// Per game: hands seen, read (and so replayed by the engine), identical when written
/// back; and why the others were not read.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// By game name: (hands, read and replayed, identical).
    pub games: BTreeMap<String, (usize, usize, usize)>,
    /// Reasons hands were not read, with counts.
    pub skipped: BTreeMap<String, usize>,
}

impl Tally {
    /// Counts one hand.
    pub fn add(&mut self, game: &str, outcome: &Outcome) {
        let entry = self.games.entry(game.to_string()).or_default();
        entry.0 += 1;
        match outcome {
            Outcome::NotRead(e) => {
                let reason = match e {
                    ReadError::Line { .. } => "a line not understood".to_string(),
                    ReadError::Refused { reason, .. } => format!("engine refused: {reason}"),
                    ReadError::Disagrees(d) => {
                        format!("engine disagrees on {}", d.split(':').next().unwrap_or(""))
                    }
                    other => other.to_string(),
                };
                *self.skipped.entry(reason).or_default() += 1;
            }
            Outcome::Identical => {
                entry.1 += 1;
                entry.2 += 1;
            }
            _ => entry.1 += 1,
        }
    }

    /// The summary table, one line per game.
    pub fn report(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{:>6} {:>6} {:>9}  game", "hands", "read", "identical");
        for (game, (n, read, same)) in &self.games {
            let _ = writeln!(out, "{n:>6} {read:>6} {same:>9}  {game}");
        }
        for (why, n) in &self.skipped {
            let _ = writeln!(out, "  not read ({n}): {why}");
        }
        out
    }
}

/// A file's text: UTF-8 (a BOM is dropped later), else Windows-1252 as older PokerStars
/// files and their copies are (`€` is byte 0x80 there).
pub fn decode(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(t) => t.to_string(),
        Err(_) => bytes
            .iter()
            .map(|&b| match b {
                0x80 => '€',
                0xA3 => '£',
                b => b as char,
            })
            .collect(),
    }
}

/// The game a hand's header names (`Hold'em No Limit`), or `?`.
pub fn game_of_text(text: &str) -> String {
    let first = text.lines().next().unwrap_or("");
    if first.contains("Tournament #") {
        return "(tournament)".into();
    }
    let rest = first.split_once(": ").map_or("", |x| x.1).trim_start();
    let rest = match rest.strip_prefix('{') {
        Some(r) => r.split_once("} ").map_or(r, |x| x.1.trim_start()),
        None => rest,
    };
    rest.split(" (").next().unwrap_or("?").to_string()
}

/// Runs the round trip over every hand of a file's text: one line per hand on `out`,
/// and the tally.
pub fn run_text(text: &str, out: &mut String) -> (Tally, Vec<ImportedHand>) {
    run_text_with(text, out, false)
}

/// As [`run_text`]; with `verbose`, a hand that differs is followed by the whole text
/// written for it.
pub fn run_text_with(text: &str, out: &mut String, verbose: bool) -> (Tally, Vec<ImportedHand>) {
    let mut tally = Tally::default();
    let mut hands = Vec::new();
    for h in split(text) {
        let game = game_of_text(&h);
        let number = h
            .lines()
            .next()
            .and_then(|l| l.split('#').nth(1))
            .and_then(|l| l.split(':').next())
            .unwrap_or("?")
            .to_string();
        let (hand, outcome) = round_trip(&h);
        let _ = match &outcome {
            Outcome::Identical => writeln!(out, "#{number} {game}: identical"),
            Outcome::Differs(d) => writeln!(
                out,
                "#{number} {game}: line {} differs\n  text:    {}\n  written: {}",
                d.line,
                d.expected.as_deref().unwrap_or("(end)"),
                d.written.as_deref().unwrap_or("(end)")
            ),
            Outcome::NotWritten(e) => writeln!(out, "#{number} {game}: not written: {e}"),
            Outcome::NotRead(e) => writeln!(out, "#{number} {game}: not read: {e}"),
        };
        if let (true, Outcome::Differs(_), Some(h)) = (verbose, &outcome, &hand) {
            let written = write_back(h).unwrap_or_default();
            let _ = writeln!(
                out,
                "--- text\n{h_text}--- written\n{written}---",
                h_text = h.text
            );
        }
        tally.add(&game, &outcome);
        hands.extend(hand);
    }
    (tally, hands)
}
