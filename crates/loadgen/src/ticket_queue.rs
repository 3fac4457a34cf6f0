//! The open model's queue of due requests ("tickets", each the instant its
//! request was due) between the arrival clock's thread and the workers.
//!
//! A std `Mutex<VecDeque>` plus a `Notify` rather than a channel behind an
//! async mutex: a ticket costs at most one wake-up of one idle worker, and
//! none when workers are busy and will look at the queue on their own.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use tokio::sync::Notify;

#[derive(Default)]
pub(crate) struct TicketQueue {
    due: Mutex<VecDeque<Instant>>,
    closed: AtomicBool,
    notify: Notify,
    /// Idle workers minus queued tickets: at or below zero, a new ticket
    /// would wait for a busy connection, so the clock grows the pool.
    spare: AtomicI64,
}

impl TicketQueue {
    /// Queues a ticket and wakes one idle worker, if any.
    pub(crate) fn push(&self, intended: Instant) {
        self.spare.fetch_sub(1, Ordering::AcqRel);
        self.lock().push_back(intended);
        self.notify.notify_one();
    }

    /// No more tickets: workers drain the queue, then stop.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    /// Idle workers minus queued tickets.
    pub(crate) fn spare(&self) -> i64 {
        self.spare.load(Ordering::Acquire)
    }

    /// Counts a worker that is about to start as idle, before its task has
    /// run, so that the clock does not start another for every ticket due
    /// in the meantime.
    pub(crate) fn count_new_worker(&self) {
        self.spare.fetch_add(1, Ordering::AcqRel);
    }

    /// The next ticket, or `None` once the queue is closed and empty.
    /// `counted` is true for a worker's first call when
    /// [`count_new_worker`](Self::count_new_worker) already counted it.
    pub(crate) async fn next(&self, counted: &mut bool) -> Option<Instant> {
        if !std::mem::take(counted) {
            self.spare.fetch_add(1, Ordering::AcqRel);
        }
        loop {
            // Register for a wake-up before looking, so that a push or a
            // close between the look and the wait is not missed.
            let notified = self.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(ticket) = self.lock().pop_front() {
                return Some(ticket);
            }
            if self.closed.load(Ordering::SeqCst) {
                self.spare.fetch_sub(1, Ordering::AcqRel);
                return None;
            }
            notified.await;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Instant>> {
        // Nothing can panic while the lock is held; recover if it did.
        self.due.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[tokio::test]
    async fn delivers_every_ticket_once_then_stops_all_workers() {
        let queue = Arc::new(TicketQueue::default());
        let mut workers = Vec::new();
        for _ in 0..4 {
            let queue = Arc::clone(&queue);
            workers.push(tokio::spawn(async move {
                let mut got = 0;
                let mut counted = false;
                while queue.next(&mut counted).await.is_some() {
                    got += 1;
                    tokio::task::yield_now().await;
                }
                got
            }));
        }
        for _ in 0..1000 {
            queue.push(Instant::now());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        queue.close();
        let mut total = 0;
        for worker in workers {
            total += worker.await.expect("worker finished");
        }
        assert_eq!(total, 1000);
        assert_eq!(
            queue.spare(),
            0,
            "every idle worker left and no ticket is queued"
        );
    }
}
