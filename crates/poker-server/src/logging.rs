//! Logs through `tracing`: text lines for people or JSON objects for collectors
//! (`[log] format`), filtered by `[log] level` or `RUST_LOG`. Spans carry the ids that
//! tie events together: `table_id` (and `hand_id` while a hand runs) inside a table's
//! actor, `player_id` on an authenticated connection, method and path on HTTP requests.

use crate::config::LogConfig;
use tracing_subscriber::EnvFilter;

/// Installs the global subscriber (once; later calls are no-ops).
pub fn init(config: &LogConfig) -> anyhow::Result<()> {
    let filter = match std::env::var("RUST_LOG") {
        Ok(env) if !env.is_empty() => EnvFilter::try_new(env)?,
        _ => EnvFilter::try_new(&config.level)?,
    };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let installed = match config.format.as_str() {
        "json" => builder
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .try_init(),
        "text" => builder
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .try_init(),
        other => anyhow::bail!("log.format must be text or json, not {other:?}"),
    };
    // A subscriber already installed (tests start several servers) is fine.
    let _ = installed;
    Ok(())
}
