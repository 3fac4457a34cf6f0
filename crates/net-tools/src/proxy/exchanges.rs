//! What the proxy measures of the traffic it carries: the exchanges on each
//! connection (the round trips a client made) and the round trip each was
//! delivered, timed on both legs.
//!
//! An exchange is a burst of bytes from the client followed by the server's
//! answer. It opens when a client chunk arrives at the proxy and none is
//! open on that connection; it closes when the first chunk of the server's
//! answer leaves the proxy towards the client, the answer being the first
//! chunk the server sent after the burst reached it. Its delivered round
//! trip is the time between the two: the latency the proxy adds both ways,
//! plus the server's own time, plus whatever the proxy's threads were late
//! on a busy machine. What a client sends before the answer comes (the
//! next queries of a pipeline) belongs to the open exchange; what the
//! server sends unasked (a notice) closes none, nor do the answers to
//! earlier bursts still on their way. So a client that waits for each
//! answer before it sends again makes one exchange per request, and one
//! that pipelines makes one per round trip, fewer than its requests.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The upper bounds of the delivered round trip's histogram buckets, in
/// microseconds (the last bucket, `+Inf`, is implied).
pub const ROUND_TRIP_BUCKETS_US: [u64; 16] = [
    250, 500, 1_000, 1_500, 2_000, 2_500, 3_000, 4_000, 5_000, 7_500, 10_000, 25_000, 50_000,
    100_000, 250_000, 1_000_000,
];

/// Buckets with the `+Inf` one.
const SLOTS: usize = ROUND_TRIP_BUCKETS_US.len() + 1;

/// Everything the proxy measured since it started; the figures of a window
/// are the differences of two readings ([`ProxyStats::since`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProxyStats {
    /// Connections passed through to the target.
    pub connections: u64,
    /// Exchanges answered: client bursts followed by the server's answer.
    pub exchanges: u64,
    /// Their delivered round trips, summed.
    pub delivered: Duration,
    /// How many delivered round trips fell in each bucket of
    /// [`ROUND_TRIP_BUCKETS_US`] (not cumulative), `+Inf` last.
    pub buckets: [u64; SLOTS],
    /// Bytes the proxy forwarded to the target, and back to the clients.
    pub bytes_to_server: u64,
    pub bytes_to_client: u64,
}

impl ProxyStats {
    /// The mean delivered round trip; `None` without an exchange.
    pub fn mean_round_trip(&self) -> Option<Duration> {
        let n = u32::try_from(self.exchanges).ok().filter(|n| *n > 0)?;
        Some(self.delivered / n)
    }

    /// What happened between `earlier` and this reading.
    pub fn since(&self, earlier: &ProxyStats) -> ProxyStats {
        let mut buckets = [0; SLOTS];
        for (slot, (now, then)) in buckets
            .iter_mut()
            .zip(self.buckets.iter().zip(&earlier.buckets))
        {
            *slot = now.saturating_sub(*then);
        }
        ProxyStats {
            connections: self.connections.saturating_sub(earlier.connections),
            exchanges: self.exchanges.saturating_sub(earlier.exchanges),
            delivered: self.delivered.saturating_sub(earlier.delivered),
            buckets,
            bytes_to_server: self.bytes_to_server.saturating_sub(earlier.bytes_to_server),
            bytes_to_client: self.bytes_to_client.saturating_sub(earlier.bytes_to_client),
        }
    }
}

/// The proxy's counters, shared by every connection's threads.
#[derive(Debug)]
pub(super) struct Counters {
    /// What the connections' open exchanges are timed against.
    epoch: Instant,
    connections: AtomicU64,
    exchanges: AtomicU64,
    delivered_ns: AtomicU64,
    buckets: [AtomicU64; SLOTS],
    bytes_to_server: AtomicU64,
    bytes_to_client: AtomicU64,
}

impl Counters {
    pub(super) fn new() -> Counters {
        Counters {
            epoch: Instant::now(),
            connections: AtomicU64::new(0),
            exchanges: AtomicU64::new(0),
            delivered_ns: AtomicU64::new(0),
            buckets: std::array::from_fn(|_| AtomicU64::new(0)),
            bytes_to_server: AtomicU64::new(0),
            bytes_to_client: AtomicU64::new(0),
        }
    }

    pub(super) fn connection_opened(&self) {
        self.connections.fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn read(&self) -> ProxyStats {
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        ProxyStats {
            connections: load(&self.connections),
            exchanges: load(&self.exchanges),
            delivered: Duration::from_nanos(load(&self.delivered_ns)),
            buckets: std::array::from_fn(|i| load(&self.buckets[i])),
            bytes_to_server: load(&self.bytes_to_server),
            bytes_to_client: load(&self.bytes_to_client),
        }
    }

    /// Nanoseconds since the epoch, never 0 (0 means "no exchange open").
    fn now_ns(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_nanos())
            .unwrap_or(u64::MAX)
            .max(1)
    }

    fn record(&self, delivered_ns: u64) {
        self.exchanges.fetch_add(1, Ordering::Relaxed);
        self.delivered_ns.fetch_add(delivered_ns, Ordering::Relaxed);
        // In nanoseconds: a bound is "at most", and 250.9 µs is past 250.
        let slot = ROUND_TRIP_BUCKETS_US
            .iter()
            .position(|bound| delivered_ns <= bound * 1_000)
            .unwrap_or(SLOTS - 1);
        self.buckets[slot].fetch_add(1, Ordering::Relaxed);
    }
}

/// One connection's open exchange: when its client burst arrived, and
/// when the burst's first chunk was forwarded to the server, in nanoseconds
/// since the counters' epoch (0: none open, not forwarded yet).
#[derive(Debug, Default)]
pub(super) struct OpenExchange {
    arrived: AtomicU64,
    forwarded: AtomicU64,
}

impl OpenExchange {
    /// A chunk from the client has just arrived with `bytes` bytes: it opens
    /// an exchange unless one is open already. True when it opened one:
    /// [`OpenExchange::forwarded`] is then due when it is sent on.
    pub(super) fn client_sent(&self, counters: &Counters, bytes: usize) -> bool {
        self.client_sent_at(counters, bytes, counters.now_ns())
    }

    /// [`OpenExchange::client_sent`] at `now` (nanoseconds since the
    /// counters' epoch, never 0).
    pub(super) fn client_sent_at(&self, counters: &Counters, bytes: usize, now: u64) -> bool {
        counters
            .bytes_to_server
            .fetch_add(bytes as u64, Ordering::Relaxed);
        self.arrived
            .compare_exchange(0, now, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    }

    /// The chunk that opened the exchange is being written to the server.
    pub(super) fn forwarded(&self, counters: &Counters) {
        self.forwarded_at(counters.now_ns());
    }

    /// [`OpenExchange::forwarded`] at `now`.
    pub(super) fn forwarded_at(&self, now: u64) {
        self.forwarded.store(now, Ordering::Release);
    }

    /// When a chunk was read from the server, for [`OpenExchange::server_answers`].
    pub(super) fn now(counters: &Counters) -> u64 {
        counters.now_ns()
    }

    /// A chunk of `bytes` bytes, read from the server at `read_at` (from
    /// [`OpenExchange::now`]), is about to leave towards the client. It is
    /// the answer to the open exchange if the server sent it after the
    /// exchange's burst reached the server; a chunk read before that
    /// answers something sent earlier (a query pipelined in the previous
    /// round trip) and closes nothing.
    pub(super) fn server_answers(&self, counters: &Counters, read_at: u64, bytes: usize) {
        self.server_answers_at(counters, read_at, bytes, counters.now_ns());
    }

    /// [`OpenExchange::server_answers`] with the chunk leaving at `now`.
    pub(super) fn server_answers_at(
        &self,
        counters: &Counters,
        read_at: u64,
        bytes: usize,
        now: u64,
    ) {
        counters
            .bytes_to_client
            .fetch_add(bytes as u64, Ordering::Relaxed);
        let forwarded = self.forwarded.load(Ordering::Acquire);
        if forwarded == 0 || read_at < forwarded {
            return;
        }
        // `forwarded` first: while `arrived` is set no exchange can open, so
        // no new exchange's forwarding time is cleared by this one's close.
        self.forwarded.store(0, Ordering::Release);
        let arrived = self.arrived.swap(0, Ordering::AcqRel);
        if arrived != 0 {
            counters.record(now.saturating_sub(arrived));
        }
    }
}
