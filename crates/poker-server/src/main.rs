//! `pokerd`: the poker cash-game server binary.
//!
//! Subcommands:
//! - `pokerd` or `pokerd serve` runs the server (configuration: config/default.toml,
//!   `POKER_CONFIG`, `POKER__SECTION__KEY` variables, `DATABASE_URL`).
//! - `pokerd replay PATH...` replays PHH hand histories (files or folders) and prints one
//!   JSON line per hand; exits 1 if any hand fails to replay or disagrees with its record.
//! - `pokerd verify FILE [--seed HEX]` checks the deck's proofs in a hand's record (the
//!   JSON a player downloads); exits 1, saying what failed, if anything does.
//! - `pokerd import FILE... [--out DIR]` reads PokerStars hand histories, replays every
//!   hand through the engine, writes it back and compares: one line per hand (identical,
//!   or the first line that differs, or why it was not read) and a summary per game;
//!   `--out DIR` writes each hand read as a PHH file; `--verbose` prints the text written
//!   for each hand that differs. Exits 1 unless every hand read
//!   came back identical.
//! - `pokerd backup PATH` writes a consistent copy of the configured SQLite database to
//!   the new file PATH while a pokerd runs on it; exits 1, saying why, if PATH exists, the
//!   database cannot be opened, or it is PostgreSQL (then it says how to back that up).
//! - `pokerd archive --before YYYY-MM-DD --to DIR` moves every complete or void hand dealt
//!   before that day (UTC midnight) out of the configured database (SQLite or PostgreSQL)
//!   into one verified file a month, `DIR/hands-YYYY-MM.jsonl` with its `.sha256`, then
//!   deletes them (`poker_store::SqlStore::archive_hands`; docs/operations.md, Archiving
//!   hands); one line on stdout says what it wrote and deleted. Exits 1, saying why, if
//!   the day is not a day or is after tomorrow, or a file or the database fails.

use poker_server::replay;

use std::path::PathBuf;
use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!("usage: pokerd [serve]           run the server");
    eprintln!("       pokerd replay PATH...   replay PHH hand histories (files or folders)");
    eprintln!("       pokerd verify FILE [--seed HEX]   check a hand record's deck proofs");
    eprintln!("       pokerd import FILE... [--out DIR] [--verbose]   read PokerStars histories, replay, compare");
    eprintln!("       pokerd backup PATH      copy the SQLite database, online, to a new file");
    eprintln!(
        "       pokerd archive --before YYYY-MM-DD --to DIR   move older hands to monthly files"
    );
    ExitCode::from(2)
}

fn serve() -> ExitCode {
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let result: anyhow::Result<()> = runtime.block_on(async {
        let config = poker_server::Config::load()?;
        poker_server::logging::init(&config.log)?;
        let listener = tokio::net::TcpListener::bind(&config.server.addr).await?;
        tracing::info!(
            "listening on http://{} ({config:?})",
            listener.local_addr()?
        );
        let shutdown = async {
            let ctrl_c = tokio::signal::ctrl_c();
            let mut term =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                    .expect("a SIGTERM handler");
            tokio::select! {
                _ = ctrl_c => {}
                _ = term.recv() => {}
            }
            tracing::info!("shutting down");
        };
        poker_server::run(listener, shutdown, config).await
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e:#}");
            eprintln!("pokerd: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// `pokerd backup PATH`: the configured database (as `serve` would read it) copied to
/// PATH; one line on stdout says what the copy holds.
fn backup(path: &str) -> ExitCode {
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let result = runtime.block_on(async {
        let config = poker_server::Config::load()?;
        Ok::<_, anyhow::Error>(
            poker_store::backup_database(&config.database.url, std::path::Path::new(path)).await,
        )
    });
    match result {
        Ok(Ok(copy)) => {
            println!(
                "pokerd backup: wrote {} ({} bytes) in {} ms: {} complete hands, {} in flight \
                 (void, their stacks as they began, once a pokerd starts on the copy)",
                copy.path.display(),
                copy.bytes,
                copy.elapsed.as_millis(),
                copy.complete_hands,
                copy.hands_in_flight
            );
            ExitCode::SUCCESS
        }
        Ok(Err(e)) => {
            eprintln!("pokerd backup: {e}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("pokerd backup: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// `pokerd archive --before YYYY-MM-DD --to DIR`: the hands dealt before the day moved
/// from the configured database to monthly files in DIR; one line on stdout says what was
/// written and deleted.
fn archive(args: &[String]) -> ExitCode {
    let mut before = None;
    let mut dir = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match (a.as_str(), it.next()) {
            // Each once: a second would silently win.
            ("--before", Some(day)) if before.is_none() => before = Some(day.clone()),
            ("--to", Some(d)) if dir.is_none() => dir = Some(PathBuf::from(d)),
            _ => return usage(),
        }
    }
    let (Some(day), Some(dir)) = (before, dir) else {
        return usage();
    };
    let Some(cutoff) = poker_store::day_start(&day) else {
        eprintln!("pokerd archive: --before {day:?} is not a day written YYYY-MM-DD");
        return ExitCode::FAILURE;
    };
    // A cutoff in the future would say that hands not yet dealt are archived.
    let tomorrow = poker_store::now_ms().div_euclid(86_400_000) * 86_400_000 + 86_400_000;
    if cutoff > tomorrow {
        eprintln!(
            "pokerd archive: --before {day} is after tomorrow ({}): hands are archived once dealt",
            poker_store::day_of(tomorrow)
        );
        return ExitCode::FAILURE;
    }
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let result = runtime.block_on(async {
        let config = poker_server::Config::load()?;
        let url = &config.database.url;
        // A database that is not there is refused, never created empty.
        if let Some(file) = url
            .strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
        {
            let file = file.split('?').next().unwrap_or(file);
            anyhow::ensure!(
                std::path::Path::new(file).is_file(),
                "the database {file} does not exist"
            );
        }
        let store = poker_store::SqlStore::connect(url).await?;
        let archived = store.archive_hands(cutoff, &dir).await;
        store.close().await;
        Ok::<_, anyhow::Error>(archived?)
    });
    match result {
        Ok(done) => {
            let hands: u64 = done.files.iter().map(|f| f.hands).sum();
            let bytes: u64 = done.files.iter().map(|f| f.bytes).sum();
            let files: Vec<String> = done
                .files
                .iter()
                .map(|f| {
                    let name = f.path.file_name().unwrap_or_default().to_string_lossy();
                    format!("{name} {} hands {} bytes", f.hands, f.bytes)
                })
                .collect();
            println!(
                "pokerd archive: {hands} hands dealt before {day} written to {} ({} file{}, \
                 {bytes} bytes{}{}), each with its .sha256; deleted {} hand rows and {} \
                 hand_player rows; {}; {} ms",
                dir.display(),
                done.files.len(),
                if done.files.len() == 1 { "" } else { "s" },
                if files.is_empty() { "" } else { ": " },
                files.join(", "),
                done.hands_deleted,
                done.players_deleted,
                if done.cutoff_recorded {
                    format!(
                        "cutoff {} (unix ms {}, never lowered)",
                        poker_store::day_of(done.before),
                        done.before
                    )
                } else {
                    "nothing archived: the cutoff is as it was".to_string()
                },
                done.elapsed.as_millis()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("pokerd archive: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// `pokerd import FILE... [--out DIR]`: the PokerStars round trip over files (see
/// `poker_history::pokerstars::import`).
fn import(args: &[String]) -> ExitCode {
    use poker_history::pokerstars::import::{run_text_with, Tally};
    let mut files = Vec::new();
    let mut out_dir: Option<PathBuf> = None;
    let mut verbose = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--verbose" {
            verbose = true;
        } else if a == "--out" {
            match it.next() {
                Some(d) => out_dir = Some(PathBuf::from(d)),
                None => return usage(),
            }
        } else {
            files.push(PathBuf::from(a));
        }
    }
    if let Some(dir) = &out_dir {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("pokerd import: {}: {e}", dir.display());
            return ExitCode::FAILURE;
        }
    }
    let mut total = Tally::default();
    for file in &files {
        let text = match std::fs::read(file) {
            Ok(bytes) => poker_history::pokerstars::import::decode(&bytes),
            Err(e) => {
                eprintln!("pokerd import: {}: {e}", file.display());
                return ExitCode::FAILURE;
            }
        };
        let mut lines = String::new();
        let (tally, hands) = run_text_with(&text, &mut lines, verbose);
        print!("{lines}");
        for (game, (n, read, same)) in tally.games {
            let t = total.games.entry(game).or_default();
            *t = (t.0 + n, t.1 + read, t.2 + same);
        }
        for (why, n) in tally.skipped {
            *total.skipped.entry(why).or_default() += n;
        }
        if let Some(dir) = &out_dir {
            for h in &hands {
                let path = dir.join(format!("{}.phh", h.hand_number));
                if let Err(e) = std::fs::write(&path, h.phh.to_toml()) {
                    eprintln!("pokerd import: {}: {e}", path.display());
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    print!("{}", total.report());
    let all_identical = total.games.values().all(|&(_, read, same)| read == same);
    if all_identical {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None | Some("serve") if args.len() <= 1 => serve(),
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
        Some("verify") if args.len() > 1 => poker_server::verify::run(&args[1..]),
        Some("backup") if args.len() == 2 => backup(&args[1]),
        Some("import") if args.len() > 1 => import(&args[1..]),
        Some("archive") => archive(&args[1..]),
        _ => usage(),
    }
}
