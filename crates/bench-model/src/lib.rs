//! `bench-model`: the results of a bench run, as results.json holds them,
//! and nothing else. The ids of the matrix ([`GroupId`], [`ColumnId`],
//! [`Target`]), a run and everything measured in it ([`RunResults`]: groups,
//! columns, rounds, windows, errors, the idle group, sweeps, cold starts,
//! detector, proxy and JVM readings, the equal-load windows), the findings
//! as data ([`Finding`], [`Verdict`], [`Thresholds`]), the figures a reader
//! compares, each defined once
//! ([`figures`]: throughput is successful throughput), and reading and
//! writing results.json ([`results_file`]).
//!
//! Plain data, serialisable both ways, so a report can be re-rendered from a
//! saved run and every printer tested from fixed inputs. No file I/O, no
//! runtime: judging a run is bench-analysis's, printing it bench-report's,
//! measuring it bench's.
//!
//! Times are milliseconds, memory bytes, CPU seconds; names carry their unit.

mod cold_start;
mod detector;
mod equal_load;
mod errors;
pub mod figures;
mod findings;
#[cfg(feature = "fixtures")]
pub mod fixtures;
mod group;
mod idle;
mod ids;
mod jvm;
mod proxy;
pub mod results_file;
mod round;
mod run;
mod spread;
mod sweep;
mod thresholds;

pub use cold_start::{ColdStartResult, ColdStartServer};
pub use detector::{DetectorWindow, PoolWindow, RouteWindow};
pub use equal_load::EqualLoad;
pub use errors::ErrorKind;
pub use figures::Metric;
pub use findings::{Finding, FindingKind, Verdict};
pub use group::{ColumnResult, GroupResult};
pub use idle::{
    IdleCell, IdleResult, IdleRound, IdleServer, IdleStep, ProbeStats, ProcessFigures,
    IDLE_FDS_SLACK,
};
pub use ids::{ColumnId, Driver, GroupId, JavaServer, Target};
pub use jvm::{JvmWarmUp, JvmWarmUpRule, JvmWindow, WarmUpWindowFigures};
pub use proxy::ProxyWindow;
pub use results_file::{SavedRun, READABLE_SCHEMA_VERSIONS, SCHEMA_VERSION};
pub use round::{CpuUse, Latency, LoadStats, RoundResult, Second, ServerStats, WindowTicks};
pub use run::{
    CpuAccounting, IrqTime, JvmSettings, Machine, RunResults, RunSettings, Skipped, SkippedGroup,
    Source,
};
pub use spread::Spread;
pub use sweep::{LittleCap, SweepInfo, SweepStep};
pub use thresholds::{Thresholds, THRESHOLDS};
