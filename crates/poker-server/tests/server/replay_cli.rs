//! `pokerd replay` run as an operator would: the real binary on real histories.

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus() -> PathBuf {
    match std::env::var_os("PHH_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/phh"),
    }
}

fn pokerd(args: &[&str]) -> (i32, Vec<serde_json::Value>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pokerd"))
        .args(args)
        .output()
        .expect("pokerd runs");
    let lines = String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    (
        out.status.code().unwrap_or(-1),
        lines,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pokerd-replay-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn replaying_a_folder_prints_one_json_line_per_hand_and_succeeds() {
    let dir = corpus().join("wsop");
    let (code, lines, stderr) = pokerd(&["replay", dir.to_str().expect("utf-8 path")]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(lines.len(), 83);
    let first = lines[0].as_object().expect("an object");
    let keys: Vec<&str> = first.keys().map(String::as_str).collect();
    assert_eq!(keys, ["source", "variant", "finishing_stacks"]);
    let one = lines
        .iter()
        .find(|l| {
            l["source"]
                .as_str()
                .is_some_and(|s| s.ends_with("/5/1.phh"))
        })
        .expect("hand 1");
    assert_eq!(one["variant"], "NT");
    assert_eq!(
        one["finishing_stacks"],
        serde_json::json!([7340000, 3775000, 5110000, 8935000, 4545000])
    );
}

#[test]
fn a_phhs_file_is_replayed_hand_by_hand_and_a_wrong_record_fails_the_run() {
    let dir = scratch("phhs");
    let hand = std::fs::read_to_string(corpus().join("wsop/2023/43/5/1.phh")).expect("readable");
    let tampered = hand.replace(
        "finishing_stacks = [7340000,",
        "finishing_stacks = [7340001,",
    );
    let file = dir.join("two.phhs");
    std::fs::write(&file, format!("[1]\n{hand}\n[2]\n{tampered}\n")).expect("written");
    let (code, lines, _) = pokerd(&["replay", file.to_str().expect("utf-8")]);
    assert_eq!(code, 1);
    assert_eq!(lines.len(), 2);
    assert!(lines[0]["source"]
        .as_str()
        .expect("source")
        .ends_with("two.phhs#1"));
    assert!(lines[0].get("error").is_none());
    assert!(lines[1]["source"]
        .as_str()
        .expect("source")
        .ends_with("two.phhs#2"));
    assert!(lines[1]["error"]
        .as_str()
        .expect("an error")
        .contains("finishing stacks differ"));
}

#[test]
fn fractional_chips_are_replayed_exactly_and_half_chips_of_split_pots_are_tolerated() {
    let (code, lines, stderr) = pokerd(&[
        "replay",
        corpus()
            .join("antonius-blom-2009.phh")
            .to_str()
            .expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        lines[0]["finishing_stacks"],
        serde_json::json!([1937923.75, 0])
    );
}

#[test]
fn a_missing_path_or_an_unknown_command_is_an_error() {
    let (code, _, stderr) = pokerd(&["replay", "/nonexistent/hands"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("does not exist"), "{stderr}");
    let (code, _, stderr) = pokerd(&["no-such-command"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("usage"));
}
