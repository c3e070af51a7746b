//! `pokerd verify FILE [--seed HEX]`: checks a hand's record as a player (or the operator)
//! downloads it (`/api/me/hands/{id}?format=replay`, `/admin/hands/{id}?format=replay`):
//! the deck's commitment, the seeds, the permutation, the reshuffles and every proof, and
//! that the record shows no card without its proof. With `--seed`, also that the player's
//! own seed was counted. Says what failed and exits 1 on any failure.

use poker_fairness::{verify, Record, Seed, Verified};
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
}

/// Checks one record file.
pub fn verify_file(path: &Path, my_seed: Option<&Seed>) -> Result<Verified, VerifyFileError> {
    let text = std::fs::read_to_string(path).map_err(|error| VerifyFileError::Read {
        path: path.display().to_string(),
        error,
    })?;
    let record: Record =
        serde_json::from_str(&text).map_err(|e| VerifyFileError::Format(e.to_string()))?;
    Ok(verify(&record, my_seed)?)
}

/// The command: prints what was checked, or what failed; the exit code says which.
pub fn run(args: &[String]) -> std::process::ExitCode {
    let mut seed = None;
    let mut file = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--seed" => match it.next().map(|s| s.parse::<Seed>()) {
                Some(Ok(s)) => seed = Some(s),
                _ => {
                    eprintln!("pokerd verify: --seed takes 64 hex digits");
                    return std::process::ExitCode::from(2);
                }
            },
            _ if file.is_none() => file = Some(arg.clone()),
            _ => {
                eprintln!("usage: pokerd verify FILE [--seed HEX]");
                return std::process::ExitCode::from(2);
            }
        }
    }
    let Some(file) = file else {
        eprintln!("usage: pokerd verify FILE [--seed HEX]");
        return std::process::ExitCode::from(2);
    };
    match verify_file(Path::new(&file), seed.as_ref()) {
        Ok(v) => {
            println!(
                "{file}: verified: {} cards proved from the committed deck, {} seeds, {} reshuffles, {} cards dealt{}",
                v.cards,
                v.seeds,
                v.reshuffles,
                v.dealt,
                if seed.is_some() { ", your seed counted" } else { "" }
            );
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{file}: FAILED: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
