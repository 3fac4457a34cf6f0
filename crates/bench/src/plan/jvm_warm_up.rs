//! How each fresh JVM warms up before a Java column's window, as a
//! profile gives it ([`super::Profile::jvm_warm_up`]): the windows' length,
//! the bound, and the rule they are judged by.

use std::time::Duration;

/// How each fresh JVM warms up before a Java column's window: windows of
/// `window` of its column's route at [`super::JVM_WARM_UP_CONNECTIONS`], nothing
/// recorded but their throughput and the JIT's compile time in each, until
/// `bench_analysis::warm_up`'s rule says the throughput settled with the
/// JIT quiet, or `limit` has passed; then the column is measured anyway,
/// and the rule's note is kept with the round. A JVM compiles its request
/// path for seconds after it starts (some 10 s on this 2-core machine
/// under load: docs/results/java-runtimes-2026-12-06/), so a fixed short
/// warm-up measured a compiling JVM, and a fixed long one wastes the time
/// a quiet machine does not need.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JvmWarmUp {
    pub window: Duration,
    pub limit: Duration,
}

/// The seed profile's bound on a JVM's warm-up, in seconds. The JIT
/// needed about 10 s here with other builds beside it, less on a quiet
/// machine; the seed profile has 30 Java column rounds, so every second of
/// bound is half a minute of the run's budget, and 7 s is what the budget
/// leaves (a run with 8 s: docs/results/loom-2026-12-06/, where on a busy
/// machine no JVM settled within it). Past it the window is measured
/// anyway, its JIT compile time beside it and the rule's note with the
/// round.
pub(super) const JVM_WARM_UP_LIMIT_SEED: u64 = 7;

impl JvmWarmUp {
    /// The rule each JVM's windows are judged by: the default's agreement
    /// and JIT share, bounded by `limit`.
    pub fn rule(self) -> bench_analysis::warm_up::WarmUpRule {
        let per_window = self.window.as_secs_f64().max(1e-3);
        bench_analysis::warm_up::WarmUpRule {
            max_windows: (self.limit.as_secs_f64() / per_window).ceil() as usize,
            max_time: self.limit,
            ..Default::default()
        }
    }
}
