//! The one worker loop every load model uses: take the next ticket (the
//! instant a request is due) from the model's pacing, send the request on
//! this worker's connection (opening one when it has none), record how it
//! ended, the bytes it moved and how long its connect took. The models
//! differ only in where tickets come from and when they run out.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, watch};

use crate::aggregate::Aggregator;
use crate::http1::{Connection, ReadError};
use crate::plan::BurstConnect;
use crate::record::{FailureKind, Outcome, RequestRecord};
use crate::request_bytes::RequestTemplate;
use crate::ticket_queue::TicketQueue;

/// What all workers of a run share.
pub(crate) struct Shared {
    pub(crate) addr: SocketAddr,
    pub(crate) template: RequestTemplate,
    pub(crate) keep_alive: bool,
    pub(crate) timeout: Duration,
    pub(crate) aggregator: Aggregator,
    /// Set when a duration-bound run is over; workers stop taking tickets.
    pub(crate) stop: AtomicBool,
    /// When the plan abandons requests in flight at its deadline: per
    /// worker, when its request in flight started (nanoseconds after
    /// `clock_base`, plus one; 0 when none is), so the runner can count the
    /// unfinished ones and their ages. Other runs pay nothing for it.
    pub(crate) in_flight_since: Option<Vec<AtomicU64>>,
    pub(crate) clock_base: Instant,
    /// Runtimes that workers are spread over, round-robin by worker index.
    pub(crate) runtimes: Vec<tokio::runtime::Handle>,
}

impl Shared {
    /// Starts worker `index` on its runtime.
    pub(crate) fn spawn_worker(
        self: &Arc<Self>,
        index: usize,
        pacing: Pacing,
    ) -> tokio::task::JoinHandle<()> {
        let runtime = &self.runtimes[index % self.runtimes.len()];
        runtime.spawn(run_worker(Arc::clone(self), index, pacing))
    }
}

/// Where a worker's tickets come from.
pub(crate) enum Pacing {
    /// Next request as soon as the last one answered, until `stop` is set or
    /// `budget` (requests handed out so far, limit) is used up.
    Closed {
        budget: Option<(Arc<AtomicU64>, u64)>,
    },
    /// Connect (or not: `connect`), report ready with how long the connect
    /// took if it opened, wait for the release instant, send once.
    Burst {
        ready: mpsc::Sender<Option<Duration>>,
        release: watch::Receiver<Option<Instant>>,
        connect: BurstConnect,
    },
    /// Active while `index` is below the controller's active count; parked
    /// (connection closed) otherwise.
    Staged {
        index: usize,
        active: watch::Receiver<usize>,
    },
    /// Tickets carry their intended send time; `counted_as_spare` is true
    /// until the first ticket when the clock counted this worker as idle.
    Open {
        tickets: Arc<TicketQueue>,
        counted_as_spare: bool,
    },
}

/// First pause after a failed connect in a closed or staged loop.
const CONNECT_BACKOFF_FIRST: Duration = Duration::from_millis(5);
/// Longest pause between connect attempts of one worker.
const CONNECT_BACKOFF_MAX: Duration = Duration::from_millis(200);

/// A worker's pause between failed connects: 5 ms, doubling to 200 ms,
/// back to nothing once a connection opens. Without it a closed loop against
/// a port where nothing listens retries as fast as the kernel refuses
/// (about 90,000 times a second here) and reports that as throughput.
#[derive(Debug, Default)]
struct ConnectBackoff {
    /// The pause after the next failure; zero when the last attempt connected.
    next: Duration,
}

impl ConnectBackoff {
    /// The pause to take after a request that ended with `outcome`, if any.
    fn after(&mut self, outcome: Outcome) -> Option<Duration> {
        if outcome != Outcome::Failed(FailureKind::Connect) {
            self.next = Duration::ZERO;
            return None;
        }
        let pause = self.next.max(CONNECT_BACKOFF_FIRST);
        self.next = (pause * 2).min(CONNECT_BACKOFF_MAX);
        Some(pause)
    }
}

/// Runs one worker until its pacing runs out of tickets.
pub(crate) async fn run_worker(shared: Arc<Shared>, worker: usize, mut pacing: Pacing) {
    let mut connection: Option<Connection> = None;
    let mut burst_done = false;
    // Only the loops that send again as soon as a request ends back off: a
    // burst sends once per worker, and open mode is paced by its arrival
    // clock, whose schedule a pause would only turn into late sends.
    let mut backoff = matches!(pacing, Pacing::Closed { .. } | Pacing::Staged { .. })
        .then(ConnectBackoff::default);
    if let Pacing::Burst { ready, connect, .. } = &pacing {
        let connected_in = match connect {
            // Open the connection before the release so that the burst
            // measures requests, not the TCP handshake. A failed connect is
            // retried (and counted) when the request is due.
            BurstConnect::First => {
                let began = Instant::now();
                let opened =
                    tokio::time::timeout(shared.timeout, Connection::connect(shared.addr)).await;
                connection = opened.ok().and_then(Result::ok);
                connection.is_some().then(|| began.elapsed())
            }
            // The request opens it after the release, as a JMeter thread
            // does: `exchange` connects a worker that has no connection.
            BurstConnect::InRequest => None,
        };
        let _ = ready.send(connected_in).await;
    }
    loop {
        let intended =
            match next_ticket(&shared, &mut pacing, &mut connection, &mut burst_done).await {
                Some(instant) => instant,
                None => break,
            };
        let started = Instant::now();
        let slot = shared.in_flight_since.as_ref().map(|s| &s[worker]);
        if let Some(slot) = slot {
            let since = started.saturating_duration_since(shared.clock_base);
            slot.store(
                u64::try_from(since.as_nanos()).unwrap_or(u64::MAX - 1) + 1,
                Ordering::Relaxed,
            );
        }
        let mut transferred = Transferred::default();
        let mut connect = None;
        let outcome = if started.saturating_duration_since(intended) >= shared.timeout {
            // An open-mode ticket that waited in the client longer than the
            // timeout has already failed by the user's own definition.
            // Sending it anyway would let a stalled server stretch the end
            // of the run by one timeout per queued ticket.
            Outcome::Failed(FailureKind::Timeout)
        } else {
            exchange(&shared, &mut connection, &mut transferred, &mut connect).await
        };
        if let Some(conn) = connection.as_mut() {
            transferred.add(conn);
        }
        let finished = Instant::now();
        shared.aggregator.record(
            worker,
            &RequestRecord {
                intended: intended.min(started),
                started,
                finished,
                outcome,
                sent_bytes: transferred.sent,
                received_bytes: transferred.received,
                connect,
            },
        );
        // No await between recording and this: a worker aborted at the
        // deadline is either counted here or still in flight, never both.
        if let Some(slot) = slot {
            slot.store(0, Ordering::Relaxed);
        }
        if let Some(pause) = backoff.as_mut().and_then(|b| b.after(outcome)) {
            tokio::time::sleep(pause).await;
        }
    }
}

/// The instant the next request is due, or `None` when this worker is done.
async fn next_ticket(
    shared: &Shared,
    pacing: &mut Pacing,
    connection: &mut Option<Connection>,
    burst_done: &mut bool,
) -> Option<Instant> {
    match pacing {
        Pacing::Closed { budget } => {
            if shared.stop.load(Ordering::Relaxed) {
                return None;
            }
            if let Some((issued, limit)) = budget {
                if issued.fetch_add(1, Ordering::Relaxed) >= *limit {
                    return None;
                }
            }
            Some(Instant::now())
        }
        Pacing::Burst { release, .. } => {
            if *burst_done {
                return None;
            }
            *burst_done = true;
            let at = release.wait_for(Option::is_some).await.ok()?;
            *at
        }
        Pacing::Staged { index, active } => loop {
            if shared.stop.load(Ordering::Relaxed) {
                return None;
            }
            if *index < *active.borrow() {
                return Some(Instant::now());
            }
            // Ramped down: a parked worker holds no connection, so the
            // server sees the connection count fall as k6 users leave.
            *connection = None;
            active.changed().await.ok()?;
        },
        Pacing::Open {
            tickets,
            counted_as_spare,
        } => tickets.next(counted_as_spare).await,
    }
}

/// Bytes one request moved, gathered from each connection it used before
/// that connection is dropped.
#[derive(Debug, Default)]
struct Transferred {
    sent: u64,
    received: u64,
}

impl Transferred {
    fn add(&mut self, connection: &mut Connection) {
        let (sent, received) = connection.take_transferred();
        self.sent += sent;
        self.received += received;
    }

    /// Drops the connection, keeping its count.
    fn close(&mut self, connection: &mut Option<Connection>) {
        if let Some(mut conn) = connection.take() {
            self.add(&mut conn);
        }
    }
}

/// Sends one request and reads its response, within the timeout, opening a
/// connection first when there is none (`connect` gets how long that took).
/// A request that finds its kept-alive connection closed by the server
/// before any response byte is retried once on a new connection: that is
/// the server reaping an idle connection, not a failed request. The bytes
/// it moved are added to `transferred`, except those of a connection still
/// open at the end, which the caller takes.
async fn exchange(
    shared: &Shared,
    connection: &mut Option<Connection>,
    transferred: &mut Transferred,
    connect: &mut Option<Duration>,
) -> Outcome {
    let built;
    let request: &[u8] = match shared.template.fixed_bytes() {
        Some(bytes) => bytes,
        None => {
            built = shared.template.next_request();
            &built
        }
    };
    let attempt = async {
        let mut retried = false;
        loop {
            if connection.is_none() {
                let began = Instant::now();
                match Connection::connect(shared.addr).await {
                    Ok(c) => {
                        *connection = Some(c);
                        connect.get_or_insert(began.elapsed());
                    }
                    Err(_) => return Outcome::Failed(FailureKind::Connect),
                }
            }
            let Some(conn) = connection.as_mut() else {
                return Outcome::Failed(FailureKind::Connect);
            };
            let reused = conn.completed > 0;
            let result = match conn.send(request).await {
                Ok(()) => conn.read_response(shared.template.expects_no_body).await,
                Err(e) => Err(ReadError::Io(e)),
            };
            match result {
                Ok(info) => {
                    if !info.reusable || !shared.keep_alive {
                        transferred.close(connection);
                    }
                    return Outcome::Status(info.status);
                }
                Err(error) => {
                    transferred.close(connection);
                    let stale = matches!(error, ReadError::ClosedBeforeResponse)
                        || matches!(&error, ReadError::Io(e) if matches!(
                            e.kind(),
                            std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
                        ));
                    if reused && stale && !retried {
                        retried = true;
                        continue;
                    }
                    return Outcome::Failed(FailureKind::Other);
                }
            }
        }
    };
    let result = tokio::time::timeout(shared.timeout, attempt).await;
    match result {
        Ok(outcome) => outcome,
        Err(_) => {
            // Whatever is still on the wire belongs to the abandoned request.
            transferred.close(connection);
            Outcome::Failed(FailureKind::Timeout)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_backoff_doubles_to_its_cap_and_resets_on_a_connection() {
        let refused = Outcome::Failed(FailureKind::Connect);
        let mut backoff = ConnectBackoff::default();
        let pauses: Vec<u64> = (0..8)
            .filter_map(|_| backoff.after(refused))
            .map(|d| d.as_millis() as u64)
            .collect();
        assert_eq!(pauses, [5, 10, 20, 40, 80, 160, 200, 200]);
        assert_eq!(backoff.after(Outcome::Status(503)), None);
        assert_eq!(backoff.after(refused), Some(CONNECT_BACKOFF_FIRST));
        assert_eq!(backoff.after(Outcome::Failed(FailureKind::Timeout)), None);
        assert_eq!(backoff.after(refused), Some(CONNECT_BACKOFF_FIRST));
    }
}
