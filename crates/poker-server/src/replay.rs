//! `pokerd replay PATH...`: replays PHH hand histories through the rules engine so an
//! operator can verify a disputed hand. One JSON line per hand goes to stdout; any hand
//! that cannot be replayed or disagrees with its recorded finishing stacks makes the
//! command fail.

use poker_history::phh::{self, PhhHand};
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Every `.phh` and `.phhs` file under the given paths (folders recursively), sorted.
pub fn collect_files(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(path)?
                .map(|e| e.map(|e| e.path()))
                .collect::<Result<_, _>>()?;
            entries.sort();
            files.extend(
                collect_files(&entries)?
                    .into_iter()
                    .filter(|p| is_history(p) || p.is_dir()),
            );
        } else if path.exists() {
            files.push(path.clone());
        } else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("{} does not exist", path.display()),
            ));
        }
    }
    Ok(files)
}

fn is_history(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("phh" | "phhs")
    )
}

fn stacks_json(stacks: &[f64]) -> Value {
    Value::Array(
        stacks
            .iter()
            .map(|&s| {
                if s.fract() == 0.0 && s.abs() < 9e15 {
                    json!(s as i64)
                } else {
                    json!(s)
                }
            })
            .collect(),
    )
}

fn line(source: String, hand: Result<PhhHand, phh::PhhError>) -> (Value, bool) {
    match hand {
        Err(e) => (json!({ "source": source, "error": e.to_string() }), false),
        Ok(hand) => match phh::replay(&hand) {
            Ok(r) => (
                json!({
                    "source": source,
                    "variant": hand.variant.code(),
                    "finishing_stacks": stacks_json(&r.finishing_stacks),
                }),
                true,
            ),
            Err(e) => (
                json!({ "source": source, "variant": hand.variant.code(), "error": e.to_string() }),
                false,
            ),
        },
    }
}

/// Replays every history under `paths`, writing one JSON line per hand to `out`.
/// Returns how many hands were replayed and how many failed.
pub fn run(paths: &[PathBuf], out: &mut impl Write) -> anyhow::Result<(usize, usize)> {
    let (mut total, mut failed) = (0, 0);
    for file in collect_files(paths)? {
        let text = std::fs::read_to_string(&file)?;
        let source = file.display().to_string();
        let results: Vec<(String, Result<PhhHand, phh::PhhError>)> =
            if file.extension().and_then(|e| e.to_str()) == Some("phhs") {
                match PhhHand::parse_many(&text) {
                    Ok(hands) => hands
                        .into_iter()
                        .map(|(k, h)| (format!("{source}#{k}"), h))
                        .collect(),
                    Err(e) => vec![(source, Err(e))],
                }
            } else {
                vec![(source, PhhHand::parse(&text))]
            };
        for (source, hand) in results {
            let (value, ok) = line(source, hand);
            total += 1;
            failed += usize::from(!ok);
            writeln!(out, "{value}")?;
        }
    }
    Ok((total, failed))
}
