//! How each fresh JVM warms up before a Java column's window, as a
//! profile gives it ([`super::Profile::jvm_warm_up`]): the windows' length,
//! the bound, and the rule they are judged by.

use std::time::Duration;

/// How each fresh JVM warms up before a Java column's window: windows of
/// `window` of its column's route at [`super::JVM_WARM_UP_CONNECTIONS`], nothing
/// recorded but their throughput and the JIT's compile time and compiler
/// CPU in each, until `bench_analysis::warm_up`'s rule says the JIT is
/// quiet and the throughput no longer climbing, or `limit` has passed;
/// then the column is measured anyway, and the rule's note is kept with
/// the round. A JVM compiles its request path for seconds after it starts
/// (up to 18 s on this 2-core machine under load:
/// docs/results/calibration-2026-12-07/), so a fixed short warm-up
/// measured a compiling JVM, and a fixed long one wastes the time a JVM
/// that settles sooner does not need.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JvmWarmUp {
    pub window: Duration,
    pub limit: Duration,
    /// What the plan counts for it: the time a JVM took to settle here,
    /// not the bound that a rare one reaches.
    pub expected: Duration,
}

/// The seed profile's bound on a JVM's warm-up, in seconds: the rule's
/// default. On 2026-12-07 every JVM of the calibration groups settled
/// within it on this machine, the slowest (Tomcat on `/users/1` at 64
/// connections, Tomcat on virtual threads pinned on Java 21) after 22
/// windows; at the 7 s this bound was before, none did, and Tomcat's
/// `/users/1` windows measured a JVM whose compiler threads were still
/// busy (docs/results/calibration-2026-12-07/).
pub(super) const JVM_WARM_UP_LIMIT_SEED: u64 = 30;

/// What the seed profile's plan counts per JVM warm-up, in seconds: the
/// ten Java columns of the calibration groups took 9 to 22 s to settle on
/// 2026-12-07, 13.3 s on average.
pub(super) const JVM_WARM_UP_EXPECTED_SEED: u64 = 14;

impl JvmWarmUp {
    /// The rule each JVM's windows are judged by: the default's quiet JIT
    /// and stopped climb, bounded by `limit`.
    pub fn rule(self) -> bench_analysis::warm_up::WarmUpRule {
        let per_window = self.window.as_secs_f64().max(1e-3);
        bench_analysis::warm_up::WarmUpRule {
            max_windows: (self.limit.as_secs_f64() / per_window).ceil() as usize,
            max_time: self.limit,
            ..Default::default()
        }
    }
}
