//! Summary statistics of a latency histogram (mean, standard deviation,
//! percentiles) and of error counts, as pure functions so that they can be
//! checked against hand-computed values.
//!
//! Histograms hold microseconds; summaries are reported in milliseconds.

use hdrhistogram::Histogram;
use serde::Serialize;

/// Significant digits kept by the run-wide histograms: values below 2,048 µs
/// are exact, larger ones within 0.1 %.
pub(crate) const RUN_SIGFIG: u8 = 3;
/// Significant digits for the per-second histograms (within 1 %), smaller
/// because there is one per second of the run.
pub(crate) const SECOND_SIGFIG: u8 = 2;

/// Empty auto-resizing histograms of microseconds, one of each precision,
/// made once per run; every other histogram is a copy of one of them
/// (`Histogram::new_from`, which cannot fail), so a bad precision is one
/// error at the start instead of a panic in the middle of a run.
#[derive(Debug)]
pub(crate) struct Precisions {
    run: Histogram<u64>,
    second: Histogram<u64>,
}

impl Precisions {
    pub(crate) fn new() -> Result<Precisions, hdrhistogram::CreationError> {
        Ok(Precisions {
            run: Histogram::new(RUN_SIGFIG)?,
            second: Histogram::new(SECOND_SIGFIG)?,
        })
    }

    /// An empty run-wide histogram.
    pub(crate) fn run(&self) -> Histogram<u64> {
        Histogram::new_from(&self.run)
    }

    /// An empty per-second histogram.
    pub(crate) fn second(&self) -> Histogram<u64> {
        Histogram::new_from(&self.second)
    }
}

/// Records one latency in microseconds; a value beyond what the histogram
/// can grow to is clamped rather than lost.
pub(crate) fn record_micros(histogram: &mut Histogram<u64>, micros: u64) {
    if histogram.record(micros).is_err() {
        histogram.saturating_record(micros);
    }
}

/// Latency figures in milliseconds (the seed tables' rows).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct LatencySummary {
    /// Number of responses that contributed a latency.
    pub count: u64,
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    /// Population standard deviation.
    pub stdev: f64,
    pub p50: f64,
    pub p90: f64,
    pub p95: f64,
    pub p99: f64,
    #[serde(rename = "p99_9")]
    pub p99_9: f64,
}

/// Summarises a histogram of microseconds. Percentiles use the nearest-rank
/// definition: pXX is the smallest recorded value with at least XX % of the
/// samples at or below it. An empty histogram gives all zeros.
pub fn summarize(histogram: &Histogram<u64>) -> LatencySummary {
    if histogram.is_empty() {
        return LatencySummary {
            count: 0,
            min: 0.0,
            max: 0.0,
            mean: 0.0,
            stdev: 0.0,
            p50: 0.0,
            p90: 0.0,
            p95: 0.0,
            p99: 0.0,
            p99_9: 0.0,
        };
    }
    let ms = |micros: u64| micros as f64 / 1000.0;
    LatencySummary {
        count: histogram.len(),
        min: ms(histogram.min()),
        max: ms(histogram.max()),
        mean: histogram.mean() / 1000.0,
        stdev: histogram.stdev() / 1000.0,
        p50: ms(histogram.value_at_quantile(0.50)),
        p90: ms(histogram.value_at_quantile(0.90)),
        p95: ms(histogram.value_at_quantile(0.95)),
        p99: ms(histogram.value_at_quantile(0.99)),
        p99_9: ms(histogram.value_at_quantile(0.999)),
    }
}

/// Errors as a percentage of all requests (0 when there were none).
pub fn error_rate_percent(errors: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        errors as f64 * 100.0 / total as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn histogram_of(micros: &[u64]) -> Histogram<u64> {
        let mut h = Precisions::new().unwrap().run();
        for &m in micros {
            record_micros(&mut h, m);
        }
        h
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// (samples in µs, mean ms, stdev ms, p50, p90, p95, p99, p99.9 ms),
    /// every figure worked out by hand.
    #[allow(clippy::type_complexity)]
    const CASES: &[(&[u64], f64, f64, [f64; 5])] = &[
        // One sample: everything equals it.
        (&[1500], 1.5, 0.0, [1.5, 1.5, 1.5, 1.5, 1.5]),
        // 2, 4, 4, 4, 5, 5, 7, 9 ms / 10: mean 5, population variance 4 -> stdev 2.
        (
            &[200, 400, 400, 400, 500, 500, 700, 900],
            0.5,
            0.2,
            [0.4, 0.9, 0.9, 0.9, 0.9],
        ),
        // 1..=100 µs: mean 50.5; variance (100^2-1)/12 = 833.25; ranks 50, 90, 95, 99, 100.
        (
            &[],
            0.0505,
            0.028_866_070_047_722_12,
            [0.050, 0.090, 0.095, 0.099, 0.100],
        ),
        // Nine fast, one slow: p90 is rank 9 (fast), p95 is rank 10 (slow);
        // mean 109 µs, variance (9 * 99^2 + 891^2) / 10 = 88209 -> stdev 297 µs.
        (
            &[10, 10, 10, 10, 10, 10, 10, 10, 10, 1000],
            0.109,
            0.297,
            [0.010, 0.010, 1.0, 1.0, 1.0],
        ),
    ];

    #[test]
    fn summaries_match_hand_computed_values() {
        for (index, (samples, mean, stdev, [p50, p90, p95, p99, p99_9])) in CASES.iter().enumerate()
        {
            let samples: Vec<u64> = if samples.is_empty() {
                (1..=100).collect()
            } else {
                samples.to_vec()
            };
            let s = summarize(&histogram_of(&samples));
            assert_eq!(s.count, samples.len() as u64, "case {index}");
            assert!(
                close(s.mean, *mean),
                "case {index}: mean {} != {mean}",
                s.mean
            );
            assert!(
                close(s.stdev, *stdev),
                "case {index}: stdev {} != {stdev}",
                s.stdev
            );
            let got = [s.p50, s.p90, s.p95, s.p99, s.p99_9];
            let want = [*p50, *p90, *p95, *p99, *p99_9];
            for (g, w) in got.iter().zip(want) {
                assert!(
                    close(*g, w),
                    "case {index}: percentiles {got:?} != {want:?}"
                );
            }
            let min = *samples.iter().min().unwrap_or(&0) as f64 / 1000.0;
            let max = *samples.iter().max().unwrap_or(&0) as f64 / 1000.0;
            assert!(close(s.min, min) && close(s.max, max), "case {index}");
        }
    }

    #[test]
    fn an_empty_histogram_summarises_to_zero() {
        let s = summarize(&Precisions::new().unwrap().run());
        assert_eq!(s.count, 0);
        assert_eq!(s.p99, 0.0);
    }

    #[test]
    fn large_values_stay_within_a_tenth_of_a_percent() {
        let s = summarize(&histogram_of(&[2_000_000, 4_000_000]));
        assert!((s.max - 4000.0).abs() / 4000.0 < 0.001, "{}", s.max);
        assert!((s.min - 2000.0).abs() / 2000.0 < 0.001, "{}", s.min);
    }

    #[test]
    fn error_rates() {
        let cases = [
            (0, 0, 0.0),
            (0, 10, 0.0),
            (1, 100, 1.0),
            (3, 4, 75.0),
            (5, 5, 100.0),
        ];
        for (errors, total, want) in cases {
            assert!(
                close(error_rate_percent(errors, total), want),
                "{errors}/{total}"
            );
        }
    }
}
