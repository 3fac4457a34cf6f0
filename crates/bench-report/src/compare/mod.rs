//! `bench compare OLD NEW`: two saved runs side by side, as a reader wants
//! them after changing one thing. The two runs' matrices at a glance, the
//! changed cells marked ([`glance`]), every finding of either run with its
//! verdict in each and what changed ([`findings`]), every column's
//! throughput, p99 and server CPU per request with the change and whether it
//! is beyond the runs' own noise ([`figures`], [`groups`]), and what else
//! differs between the runs that could explain a change ([`warnings`]).
//!
//! This module is the model: pure functions from two [`SavedRun`]s to a
//! [`Comparison`]. The printers ([`text`], [`markdown`], [`html`]) are pure
//! functions of the comparison, built on the same tables ([`tables`]), so
//! they cannot disagree; [`files`] names the two files `--out` asks for
//! (bench writes them).
//!
//! Findings are compared as each file saved them, never judged again: a
//! saved run is a record, and a comparison of two records must not depend
//! on the build that reads them.

pub mod figures;
pub mod findings;
pub mod glance;
pub mod groups;
pub mod html;
pub mod markdown;
mod tables;
pub mod text;
pub mod warnings;

use bench_model::RunResults;
use bench_model::SavedRun;

pub use figures::{Figure, FigureChange, Word};
pub use findings::{Change, FindingChange, Judged};
pub use glance::GlanceRowChange;
pub use groups::{GroupChange, OnlyIn};

/// Two runs compared: which runs, what differs between them besides the
/// code, and every finding and column of either.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub old: RunLabel,
    pub new: RunLabel,
    /// Differences of machine, profile, settings and thresholds, and runs
    /// that were interrupted: each a reason a change may not be the code's.
    pub warnings: Vec<String>,
    pub findings: Vec<FindingChange>,
    /// The two runs' matrices, a row per workload either measured.
    pub glance: Vec<GlanceRowChange>,
    pub groups: Vec<GroupChange>,
    /// The margin a figure's change had to exceed ([`margin`]).
    pub margin: f64,
}

/// Which run one side is, in the words a reader needs to find it again.
#[derive(Debug, Clone, PartialEq)]
pub struct RunLabel {
    /// The results.json it was read from, as given.
    pub path: String,
    pub started_at: String,
    pub profile: String,
    /// The commit it was measured on ("with uncommitted changes" where the
    /// checkout had them), `None` in runs saved before bench recorded it.
    /// Not a warning: a different commit is usually the point of comparing.
    pub commit: Option<String>,
}

impl RunLabel {
    fn of(path: &str, r: &RunResults) -> RunLabel {
        let commit = r.source.as_ref().map(|s| {
            if s.uncommitted_changes {
                format!("{} with uncommitted changes", s.commit)
            } else {
                s.commit.clone()
            }
        });
        RunLabel {
            path: path.to_owned(),
            started_at: r.started_at.clone(),
            profile: r.settings.profile.clone(),
            commit,
        }
    }
}

impl Comparison {
    /// The findings that went from HELD to NOT HELD or back: what makes
    /// `bench compare` exit 1.
    pub fn flipped(&self) -> Vec<&FindingChange> {
        self.findings
            .iter()
            .filter(|f| matches!(f.change, Change::Flipped { .. }))
            .collect()
    }
}

/// `old` against `new`, `names` being the paths they were read from.
pub fn compare(old: &SavedRun, new: &SavedRun, names: (&str, &str)) -> Comparison {
    Comparison {
        old: RunLabel::of(names.0, &old.results),
        new: RunLabel::of(names.1, &new.results),
        warnings: warnings::warnings(old, new),
        findings: findings::compare_findings(old, new),
        glance: glance::compare_glances(&glance_of(old), &glance_of(new)),
        groups: groups::compare_groups(&old.results, &new.results, margin(old, new)),
        margin: margin(old, new),
    }
}

/// The files `bench compare --out DIR` writes, as (file name, text):
/// compare.md and compare.html.
pub fn files(cmp: &Comparison) -> Vec<(String, String)> {
    vec![
        ("compare.md".to_owned(), markdown::render(cmp)),
        ("compare.html".to_owned(), html::render(cmp)),
    ]
}

/// A saved run's matrix, with the findings and thresholds it was saved with.
fn glance_of(run: &SavedRun) -> crate::glance::Glance {
    crate::glance::build(&run.results, &run.findings, &run.thresholds)
}

/// The margin a figure's change must exceed to be called: the findings'
/// margin, the larger of the two runs' should they differ (a warning says so).
pub fn margin(old: &SavedRun, new: &SavedRun) -> f64 {
    old.thresholds.margin.max(new.thresholds.margin)
}
