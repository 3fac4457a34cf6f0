//! The timeout between requests on a keep-alive connection: a connection
//! with no request in flight must begin its next one within
//! `--header-read-timeout-ms` of its last answer, or it is closed (quietly
//! if it sent nothing, with the contract's 408 if it sent part of a head;
//! crate::serve decides which), the first head too, counted from the
//! connection's start. A body that is arriving counts as a request in
//! flight: it has its own deadline (crate::scanned_io).
//!
//! hyper has this timeout built in (`http1::Builder::header_read_timeout`),
//! but it costs per request: hyper arms it each time it starts waiting for a
//! head, and to do that it goes round its whole read-write loop a second time
//! after every answer (one more read attempt, one more write and flush
//! check), asks its timer for a new boxed sleep, reads the clock, and drops
//! the sleep when the head arrives: about 900 instructions per `/health`
//! request under callgrind (scripts/instructions-per-request.sh), the
//! largest single cost separating a server from a bare axum app, which has
//! no timeout at all.
//!
//! Here the connection's own task watches instead. Each connection has an
//! [`Activity`]: how many requests are in flight, and when the last one
//! finished. [`ConnectionService`], the hyper service of the connection, keeps
//! it up to date: per request, two atomic additions on a counter no other
//! connection touches, a reference-count increment and decrement on the
//! connection's `Activity` (held by the request's future), and one clock
//! read. [`Activity::idle_for`] is a single tokio sleep per connection that
//! wakes at the earliest moment the connection could be idle for the
//! timeout; if a request came and went meanwhile it sleeps again until its
//! new deadline, so a busy connection costs one timer wake-up per timeout
//! period, not one per request (Netty's `IdleStateHandler` works the same
//! way).
//!
//! The same [`Activity`] serves the drain (crate::serve): from its start
//! every answer says `Connection: close` ([`Activity::close_after_answers`],
//! the blocking server's `draining` flag), and hyper's graceful shutdown
//! waits while a body is arriving ([`Activity::no_body_arriving`]).
//!
//! What differs from hyper's timeout, on purpose:
//! - The deadline counts from when the last answer was *produced*, not from
//!   when hyper finished writing it. A client that stops reading its answer
//!   is therefore cut off too, a timeout later; the blocking server does the
//!   same with its socket write timeout (crates/blocking-server/src/connector).
//! - A request in flight is never cut off, however long its handler takes;
//!   the watch looks again a timeout later.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{ready, Context, Poll, Waker};
use std::time::Duration;

use axum::response::Response;
use axum::Router;
use hyper::body::Incoming;
use tokio::time::Instant;
use tower::Service as _;

/// One connection's requests, as its idle watch needs them, as the
/// socket's reader needs them to end hyper's input only between requests
/// ([`Activity::wake_when_none_in_flight`]), and as the drain needs them
/// (crate::serve).
pub(crate) struct Activity {
    /// When the connection was handed to hyper; times below count from it.
    start: Instant,
    in_flight: AtomicU64,
    /// Nanoseconds from `start` to when the last request finished (0 until
    /// one has).
    last_finished: AtomicU64,
    /// Whether `waiter` waits for no request to be in flight: read once per
    /// request, written only after a refused request (crate::scanned_io).
    waiting: AtomicBool,
    waiter: Mutex<Option<Waker>>,
    /// Whether a body is arriving that crate::scanned_io keeps back: a
    /// request hyper has not seen yet.
    body_arriving: AtomicBool,
    /// Set when the drain begins: answers say `Connection: close`.
    closing: AtomicBool,
}

impl Activity {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Activity {
            start: Instant::now(),
            in_flight: AtomicU64::new(0),
            last_finished: AtomicU64::new(0),
            waiting: AtomicBool::new(false),
            waiter: Mutex::new(None),
            body_arriving: AtomicBool::new(false),
            closing: AtomicBool::new(false),
        })
    }

    /// A request began, in hyper's service.
    pub(crate) fn began(&self) {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
    }

    /// A body began to arrive, its head in and the request kept back by
    /// crate::scanned_io until it is whole: a request in flight for the
    /// idle watch (the body has its own deadline), and one the drain waits
    /// to hand to hyper.
    pub(crate) fn body_began(&self) {
        self.body_arriving.store(true, Ordering::Relaxed);
        self.began();
    }

    /// The body that [`Activity::body_began`] is whole (its request now
    /// hyper's), refused, or cut short.
    pub(crate) fn body_ended(&self) {
        self.body_arriving.store(false, Ordering::Relaxed);
        self.finished();
    }

    /// Ready once no body is arriving (at once if none is).
    ///
    /// Poll it in the connection's own task, after the connection: a body
    /// ends only while hyper reads the socket (crate::scanned_io), inside
    /// the connection's poll, so whenever the task wakes this looks after
    /// any change, and needs no waker of its own.
    pub(crate) async fn no_body_arriving(&self) {
        std::future::poll_fn(|_| {
            if self.body_arriving.load(Ordering::Relaxed) {
                Poll::Pending
            } else {
                Poll::Ready(())
            }
        })
        .await;
    }

    /// From now on every answer says `Connection: close`, so that hyper
    /// closes the connection once it is written: the drain has begun.
    pub(crate) fn close_after_answers(&self) {
        self.closing.store(true, Ordering::Relaxed);
    }

    /// A request that [`Activity::began`] is done.
    pub(crate) fn finished(&self) {
        let since_start = self.start.elapsed().as_nanos();
        self.last_finished.store(
            u64::try_from(since_start).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
        // Sequentially consistent, with the two accesses of
        // `wake_when_none_in_flight`: either it sees this request gone, or
        // this sees it waiting.
        if self.in_flight.fetch_sub(1, Ordering::SeqCst) == 1 && self.waiting.load(Ordering::SeqCst)
        {
            self.waiting.store(false, Ordering::SeqCst);
            let waiter = self
                .waiter
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            if let Some(waker) = waiter {
                waker.wake();
            }
        }
    }

    /// Whether a request is in flight; if one is, `waker` is woken once
    /// none is. The socket's reader (crate::scanned_io) asks before it
    /// ends hyper's input: an end while a request is in flight would make
    /// hyper drop that request as a vanished client's.
    pub(crate) fn wake_when_none_in_flight(&self, waker: &Waker) -> bool {
        if self.in_flight.load(Ordering::SeqCst) == 0 {
            return false;
        }
        *self.waiter.lock().unwrap_or_else(PoisonError::into_inner) = Some(waker.clone());
        self.waiting.store(true, Ordering::SeqCst);
        // The request may have finished in between, without seeing us.
        if self.in_flight.load(Ordering::SeqCst) == 0 {
            self.waiting.store(false, Ordering::SeqCst);
            return false;
        }
        true
    }

    /// When the connection last had no request in flight, or `None` if it
    /// has one now.
    fn idle_since(&self) -> Option<Instant> {
        if self.in_flight.load(Ordering::Relaxed) > 0 {
            return None;
        }
        let nanos = self.last_finished.load(Ordering::Relaxed);
        Some(self.start + Duration::from_nanos(nanos))
    }

    /// Ready once the connection has had no request in flight for
    /// `timeout`. One sleep, re-armed only when it wakes too early.
    ///
    /// Poll it in the connection's own task, after the connection: then
    /// every request that has arrived has begun before this looks.
    pub(crate) async fn idle_for(&self, timeout: Duration) {
        let sleep = tokio::time::sleep_until(self.start + timeout);
        tokio::pin!(sleep);
        loop {
            sleep.as_mut().await;
            let now = Instant::now();
            let due = match self.idle_since() {
                Some(since) => since + timeout,
                // Busy: look again a timeout from now.
                None => now + timeout,
            };
            if due <= now {
                return;
            }
            sleep.as_mut().reset(due);
        }
    }
}

/// The hyper service of one connection: the router, with the connection's
/// [`Activity`] kept up to date around each request.
///
/// The router sits in a `RefCell`, not behind a clone per request (what
/// hyper-util's `TowerToHyperService` does): axum's `Router::call` takes
/// `&mut self`, hyper's `Service::call` gives `&self`, and a `Router` clone
/// is a reference-count increment on a count every connection on every
/// worker shares. The cell is only ever borrowed inside `call`, by the
/// connection's own task, so the borrow cannot fail.
pub(crate) struct ConnectionService {
    router: std::cell::RefCell<Router>,
    activity: Arc<Activity>,
}

impl ConnectionService {
    pub(crate) fn new(router: Router, activity: Arc<Activity>) -> Self {
        ConnectionService {
            router: std::cell::RefCell::new(router),
            activity,
        }
    }
}

impl hyper::service::Service<hyper::Request<Incoming>> for ConnectionService {
    type Response = Response;
    type Error = Infallible;
    type Future = Tracked<axum::routing::future::RouteFuture<Infallible>>;

    fn call(&self, request: hyper::Request<Incoming>) -> Self::Future {
        self.activity.began();
        // axum's router is always ready (its `poll_ready` returns `Ready`).
        let future = self
            .router
            .borrow_mut()
            .call(request.map(axum::body::Body::new));
        Tracked {
            future,
            finished: Finished(self.activity.clone()),
        }
    }
}

/// Marks the request finished when its future completes or is dropped.
struct Finished(Arc<Activity>);

impl Drop for Finished {
    fn drop(&mut self) {
        self.0.finished();
    }
}

pin_project_lite::pin_project! {
    /// A request's future; the request counts as in flight until it is
    /// dropped, which hyper does once the answer is ready (or the
    /// connection is gone).
    pub(crate) struct Tracked<F> {
        #[pin]
        future: F,
        finished: Finished,
    }
}

impl<F: Future<Output = Result<Response, Infallible>>> Future for Tracked<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let Ok(mut response) = ready!(this.future.poll(cx));
        if this.finished.0.closing.load(Ordering::Relaxed) {
            // The drain has begun (crate::serve). hyper's graceful
            // shutdown makes the answers it has begun say this too, but a
            // request kept back until its body came reaches hyper after the
            // drain began, and may be answered in the very poll that hands
            // it over, before the graceful shutdown is called.
            response.headers_mut().insert(
                axum::http::header::CONNECTION,
                axum::http::HeaderValue::from_static("close"),
            );
        }
        Poll::Ready(Ok(response))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::poll_fn;

    /// Whether `idle` is ready, polled once.
    async fn fired(idle: &mut Pin<Box<impl Future<Output = ()>>>) -> bool {
        poll_fn(|cx| Poll::Ready(idle.as_mut().poll(cx).is_ready())).await
    }

    /// Advances the clock to 1 ms short of `after` from now, then 1 ms past
    /// it: fails unless `idle` fires in between, and not before.
    async fn assert_fires_at(idle: &mut Pin<Box<impl Future<Output = ()>>>, after: Duration) {
        tokio::time::advance(after - Duration::from_millis(1)).await;
        assert!(!fired(idle).await, "fired 1 ms before {after:?}");
        tokio::time::advance(Duration::from_millis(2)).await;
        assert!(fired(idle).await, "not idle 1 ms after {after:?}");
    }

    const TIMEOUT: Duration = Duration::from_secs(10);

    #[tokio::test(start_paused = true)]
    async fn a_connection_that_never_asks_is_idle_one_timeout_after_it_began() {
        let activity = Activity::new();
        let mut idle = Box::pin(activity.idle_for(TIMEOUT));
        assert_fires_at(&mut idle, TIMEOUT).await;
    }

    #[tokio::test(start_paused = true)]
    async fn the_deadline_counts_from_the_last_answer() {
        let activity = Activity::new();
        let mut idle = Box::pin(activity.idle_for(TIMEOUT));
        tokio::time::advance(Duration::from_secs(4)).await;
        activity.began();
        activity.finished();
        // The first deadline passes: the watch wakes and sleeps again.
        tokio::time::advance(Duration::from_secs(6)).await;
        assert!(!fired(&mut idle).await, "fired at the first deadline");
        // 10 s after the answer.
        assert_fires_at(&mut idle, Duration::from_secs(4)).await;
    }

    /// The drain's wait (crate::serve): pending while a body is arriving,
    /// ready once it has ended, as polled after the connection.
    #[tokio::test]
    async fn the_drain_waits_while_a_body_is_arriving() {
        let activity = Activity::new();
        let mut waiting = Box::pin(activity.no_body_arriving());
        assert!(fired(&mut waiting).await, "waited with no body arriving");
        activity.body_began();
        let mut waiting = Box::pin(activity.no_body_arriving());
        assert!(!fired(&mut waiting).await, "ready while a body is arriving");
        activity.body_ended();
        assert!(
            fired(&mut waiting).await,
            "still waiting once the body ended"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_in_flight_is_never_cut_off() {
        let activity = Activity::new();
        let mut idle = Box::pin(activity.idle_for(TIMEOUT));
        activity.began();
        tokio::time::advance(TIMEOUT * 5).await;
        assert!(!fired(&mut idle).await, "cut off a request in flight");
        activity.finished();
        // Whenever the watch next wakes, it waits for a full timeout after
        // the answer, and no longer.
        assert_fires_at(&mut idle, TIMEOUT).await;
    }
}
