//! The one summary renderer: the durations both servers report about their
//! own waiting (the async server's event-loop lag, the blocking server's
//! wait for a handler thread), kept by [`crate::recent_durations`].

use std::fmt::Write as _;

use super::{seconds, write_family_header};
use crate::recent_durations::DurationSummary;

/// One series of a summary family: its extra label (`("route", "/cpu")`), if
/// any, and its figures.
#[derive(Debug, Clone, Copy)]
pub struct SummarySeries<'a> {
    pub label: Option<(&'a str, &'a str)>,
    pub summary: DurationSummary,
}

/// Appends a summary family in seconds: the median, p99 and max
/// (`quantile="1"`) over the recent window, `NaN` when nothing was recorded
/// in it (Prometheus's convention for an empty summary; not 0, which would be
/// a measurement), then `_sum` and `_count` since start-up.
pub fn append_summaries(
    out: &mut String,
    name: &str,
    help: &str,
    server: &str,
    series: &[SummarySeries<'_>],
) {
    write_family_header(out, name, help, "summary");
    for s in series {
        let labels = match s.label {
            Some((key, value)) => format!("server=\"{server}\",{key}=\"{value}\""),
            None => format!("server=\"{server}\""),
        };
        let d = &s.summary;
        for (quantile, value) in [("0.5", d.p50), ("0.99", d.p99), ("1", d.max)] {
            let value = value.map_or_else(|| "NaN".to_owned(), seconds);
            let _ = writeln!(out, "{name}{{{labels},quantile=\"{quantile}\"}} {value}");
        }
        let _ = writeln!(out, "{name}_sum{{{labels}}} {}", seconds(d.sum));
        let _ = writeln!(out, "{name}_count{{{labels}}} {}", d.count);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_show_quantiles_or_nan_then_sum_and_count() {
        use std::time::Duration;
        let mut out = String::new();
        let ms = Duration::from_millis;
        append_summaries(
            &mut out,
            "handler_queue_wait_seconds",
            "Wait for a handler thread.",
            "blocking",
            &[
                SummarySeries {
                    label: Some(("route", "/posts/{id}")),
                    summary: DurationSummary {
                        count: 8,
                        sum: ms(1200),
                        recent_count: 8,
                        p50: Some(ms(150)),
                        p99: Some(ms(301)),
                        max: Some(ms(301)),
                    },
                },
                SummarySeries {
                    label: None,
                    summary: DurationSummary {
                        count: 3,
                        sum: ms(1),
                        recent_count: 0,
                        p50: None,
                        p99: None,
                        max: None,
                    },
                },
            ],
        );
        let expected = "\
# HELP handler_queue_wait_seconds Wait for a handler thread.
# TYPE handler_queue_wait_seconds summary
handler_queue_wait_seconds{server=\"blocking\",route=\"/posts/{id}\",quantile=\"0.5\"} 0.150000
handler_queue_wait_seconds{server=\"blocking\",route=\"/posts/{id}\",quantile=\"0.99\"} 0.301000
handler_queue_wait_seconds{server=\"blocking\",route=\"/posts/{id}\",quantile=\"1\"} 0.301000
handler_queue_wait_seconds_sum{server=\"blocking\",route=\"/posts/{id}\"} 1.200000
handler_queue_wait_seconds_count{server=\"blocking\",route=\"/posts/{id}\"} 8
handler_queue_wait_seconds{server=\"blocking\",quantile=\"0.5\"} NaN
handler_queue_wait_seconds{server=\"blocking\",quantile=\"0.99\"} NaN
handler_queue_wait_seconds{server=\"blocking\",quantile=\"1\"} NaN
handler_queue_wait_seconds_sum{server=\"blocking\"} 0.001000
handler_queue_wait_seconds_count{server=\"blocking\"} 3
";
        assert_eq!(out, expected);
    }
}
