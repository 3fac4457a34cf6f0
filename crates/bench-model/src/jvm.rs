//! What a Java server's JVM said about one measured window, read from its
//! own `/metrics` around the window: which runtime it is, the JIT's and
//! the collectors' time in the window, the virtual threads that pinned
//! their carrier (per route), and how its warm-up went before the window.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A Java server's JVM over one measured window (a calibration column's
/// [`crate::RoundResult::jvm`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct JvmWindow {
    /// The runtime as the JVM itself says it (`jvm_info`'s `version`,
    /// e.g. "21.0.8+9-LTS"); empty when it did not say.
    pub version: String,
    /// Time the JIT's compilers spent compiling in the window, in seconds
    /// (`jvm_compilation_time_seconds_total`'s rise); `None` where the JVM
    /// does not tell. Their elapsed time, not their CPU: on a busy machine
    /// it can exceed the window.
    pub compile_seconds: Option<f64>,
    /// The CPU the JIT's compiler threads used in the window, in seconds
    /// (`jvm_compiler_cpu_seconds_total`'s rise, from Linux's /proc);
    /// `None` where the JVM does not tell, and in runs saved before it was
    /// read. Far above zero, the window measured a JVM still compiling its
    /// request path, and its server CPU holds the compiling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compiler_cpu_seconds: Option<f64>,
    /// Collections in the window, every collector's together; `None`
    /// where the window's `/metrics` was not read (a sweep's steps, whose
    /// readings would queue behind the step's own requests).
    pub gc_collections: Option<u64>,
    /// Their time, in seconds.
    pub gc_seconds: Option<f64>,
    /// Whether the server counts pinned virtual threads
    /// (`jvm_virtual_thread_pinned_watched`): Tomcat on virtual threads,
    /// on Java 21 or later, without `--no-pin-events`.
    pub pins_watched: bool,
    /// Times a virtual thread parked pinned to its carrier in the window,
    /// per route (`jvm_virtual_thread_pinned_total`'s rise), read once
    /// JFR had handed over the window's events (it does so about once a
    /// second); empty when not watched.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pinned: BTreeMap<String, u64>,
    /// The JVM's own warm-up before this window, on a server just started
    /// (a sweep's first step, or a step on a fresh server); `None` after
    /// `--cold`, and on a sweep's later steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_up: Option<JvmWarmUp>,
}

impl JvmWindow {
    /// Pins of `route` in the window, 0 when none was counted.
    pub fn pins_of(&self, route: &str) -> u64 {
        self.pinned.get(route).copied().unwrap_or(0)
    }
}

/// How a fresh JVM's warm-up went: short windows of its column's route
/// until the JIT was quiet and the throughput no longer climbing
/// (bench-analysis' `warm_up` rule), or until it gave up.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct JvmWarmUp {
    /// Each warm-up window, in order.
    pub windows: Vec<WarmUpWindowFigures>,
    /// The settled throughput (the median of the last windows the rule
    /// judged); `None` when it never settled.
    pub settled_rps: Option<f64>,
    /// Why it never settled, when it gave up: the rule's note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl JvmWarmUp {
    /// Whether the JVM settled before the bound.
    pub fn settled(&self) -> bool {
        self.settled_rps.is_some()
    }

    /// The windows' length together, in seconds.
    pub fn seconds(&self) -> f64 {
        self.windows.iter().map(|w| w.seconds).sum()
    }
}

/// One window of a JVM's warm-up, as measured.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct WarmUpWindowFigures {
    pub seconds: f64,
    /// Answers per second in it.
    pub throughput_rps: f64,
    /// The JIT's compile time in it, where the JVM tells.
    pub compile_seconds: Option<f64>,
    /// The compiler threads' CPU in it, where the JVM tells: what the
    /// warm-up rule judges the JIT by when told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compiler_cpu_seconds: Option<f64>,
}

/// The warm-up every fresh JVM of a run got, as results.json records it
/// ([`crate::JvmSettings::warm_up_rule`]): windows of the settings' length
/// until the JIT is under `max_jit_share` of each of `settled_windows` of
/// them and their median throughput within `tolerance` of the median of
/// as many before them, at most `limit_seconds` in all.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct JvmWarmUpRule {
    pub settled_windows: usize,
    pub tolerance: f64,
    pub max_jit_share: f64,
    pub limit_seconds: f64,
    /// The rule of runs since 2026-12-07 (the throughput no longer
    /// climbing, the JIT judged by its compiler threads' CPU); false in
    /// runs saved before, whose rule wanted `settled_windows` windows
    /// within `tolerance` of each other, the JIT by its compile time.
    #[serde(default)]
    pub until_no_climb: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_without_jvm_fields_reads_and_a_note_round_trips() {
        let w: JvmWindow = serde_json::from_str(
            r#"{"version":"25.0.2","compile_seconds":null,"gc_collections":null,"gc_seconds":null,"pins_watched":true}"#,
        )
        .unwrap();
        assert_eq!(w.pins_of("/users/{id}"), 0);
        assert_eq!(w.warm_up, None);
        let warm = JvmWarmUp {
            windows: vec![WarmUpWindowFigures {
                seconds: 1.0,
                throughput_rps: 900.0,
                compile_seconds: Some(0.4),
                compiler_cpu_seconds: Some(0.1),
            }],
            settled_rps: None,
            note: Some("never settled".into()),
        };
        let text = serde_json::to_string(&warm).unwrap();
        assert_eq!(serde_json::from_str::<JvmWarmUp>(&text).unwrap(), warm);
        assert!(!warm.settled());
        assert_eq!(warm.seconds(), 1.0);
    }
}
