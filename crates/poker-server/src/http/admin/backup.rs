//! `POST /admin/backup`: an online copy of the embedded SQLite database, taken while the
//! tables play, into the server's own backup folder (`database.backup_dir`), for admins
//! only and written to the audit log. The server names the file (`poker-<unix ms>.db`):
//! a caller never chooses a path, so the endpoint cannot write anywhere else nor
//! overwrite anything. The copy is `pokerd backup`'s ([`poker_store::backup_database`]).

use crate::http::auth::{Admin, Duty};
use crate::http::error::{ApiError, ApiResult};
use crate::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use poker_store::BackupError;
use serde::Serialize;
use serde_json::json;
use std::sync::Arc;

/// What a backup wrote.
#[derive(Serialize)]
pub(crate) struct BackupMade {
    /// The copy's path on the server.
    path: String,
    /// Its size in bytes.
    bytes: u64,
    /// The hands it holds as committed.
    complete_hands: u64,
    /// The hands it holds as in flight: void, their stacks as they began, once a pokerd
    /// starts on the copy.
    hands_in_flight: u64,
    /// How long the copy took, its integrity check included.
    elapsed_ms: u64,
}

/// Copies the database into the backup folder; 201 with what was written. 409 when no
/// folder is configured, when the database is PostgreSQL (the answer says its way), or
/// when a copy of the same millisecond exists.
pub(crate) async fn backup(
    State(state): State<Arc<AppState>>,
    who: Admin,
) -> ApiResult<(StatusCode, Json<BackupMade>)> {
    who.may(Duty::Backup)?;
    let folder = &state.config.database.backup_dir;
    if folder.is_empty() {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "backups_off",
            "no backup folder is configured (database.backup_dir); \
             `pokerd backup PATH` on the server copies the database",
        ));
    }
    let folder = std::path::Path::new(folder);
    if let Err(e) = std::fs::create_dir_all(folder) {
        tracing::error!("cannot make the backup folder {}: {e}", folder.display());
        return Err(internal());
    }
    let path = folder.join(format!("poker-{}.db", poker_store::now_ms()));
    let copy = match poker_store::backup_database(&state.config.database.url, &path).await {
        Ok(copy) => copy,
        Err(e @ BackupError::Postgres) => {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "postgres",
                e.to_string(),
            ))
        }
        Err(BackupError::Exists(_)) => {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "exists",
                "a backup of this very millisecond exists; ask again",
            ))
        }
        Err(e) => {
            tracing::error!("backup: {e}");
            return Err(internal());
        }
    };
    let made = BackupMade {
        path: copy.path.display().to_string(),
        bytes: copy.bytes,
        complete_hands: copy.complete_hands,
        hands_in_flight: copy.hands_in_flight,
        elapsed_ms: copy.elapsed.as_millis() as u64,
    };
    who.audit(
        &state,
        "backup",
        &made.path,
        json!({ "bytes": made.bytes, "complete_hands": made.complete_hands }),
    )
    .await;
    Ok((StatusCode::CREATED, Json(made)))
}

/// A failure on the server's side (logged where it happened), answered without its text.
fn internal() -> ApiError {
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal",
        "internal error",
    )
}
