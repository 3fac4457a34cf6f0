//! The CPU-bound workload of seed 000: a sum of square roots.
//!
//! Seed 000 ran 10,000,000 `sqrt()` calls per request. We return the sum so the
//! compiler cannot drop the loop, and the caller passes `n` so tests and the
//! quick benchmark profile can scale it down.

/// `n` when the request does not say: seed 000's ten million.
pub const DEFAULT_CPU_N: u64 = 10_000_000;
/// The largest `?n=` accepted; a bound so one request cannot hold a thread for minutes.
pub const MAX_CPU_N: u64 = 100_000_000;

/// Sum of `sqrt(i)` for `i` in `0..n`. Pure CPU: no allocation, no I/O, no yield point.
/// Whatever thread runs this is busy until it returns.
pub fn sqrt_sum(n: u64) -> f64 {
    let mut sum = 0.0_f64;
    for i in 0..n {
        sum += (i as f64).sqrt();
    }
    sum
}

/// The `n` (within `1..=MAX_CPU_N`) whose [`sqrt_sum`] takes about `target`
/// on this machine in this build, and how long that `n` is expected to take.
/// Timed on `probe` items, the fastest of three tries, so a busy machine does
/// not make the work too small. For tests that need a known amount of CPU.
pub fn n_taking(target: std::time::Duration, probe: u64) -> (u64, std::time::Duration) {
    let fastest = (0..3)
        .map(|_| {
            let started = std::time::Instant::now();
            std::hint::black_box(sqrt_sum(std::hint::black_box(probe)));
            started.elapsed()
        })
        .min()
        .unwrap_or_default();
    let per_item = fastest.as_secs_f64() / probe.max(1) as f64;
    let n = ((target.as_secs_f64() / per_item) as u64).clamp(1, MAX_CPU_N);
    (n, std::time::Duration::from_secs_f64(per_item * n as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn n_taking_scales_the_probe_to_the_target() {
        let target = std::time::Duration::from_millis(20);
        let (n, expected) = n_taking(target, 200_000);
        assert!((1..MAX_CPU_N).contains(&n), "{n}");
        assert!(
            (expected.as_secs_f64() - 0.02).abs() < 0.001,
            "{expected:?}"
        );
    }

    #[test]
    fn small_sums_match_hand_computed_values() {
        assert_eq!(sqrt_sum(0), 0.0);
        assert_eq!(sqrt_sum(1), 0.0);
        assert_eq!(sqrt_sum(2), 1.0);
        // 0 + 1 + sqrt 2 + sqrt 3 + 2
        let expected = 1.0 + 2f64.sqrt() + 3f64.sqrt() + 2.0;
        assert!((sqrt_sum(5) - expected).abs() < 1e-12);
    }

    #[test]
    fn the_sum_grows_like_two_thirds_n_to_the_three_halves() {
        let n = 1_000_000u64;
        let approx = 2.0 / 3.0 * (n as f64).powf(1.5);
        let rel = (sqrt_sum(n) - approx).abs() / approx;
        assert!(rel < 1e-3, "relative error {rel}");
    }
}
