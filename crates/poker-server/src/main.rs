//! `pokerd`: the poker cash-game server binary.
//!
//! Subcommands:
//! - `pokerd replay PATH...` replays PHH hand histories (files or folders) and prints one
//!   JSON line per hand; exits 1 if any hand fails to replay or disagrees with its record.

mod replay;

use std::path::PathBuf;
use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!("usage: pokerd replay PATH...   replay PHH hand histories (files or folders)");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("replay") if args.len() > 1 => {
            let paths: Vec<PathBuf> = args[1..].iter().map(PathBuf::from).collect();
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            match replay::run(&paths, &mut out) {
                Ok((total, failed)) => {
                    drop(out);
                    eprintln!("replayed {total} hands, {failed} failed");
                    if failed == 0 {
                        ExitCode::SUCCESS
                    } else {
                        ExitCode::FAILURE
                    }
                }
                Err(e) => {
                    eprintln!("pokerd replay: {e:#}");
                    ExitCode::FAILURE
                }
            }
        }
        _ => usage(),
    }
}
