//! What every request goes through besides its handler, in one wrapper
//! around each route's handler and each fallback ([`Served`]), in order: the
//! request counter and its clock (crate::metrics), the size limits
//! (crate::request_limits), then the handler's future, polled under the
//! panic guard (crate::panic_guard) and, when the stall detector is on, the
//! route's monitor (crate::route_monitors).
//! [`Routes`] adds the contract's routes to an axum `Router` from the
//! contract's table (each route's pattern, the `/metrics` label, and its
//! method), each handler wrapped.
//!
//! Why a handler wrapper and not tower layers added with `Router::layer`:
//! a layer wraps each route's service in one more boxed service, and axum
//! clones that box (an allocation, and the boxes inside it) for every
//! request. Measured on `/health` with callgrind
//! (scripts/instructions-per-request.sh), the three layers cost about 1,800
//! instructions per request, four times their own work; here the same work
//! is one future around the handler's ([`Answer`]), with nothing
//! allocated, and the route's label is known without looking it up. The
//! blocking server does the same around its handler call
//! (crates/blocking-server/src/handlers.rs).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::handler::Handler;
use axum::response::Response;
use axum::routing::{get, post, MethodRouter};
use axum::Router;
use contract::routes::UNMATCHED;

use crate::metrics::{self, Counted};
use crate::panic_guard;
use crate::request_limits;
use crate::route_monitors::{RouteMonitors, RouteWatch, Watched};
use crate::{handlers, AppState};

/// The `route` label a request is counted under.
#[derive(Clone, Copy)]
enum Label {
    /// The handler's own route.
    Route(&'static str),
    /// The route axum matched the path to (a known path asked with a method
    /// it does not serve), looked up per request: only 405s take this path.
    Matched,
}

/// A handler (or fallback) with everything that goes around it.
#[derive(Clone)]
pub(crate) struct Served<H> {
    handler: H,
    label: Label,
    /// The stall detector's share for the route; `None` when it is off, and
    /// for the fallbacks, which are not routes.
    watch: Option<RouteWatch>,
}

impl<H, T> Handler<T, AppState> for Served<H>
where
    H: Handler<T, AppState>,
    T: 'static,
{
    type Future = Counted<Answer<H::Future>>;

    fn call(self, request: Request, state: AppState) -> Self::Future {
        // The head is in: the request's time starts here.
        let began = std::time::Instant::now();
        let method = metrics::method_label(request.method());
        let route = match self.label {
            Label::Route(pattern) => pattern,
            Label::Matched => metrics::route_label(&request),
        };
        let counters = state.counters;
        let answer = match request_limits::rejection(&request) {
            Some(rejected) => Answer::Ready {
                response: Some(rejected),
            },
            None => {
                let future = self.handler.call(request, state);
                match self.watch {
                    None => Answer::Handler { future },
                    Some(watch) => Answer::Watched {
                        future: watch.watch(future),
                    },
                }
            }
        };
        metrics::count(counters, route, method, began, answer)
    }
}

pin_project_lite::pin_project! {
    /// A request's answer: ready at once (the limits refused the request), or
    /// the handler's future, polled under the panic guard, and under the
    /// route's monitor when the stall detector is on. One enum rather
    /// than a wrapper per step: the future is moved several times on its way
    /// to hyper, and each nested wrapper made it bigger and its drop longer.
    #[project = AnswerProjection]
    pub(crate) enum Answer<F> {
        Ready { response: Option<Response> },
        Handler { #[pin] future: F },
        Watched { #[pin] future: Watched<F> },
    }
}

impl<F: Future<Output = Response>> Future for Answer<F> {
    type Output = Response;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Response> {
        match self.project() {
            AnswerProjection::Ready { response } => match response.take() {
                Some(response) => Poll::Ready(response),
                // Polled again after it was ready: hyper never does.
                None => Poll::Pending,
            },
            AnswerProjection::Handler { future } => panic_guard::poll(future, cx),
            AnswerProjection::Watched { future } => panic_guard::poll(future, cx),
        }
    }
}

/// Adds the contract's routes to an axum `Router`, each handler [`Served`].
pub(crate) struct Routes<'a> {
    monitors: &'a RouteMonitors,
    router: Router<AppState>,
}

impl<'a> Routes<'a> {
    pub(crate) fn new(monitors: &'a RouteMonitors) -> Self {
        Routes {
            monitors,
            router: Router::new(),
        }
    }

    /// `handler` for `pattern`, with the route's monitor when the detector
    /// is on.
    fn served<H>(&self, pattern: &'static str, handler: H) -> Served<H> {
        Served {
            handler,
            label: Label::Route(pattern),
            watch: self.monitors.watch(pattern),
        }
    }

    /// The contract's route `pattern`, answered by `handler`, for the
    /// method the contract's table gives it (`GET` also answers `HEAD`).
    ///
    /// # Panics
    /// If `pattern` is not a route of `contract::routes::ROUTES`, or its
    /// method is one this server has no router for: a route spelled
    /// differently here would be served under a label no other part knows.
    /// It panics as the router is built, at start-up, and in every test
    /// that builds one.
    pub(crate) fn route<H, T>(self, pattern: &'static str, handler: H) -> Self
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        let Some(spec) = contract::routes::find(pattern) else {
            panic!("route {pattern} is not in contract::routes::ROUTES");
        };
        let served = self.served(spec.pattern, handler);
        let route: MethodRouter<AppState> = match spec.method {
            "GET" => get(served),
            "POST" => post(served),
            other => panic!("route {pattern}: the contract's method {other} has no router here"),
        };
        Routes {
            monitors: self.monitors,
            router: self.router.route(spec.pattern, route),
        }
    }

    /// The router, with the contract's answers for a known path asked with
    /// the wrong method (405) and for no route at all (404), counted and
    /// limited like the routes.
    pub(crate) fn done(self) -> Router<AppState> {
        fn fallback<H>(handler: H, label: Label) -> Served<H> {
            Served {
                handler,
                label,
                watch: None,
            }
        }
        self.router
            // Must come after the routes: it applies to the routes added so far.
            .method_not_allowed_fallback(fallback(handlers::method_not_allowed, Label::Matched))
            .fallback(fallback(handlers::no_route, Label::Route(UNMATCHED)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::{header, StatusCode};
    use clap::Parser as _;
    use contract::params::MAX_BODY_BYTES;

    /// `handler` answering `request` the way the router has it answer: served.
    async fn answer<H, T>(handler: H, request: Request, state: &AppState) -> StatusCode
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        let served = Served {
            handler,
            label: Label::Route("/health"),
            watch: None,
        };
        served.call(request, state.clone()).await.status()
    }

    fn get() -> Request {
        Request::builder()
            .uri("/health")
            .body(Body::empty())
            .unwrap()
    }

    async fn fine() -> Response {
        Response::new(Body::empty())
    }

    async fn panics_before_any_await() -> Response {
        panic!("before any await")
    }

    async fn panics_after_an_await() -> Response {
        tokio::task::yield_now().await;
        panic!("after an await")
    }

    /// Each way a request can be answered without its handler's own response
    /// (refused by a limit, a panic before the handler's first await, a
    /// panic after one) gets the contract's status, and the counter counts it under
    /// the route; none is left in flight.
    #[tokio::test]
    async fn every_kind_of_answer_is_given_and_counted() {
        let settings = crate::Settings::try_parse_from(["async-server"]).unwrap();
        let state = AppState::new(settings).unwrap();
        let too_long = Request::builder()
            .uri("/health")
            .header(header::CONTENT_LENGTH, (MAX_BODY_BYTES + 1).to_string())
            .body(Body::empty())
            .unwrap();
        assert_eq!(
            answer(fine, too_long, &state).await,
            StatusCode::PAYLOAD_TOO_LARGE
        );
        assert_eq!(
            answer(panics_before_any_await, get(), &state).await,
            StatusCode::INTERNAL_SERVER_ERROR
        );
        assert_eq!(
            answer(panics_after_an_await, get(), &state).await,
            StatusCode::INTERNAL_SERVER_ERROR
        );
        assert_eq!(answer(fine, get(), &state).await, StatusCode::OK);
        assert_eq!(
            state.counters.counts(),
            [
                ("/health", 200, 1),
                ("/health", 413, 1),
                ("/health", 500, 2)
            ]
        );
        assert_eq!(state.counters.in_flight(), 0);
    }
}
