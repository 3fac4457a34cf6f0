//! The verdict "no request succeeded", and why, as a pure function of a
//! [`Report`]: the CLI prints it and exits 3, and `bench` marks a column
//! failed with it, so a run against a dead port cannot pass as a fast one.

use url::Url;

use crate::print_text::seconds;
use crate::report::Report;

impl Report {
    /// `None` when at least one request was answered with a status below
    /// 400; otherwise one line naming why none was, starting with
    /// `no request succeeded: `, e.g.
    /// `no request succeeded: all 1,234 connection attempts to 127.0.0.1:9 failed`,
    /// `... every request timed out after 2s`, `... every response had status 503`,
    /// `... no request completed in 2.00 s`, or the split of a mix of failures.
    pub fn no_success_cause(&self) -> Option<String> {
        let total = self.requests.total;
        if self.requests.ok > 0 {
            return None;
        }
        let e = &self.errors;
        let cause = if total == 0 {
            format!("no request completed in {:.2} s", self.elapsed_ms / 1000.0)
        } else if e.connect == total {
            format!(
                "all {} connection attempts to {} failed",
                thousands(total),
                self.target_authority()
            )
        } else if e.timeout == total {
            format!(
                "every request timed out after {}",
                seconds(self.target.timeout_ms)
            )
        } else if e.status == total && e.by_status.len() == 1 {
            let code = e.by_status.keys().next().map_or("", String::as_str);
            format!("every response had status {code}")
        } else if e.unfinished == total {
            format!(
                "none of {} requests finished before the deadline",
                thousands(total)
            )
        } else if e.other == total {
            format!(
                "all {} requests ended without a usable response (reset, closed early or malformed)",
                thousands(total)
            )
        } else {
            let mut parts = Vec::new();
            if e.connect > 0 {
                parts.push(format!("{} failed to connect", thousands(e.connect)));
            }
            if e.timeout > 0 {
                parts.push(format!("{} timed out", thousands(e.timeout)));
            }
            for (code, n) in &e.by_status {
                parts.push(format!("{} had status {code}", thousands(*n)));
            }
            if e.other > 0 {
                parts.push(format!("{} had no usable response", thousands(e.other)));
            }
            if e.unfinished > 0 {
                parts.push(format!(
                    "{} were still in flight at the deadline",
                    thousands(e.unfinished)
                ));
            }
            format!(
                "all {} requests failed: {}",
                thousands(total),
                parts.join(", ")
            )
        };
        Some(format!("no request succeeded: {cause}"))
    }

    /// `host:port` of the target, or the URL as given if it does not parse.
    fn target_authority(&self) -> String {
        Url::parse(&self.target.url)
            .ok()
            .and_then(|url| {
                let host = url.host_str()?.to_string();
                Some(format!("{host}:{}", url.port_or_known_default()?))
            })
            .unwrap_or_else(|| self.target.url.clone())
    }
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::latency_stats::{summarize, Precisions};
    use crate::report::{
        ClientCpu, ErrorCounts, LoadInfo, ModelName, RequestCounts, TargetInfo, TransferInfo,
        SCHEMA_VERSION,
    };

    /// A closed-loop report of `total` requests to 127.0.0.1:9 with a 2 s
    /// timeout, `ok` of them successful, the rest split as given.
    fn report(total: u64, ok: u64, connect: u64, timeout: u64, statuses: &[(&str, u64)]) -> Report {
        let by_status: BTreeMap<String, u64> =
            statuses.iter().map(|(c, n)| (c.to_string(), *n)).collect();
        let status: u64 = by_status.values().sum();
        let errors = total - ok;
        Report {
            schema_version: SCHEMA_VERSION,
            interrupted: false,
            target: TargetInfo {
                url: "http://127.0.0.1:9/health".into(),
                method: "GET".into(),
                keep_alive: true,
                timeout_ms: 2000.0,
            },
            load: LoadInfo {
                model: ModelName::Closed,
                connections: 10,
                duration_ms: Some(2000.0),
                requests: None,
                rate_rps: None,
                max_connections: None,
                stages: None,
                burst_connect: None,
            },
            threads: 1,
            elapsed_ms: 2000.0,
            requests: RequestCounts { total, ok, errors },
            throughput_rps: total as f64 / 2.0,
            successful_throughput_rps: ok as f64 / 2.0,
            error_rate_percent: 0.0,
            transfer: TransferInfo::default(),
            errors: ErrorCounts {
                status,
                by_status,
                connect,
                timeout,
                other: errors - status - connect - timeout,
                unfinished: 0,
            },
            status_codes: BTreeMap::new(),
            latency_ms: summarize(&Precisions::new().unwrap().run()),
            latency_uncorrected_ms: None,
            latency_lower_bound_ms: None,
            open_loop: None,
            burst: None,
            timeline: Vec::new(),
            client_cpu: ClientCpu {
                cpu_ms: 0.0,
                cores_used: 0.0,
            },
            thresholds: Vec::new(),
        }
    }

    #[test]
    fn names_why_no_request_succeeded() {
        let cases = [
            (
                "refused",
                report(1234, 0, 1234, 0, &[]),
                "no request succeeded: all 1,234 connection attempts to 127.0.0.1:9 failed",
            ),
            (
                "timed out",
                report(20, 0, 0, 20, &[]),
                "no request succeeded: every request timed out after 2s",
            ),
            (
                "all 503",
                report(500, 0, 0, 0, &[("503", 500)]),
                "no request succeeded: every response had status 503",
            ),
            (
                "nothing completed",
                report(0, 0, 0, 0, &[]),
                "no request succeeded: no request completed in 2.00 s",
            ),
            (
                "only broken responses",
                report(7, 0, 0, 0, &[]),
                "no request succeeded: all 7 requests ended without a usable response (reset, closed early or malformed)",
            ),
            (
                "a mix of failures",
                report(1010, 0, 1000, 3, &[("500", 2), ("503", 4)]),
                "no request succeeded: all 1,010 requests failed: 1,000 failed to connect, 3 timed out, 2 had status 500, 4 had status 503, 1 had no usable response",
            ),
        ];
        for (name, report, expected) in cases {
            assert_eq!(
                report.no_success_cause().as_deref(),
                Some(expected),
                "{name}"
            );
        }
    }

    #[test]
    fn one_success_is_enough() {
        let mixed = report(1000, 1, 900, 50, &[("503", 49)]);
        assert_eq!(mixed.no_success_cause(), None);
        assert_eq!(report(5, 5, 0, 0, &[]).no_success_cause(), None);
    }

    #[test]
    fn thousands_are_grouped() {
        for (n, text) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (1234567, "1,234,567"),
        ] {
            assert_eq!(thousands(n), text);
        }
    }
}
