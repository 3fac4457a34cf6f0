//! The rule of a group's equal-load windows ([`bench_model::EqualLoad`]):
//! which of its columns get one (the ranked ones: every column that does
//! not block by design and did not fail), and the one arrival rate they
//! all get: a share of the lowest of their throughputs in this run, each
//! the median over its rounds. The lowest, because every column must be
//! able to serve the rate on this machine beside the load generator; a
//! share of it, so that no column is near its limit and the rate is the
//! load's, not the server's. bench measures with it; the findings and
//! the reports read what it saved.

use bench_model::figures::successful_rps;
use bench_model::{ColumnId, ColumnResult};

use crate::by_design::blocks_by_design;
use crate::stats::column_spread;

/// Whether a column of a group takes part in its equal-load windows: it
/// does not block by design and did not fail.
pub fn is_ranked(c: &ColumnResult) -> bool {
    c.failure.is_none() && !blocks_by_design(c.server, &c.path, c.background_path.as_deref())
}

/// The rate of a group's equal-load windows and where it came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// The ranked column with the lowest throughput ...
    pub lowest: ColumnId,
    /// ... that throughput (successful requests per second, its median) ...
    pub lowest_rps: f64,
    /// ... and `share` of it: the arrival rate every ranked column gets.
    pub rate_rps: f64,
}

/// `share` of the lowest median throughput of the ranked `columns`; a
/// column that served nothing (a median of 0) cannot set a rate and is
/// passed over (it still gets its window). `None` when no ranked column
/// served anything.
pub fn rate(columns: &[ColumnResult], share: f64) -> Option<Rate> {
    columns
        .iter()
        .filter(|c| is_ranked(c))
        .filter_map(|c| Some((c.id, column_spread(c, successful_rps)?.median)))
        .filter(|(_, rps)| *rps > 0.0)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(lowest, lowest_rps)| Rate {
            lowest,
            lowest_rps,
            rate_rps: lowest_rps * share,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::fixtures::{column_id, steady};

    fn rate_of(columns: &[ColumnResult]) -> Option<(String, f64, f64)> {
        rate(columns, 0.5).map(|r| (r.lowest.to_string(), r.lowest_rps, r.rate_rps))
    }

    #[test]
    fn the_rate_is_a_share_of_the_lowest_ranked_median() {
        let mut slow = steady("blocking-health-tiny-http", "blocking", 600.0, 1.0, 20);
        // Medians over rounds: 800 (not the mean, nor the lowest round).
        slow.rounds[0].load.successful_throughput_rps = 100.0;
        slow.rounds[1].load.successful_throughput_rps = 900.0;
        slow.rounds[2].load.successful_throughput_rps = 800.0;
        let columns = [
            steady("blocking-health", "blocking", 1500.0, 1.0, 20),
            slow,
            steady("async-health", "async", 1200.0, 1.0, 20),
        ];
        assert_eq!(
            rate_of(&columns),
            Some(("blocking-health-tiny-http".into(), 800.0, 400.0))
        );
    }

    #[test]
    fn a_column_that_blocks_by_design_or_failed_sets_no_rate() {
        let mut inline = steady("async-users-blocking", "async", 100.0, 1.0, 20);
        inline.path = "/users/1/blocking".into();
        let mut failed = steady("blocking-users", "blocking", 50.0, 1.0, 20);
        failed.failure = Some("exited at start-up".into());
        let columns = [
            inline,
            failed,
            steady("async-users", "async", 1000.0, 1.0, 20),
        ];
        assert!(!is_ranked(&columns[0]) && !is_ranked(&columns[1]));
        assert_eq!(
            rate_of(&columns),
            Some(("async-users".into(), 1000.0, 500.0))
        );
    }

    #[test]
    fn a_column_with_no_success_is_passed_over_and_none_at_all_gives_no_rate() {
        let none = steady("async-health", "async", 0.0, 1.0, 20);
        assert!(is_ranked(&none));
        let columns = [
            none.clone(),
            steady("blocking-health", "blocking", 300.0, 1.0, 20),
        ];
        assert_eq!(
            rate_of(&columns),
            Some(("blocking-health".into(), 300.0, 150.0))
        );
        assert_eq!(rate_of(&[none]), None);
        assert_eq!(rate_of(&[]), None);
    }

    #[test]
    fn a_single_column_gets_its_own_share() {
        let one = [steady("virtual-echo", "virtual-pinning", 1000.0, 1.0, 20)];
        let r = rate(&one, 0.25).unwrap();
        assert_eq!((r.lowest, r.rate_rps), (column_id("virtual-echo"), 250.0));
    }
}
