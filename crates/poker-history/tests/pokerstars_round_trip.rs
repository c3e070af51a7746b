//! The PokerStars round trip: text is read into the engine's record, replayed through
//! the engine, written again, and must come out as it went in.
//!
//! - `authored_pokerstars_hands_come_back_byte_for_byte`: the hand histories committed in
//!   `tests/pokerstars/` (hands our engine dealt from fixed seeds, written by our writer
//!   in PokerStars form, one file per game, and hand-made edge cases: run it twice, a
//!   straddle, all-in side pots, a dead small blind posted with the big) are read,
//!   replayed and written back byte for byte, chips conserved.
//! - `authored_fixtures_are_what_the_engine_deals_today`: the committed files are what the
//!   seeds and the writer produce now (`POKER_STARS_REGENERATE=1` rewrites them after a
//!   deliberate change of the writer).
//! - `golden_real_pokerstars_hands`: real PokerStars hand histories, which cannot be
//!   committed (third-party text), from the folder named by `POKER_STARS_FIXTURES`; per
//!   game, hands read, replayed and identical when written back are printed.

mod pokerstars_gen;

use poker_history::phh::replay;
use poker_history::pokerstars::import::{decode, run_text_with, write_back};
use poker_history::pokerstars::read::{read_hand, split, ReadError};
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pokerstars")
}

/// Every chip a hand started with is in a stack or the rake when it ends.
fn assert_conserved(hand: &poker_history::pokerstars::read::ImportedHand) {
    let played = replay(&hand.phh).expect("the record replays");
    let start: u64 = played.hand.config().seats.iter().map(|s| s.stack).sum();
    let end: u64 = played.hand.final_stacks().expect("complete").iter().sum();
    assert_eq!(
        start,
        end + played.hand.rake(),
        "hand #{}: chips not conserved",
        hand.hand_number
    );
}

#[test]
fn authored_pokerstars_hands_come_back_byte_for_byte() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .expect("tests/pokerstars exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    assert!(files.len() >= 12, "a file per game and the edge cases");
    let mut total = 0;
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable");
        let hands = split(&text);
        assert!(!hands.is_empty(), "{}: no hands", file.display());
        for h in &hands {
            let hand = read_hand(h).unwrap_or_else(|e| panic!("{}: {e}\n{h}", file.display()));
            assert_conserved(&hand);
            let written = write_back(&hand).expect("written");
            if &written != h {
                // The first line that differs, byte for byte (line ends included).
                let (a, b): (Vec<&str>, Vec<&str>) = (
                    h.split_inclusive('\n').collect(),
                    written.split_inclusive('\n').collect(),
                );
                let k = (0..a.len().max(b.len()))
                    .find(|&k| a.get(k) != b.get(k))
                    .unwrap_or(0);
                failures.push(format!(
                    "{} #{} line {}:\n  text:    {:?}\n  written: {:?}",
                    file.file_name().unwrap_or_default().to_string_lossy(),
                    hand.hand_number,
                    k + 1,
                    a.get(k),
                    b.get(k)
                ));
            }
            total += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {total} hands do not come back byte for byte:\n{}",
        failures.len(),
        failures.join("\n")
    );
    println!(
        "{total} authored hands in {} files came back byte for byte",
        files.len()
    );
}

#[test]
fn authored_fixtures_are_what_the_engine_deals_today() {
    let regenerate = std::env::var_os("POKER_STARS_REGENERATE").is_some();
    for (name, text) in pokerstars_gen::all_files() {
        let path = fixtures().join(format!("{name}.txt"));
        if regenerate {
            std::fs::create_dir_all(fixtures()).expect("folder");
            std::fs::write(&path, &text).expect("written");
            continue;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (POKER_STARS_REGENERATE=1 writes it)",
                path.display()
            )
        });
        assert!(
            committed == text,
            "{} differs from what the seeds deal and the writer writes now; if the writer \
             changed on purpose, rerun with POKER_STARS_REGENERATE=1",
            path.display()
        );
    }
}

#[test]
fn a_tournament_or_a_game_the_engine_does_not_play_is_a_typed_error() {
    use poker_history::pokerstars::read::ReadError;
    let tournament = "PokerStars Hand #1: Tournament #2, $1+$0.10 USD Hold'em No Limit - \
                      Level I (10/20) - 2020/01/01 10:00:00 ET\nTable '2 1' 9-max Seat #1 is the button\n";
    assert_eq!(read_hand(tournament).unwrap_err(), ReadError::Tournament);
    let courchevel = "PokerStars Hand #1:  Courchevel Pot Limit ($0.50/$1 USD) - \
                      2016/04/01 10:00:00 ET\nTable 'T' 6-max Seat #1 is the button\n";
    assert_eq!(
        read_hand(courchevel).unwrap_err(),
        ReadError::UnsupportedGame("Courchevel Pot Limit".into())
    );
    // A hand whose pot the text gives to the wrong player is refused, not imported.
    let text = std::fs::read_to_string(fixtures().join("holdem_no_limit.txt")).expect("fixture");
    let hand = split(&text)
        .into_iter()
        .find(|h| h.contains(" collected "))
        .expect("a pot");
    let line = hand
        .lines()
        .find(|l| l.contains(" collected ") && !l.starts_with("Seat "))
        .expect("line");
    // `collected $4.64` becomes `collected $14.64`.
    let wrong = hand.replace(line, &line.replace(" collected $", " collected $1"));
    assert_ne!(wrong, hand);
    assert!(
        matches!(read_hand(&wrong), Err(ReadError::Disagrees(_))),
        "{:?}",
        read_hand(&wrong).map(|h| h.hand_number)
    );
}

#[test]
fn golden_real_pokerstars_hands() {
    let Some(dir) = std::env::var_os("POKER_STARS_FIXTURES") else {
        println!(
            "golden_real_pokerstars_hands SKIPPED: POKER_STARS_FIXTURES is not set. Real \
             PokerStars hand histories are third-party text and are not in the repository; \
             set POKER_STARS_FIXTURES=/path/to/folder of PokerStars .txt files to run it."
        );
        return;
    };
    let mut files = Vec::new();
    let mut stack = vec![PathBuf::from(dir)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("a readable folder") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "txt") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut total = poker_history::pokerstars::import::Tally::default();
    // `POKER_STARS_LOG=FILE`: each hand's outcome, and the whole text of each hand that
    // differs, as `pokerd import --verbose` prints them.
    let log = std::env::var_os("POKER_STARS_LOG");
    let mut all_lines = String::new();
    for file in &files {
        let text = decode(&std::fs::read(file).expect("readable"));
        let mut lines = String::new();
        let (tally, hands) = run_text_with(&text, &mut lines, log.is_some());
        all_lines.push_str(&lines);
        for h in &hands {
            assert_conserved(h);
            // What the writer writes reads again and is written the same way: its text
            // is a fixed point of the round trip, whatever it was read from.
            if let Ok(written) = write_back(h) {
                let again = read_hand(&written).unwrap_or_else(|e| {
                    panic!("#{}: written text not read: {e}\n{written}", h.hand_number)
                });
                let twice = write_back(&again).expect("written again");
                assert!(
                    twice == written,
                    "#{}: not a fixed point\n{written}---\n{twice}",
                    h.hand_number
                );
            }
        }
        for (game, (n, read, same)) in tally.games {
            let t = total.games.entry(game).or_default();
            *t = (t.0 + n, t.1 + read, t.2 + same);
        }
        for (why, n) in tally.skipped {
            *total.skipped.entry(why).or_default() += n;
        }
    }
    if let Some(log) = log {
        std::fs::write(&log, &all_lines).expect("the log is written");
    }
    println!("{} files\n{}", files.len(), total.report());
    assert!(total.games.values().any(|g| g.1 > 0), "no hand was read");
}

/// A file `pokerd import` reads is outside input: a damaged or hostile hand (a line cut
/// short, dropped, repeated, its words reversed, a header whose parts come out of order)
/// is a typed error or a hand, never a panic.
#[test]
fn damaged_pokerstars_text_is_a_typed_error_never_a_panic() {
    let mut variants = vec![
        "PokerStars Hand #1: X) - Hold'em No Limit (1/2) - 2020/01/01 1:00:00 ET".to_string(),
        "PokerStars Hand #1:  Hold'em No Limit (".to_string(),
        "PokerStars Hand #".to_string(),
    ];
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let Some(hand) = split(&text).into_iter().next() else {
            continue;
        };
        let lines: Vec<&str> = hand.lines().collect();
        for i in 0..lines.len() {
            let with = |line: Option<String>| {
                let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                match line {
                    Some(l) => out[i] = l,
                    None => {
                        out.remove(i);
                    }
                }
                out.join("\n")
            };
            let cut: String = lines[i]
                .chars()
                .take(lines[i].chars().count() / 2)
                .collect();
            let reversed: Vec<&str> = lines[i].split(' ').rev().collect();
            variants.push(with(Some(cut)));
            variants.push(with(None));
            variants.push(with(Some(format!("{}\n{}", lines[i], lines[i]))));
            variants.push(with(Some(reversed.join(" "))));
        }
    }
    let mut refused = 0;
    for v in &variants {
        let outcome = std::panic::catch_unwind(|| read_hand(v).is_err());
        match outcome {
            Ok(err) => refused += usize::from(err),
            Err(_) => panic!("reading panicked on:\n{v}"),
        }
    }
    println!(
        "{} damaged hands read: {refused} refused with a typed error",
        variants.len()
    );
    assert!(refused > 0);
}

/// The fuzz target's property on one input: every hand read is written back, and the
/// written text reads again and is written the same way a second time.
fn assert_refused_or_fixed_point(name: &str, bytes: &[u8]) -> (usize, usize) {
    let (mut read, mut refused) = (0, 0);
    for hand_text in split(&decode(bytes)) {
        let Ok(hand) = read_hand(&hand_text) else {
            refused += 1;
            continue;
        };
        read += 1;
        let written = write_back(&hand).unwrap_or_else(|e| panic!("{name}: not written: {e}"));
        let again = read_hand(&written)
            .unwrap_or_else(|e| panic!("{name}: the written text does not read: {e}\n{written}"));
        let twice = write_back(&again).expect("written again");
        assert_eq!(
            twice, written,
            "{name}: the writer's text is no fixed point"
        );
    }
    (read, refused)
}

#[test]
fn every_fuzz_regression_is_refused_or_comes_back_the_same() {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions/pokerstars_reader");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fuzz/regressions/pokerstars_reader exists")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert!(files.len() >= 6, "the regression inputs are there");
    for file in files {
        let name = file
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let (read, refused) = assert_refused_or_fixed_point(&name, &std::fs::read(&file).unwrap());
        println!("{name}: {read} read, {refused} refused");
    }
}

/// A hand with the given header stakes and post lines, folded round to the big blind.
fn hand_with_posts(game: &str, stakes: &str, posts: &[&str]) -> String {
    let mut text = format!(
        "PokerStars Hand #5:  {game} ({stakes}) - 2026/11/22 6:43:00 ET\n\
         Table 'T' 9-max Seat #7 is the button\n\
         Seat 2: Ann (1130 in chips) \n\
         Seat 8: Bob 2 (280 in chips) \n"
    );
    for p in posts {
        text.push_str(p);
        text.push('\n');
    }
    text.push_str("*** HOLE CARDS ***\nBob 2: folds \n*** SUMMARY ***\n");
    text
}

#[test]
fn blinds_the_writer_would_name_otherwise_and_headers_read_in_part_are_refused() {
    let refused = [
        // fuzz crash-0acb14be: a small blind as big as the big blind (the writer names
        // both big blinds, and the second reads as a new player's post).
        hand_with_posts(
            "6+ Hold'em No Limit",
            "Button Blind 5 - Ante 5",
            &["Ann: posts big blind 5", "Bob 2: posts small blind 5"],
        ),
        // The garbled header and the leading zero of that input.
        hand_with_posts(
            "6+ Hold'em No Limit",
            "Button Bl0fd1 i - Ante 5",
            &["Bob 2: posts small blind 2", "Ann: posts big blind 5"],
        ),
        hand_with_posts("Hold'em No Limit", "5/10", &["Bob 2: posts small blind 5", "Ann: posts big blind 010"]),
        // fuzz crash-6497e263: two headers run together.
        "PokerStars Hand #1:  6+ Hold'em No Limit (Button Blind 10 - AntPokerStars Hand #2:  Omaha Hi/Lo Pot Limit (5/11) - 2026/11/22 11:44:00 ET\nTable 'T' 9-max Seat #7 is the button\nSeat 1: Ann (590 in chips) \nSeat 2: Bob 2 (10 in chips) \nAnn: folds \n*** SUMMARY ***\n".to_string(),
        // Blinds other than the header's, a small blind without a big blind, a button
        // blind outside 6+, a post with words after its amount.
        hand_with_posts("Hold'em No Limit", "5/10", &["Bob 2: posts small blind 5", "Ann: posts big blind 20"]),
        hand_with_posts("Hold'em No Limit", "5/10", &["Bob 2: posts small blind 5"]),
        hand_with_posts("Hold'em No Limit", "5/10", &["Ann: posts button blind 10"]),
        hand_with_posts("Hold'em No Limit", "5/10", &["Bob 2: posts small blind 5", "Ann: posts big blind 10 x"]),
        // A post by a seat sitting out, past the stack, or a dead small blind and then
        // the big blind's own post (written as `small & big blinds`, which reads as a
        // new player's post).
        hand_with_posts(
            "Hold'em No Limit",
            "5/10",
            &["Bob 2: posts small blind 5", "Ann: posts big blind 10"],
        )
        .replace("(280 in chips) ", "(280 in chips) is sitting out"),
        hand_with_posts(
            "Hold'em No Limit",
            "5/10",
            &["Bob 2: posts small blind 5", "Ann: posts big blind 10"],
        )
        .replace("(280 in chips) ", "(3 in chips) "),
        hand_with_posts(
            "Hold'em No Limit",
            "5/10",
            &[
                "Bob 2: posts small blind 5",
                "Ann: posts small blind 5",
                "Ann: posts big blind 10",
            ],
        ),
        // A date that is no date.
        hand_with_posts("Hold'em No Limit", "5/10", &["Bob 2: posts small blind 5", "Ann: posts big blind 10"])
            .replace("2026/11/22", "2026/:1/22"),
    ];
    for text in &refused {
        assert!(
            matches!(read_hand(text), Err(ReadError::Line { .. })),
            "refused as a line: {text}"
        );
    }
    // The same hand as PokerStars writes it reads, and comes back the same.
    let good = hand_with_posts(
        "Hold'em No Limit",
        "5/10",
        &["Bob 2: posts small blind 5", "Ann: posts big blind 10"],
    )
    .replace(
        "*** SUMMARY ***\n",
        "Uncalled bet (5) returned to Ann\nAnn collected 10 from pot\n*** SUMMARY ***\n",
    );
    assert_eq!(
        assert_refused_or_fixed_point("good", good.as_bytes()),
        (1, 0)
    );
}
