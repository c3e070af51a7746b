//! The poker cash-game server: the admin API (and, next, the WebSocket gateway and the
//! per-table actors), started by `pokerd`.
//!
//! [`run`] takes a bound listener and a shutdown future, so tests start the real server on
//! port 0 and stop it cleanly.

pub mod admin;
pub mod config;
pub mod table_actor;

use poker_store::{SqlStore, Store};
use std::future::Future;
use std::sync::Arc;
use tokio::net::TcpListener;

pub use config::Config;

/// What every request handler shares.
pub struct AppState {
    /// The database.
    pub store: Arc<SqlStore>,
    /// The configuration.
    pub config: Arc<Config>,
}

/// Serves until `shutdown` completes: connects the database (running migrations), voids
/// hands a previous run left unfinished, then answers requests.
pub async fn run(
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
    config: Config,
) -> anyhow::Result<()> {
    let store = Arc::new(SqlStore::connect(&config.database.url).await?);
    let voided = store.recover().await?;
    if !voided.is_empty() {
        eprintln!(
            "pokerd: {} unfinished hands from the last run are void",
            voided.len()
        );
    }
    let state = Arc::new(AppState {
        store: store.clone(),
        config: Arc::new(config),
    });
    let app = admin::router().with_state(state);
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await?;
    store.close().await;
    Ok(())
}
