//! Aggregation of request records into fixed-size state: run-wide HDR
//! histograms, error counts, and a per-second timeline whose finished
//! seconds are folded into four numbers each. Memory does not grow with the
//! number of requests, so a ten-minute run costs what a ten-second one does
//! (plus one small row per second).
//!
//! Workers write into shards (a std `Mutex` each, never held across an
//! `.await`) chosen by worker index, so the runtime's threads rarely contend;
//! a collector drains finished seconds from the shards in the background.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use crate::latency_stats::{record_micros, Precisions};
use crate::record::{FailureKind, Outcome, RequestRecord};
use crate::report::TimelineRow;

/// A send counts as late when it starts this long after its intended time.
pub const LATE_SEND_THRESHOLD: Duration = Duration::from_millis(1);

/// Counters shared by shards and the final totals.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) total: u64,
    pub(crate) errors: u64,
    pub(crate) connect: u64,
    pub(crate) timeout: u64,
    pub(crate) other: u64,
    pub(crate) late_sends: u64,
    /// Bytes written and read on the connections (wrk's Transfer/sec).
    pub(crate) sent_bytes: u64,
    pub(crate) received_bytes: u64,
    /// Responses by status code (errors and successes).
    pub(crate) statuses: BTreeMap<u16, u64>,
}

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.total += other.total;
        self.errors += other.errors;
        self.connect += other.connect;
        self.timeout += other.timeout;
        self.other += other.other;
        self.late_sends += other.late_sends;
        self.sent_bytes += other.sent_bytes;
        self.received_bytes += other.received_bytes;
        for (status, count) in &other.statuses {
            *self.statuses.entry(*status).or_default() += count;
        }
    }
}

/// One second of the timeline while it may still receive records.
struct SecondBucket {
    second: u64,
    requests: u64,
    errors: u64,
    latency: Histogram<u64>,
}

struct Shard {
    /// Latency from the intended send time (what the report calls latency).
    latency: Histogram<u64>,
    /// Latency from the actual start; kept only in open mode, where it differs.
    uncorrected: Option<Histogram<u64>>,
    counts: Counts,
    /// Runs cut at their deadline only: answered requests at their latency
    /// and timed-out ones at the time they were given up.
    bounded: Option<Histogram<u64>>,
    /// A burst whose requests open their own connections only: how long
    /// each connect took (inside its request's latency).
    connect: Option<Histogram<u64>>,
    /// Usually one or two entries: the current second and maybe the last.
    seconds: Vec<SecondBucket>,
}

/// The aggregation state of one run.
pub(crate) struct Aggregator {
    shards: Vec<Mutex<Shard>>,
    precisions: Precisions,
    origin: Instant,
}

/// Final, merged aggregation.
pub(crate) struct Totals {
    pub(crate) latency: Histogram<u64>,
    pub(crate) uncorrected: Option<Histogram<u64>>,
    pub(crate) counts: Counts,
    /// See `Shard::bounded`; the runner adds the unfinished requests' ages.
    pub(crate) bounded: Option<Histogram<u64>>,
    /// See `Shard::connect`.
    pub(crate) connect: Option<Histogram<u64>>,
}

/// Which histograms beside the latency a run keeps.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Kept {
    /// Latency from the actual start (open mode, where it differs).
    pub(crate) uncorrected: bool,
    /// A run cut at its deadline ([`Totals::bounded`]).
    pub(crate) bounded: bool,
    /// Each request's own connect ([`Totals::connect`]).
    pub(crate) connect: bool,
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

impl Aggregator {
    /// `origin` is second zero of the timeline; `kept` says which
    /// histograms beside the latency the run keeps.
    pub(crate) fn new(
        shard_count: usize,
        kept: Kept,
        origin: Instant,
    ) -> Result<Aggregator, hdrhistogram::CreationError> {
        let precisions = Precisions::new()?;
        let shards = (0..shard_count.max(1))
            .map(|_| {
                Mutex::new(Shard {
                    latency: precisions.run(),
                    uncorrected: kept.uncorrected.then(|| precisions.run()),
                    counts: Counts::default(),
                    bounded: kept.bounded.then(|| precisions.run()),
                    connect: kept.connect.then(|| precisions.run()),
                    seconds: Vec::new(),
                })
            })
            .collect();
        Ok(Aggregator {
            shards,
            origin,
            precisions,
        })
    }

    /// Adds one request. `worker` picks the shard. A request that ended
    /// before `origin` (in a plan's unrecorded lead) is not counted.
    pub(crate) fn record(&self, worker: usize, record: &RequestRecord) {
        if record.finished < self.origin {
            return;
        }
        let corrected = micros(record.finished.saturating_duration_since(record.intended));
        let uncorrected = micros(record.finished.saturating_duration_since(record.started));
        let late = record.started.saturating_duration_since(record.intended) > LATE_SEND_THRESHOLD;
        let second = record
            .finished
            .saturating_duration_since(self.origin)
            .as_secs();
        let is_error = record.outcome.is_error();

        let shard = &self.shards[worker % self.shards.len()];
        // A poisoned lock only means another worker panicked mid-record;
        // the counters are still usable.
        let mut shard = shard.lock().unwrap_or_else(|e| e.into_inner());
        let shard = &mut *shard;
        shard.counts.total += 1;
        shard.counts.sent_bytes += record.sent_bytes;
        shard.counts.received_bytes += record.received_bytes;
        if late {
            shard.counts.late_sends += 1;
        }
        if is_error {
            shard.counts.errors += 1;
        }
        if let (Some(h), Some(took)) = (shard.connect.as_mut(), record.connect) {
            record_micros(h, micros(took));
        }
        match record.outcome {
            Outcome::Status(code) => {
                *shard.counts.statuses.entry(code).or_default() += 1;
                record_micros(&mut shard.latency, corrected);
                if let Some(h) = shard.bounded.as_mut() {
                    record_micros(h, corrected);
                }
                if let Some(h) = shard.uncorrected.as_mut() {
                    record_micros(h, uncorrected);
                }
            }
            Outcome::Failed(FailureKind::Connect) => shard.counts.connect += 1,
            Outcome::Failed(FailureKind::Timeout) => {
                shard.counts.timeout += 1;
                if let Some(h) = shard.bounded.as_mut() {
                    record_micros(h, corrected);
                }
            }
            Outcome::Failed(FailureKind::Other) => shard.counts.other += 1,
        }
        let bucket = match shard.seconds.iter_mut().position(|b| b.second == second) {
            Some(index) => &mut shard.seconds[index],
            None => {
                shard.seconds.push(SecondBucket {
                    second,
                    requests: 0,
                    errors: 0,
                    latency: self.precisions.second(),
                });
                let last = shard.seconds.len() - 1;
                &mut shard.seconds[last]
            }
        };
        bucket.requests += 1;
        if is_error {
            bucket.errors += 1;
        }
        if matches!(record.outcome, Outcome::Status(_)) {
            record_micros(&mut bucket.latency, corrected);
        }
    }

    /// An empty histogram of microseconds at the run-wide precision, for a
    /// figure the drive measures outside any request (a burst's connects
    /// before its release).
    pub(crate) fn empty_histogram(&self) -> Histogram<u64> {
        self.precisions.run()
    }

    /// Requests and errors so far (for a progress display).
    pub(crate) fn running_counts(&self) -> (u64, u64) {
        self.shards.iter().fold((0, 0), |(total, errors), shard| {
            let shard = shard.lock().unwrap_or_else(|e| e.into_inner());
            (total + shard.counts.total, errors + shard.counts.errors)
        })
    }

    /// Moves every second before `before_second` from the shards into `timeline`.
    pub(crate) fn drain_seconds(&self, before_second: u64, timeline: &mut TimelineBuilder) {
        for shard in &self.shards {
            let drained: Vec<SecondBucket> = {
                let mut shard = shard.lock().unwrap_or_else(|e| e.into_inner());
                let (old, keep): (Vec<_>, Vec<_>) = shard
                    .seconds
                    .drain(..)
                    .partition(|b| b.second < before_second);
                shard.seconds = keep;
                old
            };
            for bucket in drained {
                timeline.add(bucket);
            }
        }
    }

    /// The second of the timeline that `now` falls in.
    pub(crate) fn second_of(&self, now: Instant) -> u64 {
        now.saturating_duration_since(self.origin).as_secs()
    }

    /// Merges all shards.
    pub(crate) fn totals(&self) -> Totals {
        let mut totals = Totals {
            latency: self.precisions.run(),
            uncorrected: None,
            counts: Counts::default(),
            bounded: None,
            connect: None,
        };
        for shard in &self.shards {
            let shard = shard.lock().unwrap_or_else(|e| e.into_inner());
            // Both histograms auto-resize, so adding cannot run out of range.
            let _ = totals.latency.add(&shard.latency);
            if let Some(h) = &shard.uncorrected {
                let merged = totals
                    .uncorrected
                    .get_or_insert_with(|| self.precisions.run());
                let _ = merged.add(h);
            }
            if let Some(h) = &shard.bounded {
                let merged = totals.bounded.get_or_insert_with(|| self.precisions.run());
                let _ = merged.add(h);
            }
            if let Some(h) = &shard.connect {
                let merged = totals.connect.get_or_insert_with(|| self.precisions.run());
                let _ = merged.add(h);
            }
            totals.counts.add(&shard.counts);
        }
        totals
    }
}

/// Folds drained seconds into timeline rows. A second stays pending until
/// the collector says it is over, then becomes four numbers.
#[derive(Default)]
pub(crate) struct TimelineBuilder {
    pending: BTreeMap<u64, (u64, u64, Histogram<u64>)>,
    rows: BTreeMap<u64, TimelineRow>,
}

impl TimelineBuilder {
    fn add(&mut self, bucket: SecondBucket) {
        if let Some(row) = self.rows.get_mut(&bucket.second) {
            // A straggler for a second already folded: count it, its latency
            // can no longer move that second's percentiles.
            row.requests += bucket.requests;
            row.errors += bucket.errors;
            return;
        }
        let entry = self
            .pending
            .entry(bucket.second)
            .or_insert_with(|| (0, 0, Histogram::new_from(&bucket.latency)));
        entry.0 += bucket.requests;
        entry.1 += bucket.errors;
        let _ = entry.2.add(&bucket.latency);
    }

    /// Turns every pending second before `before_second` into a row.
    pub(crate) fn fold_before(&mut self, before_second: u64) {
        let keep = self.pending.split_off(&before_second);
        let done = std::mem::replace(&mut self.pending, keep);
        for (second, (requests, errors, latency)) in done {
            let ms = |q: f64| {
                if latency.is_empty() {
                    0.0
                } else {
                    latency.value_at_quantile(q) as f64 / 1000.0
                }
            };
            self.rows.insert(
                second,
                TimelineRow {
                    second,
                    requests,
                    errors,
                    p50_ms: ms(0.5),
                    p99_ms: ms(0.99),
                },
            );
        }
    }

    /// All rows from second 0 to the last one with data; empty seconds in
    /// between appear with zeros so that the timeline has no gaps.
    pub(crate) fn finish(mut self) -> Vec<TimelineRow> {
        self.fold_before(u64::MAX);
        let last = match self.rows.keys().next_back() {
            Some(&last) => last,
            None => return Vec::new(),
        };
        (0..=last)
            .map(|second| {
                self.rows.remove(&second).unwrap_or(TimelineRow {
                    second,
                    requests: 0,
                    errors: 0,
                    p50_ms: 0.0,
                    p99_ms: 0.0,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record_at(origin: Instant, start_ms: u64, took_ms: u64, outcome: Outcome) -> RequestRecord {
        let started = origin + Duration::from_millis(start_ms);
        RequestRecord {
            intended: started,
            started,
            finished: started + Duration::from_millis(took_ms),
            outcome,
            sent_bytes: 40,
            received_bytes: 100,
            connect: None,
        }
    }

    #[test]
    fn counts_errors_by_kind_and_builds_a_timeline() {
        let origin = Instant::now();
        let aggregator = Aggregator::new(2, Kept::default(), origin).unwrap();
        let records = [
            record_at(origin, 0, 10, Outcome::Status(200)),
            record_at(origin, 100, 20, Outcome::Status(200)),
            record_at(origin, 1100, 30, Outcome::Status(503)),
            record_at(origin, 1200, 40, Outcome::Failed(FailureKind::Timeout)),
            record_at(origin, 3100, 5, Outcome::Failed(FailureKind::Connect)),
            record_at(origin, 3200, 5, Outcome::Failed(FailureKind::Other)),
        ];
        for (i, r) in records.iter().enumerate() {
            aggregator.record(i, r);
        }
        let totals = aggregator.totals();
        assert_eq!(totals.counts.total, 6);
        assert_eq!(totals.counts.errors, 4);
        assert_eq!(
            (
                totals.counts.connect,
                totals.counts.timeout,
                totals.counts.other
            ),
            (1, 1, 1)
        );
        assert_eq!(totals.counts.statuses.get(&200), Some(&2));
        assert_eq!(totals.counts.statuses.get(&503), Some(&1));
        assert_eq!(totals.latency.len(), 3, "only responses carry a latency");
        assert_eq!(
            (totals.counts.sent_bytes, totals.counts.received_bytes),
            (6 * 40, 6 * 100)
        );

        let mut timeline = TimelineBuilder::default();
        aggregator.drain_seconds(u64::MAX, &mut timeline);
        let rows = timeline.finish();
        let summary: Vec<(u64, u64, u64)> = rows
            .iter()
            .map(|r| (r.second, r.requests, r.errors))
            .collect();
        assert_eq!(summary, vec![(0, 2, 0), (1, 2, 2), (2, 0, 0), (3, 2, 2)]);
        // Per-second histograms keep two significant digits: within 1 %.
        assert!((rows[0].p50_ms - 10.0).abs() < 0.1, "{}", rows[0].p50_ms);
        assert!((rows[0].p99_ms - 20.0).abs() < 0.2, "{}", rows[0].p99_ms);
    }

    #[test]
    fn late_sends_and_corrected_latency_come_from_the_intended_time() {
        let origin = Instant::now();
        let kept = Kept {
            uncorrected: true,
            ..Kept::default()
        };
        let aggregator = Aggregator::new(1, kept, origin).unwrap();
        let record = RequestRecord {
            intended: origin,
            started: origin + Duration::from_millis(300),
            finished: origin + Duration::from_millis(310),
            outcome: Outcome::Status(200),
            sent_bytes: 0,
            received_bytes: 0,
            connect: None,
        };
        aggregator.record(0, &record);
        let totals = aggregator.totals();
        assert_eq!(totals.counts.late_sends, 1);
        // Run-wide histograms keep three significant digits: within 0.1 %.
        let within = |got: u64, want: u64| (got as f64 - want as f64).abs() <= want as f64 * 0.001;
        assert!(
            within(totals.latency.max(), 310_000),
            "{}",
            totals.latency.max()
        );
        let uncorrected = totals.uncorrected.map(|h| h.max()).unwrap_or(0);
        assert!(within(uncorrected, 10_000), "{uncorrected}");
    }
}
