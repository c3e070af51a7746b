//! The poker cash-game server: per-table actors, the players' WebSocket gateway, the
//! admin API, metrics, started by `pokerd`.
//!
//! [`run`] takes a bound listener and a shutdown future, so tests start the real server on
//! port 0 and stop it cleanly.

pub mod away;
pub mod backfill;
pub mod cluster;
pub mod config;
pub mod connections;
pub mod fairplay;
pub mod first_run;
pub mod house;
pub mod http;
pub mod lobby;
pub mod logging;
pub mod metrics;
pub mod presets;
pub mod private;
pub mod registry;
pub mod replay;
pub mod room_clock;
pub mod sessions;
pub mod table;
pub mod verify;
pub mod web;
pub mod ws;

use poker_store::{Persister, PersisterHandle, SqlStore, TableId};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

pub use config::Config;

/// What every request handler shares.
pub struct AppState {
    /// The database.
    pub store: Arc<SqlStore>,
    /// The configuration.
    pub config: Arc<Config>,
    /// Commits finished hands in batches.
    pub persister: PersisterHandle,
    /// The tables running here.
    pub tables: registry::Registry,
    /// The lobby, kept up to date by the tables.
    pub lobby: Arc<lobby::Lobby>,
    /// Lockouts, registration limits and password hashing of the account endpoints.
    pub accounts: http::guard::Guard,
    /// Counters for `/metrics`.
    pub metrics: Arc<metrics::Metrics>,
    /// Turns true when the server is shutting down; every connection watches it.
    pub shutting_down: tokio::sync::watch::Receiver<bool>,
    /// The sessions this node's WebSockets speak for: [`AppState::end_sessions`] closes
    /// them, here and on every node.
    pub sessions: Arc<sessions::Sessions>,
    /// This node's part of a cluster of several (`None`: one process owns every table).
    pub cluster: Option<Arc<cluster::Cluster>>,
    /// Tables that moved between nodes, or NATS back after an outage: connections that
    /// follow them subscribe again.
    pub moved: tokio::sync::broadcast::Sender<Resubscribe>,
    /// The request limits' state: rate buckets, requests in progress per forwarded address.
    pub shield: http::shield::Shield,
    /// The room's clock for rules that span hours (the rathole window): the wall clock
    /// unless `room.clock_scale` makes it run faster.
    pub clock: room_clock::RoomClock,
    /// Requests' work that runs to its end though its client hung up
    /// ([`http::to_the_end`]): waited for before the store closes.
    pub errands: Arc<http::Errands>,
}

/// What makes the connections here subscribe again to the tables they follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resubscribe {
    /// This table moved (another node runs it now, or it came back here).
    Table(TableId),
    /// Every table: NATS came back after an outage, and what was sent meanwhile is lost.
    All,
}

impl AppState {
    /// Starts the actor of a table from its stored configuration; among several nodes,
    /// takes its lease first (if another node was quicker, the table is open there).
    pub async fn open_table(
        self: &Arc<Self>,
        table_id: TableId,
        name: &str,
        config_json: &str,
    ) -> anyhow::Result<()> {
        match &self.cluster {
            Some(cluster) => cluster.open(self, table_id).await,
            None => self.tables.open(self, table_id, name, config_json).await,
        }
    }

    /// The handle of a table: its actor here, or (among several nodes) the node that
    /// owns an open table. `None` for a table that is not open (closed, or no such
    /// table).
    pub async fn table(&self, table_id: TableId) -> Option<table::TableHandle> {
        if let Some(handle) = self.tables.get(table_id) {
            return Some(handle);
        }
        let cluster = self.cluster.as_ref()?;
        // Open by the lobby's word (which every node keeps), else by the table's own row
        // (this node just started: its lobby is not filled yet).
        let open = match self.lobby.get(table_id) {
            Some(summary) => summary.status != poker_protocol::TableStatus::Closed,
            None => self
                .store
                .table(table_id)
                .await
                .is_ok_and(|t| t.status == poker_store::TableStatus::Open),
        };
        open.then(|| cluster.remote(table_id))
    }
}

/// Serves until `shutdown` completes: connects the database (running migrations), voids
/// hands a previous run left unfinished, then answers requests.
pub async fn run(
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
    mut config: Config,
) -> anyhow::Result<()> {
    let token = first_run::admin_token(&mut config)?;
    first_run::check_admin_token(&config)?;
    let addr = listener.local_addr()?;
    let store = Arc::new(SqlStore::connect(&config.database.url).await?);
    let metrics = Arc::new(metrics::Metrics::default());
    let cluster = if config.cluster.nats_url.is_empty() {
        None
    } else {
        if store.backend() != poker_store::Backend::Postgres {
            anyhow::bail!("several nodes (cluster.nats_url) share a PostgreSQL database");
        }
        let cluster = cluster::Cluster::connect(&config.cluster, metrics.clone()).await?;
        tracing::info!("node {} of a cluster", cluster.node);
        Some(cluster)
    };
    // Alone, every unfinished hand was cut by this process's last run; among several
    // nodes, only the tables a node takes over are its to void (when it takes them).
    if cluster.is_none() {
        let voided = store.recover().await?;
        metrics
            .hands_voided
            .fetch_add(voided.len() as u64, std::sync::atomic::Ordering::Relaxed);
        if !voided.is_empty() {
            tracing::info!(
                "{} unfinished hands from the last run are void",
                voided.len()
            );
        }
    }
    let (shutdown_tx, shutting_down) = tokio::sync::watch::channel(false);
    let clock = room_clock::RoomClock::new(config.room.clock_scale);
    let state = Arc::new(AppState {
        store: store.clone(),
        config: Arc::new(config),
        persister: Persister::spawn(store.clone(), 512),
        tables: registry::Registry::new(cluster.is_some()),
        lobby: Arc::new(lobby::Lobby::default()),
        // Argon2 on one core in two at most, so tables and health checks keep the rest.
        accounts: http::guard::Guard::new(
            std::thread::available_parallelism().map_or(1, |n| n.get() / 2),
        ),
        metrics,
        shutting_down,
        sessions: Arc::default(),
        cluster: cluster.clone(),
        moved: tokio::sync::broadcast::channel(256).0,
        shield: http::shield::Shield::default(),
        clock,
        errands: Arc::default(),
    });
    if let Some(cluster) = &cluster {
        cluster.start_gossip(&state, state.lobby.forward()).await?;
        // The tables are taken by lease, a fair share each, on the first heartbeat.
        tokio::spawn(cluster.clone().run(Arc::downgrade(&state)));
    }
    for table in store
        .tables()
        .await?
        .into_iter()
        .filter(|_| cluster.is_none())
    {
        if table.status == poker_store::TableStatus::Open {
            // One table that cannot open (rules a newer version refuses, a saved state
            // that no longer fits) must not keep the others closed: it stays as stored.
            if let Err(e) = state
                .open_table(table.table_id, &table.name, &table.config)
                .await
            {
                tracing::error!("table {} cannot open: {e:#}", table.table_id);
            }
        }
    }
    match first_run::open_presets(&state).await {
        Ok(0) => {}
        Ok(n) => tracing::info!("first start of a play-money room: {n} preset tables open"),
        Err(e) => tracing::error!("cannot open the preset tables: {e:#}"),
    }
    print!("{}", first_run::banner(&state.config, addr, &token));
    let _house = house::spawn(state.clone(), addr);
    let _private = private::spawn_janitor(state.clone());
    let _away = away::spawn(state.clone());
    let _backfill = backfill::spawn(state.clone());
    let app = http::shield::wrap(http::router(&state).merge(web::router()), &state)
        .layer(tower_http::trace::TraceLayer::new_for_http())
        .with_state(state.clone());
    let limits =
        connections::Limits::new(&state.config.server, connections::raise_open_file_limit());
    tracing::info!(
        "connections: {} at most, the last {} a reserve, {} per address",
        limits.max,
        limits.max - limits.reserve_from,
        limits.per_address
    );
    let server_config = state.config.server.clone();
    // On shutdown: no new hands; hands in progress finish within the grace period (the
    // clock keeps them moving, players still connected); then every connection is told
    // to close, so serving ends without waiting for clients to hang up. Among several
    // nodes, each table goes to the others as soon as its own hand has ended (the
    // connections here follow it there), and the connections close once all have gone.
    let grace = Duration::from_millis(state.config.server.shutdown_grace_ms);
    let errands = state.errands.clone();
    let shutdown = async move {
        shutdown.await;
        let all_finished = match &state.cluster {
            Some(cluster) => cluster.leave(&state, grace).await == 0,
            None => {
                let tables = state.tables.handles();
                let drained = futures_util::future::join_all(tables.iter().map(|(_, t)| t.drain()));
                tokio::time::timeout(grace, drained).await.is_ok()
            }
        };
        if !all_finished {
            tracing::info!("hands still running after the grace period are void");
        }
        let _ = shutdown_tx.send(true);
    };
    connections::serve(
        listener,
        app,
        &server_config,
        connections::Tracker::new(limits),
        shutdown,
    )
    .await;
    // Requests whose clients hung up may still be between a commit and its audit entry,
    // or the telling of the nodes: no connection waits for them.
    if tokio::time::timeout(grace, errands.settled())
        .await
        .is_err()
    {
        tracing::warn!("requests still running after the grace period are stopped");
    }
    store.close().await;
    Ok(())
}
