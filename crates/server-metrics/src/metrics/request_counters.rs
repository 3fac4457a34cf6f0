//! [`RequestCounters`]: every answered request, by route, method and status,
//! with its duration in the buckets of `http_server_requests_seconds`
//! (crate::metrics::request_histogram), the requests in flight, and the
//! request bodies cut off at their deadline. One table serves both request
//! families: `http_requests_total` is the histogram's counts summed over
//! methods, so the two always agree and a request is counted once.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use super::request_histogram::{bucket_index, method_label, RequestSeries, BUCKET_SLOTS};
use super::{this_threads_shard, SHARDS};
use contract::routes::{ROUTES, UNMATCHED};

/// The methods with a place in the table; requests with another method
/// (only 405s and unmatched paths have one) are counted beside it.
const TABLE_METHODS: [&str; 3] = ["GET", "HEAD", "POST"];

/// The statuses with a place in the table: the contract's answers, and the
/// 499 of a request whose client left. Others are counted beside it.
const TABLE_STATUSES: [u16; 11] = [200, 400, 404, 405, 408, 413, 415, 431, 499, 500, 503];

/// Numbers per series in the table: the bucket counts, then the sum of the
/// durations in nanoseconds.
const CELLS_PER_SERIES: usize = BUCKET_SLOTS + 1;

fn table_method(method: &str) -> Option<usize> {
    TABLE_METHODS.iter().position(|m| *m == method)
}

/// The column of `status` in the table: one comparison tree, where a search
/// of [`TABLE_STATUSES`] would compare one by one.
fn table_status(status: u16) -> Option<usize> {
    Some(match status {
        200 => 0,
        400 => 1,
        404 => 2,
        405 => 3,
        408 => 4,
        413 => 5,
        415 => 6,
        431 => 7,
        499 => 8,
        500 => 9,
        503 => 10,
        _ => return None,
    })
}

/// The route labels with a row of the table, in row order.
fn counted_labels() -> impl Iterator<Item = &'static str> {
    ROUTES.iter().map(|r| r.pattern).chain([UNMATCHED])
}

/// Requests by route, method and status, with their durations' buckets and
/// sum; requests in flight; bodies that missed their deadline.
///
/// Counting an answer is two atomic additions (its bucket and its sum) in
/// the calling thread's copy of the table (one of [`SHARDS`], summed when
/// read), a few comparisons to find its place, and no lock. The table has
/// a series for each route of [`ROUTES`] (plus [`UNMATCHED`]), method of
/// [`TABLE_METHODS`] and status of [`TABLE_STATUSES`]: 462 series of 18
/// numbers, 67 KiB per copy, of which only the pages of series that occur
/// are ever touched. Anything outside it is still counted, in a map behind
/// a mutex.
pub struct RequestCounters {
    shards: Box<[CounterShard]>,
    others: Mutex<BTreeMap<SeriesKey, ([u64; BUCKET_SLOTS], u64)>>,
    body_timeouts: AtomicU64,
}

/// A series outside the table: route, method label, status.
type SeriesKey = (&'static str, &'static str, u16);

/// One thread's copy of the table, on cache lines of its own.
#[repr(align(128))]
struct CounterShard {
    /// Requests this shard's threads began minus those they finished: a
    /// request can begin on one thread and finish on another, so a shard's
    /// figure can be negative; the sum is the number in flight.
    in_flight: AtomicI64,
    cells: Box<[AtomicU64]>,
}

/// What the counters hold at one reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestTotals {
    pub in_flight: i64,
    /// Every series with at least one request, ordered by route, method, status.
    pub series: Vec<RequestSeries>,
    /// Requests answered 408 because their body missed its deadline.
    pub body_timeouts: u64,
}

impl RequestTotals {
    /// `http_requests_total`: requests by route and status, over all
    /// methods, ordered by route then status.
    pub fn by_route_and_status(&self) -> Vec<(&'static str, u16, u64)> {
        let mut counts: BTreeMap<(&'static str, u16), u64> = BTreeMap::new();
        for s in &self.series {
            *counts.entry((s.route, s.status)).or_insert(0) += s.count();
        }
        counts.into_iter().map(|((r, s), n)| (r, s, n)).collect()
    }
}

impl Default for RequestCounters {
    fn default() -> Self {
        let series = (ROUTES.len() + 1) * TABLE_METHODS.len() * TABLE_STATUSES.len();
        RequestCounters {
            shards: (0..SHARDS)
                .map(|_| CounterShard {
                    in_flight: AtomicI64::new(0),
                    cells: (0..series * CELLS_PER_SERIES)
                        .map(|_| AtomicU64::new(0))
                        .collect(),
                })
                .collect(),
            others: Mutex::default(),
            body_timeouts: AtomicU64::new(0),
        }
    }
}

impl std::fmt::Debug for RequestCounters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestCounters")
            .field("in_flight", &self.in_flight())
            .field("counts", &self.counts())
            .finish()
    }
}

impl RequestCounters {
    fn this_threads(&self) -> &CounterShard {
        &self.shards[this_threads_shard()]
    }

    /// Call when a request starts; pair with [`RequestCounters::finished`].
    pub fn started(&self) {
        self.this_threads()
            .in_flight
            .fetch_add(1, Ordering::Relaxed);
    }

    /// Call when a request's answer has been produced: `route` is its
    /// pattern (or [`UNMATCHED`]), `elapsed` the time since the end of its
    /// head (zero for a request refused before the head was complete).
    pub fn finished(&self, route: &'static str, method: &str, status: u16, elapsed: Duration) {
        let shard = self.this_threads();
        shard.in_flight.fetch_sub(1, Ordering::Relaxed);
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        let bucket = bucket_index(nanos);
        let place = counted_labels()
            .position(|label| label == route)
            .zip(table_method(method))
            .zip(table_status(status));
        match place {
            Some(((row, column), status_column)) => {
                let series =
                    (row * TABLE_METHODS.len() + column) * TABLE_STATUSES.len() + status_column;
                let first = series * CELLS_PER_SERIES;
                shard.cells[first + bucket].fetch_add(1, Ordering::Relaxed);
                shard.cells[first + BUCKET_SLOTS].fetch_add(nanos, Ordering::Relaxed);
            }
            None => {
                // Held for one map update; never across I/O or an await.
                let mut others = self
                    .others
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                let entry = others
                    .entry((route, method_label(method), status))
                    .or_insert(([0; BUCKET_SLOTS], 0));
                entry.0[bucket] += 1;
                entry.1 = entry.1.saturating_add(nanos);
            }
        }
    }

    /// Call when a request body missed its deadline (besides
    /// [`RequestCounters::finished`] with the 408 it got).
    pub fn body_timed_out(&self) {
        self.body_timeouts.fetch_add(1, Ordering::Relaxed);
    }

    pub fn in_flight(&self) -> i64 {
        self.shards
            .iter()
            .map(|shard| shard.in_flight.load(Ordering::Relaxed))
            .sum()
    }

    /// Everything counted so far, summed over the threads' copies.
    pub fn read(&self) -> RequestTotals {
        let in_flight = self.in_flight();
        let mut series: Vec<RequestSeries> = self
            .others
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .iter()
            .map(
                |(&(route, method, status), &(buckets, sum_nanos))| RequestSeries {
                    route,
                    method,
                    status,
                    buckets,
                    sum_nanos,
                },
            )
            .collect();
        let mut index = 0;
        for route in counted_labels() {
            for method in TABLE_METHODS {
                for status in TABLE_STATUSES {
                    let first = index * CELLS_PER_SERIES;
                    index += 1;
                    let cell = |offset: usize| -> u64 {
                        self.shards
                            .iter()
                            .map(|shard| shard.cells[first + offset].load(Ordering::Relaxed))
                            .fold(0, u64::wrapping_add)
                    };
                    let buckets: [u64; BUCKET_SLOTS] = std::array::from_fn(cell);
                    if buckets.iter().any(|&n| n > 0) {
                        series.push(RequestSeries {
                            route,
                            method,
                            status,
                            buckets,
                            sum_nanos: cell(BUCKET_SLOTS),
                        });
                    }
                }
            }
        }
        series.sort_unstable_by_key(|s| (s.route, s.method, s.status));
        RequestTotals {
            in_flight,
            series,
            body_timeouts: self.body_timeouts.load(Ordering::Relaxed),
        }
    }

    /// The non-zero counts by route and status, ordered by route then status.
    pub fn counts(&self) -> Vec<(&'static str, u16, u64)> {
        self.read().by_route_and_status()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn the_status_columns_are_the_table_statuses() {
        for (column, status) in TABLE_STATUSES.into_iter().enumerate() {
            assert_eq!(table_status(status), Some(column), "{status}");
        }
        assert_eq!(table_status(201), None);
    }

    #[test]
    fn counters_track_in_flight_and_totals() {
        let c = RequestCounters::default();
        c.started();
        c.started();
        assert_eq!(c.in_flight(), 2);
        c.finished("/health", "GET", 200, MS);
        c.finished("/health", "HEAD", 200, MS);
        c.started();
        c.finished("/posts/{id}", "GET", 500, MS);
        assert_eq!(c.in_flight(), 0);
        assert_eq!(
            c.counts(),
            vec![("/health", 200, 2), ("/posts/{id}", 500, 1)]
        );
    }

    /// Threads count into their own shards and the figures are the sums: a
    /// request begun on one thread and finished on another leaves nothing
    /// in flight, and each thread's counts and durations add up.
    #[test]
    fn counts_from_several_threads_add_up() {
        let c = RequestCounters::default();
        std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    c.started();
                    c.started();
                    c.finished("/health", "GET", 200, MS);
                })
                .join()
                .unwrap();
            scope
                .spawn(|| {
                    c.finished("/health", "GET", 200, 2 * MS);
                    c.finished("/users/{id}", "GET", 404, MS);
                })
                .join()
                .unwrap();
        });
        c.started();
        assert_eq!(c.in_flight(), 0);
        let totals = c.read();
        assert_eq!(
            totals.by_route_and_status(),
            vec![("/health", 200, 2), ("/users/{id}", 404, 1)]
        );
        assert_eq!(totals.series[0].sum_nanos, 3_000_000);
        assert_eq!(totals.series[0].count(), 2);
    }

    /// Every label, method and status is counted, in the table or beside
    /// it, and they come back merged in one order.
    #[test]
    fn counts_outside_the_table_are_kept_and_merged_in_order() {
        let c = RequestCounters::default();
        for (route, method, status) in [
            ("unmatched", "GET", 404),
            ("/users/{id}", "GET", 599),
            ("/users/{id}", "GET", 100),
            ("not-a-route", "GET", 200),
            ("/health", "GET", 999),
            ("/health", "GET", 200),
            ("/health", "PUT", 405),
            ("/health", "BREW", 405),
            ("unmatched", "GET", 404),
        ] {
            c.started();
            c.finished(route, method, status, MS);
        }
        assert_eq!(
            c.counts(),
            vec![
                ("/health", 200, 1),
                ("/health", 405, 2),
                ("/health", 999, 1),
                ("/users/{id}", 100, 1),
                ("/users/{id}", 599, 1),
                ("not-a-route", 200, 1),
                ("unmatched", 404, 2),
            ]
        );
        let methods: Vec<_> = c
            .read()
            .series
            .iter()
            .filter(|s| s.status == 405)
            .map(|s| s.method)
            .collect();
        assert_eq!(methods, ["PUT", "other"]);
    }

    #[test]
    fn body_timeouts_are_counted_apart() {
        let c = RequestCounters::default();
        c.body_timed_out();
        assert_eq!(c.read().body_timeouts, 1);
    }
}
