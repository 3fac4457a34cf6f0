//! results.json, read and written in this one place: a run, then the
//! thresholds its findings were judged with, then the findings. A saved
//! run is a record: nothing writes one back (`bench render` writes its
//! report elsewhere). A file of another shape is refused with one line
//! saying why; a file of an older shape this build still reads is upgraded
//! on reading, each field added since defaulting (see the `serde(default)`
//! of each type), never by rewriting the file.

use serde::{Deserialize, Serialize};

use crate::{Finding, RunResults, Thresholds};

/// The shape of results.json this build writes. 3 added `source`, the
/// settings' server URLs and an unknown `cold_start`; 4 each finding's
/// `kind` and `short_evidence`, each window's `ticks` and the run's
/// `cpu_accounting`, and counts softirq inside the processes' times where
/// the kernel does; 5 the verdict SAME and each finding's `line`. A file
/// of shape 2, 3 or 4 reads as one of shape 5 without them (its verdicts
/// are never SAME: a tie was INCONCLUSIVE then). A build before shape 5
/// refuses a file of it by its version, rather than failing on the new
/// verdict.
pub const SCHEMA_VERSION: u32 = 5;

/// The shapes of results.json this build reads.
pub const READABLE_SCHEMA_VERSIONS: std::ops::RangeInclusive<u32> = 2..=5;

/// A saved run as results.json holds it.
#[derive(Debug, Clone, Deserialize)]
pub struct SavedRun {
    #[serde(flatten)]
    pub results: RunResults,
    /// The thresholds its findings were judged with.
    pub thresholds: Thresholds,
    /// The findings as that run's build judged them.
    pub findings: Vec<Finding>,
}

/// The shape of results.json as written: the run, then the findings and
/// the thresholds they used.
#[derive(Serialize)]
struct ResultsFile<'a> {
    #[serde(flatten)]
    results: &'a RunResults,
    thresholds: &'a Thresholds,
    findings: &'a [Finding],
}

/// The text of results.json for a run judged with `thresholds`.
pub fn to_json(
    results: &RunResults,
    thresholds: &Thresholds,
    findings: &[Finding],
) -> serde_json::Result<String> {
    serde_json::to_string_pretty(&ResultsFile {
        results,
        thresholds,
        findings,
    })
}

impl SavedRun {
    /// The saved run in `text`, the contents of the file `name` (named in
    /// the error), or one line saying why it is not one: not JSON, a schema
    /// version this build does not read, or not a bench run.
    pub fn from_json(text: &str, name: &str) -> Result<SavedRun, String> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("{name} is not JSON: {e}"))?;
        match value.get("schema_version").and_then(|v| v.as_u64()) {
            Some(v) if READABLE_SCHEMA_VERSIONS.contains(&(v as u32)) => {}
            Some(v) => {
                return Err(format!(
                    "{name} has schema version {v}; this build reads {} to {}",
                    READABLE_SCHEMA_VERSIONS.start(),
                    READABLE_SCHEMA_VERSIONS.end()
                ))
            }
            None => {
                return Err(format!(
                    "{name} is not a bench results.json (no schema_version)"
                ))
            }
        }
        let mut saved: SavedRun = serde_json::from_value(value)
            .map_err(|e| format!("{name} is not a bench results.json: {e}"))?;
        for finding in &mut saved.findings {
            finding.seed = seed_in_words(&finding.seed);
        }
        Ok(saved)
    }
}

/// A finding's seed field as a reader should see it. Runs saved before
/// shape 4 wrote a claim from beyond the seeds as "none (issue N: what it
/// asks)", a reference to the project's own tracker that means nothing in
/// a report; it reads "beyond the seeds: what it asks" now. Other text is
/// kept as saved.
fn seed_in_words(seed: &str) -> String {
    let Some(inner) = seed
        .strip_prefix("none (issue ")
        .and_then(|rest| rest.strip_suffix(')'))
    else {
        return seed.to_owned();
    };
    match inner.split_once(": ") {
        Some((number, what)) if number.chars().all(|c| c.is_ascii_digit()) => {
            format!("beyond the seeds: {what}")
        }
        _ => seed.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A saved run of docs/results, as its file holds it.
    fn saved_text(run: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../docs/results")
            .join(run)
            .join("results.json");
        std::fs::read_to_string(path).unwrap()
    }

    #[test]
    fn an_old_runs_tracker_reference_reads_as_words() {
        assert_eq!(
            seed_in_words("none (issue 9: idle keep-alive connections)"),
            "beyond the seeds: idle keep-alive connections"
        );
        assert_eq!(seed_in_words("seed 000"), "seed 000");
        assert_eq!(
            seed_in_words("none (issue: no number)"),
            "none (issue: no number)"
        );
        let saved = SavedRun::from_json(&saved_text("seed-2026-12-02"), "r.json").unwrap();
        assert!(saved.findings.iter().all(|f| !f.seed.contains("issue")));
    }

    #[test]
    fn another_shape_is_refused_in_one_line_naming_the_file() {
        let refused = |text: &str| SavedRun::from_json(text, "r.json").unwrap_err();
        assert!(refused("{").starts_with("r.json is not JSON: "));
        assert_eq!(
            refused(r#"{"schema_version": 99, "groups": []}"#),
            "r.json has schema version 99; this build reads 2 to 5"
        );
        assert_eq!(
            refused(r#"{"groups": []}"#),
            "r.json is not a bench results.json (no schema_version)"
        );
        let e = refused(r#"{"schema_version": 3, "runs": []}"#);
        assert!(e.starts_with("r.json is not a bench results.json: "), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }

    #[test]
    fn a_run_of_the_older_shape_reads_and_writes_back_as_this_shape() {
        // seed-2026-12-02 is of shape 2: no `source`, no settings URLs.
        let old = SavedRun::from_json(&saved_text("seed-2026-12-02"), "old").unwrap();
        assert_eq!(old.results.schema_version, 2);
        assert_eq!(old.results.source, None);
        let written = to_json(&old.results, &old.thresholds, &old.findings).unwrap();
        let again = SavedRun::from_json(&written, "again").unwrap();
        assert_eq!(again.results, old.results);
        // A run without calibration servers has no JVM, and writes none.
        assert_eq!(old.results.settings.jvm, None);
        assert!(
            !written.contains("\"jvm\""),
            "an old run written back has a jvm key"
        );
        assert_eq!(again.findings, old.findings);
        assert_eq!(again.thresholds, old.thresholds);
        // A run of shape 3 reads too, its findings' meanings kept, their
        // kinds and its windows' ticks absent.
        let three = SavedRun::from_json(&saved_text("seed-2026-12-03"), "three").unwrap();
        assert_eq!(three.results.schema_version, 3);
        assert!(three.findings.iter().all(|f| !f.meaning.is_empty()));
        assert!(three.findings.iter().all(|f| f.kind.is_none()));
        assert_eq!(three.results.cpu_accounting, None);
        // Its CPU split subtracted softirq though the processes' times hold it.
        assert!(three.results.cpu_split_words().ends_with("counted twice"));
        assert!(!old.results.cpu_split_words().contains("twice"));
    }
}
