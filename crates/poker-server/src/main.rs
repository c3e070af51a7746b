//! `pokerd`: the poker cash-game server binary.
//!
//! Subcommands:
//! - `pokerd` or `pokerd serve` runs the server (configuration: config/default.toml,
//!   `POKER_CONFIG`, `POKER__SECTION__KEY` variables, `DATABASE_URL`).
//! - `pokerd replay PATH...` replays PHH hand histories (files or folders) and prints one
//!   JSON line per hand; exits 1 if any hand fails to replay or disagrees with its record.
//! - `pokerd verify FILE [--seed HEX]` checks the deck's proofs in a hand's record (the
//!   JSON a player downloads); exits 1, saying what failed, if anything does.

use poker_server::replay;

use std::path::PathBuf;
use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!("usage: pokerd [serve]           run the server");
    eprintln!("       pokerd replay PATH...   replay PHH hand histories (files or folders)");
    eprintln!("       pokerd verify FILE [--seed HEX]   check a hand record's deck proofs");
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
        _ => usage(),
    }
}
