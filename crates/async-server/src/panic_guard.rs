//! What turns a panicking handler into the contract's 500: a handler that
//! panics is our bug, and the client should get an answer (and the log the
//! panic message) instead of a connection dropped without a word.
//!
//! tower-http's `CatchPanicLayer` does the same as a layer, but boxes every
//! response body to change its type, and a layer added with `Router::layer`
//! costs more per request than its own work (issue 9 measured it, see
//! crate::route_handler); this is a plain future wrapper that keeps axum's
//! body, so a request costs no allocation here. Every route's handler runs
//! inside it (crate::route_handler). The blocking server's twin is the
//! `catch_unwind` around each handler call in
//! crates/blocking-server/src/handlers.rs.

use std::future::{ready, Future, Ready};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::response::Response;
use futures_util::future::Either;

use crate::error::panic_to_response;

/// Calls `call` (which makes a handler's future) and polls the future it
/// returns, each inside `catch_unwind`: a panic in either becomes the
/// contract's 500. A handler may panic before its first await, when it is
/// called.
pub(crate) fn guard<F>(call: impl FnOnce() -> F) -> Either<Ready<Response>, Guarded<F>>
where
    F: Future<Output = Response>,
{
    match catch_unwind(AssertUnwindSafe(call)) {
        Ok(future) => Either::Right(Guarded { future }),
        Err(panic) => Either::Left(ready(panic_to_response(panic))),
    }
}

pin_project_lite::pin_project! {
    /// A handler's future; a panic while polling it becomes the answer.
    /// hyper never polls a future again once it is ready.
    pub(crate) struct Guarded<F> {
        #[pin]
        future: F,
    }
}

impl<F> Future for Guarded<F>
where
    F: Future<Output = Response>,
{
    type Output = Response;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Response> {
        let future = self.project().future;
        match catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
            Ok(poll) => poll,
            Err(panic) => Poll::Ready(panic_to_response(panic)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::StatusCode;
    use axum::response::IntoResponse as _;
    use http_body_util::BodyExt as _;

    async fn answer(future: impl Future<Output = Response>) -> (StatusCode, String) {
        let response = future.await;
        let status = response.status();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        (status, String::from_utf8_lossy(&body).into_owned())
    }

    /// A panic before the handler's first await, after it, and none at all.
    #[tokio::test]
    async fn a_panicking_handler_gets_the_contracts_500_and_others_pass() {
        let internal = r#"{"error":"internal server error"}"#.to_owned();
        assert_eq!(
            answer(guard(|| async { "fine".into_response() })).await,
            (StatusCode::OK, "fine".to_owned())
        );
        let at_once = guard(|| -> Ready<Response> { panic!("at once") });
        assert_eq!(
            answer(at_once).await,
            (StatusCode::INTERNAL_SERVER_ERROR, internal.clone())
        );
        let after_await = guard(|| async {
            tokio::task::yield_now().await;
            panic!("after an await")
        });
        assert_eq!(
            answer(after_await).await,
            (StatusCode::INTERNAL_SERVER_ERROR, internal)
        );
    }
}
