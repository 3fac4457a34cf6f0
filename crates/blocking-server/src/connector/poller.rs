//! The poller thread: watches idle connections with epoll and hands each one
//! that becomes readable to the handler queue, like Tomcat's `Poller`.
//!
//! "Idle" means no request in progress: a fresh connection from the acceptor,
//! or a keep-alive connection a handler thread gave back after answering. No
//! thread waits on an idle connection; the kernel tells us when bytes come.
//!
//! Any thread may park a connection ([`Poller::park`]): the map of parked
//! connections sits behind a mutex held only for a map update and one
//! `epoll_ctl`, never while waiting.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;
use rustix::buffer::spare_capacity;
use rustix::event::{epoll, Timespec};
use rustix::fd::OwnedFd;

use super::{Conn, Shared};

/// How often the poller looks at the shutdown flag and for connections idle
/// too long or with a head that is late.
const TICK: Duration = Duration::from_millis(100);
const SWEEP_EVERY: Duration = TICK;

pub(super) struct Poller {
    epoll: OwnedFd,
    parked: Mutex<Parked>,
    idle_timeout: Duration,
}

struct Parked {
    connections: HashMap<u64, (Conn, Instant)>,
    next_key: u64,
    /// Set at shutdown: connections parked after that are closed at once.
    closed: bool,
}

impl Poller {
    pub(super) fn new(idle_timeout: Duration) -> std::io::Result<Self> {
        Ok(Poller {
            epoll: epoll::create(epoll::CreateFlags::CLOEXEC)?,
            parked: Mutex::new(Parked {
                connections: HashMap::new(),
                next_key: 0,
                closed: false,
            }),
            idle_timeout,
        })
    }

    /// Hands an idle connection to the poller; it comes back through the
    /// handler queue when the client sends its next request.
    pub(super) fn park(&self, connection: Conn) {
        let mut parked = self.lock();
        if parked.closed {
            return; // dropping the connection closes it
        }
        let key = parked.next_key;
        parked.next_key += 1;
        // Registered while the lock is held, so an event for `key` cannot be
        // looked up before the connection is in the map. ONESHOT: the first
        // event disarms it; we remove it from epoll right after anyway.
        let registered = epoll::add(
            &self.epoll,
            &connection.stream,
            epoll::EventData::new_u64(key),
            epoll::EventFlags::IN | epoll::EventFlags::ONESHOT,
        );
        match registered {
            Ok(()) => {
                parked.connections.insert(key, (connection, Instant::now()));
            }
            Err(e) => {
                tracing::warn!(error = %e, "epoll registration failed; closing the connection")
            }
        }
    }

    /// The poller thread's loop; returns at shutdown, after closing every
    /// idle connection.
    pub(super) fn run(&self, queue: &Sender<Conn>, shared: &Shared) {
        let mut events: Vec<epoll::Event> = Vec::with_capacity(1024);
        let mut ready = Vec::with_capacity(1024);
        let mut last_sweep = Instant::now();
        let tick = Timespec {
            tv_sec: 0,
            tv_nsec: TICK.as_nanos() as _,
        };
        loop {
            events.clear();
            match epoll::wait(&self.epoll, spare_capacity(&mut events), Some(&tick)) {
                Ok(_) | Err(rustix::io::Errno::INTR) => {}
                Err(e) => {
                    tracing::error!(error = %e, "epoll_wait failed; the poller stops");
                    self.close_all();
                    return;
                }
            }
            if shared.shutting_down() {
                self.close_all();
                return;
            }
            let now = Instant::now();
            {
                let mut parked = self.lock();
                for event in events.iter() {
                    let Some((mut connection, _)) = parked.connections.remove(&event.data.u64())
                    else {
                        continue;
                    };
                    let _ = epoll::delete(&self.epoll, &connection.stream);
                    // Its request's wait for a handler thread starts now.
                    connection.queued_at = Some(now);
                    ready.push(connection);
                }
            }
            // Sent outside the lock; the queue is unbounded, so this never waits.
            for connection in ready.drain(..) {
                if queue.send(connection).is_err() {
                    return;
                }
            }
            if last_sweep.elapsed() >= SWEEP_EVERY {
                last_sweep = Instant::now();
                self.sweep(queue);
                // Every tick, whatever the load: are all handler threads busy?
                shared
                    .busy
                    .warn_if_all_busy_too_long(last_sweep, queue.len());
            }
        }
    }

    /// Closes connections that sent nothing for the idle timeout, and hands
    /// back to a handler thread those whose partial head ran out of time (it
    /// answers 408).
    fn sweep(&self, queue: &Sender<Conn>) {
        let now = Instant::now();
        let head_late = |c: &Conn| c.head_deadline.is_some_and(|d| now >= d);
        let mut expired = Vec::new();
        {
            let mut parked = self.lock();
            let due: Vec<u64> = parked
                .connections
                .iter()
                .filter(|(_, (c, since))| {
                    head_late(c) || now.duration_since(*since) >= self.idle_timeout
                })
                .map(|(key, _)| *key)
                .collect();
            for key in due {
                if let Some((connection, _)) = parked.connections.remove(&key) {
                    let _ = epoll::delete(&self.epoll, &connection.stream);
                    if head_late(&connection) {
                        expired.push(connection);
                    } // else dropped: closed
                }
            }
        }
        for connection in expired {
            let _ = queue.send(connection);
        }
    }

    fn close_all(&self) {
        let mut parked = self.lock();
        parked.closed = true;
        let count = parked.connections.len();
        for (_, (connection, _)) in parked.connections.drain() {
            let _ = epoll::delete(&self.epoll, &connection.stream);
        }
        tracing::info!(count, "closed idle connections");
    }

    fn lock(&self) -> MutexGuard<'_, Parked> {
        // A panic elsewhere while holding this lock leaves the map usable.
        self.parked
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
