//! What every request goes through besides its handler, in one wrapper
//! around each route's handler and each fallback ([`Served`]), in order: the
//! request counter and its clock (crate::metrics), the size limits
//! (crate::request_limits), the route's `{id}` decided once ([`PathId`]),
//! then the handler's future, polled under the panic guard
//! (crate::panic_guard) and, when the stall detector is on, the route's
//! monitor (crate::route_monitors).
//! [`Routes`] adds the contract's routes to an axum `Router`, each by its
//! `contract::routes::Route` (its pattern, the `/metrics` label, and its
//! method come from the contract's table), each handler wrapped.
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
use axum::response::{IntoResponse as _, Response};
use axum::routing::{get, post, MethodRouter};
use axum::Router;
use contract::params::parse_path_id;
use contract::routes::{Method, Route, UNMATCHED};

use crate::error::AppError;
use crate::handlers::{self, PathId};
use crate::metrics::{self, Counted};
use crate::panic_guard;
use crate::request_limits;
use crate::route_monitors::{RouteMonitors, RouteWatch, Watched};
use crate::AppState;

/// The `route` label a request is counted under.
#[derive(Clone, Copy)]
enum Label {
    /// The handler's own route.
    Route(Route),
    /// No route: the fallback for an unknown path.
    Unmatched,
    /// The route axum matched the path to (a known path asked with a method
    /// it does not serve), looked up per request: only 405s take this path.
    Matched,
}

/// The contract's answer to a request that does not reach its handler, or
/// `None` when it does: over the size limits (crate::request_limits), or,
/// on a route with an `{id}`, an id the contract refuses
/// (`contract::params::parse_path_id`, from the raw, still percent-encoded
/// segment). An accepted id goes to the handler as a [`PathId`].
fn refusal(label: Label, request: &mut Request) -> Option<Response> {
    if let Some(rejected) = request_limits::rejection(request) {
        return Some(rejected);
    }
    let Label::Route(route) = label else {
        return None;
    };
    let raw = route.id_segment(request.uri().path())?;
    match parse_path_id(raw) {
        Ok(id) => {
            request.extensions_mut().insert(PathId(id));
            None
        }
        Err(refused) => Some(AppError::from(refused).into_response()),
    }
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

    fn call(self, mut request: Request, state: AppState) -> Self::Future {
        // The head is in: the request's time starts here.
        let began = std::time::Instant::now();
        let method = metrics::method_label(request.method());
        let route = match self.label {
            Label::Route(route) => route.pattern(),
            Label::Unmatched => UNMATCHED,
            Label::Matched => metrics::route_label(&request),
        };
        let counters = state.counters;
        let answer = match refusal(self.label, &mut request) {
            Some(refused) => Answer::Ready {
                response: Some(refused),
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

    /// The contract's `route`, answered by `handler` (with the route's
    /// monitor when the detector is on), at the route's pattern and for the
    /// method the contract's table gives it (`GET` also answers `HEAD`).
    pub(crate) fn add<H, T>(self, route: Route, handler: H) -> Self
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        let served = Served {
            handler,
            label: Label::Route(route),
            watch: self.monitors.watch(route),
        };
        let spec = route.spec();
        let method_router: MethodRouter<AppState> = match spec.method {
            Method::Get => get(served),
            Method::Post => post(served),
        };
        Routes {
            monitors: self.monitors,
            router: self.router.route(spec.pattern, method_router),
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
            .fallback(fallback(handlers::no_route, Label::Unmatched))
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
            label: Label::Route(Route::Health),
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
