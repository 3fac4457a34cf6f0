//! The one error shape of the HTTP contract: `{"error":"<message>"}` and its status.
//!
//! Errors split in two, as in zero-to-production: the client's fault (4xx, the
//! message tells the client what was wrong) and ours (5xx, a generic message;
//! the cause is logged by the server, never sent, so no connection string or
//! stack trace leaks into a response body).

use serde::{Deserialize, Serialize};

/// The JSON body of every error answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub error: String,
}

/// What went wrong, which decides the status code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// 400: an id that is not a positive integer, a bad `?n=`, malformed JSON.
    BadRequest,
    /// 404: no such route, or no such user.
    NotFound,
    /// 405: the route exists but not for this method.
    MethodNotAllowed,
    /// 408: the client did not send its request head, or its body, in time.
    RequestTimeout,
    /// 413: a body over [`crate::params::MAX_BODY_BYTES`].
    PayloadTooLarge,
    /// 415: `/echo` without `Content-Type: application/json`.
    UnsupportedMediaType,
    /// 431: request headers over [`crate::params::MAX_HEADER_BYTES`].
    HeadersTooLarge,
    /// 500: the seed's deliberate failure (`/posts/{id}` with id >= 10), a
    /// bug, or a dependency's answer our code cannot read
    /// ([`ApiError::unreadable_answer`]).
    Internal,
    /// 503: Postgres or Redis could not be reached within the acquire timeout.
    Unavailable,
}

impl ErrorKind {
    /// The HTTP status code of this kind of error.
    pub fn status(self) -> u16 {
        match self {
            ErrorKind::BadRequest => 400,
            ErrorKind::NotFound => 404,
            ErrorKind::MethodNotAllowed => 405,
            ErrorKind::RequestTimeout => 408,
            ErrorKind::PayloadTooLarge => 413,
            ErrorKind::UnsupportedMediaType => 415,
            ErrorKind::HeadersTooLarge => 431,
            ErrorKind::Internal => 500,
            ErrorKind::Unavailable => 503,
        }
    }
}

impl ErrorKind {
    /// Every kind, in status order.
    pub const ALL: [ErrorKind; 9] = [
        ErrorKind::BadRequest,
        ErrorKind::NotFound,
        ErrorKind::MethodNotAllowed,
        ErrorKind::RequestTimeout,
        ErrorKind::PayloadTooLarge,
        ErrorKind::UnsupportedMediaType,
        ErrorKind::HeadersTooLarge,
        ErrorKind::Internal,
        ErrorKind::Unavailable,
    ];

    /// The kind whose status this is, if the contract has one: each kind
    /// has a status of its own, so an answer's status says which kind of
    /// error it was.
    pub fn for_status(status: u16) -> Option<ErrorKind> {
        Self::ALL.into_iter().find(|kind| kind.status() == status)
    }

    /// The kind's name as written here (`"NotFound"`): the `error` label of
    /// `http_server_requests_seconds`, where Spring puts the exception's
    /// class name.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::BadRequest => "BadRequest",
            ErrorKind::NotFound => "NotFound",
            ErrorKind::MethodNotAllowed => "MethodNotAllowed",
            ErrorKind::RequestTimeout => "RequestTimeout",
            ErrorKind::PayloadTooLarge => "PayloadTooLarge",
            ErrorKind::UnsupportedMediaType => "UnsupportedMediaType",
            ErrorKind::HeadersTooLarge => "HeadersTooLarge",
            ErrorKind::Internal => "Internal",
            ErrorKind::Unavailable => "Unavailable",
        }
    }

    /// What a failed database call means for the client, from the error's
    /// SQLSTATE: classes 08 (connection exception), 53 (insufficient
    /// resources: too many connections) and 57 (operator intervention:
    /// shutdown, terminated backend) are the database being unavailable (503);
    /// any other SQLSTATE is a statement of ours Postgres refused (500). No
    /// SQLSTATE at all means the error came from the socket, not from
    /// Postgres: unavailable too.
    pub fn for_sqlstate(sqlstate: Option<&str>) -> ErrorKind {
        match sqlstate {
            Some(code)
                if !["08", "53", "57"]
                    .iter()
                    .any(|class| code.starts_with(class)) =>
            {
                ErrorKind::Internal
            }
            _ => ErrorKind::Unavailable,
        }
    }
}

/// An error answer: a kind (the status) and the message the client sees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub kind: ErrorKind,
    pub message: String,
}

impl ApiError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ApiError {
            kind,
            message: message.into(),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::BadRequest, message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, message)
    }

    /// The answer when no user has this id (`/users/{id}` and its cache and variants).
    pub fn user_not_found(id: i64) -> Self {
        Self::not_found(format!("user {id} not found"))
    }

    /// The answer for a path that matches no route.
    pub fn no_route() -> Self {
        Self::not_found("no such route")
    }

    /// The answer for a known path asked with the wrong method.
    pub fn method_not_allowed() -> Self {
        Self::new(ErrorKind::MethodNotAllowed, "method not allowed")
    }

    pub fn payload_too_large() -> Self {
        Self::new(
            ErrorKind::PayloadTooLarge,
            format!(
                "request body is larger than {} bytes",
                crate::params::MAX_BODY_BYTES
            ),
        )
    }

    pub fn headers_too_large() -> Self {
        Self::new(
            ErrorKind::HeadersTooLarge,
            format!(
                "request headers are larger than {} bytes",
                crate::params::MAX_HEADER_BYTES
            ),
        )
    }

    pub fn unsupported_media_type() -> Self {
        Self::new(
            ErrorKind::UnsupportedMediaType,
            "expected Content-Type: application/json",
        )
    }

    pub fn request_timeout() -> Self {
        Self::new(
            ErrorKind::RequestTimeout,
            "request head not received in time",
        )
    }

    /// A request body that did not arrive whole within the body deadline
    /// (`--body-read-timeout-ms`, [`crate::settings::CommonSettings::body_read_timeout`]),
    /// counted from the end of the head: every server and connector answers
    /// this and closes the connection.
    pub fn body_timeout() -> Self {
        Self::new(
            ErrorKind::RequestTimeout,
            "request body not received in time",
        )
    }

    /// A dependency (`"database"` or `"cache"`) could not be reached in time.
    /// The message names the dependency only: the cause goes to the log.
    pub fn unavailable(dependency: &str) -> Self {
        Self::new(
            ErrorKind::Unavailable,
            format!("{dependency} unavailable, try again later"),
        )
    }

    /// Our fault. The message is generic on purpose; log the cause beside it.
    pub fn internal() -> Self {
        Self::new(ErrorKind::Internal, "internal server error")
    }

    /// A dependency answered, with data our code cannot read: a cached
    /// value that is not UTF-8 text, or a cache key holding another type
    /// than the string we write there. Every server and driver answers
    /// this, whichever client read the value.
    ///
    /// It is a 500, not a 503, by the rule of this module: the client's
    /// fault or ours, and a dependency's bad data is ours (we wrote it, or
    /// let something else write under our keys), not an outage. Redis is
    /// up and answered; "unavailable, try again later" would be untrue, a
    /// retry reads the same value, and a load balancer or a client's
    /// circuit breaker would take a healthy server for one whose Redis is
    /// down. The same line as for Postgres ([`ErrorKind::for_sqlstate`]):
    /// a refused statement of ours is a 500, only an unreachable database a
    /// 503. The body is the generic one; the cause goes to the log.
    pub fn unreadable_answer() -> Self {
        Self::internal()
    }

    pub fn status(&self) -> u16 {
        self.kind.status()
    }

    pub fn body(&self) -> ErrorBody {
        ErrorBody {
            error: self.message.clone(),
        }
    }

    /// The JSON bytes of the body, ready to send.
    pub fn body_json(&self) -> Vec<u8> {
        crate::model::to_json(&self.body())
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status(), self.message)
    }
}

impl std::error::Error for ApiError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_documented_status() {
        let table = [
            (ErrorKind::BadRequest, 400),
            (ErrorKind::NotFound, 404),
            (ErrorKind::MethodNotAllowed, 405),
            (ErrorKind::RequestTimeout, 408),
            (ErrorKind::PayloadTooLarge, 413),
            (ErrorKind::UnsupportedMediaType, 415),
            (ErrorKind::HeadersTooLarge, 431),
            (ErrorKind::Internal, 500),
            (ErrorKind::Unavailable, 503),
        ];
        for (kind, status) in table {
            assert_eq!(kind.status(), status, "{kind:?}");
        }
    }

    #[test]
    fn each_status_names_its_one_kind() {
        for kind in ErrorKind::ALL {
            assert_eq!(ErrorKind::for_status(kind.status()), Some(kind), "{kind:?}");
            assert_eq!(format!("{kind:?}"), kind.name());
        }
        assert_eq!(ErrorKind::for_status(200), None);
        assert_eq!(ErrorKind::for_status(499), None);
    }

    #[test]
    fn sqlstates_of_an_absent_database_are_503_the_rest_500() {
        let table = [
            (None, 503),
            (Some("08006"), 503), // connection failure
            (Some("53300"), 503), // too many connections
            (Some("57P01"), 503), // admin shutdown
            (Some("42P01"), 500), // undefined table: our bug
            (Some("23505"), 500), // unique violation
            (Some("5"), 500),
        ];
        for (sqlstate, status) in table {
            assert_eq!(
                ErrorKind::for_sqlstate(sqlstate).status(),
                status,
                "{sqlstate:?}"
            );
        }
    }

    #[test]
    fn body_is_the_one_error_shape() {
        let body = ApiError::not_found("user 7 not found").body_json();
        assert_eq!(body, br#"{"error":"user 7 not found"}"#);
    }

    #[test]
    fn a_dependencys_unreadable_answer_is_ours_a_500_with_the_generic_body() {
        let e = ApiError::unreadable_answer();
        assert_eq!(e.status(), 500);
        assert_eq!(e.body_json(), br#"{"error":"internal server error"}"#);
    }

    #[test]
    fn unavailable_names_the_dependency_and_nothing_else() {
        let e = ApiError::unavailable("database");
        assert_eq!(e.status(), 503);
        assert_eq!(e.message, "database unavailable, try again later");
    }
}
