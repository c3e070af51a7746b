//! `POST /api/private`: a signed-in player makes a private table from a preset and gets
//! its invite link; `GET /api/private/{table}?invite=...`: what a link leads to, for
//! anyone holding it (signed in or not: a friend sees the game before choosing a name).

use crate::http::error::*;
use crate::AppState;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::Json;
use poker_protocol::{NewPrivateTable, PrivateCreated, PrivateInvite};
use std::sync::Arc;

use super::auth::*;

/// `POST /api/private`: 201 with the table and its invite (shown only here).
pub(crate) async fn create(
    State(state): State<Arc<AppState>>,
    Session(me): Session,
    body: Result<Json<NewPrivateTable>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<PrivateCreated>)> {
    let Json(ask) = body?;
    let made = crate::private::create(&state, &me, &ask).await?;
    Ok((StatusCode::CREATED, Json(made)))
}

/// The query of `GET /api/private/{table}`.
#[derive(serde::Deserialize)]
pub(crate) struct InviteQuery {
    /// The invite's secret, from the link.
    invite: String,
}

/// `GET /api/private/{table}?invite=SECRET`: the game, or 404 `no_invite`.
pub(crate) async fn invite(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    query: Result<Query<InviteQuery>, QueryRejection>,
) -> ApiResult<Json<PrivateInvite>> {
    let Query(q) = query?;
    let table = parse_id(&id, "table")?;
    Ok(Json(
        crate::private::invite(&state, table, &q.invite).await?,
    ))
}
