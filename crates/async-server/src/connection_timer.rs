//! hyper's header read timeout with one tokio timer per connection instead
//! of one per request.
//!
//! hyper arms the header read timeout each time it starts waiting for a
//! request head, and drops it once the head is in: per request, it asks its
//! `Timer` for a new boxed sleep. With hyper-util's `TokioTimer` that sleep
//! is a tokio timer entry, put into the runtime's timer wheel when hyper
//! first polls it and taken out again when the head arrives: two locked
//! wheel updates and a reference-count round trip on the runtime handle for
//! every request, shared by all workers. On `/health` that was the largest
//! single cost separating this server from a bare axum app, which has no
//! header timeout at all (issue 9; the README's overhead table has the
//! figures, `scripts/detector-overhead.sh` measures them).
//!
//! [`ConnectionTimer`] keeps the timeout and its exact deadline but arms the
//! wheel lazily, as Netty's IdleStateHandler does (it re-schedules its check
//! for the time left when it fires early, rather than per read): each
//! connection has one tokio `Sleep`. The sleep hyper asks for per request
//! ([`HeadDeadline`]) only records its deadline; when polled it looks at the
//! connection's armed sleep, and if that one went off for an earlier
//! deadline (a head that arrived in time long ago), moves it to this one.
//! A connection making thousands of requests a second thus touches the wheel
//! about once per timeout period, and a late head is still caught at its
//! own deadline: the armed sleep is never later than the deadline it is
//! checked against.
//!
//! The cost of the laziness: an armed sleep whose deadline has passed wakes
//! its connection task once for nothing (hyper polls, no head is due, the
//! task sleeps again), at most once per timeout period per connection.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::time::Sleep;

/// The `Timer` of one connection's hyper state machine: hand each connection
/// its own (`http1::Builder::timer`), so that its heads share one sleep.
#[derive(Clone, Default)]
pub(crate) struct ConnectionTimer {
    /// The connection's one tokio timer, made at the first head's deadline.
    /// A mutex because hyper requires its timers to be `Sync`; only the
    /// connection's own task ever takes it, so it is never contended.
    armed: Arc<Mutex<Option<Pin<Box<Sleep>>>>>,
}

impl hyper::rt::Timer for ConnectionTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn hyper::rt::Sleep>> {
        self.sleep_until(self.now() + duration)
    }

    /// tokio's clock, which hyper's deadlines are then measured on (the
    /// same as the system's, except in tests with paused time).
    fn now(&self) -> Instant {
        tokio::time::Instant::now().into_std()
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn hyper::rt::Sleep>> {
        Box::pin(HeadDeadline {
            deadline: deadline.into(),
            armed: self.armed.clone(),
        })
    }
}

/// One head's deadline: ready once it has passed, by the connection's
/// armed sleep.
struct HeadDeadline {
    deadline: tokio::time::Instant,
    armed: Arc<Mutex<Option<Pin<Box<Sleep>>>>>,
}

impl hyper::rt::Sleep for HeadDeadline {}

impl Future for HeadDeadline {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let deadline = self.deadline;
        let mut armed = self.armed.lock().unwrap_or_else(PoisonError::into_inner);
        let sleep = armed.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        // Never later than this deadline (a shorter timeout than before).
        if sleep.deadline() > deadline {
            sleep.as_mut().reset(deadline);
        }
        loop {
            std::task::ready!(sleep.as_mut().poll(cx));
            if sleep.deadline() >= deadline {
                return Poll::Ready(());
            }
            // It went off for an earlier head's deadline: on to this one's.
            sleep.as_mut().reset(deadline);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::rt::Timer as _;
    use std::future::poll_fn;

    /// Polls `sleep` once: whether its deadline has passed.
    async fn has_passed(sleep: &mut Pin<Box<dyn hyper::rt::Sleep>>) -> bool {
        poll_fn(|cx| Poll::Ready(sleep.as_mut().poll(cx).is_ready())).await
    }

    #[tokio::test(start_paused = true)]
    async fn each_deadline_is_kept_exactly_with_one_sleep() {
        let timer = ConnectionTimer::default();
        let timeout = Duration::from_secs(10);

        // A head that arrives in time: its sleep is dropped unfinished.
        let mut first = timer.sleep(timeout);
        assert!(!has_passed(&mut first).await);
        drop(first);

        // The next head's deadline is 4 s later than the armed one.
        tokio::time::advance(Duration::from_secs(4)).await;
        let mut second = timer.sleep(timeout);
        assert!(!has_passed(&mut second).await);
        // The armed sleep goes off at the first deadline: not this one's.
        tokio::time::advance(Duration::from_secs(6)).await;
        assert!(
            !has_passed(&mut second).await,
            "ready at the first deadline"
        );
        tokio::time::advance(Duration::from_millis(3_999)).await;
        assert!(!has_passed(&mut second).await, "ready 1 ms early");
        // tokio's timers have millisecond ticks, rounded up.
        tokio::time::advance(Duration::from_millis(2)).await;
        assert!(has_passed(&mut second).await, "not ready at its deadline");
    }

    #[tokio::test(start_paused = true)]
    async fn a_shorter_timeout_than_the_armed_one_is_kept() {
        let timer = ConnectionTimer::default();
        let mut long = timer.sleep(Duration::from_secs(30));
        assert!(!has_passed(&mut long).await);
        drop(long);
        let mut short = timer.sleep(Duration::from_secs(1));
        assert!(!has_passed(&mut short).await);
        tokio::time::advance(Duration::from_millis(1_001)).await;
        assert!(has_passed(&mut short).await, "the 30 s sleep held it back");
    }

    #[tokio::test(start_paused = true)]
    async fn one_sleep_wakes_the_task_at_the_deadline() {
        let timer = ConnectionTimer::default();
        let started = tokio::time::Instant::now();
        drop(timer.sleep(Duration::from_secs(2)));
        tokio::time::advance(Duration::from_secs(1)).await;
        timer.sleep(Duration::from_secs(2)).await;
        let took = started.elapsed();
        assert!(
            took >= Duration::from_secs(3) && took <= Duration::from_millis(3_001),
            "woke after {took:?}, not at 3 s"
        );
    }
}
