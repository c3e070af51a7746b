//! The one error type of the HTTP API: JSON `{"error": code, "message": text}` with its
//! status, and, when a request body has problems that each concern one field, a
//! `problems` list naming the field of each (what the console shows beside its field). Store, name and body errors convert into it; internal failures are logged
//! and answered 500 without their text.

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use poker_store::StoreError;
use serde_json::json;

/// An error answered by the API.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    pub(crate) message: String,
    /// Seconds to wait before trying again, sent as `Retry-After` (429, 503).
    retry_after: Option<u64>,
    /// The problems of a request body, each with the field it concerns (empty: none sent).
    problems: Vec<Problem>,
}

/// One problem of a request body: the field it concerns, as a dotted path from the body's
/// top (`rules.max_buy_in`, `rules.stakes.min_bet`, `name`), and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    /// The field, a dotted path (`rules` alone when no one field is to blame).
    pub field: String,
    /// What is wrong, in words.
    pub message: String,
}

impl ApiError {
    pub(crate) fn new(
        status: StatusCode,
        code: &'static str,
        message: impl Into<String>,
    ) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            retry_after: None,
            problems: Vec::new(),
        }
    }

    /// The same error, with the problems that each concern one field of the body.
    pub(crate) fn with_problems(mut self, problems: Vec<Problem>) -> ApiError {
        self.problems = problems;
        self
    }

    /// The problems of the body, field by field (empty when the error names none).
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// The same error, telling the client to try again in `secs` seconds (at least 1).
    pub(crate) fn retry_after(mut self, secs: u64) -> ApiError {
        self.retry_after = Some(secs.max(1));
        self
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = json!({ "error": self.code, "message": self.message });
        if !self.problems.is_empty() {
            body["problems"] = serde_json::to_value(&self.problems).expect("problems serialize");
        }
        let mut response = (self.status, Json(body)).into_response();
        if let Some(secs) = self.retry_after {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from(secs),
            );
        }
        response
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::NotFound(what) => ApiError::new(
                StatusCode::NOT_FOUND,
                "not_found",
                format!("{what} not found"),
            ),
            StoreError::InsufficientFunds { balance } => ApiError::new(
                StatusCode::CONFLICT,
                "insufficient_funds",
                format!("the balance is {balance}"),
            ),
            StoreError::IdempotencyConflict => ApiError::new(
                StatusCode::CONFLICT,
                "idempotency_conflict",
                "the idempotency key was used for a different request",
            ),
            e @ StoreError::RoomFull { .. } => {
                ApiError::new(StatusCode::CONFLICT, "room_full", e.to_string())
            }
            StoreError::NameTaken => {
                ApiError::new(StatusCode::CONFLICT, "name_taken", "the name is taken")
            }
            e @ StoreError::LastAdmin => ApiError::new(
                StatusCode::CONFLICT,
                "last_admin",
                format!("{e}: the room would have no admin left (the admin token may)"),
            ),
            StoreError::Invalid(m) => ApiError::new(StatusCode::BAD_REQUEST, "invalid", m),
            StoreError::BadName(e) => ApiError::from(e),
            other => {
                tracing::error!("internal error: {other}");
                ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "internal error",
                )
            }
        }
    }
}

impl From<poker_store::names::NameError> for ApiError {
    fn from(e: poker_store::names::NameError) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "invalid_name", e.to_string())
    }
}

impl From<JsonRejection> for ApiError {
    fn from(e: JsonRejection) -> ApiError {
        // The rejection's own status: 413 for a body over the limit, 415 without a JSON
        // content type, 400 or 422 for a body that is not the expected JSON.
        let status = e.status();
        let code = match status {
            StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
            StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
            _ => "bad_request",
        };
        let status = if code == "bad_request" {
            StatusCode::BAD_REQUEST
        } else {
            status
        };
        ApiError::new(status, code, e.body_text())
    }
}

impl From<QueryRejection> for ApiError {
    fn from(e: QueryRejection) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", e.body_text())
    }
}

/// What an admin handler answers.
pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The error code.
    pub fn code(&self) -> &'static str {
        self.code
    }
}

pub(crate) fn body_error(e: serde_json::Error) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "bad_request",
        format!("Failed to deserialize the JSON body into the target type: {e}"),
    )
}

pub(crate) fn parse_id<T: std::str::FromStr>(s: &str, what: &'static str) -> ApiResult<T> {
    s.parse().map_err(|_| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("{what} not found"),
        )
    })
}

/// An error answer where a handler returns a plain [`Response`].
pub(crate) fn refused(status: StatusCode, code: &'static str, message: &str) -> Response {
    ApiError::new(status, code, message).into_response()
}
