//! What turns a panicking handler into the contract's 500: a handler that
//! panics is our bug, and the client should get an answer (and the log the
//! panic message) instead of a connection dropped without a word.
//!
//! tower-http's `CatchPanicLayer` does the same as a layer, but boxes every
//! response body to change its type, and a layer added with `Router::layer`
//! costs more per request than its own work (axum clones each layer's boxed
//! service per request, see crate::route_handler); here is one plain function that keeps axum's body,
//! so a request costs no allocation here. Every route's handler future is
//! polled through it (crate::route_handler). The blocking server's twin is
//! the `catch_unwind` around each handler call in
//! crates/blocking-server/src/handlers.rs.
//!
//! Only the polls need guarding: axum's `Handler::call` for an async fn
//! returns a boxed future that calls the function when first polled, so a
//! handler that panics before its first await panics inside a poll too.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::response::Response;

use crate::error::panic_to_response;

/// Polls a handler's future inside `catch_unwind`: a panic while polling it
/// becomes the contract's 500. hyper never polls a future again once it is
/// ready, so a future that panicked is not polled again.
pub(crate) fn poll<F>(future: Pin<&mut F>, cx: &mut Context<'_>) -> Poll<Response>
where
    F: Future<Output = Response>,
{
    match catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
        Ok(poll) => poll,
        Err(panic) => Poll::Ready(panic_to_response(panic)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::StatusCode;
    use axum::response::IntoResponse as _;
    use http_body_util::BodyExt as _;

    /// Polls `future` under the guard, as crate::route_handler does.
    async fn answer(future: impl Future<Output = Response>) -> (StatusCode, String) {
        let mut future = std::pin::pin!(future);
        let response = std::future::poll_fn(|cx| poll(future.as_mut(), cx)).await;
        let status = response.status();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        (status, String::from_utf8_lossy(&body).into_owned())
    }

    /// A panic before the handler's first await, after it, and none at all.
    #[tokio::test]
    async fn a_panicking_handler_gets_the_contracts_500_and_others_pass() {
        let internal = r#"{"error":"internal server error"}"#.to_owned();
        assert_eq!(
            answer(async { "fine".into_response() }).await,
            (StatusCode::OK, "fine".to_owned())
        );
        let at_once = async { panic!("before any await") };
        assert_eq!(
            answer(at_once).await,
            (StatusCode::INTERNAL_SERVER_ERROR, internal.clone())
        );
        let after_await = async {
            tokio::task::yield_now().await;
            panic!("after an await")
        };
        assert_eq!(
            answer(after_await).await,
            (StatusCode::INTERNAL_SERVER_ERROR, internal)
        );
    }
}
