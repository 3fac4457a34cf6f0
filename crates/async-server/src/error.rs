//! `AppError`: the one place where the async server turns a failure into an
//! HTTP answer — status, `{"error":..}` body — and logs the cause of a 5xx.
//!
//! Handlers return `Result<_, AppError>`; every rejection of ours (bad id, bad
//! body, unknown route, wrong method) goes through here too, so no answer of
//! this server has any other error shape. The twin on the blocking server is
//! `respond` in crates/blocking-server/src/handlers.rs.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use contract::error::ErrorKind;
use contract::ApiError;

/// A contract error, plus the cause to log when it is our side's fault.
#[derive(Debug)]
pub struct AppError {
    pub error: ApiError,
    /// Why a 5xx happened (a driver error, a timeout, a panic). Logged, never sent.
    pub cause: Option<String>,
}

impl AppError {
    /// A dependency did not answer in time: 503 naming `dependency`, cause logged.
    pub fn unavailable(dependency: &str, cause: impl std::fmt::Display) -> Self {
        AppError {
            error: ApiError::unavailable(dependency),
            cause: Some(cause.to_string()),
        }
    }

    /// The contract's `error`, with `cause` logged beside it.
    pub(crate) fn with_cause(error: ApiError, cause: impl std::fmt::Display) -> Self {
        AppError {
            error,
            cause: Some(cause.to_string()),
        }
    }

    /// Our own bug: a generic 500, cause logged.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        AppError {
            error: ApiError::internal(),
            cause: Some(cause.to_string()),
        }
    }
}

impl From<ApiError> for AppError {
    fn from(error: ApiError) -> Self {
        AppError { error, cause: None }
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let status =
            StatusCode::from_u16(self.error.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        if status.is_server_error() {
            match (&self.error.kind, &self.cause) {
                // `/posts/{id}` with id >= 10: the seed's deliberate failure, not news.
                (ErrorKind::Internal, None) => {
                    tracing::debug!(status = status.as_u16(), message = %self.error.message, "deliberate error answered");
                }
                (_, Some(cause)) => {
                    tracing::warn!(status = status.as_u16(), message = %self.error.message, %cause, "request failed");
                }
                (_, None) => {
                    tracing::warn!(status = status.as_u16(), message = %self.error.message, "request failed");
                }
            }
        }
        (
            status,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            self.error.body_json(),
        )
            .into_response()
    }
}

/// The answer when a handler panicked: a 500 with the contract's body, the
/// panic message logged.
pub(crate) fn panic_to_response(panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let message = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned());
    AppError::internal(format_args!("handler panicked: {message}")).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    #[tokio::test]
    async fn errors_answer_the_contract_shape() {
        let response = AppError::unavailable("database", "connection refused").into_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers()[header::CONTENT_TYPE], "application/json");
        let body = response.into_body().collect().await.unwrap().to_bytes();
        // The cause stays in the log.
        assert_eq!(
            &body[..],
            br#"{"error":"database unavailable, try again later"}"#
        );
    }
}
