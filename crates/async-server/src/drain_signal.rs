//! The "stop and drain" signal as every connection task watches it, for the
//! price of one atomic load per wake.
//!
//! A connection task waits on two things at once: hyper's connection and the
//! drain signal (crate::serve). `tokio::select!` polls both each time the
//! task wakes, which is at least once per request. Polling a tokio `watch`
//! (or `Notify`, or a `CancellationToken`) that has not fired takes the
//! channel's lock to re-register the waker; that lock is one for all the
//! connections, so two workers serving requests would pass its cache line
//! back and forth on every request. [`DrainSignal::begun`] registers once
//! and afterwards, while the drain has not begun and the task's waker is the
//! same, answers from a flag that is only ever written once.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use tokio::sync::watch;

/// The sending half: held by the accept loop.
pub(crate) struct DrainSender {
    begun: Arc<AtomicBool>,
    tx: watch::Sender<bool>,
}

/// The receiving half: one clone per connection.
#[derive(Clone)]
pub(crate) struct DrainSignal {
    begun: Arc<AtomicBool>,
    rx: watch::Receiver<bool>,
}

pub(crate) fn channel() -> (DrainSender, DrainSignal) {
    let begun = Arc::new(AtomicBool::new(false));
    let (tx, rx) = watch::channel(false);
    (
        DrainSender {
            begun: begun.clone(),
            tx,
        },
        DrainSignal { begun, rx },
    )
}

impl DrainSender {
    /// Tells every connection to finish what it is doing and close.
    pub(crate) fn begin(&self) {
        // The flag first: a connection that sees it unset is registered with
        // the channel, so the send below still wakes it.
        self.begun.store(true, Ordering::Release);
        let _ = self.tx.send(true);
    }
}

impl DrainSignal {
    /// Resolves once the drain has begun (at once if it already has).
    pub(crate) async fn begun(&mut self) {
        let DrainSignal { begun, rx } = self;
        let waiting = async {
            // Only the moment matters; the guard `wait_for` returns is dropped.
            let _ = rx.wait_for(|begun| *begun).await;
        };
        CheapWhileUnchanged {
            inner: waiting,
            begun,
            registered: None,
        }
        .await
    }
}

pin_project_lite::pin_project! {
    /// `inner` (the channel wait) polled only when it could be ready: the
    /// first time, when the drain has begun, or when the task's waker is not
    /// the one `inner` registered.
    struct CheapWhileUnchanged<'a, F> {
        #[pin]
        inner: F,
        begun: &'a AtomicBool,
        registered: Option<Waker>,
    }
}

impl<F: Future<Output = ()>> Future for CheapWhileUnchanged<'_, F> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.project();
        let unchanged = !this.begun.load(Ordering::Acquire)
            && this
                .registered
                .as_ref()
                .is_some_and(|waker| waker.will_wake(cx.waker()));
        if unchanged {
            return Poll::Pending;
        }
        let polled = this.inner.poll(cx);
        if polled.is_pending() {
            *this.registered = Some(cx.waker().clone());
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_waiting_connection_wakes_when_the_drain_begins() {
        let (sender, signal) = channel();
        let mut waiting = signal.clone();
        let task = tokio::spawn(async move { waiting.begun().await });
        // Let it register and go back to sleep.
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!task.is_finished(), "resolved before the drain began");
        sender.begin();
        tokio::time::timeout(Duration::from_secs(5), task)
            .await
            .expect("the drain did not wake the connection")
            .unwrap();
    }

    #[tokio::test]
    async fn a_connection_opened_after_the_drain_began_sees_it_at_once() {
        let (sender, mut signal) = channel();
        sender.begin();
        tokio::time::timeout(Duration::from_secs(5), signal.begun())
            .await
            .expect("not resolved");
    }

    #[tokio::test]
    async fn polls_while_nothing_changed_do_not_touch_the_channel() {
        let (sender, signal) = channel();
        let mut signal = signal;
        let mut begun = std::pin::pin!(signal.begun());
        let waker = futures_util::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        assert!(begun.as_mut().poll(&mut cx).is_pending());
        // The channel changes without the flag (not how `begin` does it):
        // a poll that is one load must not see it...
        let _ = sender.tx.send(true);
        assert!(begun.as_mut().poll(&mut cx).is_pending());
        // ...and the flag makes the next poll look.
        sender.begun.store(true, Ordering::Release);
        assert!(begun.as_mut().poll(&mut cx).is_ready());
    }
}
