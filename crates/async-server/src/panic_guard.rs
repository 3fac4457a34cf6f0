//! The layer that turns a panicking handler into the contract's 500: a
//! handler that panics is our bug, and the client should get an answer (and
//! the log the panic message) instead of a connection dropped without a word.
//!
//! tower-http's `CatchPanicLayer` does the same, but boxes every response
//! body to change its type; this one keeps axum's body, so a request costs
//! no allocation here (issue 9 measured the layers' cost, see
//! crate::metrics::CountRequestsLayer). The blocking server's twin is the
//! `catch_unwind` around each handler call in
//! crates/blocking-server/src/handlers.rs.

use std::future::{ready, Future, Ready};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::response::Response;
use futures_util::future::Either;
use tower::{Layer, Service};

use crate::error::panic_to_response;

/// Wraps each route in [`CatchPanic`].
#[derive(Clone, Copy)]
pub(crate) struct CatchPanicLayer;

impl<S> Layer<S> for CatchPanicLayer {
    type Service = CatchPanic<S>;

    fn layer(&self, inner: S) -> CatchPanic<S> {
        CatchPanic { inner }
    }
}

/// Calls the inner service and polls its future inside `catch_unwind`.
#[derive(Clone)]
pub(crate) struct CatchPanic<S> {
    inner: S,
}

impl<S> Service<Request> for CatchPanic<S>
where
    S: Service<Request, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Either<Ready<Result<Response, S::Error>>, Guarded<S::Future>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        // A handler may panic before its first await, when it is called.
        match catch_unwind(AssertUnwindSafe(|| self.inner.call(request))) {
            Ok(future) => Either::Right(Guarded { future }),
            Err(panic) => Either::Left(ready(Ok(panic_to_response(panic)))),
        }
    }
}

pin_project_lite::pin_project! {
    /// The inner service's future; a panic while polling it becomes the
    /// answer. hyper never polls a future again once it is ready.
    pub(crate) struct Guarded<F> {
        #[pin]
        future: F,
    }
}

impl<F, E> Future for Guarded<F>
where
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let future = self.project().future;
        match catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
            Ok(poll) => poll,
            Err(panic) => Poll::Ready(Ok(panic_to_response(panic))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::StatusCode;
    use axum::routing::get;
    use axum::Router;
    use http_body_util::BodyExt as _;
    use tower::ServiceExt as _;

    async fn answer(router: Router, path: &str) -> (StatusCode, String) {
        let request = Request::builder().uri(path).body(Body::empty()).unwrap();
        let response = router.oneshot(request).await.unwrap();
        let status = response.status();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        (status, String::from_utf8_lossy(&body).into_owned())
    }

    /// A panic before the handler's first await, after it, and none at all.
    #[tokio::test]
    async fn a_panicking_handler_gets_the_contracts_500_and_others_pass() {
        async fn fine() -> &'static str {
            "fine"
        }
        async fn panics_at_once() -> &'static str {
            panic!("at once")
        }
        async fn panics_after_await() -> &'static str {
            tokio::task::yield_now().await;
            panic!("after an await")
        }
        let router = Router::new()
            .route("/fine", get(fine))
            .route("/at-once", get(panics_at_once))
            .route("/after-await", get(panics_after_await))
            .layer(CatchPanicLayer);
        let internal = r#"{"error":"internal server error"}"#.to_owned();
        assert_eq!(
            answer(router.clone(), "/fine").await,
            (StatusCode::OK, "fine".to_owned())
        );
        for path in ["/at-once", "/after-await"] {
            assert_eq!(
                answer(router.clone(), path).await,
                (StatusCode::INTERNAL_SERVER_ERROR, internal.clone()),
                "{path}"
            );
        }
    }
}
