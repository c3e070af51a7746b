//! The HTTP side of pokerd: one router for the operators' REST API under `/admin`, the
//! players' account endpoints and their own view under `/api/me`, the WebSocket upgrade
//! at `/ws`, and what operations watch (`/healthz`, `/metrics`, `/openapi.json`).
//!
//! Every answer that is not a success is [`ApiError`]'s JSON shape; who is asking is
//! settled by the extractors of [`auth`]: [`auth::Admin`] for the operator's bearer
//! token, [`auth::Session`] for a player's session.

pub mod accounts;
pub mod admin;
pub mod auth;
pub mod error;
pub(crate) mod formats;
pub mod guard;
pub mod hashing;
pub mod history;
pub mod me;
pub(crate) mod ohh;
pub mod ops;
pub(crate) mod private;
pub(crate) mod proofs;
pub mod shield;

pub use error::{ApiError, ApiResult};

use crate::AppState;
use axum::routing::{get, post};
use axum::Router;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Every route pokerd serves but the browser client's files.
pub fn router(state: &Arc<AppState>) -> Router<Arc<AppState>> {
    Router::new()
        .route("/healthz", get(ops::healthz))
        .route("/metrics", get(ops::metrics))
        .route("/openapi.json", get(ops::openapi))
        .route("/login", post(accounts::login))
        .route("/register", post(accounts::register))
        .route("/logout", post(accounts::logout))
        .route("/reset-password", post(accounts::reset_with_code))
        .route("/api/me", get(me::me))
        .route("/api/me/reload", post(me::reload))
        .route("/api/me/hands", get(me::my_hands))
        .route("/api/me/hands/{id}", get(me::my_hand))
        .route("/api/me/stats", get(history::my_stats))
        .route("/api/me/notes", get(history::my_notes))
        .route("/api/me/notes/{id}", post(history::put_note))
        .route("/api/private", post(private::create))
        .route("/api/private/{id}", get(private::invite))
        .route("/ws", get(crate::ws::ws))
        .merge(admin::router(state))
}

/// Runs a request's work in a task of its own and answers with what it returns. A client
/// that hangs up mid-request makes the server drop the handler's future at its next
/// await; work that ends sessions must not stop between its commit and what follows it
/// (telling every node, [`AppState::end_sessions`], and the audit entry), or a session
/// ended in the store keeps its sockets open on every node until it expires. The players'
/// login, logout and reset code call it; every admin change runs in it
/// ([`admin::router`]). The task is one of `errands`, which pokerd waits for before it
/// closes the store.
pub(crate) async fn to_the_end<T: Send + 'static>(
    errands: &Arc<Errands>,
    work: impl std::future::Future<Output = T> + Send + 'static,
) -> T {
    use tracing::Instrument;
    errands.running.fetch_add(1, Ordering::SeqCst);
    let done = ErrandDone(errands.clone());
    // In the request's span, as if it ran in the handler.
    let task = async move {
        let _done = done;
        work.await
    };
    match tokio::spawn(task.in_current_span()).await {
        Ok(answer) => answer,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        // Only a runtime shutting down cancels a task; the request goes with it.
        Err(e) => panic!("a request's work was cancelled: {e}"),
    }
}

/// The requests' work running in tasks of its own ([`to_the_end`]), counted: on shutdown
/// pokerd waits for them ([`Errands::settled`]), since no connection does (their clients
/// may have hung up).
#[derive(Default)]
pub struct Errands {
    running: AtomicUsize,
    idle: tokio::sync::Notify,
}

impl Errands {
    /// Returns once no errand runs.
    pub async fn settled(&self) {
        loop {
            let idle = self.idle.notified();
            tokio::pin!(idle);
            idle.as_mut().enable();
            if self.running.load(Ordering::SeqCst) == 0 {
                return;
            }
            idle.await;
        }
    }
}

/// Counts an errand done when its task ends (or is dropped).
struct ErrandDone(Arc<Errands>);

impl Drop for ErrandDone {
    fn drop(&mut self) {
        if self.0.running.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    #[tokio::test]
    async fn work_whose_request_is_dropped_runs_to_its_end_and_shutdown_waits_for_it() {
        let errands = Arc::new(Errands::default());
        let finished = Arc::new(AtomicBool::new(false));
        let flag = finished.clone();
        let request = {
            let errands = errands.clone();
            async move {
                to_the_end(&errands, async move {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    flag.store(true, Ordering::SeqCst);
                })
                .await
            }
        };
        // The client hangs up: the handler's future is dropped mid-way.
        let dropped = tokio::time::timeout(Duration::from_millis(20), request).await;
        assert!(
            dropped.is_err(),
            "the request was dropped before its work ended"
        );
        assert!(!finished.load(Ordering::SeqCst));
        // What shutdown waits for: the work, to its end.
        tokio::time::timeout(Duration::from_secs(10), errands.settled())
            .await
            .expect("the work ends");
        assert!(
            finished.load(Ordering::SeqCst),
            "settled only once it ended"
        );
        // Nothing running: settled at once.
        errands.settled().await;
    }
}
