//! Replays the whole PHH corpus (testdata/phh in this repository: 10,088 real hands of every variant)
//! through the engine and checks every recorded finishing stack.

use poker_history::phh::{self, PhhHand};
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    match std::env::var_os("PHH_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/phh"),
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "phh") {
            out.push(path);
        }
    }
}

#[test]
fn every_corpus_hand_replays_and_reproduces_its_finishing_stacks() {
    let dir = corpus_dir();
    assert!(
        dir.is_dir(),
        "the PHH corpus must be at {} (or set PHH_CORPUS)",
        dir.display()
    );
    let mut files = Vec::new();
    walk(&dir, &mut files);
    assert_eq!(files.len(), 10_088, "the corpus holds 10,088 hands");
    let (mut checked, mut unrecorded) = (0, 0);
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable");
        let result = PhhHand::parse(&text).and_then(|hand| {
            let recorded = hand.finishing_stacks.is_some();
            phh::replay(&hand).map(|_| recorded)
        });
        match result {
            Ok(true) => checked += 1,
            Ok(false) => unrecorded += 1,
            Err(e) => failures.push(format!("{}: {e}", file.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} hands failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!((checked, unrecorded), (10_083, 5));
}

#[test]
fn a_history_whose_recorded_result_is_wrong_is_reported_as_a_mismatch() {
    let text =
        std::fs::read_to_string(corpus_dir().join("wsop/2023/43/5/1.phh")).expect("readable");
    let tampered = text.replace(
        "finishing_stacks = [7340000, 3775000",
        "finishing_stacks = [7340001, 3774999",
    );
    let hand = PhhHand::parse(&tampered).expect("still valid PHH");
    assert!(matches!(
        phh::replay(&hand),
        Err(phh::PhhError::Mismatch { .. })
    ));
}

#[test]
fn a_history_breaking_a_rule_is_refused_with_the_engine_reason() {
    let text =
        std::fs::read_to_string(corpus_dir().join("wsop/2023/43/5/1.phh")).expect("readable");
    // Raising to less than the minimum.
    let broken = text.replace("'p4 cbr 170000'", "'p4 cbr 90000'");
    let hand = PhhHand::parse(&broken).expect("still valid PHH");
    match phh::replay(&hand) {
        Err(phh::PhhError::Refused { index, .. }) => assert_eq!(index, 6),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn r31_a_check_by_the_one_player_left_with_chips_as_pokerkit_writes_it_changes_nothing() {
    // p1 shoves, p2 calls all in for less, p3 calls with chips behind: nobody can bet,
    // the board is dealt out (R31). pokerkit asks p3 to check on each street; the
    // engine takes those checks as the no-ops they are and ends with the same stacks.
    let base = |extra: &str| {
        format!(
            r#"
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 50, 300]
actions = ["d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 QcQd", "p3 cc", "p1 cbr 100", "p2 cc", "p3 cc",
  "d db 2h3h4s", {extra}"d db 9c", {extra}"d db Ts", {extra}"p1 sm AcAd", "p2 sm KcKd", "p3 sm QcQd"]
"#
        )
    };
    let plain = phh::replay(&PhhHand::parse(&base("")).unwrap()).unwrap();
    let with_checks = phh::replay(&PhhHand::parse(&base(r#""p3 cc", "#)).unwrap()).unwrap();
    assert_eq!(plain.finishing_stacks, with_checks.finishing_stacks);
    assert_eq!(plain.finishing_stacks, vec![250.0, 0.0, 200.0]);
    // A check by someone who could still face a bet is refused as before.
    let early = base("").replace(r#""p3 cc", "p1 cbr 100""#, r#""p1 cc", "p3 cc""#);
    assert!(phh::replay(&PhhHand::parse(&early).unwrap()).is_err());
}

#[test]
fn a_players_history_hides_every_card_they_did_not_see_and_replays_to_the_same_stacks() {
    // Stud hi/lo (up cards public) and 2-7 triple draw (discards secret).
    for file in ["wsop/2023/43/5/53.phh", "wsop/2023/43/5/57.phh"] {
        let text = std::fs::read_to_string(corpus_dir().join(file)).expect("readable");
        let full = PhhHand::parse(&text).unwrap();
        let mine = phh::for_viewer(&full, 0).unwrap();
        let written = mine.to_toml();
        let again = PhhHand::parse(&written).unwrap();
        assert_eq!(
            phh::replay(&again).unwrap().finishing_stacks,
            phh::replay(&full).unwrap().finishing_stacks,
            "{file}"
        );
        let shown: Vec<&String> = full.actions.iter().filter(|a| a.contains(" sm ")).collect();
        for (theirs, ours) in full.actions.iter().zip(&mine.actions) {
            let words: Vec<&str> = theirs.split_whitespace().collect();
            match words.as_slice() {
                ["d", "dh", "p1", _] | ["p1", "sd", ..] => assert_eq!(theirs, ours),
                ["d", "dh", p, cards] => {
                    // Only face-up cards survive: in stud the third, fourth... but never
                    // the first two or the seventh; in draw games none.
                    let hidden = ours.rsplit(' ').next().unwrap();
                    assert_eq!(hidden.len(), cards.len(), "{ours}");
                    let up_only = file.ends_with("53.phh") && cards.len() == 2;
                    if !up_only {
                        assert!(hidden.starts_with("??"), "{p}: {ours}");
                    }
                }
                [_, "sd", cards] => assert!(ours.ends_with(&"?".repeat(cards.len())), "{ours}"),
                _ => assert_eq!(theirs, ours),
            }
        }
        assert!(shown.iter().all(|s| mine.actions.contains(s)), "{file}");
    }
}

#[test]
fn a_history_with_amounts_past_max_chips_is_refused_not_overflowed() {
    // The fuzzer's finding (fuzz/regressions/phh_reader): a stake of 1e300 chips became
    // u64::MAX and overflowed the raise bounds at the first decision.
    for (field, huge) in [
        ("min_bet = 2", "min_bet = 1e300"),
        ("min_bet = 2", "min_bet = 1e16"),
        (
            "starting_stacks = [100, 100]",
            "starting_stacks = [1e300, 100]",
        ),
        (
            "starting_stacks = [100, 100]",
            "starting_stacks = [9007199254740992, 9007199254740992]",
        ),
    ] {
        let text = "variant = 'NT'\nmin_bet = 2\nblinds_or_straddles = [1, 2]\n\
                    starting_stacks = [100, 100]\n\
                    actions = ['d dh p1 Th8h', 'd dh p2 QsJd', 'p2 cc']\n"
            .replace(field, huge);
        let hand = PhhHand::parse(&text).expect("valid PHH");
        match phh::replay(&hand) {
            Err(phh::PhhError::Config(reason)) => {
                assert!(reason.contains("at most"), "{huge}: {reason}")
            }
            other => panic!("{huge}: expected the configuration refused, got {other:?}"),
        }
    }
}
