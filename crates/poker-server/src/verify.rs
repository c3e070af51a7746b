//! `pokerd verify FILE [--seed HEX [--list HEX] | --no-seed]`: checks a hand's record as a
//! player (or the operator) downloads it (`/api/me/hands/{id}?format=replay`,
//! `/admin/hands/{id}?format=replay`): the deck's commitment, the seeds, each round's
//! tags and order, the reshuffles and every proof, that the record shows no card without
//! its proof, that each hand shown is what its player held, and that no reshuffle took a
//! card the viewer held. With `--seed`, also that the player's own seed was used (and with
//! `--list`, under the closed list of commitments the player was sent before revealing);
//! with `--no-seed`, that no seed is listed at the player's seat. Records of version 1
//! (hands dealt before version 2) are checked as version 1 checked them. Says what failed
//! and exits 1 on any failure, naming the failure's code (`FAILED (code): ...`, the codes
//! of docs/fairness/vectors.json's forged records).

use poker_fairness::{verify, Digest, MySeed, Record, Seed};
use std::path::Path;

/// Why a file does not verify.
#[derive(Debug, thiserror::Error)]
pub enum VerifyFileError {
    /// The file cannot be read.
    #[error("cannot read {path}: {error}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        error: std::io::Error,
    },
    /// Not a hand's record, or one without proofs.
    #[error("not a hand record with proofs: {0}")]
    Format(String),
    /// The deck does not check out.
    #[error("{0}")]
    Failed(#[from] poker_fairness::VerifyError),
    /// A version 1 record does not check out.
    #[error("{0}")]
    FailedV1(#[from] poker_fairness::v1::proof::VerifyError),
}

/// What a successful check says.
pub fn verify_file(path: &Path, mine: MySeed) -> Result<String, VerifyFileError> {
    let text = std::fs::read_to_string(path).map_err(|error| VerifyFileError::Read {
        path: path.display().to_string(),
        error,
    })?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| VerifyFileError::Format(e.to_string()))?;
    canonical(&value).map_err(VerifyFileError::Format)?;
    if value["fairness"]["version"] == 1 {
        let record: poker_fairness::v1::Record =
            serde_json::from_value(value).map_err(|e| VerifyFileError::Format(e.to_string()))?;
        let seed = match mine {
            MySeed::Sent { seed, .. } => Some(seed),
            _ => None,
        };
        let v = poker_fairness::v1::verify(&record, seed.as_ref())?;
        return Ok(format!(
            "verified (version 1): {} cards proved from the committed deck, {} seeds, {} reshuffles, {} cards dealt",
            v.cards, v.seeds, v.reshuffles, v.dealt
        ));
    }
    let record: Record =
        serde_json::from_value(value).map_err(|e| VerifyFileError::Format(e.to_string()))?;
    let v = verify(&record, mine)?;
    let mut out = format!(
        "verified: {} cards proved from the committed deck, {} openings show the reshuffles left your cards alone, {} seeds used ({} of players, {} of the house), {} reshuffles, {} cards dealt",
        v.cards, v.kept, v.seeds, v.player_seeds, v.house_seeds, v.reshuffles, v.dealt
    );
    if v.player_seeds == 0 {
        out.push_str("; NO player's seed was used: the order was the server's alone");
    }
    if !v.unrevealed.is_empty() {
        let seats: Vec<String> = v.unrevealed.iter().map(|s| s.to_string()).collect();
        out.push_str(&format!(
            "; seats {} committed a seed and did not reveal it",
            seats.join(", ")
        ));
    }
    match mine {
        MySeed::Sent { .. } => out.push_str("; your seed was used"),
        MySeed::None => out.push_str("; no seed was used in your name"),
        MySeed::Unknown => {}
    }
    Ok(out)
}

/// Whether `s` is a hand id as the page writes it: 36 lowercase characters with dashes.
fn is_uuid_text(s: &str) -> bool {
    s.len() == 36
        && s.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_digit() || ('a'..='f').contains(&c),
        })
}

/// Whether `s` is cards as the page writes them: a rank of `23456789TJQKA` and a suit
/// of `cdhs` each (or `??` where `unknown`); none (a player standing pat) is none.
fn is_cards_text(s: &str, unknown: bool) -> bool {
    let b = s.as_bytes();
    b.len().is_multiple_of(2)
        && b.chunks(2).all(|c| {
            (unknown && c == b"??") || (b"23456789TJQKA".contains(&c[0]) && b"cdhs".contains(&c[1]))
        })
}

/// Every value of the record in its one spelling (docs/fairness.md): hand ids as
/// lowercase UUID text, cards as rank and suit (the byte strings' lowercase hex is
/// checked as they are read). What a record's serde reading would forgive is refused.
fn canonical(v: &serde_json::Value) -> Result<(), String> {
    let id = |x: &serde_json::Value, what: &str| match x.as_str() {
        Some(s) if is_uuid_text(s) => Ok(()),
        _ => Err(format!("{what} is not a hand id in lowercase UUID text")),
    };
    id(&v["hand_id"], "hand_id")?;
    id(&v["fairness"]["hand_id"], "fairness.hand_id")?;
    for (i, e) in v["events"].as_array().into_iter().flatten().enumerate() {
        if let Some(cards) = e.get("cards") {
            if !cards.as_str().is_some_and(|s| is_cards_text(s, true)) {
                return Err(format!("events[{i}].cards is not cards as rank and suit"));
            }
        }
    }
    for list in ["cards", "kept"] {
        for (i, p) in v["fairness"][list]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            if !p["card"]
                .as_str()
                .is_some_and(|s| is_cards_text(s, false) && s.len() == 2)
            {
                return Err(format!(
                    "fairness.{list}[{i}].card is not a card as rank and suit"
                ));
            }
        }
    }
    Ok(())
}

const USAGE: &str = "usage: pokerd verify FILE [--seed HEX [--list HEX] | --no-seed]";

/// The command: prints what was checked, or what failed; the exit code says which.
pub fn run(args: &[String]) -> std::process::ExitCode {
    let mut seed = None;
    let mut list = None;
    let mut none = false;
    let mut file = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--seed" => match it.next().map(|s| s.parse::<Seed>()) {
                Some(Ok(s)) => seed = Some(s),
                _ => {
                    eprintln!("pokerd verify: --seed takes 64 lowercase hex digits");
                    return std::process::ExitCode::from(2);
                }
            },
            "--list" => match it.next().map(|s| s.parse::<Digest>()) {
                Some(Ok(d)) => list = Some(d),
                _ => {
                    eprintln!("pokerd verify: --list takes 64 lowercase hex digits");
                    return std::process::ExitCode::from(2);
                }
            },
            "--no-seed" => none = true,
            _ if file.is_none() => file = Some(arg.clone()),
            _ => {
                eprintln!("{USAGE}");
                return std::process::ExitCode::from(2);
            }
        }
    }
    let mine = match (seed, none, list) {
        (Some(seed), false, list) => MySeed::Sent { seed, list },
        (None, true, None) => MySeed::None,
        (None, false, None) => MySeed::Unknown,
        _ => {
            eprintln!("{USAGE}");
            return std::process::ExitCode::from(2);
        }
    };
    let Some(file) = file else {
        eprintln!("{USAGE}");
        return std::process::ExitCode::from(2);
    };
    match verify_file(Path::new(&file), mine) {
        Ok(said) => {
            println!("{file}: {said}");
            std::process::ExitCode::SUCCESS
        }
        Err(VerifyFileError::Failed(e)) => {
            eprintln!("{file}: FAILED ({}): {e}", e.code());
            std::process::ExitCode::FAILURE
        }
        Err(e @ VerifyFileError::Format(_)) => {
            eprintln!("{file}: FAILED (format): {e}");
            std::process::ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("{file}: FAILED: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
