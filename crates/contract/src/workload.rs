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

#[cfg(test)]
mod tests {
    use super::*;

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
