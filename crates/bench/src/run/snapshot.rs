//! The run's results so far, kept after every column round so that an
//! interrupted run still writes what it measured (see [`super::interrupt`]).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use bench_model::{GroupResult, RunResults};

/// The groups finished so far, on top of which each column round's state
/// of the group in progress is kept.
pub(super) struct Snapshot {
    dir: PathBuf,
    started: Instant,
    base: Mutex<RunResults>,
}

impl Snapshot {
    /// A run writing into `dir`, with nothing measured yet in `base`.
    pub(super) fn new(dir: &Path, started: Instant, base: RunResults) -> Snapshot {
        Snapshot {
            dir: dir.to_owned(),
            started,
            base: Mutex::new(base),
        }
    }

    /// The group in progress now stands as `current`.
    pub(super) fn keep(&self, current: GroupResult) {
        self.keep_all(vec![current]);
    }

    /// The groups in progress (a group, and the one whose window each of
    /// its column rounds measures first) now stand as `current`.
    pub(super) fn keep_all(&self, current: Vec<GroupResult>) {
        let mut results = self.base.lock().unwrap_or_else(|p| p.into_inner()).clone();
        results.groups.extend(current);
        results.wall_seconds = self.started.elapsed().as_secs_f64();
        super::interrupt::keep_partial(&self.dir, results);
    }

    /// A group is finished: it joins the base.
    pub(super) fn finished(&self, group: GroupResult) {
        let mut base = self.base.lock().unwrap_or_else(|p| p.into_inner());
        base.groups.push(group);
        let mut results = base.clone();
        results.wall_seconds = self.started.elapsed().as_secs_f64();
        super::interrupt::keep_partial(&self.dir, results);
    }

    /// The whole run, once every group is finished.
    pub(super) fn into_results(self) -> RunResults {
        super::interrupt::forget_partial();
        let mut results = self.base.into_inner().unwrap_or_else(|p| p.into_inner());
        results.wall_seconds = self.started.elapsed().as_secs_f64();
        results
    }
}
