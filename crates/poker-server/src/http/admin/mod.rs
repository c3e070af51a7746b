//! The operators' REST API under `/admin`, every route behind the admin bearer token or a
//! staff session with a role ([`super::auth::Admin`]): players and money, tables, hand
//! histories, the audit, staff and the audit log of their actions, fair play. Paths name players,
//! tables, hands and staff by id only, never by name: a name is found with a query
//! (`GET /admin/players?q=`) that answers ids and names together.

pub mod backup;
pub mod fairplay;
pub mod hands;
mod names;
pub mod players;
mod rule_problems;
pub mod staff;
pub mod tables;

pub use players::parse_money;
pub use tables::parse_new_table;

use crate::AppState;
use axum::routing::{get, post};
use axum::Router;
use std::sync::Arc;

/// The `/admin` routes.
pub fn router(state: &Arc<AppState>) -> Router<Arc<AppState>> {
    Router::new()
        .route(
            "/admin/players",
            post(players::create_player).get(players::list_players),
        )
        .route("/admin/login", post(staff::login))
        .route("/admin/logout", post(staff::logout))
        .route("/admin/whoami", get(staff::whoami))
        .route(
            "/admin/staff",
            post(staff::create_staff).get(staff::list_staff),
        )
        .route("/admin/staff/{id}/disable", post(staff::disable_staff))
        .route("/admin/staff/{id}/role", post(staff::set_role))
        .route("/admin/staff/{id}/password", post(staff::set_password))
        .route("/admin/staff/{id}/sign-out", post(staff::sign_out))
        .route("/admin/audit-log", get(staff::audit_log))
        .route("/admin/rake", get(staff::rake))
        .route("/admin/presets", get(tables::presets))
        .route("/admin/players/{id}", get(players::inspect_player))
        .route("/admin/players/{id}/lock", post(players::lock_player))
        .route(
            "/admin/players/{id}/password",
            post(players::reset_password),
        )
        .route(
            "/admin/players/{id}/reset-code",
            post(players::issue_reset_code),
        )
        .route("/admin/players/{id}/deposit", post(players::deposit))
        .route("/admin/players/{id}/withdraw", post(players::withdraw))
        .route("/admin/players/{id}/ledger", get(players::ledger))
        .route("/admin/players/{id}/hands", get(hands::player_hands))
        .route(
            "/admin/tables",
            post(tables::create_table).get(tables::list_tables),
        )
        .route("/admin/tables/{id}", get(tables::inspect_table))
        .route("/admin/tables/{id}/close", post(tables::close_table))
        .route("/admin/tables/{id}/clone", post(tables::clone_table))
        .route("/admin/tables/{id}/chat", post(tables::switch_chat))
        .route("/admin/tables/{id}/hands", get(hands::table_hands))
        .route("/admin/hands/{id}", get(hands::hand))
        .route("/admin/audit", get(players::audit))
        .route("/admin/backup", post(backup::backup))
        .route("/admin/fair-play/flags", get(fairplay::flags))
        .route("/admin/fair-play/pairs", get(fairplay::pairs))
        .route(
            "/admin/fair-play/pairs/{a}/{b}/hands",
            get(fairplay::pair_hands),
        )
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            changes_run_to_their_end,
        ))
}

/// Every admin request that changes something (any method but `GET` and `HEAD`) runs in
/// a task of its own ([`crate::http::to_the_end`]): a client that hangs up mid-request
/// would otherwise have its handler dropped at its next await, between a commit and what
/// must follow it: the audit entry of a deposit, a table made or closed, a staff change;
/// the telling of every node that a player's sessions ended. Reads are dropped with
/// their client, as ever.
async fn changes_run_to_their_end(
    axum::extract::State(state): axum::extract::State<Arc<AppState>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::http::Method;
    if matches!(*request.method(), Method::GET | Method::HEAD) {
        next.run(request).await
    } else {
        crate::http::to_the_end(&state.errands, next.run(request)).await
    }
}
