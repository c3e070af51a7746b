//! The poker cash-game server: the admin API (and, next, the WebSocket gateway and the
//! per-table actors), started by `pokerd`.
//!
//! [`run`] takes a bound listener and a shutdown future, so tests start the real server on
//! port 0 and stop it cleanly.

pub mod admin;
pub mod config;
pub mod gateway;
pub mod table_actor;

use poker_store::{Persister, PersisterHandle, SqlStore, Store, TableId};
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::sync::Mutex;

pub use config::Config;

/// What every request handler shares.
pub struct AppState {
    /// The database.
    pub store: Arc<SqlStore>,
    /// The configuration.
    pub config: Arc<Config>,
    /// Commits finished hands in batches.
    pub persister: PersisterHandle,
    /// The running tables.
    pub tables: Mutex<HashMap<TableId, table_actor::TableHandle>>,
    /// Logged-in players by the SHA-256 of their token.
    pub sessions: Mutex<HashMap<String, gateway::Session>>,
    /// Turns true when the server is shutting down; every connection watches it.
    pub shutting_down: tokio::sync::watch::Receiver<bool>,
}

impl AppState {
    /// Starts the actor of a table from its stored rules.
    pub async fn open_table(&self, table_id: TableId, rules_json: &str) -> anyhow::Result<()> {
        let rules = serde_json::from_str(rules_json)?;
        let handle =
            table_actor::spawn(table_id, rules, self.store.clone(), self.persister.clone()).await?;
        self.tables.lock().await.insert(table_id, handle);
        Ok(())
    }
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
    let (shutdown_tx, shutting_down) = tokio::sync::watch::channel(false);
    let state = Arc::new(AppState {
        store: store.clone(),
        config: Arc::new(config),
        persister: Persister::spawn(store.clone(), 512),
        tables: Mutex::new(HashMap::new()),
        sessions: Mutex::new(HashMap::new()),
        shutting_down,
    });
    for table in store.tables().await? {
        if table.status == "open" {
            state.open_table(table.table_id, &table.config).await?;
        }
    }
    let app = admin::router()
        .route("/login", axum::routing::post(gateway::login))
        .route("/ws", axum::routing::get(gateway::ws))
        .with_state(state);
    // On shutdown, tell every connection to close, so serving ends without waiting for
    // clients to hang up.
    let shutdown = async move {
        shutdown.await;
        let _ = shutdown_tx.send(true);
    };
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await?;
    store.close().await;
    Ok(())
}
