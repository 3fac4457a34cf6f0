//! The errors a run should not have had: every one but the seed's
//! deliberate 500s and a sweep step's requests cut off at its window's
//! end (what `bench --strict` fails on).

use std::collections::BTreeMap;

use bench_model::{ColumnId, ErrorKind, RunResults};

/// Columns with errors other than deliberate ones, or that failed, as
/// (column id, "kind=count, ..." or the failure's cause), summed over rounds.
/// A sweep step's requests unfinished at its window's end are by design (a
/// closed loop always has some in flight when it is cut), not unexpected.
pub fn unexpected_errors(results: &RunResults) -> Vec<(ColumnId, String)> {
    let mut out = Vec::new();
    for g in &results.groups {
        for c in &g.columns {
            let mut kinds: BTreeMap<ErrorKind, u64> = BTreeMap::new();
            for r in &c.rounds {
                let loads = std::iter::once((&c.path, &r.load))
                    .chain(c.background_path.as_ref().zip(r.background_load.as_ref()));
                for (path, load) in loads {
                    for (kind, n) in &load.errors_by_kind {
                        let by_design = r.step.is_some() && *kind == ErrorKind::Unfinished;
                        if !is_deliberate(*kind, path) && !by_design {
                            *kinds.entry(*kind).or_default() += n;
                        }
                    }
                }
            }
            let mut parts: Vec<String> = kinds.iter().map(|(k, n)| format!("{k}={n}")).collect();
            if let Some(f) = &c.failure {
                parts.push(format!("failed: {f}"));
            }
            if !parts.is_empty() {
                out.push((c.id, parts.join(", ")));
            }
        }
    }
    out
}

/// Whether `kind` is the seed's deliberate failure on `path`: a 500 from
/// `/posts/{id}` with id >= 10 (seed 001's error path).
pub fn is_deliberate(kind: ErrorKind, path: &str) -> bool {
    let id = path
        .strip_prefix("/posts/")
        .and_then(|rest| rest.split(['/', '?']).next())
        .and_then(|id| id.parse::<i64>().ok());
    kind == ErrorKind::Status(500)
        && id.is_some_and(|id| id >= contract::posts::FIRST_FAILING_POST_ID)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_posts_from_ten_fail_on_purpose() {
        let s500 = ErrorKind::Status(500);
        assert!(is_deliberate(s500, "/posts/10"));
        assert!(is_deliberate(s500, "/posts/12/blocking"));
        assert!(!is_deliberate(s500, "/posts/9"));
        assert!(!is_deliberate(ErrorKind::Timeout, "/posts/10"));
        assert!(!is_deliberate(s500, "/users/10"));
    }
}
